"""The checks of the conformance suite, each deciding the one spec sentence it quotes (``CHECKS``).

"Apart from the mandatory initialization message, message content is vendor-defined and HLK cannot compel a driver
to emit a diagnostic, so conformance validates the delivery contract, not the payload. Every test asserts only what
is decidable on any implementing driver; a driver that reports nothing beyond the mandated message is therefore a
pass, not a skip."  Where a check needs a finding and the driver reports none of the workload's probes, it passes
and says it could not decide.  docs/messages.md lists what each check decides; ``d3d12wl messages check --help``
says it too.
"""

from __future__ import annotations

from collections.abc import Callable

from d3d12wl.messages import page_heap, values
from d3d12wl.messages.channel import INITIALIZATION_TEXT, Device, ReportRecord
from d3d12wl.messages.conformance_harness import (
    GRACE_S,
    REMOVAL_PROMPT_S,
    SITE_DESTROY_DEVICE,
    SITE_ENABLE,
    SITE_FEATURES,
    SITE_FLUSH,
    SITE_REMOVAL_FLUSH,
    WORKLOAD_TIMEOUT_S,
    FlushCall,
    make_device,
    make_runtime,
    process_threads,
    run_watched,
    settle,
    settle_threads,
    shown,
    traced,
)
from d3d12wl.messages.conformance_locks import reports_outside_driver_locks, reports_outside_list_locks
from d3d12wl.messages.conformance_results import Check, DriverFactory
from d3d12wl.messages.conformance_workloads import (
    GPU_PROBE,
    PROBE_KINDS,
    Finding,
    Workload,
    concurrent_workload,
    removal_workload,
    standard_workload,
)
from d3d12wl.messages.enabling import RegistryOverlay
from d3d12wl.messages.memory import DESCRIPTION_SCAN_LIMIT

NOT_DECIDABLE = "not decidable: the driver reports no finding of the workload's probes (a pass, as the spec says)"

#: the rejections of "Message validation" (the runtime's, and the model's unreadable pMessage); the others have
#: checks of their own: destroyed_device, not_enabled, unterminated_description
CONTRACT_REJECTIONS = ("wrong_device", "null_message", "unreadable_message", "null_description", "severity_range",
                       "category_range")


def _accepted(device: Device) -> list[ReportRecord]:
    return [r for r in device.reports if r.rejection is None and r.message is not None]


def _text(r: ReportRecord) -> str:
    """A report's description as a detail shows it: bounded, with its whole length when cut."""
    text = r.message.description if r.message is not None and r.message.description is not None else b""
    return shown(text, total=r.description_length)


# ---- enabling -----------------------------------------------------------------------------------------------------


def advertised_version_supported(factory: DriverFactory) -> tuple[bool, str]:
    """The feature listed by pfnGetSupportedExtendedFeatures is listed at a version (not _NONE), and the driver then
    enables it at the version negotiated."""
    runtime = make_runtime(factory)
    feature = values.feature_driver_reported_messages()
    note = getattr(runtime.driver, "feature_query_note", None)
    if feature not in runtime.supported_features:
        return True, "the driver does not list the feature: the suite checks it stays silent (silent_when_not_enabled)"
    version = int(runtime.supported_features[feature])
    if version <= values.feature_version_none():
        return False, (f"the feature is listed at version {version} (D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES"
                       "_NONE): no version of it is supported, so it must be omitted; the runtime never enables it")
    device = make_device(factory, runtime=runtime, expect_enabled=False)
    if not device.driver_reported_messages_enabled:
        return False, (f"listed at version {version}, but pfnEnableExtendedFeature refused version "
                       f"{runtime.negotiated_version()}, the one negotiated")
    return True, f"listed at version {version}, enabled at {device.feature_version}{'; ' + note if note else ''}"


def initialization_message(factory: DriverFactory) -> tuple[bool, str]:
    """Exactly one report inside pfnEnableExtendedFeature: MESSAGE, INITIALIZATION, 0xFFFFFFFF, the exact text."""
    device = make_device(factory)
    during = [r for r in device.reports if r.during_enable]
    if len(during) != 1:
        return False, f"{len(during)} reports inside pfnEnableExtendedFeature, want 1"
    record = during[0]
    msg = record.message
    want = (values.ddi_severity("MESSAGE"), values.ddi_category("INITIALIZATION"), None, INITIALIZATION_TEXT.encode())
    got = None if msg is None else (msg.severity, msg.category, msg.command_list_state_index, msg.description)
    if record.rejection or got != want:
        shown_got = None if got is None else (*got[:3], _text(record))
        return False, f"got {shown_got} ({shown(record.rejection or 'accepted')}), want {want}"
    return True, ""


