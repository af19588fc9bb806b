#!/usr/bin/env python3
"""`msport check` over a whole tree beside the ast.parse floor, and beside a reference checkout.

    python bench/tree_check.py [TREE] [--reps 2] [--source OTHER/server] [--jobs N]

TREE defaults to the 140k-line timm tree of bench/ (bench/work/corpus/timm-*). Each rep, in
alternating order so that both sides see the same load: the floor (a fresh `python` reading
and `ast.parse`-ing every .py file of the tree, one process), `msport check --format json TREE`
from this checkout and, with --source, from another checkout's server/ folder (PYTHONPATH).
Wall time and CPU (user + system of the process and its workers, RUSAGE_CHILDREN). Prints p50
figures and their ratios to the floor of the same run; issue 13's target is msport check
<= 3x the ast.parse floor in wall time. The two sides' JSON reports are compared: a speed change
must not change a finding.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(BENCH))

from machine import load_average  # noqa: E402

FLOOR = (
    "import ast, pathlib, sys\n"
    "for path in sorted(pathlib.Path(sys.argv[1]).rglob('*.py')):\n"
    "    ast.parse(path.read_text(encoding='utf-8', errors='replace'))\n"
)


def _timed(command: List[str], env: Optional[Dict[str, str]] = None) -> tuple:
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if run.returncode not in (0, 1):
        raise SystemExit(f"{command[:4]} exited {run.returncode}:\n{run.stderr[-2000:]}")
    return wall, cpu, run.stdout


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/tree_check.py", description=__doc__.split("\n\n")[0])
    default = next(iter(sorted((BENCH / "work" / "corpus").glob("timm-*"))), None)
    parser.add_argument("tree", nargs="?", type=Path, default=default)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--source", type=Path, help="another checkout's server/ folder, measured beside this one")
    parser.add_argument("--jobs", type=int, help="msport check -j N (default: msport's own)")
    args = parser.parse_args(argv)
    if args.tree is None or not args.tree.is_dir():
        raise SystemExit("bench/tree_check.py: no tree (bench/run.py downloads timm into bench/work/corpus)")
    files = sorted(args.tree.rglob("*.py"))
    lines = sum(p.read_text(encoding="utf-8", errors="replace").count("\n") for p in files)
    msport = [sys.executable, "-m", "msport", "check", "--format", "json", *(["-j", str(args.jobs)] if args.jobs else []), str(args.tree)]
    sides: Dict[str, Optional[Dict[str, str]]] = {"msport": None}
    if args.source is not None:
        sides["msport (reference)"] = dict(os.environ, PYTHONPATH=str(args.source.resolve()))
    figures: Dict[str, Dict[str, List[float]]] = {name: {"wall": [], "cpu": []} for name in ["ast.parse floor", *sides]}
    reports: Dict[str, str] = {}
    load = load_average()
    for rep in range(args.reps):
        wall, cpu, _ = _timed([sys.executable, "-c", FLOOR, str(args.tree)])
        figures["ast.parse floor"]["wall"].append(wall)
        figures["ast.parse floor"]["cpu"].append(cpu)
        for name, env in (list(sides.items()) if rep % 2 == 0 else list(sides.items())[::-1]):
            wall, cpu, out = _timed(msport, env)
            figures[name]["wall"].append(wall)
            figures[name]["cpu"].append(cpu)
            reports[name] = out
        print(f"rep {rep + 1}/{args.reps} done", flush=True)
    floor_wall = statistics.median(figures["ast.parse floor"]["wall"])
    floor_cpu = statistics.median(figures["ast.parse floor"]["cpu"])
    print(f"\n{args.tree.name}: {len(files)} files, {lines:,} lines; {args.reps} reps; load average {load} -> {load_average()}\n")
    print("| process | wall p50 (all reps) | x floor wall | CPU p50 | x floor CPU |")
    print("| --- | --- | --- | --- | --- |")
    for name, values in figures.items():
        wall, cpu = statistics.median(values["wall"]), statistics.median(values["cpu"])
        every = ", ".join(f"{w:.1f}" for w in values["wall"])
        print(f"| {name} | {wall:.1f} s ({every}) | {wall / floor_wall:.1f}x | {cpu:.1f} s | {cpu / floor_cpu:.1f}x |")
    if len(reports) == 2:
        same = len(set(reports.values())) == 1
        print(f"\nJSON reports of both sides {'identical' if same else 'DIFFER'}")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
