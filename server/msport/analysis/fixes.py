"""Applying fixes to text: one fix, or every safe fix of a file at once (fix-all).

Pure functions of text, settings and an analyzer: the CLI (``check --fix``) and the server
(``source.fixAll.msport``) call the same code and get the same result.

Fix-all works in passes. Each pass analyses the text, takes the first eligible fix of every
finding (safe ones first), keeps those whose edits do not overlap the edits already kept, and
applies them together. Passes repeat until no eligible fix is left, so a fix that only becomes
possible after another one (a rename inside a rewritten expression) is applied too, and running
fix-all on its own output changes nothing. A pass whose result would not parse is redone one
fix at a time, dropping the fixes that break the parse: fix-all never leaves a file that parses
worse than before.
"""

from __future__ import annotations

import re
import warnings
from dataclasses import dataclass, field
from typing import Callable, Dict, Iterable, List, Optional, Sequence, Tuple

from .. import pyast
from .chunks import parse_chunk, split_chunks
from .findings import Edit, Finding, Fix, Safety
from .settings import Settings
from .source import split_lines

#: A pass that applies nothing ends fix-all; this bounds pathological rule interactions.
MAX_PASSES = 10

_NEWLINE = re.compile(r"\r\n|\r|\n")


class OverlappingEdits(ValueError):
    """Two edits of one application touch the same text."""


def line_starts(text: str) -> List[int]:
    """Offset of the first character of every line (lines split as ``source.split_lines``)."""
    return [0] + [m.end() for m in _NEWLINE.finditer(text)]


def _offset(starts: Sequence[int], text: str, line: int, col: int) -> int:
    """Offset of (line, code-point column); columns past the line's end stop before its terminator."""
    if line >= len(starts):
        return len(text)
    start = starts[line]
    if line + 1 < len(starts):
        body_end = starts[line + 1]
        body_end -= 2 if text[body_end - 2:body_end] == "\r\n" else 1
    else:
        body_end = len(text)
    return min(start + col, body_end)


def newline_of(text: str) -> str:
    """The text's line terminator (its first one), ``\\n`` when it has none."""
    match = _NEWLINE.search(text)
    return match.group() if match else "\n"


@dataclass(frozen=True)
class _Placed:
    start: int
    end: int
    new_text: str
    order: int  # applying order among insertions at the same offset

    def conflicts(self, other: "_Placed") -> bool:
        if self.start == self.end and other.start == other.end:
            return False  # two insertions at one point: both apply, in order
        if self.start == self.end:
            return other.start < self.start < other.end
        if other.start == other.end:
            return self.start < other.start < self.end
        return self.start < other.end and other.start < self.end


def _place(text: str, edits: Iterable[Edit], starts: Optional[Sequence[int]] = None, first_order: int = 0) -> List[_Placed]:
    starts = starts if starts is not None else line_starts(text)
    newline = newline_of(text)
    placed = []
    for index, edit in enumerate(edits):
        span = edit.span
        start = _offset(starts, text, span.start_line, span.start_col)
        end = _offset(starts, text, span.end_line, span.end_col)
        new_text = edit.new_text if newline == "\n" else edit.new_text.replace("\n", newline)
        placed.append(_Placed(start, max(start, end), new_text, first_order + index))
    return placed


def _apply_placed(text: str, placed: Sequence[_Placed]) -> str:
    parts = []
    position = 0
    for item in sorted(placed, key=lambda p: (p.start, p.end, p.order)):
        parts.append(text[position:item.start])
        parts.append(item.new_text)
        position = item.end
    parts.append(text[position:])
    return "".join(parts)


def apply_edits(text: str, edits: Sequence[Edit]) -> str:
    """*text* with *edits* applied (positions refer to *text*); overlapping edits are an error."""
    placed = _dedupe(_place(text, edits))
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            if a.conflicts(b):
                raise OverlappingEdits(f"edits at offsets {a.start}-{a.end} and {b.start}-{b.end} overlap")
    return _apply_placed(text, placed)


