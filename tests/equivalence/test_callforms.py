"""Argument rewrites: every call form msport proves (rules/proven_callforms.toml) computes the same.

The prover's matrix is re-run here for every proven (form, torch API, target): each call shape
(positional, keyword, shuffled, defaults omitted, variables) of the form's example, ported by
msport's own fix (the rename and the rewrite, backend cpu), the torch original in torch 2.13 and
the port in mindspore 2.10 (PyNative and mindspore.jit, twice in a row), equal values, dtypes
and shapes. Each call shape msport calls proven must run equal, and msport's fix for it must be
the safe one."""

import pytest

from msport.analysis.findings import Safety
from msport.knowledge.callforms import default_callforms, load_callforms

from .porting import ANALYZER, run_cases, settings
import prove_callforms  # noqa: E402,I100  (tools/, put on the path by .porting)

CPU = settings(backend="cpu", target_version="2.10")
PROVEN = load_callforms().proven


@pytest.fixture(scope="module")
def matrix():
    """case id -> (what it proves, the fix's safety, the run's result), for proven triples."""
    import json

    from msport.knowledge import default_knowledge

    knowledge = default_knowledge()
    probe = json.loads(prove_callforms.PROBE.read_text(encoding="utf-8"))
    cases, meaning = [], {}
    for form in default_callforms().forms:
        if form.verdict != "rewrite":
            continue
        more, what = prove_callforms.cases_for(form, knowledge, probe, ANALYZER, CPU)
        for case in more:
            info = what[case["id"]]
            proven = PROVEN.get((info["form"], info["torch"], info["mindspore"]), frozenset())
            if proven and set(info["seen"]) <= proven:
                cases.append(case)
                meaning[case["id"]] = info
    results = run_cases(cases)
    safety = {}
    for case in cases:
        info = meaning[case["id"]]
        source = case["original"]["code"]
        result = ANALYZER.analyze(source, CPU)
        finding = next(f for f in result.findings if f.torch_api == info["torch"] and f.fixes)
        # A call may match more than one form (relu6(input=x, inplace=True): inplace= dropped
        # and input= renamed): its fix is safe only when every one is proven for its shapes.
        judged = prove_callforms.judge_source(source, info["torch"], knowledge)
        info["all_proven"] = all(set(judged.shapes) <= PROVEN.get((f.id, info["torch"], info["mindspore"]), frozenset())
                                 for f in judged.forms)
        safety[case["id"]] = finding.fixes[0].safety
    return {key: (meaning[key], safety[key], results[key]) for key in meaning}


def test_every_proven_triple_is_rerun(matrix):
    rerun = {(i["form"], i["torch"], i["mindspore"]) for i, _, _ in matrix.values()}
    assert rerun == set(PROVEN)
    assert len(PROVEN) >= 60


def test_the_matrix_covers_several_call_shapes(matrix):
    shapes = {i["shape"] for i, _, _ in matrix.values()}
    assert {"positional", "keyword", "shuffled", "defaults", "variables"} <= shapes


def test_proven_rewrites_compute_the_same_and_are_offered_as_safe(matrix):
    # A call shape torch itself rejects (torch.arange(start=5)) proves nothing either way; the
    # prover leaves it out too.
    rejected = {key for key, (_, _, result) in matrix.items() if result["detail"].startswith("the original raised")}
    assert len(rejected) < len(matrix) / 10
    failed = [f"{key}: {result['detail']}" for key, (_, _, result) in matrix.items() if not result["ok"] and key not in rejected]
    unsafe = [key for key, (_, safety, _) in matrix.items() if safety != Safety.SAFE]
    assert failed == []
    # Safe exactly when every form the call matches is proven for the shapes it is written in.
    assert [key for key in unsafe if matrix[key][0]["all_proven"] and key not in rejected] == []
    assert all(safety != Safety.SAFE for info, safety, _ in matrix.values() if not info["all_proven"])
    assert len(unsafe) < len(matrix) / 2
