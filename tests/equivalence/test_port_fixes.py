"""The fixes that finish a port (rules/port_fixes.toml), each executed on both packages: a torch
snippet, ported by msport's own fix-all (safe and unsafe fixes, backend cpu), run in torch 2.13
and in mindspore 2.10 (PyNative and mindspore.jit), with equal results required.

Every fix kind and call form a safe fix claims is here; an unsafe fix runs too, on a form where
it happens to agree (its title says when it does not). Random initialisers cannot agree value by
value: their cases compare the statistics of a large draw (mean, standard deviation, range) with
a tolerance that a wrong distribution or scale would exceed."""

import pytest

from msport.analysis.findings import Safety

from .porting import Case, failures, port, run_all

CELL = '''import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(4, 3)
        self.b = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 2))

{body}
'''

#: id -> (torch source defining f, input names, input sets, the title msport's fix must have, options)
CASES = {
    "size()": ('''import torch
def f(x: torch.Tensor):
    b, c, h = x.size()
    return x.reshape(b, c * h) + x.size()[0]
''', "Replace .size() with .shape"),
    "size(d)": ('''import torch
def f(x: torch.Tensor):
    return x.reshape(x.size(0), -1) * x.size(-1) + x.size(dim=1)
''', "Replace .size(0) with .shape[0]"),
    "repeat(a, b)": ('''import torch
def f(x: torch.Tensor):
    return x.repeat(2, 1, 1), x.repeat(1, 2, 3, 1)
''', "Replace .repeat(...) with .tile(...)"),
    "repeat(tuple)": ('''import torch
def f(x: torch.Tensor):
    return x.repeat((2, 2, 1)), x.repeat([1, 2, 2]), x.repeat(x.shape), x[0, 0].repeat(3)
''', "Replace .repeat(...) with .tile(...)"),
    "detach()": ('''import torch
def f(x: torch.Tensor):
    y = x * 2
    return y.detach() + x.detach().abs()
''', "Replace .detach() with ops.stop_gradient(...)"),
    "triu_/tril_": ('''import torch
def f(x: torch.Tensor):
    m = x * 1.0
    m.triu_(1)
    n = x + 0
    n.tril_()
    return m, n
''', "Rebind m to m.triu(...)"),
    "cpu()/cuda() removed": ('''import torch
def f(x: torch.Tensor):
    y = x.cpu() * 2
    return y.detach().cpu() + 1
''', "Remove .cpu()"),
    "to(device)": ('''import torch
def f(x: torch.Tensor):
    device = "cpu"
    y = x.to(device) + x.to(x.device)
    return y.to("cpu", non_blocking=True) * 2
''', "Remove .to(device)"),
    "to(dtype)": ('''import torch
def f(x: torch.Tensor):
    return x.to(torch.float64) + 1, x.to(dtype=torch.float16)
''', "Replace .to(torch.float64) with .astype(torch.float64)"),
    "no_grad block": ('''import torch
from torch import nn


class Net(nn.Module):
    def forward(self, x):
        with torch.no_grad():
            target = x * 2
            scale = x.abs().max()
        return x + target / scale


def f(x: torch.Tensor):
    return Net()(x)
''', "Remove the torch.no_grad() block and keep target, scale out of the gradient"),
    "no_grad in a function": ('''import torch


def f(x: torch.Tensor):
    with torch.no_grad():
        y = x * 3
    return y + 1
''', "Remove the torch.no_grad() block: MindSpore computes gradients only inside mindspore.grad"),
    "super().forward": ('''import torch
from torch import nn


class Base(nn.Module):
    def forward(self, x):
        return x * 2


class Child(Base):
    def forward(self, x):
        return super().forward(x) + self.extra(x)

    def extra(self, x):
        return x - 1


def f(x: torch.Tensor):
    return Child()(x)
''', "Rename forward to construct"),
    "sdpa causal": ('''import torch
import torch.nn.functional as F
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor):
    return F.scaled_dot_product_attention(q, k, v, is_causal=True)
''', "Call scaled_dot_product_attention", {"qkv": True}),
    "sdpa masks": ('''import torch
import torch.nn.functional as F
def f(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, m: torch.Tensor):
    bias = (m.float() - 1.0) * 1e4
    return (F.scaled_dot_product_attention(q, k, v, attn_mask=m), F.scaled_dot_product_attention(q, k, v, bias, 0.0),
            F.scaled_dot_product_attention(q, k, v, scale=0.3))
''', "Call scaled_dot_product_attention", {"qkv": True, "mask": True}),
}

