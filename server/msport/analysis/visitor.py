"""Tree walking at a fraction of ``ast.NodeVisitor``'s cost.

Walking the tree is most of what analysis costs in Python (a 7,000-line file has ~60,000
nodes, walked by several passes). ``ast.NodeVisitor`` looks up ``"visit_" + class name`` by
string on every node, routes constants through a deprecation shim, and visits the
context/operator singletons (``Load``, ``Add``, ``Eq``...) hanging off most expressions. Here
the method is looked up once per (visitor class, node class), and the fields holding those
singletons are never descended into: no pass looks at them except through their parent
(``node.ctx``, ``node.op``).
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, Iterator, Tuple

from .deadline import EVERY, check

_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})
_FIELDS: Dict[type, Tuple[str, ...]] = {}
_AST = ast.AST


def _fields(cls: type) -> Tuple[str, ...]:
    fields = _FIELDS.get(cls)
    if fields is None:
        fields = _FIELDS[cls] = tuple(name for name in cls._fields if name not in _LEAF_FIELDS)
    return fields


def iter_child_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.iter_child_nodes`` without the context and operator singletons."""
    for name in _FIELDS.get(node.__class__) or _fields(node.__class__):
        value = getattr(node, name, None)
        if value.__class__ is list:
            for item in value:
                if isinstance(item, _AST):
                    yield item
        elif isinstance(value, _AST):
            yield value


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """``ast.walk`` (breadth first) without the context and operator singletons. The children
    are gathered inline rather than through iter_child_nodes: one generator per walk instead of
    one per node (walks run over every chunk in several passes)."""
    todo = [node]
    append = todo.append
    index = 0
    fields_of = _FIELDS.get
    while index < len(todo):
        current = todo[index]
        index += 1
        for name in fields_of(current.__class__) or _fields(current.__class__):
            value = getattr(current, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, _AST):
                        append(item)
            elif isinstance(value, _AST):
                append(value)
        yield current


_BLOCKS = frozenset({"body", "orelse", "finalbody", "handlers", "cases"})
_BLOCK_FIELDS: Dict[type, Tuple[str, ...]] = {}


def walk_statements(node: ast.AST) -> Iterator[ast.AST]:
    """The statements under *node* (and except handlers, match cases), in ``ast.walk``'s order,
    without descending into expressions: a fraction of the nodes when looking for assignments."""
    todo = [node]
    index = 0
    while index < len(todo):
        current = todo[index]
        index += 1
        fields = _BLOCK_FIELDS.get(current.__class__)
        if fields is None:
            fields = _BLOCK_FIELDS[current.__class__] = tuple(f for f in current._fields if f in _BLOCKS)
        for name in fields:
            block = getattr(current, name, None)
            if block.__class__ is list:  # a Lambda's or an IfExp's body is an expression
                todo.extend(block)
        yield current


class Visitor:
    """A drop-in for ``ast.NodeVisitor``: ``visit_<Class>`` methods, ``generic_visit``.

    ``generic_visit`` dispatches to the children itself rather than through ``visit`` (one
    Python call per node instead of two), and a leaf with no method of its own (a constant, a
    name) costs no call at all.
    """

    _methods: Dict[type, Callable] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls._methods = {}  # per class: a subclass may override any visit_ method

    @classmethod
    def _method(cls, node_class: type) -> Callable:
        method = getattr(cls, "visit_" + node_class.__name__, None)
        if method is None:
            method = _skip if node_class in _LEAVES else cls.generic_visit
        cls._methods[node_class] = method
        return method

    def visit(self, node: ast.AST):
        global _steps
        _steps -= 1
        if _steps <= 0:  # not == 0: another thread may have stepped past zero meanwhile
            _check_deadline(node)
        method = self._methods.get(node.__class__) or self._method(node.__class__)
        return method(self, node)

    def generic_visit(self, node: ast.AST) -> None:
        global _steps
        _steps -= 1
        if _steps <= 0:  # not == 0: another thread may have stepped past zero meanwhile
            _check_deadline(node)
        methods = self._methods
        for name in _FIELDS.get(node.__class__) or _fields(node.__class__):
            value = getattr(node, name, None)
            if value.__class__ is list:
                for item in value:
                    if isinstance(item, _AST):
                        (methods.get(item.__class__) or self._method(item.__class__))(self, item)
            elif isinstance(value, _AST):
                (methods.get(value.__class__) or self._method(value.__class__))(self, value)


#: Steps left before the next look at the clock (see deadline.py); shared by every thread, it
#: only decides when to look, and each thread compares with its own deadline.
_steps = EVERY


def _check_deadline(node: ast.AST) -> None:
    global _steps
    _steps = EVERY
    check(node)


#: Node classes that never have child nodes (their other fields are strings and constants; a
#: Name's ctx is not descended into).
_LEAVES = frozenset({ast.Constant, ast.Name, ast.alias, ast.Pass, ast.Break, ast.Continue, ast.Global, ast.Nonlocal})


def _skip(visitor: Visitor, node: ast.AST) -> None:
    """What ``generic_visit`` would do for a leaf: nothing."""
