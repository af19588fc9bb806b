"""Whether a rename fix is safe: only where a run of both APIs proved it for this call's shape.

tools/prove_renames.py runs each rename (the torch call and msport's port) on the real
packages in several call shapes and records the calls it ran; a rename is safe for a call with
as many positional arguments and the same keywords as one of them, and no unpacking. Other
calls, and references that are not calls (``act = torch.relu``), keep the rename as an unsafe
fix whose title says why.
"""

from __future__ import annotations

import ast
from typing import Iterable, Optional

from ..knowledge.callforms import default_callforms
from ..knowledge.proven import proven_shapes
from .call_forms import render
from .parents import called_by


def call_safety(tree: ast.AST, node: ast.AST, torch: str, mindspore: Optional[str], ignore: Iterable[str] = ()) -> Optional[str]:
    """None when renaming the torch API referenced at *node* (in *tree*) to *mindspore* was
    proven for this call; otherwise why not, for the fix's title. Keywords in *ignore* are
    rewritten by a call form, whose own proof covers them."""
    templates = default_callforms().messages
    shapes = proven_shapes(torch, mindspore)
    call = called_by(tree, node)
    if not shapes:
        return render(templates["reason_unproven"], target=mindspore or "")
    if call is None:
        return templates["reason_not_called"]
    if any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords):
        return templates["reason_unpacked"]
    ignored = set(ignore)
    keywords = frozenset(k.arg for k in call.keywords if k.arg not in ignored)
    positional = len([a for a in call.args])
    if (positional, keywords) in shapes:
        return None
    # A keyword the form rewrites may be passed by position too: count it out once.
    if ignored and any((positional - i, keywords) in shapes for i in range(1, len(ignored) + 1)):
        return None
    written = ", ".join([f"{positional} positional"] + [f"{k}=" for k in sorted(keywords)])
    proven = "; ".join(sorted(_shape_text(s) for s in shapes))
    return render(templates["reason_shape"], written=written, proven=proven)


def _shape_text(shape) -> str:
    positional, keywords = shape
    return ", ".join([f"{positional} positional"] + [f"{k}=" for k in sorted(keywords)])
