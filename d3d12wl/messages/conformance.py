"""A conformance suite for a driver's use of the channel (spec "HLK / conformance").

"conformance validates the delivery contract, not the payload. Every test asserts only what is decidable on any
implementing driver; a driver that reports nothing beyond the mandated message is therefore a pass, not a skip."

Run it against any driver model: ``run_conformance(lambda: MyDriver())`` (a C driver library goes through
:mod:`d3d12wl.messages.c_driver`).  Each check (:data:`CHECKS`, in :mod:`~d3d12wl.messages.conformance_checks`)
drives a workload through the runtime model (:mod:`~d3d12wl.messages.channel`) and decides the one spec sentence it
quotes from the runtime's record of every report and flush; the workloads' command-list calls carry *probes*
(:mod:`~d3d12wl.messages.conformance_harness`), so a driver that honours them has findings to report and the checks
can decide attribution and delivery; one that ignores them reports only what it finds itself, and the checks that
need a finding pass, saying so in their detail.  A check of a "should" that is not followed warns.

A driver that does not offer the feature (or lists it at version _NONE) is checked for what is decidable on any
driver -- ``advertised_version_supported`` and ``silent_when_not_enabled`` -- and skips the rest.

**One fault, one failure.**  A driver that raises out of a DDI entry point, crashes or exits the process, or hangs,
faults at that entry point; of the checks that met the same fault site, one fails -- the check that owns the site
(``empty_flush_tolerated`` owns pfnFlushDriverReportedMessages, ``device_removal`` the removal flush,
``initialization_message`` pfnEnableExtendedFeature, ``advertised_version_supported`` the feature query,
``no_report_after_destroy`` DestroyDevice), else the first in order -- and the others are skipped, naming it.  A
raise out of
``pfnFlushDriverReportedMessages`` is held (the flush returns): ``empty_flush_tolerated`` judges it.

With ``run_conformance(isolate=True)`` (what ``d3d12wl messages check --driver`` does) the driver is made and its
features queried in a forked process, then each check runs in a forked process of its own, within one time budget
(``timeout_s``; :mod:`~d3d12wl.messages.conformance_isolation`): a driver that crashes, exits or hangs fails as above,
and the harness process never loads it.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from d3d12wl.messages.conformance_checks import CHECKS, NOT_DECIDABLE
from d3d12wl.messages.conformance_harness import LOCK_TIMEOUT_S, Context
from d3d12wl.messages.conformance_isolation import MIN_CHECK_S, Isolated
from d3d12wl.messages.conformance_results import Check, CheckResult, ConformanceReport, DriverFactory
from d3d12wl.messages.conformance_runner import decide, not_run, one_failure_per_fault, preflight, usable
from d3d12wl.messages.conformance_workloads import GPU_PROBE, RECORD_PROBE

__all__ = [
    "CHECKS", "CHECK_NAMES", "DEFAULT_BUDGET_S", "GPU_PROBE", "LOCK_TIMEOUT_S", "MIN_CHECK_S", "NOT_DECIDABLE",
    "RECORD_PROBE", "Check", "CheckResult", "ConformanceReport", "check_device_removal", "run_check",
    "run_conformance",
]

CHECK_NAMES: tuple[str, ...] = tuple(c.name for c in CHECKS)

#: The default time budget of an isolated run (``d3d12wl messages check --driver --timeout``), for all checks.
DEFAULT_BUDGET_S = 60.0


def run_check(name: str, factory: DriverFactory) -> CheckResult:
    """One check by name, in this process."""
    for check in CHECKS:
        if check.name == name:
            return decide(check, factory, Context()).result
    raise KeyError(name)


def check_device_removal(factory: DriverFactory) -> CheckResult:
    """"The driver must return promptly" from the device-removal flush."""
    return run_check("device_removal", factory)


def run_conformance(factory: DriverFactory, *, isolate: bool = False, timeout_s: float = DEFAULT_BUDGET_S,
                    internal_errors: Callable[[], Sequence[str]] | None = None) -> ConformanceReport:
    """Run every check against the driver ``factory()`` makes.

    ``isolate``: the driver is made and queried in a forked process first, then each check runs in a forked process
    of its own (POSIX), all within the time budget ``timeout_s`` -- for driver libraries, where a defect is a crash
    or a hang rather than an exception.  ``internal_errors``, called after each check in the process that ran it,
    returns the harness's own errors for the report.  A driver that cannot be made at all raises
    :class:`~d3d12wl.messages.errors.MessagesError` (unusable input)."""
    if isolate and hasattr(os, "fork"):
        return Isolated(factory, timeout_s, internal_errors).run()
    pre = usable(preflight(factory, Context()))
    runs = [not_run(check, pre) or decide(check, factory, Context()) for check in CHECKS]
    errors = tuple(e for r in runs for e in r.errors) + tuple(internal_errors() if internal_errors else ())
    return ConformanceReport(tuple(one_failure_per_fault(CHECKS, runs)), errors)
