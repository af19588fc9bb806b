"""End to end through a real LSP client (pytest-lsp) against `python -m msport serve`.

Two client profiles: VS Code 1.65 (push diagnostics, UTF-16 positions) and Neovim 0.11 (pull
diagnostics, UTF-8 positions: its spec lists utf-8 first)."""

import asyncio
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import EXAMPLES, msport_server, start

SERVER = msport_server()

TEXT = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "class Head(nn.Module):\n"
    "    def forward(self, x):\n"
    "        y = torch.cat([x, x], 1)  # 拼接两个张量 🚀 then\n"
    "        return y.size(0), nn.GELU()(y)\n"
)
URI = "file:///tmp/msport_lsp_test/model.py"


def open_doc(client, text=TEXT, uri=URI, version=1):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=version, text=text)
        )
    )


async def wait_push(client, uri, predicate, timeout=20):
    async def loop():
        while not (uri in client.diagnostics and predicate(client.diagnostics[uri])):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[uri]

    return await asyncio.wait_for(loop(), timeout)


async def pull(client, uri=URI):
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=uri))
    )
    return report.items


async def eventually(predicate, seconds=10):
    for _ in range(int(seconds / 0.05)):
        if predicate():
            return
        await asyncio.sleep(0.05)


def codes(diagnostics):
    return sorted(str(d.code) for d in diagnostics)


def apis(diagnostics):
    return sorted(d.data["torch_api"] for d in diagnostics)


async def test_push_diagnostics_after_open_and_incremental_edit(vscode: LanguageClient):
    open_doc(vscode)
    diags = await wait_push(vscode, URI, lambda d: len(d) > 0)
    assert {"torch.cat", "torch.nn.GELU"} <= set(apis(diags))
    assert all(d.source == "msport" and str(d.code).startswith("MS1") for d in diags)
    # Incremental edit: delete the `torch.cat` line's call by replacing `torch.cat` with `foo`.
    line = 5
    start = TEXT.split("\n")[line].index("torch.cat")
    vscode.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[
                types.TextDocumentContentChangePartial(
                    range=types.Range(start=types.Position(line=line, character=start), end=types.Position(line=line, character=start + 9)),
                    text="foo",
                )
            ],
        )
    )
    diags = await wait_push(vscode, URI, lambda d: "torch.cat" not in apis(d))
    assert "torch.nn.GELU" in apis(diags)


async def test_push_client_gets_no_pull_duplicates(vscode: LanguageClient):
    open_doc(vscode)
    await wait_push(vscode, URI, lambda d: len(d) > 0)
    # VS Code 1.65's spec has no pull support: it must only be pushed to.
    assert vscode.capabilities.text_document.diagnostic is None


async def test_utf16_positions_on_a_line_with_chinese_and_emoji(vscode: LanguageClient):
    text = "import torch\nx = 1  # 中文 🚀\ny = '🚀🚀'; z = torch.cat(a)\n"
    open_doc(vscode, text)
    diags = await wait_push(vscode, URI, lambda d: any(str(x.code) == "MS103" for x in d))
    cat = next(d for d in diags if str(d.code) == "MS103")
    line = text.split("\n")[2]
    cp = line.index("torch.cat")
    assert cat.range.start.line == 2
    # two astral characters before: UTF-16 columns are two units larger than code points
    assert cat.range.start.character == cp + 2
    assert cat.range.end.character == cp + 2 + len("torch.cat")


async def test_pull_diagnostics_after_open_and_edit(neovim: LanguageClient):
    open_doc(neovim)
    items = await pull(neovim)
    assert "torch.cat" in apis(items)
    # Pull clients are never pushed to.
    await asyncio.sleep(0.3)
    assert URI not in neovim.diagnostics
    neovim.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text="import torch\nx = torch.flatten(y)\n")],
        )
    )
    items = await pull(neovim)
    assert apis(items) == ["torch.flatten"]
    assert items[0].range.start.line == 1


async def test_configuration_change_republishes(vscode: LanguageClient):
    vscode.set_configuration({"targetVersion": "2.10", "ignore": []}, section="msport")
    open_doc(vscode)
    await wait_push(vscode, URI, lambda d: "MS103" in codes(d))
    vscode.set_configuration({"targetVersion": "2.10", "ignore": ["MS103"]}, section="msport")
    vscode.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    diags = await wait_push(vscode, URI, lambda d: "MS103" not in codes(d))
    assert "MS102" in codes(diags)


