"""Every output of a trace, streamed from its columns, with the verdict (findings and the end-of-call reset) in
each: the human text, JSON and JSON lines (:data:`JSON_VERSIONS`: version 1 byte for byte what
``json.dump(trace.to_dict(), indent=1)`` writes, version 2 the executions as the execution table's rows), and the
execution table as CSV, npz and Parquet with the verdict table (:mod:`d3d12wl.executor.trace_tables`), each through
the output stage's one encoder of its format.  :data:`TRACE_WRITERS` is the registry ``d3d12wl exec --format``
looks up.

Nothing here holds the trace as objects: executions and primary records are written from the trace's columns by
:mod:`d3d12wl.executor.rows` (templates filled by the C formatter of :mod:`d3d12wl.output.textrows`), the table
formats chunk by chunk from :class:`~d3d12wl.executor.trace_tables.ExecutionTable`.  The memory an output needs is
a chunk's, whatever the trace's length.
"""

from __future__ import annotations

import dataclasses
import io
import json
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from functools import partial
from typing import IO, Any

import numpy as np

from d3d12wl.executor import rows as rows_
from d3d12wl.executor.rows import Progress, hex_text
from d3d12wl.executor.selection import LeftOut, RecordPicker, Selection
from d3d12wl.executor.trace import LazyList, ListTrace, PrimaryRecordTrace, Trace, ValidatorInvocation
from d3d12wl.executor.trace_tables import (
    TABLE_VERSION,
    VERDICT_COLUMNS,
    ExecutionTable,
    VerdictTable,
    Written,
    meta,
    table_columns,
    verdict,
)
from d3d12wl.output import csv_table, npz_table, parquet_table, tables
from d3d12wl.output.blockwriter import BlockWriter, Make, write_block
from d3d12wl.output.json_table import row_template
from d3d12wl.output.outfiles import TEXT_ERRORS
from d3d12wl.output.serialize import json_text, to_jsonable
from d3d12wl.output.writers import Writer, Writers
from d3d12wl.records.packers import pack_columns

__all__ = ["FORMATS", "JSON_VERSION", "JSON_VERSIONS", "METADATA_FINDINGS", "TABLE_VERSION", "TRACE_WRITERS",
           "VERDICT_COLUMNS", "WriteOptions", "Written", "table_columns", "verdict", "write_csv", "write_json",
           "write_jsonl", "write_npz", "write_parquet", "write_text", "write_verdict_csv", "write_verdict_parquet"]

#: the versions of the JSON and JSON lines outputs (``exec --json-version``).  1: the trace's own shape
#: (``Trace.to_dict()``; JSON byte for byte ``json.dump(trace.to_dict(), indent=1)``, JSON lines one record per
#: line), every execution with its nested root arguments, registers, sources and origins (2-3 KB each); 2: version
#: 1 with every execution as the execution table's row (:mod:`d3d12wl.output.json_table`: the columns of
#: :func:`~d3d12wl.executor.trace_tables.table_columns`, flat, ``null`` where absent; 0.8 KB each on the culling frame), and the version, the
#: table's version and its columns said first (the JSON document's first members, JSON lines' ``call`` record)
JSON_VERSIONS = (1, 2)
#: the version ``exec --format json`` and ``--format jsonl`` write unless ``--json-version`` says otherwise
#: (``exec --json``, the trace that ``diff`` and the migration checks read, is version 1)
JSON_VERSION = 2
#: findings written into a Parquet file's key-value metadata at most (all of them are in the verdict table)
METADATA_FINDINGS = 10_000
#: the trace objects written member by member (they hold LazyLists); everything else is one json.dumps
_STREAMED = (Trace, ListTrace, PrimaryRecordTrace)

Write = Callable[[Any], Any]


def _byte_writer(out: IO[Any]) -> Write:
    """A function writing bytes (or a memoryview of them) to ``out``, a binary or a text file."""
    if isinstance(out, io.StringIO) or (isinstance(out, io.TextIOBase) and not hasattr(out, "buffer")):
        return lambda data: out.write(bytes(data).decode("utf-8"))
    if isinstance(out, io.TextIOBase):
        out.flush()
        raw = out.buffer
        return raw.write
    return out.write


