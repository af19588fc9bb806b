"""What a Chinese reader sees, through the real front ends: one finding of each check family
rendered by `msport check --lang zh-CN` and by the language server for a client whose display
language is zh-cn (diagnostics, quick-fix titles, hover cards), and `msport explain` of a rule
code and of an API. No English sentence may remain in them, except code, API names and quoted
error texts of the packages: not in the frames, and not in the APIs' own notes (note_zh-CN of
rules/api/, tests/messages/test_api_notes.py)."""

import asyncio
import html
import json
import os
import re
import subprocess
import sys

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from msport.knowledge import default_knowledge
from msport.knowledge.cards import code_card
from conftest import msport_server, start
from prose import english_in

#: One finding of each check family (api_mapping, replacements, graph_mode, second_order,
#: sparse, dynamic_shape), in one file.
MODEL = '''import torch
import torch.nn as nn
import torch.nn.functional as F
from mindspore import nn as msnn


class Net(msnn.Cell):
    def construct(self, x):
        try:
            y = x * 2
        except ValueError:
            y = x
        return y


class Pool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)

    def forward(self, x):
        return self.pool(x)


def penalty(model, x):
    y = F.elu(model(x))
    g, = torch.autograd.grad(y.sum(), x, create_graph=True)
    return g.pow(2).sum()


def transpose(idx, vals):
    a = torch.sparse_coo_tensor(idx, vals, (3, 4))
    return a.t()


def positives(x):
    y = torch.cat([x, x], dim=0)
    return torch.nonzero(y)
'''
#: The core family: a statement that does not parse.
BROKEN = "import torch\n\ndef f(x:\n    return x\n"
#: The code each family is seen through here.
FAMILIES = {"MS001": "core", "MS103": "api_mapping", "MS302": "replacements", "MS401": "graph_mode",
            "MS501": "second_order", "MS504": "second_order", "MS601": "sparse", "MS201": "dynamic_shape"}



def test_the_detector_finds_english_and_spares_code_and_names():
    assert english_in("the port is a rename") == ["the port is a rename"]
    assert english_in("请使用 mindspore.mint.cat。报错 “EluGradExt's bprop not defined”，`x.mean((-2, -1), True)`") == []
    assert english_in("在 Ascend 上的 MindSpore 2.10 中：keep_dims=True 的 mean") == []
    assert english_in("torch.nn.Module -> mindspore.nn.Cell 的行为不同：subclass nn.Cell and rename forward") != []


def _check(tmp_path, *args):
    (tmp_path / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "broken.py").write_text(BROKEN, encoding="utf-8")
    return subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", *args, "model.py", "broken.py"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)


def _said(code: str, texts):
    """Asserts the texts of a finding of *code* are Chinese with no English left."""
    texts = [t for t in texts if t]
    english = [run for text in texts for run in english_in(text)]
    assert english == [], (code, texts)
    assert all(re.search(r"[\u4e00-\u9fff]", t) for t in texts), (code, texts)


def test_check_speaks_chinese_for_every_family(tmp_path):
    done = _check(tmp_path, "--format", "json")
    findings = json.loads(done.stdout)
    codes = {f["code"] for f in findings}
    assert set(FAMILIES) <= codes, codes
    for finding in findings:
        fixes = finding["fixes"]
        _said(finding["code"], [finding["message"], *(f["title"] for f in fixes), *(f["reason"] for f in fixes),
                                *(r["message"] for r in finding["related"])])
    text = _check(tmp_path)
    summary = text.stdout.strip().splitlines()[-1]
    assert summary.startswith("共发现 ") and english_in(summary) == [], summary


