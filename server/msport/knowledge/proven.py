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

from .. import pyast
from .loader import RuleFileError, read_toml, rules_dir
from .shared import load_once

FILE_NAME = "proven_renames.toml"

#: (positional arguments, keyword names, positions holding a Python number) of one call.
CallShape = Tuple[int, FrozenSet[str], FrozenSet[int]]


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
    """The shape of a recorded call: "x, dim=1" -> (1, {dim}, {}); "x, 1" -> (2, {}, {1}); a
    layer's "(3)(x)" -> its constructor's, which is the call the rename edits."""
    layer = re.fullmatch(r"\((.*)\)\((.*)\)", call)
    text = layer.group(1) if layer else call
    try:
        parsed = pyast.parse(f"f({text})", mode="eval").body
    except SyntaxError:
        return None
    return shape_of(parsed)


def shape_of(call: ast.Call) -> Optional[CallShape]:
    """A call's shape; None when it unpacks *args or **kwargs (what they hold is unknown)."""
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return None
    numbers = frozenset(i for i, a in enumerate(call.args) if _number(a))
    return len(call.args), frozenset(k.arg for k in call.keywords), numbers


def _number(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool)


def covered(shape: CallShape, proven) -> bool:
    """A proven call has as many positional arguments and the same keywords, and a Python number
    only where the proven call had one too (a number where a tensor was run is another call:
    mint.where(m, 1.0, x), mint.xlogy(2.0, x))."""
    count, keywords, numbers = shape
    return any(count == c and keywords == k and numbers <= n for c, k, n in proven)


default_proven = load_once(load_proven)


def proven_shapes(torch: str, mindspore: Optional[str]) -> FrozenSet[CallShape]:
    """The shapes of the proven calls of this rename (empty: unproven)."""
    return default_proven().get((torch, mindspore or ""), frozenset())

