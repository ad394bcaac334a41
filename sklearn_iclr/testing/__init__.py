"""Property-testing tools for sklearn_iclr estimators and pipelines built on them.

``sklearn_iclr.testing.strategies`` holds hypothesis strategies that draw valid
inputs for each estimator; ``sklearn_iclr.testing.invariants`` holds reusable
checks of invariants (row order, determinism, label relabelling). Both are public
so users can property-test their own pipelines. This package imports hypothesis.
"""

from . import invariants, strategies

__all__ = ["invariants", "strategies"]
