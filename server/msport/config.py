"""Settings from files: ``[tool.msport]`` in the nearest ``pyproject.toml``.

Shared by the command line and the language server; the analysis core never reads files.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Dict, Optional, Tuple

from .analysis.settings import SettingProblem, Settings
from .knowledge import toml

_cache: Dict[Path, Tuple[float, Optional[Dict], Optional[SettingProblem]]] = {}


def find_pyproject(start: Path) -> Optional[Path]:
    """The nearest ``pyproject.toml`` at or above *start* (a file or a directory)."""
    directory = start if start.is_dir() else start.parent
    for folder in (directory, *directory.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def _read_table(path: Path) -> Tuple[Optional[Dict], Optional[SettingProblem]]:
    try:
        mtime = path.stat().st_mtime
    except OSError as exc:
        return None, SettingProblem(str(path), "pyproject.toml", f"cannot read: {exc.strerror or exc}")
    cached = _cache.get(path)
    if cached and cached[0] == mtime:
        return cached[1], cached[2]
    table: Optional[Dict] = None
    problem: Optional[SettingProblem] = None
    try:
        data = toml.loads(path.read_text(encoding="utf-8"))
        table = data.get("tool", {}).get("msport")
        if table is not None and not isinstance(table, dict):
            problem = SettingProblem(str(path), "tool.msport", "expected a table ([tool.msport]); defaults used")
            table = None
    except toml.TOMLDecodeError as exc:
        problem = SettingProblem(str(path), "pyproject.toml", f"invalid TOML ({exc}); msport uses its defaults")
    except (OSError, UnicodeDecodeError) as exc:
        problem = SettingProblem(str(path), "pyproject.toml", f"cannot read ({exc}); msport uses its defaults")
    _cache[path] = (mtime, table, problem)
    return table, problem


def settings_for(path: Path, base: Optional[Settings] = None, known_codes=()) -> Tuple[Settings, Optional[Path]]:
    """*base* (defaults) overlaid with the ``[tool.msport]`` table that governs *path*."""
    settings = base or Settings()
    pyproject = find_pyproject(path)
    if pyproject is None:
        return settings, None
    table, problem = _read_table(pyproject)
    if problem is not None:
        return replace(settings, problems=settings.problems + (problem,)), pyproject
    if table:
        settings = settings.merged(table, str(pyproject), known_codes, base_dir=str(pyproject.parent))
    return settings, pyproject
