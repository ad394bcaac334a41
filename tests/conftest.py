"""Test configuration: hypothesis profiles and a quiet, headless matplotlib.

Profiles (choose with ``HYPOTHESIS_PROFILE``):

- ``default``: hypothesis' usual random seeds, but derandomized when ``CI=true``
  so that a red build always reproduces;
- ``ci``: derandomized, as CI runs;
- ``explore``: 1000 examples (where a test does not set its own) and fresh
  seeds, for local bug hunting
  (see the README).
"""

import importlib.util
import os

import pytest
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


# Without the [torch] extra (CI's step on the core install), a test that needs
# torch is reported as skipped instead of failed: at collection, when its module
# imports torch or skorch; at run time, when the ImportError that
# sklearn_iclr.utils.import_torch raises (or a missing torch module) ends it,
# also wrapped (scikit-learn's checks and GridSearchCV re-raise it).
# With torch installed nothing changes. The numpy estimators' independence from
# torch is tested directly, with torch blocked, in tests/test_package.py.
# When SKLEARN_ICLR_TORCH_SKIPS names a file, the ids of the tests skipped for
# want of torch (by this hook or by pytest.importorskip) are appended to it:
# CI runs exactly those again where torch is installed.
_TORCH_MISSING = importlib.util.find_spec("torch") is None
_SKIP_REASON = "needs the [torch] extra (torch is not installed)"


def _is_missing_torch(text):
    return (
        "No module named 'torch'" in text
        or "No module named 'skorch'" in text
        or "needs torch, which is not installed" in text
        or "needs skorch, which is not installed" in text
        or "could not import 'torch'" in text
        or "could not import 'skorch'" in text
    )


def _skip_for_torch(report, path, line):
    """Turn a failure for want of torch into a skip; record either."""
    if not _TORCH_MISSING or not _is_missing_torch(str(report.longrepr)):
        return
    if report.failed:
        report.outcome = "skipped"
        report.longrepr = (str(path), line, f"Skipped: {_SKIP_REASON}")
    if report.skipped and os.environ.get("SKLEARN_ICLR_TORCH_SKIPS"):
        with open(os.environ["SKLEARN_ICLR_TORCH_SKIPS"], "a") as ids:
            ids.write(report.nodeid + "\n")


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector):
    report = yield
    _skip_for_torch(report, collector.path, 0)
    return report


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    _skip_for_torch(report, item.path, item.location[1])
    return report
