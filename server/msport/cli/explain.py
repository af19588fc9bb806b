"""``msport explain NAME``: the hover card of one API (or the page of one rule code), for a
version and a backend, in the terminal."""

from __future__ import annotations

import sys
from typing import Dict, List

from ..knowledge import KnowledgeBase, default_knowledge
from ..knowledge.cards import api_card, code_card
from ..knowledge.messages import listing, message
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
            print(f"msport: error: {flag_of(problem.key)}: {problem.reason(settings.language)}", file=sys.stderr)
        return 2
    if name.upper() in knowledge.codes:
        print(code_card(knowledge.codes[name.upper()], settings.language))
        return 0
    card = api_card(knowledge, name, settings.version, settings.backend, language=settings.language)
    if card is None:
        matches = _matches(knowledge, name)
        if len(matches) == 1:
            card = api_card(knowledge, matches[0], settings.version, settings.backend, language=settings.language)
        elif matches:
            shown = listing(matches[:12], settings.language)
            if len(matches) > 12:
                shown = message("card.and_more", settings.language, shown=shown, count=len(matches) - 12)
            print(message("cli.explain.ambiguous", settings.language, name=name, matches=shown), file=sys.stderr)
            return 1
    if card is None:
        print(message("cli.explain.unknown", settings.language, name=name), file=sys.stderr)
        return 1
    print(card)
    return 0
