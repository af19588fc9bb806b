"""``msport report PATH``: the project migration report (HTML, Markdown, CSV or JSON).

Scans every Python file under PATH with the same analysis as ``msport check``, inventories
the PyTorch API uses (analysis/api_uses.py), and renders report/model.py's dict. A file that
cannot be read or checked is listed in the report; it never stops the scan.
"""

from __future__ import annotations

import os
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

from ..analysis.api_uses import api_uses
from ..analysis.engine import Analyzers
from ..analysis.outline import FunctionIndex, function_ranges
from ..analysis.settings import Settings
from ..knowledge import default_knowledge, preload
from ..knowledge.api_history import default_history
from ..knowledge.messages import message
from ..report.markdown import percent
from ..report.model import FileInput, build_report
from ..report.writers import FORMATS, render
from ..scan import scan_file
from . import parallel
from .files import command_line_settings, display_name, files_with_settings
from ..analysis.project.summary import NO_PROJECT, ProjectFacts
from .progress import ProgressBar
from .project import facts_of, index_with_progress
from .scan import command_analyzers, new_command

EXIT_OK, EXIT_ERROR = 0, 2


@dataclass(frozen=True)
class ReportJob:
    path: Path
    display: str  # relative to the report's root
    settings: Settings
    project: ProjectFacts = NO_PROJECT  # what the project index knows of the rest of the program


def _worker_state() -> Tuple[Analyzers, Callable[[str], bool]]:
    history = default_history()
    is_api = lambda name: (entry := history.entry(name)) is not None and entry[0] != "module"  # noqa: E731
    return command_analyzers(), is_api  # what the index's rounds analysed, found in the caches


def scan_for_report(state: Tuple[Analyzers, Callable[[str], bool]], job: ReportJob) -> FileInput:
    """What the report needs from one file; runs in-process or in a worker (cli/parallel.py)."""
    analyzers, is_api = state
    analyzer = analyzers.for_settings(job.settings)
    scanned = scan_file(analyzer, job.path, job.display, job.settings, job.project)
    if scanned.result is None:
        return FileInput(job.display, 0, (), (), None, scanned.error)
    result = scanned.result
    functions = FunctionIndex(function_ranges(result))
    uses = api_uses(result, analyzer.knowledge, job.settings, is_api, functions)
    return FileInput(job.display, len(result.source.lines), uses, result.findings, functions, scanned.error)


def _display_root(paths: List[Path]) -> Path:
    resolved = [p.absolute() for p in paths]
    if len(resolved) == 1:
        return resolved[0] if resolved[0].is_dir() else resolved[0].parent
    return Path(os.path.commonpath([str(p if p.is_dir() else p.parent) for p in resolved]))


def _linker(root: Path, output: Optional[Path], template: Optional[str]) -> Callable[[str, int], str]:
    """How the report links to a line: a URL template, else a path relative to the report."""
    if template:
        return lambda path, line: template.format(path=path, line=line)
    base = (output.resolve().parent if output else Path.cwd())

    def link(path: str, line: int) -> str:
        relative = os.path.relpath(root / path, base)
        return Path(relative).as_posix() + (f"#L{line}" if line else "")

    return link


def report(paths: List[Path], fmt: Optional[str], output: Optional[Path], flags: Dict[str, str], source_url: Optional[str] = None, jobs: int = 1) -> int:
    new_command()
    preload()  # once, before the workers fork
    parallel.tune_gc_for_batch()
    knowledge = default_knowledge()
    flag_settings = command_line_settings(paths, flags, knowledge.codes)
    if flag_settings is None:
        return EXIT_ERROR
    fmt = fmt or (output.suffix.lstrip(".").lower() if output and output.suffix.lstrip(".").lower() in FORMATS else "md")
    if fmt == "markdown":
        fmt = "md"
    root = _display_root(paths)
    files, _ = files_with_settings(paths, flags, knowledge.codes)  # configuration problems are shown, not fatal
    index = index_with_progress(files, jobs)
    work = [ReportJob(path, display_name(Path(_relative(path, root))), settings, facts_of(index, path) or NO_PROJECT) for path, settings in files]
    report_settings = work[0].settings if work else flag_settings
    bar = ProgressBar(len(work))
    progress = lambda count, index: bar.update(count, work[index].display)  # noqa: E731
    inputs: List[FileInput] = []
    try:
        with closing(parallel.run(scan_for_report, _worker_state, work, jobs, progress)) as scanned:
            for index, file_input in scanned:
                if isinstance(file_input, parallel.WorkerDied):
                    file_input = FileInput(work[index].display, 0, (), (), None, file_input.text(report_settings.language))
                inputs.append(file_input)
    finally:
        bar.close()
    data = build_report(inputs, knowledge, report_settings, root.as_posix())
    body = render(fmt, data, _linker(root, output, source_url))
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(body, encoding="utf-8")
        summary = data["summary"]
        print(message(
            "report.wrote", report_settings.language, output=output, format=fmt, files=summary["files_scanned"],
            judged=summary["uses"]["judged"], readiness=percent(summary["readiness"], report_settings.language),
            missing=summary["uses"]["missing"], divergent=summary["uses"]["divergent"], dynamic=summary["dynamic_shape_findings"],
        ), file=sys.stderr)
    else:
        sys.stdout.write(body)
    errors = [f for f in data["files"] if f["error"]]
    for row in errors:
        noted = message("files.noted", report_settings.language, path=row["path"], note=row["error"])
        print(message("cli.warning", report_settings.language, text=noted), file=sys.stderr)
    return EXIT_OK


def _relative(path: Path, root: Path) -> str:
    try:
        return path.absolute().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
