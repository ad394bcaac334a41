"""Graphical models: the inverse temperature of (truncated) Ising models."""

__all__ = []
