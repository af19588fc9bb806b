"""The API-mapping check on code: curated renames, Module methods, inferred missing APIs, sparse."""

LAYER = (
    "import torch\n"
    "from torch import nn\n"
    "class Net(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.body = nn.Sequential(nn.ReLU())\n"
    "    def forward(self, x):\n"
    "        return self.body(x)\n"
    "    def helper(self):\n"
    "        return list(self.parameters())\n"
    "def main():\n"
    "    net = Net()\n"
    "    net.eval()\n"
    "    net.helper()\n"
)


def by_api(findings):
    return {f.torch_api: f for f in findings}


def test_module_becomes_cell_and_forward_becomes_construct(analyze):
    found = by_api(analyze(LAYER))
    assert found["torch.nn.Module"].mindspore_api == "mindspore.nn.Cell"
    forward = found["torch.nn.Module.forward"]
    assert forward.code == "MS102" and forward.mindspore_api == "mindspore.nn.Cell.construct"
    assert (forward.span.start_line, forward.span.start_col, forward.span.end_col) == (6, 8, 15)
    assert found["torch.nn.Sequential"].mindspore_api == "mindspore.nn.SequentialCell"


def test_module_methods_on_self_and_on_instances(analyze):
    found = by_api(analyze(LAYER))
    assert found["torch.nn.Module.parameters"].mindspore_api == "mindspore.nn.Cell.trainable_params"
    assert "set_train(False)" in found["torch.nn.Module.eval"].message
    assert not any("helper" in (f.torch_api or "") for f in analyze(LAYER))  # user methods are not torch APIs


def test_forward_outside_a_torch_layer_is_left_alone(analyze):
    text = "import torch\nclass Plain:\n    def forward(self, x):\n        return x\n"
    assert "torch.nn.Module.forward" not in by_api(analyze(text))


def test_a_real_torch_api_with_no_rule_is_missing_with_what_was_searched(analyze):
    (finding,) = [f for f in analyze("import torch\ny = torch.take_along_dim(x, i, dim=1)\n") if f.torch_api == "torch.take_along_dim"]
    assert finding.code == "MS101"
    assert "searched mindspore.mint, mindspore.ops" in finding.message and "ops.Custom" in finding.message


def test_names_torch_does_not_have_get_no_verdict(analyze):
    assert analyze("import torch\ny = torch.not_a_real_api(x)\n") == []


def test_sparse_tensors_state_mindsporess_limits(analyze):
    found = by_api(analyze("import torch\ns = torch.sparse_coo_tensor(i, v, (3, 3))\nd = torch.sparse.mm(s, w)\n"))
    assert "COOTensor" in found["torch.sparse_coo_tensor"].message and "[N, 2]" in found["torch.sparse_coo_tensor"].message
    assert found["torch.sparse.mm"].code == "MS102" and "densify" in found["torch.sparse.mm"].message
    assert "SparseTensorDenseMatmul()(a.indices, a.values, a.shape, b)" in found["torch.sparse.mm"].message


def test_to_sparse_on_a_tensor(analyze):
    text = "import torch\ndef f(x: torch.Tensor):\n    return x.to_sparse_csr()\n"
    (finding,) = [f for f in analyze(text) if f.torch_api == "torch.Tensor.to_sparse_csr"]
    assert finding.mindspore_api == "mindspore.Tensor.to_csr" and "int32" in finding.message


def test_backend_changes_the_finding(analyze):
    text = "import torch\nact = torch.nn.GELU()\n"
    (ascend,) = analyze(text, backend="ascend")
    (cpu,) = analyze(text, backend="cpu")
    assert (ascend.code, ascend.mindspore_api) == ("MS103", "mindspore.mint.nn.GELU")
    # On CPU mint.nn.GELU has no kernel: nn.GELU, which needs approximate=False, which the fix
    # writes (run on both packages: tests/equivalence/test_callforms.py).
    assert (cpu.code, cpu.mindspore_api) == ("MS103", "mindspore.nn.GELU") and "approximate=False" in cpu.message
    assert cpu.fixes[0].safety == "safe" and any("approximate=False" in e.new_text for e in cpu.fixes[0].edits)


def test_version_changes_the_finding(analyze):
    text = "import torch\nact = torch.nn.GELU()\n"
    (old,) = analyze(text, target_version="2.4")
    assert old.code == "MS102" and old.mindspore_api == "mindspore.nn.GELU"


def test_a_training_step(analyze):
    text = (
        "import torch\n"
        "def train(model, data, target):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    criterion = torch.nn.CrossEntropyLoss()\n"
        "    optimizer.zero_grad()\n"
        "    loss = criterion(model(data), target)\n"
        "    loss.backward()\n"
        "    optimizer.step()\n"
    )
    found = by_api(analyze(text))
    assert {"torch.optim.Optimizer.zero_grad", "torch.optim.Optimizer.step", "torch.Tensor.backward"} <= set(found)
    assert "value_and_grad" in found["torch.Tensor.backward"].message
    assert "optimizer(grads)" in found["torch.optim.Optimizer.step"].message


def test_a_scheduler_step_is_not_an_optimizer_step(analyze):
    # yolov5 and basicsr step their schedulers: the innermost namespace base judges the method.
    code = (
        "import torch\n"
        "from torch.optim import lr_scheduler\n"
        "def train(model):\n"
        "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
        "    scheduler = lr_scheduler.LambdaLR(optimizer, lr_lambda=lambda e: 0.9)\n"
        "    optimizer.step()\n"
        "    scheduler.step()\n"
    )
    steps = [f for f in analyze(code) if f.torch_api == "torch.optim.Optimizer.step"]
    assert [f.span.start_line for f in steps] == [5]
