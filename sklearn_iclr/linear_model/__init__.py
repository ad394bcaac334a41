"""Linear models: exact 0-1 loss, replicable ridge and spurious-robust SGD.

``SpuriousRobustSGD`` lives here because its theory and default are a linear
classifier (``hidden_layer_sizes=()``); it trains with torch (the ``[torch]``
extra, imported inside ``fit``) and can also train an MLP on the same loss.
"""

from ._ice import ICEClassifier
from ._replicable_ridge import ReplicableLinearRegressor
from ._spurious_sgd import SpuriousRobustSGD

__all__ = ["ICEClassifier", "ReplicableLinearRegressor", "SpuriousRobustSGD"]
