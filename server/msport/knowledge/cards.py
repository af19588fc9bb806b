"""Markdown cards about one API or one finding, for hover in the editor and ``msport explain``.

Every line is a lookup in the rule data (rules/api, rules/codes) and in the snapshots of the
real packages (rules/snapshots): nothing is inferred. The text stays ASCII and its tables are
padded, so the same Markdown reads well in a hover popup and in a plain terminal.

A card opens with what to do (use this target, mind this difference, port it this way), then
the facts behind it. In the editor a card is cut to ``HOVER_LIMIT`` characters by leaving out
its least needed blocks (the provenance, the table of targets, the version history), and then
says where the rest is; ``msport explain`` prints it whole.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence

from .api_history import ApiHistory, default_history
from .index import KnowledgeBase
from .messages import DEFAULT_LANGUAGE, message
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
#: Characters of Markdown a hover card may take; past it the least needed blocks are left out.
HOVER_LIMIT = 1400


@dataclass(frozen=True)
class Block:
    """One paragraph of a card; *optional* ones are left out first when a card must be cut."""

    text: str
    optional: bool = False


def _fit(blocks: Sequence[Block], limit: Optional[int], more: str) -> str:
    """The blocks joined, within *limit* characters when one is given: every required block,
    then the optional ones, in the card's order, as long as they fit; *more* (where the rest
    is) replaces what was left out. The last block (the links) always closes the card."""
    texts = [b.text for b in blocks if b.text]
    if limit is None or len("\n\n".join(texts)) <= limit:
        return "\n\n".join(texts)
    *body, links = [b for b in blocks if b.text]
    size = sum(len(b.text) + 2 for b in body if not b.optional) + len(links.text) + len(more) + 2
    kept: List[str] = []
    for block in body:
        if block.optional:
            if size + len(block.text) + 2 > limit:
                continue
            size += len(block.text) + 2
        kept.append(block.text)
    return "\n\n".join([*kept, more, links.text])


def _v(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def _where(version: Version, backend: str) -> str:
    return f"MindSpore {_v(version)} on {dict(_BACKENDS)[backend]}"


def _sentence(text: str) -> str:
    """Rule notes are written as clauses; a card shows them as sentences (code stays as is)."""
    text = text.strip().rstrip(".")
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower() and first != "msport":  # the tool's name stays as it is spelled
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
    """How to call *name*: every overload its docstring states (rules/snapshots/overloads-*),
    as written there, defaults included; else the snapshot's parameter names."""
    entry = history.entry(name, version) if version is not None else history.entry(name)
    if entry is None or entry[0] in ("module", "constant"):
        return None
    overloads = history.overloads(name, version)
    if overloads:
        where, signatures = overloads
        if version is not None and where != version:
            label = label.replace(f" {_v(version)}", f" {_v(where)}")  # the release the docstring was read from
        return f"{label} " + " or ".join(f"`{s}`" for s in signatures)
    if entry[1] is None:
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


def _action(verdict: Verdict, version: Version, backend: str, said: Sequence[str] = ()) -> str:
    """The card's first paragraph: the verdict here and what to do about it. A note that one of
    *said* (the diagnostics the editor shows above the card) already says is not repeated."""
    status = f"**{verdict.status.capitalize()}** in {_where(version, backend)}"
    note = _sentence(verdict.note) if verdict.note else ""
    if note and any(verdict.note.strip().rstrip(".") in message for message in said):
        note = "What differs is said above." if verdict.status == "divergent" else ""
    if verdict.status == "equivalent":
        return f"{status}: use `{verdict.mindspore}`; the port is a rename." + (f" {note}" if note else "")
    if verdict.status == "divergent":
        return f"{status}: use `{verdict.mindspore}` with care. {note or 'The official differences page says what differs.'}"
    if verdict.available_elsewhere:
        text = f"{status}: it exists as {verdict.available_elsewhere}; change target-version or backend, or port it with the APIs this release has."
        return text + (f" {note}" if note else "")
    return f"{status}: {note}" if note else f"{status}: no counterpart."


def _same_name_elsewhere(history: ApiHistory, torch_name: str, version: Version) -> Optional[str]:
    """MindSpore APIs of the release that share the torch API's last name (a lookup in its
    snapshot): where to look first when the tables list no counterpart."""
    found = history.same_short_name("mindspore", torch_name.rsplit(".", 1)[-1], version)
    if not found:
        return None
    shown = ", ".join(f"`{n}`" for n in found[:4]) + (f" and {len(found) - 4} more" if len(found) > 4 else "")
    return f"**Same name in MindSpore {_v(version)}:** {shown} (not judged equivalent: check what each computes)."


