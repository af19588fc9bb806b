"""msport's own copy of each open document, kept in step with the client's edits.

pygls keeps a copy too, but splits lines with ``str.splitlines`` (which also breaks on form
feeds and U+2028), while LSP and ``ast`` break only on CR, LF and CRLF. Positions computed
on a different line split point at the wrong characters, so msport applies edits itself.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Dict, Optional, Tuple

from ..analysis.source import from_encoding, split_lines


#: Every open and every change gets the next revision. Results are keyed by it, not by the
#: client's version number: a client that repeats or lowers a version (LSP says it must not)
#: still gets its new text checked, never the old text's results.
_revisions = itertools.count(1)


@dataclass
class Document:
    uri: str
    text: str
    version: Optional[int]
    revision: int = 0


class EditOutOfRange(ValueError):
    """An edit whose range lies outside the document (after clamping it still cannot apply)."""


def _offset(text: str, line: int, character: int, encoding: str) -> int:
    """Offset in *text* of an LSP position; positions past a line's end clamp to it (LSP 3.17)."""
    if line < 0 or character < 0:
        raise EditOutOfRange(f"negative position {line}:{character}")
    offset = 0
    index = 0
    length = len(text)
    # Without a CR anywhere, searching for one would scan to the end for every line.
    breaks = _next_break if "\r" in text else _next_lf
    while index < line:
        next_break = breaks(text, offset)
        if next_break is None:
            return length  # past the last line: the end of the document
        offset = next_break
        index += 1
    end = _line_end(text, offset)
    return offset + from_encoding(text[offset:end], character, encoding)


def _next_break(text: str, start: int) -> Optional[int]:
    """Offset just past the line break after *start*, or None on the last line."""
    n = text.find("\n", start)
    r = text.find("\r", start)
    if r != -1 and (n == -1 or r < n):
        return r + 2 if text.startswith("\r\n", r) else r + 1
    return None if n == -1 else n + 1


def _next_lf(text: str, start: int) -> Optional[int]:
    n = text.find("\n", start)
    return None if n == -1 else n + 1


def _line_end(text: str, start: int) -> int:
    ends = [i for i in (text.find("\n", start), text.find("\r", start)) if i != -1]
    return min(ends) if ends else len(text)


def apply_change(text: str, start: Tuple[int, int], end: Tuple[int, int], new_text: str, encoding: str) -> str:
    begin = _offset(text, *start, encoding)
    finish = _offset(text, *end, encoding)
    if finish < begin:
        raise EditOutOfRange(f"range end {end} before start {start}")
    return text[:begin] + new_text + text[finish:]


class DocumentStore:
    def __init__(self) -> None:
        self._docs: Dict[str, Document] = {}

    def open(self, uri: str, text: str, version: Optional[int]) -> Document:
        doc = Document(uri, text, version, next(_revisions))
        self._docs[uri] = doc
        return doc

    def change(self, uri: str, version: Optional[int], changes, encoding: str) -> Document:
        doc = self._docs.get(uri)
        if doc is None:
            raise KeyError(uri)
        text = doc.text
        for change in changes:
            change_range = getattr(change, "range", None)
            if change_range is None:
                text = change.text
            else:
                text = apply_change(
                    text,
                    (change_range.start.line, change_range.start.character),
                    (change_range.end.line, change_range.end.character),
                    change.text,
                    encoding,
                )
        doc.text, doc.version, doc.revision = text, version, next(_revisions)
        return doc

    def close(self, uri: str) -> None:
        self._docs.pop(uri, None)

    def get(self, uri: str) -> Optional[Document]:
        return self._docs.get(uri)

    def __iter__(self):
        return iter(list(self._docs.values()))

    def lines(self, uri: str):
        doc = self._docs.get(uri)
        return split_lines(doc.text) if doc else []
