"""What msport says when its own run goes wrong, outside any finding: a checking process that
died (`msport check -j N`, `msport report`) and the errors of `msport mcp`'s tools. Both are
catalogue texts (rules/messages/cli.toml) worded in the language asked for."""

import os
import signal
import sys

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from msport.cli.parallel import WorkerDied
from msport.mcp import tools
from prose import english_in


def _chinese(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


@pytest.mark.parametrize("exitcode, named", [(-signal.SIGKILL, "SIGKILL"), (-200, "200"), (3, "3")])
def test_a_dead_worker_is_told_in_both_languages(exitcode, named):
    died = WorkerDied(exitcode)
    english, chinese = died.text("en"), died.text("zh-CN")
    assert named in english and named in chinese
    assert english.startswith("the checking process") and str(died) == english
    assert _chinese(chinese) and english_in(chinese) == [], chinese


def _error(call, *args, **kwargs) -> tools.ToolError:
    with pytest.raises(tools.ToolError) as raised:
        call(*args, **kwargs)
    return raised.value


def test_the_mcp_tools_errors_are_told_in_both_languages(tmp_path):
    (tmp_path / "a.py").write_text("import torch\n", encoding="utf-8")
    (tmp_path / "b.py").write_text("import torch\n", encoding="utf-8")
    errors = {
        "unknown API": _error(tools.explain, "torch.not_an_api"),
        "no input": _error(tools.check),
        "no path": _error(tools.check, str(tmp_path / "nowhere")),
        "one file": _error(tools.fix, str(tmp_path)),
        "write with code": _error(tools.fix, str(tmp_path / "a.py"), "import torch\n", write=True),
        "bad setting": _error(tools.check, None, "import torch\n", backend="tpu"),
    }
    assert "torch.not_an_api is not an API msport knows" in str(errors["unknown API"])
    assert f"{tmp_path} holds 2 Python files" in str(errors["one file"])
    assert str(errors["bad setting"]).startswith("backend: ") and "tpu" in str(errors["bad setting"])
    for what, error in errors.items():
        chinese = error.text("zh-CN")
        assert _chinese(chinese) and english_in(chinese) == [], (what, chinese)
        assert chinese != str(error), what


def test_an_empty_directory_is_named_in_chinese(tmp_path):
    (tmp_path / "notes.txt").write_text("no code here\n", encoding="utf-8")
    chinese = _error(tools.check, str(tmp_path)).text("zh-CN")
    assert str(tmp_path) in chinese and _chinese(chinese) and english_in(chinese) == []


async def test_an_agent_in_a_chinese_locale_reads_the_error_in_chinese():
    env = {**os.environ, "LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": ""}
    params = StdioServerParameters(command=sys.executable, args=["-m", "msport", "mcp"], env=env)
    async with Client(params, read_timeout_seconds=120) as client:
        result = await client.call_tool("explain", {"name": "torch.not_an_api"})
    # The SDK puts its own "Error executing tool explain: " before msport's words.
    text = result.content[0].text.partition("explain: ")[2]
    assert result.is_error and "torch.not_an_api" in text and "MS101" in text
    assert _chinese(text) and english_in(text) == [], text
