"""Findings for the files of the workspace that are not open in the editor.

Two ways in, one scan:
- ``msport.scanWorkspace`` (workspace/executeCommand): push clients get the findings
  published; pull clients are asked to re-pull when they support refresh;
- ``workspace/diagnostic`` for pull clients that request it: one report per file, and
  "unchanged" for files whose text and settings are what they were at the last report. A pull
  with nothing new to report is held until something changes (see ``pull``).

Open documents are left to the per-document diagnostics (else clients show duplicates). The
scan analyses one file at a time on the server's analysis thread, so an edit in between waits
for at most one file; results are kept per (mtime, size, settings), so a re-scan of an
unchanged workspace costs a ``stat`` per file. Progress goes to the client as ``$/progress``.
"""

from __future__ import annotations

import asyncio
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from lsprotocol import types
from pygls.uris import from_fs_path, to_fs_path

from ..analysis.engine import Analyzers
from ..analysis.source import Source
from ..scan import project_files, scan_file
from ..cli.files import Listing, display_name
from ..knowledge.messages import DEFAULT_LANGUAGE, message
from ..regular_files import os_reason
from .convert import to_diagnostic

if TYPE_CHECKING:
    from .server import MsportServer

#: The longest a workspace/diagnostic pull with nothing new waits before checking again.
LONG_POLL_SECONDS = 60.0


@dataclass
class FileReport:
    stamp: Tuple  # (mtime_ns, size, settings): what the diagnostics were computed from
    result_id: str
    diagnostics: List[types.Diagnostic]
    error: Optional[str] = None


@dataclass
class ScanSummary:
    files: int = 0
    analysed: int = 0
    open_skipped: int = 0
    findings: int = 0
    files_with_findings: int = 0
    errors: List[str] = field(default_factory=list)
    cancelled: bool = False

    def as_dict(self) -> Dict:
        return {
            "files": self.files,
            "analysed": self.analysed,
            "openSkipped": self.open_skipped,
            "findings": self.findings,
            "filesWithFindings": self.files_with_findings,
            "errors": self.errors,
            "cancelled": self.cancelled,
        }

    def message(self, language: str = DEFAULT_LANGUAGE) -> str:
        """What the scan found, in *language* (rules/messages/lsp.toml)."""
        text = message("lsp.scan_summary", language, findings=message("count.findings", language, count=self.findings),
                       with_findings=self.files_with_findings, files=message("count.files", language, count=self.files))
        if self.errors:
            text += message("lsp.scan_errors", language, count=len(self.errors))
        return text + (message("lsp.scan_cancelled", language) if self.cancelled else "")


class Progress:
    """``$/progress`` for one scan: a client token if the request carried one, else (for the
    command only) one the server creates when the client supports it, else nothing."""

    def __init__(self, ls: "MsportServer", token: Optional[types.ProgressToken]):
        self.ls, self.token = ls, token
        self._last = 0.0

    @classmethod
    async def start(cls, ls: "MsportServer", title: str, token: Optional[types.ProgressToken], create: bool) -> "Progress":
        if token is None and not create:
            return cls(ls, None)
        if token is None:
            window = ls.client_capabilities.window
            if window is None or not window.work_done_progress:
                return cls(ls, None)
            token = f"msport-scan-{uuid.uuid4()}"
            try:
                await ls.work_done_progress.create_async(token)
            except Exception:  # the client refused: scan without a progress bar
                return cls(ls, None)
        ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0))
        return cls(ls, token)

    def report(self, done: int, total: int, message: str) -> None:
        now = time.monotonic()
        if self.token is None or (now - self._last < 0.1 and done < total):
            return  # a notification per file would flood the client on big workspaces
        self._last = now
        percentage = int(100 * done / total) if total else 100
        self.ls.work_done_progress.report(self.token, types.WorkDoneProgressReport(message=message, percentage=percentage))

    @property
    def cancelled(self) -> bool:
        future = self.ls.work_done_progress.tokens.get(self.token) if self.token is not None else None
        return bool(future is not None and future.cancelled())

    def end(self, message: str) -> None:
        if self.token is not None:
            self.ls.work_done_progress.end(self.token, types.WorkDoneProgressEnd(message=message))
            self.ls.work_done_progress.tokens.pop(self.token, None)