def silent_when_not_enabled(factory: DriverFactory) -> tuple[bool, str]:
    """Toggle off, debug layer off, registry force-off -- and, for a driver that does not offer the feature, the
    toggle on: the standard workload on a device the feature is not enabled on, and no report call."""
    cases: dict[str, Callable[[], Device]] = {
        "toggle off": lambda: make_device(factory, toggle=False),
        "debug layer off": lambda: make_device(factory, debug=False),
        "registry force-off": lambda: make_device(factory, registry=RegistryOverlay.force_off()),
    }
    runtime = make_runtime(factory)
    if runtime.negotiated_version() is None:
        cases["toggle on, the feature not offered"] = lambda: make_device(factory, runtime=runtime)
    for label, make in cases.items():
        device = make()
        standard_workload(device)
        if device.reports:
            return False, f"{label}: {len(device.reports)} report call(s), the first {_text(device.reports[0])!r}"
    return True, f"{len(cases)} case(s), no report"


def registry_force_on(factory: DriverFactory) -> tuple[bool, str]:
    """The application's toggle off, the registry's EnableDriverReportedMessagesOr 1: the initialization message
    arrives (the DDI carries no reason for enabling, so a driver fails this only with initialization_message)."""
    device = make_device(factory, toggle=False, registry=RegistryOverlay.force_on())
    ok = any(m.pDescription == INITIALIZATION_TEXT for m in device.messages())
    return ok, "" if ok else "forced on by the registry, but no initialization message"


# ---- message validation ------------------------------------------------------------------------------------------


def reports_valid(factory: DriverFactory) -> tuple[bool, str]:
    """No report of the standard workload violates "Message validation": pMessage and pDescription non-NULL (and
    readable), Severity and Category in range, this device's hRTDevice."""
    device = make_device(factory)
    standard_workload(device)
    bad = [r for r in device.reports if r.rejection_kind in CONTRACT_REJECTIONS]
    return not bad, "; ".join(shown(str(r.rejection)) for r in bad[:3])


def descriptions_nul_terminated(factory: DriverFactory) -> tuple[bool, str]:
    """The standard workload with the driver library's heap blocks guarded (the page heap: each block of its C
    allocator ends where an unreadable page begins): no description runs into unreadable memory before its NUL (the
    one way an unterminated string shows: a terminated one is readable up to its NUL)."""
    with page_heap.enabled():
        device = make_device(factory)
        standard_workload(device)
    bad = [r for r in device.reports if r.rejection_kind == "unterminated_description"]
    if bad:
        return False, f"{len(bad)} report(s): {bad[0].rejection}"
    unbounded = [r for r in _accepted(device) if r.description_length is None]
    installed: page_heap.Installation | None = getattr(getattr(device.runtime.driver, "library", None),
                                                      "page_heap", None)
    heap = (f"the driver's heap blocks guarded (its {', '.join(installed.symbols)})"
            if installed is not None and installed.installed else
            f"no heap blocks guarded ({installed.reason if installed is not None else 'not a driver library'}): a "
            "copy without its NUL is not decided")
    return True, heap + (f"; {len(unbounded)} description(s) without a NUL in the first {DESCRIPTION_SCAN_LIMIT:,} "
                         "bytes: not decided" if unbounded else "")


def indices_issued(factory: DriverFactory) -> tuple[bool, str]:
    """Every CommandListStateIndex reported is 0xFFFFFFFF or one the runtime issued through
    pfnSetCommandListStateIndex."""
    device = make_device(factory)
    standard_workload(device)
    bad = [r.message.command_list_state_index for r in device.reports
           if r.index_state == "unknown" and r.message is not None]
    return not bad, f"never-issued indices {bad[:5]}" if bad else ""


# ---- correlation --------------------------------------------------------------------------------------------------


