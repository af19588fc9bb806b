"""Code actions through a real LSP client (pytest-lsp) against `python -m msport serve`: quick fixes
for diagnostics, "Ignore CODE on this line / in this file", and source.fixAll.msport (fix on
save). Every returned edit is applied the way an editor would and the result checked."""

import asyncio
import re

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient

from msport.analysis import Settings
from msport.analysis.fixes import fix_all

from conftest import EXAMPLES, msport_server, start

# The `vscode` and `neovim` clients are tests/conftest.py's.
URI = "file:///tmp/msport_code_actions/model.py"
TEXT = (
    "import torch\n"
    "import torch.nn as nn\n"
    "\n"
    "\n"
    "class Head(nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.pool = nn.AdaptiveAvgPool2d(1)\n"
    "\n"
    "    def forward(self, x):\n"
    "        y = torch.cat([self.pool(x), x], dim=1)  # noqa: E501\n"
    "        return y[y > 0].sum()\n"
)


@pytest_lsp.fixture(config=msport_server())
async def lsp_client_without_resolve(lsp_client: LanguageClient):
    """Emacs' eglot: push diagnostics, and no codeAction/resolve."""
    await start(lsp_client, "emacs")
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=msport_server())
async def lsp_client_zh(lsp_client: LanguageClient):
    """VS Code in Simplified Chinese: initialize's locale is "zh-cn"."""
    await start(lsp_client, "visual-studio-code", locale="zh-cn")
    yield lsp_client
    await lsp_client.shutdown_session()


def open_doc(client, text, version=1):
    client.text_document_did_open(types.DidOpenTextDocumentParams(
        text_document=types.TextDocumentItem(uri=URI, language_id="python", version=version, text=text)))


async def pushed(client, predicate, timeout=30):
    async def loop():
        while not (URI in client.diagnostics and predicate(client.diagnostics[URI])):
            await client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        return client.diagnostics[URI]

    return await asyncio.wait_for(loop(), timeout)


async def actions(client, range_, diagnostics=(), only=None, trigger=None):
    return await client.text_document_code_action_async(types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=URI), range=range_,
        context=types.CodeActionContext(diagnostics=list(diagnostics), only=only, trigger_kind=trigger)))


def apply(text, edits, encoding="utf-16"):
    """Apply LSP TextEdits the way an editor does, converting columns from *encoding*."""
    lines = text.split("\n")

    def offset(position):
        line = lines[position.line] if position.line < len(lines) else ""
        units, column = 0, 0
        while column < len(line) and units < position.character:
            char = line[column]
            units += len(char.encode("utf-16-le")) // 2 if encoding == "utf-16" else len(char.encode("utf-8"))
            column += 1
        return sum(len(l) + 1 for l in lines[:position.line]) + column

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        text = text[:offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end):]
    return text


FIX_ALL_TITLE = "Fix all safe msport findings in this file"


def by_title(found, start):
    matches = [a for a in found if a.title.startswith(start)]
    assert matches, [a.title for a in found]
    return matches[0]


async def test_quick_fix_and_ignore_actions_for_a_diagnostic(vscode: LanguageClient):
    open_doc(vscode, TEXT)
    diags = await pushed(vscode, lambda d: any(str(x.code) == "MS302" for x in d))
    pool = next(d for d in diags if str(d.code) == "MS302")
    found = await actions(vscode, pool.range, [pool])
    fix = by_title(found, "msport: Replace self.pool with x.mean((-2, -1), True)")
    assert fix.kind == types.CodeActionKind.QuickFix and fix.is_preferred and fix.diagnostics[0].code == "MS302"
    fixed = apply(TEXT, fix.edit.changes[URI])
    assert "AdaptiveAvgPool2d" not in fixed and "torch.cat([x.mean((-2, -1), True), x], dim=1)" in fixed
    compile(fixed, "model.py", "exec")

    line = apply(TEXT, by_title(found, "msport: Ignore MS302 on this line").edit.changes[URI])
    assert line.split("\n")[7] == "        self.pool = nn.AdaptiveAvgPool2d(1)  # noqa: MS302"
    whole = apply(TEXT, by_title(found, "msport: Ignore MS302 in this file").edit.changes[URI])
    assert whole.startswith("# msport: ignore-file[MS302]\nimport torch\n")


