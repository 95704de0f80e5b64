"""The runtime side of the driver-reported-messages channel (seed 003).

:class:`Runtime` is one process against one adapter's :class:`~d3d12wl.messages.driver.Driver`: it owns the
global :class:`~d3d12wl.messages.enabling.DebugInterface` and the registry overlay and creates :class:`Device`
objects.  A device owns the :class:`~d3d12wl.messages.infoqueue.InfoQueue`, the
:class:`~d3d12wl.messages.correlation.StateIndexRegistry`, its queues and command lists, and implements
``pfnReportMessageCb`` / ``pfnQueryObjectIdentityCb``.

Locks: ``_api`` guards the runtime's own state and is never held while calling the driver or the InfoQueue
(spec "Threading": the runtime releases its locks before invoking the flush DDI); reports serialize on the
InfoQueue lock, under which registered callbacks run.

Every ``pfnReportMessageCb`` call is logged as a :class:`ReportRecord` and every flush as a
:class:`FlushRecord`, so the conformance suite can judge a driver's use of the channel.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from d3d12wl.messages import values
from d3d12wl.messages.correlation import DEFAULT_MAX_LIVE_INDICES, RECORDING, StateIndexRegistry, StateTable
from d3d12wl.messages.ddi import DriverMessage, copy_message
from d3d12wl.messages.driver import CoreLayerCallbacks, DeviceFuncs, Driver, DriverDevice, DriverHandle
from d3d12wl.messages.enabling import DebugInterface, EnableDecision, RegistryOverlay, decide
from d3d12wl.messages.errors import MessagesError
from d3d12wl.messages.identity import ObjectTable, RuntimeObject
from d3d12wl.messages.infoqueue import InfoQueue, Message, Provenance

INITIALIZATION_TEXT = "D3D12 Driver Reported Messages Enabled"


# ------------------------------------------------------------------------------------------------------------------
# records the conformance suite reads
# ------------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ReportRecord:
    """One ``pfnReportMessageCb`` call as the runtime saw it."""

    hresult: int
    rejection: str | None  # why it was dropped (None: accepted)
    message: DriverMessage | None  # the runtime's copy (None if pMessage was NULL or the call was rejected early)
    surfaced: Message | None  # what went to the InfoQueue (whether or not a storage filter kept it)
    thread: int
    during_enable: bool  # inside pfnEnableExtendedFeature
    during_flush: str | None  # kind of the flush in progress on the device, if any
    index_state: str  # "none" (0xFFFFFFFF), "unknown", "live", "late" (its submissions all flushed), "dropped"
    executed: bool | None = None  # whether the index's recording had run on the model GPU (None: no issued index)
    removal_flushed: bool = False  # made after the device-removal flush returned
    #: the kind of the rejection, one of :data:`REJECTION_KINDS` (None: accepted); ``rejection`` is its wording
    rejection_kind: str | None = None
    #: the description's length in bytes (None: NULL, unterminated, or longer than the harness looks); the copy in
    #: ``message`` keeps at most :data:`~d3d12wl.messages.memory.DESCRIPTION_KEEP_LIMIT` bytes of it
    description_length: int | None = None
    #: the reporting thread's kernel id (``threading.get_native_id()``): which threads existed when is a set of these
    native_thread: int | None = None


#: why the runtime drops a report (``ReportRecord.rejection_kind``).  The first seven are the spec's (checked in
#: this order); ``unreadable_message`` and ``unterminated_description`` are the model's own: a real runtime would read
#: such memory and fault or over-read ("does not attempt to validate the string's termination"), the model reads it
#: without trusting it (:mod:`d3d12wl.messages.memory`) and drops the message (checked right after null_message, and
#: right after null_description)
REJECTION_KINDS = ("destroyed_device", "wrong_device", "not_enabled", "null_message", "null_description",
                   "severity_range", "category_range", "unreadable_message", "unterminated_description")


@dataclass(frozen=True)
class FlushRecord:
    kind: str  # "ExecuteCommandLists", "Wait", "queue destruction", "device removal"
    queue: str | None
    submissions: tuple[int, ...]  # submission ids whose completion this flush processed
    thread: int


@dataclass
class _Recording:
    table: StateTable
    command_list: CommandList
    submissions: list[Submission] = field(default_factory=list)
    executions: int = 0  # submissions of it the model GPU has run


@dataclass
class Submission:
    """One ExecuteCommandLists call."""

    id: int
    queue: CommandQueue
    lists: tuple[CommandList, ...]
    recordings: tuple[_Recording, ...]
    signal_value: int | None = None  # the first Signal enqueued after it
    gpu_done: bool = False
    claimed: bool = False  # taken by a flush in progress
    flushed: bool = False


# ------------------------------------------------------------------------------------------------------------------
# runtime
# ------------------------------------------------------------------------------------------------------------------


class Runtime:
    """One process (the D3D12 runtime + its global debug state) on one adapter driven by ``driver``."""

    def __init__(self, driver: Driver, *, registry: RegistryOverlay | None = None) -> None:
        self.driver = driver
        self.debug = DebugInterface()
        self.registry = registry or RegistryOverlay()
        # "At adapter init, the runtime queries the driver's supported extended features"
        self.supported_features: Mapping[int, int] = dict(driver.get_supported_extended_features())

    def create_device(self, *, max_live_indices: int = DEFAULT_MAX_LIVE_INDICES) -> Device:
        """``D3D12CreateDevice``: latch the toggle, apply the overlay, enable the feature if both sides agree."""
        return Device(self, decide(self.debug, self.registry), max_live_indices)

    def negotiated_version(self) -> int | None:
        """The highest feature version both sides understand, or None if the driver does not offer the feature."""
        offered = self.supported_features.get(values.feature_driver_reported_messages(), values.feature_version_none())
        version = min(int(offered), values.feature_version_0())
        return None if version <= values.feature_version_none() else version


class Device:
    """``ID3D12Device`` with its ``ID3D12InfoQueue1`` (:attr:`info_queue`)."""

    def __init__(self, runtime: Runtime, decision: EnableDecision, max_live_indices: int) -> None:
        self.runtime = runtime
        self.decision = decision
        self.info_queue = InfoQueue()
        self.objects = ObjectTable()
        self.indices = StateIndexRegistry(values.no_correlation(), max_live_indices)
        self.reports: list[ReportRecord] = []
        self.flushes: list[FlushRecord] = []
        self._api = threading.Lock()
        self._serial = itertools.count(1)
        self._queues: list[CommandQueue] = []
        self._lists: list[CommandList] = []
        self._index_recording: dict[int, _Recording] = {}
        self._flush_kind: str | None = None
        self._flush_depth = 0
        self._enabling = False
        self._feature_enabled = False
        self._removed_reason: str | None = None
        self._removal_surfaced = False
        self._removal_flushed = False
        self._destroyed = False
        #: threads waiting for the InfoQueue lock in pfnReportMessageCb: threading.get_ident() -> get_native_id()
        self._info_queue_waiters: dict[int, int] = {}
        self._report_seconds: dict[int, float] = {}  # per thread: time spent inside pfnReportMessageCb
        self._waiters_lock = threading.Lock()
        self._in_report: DriverMessage | None = None  # the report being surfaced (under the InfoQueue lock)
        self.feature_version: int | None = None
        self.funcs: DeviceFuncs | None = None
        self.hRTDevice = self  # the runtime-side device handle the callbacks are given
        self.callbacks = CoreLayerCallbacks(self.hRTDevice, self._report_message_cb, self._query_object_identity_cb)
        self.driver_device: DriverDevice = runtime.driver.create_device(self.callbacks)
        version = runtime.negotiated_version()
        if decision.requested and version is not None:
            self._enable(version)

    def _enable(self, version: int) -> None:
        """``pfnEnableExtendedFeature``: the feature is on from here, so the driver may report the initialization
        message before the call returns."""
        self._feature_enabled = True
        self.feature_version = version
        self._enabling = True
        try:
            funcs = self.driver_device.enable_extended_feature(values.feature_driver_reported_messages(), version)
        finally:
            self._enabling = False
        if funcs is None:  # the driver refused: the channel stays off
            self._feature_enabled = False
            self.feature_version = None
            return
        self.funcs = funcs

    # ---- state ----------------------------------------------------------------------------------------------------
    @property
    def driver_reported_messages_enabled(self) -> bool:
        """Whether the runtime enabled the extended feature on this device."""
        return self._feature_enabled

    @property
    def destroyed(self) -> bool:
        return self._destroyed

    def messages(self) -> list[Message]:
        """Stored messages with ``D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE``."""
        return self.info_queue.messages(values.driver_reported_message_id())

    # ---- objects --------------------------------------------------------------------------------------------------
    def create_command_queue(self, name: str | None = None) -> CommandQueue:
        self._check_alive()
        queue = CommandQueue(self, self.objects.create("ID3D12CommandQueue", "COMMAND_QUEUE", name))
        with self._api:
            self._queues.append(queue)
        self.driver_device.create_command_queue(queue.handle)
        return queue

    def create_command_list(self, name: str | None = None) -> CommandList:
        self._check_alive()
        cl = CommandList(self, self.objects.create("ID3D12GraphicsCommandList", "COMMAND_LIST", name))
        with self._api:
            self._lists.append(cl)
        self.driver_device.create_command_list(cl.handle)
        return cl

    def create_resource(self, name: str | None = None) -> RuntimeObject:
        """A named ``ID3D12Resource`` (for identity queries)."""
        self._check_alive()
        return self.objects.create("ID3D12Resource", "0012_RESOURCE", name)

    def _handle(self, kind: str, obj: RuntimeObject) -> DriverHandle:
        return DriverHandle(kind, next(self._serial), obj)

    def _check_alive(self) -> None:
        if self._destroyed:
            raise MessagesError("the device has been destroyed", where="ID3D12Device")

    # ---- device removal -------------------------------------------------------------------------------------------
    def remove(self, reason: str = "DXGI_ERROR_DEVICE_REMOVED") -> None:
        """Model of a removal event (a hang, a fault): the runtime notices it at the next API call that surfaces it.

        ``reason`` is the HRESULT GetDeviceRemovedReason will return, by name (``"DXGI_ERROR_DEVICE_HUNG"``); it
        must be a failure HRESULT the compiled headers declare (:data:`values.REMOVAL_REASONS` are those the spec's
        "DXGI_ERROR_DEVICE_REMOVED (or related error)" covers)."""
        hr = values.hresult(reason)
        if not values.failed(hr):
            raise MessagesError(f"{reason} is not a failure HRESULT", where="device removal reason")
        with self._api:
            if self._removed_reason is None:
                self._removed_reason = reason

    @property
    def removed(self) -> bool:
        return self._removed_reason is not None

    def get_device_removed_reason(self) -> int:
        """``GetDeviceRemovedReason``: S_OK, or the removal reason (and the removal flush, the first time)."""
        if self._removed_reason is None:
            return values.hresult("S_OK")
        return self._surface_removal()

    @property
    def removal_surfaced(self) -> bool:
        """Whether the runtime has surfaced the removal to the application (and so made the removal flush)."""
        return self._removal_surfaced

    def _surface_removal(self) -> int:
        """Spec "Device removed behavior": the first time the runtime surfaces DXGI_ERROR_DEVICE_REMOVED (or the
        related error the removal gave) it calls the flush synchronously, at most once per device; no flush of any
        kind follows it.  Returns the removal reason's HRESULT."""
        with self._api:
            first = not self._removal_surfaced
            self._removal_surfaced = True
            reason = self._removed_reason or "DXGI_ERROR_DEVICE_REMOVED"
        if first:
            try:
                self._flush("device removal", None, everything=True)
            finally:
                with self._api:
                    self._removal_flushed = True
        return values.hresult(reason)

    # ---- flush ----------------------------------------------------------------------------------------------------
    def _flush(self, kind: str, queue: CommandQueue | None, *, unconditional: CommandQueue | None = None,
               everything: bool = False) -> None:
        """Call ``pfnFlushDriverReportedMessages`` for the device, then release the submissions it processed.

        A regular flush processes the submissions the runtime has observed complete on any queue (the flush is
        device-wide); queue destruction adds all of that queue's outstanding submissions; the removal flush takes
        every outstanding submission."""
        with self._api:
            if not self._feature_enabled or self.funcs is None or self._destroyed:
                return
            if self._removal_surfaced and kind != "device removal":
                return
            batch: list[Submission] = []
            for q in self._queues:
                for sub in q._outstanding:
                    if sub.claimed:
                        continue
                    if everything or q is unconditional or q._observed_complete(sub):
                        sub.claimed = True
                        batch.append(sub)
            self._flush_depth += 1
            outer = self._flush_kind
            self._flush_kind = kind
        try:
            self.funcs.pfnFlushDriverReportedMessages(self.hRTDevice)  # no runtime lock held: reports may re-enter
        finally:
            with self._api:
                self._flush_depth -= 1
                self._flush_kind = outer
                for sub in batch:
                    sub.flushed = True
                    sub.queue._outstanding.remove(sub)
                    for rec in sub.recordings:
                        self.indices.release(rec.table, sub.id)
                self.flushes.append(FlushRecord(kind, queue.object.identity_string() if queue else None,
                                                tuple(s.id for s in batch), threading.get_ident()))

    # ---- callbacks --------------------------------------------------------------------------------------------------
    def _report_message_cb(self, hRTDevice: Any, pMessage: Any) -> int:  # noqa: N803
        """``PFND3D12DDI_REPORTMESSAGE_CB_0126``: reports serialize on the InfoQueue lock ("Concurrent callers block;
        they do not corrupt state"); a thread waiting for it is listed in :meth:`threads_waiting_for_info_queue`."""
        started = time.perf_counter()
        me = threading.get_ident()
        lock = self.info_queue.lock
        if not lock.acquire(blocking=False):
            with self._waiters_lock:
                self._info_queue_waiters[me] = threading.get_native_id()
            try:
                lock.acquire()
            finally:
                with self._waiters_lock:
                    self._info_queue_waiters.pop(me, None)
        try:
            return self._report_locked(hRTDevice, pMessage)
        finally:
            lock.release()
            with self._waiters_lock:
                self._report_seconds[me] = self._report_seconds.get(me, 0.0) + time.perf_counter() - started

    def report_seconds(self, thread: int) -> float:
        """The time ``thread`` (``threading.get_ident()``) has spent inside ``pfnReportMessageCb`` on this device, the
        wait for the InfoQueue lock included: the runtime's share of a driver call that reports."""
        with self._waiters_lock:
            return self._report_seconds.get(thread, 0.0)

    def threads_waiting_for_info_queue(self) -> frozenset[int]:
        """The threads (``threading.get_ident()``) blocked on the runtime's own InfoQueue lock inside
        ``pfnReportMessageCb`` right now: a thread waiting there is serialized by the runtime, not held by a driver
        lock (what the conformance suite's lock checks tell apart)."""
        with self._waiters_lock:
            return frozenset(self._info_queue_waiters)

    def native_threads_waiting_for_info_queue(self) -> frozenset[int]:
        """The same threads by kernel id (``threading.get_native_id()``), to compare with the threads a process has
        (``/proc/self/task``): which of them a driver started during a call."""
        with self._waiters_lock:
            return frozenset(self._info_queue_waiters.values())

    @property
    def report_in_progress(self) -> DriverMessage | None:
        """The runtime's copy of the message being surfaced, while the InfoQueue's registered callbacks run for it
        (read it from such a callback: the message's CommandListStateIndex, which the callback is not given)."""
        return self._in_report

    def _report_locked(self, hRTDevice: Any, pMessage: Any) -> int:  # noqa: N803
        invalid = values.hresult("E_INVALIDARG")
        if self._destroyed:
            return self._log(invalid, "reported on a destroyed device (use-after-free)", None, None,
                             "destroyed_device")
        if hRTDevice is not self.hRTDevice:
            return self._log(invalid, "hRTDevice is not this device", None, None, "wrong_device")
        if not self._feature_enabled:
            return self._log(invalid, "the feature was not enabled on this device", None, None, "not_enabled")
        read = copy_message(pMessage)  # the runtime's copy, made before the callback returns
        copy = read.message
        if read.problem in ("null_message", "unreadable_message"):
            return self._log(invalid, read.why, None, None, read.problem)
        assert copy is not None
        if copy.description is None:
            return self._log(invalid, "pDescription is NULL", copy, None, "null_description")
        if read.problem is not None:  # unterminated_description
            return self._log(invalid, read.why, copy, None, read.problem)
        lo, hi = values.severity_range()
        if not lo <= copy.severity <= hi:
            return self._log(invalid, f"Severity {copy.severity} outside [{lo}, {hi}]", copy, None,
                             "severity_range")
        lo, hi = values.category_range()
        if not lo <= copy.category <= hi:
            return self._log(invalid, f"Category {copy.category} outside [{lo}, {hi}]", copy, None,
                             "category_range")
        index = copy.state_index()
        resolution = self.indices.resolve(index)
        text = copy.description.decode("utf-8", "surrogateescape") \
            if isinstance(copy.description, bytes) else copy.description
        prefix = resolution.prefix() if resolution is not None else None
        message = Message(
            Category=values.api_category(copy.category),
            Severity=values.api_severity(copy.severity),
            ID=values.driver_reported_message_id(),
            pDescription=(prefix or "") + text,
            provenance=Provenance(copy.vendor_message_id, index, text, prefix),
        )
        outer, self._in_report = self._in_report, copy  # (a callback's own call may report: nested, same thread)
        try:
            self.info_queue.add_message(message)
        finally:
            self._in_report = outer
        return self._log(values.hresult("S_OK"), None, copy, message, description_length=read.description_length)

    def _log(self, hr: int, rejection: str | None, copy: DriverMessage | None, message: Message | None,
             kind: str | None = None, *, description_length: int | None = None) -> int:
        assert (rejection is None) == (kind is None) and (kind is None or kind in REJECTION_KINDS)
        self.reports.append(ReportRecord(hr, rejection, copy, message, threading.get_ident(), self._enabling,
                                         self._flush_kind, self._index_state(copy), self._index_executed(copy),
                                         self._removal_flushed, kind, description_length, threading.get_native_id()))
        return hr

    def command_list_of(self, index: int) -> CommandList | None:
        """The command list that recorded the call ``index`` was issued for (None: an index this device never
        issued); the list may have been Reset or destroyed since."""
        with self._api:
            rec = self._index_recording.get(index)
        return None if rec is None else rec.command_list

    def _index_executed(self, copy: DriverMessage | None) -> bool | None:
        if copy is None or copy.command_list_state_index is None:
            return None
        with self._api:
            rec = self._index_recording.get(copy.command_list_state_index)
            return None if rec is None else rec.executions > 0

    def _index_state(self, copy: DriverMessage | None) -> str:
        if copy is None or copy.command_list_state_index is None:
            return "none"
        index = copy.command_list_state_index
        with self._api:
            rec = self._index_recording.get(index)
            if rec is None:
                return "unknown"
            if rec.submissions and all(s.flushed for s in rec.submissions):
                return "late"
        return "live" if self.indices.is_live(index) else "dropped"

    def _query_object_identity_cb(self, hRTDevice: Any, hRTObject: Any, pIdentityStringSize: Any,  # noqa: N803
                                  pIdentityString: Any) -> int:  # noqa: N803
        """``PFND3D12DDI_QUERYOBJECTIDENTITY_CB_0126``."""
        if hRTDevice is not self.hRTDevice or self._destroyed:
            return values.hresult("E_INVALIDARG")
        return self.objects.query_object_identity(hRTObject, pIdentityStringSize, pIdentityString)

    # ---- destruction ----------------------------------------------------------------------------------------------
    def destroy(self) -> None:
        """Release the device: destroy its queues (each a flush point) and command lists, then the driver device.
        The report callback is invalid from here on."""
        if self._destroyed:
            return
        for queue in list(self._queues):
            queue.destroy()
        for cl in list(self._lists):
            cl.destroy()
        self.driver_device.destroy_device()
        with self._api:
            self._destroyed = True


