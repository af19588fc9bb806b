#!/usr/bin/env python3
"""Cold start to first squiggles, msport's server beside references from the same run.

    python bench/cold_start.py [--reps 5] [--file examples/yolox_head.py] [--source OTHER/server]

Each round, in alternating order so that every server sees the same machine load:

- `python -c pass` (the interpreter's own start, the floor any Python server pays);
- `ruff server`: spawn -> initialize answered, and -> first diagnostics of the file opened right
  after `initialized` (what an editor does with the file it restores);
- msport's server (this checkout, and with `--source` another checkout's server/ folder, e.g. a
  frozen copy of main): the same two figures, plus the server's CPU (all threads, /proc) at its
  first diagnostics, which load distorts far less than wall time.

Every rep is a fresh process with an empty analysis cache (the compiled rule cache of
knowledge/cache.py stays where it is, as on a user's machine after the first start: one per
checkout, in bench/work, filled by an unmeasured start). Prints a Markdown table with p50
figures and ratios to `python -c pass` and ruff server of the same run.
Issue 18's target: first diagnostics <= 1.5 s after a fresh window opens a file.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from lspclient import Session, uri_of  # noqa: E402
from machine import load_average  # noqa: E402

WORK = BENCH / "work"


def _python_pass() -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    return time.perf_counter() - started


async def _server(name: str, command: List[str], env: Optional[Dict[str, str]], path: Path) -> Dict[str, float]:
    session = Session(name, command, WORK / "lsp", WORK / "logs" / f"cold-{name}.log", env=env)
    spawned = time.perf_counter()
    try:
        initialized = await session.start()
        published = await session.open(uri_of(path), path.read_text(encoding="utf-8"))
        first = published.arrived + (session.writer.last - spawned)
        return {"initialize": initialized, "first": first, "cpu": session.cpu_seconds(), "findings": float(published.count)}
    finally:
        await session.stop()


def _ruff() -> Optional[str]:
    local = Path(sys.executable).parent / "ruff"
    for candidate in (local, WORK / "venv" / "bin" / "ruff"):
        if candidate.exists():
            return str(candidate)
    return None


async def measure(reps: int, path: Path, source: Optional[Path]) -> Dict[str, Dict[str, List[float]]]:
    # Each checkout its own compiled rule cache: the cache keeps one entry (its key covers the
    # loader's code), so two checkouts sharing one would rebuild it at every other start.
    servers = {"msport": ([sys.executable, "-m", "msport", "serve"], dict(os.environ, MSPORT_CACHE_DIR=str(WORK / "cache-cold")))}
    if source is not None:
        servers["msport (reference)"] = ([sys.executable, "-m", "msport", "serve"], dict(
            os.environ, PYTHONPATH=str(source.resolve()), MSPORT_CACHE_DIR=str(WORK / "cache-cold-reference")))
    ruff = _ruff()
    if ruff is not None:
        servers["ruff server"] = ([ruff, "server"], None)
    figures: Dict[str, Dict[str, List[float]]] = {"python -c pass": {"first": []}}
    figures.update({name: {"initialize": [], "first": [], "cpu": [], "findings": []} for name in servers})
    (WORK / "lsp").mkdir(parents=True, exist_ok=True)  # the servers' working directory
    for name, (command, env) in servers.items():  # unmeasured: fills each checkout's rule cache, as a user's first start does
        if env is not None and "MSPORT_CACHE_DIR" in env:
            await _server(name, command, env, path)
    for rep in range(reps):
        figures["python -c pass"]["first"].append(_python_pass())
        order = list(servers.items()) if rep % 2 == 0 else list(servers.items())[::-1]
        for name, (command, env) in order:
            for key, value in (await _server(name, command, env, path)).items():
                figures[name][key].append(value)
        print(f"rep {rep + 1}/{reps}: " + ", ".join(f"{n} {statistics.median(f['first']) * 1000:.0f} ms" for n, f in figures.items()), flush=True)
    return figures


def table(figures: Dict[str, Dict[str, List[float]]]) -> str:
    floor = statistics.median(figures["python -c pass"]["first"])
    ruff = figures.get("ruff server")
    ruff_first = statistics.median(ruff["first"]) if ruff else None
    rows = ["| process | spawn -> initialize answered p50 | spawn -> first diagnostics p50 (min-max) | x `python -c pass` | x ruff server | CPU at first diagnostics p50 |",
            "| --- | --- | --- | --- | --- | --- |"]
    for name, values in figures.items():
        first = statistics.median(values["first"])
        init = f"{statistics.median(values['initialize']) * 1000:.0f} ms" if values.get("initialize") else "-"
        cpu = f"{statistics.median(values['cpu']) * 1000:.0f} ms" if values.get("cpu") else "-"
        spread = f"{min(values['first']) * 1000:.0f}-{max(values['first']) * 1000:.0f}"
        versus_ruff = f"{first / ruff_first:.1f}x" if ruff_first else "-"
        rows.append(f"| {name} | {init} | {first * 1000:.0f} ms ({spread}) | {first / floor:.1f}x | {versus_ruff} | {cpu} |")
    return "\n".join(rows)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/cold_start.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--file", type=Path, default=REPO / "examples" / "yolox_head.py")
    parser.add_argument("--source", type=Path, help="another checkout's server/ folder, measured beside this one")
    args = parser.parse_args(argv)
    load = load_average()
    figures = asyncio.run(measure(args.reps, args.file.resolve(), args.source))
    print(f"\nfile {args.file.name}, {args.reps} reps, load average {load} -> {load_average()}\n")
    print(table(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
