"""Finding the Python files to check, with the settings that govern each, and reading them
whatever their encoding. Shared by ``msport check`` and ``msport report``."""

from __future__ import annotations

import io
import os
import sys
import tokenize
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

from ..analysis.settings import Settings
from ..config import settings_for
from ..knowledge.index import knowledge_for
from ..knowledge.messages import language_of

#: Directories no one wants checked.
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
    "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs",
})


def python_files(paths: List[Path]) -> Iterator[Path]:
    """*paths* themselves (files) and the .py/.pyi files below them (directories), sorted; a file
    reached twice (``msport check src src/a.py``, a symlink) only the first time, so that
    ``--fix`` never has two workers rewrite it at once."""
    seen = set()
    for path in _candidates(paths):
        real = path.resolve()
        if real not in seen:
            seen.add(real)
            yield path


def _candidates(paths: List[Path]) -> Iterator[Path]:
    for path in paths:
        if path.is_dir():
            for root, dirs, files in os.walk(path):
                dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not d.endswith(".egg-info"))
                for name in sorted(files):
                    if name.endswith((".py", ".pyi")):
                        yield Path(root) / name
        else:
            yield path


def environment_settings() -> Settings:
    """msport's defaults, in the language of the terminal's locale (the first of LC_ALL,
    LC_MESSAGES and LANG that is set, as gettext reads them): the base every file's
    pyproject.toml and the flags are laid over."""
    for name in ("LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(name)
        if value:
            language = language_of(value)
            return Settings().merged({"language": language}, f"environment ({name}={value})") if language else Settings()
    return Settings()


def flag_of(key: str) -> str:
    """The command-line flag that sets a setting (--lang sets language)."""
    return "--lang" if key == "language" else f"--{key}"


def command_line_settings(paths: Sequence[Path], flags: Dict[str, str], known) -> Optional[Settings]:
    """The settings the command-line flags give, or None, after saying why on stderr, when a
    flag's value is wrong or a path does not exist (exit status 2)."""
    settings = environment_settings().merged(flags, "command line", known)
    for problem in settings.problems:
        print(f"msport: error: {flag_of(problem.key)}: {problem.message}", file=sys.stderr)
    missing = [str(p) for p in paths if not p.exists()]
    if missing and not settings.problems:
        print(f"msport: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
    return None if settings.problems or missing else settings


def files_with_settings(paths: Sequence[Path], flags: Dict[str, str], known) -> Tuple[List[Tuple[Path, Settings]], bool]:
    """The files under *paths* that no ``exclude`` leaves out, each with its settings (the nearest
    pyproject.toml, then the flags); and whether a configuration file had a problem. Each problem
    is printed once, however many files it governs."""
    files: List[Tuple[Path, Settings]] = []
    reported = set()
    base = environment_settings()
    for path in python_files(list(paths)):
        settings, _ = settings_for(path.resolve(), base, known_codes=known)
        if flags:
            settings = settings.merged(flags, "command line", known)
        # The user's rule files are read here, once per set, before any worker starts.
        rule_problems = knowledge_for(settings.extend_rules).problems if settings.extend_rules else ()
        messages = [str(p) for p in settings.problems] + [f"rule file {p} (setting extend-rules; msport's bundled rules apply where it could not be used)" for p in rule_problems]
        for message in messages:
            if message not in reported:
                reported.add(message)
                print(f"msport: configuration error: {message}", file=sys.stderr)
        if not settings.is_excluded(path.as_posix()):
            files.append((path, settings))
    return files, bool(reported)


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
