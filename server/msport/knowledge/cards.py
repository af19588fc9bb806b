"""Markdown cards about one API or one finding, for hover in the editor and ``msport explain``.

Every line is a lookup in the rule data (rules/api, rules/codes) and in the snapshots of the
real packages (rules/snapshots): nothing is inferred. Its labels and sentences are texts of the
catalogue (rules/messages/cards.toml) and a rule page's texts are read in the user's language
(rules/codes); the English stays ASCII and the tables are padded, so the same Markdown reads
well in a hover popup and in a plain terminal.

A card opens with what to do (use this target, mind this difference, port it this way), then
the facts behind it. In the editor a card is cut to ``HOVER_LIMIT`` characters by leaving out
its least needed blocks (the provenance, the table of targets, the version history), and then
says where the rest is; ``msport explain`` prints it whole.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterable, List, Optional, Sequence

from .api_history import ApiHistory, default_history
from .index import KnowledgeBase
from .messages import CHINESE, DEFAULT_LANGUAGE, listing, message, sentences
from .model import ApiRule, CodeInfo, Target, Verdict, Version
from .rule_texts import in_language
from .support_cards import markdown_table, support_blocks

RULE_PAGE = "https://github.com/msport-dev/msport/blob/main/docs/rules/{code}.md"
#: The rule page of a code in each language (tools/gen_rule_docs.py writes the Chinese ones).
RULE_PAGES = {DEFAULT_LANGUAGE: RULE_PAGE, CHINESE: "https://github.com/msport-dev/msport/blob/main/docs/rules/zh-CN/{code}.md"}
MAPPING_TABLE = "https://www.mindspore.cn/docs/en/master/note/api_mapping/pytorch_api_mapping.html"
_CODES = {"missing": "MS101", "divergent": "MS102", "equivalent": "MS103"}
_BACKENDS = (("ascend", "Ascend"), ("gpu", "GPU"), ("cpu", "CPU"))
#: Chinese characters: a text written in Chinese (a note may still be English in a Chinese card).
_CJK = re.compile(r"[\u4e00-\u9fff]")
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


def _where(version: Version, backend: str, language: str = DEFAULT_LANGUAGE) -> str:
    return message("card.where", language, version=_v(version), backend=dict(_BACKENDS)[backend])


def _sentence(text: str, language: str = DEFAULT_LANGUAGE) -> str:
    """Rule notes are written as clauses; a card shows them as sentences (code stays as is). A
    text keeps the punctuation of the language it is written in: a Chinese one ends with a
    full-width stop, an English one (a note not yet translated) with a full stop."""
    text = in_language(text, language).strip().rstrip(".。")
    if language == CHINESE and _CJK.search(text):
        return text + "。"
    first = text.split(" ", 1)[0]
    if first.isalpha() and first.islower() and first != "msport":  # the tool's name stays as it is spelled
        text = text[:1].upper() + text[1:]
    return text + "."


def _params(entry) -> str:
    params = [p for p in (entry[1] or ()) if p != "self"]
    return ", ".join(params)


def _and_more(items: Sequence[str], shown: int, language: str) -> str:
    """The first *shown* of *items* listed, and how many more there are."""
    text = listing(items[:shown], language)
    return message("card.and_more", language, shown=text, count=len(items) - shown) if len(items) > shown else text


def _signature(history: ApiHistory, name: str, version: Optional[Version], label: str,
               language: str = DEFAULT_LANGUAGE) -> Optional[str]:
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
        return f"{label} " + message("card.overload_separator", language).join(f"`{s}`" for s in signatures)
    if entry[1] is None:
        return None
    short = name.rsplit(".", 1)[-1]
    return f"{label} `{short}({_params(entry)})`"


def _versions_line(history: ApiHistory, name: str, language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """Where the real MindSpore snapshots have *name*, and how its parameters changed."""
    snaps = history.snapshots("mindspore")
    if not snaps:
        return None
    covered = listing([_v(s.version) for s in snaps], language)
    present = history.present_in(name)
    if not present:
        return message("card.versions_none", language, name=name, covered=covered)
    if len(present) == len(snaps):
        text = message("card.versions_every", language, first=_v(present[0]), last=_v(present[-1]))
    else:
        text = message("card.versions_some", language, present=listing([_v(v) for v in present], language), covered=covered)
    changes = []
    for change in history.changes(name):
        if change.what == "parameters":
            changes.append(message("card.change_parameters", language, version=_v(change.version),
                                   before=_params(("", change.before)), after=_params(("", change.after))))
        else:
            changes.append(message("card.change_other", language, what=change.what, version=_v(change.version)))
    if changes:
        return text + message("card.versions_changed", language, changes=message("card.signature_separator", language).join(changes))
    return text + message("card.versions_unchanged", language)


#: The catalogue key of each word a card uses for a verdict, a severity, a rule's basis.
_STATUS_WORD = {"equivalent": "card.status_equivalent", "divergent": "card.status_divergent", "missing": "card.status_missing"}
_STATE_WORD = {"equivalent": "card.state_equivalent", "divergent": "card.state_divergent", "missing": "card.state_missing"}
_SEVERITY_WORD = {"error": "card.severity_error", "warning": "card.severity_warning", "info": "card.severity_info", "hint": "card.severity_hint"}
_BASIS = {"tables": "card.basis_tables", "curated": "card.basis_curated", "inferred": "card.basis_inferred"}


def _state(status: str, language: str) -> str:
    return message(_STATE_WORD[status], language) if status in _STATE_WORD else status


def _targets_table(rule: ApiRule, language: str = DEFAULT_LANGUAGE) -> List[str]:
    rows = []
    yes, no = message("card.table_yes", language), message("card.table_no", language)
    for target in rule.targets:
        if not target.mindspore:
            continue
        status = target.status or rule.status
        rows.append([f"`{target.mindspore}`", _span(target), _state(status, language), *(yes if key in target.backends else no for key, _ in _BACKENDS)])
    if not rows:
        return []
    header = [message(key, language) for key in ("card.table_target", "card.table_versions", "card.table_status")]
    table = markdown_table([*header, *(label for _, label in _BACKENDS)], rows)
    if any("cpu" not in t.backends for t in rule.targets if t.mindspore):
        # Say what "no" stands on: mint.diff runs in PyNative on CPU, but not compiled.
        table.append("")
        table.append(message("card.table_cpu_no", language))
    return table


def _other_targets(rule: ApiRule, chosen: Optional[str], language: str = DEFAULT_LANGUAGE) -> List[str]:
    """What differs for the targets not chosen for this version and backend."""
    lines = []
    for target in rule.targets:
        if not target.mindspore or target.mindspore == chosen or not (target.note or target.consequence):
            continue
        text = message("card.other_target", language, target=target.mindspore, versions=_span(target),
                       state=_state(target.status or rule.status, language))
        if target.note:
            text += ("：" if language == CHINESE else ": ") + _sentence(target.note, language)
        if target.consequence:
            text += message("card.other_measured", language, text=_sentence(target.consequence, language))
        lines.append(text)
    return lines


def _rule_link(code: str, language: str) -> str:
    return message("card.rule_link", language, code=code, url=RULE_PAGES.get(language, RULE_PAGE).format(code=code))


def _links(verdict_diff: Optional[str], code: str, language: str = DEFAULT_LANGUAGE) -> str:
    links = [message("card.official_diff", language, url=verdict_diff)] if verdict_diff else []
    links.append(_rule_link(code, language))
    return " | ".join(links)


def _action(verdict: Verdict, version: Version, backend: str, said: Sequence[str] = (), language: str = DEFAULT_LANGUAGE) -> str:
    """The card's first paragraph: the verdict here and what to do about it. A note that one of
    *said* (the diagnostics the editor shows above the card) already says is not repeated."""
    where = {"status": message(_STATUS_WORD[verdict.status], language), "where": _where(version, backend, language)}
    note = _sentence(verdict.note, language) if verdict.note else ""
    if note and any(in_language(verdict.note, language).strip().rstrip(".。") in said_text for said_text in said):
        note = message("card.action_said_above", language) if verdict.status == "divergent" else ""
    if verdict.status == "equivalent":
        return sentences([message("card.action_equivalent", language, target=verdict.mindspore, **where), note], language)
    if verdict.status == "divergent":
        return sentences([message("card.action_divergent", language, target=verdict.mindspore, **where),
                          note or message("card.action_see_diff", language)], language)
    if verdict.available_elsewhere:
        return sentences([message("card.action_elsewhere", language, elsewhere=verdict.available_elsewhere, **where), note], language)
    if note:
        return message("card.action_missing_note", language, note=note, **where)
    return message("card.action_missing", language, **where)


def _same_name_elsewhere(history: ApiHistory, torch_name: str, version: Version, language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """MindSpore APIs of the release that share the torch API's last name (a lookup in its
    snapshot): where to look first when the tables list no counterpart."""
    found = history.same_short_name("mindspore", torch_name.rsplit(".", 1)[-1], version)
    if not found:
        return None
    shown = _and_more([f"`{n}`" for n in found], 4, language)
    return message("card.same_name", language, version=_v(version), names=shown)


def _torch_card(history: ApiHistory, verdict: Verdict, version: Version, backend: str, spelled: Optional[str],
                limit: Optional[int] = None, said: Sequence[str] = (), support: Sequence[str] = (),
                language: str = DEFAULT_LANGUAGE) -> str:
    name = verdict.torch
    target = f"**`{verdict.mindspore}`**" if verdict.mindspore else message("card.no_counterpart", language)
    title = message("card.title", language, name=name, target=target)
    if spelled and spelled != name and spelled != name.rsplit(".", 1)[-1]:
        title += message("card.written_here", language, spelled=spelled)
    blocks: List[Block] = [Block(title), Block(_action(verdict, version, backend, said, language))]
    if verdict.consequence:
        blocks.append(Block(message("card.measured", language, text=_sentence(verdict.consequence, language))))
    renames = [f"`{t}` -> `{m}`" for t, m in verdict.renames if t != m]
    if renames:
        blocks.append(Block(message("card.renamed", language, renames=listing(renames, language))))
    if verdict.rule.torch_removed:
        blocks.append(Block(message("card.torch_removed", language, text=_sentence(verdict.rule.torch_removed, language))))
    if verdict.status == "missing" and not verdict.available_elsewhere:
        same = _same_name_elsewhere(history, name, version, language)
        if same:
            blocks.append(Block(same))
    signatures = [s for s in (
        _signature(history, name, None, "PyTorch", language),
        _signature(history, verdict.mindspore, version, f"MindSpore {_v(version)}", language) if verdict.mindspore else None,
    ) if s]
    if signatures:
        blocks.append(Block(message("card.signatures", language, signatures=message("card.signature_separator", language).join(signatures))))
    if verdict.mindspore and history.snapshot("mindspore", version) and history.entry(verdict.mindspore, version) is None:
        blocks.append(Block(message("card.not_in_snapshot", language, target=verdict.mindspore, version=_v(version))))
    if verdict.rule.basis in _BASIS:
        blocks.append(Block(message("card.source", language, basis=message(_BASIS[verdict.rule.basis], language)), optional=True))
    table = _targets_table(verdict.rule, language)
    if table:
        blocks.append(Block("\n".join(table), optional=True))
    others = _other_targets(verdict.rule, verdict.mindspore, language)
    if others:
        blocks.append(Block(message("card.other_targets", language) + "\n" + "\n".join(others), optional=True))
    if verdict.mindspore:
        line = _versions_line(history, verdict.mindspore, language)
        if line:
            blocks.append(Block(line, optional=True))
    # Second-order and sparse support (support_cards.py): left out first when the card is cut.
    blocks.extend(Block(text, optional=True) for text in support)
    code = _CODES[verdict.status]
    blocks.append(Block(_links(verdict.diff, code, language)))
    return _fit(blocks, limit, _more(name, language))


def _more(name: str, language: str = DEFAULT_LANGUAGE) -> str:
    return message("card.more", language, name=name)


def _mindspore_card(knowledge: KnowledgeBase, history: ApiHistory, name: str, rules: Sequence[ApiRule], version: Version, backend: str,
                    language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    entry = history.entry(name, version) or history.entry(name)
    if entry is not None and entry[0] == "module":
        return None
    heading = message("card.mindspore_heading", language, name=name, kind=entry[0]) if entry else message("card.mindspore_heading_plain", language, name=name)
    blocks: List[str] = [heading]
    if rules:
        items = []
        for rule in rules:
            verdict = knowledge.verdict(rule.torch, version, backend)
            if verdict is not None and verdict.mindspore == name:
                items.append(message("card.counterpart_here", language, torch=rule.torch, state=_state(verdict.status, language),
                                     where=_where(version, backend, language)))
            else:
                elsewhere = verdict.mindspore if verdict is not None and verdict.mindspore else message("card.counterpart_nothing", language)
                spans = listing([_span(t) for t in rule.targets if t.mindspore == name], language)
                items.append(message("card.counterpart_elsewhere", language, torch=rule.torch, spans=spans, elsewhere=elsewhere,
                                     where=_where(version, backend, language)))
        blocks.append(message("card.counterpart_of", language) + "\n" + "\n".join(items))
    else:
        blocks.append(message("card.no_torch_maps_here", language))
    signature = _signature(history, name, version, f"MindSpore {_v(version)}", language)
    if signature:
        blocks.append(message("card.signature", language, signature=signature))
    line = _versions_line(history, name, language)
    if line:
        blocks.append(line)
    codes = sorted({_CODES[knowledge.verdict(r.torch, version, backend).status] for r in rules})
    if codes:
        blocks.append(" | ".join(_rule_link(c, language) for c in codes))
    return "\n\n".join(blocks)


def _span(target: Target) -> str:
    return _v(target.first) if target.first == target.last else f"{_v(target.first)}-{_v(target.last)}"


def _absent_card(history: ApiHistory, name: str, version: Version, language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """A MindSpore name the snapshot of the configured version does not have."""
    parent = name.rsplit(".", 1)[0]
    snap = history.snapshot("mindspore", version)
    if snap is None or parent not in snap.modules and parent not in snap.apis:
        return None
    present = history.present_in(name)
    then = (message("card.absent_elsewhere", language, present=listing([_v(v) for v in present], language)) if present
            else message("card.absent_nowhere", language))
    return sentences([message("card.absent", language, name=name, version=_v(version)), then], language)


def _unjudged_card(history: ApiHistory, name: str, version: Version, language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """A real torch API (in the snapshot of torch) that msport has no rule for yet."""
    entry = history.entry(name)
    if entry is None or entry[0] == "module":
        return None
    blocks = [
        message("card.unjudged_heading", language, name=name, kind=entry[0]),
        message("card.unjudged", language, version=_v(version), url=MAPPING_TABLE),
    ]
    signature = _signature(history, name, None, "PyTorch", language)
    if signature:
        blocks.append(message("card.signature", language, signature=signature))
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
    language: str = DEFAULT_LANGUAGE,
) -> Optional[str]:
    """A card for a torch API (its verdict) or a MindSpore API (the torch APIs mapping to it),
    in *language*.

    None for names that are not APIs of either package (modules included). *spelled* is how
    the code writes the name (an alias such as ``msel``), shown when it differs. *limit*: at
    most that many characters (HOVER_LIMIT in the editor), else the whole card. *said*: the
    messages the editor shows above the card (VS Code puts the diagnostics there), not repeated.
    """
    history = history if history is not None else default_history()
    support = support_blocks(knowledge, name, version, backend, language)
    verdict = knowledge.verdict(name, version, backend)
    if verdict is not None:
        return _torch_card(history, verdict, version, backend, spelled, limit, said, support, language)
    card = _api_card(knowledge, history, name, version, backend, language)
    if not support:
        return card
    return "\n\n".join(([card] if card else [f"**`{name}`**"]) + support)


def _api_card(knowledge: KnowledgeBase, history: ApiHistory, name: str, version: Version, backend: str,
              language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """The card of a name with no verdict: a MindSpore API, or a torch API msport does not judge."""
    framework = knowledge.tensors.framework_of(name)
    if framework == "mindspore":
        rules = knowledge.torch_rules_for(name)
        if rules or history.entry(name) is not None:
            return _mindspore_card(knowledge, history, name, rules, version, backend, language)
        return _absent_card(history, name, version, language)
    if framework == "torch":
        return _unjudged_card(history, name, version, language)
    return None


def _heading(code: str, name: str, severity: str, language: str) -> str:
    return message("card.code_heading", language, code=code, name=name, severity=message(_SEVERITY_WORD[severity], language))


def _fix_key(info: Optional[CodeInfo]) -> str:
    """The label of a rule's way out: a static alternative for a dynamic-shape rule, else a fix."""
    return "card.static_alternative" if info is not None and info.category == "dynamic-shape" else "card.fix"


