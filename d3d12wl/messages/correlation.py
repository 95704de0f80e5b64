"""Spec "Command list state correlation" and "CommandListStateIndex validity window".

The runtime issues an opaque CommandListStateIndex before each GPU-work generating command-list call and can later
resolve it to the command list that recorded the work and the kind and ordinal of that work (``[Draw #12]``).

Retention (spec "CommandListStateIndex validity window"), modelled as references on a per-recording state table:

* the recording holds its table until the command list is Reset (which installs a fresh table) or destroyed --
  so a recorded-but-never-submitted list's indices stay resolvable until then;
* each submission references the table at ExecuteCommandLists and releases it once the flush that processed it
  returns -- so resubmission without Reset resolves, and an in-flight submission of a Reset list still resolves
  against the recording that produced it;
* a table with no references is gone: its indices are stale and messages naming them surface unannotated;
* the number of live indices is bounded: past the bound the oldest are dropped even while their submissions are
  outstanding.

Ordinals are per kind and 0-based within one recording (as GBV's "Draw Index" is).
"""

from __future__ import annotations

import itertools
import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable
from dataclasses import dataclass, field

from d3d12wl.messages.errors import MessagesError

#: The reference the recording itself holds on its table.
RECORDING = "recording"

#: Default bound on live indices (the spec leaves the limit to the runtime).
DEFAULT_MAX_LIVE_INDICES = 1 << 16


@dataclass(frozen=True)
class WorkSite:
    """One GPU-work generating call: its kind (``"Draw"``, ``"Dispatch"``, ...) and ordinal among calls of that
    kind in its recording."""

    kind: str
    ordinal: int

    def label(self) -> str:
        return f"[{self.kind} #{self.ordinal}]"


@dataclass
class StateTable:
    """The command-list state table of one recording."""

    identity: Callable[[], str]  # the command list's identity string, read at resolution time
    recording: int  # 0 for the first recording of the command list, +1 per Reset
    holders: set[Hashable] = field(default_factory=lambda: {RECORDING})
    indices: list[int] = field(default_factory=list)
    _counts: dict[str, int] = field(default_factory=dict)

    def next_site(self, kind: str) -> WorkSite:
        ordinal = self._counts.get(kind, 0)
        self._counts[kind] = ordinal + 1
        return WorkSite(kind, ordinal)

    @property
    def alive(self) -> bool:
        return bool(self.holders)


@dataclass(frozen=True)
class Resolution:
    """What an index resolves to."""

    command_list: str  # identity string
    site: WorkSite
    recording: int

    def prefix(self) -> str:
        """The annotation the runtime puts before the driver's description."""
        return f"{self.command_list} {self.site.label()} "


class StateIndexRegistry:
    """Device-wide issue and resolution of CommandListStateIndex values."""

    def __init__(self, no_correlation: int, max_live: int = DEFAULT_MAX_LIVE_INDICES) -> None:
        if max_live < 1:
            raise MessagesError("the bound on live indices must be at least 1", where="max_live")
        self.no_correlation = no_correlation
        self.max_live = max_live
        self._lock = threading.Lock()
        self._live: OrderedDict[int, tuple[StateTable, WorkSite]] = OrderedDict()
        self._counter = itertools.count()
        self.dropped_by_bound = 0

    def new_table(self, identity: Callable[[], str], recording: int) -> StateTable:
        return StateTable(identity, recording)

    def issue(self, table: StateTable, kind: str) -> int:
        """A fresh index for the next ``kind`` call of ``table``'s recording (never the no-correlation value)."""
        with self._lock:
            if RECORDING not in table.holders:
                raise MessagesError("command list is not recording", where="CommandListStateIndex")
            index = next(self._counter) & 0xFFFFFFFF
            while index == self.no_correlation or index in self._live:
                index = next(self._counter) & 0xFFFFFFFF
            site = table.next_site(kind)
            self._live[index] = (table, site)
            table.indices.append(index)
            while len(self._live) > self.max_live:  # "the oldest are dropped"
                self._live.popitem(last=False)
                self.dropped_by_bound += 1
            return index

    def retain(self, table: StateTable, holder: Hashable) -> None:
        with self._lock:
            table.holders.add(holder)

    def release(self, table: StateTable, holder: Hashable) -> None:
        """Drop one reference; with the last one the table's indices become stale."""
        with self._lock:
            table.holders.discard(holder)
            if not table.holders:
                for index in table.indices:
                    entry = self._live.get(index)
                    if entry is not None and entry[0] is table:
                        del self._live[index]
                table.indices.clear()

    def resolve(self, index: int) -> Resolution | None:
        """The resolution of ``index``; ``None`` for the no-correlation value, unknown and stale indices."""
        if index == self.no_correlation:
            return None
        with self._lock:
            entry = self._live.get(index)
        if entry is None:
            return None
        table, site = entry
        return Resolution(table.identity(), site, table.recording)

    def is_live(self, index: int) -> bool:
        with self._lock:
            return index in self._live

    @property
    def live_count(self) -> int:
        with self._lock:
            return len(self._live)
