"""The report page's charts as plain SVG, written here: a bar per row (executions per program, per class, per
trigger) and columns over a range (executions per list, per range of primary records), with the findings that fell
in a column marked above it.

Why plain SVG and not a charting library: the page must open offline, attached to a bug, in any browser, and a
reader may have scripts off; the charts needed are bar charts, which SVG draws without a line of script; the text
of every bar (its ``<title>``, its ``data-`` attributes) is in the document, where a browser's search, a screen
reader and a test find it; and nothing is vendored into the package to keep up to date.

Every bar is a ``<rect class="bar">`` with ``data-label`` and ``data-count``; a finding marker is a
``<path class="marker">`` with ``data-findings``.  Sizes are in the SVG's own units (``viewBox``); the chart scales
to the page's width.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from html import escape

__all__ = ["Column", "Row", "columns_chart", "rows_chart"]

#: the width of every chart, in its own units
WIDTH = 720
_LABEL = 200  # room for a row's label
_ROW = 18  # height of a row
_FONT = 11
#: the widest column of a columns chart (a chart of few columns is narrow, not a wall)
MAX_COLUMN = 48
#: characters of a label shown (the whole label is in the bar's title)
LABEL_CHARS = 30


@dataclass(frozen=True)
class Row:
    """One bar of a rows chart: ``label`` and its ``count``."""

    label: str
    count: int


@dataclass(frozen=True)
class Column:
    """One column of a columns chart: ``label`` (its range: ``records 0-4095``), its ``count``, and the findings
    that fell in it (``findings``, drawn as a marker above it)."""

    label: str
    count: int
    findings: int = 0


def _short(text: str, n: int = LABEL_CHARS) -> str:
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _num(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def rows_chart(chart_id: str, title: str, rows: Sequence[Row], unit: str = "executions") -> str:
    """A horizontal bar per row, longest first as given, with its count at its end."""
    top = max((r.count for r in rows), default=0) or 1
    height = _ROW * len(rows) + 8
    room = WIDTH - _LABEL - 90
    parts = [f'<svg class="chart rows" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {height}" role="img" '
             f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">']
    for i, r in enumerate(rows):
        y = 4 + i * _ROW
        w = max(1.0, room * r.count / top) if r.count else 0.0
        parts.append(f'<text class="label" x="{_LABEL - 6}" y="{y + 13}" text-anchor="end" '
                     f'font-size="{_FONT}">{escape(_short(r.label))}</text>')
        parts.append(f'<rect class="bar" x="{_LABEL}" y="{y + 2}" width="{_num(w)}" height="{_ROW - 4}" '
                     f'data-label="{escape(r.label)}" data-count="{r.count}"><title>{escape(r.label)}: '
                     f'{r.count:,} {unit}</title></rect>')
        parts.append(f'<text class="value" x="{_num(_LABEL + w + 4)}" y="{y + 13}" font-size="{_FONT}">'
                     f'{r.count:,}</text>')
    parts.append("</svg>")
    return "".join(parts)


def columns_chart(chart_id: str, title: str, columns: Sequence[Column], *, first: str, last: str,
                  unit: str = "executions") -> str:
    """A column per range, left to right, the axis labelled ``first`` and ``last`` below its ends, the highest
    count at its top; a red marker above every column with findings, their number above it."""
    top = max((c.count for c in columns), default=0) or 1
    plot_h, left, margin = 150, 56, 26  # (the top margin holds the finding markers and their numbers)
    base = margin + plot_h
    height = base + 30
    step = min((WIDTH - left - 8) / max(len(columns), 1), MAX_COLUMN)
    end = left + step * len(columns)
    gap = min(2.0, step / 5)
    parts = [f'<svg class="chart columns" id="{escape(chart_id)}" viewBox="0 0 {WIDTH} {height}" role="img" '
             f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">',
             f'<line class="axis" x1="{left}" y1="{base}" x2="{_num(end)}" y2="{base}"/>',
             f'<text class="tick" x="{left - 4}" y="{margin + 4}" text-anchor="end" font-size="{_FONT}">{top:,}</text>',
             f'<text class="tick" x="{left - 4}" y="{base}" text-anchor="end" font-size="{_FONT}">0</text>']
    for i, c in enumerate(columns):
        x = left + i * step
        h = max(1.0, plot_h * c.count / top) if c.count else 0.0
        y = base - h
        parts.append(f'<rect class="bar" x="{_num(x + gap / 2)}" y="{_num(y)}" width="{_num(step - gap)}" '
                     f'height="{_num(h)}" data-label="{escape(c.label)}" data-count="{c.count}"><title>'
                     f'{escape(c.label)}: {c.count:,} {unit}</title></rect>')
        if c.findings:
            mx, my = x + step / 2, y - 3
            parts.append(f'<path class="marker" d="M{_num(mx - 4)},{_num(my - 7)} L{_num(mx + 4)},{_num(my - 7)} '
                         f'L{_num(mx)},{_num(my)} Z" data-label="{escape(c.label)}" data-findings="{c.findings}">'
                         f'<title>{escape(c.label)}: {c.findings:,} finding{"s" if c.findings != 1 else ""}'
                         f'</title></path>')
            parts.append(f'<text class="mark-count" x="{_num(mx)}" y="{_num(my - 9)}" text-anchor="middle" '
                         f'font-size="{_FONT - 2}">{c.findings:,}</text>')
    parts.append(f'<text class="tick" x="{left}" y="{height - 8}" font-size="{_FONT}">{escape(first)}</text>')
    parts.append(f'<text class="tick" x="{_num(max(end, left + 200))}" y="{height - 8}" text-anchor="end" '
                 f'font-size="{_FONT}">{escape(last)}</text>')
    parts.append("</svg>")
    return "".join(parts)
