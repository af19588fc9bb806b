"""The first phase of ``msport check`` and ``msport report``: the project index of the checked
files, built on the worker processes (each file's summary), linked in this process, so that each
file is then checked knowing the rest of the program (a loss class called by a training step in
another file is graph code; a helper imported from another module returns a mask)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator, List, Optional, Sequence, Tuple

from ..analysis.engine import Analyzers
from ..analysis.project.index import ProjectBuilder, ProjectIndex
from ..analysis.project.summary import ModuleSummary, ProjectFacts
from ..analysis.settings import Settings
from . import parallel
from .files import read_source
from .scan import command_analyzers

#: Fewer files than this are checked one by one: a project of one file has nothing to link.
MIN_FILES = 2


@dataclass(frozen=True)
class SummaryJob:
    path: Path
    settings: Settings
    facts: ProjectFacts


def summarize_file(analyzers: Analyzers, job: SummaryJob) -> Optional[ModuleSummary]:
    """One file's summary; None when it cannot be read or analysed (the check says why)."""
    try:
        text = read_source(job.path, job.settings.max_file_size).text
        return analyzers.for_settings(job.settings).summarize(text, job.settings, str(job.path), job.facts)
    except Exception:  # the check phase reports the file's problem; the index does without it
        return None


def job_file(job) -> Path:
    """The file a job of a command's phases is about (which worker had it: parallel.Pool)."""
    return job.path


def project_key(path: Path) -> str:
    return os.path.abspath(str(path))


def build_index(files: Sequence[Tuple[Path, Settings]], workers: int, progress: Optional[Callable[[int, int, str], None]] = None,
                pool: Optional[parallel.Pool] = None) -> Optional[ProjectIndex]:
    """The linked index of *files*, or None for a single file. *pool*: the command's workers,
    kept for its check (each file then goes back to the worker that summarised it)."""
    if len(files) < MIN_FILES:
        return None
    settings = {project_key(path): (path, s) for path, s in files}
    index = ProjectIndex()

    def summarize(jobs: List[Tuple[str, ProjectFacts]]) -> Iterator[Tuple[str, Optional[ModuleSummary]]]:
        """Each job's summary, computed on the worker processes."""
        work = [SummaryJob(settings[key][0], settings[key][1], facts) for key, facts in jobs]
        done = (lambda count, index: progress(count, len(work), str(work[index].path))) if progress else (lambda count, index: None)
        for position, summary in parallel.run(summarize_file, command_analyzers, work, workers, done, pool, job_file):
            yield jobs[position][0], summary if isinstance(summary, ModuleSummary) else None

    builder = ProjectBuilder(index)
    pending = builder.start(list(settings))
    while pending:
        pending = builder.next(summarize([(key, index.facts_for(key)) for key in pending]))
    return index


def facts_of(index: Optional[ProjectIndex], path: Path) -> Optional[ProjectFacts]:
    return index.facts_for(project_key(path)) if index is not None else None


def index_with_progress(files: Sequence[Tuple[Path, Settings]], workers: int, pool: Optional[parallel.Pool] = None) -> Optional[ProjectIndex]:
    """build_index with its own progress bar on a terminal ("indexing 120/315 files")."""
    from .progress import ProgressBar

    bar = ProgressBar(len(files), label="indexing")
    try:
        return build_index(files, workers, lambda count, total, path: bar.update(count, path), pool)
    finally:
        bar.close()
