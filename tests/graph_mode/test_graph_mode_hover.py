"""Hover on a flagged construct, through a real LSP client against `python -m msport serve`:
the card is the rule page's: what was found here, why the compiler refuses it, code that
compiles instead, and the link to the page."""

from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import msport_server

from msport.analysis import analyze
from msport.knowledge import default_knowledge

CORPUS = Path(__file__).resolve().parent / "corpus"


@pytest_lsp.fixture(config=msport_server())
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=CORPUS.as_uri())
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_every_graph_mode_finding_explains_itself_on_hover(client):
    knowledge = default_knowledge()
    path = CORPUS / "mindspore_cells.py"
    text = path.read_text()
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)))
    codes = set()
    for finding in analyze(text, path=str(path)).findings:
        if not finding.code.startswith("MS4"):
            continue
        result = await client.text_document_hover_async(types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()),
            position=types.Position(line=finding.span.start_line, character=finding.span.start_col + 1)))
        assert result is not None, (finding.code, finding.span)
        card = result.contents.value
        info = knowledge.codes[finding.code]
        assert f"**{finding.code} {info.name}**" in card
        assert finding.message.split(".")[0] in card
        # The why is left out first when the hover is cut; msport explain prints it.
        assert info.why.split(".")[0] in card or f"msport explain {finding.code}" in card
        assert "**Example that compiles:**" in card and info.use_instead.split("\n")[0] in card
        assert f"docs/rules/{finding.code}.md" in card
        codes.add(finding.code)
    assert len(codes) >= 12
