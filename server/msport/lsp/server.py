"""msport's language server: thin pygls handlers over the analysis core.

- Diagnostics are pulled (``textDocument/diagnostic``) when the client can, pushed otherwise,
  never both, so a client never shows duplicates.
- Analysis runs on a worker thread, off the event loop; a result for a version the user has
  already typed past is dropped.
- Nothing result-producing answers before the editor's configuration has been read, since a
  first answer under the wrong settings would flash wrong squiggles.
- ``initialize`` is answered before the analysis engine, the rules and the modules built on them
  are imported: this module imports only pygls and lsprotocol at start-up, and the handlers
  import the rest on first use. The ``initialized`` handler imports it and loads the rules
  while the client is still opening files (tests/test_startup.py checks what was imported).
  lsprotocol's types are two thirds of what is left (0.34 of 0.5 s); answering ``initialize``
  before importing pygls would hide that from the start-up figure, but not from the first
  diagnostics, which need pygls anyway, so the server does not play that trick.
"""

from __future__ import annotations

import asyncio
import json
import logging
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, Dict, List, Optional, Tuple

from lsprotocol import types
from pygls.exceptions import FeatureRequestError, JsonRpcException, JsonRpcInvalidParams
from pygls.lsp.server import LanguageServer
from pygls.uris import to_fs_path

from .. import __version__, gc_tuning
from .capabilities import CODE_ACTION_KINDS, CONVERT_WEIGHTS_COMMAND, SCAN_COMMAND
from .framing import FrameTooLarge, MessageReader, ThreadSource, serve_messages
from .protocol import MsportProtocol, is_parse_error

if TYPE_CHECKING:
    from ..analysis.engine import AnalysisResult, Analyzer, Analyzers
    from ..analysis.settings import Settings
    from .documents import DocumentStore
    from .project_service import ProjectService
    from .workspace_scan import WorkspaceScanner

log = logging.getLogger("msport")


def _message(key: str, language: str, **arguments: Any) -> str:
    """A catalogue text; the catalogue is imported when a notice is first shown, not at start-up."""
    from ..knowledge.messages import message

    return message(key, language, **arguments)


#: Seconds without an edit after which what an edit's analysis left unchecked is checked.
COMPLETE_AFTER = 0.5
#: How many documents being typed in keep their diagnostics for the next keystroke to reuse.
TYPED_IN = 8


@dataclass
class Analysis:
    version: Optional[int]  # the client's version of the text analysed, as published
    result: AnalysisResult
    settings: Settings
    #: The settings generation it was computed under (see ``MsportServer.generation``).
    generation: int = 0
    #: The document revision analysed (see documents.py): what staleness is judged by.
    revision: int = 0
    #: The rules it was analysed with (the bundled ones and the extend-rules files).
    knowledge: Any = None


class MsportServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "msport",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=MsportProtocol,
        )
        self._documents: Optional[DocumentStore] = None
        self._scanner: Optional[WorkspaceScanner] = None
        self._project: Optional[ProjectService] = None
        self.analyses: Dict[str, Analysis] = {}
        self._inflight: Dict[str, Tuple[Tuple[Optional[int], int], asyncio.Future]] = {}
        #: Documents whose next analysis is of an edit (a keystroke): its work is bounded to the
        #: edited statements and a small share of time-budget (engine.EDIT_SHARE); what it leaves
        #: is checked when typing pauses (COMPLETE_AFTER), in an analysis an edit stops.
        self._edited: set = set()
        self._stops: Dict[str, threading.Event] = {}
        #: time.monotonic() of the last keystroke in any document: the project index yields to
        #: typing (ProjectService.after_typing).
        self.last_edit = 0.0
        #: uri -> (position encoding, {(id(finding), index): (finding, diagnostic)}), see diagnostics(),
        #: for the last few documents typed in (_typed_in, oldest first).
        self._diagnostics: Dict[str, Tuple[str, Dict]] = {}
        self._typed_in: Dict[str, None] = {}
        #: Bumped on every configuration change. A document's version does not change with the
        #: settings, so an analysis still running under the old settings when they change must
        #: not be stored or published as current: it would overwrite the newer result.
        self.generation = 0
        self._analyzers: Optional[Analyzers] = None
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="msport-analysis")
        self.editor_settings: Dict[str, Any] = {}
        #: From initializationOptions; workspace/configuration answers are laid over these, and
        #: replace (not extend) the previous answer, so a setting removed in the editor goes away.
        self.initial_settings: Dict[str, Any] = {}
        self.pull = False
        #: The editor's display language (``initialize``'s locale, e.g. "zh-cn"): the language of
        #: msport's texts unless a setting names one.
        self.locale: Optional[str] = None
        #: Whether the editor's hover shows the diagnostics under the cursor above msport's cards.
        self.hover_shows_diagnostics = False
        self._config_ready: Optional[asyncio.Event] = None
        self._shown: set = set()
        #: The event loop and its thread, once serving (messages from other threads go through it).
        self._loop: Optional[asyncio.AbstractEventLoop] = None
        self._loop_thread: Optional[int] = None

    def report_server_error(self, error: Exception, source) -> None:
        """Malformed traffic is answered and logged; other errors are shown once, not per message."""
        if is_parse_error(error):
            self.protocol.answer_parse_error(error)
            return
        log.error("server error (%s): %r", getattr(source, "__name__", source), error)
        if source is not FeatureRequestError:
            self._show_once(_message("lsp.internal_error", self.language(), error=repr(error)), types.MessageType.Error)

    def start_io(self, stdin: Optional[BinaryIO] = None, stdout: Optional[BinaryIO] = None) -> None:
        """Serve on stdin/stdout: a pipe is read by the event loop (see stdio.py), anything else
        on a thread; either way through framing.py, which recovers from broken frames."""
        if sys.platform == "win32":
            return super().start_io(stdin, stdout)
        from pygls.io_ import StdoutWriter

        from .stdio import pipe_source

        stdin = stdin or sys.stdin.buffer
        self._stop_event = threading.Event()
        self.protocol.set_writer(StdoutWriter(stdout or sys.stdout.buffer))

        async def serve() -> None:
            await self._serve((await pipe_source(stdin)) or ThreadSource(stdin, self.thread_pool))

        # As pygls' own start_io: a lost client or the `exit` notification ends the loop.
        try:
            asyncio.run(serve())
        except BrokenPipeError:
            log.error("the connection to the client is lost; shutting down")
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    def start_tcp(self, host: str, port: int) -> None:
        """Serve one client on a loopback TCP port (see tcp.py), then exit."""
        from .tcp import serve_one_client

        self._stop_event = threading.Event()
        try:
            asyncio.run(serve_one_client(self, host, port))
        except (KeyboardInterrupt, SystemExit):
            pass
        finally:
            self.shutdown()

    async def _serve(self, source) -> None:
        """Read and handle the client's messages until it leaves, sends ``exit``, or breaks the
        framing beyond repair (a message over the size limit: logged, and the server stops)."""
        self._loop, self._loop_thread = asyncio.get_running_loop(), threading.get_ident()

        def parse(body: bytes) -> Any:
            return json.loads(body, object_hook=self.protocol.structure_message)

        def on_error(error: Exception) -> None:
            if not is_parse_error(error):
                log.error("could not handle a message: %r", error)
            self._report_server_error(error, JsonRpcException)

        try:
            await serve_messages(MessageReader(source), parse, self.protocol.handle_message, on_error, self._stop_event.is_set)
        except FrameTooLarge as exc:
            log.error("closing the connection: %s", exc)

    @property
    def exit_code(self) -> int:
        """What the process exits with, as LSP says: 0 after a ``shutdown`` request, 1 otherwise
        (``exit`` without ``shutdown``, or a client gone without either)."""
        return 0 if self.protocol._shutdown else 1

    # -- state (created on first use: see the module docstring) -----------------------
    @property
    def analyzers(self) -> Analyzers:
        if self._analyzers is None:
            from ..analysis.engine import Analyzers

            self._analyzers = Analyzers()
        return self._analyzers

    @property
    def analyzer(self) -> Analyzer:
        """The analyzer of the bundled rules (without the user's extend-rules files)."""
        return self.analyzers.default

    def analyzer_for(self, settings: Settings) -> Analyzer:
        """The analyzer for *settings*: the bundled rules plus the extend-rules files, whose
        problems (file, entry, field) are shown once each."""
        analyzer = self.analyzers.for_settings(settings)
        if analyzer is not self.analyzer:
            for problem in analyzer.knowledge.problems:
                self._show_once(_message("settings.rule_file_problem", settings.language, problem=problem), types.MessageType.Warning, settings.language)
        return analyzer

    @property
    def documents(self) -> DocumentStore:
        if self._documents is None:
            from .documents import DocumentStore

            self._documents = DocumentStore()
        return self._documents

    @property
    def scanner(self) -> WorkspaceScanner:
        if self._scanner is None:
            from .workspace_scan import WorkspaceScanner

            self._scanner = WorkspaceScanner(self)
        return self._scanner

    @property
    def project(self) -> ProjectService:
        """The workspace's project index (built in the background, see project_service.py)."""
        if self._project is None:
            from .project_service import ProjectService

            self._project = ProjectService(self)
        return self._project

    @property
    def config_ready(self) -> asyncio.Event:
        if self._config_ready is None:
            self._config_ready = asyncio.Event()
        return self._config_ready

    @property
    def encoding(self) -> str:
        encoding = self.workspace.position_encoding or "utf-16"
        return str(getattr(encoding, "value", encoding))

    def settings_for(self, uri: str) -> Settings:
        from ..analysis.settings import editor_values
        from ..analysis.setting_notices import setting_notices
        from ..config import settings_for

        known = self.analyzer.knowledge.codes
        path = to_fs_path(uri) if uri.startswith("file:") else None
        settings = self.base_settings()
        if path:
            settings, _ = settings_for(Path(path), settings, known_codes=known)
        if self.editor_settings:
            # Relative paths in editor settings (extendRules) are the workspace folder's.
            settings = settings.merged(editor_values(self.editor_settings), "editor settings (msport.*)", known, base_dir=self.workspace.root_path)
        for problem in (*settings.problems, *setting_notices(settings)):
            self._show_once(problem.text(settings.language), types.MessageType.Warning, settings.language)
        return settings

    def base_settings(self) -> Settings:
        """msport's defaults, in the editor's display language when msport speaks it."""
        from ..analysis.settings import Settings
        from ..knowledge.messages import language_of

        language = language_of(self.locale)
        if language is None:
            return Settings()
        return Settings().merged({"language": language}, f"editor display language ({self.locale})")

    def language(self) -> str:
        """The language of the server's own notices, which belong to no document: the editor's
        msport.language, else its display language."""
        from ..analysis.settings import editor_values

        settings = self.base_settings()
        chosen = {k: v for k, v in editor_values(self.editor_settings or {}).items() if k == "language"}
        return settings.merged(chosen, "editor settings (msport.*)").language if chosen else settings.language

    def _show_once(self, text: str, kind: types.MessageType, language: Optional[str] = None) -> None:
        """Log and show *text* (in *language*, else the server's), the first time only; callable
        from any thread (the analysis thread reports the user's rule files), the messages go out
        on the event loop's."""
        if text in self._shown:
            return
        self._shown.add(text)
        notice = _message("lsp.notice", language or self.language(), text=text)
        loop = self._loop
        if loop is not None and threading.get_ident() != self._loop_thread:
            loop.call_soon_threadsafe(self._send_shown, notice, kind)
        else:
            self._send_shown(notice, kind)

    def _send_shown(self, notice: str, kind: types.MessageType) -> None:
        self.window_log_message(types.LogMessageParams(type=kind, message=notice))
        self.window_show_message(types.ShowMessageParams(type=kind, message=notice))

    # -- analysis --------------------------------------------------------------------
    async def current(self, uri: str, complete: bool = False) -> Optional[Analysis]:
        """The analysis of the document's current text, computed once per version. *complete*:
        also check what an edit's analysis left for later (AnalysisResult.pending)."""
        await self.config_ready.wait()
        doc = self.documents.get(uri)
        if doc is None:
            return None
        done = self.analyses.get(uri)
        if done is not None and done.revision == doc.revision and done.generation == self.generation:
            if not (complete and done.result.pending):
                return done
        key = (doc.revision, self.generation)
        inflight = self._inflight.get(uri)
        if inflight is None or inflight[0] != key or inflight[1].cancelled() or (complete and inflight[1].done()):
            settings = self.settings_for(uri)
            path = to_fs_path(uri) if uri.startswith("file:") else uri
            facts = self.project.facts_for(path)
            edit = not complete and uri in self._edited
            self._edited.discard(uri)
            stop = self._stops[uri] = threading.Event()
            future = asyncio.get_running_loop().run_in_executor(self._executor, self._run, settings, doc.text, path, facts, edit, stop)
            inflight = (key, asyncio.ensure_future(self._finish(uri, key, doc.version, settings, future)))
            self._inflight[uri] = inflight
        return await asyncio.shield(inflight[1])

    def _run(self, settings: Settings, text: str, path: Optional[str], facts, edit: bool = False,
             stop: Optional[threading.Event] = None) -> Optional[Tuple[AnalysisResult, Any]]:
        """On the analysis thread: the analyzer is chosen here because, with extend-rules, that
        reads the user's rule files, which must never hold up the event loop. *facts*: what the
        project index knows of the rest of the program; *edit*, *stop*: see Analyzer.analyze."""
        try:
            analyzer = self.analyzer_for(settings)
            return analyzer.analyze(text, settings, path, facts, edit=edit, stop=stop), analyzer.knowledge
        except Exception as exc:  # a bug in a check must not take the server down
            log.exception("analysis failed for %s", path)
            self._show_once(_message("lsp.check_failed", settings.language, path=path, error=repr(exc)), types.MessageType.Error, settings.language)
            return None

    async def _finish(self, uri: str, key, version: Optional[int], settings: Settings, future) -> Optional[Analysis]:
        done = await future
        if done is None:
            return None
        revision, generation = key
        analysis = Analysis(version, done[0], settings, generation, revision, done[1])
        doc = self.documents.get(uri)
        if doc is not None and doc.revision == revision and generation == self.generation:
            self.analyses[uri] = analysis
            self.project.note(to_fs_path(uri) if uri.startswith("file:") else None, done[0].summary)
        return analysis

    async def require(self, uri: str, method: str, position: Optional[types.Position] = None) -> Optional[Analysis]:
        """The analysis for a request; an unknown document or position is a JSON-RPC error."""
        if self.documents.get(uri) is None:
            raise JsonRpcInvalidParams(message=f"{method}: {uri} is not open (send textDocument/didOpen first)")
        analysis = await self.current(uri)
        if analysis is not None and position is not None:
            lines = len(analysis.result.source.lines)
            if not 0 <= position.line < lines or position.character < 0:
                raise JsonRpcInvalidParams(message=f"{method}: position {position.line}:{position.character} is outside {uri} ({lines} lines)")
        return analysis

    def diagnostics(self, uri: str, analysis: Analysis) -> List[types.Diagnostic]:
        from .convert import to_diagnostic

        source = analysis.result.source
        # A keystroke leaves the findings of every statement it did not touch or move the same
        # objects (engine: Analyzer._placed): their diagnostics are reused, not converted again.
        # Keyed by identity; the finding is kept in the entry, so its id cannot be reused.
        encoding = self.encoding
        last_encoding, last = self._diagnostics.get(uri, (None, {}))
        if last_encoding != encoding:
            last = {}
        made: Dict[Tuple[int, int], Tuple[Any, types.Diagnostic]] = {}
        out = []
        for index, finding in enumerate(analysis.result.findings):
            key = (id(finding), index)
            entry = last.get(key)
            if entry is None or entry[0] is not finding:
                entry = (finding, to_diagnostic(finding, index, source, encoding, uri))
            made[key] = entry
            out.append(entry[1])
        if uri in self._typed_in:  # only documents being typed in: 300 open files would hold MBs
            self._diagnostics[uri] = (encoding, made)
        return out

    async def publish(self, uri: str, complete: bool = False) -> None:
        """Push mode: analyse and publish, unless the text moved on meanwhile. What an edit's
        analysis left unchecked is checked and published once typing pauses."""
        await asyncio.sleep(0)  # let edits already queued arrive first: they make this one stale
        doc = self.documents.get(uri)
        if doc is None:
            return
        revision, version, generation = doc.revision, doc.version, self.generation
        if complete:
            done = self.analyses.get(uri)
            if done is None or done.revision != revision or not done.result.pending:
                return  # typed on meanwhile (that analysis schedules its own completion), or complete
        analysis = await self.current(uri, complete)
        doc = self.documents.get(uri)
        stale = doc is None or doc.revision != revision or generation != self.generation
        if analysis is None or stale or analysis.revision != revision or analysis.generation != generation:
            return
        self.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, version=version, diagnostics=self.diagnostics(uri, analysis))
        )
        if analysis.result.pending:
            asyncio.get_running_loop().call_later(COMPLETE_AFTER, self._complete_later, uri, revision)

    def _complete_later(self, uri: str, revision: int) -> None:
        doc = self.documents.get(uri)
        if doc is not None and doc.revision == revision and not self.pull and not self.protocol._shutdown:
            asyncio.ensure_future(self.publish(uri, complete=True))

    def edited(self, uri: str) -> None:
        """A keystroke: the next analysis is an edit's, and one still checking what an earlier
        edit left (a completion) stops, so that this one starts at once."""
        self.last_edit = time.monotonic()
        if not self.pull:  # a pulled document has no later publish to complete it
            self._edited.add(uri)
        self._typed_in.pop(uri, None)
        self._typed_in[uri] = None
        while len(self._typed_in) > TYPED_IN:
            oldest = next(iter(self._typed_in))
            del self._typed_in[oldest]
            self._diagnostics.pop(oldest, None)
        stop = self._stops.get(uri)
        if stop is not None:
            stop.set()

    def analysing(self) -> bool:
        """Whether an open document's analysis is queued or running (asked for by a keystroke,
        an open, a hover or a pull): background work waits for it."""
        return any(not future.done() for _, future in self._inflight.values())

    def schedule(self, uri: str) -> None:
        if not self.pull:
            asyncio.ensure_future(self.publish(uri))

    def workspace_changed(self) -> None:
        """Wake a held workspace/diagnostic pull (WorkspaceScanner.pull): files on disk, the
        settings or the set of open documents may have changed."""
        if self._scanner is not None:
            self._scanner.changed.set()

    def forget_results(self) -> None:
        """Results computed under the previous settings are never answered again."""
        self.generation += 1
        self.analyses.clear()
        self._inflight.clear()

    def request_diagnostic_refresh(self) -> None:
        """Ask a pull client to pull every document's diagnostics again, if it can be asked."""
        workspace_caps = self.client_capabilities.workspace
        diagnostics_caps = workspace_caps.diagnostics if workspace_caps else None
        if diagnostics_caps and diagnostics_caps.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def refresh_all(self) -> None:
        """After a configuration change: forget results, then re-push or ask the client to re-pull."""
        self.workspace_changed()
        self.forget_results()
        if self.pull:
            self.request_diagnostic_refresh()
        else:
            for doc in self.documents:
                self.schedule(doc.uri)

    async def watch_files(self) -> None:
        """Ask the client to report changes of TOML files (pyproject.toml, extend-rules files),
        so that diagnostics follow them instead of the next edit, and, for pull clients, of
        Python files, which wake a held workspace/diagnostic pull."""
        caps = self.client_capabilities.workspace
        watched = caps.did_change_watched_files if caps else None
        if not (watched and watched.dynamic_registration):
            return
        # Python files: the project index follows files changed on disk, and for pull clients a
        # change wakes a held workspace/diagnostic pull.
        globs = ("**/*.toml", "**/*.py")
        options = types.DidChangeWatchedFilesRegistrationOptions(watchers=[types.FileSystemWatcher(glob_pattern=g) for g in globs])
        registration = types.Registration(id="msport-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES, register_options=options)
        try:
            await asyncio.wait_for(self.client_register_capability_async(types.RegistrationParams(registrations=[registration])), timeout=5)
        except Exception as exc:  # the diagnostics then follow the next edit instead
            log.warning("client/registerCapability for watched files failed: %r", exc)

    async def load_configuration(self) -> None:
        caps = self.client_capabilities.workspace
        if caps is not None and caps.configuration:
            try:
                values = await asyncio.wait_for(
                    self.workspace_configuration_async(types.ConfigurationParams(items=[types.ConfigurationItem(section="msport")])),
                    timeout=5,
                )
                if values and isinstance(values[0], dict):
                    self.editor_settings = {**self.initial_settings, **values[0]}
            except Exception as exc:  # a client that cannot answer leaves the other settings in force
                log.warning("workspace/configuration failed: %r", exc)
        self.config_ready.set()


server = MsportServer()


@server.feature(types.INITIALIZE)
def initialize(ls: MsportServer, params: types.InitializeParams) -> None:
    options = params.initialization_options
    if isinstance(options, dict) and isinstance(options.get("client"), dict):
        # msport's own VS Code extension says what its editor shows (see hover.py).
        ls.hover_shows_diagnostics = options["client"].get("hoverShowsDiagnostics") is True
    if isinstance(options, dict):
        # Accepted shapes: {"settings": {...}} (the VS Code template), {"msport": {...}}
        # (Helix and others send the section), or the settings themselves.
        for section in ("settings", "msport"):
            if isinstance(options.get(section), dict):
                options = options[section]
                break
        ls.initial_settings = dict(options)
        ls.editor_settings = dict(options)
    text_caps = params.capabilities.text_document
    ls.pull = bool(text_caps and text_caps.diagnostic)
    ls.locale = params.locale


def _import_the_rest() -> None:
    """The modules ``initialize`` was answered without: the engine, the rules' index, and the
    LSP modules built on them. Imported on the event loop's thread, which is where the handlers
    import them too: importing one package from two threads at once can hand one of them a
    half-initialised module (CPython breaks import cycles that way to avoid a deadlock)."""
    from .. import config  # noqa: F401
    from ..knowledge import api_history  # noqa: F401
    from . import code_actions, convert, documents, hover, workspace_scan  # noqa: F401


@server.feature(types.INITIALIZED)
async def initialized(ls: MsportServer, params: types.InitializedParams) -> None:
    # Everything initialize was answered without, while the client is still busy opening
    # files: the first analysis would wait for it anyway.
    _import_the_rest()
    from ..knowledge.api_history import default_history

    loop = asyncio.get_running_loop()
    from ..knowledge import preload

    await loop.run_in_executor(ls._executor, lambda: (preload(), ls.analyzer))
    for problem in ls.analyzer.knowledge.problems:
        ls._show_once(_message("lsp.rule_data", ls.language(), problem=problem), types.MessageType.Error)
    # The rules are ~10^5 objects that live as long as the server: out of the collector's
    # reach, a full collection during an edit takes ~5 ms instead of ~45 ms on 7,000 lines; and
    # young collections spaced out as in the CLI (an open of 50,000 lines: 5.0 -> 4.1 s CPU).
    gc_tuning.tune()
    await ls.load_configuration()
    await ls.watch_files()
    # The snapshots the hover cards read (70 ms): on the analysis thread, but after the first
    # analyses, which were waiting for the configuration and are queued first by call_soon.
    loop.call_soon(loop.run_in_executor, ls._executor, default_history)
    # The project index, one file per turn of the analysis thread, after those first analyses.
    loop.call_soon(ls.project.start)


@server.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: MsportServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings
    if isinstance(settings, dict) and isinstance(settings.get("msport"), dict):
        ls.editor_settings = {**ls.initial_settings, **settings["msport"]}
        # A pull may arrive while the configuration is re-read below (a round trip to the
        # client): it must be answered under the settings just received, not from the results
        # of the previous ones.
        ls.forget_results()
    await ls.load_configuration()
    ls.refresh_all()


@server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: MsportServer, params: types.DidChangeWatchedFilesParams) -> None:
    python = [c for c in params.changes if c.uri.endswith(".py") and c.uri.startswith("file:")]
    if python:
        deleted = [to_fs_path(c.uri) for c in python if c.type == types.FileChangeType.Deleted]
        ls.project.files_changed([to_fs_path(c.uri) for c in python if c.type != types.FileChangeType.Deleted], deleted)
    if any(change.uri.endswith(".toml") for change in params.changes):
        ls.refresh_all()
    else:
        ls.workspace_changed()


