"""The page heap the conformance suite lends a driver library (``d3d12wl/messages/c/page_heap.c``, compiled into
``d3d12wl._native``).

"pDescription must be a non-NULL, NUL-terminated string", and "pDescription being NUL-terminated is a driver
contract, caught in driver bring-up and HLK" (seed 003): a description whose NUL is missing is a string with more
bytes after it, up to the next zero byte, unless the bytes after it cannot be read.  A full page heap (what HLK runs
drivers under on Windows) makes them unreadable: every heap block ends where a guard page begins.  This module gives
one library that page heap: :func:`install` points the library's relocations of the C allocator (``malloc``,
``calloc``, ``realloc``, ``free``, ``strdup``, ...) at the page heap's functions, which are the C library's own while
the page heap is off; :func:`enabled` turns it on for a stretch of a check.

Only the library's own calls are redirected (its GOT entries and data relocations for those symbols, x86-64 ELF):
a block the C library or another library allocates for it (``asprintf``, C++ ``operator new``) is an ordinary block,
and a block of the page heap's that another library frees or reallocates (``getline`` on a buffer of the driver's)
would reach the C library's allocator, which does not own it -- the one way a driver can notice the page heap.
"""

from __future__ import annotations

import importlib
import mmap
import os
import struct
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

#: the C allocator's symbols the page heap replaces, and the page heap's function for each
REPLACED = {
    "malloc": "d3d12wl_ph_malloc", "calloc": "d3d12wl_ph_calloc", "realloc": "d3d12wl_ph_realloc",
    "reallocarray": "d3d12wl_ph_reallocarray", "free": "d3d12wl_ph_free", "strdup": "d3d12wl_ph_strdup",
    "strndup": "d3d12wl_ph_strndup", "__strdup": "d3d12wl_ph_strdup", "__strndup": "d3d12wl_ph_strndup",
    "posix_memalign": "d3d12wl_ph_posix_memalign",
    "aligned_alloc": "d3d12wl_ph_aligned_alloc", "memalign": "d3d12wl_ph_memalign",
    "malloc_usable_size": "d3d12wl_ph_malloc_usable_size",
}

# ELF64 (the System V gABI and the x86-64 psABI): what the relocation walk reads
_EM_X86_64 = 62
_PT_LOAD, _PT_DYNAMIC = 1, 2
_DT_NULL, _DT_PLTRELSZ, _DT_STRTAB, _DT_SYMTAB, _DT_RELA, _DT_RELASZ, _DT_JMPREL = 0, 2, 5, 6, 7, 8, 23
_R_X86_64_64, _R_X86_64_GLOB_DAT, _R_X86_64_JUMP_SLOT = 1, 6, 7
_SYM_SIZE, _RELA_SIZE = 24, 24


@dataclass(frozen=True)
class Installation:
    """The page heap in one library: how many relocation slots point at it and of which symbols, or why none do
    (``reason``)."""

    path: str
    slots: int = 0
    symbols: tuple[str, ...] = ()
    reason: str | None = None

    @property
    def installed(self) -> bool:
        return self.reason is None and self.slots > 0


_lock = threading.Lock()
_installed: dict[str, Installation] = {}


def _native() -> Any:
    return importlib.import_module("d3d12wl._native")  # the cffi-built extension (no stub)


def installations() -> list[Installation]:
    """Every library this process gave the page heap (or tried to)."""
    with _lock:
        return list(_installed.values())


@contextmanager
def enabled() -> Iterator[None]:
    """The page heap on for the block (new blocks of every installed library are guarded), then as it was."""
    lib = _native().lib
    before = lib.d3d12wl_page_heap_enable(1)
    try:
        yield
    finally:
        lib.d3d12wl_page_heap_enable(before)


