"""Code actions: the quick fixes of the findings under the cursor, "Fix all safe msport findings
in this file", "Ignore CODE on this line", "Ignore CODE in this file", and ``source.fixAll.msport``
(every safe fix of the file, for fix on save).

Fix-all is offered twice, where people look for it: as a quick fix beside the findings' own
(the lightbulb, Ctrl+.), and as ``source.fixAll.msport`` for fix-on-save requests
(``context.only = ["source.fixAll"]``) and the Source Action menu. Its edit is the output of
``analysis.fixes.fix_all``, which re-analyses the file: the quick fix leaves it to
``codeAction/resolve`` when the client can resolve edits (the lightbulb asks on every cursor
move, and most of those menus are never opened), and computes it at once otherwise, but only
when the user asked. It is offered only when it would fix something a finding's own quick fix
under the cursor does not.

Titles are the catalogue's (rules/messages/lsp.toml), in the settings' language; an unsafe fix
says why in its title, with the fix's own reason.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any, List, Optional, Sequence, Tuple

from lsprotocol import types

from ..analysis.findings import Edit, Finding, Fix, Safety, Span
from ..analysis.fixes import first_eligible, fix_all
from ..analysis.source import Source, from_encoding
from ..analysis.suppression_edits import ignore_in_file, ignore_on_line
from ..knowledge.messages import message
from .capabilities import FIX_ALL
from .convert import to_diagnostic, to_range

#: ``CodeAction.data`` of a fix-all quick fix whose edit is left to codeAction/resolve.
RESOLVE_FIX_ALL = "msport.fixAll"


def wants(only: Optional[Sequence[str]], kind: str) -> bool:
    """Whether a request limited to *only* asks for actions of *kind* (LSP kinds are
    hierarchical: asking for "source" or "source.fixAll" includes "source.fixAll.msport")."""
    if not only:
        return True
    return any(kind == str(k) or kind.startswith(str(k) + ".") for k in only)


def _can_resolve_edits(ls) -> bool:
    text_caps = ls.client_capabilities.text_document
    action_caps = text_caps.code_action if text_caps else None
    resolve = action_caps.resolve_support if action_caps else None
    return bool(resolve and "edit" in resolve.properties)


async def code_actions(ls, params: types.CodeActionParams) -> List[types.CodeAction]:
    uri = params.text_document.uri
    analysis = await ls.require(uri, "textDocument/codeAction")
    if analysis is None:
        return []
    only = params.context.only
    language = analysis.settings.language
    invoked = params.context.trigger_kind != types.CodeActionTriggerKind.Automatic
    actions: List[types.CodeAction] = []
    if wants(only, types.CodeActionKind.QuickFix):
        fixes, ignores, under_cursor = quick_fixes(analysis.result, params.range, ls.encoding, uri, language)
        actions.extend(fixes)
        if _fix_all_adds_something(analysis.result.findings, under_cursor):
            # The diagnostics the editor asked about (the lightbulb's), else the first under the cursor.
            diagnostics = [d for d in params.context.diagnostics if d.source == "msport"] or \
                [d for a in fixes + ignores for d in (a.diagnostics or ())][:1]
            title = message("action.fix_all", language)
            # After the findings' own fixes, before the "ignore" actions.
            if _can_resolve_edits(ls):
                fix_all_action: Optional[types.CodeAction] = types.CodeAction(
                    title=title, kind=types.CodeActionKind.QuickFix, diagnostics=diagnostics,
                    data={"msport": RESOLVE_FIX_ALL, "uri": uri, "version": analysis.version})
            elif invoked:
                fix_all_action = await _fix_all_action(ls, analysis, uri, title, types.CodeActionKind.QuickFix, diagnostics)
            else:
                fix_all_action = None
            if fix_all_action is not None:
                actions.append(fix_all_action)
        actions.extend(ignores)
    # An explicit source request (fix on save, the Source Action menu) computes fix-all; others
    # got it as a quick fix above.
    if only and wants(only, FIX_ALL):
        counted = lambda n: message("action.fix_all_counted", language, fixes=message("count.fixes", language, count=n))  # noqa: E731
        action = await _fix_all_action(ls, analysis, uri, counted, FIX_ALL)
        if action is not None:
            actions.append(action)
    return actions


def _fix_all_adds_something(findings: Sequence[Finding], under_cursor: Sequence[Finding]) -> bool:
    """Whether fix-all would apply a safe fix other than the one offered under the cursor: with
    a single fixable finding in the file, and that finding under the cursor, it would repeat it."""
    fixable = [f for f in findings if first_eligible(f, unsafe=False) is not None]
    if len(fixable) >= 2:
        return True
    return len(fixable) == 1 and not any(f is fixable[0] for f in under_cursor)


async def resolve_code_action(ls, action: types.CodeAction) -> types.CodeAction:
    """codeAction/resolve: the edit of a fix-all quick fix, computed on the document as it is now."""
    data: Any = action.data
    if not isinstance(data, dict) or data.get("msport") != RESOLVE_FIX_ALL or not isinstance(data.get("uri"), str):
        return action
    uri = data["uri"]
    analysis = await ls.require(uri, "codeAction/resolve")
    if analysis is None:
        return action
    resolved = await _fix_all_action(ls, analysis, uri, action.title, action.kind or types.CodeActionKind.QuickFix, action.diagnostics)
    if resolved is None:
        ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Info, message=message("action.nothing_to_fix", analysis.settings.language)))
        return action
    return resolved


def quick_fixes(result, requested: types.Range, encoding: str, uri: str,
                language: str = "en") -> Tuple[List[types.CodeAction], List[types.CodeAction], List[Finding]]:
    """(the findings' own fixes, the "ignore" actions, the findings) for the requested range."""
    source = result.source
    start = (requested.start.line, from_encoding(source.line(requested.start.line), requested.start.character, encoding))
    end = (requested.end.line, from_encoding(source.line(requested.end.line), requested.end.character, encoding))
    actions: List[types.CodeAction] = []
    suppressions: List[types.CodeAction] = []
    under_cursor: List[Finding] = []
    offered = set()
    for index, finding in enumerate(result.findings):
        if not _overlaps(finding.span, start, end):
            continue
        under_cursor.append(finding)
        diagnostic = to_diagnostic(finding, index, source, encoding, uri)
        for fix in map(result.complete, finding.fixes):
            actions.append(_action(fix_title(fix, language), uri, fix.edits, source, encoding, [diagnostic], preferred=fix.safety == Safety.SAFE))
        # One pair of "ignore" actions per code and line, however many findings share them.
        key = (finding.code, finding.span.start_line)
        if key in offered:
            continue
        offered.add(key)
        chunk = _chunk_of(result, finding.span.start_line)
        line_edit = ignore_on_line(source, finding.span.start_line, finding.code, *chunk)
        if line_edit is not None:
            suppressions.append(_action(message("action.ignore_line", language, code=finding.code), uri, (line_edit,), source, encoding, [diagnostic]))
        file_edit = ignore_in_file(source, finding.code)
        if file_edit is not None:
            suppressions.append(_action(message("action.ignore_file", language, code=finding.code), uri, (file_edit,), source, encoding, [diagnostic]))
    return actions, suppressions, under_cursor


def fix_title(fix: Fix, language: str = "en") -> str:
    """A fix's action title; an unsafe fix's says why it is unsafe."""
    if fix.safety != Safety.UNSAFE:
        return message("action.fix", language, title=fix.title)
    if fix.reason:
        return message("action.unsafe_fix", language, title=fix.title, reason=fix.reason)
    return message("action.unsafe_fix_unexplained", language, title=fix.title)


async def _fix_all_action(ls, analysis, uri: str, title, kind: str,
                          diagnostics: Optional[List[types.Diagnostic]] = None) -> Optional[types.CodeAction]:
    """The fix-all action (*title*: a text, or a function of the number of fixes applied), or
    None when nothing would change or the document changed meanwhile."""
    result = analysis.result
    text = result.source.text
    cancelled = threading.Event()

    def stop() -> bool:
        # Cancelled, or the user typed on: the result would be stale, and the analysis thread
        # is wanted for the new text's diagnostics. Asked between passes, on that thread.
        doc = ls.documents.get(uri)
        return cancelled.is_set() or doc is None or doc.revision != analysis.revision

    try:
        outcome = await asyncio.get_running_loop().run_in_executor(
            ls._executor, lambda: fix_all(text, analysis.settings, ls.analyzer_for(analysis.settings), _path(uri), stop=stop))
    except asyncio.CancelledError:  # $/cancelRequest: the pass under way is the last one
        cancelled.set()
        raise
    doc = ls.documents.get(uri)
    if outcome.stopped or not outcome.changed or doc is None or doc.revision != analysis.revision:
        return None  # nothing to do, or the user typed on meanwhile: a stale edit would corrupt
    edit = whole_change(result.source, outcome.text)
    return types.CodeAction(
        title=title(len(outcome.applied)) if callable(title) else title,
        kind=kind,
        diagnostics=diagnostics or None,
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=to_range(edit.span, result.source, ls.encoding), new_text=edit.new_text)]}),
    )