class CommandQueue:
    """``ID3D12CommandQueue`` plus a model GPU that runs its submissions in order (:meth:`gpu_run`)."""

    def __init__(self, device: Device, obj: RuntimeObject) -> None:
        self.device = device
        self.object = obj
        self.handle = device._handle("COMMAND_QUEUE", obj)
        self._outstanding: list[Submission] = []
        self._gpu_pending: list[Submission | int] = []  # submissions and signal values, in queue order
        self._next_signal = 0
        self.completed_value = 0  # the runtime's fence on this queue
        self._destroyed = False

    def _observed_complete(self, sub: Submission) -> bool:
        return sub.gpu_done and sub.signal_value is not None and self.completed_value >= sub.signal_value

    def execute_command_lists(self, lists: Sequence[CommandList]) -> None:
        """``ExecuteCommandLists``: a flush point (for work already observed complete, never this submission),
        then the submission, which references each list's current state table."""
        self._check()
        if self.device.removed:
            self.device._surface_removal()
            return
        for cl in lists:
            if not cl.closed:
                raise MessagesError("command list executed without Close", where=cl.object.identity_string())
        self.device._flush("ExecuteCommandLists", self)
        dev = self.device
        with dev._api:
            sub = Submission(next(dev._serial), self, tuple(lists), tuple(cl._recording for cl in lists))
            for rec in sub.recordings:
                rec.submissions.append(sub)
                dev.indices.retain(rec.table, sub.id)
            self._outstanding.append(sub)
            self._gpu_pending.append(sub)
        dev.driver_device.execute_command_lists(self.handle, tuple(cl.handle for cl in lists))

    def signal(self) -> int:
        """``Signal`` on the runtime's fence: returns the HRESULT; the value is :attr:`last_signal_value`."""
        self._check()
        if self.device.removed:
            return self.device._surface_removal()
        with self.device._api:
            self._next_signal += 1
            for sub in self._outstanding:
                if sub.signal_value is None:
                    sub.signal_value = self._next_signal
            self._gpu_pending.append(self._next_signal)
        return values.hresult("S_OK")

    @property
    def last_signal_value(self) -> int:
        return self._next_signal

    def wait(self) -> int:
        """``Wait``: a flush point for work already observed complete."""
        self._check()
        if self.device.removed:
            return self.device._surface_removal()
        self.device._flush("Wait", self)
        return values.hresult("S_OK")

    def gpu_run(self, items: int | None = None) -> None:
        """Model GPU: run the next ``items`` queued submissions and signals (all, by default), in order."""
        self._check()
        while self._gpu_pending and (items is None or items > 0):
            if self.device.removed:
                return
            with self.device._api:
                item = self._gpu_pending.pop(0)
            if isinstance(item, Submission):
                with self.device._api:
                    for rec in item.recordings:  # running from here: a report made while it runs names it executed
                        rec.executions += 1
                self.device.driver_device.gpu_execute(self.handle, tuple(cl.handle for cl in item.lists))
                item.gpu_done = True
            else:
                self.completed_value = item
            if items is not None:
                items -= 1

    def destroy(self) -> None:
        """Queue destruction: an unconditional flush, including submissions the GPU has not finished -- also on a
        removed device whose removal the runtime has not surfaced yet (once the removal flush has run, it carried
        every submission and no flush of any kind follows it)."""
        if self._destroyed:
            return
        self.device._flush("queue destruction", self, unconditional=self)
        dev = self.device
        with dev._api:
            for sub in self._outstanding:  # left only after the removal flush or with the feature off
                for rec in sub.recordings:
                    dev.indices.release(rec.table, sub.id)
            self._outstanding.clear()
            self._destroyed = True
            if self in dev._queues:
                dev._queues.remove(self)
        dev.driver_device.destroy_command_queue(self.handle)
        dev.objects.destroy(self.object)

    def _check(self) -> None:
        if self._destroyed:
            raise MessagesError("the queue has been destroyed", where=self.object.identity_string())


