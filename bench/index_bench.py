#!/usr/bin/env python3
"""The workspace's project index, built in the background (issue 13): does it delay the first
diagnostics of the file the user opens?

    python bench/index_bench.py                 # 2 rounds, this checkout
    python bench/index_bench.py --rounds 3 --output bench/results/DATE-MACHINE-index.md

The workspace is timm's sources (the bench corpus, `corpus.timm_tree`) plus copies of its model
files until it holds at least 150,000 lines of Python. Each round starts two fresh servers:

- the reference: a workspace holding only the file that is opened (no index to build);
- the candidate: the 150k-line workspace; the file is opened as soon as the server is
  initialized (its index build starts then, in the background), and a second file is opened
  2 s later, while the index is being built.

For each: didOpen until that version's diagnostics (wall time at the wire), the server CPU
meanwhile (all threads: on a loaded machine wall times stretch, CPU figures much less), when the index reported itself built (``msport/projectState``), whether the open
file was published again after the index was built, and the server's RSS once it was.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
from lspclient import Session, uri_of  # noqa: E402

WORK = corpus.WORK / "index"
TARGET_LINES = 150_000
OPENED = "models/resnet.py"  # opened at once
SECOND = "models/vision_transformer.py"  # opened while the index builds


def workspace(timm: Path) -> Path:
    """timm plus copies of its model files, >= TARGET_LINES lines; rebuilt only when missing."""
    root = WORK / "workspace"
    marker = root / ".complete"
    if marker.exists():
        return root
    shutil.rmtree(root, ignore_errors=True)
    shutil.copytree(timm, root / "timm")
    lines = corpus.count_lines(corpus.python_files(root))
    extra = root / "copies"
    extra.mkdir()
    for path in corpus.python_files(timm / "models"):
        if lines >= TARGET_LINES:
            break
        target = extra / path.name
        shutil.copyfile(path, target)
        lines += corpus.count_lines([target])
    marker.write_text(str(lines))
    return root


@dataclass
class Round:
    solo_open: float = float("nan")
    solo_cpu: float = float("nan")
    open: float = float("nan")
    open_cpu: float = float("nan")
    second_solo: float = float("nan")
    second_solo_cpu: float = float("nan")
    second: float = float("nan")
    second_cpu: float = float("nan")
    index_ready: float = float("nan")
    republished: bool = False
    rss_mb: float = float("nan")
    notes: List[str] = field(default_factory=list)


async def _state(session: Session) -> dict:
    result = await asyncio.wait_for(session.client.protocol.send_request_async("msport/projectState", {}), 30)
    if isinstance(result, dict):
        return result
    # pygls hands an untyped result over as a namedtuple-like object
    return result._asdict() if hasattr(result, "_asdict") else {k: getattr(result, k) for k in ("files", "modules", "ready")}


async def _open(session: Session, path: Path) -> tuple:
    before = session.cpu_seconds()
    published = await session.open(uri_of(path), path.read_text(encoding="utf-8"), 1, timeout=300)
    return published.arrived, session.cpu_seconds() - before


async def solo(path: Path, name: str, env) -> tuple:
    folder = WORK / f"solo-{name}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    copy = folder / path.name
    shutil.copyfile(path, copy)
    session = Session("msport", [sys.executable, "-m", "msport", "serve"], folder, WORK / "logs" / f"solo-{name}.log", env=env)
    await session.start()
    try:
        return await _open(session, copy)
    finally:
        await session.stop()


async def one_round(root: Path, env, timeout: float) -> Round:
    result = Round()
    opened, second = root / "timm" / OPENED, root / "timm" / SECOND
    result.solo_open, result.solo_cpu = await solo(opened, "first", env)
    result.second_solo, result.second_solo_cpu = await solo(second, "second", env)
    session = Session("msport", [sys.executable, "-m", "msport", "serve"], root, WORK / "logs" / "workspace.log", env=env)
    started_at = time.perf_counter()
    await session.start()
    try:
        result.open, result.open_cpu = await _open(session, opened)
        first_publication = session.published[uri_of(opened)].arrived
        await asyncio.sleep(max(0.0, 2.0 - (time.perf_counter() - started_at)))
        result.second, result.second_cpu = await _open(session, second)
        while True:
            state = await _state(session)
            if state.get("ready"):
                result.index_ready = time.perf_counter() - started_at
                break
            if time.perf_counter() - started_at > timeout:
                result.notes.append(f"index not built within {timeout:.0f} s ({state})")
                break
            await asyncio.sleep(0.2)
        await asyncio.sleep(2.0)  # a re-publication of the open files, if the index changed their facts
        result.republished = session.published[uri_of(opened)].arrived > first_publication
        result.rss_mb = session.memory().get("VmRSS", 0) / 1e6
        result.notes.append(f"{state.get('modules')} modules indexed")
    finally:
        await session.stop()
    return result


def report(rounds: List[Round], root: Path, label: str) -> str:
    def p50(values) -> float:
        values = [v for v in values if v == v]
        return statistics.median(values) if values else float("nan")

    lines = int((root / ".complete").read_text())
    files = len(corpus.python_files(root))
    solo_open, open_ = p50(r.solo_open for r in rounds), p50(r.open for r in rounds)
    second_solo, second = p50(r.second_solo for r in rounds), p50(r.second for r in rounds)
    out = [
        f"# Project index in the background: {label}",
        "",
        f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}, load average {' '.join(f'{x:.2f}' for x in os.getloadavg())}, "
        f"Python {sys.version.split()[0]}; workspace: {files} files, {lines:,} lines (timm and copies of its models); "
        f"{len(rounds)} rounds, medians.",
        "",
        "| what | with the index building | alone (no workspace to index) | ratio |",
        "| --- | --- | --- | --- |",
        f"| first diagnostics of {OPENED}, opened at once | {open_:.2f} s | {solo_open:.2f} s | {open_ / solo_open:.2f}x |",
        f"| server CPU for them | {p50(r.open_cpu for r in rounds):.2f} s | {p50(r.solo_cpu for r in rounds):.2f} s | |",
        f"| first diagnostics of {SECOND}, opened 2 s in, while the index builds | {second:.2f} s | {second_solo:.2f} s | {second / second_solo:.2f}x |",
        f"| server CPU for them (the index's summaries included) | {p50(r.second_cpu for r in rounds):.2f} s | {p50(r.second_solo_cpu for r in rounds):.2f} s | |",
        f"| index built (spawn to projectState ready) | {p50(r.index_ready for r in rounds):.1f} s | | |",
        f"| RSS once built | {p50(r.rss_mb for r in rounds):.0f} MB | | |",
        "",
        "Per round: " + "; ".join(
            f"open {r.open:.2f} s (alone {r.solo_open:.2f} s), second {r.second:.2f} s (alone {r.second_solo:.2f} s), "
            f"index {r.index_ready:.1f} s, re-published after the index: {'yes' if r.republished else 'no'}, {', '.join(r.notes)}"
            for r in rounds) + ".",
        "",
        "Target (issue 13): the index is built in the background without delaying the first diagnostics "
        "of the open file, i.e. the ratios above near 1x (a file opened while the index builds waits for "
        "at most one file's summary, which the analysis thread is busy with).",
    ]
    return "\n".join(out) + "\n"


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="bench/index_bench.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--source", type=Path, help="measure the msport package of this server/ folder instead (PYTHONPATH)")
    parser.add_argument("--label", default="this checkout")
    parser.add_argument("--timeout", type=float, default=600.0)
    parser.add_argument("--output", type=Path)
    args = parser.parse_args(argv)
    env = dict(os.environ)
    if args.source:
        env["PYTHONPATH"] = str(args.source.resolve())
    root = workspace(corpus.timm_tree())
    rounds = []
    for _ in range(args.rounds):
        rounds.append(asyncio.run(one_round(root, env, args.timeout)))
    text = report(rounds, root, args.label)
    print(text)
    if args.output:
        args.output.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
