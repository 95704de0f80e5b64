"""The columnar fast path of the executor: the same trace as the reference walk, in columns.

Per list, primary records are read in chunks of :data:`CHUNK` records as numpy gathers over ``GpuMemory``'s
regions, with no Python object per record:

1. the ProgramTableIndex column (offset 0 of every record) is mapped through its unique values to the program-table
   slot, identifier, program and PCS (:class:`_Group`, one per slot, checked once per list exactly as the reference
   checks one record: index < SlotCount, slot address, identifier, program, PCS in the signature, layouts, strides);
2. each group's records are copied with the group's structured dtype (:func:`d3d12wl.records.dtypes.record_dtype`);
3. hybrid records' secondary lists are checked (alignment, stride, NumSecondaryRecords limit, VA wrap, mapping) and
   expanded by index arithmetic (``repeat`` / ``cumsum``) into one gather of secondary-record bytes per group;
4. the limits (records, executions) are applied to the cumulative counts.

A mask per check marks every record the reference would report or treat specially; those records, and any chunk
that wraps the VA space, go through the reference per-record walk (:func:`~d3d12wl.executor.dispatch_list.
walk_primary_record`), so findings and their wording are the reference's.  Records no mask flags become a
:class:`WorkListBatch`: numpy columns from which the :class:`~d3d12wl.executor.trace.PrimaryRecordTrace` and
:class:`~d3d12wl.executor.trace.Execution` objects are made on demand by the reference's own resolution code
(:func:`~d3d12wl.executor.dispatch_list.build_execution`), so both paths give identical traces.  ExecuteIndirect
works the same way over its command records (:class:`CommandBatch`).

Raytracing-class lists and calls with validation hooks (which write memory between steps) always take the
reference walk.
"""

from __future__ import annotations

import copy
from collections import deque
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cache, partial
from typing import Any

import numpy as np

from d3d12wl.capture.memory import VA_LIMIT, GpuMemory
from d3d12wl.errors import LayoutError, MemoryAccessError
from d3d12wl.executor.arrays import RegionArrays as _Regions
from d3d12wl.executor.arrays import expand as _expand
from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.decode import ctype_size, decode_record
from d3d12wl.executor.dispatch_list import (
    PROGRAM_IDENTIFIER,
    ListRun,
    Selection,
    ValidationHooks,
    _ic_resets_per_secondary_list,
    build_execution,
    primary_walk_setup,
    run_dispatch_list,
    slot_index_in_range,
    walk_primary_record,
    walk_secondary_records,
)
from d3d12wl.executor.execute_indirect import CommandPlan, build_command, run_execute_indirect, walk_command
from d3d12wl.executor.resolve import RecordData, WorkListRecordContext
from d3d12wl.executor.trace import (
    Execution,
    Finding,
    Limits,
    PrimaryRecordTrace,
    ProgramTableSlotTrace,
    Readings,
    RecordTrace,
    RootArgumentValue,
    Trace,
    ValueSource,
    slot_members,
)
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet, Program, ProgramCommandSignature, RecordKind
from d3d12wl.model.state import CommandListState, DescriptorHeap, DeviceCaps, DispatchListCall, ExecuteIndirectCall
from d3d12wl.records.dtypes import record_dtype
from d3d12wl.records.layout import PCSLayout, RecordLayout

__all__ = ["CHUNK", "CommandBatch", "ExecutionColumns", "WorkListBatch", "execution_columns", "run_columnar",
           "walk_commands_columnar", "walk_primary_records_columnar"]

#: primary records (or ExecuteIndirect commands) read per chunk
CHUNK = 1 << 16

#: called by the walks after each chunk's records and executions are in the trace
ChunkDone = Callable[[], None]

_U64_MAX = (1 << 64) - 1


def run_columnar(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                 call: DispatchListCall | ExecuteIndirectCall, limits: Limits | None = None,
                 hooks: ValidationHooks | None = None, readings: Readings | None = None) -> Trace:
    """Execute ``call`` with the columnar walks (the reference walk wherever validation hooks run, and under
    ``Readings.zero_work_counter`` "skips", whose counter depends on each execution's trigger)."""
    reference = readings is not None and readings.zero_work_counter == "skips"
    if isinstance(call, DispatchListCall):
        return run_dispatch_list(memory, device, objects, state, call, limits, hooks,
                                 walker=None if reference else walk_primary_records_columnar, readings=readings)
    return run_execute_indirect(memory, device, objects, state, call, limits,
                                walker=None if reference else walk_commands_columnar, readings=readings)


def _regions(ctx: ExecContext) -> _Regions:
    regions: _Regions = ctx.memo(ctx.memory, "columnar-regions", _Regions)
    return regions


@cache
def _packed_dtype(layout: RecordLayout) -> np.dtype:
    """The layout's structured dtype (:func:`record_dtype`) narrowed to the bytes a record uses (``size``)."""
    dt = record_dtype(layout)
    names = list(dt.names or ())
    assert dt.fields is not None
    return np.dtype({"names": names, "formats": [dt.fields[n][0] for n in names],
                     "offsets": [dt.fields[n][1] for n in names], "itemsize": layout.size})


def _scratch(ctx: ExecContext) -> ExecContext:
    """A context whose findings go nowhere: what the on-demand objects are resolved in (the columns hold only
    records that the reference resolves without a finding)."""
    scratch: ExecContext = ctx.memo(ctx, "columnar-scratch", lambda c: ExecContext(
        c.memory, c.device, c.objects, c.state, c.limits, Trace(c.trace.call)))
    return scratch


# --------------------------------------------------------------------------------------------------------------
# DispatchList: groups (one per program-table slot a list's records select)
# --------------------------------------------------------------------------------------------------------------


@dataclass
class _Group:
    """A program-table slot whose records the reference executes without a finding: everything its records
    share."""

    pt_index: int
    program: Program
    pcs: ProgramCommandSignature
    layout: PCSLayout
    table: RecordData
    slot_trace: ProgramTableSlotTrace
    hybrid: bool
    psize: int
    pdtype: np.dtype
    ssize: int = 0
    sstride: int = 0
    sec_ok: bool = True  # SecondaryRecordByteStride usable
    ic_reset: bool = False
    #: the reference reports something once for this slot and still executes its records (a broadcast table too
    #: small for the program's record): the first record takes the reference walk, the rest stay in columns
    first_to_reference: bool = False
    #: the descriptor tables the group's executions resolve from primary / secondary record bytes, whose handles
    #: must address the bound heap of their type (:class:`HandleCheck`; checked in columns, per record)
    handle_checks: tuple[HandleCheck, ...] = ()


@dataclass(frozen=True)
class HandleCheck:
    """A descriptor-table handle at ``offset`` of every ``record`` ("primary" / "secondary") of a group, which must
    be a descriptor of ``heap`` (spec "_DESCRIPTOR_TABLE"; what :meth:`WorkListRecordContext._check_tables` reports
    for one record)."""

    record: str
    offset: int
    heap: DescriptorHeap

    def outside(self, handles: np.ndarray) -> np.ndarray:
        """Per handle (uint64): True when it is no descriptor of the heap."""
        h = self.heap
        start, end = np.uint64(h.GPUDescriptorHandleForHeapStart), np.uint64(h.end - 1)
        inside = (handles >= start) & (handles <= end)
        return ~inside | ((handles - start) % np.uint64(h.DescriptorIncrementSize) != 0)

    def rows(self, rows: np.ndarray) -> np.ndarray:
        """The check on records ``rows`` (a uint8 matrix of whole records)."""
        return self.outside(rows[:, self.offset:self.offset + 8].view("<u8")[:, 0])


