"""MindSpore functions for the ground-truth test (test_ground_truth.py), one positive and one
negative per trigger kind at least.

A case is (kind, expected code or None, expectation, body of ``f``, parameters, inputs A, inputs B
[, codes msport must not report]):
- "varies": under @jit on CPU the output shape differs between inputs A and B;
- "rejects": the graph compiler refuses the construct for both inputs (a data-dependent size
  it cannot build a static graph for: unrolling a data-dependent loop, data-dependent padding);
- "static": it runs and the shape is the same for both inputs (the negatives);
- "varies-inside" / "static-inside": for writes into a tensor (`y[:k] = 0`), whose output keeps
  its shape: the graph compiled for inputs A holds values of data-dependent shape, or none.
Inputs are Python expressions evaluated next to the functions (numpy as np, mindspore as ms,
Tensor). msport analyses the very same source (see SOURCE_HEADER and source()).
"""

SOURCE_HEADER = "import numpy as np\nimport mindspore as ms\nfrom mindspore import Tensor, jit, mint, ops\n\n\n"

X = "Tensor(np.arange(10, dtype=np.float32))"
M2 = "Tensor(np.ones((2, 3), np.float32))"
IDS = "Tensor(np.array([0, 1, 0, 1, 0, 1, 0, 1, 0, 1], np.int32))"
R3 = "Tensor(np.arange(3, dtype=np.float32))"
P15 = "Tensor(np.ones((1, 5), np.float32))"
V_A, V_B = "Tensor(np.array([1, 1, 2, 3], np.int32))", "Tensor(np.array([1, 1, 1, 1], np.int32))"
C_A, C_B = "Tensor(np.array([1, 1, 0], np.int32))", "Tensor(np.array([1, 1, 1], np.int32))"
SEG_A = "Tensor(np.array([0, 0, 0, 0, 0, 1, 1, 1, 1, 1], np.int32))"
SEG_B = "Tensor(np.array([0, 1, 2, 3, 4, 5, 6, 7, 8, 9], np.int32))"
# Boxes (x1, y1, x2, y2, score): A has two overlapping pairs, B none.
BOXES_A = "Tensor(np.array([[0, 0, 10, 10, 0.9], [1, 1, 11, 11, 0.8], [20, 20, 30, 30, 0.7], [0, 0, 10, 10, 0.6]], np.float32))"
BOXES_B = "Tensor(np.array([[0, 0, 10, 10, 0.9], [40, 40, 50, 50, 0.8], [20, 20, 30, 30, 0.7], [60, 60, 70, 70, 0.6]], np.float32))"


def i64(value):
    return f"Tensor({value}, ms.int64)"


def f32(value):
    return f"Tensor({value}, ms.float32)"


T3, T7 = [X, f32(3.0)], [X, f32(7.0)]

