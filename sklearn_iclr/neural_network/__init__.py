"""Torch-backed neural-network estimators (torch is imported inside ``fit``)."""

from ._patch_conv_ae import PatchConvAEDetector

__all__ = ["PatchConvAEDetector"]
