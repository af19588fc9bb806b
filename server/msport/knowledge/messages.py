"""The message catalogue: texts msport shows a person, by key, in every language it speaks.

The texts are data (rules/messages/*.toml, format in rules/messages/README.md): one table per
key with the English and the Simplified Chinese side by side, so a translation is reviewed
beside its source. Code asks for ``message(key, language, **arguments)``; it never holds the
text. A text may have plural forms (``one``/``other``), chosen by the argument ``count``.

Languages are BCP 47 tags. ``language_of`` maps what editors and systems send (an LSP
``locale`` such as "zh-cn", VS Code's display language, ``LANG=zh_CN.UTF-8``) to one msport
speaks: every Chinese tag reads Simplified Chinese, which is closer to a Chinese reader than
English; any other tag reads English.
"""

from __future__ import annotations

import re
import string
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple, Union

from .loader import RuleFileError, RuleProblem, read_toml, rules_dir
from .shared import load_once

ENGLISH = "en"
CHINESE = "zh-CN"
#: The languages msport speaks, as written in settings and in the catalogue's tables.
LANGUAGES: Tuple[str, ...] = (ENGLISH, CHINESE)
DEFAULT_LANGUAGE = ENGLISH
PLURAL_FORMS = ("one", "other")
FOLDER = "messages"

#: One text: a string, or its plural forms {"one": ..., "other": ...}.
Text = Union[str, Mapping[str, str]]


def language_of(tag: Optional[str]) -> Optional[str]:
    """The language msport speaks for a locale tag ("zh-cn", "zh_CN.UTF-8", "en-US", "C"), or
    None when *tag* names none (empty, or not a language tag)."""
    if not isinstance(tag, str):
        return None
    base = re.split(r"[.@]", tag.strip())[0].replace("_", "-").lower()
    if not base:
        return None
    primary = base.split("-")[0]
    if primary == "zh":
        return CHINESE
    if primary in ("c", "posix") or re.fullmatch(r"[a-z]{2,3}", primary):
        return ENGLISH
    return None


@dataclass(frozen=True)
class Catalogue:
    """Every message: key -> language -> text."""

    texts: Mapping[str, Mapping[str, Text]]
    problems: Tuple[RuleProblem, ...] = ()

    def message(self, key: str, language: str = DEFAULT_LANGUAGE, **arguments: Any) -> str:
        """The text of *key* in *language* (English where the entry has no such text), with
        *arguments* filled in. An unknown key is a bug in msport, so it raises KeyError."""
        entry = self.texts[key]
        text = entry.get(language) or entry[DEFAULT_LANGUAGE]
        if not isinstance(text, str):
            text = text["one"] if arguments.get("count") == 1 else text["other"]
        return text.format(**arguments)


def placeholders(text: Text) -> frozenset:
    """The {names} a text (all its plural forms) fills in."""
    forms = [text] if isinstance(text, str) else list(text.values())
    return frozenset(name for form in forms for _, name, _, _ in string.Formatter().parse(form) if name)


def _entries(table: Mapping[str, Any], prefix: str = ""):
    """(dotted key, table) of every entry: a table whose keys are languages."""
    for name, value in table.items():
        key = f"{prefix}{name}"
        if isinstance(value, Mapping) and any(language in value for language in LANGUAGES):
            yield key, value
        elif isinstance(value, Mapping):
            yield from _entries(value, key + ".")
        else:
            yield key, value


def _check_text(value: Any, where: str, key: str, language: str, problems: List[RuleProblem]) -> Optional[Text]:
    def problem(message: str) -> None:
        problems.append(RuleProblem(where, key, language, message))

    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, Mapping):
        forms = {k: v for k, v in value.items() if isinstance(v, str) and v.strip()}
        if set(value) != set(PLURAL_FORMS) or len(forms) != len(PLURAL_FORMS):
            problem(f"plural forms must be exactly {' and '.join(PLURAL_FORMS)}, each a non-empty string; got {sorted(value)}")
            return None
        return forms
    problem(f"expected a non-empty string or plural forms {{ one = ..., other = ... }}, got {value!r}")
    return None


def load_catalogue(directory: Optional[Path] = None) -> Catalogue:
    """The catalogue from every ``messages/*.toml`` of *directory* (default: the bundled rules).
    Problems (a missing language, placeholders that differ between languages, a key defined
    twice) name the file, the key and the language; a test requires there be none."""
    folder = (directory or rules_dir()) / FOLDER
    texts: Dict[str, Dict[str, Text]] = {}
    defined_in: Dict[str, str] = {}
    problems: List[RuleProblem] = []
    for path in sorted(folder.glob("*.toml")):
        where = f"{FOLDER}/{path.name}"
        try:
            data = read_toml(path)
        except RuleFileError as exc:
            problems.append(RuleProblem(where, "", "", str(exc)))
            continue
        for key, entry in _entries(data):
            if not isinstance(entry, Mapping):
                problems.append(RuleProblem(where, key, "", f"expected a table of texts by language ({', '.join(LANGUAGES)}), got {entry!r}"))
                continue
            if key in defined_in:
                problems.append(RuleProblem(where, key, "", f"defined twice (also in {defined_in[key]})"))
                continue
            unknown = sorted(set(entry) - set(LANGUAGES))
            if unknown:
                problems.append(RuleProblem(where, key, unknown[0], f"unknown language; msport speaks {', '.join(LANGUAGES)}"))
            checked = {}
            for language in LANGUAGES:
                if language not in entry:
                    problems.append(RuleProblem(where, key, language, "missing: every message is written in every language"))
                    continue
                text = _check_text(entry[language], where, key, language, problems)
                if text is not None:
                    checked[language] = text
            if DEFAULT_LANGUAGE not in checked:
                continue
            source = placeholders(checked[DEFAULT_LANGUAGE])
            for language, text in checked.items():
                if placeholders(text) != source:
                    problems.append(RuleProblem(where, key, language, f"fills in {sorted(placeholders(text))}, but {DEFAULT_LANGUAGE} fills in {sorted(source)}"))
            texts[key] = checked
            defined_in[key] = where
    return Catalogue(texts, tuple(problems))


default_catalogue = load_once(load_catalogue)


def sentences(parts, language: str = DEFAULT_LANGUAGE) -> str:
    """Sentences of one paragraph: English puts a space between them, Chinese nothing."""
    return ("" if language == CHINESE else " ").join(p for p in parts if p)


def sentence(text: str, language: str = DEFAULT_LANGUAGE) -> str:
    """*text* as a sentence of its own: English capitalises it and ends it with a full stop,
    Chinese ends it with a full-width one."""
    text = text.strip().rstrip(".。")
    if not text:
        return ""
    return text + "。" if language == CHINESE else text[:1].upper() + text[1:] + "."


def listing(items, language: str = DEFAULT_LANGUAGE) -> str:
    """Items of a run-in list: "a, b" in English, "a，b" in Chinese."""
    return message("list.separator", language).join(items)


def message(key: str, language: str = DEFAULT_LANGUAGE, **arguments: Any) -> str:
    """``key``'s text from the bundled catalogue, in *language*, with *arguments* filled in."""
    return default_catalogue().message(key, language, **arguments)
