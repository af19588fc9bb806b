"""Name resolution for every import and alias form, tensor-valued names and self attributes."""

import pytest


def apis(analyze, text):
    """The torch APIs the API-mapping family (MS1xx) judged."""
    return [f.torch_api for f in analyze(text) if f.code.startswith("MS1")]


@pytest.mark.parametrize(
    "imports, expr, expected",
    [
        ("import torch", "torch.cat(a)", "torch.cat"),
        ("import torch as T", "T.cat(a)", "torch.cat"),
        ("import torch.nn.functional as F", "F.interpolate(a)", "torch.nn.functional.interpolate"),
        ("from torch import nn", "nn.GELU()", "torch.nn.GELU"),
        ("from torch.nn import functional as F", "F.interpolate(a)", "torch.nn.functional.interpolate"),
        ("from torch import masked_select as msel", "msel(a, m)", "torch.masked_select"),
        ("import torch.nn", "torch.nn.GELU()", "torch.nn.GELU"),
        ("from torch.nn import *", "GELU()", "torch.nn.GELU"),
    ],
)
def test_torch_alias_forms(analyze, imports, expr, expected):
    assert apis(analyze, f"{imports}\ny = {expr}\n") == [expected]


@pytest.mark.parametrize(
    "imports, expr, expected",
    [
        ("import mindspore.ops as P", "P.Unique", "mindspore.ops.Unique"),
        ("from mindspore import ops, mint", "mint.unique", "mindspore.mint.unique"),
        ("from mindspore import ops, mint", "ops.masked_select", "mindspore.ops.masked_select"),
        ("import mindspore as ms", "ms.ops.nonzero", "mindspore.ops.nonzero"),
    ],
)
def test_mindspore_alias_forms(knowledge, imports, expr, expected):
    import ast

    from msport.analysis.names import ScopeVisitor, build_module_context, chunk_facts

    tree = ast.parse(f"{imports}\ny = {expr}\n")
    visitor = ScopeVisitor(build_module_context([chunk_facts(tree, "import")], knowledge), knowledge)
    assert visitor.qualified(tree.body[-1].value) == expected


def test_local_rebinding_shadows_an_import(analyze):
    text = "import torch\ndef f(torch):\n    return torch.cat(a)\n"
    assert apis(analyze, text) == []


def test_tensor_valued_names_resolve_methods(analyze):
    text = (
        "import torch\n"
        "def f(a):\n"
        "    x = torch.zeros(3)\n"  # constructor
        "    y = x * 2 + 1\n"  # arithmetic
        "    n = y.size(0)\n"  # method on a tensor
        "    return n\n"
    )
    found = [(f.torch_api, f.span.start_line) for f in analyze(text)]
    assert ("torch.Tensor.size", 4) in found


def test_annotated_parameter_is_a_tensor(analyze):
    text = "import torch\ndef f(t: torch.Tensor, u):\n    return t.cuda(), u.cuda()\n"
    cuda = [f for f in analyze(text) if f.torch_api == "torch.Tensor.cuda"]
    assert len(cuda) == 1 and cuda[0].span.start_col == 13


def test_forward_inputs_and_self_attributes(analyze):
    text = (
        "import torch.nn as nn\n"
        "class Net(nn.Module):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.conv = nn.Conv2d(3, 3, 3)\n"
        "    def forward(self, x):\n"
        "        y = self.conv(x)\n"  # calling a layer yields a tensor
        "        return y.size(), x.cuda()\n"
    )
    found = {f.torch_api for f in analyze(text)}
    assert {"torch.Tensor.size", "torch.Tensor.cuda", "torch.nn.Conv2d", "torch.nn.Module"} <= found


def test_user_function_sharing_an_api_name_is_not_an_api(analyze):
    text = "def cat(a):\n    return a\ny = cat(1)\n"
    assert apis(analyze, text) == []


def test_tuple_unpacking_of_a_tensor_op(analyze):
    text = "import torch\ndef f(x: torch.Tensor):\n    v, i = torch.max(x, 1)\n    return i.cuda()\n"
    assert "torch.Tensor.cuda" in apis(analyze, text)


@pytest.mark.parametrize("base", ["torch.nn.modules.loss._Loss", "torch.nn.modules.conv._ConvNd", "torch.nn.modules.batchnorm._BatchNorm"])
def test_a_private_base_of_torch_layers_makes_a_layer(analyze, base):
    """Losses subclass torch.nn.modules.loss._Loss: their forward is graph code like any layer's."""
    module, _, name = base.rpartition(".")
    text = (
        f"import torch\nfrom {module} import {name}\n"
        f"class Loss({name}):\n"
        "    def forward(self, pred, target):\n"
        "        return pred[target > 0].sum() + pred.cuda().sum()\n"
    )
    found = analyze(text)
    assert any(f.code == "MS202" for f in found)  # x[mask] in graph code
    assert any(f.torch_api == "torch.Tensor.cuda" for f in found)  # forward inputs are tensors


def test_other_torch_nn_classes_are_not_layers(analyze):
    text = (
        "import torch\nfrom torch.nn.utils.rnn import PackedSequence\n"
        "class Packed(PackedSequence):\n"
        "    def forward(self, pred, target):\n"
        "        return pred[target > 0]\n"
    )
    assert not any(f.code == "MS202" for f in analyze(text))



def test_a_long_method_chain_costs_no_more_than_its_square(analyze, monkeypatch):
    """A call infers its callee, its receiver and the project function it runs, each of which
    infers the receiver again: torchani's 16-link `.replace()` chain took over 10 minutes before
    each node was inferred once per outermost call. Counted, not timed: doubling the links costs
    about 4 times the inferences now (each link's own outermost inference walks the chain), and
    cost about 30 times before."""
    from msport.analysis.names import ScopeVisitor

    calls = []
    original = ScopeVisitor._infer

    def counted(self, node):
        calls.append(node)
        return original(self, node)

    monkeypatch.setattr(ScopeVisitor, "_infer", counted)

    def inferences(links):
        calls.clear()
        chain = "text" + "".join(f'.replace("{i}", "")' for i in range(links))
        text = ("import torch\n\n\ndef parse(text: str):\n"
                f"    parts = [p.strip() for p in {chain}.split(',')]\n"
                "    return torch.tensor([len(p) for p in parts])\n")
        assert [f.torch_api for f in analyze(text) if f.code.startswith("MS1")] == ["torch.tensor"]
        return len(calls)

    few, many = inferences(6), inferences(12)
    assert many < 6 * few, f"{few} inferences for 6 links, {many} for 12"