@server.feature(types.TEXT_DOCUMENT_DID_OPEN)
def did_open(ls: MsportServer, params: types.DidOpenTextDocumentParams) -> None:
    doc = params.text_document
    ls.documents.open(doc.uri, doc.text, doc.version)
    ls.schedule(doc.uri)
    ls.workspace_changed()


@server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
def did_change(ls: MsportServer, params: types.DidChangeTextDocumentParams) -> None:
    from .documents import EditOutOfRange

    uri = params.text_document.uri
    try:
        ls.documents.change(uri, params.text_document.version, params.content_changes, ls.encoding)
    except KeyError:
        log.warning("didChange for a document never opened: %s", uri)
        return
    except EditOutOfRange as exc:
        ls._show_once(_message("lsp.edit_failed", ls.language(), uri=uri, error=exc), types.MessageType.Error)
        return
    ls.edited(uri)
    ls.schedule(uri)


@server.feature(types.SHUTDOWN)
def shutdown(ls: MsportServer, params: Any) -> None:
    """Analyses still checking what edits left for later stop: exit must not wait for them."""
    for stop in list(ls._stops.values()):
        stop.set()


@server.feature(types.TEXT_DOCUMENT_DID_SAVE)
def did_save(ls: MsportServer, params: types.DidSaveTextDocumentParams) -> None:
    """Saving changes nothing msport reads; declared so that clients may send it."""


