"""A minimal synchronous LSP client over stdio: asks the real msport server what it answers, so
the editor tests can check that each editor shows exactly that (hover text, capabilities)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional


class Server:
    def __init__(self, settings: Optional[Dict[str, Any]] = None, command: Optional[List[str]] = None):
        self.settings = settings or {}
        self.proc = subprocess.Popen(command or [sys.executable, "-m", "msport", "serve"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        self._id = 0

    def __enter__(self) -> "Server":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _send(self, message: Dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def _receive(self) -> Dict[str, Any]:
        length = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError("the server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.decode().partition(":")
            if name.lower() == "content-length":
                length = int(value)
        return json.loads(self.proc.stdout.read(length))

    def _until(self, done: Callable[[Dict[str, Any]], bool]) -> Dict[str, Any]:
        while True:
            message = self._receive()
            if message.get("method") == "workspace/configuration":
                items = message["params"]["items"]
                self._send({"jsonrpc": "2.0", "id": message["id"],
                            "result": [self.settings if i.get("section") == "msport" else None for i in items]})
            elif "id" in message and "method" in message:  # any other request: answer null
                self._send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif done(message):
                return message

    def request(self, method: str, params: Any) -> Any:
        self._id += 1
        ident = self._id
        self._send({"jsonrpc": "2.0", "id": ident, "method": method, "params": params})
        reply = self._until(lambda m: m.get("id") == ident and "method" not in m)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result")

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    def initialize(self, root: Path) -> Dict[str, Any]:
        result = self.request("initialize", {
            "processId": None,
            "rootUri": root.as_uri(),
            "capabilities": {"workspace": {"configuration": True}, "general": {"positionEncodings": ["utf-16"]}},
        })
        self.notify("initialized", {})
        return result

    def open(self, path: Path, text: str) -> List[Dict[str, Any]]:
        uri = path.as_uri()
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}})
        published = self._until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
        return published["params"]["diagnostics"]

    def hover(self, path: Path, line: int, character: int) -> Optional[str]:
        result = self.request("textDocument/hover", {"textDocument": {"uri": path.as_uri()},
                                                     "position": {"line": line, "character": character}})
        return result["contents"]["value"] if result else None

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.request("shutdown", None)
                self.notify("exit", None)
                self.proc.wait(timeout=5)
            except (RuntimeError, OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()


def hover_of(path: Path, text: str, line: int, character: int, settings: Optional[Dict[str, Any]] = None) -> Optional[str]:
    """The server's hover at a UTF-16 position of *text* (saved as *path*) under *settings*."""
    path.write_text(text, encoding="utf-8")
    with Server(settings) as server:
        server.initialize(path.parent)
        server.open(path, text)
        return server.hover(path, line, character)


def capabilities(root: Path) -> Dict[str, Any]:
    with Server() as server:
        return server.initialize(root)["capabilities"]
