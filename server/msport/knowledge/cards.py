"""Markdown cards about one API, for hover in the editor and ``msport explain`` in the terminal."""

from __future__ import annotations

from typing import List, Optional

from .index import KnowledgeBase
from .model import Target, Version

RULE_PAGE = "https://github.com/msport-dev/msport/blob/main/docs/rules/{code}.md"
_CODES = {"missing": "MS101", "divergent": "MS102", "equivalent": "MS103"}
_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}


def _v(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def _range(target: Target) -> str:
    return _v(target.first) if target.first == target.last else f"{_v(target.first)}-{_v(target.last)}"


def api_card(knowledge: KnowledgeBase, name: str, version: Version, backend: str) -> Optional[str]:
    """A card for a torch API (its verdict) or a MindSpore API (the torch APIs mapping to it)."""
    verdict = knowledge.verdict(name, version, backend)
    if verdict is not None:
        where = f"MindSpore {_v(version)}, {_BACKENDS[backend]}"
        target = f"`{verdict.mindspore}`" if verdict.mindspore else "no counterpart"
        lines: List[str] = [f"**`{name}`** -> {target}", "", f"**{verdict.status}** in {where}"]
        if verdict.note:
            lines += ["", verdict.note.rstrip(".") + "."]
        if verdict.consequence:
            lines += ["", f"Measured: {verdict.consequence.rstrip('.')}."]
        if verdict.renames:
            lines += ["", "Parameters: " + ", ".join(f"`{t}` -> `{m}`" for t, m in verdict.renames if t != m)]
        if verdict.available_elsewhere:
            lines += ["", f"Available as {verdict.available_elsewhere}."]
        rows = [t for t in verdict.rule.targets if t.mindspore]
        if rows:
            lines += ["", "| MindSpore | versions | backends |", "| --- | --- | --- |"]
            for t in rows:
                backends = ", ".join(_BACKENDS[b] for b in ("ascend", "gpu", "cpu") if b in t.backends)
                lines.append(f"| `{t.mindspore}` | {_range(t)} | {backends} |")
        links = []
        if verdict.diff:
            links.append(f"[Official differences]({verdict.diff})")
        code = _CODES[verdict.status]
        links.append(f"[msport {code}]({RULE_PAGE.format(code=code)})")
        lines += ["", " · ".join(links)]
        return "\n".join(lines)
    sources = knowledge.torch_rules_for(name)
    if sources:
        lines = [f"**`{name}`** (MindSpore)", "", "Counterpart of:"]
        for rule in sources:
            lines.append(f"- `{rule.torch}` ({rule.status})" + (f": {rule.note.rstrip('.')}." if rule.note else ""))
        return "\n".join(lines)
    return None