@server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
def did_close(ls: MsportServer, params: types.DidCloseTextDocumentParams) -> None:
    uri = params.text_document.uri
    ls.documents.close(uri)
    ls.workspace_changed()
    ls.analyses.pop(uri, None)
    ls._inflight.pop(uri, None)
    ls._edited.discard(uri)
    ls._diagnostics.pop(uri, None)
    ls._typed_in.pop(uri, None)
    stop = ls._stops.pop(uri, None)
    if stop is not None:
        stop.set()  # a completion still running for it is of no use now
    if not ls.pull:
        ls.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


@server.feature(
    types.TEXT_DOCUMENT_DIAGNOSTIC,
    types.DiagnosticOptions(identifier="msport", inter_file_dependencies=False, workspace_diagnostics=True),
)
async def diagnostic(ls: MsportServer, params: types.DocumentDiagnosticParams):
    uri = params.text_document.uri
    analysis = await ls.require(uri, "textDocument/diagnostic")
    if analysis is None:
        return types.RelatedFullDocumentDiagnosticReport(items=[])
    items = ls.diagnostics(uri, analysis)
    # The id must change whenever what the client shows would (a severity-only change included).
    result_id = f"{analysis.revision}:{hash(tuple((d.code, d.message, d.severity, d.range.start.line, d.range.start.character) for d in items)):x}"
    if params.previous_result_id == result_id:
        return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
    return types.RelatedFullDocumentDiagnosticReport(items=items, result_id=result_id)


