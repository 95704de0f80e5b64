"""The driver side of the channel, as Python: the DDI tables a driver model implements and the callbacks the
runtime gives it.

A driver model is a :class:`Driver` (adapter level: ``pfnGetSupportedExtendedFeatures``, ``pfnCreateDevice``)
returning a :class:`DriverDevice` (device level: ``pfnEnableExtendedFeature``, the command list / queue DDIs the
channel needs, and :meth:`DriverDevice.gpu_execute`, the model's stand-in for the GPU running a submission).
Enabling the feature returns :class:`DeviceFuncs`, the ``D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126``
table.  The driver reports through :class:`CoreLayerCallbacks` (``pfnReportMessageCb``,
``pfnQueryObjectIdentityCb``); :meth:`CoreLayerCallbacks.report` is the one-call way to report a message.

:class:`ChannelDriverDevice` and :class:`ChannelDriver` are what every driver model implementing the feature shares
(the reference driver, the executor as a driver): they offer and enable the feature, cache the CommandListStateIndex
per command list, report queued GPU-timeline messages from the flush outside the driver's lock, and forget a
command list's work on reset/destroy and everything once the device is destroyed.
"""

from __future__ import annotations

import threading
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from d3d12wl.messages import values
from d3d12wl.messages.ddi import DriverMessage
from d3d12wl.messages.identity import RuntimeObject, query_identity_string

ReportMessageCb = Callable[[Any, Any], int]  # (hRTDevice, const D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 *) -> HRESULT
QueryObjectIdentityCb = Callable[[Any, Any, Any, Any], int]  # (hRTDevice, hRTObject, SIZE_T *, char *) -> HRESULT


@dataclass(frozen=True)
class DeviceFuncs:
    """``D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126``."""

    pfnFlushDriverReportedMessages: Callable[[Any], None]  # (hDevice)
    pfnSetCommandListStateIndex: Callable[[Any, int], None]  # (hCommandList, CommandListStateIndex)


@dataclass(frozen=True)
class CoreLayerCallbacks:
    """The two new members of ``D3D12DDI_CORELAYER_DEVICECALLBACKS_0126`` and the ``hRTDevice`` to pass them."""

    hRTDevice: Any
    pfnReportMessageCb: ReportMessageCb
    pfnQueryObjectIdentityCb: QueryObjectIdentityCb

    def report(self, message: DriverMessage) -> int:
        """Encode ``message`` as a ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126`` and call ``pfnReportMessageCb``."""
        encoded = message.encode()
        return self.pfnReportMessageCb(self.hRTDevice, encoded.pointer)

    def report_values(self, vendor_message_id: int, severity: str, category: str, description: str,
                      command_list_state_index: int | None = None) -> int:
        """:meth:`report` with severity and category by short name (``"ERROR"``, ``"EXECUTION"``)."""
        return self.report(DriverMessage(vendor_message_id, values.ddi_severity(severity),
                                         values.ddi_category(category), description, command_list_state_index))

    def query_identity(self, handle_and_type: Any) -> str:
        """The runtime object's identity string through the two-call ``pfnQueryObjectIdentityCb``."""
        return query_identity_string(self.pfnQueryObjectIdentityCb, self.hRTDevice, handle_and_type)


@dataclass(frozen=True)
class DriverHandle:
    """A driver-side handle (``D3D12DDI_HCOMMANDLIST``, ``D3D12DDI_HCOMMANDQUEUE``) as the runtime passes it.
    ``runtime_object`` is the matching API object; :meth:`rt` its ``D3D12DDI_HANDLE_AND_TYPE`` for identity
    queries."""

    kind: str
    serial: int
    runtime_object: RuntimeObject

    def rt(self) -> Any:
        return self.runtime_object.handle_and_type()


