"""Split a module into top-level chunks and parse each on its own.

A chunk is one top-level statement (with its decorators and the comments after it). Parsing
chunk by chunk confines a syntax error to the chunk the user is typing in: every other chunk
still parses and keeps its findings. It is also the unit of incremental re-analysis, since a
chunk's parse and findings depend only on its own text and the module's import context.

Boundaries are found without ``tokenize`` (which stops at the first error) by one regular
expression over the whole text that skips strings and comments and counts brackets.
"""

from __future__ import annotations

import ast
import re
import warnings
from bisect import bisect_left
from dataclasses import dataclass
from typing import Iterator, List, Optional, Tuple

from .. import pyast

_TOKEN = re.compile(
    r"""
    (?P<str>(?:'''(?:\\.|[^\\])*?'''|\"\"\"(?:\\.|[^\\])*?\"\"\"|'(?:\\.|[^\\'\n])*'|"(?:\\.|[^\\"\n])*"))
    | (?P<com>\#[^\n]*)
    | (?P<open>[(\[{])
    | (?P<close>[)\]}])
    | (?P<cont>\\\n)
    | (?P<nl>\n)
    """,
    re.VERBOSE | re.DOTALL,
)

#: Lines that continue the statement above them rather than start a new one.
_CONTINUATION = re.compile(r"(?:else|elif|except|finally)\b")
#: Lines that certainly start a new statement, even after an unclosed bracket above them.
_HARD_START = re.compile(r"(?:def|class|async\s+def|import|from|@)\b|@")


@dataclass(frozen=True)
class Chunk:
    start: int  # first line, 0-based, of the whole module
    end: int  # one past the last line
    text: str


class ParsedChunk:
    """A chunk and its parse. The error is known at once; the tree is parsed on first use and
    kept until ``release()``: a tree weighs ~50 times its text, so a server with hundreds of
    files open keeps trees only for the chunks it is working on."""

    __slots__ = ("chunk", "error", "_tree")

    def __init__(self, chunk: Chunk, tree: Optional[ast.Module] = None, error: Optional[Tuple[int, int, str]] = None):
        self.chunk = chunk
        #: (line relative to the chunk, 0-based; code-point column; message) when the chunk failed.
        self.error = error
        self._tree = tree

    @property
    def tree(self) -> Optional[ast.Module]:
        tree = self._tree  # one read: another thread may release it meanwhile
        if tree is None and self.error is None:
            tree = self._tree = parse_chunk(self.chunk)._tree
        return tree

    def release(self) -> None:
        self._tree = None

    def __repr__(self) -> str:
        return f"ParsedChunk({self.chunk!r}, error={self.error!r}, parsed={self._tree is not None})"


@dataclass(frozen=True)
class Split:
    """Where the chunks of one text start; kept to re-split the next version around its edit."""

    lines: List[str]
    starts: List[int]
    #: Lines holding a triple quote that nothing closes: the one place where the scan depends
    #: on text after a line (a quote typed further down would turn everything between into a
    #: string), so an edit after one of them re-scans from the top.
    unterminated: Tuple[int, ...] = ()

    def chunks(self) -> List[Chunk]:
        lines, starts = self.lines, self.starts
        ends = starts[1:] + [len(lines)]
        return [Chunk(start, end, "\n".join(lines[start:end])) for start, end in zip(starts, ends)]


def split_chunks(lines: List[str]) -> List[Chunk]:
    """Cut *lines* (no terminators) into top-level chunks covering every line exactly once."""
    return chunk_starts(lines).chunks()


