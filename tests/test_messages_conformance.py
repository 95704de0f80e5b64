"""The conformance suite (spec "HLK / conformance"): the reference driver passes every check, a driver without
the feature skips, and each misbehaving driver fails the specific check for the rule it breaks."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from d3d12wl.messages import values

_missing = values.missing_declarations(handle_types=True)
if _missing:
    pytest.skip(f"the compiled headers lack {', '.join(_missing)} (see issue 6)", allow_module_level=True)

from d3d12wl.messages import CoreLayerCallbacks, DeviceFuncs, Driver, DriverDevice, DriverMessage  # noqa: E402
from d3d12wl.messages.conformance import run_conformance  # noqa: E402
from d3d12wl.messages.reference_driver import ReferenceDriver, ReferenceDriverDevice  # noqa: E402


def _driver(device_class: type[ReferenceDriverDevice]) -> type[ReferenceDriver]:
    class Wrapped(ReferenceDriver):
        def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
            return device_class(callbacks)

    return Wrapped


class NoInitMessage(ReferenceDriverDevice):
    def enable_extended_feature(self, feature: int, version: int) -> DeviceFuncs | None:
        self.enabled = True
        return DeviceFuncs(self.flush, self.set_command_list_state_index)


class WrongInitSeverity(ReferenceDriverDevice):
    @staticmethod
    def initialization_message() -> DriverMessage:
        m = ReferenceDriverDevice.initialization_message()
        return DriverMessage(m.vendor_message_id, values.ddi_severity("INFO"), m.category, m.description)


class ReportsWhenDisabled(ReferenceDriverDevice):
    def create_command_list(self, hcl: Any) -> None:
        self.callbacks.report_values(9, "INFO", "STATE_CREATION", "created a list", None)


class NullDescription(ReferenceDriverDevice):
    def flush(self, hdevice: Any) -> None:
        super().flush(hdevice)
        ptr = DriverMessage(1, values.ddi_severity("ERROR"), values.ddi_category("EXECUTION"), None).encode().pointer
        self.callbacks.pfnReportMessageCb(self.callbacks.hRTDevice, ptr)


class MadeUpIndex(ReferenceDriverDevice):
    def flush(self, hdevice: Any) -> None:
        self.callbacks.report_values(2, "ERROR", "EXECUTION", "invented", 0x7777777)


class OneFlushLate(ReferenceDriverDevice):
    """Holds GPU findings one flush too long."""

    def __init__(self, callbacks: CoreLayerCallbacks) -> None:
        super().__init__(callbacks)
        self._held: list[DriverMessage] = []

    def flush(self, hdevice: Any) -> None:
        with self._lock:
            held, self._held, self._pending = self._held, self._pending, []
        for message in held:
            self.callbacks.report(message)


class ReportsUnderLock(ReferenceDriverDevice):
    """Reports while holding the lock its command-list DDIs take."""

    def flush(self, hdevice: Any) -> None:
        with self._lock:
            pending, self._pending = self._pending, []
            for message in pending:
                self.callbacks.report(message)


class HangsOnRemoval(ReferenceDriverDevice):
    def __init__(self, callbacks: CoreLayerCallbacks) -> None:
        super().__init__(callbacks)
        self.release = threading.Event()

    def flush(self, hdevice: Any) -> None:
        super().flush(hdevice)
        if self.callbacks.hRTDevice.removed:  # a removal flush that never returns promptly
            self.release.wait(5)


class LeakyAdapter(ReferenceDriver):
    """A driver whose adapter-wide background thread still reports into devices that were destroyed."""

    def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
        for old in self.devices:
            worker = threading.Thread(target=old.callbacks.report_values, args=(3, "INFO", "CLEANUP", "late", None))
            worker.start()
            worker.join()
        return super().create_device(callbacks)


def test_reference_driver_passes_every_check__hlk() -> None:
    """"WARP implements the feature and acts as the reference implementation ... so the conformance suite runs end
    to end against it rather than skipping."""
    report = run_conformance(ReferenceDriver)
    assert report.passed and all(r.outcome == "pass" for r in report.results), report.failed()


def test_driver_reporting_only_init_message_passes__hlk() -> None:
    """"a driver that reports nothing beyond the mandated message is therefore a pass, not a skip."""

    class Quiet(ReferenceDriverDevice):
        def command_list_work(self, hcl: Any, kind: str, payload: Any) -> None:
            pass

    report = run_conformance(_driver(Quiet))
    assert all(r.outcome == "pass" for r in report.results)


def test_driver_without_feature_skips__hlk() -> None:
    report = run_conformance(Driver)
    assert report.passed and {r.outcome for r in report.results} == {"skip"}


@pytest.mark.parametrize(
    ("device_class", "failing"),
    [
        (NoInitMessage, {"initialization_message", "registry_force_on"}),
        (WrongInitSeverity, {"initialization_message"}),
        (ReportsWhenDisabled, {"silent_when_not_enabled"}),
        (NullDescription, {"reports_valid"}),
        (MadeUpIndex, {"indices_issued"}),
        (OneFlushLate, {"no_late_correlated_reports"}),
        (ReportsUnderLock, {"reports_outside_driver_locks"}),
        (LeakyAdapter, {"no_report_after_destroy"}),
    ],
)
def test_misbehaving_driver_fails_its_check__hlk(device_class: type, failing: set[str]) -> None:
    """Each broken rule is caught by the check for that rule, and only by it."""
    factory = device_class if issubclass(device_class, Driver) else _driver(device_class)
    report = run_conformance(factory)
    assert set(report.failed()) == failing, [(r.name, r.detail) for r in report.results if r.outcome == "fail"]


def test_removal_flush_must_return_promptly__hlk() -> None:
    """"The driver must return promptly" from the device-removal flush."""
    devices: list[HangsOnRemoval] = []

    class Factory(ReferenceDriver):
        def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
            devices.append(HangsOnRemoval(callbacks))
            return devices[-1]

    from d3d12wl.messages.conformance import check_device_removal

    result = check_device_removal(Factory)
    for device in devices:
        device.release.set()
    assert result.outcome == "fail" and "did not return" in result.detail
