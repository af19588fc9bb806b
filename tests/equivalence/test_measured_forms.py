"""Calls judged per form where the tables say only "behaves differently" (rules/callforms.toml):
F.pad -> ops.pad by its mode (pad-mode-*), x.to(...) -> mindspore.Tensor.to by its first argument
(to-*). What the forms' messages state is run here on the real packages (torch 2.13, mindspore
2.10 CPU, one child process), and msport's verdict follows the call."""

import pytest

from .porting import ANALYZER, run_cases, settings

PAD = {3: "(1, 2)", 4: "(1, 2, 2, 1)", 5: "(1, 1, 1, 1, 1, 1)"}
SHAPES = {3: [2, 4, 5], 4: [1, 2, 4, 5], 5: [1, 1, 3, 4, 5]}


def case(mode, dims):
    keyword = f", mode='{mode}'" if mode else ""
    torch_code = f"import torch.nn.functional as F\ndef f(x):\n    return F.pad(x, {PAD[dims]}{keyword})\n"
    ms_code = f"import mindspore.ops as ops\ndef f(x):\n    return ops.pad(x, {PAD[dims]}{keyword})\n"
    return {"id": f"{mode}-{dims}d", "original": {"framework": "torch", "code": torch_code},
            "fixed": {"framework": "mindspore", "code": ms_code, "modes": ["pynative"]}, "args": ["x"],
            "inputs": [{"x": ["float32", SHAPES[dims], "normal"]}]}


EQUAL = [(None, 3), (None, 4), (None, 5)] + [(m, d) for m in ("constant", "reflect", "replicate", "circular") for d in (3, 4)] \
    + [("replicate", 5), ("circular", 5), ("constant", 5)]


#: x.to(...) calls mindspore.Tensor.to takes as PyTorch does (the to-* forms), and one it raises on.
TO_EQUAL = {"dtype": "x.to({t}.float16)", "dtype keyword": "x.to(dtype={t}.int64)", "other tensor": "x.to(y)",
            "device of a tensor": "x.to(y.device)", "cpu": "x.to('cpu')", "copy": "x.to({t}.float16, copy=True)",
            "non_blocking": "x.to({t}.float16, non_blocking=True)", "type(dtype)": "x.type({t}.int32)"}


def to_case(name, call):
    torch_code = f"import torch\ndef f(x, y):\n    return {call.format(t='torch')}\n"
    ms_code = f"import mindspore\ndef f(x, y):\n    return {call.format(t='mindspore')}\n"
    return {"id": f"to {name}", "original": {"framework": "torch", "code": torch_code},
            "fixed": {"framework": "mindspore", "code": ms_code, "modes": ["pynative"]}, "args": ["x", "y"],
            "inputs": [{"x": ["float32", [2, 3], "normal"], "y": ["int32", [2], "int"]}]}


#: x.scatter_(...) -> ops.tensor_scatter_elements (rules/curated/measured.toml): equal without reduce
#: and with reduction='add'; 'multiply' raises on CPU.
SCATTER = {"plain": ("", ""), "add": (", reduce='add'", ", reduction='add'"), "multiply": (", reduce='multiply'", ", reduction='multiply'")}


def scatter_case(name):
    torch_kw, ms_kw = SCATTER[name]
    torch_code = f"import torch\ndef f(x, y):\n    i = torch.tensor([[0, 1], [2, 0], [1, 1]])\n    x = x * 1\n    x.scatter_(1, i, y{torch_kw})\n    return x\n"
    ms_code = ("import mindspore\nimport mindspore.ops as ops\ndef f(x, y):\n    i = mindspore.Tensor([[0, 1], [2, 0], [1, 1]])\n"
               f"    return ops.tensor_scatter_elements(x, i, y, axis=1{ms_kw})\n")
    return {"id": f"scatter {name}", "original": {"framework": "torch", "code": torch_code},
            "fixed": {"framework": "mindspore", "code": ms_code, "modes": ["pynative"]}, "args": ["x", "y"],
            "inputs": [{"x": ["float32", [3, 4], "normal"], "y": ["float32", [3, 2], "normal"]}]}


