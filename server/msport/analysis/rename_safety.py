"""Whether a rename fix is safe: only where a run of both APIs proved it.

tools/prove_renames.py runs each rename (the torch call and msport's port) on the real
packages and records the calls it ran; a rename is safe for a call of such a shape (as many
positional arguments, no keywords, no unpacking). Other calls, and references that
are not calls (``act = torch.relu``), keep the rename but as an unsafe fix.
"""

from __future__ import annotations

import ast

from ..knowledge.model import Verdict
from ..knowledge.proven import proven_arities
from .findings import Safety
from .parents import called_by


def rename_safety(tree: ast.AST, node: ast.AST, verdict: Verdict) -> Safety:
    """The safety of renaming the torch API referenced at *node* (in *tree*) per *verdict*."""
    arities = proven_arities(verdict.torch, verdict.mindspore)
    call = called_by(tree, node)
    if not arities or verdict.renames or call is None or call.keywords:
        return Safety.UNSAFE
    if any(isinstance(a, ast.Starred) for a in call.args) or len(call.args) not in arities:
        return Safety.UNSAFE
    return Safety.SAFE
