"""Each API's own texts (the note and the consequence of rules/api/, written by tools/build_rules.py
from rules/curated/ and the clause templates of tools/rulegen/notes_zh-CN.toml, and the notes of
APIs no rule judges, from rules/search.toml): in English and Simplified Chinese side by side,
clause for clause, and kept so through the knowledge base, its cache and the API check."""

import sys
from pathlib import Path

from msport.knowledge import cache
from msport.knowledge.loader import load_api_rules
from msport.knowledge.rule_texts import RuleText, clauses, in_language, joined
from msport.knowledge.search import missing_note, searched_note
from msport.knowledge.searched import Found
from msport.knowledge import toml
from prose import english_in

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from rulegen.chinese import Translator, curated_translations  # noqa: E402
from rulegen.curated import read_curated  # noqa: E402
from rulegen.measured import INFERRED_UNCOMPARED  # noqa: E402
from rulegen.notes import CATEGORY_PHRASES, ParamDiff, missing_phrase, rename_phrase  # noqa: E402

TEXTS = ("note", "consequence")
CHINESE = ("\u4e00", "\u9fff")


def _chinese(text: str) -> bool:
    return any(CHINESE[0] <= c <= CHINESE[1] for c in text)


def _texts():
    """(file, torch API, field, English, Chinese or None) of every text of rules/api/."""
    for path in sorted((ROOT / "rules" / "api").glob("*.toml")):
        for rule in toml.loads(path.read_text(encoding="utf-8"))["api"]:
            for table in (rule, *rule.get("targets", ())):
                for field in TEXTS:
                    if field in table:
                        yield path.name, rule["torch"], field, table[field], table.get(field + "_zh-CN")


def test_every_api_text_stands_in_both_languages_clause_for_clause():
    texts = list(_texts())
    assert len(texts) > 1000  # every version range of every target with a note
    for name, torch, field, english, chinese in texts:
        where = f"rules/api/{name}, {torch}, {field}"
        assert chinese, f"{where}: no {field}_zh-CN"
        assert _chinese(chinese) and english_in(chinese) == [], (where, english_in(chinese))
        # The API check keeps or drops a note's clauses per call: both languages alike.
        assert english.count("; ") == chinese.count("；"), where


def test_every_hand_written_text_has_its_chinese():
    """rules/curated/: a note or consequence without note_zh-CN (or with other clauses) is named."""
    translations, missing = curated_translations(read_curated())
    assert missing == []
    assert len(translations) >= 250


def test_a_curated_text_without_its_chinese_is_named(tmp_path):
    (tmp_path / "mine.toml").write_text(
        '[[api]]\ntorch = "torch.foo"\nmindspore = "mindspore.ops.foo"\nstatus = "divergent"\nnote = "a; b"\nnote_zh-CN = "甲"\n\n'
        '[[api]]\ntorch = "torch.bar"\nstatus = "missing"\nnote = "none"\n', encoding="utf-8")
    _, missing = curated_translations(read_curated(tmp_path))
    assert missing == ["mine.toml #1 (torch.foo): note_zh-CN has 1 clauses (separated by '；'), note 2 ('; ')",
                       "mine.toml #2 (torch.bar): note_zh-CN is missing"]


def test_the_generators_phrases_have_chinese_templates():
    """Phrases tools/rulegen writes from facts are translated by template, parameters as they are."""
    translator = Translator({})
    assert translator.note(rename_phrase((("dim", "axis"), ("keepdim", "keep_dims"), ("input", "x")))) == \
        "参数 dim、keepdim 和 input 在 MindSpore 中名为 axis、keep_dims 和 x"
    assert translator.note(missing_phrase(("out",))) == "MindSpore 没有 out 参数"
    phrases = ParamDiff(moved=("weight", "bias"), varargs=("size",)).phrases()
    assert translator.note("; ".join(phrases)) == "weight 和 bias 位于另一位置：请用关键字参数传入；size 在 PyTorch 中是多个独立参数，在 MindSpore 中是一个元组"
    for phrase in [*CATEGORY_PHRASES.values(), INFERRED_UNCOMPARED]:
        assert _chinese(translator.note(phrase)), phrase
    assert translator.note("in MindSpore 2.7 parameter input is named x (renamed in a later release)") == \
        "在 MindSpore 2.7 中，参数 input 在 MindSpore 中名为 x（后续版本已改名）"
    assert translator.note("run with PyTorch's arguments (x, 1), result 0: dtype int32 instead of int64 (measured)") == \
        "实测：以 PyTorch 的参数 (x, 1) 运行，第 0 个结果的 dtype 为 int32，而不是 int64"
    # A signature without parameters is said so, not as a list holding the words "no parameters".
    assert translator.note("it takes (no parameters)") == "它不接受参数"
    assert translator.note("mindspore.ops.foo takes (no parameters) in MindSpore 2.7, and PyTorch's signature is not "
                           "introspectable: match the arguments by position and meaning").startswith("mindspore.ops.foo 在 MindSpore 2.7 中不接受参数，")
    assert translator.untranslated == []
    # A curated clause kept beside generated ones keeps its own translation.
    mixed = Translator({"keep it; drop it": "保留；删除"}).note("keep it; the inputs differ")
    assert mixed == "保留；输入不同"
    unknown = Translator({})
    assert unknown.note("a phrase nobody wrote a template for") == "a phrase nobody wrote a template for"
    assert unknown.untranslated == ["a phrase nobody wrote a template for"]