def chunk_starts(lines: List[str], previous: Optional[Split] = None) -> Split:
    """The chunk starts of *lines*; with the *previous* version's, only the edited part is scanned.

    Scanning every line costs ~25 ms on 7,000 lines, more than re-checking the edited chunk.
    Whether line L starts a chunk depends only on lines 0..L (but see ``Split.unterminated``),
    and the scan from a chunk start is in a clean state (outside brackets and strings), so: the
    starts before the first changed line stay; scanning resumes at the last start before it; and
    it stops at the first start, past the last changed line, that was also a start before the
    edit (shifted by the lines added or removed): from there on, the old starts follow.
    """
    text = "\n".join(lines)
    if previous is None:
        return _scan(text, lines, 0, [])
    old, old_starts = previous.lines, previous.starts
    same = min(len(old), len(lines))
    prefix = next((i for i in range(same) if old[i] != lines[i]), same)
    if prefix == len(old) == len(lines):
        return Split(lines, old_starts, previous.unterminated)
    kept = bisect_left(old_starts, prefix) - 1  # the last start before the first changed line
    resume = old_starts[kept] if kept >= 0 else 0
    if previous.unterminated and previous.unterminated[0] < resume:
        return _scan(text, lines, 0, [])
    suffix = next((i for i in range(same - prefix) if old[-1 - i] != lines[-1 - i]), same - prefix)
    return _scan(text, lines, resume, old_starts[:max(kept, 0)], previous, len(lines) - suffix)


def _scan(text: str, lines: List[str], first: int, starts: List[int], previous: Optional[Split] = None, unchanged_from: int = 0) -> Split:
    """*starts* (those before line *first*, itself a start) and the ones found from *first* on;
    with *previous*, stopping where they meet its starts again at or after *unchanged_from*."""
    unterminated: List[int] = []
    shift = len(lines) - len(previous.lines) if previous else 0
    offset = sum(map(len, lines[:first])) + first
    for start in _starts_from(text, lines, first, offset, unterminated):
        if previous and start >= unchanged_from:
            index = bisect_left(previous.starts, start - shift)
            if index < len(previous.starts) and previous.starts[index] == start - shift:
                starts.extend(s + shift for s in previous.starts[index:])
                unterminated.extend(u + shift for u in previous.unterminated if u >= start - shift)
                break
        starts.append(start)
    return Split(lines, starts, tuple(unterminated))


def _starts_from(text: str, lines: List[str], first: int, offset: int, unterminated: List[int]) -> Iterator[int]:
    """The chunk starts from line *first* (itself a start, at *offset* in *text*) on; the lines
    of unclosed triple quotes met on the way are appended to *unterminated*."""
    yield first
    count = len(lines)
    depth = 0
    line = first
    pending_decorator = first < count and lines[first][:1] == "@"
    for match in _TOKEN.finditer(text, offset):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "str":
            quoted = match.group()
            if len(quoted) == 2 and text.startswith(quoted[0], match.end()):
                unterminated.append(line)  # `""` then `"`: a triple quote found no closing one
            line += quoted.count("\n")
        elif kind == "cont":
            line += 1
        elif kind == "nl":
            line += 1
            # A new logical line may begin after a newline outside brackets and strings.
            if line >= count:
                continue
            if depth:
                if not _HARD_START.match(lines[line]):
                    continue
                # An unclosed bracket above (the user is typing) must not swallow the file.
                depth = 0
            head = lines[line][:1]
            if not head or head in " \t\f#" or _CONTINUATION.match(lines[line]):
                continue
            if pending_decorator:
                # Decorators and the def/class they decorate form one chunk.
                pending_decorator = head == "@"
                continue
            pending_decorator = head == "@"
            yield line


def parse_chunk(chunk: Chunk) -> ParsedChunk:
    """Parse one chunk; any failure of the parser becomes an error on the chunk, never a crash."""
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences in user code are the user's business, not a crash.
            warnings.simplefilter("ignore")
            tree = pyast.parse(chunk.text)
        return ParsedChunk(chunk, tree)
    except SyntaxError as exc:
        line = max(0, (exc.lineno or 1) - 1)
        col = max(0, (exc.offset or 1) - 1)
        # SyntaxError offsets count code points for str input, but may point past the line end.
        return ParsedChunk(chunk, None, (line, col, _syntax_message(exc)))
    except (ValueError, RecursionError, MemoryError) as exc:
        # ValueError: NUL bytes (3.11); RecursionError: nesting deeper than the parser allows.
        reason = "nesting too deep for Python's parser" if isinstance(exc, RecursionError) else str(exc)
        return ParsedChunk(chunk, None, (0, 0, reason))


def _syntax_message(exc: SyntaxError) -> str:
    return exc.msg or "invalid syntax"
