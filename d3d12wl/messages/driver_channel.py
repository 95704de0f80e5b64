"""The executor as a driver on the driver-reported-messages channel (seed 003; issue 6 item 3).

Every :class:`~d3d12wl.executor.trace.Finding` kind has a stable ``VendorMessageId``, a ``D3D12DDI_MESSAGE_CATEGORY_0126``
and, from the finding's severity, a ``D3D12DDI_MESSAGE_SEVERITY_0126`` (``error`` -> ERROR: undefined behaviour or
an invalid call; ``warning`` -> WARNING; ``info`` -> INFO).  :data:`MESSAGE_CLASSES` is the one table.

Vendor message IDs (spec "pMessage->VendorMessageId": "the same logical message use a stable VendorMessageId across
reports"): ``VENDOR_MESSAGE_ID_BASE + n``, ``n`` the 1-based position of the kind in :data:`_ASSIGNED`.  The table
is append-only: a new kind is added at its end, a retired kind keeps its row, nothing is ever reordered, so no ID is
ever renumbered (``tests/test_executor_messages.py`` pins every assigned value).  A kind missing from the table
(one added to the executor but not yet here) still gets a deterministic ID, ``VENDOR_MESSAGE_ID_BASE |
UNASSIGNED_BIT | crc32(kind)``, and category EXECUTION; the tests fail until it is appended.

Correlation (spec "Command list state correlation"): the driver caches the CommandListStateIndex the runtime gives it
before the DispatchList / DispatchList1 / ExecuteIndirect call and stamps it on every finding of that call, so the
application sees ``<command list> [DispatchList1 #0] <text>`` in its InfoQueue.  The executor's findings need the
GPU to have run the work (they come from bytes in GPU memory), so they are reported from the flush for the
submission (spec "Flush and Message Processing").

::

    run = run_in_info_queue(capture)                # a Runtime + this driver, one recorded call, executed, flushed
    for m in run.messages: print(m.Severity, m.pDescription)

    report_findings(trace, callbacks, index)       # from any driver model: one report per finding
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from d3d12wl import abi
from d3d12wl.executor.trace import Finding, Trace
from d3d12wl.messages import values
from d3d12wl.messages.channel import INITIALIZATION_TEXT, Runtime
from d3d12wl.messages.ddi import DriverMessage
from d3d12wl.messages.driver import ChannelDriver, ChannelDriverDevice, CoreLayerCallbacks, DriverHandle
from d3d12wl.messages.infoqueue import Message

__all__ = [
    "MESSAGE_CLASSES",
    "UNASSIGNED_BIT",
    "VENDOR_MESSAGE_ID_BASE",
    "ExecutorDriver",
    "ExecutorDriverDevice",
    "InfoQueueRun",
    "MessageClass",
    "finding_message",
    "info_queue_view",
    "message_class",
    "render_info_queue",
    "report_findings",
    "run_in_info_queue",
    "trace_messages",
]

#: High bytes of every VendorMessageId this driver reports ('WL' for Work Lists).
VENDOR_MESSAGE_ID_BASE = 0x574C_0000_0000_0000
#: Set in the deterministic fallback ID of a kind not (yet) in the table.
UNASSIGNED_BIT = 0x0000_8000_0000_0000

#: Append-only: (kind, DDI category short name).  Position n (1-based) gives VendorMessageId BASE + n.
#: EXECUTION: what the GPU reads at execution time is wrong (bytes, VAs, indices, counts); STATE_SETTING: what
#: SetProgram / the command list bound does not fit the call; STATE_CREATION: an object the call uses could not
#: have been created (a creation-time rule the executor meets); RESOURCE_MANIPULATION: memory changed under the
#: call; MISCELLANEOUS: the tool's own limits; INITIALIZATION: the mandatory initialization message.
_ASSIGNED: tuple[tuple[str, str], ...] = (
    ("initialization", "INITIALIZATION"),
    ("unmapped-va", "EXECUTION"),
    ("misaligned-va", "EXECUTION"),
    ("va-wrap", "EXECUTION"),
    ("no-work-list-bound", "STATE_SETTING"),
    ("bind-type-mismatch-dispatch-method", "STATE_SETTING"),
    ("tier-not-supported", "EXECUTION"),
    ("dispatch-rays-not-supported", "STATE_SETTING"),
    ("num-bindings-mismatch", "STATE_SETTING"),
    ("signature-index-out-of-range", "EXECUTION"),
    ("binding-type-mismatch", "STATE_SETTING"),
    ("reserved-padding-nonzero", "EXECUTION"),
    ("unknown-flag-bits", "EXECUTION"),
    ("stride-below-minimum", "EXECUTION"),
    ("stride-misaligned", "EXECUTION"),
    ("program-table-binding-invalid", "STATE_SETTING"),
    ("program-table-index-out-of-range", "EXECUTION"),
    ("unknown-program-identifier", "EXECUTION"),
    ("program-not-in-signature", "EXECUTION"),
    ("program-table-stride-too-small", "STATE_SETTING"),
    ("program-table-mutated", "RESOURCE_MANIPULATION"),
    ("invalid-program-command-signature", "STATE_CREATION"),
    ("descriptor-heap-not-bound", "STATE_SETTING"),
    ("max-graphics-primary-lists-exceeded", "EXECUTION"),
    ("max-graphics-program-inputs-exceeded", "EXECUTION"),
    ("chain-cycle", "EXECUTION"),
    ("limit-exceeded", "MISCELLANEOUS"),
    ("root-signature-mismatch", "STATE_SETTING"),
    ("missing-command-signature", "STATE_SETTING"),
    ("no-dispatch-trigger", "STATE_CREATION"),
    ("findings-suppressed", "MISCELLANEOUS"),
    ("validator-index-out-of-range", "STATE_SETTING"),
    ("unknown-validator-identifier", "EXECUTION"),
    ("validator-without-signature", "STATE_CREATION"),
    ("validator-grid-missing", "STATE_CREATION"),
    ("validator-pointer-arg-unavailable", "STATE_CREATION"),
    ("validator-fault", "EXECUTION"),
    ("program-class-mismatch", "EXECUTION"),
    ("root-signature-not-set", "STATE_SETTING"),
    ("argument-buffer-offset-misaligned", "EXECUTION"),
    ("count-buffer-offset-misaligned", "EXECUTION"),
    ("argument-buffer-out-of-bounds", "EXECUTION"),
    ("count-buffer-out-of-bounds", "EXECUTION"),
    ("argument-buffer-wrong-state", "EXECUTION"),
    ("count-buffer-wrong-state", "EXECUTION"),
    ("index-buffer-format-invalid", "EXECUTION"),
    ("cbv-address-misaligned", "EXECUTION"),
    ("direct-bind-signature-index-nonzero", "EXECUTION"),
    ("raytracing-binding-null", "STATE_SETTING"),
    ("program-without-command-signature", "EXECUTION"),
    ("program-inputs-stride-below-worst-case", "EXECUTION"),
    ("program-table-size-too-small", "STATE_SETTING"),
    ("null-validation-program-table-nonzero", "STATE_SETTING"),
    ("shader-table-mutated", "RESOURCE_MANIPULATION"),
    ("next-dispatch-list-ignored", "EXECUTION"),
    ("validation-index-ignored", "STATE_SETTING"),
    ("dispatch-list-in-bundle", "EXECUTION"),
    ("command-list-type-invalid", "EXECUTION"),
    ("render-pass-compute-class", "EXECUTION"),
    ("execute-indirect-command-list-type-invalid", "EXECUTION"),
    ("execute-indirect-bundle-count-buffer", "EXECUTION"),
    ("execute-indirect-bundle-multiple-operations", "EXECUTION"),
    ("root-parameter-not-set", "STATE_SETTING"),
    ("argument-buffer-bounds-unknown", "EXECUTION"),
    ("count-buffer-bounds-unknown", "EXECUTION"),
    ("descriptor-handle-outside-heap", "EXECUTION"),
    ("continuation-authored-without-wait", "EXECUTION"),
    ("next-dispatch-list-written", "EXECUTION"),
)

_SEVERITY = {"error": "ERROR", "warning": "WARNING", "info": "INFO"}


@dataclass(frozen=True)
class MessageClass:
    """How one finding kind travels: its VendorMessageId and DDI category (short name)."""

    kind: str
    vendor_message_id: int
    category: str
    assigned: bool = True


#: kind -> :class:`MessageClass`, every assigned kind.
MESSAGE_CLASSES: dict[str, MessageClass] = {
    kind: MessageClass(kind, VENDOR_MESSAGE_ID_BASE + n, category) for n, (kind, category) in enumerate(_ASSIGNED, 1)
}


def message_class(kind: str) -> MessageClass:
    """The message class of finding kind ``kind`` (a deterministic fallback for a kind not in the table)."""
    known = MESSAGE_CLASSES.get(kind)
    if known is not None:
        return known
    return MessageClass(kind, VENDOR_MESSAGE_ID_BASE | UNASSIGNED_BIT | zlib.crc32(kind.encode()), "EXECUTION",
                        assigned=False)


def _text(finding: Finding) -> str:
    """The driver's description: kind, rule, where, what.  The command list and call are the runtime's
    annotation ("Drivers should not duplicate this information in their own description text")."""
    where = finding.where()
    return f"{finding.kind} [{finding.rule}]{' ' + where if where else ''}: {finding.message}"


def finding_message(finding: Finding, command_list_state_index: int | None = None) -> DriverMessage:
    """The ``D3D12DDI_DRIVER_REPORTED_MESSAGE_0126`` for one finding (None index: 0xFFFFFFFF, no correlation)."""
    cls = message_class(finding.kind)
    return DriverMessage(cls.vendor_message_id, values.ddi_severity(_SEVERITY.get(finding.severity, "ERROR")),
                         values.ddi_category(cls.category), _text(finding), command_list_state_index)


def trace_messages(trace: Trace, command_list_state_index: int | None = None) -> list[DriverMessage]:
    """One message per finding of ``trace``, in order, plus one WARNING when findings were suppressed."""
    out = [finding_message(f, command_list_state_index) for f in trace.findings]
    if trace.findings_suppressed:
        cls = message_class("findings-suppressed")
        out.append(DriverMessage(cls.vendor_message_id, values.ddi_severity("WARNING"), values.ddi_category(cls.category),
                                 f"findings-suppressed: {trace.findings_suppressed} more findings of this {trace.call} "
                                 f"were not kept (max_findings {trace.limits.max_findings})", command_list_state_index))
    return out


def report_findings(trace: Trace, callbacks: CoreLayerCallbacks,
                    command_list_state_index: int | None = None) -> list[int]:
    """Report every finding of ``trace`` through ``pfnReportMessageCb``; returns the HRESULTs."""
    return [callbacks.report(m) for m in trace_messages(trace, command_list_state_index)]


# --------------------------------------------------------------------------------------------------------------
# The driver model
# --------------------------------------------------------------------------------------------------------------


@dataclass
class _Recorded:
    index: int | None
    payload: Mapping[str, Any]


class ExecutorDriverDevice(ChannelDriverDevice):
    """A driver device whose "GPU" is the reference executor.

    A command-list call whose payload has ``capture=`` (anything :func:`d3d12wl.executor.execute` takes, with
    optional ``hooks=`` and ``limits=``) or an already computed ``trace=`` is recorded with the
    CommandListStateIndex the runtime gave just before it; ExecuteCommandLists snapshots the submitted calls and
    :meth:`execute_work` runs a snapshot when the model GPU reaches it (``traces`` keeps every
    trace) and queues its findings; the flush reports them, outside the driver's lock.  Reset/destroy of a command
    list drops its recorded calls; nothing is reported once the device is destroyed.
    """

    _recorded: dict[int, list[_Recorded]]

    def __init__(self, callbacks: CoreLayerCallbacks) -> None:
        super().__init__(callbacks)
        self.traces: list[Trace] = []

    @staticmethod
    def initialization_message() -> DriverMessage:
        cls = message_class("initialization")
        return DriverMessage(cls.vendor_message_id, values.ddi_severity("MESSAGE"), values.ddi_category(cls.category),
                             INITIALIZATION_TEXT, None)

    def command_list_work(self, hcl: DriverHandle, kind: str, payload: Mapping[str, Any]) -> None:
        if "capture" not in payload and "trace" not in payload:
            return
        with self._lock:
            self._recorded.setdefault(hcl.serial, []).append(_Recorded(self._current_index.get(hcl.serial),
                                                                       payload))

    def execute_work(self, hqueue: DriverHandle, work: Sequence[_Recorded]) -> None:
        from d3d12wl.executor import execute

        for rec in work:
            trace = rec.payload.get("trace")
            if trace is None:
                trace = execute(rec.payload["capture"], rec.payload.get("limits"), rec.payload.get("hooks"))
            messages = trace_messages(trace, rec.index)
            with self._lock:
                self.traces.append(trace)
                if self.enabled:
                    self._pending.extend(messages)


class ExecutorDriver(ChannelDriver[ExecutorDriverDevice]):
    """Adapter level: offers ``D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES`` version 0."""

    device_class = ExecutorDriverDevice


# --------------------------------------------------------------------------------------------------------------
# One call, as an application would see it
# --------------------------------------------------------------------------------------------------------------


@dataclass
class InfoQueueRun:
    """The outcome of :func:`run_in_info_queue`: the trace and the InfoQueue's messages (the initialization
    message first), with the state index the call was recorded under."""

    trace: Trace
    messages: list[Message]
    command_list_state_index: int | None
    runtime: Runtime = field(repr=False)

    @property
    def driver_messages(self) -> list[Message]:
        """The messages about the call (everything after the initialization message)."""
        return [m for m in self.messages if m.pDescription != INITIALIZATION_TEXT]


def run_in_info_queue(capture: Any = None, *, trace: Trace | None = None, hooks: Any = None, limits: Any = None,
                      command_list_name: str = "d3d12wl") -> InfoQueueRun:
    """Record the call of ``capture`` (or report an already computed ``trace``) on a command list named
    ``command_list_name`` of a debug-layer device with driver-reported messages enabled, submit it, let the model
    GPU run it and flush (Signal, GPU progress, Wait): the InfoQueue then holds what an application would see."""
    if (capture is None) == (trace is None):
        raise ValueError("give exactly one of capture or trace")
    call = trace.call if trace is not None else _call_name(capture.call)
    rt = Runtime(ExecutorDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    device = rt.create_device()
    queue = device.create_command_queue()
    cl = device.create_command_list(command_list_name)
    payload: dict[str, Any] = {"trace": trace} if trace is not None else {"capture": capture, "hooks": hooks,
                                                                          "limits": limits}
    index = cl.record(call, **payload)
    cl.close()
    queue.execute_command_lists([cl])
    queue.signal()
    queue.gpu_run()
    queue.wait()
    driver_device = device.driver_device
    assert isinstance(driver_device, ExecutorDriverDevice)
    done = driver_device.traces[-1] if driver_device.traces else trace
    assert done is not None
    iq = device.info_queue  # as the application reads it: GetNumStoredMessages / GetMessage
    messages = [iq.get_message(i) for i in range(iq.get_num_stored_messages())]
    return InfoQueueRun(done, messages, index, rt)


def _call_name(call: Any) -> str:
    from d3d12wl.model.state import DispatchListCall

    if isinstance(call, DispatchListCall):
        return "DispatchList1" if call.tier2 else "DispatchList"
    return "ExecuteIndirect"


def info_queue_view(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Plain data for ``d3d12wl dump --json``: each ``D3D12_MESSAGE`` with enum names, and the model-only
    provenance (VendorMessageId, the index the driver sent)."""
    out = []
    for m in messages:
        row: dict[str, Any] = {
            "ID": m.ID, "id_name": abi.enum_short_name("D3D12_MESSAGE_ID", m.ID),
            "Severity": m.Severity, "severity_name": abi.enum_short_name("D3D12_MESSAGE_SEVERITY", m.Severity),
            "Category": m.Category, "category_name": _category_name(m.Category),
            "pDescription": m.pDescription,
        }
        if m.provenance is not None:
            row["vendor_message_id"] = m.provenance.vendor_message_id
            row["command_list_state_index"] = m.provenance.command_list_state_index
        out.append(row)
    return out


def _category_name(value: int) -> str:
    try:
        return abi.enum_short_name("D3D12_MESSAGE_CATEGORY", value)
    except Exception:  # a DDI category with no API namesake surfaces with its numeric value
        return str(value)


def render_info_queue(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """The text lines of the dump section "InfoQueue (driver-reported messages)"."""
    out = [f"InfoQueue (driver-reported messages) ({len(rows)})" + (":" if rows else ": none")]
    for r in rows:
        vid = f"  vendor 0x{r['vendor_message_id']:x}" if r.get("vendor_message_id") is not None else ""
        out.append(f"  D3D12 {r['severity_name']}: {r['pDescription']} [ {r['category_name']} {r['severity_name']} "
                   f"#{r['ID']}: {r['id_name']}]{vid}")
    return out