def _relocations(data: bytes, symbol: str) -> tuple[int | None, list[tuple[int, str]]]:
    """(``symbol``'s value, the (offset, name) of every relocation of a replaced symbol) of the ELF image ``data``."""
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("not a little-endian ELF64 file")
    (machine,) = struct.unpack_from("<H", data, 18)
    if machine != _EM_X86_64:
        raise ValueError(f"e_machine {machine} is not x86-64")
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    loads: list[tuple[int, int, int]] = []
    dynamic = None
    for i in range(phnum):
        p_type, _flags, p_offset, p_vaddr, _paddr, p_filesz = struct.unpack_from("<IIQQQQ", data, phoff + i * phentsize)
        if p_type == _PT_LOAD:
            loads.append((p_vaddr, p_offset, p_filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (p_offset, p_filesz)
    if dynamic is None:
        raise ValueError("no PT_DYNAMIC segment")

    def offset(vaddr: int) -> int:
        for start, off, size in loads:
            if start <= vaddr < start + size:
                return off + vaddr - start
        raise ValueError(f"address 0x{vaddr:x} is in no loaded segment")

    tags: dict[int, int] = {}
    for at in range(dynamic[0], dynamic[0] + dynamic[1], 16):
        tag, value = struct.unpack_from("<qQ", data, at)
        if tag == _DT_NULL:
            break
        tags.setdefault(tag, value)
    if _DT_SYMTAB not in tags or _DT_STRTAB not in tags:
        raise ValueError("no dynamic symbol table")
    symtab, strtab = offset(tags[_DT_SYMTAB]), offset(tags[_DT_STRTAB])

    def name(index: int) -> str:
        (st_name,) = struct.unpack_from("<I", data, symtab + index * _SYM_SIZE)
        end = data.index(b"\0", strtab + st_name)
        return data[strtab + st_name:end].decode("ascii", "replace")

    out: list[tuple[int, str]] = []
    for table, size in ((_DT_JMPREL, _DT_PLTRELSZ), (_DT_RELA, _DT_RELASZ)):
        if table not in tags:
            continue
        base = offset(tags[table])
        for at in range(base, base + tags.get(size, 0), _RELA_SIZE):
            r_offset, r_info, r_addend = struct.unpack_from("<QQq", data, at)
            kind, index = r_info & 0xFFFFFFFF, r_info >> 32
            if kind in (_R_X86_64_JUMP_SLOT, _R_X86_64_GLOB_DAT, _R_X86_64_64) and index and not r_addend:
                sym = name(index)
                if sym in REPLACED:
                    out.append((r_offset, sym))
    value = None
    count = (offset(tags[_DT_STRTAB]) - symtab) // _SYM_SIZE if tags[_DT_STRTAB] > tags[_DT_SYMTAB] else 0
    for index in range(1, count):
        if name(index) == symbol:
            (value,) = struct.unpack_from("<Q", data, symtab + index * _SYM_SIZE + 8)
            break
    return value, out


def _protection(address: int) -> int | None:
    """The protection of the mapping holding ``address`` (/proc/self/maps), or None."""
    try:
        with open("/proc/self/maps", encoding="ascii", errors="replace") as maps:
            for line in maps:
                span, perms = line.split(maxsplit=2)[:2]
                lo, hi = (int(x, 16) for x in span.split("-"))
                if lo <= address < hi:
                    return ((mmap.PROT_READ if perms[0] == "r" else 0) | (mmap.PROT_WRITE if perms[1] == "w" else 0)
                            | (mmap.PROT_EXEC if perms[2] == "x" else 0))
    except OSError:
        return None
    return None


def install(path: str | Path, symbol: str, address: int) -> Installation:
    """Point the relocations of the C allocator in the loaded library at ``path`` at the page heap (off until
    :func:`enabled`).  ``symbol`` is one of its exported functions and ``address`` where it is loaded (they give the
    library's load base).  Once per library and process; an image the walk cannot read is an installation with a
    ``reason``, never an error (the check that needs it then says it could not decide)."""
    key = str(Path(path).resolve())
    with _lock:
        done = _installed.get(key)
        if done is not None:
            return done
        try:
            value, relocations = _relocations(Path(key).read_bytes(), symbol)
            if value is None:
                raise ValueError(f"{symbol} is not in its dynamic symbol table")
            if not relocations:
                raise ValueError("it calls none of the C allocator's functions through a relocation")
            native = _native()
            load_base = address - value
            for r_offset, sym in relocations:
                slot = load_base + r_offset
                target = int(native.ffi.cast("uintptr_t", native.ffi.addressof(native.lib, REPLACED[sym])))
                prot = _protection(slot)
                failed = native.lib.d3d12wl_page_heap_patch(slot, target, prot if prot is not None else mmap.PROT_READ)
                if failed:
                    raise ValueError(f"mprotect of its relocation of {sym} failed: {os.strerror(failed)}")
            done = Installation(key, len(relocations), tuple(sorted({sym for _, sym in relocations})))
        except (OSError, ValueError, struct.error) as exc:
            done = Installation(key, reason=str(exc))
        _installed[key] = done
        return done
