"""The references table of a DispatchList or ExecuteIndirect call read from the records in columns, without the
executor's trace of executions: what :func:`d3d12wl.executor.references.walk_references` runs first (issue 28's
rate target).

The walk-based table (:func:`~d3d12wl.executor.references.walk_references` with ``engine="walk"``) executes the
call with the columnar engine and takes each chunk's references from the trace's columns: every secondary record's
bytes are gathered, every execution counted and every reference located by a search over the regions.  This module
gives the same table, row for row and code for code, in two passes over each list's records:

1. **decide** (:class:`_Decider`): the call runs through the executor's own call machinery
   (:func:`~d3d12wl.executor.dispatch_list.run_dispatch_list`: SetProgram, the headers, selection, counts,
   continuations, the end-of-call checks, so every call-level finding is the executor's), with a walker that reads
   only the columns that decide what the columnar walk would do with each primary record: ``ProgramTableIndex``
   (each slot checked once by the executor's :meth:`~d3d12wl.executor.slot_groups.ListSlots.group_index`), and for
   hybrid records ``NumSecondaryRecords`` / ``SecondaryRecords`` (alignment, the stride, every secondary record
   inside one region, the limits; lists that lie end to end, the usual layout, are bounded by the first and the
   last).  It leaves in the call's context what the walk leaves (records walked and repeated, the executions'
   count, the first execution of each (class, PCS), made by the executor itself, which the end-of-call
   ``root-parameter-not-set`` check reads), and keeps each chunk's columns for pass 2 up to :data:`CACHE_BYTES`
   (16 bytes a hybrid record); pass 2 reads the chunks beyond them again.
2. **emit** (:class:`_Emitter`): chunk by chunk (the walk's :data:`~d3d12wl.executor.arrays.CHUNK` records, so rows
   come in the walk's order), each record class's reference fields are read by one C pass per run of records
   (:func:`~d3d12wl.records.packers.field_runs`: the primary records, and their secondary records as one run when
   the lists lie end to end; a gather of just the 8-byte fields otherwise), which also looks each value's
   ``target`` up; the rows are listed once through the same :class:`~d3d12wl.executor.references_table.Listed`
   (records at a stride as the run they are).

ExecuteIndirect (:class:`_CommandDecider`): pass 1 runs
:func:`~d3d12wl.executor.execute_indirect.run_execute_indirect` with a command walker that decides each chunk of
commands as the columnar command walk takes it; pass 2 reads each chunk's commands as one run of records.

**Where this path cannot decide, the call takes the walk** (:class:`Undecided`, raised in pass 1 before any row
is handed over, so nothing is emitted twice): any record or command the columnar walk would hand to the reference
walk or report (a slot the executor refuses, a misaligned or unmapped secondary list, records leaving their
region, a limit reached, a broadcast program table too small for its record, a command the executor flags, one
that wraps the address space, commands outside one region), raytracing-class lists (the executor walks them
record by record), primary records at stride 0, lists whose slots select record classes with different reference
plans, and descriptor-table handles read from records while the capture gives the heap ranges (W58 is decided per
record by the walk).  The differential test (``tests/test_references_fast.py``) holds both paths to the same table
on every capture the tests build.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl.capture.file import Capture
from d3d12wl.capture.memory import VA_LIMIT
from d3d12wl.executor import arrays
from d3d12wl.executor.command_walk import CommandBatch
from d3d12wl.executor.dispatch_list import run_dispatch_list
from d3d12wl.executor.execute_indirect import CommandPlan, run_execute_indirect
from d3d12wl.executor.list_run import ListRun
from d3d12wl.executor.list_walk import Chunk, ListWalk
from d3d12wl.executor.record_walk import primary_walk_setup
from d3d12wl.executor.references_table import (
    COLUMNS,
    Collector,
    Columns,
    FieldPlan,
    ReferenceTable,
    constant,
    plan_key,
)
from d3d12wl.executor.slot_groups import SlotGroup, regions_of
from d3d12wl.executor.trace import Limits, ListTrace, Released, Trace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.state import DispatchListCall, ExecuteIndirectCall
from d3d12wl.records.packers import field_runs

__all__ = ["Undecided", "fast_references"]


class Undecided(Exception):
    """The columns cannot decide what the walk decides for this call (the reason): it takes the walk."""


#: bytes of pass 1's chunk columns (``NumSecondaryRecords`` and ``SecondaryRecords``, 16 a hybrid primary record)
#: kept for pass 2, which reads the chunks beyond them again (and checks them again, with the same answers)
CACHE_BYTES = 64 << 20


@dataclass
class _ListPlan:
    """One list the decider walked: its columnar walk (the groups, one per program-table slot) and records, and
    per chunk pass 1's columns where they were kept (None: read again)."""

    trace: ListTrace
    walk: ListWalk
    n: int
    start: int
    stride: int
    limits: Limits
    chunks: list[_ChunkColumns | None] = field(default_factory=list)
    keys: dict[int, tuple[Any, Any]] = field(default_factory=dict)  # per group, its plans' keys (_keys)


