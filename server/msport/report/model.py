"""The project migration report as one JSON-ready dict; every output format renders it.

Definitions (they are also written into the report):

- an **API use** is one place in the code that names a PyTorch API: a call, a base class, a
  type hint, a class passed as a value. Same-name Tensor methods count (as equivalent) even
  though they need no change and raise no finding. Uses are an inventory of the porting work:
  ``# noqa`` and ``ignore`` hide findings, not uses.
- a use is **judged** when msport has a rule for its API: equivalent (the port is a rename),
  divergent (a counterpart that behaves differently) or missing (no counterpart) for the
  target MindSpore version and backend. Real torch APIs without a rule are **unknown**.
- **readiness** = equivalent uses / judged uses: the share of judged uses that port by a
  rename. Unknown uses are listed, never counted in it.
"""

from __future__ import annotations

import datetime
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

from .. import __version__
from ..analysis.api_uses import UNKNOWN, ApiUse
from ..analysis.findings import Category, Finding
from ..analysis.outline import FunctionIndex
from ..analysis.settings import Settings
from ..knowledge.index import KnowledgeBase
from ..knowledge.messages import message
from ..knowledge.rule_texts import in_language

JUDGED = ("equivalent", "divergent", "missing")
STATUSES = JUDGED + (UNKNOWN,)
TOP = 15

#: The terms every report defines, in the order it lists them (texts: report.definition.*).
DEFINED_TERMS = ("use", "judged", "unknown", "readiness", "hotspot")


def definitions(language: str) -> Dict[str, str]:
    """The report's definitions, in *language*."""
    return {term: message(f"report.definition.{term}", language) for term in DEFINED_TERMS}


@dataclass
class FileInput:
    """What the report needs from one scanned file."""

    path: str  # display path, relative to the report's root
    lines: int
    uses: Sequence[ApiUse]
    findings: Sequence[Finding]
    functions: Optional[FunctionIndex] = None
    error: Optional[str] = None


def is_dynamic_shape(finding: Finding) -> bool:
    return finding.category == Category.DYNAMIC_SHAPE or finding.code.startswith("MS2")


def _ratio(numerator: int, denominator: int) -> Optional[float]:
    return round(numerator / denominator, 4) if denominator else None


def _status_counts(counter: Counter) -> Dict[str, int]:
    counts = {status: counter.get(status, 0) for status in STATUSES}
    counts["total"] = sum(counts.values())
    counts["judged"] = sum(counts[s] for s in JUDGED)
    return counts


def _finding_dict(f: Finding, functions: Optional[FunctionIndex]) -> Dict:
    return {
        "line": f.span.start_line + 1,
        "column": f.span.start_col + 1,
        "code": f.code,
        "severity": f.severity.value,
        "category": f.category.value,
        "message": f.message,
        "torch_api": f.torch_api,
        "mindspore_api": f.mindspore_api,
        "function": functions.name_at(f.span.start_line) if functions else None,
    }


def _use_dict(u: ApiUse) -> Dict:
    return {
        "line": u.span.start_line + 1,
        "column": u.span.start_col + 1,
        "torch_api": u.torch_api,
        "status": u.status,
        "mindspore_api": u.mindspore_api,
        "function": u.function,
        "call": u.call,
    }


def build_report(
    files: Sequence[FileInput],
    knowledge: KnowledgeBase,
    settings: Settings,
    root: str,
    generated: Optional[str] = None,
) -> Dict:
    """The report of a scanned project; pure (the caller scanned the files)."""
    by_status: Counter = Counter()
    by_namespace: Dict[str, Counter] = defaultdict(Counter)
    per_api: Dict[str, Counter] = defaultdict(Counter)  # api -> {"uses": n, "files": k}
    api_status: Dict[str, ApiUse] = {}
    first_seen: Dict[str, Dict] = {}
    findings_by_code: Counter = Counter()
    hotspots: Dict[tuple, Dict] = {}
    file_rows: List[Dict] = []
    total_lines = 0
    for item in files:
        total_lines += item.lines
        counts: Counter = Counter(u.status for u in item.uses)
        by_status.update(counts)
        for api in {u.torch_api for u in item.uses}:
            per_api[api]["files"] += 1
        for use in item.uses:
            by_namespace[use.namespace][use.status] += 1
            per_api[use.torch_api]["uses"] += 1
            api_status.setdefault(use.torch_api, use)
            first_seen.setdefault(use.torch_api, {"path": item.path, "line": use.span.start_line + 1})
        dynamic = 0
        for finding in item.findings:
            findings_by_code[finding.code] += 1
            if is_dynamic_shape(finding):
                dynamic += 1
                function = item.functions.name_at(finding.span.start_line) if item.functions else "<module>"
                spot = hotspots.setdefault((item.path, function), {"path": item.path, "function": function, "line": finding.span.start_line + 1, "findings": 0, "codes": Counter()})
                spot["findings"] += 1
                spot["codes"][finding.code] += 1
        uses = _status_counts(counts)
        file_rows.append({
            "path": item.path,
            "lines": item.lines,
            "uses": uses,
            "readiness": _ratio(uses["equivalent"], uses["judged"]),
            "dynamic_shape_findings": dynamic,
            "findings_total": len(item.findings),
            "error": item.error,
            "findings": [_finding_dict(f, item.functions) for f in item.findings],
            "api_uses": [_use_dict(u) for u in item.uses],
        })

    def top(status: str) -> List[Dict]:
        names = [api for api, use in api_status.items() if use.status == status]
        names.sort(key=lambda api: (-per_api[api]["uses"], api))
        rows = []
        for api in names[:TOP]:
            row = {"torch_api": api, "uses": per_api[api]["uses"], "files": per_api[api]["files"], "first": first_seen[api]}
            if status != UNKNOWN:
                verdict = knowledge.verdict(api, settings.version, settings.backend)
                row["mindspore_api"] = verdict.mindspore if verdict else None
                row["note"] = (in_language(verdict.note, settings.language) or verdict.available_elsewhere or "") if verdict else ""
                row["basis"] = verdict.rule.basis if verdict else None
            rows.append(row)
        return rows

    distinct = Counter(use.status for use in api_status.values())
    summary_uses = _status_counts(by_status)
    namespaces = [
        {"namespace": ns, **_status_counts(counter)}
        for ns, counter in sorted(by_namespace.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    ]
    spots = sorted(hotspots.values(), key=lambda s: (-s["findings"], s["path"], s["line"]))
    for spot in spots:
        spot["codes"] = dict(sorted(spot["codes"].items()))
    dynamic_total = sum(s["findings"] for s in spots)
    return {
        "tool": {"name": "msport", "version": __version__},
        "generated": generated or datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "root": root,
        "settings": {"target_version": settings.target_version, "backend": settings.backend, "mode": settings.mode, "jit_level": settings.jit_level,
                     "language": settings.language},
        "definitions": definitions(settings.language),
        "summary": {
            "files_scanned": len(files),
            "files_with_errors": sum(1 for f in files if f.error),
            "lines": total_lines,
            "uses": summary_uses,
            "distinct_apis": _status_counts(distinct),
            "readiness": _ratio(summary_uses["equivalent"], summary_uses["judged"]),
            "findings": {"total": sum(findings_by_code.values()), "by_code": dict(sorted(findings_by_code.items()))},
            "dynamic_shape_findings": dynamic_total,
            "dynamic_shape_functions": len(spots),
        },
        "namespaces": namespaces,
        "top_missing": top("missing"),
        "top_divergent": top("divergent"),
        "top_unknown": top(UNKNOWN),
        "hotspots": spots,
        "files": file_rows,
    }
