"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

__all__ = []
