"""What the editors should show, computed with msport's own analysis of the same file.

The rules and the example change as msport grows, so the end-to-end tests never hard-code
counts or messages: they ask the analysis core and compare the editors against it.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from msport.analysis.engine import Analyzer
from msport.analysis.findings import Finding, Fix, Severity
from msport.analysis.settings import Settings

VERSION = "2.2"  # picked in the editors (msport.targetVersion)
BACKEND = "cpu"
# Written into the folder last: keys the editor settings leave unset, so pyproject.toml decides.
# (select also changes how many findings there are: the server's resultId for pulled diagnostics
# counts findings but not severities, so a severity change alone is not re-sent; reported.)
PYPROJECT = '[tool.msport]\nselect = ["MS1"]\nseverity = { MS101 = "error" }\n'
PYPROJECT_VALUES = {"select": ["MS1"], "severity": {"MS101": "error"}}
_ANALYZER: Optional[Analyzer] = None


def analyzer() -> Analyzer:
    global _ANALYZER
    if _ANALYZER is None:
        _ANALYZER = Analyzer()
    return _ANALYZER


def findings(text: str, path: Path, **values) -> List[Finding]:
    settings = Settings().merged(values, "e2e test") if values else Settings()
    return analyzer().analyze(text, settings, str(path)).findings_with_complete_fixes()


def apply_fix(text: str, fix: Fix) -> str:
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))

    def index(line: int, col: int) -> int:
        return offsets[line] + col

    out = text
    for edit in sorted(fix.edits, key=lambda e: (e.span.start_line, e.span.start_col), reverse=True):
        start = index(edit.span.start_line, edit.span.start_col)
        end = index(edit.span.end_line, edit.span.end_col)
        out = out[:start] + edit.new_text + out[end:]
    return out


def utf16_col(line: str, col: int) -> int:
    return len(line[:col].encode("utf-16-le")) // 2


def utf8_col(line: str, col: int) -> int:
    return len(line[:col].encode("utf-8"))


@dataclass
class Plan:
    """The findings the editors are checked on, and what each step should produce."""

    file: Path
    text: str
    initial: List[Finding]
    warn: Finding  # a warning: hovered before and after each settings change
    fix: Finding  # quick-fixed in every editor
    fix_title: str
    fixed_text: str
    after_fix: List[Finding]
    warn_after_fix: Finding  # the same warning in the fixed text (the fix may add an import line)
    non_ascii: Finding  # the finding on the line with CJK text and an emoji before it
    after_version: List[Finding]
    version_mark: str  # a message that only the new target version produces
    after_backend: List[Finding]
    after_ignore: List[Finding]
    cards: Dict[str, str]  # the server's hover on the warning: initial, version, backend
    other: List[Finding]  # the folder's other file (never opened), with the defaults
    other_after_ignore: List[Finding]  # ... and with the settings of the ignore step
    after_pyproject: List[Finding]  # then PYPROJECT written into the folder
    other_after_pyproject: List[Finding]

    def hover_position(self, fixed: bool) -> Tuple[int, int]:
        """0-based line and UTF-16 column of the warning's last character (on the API's name,
        where a position on a dot between names would have no hover)."""
        finding, text = (self.warn_after_fix, self.fixed_text) if fixed else (self.warn, self.text)
        line = text.splitlines()[finding.span.start_line]
        return finding.span.start_line, utf16_col(line, finding.span.end_col - 1)


def plan(file: Path) -> Plan:
    """Works out the steps for *file*; asks the real server (in a scratch copy) for its hovers."""
    from .lsp_client import hover_of

    text = file.read_text(encoding="utf-8")
    initial = findings(text, file)
    last_line = len(text.splitlines()) - 1
    warn = next(f for f in initial if f.severity == Severity.WARNING and f.torch_api)
    fixable = [f for f in initial if f.fixes and f.span.start_line not in (last_line, warn.span.start_line)]
    fix = next((f for f in fixable if f.torch_api == "torch.cat"), fixable[0])
    non_ascii = next(f for f in initial if f.span.start_line == last_line)
    fixed_text = apply_fix(text, fix.fixes[0])
    after_fix = findings(fixed_text, file)
    after_version = findings(fixed_text, file, **{"target-version": VERSION})
    old = {f.message for f in after_fix}
    version_mark = sorted(f.message for f in after_version if f.message not in old)[0]
    shift = len(fixed_text.splitlines()) - len(text.splitlines())
    warn_after_fix = next(f for f in after_fix if f.torch_api == warn.torch_api and f.span.start_col == warn.span.start_col
                          and f.span.start_line in (warn.span.start_line, warn.span.start_line + shift))
    p = Plan(
        file=file, text=text, initial=initial, warn=warn, fix=fix, fix_title=fix.fixes[0].title, fixed_text=fixed_text,
        after_fix=after_fix, warn_after_fix=warn_after_fix, non_ascii=non_ascii, after_version=after_version,
        version_mark=version_mark,
        after_backend=findings(fixed_text, file, **{"target-version": VERSION, "backend": BACKEND}),
        after_ignore=findings(fixed_text, file, **{"target-version": VERSION, "backend": BACKEND, "ignore": [warn.code]}),
        cards={},
        other=[],
        other_after_ignore=[],
        after_pyproject=[],
        other_after_pyproject=[],
    )
    last = {"target-version": VERSION, "backend": BACKEND, "ignore": [warn.code]}
    p.after_pyproject = findings(fixed_text, file, **last, **PYPROJECT_VALUES)
    for other in sorted(file.parent.glob("*.py")):
        if other != file:
            body = other.read_text(encoding="utf-8")
            p.other += findings(body, other)
            p.other_after_ignore += findings(body, other, **last)
            p.other_after_pyproject += findings(body, other, **last, **PYPROJECT_VALUES)
    scratch = Path(tempfile.mkdtemp(prefix="msport-e2e-hover-")) / file.name
    try:
        for key, body, fixed, settings in (
            ("initial", text, False, {}),
            ("version", fixed_text, True, {"targetVersion": VERSION}),
            ("backend", fixed_text, True, {"targetVersion": VERSION, "backend": BACKEND}),
        ):
            card = hover_of(scratch, body, *p.hover_position(fixed), settings=settings)
            assert card, f"the server has no hover for {warn.torch_api} ({key})"
            p.cards[key] = card
    finally:
        shutil.rmtree(scratch.parent, ignore_errors=True)
    return p


def plain(markdown: str) -> str:
    """Roughly what a Markdown renderer shows: no emphasis, code marks or link targets."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", markdown)
    text = text.replace("**", "").replace("`", "")
    return re.sub(r"\s+", " ", text).strip()


