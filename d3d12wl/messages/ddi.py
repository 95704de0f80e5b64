"""``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126`` as the driver passes it: a cffi struct whose ``pDescription``
points at a cffi-owned NUL-terminated string, or NULL.

:class:`DriverMessage` is the Python value; :meth:`DriverMessage.encode` builds the C struct (keeping its string
alive) and :func:`decode` copies one back out, as the runtime does before ``pfnReportMessageCb`` returns.
All offsets, sizes and enum values come from the compiled headers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from d3d12wl.messages import memory, values
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


@dataclass(frozen=True)
class MessageCopy:
    """What the runtime's copy of ``*pMessage`` found (:func:`copy_message`): the message, or why there is none.

    ``problem`` is None (copied), ``"null_message"``, ``"unreadable_message"`` (pMessage points at memory that cannot
    be read) or ``"unterminated_description"`` (unreadable memory before any NUL of pDescription: see
    :mod:`d3d12wl.messages.memory`); ``message`` is None only for the first two.  ``description_length`` is the
    description's length in bytes when its NUL was found (None: NULL, unterminated, or no NUL within the scan limit);
    a description longer than :data:`~d3d12wl.messages.memory.DESCRIPTION_KEEP_LIMIT` is kept truncated."""

    message: DriverMessage | None
    problem: str | None = None
    why: str = ""
    description_length: int | None = None


def copy_message(pointer: Any) -> MessageCopy:
    """Copy a ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *`` as the runtime does before ``pfnReportMessageCb`` returns,
    reading the driver's memory without trusting it: a pointer to unreadable memory, or a description that runs into
    unreadable memory before its NUL, is reported as such instead of faulting; every length is bounded."""
    ffi = values.ffi()
    address = int(ffi.cast("uintptr_t", pointer)) if pointer != ffi.NULL else 0
    if not address:
        return MessageCopy(None, "null_message", "pMessage is NULL")
    size = ffi.sizeof(values.DDI_MESSAGE_STRUCT)
    raw = memory.read_bytes(address, size)
    if len(raw) < size:
        return MessageCopy(None, "unreadable_message",
                           f"pMessage 0x{address:x} points at memory that cannot be read ({len(raw)} of {size} bytes)")
    struct = ffi.from_buffer(f"{values.DDI_MESSAGE_STRUCT} *", raw)
    text_at = int(ffi.cast("uintptr_t", struct.pDescription))
    index = int(struct.CommandListStateIndex)
    vendor_id, severity, category = int(struct.VendorMessageId), int(struct.Severity), int(struct.Category)
    state_index = None if index == values.no_correlation() else index
    if not text_at:
        return MessageCopy(DriverMessage(vendor_id, severity, category, None, state_index))
    text = memory.read_c_string(text_at)
    message = DriverMessage(vendor_id, severity, category, text.data, state_index)
    if text.unterminated:
        why = (f"pDescription 0x{text_at:x} points at memory that cannot be read" if not text.data else
               f"pDescription 0x{text_at:x} is not NUL-terminated: unreadable memory at byte {len(text.data)} "
               "before any NUL")
        return MessageCopy(message, "unterminated_description", why)
    return MessageCopy(message, description_length=text.length)


def decode(pointer: Any) -> DriverMessage:
    """Copy a ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *`` into a :class:`DriverMessage` (the runtime's copy).

    A NULL ``pDescription`` decodes to ``description=None``; the description is read up to its NUL (bounded, see
    :func:`copy_message`).  A NULL or unreadable pointer, or an unterminated description, raises
    :class:`MessagesError`."""
    copy = copy_message(pointer)
    if copy.problem is not None:
        raise MessagesError(copy.why, where=values.DDI_MESSAGE_STRUCT)
    assert copy.message is not None
    return copy.message


def from_bytes(data: bytes | bytearray) -> Any:
    """View struct bytes as a ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *`` (the bytes object must outlive it)."""
    ffi = values.ffi()
    size = ffi.sizeof(values.DDI_MESSAGE_STRUCT)
    if len(data) != size:
        raise MessagesError(f"expected {size} bytes, got {len(data)}", where=values.DDI_MESSAGE_STRUCT)
    return ffi.from_buffer(f"{values.DDI_MESSAGE_STRUCT} *", data)
