"""Quick fixes of the graph-mode rules (MS4xx), where the rewrite is mechanical.

Each rewrite was compiled before and after with the real mindspore (tests/graph_mode/): the
original fails or differs, the rewrite compiles and gives the PyNative result. A fix is safe
when that holds for every code it applies to; otherwise it is unsafe and its title says why.
"""

from __future__ import annotations

import ast
import sys
from typing import List, Optional, Sequence

from ..findings import Edit, Fix, Safety, Span
from ..rewriting import node_text
from ..spans import node_span
from ..visitor import walk

#: Modules whose import has no side effect on the project: moving it to module level is safe.
_SAFE_ROOTS = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "math", "os", "sys", "re", "time", "random", "copy", "functools", "itertools", "collections", "typing", "warnings",
    "mindspore", "numpy", "torch", "scipy",
}


def move_import(check, node: ast.AST) -> Optional[Fix]:
    """`import math` inside a compiled function -> the same import at the top of the module."""
    statements = _import_statements(node)
    if not statements:
        return None
    roots = {s.split()[1].split(".")[0] for s in statements}
    safe = all(r in _SAFE_ROOTS for r in roots) and not (isinstance(node, ast.ImportFrom) and node.level)
    edits = _remove_statement(check, node)
    if edits is None:
        return None
    title = _title(check, "move_import" if safe else "move_import_unsafe", statements=" ; ".join(statements))
    return Fix(title, Safety.SAFE if safe else Safety.UNSAFE, edits, imports=tuple(statements))


def _import_statements(node: ast.AST) -> List[str]:
    if isinstance(node, ast.Import):
        return [f"import {a.name}" + (f" as {a.asname}" if a.asname else "") for a in node.names]
    if isinstance(node, ast.ImportFrom) and node.module is not None and all(a.name != "*" for a in node.names):
        module = "." * node.level + node.module
        return [f"from {module} import {a.name}" + (f" as {a.asname}" if a.asname else "") for a in node.names]
    return []


def delete_names(check, node: ast.Delete) -> Optional[Fix]:
    """`del a, b` of local names -> nothing (a graph frees intermediate values itself)."""
    if not all(isinstance(t, ast.Name) for t in node.targets):
        return None
    edits = _remove_statement(check, node)
    if edits is None:
        return None
    names = ", ".join(t.id for t in node.targets)
    return Fix(_title(check, "delete", names=names), Safety.SAFE, edits)


def set_to_tuple(check, node: ast.Set) -> Optional[Fix]:
    """`x in {1, 2}` -> `x in (1, 2)`: membership reads the same in a tuple."""
    if id(node) not in check.membership_sets:
        return None
    lines = check.chunk.lines
    items = ", ".join(node_text(e, lines) for e in node.elts)
    text = f"({items},)" if len(node.elts) == 1 else f"({items})"
    return Fix(_title(check, "set_to_tuple", text=text), Safety.SAFE, (Edit(check.span(node), text),))


def reversed_cells(check, node: ast.Call, cells: ast.AST) -> Optional[Fix]:
    """reversed(self.blocks) -> self.blocks[::-1]; reversed(range(len(self.blocks))) ->
    range(len(self.blocks) - 1, -1, -1): both unrolled by the compiler."""
    lines = check.chunk.lines
    argument = node.args[0]
    cells_text = node_text(cells, lines)
    if argument is cells:
        text = f"{cells_text}[::-1]"
    else:
        text = f"range(len({cells_text}) - 1, -1, -1)"
    return Fix(_title(check, "reversed", text=text), Safety.SAFE, (Edit(check.span(node), text),))


