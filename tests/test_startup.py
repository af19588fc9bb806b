"""Start-up of `python -m msport serve`: what answering `initialize` imports, that everything
left out is loaded after `initialized` (a hover right away works), and the stdio transport
(pipes read on the event loop; sockets too; anything else through pygls' own reader).

How long start-up takes is measured in bench/, never asserted here."""

import asyncio
import json
import os
import socket
import subprocess
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import msport_server

SERVER = msport_server()
URI = "file:///tmp/msport_startup_test/model.py"
TEXT = "import torch\n\n\ndef f(x):\n    return torch.cat([x, x], 1)\n"

#: Nothing of these may be imported to answer `initialize`: the frameworks and jedi never (the
#: frameworks are never imported by msport at all), the analysis engine and rules until later.
HEAVY = ("torch", "mindspore", "jedi", "parso", "numpy", "jsonschema", "msport.analysis", "msport.knowledge", "msport.report")


def heavy(modules):
    return sorted(m for m in modules if any(m == h or m.startswith(h + ".") for h in HEAVY))


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_initialize_imports_nothing_heavy_and_hover_works_right_after(client: LanguageClient):
    caps = client.capabilities = client_capabilities("visual-studio-code")  # as initialize_session does
    result = await client.initialize_async(types.InitializeParams(capabilities=caps, root_uri="file:///tmp/msport_startup_test"))
    assert result.capabilities.hover_provider
    before = await client.protocol.send_request_async("msport/loadedModules", {})
    assert "lsprotocol.types" in before and "msport.lsp.server" in before  # the probe sees imports
    assert heavy(before) == []

    client.initialized(types.InitializedParams())
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=URI, language_id="python", version=1, text=TEXT))
    )
    # No waiting for diagnostics: the hover waits for what the server still has to load.
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=4, character=18))
        ),
        timeout=60,
    )
    assert hover is not None and "**`torch.cat`**" in hover.contents.value
    after = await client.protocol.send_request_async("msport/loadedModules", {})
    assert {"msport.analysis.engine", "msport.knowledge.index", "msport.knowledge.api_history"} <= set(after)
    assert not {"torch", "mindspore", "jedi"} & set(after)  # a torch name needs no jedi


# -- the stdio transport -------------------------------------------------------------------
def frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


INITIALIZE = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"processId": None, "capabilities": {}}}
SHUTDOWN = {"jsonrpc": "2.0", "id": 2, "method": "shutdown"}
EXIT = {"jsonrpc": "2.0", "method": "exit"}


def responses(data: bytes) -> dict:
    """id -> response, from a server's whole stdout."""
    found = {}
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        length = next(int(line.split(b":")[1]) for line in header.split(b"\r\n") if line.lower().startswith(b"content-length:"))
        message = json.loads(rest[:length])
        data = rest[length:]
        if "id" in message and "method" not in message:
            found[message["id"]] = message
    return found


def test_stdin_that_is_a_file_is_read_on_a_thread(tmp_path):
    """A regular file cannot be registered with the event loop: the server reads it on a
    thread and serves the whole conversation."""
    script = tmp_path / "messages"
    script.write_bytes(frame(INITIALIZE) + frame(SHUTDOWN) + frame(EXIT))
    with open(script, "rb") as stdin:
        run = subprocess.run([sys.executable, "-m", "msport", "serve"], stdin=stdin, capture_output=True, timeout=120)
    answers = responses(run.stdout)
    assert run.returncode == 0, run.stderr.decode()[-2000:]
    assert "hoverProvider" in answers[1]["result"]["capabilities"]
    assert answers[2]["result"] is None


def test_stdin_that_is_a_socket_is_read_on_the_event_loop():
    ours, theirs = socket.socketpair()
    with ours:
        process = subprocess.Popen([sys.executable, "-m", "msport", "serve"], stdin=theirs, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        theirs.close()
        ours.sendall(frame(INITIALIZE) + frame(SHUTDOWN) + frame(EXIT))
        out, err = process.communicate(timeout=120)
    answers = responses(out)
    assert process.returncode == 0, err.decode()[-2000:]
    assert "hoverProvider" in answers[1]["result"]["capabilities"] and answers[2]["result"] is None


def test_pipe_reader_survives_an_overlong_header_line_and_a_message_cut_short():
    """Header garbage longer than the reader keeps is skipped, not fatal; a client that closes
    stdin in the middle of a message ends the server cleanly (no traceback, no hang), with
    status 1 since it never asked for a shutdown (LSP)."""
    from msport.lsp.framing import MAX_HEADER_BYTES

    process = subprocess.Popen([sys.executable, "-m", "msport", "serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    overlong = b"X-Padding: " + b"a" * (MAX_HEADER_BYTES + 10) + b"\r\n"
    cut_short = b"Content-Length: 100\r\n\r\n{\"jsonrpc\""
    out, err = process.communicate(overlong + frame(INITIALIZE) + cut_short, timeout=120)
    answers = responses(out)
    assert "hoverProvider" in answers[1]["result"]["capabilities"]
    assert process.returncode == 1
    assert b"Traceback" not in err, err.decode()[-2000:]


def test_only_pipes_and_sockets_are_read_on_the_event_loop():
    """asyncio makes the descriptor it reads non-blocking: right for the pipe an editor made for
    its server, wrong for a terminal shared with the shell, which is read on a thread."""
    from msport.lsp.stdio import pipe_source

    async def probe(stream):
        reader = await pipe_source(stream)
        return reader is not None, os.get_blocking(stream.fileno())

    r, w = os.pipe()
    with os.fdopen(r, "rb", buffering=0) as pipe:
        assert asyncio.run(probe(pipe)) == (True, False)
    os.close(w)
    with open(os.devnull, "rb", buffering=0) as device:  # a character device, like a terminal
        assert asyncio.run(probe(device)) == (False, True)


def test_msport_as_a_program_spaces_out_the_collector_from_its_start():
    """Importing the server and loading the rules allocate ~10^5 objects that live as long as
    the process: `msport` run as a program spaces out the collector before any of it, instead
    of running full collections that free nothing. Called from Python (argv given), it leaves
    its host's collector alone."""
    from msport.gc_tuning import THRESHOLDS

    probe = (
        "import gc, sys\n"
        "default = gc.get_threshold()\n"
        "from msport.cli.main import main\n"
        "try:\n"
        "    main(['rules', '--no-such-flag'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "hosted = gc.get_threshold()\n"
        "sys.argv = ['msport', '--version']\n"
        "try:\n"
        "    main()\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(default == hosted, list(gc.get_threshold()))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    unchanged, thresholds = run.stdout.strip().splitlines()[-1].split(" ", 1)
    assert unchanged == "True"
    assert json.loads(thresholds) == list(THRESHOLDS)
