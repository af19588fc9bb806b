"""``msport check --fix``: apply fixes to files on disk without ever costing the user a byte.

The new text goes to a temporary file in the same directory, is flushed to disk, given the
original's permissions, and renamed over the original; so a crash, a ``kill -9`` or a full
disk at any moment leaves the file either as it was or fully fixed. The file is replaced only
if its bytes are still the ones that were analysed (an edit saved meanwhile wins), never through
a symbolic link that leads out of the project, and never when other hard links share it (they
would keep the old text). Whatever stops a write is reported, the file is left alone, and the
run exits with status 2.
"""

from __future__ import annotations

import os
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

from ..analysis.fixes import fix_all
from ..knowledge.messages import message
from ..regular_files import FileTooLarge, read_regular_file
from ..said import Said, said
from .files import SourceFile, read_source

#: Suffix of the temporary files; a run killed mid-write may leave one behind (never a .py file,
#: so never checked or imported), next to a file that is intact.
TEMP_SUFFIX = ".msport-tmp"


@dataclass
class FixOutcome:
    text: str  # the file's text now: fixed, or as read when nothing was written
    applied: int = 0  # fixes written to disk
    messages: List[str] = field(default_factory=list)  # for stderr
    failed: bool = False  # fixes were due but could not be written: exit status 2


def fix_file(path: Path, source: SourceFile, analyzer, settings, display: str, unsafe: bool, roots: Sequence[str],
             project=None) -> FixOutcome:
    """Apply every eligible fix to *source* (the file at *path* as read) and write the result back
    when it changed. *roots* are the project's folders, which a link may not lead out of;
    *project*: the file's facts from the project index."""
    outcome = fix_all(source.text, settings, analyzer, display, unsafe=unsafe, project=project)
    result = FixOutcome(source.text)
    language = settings.language
    result.messages = [
        message("cli.warning", language, text=message("files.fix_rejected", language, path=display, line=rejected.line + 1,
                                                       code=rejected.code, title=rejected.title))
        for rejected in outcome.rejected
    ]
    if not outcome.changed:
        return result
    problem = _write_back(path, source, outcome.text, roots)
    if problem:
        return _not_written(result, display, problem.text(language), language)
    result.text, result.applied = outcome.text, len(outcome.applied)
    return result


def write_fixed(path: Path, new_text: str, language: str = "en") -> str:
    """Write *new_text* over the file at *path* as --fix does (its encoding and BOM, atomically,
    only if unchanged since read here); what went wrong, or "" when it was written."""
    try:
        source = read_source(path, 2**62)
    except OSError as exc:
        return message("files.not_written", language, why=exc.strerror or exc)
    problem = _write_back(path, source, new_text, (os.path.dirname(os.path.realpath(path)),))
    return message("files.not_written", language, why=problem.text(language)) if problem else ""


def _write_back(path: Path, source: SourceFile, text: str, roots: Sequence[str]) -> Optional[Said]:
    """Replace the file *source* was read from by *text*; why it was not, or None."""
    bom = source.data.startswith(b"\xef\xbb\xbf")
    encoding = "utf-8" if source.encoding == "utf-8-sig" else source.encoding
    try:
        encoded = text.encode(encoding)
    except UnicodeEncodeError:
        return said("files.cannot_encode", encoding=source.encoding)
    data = (b"\xef\xbb\xbf" if bom and not encoded.startswith(b"\xef\xbb\xbf") else b"") + encoded
    target = os.path.realpath(path)
    if not any(_inside(target, root) for root in roots):
        return said("files.link_outside", target=target, roots=tuple(roots))
    try:
        write_if_unchanged(target, source.data, data)
    except ChangedMeanwhile:
        return said("files.changed_meanwhile")
    except HardLinked as exc:
        return said("files.hard_links", count=exc.links)
    except OSError as exc:
        return said("files.os_error", reason=exc.strerror or exc)
    return None


def _not_written(result: FixOutcome, display: str, why: str, language: str) -> FixOutcome:
    line = message("files.fixes_not_written", language, path=display, why=why)
    result.messages.append(message("cli.error", language, text=line))
    result.failed = True
    return result


def _inside(path: str, root: str) -> bool:
    root = os.path.realpath(root)
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives
        return False


class ChangedMeanwhile(Exception):
    """The file's bytes are no longer the ones that were analysed."""


class HardLinked(Exception):
    def __init__(self, links: int):
        super().__init__(links)
        self.links = links


def write_if_unchanged(target: str, expected: bytes, data: bytes) -> None:
    """Replace the regular file *target* by *data*, atomically, if it still holds *expected*."""
    status = os.stat(target)
    if status.st_nlink > 1:
        raise HardLinked(status.st_nlink)
    if not _holds(target, expected):
        raise ChangedMeanwhile()
    directory, name = os.path.split(target)
    handle, temp = tempfile.mkstemp(dir=directory, prefix=f".{name}.", suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
            os.chmod(out.fileno(), stat.S_IMODE(status.st_mode))
            if hasattr(os, "fchown") and (status.st_uid, status.st_gid) != (os.getuid(), os.getgid()):
                try:
                    os.fchown(out.fileno(), status.st_uid, status.st_gid)
                except PermissionError:
                    pass  # only root may give a file away; the mode is kept all the same
        # Checked again just before the swap: an edit saved while the fixed text was written wins.
        if not _holds(target, expected):
            raise ChangedMeanwhile()
        os.replace(temp, target)
    except BaseException:
        try:
            os.unlink(temp)
        except OSError:
            pass
        raise
    _sync_directory(directory)


def _holds(target: str, expected: bytes) -> bool:
    try:
        return read_regular_file(target, len(expected)) == expected
    except FileTooLarge:  # it grew
        return False


def _sync_directory(directory: str) -> None:
    """Make the rename itself durable (a power cut after it must not bring the old name back)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
