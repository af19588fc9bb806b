"""Whether a rename fix is safe: only where a run of both APIs proved it for this call's shape.

tools/prove_renames.py runs each rename (the torch call and msport's port) on the real
packages in several call shapes and records the calls it ran; a rename is safe for a call with
as many positional arguments and the same keywords as one of them, and no unpacking. Other
calls, and references that are not calls (``act = torch.relu``), keep the rename as an unsafe
fix that says why.
"""

from __future__ import annotations

import ast
from typing import Iterable, Optional

from ..knowledge.messages import DEFAULT_LANGUAGE, message
from ..knowledge.proven import covered, proven_shapes, shape_of
from .parents import called_by


def call_safety(tree: ast.AST, node: ast.AST, torch: str, mindspore: Optional[str], ignore: Iterable[str] = (),
                language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """None when renaming the torch API referenced at *node* (in *tree*) to *mindspore* was
    proven for this call; otherwise why not (Fix.reason, in *language*). Keywords in *ignore*
    are rewritten by a call form, whose own proof covers them."""
    shapes = proven_shapes(torch, mindspore)
    call = called_by(tree, node)
    if not shapes:
        return message("unsafe.rename_unproven", language, target=mindspore or "")
    if call is None:
        return message("unsafe.rename_reference", language)
    shape = shape_of(call)
    if shape is None:
        return message("unsafe.rename_unpacked", language)
    ignored = set(ignore)
    positional, keywords, numbers = shape
    keywords = frozenset(k for k in keywords if k not in ignored)
    if covered((positional, keywords, numbers), shapes):
        return None
    # A keyword the form rewrites may be passed by position too: count it out once.
    if ignored and any(covered((positional - i, keywords, frozenset(n for n in numbers if n < positional - i)), shapes)
                       for i in range(1, len(ignored) + 1)):
        return None
    proven = " or ".join(sorted({_shape_text(s) for s in shapes}))
    return message("unsafe.rename_shape", language, written=_shape_text((positional, keywords, numbers)), proven=proven)


def _shape_text(shape) -> str:
    positional, keywords, numbers = shape
    args = [("a number" if i in numbers else "a value") for i in range(positional)]
    return ", ".join([f"{positional} positional" + (f" ({', '.join(args)})" if numbers else "")] + [f"{k}=" for k in sorted(keywords)])
