"""The analysis entry point: text + settings + knowledge -> findings.

``Analyzer`` keeps two caches so that re-analysing a document after an edit re-parses and
re-checks only the chunks whose text changed: parse trees keyed by chunk text, and each
chunk's findings keyed by (chunk text, module context, analysis settings). Findings are
cached relative to their chunk and shifted into place, so a chunk that merely moved (lines
inserted above it) is not checked again.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass, replace
from typing import Callable, Dict, Hashable, List, Optional, Sequence, Tuple, Type

from ..knowledge.index import KnowledgeBase, default_knowledge
from .checks import CHECKS
from .checks.base import Check, ChunkInput
from .chunks import Chunk, ParsedChunk, parse_chunk, split_chunks
from .findings import Category, Edit, Finding, Fix, Severity, Span
from .imports import import_edit
from .names import ModuleContext, build_module_context
from .settings import Settings
from .source import Source
from .suppression import FileSuppressions, is_suppressed, line_suppressions


@dataclass
class AnalysisResult:
    source: Source
    findings: List[Finding]
    chunks: List[ParsedChunk]
    context: ModuleContext
    #: How many chunks were parsed / checked afresh (the rest came from the caches).
    parsed: int = 0
    checked: int = 0


class _LRU:
    def __init__(self, size: int):
        self.size = size
        self.data: "OrderedDict[Hashable, object]" = OrderedDict()

    def get(self, key: Hashable):
        value = self.data.get(key)
        if value is not None:
            self.data.move_to_end(key)
        return value

    def put(self, key: Hashable, value: object) -> None:
        self.data[key] = value
        self.data.move_to_end(key)
        while len(self.data) > self.size:
            self.data.popitem(last=False)


class Analyzer:
    """Analyses documents; safe to share between threads."""

    def __init__(self, knowledge: Optional[KnowledgeBase] = None, checks: Sequence[Type[Check]] = CHECKS, cache_size: int = 20_000):
        self.knowledge = knowledge or default_knowledge()
        self.checks = tuple(checks)
        self._trees = _LRU(cache_size)
        self._findings = _LRU(cache_size)
        self._lock = threading.Lock()

    def analyze(self, text: str, settings: Settings, path: Optional[str] = None) -> AnalysisResult:
        source = Source.from_text(text)
        if len(source.lines) > settings.max_lines:
            return self._skipped(source, settings)
        parsed_count = checked_count = 0
        parsed: List[ParsedChunk] = []
        for chunk in split_chunks(source.lines):
            with self._lock:
                cached = self._trees.get(chunk.text)
            if cached is None:
                cached = parse_chunk(Chunk(0, 0, chunk.text))
                parsed_count += 1
                with self._lock:
                    self._trees.put(chunk.text, cached)
            parsed.append(ParsedChunk(chunk, cached.tree, cached.error))
        context = build_module_context((p.tree for p in parsed if p.tree is not None), self.knowledge)
        findings: List[Finding] = []
        for item in parsed:
            if item.tree is None:
                findings.append(self._syntax_finding(item, source))
                continue
            key = (item.chunk.text, context.key, settings.analysis_key())
            with self._lock:
                chunk_findings = self._findings.get(key)
            if chunk_findings is None:
                chunk_findings = self._check_chunk(item, context, settings)
                checked_count += 1
                with self._lock:
                    self._findings.put(key, chunk_findings)
            findings.extend(f.shifted(item.chunk.start) for f in chunk_findings)
        findings = self._finish(findings, source, settings, path, context)
        return AnalysisResult(source, findings, parsed, context, parsed_count, checked_count)

    def _check_chunk(self, item: ParsedChunk, context: ModuleContext, settings: Settings) -> Tuple[Finding, ...]:
        chunk_input = ChunkInput(item.tree, item.chunk.text.split("\n"), context, settings, self.knowledge)
        found: List[Finding] = []
        for check in self.checks:
            found.extend(check(chunk_input).run())
        return tuple(found)

    def _syntax_finding(self, item: ParsedChunk, source: Source) -> Finding:
        rel_line, col, message = item.error
        line, col = source.clamp(item.chunk.start + rel_line, col)
        end = min(len(source.line(line)), col + 1)
        if end == col and col > 0:
            col -= 1
        info = self.knowledge.code("MS001")
        return Finding(
            code="MS001",
            category=Category.SYNTAX_ERROR,
            severity=Severity(info.severity),
            span=Span(line, col, line, max(end, col)),
            message=f"Syntax error: {message}. msport skipped lines {item.chunk.start + 1}-{item.chunk.end} and checked the rest of the file.",
        )

    def _skipped(self, source: Source, settings: Settings) -> AnalysisResult:
        finding = Finding(
            code="MS002",
            category=Category.CONFIG,
            severity=Severity.INFO,
            span=Span(0, 0, 0, len(source.line(0))),
            message=(
                f"File not checked: {len(source.lines)} lines exceed the analysis budget of {settings.max_lines} "
                f"(setting max-lines). Raise max-lines in [tool.msport] to check it."
            ),
        )
        return AnalysisResult(source, [finding], [], ModuleContext((), (), ()))

    def _finish(self, findings: List[Finding], source: Source, settings: Settings, path: Optional[str], context: ModuleContext) -> List[Finding]:
        file_codes = FileSuppressions.scan(source.text).codes
        kept: List[Finding] = []
        for finding in findings:
            if not settings.is_enabled(finding.code, path):
                continue
            if file_codes and is_suppressed(finding.code, file_codes):
                continue
            if is_suppressed(finding.code, line_suppressions(source.line(finding.span.start_line))):
                continue
            severity = settings.severity_for(finding.code, finding.severity)
            fixes = tuple(_with_imports(fix, source, context) for fix in finding.fixes)
            if severity != finding.severity or fixes != finding.fixes:
                finding = replace(finding, severity=severity, fixes=fixes)
            kept.append(finding)
        kept.sort(key=Finding.sort_key)
        return kept


def _with_imports(fix: Fix, source: Source, context: ModuleContext) -> Fix:
    if not fix.imports:
        return fix
    edits: List[Edit] = list(fix.edits)
    for statement in fix.imports:
        edit = import_edit(statement, source, context)
        if edit is not None:
            edits.append(edit)
    return replace(fix, edits=tuple(edits), imports=())


_shared: Optional[Analyzer] = None


def analyze(text: str, settings: Optional[Settings] = None, path: Optional[str] = None) -> AnalysisResult:
    """Analyse *text* with the bundled knowledge and a shared analyzer."""
    global _shared
    if _shared is None:
        _shared = Analyzer()
    return _shared.analyze(text, settings or Settings(), path)
