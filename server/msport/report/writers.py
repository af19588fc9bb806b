"""The report formats, by name."""

from __future__ import annotations

import json
from typing import Callable, Dict

from . import csv_table, html, markdown

Linker = Callable[[str, int], str]


def _json(data: Dict, link: Linker) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


_WRITERS = {"html": html.render, "md": markdown.render, "csv": csv_table.render, "json": _json}
FORMATS = tuple(_WRITERS) + ("markdown",)


def render(fmt: str, data: Dict, link: Linker) -> str:
    return _WRITERS["md" if fmt == "markdown" else fmt](data, link)
