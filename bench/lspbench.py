"""Language-server measurements: msport's server and ruff's, side by side, same files, same client.

Both servers run at the same time and are asked in turn (msport first on even repetitions, ruff
first on odd ones), so a burst of load from elsewhere on the machine hits both alike.
"""

from __future__ import annotations

import ast
import asyncio
import statistics
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

import corpus
from corpus import BenchFile
from lspclient import Session, uri_of

EDIT_PREFIX = "_bench_value = 1"


@dataclass
class Samples:
    wall: List[float] = field(default_factory=list)
    cpu: List[float] = field(default_factory=list)
    diagnostics: List[int] = field(default_factory=list)
    #: codes of the last publication (code -> count)
    codes: Dict[str, int] = field(default_factory=dict)

    def add(self, wall: float, cpu: float = 0.0, diagnostics: int = 0, codes: Optional[Dict[str, int]] = None) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.diagnostics.append(diagnostics)
        self.codes = dict(codes or {})


def p50(values: Sequence[float]) -> float:
    return statistics.median(values) if values else float("nan")


def p95(values: Sequence[float]) -> float:
    """Nearest-rank 95th percentile (with fewer than 20 samples this is the maximum)."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, -(-95 * len(ordered) // 100))
    return ordered[rank - 1]


@dataclass
class FileResult:
    name: str
    lines: int
    parse: Samples = field(default_factory=Samples)  # ast.parse, wall and thread CPU
    open: Dict[str, Samples] = field(default_factory=dict)
    edit: Dict[str, Samples] = field(default_factory=dict)


@dataclass
class LspResults:
    files: List[FileResult] = field(default_factory=list)
    startup: Dict[str, List[float]] = field(default_factory=dict)
    hover: Samples = field(default_factory=Samples)
    hover_file: str = ""
    hover_first: float = float("nan")
    hover_answered: int = 0
    memory: Dict[str, Dict[str, float]] = field(default_factory=dict)
    notes: List[str] = field(default_factory=list)


@dataclass
class Plan:
    open_reps: int
    edit_count: int
    big_open_reps: int  # for files over 20k lines
    big_edit_count: int
    startup_reps: int
    memory_files: int
    hover_sites: int
    hover_file: str
    files: List[str]


def _session(name: str, command: Sequence[str], root: Path, logs: Path) -> Session:
    return Session(name, list(command), root, logs / f"{name}.log")


def _parse_time(text: str) -> Tuple[float, float]:
    wall, cpu = time.perf_counter(), time.thread_time()
    ast.parse(text)
    return time.perf_counter() - wall, time.thread_time() - cpu


async def _open(session: Session, uri: str, text: str, version: int = 1):
    cpu = session.cpu_seconds()
    published = await session.open(uri, text, version)
    return published.arrived, session.cpu_seconds() - cpu, published.count, published.codes


async def _insert(session: Session, uri: str, version: int, line: int, col: int, text: str):
    cpu = session.cpu_seconds()
    published = await session.insert(uri, version, line, col, text)
    return published.arrived, session.cpu_seconds() - cpu, published.count, published.codes


def _ordered(sessions: Dict[str, Session], turn: int) -> List[Tuple[str, Session]]:
    items = list(sessions.items())
    return items if turn % 2 == 0 else items[::-1]


async def measure_files(servers: Dict[str, Sequence[str]], files: Dict[str, BenchFile], plan: Plan, work: Path, log=print) -> LspResults:
    results = LspResults(hover_file=plan.hover_file)
    root = work / "lsp"
    scratch = root / "open"
    scratch.mkdir(parents=True, exist_ok=True)
    sessions = {name: _session(name, cmd, root, work / "logs") for name, cmd in servers.items()}
    try:
        for session in sessions.values():
            await session.start()
        # Warm up: the first document pays for loading rules, imports done lazily, etc.
        warm = corpus.REPO / "examples" / "resnet_block.py"
        for session in sessions.values():
            await session.open(uri_of(warm), warm.read_text(encoding="utf-8"))
            session.close(uri_of(warm))
        for name in plan.files:
            bench_file = files[name]
            big = bench_file.lines > 20_000
            result = FileResult(name, bench_file.lines)
            results.files.append(result)
            for server in sessions:
                result.open[server] = Samples()
                result.edit[server] = Samples()
            reps = plan.big_open_reps if big else plan.open_reps
            slug = name.replace("/", "_").removesuffix(".py")
            opened: List[str] = []
            text = bench_file.text
            for rep in range(reps):
                text = corpus.variant(bench_file.text, rep + 1)
                path = scratch / f"{slug}_r{rep}.py"
                path.write_text(text, encoding="utf-8")
                uri = uri_of(path)
                result.parse.add(*_parse_time(text))
                for server, session in _ordered(sessions, rep):
                    result.open[server].add(*await _open(session, uri, text))
                opened.append(uri)
            # Type into one function in the middle of the last opened variant.
            uri = opened[-1]
            line, indent = corpus.edit_site(text)
            lines = text.split("\n")
            lines.insert(line, indent + EDIT_PREFIX)
            for session in sessions.values():
                await session.insert(uri, 2, line, 0, indent + EDIT_PREFIX + "\n")
            column = len(indent) + len(EDIT_PREFIX)
            edits = plan.big_edit_count if big else plan.edit_count
            for key in range(edits):
                digit = str(key % 9 + 1)
                for server, session in _ordered(sessions, key):
                    result.edit[server].add(*await _insert(session, uri, 3 + key, line, column + key, digit))
                lines[line] += digit
            if name == plan.hover_file and "msport" in sessions:
                await _hovers(sessions["msport"], uri, "\n".join(lines), plan.hover_sites, results)
            for uri in opened:
                for session in sessions.values():
                    session.close(uri)
            log(_file_line(result))
    finally:
        for session in sessions.values():
            await session.stop()
    return results


async def _hovers(session: Session, uri: str, text: str, count: int, results: LspResults) -> None:
    sites = corpus.hover_sites(text, count)
    for index, (line, column, _) in enumerate(sites):
        cpu = session.cpu_seconds()
        seconds, hover = await session.hover(uri, line, column)
        if index == 0:
            results.hover_first = seconds
        else:
            results.hover.add(seconds, session.cpu_seconds() - cpu, 0)
        results.hover_answered += hover is not None


def _file_line(result: FileResult) -> str:
    parts = [f"{result.name} ({result.lines} lines): ast.parse {p50(result.parse.wall) * 1e3:.1f} ms"]
    for server in result.open:
        parts.append(
            f"{server} open {p50(result.open[server].wall) * 1e3:.1f} ms, edit {p50(result.edit[server].wall) * 1e3:.1f} ms"
        )
    return "; ".join(parts)


async def measure_startup(servers: Dict[str, Sequence[str]], reps: int, work: Path) -> Dict[str, List[float]]:
    times: Dict[str, List[float]] = {name: [] for name in servers}
    for rep in range(reps):
        order = list(servers.items()) if rep % 2 == 0 else list(servers.items())[::-1]
        for name, command in order:
            session = _session(name, command, work / "lsp", work / "logs")
            try:
                times[name].append(await session.start())
            finally:
                await session.stop()
    return times


async def measure_memory(name: str, command: Sequence[str], paths: List[Path], work: Path, timeout: float = 600) -> Dict[str, float]:
    """RSS of a fresh server once it has published diagnostics for every one of *paths*."""
    session = _session(name, command, work / "lsp", work / "logs")
    try:
        await session.start()
        idle = session.memory()
        started = time.perf_counter()
        futures = [session.open_nowait(uri_of(p), p.read_text(encoding="utf-8")) for p in paths]
        done, pending = await asyncio.wait(futures, timeout=timeout)
        elapsed = time.perf_counter() - started
        await asyncio.sleep(0.5)  # let anything scheduled after the last publication finish
        used = session.memory()
        return {
            "files": float(len(paths)),
            "published": float(len(done)),
            "seconds": elapsed,
            "idle_rss": float(idle["VmRSS"]),
            "rss": float(used["VmRSS"]),
            "peak": float(used["VmHWM"]),
        }
    finally:
        await session.stop()
