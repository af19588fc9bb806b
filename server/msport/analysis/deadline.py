"""A time limit that tree walks check as they go.

The time budget used to be checked between statements only, so one huge statement or function
ran to its end however long that took (a 50,000-line function: 84 s; a 5 MB list literal: 52 s).
Every walk goes through ``Visitor.visit`` and ``Visitor.generic_visit`` (visitor.py), which count
their steps and every ``EVERY`` steps call ``check``: past the deadline of the calling thread
(set with ``limit``), it raises ``OutOfTime`` with the line the walk had reached. The engine catches it
where a partial result is still useful (a check's findings so far, a graph summary so far).

The deadline is per thread: the server's hover walks trees on the event loop's thread while an
analysis runs on its own, under its own limit.
"""

from __future__ import annotations

import threading
import time
from contextlib import contextmanager
from typing import Iterator, Optional

#: Walk steps between two reads of the clock (visitor.py counts them): ~1 ns a step amortised,
#: and a walk stops at most a few milliseconds after its deadline.
EVERY = 64

_local = threading.local()


class OutOfTime(Exception):
    """A walk passed its thread's deadline; *line* is the 1-based line it had reached, if known."""

    def __init__(self, line: Optional[int]):
        super().__init__(line)
        self.line = line


def check(node) -> None:
    """Raise OutOfTime if this thread's deadline has passed (visitor.py calls it every EVERY steps)."""
    deadline = getattr(_local, "deadline", None)
    if deadline is not None and time.perf_counter() > deadline:
        raise OutOfTime(getattr(node, "lineno", None))


@contextmanager
def limit(deadline: float) -> Iterator[None]:
    """Walks on this thread raise OutOfTime once ``time.perf_counter()`` passes *deadline*."""
    previous = getattr(_local, "deadline", None)
    _local.deadline = deadline if previous is None else min(previous, deadline)
    try:
        yield
    finally:
        _local.deadline = previous
