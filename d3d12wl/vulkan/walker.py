"""The sequence buffer generated on the GPU: a compute shader (``tools/gpu/walk.comp``) walks the primary and
secondary records of a ``DispatchList`` list as the spec lays them out, or the command records of an
``ExecuteIndirect`` argument buffer, reading the same bytes the CPU lowering reads, and writes the sequences.  This
module writes the walker's input (a *plan*: the list's or the call's facts, the columns of
:class:`~d3d12wl.vulkan.lowered.SequenceColumn`, the program identifiers and the captured memory regions) and
models the shader on the CPU (:func:`model_walk`), pass for pass, so CI can hold it to the CPU lowering.

DispatchList, the shader's two passes: (0) one invocation walks the primary records in order and writes each one's
first sequence index (an exclusive prefix sum of ``NumSecondaryRecords``; 1 per record for a fully-inline list);
(1) one workgroup per primary record: ``ProgramTableIndex`` -> slot VA -> the slot's identifier -> the execution-set
index, then one invocation per secondary record writes that sequence's columns.  ExecuteIndirect: (0) one
invocation reads the command count (``MaxCommandCount``, or less by the count buffer's UINT32); (1) one invocation
per command writes its columns.  A VA outside every region, a slot past ``SlotCount`` or an identifier of no
program sets a bit of the error word (:data:`ERRORS`).  The walker covers a list of one program command signature
(a leaf with :class:`~d3d12wl.vulkan.lowered.DispatchListWalk`) and every ExecuteIndirect call.

A plan file, little endian uint32: a header of 32 (``magic`` 'WLK1', ``version`` 2, then :data:`PLAN_FIELDS`:
for a DispatchList ``primary_count``, ``primary_stride``, ``primary_size``, ``pti_offset``, ``hybrid``,
``num_secondary_offset``, ``secondary_records_offset``, ``secondary_stride``, ``secondary_size``,
``table_stride``, ``slot_count``, ``slot_size``, ``program_count``, ``column_count``, ``region_count``,
``out_stride``, ``sequence_count``, ``kind`` 0, ``primary_va`` and ``table_va`` as two uint32 each; for an
ExecuteIndirect ``MaxCommandCount``, ``ByteStride``, the command record's size in the first three, ``kind`` 1 and
the argument buffer's and the count buffer's VAs (0: none) in their place, the list-only fields 0; then zeros),
``program_count`` identifiers of 8, ``column_count`` columns of 8 (``source`` code of :data:`SOURCES`, ``offset``,
``size``, ``field_offset``, 3 constant DWORDs, 0), ``region_count`` regions of 4 (``base`` as two uint32, ``size``,
the DWORD offset of its bytes in the data), then the data: every region's bytes, each padded to 4.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.vulkan.lowered import DispatchListWalk, ExecuteIndirectWalk, Lowering, LoweringError, SequenceColumn

__all__ = ["ERRORS", "SOURCES", "Plan", "model_walk", "plan_of", "read_plan"]

MAGIC = 0x314B4C57  # b"WLK1"
VERSION = 2
#: the header's DWORDs 2.. (then primary_va / argument_va at 20-21, table_va / count_va at 22-23)
PLAN_FIELDS = ("count", "stride", "size", "pti_offset", "hybrid", "num_secondary_offset", "secondary_records_offset",
               "secondary_stride", "secondary_size", "table_stride", "slot_count", "slot_size", "program_count",
               "column_count", "region_count", "out_stride", "sequence_count", "kind")
KIND_DISPATCH_LIST, KIND_EXECUTE_INDIRECT = 0, 1
HEADER_DWORDS = 32
#: a program identifier's bytes (D3D12_PROGRAM_IDENTIFIER); walk.comp compares IDENTIFIER_BYTES / 4 DWORDs
IDENTIFIER_BYTES = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
COLUMN_DWORDS = 8
#: DWORDs per region of the plan's region table
REGION_DWORDS = 4
#: SequenceColumn.source -> the code the shader switches on
SOURCES = {"execution_set": 0, "zero": 1, "constant": 2, "secondary_index": 3, "va:PRIMARY_RECORD_POINTER": 4,
           "va:SECONDARY_RECORD_POINTER": 5, "va:PROGRAM_TABLE_POINTER": 6, "primary": 7, "secondary": 8,
           "table": 9, "command": 10, "position": 11}
#: bits of the walker's error word
ERRORS = {1: "a VA outside every captured region", 2: "a slot holds the identifier of no program",
          4: "ProgramTableIndex >= SlotCount"}


@dataclass
class Plan:
    """A walker plan: the list's or the call's facts, the columns and the memory, as the shader reads them."""

    walk: DispatchListWalk | ExecuteIndirectWalk
    out_stride: int
    sequence_count: int
    regions: tuple[tuple[int, bytes], ...]

    @property
    def columns(self) -> tuple[SequenceColumn, ...]:
        return self.walk.columns

    def to_bytes(self) -> bytes:
        w = self.walk
        header = np.zeros(HEADER_DWORDS, dtype="<u4")
        if isinstance(w, ExecuteIndirectWalk):
            values = {"count": w.max_count, "stride": w.stride, "size": w.record_size, "kind": KIND_EXECUTE_INDIRECT}
            va, va2, identifiers = w.argument_va, w.count_va, b""
        else:
            values = {"count": w.primary_count, "stride": w.primary_stride, "size": w.primary_size,
                      "pti_offset": w.program_table_index_offset, "hybrid": int(w.hybrid),
                      "num_secondary_offset": w.num_secondary_offset,
                      "secondary_records_offset": w.secondary_records_offset, "secondary_stride": w.secondary_stride,
                      "secondary_size": w.secondary_size, "table_stride": w.table_stride, "slot_count": w.slot_count,
                      "slot_size": w.slot_size, "program_count": len(w.identifiers), "kind": KIND_DISPATCH_LIST}
            va, va2, identifiers = w.primary_va, w.table_va, b"".join(w.identifiers)
        values.update(column_count=len(w.columns), region_count=len(self.regions), out_stride=self.out_stride,
                      sequence_count=self.sequence_count)
        header[:2] = [MAGIC, VERSION]
        header[2:2 + len(PLAN_FIELDS)] = [values.get(k, 0) for k in PLAN_FIELDS]
        header[20:22] = [va & 0xFFFFFFFF, va >> 32]
        header[22:24] = [va2 & 0xFFFFFFFF, va2 >> 32]
        cols = np.zeros((len(w.columns), COLUMN_DWORDS), dtype="<u4")
        for k, c in enumerate(w.columns):
            const = np.frombuffer(c.constant.ljust(12, b"\0")[:12], dtype="<u4")
            cols[k] = [SOURCES[c.source], c.offset, c.size, c.field_offset, *const, 0]
        table = np.zeros((len(self.regions), REGION_DWORDS), dtype="<u4")
        data = bytearray()
        for k, (base, raw) in enumerate(self.regions):
            table[k] = [base & 0xFFFFFFFF, base >> 32, len(raw), len(data) // 4]
            data += raw + bytes(-len(raw) % 4)
        return header.tobytes() + identifiers + cols.tobytes() + table.tobytes() + bytes(data)


def plan_of(lowering: Lowering, memory: GpuMemory) -> Plan:
    """The walker plan of a lowering leaf that has one (a list of one program command signature, an
    ExecuteIndirect call) over the capture's memory (every region, as captured)."""
    if lowering.walk is None or lowering.layout is None:
        raise LoweringError("no GPU walker for this lowering (a list whose records use several program command "
                            "signatures, or a call with several leaves: walk each leaf)")
    regions = tuple((r.base, bytes(r.data)) for r in memory.regions)
    return Plan(lowering.walk, lowering.layout.stride, lowering.count, regions)


