"""``msport explain NAME``: what msport knows about one API, for a version and a backend."""

from __future__ import annotations

import sys
from typing import Dict

from ..analysis.settings import Settings
from ..knowledge import default_knowledge
from ..knowledge.cards import api_card


def explain(name: str, flags: Dict[str, str]) -> int:
    knowledge = default_knowledge()
    settings = Settings().merged(flags, "command line", knowledge.codes)
    if settings.problems:
        for problem in settings.problems:
            print(f"msport: error: --{problem.key}: {problem.message}", file=sys.stderr)
        return 2
    card = api_card(knowledge, name, settings.version, settings.backend)
    if card is None:
        print(f"msport: {name} is not an API msport knows. Give a qualified name such as torch.nn.GELU or torch.Tensor.view.", file=sys.stderr)
        return 1
    print(card)
    return 0
