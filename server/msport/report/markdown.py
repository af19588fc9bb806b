"""The report as Markdown: readable in a terminal, a merge request or a wiki."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Callable, Dict, List, Optional, Sequence

Linker = Callable[[str, int], str]
_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}


def percent(value: Optional[float]) -> str:
    return "n/a" if value is None else f"{value * 100:.0f}%"


def settings_line(data: Dict) -> str:
    s = data["settings"]
    return f"MindSpore {s['target_version']} on {_BACKENDS.get(s['backend'], s['backend'])}, {s['mode']} mode, jit level {s['jit_level']}"


def title(data: Dict) -> str:
    return f"PyTorch to MindSpore migration report: {PurePosixPath(data['root']).name or data['root']}"


def _cell(text) -> str:
    return str(text if text is not None else "").replace("|", "\\|").replace("\n", " ")


def _table(header: Sequence[str], rows: Sequence[Sequence]) -> List[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _first(row: Dict, link: Linker) -> str:
    first = row["first"]
    return f"[{first['path']}:{first['line']}]({link(first['path'], first['line'])})"


def render(data: Dict, link: Linker) -> str:
    summary = data["summary"]
    uses, distinct = summary["uses"], summary["distinct_apis"]
    out: List[str] = [f"# {title(data)}", "", f"{settings_line(data)}. Generated {data['generated']} by msport {data['tool']['version']}.", ""]
    out.append(
        f"**Readiness: {percent(summary['readiness'])}** of {uses['judged']} judged PyTorch API uses port by a rename "
        f"({uses['equivalent']} equivalent, {uses['divergent']} divergent, {uses['missing']} missing; "
        f"{uses['unknown']} uses of APIs msport has no rule for are not counted)."
    )
    out += ["", f"{summary['files_scanned']} files scanned ({summary['lines']} lines), {summary['files_with_errors']} could not be checked. "
            f"{summary['dynamic_shape_findings']} dynamic-shape findings in {summary['dynamic_shape_functions']} functions.", ""]
    out += _table(["status", "uses", "distinct APIs"], [
        ["equivalent", uses["equivalent"], distinct["equivalent"]],
        ["divergent", uses["divergent"], distinct["divergent"]],
        ["missing", uses["missing"], distinct["missing"]],
        ["unknown (no rule yet)", uses["unknown"], distinct["unknown"]],
        ["total", uses["total"], distinct["total"]],
    ])
    out += ["", "## PyTorch API uses by namespace", ""]
    out += _table(["namespace", "equivalent", "divergent", "missing", "unknown", "total"],
                  [[f"`{n['namespace']}`", n["equivalent"], n["divergent"], n["missing"], n["unknown"], n["total"]] for n in data["namespaces"]])
    out += ["", "## Top missing APIs", ""]
    if data["top_missing"]:
        out += _table(["PyTorch API", "uses", "files", "first use", "note"],
                      [[f"`{r['torch_api']}`" + (" (inferred)" if r.get("basis") == "inferred" else ""), r["uses"], r["files"], _first(r, link), r["note"]] for r in data["top_missing"]])
    else:
        out.append("None: every judged API has a MindSpore counterpart.")
    out += ["", "## Top divergent APIs", ""]
    if data["top_divergent"]:
        out += _table(["PyTorch API", "MindSpore", "uses", "files", "what differs"],
                      [[f"`{r['torch_api']}`", f"`{r['mindspore_api']}`", r["uses"], r["files"], r["note"]] for r in data["top_divergent"]])
    else:
        out.append("None.")
    out += ["", "## Dynamic-shape hotspots", ""]
    if data["hotspots"]:
        out += _table(["file", "function", "findings", "codes"],
                      [[f"[{h['path']}:{h['line']}]({link(h['path'], h['line'])})", f"`{h['function']}`", h["findings"], ", ".join(f"{c} x{n}" for c, n in h["codes"].items())] for h in data["hotspots"]])
    else:
        out.append("None found.")
    if data["top_unknown"]:
        out += ["", "## Most used APIs msport has no rule for yet", ""]
        out += _table(["PyTorch API", "uses", "files", "first use"], [[f"`{r['torch_api']}`", r["uses"], r["files"], _first(r, link)] for r in data["top_unknown"]])
    out += ["", "## Files", ""]
    out += _table(["file", "lines", "equivalent", "divergent", "missing", "unknown", "dynamic shape", "readiness"], [
        [f"[{f['path']}]({link(f['path'], 0)})", f["lines"], f["uses"]["equivalent"], f["uses"]["divergent"], f["uses"]["missing"],
         f["uses"]["unknown"], f["dynamic_shape_findings"], percent(f["readiness"]) if not f["error"] else f"not checked: {f['error']}"]
        for f in data["files"]
    ])
    out += ["", "## Findings to act on", "", "Warnings and errors per file; equivalent renames (hints) are in the JSON and CSV formats.", ""]
    for f in data["files"]:
        shown = [x for x in f["findings"] if x["severity"] != "hint"]
        if not shown:
            continue
        out += [f"### {f['path']}", ""]
        out += [f"- [line {x['line']}]({link(f['path'], x['line'])}) {x['code']}: {_cell(x['message'])}" for x in shown]
        out.append("")
    out += ["## Definitions", ""]
    out += [f"- **{name}**: {text}" for name, text in data["definitions"].items()]
    return "\n".join(out) + "\n"
