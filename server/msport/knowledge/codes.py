"""The rule codes (rules/codes/*.toml): what each finds, why it matters on MindSpore and what to
do, in every language msport speaks.

Its own module, not loader.py's, because the texts are read through rule_texts.py, which builds
on loader.py: a page's ``summary``, ``why`` and ``fix`` each stand in English and, on the next
line, in Simplified Chinese (``summary_zh-CN``...); a missing translation is a problem of the
rule file like any other bad field.
"""

from __future__ import annotations

from pathlib import Path
from typing import Dict, List

from .loader import CATEGORIES, SEVERITIES, RuleProblem, entries, read_toml
from .model import CodeInfo
from .rule_texts import read_text, with_translations

#: The fields of a rule page a person reads, each with its translations.
TEXTS = ("summary", "why", "fix")


def load_codes(path: Path, problems: List[RuleProblem]) -> Dict[str, CodeInfo]:
    data = read_toml(path)
    codes: Dict[str, CodeInfo] = {}
    for entry in entries(data.get("code", []), path.name, "code", "code", problems):
        entry.unknown_fields(("code", "name", "category", "severity", "example", "use_instead", *with_translations(TEXTS)))
        code = entry.text("code", required=True)
        texts = {field: read_text(entry.table, field, entry.file, entry.entry, problems, required=field != "fix") for field in TEXTS}
        fields = {
            "name": entry.text("name", required=True),
            "category": entry.text("category", required=True, choices=CATEGORIES),
            "severity": entry.text("severity", required=True, choices=SEVERITIES),
            "summary": texts["summary"],
            "why": texts["why"],
        }
        if code in codes:
            entry.problem("code", f"duplicate code {code}")
            continue
        if code and all(fields.values()):
            codes[code] = CodeInfo(code=code, example=entry.table.get("example", ""), fix=texts["fix"] or "",
                                   use_instead=entry.table.get("use_instead", ""), **fields)
    return codes
