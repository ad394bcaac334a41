"""Sequence models: next-token learners and reinforcement learning after them."""

from ._chain_of_thought import ChainOfThoughtClassifier

__all__ = ["ChainOfThoughtClassifier"]
