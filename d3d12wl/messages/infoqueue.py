"""The application side: an ``ID3D12InfoQueue1`` model holding ``D3D12_MESSAGE`` values.

Spec "Message IDs": apps filter driver-reported messages as a class by denying
``D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE`` through ``PushStorageFilter``; spec "Threading": adding a message
holds the InfoQueue lock and calls registered callbacks inline, still under that lock.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from d3d12wl.messages.errors import MessagesError

#: ``D3D12MessageFunc``: (category, severity, id, description, context) -> None
MessageCallback = Callable[[int, int, int, str, object], None]


@dataclass(frozen=True)
class Provenance:
    """Model-only facts about a driver-reported message that no real API surface exposes (spec "Open
    Questions"): kept so tests and tools can see what the driver sent and how the runtime annotated it."""

    vendor_message_id: int
    command_list_state_index: int  # as the driver sent it (0xFFFFFFFF included)
    driver_description: str
    annotation: str | None  # the prefix the runtime added, None if surfaced unmodified


@dataclass(frozen=True)
class Message:
    """``D3D12_MESSAGE``: Category, Severity, ID, pDescription (``DescriptionByteLength`` is ``len`` + 1)."""

    Category: int
    Severity: int
    ID: int
    pDescription: str
    provenance: Provenance | None = None

    @property
    def DescriptionByteLength(self) -> int:  # noqa: N802 - the C member name
        return len(self.pDescription.encode("utf-8", "surrogateescape")) + 1


@dataclass(frozen=True)
class InfoQueueFilterDesc:
    """``D3D12_INFO_QUEUE_FILTER_DESC``: lists of categories, severities, IDs."""

    categories: tuple[int, ...] = ()
    severities: tuple[int, ...] = ()
    ids: tuple[int, ...] = ()

    def matches_any(self, message: Message) -> bool:
        return (message.Category in self.categories or message.Severity in self.severities
                or message.ID in self.ids)

    def is_empty(self) -> bool:
        return not (self.categories or self.severities or self.ids)

    def admits(self, message: Message) -> bool:
        """As an allow list: every non-empty dimension must contain the message's value."""
        return ((not self.categories or message.Category in self.categories)
                and (not self.severities or message.Severity in self.severities)
                and (not self.ids or message.ID in self.ids))


@dataclass(frozen=True)
class InfoQueueFilter:
    """``D3D12_INFO_QUEUE_FILTER``: an AllowList and a DenyList."""

    AllowList: InfoQueueFilterDesc = field(default_factory=InfoQueueFilterDesc)
    DenyList: InfoQueueFilterDesc = field(default_factory=InfoQueueFilterDesc)

    @classmethod
    def deny_ids(cls, ids: Iterable[int]) -> InfoQueueFilter:
        return cls(DenyList=InfoQueueFilterDesc(ids=tuple(ids)))

    def passes(self, message: Message) -> bool:
        if self.DenyList.matches_any(message):
            return False
        return self.AllowList.is_empty() or self.AllowList.admits(message)


@dataclass
class _Registration:
    callback: MessageCallback
    ignore_filters: bool
    context: object


class InfoQueue:
    """``ID3D12InfoQueue1``: storage filter stack, stored messages, registered callbacks.

    ``lock`` is the InfoQueue lock; it is reentrant so that a callback may read the queue.
    """

    def __init__(self) -> None:
        self.lock = threading.RLock()
        self._messages: list[Message] = []
        self._filters: list[InfoQueueFilter] = [InfoQueueFilter()]
        self._callbacks: dict[int, _Registration] = {}
        self._next_cookie = 1

    # storage filters ------------------------------------------------------------------------------------------
    def push_storage_filter(self, flt: InfoQueueFilter) -> None:
        """``PushStorageFilter``: the pushed filter becomes the one in effect."""
        with self.lock:
            self._filters.append(flt)

    def pop_storage_filter(self) -> None:
        """``PopStorageFilter``: the bottom (empty) filter is never popped."""
        with self.lock:
            if len(self._filters) > 1:
                self._filters.pop()

    def get_storage_filter(self) -> InfoQueueFilter:
        with self.lock:
            return self._filters[-1]

    # callbacks ------------------------------------------------------------------------------------------------
    def register_message_callback(self, callback: MessageCallback, *, ignore_filters: bool = False,
                                  context: object = None) -> int:
        """``RegisterMessageCallback``; returns the cookie.  ``ignore_filters`` is
        ``D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS``; without it the callback sees only stored messages."""
        with self.lock:
            cookie = self._next_cookie
            self._next_cookie += 1
            self._callbacks[cookie] = _Registration(callback, ignore_filters, context)
            return cookie

    def unregister_message_callback(self, cookie: int) -> None:
        with self.lock:
            if self._callbacks.pop(cookie, None) is None:
                raise MessagesError(f"no callback registered with cookie {cookie}", where="UnregisterMessageCallback")

    # messages -------------------------------------------------------------------------------------------------
    def add_message(self, message: Message) -> bool:
        """Add a message (the DXGI call the runtime makes under the InfoQueue lock); returns whether it was stored.
        Callbacks run inline, under the lock."""
        with self.lock:
            stored = self._filters[-1].passes(message)
            if stored:
                self._messages.append(message)
            for reg in list(self._callbacks.values()):
                if stored or reg.ignore_filters:
                    reg.callback(message.Category, message.Severity, message.ID, message.pDescription, reg.context)
            return stored

    def get_num_stored_messages(self) -> int:
        with self.lock:
            return len(self._messages)

    def get_message(self, index: int) -> Message:
        """``GetMessage``: the stored message at ``index``."""
        with self.lock:
            if not 0 <= index < len(self._messages):
                raise MessagesError(f"message index {index} out of range (0..{len(self._messages) - 1})",
                                    where="GetMessage")
            return self._messages[index]

    def messages(self, message_id: int | None = None) -> list[Message]:
        """All stored messages (optionally those with one ID), oldest first."""
        with self.lock:
            return [m for m in self._messages if message_id is None or m.ID == message_id]

    def clear_stored_messages(self) -> None:
        with self.lock:
            self._messages.clear()
