"""`msport.convertWeights` in the editor: the language server runs `msport convert-weights` in a
child process when asked, shows the outcome and returns it; bad arguments get a clear answer."""

import json
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import msport_server

from .test_convert_weights import PORT, REFERENCE

SERVER = msport_server()


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    result = await lsp_client.initialize_session(types.InitializeParams(capabilities=client_capabilities("visual-studio-code")))
    lsp_client.commands = result.capabilities.execute_command_provider.commands
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("lsp-weights")
    (folder / "reference.py").write_text(REFERENCE, encoding="utf-8")
    (folder / "port.py").write_text(PORT, encoding="utf-8")
    save = "import sys, torch\nsys.path.insert(0, '.')\nimport reference\ntorch.save(reference.Net().state_dict(), 'weights.pth')\n"
    subprocess.run([sys.executable, "-c", save], cwd=folder, check=True, capture_output=True)
    return folder


async def convert(client, arguments):
    return await client.workspace_execute_command_async(types.ExecuteCommandParams(command="msport.convertWeights", arguments=[arguments]))


async def test_the_server_offers_the_command(client):
    assert "msport.convertWeights" in client.commands


async def test_convert_weights_writes_the_checkpoint_and_says_so(client, folder):
    result = await convert(client, {"model": (folder / "port.py").as_uri(), "checkpoint": "weights.pth", "output": "port.ckpt"})
    assert result["ok"], result
    assert result["output"].endswith("port.ckpt") and (folder / "port.ckpt").is_file()
    assert any(row["torch"] == "bn.weight" and row["mindspore"] == "bn.gamma" for row in result["map"])
    shown = [m.message for m in client.messages if m.type == types.MessageType.Info]
    assert any("wrote" in m and "port.ckpt" in m for m in shown), shown


async def test_a_bad_checkpoint_is_an_error_message_and_writes_nothing(client, folder):
    result = await convert(client, {"model": str(folder / "port.py"), "checkpoint": "missing.pth", "output": "bad.ckpt"})
    assert not result["ok"] and any("missing.pth: no such file" in p for p in result["problems"]), result
    assert not (folder / "bad.ckpt").exists()
    errors = [m.message for m in client.messages if m.type == types.MessageType.Error]
    assert any("missing.pth: no such file" in m for m in errors), errors


async def test_missing_arguments_are_named(client):
    result = await convert(client, {"model": "port.py"})
    assert not result["ok"] and "missing checkpoint, output" in json.dumps(result), result
