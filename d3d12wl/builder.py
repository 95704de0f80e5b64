"""Lay out a whole GPU-resident work list in one buffer at a given base VA.

One buffer holds the dispatch list input(s), the program table and, per dispatch list, its primary list and its
secondary list, each part starting at an 8-byte-aligned VA as the spec requires:

* ``D3D12_DISPATCH_LIST_INPUT`` / ``_INPUT1``: 8-byte aligned (spec "DispatchList", "DispatchList1");
* ``ProgramInputs.StartAddress`` and ``StrideInBytes``: 8-byte aligned (spec ``D3D12_DISPATCH_LIST_INPUT``);
* ``SecondaryRecords``: 8-byte aligned (spec ``D3D12_WORK_LIST_PRIMARY_RECORD``); secondary records of one list
  are contiguous, so with a stride that is a multiple of 8 every primary record's sub-list start stays aligned;
* program table ``Table.StartAddress``: 8-byte aligned, stride 0 or a multiple of 8 (spec
  ``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING``).

Tier 2 lists are chained in the order given through ``NextDispatchList`` (spec "Dispatch List Continuations"),
with ``_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION`` set on every list but the last.  Every record is packed by the
vectorized packers of :mod:`d3d12wl.packers`; the builder only computes addresses (``SecondaryRecords`` from a
prefix sum of the per-primary-record counts) and places the parts.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from d3d12wl import abi
from d3d12wl.errors import PackError
from d3d12wl.layout import PCSLayout, RecordLayout, pcs_layout, program_table_layout, round_up
from d3d12wl.memory import GpuMemory
from d3d12wl.model import ExecutableClass, ObjectSet, Program, ProgramCommandSignature, WorkListSignature
from d3d12wl.model import WorkListSignatureArray as SignatureArray
from d3d12wl.packers import (
    VA_ALIGN,
    Columns,
    RecordData,
    _flatten,
    count_records,
    pack_dispatch_list_inputs,
    pack_primary_records,
    pack_program_table,
    pack_secondary_records,
    resolve_stride,
)
from d3d12wl.packers import _layout_of as _record_layout

__all__ = ["DispatchListSpec", "ProgramTableSpec", "Part", "BuiltWorkList", "build_work_list"]


@dataclass
class DispatchListSpec:
    """One dispatch list: its program command signature, its primary records and (hybrid) its secondary records.

    ``primary``: the primary-record columns.  For a hybrid signature with ``secondary`` given, leave out
    ``NumSecondaryRecords`` and ``SecondaryRecords``: the builder writes them from ``secondary_counts`` (the number of
    secondary records of each primary record, in order; ``secondary`` holds them all, concatenated).  With the
    broadcast secondary stride (``SecondaryRecordByteStride == 0``) ``secondary`` holds one record per primary
    record and ``secondary_counts`` the number of executions each drives.
    """

    pcs: ProgramCommandSignature | PCSLayout
    primary: RecordData
    secondary: RecordData | None = None
    secondary_counts: ArrayLike | None = None
    primary_stride: int | None = None
    flags: int = 0
    signature_index: int = 0  # Tier 2: D3D12_DISPATCH_LIST_INPUT1::SignatureIndex

    @property
    def layout(self) -> PCSLayout:
        return self.pcs if isinstance(self.pcs, PCSLayout) else pcs_layout(self.pcs)


@dataclass
class ProgramTableSpec:
    """The program table: a program-table record layout (or the PCS / program it comes from), one row per slot
    (``ProgramIdentifier`` plus the tail columns), the slot stride (default: the minimum; 0 = broadcast) and the
    ``SlotCount`` to bind (default: the number of rows).  With a non-zero stride the table holds
    ``max(rows, SlotCount) * stride`` bytes, the slots past the rows zero."""

    layout: RecordLayout | PCSLayout | Program
    slots: RecordData
    stride: int | None = None
    slot_count: int | None = None


@dataclass(frozen=True)
class Part:
    """One part of the buffer: what it is, its VA, its size in bytes and its stride (0 for a single struct)."""

    name: str
    va: int
    size: int
    stride: int = 0
    count: int = 0


@dataclass(frozen=True)
class BuiltWorkList:
    """The bytes of a work list at ``base_va`` and where each part is."""

    base_va: int
    data: np.ndarray
    tier: int
    parts: tuple[Part, ...]
    dispatch_inputs: tuple[int, ...]
    primary_lists: tuple[Part, ...]
    secondary_lists: tuple[Part | None, ...]
    program_table: Part | None
    slot_count: int
    graphics_lists: tuple[bool, ...] = field(default=())

    @property
    def dispatch_input(self) -> int:
        """The VA to pass to DispatchList / DispatchList1 (the first list of a chain)."""
        return self.dispatch_inputs[0]

    @property
    def size(self) -> int:
        return int(self.data.nbytes)

    def bytes(self) -> bytes:
        return self.data.tobytes()

    def memory(self, name: str = "work_list") -> GpuMemory:
        """A :class:`GpuMemory` with the buffer mapped at ``base_va`` (the same bytes, not a copy)."""
        memory = GpuMemory()
        memory.map(self.base_va, self.data, name=name)
        return memory

    def program_table_binding(self) -> Any:
        """``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING`` for the table (a :class:`d3d12wl.state.ProgramTableBinding`)."""
        from d3d12wl.state import GpuVirtualAddressRangeAndStride, ProgramTableBinding

        t = self.program_table
        if t is None:
            return ProgramTableBinding()
        return ProgramTableBinding(GpuVirtualAddressRangeAndStride(t.va, t.size, t.stride), self.slot_count)

    @property
    def max_graphics_primary_lists(self) -> int:
        """DispatchList1's MaxGraphicsPrimaryLists for this chain: its graphics-class lists, empty ones included
        (spec "MaxGraphicsPrimaryLists")."""
        return sum(self.graphics_lists)

    @property
    def max_graphics_program_inputs_per_primary_list(self) -> int:
        """The largest graphics-class list's NumProgramInputs (spec "MaxGraphicsProgramInputsPerPrimaryList")."""
        return max((p.count for p, g in zip(self.primary_lists, self.graphics_lists) if g), default=0)

    def to_capture(self, objects: ObjectSet, signature: WorkListSignature | SignatureArray | None = None, *,
                   state: Any = None, device: Any = None) -> Any:
        """A :class:`d3d12wl.capture.Capture` of the DispatchList (tier 1) or DispatchList1 (tier 2) call on this
        buffer.  Without ``state``, SetProgram binds ``signature`` (a work list signature for tier 1, a signature
        array for tier 2, every slot bound to this program table) and nothing else is set on the command list."""
        from d3d12wl.capture import CAPTURE_VERSION, Capture
        from d3d12wl.state import (
            CommandListState,
            DeviceCaps,
            DispatchListCall,
            SetProgramDesc,
            SetWorkListDesc,
            SetWorkListDesc1,
            WorkListBinding,
        )

        if state is None:
            if signature is None:
                raise PackError("to_capture needs the bound signature (or a full command-list state)")
            binding = WorkListBinding(abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"),
                                      self.program_table_binding())
            if self.tier == 1:
                if not isinstance(signature, WorkListSignature):
                    raise PackError("tier 1 binds a work list signature directly (D3D12_SET_WORK_LIST_DESC)")
                program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"),
                                         WorkList=SetWorkListDesc(signature, binding))
            else:
                if not isinstance(signature, SignatureArray):
                    raise PackError("tier 2 binds a work list signature array (D3D12_SET_WORK_LIST_DESC1)")
                program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"),
                                         WorkList1=SetWorkListDesc1(signature, [binding] * len(signature.pSignatures)))
            state = CommandListState(program=program)
        if device is None:
            device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{self.tier}"))
        call = DispatchListCall(self.dispatch_input, self.max_graphics_program_inputs_per_primary_list,
                                self.max_graphics_primary_lists if self.tier == 2 else 0, tier2=self.tier == 2)
        return Capture(CAPTURE_VERSION, device, objects, self.memory(), state, call)

    def write_capture(self, path: str | os.PathLike[str], objects: ObjectSet,
                      signature: WorkListSignature | SignatureArray | None = None, *, state: Any = None,
                      device: Any = None) -> Path:
        """Write :meth:`to_capture` with :func:`d3d12wl.capture.save_capture`; returns the path written."""
        from d3d12wl.capture import save_capture

        return save_capture(self.to_capture(objects, signature, state=state, device=device), path)


