#!/usr/bin/env python3
"""Pathological sizes (issue 19): how long msport takes and how much memory it holds on inputs
no one should write but a repository may hold, against the issue's targets.

    python bench/pathological.py                      # every case, this checkout
    python bench/pathological.py --source OLD/server  # the same with another checkout's msport
    python bench/pathological.py --cases file_200k --keystrokes 5

Cases (written to bench/work/pathological/, each in a folder whose pyproject.toml raises
max-lines and max-file-size so that the size limits do not simply skip them):

- ``file_200k``: a 200,000-line file of real model code (timm's models and layers, concatenated);
- ``function_50k``: one function of 50,000 lines (branches on tensor values, every third line);
- ``function_30k``: the same with 30,000 lines (0.8 MB: under the size at which a statement is
  not parsed, so its checks run until their share of the time budget);
- ``function_2k``: a 2,000-line function of the same kind in an otherwise small file;
- ``line_5mb``: one 5.4 MB statement on one line (a list of 340,000 torch calls).

Measured for each: ``msport check -j 1 FILE`` (wall time, peak RSS of the process, findings and
whether an MS002 says part was not checked), and the language server (didOpen until its
diagnostics, then single-character keystrokes inside the big statement, each until the
diagnostics of that version; the server's peak RSS). Beside them, the reference: ``ast.parse``
of the same text in a fresh process (time, peak RSS), the least any Python-based analysis pays.
Targets: <= 5 s and <= 500 MB for the 200k-line file in the CLI; per keystroke, bounded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Dict, List, Optional, Tuple

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))

import corpus  # noqa: E402
from lspclient import Session, uri_of  # noqa: E402
from machine import load_average  # noqa: E402

WORK = BENCH / "work" / "pathological"
CASES = ("file_200k", "function_50k", "function_30k", "function_2k", "line_5mb")
PYPROJECT = '[tool.msport]\nmax-lines = 400000\nmax-file-size = "50 MB"\n'
TARGET_SECONDS, TARGET_MB = 5.0, 500.0


# -- inputs -------------------------------------------------------------------------------------
def _function(lines: int) -> str:
    """A function of about *lines* lines: a tensor op, a data-dependent branch, a mask index."""
    body = "".join(
        f"    b{i} = torch.cat([a, b{max(i - 1, 0)}])\n    if b{i}.sum() > 0:\n        c = b{i}[mask]\n"
        for i in range(lines // 3)
    )
    return f"def f(a, mask):\n    b0 = a\n{body}    return c\n"


def build(case: str) -> Tuple[Path, int]:
    """(the file of *case*, the 0-based line keystrokes go to)."""
    folder = WORK / case
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pyproject.toml").write_text(PYPROJECT)
    path = folder / f"{case}.py"
    if case == "file_200k":
        timm = corpus.timm_tree(sys.executable)
        sources = corpus.python_files(timm / "models") + corpus.python_files(timm / "layers")
        text = corpus.concatenation(sources * 3, 210_000)
        line = corpus.edit_site(text)[0]
    elif case == "function_50k":
        text = "import torch\n\n\n" + _function(50_000)
        line = 3 + 25_000
    elif case == "function_30k":
        text = "import torch\n\n\n" + _function(30_000)
        line = 3 + 15_000
    elif case == "function_2k":
        text = "import torch\n\n\ndef g(x):\n    return torch.flatten(x)\n\n\n" + _function(2_000) + "\n\ny = torch.cat([a, a])\n"
        line = 7 + 1_000
    elif case == "line_5mb":
        text = "import torch\nx = [" + "torch.zeros(3), " * 340_000 + "]\n"
        line = 1
    else:
        raise ValueError(case)
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path, line


# -- measurements -------------------------------------------------------------------------------
@dataclass
class Run:
    seconds: float
    peak_mb: float
    detail: str = ""


def _peak_mb(pid: int) -> float:
    """VmHWM of a running process: the peak of its own memory since exec. (wait4's ru_maxrss
    would also count the parent's pages the child held between fork and exec.)"""
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


def _measured(command: List[str], env: Dict[str, str], cwd: Path, timeout: float) -> Tuple[Run, subprocess.CompletedProcess]:
    """Run *command*; wall time and its peak RSS, read from /proc every 10 ms until it exits."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out_chunks: List[bytes] = []
    err_chunks: List[bytes] = []
    readers = [threading.Thread(target=lambda s=s, b=b: b.extend(iter(lambda: s.read(65536), b"")), daemon=True)
               for s, b in ((process.stdout, out_chunks), (process.stderr, err_chunks))]
    for reader in readers:
        reader.start()
    peak = 0.0
    killed = False
    while process.poll() is None:
        peak = max(peak, _peak_mb(process.pid))
        if time.perf_counter() - started > timeout:
            process.kill()
            process.wait()
            killed = True
            break
        time.sleep(0.01)
    seconds = time.perf_counter() - started
    for reader in readers:
        reader.join()
    done = subprocess.CompletedProcess(command, process.returncode, b"".join(out_chunks), b"".join(err_chunks))
    if killed:
        return Run(float("inf"), peak, f"killed after {timeout:.0f} s"), done
    return Run(seconds, peak), done


def measure_parse(path: Path, env: Dict[str, str]) -> Run:
    code = "import ast, sys; ast.parse(open(sys.argv[1], encoding='utf-8').read())"
    run, done = _measured([sys.executable, "-c", code, str(path)], env, path.parent, 600)
    if done.returncode:
        run.detail = done.stderr.decode(errors="replace").strip().splitlines()[-1]
    return run


def measure_cli(path: Path, env: Dict[str, str], timeout: float) -> Run:
    run, done = _measured([sys.executable, "-m", "msport", "check", "-j", "1", "--format", "json", str(path)], env, path.parent, timeout)
    if run.seconds == float("inf"):
        return run
    try:
        findings = json.loads(done.stdout)
    except ValueError:
        run.detail = "no JSON: " + done.stderr.decode(errors="replace").strip()[-200:]
        return run
    skipped = [f["message"] for f in findings if f["code"] == "MS002"]
    run.detail = f"{len(findings)} findings" + (f"; MS002: {skipped[0][:140]}" if skipped else "")
    return run


@dataclass
class ServerRun:
    open: Run
    keystrokes: List[float] = field(default_factory=list)
    peak_mb: float = float("nan")
    detail: str = ""


async def measure_server(path: Path, line: int, env: Dict[str, str], keystrokes: int, timeout: float) -> ServerRun:
    session = Session("msport", [sys.executable, "-m", "msport", "serve"], path.parent, WORK / "logs" / f"{path.stem}.log", env=env)
    await session.start()
    text = path.read_text(encoding="utf-8")
    uri = uri_of(path)
    try:
        try:
            published = await session.open(uri, text, 1, timeout=timeout)
        except asyncio.TimeoutError:
            return ServerRun(Run(float("inf"), session.memory().get("VmHWM", 0) / 2**20, f"no diagnostics within {timeout:.0f} s"))
        result = ServerRun(Run(published.arrived, float("nan"), f"{published.count} diagnostics" + (" (MS002)" if published.codes.get("MS002") else "")))
        column = len(text.split("\n")[line].encode("utf-16-le")) // 2
        typed = "  # x"
        for version, char in enumerate((typed * keystrokes)[:keystrokes], start=2):
            try:
                done = await session.insert(uri, version, line, column, char, timeout=timeout)
            except asyncio.TimeoutError:
                result.keystrokes.append(float("inf"))
                result.detail = f"a keystroke took over {timeout:.0f} s"
                break
            result.keystrokes.append(done.arrived)
            column += 1
        result.peak_mb = session.memory().get("VmHWM", 0) / 2**20
        return result
    finally:
        await session.stop()


# -- report -------------------------------------------------------------------------------------
def _seconds(value: float) -> str:
    return "timeout" if value == float("inf") else f"{value:.2f} s"


def _mb(value: float) -> str:
    return "n/a" if value != value else f"{value:.0f} MB"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/pathological.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--source", type=Path, help="measure the msport package of this server/ folder instead (PYTHONPATH)")
    parser.add_argument("--label", default="", help="what the run measured, for the results file (e.g. a commit)")
    parser.add_argument("--keystrokes", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds before one measurement is abandoned")
    parser.add_argument("--output", type=Path, help="also write the Markdown results here")
    parser.add_argument("--skip-server", action="store_true")
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.source:
        env["PYTHONPATH"] = str(args.source.resolve()) + os.pathsep + env.get("PYTHONPATH", "")
    env["MSPORT_CACHE_DIR"] = str(WORK / "cache")
    lines = [
        f"# Pathological sizes{': ' + args.label if args.label else ''}",
        "",
        f"{datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, load average {load_average()}, Python {sys.version.split()[0]}"
        + (f", msport from {args.source}" if args.source else ""),
        "",
        "| case | lines | bytes | ast.parse (reference) | `msport check` | CLI peak RSS | what the CLI reported | server: open | server: keystroke p50 / max | server peak RSS | server |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
    ]
    print("\n".join(lines), flush=True)
    for case in args.cases:
        path, line = build(case)
        size = path.stat().st_size
        count = path.read_bytes().count(b"\n")
        parse = measure_parse(path, env)
        cli = measure_cli(path, env, args.timeout)
        if args.skip_server:
            server = ServerRun(Run(float("nan"), float("nan")))
        else:
            server = asyncio.run(measure_server(path, line, env, args.keystrokes, args.timeout))
        keys = server.keystrokes
        key_text = f"{_seconds(statistics.median(keys))} / {_seconds(max(keys))}" if keys else "n/a"
        row = (f"| {case} | {count:,} | {size / 1e6:.1f} MB | {_seconds(parse.seconds)}, {_mb(parse.peak_mb)} | {_seconds(cli.seconds)} | "
               f"{_mb(cli.peak_mb)} | {cli.detail} | {_seconds(server.open.seconds)} | {key_text} | {_mb(server.peak_mb)} | "
               f"{server.open.detail}{'; ' + server.detail if server.detail else ''} |")
        lines.append(row)
        print(row, flush=True)
    if "file_200k" in args.cases:
        lines += ["", f"Targets (file_200k, CLI): <= {TARGET_SECONDS:g} s and <= {TARGET_MB:g} MB; see the row above."]
    if args.output:
        args.output.parent.mkdir(parents=True, exist_ok=True)
        args.output.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
