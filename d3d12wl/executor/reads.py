"""What a call reads, record class by record class: the VA of every record it reads and the stride it reads them
at (``d3d12wl decode --capture``, ``codegen --capture``, and ``capture``'s pre-flight).

:func:`read_call` runs the executor's own walk of the call down to its records and stops there: every dispatch
list of a chain (Tier 2 continuations followed as the executor follows them), the signature and binding each list
selects, its ``ProgramInputs`` start, stride and count, and for ExecuteIndirect the argument buffer, ``ByteStride``
and the command count (``min(*pCountBuffer, MaxCommandCount)``).  Every call-time check the executor makes on the
way is in its trace's findings; no record is executed.

:func:`call_rows` then lays out where the records of one class are, in numpy, with no Python object per record:

* a dispatch input (``D3D12_DISPATCH_LIST_INPUT`` / ``_INPUT1``): every list of the chain;
* ``PCS.primary``: each list's ``ProgramInputs`` records (``StartAddress + i * StrideInBytes``, i <
  ``NumProgramInputs``) whose program is ``PCS``'s (read as the executor reads it: ProgramTableIndex, the bound
  table's slot, its identifier) when the list's signature has more than one program command signature;
* ``PCS.secondary``: each such primary record's list at ``SecondaryRecords``, ``NumSecondaryRecords`` records at
  the PCS's ``SecondaryRecordByteStride`` (0: the broadcast form, every index at the list's start);
* ``PCS.program_table`` / ``PROGRAM.program_table``: the slots of every program table a list bound for the
  signature holds (``Table.StartAddress + s * StrideInBytes``, s < ``SlotCount``) whose identifier is a program of
  that record class, empty, or no program at all;
* ``EI.command``: the commands at ``ArgumentBuffer + k * ByteStride``, k < the command count.

Rows that are not mapped (or not whole in one region) are left out and said so; counts read from memory are
bounded by the executor's record limit scaled to the supplied bytes (:class:`~d3d12wl.executor.trace.Limits`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import CaptureError, LayoutError
from d3d12wl.executor.arrays import RegionArrays, expand
from d3d12wl.executor.dispatch_list import run_dispatch_list
from d3d12wl.executor.execute_indirect import CommandPlan, run_execute_indirect
from d3d12wl.executor.list_run import INPUT, INPUT1, ListRun
from d3d12wl.executor.record_walk import primary_walk_setup
from d3d12wl.executor.trace import Limits, Trace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import CommandSignature, ObjectSet, Program, ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import CommandListState, DeviceCaps, DispatchListCall, WorkListBinding
from d3d12wl.records import layout as L
from d3d12wl.records.packers import match_identifiers

__all__ = ["CallReads", "CommandRead", "ListRead", "Rows", "call_rows", "call_strides", "read_call", "reached",
           "selected_slots"]

_U64_MAX = (1 << 64) - 1
_IDENTIFIER_SIZE = abi.sizeof(L.PROGRAM_IDENTIFIER)


@dataclass(frozen=True)
class ListRead:
    """One dispatch list as the call reads it: its header, the signature and binding it selects, and
    ``primary``: ``(NumProgramInputs, ProgramInputs.StartAddress, StrideInBytes)`` where its records are read."""

    index: int
    va: int
    struct: str
    header: dict[str, Any]
    signature_index: int
    signature: WorkListSignature
    binding: WorkListBinding
    executable_class: ExecutableClass
    primary: tuple[int, int, int] | None


@dataclass(frozen=True)
class CommandRead:
    """ExecuteIndirect's commands as the call reads them."""

    signature: CommandSignature
    layout: L.RecordLayout
    start: int
    stride: int
    count: int