def card_mark(card: str, must_contain: str) -> str:
    """A sentence of the card, as rendered, that names *must_contain* (e.g. the version)."""
    for line in card.splitlines():
        if line.strip() and not line.lstrip().startswith(("|", "#")) and must_contain in plain(line):
            sentence = plain(line)
            start = sentence.index(must_contain)
            return sentence[max(0, start - 20):start + len(must_contain) + 20].strip()
    raise AssertionError(f"no line of the hover card contains {must_contain!r}:\n{card}")


def counts(found: List[Finding]) -> str:
    """"errors,warnings" as VS Code's status bar counts them."""
    return f"{sum(f.severity == Severity.ERROR for f in found)},{sum(f.severity == Severity.WARNING for f in found)}"


def editor_params(p: Plan) -> Dict[str, str]:
    """E2E_* environment for the editor drivers."""
    lines = p.text.splitlines()
    fix_line = p.fix.span.start_line
    fix_col = utf16_col(lines[fix_line], p.fix.span.end_col - 1)
    hover_line, hover_col = p.hover_position(fixed=True)
    shift = len(p.fixed_text.splitlines()) - len(lines)
    fixed_line = p.fixed_text.splitlines()[fix_line + shift]
    backend_label = {"cpu": "CPU", "gpu": "GPU", "ascend": "Ascend"}[BACKEND]
    return {
        # VS Code: positions as "line:col", 1-based, in UTF-16 units
        "E2E_WARN_CODE": p.warn.code,
        "E2E_CARD_INITIAL": card_mark(p.cards["initial"], "MindSpore 2.10"),
        "E2E_FIX_AT": f"{fix_line + 1}:{fix_col + 1}",
        "E2E_FIX_TITLE": p.fix_title,
        "E2E_FIX_EXPECT": fixed_line.strip(),
        "E2E_HOVER_AT": f"{hover_line + 1}:{hover_col + 1}",
        "E2E_VERSION": VERSION,
        "E2E_CARD_VERSION": card_mark(p.cards["version"], f"MindSpore {VERSION}"),
        "E2E_BACKEND": backend_label,
        "E2E_CARD_BACKEND": card_mark(p.cards["backend"], backend_label),
        "E2E_IGNORE_CODE": p.warn.code,
        "E2E_PROBLEMS_INITIAL": f"{counts(p.initial)};{counts(p.initial + p.other)}",
        "E2E_PROBLEMS_AFTER_IGNORE": f"{counts(p.after_ignore)};{counts(p.after_ignore + p.other_after_ignore)}",
        "E2E_PYPROJECT": PYPROJECT,
        "E2E_PROBLEMS_AFTER_PYPROJECT": f"{counts(p.after_pyproject)};{counts(p.after_pyproject + p.other_after_pyproject)}",
        # Neovim and Emacs: 0-based lines, the renamed API, counts and a message to wait for
        "E2E_FIX_LINE": str(fix_line),
        "E2E_FIX_API": p.fix.torch_api or "",
        "E2E_WARN_LINE": str(p.warn.span.start_line),
        "E2E_HOVER_CHAR_INITIAL": str(p.hover_position(fixed=False)[1]),
        "E2E_HOVER_LINE": str(hover_line),
        "E2E_HOVER_CHAR": str(hover_col),
        "E2E_NON_ASCII_LINE": str(p.non_ascii.span.start_line),
        "E2E_COUNT_INITIAL": str(len(p.initial)),
        "E2E_COUNT_AFTER_FIX": str(len(p.after_fix)),
        "E2E_VERSION_MARK": p.version_mark,
        "E2E_BACKEND_ID": BACKEND,
        "E2E_COUNT_AFTER_BACKEND": str(len(p.after_backend)),
        "E2E_COUNT_AFTER_IGNORE": str(len(p.after_ignore)),
    }
