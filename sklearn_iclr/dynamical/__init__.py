"""Linear dynamical systems: spectral-filter features and online controllers."""

__all__ = []
