"""`msport mcp` through the MCP SDK's own client over stdio: the three tools an agent sees, and
that they answer with the same analysis, cards and fixes as `msport check`, `msport explain` and
`msport check --fix`."""

import json
import shutil
import subprocess
import sys
from contextlib import asynccontextmanager

from mcp import Client
from mcp.client.stdio import StdioServerParameters

from conftest import EXAMPLES

from msport.analysis import Settings, analyze
from msport.analysis.fixes import fix_all
from msport.knowledge import default_knowledge
from msport.knowledge.cards import api_card


@asynccontextmanager
async def session(cwd=None):
    params = StdioServerParameters(command=sys.executable, args=["-m", "msport", "mcp"], cwd=str(cwd) if cwd else None)
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


async def call(client, tool, arguments):
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    return result.is_error, (text if result.is_error else result.structured_content["result"])


def cli_json(*args, cwd=None):
    done = subprocess.run([sys.executable, "-m", "msport", "check", "--format", "json", *args],
                          capture_output=True, text=True, timeout=120, cwd=cwd)
    return json.loads(done.stdout)


async def test_an_agent_sees_three_described_tools():
    async with session() as client:
        listed = {tool.name: tool for tool in (await client.list_tools()).tools}
    assert set(listed) == {"check", "explain", "fix"}
    for tool in listed.values():
        assert len(tool.description) > 100
    assert {"path", "code", "target_version", "backend", "mode", "jit_level", "select", "ignore"} <= set(listed["check"].input_schema["properties"])
    assert listed["explain"].input_schema["required"] == ["name"]
    assert {"unsafe", "write"} <= set(listed["fix"].input_schema["properties"])


async def test_check_gives_what_msport_check_gives(tmp_path):
    shutil.copy(EXAMPLES / "resnet_block.py", tmp_path / "model.py")
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nbackend = "cpu"\n', encoding="utf-8")
    expected = cli_json("model.py", cwd=tmp_path)
    async with session() as client:
        error, result = await call(client, "check", {"path": str(tmp_path / "model.py")})
        assert not error, result
        # The file's pyproject.toml applies, as on the command line.
        assert result["settings"]["backend"] == "cpu"
        assert [(f["line"], f["column"], f["code"], f["message"], f["fixes"]) for f in result["findings"]] == \
            [(f["line"], f["column"], f["code"], f["message"], f["fixes"]) for f in expected]
        assert result["summary"].startswith(f"Found {len(expected)} findings") and result["summary"].endswith("the fix tool applies the safe ones.")
        # Unsafe fixes say why.
        assert all(fix["reason"] for f in result["findings"] for fix in f["fixes"] if fix["safety"] == "unsafe")

        # Code text, with settings as arguments (they override the pyproject's).
        code = "import torch\n\ndef f(x, m):\n    return torch.masked_select(x, m)\n"
        error, snippet = await call(client, "check", {"code": code, "path": str(tmp_path / "new.py"), "backend": "gpu"})
        assert not error and snippet["settings"]["backend"] == "gpu"
        local = analyze(code, Settings().merged({"backend": "gpu"}, "test"), str(tmp_path / "new.py")).findings
        assert [(f["code"], f["message"]) for f in snippet["findings"]] == [(f.code, f.message) for f in local]
        assert "MS103" in {f.code for f in local}

        error, message = await call(client, "check", {"code": code, "target_version": "3.0"})
        assert error and "target_version: expected a MindSpore version from 2.2 to 2.10" in message
        error, message = await call(client, "check", {"path": str(tmp_path / "nowhere.py")})
        assert error and "no such file or directory" in message


async def test_explain_gives_the_whole_card():
    knowledge = default_knowledge()
    async with session() as client:
        error, result = await call(client, "explain", {"name": "torch.Tensor.max", "backend": "cpu", "target_version": "2.8"})
        assert not error and result["card"] == api_card(knowledge, "torch.Tensor.max", (2, 8), "cpu")
        error, code = await call(client, "explain", {"name": "ms203"})
        assert not error and code["card"].startswith("**MS203 ")
        error, message = await call(client, "explain", {"name": "torch.not_an_api"})
        assert error and "torch.not_an_api is not an API msport knows" in message


async def test_fix_returns_the_fixed_text_and_writes_only_when_asked(tmp_path):
    target = tmp_path / "model.py"
    shutil.copy(EXAMPLES / "resnet_block.py", target)
    original = target.read_text(encoding="utf-8")
    expected = fix_all(original, Settings())
    async with session() as client:
        error, result = await call(client, "fix", {"path": str(target)})
        assert not error, result
        assert result["text"] == expected.text and not result["written"]
        assert target.read_text(encoding="utf-8") == original
        assert [a["title"] for a in result["applied"]] == [a.title for a in expected.applied]
        assert all(a["safety"] == "safe" for a in result["applied"]) and result["diff"].startswith("--- a/")
        error, written = await call(client, "fix", {"path": str(target), "write": True})
        assert not error and written["written"] and target.read_text(encoding="utf-8") == expected.text
        error, message = await call(client, "fix", {"code": "x = 1\n", "write": True})
        assert error and "cannot be combined with 'code'" in message


def test_without_the_sdk_msport_mcp_says_how_to_install_it():
    code = "import sys; sys.modules['mcp'] = None; from msport.cli.main import main; sys.exit(main(['mcp']))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert "msport mcp needs the MCP SDK" in done.stderr and "pip install 'msport[mcp]'" in done.stderr
