"""One LSP client (pygls' LanguageClient) that drives msport's server and ruff's alike.

Timing is taken at the wire, not after the client has decoded a message: a request or
notification starts when its bytes are handed to the server's stdin, and a response or
published diagnostic arrives when its body has been read from the server's stdout, before
pygls parses it. So a server that sends more diagnostics is not charged for this client's JSON
decoding, only for producing and sending them.

Both servers are offered the same capabilities: push diagnostics with version support, no pull
(``textDocument/diagnostic``), no ``workspace/configuration``, UTF-16 positions, Markdown hover.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

from lsprotocol import types
from pygls.io_ import run_async
from pygls.lsp.client import LanguageClient


class _TimedReader:
    """Server stdout; remembers when the last message body finished arriving."""

    def __init__(self, stream: asyncio.StreamReader):
        self.stream = stream
        self.last = 0.0

    async def readline(self) -> bytes:
        return await self.stream.readline()

    async def readexactly(self, n: int) -> bytes:
        data = await self.stream.readexactly(n)
        self.last = time.perf_counter()
        return data


class _TimedWriter:
    """Server stdin; remembers when the last message was handed over."""

    def __init__(self, stream: asyncio.StreamWriter):
        self.stream = stream
        self.last = 0.0

    def write(self, data: bytes) -> None:
        self.last = time.perf_counter()
        self.stream.write(data)

    def close(self) -> None:
        self.stream.close()


@dataclass
class _Waiter:
    version: Optional[int]
    future: asyncio.Future


@dataclass
class Published:
    version: Optional[int]
    count: int
    arrived: float
    #: diagnostic code -> how many, e.g. to notice msport's MS002 (file not, or not fully, checked)
    codes: Dict[str, int] = field(default_factory=dict)


CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        synchronization=types.TextDocumentSyncClientCapabilities(did_save=False),
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True),
        hover=types.HoverClientCapabilities(content_format=[types.MarkupKind.Markdown, types.MarkupKind.PlainText]),
    ),
    general=types.GeneralClientCapabilities(position_encodings=[types.PositionEncodingKind.Utf16]),
)


def uri_of(path: Path) -> str:
    return path.resolve().as_uri()


@dataclass
class Session:
    """One running server process with a client attached."""

    name: str
    command: Sequence[str]
    root: Path
    log: Path
    env: Optional[Dict[str, str]] = None
    startup: float = 0.0
    client: LanguageClient = field(init=False)
    process: Optional[asyncio.subprocess.Process] = field(init=False, default=None)
    _waiters: Dict[str, List[_Waiter]] = field(init=False, default_factory=dict)
    published: Dict[str, Published] = field(init=False, default_factory=dict)

    async def start(self) -> float:
        """Spawn the server and initialize it; returns seconds from spawn to the initialize response."""
        self.client = LanguageClient("msport-bench", "1")
        # pygls tags handlers with attributes, which bound methods cannot take: wrap them.
        self.client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)(lambda params: self._on_diagnostics(params))
        for method in (types.WINDOW_LOG_MESSAGE, types.WINDOW_SHOW_MESSAGE):
            self.client.feature(method)(lambda params: None)
        self.log.parent.mkdir(parents=True, exist_ok=True)
        log = open(self.log, "ab")
        started = time.perf_counter()
        self.process = await asyncio.create_subprocess_exec(
            *self.command,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=log,  # a server that logs a lot must never block on a full stderr pipe
            env=self.env,
            cwd=str(self.root),
        )
        log.close()
        self.reader = _TimedReader(self.process.stdout)
        self.writer = _TimedWriter(self.process.stdin)
        self.client.protocol.set_writer(self.writer)
        # ruff's initialize response has a notebook selector lsprotocol will not structure; the
        # bench reads no capability from it, so take the initialize result as plain JSON.
        typed = self.client.protocol.get_result_type
        self.client.protocol.get_result_type = lambda method: None if method == types.INITIALIZE else typed(method)
        self._loop_task = asyncio.create_task(
            run_async(stop_event=self.client._stop_event, reader=self.reader, protocol=self.client.protocol)
        )
        params = types.InitializeParams(
            capabilities=CAPABILITIES,
            process_id=os.getpid(),
            root_uri=uri_of(self.root),
            workspace_folders=[types.WorkspaceFolder(uri=uri_of(self.root), name=self.root.name)],
        )
        await asyncio.wait_for(self.client.initialize_async(params), timeout=60)
        self.startup = self.reader.last - started
        self.client.initialized(types.InitializedParams())
        return self.startup

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    def _on_diagnostics(self, params: types.PublishDiagnosticsParams) -> None:
        arrived = self.reader.last
        codes = dict(Counter(str(d.code) for d in params.diagnostics))
        published = Published(params.version, len(params.diagnostics), arrived, codes)
        self.published[params.uri] = published
        waiters = self._waiters.get(params.uri, [])
        for waiter in list(waiters):
            # A server that does not echo versions: the first publication after the change counts.
            if params.version is None or waiter.version is None or params.version == waiter.version:
                if not waiter.future.done():
                    waiter.future.set_result(published)
                waiters.remove(waiter)

    def expect(self, uri: str, version: Optional[int]) -> asyncio.Future:
        future = asyncio.get_running_loop().create_future()
        self._waiters.setdefault(uri, []).append(_Waiter(version, future))
        return future

    async def open(self, uri: str, text: str, version: int = 1, timeout: float = 120) -> Published:
        """didOpen; wait for that version's diagnostics. Returns them with latency in ``arrived``."""
        future = self.expect(uri, version)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text))
        )
        sent = self.writer.last
        published = await asyncio.wait_for(future, timeout)
        return Published(published.version, published.count, published.arrived - sent, published.codes)

    def open_nowait(self, uri: str, text: str, version: int = 1) -> asyncio.Future:
        future = self.expect(uri, version)
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text))
        )
        return future

    async def insert(self, uri: str, version: int, line: int, character: int, text: str, timeout: float = 60) -> Published:
        """One incremental change (an insertion at a point); wait for that version's diagnostics."""
        future = self.expect(uri, version)
        position = types.Position(line=line, character=character)
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangePartial(range=types.Range(start=position, end=position), text=text)],
            )
        )
        sent = self.writer.last
        published = await asyncio.wait_for(future, timeout)
        return Published(published.version, published.count, published.arrived - sent, published.codes)

    async def hover(self, uri: str, line: int, character: int) -> tuple:
        """(seconds, hover result or None)."""
        # send_request_async writes at once; text_document_hover_async is a coroutine that
        # writes only when awaited, so `writer.last` would be the previous message's time.
        request = self.client.protocol.send_request_async(
            types.TEXT_DOCUMENT_HOVER,
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character)),
        )
        sent = self.writer.last
        result = await asyncio.wait_for(request, 30)
        return self.reader.last - sent, result

    def close(self, uri: str) -> None:
        self._waiters.pop(uri, None)
        self.client.text_document_did_close(types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=uri)))

    def cpu_seconds(self) -> float:
        """CPU time the server has used so far, all threads, from /proc (nanosecond resolution).

        Latency is wall time and suffers when other work shares the machine; the CPU a server
        spent on one request does not, so both are reported.
        """
        total = 0
        for task in os.listdir(f"/proc/{self.pid}/task"):
            try:
                with open(f"/proc/{self.pid}/task/{task}/schedstat") as stat:
                    total += int(stat.read().split()[0])
            except (FileNotFoundError, ProcessLookupError, ValueError, IndexError):
                pass  # a thread that ended meanwhile
        return total / 1e9

    def memory(self) -> Dict[str, int]:
        """VmRSS and VmHWM (peak) of the server process, in bytes, from /proc."""
        values: Dict[str, int] = {}
        with open(f"/proc/{self.pid}/status") as status:
            for line in status:
                key, _, rest = line.partition(":")
                if key in ("VmRSS", "VmHWM"):
                    values[key] = int(rest.split()[0]) * 1024
        return values

    async def stop(self) -> None:
        if self.process is None:
            return
        try:
            await asyncio.wait_for(self.client.shutdown_async(None), timeout=10)
            self.client.exit(None)
            await asyncio.wait_for(self.process.wait(), timeout=10)
        except (asyncio.TimeoutError, RuntimeError, ConnectionError, BrokenPipeError):
            pass
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
            self.client._stop_event.set()
            self._loop_task.cancel()
            try:
                await self._loop_task
            except (asyncio.CancelledError, Exception):
                pass
