"""Ground truth for the second-order support table (rules/second_order.toml).

Every measured entry a finding can rest on (a missing bprop, a crash, zeros or wrong values in
some mode) is run again on the real torch 2.13 and mindspore 2.10 (CPU) by the probe's own
harness, and must give the statuses the table records; so must the controls (entries measured
right). Each proven replacement the messages recommend must have a second derivative that
matches PyTorch's double backward of the operation it replaces, compiled. The cases run in child
processes of tools/probe_second_order.py, grouped (importing both packages is the cost).
"""

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import probe_second_order as probe  # noqa: E402

CITED = ("no-bprop", "crash", "zero", "wrong")
#: Entries measured right in every mode, re-run as controls (the harness can tell ok from not ok).
CONTROLS = ("mindspore.ops.sin", "mindspore.ops.tanh", "mindspore.nn.Conv2d", "mindspore.ops.cat")


@pytest.fixture(scope="module")
def rules():
    from msport.knowledge.second_order import load_second_order

    loaded = load_second_order()
    assert loaded.problems == ()
    return loaded


def _failing(support):
    return support.bprop == "missing" or bool({s for _, s in support.statuses} & set(CITED))


def _cited(rules):
    """The entries a finding rests on, and the controls; and every counterpart measured right of
    a torch API whose other counterpart fails: the check points at it instead of reporting the
    API (checks/second_order.py, working_counterpart), so its measurement is ground truth too."""
    current = [s for s in rules.measured if s.version == (2, 10) and not s.unprobed]
    failing_torch = {name for s in current if _failing(s) for name in s.torch}
    return [s for s in current if _failing(s) or s.mindspore in CONTROLS or set(s.torch) & failing_torch]


def _shapes(rules):
    """The call shapes of the table's version: each is ground truth a finding (or its absence) rests on."""
    return [shape for shape in rules.shapes if shape.support.version == (2, 10)]


@pytest.fixture(scope="module")
def rerun(rules):
    items = []
    for support in _cited(rules):
        case = dict(support.case)
        items.append({"mindspore": support.mindspore, "torch": list(support.torch), **case})
    for index, shape in enumerate(_shapes(rules)):
        items.append({"mindspore": f"shape-{index}", "torch": list(shape.torch), **dict(shape.support.case)})
    for index, replacement in enumerate(rules.replacements):
        items.append({"mindspore": f"replacement-{index}", "torch": [], "input": replacement.input, "torch_call": replacement.torch,
                      "mindspore_call": replacement.mindspore})
    return probe.probe(sys.executable, items, workers=2, mode="recheck", progress=False)


def test_the_table_cites_enough_to_matter(rules):
    cited = _cited(rules)
    assert len([s for s in cited if s.bprop == "missing"]) >= 20
    assert any(s.status("pynative") == "zero" for s in cited)
    assert {c for c in CONTROLS} <= {s.mindspore for s in cited}


def test_every_cited_entry_gives_the_recorded_statuses(rules, rerun):
    differ = []
    for support in _cited(rules):
        record = rerun[support.mindspore]
        assert "results" in record, record
        now = {mode: status for mode, (status, _) in record["results"].items()}
        if now != dict(support.statuses):
            differ.append(f"{support.mindspore}: table {dict(support.statuses)}, now {now}")
    assert not differ, differ


def test_every_call_shape_gives_the_recorded_statuses(rules, rerun):
    shapes = _shapes(rules)
    assert any(s.when == "argument" for s in shapes) and any(s.when == "operands" for s in shapes)
    differ = []
    for index, shape in enumerate(shapes):
        record = rerun[f"shape-{index}"]
        assert "results" in record, record
        now = {mode: status for mode, (status, _) in record["results"].items()}
        if now != dict(shape.support.statuses):
            differ.append(f"{shape.torch} {shape.support.case.get('torch_call')}: table {dict(shape.support.statuses)}, now {now}")
    assert not differ, differ


def test_missing_bprops_name_the_same_primitive(rules, rerun):
    for support in _cited(rules):
        if support.bprop == "missing" and support.grad_primitive:
            named = {detail for status, detail in rerun[support.mindspore]["results"].values() if status == "no-bprop"}
            assert support.grad_primitive in named, (support.mindspore, named)


def test_the_recommended_replacements_are_proven(rules, rerun):
    assert rules.replacements
    for index, replacement in enumerate(rules.replacements):
        results = rerun[f"replacement-{index}"]["results"]
        assert results["inner_jit"][0] == "ok" and results["graph"][0] == "ok", (replacement.text, results)
