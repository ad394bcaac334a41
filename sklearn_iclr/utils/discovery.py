"""Discovery of the public estimators of :mod:`sklearn_iclr`."""

import importlib
import inspect

from sklearn.base import (
    BaseEstimator,
    ClassifierMixin,
    ClusterMixin,
    OutlierMixin,
    RegressorMixin,
    TransformerMixin,
)

from ._compat import StrOptions, validate_params

# The families of the package, in the order the API reference lists them.
SUBPACKAGES = (
    "linear_model",
    "covariance",
    "single_index",
    "graphical",
    "rl",
    "neural_network",
    "attention",
    "contrastive",
    "events",
    "dynamical",
    "bandits",
    "sequence",
)

_TYPE_MIXINS = {
    "classifier": ClassifierMixin,
    "regressor": RegressorMixin,
    "transformer": TransformerMixin,
    "cluster": ClusterMixin,
    "outlier_detector": OutlierMixin,
}


@validate_params(
    {"type_filter": [StrOptions(set(_TYPE_MIXINS)), list, None]},
    prefer_skip_nested_validation=True,
)
def all_estimators(type_filter=None):
    """List the public estimators of sklearn_iclr.

    An estimator is public when its class is named in the ``__all__`` of one of
    the subpackages and has a ``fit`` method; adding it there is all that
    discovery (and so the common tests, the API reference and the tour's
    ``--list``) needs. Parameter holders that follow the scikit-learn parameter
    API but do not fit data (controllers, bandit policies) are left out.

    Parameters
    ----------
    type_filter : {"classifier", "regressor", "transformer", "cluster", \
            "outlier_detector"} or list of those, default=None
        Keep only estimators of these types. ``None`` keeps them all.

    Returns
    -------
    estimators : list of (str, type)
        ``(name, class)`` pairs sorted by name.

    Examples
    --------
    >>> from sklearn_iclr.utils import all_estimators
    >>> names = [name for name, _ in all_estimators()]
    >>> isinstance(names, list)
    True
    """
    if type_filter is None:
        mixins = None
    else:
        kinds = [type_filter] if isinstance(type_filter, str) else list(type_filter)
        unknown = sorted(set(kinds) - set(_TYPE_MIXINS))
        if unknown:
            raise ValueError(
                f"type_filter must be among {sorted(_TYPE_MIXINS)}, got {unknown}."
            )
        mixins = tuple(_TYPE_MIXINS[k] for k in kinds)

    found = {}
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"sklearn_iclr.{sub}")
        for name in getattr(module, "__all__", ()):
            obj = getattr(module, name)
            if not (inspect.isclass(obj) and issubclass(obj, BaseEstimator)):
                continue
            if inspect.isabstract(obj) or name.startswith("_"):
                continue
            if not callable(getattr(obj, "fit", None)):
                continue
            if mixins is not None and not issubclass(obj, mixins):
                continue
            found[name] = obj
    return sorted(found.items())
