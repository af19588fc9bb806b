"""MS301-MS305: the code before and after each equivalent-replacement fix computes the same thing.

Every snippet is ported by msport itself (fix-all limited to the code under test); the original
runs in its framework (torch 2.13 or mindspore 2.10), the fixed code in mindspore 2.10 in
PyNative and under mindspore.jit, and, for torch originals, in torch as well (the fixes keep a
torch file valid torch). Inputs: random tensors of several shapes; ties for the sorts.

Originals that cannot run on CPU (mint functions without a CPU kernel) are compared with the
torch function mint mirrors."""

import pytest

from msport.analysis.findings import Safety

from .porting import Case, failures, port, run_all

TORCH = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n\n\n"
MINDSPORE = "import mindspore as ms\nfrom mindspore import mint, nn, ops\n\n\n"


def torch_function(body: str, params: str = "x: torch.Tensor") -> str:
    return f"{TORCH}def f({params}):\n{body}\n"


def ms_function(body: str, params: str = "x") -> str:
    return f"{MINDSPORE}def f({params}):\n{body}\n"


def torch_module(init: str, forward: str) -> str:
    return (f"{TORCH}class Net(nn.Module):\n    def __init__(self):\n        super().__init__()\n{init}\n\n"
            f"    def forward(self, x):\n{forward}\n\n\nnet = Net()\n\n\ndef f(x):\n    return net(x)\n")


def cell(init: str, construct: str) -> str:
    return (f"{MINDSPORE}class Net(nn.Cell):\n    def __init__(self):\n        super().__init__()\n{init}\n\n"
            f"    def construct(self, x):\n{construct}\n\n\nnet = Net()\n\n\ndef f(x):\n    return net(x)\n")


def shapes(*shape_list, kind=None, dtype="float32"):
    return [{"x": [dtype, list(s)] + ([kind] if kind else [])} for s in shape_list]


POOL2D = shapes((2, 3, 5, 4), (1, 4, 7, 7), (3, 2, 6))  # (C, H, W) input too
POOL1D = shapes((2, 3, 9), (1, 5, 4))
POOL3D = shapes((2, 3, 4, 5, 6), (1, 2, 3, 3, 3))
MAXPOOL = shapes((2, 3, 8, 8), (1, 4, 6, 10))
SORTS = shapes((4, 6), (2, 3, 5), kind="ties") + shapes((3, 7))


