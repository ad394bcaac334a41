"""Diagnostics of how Gaussian a cloud of embeddings is.

These are the diagnostics of Betser et al., "InfoNCE Induces Gaussian
Distribution" (ICLR 2026): the coefficient of variation of the embedding norm
(thin-shell concentration) and the fraction of one-dimensional marginals that
pass the Anderson-Darling and D'Agostino-Pearson normality tests, both on the
coordinates and on random unit projections.
"""

from numbers import Integral

import numpy as np
from scipy import stats
from sklearn.utils import check_array, check_random_state

from ..utils._compat import Interval, anderson_normal_statistic, validate_params

# Anderson-Darling statistic below which a marginal "passes" (the 5% critical
# value of the normal case with estimated mean and variance, as in the paper).
AD_CRITICAL_VALUE = 0.752
# D'Agostino-Pearson: a marginal passes when its p-value exceeds this level.
DAGOSTINO_ALPHA = 0.05
# The D'Agostino-Pearson kurtosis test is unreliable below 20 samples.
MIN_SAMPLES = 20


@validate_params({"Z": ["array-like"]}, prefer_skip_nested_validation=True)
def norm_coefficient_of_variation(Z):
    """Coefficient of variation ``std(||z||) / mean(||z||)`` of the row norms.

    A small value means the embeddings lie near a thin shell, the norm
    concentration that precedes Gaussian projections in Betser et al.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_features)
        Embeddings.

    Returns
    -------
    cv : float
        ``inf`` when every row is zero.

    Examples
    --------
    >>> import numpy as np
    >>> norm_coefficient_of_variation(np.array([[3.0, 4.0], [0.0, 5.0]]))
    0.0
    """
    Z = check_array(Z, dtype=np.float64)
    norms = np.linalg.norm(Z, axis=1)
    mean = norms.mean()
    return float(norms.std() / mean) if mean > 0 else float("inf")


def _marginal_tests(columns):
    """Anderson-Darling statistics and D'Agostino-Pearson p-values per column.

    A constant column is a point mass, not a Gaussian: it fails both tests
    (statistic ``inf``, p-value 0) without being handed to scipy.
    """
    spread = columns.std(axis=0)
    varying = spread > 1e-12 * np.maximum(np.abs(columns).max(axis=0), 1.0)
    ad = np.full(columns.shape[1], np.inf)
    pvalues = np.zeros(columns.shape[1])
    if np.any(varying):
        kept = columns[:, varying]
        ad[varying] = [anderson_normal_statistic(col) for col in kept.T]
        pvalues[varying] = stats.normaltest(kept, axis=0).pvalue
    return ad, pvalues


@validate_params(
    {
        "Z": ["array-like"],
        "n_projections": [Interval(Integral, 0, None, closed="left")],
        "random_state": ["random_state"],
    },
    prefer_skip_nested_validation=True,
)
def gaussianity_report(Z, *, n_projections=64, random_state=None):
    """Normality diagnostics of embeddings: norm CV and marginal test pass rates.

    For every coordinate and for ``n_projections`` random unit directions
    ``u`` (uniform on the sphere), the one-dimensional sample ``Z u`` is
    tested with Anderson-Darling (passes when the statistic is below 0.752,
    the 5% critical value with estimated mean and variance) and with
    D'Agostino-Pearson's omnibus test (passes when ``p > 0.05``). Under a
    Gaussian model about 95% of the marginals pass each test.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_features)
        Embeddings; at least 20 finite rows.
    n_projections : int, default=64
        Random directions to test; 0 skips the projections.
    random_state : int, RandomState instance or None, default=None
        Draws the random directions.

    Returns
    -------
    report : dict
        ``norm_cv`` (see :func:`norm_coefficient_of_variation`),
        ``ad_pass_fraction`` and ``dagostino_pass_fraction`` over coordinates,
        ``projection_ad_pass_fraction`` and
        ``projection_dagostino_pass_fraction`` over random projections
        (``nan`` when ``n_projections=0``), and the per-coordinate arrays
        ``ad_statistic`` and ``dagostino_pvalue``.

    References
    ----------
    .. [1] R. Betser, E. Gofer, M. Y. Levi and G. Gilboa. "InfoNCE Induces
       Gaussian Distribution". ICLR 2026. arXiv:2602.24012.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.random.RandomState(0).standard_normal((500, 8))
    >>> report = gaussianity_report(Z, random_state=0)
    >>> report["ad_pass_fraction"] >= 0.75
    True
    >>> Z_uniform = np.random.RandomState(0).uniform(size=(500, 8))
    >>> gaussianity_report(Z_uniform, random_state=0)["ad_pass_fraction"]
    0.0
    """
    Z = check_array(Z, dtype=np.float64, ensure_min_samples=MIN_SAMPLES)
    ad, pvalues = _marginal_tests(Z)
    report = {
        "norm_cv": norm_coefficient_of_variation(Z),
        "ad_pass_fraction": float(np.mean(ad < AD_CRITICAL_VALUE)),
        "dagostino_pass_fraction": float(np.mean(pvalues > DAGOSTINO_ALPHA)),
        "projection_ad_pass_fraction": float("nan"),
        "projection_dagostino_pass_fraction": float("nan"),
        "ad_statistic": ad,
        "dagostino_pvalue": pvalues,
    }
    if n_projections > 0:
        directions = check_random_state(random_state).standard_normal(
            (Z.shape[1], n_projections)
        )
        directions /= np.linalg.norm(directions, axis=0)
        ad_proj, p_proj = _marginal_tests(Z @ directions)
        report["projection_ad_pass_fraction"] = float(
            np.mean(ad_proj < AD_CRITICAL_VALUE)
        )
        report["projection_dagostino_pass_fraction"] = float(
            np.mean(p_proj > DAGOSTINO_ALPHA)
        )
    return report
