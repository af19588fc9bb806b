"""``msport check --show-settings PATH...``: the settings that govern each path, and where each
value comes from (msport's default, a pyproject.toml, the command line), as ruff's and mypy's
users expect when a setting seems to be ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Sequence

from ..analysis.setting_notices import setting_notices
from ..config import settings_for
from .files import environment_settings


def show_settings(paths: Sequence[Path], flags: Dict[str, str], known) -> int:
    """Print the settings of every path; exit status 2 when a configuration file has a problem."""
    problems = False
    for index, path in enumerate(paths):
        settings, pyproject = settings_for(path.resolve(), environment_settings(), known_codes=known)
        if flags:
            settings = settings.merged(flags, "command line", known)
        where = f"{pyproject} ([tool.msport])" if pyproject else "no pyproject.toml above it: msport's defaults"
        print(("\n" if index else "") + f"Settings for {path} (configuration: {where})")
        rows = settings.described()
        width = max(len(f"{key} = {value}") for key, value, _ in rows)
        for key, value, origin in rows:
            print(f"  {f'{key} = {value}':<{width}}  # {origin}")
        for problem in settings.problems:
            problems = True
            print(f"  problem: {problem}")
        for notice in setting_notices(settings):
            print(f"  warning: {notice}")
    return 2 if problems else 0
