"""What machine and which versions a run measured, for the results file."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import sys
from importlib import metadata
from pathlib import Path
from typing import Dict, List, Optional


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def _memory_gib() -> float:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) / 1024 / 1024
    except OSError:
        pass
    return float("nan")


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "unknown"


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def _output(command: List[str], cwd: Optional[Path] = None) -> str:
    try:
        return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=30).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return ""


def describe(repo: Path, ruff: str) -> Dict[str, str]:
    commit = _output(["git", "rev-parse", "--short", "HEAD"], repo) or "unknown"
    # Read-only: which measured sources differ from the commit (the lead commits).
    dirty = _output(["git", "status", "--porcelain", "--", "server", "rules"], repo)
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return {
        "CPU": _cpu_model(),
        "cores": str(cores),
        "memory": f"{_memory_gib():.1f} GiB",
        "OS": f"{platform.system()} {platform.release()}",
        "Python": f"{platform.python_implementation()} {platform.python_version()} ({sys.executable})",
        "msport": f"{_version('msport')} (commit {commit}{', with uncommitted changes in server/ or rules/' if dirty else ''})",
        "ruff": _output([ruff, "--version"]).removeprefix("ruff ") or "not found",
        "paconvert": _version("paconvert"),
        "torchfix": _version("torchfix"),
        "pygls": _version("pygls"),
    }


def tag() -> str:
    """A short machine tag for file names, e.g. ``amd-epyc-2c``."""
    model = re.sub(r"\((r|tm)\)|cpu|processor|@.*", "", _cpu_model(), flags=re.I)
    words = [w for w in re.split(r"[^a-z0-9]+", model.lower()) if w][:3]
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    return "-".join(words + [f"{cores}c"])