#: (id, original, select, settings, inputs, expected safety, how to run): "torch" originals run
#: the fix in mindspore and torch; "mindspore" originals in mindspore; ("torch-reference", code)
#: compares msport's port of a MindSpore original that cannot run on CPU with torch code.
SPECS = [
    # MS301: shape-only operators -> reshape (target 2.4, where they are not a plain rename)
    ("flatten-1", torch_function("    return torch.flatten(x, 1)"), "MS301", {"target_version": "2.4"},
     shapes((2, 3, 4), (5, 2, 2, 3)), Safety.SAFE, "torch"),
    ("flatten-all", torch_function("    return torch.flatten(x)"), "MS301", {"target_version": "2.4"},
     shapes((2, 3, 4), (7,), ()), Safety.SAFE, "torch"),
    ("flatten-middle", torch_function("    return torch.flatten(x, 1, 2)"), "MS301", {"target_version": "2.4"},
     shapes((2, 3, 4, 5), (1, 2, 2, 2)), Safety.SAFE, "torch"),
    ("flatten-negative", torch_function("    return torch.flatten(x, -2)"), "MS301", {"target_version": "2.4"},
     shapes((2, 3, 4, 5), (3, 4)), Safety.SAFE, "torch"),
    ("flatten-method", torch_function("    return x.flatten(start_dim=1)"), "MS301", {"target_version": "2.4"},
     shapes((2, 3, 4), (6, 1, 5)), Safety.SAFE, "torch"),
    # torch.squeeze has a counterpart in every version (ops.squeeze, dim renamed axis): no MS301.
    # MS302: adaptive average pooling to 1 -> mean(axes, True)
    ("avg-2d-function", torch_function("    return F.adaptive_avg_pool2d(x, 1)"), "MS302", {}, POOL2D, Safety.SAFE, "torch"),
    ("avg-2d-tuple-inline", torch_function("    return nn.AdaptiveAvgPool2d((1, 1))(x) * 2"), "MS302", {}, POOL2D, Safety.SAFE, "torch"),
    ("avg-1d-function", torch_function("    return F.adaptive_avg_pool1d(x, output_size=1)"), "MS302", {}, POOL1D, Safety.SAFE, "torch"),
    ("avg-3d-function", torch_function("    return F.adaptive_avg_pool3d(x + 1, 1)"), "MS302", {}, POOL3D, Safety.SAFE, "torch"),
    ("avg-2d-module", torch_module("        self.pool = nn.AdaptiveAvgPool2d(1)\n        self.scale = 2.0",
                                   "        y = self.pool(x)\n        return self.pool(x * self.scale) + y"),
     "MS302", {}, POOL2D, Safety.SAFE, "torch-only"),
    ("avg-2d-ops", ms_function("    return ops.adaptive_avg_pool2d(x, 1)"), "MS302", {}, POOL2D, Safety.SAFE, "mindspore"),
    ("avg-1d-ops", ms_function("    return ops.adaptive_avg_pool1d(x, 1)"), "MS302", {}, POOL1D, Safety.SAFE, "mindspore"),
    ("avg-2d-cell", cell("        self.pool = nn.AdaptiveAvgPool2d(1)", "        return self.pool(x)"), "MS302", {},
     shapes((2, 3, 5, 4), (1, 4, 7, 7)), Safety.SAFE, "mindspore"),
    ("avg-3d-cell", cell("        self.pool = nn.AdaptiveAvgPool3d((1, 1, 1))", "        return self.pool(x)"), "MS302", {},
     POOL3D, Safety.SAFE, "mindspore"),
    ("avg-2d-primitive", cell("        self.pool = ops.AdaptiveAvgPool2D(1)", "        return self.pool(x)"), "MS302", {},
     shapes((2, 3, 5, 4), (1, 4, 7, 7)), Safety.SAFE, "mindspore"),
    ("avg-2d-mint", ms_function("    return mint.nn.functional.adaptive_avg_pool2d(x, 1)"), "MS302", {}, POOL2D, Safety.SAFE,
     ("torch-reference", torch_function("    return F.adaptive_avg_pool2d(x, 1)"))),
    # MS303: adaptive max pooling to 1 -> amax(axes, True)
    ("max-2d-function", torch_function("    return F.adaptive_max_pool2d(x, (1, 1))"), "MS303", {}, POOL2D, Safety.SAFE, "torch"),
    ("max-1d-module", torch_module("        self.pool = nn.AdaptiveMaxPool1d(1)", "        return self.pool(x)"), "MS303", {},
     POOL1D, Safety.SAFE, "torch-only"),
    ("max-3d-function", torch_function("    return F.adaptive_max_pool3d(x, 1, return_indices=False)"), "MS303", {}, POOL3D,
     Safety.SAFE, "torch"),
    ("max-2d-ops", ms_function("    return ops.adaptive_max_pool2d(x, 1)"), "MS303", {}, POOL2D, Safety.SAFE, "mindspore"),
    ("max-2d-mint", ms_function("    return mint.nn.functional.adaptive_max_pool2d(x, 1)"), "MS303", {},
     shapes((2, 3, 5, 4), (1, 4, 7, 7)), Safety.SAFE, "mindspore"),
    ("max-2d-cell", cell("        self.pool = nn.AdaptiveMaxPool2d(1)", "        return self.pool(x)"), "MS303", {},
     shapes((2, 3, 5, 4), (1, 4, 7, 7)), Safety.SAFE, "mindspore"),
    # MS304: max pooling with unused indices -> without them
    ("maxpool-unpack", torch_function("    y, _ = F.max_pool2d(x, 2, return_indices=True)\n    return y"), "MS304", {},
     MAXPOOL, Safety.SAFE, "torch-only"),
    ("maxpool-unused-name", torch_function("    y, where = F.max_pool2d(x, kernel_size=3, stride=2, return_indices=True)\n    return y * 2"),
     "MS304", {}, MAXPOOL, Safety.SAFE, "torch-only"),
    ("maxpool-index-0", torch_function("    return F.max_pool1d(x, 2, return_indices=True)[0]"), "MS304", {}, POOL1D, Safety.SAFE, "torch-only"),
    ("maxpool-module", torch_module("        self.pool = nn.MaxPool2d(2, return_indices=True)",
                                    "        y, _ = self.pool(x)\n        return self.pool(y)[0]"),
     "MS304", {}, shapes((2, 3, 8, 8), (1, 2, 12, 8)), Safety.SAFE, "torch-only"),
    ("maxpool-ops", ms_function("    y, _ = ops.max_pool2d(x, 2, return_indices=True)\n    return y"), "MS304", {}, MAXPOOL,
     Safety.SAFE, "mindspore"),
    ("maxpool-cell", cell("        self.pool = nn.MaxPool2d(kernel_size=2, stride=2, pad_mode=\"pad\", return_indices=True)",
                          "        y, _ = self.pool(x)\n        return y"), "MS304", {}, MAXPOOL, Safety.SAFE, "mindspore"),
    ("maxpool-argmax-primitive", cell("        self.pool = ops.MaxPoolWithArgmax(kernel_size=2, strides=2)",
                                      "        y, _ = self.pool(x)\n        return y"), "MS304", {}, MAXPOOL, Safety.SAFE, "mindspore"),
    # MS305: full sort -> topk over the whole axis (backend cpu, where torch.sort is not a plain rename)
    ("sort-descending-values", torch_function("    return torch.sort(x, dim=1, descending=True)[0]"), "MS305",
     {"backend": "cpu"}, SORTS, Safety.SAFE, "torch"),
    ("sort-ascending-unpack", torch_function("    values, _ = torch.sort(x)\n    return values"), "MS305",
     {"backend": "cpu"}, SORTS, Safety.SAFE, "torch"),
    ("sort-negative-dim-values", torch_function("    return torch.sort(x, -2, True).values"), "MS305",
     {"backend": "cpu"}, SORTS, Safety.SAFE, "torch"),
    ("sort-indices-read", torch_function("    s = torch.sort(x, 0)\n    return s[0]"), "MS305",
     {"backend": "cpu"}, SORTS, Safety.UNSAFE, "torch"),
    ("sort-mint-descending", ms_function("    return mint.sort(x, dim=0, descending=True)[0]"), "MS305", {"backend": "cpu"}, SORTS,
     Safety.SAFE, ("mindspore-reference", ms_function("    return ops.sort(x, axis=0, descending=True)[0]"))),
    ("sort-mint-ascending", ms_function("    values, _ = mint.sort(x)\n    return values"), "MS305", {"backend": "cpu"}, SORTS,
     Safety.SAFE, ("torch-reference", torch_function("    return torch.sort(x)[0]"))),
]


