"""Ground truth from the real package: each trigger kind's positive, run under @jit with
mindspore 2.10 on CPU, has an output shape that follows the data (or a static graph cannot be
built for it at all); its negative has a fixed shape. msport flags exactly the positives.

All cases run in one subprocess (module-scoped fixture): importing mindspore and compiling
each function once is the cost.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import ground_truth_cases as cases  # noqa: E402

IDS = [f"{i:02d}-{c[0]}-{c[2]}" for i, c in enumerate(cases.CASES)]


@pytest.fixture(scope="module")
def shapes(tmp_path_factory):
    workdir = tmp_path_factory.mktemp("ground_truth")
    run = subprocess.run(
        [sys.executable, str(HERE / "run_ground_truth.py"), str(workdir)],
        capture_output=True, text=True, timeout=900,
    )
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((workdir / "shapes.json").read_text())
    assert len(results) == len(cases.CASES)
    return results


@pytest.fixture(scope="module")
def findings_by_function():
    """msport's MS2 findings on the same source, keyed by the function they are in."""
    from msport.analysis import Analyzer, Settings

    text = cases.source()
    lines = text.split("\n")
    starts = [n for n, line in enumerate(lines) if line.startswith("def f")]
    found = {}
    for finding in Analyzer().analyze(text, Settings(), "ground_truth.py").findings:
        if not finding.code.startswith("MS2"):
            continue
        owner = max(i for i, start in enumerate(starts) if start <= finding.span.start_line)
        found.setdefault(owner, set()).add(finding.code)
    return found


@pytest.mark.parametrize("index", range(len(cases.CASES)), ids=IDS)
def test_the_real_package_agrees(shapes, index):
    kind, code, expectation, body, *_ = cases.CASES[index]
    a, b, *inside = shapes[index]
    errors = [s for s in (a, b) if isinstance(s, str)]
    if expectation.endswith("-inside"):
        # The output keeps its shape (a write into a tensor), but the compiled graph holds
        # values whose shape follows the data, or none.
        assert not errors and a == b, f"{body!r} under @jit: {a} vs {b}"
        assert inside[0] >= 0, f"{body!r}: no compiled graph was saved"
        assert (inside[0] > 0) == (expectation == "varies-inside"), f"{body!r}: {inside[0]} data-dependent shapes in its graph"
    elif expectation == "varies":
        assert not errors, f"{body!r} failed under @jit: {errors}"
        assert a != b, f"{body!r}: expected the shape to follow the data, got {a} both times"
    elif expectation == "rejects":
        assert len(errors) == 2, f"{body!r}: expected mindspore to refuse a static graph, got {a}, {b}"
    else:
        assert not errors, f"{body!r} failed under @jit: {errors}"
        assert a == b, f"{body!r}: a static construct changed shape: {a} vs {b}"


@pytest.mark.parametrize("index", range(len(cases.CASES)), ids=IDS)
def test_msport_flags_exactly_the_positives(findings_by_function, index):
    kind, code, expectation, body, _, _, _, *absent = cases.CASES[index]
    found = findings_by_function.get(index, set())
    if code is None:
        assert found == set(), f"false alarm on the static construct {body!r}: {found}"
    else:
        assert code in found, f"{body!r}: expected {code}, found {sorted(found)}"
    for unexpected in absent[0] if absent else ():
        assert unexpected not in found, f"{body!r}: {unexpected} is a false alarm here"


def test_every_trigger_kind_has_a_positive_and_a_negative(knowledge):
    kinds = {t.id for t in knowledge.triggers.triggers} | {kind for kind, _ in knowledge.triggers.syntax}
    positives = {c[0] for c in cases.CASES if c[1] is not None}
    negatives = {c[0] for c in cases.CASES if c[1] is None}
    assert kinds <= positives, sorted(kinds - positives)
    assert kinds <= negatives, sorted(kinds - negatives)