#: MS101 and MS102 with each kind of API note: hand-written (nn.Module, Module.cuda, ndtr),
#: hand-written with a measured consequence (torch.std on CPU), generated from facts by the
#: clause templates (histogramdd), and made up at run time for an API no rule judges (clamp_min_);
#: aminmax quotes what leaving its dim out gave (rules/proven_defaults.toml's differs).
NOTES = '''import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.cuda()

    def forward(self, x):
        s = torch.std(x, dim=0)
        y = torch.special.ndtr(x)
        x.clamp_min_(0)
        m = torch.aminmax(x)
        return torch.histogramdd(x) + s + y + m
'''


def test_the_apis_own_notes_are_chinese(tmp_path):
    """`msport check --lang zh-CN` on MS101s and MS102s: no English sentence in any note, where
    the same run in English says them in English."""
    (tmp_path / "notes.py").write_text(NOTES, encoding="utf-8")
    said = {}
    for language in ("zh-CN", "en"):
        done = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", language, "--backend", "cpu", "--format", "json", "notes.py"],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300)
        said[language] = [f for f in json.loads(done.stdout) if f["code"] in ("MS101", "MS102")]
    assert [(f["code"], f["torch_api"]) for f in said["zh-CN"]] == [(f["code"], f["torch_api"]) for f in said["en"]]
    apis = {f["torch_api"]: f["code"] for f in said["zh-CN"]}
    assert {"torch.nn.Module": "MS102", "torch.nn.Module.cuda": "MS101", "torch.std": "MS102", "torch.special.ndtr": "MS101",
            "torch.Tensor.clamp_min_": "MS101", "torch.histogramdd": "MS102", "torch.aminmax": "MS102"}.items() <= apis.items(), apis
    for zh, en in zip(said["zh-CN"], said["en"]):
        assert english_in(zh["message"]) == [], zh["message"]
        assert "。 " not in zh["message"], zh["message"]  # Chinese sentences run on without a space
        assert len(english_in(en["message"])) >= 1, en["message"]  # the note is there, in English
    std = next(f["message"] for f in said["zh-CN"] if f["torch_api"] == "torch.std")
    assert "请传 ddof=1" in std and "实测：在 10x10 正态样本上绝对误差为 0.0073" in std, std
    assert "。就此处的写法而言：" in std and "axis=0。" in std, std  # the call's own sentences follow


