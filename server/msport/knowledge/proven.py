"""The renames proven equivalent by running them (rules/proven_renames.toml).

Written by tools/prove_renames.py from runs of the torch original and msport's port on the
real packages. Each entry records the call it was run with; the rename fix is safe only for
calls of that shape (analysis/rename_safety.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

from .loader import RuleFileError, read_toml, rules_dir
from .shared import load_once

FILE_NAME = "proven_renames.toml"

def load_proven(directory: Optional[Path] = None) -> Dict[Tuple[str, str], FrozenSet[int]]:
    """(torch, MindSpore) -> numbers of positional arguments of the calls that were run."""
    path = (directory or rules_dir()) / FILE_NAME
    if not path.is_file():
        return {}
    try:
        data = read_toml(path)
    except RuleFileError:
        return {}  # an unreadable file proves nothing: every rename stays unsafe
    proven: Dict[Tuple[str, str], FrozenSet[int]] = {}
    for entry in data.get("proven", []):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("torch", "mindspore", "call")):
            continue
        arity = _arity(entry["call"])
        if arity is None:
            continue
        key = (entry["torch"], entry["mindspore"])
        proven[key] = proven.get(key, frozenset()) | {arity}
    return proven


def _arity(call: str) -> Optional[int]:
    """Positional arguments of a recorded call: "x, 1" -> 2; a layer's "(3)(x)" -> 1 (its
    constructor's, which is the call the rename edits)."""
    layer = re.fullmatch(r"\((.*)\)\((.*)\)", call)
    text = layer.group(1) if layer else call
    if not text.strip():
        return 0
    try:
        return len(ast.parse(f"({text},)", mode="eval").body.elts)
    except SyntaxError:
        return None


default_proven = load_once(load_proven)


def proven_arities(torch: str, mindspore: Optional[str]) -> FrozenSet[int]:
    """How many positional arguments the proven calls of this rename had (empty: unproven)."""
    return default_proven().get((torch, mindspore or ""), frozenset())
