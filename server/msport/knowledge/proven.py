"""The renames proven equivalent by running them (rules/proven_renames.toml).

Written by tools/prove_renames.py from runs of the torch original and msport's port on the
real packages, in several call shapes (positional, by keyword, first argument positional and
the rest by keyword). Each entry records the argument list it was run with; the rename fix is
safe only for calls that pass as many positional arguments and the same keywords as a call
listed (analysis/rename_safety.py).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Dict, FrozenSet, Optional, Tuple

from .loader import RuleFileError, read_toml, rules_dir
from .shared import load_once

FILE_NAME = "proven_renames.toml"

#: (positional arguments, keyword names) of one proven call.
CallShape = Tuple[int, FrozenSet[str]]


def load_proven(directory: Optional[Path] = None) -> Dict[Tuple[str, str], FrozenSet[CallShape]]:
    """(torch, MindSpore) -> shapes of the calls that were run."""
    path = (directory or rules_dir()) / FILE_NAME
    if not path.is_file():
        return {}
    try:
        data = read_toml(path)
    except RuleFileError:
        return {}  # an unreadable file proves nothing: every rename stays unsafe
    proven: Dict[Tuple[str, str], FrozenSet[CallShape]] = {}
    for entry in data.get("proven", []):
        if not isinstance(entry, dict) or not all(isinstance(entry.get(k), str) for k in ("torch", "mindspore", "call")):
            continue
        shape = call_shape(entry["call"])
        if shape is None:
            continue
        key = (entry["torch"], entry["mindspore"])
        proven[key] = proven.get(key, frozenset()) | {shape}
    return proven


def call_shape(call: str) -> Optional[CallShape]:
    """Positional arguments and keywords of a recorded call: "x, dim=1" -> (1, {dim}); a
    layer's "(3)(x)" -> its constructor's, which is the call the rename edits."""
    layer = re.fullmatch(r"\((.*)\)\((.*)\)", call)
    text = layer.group(1) if layer else call
    try:
        parsed = ast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        return None
    if any(isinstance(a, ast.Starred) for a in parsed.args) or any(k.arg is None for k in parsed.keywords):
        return None
    return len(parsed.args), frozenset(k.arg for k in parsed.keywords)


default_proven = load_once(load_proven)


def proven_shapes(torch: str, mindspore: Optional[str]) -> FrozenSet[CallShape]:
    """The shapes of the proven calls of this rename (empty: unproven)."""
    return default_proven().get((torch, mindspore or ""), frozenset())

