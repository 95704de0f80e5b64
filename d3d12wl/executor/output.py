"""Every output of a trace, streamed from its columns: the human text, JSON and JSON lines (:data:`JSON_VERSIONS`:
version 1 byte for byte what ``json.dump(trace.to_dict(), indent=1)`` writes, version 2 the executions as the
execution table's rows), and the execution table as CSV, npz and Parquet; with the verdict (findings and the
end-of-call reset) in each.

Nothing here holds the trace as objects: executions and primary records are written from the trace's columns by
:mod:`d3d12wl.executor.rows` (templates filled by the C formatter of :mod:`d3d12wl.output.textrows`), the table formats
chunk by chunk from :func:`~d3d12wl.executor.execution_table.execution_columns`.  The memory an output needs is a chunk's,
whatever the trace's length.

The execution table (CSV, npz, Parquet; :data:`TABLE_VERSION`) has one column per :func:`table_columns` entry, one
encoding per value: VAs are unsigned 64-bit integers in npz and Parquet and ``0x`` hexadecimal in CSV; root
constants' DWORDs unsigned 32-bit (hexadecimal in CSV); names (program, PCS, trigger, executable class, every
``.source``, every record member of a ``.field`` column and ``trigger_field``) and enum members (``ia.ib.Format``) are categorical (Parquet: dictionary columns; npz: int32 codes
into a ``names.<column>`` array, -1 absent; CSV: the name); a value an execution does not have is null (Parquet),
empty (CSV) or flagged by the ``<column>.absent`` field (npz).  The verdict table (:data:`VERDICT_COLUMNS`) holds a
row per finding (``record`` ``finding``) and per binding the end-of-call reset sets (``record`` ``reset``).
"""

from __future__ import annotations

import dataclasses
import io
import json
import queue
import threading
import zipfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import IO, Any

import numpy as np

from d3d12wl.executor import rows as rows_
from d3d12wl.executor.execution_table import (
    FIELD_NAMES,
    INDEX_COLUMNS,
    NAME_COLUMNS,
    SOURCE_NAMES,
    VA_COLUMNS,
    ExecutionColumns,
    ExecutionRun,
    execution_runs,
    execution_schema,
    is_field_column,
)
from d3d12wl.executor.selection import Budget, LeftOut, Selection
from d3d12wl.executor.table_json import row_template
from d3d12wl.executor.trace import Finding, LazyList, ListTrace, PrimaryRecordTrace, Trace
from d3d12wl.output import arrowcols
from d3d12wl.output.blockwriter import BlockWriter, Make, default_workers, write_block
from d3d12wl.output.outfiles import TEXT_ERRORS
from d3d12wl.output.serialize import json_text, to_jsonable
from d3d12wl.output.textrows import RowFormatter, Value, csv_cell
from d3d12wl.records.packers import pack_columns

__all__ = ["FORMATS", "JSON_VERSION", "JSON_VERSIONS", "TABLE_VERSION", "VERDICT_COLUMNS", "ColumnSpec", "Written",
           "table_columns", "verdict", "write_csv", "write_json", "write_jsonl", "write_npz", "write_parquet", "write_text", "write_verdict_csv",
           "write_verdict_parquet"]

#: the formats ``d3d12wl exec --format`` writes (parquet needs the optional pyarrow,
#: ``pip install 'd3d12wl[parquet]'``)
FORMATS = ("text", "json", "jsonl", "csv", "npz", "parquet")
#: the layout of the execution and verdict tables (CSV, npz, Parquet).  1 (d3d12wl 0.2): the execution table only,
#: -1 / 0 for absent values, names by code in npz, integers for enums, trigger members alphabetical;
#: 2: this module's docstring without the record members; 3: version 2 and the record member that supplied each
#: value some execution takes from a record (``<column>.field`` after the value's ``.source`` / ``.va``,
#: ``trigger_field`` after the trigger's members; names in ``names["field"]``), every version 2 column with its name,
#: type, meaning and order among the others kept
TABLE_VERSION = 3
#: the versions of the JSON and JSON lines outputs (``exec --json-version``).  1: the trace's own shape
#: (``Trace.to_dict()``; JSON byte for byte ``json.dump(trace.to_dict(), indent=1)``, JSON lines one record per
#: line), every execution with its nested root arguments, registers, sources and origins (2-3 KB each); 2: version
#: 1 with every execution as the execution table's row (:mod:`d3d12wl.executor.table_json`: the columns of
#: :func:`table_columns`, flat, ``null`` where absent; 0.8 KB each on the culling frame), and the version, the
#: table's version and its columns said first (the JSON document's first members, JSON lines' ``call`` record)
JSON_VERSIONS = (1, 2)
#: the version ``exec --format json`` and ``--format jsonl`` write unless ``--json-version`` says otherwise
#: (``exec --json``, the trace that ``diff`` and the migration checks read, is version 1)
JSON_VERSION = 2
#: rows per chunk of the table formats
CHUNK_ROWS = 1 << 16
#: chunks of the execution table built ahead of the one being written (execution_table.execution_runs' ``ahead``), where
#: the output is made on more than one thread
RUNS_AHEAD = 2
#: findings written into a Parquet file's key-value metadata at most (all of them are in the verdict table)
METADATA_FINDINGS = 10_000
#: the trace objects written member by member (they hold LazyLists); everything else is one json.dumps
_STREAMED = (Trace, ListTrace, PrimaryRecordTrace)

Write = Callable[[Any], Any]
Progress = Callable[[int], None]


@dataclass
class Written:
    """What a writer wrote of a trace: how many executions, findings and reset rows, and what the selection left
    out."""

    executions: int = 0
    findings: int = 0
    resets: int = 0
    left_out: LeftOut = dataclasses.field(default_factory=LeftOut)


def _byte_writer(out: IO[Any]) -> Write:
    """A function writing bytes (or a memoryview of them) to ``out``, a binary or a text file."""
    if isinstance(out, io.StringIO) or (isinstance(out, io.TextIOBase) and not hasattr(out, "buffer")):
        return lambda data: out.write(bytes(data).decode("utf-8"))
    if isinstance(out, io.TextIOBase):
        out.flush()
        raw = out.buffer
        return raw.write
    return out.write


# -- the verdict --------------------------------------------------------------------------------------------------


def verdict(trace: Trace, selection: Selection | None = None) -> dict[str, Any]:
    """The verdict of a trace: ``exit_status`` (1 with error findings, else 0), findings by kind and by severity,
    how many were suppressed (``--max-findings``), the end-of-call reset and why the call stopped."""
    by_kind: dict[str, int] = {}
    by_severity: dict[str, int] = {}
    for (severity, kind), n in trace.finding_counts().items():
        by_kind[kind] = by_kind.get(kind, 0) + n
        by_severity[severity] = by_severity.get(severity, 0) + n
    return {"exit_status": 1 if by_severity.get("error") else 0, "findings": len(trace.findings),
            "findings_by_kind": by_kind, "findings_by_severity": by_severity,
            "findings_suppressed": trace.findings_suppressed, "stopped_reason": trace.stopped_reason,
            "end_of_call_reset": to_jsonable(trace.end_of_call_reset)}


