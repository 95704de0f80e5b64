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

Each process is the leader of a process group of its own, and the whole group is killed when the process is done
(its result read, it exited, or its share spent): a process the driver starts (a constructor that forks) ends with
it, never outliving the command or writing into its output (issue 42, class 10).  A process is done when it exits
or its whole result came (the result is sent with its length first), not when its pipe closes: a process the
driver started holds the pipe open.  What the driver writes to standard output or error goes into a pipe of each
process's own, which this process drains (so the driver never blocks on it) keeping the first
:data:`~d3d12wl.messages.conformance_results.DRIVER_OUTPUT_KEPT` bytes: the report shows it apart from d3d12wl's
own lines, however much the driver wrote (class 11: 1 GiB to stderr).
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
    DRIVER_OUTPUT_KEPT,
    Check,
    CheckResult,
    ConformanceReport,
    DriverFactory,
    DriverOutput,
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


#: the bytes of the length that comes before a process's pickled result
_LENGTH = 8
#: how often a process's exit is looked for where the OS gives no descriptor that says it (no ``pidfd_open``)
_POLL_S = 0.05
#: the most bytes read from one pipe at a time (a driver that writes without end is drained a chunk per wait)
_CHUNK = 1 << 16


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)  # readable once the process exits (Linux 5.3)
    except (AttributeError, OSError):
        return None


def _read(fd: int | None, most: int) -> tuple[list[bytes], bool]:
    """What a non-blocking pipe holds now (at most ``most`` chunks), and whether it ended (its writers are gone)."""
    chunks: list[bytes] = []
    while fd is not None and len(chunks) < most:
        try:
            chunk = os.read(fd, _CHUNK)
        except BlockingIOError:
            break
        if not chunk:
            return chunks, True
        chunks.append(chunk)
    return chunks, False


def _kill_group(pgid: int) -> None:
    """SIGKILL to every process of the group (its leader not yet reaped, so the id is still the group's)."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


class _Child:
    """``work(ctx)`` running in a forked process, the leader of a process group of its own, its return value coming
    back pickled through a pipe (its length first), what it writes to standard output and error through another."""

    def __init__(self, work: Callable[[Context], object], limit_s: float, what: str,
                 internal_errors: Callable[[], Sequence[str]] | None) -> None:
        self.what = what
        self.limit_s = limit_s
        self.shared = mmap.mmap(-1, BlackBox.SIZE)
        self.chunks: list[bytes] = []
        self.received = 0
        self.output_size = 0
        self.output_head = bytearray()
        self.exited = False
        sys.stdout.flush()
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        out_read, out_write = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:  # the child: run, send, leave without running any cleanup of the parent's
            code = 0
            try:
                os.setpgid(0, 0)  # (the parent does it too: whichever runs first)
                faulthandler.disable()  # a crash is the parent's to report, not a traceback dump on stderr
                os.close(read_end)
                os.close(out_read)
                os.dup2(out_write, 1)  # what the driver writes is the parent's to keep apart
                os.dup2(out_write, 2)
                os.close(out_write)
                value = work(Context(BlackBox(self.shared), deadline=time.monotonic() + limit_s))
                if isinstance(value, Run) and internal_errors is not None:
                    value = Run(value.result, value.fault, value.errors + tuple(internal_errors()))
                data = pickle.dumps(value)
                with os.fdopen(write_end, "wb") as out:
                    out.write(len(data).to_bytes(_LENGTH, "little") + data)
            except BaseException:  # noqa: BLE001 - the parent reports a child that sent nothing
                code = 70
            os._exit(code)
        try:
            os.setpgid(self.pid, self.pid)
        except OSError:  # (the child did it first, or is already gone)
            pass
        os.close(write_end)
        os.close(out_write)
        self.fd: int | None = read_end
        self.out_fd: int | None = out_read
        os.set_blocking(read_end, False)
        os.set_blocking(out_read, False)
        self.pidfd = _pidfd(self.pid)
        self.deadline = time.monotonic() + limit_s

    def fds(self) -> list[int]:
        """The descriptors to wait on: the result, the driver's output, the exit."""
        return [fd for fd in (self.fd, self.out_fd, self.pidfd) if fd is not None]

    @property
    def done(self) -> bool:
        """Exited, or its whole result came."""
        return self.exited or self._whole()

    def _whole(self) -> bool:
        if self.received < _LENGTH:
            return False
        head = b"".join(self.chunks)[:_LENGTH]
        return self.received >= _LENGTH + int.from_bytes(head, "little")

    def take(self, fd: int) -> None:
        """Read what ``fd`` (one of :meth:`fds`) says."""
        if fd == self.pidfd:
            self.exited = True
        elif fd == self.fd:
            self._read_result()
        elif fd == self.out_fd:
            self._read_output()

    def _read_result(self) -> None:
        chunks, ended = _read(self.fd, 1 << 30)
        self.chunks += chunks
        self.received += sum(map(len, chunks))
        if ended and self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _read_output(self, most: int = 16) -> None:
        chunks, ended = _read(self.out_fd, most)
        for chunk in chunks:
            self.output_size += len(chunk)
            room = DRIVER_OUTPUT_KEPT - len(self.output_head)
            if room > 0:
                self.output_head += chunk[:room]
        if ended and self.out_fd is not None:
            os.close(self.out_fd)
            self.out_fd = None

    def poll(self) -> None:
        """Where there is no exit descriptor: whether the process exited (not reaped: its id stays its group's)."""
        if self.pidfd is None and not self.exited:
            try:
                self.exited = os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            except ChildProcessError:
                self.exited = True

    def output(self) -> DriverOutput | None:
        """What the driver wrote to standard output and error in this process (None: nothing)."""
        return DriverOutput(self.what, self.output_size, bytes(self.output_head)) if self.output_size else None

    def finish(self, *, timed_out: bool) -> object:
        """Kill the process group, reap the child: its value, or a :class:`Run` of the fault it ended in."""
        if not timed_out and not self.exited:  # (the whole result came: the process is leaving)
            os.waitid(os.P_PID, self.pid, os.WEXITED | os.WNOWAIT)
        _kill_group(self.pid)  # (everything the driver started: the group's id is the unreaped leader's)
        _, status = os.waitpid(self.pid, 0)
        self._read_result()
        self._read_output(most=DRIVER_OUTPUT_KEPT)  # (what the group wrote before it was killed)
        for fd in (self.fd, self.out_fd, self.pidfd):
            if fd is not None:
                os.close(fd)
        self.fd = self.out_fd = self.pidfd = None
        crumb = BlackBox.read_shared(self.shared)
        self.shared.close()
        if not timed_out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and self._whole():
            return pickle.loads(b"".join(self.chunks)[_LENGTH:])  # noqa: S301 - our own child's data
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