async def test_ignore_on_a_line_that_already_has_a_noqa_appends_to_it(vscode: LanguageClient):
    open_doc(vscode, TEXT)
    diags = await pushed(vscode, lambda d: any(str(x.code) == "MS103" for x in d))
    cat = next(d for d in diags if str(d.code) == "MS103" and d.range.start.line == 10)
    found = await actions(vscode, cat.range, [cat])
    fixed = apply(TEXT, by_title(found, "msport: Ignore MS103 on this line").edit.changes[URI])
    assert fixed.split("\n")[10].endswith("# noqa: E501, MS103")
    # torch.cat(list, dim=...) was run both ways (tools/prove_renames.py): a safe, preferred rename.
    rename = by_title(found, "msport: Replace with mindspore.")
    assert not rename.title.endswith("(unsafe)") and rename.is_preferred


async def test_fix_all_on_save_applies_every_safe_fix_once(vscode: LanguageClient):
    open_doc(vscode, TEXT)
    await pushed(vscode, lambda d: len(d) > 0)
    everywhere = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=0, character=0))
    (action,) = await actions(vscode, everywhere, only=["source.fixAll"])
    assert action.kind == "source.fixAll.msport"
    fixed = apply(TEXT, action.edit.changes[URI])
    assert fixed == fix_all(TEXT, Settings()).text
    assert "y.where(y > 0, 0).sum()" in fixed and "AdaptiveAvgPool2d" not in fixed
    vscode.text_document_did_change(types.DidChangeTextDocumentParams(
        text_document=types.VersionedTextDocumentIdentifier(uri=URI, version=2),
        content_changes=[types.TextDocumentContentChangeWholeDocument(text=fixed)]))
    assert not await actions(vscode, everywhere, only=["source.fixAll.msport"])


async def test_kind_filters(vscode: LanguageClient):
    open_doc(vscode, TEXT)
    diags = await pushed(vscode, lambda d: any(str(x.code) == "MS302" for x in d))
    pool = next(d for d in diags if str(d.code) == "MS302")
    quick = await actions(vscode, pool.range, [pool], only=[types.CodeActionKind.QuickFix])
    assert quick and all(a.kind == types.CodeActionKind.QuickFix for a in quick)
    source = await actions(vscode, pool.range, [pool], only=[types.CodeActionKind.Source])
    assert [a.kind for a in source] == ["source.fixAll.msport"]
    # Unfiltered (Ctrl+., the lightbulb): fix-all is one of the quick fixes, not a second,
    # source-kind copy of it.
    unfiltered = await actions(vscode, pool.range, [pool])
    assert {a.kind for a in unfiltered} == {types.CodeActionKind.QuickFix}
    assert [a.title for a in unfiltered].count(FIX_ALL_TITLE) == 1
    assert not await actions(vscode, pool.range, [pool], only=[types.CodeActionKind.Refactor])


async def test_server_advertises_the_fix_all_kind(vscode: LanguageClient):
    provider = vscode.initialize_result.capabilities.code_action_provider
    assert set(provider.code_action_kinds) == {types.CodeActionKind.QuickFix, "source.fixAll.msport"}


async def test_utf8_positions_on_a_non_ascii_line(neovim: LanguageClient):
    text = "import torch.nn.functional as F\n\n\ndef f(x):\n    s = '中文🚀'; return F.adaptive_avg_pool2d(x, 1)\n"
    open_doc(neovim, text)
    report = await neovim.text_document_diagnostic_async(types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri=URI)))
    pool = next(d for d in report.items if str(d.code) == "MS302")
    found = await actions(neovim, pool.range, [pool])
    fixed = apply(text, by_title(found, "msport: Replace with x.mean").edit.changes[URI], encoding="utf-8")
    assert fixed.split("\n")[4] == "    s = '中文🚀'; return x.mean((-2, -1), True)"
    noqa = apply(text, by_title(found, "msport: Ignore MS302 on this line").edit.changes[URI], encoding="utf-8")
    assert noqa.split("\n")[4].endswith("F.adaptive_avg_pool2d(x, 1)  # noqa: MS302")


# -- fix-all in the lightbulb ------------------------------------------------------------------

async def test_the_lightbulb_offers_fix_all_and_resolves_its_edit_when_chosen(vscode: LanguageClient):
    open_doc(vscode, TEXT)
    diags = await pushed(vscode, lambda d: any(str(x.code) == "MS302" for x in d))
    pool = next(d for d in diags if str(d.code) == "MS302")
    # What VS Code asks on every cursor move: the action comes without its edit (no fix-all
    # computed for a menu that is rarely opened), after the finding's own fixes, before "Ignore".
    automatic = await actions(vscode, pool.range, [pool], trigger=types.CodeActionTriggerKind.Automatic)
    titles = [a.title for a in automatic]
    index = titles.index(FIX_ALL_TITLE)
    assert titles[index - 1].startswith("msport: Replace self.pool") and titles[index + 1].startswith("msport: Ignore")
    lazy = automatic[index]
    assert lazy.kind == types.CodeActionKind.QuickFix and lazy.edit is None and lazy.diagnostics[0].code == "MS302"
    resolved = await vscode.code_action_resolve_async(lazy)
    assert resolved.title == FIX_ALL_TITLE
    assert apply(TEXT, resolved.edit.changes[URI]) == fix_all(TEXT, Settings()).text