def _finding_select(selection: Selection, left: LeftOut) -> rows_.SelectFindings | None:
    """The findings of each chunk ``selection`` shows (None: all), counting what its limit leaves out."""
    if selection.kinds is None and selection.list_index is None and selection.primary is None and \
            not selection.limit:
        return None
    budget = Budget(selection.limit)

    def select(chunk: list[Finding] | rows_.FindingChunk) -> np.ndarray:
        mask = selection.finding_rows(chunk)
        hits = np.flatnonzero(mask)
        shown = budget.take(len(hits))
        mask[hits[shown:]] = False
        left.findings += len(hits) - shown
        return mask

    return select


# -- execution and record selection --------------------------------------------------------------------------


def _execution_select(selection: Selection, left: LeftOut) -> Callable[[ExecutionRun], np.ndarray | None] | None:
    """The rows of each run ``selection`` shows, counting what its limit leaves out."""
    if not selection.narrows:
        return None
    budget = Budget(selection.limit)

    def select(run: ExecutionRun) -> np.ndarray | None:
        rows = selection.run_rows(run)
        shown = budget.take(len(rows))
        left.executions += len(rows) - shown
        return rows[:shown]

    return select


@dataclass
class _RecordSelection:
    """Which primary records (and how many of their secondary records) an output shows, across its lists."""

    selection: Selection
    left: LeftOut

    def __post_init__(self) -> None:
        self.records = Budget(self.selection.limit)
        self.secondary = Budget(self.selection.limit) if self.selection.limit else None

    def select(self, list_index: int) -> Any:
        sel = self.selection
        if sel.primary is None and sel.program is None and not sel.limit:
            return None

        def select(records: Any, start: int, stop: int) -> np.ndarray:
            mask = sel.records(records, start, stop)
            hits = np.flatnonzero(mask)
            drop = hits[self.records.take(len(hits)):]
            mask[drop] = False
            if len(drop):
                self.left.primary_records[list_index] = self.left.primary_records.get(list_index, 0) + len(drop)
            return mask

        return select


# -- JSON ---------------------------------------------------------------------------------------------------------


#: blocks of rows made or waiting to be written at a time (None: one per worker thread and two more)
BLOCKS_AHEAD: int | None = None


def _block_writer(out: IO[Any], threads: int | None) -> BlockWriter:
    """The writer of a text output (text, JSON, JSON lines, CSV) to ``out``: its rows made on ``threads`` workers."""
    return BlockWriter(_byte_writer(out), workers=threads, ahead=BLOCKS_AHEAD, out=out)


def _check_version(version: int) -> None:
    if version not in JSON_VERSIONS:
        raise ValueError(f"JSON version {version!r} is not one of {', '.join(map(str, JSON_VERSIONS))}")


def _version_head(tables: _Tables) -> dict[str, Any]:
    """What a version 2 output says first: its version, the execution table's version and columns."""
    return {"version": 2, "table_version": TABLE_VERSION, "columns": [dataclasses.asdict(s) for s in tables.specs]}


def write_json(trace: Trace, out: IO[Any], *, selection: Selection | None = None,
               progress: Progress | None = None, threads: int | None = None, version: int = 1) -> Written:
    """Version 1 (:data:`JSON_VERSIONS`): ``trace.to_dict()`` as ``json.dump(..., indent=1)`` writes it, streamed:
    executions and primary records from the trace's columns, everything else item by item (``out``: a binary or a
    text file).  Version 2: ``version``, ``table_version`` and ``columns`` first, then the same members, the
    executions as the execution table's rows, one per line (:mod:`d3d12wl.executor.table_json`), and each list's
    primary records one per line too (their version 1 JSON without its indentation).  With a
    ``selection`` that narrows it, only what it selects, and a last member ``left_out``.  The rows are made on
    ``threads`` worker threads and written on one more (:class:`~d3d12wl.output.blockwriter.BlockWriter`; None: one per
    CPU but the caller's, 0: none), the same bytes either way."""
    _check_version(version)
    selection = selection or Selection()
    with _block_writer(out, threads) as write:
        doc = _Document(selection, write, progress)
        if version == 2:
            doc.tables = _Tables(trace, selection, doc.written, progress, threads)
        doc.value(trace, 0)
        write(b"\n")
    return doc.written


def _fields(obj: Any) -> Iterator[tuple[str, Any]]:
    for f in dataclasses.fields(obj):
        if f.metadata.get("json", True):
            yield f.name, getattr(obj, f.name)
    for name in getattr(type(obj), "JSON_PROPERTIES", ()):
        yield name, getattr(obj, name)


