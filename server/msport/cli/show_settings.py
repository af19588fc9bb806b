"""``msport check --show-settings PATH...``: the settings that govern each path, and where each
value comes from (msport's default, a pyproject.toml, the command line), as ruff's and mypy's
users expect when a setting seems to be ignored."""

from __future__ import annotations

from pathlib import Path
from typing import Dict, Sequence

from ..analysis.setting_notices import setting_notices
from ..analysis.settings import origin_text
from ..config import settings_for
from ..knowledge.messages import message
from .files import environment_settings


def show_settings(paths: Sequence[Path], flags: Dict[str, str], known) -> int:
    """Print the settings of every path; exit status 2 when a configuration file has a problem."""
    problems = False
    for index, path in enumerate(paths):
        settings, pyproject = settings_for(path.resolve(), environment_settings(), known_codes=known)
        if flags:
            settings = settings.merged(flags, "command line", known)
        language = settings.language
        where = message("settings.show.pyproject", language, path=pyproject) if pyproject else message("settings.show.no_pyproject", language)
        print(("\n" if index else "") + message("settings.show.header", language, path=path, where=where))
        rows = settings.described()
        width = max(len(f"{key} = {value}") for key, value, _ in rows)
        for key, value, origin in rows:
            print(f"  {f'{key} = {value}':<{width}}  # {origin_text(origin, language)}")
        for problem in settings.problems:
            problems = True
            print("  " + message("settings.show.problem", language, problem=problem.text(language)))
        for notice in setting_notices(settings):
            print("  " + message("settings.show.warning", language, problem=notice.text(language)))
    return 2 if problems else 0
