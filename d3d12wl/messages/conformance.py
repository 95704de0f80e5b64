"""A conformance suite for a driver's use of the channel (spec "HLK / conformance").

"conformance validates the delivery contract, not the payload. Every test asserts only what is decidable on any
implementing driver; a driver that reports nothing beyond the mandated message is therefore a pass, not a skip."
A driver that does not advertise the feature skips every check.

Run it against any driver model: ``run_conformance(lambda: MyDriver())`` (a C driver library goes through
:mod:`d3d12wl.messages.c_driver`).  Each check drives a standard workload through the runtime model
(:mod:`d3d12wl.messages.channel`) and judges the driver from the runtime's record of every report and flush.  The
workload's command-list calls carry *probes* (payload keys ``gpu_message`` and ``record_message``: "report this
finding when the GPU runs the call" / "... while recording it"), so a driver that honours them has findings to
report and the checks can decide attribution and delivery; a driver that ignores them reports only what it finds
itself, and the checks that need a finding pass, saying so in their detail.

Each check is isolated: a driver that raises fails the check whose workload it raised in, and the others still run.
A raise from ``pfnFlushDriverReportedMessages`` is held by the suite (the flush returns) and judged by
``empty_flush_tolerated`` alone, so a driver that cannot take an empty flush fails that one check.  With
``run_conformance(isolate=True)`` (what ``d3d12wl messages check --driver`` does) each check runs in a forked
process: a driver that crashes or hangs fails the check it crashed or hung in.
"""

from __future__ import annotations

import faulthandler
import os
import pickle
import select
import signal
import sys
import threading
import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from d3d12wl.messages import values
from d3d12wl.messages.channel import INITIALIZATION_TEXT, Device, ReportRecord, Runtime
from d3d12wl.messages.driver import DeviceFuncs, Driver
from d3d12wl.messages.enabling import RegistryOverlay

DriverFactory = Callable[[], Driver]

#: How long the lock check waits for a DDI call made from inside a report before calling it a deadlock.
LOCK_TIMEOUT_S = 0.5

#: How long an isolated check (``run_conformance(isolate=True)``) may run before it counts as hung.
ISOLATED_TIMEOUT_S = 60.0

#: The workload's probes: (VendorMessageId, severity, category, text).
GPU_PROBE = (0x100, "ERROR", "EXECUTION", "conformance: GPU-timeline finding")
RECORD_PROBE = (0x101, "WARNING", "STATE_SETTING", "conformance: recording-time finding")


@dataclass(frozen=True)
class CheckResult:
    name: str
    section: str
    outcome: str  # "pass", "fail", "skip"
    detail: str = ""
    sentence: str = ""  # the spec sentence the check tests

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"


@dataclass(frozen=True)
class ConformanceReport:
    results: tuple[CheckResult, ...]
    internal_errors: tuple[str, ...] = ()  # the harness's own errors (``run_conformance(internal_errors=...)``)

    @property
    def passed(self) -> bool:
        return all(r.outcome != "fail" for r in self.results)

    def failed(self) -> list[str]:
        return [r.name for r in self.results if r.outcome == "fail"]

    def __getitem__(self, name: str) -> CheckResult:
        for result in self.results:
            if result.name == name:
                return result
        raise KeyError(name)


@dataclass(frozen=True)
class Check:
    """One check: its name, the spec section and sentence it tests, and the function that decides it."""

    name: str
    section: str
    sentence: str
    decide: Callable[[DriverFactory], tuple[bool, str]]  # (passed, detail)

    def run(self, factory: DriverFactory) -> CheckResult:
        """Decide the check; a driver (or a harness) that raises fails it, naming the exception."""
        try:
            ok, detail = self.decide(factory)
        except Exception as exc:  # noqa: BLE001 - isolation: the check fails, the suite goes on
            ok, detail = False, f"raised {type(exc).__name__}: {exc}"
        return CheckResult(self.name, self.section, "pass" if ok else "fail", detail, self.sentence)