def apply_fix(text: str, fix: Fix) -> str:
    """*text* with one fix applied (its imports must already be edits: ``AnalysisResult.complete``)."""
    return apply_edits(text, fix.edits)


def _dedupe(placed: Iterable[_Placed]) -> List[_Placed]:
    """Identical edits once (two fixes adding the same import)."""
    seen = set()
    kept = []
    for item in placed:
        key = (item.start, item.end, item.new_text)
        if key not in seen:
            seen.add(key)
            kept.append(item)
    return kept


def eligible(fix: Fix, unsafe: bool) -> bool:
    return fix.safety == Safety.SAFE or unsafe


def first_eligible(finding: Finding, unsafe: bool) -> Optional[Fix]:
    return next((fix for fix in finding.fixes if eligible(fix, unsafe)), None)


def has_eligible_fix(findings: Iterable[Finding], unsafe: bool = False) -> bool:
    return any(first_eligible(f, unsafe) is not None for f in findings)


@dataclass(frozen=True)
class AppliedFix:
    code: str
    title: str
    safety: Safety
    line: int  # 0-based line of the finding in the text the pass started from
    texts: Tuple[str, ...] = ()  # the new texts of its edits


@dataclass
class FixAllResult:
    text: str
    applied: List[AppliedFix] = field(default_factory=list)
    passes: int = 0
    #: Fixes left out because applying them would have broken the parse.
    rejected: List[AppliedFix] = field(default_factory=list)
    #: Ended early because its caller asked (``stop``): the text is that of the passes done.
    stopped: bool = False

    @property
    def changed(self) -> bool:
        return bool(self.applied)


