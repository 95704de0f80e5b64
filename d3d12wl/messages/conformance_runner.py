"""Running the checks: the preflight (make the driver, query its features), deciding one check in a context, and
turning the faults into one failure each (spec "HLK / conformance"; :mod:`d3d12wl.messages.conformance` says how).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from d3d12wl.errors import D3D12WLError
from d3d12wl.messages import values
from d3d12wl.messages.conformance_harness import (
    SITE_FEATURES,
    SITE_LOAD,
    Context,
    FeatureRefused,
    check_context,
    make_runtime,
    teardown,
)
from d3d12wl.messages.conformance_results import Check, CheckResult, DriverFactory, DriverFault, Fault
from d3d12wl.messages.errors import MessagesError


@dataclass(frozen=True)
class Run:
    """One check's outcome as the runner sees it: the result, the fault it ended in, the harness's own errors."""

    result: CheckResult
    fault: Fault | None = None
    errors: tuple[str, ...] = ()


@dataclass(frozen=True)
class Preflight:
    """What making the driver and querying its features came to."""

    offered: bool  # the runtime negotiated a version: the feature can be enabled
    why_not: str = ""  # when not offered
    fault: Fault | None = None  # the feature query faulted


@dataclass(frozen=True)
class Unusable:
    """The driver could not be made (a library that cannot be loaded): unusable input."""

    message: str
    where: str | None

    def raise_it(self) -> None:
        raise MessagesError(self.message, where=self.where)


def decide(check: Check, factory: DriverFactory, ctx: Context, *, keep_devices: bool = False) -> Run:
    """Decide ``check`` in ``ctx``; run in-process (``keep_devices`` False), it then tears its devices down."""
    fault = None
    errors: tuple[str, ...] = ()
    with check_context(ctx):
        try:
            passed, detail = check.decide(factory)
            result = check.verdict(passed, detail)
        except DriverFault as exc:
            fault = exc.fault
            result = check.result("fail", fault.describe())
        except FeatureRefused as exc:
            result = check.result("skip", f"not decided: {exc} (advertised_version_supported fails)")
        except Exception as exc:  # noqa: BLE001 - outside any DDI call: the suite's own error
            text = f"{check.name}: {type(exc).__name__}: {exc}"
            result, errors = check.result("fail", f"internal error of the suite: {text}"), (text,)
        finally:
            if not keep_devices and fault is None:
                teardown(ctx)
    return Run(result, fault, errors)


def preflight(factory: DriverFactory, ctx: Context) -> Preflight | Unusable:
    """Make the driver and query its features, in ``ctx``."""
    with check_context(ctx):
        try:
            runtime = make_runtime(factory)
        except DriverFault as exc:
            if exc.fault.site == SITE_FEATURES:
                return Preflight(False, fault=exc.fault)
            cause = exc.__cause__
            if isinstance(cause, D3D12WLError):
                return Unusable(cause.message, cause.where)
            return load_fault(exc.fault)

    if runtime.negotiated_version() is not None:
        return Preflight(True)
    version = runtime.supported_features.get(values.feature_driver_reported_messages())
    why = ("the driver does not offer the feature" if version is None else
           f"the driver lists the feature at version {version} (_NONE): the runtime never enables it")
    return Preflight(False, why)


def load_fault(fault: Fault) -> Unusable:
    """A driver that faulted while it was made (a library's constructors crashing, exiting, looping): unusable."""
    what = fault.what.replace("the check process", "the process loading it")
    return Unusable(f"the driver could not be made: it {what}", SITE_LOAD)


def usable(pre: Preflight | Unusable) -> Preflight:
    """The preflight, or :class:`MessagesError` (unusable input) for a driver that could not be made."""
    if isinstance(pre, Unusable):
        pre.raise_it()
    assert isinstance(pre, Preflight)
    return pre


def not_run(check: Check, pre: Preflight) -> Run | None:
    """The result of a check the preflight decides (None: run it)."""
    if pre.fault is not None:
        if SITE_FEATURES in check.owns:
            return Run(check.result("fail", pre.fault.describe()), pre.fault)
        return Run(check.result("skip", f"not decided: {pre.fault.describe()} (advertised_version_supported "
                                        "fails)"))
    if not pre.offered and check.needs_feature:
        return Run(check.result("skip", pre.why_not))
    return None


def one_failure_per_fault(checks: Sequence[Check], runs: Sequence[Run]) -> list[CheckResult]:
    """Of the checks that faulted at one site, the owner of the site (else the first, in order) fails, and the
    others are skipped, naming it: a driver's one defect is one failure."""
    results = [r.result for r in runs]
    sites: dict[str, list[int]] = {}
    for i, run in enumerate(runs):
        if run.fault is not None:
            sites.setdefault(run.fault.site, []).append(i)
    for site, members in sites.items():
        reporter = next((i for i in members if site in checks[i].owns), members[0])
        fault = _fault(runs[reporter])
        results[reporter] = checks[reporter].result("fail", fault.describe())
        for i in members:
            if i != reporter:
                results[i] = checks[i].result("skip", f"not decided: {fault.describe()} ({checks[reporter].name} "
                                                      "fails)")
    return results


def _fault(run: Run) -> Fault:
    assert run.fault is not None
    return run.fault
