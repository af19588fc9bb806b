"""``ast.parse`` behind one lock.

CPython before 3.12 keeps the AST constructor's recursion counter in state shared by every
thread; two threads parsing at once can corrupt it and fail with ``SystemError: AST constructor
recursion depth mismatch`` (python/cpython#106905). The server parses on its analysis thread
while hovers and the project index parse on others, so every parse of msport goes through here.
Parsing holds the GIL anyway: the lock costs nothing measurable.
"""

from __future__ import annotations

import ast
import threading

_LOCK = threading.Lock()


def parse(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    with _LOCK:
        return ast.parse(source, filename, mode)