def _torch_card(history: ApiHistory, verdict: Verdict, version: Version, backend: str, spelled: Optional[str],
                limit: Optional[int] = None, said: Sequence[str] = (), support: Sequence[str] = ()) -> str:
    name = verdict.torch
    target = f"**`{verdict.mindspore}`**" if verdict.mindspore else "no MindSpore counterpart"
    title = f"**`{name}`** -> {target}"
    if spelled and spelled != name and spelled != name.rsplit(".", 1)[-1]:
        title += f" (written `{spelled}` here)"
    blocks: List[Block] = [Block(title), Block(_action(verdict, version, backend, said))]
    if verdict.consequence:
        blocks.append(Block(f"**Measured:** {_sentence(verdict.consequence)}"))
    renames = [f"`{t}` -> `{m}`" for t, m in verdict.renames if t != m]
    if renames:
        blocks.append(Block("**Parameters renamed:** " + ", ".join(renames)))
    if verdict.rule.torch_removed:
        blocks.append(Block(f"**Not in the current torch release:** {_sentence(verdict.rule.torch_removed)}"))
    if verdict.status == "missing" and not verdict.available_elsewhere:
        same = _same_name_elsewhere(history, name, version)
        if same:
            blocks.append(Block(same))
    signatures = [s for s in (
        _signature(history, name, None, "PyTorch"),
        _signature(history, verdict.mindspore, version, f"MindSpore {_v(version)}") if verdict.mindspore else None,
    ) if s]
    if signatures:
        blocks.append(Block("**Signatures:** " + "; ".join(signatures)))
    if verdict.mindspore and history.snapshot("mindspore", version) and history.entry(verdict.mindspore, version) is None:
        blocks.append(Block(f"**Check:** `{verdict.mindspore}` is not in msport's snapshot of MindSpore {_v(version)}."))
    if verdict.rule.basis in _BASIS:
        blocks.append(Block(f"**Source:** {_BASIS[verdict.rule.basis]}.", optional=True))
    table = _targets_table(verdict.rule)
    if table:
        blocks.append(Block("\n".join(table), optional=True))
    others = _other_targets(verdict.rule, verdict.mindspore)
    if others:
        blocks.append(Block("**Other targets:**\n" + "\n".join(others), optional=True))
    if verdict.mindspore:
        line = _versions_line(history, verdict.mindspore)
        if line:
            blocks.append(Block(line, optional=True))
    # Second-order and sparse support (support_cards.py): left out first when the card is cut.
    blocks.extend(Block(text, optional=True) for text in support)
    code = _CODES[verdict.status]
    blocks.append(Block(_links(verdict.diff, code)))
    return _fit(blocks, limit, _more(name))


def _more(name: str, language: str = DEFAULT_LANGUAGE) -> str:
    return message("card.more", language, name=name)


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
    limit: Optional[int] = None,
    said: Sequence[str] = (),
) -> Optional[str]:
    """A card for a torch API (its verdict) or a MindSpore API (the torch APIs mapping to it).

    None for names that are not APIs of either package (modules included). *spelled* is how
    the code writes the name (an alias such as ``msel``), shown when it differs. *limit*: at
    most that many characters (HOVER_LIMIT in the editor), else the whole card. *said*: the
    messages the editor shows above the card (VS Code puts the diagnostics there), not repeated.
    """
    history = history if history is not None else default_history()
    support = support_blocks(knowledge, name, version, backend)
    verdict = knowledge.verdict(name, version, backend)
    if verdict is not None:
        return _torch_card(history, verdict, version, backend, spelled, limit, said, support)
    card = _api_card(knowledge, history, name, version, backend)
    if not support:
        return card
    return "\n\n".join(([card] if card else [f"**`{name}`**"]) + support)


def _api_card(knowledge: KnowledgeBase, history: ApiHistory, name: str, version: Version, backend: str) -> Optional[str]:
    """The card of a name with no verdict: a MindSpore API, or a torch API msport does not judge."""
    framework = knowledge.tensors.framework_of(name)
    if framework == "mindspore":
        rules = knowledge.torch_rules_for(name)
        if rules or history.entry(name) is not None:
            return _mindspore_card(knowledge, history, name, rules, version, backend)
        return _absent_card(history, name, version)
    if framework == "torch":
        return _unjudged_card(history, name, version)
    return None


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


def finding_card(knowledge: KnowledgeBase, finding, limit: Optional[int] = None, with_message: bool = True) -> str:
    """One finding under the cursor (e.g. a dynamic-shape one): what to do first (the static
    alternative or fix), then the message and where its values come from, then the rule's why
    when the message does not explain it already.

    Messages of some families end with the alternative fitted to this place ("Static
    alternative: ...") after explaining the mechanism and its cost on MindSpore: for those the
    alternative is moved to the top and the rule's general why and fix are left to the rule
    page, so no paragraph is said twice. *with_message* false: the editor shows the message
    above the card (VS Code's hover does), so the card leaves it out."""
    info: Optional[CodeInfo] = knowledge.codes.get(finding.code)
    name = f" {info.name}" if info else ""
    label = "Static alternative" if info is not None and info.category == "dynamic-shape" else "Fix"
    text, _, fitted = finding.message.partition(f" {label}: ")
    blocks: List[Block] = [Block(f"**{finding.code}{name}** ({finding.severity.value})")]
    if fitted:
        blocks.append(Block(f"**{label}:** {_sentence(fitted)}"))
    elif info is not None and info.fix:
        blocks.append(Block(f"**{label}:** {_sentence(info.fix)}"))
    if with_message:
        blocks.append(Block(_sentence(text)))
    if finding.related:
        blocks.append(Block("\n".join(f"- line {r.span.start_line + 1}: {r.message}" for r in finding.related)))
    if info is not None and not fitted:
        blocks.append(Block(f"**Why it matters on MindSpore:** {_sentence(info.why)}", optional=True))
    if info is not None and info.use_instead:
        # What compiles instead, next to what was found (the rule page's pair).
        blocks.append(Block("**Example that compiles:**\n\n```python\n" + info.use_instead.rstrip() + "\n```"))
    blocks.append(Block(f"[msport rule {finding.code}]({RULE_PAGE.format(code=finding.code)})"))
    return _fit(blocks, limit, _more(finding.code))


def join_cards(cards: Iterable[Optional[str]]) -> Optional[str]:
    present = [c for c in cards if c]
    return SEPARATOR.join(present) if present else None
