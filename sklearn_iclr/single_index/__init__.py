"""Single-index models and tensor PCA via averaged Langevin dynamics."""

__all__ = []