class _ListWalk:
    """The columnar walk of one list."""

    def __init__(self, run: ListRun, n: int, start: int, stride: int) -> None:
        self.run = run
        self.ctx = run.ctx
        self.n = n
        self.start = start
        self.stride = stride
        sel = run.selection
        assert sel is not None
        self.sel: Selection = sel
        self.regions = _regions(run.ctx)
        self.groups: list[_Group] = []
        self._group_of: dict[int, int] = {}  # ProgramTableIndex -> index in groups, -1 flagged
        #: per flagged ProgramTableIndex: what the reference did with its last record (_Skip), or the learned
        #: skip every later record of that index gets in columns
        self._skips: dict[int, _SkipState] = {}

    # -- one slot, checked as the reference checks one record ---------------------------------------------------

    def group_index(self, pt_index: int) -> int:
        got = self._group_of.get(pt_index)
        if got is None:
            group = self._make_group(pt_index)
            got = -1 if group is None else len(self.groups)
            if group is not None:
                self.groups.append(group)
            self._group_of[pt_index] = got
        return got

    def _make_group(self, pt_index: int) -> _Group | None:
        ctx, sel = self.ctx, self.sel
        pt = sel.binding.ProgramTable
        if not slot_index_in_range(ctx, pt, pt_index):
            return None
        id_size = ctype_size(PROGRAM_IDENTIFIER)
        slot_va = pt.Table.StartAddress + pt_index * pt.Table.StrideInBytes
        if slot_va + id_size > VA_LIMIT:
            return None
        try:
            ident = ctx.memory.read(slot_va, id_size)
        except MemoryAccessError:
            return None
        program = ctx.program_by_identifier(ident)
        if program is None:
            return None
        pcs = program.ProgramCommandSignature
        if pcs is None or id(pcs) not in sel.members:
            return None
        try:
            tail_layout = ctx.layouts.program(program)
            layout = ctx.layouts.pcs(pcs)
        except LayoutError:
            return None
        if tail_layout is None or (pt.Table.StrideInBytes and tail_layout.size > pt.Table.StrideInBytes):
            return None
        if slot_va + tail_layout.size > VA_LIMIT:
            return None
        try:
            data = ctx.memory.read(slot_va, tail_layout.size)
        except MemoryAccessError:
            return None
        if layout.executable_class is not sel.executable_class or self.stride < layout.primary.min_stride:
            return None
        tail = decode_record(tail_layout, data, skip_identifier=True)
        slot_trace = ProgramTableSlotTrace(pt_index, slot_va, ident.hex(), program.name, tail)
        # D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::Table: a broadcast table's SizeInBytes must hold the record
        too_small = not pt.Table.StrideInBytes and id_size <= pt.Table.SizeInBytes < tail_layout.size
        table = RecordData(f"program table slot {pt_index}", "program-table", slot_va, tail_layout, tail)
        hybrid = layout.record_kind is RecordKind.HYBRID
        group = _Group(pt_index, program, pcs, layout, table, slot_trace, hybrid, layout.primary.size,
                       _packed_dtype(layout.primary), first_to_reference=too_small)
        if hybrid:
            sec = layout.secondary
            assert sec is not None
            group.ssize = sec.size
            group.sstride = pcs.SecondaryRecordByteStride
            group.sec_ok = not sec.stride_problems(group.sstride)
            group.ic_reset = bool(ctx.memo(pcs, "ic-reset", _ic_resets_per_secondary_list))
        if not self._resolves_quietly(group):
            return None
        return group

    def _resolves_quietly(self, group: _Group) -> bool:
        """Whether the reference resolves this group's executions without a finding (a descriptor table with no
        heap of its type bound is one per record: such records take the reference walk).  The descriptor-table
        handles its executions read from records are checked per record in columns (:attr:`_Group.handle_checks`),
        so the probe only lists them."""
        ctx = self.ctx
        probe = ExecContext(ctx.memory, ctx.device, ctx.objects, ctx.state, ctx.limits, Trace(ctx.trace.call))
        layout = group.layout
        zero = bytes(max(layout.primary.min_stride, layout.primary.size))
        primary = RecordData("primary record 0", "primary", 0, layout.primary, decode_record(layout.primary, zero))
        secondary = None
        if group.hybrid:
            assert layout.secondary is not None
            secondary = RecordData("secondary record 0", "secondary", 0, layout.secondary,
                                   decode_record(layout.secondary, bytes(layout.secondary.min_stride)))
        rctx = WorkListRecordContext(probe, Loc(list_index=0, primary_index=0), self.sel.executable_class,
                                     group.pcs, layout, group.program, primary, group.table, {}, table_uses=[])
        rctx.resolve(secondary, 0)
        checks = []
        for use in rctx.table_uses or ():
            record = layout.primary if use.source.kind == "primary" else layout.secondary
            f = record.arg_field(use.source.arg) if record is not None and use.source.arg is not None else None
            heap = self.ctx.state.descriptor_heaps.heap(use.heap)
            if f is None or heap is None:
                return False
            checks.append(HandleCheck(use.source.kind, f.offset, heap))
        group.handle_checks = tuple({(c.record, c.offset): c for c in checks}.values())
        return not probe.trace.findings and not probe.trace.findings_suppressed

    # -- chunks ---------------------------------------------------------------------------------------------------

    def walk(self, on_chunk: ChunkDone | None = None) -> None:
        i, n, limits = 0, self.n, self.ctx.limits
        while i < n:
            if i >= limits.max_primary_records:
                walk_primary_record(self.run, i, n, self.start, self.stride)  # raises the limit
                return
            end = min(n, i + CHUNK, limits.max_primary_records)
            self._copied: list[tuple[int, int]] = []
            more = self._chunk(i, end)
            if on_chunk is not None:
                on_chunk()
            for va, size in self._copied:  # the chunk's records are copies now: the input's pages may go
                self.ctx.memory.release(va, size)
            if not more:
                return
            i = end

    def _reference(self, i: int) -> bool:
        return walk_primary_record(self.run, i, self.n, self.start, self.stride)

    def _chunk(self, i0: int, i1: int) -> bool:
        """Primary records ``i0 .. i1 - 1``; False when the list's walk ended."""
        start, stride = self.start, self.stride
        if start + (i1 - 1) * stride + 4 > VA_LIMIT:  # a record address wraps: the reference reports where
            return all(self._reference(i) for i in range(i0, i1))
        m = i1 - i0
        va0 = start + i0 * stride
        vas = np.uint64(va0) + np.arange(m, dtype=np.uint64) * np.uint64(stride)
        gid = np.full(m, -1, dtype=np.int64)
        region = self.regions.region_of(va0, va0 + (m - 1) * stride + 4)  # the whole chunk's heads in one region
        if region >= 0:
            pti = self.regions.strided(region, va0, m, stride, 4).view("<u4").reshape(-1)
            head = np.ones(m, dtype=bool)
        else:
            ridx = self.regions.locate(vas, 4)
            head = ridx >= 0
            pti = self.regions.gather(ridx[head], vas[head], 4).view("<u4").reshape(-1)
        slot_bad = np.zeros(m, dtype=bool)  # records whose ProgramTableIndex selects a slot the reference reports
        pt_of = np.full(m, -1, dtype=np.int64)
        if len(pti):
            uniq, inv = np.unique(pti, return_inverse=True)
            table = np.array([self.group_index(int(t)) for t in uniq], dtype=np.int64)
            gid[head] = table[inv.reshape(-1)]
            slot_bad[head] = gid[head] < 0
            pt_of[head] = pti
        chunk = _Chunk(self, i0, va0, stride, vas, gid)
        for g in np.unique(gid[gid >= 0]):
            chunk.load_group(int(g))
        self._copied.append((va0, m * stride))
        for g, part in chunk.parts.items():
            group = self.groups[g]
            if part.ns is not None and part.base is not None and len(part.ns) and group.hybrid:
                some = part.ns > 0
                if some.any():
                    lo = int(part.base[some].min())
                    hi = int((part.base[some] + part.ns[some].astype(np.uint64) * np.uint64(group.sstride)).max())
                    self._copied.append((lo, hi - lo + group.ssize))
        for g in np.unique(chunk.gid[chunk.gid >= 0]).tolist():
            group = self.groups[g]
            if group.first_to_reference:  # the reference reports it at the slot's first record, once
                group.first_to_reference = False
                chunk.gid[int(np.flatnonzero(chunk.gid == g)[0])] = -1
        clean = chunk.gid >= 0
        flagged = np.flatnonzero(~clean)
        nf = len(flagged)
        pos = k = 0
        while True:
            f = int(flagged[k]) if k < nf else m
            if pos < f and not chunk.emit(pos, f):
                return False
            if f == m:
                return True
            end = f  # a run of adjacent flagged records whose slots' skips are learned: in columns
            while stride and end < m and k + end - f < nf and flagged[k + end - f] == end and slot_bad[end] and \
                    self._learned(int(pt_of[end])):
                end += 1
            if end > f:
                done = self._skipped_run(i0, f, end, vas, pt_of)
                k, pos = k + done, f + done
                if done == end - f:
                    continue
                f = pos  # the record limit was reached: the reference reports it at this record
            if stride and slot_bad[f]:
                ok = self._observed(i0 + f, int(pt_of[f]), int(vas[f]))
            else:
                ok = self._reference(i0 + f)
            if not ok:
                return False
            k, pos = k + 1, f + 1

    # -- records of flagged slots in columns --------------------------------------------------------------------

    def _learned(self, pt: int) -> bool:
        state = self._skips.get(pt)
        return state is not None and state.learned is not None

    def _observed(self, i: int, pt: int, va: int) -> bool:
        """Record ``i`` (of a flagged slot ``pt``) by the reference walk, watching what it did: two records of the
        same slot that the reference treats alike (the same findings and record but for the record's index and
        VA, no execution, the walk going on) teach the skip that every later record of that slot then gets in
        columns (:meth:`_skipped_run`)."""
        ctx, run = self.ctx, self.run
        trace = ctx.trace
        before = (len(trace.findings), trace.findings_suppressed, len(run.trace.primary_records),
                  len(trace.executions), ctx.records_walked, ctx.records_repeated, run.trace.stopped)
        ok = self._reference(i)
        state = self._skips.setdefault(pt, _SkipState())
        if state.learned is not None or state.attempts >= _SKIP_ATTEMPTS:
            return ok
        state.attempts += 1
        after = (len(trace.findings), trace.findings_suppressed, len(run.trace.primary_records),
                 len(trace.executions), ctx.records_walked, ctx.records_repeated, run.trace.stopped)
        plain = ok and after[1] == before[1] and after[2] == before[2] + 1 and after[3:] == (
            before[3], before[4] + 1, before[5], before[6])
        seen = _Observed(i, va, list(trace.findings[before[0]:]), run.trace.primary_records[-1]) if plain else None
        if seen is not None and state.last is not None:
            state.learned = _Skip.learn(state.last, seen)
        state.last = seen
        return ok

    def _skipped_run(self, i0: int, a: int, b: int, vas: np.ndarray, pt_of: np.ndarray) -> int:
        """Records ``a .. b - 1`` of the chunk (each of a slot whose skip is learned) in columns, as far as the
        record limit lets them go; returns how many."""
        ctx, run = self.ctx, self.run
        n = min(b - a, max(ctx.limits.max_records - ctx.records_walked, 0))
        if n <= 0:
            return 0
        pts = pt_of[a:a + n]
        index = np.arange(i0 + a, i0 + a + n, dtype=np.int64)
        va = vas[a:a + n]
        for lo, hi, pt in _runs_of(pts):
            skip = self._skips[pt].learned
            assert skip is not None
            run.trace.primary_records.add_batch(_SkippedRecords(skip, index[lo:hi], va[lo:hi]))
            rows = skip.findings * (hi - lo)
            room = max(ctx.limits.max_findings - len(ctx.trace.findings), 0)
            kept = min(rows, room)
            if kept:
                ctx.trace.findings.add_batch(_FindingRows(skip, index[lo:hi], va[lo:hi], kept))
            ctx.trace.findings_suppressed += rows - kept
        ctx.records_walked += n
        return n


#: records of one flagged slot the reference walks to learn its skip, at most
_SKIP_ATTEMPTS = 4


def _runs_of(values: np.ndarray) -> list[tuple[int, int, int]]:
    """(start, stop, value) of every run of equal values."""
    if not len(values):
        return []
    cuts = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = [0, *cuts.tolist()]
    stops = [*cuts.tolist(), len(values)]
    return [(a, b, int(values[a])) for a, b in zip(starts, stops, strict=True)]


@dataclass
class _Observed:
    """What the reference did with record ``index`` at ``va`` of a flagged slot: the findings it reported and the
    record it listed."""

    index: int
    va: int
    findings: list[Finding]
    record: PrimaryRecordTrace


