"""Where and how to add an import statement (or a helper function definition) that a fix needs."""

from __future__ import annotations

import re
from functools import lru_cache
from dataclasses import replace
from typing import Optional

from .findings import Edit, Fix, Span
from .names import ModuleContext
from .source import Source

_STATEMENT = re.compile(r"(?:from\s+(?P<module>[\w.]+)\s+import\s+(?P<name>\w+)(?:\s+as\s+(?P<alias>\w+))?|import\s+(?P<plain>[\w.]+)(?:\s+as\s+(?P<plain_alias>\w+))?)\s*$")
_IMPORT_LINE = re.compile(r"(?:import|from)\s")


class ImportPlanner:
    """Turns the import statements fixes ask for into edits, for one version of one module."""

    def __init__(self, source: Source, context: ModuleContext):
        self.source, self.context = source, context
        self._line: Optional[int] = None

    def complete(self, fix: Fix) -> Fix:
        if not fix.imports:
            return fix
        if self._line is None:
            self._line = _insertion_line(self.source)
            self._code_line = _first_code_line(self.source, self._line)
        edits = list(fix.edits)
        for statement in fix.imports:
            if statement.startswith("def "):
                # A helper function a fix calls (port_fixes.py), defined once where the code after
                # the imports begins, so that imports other fixes add still go above it.
                if _defined_name(statement) not in self.context.functions:
                    edits.append(Edit(Span(self._code_line, 0, self._code_line, 0), statement + "\n\n"))
            elif not _already_bound(statement, self.context):
                edits.append(Edit(Span(self._line, 0, self._line, 0), statement + "\n"))
        return replace(fix, edits=tuple(edits), imports=())


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
