"""The numerical tolerances of the ICE search, defined once.

The estimator (merging nearby points), the exact search and its numpy oracle
(``_search``) and the compiled sweep (``_kernel``) read them from here, so
that the oracle and the kernel always test the same conditions.

numba compiles a module-level constant into the kernels and its on-disk cache
keeps the value it was compiled with: after editing this file, clear the
cache (the ``__pycache__`` folder next to ``_kernel.py``, or the folder
``NUMBA_CACHE_DIR`` names). ``_kernel.compiled_tolerances`` reports the
values the loaded kernels use, and a test compares them with these.
"""

import numpy as np

# Relative tolerance of affine dependence (singular values, QR diagonals,
# Gram-Schmidt residuals).
RANK_TOL = 1e-9
# Feature vectors (min-max scaled to [-1, 1]) closer than this in every
# coordinate are one location: they always share a label.
MERGE_TOL = 1e-9
# A point whose homogeneous coordinates are within this distance of the
# (d - 2)-flat of a pencil lies on every plane of the pencil.
FLAT_TOL = 1e-9
# Two points met by the rotating plane at angles closer than this, beyond the
# rounding error of the two angles, lie on the same plane.
ANGLE_TOL = 1e-9
# Multiple of the machine epsilon per homogeneous coordinate bounding the
# rounding error of an angle (before division by its point's distance from
# the pencil's flat and multiplication by the pencil's condition number).
ROUNDING = 16 * np.finfo(float).eps

# Pruning only (``_kernel._lines``, ``_pencil_bound``, ``_on_line_below``):
# each test errs on the side that skips less, so none changes the result.
# Points of one line through a prefix's flat are merged only when their unit
# directions (or, for skipping a pencil, the sine between them) agree this
# closely ...
LINE_TOL = 1e-12
# ... and two lines count as coplanar with a pencil's axis when their angles
# about it differ by less than this plus both angles' rounding bounds (a loose
# test, 10x ``ANGLE_TOL``: a wrong merge only weakens the bound).
PLANE_TOL = 1e-8
# Points within this distance of a prefix's flat (the prefix's own points)
# are left out of its lines.
PREFIX_FLAT_TOL = 1e-6
