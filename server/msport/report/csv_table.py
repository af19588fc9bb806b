"""The report as CSV: one row per PyTorch API use and per other finding, for spreadsheets."""

from __future__ import annotations

import csv
import io
from typing import Callable, Dict

from ..knowledge.model import STATUSES as API_STATUSES

COLUMNS = ("path", "line", "column", "function", "kind", "torch_api", "status", "mindspore_api", "code", "severity", "message", "link")
_API_CATEGORIES = {f"{s}-api" for s in API_STATUSES}


def render(data: Dict, link: Callable[[str, int], str]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for row in data["files"]:
        path = row["path"]
        # A use's finding (MS101/102/103) sits on the same span: merge it into the use's row.
        by_place = {(f["line"], f["column"], f["torch_api"]): f for f in row["findings"] if f["category"] in _API_CATEGORIES}
        records = []
        for use in row["api_uses"]:
            f = by_place.get((use["line"], use["column"], use["torch_api"]), {})
            records.append((use["line"], use["column"], use["function"], "api-use", use["torch_api"], use["status"], use["mindspore_api"], f.get("code"), f.get("severity"), f.get("message")))
        for f in row["findings"]:
            if f["category"] not in _API_CATEGORIES:
                records.append((f["line"], f["column"], f["function"], "finding", f["torch_api"], "", f["mindspore_api"], f["code"], f["severity"], f["message"]))
        if row["error"]:
            records.append((0, 0, "", "error", "", "", "", "", "error", row["error"]))
        for line, column, function, kind, api, status, target, code, severity, message in sorted(records, key=lambda r: (r[0], r[1], r[3])):
            writer.writerow((path, line, column, function or "", kind, api or "", status, target or "", code or "", severity or "", message or "", link(path, line)))
    return out.getvalue()
