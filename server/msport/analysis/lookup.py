"""Which API sits at a position: the lookup behind hover.

Re-walks only the chunk under the cursor with the same scope rules the checks use, so a
hover on ``x.view`` or on ``msel`` names exactly what the diagnostics would.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from ..knowledge.index import KnowledgeBase
from .engine import AnalysisResult
from .findings import Span
from .names import ScopeVisitor
from .source import cp_to_utf8
from .spans import attribute_name_span, node_span


@dataclass(frozen=True)
class ApiAt:
    qualified: str
    span: Span  # absolute, code points


class _Finder(ScopeVisitor):
    def __init__(self, result: AnalysisResult, knowledge: KnowledgeBase, line: int, byte_col: int):
        super().__init__(result.context, knowledge)
        self.line, self.byte_col = line, byte_col
        self.found: Optional[tuple] = None

    def _covers(self, node: ast.AST) -> bool:
        start = (node.lineno, node.col_offset)
        end = (node.end_lineno, node.end_col_offset)
        return start <= (self.line, self.byte_col) <= end

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.found is None and self._covers(node):
            # The attribute's own name is under the cursor when it is past the value's end.
            if (self.line, self.byte_col) > (node.value.end_lineno, node.value.end_col_offset):
                qualified = self.qualified(node)
                if qualified:
                    self.found = (qualified, node, True)
                    return
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if self.found is None and self._covers(node):
            qualified = self.qualified(node)
            if qualified:
                self.found = (qualified, node, False)

    def visit_alias(self, node: ast.alias) -> None:
        # Names in import statements: `from torch import masked_select as msel`.
        if self.found is None and hasattr(node, "lineno") and self._covers(node):
            self.found = (self._import_name, node, False)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for alias in node.names:
            if node.module and not node.level:
                self._import_name = f"{node.module}.{alias.name}"
                self.visit_alias(alias)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self._import_name = alias.name
            self.visit_alias(alias)


def api_at(result: AnalysisResult, knowledge: KnowledgeBase, line: int, col: int) -> Optional[ApiAt]:
    """The qualified API name at (line, code-point column), if the position is on one."""
    for item in result.chunks:
        if not (item.chunk.start <= line < item.chunk.end) or item.tree is None:
            continue
        rel = line - item.chunk.start
        text_line = result.source.line(line)
        finder = _Finder(result, knowledge, rel + 1, cp_to_utf8(text_line, col))
        finder.visit(item.tree)
        if finder.found is None:
            return None
        qualified, node, attribute_only = finder.found
        lines = item.chunk.text.split("\n")
        span = attribute_name_span(node, lines) if attribute_only else node_span(node, lines)
        return ApiAt(qualified, span.shifted(item.chunk.start))
    return None
