"""Source text with a line index, and the one place where column units are converted.

msport keeps every position as (line, column) with a 0-based line and a column counted in
code points (Python ``str`` indices). ``ast`` reports UTF-8 byte offsets; LSP clients speak
UTF-16 (VS Code), UTF-8 (Neovim) or UTF-32 (Emacs). All conversions go through here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Tuple

#: Characters Python's ``str.splitlines`` treats as line breaks but ``ast`` and LSP do not.
#: Splitting only on these three keeps line numbers identical to the parser's and the editor's.
_LINE_BREAKS = ("\r\n", "\r", "\n")


def split_lines(text: str) -> List[str]:
    """Lines of *text* without their terminators; a final terminator yields a last empty line."""
    if "\r" not in text:
        return text.split("\n")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def utf8_to_cp(line: str, byte_col: int) -> int:
    """Code-point column for a UTF-8 byte column on *line*."""
    if line.isascii():
        return min(byte_col, len(line))
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))


def cp_to_utf16(line: str, col: int) -> int:
    if line.isascii():
        return col
    return col + sum(1 for ch in line[:col] if ord(ch) > 0xFFFF)


def utf16_to_cp(line: str, col16: int) -> int:
    if line.isascii():
        return min(col16, len(line))
    units = 0
    for index, ch in enumerate(line):
        if units >= col16:
            return index
        units += 2 if ord(ch) > 0xFFFF else 1
    return len(line)


def cp_to_utf8(line: str, col: int) -> int:
    if line.isascii():
        return col
    return len(line[:col].encode("utf-8"))


#: Position encodings msport can speak, as named by LSP 3.17.
ENCODINGS = ("utf-8", "utf-16", "utf-32")


def to_encoding(line: str, col: int, encoding: str) -> int:
    """Convert a code-point column on *line* to *encoding* units."""
    if encoding == "utf-16":
        return cp_to_utf16(line, col)
    if encoding == "utf-8":
        return cp_to_utf8(line, col)
    return col


def from_encoding(line: str, col: int, encoding: str) -> int:
    """Convert a column in *encoding* units on *line* to code points (clamped to the line)."""
    if encoding == "utf-16":
        return utf16_to_cp(line, col)
    if encoding == "utf-8":
        return utf8_to_cp(line, col)
    return min(col, len(line))


@dataclass
class Source:
    """A document's text and its lines, built once per version of the text."""

    text: str
    lines: List[str]

    @classmethod
    def from_text(cls, text: str) -> "Source":
        return cls(text, split_lines(text))

    def line(self, index: int) -> str:
        return self.lines[index] if 0 <= index < len(self.lines) else ""

    def clamp(self, line: int, col: int) -> Tuple[int, int]:
        """The nearest valid (line, code-point column); past the end maps to the end."""
        if line < 0:
            return 0, 0
        if line >= len(self.lines):
            last = len(self.lines) - 1
            return last, len(self.lines[last])
        return line, max(0, min(col, len(self.lines[line])))
