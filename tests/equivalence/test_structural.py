"""Structural migration: a torch model ported by fix-all (safe and unsafe fixes) runs in MindSpore
and computes what the torch model computes.

The model has no weights (so that both sides start from the same state) but uses containers
(Sequential -> SequentialCell, ModuleList -> CellList), layers held on self, functions, a
replacement (adaptive pooling) and a static rewrite (a boolean-mask mean). msport reports the
`nn.Module` base class and `forward` (MS102) without a fix so far; the test makes those two
edits itself, and only when msport has not, so that it keeps passing once msport fixes them."""

import re

import pytest

from .porting import Case, failures, port, run_all

MODEL = '''import torch
from torch import nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.ReLU(), nn.Hardswish())
        self.heads = nn.ModuleList([nn.Tanh(), nn.Hardsigmoid()])
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        y = self.body(x)
        both = torch.cat([self.heads[0](y), self.heads[1](y)], 1)
        pooled = self.pool(both)
        return pooled, both[both > 0.5].mean(), F.softmax(pooled, 1)


net = Net()


def f(x):
    return net(x)
'''

INPUTS = [{"x": ["float32", [2, 3, 4, 5]]}, {"x": ["float32", [1, 2, 6, 6]]}]


def finish_by_hand(text: str) -> str:
    """The two structural edits msport reports without a fix (see the module docstring)."""
    if "(nn.Module)" in text:
        text = text.replace("(nn.Module)", "(ms.nn.Cell)")
        if "import mindspore as ms" not in text:
            text = text.replace("import torch\n", "import torch\nimport mindspore as ms\n", 1)
    return text.replace("    def forward(self", "    def construct(self")


@pytest.fixture(scope="module")
def migrated():
    ported = port(MODEL, "MS1,MS2,MS3", unsafe=True)
    text = finish_by_hand(ported.text)
    return ported, text, run_all([Case("structural", MODEL, text, ["x"], INPUTS, "torch", ("mindspore",))])


def test_fix_all_ports_every_torch_api_the_model_uses(migrated):
    ported, text, _ = migrated
    # msport's own unsafe fixes subclass the MindSpore Cell and rename forward to construct.
    assert finish_by_hand(ported.text) == ported.text, ported.text
    assert {"MS103", "MS302", "MS202"} <= set(ported.codes)
    body = text.split("class Net", 1)[1].split("\nnet = ", 1)[0]
    # Once nothing uses them the torch imports go (MS104) and `nn`/`F` may name MindSpore's modules:
    # a name is torch's only while its import is.
    torch_roots = {root for root, statement in (("nn", "from torch import nn"), ("F", "torch.nn.functional as F"), ("torch", "import torch\n"))
                   if statement in text}
    for torch_name in ("nn.Sequential(", "nn.ModuleList(", "nn.ReLU(", "nn.Tanh(", "nn.Hardsigmoid(", "torch.cat(", "F.softmax(", "both[both"):
        if torch_name.split(".")[0] in torch_roots or "." not in torch_name:
            assert not re.search(r"(?<![\w.])" + re.escape(torch_name), body), body
    assert "SequentialCell" in body and "CellList" in body and "AdaptiveAvgPool2d" not in body


def test_migrated_model_computes_the_same_in_pynative_and_jit(migrated):
    problem = failures(migrated[2]["structural"])
    assert problem is None, problem
