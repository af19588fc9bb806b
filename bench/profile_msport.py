"""Where msport spends its time and memory: the evidence behind a missed target.

- the live server, sampled with py-spy while the bench client opens, edits and hovers (this is
  what the latency targets measure, event loop and serialisation included);
- the analysis core in-process under cProfile (exact call counts);
- ``msport check`` in-process under cProfile (CLI throughput);
- ``python -X importtime`` of the server (start-up);
- tracemalloc with 300 files analysed and kept, as the server keeps them (memory).

Run through ``python bench/run.py --profile``; writes ``<results>-profile.md``.
"""

from __future__ import annotations

import asyncio
import contextlib
import cProfile
import dataclasses
import os
import pstats
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from collections import Counter
from pathlib import Path
from typing import Dict, List, Optional, Tuple

import corpus
from corpus import BenchFile
from lspbench import EDIT_PREFIX
from lspclient import Session, uri_of

WORK = corpus.WORK
TOP = 18


# -- cProfile ----------------------------------------------------------------------------------
def _short_path(filename: str) -> str:
    for marker in ("/msport/", "/site-packages/", "/lib/python3"):
        if marker in filename:
            return filename[filename.index(marker) + 1 :]
    return filename


def _profiler() -> cProfile.Profile:
    # CPU time of the profiled thread, not wall time: a shared, loaded machine must not inflate it.
    return cProfile.Profile(time.thread_time)


def _cprofile_table(profile: cProfile.Profile, sort: str, limit: int = TOP, msport_only: bool = False) -> List[str]:
    stats = pstats.Stats(profile)
    rows = []
    for (filename, line, name), (calls, primitive, tottime, cumtime, _) in stats.stats.items():
        if msport_only and "/msport/" not in filename:
            continue
        rows.append((cumtime if sort == "cumulative" else tottime, f"{_short_path(filename)}:{line} {name}", calls, primitive, tottime, cumtime))
    rows.sort(reverse=True)
    out = ["| function | calls | own time | cumulative |", "| --- | --- | --- | --- |"]
    for _, where, calls, primitive, tottime, cumtime in rows[:limit]:
        count = f"{calls}" if calls == primitive else f"{calls} ({primitive} primitive)"
        out.append(f"| `{where}` | {count} | {tottime * 1e3:.1f} ms | {cumtime * 1e3:.1f} ms |")
    return out


#: Under a profiler, on a loaded machine, analysis can pass msport's wall-clock time budget
#: (setting time-budget) and stop early, which would profile a truncated analysis.
NO_BUDGET = 3600.0


def _settings():
    from msport.analysis.settings import Settings

    names = {f.name for f in dataclasses.fields(Settings)}
    return Settings(time_budget=NO_BUDGET) if "time_budget" in names else Settings()


def _unbudgeted_tree(tree: Path) -> Path:
    """A copy of *tree* under a pyproject.toml that lifts the time budget, for the CLI profile."""
    copy = WORK / "corpus" / f"profile-{tree.name}"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(tree, copy / tree.name)
    (copy / "pyproject.toml").write_text(f"[tool.msport]\ntime-budget = {NO_BUDGET}\n", encoding="utf-8")
    return copy / tree.name


def profile_analysis(files: Dict[str, BenchFile], name: str, edits: int) -> List[str]:
    from msport.analysis.engine import Analyzer

    bench_file = files[name]
    text = corpus.variant(bench_file.text, 101)
    analyzer = Analyzer()
    analyzer.analyze(files["examples/yolox_head.py"].text, _settings(), "warm.py")  # rules loaded, like a warm server
    out = [f"### Analysis core, cold open of {name} ({bench_file.lines} lines), cProfile", ""]
    # The same work without the profiler, to read the profiled figures against (cProfile adds
    # a fixed cost per call, so its absolute times are inflated; calls and shares are what count).
    started = time.thread_time()
    analyzer.analyze(corpus.variant(bench_file.text, 103), _settings(), str(bench_file.path))
    out.append(f"Without the profiler the same analysis takes {1e3 * (time.thread_time() - started):.0f} ms CPU.")
    profile = _profiler()
    started = time.thread_time()
    profile.enable()
    result = analyzer.analyze(text, _settings(), str(bench_file.path))
    profile.disable()
    out.append(f"{1e3 * (time.thread_time() - started):.0f} ms CPU under the profiler; {len(result.findings)} findings, "
               f"{result.parsed} chunks parsed, {result.checked} checked.")
    out += ["", "By cumulative time:", ""] + _cprofile_table(profile, "cumulative")
    out += ["", "By own time:", ""] + _cprofile_table(profile, "tottime")
    out += [""] + _keystrokes(analyzer, bench_file, text, edits)
    small = files["examples/yolox_head.py"]
    out += ["", "A small file whose code sits in one class, i.e. one top-level chunk:", ""]
    out += _keystrokes(analyzer, small, corpus.variant(small.text, 101), edits)
    return out


