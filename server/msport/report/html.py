"""The report as one self-contained HTML page: inline CSS and SVG, no script, no fetches.

Numbers carry ``data-metric`` / ``data-col`` attributes naming where they come from in the
JSON report, so a test can read the rendered page and check every figure against it.
"""

from __future__ import annotations

from html import escape
from typing import Callable, Dict, List, Optional

from . import chart
from .markdown import percent, settings_line, title

Linker = Callable[[str, int], str]

_CSS = """
:root { --eq: #2e7d32; --dv: #ef8c00; --ms: #c62828; --un: #9aa0a6; --ink: #1f2328; --mute: #59636e; --line: #d8dee4; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 -apple-system, "Segoe UI", "Noto Sans", "DejaVu Sans", Helvetica, Arial, sans-serif; color: var(--ink); background: #f6f8fa; }
main { max-width: 1120px; margin: 0 auto; padding: 28px 32px 48px; }
header h1 { font-size: 24px; margin: 0 0 4px; }
header p { margin: 0; color: var(--mute); }
.chips span { display: inline-block; border: 1px solid var(--line); background: #fff; border-radius: 999px; padding: 1px 10px; margin: 8px 6px 0 0; font-size: 12px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 18px 22px; margin-top: 18px; }
h2 { font-size: 17px; margin: 0 0 12px; }
.kpis { display: grid; grid-template-columns: 1.4fr repeat(5, 1fr); gap: 12px; margin-top: 18px; }
.kpi { background: #fff; border: 1px solid var(--line); border-radius: 10px; padding: 14px 16px; }
.kpi .value { font-size: 28px; font-weight: 700; line-height: 1.1; }
.kpi .label { color: var(--mute); font-size: 12px; margin-top: 4px; }
.kpi.readiness .value { font-size: 40px; color: var(--eq); }
.kpi.missing .value { color: var(--ms); } .kpi.divergent .value { color: var(--dv); }
.legend { display: flex; gap: 18px; flex-wrap: wrap; margin-top: 10px; font-size: 13px; }
.legend i { display: inline-block; width: 11px; height: 11px; border-radius: 2px; margin-right: 6px; vertical-align: -1px; }
.chart { display: block; }
.chart text { font-size: 13px; fill: var(--ink); font-family: inherit; }
.chart text.count { fill: var(--mute); }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { font-size: 12px; color: var(--mute); font-weight: 600; text-transform: uppercase; letter-spacing: .02em; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
code { font: 12.5px/1.4 ui-monospace, "DejaVu Sans Mono", Menlo, Consolas, monospace; }
a { color: #0b57d0; text-decoration: none; } a:hover { text-decoration: underline; }
.note { color: var(--mute); font-size: 13px; }
.why { color: var(--mute); font-size: 12.5px; display: -webkit-box; -webkit-line-clamp: 2; -webkit-box-orient: vertical; overflow: hidden; max-width: 720px; }
.meter { display: inline-block; width: 70px; height: 8px; background: #e8eaed; border-radius: 4px; vertical-align: middle; margin-right: 6px; overflow: hidden; }
.meter b { display: block; height: 100%; background: var(--eq); }
details summary { cursor: pointer; }
details ul { margin: 6px 0 4px; padding-left: 18px; }
details li { margin: 2px 0; }
.tag { font-size: 11px; color: var(--mute); border: 1px solid var(--line); border-radius: 4px; padding: 0 5px; margin-left: 4px; }
.sev-error { color: var(--ms); } .sev-warning { color: var(--dv); }
.empty { color: var(--mute); font-style: italic; }
footer { color: var(--mute); font-size: 12px; margin-top: 22px; }
footer dt { font-weight: 600; color: var(--ink); } footer dd { margin: 0 0 6px; }
"""


def _n(value: int) -> str:
    return f"{value:,}"


def _metric(path: str, text: str) -> str:
    return f'<span data-metric="{path}">{escape(text)}</span>'


def _kpi(cls: str, path: str, value: str, label: str) -> str:
    return f'<div class="kpi {cls}"><div class="value">{_metric(path, value)}</div><div class="label">{label}</div></div>'


