"""Texts a person reads that live in the rule files (knowledge/rule_texts.py): each in English and
Simplified Chinese side by side, with the same placeholders, in every rule file that holds them;
and the checks speak the user's language with them."""

import re
import string
from pathlib import Path
from types import SimpleNamespace

import pytest

from msport.knowledge import callforms, graph_mode, port_fixes, replacements, search, second_order, sparse, triggers, weights
from msport.knowledge.loader import load_api_rules
from msport.knowledge.codes import TEXTS as CODE_TEXTS, load_codes
from msport.knowledge.loader import RuleProblem
from msport.knowledge.rule_texts import SUFFIXES, read_text, read_texts
from msport.knowledge import toml

ROOT = Path(__file__).resolve().parents[2]
RULES = ROOT / "rules"
#: Chinese characters or full-width punctuation: what a translation is written in (code and API
#: names stay as they are, so a title such as "pad_mode='pad'" may be its own translation).
CHINESE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef]")


def _load_triggers():
    """The dynamic-shape triggers' loader (its problems in a list it is handed)."""
    problems = []
    triggers.load_triggers(RULES / triggers.FILE_NAME, problems)
    return SimpleNamespace(problems=problems)


#: Rule files whose texts a person reads, with the loader that reads them through rule_texts.py.
#: A missing or mismatched translation is a problem of the loader.
TRANSLATED = {
    "callforms.toml": callforms.load_callforms,
    "graph_mode.toml": graph_mode.load_graph_mode,
    "port_fixes.toml": port_fixes.load_port_fix_rules,
    "replacements.toml": replacements.load_replacements,
    "second_order.toml": second_order.load_second_order,
    "sparse.toml": sparse.load_sparse,
    "dynamic_shape.toml": _load_triggers,
    "weights.toml": weights.load_weight_rules,
    "search.toml": search.load_search,
}


def _load_codes(name: str):
    """The loader of one file of rules/codes (the rule pages: explain, hover, docs/rules)."""
    def load():
        problems = []
        load_codes(RULES / name, problems)
        return SimpleNamespace(problems=problems)
    return load


TRANSLATED.update({f"codes/{p.name}": _load_codes(f"codes/{p.name}") for p in sorted((RULES / "codes").glob("*.toml"))})


def _load_api(name: str):
    """The loader of one file of rules/api (each API's note and consequence: MS101/MS102, the
    hover cards, explain, the report, docs/rules/zh-CN/apis)."""
    def load():
        problems = []
        load_api_rules(RULES / name, problems)
        return SimpleNamespace(problems=problems)
    return load


TRANSLATED.update({f"api/{p.name}": _load_api(f"api/{p.name}") for p in sorted((RULES / "api").glob("*.toml"))})
#: rules/curated/ is read by the generator, which fails on a note without note_zh-CN
#: (tests/messages/test_api_notes.py); rules/api/ carries both, read by the loader above.
CURATED = "curated/"
#: The message catalogue: both languages in each entry (tests/messages/test_catalogue.py).
CATALOGUE = "messages/"
#: Rule files that hold no text a person reads (facts, proofs, snapshots of the packages).
NO_TEXT = {
    "proven_callforms.toml": "which call shapes the prover ran",
    "proven_defaults.toml": "which parameters the prover ran passed explicitly (the runs it quotes, differs, are in both "
                            "languages: tests/messages/test_api_notes.py)",
    "default_clauses.toml": "patterns that read the rules' notes (its sentences are in callforms.toml)",
    "proven_renames.toml": "which renames the prover ran",
    "searched.toml": "which counterparts tools/search_counterparts.py found and ran (its sentences are in search.toml)",
    "tensors.toml": "what makes an expression a tensor",
    "snapshots/": "the packages' own lists",
}


def _relative(path: Path) -> str:
    return path.relative_to(RULES).as_posix()


def _group(name: str) -> str:
    return name if "/" not in name else name.split("/")[0] + "/"


def _tables(value, where=""):
    """(where, table) of every table in a TOML document, nested and in arrays."""
    if isinstance(value, dict):
        yield where, value
        for key, item in value.items():
            yield from _tables(item, f"{where}.{key}" if where else key)
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _tables(item, f"{where}[{index}]")


def _placeholders(text: str) -> set:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_rule_file_is_translated_or_says_why_not():
    for path in sorted(RULES.rglob("*.toml")):
        name = _relative(path)
        group = _group(name)
        known = name in TRANSLATED or group in (CATALOGUE, CURATED) or name in NO_TEXT or group in NO_TEXT
        assert known, f"rules/{name}: add it to TRANSLATED (its texts in both languages) or say why it holds none"


@pytest.mark.parametrize("name", sorted(TRANSLATED))
def test_every_text_of_a_translated_rule_file_is_in_both_languages(name):
    rules = TRANSLATED[name]()
    problems = [str(p) for p in rules.problems]
    assert problems == []
    document = toml.loads((RULES / name).read_text(encoding="utf-8"))
    translations = [(where, key) for where, table in _tables(document) for key in table if key.endswith("_zh-CN")]
    # Read through rule_texts.py (an API file may hold few notes: most APIs are equivalent).
    assert len(translations) >= 10 or name.startswith("codes/") and len(translations) >= 9 or name.startswith("api/") and translations, name


