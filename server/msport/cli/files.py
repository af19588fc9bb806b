"""Finding the Python files to check, with the settings that govern each, and reading them
whatever their encoding. Shared by ``msport check``, ``msport report`` and the editor's
workspace scan.

The walk survives what a hostile repository can hold: FIFOs, devices and links to them are
listed as skipped, never opened (regular_files.py); link loops, broken links, directories
that cannot be listed and entries that vanish mid-walk cost that entry alone; a file reached
by two names is listed once; names that are not UTF-8 are shown with their odd bytes escaped.
"""

from __future__ import annotations

import errno
import io
import os
import stat
import sys
import tokenize
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Set, Tuple

from ..analysis.engine import not_checked
from ..analysis.findings import Finding, Span
from ..analysis.setting_notices import setting_notices
from ..analysis.settings import Settings
from ..config import settings_for
from ..knowledge.index import knowledge_for
from ..regular_files import FileTooLarge, not_regular_reason, os_reason, read_regular_file
from ..said import Said, said
from ..knowledge.messages import language_of, message
from ..knowledge.messages import listing as run_in  # "a, b" / "a，b" (a local "listing" is the walk's)

#: Directories no one wants checked.
SKIPPED_DIRS = frozenset({
    ".git", ".hg", ".svn", ".venv", "venv", ".tox", ".nox", "__pycache__", "node_modules",
    "site-packages", ".mypy_cache", ".pytest_cache", ".ruff_cache", "build", "dist", ".eggs",
})


@dataclass
class Listing:
    """What a walk found: the files to check, in order, and what it could not use."""

    files: List[Path] = field(default_factory=list)
    #: (path, why): entries named like Python files that are not regular files (a FIFO, a
    #: device, a broken link, a link loop) or that vanished; they are not source code to check.
    skipped: List[Tuple[Path, Said]] = field(default_factory=list)
    #: (path, why): directories that could not be listed: files below them may be missing.
    unlisted: List[Tuple[Path, Said]] = field(default_factory=list)


def display_name(path: Path) -> str:
    """*path* as printed and written in reports: itself, or, when its name is not UTF-8, with
    each byte that is not escaped as ``\\xNN`` so that text, JSON and SARIF stay valid."""
    text = str(path)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return os.fsencode(text).decode("utf-8", "backslashreplace")
    return text


def python_files(paths: Sequence[Path], excluded: Optional[Callable[[Path], bool]] = None) -> Listing:
    """*paths* themselves (files) and the .py/.pyi files below them (directories), sorted; a file
    reached twice (``msport check src src/a.py``, a symlink, a hard link) only the first time, so
    that ``--fix`` never has two workers rewrite it at once. Directories for which *excluded*
    says so are not entered."""
    listing = Listing()
    seen: Set[Tuple[int, int]] = set()
    skipped: Set[str] = set()  # each name said once, even when given twice
    for path in _candidates(paths, listing, excluded):
        why = None
        try:
            status = os.stat(path)
            if not stat.S_ISREG(status.st_mode):
                why = not_regular_reason(status.st_mode)
        except OSError as exc:
            why = _why_unusable(path, exc)
        if why is not None:
            if os.path.abspath(path) not in skipped:
                skipped.add(os.path.abspath(path))
                listing.skipped.append((path, why))
            continue
        identity = (status.st_dev, status.st_ino)
        if identity not in seen:
            seen.add(identity)
            listing.files.append(path)
    return listing


def _why_unusable(path: Path, exc: OSError) -> Said:
    if exc.errno == errno.ELOOP:
        return said("files.link_loop")
    if exc.errno == errno.ENOENT:
        return said("files.broken_link") if os.path.islink(path) else said("files.vanished")
    return os_reason(exc)


def _candidates(paths: Sequence[Path], listing: Listing, excluded: Optional[Callable[[Path], bool]]) -> Iterator[Path]:
    for path in paths:
        if os.path.isdir(path):
            yield from _walk(path, listing, excluded)
        else:
            yield path


def _walk(top: Path, listing: Listing, excluded: Optional[Callable[[Path], bool]]) -> Iterator[Path]:
    """Depth first, each directory's files (sorted) before its subdirectories (sorted), like a
    sorted ``os.walk``; linked directories are not entered, so no link can make it loop."""
    stack = [top]
    while stack:
        directory = stack.pop()
        try:
            with os.scandir(directory) as scan:
                entries = sorted(scan, key=lambda entry: entry.name)
        except FileNotFoundError:
            continue  # removed since its parent was listed
        except OSError as exc:
            listing.unlisted.append((directory, said("files.cannot_list", reason=exc.strerror or exc)))
            continue
        subdirectories = []
        for entry in entries:
            name = entry.name
            try:
                is_directory = entry.is_dir(follow_symlinks=False)
            except OSError:
                continue  # vanished
            if is_directory:
                if name not in SKIPPED_DIRS and not name.endswith(".egg-info"):
                    subdirectory = Path(entry.path)
                    if excluded is None or not excluded(subdirectory):
                        subdirectories.append(subdirectory)
            elif name.endswith((".py", ".pyi")):
                yield Path(entry.path)
        stack.extend(reversed(subdirectories))