@dataclass
class CallReads:
    """What :func:`read_call` found: the executor's ``trace`` of the call down to its records (the call-time
    findings, each list), the lists and the ExecuteIndirect commands."""

    call: str
    memory: GpuMemory
    objects: ObjectSet
    trace: Trace
    lists: list[ListRead] = field(default_factory=list)
    commands: CommandRead | None = None
    _arrays: RegionArrays | None = None

    @property
    def arrays(self) -> RegionArrays:
        if self._arrays is None:
            self._arrays = RegionArrays(self.memory)
        return self._arrays

    @property
    def max_rows(self) -> int:
        """The most rows one record class is read for: the executor's record limit for the bytes the capture supplies
        (a zeros region claims its records for free: ``GpuMemory.supplied_bytes``)."""
        return Limits().resolved(self.memory.supplied_bytes).max_records


def read_call(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
              call: Any, limits: Limits | None = None) -> CallReads:
    """The call's reads down to its records (see the module docstring); the executor's findings are in
    ``.trace``."""
    if isinstance(call, DispatchListCall):
        lists: list[ListRead] = []

        def collect(run: ListRun) -> None:
            sel = run.selection
            assert sel is not None
            lists.append(ListRead(run.index, run.va, run.trace.input_struct, dict(run.header), sel.signature_index,
                                  sel.signature, sel.binding, sel.executable_class, primary_walk_setup(run)))

        trace = run_dispatch_list(memory, device, objects, state, call, limits, None, walker=collect)
        return CallReads(trace.call, memory, objects, trace, lists)
    commands: list[CommandRead] = []

    def collect_commands(plan: CommandPlan) -> None:
        commands.append(CommandRead(plan.cs, plan.layout, plan.call.ArgumentBuffer, plan.stride, plan.count))

    trace = run_execute_indirect(memory, device, objects, state, call, limits, walker=collect_commands)
    return CallReads(trace.call, memory, objects, trace, commands=commands[0] if commands else None)


# --------------------------------------------------------------------------------------------------------------
# Rows of one record class
# --------------------------------------------------------------------------------------------------------------


@dataclass
class Rows:
    """The records of one class the call reads: ``va`` and ``data`` (``(n, size)`` bytes) per row, index columns
    (``list``, ``primary``, ``secondary``, ``binding``, ``slot``, ``command``), the strides they are read at (each
    with where it comes from) and what the call reads that the rows leave out, and why."""

    what: str
    size: int
    va: np.ndarray
    data: np.ndarray
    columns: dict[str, np.ndarray]
    #: stride -> where it comes from (None: records read one by one, not at a stride: the dispatch inputs)
    strides: dict[int | None, list[str]]
    left_out: list[str]
    #: those of ``left_out`` that are rows the call reads from memory that is not mapped (the executor finds them
    #: so: an error), as opposed to rows past the record limit or of another record class
    unmapped: list[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.va)

    @property
    def stride(self) -> int | None:
        """The one stride the rows are read at, or None when the call reads them at several (or at none)."""
        return next(iter(self.strides)) if len(self.strides) == 1 else None

    def reading(self) -> str:
        """How the call reads the rows, for a summary line."""
        if not self.strides:
            return "the call reads none"
        parts = [f"stride {s} ({', '.join(_shorten(whence))})" if s is not None else ", ".join(_shorten(whence))
                 for s, whence in self.strides.items()]
        return "as the call reads them: " + "; ".join(parts)


def _shorten(items: list[str], keep: int = 3) -> list[str]:
    return items if len(items) <= keep else [*items[:keep], f"{len(items) - keep} more"]