def test_the_report_speaks_chinese(tmp_path):
    """`msport report --lang zh-CN` in every format a person reads: the frame of the report
    (headings, tables, figures, definitions, the line printed on writing it) has no English left.
    The findings' own messages and the APIs' notes it quotes are checked above, per family."""
    (tmp_path / "proj").mkdir()
    (tmp_path / "proj" / "model.py").write_text(MODEL, encoding="utf-8")
    (tmp_path / "proj" / "broken.py").write_text(BROKEN, encoding="utf-8")
    (tmp_path / "proj" / "infer.py").write_text("import torch\n\n\ndef infer(model, x):\n    with torch.no_grad():\n        return model(x)\n")
    pages = {}
    for fmt in ("json", "md", "html"):
        out = tmp_path / f"report.{fmt}"
        done = subprocess.run([sys.executable, "-m", "msport", "report", "--lang", "zh-CN", "proj", "-o", str(out)],
                              capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr
        assert done.stderr.startswith("msport：已写入") and english_in(done.stderr.replace(str(out), "")) == [], done.stderr
        pages[fmt] = out.read_text(encoding="utf-8")
    data = json.loads(pages["json"])
    assert data["settings"]["language"] == "zh-CN"
    assert all(english_in(text) == [] for text in data["definitions"].values()), data["definitions"]
    quoted = {f["message"] for row in data["files"] for f in row["findings"]}
    quoted |= {r["note"] for key in ("top_missing", "top_divergent") for r in data[key] if r.get("note")}
    assert data["summary"]["uses"]["missing"] and data["summary"]["dynamic_shape_findings"] and quoted
    for fmt in ("md", "html"):
        page = pages[fmt]
        for text in sorted(quoted, key=len, reverse=True):  # what the families and the APIs say themselves
            page = page.replace(text, "").replace(html.escape(text), "")
        if fmt == "html":
            page = re.sub(r"<style>.*?</style>", "", page, flags=re.S)
            page = re.sub(r"<[^>]+>", " ", page)  # tags and their attributes are markup, not prose
        page = re.sub(r"\]\([^)]*\)", "]", page)  # Markdown link targets
        assert english_in(page) == [], (fmt, english_in(page))
    assert "<html lang=\"zh-CN\">" in pages["html"] and "PyTorch 到 MindSpore 迁移报告" in pages["html"]


def test_problems_with_settings_speak_chinese(tmp_path):
    """A pyproject.toml with a misspelt setting, a value msport cannot use and a bad rule code,
    and `--show-settings`: every line about them is Chinese in zh-CN (the values, setting names
    and paths are quoted as written)."""
    (tmp_path / "pyproject.toml").write_text('[tool.msport]\nbackend = "tpu"\ntarget-versoin = "2.9"\nignore = ["XX9"]\nseverity = 3\n')
    (tmp_path / "model.py").write_text("import torch\n")
    done = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", "model.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    lines = [line for line in done.stderr.splitlines() if line.startswith("msport：配置错误：")]
    assert done.returncode == 2 and len(lines) == 4, done.stderr
    for line in lines:
        reason = line.removeprefix("msport：配置错误：").replace(str(tmp_path), "")
        assert re.search(r"[\u4e00-\u9fff]", reason) and english_in(reason) == [], reason
    assert any("是否想写 'target-version'" in line for line in lines), lines
    shown = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", "--show-settings", "model.py"],
                           capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert shown.returncode == 2 and shown.stdout.splitlines()[0].endswith("（[tool.msport]））"), shown.stdout
    assert english_in(shown.stdout.replace(str(tmp_path), "")) == [], shown.stdout
    english = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "en", "--show-settings", "model.py"],
                             capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "backend: expected one of ascend, gpu, cpu, got 'tpu'; using 'ascend'" in english.stdout, english.stdout
    missing = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", "--backend", "tpu", "nowhere.py"],
                             capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert missing.returncode == 2 and missing.stderr.startswith("msport：错误：--backend：应为 ascend，gpu，cpu 之一，实际为 'tpu'"), missing.stderr
    gone = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", "nowhere.py", "gone.py"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert gone.returncode == 2 and gone.stderr.strip() == "msport：错误：文件或目录不存在：nowhere.py，gone.py", gone.stderr


