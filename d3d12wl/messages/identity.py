"""Spec "Object identity": runtime objects, their ``0x<COM-pointer>:'<name>'`` identity strings and the two-call
``pfnQueryObjectIdentityCb``.

* Size call: ``pIdentityString`` NULL -> ``*pIdentityStringSize`` = bytes needed (UTF-8, NUL included), S_OK.
* Fill call: capacity in ``*pIdentityStringSize``; too small -> DXGI_ERROR_MORE_DATA and the required size is
  written back; otherwise the NUL-terminated string is written (``*pIdentityStringSize`` is left as the caller's
  capacity: the spec does not say the runtime rewrites it on success).
* E_INVALIDARG, writing nothing, when ``pIdentityStringSize`` is NULL, ``hRTObject.Handle`` is NULL,
  ``hRTObject.Type`` is not a ``D3D12DDI_HANDLETYPE`` member, or the handle is not an object of that type.
* The name is read at query time (spec "Object identity timing": it may be "from the future").
* A name with an unpaired surrogate is converted as Windows converts UTF-16 to UTF-8 (U+FFFD), see
  :func:`identity_bytes`.
"""

from __future__ import annotations

import itertools
import sys
import threading
from dataclasses import dataclass
from typing import Any

from d3d12wl.messages import memory, values
from d3d12wl.messages.errors import MessagesError

#: Where the fake COM pointers of the model start (looks like a user-mode heap address).
_BASE_ADDRESS = 0x000001D4A0E50A40
_ADDRESS_STEP = 0x40


@dataclass
class RuntimeObject:
    """An API object the runtime can name: its COM pointer (also its runtime-side DDI handle), its interface and
    its ``D3D12DDI_HANDLETYPE``."""

    address: int
    interface: str
    handle_type_name: str  # the D3D12DDI_HANDLETYPE member without its D3D12DDI_HT_ prefix
    name: str | None = None

    @property
    def handle_type(self) -> int:
        return handle_type(self.handle_type_name)

    def set_name(self, name: str) -> None:
        """``ID3D12Object::SetName`` (LPCWSTR in C; any Python str here)."""
        self.name = name

    def identity_string(self) -> str:
        label = self.name if self.name is not None else f"Unnamed {self.interface} Object"
        return f"0x{self.address:016X}:'{label}'"

    def handle_and_type(self) -> Any:
        """A ``D3D12DDI_HANDLE_AND_TYPE`` naming this object, as a driver would build it."""
        return make_handle_and_type(self.address, self.handle_type)


def make_handle_and_type(handle: int, handle_type: int) -> Any:
    """A cffi ``D3D12DDI_HANDLE_AND_TYPE`` value (``Handle`` 0 is NULL)."""
    ffi = values.ffi()
    hat = ffi.new(f"{values.HANDLE_AND_TYPE_STRUCT} *")
    hat.Handle = ffi.cast("void *", handle)
    hat.Type = handle_type
    return hat[0]


def handle_type(short: str) -> int:
    """A ``D3D12DDI_HANDLETYPE`` member by its name without the ``D3D12DDI_HT_`` prefix (``"COMMAND_LIST"``)."""
    return values.enum_value(values.HANDLETYPE_ENUM, f"D3D12DDI_HT_{short}")