@dataclass
class _ChunkColumns:
    """The columns of one chunk of a list's primary records that both passes read, and what pass 1 decided of
    their secondary lists."""

    region: int  # the region holding every record of the chunk whole
    va0: int
    pti: np.ndarray  # ProgramTableIndex (a view of the records)
    slots: np.ndarray  # the slots the records select, ascending ...
    gids: list[int]  # ... and the group of each
    present: list[int]  # the groups the chunk's records select, ascending
    group: SlotGroup  # the first of them (every group of a decided list shares its layout and plans)
    ns: np.ndarray | None  # NumSecondaryRecords (int64), hybrid records
    base: np.ndarray | None  # SecondaryRecords (uint64)
    sreg: int = -1  # the region holding every secondary list whole (-1: lists in several regions)
    end_to_end: bool = False  # the secondary lists lie end to end in record order

    @property
    def nbytes(self) -> int:
        """What keeping the chunk costs."""
        return sum(a.nbytes for a in (self.ns, self.base) if a is not None)

    def gid(self) -> np.ndarray:
        """The group of each record (int64)."""
        return np.asarray(self.gids, dtype=np.int64)[np.searchsorted(self.slots, self.pti)]

    def gid_at(self, p: int) -> int:
        return self.gids[int(np.searchsorted(self.slots, self.pti[p]))]


def _chunk_columns(lp: _ListPlan, i0: int, i1: int) -> _ChunkColumns:
    """Records ``i0 .. i1 - 1`` of a list as columns, the groups made (or found) as the columnar walk makes them:
    per chunk, the slots the records select in ascending order."""
    walk, stride, m = lp.walk, lp.stride, i1 - i0
    va0 = lp.start + i0 * stride
    regions = walk.regions
    if va0 + (m - 1) * stride + 4 > VA_LIMIT:
        raise Undecided("a primary record's address wraps")
    region = regions.region_of(va0, va0 + (m - 1) * stride + 4)
    if region < 0:
        raise Undecided("primary records outside one region")
    pti = regions.strided(region, va0, m, stride, 4).view("<u4").reshape(-1)
    top = int(pti.max())
    slots = np.flatnonzero(np.bincount(pti, minlength=top + 1)) if top < 1 << 16 else np.unique(pti)
    gids = []
    for s in slots.tolist():
        g = walk.group_index(s)
        if g < 0:
            raise Undecided(f"program-table slot {s}: the walk reports its records")
        gids.append(g)
    present = sorted(set(gids))
    group = walk.groups[present[0]]
    for g in present:
        grp = walk.groups[g]
        if grp.first_to_reference:
            raise Undecided(f"program-table slot {grp.pt_index}: a broadcast table too small for its record")
        if grp.handle_checks:
            raise Undecided("descriptor-table handles read from records with the heap ranges given (W58)")
        if grp.layout is not group.layout or _keys(lp, g) != _keys(lp, present[0]):
            raise Undecided("records of several reference plans in one list")
    if regions.region_of(va0, va0 + (m - 1) * stride + group.psize) != region:
        raise Undecided("primary records leave their region")
    ns = base = None
    if group.hybrid:
        rec = regions.strided(region, va0, m, stride, group.psize).view(group.pdtype).reshape(-1)
        ns = rec["NumSecondaryRecords"].astype(np.int64)
        base = rec["SecondaryRecords"].astype(np.uint64)
    return _ChunkColumns(region, va0, pti, slots, gids, present, group, ns, base)


