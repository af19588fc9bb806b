"""Safe layer fixes stay safe next to torch containers, and init fixes on `.data` are unsafe.

A MindSpore cell in a torch container (nn.Sequential(OrderedDict([...])), a list gathered with
+= for nn.Sequential(*layers)) is not a submodule of it: the fix that puts it there is unsafe,
and the safe fix-all leaves such code computing what it computed. Run on the real packages
(torch 2.13, mindspore 2.10 CPU, one child process): the safe port equals the original, and
applying the fix msport calls unsafe alone breaks it."""

import pytest

from msport.analysis.findings import Safety
from msport.analysis.fixes import apply_fix

from .porting import ANALYZER, Case, failures, port, run_all, settings

SOURCE = '''from collections import OrderedDict
import torch
import torch.nn as nn

named = nn.Sequential(OrderedDict([("act", nn.ReLU()), ("squash", nn.Tanh())]))
layers = [nn.Tanh()]
layers += [nn.ReLU()]
gathered = nn.Sequential(*layers)


def f(x):
    return named(x), gathered(x)
'''

INIT = '''import torch
import torch.nn as nn

layer = nn.Linear(4, 3)
nn.init.zeros_(layer.bias.data)


def f(x):
    return layer.bias * 1 + x.sum()
'''

INPUTS = [{"x": ["float32", [2, 4]]}]


def unsafe_fix(source, api, text=None):
    result = ANALYZER.analyze(source, settings(backend="cpu"))
    finding = next(f for f in result.findings if f.torch_api == api and (text is None or text in source.splitlines()[f.span.start_line]))
    (fix,) = [result.complete(x) for x in finding.fixes if x.safety == Safety.UNSAFE][:1]
    return fix


@pytest.fixture(scope="module")
def runs():
    safe = port(SOURCE, "MS103", backend="cpu")
    relu = unsafe_fix(SOURCE, "torch.nn.ReLU", "OrderedDict")
    sigmoid = unsafe_fix(SOURCE, "torch.nn.ReLU", "+=")
    init = unsafe_fix(INIT, "torch.nn.init.zeros_")
    cases = [
        Case("safe port", SOURCE, safe.text, ["x"], INPUTS, "torch", ("torch",)),
        Case("cell in OrderedDict", SOURCE, apply_fix(SOURCE, relu), ["x"], INPUTS, "torch", ("torch",)),
        Case("cell gathered by +=", SOURCE, apply_fix(SOURCE, sigmoid), ["x"], INPUTS, "torch", ("torch",)),
        Case("init on .data", INIT, apply_fix(INIT, init), ["x"], INPUTS, "torch", ("torch",)),
    ]
    return safe, relu, sigmoid, init, run_all(cases)


def test_layers_going_into_a_torch_container_are_unsafe(runs):
    _, relu, sigmoid, _, _ = runs
    for fix in (relu, sigmoid):
        assert "torch container" in fix.reason


def test_the_safe_port_computes_what_the_original_did(runs):
    safe, *_, results = runs
    assert failures(results["safe port"]) is None, failures(results["safe port"])


@pytest.mark.parametrize("case", ["cell in OrderedDict", "cell gathered by +="])
def test_the_unsafe_container_fix_alone_breaks_the_code(runs, case):
    assert failures(runs[-1][case]) is not None


def test_an_init_on_data_is_unsafe_and_says_to_use_the_parameter(runs):
    init, results = runs[3], runs[-1]
    assert init.safety == Safety.UNSAFE and "layer.bias" in init.reason
    assert failures(results["init on .data"]) is not None