# ---- harness ------------------------------------------------------------------------------------------------------


#: Raises from the flush DDI, per device, held by the guard (see the module docstring).
_flush_raises: weakref.WeakKeyDictionary[Device, list[tuple[str | None, str]]] = weakref.WeakKeyDictionary()


def _guard(device: Device) -> Device:
    """Hold what ``pfnFlushDriverReportedMessages`` raises (with the kind of the flush), so that a driver failing only
    there fails only ``empty_flush_tolerated``."""
    funcs = device.funcs
    raises = _flush_raises.setdefault(device, [])
    if funcs is None:
        return device
    inner = funcs.pfnFlushDriverReportedMessages

    def flush(hdevice: Any) -> None:
        try:
            inner(hdevice)
        except Exception as exc:  # noqa: BLE001 - held for empty_flush_tolerated
            raises.append((device.flushes[-1].kind if device.flushes else None, f"{type(exc).__name__}: {exc}"))

    device.funcs = DeviceFuncs(flush, funcs.pfnSetCommandListStateIndex)
    return device


def flush_raises(device: Device) -> list[tuple[str | None, str]]:
    """What the flush DDI raised on ``device`` (made by this suite), oldest first."""
    return list(_flush_raises.get(device, ()))


def _device(factory: DriverFactory, *, debug: bool = True, toggle: bool = True,
            registry: RegistryOverlay | None = None, runtime: Runtime | None = None) -> Device:
    rt = runtime or Runtime(factory(), registry=registry)
    if debug:
        rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(toggle)
    return _guard(rt.create_device())


@dataclass
class Workload:
    """Each probe call's text (every probe call of the workload has a text of its own) and the index the call was
    recorded under (None: the runtime issued none)."""

    gpu_probes: dict[bytes, int | None] = field(default_factory=dict)
    record_probes: dict[bytes, int | None] = field(default_factory=dict)

    def probe(self, base: tuple[int, str, str, str], *, gpu: bool) -> tuple[int, str, str, str]:
        """The next probe of kind ``base``: its text numbered, so that a finding names the call that produced it."""
        vendor_id, severity, category, text = base
        return vendor_id, severity, category, f"{text} #{len(self.gpu_probes) + len(self.record_probes)}"

    def add(self, probe: tuple[int, str, str, str], index: int | None, *, gpu: bool) -> None:
        (self.gpu_probes if gpu else self.record_probes)[probe[3].encode()] = index


def _probe_call(w: Workload, call: Callable[..., int | None], base: tuple[int, str, str, str], *, gpu: bool) -> None:
    probe = w.probe(base, gpu=gpu)
    index = call(**{"gpu_message" if gpu else "record_message": probe})
    w.add(probe, index, gpu=gpu)


def _workload(device: Device) -> Workload:
    """Record, submit, complete, resubmit, Reset before the resubmission runs, and destroy: every flush point but
    removal.  The resubmitted old recording runs after the Reset, so its finding must name the old recording."""
    w = Workload()
    queue = device.create_command_queue("conformance queue")
    a, b = device.create_command_list("A"), device.create_command_list("B")
    a.draw()
    _probe_call(w, a.draw, GPU_PROBE, gpu=True)
    _probe_call(w, a.dispatch, RECORD_PROBE, gpu=False)
    _probe_call(w, b.dispatch, GPU_PROBE, gpu=True)
    a.close()
    b.close()
    queue.execute_command_lists([a, b])
    queue.signal()
    queue.gpu_run()
    queue.wait()
    queue.execute_command_lists([a])  # resubmission without Reset
    a.reset()
    _probe_call(w, a.draw, GPU_PROBE, gpu=True)
    a.close()
    queue.signal()
    queue.gpu_run()  # runs the resubmission: the recording before the Reset
    queue.wait()
    queue.execute_command_lists([a])
    queue.gpu_run()  # finished but never signalled: only queue destruction carries it
    queue.destroy()
    return w


