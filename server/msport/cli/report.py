"""``msport report PATH``: the project migration report (HTML, Markdown, CSV or JSON).

Scans every Python file under PATH with the same analysis as ``msport check``, inventories
the PyTorch API uses (analysis/api_uses.py), and renders report/model.py's dict. A file that
cannot be read or checked is listed in the report; it never stops the scan.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, TextIO

from ..analysis.api_uses import api_uses
from ..analysis.engine import Analyzer
from ..analysis.outline import FunctionIndex, function_ranges
from ..analysis.settings import Settings
from ..config import settings_for
from ..knowledge.api_history import default_history
from ..report.model import FileInput, build_report
from ..report.writers import FORMATS, render
from ..scan import project_files, scan_file

EXIT_OK, EXIT_ERROR = 0, 2


class ProgressBar:
    """A one-line bar on stderr, only when stderr is a terminal and the scan takes a while."""

    def __init__(self, total: int, stream: TextIO = sys.stderr, delay: float = 0.3, width: int = 30):
        self.total, self.stream, self.width = total, stream, width
        self.enabled = total > 0 and hasattr(stream, "isatty") and stream.isatty()
        self.start = time.monotonic()
        self.delay = delay
        self._last = 0.0
        self.shown = False

    def update(self, done: int, label: str = "") -> None:
        if not self.enabled:
            return
        now = time.monotonic()
        if now - self.start < self.delay or (now - self._last < 0.1 and done < self.total):
            return
        self._last = now
        filled = int(self.width * done / self.total)
        label = label if len(label) <= 40 else "..." + label[-37:]
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{self.total} files {label:<40}")
        self.stream.flush()
        self.shown = True

    def close(self) -> None:
        if self.shown:
            self.stream.write("\r" + " " * (self.width + 60) + "\r")
            self.stream.flush()


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


def report(paths: List[Path], fmt: Optional[str], output: Optional[Path], flags: Dict[str, str], source_url: Optional[str] = None) -> int:
    analyzer = Analyzer()
    known = analyzer.knowledge.codes
    flag_settings = Settings().merged(flags, "command line", known)
    if flag_settings.problems:
        for problem in flag_settings.problems:
            print(f"msport: error: --{problem.key}: {problem.message}", file=sys.stderr)
        return EXIT_ERROR
    missing = [str(p) for p in paths if not p.exists()]
    if missing:
        print(f"msport: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_ERROR
    fmt = fmt or (output.suffix.lstrip(".").lower() if output and output.suffix.lstrip(".").lower() in FORMATS else "md")
    if fmt == "markdown":
        fmt = "md"
    history = default_history()
    is_api = lambda name: (entry := history.entry(name)) is not None and entry[0] != "module"  # noqa: E731
    root = _display_root(paths)
    files = project_files(paths)
    bar = ProgressBar(len(files))
    inputs: List[FileInput] = []
    reported = set()
    report_settings = flag_settings
    for index, path in enumerate(files):
        display = _relative(path, root)
        bar.update(index, display)
        settings, _ = settings_for(path.resolve(), known_codes=known)
        if flags:
            settings = settings.merged(flags, "command line", known)
        for problem in settings.problems:
            if problem not in reported:
                reported.add(problem)
                bar.close()
                print(f"msport: configuration error: {problem}", file=sys.stderr)
        if settings.is_excluded(path.as_posix()):
            continue
        if not inputs:
            report_settings = settings
        scanned = scan_file(analyzer, path, display, settings)
        if scanned.result is None:
            inputs.append(FileInput(display, 0, (), (), None, scanned.error))
            continue
        result = scanned.result
        functions = FunctionIndex(function_ranges(result))
        uses = api_uses(result, analyzer.knowledge, settings, is_api, functions)
        inputs.append(FileInput(display, len(result.source.lines), uses, result.findings, functions, scanned.error))
    bar.update(len(files))
    bar.close()
    data = build_report(inputs, analyzer.knowledge, report_settings, root.as_posix())
    body = render(fmt, data, _linker(root, output, source_url))
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(body, encoding="utf-8")
        summary = data["summary"]
        readiness = summary["readiness"]
        shown = f"{readiness:.0%}" if readiness is not None else "n/a"
        print(
            f"msport: wrote {output} ({fmt}): {summary['files_scanned']} files, {summary['uses']['judged']} judged PyTorch API uses, "
            f"readiness {shown}, {summary['uses']['missing']} missing, {summary['uses']['divergent']} divergent, "
            f"{summary['dynamic_shape_findings']} dynamic-shape findings.",
            file=sys.stderr,
        )
    else:
        sys.stdout.write(body)
    errors = [f for f in data["files"] if f["error"]]
    for row in errors:
        print(f"msport: warning: {row['path']}: {row['error']}", file=sys.stderr)
    return EXIT_OK


def _relative(path: Path, root: Path) -> str:
    try:
        return path.absolute().relative_to(root).as_posix()
    except ValueError:
        return path.as_posix()
