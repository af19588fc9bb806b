#!/usr/bin/env python3
"""Where an analysis's CPU goes, by phase of the engine and by check family.

    python bench/profile_families.py FILE_OR_TREE [...] [--concat 7000] [--timm]

Analyses each file once as opened (a fresh analyzer, rules loaded and one small file analysed
first, no time budget) and prints the CPU time (`time.thread_time`, which a loaded machine
distorts far less than wall time) of each engine phase and of each family's run over all
chunks, beside `ast.parse` of the same texts. `--concat N`: also a concatenation of timm's model
files of about N lines (bench/corpus.py, as the quick bench's concat files); `--timm`: timm's
models/ and layers/ trees from the dev corpus. The figures are per analysis, not exclusive
across rows: a family's run includes the scope inference it does for itself.
"""

from __future__ import annotations

import argparse
import ast
import collections
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Tuple

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
TIMM = Path("/work/corpus/dev/timm/timm")


def _timed(spent: collections.Counter, name: str, function: Callable) -> Callable:
    def wrapper(*args, **kwargs):
        started = time.thread_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.thread_time() - started
    return wrapper


def measure(texts: List[Tuple[str, str]]) -> Tuple[float, float, Dict[str, float]]:
    from msport.analysis import engine
    from msport.analysis.checks import CHECKS
    from msport.analysis.engine import Analyzer
    from msport.analysis.settings import Settings

    spent: collections.Counter = collections.Counter()
    for check in CHECKS:
        check.run = _timed(spent, f"family {check.__name__}", check.run)
    phases = {
        "parse (ast)": (engine, "parse_chunk"),
        "chunk split": (engine, "chunk_starts"),
        "module context": (engine, "build_module_context"),
        "graph facts (provenance summaries)": (engine.GraphContextBuilder, "extend"),
        "second-order paths": (engine.SecondOrderPathsBuilder, "extend"),
        "port fixes": (engine, "attach_port_fixes"),
        "unused imports": (engine.UnusedTorchImports, "findings"),
        "settings and suppressions": (engine.Analyzer, "_finish"),
    }
    for name, (owner, attribute) in phases.items():
        setattr(owner, attribute, _timed(spent, f"phase {name}", getattr(owner, attribute)))
    settings = Settings(time_budget=3600.0, max_lines=10**7)
    analyzer = Analyzer()
    analyzer.analyze("import torch\nx = torch.ones(1)\n", settings, "warm.py")
    spent.clear()
    parse = total = 0.0
    for text, path in texts:
        started = time.thread_time()
        ast.parse(text)
        parse += time.thread_time() - started
        started = time.thread_time()
        analyzer.analyze(text, settings, path)
        total += time.thread_time() - started
    return parse, total, dict(spent)


def report(label: str, texts: List[Tuple[str, str]]) -> str:
    lines = sum(text.count("\n") + 1 for text, _ in texts)
    parse, total, spent = measure(texts)
    out = [f"### {label}: {len(texts)} file(s), {lines:,} lines", "",
           f"Analysis {total * 1e3:.0f} ms CPU, ast.parse {parse * 1e3:.0f} ms ({total / max(parse, 1e-9):.1f}x).", "",
           "| where | CPU | share of the analysis |", "| --- | --- | --- |"]
    for name, seconds in sorted(spent.items(), key=lambda item: -item[1]):
        out.append(f"| {name} | {seconds * 1e3:.0f} ms | {100 * seconds / total:.0f}% |")
    return "\n".join(out) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("paths", nargs="*", type=Path)
    parser.add_argument("--concat", type=int, help="a concatenation of timm's model files of about this many lines")
    parser.add_argument("--timm", action="store_true", help="timm's models/ and layers/ from the dev corpus")
    args = parser.parse_args(argv)
    runs: List[Tuple[str, List[Tuple[str, str]]]] = []
    for path in args.paths:
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        runs.append((str(path), [(f.read_text(encoding="utf-8", errors="replace"), str(f)) for f in files]))
    if args.concat:
        import corpus

        text = corpus.concatenation(corpus.python_files(TIMM / "models"), args.concat)
        runs.append((f"concat_{args.concat // 1000}k", [(text, f"concat_{args.concat // 1000}k.py")]))
    if args.timm:
        import corpus

        files = corpus.python_files(TIMM / "models") + corpus.python_files(TIMM / "layers")
        runs.append(("timm models/ + layers/", [(f.read_text(encoding="utf-8"), str(f)) for f in files]))
    for label, texts in runs:  # each in its own process: one analysis's caches must not serve the next
        if len(runs) > 1:
            import subprocess

            print(subprocess.run([sys.executable, __file__, *_argv_for(label, args)], capture_output=True, text=True).stdout, flush=True)
        else:
            print(report(label, texts), flush=True)
    return 0


def _argv_for(label: str, args) -> List[str]:
    if label.startswith("concat_"):
        return ["--concat", str(args.concat)]
    if label.startswith("timm "):
        return ["--timm"]
    return [label]


if __name__ == "__main__":
    sys.exit(main())
