"""GPU memory as numpy arrays: which mapped region holds each of many VAs, and row gathers of record bytes (the
columnar executor's, and what :mod:`d3d12wl.executor.reads` decodes).  Every read stays inside one region; nothing
is sized by a count read from memory."""

from __future__ import annotations

from functools import cache

import numpy as np

from d3d12wl.capture.memory import VA_LIMIT, GpuMemory
from d3d12wl.records.dtypes import record_dtype
from d3d12wl.records.layout import RecordLayout

__all__ = ["CHUNK", "RegionArrays", "expand", "packed_dtype"]

#: records (primary records, ExecuteIndirect commands) the columnar walks read per chunk, and executions per run of
#: the trace's table (read as ``arrays.CHUNK`` where it is used, so a test that sets it here sets it for all)
CHUNK = 1 << 16

_U64_MAX = (1 << 64) - 1


@cache
def packed_dtype(layout: RecordLayout) -> np.dtype:
    """The layout's structured dtype (:func:`~d3d12wl.records.dtypes.record_dtype`) narrowed to the bytes a record
    uses (``size``): how the columns read a record's fields from its bytes."""
    dt = record_dtype(layout)
    names = list(dt.names or ())
    assert dt.fields is not None
    return np.dtype({"names": names, "formats": [dt.fields[n][0] for n in names],
                     "offsets": [dt.fields[n][1] for n in names], "itemsize": layout.size})


class RegionArrays:
    """The mapped regions as arrays: vectorized "is ``[va, va + size)`` inside one region" and row gathers."""

    def __init__(self, memory: GpuMemory) -> None:
        regions = [r for r in memory.regions if r.size]
        self.bases = np.array([r.base for r in regions], dtype=np.uint64)
        self.lasts = np.array([r.end - 1 for r in regions], dtype=np.uint64)
        self.bytes = [np.frombuffer(r.data, dtype=np.uint8) for r in regions]
        self._windows: dict[tuple[int, int], np.ndarray] = {}

    def locate(self, va: np.ndarray, size: int | np.ndarray) -> np.ndarray:
        """Per VA, the index of the region holding all of ``[va, va + size)`` (``size`` >= 1), else -1."""
        if not len(self.bases):
            return np.full(va.shape, -1, dtype=np.int64)
        idx = np.searchsorted(self.bases, va, side="right").astype(np.int64) - 1
        safe = np.maximum(idx, 0)
        span = np.asarray(size, dtype=np.uint64) - np.uint64(1)
        ok = (idx >= 0) & (va <= np.uint64(_U64_MAX) - span)
        last = va + np.where(ok, span, np.uint64(0))
        ok &= last <= self.lasts[safe]
        return np.where(ok, safe, -1)

    def region_of(self, va: int, end: int) -> int:
        """The index of the region holding all of ``[va, end)`` (``end > va``), else -1."""
        if not len(self.bases) or end > VA_LIMIT:
            return -1
        r = int(np.searchsorted(self.bases, np.uint64(va), side="right")) - 1
        return r if r >= 0 and end - 1 <= int(self.lasts[r]) else -1

    def strided(self, r: int, va: int, n: int, stride: int, size: int) -> np.ndarray:
        """A read-only ``(n, size)`` uint8 view of ``n`` records ``stride`` bytes apart from ``va`` (all of them
        inside region ``r``).  One record needs no stride, which may then be any 64-bit value (numpy's strides are
        signed 64-bit: a stride of 2^63 or more read from GPU memory would not fit)."""
        view = np.ndarray((n, size), dtype=np.uint8, buffer=self.bytes[r], offset=va - int(self.bases[r]),
                          strides=(stride if n > 1 else 0, 1))
        view.flags.writeable = False
        return view

    def _window(self, r: int, size: int) -> np.ndarray:
        """Region ``r`` as overlapping ``size``-byte items, one starting at every byte: a row gather is one
        fancy index."""
        w = self._windows.get((r, size))
        if w is None:
            b = self.bytes[r]
            w = np.ndarray((max(b.size - size + 1, 0),), dtype=np.dtype((np.void, size)), buffer=b, strides=(1,))
            self._windows[(r, size)] = w
        return w

    def gather_offsets(self, r: int, offsets: np.ndarray, size: int) -> np.ndarray:
        """A copy of the ``size`` bytes at each byte offset into region ``r``: rows of a uint8 matrix."""
        if not size or not len(offsets):
            return np.empty((len(offsets), size), dtype=np.uint8)
        return self._window(r, size)[offsets].view(np.uint8).reshape(len(offsets), size)

    def gather(self, ridx: np.ndarray, va: np.ndarray, size: int) -> np.ndarray:
        """A copy of the ``size`` bytes at each VA (every one located in region ``ridx``): rows of a uint8 matrix."""
        if not len(va) or not size:
            return np.empty((len(va), size), dtype=np.uint8)
        first = int(ridx[0])
        if (ridx == first).all():
            return self.gather_offsets(first, (va - self.bases[first]).astype(np.intp), size)
        out = np.empty((len(va), size), dtype=np.uint8)
        for r in np.unique(ridx):
            m = ridx == r
            out[m] = self.gather_offsets(int(r), (va[m] - self.bases[r]).astype(np.intp), size)
        return out


def expand(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``starts[k] .. starts[k] + counts[k] - 1`` for every k, concatenated (index arithmetic, no loop)."""
    total = int(counts.sum())
    before = np.zeros(len(counts), dtype=np.int64)
    np.cumsum(counts[:-1], out=before[1:])
    return np.repeat(starts.astype(np.int64) - before, counts) + np.arange(total, dtype=np.int64)
