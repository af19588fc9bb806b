"""``msport serve --tcp HOST:PORT``: the language server for one client over a loopback socket.

Anyone who can connect can read every document the editor sends and the files msport reads
for it, so:

- msport listens on a loopback address only (127.0.0.1, ::1, or localhost for 127.0.0.1);
- it serves one client: once one has connected, it stops listening (a second connection is
  refused by the system; one that raced in before that is closed at once), and it exits when
  that client disconnects, so no later client finds the first one's documents;
- what the client has not read yet is bounded: while more than ``HIGH_WATER`` bytes of output
  wait, msport reads no new message from it (so a client that sends but never reads stops being
  served instead of growing the server), and past ``MAX_UNREAD_OUTPUT`` it drops the connection.
"""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import sys
from typing import TYPE_CHECKING, Callable, Tuple, Union

from .framing import StreamSource

if TYPE_CHECKING:
    from .server import MsportServer

log = logging.getLogger("msport")

#: Output the client has not read past which msport stops reading its messages.
HIGH_WATER = 1 << 20
#: Output the client has not read past which msport closes the connection.
MAX_UNREAD_OUTPUT = 64 << 20


def loopback_address(text: str) -> Union[Tuple[str, int], str]:
    """(host, port) of ``HOST:PORT``, or why it cannot be used."""
    host, _, port = text.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        return f"expected HOST:PORT such as 127.0.0.1:2087, got {text!r}"
    if host == "localhost":
        host = "127.0.0.1"
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        loopback = False
    if not loopback:
        return (f"{host} is not a loopback address; msport listens on 127.0.0.1 or ::1 only, since whoever connects "
                "can read the documents the editor sends (forward the port over SSH to reach it from elsewhere)")
    return host, int(port)


class BoundedWriter:
    """pygls' writer over the connection, with a bound on the output the client has not read."""

    def __init__(self, writer: asyncio.StreamWriter, overflow: Callable[[], None]):
        self._writer = writer
        self._overflow = overflow
        writer.transport.set_write_buffer_limits(high=HIGH_WATER)

    def write(self, data: bytes) -> None:
        transport = self._writer.transport
        if transport.is_closing():
            return
        waiting = transport.get_write_buffer_size()
        if waiting + len(data) > MAX_UNREAD_OUTPUT:
            log.error("the client has not read %d bytes of msport's output; closing the connection", waiting)
            transport.abort()
            self._overflow()
            return
        self._writer.write(data)

    def close(self) -> None:
        self._writer.close()

    async def client_caught_up(self) -> None:
        """Return once the output waiting for the client is below the high-water mark."""
        try:
            await self._writer.drain()
        except ConnectionError:
            pass  # gone: the next read says so


async def serve_one_client(ls: "MsportServer", host: str, port: int) -> None:
    finished = asyncio.Event()
    connected = False

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal connected
        peer = writer.get_extra_info("peername")
        if connected:
            log.warning("refused a connection from %s: msport serves one client at a time", peer)
            writer.transport.abort()
            return
        connected = True
        listener.close()  # nobody else can connect from now on
        log.info("client connected from %s", peer)
        output = BoundedWriter(writer, ls._stop_event.set)
        ls.protocol.set_writer(output)
        try:
            await ls._serve(StreamSource(reader, before_read=output.client_caught_up))
        finally:
            writer.close()
            finished.set()

    listener = await asyncio.start_server(on_connect, host, port)
    bound = ", ".join(f"{sock.getsockname()[0]}:{sock.getsockname()[1]}" for sock in listener.sockets)
    print(f"msport: listening on {bound} for one client", file=sys.stderr, flush=True)
    await finished.wait()
