"""The one error the weight commands raise: its text names the file and what to do."""

from __future__ import annotations

from contextvars import ContextVar

from ..knowledge.messages import DEFAULT_LANGUAGE
from ..knowledge.weights import default_weight_rules


class WeightsError(Exception):
    """A problem with the user's input (a file, a flag): reported as ``msport: error: ...``."""


#: The language of the weight commands' texts. Each command is one process (the editor runs
#: it as one too), so the command sets it once rather than pass it to every function that
#: can report a problem.
LANGUAGE: ContextVar[str] = ContextVar("msport_weights_language", default=DEFAULT_LANGUAGE)


def message(key: str, **values) -> str:
    """The user-facing message *key* of rules/weights.toml, in LANGUAGE, filled in."""
    return default_weight_rules().message(key, LANGUAGE.get(), **values)


def fail(key: str, **values) -> WeightsError:
    return WeightsError(message(key, **values))


def describe(exc: BaseException) -> str:
    """``Type: first line`` of an exception. MindSpore frames its messages with rules of dashes,
    headings and a C++ stack: the first line of words is the one that says what went wrong."""
    lines = [line.strip() for line in str(exc).splitlines()
             if any(c.isalnum() for c in line) and not line.strip().startswith(("- ", "mindspore/ccsrc/"))]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__
