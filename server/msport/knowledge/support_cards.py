"""The second-order and sparse sections of an API's card (hover and ``msport explain``).

Kept apart from cards.py so that each section is one function: the card appends what applies.
Every cell is a lookup in rules/second_order.toml and rules/sparse.toml (measured on the real
packages, CPU; the documented platforms elsewhere).
"""

from __future__ import annotations

import unicodedata
from typing import List, Optional, Sequence

from .index import KnowledgeBase
from .messages import DEFAULT_LANGUAGE, listing, message
from .model import Version
from .rule_texts import in_language
from .second_order import SecondOrderRules, Support, default_second_order
from .sparse import SparseRules, default_sparse

#: The catalogue key of each measured status in the second-order table (a status not here is "-").
_STATUS = {
    "ok": "card.so_ok", "zero": "card.so_zero", "wrong": "card.so_wrong", "no-bprop": "card.so_no_bprop",
    "no-kernel": "card.so_no_kernel", "crash": "card.so_crash",
}
#: ... and of each state of the gradient's own bprop.
_BPROP = {"missing": "card.so_bprop_missing", "present": "card.so_bprop_present", "unknown": "card.so_bprop_unknown"}
_BACKENDS = (("ascend", "Ascend"), ("gpu", "GPU"), ("cpu", "CPU"))


def _width(text: str) -> int:
    """Columns *text* takes in a terminal: a Chinese character takes two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _v(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
    """A Markdown table whose columns line up in a terminal too (Chinese text included)."""
    rows = [list(header)] + [list(r) for r in rows]
    widths = [max(_width(r[i]) for r in rows) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(c + " " * (w - _width(c)) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return [line(rows[0]), "| " + " | ".join("-" * w for w in widths) + " |", *(line(r) for r in rows[1:])]


def _targets(knowledge: KnowledgeBase, name: str, version: Version) -> List[str]:
    """The MindSpore APIs whose support describes *name*: its own, or its rule's targets."""
    if knowledge.tensors.framework_of(name) == "mindspore":
        return [name]
    rule = knowledge.lookup(name)
    if rule is None:
        return []
    return list(dict.fromkeys(t.mindspore for t in rule.targets if t.mindspore and t.first <= version <= t.last))


def _status(status: Optional[str], language: str) -> str:
    return message(_STATUS[status], language) if status in _STATUS else "-"


def second_order_block(knowledge: KnowledgeBase, name: str, version: Version, backend: str,
                       rules: Optional[SecondOrderRules] = None, language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """Grad-of-grad support of the API's MindSpore counterparts, per mode, as measured, in *language*."""
    rules = rules if rules is not None else default_second_order()
    chosen = knowledge.verdict(name, version, backend) if knowledge.tensors.framework_of(name) == "torch" else None
    rows, notes, measured, silent = [], [], set(), False
    for target in _targets(knowledge, name, version):
        support: Optional[Support] = rules.support(target, version)
        if support is None:
            continue
        measured.add(_v(support.version))
        bprop = message(_BPROP[support.bprop], language)
        if support.bprop == "missing" and support.grad_primitive:
            bprop = message("card.so_bprop_missing_named", language, primitive=support.grad_primitive)
        label = f"`{target}`" + (message("card.so_here", language) if chosen is not None and chosen.mindspore == target else "")
        statuses = [support.status(m) for m in ("pynative", "inner_jit", "graph")]
        silent = silent or statuses[0] in ("zero", "wrong")
        rows.append([label, bprop, *(_status(status, language) for status in statuses)])
        replacement = rules.replacement_for(support.grad_primitive)
        if replacement is not None:
            notes.append(message("card.so_instead", language, target=target, text=in_language(replacement.text, language).rstrip(".。")))
    if not rows:
        return None
    head = message("card.so_heading", language, versions=listing(sorted(measured), language))
    header = [message(key, language) for key in ("card.so_column_bprop", "card.so_column_pynative", "card.so_column_inner_jit", "card.so_column_graph")]
    lines = [head, "", *markdown_table(["MindSpore", *header], rows)]
    if silent:
        notes.append(message("card.so_silent", language))
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def sparse_block(knowledge: KnowledgeBase, name: str, version: Version, backend: str, rules: Optional[SparseRules] = None,
                 language: str = DEFAULT_LANGUAGE) -> Optional[str]:
    """What the API does on a sparse tensor on MindSpore: its COO and CSR counterparts, where
    they run, and the dense fallback, in *language*."""
    rules = rules if rules is not None else default_sparse()
    operation = rules.operation(name) or rules.operation_of_counterpart(name)
    constructor = rules.constructor(name)
    lines: List[str] = []
    if constructor is not None and knowledge.tensors.framework_of(name) == "torch":
        lines.append(message("card.sparse_constructor", language, layout=constructor.layout.upper(),
                             cls="COOTensor" if constructor.layout == "coo" else "CSRTensor"))
    if operation is not None:
        rows = []
        for layout, counterpart in operation.counterparts:
            if counterpart.none:
                rows.append([layout.upper(), message("card.sparse_none", language), "-", "-", "-"])
                continue
            cells = []
            for key, label in _BACKENDS:
                if key == "cpu":
                    result = rules.result(counterpart.case, version)
                    cells.append("-" if result is None else message("card.sparse_runs" if result.status("pynative") == "ok" else "card.sparse_fails", language))
                else:
                    platforms = rules.documented_platforms(counterpart.mindspore, version)
                    cells.append("?" if platforms is None else message("card.sparse_documented" if label in platforms else "card.sparse_undocumented", language))
            rows.append([layout.upper(), f"`{counterpart.mindspore}`", *cells])
        if rows:
            lines += [message("card.sparse_heading", language), "",
                      *markdown_table([message("card.sparse_column_layout", language), "MindSpore", "Ascend", "GPU", "CPU"], rows), "",
                      message("card.sparse_fallback", language, fallback=in_language(operation.fallback, language).rstrip(".。"))]
    instead = rules.deprecation(name)
    if instead is not None:
        lines.append(message("card.sparse_deprecated", language, instead=in_language(instead, language).rstrip(".。")))
    return "\n".join(lines) if lines else None


def support_blocks(knowledge: KnowledgeBase, name: str, version: Version, backend: str, language: str = DEFAULT_LANGUAGE) -> List[str]:
    return [b for b in (second_order_block(knowledge, name, version, backend, language=language),
                        sparse_block(knowledge, name, version, backend, language=language)) if b]
