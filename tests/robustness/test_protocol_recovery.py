"""A protocol layer that recovers: wrong Content-Length values (too long, too short, absurd)
are resynchronised or close the connection with a logged error, never leave the server deaf;
requests before initialize get -32002; the exit status follows LSP (0 after shutdown, 1
otherwise); a version number that does not increase is still new text."""

import json
import subprocess
import sys

import pytest

from .lspclient import RawClient

URI = "file:///tmp/msport_frames/a.py"
TEXT = "import torch\nx = torch.cat(a)\n"


def frame(message: dict, declared_extra: int = 0) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % (len(body) + declared_extra) + body


def hover(msg_id):
    return {"jsonrpc": "2.0", "id": msg_id, "method": "textDocument/hover",
            "params": {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 11}}}


@pytest.fixture()
def client():
    c = RawClient()
    c.open(URI, TEXT)
    c.wait_diagnostics(URI, 1)
    yield c
    c.close()


def answered(client, msg_id, timeout=30):
    reply = client.wait_response(msg_id, timeout)
    assert "torch.cat" in reply["result"]["contents"]["value"], reply
    return reply


def still_serving(client):
    reply = client.request("textDocument/hover", hover(0)["params"])
    assert "torch.cat" in reply["result"]["contents"]["value"], reply


def test_content_length_too_long_with_more_messages_behind_it(client):
    """The body swallows the next messages' bytes: the first JSON value is taken, the rest is read
    again; all three requests are answered."""
    client.proc.stdin.write(frame(hover(101), declared_extra=40) + frame(hover(102)) + frame(hover(103)))
    client.proc.stdin.flush()
    for msg_id in (101, 102, 103):
        answered(client, msg_id)
    assert "broken frame: Content-Length said" in client.stderr_text()


def test_content_length_too_long_and_nothing_after_it(client):
    """The rest never comes: after a pause the message is taken as it is (the server used to wait
    for ever, deaf to everything after)."""
    client.proc.stdin.write(frame(hover(201), declared_extra=500))
    client.proc.stdin.flush()
    answered(client, 201)
    still_serving(client)


def test_content_length_too_short(client):
    """The body is cut: a parse error (-32700) for it, and the tail is skipped up to the next header."""
    client.proc.stdin.write(frame(hover(301), declared_extra=-25) + frame(hover(302)))
    client.proc.stdin.flush()
    assert client.wait_response(None)["error"]["code"] == -32700
    answered(client, 302)
    assert "broken frame: skipped" in client.stderr_text()


def test_garbage_between_messages(client):
    client.proc.stdin.write(b"this is not a header\r\n\x00\xff garbage" + frame(hover(401)))
    client.proc.stdin.flush()
    answered(client, 401)


def test_an_absurd_content_length_closes_the_connection():
    client = RawClient()
    client.proc.stdin.write(b"Content-Length: 99999999999\r\n\r\n{}")
    client.proc.stdin.flush()
    assert client.proc.wait(timeout=30) == 1  # no shutdown was asked for
    assert "closing the connection: a message of 99999999999 bytes" in client.stderr_text()


def test_requests_before_initialize_get_32002():
    client = RawClient(initialize=False)
    try:
        client.open(URI, TEXT)  # a notification before initialize: ignored
        reply = client.request("textDocument/hover", hover(0)["params"])
        assert reply["error"]["code"] == -32002 and "initialize" in reply["error"]["message"]
        client.initialize()
        reply = client.request("textDocument/hover", hover(0)["params"])
        assert reply["error"]["code"] == -32602 and "is not open" in reply["error"]["message"]  # the early didOpen was dropped
        client.open(URI, TEXT)
        client.wait_diagnostics(URI, 1)
        still_serving(client)
    finally:
        assert client.close() == 0


def test_exit_without_shutdown_is_status_1():
    client = RawClient()
    client.notify("exit", None)
    assert client.proc.wait(timeout=30) == 1


def test_client_gone_without_shutdown_is_status_1():
    client = RawClient()
    client.proc.stdin.close()
    assert client.proc.wait(timeout=30) == 1


def test_shutdown_then_exit_is_status_0(client):
    assert client.close() == 0


def test_a_version_that_does_not_increase_is_still_new_text():
    """The client sends version 1 twice (and then a lower one): each is analysed as the text it is."""
    client = RawClient(capabilities={"textDocument": {"diagnostic": {}}})  # pull: ask for the current text's findings
    try:
        client.open(URI, TEXT, version=5)
        pull = lambda: [d["code"] for d in client.request("textDocument/diagnostic", {"textDocument": {"uri": URI}})["result"]["items"]]  # noqa: E731
        assert pull() == ["MS103"]
        client.change(URI, 5, [{"text": "x = 1\n"}])
        assert pull() == []
        client.change(URI, 3, [{"text": TEXT + "y = torch.cat(b)\n"}])
        assert pull() == ["MS103", "MS103"]
    finally:
        client.close()


def test_a_stdin_that_is_a_file_with_broken_frames(tmp_path):
    """The thread reader (a file, a terminal) goes through the same recovery."""
    init = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}}
    shutdown = {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}
    script = tmp_path / "messages"
    script.write_bytes(frame(init, declared_extra=10) + frame(shutdown) + frame({"jsonrpc": "2.0", "method": "exit"}))
    with open(script, "rb") as stdin:
        run = subprocess.run([sys.executable, "-m", "msport", "serve"], stdin=stdin, capture_output=True, timeout=60)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert b'"id": 2' in run.stdout or b'"id":2' in run.stdout
