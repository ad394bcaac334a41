"""Sequence models: next-token learners and reinforcement learning after them."""

__all__ = []