def _removal_workload(device: Device) -> None:
    """GPU work captured, the device removed, the removal surfaced (the removal flush), then the app goes on calling
    into the removed device and destroys it."""
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=GPU_PROBE)
    cl.close()
    queue.execute_command_lists([cl])
    queue.gpu_run()  # captured by the driver; no Signal, so no regular flush can carry it
    device.remove()
    device.get_device_removed_reason()
    queue.wait()
    cl.reset()
    cl.draw(gpu_message=GPU_PROBE)
    cl.close()
    queue.execute_command_lists([cl])
    queue.gpu_run()
    queue.destroy()
    device.destroy()


def _advertises(factory: DriverFactory) -> bool:
    return Runtime(factory()).negotiated_version() is not None


def _probe_reports(device: Device, probe: tuple[int, str, str, str]) -> list[ReportRecord]:
    """Accepted reports of a finding of the probe's kind (the driver's text is the probe's, numbered or not)."""
    text = probe[3].encode()
    return [r for r in device.reports if r.rejection is None and r.message is not None
            and isinstance(r.message.description, bytes)
            and (r.message.description == text or r.message.description.startswith(text + b" #"))]


def _honours_probes(factory: DriverFactory) -> bool:
    """Whether the driver reports the workload's GPU-timeline probe (so the checks that need a finding can decide)."""
    device = _device(factory)
    _workload(device)
    return bool(_probe_reports(device, GPU_PROBE))


NOT_DECIDABLE = "not decidable: the driver reports no finding of the workload's probes (a pass, as the spec says)"


# ---- checks: each returns (passed, detail) --------------------------------------------------------------------


def _initialization_message(factory: DriverFactory) -> tuple[bool, str]:
    device = _device(factory)
    during = [r for r in device.reports if r.during_enable]
    if len(during) != 1:
        return False, f"{len(during)} reports inside pfnEnableExtendedFeature, want 1"
    record = during[0]
    msg = record.message
    want = (values.ddi_severity("MESSAGE"), values.ddi_category("INITIALIZATION"), None, INITIALIZATION_TEXT.encode())
    got = None if msg is None else (msg.severity, msg.category, msg.command_list_state_index, msg.description)
    if record.rejection or got != want:
        return False, f"got {got} ({record.rejection or 'accepted'}), want {want}"
    others = [r for r in device.reports if not r.during_enable and r.message and
              r.message.description == INITIALIZATION_TEXT.encode()]
    if others:
        return False, "initialization message reported again after enabling"
    return True, ""


def _silent_when_not_enabled(factory: DriverFactory) -> tuple[bool, str]:
    """App off, debug layer off, registry force-off."""
    cases: dict[str, Callable[[], Device]] = {
        "toggle off": lambda: _device(factory, toggle=False),
        "debug layer off": lambda: _device(factory, debug=False),
        "registry force-off": lambda: _device(factory, registry=RegistryOverlay.force_off()),
    }
    for label, make_device in cases.items():
        device = make_device()
        _workload(device)
        if device.reports:
            return False, f"{label}: {len(device.reports)} report call(s)"
    return True, ""


def _registry_force_on(factory: DriverFactory) -> tuple[bool, str]:
    device = _device(factory, toggle=False, registry=RegistryOverlay.force_on())
    ok = any(m.pDescription == INITIALIZATION_TEXT for m in device.messages())
    return ok, "" if ok else "forced on by the registry, but no initialization message"


def _reports_valid(factory: DriverFactory) -> tuple[bool, str]:
    device = _device(factory)
    _workload(device)
    bad = [r.rejection for r in device.reports if r.rejection]
    return not bad, "; ".join(str(b) for b in bad[:3])