# -- JSON ---------------------------------------------------------------------------------------------------------


#: blocks of rows made or waiting to be written at a time (None: one per worker thread and two more)
BLOCKS_AHEAD: int | None = None


def _block_writer(out: IO[Any], threads: int | None) -> BlockWriter:
    """The writer of a text output (text, JSON, JSON lines, CSV) to ``out``: its rows made on ``threads`` workers."""
    return BlockWriter(_byte_writer(out), workers=threads, ahead=BLOCKS_AHEAD, out=out)


def _check_version(version: int) -> None:
    if version not in JSON_VERSIONS:
        raise ValueError(f"JSON version {version!r} is not one of {', '.join(map(str, JSON_VERSIONS))}")


def _version_head(tables: ExecutionTable) -> dict[str, Any]:
    """What a version 2 output says first: its version, the execution table's version and columns."""
    return {"version": 2, "table_version": TABLE_VERSION, "columns": [dataclasses.asdict(s) for s in tables.specs]}


def write_json(trace: Trace, out: IO[Any], *, selection: Selection | None = None,
               progress: Progress | None = None, threads: int | None = None, version: int = 1) -> Written:
    """Version 1 (:data:`JSON_VERSIONS`): ``trace.to_dict()`` as ``json.dump(..., indent=1)`` writes it, streamed:
    executions and primary records from the trace's columns, everything else item by item (``out``: a binary or a
    text file).  Version 2: ``version``, ``table_version`` and ``columns`` first, then the same members, the
    executions as the execution table's rows, one per line (:mod:`d3d12wl.output.json_table`), and each list's
    primary records one per line too (their version 1 JSON without its indentation).  With a
    ``selection`` that narrows it, only what it selects, and a last member ``left_out``.  The rows are made on
    ``threads`` worker threads and written on one more (:class:`~d3d12wl.output.blockwriter.BlockWriter`; None: one per
    CPU but the caller's, 0: none), the same bytes either way."""
    _check_version(version)
    selection = selection or Selection()
    with _block_writer(out, threads) as write:
        doc = _Document(selection, write, progress)
        if version == 2:
            doc.tables = ExecutionTable(trace, selection, doc.written, progress, threads)
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
        self.records = RecordPicker(selection, self.written.left_out)
        #: the execution table of a version 2 document (None: version 1)
        self.tables: ExecutionTable | None = None

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
            csv_table.write_table_rows(tables, write, partial(row_template, tables.specs, lead=",\n" + pad),
                                       first_skip=1)
        elif rows == "executions":
            self.written.executions = rows_.execution_json(
                items, write, style, first_skip=1,  # type: ignore[arg-type]
                select=self.selection.run_picker(left), progress=self.progress)
        elif rows == "records":
            if self.tables is not None:  # (version 2: a primary record a line, as its executions)
                style = rows_.JSONStyle(separators=(",", ":"), prefix=",\n" + pad)
            _, skipped = rows_.record_json(items, write, style, depth=depth + 1, first_skip=1,  # type: ignore[arg-type]
                                           select=self.records.of_list(list_index), secondary=self.records.secondary)
            left.secondary_records += skipped
        elif rows == "findings":
            self.written.findings = rows_.finding_json(items, write, style,  # type: ignore[arg-type]
                                                       select=self.selection.finding_picker(left), first_skip=1)
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
    table's row, :mod:`d3d12wl.output.json_table`), ``reset``, ``finding``, and last ``end``
    (findings_suppressed, stopped_reason, graphics_lists, the verdict: exit_status, findings, findings_by_kind,
    findings_by_severity; and left_out when a selection narrows the trace).  ``threads``: as
    :func:`write_json`'s."""
    _check_version(version)
    with _block_writer(out, threads) as write:
        return _write_jsonl(trace, write, selection or Selection(), progress, version, threads)


