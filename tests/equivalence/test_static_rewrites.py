"""Static-shape rewrites (attached to MS201/MS202): before and after compute the same thing.

The original (a boolean-mask selection, masked_select or nonzero feeding a reduction or a count)
runs in torch 2.13 or mindspore 2.10 (dynamic shapes run on CPU); msport's rewrite runs in
mindspore 2.10, PyNative and mindspore.jit, and in torch for torch originals. Inputs include
masks that select nothing (the mean is NaN on both sides) and infinities in masked-out places
(which a product with the mask would turn into NaN)."""

import pytest

from msport.analysis.findings import Safety

from .porting import Case, failures, port, run_all

TORCH = "import torch\n\n\n"
MINDSPORE = "import mindspore as ms\nfrom mindspore import ops\n\n\n"


def torch_function(body: str) -> str:
    return f"{TORCH}def f(x: torch.Tensor, y: torch.Tensor):\n{body}\n"


def ms_function(body: str) -> str:
    return f"{MINDSPORE}def f(x: ms.Tensor, y: ms.Tensor):\n{body}\n"


def inputs(*pairs):
    return [{"x": ["float32", list(a)], "y": ["float32", list(b)]} for a, b in pairs]


SAME = inputs(((3, 4), (3, 4)), ((2, 3, 5), (2, 3, 5)), ((7,), (7,)))
BROADCAST = inputs(((3, 4), (4,)), ((2, 3, 5), (3, 1)))
#: x = [inf, -inf, 1, 2]-like rows: the infinities sit where y <= 0, outside the mask.
INFINITIES = [{"x": ["float32", [[float("inf"), 1.0, -float("inf"), 2.0]] * 2, "value"],
               "y": ["float32", [[-1.0, 1.0, -1.0, 1.0]] * 2, "value"]}]
EMPTY = [{"x": ["float32", [[1.0, 2.0], [3.0, 4.0]], "value"], "y": ["float32", [[-1.0, -2.0], [-3.0, -4.0]], "value"]}]

#: (id, original, expected safety, inputs, framework, check dtypes)
SPECS = [
    ("mask-index-sum", torch_function("    return x[x > 0].sum()"), Safety.SAFE, SAME, "torch", True),
    ("mask-index-sum-other-mask", torch_function("    return x[y > 0].sum()"), Safety.UNSAFE, SAME + INFINITIES, "torch", True),
    ("mask-index-mean", torch_function("    return x[x > 0.5].mean()"), Safety.SAFE, SAME + EMPTY, "torch", True),
    ("mask-index-negated-mean", torch_function("    return x[~(x > 0)].mean()"), Safety.SAFE, SAME, "torch", True),
    ("mask-index-torch-sum", torch_function("    return torch.sum(x[x < 0])"), Safety.SAFE, SAME, "torch", True),
    ("masked-select-sum", torch_function("    return torch.masked_select(x, y > 0).sum()"), Safety.SAFE,
     SAME + BROADCAST + INFINITIES, "torch", True),
    ("masked-select-method-sum", torch_function("    return x.masked_select(y > 0).sum() * 2"), Safety.SAFE, SAME + BROADCAST, "torch", True),
    ("masked-select-mean-same-shape", torch_function("    return x.masked_select(x > 0).mean()"), Safety.SAFE, SAME + EMPTY, "torch", True),
    ("masked-select-mean", torch_function("    return torch.masked_select(x, y > 0).mean()"), Safety.UNSAFE, SAME, "torch", True),
    ("nonzero-len-divides", torch_function("    return x.sum() / len(torch.nonzero(y > 0))"), Safety.SAFE, SAME, "torch", True),
    ("nonzero-count-name", torch_function("    num_pos = torch.nonzero(x > 0).shape[0]\n    return (x * y).sum() / num_pos"),
     Safety.SAFE, SAME, "torch", True),
    ("nonzero-size-as-number", torch_function("    return torch.nonzero(x > 0).size(0)"), Safety.UNSAFE, SAME, "torch", False),
    ("nonzero-of-values", torch_function("    return x.sum() * len(torch.nonzero(y))"), Safety.SAFE,
     [{"x": ["float32", [2, 3]], "y": ["float32", [[0.0, 1.5, 0.0], [2.0, 0.0, -1.0]], "value"]}], "torch", True),
    ("ms-mask-index-sum", ms_function("    return x[x > 0].sum()"), Safety.SAFE, SAME, "mindspore", True),
    ("ms-masked-select-sum", ms_function("    return ops.masked_select(x, y > 0).sum()"), Safety.SAFE, SAME + BROADCAST, "mindspore", True),
    ("ms-masked-select-mean", ms_function("    return ops.masked_select(x, x > 0).mean()"), Safety.SAFE, SAME, "mindspore", True),
    ("ms-nonzero-count", ms_function("    return x.sum() / ops.nonzero(y > 0).shape[0]"), Safety.SAFE, SAME, "mindspore", True),
]


@pytest.fixture(scope="module")
def ported():
    ports, cases = {}, []
    for case_id, source, _safety, case_inputs, framework, check_dtype in SPECS:
        fixed = port(source, "MS2", unsafe=True)
        ports[case_id] = fixed
        runs = ("mindspore", "torch") if framework == "torch" else ("mindspore",)
        cases.append(Case(case_id, source, fixed.text, ["x", "y"], case_inputs, framework, runs, check_dtype))
    return ports, run_all(cases)


@pytest.mark.parametrize("spec", SPECS, ids=[s[0] for s in SPECS])
def test_rewrite_is_applied_with_the_expected_safety(ported, spec):
    case_id, source, safety = spec[:3]
    fixed = ported[0][case_id]
    assert fixed.text != source, "msport offered no static rewrite"
    assert fixed.safeties == [safety], (fixed.codes, fixed.safeties)
    for construct in ("nonzero", "masked_select", "[x", "[y", "[~"):
        assert construct not in fixed.text.split("def f", 1)[1], fixed.text


@pytest.mark.parametrize("spec", SPECS, ids=[s[0] for s in SPECS])
def test_rewritten_code_computes_the_same(ported, spec):
    problem = failures(ported[1][spec[0]])
    assert problem is None, problem
