"""`msport serve --tcp`: loopback only, one client (a second connection never reads the first
client's documents), and a client that never reads cannot make the server grow without bound."""

import json
import re
import socket
import subprocess
import sys
import threading
import time

import pytest

SECRET = "import torch\nsecret_token_4711 = torch.cat(a)\n"
URI = "file:///tmp/msport_tcp/secret.py"


def send(sock, message: dict) -> None:
    body = json.dumps(message).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def read_message(stream) -> dict:
    length = None
    while True:
        line = stream.readline()
        if not line:
            raise EOFError("the server closed the connection")
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def start_server():
    """The server on a free loopback port (port 0: it says which one on stderr)."""
    proc = subprocess.Popen([sys.executable, "-m", "msport", "serve", "--tcp", "127.0.0.1:0"], stderr=subprocess.PIPE)
    line = proc.stderr.readline().decode()
    match = re.search(r"listening on 127\.0\.0\.1:(\d+) for one client", line)
    assert match, line
    return proc, int(match.group(1))


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def initialize(sock, stream):
    send(sock, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    assert read_message(stream)["id"] == 1
    send(sock, {"jsonrpc": "2.0", "method": "initialized", "params": {}})


@pytest.mark.parametrize("address", ["0.0.0.0:2087", "192.168.1.7:2087", "example.com:2087", "[::]:2087"])
def test_only_loopback_addresses(address):
    run = subprocess.run([sys.executable, "-m", "msport", "serve", "--tcp", address], capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and "is not a loopback address" in run.stderr and "Traceback" not in run.stderr


def test_a_second_client_is_refused_and_never_reads_the_first_ones_documents():
    proc, port = start_server()
    try:
        first = socket.create_connection(("127.0.0.1", port), timeout=30)
        stream = first.makefile("rb")
        initialize(first, stream)
        send(first, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": SECRET}}})
        while read_message(stream).get("method") != "textDocument/publishDiagnostics":
            pass
        leaked = b""
        try:
            second = socket.create_connection(("127.0.0.1", port), timeout=5)
        except ConnectionRefusedError:
            second = None  # the server no longer listens: the usual outcome
        if second is not None:  # connected in a race: it must be closed without an answer
            try:
                send(second, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
                send(second, {"jsonrpc": "2.0", "id": 2, "method": "msport/documentState", "params": {"uri": URI}})
                while True:
                    data = second.recv(65536)
                    if not data:
                        break
                    leaked += data
            except OSError:
                pass
            second.close()
        assert b"secret_token_4711" not in leaked and leaked == b""
        # The first client is still served.
        send(first, {"jsonrpc": "2.0", "id": 3, "method": "msport/documentState", "params": {"uri": URI}})
        assert read_message(stream)["result"]["text"] == SECRET
        send(first, {"jsonrpc": "2.0", "id": 4, "method": "shutdown"})
        assert read_message(stream)["id"] == 4
        send(first, {"jsonrpc": "2.0", "method": "exit"})
        assert proc.wait(timeout=30) == 0
        first.close()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_a_client_that_never_reads_cannot_grow_the_server():
    """The client asks for a 2.7 MB document again and again and never reads an answer (before,
    the server grew by ~100 MB a second: 1.6 GB in 15 s). msport stops reading from it while
    1 MB of output waits, and drops it past 64 MB: its sends fail, the server stays small."""
    proc, port = start_server()
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    peak = [0.0]
    sampling = True

    def sample():
        while sampling and proc.poll() is None:
            try:
                peak[0] = max(peak[0], rss_mb(proc.pid))
            except OSError:
                return
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    try:
        stream = sock.makefile("rb")
        initialize(sock, stream)
        text = "import torch\n" + "".join(f"y{i} = torch.cat(a{i})  # {'x' * 60}\n" for i in range(30000))
        send(sock, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": URI, "languageId": "python", "version": 1, "text": text}}})
        sock.settimeout(10)
        stopped = False
        started = time.monotonic()
        try:
            while time.monotonic() - started < 30:
                send(sock, {"jsonrpc": "2.0", "id": 2, "method": "msport/documentState", "params": {"uri": URI}})
        except (socket.timeout, OSError):
            stopped = True  # the server stopped reading, or dropped the connection
        assert stopped, "every request went through for 30 s: the server kept reading a client that never reads"
        time.sleep(2)
    finally:
        sampling = False
        sampler.join()
        sock.close()
        if proc.poll() is None:
            proc.kill()
        proc.wait()
    assert peak[0] < 400, f"the server grew to {peak[0]:.0f} MB"
