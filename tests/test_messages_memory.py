"""Reading driver memory without trusting it (spec "Message validation": "pDescription being NUL-terminated is a driver
contract, caught in driver bring-up and HLK"; the runtime "does not validate that pDescription is NUL-terminated, nor
does it bound the description's length"): the harness's copy of a report never faults and bounds every length."""

from __future__ import annotations

import ctypes
import mmap
from collections.abc import Iterator

import pytest

from d3d12wl.messages import memory, values
from d3d12wl.messages.ddi import DriverMessage, copy_message

_libc = ctypes.CDLL(None)
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
_libc.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]
PAGE = mmap.PAGESIZE


@pytest.fixture
def guarded() -> Iterator[int]:
    """Two readable pages of 'A' followed by a page that cannot be read; yields the address of the first."""
    base = _libc.mmap(None, 3 * PAGE, mmap.PROT_READ | mmap.PROT_WRITE, mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
    assert base not in (None, ctypes.c_void_p(-1).value)
    assert _libc.mprotect(base + 2 * PAGE, PAGE, 0) == 0  # PROT_NONE
    ctypes.memset(base, ord("A"), 2 * PAGE)
    yield base
    _libc.munmap(base, 3 * PAGE)


def test_a_string_running_into_unreadable_memory_is_unterminated(guarded: int) -> None:
    text = memory.read_c_string(guarded + 10)
    assert text.unterminated and text.length is None and text.data == b"A" * (2 * PAGE - 10)


def test_a_string_ending_before_unreadable_memory_is_read_whole(guarded: int) -> None:
    ctypes.memset(guarded + 2 * PAGE - 1, 0, 1)  # the NUL is the last readable byte
    text = memory.read_c_string(guarded + 10)
    assert not text.unterminated and text.length == 2 * PAGE - 11 and len(text.data) == text.length


def test_reads_stop_at_unreadable_memory(guarded: int) -> None:
    assert memory.read_bytes(guarded + 2 * PAGE - 3, 10) == b"AAA"
    assert memory.read_bytes(guarded + 2 * PAGE, 10) == b""
    assert memory.read_bytes(8, 10) == b""
    assert memory.read_c_string(16).unterminated


def test_every_length_is_bounded() -> None:
    big = ctypes.create_string_buffer(b"x" * (3 << 20))  # 3 MiB and its NUL
    text = memory.read_c_string(ctypes.addressof(big))
    assert text.length == 3 << 20 and len(text.data) == memory.DESCRIPTION_KEEP_LIMIT and text.truncated
    cut = memory.read_c_string(ctypes.addressof(big), scan_limit=1000)  # no NUL within the scan: not decided
    assert cut.length is None and not cut.unterminated and len(cut.data) == 1000


def test_copy_message_never_faults(guarded: int) -> None:
    """The runtime's copy of *pMessage: NULL, unreadable and unterminated are told apart, a long description kept
    bounded with its length."""
    ffi = values.ffi()
    assert copy_message(ffi.NULL).problem == "null_message"
    assert copy_message(ffi.cast(f"{values.DDI_MESSAGE_STRUCT} *", 8)).problem == "unreadable_message"
    message = DriverMessage(1, values.ddi_severity("ERROR"), values.ddi_category("EXECUTION"), b"x").encode()
    message.pointer.pDescription = ffi.cast("char *", guarded + 5)
    unterminated = copy_message(message.pointer)
    assert unterminated.problem == "unterminated_description" and "before any NUL" in unterminated.why
    message.pointer.pDescription = ffi.cast("char *", 16)
    assert "cannot be read" in copy_message(message.pointer).why
    long = ffi.new("char[]", b"y" * (1 << 20))
    message.pointer.pDescription = long
    copied = copy_message(message.pointer)
    assert copied.problem is None and copied.description_length == 1 << 20
    assert copied.message is not None and copied.message.description == b"y" * memory.DESCRIPTION_KEEP_LIMIT


def test_the_identity_query_never_writes_through_a_wild_pointer(guarded: int) -> None:
    """pfnQueryObjectIdentityCb with a size or a string buffer the runtime cannot write: E_INVALIDARG (a real
    runtime would fault), and a buffer that ends in unwritable memory gets no partial string past it."""
    from d3d12wl.messages import ReferenceDriver, Runtime

    rt = Runtime(ReferenceDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    device = rt.create_device()
    resource = device.create_resource("MyVertexBuffer").handle_and_type()
    ffi = values.ffi()
    query = device.callbacks.pfnQueryObjectIdentityCb
    invalid = values.hresult("E_INVALIDARG")
    assert query(device.hRTDevice, resource, ffi.cast("uint64_t *", 8), ffi.NULL) == invalid
    size = ffi.new("uint64_t *", 4096)
    assert query(device.hRTDevice, resource, size, ffi.cast("char *", 16)) == invalid
    _libc.mprotect(guarded, 2 * PAGE, mmap.PROT_READ)  # readable, not writable
    assert query(device.hRTDevice, resource, size, ffi.cast("char *", guarded)) == invalid
    assert ctypes.string_at(guarded, 4) == b"AAAA"
