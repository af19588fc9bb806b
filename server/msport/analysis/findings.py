"""The one currency between the analysis core and its front ends: Finding, Fix, Edit.

Positions are (line, column): 0-based line, column in code points (see ``source.py``).
Front ends convert: the CLI to 1-based lines and columns, the server to the negotiated
position encoding.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import Enum
from typing import Optional, Tuple


class Severity(str, Enum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"
    HINT = "hint"

    @property
    def rank(self) -> int:
        return _SEVERITY_RANK[self]

    def lowered(self, steps: int = 1) -> "Severity":
        order = list(_SEVERITY_RANK)
        return order[min(len(order) - 1, order.index(self) + steps)]


_SEVERITY_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2, Severity.HINT: 3}


class Category(str, Enum):
    MISSING_API = "missing-api"
    DIVERGENT_API = "divergent-api"
    EQUIVALENT_API = "equivalent-api"
    DYNAMIC_SHAPE = "dynamic-shape"
    GRAPH_MODE = "graph-mode"
    REPLACEMENT = "replacement"
    SECOND_ORDER = "second-order"
    SPARSE = "sparse"
    SYNTAX_ERROR = "syntax-error"
    CONFIG = "config"


class Safety(str, Enum):
    SAFE = "safe"
    UNSAFE = "unsafe"


@dataclass(frozen=True)
class Span:
    start_line: int
    start_col: int
    end_line: int
    end_col: int

    def shifted(self, lines: int) -> "Span":
        if not lines:
            return self
        return Span(self.start_line + lines, self.start_col, self.end_line + lines, self.end_col)

    def contains_line(self, line: int) -> bool:
        return self.start_line <= line <= self.end_line


@dataclass(frozen=True)
class Edit:
    span: Span
    new_text: str

    def shifted(self, lines: int) -> "Edit":
        return replace(self, span=self.span.shifted(lines)) if lines else self


@dataclass(frozen=True)
class Fix:
    title: str
    safety: Safety
    edits: Tuple[Edit, ...]
    #: Import statements the edits need (e.g. "from mindspore import ops"); the engine turns
    #: them into edits at module level, once, after chunk-relative positions are shifted.
    imports: Tuple[str, ...] = ()
    #: Why an unsafe fix is unsafe, in the user's language (a clause: editors show it as
    #: "unsafe: <reason>"); empty for safe fixes. Texts: rules/messages/fixes.toml.
    reason: str = ""

    def shifted(self, lines: int) -> "Fix":
        if not lines:
            return self
        return replace(self, edits=tuple(e.shifted(lines) for e in self.edits))


@dataclass(frozen=True)
class Related:
    """Another place that explains a finding (e.g. where a data-dependent value comes from)."""

    span: Span
    message: str
    #: Set when *span* is relative to another chunk than the finding's: that chunk's anchor
    #: (second_order_paths.anchor_of), resolved by the engine once chunk positions are known.
    anchor: Optional[int] = None

    def shifted(self, lines: int) -> "Related":
        return replace(self, span=self.span.shifted(lines)) if lines and self.anchor is None else self


#: A finding's tag: a method judged by its name alone, on a receiver msport could not type
#: (port_fixes.py makes its fix unsafe).
UNTYPED_RECEIVER = "untyped-receiver"


@dataclass(frozen=True)
class Finding:
    code: str
    category: Category
    severity: Severity
    span: Span
    message: str
    torch_api: Optional[str] = None
    mindspore_api: Optional[str] = None
    fixes: Tuple[Fix, ...] = ()
    related: Tuple[Related, ...] = ()
    #: Marks code that will disappear after the fix (LSP DiagnosticTag.Unnecessary) etc.
    tags: Tuple[str, ...] = field(default=())

    def shifted(self, lines: int) -> "Finding":
        if not lines:
            return self
        return replace(
            self,
            span=self.span.shifted(lines),
            fixes=tuple(f.shifted(lines) for f in self.fixes),
            related=tuple(r.shifted(lines) for r in self.related),
        )

    def sort_key(self):
        return (self.span.start_line, self.span.start_col, self.code, self.message)