def _write_jsonl(trace: Trace, write: Write, selection: Selection, progress: Progress | None,
                 version: int, threads: int | None) -> Written:
    written = Written()
    tables = ExecutionTable(trace, selection, written, progress, threads) if version == 2 else None

    def line(kind: str, body: Any, **extra: Any) -> None:
        write(json.dumps({"record": kind, **extra, **to_jsonable(body)}, separators=(",", ":")).encode("utf-8", TEXT_ERRORS) + b"\n")

    compact = rows_.JSONStyle(separators=(",", ":"), suffix="\n")
    records = RecordPicker(selection, written.left_out)
    line("call", {**({} if tables is None else _version_head(tables)), "call": trace.call,
                  "call_args": trace.call_args, "limits": trace.limits})
    for lt in trace.lists:
        if not selection.takes_list(lt.index):
            continue
        line("list", {name: value for name, value in _fields(lt) if name != "primary_records"})
        _, left = rows_.record_json(lt.primary_records, write, compact, partial(_primary_record_line, lt.index),
                                    depth=0, select=records.of_list(lt.index), secondary=records.secondary)
        written.left_out.secondary_records += left
    for v in trace.validator_invocations:
        line("validator_invocation", v)
    if tables is not None:
        csv_table.write_table_rows(tables, write, partial(row_template, tables.specs, keys='"record":"execution",',
                                                          trail="\n"))
    else:
        written.executions = rows_.execution_json(trace.executions, write, compact,
                                                  lambda d: {"record": "execution", **d},
                                                  select=selection.run_picker(written.left_out),
                                                  progress=progress)
    for r in trace.end_of_call_reset:
        line("reset", r)
    written.findings = rows_.finding_json(trace.findings, write, compact, lambda d: {"record": "finding", **d},
                                          select=selection.finding_picker(written.left_out))
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
            cont = f"  next={hex_text(nxt)}{' (followed)' if lt.continuation.get('followed') else ''}"
        lines(f"list {lt.index} @0x{lt.va:x}  {lt.input_struct}  NumProgramInputs="
              f"{lt.header.get('NumProgramInputs')}  flags={'|'.join(lt.flags) or 'NONE'}  signature "
              f"{lt.signature_index} {lt.signature or '-'}  {lt.executable_class or '-'}  "
              f"{lt.ordering or ''}{cont}{'  stopped: ' + lt.stopped if lt.stopped else ''}")
    if validators or (validators is None and trace.validator_invocations):
        lines(f"validator invocations ({len(trace.validator_invocations)})",
              *(validator_line(v) for v in trace.validator_invocations))
    select = selection.run_picker(written.left_out)
    if select is None:
        lines(f"executions ({len(trace.executions)})")
        written.executions = rows_.execution_text(trace.executions, write, progress=progress)
    else:  # the count is known once they are written: the lines go to a buffer first (a selection is small)
        buf = io.BytesIO()
        written.executions = rows_.execution_text(trace.executions, buf.write, select=select, progress=progress)
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
    pick = selection.finding_picker(written.left_out)
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


#: the columns of ``exec``'s validator invocation lines
_VALIDATOR_COLUMNS = tables.Columns(widths=(6, 19, 7, 20, 8, 20, 0), align=(">", "<", "<", "<", "<", "<", "<"),
                                    indent="  ")


def validator_line(v: ValidatorInvocation) -> str:
    """One validator invocation: sequence, area and step, list and primary record, slot, validator, pointers."""
    where = f"list {v.list_index}" + (f" primary {v.primary_index}" if v.primary_index is not None else "")
    pointers = " ".join(f"{k}={hex_text(p) if p is not None else 'NULL'}" for k, p in v.pointers.items())
    return _VALIDATOR_COLUMNS.row((f"#{v.sequence}", v.area, f"step {v.step} ", where, f"slot {v.slot}", v.validator,
                        pointers))


# -- the execution table: CSV, npz, Parquet ---------------------------------------------------------------------


