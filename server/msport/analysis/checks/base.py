"""What every check family receives and the helpers they share."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import List, Sequence

from ...knowledge.index import KnowledgeBase
from ..findings import Finding, Span
from ..names import ModuleContext, ScopeVisitor
from ..parents import parent_map
from ..settings import Settings
from ..spans import attribute_name_span, node_span


@dataclass(frozen=True)
class ChunkInput:
    """One parsed chunk and everything its findings may depend on (the chunk cache's key)."""

    tree: ast.Module
    lines: Sequence[str]  # the chunk's own lines; AST line 1 is lines[0]
    context: ModuleContext
    settings: Settings
    knowledge: KnowledgeBase


class Check(ScopeVisitor):
    """A check family: a scope-aware visitor that collects Findings for one chunk.

    Spans are relative to the chunk (line 0 is its first line); the engine shifts them.
    """

    def __init__(self, chunk: ChunkInput):
        super().__init__(chunk.context, chunk.knowledge)
        self.chunk = chunk
        self.settings = chunk.settings
        self.findings: List[Finding] = []

    def run(self) -> List[Finding]:
        self.visit(self.chunk.tree)
        return self.findings

    def read_not_called(self, node: ast.Attribute) -> bool:
        parent = parent_map(self.chunk.tree).get(id(node))
        return not (isinstance(parent, ast.Call) and parent.func is node)

    def span(self, node: ast.AST, last: ast.AST = None) -> Span:
        return node_span(node, self.chunk.lines, last)

    def attribute_name_span(self, node: ast.Attribute) -> Span:
        return attribute_name_span(node, self.chunk.lines)