@pytest.mark.parametrize("name", sorted(set(_relative(p) for p in RULES.rglob("*.toml"))))
def test_every_translation_stands_beside_its_english_with_the_same_placeholders(name):
    document = toml.loads((RULES / name).read_text(encoding="utf-8"))
    for where, table in _tables(document):
        for key, value in table.items():
            for _, suffix in SUFFIXES:
                if not key.endswith(suffix):
                    continue
                source = key[: -len(suffix)]
                assert source in table, f"rules/{name}, {where}: {key} translates nothing (no {source})"
                english, translated = table[source], value
                if isinstance(english, dict):  # a table of texts by keyword (random = {...})
                    assert set(translated) == set(english), f"rules/{name}, {where}.{key}"
                    pairs = [(english[k], translated[k]) for k in english]
                else:
                    pairs = [(english, translated)]
                for en, zh in pairs:
                    assert _placeholders(en) == _placeholders(zh), f"rules/{name}, {where}.{key}: {zh!r}"
                    assert CHINESE.search(zh) or en == zh, f"rules/{name}, {where}.{key} is not Chinese: {zh!r}"


def test_a_missing_or_mismatched_translation_is_named_precisely():
    problems = []
    texts = read_texts({"a": "A {x}", "a_zh-CN": "甲 {y}", "b": "B", "c": "C", "c_zh-CN": "丙", "d_zh-CN": "丁"},
                       "mine.toml", "[messages]", ("a", "b", "c"), problems)
    assert {str(p) for p in problems} == {
        "mine.toml, [messages], field 'a_zh-CN': fills in ['y'], but 'a' fills in ['x']",
        "mine.toml, [messages], field 'b_zh-CN': missing: every text a person reads is written in every language (the zh-CN of 'b')",
        "mine.toml, [messages], field 'd_zh-CN': unknown field; expected one of a, b, c (each with its _zh-CN)",
    }
    assert texts["c"] == "C" and texts["c"].in_language("zh-CN") == "丙"
    assert texts["b"].in_language("zh-CN") == "B"  # read, and said in English until translated
    problems = []
    assert read_text({}, "title", "mine.toml", "fix #1", problems, required=True) is None
    assert problems == [RuleProblem("mine.toml", "fix #1", "title", "is required")]


# -- the checks speak the user's language with these texts ---------------------------------------

SOURCES = {
    "MS103": "import torch\nx = torch.zeros(2, 3)\ny = torch.cat([x, x], dim=0)\n",
    "MS401": "from mindspore import nn\n\nclass Net(nn.Cell):\n    def construct(self, x):\n        try:\n            y = x * 2\n        except ValueError:\n            y = x\n        return y\n",
    "MS501": "import torch\nimport torch.nn.functional as F\n\ndef penalty(model, x):\n    y = F.elu(model(x))\n"
             "    g, = torch.autograd.grad(y.sum(), x, create_graph=True)\n    return g.pow(2).sum()\n",
    "MS601": "import torch\n\ndef f(x, idx, vals):\n    a = torch.sparse_coo_tensor(idx, vals, (3, 4))\n    return a.t()\n",
    "MS302": "import torch.nn as nn\n\nclass M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
             "        self.pool = nn.AdaptiveAvgPool2d(1)\n\n    def forward(self, x):\n        return self.pool(x)\n",
    "MS104": "import torch\nimport mindspore\nx = mindspore.ops.zeros((2, 3))\n",
}
#: English frames each family's message is built on: none may show through in Chinese.
ENGLISH_FRAMES = ("has a direct equivalent", "Instead:", "is differentiated twice", "on the sparse", "Dense fallback",
                  "pools each channel", "is no longer used", "Replace with", "which is compiled as a graph")


@pytest.mark.parametrize("code", sorted(SOURCES))
def test_a_finding_and_its_fix_titles_are_in_the_language_asked_for(analyze, code):
    english = [f for f in analyze(SOURCES[code]) if f.code == code]
    chinese = [f for f in analyze(SOURCES[code], language="zh-CN") if f.code == code]
    assert english and len(chinese) == len(english), code
    for en, zh in zip(english, chinese):
        assert not CHINESE.search(en.message), en.message
        texts = [zh.message] + [fix.title for fix in zh.fixes]
        for text in texts:
            assert CHINESE.search(text), text
            assert not [frame for frame in ENGLISH_FRAMES if frame in text], text
        assert [f.edits for f in zh.fixes] == [f.edits for f in en.fixes]  # the same fixes, said in Chinese


def test_every_rule_page_is_written_in_both_languages():
    """Each rule code's summary, why and fix (explain, the hover over a finding, docs/rules)
    stands in English and Chinese: a new code without its Chinese fails here, by name."""
    for path in sorted((RULES / "codes").glob("*.toml")):
        for entry in toml.loads(path.read_text(encoding="utf-8"))["code"]:
            for field in CODE_TEXTS:
                if field in entry:
                    assert field + "_zh-CN" in entry, f"rules/codes/{path.name}, {entry['code']}: {field} has no {field}_zh-CN"