class DriverDevice:
    """A driver's device.  Every method is a DDI entry point; the defaults do nothing."""

    def enable_extended_feature(self, feature: int, version: int) -> DeviceFuncs | None:
        """``pfnEnableExtendedFeature``; return the feature's DDI table (None: refused)."""
        return None

    def create_command_queue(self, hqueue: DriverHandle) -> None: ...

    def destroy_command_queue(self, hqueue: DriverHandle) -> None: ...

    def create_command_list(self, hcl: DriverHandle) -> None: ...

    def command_list_work(self, hcl: DriverHandle, kind: str, payload: Mapping[str, Any]) -> None:
        """A GPU-work generating command-list DDI (Draw, Dispatch, ExecuteIndirect, DispatchList...)."""

    def reset_command_list(self, hcl: DriverHandle) -> None: ...

    def destroy_command_list(self, hcl: DriverHandle) -> None: ...

    def execute_command_lists(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None: ...

    def gpu_execute(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        """Model hook: the GPU has run this submission (a driver captures GPU-timeline findings here)."""

    def destroy_device(self) -> None: ...


class Driver:
    """A driver at adapter level."""

    def get_supported_extended_features(self) -> Mapping[int, int]:
        """``pfnGetSupportedExtendedFeatures``: feature value -> highest version the driver understands."""
        return {}

    def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
        """``pfnCreateDevice``, receiving the core-layer device callbacks."""
        return DriverDevice()


class ChannelDriverDevice(DriverDevice):
    """A driver device implementing the feature: the channel's bookkeeping, each the spec's rule for drivers.

    Enabling reports exactly one :meth:`initialization_message` from inside ``pfnEnableExtendedFeature``;
    ``pfnSetCommandListStateIndex`` caches the index per command list (``_current_index``); a subclass records a
    list's work in ``_recorded`` (per command list serial), each item with the index it was recorded under.
    ExecuteCommandLists takes a snapshot of the submitted lists' recorded work (the submission owns it, as a real
    driver's submission owns the command buffers it references), and :meth:`gpu_execute` hands the oldest snapshot
    of that queue to :meth:`execute_work`: so a Reset between submission and GPU execution does not change what the
    GPU runs, and an earlier submission's findings carry the indices of the recording that produced them (spec
    "CommandListStateIndex validity window").  GPU-timeline messages queue in ``_pending``, which :meth:`flush`
    reports outside ``_lock``; reset/destroy of a command list drops its recording and index; nothing is reported
    once the device is destroyed."""

    def __init__(self, callbacks: CoreLayerCallbacks) -> None:
        self.callbacks = callbacks
        self.enabled = False
        self._lock = threading.Lock()  # the driver's own lock: never held while reporting
        self._current_index: dict[int, int] = {}  # per command list serial
        self._recorded: dict[int, list[Any]] = {}  # per command list serial: the current recording's work
        self._in_flight: dict[int, deque[tuple[Any, ...]]] = {}  # per queue serial: submitted snapshots, oldest first
        self._pending: list[DriverMessage] = []

    @staticmethod
    def initialization_message() -> DriverMessage:
        """The one message reported when the feature is enabled."""
        raise NotImplementedError

    def enable_extended_feature(self, feature: int, version: int) -> DeviceFuncs | None:
        if feature != values.feature_driver_reported_messages() or version < values.feature_version_0():
            return None
        self.enabled = True
        self.callbacks.report(self.initialization_message())
        return DeviceFuncs(self.flush, self.set_command_list_state_index)

    def set_command_list_state_index(self, hcl: DriverHandle, index: int) -> None:
        with self._lock:
            self._current_index[hcl.serial] = index

    def flush(self, hdevice: Any) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for message in pending:  # outside the driver lock (spec "Threading")
            self.callbacks.report(message)

    def execute_command_lists(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        with self._lock:
            work = tuple(item for hcl in hcls for item in self._recorded.get(hcl.serial, ()))
            self._in_flight.setdefault(hqueue.serial, deque()).append(work)

    def gpu_execute(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        with self._lock:
            in_flight = self._in_flight.get(hqueue.serial)
            work = in_flight.popleft() if in_flight else ()
        self.execute_work(hqueue, work)

    def execute_work(self, hqueue: DriverHandle, work: Sequence[Any]) -> None:
        """The GPU runs one submission's snapshot of recorded work (items of ``_recorded``)."""

    def reset_command_list(self, hcl: DriverHandle) -> None:
        with self._lock:
            self._recorded.pop(hcl.serial, None)
            self._current_index.pop(hcl.serial, None)

    destroy_command_list = reset_command_list

    def destroy_command_queue(self, hqueue: DriverHandle) -> None:
        with self._lock:
            self._in_flight.pop(hqueue.serial, None)

    def destroy_device(self) -> None:
        with self._lock:
            self.enabled = False
            self._pending.clear()
            self._in_flight.clear()


DeviceT = TypeVar("DeviceT", bound=ChannelDriverDevice)


class ChannelDriver(Driver, Generic[DeviceT]):
    """Adapter level of a driver implementing the feature: offers ``D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES``
    version 0 and creates a ``device_class`` per device, keeping each in ``devices``."""

    device_class: type[DeviceT]

    def __init__(self) -> None:
        self.devices: list[DeviceT] = []

    def get_supported_extended_features(self) -> Mapping[int, int]:
        return {values.feature_driver_reported_messages(): values.feature_version_0()}

    def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
        device = self.device_class(callbacks)
        self.devices.append(device)
        return device
