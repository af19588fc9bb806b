"""Ground truth for the sparse rules: every case rules/sparse.toml cites, run again on the real
mindspore 2.10 (CPU, PyNative and under jit) by tools/probe_sparse.py, must do what the table
says; the [[fact]] cases the messages rest on must fail or run as stated; and the MS604 fix
(int32 -> int64 indices) is run before and after on the real packages."""

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

import probe_sparse  # noqa: E402


@pytest.fixture(scope="module")
def rules():
    from msport.knowledge.sparse import load_sparse

    loaded = load_sparse()
    assert loaded.problems == ()
    return loaded


@pytest.fixture(scope="module")
def rerun():
    """Each cited case, both modes, on the real package (a fresh process after a failure)."""
    cases, _ = probe_sparse.cases_and_apis(probe_sparse.TABLE.read_text(encoding="utf-8"))
    return probe_sparse.measure(cases, progress=False)


def test_every_cited_case_was_measured(rules):
    cases, _ = probe_sparse.cases_and_apis(probe_sparse.TABLE.read_text(encoding="utf-8"))
    for case in cases:
        result = rules.result(case, (2, 10))
        assert result is not None and {m for m, _ in result.statuses} == {"pynative", "jit"}, case


def test_documented_platforms_are_the_package_docstrings(rules):
    """What msport says about GPU and Ascend rests on these: read them again from the package."""
    _, apis = probe_sparse.cases_and_apis(probe_sparse.TABLE.read_text(encoding="utf-8"))
    found = probe_sparse.platforms(apis)
    assert found.get("mindspore.CSRTensor.mm") == ["GPU", "CPU"]
    for api in apis:
        recorded = rules.documented_platforms(api, (2, 10))
        assert (tuple(found[api]) if api in found else None) == recorded, api


def test_the_real_package_agrees_with_the_table(rules, rerun):
    differ = []
    for (case, mode), record in sorted(rerun.items()):
        expected = rules.result(case, (2, 10)).status(mode)
        if record["status"] != expected:
            differ.append(f"{case} ({mode}): table {expected}, now {record['status']} {record.get('error', '')}")
    assert not differ, differ


def test_the_facts_the_messages_state(rules, rerun):
    assert rules.facts
    for fact, fails, runs in rules.facts:
        for case in fails:
            assert all(rerun[(case, m)]["status"] == "fails" for m in probe_sparse.MODES), (fact, case)
        for case in runs:
            assert all(rerun[(case, m)]["status"] == "ok" for m in probe_sparse.MODES), (fact, case)
    # The int32 trap names what MindSpore says.
    assert "Tensor[Int64]" in rerun[("coo32().coalesce()", "pynative")]["error"]


PROGRAM = textwrap.dedent('''
    import mindspore as ms
    import numpy as np
    from mindspore import COOTensor, Tensor


    def build(edges, weights, n):
        adj = COOTensor(Tensor(edges, ms.int32), weights, (n, n))
        adj = adj.coalesce()
        return (adj + adj).to_dense()
''')


def _run(source, workdir):
    script = workdir / "run.py"
    script.write_text(source + textwrap.dedent('''
        import json, sys
        ms.set_device("CPU")
        edges = np.array([[0, 1], [1, 2], [0, 1], [2, 0]])
        weights = Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32))
        try:
            print(json.dumps(build(edges, weights, 3).asnumpy().tolist()))
        except Exception as exc:
            print(json.dumps(type(exc).__name__ + ": " + str(exc).strip().splitlines()[0]))
    '''))
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_int64_fix_runs_before_and_after(analyze, tmp_path):
    import torch

    from msport.analysis.fixes import apply_edits

    (finding,) = [f for f in analyze(PROGRAM, backend="cpu") if f.code == "MS604"]
    (fix,) = finding.fixes
    assert fix.safety.value == "safe"
    fixed = apply_edits(PROGRAM, fix.edits)
    assert "Tensor(edges, ms.int64)" in fixed
    before, after = _run(PROGRAM, tmp_path), _run(fixed, tmp_path)
    assert isinstance(before, str) and "Tensor[Int64]" in before and "Int32" in before
    # After: what PyTorch computes on the same coordinates (duplicates summed by coalesce).
    reference = torch.sparse_coo_tensor(torch.tensor([[0, 1, 0, 2], [1, 2, 1, 0]]), torch.tensor([1.0, 2.0, 3.0, 4.0]), (3, 3))
    reference = (reference.coalesce() * 2).to_dense().tolist()
    assert after == reference
    assert not [f for f in analyze(fixed, backend="cpu") if f.code == "MS604"]
