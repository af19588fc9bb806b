"""msport's knowledge: the rule data in rules/, loaded once into an immutable index."""

from .index import KnowledgeBase, default_knowledge, load_knowledge


def preload() -> None:
    """Load at once what the checks otherwise load on first use (the rules, the proven renames,
    the equivalent replacements: ~40 ms): the server does it while the editor opens files, the
    command line before its worker processes fork and share it."""
    from .callforms import default_callforms
    from .proven import default_proven
    from .replacements import default_replacements
    from . import signatures

    default_knowledge()
    default_proven()
    default_replacements()
    default_callforms()
    signatures.preload()  # the real signatures the call forms bind arguments with


__all__ = ["KnowledgeBase", "default_knowledge", "load_knowledge", "preload"]
