"""A well-behaved driver model on the channel: the reference the conformance suite passes.

What it does, each the spec's rule for drivers:

* advertises ``D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES`` at version ``_0``;
* reports exactly one initialization message from inside ``pfnEnableExtendedFeature`` (MESSAGE severity,
  INITIALIZATION category, no correlation, the exact text);
* caches the most recent CommandListStateIndex per command list and stamps it on messages about that list's work;
* reports recording-time problems at once, and GPU-timeline problems (captured in :meth:`gpu_execute`) from
  inside the next flush, outside its own lock; tolerates empty flushes; reports nothing once the device is gone.

Payload keys it understands on a command-list call (``cl.draw(gpu_message=...)``): ``record_message`` and
``gpu_message``, each ``(vendor_message_id, severity, category, text)`` with severity/category short names.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from typing import Any

from d3d12wl.messages import values
from d3d12wl.messages.channel import INITIALIZATION_TEXT
from d3d12wl.messages.ddi import DriverMessage
from d3d12wl.messages.driver import CoreLayerCallbacks, DeviceFuncs, Driver, DriverDevice, DriverHandle

#: VendorMessageId of the initialization message (vendor-defined).
INIT_VENDOR_MESSAGE_ID = 0x1


class ReferenceDriverDevice(DriverDevice):
    def __init__(self, callbacks: CoreLayerCallbacks) -> None:
        self.callbacks = callbacks
        self.enabled = False
        self._lock = threading.Lock()  # the driver's own lock: never held while reporting
        self._current_index: dict[int, int] = {}  # per command list serial
        self._recorded: dict[int, list[tuple[int, tuple[int, str, str, str]]]] = {}
        self._pending: list[DriverMessage] = []

    # feature -------------------------------------------------------------------------------------------------------
    def enable_extended_feature(self, feature: int, version: int) -> DeviceFuncs | None:
        if feature != values.feature_driver_reported_messages() or version < values.feature_version_0():
            return None
        self.enabled = True
        self.callbacks.report(self.initialization_message())
        return DeviceFuncs(self.flush, self.set_command_list_state_index)

    @staticmethod
    def initialization_message() -> DriverMessage:
        return DriverMessage(INIT_VENDOR_MESSAGE_ID, values.ddi_severity("MESSAGE"),
                             values.ddi_category("INITIALIZATION"), INITIALIZATION_TEXT, None)

    def set_command_list_state_index(self, hcl: DriverHandle, index: int) -> None:
        with self._lock:
            self._current_index[hcl.serial] = index

    def flush(self, hdevice: Any) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
        for message in pending:  # outside the driver lock
            self.callbacks.report(message)

    # command lists -------------------------------------------------------------------------------------------------
    def command_list_work(self, hcl: DriverHandle, kind: str, payload: Mapping[str, Any]) -> None:
        with self._lock:
            index = self._current_index.get(hcl.serial)
            if "gpu_message" in payload:
                self._recorded.setdefault(hcl.serial, []).append((index, payload["gpu_message"]))
        if "record_message" in payload and self.enabled:
            self.callbacks.report(_message(payload["record_message"], index))

    def reset_command_list(self, hcl: DriverHandle) -> None:
        with self._lock:
            self._recorded.pop(hcl.serial, None)
            self._current_index.pop(hcl.serial, None)

    destroy_command_list = reset_command_list

    def gpu_execute(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        if not self.enabled:
            return
        with self._lock:
            for hcl in hcls:
                for index, spec in self._recorded.get(hcl.serial, []):
                    self._pending.append(_message(spec, index))

    def destroy_device(self) -> None:
        with self._lock:
            self.enabled = False
            self._pending.clear()


def _message(spec: tuple[int, str, str, str], index: int | None) -> DriverMessage:
    vendor_id, severity, category, text = spec
    return DriverMessage(vendor_id, values.ddi_severity(severity), values.ddi_category(category), text, index)


class ReferenceDriver(Driver):
    """Adapter-level reference driver (WARP's role in the spec's HLK section)."""

    def __init__(self) -> None:
        self.devices: list[ReferenceDriverDevice] = []

    def get_supported_extended_features(self) -> Mapping[int, int]:
        return {values.feature_driver_reported_messages(): values.feature_version_0()}

    def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
        device = ReferenceDriverDevice(callbacks)
        self.devices.append(device)
        return device
