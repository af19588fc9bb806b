"""The inputs both frameworks receive in the divergence tests (NumPy, fixed seeds)."""

import numpy as np

_rng = np.random.default_rng(7)
INPUTS = {
    "wide": np.linspace(-4, 4, 81, dtype=np.float32),
    "sample": _rng.standard_normal((10, 10)).astype(np.float32),
    # Rows of low variance: where the epsilon under the square root matters.
    "flat_rows": (1.0 + 1e-3 * _rng.standard_normal((4, 8))).astype(np.float32),
    "cube": np.arange(24, dtype=np.float32).reshape(2, 3, 4),
    "repeats": np.array([3, 1, 2, 1, 3], dtype=np.int32),
    "with_nan": np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], dtype=np.float32),
    "ones": np.ones((100, 100), dtype=np.float32),
    "image": _rng.standard_normal((1, 3, 8, 8)).astype(np.float32),
    "axis3": np.arange(3, dtype=np.float32),
    "axis5": np.arange(5, dtype=np.float32),
    "matrix": _rng.standard_normal((4, 3)).astype(np.float32),
    # A general (non-symmetric) matrix with three real eigenvalues.
    "square": _rng.random((3, 3)).astype(np.float32),
    "scores": _rng.standard_normal((4, 6)).astype(np.float32),
    "signs": _rng.choice(np.array([-1.0, 1.0], dtype=np.float32), (4, 6)),
    # Groups of low variance, where a different epsilon would show.
    "flat_image": (1.0 + 1e-3 * _rng.standard_normal((1, 3, 8, 8))).astype(np.float32),
}
