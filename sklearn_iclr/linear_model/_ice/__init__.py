"""ICE: the exact minimum 0-1 loss linear classifier (private subpackage).

He & Little, *An efficient, provably optimal algorithm for the 0-1 loss linear
classification problem*, ICLR 2026 (arXiv:2306.12344).

* ``_classifier``: :class:`ICEClassifier`, the estimator (validation, merging
  of nearby points, budgets, the heuristic, the final separator);
* ``_search``: the exact search over pencils of hyperplanes, its numpy oracle
  and the chunking of the pencils;
* ``_kernel``: the numba sweep of one chunk of pencils;
* ``_tolerances``: the numerical tolerances the three share.
"""

from ._classifier import ICEClassifier

__all__ = ["ICEClassifier"]