def _meter(value: Optional[float]) -> str:
    if value is None:
        return '<span class="note">n/a</span>'
    return f'<span class="meter"><b style="width:{value * 100:.0f}%"></b></span><span data-col="readiness">{percent(value)}</span>'


def _first(row: Dict, link: Linker) -> str:
    first = row["first"]
    return f'<a href="{escape(link(first["path"], first["line"]))}">{escape(first["path"])}:{first["line"]}</a>'


def _basis(row: Dict) -> str:
    if row.get("basis") != "inferred":
        return ""
    return ' <span class="tag" title="No official mapping table lists it; msport judged it from the snapshots of the real packages">inferred</span>'


def _top_table(rows: List[Dict], link: Linker, kind: str) -> str:
    if not rows:
        return '<p class="empty">None.</p>'
    head = "<tr><th>PyTorch API</th>" + ("<th>MindSpore</th>" if kind == "divergent" else "") + '<th class="n">uses</th><th class="n">files</th><th>first use</th></tr>'
    body = []
    for r in rows:
        target = f"<td><code>{escape(r.get('mindspore_api') or '')}</code></td>" if kind == "divergent" else ""
        note = f'<div class="why" title="{escape(r["note"])}">{escape(r["note"])}</div>' if r.get("note") else ""
        body.append(
            f'<tr data-api="{escape(r["torch_api"])}"><td><code>{escape(r["torch_api"])}</code>{_basis(r)}{note}</td>{target}'
            f'<td class="n" data-col="uses">{_n(r["uses"])}</td><td class="n" data-col="files">{_n(r["files"])}</td><td>{_first(r, link)}</td></tr>'
        )
    return f'<table data-table="top_{kind}">{head}{"".join(body)}</table>'


def _hotspots(rows: List[Dict], link: Linker) -> str:
    if not rows:
        return '<p class="empty">No dynamic-shape findings.</p>'
    body = "".join(
        f'<tr data-hotspot="{escape(h["path"])}::{escape(h["function"])}"><td><a href="{escape(link(h["path"], h["line"]))}">{escape(h["path"])}:{h["line"]}</a></td>'
        f'<td><code>{escape(h["function"])}</code></td><td class="n" data-col="findings">{_n(h["findings"])}</td>'
        f'<td>{escape(", ".join(f"{c} x{n}" for c, n in h["codes"].items()))}</td></tr>'
        for h in rows
    )
    return f'<table data-table="hotspots"><tr><th>file</th><th>function</th><th class="n">findings</th><th>codes</th></tr>{body}</table>'


def _files(rows: List[Dict], link: Linker, statuses) -> str:
    ordered = sorted(rows, key=lambda f: (-(f["uses"]["missing"] + f["dynamic_shape_findings"]), -f["uses"]["divergent"], f["path"]))
    body = []
    for f in ordered:
        u = f["uses"]
        acted = [x for x in f["findings"] if x["severity"] != "hint"]
        hints = len(f["findings"]) - len(acted)
        items = "".join(
            f'<li><a href="{escape(link(f["path"], x["line"]))}">line {x["line"]}</a> '
            f'<b class="sev-{x["severity"]}">{x["code"]}</b> {escape(x["message"])}</li>'
            for x in acted
        )
        if hints:
            items += f'<li class="note">and {hints} equivalent rename{"s" * (hints != 1)} (hints; see the JSON or CSV report)</li>'
        cell = f'<a href="{escape(link(f["path"], 0))}">{escape(f["path"])}</a>'
        if items:
            cell = f"<details><summary>{cell}</summary><ul>{items}</ul></details>"
        readiness = f'<span class="sev-error">not checked: {escape(f["error"])}</span>' if f["error"] else _meter(f["readiness"])
        body.append(
            f'<tr data-file="{escape(f["path"])}"><td>{cell}</td><td class="n" data-col="lines">{_n(f["lines"])}</td>'
            + "".join(f'<td class="n" data-col="{s}">{_n(u[s])}</td>' for s in statuses)
            + f'<td class="n" data-col="dynamic">{_n(f["dynamic_shape_findings"])}</td><td>{readiness}</td></tr>'
        )
    head = ('<tr><th>file</th><th class="n">lines</th>' + "".join(f'<th class="n">{s}</th>' for s in statuses)
            + '<th class="n">dynamic shape</th><th>readiness</th></tr>')
    return f'<table data-table="files">{head}{"".join(body)}</table>'