class _Document:
    """One JSON document being written: ``json.dumps(..., indent=1)`` of the trace, member by member."""

    def __init__(self, selection: Selection, write: Write, progress: Progress | None) -> None:
        self.selection = selection
        self.write = write
        self.progress = progress
        self.written = Written()
        self.records = _RecordSelection(selection, self.written.left_out)
        #: the execution table of a version 2 document (None: version 1)
        self.tables: _Tables | None = None

    def value(self, value: Any, depth: int, rows: str | None = None, list_index: int = 0) -> None:
        sel, write = self.selection, self.write
        pad = " " * (depth + 1)
        if isinstance(value, Trace):
            lists = [lt for lt in value.lists if sel.takes_list(lt.index)]
            self.written.resets = len(value.end_of_call_reset)
            write(b"{")
            head = [] if self.tables is None else list(_version_head(self.tables).items())
            for i, (name, member) in enumerate([*head, *_fields(value)]):
                member = lists if name == "lists" else member
                write(f"{',' if i else ''}\n{pad}{json.dumps(name)}: ".encode("utf-8", TEXT_ERRORS))
                self.value(member, depth + 1, name if name in ("executions", "findings") else None)
            if sel.narrows:
                write(f",\n{pad}\"left_out\": ".encode("utf-8", TEXT_ERRORS))
                self.value(self.written.left_out.to_dict(), depth + 1)
            write(("\n" + " " * depth + "}").encode("utf-8", TEXT_ERRORS))
        elif isinstance(value, LazyList) or isinstance(value, list) and (
                rows is not None or len(value) >= 64 or any(isinstance(v, _STREAMED) for v in value)):
            self.items(value, depth, rows, list_index)
        elif isinstance(value, _STREAMED):
            write(b"{")
            for i, (name, member) in enumerate(_fields(value)):
                write(f"{',' if i else ''}\n{pad}{json.dumps(name)}: ".encode("utf-8", TEXT_ERRORS))
                self.value(member, depth + 1, "records" if isinstance(value, ListTrace) and name == "primary_records"
                           else None, value.index if isinstance(value, ListTrace) else 0)
            write(("\n" + " " * depth + "}").encode("utf-8", TEXT_ERRORS))
        else:
            write(json_text(to_jsonable(value), indent=1).replace("\n", "\n" + " " * depth).encode("utf-8", TEXT_ERRORS))

    def items(self, items: Sequence[Any], depth: int, rows: str | None, list_index: int) -> None:
        """A list, ``[]`` when nothing of it is written (json.dumps's empty list)."""
        pad = " " * (depth + 1)
        write = _Opening(self.write, b"[")
        style = rows_.JSONStyle(indent=1, depth=depth + 1, prefix=",\n" + pad)
        left = self.written.left_out
        if rows == "executions" and self.tables is not None:
            tables = self.tables
            tables.write_rows(write, partial(row_template, tables.specs, tables.names_of, lead=",\n" + pad),
                              first_skip=1)
        elif rows == "executions":
            self.written.executions = rows_.execution_json(
                items, write, style, first_skip=1,  # type: ignore[arg-type]
                select=_execution_select(self.selection, left), progress=self.progress)
        elif rows == "records":
            if self.tables is not None:  # (version 2: a primary record a line, as its executions)
                style = rows_.JSONStyle(separators=(",", ":"), prefix=",\n" + pad)
            _, skipped = rows_.record_json(items, write, style, depth=depth + 1, first_skip=1,  # type: ignore[arg-type]
                                           select=self.records.select(list_index), secondary=self.records.secondary)
            left.secondary_records += skipped
        elif rows == "findings":
            self.written.findings = rows_.finding_json(items, write, style,  # type: ignore[arg-type]
                                                       select=_finding_select(self.selection, left), first_skip=1)
        else:
            for i, item in enumerate(items):
                write((",\n" if i else "\n").encode("utf-8", TEXT_ERRORS) + pad.encode("utf-8", TEXT_ERRORS))
                self.value(item, depth + 1)
        self.write(("\n" + " " * depth + "]").encode("utf-8", TEXT_ERRORS) if write.opened else b"[]")


class _Opening:
    """A writer that writes ``first`` before the first bytes or block it is given (a list's ``[``: an empty list
    is ``[]``)."""

    def __init__(self, write: Write, first: bytes) -> None:
        self.write, self.first, self.opened = write, first, False

    def _open(self) -> None:
        if not self.opened:
            self.write(self.first)
            self.opened = True

    def __call__(self, data: Any) -> None:
        self._open()
        self.write(data)

    def block(self, make: Make) -> None:
        self._open()
        write_block(self.write, make)


# -- JSON lines -----------------------------------------------------------------------------------------------


def _primary_record_line(list_index: int, d: dict[str, Any]) -> dict[str, Any]:
    return {"record": "primary_record", "list_index": list_index, **d}


def write_jsonl(trace: Trace, out: IO[Any], *, selection: Selection | None = None,
                progress: Progress | None = None, threads: int | None = None, version: int = 1) -> Written:
    """One JSON object per line, each with a ``record`` key: ``call`` (call, call_args, limits; version 2 first
    ``version``, ``table_version`` and ``columns``), ``list`` (a list trace without its records),
    ``primary_record`` (with ``list_index``), ``validator_invocation``, ``execution`` (version 2: the execution
    table's row, :mod:`d3d12wl.executor.table_json`), ``reset``, ``finding``, and last ``end``
    (findings_suppressed, stopped_reason, graphics_lists, the verdict: exit_status, findings, findings_by_kind,
    findings_by_severity; and left_out when a selection narrows the trace).  ``threads``: as
    :func:`write_json`'s."""
    _check_version(version)
    with _block_writer(out, threads) as write:
        return _write_jsonl(trace, write, selection or Selection(), progress, version, threads)


def _write_jsonl(trace: Trace, write: Write, selection: Selection, progress: Progress | None,
                 version: int, threads: int | None) -> Written:
    written = Written()
    tables = _Tables(trace, selection, written, progress, threads) if version == 2 else None

    def line(kind: str, body: Any, **extra: Any) -> None:
        write(json.dumps({"record": kind, **extra, **to_jsonable(body)}, separators=(",", ":")).encode("utf-8", TEXT_ERRORS) + b"\n")

    compact = rows_.JSONStyle(separators=(",", ":"), suffix="\n")
    records = _RecordSelection(selection, written.left_out)
    line("call", {**({} if tables is None else _version_head(tables)), "call": trace.call,
                  "call_args": trace.call_args, "limits": trace.limits})
    for lt in trace.lists:
        if not selection.takes_list(lt.index):
            continue
        line("list", {name: value for name, value in _fields(lt) if name != "primary_records"})
        _, left = rows_.record_json(lt.primary_records, write, compact, partial(_primary_record_line, lt.index),
                                    depth=0, select=records.select(lt.index), secondary=records.secondary)
        written.left_out.secondary_records += left
    for v in trace.validator_invocations:
        line("validator_invocation", v)
    if tables is not None:
        tables.write_rows(write, partial(row_template, tables.specs, tables.names_of, keys='"record":"execution",',
                                         trail="\n"))
    else:
        written.executions = rows_.execution_json(trace.executions, write, compact,
                                                  lambda d: {"record": "execution", **d},
                                                  select=_execution_select(selection, written.left_out),
                                                  progress=progress)
    for r in trace.end_of_call_reset:
        line("reset", r)
    written.findings = rows_.finding_json(trace.findings, write, compact, lambda d: {"record": "finding", **d},
                                          select=_finding_select(selection, written.left_out))
    written.resets = len(trace.end_of_call_reset)
    status = verdict(trace)
    end = {"findings_suppressed": trace.findings_suppressed, "stopped_reason": trace.stopped_reason,
           "graphics_lists": trace.graphics_lists, "exit_status": status["exit_status"],
           "findings": status["findings"], "findings_by_kind": status["findings_by_kind"],
           "findings_by_severity": status["findings_by_severity"]}
    if selection.narrows:
        end["left_out"] = written.left_out.to_dict()
    line("end", end)
    return written


# -- text ---------------------------------------------------------------------------------------------------------


def _hex(value: Any) -> str:
    return f"0x{value:x}" if isinstance(value, int) else "-" if value is None else str(value)


def _arg(key: str, value: Any) -> str:
    if isinstance(value, int) and key.endswith(("Input", "Buffer", "Address")):
        return f"{key}=0x{value:x}"
    return f"{key}={'NULL' if value is None else value}"


