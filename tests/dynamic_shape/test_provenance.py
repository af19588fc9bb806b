"""Value provenance: constant, shape-derived or data-derived, through the ways code moves values."""

import pytest

from msport.analysis import Analyzer, Settings
from msport.analysis.provenance import Kind, ProvenanceVisitor

PRELUDE = (
    "import math\nimport numpy as np\nimport torch\nimport torch.nn as nn\n"
    "import mindspore as ms\nfrom mindspore import ops\nimport mindspore.ops as P\n"
    "def count(m):\n    return int(m.sum())\n"
    "def half(x):\n    return x.shape[0] // 2\n"
    "def pick(x, m):\n    return x[m > 0]\n"
    "def both(x, m):\n    return x.shape[0], m.sum().item()\n"
)


class _Capture(ProvenanceVisitor):
    def __init__(self, context, knowledge):
        super().__init__(context, knowledge)
        self.seen = {}

    def leave_function(self, node):
        if getattr(node, "name", "") == "forward":
            self.seen = {name: binding[0] for name, binding in self.env().items()}
        super().leave_function(node)


def provenance(body):
    """The provenance of every local of Net.forward(self, x, mask) whose body is *body*."""
    text = PRELUDE + "class Net(nn.Module):\n    def __init__(self, k=4):\n        super().__init__()\n        self.k = k\n" \
        "    def forward(self, x, mask):\n" + "".join(f"        {line}\n" for line in body.split("\n"))
    result = Analyzer().analyze(text, Settings())
    from msport.knowledge import default_knowledge

    capture = _Capture(result.context, default_knowledge())
    for chunk in result.chunks:
        capture.visit(chunk.tree)
    return capture.seen


@pytest.mark.parametrize(
    "body, name, kind",
    [
        ("a = 3", "a", Kind.CONST),
        ("a = self.k * 2", "a", Kind.CONST),  # constructor arguments kept on self
        ("a = x.shape[0] // 2", "a", Kind.SHAPE),
        ("a = len(x)", "a", Kind.SHAPE),
        ("a = x.size(1) - 1", "a", Kind.SHAPE),
        ("a = x.numel()", "a", Kind.SHAPE),
        ("a = ops.shape(x)[0]", "a", Kind.SHAPE),
        ("a = P.Shape()(x)[0]", "a", Kind.SHAPE),
        ("a, b = x.shape[:2]", "b", Kind.SHAPE),
        ("a = int(mask.sum())", "a", Kind.DATA),
        ("a = mask.sum().item()", "a", Kind.DATA),
        ("a = x.tolist()", "a", Kind.DATA),
        ("a = x.max()", "a", Kind.DATA),
        ("a, b = x.sum(0).tolist()[:2]", "b", Kind.DATA),
        ("n = int(mask.sum())\na = n * 2 + 1", "a", Kind.DATA),
        ("n = int(mask.sum())\na = math.ceil(n / 4)", "a", Kind.DATA),
        ("a = torch.masked_select(x, mask).shape[0]", "a", Kind.DATA),  # the shape of a dynamic tensor
        ("a = count(mask)", "a", Kind.DATA),  # through a helper of the same file
        ("a = half(x)", "a", Kind.SHAPE),
        ("a = half(pick(x, mask))", "a", Kind.DATA),  # a helper's shape of a dynamic argument
        ("a, b = both(x, mask)", "a", Kind.SHAPE),  # tuple results keep their elements apart
        ("a, b = both(x, mask)", "b", Kind.DATA),
        ("a = 2\nif x.shape[0] > 3:\n    a = int(mask.sum())", "a", Kind.DATA),  # branches join
        ("a = 0\nfor v in mask.tolist():\n    a += v", "a", Kind.DATA),
        ("a = 0\nfor i in range(x.shape[0]):\n    a = i", "a", Kind.SHAPE),
    ],
)
def test_kinds(body, name, kind):
    assert provenance(body)[name].kind == kind


@pytest.mark.parametrize(
    "body, name, dynamic",
    [
        ("a = torch.nonzero(mask)", "a", True),
        ("a = torch.nonzero(mask).float() * 2", "a", True),  # shapes follow through tensor ops
        ("a = torch.nonzero(mask).sum()", "a", False),  # a full reduction is one value
        ("a = x[mask > 0]", "a", True),
        ("a = x[: int(mask.sum())]", "a", True),
        ("a = x[: x.shape[0] // 2]", "a", False),
        ("a = pick(x, mask)", "a", True),
        ("a, b = ops.unique(x)", "a", True),
        ("a, b = ops.unique(x)", "b", False),  # unique's index has the input's shape
        ("a, b = torch.unique(x, return_inverse=True)", "b", False),
        ("a, b = torch.unique(x, return_counts=True)", "b", True),
        ("a = torch.topk(x, 3).indices", "a", False),
    ],
)
def test_data_dependent_shapes(body, name, dynamic):
    assert provenance(body)[name].dynamic is dynamic