@dataclass
class _Skip:
    """What the reference does with every record of a flagged slot, learned from two of them: its findings, each
    with the VA at ``offset`` from the record's (``relative``) or at an address of its own, and the record it lists
    (the same but for its index and VA)."""

    kinds: list[tuple[str, str, str, str, int | None, int | None, bool]]
    record: PrimaryRecordTrace

    @property
    def findings(self) -> int:
        return len(self.kinds)

    @staticmethod
    def learn(a: _Observed, b: _Observed) -> _Skip | None:
        """The skip both records had, or None when they differ in anything but their index and VA."""
        if len(a.findings) != len(b.findings):
            return None
        kinds = []
        for fa, fb in zip(a.findings, b.findings, strict=True):
            same = (fa.kind, fa.rule, fa.message, fa.severity, fa.list_index) == (
                fb.kind, fb.rule, fb.message, fb.severity, fb.list_index)
            if not same or (fa.primary_index, fb.primary_index) != (a.index, b.index) or any(
                    x is not None for x in (fa.secondary_index, fb.secondary_index, fa.command_index,
                                            fb.command_index)):
                return None
            if fa.va is None or fb.va is None:
                if fa.va is not fb.va:
                    return None
                at, relative = None, False
            elif fa.va - a.va == fb.va - b.va:
                at, relative = fa.va - a.va, True
            elif fa.va == fb.va:
                at, relative = fa.va, False
            else:
                return None
            kinds.append((fa.kind, fa.rule, fa.message, fa.severity, fa.list_index, at, relative))
        ra, rb = a.record, b.record
        if (ra.index, ra.va, rb.index, rb.va) != (a.index, a.va, b.index, b.va) or len(ra.secondary_records) or \
                len(rb.secondary_records) or len(ra.executions) or len(rb.executions):
            return None
        if (ra.fields, ra.pcs, ra.record_kind, ra.header, ra.program_table, ra.skipped) != (
                rb.fields, rb.pcs, rb.record_kind, rb.header, rb.program_table, rb.skipped):
            return None
        return _Skip(kinds, ra)

    def finding(self, j: int, index: int, va: int) -> Finding:
        kind, rule, message, severity, list_index, at, relative = self.kinds[j]
        return Finding(kind, rule, message, severity, list_index, index, None, None,
                       None if at is None else va + at if relative else at)


@dataclass
class _SkipState:
    last: _Observed | None = None
    learned: _Skip | None = None
    attempts: int = 0


class _SkippedRecords:
    """Records of a flagged slot that the reference would list and skip alike, as a
    :class:`~d3d12wl.executor.trace.Batch` of PrimaryRecordTrace."""

    def __init__(self, skip: _Skip, index: np.ndarray, va: np.ndarray) -> None:
        self.skip, self.index, self.va = skip, index, va

    def __len__(self) -> int:
        return len(self.index)

    @property
    def nbytes(self) -> int:
        return self.index.nbytes + self.va.nbytes

    def programs(self, a: int, b: int) -> list[str | None]:
        """The program records ``a .. b - 1`` selected (the same for all: none determined, or the slot's)."""
        slot = self.skip.record.program_table
        return [slot.program if slot is not None else None] * (b - a)

    def item(self, i: int) -> PrimaryRecordTrace:
        r = self.skip.record
        return PrimaryRecordTrace(int(self.index[i]), int(self.va[i]), copy.deepcopy(r.fields), pcs=r.pcs,
                                  record_kind=r.record_kind, header=r.header, program_table=r.program_table,
                                  skipped=r.skipped)

    def items(self, start: int, stop: int) -> Iterator[PrimaryRecordTrace]:
        for i in range(start, stop):
            yield self.item(i)


class _FindingRows:
    """The findings of records skipped alike (:class:`_SkippedRecords`), ``skip.findings`` per record in order,
    the first ``count``, as a :class:`~d3d12wl.executor.trace.Batch` of Finding."""

    def __init__(self, skip: _Skip, index: np.ndarray, va: np.ndarray, count: int) -> None:
        self.skip, self.index, self.va, self.count = skip, index, va, count

    def __len__(self) -> int:
        return self.count

    def item(self, i: int) -> Finding:
        r, j = divmod(i, self.skip.findings)
        return self.skip.finding(j, int(self.index[r]), int(self.va[r]))

    def items(self, start: int, stop: int) -> Iterator[Finding]:
        for i in range(start, stop):
            yield self.item(i)

    def templates(self) -> list[Finding]:
        """Per finding of a record, the finding every record has but for ``primary_index`` and ``va`` (which
        :meth:`columns` give)."""
        return [self.skip.finding(j, 0, 0) for j in range(self.skip.findings)]

    def columns(self, a: int, b: int) -> dict[str, np.ndarray]:
        """Findings ``a .. b - 1`` as columns: ``template`` (an index into :meth:`templates`), ``primary_index``,
        ``va`` and ``va.absent``."""
        k = np.arange(a, b, dtype=np.int64)
        r, j = np.divmod(k, self.skip.findings)
        at = np.array([0 if x[5] is None else x[5] for x in self.skip.kinds], dtype=np.uint64)
        relative = np.array([x[6] for x in self.skip.kinds], dtype=bool)
        none = np.array([x[5] is None for x in self.skip.kinds], dtype=bool)
        va = np.where(relative[j], self.va[r].astype(np.uint64) + at[j], at[j])
        return {"template": j, "primary_index": self.index[r], "va": np.where(none[j], 0, va).astype(np.uint64),
                "va.absent": none[j]}

    def finding_counts(self) -> dict[tuple[str, str], int]:
        """(severity, kind) -> how many of these findings, without making them."""
        out: dict[tuple[str, str], int] = {}
        per, extra = divmod(self.count, self.skip.findings)
        for j, k in enumerate(self.skip.kinds):
            key = (k[3], k[0])
            out[key] = out.get(key, 0) + per + (1 if j < extra else 0)
        return out


@dataclass
class _ChunkGroup:
    """One group's records in one chunk: positions, copied bytes and (hybrid) their secondary lists."""

    members: np.ndarray  # positions in the chunk
    rows: np.ndarray  # (len(members), psize) uint8
    ns: np.ndarray | None = None  # NumSecondaryRecords (int64)
    base: np.ndarray | None = None  # SecondaryRecords (uint64)
    sreg: np.ndarray | None = None  # the region holding each record's first secondary record
    fit: np.ndarray | None = None  # leading secondary records readable whole from that region


