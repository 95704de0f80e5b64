"""A sparse GPU virtual address space with bounded, checked reads.

Regions are bytes, bytearrays, numpy arrays or memory-mapped files placed at a base VA.  A read that leaves
every region, straddles two regions or is misaligned where the caller requires alignment raises
:class:`~d3d12wl.errors.MemoryAccessError` carrying the VA; it never raises IndexError.  Regions of gigabytes
are read in place (memoryview / mmap slices), never loaded whole.

A zeros region (:meth:`GpuMemory.map_zeros`, a capture's ``"zeros": N``) is anonymous memory the OS commits a page
at a time as it is written: its bytes are zero wherever no :meth:`GpuMemory.write` reached, and the region keeps
which :data:`ZERO_PAGE`-byte pages one did.  Memory a capture claims is not memory it supplies: whoever would read
such a region whole (saving a capture, matching a program table's identifiers, scaling the executor's automatic
limits) asks :meth:`Region.written_spans` or :attr:`GpuMemory.supplied_bytes` instead, and reads only written pages.
"""

from __future__ import annotations

import bisect
import mmap
import os
import stat
import struct
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from d3d12wl import inputs
from d3d12wl.errors import MemoryAccessError

Buffer = bytes | bytearray | memoryview | np.ndarray | mmap.mmap

#: Highest address + 1 of the 64-bit GPU virtual address space.
VA_LIMIT = 1 << 64
#: bytes of a zeros region whose writes are tracked as one (a small multiple of the OS page)
ZERO_PAGE = 1 << 16

#: ``MADV_PAGEOUT`` where Python's mmap module was built without it (Linux's value; an older kernel refuses it with
#: EINVAL, and the pages then stay)
_MADV_PAGEOUT = 21 if sys.platform.startswith("linux") else None


@dataclass
class Region:
    """``size`` bytes of ``data`` mapped at ``base``.  ``source`` says where the bytes came from (a file path or
    ``"inline"``) for messages and for saving captures; ``offset`` is where the bytes start in that file."""

    name: str
    base: int
    data: memoryview
    writable: bool
    source: str = "inline"
    offset: int = 0
    #: zero wherever nothing wrote (a zeros region); ``written`` then holds the indices of the ZERO_PAGE-byte pages
    #: :meth:`GpuMemory.write` reached
    zeros: bool = False
    written: set[int] | None = None

    @property
    def size(self) -> int:
        return self.data.nbytes

    @property
    def end(self) -> int:
        return self.base + self.size

    def contains(self, va: int, size: int = 1) -> bool:
        return self.base <= va and va + size <= self.end

    def written_spans(self) -> list[tuple[int, int]]:
        """The byte ranges ``(start, end)`` (region offsets, whole pages, merged) of a zeros region that writes
        reached: all that may be non-zero.  The whole region for a region of supplied bytes."""
        if not self.zeros:
            return [(0, self.size)] if self.size else []
        spans: list[tuple[int, int]] = []
        for page in sorted(self.written or ()):
            start, end = page * ZERO_PAGE, min((page + 1) * ZERO_PAGE, self.size)
            if spans and spans[-1][1] == start:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((start, end))
        return spans

    @property
    def supplied_bytes(self) -> int:
        """Bytes of this region that hold what a capture supplied or a write put there (for a zeros region, its
        written pages; for any other, all of it)."""
        return sum(end - start for start, end in self.written_spans())


def _as_view(data: Buffer, writable: bool) -> memoryview:
    if isinstance(data, np.ndarray):
        if not data.flags.c_contiguous:
            raise ValueError("numpy regions must be C-contiguous")
        view = data.data.cast("B")  # ndarray.data: memoryview(data), which numpy types as a Buffer only for 3.12+
    else:
        view = memoryview(data).cast("B")
    if writable and view.readonly:
        raise ValueError("region data is read-only but the region was mapped writable")
    return view


