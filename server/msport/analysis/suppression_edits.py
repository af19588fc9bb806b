"""The edits behind "Ignore CODE on this line" and "Ignore CODE in this file".

They write the comments ``suppression.py`` reads, merging with a comment already there rather
than adding a second one: ``# noqa: E501`` becomes ``# noqa: E501, MS103``, and
``# msport: ignore-file[MS2]`` becomes ``# msport: ignore-file[MS2, MS103]``.
"""

from __future__ import annotations

import io
import re
import tokenize
from typing import Optional, Sequence

from .findings import Edit, Span
from .source import Source

# Codes are letters then digits (E501, MS103): prose after them ("# noqa: E501 long URL") stays after.
_NOQA_CODES = re.compile(r"#\s*(?i:noqa):\s*[A-Z]+[0-9]+(?:[ \t]*,?[ \t]*[A-Z]+[0-9]+)*")
_BARE_NOQA = re.compile(r"#\s*noqa(?!:)(?![\w-])", re.IGNORECASE)
_IGNORE_CODES = re.compile(r"#\s*msport:\s*ignore\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
_BARE_IGNORE = re.compile(r"#\s*msport:\s*ignore(?![\w\[-])", re.IGNORECASE)
_FILE_CODES = re.compile(r"#\s*msport:\s*ignore-file\[(?P<codes>[^\]]*)\]", re.IGNORECASE)
_BARE_FILE = re.compile(r"#\s*msport:\s*ignore-file(?!\[)", re.IGNORECASE)
_HEADER = re.compile(r"#!|#.*coding[:=]")


def ignore_on_line(source: Source, line: int, code: str, chunk_lines: Optional[Sequence[str]] = None, chunk_start: int = 0) -> Optional[Edit]:
    """The edit that suppresses *code* on *line*, or None when the line cannot take a comment
    (its end lies inside a string or after a backslash) or already suppresses every code.

    *chunk_lines*: the lines of the statement containing *line* (starting at *chunk_start*), to
    tell whether the end of the line is code; without them the line alone is looked at."""
    text = source.line(line)
    if _BARE_NOQA.search(text) or _BARE_IGNORE.search(text):
        return None
    existing = _NOQA_CODES.search(text)
    if existing is not None:
        return Edit(Span(line, existing.end(), line, existing.end()), f", {code}")
    bracket = _IGNORE_CODES.search(text)
    if bracket is not None:
        end = bracket.end("codes")
        separator = ", " if bracket.group("codes").strip() else ""
        return Edit(Span(line, end, line, end), f"{separator}{code}")
    if chunk_lines is None:
        chunk_lines, chunk_start = [text], line
    if not _ends_in_code(chunk_lines, line - chunk_start):
        return None
    body = text.rstrip()
    return Edit(Span(line, len(body), line, len(text)), f"  # noqa: {code}")


def ignore_in_file(source: Source, code: str) -> Optional[Edit]:
    """The edit that suppresses *code* in the whole file, or None when it already is."""
    for index, text in enumerate(source.lines):
        if "ignore-file" not in text:
            continue
        if _BARE_FILE.search(text):
            return None
        existing = _FILE_CODES.search(text)
        if existing is not None:
            end = existing.end("codes")
            separator = ", " if existing.group("codes").strip() else ""
            return Edit(Span(index, end, index, end), f"{separator}{code}")
    line = 0
    # Keep a shebang and an encoding declaration first: they only work on the first two lines.
    while line < min(2, len(source.lines)) and _HEADER.match(source.lines[line]):
        line += 1
    return Edit(Span(line, 0, line, 0), f"# msport: ignore-file[{code}]\n")


def _ends_in_code(lines: Sequence[str], index: int) -> bool:
    """True when a comment may be appended to line *index* of *lines*: it does not end with a
    continuation backslash nor inside a (triple-quoted) string."""
    if index < 0 or index >= len(lines):
        return False
    if lines[index].rstrip().endswith("\\"):
        return False
    text = "\n".join(lines) + "\n"
    row = index + 1  # tokenize counts lines from 1
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.start[0] > row:
                break
            if token.type == tokenize.STRING and token.start[0] <= row < token.end[0]:
                return False
            if token.type == getattr(tokenize, "FSTRING_MIDDLE", -1) and token.start[0] <= row < token.end[0]:
                return False
    except (tokenize.TokenError, IndentationError, SyntaxError):
        # Unfinished code: only rule out what is visible on the line itself.
        return lines[index].count('"""') % 2 == 0 and lines[index].count("'''") % 2 == 0
    return True