class _Chunk:
    def __init__(self, walk: _ListWalk, i0: int, va0: int, stride: int, vas: np.ndarray, gid: np.ndarray) -> None:
        self.walk = walk
        self.i0 = i0
        self.va0 = va0
        self.stride = stride
        self.vas = vas
        self.gid = gid
        self.row = np.zeros(len(vas), dtype=np.int64)  # row of each record in its group's _ChunkGroup
        self.parts: dict[int, _ChunkGroup] = {}

    def load_group(self, g: int) -> None:
        walk, group = self.walk, self.walk.groups[g]
        members = np.flatnonzero(self.gid == g)
        m = len(self.vas)
        region = walk.regions.region_of(self.va0, self.va0 + (m - 1) * self.stride + group.psize)
        if region >= 0:  # every record of the chunk readable whole from one region
            view = walk.regions.strided(region, self.va0, m, self.stride, group.psize)
            rows = view.copy() if len(members) == m else view[members]
        else:
            ridx = walk.regions.locate(self.vas[members], group.psize)
            bad = ridx < 0
            if bad.any():  # the record's bytes fault: the reference ends the list there
                self.gid[members[bad]] = -1
                members, ridx = members[~bad], ridx[~bad]
            rows = walk.regions.gather(ridx, self.vas[members], group.psize)
        part = _ChunkGroup(members, rows)
        self.row[members] = np.arange(len(members))
        for check in group.handle_checks:
            if check.record == "primary":  # the reference reports the record's handle: it takes the reference walk
                self.gid[members[check.rows(rows)]] = -1
        if group.hybrid:
            rec = rows.view(group.pdtype).reshape(-1)
            ns = rec["NumSecondaryRecords"].astype(np.int64)
            base = rec["SecondaryRecords"].astype(np.uint64)
            flag, sreg, fit = self._secondary_flags(group, ns, base)
            flag |= self._secondary_handle_flags(group, ns, base, sreg, fit, flag)
            self.gid[members[flag]] = -1
            part.ns, part.base, part.sreg, part.fit = ns, base, sreg, fit
        self.parts[g] = part

    def _secondary_handle_flags(self, group: _Group, ns: np.ndarray, base: np.ndarray, sreg: np.ndarray,
                                fit: np.ndarray, flag: np.ndarray) -> np.ndarray:
        """Records with a secondary record, among those the columns would take (``fit``), whose descriptor-table
        handle addresses no descriptor of its heap: the reference reports them."""
        out = np.zeros(len(ns), dtype=bool)
        checks = [c for c in group.handle_checks if c.record == "secondary"]
        take = np.minimum(ns, fit) * (~flag)
        if not checks or not take.any():
            return out
        regions, stride = self.walk.regions, group.sstride
        for reg in np.unique(sreg[take > 0]).tolist():
            m = np.flatnonzero((take > 0) & (sreg == reg))
            first = np.zeros(len(m) + 1, dtype=np.int64)
            np.cumsum(take[m], out=first[1:])
            owner = np.repeat(np.arange(len(m)), take[m])
            j = np.arange(int(first[-1]), dtype=np.int64) - first[:-1][owner]  # of every secondary record
            offsets = (base[m][owner] - regions.bases[reg]).astype(np.int64) + j * stride
            for c in checks:
                handles = regions.gather_offsets(int(reg), (offsets + c.offset).astype(np.intp), 8).view("<u8")[:, 0]
                bad = np.unique(owner[c.outside(handles)])
                out[m[bad]] = True
        return out

    def _secondary_flags(self, group: _Group, ns: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                                           np.ndarray]:
        """Records whose secondary list the reference reports before walking it (misaligned SecondaryRecords, an
        unusable stride), and for the others the region of the first secondary record and ``fit``: how many of
        the leading secondary records lie whole in that region (the reference walks the rest, if any)."""
        walk = self.walk
        some = ns > 0
        flag = some & (base % np.uint64(8) != 0)
        if not group.sec_ok:
            flag |= some
        sreg = np.zeros(len(ns), dtype=np.int64)
        fit = np.zeros(len(ns), dtype=np.int64)
        check = some & ~flag
        if check.any():
            size = max(group.ssize, 1)
            first = base[check]
            ridx = walk.regions.locate(first, size)
            ok = ridx >= 0
            safe = np.maximum(ridx, 0)
            if group.sstride == 0:
                room = ns[check]
            else:  # records j with base + j * stride + size <= region end
                room_bytes = walk.regions.lasts[safe] + np.uint64(1) - first - np.uint64(size)
                room = (np.where(ok, room_bytes, np.uint64(0)) // np.uint64(group.sstride)).astype(np.int64) + 1
            fit[check] = np.where(ok, np.minimum(ns[check], room), 0)
            sreg[check] = safe
        return flag, sreg, fit

    # -- clean runs -------------------------------------------------------------------------------------------------

    def emit(self, a: int, b: int) -> bool:
        """Records ``a .. b - 1`` of the chunk (none flagged): runs of whole records as batches; a record whose
        secondary list leaves its region or reaches a limit goes partly in columns and is handed to the reference
        walk where the columns stop (:meth:`_partial`)."""
        pos = a
        while pos < b:
            n_ok, execs, records, repeats = self._whole(pos, b)
            if n_ok:
                self._batch(pos, pos + n_ok, execs)
                self.walk.ctx.records_walked += int(records.sum())
                self.walk.ctx.records_repeated += int(repeats.sum())
                pos += n_ok
            if pos < b:
                if not self._partial(pos):
                    return False
                pos += 1
        return True

    def _whole(self, a: int, b: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
        """How many records from ``a`` on the columns take whole (every secondary record readable, every limit
        clear), and per record its executions, records walked and repeated records."""
        walk, ctx = self.walk, self.walk.ctx
        gid, row = self.gid[a:b], self.row[a:b]
        execs = np.ones(b - a, dtype=np.int64)
        fit = np.ones(b - a, dtype=np.int64)
        broadcast = np.zeros(b - a, dtype=bool)
        for g, part in self.parts.items():
            if part.ns is not None and part.fit is not None:
                m = gid == g
                execs[m] = part.ns[row[m]]
                fit[m] = part.fit[row[m]]
                broadcast[m] = walk.groups[g].sstride == 0
        hybrid = np.array([grp.hybrid for grp in walk.groups], dtype=bool)[gid]
        fit = np.where(hybrid, fit, execs)
        records = 1 + np.where(hybrid, execs, 0)
        repeats = np.where(hybrid & broadcast, np.maximum(execs - 1, 0), 0)
        limits = ctx.limits
        over = (fit < execs) | (hybrid & (execs > limits.max_secondary_records))
        over |= np.cumsum(records) > limits.max_records - ctx.records_walked
        over |= np.cumsum(execs) > limits.max_executions - len(ctx.trace.executions)
        over |= np.cumsum(repeats) > limits.max_repeated_records - ctx.records_repeated
        n = int(np.argmax(over)) if over.any() else b - a
        return n, execs[:n], records[:n], repeats[:n]

    def _partial(self, pos: int) -> bool:
        """Record ``pos``: the secondary records the columns can take (up to the first unreadable one or the
        first limit), then the reference walk from there on, which reports what stops it."""
        walk, ctx, run = self.walk, self.walk.ctx, self.walk.run
        i = self.i0 + pos
        g = int(self.gid[pos])
        group, part = walk.groups[g], self.parts[g]
        limits = ctx.limits
        if not group.hybrid or part.ns is None or part.fit is None or ctx.records_walked >= limits.max_records:
            return walk._reference(i)
        r = int(self.row[pos])
        q = min(int(part.ns[r]), int(part.fit[r]), limits.max_secondary_records,
                limits.max_records - ctx.records_walked - 1, limits.max_executions - len(ctx.trace.executions))
        if group.sstride == 0:
            q = min(q, limits.max_repeated_records - ctx.records_repeated + 1)
        if q <= 0:
            return walk._reference(i)
        batch = self._batch(pos, pos + 1, np.array([q], dtype=np.int64), records=False)
        ctx.records_walked += 1 + q
        if group.sstride == 0:
            ctx.records_repeated += q - 1
        prt = batch.partial_record()
        run.trace.primary_records.append(prt)
        rctx = batch.record_context(0, ctx)
        walk_secondary_records(run, rctx, prt, group.layout, Loc(list_index=run.index, primary_index=i), start=q)
        return True

    def _secondaries(self, group: _Group, ns: np.ndarray, base: np.ndarray, sreg: np.ndarray,
                     off: np.ndarray) -> np.ndarray:
        """Every secondary record's bytes, by index arithmetic: record r's j-th at ``base[r] + j * stride``."""
        regions, stride = self.walk.regions, group.sstride
        total = int(off[-1])
        used = ns > 0
        regs = np.unique(sreg[used]) if used.any() else np.zeros(0, dtype=np.int64)
        if len(regs) == 1:
            r = int(regs[0])
            # secondary j of record k: (base[k] - region base - off[k] * stride) + (off[k] + j) * stride
            first = (base - regions.bases[r]).astype(np.int64) - off[:-1] * stride
            offsets = np.repeat(first, ns) + np.arange(total, dtype=np.int64) * stride
            return regions.gather_offsets(r, offsets.astype(np.intp), group.ssize)
        out = np.empty((total, group.ssize), dtype=np.uint8)
        for reg in regs:
            m = used & (sreg == reg)
            rows = _expand(off[:-1][m], ns[m])
            first = (base[m] - regions.bases[reg]).astype(np.int64) - off[:-1][m] * stride
            offsets = np.repeat(first, ns[m]) + rows * stride
            out[rows] = regions.gather_offsets(int(reg), offsets.astype(np.intp), group.ssize)
        return out

    def _batch(self, a: int, b: int, execs: np.ndarray, *, records: bool = True) -> WorkListBatch:
        """Records ``a .. b - 1`` and their ``execs`` executions (for a hybrid record: its first ``execs``
        secondary records) as a batch; ``records``: list the records in the list's trace too."""
        walk, run = self.walk, self.walk.run
        gid, row = self.gid[a:b], self.row[a:b]
        n = b - a
        exec_off = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(execs, out=exec_off[1:])
        prows: dict[int, np.ndarray] = {}
        pbase: dict[int, np.ndarray] = {}
        sec_rows: dict[int, np.ndarray] = {}
        group_row = np.zeros(n, dtype=np.int64)  # row of each record in its group's arrays of this batch
        sec_off = np.zeros(n, dtype=np.int64)  # first row of each record's secondaries in its group's sec_rows
        for g, part in self.parts.items():
            m = np.flatnonzero(gid == g)
            if not len(m):
                continue
            group = walk.groups[g]
            rows_g = row[m]
            prows[g] = part.rows[rows_g]
            group_row[m] = np.arange(len(m))
            if part.ns is not None and part.base is not None and part.sreg is not None:
                ns, base, sreg = execs[m], part.base[rows_g], part.sreg[rows_g]
                pbase[g] = base
                off = np.zeros(len(m) + 1, dtype=np.int64)
                np.cumsum(ns, out=off[1:])
                sec_off[m] = off[:-1]
                sec_rows[g] = self._secondaries(group, ns, base, sreg, off)
        batch = WorkListBatch(
            walk=walk, first_execution=len(walk.ctx.trace.executions), first_invocation=run.counter,
            primary_index=(self.i0 + a + np.arange(n)).astype(np.int64), primary_va=self.vas[a:b].copy(),
            gid=gid.astype(np.int16 if len(walk.groups) < (1 << 15) else np.int64), group_row=group_row,
            exec_off=exec_off, sec_off=sec_off, primary_rows=prows, secondary_base=pbase, secondary_rows=sec_rows)
        walk.ctx.trace.executions.add_batch(batch.executions)
        # per PCS (several slots' groups may share one), how many executions and the first, in execution order
        ran = execs > 0
        per_pcs: dict[str, list[int]] = {}
        for g in np.unique(gid[ran]).tolist():
            m = np.flatnonzero(ran & (gid == g))
            hit = per_pcs.setdefault(walk.groups[g].pcs.name, [int(exec_off[int(m[0])]), 0])
            hit[0] = min(hit[0], int(exec_off[int(m[0])]))
            hit[1] += int(execs[m].sum())
        cls = walk.sel.executable_class.value
        for name, (first, count) in sorted(per_pcs.items(), key=lambda kv: kv[1][0]):
            walk.ctx.note_executions((cls, name), count, partial(batch.execution, first))
        if records:
            run.trace.primary_records.add_batch(batch.records)
        run.counter += int(exec_off[-1])
        return batch


# --------------------------------------------------------------------------------------------------------------
# DispatchList: the columnar trace of a run of records
# --------------------------------------------------------------------------------------------------------------


@dataclass
class WorkListBatch:
    """A run of primary records of one list, and the executions they drive, as columns.

    Per primary record: ``primary_index``, ``primary_va``, ``gid`` (its :class:`_Group`: slot, program, PCS),
    ``group_row`` (its row in the group's arrays), ``exec_off`` (first execution, relative; n + 1 entries) and
    ``sec_off`` (first row of its secondary records in the group's ``secondary_rows``).  Per group: the records'
    bytes (``primary_rows``), SecondaryRecords (``secondary_base``) and every secondary record's bytes
    (``secondary_rows``).  Executions are numbered ``first_execution + k``, invocations ``first_invocation + k``."""

    walk: _ListWalk
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
    def executions(self) -> _Executions:
        return _Executions(self)

    @property
    def records(self) -> _Records:
        return _Records(self)

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

    # -- objects on demand -----------------------------------------------------------------------------------------

    def _record_context(self, r: int) -> tuple[_Group, WorkListRecordContext]:
        hit = self._cache.get("rctx")
        if hit is not None and hit[0] == r:
            return hit[1], hit[2]
        group, rctx = self.walk.groups[int(self.gid[r])], self.record_context(r, _scratch(self.walk.ctx))
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

    def _secondary(self, group: _Group, r: int, j: int) -> RecordData:
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
        secondary = self._secondary(group, r, j)
        return build_execution(walk.sel, walk.run.index, self.first_execution + k, rctx, rctx.primary.va,
                               int(self.primary_index[r]), secondary, j, invocation, j if group.ic_reset else None)

    def record(self, r: int) -> PrimaryRecordTrace:
        group, rctx = self._record_context(r)
        layout = group.layout
        prt = PrimaryRecordTrace(int(self.primary_index[r]), rctx.primary.va, dict(rctx.primary.fields),
                                 pcs=group.pcs.name, record_kind=layout.record_kind.value,
                                 header=layout.primary.header, program_table=group.slot_trace)
        e0, e1 = int(self.exec_off[r]), int(self.exec_off[r + 1])
        prt.executions.add_batch(_Range(self.first_execution + e0, e1 - e0))
        if group.hybrid:
            prt.secondary_records.add_batch(_SecondaryRecords(self, group, r))
        return prt

    def partial_record(self) -> PrimaryRecordTrace:
        """Record 0 (the batch's only one) as the object the reference walk goes on filling."""
        return self.record(0)


class _Range:
    """Consecutive execution indices as a :class:`~d3d12wl.executor.trace.Batch`."""

    def __init__(self, start: int, n: int) -> None:
        self.start, self.n = start, n

    def __len__(self) -> int:
        return self.n

    def item(self, i: int) -> int:
        return self.start + i

    def items(self, start: int, stop: int) -> Iterator[int]:
        return iter(range(self.start + start, self.start + stop))


class _SecondaryRecords:
    """One primary record's secondary records in a :class:`WorkListBatch`, as a Batch of RecordTrace."""

    def __init__(self, batch: WorkListBatch, group: _Group, r: int) -> None:
        self.batch, self.group, self.r = batch, group, r

    def __len__(self) -> int:
        return int(self.batch.exec_off[self.r + 1] - self.batch.exec_off[self.r])

    def item(self, j: int) -> RecordTrace:
        s = self.batch._secondary(self.group, self.r, j)
        return RecordTrace(j, s.va, s.fields)

    def items(self, start: int, stop: int) -> Iterator[RecordTrace]:
        for j in range(start, stop):
            yield self.item(j)


class _Executions:
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


class _Records:
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


def walk_primary_records_columnar(run: ListRun, on_chunk: ChunkDone | None = None) -> None:
    """Step 10 of one list, in columns (the reference walk for raytracing-class lists).  ``on_chunk`` is called
    after each chunk of primary records has been added to the trace (a consumer that streams them reads and
    releases them there)."""
    sel = run.selection
    if sel is None or sel.executable_class is ExecutableClass.RAYTRACING:
        from d3d12wl.executor.dispatch_list import walk_primary_records

        walk_primary_records(run)
        if on_chunk is not None:
            on_chunk()
        return
    setup = primary_walk_setup(run)
    if setup is None:
        return
    _ListWalk(run, *setup).walk(on_chunk)


# --------------------------------------------------------------------------------------------------------------
# ExecuteIndirect
# --------------------------------------------------------------------------------------------------------------


@dataclass
class CommandBatch:
    """Commands ``first_command ..`` of one ExecuteIndirect call as columns: their bytes (``rows``), VAs
    ``ArgumentBuffer + k * ByteStride``."""

    plan: CommandPlan
    first_execution: int
    first_command: int
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes

    def va(self, i: int) -> int:
        return self.plan.call.ArgumentBuffer + (self.first_command + i) * self.plan.stride

    def columns(self, a: int = 0, b: int | None = None) -> dict[str, np.ndarray]:
        k = np.arange(a, len(self.rows) if b is None else b, dtype=np.int64)
        command = self.first_command + k
        return {"index": self.first_execution + k, "command_index": command, "invocation": command,
                "command_va": np.uint64(self.plan.call.ArgumentBuffer) + command.astype(np.uint64)
                * np.uint64(self.plan.stride)}

    def item(self, i: int) -> Execution:
        fields = decode_record(self.plan.layout, self.rows[i].tobytes())
        return build_command(self.plan, self.first_execution + i, self.first_command + i, self.va(i), fields)

    def items(self, start: int, stop: int) -> Iterator[Execution]:
        for i in range(start, stop):
            yield self.item(i)


def _add_commands(plan: CommandPlan, batch: CommandBatch) -> None:
    """A run of commands the reference would execute without a finding, added to the trace as columns."""
    ctx = plan.ctx
    ctx.trace.executions.add_batch(batch)
    ctx.records_walked += len(batch)
    ctx.note_executions((plan.cls.value if plan.cls else "", None), len(batch), lambda: batch.item(0))


def walk_commands_columnar(plan: CommandPlan, on_chunk: ChunkDone | None = None) -> None:
    """The command walk in chunks: each chunk's commands checked (VA wrap, mapping, limits) as arrays and copied
    in one gather; the first command a check stops at takes the reference walk, which reports it.  The commands
    whose values break a per-command requirement (:meth:`CommandPlan.flagged`: the index buffer format, the root
    CBV address) take the reference walk too, which reports them and executes them as it does; the commands
    between them stay columns.  ``on_chunk``: called after each chunk's commands are in the trace."""
    ctx, trace = plan.ctx, plan.ctx.trace
    regions = _regions(ctx)
    base, stride, size = plan.call.ArgumentBuffer, plan.stride, plan.layout.size
    first_wrap = 0 if base + size > VA_LIMIT else (VA_LIMIT - size - base) // stride + 1
    k = 0
    while k < plan.count:
        budget = min(ctx.limits.max_records - ctx.records_walked,
                     ctx.limits.max_executions - len(trace.executions))
        end = min(plan.count, k + CHUNK, first_wrap, k + max(budget, 0))
        rows = None
        if end > k:
            va0 = base + k * stride
            region = regions.region_of(va0, va0 + (end - k - 1) * stride + max(size, 1))
            if region >= 0:  # the whole chunk in one region: one strided copy
                rows = regions.strided(region, va0, end - k, stride, size).copy()
            else:
                vas = np.uint64(va0) + np.arange(end - k, dtype=np.uint64) * np.uint64(stride)
                ridx = regions.locate(vas, max(size, 1))
                bad = np.flatnonzero(ridx < 0)
                if len(bad):
                    end = k + int(bad[0])
                    vas, ridx = vas[: end - k], ridx[: end - k]
                rows = regions.gather(ridx, vas, size)
        if end > k and rows is not None:
            start = 0
            for f in plan.flagged(rows).tolist():  # the budget above covers every command of the chunk
                if f > start:
                    _add_commands(plan, CommandBatch(plan, len(trace.executions), k + start, rows[start:f]))
                if not walk_command(plan, k + f):
                    return
                start = f + 1
            if start < end - k:
                _add_commands(plan, CommandBatch(plan, len(trace.executions), k + start, rows[start:]))
            k = end
            if on_chunk is not None:
                on_chunk()
            continue
        if not walk_command(plan, k):  # the reference reports the wrap, fault or limit
            return
        k += 1


# --------------------------------------------------------------------------------------------------------------
# The trace as a table
# --------------------------------------------------------------------------------------------------------------

#: per-execution integer columns of :func:`execution_columns` (int64; -1 where absent, and ``absent`` says so)
INDEX_COLUMNS = ("index", "list_index", "signature_index", "primary_index", "secondary_index", "command_index",
                 "invocation", "counter")
#: the VA of each execution's records (uint64; 0 where absent)
VA_COLUMNS = ("primary_va", "secondary_va", "program_table_slot_va", "command_va")
#: the ``Execution.record_va`` key of each of :data:`VA_COLUMNS`
RECORD_VA_KEYS = dict(zip(VA_COLUMNS, ("primary", "secondary", "program_table_slot", "command"), strict=True))
#: categorical columns: an int32 code per execution into ``ExecutionColumns.names[column]`` (-1: absent)
NAME_COLUMNS = ("executable_class", "program", "pcs", "trigger")
#: the name table every ``.source`` column's codes index (ValueSource kinds)
SOURCE_NAMES = "source"
#: the name table every ``.field`` column's codes index (record members, ``ValueSource.field``)
FIELD_NAMES = "field"
#: a ``.field`` column: the record member (its layout name) that supplied the value of the column it ends, for
#: every value some execution takes from a record (a root argument, a constants DWORD, an IA binding)
FIELD_SUFFIX = ".field"
#: a trigger member's column is ``trigger.<member>`` (int64), in struct order, trigger types by enum value
TRIGGER_PREFIX = "trigger."
#: the record member the trigger's payload came from (not ``trigger.field``: every ``trigger.`` column is a member
#: of the payload)
TRIGGER_FIELD = "trigger_field"


def is_field_column(name: str) -> bool:
    """Whether column ``name`` holds record members (codes into ``names["field"]``)."""
    return name == TRIGGER_FIELD or name.endswith(FIELD_SUFFIX)


@dataclass
class ExecutionColumns:
    """A trace's executions as a struct of numpy arrays (all of one length), in this order: :data:`INDEX_COLUMNS`
    (int64), :data:`VA_COLUMNS` (uint64), :data:`NAME_COLUMNS` (int32 codes into ``names``), ``trigger.<member>``
    (int64) for every member of every trigger payload in struct order, every resolved root argument
    (:data:`ROOT_PREFIX`: ``root.G1`` / ``root.L0``, the VA or descriptor handle, uint64, with ``.source``, the
    ValueSource kind as a code into ``names["source"]``, and ``.va``, the byte it was read from; or ``root.G0[3]``
    per DWORD of a constants slot, int64; the DWORDs' sources are in the Execution objects only) and every IA
    binding (:data:`IA_PREFIX`: ``ia.vb<slot>.<member>`` by slot, then ``ia.ib.<member>``, members in struct
    order, with ``.source`` and ``.va``).  Wherever some execution takes a value from a record, its column has a
    ``.field`` column after it and its ``.source`` / ``.va`` (:data:`FIELD_SUFFIX`: ``root.G1.field``,
    ``ia.vb0.field``; a constants slot's ``root.L0.field`` after its DWORDs; the trigger's is
    :data:`TRIGGER_FIELD`, after its members): the record member that supplied it (``ValueSource.field``, the
    layout's name; for a constants slot :func:`~d3d12wl.executor.trace.slot_members`, ``Tint`` or ``Scale[0:2]
    Bias[2:4]``) as a code into ``names["field"]``, absent where the value came from no record.

    ``absent[name]`` (only for a column some row lacks) is True where the execution has no such value (no
    secondary record, no incrementing constant, a root parameter nothing set, another trigger type's member, ...);
    the column holds -1 (0 for uint64 columns) there, which is never to be read as a value."""

    columns: dict[str, np.ndarray]
    names: dict[str, list[str]]
    absent: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.columns["index"])

    def is_absent(self, name: str) -> np.ndarray:
        """Per row, whether column ``name`` has no value there (all False for a column no row lacks)."""
        got = self.absent.get(name)
        return np.zeros(len(self), dtype=bool) if got is None else got


class _Codes:
    def __init__(self) -> None:
        self.names: list[str] = []
        self._of: dict[str, int] = {}

    def code(self, name: str | None) -> int:
        if name is None or name == "":
            return -1
        got = self._of.get(name)
        if got is None:
            got = self._of[name] = len(self.names)
            self.names.append(name)
        return got


@dataclass
class _Part:
    """The columns of one run of executions (one segment's slice) and, per column, where its rows are absent (a
    bool: in every row or in none; or per row); ``triggers``: trigger type -> its members in struct order."""

    n: int
    cols: dict[str, np.ndarray] = field(default_factory=dict)
    absent: dict[str, np.ndarray | bool] = field(default_factory=dict)
    triggers: dict[str, list[str]] = field(default_factory=dict)

    def put(self, name: str, rows: np.ndarray | slice | int, values: Any, dtype: np.dtype,
            absent: bool | np.ndarray = False) -> None:
        """Column ``name`` at ``rows``: ``values``; rows of the part no put reaches are absent."""
        col = self.cols.get(name)
        if col is None:
            col = self.cols[name] = np.full(self.n, 0 if dtype.kind == "u" else -1, dtype=dtype)
            self.absent[name] = np.ones(self.n, dtype=bool)
        col[rows] = values
        gone = self.absent[name]
        if not isinstance(gone, np.ndarray):
            gone = self.absent[name] = np.full(self.n, gone)
        gone[rows] = absent

    def gone(self, name: str) -> np.ndarray | bool:
        """Where column ``name`` is absent: a bool (every row or none) or per row."""
        return self.absent.get(name, False) if name in self.cols else True


def _dtype_of(name: str) -> np.dtype:
    if name in VA_COLUMNS:
        return np.dtype(np.uint64)
    if name in NAME_COLUMNS or name.endswith(".source") or is_field_column(name):
        return np.dtype(np.int32)
    if name.startswith((ROOT_PREFIX, IA_PREFIX)):
        return _root_dtype(name)
    return np.dtype(np.int64)


def _key_order(parts: list[_Part]) -> list[str]:
    """The table's columns in their documented order (see :class:`ExecutionColumns`)."""
    from d3d12wl import abi

    keys = [*INDEX_COLUMNS, *VA_COLUMNS, *NAME_COLUMNS]
    types: dict[str, list[str]] = {}
    for p in parts:
        for t, members in p.triggers.items():
            types.setdefault(t, members)
    seen: set[str] = set()

    def enum_order(t: str) -> tuple[int, str]:
        try:
            return abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", t), t
        except Exception:  # noqa: BLE001 - a trigger type the headers do not name: after the named ones
            return 1 << 32, t

    for t in sorted(types, key=enum_order):
        for m in types[t]:
            if m not in seen and any(f"{TRIGGER_PREFIX}{m}" in p.cols for p in parts):
                seen.add(m)
                keys.append(f"{TRIGGER_PREFIX}{m}")
    if any(TRIGGER_FIELD in p.cols for p in parts):
        keys.append(TRIGGER_FIELD)
    keys += sorted({k for p in parts for k in p.cols if k.startswith(ROOT_PREFIX)}, key=_root_order)
    ia: dict[str, int] = {}
    for p in parts:
        for k in p.cols:
            if k.startswith(IA_PREFIX):
                ia.setdefault(k, len(ia))
    keys += sorted(ia, key=lambda k: (_ia_slot_order(k), _suffix_rank(k), ia[k]))
    return keys


#: the order of a value's own columns: the value, its ``.source``, ``.va``, ``.field``
_SUFFIXES = (".source", ".va", FIELD_SUFFIX)


def _suffix_rank(key: str) -> int:
    return next((i + 1 for i, suffix in enumerate(_SUFFIXES) if key.endswith(suffix)), 0)


def _new_codes() -> dict[str, _Codes]:
    """The name tables of one table being built: one per :data:`NAME_COLUMNS` column, the sources', the fields'."""
    return {name: _Codes() for name in (*NAME_COLUMNS, SOURCE_NAMES, FIELD_NAMES)}


def execution_columns(executions: Any, start: int = 0, stop: int | None = None) -> ExecutionColumns:
    """Executions ``start .. stop - 1`` of ``executions`` (a trace's :class:`~d3d12wl.executor.trace.LazyList`)
    as columns, built from each batch's arrays (objects only for executions the reference walk made)."""
    stop = len(executions) if stop is None else min(stop, len(executions))
    codes = _new_codes()
    parts: list[_Part] = []
    pos = 0
    for seg in executions.segments:
        a, b = max(start - pos, 0), min(stop - pos, len(seg))
        if a < b:
            parts.append(_segment_columns(seg, codes, a, b))
        pos += len(seg)
        if pos >= stop:
            break
    return _table(parts, codes)


def _table(parts: list[_Part], codes: dict[str, _Codes]) -> ExecutionColumns:
    out: dict[str, np.ndarray] = {}
    absent: dict[str, np.ndarray] = {}
    total = sum(p.n for p in parts)
    for k in _key_order(parts):
        dtype = _dtype_of(k)
        fill = 0 if dtype.kind == "u" else -1
        if not parts:
            out[k] = np.zeros(0, dtype=dtype)
            continue
        gones = [p.gone(k) for p in parts]
        if len(parts) == 1 and k in parts[0].cols:
            out[k] = parts[0].cols[k].astype(dtype, copy=False)
        else:  # (one array, each part's rows put in place)
            col = out[k] = np.empty(total, dtype=dtype)
            pos = 0
            for p in parts:
                col[pos:pos + p.n] = p.cols[k] if k in p.cols else fill
                pos += p.n
        if all(not isinstance(g, np.ndarray) for g in gones):
            if any(gones):
                absent[k] = np.full(total, True) if all(gones) else np.repeat(np.array(gones, dtype=bool),
                                                                               [p.n for p in parts])
        elif len(parts) == 1:
            if gones[0].any():  # type: ignore[union-attr]
                absent[k] = gones[0]  # type: ignore[assignment]
        else:
            gone = np.concatenate([np.broadcast_to(g, p.n) for g, p in zip(gones, parts, strict=True)])
            if gone.any():
                absent[k] = gone
    names: dict[str, list[str]] = {}
    for name, c in codes.items():  # codes in name order, whatever order the segments met them in
        order = sorted(range(len(c.names)), key=c.names.__getitem__)
        names[name] = [c.names[i] for i in order]
        if order == list(range(len(order))):
            continue  # (met in name order: the codes are the table's)
        remap = np.empty(len(order) + 1, dtype=np.int32)
        remap[-1] = -1
        remap[np.array(order, dtype=np.intp)] = np.arange(len(order), dtype=np.int32)
        coded = {SOURCE_NAMES: lambda k: k.endswith(".source"), FIELD_NAMES: is_field_column}.get(name)
        for k in ([name] if coded is None else [k for k in out if coded(k)]):
            out[k] = remap.take(out[k])
    return ExecutionColumns(out, names, absent)


def _segment_columns(seg: Any, codes: dict[str, _Codes], a: int, b: int) -> _Part:
    if isinstance(seg, list):
        return _object_columns(seg[a:b], codes)
    if isinstance(seg, _Executions):
        return _worklist_columns(seg.batch, codes, a, b)
    if isinstance(seg, CommandBatch):
        return _command_columns(seg, codes, a, b)
    return _object_columns(list(seg.items(a, b)), codes)


_I64, _U64, _I32 = np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.int32)


