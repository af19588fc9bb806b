"""A function that runs a construct with a data-dependent shape inside (FunctionFacts.runs): a
branch on data that calls it is MS211 at the caller, naming the helper and the construct, in
one module and across modules through the project index; a branch calling a helper whose shapes
are static, or a branch on a shape, stays silent. Patterns reduced from the dev projects' losses
(a box loss layer called under `if fg_mask.sum():`, a pair miner of another module called under
`if labels.max() > 0:`); sizes read off shapes held in tensors stay static."""

import json
import re
import subprocess
import sys

import pytest

#: A detector-style project: the loss (a plain class with __call__, called by the training step)
#: calls helpers of two other modules, one of which reaches the dynamic construct through the
#: other. `# MS211` marks every line that must be reported; nothing else may be.
PROJECT = {
    "det/__init__.py": "",
    "det/boxes.py": (
        "import torch\n"
        "\n"
        "\n"
        "def matched(iou, threshold):\n"
        "    keep = torch.nonzero(iou > threshold).squeeze(1)\n"
        "    return iou[keep].sum()\n"
        "\n"
        "\n"
        "def scaled(iou, factor):\n"
        "    return (iou * factor).clamp(min=0).sum()\n"
    ),
    "det/assigner.py": (
        "from .boxes import matched, scaled\n"
        "\n"
        "\n"
        "def assign(iou):\n"
        "    return matched(iou, 0.5) * 2\n"
        "\n"
        "\n"
        "def weigh(iou):\n"
        "    return scaled(iou, 0.5)\n"
    ),
    "det/loss.py": (
        "import torch\n"
        "import torch.nn as nn\n"
        "\n"
        "from .assigner import assign, weigh\n"
        "\n"
        "\n"
        "class BoxLoss(nn.Module):\n"
        "    def forward(self, pred, fg_mask):\n"
        "        return pred[fg_mask].abs().mean()\n"
        "\n"
        "\n"
        "class ComputeLoss:\n"
        "    def __init__(self):\n"
        "        self.box = BoxLoss()\n"
        "\n"
        "    def __call__(self, pred: torch.Tensor, iou: torch.Tensor, fg_mask: torch.Tensor):\n"
        "        loss = pred.sum() * 0\n"
        "        if fg_mask.sum():  # MS211\n"
        "            loss = loss + self.box(pred, fg_mask)\n"
        "        if iou.max() > 0.5:  # MS211\n"
        "            loss = loss + assign(iou)\n"
        "        if iou.min() < 0.1:\n"
        "            loss = loss + weigh(iou)\n"
        "        if pred.shape[0] > 1:\n"
        "            loss = loss + assign(iou)\n"
        "        return loss\n"
    ),
    "det/train.py": (
        "import torch\n"
        "\n"
        "from .loss import ComputeLoss\n"
        "\n"
        "\n"
        "def train_step(model, images, iou, fg_mask, optimizer):\n"
        "    criterion = ComputeLoss()\n"
        "    loss = criterion(model(images), iou, fg_mask)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
    ),
}
MARK = re.compile(r"#\s*(MS\d{3})\s*$")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    root = tmp_path_factory.mktemp("runs_inside")
    for name, text in PROJECT.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def _check(root, *args):
    run = subprocess.run([sys.executable, "-m", "msport", "check", ".", "--format", "json", "--select", "MS211", *args],
                         cwd=root, capture_output=True, text=True, timeout=300)
    assert run.returncode in (0, 1), run.stderr
    return json.loads(run.stdout)


def _marked():
    return {(name, number) for name, text in PROJECT.items() for number, line in enumerate(text.splitlines(), 1) if MARK.search(line)}


def test_a_branch_on_data_calling_a_helper_that_runs_a_dynamic_shape_is_reported_at_the_caller(project):
    findings = _check(project)
    assert {(f["path"], f["line"]) for f in findings} == _marked()
    by_line = {f["line"]: f["message"] for f in findings}
    # A layer called through its instance: its forward is the helper.
    assert "calls `BoxLoss.forward`, which runs `pred[fg_mask]`" in by_line[18]
    # Two modules away: assign (assigner.py) -> matched (boxes.py) -> nonzero.
    assert "calls `det.assigner.assign`, which runs `torch.nonzero(iou > threshold)`" in by_line[20]


def test_the_reason_is_said_in_chinese(project):
    findings = _check(project, "--lang", "zh-CN")
    (message,) = [f["message"] for f in findings if f["line"] == 20]
    assert "某个分支调用了 `det.assigner.assign`" in message and "静态替代写法：" in message
    assert "calls" not in message and "Static alternative" not in message


