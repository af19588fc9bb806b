#!/usr/bin/env python3
"""Keystrokes in a file while the server indexes the workspace around it.

    python bench/typing_while_indexing.py WORKSPACE [--file examples/yolox_head.py] [--keystrokes 20] [--source OTHER/server]

Starts `msport serve` with WORKSPACE as its root (a copy of a real project: its files are
summarised by the project index in the background), opens a variant of FILE written into it
(after a warm-up file), and types keystrokes one at a time into a function in the middle, each
waiting for its diagnostics, as bench/lspbench.py does. Prints the open's latency, the keystrokes'
latency p50 / max at the wire and the server's CPU per keystroke (all threads, /proc): CPU spent
on the index while the user types shows up there. With py-spy installed, also how much of the
sampled time went to the index's summaries. `--source` measures another checkout's server/
folder (PYTHONPATH) in the same run, after this one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
from lspbench import EDIT_PREFIX  # noqa: E402
from lspclient import Session, uri_of  # noqa: E402

SUMMARISE = "ProjectService._summarize"


async def measure(workspace: Path, path: Path, keystrokes: int, env: Optional[Dict[str, str]], label: str) -> List[str]:
    import profile_msport

    session = Session(label, [sys.executable, "-m", "msport", "serve"], workspace, HERE / "work" / "logs" / "typing-while-indexing.log", env=env)
    await session.start()
    try:
        warm = corpus.REPO / "examples" / "resnet_block.py"
        await session.open(uri_of(warm), warm.read_text(encoding="utf-8"))
        text = corpus.variant(path.read_text(encoding="utf-8"), 102)
        opened = workspace / f"typed_{path.name}"
        opened.write_text(text, encoding="utf-8")
        uri = uri_of(opened)
        published = await session.open(uri, text)
        line, indent = corpus.edit_site(text)
        await session.insert(uri, 2, line, 0, indent + EDIT_PREFIX + "\n")
        column = len(indent) + len(EDIT_PREFIX)
        recorder = profile_msport._Recorder(session.pid, HERE / "work" / "typing-while-indexing.txt") if profile_msport._pyspy() else None
        cpu = session.cpu_seconds()
        took = []
        for key in range(keystrokes):
            took.append((await session.insert(uri, 3 + key, line, column + key, str(key % 9 + 1))).arrived)
        cpu = (session.cpu_seconds() - cpu) / keystrokes
        took.sort()
        row = f"| {label} | {published.arrived * 1e3:.0f} ms | {took[len(took) // 2] * 1e3:.0f} / {took[-1] * 1e3:.0f} ms | {cpu * 1e3:.1f} ms |"
        if recorder is not None:
            stacks = recorder.stop()
            total = sum(stacks.values()) or 1
            index = sum(count for stack, count in stacks.items() if SUMMARISE in stack)
            row += f" {100 * index / total:.0f}% |"
        else:
            row += " - |"
        return [row]
    finally:
        await session.stop()
        opened.unlink(missing_ok=True)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--file", type=Path, default=corpus.REPO / "examples" / "yolox_head.py")
    parser.add_argument("--keystrokes", type=int, default=20)
    parser.add_argument("--source", type=Path, help="another checkout's server/ folder, measured after this one")
    args = parser.parse_args(argv)
    (HERE / "work" / "logs").mkdir(parents=True, exist_ok=True)
    rows = ["| server | open -> diagnostics | keystroke p50 / max | server CPU per keystroke | busy samples in the index's summaries |",
            "| --- | --- | --- | --- | --- |"]
    rows += asyncio.run(measure(args.workspace.resolve(), args.file.resolve(), args.keystrokes, None, "msport"))
    if args.source is not None:
        env = dict(os.environ, PYTHONPATH=str(args.source.resolve()))
        rows += asyncio.run(measure(args.workspace.resolve(), args.file.resolve(), args.keystrokes, env, "msport (reference)"))
    print(f"{args.workspace}: {sum(1 for _ in args.workspace.rglob('*.py'))} Python files; {args.keystrokes} keystrokes\n")
    print("\n".join(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
