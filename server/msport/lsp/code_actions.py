"""Code actions: the quick fixes of the findings under the cursor, "Ignore CODE on this line",
"Ignore CODE in this file", and ``source.fixAll.msport`` (every safe fix of the file).

Fix-all answers fix-on-save requests (``context.only = ["source.fixAll"]`` or
``["source.fixAll.msport"]``) with one action whose edit turns the document into the output of
``analysis.fixes.fix_all``; it offers nothing when nothing would change, as editors expect.
"""

from __future__ import annotations

import asyncio
import threading
from typing import List, Optional, Sequence, Tuple

from lsprotocol import types

from ..analysis.findings import Edit, Safety, Span
from ..analysis.fixes import fix_all, has_eligible_fix
from ..analysis.source import Source, from_encoding
from ..analysis.suppression_edits import ignore_in_file, ignore_on_line
from .capabilities import FIX_ALL
from .convert import to_diagnostic, to_range


def wants(only: Optional[Sequence[str]], kind: str) -> bool:
    """Whether a request limited to *only* asks for actions of *kind* (LSP kinds are
    hierarchical: asking for "source" or "source.fixAll" includes "source.fixAll.msport")."""
    if not only:
        return True
    return any(kind == str(k) or kind.startswith(str(k) + ".") for k in only)


async def code_actions(ls, params: types.CodeActionParams) -> List[types.CodeAction]:
    uri = params.text_document.uri
    analysis = await ls.require(uri, "textDocument/codeAction")
    if analysis is None:
        return []
    only = params.context.only
    actions: List[types.CodeAction] = []
    if wants(only, types.CodeActionKind.QuickFix):
        actions.extend(quick_fixes(analysis.result, params.range, ls.encoding, uri))
    # An explicit source request (fix on save, the source action menu) always computes fix-all;
    # an unfiltered one only when the user asked (Neovim's code_action(), Ctrl+.), not for the
    # lightbulb VS Code computes on every cursor move, and only when a safe fix exists.
    explicit = bool(only) and wants(only, FIX_ALL)
    invoked = params.context.trigger_kind != types.CodeActionTriggerKind.Automatic
    if explicit or (not only and invoked and has_eligible_fix(analysis.result.findings)):
        action = await _fix_all_action(ls, analysis, uri)
        if action is not None:
            actions.append(action)
    return actions


def quick_fixes(result, requested: types.Range, encoding: str, uri: str) -> List[types.CodeAction]:
    source = result.source
    start = (requested.start.line, from_encoding(source.line(requested.start.line), requested.start.character, encoding))
    end = (requested.end.line, from_encoding(source.line(requested.end.line), requested.end.character, encoding))
    actions: List[types.CodeAction] = []
    suppressions: List[types.CodeAction] = []
    offered = set()
    for index, finding in enumerate(result.findings):
        if not _overlaps(finding.span, start, end):
            continue
        diagnostic = to_diagnostic(finding, index, source, encoding, uri)
        for fix in map(result.complete, finding.fixes):
            actions.append(_action(
                f"msport: {fix.title}" + (" (unsafe)" if fix.safety == Safety.UNSAFE else ""),
                uri, fix.edits, source, encoding, [diagnostic], preferred=fix.safety == Safety.SAFE,
            ))
        # One pair of "ignore" actions per code and line, however many findings share them.
        key = (finding.code, finding.span.start_line)
        if key in offered:
            continue
        offered.add(key)
        chunk = _chunk_of(result, finding.span.start_line)
        line_edit = ignore_on_line(source, finding.span.start_line, finding.code, *chunk)
        if line_edit is not None:
            suppressions.append(_action(f"msport: Ignore {finding.code} on this line", uri, (line_edit,), source, encoding, [diagnostic]))
        file_edit = ignore_in_file(source, finding.code)
        if file_edit is not None:
            suppressions.append(_action(f"msport: Ignore {finding.code} in this file", uri, (file_edit,), source, encoding, [diagnostic]))
    return actions + suppressions


async def _fix_all_action(ls, analysis, uri: str) -> Optional[types.CodeAction]:
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
    count = len(outcome.applied)
    return types.CodeAction(
        title=f"msport: Apply all safe fixes ({count} fix{'es' * (count != 1)})",
        kind=FIX_ALL,
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
