"""Bundled data loaded on first use and shared by every caller (it is never mutated)."""

from __future__ import annotations

import threading
from typing import Callable, List, TypeVar

T = TypeVar("T")


def load_once(loader: Callable[[], T]) -> Callable[[], T]:
    """A function returning ``loader()``, called at most once even from several threads."""
    lock = threading.Lock()
    loaded: List[T] = []

    def shared() -> T:
        with lock:
            if not loaded:
                loaded.append(loader())
            return loaded[0]

    shared.__doc__ = f"{loader.__name__}() of the bundled data, loaded on first use and shared."
    return shared
