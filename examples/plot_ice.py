"""
===========================================================
Exact 0-1 loss boundary vs logistic regression (Voice path)
===========================================================

:class:`~sklearn_iclr.linear_model.ICEClassifier` finds the line with the
fewest possible training errors (He & Little, ICLR 2026). Logistic regression
minimises a convex surrogate instead, and on the Voice path data (707 rows,
2 features) it pays for it with extra misclassified points. The right panel
shows a degree-2 boundary on a small synthetic ring, where no line can do
well: the same exact search runs on the monomials (x1, x2, x1^2, x1 x2,
x2^2).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from sklearn_iclr.datasets import load_voicepath
from sklearn_iclr.linear_model import ICEClassifier

X, y = load_voicepath(return_X_y=True)
ice = ICEClassifier().fit(X, y)
logistic = make_pipeline(StandardScaler(), LogisticRegression()).fit(X, y)
lr_errors = int(np.sum(logistic.predict(X) != y))
print(f"ICE: {ice.n_errors_:.0f} training errors (optimal: {ice.optimal_})")
print(f"Logistic regression: {lr_errors} training errors")

# %%
# Left: the two boundaries on Voice path; crosses mark the points ICE gets
# wrong. Right: a ring, where degree 2 makes the boundary a conic.
fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
xx, yy = np.meshgrid(
    np.linspace(X[:, 0].min(), X[:, 0].max(), 300),
    np.linspace(X[:, 1].min(), X[:, 1].max(), 300),
)
grid = np.column_stack([xx.ravel(), yy.ravel()])
for model, color, label in [
    (ice, "k", f"ICE (exact), {ice.n_errors_:.0f} errors"),
    (logistic, "tab:red", f"logistic regression, {lr_errors} errors"),
]:
    zz = model.decision_function(grid).reshape(xx.shape)
    left.contour(xx, yy, zz, levels=[0], colors=color)
    left.plot([], [], color=color, label=label)
left.scatter(*X[y > 0].T, s=6, c="tab:blue", alpha=0.5, label="class +1")
left.scatter(*X[y < 0].T, s=12, c="tab:orange", label="class -1")
wrong = ice.predict(X) != y
left.scatter(*X[wrong].T, s=40, marker="x", c="k", label="ICE errors")
left.set(title="Voice path: exact vs surrogate", xlabel="feature 1", ylabel="feature 2")
left.legend(loc="upper right", fontsize=8)

# Right: on a ring, degree 2 makes the boundary a conic, still solved exactly.
rng = np.random.default_rng(0)
ring = rng.uniform(-1, 1, size=(40, 2))
inside = np.sum(ring**2, axis=1) + 0.15 * rng.standard_normal(40) < 0.45
conic = ICEClassifier(degree=2).fit(ring, inside)
line = ICEClassifier().fit(ring, inside)
uu, vv = np.meshgrid(np.linspace(-1, 1, 300), np.linspace(-1, 1, 300))
square = np.column_stack([uu.ravel(), vv.ravel()])
right.contour(uu, vv, conic.decision_function(square).reshape(uu.shape), [0])
right.contour(
    uu,
    vv,
    line.decision_function(square).reshape(uu.shape),
    [0],
    colors="grey",
    linestyles="dashed",
)
right.scatter(*ring[inside].T, c="tab:blue", label="inside")
right.scatter(*ring[~inside].T, c="tab:orange", label="outside")
right.set(
    title=f"degree 2: {conic.n_errors_:.0f} errors (line: {line.n_errors_:.0f})",
    xlabel="x1",
    ylabel="x2",
)
right.legend(loc="lower right", fontsize=8)
fig.tight_layout()
plt.show()
