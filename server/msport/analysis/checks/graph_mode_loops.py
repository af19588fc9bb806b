"""MS425: a name first bound inside a loop and read, in a later iteration, where no statement of
the same iteration has bound it yet (`if i > 0: x = x + prev` ... `prev = x`).

Helper of GraphModeCheck (graph_mode.py), called on every for/while loop in compiled code. Python
finds the name from the iteration before; MindSpore's graph compiler resolves names per
iteration and fails with NameError (measured on mindspore 2.10 CPU, tests/graph_mode/
graph_mode_cases.py, kind ``loop-carried``). Binding the name to None before the loop compiles and
gives PyNative's result, which the fix writes.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Iterator, List, Set

from ..findings import Edit, Fix, Safety, Span
from ..parents import parent_map
from ..visitor import walk

if TYPE_CHECKING:  # pragma: no cover
    from .graph_mode import GraphModeCheck

_LOOPS = (ast.For, ast.While)
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


class LoopJudge:
    def __init__(self, check: "GraphModeCheck") -> None:
        self.check = check
        self.rules = check.rules.of_kind("loop-carried")

    def loop(self, node: ast.AST) -> None:
        """Report each name of loop *node* read before any statement of its iteration binds it."""
        check = self.check
        function = check.frame.node if check.frame is not None else None
        if not self.rules or not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return
        stored = _stored_in(node.body)
        if not stored:
            return
        before = _bound_before(function, node) | set(_loop_targets(node))
        parents = parent_map(check.chunk.tree)
        for name in stored:
            if name in before:
                continue
            read = next((load for load in _loads(node.body, name) if not _dominated(load, name, node, parents)), None)
            if read is None:
                continue
            for rule in self.rules:
                check.report(rule, read, read, name=name, fixes=(self._fix(node, name),))

    def _fix(self, loop: ast.AST, name: str) -> Fix:
        check = self.check
        line = loop.lineno - 1
        indent = check.chunk.lines[line][:loop.col_offset]
        title = check.rules.fix_title("loop_carried", check.settings.language, name=name)
        return Fix(title, Safety.SAFE, (Edit(Span(line, 0, line, 0), f"{indent}{name} = None\n"),))


def _own_nodes(statements: List[ast.stmt]) -> Iterator[ast.AST]:
    """The nodes of *statements*, not those of nested functions, classes or comprehensions."""
    stack = list(reversed(statements))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, _SCOPES):
            continue
        stack.extend(reversed(list(ast.iter_child_nodes(node))))


def _stored_in(statements: List[ast.stmt]) -> List[str]:
    names: List[str] = []
    for node in _own_nodes(statements):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
            names.append(node.id)
    return names


def _loads(statements: List[ast.stmt], name: str) -> Iterator[ast.Name]:
    for node in _own_nodes(statements):
        if isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Load):
            yield node


def _loop_targets(loop: ast.AST) -> Iterator[str]:
    if isinstance(loop, ast.For):
        for node in walk(loop.target):
            if isinstance(node, ast.Name):
                yield node.id


def _bound_before(function: ast.AST, loop: ast.AST) -> Set[str]:
    """Names the function's parameters, or a statement before the loop, bind."""
    arguments = function.args
    names = {a.arg for a in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs)}
    names |= {a.arg for a in (arguments.vararg, arguments.kwarg) if a is not None}
    for node in _own_nodes(function.body):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and (node.lineno, node.col_offset) < (loop.lineno, loop.col_offset):
            names.add(node.id)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.update(node.names)
    return names


def _dominated(load: ast.Name, name: str, loop: ast.AST, parents) -> bool:
    """Whether a statement that certainly runs before *load* in the same iteration binds *name*:
    an earlier statement of a block holding the load (the loop body, or a branch inside it)."""
    guards = _guards(load, loop, parents)
    child: ast.AST = load
    while child is not loop:
        parent = parents[id(child)]
        for block in _blocks(parent):
            if any(s is child for s in block):
                index = next(i for i, s in enumerate(block) if s is child)
                if any(_binds(s, name) or _bound_under(s, name, guards) for s in block[:index]):
                    return True
        if isinstance(child, ast.stmt) and _binds_before_value(child, load, name):
            return True
        child = parent
    return False


def _guards(load: ast.Name, loop: ast.AST, parents) -> set:
    """The tests of the ifs whose body holds *load*, inside the loop (as text)."""
    tests, child = set(), load
    while child is not loop:
        parent = parents[id(child)]
        if isinstance(parent, ast.If) and any(s is child for s in parent.body):
            tests.add(ast.dump(parent.test))
        child = parent
    return tests


def _bound_under(statement: ast.stmt, name: str, guards: set) -> bool:
    """`if self.lm_weight > 0: h = ...` before a read under the same test: bound whenever read."""
    return isinstance(statement, ast.If) and ast.dump(statement.test) in guards and any(_binds(s, name) for s in statement.body)


def _binds(statement: ast.stmt, name: str) -> bool:
    """*statement* itself binds *name* whenever it runs (not only on one side of a branch)."""
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign):
        targets = [statement.target] if statement.value is not None else []
    elif isinstance(statement, ast.If):
        # Bound on both sides (`if k: z = 1` / `else: z = 2`).
        return bool(statement.orelse) and all(any(_binds(s, name) for s in block) for block in (statement.body, statement.orelse))
    elif isinstance(statement, ast.For):
        targets = [statement.target]
    elif isinstance(statement, (ast.With, ast.Try)):
        # A with body always runs, a try body does unless it raises (`with torch.no_grad(): y = ...`).
        items = [i.optional_vars for i in statement.items if i.optional_vars] if isinstance(statement, ast.With) else []
        return any(isinstance(n, ast.Name) and n.id == name for t in items for n in walk(t)) or any(_binds(s, name) for s in statement.body)
    else:
        return False
    return any(isinstance(n, ast.Name) and n.id == name for t in targets for n in walk(t))


def _binds_before_value(statement: ast.stmt, load: ast.Name, name: str) -> bool:
    """`for prev in ...: use(prev)`, `with open(p) as f: f.write(...)`: the target is bound
    before the body runs."""
    if isinstance(statement, ast.For):
        targets = [statement.target]
    elif isinstance(statement, ast.With):
        targets = [i.optional_vars for i in statement.items if i.optional_vars]
    else:
        return False
    return (any(isinstance(n, ast.Name) and n.id == name for t in targets for n in walk(t))
            and any(n is load for s in statement.body for n in walk(s)))


def _blocks(node: ast.AST) -> Iterator[list]:
    for field in ("body", "orelse", "finalbody", "handlers"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield block

