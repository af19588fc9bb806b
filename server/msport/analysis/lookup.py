"""What sits at a position: the lookups behind hover.

``name_at`` re-walks only the chunk under the cursor with the same scope rules the checks
use, so a hover on ``x.view`` or on ``msel`` names exactly what the diagnostics would. When a
name comes from an import msport cannot follow (a relative import, another module of the
project), it says so, and the server may ask jedi; ``public_name`` turns what jedi finds
(``torch.nn.modules.conv.Conv2d``) back into the public name the rules use (``torch.nn.Conv2d``).

A hover costs the definitions around the cursor, not the whole class or file: the walk skips
the bodies of functions, classes and lambdas the cursor is not in (each has its own scope, so
what they bind is invisible at the cursor), collects a class's ``self.x = ...`` facts only if
the name under the cursor asks for one, and stops at the first name found. The answer is the
same as a walk of the whole chunk (tests/hover/test_lookup.py compares them at every position).
"""

from __future__ import annotations

import ast
import builtins
import sys
from dataclasses import dataclass
from collections.abc import MutableMapping
from typing import Any, Callable, Dict, Iterable, Iterator, List, Optional

from ..knowledge.index import KnowledgeBase
from .engine import AnalysisResult
from .findings import Finding, Span
from .names import Scope, ScopeVisitor
from .source import cp_to_utf8
from .spans import attribute_name_span, node_span

_BUILTINS = frozenset(dir(builtins))
_STDLIB = frozenset(getattr(sys, "stdlib_module_names", ()))


@dataclass(frozen=True)
class ApiAt:
    qualified: str
    span: Span  # absolute, code points


@dataclass(frozen=True)
class NameAt:
    """The name under the cursor: its qualified name when msport resolves it, else whether it
    comes from an import msport cannot follow (``foreign``: worth asking jedi)."""

    qualified: Optional[str]
    span: Span
    spelled: str  # as written, e.g. "msel"
    #: Set when msport cannot follow the import the name comes from: that module (".utils"
    #: for a relative import, "*" for a star import), for the jedi fallback to decide on.
    foreign: Optional[str] = None


class _Found(Exception):
    """Ends the walk: the name under the cursor is known."""


