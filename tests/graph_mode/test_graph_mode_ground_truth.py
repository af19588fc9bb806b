"""Ground truth from the real package: every rule of rules/graph_mode.toml has a positive that,
compiled with mindspore 2.10 on CPU, fails or differs from PyNative as the rule says, in each
capture mode whose outcome the rule states (ast, bytecode, bytecode with fullgraph=True), and a
look-alike negative that compiles and gives the PyNative result. msport reports exactly the
positives, with the severity their outcome gives, and every quick fix it offers on them turns
them into code that compiles and gives the PyNative result.

All runs happen in one subprocess (module-scoped fixture): importing mindspore and compiling
each case once per mode is the cost. MSPORT_GROUND_TRUTH_PYTHON names another interpreter to run
them with (a venv with an older mindspore: the rules were proven on 2.7.1 that way too).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import graph_mode_cases as cases  # noqa: E402

IDS = [f"{i:02d}-{c['rule']}-{'pos' if c['positive'] else 'neg'}" for i, c in enumerate(cases.CASES)]
SEVERITY = {"fails": "error", "differs": "warning", "deprecated": "warning", "costs": "info", "break": "info"}


@pytest.fixture(scope="module")
def rules():
    from msport.knowledge.graph_mode import default_graph_mode

    graph = default_graph_mode()
    assert not graph.problems, [str(p) for p in graph.problems]
    return {rule.id: rule for rule in graph.rules}


@pytest.fixture(scope="module")
def analysed():
    """msport on each case module: its MS4 findings, and the source with their fixes applied."""
    from msport.analysis import Analyzer, Settings
    from msport.analysis.fixes import apply_fix

    analyzer = Analyzer()
    out = []
    for index, case in enumerate(cases.CASES):
        text = cases.module_source(case)
        result = analyzer.analyze(text, Settings(), f"gt_{index}.py")
        findings = [f for f in result.findings if f.code.startswith("MS4")]
        fixed = text
        for finding in sorted(findings, key=lambda f: f.span.start_line, reverse=True):
            for fix in finding.fixes:
                fixed = apply_fix(fixed, result.complete(fix))
        out.append((findings, fixed if fixed != text else None))
    return out


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory, analysed):
    workdir = tmp_path_factory.mktemp("graph_mode_ground_truth")
    plan = []
    for index, case in enumerate(cases.CASES):
        kind = cases.kind(case)
        modes = case.get("modes") or (["ast", "bytecode", "fullgraph"] if case["positive"] else ["ast"])
        if kind == "script":
            modes = []
        entry = {k: case.get(k) for k in ("inputs", "observe", "summary", "grad")}
        (workdir / f"gt_{index}.py").write_text(cases.module_source(case))
        plan.append({**entry, "module": f"gt_{index}", "kind": kind, "modes": modes})
        fixed = analysed[index][1]
        if fixed is not None:
            (workdir / f"gt_{index}_fixed.py").write_text(fixed)
            plan.append({**entry, "module": f"gt_{index}_fixed", "kind": kind, "modes": ["ast"], "fixed_of": index})
    (workdir / "plan.json").write_text(json.dumps(plan))
    python = os.environ.get("MSPORT_GROUND_TRUTH_PYTHON") or sys.executable
    run = subprocess.run([python, str(HERE / "run_graph_mode_cases.py"), str(workdir)], capture_output=True, text=True, timeout=1200)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((workdir / "results.json").read_text())
    by_case, fixed = {}, {}
    for entry, result in zip(plan, results):
        if "fixed_of" in entry:
            fixed[entry["fixed_of"]] = result
        else:
            by_case[int(entry["module"].split("_")[1])] = result
    return by_case, fixed


def _errors(results):
    return [r for r in results if isinstance(r, str) and r.startswith("error:")]


def _judge(py, compiled):
    """fails, differs or same: what the compiled run did, next to PyNative's."""
    if _errors(compiled) and not _errors(py):
        return "fails"
    return "same" if compiled == py else "differs"


EXPECTED = {"fails": "fails", "differs": "differs", "costs": "same", "break": "same", "ok": "same"}


