"""The page heap the conformance suite lends a driver library (``d3d12wl.messages.page_heap``, issue 43): seed 003
"pDescription must be a non-NULL, NUL-terminated string ... caught in driver bring-up and HLK".  Its blocks end at an
unreadable page, its functions are the C library's while it is off, and a driver library's allocator is pointed at
it when the library is loaded."""

from __future__ import annotations

import ctypes
import shutil
from pathlib import Path

import pytest

from d3d12wl import _native
from d3d12wl.messages import c_driver as cd
from d3d12wl.messages import page_heap
from d3d12wl.messages.memory import read_bytes, read_c_string

pytestmark = pytest.mark.skipif(shutil.which("gcc") is None, reason="gcc builds the driver library")

lib, ffi = _native.lib, _native.ffi


def _address(pointer: object) -> int:
    return int(ffi.cast("uintptr_t", pointer))


@pytest.mark.parametrize("size", [1, 15, 16, 17, 64, 4096, 70000])
def test_a_block_ends_at_an_unreadable_page(size: int) -> None:
    """While on: the block's bytes are writable, the bytes up to its 16-byte end hold 0xD0 (never the NUL), and the
    next byte is unreadable, so a copy of ``size`` characters without its NUL reads as unterminated."""
    with page_heap.enabled():
        block = lib.d3d12wl_ph_malloc(size)
    try:
        ctypes.memset(_address(block), ord("x"), size)
        slack = -size % 16
        assert read_bytes(_address(block) + size, slack) == b"\xd0" * slack
        text = read_c_string(_address(block))
        assert text.unterminated and text.length is None and text.data.startswith(b"x" * min(size, 1024))
        assert lib.d3d12wl_ph_malloc_usable_size(block) == size
    finally:
        lib.d3d12wl_ph_free(block)


def test_while_off_every_call_is_the_c_librarys_and_either_kind_of_block_is_freed() -> None:
    """Off: malloc is the C library's (no page-heap block); free, realloc and malloc_usable_size take both kinds, so
    a library can stay patched for good."""
    before = lib.d3d12wl_page_heap_blocks()
    ordinary = lib.d3d12wl_ph_malloc(40)
    assert lib.d3d12wl_page_heap_blocks() == before and lib.d3d12wl_ph_malloc_usable_size(ordinary) >= 40
    with page_heap.enabled():
        guarded = lib.d3d12wl_ph_realloc(ordinary, 8)  # a C-library block grown into a guarded one
        copied = lib.d3d12wl_ph_strdup(b"abc")
        aligned = ffi.new("void **")
        assert lib.d3d12wl_ph_posix_memalign(aligned, 256, 10) == 0 and _address(aligned[0]) % 256 == 0
    assert lib.d3d12wl_page_heap_blocks() == before + 3
    assert read_c_string(_address(copied)).length == 3
    back = lib.d3d12wl_ph_realloc(guarded, 100)  # off again: into the C library's heap
    assert lib.d3d12wl_page_heap_blocks() == before + 2
    for block in (back, copied, aligned[0]):
        lib.d3d12wl_ph_free(block)
    assert lib.d3d12wl_page_heap_blocks() == before
    lib.d3d12wl_ph_free(ffi.NULL)


def test_a_driver_library_is_given_the_page_heap_when_it_is_loaded(tmp_path: Path) -> None:
    """c_driver.CDriverLibrary points the library's relocations of the C allocator at the page heap: the C reference
    driver's (calloc, realloc, free, strdup)."""
    library = cd.load_library(cd.build_driver(cd.REFERENCE_DRIVER_C, tmp_path / "reference.so"))
    assert library.page_heap is not None and library.page_heap.installed
    assert library.page_heap.symbols == ("calloc", "free", "realloc", "strdup")
    assert library.page_heap in page_heap.installations()


def test_an_image_the_walk_cannot_read_is_a_reason_not_an_error(tmp_path: Path) -> None:
    not_elf = tmp_path / "not_elf.so"
    not_elf.write_bytes(b"MZ" + bytes(62))
    got = page_heap.install(not_elf, "D3D12WLDriver_CreateDevice", 0x1000)
    assert not got.installed and "ELF" in (got.reason or "")
