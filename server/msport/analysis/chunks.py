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
from dataclasses import dataclass
from typing import List, Optional, Tuple

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


@dataclass
class ParsedChunk:
    chunk: Chunk
    tree: Optional[ast.Module]
    #: (line relative to the chunk, 0-based; code-point column; message) when the chunk failed.
    error: Optional[Tuple[int, int, str]] = None


def split_chunks(lines: List[str]) -> List[Chunk]:
    """Cut *lines* (no terminators) into top-level chunks covering every line exactly once."""
    text = "\n".join(lines)
    starts = _statement_starts(text, lines)
    chunks = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        chunks.append(Chunk(start, end, "\n".join(lines[start:end])))
    return chunks


def _statement_starts(text: str, lines: List[str]) -> List[int]:
    # Lines where a new logical line may begin: after a newline outside brackets and strings.
    candidates = [0]
    depth = 0
    line = 0
    for match in _TOKEN.finditer(text):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(0, depth - 1)
        elif kind == "str":
            line += match.group().count("\n")
        elif kind == "cont":
            line += 1
        elif kind == "nl":
            line += 1
            if depth == 0:
                candidates.append(line)
            elif line < len(lines) and _HARD_START.match(lines[line]):
                # An unclosed bracket above (the user is typing) must not swallow the file.
                depth = 0
                candidates.append(line)
    starts = [0]
    pending_decorator = lines[0].startswith("@") if lines else False
    for line in candidates[1:]:
        if line >= len(lines):
            continue
        first = lines[line][:1]
        if not first or first in " \t\f#" or _CONTINUATION.match(lines[line]):
            continue
        if pending_decorator:
            # Decorators and the def/class they decorate form one chunk.
            pending_decorator = first == "@"
            continue
        starts.append(line)
        pending_decorator = first == "@"
    return starts


def parse_chunk(chunk: Chunk) -> ParsedChunk:
    """Parse one chunk; any failure of the parser becomes an error on the chunk, never a crash."""
    try:
        with warnings.catch_warnings():
            # Invalid escape sequences in user code are the user's business, not a crash.
            warnings.simplefilter("ignore")
            tree = ast.parse(chunk.text)
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
