"""The message catalogue (rules/messages/, knowledge/messages.py): every text in both languages
with the same placeholders, every key the code asks for defined and every defined key asked for,
and the language tags editors and terminals send mapped to the language msport speaks."""

import re
from pathlib import Path

import pytest

from msport.knowledge.messages import CHINESE, ENGLISH, LANGUAGES, default_catalogue, language_of, listing, load_catalogue, message, sentences

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "server" / "msport").rglob("*.py"))
#: A catalogue key written in the code: message("cli.summary.clean", ...), "unsafe.mask_shape".
KEY = re.compile(r"""["']((?:action|api|card|cli|count|files|list|lsp|mcp|report|settings|unchecked|unsafe)\.[a-z_.]+[a-z_])["']""")
#: The start of a key the code completes at run time: message(f"count.{severity}", ...).
KEY_PREFIX = re.compile(r"""f["']((?:action|api|card|cli|count|files|list|lsp|mcp|report|settings|unchecked|unsafe)\.)\{""")


def test_the_bundled_catalogue_has_no_problem_and_speaks_both_languages():
    catalogue = default_catalogue()
    assert catalogue.problems == ()
    assert len(catalogue.texts) >= 30
    for key, texts in catalogue.texts.items():
        assert set(texts) == set(LANGUAGES), key


def test_every_key_the_code_asks_for_is_defined_and_every_defined_key_is_asked_for():
    code = "\n".join(path.read_text(encoding="utf-8") for path in SOURCES)
    used = set(KEY.findall(code))
    prefixes = set(KEY_PREFIX.findall(code))
    defined = set(default_catalogue().texts)
    assert used - defined == set()
    unused = {key for key in defined - used if not any(key.startswith(p) for p in prefixes)}
    assert unused == set()


def test_a_file_missing_a_language_or_changing_a_placeholder_is_named_precisely(tmp_path):
    (tmp_path / "messages").mkdir()
    (tmp_path / "messages" / "mine.toml").write_text(
        '[greeting.hello]\nen = "Hello {name}"\nzh-CN = "你好 {nom}"\n\n'
        '[greeting.bye]\nen = "Bye"\n\n'
        '[greeting.files]\nen = { one = "{count} file", many = "{count} files" }\nzh-CN = "{count} 个文件"\n\n'
        '[greeting.extra]\nen = "Hi"\nzh-CN = "嗨"\nfr = "Salut"\n',
        encoding="utf-8",
    )
    (tmp_path / "messages" / "other.toml").write_text('[greeting.bye]\nen = "Bye"\nzh-CN = "再见"\n', encoding="utf-8")
    problems = {str(p) for p in load_catalogue(tmp_path).problems}
    assert problems == {
        "messages/mine.toml, greeting.hello, field 'zh-CN': fills in ['nom'], but en fills in ['name']",
        "messages/mine.toml, greeting.bye, field 'zh-CN': missing: every message is written in every language",
        "messages/mine.toml, greeting.files, field 'en': plural forms must be exactly one and other, each a non-empty string; got ['many', 'one']",
        "messages/mine.toml, greeting.extra, field 'fr': unknown language; msport speaks en, zh-CN",
        "messages/other.toml, greeting.bye: defined twice (also in messages/mine.toml)",
    }


def test_plural_forms_are_chosen_by_count_and_chinese_has_one_form():
    assert message("count.files", ENGLISH, count=1) == "1 file"
    assert message("count.files", ENGLISH, count=0) == "0 files"
    assert message("count.files", ENGLISH, count=2) == "2 files"
    assert message("count.files", CHINESE, count=2) == "2 个文件"
    assert listing(["a", "b"], CHINESE) == "a，b" and listing(["a", "b"]) == "a, b"
    assert sentences(["一。", "二。"], CHINESE) == "一。二。" and sentences(["One.", "Two."]) == "One. Two."


def test_an_unknown_key_is_a_bug_not_a_blank():
    with pytest.raises(KeyError):
        message("cli.no_such_text")


@pytest.mark.parametrize("tag, language", [
    ("zh-cn", CHINESE), ("zh-CN", CHINESE), ("zh_CN.UTF-8", CHINESE), ("zh-Hans", CHINESE), ("zh-tw", CHINESE),
    ("en", ENGLISH), ("en-US", ENGLISH), ("en_GB.UTF-8", ENGLISH), ("fr", ENGLISH), ("C", ENGLISH), ("C.UTF-8", ENGLISH),
    ("POSIX", ENGLISH), ("", None), (None, None), ("%%", None),
])
def test_locale_tags_map_to_a_language_msport_speaks(tag, language):
    assert language_of(tag) == language


def test_what_msport_did_not_check_is_said_in_the_users_language():
    """The engine's MS002 texts come from the catalogue: a file over max-lines, in Chinese."""
    from msport.analysis.engine import analyze
    from msport.analysis.settings import Settings

    text = "x = 1\n" * 20
    for language, expected in ((ENGLISH, "File not checked: 21 lines exceed"), (CHINESE, "文件未检查：21 行超过了 5 行")):
        (finding,) = analyze(text, Settings(max_lines=5, language=language)).findings
        assert finding.code == "MS002" and finding.message.startswith(expected), finding.message
