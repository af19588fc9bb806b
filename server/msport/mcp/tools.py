"""What ``msport mcp`` does for an agent: check code, explain an API or rule, fix code. Plain
functions over the analysis core, returning JSON-ready dicts, so that they read the same
settings (the file's pyproject.toml, then the arguments) and give the same findings, cards and
fixes as ``msport check``, ``msport explain`` and ``msport check --fix``.

A problem the agent can correct (an unknown setting value, a path that does not exist, an API
msport does not know) raises ``ToolError`` with a message saying what to pass instead, in the
language of the session's locale (rules/messages, ``mcp.error.*``).
"""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

from ..analysis.engine import Analyzer, Analyzers
from ..analysis.fixes import fix_all
from ..analysis.settings import Settings
from ..cli.files import environment_settings, python_files, read_source
from ..cli.fixing import write_fixed
from ..cli.output import finding_dict, summary
from ..config import settings_for
from ..said import Said, said
from ..knowledge import default_knowledge, preload
from ..knowledge.cards import api_card, code_card

#: Findings returned by one check at most: an agent's context is not the place for thousands.
MAX_FINDINGS = 300
ORIGIN = "MCP tool arguments"


class ToolError(ValueError):
    """A request the agent can correct; the message (catalogue texts, joined) says how."""

    def __init__(self, *saids: Said):
        super().__init__(*saids)
        self.saids = saids

    def text(self, language: str = "en") -> str:
        return ("；" if language == "zh-CN" else "; ").join(s.text(language) for s in self.saids)

    def __str__(self) -> str:
        return self.text()


_analyzers: Optional[Analyzers] = None


def analyzers() -> Analyzers:
    """One set of analyzers for the session (their caches make a re-check of an edit cheap)."""
    global _analyzers
    if _analyzers is None:
        preload()
        _analyzers = Analyzers()
    return _analyzers


def settings(path: Optional[Path], overrides: Dict[str, Any]) -> Settings:
    """The settings of *path* (its nearest pyproject.toml; msport's defaults without a path),
    with *overrides* (the tool's arguments) on top."""
    known = default_knowledge().codes
    base = settings_for(path.resolve(), known_codes=known)[0] if path is not None else Settings()
    given = {key: value for key, value in overrides.items() if value not in (None, [], "")}
    merged = base.merged(given, ORIGIN, known) if given else base
    bad = [p for p in merged.problems if p.origin == ORIGIN]
    if bad:
        raise ToolError(*(said("mcp.error.setting", setting=p.key, reason=p.said or p.message) for p in bad))
    return merged


def _sources(path: Optional[str], code: Optional[str]) -> List[Tuple[Optional[Path], str, str]]:
    """(path, display name, text) of what to check: *code* (as the file *path* when given), or
    the file or the Python files under the directory *path*."""
    if code is not None:
        return [(Path(path) if path else None, path or "<code>", code)]
    if not path:
        raise ToolError(said("mcp.error.no_input"))
    root = Path(path)
    if not root.exists():
        raise ToolError(said("mcp.error.no_path", path=path))
    found = []
    for file in python_files([root]).files:
        try:
            text = read_source(file, settings(file, {}).max_file_size).text
        except OSError as exc:
            raise ToolError(said("mcp.error.unreadable", file=str(file), reason=exc.strerror or str(exc)))
        found.append((file, str(file), text))
    if not found:
        raise ToolError(said("mcp.error.no_python", path=path))
    return found


def check(path: Optional[str] = None, code: Optional[str] = None, **overrides: Any) -> Dict[str, Any]:
    """Findings for *code* or the files at *path*, as ``msport check --format json`` gives them,
    with the settings they were judged under and the closing summary."""
    results = []
    used: Optional[Settings] = None
    for file, display, text in _sources(path, code):
        file_settings = settings(file, overrides)
        used = used or file_settings
        if file is not None and code is None and file_settings.is_excluded(file.as_posix()):
            continue
        result = analyzers().for_settings(file_settings).analyze(text, file_settings, display)
        results.append((display, result.findings_with_complete_fixes()))
    findings = [finding_dict(display, f) for display, found in results for f in found]
    used = used or Settings()
    return {
        "settings": settings_dict(used),
        "summary": summary(results, len(results), used.language, fixable_key="mcp.summary.fixable"),
        "findings": findings[:MAX_FINDINGS],
        "truncated": max(0, len(findings) - MAX_FINDINGS),
    }


def settings_dict(chosen: Settings) -> Dict[str, Any]:
    """The settings a judgement depends on, as JSON values."""
    return {
        "target-version": chosen.target_version, "backend": chosen.backend, "mode": chosen.mode,
        "jit-level": chosen.jit_level, "select": list(chosen.select), "ignore": list(chosen.ignore),
        "language": chosen.language,
    }


def explain(name: str, **overrides: Any) -> Dict[str, Any]:
    """The card ``msport explain`` prints for an API (torch or MindSpore, qualified or a unique
    tail such as ``Tensor.view``) or a rule code, in Markdown, whole."""
    knowledge = default_knowledge()
    chosen = settings(None, overrides)
    if name.upper() in knowledge.codes:
        return {"name": name.upper(), "card": code_card(knowledge.codes[name.upper()], chosen.language)}
    card = api_card(knowledge, name, chosen.version, chosen.backend, language=chosen.language)
    if card is None:
        suffix = "." + name.lstrip(".")
        matches = sorted(n for n in knowledge.apis if n.endswith(suffix))
        if len(matches) == 1:
            name, card = matches[0], api_card(knowledge, matches[0], chosen.version, chosen.backend, language=chosen.language)
        elif matches:
            raise ToolError(said("mcp.error.ambiguous", name=name, matches=tuple(matches[:20])))
    if card is None:
        raise ToolError(said("mcp.error.unknown_api", name=name))
    return {"name": name, "target_version": chosen.target_version, "backend": chosen.backend, "card": card}


def fix(path: Optional[str] = None, code: Optional[str] = None, unsafe: bool = False, write: bool = False,
        **overrides: Any) -> Dict[str, Any]:
    """Every safe fix (and the unsafe ones when *unsafe*) applied to *code* or the file *path*,
    as ``msport check --fix`` applies them: the fixes, a unified diff, the new text, what is
    left; the file is rewritten only when *write* is true (and *code* is not given)."""
    sources = _sources(path, code)
    if len(sources) != 1:
        raise ToolError(said("mcp.error.one_file", path=path, count=len(sources)))
    (file, display, text), = sources
    chosen = settings(file, overrides)
    analyzer: Analyzer = analyzers().for_settings(chosen)
    outcome = fix_all(text, chosen, analyzer, display, unsafe=unsafe)
    written = False
    if write:
        if code is not None or file is None:
            raise ToolError(said("mcp.error.write_with_code"))
        if outcome.changed:
            problem = write_fixed(file, outcome.text, environment_settings().language)  # worded as ToolError is
            if problem:
                raise ToolError(said("mcp.error.not_written", file=display, problem=problem))
            written = True
    remaining = analyzer.analyze(outcome.text, chosen, display).findings
    return {
        "applied": [_applied(a) for a in outcome.applied],
        "rejected": [_applied(a) for a in outcome.rejected],
        "diff": "".join(difflib.unified_diff(text.splitlines(True), outcome.text.splitlines(True), f"a/{display}", f"b/{display}")),
        "text": outcome.text,
        "written": written,
        "remaining": [finding_dict(display, f) for f in remaining][:MAX_FINDINGS],
    }


def _applied(applied) -> Dict[str, Any]:
    return {"code": applied.code, "title": applied.title, "safety": applied.safety.value, "line": applied.line + 1}