@server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(code_action_kinds=CODE_ACTION_KINDS, resolve_provider=True))
async def code_action(ls: MsportServer, params: types.CodeActionParams) -> Optional[List[types.CodeAction]]:
    from .code_actions import code_actions

    return await code_actions(ls, params)


@server.feature(types.CODE_ACTION_RESOLVE)
async def code_action_resolve(ls: MsportServer, params: types.CodeAction) -> types.CodeAction:
    from .code_actions import resolve_code_action

    return await resolve_code_action(ls, params)


def _uri_param(params: Any) -> Any:
    """The "uri" of a custom request's parameters (pygls hands them over as an object or a dict)."""
    return getattr(params, "uri", None) or (params.get("uri") if isinstance(params, dict) else None)


@server.feature("msport/documentState")
def document_state(ls: MsportServer, params: Any) -> Dict[str, Any]:
    """Debugging aid (and the text-sync tests' probe): msport's copy of a document."""
    uri = _uri_param(params)
    doc = ls.documents.get(uri) if uri else None
    if doc is None:
        raise JsonRpcInvalidParams(message=f"msport/documentState: {uri} is not open")
    return {"uri": uri, "version": doc.version, "text": doc.text}


@server.feature("msport/effectiveSettings")
def effective_settings(ls: MsportServer, params: Any) -> List[Dict[str, str]]:
    """The settings that govern a document, each with where it was set ("default", a
    pyproject.toml, "editor settings (msport.*)"): for users whose setting seems ignored."""
    uri = _uri_param(params)
    if not isinstance(uri, str):
        raise JsonRpcInvalidParams(message="msport/effectiveSettings: expected {\"uri\": <document or folder URI>}")
    return [{"key": key, "value": value, "origin": origin} for key, value, origin in ls.settings_for(uri).described()]


