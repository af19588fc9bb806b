"""What a caller passes types a helper's inputs, in the same class, in the same module and in
another module: a mask made in forward (`hard = dist > margin`) and handed on is a mask in the
helper, so `dist[hard]` there is MS202; indices of a static length (topk with a constant k)
handed on stay silent. Patterns reduced from the dev projects' pair miners (a `set_stats` method
given the miner's threshold mask, a selection helper in a utilities module)."""

import json
import re
import subprocess
import sys

import pytest

#: `# MS2xx` marks every line that must be reported; nothing else may be.
PROJECT = {
    "met/__init__.py": "",
    "met/select.py": (
        "def hard_pairs(dist, hard):\n"
        "    return dist[hard]  # MS202\n"
        "\n"
        "\n"
        "def nearest(dist, idx):\n"
        "    return dist[idx]\n"
    ),
    "met/miner.py": (
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "from .select import hard_pairs, nearest\n"
        "\n"
        "\n"
        "class Miner(nn.Module):\n"
        "    def forward(self, embeddings, margin):\n"
        "        dist = embeddings.sum(1)\n"
        "        hard = dist > margin\n"
        "        _, idx = dist.topk(4)\n"
        "        self.stats(dist, hard, idx)\n"
        "        return hard_pairs(dist, hard), nearest(dist, idx)\n"
        "\n"
        "    def stats(self, dist, hard, idx):\n"
        "        if hard.sum() > 0:  # MS211\n"
        "            self.hard_mean = dist[hard].mean()  # MS202\n"
        "        self.near_mean = dist[idx].mean()\n"
    ),
}
MARK = re.compile(r"#\s*(MS\d{3})\s*$")


@pytest.fixture(scope="module")
def findings(tmp_path_factory):
    root = tmp_path_factory.mktemp("callers_pass")
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "msport", "check", ".", "--format", "json", "--select", "MS2"],
                         cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _marked():
    return {(name, number, MARK.search(line).group(1)) for name, text in PROJECT.items()
            for number, line in enumerate(text.splitlines(), 1) if MARK.search(line)}


def test_a_mask_passed_on_is_a_mask_in_the_helper_and_static_indices_stay_silent(findings):
    assert {(f["path"], f["line"], f["code"]) for f in findings} == _marked()


def test_the_helper_in_another_module_names_the_mask(findings):
    (helper,) = [f for f in findings if f["path"] == "met/select.py"]
    assert "`dist[hard]` is boolean-mask indexing" in helper["message"]


def test_a_loop_over_a_dynamic_length_tensor_is_reported_and_one_over_a_static_tensor_is_not(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Balanced(nn.Module):\n"
        "    def forward(self, scores, labels):\n"
        "        total = scores.sum() * 0\n"
        "        for c in labels.unique():\n"                  # line 8
        "            total = total + (labels == c).sum()\n"
        "        for row in scores:\n"                         # line 10: as many passes as rows
        "            total = total + row.sum()\n"
        "        return total\n"
    )
    assert_only_loop(analyze, text, 8, "one pass per element of `labels.unique()`, whose length depends on the data", "的每个元素执行一次迭代")


def assert_only_loop(analyze, text, line, english, chinese):
    """The one MS211 of *text* is on *line*, saying *english* (and *chinese* in Chinese)."""
    loops = [f for f in analyze(text) if f.code == "MS211"]
    assert [f.span.start_line + 1 for f in loops] == [line]
    assert english in loops[0].message
    (translated,) = [f for f in analyze(text, language="zh-CN") if f.code == "MS211"]
    assert chinese in translated.message


def test_topk_of_a_constant_k_gives_static_indices_even_from_a_masked_input(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Assigner(nn.Module):\n"
        "    def forward(self, points, levels):\n"
        "        order = torch.arange(points.shape[0])\n"
        "        dist = points[levels == 3, 0]\n"               # line 8: MS202
        "        candidates = order[levels == 3]\n"             # line 9: MS202
        "        nearest, idx = dist.topk(3, largest=False)\n"
        "        picked = candidates[idx]\n"                     # line 11: 3 indices, static
        "        return picked, dist[nearest < 0.5]\n"           # line 12: MS202
    )
    lines = sorted((f.span.start_line + 1, f.code) for f in analyze(text) if f.code.startswith("MS2"))
    assert lines == [(8, "MS202"), (9, "MS202"), (12, "MS202")]