def _indices_issued(factory: DriverFactory) -> tuple[bool, str]:
    """CommandListStateIndex is 0xFFFFFFFF or an index received via pfnSetCommandListStateIndex."""
    device = _device(factory)
    _workload(device)
    bad = [r.message.command_list_state_index for r in device.reports
           if r.index_state == "unknown" and r.message is not None]
    return not bad, f"never-issued indices {bad[:5]}" if bad else ""


def _attribution_across_reset(factory: DriverFactory) -> tuple[bool, str]:
    """Every report of a probe's finding that is attributed carries the index of the probe's own call (each probe
    call has a text of its own, so the call is known one to one); a GPU-timeline one, the index of a call whose
    recording the GPU had run by then -- so a resubmission that runs after a Reset must name the recording before the
    Reset, not the new one (which the GPU has not run).  0xFFFFFFFF is what a driver that "cannot attribute a
    message to a specific command list operation" must set: allowed, and which operations a driver can attribute is
    its own, so a driver that attributes none of its findings leaves the check not decidable (a pass, as the spec's
    "Every test asserts only what is decidable on any implementing driver" says)."""
    device = _device(factory)
    w = _workload(device)
    attributed = unattributed = 0
    for kind, base, probes in (("GPU-timeline", GPU_PROBE, w.gpu_probes), ("recording-time", RECORD_PROBE,
                                                                           w.record_probes)):
        for r in _probe_reports(device, base):
            assert r.message is not None
            index = r.message.command_list_state_index
            if index is None:
                unattributed += 1
                continue  # "cannot attribute": allowed
            text = r.message.description
            if text not in probes:
                return False, f"a {kind} finding {text!r} names index {index}, but no call of the workload has that text"
            if index != probes[text]:
                return False, (f"a {kind} finding of the call recorded under index {probes[text]} names index "
                               f"{index}: not the index of the call that produced it")
            if kind == "GPU-timeline" and not r.executed:
                return False, (f"a GPU-timeline finding names index {index}, whose recording the GPU had not run "
                               "when it was reported (a recording replaced by Reset was read at execution time)")
            attributed += 1
    if not attributed and not unattributed:
        return True, NOT_DECIDABLE
    if not attributed:
        return True, (f"not decidable: none of the driver's {unattributed} probe finding(s) is attributed "
                      "(0xFFFFFFFF, which a driver that cannot attribute must set; a pass)")
    return True, (f"{attributed} finding(s) attributed, each to its own call; {unattributed} unattributed "
                  "(0xFFFFFFFF)")


def _no_late_correlated_reports(factory: DriverFactory) -> tuple[bool, str]:
    device = _device(factory)
    _workload(device)
    late = [r for r in device.reports if r.index_state == "late"]
    return not late, f"{len(late)} report(s) after the flush for their submission" if late else ""


def _empty_flush_tolerated(factory: DriverFactory) -> tuple[bool, str]:
    """Flushes with nothing to report (an idle queue's Wait, an empty submission, destruction of an idle queue),
    then the standard workload: the flush DDI must never raise."""
    device = _device(factory)
    queue, cl = device.create_command_queue("idle"), device.create_command_list("empty")
    queue.wait()
    queue.wait()
    cl.close()
    queue.execute_command_lists([cl])
    queue.destroy()
    empty = flush_raises(device)
    if empty:
        return False, f"the flush raised with nothing to report ({empty[0][0]}): {empty[0][1]}"
    if [f.kind for f in device.flushes] != ["Wait", "Wait", "ExecuteCommandLists", "queue destruction"]:
        return False, f"unexpected flushes {[f.kind for f in device.flushes]}"
    device = _device(factory)
    _workload(device)
    raised = flush_raises(device)
    if raised:
        return False, f"the flush raised ({raised[0][0]}): {raised[0][1]}"
    return True, ""


