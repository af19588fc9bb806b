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
# A 2-D COO matrix (PyTorch's [2, N] indices) and the dense matrix it multiplies.
SPARSE_INDICES = np.array([[0, 1, 2, 2], [1, 0, 2, 3]], np.int64)
SPARSE_VALUES = _RNG.randn(4).astype(np.float32)
SPARSE_SHAPE = (3, 4)
DENSE = _RNG.randn(4, 2).astype(np.float32)