def _broken_chunks(text: str) -> int:
    """How many top-level statements do not parse (0 for a file that parses)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pyast.parse(text)
        return 0
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return sum(1 for chunk in split_chunks(split_lines(text)) if parse_chunk(chunk).tree is None) or 1


def _key(finding: Finding, fix: Fix) -> Tuple:
    """Identifies a fix across passes (its positions move as other fixes apply)."""
    return (finding.code, fix.title, tuple(e.new_text for e in fix.edits))


def _select(text: str, result, unsafe: bool, excluded=frozenset()) -> List[Tuple[Finding, Fix, List[_Placed]]]:
    """The fixes of one pass: first eligible fix per finding, safe first, non-overlapping.
    Each comes with all its edits placed in *text* (shared ones, like an import two fixes
    need, included: ``_apply_placed`` is given them deduplicated)."""
    candidates = []
    for finding in result.findings:
        fix = first_eligible(finding, unsafe)
        if fix is not None:
            fix = result.complete(fix)
            if _key(finding, fix) not in excluded:
                candidates.append((finding, fix))
    # Safe fixes first; then rewrites of whole expressions (replacements, static rewrites) before
    # renames (MS1xx): a rename inside a rewritten expression would be wasted (its import too).
    candidates.sort(key=lambda c: (c[1].safety != Safety.SAFE, c[0].code.startswith("MS1"), c[0].sort_key()))
    starts = line_starts(text)
    kept: List[Tuple[Finding, Fix, List[_Placed]]] = []
    taken: List[_Placed] = []
    bound: Dict[str, str] = {}  # names the imports of the kept fixes bind
    for finding, fix in candidates:
        placed = _place(text, fix.edits, starts, len(taken))
        if any(a.conflicts(b) for i, a in enumerate(placed) for b in placed[i + 1:] if not _same(a, b)):
            continue  # a fix whose own edits overlap cannot be applied
        fresh = [p for p in placed if not any(_same(p, q) for q in taken)]
        if any(p.conflicts(q) for p in fresh for q in taken):
            continue
        binds = _import_bindings(fix)
        if any(bound.get(name, module) != module for name, module in binds.items()):
            # `from mindspore import nn` and `from mindspore.mint import nn` in one pass: the later
            # import would rebind the name under the first fix. The next pass spells it otherwise.
            continue
        bound.update(binds)
        kept.append((finding, fix, placed))
        taken.extend(fresh)
    return kept


_IMPORT = re.compile(r"^\s*(?:from\s+([\w.]+)\s+import\s+(\w+)(?:\s+as\s+(\w+))?|import\s+([\w.]+)(?:\s+as\s+(\w+))?)\s*$")


def _import_bindings(fix: Fix) -> Dict[str, str]:
    """The names the import lines a fix adds bind, each to the qualified name it stands for."""
    names: Dict[str, str] = {}
    for edit in fix.edits:
        for line in edit.new_text.splitlines():
            found = _IMPORT.match(line)
            if found is None:
                continue
            source, name, alias, module, module_alias = found.groups()
            if source:
                names[alias or name] = f"{source}.{name}"
            else:
                names[module_alias or module.split(".")[0]] = module if module_alias else module.split(".")[0]
    return names


def _same(a: _Placed, b: _Placed) -> bool:
    return (a.start, a.end, a.new_text) == (b.start, b.end, b.new_text)


def _combined(chosen) -> List[_Placed]:
    return _dedupe(p for _, _, placed in chosen for p in placed)


def _record(finding: Finding, fix: Fix) -> AppliedFix:
    return AppliedFix(finding.code, fix.title, fix.safety, finding.span.start_line, tuple(e.new_text for e in fix.edits))


def fix_all(text: str, settings: Optional[Settings] = None, analyzer=None, path: Optional[str] = None,
            unsafe: bool = False, max_passes: int = MAX_PASSES, project=None,
            stop: Optional[Callable[[], bool]] = None) -> FixAllResult:
    """Every safe fix (and the unsafe ones too when *unsafe*) applied to *text*, pass after
    pass until none is left; see the module docstring. *stop* is asked before each pass: the
    editor's fix-all ends as soon as it is cancelled or the text changes, freeing the analysis
    thread for the diagnostics of the new text."""
    from .engine import Analyzer  # the engine imports the checks, which may import this module

    analyzer = analyzer or Analyzer()
    settings = settings or Settings()
    outcome = FixAllResult(text)
    broken = _broken_chunks(text)
    excluded: set = set()  # fixes that broke the parse: not offered again
    for _ in range(max_passes):
        if stop is not None and stop():
            outcome.stopped = True
            break
        result = analyzer.analyze(outcome.text, settings, path, project) if project is not None else analyzer.analyze(outcome.text, settings, path)
        chosen = _select(outcome.text, result, unsafe, excluded)
        if not chosen:
            break
        outcome.passes += 1
        new_text = _apply_placed(outcome.text, _combined(chosen))
        if _broken_chunks(new_text) > broken:
            rejected_before = len(outcome.rejected)
            chosen = _parsing_alone(outcome, chosen, broken)
            excluded.update((r.code, r.title, r.texts) for r in outcome.rejected[rejected_before:])
            if not chosen:
                continue  # the fixes they overlapped may apply in the next pass
            new_text = _apply_placed(outcome.text, _combined(chosen))
            if _broken_chunks(new_text) > broken:
                # The fixes parse one by one but not together: keep the first, the next pass
                # re-analyses and offers the others again.
                chosen = chosen[:1]
                new_text = _apply_placed(outcome.text, _combined(chosen))
        outcome.applied.extend(_record(f, fix) for f, fix, _ in chosen)
        if new_text == outcome.text:
            break
        outcome.text = new_text
    return outcome


def _parsing_alone(outcome: FixAllResult, chosen, broken: int):
    """The fixes of a pass after which, applied alone, the text parses as well as before."""
    kept = []
    for finding, fix, placed in chosen:
        if _broken_chunks(_apply_placed(outcome.text, placed)) > broken:
            outcome.rejected.append(_record(finding, fix))
        else:
            kept.append((finding, fix, placed))
    return kept