def _vendor_message_ids_stable(factory: DriverFactory) -> tuple[bool, str]:
    """The initialization message has one VendorMessageId on every device; within the workload, the same logical
    message (same text, severity and category) has one VendorMessageId."""
    first, second = _device(factory), _device(factory)
    inits = [r.message.vendor_message_id for d in (first, second) for r in d.reports
             if r.during_enable and r.message is not None and r.rejection is None]
    if len(set(inits)) > 1:
        return False, f"the initialization message has VendorMessageIds {[hex(i) for i in inits]} on two devices"
    _workload(first)
    seen: dict[tuple[bytes, int, int], set[int]] = {}
    for r in first.reports:
        if r.rejection is None and r.message is not None and isinstance(r.message.description, bytes):
            key = (r.message.description, r.message.severity, r.message.category)
            seen.setdefault(key, set()).add(r.message.vendor_message_id)
    for (text, _, _), ids in seen.items():
        if len(ids) > 1:
            return False, f"{text.decode(errors='replace')!r} reported with VendorMessageIds {sorted(hex(i) for i in ids)}"
    return True, f"{len(seen)} logical message(s), one VendorMessageId each"


def _reports_outside_driver_locks(factory: DriverFactory) -> tuple[bool, str]:
    """The app's registered callback makes a DDI call (a Draw, on another thread) and must not deadlock."""
    device = _device(factory)
    spare = device.create_command_list("lock probe")
    stuck: list[str] = []

    def on_message(category: int, severity: int, mid: int, text: str, ctx: object) -> None:
        probe = threading.Thread(target=spare.draw, daemon=True)
        probe.start()
        probe.join(LOCK_TIMEOUT_S)
        if probe.is_alive():
            stuck.append(text)

    device.info_queue.register_message_callback(on_message, ignore_filters=True)
    _workload(device)
    return not stuck, f"a DDI call blocked while reporting {stuck[0]!r}" if stuck else ""


def _run_removal(factory: DriverFactory) -> tuple[Device | None, str]:
    """The removal workload on a worker thread, bounded in time: (device, "") or (None, why it failed)."""
    device = _device(factory)
    done = threading.Event()
    errors: list[BaseException] = []

    def run() -> None:
        try:
            _removal_workload(device)
        except BaseException as exc:  # noqa: BLE001 - reported as the check's failure
            errors.append(exc)
        done.set()

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    if not done.wait(5 * LOCK_TIMEOUT_S):
        return None, "the device-removal flush did not return"
    if errors:
        return None, f"raised {type(errors[0]).__name__}: {errors[0]}"
    return device, ""


def _device_removal(factory: DriverFactory) -> tuple[bool, str]:
    device, why = _run_removal(factory)
    if device is None:
        return False, why
    if [f.kind for f in device.flushes].count("device removal") != 1:
        return False, "no device-removal flush happened"
    return True, ""


def _removal_flush_delivers_captured(factory: DriverFactory) -> tuple[bool, str]:
    """GPU work the driver captured before the removal, which no regular flush could carry: its finding is
    reported from inside the removal flush, on the thread that made it."""
    if not _honours_probes(factory):
        return True, NOT_DECIDABLE
    device, why = _run_removal(factory)
    if device is None:
        return False, why
    removal = [f for f in device.flushes if f.kind == "device removal"]
    if len(removal) != 1:
        return False, "no device-removal flush happened"
    found = _probe_reports(device, GPU_PROBE)
    inside = [r for r in found if r.during_flush == "device removal" and r.thread == removal[0].thread]
    if not inside:
        where = ", ".join(sorted({str(r.during_flush) for r in found})) or "never"
        return False, f"the finding captured before the removal was not reported in the removal flush ({where})"
    return True, ""


def _reports_after_removal(factory: DriverFactory) -> tuple[bool, str]:
    """After the removal flush returned, no report names work submitted before the removal (its flush -- the
    removal flush -- is over), and the driver keeps taking the app's calls on the removed device."""
    device, why = _run_removal(factory)
    if device is None:
        return False, why
    after = [r for r in device.reports if r.removal_flushed]
    late = [r for r in after if r.index_state == "late"]
    if late:
        return False, f"{len(late)} report(s) after the removal flush name work submitted before the removal"
    return True, f"{len(after)} report(s) after the removal flush"


