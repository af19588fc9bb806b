"""Findings to LSP objects, in the position encoding negotiated with the client."""

from __future__ import annotations

from typing import List, Optional, Sequence

from lsprotocol import types

from ..analysis.findings import Finding, Fix, Severity, Span
from ..analysis.source import Source, to_encoding

SOURCE = "msport"
RULE_PAGE = "https://github.com/msport-dev/msport/blob/main/docs/rules/{code}.md"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.INFO: types.DiagnosticSeverity.Information,
    Severity.HINT: types.DiagnosticSeverity.Hint,
}


def to_range(span: Span, source: Source, encoding: str) -> types.Range:
    return types.Range(
        start=types.Position(line=span.start_line, character=to_encoding(source.line(span.start_line), span.start_col, encoding)),
        end=types.Position(line=span.end_line, character=to_encoding(source.line(span.end_line), span.end_col, encoding)),
    )


def to_diagnostic(finding: Finding, index: int, source: Source, encoding: str, uri: str) -> types.Diagnostic:
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(uri=uri, range=to_range(r.span, source, encoding)), message=r.message
        )
        for r in finding.related
    ] or None
    tags = [types.DiagnosticTag.Unnecessary] if "unnecessary" in finding.tags else None
    return types.Diagnostic(
        range=to_range(finding.span, source, encoding),
        message=finding.message,
        severity=_SEVERITY[finding.severity],
        code=finding.code,
        code_description=types.CodeDescription(href=RULE_PAGE.format(code=finding.code)),
        source=SOURCE,
        related_information=related,
        tags=tags,
        # Lets a code action request find the finding again, even for an older version.
        data={"index": index, "code": finding.code, "torch_api": finding.torch_api, "mindspore_api": finding.mindspore_api},
    )


def to_workspace_edit(uri: str, version: Optional[int], fixes: Sequence[Fix], source: Source, encoding: str) -> types.WorkspaceEdit:
    edits: List[types.TextEdit] = []
    for fix in fixes:
        for edit in fix.edits:
            edits.append(types.TextEdit(range=to_range(edit.span, source, encoding), new_text=edit.new_text))
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=edits,
            )
        ]
    )
