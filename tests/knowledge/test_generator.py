"""tools/build_rules.py: its decisions on small synthetic facts, and rules/api/ being its output."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TABLES = Path(os.environ.get("MSPORT_API_TABLES") or ROOT.parent / "shared" / "data" / "api_mapping")
sys.path.insert(0, str(ROOT / "tools"))

from rulegen.build import Builder, ranges  # noqa: E402
from rulegen.facts import Row, Snapshot  # noqa: E402
from rulegen.notes import compare_params  # noqa: E402


def snap(version, apis):
    return Snapshot(version, {k: ("function", tuple(v)) for k, v in apis.items()}, ("mindspore.ops", "mindspore.mint"))


def row(table, target, status="consistent", categories=()):
    return Row(table, "torch", "PyTorch", "torch.foo", target, status, tuple(categories), "")


def builder(rows, per_version, cpu=None):
    torch = Snapshot("2.13.0", {"torch.foo": ("function", ("input", "dim", "out"))}, ("torch",))
    snaps = {v: snap(f"2.{v[1]}.0", apis) for v, apis in per_version.items()}
    return Builder(rows, {}, ["out"], snaps, torch, cpu or {})


def spans(target):
    return [(first, last, fact.status) for first, last, fact in ranges(target.versions)]


def test_a_target_removed_from_the_package_ends_where_the_snapshots_lose_it():
    present = {"mindspore.ops.foo": ["input", "dim"]}
    b = builder([row("2.4.10", "mindspore.ops.foo")], {(2, 7): present, (2, 8): present, (2, 9): {}, (2, 10): {}})
    (target,) = b.table_rules()["torch.foo"].targets
    assert spans(target) == [((2, 4), (2, 8), "equivalent")]  # 2.5-2.6 filled: it exists again in 2.7


def test_a_target_gone_by_2_7_is_not_extended_past_its_last_table():
    b = builder([row("2.2", "mindspore.ops.foo"), row("2.3.1", "mindspore.ops.foo")], {v: {} for v in [(2, 7), (2, 8), (2, 9), (2, 10)]})
    (target,) = b.table_rules()["torch.foo"].targets
    assert spans(target) == [((2, 2), (2, 3), "equivalent")]


def test_mint_without_cpu_kernel_gets_a_same_named_ops_fallback_for_cpu():
    apis = {"mindspore.mint.foo": ["input", "dim"], "mindspore.ops.foo": ["input", "axis"]}
    b = builder([row("master", "mindspore.mint.foo")], {v: apis for v in [(2, 7), (2, 8), (2, 9), (2, 10)]},
                cpu={"mindspore.mint.foo": "no_kernel", "mindspore.ops.foo": "ok"})
    mint, ops = b.table_rules()["torch.foo"].targets
    assert mint.mindspore == "mindspore.mint.foo" and mint.backends == ("ascend", "gpu")
    assert ops.mindspore == "mindspore.ops.foo" and ops.backends == ("cpu",)
    fact = ops.versions[(2, 10)]
    assert fact.status == "divergent" and fact.renames == (("dim", "axis"),) and "no CPU kernel" in fact.note


def test_table_param_name_difference_is_made_concrete_by_the_snapshots():
    apis = {"mindspore.ops.foo": ["input", "axis"]}
    b = builder([row("2.4.10", "mindspore.ops.foo", "minor_diff_note", ["param_name"])], {v: apis for v in [(2, 7), (2, 8), (2, 9), (2, 10)]})
    (target,) = b.table_rules()["torch.foo"].targets
    assert target.versions[(2, 10)].note == "parameter dim is named axis" and target.versions[(2, 10)].renames == (("dim", "axis"),)
    # The signature is the same in all four snapshots: the evidence carries back to 2.4.
    assert target.versions[(2, 4)].note == "parameter dim is named axis"


def test_a_names_differ_note_the_real_signature_disproves_is_dropped_for_that_release_only():
    """The tables say the names differ (as in 2.2's ops.ge(x, y)), but 2.7-2.10's real signature has
    PyTorch's names: equivalent there; the older releases keep their own tables' word."""
    apis = {"mindspore.ops.foo": ["input", "dim"]}
    b = builder([row("2.4.10", "mindspore.ops.foo", "minor_diff_note", ["param_name"]),
                 row("master", "mindspore.ops.foo", "minor_diff_note", ["param_name"])], {v: apis for v in [(2, 7), (2, 8), (2, 9), (2, 10)]})
    (target,) = b.table_rules()["torch.foo"].targets
    assert target.versions[(2, 10)].status == "equivalent" and not target.versions[(2, 10)].note
    assert target.versions[(2, 4)].status == "divergent" and target.versions[(2, 4)].note == "some parameter names differ"


def test_an_unstable_signature_is_not_carried_back_to_older_tables():
    old, new = {"mindspore.ops.foo": ["input", "axis"]}, {"mindspore.ops.foo": ["input", "dim2"]}
    b = builder([row("2.4.10", "mindspore.ops.foo", "minor_diff_note", ["param_name"])], {(2, 7): old, (2, 8): old, (2, 9): new, (2, 10): new})
    (target,) = b.table_rules()["torch.foo"].targets
    assert target.versions[(2, 4)].note == "some parameter names differ"
    assert target.versions[(2, 7)].note.startswith("parameter dim is named axis")


@pytest.mark.parametrize("torch_params, ms_params, expected", [
    (["input", "dim", "out"], ["input", "dim", "extra"], "same"),
    (["input", "dim"], ["input", "axis"], (("dim", "axis"),)),
    (["self", "*size"], ["self", "size"], "varargs"),
    (["input", "*args"], ["input"], None),
    # Reordered: paired by synonym, not by position (dim is not indices); past the reordering,
    # an unpaired parameter has no counterpart (alpha is not use_lock).
    (["input", "dim", "index", "source", "alpha"], ["x", "indices", "y", "axis", "use_lock"],
     (("input", "x"), ("dim", "axis"), ("index", "indices"), ("source", "y"))),
])
def test_signature_comparison(torch_params, ms_params, expected):
    diff = compare_params(torch_params, ms_params, ["out"])
    if expected is None:
        assert diff is None
    elif expected == "same":
        assert diff.same
    elif expected == "varargs":
        assert diff.varargs == ("size",)
    else:
        assert diff.renamed == expected
        if len(expected) == 4:
            assert diff.missing == ("alpha",) and diff.moved == ("dim", "index", "source")


@pytest.mark.upstream_tables  # reads ../shared: `tools/test.sh --upstream-tables`
def test_rules_api_is_the_generators_output():
    """Edit rules/curated/ or tools/rulegen/, then run tools/build_rules.py: never rules/api/ by hand."""
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "build_rules.py"), "--check", "--tables", str(TABLES)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
