"""The columnar walk of one dispatch list: the same trace as the reference walk, in columns.

Per list, primary records are read in chunks of :data:`~d3d12wl.executor.arrays.CHUNK` records as numpy gathers
over ``GpuMemory``'s regions, with no Python object per record:

1. the ProgramTableIndex column (offset 0 of every record) is mapped through its unique values to the program-table
   slot, identifier, program and PCS (a :class:`~d3d12wl.executor.slot_groups.SlotGroup`, one per slot, checked
   once per list exactly as the reference checks one record: index < SlotCount, slot address, identifier, program,
   PCS in the signature, layouts, strides);
2. each group's records are copied with the group's structured dtype (:func:`d3d12wl.records.dtypes.record_dtype`);
3. hybrid records' secondary lists are checked (alignment, stride, NumSecondaryRecords limit, VA wrap, mapping) and
   expanded by index arithmetic (``repeat`` / ``cumsum``) into one gather of secondary-record bytes per group;
4. the limits (records, executions) are applied to the cumulative counts.

A mask per check marks every record the reference would report or treat specially; those records, and any chunk
that wraps the VA space, go through the reference per-record walk (:func:`~d3d12wl.executor.record_walk.
walk_primary_record`), so findings and their wording are the reference's; the records of a flagged slot whose
treatment the walk has learned take it in columns (:mod:`d3d12wl.executor.learned_skips`).  Records no mask flags
become a :class:`~d3d12wl.executor.worklist_batch.WorkListBatch`.

Raytracing-class lists always take the reference walk.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import numpy as np

from d3d12wl.capture.memory import VA_LIMIT
from d3d12wl.executor import arrays
from d3d12wl.executor.arrays import expand
from d3d12wl.executor.command_walk import ChunkDone
from d3d12wl.executor.context import Loc
from d3d12wl.executor.learned_skips import SkipLearner
from d3d12wl.executor.list_run import ListRun
from d3d12wl.executor.record_walk import (
    primary_walk_setup,
    walk_primary_record,
    walk_primary_records,
    walk_secondary_records,
)
from d3d12wl.executor.slot_groups import ListSlots, SlotGroup
from d3d12wl.executor.worklist_batch import WorkListBatch
from d3d12wl.model.argtypes import ExecutableClass

__all__ = ["Chunk", "ChunkGroup", "ListWalk", "walk_primary_records_columnar"]


class ListWalk(ListSlots):
    """The columnar walk of one list: its slots' groups (:class:`~d3d12wl.executor.slot_groups.ListSlots`), its
    chunks, and the skips learned for its flagged slots."""

    def __init__(self, run: ListRun, n: int, start: int, stride: int) -> None:
        super().__init__(run, n, start, stride)
        self.skips = SkipLearner(run, self.reference)

    def walk(self, on_chunk: ChunkDone | None = None) -> None:
        i, n, limits = 0, self.n, self.ctx.limits
        while i < n:
            if i >= limits.max_primary_records:
                walk_primary_record(self.run, i, n, self.start, self.stride)  # raises the limit
                return
            end = min(n, i + arrays.CHUNK, limits.max_primary_records)
            self._copied: list[tuple[int, int]] = []
            more = self._chunk(i, end)
            if on_chunk is not None:
                on_chunk()
            for va, size in self._copied:  # the chunk's records are copies now: the input's pages may go
                self.ctx.memory.release(va, size)
            if not more:
                return
            i = end

    def reference(self, i: int) -> bool:
        """Primary record ``i`` by the reference walk; False when the list's walk ended."""
        return walk_primary_record(self.run, i, self.n, self.start, self.stride)

    def _chunk(self, i0: int, i1: int) -> bool:
        """Primary records ``i0 .. i1 - 1``; False when the list's walk ended."""
        start, stride = self.start, self.stride
        if start + (i1 - 1) * stride + 4 > VA_LIMIT:  # a record address wraps: the reference reports where
            return all(self.reference(i) for i in range(i0, i1))
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
        chunk = Chunk(self, i0, va0, stride, vas, gid)
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
                    self.skips.learned(int(pt_of[end])):
                end += 1
            if end > f:
                done = self.skips.skipped_run(i0, f, end, vas, pt_of)
                k, pos = k + done, f + done
                if done == end - f:
                    continue
                f = pos  # the record limit was reached: the reference reports it at this record
            if stride and slot_bad[f]:
                ok = self.skips.observed(i0 + f, int(pt_of[f]), int(vas[f]))
            else:
                ok = self.reference(i0 + f)
            if not ok:
                return False
            k, pos = k + 1, f + 1


