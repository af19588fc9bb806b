"""Reading LSP messages (``Content-Length`` framed JSON) from a byte stream, and recovering
when a frame is broken.

pygls' reader trusts every ``Content-Length``. One wrong length left it alive and deaf: too
large, and the body swallowed the messages after it (and, with nothing more to come, waited
forever); too small, and the rest of the body was glued to the next header line. Here:

- a length over ``MAX_MESSAGE_BYTES`` closes the connection (reading it would cost that much
  memory), with a logged error;
- a body that is not one JSON value is searched for one at its start: a body too long holds a
  whole message followed by the start of the next ones, which go back to be read again; a
  message whose body stops arriving for ``STALL_SECONDS`` short of its length is taken as it is
  when it is complete JSON;
- between messages, bytes that are not a header (the tail of a body too short) are skipped up
  to the next ``Content-Length``.

Each recovery is logged as an error naming what was wrong; a body that cannot be read at all
gets a JSON-RPC parse error (-32700), as pygls would answer it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
from typing import Any, Awaitable, Callable, Optional, Protocol

log = logging.getLogger("msport")

#: Largest message read. A didOpen of a file at the max-file-size default (10 MB) is at most a
#: few times that once escaped as JSON; a larger length is a broken frame or a hostile client.
MAX_MESSAGE_BYTES = 128 * 1024 * 1024
#: Seconds without a byte after which a body shorter than its Content-Length is judged broken.
STALL_SECONDS = 2.0
#: Longest header block kept while looking for its end; longer ones are garbage.
MAX_HEADER_BYTES = 64 * 1024
_READ_SIZE = 1 << 16

_CONTENT_LENGTH = re.compile(rb"content-length[ \t]*:[ \t]*([0-9]+)[ \t]*\r?\n", re.IGNORECASE)
_HEADER_LINES = re.compile(rb"(?:[!-9;-~]+[ \t]*:[^\r\n]*\r?\n|\r?\n)*")
_HEADER_END = re.compile(rb"\r?\n\r?\n")


class ByteSource(Protocol):
    def read(self) -> Awaitable[bytes]:
        """The next bytes available (up to a buffer's worth); b"" at the end."""


class StreamSource:
    """An ``asyncio.StreamReader`` (a pipe registered with the loop, a TCP connection)."""

    def __init__(self, stream: asyncio.StreamReader, before_read: Optional[Callable[[], Awaitable[None]]] = None):
        self._stream = stream
        self._before_read = before_read

    async def read(self) -> bytes:
        if self._before_read is not None:
            await self._before_read()  # e.g. wait while the client has not read our output
        try:
            return await self._stream.read(_READ_SIZE)
        except ConnectionError:  # reset by the client, or dropped by msport (tcp.py): the end
            return b""


class ThreadSource:
    """A blocking binary file (a terminal, a regular file) read on a thread."""

    def __init__(self, stream: Any, executor=None):
        self._stream, self._executor = stream, executor
        self._read = getattr(stream, "read1", None) or stream.read

    def read(self) -> Awaitable[bytes]:
        return asyncio.get_running_loop().run_in_executor(self._executor, self._read, _READ_SIZE)


class FrameTooLarge(Exception):
    pass


class MessageReader:
    """Message bodies from a ``ByteSource``, one at a time (see the module docstring)."""

    def __init__(self, source: ByteSource):
        self._source = source
        self._buffer = bytearray()
        self._pending: Optional[asyncio.Future] = None
        self.eof = False

    async def _fill(self, timeout: Optional[float] = None) -> bool:
        """Append what the source has; False when *timeout* passed first (the read stays pending
        and its bytes are kept for the next call) or at the end of the stream."""
        if self.eof:
            return False
        if self._pending is None:
            self._pending = asyncio.ensure_future(self._source.read())
        done, _ = await asyncio.wait({self._pending}, timeout=timeout)
        if not done:
            return False
        data = self._pending.result()
        self._pending = None
        if not data:
            self.eof = True
            return False
        self._buffer += data
        return True

    def unread(self, data: bytes) -> None:
        """Put bytes taken with a body back in front, to be read as the next message."""
        self._buffer[:0] = data

    async def next_body(self) -> Optional[bytes]:
        """The next message body, or None at the end of the stream."""
        length, start = await self._header()
        if length is None:
            return None
        while len(self._buffer) - start < length:
            if await self._fill(timeout=STALL_SECONDS):
                continue
            salvaged = _leading_json(bytes(self._buffer[start:]))
            if salvaged is not None:
                # Too long a Content-Length, and nothing more is coming: take the message as it is.
                log.error("broken frame: Content-Length said %d bytes but the message was %d; resynchronised", length, salvaged)
                body = bytes(self._buffer[start:start + salvaged])
                del self._buffer[:start + salvaged]
                return body
            if self.eof:
                if len(self._buffer) > start:
                    log.error("the client closed the connection %d bytes into a %d-byte message", len(self._buffer) - start, length)
                return None
        body = bytes(self._buffer[start:start + length])
        del self._buffer[:start + length]
        return body

    async def _header(self):
        """(Content-Length, offset of the body in the buffer), or (None, 0) at the end."""
        while True:
            match = _CONTENT_LENGTH.search(self._buffer)
            if match is not None:
                if match.start():  # other headers (Content-Type), or the tail of a body cut short
                    if not _only_headers(self._buffer[:match.start()]):
                        log.error("broken frame: skipped %d bytes that were not a message header (the previous Content-Length was too short?)", match.start())
                    del self._buffer[:match.start()]
                    continue
                end = _HEADER_END.search(self._buffer, match.end() - 2)
                if end is not None:
                    length = int(match.group(1))
                    if length > MAX_MESSAGE_BYTES:
                        raise FrameTooLarge(f"a message of {length} bytes (Content-Length) is over the {MAX_MESSAGE_BYTES}-byte limit")
                    return length, end.end()
                if len(self._buffer) > MAX_HEADER_BYTES:
                    log.error("broken frame: a header block longer than %d bytes; skipped", MAX_HEADER_BYTES)
                    del self._buffer[:match.end()]
                    continue
            elif len(self._buffer) > MAX_HEADER_BYTES:
                log.error("broken frame: skipped %d bytes with no Content-Length header", len(self._buffer) - 32)
                del self._buffer[:-32]  # a header may have begun in the last bytes
            if not await self._fill():
                if self._buffer.strip():
                    log.error("the client closed the connection with %d bytes that were not a whole message", len(self._buffer))
                return None, 0


def _only_headers(data: bytes) -> bool:
    return _HEADER_LINES.fullmatch(data) is not None


def _leading_json(body: bytes) -> Optional[int]:
    """The length in bytes of the JSON value *body* starts with, or None."""
    text = body.decode("utf-8", "surrogateescape")
    stripped = len(text) - len(text.lstrip())
    try:
        _, end = json.JSONDecoder().raw_decode(text, stripped)
    except (ValueError, RecursionError):
        return None
    return len(text[:end].encode("utf-8", "surrogateescape"))


async def serve_messages(reader: MessageReader, parse: Callable[[bytes], Any], handle: Callable[[Any], None],
                         on_error: Callable[[Exception], None], stopped: Callable[[], bool]) -> None:
    """``handle(parse(body))`` for each message until the end of the stream or *stopped()*;
    errors go to *on_error*. A body that is a whole message followed by more (its Content-Length
    was too long) is split, and the rest read again as the next messages."""
    while not stopped():
        body = await reader.next_body()
        if body is None:
            return
        try:
            try:
                message = parse(body)
            except ValueError:  # not one JSON value (JSONDecodeError, UnicodeDecodeError)
                size = _leading_json(body)
                if size is None or not body[size:].strip():
                    # Not JSON from its start: if another message's header is inside, the bytes
                    # from there on are read again; what came before gets a parse error.
                    inside = _CONTENT_LENGTH.search(body, 1)
                    if inside is not None:
                        log.error("broken frame: a message body held another message's header; resynchronised")
                        reader.unread(body[inside.start():])
                        body = body[:inside.start()]
                    raise
                log.error("broken frame: Content-Length said %d bytes but the message was %d; resynchronised", len(body), size)
                reader.unread(body[size:])
                message = parse(body[:size])
            handle(message)
        except Exception as exc:  # answered or logged by on_error; the next message is read
            on_error(exc)
