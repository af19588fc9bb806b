"""A small synchronous LSP client over stdio, for tests that send traffic a polite client
never would (malformed JSON, bad params) and for long edit sequences driven by hypothesis."""

from __future__ import annotations

import itertools
import json
import os
import queue
import subprocess
import sys
import threading
import time
from typing import Any, Dict, List, Optional


class RawClient:
    def __init__(self, capabilities: Optional[dict] = None, initialization_options: Any = None, command: Optional[List[str]] = None,
                 cwd: Optional[str] = None, root_uri: Optional[str] = None, env: Optional[Dict[str, str]] = None, initialize: bool = True):
        self.proc = subprocess.Popen(
            command or [sys.executable, "-m", "msport", "serve"],
            cwd=cwd,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._ids = itertools.count(1)
        self._responses: Dict[Any, queue.Queue] = {}
        self.notifications: "queue.Queue[dict]" = queue.Queue()
        self.diagnostics: Dict[str, dict] = {}
        self._lock = threading.Lock()
        self._diag_cv = threading.Condition()
        self._reader = threading.Thread(target=self._read_loop, daemon=True)
        self._reader.start()
        self._stderr: List[bytes] = []
        threading.Thread(target=lambda: self._stderr.extend(self.proc.stderr), daemon=True).start()
        if initialize:
            self.initialize(capabilities, initialization_options, root_uri)

    def initialize(self, capabilities: Optional[dict] = None, initialization_options: Any = None, root_uri: Optional[str] = None) -> None:
        params = {"processId": os.getpid(), "capabilities": capabilities or {}, "initializationOptions": initialization_options}
        if root_uri:
            params["rootUri"] = root_uri
            params["workspaceFolders"] = [{"uri": root_uri, "name": "workspace"}]
        self.initialize_result = self.request("initialize", params)
        self.notify("initialized", {})

    # -- framing ---------------------------------------------------------------------
    def send_raw(self, body: bytes) -> None:
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.proc.stdin.flush()

    def send(self, message: dict) -> None:
        self.send_raw(json.dumps(message).encode("utf-8"))

    def _read_loop(self) -> None:
        stream = self.proc.stdout
        while True:
            length = None
            while True:
                line = stream.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            message = json.loads(stream.read(length))
            if "id" in message and "method" not in message:
                self._responses.setdefault(message["id"], queue.Queue()).put(message)
            elif "id" in message:  # a request from the server: answer it
                self._answer(message)
            else:
                if message.get("method") == "textDocument/publishDiagnostics":
                    with self._diag_cv:
                        self.diagnostics[message["params"]["uri"]] = message["params"]
                        self._diag_cv.notify_all()
                self.notifications.put(message)

    def _answer(self, message: dict) -> None:
        result = None
        if message["method"] == "workspace/configuration":
            result = [self.configuration for _ in message["params"]["items"]]
        self.send({"jsonrpc": "2.0", "id": message["id"], "result": result})

    configuration: dict = {}

    # -- calls -----------------------------------------------------------------------
    def request(self, method: str, params: Any, timeout: float = 30) -> dict:
        msg_id = next(self._ids)
        box = self._responses.setdefault(msg_id, queue.Queue())
        self.send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        return self.wait_response(msg_id, timeout, box)

    def wait_response(self, msg_id: Any, timeout: float = 30, box: Optional[queue.Queue] = None) -> dict:
        box = box or self._responses.setdefault(msg_id, queue.Queue())
        return box.get(timeout=timeout)

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def wait_diagnostics(self, uri: str, version: Optional[int], timeout: float = 30) -> dict:
        deadline = time.monotonic() + timeout
        with self._diag_cv:
            while True:
                got = self.diagnostics.get(uri)
                if got is not None and (version is None or got.get("version") == version):
                    return got
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"no diagnostics for {uri} version {version}; last: {got and got.get('version')}")
                self._diag_cv.wait(left)

    # -- documents -------------------------------------------------------------------
    def open(self, uri: str, text: str, version: int = 1) -> None:
        self.notify("textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": "python", "version": version, "text": text}})

    def change(self, uri: str, version: int, changes: List[dict]) -> None:
        self.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": changes})

    def state(self, uri: str) -> dict:
        return self.request("msport/documentState", {"uri": uri})["result"]

    def alive(self) -> bool:
        return self.proc.poll() is None

    def rss_mb(self) -> float:
        with open(f"/proc/{self.proc.pid}/status") as status:
            for line in status:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
        return 0.0

    def drain_notifications(self) -> List[dict]:
        """Every notification received so far (and not drained before)."""
        found = []
        while True:
            try:
                found.append(self.notifications.get_nowait())
            except queue.Empty:
                return found

    def stderr_text(self) -> str:
        return b"".join(self._stderr).decode("utf-8", "replace")

    def close(self) -> int:
        if self.alive():
            try:
                self.request("shutdown", None, timeout=10)
                self.notify("exit", None)
                return self.proc.wait(timeout=10)
            except Exception:
                self.proc.kill()
        return self.proc.wait()