@pytest.mark.parametrize("index", range(len(cases.CASES)), ids=IDS)
def test_the_real_package_agrees(outcomes, rules, index):
    case = cases.CASES[index]
    rule = rules[case["rule"]]
    result = outcomes[0][index]
    if cases.kind(case) == "script":
        (value,) = result["py"]
        failed = isinstance(value, str) and value.startswith("error:")
        if rule.outcome == "fails":
            assert failed == case["positive"], value
            if case["positive"]:
                assert _says(value, rule.error), f"expected {rule.error!r}, got {value!r}"
        elif rule.keyword == "jit_level":
            # O2 still selects the GE backend; the deprecation is the package's own (snapshot).
            assert (value == "GE") == case["positive"], value
        else:
            assert not failed, value
        return
    py = result["py"]
    assert not _errors(py), f"PyNative itself failed: {py}"
    if not case["positive"]:
        assert _judge(py, result["ast"]) == "same", f"the look-alike differs when compiled: {py} vs {result['ast']}"
        return
    for mode, compiled in result.items():
        if mode == "py":
            continue
        expected = EXPECTED[rule.outcome_for(mode)]
        found = _judge(py, compiled)
        assert found == expected, f"{mode}: the rule says {rule.outcome_for(mode)}, the package {found}: {py} vs {compiled}"
        if mode == "ast" and expected == "fails" and rule.error:
            assert _says(_errors(compiled)[0], rule.error), f"expected {rule.error!r}, got {_errors(compiled)[0]!r}"


def _says(error: str, expected: str) -> bool:
    """Whether *error* is the rule's error: its parts in order, "..." standing for any text."""
    position = 0
    for part in expected.split("..."):
        found = error.find(part, position)
        if found < 0:
            return False
        position = found + len(part)
    return True


@pytest.mark.parametrize("index", range(len(cases.CASES)), ids=IDS)
def test_msport_flags_exactly_the_positives(analysed, rules, index):
    case = cases.CASES[index]
    rule = rules[case["rule"]]
    findings, _ = analysed[index]
    codes = {f.code for f in findings}
    allowed = set(case.get("extra", ()))
    if case["positive"]:
        assert rule.code in codes, f"expected {rule.code}, found {sorted(codes)}"
        assert codes - {rule.code} <= allowed, f"unexpected {sorted(codes - {rule.code} - allowed)}"
        severities = {f.severity.value for f in findings if f.code == rule.code}
        assert severities == {SEVERITY[rule.outcome]}, severities
    else:
        assert codes <= allowed, f"false alarm on the look-alike: {[f.message for f in findings]}"


@pytest.mark.parametrize("index", [i for i, c in enumerate(cases.CASES) if c.get("fixed")], ids=lambda i: IDS[i])
def test_every_fix_compiles_and_gives_the_pynative_result(outcomes, analysed, index):
    findings, fixed_source = analysed[index]
    assert fixed_source is not None, "msport offers no fix here any more"
    by_case, fixed = outcomes
    py = by_case[index]["py"]
    result = fixed[index]
    assert not _errors(result["ast"]), f"the fixed code fails to compile: {result['ast']}\n{fixed_source}"
    assert result["ast"] == py, f"the fixed code differs from PyNative: {result['ast']} vs {py}"
    assert result["py"] == py, "the fix changed what the code computes in PyNative"


def test_the_cases_marked_fixed_are_the_ones_msport_fixes(analysed):
    """Every fix msport offers on a case is compiled above (the cases say which they are)."""
    offered = {i for i, (_, fixed) in enumerate(analysed) if fixed is not None}
    assert offered == {i for i, c in enumerate(cases.CASES) if c.get("fixed")}


def test_every_rule_has_a_positive_and_a_negative(rules):
    positives = {c["rule"] for c in cases.CASES if c["positive"]}
    negatives = {c["rule"] for c in cases.CASES if not c["positive"]}
    assert set(rules) <= positives, sorted(set(rules) - positives)
    assert set(rules) <= negatives, sorted(set(rules) - negatives)


def test_the_snapshots_hold_the_deprecations_and_views_msport_reports():
    from msport.knowledge.graph_mode import default_graph_mode

    graph = default_graph_mode()
    newest = graph.snapshots[-1]
    assert ("mindspore.JitConfig", "jit_level", "O2", (2, 9)) in newest.deprecated
    assert ("mindspore.jit", "backend", "GE", (2, 9)) in newest.deprecated
    assert all(snapshot.jit_levels == ("O0", "O1") for snapshot in graph.snapshots)
    assert {"mindspore.mint.reshape", "mindspore.mint.t"} <= newest.view_inconsistent_apis <= graph.view_apis
    assert "sort" not in newest.statement_methods and "append" in newest.statement_methods
