"""A text of the message catalogue with its arguments, put into words when it is shown.

What went wrong is often known before the language it is shown in: a setting's problem is found
while the settings (the language among them) are being read, a file is skipped before the
settings that govern it are known, and the editor's language may differ from the terminal's.
Such texts travel as ``Said`` and are worded by whoever shows them. This module imports
nothing of msport at import time, so the lowest layers (reading files) can use it too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Tuple


@dataclass(frozen=True)
class Said:
    key: str
    arguments: Tuple[Tuple[str, Any], ...] = ()

    def text(self, language: str = "en") -> str:
        from .knowledge.messages import listing, message

        def worded(value: Any) -> Any:  # a tuple is a run-in list ("a, b" / "a，b")
            return value.text(language) if isinstance(value, Said) else listing(value, language) if isinstance(value, tuple) else value

        return message(self.key, language, **{k: worded(v) for k, v in self.arguments})

    def __str__(self) -> str:
        return self.text()


def said(key: str, **arguments: Any) -> Said:
    return Said(key, tuple(arguments.items()))
