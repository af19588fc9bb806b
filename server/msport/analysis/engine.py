"""The analysis entry point: text + settings + knowledge -> findings.

``Analyzer`` keeps two caches so that re-analysing a document after an edit re-parses and
re-checks only the chunks whose text changed: parse trees keyed by chunk text, and each
chunk's findings keyed by (chunk text, module context, analysis settings). Findings are
cached relative to their chunk and shifted into place, so a chunk that merely moved (lines
inserted above it) is not checked again.
"""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field, replace
from collections import deque
from typing import Deque, Dict, List, Optional, Sequence, Tuple, Type

from ..knowledge.index import KnowledgeBase, default_knowledge, knowledge_for
from ..knowledge.messages import listing, message
from .checks import CHECKS
from .checks.base import Check, ChunkInput
from .deadline import OutOfTime, limit as time_limit
from .lru import LRU
from .chunks import ParsedChunk, chunk_starts, parse_chunk
from .graph_context import GraphContextBuilder
from .second_order_paths import SecondOrderPathsBuilder, anchor_of, factory_products, registrations, second_order_paths, second_order_summary
from .findings import Category, Finding, Fix, Severity, Span
from .imports import ImportPlanner
from .newer_syntax import needs_newer_python, newer_syntax_note, unreadable_message
from .names import ChunkFacts, ModuleContext, build_module_context, chunk_facts
from .port_fixes import attach as attach_port_fixes
from .port_imports import UnusedTorchImports
from .project.summary import NO_PROJECT, ModuleSummary, ProjectFacts
from .settings import Settings
from .source import Source
from .suppression import FileSuppressions, is_suppressed, line_suppressions


log = logging.getLogger("msport")

#: A statement longer than this is not parsed: its tree would hold ~200 bytes per character (a
#: 5.4 MB list literal took 1.1 GB to parse alone), and no hand-written statement comes near it.
MAX_STATEMENT_CHARS = 1_000_000
#: The share of time-budget one statement's checks may take: a huge function stops there (with
#: an MS002) instead of taking the whole budget, and a keystroke inside it costs at most that.
STATEMENT_SHARE = 0.25
#: The share of time-budget an edit (a keystroke in the editor) may spend checking statements it
#: did not touch, such as those a previous analysis of a huge file left unchecked: the edited
#: statements are always checked, and the rest wait for a pause in typing (AnalysisResult.pending).
EDIT_SHARE = 0.05


@dataclass
class AnalysisResult:
    source: Source
    findings: List[Finding]
    chunks: List[ParsedChunk]
    context: ModuleContext
    #: How many chunks were parsed / checked afresh (the rest came from the caches).
    parsed: int = 0
    checked: int = 0
    #: What the module tells the rest of its project (for the project index).
    summary: ModuleSummary = ModuleSummary()
    #: Statements left unchecked for a later analysis of the same text (an edit's bounded work,
    #: or a stop request); each is covered by an MS002 saying so.
    pending: int = 0
    _imports: Optional[ImportPlanner] = None

    def complete(self, fix: Fix) -> Fix:
        """*fix* with the imports it needs turned into edits. Done on demand (a code action,
        JSON output), not on every keystroke for every finding."""
        if not fix.imports:
            return fix
        if self._imports is None:
            self._imports = ImportPlanner(self.source, self.context, self.chunks)
        return self._imports.complete(fix)

    def findings_with_complete_fixes(self) -> List[Finding]:
        return [replace(f, fixes=tuple(self.complete(x) for x in f.fixes)) if f.fixes else f for f in self.findings]