def test_a_note_keeps_its_chinese_clause_by_clause():
    note = RuleText("the default of dim differs; parameter input is named x", [("zh-CN", "dim 的默认值不同；参数 input 名为 x")])
    first, second = clauses(note)
    assert (first, in_language(first, "zh-CN")) == ("the default of dim differs", "dim 的默认值不同")
    kept = joined([second, "已按调用核对"])  # a clause the check wrote, in the request's language
    assert in_language(kept, "zh-CN") == "参数 input 名为 x；已按调用核对"
    assert str(joined([second])) == "parameter input is named x"
    # A translation with other clauses cannot be split: its clauses fall back to English.
    assert [in_language(c, "zh-CN") for c in clauses(RuleText("a; b", [("zh-CN", "甲")]))] == ["a", "b"]


def test_the_loader_requires_the_chinese_of_the_bundled_rules_only(tmp_path):
    path = tmp_path / "rules.toml"
    path.write_text('[[api]]\ntorch = "torch.foo"\nmindspore = "mindspore.ops.foo"\nstatus = "divergent"\nnote = "differs"\n'
                    'consequence = "off by one"\nconsequence_zh-CN = "差一"\n', encoding="utf-8")
    problems = []
    assert load_api_rules(path, problems) == []  # a bundled rule without its Chinese is not loaded
    assert [str(p) for p in problems] == [
        "rules.toml, entry #1 (torch.foo), field 'note_zh-CN': missing: every text a person reads is written in every "
        "language (the zh-CN of 'note')"]
    problems = []
    (rule,) = load_api_rules(path, problems, label="my-rules.toml")  # a user's own rules: English will do
    assert problems == [] and in_language(rule.targets[0].note, "zh-CN") == "differs"
    assert in_language(rule.targets[0].consequence, "zh-CN") == "差一"


def test_the_cache_keeps_the_translations():
    note = RuleText("differs", [("zh-CN", "不同")])
    rules = load_api_rules(ROOT / "rules" / "api" / "torch_nn_module.toml", [])
    rule = next(r for r in rules if r.torch == "torch.nn.Module")
    back = cache._decode(__import__("json").loads(__import__("json").dumps(cache._encode(rule))))
    assert in_language(back.targets[0].note, "zh-CN") == in_language(rule.targets[0].note, "zh-CN")
    assert _chinese(in_language(back.targets[0].note, "zh-CN")) and str(back.targets[0].note) == str(rule.targets[0].note)
    assert cache._texts({"note": note})["note"] == ["differs", {"zh-CN": "不同"}]


def test_the_notes_of_apis_no_rule_judges_are_in_both_languages():
    for name, kind in (("torch.frobnicate", "function"), ("torch.nn.functional.frobnicate", "function"), ("torch.Tensor.frobnicate_", "method")):
        note = missing_note(name, kind, lambda base: "mindspore.Tensor.frobnicate" if base.endswith("frobnicate") else None)
        chinese = note.in_language("zh-CN")
        assert "frobnicate" in chinese and _chinese(chinese) and english_in(chinese) == [], chinese
        assert not _chinese(str(note))
    found = Found("torch.Tensor.fro", "mindspore.Tensor.fro", "divergent", ("x, 1",), ("x: it returns another shape", "i: it raises"), ("cpu",))
    note = searched_note(found)
    assert note.in_language("zh-CN").count("；") == str(note).count("; ") and english_in(note.in_language("zh-CN")) == []
    assert "对于 x.fro()，返回的形状不同；对于 i.fro()，会抛出异常" in note.in_language("zh-CN")


def test_what_leaving_a_default_out_gave_is_in_both_languages():
    """rules/proven_defaults.toml's differs (quoted in MS102 when a call leaves such a parameter
    out): its Chinese is what tools/prove_default_keywords.py writes, and the loader keeps both."""
    from msport.knowledge.default_clauses import load_default_clauses
    from prove_default_keywords import differs_chinese

    known = load_default_clauses()
    assert known.problems == ()
    runs = [r for r in toml.loads((ROOT / "rules" / "proven_defaults.toml").read_text(encoding="utf-8"))["proven"] if r.get("differs")]
    assert runs
    for run in runs:
        call, _, detail = run["differs"].partition(": ")
        assert run["differs_zh-CN"] == differs_chinese(call, "result 0: " + detail), run
        said = known.difference(run["torch"], run["mindspore"], run["param"])
        assert str(said) == run["differs"] and in_language(said, "zh-CN") == run["differs_zh-CN"]
        assert english_in(in_language(said, "zh-CN")) == [], run
