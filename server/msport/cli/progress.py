"""The progress bar of ``msport check`` and ``msport report``: one line on stderr, redrawn in place.

Only on a terminal: piped or redirected stderr is read by programs (CI logs, editors), which a
bar full of carriage returns would garble. Never on stdout, which carries the results.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TextIO


class ProgressBar:
    """``[#####.....] 120/269 files checked  models/resnet.py``, once the run has taken *delay* s."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, delay: float = 0.3, width: int = 30, label: str = "checked"):
        self.total, self.stream, self.width = total, stream, width
        self.verb = label  # "checked", or "indexing" for the project index's first phase
        self.enabled = total > 0 and hasattr(stream, "isatty") and stream.isatty()
        self.start = time.monotonic()
        # A run that ends within the delay gets no bar at all rather than a flicker.
        self.delay = delay
        self._last = 0.0
        self._drawn = 0  # length of the line on the terminal now

    def update(self, done: int, label: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        # Redrawing more than ten times a second only costs time; the last file is always drawn.
        if now - self.start < self.delay or (now - self._last < 0.1 and done < self.total):
            return
        self._last = now
        filled = int(self.width * done / self.total)
        if self.verb == "checked":
            line = f"[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} files checked  "
        else:
            line = f"[{'#' * filled}{'.' * (self.width - filled)}] {self.verb} {done}/{self.total} files  "
        # A line longer than the terminal wraps, and "\r" then only returns to its last row;
        # the end of a long path says more than its start.
        columns = self._columns()
        room = columns - 1 - len(line)
        line += label if len(label) <= room else ("..." + label[len(label) - room + 3 :] if room > 3 else "")
        line = line[: columns - 1]
        self.stream.write("\r" + line.ljust(self._drawn))
        self.stream.flush()
        self._drawn = len(line)

    def _columns(self) -> int:
        try:
            return os.get_terminal_size(self.stream.fileno()).columns or 80
        except (OSError, ValueError):
            return 80

    def clear(self) -> None:
        """Erase the bar, so that a message or a result line can be written to the same terminal;
        the next update draws it again."""
        if self._drawn:
            self.stream.write("\r" + " " * self._drawn + "\r")
            self.stream.flush()
            self._drawn = 0

    def close(self) -> None:
        """Erase the bar for good: the run is over."""
        self.clear()
        self.enabled = False
