"""Graph context and severity: where code runs decides how bad a dynamic shape is."""

import pytest

CELL = (
    "import mindspore as ms\n"
    "from mindspore import nn, ops\n"
    "{prelude}"
    "class Net(nn.Cell):\n"
    "    def construct(self, x, mask):\n"
    "        return ops.masked_select(x, mask)\n"
)

HELPER = (
    "import mindspore as ms\n"
    "from mindspore import nn, ops\n"
    "def pick(x, mask):\n"
    "    return ops.masked_select(x, mask)\n"
)


def dynamic(findings):
    return [f for f in findings if f.code.startswith("MS2")]


def only(findings):
    (finding,) = dynamic(findings)
    return finding


@pytest.mark.parametrize(
    "settings, severity",
    [
        ({"backend": "ascend", "jit-level": "O2"}, "error"),
        ({"backend": "ascend", "jit-level": "O1"}, "warning"),
        ({"backend": "ascend", "jit-level": "O0"}, "warning"),
        ({"backend": "gpu", "jit-level": "O2"}, "warning"),
        ({"backend": "cpu", "jit-level": "O2"}, "info"),
        ({"backend": "ascend", "jit-level": "O2", "mode": "pynative"}, "info"),
    ],
)
def test_severity_of_graph_code_follows_backend_mode_and_jit_level(analyze, settings, severity):
    finding = only(analyze(CELL.format(prelude=""), **settings))
    assert finding.severity.value == severity


@pytest.mark.parametrize(
    "settings, severity",
    [
        ({"backend": "ascend", "jit-level": "O2"}, "warning"),
        ({"backend": "ascend", "jit-level": "O0"}, "info"),
        ({"backend": "cpu"}, "hint"),
    ],
)
def test_code_whose_callers_are_unseen_is_one_step_lower(analyze, settings, severity):
    finding = only(analyze(HELPER, **settings))
    assert finding.severity.value == severity
    assert "no caller of `pick`" in finding.message


def test_a_helper_called_from_construct_is_graph_code(analyze):
    text = HELPER + "class Net(nn.Cell):\n    def construct(self, x, mask):\n        return pick(x, mask) * 2\n"
    finding = only(analyze(text, backend="ascend", jit_level="O2"))
    assert finding.severity.value == "error" and "no caller" not in finding.message


def test_calls_are_followed_through_methods_and_chains_of_helpers(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n"
        "def inner(x):\n    return torch.nonzero(x)\n"
        "def outer(x):\n    return inner(x) + 1\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x):\n        return self.post(x)\n"
        "    def post(self, x):\n        return outer(x)\n"
    )
    finding = only(analyze(text, backend="ascend", jit_level="O2"))
    assert finding.severity.value == "error" and finding.span.start_line == 3


def test_jit_functions_are_graph_code_even_in_pynative_mode(analyze):
    text = "import mindspore as ms\nfrom mindspore import ops\n@ms.jit\ndef f(x, mask):\n    return ops.masked_select(x, mask)\n"
    assert only(analyze(text, backend="ascend", jit_level="O2", mode="pynative")).severity.value == "error"
    wrapped = "import mindspore as ms\nfrom mindspore import ops\ndef f(x, mask):\n    return ops.masked_select(x, mask)\ng = ms.jit(f)\n"
    assert only(analyze(wrapped, backend="ascend", jit_level="O2")).severity.value == "error"


def test_set_context_in_the_file_overrides_the_mode_setting(analyze):
    pynative = CELL.format(prelude="ms.set_context(mode=ms.PYNATIVE_MODE)\n")
    assert only(analyze(pynative, backend="ascend", jit_level="O2")).severity.value == "info"
    graph = CELL.format(prelude="ms.set_context(mode=ms.GRAPH_MODE)\n")
    assert only(analyze(graph, backend="ascend", jit_level="O2", mode="pynative")).severity.value == "error"


def test_module_level_code_runs_eagerly(analyze):
    text = "import mindspore as ms\nfrom mindspore import ops\nx = ms.Tensor([1.0, 2.0])\ny = ops.masked_select(x, x > 1)\n"
    assert only(analyze(text, backend="ascend", jit_level="O2")).severity.value == "info"