def test_an_early_return_on_data_before_a_mask_read_says_why_in_both_languages(analyze):
    """ultralytics' keypoint loss: `if not kpt_mask.any(): return zero`, then `pred[kpt_mask]`."""
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class KeypointLoss(nn.Module):\n"
        "    def forward(self, pred, kpt_mask):\n"
        "        if not kpt_mask.any():\n"                      # line 7
        "            return pred.sum() * 0\n"
        "        return pred[kpt_mask].mean()\n"
    )
    (english,) = [f for f in analyze(text) if f.code == "MS211"]
    assert english.span.start_line + 1 == 7
    assert "it leaves early, before an operation whose output shape depends on the data" in english.message
    (chinese,) = [f for f in analyze(text, language="zh-CN") if f.code == "MS211"]
    assert "它提前退出" in chinese.message and "静态替代写法：" in chinese.message


def test_a_method_stored_on_self_is_called_with_what_the_caller_passes(analyze):
    # pytorch_metric_learning's pair losses: __init__ picks the method forward calls; the pairs
    # come from where() in a helper. The look-alike keeps a fixed-length index (argmax rows).
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "def all_pairs(labels):\n"
        "    same = labels[:, None] == labels[None]\n"
        "    return torch.where(same)\n"                       # line 7: MS201
        "\n\n"
        "class PairLoss(nn.Module):\n"
        "    def __init__(self, by_matrix):\n"
        "        super().__init__()\n"
        "        self.loss_method = self.by_matrix if by_matrix else self.by_pairs\n"
        "        self.nearest = self.closest\n"
        "\n"
        "    def forward(self, emb, labels):\n"
        "        mat = emb @ emb.t()\n"
        "        self.nearest(mat, mat.argmax(1))\n"
        "        return self.loss_method(mat, all_pairs(labels))\n"
        "\n"
        "    def by_matrix(self, mat, pairs):\n"
        "        a, p = pairs\n"
        "        return (mat * 0).sum()\n"
        "\n"
        "    def by_pairs(self, mat, pairs):\n"
        "        a, p = pairs\n"
        "        return mat[a, p].sum()\n"                       # line 27: MS205
        "\n"
        "    def closest(self, mat, idx):\n"
        "        return mat[idx]\n"                              # line 30: as many rows as mat
    )
    lines = sorted((f.span.start_line + 1, f.code) for f in analyze(text) if f.code.startswith("MS2"))
    assert lines == [(7, "MS201"), (27, "MS205")], lines


def test_a_loop_whose_trip_count_follows_the_data_and_that_collects_tensors_is_reported(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Collect(nn.Module):\n"
        "    def forward(self, x, scores):\n"
        "        n = (scores > 0.5).sum()\n"
        "        out = []\n"
        "        for i in range(int(n.item())):\n"            # line 9: as many tensors as the data says
        "            out.append(x[i] * 2)\n"
        "        fixed = []\n"
        "        for i in range(x.shape[0]):\n"               # line 12: a shape: static
        "            fixed.append(x[i] * 2)\n"
        "        k = int(n.item())\n"
        "        total = x.sum()\n"
        "        for i in range(k):\n"                        # line 16: data trip count, nothing collected
        "            total = total + 1\n"
        "        return torch.stack(out), torch.stack(fixed), total\n"
    )
    assert_only_loop(analyze, text, 9, "`for i in range(int(n.item()))`: the condition is computed from tensor data (from `n.item()`), "
                     "and each pass adds a tensor to `out`, so how many tensors it collects is decided by the data", "每次迭代都向 `out` 添加一个 Tensor")


