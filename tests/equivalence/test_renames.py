"""API renames: every rename msport offers as safe (rules/proven_renames.toml) computes the same.

Each entry is re-run here the way tools/prove_renames.py proved it: a torch snippet with the
recorded call, ported by msport's own rename fix (MS103, backend cpu), the torch original in
torch 2.13 and the port in mindspore 2.10 (PyNative and mindspore.jit), two draws of random
inputs, equal values (1e-5) and dtypes."""

import pytest

from msport.analysis.findings import Safety
from msport.analysis.fixes import apply_fix
from msport.knowledge.loader import read_toml
from msport.knowledge.proven import load_proven

from .porting import ANALYZER, run_cases, settings
import prove_renames  # noqa: E402,I100  (tools/, put on the path by .porting)

ENTRIES = read_toml(prove_renames.OUT).get("proven", [])
CPU = settings(backend="cpu")


def entry_id(entry):
    return f"{entry['torch']}({entry['call']}) -> {entry['mindspore']}"


@pytest.fixture(scope="module")
def runs():
    """entry id -> (the port msport writes, its fix's safety, the run's result)."""
    cases, ports = [], {}
    for entry in ENTRIES:
        source, inputs = prove_renames.call_snippet(entry["torch"], entry["call"])
        result = ANALYZER.analyze(source, CPU)
        finding = next((f for f in result.findings if f.code == "MS103" and f.torch_api == entry["torch"] and f.fixes), None)
        if finding is None:  # the rules changed: msport no longer offers this rename
            ports[entry_id(entry)] = (None, None)
            continue
        fix = result.complete(finding.fixes[0])
        ports[entry_id(entry)] = (finding.mindspore_api, fix.safety)
        cases.append(prove_renames.rename_case(entry_id(entry), source, apply_fix(source, fix), inputs))
    results = run_cases(cases)
    not_run = {"ok": False, "detail": "not run: msport offers no such rename any more (rerun tools/prove_renames.py)"}
    return {key: (*ports[key], results.get(key, not_run)) for key in ports}


def test_at_least_fifty_renames_are_proven():
    pairs = {(e["torch"], e["mindspore"]) for e in ENTRIES}
    assert len(pairs) >= 50, len(pairs)
    assert set(load_proven()) == pairs


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_proven_rename_is_what_msport_writes_and_marks_safe(runs, entry):
    target, safety, _ = runs[entry_id(entry)]
    assert target == entry["mindspore"]
    assert safety == Safety.SAFE


@pytest.mark.parametrize("entry", ENTRIES, ids=entry_id)
def test_proven_rename_computes_the_same(runs, entry):
    result = runs[entry_id(entry)][2]
    assert result["ok"], result["detail"]
