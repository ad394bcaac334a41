"""Reinforcement learning: linear off-policy evaluation."""

__all__ = []
