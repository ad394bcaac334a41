"""The minimum-error quantized ReLU network as a MILP, solved by HiGHS.

An anchor for :class:`~sklearn_iclr.neural_network.QuantizedReLUClassifier`
in tests and benchmarks: an independent exact formulation solved by
``scipy.optimize.milp``.
"""

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from ._quantized_relu import domain_bounds


class _Model:
    """A tiny builder of sparse MILPs for ``scipy.optimize.milp``."""

    def __init__(self):
        self.lower, self.upper, self.integer, self.cost = [], [], [], []
        self.rows, self.cols, self.vals, self.row_lo, self.row_hi = [], [], [], [], []

    def variables(self, shape, low, high, integer=True):
        size = int(np.prod(shape))
        start = len(self.lower)
        self.lower += [low] * size
        self.upper += [high] * size
        self.integer += [int(integer)] * size
        self.cost += [0.0] * size
        return np.arange(start, start + size).reshape(shape)

    def constraint(self, terms, low, high):
        row = len(self.row_lo)
        for col, val in terms:
            self.rows.append(row)
            self.cols.append(int(col))
            self.vals.append(float(val))
        self.row_lo.append(low)
        self.row_hi.append(high)

    def solve(self, time_limit):
        matrix = coo_array(
            (self.vals, (self.rows, self.cols)),
            shape=(len(self.row_lo), len(self.lower)),
        ).tocsr()
        options = {} if time_limit is None else {"time_limit": float(time_limit)}
        return milp(
            np.array(self.cost),
            constraints=LinearConstraint(matrix, self.row_lo, self.row_hi),
            integrality=np.array(self.integer),
            bounds=Bounds(self.lower, self.upper),
            options=options,
        )


def quantized_relu_milp(
    inputs, counts, domain_size, hidden_layer_sizes=(2,), time_limit=None
):
    """Minimum-error quantized ReLU network by a MILP solved with HiGHS.

    The same model as :class:`QuantizedReLUClassifier` (hidden units clip at
    ``max Z_d``, the output unit at ``n_classes - 1``, biases subtracted),
    written independently: every clipped unit value is a sum of step binaries
    ``s_t = [pre >= t]`` (big-M, exact for integer pre-activations), products
    of an output weight with a step binary are linearised exactly
    (McCormick with one binary factor), and a one-hot binary per input picks
    the output value.

    Parameters
    ----------
    inputs : ndarray of shape (p, n_features)
        Distinct integer inputs in ``Z_d``.
    counts : ndarray of shape (p, n_classes)
        Weight of each class at each input.
    domain_size : int
        ``d``.
    hidden_layer_sizes : tuple, default=(2,)
        ``()`` or ``(width,)``.
    time_limit : float or None, default=None
        HiGHS time limit in seconds.

    Returns
    -------
    result : dict
        ``errors`` (of the best network found, or None), ``lower_bound``,
        ``optimal`` (bool), ``coefs``, ``intercepts`` and ``status``.
    """
    inputs = np.asarray(inputs, dtype=np.int64)
    counts = np.asarray(counts, dtype=np.float64)
    p, n_features = inputs.shape
    low, high = domain_bounds(domain_size)
    big = max(-low, high)
    top = counts.shape[1] - 1
    widths = tuple(hidden_layer_sizes)
    model = _Model()
    x_rows = [[(j, xi) for j, xi in enumerate(row) if xi != 0] for row in inputs]

    if widths:
        width = widths[0]
        W = model.variables((width, n_features), low, high)
        B = model.variables((width,), low, high)
        v = model.variables((width,), low, high)
        c = model.variables((1,), low, high)[0]
        s = model.variables((p, width, high), 0, 1)
        q = model.variables((p, width, high), low, high, integer=False)
        big_hidden = n_features * big * big + big + high + 1
        for i in range(p):
            for j in range(width):
                pre = [(W[j, f], xi) for f, xi in x_rows[i]] + [(B[j], -1)]
                for t in range(1, high + 1):
                    step = s[i, j, t - 1]
                    # s = 1 => pre >= t ; s = 0 => pre <= t - 1
                    model.constraint(
                        pre + [(step, -big_hidden)], t - big_hidden, np.inf
                    )
                    model.constraint(pre + [(step, -big_hidden)], -np.inf, t - 1)
                    prod = q[i, j, t - 1]
                    model.constraint([(prod, 1), (step, -high)], -np.inf, 0)
                    model.constraint([(prod, 1), (step, -low)], 0, np.inf)
                    model.constraint(
                        [(prod, 1), (v[j], -1), (step, -low)], -np.inf, -low
                    )
                    model.constraint(
                        [(prod, 1), (v[j], -1), (step, -high)], -high, np.inf
                    )
        outputs = [
            [(q[i, j, t], 1) for j in range(width) for t in range(high)]
            for i in range(p)
        ]
        big_out = width * high * big + big + top + 1
    else:
        v = model.variables((n_features,), low, high)
        c = model.variables((1,), low, high)[0]
        outputs = [[(v[f], xi) for f, xi in x_rows[i]] for i in range(p)]
        big_out = n_features * big * big + big + top + 1

    r = model.variables((p, top), 0, 1)
    g = model.variables((p, top + 1), 0, 1)
    for i in range(p):
        pre = outputs[i] + [(c, -1)]
        for t in range(1, top + 1):
            step = r[i, t - 1]
            model.constraint(pre + [(step, -big_out)], t - big_out, np.inf)
            model.constraint(pre + [(step, -big_out)], -np.inf, t - 1)
        model.constraint([(g[i, k], 1) for k in range(top + 1)], 1, 1)
        model.constraint(
            [(g[i, k], k) for k in range(1, top + 1)]
            + [(r[i, t], -1) for t in range(top)],
            0,
            0,
        )
        for k in range(top + 1):
            model.cost[g[i, k]] = -counts[i, k]
    result = model.solve(time_limit)
    total = float(counts.sum())
    out = {"status": int(result.status), "optimal": result.status == 0}
    if result.x is None:
        out.update(errors=None, lower_bound=0.0, coefs=None, intercepts=None)
        return out
    x = np.round(result.x).astype(np.int64)
    out["errors"] = total + float(result.fun)
    dual = getattr(result, "mip_dual_bound", None)
    out["lower_bound"] = out["errors"] if out["optimal"] else total + float(dual)
    if widths:
        out["coefs"] = [x[W].T, x[v].reshape(-1, 1)]
        out["intercepts"] = [x[B], np.array([x[c]])]
    else:
        out["coefs"] = [x[v].reshape(-1, 1)]
        out["intercepts"] = [np.array([x[c]])]
    return out