def _judge_attribution(w: Workload, findings: list[Finding]) -> tuple[bool, str, int, int]:
    """(passed, why, attributed, unattributed): each attributed finding carries its own call's index; a GPU-timeline
    one, an index whose recording the GPU had run when it was reported."""
    attributed = unattributed = 0
    for f in findings:
        assert f.report.message is not None
        index = f.report.message.command_list_state_index
        if index is None:
            unattributed += 1
            continue
        label = f.probe.kind.label
        if index != f.probe.index:
            return False, (f"a {label} finding of the call recorded under index {f.probe.index} names index {index}: "
                           "not the index of the call that produced it"), attributed, unattributed
        if f.probe.kind.gpu and not f.report.executed:
            return False, (f"a {label} finding names index {index}, whose recording the GPU had not run when it was "
                           "reported (a recording replaced by Reset was read at execution time)"), attributed, \
                unattributed
        attributed += 1
    return True, "", attributed, unattributed


def _attribution_detail(attributed: int, unattributed: int) -> str:
    if not attributed and not unattributed:
        return NOT_DECIDABLE
    if not attributed:
        return (f"not decidable: none of the driver's {unattributed} probe finding(s) is attributed "
                "(0xFFFFFFFF, which a driver that cannot attribute must set; a pass)")
    return f"{attributed} finding(s) attributed, each to its own call; {unattributed} unattributed (0xFFFFFFFF)"


def attribution_across_reset(factory: DriverFactory) -> tuple[bool, str]:
    """Every attributed probe finding of the standard workload carries the index of its own call (each call's token
    is its own, so one to one); a GPU-timeline one an index whose recording the GPU had run -- a resubmission run
    after a Reset names the old recording.  0xFFFFFFFF is allowed ("cannot attribute"); none attributed is not
    decidable (a pass)."""
    device = make_device(factory)
    w = standard_workload(device)
    ok, why, attributed, unattributed = _judge_attribution(w, w.findings())
    return (ok, why) if not ok else (True, _attribution_detail(attributed, unattributed))


def attribution_concurrent_recording(factory: DriverFactory) -> tuple[bool, str]:
    """Two threads record two lists, both lists' pfnSetCommandListStateIndex before either call: each attributed
    finding carries its own call's index (so the index is cached per command list, not per device)."""
    device = make_device(factory)
    w, interleaved = concurrent_workload(device)
    ok, why, attributed, unattributed = _judge_attribution(w, w.findings())
    if not ok:
        return False, f"{why} (two lists recorded concurrently)"
    if not interleaved:
        return True, "not decided: the two threads' calls could not be interleaved"
    return True, f"{interleaved} interleaved round(s); {_attribution_detail(attributed, unattributed)}"


def vendor_message_ids_stable(factory: DriverFactory) -> tuple[bool, str]:
    """The initialization message has one VendorMessageId on every device; every finding of one probe kind (one
    logical message, the harness DDI's) one VendorMessageId."""
    first, second = make_device(factory), make_device(factory)
    inits = [r.message.vendor_message_id for d in (first, second) for r in d.reports
             if r.during_enable and r.message is not None and r.rejection is None]
    if len(set(inits)) > 1:
        return False, f"the initialization message has VendorMessageIds {[hex(i) for i in inits]} on two devices"
    w = standard_workload(first)
    for kind in PROBE_KINDS:
        ids = sorted({f.report.message.vendor_message_id for f in w.findings(kind) if f.report.message is not None})
        if len(ids) > 1:
            return False, f"the {kind.label} probe (one logical message) reported with VendorMessageIds {[hex(i) for i in ids]}"
    return True, ""


# ---- flushes ------------------------------------------------------------------------------------------------------


def _late(reports: list[ReportRecord], since: int = 0) -> list[ReportRecord]:
    """Reports from position ``since`` that name an index after the flush for its submission returned, unless the
    same message (every field) was reported earlier in time: a repeat of a message delivered in time is not late."""
    in_time: set[tuple[object, ...]] = set()
    late = []
    for position, r in enumerate(reports):
        if r.rejection is not None or r.message is None or r.message.command_list_state_index is None:
            continue
        m = r.message
        key = (m.vendor_message_id, m.severity, m.category, m.description, m.command_list_state_index)
        if r.index_state != "late":
            in_time.add(key)
        elif key not in in_time and position >= since:
            late.append(r)
    return late


