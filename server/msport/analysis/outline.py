"""Which function each line belongs to, for reports that group findings by function."""

from __future__ import annotations

import ast
from bisect import bisect_right
from dataclasses import dataclass
from typing import List, Sequence

from .engine import AnalysisResult

MODULE_LEVEL = "<module>"


@dataclass(frozen=True)
class FunctionRange:
    name: str  # "Class.method", "outer.inner", "function"
    start_line: int  # 0-based, the `def` line (decorators excluded)
    end_line: int  # inclusive


_BODIES = ("body", "orelse", "finalbody", "handlers", "cases")


def function_ranges(result: AnalysisResult) -> List[FunctionRange]:
    """Every function and method of the module, outermost first.

    Functions are statements, so only statement lists are walked, never expressions: a
    fraction of a full ``ast.walk`` on real files.
    """
    found: List[FunctionRange] = []

    def walk(statements, prefix: str, offset: int) -> None:
        for node in statements:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + node.name
                found.append(FunctionRange(name, node.lineno - 1 + offset, (node.end_lineno or node.lineno) - 1 + offset))
                walk(node.body, name + ".", offset)
            elif isinstance(node, ast.ClassDef):
                walk(node.body, prefix + node.name + ".", offset)
            else:
                for field in _BODIES:
                    inner = getattr(node, field, None)
                    if isinstance(inner, list):
                        walk(inner, prefix, offset)

    for item in result.chunks:
        if item.tree is not None:
            walk(item.tree.body, "", item.chunk.start)
    found.sort(key=lambda r: (r.start_line, -r.end_line))
    return found


class FunctionIndex:
    """Innermost function containing a line, by binary search over the ranges."""

    def __init__(self, ranges: Sequence[FunctionRange]):
        self.ranges = list(ranges)
        self._starts = [r.start_line for r in self.ranges]

    def name_at(self, line: int) -> str:
        index = bisect_right(self._starts, line) - 1
        # Walk back over earlier ranges: the innermost one that still contains the line wins,
        # and ranges are sorted so that inner ones come after the ones enclosing them.
        while index >= 0:
            candidate = self.ranges[index]
            if candidate.start_line <= line <= candidate.end_line:
                return candidate.name
            index -= 1
        return MODULE_LEVEL
