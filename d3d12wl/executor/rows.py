"""The trace's executions and primary records as text rows made from its columns (:mod:`d3d12wl.output.textrows`): the
JSON of ``Trace.to_dict()`` byte for byte, JSON lines, and the human lines of ``d3d12wl exec``.

Executions: every run of the trace (:func:`~d3d12wl.executor.execution_table.execution_runs`) is groups of
executions that resolve alike, with their table.  The JSON of a group's first execution, with a
:class:`~d3d12wl.output.textrows.Value` wherever an execution of the group has a value of its own (its indices, its
records' VAs, the trigger's members, every root argument and IA binding a record, the counter or a system pointer
sets, and the ``origin`` text and ``va`` of every source read from a record), is the template every row of the
group is written by, from the run's table; groups whose templates are the same share one (the executions the
reference walk made are groups of one).  Nothing is written twice: ``Trace.to_dict()`` is the tests' oracle, which
every format is compared with on the differential corpora.

Primary records of a columnar batch work the same way, their secondary records and execution indices as rows of
their own between the record's parts; a batch of records the walk skipped alike is one template; the records the
reference walk made are written as the objects they are.  Findings of a columnar batch come from its columns too.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl.executor.arrays import packed_dtype
from d3d12wl.executor.execution_table import (
    RECORD_VA_KEYS,
    ROOT_PREFIX,
    ExecutionColumns,
    ExecutionRun,
    execution_runs,
    ia_tag,
    root_tag,
)
from d3d12wl.executor.learned_skips import SkippedRecords
from d3d12wl.executor.selection import Budget
from d3d12wl.executor.trace import Execution, Finding, LazyList, PrimaryRecordTrace
from d3d12wl.executor.worklist_batch import BatchRecords, WorkListBatch
from d3d12wl.output.blockwriter import write_block, write_rows
from d3d12wl.output.outfiles import TEXT_ERRORS
from d3d12wl.output.serialize import json_text, to_jsonable
from d3d12wl.output.textrows import Cell, Field, Part, RowFormatter, Splice, Text, Value, json_parts, split

__all__ = ["FINDING_ROWS", "FindingChunk", "JSONStyle", "Progress", "TemplateError", "execution_data", "execution_json",
           "execution_text", "finding_chunks", "finding_json", "finding_text", "hex_text", "record_json", "text_line"]

#: primary records written from one set of templates
RECORD_ROWS = 1 << 15
#: virtual rows (record parts, secondary records, execution indices) formatted at a time
VIRTUAL_ROWS = 1 << 14
#: virtual rows laid out at a time (their columns: about 15 of 8 bytes a row), then formatted in blocks
LAYOUT_ROWS = 1 << 16


class TemplateError(RuntimeError):
    """A record of a columnar batch whose shape its columns do not have (an internal error: the batches hold only
    records the layouts decode)."""


Write = Callable[[Any], Any]


@dataclass(frozen=True)
class JSONStyle:
    """How items are written: ``json.dumps(item, indent=indent, separators=separators)``, every line after the
    first indented by ``depth`` (an item of a streamed document), between ``prefix`` and ``suffix``; ``wrap``
    adds keys before the item's own (JSON lines' ``record``)."""

    indent: int | None = None
    separators: tuple[str, str] | None = None
    depth: int = 0
    prefix: str = ""
    suffix: str = ""

    def dumps(self, data: Any) -> str:
        text = json_text(data, indent=self.indent) if self.indent is not None and self.separators is None else \
            json.dumps(data, indent=self.indent, separators=self.separators)
        return text.replace("\n", "\n" + " " * self.depth) if self.depth else text

    def parts(self, data: Any) -> list[Part | Splice]:
        return json_parts(data, indent=self.indent, separators=self.separators, depth=self.depth)

    def list_parts(self, depth: int) -> tuple[str, str, str]:
        """(first item's prefix, a later item's prefix, close) of a non-empty list whose key line is at ``depth``
        (an empty list is ``[]``)."""
        if self.indent is None:
            sep = (self.separators or (", ", ": "))[0]
            return "", sep, "]"
        pad = " " * (depth + self.indent)
        return "\n" + pad, ",\n" + pad, "\n" + " " * depth + "]"


# -- executions -----------------------------------------------------------------------------------------------

#: the record a ValueSource kind reads: its label in origins, and the table's index and VA columns
_RECORD_SOURCES = {"primary": ("primary record ", "primary_index", "primary_va"),
                   "secondary": ("secondary record ", "secondary_index", "secondary_va"),
                   "command": ("command ", "command_index", "command_va")}
#: ``Execution.record_va``'s keys -> the table's VA columns
_RECORD_VA = {key: column for column, key in RECORD_VA_KEYS.items()}
_SYSTEM_POINTERS = {"PRIMARY_RECORD_POINTER": "primary_va", "SECONDARY_RECORD_POINTER": "secondary_va"}


def _source(s: dict[str, Any], record_va: dict[str, Any], index: dict[str, Any]) -> None:
    """A ValueSource dict read from a record (its ``origin`` the record's label, index, VA and the offset the
    source read, as :class:`~d3d12wl.executor.resolve.RecordData` spells it): its ``va`` and ``origin`` as holes
    over the record's columns.  Any other source is the group's, written as it is."""
    if s.get("kind") not in _RECORD_SOURCES:
        return
    label, index_col, va_col = _RECORD_SOURCES[s["kind"]]
    base = record_va.get(s["kind"])
    if not isinstance(base, int) or not isinstance(s.get("va"), int):
        return
    off = s["va"] - base
    if s.get("origin") != f"{label}{index[index_col]} @0x{base:x} +{off}":
        return
    s["va"] = Value(va_col, add=off)
    s["origin"] = Text((label, Value(index_col, "sdec"), " @0x", Value(va_col, "hex"), f" +{off}"))


def execution_data(e: Execution, table: ExecutionColumns | Any) -> dict[str, Any]:
    """``to_jsonable(e)`` with a :class:`~d3d12wl.output.textrows.Value` wherever an execution that resolves like ``e``
    has a value of its own (``table``: the columns the values are in)."""
    columns = table.columns if isinstance(table, ExecutionColumns) else table
    d: dict[str, Any] = to_jsonable(e)
    index = {name: d.get(name) for name in ("primary_index", "secondary_index", "command_index")}
    for name in ("index", "list_index", "signature_index", "primary_index", "secondary_index", "command_index",
                 "invocation", "counter"):
        if isinstance(d.get(name), int):
            d[name] = Value(name, "sdec")
    record_va = dict(d["record_va"])
    trig = d["trigger"]
    for m, v in trig["fields"].items():
        if isinstance(v, int) and f"trigger.{m}" in columns:
            trig["fields"][m] = Value(f"trigger.{m}", "sdec")
    if trig.get("source") is not None:
        _source(trig["source"], record_va, index)
    for ra in d["root_arguments"]:
        tag = root_tag(ra["binding"], ra["parameter"])
        if isinstance(ra.get("value"), int) and tag in columns:
            ra["value"] = Value(tag)
        if ra.get("values") is not None:
            ra["values"] = [Value(f"{tag}[{i}]", "sdec") if isinstance(v, int) and f"{tag}[{i}]" in columns else v
                            for i, v in enumerate(ra["values"])]
        for s in ra["sources"]:
            _source(s, record_va, index)
    for b in d["ia"]:
        tag = ia_tag(b["slot"])
        for m, v in (b.get("fields") or {}).items():
            if isinstance(v, int) and f"{tag}.{m}" in columns:
                b["fields"][m] = Value(f"{tag}.{m}")
        _source(b["source"], record_va, index)
    for k, col in _SYSTEM_POINTERS.items():
        if isinstance(d["system_pointers"].get(k), int):
            d["system_pointers"][k] = Value(col)
    for k, v in d["record_va"].items():
        if isinstance(v, int):
            d["record_va"][k] = Value(_RECORD_VA[k])
    return d


def _take(table: ExecutionColumns, rows: np.ndarray) -> dict[str, np.ndarray]:
    return {k: v[rows] for k, v in table.columns.items()}


#: picks the rows of a run to write (ascending row numbers; None: every row)
Select = Callable[[ExecutionRun], "np.ndarray | None"]
#: told how many items were written so far
Progress = Callable[[int], None]


def _execution_rows(executions: LazyList[Execution], write: Write, templates: Callable[[Execution, Any], list[Part]],
                    render: Callable[[Execution], str], first_skip: int = 0, select: Select | None = None,
                    progress: Progress | None = None) -> int:
    """Every execution ``select`` picks: of a columnar run, each row by its group's template (``templates(first,
    table)``) from the run's columns; of a run of objects the reference walk made, each object as ``render`` writes
    it; returns how many were written."""
    count = 0
    made: _Made | None = None
    for run in execution_runs(executions):
        picked = select(run) if select is not None else None
        rows = np.arange(run.n) if picked is None else picked
        if not len(rows):
            continue
        objects = run.objects
        if objects is not None:
            write("".join(render(objects[int(r)]) for r in rows).encode("utf-8", TEXT_ERRORS)[
                first_skip if count == 0 else 0:])
            count += len(rows)
            if progress is not None:
                progress(count)
            continue
        if made is None or not made.fits(run):
            made = _Made(run, templates)
        columns = run.table.columns if picked is None else _take(run.table, rows)
        write_rows(made.formatter, columns, len(rows), made.template[run.group[rows]], write,
                   skip=first_skip if count == 0 else 0)
        count += len(rows)
        if progress is not None:
            progress(count)
    return count


class _Made:
    """The formatter of a run's groups: a template per group made from its first execution, the groups whose
    templates are the same sharing one (``template``: per group, its template's number); a later run of the same
    batch (the same first executions, the same columns) takes it as it is."""

    def __init__(self, run: ExecutionRun, templates: Callable[[Execution, Any], list[Part]]) -> None:
        self.firsts = run.firsts  # (kept: their ids stay theirs while this is made for them)
        self.key = self._key(run)
        distinct: dict[tuple[Any, ...], int] = {}
        which = []
        for e in run.firsts:
            parts = tuple(templates(e, run.table))
            which.append(distinct.setdefault(parts, len(distinct)))
        self.template = np.array(which, dtype=np.int32)
        self.formatter = RowFormatter([list(t) for t in distinct])

    @staticmethod
    def _key(run: ExecutionRun) -> tuple[Any, ...]:
        return tuple(map(id, run.firsts)), tuple(run.table.columns)

    def fits(self, run: ExecutionRun) -> bool:
        return self._key(run) == self.key


def execution_json(executions: LazyList[Execution], write: Write, style: JSONStyle,
                   wrap: Callable[[Any], Any] = lambda d: d, *, first_skip: int = 0, select: Select | None = None,
                   progress: Progress | None = None) -> int:
    """Every execution (``select`` picks) as ``style.prefix + style.dumps(wrap(to_jsonable(e))) + style.suffix``
    writes it, from the columns; returns how many (``first_skip``: bytes dropped from the first, a separator)."""
    def templates(e: Execution, table: Any) -> list[Part]:
        return [style.prefix, *(p for p in style.parts(wrap(execution_data(e, table))) if not isinstance(p, Splice)),
                style.suffix]

    def render(e: Execution) -> str:
        return style.prefix + style.dumps(wrap(to_jsonable(e))) + style.suffix

    return _execution_rows(executions, write, templates, render, first_skip, select, progress)


# -- the human lines of `d3d12wl exec` ---------------------------------------------------------------------------

#: ``exec``'s execution lines: "#index" right-aligned in 6, where in 28, program in 14, the trigger, the root
#: arguments; indent 2, one space between cells, a cell wider than its column widening only its row
_LINE_WIDTHS = (6, 28, 14)
_LINE_INDENT, _LINE_GAP = "  ", " "


def hex_text(value: Any) -> str:
    """An integer in ``0x`` hexadecimal, None ``-``, anything else as ``str`` makes it (the human lines' values)."""
    return f"0x{value:x}" if isinstance(value, int) else "-" if value is None else str(value)


def _line_cells(e: Execution, hole: Callable[[str, Any, str], Any]) -> list[list[Any]]:
    """The cells of ``e``'s line, each a list of literal texts and whatever ``hole(column, value, kind)`` gives
    for a value that is the execution's own (its text, or a :class:`~d3d12wl.output.textrows.Value`)."""
    if e.command_index is not None:
        where: list[Any] = ["command ", hole("command_index", e.command_index, "dec")]
    else:
        where = ["list ", hole("list_index", e.list_index, "dec"), " primary ", hole("primary_index", e.primary_index,
                                                                                     "dec")]
        if e.secondary_index is not None:
            where += [" secondary ", hole("secondary_index", e.secondary_index, "dec")]
    trigger: list[Any] = [f"{e.trigger.type} "]
    first = True
    for k, v in e.trigger.fields.items():
        if isinstance(v, dict):
            continue
        trigger += [("" if first else " ") + f"{k}=", hole(f"trigger.{k}", v, "dec") if isinstance(v, int) else str(v)]
        first = False
    if e.counter is not None:
        trigger += [" counter=", hole("counter", e.counter, "dec")]
    trigger.append(" ")
    roots: list[Any] = []
    for ra in e.root_arguments:
        if ra.kind == "static_sampler":
            continue
        column = root_tag(ra.binding, ra.parameter)
        roots.append((" " if roots else "") + f"{column.removeprefix(ROOT_PREFIX)}=")
        if ra.kind == "constants":
            roots.append("[")
            for i, v in enumerate(ra.values or []):
                roots += [" " if i else "", hole(f"{column}[{i}]", v, "hex") if isinstance(v, int) else hex_text(v)]
            roots.append("]")
        else:
            roots.append(hole(column, ra.value, "hex") if isinstance(ra.value, int) else hex_text(ra.value))
    return [["#", hole("index", e.index, "dec")], where, [e.program or "-"], trigger, roots]


def text_line(e: Execution) -> str:
    """``e``'s line from the object, without the newline: how :func:`execution_text` writes an execution the
    reference walk made, and the tests' oracle of what it writes from the columns (the same cells,
    :func:`_line_cells`)."""
    def literal(column: str, value: Any, kind: str) -> str:
        return hex_text(value) if kind == "hex" else str(value)

    cells = ["".join(c) for c in _line_cells(e, literal)]
    out = [c.rjust(w) if i == 0 else c.ljust(w) for i, (c, w) in enumerate(zip(cells, (*_LINE_WIDTHS, 0, 0)))]
    return (_LINE_INDENT + _LINE_GAP.join(out)).rstrip()


def _line_template(e: Execution, table: Any) -> list[Part]:
    columns = table.columns if isinstance(table, ExecutionColumns) else table

    def value(column: str, v: Any, kind: str) -> Any:
        if column not in columns:  # (the group's: every row's the same)
            return hex_text(v) if kind == "hex" else str(v)
        if kind == "hex":
            return ["0x", Value(column, "hex")]
        return Value(column, "sdec")

    cells = _line_cells(e, value)
    flat = [[q for p in c for q in (p if isinstance(p, list) else [p])] for c in cells]
    while flat and not flat[-1]:  # the line is stripped: an empty last cell and the gap before it are not there
        flat.pop()
    parts: list[Part] = [_LINE_INDENT]
    for i, c in enumerate(flat):
        if i:
            parts.append(_LINE_GAP)
        width = _LINE_WIDTHS[i] if i < len(_LINE_WIDTHS) else 0
        last = i == len(flat) - 1
        if last:  # a value never ends in a space: the literal spaces ending the line are stripped
            while c and isinstance(c[-1], str) and c[-1].rstrip() != c[-1]:
                c[-1] = c[-1].rstrip()
                if not c[-1]:
                    c.pop()
                else:
                    break
        if width and not last:
            parts.append(Cell(tuple(c), width, ">" if i == 0 else "<"))
        else:
            parts += c
    return [*parts, "\n"]


def execution_text(executions: LazyList[Execution], write: Write, *, select: Select | None = None,
                   progress: Progress | None = None) -> int:
    """Every execution's line (what :func:`text_line` makes of it, ``select`` picks) and a newline, a columnar
    run's from its columns; returns how many."""
    return _execution_rows(executions, write, _line_template, lambda e: text_line(e) + "\n", 0, select, progress)


# -- primary records ----------------------------------------------------------------------------------------------


def _leaves(data: Any, arr: np.ndarray, prefix: str, columns: dict[str, np.ndarray]) -> Any:
    """``data`` (a record's decoded fields) with a Value per integer leaf, named ``prefix`` + its path, whose
    column (``arr``: the records' structured rows, walked along the same path) goes into ``columns``."""
    if isinstance(data, dict):
        if arr.dtype.names is None:
            raise TemplateError(prefix)
        return {k: _leaves(v, arr[k], f"{prefix}.{k}", columns) for k, v in data.items()}
    if isinstance(data, list):
        if arr.ndim == 1 and len(data) == 1:
            return [_leaves(data[0], arr, f"{prefix}[0]", columns)]
        if arr.ndim < 2 or arr.shape[1] != len(data):
            raise TemplateError(prefix)
        return [_leaves(v, arr[:, i], f"{prefix}[{i}]", columns) for i, v in enumerate(data)]
    if isinstance(data, bool) or not isinstance(data, int) or arr.dtype.kind not in "iu" or arr.ndim != 1:
        raise TemplateError(prefix)
    columns[prefix] = arr
    return Value(prefix, "sdec" if arr.dtype.kind == "i" else "udec")


def _field_leaves(data: Any, dtype: np.dtype, source: str, offset: int = 0, path: str = "s") -> Any:
    """``data`` (a secondary record's decoded fields) with a Value per integer leaf that the kernel reads from the
    record itself (:class:`~d3d12wl.output.textrows.Field`: row ``s.row`` of ``source``, at the leaf's offset in
    ``dtype``, the records' packed type), walked as :func:`_leaves` walks the records' columns."""
    if isinstance(data, dict):
        if dtype.fields is None or not set(data) <= set(dtype.fields):
            raise TemplateError(path)
        return {k: _field_leaves(v, dtype.fields[k][0], source, offset + dtype.fields[k][1], f"{path}.{k}")
                for k, v in data.items()}
    if isinstance(data, list):
        if dtype.subdtype is None and len(data) == 1:
            return [_field_leaves(data[0], dtype, source, offset, f"{path}[0]")]
        if dtype.subdtype is None or dtype.subdtype[1][0] != len(data):
            raise TemplateError(path)
        base, shape = dtype.subdtype
        item = np.dtype((base, shape[1:])) if len(shape) > 1 else base
        return [_field_leaves(v, item, source, offset + i * item.itemsize, f"{path}[{i}]") for i, v in enumerate(data)]
    if isinstance(data, bool) or not isinstance(data, int) or dtype.kind not in "iu" or dtype.shape != () or \
            dtype.itemsize not in (1, 2, 4, 8) or dtype.byteorder == ">":
        raise TemplateError(path)
    signed = dtype.kind == "i"
    return Value("s.row", "sdec" if signed else "udec", field=Field(source, offset, dtype.itemsize, signed))


class _RecordWriter:
    """The records of one chunk of a batch, from its columns: per group of the chunk, templates made from its first
    record (and from the first that has secondary records, for theirs)."""

    def __init__(self, batch: WorkListBatch, r0: int, r1: int, style: JSONStyle, wrap: Callable[[Any], Any],
                 depth: int) -> None:
        self.batch = batch
        walk = batch.walk
        gid = batch.gid[r0:r1].astype(np.int64)
        execs = (batch.exec_off[r0 + 1:r1 + 1] - batch.exec_off[r0:r1]).astype(np.int64)
        hybrid = np.array([g.hybrid for g in walk.groups], dtype=bool)
        first, later, close = style.list_parts(depth + (style.indent or 0))
        templates: list[list[Part]] = [["[]"], [close], ["[", first, Value("e.index")], [later, Value("e.index")]]
        self.ids = np.zeros((len(walk.groups), 5), dtype=np.int32)
        self.fields: dict[int, Any] = {}  # per group: its first record's fields (the template's)
        #: per group with a secondary template: its secondary records (the kernel reads their fields)
        self.sources: dict[str, np.ndarray] = {}
        for g in _present(gid):
            members = np.flatnonzero(gid == g)
            r = r0 + int(members[0])
            with_sec = members[execs[members] > 0] if hybrid[g] else members[:0]
            prt = batch.record(r)
            self.fields[g] = prt.fields
            d: dict[str, Any] = to_jsonable(prt)
            if d.get("skipped") is not None:
                raise TemplateError("skipped")
            d["index"], d["va"] = Value("r.index"), Value("r.va")
            d["fields"] = _leaves(d["fields"], self._primary(g, np.array([r])), "p", {})
            d["secondary_records"], d["executions"] = Splice("secondary"), Splice("executions")
            head, mid, tail = split(style.parts(wrap(d)))
            sec: list[Part] = ["?"]  # (never written: the group has no secondary record in this chunk)
            if len(with_sec):
                rs = r0 + int(with_sec[0])
                first_secondary = batch.record(rs).secondary_records[0]
                sd: dict[str, Any] = to_jsonable(first_secondary)
                sd["index"], sd["va"] = Value("s.index"), Value("s.va")
                layout = walk.groups[g].layout.secondary
                assert layout is not None
                packed = packed_dtype(layout)
                sd["fields"] = _field_leaves(sd["fields"], packed, f"s{g}")
                records = batch.secondary_rows[g]
                if records.ndim != 2 or records.shape[1] != packed.itemsize:
                    raise TemplateError("secondary rows")
                self.sources[f"s{g}"] = np.ascontiguousarray(records)
                inner = JSONStyle(style.indent, style.separators, depth + 2 * (style.indent or 0))
                sec = [p for p in inner.parts(sd) if not isinstance(p, Splice)]
            base = len(templates)
            templates += [[style.prefix, *head], mid, [*tail, style.suffix], ["[", first, *sec], [later, *sec]]
            self.ids[g] = np.arange(base, base + 5)
        self.formatter = RowFormatter(templates)
        self.hybrid = hybrid

    def _primary(self, g: int, recs: np.ndarray) -> np.ndarray:
        b = self.batch
        return b.primary_rows[g][b.group_row[recs]].view(b.walk.groups[g].pdtype).reshape(-1)

    def write(self, recs: np.ndarray, write: Write, skip: int = 0, secondary: Budget | None = None) -> int:
        """Records ``recs`` (ascending batch indices, every one of a group the writer was made for), with the
        secondary records ``secondary`` still shows (None: all); returns how many secondary records that left
        out.  Their rows are laid out here, :data:`LAYOUT_ROWS` at a time, and made :data:`VIRTUAL_ROWS` at a time
        on worker threads where ``write`` is a :class:`~d3d12wl.output.blockwriter.BlockWriter`: the layout is numpy
        work that holds the GIL for much of its time (a few dozen calls, whatever the rows), which one thread does
        without waiting for it while the workers' kernels let go of it."""
        b = self.batch
        gid = b.gid[recs].astype(np.int64)
        execs = (b.exec_off[recs + 1] - b.exec_off[recs]).astype(np.int64)
        every = np.where(self.hybrid[gid], execs, 0)
        secs = secondary.take_each(every) if secondary is not None else every
        total = int((3 + np.where(secs > 0, secs + 1, 1) + np.where(execs > 0, execs + 1, 1)).sum())
        rows = self._rows(recs, gid, secs, execs)
        for s0 in range(0, total, LAYOUT_ROWS):
            s1 = min(total, s0 + LAYOUT_ROWS)
            cols, which = self._columns(rows, s0, s1)
            for v0 in range(s0, s1, VIRTUAL_ROWS):  # (a block's columns are views of the layout's)
                v1 = min(s1, v0 + VIRTUAL_ROWS)
                block = {name: c[v0 - s0:v1 - s0] for name, c in cols.items()}
                write_block(write, self.formatter.prepare(block, v1 - v0, which[v0 - s0:v1 - s0],
                                                          sources=self.sources, skip=skip if v0 == 0 else 0).make)
        return int((every - secs).sum())

    def _rows(self, recs: np.ndarray, gid: np.ndarray, secs: np.ndarray, execs: np.ndarray) -> _RecordRows:
        """The virtual rows of records ``recs`` as runs (see :class:`_RecordRows`), and the records' columns."""
        b = self.batch
        n = len(recs)
        EMPTY, CLOSE, EXEC_FIRST, EXEC_NEXT = 0, 1, 2, 3
        tid = self.ids[gid]  # per record: the templates of its head, mid, tail, first and later secondary record
        has_s, has_e = secs > 0, execs > 0
        one = np.ones(n, dtype=np.int64)
        # the runs of a record: head; the secondary list (its first row or ``[]``, the later rows, the close); mid;
        # the execution list (likewise); tail
        lengths = np.stack([one, one, np.maximum(secs - 1, 0), has_s, one, one, np.maximum(execs - 1, 0), has_e, one],
                           axis=1).astype(np.int64).reshape(-1)
        template = np.stack([tid[:, 0], np.where(has_s, tid[:, 3], EMPTY), tid[:, 4], np.full(n, CLOSE), tid[:, 1],
                             np.where(has_e, EXEC_FIRST, EMPTY), np.full(n, EXEC_NEXT), np.full(n, CLOSE), tid[:, 2]],
                            axis=1).astype(np.int32).reshape(-1)
        starts = np.zeros(len(lengths), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        columns: dict[str, np.ndarray] = {"r.index": b.primary_index[recs], "r.va": b.primary_va[recs]}
        # a secondary record's row in its group's records and its VA: the record's first's, plus j of each
        first_row = b.sec_off[recs].astype(np.int64)
        first_va, stride = np.zeros(n, dtype=np.uint64), np.zeros(n, dtype=np.uint64)
        for x in _present(gid):
            m = np.flatnonzero(gid == x)
            got: dict[str, np.ndarray] = {}
            _leaves(self.fields[x], self._primary(x, recs[m]), "p", got)
            for name, values in got.items():
                _scatter(columns, name, n, m, values)
            if f"s{x}" in self.sources:
                first_va[m] = b.secondary_base[x][b.group_row[recs[m]]]
                stride[m] = b.walk.groups[x].sstride
        return _RecordRows(starts, starts + lengths, np.repeat(np.arange(n), 9), template,
                           np.tile(np.array([0, 0, 1, 0, 0, 0, 1, 0, 0]), n), columns,
                           b.first_execution + b.exec_off[recs].astype(np.int64), first_row, first_va, stride)

    def _columns(self, rows: _RecordRows, v0: int, v1: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """The columns and the template of every virtual row ``v0 .. v1 - 1`` (each row's value of every column,
        whether or not its template reads it: ``s.row``, ``s.va`` and ``e.index`` hold something on every row)."""
        a = int(np.searchsorted(rows.ends, v0, side="right"))
        z = int(np.searchsorted(rows.starts, v1, side="left"))
        lo = rows.starts[a:z]
        counts = np.minimum(rows.ends[a:z], v1) - np.maximum(lo, v0)
        which = np.repeat(rows.template[a:z], counts)
        k = np.repeat(rows.record[a:z], counts)
        j = np.arange(v0, v1, dtype=np.int64) - np.repeat(lo - rows.base[a:z], counts)
        cols = {name: values[k] for name, values in rows.columns.items()}
        cols["e.index"] = rows.first_execution[k] + j
        cols["s.index"] = j
        cols["s.row"] = rows.first_row[k] + j
        cols["s.va"] = rows.first_va[k] + j.astype(np.uint64) * rows.stride[k]
        for name in self.formatter.columns:
            if name not in cols:
                cols[name] = np.zeros(v1 - v0, dtype=np.int64)
        return cols, which


def _scatter(columns: dict[str, np.ndarray], name: str, n: int, at: np.ndarray, values: np.ndarray) -> None:
    """``values`` put at rows ``at`` of column ``name`` (made of ``n`` zeros, signed or not as ``values`` are, the
    first time a group puts values in it)."""
    if name not in columns:
        columns[name] = np.zeros(n, dtype=np.int64 if values.dtype.kind == "i" else np.uint64)
    columns[name][at] = values


def _present(ids: np.ndarray) -> list[int]:
    """The values ``ids`` (small non-negative integers: group numbers) holds, ascending."""
    return np.flatnonzero(np.bincount(ids)).tolist() if len(ids) else []


@dataclass(frozen=True)
class _RecordRows:
    """The virtual rows of records being written, as runs of rows of one template, nine a record (its head, the
    first and the later rows of its secondary list and its close, its mid, the same of its execution list, its
    tail; a run may be empty): per run its first and end virtual row, its record, its template and the index its
    first row has in its list (``base``: a secondary record's or an execution's); and per record its columns
    (``r.*``, ``p.*``), its first execution, and its first secondary record's row in its group's records, VA and
    the stride from one to the next."""

    starts: np.ndarray
    ends: np.ndarray
    record: np.ndarray
    template: np.ndarray
    base: np.ndarray
    columns: dict[str, np.ndarray]
    first_execution: np.ndarray
    first_row: np.ndarray
    first_va: np.ndarray
    stride: np.ndarray


def _skipped_rows(seg: SkippedRecords, recs: np.ndarray, write: Write, style: JSONStyle,
                  wrap: Callable[[Any], Any], skip: int) -> int:
    """Records ``recs`` of a batch of records skipped alike (the same record but for its index and VA, no
    secondary record, no execution) by one template."""
    d: dict[str, Any] = to_jsonable(seg.item(int(recs[0])))
    d["index"], d["va"] = Value("r.index", "sdec"), Value("r.va")
    formatter = RowFormatter([[style.prefix, *(p for p in style.parts(wrap(d)) if not isinstance(p, Splice)),
                               style.suffix]])
    write_rows(formatter, {"r.index": seg.index[recs], "r.va": seg.va[recs]}, len(recs), None, write, skip=skip)
    return len(recs)


#: picks primary records ``start .. stop - 1`` of a list to write (a mask; None: all of them)
SelectRecords = Callable[[LazyList[PrimaryRecordTrace], int, int], "np.ndarray | None"]


def record_json(records: LazyList[PrimaryRecordTrace], write: Write, style: JSONStyle,
                wrap: Callable[[Any], Any] = lambda d: d, *, depth: int, first_skip: int = 0,
                select: SelectRecords | None = None, secondary: Budget | None = None) -> tuple[int, int]:
    """Every primary record (``select`` picks) as ``style.prefix + style.dumps(wrap(to_jsonable(prt))) +
    style.suffix`` writes it, with the secondary records ``secondary`` still shows (None: all): a columnar batch's
    from its columns (its secondary records and execution indices as rows of their own), a batch of records
    skipped alike by one template, the records the reference walk made as the objects they are (``depth``: the
    record's own indent, where ``style.depth`` is its lines'; ``first_skip``: bytes dropped from the first);
    returns (records written, secondary records left out)."""
    count = left = 0

    def render(prt: PrimaryRecordTrace, budget: Budget | None = None) -> bytes:
        nonlocal left
        d = to_jsonable(prt)
        if budget is not None:
            shown = budget.take(len(d["secondary_records"]))
            left += len(d["secondary_records"]) - shown
            d["secondary_records"] = d["secondary_records"][:shown]
        return (style.prefix + style.dumps(wrap(d)) + style.suffix).encode("utf-8", TEXT_ERRORS)

    def objects(items: list[PrimaryRecordTrace]) -> None:
        nonlocal count
        for prt in items:
            text = render(prt, secondary)
            write(text[first_skip:] if count == 0 and first_skip else text)
            count += 1

    pos = 0
    for seg in records.segments:
        n = len(seg)
        for r0 in range(0, n, RECORD_ROWS):
            r1 = min(n, r0 + RECORD_ROWS)
            mask = select(records, pos + r0, pos + r1) if select is not None else None
            recs = np.arange(r0, r1) if mask is None else r0 + np.flatnonzero(mask)
            if not len(recs):
                continue
            if isinstance(seg, SkippedRecords):  # records of a flagged slot: one template, their index and VA
                count += _skipped_rows(seg, recs, write, style, wrap, first_skip if count == 0 else 0)
                continue
            if not isinstance(seg, BatchRecords):
                items = seg[r0:r1] if isinstance(seg, list) else list(seg.items(r0, r1))
                objects([items[int(r) - r0] for r in recs])
                continue
            writer = _RecordWriter(seg.batch, r0, r1, style, wrap, depth)
            left += writer.write(recs, write, first_skip if count == 0 else 0, secondary)
            count += len(recs)
        pos += n
    return count, left


# -- findings -------------------------------------------------------------------------------------------------

#: findings formatted at a time
FINDING_ROWS = 1 << 16


@dataclass
class FindingChunk:
    """Findings of a columnar batch (the records of a flagged slot, :class:`~d3d12wl.executor.learned_skips.
    FindingRows`) as columns: per row its ``template`` (an index into ``templates``: the finding but for
    ``primary_index`` and ``va``), ``primary_index``, ``va`` and ``va_absent``."""

    templates: list[Finding]
    template: np.ndarray
    primary_index: np.ndarray
    va: np.ndarray
    va_absent: np.ndarray

    def __len__(self) -> int:
        return len(self.template)

    def finding(self, r: int) -> Finding:
        t = self.templates[int(self.template[r])]
        return Finding(t.kind, t.rule, t.message, t.severity, t.list_index, int(self.primary_index[r]),
                       t.secondary_index, t.command_index, None if self.va_absent[r] else int(self.va[r]))

    def columns(self) -> dict[str, np.ndarray]:
        return {"primary_index": self.primary_index, "va": self.va}


#: picks findings ``start .. stop - 1`` of a segment of a trace's findings (a row mask; None: all); for a columnar
#: batch it is given the chunk's columns
SelectFindings = Callable[[list[Finding] | FindingChunk], "np.ndarray | None"]


def finding_chunks(findings: LazyList[Finding], select: SelectFindings | None = None) -> Iterator[
        list[Finding] | FindingChunk]:
    """A trace's findings in chunks of at most :data:`FINDING_ROWS`, in order: objects (a list), or the columns of
    a batch that holds them so (:class:`FindingChunk`); ``select`` picks the rows of each."""
    for seg in findings.segments:
        n = len(seg)
        templates = seg.templates() if hasattr(seg, "templates") else None
        columns_of = getattr(seg, "columns", None)
        for a in range(0, n, FINDING_ROWS):
            b = min(n, a + FINDING_ROWS)
            chunk: list[Finding] | FindingChunk
            if templates is not None and columns_of is not None:
                c = columns_of(a, b)
                chunk = FindingChunk(templates, c["template"], c["primary_index"], c["va"], c["va.absent"])
            else:
                chunk = seg[a:b] if isinstance(seg, list) else list(seg.items(a, b))
            mask = select(chunk) if select is not None else None
            if mask is not None:
                if isinstance(chunk, FindingChunk):
                    chunk = FindingChunk(templates or [], chunk.template[mask], chunk.primary_index[mask],
                                         chunk.va[mask], chunk.va_absent[mask])
                else:
                    chunk = [f for f, keep in zip(chunk, mask, strict=True) if keep]
            if len(chunk):
                yield chunk


def _finding_data(t: Finding) -> dict[str, Any]:
    d: dict[str, Any] = to_jsonable(t)
    d["primary_index"] = Value("primary_index", "sdec")
    d["va"] = Value("va", absent="null", mask="va.absent")
    return d


def _finding_text_parts(t: Finding, va_present: bool) -> list[Part]:
    """The parts of ``str(Finding)`` for findings like ``t`` (their primary index and VA are columns)."""
    like = dataclasses.replace(t, primary_index=0, va=0 if va_present else None)
    where = like.where_parts(lambda member, value: Value("primary_index", "sdec") if member == "primary_index"
                             else str(value), lambda va: Value("va", "hex"))
    return [f"{t.severity}: {t.kind} [{t.rule}]", *((" ", *where) if where else ()), f": {t.message}"]


def _write_findings(findings: LazyList[Finding], write: Write, templates: Callable[[Finding, bool], list[Part]],
                    render: Callable[[Finding], str], select: SelectFindings | None, first_skip: int) -> int:
    count = 0
    for chunk in finding_chunks(findings, select):
        skip = first_skip if count == 0 else 0
        if isinstance(chunk, list):
            write("".join(render(f) for f in chunk).encode("utf-8", TEXT_ERRORS)[skip:])
        else:
            parts = [templates(t, present) for t in chunk.templates for present in (True, False)]
            which = 2 * chunk.template + chunk.va_absent
            formatter = RowFormatter(parts)
            write_rows(formatter, chunk.columns(), len(chunk), which, write, {"va.absent": chunk.va_absent},
                          skip=skip)
        count += len(chunk)
    return count


def finding_json(findings: LazyList[Finding], write: Write, style: JSONStyle,
                 wrap: Callable[[Any], Any] = lambda d: d, *, select: SelectFindings | None = None,
                 first_skip: int = 0) -> int:
    """Every finding (``select`` picks) as ``style.prefix + style.dumps(wrap(to_jsonable(f))) + style.suffix``,
    those of a columnar batch from its columns; returns how many."""
    def templates(t: Finding, present: bool) -> list[Part]:
        parts = style.parts(wrap(_finding_data(t)))
        return [style.prefix, *(p for p in parts if not isinstance(p, Splice)), style.suffix]

    def render(f: Finding) -> str:
        return style.prefix + style.dumps(wrap(to_jsonable(f))) + style.suffix

    return _write_findings(findings, write, templates, render, select, first_skip)


def finding_text(findings: LazyList[Finding], write: Write, *, select: SelectFindings | None = None) -> int:
    """Every finding (``select`` picks) as ``  str(finding)`` and a newline; returns how many."""
    return _write_findings(findings, write, lambda t, present: ["  ", *_finding_text_parts(t, present), "\n"],
                           lambda f: f"  {f}\n", select, 0)
