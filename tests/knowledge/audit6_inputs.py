"""Inputs shared by both sides of tests/knowledge/test_audit6.py (seeded)."""

import numpy as np

_RNG = np.random.RandomState(2512)
GRID = _RNG.randn(4, 5, 3).astype(np.float32)
GRID[1, 2, 0] = 7.5  # a clear maximum, so ties cannot hide a difference
# (dim, keepdim) forms of aminmax run on both packages; None: PyTorch's default, over all elements
AMINMAX_FORMS = ((1, False), (-1, True), (0, False), (2, True))
ROWS = 6
ORDER = (4, 0, 5, 2)  # the indices a Python sampler yields