#: rules/curated/layers.toml: MindSpore 2.10's Conv1d and Conv1dTranspose default to pad_mode='same'
#: and has_bias=False (their real signatures; f returns 1 where both hold, on both sides).
SIGNATURES = {"id": "conv1d defaults", "original": {"framework": "torch", "code": "import torch\ndef f(x):\n    return torch.ones(2)\n"},
              "fixed": {"framework": "mindspore", "modes": ["pynative"], "code": (
                  "import inspect\nimport mindspore\n"
                  "def f(x):\n    out = []\n"
                  "    for layer in (mindspore.nn.Conv1d, mindspore.nn.Conv1dTranspose):\n"
                  "        p = inspect.signature(layer.__init__).parameters\n"
                  "        out.append(float(p['pad_mode'].default == 'same' and p['has_bias'].default is False))\n"
                  "    return mindspore.Tensor(out, mindspore.float32)\n")},
              "args": ["x"], "inputs": [{"x": ["float32", [1], "normal"]}]}


@pytest.fixture(scope="module")
def runs():
    return run_cases([case(m, d) for m, d in EQUAL + [("reflect", 5)]]
                     + [to_case(n, c) for n, c in TO_EQUAL.items()] + [to_case("cuda", "x.to('cuda')"), to_case("type name", "x.type('torch.FloatTensor')")]
                     + [scatter_case(n) for n in SCATTER] + [SIGNATURES])


@pytest.mark.parametrize("name", ["plain", "add"])
def test_scatter_without_reduce_or_adding_is_equal(runs, name):
    result = runs[f"scatter {name}"]
    assert result["ok"], result["detail"]


def test_scatter_multiplying_raises_on_cpu(runs):
    result = runs["scatter multiply"]
    assert not result["ok"] and "raised" in result["detail"], result["detail"]


def test_conv1d_defaults_the_curated_notes_state(runs):
    result = runs["conv1d defaults"]
    assert result["ok"], result["detail"]


@pytest.mark.parametrize("name", sorted(TO_EQUAL))
def test_tensor_to_calls_the_forms_call_equal_are_equal(runs, name):
    result = runs[f"to {name}"]
    assert result["ok"], result["detail"]


def test_tensor_to_a_cuda_device_raises_on_mindspore(runs):
    result = runs["to cuda"]
    # torch CPU builds raise too: what the form states is MindSpore's ValueError
    assert not result["ok"] and "ValueError" in result["detail"] or "original raised" in result["detail"], result["detail"]


def test_tensor_to_verdict_follows_its_first_argument():
    source = ("import torch\n\n"
              "def f(y, d):\n"
              "    x = torch.zeros(3)\n"
              "    a = x.to(torch.float16)\n"
              "    b = x.to(y.device)\n"
              "    c = x.to('cuda')\n"
              "    e = x.to(d)\n"
              "    return a, b, c, e\n")
    found = {f.span.start_line: f for f in ANALYZER.analyze(source, settings(backend="cpu")).findings if f.torch_api == "torch.Tensor.to"}
    assert [found[line].code for line in sorted(found)] == ["MS103", "MS103", "MS102", "MS102"]
    assert "ValueError" in found[max(found) - 1].message and "where d holds a device, delete the move" in found[max(found)].message


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


def test_tensor_type_with_a_torch_type_name_raises_on_mindspore(runs):
    result = runs["to type name"]
    assert not result["ok"] and "TypeError" in result["detail"], result["detail"]


def test_tensor_type_verdict_follows_its_argument():
    source = ("import torch\n\n"
              "def f():\n"
              "    x = torch.zeros(3)\n"
              "    return x.type(torch.float16), x.type('torch.FloatTensor'), x.type()\n")
    found = sorted((f.span.start_col, f.code) for f in ANALYZER.analyze(source, settings(backend="cpu")).findings
                   if f.torch_api == "torch.Tensor.type")
    assert [code for _, code in found] == ["MS103", "MS102", "MS102"]