class _LazyAttributes(MutableMapping):
    """A class's ``self.x = ...`` facts, collected on first use: most hovers are on names that
    never ask (``torch.cat``), and collecting walks every method of the class."""

    def __init__(self, collect: Callable[[], Dict[str, Any]]):
        self._collect: Optional[Callable[[], Dict[str, Any]]] = collect
        self._values: Dict[str, Any] = {}

    @property
    def collected(self) -> Dict[str, Any]:
        if self._collect is not None:
            collect, self._collect = self._collect, None
            self._values = collect()
        return self._values

    def __getitem__(self, key: str) -> Any:
        return self.collected[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.collected[key] = value

    def __delitem__(self, key: str) -> None:
        del self.collected[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.collected)

    def __len__(self) -> int:
        return len(self.collected)


class _Finder(ScopeVisitor):
    def __init__(self, result: AnalysisResult, knowledge: KnowledgeBase, line: int, byte_col: int, foreign: Callable[[str], Optional[str]]):
        super().__init__(result.context, knowledge)
        self.line, self.byte_col = line, byte_col
        self.is_foreign = foreign
        self.found: Optional[tuple] = None  # (qualified or None, node, attribute only, foreign module)

    def _covers(self, node: ast.AST) -> bool:
        start = (node.lineno, node.col_offset)
        end = (node.end_lineno, node.end_col_offset)
        return start <= (self.line, self.byte_col) <= end

    def _found(self, qualified: Optional[str], node: ast.AST, attribute_only: bool, foreign: Optional[str]) -> None:
        self.found = (qualified, node, attribute_only, foreign)
        raise _Found

    # A definition the cursor is not in: only what it evaluates in the enclosing scope
    # (decorators, defaults, annotations, bases) is walked; its body binds nothing outside.
    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        if self._covers(node):
            super().visit_FunctionDef(node)
            return
        for expr in node.decorator_list:
            self.visit(expr)
        self.visit(node.args)
        if node.returns is not None:
            self.visit(node.returns)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        if self._covers(node):
            super().visit_ClassDef(node)
            return
        for expr in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(expr)

    def visit_Lambda(self, node: ast.Lambda) -> None:
        if self._covers(node):
            super().visit_Lambda(node)

    def _collect_self_attributes(self, node: ast.ClassDef) -> Dict[str, Any]:
        # Collected later, exactly as now: from a fresh scope like the class's (still empty
        # when the base class collects) under the same enclosing scopes and class stack.
        class_scope = self.scope
        if class_scope.values or class_scope.parent is None:
            return super()._collect_self_attributes(node)  # not the state this relies on
        stack = list(self.class_stack)

        def collect() -> Dict[str, Any]:
            saved = self.scope, self.class_stack
            self.scope, self.class_stack = Scope(parent=class_scope.parent), stack
            try:
                return ScopeVisitor._collect_self_attributes(self, node)
            finally:
                self.scope, self.class_stack = saved

        return _LazyAttributes(collect)

    def _root(self, node: ast.AST) -> Optional[ast.Name]:
        while isinstance(node, ast.Attribute):
            node = node.value
        return node if isinstance(node, ast.Name) else None

    def _foreign(self, node: ast.AST, qualified: Optional[str]) -> Optional[str]:
        """The module msport cannot follow that the expression's root name is imported from."""
        if qualified and self.facts.framework_of(qualified):
            return None
        name = self._root(node)
        if name is None or not isinstance(name.ctx, ast.Load) or self.scope.lookup(name.id)[0]:
            return None
        return self.is_foreign(name.id)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.found is None and self._covers(node):
            # The attribute's own name is under the cursor when it is past the value's end.
            if (self.line, self.byte_col) > (node.value.end_lineno, node.value.end_col_offset):
                qualified = self.qualified(node)
                foreign = self._foreign(node, qualified)
                if qualified or foreign:
                    self._found(qualified, node, True, foreign)
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if self.found is None and self._covers(node):
            qualified = self.qualified(node)
            foreign = self._foreign(node, qualified)
            if qualified or foreign:
                self._found(qualified, node, False, foreign)

    def _visit_alias(self, node: ast.alias, qualified: Optional[str], foreign: Optional[str]) -> None:
        # Names in import statements: `from torch import masked_select as msel`.
        if self.found is None and hasattr(node, "lineno") and self._covers(node):
            self._found(qualified, node, False, foreign)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if alias.name == "*":
                continue
            if node.module and not node.level:
                qualified = f"{node.module}.{alias.name}"
                outside = self.facts.framework_of(qualified) is None and _outside(node.module)
                self._visit_alias(alias, qualified, node.module if outside else None)
            else:
                self._visit_alias(alias, None, "." * node.level + (node.module or ""))

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._visit_alias(alias, alias.name, None)


def _outside(module: str) -> bool:
    """A module neither msport's rules nor the standard library cover."""
    return module.split(".", 1)[0] not in _STDLIB


def _top_level_imports(result: AnalysisResult) -> Iterable[ast.ImportFrom]:
    """Import statements at module level, including those inside top-level if/try blocks."""
    for item in result.chunks:
        # Asking for a tree re-parses a chunk whose tree was released: only chunks that can
        # hold an import are asked.
        if item.error is not None or "import" not in item.chunk.text:
            continue
        stack: List[ast.AST] = list(item.tree.body)
        while stack:
            node = stack.pop()
            if isinstance(node, ast.ImportFrom):
                yield node
            elif isinstance(node, (ast.If, ast.Try)):
                stack.extend(ast.iter_child_nodes(node))
            elif hasattr(ast, "TryStar") and isinstance(node, ast.TryStar):
                stack.extend(ast.iter_child_nodes(node))
            elif isinstance(node, ast.ExceptHandler):
                stack.extend(node.body)


def _foreign_test(result: AnalysisResult, knowledge: KnowledgeBase) -> Callable[[str], Optional[str]]:
    """For a name not bound locally: the module it is imported from when msport cannot follow
    that import ("." prefixed for relative imports, "*" when only a star import can explain it)."""
    cache: dict = {}

    def outside_imports() -> dict:
        if "names" not in cache:
            names: dict = {}
            star = None
            for node in _top_level_imports(result):
                module = "." * node.level + (node.module or "")
                if not node.level and (node.module is None or knowledge.tensors.framework_of(node.module) or not _outside(node.module)):
                    continue
                for alias in node.names:
                    if alias.name == "*":
                        star = "*"
                    else:
                        names[alias.asname or alias.name] = module
            cache["names"], cache["star"] = names, star
        return cache["names"]

    def test(name: str) -> Optional[str]:
        qualified = result.context.binding(name)
        if qualified is not None:
            if knowledge.tensors.framework_of(qualified) is None and _outside(qualified):
                return qualified.rpartition(".")[0] or qualified
            return None
        if name in _BUILTINS or name in result.context.functions:
            return None
        return outside_imports().get(name) or cache["star"]

    return test


def name_at(result: AnalysisResult, knowledge: KnowledgeBase, line: int, col: int) -> Optional[NameAt]:
    """The name at (line, code-point column), if msport resolves it or jedi might."""
    for item in result.chunks:
        if not (item.chunk.start <= line < item.chunk.end) or item.tree is None:
            continue
        rel = line - item.chunk.start
        text_line = result.source.line(line)
        finder = _Finder(result, knowledge, rel + 1, cp_to_utf8(text_line, col), _foreign_test(result, knowledge))
        try:
            finder.visit(item.tree)
        except _Found:
            pass
        if finder.found is None:
            return None
        qualified, node, attribute_only, foreign = finder.found
        lines = item.chunk.text.split("\n")
        span = attribute_name_span(node, lines) if attribute_only else node_span(node, lines)
        span = span.shifted(item.chunk.start)
        if isinstance(node, ast.alias):
            spelled = node.asname or node.name
        else:
            spelled = result.source.line(span.start_line)[span.start_col:span.end_col] if span.start_line == span.end_line else ""
        return NameAt(qualified, span, spelled, foreign)
    return None


def api_at(result: AnalysisResult, knowledge: KnowledgeBase, line: int, col: int) -> Optional[ApiAt]:
    """The qualified API name at (line, code-point column), if the position is on one."""
    found = name_at(result, knowledge, line, col)
    if found is None or found.qualified is None:
        return None
    return ApiAt(found.qualified, found.span)


def findings_at(result: AnalysisResult, line: int, col: int) -> List[Finding]:
    """The findings whose span covers the position."""
    return [
        f for f in result.findings
        if (f.span.start_line, f.span.start_col) <= (line, col) <= (f.span.end_line, f.span.end_col)
    ]


def public_name(full_name: str, module_name: str, known: Callable[[str], bool]) -> Optional[str]:
    """The public name of a definition found in a package's internals.

    jedi reports where a thing is defined (``torch.nn.modules.conv.Conv2d``,
    ``torch._C._VariableFunctions.cat``); the rules use the public spelling. Try the name under
    each enclosing package, innermost first, and keep the first that *known* accepts.
    """
    if not full_name:
        return None
    module = module_name if module_name and full_name.startswith(module_name + ".") else full_name.rpartition(".")[0]
    rest = full_name[len(module) + 1:]
    parts = module.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end]) + "." + rest
        if known(candidate):
            return candidate
    return None
