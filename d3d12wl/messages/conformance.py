"""A conformance suite for a driver's use of the channel (spec "HLK / conformance").

"conformance validates the delivery contract, not the payload. Every test asserts only what is decidable on any
implementing driver; a driver that reports nothing beyond the mandated message is therefore a pass, not a skip."
A driver that does not advertise the feature skips every check.

Run it against any Python driver model: ``run_conformance(lambda: MyDriver())``.  Each check drives a standard
workload through the runtime model (:mod:`d3d12wl.messages.channel`) and judges the driver from the runtime's
record of every report and flush.  The workload's command-list calls carry the payload keys the reference driver
understands (``gpu_message``, ``record_message``), so a driver that reports findings has something to report;
other drivers ignore them.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from d3d12wl.messages import values
from d3d12wl.messages.channel import INITIALIZATION_TEXT, Device, Runtime
from d3d12wl.messages.driver import Driver
from d3d12wl.messages.enabling import RegistryOverlay

DriverFactory = Callable[[], Driver]

#: How long the lock check waits for a DDI call made from inside a report before calling it a deadlock.
LOCK_TIMEOUT_S = 0.5

_GPU = (0x100, "ERROR", "EXECUTION", "conformance: GPU-timeline finding")
_REC = (0x101, "WARNING", "STATE_SETTING", "conformance: recording-time finding")


@dataclass(frozen=True)
class CheckResult:
    name: str
    section: str
    outcome: str  # "pass", "fail", "skip"
    detail: str = ""

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"


@dataclass(frozen=True)
class ConformanceReport:
    results: tuple[CheckResult, ...]

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


def _device(factory: DriverFactory, *, debug: bool = True, toggle: bool = True,
            registry: RegistryOverlay | None = None) -> Device:
    rt = Runtime(factory(), registry=registry)
    if debug:
        rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(toggle)
    return rt.create_device()


def _workload(device: Device) -> None:
    """Record, submit, complete, resubmit, reset and destroy: every flush point but removal."""
    queue = device.create_command_queue("conformance queue")
    a, b = device.create_command_list("A"), device.create_command_list("B")
    a.draw()
    a.draw(gpu_message=_GPU)
    a.dispatch(record_message=_REC)
    b.dispatch(gpu_message=_GPU)
    a.close()
    b.close()
    queue.execute_command_lists([a, b])
    queue.signal()
    queue.gpu_run()
    queue.wait()
    queue.execute_command_lists([a])  # resubmission without Reset
    a.reset()
    a.draw(gpu_message=_GPU)
    a.close()
    queue.signal()
    queue.gpu_run()
    queue.execute_command_lists([a])
    queue.gpu_run()  # finished but never signalled: only queue destruction carries it
    queue.destroy()


def _removal_workload(device: Device) -> None:
    queue, cl = device.create_command_queue(), device.create_command_list()
    cl.draw(gpu_message=_GPU)
    cl.close()
    queue.execute_command_lists([cl])
    queue.gpu_run()
    device.remove()
    device.get_device_removed_reason()
    queue.wait()


def _advertises(factory: DriverFactory) -> bool:
    return Runtime(factory()).negotiated_version() is not None


# ---- checks -------------------------------------------------------------------------------------------------------


def check_initialization_message(factory: DriverFactory) -> CheckResult:
    name, section = "initialization_message", "Mandatory initialization message"
    device = _device(factory)
    during = [r for r in device.reports if r.during_enable]
    if len(during) != 1:
        return CheckResult(name, section, "fail", f"{len(during)} reports inside pfnEnableExtendedFeature, want 1")
    record = during[0]
    msg = record.message
    want = (values.ddi_severity("MESSAGE"), values.ddi_category("INITIALIZATION"), None, INITIALIZATION_TEXT.encode())
    got = None if msg is None else (msg.severity, msg.category, msg.command_list_state_index, msg.description)
    if record.rejection or got != want:
        return CheckResult(name, section, "fail", f"got {got} ({record.rejection or 'accepted'}), want {want}")
    others = [r for r in device.reports if not r.during_enable and r.message and
              r.message.description == INITIALIZATION_TEXT.encode()]
    if others:
        return CheckResult(name, section, "fail", "initialization message reported again after enabling")
    return CheckResult(name, section, "pass")


def check_silent_when_not_enabled(factory: DriverFactory) -> CheckResult:
    """"If the runtime does not enable the extended feature on a device, the driver must not generate
    driver-reported messages on that device" -- app off, debug layer off, registry force-off."""
    name, section = "silent_when_not_enabled", "Enabling the feature"
    cases: dict[str, Callable[[], Device]] = {
        "toggle off": lambda: _device(factory, toggle=False),
        "debug layer off": lambda: _device(factory, debug=False),
        "registry force-off": lambda: _device(factory, registry=RegistryOverlay.force_off()),
    }
    for label, make_device in cases.items():
        device = make_device()
        _workload(device)
        if device.reports:
            return CheckResult(name, section, "fail", f"{label}: {len(device.reports)} report call(s)")
    return CheckResult(name, section, "pass")