def no_late_correlated_reports(factory: DriverFactory) -> tuple[bool, str]:
    """The standard workload, then the grace period: no report names an index after the flush for its submission
    returned (unless it repeats a message delivered in time)."""
    device = make_device(factory)
    standard_workload(device)
    settle()
    late = _late(device.reports)
    if late:
        return False, (f"{len(late)} report(s) after the flush for their submission (within {GRACE_S:g} s of the "
                       f"workload), the first {_text(late[0])!r}")
    return True, ""


def flush_reports_everything_held(factory: DriverFactory) -> tuple[bool, str]:
    """Delivery counted: of a probe kind the driver honours (delivers at least one of), every probe is delivered by
    the end of the standard workload -- each GPU-timeline probe whose recording the GPU ran, each recording-time
    probe (dropping some of what it holds is not "report everything you currently hold")."""
    device = make_device(factory)
    w = standard_workload(device)
    counted = []
    for kind in PROBE_KINDS:
        delivered = {f.probe.token for f in w.findings(kind)}
        required = [p for p in w.of_kind(kind) if not kind.gpu or w.ran(p)]
        if not delivered:
            continue
        missing = [p for p in required if p.token not in delivered]
        if missing:
            return False, (f"{len(missing)} of {len(required)} {kind.label} probe finding(s) the driver held were never "
                           f"delivered (the first: {missing[0].token.decode()}, index {missing[0].index})")
        counted.append(f"{len(required)} {kind.label}")
    if not counted:
        return True, NOT_DECIDABLE
    return True, f"every probe delivered: {', '.join(counted)}"


def empty_flush_tolerated(factory: DriverFactory) -> tuple[bool, str]:
    """Flushes with nothing to report -- an idle queue's Wait (twice), an empty submission, an idle queue's
    destruction, and after the standard workload (everything delivered) another idle Wait and destruction: none of
    them raises, crashes, exits or hangs (a fault in pfnFlushDriverReportedMessages is this check's)."""
    device = make_device(factory)
    queue, cl = device.create_command_queue("idle"), device.create_command_list("empty")
    queue.wait()
    queue.wait()
    cl.close()
    queue.execute_command_lists([cl])
    queue.gpu_run()  # (run: a driver may wait for the GPU before a queue's destruction; the model's never fails)
    queue.destroy()
    empty = set(range(len(traced(device).flushes)))
    standard_workload(device)
    settle(0.02)
    before = len(traced(device).flushes)
    idle = device.create_command_queue("idle after work")
    idle.wait()
    idle.destroy()
    empty |= set(range(before, len(traced(device).flushes)))
    raised = [(kind, text) for ordinal, kind, text in traced(device).flush_raises if ordinal in empty]
    if raised:
        return False, f"the flush {raised[0][1]} with nothing to report ({raised[0][0]})"
    return True, f"{len(empty)} flush(es) with nothing to report"


# ---- device removal -------------------------------------------------------------------------------------------


def _removal(factory: DriverFactory, *, in_flight: bool = False, timeout_s: float = WORKLOAD_TIMEOUT_S
             ) -> tuple[Device, Workload]:
    device = make_device(factory)
    return device, run_watched(lambda: removal_workload(device, in_flight=in_flight), timeout_s)


def device_removal(factory: DriverFactory) -> tuple[bool, str]:
    """The removal workload with work submitted that the GPU never completes: the device-removal flush returns
    within 1 s of its own (the time inside the runtime's pfnReportMessageCb not counted), and the driver takes the
    app's calls on the removed device to its destruction."""
    device, _ = _removal(factory, in_flight=True)
    flush = traced(device).removal_flush()
    seconds = None if flush is None else flush.driver_seconds
    if [f.kind for f in device.flushes].count("device removal") != 1 or seconds is None:
        return False, "no device-removal flush happened"
    if seconds > REMOVAL_PROMPT_S:
        return False, (f"the device-removal flush took {seconds:.2f} s of its own (work was in flight that never "
                       "completes)")
    return True, f"the device-removal flush returned in {seconds * 1000:.1f} ms of its own, with work in flight"


def _honours_probes(factory: DriverFactory) -> bool:
    device = make_device(factory)
    return bool(standard_workload(device).findings(GPU_PROBE))