@server.feature("msport/projectState")
def project_state(ls: MsportServer, params: Any) -> Dict[str, Any]:
    """How far the workspace's project index is: files listed, modules summarised, ready."""
    return ls.project.state()


@server.feature("msport/loadedModules")
def loaded_modules(ls: MsportServer, params: Any) -> List[str]:
    """Debugging aid (and tests/test_startup.py's probe): every module imported so far. Asked
    between ``initialize`` and ``initialized``, it shows what answering ``initialize`` cost."""
    return sorted(sys.modules)


@server.feature(types.TEXT_DOCUMENT_HOVER)
async def hover(ls: MsportServer, params: types.HoverParams) -> Optional[types.Hover]:
    from ..analysis.source import from_encoding
    from .convert import to_range
    from .hover import hover_text

    uri = params.text_document.uri
    analysis = await ls.require(uri, "textDocument/hover", params.position)
    if analysis is None:
        return None
    source = analysis.result.source
    line = params.position.line
    col = from_encoding(source.line(line), params.position.character, ls.encoding)
    path = to_fs_path(uri) if uri.startswith("file:") else None
    text, span = await hover_text(analysis.knowledge, analysis.result, analysis.settings, line, col, path,
                                  ls.scanner.roots(), ls.hover_shows_diagnostics)
    if text is None:
        return None
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=to_range(span, source, ls.encoding) if span else None,
    )


