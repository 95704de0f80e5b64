"""What the draws of a GPU harness case fetch through the input assembler, as the recording shaders see it, in memory
bounded whatever the draws' vertex counts: the CPU model behind :func:`d3d12wl.vulkan.case.model_records` and
:func:`d3d12wl.vulkan.harness.expected_records`.  numpy only (this module travels to the GPU machine with
:mod:`d3d12wl.vulkan.case`).

**What a draw fetches** (the D3D12 input assembler, which keeps the rules of the Direct3D 11.3 functional
specification, "Input Assembler Stage"):

* a non-indexed draw's vertex indices are ``StartVertexLocation + i`` for ``i < VertexCountPerInstance``; an indexed
  draw's are the ``IndexCountPerInstance`` indices from ``StartIndexLocation`` of its index buffer view, plus
  ``BaseVertexLocation`` (8.6.1; the arithmetic is 32-bit unsigned, 8.19.1);
* a read past the end of a view returns 0 (8.19.2 "Addressing Bounds": "Any calculated address that would fall out of
  bounds for a Buffer being accessed results in out-of-bounds behavior being invoked, where the return is 0 in all
  non-missing components of the format"): an index read past the index buffer view is index 0, an attribute read
  past a vertex buffer view is 0;
* a null view (``BufferLocation`` 0: no buffer bound) reads 0 (8.20: "If a Vertex Buffer or Index Buffer is read by
  the Input Assembler, but the slot being read has no Buffer bound, the result of the read is 0 for all expected
  components").

**What the recording shader keeps of it**, per draw (tools/gpu/record.vert): the largest and smallest vertex index
``vi`` (``gl_VertexIndex - gl_BaseVertex``: the index value of an indexed draw), a 64-bit bloom of the ``vi`` and a
128-bit bloom of the fetched attributes (slot, ``gl_VertexIndex``, value), every reduction a max, a min or an or;
and the least invocation count a correct GPU may report (distinct ``vi`` x instances: Vulkan "Vertex Shader
Execution" lets an indexed draw reuse a vertex).

**In bounded memory.** Nothing is made per vertex invocation (instances never multiply the work), and nothing per
vertex of the whole call at once:

* a non-indexed draw's ``vi`` are ``0 .. count - 1``: the span and the smallest index are its count and 0, and its
  index bloom is the set of bits whose first ``vi`` (:func:`first_vi_of_bits`) is below the count;
* an indexed draw's indices stream through in chunks of :data:`ELEMENTS_PER_CHUNK` (a draw larger than a chunk
  spans several; its reductions merge, and its distinct count is a bitmap over its index range, or
  where that range is wider than 32 times its indices its chunks' distinct indices together);
* a fetched vertex buffer slot of non-indexed draws: short draws (at most :data:`DIRECT_MAX` vertices) are read
  vertex by vertex in chunks; longer ones are answered from a table of the bit each vertex sets, built once per view
  over the union of the draws' vertex ranges in windows of :data:`WINDOW` vertices (a bit is in a range's bloom
  when a vertex that sets it lies in the range: two binary searches per bit).

The peak is therefore a few times ``ELEMENTS_PER_CHUNK`` and ``WINDOW`` elements plus per-draw columns (and, for
an indexed draw larger than a chunk, at most 4 bytes per index it reads); the time is
linear in the draws, the indices the indexed draws read and the vertices the fetched slots' views reach.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

__all__ = ["ATTRIBUTE_BYTES", "DIRECT_MAX", "Draws", "ELEMENTS_PER_CHUNK", "Memory", "WINDOW", "bloom_index",
           "bloom_vertex", "fetch_fields", "first_vi_of_bits", "hash32", "index_extents", "index_sizes"]

#: bytes of one fetched vertex attribute (R32_UINT at offset 0 of every vertex)
ATTRIBUTE_BYTES = 4
#: index (or vertex) reads made at a time
ELEMENTS_PER_CHUNK = 1 << 21
#: vertices of one view's bit table made at a time
WINDOW = 1 << 22
#: a non-indexed draw of at most this many vertices has its fetched attributes read one by one
DIRECT_MAX = 256
#: draws whose ranges are looked up in a bit table at a time (128 binary searches each)
QUERIES_PER_BATCH = 1 << 13
INDEX_BLOOM_BITS, VERTEX_BLOOM_BITS = 64, 128
U32 = 0xFFFFFFFF


# ----------------------------------------------------------------------------------------------------------------
# Memory
# ----------------------------------------------------------------------------------------------------------------

class Memory:
    """Regions ``(base, uint8 array)`` and vectorized reads at VAs (every read inside one region, else an error)."""

    def __init__(self, regions: list[tuple[int, np.ndarray]]) -> None:
        regions = sorted(((b, d) for b, d in regions if len(d)), key=lambda r: r[0])
        self.bases = np.array([b for b, _ in regions], dtype=np.uint64)
        # each region's last byte (its end may be 2**64: a region at the top of the VA space)
        self.lasts = np.array([b + len(d) - 1 for b, d in regions], dtype=np.uint64)
        self.data = [d for _, d in regions]

    def locate(self, va: np.ndarray, size: np.ndarray | int) -> np.ndarray:
        """Per VA, the region holding ``[va, va + size)`` (``size`` at least 1), else -1."""
        va = np.asarray(va, dtype=np.uint64)
        if not len(self.bases):
            return np.full(va.shape, -1, dtype=np.int64)
        r = np.searchsorted(self.bases, va, side="right").astype(np.int64) - 1
        last = self.lasts[np.maximum(r, 0)]
        size = np.maximum(np.asarray(size, dtype=np.uint64), np.uint64(1))
        ok = (r >= 0) & (va <= last) & (size - np.uint64(1) <= last - np.minimum(va, last))
        return np.where(ok, r, -1)

    def read(self, va: np.ndarray, width: np.ndarray | int) -> np.ndarray:
        """The little-endian unsigned value of ``width`` (2 or 4, per VA) bytes at each VA."""
        va = np.asarray(va, dtype=np.uint64)
        width = np.broadcast_to(np.asarray(width, dtype=np.uint64), va.shape)
        r = self.locate(va, width)
        if (r < 0).any():
            k = int(np.argmax(r < 0))
            raise ValueError(f"a read of {int(width[k])} bytes at VA 0x{int(va[k]):x} is outside every region")
        out = np.zeros(va.shape, dtype=np.uint32)
        if not len(r):
            return out
        if r.min() == r.max():  # one region (the common case): no grouping
            ri = int(r[0])
            return _little_endian(self.data[ri], (va - self.bases[ri]).astype(np.int64), width)
        # grouped by region through one sort: a mask per region would cost reads x regions (a frame of 10,000
        # vertex and index buffers, each its own region)
        order = np.argsort(r, kind="stable")
        rs = r[order]
        cuts = np.flatnonzero(np.r_[True, rs[1:] != rs[:-1]])
        for a, b in zip(cuts.tolist(), np.r_[cuts[1:], len(rs)].tolist(), strict=True):
            ri, at = int(rs[a]), order[a:b]
            out[at] = _little_endian(self.data[ri], (va[at] - self.bases[ri]).astype(np.int64), width[at])
        return out


def _little_endian(d: np.ndarray, off: np.ndarray, width: np.ndarray) -> np.ndarray:
    v = d[off].astype(np.uint32) | (d[off + 1].astype(np.uint32) << np.uint32(8))
    wide = width == 4
    if wide.all():
        return v | (d[off + 2].astype(np.uint32) << np.uint32(16)) | (d[off + 3].astype(np.uint32) << np.uint32(24))
    if wide.any():
        o4 = off[wide]
        v[wide] |= (d[o4 + 2].astype(np.uint32) << np.uint32(16)) | (d[o4 + 3].astype(np.uint32) << np.uint32(24))
    return v


def read_views(memory: Memory, loc: np.ndarray, size: np.ndarray, offset: np.ndarray, width: np.ndarray | int
               ) -> np.ndarray:
    """``width`` bytes at ``offset`` into each view ``(loc, size)``: 0 for a null view (``loc`` 0: no buffer bound,
    D3D11.3 8.20) or a read past the view's end (8.19.2 "Addressing Bounds"), else the bytes in ``memory``."""
    loc = np.asarray(loc, dtype=np.uint64)
    offset = np.asarray(offset, dtype=np.uint64)
    width = np.broadcast_to(np.asarray(width, dtype=np.uint64), loc.shape)
    inside = (loc != 0) & (offset + width <= np.asarray(size, dtype=np.uint64))
    out = np.zeros(loc.shape, dtype=np.uint32)
    if inside.any():
        out[inside] = memory.read(loc[inside] + offset[inside], width[inside])
    return out


