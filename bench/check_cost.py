#!/usr/bin/env python3
"""CPU cost of each check family, side by side with ast.parse of the same files.

    python bench/check_cost.py [TREE] [--repeat 3]

Analyses every .py file of TREE (default: timm from the test corpus, .cache/corpus/timm) with a
fresh analyzer per family, single-threaded, and prints CPU seconds per family and per 1,000
lines, next to what parsing the files costs: a family's cost on every keystroke is this figure
for the chunk being edited. Timing is never asserted in the tests; this is where it is measured.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from msport.analysis import Analyzer, Settings  # noqa: E402
from msport.analysis.checks import CHECKS  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=ROOT / ".cache" / "corpus" / "timm")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    texts = [p.read_text(encoding="utf-8", errors="replace") for p in sorted(args.tree.rglob("*.py"))]
    lines = sum(t.count("\n") + 1 for t in texts)
    print(f"{len(texts)} files, {lines:,} lines under {args.tree}")

    def best(run) -> float:
        times = []
        for _ in range(args.repeat):
            start = time.process_time()
            run()
            times.append(time.process_time() - start)
        return min(times)

    def parse_all():
        for text in texts:
            ast.parse(text)

    rows = [("ast.parse (reference)", best(parse_all))]
    baseline = None
    for check in (None, *CHECKS):
        checks = () if check is None else (check,)

        def analyse_all(checks=checks):
            analyzer = Analyzer(checks=checks)
            for index, text in enumerate(texts):
                analyzer.analyze(text, Settings(), f"f{index}.py")

        cost = best(analyse_all)
        if check is None:
            baseline = cost
            rows.append(("parse, chunks, names, graph context (no check)", cost))
        else:
            rows.append((f"{check.__name__} (its own cost)", cost - baseline))
    print(f"{'':52s} {'CPU s':>8s} {'ms / 1k lines':>14s} {'x ast.parse':>12s}")
    for name, seconds in rows:
        print(f"{name:52s} {seconds:8.2f} {1000 * seconds / lines * 1000:14.2f} {seconds / rows[0][1]:12.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
