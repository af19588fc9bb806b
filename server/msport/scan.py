"""Checking one file of a project from disk, isolated: shared by ``msport report`` and the
editor's workspace scan. A file that cannot be read, or that trips a bug in a check, becomes
an error entry; it never stops the scan of the others."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence

from .analysis.engine import AnalysisResult, Analyzer
from .analysis.project.summary import NO_PROJECT, ProjectFacts
from .analysis.settings import Settings
from .analysis.findings import Finding
from .cli.files import Listing, not_read_finding, python_files, read_source
from .knowledge.messages import message
from .regular_files import FileTooLarge, os_reason
from .said import Said

log = logging.getLogger("msport")


@dataclass
class ScannedFile:
    path: Path
    display: str  # as shown to the user (relative to the scanned root when possible)
    settings: Settings
    result: Optional[AnalysisResult] = None
    error: Optional[str] = None  # why the file has no result
    note: Optional[Said] = None  # e.g. undecodable bytes were replaced
    #: The MS002 finding of a file too large to read (setting max-file-size); it has no result.
    not_read: Optional[Finding] = None


def project_files(paths: Sequence[Path]) -> Listing:
    """The Python files under *paths*, sorted, without the directories nobody wants checked,
    and what the walk skipped or could not list."""
    return python_files(list(paths))


def scan_file(analyzer: Analyzer, path: Path, display: str, settings: Settings, project: ProjectFacts = NO_PROJECT) -> ScannedFile:
    scanned = ScannedFile(path, display, settings)
    try:
        source = read_source(path, settings.max_file_size)
    except FileTooLarge as exc:
        scanned.not_read = not_read_finding(exc, settings.language)
        scanned.error = message("files.not_checked", settings.language, why=exc.said.text(settings.language))
        return scanned
    except OSError as exc:
        scanned.error = os_reason(exc).text(settings.language)
        return scanned
    scanned.note = source.note
    try:
        scanned.result = analyzer.analyze(source.text, settings, display, project)
    except Exception as exc:  # a bug in a check must cost one file, not the scan
        log.exception("analysis failed for %s", display)
        scanned.error = message("files.internal_error", settings.language, error=repr(exc))
    return scanned