def write_text(trace: Trace, out: IO[Any], *, validators: bool | None = None, selection: Selection | None = None,
               progress: Progress | None = None, threads: int | None = None) -> Written:
    """The human trace: the call, one line per list, the validator invocations (``validators``: print the block
    even when empty; None: only when there are any), one line per execution (from the columns), the end-of-call
    reset, the findings, and what a selection left out.  ``threads``: as :func:`write_json`'s."""
    with _block_writer(out, threads) as write:
        return _write_text(trace, write, validators, selection or Selection(), progress)


def _write_text(trace: Trace, write: Write, validators: bool | None, selection: Selection,
                progress: Progress | None) -> Written:
    from d3d12wl.executor.rows import execution_text

    written = Written()

    def lines(*texts: str) -> None:
        write(("".join(t + "\n" for t in texts)).encode("utf-8", TEXT_ERRORS))

    lines(f"{trace.call}({', '.join(_arg(k, v) for k, v in trace.call_args.items())})")
    for lt in trace.lists:
        if not selection.takes_list(lt.index):
            continue
        cont = ""
        if lt.continuation is not None:
            nxt = lt.continuation.get("next")
            cont = f"  next={_hex(nxt)}{' (followed)' if lt.continuation.get('followed') else ''}"
        lines(f"list {lt.index} @0x{lt.va:x}  {lt.input_struct}  NumProgramInputs="
              f"{lt.header.get('NumProgramInputs')}  flags={'|'.join(lt.flags) or 'NONE'}  signature "
              f"{lt.signature_index} {lt.signature or '-'}  {lt.executable_class or '-'}  "
              f"{lt.ordering or ''}{cont}{'  stopped: ' + lt.stopped if lt.stopped else ''}")
    if validators or (validators is None and trace.validator_invocations):
        lines(f"validator invocations ({len(trace.validator_invocations)})",
              *(validator_line(v) for v in trace.validator_invocations))
    select = _execution_select(selection, written.left_out)
    if select is None:
        lines(f"executions ({len(trace.executions)})")
        written.executions = execution_text(trace.executions, write, progress=progress)
    else:  # the count is known once they are written: the lines go to a buffer first (a selection is small)
        buf = io.BytesIO()
        written.executions = execution_text(trace.executions, buf.write, select=select, progress=progress)
        lines(f"executions ({written.executions} selected of {len(trace.executions)})")
        write(buf.getvalue())
    lines("end-of-call reset" + ("" if trace.end_of_call_reset else ": nothing"))
    for r in trace.end_of_call_reset:
        what = f"slot {r.slot}" if r.slot is not None else f"parameter {r.parameter}" if r.parameter is not None \
            else ""
        dwords = f" dwords {r.dwords}" if r.dwords else ""
        lines(f"  {r.binding_set:<8} {r.what} {what}{dwords} -> {r.reset_to}")
    written.resets = len(trace.end_of_call_reset)
    more = f", {trace.findings_suppressed} more suppressed" if trace.findings_suppressed else ""
    pick = _finding_select(selection, written.left_out)
    if pick is None:
        lines(f"findings ({len(trace.findings)}{more})")
        written.findings = rows_.finding_text(trace.findings, write)
    else:  # the count is known once they are written: the lines go to a buffer first (a selection is small)
        buf = io.BytesIO()
        written.findings = rows_.finding_text(trace.findings, buf.write, select=pick)
        shown = str(written.findings) if written.findings == len(trace.findings) else \
            f"{written.findings} selected of {len(trace.findings)}"
        lines(f"findings ({shown}{more})")
        write(buf.getvalue())
    if trace.stopped_reason:
        lines(f"stopped: {trace.stopped_reason}")
    if written.left_out.any():
        lines(f"{written.left_out.text()} (raise --limit, or narrow with --list / --primary / --program / --kind)")
    return written


#: the streamed rows of ``exec``'s validator invocations
def validator_line(v: Any) -> str:
    """One validator invocation: sequence, area and step, list and primary record, slot, validator, pointers."""
    from d3d12wl.output import tables

    columns = tables.Columns(widths=(6, 19, 7, 20, 8, 20, 0), align=(">", "<", "<", "<", "<", "<", "<"),
                             indent="  ")
    where = f"list {v.list_index}" + (f" primary {v.primary_index}" if v.primary_index is not None else "")
    pointers = " ".join(f"{k}={_hex(p) if p is not None else 'NULL'}" for k, p in v.pointers.items())
    return columns.row((f"#{v.sequence}", v.area, f"step {v.step} ", where, f"slot {v.slot}", v.validator,
                        pointers))


# -- the execution table ------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ColumnSpec:
    """One column of the execution table: ``kind`` is ``int`` (int64), ``va`` (uint64; hex in CSV), ``dword``
    (uint32; hex in CSV), ``category`` (a name: ``names`` is the name table its codes index) or ``enum`` (a member
    of enum ``names``, shown by name); ``nullable``: some execution has no value there."""

    name: str
    kind: str
    names: str | None = None
    nullable: bool = False


def _ia_member_type(name: str) -> str | None:
    """The C type of an IA column's member (``ia.ib.Format`` -> ``DXGI_FORMAT``), from the compiled headers."""
    from d3d12wl import abi

    tag, _, member = name[len("ia."):].partition(".")
    struct = "D3D12_INDEX_BUFFER_VIEW" if tag == "ib" else "D3D12_VERTEX_BUFFER_VIEW"
    for f in abi.type_info(struct).fields:
        if f.name == member:
            return str(f.type)
    return None


def column_spec(name: str, nullable: bool = False) -> ColumnSpec:
    """The :class:`ColumnSpec` of execution-table column ``name``."""
    from d3d12wl import abi

    if name in INDEX_COLUMNS:
        return ColumnSpec(name, "int", None, nullable)
    if is_field_column(name):
        return ColumnSpec(name, "category", FIELD_NAMES, nullable)
    if name in VA_COLUMNS or name.endswith(".va"):
        return ColumnSpec(name, "va", None, nullable)
    if name in NAME_COLUMNS:
        return ColumnSpec(name, "category", name, nullable)
    if name.endswith(".source"):
        return ColumnSpec(name, "category", SOURCE_NAMES, nullable)
    if name.startswith("root."):
        return ColumnSpec(name, "dword" if name.endswith("]") else "va", None, nullable)
    if name.startswith("ia."):
        ctype = _ia_member_type(name)
        if ctype == "D3D12_GPU_VIRTUAL_ADDRESS":
            return ColumnSpec(name, "va", None, nullable)
        if ctype is not None and ctype in abi.enums():
            return ColumnSpec(name, "enum", ctype, nullable)
    return ColumnSpec(name, "int", None, nullable)


def table_columns(trace: Trace) -> list[ColumnSpec]:
    """Every column of ``trace``'s execution table, in order, with its kind and whether it is nullable (a
    pre-pass over one execution per group of each batch: no table is built)."""
    keys, nullable = execution_schema(trace.executions)
    return [column_spec(k, k in nullable) for k in keys]


