"""Whole-program analysis in the language server: the project index is built in the background,
open documents are re-published when what other modules tell them changes, and an edit that
changes a helper's summary re-publishes (or has the client re-pull) the modules that use it."""

import asyncio
import shutil
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import msport_server

FIXTURE = Path(__file__).parent / "fixtures" / "detector"
STATIC_MATCH = '''def match(iou, threshold):
    return torch.topk(iou.flatten(), 5).indices[:, None]  # ok
'''


@pytest.fixture()
def workspace(tmp_path):
    root = tmp_path / "detector"
    shutil.copytree(FIXTURE, root)
    return root


async def initialize(client, spec, root, refresh=False):
    caps = client_capabilities(spec)
    if refresh:
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=root.as_uri(), workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="detector")]))


async def project_ready(client):
    for _ in range(1200):
        state = await client.protocol.send_request_async("msport/projectState", {})
        state = state if isinstance(state, dict) else state._asdict()
        if state["ready"]:
            return state
        await asyncio.sleep(0.05)
    raise AssertionError("the project index was not built in 60 s")


def open_doc(client, path):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=path.read_text())))


def replace_all(client, path, text, version):
    client.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=path.as_uri(), version=version),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))


async def wait_push(client, uri, predicate, timeout=60):
    async def loop():
        while not (uri in client.diagnostics and predicate(client.diagnostics[uri])):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[uri]

    return await asyncio.wait_for(loop(), timeout)


def gathers(diagnostics, severity=types.DiagnosticSeverity.Warning):
    """The MS205 findings (of *severity*; None: of any)."""
    return [d for d in diagnostics if d.code == "MS205" and (severity is None or d.severity == severity)]


@pytest_lsp.fixture(config=msport_server())
async def push_client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=msport_server())
async def pull_client(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_an_edited_helper_republishes_the_module_that_uses_it(push_client, workspace):
    await initialize(push_client, "visual-studio-code", workspace)
    loss, boxes = workspace / "detector" / "loss.py", workspace / "detector" / "utils" / "boxes.py"
    open_doc(push_client, loss)
    open_doc(push_client, boxes)
    state = await project_ready(push_client)
    assert state["modules"] == 8
    # Once the index knows that train.py's training step calls the loss, which calls match() in
    # boxes.py, the gather in loss.py is graph code (a warning), from a value made in boxes.py.
    (gather,) = gathers(await wait_push(push_client, loss.as_uri(), gathers))
    assert gather.range.start.line == 15 and "torch.nonzero(iou > threshold)" in gather.message
    await wait_push(push_client, boxes.as_uri(), lambda d: {x.code for x in d} >= {"MS201", "MS202"}
                    and all(x.severity == types.DiagnosticSeverity.Warning for x in d if x.code.startswith("MS2")))
    # match() now returns a fixed number of indices: loss.py, which was not edited, is re-published.
    text = boxes.read_text()
    start = text.index("def match(")
    replace_all(push_client, boxes, text[:start] + STATIC_MATCH, 2)
    diagnostics = await wait_push(push_client, loss.as_uri(), lambda d: not gathers(d, None))
    assert "MS210" in {d.code for d in diagnostics}  # what does not depend on match() stays
    # And back: the dependant follows again.
    replace_all(push_client, boxes, text, 3)
    await wait_push(push_client, loss.as_uri(), gathers)


async def test_a_pull_client_is_asked_to_pull_again_when_the_index_changes_a_document(pull_client, workspace):
    await initialize(pull_client, "neovim@v0.11.0", workspace, refresh=True)
    loss, boxes = workspace / "detector" / "loss.py", workspace / "detector" / "utils" / "boxes.py"
    open_doc(pull_client, loss)
    open_doc(pull_client, boxes)
    await project_ready(pull_client)

    async def pulled(uri):
        report = await pull_client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri)))
        return report.items

    for _ in range(200):
        if gathers(await pulled(loss.as_uri())):
            break
        await asyncio.sleep(0.1)
    assert gathers(await pulled(loss.as_uri()))
    before = pull_client.diagnostic_refresh_count
    text = boxes.read_text()
    replace_all(pull_client, boxes, text[:text.index("def match(")] + STATIC_MATCH, 2)
    await pulled(boxes.as_uri())  # the edited document, as the editor pulls it after a change
    for _ in range(200):
        if pull_client.diagnostic_refresh_count > before:
            break
        await asyncio.sleep(0.05)
    assert pull_client.diagnostic_refresh_count > before
    assert not gathers(await pulled(loss.as_uri()), None)
