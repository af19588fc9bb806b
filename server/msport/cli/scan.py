"""One file of ``msport check``: read, fix if asked, analyse. The same function runs in-process
(``-j 1``, small runs) and in the worker processes, so both give the same output by construction.
Whatever the file has to say on stderr comes back with its result, to be printed in file order."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence

from ..analysis.engine import Analyzers
from ..analysis.findings import Finding
from ..analysis.project.summary import NO_PROJECT, ProjectFacts
from ..analysis.settings import Settings
from .files import read_source
from .fixing import fix_file


@dataclass(frozen=True)
class CheckJob:
    path: Path
    display: str  # the path as the user gave it, as printed
    settings: Settings
    fix: bool
    unsafe_fixes: bool
    complete_fixes: bool  # JSON and SARIF carry each fix with its import edits
    project: ProjectFacts = NO_PROJECT  # what the project index knows of the rest of the program


@dataclass
class CheckedFile:
    #: None when the file could not be read or checked: the run then exits with status 2.
    findings: Optional[Sequence[Finding]]
    messages: List[str] = field(default_factory=list)  # for stderr, in order
    fixes_applied: int = 0


def check_file(analyzers: Analyzers, job: CheckJob) -> CheckedFile:
    display = job.display
    analyzer = analyzers.for_settings(job.settings)
    try:
        text, note = read_source(job.path)
    except OSError as exc:
        return CheckedFile(None, [f"msport: error: {display}: cannot read: {exc.strerror or exc}"])
    checked = CheckedFile(None)
    if note:
        checked.messages.append(f"msport: warning: {display}: {note}")
    try:
        if job.fix and not note:  # never write back a file whose bytes could not be decoded
            text, checked.fixes_applied, warnings = fix_file(job.path, text, analyzer, job.settings, display, job.unsafe_fixes, job.project)
            checked.messages += warnings
        result = analyzer.analyze(text, job.settings, display, job.project)
    except Exception as exc:  # a bug in a check must cost one file, not the run
        checked.messages.append(
            f"msport: error: {display}: internal error while checking it ({exc!r}); please report it with this trace:\n"
            + traceback.format_exc().rstrip()
        )
        return checked
    checked.findings = result.findings_with_complete_fixes() if job.complete_fixes else result.findings
    return checked
