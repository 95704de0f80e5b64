"""The GPU harness's input file (a *case*: one captured call), the CPU model of what its recording shaders write,
and the comparison of two record tables.  This module needs numpy and :mod:`d3d12wl.vulkan.vk` only, so that it
also runs on the GPU machine (which has numpy but not the rest of the package):
``python -m d3d12wl.vulkan.case check CASE.bin RECORDS.bin OUT.json``.

A case holds one or more *layouts* (indirect-commands layouts, each with its sequences: one per leaf of the
lowering), the *executes* they run as (in order: layout, first sequence, count, first record), the command list's
vertex and index buffers, and the *regions* of memory the harness uploads: the captured bytes the draws' vertex
and index buffer views cover, and stand-ins for views whose bytes the capture does not hold (identity indices:
the ``uint32`` at offset ``4 m`` of the region is ``m``; or zeros), which the harness makes itself.  Every address
the harness hands the GPU is a view inside one of them, or a null view (``BufferLocation`` 0) that it binds as an
empty range (``tools/gpu/harness.c`` checks it and exits 2 naming the first that is neither).

The file, little endian: a header of :data:`HEADER_DWORDS` uint32 (``magic`` 'DGC1', ``version`` 4, then the
counts and facts named in :data:`HEADER_FIELDS`), then ``layout_count`` layouts of :data:`LAYOUT_DWORDS`
(:data:`LAYOUT_FIELDS`), all tokens of :data:`TOKEN_DWORDS` (``type``, ``offset``, ``size``, ``push_offset``,
``push_size``, ``vertex_binding_unit``, ``index_mode``, 0), the execution sets' entries (one uint32 each: the
program's index in the case's program list), the executes of :data:`EXECUTE_DWORDS`, the inherited vertex buffers
of :data:`VIEW_DWORDS` (slot, BufferLocation as two uint32, SizeInBytes, StrideInBytes), the inherited index buffer
(one :data:`VIEW_DWORDS` entry when ``inherited_ib``: 0, BufferLocation, SizeInBytes, Format), the regions of
:data:`REGION_DWORDS` (base, size, data offset as two uint32 each, ``kind``), then the initial push constants of
every layout, the sequences of every layout, and the captured regions' bytes (each padded to 4).

A record (one per sequence, ``RECORD_HEADER + max push-constant DWORDs`` uint32; ``tools/gpu/record.vert``,
``record.comp``, ``record.mesh``): 0 invocations, 1 program, 2 record index (the execute's first record + the
sequence index), 3 gl_DrawID, 4 gl_BaseVertex (compute, mesh: workgroups X), 5 gl_BaseInstance (Y), 6 max fetched
vertex index + 1 (Z), 7 instance count, 8 ``0xFFFFFFFF`` - min fetched vertex index, 9-12 a 128-bit bloom of the
vertex attributes fetched ((slot, vertex, value) hashed, :func:`~d3d12wl.vulkan.fetch.bloom_vertex`), 13-14 a 64-bit bloom of the
fetched vertex indices (``gl_VertexIndex - gl_BaseVertex``: the index value of an indexed draw), 15 zero, then
the push constants.  A sequence whose draw or dispatch runs no invocation writes nothing: its record stays zero.
An indexed draw may reuse a vertex shader invocation for a repeated index (Vulkan "Vertex Shader Execution"), so
its invocation count is compared as a range (:attr:`Model.invocations_min`).
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl.vulkan.fetch import Draws, Memory, fetch_fields
from d3d12wl.vulkan.vk import TokenType

__all__ = ["MAGIC", "RECORD_HEADER", "Case", "CaseLayout", "CaseRegion", "CaseToken", "Model", "compare_records",
           "digest", "model_records", "read_case", "write_case"]

MAGIC = 0x31434744  # b"DGC1"
VERSION = 4
HEADER_DWORDS = 32
HEADER_FIELDS = ("magic", "version", "layout_count", "execute_count", "region_count", "program_count",
                 "record_dwords", "record_count", "inherited_vb_count", "inherited_ib", "vbv_size_offset",
                 "vbv_stride_offset", "ibv_size_offset", "ibv_format_offset", "r16_format", "r32_format",
                 "fetch_mask", "token_count", "set_entries", "robust")
LAYOUT_DWORDS = 16
LAYOUT_FIELDS = ("kind", "set_size", "stride", "token_first", "token_count", "push_constant_size", "seq_dword",
                 "count", "set_first", "initial_pc_offset", "seq_offset_lo", "seq_offset_hi", "record_base")
TOKEN_DWORDS = 8
EXECUTE_DWORDS = 4
VIEW_DWORDS = 8
REGION_DWORDS = 8
RECORD_HEADER = 16
#: layout kinds: the pipelines of its execution set (record.vert, record.comp, record.mesh)
KIND_VERTEX, KIND_COMPUTE, KIND_MESH = 0, 1, 2
#: region kinds: captured bytes (in the file), stand-in identity indices, stand-in zeros (made by the harness)
REGION_CAPTURED, REGION_IDENTITY, REGION_ZEROS = 0, 1, 2
#: record DWORDs compared: all but gl_DrawID (3), which the executor has no counterpart of (each sequence is its own
#: draw)
FIELD_NAMES = ("invocations", "program", "record", "draw_id", "base_vertex_or_x", "base_instance_or_y",
               "vertex_span_or_z", "instances", "first_vertex_offset", "vertex_bloom0", "vertex_bloom1",
               "vertex_bloom2", "vertex_bloom3", "index_bloom0", "index_bloom1")
NOT_COMPARED = (3,)
#: the push-constant DWORD the shaders add to the sequence index: the execute's first record
SEQUENCE_BASE_DWORD = 63
#: the shaders' push-constant block (64 DWORDs, the last one the sequence base)
PC_BLOCK_BYTES = 256


@dataclass(frozen=True)
class CaseToken:
    type: int
    offset: int
    size: int
    push_offset: int = 0
    push_size: int = 0
    vertex_binding_unit: int = 0
    index_mode: int = 0


@dataclass
class CaseLayout:
    """One indirect-commands layout and its sequences."""

    kind: int
    tokens: tuple[CaseToken, ...]
    programs: tuple[int, ...]  # the execution set: each entry's index in the case's program list
    push_constant_size: int
    seq_dword: int
    initial_push_constants: bytes
    sequences: np.ndarray  # (count, stride) uint8
    record_base: int = 0

    @property
    def stride(self) -> int:
        return int(self.sequences.shape[1])

    @property
    def count(self) -> int:
        return int(self.sequences.shape[0])


@dataclass(frozen=True)
class CaseRegion:
    """Memory the harness uploads at ``base``: ``data`` (captured bytes) or a stand-in of ``size`` bytes."""

    base: int
    size: int
    kind: int = REGION_CAPTURED
    data: bytes = b""

    def bytes(self) -> np.ndarray:
        if self.kind == REGION_CAPTURED:
            return np.frombuffer(self.data, dtype=np.uint8)
        if self.kind == REGION_IDENTITY:
            words = np.arange(-(-self.size // 4), dtype="<u4")
            return words.view(np.uint8)[:self.size]
        return np.zeros(self.size, dtype=np.uint8)


@dataclass
class Case:
    layouts: list[CaseLayout]
    executes: list[tuple[int, int, int, int]]  # (layout, first sequence, count, first record)
    program_count: int
    record_dwords: int
    vbv_size_offset: int
    vbv_stride_offset: int
    ibv_size_offset: int
    ibv_format_offset: int
    r16_format: int
    r32_format: int
    vertex_buffers: list[tuple[int, int, int, int]] = field(default_factory=list)  # slot, location, size, stride
    index_buffer: tuple[int, int, int] | None = None  # location, size, format
    regions: list[CaseRegion] = field(default_factory=list)
    fetch_mask: int = 0
    #: 1 when a draw reads past a view or through a null view (D3D12 reads 0 there: D3D11.3 8.19.2, 8.20), which the
    #: harness runs with robustBufferAccess2 (and refuses on a device without it)
    robust: int = 0

    @property
    def count(self) -> int:
        return sum(lay.count for lay in self.layouts)

    def pieces(self) -> Iterator[bytes | memoryview]:
        """The case file's bytes, piece by piece (each layout's sequences as a view of them, not a copy)."""
        header = np.zeros(HEADER_DWORDS, dtype="<u4")
        tokens = [t for lay in self.layouts for t in lay.tokens]
        entries = [p for lay in self.layouts for p in lay.programs]
        values = {"magic": MAGIC, "version": VERSION, "layout_count": len(self.layouts),
                  "execute_count": len(self.executes), "region_count": len(self.regions),
                  "program_count": self.program_count, "record_dwords": self.record_dwords,
                  "record_count": self.count, "inherited_vb_count": len(self.vertex_buffers),
                  "inherited_ib": int(self.index_buffer is not None), "vbv_size_offset": self.vbv_size_offset,
                  "vbv_stride_offset": self.vbv_stride_offset, "ibv_size_offset": self.ibv_size_offset,
                  "ibv_format_offset": self.ibv_format_offset, "r16_format": self.r16_format,
                  "r32_format": self.r32_format, "fetch_mask": self.fetch_mask, "token_count": len(tokens),
                  "robust": self.robust,
                  "set_entries": len(entries)}
        header[:len(HEADER_FIELDS)] = [values[k] for k in HEADER_FIELDS]
        lays = np.zeros((len(self.layouts), LAYOUT_DWORDS), dtype="<u4")
        token_first = set_first = pc_offset = seq_offset = 0
        for k, lay in enumerate(self.layouts):
            lays[k, :len(LAYOUT_FIELDS)] = [lay.kind, len(lay.programs), lay.stride, token_first, len(lay.tokens),
                                            lay.push_constant_size, lay.seq_dword, lay.count, set_first, pc_offset,
                                            seq_offset & 0xFFFFFFFF, seq_offset >> 32, lay.record_base]
            token_first += len(lay.tokens)
            set_first += len(lay.programs)
            pc_offset += lay.push_constant_size
            seq_offset += lay.count * lay.stride
        toks = np.array([[t.type, t.offset, t.size, t.push_offset, t.push_size, t.vertex_binding_unit,
                          t.index_mode, 0] for t in tokens], dtype="<u4").reshape(-1, TOKEN_DWORDS)
        execs = np.array(self.executes, dtype="<u4").reshape(-1, EXECUTE_DWORDS)
        views = np.zeros((len(self.vertex_buffers) + (self.index_buffer is not None), VIEW_DWORDS), dtype="<u4")
        for k, (slot, loc, size, stride) in enumerate(self.vertex_buffers):
            views[k, :5] = [slot, loc & 0xFFFFFFFF, loc >> 32, size, stride]
        if self.index_buffer is not None:
            loc, size, fmt = self.index_buffer
            views[-1, :5] = [0, loc & 0xFFFFFFFF, loc >> 32, size, fmt]
        regs = np.zeros((len(self.regions), REGION_DWORDS), dtype="<u4")
        off = 0
        for k, r in enumerate(self.regions):
            regs[k, :7] = [r.base & 0xFFFFFFFF, r.base >> 32, r.size & 0xFFFFFFFF, r.size >> 32, off & 0xFFFFFFFF,
                           off >> 32, r.kind]
            if r.kind == REGION_CAPTURED:
                assert len(r.data) == r.size
                off += r.size + -r.size % 4
        for lay in self.layouts:
            assert len(lay.initial_push_constants) == lay.push_constant_size
        yield from (header.tobytes(), lays.tobytes(), toks.tobytes(), np.array(entries, dtype="<u4").tobytes(),
                    execs.tobytes(), views.tobytes(), regs.tobytes())
        yield from (lay.initial_push_constants for lay in self.layouts)
        for lay in self.layouts:
            yield np.ascontiguousarray(lay.sequences, dtype=np.uint8).reshape(-1).data
        for r in self.regions:
            if r.kind == REGION_CAPTURED:
                yield r.data + bytes(-r.size % 4)

    def to_bytes(self) -> bytes:
        return b"".join(self.pieces())

    def sha256(self) -> str:
        """SHA-256 of :meth:`to_bytes`, piece by piece."""
        h = hashlib.sha256()
        for piece in self.pieces():
            h.update(piece)
        return h.hexdigest()



def case_memory(case: Case) -> Memory:
    """The memory the harness uploads for ``case``: its regions, stand-ins made as the harness makes them."""
    return Memory([(r.base, r.bytes()) for r in case.regions])


def write_case(case: Case, path: str | Path) -> Path:
    p = Path(path)
    p.write_bytes(case.to_bytes())
    return p


def read_case(path: str | Path) -> Case:
    return case_from_bytes(Path(path).read_bytes(), str(path))


def case_from_bytes(data: bytes, name: str = "case") -> Case:
    if len(data) < HEADER_DWORDS * 4:
        raise ValueError(f"{name}: {len(data)} bytes, shorter than a case header")
    h = dict(zip(HEADER_FIELDS, (int(x) for x in np.frombuffer(data, dtype="<u4", count=len(HEADER_FIELDS))),
                 strict=True))
    if h["magic"] != MAGIC or h["version"] != VERSION:
        raise ValueError(f"{name}: not a d3d12wl DGC case (version {VERSION})")
    off = HEADER_DWORDS * 4

    def table(n: int, width: int) -> np.ndarray:
        nonlocal off
        t = np.frombuffer(data, dtype="<u4", count=n * width, offset=off).reshape(n, width)
        off += t.nbytes
        return t

    lays = table(h["layout_count"], LAYOUT_DWORDS)
    toks = table(h["token_count"], TOKEN_DWORDS)
    entries = table(h["set_entries"], 1).reshape(-1)
    execs = table(h["execute_count"], EXECUTE_DWORDS)
    views = table(h["inherited_vb_count"] + h["inherited_ib"], VIEW_DWORDS)
    regs = table(h["region_count"], REGION_DWORDS)
    pcs_at = off
    seq_at = pcs_at + int(lays[:, 5].sum())
    data_at = seq_at + sum(int(row[7]) * int(row[2]) for row in lays)
    layouts = []
    for row in lays:
        kind, set_size, stride, t0, tn, pcs, seq_dword, count, s0, pc_off = (int(x) for x in row[:10])
        seq_off = int(row[10]) | int(row[11]) << 32
        seq = np.frombuffer(data, dtype=np.uint8, count=count * stride, offset=seq_at + seq_off).reshape(count, stride)
        tokens = tuple(CaseToken(*(int(x) for x in t[:7])) for t in toks[t0:t0 + tn])
        layouts.append(CaseLayout(kind, tokens, tuple(int(x) for x in entries[s0:s0 + set_size]), pcs, seq_dword,
                                  data[pcs_at + pc_off:pcs_at + pc_off + pcs], seq, int(row[12])))
    regions, end = [], data_at
    for r in regs:
        base, size, at = int(r[0]) | int(r[1]) << 32, int(r[2]) | int(r[3]) << 32, int(r[4]) | int(r[5]) << 32
        kind = int(r[6])
        raw = data[data_at + at:data_at + at + size] if kind == REGION_CAPTURED else b""
        if kind == REGION_CAPTURED:
            end = max(end, data_at + at + size + (-size % 4))
        regions.append(CaseRegion(base, size, kind, raw))
    if end != len(data):
        raise ValueError(f"{name}: {len(data)} bytes, expected {end}")
    vbs = [(int(v[0]), int(v[1]) | int(v[2]) << 32, int(v[3]), int(v[4])) for v in views[:h["inherited_vb_count"]]]
    ib = None
    if h["inherited_ib"]:
        v = views[-1]
        ib = (int(v[1]) | int(v[2]) << 32, int(v[3]), int(v[4]))
    return Case(layouts, [tuple(int(x) for x in e) for e in execs], h["program_count"],  # type: ignore[misc]
                h["record_dwords"], h["vbv_size_offset"], h["vbv_stride_offset"], h["ibv_size_offset"],
                h["ibv_format_offset"], h["r16_format"], h["r32_format"], vbs, ib, regions, h["fetch_mask"],
                h["robust"])


# ----------------------------------------------------------------------------------------------------------------
# The model of the recording shaders
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class Model:
    """What the recording shaders write: ``records`` (record_count, record_dwords) and, per record, the least
    invocation count a correct GPU may report (the records' DWORD 0 is the most)."""

    records: np.ndarray
    invocations_min: np.ndarray


def bound_slots(case: Case, li: int) -> int:
    """The vertex buffer slots a vertex layout binds (a bit per slot): its VERTEX_BUFFER tokens' and the command
    list's (the same rule as ``bound_slots`` in tools/gpu/harness.c)."""
    lay = case.layouts[li]
    if lay.kind != KIND_VERTEX:
        return 0
    mask = 0
    for t in lay.tokens:
        if t.type == TokenType.VERTEX_BUFFER:
            mask |= 1 << t.vertex_binding_unit
    for slot, *_ in case.vertex_buffers:
        mask |= 1 << slot
    return mask


def fetch_masks(case: Case) -> list[int]:
    """Per layout, the vertex buffer slots its vertex shader fetches (0 for a compute or mesh layout): the SPIR-V
    ``record.vert`` is compiled for (``-DFETCH_MASK``)."""
    return [case.fetch_mask & bound_slots(case, li) for li in range(len(case.layouts))]


def _u32(seq: np.ndarray, offset: int, k: int = 1) -> np.ndarray:
    return np.ascontiguousarray(seq[:, offset:offset + 4 * k]).view("<u4").reshape(-1, k)


def _u64(seq: np.ndarray, offset: int) -> np.ndarray:
    return np.ascontiguousarray(seq[:, offset:offset + 8]).view("<u8").reshape(-1)


def within_execute(case: Case, layout: int, a: int = 0, b: int | None = None) -> np.ndarray:
    """Per sequence ``a .. b - 1`` of one layout: its index in the execute that runs it (what a SEQUENCE_INDEX
    token writes)."""
    lay = case.layouts[layout]
    b = lay.count if b is None else b
    out = np.zeros(b - a, dtype=np.uint32)
    for li, first, count, _ in case.executes:
        lo, hi = max(first, a), min(first + count, b)
        if li == layout and lo < hi:
            out[lo - a:hi - a] = np.arange(lo - first, hi - first, dtype=np.uint32)
    return out


@dataclass
class LayoutState:
    """Sequences of one layout decoded as the GPU applies their tokens: per sequence its program (the case's
    program index), push constants, record index within the execute, the action's fields and (vertex layouts) its
    draws."""

    program: np.ndarray
    push_constants: np.ndarray  # (count, push_constant_size) uint8
    invocations: np.ndarray  # uint64: what the action asks for
    fields: dict[int, np.ndarray]  # record DWORD -> value, from the action token
    draws: Draws | None


def layout_state(case: Case, li: int, a: int = 0, b: int | None = None) -> LayoutState:
    """Sequences ``a .. b - 1`` (default: all) of layout ``li`` of the case as ``VK_EXT_device_generated_commands``
    executes them: tokens applied in layout order over the initial push constants, the command list's vertex and
    index buffers where no token sets one."""
    lay = case.layouts[li]
    b = lay.count if b is None else b
    n, seq = b - a, lay.sequences[a:b]
    pc = np.zeros((n, lay.push_constant_size), dtype=np.uint8)
    pc[:] = np.frombuffer(lay.initial_push_constants, dtype=np.uint8)
    program = np.zeros(n, dtype=np.uint32)
    within = within_execute(case, li, a, b)
    vbs = {slot: (np.full(n, loc, np.uint64), np.full(n, size, np.uint64), np.full(n, stride, np.uint64))
           for slot, loc, size, stride in case.vertex_buffers}
    ib: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    if case.index_buffer is not None:
        loc, size, fmt = case.index_buffer
        ib = (np.full(n, loc, np.uint64), np.full(n, size, np.uint64), np.full(n, fmt, np.uint64))
    inv = np.zeros(n, dtype=np.uint64)
    fields: dict[int, np.ndarray] = {}
    draws = None
    for t in lay.tokens:
        tt = TokenType(t.type)
        if tt is TokenType.EXECUTION_SET:
            index = _u32(seq, t.offset)[:, 0]
            if n and int(index.max(initial=0)) >= len(lay.programs):
                raise ValueError(f"layout {li}: an execution-set index past its {len(lay.programs)} pipelines")
            program = np.asarray(lay.programs, dtype=np.uint32)[index] if n else program
        elif tt is TokenType.PUSH_CONSTANT:
            pc[:, t.push_offset:t.push_offset + t.push_size] = seq[:, t.offset:t.offset + t.push_size]
        elif tt is TokenType.SEQUENCE_INDEX:
            pc[:, t.push_offset:t.push_offset + 4] = within.astype("<u4").view(np.uint8).reshape(n, 4)
        elif tt is TokenType.VERTEX_BUFFER:
            vbs[t.vertex_binding_unit] = (_u64(seq, t.offset), _u32(seq, t.offset + case.vbv_size_offset)[:, 0],
                                          _u32(seq, t.offset + case.vbv_stride_offset)[:, 0])
        elif tt is TokenType.INDEX_BUFFER:
            ib = (_u64(seq, t.offset), _u32(seq, t.offset + case.ibv_size_offset)[:, 0],
                  _u32(seq, t.offset + case.ibv_format_offset)[:, 0])
        elif tt is TokenType.DRAW:
            vc, ic, fv, fi = _u32(seq, t.offset, 4).T
            draws = Draws(False, vc, ic, fv, fv.astype(np.int64), None, vbs)
            inv = vc.astype(np.uint64) * ic
            fields = {4: fv, 5: fi, 7: ic}
        elif tt is TokenType.DRAW_INDEXED:
            nidx, ic, first, vo, fi = _u32(seq, t.offset, 5).T
            draws = Draws(True, nidx, ic, first, vo.view(np.int32).astype(np.int64), ib, vbs)
            inv = nidx.astype(np.uint64) * ic
            fields = {4: vo, 5: fi, 7: ic}
        elif tt in (TokenType.DISPATCH, TokenType.DRAW_MESH_TASKS):
            x, y, z = _u32(seq, t.offset, 3).T
            inv = x.astype(np.uint64) * y * z
            fields = {4: x, 5: y, 6: z}
    return LayoutState(program, pc, inv, fields, draws if lay.kind == KIND_VERTEX else None)


#: records modelled, compared and digested at a time: the unit of every comparison's memory and of the per-chunk
#: digests the GPU machine sends back
RECORDS_PER_CHUNK = 1 << 16


def chunk_ranges(layout_counts: list[int], chunk: int = RECORDS_PER_CHUNK) -> list[tuple[int, int, int, int]]:
    """The chunks every comparison walks, in record order: ``(layout, first sequence, end, first record)``, at most
    ``chunk`` sequences each, never across layouts (the GPU machine and this machine cut the same chunks)."""
    out: list[tuple[int, int, int, int]] = []
    base = 0
    for li, n in enumerate(layout_counts):
        out.extend((li, a, min(n, a + chunk), base + a) for a in range(0, n, chunk))
        base += n
    return out


def model_chunk(case: Case, li: int, a: int, b: int, memory: Memory) -> Model:
    """The records sequences ``a .. b - 1`` of layout ``li`` write (:func:`model_records`)."""
    lay = case.layouts[li]
    n = b - a
    st = layout_state(case, li, a, b)
    out = np.zeros((n, case.record_dwords), dtype=np.uint32)
    least = st.invocations.copy()
    for c, v in st.fields.items():
        out[:, c] = v
    if st.draws is not None:
        f = fetch_fields(st.draws, memory, case.fetch_mask, case.r16_format, case.r32_format)
        out[:, 6], out[:, 8] = f["span"], f["first"]
        out[:, 9:13], out[:, 13:15] = f["vbloom"], f["ibloom"]
        least = f["invocations_min"]
    out[:, 0] = st.invocations.astype(np.uint32)
    out[:, 1] = st.program
    out[:, 2] = np.arange(lay.record_base + a, lay.record_base + b, dtype=np.uint32)
    words = np.ascontiguousarray(st.push_constants).view("<u4") if lay.push_constant_size else \
        np.zeros((n, 0), np.uint32)
    out[:, RECORD_HEADER:RECORD_HEADER + words.shape[1]] = words
    out[st.invocations == 0] = 0
    return Model(out, np.where(st.invocations == 0, 0, least).astype(np.uint32))


def model_chunks(case: Case, chunk: int = RECORDS_PER_CHUNK) -> Iterator[tuple[int, Model]]:
    """:func:`model_records` chunk by chunk (:func:`chunk_ranges`): ``(first record, Model)``."""
    memory = case_memory(case)
    for li, a, b, first in chunk_ranges([lay.count for lay in case.layouts], chunk):
        yield first, model_chunk(case, li, a, b, memory)


def join(chunks: Iterable[tuple[int, Model]], count: int, dwords: int) -> Model:
    """Chunks of records as one :class:`Model` (small cases and tests)."""
    rec = np.zeros((count, dwords), dtype=np.uint32)
    inv_min = np.zeros(count, dtype=np.uint32)
    for first, m in chunks:
        rec[first:first + len(m.records)] = m.records
        inv_min[first:first + len(m.records)] = m.invocations_min
    return Model(rec, inv_min)


def model_records(case: Case) -> Model:
    """What the recording shaders write for every sequence if the GPU executes the case's sequences as
    ``VK_EXT_device_generated_commands`` specifies (:func:`layout_state`); whole, for small cases
    (:func:`model_chunks` streams)."""
    return join(model_chunks(case), case.count, case.record_dwords)


# ----------------------------------------------------------------------------------------------------------------
# Comparisons
# ----------------------------------------------------------------------------------------------------------------

def compare_records(got: np.ndarray, want: np.ndarray, *, invocations_min: np.ndarray | None = None,
                    first: int = 20) -> dict[str, Any]:
    """Record by record: how many were compared, how many differ (gl_DrawID not compared; the invocation count, with
    ``invocations_min``, in ``[invocations_min, want]``), the first few differences, and the gl_DrawID values
    seen."""
    if got.shape != want.shape:
        return {"compared": 0, "mismatches": None, "error": f"shape {got.shape} != {want.shape}"}
    cols = [c for c in range(got.shape[1]) if c not in NOT_COMPARED and (c != 0 or invocations_min is None)]
    diff = got[:, cols] != want[:, cols]
    bad_rows = diff.any(axis=1)
    inv_bad = np.zeros(len(got), dtype=bool)
    if invocations_min is not None:
        inv_bad = (got[:, 0] > want[:, 0]) | (got[:, 0] < invocations_min)
        bad_rows |= inv_bad
    bad = np.flatnonzero(bad_rows)
    details = []
    for k in bad[:first]:
        fields = [cols[c] for c in np.flatnonzero(diff[k])] + ([0] if inv_bad[k] else [])
        details.append({"record": int(k), "fields": {_field_name(c): {"gpu": int(got[k, c]), "want": int(want[k, c])}
                                                      for c in fields}})
    executed = got[:, 0] != 0
    return {"compared": int(got.shape[0]), "mismatches": int(len(bad)), "first_mismatches": details,
            "ran": int(executed.sum()), "no_invocation": int((want[:, 0] == 0).sum()),
            "draw_ids": sorted({int(v) for v in np.unique(got[executed, 3])[:8]})}


def digest(records: np.ndarray) -> str:
    """SHA-256 of the records with the DWORDs not compared zeroed: equal digests, equal records."""
    r = np.array(records, dtype="<u4", copy=True)
    r[:, list(NOT_COMPARED)] = 0
    return hashlib.sha256(r.tobytes()).hexdigest()


def as_compared(got: np.ndarray, want: Model) -> np.ndarray:
    """The GPU's records as the comparison sees them: gl_DrawID zeroed, and an invocation count within ``want``'s
    range (``[invocations_min, records[:, 0]]``: a vertex reused by an indexed draw) replaced by the range's top, so
    that :func:`digest` of them equals the digest of ``want.records`` exactly when every record matches."""
    r = np.array(got, dtype="<u4", copy=True)
    r[:, list(NOT_COMPARED)] = 0
    top = want.records[:, 0]
    legal = (r[:, 0] >= want.invocations_min) & (r[:, 0] <= top)
    r[legal, 0] = top[legal]
    return r


class Tally:
    """One comparison accumulated chunk by chunk (:func:`compare_records` of each chunk): records compared,
    mismatches, the first few (record numbers of the whole case), records that ran, records whose draw runs
    nothing, and the gl_DrawID values seen."""

    def __init__(self, first: int = 20) -> None:
        self.keep = first
        self.compared = 0
        self.mismatches: int | None = 0
        self.first_mismatches: list[dict[str, Any]] = []
        self.ran = self.no_invocation = 0
        self.draw_ids: set[int] = set()
        self.error: str | None = None

    def add(self, first_record: int, result: dict[str, Any]) -> None:
        if result.get("mismatches") is None:
            self.fail(result.get("error", "nothing compared"))
            return
        self.compared += result["compared"]
        if self.mismatches is not None:
            self.mismatches += result["mismatches"]
        for m in result["first_mismatches"][:max(0, self.keep - len(self.first_mismatches))]:
            self.first_mismatches.append({**m, "record": m["record"] + first_record})
        self.ran += result["ran"]
        self.no_invocation += result["no_invocation"]
        self.draw_ids.update(result["draw_ids"][:8])

    def fail(self, why: str) -> None:
        self.error = self.error or why

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"compared": self.compared, "mismatches": self.mismatches, "ran": self.ran,
                               "no_invocation": self.no_invocation, "draw_ids": sorted(self.draw_ids)[:8]}
        if self.first_mismatches:
            out["first_mismatches"] = self.first_mismatches
        if self.error:
            out["error"] = self.error
        return out


