"""The dtype class of an expression, where the code itself says it (for call forms that
depend on the input's dtype: ``torch.log`` of an integer tensor, ``torch.abs`` of a complex one).

Only what is written in the expression, or in the one assignment of a local name in the same
function: ``x.long()``, ``torch.arange(5)``, ``torch.fft.rfft(x)``, ``dtype=torch.long``,
``n = torch.randint(...)`` then ``torch.log(n)``. Anything else is unknown (None). The
vocabulary is data (``[dtype_hints]`` of rules/callforms.toml).
"""

from __future__ import annotations

import ast
from typing import Callable, Dict, Optional

from ..knowledge.callforms import DtypeHints
from .visitor import walk

Qualify = Callable[[ast.AST], Optional[str]]


class DtypeOracle:
    """Answers ``dtype_of(expr)`` inside one function (*function*: its node, or None)."""

    def __init__(self, hints: DtypeHints, qualify: Qualify, function: Optional[ast.AST]):
        self.hints, self.qualify, self.function = hints, qualify, function
        self._assigned: Optional[Dict[str, Optional[ast.AST]]] = None

    def dtype_of(self, node: ast.AST, depth: int = 0) -> Optional[str]:
        if depth > 4:
            return None
        if isinstance(node, ast.Name):
            value = self._assignment(node.id)
            return self.dtype_of(value, depth + 1) if value is not None else None
        if not isinstance(node, ast.Call):
            return None
        for keyword in node.keywords:
            if keyword.arg == "dtype":
                named = self.qualify(keyword.value)
                return self.hints.dtype_names.get(named or "")
        func = node.func
        qualified = self.qualify(func)
        if qualified is not None and ".Tensor." in qualified:
            qualified = None  # `x.long()` on a known tensor: a method, read by its name below
        if qualified is not None:
            if qualified in self.hints.functions:
                return self.hints.functions[qualified]
            if qualified in self.hints.integer_when_int_args and node.args and all(_is_int(a) for a in node.args):
                return "int"
            if qualified in self.hints.same_as_input and node.args:
                return self.dtype_of(node.args[0], depth + 1)
            return None
        if isinstance(func, ast.Attribute):
            if func.attr in self.hints.methods:
                return self.hints.methods[func.attr]
            if func.attr in ("to", "type") and node.args:
                named = self.qualify(node.args[0])
                if named in self.hints.dtype_names:
                    return self.hints.dtype_names[named]
        return None

    def _assignment(self, name: str) -> Optional[ast.AST]:
        """The value of the one assignment to *name* in the function (None if not exactly one)."""
        if self.function is None:
            return None
        if self._assigned is None:
            found: Dict[str, Optional[ast.AST]] = {}
            for node in walk(self.function):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, (ast.AugAssign, ast.AnnAssign, ast.For)) else []
                for target in targets:
                    if isinstance(target, ast.Name):
                        single = isinstance(node, ast.Assign) and target.id not in found
                        found[target.id] = node.value if single else None
            self._assigned = found
        return self._assigned.get(name)


def _is_int(node: ast.AST) -> bool:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
        node = node.operand
    return isinstance(node, ast.Constant) and isinstance(node.value, int) and not isinstance(node.value, bool)
