"""d3d12wl.capture.memory: the sparse GPU virtual address space (issue 5 item 1).

Spec anchors: "D3D12_DISPATCH_LIST_INPUT" (the input "must be 8-byte aligned"), "D3D12_WORK_LIST_PRIMARY_RECORD"
(SecondaryRecords "must be 8-byte aligned"); design.md "Executor semantics checklist": an unmapped or misaligned VA
is undefined behaviour that is reported, never executed blindly, and never an IndexError.
"""

from __future__ import annotations

import resource
import struct
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from d3d12wl.capture.memory import VA_LIMIT, GpuMemory
from d3d12wl.errors import D3D12WLError, MemoryAccessError


@pytest.fixture
def mem() -> GpuMemory:
    m = GpuMemory()
    m.map(0x10000, bytes(range(64)), name="a")
    m.map(0x10040, bytearray(64), name="b", writable=True)  # adjacent to "a"
    m.map(0x20000, np.arange(4, dtype=np.uint64), name="c")
    return m


def test_reads_inside_regions(mem: GpuMemory) -> None:
    assert mem.read(0x10000, 4) == bytes([0, 1, 2, 3])
    assert mem.read_u32(0x10004) == struct.unpack("<I", bytes([4, 5, 6, 7]))[0]
    assert mem.read_u64(0x20008) == 1  # numpy regions are read as raw little-endian bytes
    assert mem.region_at(0x1003F).name == "a"
    assert mem.region_at(0x10040).name == "b"
    assert mem.view(0x10000, 8).readonly


@pytest.mark.parametrize(
    "va,size",
    [
        (0x0, 4),  # below every region
        (0x10080, 4),  # just past "b"
        (0x1FFFF, 1),  # the gap
        (0x20020, 8),  # just past "c"
        (VA_LIMIT - 8, 8),  # top of the VA space, unmapped
    ],
)
def test_unmapped_read_is_memory_access_error_with_va(mem: GpuMemory, va: int, size: int) -> None:
    with pytest.raises(MemoryAccessError) as e:
        mem.read(va, size)
    assert e.value.va == va and e.value.size == size
    assert f"0x{va:x}" in str(e.value)
    assert isinstance(e.value, D3D12WLError) and not isinstance(e.value, IndexError)


def test_read_straddling_two_adjacent_regions_is_an_error(mem: GpuMemory) -> None:
    # "a" ends at 0x10040 where "b" begins: contiguous VAs, but two allocations; a read may not run across.
    with pytest.raises(MemoryAccessError) as e:
        mem.read_u64(0x1003C, align=4)
    assert e.value.va == 0x1003C
    assert "past the end of region 'a'" in str(e.value)


def test_read_running_off_the_end_into_a_gap(mem: GpuMemory) -> None:
    with pytest.raises(MemoryAccessError) as e:
        mem.read(0x20010, 0x100)
    assert e.value.va == 0x20010 and e.value.size == 0x100


@pytest.mark.parametrize("va", [0x10004, 0x10001, 0x10002])
def test_misaligned_read_is_an_error_with_the_rule(mem: GpuMemory, va: int) -> None:
    # D3D12_DISPATCH_LIST_INPUT: "GPU virtual address ... Must be 8-byte aligned."
    with pytest.raises(MemoryAccessError) as e:
        mem.read(va, 24, align=8, what="D3D12_DISPATCH_LIST_INPUT", rule="DispatchList")
    assert e.value.va == va
    assert e.value.rule == "DispatchList"
    assert "8-byte aligned" in str(e.value)


def test_default_alignment_of_typed_reads(mem: GpuMemory) -> None:
    with pytest.raises(MemoryAccessError):
        mem.read_u32(0x10002)
    with pytest.raises(MemoryAccessError):
        mem.read_u64(0x10004)
    assert mem.read_u32(0x10002, align=1) == struct.unpack("<I", bytes([2, 3, 4, 5]))[0]


@pytest.mark.parametrize("va,size", [(VA_LIMIT - 4, 8), (VA_LIMIT - 1, 2), (2**64 + 16, 4), (-8, 8)])
def test_wrapping_reads_are_errors_not_wraparound(va: int, size: int) -> None:
    m = GpuMemory()
    m.map(0, bytes(64), name="low")  # a wrapped address would land here
    m.map(VA_LIMIT - 16, bytes(16), name="top")
    with pytest.raises(MemoryAccessError) as e:
        m.read(va, size)
    assert e.value.va == va


def test_region_at_the_very_top_of_the_va_space() -> None:
    m = GpuMemory()
    m.map(VA_LIMIT - 8, struct.pack("<Q", 0xC0FFEE), name="top")
    assert m.read_u64(VA_LIMIT - 8) == 0xC0FFEE
    with pytest.raises(ValueError):
        m.map(VA_LIMIT - 4, bytes(8), name="leaves")


