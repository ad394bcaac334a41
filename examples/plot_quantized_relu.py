"""
======================================================
Exact training of a tiny quantized ReLU network (iris)
======================================================

:class:`~sklearn_iclr.neural_network.QuantizedReLUClassifier` trains a network
whose weights, biases and inputs are integers of ``Z_d`` to the minimum
possible number of training errors (ICLR 2026, "Tractability via Low
Dimensionality"). Here the iris petal length and width are quantised into
``Z_5 = {-2, ..., 2}`` (five equal-width bins per feature) and a network with
two hidden units separates versicolor, the middle class, from the rest: no
single neuron can, since the class is a band in the middle.

The left panel shows the 25 quantised input cells coloured by the prediction
of the exact network, with the training points (jittered inside their cell).
The right panel shows the exact minimum training error as the width grows, and
the error of the best of several straight-through-estimator runs would be at
least as large: the exact optimum is the yardstick for such heuristics.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_iris

from sklearn_iclr.neural_network import QuantizedReLUClassifier

iris = load_iris()
X = iris.data[:, 2:]  # petal length, petal width
y = (iris.target == 1).astype(int)  # versicolor vs rest

clf = QuantizedReLUClassifier(domain_size=5, hidden_layer_sizes=(2,), random_state=0)
clf.fit(X, y)
print(
    f"{clf.n_distinct_inputs_} distinct quantised inputs, "
    f"{clf.n_errors_} training errors (optimal: {clf.optimal_})"
)
print("hidden weights:\n", clf.coefs_[0], "\nhidden biases:", clf.intercepts_[0])
print("output weights:", clf.coefs_[1].ravel(), "output bias:", clf.intercepts_[1])

widths = [0, 1, 2, 3]
errors = []
for width in widths:
    layers = (width,) if width else ()
    model = QuantizedReLUClassifier(domain_size=5, hidden_layer_sizes=layers)
    errors.append(model.fit(X, y).n_errors_)
    print(f"width {width}: minimum training errors {errors[-1]}")

fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4.2))
grid = np.array([[a, b] for a in range(-2, 3) for b in range(-2, 3)])
# Cell centres in the original units (inverse of the uniform bins).
centres = clf.data_min_ + (grid + 2.5) / 5 * (clf.data_max_ - clf.data_min_)
cell_pred = clf.predict(centres)
left.scatter(
    grid[:, 0], grid[:, 1], c=cell_pred, cmap="coolwarm", marker="s", s=900, alpha=0.35
)
Z = clf._quantize(X)
jitter = np.random.default_rng(0).uniform(-0.3, 0.3, size=Z.shape)
left.scatter(*(Z + jitter).T, c=y, cmap="coolwarm", edgecolor="k", s=18)
left.set_xlabel("petal length (Z_5 level)")
left.set_ylabel("petal width (Z_5 level)")
left.set_title(f"exact width-2 network: {clf.n_errors_} training errors")

right.plot(widths, errors, "o-")
right.set_xticks(widths)
right.set_xlabel("hidden units (0 = a single neuron)")
right.set_ylabel("minimum training errors")
right.set_title("certified optimum against width")
fig.tight_layout()
plt.show()
