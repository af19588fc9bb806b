"""What fix builders share to write code from the AST: a node's exact text, operands in
parentheses, constants, the enclosing function."""

from __future__ import annotations

import ast
from typing import Dict, Optional, Sequence

from .spans import node_span

#: Expressions a method call or an operator can follow without parentheses.
_ATOMS = (ast.Name, ast.Attribute, ast.Call, ast.Subscript, ast.List, ast.Tuple, ast.Dict, ast.Set)


def node_text(node: ast.AST, lines: Sequence[str]) -> str:
    """The node's source text exactly as written (chunk *lines*, as parsed)."""
    span = node_span(node, lines)
    if span.start_line == span.end_line:
        return lines[span.start_line][span.start_col:span.end_col]
    middle = lines[span.start_line + 1:span.end_line]
    return "\n".join([lines[span.start_line][span.start_col:], *middle, lines[span.end_line][:span.end_col]])


def operand_text(node: ast.AST, lines: Sequence[str]) -> str:
    """The node's text, parenthesised unless it is an atom, so that `.mean()` or `* m` after it
    applies to all of it (a number too: `1.mean()` would not parse)."""
    text = node_text(node, lines)
    return text if isinstance(node, _ATOMS) else f"({text})"


def const_int(node: Optional[ast.AST], default: Optional[int] = None) -> Optional[int]:
    """The value of an integer literal (`-1` included); *default* for no node; None otherwise."""
    if node is None:
        return default
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        inner = const_int(node.operand)
        return -inner if inner is not None else None
    if isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool):
        return node.value
    return None


def const_bool(node: Optional[ast.AST]) -> Optional[bool]:
    if isinstance(node, ast.Constant) and isinstance(node.value, bool):
        return node.value
    return None


def enclosing_function(node: ast.AST, parents: Dict[int, ast.AST]) -> Optional[ast.AST]:
    """The function or lambda *node* is in (None at module level)."""
    current = parents.get(id(node))
    while current is not None and not isinstance(current, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        current = parents.get(id(current))
    return current