def write_plan(plan: Plan, path: str | Path) -> Path:
    p = Path(path)
    p.write_bytes(plan.to_bytes())
    return p


def read_plan(path: str | Path) -> Plan:
    data = Path(path).read_bytes()
    h = np.frombuffer(data, dtype="<u4", count=HEADER_DWORDS)
    if int(h[0]) != MAGIC or int(h[1]) != VERSION:
        raise ValueError(f"{path}: not a d3d12wl walker plan (version {VERSION})")
    f = dict(zip(PLAN_FIELDS, (int(x) for x in h[2:2 + len(PLAN_FIELDS)]), strict=True))
    va = int(h[20]) | int(h[21]) << 32
    va2 = int(h[22]) | int(h[23]) << 32
    off = HEADER_DWORDS * 4
    ids = tuple(data[off + IDENTIFIER_BYTES * k:off + IDENTIFIER_BYTES * (k + 1)] for k in range(f["program_count"]))
    off += IDENTIFIER_BYTES * f["program_count"]
    n_col, n_reg = f["column_count"], f["region_count"]
    cols_raw = np.frombuffer(data, dtype="<u4", count=n_col * COLUMN_DWORDS, offset=off).reshape(n_col, COLUMN_DWORDS)
    off += cols_raw.nbytes
    names = {v: k for k, v in SOURCES.items()}
    columns = tuple(SequenceColumn(names[int(c[0])], int(c[1]), int(c[2]), int(c[3]),
                                   c[4:7].tobytes() if int(c[0]) == SOURCES["constant"] else b"") for c in cols_raw)
    table = np.frombuffer(data, dtype="<u4", count=n_reg * REGION_DWORDS, offset=off).reshape(n_reg, REGION_DWORDS)
    off += table.nbytes
    regions = tuple((int(r[0]) | int(r[1]) << 32, data[off + 4 * int(r[3]):off + 4 * int(r[3]) + int(r[2])])
                    for r in table)
    walk: DispatchListWalk | ExecuteIndirectWalk
    if f["kind"] == KIND_EXECUTE_INDIRECT:
        walk = ExecuteIndirectWalk(va, f["stride"], f["size"], f["count"], va2, columns)
    else:
        walk = DispatchListWalk(va, f["count"], f["stride"], f["size"], f["pti_offset"], bool(f["hybrid"]),
                                f["num_secondary_offset"], f["secondary_records_offset"], f["secondary_stride"],
                                f["secondary_size"], va2, f["table_stride"], f["slot_count"], f["slot_size"], ids,
                                columns)
    return Plan(walk, f["out_stride"], f["sequence_count"], regions)