def whole_change(source: Source, new_text: str) -> Edit:
    """One edit turning *source* into *new_text*: the span between their common prefix and
    common suffix, so that the editor keeps the cursor and folds outside the change."""
    old = source.text
    prefix = 0
    limit = min(len(old), len(new_text))
    while prefix < limit and old[prefix] == new_text[prefix]:
        prefix += 1
    suffix = 0
    while suffix < limit - prefix and old[len(old) - 1 - suffix] == new_text[len(new_text) - 1 - suffix]:
        suffix += 1
    # Never split a \r\n pair.
    while prefix and old[prefix - 1] == "\r" and prefix < len(old) and old[prefix] == "\n":
        prefix -= 1
    start = _position(old, prefix)
    end = _position(old, len(old) - suffix)
    return Edit(Span(start[0], start[1], end[0], end[1]), new_text[prefix:len(new_text) - suffix])


def _position(text: str, offset: int) -> Tuple[int, int]:
    """(line, code-point column) of an offset, with lines split as ``source.split_lines``."""
    before = text[:offset]
    normalised = before.replace("\r\n", "\n").replace("\r", "\n")
    line = normalised.count("\n")
    column = len(normalised) - (normalised.rfind("\n") + 1)
    return line, column


def _action(title: str, uri: str, edits: Sequence[Edit], source: Source, encoding: str,
            diagnostics: List[types.Diagnostic], preferred: bool = False) -> types.CodeAction:
    return types.CodeAction(
        title=title,
        kind=types.CodeActionKind.QuickFix,
        diagnostics=diagnostics,
        edit=types.WorkspaceEdit(changes={uri: [types.TextEdit(range=to_range(e.span, source, encoding), new_text=e.new_text) for e in edits]}),
        is_preferred=preferred or None,
    )


def _overlaps(span: Span, start: Tuple[int, int], end: Tuple[int, int]) -> bool:
    return (span.start_line, span.start_col) <= end and start <= (span.end_line, span.end_col)


def _chunk_of(result, line: int):
    """(lines of the top-level statement containing *line*, its first line) for the comment check."""
    for item in result.chunks:
        if item.chunk.start <= line < item.chunk.end:
            return result.source.lines[item.chunk.start:item.chunk.end], item.chunk.start
    return None, 0


def _path(uri: str) -> Optional[str]:
    from pygls.uris import to_fs_path

    return to_fs_path(uri) if uri.startswith("file:") else uri
