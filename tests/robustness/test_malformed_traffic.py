"""Malformed traffic gets a JSON-RPC error, and the server keeps serving."""

import pytest

from .lspclient import RawClient

URI = "file:///tmp/msport_raw/a.py"


@pytest.fixture()
def client():
    c = RawClient()
    c.open(URI, "import torch\nx = torch.cat(a)\n")
    c.wait_diagnostics(URI, 1)
    yield c
    c.close()


def still_serving(client):
    hover = client.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 1, "character": 11}})
    assert "torch.cat" in hover["result"]["contents"]["value"]


def test_invalid_json_gets_a_parse_error(client):
    client.send_raw(b"{not json")
    reply = client.wait_response(None)
    assert reply["error"]["code"] == -32700
    still_serving(client)


def test_invalid_utf8_gets_a_parse_error(client):
    client.send_raw(b'{"jsonrpc": "2.0", "id": 99, "method": "\xff\xfe"}')
    reply = client.wait_response(None)
    assert reply["error"]["code"] == -32700
    still_serving(client)


def test_unknown_method(client):
    reply = client.request("msport/noSuchMethod", {})
    assert reply["error"]["code"] == -32601
    still_serving(client)


def test_bad_params_are_answered_not_dropped(client):
    reply = client.request("textDocument/hover", {"bad": 1})
    assert reply["error"]["code"] == -32602
    reply = client.request("textDocument/codeAction", {"textDocument": {"uri": URI}, "range": "everything"})
    assert reply["error"]["code"] == -32602
    still_serving(client)


def test_position_out_of_range(client):
    reply = client.request("textDocument/hover", {"textDocument": {"uri": URI}, "position": {"line": 99, "character": 3}})
    assert reply["error"]["code"] == -32602 and "outside" in reply["error"]["message"]
    still_serving(client)


def test_document_never_opened(client):
    other = "file:///tmp/msport_raw/never.py"
    for method, params in [
        ("textDocument/hover", {"textDocument": {"uri": other}, "position": {"line": 0, "character": 0}}),
        ("textDocument/codeAction", {"textDocument": {"uri": other}, "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}}, "context": {"diagnostics": []}}),
        ("textDocument/diagnostic", {"textDocument": {"uri": other}}),
    ]:
        reply = client.request(method, params)
        assert reply["error"]["code"] == -32602 and "is not open" in reply["error"]["message"], method
    # A change to a document never opened is a notification: ignored, and nothing breaks.
    client.change(other, 2, [{"text": "x = 1\n"}])
    still_serving(client)


def test_edit_out_of_range_clamps_to_the_end(client):
    client.change(URI, 2, [{"range": {"start": {"line": 50, "character": 0}, "end": {"line": 60, "character": 0}}, "text": "y = 2\n"}])
    client.wait_diagnostics(URI, 2)
    assert client.state(URI)["text"] == "import torch\nx = torch.cat(a)\ny = 2\n"
    still_serving(client)


def test_clean_shutdown(client):
    assert client.close() == 0
