"""Reading memory a driver points at without trusting it (spec "Message validation").

The runtime copies ``*pMessage`` and the ``pDescription`` string before ``pfnReportMessageCb`` returns, and "does
not validate that pDescription is NUL-terminated, nor does it bound the description's length: a non-NULL but
unterminated string cannot be safely inspected".  A conformance harness must inspect it anyway -- "pDescription
being NUL-terminated is a driver contract, caught in driver bring-up and HLK" -- so this module reads driver memory
the one way that cannot fault: ``process_vm_readv`` on the harness's own process, which returns ``EFAULT`` for an
unmapped or unreadable page instead of raising SIGSEGV (``/proc/self/mem`` where that call is not allowed, which
returns ``EIO``); and writes what the runtime writes into driver buffers (the identity string, its size) with
``process_vm_writev``.  Reads go page by page at their edges, so a page is read whole or found unreadable.

:func:`read_c_string` scans for the NUL up to :data:`DESCRIPTION_SCAN_LIMIT` bytes and keeps at most
:data:`DESCRIPTION_KEEP_LIMIT` of them: every length a driver supplies is bounded here.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import mmap
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass

#: How far the harness looks for a description's NUL (a longer description is kept truncated, undecided).
DESCRIPTION_SCAN_LIMIT = 64 << 20
#: How many bytes of a description the harness keeps (a longer one is kept truncated; the length is recorded).
DESCRIPTION_KEEP_LIMIT = 64 << 10

_PAGE = mmap.PAGESIZE
_CHUNK = 1 << 20

_libc = ctypes.CDLL(None, use_errno=True)
_memchr = _libc.memchr
_memchr.restype = ctypes.c_void_p
_memchr.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]


class _IOVec(ctypes.Structure):
    _fields_ = [("iov_base", ctypes.c_void_p), ("iov_len", ctypes.c_size_t)]


Reader = Callable[[int, int, "ctypes.Array[ctypes.c_char]"], int]  # (address, size, into) -> bytes read


Transfer = Callable[[int, int, int], int]  # (local address, remote address, size) -> bytes moved


def _vm_transfer(name: str) -> Transfer | None:
    """``process_vm_readv`` or ``process_vm_writev`` on this process, one buffer each way: the bytes moved, 0 when
    this process's memory at the remote address cannot be accessed (EFAULT); None where libc lacks the call."""
    call = getattr(_libc, name, None)
    if call is None:
        return None
    call.restype = ctypes.c_ssize_t
    call.argtypes = [ctypes.c_int, ctypes.POINTER(_IOVec), ctypes.c_ulong, ctypes.POINTER(_IOVec), ctypes.c_ulong,
                     ctypes.c_ulong]

    def transfer(local_at: int, remote_at: int, size: int) -> int:
        local, remote = _IOVec(local_at, size), _IOVec(remote_at, size)
        got = call(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if got < 0:
            err = ctypes.get_errno()
            if err == errno.EFAULT:
                return 0
            raise OSError(err, os.strerror(err))
        return int(got)

    try:  # tried once on memory of our own (the kernel may refuse the call: seccomp, no ptrace rights)
        source, target = ctypes.create_string_buffer(b"ok"), ctypes.create_string_buffer(2)
        local, remote = (source, target) if name.endswith("writev") else (target, source)
        if transfer(ctypes.addressof(local), ctypes.addressof(remote), 2) != 2 or target.raw != b"ok":
            return None
    except OSError:
        return None
    return transfer


def _vm_reader() -> Reader | None:
    transfer = _vm_transfer("process_vm_readv")
    if transfer is None:
        return None

    def read(address: int, size: int, into: ctypes.Array[ctypes.c_char]) -> int:
        return transfer(ctypes.addressof(into), address, size)

    return read


def _proc_mem_reader() -> Reader | None:
    try:
        fd = os.open("/proc/self/mem", os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None

    def read(address: int, size: int, into: ctypes.Array[ctypes.c_char]) -> int:
        try:
            return os.preadv(fd, [memoryview(into).cast("B")[:size]], address)
        except OSError as exc:
            if exc.errno in (errno.EIO, errno.EFAULT):
                return 0
            raise

    return read


@functools.cache
def _writer() -> Transfer | None:
    return _vm_transfer("process_vm_writev")


def write_bytes(address: int, data: bytes) -> bool:
    """Write ``data`` at ``address`` unless some of it cannot be written (then False; what could be written may have
    been).  Never faults.  Where the kernel offers no fault-safe write, the memory is checked readable first and
    written directly (a read-only page still faults there)."""
    if address <= 0:
        return False
    if not data:
        return True
    writer = _writer()
    if writer is not None:
        done = 0
        while done < len(data):  # page by page: a partial write stops at the page that cannot be written
            at = address + done
            size = min(len(data) - done, _PAGE - at % _PAGE)
            source = ctypes.create_string_buffer(data[done:done + size], size)
            if writer(ctypes.addressof(source), at, size) != size:
                return False
            done += size
        return True
    if len(read_bytes(address, len(data))) < len(data):  # pragma: no cover - no process_vm_writev
        return False
    ctypes.memmove(address, data, len(data))  # pragma: no cover
    return True  # pragma: no cover


@functools.cache
def _reader() -> Reader:
    reader = _vm_reader() or _proc_mem_reader()
    if reader is None:  # pragma: no cover - neither exists on this platform
        raise OSError(errno.ENOSYS, "no fault-safe way to read this process's memory (process_vm_readv, /proc/self/mem)")
    return reader


_buffers = threading.local()


def _buffer() -> ctypes.Array[ctypes.c_char]:
    """This thread's chunk buffer (reused: most reads are of short descriptions)."""
    buffer = getattr(_buffers, "chunk", None)
    if buffer is None:
        buffer = _buffers.chunk = ctypes.create_string_buffer(_CHUNK)
    return buffer


def read_bytes(address: int, size: int) -> bytes:
    """Up to ``size`` bytes at ``address``: fewer when unreadable memory starts before the end (none when the first
    byte is unreadable).  Never faults."""
    out = bytearray()
    buffer = _buffer()
    while len(out) < size:
        at = address + len(out)
        want = _chunk_size(at, min(size - len(out), _CHUNK))
        got = _read_chunk(at, want, buffer)
        out += buffer.raw[:got] if got > 4096 else ctypes.string_at(buffer, got)
        if got < want:
            break
    return bytes(out)


def _chunk_size(address: int, size: int) -> int:
    """``size`` or less, so that a chunk of a page or more ends on a page edge (and one of less stays in its page)."""
    end = address + size
    if size >= _PAGE:
        end -= end % _PAGE
    else:
        end = min(end, address - address % _PAGE + _PAGE)
    return end - address


def _read_chunk(address: int, size: int, into: ctypes.Array[ctypes.c_char]) -> int:
    """How many bytes of the ``size`` at ``address`` could be read into ``into`` (its readable prefix: page by page
    once a read comes back short)."""
    if address <= 0:
        return 0
    reader = _reader()
    got = reader(address, size, into)
    if got == size:
        return got
    done = 0
    page = ctypes.create_string_buffer(_PAGE)
    while done < size:
        at = address + done
        want = min(size - done, _PAGE - at % _PAGE)
        n = reader(at, want, page)
        ctypes.memmove(ctypes.addressof(into) + done, page, n)
        done += n
        if n < want:
            break
    return done


@dataclass(frozen=True)
class CString:
    """A C string as read from driver memory.

    ``data``: its first bytes (at most the keep limit), without the NUL.  ``length``: its length in bytes when the NUL
    was found, None when not.  ``unterminated``: unreadable memory came before any NUL (the string is provably not
    NUL-terminated: every byte of a terminated string up to its NUL is readable).  A string with neither a NUL nor
    unreadable memory within the scan limit is ``length`` None and not ``unterminated``: not decided."""

    data: bytes
    length: int | None
    unterminated: bool

    @property
    def truncated(self) -> bool:
        return self.length is None or self.length > len(self.data)


def read_c_string(address: int, *, scan_limit: int = DESCRIPTION_SCAN_LIMIT,
                  keep_limit: int = DESCRIPTION_KEEP_LIMIT) -> CString:
    """The NUL-terminated string at ``address``, read without trusting it (see :class:`CString`)."""
    buffer = _buffer()
    base = ctypes.addressof(buffer)
    kept = bytearray()
    scanned = 0
    chunk = 256  # most descriptions are short: read a little first, more as the string goes on
    while scanned < scan_limit:
        at = address + scanned
        want = _chunk_size(at, min(chunk, scan_limit - scanned))
        got = _read_chunk(at, want, buffer)
        found = _memchr(base, 0, got) if got else None
        end = got if found is None else found - base
        if len(kept) < keep_limit:
            kept += ctypes.string_at(buffer, min(end, keep_limit - len(kept)))
        if found is not None:
            return CString(bytes(kept), scanned + end, False)
        scanned += got
        if got < want:  # unreadable memory before any NUL
            return CString(bytes(kept), None, True)
        chunk = min(chunk * 16, _CHUNK)
    return CString(bytes(kept), None, False)