class GpuMemory:
    """The simulated GPU virtual address space."""

    def __init__(self) -> None:
        self._regions: list[Region] = []  # sorted by base, non-overlapping
        self._bases: list[int] = []
        self._empty: list[Region] = []  # zero-byte regions: listed, never found by a lookup
        #: bumped by every :meth:`write`: lets a reader tell "the same bytes, nothing written since" (the executor
        #: needs it to decide that a continuation chain revisiting a list can never end)
        self.write_count = 0
        #: called as ``on_write(va, size)`` after every :meth:`write` (None: nobody watches): lets the executor tell
        #: a write into memory the spec makes immutable for the call (bound program tables, rule 14) from others
        self.on_write: Callable[[int, int], None] | None = None

    # -- mapping ------------------------------------------------------------------------------------------------

    def map(self, base: int, data: Buffer, *, name: str = "", writable: bool = False, source: str = "inline") -> Region:
        """Place ``data`` at ``base``.  Overlapping an existing region, or leaving the 64-bit space, is a ValueError.

        An empty region is listed in :attr:`regions` but never found by a lookup and overlaps nothing."""
        view = _as_view(data, writable)
        if base < 0 or base + view.nbytes > VA_LIMIT:
            raise ValueError(f"region {name!r} at 0x{base:x} (+{view.nbytes}) leaves the 64-bit VA space")
        region = Region(name or f"region@0x{base:x}", base, view, writable, source)
        if not view.nbytes:
            self._empty.append(region)
            return region
        i = bisect.bisect_left(self._bases, base)
        # The lookup list holds only non-empty, non-overlapping regions sorted by base, so only the two
        # neighbours of the insertion point can overlap the new region.
        for neighbour in self._regions[max(0, i - 1): i + 1]:
            if neighbour.base < region.end and region.base < neighbour.end:
                raise ValueError(f"region {region.name!r} [0x{region.base:x}, 0x{region.end:x}) overlaps "
                                 f"{neighbour.name!r} [0x{neighbour.base:x}, 0x{neighbour.end:x})")
        self._regions.insert(i, region)
        self._bases.insert(i, base)
        return region

    def map_file(self, base: int, path: str | os.PathLike[str], *, name: str = "", writable: bool = False,
                 offset: int = 0, size: int | None = None) -> Region:
        """Map (part of) a file without reading it: the OS pages it in as reads touch it.

        A writable file region is mapped copy-on-write (``mmap.ACCESS_COPY``): writes by validators and producers
        change the simulated GPU memory, never the file on disk (a capture stays what was captured)."""
        p = Path(path)
        file_size = p.stat().st_size
        if offset < 0 or offset > file_size:
            raise ValueError(f"offset {offset} is outside file {p} ({file_size} bytes)")
        length = file_size - offset if size is None else size
        if length < 0 or offset + length > file_size:
            raise ValueError(f"file {p} ({file_size} bytes) is shorter than offset {offset} + size {length}")
        if length == 0:
            return self.map(base, b"", name=name or p.name, source=str(p))
        try:  # (O_NONBLOCK: a path swapped for a FIFO since it was checked must not wait for a writer)
            with open(os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise ValueError(f"{p} is not a regular file")
                inputs.note_read(f.fileno(), "region file", str(path))
                mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY if writable else mmap.ACCESS_READ)
        except OSError as exc:  # a file system that cannot map it, a permission
            raise ValueError(f"cannot map {p}: {exc.strerror or exc}") from None
        view = memoryview(mm)[offset: offset + length]
        region = self.map(base, view, name=name or p.name, writable=writable, source=str(p))
        region.offset = offset
        return region

    def map_zeros(self, base: int, size: int, *, name: str = "", writable: bool = False) -> Region:
        """Map ``size`` zero bytes at ``base`` as anonymous memory, committed page by page as it is written (a large
        scratch region costs what is written to it).  An OS refusal to reserve the address space is a ValueError."""
        try:
            data: mmap.mmap | bytearray = mmap.mmap(-1, size) if size else bytearray()
        except (OSError, OverflowError, ValueError) as exc:
            raise ValueError(f"cannot reserve {size:,} bytes for region {name!r}: {exc}") from None
        region = self.map(base, data, name=name, writable=writable)
        region.zeros, region.written = True, set()
        return region

    @property
    def supplied_bytes(self) -> int:
        """Bytes of every region that hold what was supplied or written (:attr:`Region.supplied_bytes`): what the
        executor's automatic limits scale with, since a zeros region claims its bytes for free."""
        return sum(r.supplied_bytes for r in self._regions)

    @property
    def regions(self) -> tuple[Region, ...]:
        """Every mapped region (empty ones included), sorted by base."""
        return tuple(sorted([*self._regions, *self._empty], key=lambda r: (r.base, r.size)))

    def __iter__(self) -> Iterator[Region]:
        return iter(self.regions)

    def region_at(self, va: int) -> Region | None:
        i = bisect.bisect_right(self._bases, va) - 1
        if i >= 0 and self._regions[i].contains(va):
            return self._regions[i]
        return None

    # -- checked access -----------------------------------------------------------------------------------------

    def _locate(self, va: int, size: int, what: str, align: int, rule: str | None) -> tuple[Region, int]:
        if align > 1 and va % align:
            raise MemoryAccessError(f"{what}: VA 0x{va:x} is not {align}-byte aligned", va=va, size=size, rule=rule)
        if va < 0 or size < 0 or va + size > VA_LIMIT:
            raise MemoryAccessError(f"{what}: read of {size} bytes at 0x{va:x} wraps the 64-bit VA space",
                                    va=va, size=size, rule=rule)
        region = self.region_at(va)
        if region is None:
            raise MemoryAccessError(f"{what}: VA 0x{va:x} is not mapped", va=va, size=size, rule=rule)
        if va + size > region.end:
            raise MemoryAccessError(
                f"{what}: {size} bytes at 0x{va:x} run {va + size - region.end} bytes past the end of region "
                f"{region.name!r} [0x{region.base:x}, 0x{region.end:x})", va=va, size=size, rule=rule)
        return region, va - region.base

    def view(self, va: int, size: int, *, what: str = "read", align: int = 1, rule: str | None = None) -> memoryview:
        """A zero-copy read-only view of ``size`` bytes at ``va``."""
        region, off = self._locate(va, size, what, align, rule)
        return region.data[off: off + size].toreadonly()

    def read(self, va: int, size: int, *, what: str = "read", align: int = 1, rule: str | None = None) -> bytes:
        return bytes(self.view(va, size, what=what, align=align, rule=rule))

    def read_u32(self, va: int, *, what: str = "read", align: int = 4, rule: str | None = None) -> int:
        return struct.unpack_from("<I", self.view(va, 4, what=what, align=align, rule=rule))[0]

    def read_u64(self, va: int, *, what: str = "read", align: int = 8, rule: str | None = None) -> int:
        return struct.unpack_from("<Q", self.view(va, 8, what=what, align=align, rule=rule))[0]

    def write(self, va: int, data: bytes | bytearray | memoryview, *, what: str = "write") -> None:
        """Write into a writable region (validators and producers write GPU memory in place)."""
        data = memoryview(data).cast("B")
        region, off = self._locate(va, data.nbytes, what, 1, None)
        if not region.writable:
            raise MemoryAccessError(f"{what}: region {region.name!r} is read-only", va=va, size=data.nbytes)
        region.data[off: off + data.nbytes] = data
        if region.written is not None and data.nbytes:
            region.written.update(range(off // ZERO_PAGE, (off + data.nbytes - 1) // ZERO_PAGE + 1))
        self.write_count += 1
        if self.on_write is not None:
            self.on_write(va, data.nbytes)

    def write_u32(self, va: int, value: int, *, what: str = "write") -> None:
        self.write(va, struct.pack("<I", value), what=what)

    def write_u64(self, va: int, value: int, *, what: str = "write") -> None:
        self.write(va, struct.pack("<Q", value), what=what)

    # -- residency ----------------------------------------------------------------------------------------------

    def release(self, va: int, size: int) -> None:
        """Tell the OS this process is done with the bytes ``[va, va + size)`` for now: the whole pages of them
        that lie in a region mapped from a file are dropped from the process's memory (``madvise``
        ``MADV_DONTNEED``; for a writable, copy-on-write mapping ``MADV_PAGEOUT``, which keeps the bytes a write
        changed), and read from the file again if anything touches them.  Nothing changes for any other region
        (bytes in memory).  The columnar executor calls it
        for the records it has copied, so a capture of gigabytes is not held resident twice."""
        if size <= 0:
            return
        for region in self._regions[max(bisect.bisect_right(self._bases, va) - 1, 0):]:
            if region.base >= va + size:
                break
            mm = region.data.obj
            if not isinstance(mm, mmap.mmap) or not hasattr(mm, "madvise"):
                continue
            # a copy-on-write mapping may hold bytes a write changed: MADV_DONTNEED would lose them; MADV_PAGEOUT
            # (Linux 5.4) reclaims its pages keeping every byte (a clean page dropped, a changed one swapped)
            advice = getattr(mmap, "MADV_PAGEOUT", _MADV_PAGEOUT) if region.writable else mmap.MADV_DONTNEED
            if advice is None:
                continue
            start = region.offset + max(va - region.base, 0)
            end = region.offset + min(va + size, region.end) - region.base
            page = mmap.PAGESIZE
            first, last = -(-start // page) * page, end // page * page
            if last > first:
                try:
                    mm.madvise(advice, first, last - first)
                except (OSError, ValueError):  # a platform without it: the pages stay resident
                    pass