def _wait(children: Sequence[_Child]) -> list[_Child]:
    """Wait until one of ``children`` is done or at its deadline, reading what they send meanwhile; those to
    finish (done, or past the deadline)."""
    owner = {fd: child for child in children for fd in child.fds()}
    wait = max(0.0, min(c.deadline for c in children) - time.monotonic())
    if any(c.pidfd is None for c in children):
        wait = min(wait, _POLL_S)
    ready, _, _ = select.select(list(owner), [], [], wait)
    for fd in ready:
        owner[fd].take(fd)
    for child in children:
        child.poll()
    now = time.monotonic()
    return [c for c in children if c.done or now >= c.deadline]


class Isolated:
    """One isolated run (see the module docstring)."""

    def __init__(self, factory: DriverFactory, budget_s: float,
                 internal_errors: Callable[[], Sequence[str]] | None) -> None:
        self.factory = factory
        self.budget_s = budget_s
        self.internal_errors = internal_errors
        self.started = time.monotonic()
        self.outputs: list[DriverOutput] = []  # what the driver wrote, per process that wrote anything
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
        try:
            while waiting or running:
                while waiting and len(running) < PARALLEL:
                    n = waiting.pop(0)
                    limit = self._share(len(waiting) + len(running) + 1, PARALLEL)
                    if limit <= 0:
                        runs[n] = Run(CHECKS[n].result("skip", f"not run: the time budget of {self.budget_s:g} s "
                                                               "was spent"))
                        continue
                    running[_Child(self._work(CHECKS[n]), limit, CHECKS[n].name, self.internal_errors)] = n
                if not running:
                    continue
                for child in _wait(list(running)):
                    run = self._finish(child)
                    assert isinstance(run, Run)
                    runs[running.pop(child)] = run
        finally:  # (an interrupt, an error of the harness: no process of the driver's outlives the command)
            for child in running:
                self._finish(child, abandoned=True)
        done_runs = [r for r in runs if r is not None]
        order = [c.name for c in CHECKS]  # (the preflight's first, then the checks' in the suite's order)
        outputs = sorted(self.outputs, key=lambda o: order.index(o.process) if o.process in order else -1)
        return ConformanceReport(tuple(one_failure_per_fault(CHECKS, done_runs)),
                                 tuple(e for r in done_runs for e in r.errors), tuple(outputs))

    def _finish(self, child: _Child, *, abandoned: bool = False) -> object:
        """``child.finish``, keeping what the driver wrote there; ``abandoned``: killed, its outcome dropped."""
        try:
            return child.finish(timed_out=abandoned or not child.done)
        except HarnessError:
            if abandoned:
                return None
            raise
        finally:
            made = child.output()
            if made is not None and not abandoned:
                self.outputs.append(made)

    def _work(self, check: Check) -> Callable[[Context], Run]:
        def work(ctx: Context) -> Run:
            return decide(check, self.factory, ctx, keep_devices=True)

        return work

    def _preflight(self) -> Preflight:
        child = _Child(lambda ctx: preflight(self.factory, ctx), self._share(len(CHECKS) + 1),
                       "the driver's preflight", None)
        try:
            while not _wait([child]):
                pass
        except BaseException:
            self._finish(child, abandoned=True)
            raise
        value = self._finish(child)
        if isinstance(value, Run) and value.fault is not None and value.fault.site != SITE_FEATURES:
            value = load_fault(value.fault)
        if isinstance(value, Unusable):  # (what it wrote while it failed to load: said apart, bounded)
            made = child.output()
            if made is not None:
                first = made.lines(most=1, width=80)[0]
                value = Unusable(f"{value.message}; it wrote {made.size:,} bytes to standard output and error "
                                 f"(kept apart; the first line: {first!r})", value.where)
        if isinstance(value, Preflight | Unusable):
            return usable(value)
        assert isinstance(value, Run) and value.fault is not None
        return Preflight(False, fault=value.fault)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
