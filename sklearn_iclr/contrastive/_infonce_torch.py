"""The torch and skorch classes behind :class:`InfoNCEEncoder`.

This module imports torch and skorch at its top, so only
:meth:`InfoNCEEncoder.fit <sklearn_iclr.contrastive.InfoNCEEncoder.fit>`
imports it, after :func:`~sklearn_iclr.utils.import_torch` has checked that
the optional ``[torch]`` extra is installed; ``import sklearn_iclr`` never
loads it. Only the trained ``torch.nn.Sequential`` is kept after ``fit``, so
none of these classes is pickled with a fitted encoder.
"""

import math

import torch
from skorch import NeuralNet
from skorch.dataset import unpack_data
from skorch.utils import to_tensor

from ..utils._compat import set_training_mode


class InfoNCELoss(torch.nn.Module):
    """Symmetric InfoNCE between two batches of paired views."""

    def __init__(self, temperature=0.1):
        super().__init__()
        self.temperature = temperature

    def forward(self, views, target=None):
        z1, z2 = (torch.nn.functional.normalize(z, dim=1) for z in views)
        logits = z1 @ z2.T / self.temperature
        labels = torch.arange(len(z1), device=z1.device)
        cross_entropy = torch.nn.functional.cross_entropy
        return 0.5 * (cross_entropy(logits, labels) + cross_entropy(logits.T, labels))


class MagnitudePrunedMLP(torch.nn.Module):
    """An MLP whose smallest hidden neurons are masked in the forward pass.

    In every forward pass the ``prune_ratio`` fraction of the neurons of
    each hidden layer with the smallest incoming weight norm output zero.
    The mask is a straight-through one: gradients flow to every neuron as
    if none were masked, so all weights keep being updated and the set of
    pruned neurons is recomputed from the current magnitudes.
    """

    def __init__(self, mlp, prune_ratio=0.0):
        super().__init__()
        self.mlp = mlp
        self.prune_ratio = prune_ratio

    def neuron_masks(self):
        """Boolean keep-masks of the hidden layers, from the weight norms."""
        hidden = [layer for layer in self.mlp if isinstance(layer, torch.nn.Linear)]
        masks = []
        with torch.no_grad():
            for layer in hidden[:-1]:
                norms = layer.weight.norm(dim=1)
                keep = torch.ones_like(norms, dtype=torch.bool)
                n_pruned = math.floor(self.prune_ratio * len(norms))
                keep[torch.argsort(norms)[:n_pruned]] = False
                masks.append(keep)
        return masks

    def forward(self, x):
        masks = iter(self.neuron_masks() if self.prune_ratio > 0 else [])
        for layer in self.mlp:
            x = layer(x)
            if self.prune_ratio > 0 and isinstance(layer, torch.nn.ReLU):
                keep = next(masks).to(x.dtype)
                x = x + ((keep - 1.0) * x).detach()
        return x

    def pruned_mlp(self):
        """The MLP with the pruned neurons' weights and biases set to zero."""
        masks = self.neuron_masks()
        hidden = [layer for layer in self.mlp if isinstance(layer, torch.nn.Linear)]
        with torch.no_grad():
            for layer, keep in zip(hidden[:-1], masks, strict=True):
                layer.weight[~keep] = 0.0
                layer.bias[~keep] = 0.0
        return self.mlp, [keep.cpu().numpy() for keep in masks]


class Augmentation:
    """Random view of a batch: masked features and/or additive noise."""

    def __init__(self, names, noise_std, fill, mask_rate):
        self.names = names
        self.noise_std = noise_std
        self.fill = fill
        self.mask_rate = mask_rate

    def __call__(self, X):
        if "mask" in self.names:
            masked = torch.rand_like(X) < self.mask_rate
            X = torch.where(masked, self.fill, X)
        if "noise" in self.names:
            X = X + self.noise_std * torch.randn_like(X)
        return X


class InfoNCENet(NeuralNet):
    """skorch net whose training step compares two augmented views."""

    def __init__(self, *args, augment=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.augment = augment

    def train_step_single(self, batch, **fit_params):
        set_training_mode(self, True)
        Xi, yi = unpack_data(batch)
        Xi = to_tensor(Xi, device=self.device)
        views = (
            self.infer(self.augment(Xi), **fit_params),
            self.infer(self.augment(Xi), **fit_params),
        )
        loss = self.get_loss(views, yi, X=Xi, training=True)
        loss.backward()
        return {"loss": loss, "y_pred": views[0]}