def write_csv(trace: Trace, out: IO[Any], *, selection: Selection | None = None,
              progress: Progress | None = None, threads: int | None = None) -> Written:
    """The execution table as CSV (:mod:`d3d12wl.output.csv_table`: a header row, one row per execution; VAs and
    DWORDs in ``0x`` hexadecimal, names and enum members by name, absent values empty).  The verdict is
    :func:`write_verdict_csv`'s.  The rows are made on ``threads`` worker threads and written on one more while the
    next chunk's columns are built (``threads``: as :func:`write_json`'s), the same bytes either way."""
    selection = selection or Selection()
    written = Written()
    table = ExecutionTable(trace, selection, written, progress, threads)
    with _block_writer(out, threads) as write:
        csv_table.write_csv(table, write)
    written.resets = len(trace.end_of_call_reset)
    return written


def write_npz(trace: Trace, out: str | IO[bytes], *, selection: Selection | None = None,
              progress: Progress | None = None) -> Written:
    """The execution table and the verdict as an ``.npz`` (what ``numpy.load`` reads; :mod:`d3d12wl.output.
    npz_table`): ``executions``, a structured array of one field per column (and ``<column>.absent`` beside every
    nullable one that is not categorical), ``findings`` (the verdict table, :data:`VERDICT_COLUMNS`),
    ``names.<column>`` for every code column (``names.findings.<column>`` for the verdict's), and ``meta`` (JSON:
    the format version, the call, the columns, the verdict).  Written chunk by chunk straight into the zip (a pipe
    works: nothing is seeked), so the memory it needs is one chunk's."""
    selection = selection or Selection()
    written = Written()
    table = ExecutionTable(trace, selection, written, progress)
    n = table.rows()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        npz_table.write_structured(z, "executions", table, n, pack=pack_columns)
        verdicts = VerdictTable(trace, selection, written)
        rows, widths = verdicts.measure()
        verdict_names = npz_table.write_structured(z, "findings", verdicts, rows, widths=widths)
        npz_table.write_names(z, "names.", table)
        npz_table.write_names(z, "names.findings.", verdicts, verdict_names)
        npz_table.write_array(z, "meta", np.array(json.dumps(meta(trace, table.specs, n, written, selection))))
    return written


def write_parquet(trace: Trace, out: str | IO[bytes], *, selection: Selection | None = None,
                  progress: Progress | None = None, verdict_file: str | None = None) -> Written:
    """The execution table as Parquet (:mod:`d3d12wl.output.parquet_table`), one row group per chunk of
    :data:`~d3d12wl.executor.trace_tables.CHUNK_ROWS` executions: names and enum members as dictionary columns,
    VAs uint64, DWORDs uint32, absent values null.  The schema's key-value metadata holds ``d3d12wl`` (JSON: the
    format version, the call, the columns, the verdict; ``verdict_file`` names the verdict table's file,
    :func:`write_verdict_parquet`) and ``d3d12wl.findings`` (JSON: the findings, at most
    :data:`METADATA_FINDINGS`).  Needs pyarrow (``pip install 'd3d12wl[parquet]'``); without it a
    :class:`~d3d12wl.errors.D3D12WLError`."""
    parquet_table.pyarrow_modules()
    selection = selection or Selection()
    written = Written()
    table = ExecutionTable(trace, selection, written, progress)
    n = table.rows()
    info = meta(trace, table.specs, n, written, selection)
    info["findings_file"] = verdict_file
    shown = io.BytesIO()
    few = dataclasses.replace(selection, limit=min(selection.limit or METADATA_FINDINGS, METADATA_FINDINGS))
    count = rows_.finding_json(trace.findings, shown.write, rows_.JSONStyle(separators=(",", ":"), prefix=","),
                               select=few.finding_picker(LeftOut()), first_skip=1)
    metadata = {b"d3d12wl": json.dumps(info).encode("utf-8", TEXT_ERRORS),
                b"d3d12wl.findings": b"[" + shown.getvalue() + b"]"}
    more = verdict(trace)["findings"] - count if not selection.narrows else 0
    if more > 0:
        metadata[b"d3d12wl.findings_not_in_metadata"] = str(more).encode("utf-8", TEXT_ERRORS)
    # dictionary pages for the categorical columns only: numbers (VAs, indices) are mostly distinct, and encoding
    # them as dictionaries took half the time for a larger file
    parquet_table.write_parquet(out, table, parquet_table.schema(table.specs, metadata),
                                use_dictionary=[s.name for s in table.specs if s.coded])
    written.resets = len(trace.end_of_call_reset)
    return written


