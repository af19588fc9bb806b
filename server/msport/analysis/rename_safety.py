"""Whether a rename fix is safe: only where a run of both APIs proved it.

tools/prove_renames.py runs each rename (the torch call and msport's port) on the real
packages and records the calls it ran; a rename is safe for a call of such a shape (as many
positional arguments, no keywords, no unpacking). Other calls, and references that
are not calls (``act = torch.relu``), keep the rename but as an unsafe fix, with the reason.
"""

from __future__ import annotations

import ast
from typing import Tuple

from ..knowledge.messages import DEFAULT_LANGUAGE, listing, message
from ..knowledge.model import Verdict
from ..knowledge.proven import proven_arities
from .findings import Safety
from .parents import called_by


def rename_judgement(tree: ast.AST, node: ast.AST, verdict: Verdict, language: str = DEFAULT_LANGUAGE) -> Tuple[Safety, str]:
    """(safety, why it is unsafe: empty when safe) of renaming the torch API referenced at
    *node* (in *tree*) per *verdict*; the reason in *language*."""
    arities = proven_arities(verdict.torch, verdict.mindspore)
    call = called_by(tree, node)
    if not arities:
        return Safety.UNSAFE, message("unsafe.rename_unproven", language)
    if verdict.renames:
        renames = listing([f"{t} -> {m}" for t, m in verdict.renames], language)
        return Safety.UNSAFE, message("unsafe.rename_parameters", language, renames=renames)
    if call is None:
        return Safety.UNSAFE, message("unsafe.rename_reference", language)
    if call.keywords:
        return Safety.UNSAFE, message("unsafe.rename_keywords", language)
    if any(isinstance(a, ast.Starred) for a in call.args):
        return Safety.UNSAFE, message("unsafe.rename_unpacked", language)
    if len(call.args) not in arities:
        proven = listing([str(n) for n in sorted(arities)], language)
        return Safety.UNSAFE, message("unsafe.rename_arity", language, proven=proven, count=len(call.args))
    return Safety.SAFE, ""


def rename_safety(tree: ast.AST, node: ast.AST, verdict: Verdict) -> Safety:
    """The safety of renaming the torch API referenced at *node* (in *tree*) per *verdict*."""
    return rename_judgement(tree, node, verdict)[0]
