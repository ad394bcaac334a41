"""Reinforcement learning: linear off-policy evaluation."""

from ._fqe import fitted_q_evaluation
from ._lstdq import LSTDQEvaluator

__all__ = ["LSTDQEvaluator", "fitted_q_evaluation"]
