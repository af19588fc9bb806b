"""The Simplified Chinese of the notes written into rules/api/ (``note_zh-CN`` beside ``note``).

A hand-written note (rules/curated/) carries its own translation (``note_zh-CN``). A note the
generator built from facts is translated clause by clause with the templates of
notes_zh-CN.toml, so a new fact needs no new translation, only a new phrase a new template. A
note that mixes both (a curated clause kept beside generated ones) takes each clause from
whichever knows it. The Chinese has as many clauses as the English ("；" for "; "): the
analysis core drops and keeps clauses of a note per call, in both languages alike.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict, List, Optional, Pattern, Tuple

from .facts import read_toml

CHINESE = "zh-CN"
SUFFIX = "_zh-CN"
CLAUSES = "; "
CLAUSES_ZH = "；"
TEMPLATES = Path(__file__).with_name("notes_zh-CN.toml")
#: A run-in list of parameters as notes.py writes it ("a, b and c").
_LIST_AND = re.compile(r"^(.*) and (\w+)$")


def _compiled(entries) -> Tuple[Tuple[Pattern, str], ...]:
    return tuple((re.compile(e["en"]), e[CHINESE]) for e in entries)


def _names(text: str) -> str:
    found = _LIST_AND.match(text)
    if not found:
        return text
    return "、".join(found.group(1).split(", ")) + " 和 " + found.group(2)


class Translator:
    """English note -> its Chinese, from the curated translations and the clause templates."""

    def __init__(self, curated: Dict[str, str], path: Path = TEMPLATES):
        data = read_toml(path)
        self.clauses = _compiled(data["clause"])
        self.details = _compiled(data["detail"])
        self.curated = dict(curated)
        # A curated note's clauses, for notes that keep some of them beside generated ones.
        for english, chinese in curated.items():
            parts, parts_zh = english.split(CLAUSES), chinese.split(CLAUSES_ZH)
            if len(parts) == len(parts_zh):
                self.curated.update(zip(parts, parts_zh))
        self.untranslated: List[str] = []

    def note(self, english: str) -> str:
        if not english:
            return ""
        if english in self.curated:
            return self.curated[english]
        return CLAUSES_ZH.join(self.clause(part) for part in english.split(CLAUSES))

    def detail(self, english: str) -> Optional[str]:
        """What a run showed ("result 0: shape (3,) instead of ()"), by the [detail] templates;
        None when none matches."""
        return self._fill(english, self.details)

    def clause(self, english: str) -> str:
        if english in self.curated:
            return self.curated[english]
        found = self._fill(english, self.clauses)
        if found is None:
            self.untranslated.append(english)
            return english
        return found

    def _fill(self, english: str, templates) -> Optional[str]:
        for pattern, chinese in templates:
            match = pattern.match(english)
            if match is None:
                continue
            values = {}
            for name, value in match.groupdict(default="").items():
                if name in ("names", "new"):
                    value = _names(value)
                elif name == "params":
                    value = "无参数" if value == "no parameters" else value
                elif name == "clause":
                    value = self.clause(value)
                elif name == "detail":
                    value = self._fill(value, self.details) or self._untranslated(value)
                values[name] = value
            return chinese.format(**values)
        return None

    def _untranslated(self, english: str) -> str:
        self.untranslated.append(english)
        return english


def curated_translations(entries) -> Tuple[Dict[str, str], List[str]]:
    """English -> Chinese of every curated note and consequence, and the entries missing one."""
    found: Dict[str, str] = {}
    missing: List[str] = []
    for entry in entries:
        for table in (entry, *entry.get("targets", ())):
            for field in ("note", "consequence"):
                if field not in table:
                    continue
                chinese = table.get(field + SUFFIX)
                if not chinese:
                    missing.append(f"{entry['_origin']} ({entry['torch']}): {field}{SUFFIX} is missing")
                    continue
                if table[field].count(CLAUSES) != chinese.count(CLAUSES_ZH):
                    missing.append(f"{entry['_origin']} ({entry['torch']}): {field}{SUFFIX} has {chinese.count(CLAUSES_ZH) + 1} "
                                   f"clauses (separated by '{CLAUSES_ZH}'), {field} {table[field].count(CLAUSES) + 1} ('{CLAUSES}')")
                    continue
                found[table[field]] = chinese
    return found, missing