_NUMPY_TYPES: dict[str, np.dtype[Any]] = {"int": np.dtype(np.int64), "va": np.dtype(np.uint64), "dword": np.dtype(np.uint32),
                "category": np.dtype(np.int32), "enum": np.dtype(np.int32)}


class _Names:
    """A name table being built while the chunks are written: names in the order first met, codes into it."""

    def __init__(self, names: Sequence[str] = ()) -> None:
        self.names: list[str] = []
        self._of: dict[str, int] = {}
        for n in names:
            self.code(n)

    def code(self, name: str) -> int:
        got = self._of.get(name)
        if got is None:
            got = self._of[name] = len(self.names)
            self.names.append(name)
        return got

    def codes(self, texts: Sequence[str], codes: np.ndarray) -> np.ndarray:
        """Per-row codes into ``texts`` (-1 absent) as codes into this table (``codes`` itself, as int32, where
        ``texts`` are this table's first names)."""
        mine = [self.code(t) for t in texts]
        if mine == list(range(len(mine))):
            return codes.astype(np.int32, copy=False)
        remap = np.array([*mine, -1], dtype=np.int32)
        return remap.take(codes)  # (a code of -1 takes the last entry: -1)


def _enum_texts(enum: str, values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct members of ``values`` (enum ``enum``) by name, and each row's index into them."""
    from d3d12wl import abi

    distinct, inverse = np.unique(values, return_inverse=True)
    return [abi.enum_text(enum, int(v)) for v in distinct], inverse.reshape(-1)


class _Tables:
    """The execution table of a trace chunk by chunk (as the table formats write it): every run's columns with
    codes into name tables common to the whole output (categories and enum members)."""

    def __init__(self, trace: Trace, selection: Selection, written: Written, progress: Progress | None,
                 threads: int | None = None) -> None:
        self.trace = trace
        #: runs whose tables are built ahead on threads of their own (none where the output is made on one)
        self.ahead = RUNS_AHEAD if (default_workers() if threads is None else threads) else 0
        self.specs = table_columns(trace)
        self.names: dict[str, _Names] = {}
        for s in self.specs:
            if s.kind in ("category", "enum"):
                self.names.setdefault(self._names_key(s), _Names())
        self.select = _execution_select(selection, written.left_out)
        self.written = written
        self.progress = progress

    @staticmethod
    def _names_key(spec: ColumnSpec) -> str:
        return spec.names if spec.kind == "category" and spec.names else spec.name

    def names_of(self, spec: ColumnSpec) -> list[str]:
        """The name table (so far) that category or enum column ``spec``'s codes index."""
        return self.names[self._names_key(spec)].names

    def write_rows(self, write: Write, template: Callable[[], list[Any]], *, first_skip: int = 0) -> None:
        """Every row of :meth:`chunks` by ``template()`` (a row of :mod:`d3d12wl.output.textrows` parts: CSV's, JSON
        version 2's), made again only where a chunk met names the last one's did not have; ``first_skip`` bytes
        dropped from the first row (a separator).  The rows are counted in ``written`` as they are read."""
        formatter: RowFormatter | None = None
        known: tuple[int, ...] = ()
        skip = first_skip
        for n, values, absent in self.chunks():
            if not n:
                continue
            sizes = tuple(len(self.names_of(s)) for s in self.specs if s.kind in ("category", "enum"))
            if formatter is None or sizes != known:
                formatter, known = RowFormatter([template()]), sizes
            rows_.write_blocks(formatter, values, n, None, write, absent, skip=skip)
            skip = 0

    def chunks(self) -> Iterator[tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]]:
        """(rows, values, absent) per chunk of at most :data:`CHUNK_ROWS` rows (the runs of a trace's segments,
        joined up to that): ``values[name]`` in the column's numpy type (codes for names; 0 where absent),
        ``absent[name]`` True where a nullable column has no value.  Read them, never write them: some are views of
        the trace's own columns (the values are flagged read-only)."""
        pending: list[tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]] = []
        rows = 0
        for got in self._runs():
            pending.append(got)
            rows += got[0]
            while rows >= CHUNK_ROWS:
                n, values, absent = _joined(pending)
                yield CHUNK_ROWS, {k: v[:CHUNK_ROWS] for k, v in values.items()}, \
                    {k: v[:CHUNK_ROWS] for k, v in absent.items()}
                rows = n - CHUNK_ROWS
                pending = [(rows, {k: v[CHUNK_ROWS:] for k, v in values.items()},
                            {k: v[CHUNK_ROWS:] for k, v in absent.items()})] if rows else []
        if pending:
            yield _joined(pending)

    def _runs(self) -> Iterator[tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]]:
        for run in execution_runs(self.trace.executions, rows=CHUNK_ROWS, ahead=self.ahead):
            picked = self.select(run) if self.select is not None else None
            table = run.table
            if picked is not None:
                table = _taken(table, picked)
            n = len(table)
            if not n:
                continue
            values: dict[str, np.ndarray] = {}
            absent: dict[str, np.ndarray] = {}
            none: np.ndarray | None = None  # (one all-False mask for every column no row of this run lacks)
            for s in self.specs:
                col = table.columns.get(s.name)
                got = table.absent.get(s.name) if col is not None else np.ones(n, dtype=bool)
                if col is None:
                    col = np.zeros(n, dtype=_NUMPY_TYPES[s.kind])
                if s.kind == "category":
                    texts = table.names[s.names or s.name]
                    col = self.names[self._names_key(s)].codes(texts, col if got is None else np.where(got, -1, col))
                elif s.kind == "enum":
                    texts, inverse = _enum_texts(s.names or "", col)
                    col = self.names[s.name].codes(texts, inverse if got is None else np.where(got, -1, inverse))
                elif got is None:
                    col = col.astype(_NUMPY_TYPES[s.kind], copy=False)
                else:
                    col = col.astype(_NUMPY_TYPES[s.kind], copy=True)  # (absent values: 0)
                    col[got] = 0
                col.flags.writeable = False
                values[s.name] = col
                if s.nullable:
                    if got is None:
                        if none is None:
                            none = np.zeros(n, dtype=bool)
                            none.flags.writeable = False
                        got = none
                    absent[s.name] = got
            self.written.executions += n
            if self.progress is not None:
                self.progress(self.written.executions)
            yield n, values, absent


def _joined(parts: list[tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]]) -> tuple[
        int, dict[str, np.ndarray], dict[str, np.ndarray]]:
    if len(parts) == 1:
        return parts[0]
    return (sum(p[0] for p in parts), {k: np.concatenate([p[1][k] for p in parts]) for k in parts[0][1]},
            {k: np.concatenate([p[2][k] for p in parts]) for k in parts[0][2]})