class _Memory:
    """The plan's regions as the shader sees them: a VA resolves to (region, offset) by a search over regions."""

    def __init__(self, regions: tuple[tuple[int, bytes], ...]) -> None:
        self.regions = [(base, np.frombuffer(raw, dtype=np.uint8)) for base, raw in regions]
        self.error = 0

    def read(self, va: int, size: int) -> np.ndarray:
        for base, raw in self.regions:
            if base <= va and va + size <= base + len(raw):
                return raw[va - base:va - base + size]
        self.error |= 1
        return np.zeros(size, dtype=np.uint8)

    def rows(self, va: int, count: int, stride: int, size: int) -> np.ndarray:
        """``count`` reads of ``size`` bytes, ``stride`` apart: what ``count`` invocations read."""
        return np.stack([self.read(va + j * stride, size) for j in range(count)]) if count else \
            np.zeros((0, size), dtype=np.uint8)


def _u32(b: np.ndarray, offset: int) -> int:
    return int(b[offset:offset + 4].view("<u4")[0])


def model_walk(plan: Plan) -> tuple[np.ndarray, int]:
    """The shader's two passes on the CPU: ``(sequences (count, out_stride) uint8, error word)``."""
    if isinstance(plan.walk, ExecuteIndirectWalk):
        return _model_execute_indirect(plan, plan.walk)
    w, mem = plan.walk, _Memory(plan.regions)
    # pass 0: the first sequence of every primary record
    records = [mem.read(w.primary_va + k * w.primary_stride, w.primary_size) for k in range(w.primary_count)]
    counts = [(_u32(r, w.num_secondary_offset) if w.hybrid else 1) for r in records]
    first = np.concatenate([[0], np.cumsum(counts, dtype=np.int64)])
    total = int(first[-1])
    out = np.zeros((total, plan.out_stride), dtype=np.uint8)
    ids = {ident: i for i, ident in enumerate(w.identifiers)}
    # pass 1: a workgroup per primary record, an invocation per secondary record
    for k, rec in enumerate(records):
        n = counts[k]
        if n == 0:
            continue
        pti = _u32(rec, w.program_table_index_offset)
        if pti >= w.slot_count:
            mem.error |= 4
        slot_va = w.table_va + pti * w.table_stride
        slot = mem.read(slot_va, w.slot_size)
        set_index = ids.get(slot[:IDENTIFIER_BYTES].tobytes())
        if set_index is None:
            mem.error |= 2
            set_index = 0xFFFFFFFF
        j = np.arange(n, dtype=np.uint64)
        sec_va = int(rec[w.secondary_records_offset:w.secondary_records_offset + 8].view("<u8")[0]) if w.hybrid else 0
        sec = mem.rows(sec_va, n, w.secondary_stride, w.secondary_size) if w.hybrid else None
        rows = out[int(first[k]):int(first[k]) + n]
        vas = {"va:PRIMARY_RECORD_POINTER": np.full(n, w.primary_va + k * w.primary_stride, dtype=np.uint64),
               "va:SECONDARY_RECORD_POINTER": np.uint64(sec_va) + j * np.uint64(w.secondary_stride) if w.hybrid
               else np.zeros(n, dtype=np.uint64),
               # spec "_PROGRAM_TABLE_POINTER": the binding's ProgramTable.StartAddress, not the slot's VA
               "va:PROGRAM_TABLE_POINTER": np.full(n, w.table_va, dtype=np.uint64)}
        for c in w.columns:
            dst = rows[:, c.offset:c.offset + c.size]
            if c.source == "execution_set":
                dst[:] = np.frombuffer(np.uint32(set_index).tobytes(), dtype=np.uint8)
            elif c.source == "constant":
                dst[:] = np.frombuffer(c.constant[:c.size], dtype=np.uint8)
            elif c.source == "secondary_index":
                dst[:] = j.astype("<u4").view(np.uint8).reshape(n, 4)
            elif c.source == "position":
                dst[:] = (int(first[k]) + j).astype("<u4").view(np.uint8).reshape(n, 4)
            elif c.source.startswith("va:"):
                dst[:] = vas[c.source].astype("<u8").view(np.uint8).reshape(n, 8)
            elif c.source == "primary":
                dst[:] = rec[c.field_offset:c.field_offset + c.size]
            elif c.source == "secondary":
                assert sec is not None
                dst[:] = sec[:, c.field_offset:c.field_offset + c.size]
            elif c.source == "table":
                dst[:] = slot[c.field_offset:c.field_offset + c.size]
    return out, mem.error


def _model_execute_indirect(plan: Plan, w: ExecuteIndirectWalk) -> tuple[np.ndarray, int]:
    mem = _Memory(plan.regions)
    # pass 0: the command count
    count = w.max_count
    if w.count_va:
        count = min(count, _u32(mem.read(w.count_va, 4), 0))
    count = min(count, plan.sequence_count)  # never past the buffer the harness sized
    # pass 1: an invocation per command
    records = mem.rows(w.argument_va, count, w.stride, w.record_size)
    out = np.zeros((plan.sequence_count, plan.out_stride), dtype=np.uint8)
    k = np.arange(count, dtype=np.uint64)
    for c in w.columns:
        dst = out[:count, c.offset:c.offset + c.size]
        if c.source == "command":
            dst[:] = records[:, c.field_offset:c.field_offset + c.size]
        elif c.source == "position":
            dst[:] = k.astype("<u4").view(np.uint8).reshape(count, 4)
        elif c.source == "constant":
            dst[:] = np.frombuffer(c.constant[:c.size], dtype=np.uint8)
    return out, mem.error