def _secondary_addresses(spec: DispatchListSpec, layout: PCSLayout, n_primary: int, va: int,
                         stride: int) -> tuple[np.ndarray, np.ndarray]:
    """(NumSecondaryRecords, SecondaryRecords) for each primary record of a list with contiguous secondaries."""
    where = f"dispatch list of {layout.name!r}"
    if spec.secondary_counts is None:
        raise PackError("secondary records given without secondary_counts (how many belong to each primary record)",
                        where=where)
    counts = np.asarray(spec.secondary_counts)
    if counts.size == 0:
        counts = counts.astype(np.uint32)
    if counts.shape != (n_primary,):
        raise PackError(f"secondary_counts has shape {counts.shape}, expected ({n_primary},) (one per primary record)",
                        where=where)
    if counts.dtype.kind not in "ui" or (counts.size and (counts.min() < 0 or counts.max() > 0xFFFFFFFF)):
        raise PackError("secondary_counts must be UINT32 values", where=where)
    if stride == 0:  # broadcast: one physical record per primary record
        step = _record_layout(layout, "secondary").min_stride
        addresses = va + np.arange(n_primary, dtype=np.uint64) * np.uint64(step)
    else:
        first = np.zeros(n_primary, dtype=np.uint64)
        np.cumsum(counts[:-1], out=first[1:])
        addresses = np.uint64(va) + first * np.uint64(stride)
    return counts.astype(np.uint32, copy=False), addresses


