"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

from ._infonce import InfoNCEEncoder

__all__ = ["InfoNCEEncoder"]
