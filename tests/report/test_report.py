"""`msport report`: the numbers, their consistency across formats, isolation of bad files,
and the progress bar (only on a terminal)."""

import csv
import io
import json
import os
import select
import shutil
import subprocess
import sys
from pathlib import Path

from msport.analysis import Settings, analyze
from msport.analysis.api_uses import api_uses
from msport.analysis.findings import Category, Finding, Severity, Span
from msport.analysis.outline import FunctionIndex, function_ranges
from msport.cli.progress import ProgressBar
from msport.knowledge.api_history import default_history
from msport.report.model import STATUSES, FileInput, build_report

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"


def msport(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "msport", *args], capture_output=True, text=True, timeout=300, cwd=cwd)


def json_report(*paths):
    run = msport("report", *map(str, paths), "--format", "json")
    assert run.returncode == 0, run.stderr
    return json.loads(run.stdout)


def is_api(name):
    entry = default_history().entry(name)
    return entry is not None and entry[0] != "module"


def test_counts_add_up_and_match_the_analysis(knowledge):
    data = json_report(EXAMPLES)
    summary = data["summary"]
    assert summary["files_scanned"] == len(list(EXAMPLES.glob("*.py"))) == len(data["files"])
    uses = summary["uses"]
    assert uses["total"] == sum(uses[s] for s in STATUSES)
    assert uses["judged"] == uses["equivalent"] + uses["divergent"] + uses["missing"]
    assert summary["readiness"] == round(uses["equivalent"] / uses["judged"], 4)
    for status in STATUSES:
        assert uses[status] == sum(f["uses"][status] for f in data["files"])
        assert uses[status] == sum(n[status] for n in data["namespaces"])
    # Same numbers as the analysis run in-process, file by file.
    for row in data["files"]:
        result = analyze((EXAMPLES / row["path"]).read_text())
        expected = api_uses(result, knowledge, Settings(), is_api)
        assert row["uses"]["total"] == len(expected) == len(row["api_uses"])
        assert row["lines"] == len(result.source.lines)
        assert [f["code"] for f in row["findings"]] == [f.code for f in result.findings]
    assert summary["findings"]["total"] == sum(len(f["findings"]) for f in data["files"])
    # Top lists: sorted by uses, statuses right, counts match the per-use listing.
    all_uses = [u for f in data["files"] for u in f["api_uses"]]
    for key, status in (("top_missing", "missing"), ("top_divergent", "divergent")):
        rows = data[key]
        assert [r["uses"] for r in rows] == sorted((r["uses"] for r in rows), reverse=True)
        for r in rows:
            assert r["uses"] == sum(1 for u in all_uses if u["torch_api"] == r["torch_api"])
            assert all(u["status"] == status for u in all_uses if u["torch_api"] == r["torch_api"])
    assert data["top_missing"] or data["top_divergent"]
    # Same-name Tensor methods (no finding) are counted as equivalent uses.
    finding_places = {(f["line"], f["column"]) for row in data["files"] for f in row["findings"]}
    silent = [u for u in all_uses if u["torch_api"].startswith("torch.Tensor.") and (u["line"], u["column"]) not in finding_places]
    assert silent and all(u["status"] == "equivalent" for u in silent)


def test_dynamic_shape_hotspots_group_findings_by_function(knowledge):
    text = "def a(x):\n    return x\n\nclass M:\n    def construct(self, x):\n        return x\n"
    result = analyze(text)

    def dyn(line, code):
        return Finding(code=code, category=Category.DYNAMIC_SHAPE, severity=Severity.WARNING, span=Span(line, 8, line, 9), message="shape from data")

    findings = [dyn(1, "MS201"), dyn(5, "MS201"), dyn(5, "MS203")]
    item = FileInput("m.py", len(result.source.lines), [], findings, FunctionIndex(function_ranges(result)))
    data = build_report([item], knowledge, Settings(), "proj", generated="now")
    assert data["hotspots"] == [
        {"path": "m.py", "function": "M.construct", "line": 6, "findings": 2, "codes": {"MS201": 1, "MS203": 1}},
        {"path": "m.py", "function": "a", "line": 2, "findings": 1, "codes": {"MS201": 1}},
    ]
    assert data["summary"]["dynamic_shape_findings"] == 3 and data["summary"]["dynamic_shape_functions"] == 2
    assert data["summary"]["readiness"] is None  # no judged uses: no figure rather than 0% or 100%