def _keys(lp: _ListPlan, g: int) -> tuple[Any, Any]:
    got = lp.keys.get(g)
    if got is None:
        grp = lp.walk.groups[g]
        sec = grp.layout.secondary
        got = lp.keys[g] = (plan_key(grp.layout.primary, grp.pcs, grp.program),
                            plan_key(sec, grp.pcs, grp.program) if grp.hybrid and sec is not None else None)
    return got


def _secondary_lists(lp: _ListPlan, cc: _ChunkColumns) -> np.ndarray:
    """The executions of the chunk's records as offsets (record i's first is ``off[i]``, their count ``off[-1]``:
    a hybrid record runs its NumSecondaryRecords, another one), the secondary lists checked as the columnar walk
    takes them (:class:`Undecided` where it would not: the stride, the alignment, the limit, every list inside
    one region) and their layout noted in ``cc.sreg`` / ``cc.end_to_end``."""
    m = len(cc.pti)
    if cc.ns is None or cc.base is None:
        return np.arange(m + 1, dtype=np.int64)
    ns, base, group, regions = cc.ns, cc.base, cc.group, lp.walk.regions
    off = np.zeros(m + 1, dtype=np.int64)
    np.cumsum(ns, out=off[1:])
    total = int(off[-1])
    if not total:
        return off
    if not group.sec_ok:
        raise Undecided("an unusable SecondaryRecordByteStride")
    stride, size = group.sstride, max(group.ssize, 1)
    b0, r = int(base[0]), -1
    if 0 < stride and size <= stride and stride % 8 == 0:
        # the usual layout: every record's list where the one before it ends (empty ones too), all of them in
        # one region: the first list's start and the last one's end bound them all
        expect = off[:-1].view(np.uint64) * np.uint64(stride)
        expect += np.uint64(b0)
        if np.array_equal(expect, base):
            end = b0 + (total - 1) * stride + size
            r = regions.region_of(b0, end)
            if r >= 0:
                if b0 % 8:
                    raise Undecided("a misaligned SecondaryRecords")
                if total > lp.limits.max_secondary_records and int(ns.max()) > lp.limits.max_secondary_records:
                    raise Undecided("max_secondary_records")
                cc.end_to_end = True
    if r < 0:  # each list on its own (those of no record left out)
        every = total >= m and bool(ns.all())
        some = None if every else ns > 0
        b = base if some is None else base[some]
        if stride > 0:
            first = off[:-1] if some is None else off[:-1][some]
            expect = first.view(np.uint64) * np.uint64(stride)
            expect += np.uint64(int(b[0]))
            cc.end_to_end = bool(np.array_equal(expect, b))
        if (b % np.uint64(8)).any():
            raise Undecided("a misaligned SecondaryRecords")
        if int(ns.max()) > lp.limits.max_secondary_records:
            raise Undecided("max_secondary_records")
        r = regions.region_of(int(b.min()), int(b.max()) + 1)
        kept = ns if some is None else ns[some]
        need = (kept - 1).astype(np.uint64) * np.uint64(stride) + np.uint64(size)
        if r >= 0:  # every list starts in one region: each must end in it
            bad = bool((need > regions.lasts[r] + np.uint64(1) - b).any())
        else:  # lists in several regions: each inside one
            bad = bool((regions.locate(b, need) < 0).any())
        if bad:
            raise Undecided("a secondary list leaves its region")
    cc.sreg = r
    return off


# --------------------------------------------------------------------------------------------------------------
# Pass 1: what the walk would do, decided in columns
# --------------------------------------------------------------------------------------------------------------


