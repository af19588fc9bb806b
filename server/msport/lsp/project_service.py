"""The workspace's project index, kept by the language server.

Built in the background once the configuration is read: every Python file of the workspace is
summarised on the analysis thread, one file per turn, and only while nobody types and no open
document waits for its analysis (after_typing): a keystroke waits for one file at most, the
first of a burst of typing, and the open documents' first diagnostics come first.
Open documents are analysed with whatever the index knows; when it is built, and whenever an
edit changes what a module tells the others (its summary), the index is linked again (after a
pause in typing) and the open documents whose facts changed are checked again and re-published.
The edited document itself is never held up: linking happens after its diagnostics are out.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from pathlib import Path
from typing import TYPE_CHECKING, Dict, List, Optional, Set

from ..analysis.engine import Analyzers
from ..analysis.project.index import ProjectBuilder, ProjectIndex
from ..analysis.project.summary import NO_PROJECT, ModuleSummary, ProjectFacts
from ..cli.files import read_source

if TYPE_CHECKING:
    from .server import MsportServer

log = logging.getLogger("msport")

#: A workspace with more Python files than this is indexed for its first files only (a
#: monorepo or a vendored tree would otherwise keep the analysis thread busy for minutes).
MAX_FILES = 3_000
#: Pause in typing before the index is linked again.
LINK_DELAY = 0.3
#: Pause in typing before the index summarises its next file. Summarising a large file takes
#: ~0.1-0.5 s of CPU, more on a loaded machine; on the thread the keystrokes' analyses share, a
#: file per turn held each keystroke behind one (yolox_head.py typed in while the index of a
#: 300-file workspace ran: edit -> diagnostics p50 1.2 s, against 0.07 s with the index done).
TYPING_PAUSE = 0.5


class ProjectService:
    def __init__(self, ls: "MsportServer") -> None:
        self.ls = ls
        self.index = ProjectIndex()
        self.ready = False  # the background build finished: facts are the whole program's
        self.files = 0
        self.summarised = 0  # files summarised by the background build (a file may be summarised in several rounds)
        # Small caches of their own, as the workspace scan: summarising the workspace must not
        # evict the chunks of the documents being edited from the editor's caches.
        self.analyzers = Analyzers(cache_size=2_000)
        self._task: Optional[asyncio.Future] = None
        self._link: Optional[asyncio.TimerHandle] = None
        self._linking = False

    def facts_for(self, path: Optional[str]) -> ProjectFacts:
        if not path:
            return NO_PROJECT
        key = os.path.abspath(path)
        return self.index.facts_for(key) if key in self.index else NO_PROJECT

    def state(self) -> Dict[str, object]:
        """How far the index is (the msport/projectState request)."""
        return {"files": self.files, "modules": len(self.index.paths()), "ready": self.ready, "summarised": self.summarised}

    async def after_typing(self) -> None:
        """Returns once the user has paused typing for TYPING_PAUSE and no open document's
        analysis is queued or running: background summaries never hold up a keystroke's
        diagnostics, only the first of a burst may wait for the file being summarised."""
        while True:
            wait = self.ls.last_edit + TYPING_PAUSE - time.monotonic()
            if wait <= 0 and not self.ls.analysing():
                return
            await asyncio.sleep(max(wait, 0.05))

    def start(self) -> None:
        if self._task is None:
            self._task = asyncio.ensure_future(self._build())

    async def _build(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            listing = (await loop.run_in_executor(None, self.ls.scanner._listing)).files
        except Exception as exc:  # an unreadable workspace: documents are analysed one by one
            log.warning("project index: cannot list the workspace: %r", exc)
            return
        if len(listing) > MAX_FILES:
            log.warning("project index: %d Python files; indexing the first %d", len(listing), MAX_FILES)
        paths = [os.path.abspath(str(p)) for p in listing[:MAX_FILES]]
        self.files = len(paths)
        builder = ProjectBuilder(self.index)
        pending = builder.start(paths)
        while pending:
            summaries = []
            for path in pending:
                await self.after_typing()
                summaries.append((path, await self._summarize(loop, path)))
                self.summarised += 1
            pending = builder.next(summaries)
        self.ready = True
        self._refresh(builder.changed)

    async def _summarize(self, loop, path: str) -> Optional[ModuleSummary]:
        uri = self._uri(path)
        doc = self.ls.documents.get(uri)
        settings = self.ls.settings_for(uri)
        if settings.is_excluded(path.replace(os.sep, "/")):
            return None
        facts = self.index.facts_for(path)

        def summarize() -> Optional[ModuleSummary]:
            try:
                # Chosen here, on the analysis thread: with extend-rules it reads the user's rule files.
                analyzer = self.ls.analyzer_for(settings) if doc is not None else self.analyzers.for_settings(settings)
                text = doc.text if doc is not None else read_source(Path(path), settings.max_file_size).text
                return analyzer.summarize(text, settings, path, facts)
            except Exception as exc:  # an unreadable or pathological file: the index does without it
                log.warning("project index: %s: %r", path, exc)
                return None

        return await loop.run_in_executor(self.ls._executor, summarize)

    # -- keeping it current ------------------------------------------------------------
    def note(self, path: Optional[str], summary: ModuleSummary) -> None:
        """An open document was analysed: record its summary; link again (after a pause in
        typing) when it changed what the module tells the others."""
        if not path or not self.ready:
            return
        key = os.path.abspath(path)
        if key not in self.index:
            self.index.add(key)
        if self.index.update(key, summary):
            self._schedule_link()

    def files_changed(self, changed: List[str], deleted: List[str]) -> None:
        """Files of the workspace changed on disk (not open ones: their text is the editor's)."""
        if not self.ready:
            return  # the build reads them anyway
        for path in deleted:
            self.index.remove(os.path.abspath(path))
        asyncio.ensure_future(self._resummarize([os.path.abspath(p) for p in changed]))

    async def _resummarize(self, paths: List[str]) -> None:
        loop = asyncio.get_running_loop()
        for path in paths:
            if self.ls.documents.get(self._uri(path)) is not None:
                continue
            await self.after_typing()
            summary = await self._summarize(loop, path)
            if summary is not None:
                self.index.update(path, summary)
        self._schedule_link()

    def _schedule_link(self) -> None:
        loop = asyncio.get_running_loop()
        if self._link is not None:
            self._link.cancel()
        self._link = loop.call_later(LINK_DELAY, lambda: asyncio.ensure_future(self._relink()))

    async def _relink(self) -> None:
        if self._linking:
            self._schedule_link()  # a link is running: link again once it is done
            return
        self._linking = True
        try:
            changed = await asyncio.get_running_loop().run_in_executor(self.ls._executor, self.index.link)
        finally:
            self._linking = False
        self._refresh(changed)

    def _refresh(self, changed: Set[str]) -> None:
        """Open documents whose facts changed are checked again and re-published (pull clients
        are asked to pull again); files that are not open are re-checked by the next scan."""
        if not changed:
            return
        self.ls.workspace_changed()
        reopened: List[str] = []
        for doc in self.ls.documents:
            path = self._path(doc.uri)
            if path and os.path.abspath(path) in changed:
                self.ls.analyses.pop(doc.uri, None)
                self.ls._inflight.pop(doc.uri, None)
                reopened.append(doc.uri)
        if not reopened:
            return
        if self.ls.pull:
            self.ls.request_diagnostic_refresh()
        else:
            for uri in reopened:
                self.ls.schedule(uri)

    @staticmethod
    def _uri(path: str) -> str:
        from pygls.uris import from_fs_path

        return from_fs_path(path) or path

    @staticmethod
    def _path(uri: str) -> Optional[str]:
        from pygls.uris import to_fs_path

        return to_fs_path(uri) if uri.startswith("file:") else None