def render(data: Dict, link: Linker) -> str:
    s = data["summary"]
    uses = s["uses"]
    # "unknown" (a real torch API without any rule) only shows when there are such uses.
    statuses = ("equivalent", "divergent", "missing") + (("unknown",) if uses["unknown"] else ())
    labels = {"unknown": "unknown (no rule yet)"}
    legend = "".join(
        f'<span><i style="background:{chart.COLORS[st]}"></i>{labels.get(st, st)} {_metric(f"summary.uses.{st}", _n(uses[st]))}</span>'
        for st in statuses
    )
    kpis = "".join([
        _kpi("readiness", "summary.readiness", percent(s["readiness"]), f'readiness: equivalent share of {_n(uses["judged"])} judged PyTorch API uses'),
        _kpi("", "summary.files_scanned", _n(s["files_scanned"]), f'files scanned ({_n(s["lines"])} lines)'),
        _kpi("", "summary.uses.judged", _n(uses["judged"]), "judged PyTorch API uses"),
        _kpi("missing", "summary.distinct_apis.missing", _n(s["distinct_apis"]["missing"]), f'missing APIs ({_n(uses["missing"])} uses)'),
        _kpi("divergent", "summary.distinct_apis.divergent", _n(s["distinct_apis"]["divergent"]), f'divergent APIs ({_n(uses["divergent"])} uses)'),
        _kpi("", "summary.dynamic_shape_findings", _n(s["dynamic_shape_findings"]), f'dynamic-shape findings in {_n(s["dynamic_shape_functions"])} functions'),
    ])
    errors = ""
    if s["files_with_errors"]:
        errors = f'<p class="sev-error">{_metric("summary.files_with_errors", _n(s["files_with_errors"]))} files could not be checked (see the file table).</p>'
    definitions = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in data["definitions"].items())
    unknown = ""
    if data["top_unknown"]:
        unknown = f'<section><h2>Most used APIs msport has no rule for yet</h2><p class="note">Not counted in readiness; look them up in the official mapping table.</p>{_top_table(data["top_unknown"], link, "unknown")}</section>'
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title(data))}</title><style>{_CSS}</style></head>
<body><main>
<header><h1>{escape(title(data))}</h1>
<p>{escape(settings_line(data))}. Generated {escape(data["generated"])} by msport {escape(data["tool"]["version"])}.</p>
<div class="chips"><span>root: {escape(data["root"])}</span><span>{_n(uses["total"])} PyTorch API uses</span><span>{_n(s["findings"]["total"])} findings</span></div></header>
<div class="kpis">{kpis}</div>
{errors}
<section><h2>PyTorch API uses by status</h2>{chart.status_bar(uses)}<div class="legend">{legend}</div></section>
<section><h2>By namespace</h2>{chart.namespace_bars(data["namespaces"])}</section>
<section><h2>Top missing APIs</h2><p class="note">No counterpart in the target version and backend: each needs a replacement, a composition of MindSpore APIs or a custom operator.</p>{_top_table(data["top_missing"], link, "missing")}</section>
<section><h2>Top divergent APIs</h2><p class="note">A counterpart exists but behaves differently: port with the difference in mind.</p>{_top_table(data["top_divergent"], link, "divergent")}</section>
<section><h2>Dynamic-shape hotspots</h2><p class="note">Functions whose shapes depend on tensor data: static graphs on Ascend (jit level O2) cannot compile them as written.</p>{_hotspots(data["hotspots"], link)}</section>
{unknown}
<section><h2>Files</h2><p class="note">Most work first; open a file to see its findings with links to the lines.</p>{_files(data["files"], link, statuses)}</section>
<footer><dl>{definitions}</dl></footer>
</main></body></html>
"""
