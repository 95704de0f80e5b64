"""The tables of a trace, as the output stage's encoders take them (:class:`d3d12wl.output.table.Table`): the
execution table (:class:`ExecutionTable`) and the verdict table (:class:`VerdictTable`), with the verdict itself
(:func:`verdict`) and what a table output says about itself (:func:`meta`).

The execution table (CSV, npz, Parquet, JSON version 2; :data:`TABLE_VERSION`) has one column per
:func:`table_columns` entry: VAs are ``va`` (uint64), root constants' DWORDs ``dword`` (uint32), names (program,
PCS, trigger, executable class, every ``.source``, every record member of a ``.field`` column and
``trigger_field``) ``category`` and enum members (``ia.ib.Format``) ``enum``; a value an execution does not have is
absent.  The verdict table (:data:`VERDICT_COLUMNS`) holds a row per finding (``record`` ``finding``) and per
binding the end-of-call reset sets (``record`` ``reset``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl.executor.execution_table import (
    FIELD_NAMES,
    INDEX_COLUMNS,
    NAME_COLUMNS,
    SOURCE_NAMES,
    VA_COLUMNS,
    execution_runs,
    execution_schema,
    is_field_column,
)
from d3d12wl.executor.rows import Progress, finding_chunks
from d3d12wl.executor.selection import LeftOut, Selection
from d3d12wl.executor.trace import Trace
from d3d12wl.output.blockwriter import default_workers
from d3d12wl.output.serialize import to_jsonable
from d3d12wl.output.table import NUMPY_TYPES, ColumnSpec, NameTable, TableChunk, joined_chunks

__all__ = ["CHUNK_ROWS", "RUNS_AHEAD", "TABLE_VERSION", "VERDICT_COLUMNS", "VERDICT_SPECS", "ExecutionTable",
           "VerdictTable", "Written", "column_spec", "meta", "table_columns", "verdict"]

#: the layout of the execution and verdict tables (CSV, npz, Parquet).  1 (d3d12wl 0.2): the execution table only,
#: -1 / 0 for absent values, names by code in npz, integers for enums, trigger members alphabetical;
#: 2: this module's docstring without the record members; 3: version 2 and the record member that supplied each
#: value some execution takes from a record (``<column>.field`` after the value's ``.source`` / ``.va``,
#: ``trigger_field`` after the trigger's members; names in ``names["field"]``), every version 2 column with its name,
#: type, meaning and order among the others kept
TABLE_VERSION = 3
#: rows per chunk of the table formats
CHUNK_ROWS = 1 << 16
#: chunks of the execution table built ahead of the one being written (execution_table.execution_runs' ``ahead``),
#: where the output is made on more than one thread
RUNS_AHEAD = 2


@dataclass
class Written:
    """What a writer wrote of a trace: how many executions, findings and reset rows, and what the selection left
    out."""

    executions: int = 0
    findings: int = 0
    resets: int = 0
    left_out: LeftOut = dataclasses.field(default_factory=LeftOut)


def verdict(trace: Trace) -> dict[str, Any]:
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


# -- the execution table ------------------------------------------------------------------------------------------


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
    """The :class:`~d3d12wl.output.table.ColumnSpec` of execution-table column ``name``: ``int`` (int64), ``va``
    (uint64; hex in CSV), ``dword`` (uint32; hex in CSV), ``category`` (``names`` is the name table its codes index)
    or ``enum`` (a member of enum ``names``, shown by name)."""
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


def _enum_texts(enum: str, values: np.ndarray) -> tuple[list[str], np.ndarray]:
    """The distinct members of ``values`` (enum ``enum``) by name, and each row's index into them."""
    from d3d12wl import abi

    distinct, inverse = np.unique(values, return_inverse=True)
    return [abi.enum_text(enum, int(v)) for v in distinct], inverse.reshape(-1)


