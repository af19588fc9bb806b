"""Score msport against hand-made labels of real projects (kept outside the repository).

Two kinds of label files (JSON lines), made by someone who never saw msport's output:

- dynamic-shape labels: ``{"project", "path", "line", "label": "positive"|"negative", "kind",
  "graph": "yes"|"no"|"unclear", "certainty": "certain"|"uncertain", ...}``: a positive line must get
  an MS2xx finding starting on it, a negative line none;
- graph-mode, second-order and sparse labels: the same fields (and ``api`` for the last two); a
  positive line must get a finding of that family (MS4xx, MS5xx, MS6xx), a negative line none;
- call-site labels: ``{"project", "path", "line", "col", "method", "tensor": "yes"|"no"|"unclear"}``
  (a tensor method call) or ``{..., "method": null, "function": "torch.x"}`` (a module function):
  a tensor receiver (or a torch function) must get a verdict from msport (a finding, or an
  equivalent use counted by ``msport report``).

Each project directory is checked the way a user would: ``msport check DIR`` (with its project
index), in a subprocess, so nothing of the scoring leaks into msport. Prints precision and
recall overall, per project, per kind and for lines in graph context, and the misses and false
alarms (``--show`` misses|alarms|both) for reading on a development corpus.

    python tools/score_labels.py dynamic-shape LABELS.jsonl --corpus /work/corpus/dev
    python tools/score_labels.py call-sites LABELS.jsonl --corpus /work/corpus/dev
    python tools/score_labels.py graph-mode|second-order|sparse LABELS.jsonl --corpus /work/corpus/dev
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Dict, Iterable, List, Set, Tuple


def _load(path: Path) -> List[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def _run(command: List[str]) -> str:
    run = subprocess.run([sys.executable, "-m", "msport", *command], capture_output=True, text=True)
    if run.returncode not in (0, 1):
        raise SystemExit(f"msport {' '.join(command)} failed ({run.returncode}):\n{run.stderr[-2000:]}")
    return run.stdout


def _check(project_dir: Path, select: str) -> Dict[Tuple[str, int], Set[str]]:
    """(path relative to the project dir, 1-based line) -> codes found there."""
    found: Dict[Tuple[str, int], Set[str]] = defaultdict(set)
    for finding in json.loads(_run(["check", str(project_dir), "--format", "json", "--select", select]) or "[]"):
        path = Path(finding["path"])
        relative = path.relative_to(project_dir).as_posix() if path.is_absolute() else Path(finding["path"]).as_posix()
        if relative.startswith(project_dir.as_posix()):
            relative = relative[len(project_dir.as_posix()) + 1:]
        found[(relative, finding["line"])].add(finding["code"])
    return found


def _statement_lines(path: Path) -> Dict[int, Tuple[int, int]]:
    """Line -> (first, last) line of the innermost statement holding it (the header of an
    if/for/while/with/def): a label names the line of a construct's key token, a finding starts
    where msport points (the offending argument of a call spread over lines), the same statement."""
    import ast

    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (SyntaxError, ValueError, OSError):
        return {}
    spans: Dict[int, Tuple[int, int]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.stmt):
            continue
        first, last = node.lineno, node.end_lineno or node.lineno
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.stmt):
            last = body[0].lineno - 1  # a compound statement: its header only
        for line in range(first, last + 1):
            if line not in spans or spans[line][1] - spans[line][0] > last - first:
                spans[line] = (first, last)
    return spans


def _hit(found: Dict[Tuple[str, int], Set[str]], path: str, line: int, spans: Dict[int, Tuple[int, int]]) -> Set[str]:
    first, last = spans.get(line, (line, line))
    codes: Set[str] = set()
    for number in range(first, last + 1):
        codes |= found.get((path, number), set())
    return codes


def _ratio(a: int, b: int) -> str:
    return f"{a / b:.3f}" if b else "n/a"


#: The codes each kind of line labels is scored against.
FAMILIES = {"dynamic-shape": "MS2", "graph-mode": "MS4", "second-order": "MS5", "sparse": "MS6"}


def score_lines(labels: List[dict], corpus: Path, show: str, select: str) -> None:
    by_project: Dict[str, List[dict]] = defaultdict(list)
    for label in labels:
        by_project[label["project"]].append(label)
    totals: Counter = Counter()
    groups: Dict[str, Counter] = defaultdict(Counter)
    misses: List[str] = []
    alarms: List[str] = []
    for project, items in sorted(by_project.items()):
        directory = corpus / project
        if not directory.is_dir():
            print(f"{project}: not in {corpus}; skipped", file=sys.stderr)
            continue
        found = _check(directory, select)
        statements: Dict[str, Dict[int, Tuple[int, int]]] = {}
        for label in items:
            if label["path"] not in statements:
                statements[label["path"]] = _statement_lines(directory / label["path"])
            codes = _hit(found, label["path"], label["line"], statements[label["path"]])
            hit = bool(codes)
            positive = label["label"] == "positive"
            outcome = ("tp" if hit else "fn") if positive else ("fp" if hit else "tn")
            keys = ["all", f"project:{project}", f"kind:{label['kind']}", f"graph:{label['graph']}", f"certainty:{label['certainty']}"]
            for key in keys:
                groups[key][outcome] += 1
            totals[outcome] += 1
            where = f"{project}/{label['path']}:{label['line']}: {label['code'][:90]}  [{label['kind']}, graph {label['graph']}]"
            if outcome == "fn":
                misses.append(where)
            elif outcome == "fp":
                alarms.append(where + "  codes " + ",".join(sorted(codes)))
    print(f"{'group':34} {'TP':>5} {'FN':>5} {'FP':>5} {'TN':>5}  precision  recall")
    for key in sorted(groups, key=lambda k: (k != "all", k.split(":")[0], k)):
        c = groups[key]
        print(f"{key:34} {c['tp']:5} {c['fn']:5} {c['fp']:5} {c['tn']:5}  {_ratio(c['tp'], c['tp'] + c['fp']):>9}  {_ratio(c['tp'], c['tp'] + c['fn']):>6}")
    if show in ("misses", "both"):
        print("\nmisses:\n  " + "\n  ".join(misses))
    if show in ("alarms", "both"):
        print("\nfalse alarms:\n  " + "\n  ".join(alarms))


def score_call_sites(labels: List[dict], corpus: Path, show: str) -> None:
    by_project: Dict[str, List[dict]] = defaultdict(list)
    for label in labels:
        by_project[label["project"]].append(label)
    counts: Counter = Counter()
    misses: List[str] = []
    alarms: List[str] = []  # non-tensor receivers msport judged as tensors
    for project, items in sorted(by_project.items()):
        directory = corpus / project
        if not directory.is_dir():
            print(f"{project}: not in {corpus}; skipped", file=sys.stderr)
            continue
        report = json.loads(_run(["report", str(directory), "--format", "json"]))
        uses: Set[Tuple[str, int, str]] = set()  # (path, line, API) of every judged torch API use
        for row in report["files"]:
            for use in row.get("api_uses", []):
                uses.add((row["path"], use["line"], use["torch_api"]))
        for label in items:
            if label.get("method") is not None:
                if label.get("tensor") == "no":  # not a torch call site: a verdict here is a false one
                    wrong = any(path.endswith(label["path"]) and line == label["line"] and api.rpartition(".")[2] == label["method"]
                                and api.startswith(("torch.Tensor.", "mindspore.Tensor.")) for path, line, api in uses)
                    counts["non-tensor:" + ("typed" if wrong else "untyped")] += 1
                    if wrong:
                        alarms.append(f"{project}/{label['path']}:{label['line']}: {label['receiver']}.{label['method']}")
                if label.get("tensor") != "yes":
                    continue
                kind, wanted = "method", lambda api: api.rpartition(".")[2] == label["method"]
                shown = f"{label['receiver']}.{label['method']}"
            else:
                kind, wanted = "function", lambda api: api == label["function"]
                shown = label["function"]
            judged = any(path.endswith(label["path"]) and line == label["line"] and wanted(api) for path, line, api in uses)
            outcome = "judged" if judged else "missed"
            for group in (kind, f"{kind}:{project}", "all", f"all:{project}"):
                counts[f"{group}:{outcome}"] += 1
            if not judged:
                misses.append(f"{project}/{label['path']}:{label['line']}: {shown}")
    for kind, title in (("method", "tensor-method call sites"), ("function", "torch-function call sites"), ("all", "all torch call sites")):
        j, m = counts[f"{kind}:judged"], counts[f"{kind}:missed"]
        print(f"{title} with a verdict: {j}/{j + m} ({_ratio(j, j + m)}); no verdict {_ratio(m, j + m)}")
    typed, untyped = counts["non-tensor:typed"], counts["non-tensor:untyped"]
    print(f"non-tensor receivers judged as tensors: {typed}/{typed + untyped} ({_ratio(typed, typed + untyped)})")
    for project in sorted(by_project):
        j, m = counts[f"all:{project}:judged"], counts[f"all:{project}:missed"]
        if j + m:
            print(f"  {project:28} {j:3}/{j + m:<3} no verdict {_ratio(m, j + m)}")
    if show in ("misses", "both"):
        print("\nno verdict:\n  " + "\n  ".join(misses))
    if show in ("alarms", "both"):
        print("\njudged as tensors, though they are not:\n  " + "\n  ".join(alarms))


def main(argv: Iterable[str] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=(*FAMILIES, "call-sites"))
    parser.add_argument("labels", type=Path)
    parser.add_argument("--corpus", type=Path, required=True, help="the directory holding one directory per project")
    parser.add_argument("--show", choices=("none", "misses", "alarms", "both"), default="none")
    parser.add_argument("--project", action="append", help="only these projects")
    args = parser.parse_args(argv)
    labels = _load(args.labels)
    if args.project:
        labels = [label for label in labels if label["project"] in args.project]
    if args.kind in FAMILIES:
        score_lines(labels, args.corpus, args.show, FAMILIES[args.kind])
    else:
        score_call_sites(labels, args.corpus, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