def _object_columns(execs: list[Execution], codes: dict[str, _Codes]) -> _Part:
    part = _Part(len(execs))
    every = slice(None)

    def ints(name: str, values: list[int | None]) -> None:
        dtype = _dtype_of(name)
        fill = 0 if dtype.kind == "u" else -1
        part.put(name, every, [fill if v is None else v for v in values], dtype,
                 np.array([v is None for v in values], dtype=bool))

    for name in INDEX_COLUMNS:
        ints(name, [getattr(e, name) for e in execs])
    for name, key in RECORD_VA_KEYS.items():
        ints(name, [e.record_va.get(key) for e in execs])
    for name in NAME_COLUMNS:
        got = np.array([codes[name].code(e.trigger.type if name == "trigger" else getattr(e, name))
                        for e in execs], dtype=np.int32)
        part.put(name, every, got, _I32, got < 0)
    for i, e in enumerate(execs):
        members = [k for k, v in e.trigger.fields.items() if isinstance(v, int)]
        part.triggers.setdefault(e.trigger.type, members)
        for m in members:
            part.put(f"{TRIGGER_PREFIX}{m}", i, e.trigger.fields[m], _I64)
        _put_field(part.put, TRIGGER_FIELD, e.trigger.source, codes, i)
        _root_object_row(part, i, e, codes)
        _ia_object_row(part, i, e, codes)
    return part


