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

PathLike = Union[str, Path]

#: Opened without blocking (a FIFO), without becoming the controlling terminal (a tty), and
#: without leaking into the processes a worker may start.
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
_READ_SIZE = 1 << 20


class SkippedFile(OSError):
    """A path msport does not read: not a regular file, or larger than the limit."""


class NotRegularFile(SkippedFile):
    pass


class FileTooLarge(SkippedFile):
    def __init__(self, path: PathLike, size: int, limit: int, setting: str):
        where = f" (setting {setting})" if setting else ""
        super().__init__(errno.EFBIG, f"it is {describe_size(size)}, over the limit of {describe_size(limit)}{where}", str(path))
        self.size, self.limit = size, limit


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISDIR(mode):
        return "a directory"
    return "not a regular file"


def not_regular(path: PathLike, mode: int) -> NotRegularFile:
    return NotRegularFile(errno.EINVAL, f"{kind_of(mode)}, not a regular file: msport reads only regular files", str(path))


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