def _no_report_after_destroy(factory: DriverFactory) -> tuple[bool, str]:
    """A second device on the same adapter gives a driver's leftover background work the chance to report into
    the first, destroyed one."""
    rt = Runtime(factory())
    first = _device(factory, runtime=rt)
    _workload(first)
    first.destroy()
    second = _device(factory, runtime=rt)
    _workload(second)
    second.destroy()
    late = [r for r in first.reports if r.rejection_kind == "destroyed_device"]
    return not late, f"{len(late)} report(s) on a destroyed device" if late else ""


CHECKS: tuple[Check, ...] = (
    Check("initialization_message", "Mandatory initialization message",
          "A driver that implements driver-reported messages must report exactly one message when the runtime enables "
          "the feature on a device during device creation — immediately after the feature has been enabled, and "
          "before EnableExtendedFeature returns", _initialization_message),
    Check("silent_when_not_enabled", "Enabling the feature",
          "If the runtime does not enable the extended feature on a device, the driver must not generate "
          "driver-reported messages on that device.", _silent_when_not_enabled),
    Check("registry_force_on", "Enabling the feature (registry overlay)",
          "This overlay is applied at device creation, after the application’s SetEnableDriverReportedMessages calls "
          "have been latched, so the registry value wins over the application’s choice.", _registry_force_on),
    Check("reports_valid", "Message validation",
          "a message that violates the contract is dropped — it never reaches the ID3D12InfoQueue — and the callback "
          "returns a failure HRESULT so the driver can detect and correct the defect.", _reports_valid),
    Check("indices_issued", "Command list state correlation",
          "If the driver cannot attribute a message to a specific command list operation, it must set "
          "CommandListStateIndex to 0xFFFFFFFF in the message.", _indices_issued),
    Check("attribution_across_reset", "Command list state correlation / CommandListStateIndex validity window",
          "The driver must cache the most recent CommandListStateIndex received for a given command list and include "
          "it in the CommandListStateIndex field of any D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 that the driver "
          "attributes to that command list operation.", _attribution_across_reset),
    Check("no_late_correlated_reports", "Flush and Message Processing",
          "a CommandListStateIndex stays resolvable from the moment it is issued until the flush for its submission "
          "returns, so anything reported before that flush resolves normally.", _no_late_correlated_reports),
    Check("empty_flush_tolerated", "Flush and Message Processing",
          "The driver must treat every flush as “report everything you currently hold” and must tolerate a flush "
          "with nothing to report.", _empty_flush_tolerated),
    Check("vendor_message_ids_stable", "Reporting a message (pMessage->VendorMessageId)",
          "it neither defines nor interprets the value, and only requires that the same logical message use a "
          "stable VendorMessageId across reports.", _vendor_message_ids_stable),
    Check("reports_outside_driver_locks", "Threading and synchronization",
          "Do not call while holding a driver lock that a DDI entry point also takes.", _reports_outside_driver_locks),
    Check("device_removal", "Device removed behavior", "The driver must return promptly.", _device_removal),
    Check("removal_flush_delivers_captured", "Device removed behavior",
          "The driver delivers, on the calling thread via pfnReportMessageCb, any messages already captured for GPU "
          "work submitted prior to the removal event.", _removal_flush_delivers_captured),
    Check("reports_after_removal", "Device removed behavior",
          "Any messages that become available only after this flush call are not surfaced through this feature.",
          _reports_after_removal),
    Check("no_report_after_destroy", "Threading and synchronization (device lifetime)",
          "pfnReportMessageCb is valid only between device creation and device destruction.", _no_report_after_destroy),
)

CHECK_NAMES: tuple[str, ...] = tuple(c.name for c in CHECKS)


