"""One file of ``msport check``: read, fix if asked, analyse. The same function runs in-process
(``-j 1``, small runs) and in the worker processes, so both give the same output by construction.
Whatever the file has to say on stderr comes back with its result, to be printed in file order."""

from __future__ import annotations

import traceback
from dataclasses import dataclass, field
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

from ..analysis.engine import Analyzers
from ..analysis.findings import Finding
from ..analysis.project.summary import NO_PROJECT, ProjectFacts
from ..analysis.settings import Settings
from ..knowledge.messages import message
from ..regular_files import FileTooLarge
from .files import not_read_finding, read_source
from .fixing import fix_file


#: The analyzers of the running command in this process (see command_analyzers).
_analyzers: Optional[Analyzers] = None


def command_analyzers() -> Analyzers:
    """The analyzers every phase of one command shares in this process: the project index's
    rounds summarise most files two or three times and the check then analyses each again, and
    with one analyzer each of those finds the statements' parse and module facts in its caches
    (60 timm files in one process: 2.9 -> 1.7 CPU-s, the same findings). A worker process
    starts from its parent's (forked) or builds its own (spawned)."""
    global _analyzers
    if _analyzers is None:
        _analyzers = Analyzers()
    return _analyzers


def new_command() -> None:
    """A new command starts with empty caches (a host calling main() again, e.g. the tests)."""
    global _analyzers
    _analyzers = None


@dataclass(frozen=True)
class CheckJob:
    path: Path
    display: str  # the path as the user gave it, as printed
    settings: Settings
    fix: bool
    unsafe_fixes: bool
    complete_fixes: bool  # JSON and SARIF carry each fix with its import edits
    #: The folders --fix may write in (the project's, the command line's): a link out of them is not followed.
    roots: Tuple[str, ...] = ()
    project: ProjectFacts = NO_PROJECT  # what the project index knows of the rest of the program


@dataclass
class CheckedFile:
    #: None when the file could not be read or checked: the run then exits with status 2.
    findings: Optional[Sequence[Finding]]
    messages: List[str] = field(default_factory=list)  # for stderr, in order
    fixes_applied: int = 0
    #: Something went wrong although the file has findings (fixes that could not be written): exit status 2.
    failed: bool = False


def check_file(analyzers: Analyzers, job: CheckJob) -> CheckedFile:
    display, language = job.display, job.settings.language
    analyzer = analyzers.for_settings(job.settings)
    try:
        source = read_source(job.path, job.settings.max_file_size)
    except FileTooLarge as exc:
        return CheckedFile([not_read_finding(exc, language)])
    except OSError as exc:
        unreadable = message("files.unreadable", language, path=display, reason=exc.strerror or exc)
        return CheckedFile(None, [message("cli.error", language, text=unreadable)])
    checked = CheckedFile(None)
    text = source.text
    if source.note:
        noted = message("files.noted", language, path=display, note=source.note.text(language))
        checked.messages.append(message("cli.warning", language, text=noted))
    try:
        if job.fix and not source.note:  # never write back a file whose bytes could not be decoded
            fixed = fix_file(job.path, source, analyzer, job.settings, display, job.unsafe_fixes, job.roots, job.project)
            text, checked.fixes_applied, checked.failed = fixed.text, fixed.applied, fixed.failed
            checked.messages += fixed.messages
        result = analyzer.analyze(text, job.settings, display, job.project)
    except Exception as exc:  # a bug in a check must cost one file, not the run
        failed = message("files.noted", language, path=display, note=message("files.internal_error", language, error=repr(exc)))
        checked.messages.append(message("cli.error", language, text=failed) + "\n" + traceback.format_exc().rstrip())
        return checked
    checked.findings = result.findings_with_complete_fixes() if job.complete_fixes else result.findings
    return checked