# ----------------------------------------------------------------------------------------------------------------
# The recording shaders' hashes
# ----------------------------------------------------------------------------------------------------------------

def hash32(x: np.ndarray) -> np.ndarray:
    """A 32-bit integer mixer (the same arithmetic as ``hash32`` in tools/gpu/record.vert)."""
    x = np.asarray(x, dtype=np.uint32).copy()
    x ^= x >> np.uint32(16)
    x *= np.uint32(0x7FEB352D)
    x ^= x >> np.uint32(15)
    x *= np.uint32(0x846CA68B)
    x ^= x >> np.uint32(16)
    return x


def bloom_vertex(slot: np.ndarray | int, vertex: np.ndarray, value: np.ndarray) -> np.ndarray:
    """The bit (0..127) a fetched attribute sets in the vertex bloom: hash(hash(slot * 0x9E3779B9 ^ vertex) ^
    value) & 127."""
    s = np.asarray(slot, dtype=np.uint32) * np.uint32(0x9E3779B9)
    return hash32(hash32(s ^ np.asarray(vertex, dtype=np.uint32)) ^ np.asarray(value, dtype=np.uint32)) & np.uint32(127)


def bloom_index(vi: np.ndarray) -> np.ndarray:
    """The bit (0..63) a fetched vertex index sets in the index bloom."""
    return hash32(vi) & np.uint32(INDEX_BLOOM_BITS - 1)


