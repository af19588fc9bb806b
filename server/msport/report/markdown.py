"""The report as Markdown: readable in a terminal, a merge request or a wiki."""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Callable, Dict, List, Optional, Sequence

from ..knowledge.messages import DEFAULT_LANGUAGE, message

Linker = Callable[[str, int], str]
_BACKENDS = {"ascend": "Ascend", "gpu": "GPU", "cpu": "CPU"}


def language(data: Dict) -> str:
    """The language the report was made in (reports made before it was recorded: English)."""
    return data["settings"].get("language", DEFAULT_LANGUAGE)


def percent(value: Optional[float], lang: str = DEFAULT_LANGUAGE) -> str:
    return message("report.not_available", lang) if value is None else f"{value * 100:.0f}%"


def settings_line(data: Dict) -> str:
    s, lang = data["settings"], language(data)
    mode = message(f"report.mode.{s['mode']}", lang) if s["mode"] in ("graph", "pynative") else s["mode"]
    return message("report.settings", lang, version=s["target_version"], backend=_BACKENDS.get(s["backend"], s["backend"]), mode=mode, jit_level=s["jit_level"])


def generated_line(data: Dict) -> str:
    return message("report.generated", language(data), settings=settings_line(data), when=data["generated"], version=data["tool"]["version"])


def title(data: Dict) -> str:
    return message("report.title", language(data), name=PurePosixPath(data["root"]).name or data["root"])


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
    lang = language(data)

    def t(key: str, **arguments) -> str:
        return message(f"report.{key}", lang, **arguments)

    def columns(*names: str) -> List[str]:
        return [t(f"column.{n}") for n in names]

    summary = data["summary"]
    uses, distinct = summary["uses"], summary["distinct_apis"]
    out: List[str] = [f"# {title(data)}", "", generated_line(data), ""]
    out.append(t("readiness", readiness=percent(summary["readiness"], lang), judged=uses["judged"], equivalent=uses["equivalent"],
                 divergent=uses["divergent"], missing=uses["missing"], unknown=uses["unknown"]))
    out += ["", t("scanned", files=summary["files_scanned"], lines=summary["lines"], errors=summary["files_with_errors"],
                  dynamic=summary["dynamic_shape_findings"], functions=summary["dynamic_shape_functions"]), ""]
    out += _table(columns("status", "uses", "distinct"), [
        [t(f"status.{status}"), uses[status], distinct[status]] for status in ("equivalent", "divergent", "missing", "unknown", "total")
    ])
    # The wide tables name "unknown" short; the status table above explains it.
    statuses = [t(f"status.{s}") for s in ("equivalent", "divergent", "missing")] + [t("column.unknown"), t("status.total")]
    out += ["", f"## {t('section.by_namespace')}", ""]
    out += _table([t("column.namespace")] + statuses,
                  [[f"`{n['namespace']}`", n["equivalent"], n["divergent"], n["missing"], n["unknown"], n["total"]] for n in data["namespaces"]])
    out += ["", f"## {t('section.missing')}", ""]
    if data["top_missing"]:
        out += _table(columns("torch_api", "uses", "files", "first_use", "note"),
                      [[f"`{r['torch_api']}`" + (t("inferred_suffix") if r.get("basis") == "inferred" else ""), r["uses"], r["files"], _first(r, link), r["note"]] for r in data["top_missing"]])
    else:
        out.append(t("none.missing"))
    out += ["", f"## {t('section.divergent')}", ""]
    if data["top_divergent"]:
        out += _table(columns("torch_api", "mindspore_api", "uses", "files", "difference"),
                      [[f"`{r['torch_api']}`", f"`{r['mindspore_api']}`", r["uses"], r["files"], r["note"]] for r in data["top_divergent"]])
    else:
        out.append(t("none.rows"))
    out += ["", f"## {t('section.hotspots')}", ""]
    if data["hotspots"]:
        out += _table(columns("file", "function", "findings", "codes"),
                      [[f"[{h['path']}:{h['line']}]({link(h['path'], h['line'])})", f"`{h['function']}`", h["findings"], ", ".join(f"{c} x{n}" for c, n in h["codes"].items())] for h in data["hotspots"]])
    else:
        out.append(t("none.hotspots"))
    if data["top_unknown"]:
        out += ["", f"## {t('section.unknown')}", ""]
        out += _table(columns("torch_api", "uses", "files", "first_use"), [[f"`{r['torch_api']}`", r["uses"], r["files"], _first(r, link)] for r in data["top_unknown"]])
    out += ["", f"## {t('section.files')}", ""]
    out += _table([t("column.file"), t("column.lines")] + statuses[:4] + [t("column.dynamic"), t("column.readiness")], [
        [f"[{f['path']}]({link(f['path'], 0)})", f["lines"], f["uses"]["equivalent"], f["uses"]["divergent"], f["uses"]["missing"],
         f["uses"]["unknown"], f["dynamic_shape_findings"], percent(f["readiness"], lang) if not f["error"] else t("not_checked", error=f["error"])]
        for f in data["files"]
    ])
    out += ["", f"## {t('section.findings')}", "", t("section.findings_note"), ""]
    for f in data["files"]:
        shown = [x for x in f["findings"] if x["severity"] != "hint"]
        if not shown:
            continue
        out += [f"### {f['path']}", ""]
        out += [f"- [{t('line', line=x['line'])}]({link(f['path'], x['line'])}) {x['code']}: {_cell(x['message'])}" for x in shown]
        out.append("")
    out += [f"## {t('section.definitions')}", ""]
    out += [f"- **{t(f'term.{name}')}**: {text}" for name, text in data["definitions"].items()]
    return "\n".join(out) + "\n"
