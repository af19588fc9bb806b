"""Inputs shared by both sides of tests/knowledge/test_other_names.py (seeded)."""

import numpy as np

_RNG = np.random.RandomState(2512)
DTYPES = ("float16", "float32", "float64", "int8", "int64", "bool")
REAL = _RNG.randn(2, 3, 4).astype(np.float32)
PAIR = _RNG.randn(3, 4, 2).astype(np.float32)
FLAT = _RNG.randn(2, 12, 5).astype(np.float32)
_A = _RNG.randn(4, 4).astype(np.float32)
SYMMETRIC = (_A @ _A.T + np.tril(_A)).astype(np.float32)  # lower and upper triangles differ
TABLE = _RNG.randn(10, 3).astype(np.float32)
BAGS = _RNG.randint(0, 10, (4, 5)).astype(np.int64)
