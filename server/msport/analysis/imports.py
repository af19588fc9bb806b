"""Where and how to add an import statement (or a helper function definition) that a fix needs."""

from __future__ import annotations

import ast
import re
from functools import lru_cache
from dataclasses import replace
from typing import FrozenSet, Optional, Sequence

from .findings import Edit, Fix, Span
from .names import ModuleContext
from .source import Source

_STATEMENT = re.compile(r"(?:from\s+(?P<module>[\w.]+)\s+import\s+(?P<name>\w+)(?:\s+as\s+(?P<alias>\w+))?|import\s+(?P<plain>[\w.]+)(?:\s+as\s+(?P<plain_alias>\w+))?)\s*$")
_IMPORT_LINE = re.compile(r"(?:import|from)\s")


class ImportPlanner:
    """Turns the import statements fixes ask for into edits, for one version of one module."""

    def __init__(self, source: Source, context: ModuleContext, chunks: Sequence = ()):
        self.source, self.context = source, context
        self._line: Optional[int] = None
        self._chunks = chunks
        self._in_functions: Optional[FrozenSet[str]] = None

    def complete(self, fix: Fix) -> Fix:
        if not fix.imports:
            return fix
        if self._line is None:
            self._line = _insertion_line(self.source)
            self._code_line = _first_code_line(self.source, self._line)
        edits = list(fix.edits)
        if self._in_functions is None:
            self._in_functions = _bound_only_in_functions(self._chunks)
        for statement in fix.imports:
            if statement.startswith("def "):
                # A helper function a fix calls (port_fixes.py), defined once where the code after
                # the imports begins, so that imports other fixes add still go above it.
                if _defined_name(statement) not in self.context.functions:
                    edits.append(Edit(Span(self._code_line, 0, self._code_line, 0), statement + "\n\n"))
            elif not _already_bound(statement, self.context) or _binds(statement)[0] in self._in_functions:
                edits.append(Edit(Span(self._line, 0, self._line, 0), statement + "\n"))
        return replace(fix, edits=tuple(edits), imports=())


def _bound_only_in_functions(chunks: Sequence) -> FrozenSet[str]:
    """Names that imports inside functions bind and no module-level import does: the module's
    context knows them (name resolution inside those functions needs them), but a fix that uses
    them elsewhere needs its own import."""
    module_level, nested = set(), set()
    for chunk in chunks:
        tree = chunk.tree if chunk.error is None else None
        if tree is None:
            continue
        todo = [(statement, False) for statement in tree.body]
        while todo:
            node, inside = todo.pop()
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = {a.asname or a.name.split(".", 1)[0] for a in node.names}
                (nested if inside else module_level).update(names)
                continue
            deeper = inside or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            todo.extend((child, deeper) for child in ast.iter_child_nodes(node) if isinstance(child, ast.stmt))
    return frozenset(nested - module_level)


def _first_code_line(source: Source, line: int) -> int:
    while line < len(source.lines) and not source.lines[line].strip():
        line += 1
    return line


def _defined_name(definition: str) -> str:
    return definition[len("def "):].split("(", 1)[0].strip()


def _already_bound(statement: str, context: ModuleContext) -> bool:
    """True when the module already binds what *statement* would bind."""
    local, qualified = _binds(statement)
    return context.binding(local) == qualified


@lru_cache(maxsize=256)
def _binds(statement: str):
    """(local name, qualified name) that an import statement binds."""
    match = _STATEMENT.match(statement)
    if match is None:
        raise ValueError(f"not a simple import statement: {statement!r}")
    if match.group("module"):
        local = match.group("alias") or match.group("name")
        qualified = f"{match.group('module')}.{match.group('name')}"
    else:
        qualified = match.group("plain")
        local = match.group("plain_alias") or qualified.split(".", 1)[0]
        if not match.group("plain_alias"):
            qualified = local
    return local, qualified


def _insertion_line(source: Source) -> int:
    """After the last top-level import of the leading import block, else after the docstring."""
    last_import = None
    for index, line in enumerate(source.lines):
        if _IMPORT_LINE.match(line):
            last_import = index
        elif line and not line[0].isspace() and not line.startswith(("#", '"', "'", ")")) and last_import is not None:
            break
    if last_import is not None:
        # A parenthesised import continues until its closing bracket.
        index = last_import
        if "(" in source.lines[index] and ")" not in source.lines[index]:
            while index + 1 < len(source.lines) and ")" not in source.lines[index]:
                index += 1
        return index + 1
    return 0
