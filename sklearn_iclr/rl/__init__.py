"""Reinforcement learning: linear off-policy evaluation."""

from ._lstdq import LSTDQEvaluator

__all__ = ["LSTDQEvaluator"]
