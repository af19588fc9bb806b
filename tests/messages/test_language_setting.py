"""The language setting, from every source, lowest precedence first: msport's default (English),
the terminal's locale (CLI) or the editor's display language (LSP initialize's locale),
[tool.msport] language, the editor's msport.language, --lang. Phase 1 writes the closing
summary of `msport check` and the code-action titles in it."""

import os
import re
import subprocess
import sys

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from conftest import EXAMPLES, msport_server, start

URI = "file:///tmp/msport_language/model.py"


def check(*args, env=None, cwd=None):
    base = {k: v for k, v in os.environ.items() if k not in ("LC_ALL", "LC_MESSAGES", "LANG")}
    return subprocess.run([sys.executable, "-m", "msport", "check", *args], capture_output=True, text=True,
                          env={**base, **(env or {})}, cwd=cwd, timeout=120)


def summary(done):
    return done.stdout.strip().splitlines()[-1]


def test_lang_flag_writes_the_summary_in_chinese():
    english = summary(check(str(EXAMPLES / "resnet_block.py")))
    total, warnings, hints = map(int, re.match(r"Found (\d+) findings \((\d+) warnings, (\d+) hints\) in 1 of 1 file: MS101 x1, ", english).groups())
    done = check("--lang", "zh-CN", str(EXAMPLES / "resnet_block.py"))
    assert summary(done).startswith(f"共发现 {total} 个问题（{warnings} 个警告，{hints} 条提示），分布在 1 个文件中的 1 个：MS101 x1，"), summary(done)
    assert summary(done).endswith("个可以自动修复（见 --format json）。")
    assert done.returncode == 1


def test_the_terminal_locale_is_the_default_and_the_flag_overrides_it():
    chinese = check(str(EXAMPLES / "resnet_block.py"), env={"LANG": "zh_CN.UTF-8"})
    assert summary(chinese).startswith("共发现 ")
    # LC_ALL wins over LANG, as in gettext.
    english = check(str(EXAMPLES / "resnet_block.py"), env={"LANG": "zh_CN.UTF-8", "LC_ALL": "en_US.UTF-8"})
    assert summary(english).startswith("Found ")
    flagged = check("--lang", "en", str(EXAMPLES / "resnet_block.py"), env={"LANG": "zh_CN.UTF-8"})
    assert summary(flagged).startswith("Found ")
    shown = check("--show-settings", str(EXAMPLES / "resnet_block.py"), env={"LANG": "zh_CN.UTF-8"})
    assert 'language = "zh-CN"' in shown.stdout and "# 环境变量（LANG=zh_CN.UTF-8）" in shown.stdout  # shown in the language it sets


def test_pyproject_language_and_a_bad_value(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nlanguage = "zh-CN"\n', encoding="utf-8")
    (tmp_path / "ok.py").write_text("x = 1\n", encoding="utf-8")
    assert check("ok.py", cwd=tmp_path).stdout.strip() == "1 个文件中未发现问题。"
    assert check("--lang", "en", "ok.py", cwd=tmp_path).stdout.strip() == "No findings in 1 file."
    bad = check("--lang", "fr", "ok.py", cwd=tmp_path)
    assert bad.returncode == 2 and "msport: error: --lang: expected one of en, zh-CN, got 'fr'" in bad.stderr


@pytest_lsp.fixture(config=msport_server())
async def chinese_vscode(lsp_client: LanguageClient):
    await start(lsp_client, "visual-studio-code", locale="zh-cn")
    yield lsp_client
    await lsp_client.shutdown_session()


async def settings_rows(client):
    return {r["key"]: r for r in await client.protocol.send_request_async("msport/effectiveSettings", {"uri": URI})}


async def test_the_editor_display_language_is_the_default_and_msport_language_overrides_it(chinese_vscode: LanguageClient):
    rows = await settings_rows(chinese_vscode)
    assert rows["language"] == {"key": "language", "value": '"zh-CN"', "origin": "editor display language (zh-cn)"}
    chinese_vscode.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={"msport": {"language": "en"}}))
    for _ in range(100):
        rows = await settings_rows(chinese_vscode)
        if rows["language"]["value"] == '"en"':
            break
    assert rows["language"] == {"key": "language", "value": '"en"', "origin": "editor settings (msport.*)"}