def _taken(table: ExecutionColumns, rows: np.ndarray) -> ExecutionColumns:
    return ExecutionColumns({k: v[rows] for k, v in table.columns.items()}, table.names,
                            {k: v[rows] for k, v in table.absent.items()})


def _count(trace: Trace, selection: Selection) -> int:
    """How many executions ``selection`` shows (a pass over the columns; the whole trace when it narrows none)."""
    if not selection.narrows:
        return len(trace.executions)
    total = 0
    for run in execution_runs(trace.executions, rows=CHUNK_ROWS):
        mask = selection.executions(run.table)
        total += run.n if mask is None else int(mask.sum())
    return selection.bound(total)


# -- the verdict table --------------------------------------------------------------------------------------------

#: the verdict table (CSV and Parquet sidecars, the npz ``findings`` array): ``record`` is ``finding`` or
#: ``reset``; a finding fills severity .. message, a reset entry binding_set .. touched_by
VERDICT_COLUMNS = ("record", "severity", "kind", "rule", "list_index", "primary_index", "secondary_index",
                   "command_index", "va", "message", "binding_set", "what", "parameter", "slot", "dwords", "reset_to",
                   "touched_by")
_VERDICT_INTS = ("list_index", "primary_index", "secondary_index", "command_index", "parameter", "slot")


_VERDICT_STRINGS = ("message", "dwords", "touched_by")  # free text (the other names are categorical)



@dataclass
class _VerdictChunk:
    """Rows of the verdict table as columns: per text column its names and each row's code into them (-1:
    absent), per number column its values and where they are absent."""

    n: int
    names: dict[str, tuple[list[str], np.ndarray]]
    numbers: dict[str, tuple[np.ndarray, np.ndarray]]


def _text_column(values: Sequence[str | None]) -> tuple[list[str], np.ndarray]:
    table = _Names()
    return table.names, np.array([-1 if v is None else table.code(v) for v in values], dtype=np.int64)


def _number_column(values: Sequence[int | None], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([0 if v is None else v for v in values], dtype=dtype),
            np.array([v is None for v in values], dtype=bool))


def _verdict_chunks(trace: Trace, selection: Selection, written: Written) -> Iterator[_VerdictChunk]:
    """The verdict table of ``trace`` (the findings ``selection`` shows, then the end-of-call reset) in chunks,
    the findings of a columnar batch from its columns."""
    count = 0
    for chunk in rows_.finding_chunks(trace.findings, _finding_select(selection, written.left_out)):
        n = len(chunk)
        count += n
        if isinstance(chunk, list):
            names = {c: _text_column([getattr(f, c) for f in chunk]) for c in ("severity", "kind", "rule",
                                                                              "message")}
            numbers = {c: _number_column([getattr(f, c) for f in chunk], np.uint64 if c == "va" else np.int64)
                       for c in ("list_index", "primary_index", "secondary_index", "command_index", "va")}
        else:
            t, which = chunk.templates, chunk.template
            names = {c: ([getattr(f, c) for f in t], which) for c in ("severity", "kind", "rule", "message")}
            numbers = {"primary_index": (chunk.primary_index.astype(np.int64), np.zeros(n, dtype=bool)),
                       "va": (chunk.va, chunk.va_absent)}
            for c in ("list_index", "secondary_index", "command_index"):
                values, gone = _number_column([getattr(f, c) for f in t], np.int64)
                numbers[c] = (values[which], gone[which])
        names["record"] = (["finding"], np.zeros(n, dtype=np.int64))
        yield _VerdictChunk(n, names, numbers)
    written.findings = count
    reset = trace.end_of_call_reset
    written.resets = len(reset)
    if reset:
        names = {"record": (["reset"], np.zeros(len(reset), dtype=np.int64)),
                 "binding_set": _text_column([r.binding_set for r in reset]),
                 "what": _text_column([r.what for r in reset]),
                 "dwords": _text_column([" ".join(map(str, r.dwords)) if r.dwords else None for r in reset]),
                 "reset_to": _text_column([r.reset_to for r in reset]),
                 "touched_by": _text_column([",".join(r.touched_by) for r in reset])}
        numbers = {c: _number_column([getattr(r, c) for r in reset], np.int64) for c in ("parameter", "slot")}
        yield _VerdictChunk(len(reset), names, numbers)


def _verdict_column(chunk: _VerdictChunk, c: str) -> tuple[Any, Any]:
    """Column ``c`` of a chunk: (names, codes) or (values, absent); a column the chunk lacks is all absent."""
    if c in chunk.names:
        return chunk.names[c]
    if c in chunk.numbers:
        return chunk.numbers[c]
    if c in _VERDICT_INTS or c == "va":
        return np.zeros(chunk.n, dtype=np.uint64 if c == "va" else np.int64), np.ones(chunk.n, dtype=bool)
    return [], np.full(chunk.n, -1, dtype=np.int64)


def write_verdict_csv(trace: Trace, out: IO[Any], *, selection: Selection | None = None) -> Written:
    """The verdict table (:data:`VERDICT_COLUMNS`) as CSV: VAs in hexadecimal, absent values empty."""
    written = Written()
    write = _byte_writer(out)
    write((",".join(VERDICT_COLUMNS) + "\n").encode("utf-8", TEXT_ERRORS))
    for chunk in _verdict_chunks(trace, selection or Selection(), written):
        parts: list[Any] = []
        columns: dict[str, np.ndarray] = {}
        masks: dict[str, np.ndarray] = {}
        for i, c in enumerate(VERDICT_COLUMNS):
            if i:
                parts.append(",")
            first, second = _verdict_column(chunk, c)
            if c in _VERDICT_INTS or c == "va":
                columns[c], masks[c] = first, second
                parts.append(Value(c, "hex", mask=c, prefix="0x") if c == "va" else Value(c, "sdec", mask=c))
            else:
                columns[c] = second
                parts.append(Value(c, "dict", names=tuple(csv_cell(t) for t in first)))
        parts.append("\n")
        rows_.write_blocks(RowFormatter([parts]), columns, chunk.n, None, write, masks)
    return written


def write_verdict_parquet(trace: Trace, out: Any, *, selection: Selection | None = None) -> Written:
    """The verdict table (:data:`VERDICT_COLUMNS`) as Parquet, a row group per chunk: names as dictionary columns
    (free text as strings), VAs uint64, absent values null."""
    pa = _pyarrow()[0]
    written = Written()
    fields = [pa.field(c, pa.int64() if c in _VERDICT_INTS else pa.uint64() if c == "va" else pa.string()
                       if c in _VERDICT_STRINGS else pa.dictionary(pa.int32(), pa.string())) for c in VERDICT_COLUMNS]
    schema = pa.schema(fields)

    def tables() -> Iterator[Any]:
        for chunk in _verdict_chunks(trace, selection or Selection(), written):
            arrays = []
            for c, f in zip(VERDICT_COLUMNS, fields, strict=True):
                first, second = _verdict_column(chunk, c)
                if c in _VERDICT_INTS or c == "va":
                    arrays.append(arrowcols.numbers(first, f.type, second))
                    continue
                arr = arrowcols.dictionary(second, first)
                arrays.append(arr.cast(pa.string()) if c in _VERDICT_STRINGS else arr)
            yield pa.Table.from_arrays(arrays, schema=schema)

    _write_parquet_tables(out, schema, tables())
    return written


