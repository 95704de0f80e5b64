"""The driver-reported-messages channel (seed 003), runtime side, and a conformance suite for drivers.

Application side::

    rt = Runtime(ReferenceDriver())
    rt.debug.enable_debug_layer(); rt.debug.set_enable_driver_reported_messages(True)
    device = rt.create_device()
    device.info_queue.register_message_callback(lambda cat, sev, mid, text, ctx: print(text))

Driver side: implement :class:`Driver` / :class:`DriverDevice`; report with
``callbacks.report(DriverMessage(vendor_id, severity, category, text, command_list_state_index))``.
"""

from d3d12wl.messages.channel import (
    INITIALIZATION_TEXT,
    CommandList,
    CommandQueue,
    Device,
    FlushRecord,
    ReportRecord,
    Runtime,
)
from d3d12wl.messages.correlation import Resolution, StateIndexRegistry, WorkSite
from d3d12wl.messages.ddi import DriverMessage, EncodedMessage, decode, from_bytes
from d3d12wl.messages.driver import CoreLayerCallbacks, DeviceFuncs, Driver, DriverDevice, DriverHandle
from d3d12wl.messages.enabling import DebugInterface, RegistryOverlay, read_registry
from d3d12wl.messages.errors import MessagesError
from d3d12wl.messages.identity import RuntimeObject, query_identity_string
from d3d12wl.messages.infoqueue import InfoQueue, InfoQueueFilter, InfoQueueFilterDesc, Message, Provenance
from d3d12wl.messages.reference_driver import ReferenceDriver

__all__ = [
    "INITIALIZATION_TEXT", "CommandList", "CommandQueue", "CoreLayerCallbacks", "DebugInterface", "Device",
    "DeviceFuncs", "Driver", "DriverDevice", "DriverHandle", "DriverMessage", "EncodedMessage", "FlushRecord",
    "InfoQueue", "InfoQueueFilter", "InfoQueueFilterDesc", "Message", "MessagesError", "Provenance", "RegistryOverlay",
    "ReferenceDriver", "ReportRecord", "Resolution", "Runtime", "RuntimeObject", "StateIndexRegistry", "WorkSite",
    "decode", "from_bytes", "query_identity_string", "read_registry",
]
