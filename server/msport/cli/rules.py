"""``msport rules``: every rule code with its summary."""

from __future__ import annotations

import json

from ..knowledge import default_knowledge


def print_rules(fmt: str) -> int:
    codes = default_knowledge().codes
    if fmt == "json":
        print(json.dumps([info.__dict__ for info in codes.values()], indent=2, ensure_ascii=False))
        return 0
    width = max(len(info.name) for info in codes.values())
    for code, info in sorted(codes.items()):
        print(f"{code}  {info.name:<{width}}  {info.severity:<7}  {info.summary}")
    return 0
