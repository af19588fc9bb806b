"""The second-order and sparse sections of an API's card (hover and ``msport explain``).

Kept apart from cards.py so that each section is one function: the card appends what applies.
Every cell is a lookup in rules/second_order.toml and rules/sparse.toml (measured on the real
packages, CPU; the documented platforms elsewhere).
"""

from __future__ import annotations

from typing import List, Optional, Sequence

from .index import KnowledgeBase
from .model import Version
from .second_order import SecondOrderRules, Support, default_second_order
from .sparse import SparseRules, default_sparse

_STATUS = {
    "ok": "ok", "zero": "ZEROS", "wrong": "WRONG", "no-bprop": "no bprop", "no-kernel": "no CPU kernel", "crash": "fails", "n/a": "-",
}
_BACKENDS = (("ascend", "Ascend"), ("gpu", "GPU"), ("cpu", "CPU"))


def _v(version: Version) -> str:
    return f"{version[0]}.{version[1]}"


def _table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> List[str]:
    rows = [list(header)] + [list(r) for r in rows]
    widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    return [line(rows[0]), "| " + " | ".join("-" * w for w in widths) + " |", *(line(r) for r in rows[1:])]


def _targets(knowledge: KnowledgeBase, name: str, version: Version) -> List[str]:
    """The MindSpore APIs whose support describes *name*: its own, or its rule's targets."""
    if knowledge.tensors.framework_of(name) == "mindspore":
        return [name]
    rule = knowledge.lookup(name)
    if rule is None:
        return []
    return list(dict.fromkeys(t.mindspore for t in rule.targets if t.mindspore and t.first <= version <= t.last))


def second_order_block(knowledge: KnowledgeBase, name: str, version: Version, backend: str,
                       rules: Optional[SecondOrderRules] = None) -> Optional[str]:
    """Grad-of-grad support of the API's MindSpore counterparts, per mode, as measured."""
    rules = rules if rules is not None else default_second_order()
    chosen = knowledge.verdict(name, version, backend) if knowledge.tensors.framework_of(name) == "torch" else None
    rows, notes, measured = [], [], set()
    for target in _targets(knowledge, name, version):
        support: Optional[Support] = rules.support(target, version)
        if support is None:
            continue
        measured.add(_v(support.version))
        bprop = {"missing": f"missing ({support.grad_primitive})" if support.grad_primitive else "missing",
                 "present": "yes", "unknown": "?"}[support.bprop]
        label = f"`{target}`" + (" (here)" if chosen is not None and chosen.mindspore == target else "")
        rows.append([label, bprop, *(_STATUS.get(support.status(m) or "n/a", "-") for m in ("pynative", "inner_jit", "graph"))])
        replacement = rules.replacement_for(support.grad_primitive)
        if replacement is not None:
            notes.append(f"Instead of `{target}` on a second-order path: {replacement.text}.")
    if not rows:
        return None
    versions = ", ".join(sorted(measured))
    head = (f"**Second-order gradients** (grad of grad against PyTorch's double backward, measured on MindSpore {versions} CPU; "
            "a missing bprop fails on every backend):")
    lines = [head, "", *_table(["MindSpore", "2nd-order bprop", "PyNative", "inner jit", "graph"], rows)]
    if any(r[2] in ("ZEROS", "WRONG") for r in rows):
        notes.append("PyNative ZEROS/WRONG: nested ms.grad returns them silently; compile the inner gradient with mindspore.jit.")
    if notes:
        lines += ["", *notes]
    return "\n".join(lines)


def sparse_block(knowledge: KnowledgeBase, name: str, version: Version, backend: str, rules: Optional[SparseRules] = None) -> Optional[str]:
    """What the API does on a sparse tensor on MindSpore: its COO and CSR counterparts, where
    they run, and the dense fallback."""
    rules = rules if rules is not None else default_sparse()
    operation = rules.operation(name) or rules.operation_of_counterpart(name)
    constructor = rules.constructor(name)
    lines: List[str] = []
    if constructor is not None and knowledge.tensors.framework_of(name) == "torch":
        lines.append(f"**Sparse:** makes a {constructor.layout.upper()} tensor: MindSpore's "
                     f"{'COOTensor' if constructor.layout == 'coo' else 'CSRTensor'} holds 2-D matrices only (MS603); COO indices "
                     "must be int64 for coalesce and + (MS604).")
    if operation is not None:
        rows = []
        for layout, counterpart in operation.counterparts:
            if counterpart.none:
                rows.append([layout.upper(), "none", "-", "-", "-"])
                continue
            cells = []
            for key, label in _BACKENDS:
                if key == "cpu":
                    result = rules.result(counterpart.case, version)
                    cells.append("-" if result is None else ("runs" if result.status("pynative") == "ok" else "fails"))
                else:
                    platforms = rules.documented_platforms(counterpart.mindspore, version)
                    cells.append("?" if platforms is None else ("documented" if label in platforms else "not documented"))
            rows.append([layout.upper(), f"`{counterpart.mindspore}`", *cells])
        if rows:
            lines += ["**On a sparse tensor** (CPU measured in PyNative; GPU and Ascend as documented):", "",
                      *_table(["layout", "MindSpore", "Ascend", "GPU", "CPU"], rows), "", f"Dense fallback: {operation.fallback}."]
    instead = rules.deprecation(name)
    if instead is not None:
        lines.append(f"**Deprecated** in MindSpore's documentation (no supported platform listed): {instead}.")
    return "\n".join(lines) if lines else None


def support_blocks(knowledge: KnowledgeBase, name: str, version: Version, backend: str) -> List[str]:
    return [b for b in (second_order_block(knowledge, name, version, backend), sparse_block(knowledge, name, version, backend)) if b]