class ObjectTable:
    """The runtime's map from runtime-side handles to API objects."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._objects: dict[int, RuntimeObject] = {}
        self._addresses = itertools.count(_BASE_ADDRESS, _ADDRESS_STEP)

    def create(self, interface: str, handle_type_short: str, name: str | None = None) -> RuntimeObject:
        obj = RuntimeObject(0, interface, handle_type_short, name)
        with self._lock:
            obj.address = next(self._addresses)
            self._objects[obj.address] = obj
        return obj

    def destroy(self, obj: RuntimeObject) -> None:
        with self._lock:
            self._objects.pop(obj.address, None)

    def lookup(self, handle: int, handle_type_value: int) -> RuntimeObject | None:
        with self._lock:
            obj = self._objects.get(handle)
        return obj if obj is not None and obj.handle_type == handle_type_value else None

    def query_object_identity(self, hRTObject: Any, pIdentityStringSize: Any, pIdentityString: Any) -> int:  # noqa: N803
        """``PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126`` (without ``hRTDevice``, which the caller checked).

        ``hRTObject`` is a ``D3D12DDI_HANDLE_AND_TYPE`` (value or pointer); ``pIdentityStringSize`` a
        ``SIZE_T *`` (``uint64_t *``) or NULL; ``pIdentityString`` a ``char *`` or NULL.  The driver's size and
        buffer are read and written without trusting them (:mod:`d3d12wl.messages.memory`): memory that cannot be
        read or written is E_INVALIDARG, where a real runtime would fault.
        """
        ffi = values.ffi()
        invalid = values.hresult("E_INVALIDARG")
        if pIdentityStringSize == ffi.NULL:
            return invalid
        handle = int(ffi.cast("uintptr_t", hRTObject.Handle))
        type_value = int(hRTObject.Type)
        if handle == 0 or type_value not in {int(m) for m in values.enum(values.HANDLETYPE_ENUM)}:  # recognized?
            return invalid
        obj = self.lookup(handle, type_value)
        if obj is None:
            return invalid
        encoded = identity_bytes(obj.identity_string())
        size_at = int(ffi.cast("uintptr_t", pIdentityStringSize))
        size_bytes = ffi.sizeof("uint64_t")
        capacity = memory.read_bytes(size_at, size_bytes)
        if len(capacity) < size_bytes:
            return invalid
        needed = len(encoded).to_bytes(size_bytes, sys.byteorder)
        if pIdentityString == ffi.NULL:
            return values.hresult("S_OK") if memory.write_bytes(size_at, needed) else invalid
        if int.from_bytes(capacity, sys.byteorder) < len(encoded):
            return values.hresult("DXGI_ERROR_MORE_DATA") if memory.write_bytes(size_at, needed) else invalid
        if not memory.write_bytes(int(ffi.cast("uintptr_t", pIdentityString)), encoded):
            return invalid
        return values.hresult("S_OK")


def identity_bytes(identity: str) -> bytes:
    """The NUL-terminated UTF-8 the query writes.  A name set through ``SetName`` (LPCWSTR) may hold an unpaired
    UTF-16 surrogate, which UTF-8 cannot carry: it becomes U+FFFD, as Windows' UTF-16 -> UTF-8 conversion
    (``WideCharToMultiByte(CP_UTF8, 0, ...)``) makes it, so the size and fill calls agree and return S_OK."""
    return identity.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace").encode("utf-8") + b"\0"


def query_identity_string(query: Any, hRTDevice: Any, hRTObject: Any) -> str:  # noqa: N803
    """The driver side of the two-call pattern: size, allocate, fill; returns the decoded string.

    ``query`` is ``pfnQueryObjectIdentityCb``.  Raises :class:`MessagesError` with the HRESULT on failure.
    """
    ffi = values.ffi()
    size = ffi.new("uint64_t *")
    hr = query(hRTDevice, hRTObject, size, ffi.NULL)
    if values.failed(hr):
        raise MessagesError(f"size call failed with HRESULT 0x{hr & 0xFFFFFFFF:08X}", where="pfnQueryObjectIdentityCb")
    while True:
        buffer = ffi.new("char[]", int(size[0]))
        hr = query(hRTDevice, hRTObject, size, buffer)
        if hr == values.hresult("DXGI_ERROR_MORE_DATA"):  # renamed in between: retry with the new size
            continue
        if values.failed(hr):
            raise MessagesError(f"fill call failed with HRESULT 0x{hr & 0xFFFFFFFF:08X}",
                                where="pfnQueryObjectIdentityCb")
        return ffi.string(buffer).decode("utf-8")
