"""Findings as text, JSON and SARIF 2.1.0. Lines and columns are 1-based, columns in code points."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Sequence, Tuple

from .. import __version__
from ..analysis.findings import Finding, Fix
from ..knowledge.messages import DEFAULT_LANGUAGE, listing, message, sentences
from ..knowledge.model import CodeInfo

RULES_URL = "https://github.com/msport-dev/msport/blob/main/docs/rules/{code}.md"

FileFindings = Tuple[str, Sequence[Finding]]


def finding_dict(path: str, finding: Finding) -> Dict:
    span = finding.span
    return {
        "path": path,
        "line": span.start_line + 1,
        "column": span.start_col + 1,
        "end_line": span.end_line + 1,
        "end_column": span.end_col + 1,
        "code": finding.code,
        "category": finding.category.value,
        "severity": finding.severity.value,
        "message": finding.message,
        "torch_api": finding.torch_api,
        "mindspore_api": finding.mindspore_api,
        "fixes": [fix_dict(fix) for fix in finding.fixes],
        "related": [
            {"line": r.span.start_line + 1, "column": r.span.start_col + 1, "message": r.message}
            for r in finding.related
        ],
    }


def fix_dict(fix: Fix) -> Dict:
    return {
        "title": fix.title,
        "safety": fix.safety.value,
        "reason": fix.reason,
        "edits": [
            {
                "line": e.span.start_line + 1,
                "column": e.span.start_col + 1,
                "end_line": e.span.end_line + 1,
                "end_column": e.span.end_col + 1,
                "new_text": e.new_text,
            }
            for e in fix.edits
        ],
    }


def format_text(results: Iterable[FileFindings]) -> Iterable[str]:
    for path, findings in results:
        for f in findings:
            yield f"{path}:{f.span.start_line + 1}:{f.span.start_col + 1}: {f.code} {f.message}"


def summary(results: Sequence[FileFindings], files_checked: int, language: str = DEFAULT_LANGUAGE, fixes_applied: Optional[int] = None,
            fixable_key: str = "cli.summary.fixable") -> str:
    """The closing line of ``msport check``'s text output, in *language* (rules/messages/cli.toml);
    *fixes_applied* is said when ``--fix`` ran; *fixable_key* says where the fixes are."""
    def count(key: str, n: int) -> str:
        return message(key, language, count=n)

    total = sum(len(findings) for _, findings in results)
    files = count("count.files", files_checked)
    if not total:
        text = message("cli.summary.clean", language, files=files)
    else:
        by_severity = Counter(f.severity.value for _, fs in results for f in fs)
        by_code = Counter(f.code for _, fs in results for f in fs)
        severities = listing([count(f"count.{s}", by_severity[s]) for s in ("error", "warning", "info", "hint") if by_severity[s]], language)
        text = message(
            "cli.summary.found", language, findings=count("count.findings", total), severities=severities,
            with_findings=sum(1 for _, fs in results if fs), files=files,
            codes=listing([f"{code} x{n}" for code, n in sorted(by_code.items())], language),
        )
        fixable = sum(1 for _, fs in results for f in fs if f.fixes)
        if fixable:
            text = sentences([text, count(fixable_key, fixable)], language)
    if fixes_applied is not None:
        text = sentences([text, message("cli.summary.applied", language, fixes=count("count.fixes", fixes_applied))], language)
    return text


def format_json(results: Iterable[FileFindings]) -> str:
    return json.dumps([finding_dict(path, f) for path, findings in results for f in findings], indent=2, ensure_ascii=False)


_SARIF_LEVEL = {"error": "error", "warning": "warning", "info": "note", "hint": "note"}


def format_sarif(results: Sequence[FileFindings], codes: Dict[str, CodeInfo]) -> str:
    used = sorted({f.code for _, fs in results for f in fs})
    rules = [
        {
            "id": code,
            "name": codes[code].name,
            "shortDescription": {"text": codes[code].summary},
            "fullDescription": {"text": codes[code].why},
            "helpUri": RULES_URL.format(code=code),
            "defaultConfiguration": {"level": _SARIF_LEVEL[codes[code].severity]},
            "properties": {"category": codes[code].category},
        }
        for code in used
        if code in codes
    ]
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    sarif_results: List[Dict] = []
    for path, findings in results:
        uri = _uri_reference(Path(path).as_posix())
        for f in findings:
            result = {
                "ruleId": f.code,
                "level": _SARIF_LEVEL[f.severity.value],
                "message": {"text": f.message},
                "locations": [_location(uri, f.span)],
                "properties": {"category": f.category.value, "torch_api": f.torch_api, "mindspore_api": f.mindspore_api},
            }
            if f.code in index:
                result["ruleIndex"] = index[f.code]
            if f.related:
                result["relatedLocations"] = [
                    {**_location(uri, r.span), "id": i, "message": {"text": r.message}} for i, r in enumerate(f.related)
                ]
            if f.fixes:
                result["fixes"] = [
                    {
                        "description": {"text": fix.title},
                        "artifactChanges": [
                            {
                                "artifactLocation": {"uri": uri},
                                "replacements": [
                                    {"deletedRegion": _region(e.span), "insertedContent": {"text": e.new_text}} for e in fix.edits
                                ],
                            }
                        ],
                    }
                    for fix in f.fixes
                ]
            sarif_results.append(result)
    log = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "msport",
                        "version": __version__,
                        "informationUri": "https://github.com/msport-dev/msport",
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": sarif_results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


#: Characters a URI reference may hold as they are (RFC 3986 unreserved, and the path separator).
_URI_SAFE = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")


def _uri_reference(path: str) -> str:
    """*path* as SARIF's artifactLocation.uri must be: a URI reference, every other byte of its
    UTF-8 percent-encoded (a space, a non-ASCII letter, a backslash-escaped undecodable byte)."""
    return "".join(chr(byte) if byte in _URI_SAFE else f"%{byte:02X}" for byte in path.encode("utf-8"))


def _region(span) -> Dict:
    return {
        "startLine": span.start_line + 1,
        "startColumn": span.start_col + 1,
        "endLine": span.end_line + 1,
        "endColumn": span.end_col + 1,
    }


def _location(uri: str, span) -> Dict:
    return {"physicalLocation": {"artifactLocation": {"uri": uri}, "region": _region(span)}}
