"""The workspace's project index is built on the thread the open documents' analyses run on: it
summarises its files only while nobody types (ProjectService.after_typing), so a keystroke's
diagnostics never queue behind the summaries of a large workspace, and the index still
completes once typing pauses."""

import asyncio

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import msport_server
from .test_project_lsp import initialize, open_doc, project_ready, wait_push

FILES = 300  # each distinct: a summary is cached by statement text


def _module(index: int) -> str:
    return (
        "import torch\nimport torch.nn as nn\n\n\n"
        f"class Block{index}(nn.Module):\n"
        "    def __init__(self, channels):\n"
        "        super().__init__()\n"
        f"        self.conv = nn.Conv2d(channels, channels, {index % 5 + 1})\n\n"
        "    def forward(self, x):\n"
        "        y = self.conv(x)\n"
        f"        return y.view(y.size(0), -1) + {index}\n"
    )


@pytest_lsp.fixture(config=msport_server())
async def client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def _state(client):
    state = await client.protocol.send_request_async("msport/projectState", {})
    return state if isinstance(state, dict) else state._asdict()


async def test_the_index_waits_while_the_user_types_and_completes_after(client, tmp_path):
    root = tmp_path / "blocks"
    root.mkdir()
    for index in range(FILES):
        (root / f"block_{index}.py").write_text(_module(index))
    typed = root / "block_0.py"
    await initialize(client, "visual-studio-code", root)
    open_doc(client, typed)
    await wait_push(client, typed.as_uri(), lambda d: any(x.code == "MS102" for x in d))

    # Type one character every 50 ms for 3 s (an edit at the end of the last line), as a typist
    # does: without waiting for the diagnostics.
    lines = typed.read_text().split("\n")
    end_line, end_column = len(lines) - 2, len(lines[-2])
    before = None
    for version in range(2, 62):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=typed.as_uri(), version=version),
            content_changes=[types.TextDocumentContentChangePartial(
                range=types.Range(start=types.Position(end_line, end_column), end=types.Position(end_line, end_column)),
                text="1")]))
        end_column += 1
        await asyncio.sleep(0.05)
        if version == 12:  # the file being summarised when typing began is done by now
            before = await _state(client)
    during = await _state(client)
    assert not before["ready"], "the index finished before typing began: the workspace is too small to show anything"
    # One file may still finish if the event loop was held up past the pause (a loaded machine);
    # without the pause the index summarised a file between every two keystrokes.
    assert during["summarised"] - before["summarised"] <= 1, (before, during)

    state = await project_ready(client)
    assert state["modules"] == FILES
