"""Hover: the card for the API or the finding under the cursor.

Cards are lookups (knowledge/cards.py) in data the server loads after ``initialized`` (the
rules, and the snapshots of the real packages), and the name under the cursor costs a walk of
the definitions around it (analysis/lookup.py): well under a millisecond, so the local card is
built on the event loop. A hand-off to a worker thread would cost more than that whenever the
analysis thread is busy: each switch back waits for the GIL (up to 5 ms). jedi, which can take
seconds, is asked on its own thread, and only for names imported from project modules msport
cannot follow (see jedi_fallback.py).
"""

from __future__ import annotations

import asyncio
from typing import List, Optional, Sequence, Tuple

from ..analysis.engine import AnalysisResult
from ..analysis.findings import Category, Finding, Span
from ..analysis.lookup import NameAt, findings_at, name_at, public_name
from ..analysis.settings import Settings
from ..knowledge.api_history import ApiHistory, default_history
from ..knowledge.cards import HOVER_LIMIT, api_card, finding_card, join_cards
from ..knowledge.index import KnowledgeBase
from ..knowledge.messages import message
from . import jedi_fallback

#: Categories whose findings the API card already explains (or the diagnostic says all).
_COVERED = {Category.MISSING_API, Category.DIVERGENT_API, Category.EQUIVALENT_API, Category.SYNTAX_ERROR, Category.CONFIG}


def _local_cards(knowledge: KnowledgeBase, result: AnalysisResult, settings: Settings, line: int, col: int,
                 diagnostics_shown: bool) -> Tuple[Optional[str], Optional[Span], Optional[NameAt]]:
    found = name_at(result, knowledge, line, col)
    here = findings_at(result, line, col)
    findings: List[Finding] = [f for f in here if f.category not in _COVERED]
    said = [f.message for f in here] if diagnostics_shown else []
    api = None
    if found is not None and found.qualified:
        api = api_card(knowledge, found.qualified, settings.version, settings.backend, spelled=found.spelled, limit=HOVER_LIMIT, said=said,
                       language=settings.language)
    text = join_cards([*(finding_card(knowledge, f, HOVER_LIMIT, with_message=not diagnostics_shown, language=settings.language) for f in findings), api])
    span = found.span if found is not None and api else (findings[0].span if findings else None)
    return text, span, found


def _known(knowledge: KnowledgeBase, history: ApiHistory):
    def in_rules(name: str) -> bool:
        return knowledge.lookup(name) is not None or bool(knowledge.torch_rules_for(name))

    def in_snapshots(name: str) -> bool:
        entry = history.entry(name)
        return entry is not None and entry[0] != "module"

    return in_rules, in_snapshots


async def hover_text(
    knowledge: KnowledgeBase,
    result: AnalysisResult,
    settings: Settings,
    line: int,
    col: int,
    path: Optional[str],
    roots: Sequence[str],
    diagnostics_shown: bool = False,
) -> Tuple[Optional[str], Optional[Span]]:
    """(Markdown, span it is about) for the position, or (None, None). *diagnostics_shown*: the
    editor shows the diagnostics under the cursor above the hover (VS Code does), so the cards
    do not repeat their messages."""
    text, span, found = _local_cards(knowledge, result, settings, line, col, diagnostics_shown)
    if text or found is None or not found.foreign:
        return text, span
    if not jedi_fallback.is_project_module(found.foreign, path, roots):
        return None, None
    root = roots[0] if roots else None
    definitions = await jedi_fallback.definitions(result.source.text, path, root, line, col)
    if not definitions:
        return None, None
    history = await asyncio.to_thread(default_history)
    for known in _known(knowledge, history):
        for full_name, module_name in definitions:
            public = public_name(full_name, module_name, known)
            if public is None:
                continue
            card = api_card(knowledge, public, settings.version, settings.backend, history, spelled=found.spelled, limit=HOVER_LIMIT,
                            language=settings.language)
            if card:
                key = "card.followed_star_import" if found.foreign == "*" else "card.followed_import"
                note = message(key, settings.language, name=found.spelled, source=found.foreign)
                return card + "\n\n" + note, found.span
    return None, None
