"""msport's knowledge: the rule data in rules/, loaded once into an immutable index."""

from .index import KnowledgeBase, default_knowledge, load_knowledge

__all__ = ["KnowledgeBase", "default_knowledge", "load_knowledge"]
