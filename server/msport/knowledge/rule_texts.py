"""Texts a person reads that live in the rule files, beside the knowledge they speak of.

A message template of a check family (rules/callforms.toml's ``[messages]``, a call form's
``message``, a port fix's ``title``...) is written in English under its field name and in
Simplified Chinese under the same name with the suffix ``_zh-CN``, on the next line:

    message = "{target} has no inplace parameter ..."
    message_zh-CN = "{target} 没有 inplace 参数……"

so a translation is reviewed beside its source, and an edit of either stays a one-line change.
Both are required and fill in the same placeholders: a loader reading a text through this module
reports a missing or mismatched translation as a RuleProblem naming the file, the entry and the
field, like any other bad field (the bundled rules must load without one).

A loaded text is a ``RuleText``: a ``str`` holding the English (so code and tools that speak only
English read it as before) that carries its translations; ``in_language`` picks one.
"""

from __future__ import annotations

from typing import Any, Dict, Iterable, List, Mapping, Optional, Tuple

from .loader import RuleProblem
from .messages import CHINESE, DEFAULT_LANGUAGE, placeholders

#: The field suffix of each translation (the English is the field itself).
SUFFIXES: Tuple[Tuple[str, str], ...] = ((CHINESE, "_zh-CN"),)


class RuleText(str):
    """A text of a rule file: its English as the string, with its translations."""

    __slots__ = ("translations",)

    def __new__(cls, english: str, translations: Iterable[Tuple[str, str]] = ()) -> "RuleText":
        text = super().__new__(cls, english)
        text.translations = tuple(translations)
        return text

    def in_language(self, language: str = DEFAULT_LANGUAGE) -> str:
        """The text in *language* (English where it has no such translation)."""
        return dict(self.translations).get(language) or str(self)


def in_language(text: Optional[str], language: str = DEFAULT_LANGUAGE) -> str:
    """*text* in *language*: a RuleText's translation, or a plain string as it is."""
    if isinstance(text, RuleText):
        return text.in_language(language)
    return text or ""


def with_translations(fields: Iterable[str]) -> Tuple[str, ...]:
    """*fields* and their translation fields: the names a table holding those texts may use."""
    return tuple(name + suffix for name in fields for suffix in ("", *(s for _, s in SUFFIXES)))


def read_text(table: Mapping[str, Any], field: str, file: str, entry: str, problems: List[RuleProblem],
              *, required: bool = False) -> Optional[RuleText]:
    """The text of *field* in *table* with its translations; None (and a problem when required)
    when absent. Each problem names *file*, *entry* and the field."""
    english = table.get(field)
    if english is None:
        if required:
            problems.append(RuleProblem(file, entry, field, "is required"))
        return None
    if not isinstance(english, str) or not english.strip():
        problems.append(RuleProblem(file, entry, field, f"expected a non-empty string, got {english!r}"))
        return None
    source = placeholders(english)
    translations = []
    for language, suffix in SUFFIXES:
        name = field + suffix
        text = table.get(name)
        if text is None:
            problems.append(RuleProblem(file, entry, name, f"missing: every text a person reads is written in every language (the {language} of '{field}')"))
        elif not isinstance(text, str) or not text.strip():
            problems.append(RuleProblem(file, entry, name, f"expected a non-empty string, got {text!r}"))
        elif placeholders(text) != source:
            problems.append(RuleProblem(file, entry, name, f"fills in {sorted(placeholders(text))}, but '{field}' fills in {sorted(source)}"))
        else:
            translations.append((language, text))
    return RuleText(english, translations)


def read_texts(table: Any, file: str, label: str, keys: Iterable[str], problems: List[RuleProblem],
               others: Iterable[str] = ()) -> Dict[str, RuleText]:
    """A table of templates (``[messages]``): each of *keys* required, with its translations;
    a key neither among them nor in *others* (the table's fields that are not texts) is a problem."""
    keys = tuple(keys)
    if not isinstance(table, Mapping):
        problems.append(RuleProblem(file, label, "", f"expected a table of name = \"template\", got {table!r}"))
        return {}
    allowed = set(with_translations(keys)) | set(others)
    for name in table:
        if name not in allowed:
            problems.append(RuleProblem(file, label, name, f"unknown field; expected one of {', '.join(keys)} (each with its {', '.join(s for _, s in SUFFIXES)})"))
    texts = {}
    for key in keys:
        text = read_text(table, key, file, label, problems, required=True)
        if text is not None:
            texts[key] = text
    return texts


#: How a note separates its clauses, per language (tools/rulegen writes them so).
CLAUSE_SEPARATORS = {DEFAULT_LANGUAGE: "; ", CHINESE: "；"}


def clauses(note: Optional[str]) -> List[str]:
    """The clauses of a note, each a RuleText carrying its own translations where the note's
    translation has as many clauses (the rules are written so; tests/messages checks it)."""
    if not note:
        return []
    english = str(note).split(CLAUSE_SEPARATORS[DEFAULT_LANGUAGE])
    split = []
    for language, text in getattr(note, "translations", ()):
        parts = text.split(CLAUSE_SEPARATORS.get(language, "; "))
        if len(parts) == len(english):
            split.append((language, parts))
    return [RuleText(part, [(language, parts[i]) for language, parts in split]) for i, part in enumerate(english)]


def joined(parts: Iterable[str]) -> RuleText:
    """Clauses (RuleTexts, or plain texts already in the language they are shown in) as one note."""
    parts = [p for p in parts if p]
    languages = {language for p in parts for language, _ in getattr(p, "translations", ())}
    translations = [(language, CLAUSE_SEPARATORS.get(language, "; ").join(in_language(p, language) for p in parts))
                    for language in sorted(languages)]
    return RuleText(CLAUSE_SEPARATORS[DEFAULT_LANGUAGE].join(str(p) for p in parts), translations)
