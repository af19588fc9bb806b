"""Spans of AST nodes in code points (``ast`` counts UTF-8 bytes)."""

from __future__ import annotations

import ast
from typing import Sequence

from .findings import Span
from .source import utf8_to_cp


def _line(lines: Sequence[str], index: int) -> str:
    return lines[index] if 0 <= index < len(lines) else ""


def node_span(first: ast.AST, lines: Sequence[str], last: ast.AST = None) -> Span:
    """From the start of *first* to the end of *last* (default *first*); lines as parsed."""
    last = last or first
    start_line = first.lineno - 1
    end_line = (last.end_lineno or last.lineno) - 1
    end_byte = last.end_col_offset if last.end_col_offset is not None else last.col_offset
    return Span(
        start_line,
        utf8_to_cp(_line(lines, start_line), first.col_offset),
        end_line,
        utf8_to_cp(_line(lines, end_line), end_byte),
    )


def attribute_name_span(node: ast.Attribute, lines: Sequence[str]) -> Span:
    """Just the ``name`` of ``value.name``: where a tensor method is called."""
    full = node_span(node, lines)
    return Span(full.end_line, max(0, full.end_col - len(node.attr)), full.end_line, full.end_col)
