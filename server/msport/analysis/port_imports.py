"""MS104: imports of PyTorch that nothing in the file uses any more, with a fix that deletes them.

Whether a name is used depends on the whole module, so this runs over the module after the
per-chunk checks (each chunk's names and imports are cached by its text, like its parse). Where
the freed name is `nn` or `F` and the file spells out the MindSpore module that name usually
stands for (`ms.nn.Cell`, written by msport's own renames), the fix binds the name to that module
instead and writes `nn.Cell`: the port reads like MindSpore code written by hand.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import FrozenSet, Iterable, List, Optional, Sequence, Tuple

from .. import pyast
from ..knowledge.messages import DEFAULT_LANGUAGE, listing
from ..knowledge.port_fixes import default_port_fix_rules
from ..knowledge.rule_texts import in_language
from .chunks import ParsedChunk
from .findings import Category, Edit, Finding, Fix, Safety, Severity, Span
from .lru import LRU
from .names import ModuleContext, dotted_name
from .source import Source
from .spans import node_span
from .visitor import walk

CODE = "MS104"


@dataclass(frozen=True)
class _Import:
    span: Span  # relative to its chunk
    aliases: Tuple[Tuple[str, str], ...]  # (local name, qualified name)
    kind: str  # "import" | "from"
    module: str  # of a from-import


@dataclass(frozen=True)
class _ChunkNames:
    loaded: FrozenSet[str]
    imports: Tuple[_Import, ...]
    #: Spellings a rebind may shorten: (dotted text, span relative to the chunk).
    spelled: Tuple[Tuple[str, Span], ...]


class UnusedTorchImports:
    """The MS104 findings of a module; safe to share between threads (the cache is an LRU)."""

    def __init__(self, knowledge, cache_size: int = 20_000) -> None:
        self.knowledge = knowledge
        self._chunks = LRU(cache_size)

    def findings(self, parsed: Sequence[ParsedChunk], source: Source, context: ModuleContext,
                 language: str = DEFAULT_LANGUAGE) -> List[Finding]:
        names = []
        for item in parsed:
            if item.error is not None:
                return []  # a chunk that does not parse may hold the only use
            cached = self._chunks.get(item.chunk.text)
            if cached is None:
                cached = _chunk_names(item.tree, item.chunk.text.split("\n"))
                self._chunks.put(item.chunk.text, cached)
            names.append((item.chunk.start, cached))
        loaded = frozenset().union(*(n.loaded for _, n in names)) if names else frozenset()
        found = []
        for start, chunk_names in names:
            for statement in chunk_names.imports:
                unused = [(local, q) for local, q in statement.aliases if _is_torch(q) and local not in loaded]
                if unused:
                    found.append(self._finding(statement, start, unused, names, context, source, language))
        return found

    def _finding(self, statement: _Import, start: int, unused, names, context: ModuleContext, source: Source, language: str) -> Finding:
        rules = default_port_fix_rules().imports
        span = statement.span.shifted(start)
        text = _text(source, span)
        kept = [a for a in statement.aliases if a not in unused]
        shown = listing([f"`{local}`" for local, _ in unused], language)
        title = in_language(rules.title, language).format(statement=text)
        if kept:
            edit = Edit(span, _statement(statement, kept))
            fix = Fix(title, Safety.SAFE, (edit,))
        else:
            fix = self._rebind(statement, span, text, unused, names, context, source, language) or Fix(
                title, Safety.SAFE, (_delete_lines(span, source),))
        return Finding(
            code=CODE, category=Category.EQUIVALENT_API, severity=Severity(self.knowledge.code(CODE).severity), span=span,
            message=in_language(rules.message, language).format(statement=text, names=shown), torch_api=unused[0][1], fixes=(fix,), tags=("unnecessary",),
        )

    def _rebind(self, statement: _Import, span: Span, text: str, unused, names, context: ModuleContext, source: Source,
                language: str) -> Optional[Fix]:
        """The import replaced by one binding the freed name to MindSpore's module, and the module's
        spelled-out uses shortened to it."""
        rules = default_port_fix_rules().imports
        if len(unused) != 1 or unused[0][0] not in dict(rules.rebind):
            return None
        name = unused[0][0]
        module = dict(rules.rebind)[name]
        spellings = {f"{local}{module[len('mindspore'):]}" for local, q in context.bindings if q == "mindspore"}
        spellings.update(local for local, q in context.bindings if q == module)
        uses = [(dotted, s.shifted(start)) for start, n in names for dotted, s in n.spelled if dotted in spellings]
        if not uses:
            return None
        parent, _, short = module.rpartition(".")
        statement_text = f"from {parent} import {short}" + (f" as {name}" if short != name else "")
        edits = [Edit(span, statement_text)] + [Edit(s, name) for _, s in uses]
        # An import that bound the long name only for these uses goes too (`from mindspore.mint.nn import functional`).
        for start, n in names:
            for other in n.imports:
                if other.aliases and all(q == module and local in {d for d, _ in uses} for local, q in other.aliases):
                    edits.append(_delete_lines(other.span.shifted(start), source))
        return Fix(in_language(rules.rebind_title, language).format(statement=text, name=name, module=module, spelled=uses[0][0], short=name), Safety.SAFE, tuple(edits))


def _is_torch(qualified: str) -> bool:
    return qualified == "torch" or qualified.startswith("torch.")


def _rebind_spellings() -> Tuple[Tuple[str, ...], FrozenSet[str]]:
    """What a rebind may shorten: chains ending like a rebind module (`.nn`, `.mint.nn.functional`)
    and names like its last part (`functional`). Only these are kept per chunk."""
    modules = [module for _, module in default_port_fix_rules().imports.rebind]
    return tuple("." + m[len("mindspore."):] for m in modules), frozenset(m.rpartition(".")[2] for m in modules)


def _chunk_names(tree: ast.Module, lines: List[str]) -> _ChunkNames:
    loaded = set()
    spelled: List[Tuple[str, Span]] = []
    tails, short_names = _rebind_spellings()
    for node in walk(tree):
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load):
                loaded.add(node.id)
                if node.id in short_names:
                    spelled.append((node.id, node_span(node, lines)))
        elif isinstance(node, ast.Attribute) and node.attr in short_names:
            dotted = dotted_name(node)
            if dotted is not None and dotted.endswith(tails):
                spelled.append((dotted, node_span(node, lines)))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
            loaded.add(node.value)  # `__all__ = ["nn"]`, a name in a string annotation
        elif isinstance(node, ast.Constant) and isinstance(node.value, str) and "." in node.value:
            loaded.update(_annotation_names(node.value))
    imports = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            aliases = tuple((a.asname or a.name.split(".", 1)[0], a.name if a.asname else a.name.split(".", 1)[0]) for a in node.names)
            imports.append(_Import(node_span(node, lines), aliases, "import", ""))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level and all(a.name != "*" for a in node.names):
            aliases = tuple((a.asname or a.name, f"{node.module}.{a.name}") for a in node.names)
            imports.append(_Import(node_span(node, lines), aliases, "from", node.module))
    return _ChunkNames(frozenset(loaded), tuple(imports), tuple(spelled))


def _annotation_names(text: str) -> Iterable[str]:
    """Root names of a string annotation such as "torch.Tensor"."""
    try:
        tree = pyast.parse(text, mode="eval")
    except (SyntaxError, ValueError):
        return ()
    return [n.id for n in walk(tree) if isinstance(n, ast.Name)]


def _statement(statement: _Import, aliases) -> str:
    if statement.kind == "from":
        return f"from {statement.module} import " + ", ".join(_alias(local, q.rpartition(".")[2]) for local, q in aliases)
    return "import " + ", ".join(_alias(local, q) for local, q in aliases)


def _alias(local: str, name: str) -> str:
    return name if local == name or name.startswith(local + ".") else f"{name} as {local}"


def _text(source: Source, span: Span) -> str:
    if span.start_line == span.end_line:
        return source.line(span.start_line)[span.start_col:span.end_col]
    return source.line(span.start_line)[span.start_col:].rstrip() + " ..."


def _delete_lines(span: Span, source: Source) -> Edit:
    """The statement's whole lines removed (it stands alone on them: a top-level import)."""
    return Edit(Span(span.start_line, 0, span.end_line + 1, 0), "")