def _on_the_calling_thread(report: ReportRecord, flush: FlushCall | None) -> bool:
    """A report made during the device-removal flush on its calling thread -- or on a thread that existed when the
    flush began, which may have taken the message before it (no observer tells that from the flush handing it over).
    A thread the driver started during the flush cannot have: the flush handed the message over."""
    if flush is None or report.thread == flush.thread:
        return True
    return flush.threads_before is None or report.native_thread in flush.threads_before


def removal_flush_delivers_captured(factory: DriverFactory) -> tuple[bool, str]:
    """The removal workload with captured work: the GPU-timeline finding of the work the GPU ran before the removal,
    which no regular flush could carry, is delivered by the time the removal flush returns -- earlier, at any time and
    on any thread, or from inside it on the calling thread (a report inside it from a thread the driver started in
    the flush is not on the calling thread)."""
    if not _honours_probes(factory):
        return True, NOT_DECIDABLE
    device, w = _removal(factory)
    flush = traced(device).removal_flush()
    captured = [p for p in w.of_kind(GPU_PROBE) if w.ran(p)]
    found = [f for f in w.findings(GPU_PROBE) if not f.report.removal_flushed]
    delivered = {f.probe.token for f in found
                 if f.report.during_flush != "device removal" or _on_the_calling_thread(f.report, flush)}
    missing = [p for p in captured if p.token not in delivered]
    if missing:
        mine = [f for f in w.findings(GPU_PROBE) if f.probe is missing[0]]
        if any(f.report.during_flush == "device removal" and not f.report.removal_flushed for f in mine):
            return False, ("the finding captured before the removal was delivered inside the removal flush only from "
                           "a thread the driver started during the flush, not on the calling thread")
        when = "only after the removal flush returned" if mine else "never"
        return False, f"the finding captured before the removal was delivered {when}"
    inside = sum(1 for f in found if f.report.during_flush == "device removal")
    return True, f"{len(captured)} captured finding(s) delivered ({inside} inside the removal flush)"


def reports_after_removal(factory: DriverFactory) -> tuple[bool, str]:
    """The removal workload with captured work: no report made after the removal flush returned (the last flush of
    every submission made before the removal) names an index of such a submission, unless it repeats a message
    delivered in time."""
    device, _ = _removal(factory)
    first_after = next((i for i, r in enumerate(device.reports) if r.removal_flushed), len(device.reports))
    late = _late(device.reports, first_after)
    if late:
        return False, (f"{len(late)} report(s) after the removal flush name work submitted before the removal, the "
                       f"first {_text(late[0])!r}")
    return True, f"{len(device.reports) - first_after} report(s) after the removal flush"


# ---- device lifetime ----------------------------------------------------------------------------------------------


def no_report_after_destroy(factory: DriverFactory) -> tuple[bool, str]:
    """Two devices on one adapter, each given the standard workload and destroyed, then the grace period (0.15 s, and
    up to 1 s while a thread the driver started is still alive): nothing is reported into a destroyed device (a
    driver's leftover thread included)."""
    baseline = process_threads()
    runtime = make_runtime(factory)
    first = make_device(factory, runtime=runtime)
    standard_workload(first)
    first.destroy()
    second = make_device(factory, runtime=runtime)
    standard_workload(second)
    second.destroy()
    settle_threads(baseline)
    late = [r for d in (first, second) for r in d.reports if r.rejection_kind == "destroyed_device"]
    return not late, f"{len(late)} report(s) on a destroyed device (within {GRACE_S:g} s)" if late else ""


# ---- annotation ---------------------------------------------------------------------------------------------------


def no_duplicated_annotation(factory: DriverFactory) -> tuple[bool, str]:
    """A "should": no annotated report's own text holds what the runtime's annotation adds -- the identity string of
    the command list that recorded the work, or the [Kind #ordinal] of the call."""
    device = make_device(factory)
    standard_workload(device)
    for r in _accepted(device):
        p = r.surfaced.provenance if r.surfaced is not None else None
        if p is None or p.annotation is None:
            continue
        identity, _, label = p.annotation.rstrip().rpartition(" [")
        label = "[" + label
        for what, part in (("the command list's identity", identity), ("the call's kind and ordinal", label)):
            if part and part in p.driver_description:
                return False, (f"{shown(p.driver_description)!r} repeats {what} ({shown(part, 60)}), which the "
                               "runtime's annotation already gives")
    return True, ""


