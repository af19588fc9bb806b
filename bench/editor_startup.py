#!/usr/bin/env python3
"""First squiggles in a fresh VS Code window: this checkout's .vsix beside a baseline's.

    python bench/editor_startup.py                      # baseline: the .vsix built from `main`
    python bench/editor_startup.py --baseline-ref HEAD~3 --rounds 3 --reloads 4

Runs code-server (tools/install-e2e.sh installs it and builds .cache/e2e/msport.vsix) with each
.vsix in turn, in alternating rounds so that both see the same machine load. In each round the
folder's file is opened, then the window reloaded --reloads times: every reload is a fresh
window that restores the file, so VS Code's extension host, msport's server and its first
analysis all start again (bench/editor_startup.js drives it). Measured per window, in the page:
from the file's text showing to the status bar's first problem count ("first squiggles"); and,
from the extension's log (the candidate only: older extensions do not log it), when it was
activated, how long the server took to start, and when its first findings arrived.

Writes bench/results/<date>-<machine tag>-editor.md. Issue 18's target: first squiggles within
1.5 s of a fresh window showing the file.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from datetime import date
from pathlib import Path
from typing import Dict, List, Optional

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
sys.path.insert(0, str(REPO))
sys.path.insert(0, str(BENCH))

# code-server is started as the end-to-end tests start it: one place knows how.
from tests.e2e.harness import CODE_SERVER, PLAYWRIGHT, SAMPLE, VSIX, CodeServer, prepare_workspace, require, vscode_user_settings  # noqa: E402

from machine import load_average, tag  # noqa: E402

WORK = BENCH / "work"
TARGET_S = 1.5
FIRST = re.compile(r"first diagnostics (\d+) ms after activation \(activated at (\d+), shown at (\d+)")
STARTED = re.compile(r"server running: .*\(started in (\d+) ms\)")


def build_baseline(ref: str, python: str) -> Path:
    """The .vsix of git ref *ref*, built as its own scripts build it (cached by commit)."""
    sha = subprocess.run(["git", "rev-parse", ref], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    vsix = WORK / f"msport-{sha[:12]}.vsix"
    if vsix.exists():
        return vsix
    source = WORK / f"src-{sha[:12]}"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", sha], cwd=REPO, capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    client = source / "vscode-client"
    # A copy: npm (run by vsce) rejects a symlinked node_modules. The baseline's lock file may
    # differ from this checkout's; vsce ships only the runtime dependencies, which rarely do.
    shutil.copytree(REPO / "vscode-client" / "node_modules", client / "node_modules", symlinks=True)
    env = dict(os.environ, MSPORT_BUNDLE_PYTHON=python)
    subprocess.run(["bash", "scripts/bundle-server.sh", python], cwd=client, env=env, check=True, capture_output=True)
    subprocess.run(["npx", "--no-install", "vsce", "package", "--out", str(vsix)], cwd=client, env=env, check=True, capture_output=True)
    shutil.rmtree(source, ignore_errors=True)
    return vsix


def run_windows(vsix: Path, reloads: int) -> Dict:
    """One code-server profile with *vsix*, the file opened then the window reloaded."""
    scratch = Path(tempfile.mkdtemp(prefix="msport-bench-editor-"))
    folder = prepare_workspace(scratch / "ws").parent
    out = scratch / "windows.json"
    settings = dict(vscode_user_settings(), **{"msport.trace.server": "off"})
    with CodeServer(folder, vsix, settings=settings) as editor:
        editor.drive(BENCH / "editor_startup.js", 900, E2E_FILE=SAMPLE, BENCH_RELOADS=str(reloads), BENCH_OUT=str(out))
        logs = editor.msport_logs()
    result = json.loads(out.read_text()) if out.exists() else {"windows": [], "error": "no result"}
    shutil.rmtree(scratch, ignore_errors=True)
    for window, log in zip(result["windows"], logs):
        window["squiggles_ms"] = window["diagnostics"] - window["text"]
        first, started = FIRST.search(log), STARTED.search(log)
        if first:
            shown_text = window["origin"] + window["text"]
            window["activation_after_text_ms"] = int(first[2]) - shown_text
            window["first_diagnostics_after_activation_ms"] = int(first[1])
        if started:
            window["server_start_ms"] = int(started[1])
    return result


def _median(values: List[float]) -> Optional[float]:
    return statistics.median(values) if values else None


def _fmt(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value / 1000:.2f} s"


def summarise(windows: List[Dict]) -> Dict[str, Optional[float]]:
    fresh = [w for w in windows if w["label"].startswith("reload")]
    opened = [w for w in windows if w["label"] == "open"]
    pick = lambda rows, key: [w[key] for w in rows if key in w]  # noqa: E731
    return {
        "fresh window: text -> first squiggles": _median(pick(fresh, "squiggles_ms")),
        "first open in the window: text -> first squiggles": _median(pick(opened, "squiggles_ms")),
        "fresh window: text -> extension activated": _median(pick(fresh, "activation_after_text_ms")),
        "fresh window: server start (spawn -> initialize answered)": _median(pick(fresh, "server_start_ms")),
        "fresh window: activation -> first findings shown": _median(pick(fresh, "first_diagnostics_after_activation_ms")),
    }


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--vsix", type=Path, default=VSIX, help="the candidate (default: .cache/e2e/msport.vsix)")
    parser.add_argument("--baseline", type=Path, help="a baseline .vsix; default: built from --baseline-ref")
    parser.add_argument("--baseline-ref", default="main", help="git ref whose .vsix is the baseline (default main)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--reloads", type=int, default=3)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    for path, what in ((CODE_SERVER, "code-server"), (PLAYWRIGHT / "playwright-core", "playwright-core"), (args.vsix, "the candidate .vsix")):
        require(path, what)
    WORK.mkdir(exist_ok=True)
    baseline = args.baseline or build_baseline(args.baseline_ref, sys.executable)
    runs: Dict[str, List[Dict]] = {"baseline": [], "candidate": []}
    loads = []
    for round_ in range(args.rounds):
        for name, vsix in (("baseline", baseline), ("candidate", args.vsix)) if round_ % 2 == 0 else (("candidate", args.vsix), ("baseline", baseline)):
            loads.append(load_average())
            result = run_windows(vsix, args.reloads)
            if result.get("error"):
                print(f"{name} round {round_ + 1}: {result['error'][:300]}", file=sys.stderr)
            runs[name] += result["windows"]
            print(f"{name} round {round_ + 1}: " + ", ".join(f"{w['label']} {w['squiggles_ms'] / 1000:.2f} s" for w in result["windows"]))
    base, cand = summarise(runs["baseline"]), summarise(runs["candidate"])
    key = "fresh window: text -> first squiggles"
    lines = [
        f"# First squiggles in a fresh VS Code window ({date.today().isoformat()}, {tag()})",
        "",
        f"code-server with the msport .vsix, {args.rounds} alternating rounds x (1 open + {args.reloads} reloads) per .vsix; "
        f"candidate {args.vsix.name}, baseline {baseline.name} ({'given' if args.baseline else args.baseline_ref}). "
        f"Load average during the rounds: {'; '.join(loads)}. Medians; method in bench/README.md.",
        "",
        "| figure | baseline | candidate | candidate / baseline |",
        "| --- | --- | --- | --- |",
    ]
    for figure in cand:
        ratio = f"{cand[figure] / base[figure]:.2f}x" if cand[figure] and base[figure] else "n/a"
        lines.append(f"| {figure} | {_fmt(base[figure])} | {_fmt(cand[figure])} | {ratio} |")
    met = cand[key] is not None and cand[key] / 1000 <= TARGET_S
    lines += ["", f"Target (issue 18): first squiggles <= {TARGET_S} s after a fresh window shows the file: "
              f"{'met' if met else 'MISSED'} ({_fmt(cand[key])}, {cand[key] / 1000 / TARGET_S:.2f}x the target)." if cand[key] else "no figure",
              "", "Windows (ms):", "", "```", json.dumps(runs, indent=1)[:20000], "```", ""]
    text = "\n".join(lines)
    output = args.output or BENCH / "results" / f"{date.today().isoformat()}-{tag()}-editor.md"
    output.write_text(text, encoding="utf-8")
    print(text.split("Windows (ms):")[0])
    print(f"written to {output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
