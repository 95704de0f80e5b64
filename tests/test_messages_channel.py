"""Driver-reported messages (seed 003), runtime side: enabling, the initialization message, message reporting and
validation, the message ID, and the InfoQueue an application reads.  Each test names the spec section it proves."""

from __future__ import annotations

from typing import Any

import pytest

from d3d12wl.messages import values

_missing = values.missing_declarations()
if _missing:
    pytest.skip(f"the compiled headers lack {', '.join(_missing)} (see issue 6)", allow_module_level=True)

from d3d12wl.messages import (  # noqa: E402
    INITIALIZATION_TEXT,
    CoreLayerCallbacks,
    Device,
    Driver,
    DriverDevice,
    DriverMessage,
    InfoQueueFilter,
    InfoQueueFilterDesc,
    MessagesError,
    ReferenceDriver,
    RegistryOverlay,
    Runtime,
    decode,
    from_bytes,
    read_registry,
)
from d3d12wl.messages.enabling import AND_VALUE, OR_VALUE, REGISTRY_KEY  # noqa: E402

S_OK = values.hresult("S_OK")
E_INVALIDARG = values.hresult("E_INVALIDARG")


def sev(short: str) -> int:
    return values.ddi_severity(short)


def cat(short: str) -> int:
    return values.ddi_category(short)


def make_device(driver: Driver | None = None, *, debug: bool = True, toggle: bool = True,
                registry: RegistryOverlay | None = None) -> Device:
    rt = Runtime(driver or ReferenceDriver(), registry=registry)
    if debug:
        rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(toggle)
    return rt.create_device()


def callbacks_of(device: Device) -> CoreLayerCallbacks:
    return device.callbacks


def driver_messages(device: Device) -> list[str]:
    return [m.pDescription for m in device.messages()]


# ---- Enabling the feature -----------------------------------------------------------------------------------------


def test_toggle_default_off__enabling() -> None:
    """"opts in (Enable = TRUE) or out (Enable = FALSE, the default)"."""
    rt = Runtime(ReferenceDriver())
    rt.debug.enable_debug_layer()
    device = rt.create_device()
    assert not device.driver_reported_messages_enabled
    assert device.messages() == []


def test_toggle_needs_debug_layer__enabling() -> None:
    """"If the debug layer is not enabled, the toggle has no effect on that device."""
    device = make_device(debug=False, toggle=True)
    assert not device.driver_reported_messages_enabled
    assert device.messages() == []