def check_registry_force_on(factory: DriverFactory) -> CheckResult:
    name, section = "registry_force_on", "Enabling the feature (registry overlay)"
    device = _device(factory, toggle=False, registry=RegistryOverlay.force_on())
    ok = any(m.pDescription == INITIALIZATION_TEXT for m in device.messages())
    return CheckResult(name, section, "pass" if ok else "fail",
                       "" if ok else "forced on by the registry, but no initialization message")


def check_reports_valid(factory: DriverFactory) -> CheckResult:
    """Every report passes message validation (no E_INVALIDARG)."""
    name, section = "reports_valid", "Message validation"
    device = _device(factory)
    _workload(device)
    bad = [r.rejection for r in device.reports if r.rejection]
    return CheckResult(name, section, "fail" if bad else "pass", "; ".join(str(b) for b in bad[:3]))


def check_indices_issued(factory: DriverFactory) -> CheckResult:
    """CommandListStateIndex is 0xFFFFFFFF or an index received via pfnSetCommandListStateIndex."""
    name, section = "indices_issued", "Command list state correlation"
    device = _device(factory)
    _workload(device)
    bad = [r.message.command_list_state_index for r in device.reports
           if r.index_state == "unknown" and r.message is not None]
    return CheckResult(name, section, "fail" if bad else "pass", f"never-issued indices {bad[:5]}" if bad else "")


def check_no_late_correlated_reports(factory: DriverFactory) -> CheckResult:
    """"The driver must report any messages referencing a CommandListStateIndex either [within] the
    pfnFlushDriverReportedMessages call for that submission, or ... at any earlier point"."""
    name, section = "no_late_correlated_reports", "Flush and Message Processing"
    device = _device(factory)
    _workload(device)
    late = [r for r in device.reports if r.index_state == "late"]
    return CheckResult(name, section, "fail" if late else "pass",
                       f"{len(late)} report(s) after the flush for their submission" if late else "")


def check_reports_outside_driver_locks(factory: DriverFactory) -> CheckResult:
    """"Do not call while holding a driver lock that a DDI entry point also takes": the app's registered callback
    makes a DDI call (a Draw, on another thread) and must not deadlock."""
    name, section = "reports_outside_driver_locks", "Threading and synchronization"
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
    return CheckResult(name, section, "fail" if stuck else "pass",
                       f"a DDI call blocked while reporting {stuck[0]!r}" if stuck else "")


def check_device_removal(factory: DriverFactory) -> CheckResult:
    """"The driver must return promptly" from the device-removal flush (its reports are judged by the other
    checks)."""
    name, section = "device_removal", "Device removed behavior"
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
        return CheckResult(name, section, "fail", "the device-removal flush did not return")
    if errors:
        return CheckResult(name, section, "fail", f"raised {errors[0]!r}")
    if [f.kind for f in device.flushes].count("device removal") != 1:
        return CheckResult(name, section, "fail", "no device-removal flush happened")
    return CheckResult(name, section, "pass")


def check_use_after_destroy(factory: DriverFactory) -> CheckResult:
    """"pfnReportMessageCb is valid only between device creation and device destruction": a second device on the
    same adapter gives a driver's leftover background work the chance to report into the first, destroyed one."""
    name, section = "no_report_after_destroy", "Threading and synchronization (device lifetime)"
    rt = Runtime(factory())
    rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(True)
    first = rt.create_device()
    _workload(first)
    first.destroy()
    second = rt.create_device()
    _workload(second)
    second.destroy()
    late = [r for r in first.reports if r.rejection and "destroyed" in r.rejection]
    return CheckResult(name, section, "fail" if late else "pass", f"{len(late)} report(s) on a destroyed device"
                       if late else "")


CHECKS: tuple[Callable[[DriverFactory], CheckResult], ...] = (
    check_initialization_message,
    check_silent_when_not_enabled,
    check_registry_force_on,
    check_reports_valid,
    check_indices_issued,
    check_no_late_correlated_reports,
    check_reports_outside_driver_locks,
    check_device_removal,
    check_use_after_destroy,
)


def run_conformance(factory: DriverFactory) -> ConformanceReport:
    """Run every check; a driver that does not advertise the feature skips them all."""
    if not _advertises(factory):
        return ConformanceReport(tuple(CheckResult(c.__name__.removeprefix("check_"), "Enabling the feature", "skip",
                                                   "driver does not advertise the feature") for c in CHECKS))
    return ConformanceReport(tuple(check(factory) for check in CHECKS))