def run_check(name: str, factory: DriverFactory) -> CheckResult:
    """One check by name."""
    for check in CHECKS:
        if check.name == name:
            return check.run(factory)
    raise KeyError(name)


def check_device_removal(factory: DriverFactory) -> CheckResult:
    """"The driver must return promptly" from the device-removal flush."""
    return run_check("device_removal", factory)


def run_conformance(factory: DriverFactory, *, isolate: bool = False, timeout_s: float = ISOLATED_TIMEOUT_S,
                    internal_errors: Callable[[], Sequence[str]] | None = None) -> ConformanceReport:
    """Run every check, each isolated; a driver that does not advertise the feature skips them all.

    ``isolate``: run each check in a forked child process (POSIX), so a driver that crashes the process or hangs
    fails that check ("the driver crashed (SIGSEGV)", "did not finish within ``timeout_s``") and the others still
    run -- for driver libraries, where a defect is a crash rather than an exception.  ``internal_errors``, called
    after the checks (in the process that ran them), returns the harness's own errors for the report."""
    try:
        advertises = _advertises(factory)
    except Exception as exc:  # noqa: BLE001 - a driver that cannot even be asked fails every check
        return ConformanceReport(tuple(CheckResult(c.name, c.section, "fail", f"raised {type(exc).__name__}: {exc} "
                                                   "(pfnGetSupportedExtendedFeatures)", c.sentence) for c in CHECKS))
    if not advertises:
        return ConformanceReport(tuple(CheckResult(c.name, c.section, "skip", "driver does not advertise the feature",
                                                   c.sentence) for c in CHECKS))
    if not isolate or not hasattr(os, "fork"):  # no fork (not POSIX): in this process
        results = tuple(check.run(factory) for check in CHECKS)
        return ConformanceReport(results, tuple(internal_errors() if internal_errors else ()))
    runs = [_run_forked(check, factory, timeout_s, internal_errors) for check in CHECKS]
    return ConformanceReport(tuple(r for r, _ in runs), tuple(e for _, errors in runs for e in errors))


def _run_forked(check: Check, factory: DriverFactory, timeout_s: float,
                internal_errors: Callable[[], Sequence[str]] | None) -> tuple[CheckResult, tuple[str, ...]]:
    """``check`` in a forked child; its result comes back pickled through a pipe."""
    def failed(detail: str) -> tuple[CheckResult, tuple[str, ...]]:
        return CheckResult(check.name, check.section, "fail", detail, check.sentence), ()

    sys.stdout.flush()
    sys.stderr.flush()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run the check, send the result, leave without running any cleanup of the parent's
        code = 0
        try:
            faulthandler.disable()  # a crash is the parent's to report, not a traceback dump on stderr
            os.close(read_end)
            result = check.run(factory)
            errors = tuple(internal_errors() if internal_errors else ())
            data = pickle.dumps((result, errors))
            with os.fdopen(write_end, "wb") as out:
                out.write(data)
        except BaseException:  # noqa: BLE001 - the parent reports a child that sent nothing
            code = 70
        os._exit(code)
    os.close(write_end)
    chunks: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    timed_out = False
    with os.fdopen(read_end, "rb", buffering=0) as pipe:
        while True:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([pipe], [], [], left)[0]:
                timed_out = True
                break
            chunk = pipe.read(1 << 16)
            if not chunk:
                break
            chunks.append(chunk)
    if timed_out:
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    if timed_out:
        return failed(f"did not finish within {timeout_s:g} s (the driver hung; the check process was killed)")
    if os.WIFSIGNALED(status):
        return failed(f"the driver crashed the check process ({signal.Signals(os.WTERMSIG(status)).name})")
    if os.WEXITSTATUS(status) != 0 or not chunks:
        return failed(f"the check process exited with status {os.WEXITSTATUS(status)} and no result")
    result, errors = pickle.loads(b"".join(chunks))  # noqa: S301 - our own child's data
    return result, errors
