"""Bandit learning in two-sided matching markets: simulators and learning policies."""

__all__ = []
