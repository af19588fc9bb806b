#!/usr/bin/env python3
"""msport's benchmark: one command, see bench/README.md.

    python bench/run.py            # full run, about 10 minutes on 2 cores
    python bench/run.py --quick    # 1-2 minutes, fewer files and repetitions, a small CLI tree

Creates bench/work/venv (msport editable from this checkout, plus the pinned tools of
requirements.txt) unless --env current, builds the corpus, measures, prints the targets table
and writes bench/results/<date>-<machine tag>.md.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import time
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import Dict, List, Optional

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
WORK = BENCH / "work"
VENV = WORK / "venv"
RESULTS = BENCH / "results"
IN_VENV = "MSPORT_BENCH_IN_VENV"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="bench/run.py", description="Measure msport against ruff server, ast.parse, PaConvert and TorchFix.")
    parser.add_argument("--quick", action="store_true", help="a 1-2 minute run: fewer files and repetitions, a ~10k-line CLI tree")
    parser.add_argument("--env", choices=("venv", "current"), default="venv", help="bench/work/venv (default, created on first use) or the running interpreter's environment")
    parser.add_argument("--skip", action="append", default=[], choices=("lsp", "startup", "memory", "cli"), help="leave out one part (repeatable)")
    parser.add_argument("--profile", action="store_true", help="also profile msport (cProfile) and write <results>-profile.md")
    parser.add_argument("--output", type=Path, help="results file (default bench/results/<date>-<machine tag>[-quick].md)")
    return parser


# -- environment -------------------------------------------------------------------------------
def _stamp() -> str:
    digest = hashlib.sha256()
    for path in (BENCH / "requirements.txt", REPO / "pyproject.toml"):
        digest.update(path.read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def _venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv() -> Path:
    stamp_file = VENV / ".bench-stamp"
    stamp = _stamp()
    if stamp_file.exists() and stamp_file.read_text() == stamp and _venv_python().exists():
        return _venv_python()
    print(f"bench: preparing {VENV.relative_to(REPO)} (msport from this checkout, tools from requirements.txt)", flush=True)
    if not _venv_python().exists():
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(_venv_python()), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    subprocess.run(pip + ["-e", str(REPO), "-r", str(BENCH / "requirements.txt")], check=True)
    stamp_file.write_text(stamp)
    return _venv_python()


def _tool(name: str) -> str:
    local = Path(sys.executable).parent / name
    found = str(local) if local.exists() else shutil.which(name)
    if not found:
        raise SystemExit(f"bench: {name} not found next to {sys.executable} or on PATH; run without --env current to get bench/work/venv")
    return found


# -- the run ----------------------------------------------------------------------------------
def main(argv: Optional[List[str]] = None) -> int:
    args = _parser().parse_args(argv)
    if args.env == "venv" and os.environ.get(IN_VENV) != "1":
        python = ensure_venv()
        env = dict(os.environ, **{IN_VENV: "1"})
        os.execve(str(python), [str(python), str(Path(__file__).resolve()), *(argv if argv is not None else sys.argv[1:])], env)
    sys.path.insert(0, str(BENCH))
    import clibench
    import corpus
    import lspbench
    import machine
    import report

    started = time.perf_counter()
    load_start = machine.load_average()
    ruff = _tool("ruff")
    servers = {"msport": [sys.executable, "-m", "msport", "serve"], "ruff": [ruff, "server"]}
    print("bench: building the corpus", flush=True)
    timm = corpus.timm_tree(sys.executable)
    files = corpus.build(timm)

    if args.quick:
        plan = lspbench.Plan(
            open_reps=3, edit_count=10, big_open_reps=2, big_edit_count=5, startup_reps=3, memory_files=300,
            hover_sites=30, hover_file="concat_7k", files=["examples/yolox_head.py", "concat_1k", "concat_3k", "concat_7k"],
        )
    else:
        plan = lspbench.Plan(
            open_reps=7, edit_count=30, big_open_reps=3, big_edit_count=8, startup_reps=5, memory_files=300,
            hover_sites=60, hover_file="concat_7k", files=list(files),
        )

    lsp: Optional[lspbench.LspResults] = None
    if "lsp" not in args.skip:
        print(f"bench: language servers on {len(plan.files)} files (msport and ruff server, side by side)", flush=True)
        lsp = asyncio.run(lspbench.measure_files(servers, files, plan, WORK, log=lambda line: print("  " + line, flush=True)))
    else:
        lsp = lspbench.LspResults(hover_file=plan.hover_file)
    if "startup" not in args.skip:
        print(f"bench: start-up, {plan.startup_reps} spawns each", flush=True)
        lsp.startup = asyncio.run(lspbench.measure_startup(servers, plan.startup_reps, WORK))
    if "memory" not in args.skip:
        paths = corpus.python_files(timm)[: plan.memory_files]
        for name, command in servers.items():
            print(f"bench: memory of {name} with {len(paths)} files open", flush=True)
            lsp.memory[name] = asyncio.run(lspbench.measure_memory(name, command, paths, WORK))
    if lsp is not None and not lsp.files and not lsp.startup and not lsp.memory:
        lsp = None

    cli: Dict[str, clibench.CliRun] = {}
    if "cli" not in args.skip:
        tree = clibench.quick_tree(timm, WORK) if args.quick else timm
        for tool, command in clibench.commands(_tool, tree, WORK).items():
            print(f"bench: CLI {tool} on {tree.relative_to(WORK)}", flush=True)
            slug = re.sub(r"[^a-z0-9]+", "-", tool.lower()).strip("-")
            cli[tool] = clibench.run_tool(tool, command, tree, WORK / "logs" / f"cli-{slug}.log")
            print(f"  {cli[tool].lines_per_cpu_second:,.0f} lines/CPU-s, {cli[tool].lines_per_wall_second:,.0f} lines/s wall ({cli[tool].cpu:.1f} CPU-s, {cli[tool].wall:.1f} s)", flush=True)

    today = date.today().isoformat()
    tag = machine.tag()
    run_info = {
        "date": today,
        "tag": tag,
        "quick": "yes" if args.quick else "no",
        "command": " ".join(["python bench/run.py", *(argv if argv is not None else sys.argv[1:])]),
        "load average (1, 5, 15 min) at start / end": f"{load_start} / {machine.load_average()}",
        "duration": f"{time.perf_counter() - started:.0f} s",
    }
    text = report.render(machine.describe(REPO, ruff), run_info, lsp, cli)
    output = args.output or RESULTS / f"{today}-{tag}{'-quick' if args.quick else ''}.md"
    output.parent.mkdir(parents=True, exist_ok=True)
    output.write_text(text, encoding="utf-8")
    _dump_raw(WORK / "last-run.json", lsp, cli)
    print()
    print(_targets_only(text))
    print(f"bench: wrote {output.relative_to(REPO) if output.is_relative_to(REPO) else output}")
    if args.profile:
        import profile_msport

        profile_output = output.with_name(output.stem + "-profile.md")
        profile_msport.write(files, profile_output, quick=args.quick)
        print(f"bench: wrote {profile_output.relative_to(REPO) if profile_output.is_relative_to(REPO) else profile_output}")
    return 0


def _targets_only(text: str) -> str:
    start = text.index("## Targets")
    end = text.find("\n## ", start + 1)
    return text[start:end].strip()


def _dump_raw(path: Path, lsp, cli) -> None:
    raw = {"lsp": asdict(lsp) if lsp is not None else None, "cli": {k: asdict(v) for k, v in cli.items()}}
    path.write_text(json.dumps(raw, indent=1, default=str), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
