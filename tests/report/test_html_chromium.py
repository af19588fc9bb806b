"""The HTML report rendered by a real browser (Debian's headless Chromium): a screenshot is
written to tests/report/out/, and every figure on the rendered page is checked against the
JSON report of the same project."""

import json
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from msport.knowledge import default_knowledge
from msport.knowledge.api_history import default_history

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
OUT = Path(__file__).resolve().parent / "out"
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
]


def chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    assert exe, "Debian's chromium is required here; tools/test.sh installs it (apt-get install -y chromium)"
    return exe


def browse(tmp_path, *args) -> subprocess.CompletedProcess:
    profile = tmp_path / f"profile-{len(list(tmp_path.glob('profile-*')))}"
    run = subprocess.run([chromium(), *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True, timeout=180)
    assert run.returncode == 0, run.stderr[-2000:]
    return run


def missing_torch_function():
    """A real torch function (in the torch snapshot) that is missing in MindSpore 2.10."""
    knowledge = default_knowledge()
    torch = default_history().snapshots("torch")[-1]
    return next(
        name for name, (kind, _) in sorted(torch.apis.items())
        if kind == "function" and name.count(".") == 1 and not name.split(".")[1].startswith("_")
        and knowledge.verdict(name, (2, 10), "ascend") is not None and knowledge.verdict(name, (2, 10), "ascend").status == "missing"
    )


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """The examples as a small package, plus a training script with missing APIs."""
    root = tmp_path_factory.mktemp("proj") / "detector"
    (root / "models").mkdir(parents=True)
    for path in EXAMPLES.glob("*.py"):
        shutil.copy(path, root / "models" / path.name)
    missing = missing_torch_function()
    (root / "train.py").write_text(
        "import torch\n\n"
        "def evaluate(model, batches):\n"
        "    with torch.no_grad():\n"
        "        for x in batches:\n"
        f"            y = {missing}(model(x))\n"
        "            keep = torch.nonzero(y > 0)\n"
        "    return keep\n"
    )
    return root


@pytest.fixture(scope="module")
def reports(project, tmp_path_factory):
    out = tmp_path_factory.mktemp("html")
    html = out / "report.html"
    for args in (["--format", "json", "-o", str(out / "report.json")], ["-o", str(html)]):
        run = subprocess.run([sys.executable, "-m", "msport", "report", str(project), *args], capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
    return json.loads((out / "report.json").read_text()), html


@pytest.fixture(scope="module")
def chinese_page(project, tmp_path_factory):
    html = tmp_path_factory.mktemp("html-zh") / "report.html"
    run = subprocess.run([sys.executable, "-m", "msport", "report", "--lang", "zh-CN", str(project), "-o", str(html)],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    return html


class Page(HTMLParser):
    """The numbers on the rendered page, found by their data-* attributes."""

    def __init__(self):
        super().__init__()
        self.metrics, self.rows, self.cells, self.rects = {}, {}, {}, []
        self._stack = []  # (tag, attrs, text parts)
        self._row = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and ("data-api" in attrs or "data-file" in attrs or "data-hotspot" in attrs):
            table = next((a.get("data-table") for _, a, _ in reversed(self._stack) if a.get("data-table")), None)
            key = attrs.get("data-api") or attrs.get("data-file") or attrs.get("data-hotspot")
            self._row = (table, key)
            self.rows.setdefault(table, []).append(key)
        if tag == "rect" and "data-status" in attrs:
            chart = next((a.get("data-chart") for _, a, _ in reversed(self._stack) if a.get("data-chart")), None)
            group = next((a.get("data-namespace") for _, a, _ in reversed(self._stack) if a.get("data-namespace")), None)
            self.rects.append((chart, group, attrs["data-status"], int(attrs["data-count"]), float(attrs["width"])))
        if tag not in ("br", "meta", "img", "input", "link", "hr"):
            self._stack.append((tag, attrs, []))

    def handle_endtag(self, tag):
        if not any(open_tag == tag for open_tag, _, _ in self._stack):
            return  # a stray end tag must not close everything above it
        while self._stack:
            open_tag, attrs, parts = self._stack.pop()
            text = "".join(parts).strip()
            if self._stack:
                self._stack[-1][2].append(text)
            if "data-metric" in attrs:
                self.metrics[attrs["data-metric"]] = text
            if "data-col" in attrs and self._row is not None:
                self.cells[(*self._row, attrs["data-col"])] = text
            if open_tag == "tr":
                self._row = None
            if open_tag == tag:
                break

    def handle_data(self, data):
        if self._stack:
            self._stack[-1][2].append(data)


def number(text: str) -> int:
    return int(text.replace(",", ""))


def lookup(data, path):
    for part in path.split("."):
        data = data[part]
    return data


def test_rendered_page_shows_the_json_numbers(reports, tmp_path):
    data, html = reports
    dom = browse(tmp_path, "--dump-dom", html.as_uri()).stdout
    assert "<title>PyTorch to MindSpore migration report: detector</title>" in dom
    page = Page()
    page.feed(dom)
    # Headline figures.
    summary = data["summary"]
    assert page.metrics.pop("summary.readiness") == f"{summary['readiness'] * 100:.0f}%"
    assert len(page.metrics) >= 8
    for path, text in page.metrics.items():
        assert number(text) == lookup(data, path), path
    assert summary["uses"]["missing"] >= 2 and summary["uses"]["divergent"] and summary["dynamic_shape_findings"]
    # Top tables and hotspots: same rows, same counts, same order.
    for key in ("top_missing", "top_divergent", "top_unknown"):
        assert page.rows.get(key, []) == [r["torch_api"] for r in data[key]], key
        for r in data[key]:
            assert number(page.cells[(key, r["torch_api"], "uses")]) == r["uses"]
            assert number(page.cells[(key, r["torch_api"], "files")]) == r["files"]
    assert page.rows["hotspots"] == [f"{h['path']}::{h['function']}" for h in data["hotspots"]]
    for h in data["hotspots"]:
        assert number(page.cells[("hotspots", f"{h['path']}::{h['function']}", "findings")]) == h["findings"]
    # Every file, with its counts.
    assert sorted(page.rows["files"]) == sorted(f["path"] for f in data["files"])
    for f in data["files"]:
        for status in ("equivalent", "divergent", "missing", "unknown"):
            cell = page.cells.get(("files", f["path"], status))
            # The unknown column is left out when no use is unknown.
            assert (number(cell) if cell is not None else 0) == f["uses"][status]
        assert (("files", f["path"], "unknown") in page.cells) == bool(summary["uses"]["unknown"])
        assert number(page.cells[("files", f["path"], "dynamic")]) == f["dynamic_shape_findings"]
        assert number(page.cells[("files", f["path"], "lines")]) == f["lines"]
        if f["readiness"] is not None:
            assert page.cells[("files", f["path"], "readiness")] == f"{f['readiness'] * 100:.0f}%"
    # The chart: one segment per status, widths in proportion to the counts.
    bar = [(status, count, width) for chart, _, status, count, width in page.rects if chart == "status"]
    uses = summary["uses"]
    assert {status: count for status, count, _ in bar} == {s: uses[s] for s in ("equivalent", "divergent", "missing", "unknown") if uses[s]}
    for status, count, width in bar:
        assert width == pytest.approx(1000 * count / uses["total"], abs=0.02)
    by_namespace = {}
    for chart, group, status, count, _ in page.rects:
        if chart == "namespaces":
            by_namespace.setdefault(group, {})[status] = count
    for row in data["namespaces"][:12]:
        assert by_namespace[row["namespace"]] == {s: row[s] for s in ("equivalent", "divergent", "missing", "unknown") if row[s]}


def png_size(path: Path):
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return struct.unpack(">II", head[16:24])


def test_screenshot(reports, tmp_path):
    _, html = reports
    OUT.mkdir(exist_ok=True)
    shot = OUT / "report.png"
    if shot.exists():
        shot.unlink()
    browse(tmp_path, "--window-size=1280,3200", f"--screenshot={shot}", html.as_uri())
    assert png_size(shot) == (1280, 3200)
    # A blank or unstyled page compresses to a few kilobytes; this page has charts and tables.
    assert shot.stat().st_size > 60_000
    shutil.copy(html, OUT / "report.html")


def test_the_chinese_page_shows_the_same_numbers_drawn_in_chinese(reports, chinese_page, tmp_path):
    data, _ = reports
    fonts = subprocess.run(["fc-list", ":lang=zh"], capture_output=True, text=True).stdout
    assert fonts.strip(), "a CJK font is required to draw the Chinese page; tools/test.sh installs fonts-wqy-zenhei"
    dom = browse(tmp_path, "--dump-dom", chinese_page.as_uri()).stdout
    assert '<html lang="zh-CN">' in dom and "<title>PyTorch 到 MindSpore 迁移报告：detector</title>" in dom
    page = Page()
    page.feed(dom)
    assert page.metrics.pop("summary.readiness") == f"{data['summary']['readiness'] * 100:.0f}%"
    for path, text in page.metrics.items():
        assert number(text) == lookup(data, path), path
    assert page.rows["top_missing"] == [r["torch_api"] for r in data["top_missing"]]
    OUT.mkdir(exist_ok=True)
    shot = OUT / "report-zh-CN.png"
    if shot.exists():
        shot.unlink()
    browse(tmp_path, "--window-size=1280,3200", "--lang=zh-CN", f"--screenshot={shot}", chinese_page.as_uri())
    assert png_size(shot) == (1280, 3200) and shot.stat().st_size > 60_000
