"""Settings that are valid but mean something else for the target version (or are deprecated
there): reported where the settings are read, as warnings, without failing the command.

Today one: jit-level = "O2", which selects whole-graph sinking only from MindSpore 2.3 and is
deprecated from 2.9 (the facts are rule data: [setting] in rules/graph_mode.toml).
"""

from __future__ import annotations

from typing import List

from ..knowledge.graph_mode import default_graph_mode
from .settings import SettingProblem, Settings


def setting_notices(settings: Settings) -> List[SettingProblem]:
    if settings.jit_level != "O2":
        return []
    rules = default_graph_mode()
    meaning = rules.o2_meaning(settings.version)
    if meaning == "sinking":
        return []
    key = "deprecated" if meaning == "deprecated" else "not_sinking"
    since = rules.setting_text("o2_deprecated")
    text = rules.setting_text(key, settings.language).replace("{since}", since).replace("{version}", settings.target_version)
    origin = dict(settings.origins).get("jit-level", "default")
    return [SettingProblem(origin, "jit-level", text)]