def test_toggle_last_call_before_create_wins__enabling() -> None:
    """"If the app calls SetEnableDriverReportedMessages multiple times prior to D3D12CreateDevice returning, the
    most recent value wins."""
    rt = Runtime(ReferenceDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    rt.debug.set_enable_driver_reported_messages(False)
    assert not rt.create_device().driver_reported_messages_enabled
    rt.debug.set_enable_driver_reported_messages(False)
    rt.debug.set_enable_driver_reported_messages(True)
    assert rt.create_device().driver_reported_messages_enabled


def test_toggle_latched_at_device_creation__enabling() -> None:
    """"The setting is then fixed for the lifetime of that device; toggle changes made after D3D12CreateDevice
    returns have no effect on already-created devices."""
    rt = Runtime(ReferenceDriver())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    on = rt.create_device()
    rt.debug.set_enable_driver_reported_messages(False)
    off = rt.create_device()
    rt.debug.set_enable_driver_reported_messages(True)
    assert on.driver_reported_messages_enabled and not off.driver_reported_messages_enabled
    assert off.callbacks.report_values(1, "ERROR", "EXECUTION", "x") == E_INVALIDARG


def test_driver_without_feature_no_effect_no_error__enabling() -> None:
    """"If the driver does not implement the driver-reported-messages DDI, the toggle has no observable effect on
    that device's ID3D12InfoQueue. The call itself is fire-and-forget — no error is returned"."""
    device = make_device(Driver())
    assert not device.driver_reported_messages_enabled
    assert device.info_queue.get_num_stored_messages() == 0
    queue, cl = device.create_command_queue(), device.create_command_list()
    assert cl.draw() is None  # no index issued, no pfnSetCommandListStateIndex
    cl.close()
    queue.execute_command_lists([cl])
    assert device.flushes == []  # pfnFlushDriverReportedMessages never called


def test_feature_enabled_with_negotiated_version__enabling() -> None:
    """"the runtime enables the feature per device by calling pfnEnableExtendedFeature(hDevice,
    D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, Version)"; "The runtime negotiates the highest version both
    sides understand"."""
    seen: list[tuple[int, int]] = []

    class Future(Driver):
        def get_supported_extended_features(self) -> dict[int, int]:
            return {values.feature_driver_reported_messages(): values.feature_version_0() + 5}

        def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
            inner = ReferenceDriver().create_device(callbacks)
            original = inner.enable_extended_feature

            def enable(feature: int, version: int) -> Any:
                seen.append((feature, version))
                return original(feature, version)

            inner.enable_extended_feature = enable  # type: ignore[method-assign]
            return inner

    device = make_device(Future())
    assert seen == [(values.feature_driver_reported_messages(), values.feature_version_0())]
    assert device.feature_version == values.feature_version_0()


def test_no_messages_when_runtime_did_not_enable__reporting() -> None:
    """"Calls on a device where the feature was not enabled return E_INVALIDARG and are dropped."""
    device = make_device(toggle=False)
    assert device.callbacks.report_values(5, "ERROR", "EXECUTION", "rogue") == E_INVALIDARG
    assert device.info_queue.get_num_stored_messages() == 0
    assert device.reports[-1].rejection == "the feature was not enabled on this device"


@pytest.mark.parametrize(
    ("app", "registry", "expected"),
    [
        (False, RegistryOverlay(), False),
        (True, RegistryOverlay(), True),
        (False, RegistryOverlay.force_on(), True),
        (True, RegistryOverlay.force_off(), False),
        (True, RegistryOverlay(EnableDriverReportedMessagesAnd=0, EnableDriverReportedMessagesOr=1), True),
    ],
)
def test_registry_and_or_overlay_wins__enabling(app: bool, registry: RegistryOverlay, expected: bool) -> None:
    """"The toggle follows the same AND/OR mask convention ... This overlay is applied at device creation, after the
    application's SetEnableDriverReportedMessages calls have been latched, so the registry value wins"."""
    assert make_device(toggle=app, registry=registry).driver_reported_messages_enabled is expected


def test_registry_force_on_needs_debug_layer__enabling() -> None:
    """"forcing driver-reported messages on is only effective when the debug layer is also active for that
    application — either because the application called ID3D12Debug::EnableDebugLayer, or because the debug layer
    is itself forced on through the existing RequireSDKLayers / D3D12SDKLayerFlagsAnd / D3D12SDKLayerFlagsOr"."""
    forced_on = RegistryOverlay.force_on()
    assert not make_device(debug=False, toggle=False, registry=forced_on).driver_reported_messages_enabled
    forced = RegistryOverlay(EnableDriverReportedMessagesOr=1, force_debug_layer=True)
    assert make_device(debug=False, toggle=False, registry=forced).driver_reported_messages_enabled


def test_registry_hkcu_then_hklm_then_default__enabling() -> None:
    """"Two REG_DWORD values are read from the per-application subkey under HKCU\\...\\<AppName> (with an HKLM
    fallback)": defaults And = 1, Or = 0."""
    key = f"{REGISTRY_KEY}\\game.exe"
    assert read_registry("game.exe", {}) == RegistryOverlay()
    overlay = read_registry("game.exe", {key: {OR_VALUE: 1}}, {key: {OR_VALUE: 0, AND_VALUE: 0}})
    assert (overlay.EnableDriverReportedMessagesAnd, overlay.EnableDriverReportedMessagesOr) == (0, 1)
    assert read_registry("other.exe", {key: {OR_VALUE: 1}}) == RegistryOverlay()


# ---- the mandatory initialization message (HLK section) -----------------------------------------------------------


def test_initialization_message_exact__conformance() -> None:
    """"must report exactly one message when the runtime enables the feature ... Severity MESSAGE, Category
    INITIALIZATION, CommandListStateIndex 0xFFFFFFFF ... D3D12 Driver Reported Messages Enabled", surfaced as an
    InfoQueue message with D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE."""
    device = make_device()
    (message,) = device.messages()
    assert message.pDescription == INITIALIZATION_TEXT == "D3D12 Driver Reported Messages Enabled"
    assert message.Severity == values.enum_value("D3D12_MESSAGE_SEVERITY", "D3D12_MESSAGE_SEVERITY_MESSAGE")
    assert message.Category == values.enum_value("D3D12_MESSAGE_CATEGORY", "D3D12_MESSAGE_CATEGORY_INITIALIZATION")
    assert message.ID == values.driver_reported_message_id()
    assert message.provenance is not None and message.provenance.command_list_state_index == values.no_correlation()
    assert device.reports[0].during_enable


# ---- Message Reporting / Message validation -----------------------------------------------------------------------


def test_message_stamped_with_sentinel_id_and_verbatim_description__reporting() -> None:
    """"The runtime stamps the resulting D3D12_MESSAGE with ID = D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE and
    forwards pMessage->pDescription verbatim"; "embedded '\\n' characters ... are preserved; the runtime does not
    split the message"."""
    device = make_device()
    text = "line one\nline two: d\u00e9j\u00e0 vu"
    assert device.callbacks.report_values(0xDEADBEEF_00000001, "WARNING", "SHADER", text) == S_OK
    message = device.messages()[-1]
    assert message.pDescription == text
    assert message.ID == values.driver_reported_message_id() == 1506
    assert device.info_queue.get_num_stored_messages() == 2


def test_category_and_severity_reuse_api_enums__message_ids() -> None:
    """"Driver-reported messages reuse the existing D3D12_MESSAGE_CATEGORY enum. No new category values are
    introduced."  A DDI category surfaces as the API category of the same name."""
    device = make_device()
    device.callbacks.report_values(1, "CORRUPTION", "RESOURCE_MANIPULATION", "x")
    message = device.messages()[-1]
    assert message.Category == values.enum_value("D3D12_MESSAGE_CATEGORY", "RESOURCE_MANIPULATION")
    assert message.Severity == values.enum_value("D3D12_MESSAGE_SEVERITY", "CORRUPTION")


def test_runtime_copies_message_before_returning__reporting() -> None:
    """"The runtime copies the contents of pMessage (including the pDescription string) before pfnReportMessageCb
    returns; the driver retains ownership of all storage referenced by pMessage."""
    device = make_device()
    encoded = DriverMessage(9, sev("ERROR"), cat("EXECUTION"), "original").encode()
    assert device.callbacks.pfnReportMessageCb(device.hRTDevice, encoded.pointer) == S_OK
    values.ffi().memmove(encoded.description_storage, b"CLOBBER!", 8)  # the driver reuses its buffer
    encoded.pointer.Severity = sev("INFO")
    assert device.messages()[-1].pDescription == "original"


NULL = object()


@pytest.mark.parametrize(
    ("field", "bad"),
    [
        ("pMessage", NULL),
        ("pDescription", NULL),
        ("Severity", 5),
        ("Severity", 0xFFFFFFFF),  # -1 as the 4 bytes hold it
        ("Category", 12),
        ("Category", 0xFFFFFFFF),
    ],
)
def test_invalid_message_rejected_and_dropped__message_validation(field: str, bad: object) -> None:
    """Message validation table: pMessage non-NULL, pDescription non-NULL, Severity within [CORRUPTION, MESSAGE],
    Category within [APPLICATION_DEFINED, STATE_OBJECT_DATABASE], else E_INVALIDARG; "A dropped message produces no
    InfoQueue entry and no registered-callback invocation."""
    device = make_device()
    seen: list[str] = []
    device.info_queue.register_message_callback(lambda c, s, i, d, ctx: seen.append(d), ignore_filters=True)
    before = device.info_queue.get_num_stored_messages()
    ffi = values.ffi()
    encoded = DriverMessage(3, sev("ERROR"), cat("EXECUTION"), "payload").encode()
    pointer = encoded.pointer
    if field == "pMessage":
        pointer = ffi.NULL
    elif field == "pDescription":
        pointer.pDescription = ffi.NULL
    else:
        setattr(pointer, field, bad)
    assert device.callbacks.pfnReportMessageCb(device.hRTDevice, pointer) == E_INVALIDARG
    assert device.info_queue.get_num_stored_messages() == before
    assert seen == []
    assert field in (device.reports[-1].rejection or "")


@pytest.mark.parametrize(("severity", "category"), [("CORRUPTION", "APPLICATION_DEFINED"),
                                                    ("MESSAGE", "STATE_OBJECT_DATABASE")])
def test_range_endpoints_accepted__message_validation(severity: str, category: str) -> None:
    """The validation ranges are inclusive of both named endpoints."""
    device = make_device()
    assert device.callbacks.report_values(1, severity, category, "edge") == S_OK


def test_vendor_id_and_index_not_validated__message_validation() -> None:
    """"VendorMessageId and CommandListStateIndex are not validated: any VendorMessageId is legal, and an unknown
    or unresolvable CommandListStateIndex ... is already handled by surfacing the message without correlation."""
    device = make_device()
    assert device.callbacks.report_values(0xFFFFFFFFFFFFFFFF, "ERROR", "EXECUTION", "any id", 123456) == S_OK
    message = device.messages()[-1]
    assert message.pDescription == "any id"
    assert message.provenance is not None and message.provenance.vendor_message_id == 0xFFFFFFFFFFFFFFFF


def test_report_after_device_destruction_dropped__reporting() -> None:
    """"pfnReportMessageCb is valid only between device creation and device destruction" (a use-after-free in C;
    the model drops it, returns E_INVALIDARG and records the violation)."""
    device = make_device()
    device.destroy()
    assert device.callbacks.report_values(1, "ERROR", "EXECUTION", "late") == E_INVALIDARG
    assert "destroyed" in (device.reports[-1].rejection or "")


# ---- the DDI struct through the compiled headers ------------------------------------------------------------------


def test_ddi_message_bytes_roundtrip__message_reporting() -> None:
    """D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 encoded through the cffi ffi and decoded from its bytes: every field at
    the compiled header's offset."""
    ffi = values.ffi()
    message = DriverMessage(0x0123456789ABCDEF, sev("WARNING"), cat("STATE_SETTING"), "hello", 42)
    encoded = message.encode()
    raw = encoded.to_bytes()
    assert len(raw) == ffi.sizeof("D3D12DDI_DRIVER_REPORTED_MESSAGE_0126")
    offset = ffi.offsetof("D3D12DDI_DRIVER_REPORTED_MESSAGE_0126", "CommandListStateIndex")
    assert int.from_bytes(raw[offset:offset + 4], "little") == 42
    offset = ffi.offsetof("D3D12DDI_DRIVER_REPORTED_MESSAGE_0126", "VendorMessageId")
    assert int.from_bytes(raw[offset:offset + 8], "little") == 0x0123456789ABCDEF
    buffer = bytearray(raw)
    assert decode(from_bytes(buffer)) == DriverMessage(0x0123456789ABCDEF, sev("WARNING"), cat("STATE_SETTING"),
                                                       b"hello", 42)
    assert DriverMessage(1, 0, 0, "x").encode().pointer.CommandListStateIndex == values.no_correlation()
    with pytest.raises(MessagesError):
        from_bytes(b"\0" * 3)


# ---- the InfoQueue an application reads ---------------------------------------------------------------------------


def test_deny_sentinel_id_suppresses_class__message_ids() -> None:
    """"Apps filter or suppress driver-sourced messages as a class by the sentinel ID ... through the normal
    ID3D12InfoQueue::PushStorageFilter path" (and PopStorageFilter to undo)."""
    device = make_device()
    iq = device.info_queue
    seen: list[str] = []
    iq.register_message_callback(lambda c, s, i, d, ctx: seen.append(d))
    iq.push_storage_filter(InfoQueueFilter.deny_ids([values.driver_reported_message_id()]))
    assert device.callbacks.report_values(1, "ERROR", "EXECUTION", "hidden") == S_OK
    assert [m.pDescription for m in iq.messages()] == [INITIALIZATION_TEXT] and seen == []
    iq.pop_storage_filter()
    device.callbacks.report_values(1, "ERROR", "EXECUTION", "shown")
    assert driver_messages(device)[-1] == "shown" and seen == ["shown"]


def test_callback_ignore_filters_and_unregister__infoqueue() -> None:
    """RegisterMessageCallback: D3D12_MESSAGE_CALLBACK_IGNORE_FILTERS sees filtered messages too; the callback gets
    (category, severity, id, description, context); UnregisterMessageCallback stops it."""
    device = make_device()
    iq = device.info_queue
    got: list[tuple[int, int, int, str, object]] = []
    cookie = iq.register_message_callback(lambda *a: got.append(a), ignore_filters=True, context="ctx")
    iq.push_storage_filter(InfoQueueFilter(DenyList=InfoQueueFilterDesc(severities=(values.api_severity(
        sev("INFO")),))))
    device.callbacks.report_values(77, "INFO", "CLEANUP", "filtered but seen")
    assert got == [(values.api_category(cat("CLEANUP")), values.api_severity(sev("INFO")),
                    values.driver_reported_message_id(), "filtered but seen", "ctx")]
    assert iq.get_num_stored_messages() == 1
    iq.unregister_message_callback(cookie)
    device.callbacks.report_values(77, "ERROR", "CLEANUP", "after")
    assert len(got) == 1
    with pytest.raises(MessagesError):
        iq.unregister_message_callback(cookie)


def test_get_message_by_index__infoqueue() -> None:
    """Apps that pull "call ID3D12InfoQueue::GetMessage and check for the sentinel ID on the returned
    D3D12_MESSAGE"."""
    device = make_device()
    device.callbacks.report_values(2, "ERROR", "EXECUTION", "second")
    iq = device.info_queue
    assert iq.get_message(1).pDescription == "second"
    assert iq.get_message(1).DescriptionByteLength == len("second") + 1
    assert iq.get_message(0).ID == values.driver_reported_message_id()
    with pytest.raises(MessagesError):
        iq.get_message(2)
