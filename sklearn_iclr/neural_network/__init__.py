"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

from ._infonce import InfoNCEEncoder
from ._supervised_baseline import fit_supervised_encoder

__all__ = ["InfoNCEEncoder", "fit_supervised_encoder"]
