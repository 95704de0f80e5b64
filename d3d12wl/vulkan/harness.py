"""From a :class:`~d3d12wl.vulkan.lowered.Lowering` to the GPU harness's case (:func:`prepare_case`), refusing
with the reason every call the harness cannot represent before anything reaches the GPU
(:class:`HarnessRefusal`), and from the reference executor's trace to the records the GPU must write
(:func:`expected_records`), so that ``tools/gpu_check.py`` can hold the executor to what the GPU did, draw by draw.

Two comparisons close the loop:

* :func:`expected_records` (the executor's trace, as columns: :func:`d3d12wl.executor.execution_table.execution_columns`)
  against :func:`d3d12wl.vulkan.case.model_records` (the lowering's sequences, executed as the Vulkan spec says):
  the lowering against the executor, on the CPU (CI runs it);
* the GPU's records against both: the GPU against the lowering and against the executor.

What the harness uploads (:class:`~d3d12wl.vulkan.case.CaseRegion`): the captured bytes every vertex and index
buffer view of the call covers (the command list's and every sequence's), clipped to what the views cover; a
view whose bytes the capture does not hold gets a *stand-in* at its VA (identity indices, or zeros for a vertex
buffer), and a vertex buffer that is a stand-in is bound but not fetched.  A vertex buffer slot is fetched (its
first ``uint32`` per vertex, ``R32_UINT`` at offset 0, per-vertex rate) when every view of it is captured, 4-byte
aligned with a stride of at least 4, and every vertex every draw reads lies inside the view; otherwise it is bound
but not fetched, and :attr:`Prepared.notes` says why.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.vulkan.case import (
    KIND_COMPUTE,
    KIND_MESH,
    KIND_VERTEX,
    PC_BLOCK_BYTES,
    RECORD_HEADER,
    RECORDS_PER_CHUNK,
    REGION_CAPTURED,
    REGION_IDENTITY,
    REGION_ZEROS,
    Case,
    CaseLayout,
    CaseRegion,
    CaseToken,
    Model,
    case_memory,
    chunk_ranges,
    join,
    layout_state,
)
from d3d12wl.vulkan.fetch import ATTRIBUTE_BYTES, Draws, Memory, fetch_fields, index_extents, index_sizes
from d3d12wl.vulkan.lowered import Lowering, LoweringError
from d3d12wl.vulkan.vk import TokenType

__all__ = ["HarnessRefusal", "Prepared", "case_of", "expected_chunks", "expected_records", "prepare_case"]

#: the push-constant bytes a layout may use: the shaders' block less the sequence-base DWORD
MAX_PUSH_CONSTANTS = PC_BLOCK_BYTES - 4
#: stand-ins (views whose bytes the capture does not hold) the harness makes, in all
MAX_STAND_IN_BYTES = 1 << 30
#: the records one case writes: the recording shaders index them with 32-bit DWORD offsets
MAX_RECORD_BYTES = (1 << 32) - 4
#: the vertex buffer slots D3D12 has (D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT), which the recording shader can fetch
VERTEX_SLOTS = 32


class HarnessRefusal(LoweringError):
    """The call is lowered, but the GPU harness cannot represent it: the message says why.  Raised before anything
    reaches the GPU."""


@dataclass
class Prepared:
    """A case and what the comparison needs besides it: the program names (the records' program field indexes
    them), per record the index of its execution in the executor's trace, the stand-in regions, and notes (what
    is fetched, what stands in for what)."""

    case: Case
    programs: tuple[str, ...]
    positions: np.ndarray
    notes: tuple[str, ...]

    @property
    def stand_ins(self) -> list[CaseRegion]:
        return [r for r in self.case.regions if r.kind != REGION_CAPTURED]


def _kind(lowering: Lowering) -> int:
    assert lowering.layout is not None
    action = lowering.layout.action.type
    if action is TokenType.DRAW_MESH_TASKS:
        return KIND_MESH
    return KIND_COMPUTE if action is TokenType.DISPATCH else KIND_VERTEX


def _formats() -> tuple[int, int]:
    return abi.enum_value("DXGI_FORMAT", "R16_UINT"), abi.enum_value("DXGI_FORMAT", "R32_UINT")


def prepare_case(lowering: Lowering, memory: GpuMemory) -> Prepared:
    """The harness case of a lowering made with ``sequence_index=True`` over the capture's ``memory``.  Raises
    :class:`HarnessRefusal` naming why for a call the harness cannot represent."""
    if not lowering.lowered:
        raise HarnessRefusal("not lowered: " + "; ".join(f"{n.what}: {n.reason}" for n in lowering.not_lowered))
    leaves = lowering.leaves()
    programs: dict[str, int] = {}
    layouts: list[CaseLayout] = []
    executes: list[tuple[int, int, int, int]] = []
    vbs: dict[int, Any] = {}
    ib = None
    base = 0
    for li, leaf in enumerate(leaves):
        lay = leaf.layout
        assert lay is not None
        seq_ranges = [r for r in lay.push_constants if r.kind == "sequence_index"]
        if not seq_ranges:
            raise LoweringError("the harness needs the lowering's sequence-index slot (lower(..., "
                                "sequence_index=True))")
        if lay.push_constant_size > MAX_PUSH_CONSTANTS:
            raise HarnessRefusal(f"{leaf.call}: a push-constant block of {lay.push_constant_size} bytes: the "
                                 f"recording shaders take {MAX_PUSH_CONSTANTS}")
        for name in leaf.execution_set:
            programs.setdefault(name, len(programs))
        tokens = tuple(CaseToken(int(t.type), t.offset, t.size, t.push_offset or 0, t.push_size or 0,
                                 t.vertex_binding_unit or 0, int(t.index_mode or 0)) for t in lay.tokens)
        layouts.append(CaseLayout(_kind(leaf), tokens, tuple(programs[n] for n in leaf.execution_set),
                                  lay.push_constant_size, seq_ranges[0].offset // 4, leaf.initial_push_constants,
                                  leaf.sequences, base))
        executes.extend((li, first, count, base + first) for first, count in leaf.chunks if count)
        for slot, v in leaf.vertex_buffers:
            vbs[slot] = v
        ib = leaf.index_buffer or ib
        base += leaf.count
    max_pc = max((lay.push_constant_size for lay in layouts), default=0)
    if base * (RECORD_HEADER + max_pc // 4) * 4 > MAX_RECORD_BYTES:
        raise HarnessRefusal(f"{base} records of {RECORD_HEADER + max_pc // 4} DWORDs: more than the "
                             f"{MAX_RECORD_BYTES} bytes the recording shaders index (32-bit)")
    r16, r32 = _formats()
    case = Case(layouts, executes, len(programs), RECORD_HEADER + max_pc // 4,
                abi.offsetof("D3D12_VERTEX_BUFFER_VIEW", "SizeInBytes"),
                abi.offsetof("D3D12_VERTEX_BUFFER_VIEW", "StrideInBytes"),
                abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "SizeInBytes"),
                abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "Format"), r16, r32,
                [(slot, v.BufferLocation, v.SizeInBytes, v.StrideInBytes) for slot, v in sorted(vbs.items())],
                None if ib is None else (ib.BufferLocation, ib.SizeInBytes, ib.Format))
    notes: list[str] = []
    draws = {li: st.draws for li in range(len(layouts)) if (st := layout_state(case, li)).draws is not None}
    case.regions, _ = _regions(draws, memory, notes)
    case.fetch_mask, robust = _fetch(case, draws, notes)
    case.robust = int(robust)
    positions = np.concatenate([leaf.positions for leaf in leaves if leaf.positions is not None]) if leaves else \
        np.zeros(0, dtype=np.int64)
    return Prepared(case, tuple(programs), positions.astype(np.int64), tuple(notes))


def case_of(lowering: Lowering, memory: GpuMemory) -> Case:
    """The harness case of a lowering made with ``sequence_index=True`` (:func:`prepare_case`)."""
    return prepare_case(lowering, memory).case


def _views(draws: Mapping[int, Draws]) -> tuple[list[tuple[str, np.ndarray, np.ndarray]], set[tuple[int, int]]]:
    """Every view the GPU is handed: ("vertex buffer slot s" / "index buffer", locations, sizes), and the index
    buffer intervals (which a stand-in must fill with indices)."""
    out: list[tuple[str, np.ndarray, np.ndarray]] = []
    index_views: set[tuple[int, int]] = set()
    for d in draws.values():
        for slot, (loc, size, _) in sorted(d.vbs.items()):
            out.append((f"vertex buffer slot {slot}", loc.astype(np.uint64), size.astype(np.uint64)))
        if d.indexed and d.ib is not None:
            loc, size, _ = d.ib
            out.append(("index buffer", loc.astype(np.uint64), size.astype(np.uint64)))
            pairs = np.unique(np.stack([loc.astype(np.uint64), size.astype(np.uint64)]), axis=1)
            index_views.update((int(a), int(b)) for a, b in pairs.T)
    return out, index_views


def _regions(draws: Mapping[int, Draws], memory: GpuMemory, notes: list[str]
             ) -> tuple[list[CaseRegion], set[tuple[int, int]]]:
    """The regions to upload: the captured bytes the views cover (one piece per captured region), and stand-ins
    for views the capture holds no byte of.  A null view (``BufferLocation`` 0) needs none: the harness binds it as
    an empty range, which reads 0 (D3D11.3 8.20).  A view only partly captured is refused."""
    views, index_views = _views(draws)
    captured = sorted(memory.regions, key=lambda r: r.base)
    cap_mem = Memory([(r.base, np.frombuffer(r.data, dtype=np.uint8)) for r in captured])
    need: dict[int, list[int]] = {}  # captured region -> [lo, hi)
    outside: list[tuple[int, int]] = []
    for what, loc, size in views:
        if not len(loc):
            continue
        pairs = np.unique(np.stack([loc, size]), axis=1)
        loc, size = pairs[0][pairs[0] != 0], pairs[1][pairs[0] != 0]  # a null view reads 0: no memory behind it
        where = cap_mem.locate(loc, np.maximum(size, 1))
        for r in np.unique(where[where >= 0]).tolist():
            m = where == r
            lo, hi = int(loc[m].min()), int((loc[m] + np.maximum(size[m], 1)).max())
            got = need.setdefault(r, [lo, hi])
            got[0], got[1] = min(got[0], lo), max(got[1], hi)
        out_loc, out_size = loc[where < 0], size[where < 0]
        # a view the capture holds none of needs a stand-in; one it holds some of (at either end or in the middle)
        # is refused: a stand-in there would hide captured bytes the executor's side reads
        last = out_loc + (np.maximum(out_size, 1) - np.uint64(1))
        wraps = last < out_loc
        r = np.searchsorted(cap_mem.bases, last, side="right").astype(np.int64) - 1
        partly = ~wraps & (r >= 0) & (cap_mem.lasts[np.maximum(r, 0)] >= out_loc) if len(cap_mem.bases) else wraps
        for k in np.flatnonzero(wraps | partly)[:1].tolist():
            a, n = int(out_loc[k]), int(out_size[k])
            raise HarnessRefusal(f"a {what} view 0x{a:x} + {n} bytes " +
                                 ("runs past the top of the GPU virtual address space" if wraps[k] else
                                  "is only partly in the capture's memory"))
        outside.extend((a, a + max(n, 4)) for a, n in zip(out_loc.tolist(), out_size.tolist(), strict=True))
    regions = [CaseRegion(lo, hi - lo, REGION_CAPTURED,
                          bytes(captured[r].data[lo - captured[r].base:hi - captured[r].base]))
               for r, (lo, hi) in sorted(need.items())]
    merged: list[list[int]] = []
    for lo, hi in sorted(outside):
        if merged and lo <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], hi)
        else:
            merged.append([lo, hi])
    total = sum(hi - lo for lo, hi in merged)
    if total > MAX_STAND_IN_BYTES:
        raise HarnessRefusal(f"{total} bytes of vertex and index buffers are not in the capture: more than the "
                             f"{MAX_STAND_IN_BYTES} bytes the harness stands in")
    for lo, hi in merged:
        identity = any(lo <= a < hi for a, _ in index_views)
        kind = REGION_IDENTITY if identity else REGION_ZEROS
        regions.append(CaseRegion(lo, hi - lo, kind))
        notes.append(f"0x{lo:x} + {hi - lo} bytes are not in the capture: a stand-in of "
                     f"{'identity indices' if identity else 'zeros'}")
    return sorted(regions, key=lambda r: r.base), index_views


def _fetch(case: Case, draws: Mapping[int, Draws], notes: list[str]) -> tuple[int, bool]:
    """Check every live indexed draw's index buffer, decide which vertex buffer slots the recording shader fetches
    (the fetch mask), from each draw's first and last vertex (its index range for an indexed draw, streamed in
    bounded memory: :func:`d3d12wl.vulkan.fetch.index_extents`), and whether any read the GPU makes falls past its
    view or through a null one (the case then needs robustBufferAccess2: reads there return 0, as in D3D12)."""
    memory = case_memory(case)
    standin = [(r.base, r.base + r.size) for r in case.regions if r.kind != REGION_CAPTURED]
    ok_slots: dict[int, str | None] = {}
    outside: dict[int, bool] = {}
    robust = False
    for li, d in draws.items():
        live = d.live
        if d.indexed:
            assert d.ib is not None
            loc, size, fmt = d.ib
            esize = index_sizes(fmt, case.r16_format, case.r32_format)
            bad = live & (esize == 0) & (loc != 0)  # a null view's Format is never read: every index is 0
            if bad.any():
                k = int(np.argmax(bad))
                raise HarnessRefusal(f"layout {li} sequence {k}: index buffer Format {int(fmt[k])} is neither "
                                     "R16_UINT nor R32_UINT")
            misaligned = (esize > 0) & (loc % np.maximum(esize, 1).astype(np.uint64) != 0)
            if misaligned.any():
                k = int(np.argmax(misaligned))
                raise HarnessRefusal(f"layout {li} sequence {k}: index buffer 0x{int(loc[k]):x} is not aligned to "
                                     f"its {int(esize[k])}-byte indices (Vulkan binds index buffers at multiples of "
                                     "the index size)")
            end = (d.first.astype(np.uint64) + d.count.astype(np.uint64)) * esize.astype(np.uint64)
            wraps = live & (loc != 0) & (end > np.uint64(ADDRESS_LIMIT))
            if wraps.any():
                k = int(np.argmax(wraps))
                raise HarnessRefusal(f"layout {li} sequence {k}: its indices {int(d.first[k])}.."
                                     f"{int(d.first[k]) + int(d.count[k]) - 1} reach byte {int(end[k]) - 1} of the "
                                     "index buffer view, past 2^32: D3D12 computes the index address in 32 bits "
                                     "(D3D11.3 8.19.1, 8.6.1), which wraps into the view; Vulkan's does not")
            robust |= bool((live & ((loc == 0) | (end > size))).any())  # index 0 there (D3D11.3 8.19.2, 8.20)
        if not d.vbs:
            continue
        if d.indexed:
            low, high = index_extents(d, memory, case.r16_format, case.r32_format)
            first = d.base_vertex + low.astype(np.int64)
            last = d.base_vertex + high.astype(np.int64)
        else:
            first = d.first.astype(np.int64)
            last = first + d.count.astype(np.int64) - 1
        for slot, (loc, size, stride) in sorted(d.vbs.items()):
            if ok_slots.get(slot) is not None:  # already not fetched
                continue
            ok_slots[slot], past = _fetch_problem(slot, loc[live], size[live], stride[live], first[live], last[live],
                                                  standin)
            outside[slot] = outside.get(slot, False) or past
    mask = 0
    for slot, why in sorted(ok_slots.items()):
        if why is None:
            mask |= 1 << slot
            robust |= outside[slot]
            notes.append(f"vertex buffer slot {slot}: fetched (R32_UINT at offset 0 of every vertex" +
                         ("; some vertices past the view or through a null view read 0)" if outside[slot] else ")"))
        else:
            notes.append(f"vertex buffer slot {slot}: bound, not fetched: {why}")
    if robust:
        notes.append("reads past a view or through a null view (D3D12 reads 0: D3D11.3 8.19.2, 8.20): run with "
                     "robustBufferAccess2")
    return mask, robust


#: the input assembler computes vertex addresses in 32-bit unsigned arithmetic (D3D11.3 8.19.1): a fetched vertex
#: must lie below this byte offset, where Vulkan's 64-bit address arithmetic agrees with it
ADDRESS_LIMIT = 1 << 32


def _fetch_problem(slot: int, loc: np.ndarray, size: np.ndarray, stride: np.ndarray, first: np.ndarray,
                   last: np.ndarray, standin: list[tuple[int, int]]) -> tuple[str | None, bool]:
    """Why the recording shader cannot fetch ``slot`` for these live draws (their views and their first and last
    vertex), or None; and whether some fetched vertex lies past its view or behind a null one (it reads 0)."""
    if slot >= VERTEX_SLOTS:
        return f"the recording shader fetches slots 0-{VERTEX_SLOTS - 1}", False
    for lo, hi in standin:
        if ((loc >= np.uint64(lo)) & (loc < np.uint64(hi))).any():
            return "its bytes are not in the capture (a stand-in)", False
    null = loc == 0  # a null view reads 0 whatever its stride (D3D11.3 8.20)
    if ((loc % np.uint64(4) != 0) | ((stride % np.uint64(4) != 0) | (stride < np.uint64(ATTRIBUTE_BYTES))) & ~null).any():
        return "a view is not 4-byte aligned or its stride is below 4 (a 4-byte attribute per vertex)", False
    s = stride.astype(np.int64)
    if (first < 0).any():
        k = int(np.argmax(first < 0))
        return (f"a draw reads vertex {int(first[k])} (BaseVertexLocation + index below 0: D3D12 wraps it to an "
                "unsigned address past the view, Vulkan's signed vertex offset does not)"), False
    if (last * s + ATTRIBUTE_BYTES > ADDRESS_LIMIT).any():
        k = int(np.argmax(last * s + ATTRIBUTE_BYTES > ADDRESS_LIMIT))
        return (f"a draw reads vertex {int(last[k])} at a byte offset past 2^32 (D3D12 computes it in 32 bits, "
                "D3D11.3 8.19.1; Vulkan does not)"), False
    # Vulkan may bound a vertex read by the view's size rounded down to the stride ("Robust Buffer Access"): a read
    # of the last, partial vertex that D3D12 makes inside the view is then not defined to match
    whole = size.astype(np.int64) // s * s
    partial = ~null & (size.astype(np.int64) - whole >= ATTRIBUTE_BYTES) & (first * s <= whole) & (last * s >= whole)
    if partial.any():
        k = int(np.argmax(partial))
        return (f"a draw reads the partial last vertex of its view ({int(size[k])} bytes at a stride of "
                f"{int(stride[k])}), which Vulkan may count as out of bounds"), False
    past = null | (last * s + ATTRIBUTE_BYTES > size.astype(np.int64))
    return None, bool(past.any())


# ----------------------------------------------------------------------------------------------------------------
# The executor's side
# ----------------------------------------------------------------------------------------------------------------

_TRIGGER_FIELDS = {
    "DRAW": ("VertexCountPerInstance", "InstanceCount", "StartVertexLocation", "StartInstanceLocation"),
    "DRAW_INDEXED": ("IndexCountPerInstance", "InstanceCount", "StartIndexLocation", "BaseVertexLocation",
                     "StartInstanceLocation"),
    "DISPATCH": ("ThreadGroupCountX", "ThreadGroupCountY", "ThreadGroupCountZ"),
    "FIXED_DISPATCH": ("ThreadGroupCountX", "ThreadGroupCountY", "ThreadGroupCountZ"),
    "DISPATCH_MESH": ("ThreadGroupCountX", "ThreadGroupCountY", "ThreadGroupCountZ"),
}


def _col(cols: Mapping[str, np.ndarray], key: str, rows: np.ndarray, fill: int = 0) -> np.ndarray:
    c = cols.get(key)
    if c is None:
        return np.full(len(rows), fill, dtype=np.int64)
    return c[rows]


#: executions whose columns are built at a time for one chunk of records, at most (a chunk whose executions lie
#: further apart, records of one signature among a list of several, is built in pieces)
EXECUTION_WINDOW = 4 * RECORDS_PER_CHUNK


def expected_chunks(executions: Any, lowering: Lowering, prepared: Prepared, memory: GpuMemory,
                    chunk: int = RECORDS_PER_CHUNK) -> Iterator[tuple[int, Model]]:
    """:func:`expected_records` chunk by chunk (:func:`~d3d12wl.vulkan.case.chunk_ranges`), from the executor's
    executions (a trace's ``executions``) made columns a window at a time
    (:func:`d3d12wl.executor.columnar.execution_columns`): ``(first record, Model)``."""
    from d3d12wl.executor.execution_table import execution_columns  # the executor's columns, only where they are needed

    case = prepared.case
    mem = _memory_of(memory, prepared)
    leaves = lowering.leaves()
    for li, a, b, first in chunk_ranges([lay.count for lay in case.layouts], chunk):
        positions = leaves[li].positions
        assert positions is not None
        pieces = []
        s = a
        while s < b:  # positions rise within a leaf: cut where the executions would span more than the window
            e = max(s + 1, min(b, int(np.searchsorted(positions, positions[s] + EXECUTION_WINDOW, side="left"))))
            lo, hi = int(positions[s]), int(positions[e - 1]) + 1
            pieces.append(_expected_slice(execution_columns(executions, lo, hi), positions[s:e] - lo, leaves[li], li,
                                          s, e, prepared, mem))
            s = e
        yield first, pieces[0] if len(pieces) == 1 else Model(np.concatenate([p.records for p in pieces]),
                                                              np.concatenate([p.invocations_min for p in pieces]))


def expected_records(columns: Any, lowering: Lowering, prepared: Prepared, memory: GpuMemory) -> Model:
    """The records the GPU must write, from the executor's trace alone (``columns``: its executions as
    :class:`~d3d12wl.executor.execution_table.ExecutionColumns`): per execution its program, every resolved root argument
    at its place in the push-constant block, its draw or dispatch arguments, and (draws) what it fetches through
    the vertex and index buffer views the trace says it reads, over the capture's ``memory`` (and the case's
    stand-ins).  The lowering gives only the places (the layouts) and which execution each record is
    (:attr:`Prepared.positions`), never the values.  Whole, for small calls (:func:`expected_chunks` streams)."""
    case = prepared.case
    mem = _memory_of(memory, prepared)
    leaves = lowering.leaves()
    chunks = []
    for li, a, b, first in chunk_ranges([lay.count for lay in case.layouts]):
        positions = leaves[li].positions
        assert positions is not None
        chunks.append((first, _expected_slice(columns, positions[a:b], leaves[li], li, a, b, prepared, mem)))
    return join(chunks, case.count, case.record_dwords)


def _memory_of(memory: GpuMemory, prepared: Prepared) -> Memory:
    return Memory([(r.base, np.frombuffer(r.data, dtype=np.uint8)) for r in memory.regions] +
                  [(r.base, r.bytes()) for r in prepared.stand_ins])


def _expected_slice(columns: Any, rows: np.ndarray, leaf: Lowering, li: int, a: int, b: int, prepared: Prepared,
                    mem: Memory) -> Model:
    """The records of sequences ``a .. b - 1`` of leaf ``li``, whose executions are ``rows`` of ``columns``."""
    case = prepared.case
    cols, names = columns.columns, columns.names
    lay, clay = leaf.layout, case.layouts[li]
    assert lay is not None
    n = b - a
    rec = np.zeros((n, case.record_dwords), dtype=np.uint32)
    if not n:
        return Model(rec, np.zeros(0, dtype=np.uint32))
    program_index = np.array([prepared.programs.index(p) if p in prepared.programs else 0 for p in names["program"]]
                             + [0], dtype=np.uint32)  # code -1 (no program: ExecuteIndirect) -> 0
    trigger = names["trigger"][int(cols["trigger"][rows[0]])]
    f = [_col(cols, f"trigger.{m}", rows).astype(np.int64) for m in _TRIGGER_FIELDS[trigger]]
    d: Draws | None = None
    if trigger == "DRAW":
        vc, ic, fv, fi = f
        inv = vc * ic
        rec[:, 4], rec[:, 5], rec[:, 7] = fv, fi, ic
        d = Draws(False, vc, ic, fv, fv, None, _vertex_views(cols, rows))
    elif trigger == "DRAW_INDEXED":
        nidx, ic, first, bv, fi = f
        inv = nidx * ic
        rec[:, 4], rec[:, 5], rec[:, 7] = bv & 0xFFFFFFFF, fi, ic
        loc, size, fmt = (_col(cols, f"ia.ib.{m}", rows).astype(np.uint64)
                          for m in ("BufferLocation", "SizeInBytes", "Format"))
        d = Draws(True, nidx, ic, first, bv, (loc, size, fmt), _vertex_views(cols, rows))
    else:
        x, y, z = f
        inv = x * y * z
        rec[:, 4], rec[:, 5], rec[:, 6] = x, y, z
    least = inv.astype(np.uint64)
    if d is not None and clay.kind == KIND_VERTEX:
        ff = fetch_fields(d, mem, case.fetch_mask, case.r16_format, case.r32_format)
        rec[:, 6], rec[:, 8] = ff["span"], ff["first"]
        rec[:, 9:13], rec[:, 13:15] = ff["vbloom"], ff["ibloom"]
        least = ff["invocations_min"].astype(np.uint64)
    rec[:, 0] = inv.astype(np.uint32)
    rec[:, 1] = program_index[cols["program"][rows]]
    rec[:, 2] = np.arange(clay.record_base + a, clay.record_base + b, dtype=np.uint32)
    within = np.zeros(n, dtype=np.uint32)
    for first_seq, count in leaf.chunks:
        lo, hi = max(first_seq, a), min(first_seq + count, b)
        if lo < hi:
            within[lo - a:hi - a] = np.arange(lo - first_seq, hi - first_seq, dtype=np.uint32)
    pc = rec[:, RECORD_HEADER:]
    for r in lay.push_constants:
        dword = r.offset // 4
        tag = f"root.{'G' if r.binding == 'global' else 'L'}{r.parameter}"
        if r.kind == "sequence_index":
            pc[:, dword] = within
        elif r.kind == "constants":
            for k in range(r.size // 4):
                v = _col(cols, f"{tag}[{k}]", rows, -1)
                pc[:, dword + k] = np.where(v < 0, 0, v).astype(np.uint32)  # unset: what the harness pushes, 0
        else:  # a root view's VA, a descriptor table's handle
            v = _col(cols, tag, rows).astype(np.uint64)
            pc[:, dword] = (v & np.uint64(0xFFFFFFFF)).astype(np.uint32)
            pc[:, dword + 1] = (v >> np.uint64(32)).astype(np.uint32)
    rec[inv == 0] = 0
    return Model(rec, np.where(inv == 0, 0, least).astype(np.uint32))


def _vertex_views(cols: Mapping[str, np.ndarray], rows: np.ndarray
                  ) -> dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The vertex buffer views the trace says each execution reads (``ia.vb<slot>.*`` columns)."""
    out: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}
    for key in cols:
        if key.startswith("ia.vb") and key.endswith(".BufferLocation"):
            slot = int(key[len("ia.vb"):-len(".BufferLocation")])
            loc, size, stride = (cols[f"ia.vb{slot}.{m}"][rows].astype(np.uint64)
                                 for m in ("BufferLocation", "SizeInBytes", "StrideInBytes"))
            out[slot] = (loc, size, stride)
    return out