class WorkspaceScanner:
    def __init__(self, ls: "MsportServer"):
        self.ls = ls
        self.reports: Dict[str, FileReport] = {}
        # Its own analyzers with small caches: a scan of a large workspace must not evict the
        # chunks of the documents being edited from the editor's.
        self.analyzers = Analyzers(cache_size=2_000)
        self._lock = asyncio.Lock()
        #: Set when a file, a setting or the set of open documents may have changed.
        self.changed = asyncio.Event()

    def roots(self) -> List[str]:
        folders = [to_fs_path(f.uri) for f in self.ls.workspace.folders.values()]
        if not folders and self.ls.workspace.root_path:
            folders = [self.ls.workspace.root_path]
        return [f for f in folders if f]

    def _listing(self) -> Listing:
        return project_files([Path(root) for root in self.roots()])

    def _report_listing(self, listing: Listing, language: str) -> None:
        # Shown once each (the scan runs again on every pull): a FIFO or a device named *.py is
        # not source code, and a directory msport cannot list hides the files below it.
        for key, entries in (("files.scan_skipped", listing.skipped), ("files.scan_unlisted", listing.unlisted)):
            for path, why in entries:
                text = message(key, language, path=display_name(path), why=why.text(language))
                self.ls._show_once(text, types.MessageType.Warning, language)

    async def scan(self, token: Optional[types.ProgressToken] = None, publish: bool = False, create_progress: bool = False) -> ScanSummary:
        """Check every Python file of the workspace that is not open; one scan at a time.

        Clients such as VS Code re-send workspace/diagnostic every few seconds: those scans only
        report progress on a token the client gives (*create_progress* is for the command)."""
        async with self._lock:
            return await self._scan(token, publish, create_progress)

    async def _scan(self, token: Optional[types.ProgressToken], publish: bool, create_progress: bool) -> ScanSummary:
        loop = asyncio.get_running_loop()
        summary = ScanSummary()
        roots = self.roots()
        language = self.ls.settings_for(from_fs_path(roots[0]) or "" if roots else "").language
        progress = await Progress.start(self.ls, message("lsp.scan_title", language), token, create_progress)
        listing = await loop.run_in_executor(None, self._listing)
        self._report_listing(listing, language)
        files = listing.files
        summary.files = len(files)
        seen = set()
        for index, path in enumerate(files):
            if progress.cancelled:
                summary.cancelled = True
                break
            uri = from_fs_path(str(path)) or path.as_uri()
            progress.report(index, len(files), f"{index}/{len(files)} {path.name}")
            if self.ls.documents.get(uri) is not None:
                summary.open_skipped += 1
                continue
            settings = self.ls.settings_for(uri)
            if settings.is_excluded(path.as_posix()):
                continue
            seen.add(uri)
            report = await self._report(loop, uri, path, settings)
            if report.error:
                summary.errors.append(f"{path}: {report.error}")
            if report.diagnostics:
                summary.findings += len(report.diagnostics)
                summary.files_with_findings += 1
            if publish:
                self.ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=report.diagnostics))
        if not summary.cancelled:
            for gone in [uri for uri in self.reports if uri not in seen]:
                del self.reports[gone]  # deleted, excluded or now open
                if publish and self.ls.documents.get(gone) is None:
                    self.ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=gone, diagnostics=[]))
        progress.end(summary.message(language))
        return summary

    async def _report(self, loop, uri: str, path: Path, settings) -> FileReport:
        facts = self.ls.project.facts_for(str(path))
        try:
            stat = path.stat()
            # What other modules tell this one counts too: a helper's new summary re-checks it.
            stamp: Tuple = (stat.st_mtime_ns, stat.st_size, settings, facts)
        except OSError as exc:
            return FileReport((), "", [], os_reason(exc).text(settings.language))
        known = self.reports.get(uri)
        if known is not None and known.stamp == stamp:
            return known
        # The analyzer is chosen on the analysis thread: with extend-rules it reads the user's rule files.
        scanned = await loop.run_in_executor(
            self.ls._executor, lambda: scan_file(self.analyzers.for_settings(settings), path, str(path), settings, facts))
        diagnostics: List[types.Diagnostic] = []
        if scanned.not_read is not None:  # too large to read: one MS002 at its first line
            diagnostics = [to_diagnostic(scanned.not_read, 0, Source.from_text(""), self.ls.encoding, uri)]
        if scanned.result is not None:
            source = scanned.result.source
            diagnostics = [to_diagnostic(f, i, source, self.ls.encoding, uri) for i, f in enumerate(scanned.result.findings)]
        report = FileReport(stamp, f"ws:{stat.st_mtime_ns}:{stat.st_size}:{hash(settings)}:{hash(facts):x}", diagnostics, scanned.error)
        self.reports[uri] = report
        return report

    async def pull(self, previous: Dict[str, str], token: Optional[types.ProgressToken], wait: float = LONG_POLL_SECONDS) -> types.WorkspaceDiagnosticReport:
        """Answer workspace/diagnostic as soon as there is news for the client.

        Clients send the next pull as soon as one is answered (VS Code two seconds later), so a
        report in which every file is unchanged is held back until something may have changed
        (``changed``: a watched file, the settings, the open documents) or *wait* seconds pass,
        then the workspace is checked again. An idle editor then costs a scan a minute instead
        of a ``stat`` of every file every two seconds; a cancelled pull simply ends here."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + wait
        while True:
            self.changed.clear()
            await self.scan(token=token)
            token = None  # a client's token carries one begin ... end
            report = self.workspace_report(previous)
            if not previous or any(item.kind == "full" for item in report.items) or loop.time() >= deadline:
                return report
            try:
                await asyncio.wait_for(self.changed.wait(), timeout=deadline - loop.time())
            except asyncio.TimeoutError:
                pass  # check once more, then answer whatever it finds

    def workspace_report(self, previous: Dict[str, str]) -> types.WorkspaceDiagnosticReport:
        items: List = []
        for uri in sorted(set(previous) - set(self.reports)):
            if self.ls.documents.get(uri) is None:  # deleted or now excluded: clear what it showed
                items.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=[], version=None))
        for uri, report in sorted(self.reports.items()):
            if self.ls.documents.get(uri) is not None:
                continue
            if previous.get(uri) == report.result_id:
                items.append(types.WorkspaceUnchangedDocumentDiagnosticReport(uri=uri, result_id=report.result_id, version=None))
            else:
                items.append(types.WorkspaceFullDocumentDiagnosticReport(uri=uri, items=report.diagnostics, result_id=report.result_id, version=None))
        return types.WorkspaceDiagnosticReport(items=items)