#: raw bytes of mismatched chunks' records the GPU machine sends back, at most
BAD_RECORDS_BACK = 8 << 20


def check(case: Case, records: np.ndarray, bad_out: Any = None, budget: int = BAD_RECORDS_BACK) -> dict[str, Any]:
    """The GPU's ``records`` (``(count, record_dwords)``, a memory map on the GPU machine) against
    :func:`model_chunks` of ``case``, chunk by chunk: the tally, and per chunk (:func:`chunk_ranges`) the digest
    of the records as compared (:func:`as_compared`), the digest of the model's, and the mismatches; the records of
    the chunks with mismatches are written to ``bad_out`` while they fit in ``budget`` bytes (``bad_chunks`` lists
    which)."""
    tally = Tally()
    chunks: list[dict[str, Any]] = []
    bad: list[int] = []
    written = 0
    if records.shape != (case.count, case.record_dwords):
        tally.fail(f"{records.shape} records: the case has ({case.count}, {case.record_dwords})")
        return {**tally.to_dict(), "chunks": chunks, "bad_chunks": bad}
    for k, (first, model) in enumerate(model_chunks(case)):
        got = np.asarray(records[first:first + len(model.records)])
        result = compare_records(got, model.records, invocations_min=model.invocations_min)
        tally.add(first, result)
        chunks.append({"first": first, "count": len(got), "gpu": digest(as_compared(got, model)),
                       "model": digest(model.records), "mismatches": result["mismatches"]})
        if result["mismatches"] and bad_out is not None and written + got.nbytes <= budget:
            bad_out.write(np.ascontiguousarray(got, dtype="<u4").tobytes())
            written += got.nbytes
            bad.append(k)
    return {**tally.to_dict(), "chunk_records": RECORDS_PER_CHUNK, "chunks": chunks, "bad_chunks": bad}


