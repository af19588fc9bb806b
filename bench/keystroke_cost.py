#!/usr/bin/env python3
"""CPU cost of opening a file and of each keystroke in it, in the analysis core, beside ast.parse.

    python bench/keystroke_cost.py FILE [FILE...] [--keystrokes 5] [--source OTHER/server]

For each file: one analysis of its text as opened (a fresh analyzer, rules loaded first), then
keystrokes typed one character at a time into a statement in the middle of a function near the
middle of the file (bench/corpus.edit_site), each analysed as the server does after didChange
(`edit=True` where the analyzer takes it). CPU time of this thread (`time.thread_time`), so a
loaded machine inflates the figures far less than wall time; no time budget (the whole file is
checked). The reference is ast.parse of the text in the same fresh process before anything else
(cold, as bench/pathological.py's; a warm parse, as bench/run.py times it, is ~1.5x faster).
Prints the open and the keystroke p50 / max, and where a keystroke's time goes (each
phase of Analyzer.analyze). `--source` runs the same in a subprocess on another checkout's
server/ folder (PYTHONPATH), for before/after figures in one run. Timing is never asserted in
the tests; this is where it is measured.
"""

from __future__ import annotations

import argparse
import ast
import collections
import gc
import inspect
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def measure(path: Path, keystrokes: int) -> str:
    import corpus
    from msport.analysis import engine
    from msport.analysis.engine import Analyzer
    from msport.analysis.settings import Settings

    spent = collections.Counter()

    def timed(name, function):
        def wrapper(*args, **kwargs):
            started = time.thread_time()
            try:
                return function(*args, **kwargs)
            finally:
                spent[name] += time.thread_time() - started
        return wrapper

    engine.GraphContextBuilder.extend = timed("graph facts", engine.GraphContextBuilder.extend)
    engine.SecondOrderPathsBuilder.extend = timed("second-order paths", engine.SecondOrderPathsBuilder.extend)
    engine.UnusedTorchImports.findings = timed("unused imports", engine.UnusedTorchImports.findings)
    engine.Analyzer._check_chunk = timed("checks", engine.Analyzer._check_chunk)
    engine.Analyzer._finish = timed("settings and suppressions", engine.Analyzer._finish)
    engine.chunk_starts = timed("chunk split", engine.chunk_starts)
    engine.parse_chunk = timed("parse", engine.parse_chunk)

    text = path.read_text(encoding="utf-8")
    settings = Settings(time_budget=3600.0, max_lines=10**7)
    started = time.thread_time()
    ast.parse(text)
    parse = time.thread_time() - started
    analyzer = Analyzer()
    analyzer.analyze("import torch\nx = torch.ones(1)\n", settings, "warm.py")
    try:  # the collector's settings the server makes once its rules are loaded
        from msport import gc_tuning
        gc_tuning.tune()
    except ImportError:  # a checkout before msport.gc_tuning: its server froze the rules only
        gc.freeze()
    edit = "edit" in inspect.signature(analyzer.analyze).parameters
    started = time.thread_time()
    result = analyzer.analyze(text, settings, str(path))
    opened = time.thread_time() - started
    line, indent = corpus.edit_site(text)
    lines = text.split("\n")
    lines.insert(line, indent + "x = 1")
    analyzer.analyze("\n".join(lines), settings, str(path), **({"edit": True} if edit else {}))
    spent.clear()
    times = []
    for key in range(keystrokes):
        lines[line] += str(key % 9 + 1)
        started = time.thread_time()
        analyzer.analyze("\n".join(lines), settings, str(path), **({"edit": True} if edit else {}))
        times.append(time.thread_time() - started)
    per = {name: seconds / keystrokes for name, seconds in spent.most_common()}
    other = statistics.mean(times) - sum(per.values())
    phases = ", ".join(f"{name} {1e3 * s:.0f}" for name, s in per.items() if s >= 0.0005)
    return (f"| {path.name} | {len(text.split(chr(10))):,} | {1e3 * parse:.0f} ms | {1e3 * opened:.0f} ms ({opened / parse:.1f}x) | "
            f"{len(result.findings)} | {1e3 * statistics.median(times):.0f} / {1e3 * max(times):.0f} ms | {phases}, rest {1e3 * other:.0f} |")


HEADER = ("| file | lines | ast.parse CPU | open CPU (/ ast.parse) | findings | keystroke CPU p50 / max | keystroke phases, ms |\n"
          "| --- | --- | --- | --- | --- | --- | --- |")


def main() -> int:
    parser = argparse.ArgumentParser(prog="bench/keystroke_cost.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="+", type=Path)
    parser.add_argument("--keystrokes", type=int, default=5)
    parser.add_argument("--source", type=Path, help="also measure the msport of this server/ folder (before/after)")
    parser.add_argument("--row", action="store_true", help=argparse.SUPPRESS)  # one file's row, for --source
    args = parser.parse_args()
    if args.row:
        print(measure(args.files[0], args.keystrokes))
        return 0
    sources = [("this checkout", None)] + ([(str(args.source), args.source)] if args.source else [])
    for label, source in sources:
        print(f"\n{label}:\n\n{HEADER}")
        for path in args.files:
            env = dict(os.environ)
            if source is not None:
                env["PYTHONPATH"] = str(source.resolve())
            # A process per file and checkout: caches and memory start empty for each.
            run = subprocess.run([sys.executable, __file__, "--row", "--keystrokes", str(args.keystrokes), str(path.resolve())],
                                 env=env, capture_output=True, text=True)
            print(run.stdout.strip() if run.returncode == 0 else f"| {path.name} | failed: {run.stderr.strip()[-300:]} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
