"""`msport serve --tcp HOST:PORT`: the same server over a socket."""

import json
import socket
import subprocess
import sys
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def read_message(stream) -> dict:
    length = None
    while True:
        line = stream.readline()
        assert line, "server closed the connection"
        if not line.strip():
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(stream.read(length))


def send(sock, message: dict) -> None:
    body = json.dumps(message).encode()
    sock.sendall(b"Content-Length: %d\r\n\r\n" % len(body) + body)


def test_serve_over_tcp():
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "msport", "serve", "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.PIPE)
    try:
        for _ in range(200):
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                time.sleep(0.1)
        else:
            raise AssertionError(proc.stderr.read().decode()[-2000:])
        stream = sock.makefile("rb")
        send(sock, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
        reply = read_message(stream)
        assert reply["id"] == 1 and reply["result"]["capabilities"]["hoverProvider"]
        send(sock, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
        uri = "file:///tmp/msport_tcp/m.py"
        send(sock, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": "import torch\ny = torch.cat(a)\n"}}})
        while True:
            message = read_message(stream)
            if message.get("method") == "textDocument/publishDiagnostics":
                break
        assert message["params"]["uri"] == uri
        assert [d["code"] for d in message["params"]["diagnostics"]] == ["MS103"]
        sock.close()
    finally:
        proc.kill()
        proc.wait()


def test_bad_tcp_address_is_a_usage_error():
    run = subprocess.run([sys.executable, "-m", "msport", "serve", "--tcp", "localhost"], capture_output=True, text=True)
    assert run.returncode == 2 and "HOST:PORT" in run.stderr
