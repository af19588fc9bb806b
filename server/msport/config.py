"""Settings from files: ``[tool.msport]`` in the nearest ``pyproject.toml``.

Shared by the command line and the language server; the analysis core never reads files.
"""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path
from typing import Dict, Optional, Tuple

from .analysis.settings import SettingProblem, Settings
from .said import said
from .knowledge import toml
from .regular_files import read_regular_file, regular_file_status

_cache: Dict[Path, Tuple[Tuple[int, int], Optional[Dict], Optional[SettingProblem]]] = {}


def find_pyproject(start: Path) -> Optional[Path]:
    """The nearest ``pyproject.toml`` at or above *start* (a file or a directory)."""
    directory = start if os.path.isdir(start) else start.parent
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        # exists(), not isfile(): a pyproject.toml that is a FIFO or a device is the project's
        # configuration all the same, and is reported as unreadable rather than skipped. (os.path's
        # functions answer False where pathlib's raise: in a folder that cannot be searched.)
        if os.path.exists(candidate):
            return candidate
    return None


#: A pyproject.toml larger than this is not read (real ones are a few kB).
MAX_PYPROJECT_SIZE = 4_000_000


def _read_table(path: Path) -> Tuple[Optional[Dict], Optional[SettingProblem]]:
    try:
        status = regular_file_status(path)
    except OSError as exc:
        return None, SettingProblem.of(str(path), "pyproject.toml", said("settings.pyproject.unreadable", reason=exc.strerror or exc))
    stamp = (status.st_mtime_ns, status.st_size)
    cached = _cache.get(path)
    if cached and cached[0] == stamp:
        return cached[1], cached[2]
    table: Optional[Dict] = None
    problem: Optional[SettingProblem] = None
    try:
        data = toml.loads(read_regular_file(path, MAX_PYPROJECT_SIZE).decode("utf-8"))
        tool = data.get("tool", {})
        if not isinstance(tool, dict):
            problem = SettingProblem.of(str(path), "tool", said("settings.pyproject.not_a_table", table="[tool]", kind=type(tool).__name__))
        else:
            table = tool.get("msport")
            if table is not None and not isinstance(table, dict):
                problem = SettingProblem.of(str(path), "tool.msport", said("settings.pyproject.not_a_table", table="[tool.msport]", kind=type(table).__name__))
                table = None
    except toml.TOMLDecodeError as exc:
        problem = SettingProblem.of(str(path), "pyproject.toml", said("settings.pyproject.invalid", reason=exc))
    except RecursionError:
        problem = SettingProblem.of(str(path), "pyproject.toml", said("settings.pyproject.too_deep"))
    except (OSError, UnicodeDecodeError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else exc
        problem = SettingProblem.of(str(path), "pyproject.toml", said("settings.pyproject.unreadable", reason=reason))
    _cache[path] = (stamp, table, problem)
    return table, problem


def settings_for(path: Path, base: Optional[Settings] = None, known_codes=()) -> Tuple[Settings, Optional[Path]]:
    """*base* (defaults) overlaid with the ``[tool.msport]`` table that governs *path*."""
    settings = base or Settings()
    pyproject = find_pyproject(path)
    if pyproject is None:
        return settings, None
    table, problem = _read_table(pyproject)
    # The project's root, which exclude and per-file-ignores patterns are relative to.
    settings = replace(settings, project_root=str(pyproject.parent.absolute()))
    if problem is not None:
        return replace(settings, problems=settings.problems + (problem,)), pyproject
    if table:
        settings = settings.merged(table, str(pyproject), known_codes, base_dir=str(pyproject.parent))
    return settings, pyproject
