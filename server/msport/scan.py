"""Checking one file of a project from disk, isolated: shared by ``msport report`` and the
editor's workspace scan. A file that cannot be read, or that trips a bug in a check, becomes
an error entry; it never stops the scan of the others."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import List, Optional, Sequence

from .analysis.engine import AnalysisResult, Analyzer
from .analysis.project.summary import NO_PROJECT, ProjectFacts
from .analysis.settings import Settings
from .cli.files import python_files, read_source

log = logging.getLogger("msport")


@dataclass
class ScannedFile:
    path: Path
    display: str  # as shown to the user (relative to the scanned root when possible)
    settings: Settings
    result: Optional[AnalysisResult] = None
    error: Optional[str] = None  # why the file has no result
    note: str = ""  # e.g. undecodable bytes were replaced


def project_files(paths: Sequence[Path]) -> List[Path]:
    """The Python files under *paths*, sorted, without the directories nobody wants checked."""
    return list(python_files(list(paths)))


def scan_file(analyzer: Analyzer, path: Path, display: str, settings: Settings, project: ProjectFacts = NO_PROJECT) -> ScannedFile:
    scanned = ScannedFile(path, display, settings)
    try:
        text, scanned.note = read_source(path)
    except OSError as exc:
        scanned.error = f"cannot read: {exc.strerror or exc}"
        return scanned
    try:
        scanned.result = analyzer.analyze(text, settings, display, project)
    except Exception as exc:  # a bug in a check must cost one file, not the scan
        log.exception("analysis failed for %s", display)
        scanned.error = f"internal error while checking it ({exc!r}); please report it"
    return scanned
