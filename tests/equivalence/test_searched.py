"""MS101 by search: the counterparts tools/search_counterparts.py found and ran (rules/searched.toml).

Every entry is re-run here on the real packages (torch 2.13, mindspore 2.10 CPU, one child
process) the way the generator ran it: the shapes recorded equal are equal again and the
recorded differences differ again. msport then reports the API with the counterpart (MS103 or
a measured MS102), and an API the search did not serve stays MS101 naming what was searched."""

import pytest

from msport.knowledge.index import default_knowledge
from msport.knowledge.loader import read_toml

from .porting import ANALYZER, run_cases, settings
import search_counterparts  # noqa: E402,I100  (tools/, put on the path by .porting)

ENTRIES = read_toml(search_counterparts.OUT)


def candidate(entry) -> str:
    """The candidate as the generator ran it: a composition carries its fixed arguments."""
    return f"{entry['found']}({entry['fixed']})" if entry.get("fixed") else entry["found"]


@pytest.fixture(scope="module")
def rerun():
    cases = [c for torch, entry in ENTRIES.items() for c in search_counterparts.cases_for(torch, candidate(entry))]
    return run_cases(cases)


def test_the_search_found_counterparts():
    assert sum(1 for e in ENTRIES.values() if e["verdict"] == "equivalent") >= 10


@pytest.mark.parametrize("torch", sorted(ENTRIES))
def test_recorded_outcome_is_what_a_run_gives(rerun, torch):
    entry = ENTRIES[torch]
    judged = search_counterparts.judge(torch, candidate(entry), rerun)
    assert judged is not None, f"{entry['found']} no longer runs for {torch}"
    assert judged["verdict"] == entry["verdict"]
    assert judged["calls"] == entry["calls"]
    assert judged.get("differs", []) == entry.get("differs", [])
    assert judged.get("keywords", []) == entry.get("keywords", [])


def test_a_found_counterpart_replaces_the_missing_verdict():
    knowledge = default_knowledge()
    verdict = knowledge.verdict("torch.clamp_max", (2, 10), "ascend")
    assert (verdict.status, verdict.mindspore) == ("equivalent", "mindspore.mint.minimum")
    assert "torch.clamp_max(x, 1)" in verdict.note
    # Run on 2.10 only: an older release stays what its rules say.
    assert knowledge.verdict("torch.clamp_max", (2, 7), "ascend").mindspore != "mindspore.mint.minimum"


def test_check_reports_found_counterparts_and_what_was_searched():
    source = ("import torch\n\n"
              "def f(x, y):\n"
              "    a = x.clamp_max(y)\n"
              "    b = torch.special.expit(x)\n"
              "    return a, b, torch.frexp(x)\n")
    findings = {f.torch_api: f for f in ANALYZER.analyze(source, settings()).findings}
    method = findings["torch.Tensor.clamp_max"]
    assert (method.code, method.mindspore_api) == ("MS103", "mindspore.Tensor.minimum")
    assert all(fix.safety.value == "unsafe" for fix in method.fixes)  # only the recorded shapes ran
    expit = findings["torch.special.expit"]
    assert expit.code == "MS102" and "torch.special.expit(i) it raises" in expit.message
    frexp = findings["torch.frexp"]
    assert frexp.code == "MS101"
    assert "mindspore.numpy" in frexp.message and "synonyms" in frexp.message


def test_counterparts_under_other_names_were_found_by_their_evidence():
    """Other names than the torch API's own: torch's documented aliases (psi -> digamma), a
    spelling (broadcast_tensors -> broadcast_arrays) and a composition with a fixed argument."""
    assert (ENTRIES["torch.special.psi"]["found"], ENTRIES["torch.special.psi"]["via"]) == ("mindspore.ops.digamma", "torch alias")
    assert ENTRIES["torch.special.gammainc"]["via"] == "torch alias" and ENTRIES["torch.special.gammainc"]["verdict"] == "equivalent"
    assert ENTRIES["torch.broadcast_tensors"]["found"] == "mindspore.numpy.broadcast_arrays"
    svdvals = ENTRIES["torch.linalg.svdvals"]
    assert (svdvals["found"], svdvals["fixed"], svdvals["via"]) == ("mindspore.ops.svd", "compute_uv=False", "composition")


def test_a_composition_is_reported_with_its_call_and_no_rename():
    source = "import torch\n\ndef f(m):\n    return torch.linalg.svdvals(m)\n"
    finding = next(f for f in ANALYZER.analyze(source, settings()).findings if f.torch_api == "torch.linalg.svdvals")
    assert finding.code == "MS103" and "mindspore.ops.svd(x, compute_uv=False)" in finding.message
    assert finding.fixes == ()  # renaming to ops.svd would return (s, u, v)


def test_a_keyword_the_counterpart_names_otherwise_is_judged_per_call():
    """torch.take(x, index=i): MindSpore's take raises for that keyword (run by the search);
    by position it is equal."""
    source = ("import torch\n\n"
              "def f(x, i):\n"
              "    a = torch.take(x, i)\n"
              "    return a, torch.take(x, index=i)\n")
    findings = sorted((f for f in ANALYZER.analyze(source, settings(backend="cpu")).findings if f.torch_api == "torch.take"),
                      key=lambda f: f.span.start_line)
    assert [f.code for f in findings] == ["MS103", "MS102"]
    assert "pass index by position" in findings[1].message and "torch.take(i, index=j) raises" in findings[1].message
