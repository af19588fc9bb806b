"""The measured tables on the rule pages of the second-order (MS501-MS503) and sparse (MS601,
MS602) families, for tools/gen_rule_docs.py: what the probes found, from rules/second_order.toml
and rules/sparse.toml."""

from __future__ import annotations

from typing import List

from msport.knowledge.second_order import load_second_order
from msport.knowledge.sparse import load_sparse

_MODES = (("pynative", "PyNative"), ("inner_jit", "inner jit"), ("graph", "graph"))


def _v(version) -> str:
    return f"{version[0]}.{version[1]}"


def _second_order(code: str) -> List[str]:
    rules = load_second_order()
    rows = []
    for support in sorted(rules.measured, key=lambda s: (s.version, s.mindspore)):
        if support.unprobed:
            continue
        statuses = dict(support.statuses)
        if code == "MS501" and support.bprop == "missing":
            rows.append(f"| `{support.mindspore}` | {_v(support.version)} | {support.grad_primitive or '?'} | "
                        + ", ".join(f"`{t}`" for t in support.torch[:3]) + " |")
        elif code == "MS502" and "crash" in statuses.values() and support.bprop != "missing":
            rows.append(f"| `{support.mindspore}` | {_v(support.version)} | "
                        + " | ".join(statuses.get(m, "") for m, _ in _MODES) + " |")
        elif code == "MS503" and {"zero", "wrong"} & set(statuses.values()) and support.bprop != "missing":
            rows.append(f"| `{support.mindspore}` | {_v(support.version)} | "
                        + " | ".join(statuses.get(m, "") for m, _ in _MODES) + " |")
    if not rows:
        return []
    measured = [s for s in rules.measured if not s.unprobed]
    head = [f"Measured by `tools/probe_second_order.py` on the real packages (CPU): {len(measured)} MindSpore targets of the mapped "
            "PyTorch APIs differentiated twice against PyTorch's double backward. The MindSpore APIs this code is reported for:", ""]
    if code == "MS501":
        return head + ["| MindSpore API | version | gradient without a bprop | PyTorch APIs mapped to it |", "| --- | --- | --- | --- |", *rows, ""]
    return head + ["| MindSpore API | version | " + " | ".join(label for _, label in _MODES) + " |", "| --- | --- |" + " --- |" * 3, *rows, ""]


def _sparse(code: str) -> List[str]:
    rules = load_sparse()
    rows = []
    for operation in rules.operations:
        for layout, counterpart in operation.counterparts:
            if code == "MS601" and counterpart.none:
                rows.append(f"| {operation.id} | {layout.upper()} | {operation.fallback} |")
            elif code == "MS602" and counterpart.case:
                result = rules.result(counterpart.case, (2, 10))
                platforms = rules.documented_platforms(counterpart.mindspore, (2, 10))
                cpu = "?" if result is None else ("runs" if result.status("pynative") == "ok" else f"fails: {result.error('pynative')}")
                rows.append(f"| {operation.id} | {layout.upper()} | `{counterpart.mindspore}` | {cpu} | {', '.join(platforms) if platforms else '-'} |")
    if not rows:
        return []
    if code == "MS601":
        return ["Operations without a MindSpore counterpart, and their dense fallbacks (rules/sparse.toml):", "",
                "| operation | layout | dense fallback |", "| --- | --- | --- |", *rows, ""]
    return ["Counterparts measured by `tools/probe_sparse.py` on MindSpore 2.10's CPU backend, and the platforms their "
            "documentation lists:", "", "| operation | layout | MindSpore | CPU (measured) | documented platforms |",
            "| --- | --- | --- | --- | --- |", *rows, ""]


def support_section(code: str) -> List[str]:
    """Markdown lines for the "Versions and backends" section of *code*'s page, or []."""
    if code in ("MS501", "MS502", "MS503"):
        return _second_order(code)
    if code in ("MS601", "MS602"):
        return _sparse(code)
    return []
