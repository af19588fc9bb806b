"""Random incremental edit sequences through a real LSP client: after each sequence the
server's copy of the text equals the client's, and its findings equal a fresh analysis."""

import itertools
import os
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .lspclient import RawClient

EXAMPLES = int(os.environ.get("MSPORT_SYNC_EXAMPLES", "60"))
BREAK = re.compile(r"\r\n|\r|\n")
SEED_TEXT = (
    "import torch\r\n"
    "import torch.nn as nn\n"
    "# 中文注释 🚀 émoji\n"
    "class Net(nn.Module):\n"
    "\tdef forward(self, x):\n"
    "\t\treturn torch.cat([x, x], 1).size(0)\r"
    "y = torch.flatten(z)  # noqa: MS102\n"
)
PIECES = ["", "\n", "\r\n", "x", "torch.cat(", ")", "中文", "🚀", "é", "  ", "\t", "def f(:\n", "import torch as T\n", "T.flatten(a)\n", "\n\n", '"""', "nn.GELU()"]


def utf16_position(text: str, offset: int):
    """(line, UTF-16 character) of a code-point offset, lines broken only at CR, LF, CRLF."""
    line, start = 0, 0
    for match in BREAK.finditer(text, 0, offset):
        if match.end() > offset:
            break
        line, start = line + 1, match.end()
    return line, len(text[start:offset].encode("utf-16-le")) // 2


def valid_offset(text: str, offset: int) -> int:
    # A position cannot point between the CR and LF of one line break.
    if 0 < offset < len(text) and text[offset - 1] == "\r" and text[offset] == "\n":
        return offset - 1
    return offset


edit = st.tuples(st.floats(0, 1), st.floats(0, 1), st.lists(st.sampled_from(PIECES) | st.text(max_size=4), max_size=3).map("".join))


@pytest.fixture(scope="module")
def client():
    c = RawClient()
    yield c
    assert c.alive(), c.stderr_text()[-3000:]
    c.close()


def diag_key(diagnostics):
    return sorted((d["range"]["start"]["line"], d["range"]["start"]["character"], d["range"]["end"]["line"], d["range"]["end"]["character"], d["code"], d["message"]) for d in diagnostics)


counter = itertools.count()


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(edits=st.lists(edit, min_size=1, max_size=12), whole=st.booleans())
def test_random_incremental_edits(client, edits, whole):
    n = next(counter)
    uri = f"file:///tmp/msport_sync/doc{n}.py"
    text = SEED_TEXT
    client.open(uri, text)
    version = 1
    for a, b, new in edits:
        start = valid_offset(text, int(a * len(text)))
        end = valid_offset(text, int(b * len(text)))
        start, end = min(start, end), max(start, end)
        (sl, sc), (el, ec) = utf16_position(text, start), utf16_position(text, end)
        version += 1
        client.change(uri, version, [{"range": {"start": {"line": sl, "character": sc}, "end": {"line": el, "character": ec}}, "text": new}])
        text = text[:start] + new + text[end:]
    if whole:  # a full-text change in the middle of incremental ones
        version += 1
        text = text + "\nz = torch.cat(q)\n"
        client.change(uri, version, [{"text": text}])
    state = client.state(uri)
    assert state["version"] == version
    assert state["text"] == text
    got = client.wait_diagnostics(uri, version)
    fresh_uri = f"file:///tmp/msport_sync/fresh{n}.py"
    client.open(fresh_uri, text)
    fresh = client.wait_diagnostics(fresh_uri, 1)
    assert diag_key(got["diagnostics"]) == diag_key(fresh["diagnostics"])
    client.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    client.notify("textDocument/didClose", {"textDocument": {"uri": fresh_uri}})
