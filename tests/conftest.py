"""Test configuration: hypothesis profiles and a quiet, headless matplotlib.

Profiles (choose with ``HYPOTHESIS_PROFILE``):

- ``default``: hypothesis' usual random seeds, but derandomized when ``CI=true``
  so that a red build always reproduces;
- ``ci``: derandomized, as CI runs;
- ``explore``: 1000 examples (where a test does not set its own) and fresh
  seeds, for local bug hunting
  (see the README).
"""

import os

from hypothesis import HealthCheck, settings

# Fits are slow compared with hypothesis' default deadline.
_COMMON = {
    "deadline": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
settings.register_profile(
    "default", derandomize=os.environ.get("CI", "").lower() == "true", **_COMMON
)
settings.register_profile("ci", derandomize=True, **_COMMON)
settings.register_profile("explore", max_examples=1000, derandomize=False, **_COMMON)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
os.environ.setdefault("MPLBACKEND", "Agg")
