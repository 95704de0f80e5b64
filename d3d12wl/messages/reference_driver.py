"""A well-behaved driver model on the channel: the reference the conformance suite passes.

What it does, each the spec's rule for drivers:

* advertises ``D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES`` at version ``_0``;
* reports exactly one initialization message from inside ``pfnEnableExtendedFeature`` (MESSAGE severity,
  INITIALIZATION category, no correlation, the exact text);
* caches the most recent CommandListStateIndex per command list and stamps it on messages about that list's work;
* reports recording-time problems at once, and GPU-timeline problems (captured when the GPU runs a submission's snapshot of the recording,
  :meth:`execute_work`) from
  inside the next flush, outside its own lock; tolerates empty flushes; reports nothing once the device is gone.

Payload keys it understands on a command-list call (``cl.draw(gpu_message=...)``): ``record_message`` and
``gpu_message``, each ``(vendor_message_id, severity, category, text)`` with severity/category short names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from d3d12wl.messages import values
from d3d12wl.messages.channel import INITIALIZATION_TEXT
from d3d12wl.messages.ddi import DriverMessage
from d3d12wl.messages.driver import ChannelDriver, ChannelDriverDevice, DriverHandle

#: VendorMessageId of the initialization message (vendor-defined).
INIT_VENDOR_MESSAGE_ID = 0x1


class ReferenceDriverDevice(ChannelDriverDevice):
    _recorded: dict[int, list[tuple[int | None, tuple[int, str, str, str]]]]

    @staticmethod
    def initialization_message() -> DriverMessage:
        return DriverMessage(INIT_VENDOR_MESSAGE_ID, values.ddi_severity("MESSAGE"),
                             values.ddi_category("INITIALIZATION"), INITIALIZATION_TEXT, None)

    # command lists -------------------------------------------------------------------------------------------------
    def command_list_work(self, hcl: DriverHandle, kind: str, payload: Mapping[str, Any]) -> None:
        with self._lock:
            index = self._current_index.get(hcl.serial)
            if "gpu_message" in payload:
                self._recorded.setdefault(hcl.serial, []).append((index, payload["gpu_message"]))
        if "record_message" in payload and self.enabled:
            self.callbacks.report(_message(payload["record_message"], index))

    def execute_work(self, hqueue: DriverHandle, work: Sequence[tuple[int | None, tuple[int, str, str, str]]]) -> None:
        """The GPU ran the submission's snapshot: capture its findings, each with the index of its own call."""
        with self._lock:
            if self.enabled:
                self._pending.extend(_message(spec, index) for index, spec in work)


def _message(spec: tuple[int, str, str, str], index: int | None) -> DriverMessage:
    vendor_id, severity, category, text = spec
    return DriverMessage(vendor_id, values.ddi_severity(severity), values.ddi_category(category), text, index)


class ReferenceDriver(ChannelDriver[ReferenceDriverDevice]):
    """Adapter-level reference driver (WARP's role in the spec's HLK section)."""

    device_class = ReferenceDriverDevice
