"""The torch and skorch classes behind :class:`SpuriousRobustSGD`.

This module imports torch and skorch at its top, so only
:meth:`SpuriousRobustSGD.fit <sklearn_iclr.linear_model.SpuriousRobustSGD.fit>`
imports it, after :func:`~sklearn_iclr.utils.import_torch` has checked that
the optional ``[torch]`` extra is installed; ``import sklearn_iclr`` never
loads it. The net adds to ``skorch.NeuralNet`` the explicit batch-gradient
penalty and per-epoch group monitoring; the criterion is the weighted margin
loss. Only the trained module is kept after ``fit``, so neither class is
pickled with a fitted classifier.
"""

import numpy as np
import torch
from skorch import NeuralNet
from skorch.dataset import unpack_data

from ..utils import module_outputs
from ..utils._compat import set_training_mode
from ._spurious_sgd import _predict_index


def per_sample_loss(logits, target, loss):
    """Logistic or exponential loss of each row (``target`` holds class indices).

    One logit (binary): the margin is ``m = f * (2 t - 1)`` and the losses are
    ``log(1 + exp(-m))`` and ``exp(-m)``. Several logits: cross-entropy, and
    the multiclass exponential loss ``sum_{k != t} exp(f_k - f_t)``, which is
    ``exp(cross-entropy) - 1`` and reduces to ``exp(-m)`` for two classes.
    """
    if logits.shape[1] == 1:
        margin = logits[:, 0] * (2.0 * target - 1.0)
        if loss == "logistic":
            return torch.nn.functional.softplus(-margin)
        return torch.exp(-margin)
    cross_entropy = torch.nn.functional.cross_entropy(
        logits, target.long(), reduction="none"
    )
    if loss == "logistic":
        return cross_entropy
    return torch.expm1(cross_entropy)


class WeightedMarginLoss(torch.nn.Module):
    """Mean of ``weight * loss`` over a batch; targets are (index, weight)."""

    def __init__(self, loss="logistic"):
        super().__init__()
        self.loss = loss

    def forward(self, logits, target):
        per_sample = per_sample_loss(logits, target[:, 0], self.loss)
        return (target[:, 1] * per_sample).mean()


class SpuriousRobustNet(NeuralNet):
    """skorch net with the batch-gradient penalty and group monitoring."""

    def __init__(
        self,
        *args,
        batch_grad_penalty=0.0,
        penalty_batch_size=None,
        monitor=(),
        divergence_advice="",
        **kwargs,
    ):
        super().__init__(*args, **kwargs)
        self.divergence_advice = divergence_advice
        self.batch_grad_penalty = batch_grad_penalty
        self.penalty_batch_size = penalty_batch_size
        self.monitor = dict(monitor)
        self.best_epoch = None
        self.best_state = None

    def gradient_penalty(self, y_pred, y_true):
        """Mean of ``||grad L_k||^2`` over consecutive micro-batches ``k``."""
        params = [p for p in self.module_.parameters() if p.requires_grad]
        size = self.penalty_batch_size or len(y_true)
        pairs = zip(torch.split(y_pred, size), torch.split(y_true, size), strict=True)
        chunks = list(pairs)
        total = 0.0
        for pred_k, true_k in chunks:
            loss_k = self.get_loss(pred_k, true_k, training=True)
            grads = torch.autograd.grad(loss_k, params, create_graph=True)
            total = total + sum(g.pow(2).sum() for g in grads)
        return total / len(chunks)

    def train_step_single(self, batch, **fit_params):
        set_training_mode(self, True)
        Xi, yi = unpack_data(batch)
        y_pred = self.infer(Xi, **fit_params)
        loss = self.get_loss(y_pred, yi, X=Xi, training=True)
        objective = loss
        if self.batch_grad_penalty > 0:
            penalty = self.gradient_penalty(y_pred, yi)
            objective = loss + self.batch_grad_penalty / 4.0 * penalty
        objective.backward()
        return {"loss": loss, "y_pred": y_pred}

    def on_epoch_end(self, net, **kwargs):
        loss = self.history[-1, "batches", -1, "train_loss"]
        finite = np.isfinite(loss) and all(
            bool(torch.isfinite(p).all()) for p in self.module_.parameters()
        )
        if not finite:
            raise ValueError(
                f"SGD diverged in epoch {len(self.history)}: the training loss "
                f"is {loss} and the weights are no longer finite. "
                + self.divergence_advice
            )
        for prefix, (X, y_index, groups) in self.monitor.items():
            correct = _predict_index(module_outputs(self.module_, X)) == y_index
            accuracies = {
                g.item(): float(correct[groups == g].mean()) for g in np.unique(groups)
            }
            self.history.record(f"{prefix}group_accuracy", accuracies)
            self.history.record(
                f"{prefix}worst_group_accuracy", min(accuracies.values())
            )
        if "valid_" in self.monitor:
            score = self.history[-1, "valid_worst_group_accuracy"]
            if (
                self.best_epoch is None
                or score
                > self.history[self.best_epoch - 1, "valid_worst_group_accuracy"]
            ):
                self.best_epoch = len(self.history)
                self.best_state = {
                    k: v.detach().to("cpu", copy=True)
                    for k, v in self.module_.state_dict().items()
                }