#: row groups made ahead of the one being encoded (memory: one chunk's columns each)
PARQUET_AHEAD = 2


def _write_parquet_tables(out: Any, schema: Any, tables: Iterable[Any], **options: Any) -> None:
    """``tables`` (pyarrow Tables of ``schema``) as the row groups of one Parquet file at ``out`` (a path or a
    binary file, written sequentially: a pipe works), an empty one when there are none.  Each row group is encoded
    and written on a thread of its own while the next ones are made (pyarrow lets go of the GIL as it encodes), at
    most :data:`PARQUET_AHEAD` of them waiting; an error of the writer (a full disk) is raised here, and an
    interrupt here lets the row group being written finish before the file is closed."""
    pa, pq = _pyarrow()
    options = {"write_batch_size": arrowcols.PARQUET_WRITE_BATCH, **options}
    if isinstance(out, str):
        _encode_parquet(pq.ParquetWriter(out, schema, **options), schema, tables)
        return
    kept = arrowcols.KeptFailures(out)
    with kept.raising():
        _encode_parquet(pq.ParquetWriter(pa.PythonFile(kept, mode="w"), schema, **options), schema, tables)


def _encode_parquet(writer: Any, schema: Any, tables: Iterable[Any]) -> None:
    pending: queue.Queue[Any] = queue.Queue(maxsize=PARQUET_AHEAD)
    failed: list[BaseException] = []

    def encode() -> None:
        while (table := pending.get()) is not None:
            if not failed:  # (after a failure, only drained: the maker never waits on a dead writer)
                try:
                    writer.write_table(table)
                except BaseException as exc:  # noqa: BLE001 - raised again in the maker's thread
                    failed.append(exc)

    encoder = threading.Thread(target=encode, name="d3d12wl-parquet", daemon=True)
    encoder.start()
    try:
        wrote = False
        try:
            for table in tables:
                if failed:
                    break
                pending.put(table)
                wrote = True
        finally:
            pending.put(None)
            encoder.join()
        if failed:
            raise failed[0]
        if not wrote:
            writer.write_table(schema.empty_table())
    finally:
        writer.close()


def _npz_verdict_columns(chunk: _VerdictChunk, tables: dict[str, _Names]) -> dict[str, np.ndarray]:
    cols: dict[str, np.ndarray] = {}
    for c in VERDICT_COLUMNS:
        first, second = _verdict_column(chunk, c)
        if c in _VERDICT_INTS or c == "va":
            cols[c], cols[f"{c}.absent"] = first, second
        elif c in _VERDICT_STRINGS:
            texts = np.array([*first, ""], dtype=str)
            cols[c] = texts[np.where(second < 0, len(first), second)]
        else:
            cols[c] = tables[c].codes(first, second)
    return cols


def _write_npz_verdict(z: zipfile.ZipFile, trace: Trace, selection: Selection, written: Written) -> dict[
        str, list[str]]:
    """The verdict table into ``z`` as ``findings.npy``, a structured array (names as codes into name tables, free
    text as strings, ``<column>.absent`` beside every number), chunk by chunk: a first pass counts the rows and
    measures the text, the second writes them.  Returns the name tables."""
    rows, widths = 0, dict.fromkeys(_VERDICT_STRINGS, 1)
    for chunk in _verdict_chunks(trace, selection, Written()):  # (what the selection leaves out: counted below)
        rows += chunk.n
        for c in _VERDICT_STRINGS:
            names = _verdict_column(chunk, c)[0]
            widths[c] = max([widths[c], *(len(t) for t in names)])
    fields: list[tuple[str, Any]] = []
    for c in VERDICT_COLUMNS:
        if c in _VERDICT_INTS or c == "va":
            fields += [(c, np.dtype(np.uint64 if c == "va" else np.int64)), (f"{c}.absent", np.dtype(np.bool_))]
        elif c in _VERDICT_STRINGS:
            fields.append((c, np.dtype(f"U{widths[c]}")))
        else:
            fields.append((c, np.dtype(np.int32)))
    dtype = np.dtype(fields)
    tables = {c: _Names() for c, _ in fields if c not in _VERDICT_STRINGS and c not in _VERDICT_INTS and c != "va"
              and not c.endswith(".absent")}
    with z.open("findings.npy", "w", force_zip64=True) as entry:
        np.lib.format.write_array_header_2_0(entry, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                     "fortran_order": False, "shape": (rows,)})
        for chunk in _verdict_chunks(trace, selection, written):
            out = np.zeros(chunk.n, dtype=dtype)
            for c, col in _npz_verdict_columns(chunk, tables).items():
                out[c] = col
            entry.write(out.tobytes())
    return {c: t.names for c, t in tables.items()}


def _meta(trace: Trace, specs: Sequence[ColumnSpec], executions: int, written: Written,
          selection: Selection) -> dict[str, Any]:
    """What a table output says about itself and the call (npz ``meta``, Parquet's ``d3d12wl`` metadata key)."""
    out = {"format": "d3d12wl execution table", "version": TABLE_VERSION, "call": trace.call,
           "call_args": to_jsonable(trace.call_args), "limits": to_jsonable(trace.limits), "executions": executions,
           "columns": [dataclasses.asdict(s) for s in specs], **verdict(trace)}
    if selection.narrows:
        out["left_out"] = written.left_out.to_dict()
    return out


# -- CSV --------------------------------------------------------------------------------------------------------


def write_csv(trace: Trace, out: IO[Any], *, selection: Selection | None = None,
              progress: Progress | None = None, threads: int | None = None) -> Written:
    """The execution table as CSV (a header row, one row per execution): VAs and DWORDs in ``0x`` hexadecimal,
    names and enum members by name, absent values empty.  The verdict is :func:`write_verdict_csv`'s.  The rows
    are made on ``threads`` worker threads and written on one more while the next chunk's columns are built
    (``threads``: as :func:`write_json`'s), the same bytes either way."""
    selection = selection or Selection()
    written = Written()
    tables = _Tables(trace, selection, written, progress, threads)
    with _block_writer(out, threads) as write:
        _write_csv_rows(tables, write)
    written.resets = len(trace.end_of_call_reset)
    return written


def _write_csv_rows(tables: _Tables, write: Write) -> None:
    write((",".join(csv_cell(s.name) for s in tables.specs) + "\n").encode("utf-8", TEXT_ERRORS))
    tables.write_rows(write, lambda: _csv_template(tables))