class Analyzer:
    """Analyses documents; safe to share between threads."""

    def __init__(self, knowledge: Optional[KnowledgeBase] = None, checks: Sequence[Type[Check]] = CHECKS, cache_size: int = 20_000):
        self.knowledge = knowledge or default_knowledge()
        self.checks = tuple(checks)
        # Parse trees are the heavy entries (~10 kB a chunk): a 20,000-edit soak grew the server
        # by 200 MB with 20,000 of them. So only the outcome of a parse (its error, the chunk's
        # facts) is cached by chunk text, and trees are kept for the last few analyses only
        # (_recent): an unchanged chunk is not parsed again unless something needs its tree.
        self._parses = LRU(cache_size)
        self._recent: Deque[List[ParsedChunk]] = deque(maxlen=4)
        self._findings = LRU(cache_size)
        self._placements = LRU(cache_size)  # (findings key, chunk start) -> (chunk's findings, shifted)
        self._context_keys = LRU(256)
        #: The last chunk split of each path: the next version is re-split around its edit.
        self._splits = LRU(256)
        self._texts = LRU(256)  # path -> its last text's statements (see EDIT_SHARE)
        self._graph = GraphContextBuilder(self.knowledge, max(1, cache_size // 4))
        self._second_order = SecondOrderPathsBuilder(self.knowledge, max(1, cache_size // 4))
        self._unused_imports = UnusedTorchImports(self.knowledge, cache_size)
        self._lock = threading.Lock()

    def analyze(self, text: str, settings: Settings, path: Optional[str] = None, project: ProjectFacts = NO_PROJECT,
                edit: bool = False, stop: Optional[threading.Event] = None) -> AnalysisResult:
        """The findings of *text*. *project*: what the project index knows of the rest of the
        program (see project/); without it the module is analysed on its own. *edit*: the text
        is an edit of the last one analysed for *path* (a keystroke): statements whose text is
        new are checked, the others not checked before only within EDIT_SHARE of time-budget.
        *stop*: once set, statements not checked yet are left for later. What is left is said
        by MS002 findings and counted in ``pending``."""
        return self._analyze(text, settings, path, project, check=True, edit=edit, stop=stop)

    def summarize(self, text: str, settings: Settings, path: Optional[str] = None, project: ProjectFacts = NO_PROJECT) -> ModuleSummary:
        """What the module tells the rest of its project, without running the checks (the first
        phase of a whole-program analysis)."""
        return self._analyze(text, settings, path, project, check=False).summary

    def _analyze(self, text: str, settings: Settings, path: Optional[str], project: ProjectFacts, check: bool,
                 edit: bool = False, stop: Optional[threading.Event] = None) -> AnalysisResult:
        """The analysis in its phases: split and parse, the module's shared facts (context, graph
        facts, second-order paths: computed once, read by every check family), the checks of
        each statement (cached, then placed), and the file-wide finish."""
        source = Source.from_text(text)
        if len(source.lines) > settings.max_lines:
            return self._skipped(source, settings)
        budget = _Budget.start(settings, edit, self._last_statements(path, edit))
        run = self._parse(source, path, budget)
        context, summary = self._shared_facts(run, path, project, check, edit, budget)
        if not check:
            return AnalysisResult(source, [], run.parsed, context, run.parsed_count, 0, summary=summary)
        findings, checked_count = self._checks(run, context, settings, budget, stop)
        findings = self._file_findings(findings, run, source, settings, path, context)
        with self._lock:
            if len(self._recent) == self._recent.maxlen:
                for old in self._recent[0]:
                    old.release()
            self._recent.append(run.parsed)
        return AnalysisResult(source, findings, run.parsed, context, run.parsed_count, checked_count, summary=summary,
                              pending=len(run.pending))

    def _last_statements(self, path: Optional[str], edit: bool) -> Optional[frozenset]:
        """The statements of the last text analysed for *path*, when this one is an edit of it."""
        if not edit:
            return None
        with self._lock:
            return self._texts.get(path)

    def _parse(self, source: Source, path: Optional[str], budget: "_Budget") -> "_Parsed":
        """Phase 1: the text split into statements (around the last split of *path*), each parsed
        or its outcome taken from the cache by its text."""
        run = _Parsed(source)
        with self._lock:
            previous = self._splits.get(path)
        split = chunk_starts(source.lines, previous)
        chunks = split.chunks()
        with self._lock:
            self._splits.put(path, split)
            self._texts.put(path, frozenset(chunk.text for chunk in chunks))
        for chunk in chunks:
            if time.perf_counter() > budget.deadline:
                run.skipped_from = chunk.start
                break
            if len(chunk.text) > MAX_STATEMENT_CHARS:
                run.oversized.append(self._too_large(chunk, budget.language))
                continue
            with self._lock:
                cached = self._parses.get(chunk.text)
            if cached is None and budget.untouched_and_late(chunk.text):
                run.pending.append(ParsedChunk(chunk))  # never parsed (an earlier analysis ran out of time): later
                continue
            if cached is None:
                item = parse_chunk(chunk)
                cached = (item.error, chunk_facts(item.tree, chunk.text) if item.error is None else ChunkFacts())
                run.parsed_count += 1
                with self._lock:
                    self._parses.put(chunk.text, cached)
            else:
                item = ParsedChunk(chunk, None, cached[0])
            run.parsed.append(item)
            run.facts.append(cached[1])
        return run

    def _shared_facts(self, run: "_Parsed", path: Optional[str], project: ProjectFacts, check: bool, edit: bool,
                      budget: "_Budget") -> Tuple[ModuleContext, ModuleSummary]:
        """Phase 2: what the module's statements tell each other, computed once per analysis and
        shared by every check family: the module context (imports, classes, instances), which
        functions are graph code and what helpers return, where the module differentiates twice."""
        context = build_module_context(run.facts, self.knowledge, project.package, project.imported_classes, project.extra_bindings)
        summary = ModuleSummary()
        valid = [p for p in run.parsed if p.error is None]
        settings = budget.settings
        try:
            # An edit's module-wide facts over statements no analysis has seen yet stop early too.
            with time_limit(min(budget.deadline, budget.started + settings.time_budget * (EDIT_SHARE + STATEMENT_SHARE)) if edit else budget.deadline):
                context, summary = self._graph.extend(context, valid, self._graph.is_pipeline_file(path), project)
                # Where the module differentiates twice (what it differentiates goes into the
                # summary: the project index follows it into other modules).
                context = self._second_order.extend(context, valid, project.second_order, project.second_order_params, project.registries)
                summary = replace(summary, **second_order_summary(second_order_paths(context), valid),
                                  registered=registrations(valid, context, self._second_order.rules, project.module),
                                  factories=factory_products(valid, context, self._second_order.rules, project.module, project.registries))
        except OutOfTime:
            pass  # out of budget before any check ran: the checks below report the lines not checked
        return context, summary

    def _checks(self, run: "_Parsed", context: ModuleContext, settings: Settings, budget: "_Budget",
                stop: Optional[threading.Event]) -> Tuple[List[Finding], int]:
        """Phase 3: each statement's findings (from the cache by statement text, module facts
        and settings, or checked by every family) placed where the statement is now."""
        findings: List[Finding] = list(run.oversized)
        checked_count = 0
        # One comparison per analysis makes the key identical to the cached entries' own, so the
        # per-chunk lookups below compare it by identity instead of element by element.
        with self._lock:
            context_key = self._context_keys.get(context.key)
            if context_key is None:
                context_key = context.key
                self._context_keys.put(context_key, context_key)
        analysis_key = settings.analysis_key()
        for item in run.parsed:
            if time.perf_counter() > budget.deadline:
                run.skipped_from = item.chunk.start
                break
            if item.error is not None:
                findings.append(self._syntax_finding(item, run.source, settings.language))
                continue
            key = (item.chunk.text, context_key, analysis_key)
            with self._lock:
                chunk_findings = self._findings.get(key)
            if chunk_findings is None and ((stop is not None and stop.is_set()) or budget.untouched_and_late(item.chunk.text)):
                run.pending.append(item)
                continue
            if chunk_findings is None:
                until = min(budget.deadline, time.perf_counter() + settings.time_budget * STATEMENT_SHARE)
                chunk_findings = self._check_chunk(item, context, settings, until)
                checked_count += 1
                with self._lock:
                    self._findings.put(key, chunk_findings)
            findings.extend(self._placed(key, chunk_findings, item.chunk.start))
        return findings, checked_count

    def _file_findings(self, findings: List[Finding], run: "_Parsed", source: Source, settings: Settings, path: Optional[str],
                       context: ModuleContext) -> List[Finding]:
        """Phase 4: what only the whole file tells (related locations in other statements, what
        was left unchecked, unused imports), then settings and suppressions."""
        if any(r.anchor is not None for f in findings for r in f.related):
            findings = _resolve_anchors(findings, run.parsed)
        findings.extend(self._left_for_later(sorted(run.pending, key=lambda item: item.chunk.start), settings.language))
        if run.skipped_from is not None:
            findings.append(self._over_budget(source, settings, run.skipped_from))
        elif not run.pending:  # which imports are unused is known only once every chunk is seen
            findings.extend(self._unused_imports.findings(run.parsed, source, context, settings.language))
        return self._finish(findings, source, settings, path, context)

    def _placed(self, key, chunk_findings: Tuple[Finding, ...], start: int) -> Tuple[Finding, ...]:
        """*chunk_findings* shifted to the chunk's place in the file. The last placement of each
        chunk is kept: a keystroke re-places only the chunks that moved (shifting every finding
        of a 200k-line file took most of a keystroke), and unchanged findings stay the same
        objects, which lets the server reuse what it built from them."""
        if not start or not chunk_findings:
            return chunk_findings
        where = (key, start)  # by place too: a file may repeat a statement word for word
        with self._lock:
            last = self._placements.get(where)
        if last is not None and last[0] is chunk_findings:
            return last[1]
        placed = tuple(f.shifted(start) for f in chunk_findings)
        with self._lock:
            self._placements.put(where, (chunk_findings, placed))
        return placed

    def _check_chunk(self, item: ParsedChunk, context: ModuleContext, settings: Settings, until: float) -> Tuple[Finding, ...]:
        chunk_input = ChunkInput(item.tree, item.chunk.text.split("\n"), context, settings, self.knowledge)
        found: List[Finding] = []
        for index, check in enumerate(self.checks):
            instance = None
            try:
                with time_limit(until):
                    instance = check(chunk_input)
                    found.extend(instance.run())
            except OutOfTime as exc:
                # What the check found before it stopped stands; the checks after it do not run.
                found.extend(instance.findings if instance is not None else ())
                found.append(self._stopped(item, self.checks[index:], exc.line, settings))
                break
            except RecursionError:
                # Python parses deeper nesting than a recursive visitor can walk (a 900-term sum).
                found.append(self._unchecked(item, check, "it is nested too deeply to walk"))
            except Exception as exc:  # a bug in one check costs that check on one statement, not the file
                log.exception("check %s failed on lines %d-%d", check.__name__, item.chunk.start + 1, item.chunk.end)
                found.append(self._unchecked(item, check, f"an internal error occurred ({exc!r}; please report it)"))
        try:
            found = attach_port_fixes(found, chunk_input)
        except Exception:  # a bug in a fix builder costs the fixes of one statement, never its findings
            log.exception("port fixes failed on lines %d-%d", item.chunk.start + 1, item.chunk.end)
        return tuple(found)

    def _stopped(self, item: ParsedChunk, checks: Sequence[Type[Check]], line: Optional[int], settings: Settings) -> Finding:
        """The MS002 of a statement whose checks ran out of its share of the time budget."""
        language = settings.language
        where = message("unchecked.at_line", language, line=item.chunk.start + line) if line else message("unchecked.partway", language)
        families = listing([check.__name__.replace("Check", "") for check in checks], language)
        return not_checked(
            Span(0, 0, 0, len(item.chunk.text.split("\n", 1)[0])),
            message("unchecked.partly", language, first=item.chunk.start + 1, last=item.chunk.end,
                    seconds=f"{settings.time_budget * STATEMENT_SHARE:g}", families=families, where=where),
        )

    def _left_for_later(self, pending: Sequence[ParsedChunk], language: str) -> List[Finding]:
        """One MS002 per run of adjacent statements left for a later analysis."""
        runs: List[List[ParsedChunk]] = []
        for item in pending:
            if runs and runs[-1][-1].chunk.end == item.chunk.start:
                runs[-1].append(item)
            else:
                runs.append([item])
        found = []
        for run in runs:
            first, last = run[0].chunk, run[-1].chunk
            found.append(not_checked(
                Span(first.start, 0, first.start, len(first.text.split("\n", 1)[0])),
                message("unchecked.later", language, first=first.start + 1, last=last.end),
            ))
        return found

    def _too_large(self, chunk, language: str) -> Finding:
        """The MS002 of a statement too long to parse (MAX_STATEMENT_CHARS)."""
        first_line = chunk.text.split("\n", 1)[0]
        return not_checked(
            Span(chunk.start, 0, chunk.start, min(len(first_line), 200)),
            message("unchecked.too_large", language, first=chunk.start + 1, last=chunk.end, size=f"{len(chunk.text):,}",
                    limit=f"{MAX_STATEMENT_CHARS:,}"),
        )

    def _unchecked(self, item: ParsedChunk, check: Type[Check], why: str) -> Finding:
        """An informational finding, relative to the chunk, saying which check skipped it."""
        last = item.chunk.end - item.chunk.start - 1
        family = check.__name__.replace("Check", "")
        return not_checked(
            Span(0, 0, 0, len(item.chunk.text.split("\n", 1)[0])),
            f"The {family} checks skipped lines {item.chunk.start + 1}-{item.chunk.start + last + 1}: {why}. "
            "Other statements and other checks are unaffected.",
        )

    def _syntax_finding(self, item: ParsedChunk, source: Source, language: str) -> Finding:
        rel_line, col, error = item.error
        line, col = source.clamp(item.chunk.start + rel_line, col)
        end = min(len(source.line(line)), col + 1)
        if end == col and col > 0:
            col -= 1
        if needs_newer_python(source.line(line)):  # valid code for a newer Python: not an error
            return not_checked(Span(line, 0, line, len(source.line(line))), unreadable_message(item.chunk.start + 1, item.chunk.end))
        info = self.knowledge.code("MS001")
        return Finding(
            code="MS001",
            category=Category.SYNTAX_ERROR,
            severity=Severity(info.severity),
            span=Span(line, col, line, max(end, col)),
            message=message("unchecked.syntax_error", language, error=error + newer_syntax_note(error), first=item.chunk.start + 1,
                            last=item.chunk.end),
        )

    def _over_budget(self, source: Source, settings: Settings, first_unchecked: int) -> Finding:
        return Finding(
            code="MS002",
            category=Category.CONFIG,
            severity=Severity.INFO,
            span=Span(first_unchecked, 0, first_unchecked, len(source.line(first_unchecked))),
            message=message("unchecked.over_budget", settings.language, first=first_unchecked + 1, last=len(source.lines),
                            seconds=f"{settings.time_budget:g}"),
        )

    def _skipped(self, source: Source, settings: Settings) -> AnalysisResult:
        finding = Finding(
            code="MS002",
            category=Category.CONFIG,
            severity=Severity.INFO,
            span=Span(0, 0, 0, len(source.line(0))),
            message=message("unchecked.max_lines", settings.language, lines=len(source.lines), limit=settings.max_lines),
        )
        return AnalysisResult(source, [finding], [], ModuleContext((), (), ()))

    def _finish(self, findings: List[Finding], source: Source, settings: Settings, path: Optional[str], context: ModuleContext) -> List[Finding]:
        file_codes = FileSuppressions.scan(source.text).codes
        kept: List[Finding] = []
        # Decided once per code and per (code, severity), not once per finding: a large file has
        # tens of thousands of findings of a few dozen codes, and per-file-ignores match paths.
        enabled: Dict[str, bool] = {}
        severities: Dict[Tuple[str, Severity], Severity] = {}
        for finding in findings:
            code = finding.code
            on = enabled.get(code)
            if on is None:
                on = enabled[code] = settings.is_enabled(code, path) and not (file_codes and is_suppressed(code, file_codes))
            if not on:
                continue
            if is_suppressed(code, line_suppressions(source.line(finding.span.start_line))):
                continue
            severity = severities.get((code, finding.severity))
            if severity is None:
                severity = severities[(code, finding.severity)] = settings.severity_for(code, finding.severity)
            if severity != finding.severity:
                finding = replace(finding, severity=severity)
            kept.append(finding)
        kept.sort(key=Finding.sort_key)
        return kept


@dataclass
class _Budget:
    """An analysis's time: when it started, its deadline, and after an edit (a keystroke) how
    long statements the edit did not touch may take (EDIT_SHARE)."""

    settings: Settings
    started: float
    deadline: float
    others_until: float
    #: The statements of the last text analysed for the path, when this text is an edit of it.
    before: Optional[frozenset]

    @classmethod
    def start(cls, settings: Settings, edit: bool, before: Optional[frozenset]) -> "_Budget":
        started = time.perf_counter()
        deadline = started + settings.time_budget
        # After an edit, statements the edit did not touch get a small share of the budget.
        others_until = started + settings.time_budget * EDIT_SHARE if edit else deadline
        return cls(settings, started, deadline, others_until, before)

    @property
    def language(self) -> str:
        return self.settings.language

    def untouched_and_late(self, statement: str) -> bool:
        """A statement the edit did not touch, met after its share of the budget ran out."""
        return self.before is not None and statement in self.before and time.perf_counter() > self.others_until


@dataclass
class _Parsed:
    """What the parse phase leaves for the others."""

    source: Optional[Source] = None
    parsed: List[ParsedChunk] = field(default_factory=list)
    facts: List[ChunkFacts] = field(default_factory=list)
    #: MS002s of statements too large to parse.
    oversized: List[Finding] = field(default_factory=list)
    #: Statements left for a later analysis (see AnalysisResult.pending).
    pending: List[ParsedChunk] = field(default_factory=list)
    #: The first line not reached before the deadline, if any.
    skipped_from: Optional[int] = None
    parsed_count: int = 0


def not_checked(span: Span, message: str) -> Finding:
    """An informational MS002: what msport did not check, and why."""
    return Finding(code="MS002", category=Category.CONFIG, severity=Severity.INFO, span=span, message=message)


def _resolve_anchors(findings: List[Finding], parsed: Sequence[ParsedChunk]) -> List[Finding]:
    """Related locations in another chunk, placed now that the chunks' positions are known
    (one that no longer exists is dropped)."""
    starts = {}
    for item in parsed:
        starts.setdefault(anchor_of(item.chunk.text), item.chunk.start)
    resolved = []
    for finding in findings:
        if any(r.anchor is not None for r in finding.related):
            related = tuple(r if r.anchor is None else replace(r, span=r.span.shifted(starts[r.anchor]), anchor=None)
                            for r in finding.related if r.anchor is None or r.anchor in starts)
            finding = replace(finding, related=related)
        resolved.append(finding)
    return resolved


_shared: Optional[Analyzer] = None


def analyze(text: str, settings: Optional[Settings] = None, path: Optional[str] = None, project: ProjectFacts = NO_PROJECT) -> AnalysisResult:
    """Analyse *text* with the bundled knowledge and a shared analyzer."""
    global _shared
    if _shared is None:
        _shared = Analyzer()
    return _shared.analyze(text, settings or Settings(), path, project)


class Analyzers:
    """The analyzer for a file's settings. The rules differ only with ``extend-rules``: each set
    of the user's rule files gets its own analyzer (its caches hold findings made with those
    rules), and the bundled rules alone are the default. Safe to share between threads."""

    def __init__(self, cache_size: int = 20_000) -> None:
        self.cache_size = cache_size
        self._default: Optional[Analyzer] = None
        self._extended = LRU(4)  # id(knowledge) -> (knowledge, Analyzer)
        self._lock = threading.Lock()

    @property
    def default(self) -> Analyzer:
        with self._lock:
            if self._default is None:
                self._default = Analyzer(cache_size=self.cache_size)
            return self._default

    def for_settings(self, settings: Settings) -> Analyzer:
        if not settings.extend_rules:
            return self.default
        knowledge = knowledge_for(settings.extend_rules)
        with self._lock:
            cached = self._extended.get(id(knowledge))
            if cached is None or cached[0] is not knowledge:
                cached = (knowledge, Analyzer(knowledge, cache_size=self.cache_size))
                self._extended.put(id(knowledge), cached)
            return cached[1]

