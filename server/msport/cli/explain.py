"""``msport explain NAME``: the hover card of one API (or the page of one rule code), for a
version and a backend, in the terminal."""

from __future__ import annotations

import sys
from typing import Dict, List

from ..knowledge import KnowledgeBase, default_knowledge
from ..knowledge.cards import api_card, code_card
from .files import environment_settings, flag_of


def _matches(knowledge: KnowledgeBase, name: str) -> List[str]:
    """Torch names with a rule that end with *name* (``GELU``, ``nn.GELU``, ``Tensor.view``)."""
    suffix = "." + name.lstrip(".")
    return sorted(n for n in knowledge.apis if n.endswith(suffix))


def explain(name: str, flags: Dict[str, str]) -> int:
    knowledge = default_knowledge()
    settings = environment_settings().merged(flags, "command line", knowledge.codes)
    if settings.problems:
        for problem in settings.problems:
            print(f"msport: error: {flag_of(problem.key)}: {problem.message}", file=sys.stderr)
        return 2
    if name.upper() in knowledge.codes:
        print(code_card(knowledge.codes[name.upper()]))
        return 0
    card = api_card(knowledge, name, settings.version, settings.backend)
    if card is None:
        matches = _matches(knowledge, name)
        if len(matches) == 1:
            card = api_card(knowledge, matches[0], settings.version, settings.backend)
        elif matches:
            shown = ", ".join(matches[:12]) + (f" and {len(matches) - 12} more" if len(matches) > 12 else "")
            print(f"msport: {name} is ambiguous; give the qualified name: {shown}.", file=sys.stderr)
            return 1
    if card is None:
        print(
            f"msport: {name} is not an API msport knows. Give a qualified name such as torch.nn.GELU, "
            "torch.Tensor.view or mindspore.ops.cat, or a rule code such as MS101.",
            file=sys.stderr,
        )
        return 1
    print(card)
    return 0