def _field_name(c: int) -> str:
    return FIELD_NAMES[c] if c < len(FIELD_NAMES) else \
        (f"header{c}" if c < RECORD_HEADER else f"push_dword{c - RECORD_HEADER}")


def read_records(path: str | Path, case: Case) -> np.ndarray:
    """The records file the harness wrote, mapped (never read whole): ``(count, record_dwords)`` uint32."""
    size = Path(path).stat().st_size
    if size < case.count * case.record_dwords * 4:
        return np.zeros((size // 4 // max(case.record_dwords, 1), case.record_dwords), dtype="<u4")
    return np.memmap(path, dtype="<u4", mode="r", shape=(case.count, case.record_dwords))


USAGE = "usage: python -m d3d12wl.vulkan.case check CASE.bin RECORDS.bin OUT.json BAD.rec"


def main(argv: list[str] | None = None) -> int:
    """``check CASE RECORDS OUT.json BAD.rec``: the GPU's records against :func:`model_records` of the case, chunk
    by chunk (:func:`check`), on the GPU machine: OUT.json the tally and the per-chunk digests, BAD.rec the records
    of the chunks with mismatches (what fits in :data:`BAD_RECORDS_BACK`)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 5 or args[0] != "check":
        print(USAGE, file=sys.stderr)
        return 2
    case = read_case(args[1])
    with open(args[4], "wb") as bad:
        result = check(case, read_records(args[2], case), bad)
    Path(args[3]).write_text(json.dumps(result) + "\n", encoding="utf-8")
    print(json.dumps({k: result[k] for k in ("compared", "mismatches", "ran", "no_invocation")}))
    return 0 if result["mismatches"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