class _Decider:
    """The walker of pass 1 (one call of :func:`run_dispatch_list`); it keeps the chunks' columns for pass 2 up
    to ``cache_bytes``."""

    def __init__(self, cache_bytes: int) -> None:
        self.lists: list[_ListPlan] = []
        self.cache_left = cache_bytes

    def __call__(self, run: ListRun) -> None:
        sel = run.selection
        if sel is None or sel.executable_class is ExecutableClass.RAYTRACING:
            raise Undecided("a raytracing-class list (the executor walks it record by record)")
        setup = primary_walk_setup(run)
        if setup is None:
            return
        n, start, stride = setup
        ctx = run.ctx
        if n > ctx.limits.max_primary_records:
            raise Undecided("max_primary_records")
        if stride == 0 and n > 1:
            raise Undecided("primary records at stride 0")
        lp = _ListPlan(run.trace, ListWalk(run, n, start, stride), n, start, stride, ctx.limits)
        self.lists.append(lp)
        chunk = arrays.CHUNK
        for i0 in range(0, n, chunk):
            self._chunk(run, lp, i0, min(n, i0 + chunk))

    def _chunk(self, run: ListRun, lp: _ListPlan, i0: int, i1: int) -> None:
        cc = _chunk_columns(lp, i0, i1)
        off = _secondary_lists(lp, cc)
        ctx, limits, m = run.ctx, run.ctx.limits, i1 - i0
        total = int(off[-1])
        records = m + total if cc.ns is not None else m
        repeats = 0
        if cc.ns is not None and cc.group.sstride == 0 and total:
            repeats = int(np.maximum(cc.ns - 1, 0).sum())
        executions = ctx.trace.executions
        if (ctx.records_walked + records > limits.max_records
                or len(executions) + total > limits.max_executions
                or ctx.records_repeated + repeats > limits.max_repeated_records):
            raise Undecided("a limit")
        self._account(run, lp, cc, i0, off)
        ctx.records_walked += records
        ctx.records_repeated += repeats
        run.trace.primary_records.add_batch(Released(m))
        keep = cc.nbytes <= self.cache_left
        if keep:
            self.cache_left -= cc.nbytes
        lp.chunks.append(cc if keep else None)

    def _account(self, run: ListRun, lp: _ListPlan, cc: _ChunkColumns, i0: int, off: np.ndarray) -> None:
        """The chunk's executions (record i's at ``off[i]``) as the walk counts them: numbered on from the call's
        count, per (class, PCS) the count and, for a pair not run before, its first execution made by the
        columnar walk's own batch."""
        ctx, walk = run.ctx, lp.walk
        cls = walk.sel.executable_class.value
        execs = cc.ns if cc.ns is not None else np.diff(off)
        per_pcs: dict[str, list[int]] = {}  # PCS -> [first record that runs, executions]
        names = {walk.groups[g].pcs.name for g in cc.present}
        if len(names) == 1:  # one PCS (its programs in several slots): no per-group counts
            if off[-1]:
                per_pcs[names.pop()] = [0 if execs[0] else int(np.argmax(execs > 0)), int(off[-1])]
        else:
            ran = execs > 0
            gid = cc.gid()
            counts = np.bincount(gid[ran], weights=execs[ran], minlength=len(walk.groups)).astype(np.int64)
            for g in cc.present:
                name = walk.groups[g].pcs.name
                hits = np.flatnonzero(ran & (gid == g))
                if not len(hits):
                    continue
                hit = per_pcs.setdefault(name, [int(hits[0]), 0])
                hit[0] = min(hit[0], int(hits[0]))
                hit[1] += int(counts[g])
        counted = 0
        for name, (p, count) in sorted(per_pcs.items(), key=lambda kv: kv[1][0]):
            key = (cls, name)
            seen = ctx.executed.get(key)
            if seen is not None:
                seen[1] += count
                continue
            self._skip(run, int(off[p]) - counted)
            va = cc.va0 + p * lp.stride  # record p alone, as a chunk of the columnar walk
            g = cc.gid_at(p)
            chunk = Chunk(walk, i0 + p, va, lp.stride, np.array([va], dtype=np.uint64), np.array([g], np.int64))
            chunk.load_group(g)
            chunk.batch(0, 1, execs[p:p + 1], records=False)  # notes the pair with its first execution
            ctx.executed[key][1] += count - int(execs[p])
            counted = int(off[p + 1])
        self._skip(run, int(off[-1]) - counted)

    @staticmethod
    def _skip(run: ListRun, n: int) -> None:
        if n > 0:
            run.ctx.trace.executions.add_batch(Released(n))
            run.counter += n


