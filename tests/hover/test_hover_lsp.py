"""Hover through a real LSP client (pytest-lsp) against `python -m msport serve`.

Every kind of API in the examples (torch function, nn class, Tensor method, MindSpore op,
alias, import name) gets a card naming it and its verdict; names that are not APIs get none.
Expected verdicts are read from the knowledge base, so the tests follow it as it grows.
"""

import ast
import asyncio
import sys
from pathlib import Path

import pytest_lsp
from lsprotocol import types
from pytest_lsp import LanguageClient, client_capabilities

from conftest import msport_server

from msport.analysis import Settings, analyze
from msport.analysis.api_uses import api_uses
from msport.knowledge import default_knowledge
from msport.knowledge.cards import HOVER_LIMIT, SEPARATOR

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SERVER = msport_server()


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient):
    await lsp_client.initialize_session(
        types.InitializeParams(capabilities=client_capabilities("visual-studio-code"), root_uri=EXAMPLES.as_uri())
    )
    yield lsp_client
    await lsp_client.shutdown_session()


def open_doc(client, text, uri):
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text))
    )


async def hover(client, uri, line, character):
    return await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=character))
    )


def position_of(text, needle, occurrence=0, offset=1):
    """(line, column) a little inside the *occurrence*-th *needle* (ASCII lines here)."""
    start = -1
    for _ in range(occurrence + 1):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start)
    return line, start - (text.rfind("\n", 0, start) + 1) + offset


def verdict(name):
    settings = Settings()
    return default_knowledge().verdict(name, settings.version, settings.backend)


async def test_every_torch_api_use_in_the_examples_has_a_card(client):
    """Torch functions, nn classes, Tensor methods (same-name ones included): one hover per
    distinct API used in the PyTorch examples, at the place the analysis found it."""
    checked = 0
    kinds = set()
    for name in ("resnet_block.py", "yolox_head.py"):
        path = EXAMPLES / name
        text = path.read_text()
        open_doc(client, text, path.as_uri())
        seen = set()
        for use in api_uses(analyze(text), default_knowledge(), Settings()):
            if use.torch_api in seen or use.status == "unknown":
                continue
            seen.add(use.torch_api)
            # On the API's own name (its last character): `torch` of `torch.stack` is a module.
            column = use.span.end_col - 1 if use.span.start_line == use.span.end_line else use.span.start_col
            result = await hover(client, path.as_uri(), use.span.start_line, column)
            assert result is not None, f"{name}:{use.span.start_line + 1}: no hover for {use.torch_api}"
            assert result.contents.kind == types.MarkupKind.Markdown
            # A finding on the same place (dynamic shape) comes first; the API card is last.
            card = result.contents.value.split("\n\n---\n\n")[-1]
            assert f"`{use.torch_api}`" in card.split("\n", 1)[0], card
            expected = verdict(use.torch_api)
            assert f"**{expected.status.capitalize()}** in MindSpore 2.10 on Ascend" in card
            if expected.mindspore:
                assert f"`{expected.mindspore}`" in card
            assert result.range.start.line == use.span.start_line
            kinds.add("method" if use.torch_api.startswith("torch.Tensor.") else "class" if use.torch_api.rsplit(".", 1)[1][:1].isupper() else "function")
            checked += 1
    assert checked >= 20 and kinds == {"method", "class", "function"}


async def test_named_kinds_of_torch_api(client):
    path = EXAMPLES / "resnet_block.py"
    text = path.read_text()
    uri = path.as_uri()
    open_doc(client, text, uri)
    for needle, name in (("torch.flatten", "torch.flatten"), ("nn.GELU", "torch.nn.GELU"), ("x.std", "torch.Tensor.std")):
        line, col = position_of(text, needle, offset=len(needle) - 2)
        result = await hover(client, uri, line, col)
        assert result is not None and f"**`{name}`**" in result.contents.value
        assert "[msport rule MS10" in result.contents.value  # the rule page link
    # A MindSpore counterpart's differences show in the card: GELU's approximation.
    line, col = position_of(text, "nn.GELU", offset=5)
    gelu = (await hover(client, uri, line, col)).contents.value
    assert "mindspore.nn.GELU" in gelu and "approximate=False" in gelu and "| Ascend" in gelu