CELL_CASES = {
    "parameters()": ("    def count(self):\n        return sum(p.numel() for p in self.parameters())",
                     "Replace .parameters() with .trainable_params()", Safety.UNSAFE),
    "named_parameters()": ("    def count(self):\n        return len([n for n, p in self.a.named_parameters() if n.endswith('weight')])",
                           "Replace .named_parameters() with .parameters_and_names()", Safety.UNSAFE),
    "state_dict()": ("    def count(self):\n        return len(self.b.state_dict())", "Replace .state_dict() with .parameters_dict()", Safety.UNSAFE),
    "modules()": ("    def count(self):\n        return len([m for m in self.modules() if isinstance(m, nn.Linear)])",
                  "Replace .modules() with the cells of .cells_and_names()", Safety.SAFE),
    "named_modules()": ("    def count(self):\n        return len(list(self.named_modules()))", "Replace .named_modules() with .cells_and_names()", Safety.SAFE),
    "children()": ("    def count(self):\n        return len(list(self.children()))", "Replace .children() with .cells()", Safety.SAFE),
    "named_children()": ("    def count(self):\n        return len([name for name, child in self.named_children()])",
                         "Replace .named_children() with .name_cells().items()", Safety.SAFE),
    "eval()/train()": ("    def count(self):\n        self.eval()\n        off = self.training\n        self.train()\n        on = self.training\n"
                       "        self.train(False)\n        return int(off) * 4 + int(on) * 2 + int(self.training)",
                       "Replace .eval() with .set_train(False)", Safety.SAFE),
}

#: Initialisers: (torch call on `w`, the statistics compared, tolerance). `w` is a 256 x 512
#: weight, so fan_in 512 and fan_out 256.
INITS = {
    "normal_": ("nn.init.normal_(w, mean=0.5, std=0.02)", "stats", 2e-3),
    "normal_ defaults": ("nn.init.normal_(w)", "stats", 2e-2),
    "trunc_normal_": ("nn.init.trunc_normal_(w, std=0.02, a=-0.04, b=0.04)", "bounded", 2e-3),
    "uniform_ symmetric": ("nn.init.uniform_(w, -0.1, 0.1)", "bounded", 2e-3),
    "constant_": ("nn.init.constant_(w, 0.7)", "bounded", 1e-6),
    "zeros_": ("nn.init.zeros_(w)", "bounded", 0.0),
    "ones_": ("nn.init.ones_(w)", "bounded", 0.0),
    "xavier_uniform_": ("nn.init.xavier_uniform_(w, gain=2.0)", "bounded", 2e-3),
    "xavier_normal_": ("nn.init.xavier_normal_(w)", "stats", 2e-3),
    "kaiming_uniform_": ("nn.init.kaiming_uniform_(w, a=math.sqrt(5))", "bounded", 2e-3),
    "kaiming_normal_ fan_out relu": ("nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')", "stats", 3e-3),
    "eye_": ("nn.init.eye_(w)", "values", 0.0),
    "orthogonal_": ("nn.init.orthogonal_(w, gain=1.5)", "gram", 1e-4),
}

INIT = '''import math
import torch
from torch import nn


class Holder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.Linear(512, 256)
        w = self.layer.weight
        {call}


def f(x: torch.Tensor):
    w = Holder().layer.weight
    {measure}
'''

MEASURES = {
    "stats": "return w.mean() + x.sum() * 0, w.std()",
    # Bounded distributions: their range too (the extremes of a normal draw are too noisy to compare).
    "bounded": "return w.mean() + x.sum() * 0, w.std(), w.min(), w.max()",
    "values": "return w * 1.0 + x.sum() * 0",
    # W W^T = gain^2 I for a wide orthogonal matrix: the values are random, their Gram matrix is not.
    "gram": "return (w @ w.t())[:8, :8] + x.sum() * 0",
}