def _csv_template(tables: _Tables) -> list[Any]:
    """One CSV row of ``tables``' columns, names by the name tables as they are now."""
    parts: list[Any] = []
    for i, s in enumerate(tables.specs):
        if i:
            parts.append(",")
        mask = s.name if s.nullable else None
        if s.kind in ("category", "enum"):
            parts.append(Value(s.name, "dict", names=tuple(csv_cell(t) for t in tables.names_of(s))))
        elif s.kind in ("va", "dword"):
            parts.append(Value(s.name, "hex", mask=mask, prefix="0x"))
        else:
            parts.append(Value(s.name, "sdec", mask=mask))
    parts.append("\n")
    return parts


# -- npz --------------------------------------------------------------------------------------------------------


def _npz_dtype(specs: Sequence[ColumnSpec]) -> np.dtype:
    names, formats = [], []
    for s in specs:
        names.append(s.name)
        formats.append(_NUMPY_TYPES[s.kind])
        if s.nullable and s.kind not in ("category", "enum"):
            names.append(f"{s.name}.absent")
            formats.append(np.dtype(np.bool_))
    return np.dtype({"names": names, "formats": formats})


def write_npz(trace: Trace, out: str | IO[bytes], *, selection: Selection | None = None,
              progress: Progress | None = None) -> Written:
    """The execution table and the verdict as an ``.npz`` (what ``numpy.load`` reads): ``executions``, a
    structured array of one field per column (and ``<column>.absent`` beside every nullable one that is not
    categorical), ``findings`` (the verdict table, :data:`VERDICT_COLUMNS`), ``names.<column>`` for every code
    column (``names.findings.<column>`` for the verdict's), and ``meta`` (JSON: the format version, the call, the
    columns, the verdict).  Written chunk by chunk straight into the zip (a pipe works: nothing is seeked), so
    the memory it needs is one chunk's."""
    selection = selection or Selection()
    written = Written()
    tables = _Tables(trace, selection, written, progress)
    dtype = _npz_dtype(tables.specs)
    n = _count(trace, selection)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        with z.open("executions.npy", "w", force_zip64=True) as entry:
            np.lib.format.write_array_header_2_0(entry, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                         "fortran_order": False, "shape": (n,)})
            done = 0
            fields = set(dtype.names or ())
            for rows, values, absent in tables.chunks():
                columns = {name: np.ascontiguousarray(col, dtype=dtype.fields[name][0])  # type: ignore[index]
                           for name, col in values.items()}
                columns.update({f"{name}.absent": np.ascontiguousarray(gone) for name, gone in absent.items()
                                if f"{name}.absent" in fields})
                entry.write(pack_columns(dtype, columns).data)
                done += rows
            assert done == n, (done, n)
        verdict_names = _write_npz_verdict(z, trace, selection, written)
        arrays: dict[str, np.ndarray] = {}
        for key, table in tables.names.items():
            arrays[f"names.{key}"] = np.array(table.names, dtype=str) if table.names else np.zeros(0, dtype="U1")
        for key, names in verdict_names.items():
            arrays[f"names.findings.{key}"] = np.array(names, dtype=str) if names else np.zeros(0, dtype="U1")
        arrays["meta"] = np.array(json.dumps(_meta(trace, tables.specs, n, written, selection)))
        for key, arr in arrays.items():
            with z.open(f"{key}.npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, arr, allow_pickle=False)
    return written


# -- Parquet ------------------------------------------------------------------------------------------------------


def _pyarrow() -> tuple[Any, Any]:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        from d3d12wl.errors import D3D12WLError

        raise D3D12WLError("--format parquet needs pyarrow: pip install 'd3d12wl[parquet]'",
                           where="--format") from None
    return pa, pq


def write_parquet(trace: Trace, out: str | IO[bytes], *, selection: Selection | None = None,
                  progress: Progress | None = None, verdict_file: str | None = None) -> Written:
    """The execution table as Parquet, one row group per chunk of :data:`CHUNK_ROWS` executions: names and enum
    members as dictionary columns, VAs uint64, DWORDs uint32, absent values null.  The schema's key-value metadata
    holds ``d3d12wl`` (JSON: the format version, the call, the columns, the verdict; ``verdict_file`` names the
    verdict table's file, :func:`write_verdict_parquet`) and ``d3d12wl.findings`` (JSON: the findings, at most
    :data:`METADATA_FINDINGS`).  Needs pyarrow (``pip install 'd3d12wl[parquet]'``); without it a
    :class:`~d3d12wl.errors.D3D12WLError`."""
    pa = _pyarrow()[0]
    selection = selection or Selection()
    written = Written()
    tables = _Tables(trace, selection, written, progress)
    types = {"int": pa.int64(), "va": pa.uint64(), "dword": pa.uint32()}
    fields = [pa.field(s.name, types.get(s.kind) or pa.dictionary(pa.int32(), pa.string()), nullable=True)
              for s in tables.specs]
    n = _count(trace, selection)
    meta = _meta(trace, tables.specs, n, written, selection)
    meta["findings_file"] = verdict_file
    shown = io.BytesIO()
    few = Selection(selection.list_index, selection.primary, selection.program, selection.kinds,
                    min(selection.limit or METADATA_FINDINGS, METADATA_FINDINGS))
    count = rows_.finding_json(trace.findings, shown.write, rows_.JSONStyle(separators=(",", ":"), prefix=","),
                               select=_finding_select(few, LeftOut()), first_skip=1)
    metadata = {b"d3d12wl": json.dumps(meta).encode("utf-8", TEXT_ERRORS), b"d3d12wl.findings": b"[" + shown.getvalue() + b"]"}
    more = verdict(trace)["findings"] - count if not selection.narrows else 0
    if more > 0:
        metadata[b"d3d12wl.findings_not_in_metadata"] = str(more).encode("utf-8", TEXT_ERRORS)
    schema = pa.schema(fields, metadata=metadata)

    def row_groups() -> Iterator[Any]:
        for _, values, absent in tables.chunks():
            arrays = []
            for s, f in zip(tables.specs, fields, strict=True):
                col, gone = values[s.name], absent.get(s.name)
                if s.kind in ("category", "enum"):
                    arrays.append(arrowcols.dictionary(col, tables.names[tables._names_key(s)].names))
                else:
                    arrays.append(arrowcols.numbers(col, f.type, gone))
            yield pa.Table.from_arrays(arrays, schema=schema)

    # dictionary pages for the categorical columns only: numbers (VAs, indices) are mostly distinct, and encoding
    # them as dictionaries took half the time for a larger file
    _write_parquet_tables(out, schema, row_groups(),
                          use_dictionary=[s.name for s in tables.specs if s.kind in ("category", "enum")])
    written.resets = len(trace.end_of_call_reset)
    return written
