"""The lock checks (spec "Threading and synchronization"): "Do not call while holding a driver lock that a DDI entry
point also takes. ... Report outside the driver's own locks."

The spec's deadlock: a report holds the InfoQueue lock while the application's registered callback runs; the
callback calls into D3D12 and reaches a driver entry point taking a driver lock that another driver thread holds
while it is blocked reporting.  The checks play that application: a :class:`LockProber` registered on the device
makes DDI calls from inside the callback, each on a helper thread, and waits until the call returns or *parks* --
blocks on the runtime's own InfoQueue lock inside ``pfnReportMessageCb`` (the callback holds it: the helper's own
report simply waits its turn, which is the runtime serializing reports, not a driver lock).  A call also parks when
it waits for reports that wait there: a thread the driver started during the call waits for the InfoQueue lock (a
flush that reports from threads of its own and joins them), or, inside the flush, any thread of the driver's does (a
flush that waits for a delivery under way).  A call still running after
:data:`~d3d12wl.messages.conformance_harness.LOCK_TIMEOUT_S`, and not parked, is blocked inside the driver by the
reporting thread: the check fails, naming the entry point it is stuck in -- except a flush blocked while the report
in progress comes from a thread of the driver's outside any DDI call: the flush may be waiting for that thread's
delivery to end (so that nothing captured before the flush is reported after it), which holds no lock, and the suite
cannot tell that from a lock only the flush takes; that case is not decided (the calls that are not a flush still
are).  When a helper parks, a second call (on another new command list) shows whether the parked thread reported
while holding a lock.  Reports made by the helpers themselves never start probes of their own, so the suite's calls
cannot cascade.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from d3d12wl.messages.channel import CommandList, CommandQueue, Device
from d3d12wl.messages.conformance_harness import (
    LOCK_TIMEOUT_S,
    SITE_FLUSH,
    SITE_REMOVAL_FLUSH,
    context,
    make_device,
    process_threads,
    settle,
    shown,
)
from d3d12wl.messages.conformance_results import DriverFactory
from d3d12wl.messages.conformance_workloads import standard_workload

#: At most this many of the driver's messages start probes (one of each reporting context first).
MAX_PROBED = 12

_local = threading.local()


@dataclass
class _Call:
    """One DDI call made from inside the callback, on a helper thread."""

    label: str
    work: Callable[[], None]
    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None
    thread: threading.Thread | None = None
    #: the process's threads (kernel ids) when the call started: the ones the driver starts during it are the others
    threads_before: set[int] | None = None

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True, name="d3d12wl-lock-probe")
        self.threads_before = process_threads()
        self.thread.start()

    def _run(self) -> None:
        _local.helper = True
        try:
            self.work()
        except Exception as exc:  # noqa: BLE001 - reported as what the call did
            self.error = f"{type(exc).__name__}: {shown(str(exc))}"
        finally:
            self.done.set()

    @property
    def ident(self) -> int | None:
        return None if self.thread is None else self.thread.ident

    @property
    def native_id(self) -> int | None:
        return None if self.thread is None else self.thread.native_id


def thread_asleep(native_id: int | None) -> bool | None:
    """Whether the thread is asleep in the kernel (state S: a futex, a mutex, a condition), from
    /proc/self/task/<id>/stat; False when it runs or waits for a CPU (R) or for I/O (D); None where that cannot be
    read (not Linux, the thread gone)."""
    if native_id is None:
        return None
    try:
        with open(f"/proc/self/task/{native_id}/stat", "rb") as stat:
            fields = stat.read().rpartition(b")")[2].split()
    except OSError:
        return None
    return fields[0] == b"S" if fields else None


class LockProber:
    """The application callback of the lock checks, registered on ``device`` (see the module docstring).

    ``reported_list``: also call ExecuteCommandLists, on a side queue, with the command list the message is
    attributed to (when it is closed, and the callback runs on the workload's own thread: then nothing records it).
    """

    def __init__(self, device: Device, *, reported_list: bool) -> None:
        self.device = device
        self.reported_list = reported_list
        self.workload_thread = threading.get_ident()
        self.side: CommandQueue = device.create_command_queue("lock probe queue")
        self.failure: str | None = None
        self.gate_blocked: str | None = None  # the device-wide call blocked (reported_list: not decided then)
        self.probed = 0
        self.list_probes = 0
        self.undecided: list[str] = []  # flushes blocked while a thread of the driver's delivered (not decided)
        self.contexts: set[tuple[str | None, bool]] = set()
        self.calls: list[_Call] = []
        self._serial = 0
        self.cookie = device.info_queue.register_message_callback(self.on_message, ignore_filters=True)

    # ---- the callback --------------------------------------------------------------------------------------------
    def on_message(self, category: int, severity: int, mid: int, text: str, ctx: object) -> None:
        try:
            self._on_message(text)
        except Exception as exc:  # noqa: BLE001 - the suite's own error must not reach the driver
            self.failure = self.failure or f"the check's callback failed: {type(exc).__name__}: {exc}"

    def _on_message(self, text: str) -> None:
        if getattr(_local, "helper", False) or self.failure or self.gate_blocked or self.probed >= MAX_PROBED:
            return  # a helper's own report (no cascade), or already decided
        on_workload = threading.get_ident() == self.workload_thread
        where = (self.device._flush_kind, on_workload)
        if where in self.contexts and self.probed >= 4:
            return
        self.contexts.add(where)
        self.probed += 1
        situation = self._situation(text, on_workload)
        reporter = threading.get_ident()
        blocked = self._unblocked(self._new_list_call(), situation, reporter)
        if blocked:
            if self.reported_list:
                self.gate_blocked = blocked
            else:
                self.failure = blocked
            return
        target = self._reported_list(on_workload) if self.reported_list else None
        if target is not None:
            self.list_probes += 1
            blocked = self._unblocked(self._execute_call(target), situation, reporter)
            if blocked:
                self.failure = blocked

    def _situation(self, text: str, on_workload: bool) -> str:
        kind = self.device._flush_kind
        context_text = f"during the {kind} flush" if kind else "outside any flush"
        thread = "the application's thread" if on_workload else "a thread of the driver's"
        return f"while the driver reported {shown(text, 80)!r} ({context_text}, on {thread})"

    def _reported_list(self, on_workload: bool) -> CommandList | None:
        message = self.device.report_in_progress
        if not on_workload or message is None or message.command_list_state_index is None:
            return None
        cl = self.device.command_list_of(message.command_list_state_index)
        if cl is None or not cl.closed or cl._destroyed:
            return None
        return cl

    # ---- the DDI calls -------------------------------------------------------------------------------------------
    def _new_list_call(self) -> tuple[str, Callable[[], None]]:
        self._serial += 1
        serial = self._serial

        def call() -> None:
            cl = self.device.create_command_list(f"lock probe {serial}")
            cl.draw()
            cl.close()
            self.side.wait()

        return "CreateCommandList, a Draw and Close on a new command list, and a Wait (a flush)", call

    def _execute_call(self, cl: CommandList) -> tuple[str, Callable[[], None]]:
        def call() -> None:
            self.side.execute_command_lists([cl])
            self.side.signal()
            self.side.gpu_run()

        return f"ExecuteCommandLists of the reported command list {shown(cl.object.identity_string(), 80)}", call

    def _start(self, call: tuple[str, Callable[[], None]]) -> _Call:
        record = _Call(*call)
        self.calls.append(record)
        record.start()
        return record

    def _in_flush(self, record: _Call) -> bool:
        """Whether the call is inside pfnFlushDriverReportedMessages right now."""
        stuck = context().box.in_progress(record.ident)
        return stuck is not None and stuck[0] in (SITE_FLUSH, SITE_REMOVAL_FLUSH)

    def _parked(self, record: _Call) -> bool:
        """The call waits for the runtime's InfoQueue lock: on its own thread; through a thread the driver started
        during the call; or, inside the flush, through any thread of the driver's (the harness's own threads, the
        workload's and the helpers', aside: a flush waiting for one of those would be waiting for a lock)."""
        waiting = self.device.threads_waiting_for_info_queue()
        if record.ident in waiting:
            return True
        started = (process_threads() or set()) - (record.threads_before or set()) if record.threads_before else set()
        if started & self.device.native_threads_waiting_for_info_queue():
            return True
        harness = {self.workload_thread, *(c.ident for c in self.calls)}
        return bool(waiting - harness) and self._in_flush(record)

    def _wait(self, record: _Call) -> str:
        """"done", "parked" (waiting for the InfoQueue lock, :meth:`_parked`) or "blocked": asleep elsewhere for
        LOCK_TIMEOUT_S.  Time the thread spends runnable (starved of a CPU on a loaded machine) does not count, where
        the kernel says (:func:`thread_asleep`); a thread that keeps running (a spin lock) is blocked after ten times
        as long."""
        started = time.monotonic()
        asleep_since: float | None = None
        while not record.done.wait(0.002):
            if self._parked(record):
                return "parked"
            now = time.monotonic()
            asleep = thread_asleep(record.native_id)
            if asleep is False:
                asleep_since = None
            elif asleep_since is None:
                asleep_since = now
            if (asleep_since is not None and now - asleep_since >= LOCK_TIMEOUT_S) or \
                    now - started >= 10 * LOCK_TIMEOUT_S:
                return "blocked"
        return "done"

    def _unblocked(self, call: tuple[str, Callable[[], None]], situation: str, reporter: int) -> str | None:
        """Make the call on a helper thread; None when it returns or parks (and a second call shows the parked one
        holds no lock), or when only the flush blocked while a thread of the driver's outside any DDI call reported
        (:meth:`_undecided`), else what blocked."""
        first = self._start(call)
        state = self._wait(first)
        if state == "blocked" and not self._undecided(first, situation, reporter):
            return self._blocked(first, situation)
        if state == "parked":
            second = self._start(self._new_list_call())
            if self._wait(second) == "blocked" and not self._undecided(second, situation, reporter):
                return (f"{self._blocked(second, situation)}, while another call of the suite waited to report from "
                        "inside the driver: that thread reported holding a lock the entry point takes")
        return None

    def _undecided(self, record: _Call, situation: str, reporter: int) -> bool:
        """A flush blocked while the report in progress comes from a thread of the driver's outside any DDI call: it
        may wait for that thread's delivery to end, which the spec allows (no lock is held while reporting), and no
        observer tells that from a lock only the flush takes.  Noted, not failed."""
        if not self._in_flush(record) or context().box.in_progress(reporter) is not None:
            return False
        self.undecided.append(f"a flush made from the application's callback {situation} waited for that report")
        return True

    def _blocked(self, record: _Call, situation: str) -> str:
        stuck = context().box.in_progress(record.ident)
        at = f" in {stuck[1]}" if stuck else ""
        return (f"{record.label}, made from the application's callback {situation}, blocked{at} for "
                f"{LOCK_TIMEOUT_S:g} s: the driver reported while holding a lock that entry point takes")

    def finish(self) -> str | None:
        """Unregister; every helper must then finish (a parked one proceeds once the callback returned)."""
        self.device.info_queue.unregister_message_callback(self.cookie)
        for record in self.calls:
            if not record.done.wait(10 * LOCK_TIMEOUT_S):
                stuck = context().box.in_progress(record.ident)
                return (f"{record.label}, made from the application's callback, never returned"
                        f"{' (stuck in ' + stuck[1] + ')' if stuck else ''}")
        return None


def _run(factory: DriverFactory, *, reported_list: bool) -> LockProber:
    device = make_device(factory)
    prober = LockProber(device, reported_list=reported_list)
    try:
        standard_workload(device)
        settle(0.02)  # a driver thread's report of the workload's findings
    finally:
        left = prober.finish()
    if left and not prober.failure:
        prober.failure = left
    return prober


def reports_outside_driver_locks(factory: DriverFactory) -> tuple[bool, str]:
    """For the driver's messages (one of each reporting context first, at most 12): CreateCommandList, a Draw and
    Close on a new command list and a Wait, made from inside the application's callback on another thread, return
    or wait for the runtime's InfoQueue lock -- never block inside the driver for 1 s."""
    prober = _run(factory, reported_list=False)
    if prober.failure:
        return False, prober.failure
    if not prober.probed:
        return True, "not decidable: the driver reported nothing during the workload (a pass)"
    undecided = (f"; {len(prober.undecided)} flush(es) waited for a delivery of the driver's own thread, not decided "
                 f"(a lock only the flush takes would look the same): {prober.undecided[0]}" if prober.undecided else "")
    return True, (f"{prober.probed} report(s) probed in {len(prober.contexts)} context(s): no DDI call made from the "
                  f"callback blocked{undecided}")


def reports_outside_list_locks(factory: DriverFactory) -> tuple[bool, str]:
    """For the driver's messages attributed to a closed command list, reported on the application's thread:
    ExecuteCommandLists of that very list (on a side queue, then run), made from inside the application's callback on
    another thread, returns or waits for the runtime's InfoQueue lock -- so the driver does not report holding the
    list's own lock."""
    prober = _run(factory, reported_list=True)
    if prober.failure:
        return False, prober.failure
    if prober.gate_blocked:
        return True, ("not decided: a DDI call on a new command list blocked already (reports_outside_driver_locks "
                      "decides that)")
    if not prober.list_probes:
        return True, ("not decidable: the driver attributed no message to a closed command list on the application's "
                      "thread (a pass)")
    return True, f"{prober.list_probes} reported command list(s) executed from the callback: none blocked"
