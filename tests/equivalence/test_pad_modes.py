"""F.pad -> ops.pad judged per call (rules/callforms.toml, pad-mode-*): what the forms' messages
state is run here on the real packages (torch 2.13, mindspore 2.10 CPU, one child process), and
msport's verdict follows the call's mode."""

import pytest

from .porting import ANALYZER, run_cases, settings

PAD = {3: "(1, 2)", 4: "(1, 2, 2, 1)", 5: "(1, 1, 1, 1, 1, 1)"}
SHAPES = {3: [2, 4, 5], 4: [1, 2, 4, 5], 5: [1, 1, 3, 4, 5]}


def case(mode, dims):
    keyword = f", mode='{mode}'" if mode else ""
    torch_code = f"import torch.nn.functional as F\ndef f(x):\n    return F.pad(x, {PAD[dims]}{keyword})\n"
    ms_code = f"import mindspore.ops as ops\ndef f(x):\n    return ops.pad(x, {PAD[dims]}{keyword})\n"
    return {"id": f"{mode}-{dims}d", "original": {"framework": "torch", "code": torch_code},
            "fixed": {"framework": "mindspore", "code": ms_code}, "args": ["x"],
            "inputs": [{"x": ["float32", SHAPES[dims], "normal"]}], "modes": ["pynative"]}


EQUAL = [(None, 3), (None, 4), (None, 5)] + [(m, d) for m in ("constant", "reflect", "replicate", "circular") for d in (3, 4)] \
    + [("replicate", 5), ("circular", 5), ("constant", 5)]


@pytest.fixture(scope="module")
def runs():
    return run_cases([case(m, d) for m, d in EQUAL + [("reflect", 5)]])


@pytest.mark.parametrize("mode,dims", EQUAL)
def test_modes_the_forms_call_equal_are_equal(runs, mode, dims):
    result = runs[f"{mode}-{dims}d"]
    assert result["ok"], result["detail"]


def test_reflect_on_a_5d_input_raises_on_mindspore(runs):
    result = runs["reflect-5d"]
    assert not result["ok"] and result["detail"].startswith("raised"), result["detail"]


def test_the_verdict_follows_the_mode_of_the_call():
    source = ("import torch.nn.functional as F\n\n"
              "def f(x, m):\n"
              "    a = F.pad(x, (1, 1))\n"
              "    b = F.pad(x, (1, 1), mode='replicate')\n"
              "    c = F.pad(x, (1, 1), 'reflect')\n"
              "    d = F.pad(x, (1, 1), mode=m)\n"
              "    return a, b, c, d\n")
    found = {f.span.start_line: f
             for f in ANALYZER.analyze(source, settings(backend="cpu")).findings if f.torch_api == "torch.nn.functional.pad"}
    codes = [found[line].code for line in sorted(found)]
    assert codes == ["MS103", "MS103", "MS102", "MS102"], codes
    messages = [found[line].message for line in sorted(found)]
    assert all("mode behaves differently" not in m for m in messages)
    assert "5-D" in messages[2] and "variable" in messages[3]
