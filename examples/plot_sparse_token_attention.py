"""
===================================================
Which digit did the attention look at? Digit bags
===================================================

:class:`~sklearn_iclr.attention.SparseTokenAttentionClassifier` is the
single-layer attention classifier analysed by Barnfield, Cui and Lu (ICLR 2026):
``f(X) = w . X^T softmax(beta X q) + b``. When a label depends on a few tokens
of a bag, attention can single them out, where a linear classifier of the
averaged (or concatenated) tokens sees the evidence diluted.

Here a bag is eight handwritten digits (scikit-learn's 8x8 digits, one image a
token), positive when it holds a 0
(:func:`~sklearn_iclr.datasets.load_digit_bags`). Train and test bags come from
disjoint images. The classifier is compared with logistic regression on the
mean image and on the concatenated images; then, for a few test bags, the
attention weights are drawn over the images: the weight lands on the 0.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from sklearn_iclr.attention import (
    SparseTokenAttentionClassifier,
    flatten_tokens,
    mean_pool_tokens,
)
from sklearn_iclr.datasets import load_digit_bags

X_train, y_train = load_digit_bags(
    0, n_bags=600, subset="train", return_X_y=True, random_state=0
)
test = load_digit_bags(0, n_bags=600, subset="test", random_state=1)
X_test, y_test, mask = test.data, test.target, test.target_mask

# %%
# Attention against the linear baselines
# --------------------------------------
models = {
    "attention": SparseTokenAttentionClassifier(beta=3.0, random_state=0),
    # The linear anchors: logistic regression on the mean token of each bag,
    # and on all tokens side by side.
    "mean-pooled LR": make_pipeline(
        FunctionTransformer(mean_pool_tokens), LogisticRegression(max_iter=1000)
    ),
    "flattened LR": make_pipeline(
        FunctionTransformer(flatten_tokens), LogisticRegression(max_iter=1000)
    ),
}
for name, model in models.items():
    model.fit(X_train, y_train)
    print(f"{name:>15}: test accuracy {model.score(X_test, y_test):.3f}")

clf = models["attention"]
weights = clf.attention_weights(X_test)
positive = y_test == 1
top = weights[positive].argmax(axis=1)
hit_rate = mask[positive][np.arange(len(top)), top].mean()
print(f"the most attended image of a positive bag is the 0 in {hit_rate:.1%} of bags")

# %%
# The attention weights over the images of six test bags
# -------------------------------------------------------
# Each row is a bag; the title of an image is its attention weight and a red
# frame marks the 0. Negative bags (no 0) spread their weight more evenly.
bags = np.concatenate([np.flatnonzero(positive)[:4], np.flatnonzero(~positive)[:2]])
fig, axes = plt.subplots(len(bags), 9, figsize=(10, 7.5),
                         gridspec_kw={"width_ratios": [1] * 8 + [1.6]})  # fmt: skip
for row, bag in enumerate(bags):
    for col in range(8):
        ax = axes[row, col]
        ax.imshow(X_test[bag, col].reshape(8, 8), cmap="gray_r")
        ax.set_title(f"{weights[bag, col]:.2f}", fontsize=8)
        ax.set_xticks([])
        ax.set_yticks([])
        if mask[bag, col]:
            for spine in ax.spines.values():
                spine.set_color("red")
                spine.set_linewidth(2)
    ax = axes[row, 8]
    ax.imshow(weights[bag][None, :], cmap="viridis", vmin=0, vmax=1, aspect="auto")
    ax.set_xticks([])
    ax.set_yticks([])
    proba = clf.predict_proba(X_test[bag : bag + 1])[0, 1]
    ax.set_title(f"P(0 in bag)={proba:.2f}", fontsize=8)
fig.suptitle("Attention weights on digit bags (red frame: the target digit 0)")
fig.tight_layout()
plt.show()
