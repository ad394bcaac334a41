"""Where sklearn_iclr meets APIs that change between the versions it supports.

Private scikit-learn and skorch names, and public ones whose signature changed
within the declared version floors, are imported or wrapped here only, so that a
new release breaks this one file. ``tests/test_conventions.py`` checks that no
other module imports them directly.
"""

import inspect

from scipy import stats

# scipy 1.17 added ``method`` to ``anderson`` and warns without it; the
# statistic itself does not depend on it.
_ANDERSON_TAKES_METHOD = "method" in inspect.signature(stats.anderson).parameters


def anderson_normal_statistic(sample):
    """The Anderson-Darling statistic of ``sample`` against a fitted normal.

    Parameters
    ----------
    sample : ndarray of shape (n_samples,)

    Returns
    -------
    statistic : numpy.float64

    Examples
    --------
    >>> import numpy as np
    >>> float(round(anderson_normal_statistic(np.linspace(-1, 1, 50)), 2))
    0.53
    """
    if _ANDERSON_TAKES_METHOD:
        return stats.anderson(sample, dist="norm", method="interpolate").statistic
    return stats.anderson(sample, dist="norm").statistic