# --------------------------------------------------------------------------------------------------------------
# Pass 2: the rows
# --------------------------------------------------------------------------------------------------------------


class _Emitter:
    """Rows of the decided lists, chunk by chunk, in the walk's order, through the collector's listing."""

    def __init__(self, collector: Collector) -> None:
        self.c = collector

    def list_rows(self, lp: _ListPlan) -> None:
        chunk = arrays.CHUNK
        for k, i0 in enumerate(range(0, lp.n, chunk)):
            self.c.header(lp.trace, program_inputs=True)
            cc = lp.chunks[k]
            lp.chunks[k] = None  # (its memory goes with its rows)
            if cc is None:  # not kept: read and laid out again (pass 1 decided it: the same answers)
                cc = _chunk_columns(lp, i0, min(lp.n, i0 + chunk))
                _secondary_lists(lp, cc)
            self._chunk(lp, cc, i0, min(lp.n, i0 + chunk))

    def _chunk(self, lp: _ListPlan, cc: _ChunkColumns, i0: int, i1: int) -> None:
        c, lt = self.c, lp.trace
        walk, m = lp.walk, i1 - i0
        pcs_seen = c.pcses.setdefault(lt.index, set())
        pplan = splan = None
        for g in cc.present:  # as the collector's _batch: the slot's rows, then the plans
            group = walk.groups[g]
            pcs_seen.add(id(group.pcs))
            got = c.slot(lt, group.pt_index, group.table.va, group.program, True)
            if got is not None:
                c.emit(got)
            sec = group.layout.secondary
            splan = c.plan(sec, group.pcs, group.program) if group.hybrid and sec is not None else None
            pplan = c.plan(group.layout.primary, group.pcs, group.program)
        assert pplan is not None
        region, stride = cc.region, lp.stride
        self._emit(pplan, region, np.array([cc.va0], dtype=np.uint64), np.array([m], dtype=np.int64), stride,
                   {"list_index": lt.index}, "primary_index", i0, None, ascending=stride > 0)
        if splan is None or cc.ns is None or cc.base is None:
            return
        ns, base, sstride = cc.ns, cc.base, cc.group.sstride
        if cc.sreg < 0:  # no secondary records, or lists in several regions
            if ns.any():
                self._scattered(splan, lt, i0, ns, base, sstride)
            return
        self._emit(splan, cc.sreg, base, ns, sstride, {"list_index": lt.index}, "secondary_index", 0,
                   ("primary_index", i0), ascending=cc.end_to_end)

    def _scattered(self, plan: FieldPlan, lt: ListTrace, i0: int, ns: np.ndarray, base: np.ndarray,
                   stride: int) -> None:
        """Secondary lists in several regions: the collector's own rows (each record located, its fields
        gathered from its region)."""
        c = self.c
        total = int(ns.sum())
        j = np.arange(total, dtype=np.int64) - np.repeat(np.cumsum(ns) - ns, ns)
        vas = np.repeat(base, ns) + j.astype(np.uint64) * np.uint64(stride)
        where = {"list_index": lt.index, "primary_index": np.repeat(np.arange(i0, i0 + len(ns), dtype=np.int64), ns),
                 "secondary_index": j}
        if plan.identifiers:
            records = c.gather(vas, plan.size)
            assert records is not None
            c.emit(c.rows_of(plan, records, vas, where))
            return
        ridx = c.regions.locate(vas, max(plan.size, 1))
        values = np.empty((total, len(plan.offsets)), dtype=np.uint64)
        for k, off in enumerate(plan.offsets.tolist()):
            values[:, k] = c.regions.gather(ridx, vas + np.uint64(off), 8).view("<u8")[:, 0]
        c.emit(c.rows_of(plan, None, vas, where, values))

    def _emit(self, plan: FieldPlan, region: int, bases: np.ndarray, counts: np.ndarray, stride: int,
              where: dict[str, Any], index: str, first_index: int, owner: tuple[str, int] | None,
              ascending: bool) -> None:
        """The rows of runs of records of one plan (run k: ``counts[k]`` records at ``bases[k] + j * stride``, all
        in ``region``), as the collector's :meth:`~d3d12wl.executor.references_table.Collector.rows_of` makes them,
        listed once: the ``index`` column is ``first_index + j``, the ``owner`` column (name, first) the run's.
        ``ascending``: the runs lie end to end in ascending order."""
        c = self.c
        f = len(plan.offsets)
        if plan.identifiers:  # program identifiers (32 bytes each) in the records: the collector's rows
            j = np.arange(int(counts.sum()), dtype=np.int64) - np.repeat(np.cumsum(counts) - counts, counts)
            k = np.repeat(np.arange(len(counts), dtype=np.int64), counts)
            vas = np.repeat(bases, counts) + j.astype(np.uint64) * np.uint64(stride)
            records = c.gather(vas, plan.size)
            assert records is not None
            cols_where = {**where, index: first_index + j}
            if owner is not None:
                cols_where[owner[0]] = owner[1] + k
            c.emit(c.rows_of(plan, records, vas, cols_where, None))
            return
        if not f:
            return
        # records at a stride, their fields in order and apart: ascending, no two overlap, listed as a run
        offs = plan.offsets.tolist()
        disjoint = ascending and (f == 1 or bool(np.all(np.diff(plan.offsets) >= 8))) and (
            stride >= offs[-1] + 8 - offs[0] or int(counts.sum()) < 2)
        listed_u32 = c.listed.dtypes[region] == np.dtype(np.uint32)
        fr = field_runs(c.regions.bytes[region], int(c.regions.bases[region]), bases, counts, stride,
                        offs, first_owner=None if owner is None else owner[1],
                        first_index=first_index, rel32=listed_u32 and not disjoint,
                        ranges=c.target_ranges if c.targets else None,
                        tables=c.target_tables(plan) if c.targets else None)
        total = len(fr.va)
        if not total:
            return
        n = total // f
        if f == 1:
            kind, heap = constant(plan.kinds[0], n, np.int32), constant(plan.heaps[0], n, np.int32)
            field = constant(plan.fields[0], n, np.int32)
        else:
            kind, heap, field = np.tile(plan.kinds, n), np.tile(plan.heaps, n), np.tile(plan.fields, n)
        if fr.target is not None and fr.target_offset is not None:
            target, target_offset = fr.target, fr.target_offset
        else:
            target, target_offset = constant(-1, total, np.int32), constant(0, total, np.uint64)
        cols: Columns = {"region": constant(region, total, np.int32), "offset": fr.rel, "va": fr.va, "kind": kind,
                         "value": fr.value, "identifier": constant(-1, total, np.int32),
                         "record_id": constant(plan.record, total, np.int32), "field": field,
                         index: fr.index}
        if owner is not None:
            assert fr.owner is not None
            cols[owner[0]] = fr.owner
        for name in ("list_index", "primary_index", "secondary_index", "slot_index", "command_index"):
            if name not in cols:
                cols[name] = constant(where.get(name, -1), total, np.int64)
        cols.update(heap=heap, target=target, target_offset=target_offset)
        cols = {name: cols[name] for name in COLUMNS}
        if not (disjoint and c.listed.fresh_strided(region, int(fr.rel[0]) - offs[0], n, stride, tuple(offs),
                                                    tuple(plan.codes.tolist()))):
            codes = np.full(n, plan.codes[0], dtype=np.int8) if f == 1 else np.tile(plan.codes, n)
            keep = c.listed.fresh(region, fr.rel, codes, disjoint=disjoint, stored=fr.rel32)
            if not keep.all():
                cols = {name: v[keep] for name, v in cols.items()}
        c.rows += len(cols["va"])
        c.sink(ReferenceTable(cols, c.names))