def report_listing(listing: Listing, language: str) -> bool:
    """Print what the walk skipped on stderr; whether a directory could not be listed (then
    files may be missing, and the run exits with status 2)."""
    for path, why in listing.skipped:
        line = message("files.skipped", language, path=display_name(path), why=why.text(language))
        print(message("cli.warning", language, text=line), file=sys.stderr)
    for path, why in listing.unlisted:
        line = message("files.unlisted", language, path=display_name(path), why=why.text(language))
        print(message("cli.error", language, text=line), file=sys.stderr)
    return bool(listing.unlisted)


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
    language = settings.language
    for problem in settings.problems:
        said = message("cli.flag_problem", language, flag=flag_of(problem.key), reason=problem.reason(language))
        print(message("cli.error", language, text=said), file=sys.stderr)
    missing = tuple(display_name(p) for p in paths if not os.path.lexists(p))
    if missing and not settings.problems:
        print(message("cli.error", language, text=message("cli.no_such_path", language, paths=run_in(missing, language))), file=sys.stderr)
    return None if settings.problems or missing else settings


def files_with_settings(paths: Sequence[Path], flags: Dict[str, str], known) -> Tuple[List[Tuple[Path, Settings]], bool]:
    """The files under *paths* that no ``exclude`` leaves out, each with its settings (the nearest
    pyproject.toml, then the flags); and whether there was a problem worth exit status 2 (a
    configuration file's, a directory that could not be listed). Each problem is printed once,
    however many files it governs; what the walk skipped is printed too."""
    reported, noticed = set(), set()
    base = environment_settings()

    def governing(path: Path) -> Settings:
        settings, _ = settings_for(Path(os.path.abspath(path)), base, known_codes=known)
        if flags:
            settings = settings.merged(flags, "command line", known)
        # The user's rule files are read here, once per set, before any worker starts.
        rule_problems = knowledge_for(settings.extend_rules).problems if settings.extend_rules else ()
        texts = [p.text(settings.language) for p in settings.problems]
        texts += [message("settings.rule_file_problem", settings.language, problem=p) for p in rule_problems]
        for text in texts:
            if text not in reported:
                reported.add(text)
                print(message("cli.configuration_error", settings.language, text=text), file=sys.stderr)
        return settings

    listing = python_files(list(paths), excluded=lambda directory: governing(directory).is_excluded(str(directory)))
    unlisted = report_listing(listing, (base.merged(flags, "command line", known) if flags else base).language)
    files: List[Tuple[Path, Settings]] = []
    for path in listing.files:
        settings = governing(path)
        for notice in setting_notices(settings):
            text = notice.text(settings.language)
            if text not in noticed:  # a warning: it does not change the exit status
                noticed.add(text)
                print(message("cli.warning", settings.language, text=text), file=sys.stderr)
        if not settings.is_excluded(str(path)):
            files.append((path, settings))
    return files, bool(reported) or unlisted


@dataclass(frozen=True)
class SourceFile:
    """A source file as read: its text, and what writing it back needs."""

    text: str
    data: bytes  # the bytes the text was decoded from
    encoding: str
    note: Optional[Said] = None  # e.g. undecodable bytes were replaced


def read_source(path: Path, max_size: int) -> SourceFile:
    """The file decoded with its PEP 263 coding; undecodable bytes are replaced (and the note says
    so) rather than failing the file. Raises ``OSError`` (``SkippedFile`` for a path that is not
    a regular file, or one larger than *max_size* bytes: setting max-file-size)."""
    data = read_regular_file(path, max_size, "max-file-size")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        text = data.decode(encoding)
        note = None
    except (UnicodeDecodeError, LookupError):
        text = data.decode("utf-8", errors="replace")
        note = said("files.undecodable", encoding=encoding)
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceFile(text, data, encoding, note)


def not_read_finding(exc: FileTooLarge, language: str) -> Finding:
    """The informational finding of a file too large to read (as max-lines gives one too long to check)."""
    return not_checked(Span(0, 0, 0, 0), message("files.not_read", language, why=exc.said.text(language)))