# -- the verdict table --------------------------------------------------------------------------------------------


def write_verdict_csv(trace: Trace, out: IO[Any], *, selection: Selection | None = None) -> Written:
    """The verdict table (:data:`VERDICT_COLUMNS`) as CSV: VAs in hexadecimal, absent values empty."""
    written = Written()
    csv_table.write_csv(VerdictTable(trace, selection or Selection(), written), _byte_writer(out))
    return written


def write_verdict_parquet(trace: Trace, out: Any, *, selection: Selection | None = None) -> Written:
    """The verdict table (:data:`VERDICT_COLUMNS`) as Parquet, a row group per chunk: names as dictionary columns
    (free text as strings), VAs uint64, absent values null."""
    parquet_table.pyarrow_modules()
    written = Written()
    table = VerdictTable(trace, selection or Selection(), written)
    parquet_table.write_parquet(out, table, parquet_table.schema(table.specs))
    return written


# -- the registry ``exec --format`` looks up ----------------------------------------------------------------------


@dataclass(frozen=True)
class WriteOptions:
    """What a trace writer of :data:`TRACE_WRITERS` is given besides the trace and the file: the selection, the
    progress, the validator block (text), the JSON version (json, jsonl), the verdict table's file name (parquet)."""

    selection: Selection = dataclasses.field(default_factory=Selection)
    progress: Progress | None = None
    validators: bool | None = None
    json_version: int = 1
    verdict_file: str | None = None


#: the writers of a trace, by ``exec --format`` (each called ``write(trace, out, options)``; parquet needs the
#: optional pyarrow, ``pip install 'd3d12wl[parquet]'``)
TRACE_WRITERS = Writers("trace")
TRACE_WRITERS.add(Writer("text", lambda t, out, o: write_text(
    t, out, validators=o.validators, selection=o.selection, progress=o.progress),
    "the call, one line per list, per validator invocation, per execution, the end-of-call reset and the findings"))
TRACE_WRITERS.add(Writer("json", lambda t, out, o: write_json(
    t, out, selection=o.selection, progress=o.progress, version=o.json_version),
    "the whole trace as one JSON document"))
TRACE_WRITERS.add(Writer("jsonl", lambda t, out, o: write_jsonl(
    t, out, selection=o.selection, progress=o.progress, version=o.json_version),
    "one JSON record per line: call, list, primary_record, validator_invocation, execution, reset, finding, end"))
TRACE_WRITERS.add(Writer("csv", lambda t, out, o: write_csv(t, out, selection=o.selection, progress=o.progress),
                         "the execution table, one row per execution",
                         verdict=lambda t, out, o: write_verdict_csv(t, out, selection=o.selection)))
TRACE_WRITERS.add(Writer("npz", lambda t, out, o: write_npz(t, out, selection=o.selection, progress=o.progress),
                         "the execution table and the verdict table as arrays", verdict_inside="its 'findings' array"))
TRACE_WRITERS.add(Writer("parquet", lambda t, out, o: write_parquet(
    t, out, selection=o.selection, progress=o.progress, verdict_file=o.verdict_file),
    "the execution table (the verdict in its metadata)",
    verdict=lambda t, out, o: write_verdict_parquet(t, out, selection=o.selection), extra="parquet"))
#: the formats ``d3d12wl exec --format`` writes
FORMATS = TRACE_WRITERS.formats()
