"""The program-table slots of one list, each checked once as the reference checks one record (index < SlotCount,
slot address, identifier, program, PCS in the signature, layouts, strides): what every record of a slot shares in
the columnar walk (:class:`SlotGroup`), and the per-list table of them (:class:`ListSlots`).  A slot the
reference would report is no group: its records take the reference walk (or a learned skip,
:mod:`d3d12wl.executor.learned_skips`).

Also here, what the columnar engine's parts share: GPU memory as arrays (:func:`regions_of`) and the context the
on-demand objects are resolved in (:func:`scratch_context`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from d3d12wl.capture.memory import VA_LIMIT
from d3d12wl.errors import LayoutError, MemoryAccessError
from d3d12wl.executor.arrays import RegionArrays, packed_dtype
from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.decode import ctype_size, decode_record
from d3d12wl.executor.list_run import ListRun, SignatureSelection
from d3d12wl.executor.record_walk import ic_resets_per_secondary_list, slot_index_in_range
from d3d12wl.executor.resolve import RecordData, WorkListRecordContext
from d3d12wl.executor.trace import ProgramTableSlotTrace, Trace
from d3d12wl.model.objects import Program, ProgramCommandSignature, RecordKind
from d3d12wl.model.state import DescriptorHeap
from d3d12wl.records.layout import PROGRAM_IDENTIFIER, PCSLayout

__all__ = ["HandleCheck", "ListSlots", "SlotGroup", "regions_of", "scratch_context"]


def regions_of(ctx: ExecContext) -> RegionArrays:
    """The call's GPU memory as arrays (made once per memory)."""
    regions: RegionArrays = ctx.memo(ctx.memory, "columnar-regions", RegionArrays)
    return regions


def scratch_context(ctx: ExecContext) -> ExecContext:
    """A context whose findings go nowhere: what the on-demand objects are resolved in (the columns hold only
    records that the reference resolves without a finding)."""
    scratch: ExecContext = ctx.memo(ctx, "columnar-scratch", lambda c: ExecContext(
        c.memory, c.device, c.objects, c.state, c.limits, Trace(c.trace.call)))
    return scratch


@dataclass
class SlotGroup:
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


class ListSlots:
    """The program-table slots one list's records select, as groups (:class:`SlotGroup`), each made the first time
    a record selects its slot: what the columnar walk of the list (:class:`~d3d12wl.executor.list_walk.ListWalk`)
    and its batches read."""

    def __init__(self, run: ListRun, n: int, start: int, stride: int) -> None:
        self.run = run
        self.ctx = run.ctx
        self.n = n
        self.start = start
        self.stride = stride
        sel = run.selection
        assert sel is not None
        self.sel: SignatureSelection = sel
        self.regions = regions_of(run.ctx)
        self.groups: list[SlotGroup] = []
        self._group_of: dict[int, int] = {}  # ProgramTableIndex -> index in groups, -1 flagged

    def group_index(self, pt_index: int) -> int:
        """The group of slot ``pt_index`` (made and checked the first time), or -1: the reference reports the
        slot's records."""
        got = self._group_of.get(pt_index)
        if got is None:
            group = self._make_group(pt_index)
            got = -1 if group is None else len(self.groups)
            if group is not None:
                self.groups.append(group)
            self._group_of[pt_index] = got
        return got

    def _make_group(self, pt_index: int) -> SlotGroup | None:
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
        group = SlotGroup(pt_index, program, pcs, layout, table, slot_trace, hybrid, layout.primary.size,
                       packed_dtype(layout.primary), first_to_reference=too_small)
        if hybrid:
            sec = layout.secondary
            assert sec is not None
            group.ssize = sec.size
            group.sstride = pcs.SecondaryRecordByteStride
            group.sec_ok = not sec.stride_problems(group.sstride)
            group.ic_reset = bool(ctx.memo(pcs, "ic-reset", ic_resets_per_secondary_list))
        if not self._resolves_quietly(group):
            return None
        return group

    def _resolves_quietly(self, group: SlotGroup) -> bool:
        """Whether the reference resolves this group's executions without a finding (a descriptor table with no
        heap of its type bound is one per record: such records take the reference walk).  The descriptor-table
        handles its executions read from records are checked per record in columns
        (:attr:`SlotGroup.handle_checks`), so the probe only lists them."""
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
