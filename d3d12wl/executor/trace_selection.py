"""The part of a trace a selection shows, as objects (what ``d3d12wl dump`` views), and the summary of the whole
trace: one pass over the trace's columns in chunks, only what is shown made into objects.

:func:`select_trace` gives a :class:`SelectedTrace`: the trace's members with the executions, primary records (and
their secondary records) and findings a :class:`~d3d12wl.executor.selection.Selection` shows, what its limit left
out (:class:`~d3d12wl.executor.selection.LeftOut`) and the :class:`TraceSummary` of all of it.  Its JSON
(``to_jsonable``) is the shape of ``Trace.to_dict()``, with ``left_out`` and ``summary`` added.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl.executor.execution_table import ExecutionRun, execution_runs
from d3d12wl.executor.rows import FindingChunk, finding_chunks
from d3d12wl.executor.selection import Budget, LeftOut, Selection
from d3d12wl.executor.trace import (
    Execution,
    Finding,
    Limits,
    ListTrace,
    PrimaryRecordTrace,
    ProgramTableSlotTrace,
    RecordTrace,
    ResetEntry,
    Trace,
    ValidatorInvocation,
)
from d3d12wl.output.serialize import IF_SET

__all__ = ["ProgramSummary", "SelectedList", "SelectedRecord", "SelectedTrace", "TraceSummary", "select_trace",
           "shown_findings", "trace_summary"]


@dataclass
class ProgramSummary:
    """One program's executions (``-`` for ExecuteIndirect and raytracing-class executions without one) and their
    totals of vertices (DRAW), indices (DRAW_INDEXED), instances and thread groups (DISPATCH, DISPATCH_MESH,
    FIXED_DISPATCH)."""

    program: str
    executions: int = 0
    vertices: int = 0
    indices: int = 0
    instances: int = 0
    groups: int = 0


@dataclass
class TraceSummary:
    """What a whole trace did: its executions, per program (:class:`ProgramSummary`, in name order, ``-`` first),
    its findings by kind and how many more were suppressed."""

    executions: int
    programs: list[ProgramSummary]
    findings_by_kind: dict[str, int]
    findings_suppressed: int


class _Summing:
    """:class:`TraceSummary`, accumulated run by run of the trace's columns."""

    def __init__(self) -> None:
        self.programs: dict[str, ProgramSummary] = {}

    def add(self, run: ExecutionRun) -> None:
        table = run.table
        cols, names = table.columns, table.names
        n = len(table)

        def member(name: str) -> Any:
            col = cols.get(f"trigger.{name}")
            if col is None:
                return np.zeros(n, dtype=np.int64)
            return np.where(table.is_absent(f"trigger.{name}"), 0, col)

        triggers = np.array([*names["trigger"], ""], dtype=object)[cols["trigger"]] if n else np.zeros(0)
        instances = member("InstanceCount")
        vertices = np.where(triggers == "DRAW", member("VertexCountPerInstance") * instances, 0)
        indices = np.where(triggers == "DRAW_INDEXED", member("IndexCountPerInstance") * instances, 0)
        groups = member("ThreadGroupCountX") * member("ThreadGroupCountY") * member("ThreadGroupCountZ")
        codes = cols["program"]
        for code in np.unique(codes).tolist():
            m = codes == code
            name = names["program"][code] if code >= 0 else "-"
            acc = self.programs.setdefault(name, ProgramSummary(name))
            acc.executions += int(m.sum())
            acc.vertices += int(vertices[m].sum())
            acc.indices += int(indices[m].sum())
            acc.instances += int(instances[m].sum())
            acc.groups += int(groups[m].sum())

    def result(self, trace: Trace) -> TraceSummary:
        by_kind: dict[str, int] = {}
        for (_, kind), n in trace.finding_counts().items():
            by_kind[kind] = by_kind.get(kind, 0) + n
        programs = [p for _, p in sorted(self.programs.items(), key=lambda kv: (kv[0] != "-", kv[0]))]
        return TraceSummary(len(trace.executions), programs, by_kind, trace.findings_suppressed)


def trace_summary(trace: Trace) -> TraceSummary:
    """The :class:`TraceSummary` of ``trace``, computed chunk by chunk from its columns."""
    summing = _Summing()
    for run in execution_runs(trace.executions):
        summing.add(run)
    return summing.result(trace)