def classmethod_to_static(check, method: ast.FunctionDef) -> Optional[Fix]:
    """@classmethod whose `cls` is unused -> @staticmethod without it."""
    args = method.args
    if not args.args or args.posonlyargs:
        return None
    first = args.args[0]
    if any(isinstance(n, ast.Name) and n.id == first.arg for n in walk(method) if n is not first):
        return None
    decorator = next((d for d in method.decorator_list if isinstance(d, ast.Name) and d.id == "classmethod"), None)
    if decorator is None:
        return None
    lines = check.chunk.lines
    first_span = node_span(first, lines)
    if len(args.args) > 1:
        following = node_span(args.args[1], lines)
        removal = Span(first_span.start_line, first_span.start_col, following.start_line, following.start_col)
    elif args.vararg or args.kwonlyargs or args.kwarg:
        return None
    else:
        removal = first_span
    edits = (Edit(check.span(decorator), "staticmethod"), Edit(removal, ""))
    return Fix(_title(check, "classmethod_to_static", method=method.name, first=first.arg), Safety.SAFE, edits)


def set_data(check, node: ast.Call) -> Optional[Fix]:
    """p.set_data(v) -> ops.assign(p, v)."""
    bound = check.context.binding("ops")
    if len(node.args) != 1 or node.keywords or (bound is not None and bound != "mindspore.ops"):
        return None
    lines = check.chunk.lines
    text = f"ops.assign({node_text(node.func.value, lines)}, {node_text(node.args[0], lines)})"
    return Fix(
        _title(check, "set_data", text=text),
        Safety.UNSAFE, (Edit(check.span(node), text),), imports=("from mindspore import ops",),
    )


def sort_statement(check, node: ast.Call) -> Optional[Fix]:
    """lst.sort(key=k) as a statement -> lst = sorted(lst, key=k)."""
    if node.args or not check.is_builtin("sorted"):
        return None
    lines = check.chunk.lines
    name = node.func.value.id
    keywords = "".join(f", {node_text(k, lines)}" for k in node.keywords)
    text = f"{name} = sorted({name}{keywords})"
    return Fix(_title(check, "sort", text=text), Safety.SAFE, (Edit(check.span(node), text),))


def extend_loop(check, node: ast.Call) -> Optional[Fix]:
    """`y.extend(f(y[-1]) for v in it)` as a statement -> `for v in it:` / `y.append(f(y[-1]))`:
    what Python's extend does with a generator, item by item; one `for` without `if` only."""
    generator = node.args[0]
    if len(generator.generators) != 1 or generator.generators[0].ifs or generator.generators[0].is_async:
        return None
    lines = check.chunk.lines
    span = check.span(node)
    head = lines[span.start_line][:span.start_col]
    if head.strip() or lines[span.end_line][span.end_col:].split("#", 1)[0].strip():
        return None  # shares its line with another statement
    loop = generator.generators[0]
    name = node.func.value.id
    text = (f"for {node_text(loop.target, lines)} in {node_text(loop.iter, lines)}:\n"
            f"{head}    {name}.append({node_text(generator.elt, lines)})")
    return Fix(_title(check, "extend_loop", text=text.replace(chr(10) + head + "    ", " ")), Safety.SAFE, (Edit(span, text),))


def _title(check, key: str, **values: str) -> str:
    """The title *key* of [fixes] in rules/graph_mode.toml, in the user's language."""
    return check.rules.fix_title(key, check.settings.language, **values)


def for_syntax(check, rule_id: str, node: ast.AST) -> Sequence[Fix]:
    builder = {"import": move_import, "delete": delete_names, "set-literal": set_to_tuple}.get(rule_id)
    fix = builder(check, node) if builder else None
    return (fix,) if fix else ()


def _remove_statement(check, node: ast.stmt) -> Optional[tuple]:
    """Edits removing *node*: its whole lines when it is alone on them, `pass` when it is the
    only statement of its block; None when it shares a line with another statement."""
    lines = check.chunk.lines
    span = check.span(node)
    start = lines[span.start_line][:span.start_col]
    end = lines[span.end_line][span.end_col:]
    if start.strip() or end.strip().split("#", 1)[0].strip():
        return None  # `a = 1; del a`: leave the line to the user
    block = check.block_of(node)
    if block is not None and len(block) == 1:
        return (Edit(span, "pass"),)
    return (Edit(Span(span.start_line, 0, span.end_line + 1, 0), ""),)