def test_real_dynamic_shape_findings_reach_the_report():
    data = json_report(EXAMPLES)
    dynamic = [f for row in data["files"] for f in row["findings"] if f["category"] == "dynamic-shape"]
    assert data["summary"]["dynamic_shape_findings"] == len(dynamic) == sum(h["findings"] for h in data["hotspots"])
    for spot in data["hotspots"]:
        assert spot["function"] == next(f["function"] for row in data["files"] if row["path"] == spot["path"]
                                        for f in row["findings"] if f["category"] == "dynamic-shape" and f["line"] == spot["line"])


def test_markdown_and_csv_carry_the_same_numbers(tmp_path):
    data = json_report(EXAMPLES)
    md = msport("report", str(EXAMPLES), "-o", str(tmp_path / "r.md"))
    assert md.returncode == 0 and "wrote" in md.stderr
    text = (tmp_path / "r.md").read_text()
    assert f"**Readiness: {data['summary']['readiness'] * 100:.0f}%** of {data['summary']['uses']['judged']} judged" in text
    for row in data["files"]:
        link = os.path.relpath(EXAMPLES / row["path"], tmp_path)
        assert f"[{row['path']}]({link})" in text
    for r in data["top_missing"]:
        # Missing APIs inferred from the snapshots alone (no table lists them) say so beside the name.
        assert f"`{r['torch_api']}`{' (inferred)' if r.get('basis') == 'inferred' else ''} |" in text
    for r in data["top_divergent"]:
        assert f"`{r['torch_api']}` |" in text
    run = msport("report", str(EXAMPLES), "--format", "csv")
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    uses = [r for r in rows if r["kind"] == "api-use"]
    assert len(uses) == data["summary"]["uses"]["total"]
    for status in STATUSES:
        assert sum(1 for r in uses if r["status"] == status) == data["summary"]["uses"][status]
    others = [r for r in rows if r["kind"] == "finding"]
    api_findings = sum(1 for row in data["files"] for f in row["findings"] if f["category"].endswith("-api"))
    assert len(others) == data["summary"]["findings"]["total"] - api_findings
    assert all(r["link"].endswith(f"#L{r['line']}") for r in rows)


def test_source_url_template_and_format_from_extension(tmp_path):
    out = tmp_path / "report.html"
    run = msport("report", str(EXAMPLES), "-o", str(out), "--source-url", "https://git.example.com/m/blob/main/{path}#L{line}")
    assert run.returncode == 0, run.stderr
    html = out.read_text()
    assert html.startswith("<!DOCTYPE html>") and "https://git.example.com/m/blob/main/resnet_block.py#L" in html
    assert "<script" not in html and "http://" not in html.replace("http://www.w3.org", "")  # self-contained


def test_a_bad_file_is_listed_and_the_rest_reported(tmp_path):
    shutil.copy(EXAMPLES / "resnet_block.py", tmp_path / "good.py")
    os.symlink(tmp_path / "missing.py", tmp_path / "bad.py")
    (tmp_path / "broken_syntax.py").write_text("import torch\ny = torch.flatten(x)\ndef f(:\n    pass\n")
    data = json_report(tmp_path)
    rows = {f["path"]: f for f in data["files"]}
    assert rows["bad.py"]["error"].startswith("cannot read")
    assert data["summary"]["files_with_errors"] == 1 and rows["good.py"]["uses"]["total"] > 10
    assert rows["broken_syntax.py"]["uses"]["total"] == 1  # the rest of a file with a syntax error still counts


def test_bad_flags_and_paths_are_usage_errors(tmp_path):
    assert msport("report", str(tmp_path / "nope")).returncode == 2
    run = msport("report", str(EXAMPLES), "--backend", "tpu")
    assert run.returncode == 2 and "--backend" in run.stderr


def test_progress_bar_only_on_a_terminal():
    master, slave = os.openpty()
    with os.fdopen(slave, "w") as tty:
        bar = ProgressBar(10, stream=tty, delay=0)
        for done in range(11):
            bar.update(done, f"pkg/file{done}.py")
            bar._last = 0  # every update draws, for the test
        bar.close()
    drawn = b""
    while select.select([master], [], [], 0.5)[0]:
        try:
            chunk = os.read(master, 65536)
        except OSError:  # EIO: the terminal's other end is closed and everything was read
            break
        if not chunk:
            break
        drawn += chunk
    drawn = drawn.decode()
    os.close(master)
    assert "[" + "#" * 30 + "] 10/10 files" in drawn and "\r" in drawn
    quiet = io.StringIO()
    bar = ProgressBar(10, stream=quiet, delay=0)
    bar.update(5)
    bar.close()
    assert quiet.getvalue() == ""
    # The command itself keeps stderr free of the bar when it is not a terminal.
    run = msport("report", str(EXAMPLES), "--format", "json")
    assert "\r" not in run.stderr and "[#" not in run.stderr
