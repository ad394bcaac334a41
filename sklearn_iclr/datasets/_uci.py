"""Loaders for the small UCI classification sets shipped with the package."""

from importlib import resources

import numpy as np
from sklearn.utils import Bunch

from ..utils._compat import validate_params

_FILES = {
    "voicepath": ("voicepath_data.csv", "Voice path (UCI), 707 rows x 2 features"),
    "haberman": ("haberman_283_3D.csv", "Haberman survival (UCI), 283 rows x 3"),
    "caesarian": ("caesarian_72_5D.csv", "Caesarian section (UCI), 72 rows x 5"),
}


def _load(name, return_X_y):
    filename, description = _FILES[name]
    path = resources.files("sklearn_iclr.datasets") / "data" / filename
    with resources.as_file(path) as file:
        table = np.loadtxt(file, delimiter=",", dtype=np.float64)
    X, y = table[:, :-1], table[:, -1].astype(np.int64)
    if return_X_y:
        return X, y
    return Bunch(data=X, target=y, DESCR=description, filename=filename)


_DOC = """Load the {title} data set (binary, labels in {{-1, +1}}).

The raw, de-duplicated form used by He & Little (ICLR 2026) for exact 0-1 loss
classification; features are not scaled. Source: UCI Machine Learning
Repository (CC BY 4.0). {note}

Parameters
----------
return_X_y : bool, default=False
    Return ``(X, y)`` instead of a Bunch.

Returns
-------
data : Bunch or tuple
    ``data`` (n_samples, n_features), ``target`` (n_samples,), ``DESCR``.

Examples
--------
>>> from sklearn_iclr.datasets import {func}
>>> X, y = {func}(return_X_y=True)
>>> X.shape
{shape}
"""


@validate_params({"return_X_y": ["boolean"]}, prefer_skip_nested_validation=True)
def load_voicepath(return_X_y=False):
    return _load("voicepath", return_X_y)


@validate_params({"return_X_y": ["boolean"]}, prefer_skip_nested_validation=True)
def load_haberman(return_X_y=False):
    return _load("haberman", return_X_y)


@validate_params({"return_X_y": ["boolean"]}, prefer_skip_nested_validation=True)
def load_caesarian(return_X_y=False):
    return _load("caesarian", return_X_y)


load_voicepath.__doc__ = _DOC.format(
    title="Voice path",
    note="707 rows, 704 distinct feature vectors (3 duplicated x).",
    func="load_voicepath",
    shape="(707, 2)",
)
load_haberman.__doc__ = _DOC.format(
    title="Haberman survival",
    note="Integer features: many points share a line or plane.",
    func="load_haberman",
    shape="(283, 3)",
)
load_caesarian.__doc__ = _DOC.format(
    title="Caesarian section",
    note="Integer and categorical features.",
    func="load_caesarian",
    shape="(72, 5)",
)