# --------------------------------------------------------------------------------------------------------------


class _CommandDecider:
    """The command walker of pass 1 for ExecuteIndirect (one call of :func:`run_execute_indirect`): what the
    columnar command walk (:func:`~d3d12wl.executor.command_walk.walk_commands_columnar`) does with each chunk of
    commands, decided in columns: every chunk whole in one region and within the limits, no command it hands to
    the reference walk (a VA wrap, an unmapped command, one :meth:`~d3d12wl.executor.execute_indirect.CommandPlan
    .flagged` reports).  The executions are counted as its batches count them; the first of the call is its own."""

    def __init__(self) -> None:
        self.plan: CommandPlan | None = None
        self.chunks: list[tuple[int, int, int]] = []  # (first command, end, region)

    def __call__(self, plan: CommandPlan) -> None:
        self.plan = plan
        ctx, trace, limits = plan.ctx, plan.ctx.trace, plan.ctx.limits
        regions = regions_of(ctx)
        base, stride, size = plan.call.ArgumentBuffer, plan.stride, plan.layout.size
        first_wrap = 0 if base + size > VA_LIMIT else (VA_LIMIT - size - base) // stride + 1
        key = (plan.cls.value if plan.cls else "", None)
        for k in range(0, plan.count, arrays.CHUNK):
            end = min(plan.count, k + arrays.CHUNK)
            if end > first_wrap:
                raise Undecided("a command's address wraps")
            n = end - k
            if ctx.records_walked + n > limits.max_records or len(trace.executions) + n > limits.max_executions:
                raise Undecided("a limit")
            va0 = base + k * stride
            region = regions.region_of(va0, va0 + (n - 1) * stride + size)
            if region < 0:
                raise Undecided("commands outside one region")
            rows = regions.strided(region, va0, n, stride, size)
            if len(plan.flagged(rows)):
                raise Undecided("a command the executor reports (the reference walk runs it)")
            first = CommandBatch(plan, len(trace.executions), k, rows[:1].copy())
            trace.executions.add_batch(Released(n))
            ctx.records_walked += n
            ctx.note_executions(key, n, lambda: first.item(0))
            self.chunks.append((k, end, region))


