"""Markdown cards about one API or one finding, for hover in the editor and ``msport explain``.

Every line is a lookup in the rule data (rules/api, rules/codes) and in the snapshots of the
real packages (rules/snapshots): nothing is inferred. The text stays ASCII and its tables are
padded, so the same Markdown reads well in a hover popup and in a plain terminal.
"""

from __future__ import annotations

from typing import Iterable, List, Optional, Sequence

from .api_history import ApiHistory, default_history
from .index import KnowledgeBase
from .model import ApiRule, CodeInfo, Target, Verdict, Version
from .support_cards import support_blocks

RULE_PAGE = "https://github.com/msport-dev/msport/blob/main/docs/rules/{code}.md"
MAPPING_TABLE = "https://www.mindspore.cn/docs/en/master/note/api_mapping/pytorch_api_mapping.html"
_CODES = {"missing": "MS101", "divergent": "MS102", "equivalent": "MS103"}
_BACKENDS = (("ascend", "Ascend"), ("gpu", "GPU"), ("cpu", "CPU"))
_STATUS_TEXT = {
    "equivalent": "the port is a rename",
    "divergent": "same role, different behaviour",
    "missing": "no counterpart",
}
SEPARATOR = "\n\n---\n\n"


def _v(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def _where(version: Version, backend: str) -> str:
    return f"MindSpore {_v(version)} on {dict(_BACKENDS)[backend]}"


def _sentence(text: str) -> str:
    """Rule notes are written as clauses; a card shows them as sentences (code stays as is)."""
    text = text.strip().rstrip(".")
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower():
        text = text[:1].upper() + text[1:]
    return text + "."


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> List[str]:
    """A Markdown table whose columns line up in a terminal too."""
    rows = [list(header)] + [list(r) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return [line(rows[0]), "| " + " | ".join("-" * w for w in widths) + " |", *(line(r) for r in rows[1:])]


def _params(entry) -> str:
    params = [p for p in (entry[1] or ()) if p != "self"]
    return ", ".join(params)


def _signature(history: ApiHistory, name: str, version: Optional[Version], label: str) -> Optional[str]:
    entry = history.entry(name, version) if version is not None else history.entry(name)
    if entry is None or entry[0] in ("module", "constant") or entry[1] is None:
        return None
    short = name.rsplit(".", 1)[-1]
    return f"{label} `{short}({_params(entry)})`"


def _versions_line(history: ApiHistory, name: str) -> Optional[str]:
    """Where the real MindSpore snapshots have *name*, and how its parameters changed."""
    snaps = history.snapshots("mindspore")
    if not snaps:
        return None
    present = history.present_in(name)
    if not present:
        covered = ", ".join(_v(s.version) for s in snaps)
        return f"**Versions:** `{name}` is in none of msport's snapshots of MindSpore ({covered})."
    if len(present) == len(snaps):
        text = f"**Versions:** in MindSpore {_v(present[0])}-{_v(present[-1])} (every snapshot)"
    else:
        text = f"**Versions:** in MindSpore {', '.join(_v(v) for v in present)} (snapshots of {', '.join(_v(s.version) for s in snaps)})"
    changes = []
    for change in history.changes(name):
        if change.what == "parameters":
            changes.append(f"parameters changed in {_v(change.version)}: ({_params(('', change.before))}) -> ({_params(('', change.after))})")
        else:
            changes.append(f"{change.what} in {_v(change.version)}")
    text += "; " + "; ".join(changes) + "." if changes else ", parameters unchanged."
    return text


_BASIS = {
    "tables": "the official mapping tables, checked against the real packages",
    "curated": "written and checked by msport's maintainers",
    "inferred": "inferred by msport from the snapshots of the real packages; no official table lists it",
}


def _targets_table(rule: ApiRule) -> List[str]:
    rows = []
    for target in rule.targets:
        if not target.mindspore:
            continue
        status = target.status or rule.status
        rows.append([f"`{target.mindspore}`", _span(target), status, *("yes" if key in target.backends else "no" for key, _ in _BACKENDS)])
    if not rows:
        return []
    table = _table(["MindSpore target", "versions", "status", *(label for _, label in _BACKENDS)], rows)
    if any("cpu" not in t.backends for t in rule.targets if t.mindspore):
        # Say what "no" stands on: mint.diff runs in PyNative on CPU, but not compiled.
        table.append("")
        table.append("CPU `no`: msport ran the target on MindSpore 2.10's CPU backend and it found no kernel, "
                     "in PyNative or compiled (graph mode, msport's default).")
    return table


def _other_targets(rule: ApiRule, chosen: Optional[str]) -> List[str]:
    """What differs for the targets not chosen for this version and backend."""
    lines = []
    for target in rule.targets:
        if not target.mindspore or target.mindspore == chosen or not (target.note or target.consequence):
            continue
        text = f"- `{target.mindspore}` ({_span(target)}, {target.status or rule.status})"
        if target.note:
            text += f": {_sentence(target.note)}"
        if target.consequence:
            text += f" Measured: {_sentence(target.consequence)}"
        lines.append(text)
    return lines


def _links(verdict_diff: Optional[str], code: str) -> str:
    links = [f"[Official differences]({verdict_diff})"] if verdict_diff else []
    links.append(f"[msport rule {code}]({RULE_PAGE.format(code=code)})")
    return " | ".join(links)


def _torch_card(history: ApiHistory, verdict: Verdict, version: Version, backend: str, spelled: Optional[str]) -> str:
    name = verdict.torch
    target = f"**`{verdict.mindspore}`**" if verdict.mindspore else "no MindSpore counterpart"
    title = f"**`{name}`** -> {target}"
    if spelled and spelled != name and spelled != name.rsplit(".", 1)[-1]:
        title += f" (written `{spelled}` here)"
    status = f"**{verdict.status.capitalize()}** in {_where(version, backend)}: {_STATUS_TEXT[verdict.status]}."
    if verdict.rule.basis in _BASIS:
        status += f" Source: {_BASIS[verdict.rule.basis]}."
    blocks: List[str] = [title, status]
    if verdict.rule.torch_removed:
        blocks.append(f"**Not in the current torch release:** {_sentence(verdict.rule.torch_removed)}")
    if verdict.note:
        label = "What differs" if verdict.status == "divergent" else "Note"
        blocks.append(f"**{label}:** {_sentence(verdict.note)}")
    if verdict.consequence:
        blocks.append(f"**Measured:** {_sentence(verdict.consequence)}")
    renames = [f"`{t}` -> `{m}`" for t, m in verdict.renames if t != m]
    if renames:
        blocks.append("**Parameters renamed:** " + ", ".join(renames))
    if verdict.available_elsewhere:
        blocks.append(f"**Available as:** {verdict.available_elsewhere}.")
    signatures = [s for s in (
        _signature(history, name, None, "PyTorch"),
        _signature(history, verdict.mindspore, version, f"MindSpore {_v(version)}") if verdict.mindspore else None,
    ) if s]
    if signatures:
        blocks.append("**Signatures:** " + "; ".join(signatures))
    if verdict.mindspore and history.snapshot("mindspore", version) and history.entry(verdict.mindspore, version) is None:
        blocks.append(f"**Check:** `{verdict.mindspore}` is not in msport's snapshot of MindSpore {_v(version)}.")
    table = _targets_table(verdict.rule)
    if table:
        blocks.append("\n".join(table))
    others = _other_targets(verdict.rule, verdict.mindspore)
    if others:
        blocks.append("**Other targets:**\n" + "\n".join(others))
    if verdict.mindspore:
        line = _versions_line(history, verdict.mindspore)
        if line:
            blocks.append(line)
    blocks.append(_links(verdict.diff, _CODES[verdict.status]))
    return "\n\n".join(blocks)


def _mindspore_card(knowledge: KnowledgeBase, history: ApiHistory, name: str, rules: Sequence[ApiRule], version: Version, backend: str) -> Optional[str]:
    entry = history.entry(name, version) or history.entry(name)
    if entry is not None and entry[0] == "module":
        return None
    kind = f", {entry[0]}" if entry else ""
    blocks: List[str] = [f"**`{name}`** (MindSpore API{kind})"]
    if rules:
        items = []
        for rule in rules:
            verdict = knowledge.verdict(rule.torch, version, backend)
            if verdict is not None and verdict.mindspore == name:
                items.append(f"- `{rule.torch}`: {verdict.status} in {_where(version, backend)}")
            else:
                elsewhere = verdict.mindspore if verdict is not None and verdict.mindspore else "nothing"
                spans = ", ".join(_span(t) for t in rule.targets if t.mindspore == name)
                items.append(f"- `{rule.torch}`: maps here in MindSpore {spans}; to `{elsewhere}` in {_where(version, backend)}")
        blocks.append("**Counterpart of:**\n" + "\n".join(items))
    else:
        blocks.append("No PyTorch API in msport's rules maps to it.")
    signature = _signature(history, name, version, f"MindSpore {_v(version)}")
    if signature:
        blocks.append("**Signature:** " + signature)
    line = _versions_line(history, name)
    if line:
        blocks.append(line)
    codes = sorted({_CODES[knowledge.verdict(r.torch, version, backend).status] for r in rules})
    if codes:
        blocks.append(" | ".join(f"[msport rule {c}]({RULE_PAGE.format(code=c)})" for c in codes))
    return "\n\n".join(blocks)


def _span(target: Target) -> str:
    return _v(target.first) if target.first == target.last else f"{_v(target.first)}-{_v(target.last)}"


def _absent_card(history: ApiHistory, name: str, version: Version) -> Optional[str]:
    """A MindSpore name the snapshot of the configured version does not have."""
    parent = name.rsplit(".", 1)[0]
    snap = history.snapshot("mindspore", version)
    if snap is None or parent not in snap.modules and parent not in snap.apis:
        return None
    text = f"**`{name}`** is not in the public API of MindSpore {_v(version)} (msport's snapshot of the released package)."
    present = history.present_in(name)
    if present:
        text += f" It exists in MindSpore {', '.join(_v(v) for v in present)}: check target-version."
    else:
        text += " Check the spelling, or whether it is private."
    return text


def _unjudged_card(history: ApiHistory, name: str, version: Version) -> Optional[str]:
    """A real torch API (in the snapshot of torch) that msport has no rule for yet."""
    entry = history.entry(name)
    if entry is None or entry[0] == "module":
        return None
    blocks = [
        f"**`{name}`** (PyTorch API, {entry[0]})",
        f"msport has no mapping rule for it yet, so it is not judged for MindSpore {_v(version)}. "
        f"Look it up in the [official PyTorch-MindSpore mapping table]({MAPPING_TABLE}).",
    ]
    signature = _signature(history, name, None, "PyTorch")
    if signature:
        blocks.append("**Signature:** " + signature)
    return "\n\n".join(blocks)


def api_card(
    knowledge: KnowledgeBase,
    name: str,
    version: Version,
    backend: str,
    history: Optional[ApiHistory] = None,
    spelled: Optional[str] = None,
) -> Optional[str]:
    """A card for a torch API (its verdict) or a MindSpore API (the torch APIs mapping to it).

    None for names that are not APIs of either package (modules included). *spelled* is how
    the code writes the name (an alias such as ``msel``), shown when it differs.
    """
    history = history if history is not None else default_history()
    return _with_support(_api_card(knowledge, history, name, version, backend, spelled), knowledge, name, version, backend)


def _api_card(knowledge: KnowledgeBase, history: ApiHistory, name: str, version: Version, backend: str, spelled: Optional[str]) -> Optional[str]:
    verdict = knowledge.verdict(name, version, backend)
    if verdict is not None:
        return _torch_card(history, verdict, version, backend, spelled)
    framework = knowledge.tensors.framework_of(name)
    if framework == "mindspore":
        rules = knowledge.torch_rules_for(name)
        if rules or history.entry(name) is not None:
            return _mindspore_card(knowledge, history, name, rules, version, backend)
        return _absent_card(history, name, version)
    if framework == "torch":
        return _unjudged_card(history, name, version)
    return None


def _with_support(card: Optional[str], knowledge: KnowledgeBase, name: str, version: Version, backend: str) -> Optional[str]:
    """The card with the API's second-order and sparse support (support_cards.py) appended."""
    blocks = support_blocks(knowledge, name, version, backend)
    if not blocks:
        return card
    return "\n\n".join(([card] if card else [f"**`{name}`**"]) + blocks)


def code_card(info: CodeInfo) -> str:
    """What a rule code finds, why it matters, and what to do."""
    blocks = [f"**{info.code} {info.name}** ({info.severity})", _sentence(info.summary), f"**Why it matters on MindSpore:** {_sentence(info.why)}"]
    if info.example:
        blocks.append("**Example:**\n\n```python\n" + info.example.rstrip() + "\n```")
    if info.use_instead:
        blocks.append("**Use instead:**\n\n```python\n" + info.use_instead.rstrip() + "\n```")
    if info.fix:
        label = "Static alternative" if info.category == "dynamic-shape" else "Fix"
        blocks.append(f"**{label}:** {_sentence(info.fix)}")
    blocks.append(f"[msport rule {info.code}]({RULE_PAGE.format(code=info.code)})")
    return "\n\n".join(blocks)


def finding_card(knowledge: KnowledgeBase, finding) -> str:
    """One finding under the cursor (e.g. a dynamic-shape one): its message, then the rule's
    why and fix from rules/codes, so the card explains why the shape depends on data and what
    the static alternative is."""
    info: Optional[CodeInfo] = knowledge.codes.get(finding.code)
    name = f" {info.name}" if info else ""
    blocks = [f"**{finding.code}{name}** ({finding.severity.value})", _sentence(finding.message)]
    for related in finding.related:
        blocks.append(f"- line {related.span.start_line + 1}: {related.message}")
    if info is not None:
        blocks.append(f"**Why it matters on MindSpore:** {_sentence(info.why)}")
        label = "Static alternative" if info.category == "dynamic-shape" else "Fix"
        # Messages of some families already end with the alternative fitted to this place.
        if info.fix and f"{label}:" not in finding.message:
            blocks.append(f"**{label}:** {_sentence(info.fix)}")
        if info.use_instead:
            # What compiles instead, next to what was found (the rule page's pair).
            blocks.append("**Example that compiles:**\n\n```python\n" + info.use_instead.rstrip() + "\n```")
    blocks.append(f"[msport rule {finding.code}]({RULE_PAGE.format(code=finding.code)})")
    return "\n\n".join(blocks)


def join_cards(cards: Iterable[Optional[str]]) -> Optional[str]:
    present = [c for c in cards if c]
    return SEPARATOR.join(present) if present else None