def test_what_check_says_about_files_speaks_chinese(tmp_path):
    """A FIFO named like a module, a file that is not valid UTF-8, a file over max-file-size and
    --unsafe-fixes without --fix: each line msport prints about them is Chinese in zh-CN."""
    os.mkfifo(tmp_path / "pipe.py")
    (tmp_path / "latin.py").write_bytes(b"import torch\nname = '\xe9'\n")
    (tmp_path / "big.py").write_text("import torch\n" + "x = 1\n" * 200)
    (tmp_path / "pyproject.toml").write_text("[tool.msport]\nmax-file-size = 1000\n")
    done = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", "--format", "json", "."],
                          capture_output=True, text=True, cwd=tmp_path, timeout=300)
    lines = done.stderr.splitlines()
    assert "msport：警告：pipe.py：已跳过：这是FIFO（命名管道），不是普通文件：msport 只读取普通文件" in lines, done.stderr
    assert "msport：警告：latin.py：不是有效的 utf-8 编码；无法解码的字节已被替换" in lines, done.stderr
    assert all(english_in(line) == [] for line in lines), lines
    (not_read,) = [f for f in json.loads(done.stdout) if f["path"].endswith("big.py")]
    assert not_read["message"].startswith("文件未检查：文件大小为 1.2 kB，超过上限 1.0 kB（设置项 max-file-size）"), not_read
    unsafe = subprocess.run([sys.executable, "-m", "msport", "check", "--lang", "zh-CN", "--unsafe-fixes", "latin.py"],
                            capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert unsafe.returncode == 2 and unsafe.stderr.strip() == "msport：错误：--unsafe-fixes 只能与 --fix 一起使用才会应用修复", unsafe.stderr
    english = subprocess.run([sys.executable, "-m", "msport", "check", "pipe.py"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert "msport: warning: pipe.py: skipped: a FIFO (named pipe), not a regular file: msport reads only regular files" in english.stderr


def test_explain_speaks_chinese():
    """`msport explain` of a rule code and of APIs through the real command line, and every rule
    code's card in the same function (one process each would take a minute)."""
    knowledge = default_knowledge()
    for name in ("MS201", "torch.nn.functional.elu", "torch.sparse.mm", "mindspore.mint.cat", "torch.cat"):
        done = subprocess.run([sys.executable, "-m", "msport", "explain", "--lang", "zh-CN", name], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        card = re.sub(r"```python\n.*?```", "", done.stdout, flags=re.S)  # an example is code
        assert english_in(card) == [], (name, english_in(card))
    for code, info in sorted(knowledge.codes.items()):
        card = re.sub(r"```python\n.*?```", "", code_card(info, "zh-CN"), flags=re.S)
        assert english_in(card) == [], (code, english_in(card))
    unknown = subprocess.run([sys.executable, "-m", "msport", "explain", "--lang", "zh-CN", "torch.no_such_api"], capture_output=True, text=True, timeout=120)
    assert unknown.returncode == 1 and unknown.stderr.startswith("msport：torch.no_such_api 不是 msport 认识的接口。")


URI = "file:///tmp/msport_lsp_test/families.py"


@pytest_lsp.fixture(config=msport_server())
async def chinese(lsp_client: LanguageClient):
    await start(lsp_client, "visual-studio-code", locale="zh-cn")
    yield lsp_client
    await lsp_client.shutdown_session()


async def _diagnostics(client, codes, timeout=60):
    async def loop():
        while not (URI in client.diagnostics and codes <= {str(d.code) for d in client.diagnostics[URI]}):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[URI]

    return await asyncio.wait_for(loop(), timeout)


async def _hover(client, line, column):
    hover = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=URI), position=types.Position(line=line, character=column)))
    return hover.contents.value if hover else None


async def test_the_editor_in_chinese_shows_chinese_diagnostics_fixes_and_cards(chinese: LanguageClient):
    chinese.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=URI, language_id="python", version=1, text=MODEL)))
    wanted = set(FAMILIES) - {"MS001"}
    diagnostics = await _diagnostics(chinese, wanted)
    for diagnostic in diagnostics:
        actions = await chinese.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=URI), range=diagnostic.range,
            context=types.CodeActionContext(diagnostics=[diagnostic])))
        titles = [a.title for a in actions or () if diagnostic in (a.diagnostics or ())]
        _said(str(diagnostic.code), [diagnostic.message, *titles])
    lines = MODEL.split("\n")
    # The hover over a finding with no API card (the try of MS401) and over an API (torch.cat).
    line = next(i for i, text in enumerate(lines) if text.strip() == "try:")
    card = await _hover(chinese, line, lines[line].index("try") + 1)
    assert card and "**MS401 unsupported-statement**（错误）" in card, card
    assert english_in(re.sub(r"```python\n.*?```", "", card, flags=re.S)) == [], card
    line = next(i for i, text in enumerate(lines) if "torch.cat" in text)
    card = await _hover(chinese, line, lines[line].index("cat") + 1)
    assert card and "**`torch.cat`** -> " in card and "**等价**" in card, card
    assert english_in(card) == [], english_in(card)


