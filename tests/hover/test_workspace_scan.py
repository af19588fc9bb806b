"""The editor's workspace scan: `msport.scanWorkspace` with $/progress for push clients, and
workspace/diagnostic for pull clients, over files that are not open."""

import asyncio
import os
import textwrap

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import msport_server

SERVER = msport_server()


def make_workspace(root):
    (root / "sub").mkdir()
    (root / ".venv").mkdir()
    (root / "model.py").write_text("import torch\n\ndef f(x):\n    return torch.flatten(x)\n")
    (root / "sub" / "infer.py").write_text(textwrap.dedent("""\
        import torch

        def run(model, x):
            with torch.no_grad():
                return model(x)
        """))
    (root / "clean.py").write_text("def add(a, b):\n    return a + b\n")
    (root / "opened.py").write_text("import torch\ny = torch.flatten(x)\n")
    (root / ".venv" / "vendored.py").write_text("import torch\ny = torch.flatten(x)\n")
    os.symlink(root / "gone.py", root / "broken.py")  # listed, unreadable: must not stop the scan
    return root


async def start(client, spec, root, refresh=False):
    caps = client_capabilities(spec)
    if refresh:
        caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    result = await client.initialize_session(
        types.InitializeParams(capabilities=caps, root_uri=root.as_uri(), workspace_folders=[types.WorkspaceFolder(uri=root.as_uri(), name="ws")])
    )
    # The project index is built in the background; once it is, what it learnt may change
    # findings and wake held pulls. These tests are about the scan: start from a built index.
    await project_ready(client)
    return result.capabilities


async def project_ready(client):
    for _ in range(600):
        state = await client.protocol.send_request_async("msport/projectState", {})
        if (state["ready"] if isinstance(state, dict) else state.ready):  # pygls hands a dict over as an object
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the project index was not built in 30 s")


def open_doc(client, path):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=path.read_text()))
    )


async def scan(client):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="msport.scanWorkspace"))


@pytest_lsp.fixture(config=SERVER)
async def vscode(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def neovim(lsp_client: LanguageClient):
    yield lsp_client
    await lsp_client.shutdown_session()


def codes(diagnostics):
    return sorted(str(d.code) for d in diagnostics)


async def test_scan_command_publishes_files_not_open_with_progress(vscode, tmp_path):
    root = make_workspace(tmp_path)
    server = await start(vscode, "visual-studio-code", root)
    assert "msport.scanWorkspace" in server.execute_command_provider.commands
    open_doc(vscode, root / "opened.py")
    summary = await scan(vscode)
    assert summary["files"] == 5 and summary["openSkipped"] == 1  # .venv is never scanned
    assert len(summary["errors"]) == 1 and "broken.py" in summary["errors"][0]
    model, infer, clean = ((root / p).as_uri() for p in ("model.py", "sub/infer.py", "clean.py"))
    assert codes(vscode.diagnostics[model]) and all(c.startswith("MS1") for c in codes(vscode.diagnostics[model]))
    assert "MS101" in codes(vscode.diagnostics[infer])
    assert len(vscode.diagnostics[clean]) == 0
    assert (root / ".venv" / "vendored.py").as_uri() not in vscode.diagnostics
    assert summary["findings"] == len(vscode.diagnostics[model]) + len(vscode.diagnostics[infer])
    # $/progress: begin, reports with percentages, end with the summary.
    (token, reports), = vscode.progress_reports.items()
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and "workspace" in reports[0].title
    assert isinstance(reports[-1], types.WorkDoneProgressEnd) and f"{summary['findings']} finding" in reports[-1].message
    assert all(0 <= r.percentage <= 100 for r in reports[1:-1])
    # A file deleted since: its findings are withdrawn on the next scan.
    (root / "sub" / "infer.py").unlink()
    (root / "model.py").write_text("x = 1\n")
    again = await scan(vscode)
    assert again["files"] == 4
    assert len(vscode.diagnostics[infer]) == 0 and len(vscode.diagnostics[model]) == 0


async def test_workspace_diagnostics_for_pull_clients(neovim, tmp_path):
    root = make_workspace(tmp_path)
    server = await start(neovim, "neovim@v0.11.0", root)
    assert server.diagnostic_provider.workspace_diagnostics is True
    open_doc(neovim, root / "opened.py")
    report = await neovim.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    items = {item.uri: item for item in report.items}
    model, infer, clean = ((root / p).as_uri() for p in ("model.py", "sub/infer.py", "clean.py"))
    assert (root / "opened.py").as_uri() not in items  # open files are pulled per document
    assert all(item.kind == "full" for item in items.values())
    assert "MS101" in codes(items[infer].items) and items[model].items and len(items[clean].items) == 0
    # Unchanged files are reported as unchanged against the previous result ids.
    # Clients re-pull every few seconds: no progress unless the client asks with a token.
    assert neovim.progress_reports == {}
    previous = [types.PreviousResultId(uri=i.uri, value=i.result_id) for i in report.items]
    (root / "clean.py").write_text("import torch\nz = torch.flatten(a)\n")
    neovim.progress_reports["pull-1"] = []  # a client-chosen token (pytest-lsp only knows created ones)
    second = await neovim.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=previous, work_done_token="pull-1"))
    reports = neovim.progress_reports["pull-1"]
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and isinstance(reports[-1], types.WorkDoneProgressEnd)
    kinds = {item.uri: item.kind for item in second.items}
    assert kinds[model] == "unchanged" and kinds[infer] == "unchanged" and kinds[clean] == "full"
    assert codes(next(i for i in second.items if i.uri == clean).items)
    # Pull clients are never pushed to.
    assert neovim.diagnostics == {}


