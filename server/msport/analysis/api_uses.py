"""Every reference to a PyTorch API in a module, with msport's verdict: the data of reports.

The MS1xx check reports what needs porting and stays silent where nothing does (``x.view()``
stays ``x.view()``); a migration report must count those uses too, as equivalent. This walk
resolves names exactly as the check does (same ``ScopeVisitor``) and judges the same nodes,
but records every torch reference, including those msport has no rule for ("unknown").
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import List, Optional, Sequence, Set

from ..knowledge.index import KnowledgeBase
from .engine import AnalysisResult
from .findings import Span
from .names import ModuleContext, Ref, ScopeVisitor, names_tensor_method
from .outline import FunctionIndex, function_ranges
from .settings import Settings
from .spans import attribute_name_span, node_span

UNKNOWN = "unknown"  # a torch name msport has no rule for


@dataclass(frozen=True)
class ApiUse:
    torch_api: str
    status: str  # equivalent | divergent | missing | unknown
    mindspore_api: Optional[str]
    span: Span  # absolute, code points
    call: bool  # called here, rather than referenced (base class, type hint, value)
    function: str  # enclosing function ("Class.method") or "<module>"

    @property
    def namespace(self) -> str:
        return self.torch_api.rpartition(".")[0] or self.torch_api


class _UseCollector(ScopeVisitor):
    def __init__(self, context: ModuleContext, knowledge: KnowledgeBase, settings: Settings, lines: Sequence[str], is_api):
        super().__init__(context, knowledge)
        self.settings = settings
        self.lines = lines
        self.is_api = is_api
        self.called: Set[int] = set()
        self.found: List[tuple] = []  # (qualified, verdict or None, span, call)

    def visit_Import(self, node: ast.AST) -> None:
        """Import lines name modules; the uses below them are what get ported (as in the check)."""

    visit_ImportFrom = visit_Import

    def visit_Call(self, node: ast.Call) -> None:
        self.called.add(id(node.func))
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if self.judged_here(node) and self._record(node) and isinstance(self.infer(node.value), Ref):
            return  # `torch.nn` inside `torch.nn.GELU` is the same reference
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, ast.Load):
            self._record(node)

    def _record(self, node: ast.AST) -> bool:
        if self.is_local_alias(node):
            return False  # counted where the API is named (as in the check)
        qualified = self.qualified(node)
        if qualified is None or self.facts.framework_of(qualified) != "torch":
            return False
        verdict = self.knowledge.verdict(qualified, self.settings.version, self.settings.backend)
        if verdict is None and not self.is_api(qualified):
            return False
        is_method = isinstance(node, ast.Attribute) and qualified.startswith(self.facts.tensor_class["torch"] + ".") and not names_tensor_method(node)
        span = attribute_name_span(node, self.lines) if is_method else node_span(node, self.lines)
        self.found.append((qualified, verdict, span, id(node) in self.called))
        return True


_STATUS = {"MS101": "missing", "MS102": "divergent", "MS103": "equivalent"}


def api_uses(result: AnalysisResult, knowledge: KnowledgeBase, settings: Settings, is_api=None, functions: Optional[FunctionIndex] = None) -> List[ApiUse]:
    """Every torch API reference of the analysed module, in source order.

    *is_api* says whether a torch name msport has no rule for is a real API (e.g. a lookup in
    the torch snapshot); by default such names are left out, so modules and misspellings
    never count as uses.
    """
    is_api = is_api or (lambda name: False)
    functions = functions or FunctionIndex(function_ranges(result))
    uses: List[ApiUse] = []
    # A call judged by its own form (x.to(torch.float16) is MS103 where the API's note diverges) has
    # the status of its finding, not the API's.
    judged = {(f.span, f.torch_api): _STATUS[f.code] for f in result.findings if f.code in _STATUS}
    for item in result.chunks:
        if item.tree is None:
            continue
        collector = _UseCollector(result.context, knowledge, settings, item.chunk.text.split("\n"), is_api)
        collector.visit(item.tree)
        for qualified, verdict, span, call in collector.found:
            span = span.shifted(item.chunk.start)
            uses.append(
                ApiUse(
                    torch_api=qualified,
                    status=judged.get((span, qualified), verdict.status) if verdict else UNKNOWN,
                    mindspore_api=verdict.mindspore if verdict else None,
                    span=span,
                    call=call,
                    function=functions.name_at(span.start_line),
                )
            )
    uses.sort(key=lambda u: (u.span.start_line, u.span.start_col))
    return uses