def _payload(rows: np.ndarray, dtype: np.dtype, field_name: str) -> dict[str, np.ndarray]:
    """The int members of one payload field of records ``rows`` (uint8 matrix) read with the record's dtype."""
    values = rows.view(dtype).reshape(-1)[field_name]
    names = values.dtype.names
    if names is None:
        return {}
    return {n: values[n] for n in names if values[n].dtype.kind in "iu" and values[n].ndim == 1}


def _put_all(part: _Part, m: np.ndarray, got: _Part) -> None:
    """``got`` (the columns of the rows ``m`` selects) into ``part``."""
    for k, v in got.cols.items():
        part.put(k, m, v, v.dtype, got.absent.get(k, False))


class _GroupColumns:
    """The columns of one group of executions (rows ``rows`` of a part): per column a scalar (the same for every
    row) or an array over the group's rows, and whether it is absent (a bool or an array)."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.values: dict[str, Any] = {}
        self.absent: dict[str, Any] = {}

    def put(self, name: str, value: Any, absent: Any = False) -> None:
        self.values[name] = value
        self.absent[name] = absent


def _combine(part: _Part, which: np.ndarray, rows: list[np.ndarray], groups: list[_GroupColumns]) -> None:
    """The groups' columns into ``part``: row r is of group ``which[r]`` (its row of that group's arrays is its
    position in ``rows[which[r]]``).  A column a group lacks is absent in its rows."""
    names: dict[str, None] = {}
    for g in groups:
        names.update(dict.fromkeys(g.values))
    k = len(groups)
    n = len(which)
    for name in names:
        dtype = _dtype_of(name)
        fill = 0 if dtype.kind == "u" else -1
        if k == 1 and name in groups[0].values:  # one group: its values are the column's
            v, a = groups[0].values[name], groups[0].absent[name]
            if np.ndim(v):  # (a view of the trace's records is copied: a table holds arrays of its own)
                part.cols[name] = np.asarray(v, dtype=dtype) if v.flags.owndata else np.array(v, dtype=dtype)
            else:
                part.cols[name] = np.full(n, fill if v is None else v, dtype=dtype)
            part.absent[name] = np.asarray(a, dtype=bool) if np.ndim(a) else bool(a)
            continue
        scalars = np.full(k, fill, dtype=dtype)
        gone = np.ones(k, dtype=bool)
        values: list[tuple[int, Any]] = []
        masks: list[tuple[int, Any]] = []
        for i, g in enumerate(groups):
            if name not in g.values:
                continue
            v, a = g.values[name], g.absent[name]
            if np.ndim(v):
                values.append((i, v))
            else:
                scalars[i] = fill if v is None else v
            if np.ndim(a):
                masks.append((i, a))
                gone[i] = False
            else:
                gone[i] = bool(a)
        # every row is put once: from its group's scalar (a gather, or one value for all) or its group's array
        if len(values) == k:
            col = np.empty(n, dtype=dtype)
        elif (scalars == scalars[0]).all():
            col = np.full(n, scalars[0], dtype=dtype)
        else:
            col = scalars.take(which)
        for i, v in values:
            col[rows[i]] = v
        part.cols[name] = col
        if not masks and (gone == gone[0]).all():
            part.absent[name] = bool(gone[0])
            continue
        absent = gone.take(which)
        for i, a in masks:
            absent[rows[i]] = a
        part.absent[name] = absent


def _worklist_columns(batch: WorkListBatch, codes: dict[str, _Codes], a: int, b: int) -> _Part:
    walk = batch.walk
    total = b - a
    part = _Part(total)
    cols = batch.columns(a, b)
    _, rec = batch.execution_records(a, b)
    gid = batch.gid[rec]
    j = cols["secondary_index"]
    present = np.flatnonzero(np.bincount(gid, minlength=len(walk.groups)))
    slot = np.zeros(len(walk.groups), dtype=np.intp)
    slot[present] = np.arange(len(present))
    which = slot[gid]
    rows = [np.flatnonzero(which == i) for i in range(len(present))] if len(present) > 1 else [np.arange(total)]
    hybrid = j >= 0
    for name in ("index", "list_index", "primary_index", "invocation", "primary_va"):  # the same in every group
        part.cols[name] = cols[name]
        part.absent[name] = False
    for name in ("secondary_index", "secondary_va"):
        part.cols[name] = cols[name]
        part.absent[name] = ~hybrid
    groups: list[_GroupColumns] = []
    for i, g in enumerate(present.tolist()):
        group = walk.groups[g]
        m = rows[i]
        count = len(m)
        gc = _GroupColumns(count)
        groups.append(gc)
        first = batch.group_first(g)
        gc.put("signature_index", walk.sel.signature_index)
        gc.put("command_index", -1, True)
        gc.put("counter", -1, True)
        gc.put("program_table_slot_va", group.table.va)
        gc.put("command_va", 0, True)
        for name in NAME_COLUMNS:
            code = codes[name].code(first.trigger.type if name == "trigger" else getattr(first, name))
            gc.put(name, code, code < 0)
        counter = np.full(count, -1, dtype=np.int64)
        if first.counter is not None:
            counter = j[m] if group.ic_reset else cols["invocation"][m]
            gc.put("counter", counter)
        rm = rec[m]
        primary_va = cols["primary_va"][m]
        records = {"primary": _RecordBytes(group.layout.primary, partial(_gather, batch.primary_rows[g],
                                                                         batch.group_row[rm]), primary_va)}
        system = {"PRIMARY_RECORD_POINTER": primary_va}
        if group.hybrid and group.layout.secondary is not None:
            secondary_va = cols["secondary_va"][m]
            records["secondary"] = _RecordBytes(group.layout.secondary, partial(
                _gather, batch.secondary_rows[g], batch.sec_off[rm] + j[m]), secondary_va)
            system["SECONDARY_RECORD_POINTER"] = secondary_va
            system["SECONDARY_LIST_POINTER"] = batch.secondary_base[g][batch.group_row[rm]]
        src = first.trigger.source
        payload: dict[str, Any] = {}
        hit = records.get(src.kind) if src is not None and src.arg is not None else None
        f = hit.layout.arg_field(src.arg) if hit is not None and src is not None and src.arg is not None else None
        if hit is not None and f is not None:
            payload = _payload(hit.rows, _packed_dtype(hit.layout), f.name)
        elif src is None or src.kind != "secondary":  # static or program-table: the same for the whole group
            payload = {k: v for k, v in first.trigger.fields.items() if isinstance(v, int)}
        part.triggers.setdefault(first.trigger.type, list(payload))
        for k, v in payload.items():
            gc.put(f"{TRIGGER_PREFIX}{k}", v)
        _put_field(gc.put, TRIGGER_FIELD, src, codes)
        _root_columns(gc, first, _field_reader(records), system, counter, codes)
        _ia_columns(gc, first, records, codes)
    _combine(part, which, rows, groups)
    return part


class _RecordBytes:
    """The records the executions of a group read, one per execution: their layout, their bytes (a uint8 matrix,
    gathered when first read) and their VAs."""

    def __init__(self, layout: RecordLayout, rows: Callable[[], np.ndarray], vas: np.ndarray) -> None:
        self.layout, self._rows, self.vas = layout, rows, vas
        self._got: np.ndarray | None = None

    @property
    def rows(self) -> np.ndarray:
        if self._got is None:
            self._got = self._rows()
        return self._got


def _gather(rows: np.ndarray, at: np.ndarray) -> np.ndarray:
    """``rows[at]`` (``at`` ascending), a slice of ``rows`` where ``at`` is a run of consecutive rows."""
    if len(at) and int(at[-1]) - int(at[0]) + 1 == len(at) and (len(at) < 2 or bool((np.diff(at) > 0).all())):
        return rows[int(at[0]):int(at[-1]) + 1]
    return rows[at]


def _command_columns(batch: CommandBatch, codes: dict[str, _Codes], a: int, b: int) -> _Part:
    n = b - a
    part = _Part(n)
    gc = _GroupColumns(n)
    cols = batch.columns(a, b)
    for name, v in cols.items():
        gc.put(name, v)
    first = batch.item(a)
    counter = np.full(n, -1, dtype=np.int64)
    if first.counter is not None:
        counter = cols["command_index"]
        gc.put("counter", counter)
    for name in NAME_COLUMNS:
        code = codes[name].code(first.trigger.type if name == "trigger" else getattr(first, name))
        gc.put(name, code, code < 0)
    src = first.trigger.source
    f = batch.plan.layout.arg_field(src.arg) if src is not None and src.arg is not None else None
    payload = _payload(batch.rows[a:b], _packed_dtype(batch.plan.layout), f.name) if f is not None else {}
    part.triggers.setdefault(first.trigger.type, list(payload))
    for k, v in payload.items():
        gc.put(f"{TRIGGER_PREFIX}{k}", v)
    _put_field(gc.put, TRIGGER_FIELD, src, codes)
    records = {"command": _RecordBytes(batch.plan.layout, lambda: batch.rows[a:b], cols["command_va"])}
    _root_columns(gc, first, _field_reader(records), {}, counter, codes)
    _ia_columns(gc, first, records, codes)
    _combine(part, np.zeros(n, dtype=np.intp), [np.arange(n)], [gc])
    return part


# -- root arguments as columns --------------------------------------------------------------------------------------

#: a root argument's columns are ``root.<G|L><parameter>`` (a VA / handle, uint64) with ``.source`` (its
#: ValueSource kind, an int32 code into ``names["source"]``) and ``.va`` (the byte it was read from), or for a
#: constants slot ``root.<G|L><parameter>[<dword>]`` (int64); absent where nothing set it
ROOT_PREFIX = "root."

#: ``_root_columns``' look-up of a record-sourced value: (values, VAs) of the field ``src`` names, or None
FieldValues = Any


def _root_order(key: str) -> tuple[str, int, int, int]:
    """root.G2, root.G2.source, root.G2.va, root.G2.field, root.G10[0], root.G10[1], root.G10.field ... : by
    binding, parameter, DWORD, then the value before its own columns (:func:`_suffix_rank`; a constants slot's
    ``.field`` after its DWORDs)."""
    tag = key[len(ROOT_PREFIX):]
    head = tag.split(".", 1)[0].split("[", 1)[0]
    dword = int(tag.split("[", 1)[1].rstrip("]")) if "[" in tag else -1
    rank = _suffix_rank(key)
    return head[0], int(head[1:]), 1 << 32 if rank == len(_SUFFIXES) and dword < 0 else dword, rank


def _root_tag(binding: str, parameter: int) -> str:
    return f"{ROOT_PREFIX}{'G' if binding == 'global' else 'L'}{parameter}"


def _root_dtype(key: str) -> np.dtype:
    if key.endswith((".source", FIELD_SUFFIX)):
        return _I32
    if key.endswith("]"):
        return _I64
    return _U64


def _root_object_row(part: _Part, i: int, e: Execution, codes: dict[str, _Codes]) -> None:
    for ra in e.root_arguments:
        if ra.kind == "static_sampler":
            continue
        tag = _root_tag(ra.binding, ra.parameter)
        if ra.kind == "constants":
            for d, v in enumerate(ra.values or []):
                part.put(f"{tag}[{d}]", i, -1 if v is None else v, _I64, v is None)
            _put_field(part.put, f"{tag}{FIELD_SUFFIX}", _slot_members(ra), codes, i)
            continue
        src = ra.sources[0] if ra.sources else None
        part.put(tag, i, ra.value or 0, _U64, ra.value is None)
        part.put(f"{tag}.source", i, codes[SOURCE_NAMES].code(src.kind) if src else -1, _I32, src is None)
        va = src.va if src is not None else None
        part.put(f"{tag}.va", i, va or 0, _U64, va is None)
        _put_field(part.put, f"{tag}{FIELD_SUFFIX}", src, codes, i)


def _put_field(put: Callable[..., None], name: str, src: ValueSource | str | None, codes: dict[str, _Codes],
               *row: int) -> None:
    """Column ``name`` (a ``.field``): the code of the record member ``src`` names (a source, or the members of a
    constants slot), where it names one: a :class:`_Part`'s ``put`` at ``row``, or a :class:`_GroupColumns`'s for
    the whole group."""
    member = src.field if isinstance(src, ValueSource) else src
    if member is not None:
        put(name, *row, codes[FIELD_NAMES].code(member), *((_I32,) if row else ()))


def _slot_members(ra: RootArgumentValue) -> str | None:
    """A constants slot's members (:func:`~d3d12wl.executor.trace.slot_members`): what its ``root.<tag>.field``
    column holds."""
    return slot_members(((s.field, s.first_dword, s.num_dwords) for s in ra.sources), len(ra.values or []))


def _root_columns(part: _GroupColumns, first: Execution, field_values: FieldValues, system: dict[str, np.ndarray],
                  counter: np.ndarray, codes: dict[str, _Codes]) -> None:
    """The root-argument columns of the executions of ``part`` that resolve like ``first`` (one program of one
    batch): values from records come from the batch's columns (``field_values``), system pointers and the
    incrementing constant from ``system`` / ``counter``, everything else is ``first``'s."""

    def varying(src: Any) -> tuple[np.ndarray, np.ndarray | None] | None:
        if src.kind == "system":
            name = src.origin.removeprefix("system: ")
            if name == "incrementing constant":
                return counter, None
            got = system.get(name)
            return None if got is None else (got, None)
        result: tuple[np.ndarray, np.ndarray | None] | None = field_values(src)
        return result

    for ra in first.root_arguments:
        if ra.kind == "static_sampler":
            continue
        tag = _root_tag(ra.binding, ra.parameter)
        if ra.kind == "constants":
            for d, v in enumerate(ra.values or []):
                part.put(f"{tag}[{d}]", -1 if v is None else v, v is None)
            _put_field(part.put, f"{tag}{FIELD_SUFFIX}", _slot_members(ra), codes)
            for s in ra.sources:
                got = varying(s)
                if got is None or s.first_dword is None or s.num_dwords is None:
                    continue
                values = got[0]
                for e in range(s.num_dwords):
                    col = values[:, e] if values.ndim == 2 else values
                    part.put(f"{tag}[{s.first_dword + e}]", col)
            continue
        src = ra.sources[0] if ra.sources else None
        got = varying(src) if src is not None else None
        if got is not None:
            part.put(tag, got[0])
        else:
            part.put(tag, ra.value or 0, ra.value is None)
        part.put(f"{tag}.source", codes[SOURCE_NAMES].code(src.kind) if src else -1, src is None)
        if got is not None and got[1] is not None:
            part.put(f"{tag}.va", got[1])
        else:
            va = src.va if src is not None else None
            part.put(f"{tag}.va", va or 0, va is None)
        _put_field(part.put, f"{tag}{FIELD_SUFFIX}", src, codes)