def code_card(info: CodeInfo, language: str = DEFAULT_LANGUAGE) -> str:
    """What a rule code finds, why it matters, and what to do, in *language*."""
    blocks = [
        _heading(info.code, info.name, info.severity, language),
        _sentence(in_language(info.summary, language), language),
        message("card.why", language, why=_sentence(in_language(info.why, language), language)),
    ]
    if info.example:
        blocks.append(message("card.example", language) + "\n\n```python\n" + info.example.rstrip() + "\n```")
    if info.use_instead:
        blocks.append(message("card.use_instead", language) + "\n\n```python\n" + info.use_instead.rstrip() + "\n```")
    if info.fix:
        blocks.append(message(_fix_key(info), language, fix=_sentence(in_language(info.fix, language), language)))
    blocks.append(_rule_link(info.code, language))
    return "\n\n".join(blocks)


def finding_card(knowledge: KnowledgeBase, finding, limit: Optional[int] = None, with_message: bool = True,
                 language: str = DEFAULT_LANGUAGE) -> str:
    """One finding under the cursor (e.g. a dynamic-shape one): what to do first (the static
    alternative or fix), then the message and where its values come from, then the rule's why
    when the message does not explain it already, in *language* (the finding's message is
    already in it).

    Messages of some families end with the alternative fitted to this place ("Static
    alternative: ...") after explaining the mechanism and its cost on MindSpore: for those the
    alternative is moved to the top and the rule's general why and fix are left to the rule
    page, so no paragraph is said twice. *with_message* false: the editor shows the message
    above the card (VS Code's hover does), so the card leaves it out."""
    info: Optional[CodeInfo] = knowledge.codes.get(finding.code)
    key = _fix_key(info)
    if key == "card.static_alternative":
        # What checks/dynamic_shape.py writes before the alternative it fits to the place: the
        # text between {consequence} and {workaround} of its frame, in the finding's language.
        frame = in_language(dict(knowledge.triggers.messages).get("finding"), language)
        separator = frame.partition("{consequence}")[2].partition("{workaround}")[0]
    else:
        separator = " Fix: "
    text, _, fitted = finding.message.partition(separator) if separator else (finding.message, "", "")
    heading = _heading(finding.code, info.name, finding.severity.value, language) if info else \
        f"**{finding.code}** ({message(_SEVERITY_WORD[finding.severity.value], language)})"
    blocks: List[Block] = [Block(heading)]
    if fitted:
        blocks.append(Block(message(key, language, fix=_sentence(fitted, language))))
    elif info is not None and info.fix:
        blocks.append(Block(message(key, language, fix=_sentence(in_language(info.fix, language), language))))
    if with_message:
        blocks.append(Block(_sentence(text, language)))
    if finding.related:
        blocks.append(Block("\n".join(message("card.related", language, line=r.span.start_line + 1, message=r.message) for r in finding.related)))
    if info is not None and not fitted:
        blocks.append(Block(message("card.why", language, why=_sentence(in_language(info.why, language), language)), optional=True))
    if info is not None and info.use_instead:
        # What compiles instead, next to what was found (the rule page's pair).
        blocks.append(Block(message("card.example_compiles", language) + "\n\n```python\n" + info.use_instead.rstrip() + "\n```"))
    blocks.append(Block(_rule_link(finding.code, language)))
    return _fit(blocks, limit, _more(finding.code, language))


def join_cards(cards: Iterable[Optional[str]]) -> Optional[str]:
    present = [c for c in cards if c]
    return SEPARATOR.join(present) if present else None