@lru_cache(maxsize=1)
def first_vi_of_bits() -> np.ndarray:
    """Per bit of the index bloom, the smallest ``vi`` that sets it (uint64): a draw whose ``vi`` are ``0 .. n - 1``
    sets exactly the bits whose first ``vi`` is below ``n``."""
    first = np.full(INDEX_BLOOM_BITS, np.iinfo(np.uint64).max, dtype=np.uint64)
    start = 0
    while (first == np.iinfo(np.uint64).max).any():
        vi = np.arange(start, start + 4096, dtype=np.uint64)
        bits = bloom_index(vi).astype(np.int64)
        new = first[bits] == np.iinfo(np.uint64).max
        # the first occurrence of each new bit in this block
        seen, at = np.unique(bits[new], return_index=True)
        first[seen] = vi[new][at]
        start += 4096
    return first


def _bits_to_words(bit: np.ndarray, segment_starts: np.ndarray, words: int) -> np.ndarray:
    """The bloom (``words`` uint32 per segment) of each run of ``bit`` values starting at ``segment_starts``."""
    out = np.zeros((len(segment_starts), words), dtype=np.uint32)
    if not len(bit):
        return out
    word = (bit >> np.uint32(5)).astype(np.int64)
    mask = np.uint32(1) << (bit & np.uint32(31)).astype(np.uint32)
    for w in range(words):
        out[:, w] = np.bitwise_or.reduceat(np.where(word == w, mask, np.uint32(0)), segment_starts)
    return out