@pytest.fixture(scope="module")
def ported():
    """id -> (Port, Case); every case run in one child process."""
    ports, cases = {}, []
    for case_id, source, select, values, inputs, _safety, how in SPECS:
        fixed = port(source, select, unsafe=True, **values)
        ports[case_id] = fixed
        framework, original, runs = "torch", source, ("mindspore", "torch")
        if how == "torch-only":
            runs = ("torch",)
        elif how == "mindspore":
            framework, runs = "mindspore", ("mindspore",)
        elif isinstance(how, tuple):
            framework = "torch" if how[0] == "torch-reference" else "mindspore"
            original, runs = how[1], ("mindspore",)
        cases.append(Case(case_id, original, fixed.text, ["x"], inputs, framework, runs))
    return ports, run_all(cases)


@pytest.mark.parametrize("spec", SPECS, ids=[s[0] for s in SPECS])
def test_fix_is_applied_with_the_expected_safety(ported, spec):
    case_id, source, select, _values, _inputs, safety, _how = spec
    fixed = ported[0][case_id]
    assert fixed.text != source, f"msport offered no {select} fix"
    assert set(fixed.codes) == {select}
    assert fixed.safeties and all(s == safety for s in fixed.safeties), fixed.safeties
    compile(fixed.text, case_id, "exec")


@pytest.mark.parametrize("spec", SPECS, ids=[s[0] for s in SPECS])
def test_fixed_code_computes_the_same(ported, spec):
    problem = failures(ported[1][spec[0]])
    assert problem is None, problem


def test_module_forms_drop_the_layer(ported):
    text = ported[0]["avg-2d-module"].text
    assert "AdaptiveAvgPool2d" not in text and "self.pool" not in text
    assert "self.scale = 2.0" in text
    text = ported[0]["maxpool-module"].text
    assert "nn.MaxPool2d(2)" in text and "return_indices" not in text
    assert "y = self.pool(x)" in text and "return self.pool(y)\n" in text
    text = ported[0]["maxpool-argmax-primitive"].text
    assert "ops.MaxPool(kernel_size=2, strides=2)" in text