@pytest.mark.parametrize(
    "text",
    [
        # a Dataset's methods
        "import torch\nfrom torch.utils.data import Dataset\nclass D(Dataset):\n"
        "    def __getitem__(self, i):\n        x = torch.rand(4)\n        return x[x > 0.5], torch.nonzero(x)\n",
        # a transform: a plain class with __call__
        "import torch\nclass Crop:\n    def __call__(self, img):\n        m = img > 0\n        return img[m]\n",
        # a function passed as collate_fn, and what it calls
        "import torch\nfrom torch.utils.data import DataLoader\n"
        "def trim(b):\n    return torch.unique(b)\n"
        "def merge(batch):\n    return trim(torch.stack(batch))\n"
        "loader = DataLoader([], collate_fn=merge)\n",
        # named as pipeline code
        "import torch\ndef my_collate(batch):\n    return torch.nonzero(torch.stack(batch))\n",
        # MindSpore dataset map operations
        "import mindspore.dataset as ds\nfrom mindspore import ops\n"
        "def keep(col):\n    return ops.masked_select(col, col > 0)\n"
        "data = ds.NumpySlicesDataset([1]).map(operations=keep)\n",
    ],
)
def test_data_pipeline_code_is_exempt(analyze, text):
    assert dynamic(analyze(text)) == []


def test_graph_reachability_beats_the_pipeline(analyze):
    text = (
        "import torch\nimport torch.nn as nn\nfrom torch.utils.data import DataLoader\n"
        "def shared(x):\n    return torch.nonzero(x)\n"
        "def collate(batch):\n    return shared(torch.stack(batch))\n"
        "class Net(nn.Module):\n    def forward(self, x):\n        return shared(x)\n"
        "loader = DataLoader([], collate_fn=collate)\n"
    )
    assert only(analyze(text, backend="ascend", jit_level="O2")).severity.value == "error"


def test_messages_name_the_construct_the_reason_the_consequence_and_the_workaround(analyze):
    message = only(analyze(CELL.format(prelude=""), backend="ascend", jit_level="O2")).message
    assert "`ops.masked_select`" in message
    assert "one element per True in the mask" in message  # why the shape depends on data
    assert "jit_level O2" in message and "does not compile" in message  # the consequence here
    assert "Static alternative:" in message and "three-argument where" in message
    gpu = only(analyze(CELL.format(prelude=""), backend="gpu")).message
    assert "on GPU" in gpu and "recompilation" in gpu


def test_related_information_points_back_to_the_origin(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, scores):\n"
        "        keep = torch.nonzero(scores > 0.5).squeeze(1)\n"
        "        rows = x[keep]\n"
        "        n = int((scores > 0.5).sum())\n"
        "        return rows, x[:n]\n"
    )
    findings = dynamic(analyze(text))
    by_code = {f.code: f for f in findings}
    assert set(by_code) == {"MS201", "MS205", "MS203"}
    (gather_origin,) = by_code["MS205"].related
    assert gather_origin.span.start_line == 4 and "torch.nonzero" in gather_origin.message
    (slice_origin,) = by_code["MS203"].related
    assert slice_origin.span.start_line == 6 and "int((scores > 0.5).sum())" in slice_origin.message
    assert "from `int((scores > 0.5).sum())`" in by_code["MS203"].message


def test_related_information_moves_with_the_chunk(analyze):
    text = (
        "import torch\n"
        "def f(x: torch.Tensor):\n"
        "    keep = torch.nonzero(x)\n"
        "    return x[keep]\n"
    )
    before = [f for f in dynamic(analyze(text)) if f.code == "MS205"][0]
    after = [f for f in dynamic(analyze("\n\n\n" + text)) if f.code == "MS205"][0]
    assert after.span.start_line == before.span.start_line + 3
    assert after.related[0].span.start_line == before.related[0].span.start_line + 3


def test_torch_and_mindspore_api_fields(analyze):
    torch_finding = only(analyze("import torch\ndef f(x: torch.Tensor):\n    return torch.unique(x)\n"))
    assert torch_finding.torch_api == "torch.unique" and torch_finding.mindspore_api is None
    ms_finding = only(analyze(HELPER))
    assert ms_finding.mindspore_api == "mindspore.ops.masked_select" and ms_finding.category.value == "dynamic-shape"


def test_noqa_and_select_apply(analyze):
    text = HELPER.replace("ops.masked_select(x, mask)", "ops.masked_select(x, mask)  # noqa: MS201")
    assert dynamic(analyze(text)) == []
    assert dynamic(analyze(HELPER, ignore=["MS2"])) == []


def test_nesting_deeper_than_the_recursion_limit_is_not_a_crash():
    from msport.analysis import Analyzer, Settings
    from msport.analysis.checks.dynamic_shape import DynamicShapeCheck

    text = (
        "import torch\n"
        "def f(x: torch.Tensor):\n    return torch.nonzero(x)\n"
        "def g(x: torch.Tensor):\n    y = " + " + ".join(["x"] * 1200) + "\n    return y\n"
    )
    findings = Analyzer(checks=(DynamicShapeCheck,)).analyze(text, Settings()).findings
    assert [f.code for f in findings] == ["MS201"]  # the deep chunk is given up, the others checked


