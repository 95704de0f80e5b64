"""A run of primary records of one list and the executions they drive, as columns (:class:`WorkListBatch`): what
the columnar list walk (:mod:`d3d12wl.executor.list_walk`) adds to the trace for records no check flags.

Its executions (:class:`BatchExecutions`), primary records (:class:`BatchRecords`) and each record's secondary
records (:class:`BatchSecondaryRecords`) are :class:`~d3d12wl.executor.trace.Batch` es of the trace's lists: the
objects are made on demand by the reference's own resolution code
(:func:`~d3d12wl.executor.record_walk.build_execution`), so both paths give identical traces.  The executions say
their rows as groups, one per program-table slot (:meth:`WorkListBatch.groups`): what the trace's table is built
from (:mod:`d3d12wl.executor.execution_table`); and count them per primary record (:meth:`WorkListBatch.counts`,
:mod:`d3d12wl.executor.execution_counts`).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.decode import decode_record
from d3d12wl.executor.execution_counts import ExecutionCounts, RecordCounts
from d3d12wl.executor.execution_table import ExecutionGroups, GroupValues, RecordBytes
from d3d12wl.executor.record_walk import build_execution
from d3d12wl.executor.resolve import RecordData, WorkListRecordContext
from d3d12wl.executor.slot_groups import ListSlots, SlotGroup, scratch_context
from d3d12wl.executor.trace import Execution, PrimaryRecordTrace, RecordTrace

__all__ = ["BatchExecutions", "BatchRecords", "BatchSecondaryRecords", "ExecutionRange", "WorkListBatch"]


@dataclass
class WorkListBatch:
    """A run of primary records of one list, and the executions they drive, as columns.

    Per primary record: ``primary_index``, ``primary_va``, ``gid`` (its :class:`~d3d12wl.executor.slot_groups.SlotGroup`: slot, program, PCS),
    ``group_row`` (its row in the group's arrays), ``exec_off`` (first execution, relative; n + 1 entries) and
    ``sec_off`` (first row of its secondary records in the group's ``secondary_rows``).  Per group: the records'
    bytes (``primary_rows``), SecondaryRecords (``secondary_base``) and every secondary record's bytes
    (``secondary_rows``).  Executions are numbered ``first_execution + k``, invocations ``first_invocation + k``."""

    walk: ListSlots
    first_execution: int
    first_invocation: int
    primary_index: np.ndarray
    primary_va: np.ndarray
    gid: np.ndarray
    group_row: np.ndarray
    exec_off: np.ndarray
    sec_off: np.ndarray
    primary_rows: dict[int, np.ndarray]
    secondary_base: dict[int, np.ndarray]
    secondary_rows: dict[int, np.ndarray]
    _cache: dict[str, Any] = field(default_factory=dict)

    @property
    def executions(self) -> BatchExecutions:
        return BatchExecutions(self)

    @property
    def records(self) -> BatchRecords:
        return BatchRecords(self)

    @property
    def num_executions(self) -> int:
        return int(self.exec_off[-1])

    @property
    def nbytes(self) -> int:
        """Bytes held by the columns."""
        arrays = [self.primary_index, self.primary_va, self.gid, self.group_row, self.exec_off, self.sec_off,
                  *self.primary_rows.values(), *self.secondary_base.values(), *self.secondary_rows.values()]
        return sum(a.nbytes for a in arrays)

    def execution_records(self, a: int, b: int) -> tuple[np.ndarray, np.ndarray]:
        """Executions ``a .. b - 1`` of the batch: their numbers in the batch and their primary records."""
        hit = self._cache.get("records")
        if hit is not None and hit[0] == (a, b):
            return hit[1]
        k = np.arange(a, b, dtype=np.int64)
        if b <= a:
            rec = np.zeros(0, dtype=np.int64)
        else:
            r0 = int(np.searchsorted(self.exec_off, a, side="right")) - 1
            r1 = int(np.searchsorted(self.exec_off, b - 1, side="right")) - 1
            counts = np.diff(np.clip(self.exec_off[r0:r1 + 2], a, b))
            rec = np.repeat(np.arange(r0, r1 + 1, dtype=np.int64), counts)
        self._cache["records"] = ((a, b), (k, rec))
        return k, rec

    def columns(self, a: int = 0, b: int | None = None) -> dict[str, np.ndarray]:
        """Per execution ``a .. b - 1`` (default: all): list, primary and secondary index (-1: none), invocation,
        program-table slot, record VAs (0: none)."""
        k, rec = self.execution_records(a, self.num_executions if b is None else b)
        j = k - self.exec_off[rec]
        gid = self.gid[rec]
        hybrid = np.array([g.hybrid for g in self.walk.groups], dtype=bool)[gid]
        sva = np.zeros(len(k), dtype=np.uint64)
        for g, base in self.secondary_base.items():
            m = np.flatnonzero(gid == g)
            stride = np.uint64(self.walk.groups[g].sstride)
            sva[m] = base[self.group_row[rec[m]]] + j[m].astype(np.uint64) * stride
        slots = np.array([g.pt_index for g in self.walk.groups], dtype=np.int64)
        return {
            "index": self.first_execution + k, "list_index": np.full(len(k), self.walk.run.index, dtype=np.int64),
            "primary_index": self.primary_index[rec], "secondary_index": np.where(hybrid, j, -1),
            "invocation": self.first_invocation + k, "program_table_index": slots.take(gid),
            "primary_va": self.primary_va[rec], "secondary_va": sva,
        }

    # -- the executions as groups (the trace's table) ------------------------------------------------------------

    #: the columns :meth:`groups` gives for every row at once
    SHARED = ("index", "list_index", "primary_index", "invocation", "primary_va", "secondary_index", "secondary_va")

    def groups(self, a: int, b: int) -> ExecutionGroups:
        """Executions ``a .. b - 1`` as groups, one per program-table slot their records select: per group its
        first execution in the batch, and per row its indices and records' VAs, the bytes of its primary and
        secondary record, its system pointers and its counter (made when the table is built)."""
        walk = self.walk
        _, rec = self.execution_records(a, b)
        gid = self.gid[rec]
        present = np.flatnonzero(np.bincount(gid, minlength=len(walk.groups)))
        slot = np.zeros(len(walk.groups), dtype=np.int64)
        slot[present] = np.arange(len(present))
        groups = [int(g) for g in present]
        memo: dict[str, dict[str, np.ndarray]] = {}

        def columns() -> dict[str, np.ndarray]:
            got = memo.get("columns")
            if got is None:
                got = memo["columns"] = self.columns(a, b)
            return got

        def shared() -> dict[str, Any]:
            cols = columns()
            absent = cols["secondary_index"] < 0
            return {name: (cols[name], absent if name.startswith("secondary_") else False) for name in self.SHARED}

        def values(i: int, m: np.ndarray) -> GroupValues:
            g = groups[i]
            group, first = walk.groups[g], self.group_first(g)
            cols = columns()
            j = cols["secondary_index"]
            rm = rec[m]
            primary_va = cols["primary_va"][m]
            out = GroupValues(len(m))
            out.records["primary"] = RecordBytes(group.layout.primary, partial(
                _gather, self.primary_rows[g], self.group_row[rm]), primary_va)
            out.system["PRIMARY_RECORD_POINTER"] = primary_va
            if group.hybrid and group.layout.secondary is not None:
                secondary_va = cols["secondary_va"][m]
                out.records["secondary"] = RecordBytes(group.layout.secondary, partial(
                    _gather, self.secondary_rows[g], self.sec_off[rm] + j[m]), secondary_va)
                out.system["SECONDARY_RECORD_POINTER"] = secondary_va
                out.system["SECONDARY_LIST_POINTER"] = self.secondary_base[g][self.group_row[rm]]
            if first.counter is not None:
                out.counter = j[m] if group.ic_reset else cols["invocation"][m]
            return out

        return ExecutionGroups(b - a, slot[gid].reshape(-1), [self.group_first(g) for g in groups], self.SHARED,
                               shared, values)

    def counts(self, a: int, b: int) -> ExecutionCounts:
        """Executions ``a .. b - 1`` of the batch counted per primary record (the executions each drove, from
        ``exec_off``), by group: one execution object per group that has any, whatever the count."""
        if b <= a:
            return ExecutionCounts([], np.zeros(0, dtype=np.int64), [])
        r0 = int(np.searchsorted(self.exec_off, a, side="right")) - 1
        r1 = int(np.searchsorted(self.exec_off, b - 1, side="right")) - 1
        per_record = np.diff(self.exec_off[r0:r1 + 2])
        per_record[0] -= a - int(self.exec_off[r0])  # (records r0 and r1 counted from a and up to b)
        per_record[-1] -= int(self.exec_off[r1 + 1]) - b
        per_group = np.bincount(self.gid[r0:r1 + 1], weights=per_record, minlength=len(self.walk.groups))
        present = np.flatnonzero(per_group)
        return ExecutionCounts([self.group_first(int(g)) for g in present], per_group[present].astype(np.int64),
                               [RecordCounts(self.walk.run.index, self.primary_index[r0:r1 + 1], per_record)])

    # -- objects on demand -----------------------------------------------------------------------------------------

    def _record_context(self, r: int) -> tuple[SlotGroup, WorkListRecordContext]:
        hit = self._cache.get("rctx")
        if hit is not None and hit[0] == r:
            return hit[1], hit[2]
        group, rctx = self.walk.groups[int(self.gid[r])], self.record_context(r, scratch_context(self.walk.ctx))
        self._cache["rctx"] = (r, group, rctx)
        return group, rctx

    def record_context(self, r: int, ctx: ExecContext) -> WorkListRecordContext:
        """What record ``r``'s executions resolve in (``ctx``: the call's context, or one whose findings go
        nowhere)."""
        walk = self.walk
        group = walk.groups[int(self.gid[r])]
        i, va = int(self.primary_index[r]), int(self.primary_va[r])
        fields = decode_record(group.layout.primary, self.primary_rows[int(self.gid[r])][self.group_row[r]].tobytes())
        run = walk.run
        system: dict[str, int | None] = {
            "PRIMARY_RECORD_POINTER": va, "DISPATCH_LIST_HEADER_POINTER": run.va, "PRIMARY_LIST_POINTER": walk.start,
            "PROGRAM_TABLE_POINTER": walk.sel.binding.ProgramTable.Table.StartAddress}
        if group.hybrid:
            system["SECONDARY_LIST_POINTER"] = fields["SecondaryRecords"]
        primary = RecordData(f"primary record {i}", "primary", va, group.layout.primary, fields)
        return WorkListRecordContext(ctx, Loc(list_index=run.index, primary_index=i), walk.sel.executable_class,
                                     group.pcs, group.layout, group.program, primary, group.table, system)

    def secondary(self, group: SlotGroup, r: int, j: int) -> RecordData:
        """Secondary record ``j`` of record ``r`` (of ``group``) as the reference resolves it."""
        g = int(self.gid[r])
        va = int(self.secondary_base[g][self.group_row[r]]) + j * group.sstride
        sec = group.layout.secondary
        assert sec is not None
        data = self.secondary_rows[g][self.sec_off[r] + j].tobytes()
        return RecordData(f"secondary record {j}", "secondary", va, sec, decode_record(sec, data))

    def group_first(self, g: int) -> Execution:
        """The batch's first execution of group ``g`` (every execution of the group resolves like it, with values
        of its own from the columns), made once."""
        key = f"first {g}"
        hit = self._cache.get(key)
        if hit is None:
            counts = self.exec_off[1:] - self.exec_off[:-1]
            r = int(np.flatnonzero((self.gid == g) & (counts > 0))[0])
            hit = self._cache[key] = self.execution(int(self.exec_off[r]))
        result: Execution = hit
        return result

    def execution(self, k: int) -> Execution:
        r = int(np.searchsorted(self.exec_off, k, side="right")) - 1
        group, rctx = self._record_context(r)
        walk = self.walk
        invocation = self.first_invocation + k
        if not group.hybrid:
            return build_execution(walk.sel, walk.run.index, self.first_execution + k, rctx, rctx.primary.va,
                                   int(self.primary_index[r]), None, None, invocation, None)
        j = k - int(self.exec_off[r])
        secondary = self.secondary(group, r, j)
        return build_execution(walk.sel, walk.run.index, self.first_execution + k, rctx, rctx.primary.va,
                               int(self.primary_index[r]), secondary, j, invocation, j if group.ic_reset else None)

    def record(self, r: int) -> PrimaryRecordTrace:
        group, rctx = self._record_context(r)
        layout = group.layout
        prt = PrimaryRecordTrace(int(self.primary_index[r]), rctx.primary.va, dict(rctx.primary.fields),
                                 pcs=group.pcs.name, record_kind=layout.record_kind.value,
                                 header=layout.primary.header, program_table=group.slot_trace)
        e0, e1 = int(self.exec_off[r]), int(self.exec_off[r + 1])
        prt.executions.add_batch(ExecutionRange(self.first_execution + e0, e1 - e0))
        if group.hybrid:
            prt.secondary_records.add_batch(BatchSecondaryRecords(self, group, r))
        return prt

    def partial_record(self) -> PrimaryRecordTrace:
        """Record 0 (the batch's only one) as the object the reference walk goes on filling."""
        return self.record(0)


class ExecutionRange:
    """Consecutive execution indices as a :class:`~d3d12wl.executor.trace.Batch`."""

    def __init__(self, start: int, n: int) -> None:
        self.start, self.n = start, n

    def __len__(self) -> int:
        return self.n

    def item(self, i: int) -> int:
        return self.start + i

    def items(self, start: int, stop: int) -> Iterator[int]:
        return iter(range(self.start + start, self.start + stop))


class BatchSecondaryRecords:
    """One primary record's secondary records in a :class:`WorkListBatch`, as a Batch of RecordTrace."""

    def __init__(self, batch: WorkListBatch, group: SlotGroup, r: int) -> None:
        self.batch, self.group, self.r = batch, group, r

    def __len__(self) -> int:
        return int(self.batch.exec_off[self.r + 1] - self.batch.exec_off[self.r])

    def item(self, j: int) -> RecordTrace:
        s = self.batch.secondary(self.group, self.r, j)
        return RecordTrace(j, s.va, s.fields)

    def items(self, start: int, stop: int) -> Iterator[RecordTrace]:
        for j in range(start, stop):
            yield self.item(j)


class BatchExecutions:
    """A :class:`WorkListBatch`'s executions as a :class:`~d3d12wl.executor.trace.Batch`."""

    def __init__(self, batch: WorkListBatch) -> None:
        self.batch = batch

    def __len__(self) -> int:
        return self.batch.num_executions

    def item(self, i: int) -> Execution:
        return self.batch.execution(i)

    def items(self, start: int, stop: int) -> Iterator[Execution]:
        for k in range(start, stop):
            yield self.batch.execution(k)

    def groups(self, a: int, b: int) -> ExecutionGroups:
        return self.batch.groups(a, b)

    def counts(self, a: int, b: int) -> ExecutionCounts:
        return self.batch.counts(a, b)


class BatchRecords:
    """A :class:`WorkListBatch`'s primary records as a :class:`~d3d12wl.executor.trace.Batch`."""

    def __init__(self, batch: WorkListBatch) -> None:
        self.batch = batch

    def programs(self, a: int, b: int) -> list[str | None]:
        """The program each of records ``a .. b - 1`` selected."""
        names = [g.program.name for g in self.batch.walk.groups]
        return [names[int(g)] for g in self.batch.gid[a:b]]

    def __len__(self) -> int:
        return len(self.batch.primary_index)

    def item(self, i: int) -> PrimaryRecordTrace:
        return self.batch.record(i)

    def items(self, start: int, stop: int) -> Iterator[PrimaryRecordTrace]:
        for r in range(start, stop):
            yield self.batch.record(r)


def _gather(rows: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``rows[at]`` (``at`` ascending), a slice of ``rows`` where ``at`` is a run of consecutive rows."""
    if len(at) and int(at[-1]) - int(at[0]) + 1 == len(at) and (len(at) < 2 or bool((np.diff(at) > 0).all())):
        return rows[int(at[0]):int(at[-1]) + 1]
    return rows[at]
