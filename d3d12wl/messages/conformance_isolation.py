"""The checks of an untrusted driver, each in a forked process, all within one time budget.

The harness process never loads the driver: a forked *preflight* makes it and queries its features (a library
that crashes in its constructors, exits the process, or loops there is unusable input, exit 2; a crash, an exit or
a hang in the feature query fails ``advertised_version_supported``), then every check runs in a forked process of
its own, :data:`PARALLEL` at a time.  A child that crashes, exits or outlives its share of the budget is attributed,
through the black box it shares with the parent, to the DDI call it was in
(:class:`~d3d12wl.messages.conformance_harness.BlackBox`).

The budget: each check gets an equal share of what is left (at least
:data:`~d3d12wl.messages.conformance_runner.MIN_CHECK_S`), so a driver that hangs everywhere costs the budget, not
the number of checks times it; once the budget is spent, the checks not started are skipped.
"""

from __future__ import annotations

import faulthandler
import mmap
import os
import pickle
import select
import signal
import sys
import time
from collections.abc import Callable, Sequence

from d3d12wl.messages.conformance_checks import CHECKS
from d3d12wl.messages.conformance_harness import SITE_FEATURES, BlackBox, Context
from d3d12wl.messages.conformance_results import (
    Check,
    CheckResult,
    ConformanceReport,
    DriverFactory,
    Fault,
    HarnessError,
)
from d3d12wl.messages.conformance_runner import (
    Preflight,
    Run,
    Unusable,
    decide,
    load_fault,
    not_run,
    one_failure_per_fault,
    preflight,
    usable,
)
from d3d12wl.messages.conformance_workloads import warm_up

#: Every isolated check gets an equal share of the budget left, and at least this much.
MIN_CHECK_S = 1.0
#: How many check processes run at once.
PARALLEL = max(1, min(2, os.cpu_count() or 1))

_NO_DDI = ("(no DDI call)", "no DDI call (a thread of the driver's own, or the harness)")


class _Child:
    """``work(ctx)`` running in a forked process, its return value coming back pickled through a pipe."""

    def __init__(self, work: Callable[[Context], object], limit_s: float, what: str,
                 internal_errors: Callable[[], Sequence[str]] | None) -> None:
        self.what = what
        self.limit_s = limit_s
        self.shared = mmap.mmap(-1, BlackBox.SIZE)
        self.chunks: list[bytes] = []
        sys.stdout.flush()
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: run, send, leave without running any cleanup of the parent's
            code = 0
            try:
                faulthandler.disable()  # a crash is the parent's to report, not a traceback dump on stderr
                os.close(read_end)
                value = work(Context(BlackBox(self.shared), deadline=time.monotonic() + limit_s))
                if isinstance(value, Run) and internal_errors is not None:
                    value = Run(value.result, value.fault, value.errors + tuple(internal_errors()))
                data = pickle.dumps(value)
                with os.fdopen(write_end, "wb") as out:
                    out.write(data)
            except BaseException:  # noqa: BLE001 - the parent reports a child that sent nothing
                code = 70
            os._exit(code)
        os.close(write_end)
        self.fd = read_end
        self.deadline = time.monotonic() + limit_s

    def fileno(self) -> int:
        return self.fd

    def read(self) -> bool:
        """Take what the pipe has; True at its end (the child is done)."""
        chunk = os.read(self.fd, 1 << 16)
        if chunk:
            self.chunks.append(chunk)
        return not chunk

    def finish(self, *, timed_out: bool) -> object:
        """Reap the child: its value, or a :class:`Run` of the fault it ended in."""
        if timed_out:
            os.kill(self.pid, signal.SIGKILL)
        os.close(self.fd)
        _, status = os.waitpid(self.pid, 0)
        crumb = BlackBox.read_shared(self.shared)
        self.shared.close()
        if not timed_out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and self.chunks:
            return pickle.loads(b"".join(self.chunks))  # noqa: S301 - our own child's data
        site, where = crumb or _NO_DDI
        if timed_out:
            fault = Fault(site, where, f"did not return within {self.limit_s:.3g} s (the check process was killed)",
                          hang=True)
        elif os.WIFSIGNALED(status):
            fault = Fault(site, where, f"crashed the check process ({_signal_name(os.WTERMSIG(status))})")
        elif os.WEXITSTATUS(status) == 70 and not crumb:
            raise HarnessError(f"{self.what}: the check process failed without a result")
        else:
            fault = Fault(site, where, f"exited the check process (status {os.WEXITSTATUS(status)})")
        check = next((c for c in CHECKS if c.name == self.what), None)
        result = check.result("fail", fault.describe()) if check else CheckResult(self.what, "", "fail")
        return Run(result, fault)


class Isolated:
    """One isolated run (see the module docstring)."""

    def __init__(self, factory: DriverFactory, budget_s: float,
                 internal_errors: Callable[[], Sequence[str]] | None) -> None:
        self.factory = factory
        self.budget_s = budget_s
        self.internal_errors = internal_errors
        self.started = time.monotonic()
        # what every check process does first, done once here instead (no driver is loaded in this process)
        from d3d12wl.messages import c_driver

        warm_up()
        c_driver.warm_up()

    def _share(self, left: int, parallel: int = 1) -> float:
        remaining = self.budget_s - (time.monotonic() - self.started)
        if remaining <= 0:
            return 0.0
        return min(remaining, max(MIN_CHECK_S, remaining * parallel / max(left, 1)))

    def run(self) -> ConformanceReport:
        pre = self._preflight()
        runs: list[Run | None] = [not_run(check, pre) for check in CHECKS]
        waiting = [n for n, run in enumerate(runs) if run is None]
        running: dict[_Child, int] = {}
        while waiting or running:
            while waiting and len(running) < PARALLEL:
                n = waiting.pop(0)
                limit = self._share(len(waiting) + len(running) + 1, PARALLEL)
                if limit <= 0:
                    runs[n] = Run(CHECKS[n].result("skip", f"not run: the time budget of {self.budget_s:g} s was "
                                                           "spent"))
                    continue
                running[_Child(self._work(CHECKS[n]), limit, CHECKS[n].name, self.internal_errors)] = n
            if not running:
                continue
            wait = max(0.0, min(c.deadline for c in running) - time.monotonic())
            ready, _, _ = select.select(list(running), [], [], wait)
            now = time.monotonic()
            for child in list(running):
                done = child in ready and child.read()
                if done or now >= child.deadline:
                    run = child.finish(timed_out=not done)
                    assert isinstance(run, Run)
                    runs[running.pop(child)] = run
        done_runs = [r for r in runs if r is not None]
        return ConformanceReport(tuple(one_failure_per_fault(CHECKS, done_runs)),
                                 tuple(e for r in done_runs for e in r.errors))

    def _work(self, check: Check) -> Callable[[Context], Run]:
        def work(ctx: Context) -> Run:
            return decide(check, self.factory, ctx, keep_devices=True)

        return work

    def _preflight(self) -> Preflight:
        child = _Child(lambda ctx: preflight(self.factory, ctx), self._share(len(CHECKS) + 1),
                       "the driver's preflight", None)
        while True:
            ready, _, _ = select.select([child], [], [], max(0.0, child.deadline - time.monotonic()))
            if not ready:
                value = child.finish(timed_out=True)
                break
            if child.read():
                value = child.finish(timed_out=False)
                break
        if isinstance(value, Preflight | Unusable):
            return usable(value)
        assert isinstance(value, Run) and value.fault is not None
        if value.fault.site == SITE_FEATURES:
            return Preflight(False, fault=value.fault)
        return usable(load_fault(value.fault))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
