"""Real parameter names of torch and MindSpore APIs (rules/snapshots/), one package release at a
time: the call forms bind a call's arguments with them on every keystroke, so only the
snapshots a check needs are read (torch and the configured MindSpore release), once each."""

from __future__ import annotations

import functools
import json
from typing import Dict, Optional, Tuple

from .loader import rules_dir
from .model import Version

Entry = Tuple[str, Optional[Tuple[str, ...]]]  # (kind, parameter names or None)
TORCH = "torch-2.13.0.json"
#: literal defaults of torch's Python-level APIs (tools/snapshot_torch_defaults.py)
TORCH_DEFAULTS = "torch-defaults-2.13.0.json"
MINDSPORE = {(2, 7): "mindspore-2.7.0.json", (2, 8): "mindspore-2.8.0.json", (2, 9): "mindspore-2.9.0.json",
             (2, 10): "mindspore-2.10.0.json"}
NEWEST = max(MINDSPORE)


@functools.lru_cache(maxsize=None)
def _snapshot(file_name: str) -> Dict[str, Entry]:
    path = rules_dir() / "snapshots" / file_name
    try:
        apis = json.loads(path.read_text(encoding="utf-8"))["apis"]
    except (OSError, ValueError, KeyError):
        return {}  # no snapshot: no signature, so no form that needs one applies
    return {name: (value[0], tuple(value[1]) if value[1] is not None else None) for name, value in apis.items()}


def torch_entry(name: str) -> Optional[Entry]:
    return _snapshot(TORCH).get(name)


@functools.lru_cache(maxsize=None)
def _torch_defaults() -> Dict[str, Dict[str, str]]:
    try:
        return json.loads((rules_dir() / "snapshots" / TORCH_DEFAULTS).read_text(encoding="utf-8"))["apis"]
    except (OSError, ValueError, KeyError):
        return {}


def torch_defaults(name: str) -> Dict[str, str]:
    """Parameter -> PyTorch's literal default (as source text) for *name*, where Python can read it."""
    return _torch_defaults().get(name, {})


def mindspore_entry(name: str, version: Optional[Version] = None) -> Optional[Entry]:
    """*name* in the snapshot of *version* (the oldest snapshot for releases before it, the
    newest after), else in the newest snapshot."""
    if version is not None:
        nearest = min(MINDSPORE, key=lambda v: (abs((v[0] - version[0]) * 100 + v[1] - version[1]), v))
        found = _snapshot(MINDSPORE[nearest]).get(name)
        if found is not None:
            return found
    return _snapshot(MINDSPORE[NEWEST]).get(name)


def preload(version: Version = NEWEST) -> None:
    torch_entry("torch")
    mindspore_entry("mindspore", version)