def test_inside_one_module_the_fact_follows_helpers_calling_helpers(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "def pick(x, m):\n    return x[torch.nonzero(m)].sum()\n\n\n"
        "def outer(x, m):\n    return pick(x, m) * 2\n\n\n"
        "def plain(x):\n    return x.abs().sum()\n\n\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, m):\n"
        "        y = x.sum()\n"
        "        if x.sum() > 0:\n"          # line 20: runs outer -> pick -> nonzero
        "            y = y + outer(x, m)\n"
        "        if x.sum() > 1:\n"          # line 22: plain keeps every shape
        "            y = y + plain(x)\n"
        "        if x.shape[0] > 1:\n"       # line 24: a branch on a shape is static
        "            y = y + outer(x, m)\n"
        "        return y\n"
    )
    branches = [f for f in analyze(text) if f.code == "MS211"]
    assert [f.span.start_line + 1 for f in branches] == [20]
    assert "calls `outer`, which runs `x[torch.nonzero(m)]`" in branches[0].message


def test_a_size_read_off_a_shape_held_in_a_tensor_stays_static(analyze):
    """ultralytics' query selection: k is the number of anchors, clamped, held in a tensor."""
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, scores, mask):\n"
        "        bs = scores.shape[0]\n"
        "        k = torch._shape_as_tensor(scores)[1].clamp(max=300)\n"
        "        a = torch.arange(end=bs).repeat(1, k)\n"
        "        n = int(mask.sum())\n"
        "        b = torch.arange(end=bs).repeat(1, n)\n"
        "        return a, b\n"
    )
    sizes = [f for f in analyze(text) if f.code == "MS210"]
    assert [f.span.start_line + 1 for f in sizes] == [11]
    assert "`n` computed from tensor data (from `int(mask.sum())`)" in sizes[0].message


def test_a_bound_taken_from_a_dynamic_tensor_says_so_in_both_languages(analyze):
    """issue 18: `len(boxes)` of a masked tensor is not 'computed from tensor data'; it is the
    size of a tensor whose own shape follows the data (the card says shape-derived bounds of
    static shapes are not reported)."""
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "class Head(nn.Module):\n"
        "    def forward(self, x, v, scores):\n"
        "        boxes = v['boxes'][scores > 0.5]\n"
        "        n = len(boxes)\n"
        "        m = len(x)\n"
        "        return x[:n], x[:m]\n"
    )
    (english,) = [f for f in analyze(text) if f.code == "MS203"]
    assert "the bound `n` is the size of a tensor whose own shape follows the data" in english.message
    assert "computed from tensor data" not in english.message.split(";")[0]
    (chinese,) = [f for f in analyze(text, language="zh-CN") if f.code == "MS203"]
    assert "边界 `n` 是一个自身 shape 随数据变化的 Tensor 的大小" in chinese.message and "静态替代写法：" in chinese.message


def test_a_function_stored_on_the_layer_runs_where_the_layer_calls_it(analyze):
    """mmdet's CrossEntropyLoss: `self.cls_criterion = binary_cross_entropy` in __init__, called
    in forward: the criterion (and what it calls) is graph code, not code run while the layer is
    built."""
    text = (
        "import torch\nimport torch.nn as nn\n\n\n"
        "def expand(labels):\n"
        "    inds = torch.nonzero(labels > 0, as_tuple=False)\n"
        "    if inds.numel() > 0:\n"                                  # line 7
        "        labels[inds] = 1\n"
        "    return labels\n\n\n"
        "def bce(pred, label):\n"
        "    return (pred - expand(label)).abs().mean()\n\n\n"
        "def plain(pred, label):\n"
        "    return (pred - label).abs().mean()\n\n\n"
        "class CELoss(nn.Module):\n"
        "    def __init__(self, use_bce=True):\n"
        "        super().__init__()\n"
        "        self.criterion = bce if use_bce else plain\n\n"
        "    def forward(self, pred, label):\n"
        "        return self.criterion(pred, label)\n"
    )
    findings = [f for f in analyze(text) if f.code.startswith("MS2")]
    assert {(f.code, f.span.start_line + 1, f.severity.value) for f in findings} == {("MS201", 6, "warning"), ("MS211", 7, "warning")}
    eager = text.replace("        return self.criterion(pred, label)\n", "        return plain(pred, label)\n")
    # Stored but never called: no caller seen, one step lower (not "runs while the layer is built").
    unseen = [f for f in analyze(eager) if f.code.startswith("MS2")]
    assert {(f.code, f.severity.value) for f in unseen} == {("MS201", "info"), ("MS211", "info")}
    assert all("no caller of `expand`" in f.message for f in unseen), [f.message for f in unseen]
