"""Bandit learning in two-sided matching markets: simulators and learning policies."""

from ._etgs import ETGS, RobustETGS
from ._market import MatchingMarket, TargetOptimalCorruption, gale_shapley
from ._race import MultiLayerETGSRace
from ._simulate import simulate

__all__ = [
    "ETGS",
    "MatchingMarket",
    "MultiLayerETGSRace",
    "RobustETGS",
    "TargetOptimalCorruption",
    "gale_shapley",
    "simulate",
]
