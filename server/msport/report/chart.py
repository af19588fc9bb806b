"""Inline SVG charts for the HTML report (no script, no external file)."""

from __future__ import annotations

from html import escape
from typing import Dict, List, Mapping, Sequence

COLORS = {"equivalent": "#2e7d32", "divergent": "#ef8c00", "missing": "#c62828", "unknown": "#9aa0a6"}
ORDER = ("equivalent", "divergent", "missing", "unknown")


def _segments(counts: Dict[str, int], x: float, y: float, width: float, height: float, scale_total: int, names: Mapping[str, str]) -> List[str]:
    parts = []
    for status in ORDER:
        n = counts.get(status, 0)
        if not n or not scale_total:
            continue
        w = width * n / scale_total
        parts.append(
            f'<rect x="{x:.2f}" y="{y:.2f}" width="{w:.2f}" height="{height:.2f}" fill="{COLORS[status]}" '
            f'data-status="{status}" data-count="{n}"><title>{escape(names.get(status, status))}: {n}</title></rect>'
        )
        x += w
    return parts


def status_bar(counts: Dict[str, int], label: str, names: Mapping[str, str], width: int = 1000, height: int = 34) -> str:
    """One bar split by status, the whole width being every use; *label* names the chart and
    *names* the statuses, in the report's language."""
    total = sum(counts.get(s, 0) for s in ORDER)
    body = _segments(counts, 0, 0, width, height, total, names) or [f'<rect width="{width}" height="{height}" fill="#e8eaed"/>']
    return (
        f'<svg class="chart" data-chart="status" viewBox="0 0 {width} {height}" width="100%" preserveAspectRatio="none" '
        f'role="img" aria-label="{escape(label)}">{"".join(body)}</svg>'
    )


def namespace_bars(rows: Sequence[Dict], label: str, names: Mapping[str, str], limit: int = 12, width: int = 1000) -> str:
    """One stacked bar per namespace, lengths to one scale, counts at the end."""
    rows = list(rows)[:limit]
    label_w, count_w, row_h, bar_h = 260, 70, 30, 18
    bar_w = width - label_w - count_w
    largest = max((r["total"] for r in rows), default=0)
    height = max(row_h * len(rows), row_h)
    parts = []
    for i, row in enumerate(rows):
        y = i * row_h
        parts.append(f'<text x="{label_w - 10}" y="{y + row_h / 2 + 5:.1f}" text-anchor="end" class="ns">{escape(row["namespace"])}</text>')
        parts.append(f'<g data-namespace="{escape(row["namespace"])}">')
        parts += _segments(row, label_w, y + (row_h - bar_h) / 2, bar_w, bar_h, largest, names)
        parts.append("</g>")
        end = label_w + bar_w * row["total"] / largest + 8 if largest else label_w
        parts.append(f'<text x="{end:.1f}" y="{y + row_h / 2 + 5:.1f}" class="count">{row["total"]}</text>')
    return (
        f'<svg class="chart" data-chart="namespaces" viewBox="0 0 {width} {height}" width="100%" '
        f'role="img" aria-label="{escape(label)}">{"".join(parts)}</svg>'
    )