CASES = [
    # MS201: output size is a property of the data
    ("unique-with-index", "MS201", "varies", "return ops.unique(v)[0]", "v", [V_A], [V_B]),
    ("unique-with-index", "MS201", "varies", "return ops.Unique()(v)[0]", "v", [V_A], [V_B]),
    # unique's second output indexes the input: it keeps the input's shape, so gathering with it
    # is static (only the unique call itself is flagged, not the gather).
    ("unique-with-index", "MS201", "static", "values, index = ops.unique(v)\n    return ops.gather(v, index, 0)", "v", [V_A], [V_B], ("MS205",)),
    ("unique-with-index", None, "static", "return ops.one_hot(v, 4, Tensor(1.0), Tensor(0.0)).sum(0)", "v", [V_A], [V_B]),
    ("unique", "MS201", "varies", "return ops.unique_consecutive(v)", "v", [V_A], [V_B]),
    ("unique", "MS201", "varies", "return ops.unique_consecutive(v, return_counts=True)[1]", "v", [V_A], [V_B]),
    ("unique", None, "static", "return ops.one_hot(v, 4, Tensor(1.0), Tensor(0.0)).sum(0)", "v", [V_A], [V_B]),
    ("masked-select", "MS201", "varies", "return ops.masked_select(x, x > t)", "x, t", T3, T7),
    ("masked-select", "MS201", "varies", "return ops.MaskedSelect()(x, x > t)", "x, t", T3, T7),
    ("masked-select", "MS201", "varies", "return x.masked_select(x > t)", "x, t", T3, T7),
    ("masked-select", None, "static", "return ops.masked_fill(x, x <= t, 0.0)", "x, t", T3, T7),
    ("nonzero", "MS201", "varies", "return ops.nonzero(x > t)", "x, t", T3, T7),
    ("nonzero", "MS201", "varies", "return (x > t).nonzero()", "x, t", T3, T7),
    ("nonzero", "MS201", "varies", "return ops.argwhere(x > t)", "x, t", T3, T7),
    ("nonzero", None, "static", "return (x > t).astype(ms.int32)", "x, t", T3, T7),
    ("where-one-argument", "MS201", "varies", "return mint.where(x > t)[0]", "x, t", T3, T7),
    ("where-one-argument", None, "static", "return ops.where(x > t, x, ops.zeros_like(x))", "x, t", T3, T7),
    # torchvision's nms has no MindSpore name: ported with NMSWithMask, keeping only the survivors
    # is what makes the length follow the data; the flags themselves have one per box.
    ("nms", "MS201", "varies", "_, idx, keep = ops.NMSWithMask(0.5)(b)\n    return ops.masked_select(idx, keep)", "b", [BOXES_A], [BOXES_B]),
    ("nms", None, "static", "_, idx, keep = ops.NMSWithMask(0.5)(b)\n    return ops.where(keep, idx, ops.full_like(idx, -1))", "b", [BOXES_A], [BOXES_B]),
    ("bincount", "MS201", "varies", "return ops.bincount(v)", "v", ["Tensor(np.array([1, 2], np.int32))"], ["Tensor(np.array([1, 5], np.int32))"]),
    ("bincount", None, "static", "return ops.one_hot(v, 8, Tensor(1.0), Tensor(0.0)).sum(0)", "v", ["Tensor(np.array([1, 2], np.int32))"], ["Tensor(np.array([1, 5], np.int32))"]),
    ("sorted-segment", "MS201", "varies", "return ops.SegmentSum()(x, v)", "x, v", [X, SEG_A], [X, SEG_B]),
    ("sorted-segment", None, "static", "return ops.unsorted_segment_sum(x, v, 10)", "x, v", [X, SEG_A], [X, SEG_B]),
    # MS202: boolean-mask indexing
    ("mask_index", "MS202", "varies", "return x[x > t]", "x, t", T3, T7),
    ("mask_index", None, "static", "y = x.copy()\n    y[x > t] = 0.0\n    return y", "x, t", T3, T7),
    # MS203: slice bounds and lengths
    ("slice", "MS203", "varies", "return x[:k]", "x, k", [X, i64(3)], [X, i64(7)]),
    ("slice", "MS203", "varies", "return x[: int(m.sum())]", "x, m", [X, C_A], [X, C_B]),
    ("slice", None, "static", "return x[: x.shape[0] // 2]", "x, k", [X, i64(3)], [X, i64(7)]),
    # Written to: the region between a data-dependent bound and the start has the data's size.
    ("slice_store", "MS203", "varies-inside", "y = x.copy()\n    y[:k] = 0.0\n    return y", "x, k", [X, i64(3)], [X, i64(7)]),
    # Written through a dynamic index, the tensor keeps its shape: only the index's origin is reported.
    ("index", "MS201", "static", "idx = ops.nonzero(x > t).reshape(-1)\n    y = x.copy()\n    y[idx] = 0.0\n    return y", "x, t", T3, T7, ("MS205",)),
    ("slice_store", None, "static-inside", "y = x.copy()\n    y[: x.shape[0] // 2] = 0.0\n    return y", "x, k", [X, i64(3)], [X, i64(7)]),
    ("narrow", "MS203", "varies", "return ops.narrow(x, 0, 0, int(n))", "x, n", [X, i64(3)], [X, i64(6)]),
    ("narrow", None, "static", "return ops.narrow(x, 0, 0, 3)", "x, n", [X, i64(3)], [X, i64(6)]),
    ("split-sizes", "MS203", "varies", "k = int(n)\n    return ops.split(x, [k, 10 - k])[0]", "x, n", [X, i64(2)], [X, i64(5)]),
    ("split-sizes", None, "static", "return ops.split(x, 5)[0]", "x, n", [X, i64(2)], [X, i64(5)]),
    ("slice-primitive", "MS203", "varies", "return ops.Slice()(x, (0,), (int(n),))", "x, n", [X, i64(2)], [X, i64(5)]),
    ("slice-primitive", None, "static", "return ops.Slice()(x, (0,), (4,))", "x, n", [X, i64(2)], [X, i64(5)]),
    # MS204: TopK with k from data
    ("topk", "MS204", "varies", "return ops.topk(x, k)[0]", "x, k", [X, i64(3)], [X, i64(7)]),
    ("topk", "MS204", "varies", "return ops.TopK()(x, k)[0]", "x, k", [X, "Tensor(3, ms.int32)"], [X, "Tensor(7, ms.int32)"]),
    ("topk", "MS204", "varies", "return x.topk(int(k))[0]", "x, k", [X, i64(3)], [X, i64(7)]),
    ("topk", None, "static", "return ops.topk(x, 3)[0]", "x, k", [X, i64(3)], [X, i64(7)]),
    # MS205: gathers whose index length follows the data
    ("gather-dim-index", "MS205", "varies", "idx = ops.nonzero(x > t).reshape(-1)\n    return ops.index_select(x, 0, idx)", "x, t", T3, T7),
    ("gather-dim-index", "MS205", "varies", "idx = ops.nonzero(x > t).reshape(-1)\n    return ops.gather_elements(x, 0, idx)", "x, t", T3, T7),
    ("gather-dim-index", None, "static", "idx = ops.arange(3)\n    return ops.index_select(x, 0, idx)", "x, t", T3, T7),
    ("gather-index", "MS205", "varies", "idx = ops.nonzero(x > t).reshape(-1)\n    return ops.gather(x, idx, 0)", "x, t", T3, T7),
    ("gather-index", None, "static", "idx = ops.topk(x, 3)[1]\n    return ops.gather(x, idx, 0)", "x, t", T3, T7),
    ("index", "MS205", "varies", "idx = ops.nonzero(x > t).reshape(-1)\n    return x[idx]", "x, t", T3, T7),
    ("index", None, "static", "idx = ops.arange(3)\n    return x[idx]", "x, t", T3, T7),
    # MS206: segment counts from data
    ("unsorted-segment", "MS206", "varies", "return ops.unsorted_segment_sum(x, v, n)", "x, v, n", [X, IDS, "Tensor(2, ms.int32)"], [X, IDS, "Tensor(5, ms.int32)"]),
    ("unsorted-segment", "MS206", "varies", "return ops.UnsortedSegmentSum()(x, v, n)", "x, v, n", [X, IDS, "Tensor(2, ms.int32)"], [X, IDS, "Tensor(5, ms.int32)"]),
    ("unsorted-segment", None, "static", "return ops.unsorted_segment_sum(x, v, 5)", "x, v, n", [X, IDS, "Tensor(2, ms.int32)"], [X, IDS, "Tensor(5, ms.int32)"]),
    # MS207: sample counts from data
    ("multinomial", "MS207", "varies", "return ops.multinomial(p, n)", "p, n", [P15, i64(2)], [P15, i64(4)]),
    ("multinomial", None, "static", "return ops.multinomial(p, 4)", "p, n", [P15, i64(2)], [P15, i64(4)]),
    ("randperm", "MS207", "varies", "return ops.randperm(int(n))", "n", [i64(3)], [i64(6)]),
    ("randperm", None, "static", "return ops.randperm(6)", "n", [i64(3)], [i64(6)]),
    # MS208: reduction axis from data
    ("reduce-axis", "MS208", "varies", "return ops.sum(x, int(a))", "x, a", [M2, i64(0)], [M2, i64(1)]),
    ("reduce-axis", "MS208", "varies", "return ops.ReduceSum()(x, int(a))", "x, a", [M2, i64(0)], [M2, i64(1)]),
    ("reduce-axis", "MS208", "varies", "return x.sum(int(a))", "x, a", [M2, i64(0)], [M2, i64(1)]),
    ("reduce-axis", None, "static", "return ops.sum(x, 1)", "x, a", [M2, i64(0)], [M2, i64(1)]),
    # MS209: permutation from data
    ("permute", "MS209", "varies", "a = int(p)\n    return ops.transpose(x, (a, 1 - a))", "x, p", [M2, i64(0)], [M2, i64(1)]),
    ("permute", "MS209", "varies", "a = int(p)\n    return x.permute(a, 1 - a)", "x, p", [M2, i64(0)], [M2, i64(1)]),
    ("permute", None, "static", "return ops.transpose(x, (1, 0))", "x, p", [M2, i64(0)], [M2, i64(1)]),
    # MS210: sizes from data
    ("shape-size", "MS210", "varies", "return ops.zeros(int(m.sum()))", "m", [C_A], [C_B]),
    ("shape-size", None, "static", "return ops.zeros(m.shape[0])", "m", [C_A], [C_B]),
    ("creation-size", "MS210", "varies", "return mint.zeros((int(m.sum()), 2))", "m", [C_A], [C_B]),
    ("creation-size", None, "static", "return mint.zeros((m.shape[0], 2))", "m", [C_A], [C_B]),
    ("eye-size", "MS210", "varies", "return ops.eye(int(m.sum()), 2)", "m", [C_A], [C_B]),
    ("randint-size", "MS210", "varies", "return ops.randint(0, 5, (int(m.sum()),))", "m", [C_A], [C_B]),
    ("randint-size", None, "static", "return ops.randint(0, 5, (m.shape[0],))", "m", [C_A], [C_B]),
    ("eye-size", None, "static", "return ops.eye(m.shape[0], 2)", "m", [C_A], [C_B]),
    ("full-size", "MS210", "varies", "return ops.full((int(n),), 1.0)", "n", [i64(3)], [i64(5)]),
    ("full-size", None, "static", "return ops.full((4,), 1.0)", "n", [i64(3)], [i64(5)]),
    ("new-size", "MS210", "varies", "return x.new_zeros((int(n),))", "x, n", [X, i64(3)], [X, i64(5)]),
    ("new-size", None, "static", "return x.new_zeros((x.shape[0],))", "x, n", [X, i64(3)], [X, i64(5)]),
    ("fill-shape", "MS210", "varies", "return ops.fill(ms.float32, (int(n),), 1.0)", "n", [i64(3)], [i64(5)]),
    ("fill-shape", None, "static", "return ops.fill(ms.float32, (4,), 1.0)", "n", [i64(3)], [i64(5)]),
    ("range-length", "MS210", "varies", "return ops.arange(int(m.sum()))", "m", [C_A], [C_B]),
    ("range-length", None, "static", "return ops.arange(m.shape[0])", "m", [C_A], [C_B]),
    ("linspace-steps", "MS210", "varies", "return ops.linspace(Tensor(0.0), Tensor(1.0), int(n))", "n", [i64(3)], [i64(5)]),
    ("linspace-steps", None, "static", "return ops.linspace(Tensor(0.0), Tensor(1.0), 5)", "n", [i64(3)], [i64(5)]),
    ("reshape-size", "MS210", "varies", "return x.reshape(int(m.sum()), -1)", "x, m", [X, "Tensor(np.array([2, 0], np.int32))"], [X, "Tensor(np.array([5, 0], np.int32))"]),
    ("reshape-size", None, "static", "return x.reshape(x.shape[0] // 2, -1)", "x, m", [X, "Tensor(np.array([2, 0], np.int32))"], [X, "Tensor(np.array([5, 0], np.int32))"]),
    ("repeat-interleave", "MS210", "rejects", "return ops.repeat_interleave(x, r, 0)", "x, r", [R3, "Tensor(np.array([1, 1, 1], np.int32))"], [R3, "Tensor(np.array([1, 2, 3], np.int32))"]),
    ("repeat-interleave", None, "static", "return ops.repeat_interleave(x, 2, 0)", "x, r", [R3, "Tensor(np.array([1, 1, 1], np.int32))"], [R3, "Tensor(np.array([1, 2, 3], np.int32))"]),
    ("pad-size", "MS210", "rejects", "return ops.pad(x, (0, int(n)))", "x, n", [X, i64(3)], [X, i64(5)]),
    ("pad-size", None, "static", "return ops.pad(x, (0, 2))", "x, n", [X, i64(3)], [X, i64(5)]),
    # MS211: control flow
    ("branch", "MS211", "varies", "if (x > t).any():\n        y = ops.masked_select(x, x > t)\n    else:\n        y = ops.zeros_like(x)\n    return y", "x, t", [X, f32(3.0)], [X, f32(70.0)]),
    ("branch", "MS211", "varies", "if x.sum() > t:\n        y = x[:3]\n    else:\n        y = x\n    return y", "x, t", [X, f32(3.0)], [X, f32(70.0)]),
    ("branch", None, "static", "if x.sum() > t:\n        y = x * 2\n    else:\n        y = ops.zeros_like(x)\n    return y", "x, t", [X, f32(3.0)], [X, f32(70.0)]),
    ("loop", "MS211", "rejects", "y = x\n    for _ in range(int(n)):\n        y = ops.cat((y, x))\n    return y", "x, n", [X, i64(1)], [X, i64(2)]),
    ("loop", None, "static", "y = x\n    while y.sum() > n:\n        y = y * 0.5\n    return y", "x, n", [X, i64(1)], [X, i64(2)]),
]


def source():
    """The module both mindspore (under @jit) and msport read: function f<i> per case."""
    parts = [SOURCE_HEADER]
    for index, (_, _, _, body, params, *_) in enumerate(CASES):
        parts.append(f"@jit\ndef f{index}({params}):\n    {body}\n\n\n")
    return "".join(parts)