class _Builder:
    """Accumulates runs of rows of one record class."""

    def __init__(self, reads: CallReads, what: str, size: int) -> None:
        self.reads, self.what, self.size = reads, what, size
        self.vas: list[np.ndarray] = []
        self.ridx: list[np.ndarray] = []
        self.columns: dict[str, list[np.ndarray]] = {}
        self.strides: dict[int | None, list[str]] = {}
        self.left_out: list[str] = []
        self.unmapped: list[str] = []
        self.budget = reads.max_rows

    def located(self, va: np.ndarray, what: str, size: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The rows of ``va`` whole in one mapped region (their mask, their region), the rest said."""
        ridx = self.reads.arrays.locate(va, self.size if size is None else size) if len(va) else np.zeros(0, np.int64)
        ok = ridx >= 0
        missing = int(np.count_nonzero(~ok))
        if missing:
            first = int(va[np.argmax(~ok)])
            self.not_mapped(f"{missing} of {len(va)} {what} are not mapped whole (the first at 0x{first:x})")
        return ok, ridx

    def not_mapped(self, message: str) -> None:
        self.left_out.append(message)
        self.unmapped.append(message)

    def bounded(self, n: int, what: str) -> int:
        take = min(n, self.budget)
        if take < n:
            self.left_out.append(f"{n - take} of {n} {what} are past the executor's record limit ({self.reads.max_rows})")
        self.budget -= take
        return take

    def add(self, va: np.ndarray, ridx: np.ndarray, stride: int | None, whence: str, **columns: np.ndarray | int
            ) -> None:
        if not len(va):
            return
        self.vas.append(va.astype(np.uint64, copy=False))
        self.ridx.append(ridx)
        for name, col in columns.items():
            self.columns.setdefault(name, []).append(np.broadcast_to(np.asarray(col, dtype=np.int64), va.shape))
        self.strides.setdefault(stride, []).append(whence)

    def rows(self) -> Rows:
        va = np.concatenate(self.vas) if self.vas else np.zeros(0, dtype=np.uint64)
        ridx = np.concatenate(self.ridx) if self.ridx else np.zeros(0, dtype=np.int64)
        data = self.reads.arrays.gather(ridx, va, self.size) if len(va) else np.zeros((0, self.size), np.uint8)
        cols = {name: np.concatenate(parts) for name, parts in self.columns.items()}
        return Rows(self.what, self.size, va, data, cols, self.strides, self.left_out, self.unmapped)


def _strided(start: int, n: int, stride: int) -> np.ndarray:
    """``start + i * stride`` for i < n (uint64; the caller has bounded n and checked the end for wrap)."""
    return np.uint64(start) + np.arange(n, dtype=np.uint64) * np.uint64(stride)


def _wraps(start: int, n: int, stride: int, size: int) -> bool:
    return n > 0 and start + (n - 1) * stride + size > _U64_MAX + 1


def _members(sig: WorkListSignature) -> set[int]:
    return {id(p) for p in sig.pProgramCommandSignatures}


def _program_identifiers(objects: ObjectSet) -> tuple[list[bytes], list[Program]]:
    programs = [p for p in objects.programs.values() if p.Identifier is not None]
    return [bytes(p.Identifier) for p in programs], programs


def _slot_programs(reads: CallReads, b: _Builder, slot_va: np.ndarray, what: str) -> tuple[np.ndarray, np.ndarray]:
    """Which program (an index into :func:`_program_identifiers`, or packers' EMPTY_IDENTIFIER / NO_PROGRAM) the
    identifier at each slot VA names, and the mask of slots mapped whole."""
    ok, ridx = b.located(slot_va, what, _IDENTIFIER_SIZE)
    which = np.full(len(slot_va), -3, dtype=np.int32)  # -3: not read
    if ok.any():
        ids = reads.arrays.gather(ridx[ok], slot_va[ok], _IDENTIFIER_SIZE)
        identifiers, _ = _program_identifiers(reads.objects)
        which[ok] = match_identifiers(ids, identifiers, count=int(ok.sum()), stride=_IDENTIFIER_SIZE)
    return which, ok


def _primary_rows(reads: CallReads, pcs: ProgramCommandSignature, layout: L.PCSLayout, b: _Builder) -> None:
    """The primary records of ``pcs`` (see the module docstring), added to ``b``."""
    _, programs = _program_identifiers(reads.objects)
    for lr in reads.lists:
        if id(pcs) not in _members(lr.signature) or lr.primary is None:
            continue
        n, start, stride = lr.primary
        what = f"primary records of list {lr.index}"
        if _wraps(start, min(n, 2), stride, layout.primary.size):
            b.left_out.append(f"{what}: the second record's address wraps the 64-bit VA space")
            n = 1
        n = b.bounded(n, what)
        if stride and _wraps(start, n, stride, layout.primary.size):
            n = (_U64_MAX + 1 - layout.primary.size - start) // stride + 1
        va = _strided(start, n, stride)
        index = np.arange(n, dtype=np.int64)
        ok, ridx = b.located(va, what)
        va, ridx, index = va[ok], ridx[ok], index[ok]
        if len(lr.signature.pProgramCommandSignatures) > 1 and lr.executable_class is not ExecutableClass.RAYTRACING:
            # one list may mix program command signatures: each record's own (ProgramTableIndex -> slot -> program)
            pt = lr.binding.ProgramTable
            first = reads.arrays.gather(ridx, va, 4).view("<u4").reshape(-1).astype(np.uint64)
            in_table = first < np.uint64(pt.SlotCount)
            slot_va = np.uint64(pt.Table.StartAddress) + first * np.uint64(pt.Table.StrideInBytes)
            which, _ = _slot_programs(reads, b, np.where(in_table, slot_va, np.uint64(0)), f"slots of {what}")
            mine = np.array([p.ProgramCommandSignature is pcs for p in programs] + [False], dtype=bool)
            keep = in_table & (which >= 0) & mine[np.where(which >= 0, which, len(programs))]
            others = int(np.count_nonzero(~keep))
            if others:
                b.left_out.append(f"{others} primary records of list {lr.index} select another program command "
                                  "signature's program (or none)")
            va, ridx, index = va[keep], ridx[keep], index[keep]
        b.add(va, ridx, stride, f"list {lr.index} {lr.struct}::ProgramInputs.StrideInBytes", list=lr.index,
              primary=index)


def _secondary_rows(reads: CallReads, pcs: ProgramCommandSignature, layout: L.PCSLayout, b: _Builder) -> None:
    """Each primary record's secondary list (see the module docstring), added to ``b``."""
    assert layout.secondary is not None
    primary = _Builder(reads, f"{pcs.name}.primary", layout.primary.size)
    _primary_rows(reads, pcs, layout, primary)
    prim = primary.rows()
    b.left_out += prim.left_out
    b.unmapped += prim.unmapped
    if not len(prim):
        return
    n_off = layout.primary.field("NumSecondaryRecords").offset
    p_off = layout.primary.field("SecondaryRecords").offset
    counts = prim.data[:, n_off:n_off + 4].copy().view("<u4").reshape(-1).astype(np.int64)
    bases = prim.data[:, p_off:p_off + 8].copy().view("<u8").reshape(-1)
    stride, size = pcs.SecondaryRecordByteStride, layout.secondary.size
    lists = counts > 0
    aligned = bases % np.uint64(L.WL_ALIGN) == 0
    if (lists & ~aligned).any():
        b.left_out.append(f"{int(np.count_nonzero(lists & ~aligned))} secondary lists at a SecondaryRecords that is "
                          f"not {L.WL_ALIGN}-byte aligned")
    lists &= aligned
    last = counts - 1
    if stride:  # the list must not leave the VA space
        room = (np.uint64(_U64_MAX) - bases - np.uint64(size - 1)) // np.uint64(stride)
        wraps = lists & (last.astype(np.uint64) > room)
        if wraps.any():
            b.left_out.append(f"{int(np.count_nonzero(wraps))} secondary lists run past the 64-bit VA space")
        lists &= ~wraps
    span = np.where(lists, last.astype(np.uint64) * np.uint64(stride) + np.uint64(size), np.uint64(size))
    ridx = reads.arrays.locate(np.where(lists, bases, np.uint64(0)), span)
    unmapped = lists & (ridx < 0)
    if unmapped.any():
        j = int(np.argmax(unmapped))
        b.not_mapped(f"{int(np.count_nonzero(unmapped))} secondary lists are not mapped whole (the first: "
                     f"primary record {int(prim.columns['primary'][j])} of list {int(prim.columns['list'][j])}, "
                     f"{int(counts[j])} records at 0x{int(bases[j]):x})")
    lists &= ~unmapped
    counts = np.where(lists, counts, 0)
    total = int(counts.sum())
    take = b.bounded(total, "secondary records")
    if take < total:  # keep whole lists up to the limit, then part of the next
        ends = np.cumsum(counts)
        counts = np.clip(np.minimum(counts, take - (ends - counts)), 0, None)
    k = expand(np.zeros(len(counts), dtype=np.int64), counts)
    owner = np.repeat(np.arange(len(counts)), counts)
    va = bases[owner] + k.astype(np.uint64) * np.uint64(stride)
    whence = f"{pcs.name}.SecondaryRecordByteStride" + (" 0: the broadcast form" if stride == 0 else "")
    b.add(va, ridx[owner], stride, whence, list=prim.columns["list"][owner], primary=prim.columns["primary"][owner],
          secondary=k)


def _program_table_rows(reads: CallReads, rec: L.RecordLayout, pcs: ProgramCommandSignature,
                        program: Program | None, b: _Builder) -> None:
    """The slots of every program table bound for a signature holding ``pcs`` (see the module docstring)."""
    program_table = abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
    _, programs = _program_identifiers(reads.objects)
    cache = L.LayoutCache()

    def of_class(p: Program) -> bool:
        if program is not None:
            return p is program
        if p.ProgramCommandSignature is not pcs:
            return False
        own = cache.program(p)
        return own is not None and own.fields == rec.fields

    mine = np.array([of_class(p) for p in programs] + [False], dtype=bool)
    # a program's own class: its slots and slots of no program; the PCS's: its programs', empty ones and no program's
    others_ok = np.array([program is None, True], dtype=bool)  # EMPTY_IDENTIFIER (-2), NO_PROGRAM (-1)
    seen: set[tuple[int, int, int]] = set()
    for lr in reads.lists:
        if id(pcs) not in _members(lr.signature) or lr.binding.Type != program_table:
            continue
        pt = lr.binding.ProgramTable
        start, stride, slots = pt.Table.StartAddress, pt.Table.StrideInBytes, pt.SlotCount
        key = (start, stride, slots)
        if key in seen:
            continue
        seen.add(key)
        what = f"slots of program table {lr.signature_index} @0x{start:x}"
        shown = min(slots, 1) if stride == 0 else slots
        if stride == 0 and slots > 1:
            b.left_out.append(f"program table {lr.signature_index} has StrideInBytes 0: its {slots} slot indices all "
                              "read the one record at its start")
        shown = b.bounded(shown, what)
        if stride and _wraps(start, shown, stride, rec.size):
            shown = (_U64_MAX + 1 - rec.size - start) // stride + 1
        va = _strided(start, shown, stride)
        which, ok = _slot_programs(reads, b, va, what)
        keep = ok & np.where(which >= 0, mine[np.where(which >= 0, which, len(programs))],
                             others_ok[np.clip(which + 2, 0, 1)])
        others = int(np.count_nonzero(ok & ~keep))
        if others:
            b.left_out.append(f"{others} slots of program table {lr.signature_index} hold programs of another record "
                              "class")
        slot = np.arange(shown, dtype=np.int64)[keep]
        va = va[keep]
        whole, ridx = b.located(va, what)
        b.add(va[whole], ridx[whole], stride,
              f"binding {lr.signature_index} ProgramTable.Table.StrideInBytes" + (" 0" if stride == 0 else ""),
              binding=lr.signature_index, slot=slot[whole])


def _command_rows(reads: CallReads, b: _Builder) -> None:
    cmd = reads.commands
    assert cmd is not None
    n = b.bounded(cmd.count, "commands")
    if _wraps(cmd.start, n, cmd.stride, cmd.layout.size):
        n = (_U64_MAX + 1 - cmd.layout.size - cmd.start) // cmd.stride + 1
    va = _strided(cmd.start, n, cmd.stride)
    ok, ridx = b.located(va, "commands")
    b.add(va[ok], ridx[ok], cmd.stride, f"{cmd.signature.name}.ByteStride",
          command=np.arange(n, dtype=np.int64)[ok])


def reached(reads: CallReads) -> list[str]:
    """The record classes (and the dispatch-input struct) the call reads, as ``decode --capture`` names them."""
    objects = reads.objects
    if reads.commands is not None:
        return [L.record_id(reads.commands.layout)]
    if not reads.lists:
        return []
    out = [reads.lists[0].struct]
    for lr in reads.lists:
        for pcs in lr.signature.pProgramCommandSignatures:
            try:
                pl = L.pcs_layout(pcs)
            except LayoutError:
                continue
            out += [L.record_id(r) for r in (pl.primary, pl.secondary, pl.program_table) if r is not None]
            for name, p in objects.programs.items():  # a program whose record differs from its PCS's
                if p.ProgramCommandSignature is pcs and pl.program_table is not None:
                    own = L.program_table_layout(p, pl)
                    if own is not None and own.fields != pl.program_table.fields:
                        out.append(f"{name}.{L.PROGRAM_TABLE}")
    return list(dict.fromkeys(out))


def call_rows(reads: CallReads, what: str) -> Rows:
    """The rows of ``what`` (a record class by its :func:`~d3d12wl.records.layout.record_id`,
    ``PROGRAM.program_table``, or the call's dispatch-input struct) as the call reads them.  A class the call does
    not read is a :class:`CaptureError` naming what it does read."""
    objects = reads.objects

    def unreached(why: str) -> CaptureError:
        known = ", ".join(reached(reads)) or "no records (see the findings of d3d12wl exec)"
        return CaptureError(f"the call ({reads.call}) does not read {what}: {why}; it reads {known}", where="WHAT")

    if what in (INPUT, INPUT1):
        if not reads.lists or reads.lists[0].struct != what:
            raise unreached(f"its dispatch input is {INPUT1 if reads.call == 'DispatchList1' else INPUT}"
                            if reads.call != "ExecuteIndirect" else "it is ExecuteIndirect")
        b = _Builder(reads, what, abi.sizeof(what))
        va = np.array([lr.va for lr in reads.lists], dtype=np.uint64)
        ok, ridx = b.located(va, "dispatch inputs")
        b.add(va[ok], ridx[ok], None, "the call's DispatchListInput and each NextDispatchList it follows",
              list=np.array([lr.index for lr in reads.lists], dtype=np.int64)[ok])
        return b.rows()
    owner, _, kind = what.rpartition(".")
    if kind == L.COMMAND:
        cmd = reads.commands
        if cmd is None or cmd.signature.name != owner:
            raise unreached("it executes no such command signature")
        b = _Builder(reads, what, cmd.layout.size)
        _command_rows(reads, b)
        return b.rows()
    program = objects.programs.get(owner) if kind == L.PROGRAM_TABLE else None
    pcs = program.ProgramCommandSignature if program is not None else objects.program_command_signatures.get(owner)
    if pcs is None or kind not in (L.PRIMARY, L.SECONDARY, L.PROGRAM_TABLE):
        raise unreached("it is no record class of the capture's description")
    if not any(id(pcs) in _members(lr.signature) for lr in reads.lists):
        raise unreached(f"no list of the call selects a signature with program command signature {pcs.name!r}")
    layout = L.pcs_layout(pcs)
    if kind == L.PRIMARY:
        b = _Builder(reads, what, layout.primary.size)
        _primary_rows(reads, pcs, layout, b)
    elif kind == L.SECONDARY:
        if layout.secondary is None:
            raise unreached(f"{pcs.name!r} is fully inline: its records have no secondary list")
        b = _Builder(reads, what, layout.secondary.size)
        _secondary_rows(reads, pcs, layout, b)
    else:
        rec = L.program_table_layout(program) if program is not None else layout.program_table
        if rec is None:
            raise unreached(f"{pcs.name!r} is raytracing-class: it has no program table")
        b = _Builder(reads, what, rec.size)
        _program_table_rows(reads, rec, pcs, program, b)
    return b.rows()


def call_strides(reads: CallReads, layouts: Sequence[L.RecordLayout]) -> dict[str, tuple[int, str]]:
    """The stride the call reads each record class of ``layouts`` at, by record id, with where it comes from (the
    classes it reads at one stride; a class it reads at several is a :class:`CaptureError` naming them)."""
    out: dict[str, tuple[int, str]] = {}
    for rec in layouts:
        rid = L.record_id(rec)
        strides = _strides_of(reads, rec)
        if len(strides) > 1:
            listed = "; ".join(f"{s} ({', '.join(_shorten(w))})" for s, w in strides.items())
            raise CaptureError(f"the call reads {rid} at {len(strides)} strides: {listed}; give --stride {rid}=N",
                               where="--capture")
        if strides:
            stride, whence = next(iter(strides.items()))
            out[rid] = (stride, ", ".join(_shorten(whence)))
    return out


def _strides_of(reads: CallReads, rec: L.RecordLayout) -> dict[int, list[str]]:
    """Where the call reads ``rec``'s records from (without reading them): the stride of each list or binding."""
    objects = reads.objects
    out: dict[int, list[str]] = {}  # (strides of records: never None)
    if rec.record == L.COMMAND:
        if reads.commands is not None:
            out[reads.commands.stride] = [f"{reads.commands.signature.name}.ByteStride"]
        return out
    program = objects.programs.get(rec.owner) if rec.record == L.PROGRAM_TABLE else None
    pcs = program.ProgramCommandSignature if program is not None else objects.program_command_signatures.get(rec.owner)
    for lr in reads.lists:
        if pcs is None or id(pcs) not in _members(lr.signature):
            continue
        if rec.record == L.PRIMARY and lr.primary is not None:
            out.setdefault(lr.primary[2], []).append(f"list {lr.index} {lr.struct}::ProgramInputs.StrideInBytes")
        elif rec.record == L.SECONDARY:
            out.setdefault(pcs.SecondaryRecordByteStride, []).append(f"{pcs.name}.SecondaryRecordByteStride")
            break
        elif rec.record == L.PROGRAM_TABLE:
            stride = lr.binding.ProgramTable.Table.StrideInBytes
            whence = f"binding {lr.signature_index} ProgramTable.Table.StrideInBytes"
            if whence not in out.get(stride, []):
                out.setdefault(stride, []).append(whence)
    return out


def selected_slots(reads: CallReads) -> dict[int, np.ndarray]:
    """Per binding (signature index), the program-table slots the call's primary records select (their
    ``ProgramTableIndex``, spec "Primary record layout": the header's first member), unique and ascending: the slots
    whose identifiers the executor reads.  Lists of the raytracing class, which bind no program table, and records
    that are not mapped select none."""
    program_table = abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
    b = _Builder(reads, "ProgramTableIndex", 4)
    parts: dict[int, list[np.ndarray]] = {}
    for lr in reads.lists:
        if lr.primary is None or lr.binding.Type != program_table:
            continue
        n, start, stride = lr.primary
        n = b.bounded(n, f"primary records of list {lr.index}")
        if _wraps(start, n, stride, 4):
            n = (_U64_MAX + 1 - 4 - start) // stride + 1 if stride else 1
        va = _strided(start, n, stride)
        ok = reads.arrays.locate(va, 4) >= 0 if len(va) else np.zeros(0, dtype=bool)
        index = reads.arrays.gather(reads.arrays.locate(va[ok], 4), va[ok], 4).view("<u4").reshape(-1) \
            if ok.any() else np.zeros(0, dtype=np.uint32)
        parts.setdefault(lr.signature_index, []).append(index.astype(np.int64))
    return {k: np.unique(np.concatenate(v)) for k, v in parts.items()}
