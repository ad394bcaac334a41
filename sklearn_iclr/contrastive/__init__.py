"""Contrastive encoders: InfoNCE on two views, with magnitude pruning of neurons.

Both encoders are transformers trained on pairs of augmented views, with the
other pairs of a minibatch as negatives. ``InfoNCEEncoder`` trains an MLP with
torch (the ``[torch]`` extra, imported inside ``fit``);
``BReLUAttentionEncoder`` is the numpy attention model of the imbalanced-data
analysis, with hand-written gradients.
"""

from ._brelu_attention import BReLUAttentionEncoder
from ._infonce import InfoNCEEncoder
from ._neuron_alignment import neuron_alignment

__all__ = ["BReLUAttentionEncoder", "InfoNCEEncoder", "neuron_alignment"]
