"""Command-line throughput: msport check, PaConvert and TorchFix on the same tree.

Two figures per run. Lines of Python per CPU-second, CPU being user + system time of the tool and
every process it waited for (``resource.getrusage(RUSAGE_CHILDREN)``), so a tool that fans out
over all cores is charged for all of them and the figure depends little on the machine's other
load. And lines per wall-clock second, what a user waits for: there a tool that uses every core
(msport and TorchFix by default) gains over one that does not, and other load on a shared machine
costs. msport runs twice: with its default (a worker per usable CPU) and with ``-j 1`` (in one
process), to show what the workers buy.
"""

from __future__ import annotations

import resource
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Sequence

import corpus


@dataclass
class CliRun:
    tool: str
    command: List[str]
    lines: int
    files: int
    wall: float
    cpu: float
    returncode: int

    @property
    def lines_per_cpu_second(self) -> float:
        return self.lines / self.cpu if self.cpu > 0 else float("nan")

    @property
    def lines_per_wall_second(self) -> float:
        return self.lines / self.wall if self.wall > 0 else float("nan")


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_tool(tool: str, command: Sequence[str], tree: Path, log: Path, ok_codes=(0, 1)) -> CliRun:
    files = corpus.python_files(tree)
    lines = corpus.count_lines(files)
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "wb") as out:
        before, started = _children_cpu(), time.perf_counter()
        proc = subprocess.run(list(command), stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        wall, cpu = time.perf_counter() - started, _children_cpu() - before
    if proc.returncode not in ok_codes:
        raise RuntimeError(f"{tool} exited with {proc.returncode}; see {log}")
    return CliRun(tool, list(command), lines, len(files), wall, cpu, proc.returncode)


def commands(tool: Callable[[str], str], tree: Path, work: Path) -> Dict[str, List[str]]:
    """The command lines, by tool; *tool* resolves an executable's name to its path."""
    out = work / "paconvert-out"
    shutil.rmtree(out, ignore_errors=True)
    return {
        "msport check": [tool("msport"), "check", str(tree)],  # a worker per usable CPU
        "msport check -j 1": [tool("msport"), "check", "-j", "1", str(tree)],
        # PaConvert's default mode (converts, then formats its output with black and isort).
        "PaConvert": [tool("paconvert"), "-i", str(tree), "-o", str(out), "--log_level", "WARNING"],
        # TorchFix's CLI in check mode with its default rule selection, one job per core.
        "TorchFix": [tool("torchfix"), str(tree)],
    }


def quick_tree(timm: Path, work: Path, target_lines: int = 10_000) -> Path:
    """A copy of the first files of timm/layers, about *target_lines* long, for --quick."""
    tree = work / "corpus" / "quick-tree"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    total = 0
    for path in corpus.python_files(timm / "layers"):
        if total >= target_lines:
            break
        shutil.copy(path, tree / path.name)
        total += path.read_bytes().count(b"\n")
    return tree
