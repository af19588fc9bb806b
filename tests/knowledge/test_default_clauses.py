"""A divergent rule's note about a parameter's default says nothing about a call that passes that
parameter itself: the clause goes from the call's message where passing the parameter was run on
both packages with equal results (rules/proven_defaults.toml), and a call whose every noted
difference goes is MS103. The last test re-runs the prover's cases on the real packages (one child
process), and a call that leaves the default out, to show the clause is needed there."""

import sys
from pathlib import Path

import pytest

from msport.knowledge.default_clauses import load_default_clauses

ROOT = Path(__file__).resolve().parents[2]
HEADER = "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\nx = torch.rand(3, 3)\n"


def findings(body, backend="cpu"):
    from msport.analysis import Analyzer, Settings

    settings = Settings().merged({"backend": backend}, "test")
    result = Analyzer().analyze(HEADER + body, settings)
    return [f for f in result.findings if f.code in ("MS101", "MS102", "MS103") and f.span.start_line >= 4]


def only(body, api, backend="cpu"):
    (finding,) = [f for f in findings(body, backend) if f.torch_api == api]
    return finding


def test_the_clause_rules_load_and_read_the_table_clauses():
    known = load_default_clauses()
    assert known.problems == () and known.proven
    clauses = known.clauses("parameter keepdim is named keepdims; the default of dim differs")
    assert [c.params for c in clauses] == [(), ("dim",)]
    assert clauses[0].renamed == (("keepdim", "keepdims"),)
    (clause,) = known.clauses("the default of dilation, padding and stride differs")
    assert clause.params == ("dilation", "padding", "stride")
    (clause,) = known.clauses("the default of dim is None in PyTorch and () in MindSpore")
    assert clause.params == ("dim",)
    (clause,) = known.clauses("momentum has the opposite meaning in MindSpore")
    assert clause.params == () and clause.renamed == ()


@pytest.mark.parametrize("backend", ["ascend", "cpu"])
def test_a_table_clause_measured_wrong_goes_from_every_call(backend):
    # torch.amax and mint.amax both reduce every dimension when dim is left out (measured).
    for body in ("a = torch.amax(x, dim=1)\n", "a = torch.amax(x, 1, True)\n", "a = torch.amax(x)\n"):
        finding = only(body, "torch.amax", backend)
        assert finding.code == "MS103" and "defaults of dim act alike" in finding.message, body


def test_a_default_measured_to_differ_says_what_leaving_it_out_does():
    # (torch.aminmax has a curated note now, which says the way out: tests/knowledge/test_audit6.py)
    finding = only("a = x.aminmax()\n", "torch.Tensor.aminmax")
    assert finding.code == "MS102" and "shape (3,) instead of ()" in finding.message


def test_the_rest_of_the_note_stays_and_says_what_the_call_settles():
    # F.pad's mode is judged per call (pad-mode-* forms): a variable mode keeps it divergent.
    finding = only("y = F.pad(x, (1, 1), mode=m, value=0.5)\n", "torch.nn.functional.pad")
    assert finding.code == "MS102"
    assert "mode is held in a variable" in finding.message and "mode behaves differently" not in finding.message
    # A divergent finding says what differs: defaults measured to act alike are not part of it.
    assert "the default of value differs" not in finding.message and "act alike" not in finding.message
    # A rename the rule holds is no difference of this call (input is passed by position).
    assert "named input_x" not in finding.message


def test_pooling_given_its_stride_is_equivalent_and_without_it_is_divergent():
    given = only("y = F.avg_pool2d(x, 2, 2)\n", "torch.nn.functional.avg_pool2d")
    assert given.code == "MS103" and given.mindspore_api == "mindspore.ops.avg_pool2d"
    for body in ("y = F.avg_pool2d(x, 2)\n", "y = F.avg_pool2d(x, 2, stride=None)\n"):
        finding = only(body, "torch.nn.functional.avg_pool2d")
        assert finding.code == "MS102" and "shape (1, 3, 7, 7) instead of (1, 3, 4, 4)" in finding.message, body
        assert "pass stride explicitly" in finding.message


def test_an_unproven_parameter_keeps_its_clause():
    # BatchNorm's momentum means the opposite in MindSpore: passing it does not settle it. A
    # literal value is rewritten as 1 - value by a proven call form (MS103); a variable is not.
    finding = only("m = 0.1\nbn = nn.BatchNorm1d(8, momentum=m)\n", "torch.nn.BatchNorm1d")
    assert finding.code == "MS102" and "momentum=1 - m" in finding.message and "passes" not in finding.message
    literal = only("bn = nn.BatchNorm1d(8, momentum=0.1)\n", "torch.nn.BatchNorm1d")
    assert literal.code == "MS103" and "1 - 0.1" in literal.message


def test_a_keyword_rename_form_does_not_fire_on_a_positional_value():
    # x.amax(dim=1) raises on MindSpore 2.10 (measured: the prover's keyword case), x.amax(1) runs.
    assert [f for f in findings("a = x.amax(1)\n") if f.torch_api == "torch.Tensor.amax"] == []
    keyword = only("a = x.amax(dim=1)\n", "torch.Tensor.amax")
    # Equivalent once dim= is written axis= (x.amax(axis=1) equals, measured); that rewrite is
    # not in the prover's proofs, so its fix stays unsafe.
    assert keyword.code == "MS103" and "axis=1" in keyword.message
    assert keyword.fixes and keyword.fixes[0].safety == "unsafe"


def test_every_proven_parameter_reruns_on_the_real_packages():
    """The prover's cases for every proven (API, target, parameter), first value per shape, and
    a pooling call without its stride (differs: the clause is needed there), in one child."""
    sys.path.insert(0, str(ROOT / "tools"))
    import prove_default_keywords as prover
    from equivalence_runner import run_cases

    built, meaning = prover.cases()
    proven = load_default_clauses().proven
    sample, seen = [], set()
    for case in built:
        torch_name, target, param, shape = meaning[case["id"]]
        if shape in proven.get((torch_name, target, param), ()) and (torch_name, param, shape) not in seen:
            seen.add((torch_name, param, shape))
            sample.append(case)
    assert len(sample) >= 18
    torch_source, ms_source = prover.sources("torch.nn.functional.avg_pool2d", "mindspore.ops.avg_pool2d", "2", ["x4"], {})
    legend = {"a0": prover.LEGEND["x4"]}
    without = {"id": "avg_pool2d(x, 2) without stride", "original": {"framework": "torch", "code": torch_source},
               "fixed": {"framework": "mindspore", "code": ms_source}, "args": ["a0"], "inputs": [legend]}
    results = run_cases(sample + [without])
    failed = {k: v["detail"] for k, v in results.items() if not v["ok"] and k != without["id"]}
    assert failed == {}
    assert not results[without["id"]]["ok"] and "shape" in results[without["id"]]["detail"]


def test_a_settled_call_passing_arguments_the_prover_did_not_run_stays_divergent():
    # padding=[1, 1] raises on mindspore.ops.avg_pool2d (it wants an int or 4 values, measured):
    # the kernel/stride proof says nothing of it.
    finding = only("y = F.avg_pool2d(x, kernel_size=3, stride=2, padding=[1, 1], count_include_pad=False)\n",
                   "torch.nn.functional.avg_pool2d")
    assert finding.code == "MS102" and "also passes padding," in finding.message
    run = only("y = F.avg_pool2d(x, kernel_size=3, stride=1, count_include_pad=False)\n", "torch.nn.functional.avg_pool2d")
    assert run.code == "MS103"