def build_work_list(lists: Sequence[DispatchListSpec], *, base_va: int, program_table: ProgramTableSpec | None = None,
                    tier: int = 1, align: int = VA_ALIGN) -> BuiltWorkList:
    """Pack and place every part of a work list in one buffer starting at ``base_va``.

    Order: dispatch list input(s), program table, then for each list its primary list and secondary list.  Each
    part starts at a VA that is a multiple of ``align`` (at least 8, a power of two).  Tier 1 takes exactly one
    list; tier 2 chains the lists in order."""
    if tier not in (1, 2):
        raise PackError(f"tier must be 1 or 2, not {tier}")
    if align < VA_ALIGN or align & (align - 1):
        raise PackError(f"align must be a power of two >= {VA_ALIGN}, not {align}")
    if base_va % VA_ALIGN:
        raise PackError(f"base VA 0x{base_va:x} is not {VA_ALIGN}-byte aligned", rule="DispatchList")
    if not lists:
        raise PackError("a work list needs at least one dispatch list")
    if tier == 1 and len(lists) != 1:
        raise PackError(f"tier 1 executes exactly one list (D3D12_DISPATCH_LIST_INPUT has no NextDispatchList), "
                        f"{len(lists)} given", rule="Dispatch List Continuations")

    cursor = base_va
    parts: list[Part] = []

    def place(size: int) -> int:
        nonlocal cursor
        va = round_up(cursor, align)
        cursor = va + size
        return va

    input_name = "D3D12_DISPATCH_LIST_INPUT" if tier == 1 else "D3D12_DISPATCH_LIST_INPUT1"
    input_size = abi.sizeof(input_name)
    input_vas = [place(input_size) for _ in lists]
    blocks: list[tuple[int, np.ndarray]] = []

    table_part: Part | None = None
    slot_count = 0
    if program_table is not None:
        table = pack_program_table(program_table.layout, program_table.slots, stride=program_table.stride)
        rows = count_records(_table_layout(program_table.layout), program_table.slots)
        table_stride = table.nbytes // max(rows, 1) if program_table.stride is None else program_table.stride
        slot_count = rows if program_table.slot_count is None else program_table.slot_count
        if table_stride and slot_count > rows:
            # Table.SizeInBytes must be at least SlotCount * StrideInBytes (spec
            # D3D12_WORK_LIST_PROGRAM_TABLE_BINDING); the slots past the given rows are zero
            table = np.concatenate([table, np.zeros((slot_count - rows) * table_stride, dtype=np.uint8)])
        table_part = Part("program table", place(table.nbytes), table.nbytes, table_stride, rows)
        blocks.append((table_part.va, table))

    primary_parts: list[Part] = []
    secondary_parts: list[Part | None] = []
    graphics: list[bool] = []
    for i, spec in enumerate(lists):
        layout = spec.layout
        rec = layout.primary
        stride = resolve_stride(rec, spec.primary_stride)
        n = count_records(rec, spec.primary)
        primary_va = place(n * stride)
        sec_part: Part | None = None
        primary_data: RecordData = spec.primary
        if spec.secondary is not None:
            if layout.secondary is None:
                raise PackError(f"signature {layout.name!r} has no SOURCE_SECONDARY_RECORD args, so no secondary "
                                f"records", where=f"lists[{i}]", rule="Primary record layout")
            sec_stride = resolve_stride(layout.secondary, layout.pcs.SecondaryRecordByteStride)
            n_sec = count_records(layout.secondary, spec.secondary)
            step = sec_stride or layout.secondary.min_stride
            if sec_stride == 0 and n_sec != n:
                raise PackError(f"with the broadcast secondary stride each primary record has one secondary record: "
                                f"{n} primary, {n_sec} secondary", where=f"lists[{i}]", rule="Stride derivation")
            sec_va = place(n_sec * step)
            counts, addresses = _secondary_addresses(spec, layout, n, sec_va, sec_stride)
            if sec_stride and int(counts.sum(dtype=np.uint64)) != n_sec:
                raise PackError(f"secondary_counts sum to {int(counts.sum())}, but {n_sec} secondary records are given",
                                where=f"lists[{i}]")
            columns = _flatten(spec.primary)
            for key in ("NumSecondaryRecords", "SecondaryRecords"):
                if key in columns:
                    raise PackError(f"column {key!r} is written by the builder from secondary_counts; leave it out",
                                    where=f"lists[{i}]")
            columns["NumSecondaryRecords"] = counts
            columns["SecondaryRecords"] = addresses
            primary_data = columns
            if sec_stride == 0:
                secondary = _pack_broadcast(layout, spec)
            else:
                secondary = pack_secondary_records(layout.secondary, spec.secondary, stride=sec_stride)
            sec_part = Part(f"secondary list {i}", sec_va, secondary.nbytes, sec_stride, n_sec)
            blocks.append((sec_va, secondary))
        primary = pack_primary_records(rec, primary_data, stride=stride)
        primary_parts.append(Part(f"primary list {i}", primary_va, primary.nbytes, stride, n))
        secondary_parts.append(sec_part)
        graphics.append(layout.executable_class is ExecutableClass.GRAPHICS)
        blocks.append((primary_va, primary))

    continuation = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    inputs: Columns = {
        "NumProgramInputs": np.array([p.count for p in primary_parts], dtype=np.uint64),
        "Flags": np.array([s.flags | (continuation if tier == 2 and i + 1 < len(lists) else 0)
                           for i, s in enumerate(lists)], dtype=np.uint64),
        "ProgramInputs.StartAddress": np.array([p.va for p in primary_parts], dtype=np.uint64),
        "ProgramInputs.StrideInBytes": np.array([p.stride for p in primary_parts], dtype=np.uint64),
    }
    if tier == 2:
        inputs = {**inputs,
                  "SignatureIndex": np.array([s.signature_index for s in lists], dtype=np.uint64),
                  "NextDispatchList": np.array(input_vas[1:] + [0], dtype=np.uint64)}
    packed_inputs = pack_dispatch_list_inputs(inputs, tier=tier)
    for i, va in enumerate(input_vas):
        parts.append(Part(f"{input_name} {i}", va, input_size))
        blocks.append((va, packed_inputs[i * input_size:(i + 1) * input_size]))
    if table_part is not None:
        parts.append(table_part)
    for p, s in zip(primary_parts, secondary_parts):
        parts.append(p)
        if s is not None:
            parts.append(s)

    data = np.zeros(cursor - base_va, dtype=np.uint8)
    for va, block in blocks:
        data[va - base_va:va - base_va + block.nbytes] = block
    return BuiltWorkList(base_va, data, tier, tuple(sorted(parts, key=lambda p: p.va)), tuple(input_vas),
                         tuple(primary_parts), tuple(secondary_parts), table_part, slot_count, tuple(graphics))


def _table_layout(layout: RecordLayout | PCSLayout | Program) -> RecordLayout:
    if isinstance(layout, Program):
        table = program_table_layout(layout)
        if table is None:
            raise PackError(f"program {layout.name!r} is raytracing-class: it has no program table",
                            rule="Program Table")
        return table
    return _record_layout(layout, "program_table")


def _pack_broadcast(layout: PCSLayout, spec: DispatchListSpec) -> np.ndarray:
    """Broadcast secondary lists, one physical record each, placed ``min_stride`` apart (vectorized)."""
    assert layout.secondary is not None and spec.secondary is not None
    return pack_secondary_records(layout.secondary, spec.secondary, stride=layout.secondary.min_stride)
