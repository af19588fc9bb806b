"""Inline suppression: ``# noqa``, ``# noqa: MS101,MS2``, ``# msport: ignore[MS101]`` on a line,
and ``# msport: ignore-file`` / ``# msport: ignore-file[MS2]`` anywhere in a file."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import FrozenSet, List, Optional, Sequence

_LINE = re.compile(
    r"#\s*(?:noqa(?::\s*(?P<noqa>[A-Z0-9]+(?:[\s,]+[A-Z0-9]+)*))?|msport:\s*ignore(?:\[(?P<ignore>[^\]]*)\])?)(?![\w-])",
    re.IGNORECASE,
)
_FILE = re.compile(r"#\s*msport:\s*ignore-file(?:\[(?P<codes>[^\]]*)\])?", re.IGNORECASE)

#: Matches every code.
ALL: FrozenSet[str] = frozenset({"*"})


def _codes(text: Optional[str]) -> FrozenSet[str]:
    if not text or not text.strip():
        return ALL
    return frozenset(c.strip().upper() for c in re.split(r"[\s,]+", text) if c.strip())


def line_suppressions(line: str) -> FrozenSet[str]:
    """Codes suppressed on *line*: empty when none, ``ALL`` for a bare ``# noqa``."""
    if "#" not in line:
        return frozenset()
    found: FrozenSet[str] = frozenset()
    for match in _LINE.finditer(line):
        codes = _codes(match.group("noqa") if match.group("noqa") is not None else match.group("ignore"))
        found = found | codes
    return found


@dataclass(frozen=True)
class FileSuppressions:
    codes: FrozenSet[str]

    @classmethod
    def scan(cls, text: str) -> "FileSuppressions":
        if "ignore-file" not in text:
            return cls(frozenset())
        codes: FrozenSet[str] = frozenset()
        for match in _FILE.finditer(text):
            codes = codes | _codes(match.group("codes"))
        return cls(codes)


def is_suppressed(code: str, suppressed: FrozenSet[str]) -> bool:
    return "*" in suppressed or any(code.startswith(prefix) for prefix in suppressed)


def suppressed_lines(lines: Sequence[str]) -> List[FrozenSet[str]]:
    return [line_suppressions(line) for line in lines]