class ExecutionTable:
    """The execution table of a trace chunk by chunk (what the table formats write): every run's columns with codes
    into name tables common to the whole output (categories and enum members), the executions ``selection``
    shows, counted in ``written`` as they are read (and told to ``progress``).  ``threads``: the output is made
    on that many workers (None: one per CPU but the caller's); with any, the runs' tables are built ahead."""

    def __init__(self, trace: Trace, selection: Selection, written: Written, progress: Progress | None = None,
                 threads: int | None = None) -> None:
        self.trace = trace
        self.selection = selection
        #: runs whose tables are built ahead on threads of their own (none where the output is made on one)
        self.ahead = RUNS_AHEAD if (default_workers() if threads is None else threads) else 0
        self.specs = table_columns(trace)
        self.names: dict[str, NameTable] = {}
        for s in self.specs:
            if s.coded:
                self.names.setdefault(s.names_key, NameTable())
        self.pick = selection.run_picker(written.left_out)
        self.written = written
        self.progress = progress

    def names_of(self, spec: ColumnSpec) -> list[str]:
        """The name table (so far) that category or enum column ``spec``'s codes index."""
        return self.names[spec.names_key].names

    def rows(self) -> int:
        """How many executions the selection shows (a pass over the columns; the trace's when it narrows none)."""
        return self.selection.count(self.trace.executions, CHUNK_ROWS)

    def chunks(self) -> Iterator[TableChunk]:
        """The table in chunks of at most :data:`CHUNK_ROWS` rows (the runs of the trace's segments, joined up to
        that); see :class:`~d3d12wl.output.table.TableChunk` (the values are flagged read-only)."""
        return joined_chunks(self._runs(), CHUNK_ROWS)

    def _runs(self) -> Iterator[TableChunk]:
        for run in execution_runs(self.trace.executions, rows=CHUNK_ROWS, ahead=self.ahead):
            table = run.table
            if self.pick is not None:
                table = table.take(self.pick(run))
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
                    col = np.zeros(n, dtype=NUMPY_TYPES[s.kind])
                if s.kind == "category":
                    texts = table.names[s.names or s.name]
                    col = self.names[s.names_key].codes(texts, col if got is None else np.where(got, -1, col))
                elif s.kind == "enum":
                    texts, inverse = _enum_texts(s.names or "", col)
                    col = self.names[s.name].codes(texts, inverse if got is None else np.where(got, -1, inverse))
                elif got is None:
                    col = col.astype(NUMPY_TYPES[s.kind], copy=False)
                else:
                    col = col.astype(NUMPY_TYPES[s.kind], copy=True)  # (absent values: 0)
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
            yield TableChunk(n, values, absent)


def meta(trace: Trace, specs: Sequence[ColumnSpec], executions: int, written: Written,
         selection: Selection) -> dict[str, Any]:
    """What a table output says about itself and the call (npz ``meta``, Parquet's ``d3d12wl`` metadata key)."""
    out = {"format": "d3d12wl execution table", "version": TABLE_VERSION, "call": trace.call,
           "call_args": to_jsonable(trace.call_args), "limits": to_jsonable(trace.limits), "executions": executions,
           "columns": [dataclasses.asdict(s) for s in specs], **verdict(trace)}
    if selection.narrows:
        out["left_out"] = written.left_out.to_dict()
    return out


# -- the verdict table --------------------------------------------------------------------------------------------

#: the verdict table's columns (CSV and Parquet sidecars, the npz ``findings`` array): ``record`` is ``finding`` or
#: ``reset``; a finding fills severity .. message, a reset entry binding_set .. touched_by; names are categories,
#: free text (``message``, ``dwords``, ``touched_by``) text, indices ints and ``va`` a VA, each nullable
VERDICT_SPECS = tuple(
    ColumnSpec(c, "int", None, True) if c in ("list_index", "primary_index", "secondary_index", "command_index",
                                              "parameter", "slot")
    else ColumnSpec(c, "va", None, True) if c == "va"
    else ColumnSpec(c, "text") if c in ("message", "dwords", "touched_by")
    else ColumnSpec(c, "category")
    for c in ("record", "severity", "kind", "rule", "list_index", "primary_index", "secondary_index",
              "command_index", "va", "message", "binding_set", "what", "parameter", "slot", "dwords", "reset_to",
              "touched_by"))
#: the verdict table's column names, in order
VERDICT_COLUMNS = tuple(s.name for s in VERDICT_SPECS)
_FINDING_NAMES = ("severity", "kind", "rule", "message")
_FINDING_NUMBERS = ("list_index", "primary_index", "secondary_index", "command_index", "va")


