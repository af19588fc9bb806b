"""Finding the Python files to check and reading them whatever their encoding."""

from __future__ import annotations

import io
import os
import tokenize
from pathlib import Path
from typing import Iterator, List, Tuple

#: Directories no one wants checked.
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
    "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs",
})


def python_files(paths: List[Path]) -> Iterator[Path]:
    """*paths* themselves (files) and the .py/.pyi files below them (directories), sorted."""
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith((".py", ".pyi")):
                        yield Path(root) / name
        else:
            yield path


def read_source(path: Path) -> Tuple[str, str]:
    """(text, note): decoded with the file's PEP 263 coding; undecodable bytes are replaced
    (and the note says so) rather than failing the file."""
    data = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
        note = ""
    except (UnicodeDecodeError, LookupError):
        text = data.decode("utf-8", errors="replace")
        note = f"not valid {encoding}; undecodable bytes were replaced"
    if text.startswith("\ufeff"):
        text = text[1:]
    return text, note