async def test_a_pull_with_nothing_new_is_held_until_a_file_changes(neovim, tmp_path):
    """Clients re-pull as soon as a pull is answered: with nothing new, the server holds the
    pull (no re-scan every two seconds) and answers when a watched file changes or goes."""
    root = make_workspace(tmp_path)
    await start(neovim, "neovim@v0.11.0", root)
    first = await neovim.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    clean, infer = (root / "clean.py").as_uri(), (root / "sub" / "infer.py").as_uri()

    def pull(report):
        previous = [types.PreviousResultId(uri=i.uri, value=i.result_id) for i in report.items if i.result_id]
        return asyncio.ensure_future(neovim.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=previous)))

    def changed(path, kind):
        neovim.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(uri=path.as_uri(), type=kind)]))

    held = pull(first)
    await asyncio.sleep(1.0)
    assert not held.done()  # every file unchanged: nothing to answer yet
    (root / "clean.py").write_text("import torch\nz = torch.flatten(a)\n")
    changed(root / "clean.py", types.FileChangeType.Changed)
    second = await asyncio.wait_for(held, timeout=120)
    full = {i.uri: i for i in second.items if i.kind == "full"}
    assert list(full) == [clean] and codes(full[clean].items)

    held = pull(second)
    (root / "sub" / "infer.py").unlink()
    changed(root / "sub" / "infer.py", types.FileChangeType.Deleted)
    third = await asyncio.wait_for(held, timeout=120)
    full = {i.uri: i for i in third.items if i.kind == "full"}
    assert list(full) == [infer] and list(full[infer].items) == []  # the client clears what it showed
    assert infer in {i.uri for i in second.items}


async def test_scan_command_asks_refreshing_pull_clients_to_pull(neovim, tmp_path):
    root = make_workspace(tmp_path)
    await start(neovim, "neovim@v0.11.0", root, refresh=True)
    summary = await scan(neovim)
    assert summary["files"] == 5 and summary["findings"] > 0
    assert neovim.diagnostic_refresh_count == 1 and neovim.diagnostics == {}