# ----------------------------------------------------------------------------------------------------------------
# Draws
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class Draws:
    """Draws of one layout, as columns: the per-draw count (vertices or indices), instances, the first vertex or
    index, the base vertex (indexed), the index buffer view per draw (indexed), and the vertex buffer views per
    slot (slot -> (location, size, stride) columns)."""

    indexed: bool
    count: np.ndarray
    instances: np.ndarray
    first: np.ndarray
    base_vertex: np.ndarray  # int64 (indexed: BaseVertexLocation; else StartVertexLocation)
    ib: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # location, size, format
    vbs: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray]] = field(default_factory=dict)

    def slice(self, a: int, b: int) -> Draws:
        def cut(cols: tuple[np.ndarray, ...]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
            x, y, z = (c[a:b] for c in cols)
            return x, y, z

        return Draws(self.indexed, self.count[a:b], self.instances[a:b], self.first[a:b], self.base_vertex[a:b],
                     None if self.ib is None else cut(self.ib), {s: cut(v) for s, v in self.vbs.items()})

    @property
    def live(self) -> np.ndarray:
        """The draws that run an invocation (a count and an instance count above 0)."""
        return (np.asarray(self.count) > 0) & (np.asarray(self.instances) > 0)

    def vertex_counts(self) -> np.ndarray:
        """Per draw, the vertices (or indices) it reads once: its count if it runs, else 0 (int64)."""
        return np.where(self.live, self.count, 0).astype(np.int64)


def index_sizes(fmt: np.ndarray, r16: int, r32: int) -> np.ndarray:
    """Bytes per index of each DXGI format (0: neither R16_UINT nor R32_UINT)."""
    return np.where(fmt == r16, 2, np.where(fmt == r32, 4, 0)).astype(np.int64)


# ----------------------------------------------------------------------------------------------------------------
# Indexed draws: the indices, streamed
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class _Chunk:
    """Up to ELEMENTS_PER_CHUNK index reads: the draws they belong to (one segment each, in draw order), whether
    each segment is its draw's whole range, and per read its segment and its ``vi``."""

    draws: np.ndarray
    starts: np.ndarray  # first read of each segment
    whole: np.ndarray
    segment: np.ndarray
    vi: np.ndarray


def _index_chunks(d: Draws, memory: Memory, esize: np.ndarray, chunk: int = ELEMENTS_PER_CHUNK) -> Iterator[_Chunk]:
    """The indices the indexed draws ``d`` read, ``chunk`` at a time (a generator of :class:`_Chunk`)."""
    assert d.ib is not None
    loc, size, _ = d.ib
    n = d.vertex_counts()
    ends = np.cumsum(n)
    starts = ends - n
    total = int(ends[-1]) if len(ends) else 0
    for e0 in range(0, total, chunk):
        e1 = min(total, e0 + chunk)
        j0 = int(np.searchsorted(ends, e0, side="right"))
        j1 = int(np.searchsorted(starts, e1, side="left"))
        js = np.arange(j0, j1)
        js = js[n[js] > 0]
        lo = np.maximum(starts[js], e0) - starts[js]
        hi = np.minimum(ends[js], e1) - starts[js]
        lengths = hi - lo
        seg_starts = np.zeros(len(js), dtype=np.int64)
        np.cumsum(lengths[:-1], out=seg_starts[1:])
        segment = np.repeat(np.arange(len(js)), lengths)
        i = lo[segment] + np.arange(e1 - e0, dtype=np.int64) - seg_starts[segment]
        draw = js[segment]
        position = d.first[draw].astype(np.uint64) + i.astype(np.uint64)
        vi = read_views(memory, loc[draw], size[draw], position * esize[draw].astype(np.uint64), esize[draw])
        yield _Chunk(js, seg_starts, (lo == 0) & (hi == n[js]), segment, vi)


def _distinct_in_segments(c: _Chunk, low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """Distinct ``vi`` per segment of a chunk (``low`` / ``high``: each segment's smallest and largest): a bitmap over
    each segment's range where the ranges are small, else a sort."""
    ranges = (high.astype(np.int64) - low.astype(np.int64) + 1)
    if int(ranges.sum()) <= 4 * len(c.vi):
        at = np.zeros(len(ranges), dtype=np.int64)
        np.cumsum(ranges[:-1], out=at[1:])
        flags = np.zeros(int(ranges.sum()), dtype=bool)
        flags[at[c.segment] + (c.vi.astype(np.int64) - low[c.segment].astype(np.int64))] = True
        return np.add.reduceat(flags, at).astype(np.uint64)
    keys = np.unique(c.segment.astype(np.uint64) << np.uint64(32) | c.vi.astype(np.uint64))
    return np.bincount((keys >> np.uint64(32)).astype(np.int64), minlength=len(ranges)).astype(np.uint64)


#: set bits of each byte value
_POPCOUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.uint8)


def _distinct_of_draw(d: Draws, j: int, memory: Memory, esize: np.ndarray, low: int, high: int) -> int:
    """Distinct indices of one draw larger than a chunk: a bitmap over ``[low, high]`` filled chunk by chunk and
    counted a chunk of bytes at a time, where the bitmap is no larger than the draw's indices (4 bytes each); else
    (a range as wide as a strip-cut index 0xFFFFFFFF makes it: a 512 MiB bitmap) each chunk's distinct indices,
    counted once together.  Either way the peak is at most 4 bytes per index of the draw besides a chunk."""
    one = d.slice(j, j + 1)
    chunks = _index_chunks(one, memory, esize[j:j + 1])
    if (high - low) // 8 + 1 > 4 * int(d.vertex_counts()[j]):
        return len(np.unique(np.concatenate([np.unique(c.vi) for c in chunks])))
    bitmap = np.zeros((high - low) // 8 + 1, dtype=np.uint8)
    for c in chunks:
        rel = np.unique(c.vi.astype(np.int64) - low)
        byte = rel >> 3
        bits = (np.uint8(1) << (rel & 7).astype(np.uint8)).astype(np.uint8)
        first = np.flatnonzero(np.r_[True, byte[1:] != byte[:-1]])
        bitmap[byte[first]] |= np.bitwise_or.reduceat(bits, first)
    return sum(int(_POPCOUNT[bitmap[a:a + ELEMENTS_PER_CHUNK]].sum(dtype=np.int64))
               for a in range(0, len(bitmap), ELEMENTS_PER_CHUNK))


def index_extents(d: Draws, memory: Memory, r16: int, r32: int) -> tuple[np.ndarray, np.ndarray]:
    """Per indexed draw, the smallest and largest index it reads (uint64; 0 and 0 for a draw that runs nothing)."""
    low = np.zeros(len(d.count), dtype=np.uint64)
    high = np.zeros(len(d.count), dtype=np.uint64)
    if not d.indexed or d.ib is None or not len(d.count):
        return low, high
    low[d.live] = U32
    esize = index_sizes(d.ib[2], r16, r32)
    for c in _index_chunks(d, memory, esize):
        low[c.draws] = np.minimum(low[c.draws], np.minimum.reduceat(c.vi, c.starts).astype(np.uint64))
        high[c.draws] = np.maximum(high[c.draws], np.maximum.reduceat(c.vi, c.starts).astype(np.uint64))
    return low, high


# ----------------------------------------------------------------------------------------------------------------
# Non-indexed draws: vertex ranges
# ----------------------------------------------------------------------------------------------------------------

def _vertex_values(slot: int, view: tuple[np.ndarray, np.ndarray, np.ndarray], draw: np.ndarray, vertex: np.ndarray,
                   memory: Memory) -> np.ndarray:
    """The bit each ``vertex`` (uint64, of ``draw``'s view of ``slot``) sets in the vertex bloom."""
    loc, size, stride = view
    value = read_views(memory, loc[draw], size[draw], vertex * stride[draw].astype(np.uint64), ATTRIBUTE_BYTES)
    return bloom_vertex(slot, vertex & np.uint64(U32), value)


def _short_ranges_bloom(slot: int, view: tuple[np.ndarray, np.ndarray, np.ndarray], draws: np.ndarray,
                        start: np.ndarray, n: np.ndarray, memory: Memory) -> np.ndarray:
    """The vertex bloom of each draw's vertices ``start .. start + n - 1``, read one by one (short draws)."""
    out = np.zeros((len(draws), 4), dtype=np.uint32)
    per = max(1, ELEMENTS_PER_CHUNK // DIRECT_MAX)
    for a in range(0, len(draws), per):
        b = min(len(draws), a + per)
        k = n[a:b]
        seg_starts = np.zeros(b - a, dtype=np.int64)
        np.cumsum(k[:-1], out=seg_starts[1:])
        segment = np.repeat(np.arange(b - a), k)
        i = np.arange(int(k.sum()), dtype=np.int64) - seg_starts[segment]
        vertex = start[a:b][segment].astype(np.uint64) + i.astype(np.uint64)
        bits = _vertex_values(slot, view, draws[a:b][segment], vertex, memory)
        out[a:b] = _bits_to_words(bits, seg_starts, 4)
    return out


def _long_ranges_bloom(slot: int, view: tuple[np.ndarray, np.ndarray, np.ndarray], draws: np.ndarray,
                       start: np.ndarray, n: np.ndarray, memory: Memory) -> np.ndarray:
    """The vertex bloom of each draw's vertices ``start .. start + n - 1`` (all draws of one view): a table of the
    bit each vertex of the union of the ranges sets, window by window, and per range and bit two binary searches."""
    out = np.zeros((len(draws), 4), dtype=np.uint32)
    s = start.astype(np.int64)
    e = s + n
    order = np.argsort(s, kind="stable")
    # the union of the ranges as disjoint segments [us, ue), and each range's place in the union's compact numbering
    ss, ee = s[order], np.maximum.accumulate(e[order])
    new = np.r_[True, ss[1:] > ee[:-1]]
    seg = np.cumsum(new) - 1
    us = ss[new]
    ue = np.maximum.reduceat(e[order], np.flatnonzero(new))
    compact_at = np.zeros(len(us), dtype=np.int64)
    np.cumsum((ue - us)[:-1], out=compact_at[1:])
    cs = np.empty(len(s), dtype=np.int64)
    cs[order] = compact_at[seg] + (ss - us[seg])
    ce = cs + n
    total = int((ue - us).sum())
    one = draws[:1]
    for w0 in range(0, total, WINDOW):
        w1 = min(total, w0 + WINDOW)
        # the vertices of compact positions [w0, w1)
        c = np.arange(w0, w1, dtype=np.int64)
        useg = np.searchsorted(compact_at, c, side="right") - 1
        vertex = (us[useg] + (c - compact_at[useg])).astype(np.uint64)
        bits = _vertex_values(slot, view, np.repeat(one, len(c)), vertex, memory).astype(np.uint64)
        keys = np.sort(bits << np.uint64(32) | (c - w0).astype(np.uint64))
        q = np.flatnonzero((cs < w1) & (ce > w0))
        lo = (np.maximum(cs[q], w0) - w0).astype(np.uint64)
        hi = (np.minimum(ce[q], w1) - w0).astype(np.uint64)
        for a in range(0, len(q), QUERIES_PER_BATCH):
            b = min(len(q), a + QUERIES_PER_BATCH)
            bit = np.arange(VERTEX_BLOOM_BITS, dtype=np.uint64) << np.uint64(32)
            first = np.searchsorted(keys, bit[None, :] | lo[a:b, None])
            last = np.searchsorted(keys, bit[None, :] | hi[a:b, None])
            out[q[a:b]] |= _pack_bits(last > first)  # (ranges, 128 bits)
    return out


def _vertex_bloom(slot: int, view: tuple[np.ndarray, np.ndarray, np.ndarray], d: Draws, memory: Memory
                  ) -> np.ndarray:
    """Non-indexed draws: the vertex bloom of ``slot`` per draw, one view at a time."""
    out = np.zeros((len(d.count), 4), dtype=np.uint32)
    n = d.vertex_counts()
    loc, size, stride = view
    live = np.flatnonzero(n > 0)
    if not len(live):
        return out
    keys = np.stack([loc[live].astype(np.uint64), size[live].astype(np.uint64), stride[live].astype(np.uint64)])
    _, group = np.unique(keys, axis=1, return_inverse=True)
    group = group.reshape(-1)
    short = n[live] <= DIRECT_MAX
    if short.any():
        js = live[short]
        out[js] = _short_ranges_bloom(slot, view, js, d.first[js], n[js], memory)
    for g in np.unique(group[~short]).tolist():
        js = live[(group == g) & ~short]
        out[js] = _long_ranges_bloom(slot, view, js, d.first[js], n[js], memory)
    return out


# ----------------------------------------------------------------------------------------------------------------
# What the recording shader keeps
# ----------------------------------------------------------------------------------------------------------------

def fetch_fields(d: Draws, memory: Memory, fetch_mask: int, r16: int, r32: int) -> dict[str, np.ndarray]:
    """Per draw: the vertex span (max vi + 1), 0xFFFFFFFF - min vi, the two blooms, and the least invocation count
    the GPU may report (distinct vertices x instances for an indexed draw)."""
    nd = len(d.count)
    n = d.vertex_counts()
    vbloom = np.zeros((nd, 4), dtype=np.uint32)
    slots = [s for s in sorted(d.vbs) if fetch_mask >> s & 1]
    if not d.indexed:
        span = n.astype(np.uint64)
        low = np.where(n > 0, 0, U32).astype(np.uint64)
        bits = n.astype(np.uint64)[:, None] > first_vi_of_bits()[None, :]
        ibloom = _pack_bits(bits)
        distinct = n.astype(np.uint64)
        for slot in slots:
            vbloom |= _vertex_bloom(slot, d.vbs[slot], d, memory)
    else:
        assert d.ib is not None
        esize = index_sizes(d.ib[2], r16, r32)
        span = np.zeros(nd, dtype=np.uint64)
        low = np.full(nd, U32, dtype=np.uint64)
        ibloom = np.zeros((nd, 2), dtype=np.uint32)
        distinct = np.zeros(nd, dtype=np.uint64)
        split: set[int] = set()
        for c in _index_chunks(d, memory, esize):
            lo = np.minimum.reduceat(c.vi, c.starts)
            hi = np.maximum.reduceat(c.vi, c.starts)
            low[c.draws] = np.minimum(low[c.draws], lo.astype(np.uint64))
            span[c.draws] = np.maximum(span[c.draws], hi.astype(np.uint64) + np.uint64(1))
            ibloom[c.draws] |= _bits_to_words(bloom_index(c.vi), c.starts, 2)
            whole = c.whole
            if whole.all():
                distinct[c.draws] = _distinct_in_segments(c, lo, hi)
            else:
                distinct[c.draws[whole]] = _distinct_in_segments(c, lo, hi)[whole]
                split.update(c.draws[~whole].tolist())
            if not slots:
                continue
            draw = c.draws[c.segment]
            vertex = (d.base_vertex[draw] + c.vi.astype(np.int64)).astype(np.uint64) & np.uint64(U32)
            for slot in slots:
                vbloom[c.draws] |= _bits_to_words(_vertex_values(slot, d.vbs[slot], draw, vertex, memory),
                                                  c.starts, 4)
        for j in sorted(split):
            distinct[j] = _distinct_of_draw(d, j, memory, esize, int(low[j]), int(span[j]) - 1)
    return {"span": (span & np.uint64(U32)).astype(np.uint32),
            "first": (np.uint64(U32) - low).astype(np.uint32) * (span > 0),
            "vbloom": vbloom, "ibloom": ibloom,
            "invocations_min": (distinct * d.instances.astype(np.uint64)).astype(np.uint32)}


def _pack_bits(bits: np.ndarray) -> np.ndarray:
    """(n, 32 w) booleans, bit ``b`` of word ``b // 32`` -> (n, w) uint32."""
    weights = np.uint32(1) << np.arange(32, dtype=np.uint32)
    return (bits.reshape(len(bits), -1, 32) * weights).sum(axis=2, dtype=np.uint64).astype(np.uint32)