@server.command(SCAN_COMMAND)
async def scan_workspace(ls: MsportServer, *args: Any) -> Dict[str, Any]:
    """Check the workspace's files that are not open, with $/progress; push clients get the
    findings published, pull clients are asked to re-pull workspace diagnostics."""
    await ls.config_ready.wait()
    summary = await ls.scanner.scan(publish=not ls.pull, create_progress=True)
    workspace_caps = ls.client_capabilities.workspace
    if ls.pull and workspace_caps and workspace_caps.diagnostics and workspace_caps.diagnostics.refresh_support:
        ls.workspace_diagnostic_refresh(None)
    return summary.as_dict()


@server.command(CONVERT_WEIGHTS_COMMAND)
async def convert_weights(ls: MsportServer, *args: Any) -> Dict[str, Any]:
    """``msport convert-weights`` in a child process, with progress; see weights_command.py."""
    from .weights_command import convert_weights as run

    return await run(ls, args[0] if len(args) == 1 and isinstance(args[0], list) else list(args))


@server.feature(types.WORKSPACE_DIAGNOSTIC)
async def workspace_diagnostic(ls: MsportServer, params: types.WorkspaceDiagnosticParams) -> types.WorkspaceDiagnosticReport:
    await ls.config_ready.wait()
    return await ls.scanner.pull({p.uri: p.value for p in params.previous_result_ids}, params.work_done_token)


def run(tcp: Optional[str] = None) -> int:
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="msport: %(levelname)s %(message)s")
    # While the analysis thread runs, the event loop needs the GIL back to read a message, answer
    # a hover or queue an edit, and waits up to the switch interval (5 ms by default) each time.
    # The interval only matters when a thread is waiting, so analysis throughput does not change
    # (bench: open/edit on 7k lines alike); a hover during a 28k-line analysis went 5.8 -> 1.7 ms.
    sys.setswitchinterval(0.001)
    if tcp:
        from .tcp import loopback_address

        address = loopback_address(tcp)
        if isinstance(address, str):
            print(f"msport: error: --tcp: {address}", file=sys.stderr)
            return 2
        server.start_tcp(*address)
    else:
        server.start_io()
    return server.exit_code
