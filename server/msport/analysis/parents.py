"""The parent of every node of a parsed chunk, for the few trees being checked.

``ast`` nodes do not know their parents; fix builders need them to see what surrounds a
construct (the `.sum()` around `x[mask]`, the call around a renamed name)."""

from __future__ import annotations

import ast
from typing import Dict, Optional

from .lru import LRU
from .visitor import iter_child_nodes

#: id(tree) -> (tree, its parent map). The maps are needed while one chunk is checked (several
#: fix builders ask for the same tree's), so a few suffice. Bounded on purpose: a map refers to
#: every node of its tree, so a cache keyed weakly by the tree would never let a tree go.
_maps = LRU(8)


def parent_map(tree: ast.AST) -> Dict[int, ast.AST]:
    """id(node) -> parent node for every node under *tree*."""
    cached = _maps.get(id(tree))
    if cached is not None and cached[0] is tree:
        return cached[1]
    parents: Dict[int, ast.AST] = {}
    todo = [tree]
    while todo:
        parent = todo.pop()
        for child in iter_child_nodes(parent):
            parents[id(child)] = parent
            todo.append(child)
    _maps.put(id(tree), (tree, parents))
    return parents


def called_by(tree: ast.AST, node: ast.AST) -> Optional[ast.Call]:
    """The call whose callee is *node* (`f` in `f(x)`), if any."""
    parent = parent_map(tree).get(id(node))
    return parent if isinstance(parent, ast.Call) and parent.func is node else None
