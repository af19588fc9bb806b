"""Reading files of a repository that may be hostile: regular files only, of bounded size,
never blocking.

A ``*.py`` name (or a pyproject.toml, or a rule file named in one) can be a FIFO, where
``open()`` waits for a writer that never comes; a device such as ``/dev/zero``, which never
ends; a symbolic link to either; or a link to ``/dev/stdin``, whose reading would steal the
language server's own input. Such paths are never opened: ``stat()`` says what a path is
before ``open()``, and the open uses ``O_NONBLOCK``, so a path swapped for a FIFO in between
still cannot block; the descriptor is checked again once open, and at most *limit* + 1 bytes
are read from it.

Used by every reader of repository files: sources (CLI and workspace scan), pyproject.toml,
and the user's rule files. A refusal is an ``OSError`` (``SkippedFile``), so callers that
already report unreadable files report these the same way, with the reason in ``strerror``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Union

from .said import Said, said

PathLike = Union[str, Path]

#: Opened without blocking (a FIFO), without becoming the controlling terminal (a tty), and
#: without leaking into the processes a worker may start.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_READ_SIZE = 1 << 20


class SkippedFile(OSError):
    """A path msport does not read: not a regular file, or larger than the limit. ``strerror``
    is the English text; ``said`` words it in the reader's language."""

    def __init__(self, number: int, said: Said, path: PathLike):
        super().__init__(number, said.text(), str(path))
        self.said = said


class NotRegularFile(SkippedFile):
    pass


class FileTooLarge(SkippedFile):
    def __init__(self, path: PathLike, size: int, limit: int, setting: str):
        sizes = {"size": describe_size(size), "limit": describe_size(limit)}
        why = said("files.too_large_setting", setting=setting, **sizes) if setting else said("files.too_large", **sizes)
        super().__init__(errno.EFBIG, why, path)
        self.size, self.limit = size, limit


def kind_of(mode: int) -> Said:
    """What a non-regular file is, in words."""
    for test, key in ((stat.S_ISFIFO, "files.kind.fifo"), (stat.S_ISCHR, "files.kind.character_device"),
                      (stat.S_ISBLK, "files.kind.block_device"), (stat.S_ISSOCK, "files.kind.socket"),
                      (stat.S_ISDIR, "files.kind.directory")):
        if test(mode):
            return said(key)
    return said("files.kind.special")


def not_regular_reason(mode: int) -> Said:
    return said("files.not_regular", kind=kind_of(mode))


def not_regular(path: PathLike, mode: int) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, not_regular_reason(mode), path)


def os_reason(exc: OSError) -> Said:
    """Why *exc* happened: msport's own words for a skipped file, else the system's text."""
    return exc.said if isinstance(exc, SkippedFile) else said("files.cannot_read", reason=exc.strerror or exc)


def describe_size(size: int) -> str:
    if size >= 1_000_000:
        return f"{size / 1_000_000:.1f} MB"
    if size >= 1_000:
        return f"{size / 1_000:.1f} kB"
    return f"{size} bytes"


def regular_file_status(path: PathLike) -> os.stat_result:
    """``os.stat(path)`` (through symbolic links) when it is a regular file; otherwise raises
    ``NotRegularFile``, or the ``OSError`` of a missing path or a link loop."""
    status = os.stat(path)
    if not stat.S_ISREG(status.st_mode):
        raise not_regular(path, status.st_mode)
    return status


def read_regular_file(path: PathLike, limit: int, setting: str = "") -> bytes:
    """The bytes of *path*, a regular file of at most *limit* bytes; *setting* names the setting
    the limit comes from, for the message. Raises ``SkippedFile`` (an ``OSError``) otherwise."""
    status = regular_file_status(path)
    if status.st_size > limit:
        raise FileTooLarge(path, status.st_size, limit, setting)
    fd = os.open(path, _OPEN_FLAGS)
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):  # swapped between stat() and open()
            raise not_regular(path, status.st_mode)
        parts = []
        total = 0
        while total <= limit:
            data = os.read(fd, min(_READ_SIZE, limit + 1 - total))
            if not data:
                break
            parts.append(data)
            total += len(data)
        if total > limit:  # it grew while being read
            raise FileTooLarge(path, total, limit, setting)
        return b"".join(parts)
    finally:
        os.close(fd)