async def test_fix_all_is_computed_at_once_for_a_client_that_cannot_resolve(lsp_client_without_resolve: LanguageClient):
    client = lsp_client_without_resolve
    open_doc(client, TEXT)
    diags = await pushed(client, lambda d: any(str(x.code) == "MS302" for x in d))
    pool = next(d for d in diags if str(d.code) == "MS302")
    invoked = await actions(client, pool.range, [pool], trigger=types.CodeActionTriggerKind.Invoked)
    action = by_title(invoked, FIX_ALL_TITLE)
    assert action.data is None and apply(TEXT, action.edit.changes[URI]) == fix_all(TEXT, Settings()).text
    # Never computed for a menu the user did not open.
    automatic = await actions(client, pool.range, [pool], trigger=types.CodeActionTriggerKind.Automatic)
    assert FIX_ALL_TITLE not in [a.title for a in automatic]


async def test_no_fix_all_when_it_would_repeat_the_one_fix_under_the_cursor(vscode: LanguageClient):
    # One safe fix in the whole file (the pooling layer; the class is already a construct-style port).
    # (torch stays used by an annotation, whose rename is unproven: no MS104 deletion either.)
    text = TEXT.replace("torch.cat([self.pool(x), x], dim=1)  # noqa: E501", "self.pool(x)").replace("return y[y > 0].sum()", "return y") \
        .replace("def forward(self, x):", "def forward(self, x: torch.Tensor):")
    open_doc(vscode, text)
    diags = await pushed(vscode, lambda d: any(str(x.code) == "MS302" for x in d))
    pool = next(d for d in diags if str(d.code) == "MS302")
    found = await actions(vscode, pool.range, [pool])
    assert any(a.is_preferred for a in found), [a.title for a in found]  # the finding's own safe fix...
    assert FIX_ALL_TITLE not in [a.title for a in found]  # ...which fix-all would only repeat
    # Elsewhere in the file (on another finding), fix-all applies that fix: offered.
    other = next(d for d in diags if d.range.start.line != pool.range.start.line)
    assert FIX_ALL_TITLE in [a.title for a in await actions(vscode, other.range, [other])]


async def test_titles_follow_the_editor_display_language(lsp_client_zh: LanguageClient):
    client = lsp_client_zh
    open_doc(client, TEXT)
    diags = await pushed(client, lambda d: any(str(x.code) == "MS103" for x in d))
    cat = next(d for d in diags if str(d.code) == "MS103" and d.range.start.line == 10)
    titles = [a.title for a in await actions(client, cat.range, [cat])]
    assert "修复此文件中所有可安全修复的 msport 问题" in titles, titles
    assert "msport：在此行忽略 MS103" in titles
    assert "msport：替换为 mindspore.mint.cat" in titles  # proven for this call: safe
    pool = next(d for d in diags if str(d.code) == "MS103" and d.range.start.line == 7)
    titles = [a.title for a in await actions(client, pool.range, [pool])]
    assert any(t.startswith("msport：替换为 mindspore.mint.nn.AdaptiveAvgPool2d（不安全：msport 尚未") for t in titles), titles


async def test_every_unsafe_fix_of_the_examples_says_why(vscode: LanguageClient):
    """Fix.reason is filled wherever an unsafe fix is built: its title ends in "(unsafe: <why>)"."""
    unsafe_titles = []
    for path in sorted(EXAMPLES.glob("*.py")):
        text = path.read_text(encoding="utf-8")
        vscode.text_document_did_open(types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=path.as_uri(), language_id="python", version=1, text=text)))
        end = types.Position(line=len(text.split("\n")), character=0)
        found = await vscode.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=path.as_uri()), range=types.Range(start=types.Position(line=0, character=0), end=end),
            context=types.CodeActionContext(diagnostics=[], only=[types.CodeActionKind.QuickFix])))
        unsafe_titles += [a.title for a in found if "(unsafe" in a.title]
    assert len(unsafe_titles) >= 10
    for title in unsafe_titles:
        assert re.search(r"\(unsafe: \S[^()]*(\([^()]*\)[^()]*)*\)$", title), title
    # The unproven renames ("direct equivalent" hints) say what the proof lacks.
    assert any("has not run this rename" in t for t in unsafe_titles), unsafe_titles