@dataclass
class SelectedRecord:
    """A primary record a selection shows, with the secondary records it still shows
    (``secondary_records_left_out``: how many of the record's it left out, None where none)."""

    index: int
    va: int
    fields: dict[str, Any]
    pcs: str | None
    record_kind: str | None
    header: str | None
    program_table: ProgramTableSlotTrace | None
    secondary_records: list[RecordTrace]
    executions: list[int]
    skipped: str | None
    secondary_records_left_out: int | None = field(default=None, metadata=IF_SET)


@dataclass
class SelectedList:
    """A list a selection shows: its members as the trace has them, the primary records it shows."""

    index: int
    va: int
    input_struct: str
    header: dict[str, Any]
    flags: list[str]
    signature_index: int | None
    signature: str | None
    executable_class: str | None
    binding: dict[str, Any] | None
    ordering: str | None
    ordering_note: str | None
    counts_as_graphics_list: bool
    primary_records: list[SelectedRecord]
    continuation: dict[str, Any] | None
    stopped: str | None


@dataclass
class SelectedTrace:
    """The part of a trace a selection shows (see the module docstring)."""

    call: str
    call_args: dict[str, Any]
    lists: list[SelectedList]
    executions: list[Execution]
    end_of_call_reset: list[ResetEntry]
    findings: list[Finding]
    findings_suppressed: int
    stopped_reason: str | None
    limits: Limits
    graphics_lists: int
    validator_invocations: list[ValidatorInvocation]
    left_out: LeftOut
    summary: TraceSummary


def select_trace(trace: Trace, sel: Selection) -> SelectedTrace:
    """What of ``trace`` ``sel`` selects (see the module docstring): one pass over the trace's columns in chunks;
    only what is shown is made into objects."""
    left = LeftOut()
    summing = _Summing()
    shown: list[Execution] = []
    executions, primaries, secondaries = Budget(sel.limit), Budget(sel.limit), Budget(sel.limit)
    for run in execution_runs(trace.executions):
        summing.add(run)
        rows = sel.run_rows(run)
        take = executions.take(len(rows))
        left.executions += len(rows) - take
        shown += [run.execution(int(r)) for r in rows[:take]]
    lists = []
    for lt in trace.lists:
        if not sel.takes_list(lt.index):
            continue
        records = lt.primary_records
        a, b = sel.primary or (0, len(records))
        a, b = max(a, 0), min(b, len(records))
        keep: list[int] = []
        matched = 0
        for lo in range(a, b, 1 << 16):
            hi = min(b, lo + (1 << 16))
            hits = (lo + np.flatnonzero(sel.records(records, lo, hi))).tolist()
            matched += len(hits)
            keep += hits[:primaries.take(len(hits))]
        if matched > len(keep):
            left.primary_records[lt.index] = matched - len(keep)
        lists.append(_selected_list(lt, [_selected_record(records[i], secondaries, left) for i in keep]))
    return SelectedTrace(trace.call, trace.call_args, lists, shown, trace.end_of_call_reset,
                         shown_findings(trace, sel, left), trace.findings_suppressed, trace.stopped_reason,
                         trace.limits, trace.graphics_lists, trace.validator_invocations, left, summing.result(trace))


def _selected_list(lt: ListTrace, records: list[SelectedRecord]) -> SelectedList:
    return SelectedList(lt.index, lt.va, lt.input_struct, lt.header, lt.flags, lt.signature_index, lt.signature,
                        lt.executable_class, lt.binding, lt.ordering, lt.ordering_note, lt.counts_as_graphics_list,
                        records, lt.continuation, lt.stopped)


def _selected_record(prt: PrimaryRecordTrace, secondaries: Budget, left: LeftOut) -> SelectedRecord:
    """A primary record with the secondary records ``secondaries`` still shows (only those are made), counting
    the rest in ``left``."""
    n = len(prt.secondary_records)
    shown = secondaries.take(n)
    left.secondary_records += n - shown
    return SelectedRecord(prt.index, prt.va, prt.fields, prt.pcs, prt.record_kind, prt.header, prt.program_table,
                          prt.secondary_records[:shown], list(prt.executions), prt.skipped,
                          n - shown if n > shown else None)


def shown_findings(trace: Trace, sel: Selection, left: LeftOut | None = None) -> list[Finding]:
    """The findings ``sel`` shows (only those are made), counting the rest in ``left``."""
    left = LeftOut() if left is None else left
    budget = Budget(sel.limit)
    shown: list[Finding] = []
    for chunk in finding_chunks(trace.findings, sel.finding_rows):
        take = budget.take(len(chunk))
        left.findings += len(chunk) - take
        shown += [chunk.finding(r) for r in range(take)] if isinstance(chunk, FindingChunk) else chunk[:take]
    return shown
