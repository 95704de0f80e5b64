"""``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126`` as the driver passes it: a cffi struct whose ``pDescription``
points at a cffi-owned NUL-terminated string, or NULL.

:class:`DriverMessage` is the Python value; :meth:`DriverMessage.encode` builds the C struct (keeping its string
alive) and :func:`decode` copies one back out, as the runtime does before ``pfnReportMessageCb`` returns.
All offsets, sizes and enum values come from the compiled headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from d3d12wl.messages import values
from d3d12wl.messages.errors import MessagesError

#: Sentinel for ``DriverMessage.description``: encode ``pDescription`` as NULL.
NULL_DESCRIPTION = None


@dataclass(frozen=True)
class DriverMessage:
    """The driver-authored payload (spec "Message Reporting").

    ``command_list_state_index`` ``None`` means "not attributable": it encodes as the no-correlation value
    (0xFFFFFFFF).  ``description`` ``None`` encodes a NULL ``pDescription`` (a contract violation the runtime
    rejects with E_INVALIDARG); ``severity``/``category`` may hold out-of-range ints for the same reason.
    """

    vendor_message_id: int
    severity: int
    category: int
    description: str | bytes | None
    command_list_state_index: int | None = None

    def description_bytes(self) -> bytes | None:
        if self.description is None:
            return None
        if isinstance(self.description, bytes):
            return self.description
        return self.description.encode("utf-8")

    def state_index(self) -> int:
        if self.command_list_state_index is None:
            return values.no_correlation()
        return self.command_list_state_index

    def encode(self) -> EncodedMessage:
        """Build the C struct the driver passes to ``pfnReportMessageCb``."""
        ffi = values.ffi()
        struct = ffi.new(f"{values.DDI_MESSAGE_STRUCT} *")
        text = self.description_bytes()
        string = ffi.NULL if text is None else ffi.new("char[]", text)
        try:
            struct.VendorMessageId = self.vendor_message_id
            struct.Severity = self.severity
            struct.Category = self.category
            struct.pDescription = string
            struct.CommandListStateIndex = self.state_index()
        except (OverflowError, TypeError) as exc:
            raise MessagesError(str(exc), where=values.DDI_MESSAGE_STRUCT) from exc
        return EncodedMessage(struct, string)


@dataclass(frozen=True)
class EncodedMessage:
    """A ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *`` plus the storage its pointer members reference."""

    pointer: Any  # cdata 'D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *'
    description_storage: Any  # cdata 'char[]' or NULL

    def to_bytes(self) -> bytes:
        """The struct's bytes (``pDescription`` is the address of the description storage)."""
        return bytes(values.ffi().buffer(self.pointer))


def decode(pointer: Any) -> DriverMessage:
    """Copy a ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *`` into a :class:`DriverMessage` (the runtime's copy).

    A NULL ``pDescription`` decodes to ``description=None``; the description is read up to its NUL, as the
    runtime trusts the driver to terminate it.
    """
    ffi = values.ffi()
    if pointer == ffi.NULL:
        raise MessagesError("pMessage is NULL", where=values.DDI_MESSAGE_STRUCT)
    raw = pointer.pDescription
    description = None if raw == ffi.NULL else ffi.string(raw)
    index = int(pointer.CommandListStateIndex)
    return DriverMessage(
        vendor_message_id=int(pointer.VendorMessageId),
        severity=int(pointer.Severity),
        category=int(pointer.Category),
        description=description,
        command_list_state_index=None if index == values.no_correlation() else index,
    )


def from_bytes(data: bytes | bytearray) -> Any:
    """View struct bytes as a ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *`` (the bytes object must outlive it)."""
    ffi = values.ffi()
    size = ffi.sizeof(values.DDI_MESSAGE_STRUCT)
    if len(data) != size:
        raise MessagesError(f"expected {size} bytes, got {len(data)}", where=values.DDI_MESSAGE_STRUCT)
    return ffi.from_buffer(f"{values.DDI_MESSAGE_STRUCT} *", data)
