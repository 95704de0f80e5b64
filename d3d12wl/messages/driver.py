"""The driver side of the channel, as Python: the DDI tables a driver model implements and the callbacks the
runtime gives it.

A driver model is a :class:`Driver` (adapter level: ``pfnGetSupportedExtendedFeatures``, ``pfnCreateDevice``)
returning a :class:`DriverDevice` (device level: ``pfnEnableExtendedFeature``, the command list / queue DDIs the
channel needs, and :meth:`DriverDevice.gpu_execute`, the model's stand-in for the GPU running a submission).
Enabling the feature returns :class:`DeviceFuncs`, the ``D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126``
table.  The driver reports through :class:`CoreLayerCallbacks` (``pfnReportMessageCb``,
``pfnQueryObjectIdentityCb``); :meth:`CoreLayerCallbacks.report` is the one-call way to report a message.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

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
