"""``msport rules``: every rule code with its summary, and what the API rules cover."""

from __future__ import annotations

import json
from collections import Counter

from ..knowledge import default_knowledge


def print_rules(fmt: str) -> int:
    knowledge = default_knowledge()
    codes = knowledge.codes
    if fmt == "json":
        print(json.dumps([info.__dict__ for info in codes.values()], indent=2, ensure_ascii=False))
        return 0
    width = max(len(info.name) for info in codes.values())
    for code, info in sorted(codes.items()):
        print(f"{code}  {info.name:<{width}}  {info.severity:<7}  {info.summary}")
    rules = set(knowledge.apis.values())
    basis = Counter(rule.basis for rule in rules)
    namespaces = sum(1 for rule in rules if rule.torch.endswith(".*"))
    print()
    print(
        f"MS101-MS103 judge {len(rules)} PyTorch APIs ({basis['tables']} from the official mapping tables, "
        f"{basis['curated']} hand-written, {basis['inferred']} inferred from the API snapshots; {namespaces} of them whole "
        "namespaces), plus every other public torch API, reported missing. "
        "`msport explain NAME` shows one; docs/rules/api-index.md lists them all per version and backend."
    )
    return 0