def _inputs(options):
    if options.get("qkv"):
        sets = [{"q": ["float32", [2, 3, 5, 8]], "k": ["float32", [2, 3, 7, 8]], "v": ["float32", [2, 3, 7, 4]]},
                {"q": ["float32", [1, 2, 4, 16]], "k": ["float32", [1, 2, 4, 16]], "v": ["float32", [1, 2, 4, 16]]}]
        if options.get("mask"):
            for s in sets:
                s["m"] = ["bool", [s["q"][1][2], s["k"][1][2]]]
        return (["q", "k", "v", "m"] if options.get("mask") else ["q", "k", "v"]), sets
    return ["x"], [{"x": ["float32", [2, 3, 4]]}, {"x": ["float32", [3, 5, 2]]}]


def _ported(source):
    return port(source, "MS1", unsafe=True, backend="cpu")


@pytest.fixture(scope="module")
def ported():
    sources = {key: case[0] for key, case in CASES.items()}
    sources.update({key: CELL.format(body=body) + "\n\ndef f(x: torch.Tensor):\n    return Net().count() + x.sum() * 0\n"
                    for key, (body, *_) in CELL_CASES.items()})
    sources.update({key: INIT.format(call=call, measure=MEASURES[kind]) for key, (call, kind, _) in INITS.items()})
    return {key: (source, _ported(source)) for key, source in sources.items()}


@pytest.fixture(scope="module")
def results(ported):
    cases = []
    for key, (source, result) in ported.items():
        options = CASES[key][2] if key in CASES and len(CASES[key]) > 2 else {}
        args, inputs = _inputs(options)
        extra = {}
        if key in INITS:
            tolerance = INITS[key][2]
            extra = {"atol": tolerance, "rtol": 0.0}
        # Building and inspecting cells is eager code: it runs in PyNative, never compiled.
        modes = ("pynative",) if key in CELL_CASES or key in INITS else ("pynative", "jit")
        cases.append(Case(key, source, result.text, args, inputs, "torch", ("mindspore",), check_dtype=key not in CELL_CASES, extra=extra,
                          modes=modes))
    return run_all(cases)


@pytest.mark.parametrize("key", sorted(CASES))
def test_tensor_and_function_fixes_compute_the_same(ported, results, key):
    source, result = ported[key]
    code = [line for line in result.text.splitlines() if not line.startswith(("import torch", "from torch")) and "composed of MindSpore" not in line]
    assert "torch" not in "\n".join(code), result.text
    problem = failures(results[key])
    assert problem is None, problem + "\n" + result.text


@pytest.mark.parametrize("key", sorted(CASES))
def test_each_fix_is_offered_with_its_title(key):
    from msport.analysis.fixes import fix_all

    source, title = CASES[key][0], CASES[key][1]
    outcome = fix_all(source, _settings(), unsafe=True)
    titles = [a.title for a in outcome.applied]
    assert any(t.startswith(title) for t in titles), titles


@pytest.mark.parametrize("key", sorted(CELL_CASES))
def test_cell_method_fixes_compute_the_same(ported, results, key):
    source, result = ported[key]
    problem = failures(results[key])
    assert problem is None, problem + "\n" + result.text


@pytest.mark.parametrize("key", sorted(CELL_CASES))
def test_cell_method_fixes_have_their_safety(key):
    from msport.analysis.fixes import fix_all

    body, title, safety = CELL_CASES[key]
    outcome = fix_all(CELL.format(body=body), _settings(), unsafe=True)
    applied = [a for a in outcome.applied if a.title.startswith(title)]
    assert applied and all(a.safety == safety for a in applied), [a.title for a in outcome.applied]


@pytest.mark.parametrize("key", sorted(INITS))
def test_initialisers_draw_the_same_distribution(ported, results, key):
    source, result = ported[key]
    assert "set_data(ms_init.initializer(ms_init." in result.text, result.text
    problem = failures(results[key])
    assert problem is None, problem + "\n" + result.text


def _settings():
    from .porting import settings

    return settings(select="MS1", backend="cpu")