# ---- the table ----------------------------------------------------------------------------------------------------

CHECKS: tuple[Check, ...] = (
    Check("initialization_message", "Mandatory initialization message",
          "A driver that implements driver-reported messages must report exactly one message when the runtime enables "
          "the feature on a device during device creation — immediately after the feature has been enabled, and "
          "before EnableExtendedFeature returns", initialization_message, owns=(SITE_ENABLE,)),
    Check("silent_when_not_enabled", "Enabling the feature",
          "If the runtime does not enable the extended feature on a device, the driver must not generate "
          "driver-reported messages on that device.", silent_when_not_enabled, needs_feature=False),
    Check("registry_force_on", "Enabling the feature (registry overlay)",
          "This overlay is applied at device creation, after the application’s SetEnableDriverReportedMessages calls "
          "have been latched, so the registry value wins over the application’s choice.", registry_force_on),
    Check("reports_valid", "Message validation",
          "a message that violates the contract is dropped — it never reaches the ID3D12InfoQueue — and the callback "
          "returns a failure HRESULT so the driver can detect and correct the defect.", reports_valid),
    Check("indices_issued", "Command list state correlation",
          "If the driver cannot attribute a message to a specific command list operation, it must set "
          "CommandListStateIndex to 0xFFFFFFFF in the message.", indices_issued),
    Check("attribution_across_reset", "Command list state correlation / CommandListStateIndex validity window",
          "The driver must cache the most recent CommandListStateIndex received for a given command list and include "
          "it in the CommandListStateIndex field of any D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 that the driver "
          "attributes to that command list operation.", attribution_across_reset),
    Check("no_late_correlated_reports", "Flush and Message Processing",
          "The driver must report any messages referencing a CommandListStateIndex either:",
          no_late_correlated_reports),
    Check("empty_flush_tolerated", "Flush and Message Processing",
          "must tolerate a flush with nothing to report.", empty_flush_tolerated, owns=(SITE_FLUSH,)),
    Check("vendor_message_ids_stable", "Reporting a message (pMessage->VendorMessageId)",
          "it neither defines nor interprets the value, and only requires that the same logical message use a "
          "stable VendorMessageId across reports.", vendor_message_ids_stable),
    Check("reports_outside_driver_locks", "Threading and synchronization",
          "Do not call while holding a driver lock that a DDI entry point also takes.", reports_outside_driver_locks),
    Check("device_removal", "Device removed behavior", "The driver must return promptly.", device_removal,
          owns=(SITE_REMOVAL_FLUSH,)),
    Check("removal_flush_delivers_captured", "Device removed behavior",
          "The driver delivers, on the calling thread via pfnReportMessageCb, any messages already captured for GPU "
          "work submitted prior to the removal event.", removal_flush_delivers_captured),
    Check("reports_after_removal", "Device removed behavior / Flush and Message Processing",
          "The driver must report any messages referencing a CommandListStateIndex either:", reports_after_removal),
    Check("no_report_after_destroy", "Threading and synchronization (device lifetime)",
          "pfnReportMessageCb is valid only between device creation and device destruction.", no_report_after_destroy,
          owns=(SITE_DESTROY_DEVICE,)),
    Check("advertised_version_supported", "Enabling the feature",
          "A driver that does not support the feature omits it from pfnGetSupportedExtendedFeatures;",
          advertised_version_supported, needs_feature=False, owns=(SITE_FEATURES,)),
    Check("flush_reports_everything_held", "Flush and Message Processing",
          "The driver must treat every flush as “report everything you currently hold”", flush_reports_everything_held),
    Check("attribution_concurrent_recording", "Command list state correlation",
          "The driver must cache the most recent CommandListStateIndex received for a given command list",
          attribution_concurrent_recording),
    Check("reports_outside_list_locks", "Threading and synchronization", "Report outside the driver’s own locks.",
          reports_outside_list_locks),
    Check("descriptions_nul_terminated", "Threading and synchronization (description encoding)",
          "pDescription must be a non-NULL, NUL-terminated string.", descriptions_nul_terminated),
    Check("no_duplicated_annotation", "Command list state correlation",
          "Drivers should not duplicate this information in their own description text.", no_duplicated_annotation,
          advisory=True),
)
