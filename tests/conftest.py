"""Test configuration: hypothesis profiles and a quiet, headless matplotlib."""

import os

from hypothesis import HealthCheck, settings

# Fits are slow compared with hypothesis' default deadline. In CI the examples
# are derandomized, so a red build always reproduces.
settings.register_profile(
    "sklearn_iclr",
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=os.environ.get("CI", "").lower() == "true",
)
settings.load_profile("sklearn_iclr")
os.environ.setdefault("MPLBACKEND", "Agg")