def _text_column(values: Sequence[str | None]) -> tuple[list[str], np.ndarray]:
    table = NameTable()
    return table.names, np.array([table.code(v) for v in values], dtype=np.int32)


def _number_column(values: Sequence[int | None], dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    return (np.array([0 if v is None else v for v in values], dtype=dtype),
            np.array([v is None for v in values], dtype=bool))


class VerdictTable:
    """The verdict table of ``trace`` (the findings ``selection`` shows, then the end-of-call reset) in chunks,
    the findings of a columnar batch from its columns; each chunk's names are its own.  Reading the chunks counts
    what was written in ``written``."""

    specs = VERDICT_SPECS

    def __init__(self, trace: Trace, selection: Selection, written: Written) -> None:
        self.trace, self.selection, self.written = trace, selection, written

    def names_of(self, spec: ColumnSpec) -> list[str]:
        return []  # (every chunk has its own: TableChunk.names)

    def chunks(self) -> Iterator[TableChunk]:
        count = 0
        for chunk in finding_chunks(self.trace.findings, self.selection.finding_picker(self.written.left_out)):
            n = len(chunk)
            count += n
            names: dict[str, Sequence[str]] = {"record": ["finding"]}
            values: dict[str, np.ndarray] = {"record": np.zeros(n, dtype=np.int32)}
            absent: dict[str, np.ndarray] = {}
            if isinstance(chunk, list):
                for c in _FINDING_NAMES:
                    names[c], values[c] = _text_column([getattr(f, c) for f in chunk])
                for c in _FINDING_NUMBERS:
                    values[c], absent[c] = _number_column([getattr(f, c) for f in chunk],
                                                          np.uint64 if c == "va" else np.int64)
            else:
                t, which = chunk.templates, chunk.template
                for c in _FINDING_NAMES:
                    names[c], values[c] = [getattr(f, c) for f in t], which.astype(np.int32)
                values["primary_index"] = chunk.primary_index.astype(np.int64)
                absent["primary_index"] = np.zeros(n, dtype=bool)
                values["va"], absent["va"] = chunk.va, chunk.va_absent
                for c in ("list_index", "secondary_index", "command_index"):
                    v, gone = _number_column([getattr(f, c) for f in t], np.int64)
                    values[c], absent[c] = v[which], gone[which]
            yield self._filled(n, values, absent, names)
        self.written.findings = count
        reset = self.trace.end_of_call_reset
        self.written.resets = len(reset)
        if reset:
            names = {"record": ["reset"]}
            values = {"record": np.zeros(len(reset), dtype=np.int32)}
            absent = {}
            for c, texts in (("binding_set", [r.binding_set for r in reset]), ("what", [r.what for r in reset]),
                             ("dwords", [" ".join(map(str, r.dwords)) if r.dwords else None for r in reset]),
                             ("reset_to", [r.reset_to for r in reset]),
                             ("touched_by", [",".join(r.touched_by) for r in reset])):
                names[c], values[c] = _text_column(texts)
            for c in ("parameter", "slot"):
                values[c], absent[c] = _number_column([getattr(r, c) for r in reset], np.int64)
            yield self._filled(len(reset), values, absent, names)

    @staticmethod
    def _filled(n: int, values: dict[str, np.ndarray], absent: dict[str, np.ndarray],
                names: dict[str, Sequence[str]]) -> TableChunk:
        """A chunk with every column: one a chunk does not have is absent in every row."""
        for s in VERDICT_SPECS:
            if s.name in values:
                continue
            if s.coded:
                values[s.name], names[s.name] = np.full(n, -1, dtype=np.int32), []
            else:
                values[s.name] = np.zeros(n, dtype=NUMPY_TYPES[s.kind])
                absent[s.name] = np.ones(n, dtype=bool)
        return TableChunk(n, values, absent, names)

    def measure(self) -> tuple[int, dict[str, int]]:
        """The rows, and the widest string of each text column (at least 1): a first pass over the chunks (what
        the selection leaves out is counted by the pass that writes them)."""
        table = VerdictTable(self.trace, self.selection, Written())
        widths = {s.name: 1 for s in VERDICT_SPECS if s.kind == "text"}
        rows = 0
        for chunk in table.chunks():
            rows += chunk.n
            for c in widths:
                widths[c] = max([widths[c], *(len(t) for t in chunk.names[c])])
        return rows, widths

