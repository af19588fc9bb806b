"""MS424: logging, warnings and stream writes in compiled code that run when the graph is compiled.

Helper of GraphModeCheck (graph_mode.py), called on every call in compiled code. Which functions
and logger methods count, and when each rule applies, is data (rules/graph_mode.toml, kind
``host-output``, and [values] ``loggers``), each proven on mindspore 2.10
(tests/graph_mode/graph_mode_cases.py):

- ``when = "data-branch"``: a warning or log call with no tensor data in its arguments, inside an
  if/while on tensor data: run while the branch is compiled, whether or not it is ever taken;
- ``when = "constant-args"``: a log call with no tensor data in its arguments: run once, when
  compiling (a message formatting a tensor value is handed to Python on every call: not reported);
- ``when = "always"``: a stream write, run once when compiling whatever it writes.

The rules are tried in their file order: the first that applies reports, so the data-branch rule
(the stronger claim) is listed first.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING, Optional

from .graph_mode_state import _shorten

if TYPE_CHECKING:  # pragma: no cover
    from .graph_mode import GraphModeCheck


class OutputJudge:
    def __init__(self, check: "GraphModeCheck") -> None:
        self.check = check
        self.rules = check.rules.of_kind("host-output")
        self._names = frozenset(api.rpartition(".")[2] for rule in self.rules for api in rule.apis) | frozenset(
            m for rule in self.rules for m in rule.methods)

    def call(self, node: ast.Call, qualified: Optional[str]) -> bool:
        """Report *node* when it is a host-output call one of the rules applies to."""
        func = node.func
        if not self.rules or not isinstance(func, ast.Attribute) or func.attr not in self._names:
            return False
        check = self.check
        logger = self._logger(func.value)
        data = None  # computed once, when a rule needs it
        for rule in self.rules:
            if not ((qualified and qualified in rule.apis) or (logger and func.attr in rule.methods)):
                continue
            value = ""
            if rule.when != "always":
                if data is None:
                    data = any(check._carries_tensor(a) for a in (*node.args, *(k.value for k in node.keywords)))
                if data:
                    continue  # a tensor value in the message: Python runs it on every call (measured)
                if rule.when == "data-branch":
                    guard = check.branches.data_guard()
                    if guard is None:
                        continue
                    value = _shorten(ast.unparse(guard.test))
            check.report(rule, node, node, value=value, api=qualified or ast.unparse(func))
            return True
        return False

    def _logger(self, receiver: ast.AST) -> bool:
        """`logger.warning`, `LOGGER.info`, `self.logger.debug`, `get_root_logger().warning`,
        `logging.getLogger(__name__).info`: the receiver is named as a logger."""
        if isinstance(receiver, ast.Call):
            receiver = receiver.func
        name = receiver.id if isinstance(receiver, ast.Name) else receiver.attr if isinstance(receiver, ast.Attribute) else ""
        return bool(name) and self.check.rules.matches("loggers", name)