@dataclass
class ChunkGroup:
    """One group's records in one chunk: positions, copied bytes and (hybrid) their secondary lists."""

    members: np.ndarray  # positions in the chunk
    rows: np.ndarray  # (len(members), psize) uint8
    ns: np.ndarray | None = None  # NumSecondaryRecords (int64)
    base: np.ndarray | None = None  # SecondaryRecords (uint64)
    sreg: np.ndarray | None = None  # the region holding each record's first secondary record
    fit: np.ndarray | None = None  # leading secondary records readable whole from that region


class Chunk:
    """One chunk of a list's primary records in columns: each record's group, the groups' copied bytes
    (:class:`ChunkGroup`), the runs of records no check flags made into batches."""

    def __init__(self, walk: ListWalk, i0: int, va0: int, stride: int, vas: np.ndarray, gid: np.ndarray) -> None:
        self.walk = walk
        self.i0 = i0
        self.va0 = va0
        self.stride = stride
        self.vas = vas
        self.gid = gid
        self.row = np.zeros(len(vas), dtype=np.int64)  # row of each record in its group's ChunkGroup
        self.parts: dict[int, ChunkGroup] = {}

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
        part = ChunkGroup(members, rows)
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

    def _secondary_handle_flags(self, group: SlotGroup, ns: np.ndarray, base: np.ndarray, sreg: np.ndarray,
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

    def _secondary_flags(self, group: SlotGroup, ns: np.ndarray, base: np.ndarray) -> tuple[np.ndarray, np.ndarray,
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
                self.batch(pos, pos + n_ok, execs)
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
            return walk.reference(i)
        r = int(self.row[pos])
        q = min(int(part.ns[r]), int(part.fit[r]), limits.max_secondary_records,
                limits.max_records - ctx.records_walked - 1, limits.max_executions - len(ctx.trace.executions))
        if group.sstride == 0:
            q = min(q, limits.max_repeated_records - ctx.records_repeated + 1)
        if q <= 0:
            return walk.reference(i)
        batch = self.batch(pos, pos + 1, np.array([q], dtype=np.int64), records=False)
        ctx.records_walked += 1 + q
        if group.sstride == 0:
            ctx.records_repeated += q - 1
        prt = batch.partial_record()
        run.trace.primary_records.append(prt)
        rctx = batch.record_context(0, ctx)
        walk_secondary_records(run, rctx, prt, group.layout, Loc(list_index=run.index, primary_index=i), start=q)
        return True

    def _secondaries(self, group: SlotGroup, ns: np.ndarray, base: np.ndarray, sreg: np.ndarray,
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
            rows = expand(off[:-1][m], ns[m])
            first = (base[m] - regions.bases[reg]).astype(np.int64) - off[:-1][m] * stride
            offsets = np.repeat(first, ns[m]) + rows * stride
            out[rows] = regions.gather_offsets(int(reg), offsets.astype(np.intp), group.ssize)
        return out

    def batch(self, a: int, b: int, execs: np.ndarray, *, records: bool = True) -> WorkListBatch:
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


def walk_primary_records_columnar(run: ListRun, on_chunk: ChunkDone | None = None) -> None:
    """Step 10 of one list, in columns (the reference walk for raytracing-class lists).  ``on_chunk`` is called
    after each chunk of primary records has been added to the trace (a consumer that streams them reads and
    releases them there)."""
    sel = run.selection
    if sel is None or sel.executable_class is ExecutableClass.RAYTRACING:
        walk_primary_records(run)
        if on_chunk is not None:
            on_chunk()
        return
    setup = primary_walk_setup(run)
    if setup is None:
        return
    ListWalk(run, *setup).walk(on_chunk)