def _keystrokes(analyzer, bench_file: BenchFile, text: str, edits: int) -> List[str]:
    """Keystrokes typed into one function, the caches warm: what one edit costs."""
    line, indent = corpus.edit_site(text)
    lines = text.split("\n")
    lines.insert(line, indent + EDIT_PREFIX)
    analyzer.analyze("\n".join(lines), _settings(), str(bench_file.path))
    profile = _profiler()
    started = time.thread_time()
    for key in range(edits):
        lines[line] += str(key % 9 + 1)
        profile.enable()
        result = analyzer.analyze("\n".join(lines), _settings(), str(bench_file.path))
        profile.disable()
    per_edit = (time.thread_time() - started) / edits
    out = [f"### Analysis core, {edits} keystrokes in {bench_file.name} ({bench_file.lines} lines), caches warm, cProfile", ""]
    out.append(f"{1e3 * per_edit:.1f} ms CPU per keystroke under the profiler; the last one parsed {result.parsed} and checked {result.checked} chunks.")
    out += ["", "By cumulative time:", ""] + _cprofile_table(profile, "cumulative")
    out += ["", "By own time:", ""] + _cprofile_table(profile, "tottime")
    return out


def profile_cli(tree: Path) -> List[str]:
    from msport.cli.main import main as msport_main

    tree = _unbudgeted_tree(tree)
    profile = _profiler()
    started, cpu = time.perf_counter(), time.thread_time()
    with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
        profile.enable()
        msport_main(["check", "-j", "1", str(tree)])  # workers would escape the profiler
        profile.disable()
    lines = corpus.count_lines(corpus.python_files(tree))
    out = [f"### `msport check` on {tree.name} ({lines:,} lines), in-process, cProfile", ""]
    out.append(f"{time.thread_time() - cpu:.1f} CPU-s under the profiler ({time.perf_counter() - started:.1f} s wall).")
    out += ["", "By cumulative time:", ""] + _cprofile_table(profile, "cumulative")
    out += ["", "By own time:", ""] + _cprofile_table(profile, "tottime")
    return out


# -- py-spy on the live server -----------------------------------------------------------------
def _pyspy() -> Optional[str]:
    path = Path(sys.executable).parent / "py-spy"
    return str(path) if path.exists() else shutil.which("py-spy")