def _field_reader(layouts: dict[str, _RecordBytes]) -> FieldValues:
    """``field_values`` over records by ValueSource kind."""
    def read(src: Any) -> tuple[np.ndarray, np.ndarray] | None:
        hit = layouts.get(src.kind)
        if hit is None or src.arg is None:
            return None
        layout, vas = hit.layout, hit.vas
        f = layout.arg_field(src.arg)
        if f is None:
            return None
        values = hit.rows.view(_packed_dtype(layout)).reshape(-1)[f.name]
        if values.dtype.names is not None:  # a descriptor handle: its ptr
            if "ptr" not in values.dtype.names:
                return None
            values = values["ptr"]
        return values, vas + np.uint64(f.offset)
    return read


# -- IA bindings as columns ---------------------------------------------------------------------------------------

#: an IA binding's columns: ``ia.vb<slot>.<member>`` / ``ia.ib.<member>`` (uint64) with ``.source`` (its
#: ValueSource kind, a code into ``names["source"]``) and ``.va`` (the byte it was read from); absent where
#: nothing is bound
IA_PREFIX = "ia."


def _ia_tag(slot: int | None) -> str:
    return f"{IA_PREFIX}{'ib' if slot is None else f'vb{slot}'}"


def _ia_slot_order(key: str) -> int:
    """``ia.vb3.*`` -> 3; ``ia.ib.*`` after every vertex buffer slot."""
    tag = key[len(IA_PREFIX):].split(".", 1)[0]
    return int(tag[2:]) if tag.startswith("vb") else 1 << 32


