"""Inputs shared by both sides of tests/knowledge/test_audit7.py (seeded)."""

import numpy as np

_RNG = np.random.RandomState(2612)
ROWS = _RNG.randn(5, 3).astype(np.float32)  # a dataset of 5 rows: batches of 2 leave a short last one
BATCH = 2
MATRIX = _RNG.randn(4, 5).astype(np.float32)
CUBE = _RNG.randn(2, 3, 4).astype(np.float32)
#: Tensor.norm calls along one dim, as PyTorch writes them (p positional or p=, which MindSpore names ord).
NORM_CALLS = ("2, dim=-1", "dim=1", "1, dim=1", "2, 1", "2, dim=1, keepdim=True", "float('inf'), dim=0", "0, dim=1",
              "3, dim=1", "p=0.5, dim=0")
IMAGE = _RNG.randn(1, 2, 5, 5).astype(np.float32)
GRID = _RNG.uniform(-1, 1, (1, 3, 3, 2)).astype(np.float32)
GRID_FORMS = (("bilinear", False), ("bilinear", True), ("nearest", False), ("nearest", True))
#: The legacy tensor-type classes and the MindSpore dtype their notes cast to.
TYPE_CLASSES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16", "LongTensor": "int64",
                "IntTensor": "int32", "BoolTensor": "bool_", "ByteTensor": "uint8"}
SCALE = 0.3
