"""Graphical models: the inverse temperature of (truncated) Ising models."""

from ._pseudolikelihood_ising import PseudoLikelihoodIsing

__all__ = ["PseudoLikelihoodIsing"]