def _ia_object_row(part: _Part, i: int, e: Execution, codes: dict[str, _Codes]) -> None:
    for b in e.ia:
        tag = _ia_tag(b.slot)
        for member, value in (b.fields or {}).items():
            if isinstance(value, int):
                part.put(f"{tag}.{member}", i, value, _U64)
        part.put(f"{tag}.source", i, codes[SOURCE_NAMES].code(b.source.kind), _I32)
        part.put(f"{tag}.va", i, b.source.va or 0, _U64, b.source.va is None)
        _put_field(part.put, f"{tag}{FIELD_SUFFIX}", b.source, codes, i)


def _ia_columns(part: _GroupColumns, first: Execution, records: dict[str, _RecordBytes],
                codes: dict[str, _Codes]) -> None:
    """The IA columns of the executions of ``part`` that resolve like ``first``: record-sourced bindings from the
    records' bytes, the rest (command-list state) ``first``'s."""
    for b in first.ia:
        tag, src = _ia_tag(b.slot), b.source
        hit = records.get(src.kind) if src.arg is not None else None
        f = hit.layout.arg_field(src.arg) if hit is not None and src.arg is not None else None
        if hit is not None and f is not None:
            values = hit.rows.view(_packed_dtype(hit.layout)).reshape(-1)[f.name]
            for member in values.dtype.names or ():
                part.put(f"{tag}.{member}", values[member])
            part.put(f"{tag}.va", hit.vas + np.uint64(f.offset))
        else:
            for member, value in (b.fields or {}).items():
                if isinstance(value, int):
                    part.put(f"{tag}.{member}", value)
            part.put(f"{tag}.va", src.va or 0, src.va is None)
        part.put(f"{tag}.source", codes[SOURCE_NAMES].code(src.kind))
        _put_field(part.put, f"{tag}{FIELD_SUFFIX}", src, codes)


# -- the trace in runs of rows (what the streamed writers walk) -------------------------------------------------


@dataclass
class ExecutionRun:
    """Executions ``start .. start + n - 1`` of a trace, as the streamed writers take them: the objects the
    reference walk made (``objects``), or columns: ``table`` (:func:`execution_columns` of the run), ``group`` (per
    row, an index into ``firsts``) and ``firsts`` (per group, its first execution in the batch the run is of:
    every execution of a group resolves like it, with the values of its own row of ``table``)."""

    start: int
    n: int
    objects: list[Execution] | None = None
    table: ExecutionColumns | None = None
    group: np.ndarray | None = None
    firsts: list[Execution] = field(default_factory=list)
    _segment: Any = None
    _offset: int = 0

    def execution(self, row: int) -> Execution:
        """The object of row ``row`` (made on demand for a run of columns)."""
        if self.objects is not None:
            return self.objects[row]
        seg = self._segment
        return seg.batch.execution(self._offset + row) if isinstance(seg, _Executions) else seg.item(
            self._offset + row)


def execution_runs(executions: Any, start: int = 0, stop: int | None = None, rows: int = CHUNK, *,
                   ahead: int = 0) -> Iterator[ExecutionRun]:
    """Executions ``start .. stop - 1`` of ``executions`` in runs of at most ``rows``, each one segment's slice.
    ``ahead``: the tables of up to that many of a work-list batch's next runs are built on threads of their own
    while the caller reads the runs before them (numpy work over the batch's columns, which lets go of the GIL for
    much of its time; each run's table is its own, the batch only read): the same runs, in the same order."""
    pool = ThreadPoolExecutor(ahead, thread_name_prefix="d3d12wl-runs") if ahead > 0 else None
    pending: deque[Any] = deque()  # runs made, or (future of the table, the run's other members)
    try:
        for item in _runs(executions, start, stop, rows, pool):
            pending.append(item)
            while pending and (len(pending) > ahead or isinstance(pending[0], ExecutionRun)):
                yield _made(pending.popleft())
        while pending:
            yield _made(pending.popleft())
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _made(item: Any) -> ExecutionRun:
    if isinstance(item, ExecutionRun):
        return item
    future, members = item
    return ExecutionRun(table=future.result(), **members)


def _runs(executions: Any, start: int, stop: int | None, rows: int, pool: ThreadPoolExecutor | None) -> Iterator[
        Any]:
    """:func:`execution_runs`' runs, or where ``pool`` builds a work-list run's table, the future of its table and
    the run's other members (its group's first executions made here: the batch caches them)."""
    stop = len(executions) if stop is None else min(stop, len(executions))
    pos = 0
    for seg in executions.segments:
        a, b = max(start - pos, 0), min(stop - pos, len(seg))
        for lo in range(a, b, rows):
            hi = min(b, lo + rows)
            if isinstance(seg, list):
                yield ExecutionRun(pos + lo, hi - lo, objects=seg[lo:hi])
            elif isinstance(seg, (_Executions, CommandBatch)):
                if isinstance(seg, _Executions):
                    batch = seg.batch
                    _, rec = batch.execution_records(lo, hi)
                    gid = batch.gid[rec]
                    present = np.flatnonzero(np.bincount(gid, minlength=len(batch.walk.groups)))
                    slot = np.zeros(len(batch.walk.groups), dtype=np.int64)
                    slot[present] = np.arange(len(present))
                    group = slot[gid]
                    firsts = [batch.group_first(int(g)) for g in present]
                else:
                    group = np.zeros(hi - lo, dtype=np.int64)
                    firsts = [seg.item(lo)]
                members = {"start": pos + lo, "n": hi - lo, "group": group.reshape(-1), "firsts": firsts,
                           "_segment": seg, "_offset": lo}
                if pool is not None and isinstance(seg, _Executions):
                    yield pool.submit(_run_table, seg, lo, hi), members
                else:
                    yield ExecutionRun(table=_run_table(seg, lo, hi), **members)
            else:
                yield ExecutionRun(pos + lo, hi - lo, objects=list(seg.items(lo, hi)))
        pos += len(seg)
        if pos >= stop:
            break


def _run_table(seg: Any, lo: int, hi: int) -> ExecutionColumns:
    codes = _new_codes()
    return _table([_segment_columns(seg, codes, lo, hi)], codes)


def execution_schema(executions: Any) -> tuple[list[str], set[str]]:
    """The columns :func:`execution_columns` gives for all of ``executions``, in order, and those some execution
    has no value in (nullable), without building the table: one execution per group of each batch (every
    execution of a group has the columns of its first, absent where it is absent), every object."""
    codes = _new_codes()
    parts: list[_Part] = []
    for seg in executions.segments:
        if isinstance(seg, _Executions):
            batch = seg.batch
            _, rec = batch.execution_records(0, len(seg))
            _, firsts = np.unique(batch.gid[rec], return_index=True)
            parts += [_segment_columns(seg, codes, int(k), int(k) + 1) for k in firsts]
        elif isinstance(seg, CommandBatch):
            parts.append(_segment_columns(seg, codes, 0, 1))
        else:
            for lo in range(0, len(seg), CHUNK):
                parts.append(_segment_columns(seg, codes, lo, min(len(seg), lo + CHUNK)))
    keys = _key_order(parts)
    nullable = {k for k in keys if any(np.any(p.gone(k)) for p in parts)}
    return keys, nullable