async def test_mindspore_apis_show_the_torch_apis_that_map_to_them(client):
    path = EXAMPLES / "ms_static_graph.py"
    text = path.read_text()
    uri = path.as_uri()
    open_doc(client, text, uri)
    line, col = position_of(text, "ops.masked_select", offset=6)
    card = (await hover(client, uri, line, col)).contents.value
    # The API card comes after the card of any finding on the same place (dynamic shape here).
    assert "**`mindspore.ops.masked_select`** (MindSpore API" in card
    sources = default_knowledge().torch_rules_for("mindspore.ops.masked_select")
    assert sources and all(f"`{rule.torch}`" in card for rule in sources)
    # A MindSpore class no torch rule maps to still gets its versions from the snapshots.
    line, col = position_of(text, "nn.Dense", offset=4)
    dense = (await hover(client, uri, line, col)).contents.value
    assert "mindspore.nn.Dense" in dense and "**Versions:** in MindSpore 2.7-2.10" in dense


ALIASES = (
    "import torch\n"
    "from torch import masked_select as msel, cat\n"
    "\n"
    "def pick(x: torch.Tensor, m):\n"
    "    kept = msel(x, m)\n"
    "    both = cat([kept, kept])\n"
    "    text = 'msel cat'  # msel\n"
    "    return both.view(-1), len(both), int(1)\n"
)


async def test_alias_and_import_names(client):
    uri = "file:///tmp/msport_hover_test/aliases.py"
    open_doc(client, ALIASES, uri)
    for needle, occurrence, name in (("msel", 0, "torch.masked_select"), ("masked_select", 0, "torch.masked_select"),
                                     ("cat", 0, "torch.cat"), ("msel", 1, "torch.masked_select"), ("cat", 1, "torch.cat"),
                                     ("view", 0, "torch.Tensor.view"), ("Tensor", 0, "torch.Tensor")):
        line, col = position_of(ALIASES, needle, occurrence)
        result = await hover(client, uri, line, col)
        assert result is not None, (needle, occurrence)
        assert f"**`{name}`**" in result.contents.value
    line, col = position_of(ALIASES, "msel", 1)
    assert "(written `msel` here)" in (await hover(client, uri, line, col)).contents.value


async def test_names_that_are_not_apis_have_no_hover(client):
    uri = "file:///tmp/msport_hover_test/aliases.py"
    open_doc(client, ALIASES, uri)
    misses = [("kept", 0), ("pick", 0), ("both", 1), ("x", 2), ("m", 1), ("'msel", 0), ("# msel", 0), ("len", 0), ("int", 0),
              ("return", 0), ("def", 0), ("torch", 0), ("1)", 0)]
    for needle, occurrence in misses:
        line, col = position_of(ALIASES, needle, occurrence)
        assert await hover(client, uri, line, col) is None, needle
    # And in a real example: self, locals, parameters, attributes of self, numbers.
    path = EXAMPLES / "resnet_block.py"
    text = path.read_text()
    open_doc(client, text, path.as_uri())
    tree = ast.parse(text)
    names = [n for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id in ("self", "shortcut", "out", "width", "planes", "model")]
    assert len(names) > 20
    for node in names:
        assert await hover(client, path.as_uri(), node.lineno - 1, node.col_offset) is None, (node.id, node.lineno)