def fast_references(capture: Capture, collector: Collector, limits: Limits | None) -> Trace:
    """The call's references into ``collector`` (the state rows, then the lists' or the commands'), or
    :class:`Undecided` before any row is handed over."""
    call = capture.call
    if not isinstance(call, DispatchListCall):
        return _command_references(capture, call, collector, limits)
    decider = _Decider(CACHE_BYTES)
    trace = run_dispatch_list(capture.memory, capture.device, capture.objects, capture.state, call, limits,
                              walker=decider)
    if decider.lists:  # the layouts pass 1 made (the groups' own: the plans are keyed by layout)
        collector.layouts = decider.lists[0].walk.ctx.layouts
    collector.state_rows()
    emitter = _Emitter(collector)
    for lp in decider.lists:
        emitter.list_rows(lp)
    trace.executions.release()
    return trace


def _command_references(capture: Capture, call: ExecuteIndirectCall, collector: Collector,
                        limits: Limits | None) -> Trace:
    """ExecuteIndirect's: pass 1 (:class:`_CommandDecider`), then each chunk's commands as one run of records."""
    decider = _CommandDecider()
    trace = run_execute_indirect(capture.memory, capture.device, capture.objects, capture.state, call, limits,
                                 walker=decider)
    plan = decider.plan
    if plan is not None:
        collector.layouts = plan.ctx.layouts
    collector.state_rows()
    if plan is not None:
        emitter = _Emitter(collector)
        cplan = collector.plan(plan.layout, None, None)
        base = plan.call.ArgumentBuffer
        for k, end, region in decider.chunks:
            emitter._emit(cplan, region, np.array([base + k * plan.stride], dtype=np.uint64),
                          np.array([end - k], dtype=np.int64), plan.stride, {}, "command_index", k, None,
                          ascending=True)
    trace.executions.release()
    return trace