class _Recorder:
    def __init__(self, pid: int, output: Path, rate: int = 200):
        self.output = output
        self.proc = subprocess.Popen(
            [_pyspy(), "record", "--pid", str(pid), "--format", "raw", "--rate", str(rate), "--nonblocking", "--output", str(output)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(0.5)  # py-spy attaches before the phase starts

    def stop(self) -> Counter:
        self.proc.send_signal(signal.SIGINT)
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        stacks: Counter = Counter()
        if self.output.exists():
            for line in self.output.read_text(errors="replace").splitlines():
                stack, _, count = line.rpartition(" ")
                if count.isdigit():
                    stacks[stack] += int(count)
        return stacks


def _frame_name(frame: str) -> str:
    # "function (path/to/file.py:123)" -> "file.py:function" (line numbers vary between samples)
    name, _, where = frame.partition(" (")
    path = where.rstrip(")").rsplit(":", 1)[0]
    return f"{_short_path(path)} {name}"


_PLUMBING = (
    "threading.py", "concurrent/", "asyncio/", "<frozen", "msport/__main__.py", "msport/cli/main.py",
    "msport/lsp/server.py run", "pygls/server.py", "pygls/io_.py run", "<string> <module>",
)


def _pyspy_table(stacks: Counter, rate: int, limit: int = TOP) -> List[str]:
    total = sum(stacks.values())
    inclusive: Counter = Counter()
    own: Counter = Counter()
    for stack, count in stacks.items():
        frames = [_frame_name(f) for f in stack.split(";") if f and not f.startswith("process ") and not f.startswith("thread ")]
        for frame in set(frames):
            inclusive[frame] += count
        if frames:
            own[frames[-1]] += count
    out = [f"{total} samples at {rate} Hz (about {total / rate:.2f} s of busy threads).", ""]
    out += ["| function | inclusive | own |", "| --- | --- | --- |"]
    # Frames every stack passes through (thread pool, event loop, entry points) say nothing.
    shown = [(f, c) for f, c in inclusive.most_common() if not f.startswith(_PLUMBING)][:limit]
    for frame, count in shown:
        out.append(f"| `{frame}` | {count / rate * 1e3:.0f} ms ({100 * count / total:.0f}%) | {own[frame] / rate * 1e3:.0f} ms |")
    out += ["", "Most own time:", "", "| function | own |", "| --- | --- |"]
    for frame, count in own.most_common(10):
        out.append(f"| `{frame}` | {count / rate * 1e3:.0f} ms ({100 * count / total:.0f}%) |")
    return out


async def _server_phases(files: Dict[str, BenchFile], name: str, edits: int, hovers: int, many: List[Path]) -> List[str]:
    rate = 200
    session = Session("msport-profiled", [sys.executable, "-m", "msport", "serve"], WORK / "lsp", WORK / "logs" / "msport-profiled.log")
    out: List[str] = []
    try:
        await session.start()
        warm = corpus.REPO / "examples" / "resnet_block.py"
        await session.open(uri_of(warm), warm.read_text(encoding="utf-8"))
        bench_file = files[name]
        text = corpus.variant(bench_file.text, 102)
        path = WORK / "lsp" / "open" / f"profiled_{name}.py"
        path.write_text(text, encoding="utf-8")
        uri = uri_of(path)

        recorder = _Recorder(session.pid, WORK / "profile-open.txt", rate)
        published = await session.open(uri, text)
        out += [f"### Server: open {name} ({bench_file.lines} lines), {published.arrived * 1e3:.0f} ms to diagnostics (under py-spy)", ""]
        out += _pyspy_table(recorder.stop(), rate)

        line, indent = corpus.edit_site(text)
        lines = text.split("\n")
        lines.insert(line, indent + EDIT_PREFIX)
        await session.insert(uri, 2, line, 0, indent + EDIT_PREFIX + "\n")
        column = len(indent) + len(EDIT_PREFIX)
        recorder = _Recorder(session.pid, WORK / "profile-edit.txt", rate)
        took = []
        for key in range(edits):
            digit = str(key % 9 + 1)
            took.append((await session.insert(uri, 3 + key, line, column + key, digit)).arrived)
            lines[line] += digit
        took.sort()
        out += ["", f"### Server: {edits} keystrokes in {name}, p50 {took[len(took) // 2] * 1e3:.0f} ms (under py-spy)", ""]
        out += _pyspy_table(recorder.stop(), rate)

        sites = corpus.hover_sites("\n".join(lines), hovers)
        first, _ = await session.hover(uri, *sites[0][:2])  # cold: loads what hover needs once
        out += ["", f"The first hover took {first * 1e3:.0f} ms (not sampled below)."]
        recorder = _Recorder(session.pid, WORK / "profile-hover.txt", rate)
        took = sorted([(await session.hover(uri, row, col))[0] for row, col, _ in sites])
        out += ["", f"### Server: {len(sites)} hovers on torch names in {name}, p50 {took[len(took) // 2] * 1e3:.1f} ms (under py-spy)", ""]
        out += _pyspy_table(recorder.stop(), rate)
        session.close(uri)

        recorder = _Recorder(session.pid, WORK / "profile-many.txt", rate)
        started = time.perf_counter()
        futures = [session.open_nowait(uri_of(p), p.read_text(encoding="utf-8")) for p in many]
        await asyncio.wait(futures, timeout=600)
        out += ["", f"### Server: {len(many)} files opened at once, all published in {time.perf_counter() - started:.1f} s (under py-spy)", ""]
        out += _pyspy_table(recorder.stop(), rate)
    finally:
        await session.stop()
    return out


# -- start-up and memory -----------------------------------------------------------------------
def import_times(limit: int = 15) -> List[str]:
    code = "import msport.lsp.server"
    proc = subprocess.run([sys.executable, "-X", "importtime", "-c", code], capture_output=True, text=True)
    rows: List[Tuple[int, int, str]] = []
    for line in proc.stderr.splitlines():
        # "import time: <own us> | <cumulative us> | <indented module>"
        parts = line.removeprefix("import time:").split("|")
        if not line.startswith("import time:") or len(parts) != 3 or not parts[0].strip().isdigit():
            continue
        rows.append((int(parts[1]), int(parts[0]), parts[2].rstrip()))
    total = sum(own for _, own, _ in rows)
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - started
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    with_server = time.perf_counter() - started
    out = [f"### Start-up: `python -X importtime -c \"{code}\"`", ""]
    out.append(f"`python -c pass` takes {bare:.3f} s; `python -c \"{code}\"` {with_server:.3f} s; imports sum to {total / 1e6:.3f} s.")
    out += ["", "| module | cumulative | own |", "| --- | --- | --- |"]
    # Top-level imports (least indented) and the heaviest packages below them.
    for cumulative, own, name in sorted(rows, reverse=True)[:limit]:
        depth = (len(name) - len(name.lstrip())) // 2
        out.append(f"| `{'. ' * depth}{name.strip()}` | {cumulative / 1e3:.0f} ms | {own / 1e3:.0f} ms |")
    return out


def memory(paths: List[Path], limit: int = 15) -> List[str]:
    from msport.analysis.engine import Analyzer

    tracemalloc.start()
    before = tracemalloc.take_snapshot()
    analyzer = Analyzer()
    kept = [analyzer.analyze(p.read_text(encoding="utf-8"), _settings(), str(p)) for p in paths]
    after = tracemalloc.take_snapshot()
    tracemalloc.stop()
    total = sum(stat.size_diff for stat in after.compare_to(before, "filename"))
    out = [f"### Memory: {len(kept)} files analysed and kept (as the server keeps them), tracemalloc", ""]
    out.append(f"{total / 1e6:.0f} MB allocated by Python and still alive (interpreter and modules excluded).")
    out += ["", "| allocated in | MB | blocks |", "| --- | --- | --- |"]
    for stat in after.compare_to(before, "lineno")[:limit]:
        frame = stat.traceback[0]
        out.append(f"| `{_short_path(frame.filename)}:{frame.lineno}` | {stat.size_diff / 1e6:.1f} | {stat.count_diff} |")
    out += ["", "By file:", "", "| file | MB |", "| --- | --- |"]
    for stat in after.compare_to(before, "filename")[:8]:
        out.append(f"| `{_short_path(stat.traceback[0].filename)}` | {stat.size_diff / 1e6:.1f} |")
    del kept, analyzer
    return out


def write(files: Dict[str, BenchFile], output: Path, quick: bool = False) -> None:
    timm = corpus.timm_tree(sys.executable)
    many = corpus.python_files(timm)[: 100 if quick else 300]
    import machine

    meta = machine.describe(corpus.REPO, "ruff")
    sections: List[str] = [
        f"# msport profile ({'quick' if quick else 'full'}): {time.strftime('%Y-%m-%d')} on {machine.tag()}",
        "",
        f"msport {meta['msport']}; {meta['Python']}; load average at start {machine.load_average()}.",
        "cProfile figures are CPU time of the profiled thread; py-spy samples (200 Hz, non-blocking) count",
        "busy server threads, so they include time spent waiting for a core on a loaded machine.",
        "",
    ]
    print("bench: profiling the analysis core", flush=True)
    sections += profile_analysis(files, "concat_7k", 5 if quick else 15)
    if _pyspy():
        print("bench: profiling the live server with py-spy", flush=True)
        sections += [""] + asyncio.run(_server_phases(files, "concat_7k", 5 if quick else 15, 20 if quick else 40, many))
    print("bench: profiling start-up imports", flush=True)
    sections += [""] + import_times()
    print("bench: profiling memory", flush=True)
    sections += [""] + memory(many)
    print("bench: profiling msport check", flush=True)
    tree = WORK / "corpus" / "quick-tree" if quick and (WORK / "corpus" / "quick-tree").exists() else timm
    sections += [""] + profile_cli(tree)
    output.write_text("\n".join(sections) + "\n", encoding="utf-8")
