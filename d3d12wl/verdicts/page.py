"""The page of one captured call: one self-contained HTML file, readable offline and attachable to a bug.

It shows, in order:

1. the verdict (findings by severity) and the call: its arguments, the device, the command-list state, the GPU
   memory regions;
2. the objects (program command signatures with their arguments named as the records name them, work list
   signatures, programs, command signatures, root signatures);
3. charts (:mod:`d3d12wl.verdicts.svg`) of the executions per program, per executable class and dispatch trigger,
   per list, and per range of primary records (of commands), with the findings marked over the ranges
   (:mod:`d3d12wl.verdicts.tally`);
4. the findings: by kind, then each of the first ``limit`` with the bytes of the record it concerns as an annotated
   hex view, the fields named as the layout names them (the user's ``Name`` s) and the field the finding is about
   marked (:mod:`d3d12wl.verdicts.record_bytes`);
5. the first ``limit`` executions as a table, with a note of how many were left out; the end-of-call reset.

No script, no style sheet, font or image from elsewhere: a ``Content-Security-Policy`` forbids every fetch, and the
page is what the browser renders without running anything.  Its size is bounded whatever the frame: every list on
it is cut at a bound (:data:`NAMES`, :data:`ROWS`, ``limit``, the bars of a chart) and says what it left out; no
part of it grows with the number of executions.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from html import escape
from typing import Any

from d3d12wl import abi
from d3d12wl._version import __version__
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor.output import verdict
from d3d12wl.executor.trace import Execution, Finding, Trace
from d3d12wl.model.fieldnames import field_name
from d3d12wl.records.layout import command_layout, laying_out_once, pcs_layout
from d3d12wl.verdicts.record_bytes import ROW, RecordBytes, finding_record
from d3d12wl.verdicts.svg import Column, Row, columns_chart, rows_chart
from d3d12wl.verdicts.tally import Tally, tally

__all__ = ["DEFAULT_LIMIT", "NAMES", "PageInput", "ROWS", "build_page"]

#: executions and findings shown by default (``--limit``)
DEFAULT_LIMIT = 100
#: names listed per collection of objects, memory regions, lists, reset entries
NAMES = 64
#: bars of a rows chart (the rest summed in one more)
ROWS = 24
#: columns of a columns chart
COLUMNS = 64
#: characters of one text cell (a name, a message)
CELL = 400
#: colours of the fields of a hex view, cycled
PALETTE = 8


@dataclass
class PageInput:
    """What a page is made of: the capture (``memory``, ``objects``, ``device``, ``state``, ``call``), its
    ``trace``, the ``source`` it was read from (a path, shown as the page's title), how many executions and
    findings to show (``limit``) and, where known, how long loading and executing took (seconds)."""

    capture: Any
    trace: Trace
    source: str
    limit: int = DEFAULT_LIMIT
    load_s: float | None = None
    execute_s: float | None = None


def _t(value: object, n: int = CELL) -> str:
    text = str(value)
    return escape(text if len(text) <= n else text[: n - 1] + "\u2026")


def _int(value: int) -> str:
    return f"{value:,}" if value < 0x10000 else f"{value:,} (0x{value:x})"


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}{'' if n == 1 else 's'}"


def _table(headers: Sequence[str] | None, rows: Iterable[Sequence[str]], cls: str = "") -> str:
    """An HTML table (no header row for None); cells are HTML already (escape text with :func:`_t`)."""
    if headers is None:
        body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
        return f'<table class="{cls}"><tbody>{body}</tbody></table>'
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _left(shown: int, total: int, what: str, how: str = "") -> str:
    if total <= shown:
        return ""
    return f'<p class="left-out">{shown:,} of {total:,} {what} shown; {total - shown:,} left out{how}.</p>'


# -- 1. the verdict and the call -----------------------------------------------------------------------------------


def _verdict(trace: Trace) -> str:
    v = verdict(trace)
    by = v["findings_by_severity"]
    errors = by.get("error", 0)
    parts = [_plural(by.get(s, 0), s) for s in ("error", "warning", "info") if by.get(s)]
    text = ("FAIL: " if errors else "PASS: ") + (", ".join(parts) if parts else "no findings")
    if trace.findings_suppressed:
        text += f", {trace.findings_suppressed:,} more suppressed (--max-findings)"
    if trace.stopped_reason:
        text += f"; the call stopped: {trace.stopped_reason}"
    cls = "fail" if errors else "pass"
    return f'<p class="verdict {cls}" id="verdict">{_t(text)}</p>'


def _call(p: PageInput) -> str:
    cap, trace = p.capture, p.trace
    rows = [("call", _t(trace.call))]
    for key, value in trace.call_args.items():
        rows.append((_t(key), _int(value) if isinstance(value, int) and not isinstance(value, bool) else _t(value)))
    device = cap.device
    rows.append(("device", _t(f"Work Lists tier {abi.enum_text('D3D12_WORK_LISTS_TIER', device.Tier)}, DispatchRaysSupported "
                             f"{str(bool(device.DispatchRaysSupported)).upper()}, Max1DDispatchSize "
                             f"{device.Max1DDispatchSize:,}")))
    state = cap.state
    rows.append(("command list", _t(f"{abi.enum_text('D3D12_COMMAND_LIST_TYPE', state.command_list_type)}"
                                    f"{', inside a render pass' if state.in_render_pass else ''}")))
    for label, rs in (("graphics root signature", state.graphics_root_signature),
                      ("compute root signature", state.compute_root_signature)):
        if rs is not None:
            rows.append((label, _t(rs.name)))
    if state.program is not None:
        rows.append(("SetProgram", _t(abi.enum_text("D3D12_PROGRAM_TYPE", state.program.Type))))
    if p.load_s is not None and p.execute_s is not None:
        rows.append(("time", _t(f"loaded in {p.load_s:.3f} s, executed in {p.execute_s:.3f} s")))
    call = _table(None, rows, "kv")
    regions = cap.memory.regions
    shown = regions[:NAMES]
    memory = _table(("region", "base", "bytes", "from"),
                    ((_t(r.name or "-"), f"0x{r.base:x}", f"{r.size:,}", _t(r.source)) for r in shown))
    return (f'<section id="call"><h2>The call</h2>{call}<h3>GPU memory</h3>{memory}'
            f'{_left(len(shown), len(regions), "regions")}</section>')


# -- 2. the objects ------------------------------------------------------------------------------------------------


def _names(values: Iterable[str]) -> str:
    values = list(values)
    shown = ", ".join(_t(v, 80) for v in values[:NAMES])
    return shown + (f" and {len(values) - NAMES:,} more" if len(values) > NAMES else "")


def _objects(p: PageInput) -> str:
    objects = p.capture.objects
    parts = ['<section id="objects"><h2>The objects</h2>']
    rows: list[tuple[str, ...]] = []
    for pcs in list(objects.program_command_signatures.values())[:NAMES]:
        try:
            layout = pcs_layout(pcs)
            kind = f"{layout.executable_class.name}, {layout.record_kind.value}"
            sizes = (f"primary {layout.primary.size} B" +
                     (f", secondary {layout.secondary.size} B at stride {pcs.SecondaryRecordByteStride}"
                      if layout.secondary is not None else ""))
        except D3D12WLError as exc:
            kind, sizes = "no layout", exc.message
        args = ", ".join(f"{_t(field_name(i, a), 80)} <span class='dim'>{_t(a.type_name)} from "
                         f"{_t(a.source_name)}</span>" for i, a in enumerate(pcs.pArgumentDescs[:NAMES]))
        rows.append((_t(pcs.name, 80), _t(kind), _t(sizes), args))
    if rows:
        parts.append("<h3>Program command signatures</h3>" + _table(("name", "class", "records", "arguments"), rows))
        parts.append(_left(len(rows), len(objects.program_command_signatures), "program command signatures"))
    rows = []
    for cs in list(objects.command_signatures.values())[:NAMES]:
        try:
            size = f"{command_layout(cs).size} B used, stride {cs.ByteStride}"
        except D3D12WLError as exc:
            size = exc.message
        args = ", ".join(f"{_t(field_name(i, a), 80)} <span class='dim'>{_t(a.type_name)}</span>"
                         for i, a in enumerate(cs.pArgumentDescs[:NAMES]))
        rows.append((_t(cs.name, 80), _t(size), args))
    if rows:
        parts.append("<h3>Command signatures</h3>" + _table(("name", "record", "arguments"), rows))
        parts.append(_left(len(rows), len(objects.command_signatures), "command signatures"))
    rows = [(_t(label), f"{len(coll):,}", _names(coll)) for label, coll in (
        ("work list signatures", objects.work_list_signatures),
        ("work list signature arrays", objects.work_list_signature_arrays),
        ("programs", objects.programs), ("root signatures", objects.root_signatures)) if coll]
    if rows:
        parts.append("<h3>Other objects</h3>" + _table(("collection", "count", "names"), rows))
    parts.append("</section>")
    return "".join(parts)


# -- 3. the charts -------------------------------------------------------------------------------------------------


def _rows(counts: dict[str, int], what: str) -> list[Row]:
    ordered = sorted(counts.items(), key=lambda kv: -kv[1])
    rows = [Row(k, n) for k, n in ordered[:ROWS]]
    rest = ordered[ROWS:]
    if rest:
        rows.append(Row(f"{len(rest):,} other {what}", sum(n for _, n in rest)))
    return rows


def _finding_places(trace: Trace, ei: bool) -> dict[int | None, list[int]]:
    """list index (None: the commands) -> the record index of every finding that names one."""
    out: dict[int | None, list[int]] = {}
    for f in trace.findings:
        if ei and f.command_index is not None:
            out.setdefault(None, []).append(f.command_index)
        elif f.list_index is not None:
            out.setdefault(f.list_index, []).append(-1 if f.primary_index is None else f.primary_index)
    return out


def _charts(counts: Tally, trace: Trace) -> str:
    ei = trace.call == "ExecuteIndirect"
    parts = ['<section id="charts"><h2>Where the executions went</h2>',
             f'<p>{counts.executions:,} executions.</p>']
    if any(k != "(none)" for k in counts.by_program):
        parts.append("<h3>Executions per program</h3>" +
                     rows_chart("chart-programs", "executions per program", _rows(counts.by_program, "programs")))
    both = {**{f"class {k}": n for k, n in counts.by_class.items()},
            **{f"trigger {k}": n for k, n in counts.by_trigger.items()}}
    if both:
        parts.append("<h3>Executions per executable class and dispatch trigger</h3>" +
                     rows_chart("chart-kinds", "executions per class and trigger", _rows(both, "kinds")))
    places = _finding_places(trace, ei)
    if counts.by_list:
        lists = sorted(counts.by_list)
        per = max(1, -(-(lists[-1] + 1) // COLUMNS))
        cols: list[Column] = []
        for first in range(0, lists[-1] + 1, per):
            last = min(first + per, lists[-1] + 1) - 1
            label = f"list {first}" if first == last else f"lists {first}-{last}"
            cols.append(Column(label, sum(counts.by_list.get(k, 0) for k in range(first, last + 1)),
                               sum(len(places.get(k, ())) for k in range(first, last + 1))))
        parts.append("<h3>Executions per list</h3>" +
                     columns_chart("chart-lists", "executions per list", cols, first="list 0",
                                   last=f"list {lists[-1]}"))
    for key, ranges in counts.ranges.items():
        bars = ranges.bars(COLUMNS)
        if not bars:
            continue
        marks = [0] * len(bars)
        firsts = [b.first for b in bars]
        for index in places.get(key, ()):
            if index >= 0:
                i = max(0, _bisect(firsts, index))
                if index <= bars[i].last:
                    marks[i] += 1
        word = "commands" if key is None else "primary records"
        cols = [Column(f"{word} {b.first:,}" + (f"-{b.last:,}" if b.last != b.first else ""), b.count, m)
                for b, m in zip(bars, marks, strict=True)]
        title = ("Executions per range of commands" if key is None
                 else f"Executions per range of primary records, list {key}")
        parts.append(f"<h3>{title}</h3>" + columns_chart(
            "chart-commands" if key is None else f"chart-list-{key}", title.lower(), cols,
            first=f"{word[:-1]} 0", last=f"{word[:-1]} {ranges.last:,}"))
    if counts.lists_not_ranged:
        parts.append(f'<p class="left-out">The primary records of {counts.lists_not_ranged:,} more lists are not '
                     "charted by range (their executions are in the chart per list).</p>")
    parts.append("</section>")
    return "".join(parts)


def _bisect(firsts: list[int], value: int) -> int:
    lo, hi = 0, len(firsts)
    while lo < hi:
        mid = (lo + hi) // 2
        if firsts[mid] <= value:
            lo = mid + 1
        else:
            hi = mid
    return lo - 1


# -- 4. the findings -----------------------------------------------------------------------------------------------


def _hex(r: RecordBytes, fields: dict[str, int]) -> str:
    """Rows of :data:`ROW` bytes; each run of one field's bytes in a row is one ``<span>`` naming the field."""
    out = ['<table class="hex"><tbody>']
    for row in range(0, len(r.data), ROW):
        offset = r.start + row
        cells: list[str] = []
        i = row
        end = min(row + ROW, len(r.data))
        while i < end:
            span = r.span_at(r.start + i)
            j = i + 1
            while j < end and r.span_at(r.start + j) is span:
                j += 1
            text = " ".join("--" if b is None else f"{b:02x}" for b in r.data[i:j])
            if span is None:
                cells.append(f'<span class="pad">{text}</span>')
            else:
                bad = " bad" if span.name == r.marked else ""
                cells.append(f'<span class="fld f{fields[span.name] % PALETTE}{bad}" data-field="{_t(span.name)}" '
                             f'title="{_t(span.name)}">{text}</span>')
            i = j
        out.append(f'<tr><th>+0x{offset:02x}</th><th class="va">0x{r.va + offset:x}</th><td>{" ".join(cells)}</td>'
                   "</tr>")
    out.append("</tbody></table>")
    return "".join(out)


def _record(r: RecordBytes) -> str:
    fields = {s.name: i for i, s in enumerate(r.spans)}
    shown = (f", bytes +{r.start}..+{r.start + len(r.data) - 1} shown" if r.start or len(r.data) < r.size else "")
    rows = []
    for s in r.spans:
        mark = ' class="marked"' if s.name == r.marked else ""
        who = "" if not s.named else ' <span class="dim">(Name)</span>'
        rows.append(f'<tr{mark} data-field="{_t(s.name)}"><td><span class="sw f{fields[s.name] % PALETTE}"></span>'
                    f"</td><td>+{s.offset}</td><td>{s.size}</td><td>{_t(s.name)}{who}</td><td>{_t(s.ctype)}</td>"
                    f"<td>{_t(s.value)}</td></tr>")
    legend = ('<table class="fields"><thead><tr><th></th><th>offset</th><th>size</th><th>field</th><th>type</th>'
              f'<th>value</th></tr></thead><tbody>{"".join(rows)}</tbody></table>')
    return (f'<div class="record" data-what="{_t(r.what)}"><p class="record-title">{_t(r.title)} at 0x{r.va:x}, '
            f"{r.size:,} bytes{shown}</p><p class=\"note\">{_t(r.note)}</p>{_hex(r, fields)}{legend}</div>")


def _findings(p: PageInput) -> str:
    trace, cap = p.trace, p.capture
    parts = ['<section id="findings"><h2>Findings</h2>']
    counts = trace.finding_counts()
    if not counts:
        parts.append('<p class="none">No findings.</p></section>')
        return "".join(parts)
    rows = [(f'<span class="sev {_t(sev)}">{_t(sev)}</span>', _t(kind), f"{n:,}")
            for (sev, kind), n in sorted(counts.items(), key=lambda kv: (kv[0][0] != "error", -kv[1]))]
    parts.append(_table(("severity", "kind", "findings"), rows, "kinds"))
    shown = 0
    parts.append('<div class="finding-list">')
    for i, f in enumerate(trace.findings.iter_range(0, min(p.limit, len(trace.findings)))):
        shown += 1
        parts.append(_finding(i, f, cap, trace))
    parts.append("</div>")
    total = len(trace.findings)
    parts.append(_left(shown, total, "findings", " (--limit)"))
    if trace.findings_suppressed:
        parts.append(f'<p class="left-out">{trace.findings_suppressed:,} more findings were not kept by the '
                     "executor (--max-findings).</p>")
    parts.append("</section>")
    return "".join(parts)


def _finding(i: int, f: Finding, cap: Any, trace: Trace) -> str:
    where = f.where()
    head = (f'<span class="sev {_t(f.severity)}">{_t(f.severity)}</span> <b>{_t(f.kind)}</b> '
            f'<span class="rule">[{_t(f.rule)}]</span> {_t(where)}: {_t(f.message)}')
    record = finding_record(cap.memory, cap.objects, trace, cap.call, f)
    body = _record(record) if record is not None else '<p class="note">This finding names no record.</p>'
    return (f'<details class="finding {_t(f.severity)}" id="finding-{i}" data-kind="{_t(f.kind)}">'
            f"<summary>{head}</summary>{body}</details>")


# -- 5. the executions and the reset ---------------------------------------------------------------------------------


def _root(e: Execution) -> str:
    lines = []
    for ra in e.root_arguments:
        tag = f"{'G' if ra.binding == 'global' else 'L'}{ra.parameter} {ra.kind}"
        if ra.values is not None:
            value = "[" + ", ".join("-" if x is None else f"0x{x:x}" for x in ra.values) + "]"
        else:
            value = "-" if ra.value is None else f"0x{ra.value:x}"
        fields = [s.field for s in ra.sources if s.field]
        src = " \u2190 " + ", ".join(fields) if fields else (f" ({ra.sources[0].kind})" if ra.sources else "")
        lines.append(_t(f"{tag} {value}{src}"))
    return "<br>".join(lines)


def _ia(e: Execution) -> str:
    lines = []
    for b in e.ia:
        tag = "IB" if b.slot is None else f"VB{b.slot}"
        value = "-" if b.fields is None else " ".join(f"{k}={_hexish(k, v)}" for k, v in b.fields.items())
        lines.append(_t(f"{tag} {value}" + (f" \u2190 {b.source.field}" if b.source.field else "")))
    return "<br>".join(lines)


def _hexish(key: str, value: object) -> str:
    return f"0x{value:x}" if isinstance(value, int) and key.endswith("Location") else str(value)


def _executions(p: PageInput) -> str:
    trace = p.trace
    total = len(trace.executions)
    parts = ['<section id="executions"><h2>The first executions</h2>']
    if not total:
        parts.append('<p class="none">No executions.</p></section>')
        return "".join(parts)
    rows = []
    for e in trace.executions.iter_range(0, min(p.limit, total)):
        trigger = f"{e.trigger.type} " + " ".join(f"{k}={v}" for k, v in e.trigger.fields.items())
        where = [f"list {e.list_index}" if e.list_index is not None else "",
                 f"primary {e.primary_index}" if e.primary_index is not None else "",
                 f"secondary {e.secondary_index}" if e.secondary_index is not None else "",
                 f"command {e.command_index}" if e.command_index is not None else ""]
        rows.append((f"{e.index:,}", _t(e.executable_class), _t(" ".join(w for w in where if w)),
                     _t(e.program or "-"), _t(trigger), "-" if e.counter is None else f"{e.counter:,}", _root(e),
                     _ia(e)))
    parts.append(_table(("#", "class", "where", "program", "trigger", "counter", "root arguments", "IA"), rows,
                        "executions"))
    left = _left(len(rows), total, "executions", " (--limit; 'd3d12wl exec' writes every one)")
    parts.append(left or f'<p class="all">All {total:,} executions are shown.</p>')
    reset = trace.end_of_call_reset
    if reset:
        shown = reset[:NAMES]
        parts.append("<h3>End-of-call reset</h3>" + _table(
            ("set", "what", "parameter", "slot", "reset to", "touched by"),
            ((_t(r.binding_set), _t(r.what), "-" if r.parameter is None else str(r.parameter),
              "-" if r.slot is None else str(r.slot), _t(r.reset_to), _t(", ".join(r.touched_by))) for r in shown)))
        parts.append(_left(len(shown), len(reset), "reset entries"))
    parts.append("</section>")
    return "".join(parts)


# -- the page ------------------------------------------------------------------------------------------------------

_STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1180px;padding:16px 24px;color:#1b1f24;
background:#fff}
h1{font-size:22px;margin:4px 0}h2{font-size:18px;border-bottom:1px solid #d0d7de;padding-bottom:4px;margin-top:28px}
h3{font-size:15px;margin:18px 0 6px}
table{border-collapse:collapse;margin:6px 0;font-size:13px}th,td{border:1px solid #d0d7de;padding:2px 6px;
text-align:left;vertical-align:top}thead th{background:#f6f8fa}
table.kv td:first-child{font-weight:600;white-space:nowrap}
.verdict{font-size:16px;font-weight:700;padding:8px 12px;border-radius:6px}
.verdict.pass{background:#dafbe1;color:#116329}.verdict.fail{background:#ffebe9;color:#a40e26}
.dim{color:#57606a}.left-out,.note,.all{color:#57606a;font-style:italic}
.sev{font-weight:700}.sev.error{color:#cf222e}.sev.warning{color:#9a6700}.sev.info{color:#0969da}
details.finding{border:1px solid #d0d7de;border-radius:6px;margin:6px 0;padding:4px 8px}
details.finding.error{border-left:4px solid #cf222e}details.finding.warning{border-left:4px solid #bf8700}
details.finding summary{cursor:pointer}.rule{color:#57606a}
table.hex{font:12px/1.5 ui-monospace,monospace}table.hex th{color:#57606a;font-weight:400;background:none}
table.hex td{white-space:pre}
.fld,.pad{padding:1px 2px;border-radius:3px}.pad{color:#8c959f}
.bad{outline:2px solid #cf222e;font-weight:700}
tr.marked{background:#ffebe9;font-weight:600}
.sw{display:inline-block;width:12px;height:12px;border-radius:2px}
.f0{background:#ddf4ff}.f1{background:#fff8c5}.f2{background:#dafbe1}.f3{background:#fbefff}
.f4{background:#ffebe9}.f5{background:#e7ecf0}.f6{background:#ffeff7}.f7{background:#d8f3f3}
svg.chart{width:100%;height:auto;max-width:880px;display:block}
svg .bar{fill:#0969da}svg .marker,svg .mark-count{fill:#cf222e}svg .label,svg .value,svg .tick{fill:#1b1f24}
svg .axis{stroke:#8c959f}
table.executions td{font:12px ui-monospace,monospace}
footer{margin-top:32px;color:#57606a;font-size:12px}
"""

_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"


def build_page(p: PageInput) -> str:
    """The page (see the module docstring) as text."""
    trace = p.trace
    with laying_out_once():
        verdict_html = _verdict(trace)
        counts = tally(trace)
        sections = [_call(p), _objects(p), _charts(counts, trace), _findings(p), _executions(p)]
    title = f"d3d12wl report: {p.source}"
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" '
            f'content="{_CSP}"><meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{_t(title)}</title><style>{_STYLE}</style></head><body>"
            f"<header><h1>{_t(p.source)}</h1><p class=\"dim\">{_t(trace.call)}: "
            f"{_plural(len(trace.executions), 'execution')}, {_plural(len(trace.lists), 'list')}</p>"
            f"{verdict_html}</header>"
            + "".join(sections) +
            f"<footer>Made by d3d12wl {escape(__version__)}: the reference "
            "executor's trace of the capture (d3d12wl exec writes it whole).</footer></body></html>\n")

