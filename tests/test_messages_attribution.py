"""Issue 19: attribution after Reset, the queue-destruction flush after removal, the device-removed reason, and the
smaller items (case-insensitive registry look-ups, lone-surrogate object names).  Each test names the spec sentence
it proves and failed before its fix."""

from __future__ import annotations

import pytest

from d3d12wl.messages import values

_missing = values.missing_declarations(handle_types=True)
if _missing:
    pytest.skip(f"the compiled headers lack {', '.join(_missing)} (see issue 6)", allow_module_level=True)

from d3d12wl.messages import Device, MessagesError, ReferenceDriver, Runtime, read_registry  # noqa: E402
from d3d12wl.messages.driver import Driver  # noqa: E402
from d3d12wl.messages.enabling import AND_VALUE, OR_VALUE, REGISTRY_KEY  # noqa: E402

OLD = (0x42, "ERROR", "EXECUTION", "OLD recording's finding")
NEW = (0x43, "ERROR", "EXECUTION", "NEW recording's finding")


def make_device(driver: Driver | None = None) -> Device:
    rt = Runtime(driver or ReferenceDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    return rt.create_device()


def texts(device: Device) -> list[str]:
    return [m.pDescription for m in device.messages()[1:]]  # without the initialization message


# ---- item 1: attribution after Reset ----------------------------------------------------------------------------


def test_submission_of_reset_list_reports_its_own_recording__correlation() -> None:
    """"The driver must cache the most recent CommandListStateIndex received for a given command list and include it
    ... [for] that command list operation"; "Reset installs a fresh table for the new recording while any in-flight
    submission keeps a reference to the old one, so an earlier submission still resolves against the recording that
    produced it."  The issue's recording: draw (old), execute, Reset, dispatch (new, never submitted), Signal, GPU
    run, Wait: the old draw's finding arrives, attributed to the old draw; the new dispatch's never does."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list("L")
    old = cl.draw(gpu_message=OLD)
    cl.close()
    queue.execute_command_lists([cl])
    cl.reset()
    cl.dispatch(gpu_message=NEW)
    queue.signal()
    queue.gpu_run()
    queue.wait()
    assert texts(device) == [f"{cl.object.identity_string()} [Draw #0] {OLD[3]}"]
    assert device.messages()[1].provenance is not None
    assert device.messages()[1].provenance.command_list_state_index == old


def test_resubmitted_old_recording_reports_old_ordinal__correlation() -> None:
    """"Indices are not invalidated by resubmission": a resubmission made before Reset runs the old recording, so
    its finding names the old recording's ``[Draw #1]``, not the new recording's ``[Draw #0]``."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list("A")
    cl.draw()
    cl.draw(gpu_message=OLD)
    cl.close()
    queue.execute_command_lists([cl])
    queue.signal()
    queue.gpu_run()
    queue.wait()
    queue.execute_command_lists([cl])  # resubmission without Reset
    cl.reset()
    cl.draw(gpu_message=NEW)
    cl.close()
    queue.signal()
    queue.gpu_run()
    queue.wait()
    assert texts(device) == [f"{cl.object.identity_string()} [Draw #1] {OLD[3]}"] * 2


def test_executor_driver_keeps_findings_of_a_reset_list__correlation() -> None:
    """The executor as a driver: the hostile capture's findings survive a Reset between submission and GPU run."""
    from test_executor_messages import hostile_capture

    from d3d12wl.messages.driver_channel import ExecutorDriver

    device = make_device(ExecutorDriver())
    queue, cl = device.create_command_queue(), device.create_command_list("Main")
    cl.record("DispatchList1", capture=hostile_capture())
    cl.close()
    queue.execute_command_lists([cl])
    cl.reset()
    queue.signal()
    queue.gpu_run()
    queue.wait()
    found = texts(device)
    assert len(found) == 4 and all("'Main' [DispatchList1 #0] " in t for t in found)


# ---- item 2: queue destruction flushes unconditionally ------------------------------------------------------


def test_queue_destruction_flushes_on_a_removed_device__flush() -> None:
    """"Queue destruction flushes unconditionally, including for submissions the GPU has not finished": a removal
    the runtime has not surfaced yet does not suppress it, so the message the driver captured is delivered."""
    device = make_device()
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=OLD)
    cl.close()
    queue.execute_command_lists([cl])
    queue.gpu_run()
    device.remove()
    queue.destroy()
    device.destroy()
    assert [f.kind for f in device.flushes] == ["ExecuteCommandLists", "queue destruction"]
    assert len(texts(device)) == 1 and texts(device)[0].endswith(OLD[3])


# ---- item 3: the device-removed reason ----------------------------------------------------------------------


@pytest.mark.parametrize("reason", ["DXGI_ERROR_DEVICE_HUNG", "DXGI_ERROR_DEVICE_RESET",
                                    "DXGI_ERROR_DRIVER_INTERNAL_ERROR", "DXGI_ERROR_INVALID_CALL"])
def test_removal_reason_surfaces__device_removed(reason: str) -> None:
    """"When the device is removed, the runtime calls pfnFlushDriverReportedMessages synchronously the first time it
    surfaces DXGI_ERROR_DEVICE_REMOVED (or related error) to the app": GetDeviceRemovedReason, Signal and Wait
    return the reason given, and the first of them flushes."""
    device = make_device()
    queue = device.create_command_queue()
    device.remove(reason)
    hr = values.hresult(reason)
    assert values.failed(hr)
    assert device.get_device_removed_reason() == hr
    assert queue.signal() == hr and queue.wait() == hr
    assert [f.kind for f in device.flushes].count("device removal") == 1


def test_removal_reason_must_be_declared__device_removed() -> None:
    device = make_device()
    with pytest.raises(MessagesError):
        device.remove("DXGI_ERROR_NOT_A_REASON")
    with pytest.raises(MessagesError):
        device.remove("S_OK")
    assert not device.removed


# ---- smaller items ----------------------------------------------------------------------------------------------


def test_registry_lookups_ignore_case__enabling() -> None:
    """The per-application subkey "under HKCU\\Software\\Microsoft\\Direct3D\\Direct3D12\\<AppName> (with an HKLM
    fallback)": Windows registry key and value names are case-insensitive."""
    key = f"{REGISTRY_KEY}\\Game.exe".upper()
    overlay = read_registry("game.EXE", {key: {OR_VALUE.lower(): 1}},
                            {f"{REGISTRY_KEY}\\GAME.exe".lower(): {AND_VALUE.upper(): 0}})
    assert (overlay.EnableDriverReportedMessagesAnd, overlay.EnableDriverReportedMessagesOr) == (0, 1)


def test_lone_surrogate_name_gives_an_hresult__object_identity() -> None:
    """"The identity string is encoded as null-terminated UTF-8"; a name set through SetName (LPCWSTR) may hold an
    unpaired UTF-16 surrogate, which UTF-8 cannot carry: the runtime converts it as Windows' UTF-16 -> UTF-8
    conversion does (U+FFFD) and the two-call query returns S_OK with sizes that agree, instead of raising."""
    device = make_device()
    resource = device.create_resource("bad\ud800name")
    identity = device.callbacks.query_identity(resource.handle_and_type())
    assert identity.endswith(":'bad\ufffdname'")
    ffi = values.ffi()
    size = ffi.new("uint64_t *")
    hr = device.callbacks.pfnQueryObjectIdentityCb(device.hRTDevice, resource.handle_and_type(), size, ffi.NULL)
    assert hr == values.hresult("S_OK") and size[0] == len(identity.encode("utf-8")) + 1
