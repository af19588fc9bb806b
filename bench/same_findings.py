"""Prove that a speed change changed no finding: snapshot `msport check --format json` over the
dev corpus and compare two snapshots.

    python bench/same_findings.py snapshot NAME [--corpus DIR] [--msport BIN] [--source COPY/server] [--jobs N]
    python bench/same_findings.py compare OLD NEW

`snapshot` checks each project of the corpus (`/work/corpus/dev/<project>` by default) the way a
user runs msport on it: one `msport check --format json <project>` per project, so the project
index covers that project's files. Each report goes to `bench/work/findings/NAME/<project>.json`
with the run's wall time. `compare` puts both sides' findings in one order (path, position, code,
message) and reports every finding that is on one side only or differs in its message, related
information or fixes; it exits 1 when anything differs. MS002 findings that say the time budget
ran out depend on the machine's load, not on the code, so they are counted apart and do not fail
the comparison.

It is not a test: it needs the corpus, which is not part of the repository.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
STORE = HERE / "work" / "findings"
DEFAULT_CORPUS = Path("/work/corpus/dev")
DEFAULT_MSPORT = HERE.parent / ".venv" / "bin" / "msport"


def snapshot(name: str, corpus: Path, msport: Path, source: Optional[Path] = None, jobs: Optional[int] = None) -> int:
    out = STORE / name
    out.mkdir(parents=True, exist_ok=True)
    times = {}
    env = dict(os.environ)
    if source is not None:  # a frozen copy of server/ (and rules/ beside it): editing goes on meanwhile
        env["PYTHONPATH"] = str(source.resolve())
    for project in sorted(p for p in corpus.iterdir() if p.is_dir()):
        if not any(project.rglob("*.py")):
            continue
        start = time.perf_counter()
        run = subprocess.run(
            # --jobs 1: the in-process path (one analyzer for every phase), which must agree with the pooled one
            [str(msport), "check", "--format", "json", *(["-j", str(jobs)] if jobs else []), str(project)],
            capture_output=True, text=True, env=env,
        )
        took = time.perf_counter() - start
        if run.returncode not in (0, 1):
            print(f"{project.name}: msport exited {run.returncode}\n{run.stderr[-2000:]}", file=sys.stderr)
            return 2
        (out / f"{project.name}.json").write_text(run.stdout)
        findings = json.loads(run.stdout)
        times[project.name] = round(took, 2)
        print(f"{project.name}: {len(findings)} findings in {took:.1f} s", flush=True)
    (out / "times.json").write_text(json.dumps(times, indent=1))
    print(f"total {sum(times.values()):.1f} s")
    return 0


def _key(finding: dict) -> tuple:
    return (finding["path"], finding["line"], finding["column"], finding["end_line"],
            finding["end_column"], finding["code"], finding["message"])


def _budget_note(finding: dict) -> bool:
    """An MS002 whose cause is the time budget: it depends on the machine's load."""
    return finding["code"] == "MS002" and ("budget" in finding["message"] or "longer than" in finding["message"])


def _load(path: Path) -> list[dict]:
    return json.loads(path.read_text())


def compare(old: str, new: str) -> int:
    old_dir, new_dir = STORE / old, STORE / new
    differing = 0
    timing = 0
    total = 0
    for old_file in sorted(old_dir.glob("*.json")):
        if old_file.name == "times.json":
            continue
        new_file = new_dir / old_file.name
        if not new_file.exists():
            print(f"{old_file.stem}: missing in {new}")
            differing += 1
            continue
        a = sorted(_load(old_file), key=lambda f: json.dumps(_key(f)))
        b = sorted(_load(new_file), key=lambda f: json.dumps(_key(f)))
        total += len(a)
        if any(_budget_note(f) for f in a + b):
            timing += 1
            print(f"{old_file.stem}: a time-budget MS002 on one side; lines past the budget "
                  "are compared only where both sides checked them")
            a, b = _within_budget(a, b)
        ja = [json.dumps(f, sort_keys=True) for f in a]
        jb = [json.dumps(f, sort_keys=True) for f in b]
        if ja == jb:
            continue
        only_a = sorted(set(ja) - set(jb))
        only_b = sorted(set(jb) - set(ja))
        differing += len(only_a) + len(only_b) or 1
        print(f"{old_file.stem}: {len(only_a)} only in {old}, {len(only_b)} only in {new}")
        for line in only_a[:5]:
            print(f"  - {line[:400]}")
        for line in only_b[:5]:
            print(f"  + {line[:400]}")
    old_t = _times(old_dir)
    new_t = _times(new_dir)
    if old_t and new_t:
        print(f"wall time: {old} {sum(old_t.values()):.1f} s, {new} {sum(new_t.values()):.1f} s")
    print(f"{total} findings in {old}; {differing} differing"
          + (f"; {timing} project(s) with a time-budget MS002" if timing else ""))
    return 1 if differing else 0


def _within_budget(a: list[dict], b: list[dict]) -> tuple[list[dict], list[dict]]:
    """Drop, per file, the findings past the first line a time-budget MS002 left unchecked on
    either side, and the MS002 notes themselves."""
    cut: dict[str, int] = {}
    for f in a + b:
        if _budget_note(f):
            cut[f["path"]] = min(cut.get(f["path"], f["line"]), f["line"])

    def keep(f: dict) -> bool:
        return not _budget_note(f) and f["line"] < cut.get(f["path"], 1 << 60)

    return [f for f in a if keep(f)], [f for f in b if keep(f)]


def _times(folder: Path) -> dict:
    path = folder / "times.json"
    return json.loads(path.read_text()) if path.exists() else {}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    snap = sub.add_parser("snapshot")
    snap.add_argument("name")
    snap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    snap.add_argument("--msport", type=Path, default=DEFAULT_MSPORT)
    snap.add_argument("--jobs", type=int, help="msport check -j N (default: msport's own)")
    snap.add_argument("--source", type=Path, help="a copy of server/ to run instead of the installed msport "
                      "(copy rules/ beside it): the snapshot takes minutes, and the checkout may change meanwhile")
    comp = sub.add_parser("compare")
    comp.add_argument("old")
    comp.add_argument("new")
    args = parser.parse_args()
    if args.command == "snapshot":
        return snapshot(args.name, args.corpus, args.msport, args.source, args.jobs)
    return compare(args.old, args.new)


if __name__ == "__main__":
    sys.exit(main())
