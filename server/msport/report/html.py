"""The report as one self-contained HTML page: inline CSS and SVG, no script, no fetches.

Numbers carry ``data-metric`` / ``data-col`` attributes naming where they come from in the
JSON report, so a test can read the rendered page and check every figure against it.
"""

from __future__ import annotations

from html import escape
from typing import Callable, Dict, List, Optional

from . import chart
from ..knowledge.messages import message
from .markdown import generated_line, language, percent, title

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


def _meter(value: Optional[float], lang: str) -> str:
    if value is None:
        return f'<span class="note">{escape(percent(value, lang))}</span>'
    return f'<span class="meter"><b style="width:{value * 100:.0f}%"></b></span><span data-col="readiness">{percent(value)}</span>'


def _first(row: Dict, link: Linker) -> str:
    first = row["first"]
    return f'<a href="{escape(link(first["path"], first["line"]))}">{escape(first["path"])}:{first["line"]}</a>'


def _basis(row: Dict, lang: str) -> str:
    if row.get("basis") != "inferred":
        return ""
    return f' <span class="tag" title="{escape(message("report.inferred_why", lang))}">{escape(message("report.inferred", lang))}</span>'


def _heading(text: str, numeric: bool = False) -> str:
    return ('<th class="n">' if numeric else "<th>") + escape(text) + "</th>"


def _column(name: str, lang: str, numeric: bool = False) -> str:
    return _heading(message(f"report.column.{name}", lang), numeric)


def _status_column(status: str, lang: str) -> str:
    """A status as the wide tables head it ("unknown" short: the legend explains it)."""
    return _column("unknown", lang, True) if status == "unknown" else _heading(message(f"report.status.{status}", lang), True)


def _top_table(rows: List[Dict], link: Linker, kind: str, lang: str) -> str:
    if not rows:
        return f'<p class="empty">{escape(message("report.none.rows", lang))}</p>'
    head = ("<tr>" + _column("torch_api", lang) + (_column("mindspore_api", lang) if kind == "divergent" else "")
            + _column("uses", lang, True) + _column("files", lang, True) + _column("first_use", lang) + "</tr>")
    body = []
    for r in rows:
        target = f"<td><code>{escape(r.get('mindspore_api') or '')}</code></td>" if kind == "divergent" else ""
        note = f'<div class="why" title="{escape(r["note"])}">{escape(r["note"])}</div>' if r.get("note") else ""
        body.append(
            f'<tr data-api="{escape(r["torch_api"])}"><td><code>{escape(r["torch_api"])}</code>{_basis(r, lang)}{note}</td>{target}'
            f'<td class="n" data-col="uses">{_n(r["uses"])}</td><td class="n" data-col="files">{_n(r["files"])}</td><td>{_first(r, link)}</td></tr>'
        )
    return f'<table data-table="top_{kind}">{head}{"".join(body)}</table>'


def _hotspots(rows: List[Dict], link: Linker, lang: str) -> str:
    if not rows:
        return f'<p class="empty">{escape(message("report.none.hotspots", lang))}</p>'
    body = "".join(
        f'<tr data-hotspot="{escape(h["path"])}::{escape(h["function"])}"><td><a href="{escape(link(h["path"], h["line"]))}">{escape(h["path"])}:{h["line"]}</a></td>'
        f'<td><code>{escape(h["function"])}</code></td><td class="n" data-col="findings">{_n(h["findings"])}</td>'
        f'<td>{escape(", ".join(f"{c} x{n}" for c, n in h["codes"].items()))}</td></tr>'
        for h in rows
    )
    head = _column("file", lang) + _column("function", lang) + _column("findings", lang, True) + _column("codes", lang)
    return f'<table data-table="hotspots"><tr>{head}</tr>{body}</table>'


def _files(rows: List[Dict], link: Linker, statuses, lang: str) -> str:
    ordered = sorted(rows, key=lambda f: (-(f["uses"]["missing"] + f["dynamic_shape_findings"]), -f["uses"]["divergent"], f["path"]))
    body = []
    for f in ordered:
        u = f["uses"]
        acted = [x for x in f["findings"] if x["severity"] != "hint"]
        hints = len(f["findings"]) - len(acted)
        items = "".join(
            f'<li><a href="{escape(link(f["path"], x["line"]))}">{escape(message("report.line", lang, line=x["line"]))}</a> '
            f'<b class="sev-{x["severity"]}">{x["code"]}</b> {escape(x["message"])}</li>'
            for x in acted
        )
        if hints:
            items += f'<li class="note">{escape(message("report.more_hints", lang, count=hints))}</li>'
        cell = f'<a href="{escape(link(f["path"], 0))}">{escape(f["path"])}</a>'
        if items:
            cell = f"<details><summary>{cell}</summary><ul>{items}</ul></details>"
        readiness = (f'<span class="sev-error">{escape(message("report.not_checked", lang, error=f["error"]))}</span>' if f["error"]
                     else _meter(f["readiness"], lang))
        body.append(
            f'<tr data-file="{escape(f["path"])}"><td>{cell}</td><td class="n" data-col="lines">{_n(f["lines"])}</td>'
            + "".join(f'<td class="n" data-col="{s}">{_n(u[s])}</td>' for s in statuses)
            + f'<td class="n" data-col="dynamic">{_n(f["dynamic_shape_findings"])}</td><td>{readiness}</td></tr>'
        )
    head = ("<tr>" + _column("file", lang) + _column("lines", lang, True)
            + "".join(_status_column(s, lang) for s in statuses)
            + _column("dynamic", lang, True) + _column("readiness", lang) + "</tr>")
    return f'<table data-table="files">{head}{"".join(body)}</table>'