async def test_the_hover_over_an_api_shows_its_note_in_chinese(chinese: LanguageClient):
    """The editor in zh-cn: the diagnostics of MS101 and MS102 and the cards of their APIs carry
    each API's note in Chinese."""
    chinese.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=URI, language_id="python", version=1, text=NOTES)))
    diagnostics = await _diagnostics(chinese, {"MS101", "MS102"})
    for diagnostic in diagnostics:
        if str(diagnostic.code) in ("MS101", "MS102"):
            assert english_in(diagnostic.message) == [], diagnostic.message
    lines = NOTES.split("\n")
    for needle, note in (("nn.Module", "继承 nn.Cell，并把 forward 改名为 construct"), ("ndtr", "MindSpore 2.10 没有 ndtr"),
                         ("histogramdd", "请按位置和含义逐一对应参数")):
        line = next(i for i, text in enumerate(lines) if needle in text)
        card = await _hover(chinese, line, lines[line].index(needle) + len(needle) - 1)
        assert card and note in card, card
        assert english_in(re.sub(r"```python\n.*?```", "", card, flags=re.S)) == [], english_in(card)


async def test_the_servers_own_notices_are_chinese(chinese: LanguageClient):
    """A notice that belongs to no finding (an edit the server cannot apply) in the editor's
    display language."""
    chinese.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=URI, language_id="python", version=1, text="import torch\n")))
    backwards = types.Range(start=types.Position(line=0, character=5), end=types.Position(line=0, character=0))
    chinese.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[types.TextDocumentContentChangePartial(range=backwards, text="x = 1\n")]))
    shown = await asyncio.wait_for(chinese.wait_for_notification(types.WINDOW_SHOW_MESSAGE), 60)
    assert shown.message.startswith(f"msport：{URI}：无法应用一处编辑（") and shown.message.endswith("请重新打开该文件以重新同步"), shown.message
    assert english_in(shown.message.split("（")[0] + shown.message.split("）")[-1]) == [], shown.message


def test_the_workspace_scan_summary_in_both_languages():
    from msport.lsp.workspace_scan import ScanSummary

    summary = ScanSummary(files=5, findings=3, files_with_findings=2, errors=["a.py: cannot read"], cancelled=True)
    assert summary.message() == "3 findings in 2 of 5 files; 1 could not be checked (cancelled)"
    assert summary.message("zh-CN") == "5 个文件中有 2 个发现问题，共 3 个问题；1 个无法检查（已取消）"


def test_every_rule_page_has_its_chinese_page():
    """docs/rules/zh-CN (tools/gen_rule_docs.py; tests/knowledge/test_docs.py keeps it current):
    one page per code, Chinese outside its code blocks, linked from the Chinese cards."""
    from pathlib import Path

    from msport.knowledge.cards import RULE_PAGES

    pages = Path(__file__).resolve().parents[2] / "docs" / "rules" / "zh-CN"
    for code in default_knowledge().codes:
        page = (pages / f"{code}.md").read_text(encoding="utf-8")
        assert page.count(f"# {code} ") == 1 and "**对 MindSpore 的影响：**" in page, code
        assert english_in(re.sub(r"```python\n.*?```", "", page, flags=re.S)) == [], code
    assert RULE_PAGES["zh-CN"].format(code="MS201").endswith("/docs/rules/zh-CN/MS201.md")


def test_the_weight_commands_speak_chinese(tmp_path):
    """convert-weights and port-check take --lang (the editor's command passes its language):
    a problem with the user's files is said in Chinese, before torch or mindspore is imported."""
    (tmp_path / "model.py").write_text("x = 1\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "msport", "convert-weights", "--lang", "zh-CN", "model.py", "missing.pth", "-o", "out.ckpt"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 2 and done.stderr.strip() == "msport: error: missing.pth：文件不存在", done.stderr
    bad = subprocess.run([sys.executable, "-m", "msport", "port-check", "--lang", "fr", "model.py", "--reference", "model.py", "--input", "2"],
                         capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert bad.returncode == 2 and "--lang: expected one of en, zh-CN, got 'fr'" in bad.stderr