def test_overlapping_regions_are_rejected_with_both_names(mem: GpuMemory) -> None:
    with pytest.raises(ValueError, match="'new'.*overlaps 'a'"):
        mem.map(0x10030, bytes(8), name="new")
    with pytest.raises(ValueError, match="'new'.*overlaps 'a'"):
        mem.map(0x10000 - 8, bytes(0x60), name="new")  # starts before "a", runs into both
    with pytest.raises(ValueError, match="'new'.*overlaps 'b'"):
        mem.map(0x10050, bytes(0x100), name="new")  # starts inside "b"


def test_empty_regions_overlap_nothing_and_hide_nothing() -> None:
    m = GpuMemory()
    m.map(0x1000, bytes(0x1000), name="big")
    m.map(0x1800, b"", name="empty")  # inside "big": allowed, it holds no bytes
    assert m.read(0x1900, 4) == bytes(4)  # the empty region must not shadow "big"
    m.map(0x3000, b"", name="empty2")
    m.map(0x2000, bytes(0x2000), name="after")  # spans the empty region at 0x3000
    assert m.region_at(0x3000).name == "after"
    assert [r.name for r in m.regions] == ["big", "empty", "after", "empty2"]


def test_write_only_to_writable_regions(mem: GpuMemory) -> None:
    mem.write_u32(0x10040, 0xDEADBEEF)
    assert mem.read_u32(0x10040) == 0xDEADBEEF
    with pytest.raises(MemoryAccessError, match="read-only"):
        mem.write_u32(0x10000, 1)
    with pytest.raises(MemoryAccessError):
        mem.write(0x1007E, b"\0\0\0\0")  # runs off the end of "b"


def test_map_file_part_and_copy_on_write(tmp_path: Path) -> None:
    f = tmp_path / "r.bin"
    f.write_bytes(bytes(range(256)))
    m = GpuMemory()
    r = m.map_file(0x40000, f, offset=16, size=32, writable=True)
    assert r.size == 32 and r.source == str(f)
    assert m.read(0x40000, 4) == bytes([16, 17, 18, 19])
    m.write(0x40000, b"\xff\xff")
    assert m.read(0x40000, 2) == b"\xff\xff"
    assert f.read_bytes()[16:18] == bytes([16, 17])  # the file on disk is untouched
    with pytest.raises(ValueError, match="shorter"):
        m.map_file(0x50000, f, offset=250, size=16)
    with pytest.raises(ValueError):
        m.map_file(0x50000, f, offset=-1)


def _rss_bytes() -> int:
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)


def test_multi_gigabyte_sparse_file_is_read_in_place(tmp_path: Path) -> None:
    """Issue 5 item 1: "Regions of gigabytes are read without loading them whole"."""
    size = 8 << 30  # 8 GiB, sparse: created with truncate, never written
    f = tmp_path / "huge.bin"
    with open(f, "wb") as fh:
        fh.truncate(size)
        fh.seek(size - 8)
        fh.write(struct.pack("<Q", 0x1122334455667788))  # one page at the very end
    rss_before = _rss_bytes()
    t0 = time.perf_counter()
    m = GpuMemory()
    base = 0x1_0000_0000
    r = m.map_file(base, f, name="huge")
    assert r.size == size
    assert m.read_u64(base) == 0
    assert m.read_u64(base + size - 8) == 0x1122334455667788
    assert m.read(base + (size // 2), 16) == bytes(16)
    with pytest.raises(MemoryAccessError) as e:
        m.read_u64(base + size - 4, align=4)
    assert e.value.va == base + size - 4
    elapsed = time.perf_counter() - t0
    assert elapsed < 2.0
    assert _rss_bytes() - rss_before < 64 << 20  # a few pages, not gigabytes


def test_release_drops_file_pages_and_keeps_the_bytes(tmp_path):
    """GpuMemory.release: the pages of a read-only file region leave the process (its RSS falls back) and the
    bytes read the same afterwards; a writable (copy-on-write) region keeps the bytes a write changed (its pages
    are paged out, MADV_PAGEOUT, not dropped) and bytes in memory keep theirs."""
    if not sys.platform.startswith("linux"):
        pytest.skip("RSS from /proc/self/statm")
    data = np.random.default_rng(1).integers(0, 255, 32 << 20, dtype=np.uint8).tobytes()
    (tmp_path / "r.bin").write_bytes(data)
    m = GpuMemory()
    m.map_file(0x10000000, tmp_path / "r.bin", name="r")
    cow = m.map_file(0x90000000, tmp_path / "r.bin", name="cow", writable=True)
    inline = bytearray(b"\1" * 4096)
    m.map(0x1000, inline, name="inline", writable=True)

    def statm() -> int:
        return int(Path("/proc/self/statm").read_text().split()[1]) * 4096

    before = statm()
    assert bytes(m.view(0x10000000, len(data))) == data  # touches every page
    touched = statm()
    m.release(0x10000000, len(data))
    assert touched - statm() > (24 << 20) and statm() - before < (8 << 20)
    assert m.read(0x10000000 + 12345, 100) == data[12345:12445]
    m.write(0x90000000, b"\xff\xfe")
    m.release(0x90000000, cow.size)
    m.release(0x1000, 4096)
    assert m.read(0x90000000, 3) == b"\xff\xfe" + data[2:3] and m.read(0x1000, 2) == b"\1\1"