AUGMENT = (
    "import torch\n"
    "from torch import nn\n"
    "class RandomCrop(nn.Module):\n"
    "    def forward(self, img, boxes):\n"
    "        keep = boxes[:, 2] > boxes[:, 0]\n"
    "        return img, boxes[keep]\n"
)


@pytest.mark.parametrize("path, exempt", [
    ("project/transforms/crop.py", True),  # a transforms package (torchvision/transforms/)
    ("yolox/data/data_augment.py", True),
    ("mmdet/datasets/pipelines/transforms.py", True),
    ("project/models/head.py", False),
    ("/datasets/me/repo/models/head.py", False),  # only the nearest directories count
    ("/data/me/repo/data/loader_utils.py", False),  # "data" is too common a name (mount points)
    ("torchvision/models/detection/transform.py", False),  # resizing inside the model
    (None, False),
])
def test_files_of_the_data_pipeline_are_exempt_by_where_they_live(analyze, path, exempt):
    """The same nn.Module: a transform in a data-pipeline file, model code elsewhere."""
    found = dynamic(analyze(AUGMENT, path=path))
    assert (found == []) == exempt, found


BUILT = (
    "import torch\n"
    "from torch import nn\n"
    "def widths(depths):\n"
    "    return torch.unique(torch.tensor(depths))\n"
    "def shared(x):\n"
    "    return torch.nonzero(x)\n"
    "class Net(nn.Module):\n"
    "    def __init__(self, depths):\n"
    "        super().__init__()\n"
    "        self.w = widths(depths)\n"
    "        self.s = shared(torch.ones(3))\n"
    "    def forward(self, x):\n"
    "        return shared(x)\n"
)


def test_code_run_while_a_layer_is_built_is_eager(analyze):
    """__init__ runs in Python when the model is built (timm's RegNet computes its widths with
    torch.unique there): information, saying so; a helper forward calls too stays graph code."""
    by_line = {f.span.start_line: f for f in dynamic(analyze(BUILT, backend="ascend", jit_level="O2"))}
    built, compiled = by_line[3], by_line[5]
    assert built.severity.value == "info" and "`widths` runs in Python, never in a graph" in built.message
    assert "while a layer is built" in built.message and "does not compile" not in built.message
    assert compiled.severity.value == "error" and "runs in Python" not in compiled.message


def test_top_level_code_is_eager_too(analyze):
    (finding,) = dynamic(analyze("import torch\nm = torch.ones(3) > 0\nidx = torch.nonzero(m)\n", backend="ascend", jit_level="O2"))
    assert finding.severity.value == "info" and "This code runs in Python, never in a graph" in finding.message


LOSS_CLASS = (
    "import torch\n"
    "class ComputeLoss:\n"
    "    def __init__(self, model):\n"
    "        self.model = model\n"
    "    def __call__(self, preds, targets):\n"
    "        keep = targets[:, 4] > 0.5\n"
    "        return preds[keep].sum()\n"
    "{caller}"
)


def test_a_plain_loss_class_with_call_is_not_pipeline_code(analyze):
    # The detection-model style: `ComputeLoss(model)(preds, targets)`. With no caller in sight
    # it is model code whose callers are unseen (one step lower), never exempt.
    finding = only(analyze(LOSS_CLASS.format(caller=""), backend="ascend", jit_level="O0"))
    assert finding.code == "MS202" and finding.severity.value == "info"
    assert "no caller of `ComputeLoss.__call__`" in finding.message


@pytest.mark.parametrize(
    "caller",
    [
        # the loss a training step calls .backward() on
        "def train(model, loader, opt):\n"
        "    compute_loss = ComputeLoss(model)\n"
        "    for imgs, targets in loader:\n"
        "        preds = model(imgs)\n"
        "        loss = compute_loss(preds, targets)\n"
        "        loss.backward()\n"
        "        opt.step()\n",
        # kept on self by a trainer, through a tuple assignment and a scaler
        "class Trainer:\n"
        "    def __init__(self, model):\n"
        "        self.compute_loss = ComputeLoss(model)\n"
        "    def step(self, imgs, targets, scaler):\n"
        "        loss, items = self.compute_loss(self.model(imgs), targets)\n"
        "        scaler.scale(loss * 2).backward()\n",
        # differentiated by value_and_grad after a port
        "import mindspore as ms\n"
        "loss_fn = ComputeLoss(None)\n"
        "def forward_fn(preds, targets):\n"
        "    return loss_fn(preds, targets)\n"
        "grad_fn = ms.value_and_grad(forward_fn, None, [])\n",
    ],
)
def test_a_loss_class_reached_from_a_training_step_is_graph_code(analyze, caller):
    finding = only(analyze(LOSS_CLASS.format(caller=caller), backend="ascend", jit_level="O0"))
    assert finding.code == "MS202" and finding.severity.value == "warning"
    assert "no caller" not in finding.message


