"""The parent of every node of a parsed chunk, computed once per tree.

``ast`` nodes do not know their parents; fix builders need them to see what surrounds a
construct (the `.sum()` around `x[mask]`, the call around a renamed name)."""

from __future__ import annotations

import ast
import threading
import weakref
from typing import Dict, Optional

from .visitor import iter_child_nodes

_maps: "weakref.WeakKeyDictionary[ast.AST, Dict[int, ast.AST]]" = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def parent_map(tree: ast.AST) -> Dict[int, ast.AST]:
    """id(node) -> parent node for every node under *tree* (cached while the tree lives)."""
    with _lock:
        parents = _maps.get(tree)
        if parents is None:
            parents = {}
            todo = [tree]
            while todo:
                parent = todo.pop()
                for child in iter_child_nodes(parent):
                    parents[id(child)] = parent
                    todo.append(child)
            _maps[tree] = parents
        return parents


def called_by(tree: ast.AST, node: ast.AST) -> Optional[ast.Call]:
    """The call whose callee is *node* (`f` in `f(x)`), if any."""
    parent = parent_map(tree).get(id(node))
    return parent if isinstance(parent, ast.Call) and parent.func is node else None
