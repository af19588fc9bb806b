"""A small thread-safe LRU map: the bound on every analysis cache."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Hashable


class LRU:
    def __init__(self, size: int):
        self.size = size
        self.data: "OrderedDict[Hashable, object]" = OrderedDict()
        self.lock = threading.Lock()

    def get(self, key: Hashable):
        with self.lock:
            value = self.data.get(key)
            if value is not None:
                self.data.move_to_end(key)
            return value

    def put(self, key: Hashable, value: object) -> None:
        with self.lock:
            self.data[key] = value
            self.data.move_to_end(key)
            while len(self.data) > self.size:
                self.data.popitem(last=False)