def render(data: Dict, link: Linker) -> str:
    lang = language(data)

    def t(key: str, **arguments) -> str:
        return escape(message(f"report.{key}", lang, **arguments))

    s = data["summary"]
    uses = s["uses"]
    # "unknown" (a real torch API without any rule) only shows when there are such uses.
    statuses = ("equivalent", "divergent", "missing") + (("unknown",) if uses["unknown"] else ())
    legend = "".join(
        f'<span><i style="background:{chart.COLORS[st]}"></i>{t(f"status.{st}")} {_metric(f"summary.uses.{st}", _n(uses[st]))}</span>'
        for st in statuses
    )
    kpis = "".join([
        _kpi("readiness", "summary.readiness", percent(s["readiness"], lang), t("kpi.readiness", judged=_n(uses["judged"]))),
        _kpi("", "summary.files_scanned", _n(s["files_scanned"]), t("kpi.files", lines=_n(s["lines"]))),
        _kpi("", "summary.uses.judged", _n(uses["judged"]), t("kpi.judged")),
        _kpi("missing", "summary.distinct_apis.missing", _n(s["distinct_apis"]["missing"]), t("kpi.missing", uses=_n(uses["missing"]))),
        _kpi("divergent", "summary.distinct_apis.divergent", _n(s["distinct_apis"]["divergent"]), t("kpi.divergent", uses=_n(uses["divergent"]))),
        _kpi("", "summary.dynamic_shape_findings", _n(s["dynamic_shape_findings"]), t("kpi.dynamic", functions=_n(s["dynamic_shape_functions"]))),
    ])
    errors = ""
    if s["files_with_errors"]:
        # The count is an element: escape the sentence around it, not the element.
        sentence = t("files_with_errors", count="\0").replace("\0", _metric("summary.files_with_errors", _n(s["files_with_errors"])))
        errors = f'<p class="sev-error">{sentence}</p>'
    definitions = "".join(f"<dt>{t(f'term.{k}')}</dt><dd>{escape(v)}</dd>" for k, v in data["definitions"].items())
    unknown = ""
    if data["top_unknown"]:
        unknown = f'<section><h2>{t("section.unknown")}</h2><p class="note">{t("section.unknown_note")}</p>{_top_table(data["top_unknown"], link, "unknown", lang)}</section>'
    status_label, namespace_label = message("report.section.by_status", lang), message("report.section.by_namespace", lang)
    names = {status: message(f"report.status.{status}", lang) for status in chart.ORDER}
    return f"""<!DOCTYPE html>
<html lang="{escape(lang)}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title(data))}</title><style>{_CSS}</style></head>
<body><main>
<header><h1>{escape(title(data))}</h1>
<p>{escape(generated_line(data))}</p>
<div class="chips"><span>{t("chip.root", root=data["root"])}</span><span>{t("chip.uses", uses=_n(uses["total"]))}</span><span>{t("chip.findings", findings=_n(s["findings"]["total"]))}</span></div></header>
<div class="kpis">{kpis}</div>
{errors}
<section><h2>{escape(status_label)}</h2>{chart.status_bar(uses, status_label, names)}<div class="legend">{legend}</div></section>
<section><h2>{escape(namespace_label)}</h2>{chart.namespace_bars(data["namespaces"], namespace_label, names)}</section>
<section><h2>{t("section.missing")}</h2><p class="note">{t("section.missing_note")}</p>{_top_table(data["top_missing"], link, "missing", lang)}</section>
<section><h2>{t("section.divergent")}</h2><p class="note">{t("section.divergent_note")}</p>{_top_table(data["top_divergent"], link, "divergent", lang)}</section>
<section><h2>{t("section.hotspots")}</h2><p class="note">{t("section.hotspots_note")}</p>{_hotspots(data["hotspots"], link, lang)}</section>
{unknown}
<section><h2>{t("section.files")}</h2><p class="note">{t("section.files_note")}</p>{_files(data["files"], link, statuses, lang)}</section>
<footer><dl>{definitions}</dl></footer>
</main></body></html>
"""
