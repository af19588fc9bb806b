"""Telling valid code written for a newer Python from a syntax error.

msport parses with the Python it runs on. Code written for Python 3.12 (PEP 695's ``type``
statements and generic ``def f[T]``/``class C[T]``, PEP 701's f-strings that reuse their quotes)
does not parse on 3.11: calling it a syntax error would be wrong, so msport says what it cannot read.
"""

from __future__ import annotations

import re
import sys

#: Statements only Python 3.12+ parses (PEP 695).
_TYPE_PARAMETERS = re.compile(
    r"^[ \t]*(?:type[ \t]+\w+[ \t]*(?:\[[^\n]*\])?[ \t]*=|(?:async[ \t]+)?def[ \t]+\w+[ \t]*\[|class[ \t]+\w+[ \t]*\[)"
)
_RUNNING = f"{sys.version_info[0]}.{sys.version_info[1]}"


def needs_newer_python(line: str) -> bool:
    """Whether *line*, where parsing failed, is a statement only Python 3.12+ can parse."""
    return sys.version_info < (3, 12) and _TYPE_PARAMETERS.match(line) is not None


def newer_syntax_note(message: str) -> str:
    """What to add to a syntax error's message when newer Python may read it (f-strings)."""
    if sys.version_info < (3, 12) and message.startswith("f-string"):
        return (f" (or an f-string that reuses its quotes or nests deeper, valid from Python 3.12: msport runs on "
                f"Python {_RUNNING} and cannot read it; run msport on Python 3.12 or newer to check it)")
    return ""


def unreadable_message(first: int, last: int) -> str:
    return (f"Lines {first}-{last} use syntax newer than Python {_RUNNING}, which msport runs on (type parameters or a "
            "type statement, from Python 3.12), so msport cannot check them. Run msport on Python 3.12 or newer to check them.")