async def test_configuration_change_reaches_pull_clients(neovim: LanguageClient):
    open_doc(neovim)
    assert "MS103" in codes(await pull(neovim))
    neovim.set_configuration({"ignore": ["MS103"]}, section="msport")
    neovim.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    # Neovim 0.11 has no refresh support: its next pull must see the new settings.
    for _ in range(100):
        if "MS103" not in codes(await pull(neovim)):
            break
        await asyncio.sleep(0.05)
    assert "MS103" not in codes(await pull(neovim))
    assert neovim.diagnostic_refresh_count == 0


async def test_effective_settings_say_where_each_value_comes_from(neovim: LanguageClient):
    neovim.set_configuration({"ignore": ["MS103"]}, section="msport")
    neovim.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(100):  # the server re-reads the configuration asynchronously
        rows = {r["key"]: r for r in await neovim.protocol.send_request_async("msport/effectiveSettings", {"uri": URI})}
        if rows["ignore"]["value"] == '["MS103"]':
            break
        await asyncio.sleep(0.05)
    assert rows["ignore"] == {"key": "ignore", "value": '["MS103"]', "origin": "editor settings (msport.*)"}
    assert rows["target-version"] == {"key": "target-version", "value": '"2.10"', "origin": "default"}
    assert rows["language"] == {"key": "language", "value": '"en"', "origin": "default"}  # no locale sent
    assert len(rows) == 14


@pytest_lsp.fixture(config=SERVER)
async def refreshing(lsp_client: LanguageClient):
    caps = client_capabilities("neovim@v0.11.0")
    caps.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    await lsp_client.initialize_session(types.InitializeParams(capabilities=caps))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_configuration_change_asks_refreshing_clients_to_pull(refreshing: LanguageClient):
    open_doc(refreshing)
    assert "MS103" in codes(await pull(refreshing))
    refreshing.set_configuration({"ignore": ["MS103"]}, section="msport")
    refreshing.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(100):
        if refreshing.diagnostic_refresh_count:
            break
        await asyncio.sleep(0.05)
    assert refreshing.diagnostic_refresh_count == 1
    assert "MS103" not in codes(await pull(refreshing))


async def test_code_action_round_trip(vscode: LanguageClient):
    open_doc(vscode)
    diags = await wait_push(vscode, URI, lambda d: "MS103" in codes(d))
    cat = next(d for d in diags if str(d.code) == "MS103")
    actions = await vscode.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            range=cat.range,
            context=types.CodeActionContext(diagnostics=[cat]),
        )
    )
    target = cat.data["mindspore_api"]  # e.g. mindspore.mint.cat
    module, _, name = target.rpartition(".")
    parent, _, short = module.rpartition(".")
    fix = next(a for a in actions if target in a.title)
    assert fix.kind == types.CodeActionKind.QuickFix
    edits = fix.edit.changes[URI]
    new_texts = sorted(e.new_text for e in edits)
    assert new_texts == sorted([f"from {parent} import {short}\n", f"{short}.{name}"])
    applied = apply_edits(TEXT, edits)
    assert f"y = {short}.{name}([x, x], 1)" in applied
    assert applied.split("\n")[2] == f"from {parent} import {short}"
    compile(applied, "model.py", "exec")


def apply_edits(text, edits):
    """Apply LSP TextEdits (UTF-16 positions; ASCII here) bottom-up."""
    lines = text.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    ordered = sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True)
    for e in ordered:
        start = offsets[e.range.start.line] + e.range.start.character
        end = offsets[e.range.end.line] + e.range.end.character
        text = text[:start] + e.new_text + text[end:]
    return text


async def test_hover_round_trip(vscode: LanguageClient):
    open_doc(vscode)
    line = TEXT.split("\n")[6]
    hover = await vscode.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=URI),
            position=types.Position(line=6, character=line.index("GELU") + 1),
        )
    )
    assert hover is not None
    assert "torch.nn.GELU" in hover.contents.value and "mindspore.nn.GELU" in hover.contents.value
    assert "approximate=False" in hover.contents.value
    # A name that is not an API gives no hover.
    nothing = await vscode.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=5, character=8))
    )
    assert nothing is None


async def test_example_file_through_the_server(neovim: LanguageClient):
    text = (EXAMPLES / "resnet_block.py").read_text()
    uri = (EXAMPLES / "resnet_block.py").as_uri()
    open_doc(neovim, text, uri)
    items = await pull(neovim, uri)
    assert {"MS101", "MS102", "MS103"} <= set(codes(items))