def test_masks_are_recognised():
    seen = provenance("a = x > 0\nb = torch.isnan(x)\nc = (x > 0) & ~b\nd = x.bool()\ne = x.to(torch.bool)\nf = x.float()\ng = (x > 0).squeeze(0)")
    assert [seen[n].mask for n in "abcdefg"] == [True, True, True, True, True, False, True]
    assert provenance("a = mask")["a"].mask  # an input named like a mask


def test_any_and_all_along_an_axis_are_masks_and_without_one_a_value():
    seen = provenance("a = x.any(dim=1)\nb = torch.all(x, 1)\nc = x.any()\nd = torch.all(x)\ne = x.sum(dim=1)")
    assert [seen[n].mask for n in "abcde"] == [True, True, False, False, False]


def test_one_index_tensor_of_nonzero_as_tuple_keeps_the_datas_length():
    seen = provenance("a = torch.nonzero(x > 0, as_tuple=True)[0]\nb = torch.nonzero(x > 0)[0]\nc = torch.where(x > 0)[0]")
    assert [seen[n].dynamic for n in "abc"] == [True, False, True]


def test_numpy_values_are_not_tensors():
    seen = provenance("a = x.numpy()\nb = a > 0\nc = np.nonzero(a)")
    assert seen["a"].tensor is None and not seen["b"].mask and seen["c"].kind == Kind.DATA


def test_a_row_of_a_transposed_data_length_table_keeps_the_length():
    # torch_geometric's dense_to_sparse: edge_index = adj.nonzero().t(); edge_index[0] holds one
    # row index per non-zero element. A row of the table itself (nonzero(m)[0]) is two numbers.
    seen = provenance(
        "e = (x > 0).nonzero().t()\na = e[0]\nb = (x > 0).nonzero()[0]\nc = (x > 0).nonzero().T[1]\n"
        "d = (x > 0).nonzero().t().contiguous()[0]\nf = (x > 0).nonzero().t().t()[0]\ng = x.t()[0]")
    assert [seen[n].dynamic for n in "abcdfg"] == [True, False, True, True, False, False]


def test_randint_size_from_data_is_reported_and_its_bound_is_not():
    # pytorch_metric_learning's triplet sampling: as many random picks as anchors found in the
    # data; a data-derived upper bound keeps the output's shape.
    text = (
        "import torch\nfrom torch import nn\n"
        "class Miner(nn.Module):\n"
        "    def forward(self, labels, x):\n"
        "        anchors = torch.where(labels == 1)[0]\n"
        "        n = len(anchors)\n"
        "        picks = torch.randint(0, 5, (n,))\n"  # 7
        "        bound = torch.randint(int(x.max()) + 1, (4,))\n"  # 8
        "        return picks, bound\n")
    result = Analyzer().analyze(text, Settings())
    lines = {f.span.start_line + 1 for f in result.findings if f.code == "MS210"}
    assert 7 in lines and 8 not in lines, lines


def test_an_optional_mask_reset_to_none_on_one_branch_stays_a_mask():
    # torch_geometric's dense_to_sparse drops the mask for 2-D inputs (`mask = None`), then reads
    # with it under `if mask is not None`. A name that is None on one side and an index on the
    # other (idx) is no mask; neither is one reset to a non-mask tensor (keep).
    text = (
        "import torch\nfrom typing import Optional\nfrom torch import Tensor\n\n\n"
        "def pick(adj: Tensor, mask: Optional[Tensor] = None, idx: Optional[Tensor] = None, keep=None):\n"
        "    if mask is not None and adj.dim() == 2:\n"
        "        mask = None\n"
        "    if idx is not None and adj.dim() == 2:\n"
        "        idx = None\n"
        "    if keep is None:\n"
        "        keep = adj.argmax(-1)\n"
        "    flat = adj.view(-1, adj.size(-1))\n"
        "    if mask is not None:\n"
        "        flat = flat[mask.view(-1)]\n"  # 15
        "    if idx is not None:\n"
        "        flat = flat[idx]\n"  # 17
        "    return flat[keep]\n")  # 18
    result = Analyzer().analyze(text, Settings())
    lines = sorted((f.span.start_line + 1, f.code) for f in result.findings if f.code.startswith("MS2"))
    assert lines == [(15, "MS202")], lines


def test_tuples_picked_by_a_condition_keep_what_their_elements_are():
    # torch_geometric's knn_graph: `row, col = (col, row) if flow == ... else (row, col)` swaps two
    # index tensors; both stay tensors, so `row != col` is a mask. Swapped shape numbers stay shapes.
    seen = provenance(
        "r, c = x.argmax(0), x.argmin(0)\nr, c = (c, r) if self.k else (r, c)\nm = r != c\n"
        "h, w = x.shape[:2]\nh2, w2 = (w, h) if self.k else (h, w)\n"
        "k, j = (mask, x) if self.k else (None, x)\nk2, j2 = (mask, mask > 0) if self.k else (x, mask)")
    assert seen["r"].tensor and seen["c"].tensor and seen["m"].mask
    assert seen["h2"].kind == Kind.SHAPE and seen["h2"].tensor is None
    assert seen["k"].mask and not seen["j"].mask and not seen["k2"].mask