def test_a_method_stored_through_partial_with_keywords_gets_the_callers_arguments(analyze):
    # mmpose's SmoothL1Loss: `self.criterion = partial(self.smooth_l1_loss, beta=beta)`, a
    # staticmethod whose inputs are the tensors forward passes. A partial binding a positional
    # argument would shift them: it is not followed.
    text = (
        "from functools import partial\n"
        "import torch.nn as nn\n\n\n"
        "class SmoothL1(nn.Module):\n"
        "    def __init__(self, beta=1.0):\n"
        "        super().__init__()\n"
        "        self.criterion = partial(self.smooth_l1_loss, reduction='none', beta=beta)\n"
        "        self.shifted = partial(self.scaled, 2.0)\n"
        "\n"
        "    @staticmethod\n"
        "    def smooth_l1_loss(input, target, reduction='none', beta=1.0):\n"
        "        delta = input - target\n"
        "        mask = delta.abs() < beta\n"
        "        delta[mask] = delta[mask].pow(2) / (2 * beta)\n"   # line 15: the read is MS202
        "        return delta\n"
        "\n"
        "    def scaled(self, scale, a, b):\n"
        "        gap = a - b\n"
        "        return gap[gap.abs() < scale]\n"                   # line 20: scale is 2.0, a and b unknown
        "\n"
        "    def forward(self, output, target):\n"
        "        return self.criterion(output, target) + self.shifted(output, target)\n"
    )
    lines = sorted((f.span.start_line + 1, f.code, f.severity.value) for f in analyze(text, backend="ascend", jit_level="O0") if f.code.startswith("MS2"))
    assert lines == [(15, "MS202", "warning")], lines


GRAPH_HELPERS = (
    "import torch\nimport torch.nn as nn\n\n\n"
    "def maybe_num_nodes(index, num_nodes=None):\n"
    "    return int(index.max()) + 1 if num_nodes is None else num_nodes\n"
    "\n\n"
    "def degree(index, num_nodes=None):\n"
    "    N = maybe_num_nodes(index, num_nodes)\n"
    "    return torch.zeros((N,)).scatter_add_(0, index, torch.ones(index.shape[0]))\n"   # line 11
    "\n\n"
    "class Conv(nn.Module):\n"
    "    def forward(self, x, edge_index):\n"
    "        row, col = edge_index\n"
    "        return degree(col, {size})\n"
)


@pytest.mark.parametrize("size, lines", [("x.size(0)", []), ("None", [11])])
def test_an_optional_size_every_caller_passes_is_not_replaced_by_its_data_default(analyze, size, lines):
    # torch_geometric's degree(col, x.size(0)): maybe_num_nodes computes the count from the data
    # only when it is left out (a conditional expression), and no caller leaves it out.
    found = [f.span.start_line + 1 for f in analyze(GRAPH_HELPERS.format(size=size)) if f.code.startswith("MS2")]
    assert found == lines


def test_a_size_parameter_gets_the_data_derived_count_its_callers_pass(analyze):
    text = (
        "import torch.nn as nn\n\n\n"
        "def make(x, num_boxes):\n"
        "    return x.new_zeros(num_boxes, 4)\n"                 # line 5: MS210 from the caller's count
        "\n\n"
        "def pad(x, max_len):\n"
        "    return x.new_zeros(x.shape[0], max_len)\n"           # line 9: a shape is passed
        "\n\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, scores):\n"
        "        n = int((scores > 0.5).sum())\n"
        "        return make(x, n), pad(x, x.shape[1])\n"
    )
    (finding,) = [f for f in analyze(text) if f.code.startswith("MS2")]
    assert (finding.code, finding.span.start_line + 1) == ("MS210", 5)
    assert "int((scores > 0.5).sum())" in finding.message


def test_an_optional_layer_input_used_as_a_size_is_not_data_but_one_used_as_a_tensor_is(analyze):
    # forward(self, x, max_len=None): a caller's Python number, or x.size(1) when left out.
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Lengths(nn.Module):\n"
        "    def forward(self, x, max_len=None, length=None, lengths=None):\n"
        "        if max_len is None:\n"
        "            max_len = x.size(1)\n"
        "        steps = torch.arange(max_len)\n"                      # line 9: a number
        "        if length is not None:\n"
        "            x = x[:, :length]\n"                               # line 11: a number
        "        if lengths is not None:\n"
        "            x = x[:, :int(lengths.max())]\n"                   # line 13: MS203, a tensor's values
        "        return x, steps\n"
    )
    found = [(f.span.start_line + 1, f.code) for f in analyze(text) if f.code.startswith("MS2")]
    assert found == [(13, "MS203")]
