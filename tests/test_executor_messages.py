"""The executor as a driver on the driver-reported-messages channel (issue 6 item 3; d3d12wl.messages.driver_channel).

Spec (seed 003) sections proved: "pMessage->VendorMessageId" (a stable ID per logical message), "Message IDs"
(``D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE`` = 1506), "Command list state correlation" (the index of the call
that induced the message, the ``[DispatchList1 #N]`` annotation; 0xFFFFFFFF surfaces unannotated), "Flush and
Message Processing" (GPU-timeline findings reach the InfoQueue at the flush), the severity and category enums.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from executor_builder import (
    CONT,
    Scene,
    arg,
    constants_param,
    dispatch,
    dispatch_input1,
    primary,
    program,
    program_table,
    root_signature,
)

from d3d12wl import abi
from d3d12wl.cli import main
from d3d12wl.executor import execute
from d3d12wl.executor.trace import FINDING_KINDS, Finding
from d3d12wl.messages import Runtime, values
from d3d12wl.messages.driver_channel import (
    MESSAGE_CLASSES,
    UNASSIGNED_BIT,
    VENDOR_MESSAGE_ID_BASE,
    ExecutorDriver,
    finding_message,
    message_class,
    report_findings,
    run_in_info_queue,
)
from d3d12wl.model.objects import ConstantArg, ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import DispatchListCall

#: The assigned order of d3d12wl.messages.driver_channel._ASSIGNED.  VendorMessageId = BASE + position (1-based): appending
#: is the only legal change; a reorder, removal or insertion renumbers a shipped ID and fails here.
PINNED = [
    "initialization", "unmapped-va", "misaligned-va", "va-wrap", "no-work-list-bound",
    "bind-type-mismatch-dispatch-method", "tier-not-supported", "dispatch-rays-not-supported",
    "num-bindings-mismatch", "signature-index-out-of-range", "binding-type-mismatch", "reserved-padding-nonzero",
    "unknown-flag-bits", "stride-below-minimum", "stride-misaligned", "program-table-binding-invalid",
    "program-table-index-out-of-range", "unknown-program-identifier", "program-not-in-signature",
    "program-table-stride-too-small", "program-table-mutated", "invalid-program-command-signature",
    "descriptor-heap-not-bound", "max-graphics-primary-lists-exceeded", "max-graphics-program-inputs-exceeded",
    "chain-cycle", "limit-exceeded", "root-signature-mismatch", "missing-command-signature", "no-dispatch-trigger",
    "findings-suppressed", "validator-index-out-of-range", "unknown-validator-identifier",
    "validator-without-signature", "validator-grid-missing", "validator-pointer-arg-unavailable", "validator-fault",
    "program-class-mismatch",
    # issue 14 (call-time requirements): ExecuteIndirect, then Work Lists
    "root-signature-not-set", "argument-buffer-offset-misaligned", "count-buffer-offset-misaligned",
    "argument-buffer-out-of-bounds", "count-buffer-out-of-bounds", "argument-buffer-wrong-state",
    "count-buffer-wrong-state", "index-buffer-format-invalid", "cbv-address-misaligned",
    "direct-bind-signature-index-nonzero", "raytracing-binding-null", "program-without-command-signature",
    "program-inputs-stride-below-worst-case", "program-table-size-too-small", "null-validation-program-table-nonzero",
    "shader-table-mutated", "next-dispatch-list-ignored", "validation-index-ignored",
    # the command list's type and render-pass scope (capture version 3): Work Lists, then ExecuteIndirect
    "dispatch-list-in-bundle", "command-list-type-invalid", "render-pass-compute-class",
    "execute-indirect-command-list-type-invalid", "execute-indirect-bundle-count-buffer",
    "execute-indirect-bundle-multiple-operations",
    # issue 25: what a draw sees
    "root-parameter-not-set", "argument-buffer-bounds-unknown", "count-buffer-bounds-unknown",
    # the bound descriptor heaps' ranges (capture version 4): W58
    "descriptor-handle-outside-heap",
]

LIST_VA, REC_VA, TABLE_VA = 0x1000, 0x10000, 0x40000
UNDEFINED_FLAG = 1 << 30


def api(enum: str, member: str) -> int:
    return abi.enum_value(enum, member)


def hostile_capture() -> SimpleNamespace:
    """A DispatchList1 capture with findings of three kinds of trouble: a binding problem (NumBindings !=
    NumSignatures: STATE_SETTING), undefined behaviour in GPU memory (ProgramTableIndex >= SlotCount,
    SignatureIndex out of range: EXECUTION errors) and a note (undefined flag bits: EXECUTION warning)."""
    s = Scene()
    grs = root_signature("GRS", constants_param(1))
    pcs = ProgramCommandSignature("PCS", [arg("CONSTANT", Constant=ConstantArg(0, 0, 1)), arg("DISPATCH")],
                                  pGlobalRootSignature=grs)
    p = program("P", 1, pcs)
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {})], 32))
    wls = WorkListSignature("WLS", [pcs])
    s.bind_array("ARR", [(wls, Scene.binding(TABLE_VA, 32, 1))])
    s.state.program.WorkList1.pBindings.append(Scene.binding(TABLE_VA, 32, 1))  # NumBindings 2, NumSignatures 1
    stride = 24
    s.put(REC_VA, primary(pcs, stride, ProgramTableIndex=9, arg1_Dispatch=dispatch(1)))
    s.put(LIST_VA, dispatch_input1(1, REC_VA, stride, CONT | UNDEFINED_FLAG, 0, LIST_VA + 0x100))
    s.put(LIST_VA + 0x100, dispatch_input1(0, 0, 0, 0, 5, 0))
    return SimpleNamespace(memory=s.memory, device=s.device, objects=s.objects, state=s.state,
                           call=DispatchListCall(LIST_VA, 0, 0, tier2=True))


def clean_capture() -> SimpleNamespace:
    c = hostile_capture()
    c.state.program.WorkList1.pBindings.pop()
    c.memory.write(LIST_VA, dispatch_input1(0, 0, 0))
    return c


# ----------------------------------------------------------------------------------------------------------------
# The table ("pMessage->VendorMessageId")
# ----------------------------------------------------------------------------------------------------------------


def test_vendor_message_ids_are_pinned_and_never_renumbered():
    """"only requires that the same logical message use a stable VendorMessageId across reports"."""
    assert list(MESSAGE_CLASSES)[: len(PINNED)] == PINNED
    for n, kind in enumerate(PINNED, 1):
        assert MESSAGE_CLASSES[kind].vendor_message_id == VENDOR_MESSAGE_ID_BASE + n
    assert MESSAGE_CLASSES["unmapped-va"].vendor_message_id == 0x574C_0000_0000_0002
    assert len({c.vendor_message_id for c in MESSAGE_CLASSES.values()}) == len(MESSAGE_CLASSES)


def test_every_finding_kind_has_an_assigned_message_class():
    """Every kind the executor can emit (trace.FINDING_KINDS) has a row; an unassigned kind still gets a
    deterministic ID outside the assigned range."""
    assert set(FINDING_KINDS) - set(MESSAGE_CLASSES) == set()
    fallback = message_class("some-future-kind")
    assert not fallback.assigned and fallback.vendor_message_id & UNASSIGNED_BIT
    assert fallback.vendor_message_id == message_class("some-future-kind").vendor_message_id


def test_categories_are_ddi_categories_and_severity_follows_the_finding():
    """D3D12DDI_MESSAGE_CATEGORY_0126 / _SEVERITY_0126: every category is a member; error -> ERROR (undefined
    behaviour), warning -> WARNING."""
    lo, hi = values.category_range()
    for cls in MESSAGE_CLASSES.values():
        assert lo <= values.ddi_category(cls.category) <= hi
    assert MESSAGE_CLASSES["no-work-list-bound"].category == "STATE_SETTING"
    assert MESSAGE_CLASSES["unmapped-va"].category == "EXECUTION"
    err = finding_message(Finding("unmapped-va", "DispatchList", "x"))
    warn = finding_message(Finding("unknown-flag-bits", "F", "y", severity="warning"), 7)
    assert err.severity == values.ddi_severity("ERROR") and err.command_list_state_index is None
    assert warn.severity == values.ddi_severity("WARNING") and warn.command_list_state_index == 7


# ----------------------------------------------------------------------------------------------------------------
# A hostile capture, as the application sees it
# ----------------------------------------------------------------------------------------------------------------


def test_hostile_capture_findings_arrive_in_the_infoqueue():
    """"The runtime stamps the resulting D3D12_MESSAGE with ID = D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE";
    "Command list state correlation": the description is prefixed with the command list's identity and
    ``[DispatchList1 #0]``; severity and category surface as the API members of the same name."""
    run = run_in_info_queue(hostile_capture(), command_list_name="Main")
    kinds = [f.kind for f in run.trace.findings]
    assert {"num-bindings-mismatch", "unknown-flag-bits", "program-table-index-out-of-range",
            "signature-index-out-of-range"} <= set(kinds)
    messages = run.driver_messages
    assert len(messages) == len(kinds) and run.command_list_state_index is not None
    for finding, m in zip(run.trace.findings, messages, strict=True):
        cls = MESSAGE_CLASSES[finding.kind]
        assert m.ID == values.driver_reported_message_id() == 1506
        assert m.Severity == api("D3D12_MESSAGE_SEVERITY", "ERROR" if finding.severity == "error" else "WARNING")
        assert m.Category == api("D3D12_MESSAGE_CATEGORY", cls.category)
        assert m.provenance is not None and m.provenance.vendor_message_id == cls.vendor_message_id
        assert m.provenance.command_list_state_index == run.command_list_state_index
        where = f" {finding.where()}" if finding.where() else ""
        assert m.pDescription.endswith(f"'Main' [DispatchList1 #0] {finding.kind} [{finding.rule}]{where}: "
                                       f"{finding.message}")
    by_kind = {f.kind: m for f, m in zip(run.trace.findings, messages, strict=True)}
    assert by_kind["unknown-flag-bits"].Severity == api("D3D12_MESSAGE_SEVERITY", "WARNING")
    assert by_kind["num-bindings-mismatch"].Category == api("D3D12_MESSAGE_CATEGORY", "STATE_SETTING")
    assert by_kind["program-table-index-out-of-range"].Category == api("D3D12_MESSAGE_CATEGORY", "EXECUTION")
    assert run.messages[0].pDescription == "D3D12 Driver Reported Messages Enabled"  # the mandatory first message


def test_each_call_carries_the_state_index_of_its_own_dispatch():
    """"The driver must cache the most recent CommandListStateIndex received for a given command list and include
    it ... [for] that command list operation": two calls on one list, the second's findings say #1."""
    rt = Runtime(ExecutorDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    device = rt.create_device()
    queue, cl = device.create_command_queue(), device.create_command_list("Main")
    first = cl.record("DispatchList1", capture=clean_capture())
    second = cl.record("DispatchList1", capture=hostile_capture())
    cl.close()
    queue.execute_command_lists([cl])
    queue.signal()
    queue.gpu_run()
    assert [m.pDescription for m in device.messages()] == ["D3D12 Driver Reported Messages Enabled"]  # not yet
    queue.wait()  # the flush point
    reported = device.messages()[1:]
    assert reported and first != second
    assert all(m.provenance.command_list_state_index == second for m in reported)
    assert all("'Main' [DispatchList1 #1] " in m.pDescription for m in reported)


def test_uncorrelated_report_surfaces_unannotated():
    """"If the driver cannot attribute a message to a specific command list operation, it must set
    CommandListStateIndex to 0xFFFFFFFF"; such messages "are surfaced unmodified"."""
    rt = Runtime(ExecutorDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    device = rt.create_device()
    trace = execute(hostile_capture())
    hrs = report_findings(trace, device.driver_device.callbacks)
    assert hrs and all(hr == values.hresult("S_OK") for hr in hrs)
    reported = device.messages()[1:]
    assert [m.provenance.command_list_state_index for m in reported] == [values.no_correlation()] * len(hrs)
    assert reported[0].pDescription == finding_message(trace.findings[0]).description


def test_validator_findings_travel_too():
    """Validation-hook findings (d3d12wl.executor.validation) are findings like any other: a slot out of range reaches the
    InfoQueue with its own stable ID."""
    from d3d12wl.executor.validation import ValidationRunner
    from d3d12wl.model.state import GpuVirtualAddressRangeAndStride, ProgramTableBinding

    c = clean_capture()
    c.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding(
        GpuVirtualAddressRangeAndStride(TABLE_VA, 32, 32), 1)
    c.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = 3
    run = run_in_info_queue(c, hooks=ValidationRunner())
    (m,) = run.driver_messages
    assert m.provenance.vendor_message_id == MESSAGE_CLASSES["validator-index-out-of-range"].vendor_message_id


# ----------------------------------------------------------------------------------------------------------------
# d3d12wl dump
# ----------------------------------------------------------------------------------------------------------------


def _bad_example(tmp_path: Path) -> Path:
    from importlib import resources

    d: dict[str, Any] = json.loads(resources.files("d3d12wl").joinpath("examples/culling_capture.json")
                                   .read_text("utf-8"))
    r = next(r for r in d["memory"] if r["name"] == "pPrimaryListBuffer")
    raw = bytearray(bytes.fromhex("".join(r["hex"]).replace(" ", "")))
    raw[16:20] = (64).to_bytes(4, "little")  # primary [1]: ProgramTableIndex 64 >= SlotCount
    r["hex"] = raw.hex()
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    return path


def test_dump_shows_the_infoqueue_section(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """Issue 6 item 3: "`d3d12wl dump` shows them as an application would see them in its InfoQueue"."""
    path = _bad_example(tmp_path)
    assert main(["dump", str(path)]) == 1
    out = capsys.readouterr().out
    section = out.split("InfoQueue (driver-reported messages) (2):")[1]
    assert "D3D12 ERROR: 0x" in section and "[DispatchList #0] program-table-index-out-of-range" in section
    assert "[ EXECUTION ERROR #1506: DRIVER_REPORTED_MESSAGE]" in section
    assert main(["dump", str(path), "--json"]) == 1
    rows = json.loads(capsys.readouterr().out)["info_queue"]
    assert rows[0]["category_name"] == "INITIALIZATION" and rows[0]["severity_name"] == "MESSAGE"
    assert rows[1]["id_name"] == "DRIVER_REPORTED_MESSAGE" and rows[1]["severity_name"] == "ERROR"
    assert rows[1]["vendor_message_id"] == MESSAGE_CLASSES["program-table-index-out-of-range"].vendor_message_id