async def test_hover_follows_project_imports_with_jedi(client, tmp_path):
    """`from .utils import cat` where utils does `from torch import cat`: msport cannot follow
    the relative import; jedi can. Cold, jedi may need longer than the hover's time limit: the
    lookup keeps running and a later hover answers."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "utils.py").write_text("from torch import cat\nimport torch.nn as nn\nAct = nn.GELU\n\ndef helper(x):\n    return x\n")
    text = "from .utils import cat, Act, helper\n\ny = cat([1], 0)\na = Act()\nh = helper(1)\n"
    model = pkg / "model.py"
    model.write_text(text)
    open_doc(client, text, model.as_uri())

    async def card_of(name):
        # Each name is a new jedi lookup, which a loaded machine can take past the hover's limit.
        line, col = position_of(text, name, 1)
        for _ in range(120):
            result = await hover(client, model.as_uri(), line, col)
            if result is not None:
                return result.contents.value
            await asyncio.sleep(0.25)
        raise AssertionError(f"jedi never resolved {name}")

    card = await card_of("cat")
    assert "**`torch.cat`**" in card and "`.utils`" in card and "jedi" in card
    assert "**`torch.nn.GELU`**" in await card_of("Act")
    # A project function is not an API: no card, even though jedi finds it.
    line, col = position_of(text, "helper", 1)
    assert await hover(client, model.as_uri(), line, col) is None


async def test_dynamic_shape_findings_explain_themselves(client):
    """On a dynamic-shape finding: what to do first (the static alternative), then its message
    (why the shape depends on data, here) and where the value comes from; every paragraph once,
    within the hover's length."""
    knowledge = default_knowledge()
    checked = 0
    for path in sorted(EXAMPLES.glob("*.py")):
        text = path.read_text()
        open_doc(client, text, path.as_uri())
        for finding in analyze(text).findings:
            if finding.category.value != "dynamic-shape":
                continue
            result = await hover(client, path.as_uri(), finding.span.start_line, finding.span.start_col + 1)
            assert result is not None, (path.name, finding.code, finding.span)
            card = result.contents.value.split(SEPARATOR)[0]
            info = knowledge.codes[finding.code]
            paragraphs = card.split("\n\n")
            assert paragraphs[0].startswith(f"**{finding.code} {info.name}**")
            assert paragraphs[1].startswith("**Static alternative:** ")  # the action first
            assert finding.message.split(".")[0] in paragraphs[2]
            assert len(paragraphs) == len(set(paragraphs))
            # The message explains the mechanism and its cost here: the rule's general why is
            # the rule page's, not said a second time (nor contradicted) in the card.
            if "Static alternative:" in finding.message:
                assert "Why it matters" not in card and info.why.split(".")[0] not in card
            assert f"docs/rules/{finding.code}.md" in card and len(card) <= HOVER_LIMIT
            checked += 1
    assert checked >= 3


async def test_a_bound_taken_from_the_length_of_a_data_dependent_tensor_is_explained_consistently(client):
    """`n = len(boxes)` where `boxes = v["boxes"][keep]`: the card says where the data-dependent
    shape comes from and nothing that calls a length read a static, unreported bound."""
    text = (
        "import torch\nimport torch.nn as nn\n\n\nclass Head(nn.Module):\n"
        "    def forward(self, x, v, scores):\n"
        "        boxes = v['boxes'][scores > 0.5]\n"
        "        n = len(boxes)\n"
        "        return x[:n]\n"
    )
    uri = "file:///tmp/msport_hover/len_bound.py"
    open_doc(client, text, uri)
    finding = next(f for f in analyze(text).findings if f.code == "MS203")
    card = (await hover(client, uri, finding.span.start_line, finding.span.start_col + 1)).contents.value
    assert "`v['boxes'][scores > 0.5]`: the data-dependent value or shape comes from here" in card
    assert "not reported" not in card and "shape-derived bounds" not in card


def test_jedi_is_not_loaded_at_start_up():
    import subprocess

    code = "import sys, msport.lsp.server, msport.cli.main; print('jedi' in sys.modules or 'parso' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0 and run.stdout.strip() == "False", run.stderr


@pytest_lsp.fixture(config=SERVER)
async def vscode_extension(lsp_client: LanguageClient):
    """As msport's VS Code extension starts the server: its hover shows the diagnostics under the
    cursor above the cards, and it says so in initializationOptions."""
    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=EXAMPLES.as_uri(),
        initialization_options={"settings": {}, "client": {"hoverShowsDiagnostics": True}}))
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_cards_do_not_repeat_what_the_editor_shows_above_them(vscode_extension):
    """VS Code puts the diagnostic's message above msport's hover: the cards under it leave that
    message out (the dynamic-shape card keeps its static alternative and where the value comes
    from; the API card says what differs is said above), and nothing is said twice."""
    client = vscode_extension
    path = EXAMPLES / "ms_static_graph.py"
    text = path.read_text()
    open_doc(client, text, path.as_uri())
    dynamic = next(f for f in analyze(text).findings if f.code == "MS203")
    card = (await hover(client, path.as_uri(), dynamic.span.start_line, dynamic.span.start_col + 1)).contents.value
    assert dynamic.message.split(";")[0] not in card
    assert "**Static alternative:**" in card and "the data-dependent value or shape comes from here" in card

    path = EXAMPLES / "resnet_block.py"
    text = path.read_text()
    open_doc(client, text, path.as_uri())
    module = next(f for f in analyze(text).findings if f.code == "MS102" and f.torch_api == "torch.nn.Module")
    card = (await hover(client, path.as_uri(), module.span.start_line, module.span.end_col - 1)).contents.value
    note = verdict("torch.nn.Module").note.rstrip(".")
    assert note in module.message and note not in card
    assert "use `mindspore.nn.Cell` with care. What differs is said above." in card