async def test_utf8_positions_for_neovim(neovim: LanguageClient):
    text = "import torch\ny = '中文'; z = torch.cat(a)\n"
    open_doc(neovim, text)
    items = await pull(neovim)
    cat = next(d for d in items if str(d.code) == "MS103")
    line = text.split("\n")[1]
    assert cat.range.start.character == len(line[: line.index("torch.cat")].encode("utf-8"))


@pytest_lsp.fixture(config=msport_server("--stdio"))
async def helix_like(lsp_client: LanguageClient):
    # `--stdio` as vscode-languageclient passes it; settings under "msport" as Helix sends them.
    await start(lsp_client, "neovim@v0.11.0", options={"msport": {"ignore": ["MS103"]}})
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_initialization_options_under_msport_and_stdio_flag(helix_like: LanguageClient):
    open_doc(helix_like)
    items = await pull(helix_like)
    assert items and "MS103" not in codes(items)
    assert not any("unknown setting" in m.message for m in helix_like.messages)


async def test_a_setting_removed_in_the_editor_goes_away(neovim: LanguageClient):
    neovim.set_configuration({"ignore": ["MS103"]}, section="msport")
    neovim.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    open_doc(neovim)
    for _ in range(100):
        if "MS103" not in codes(await pull(neovim)):
            break
        await asyncio.sleep(0.05)
    assert "MS103" not in codes(await pull(neovim))
    neovim.set_configuration({}, section="msport")
    neovim.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    for _ in range(100):
        if "MS103" in codes(await pull(neovim)):
            break
        await asyncio.sleep(0.05)
    assert "MS103" in codes(await pull(neovim))


FORK_RULE = '''
[[api]]
torch = "torch.cat"
status = "missing"
note = "our MindSpore fork has no cat kernel; call team_ops.concat instead"
'''


async def test_extend_rules_and_edits_of_rule_files(vscode: LanguageClient, tmp_path):
    """The user's rule files (extend-rules in pyproject.toml) shape the diagnostics; when one
    changes, the client's file watcher makes the server recompute them; a broken one is named."""
    rules = tmp_path / "team.toml"
    rules.write_text(FORK_RULE, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nextend-rules = ["team.toml"]\n', encoding="utf-8")
    model = tmp_path / "model.py"
    model.write_text(TEXT, encoding="utf-8")
    uri = model.as_uri()
    open_doc(vscode, uri=uri)

    def cat(diagnostics):
        return [d for d in diagnostics if d.data["torch_api"] == "torch.cat"]

    diags = await wait_push(vscode, uri, lambda d: bool(cat(d)))
    (found,) = cat(diags)
    assert found.code == "MS101" and "team_ops.concat" in found.message
    await eventually(lambda: vscode.registrations)  # sent after the configuration is read
    (watch,) = [r for r in vscode.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    # TOML files for the settings and rule files, Python files for the project index.
    assert [w["globPattern"] for w in watch.register_options["watchers"]] == ["**/*.toml", "**/*.py"]

    rules.write_text("[[api]\ntorch = ", encoding="utf-8")
    vscode.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(
        changes=[types.FileEvent(uri=rules.as_uri(), type=types.FileChangeType.Changed)]
    ))
    diags = await wait_push(vscode, uri, lambda d: any(x.code == "MS103" for x in cat(d)))
    assert not any("team_ops" in d.message for d in diags)
    await eventually(lambda: any(str(rules) in m.message for m in vscode.messages))
    (message,) = [m for m in vscode.messages if str(rules) in m.message]
    assert "invalid TOML" in message.message and message.type == types.MessageType.Warning


async def test_relative_extend_rules_from_the_editor_are_the_workspace_folders(vscode: LanguageClient, tmp_path):
    root = Path("/tmp/msport_lsp_test")  # the fixture's root_uri
    root.mkdir(exist_ok=True)
    (root / "editor-team-rules.toml").write_text(FORK_RULE.replace("team_ops.concat", "editor_ops.concat"), encoding="utf-8")
    vscode.set_configuration({"extendRules": ["editor-team-rules.toml"]}, section="msport")
    vscode.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
    model = tmp_path / "model.py"
    model.write_text(TEXT, encoding="utf-8")
    open_doc(vscode, uri=model.as_uri())
    # (A first publication may predate the configuration change: wait for the one after it.)
    diags = await wait_push(vscode, model.as_uri(), lambda d: any("editor_ops.concat" in x.message for x in d))
    assert [d.code for d in diags if d.data["torch_api"] == "torch.cat"] == ["MS101"]
