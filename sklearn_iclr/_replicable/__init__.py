"""Replicable rounding, shared by the replicable ridge and covariance (private).

The paper's rounding (Eaton et al., ICLR 2026) serves two families, as
scikit-learn's ``_loss`` does: :class:`~sklearn_iclr.ReplicableLinearRegressor`
in ``linear_model`` and :class:`~sklearn_iclr.ReplicableCovariance` in
``covariance``. Each estimator keeps its own calibration constants next to it.

* ``_lattice``: randomly shifted lattices (``Z^m``, ``E8`` products, ``A_r*``)
  and their closest-point rounding;
* ``_rounding``: grid offsets from the shared randomness, rounded widths and
  the failure-budget rules;
* ``_blockwise``: the rules' data-driven quantities from blockwise Dask sums.
"""
