"""The inputs both frameworks receive in test_audit_facts3.py (NumPy, one seed): the torch side
and the MindSpore child process (ms_audit_facts3.py) import them from here."""

import numpy as np

rng = np.random.default_rng(2411)
MATRIX = rng.standard_normal((3, 4)).astype(np.float32)
OTHER = rng.standard_normal((3, 4)).astype(np.float32)
SQUARE = rng.standard_normal((3, 3)).astype(np.float32) + 3 * np.eye(3, dtype=np.float32)
RHS = rng.standard_normal((3, 2)).astype(np.float32)
CROSS_A = rng.standard_normal((3, 3)).astype(np.float32)
CROSS_B = rng.standard_normal((3, 3)).astype(np.float32)
QUERY = rng.standard_normal((2, 4, 8)).astype(np.float32)
IMAGE = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
GRID = [np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32)]
WITH_NAN = MATRIX.copy()
WITH_NAN[1, 2] = np.nan
KERNEL = np.random.default_rng(2411).standard_normal((2, 1, 3, 3)).astype(np.float32)
POOL_INPUT = np.random.default_rng(2411).standard_normal((1, 2, 9, 9)).astype(np.float32)
SIGNAL = np.random.default_rng(2411).standard_normal((1, 2, 16)).astype(np.float32)