class CommandList:
    """``ID3D12GraphicsCommandList``: issues a CommandListStateIndex before each GPU-work generating call."""

    def __init__(self, device: Device, obj: RuntimeObject) -> None:
        self.device = device
        self.object = obj
        self.handle = device._handle("COMMAND_LIST", obj)
        self._generation = 0
        self._recording = self._new_recording()
        self.closed = False
        self._destroyed = False

    def _new_recording(self) -> _Recording:
        return _Recording(self.device.indices.new_table(self.object.identity_string, self._generation), self)

    def set_name(self, name: str) -> None:
        self.object.set_name(name)

    def record(self, kind: str, **payload: Any) -> int | None:
        """A GPU-work generating call of ``kind``.  With the feature enabled the runtime first issues an index and
        calls ``pfnSetCommandListStateIndex``; returns the index (None when the feature is off)."""
        self._check_open()
        dev = self.device
        index: int | None = None
        if dev.driver_reported_messages_enabled and dev.funcs is not None:
            index = dev.indices.issue(self._recording.table, kind)
            with dev._api:
                dev._index_recording[index] = self._recording
            dev.funcs.pfnSetCommandListStateIndex(self.handle, index)
        dev.driver_device.command_list_work(self.handle, kind, payload)
        return index

    def draw(self, **payload: Any) -> int | None:
        return self.record("Draw", **payload)

    def draw_indexed(self, **payload: Any) -> int | None:
        return self.record("DrawIndexed", **payload)

    def dispatch(self, **payload: Any) -> int | None:
        return self.record("Dispatch", **payload)

    def execute_indirect(self, **payload: Any) -> int | None:
        return self.record("ExecuteIndirect", **payload)

    def dispatch_list(self, **payload: Any) -> int | None:
        return self.record("DispatchList", **payload)

    def close(self) -> None:
        self._check_open()
        self.closed = True

    def reset(self) -> None:
        """``Reset``: a fresh state table for the new recording; in-flight submissions keep the old one."""
        self._check()
        old = self._recording
        self._generation += 1
        self._recording = self._new_recording()
        self.closed = False
        self.device.indices.release(old.table, RECORDING)
        self.device.driver_device.reset_command_list(self.handle)

    def destroy(self) -> None:
        if self._destroyed:
            return
        self._destroyed = True
        self.device.indices.release(self._recording.table, RECORDING)
        with self.device._api:
            if self in self.device._lists:
                self.device._lists.remove(self)
        self.device.driver_device.destroy_command_list(self.handle)
        self.device.objects.destroy(self.object)

    def _check(self) -> None:
        if self._destroyed:
            raise MessagesError("the command list has been destroyed", where=self.object.identity_string())

    def _check_open(self) -> None:
        self._check()
        if self.closed:
            raise MessagesError("the command list is closed", where=self.object.identity_string())