def test_a_transform_class_is_still_pipeline_code(analyze):
    text = (
        "import torch\n"
        "class DropBoxes:\n"
        "    def __call__(self, img, boxes):\n"
        "        return img, boxes[boxes[:, 2] > 0]\n"
    )
    assert not dynamic(analyze(text))


def test_a_transform_method_taking_results_marks_a_transform(analyze):
    # The mmcv style: `transform(self, results)` on a plain class, whatever its name.
    text = (
        "import torch\n"
        "class FlipBoxes(BaseTransform):\n"
        "    def transform(self, results):\n"
        "        boxes = results['gt_bboxes']\n"
        "        return boxes[boxes[:, 2] > 0]\n"
    )
    assert not dynamic(analyze(text))


@pytest.mark.parametrize(
    "text",
    [
        # a detector's box sampler: "Sampler" in its name, but no __iter__ and no data base
        "import torch\n"
        "class RandomSampler(BaseSampler):\n"
        "    def _sample_pos(self, assign_result, num_expected):\n"
        "        pos_inds = torch.nonzero(assign_result.gt_inds > 0, as_tuple=False)\n"
        "        return pos_inds\n",
        # a layer named like a sampler
        "import torch\nimport torch.nn as nn\n"
        "class FeatureUpsampler(nn.Module):\n"
        "    def forward(self, x):\n"
        "        return torch.nonzero(x)\n",
    ],
)
def test_a_name_with_sampler_or_random_is_not_pipeline_code(analyze, text):
    assert [f.code for f in dynamic(analyze(text))] == ["MS201"]


@pytest.mark.parametrize(
    "choose",
    [
        "        loss_fn = focal\n",
        "        loss_fn = focal if self.sigmoid else plain\n",
        "        if self.sigmoid:\n            loss_fn = focal\n        else:\n            loss_fn = plain\n",
    ],
)
def test_a_helper_called_through_a_local_alias_gets_the_callers_arguments(analyze, choose):
    # mmdet's style: the loss picks its function into a local name and calls that. The tuple
    # unpacked from `target` is only known to hold tensors through the call.
    text = (
        "import torch\nimport torch.nn as nn\n"
        "def focal(pred, target):\n"
        "    label, score = target\n"
        "    pos = ((label >= 0) & (label < pred.size(1))).nonzero().squeeze(1)\n"
        "    return score[pos]\n"
        "def plain(pred, target):\n"
        "    return pred.sum()\n"
        "class Loss(nn.Module):\n"
        "    def forward(self, pred, target):\n"
        f"{choose}"
        "        return loss_fn(pred, target)\n"
    )
    found = dynamic(analyze(text))
    assert sorted((f.code, f.span.start_line) for f in found) == [("MS201", 4), ("MS205", 5)]


def test_a_slice_written_with_a_data_bound_is_reported_and_writes_through_masks_or_indices_are_not(analyze):
    text = (
        "import torch\nimport torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def forward(self, x, m, v):\n"
        "        n = int(m.sum())\n"
        "        x[:, :n] = 0\n"
        "        x[:n] += 1\n"
        "        idx = torch.nonzero(m).squeeze(1)\n"
        "        x[idx] = v\n"
        "        x[m > 0] = 1\n"
        "        x[:, :4] = 2\n"
        "        return x\n"
    )
    found = sorted((f.code, f.span.start_line) for f in dynamic(analyze(text)))
    assert found == [("MS201", 7), ("MS203", 5), ("MS203", 6)]
    assert "slice assignment" in dynamic(analyze(text))[0].message


@pytest.mark.parametrize("base", ["from mmengine.model import BaseModule", "from mmcv.runner import BaseModule"])
def test_a_head_on_openmmlab_base_module_is_a_layer_whose_forward_is_graph_code(analyze, base):
    # mmdet/mmpose heads subclass BaseModule (a torch.nn.Module msport does not read): their
    # forward is compiled after the port, its inputs are tensors.
    text = (
        f"import torch\n{base}\n\n\n"
        "class Head(BaseModule):\n"
        "    def forward(self, feats, scores):\n"
        "        keep = scores > 0.5\n"
        "        return feats[keep]\n"                       # line 8: MS202
    )
    finding = only(analyze(text, backend="ascend", jit_level="O0"))
    assert (finding.code, finding.span.start_line + 1, finding.severity.value) == ("MS202", 8, "warning")


def test_a_plain_class_named_like_a_module_is_no_layer(analyze):
    # Only the listed library bases make a layer, not a name that looks like one.
    text = (
        "import torch\nfrom mylib import BaseModule\n\n\n"
        "class Head(BaseModule):\n"
        "    def forward(self, feats, scores):\n"
        "        keep = scores > 0.5\n"
        "        return feats[keep]\n"
    )
    assert dynamic(analyze(text)) == []
