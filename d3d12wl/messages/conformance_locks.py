"""The lock checks (spec "Threading and synchronization"): "Do not call while holding a driver lock that a DDI entry
point also takes. ... Report outside the driver's own locks."

The spec's deadlock: a report holds the InfoQueue lock while the application's registered callback runs; the
callback calls into D3D12 and reaches a driver entry point taking a driver lock that another driver thread holds
while it is blocked reporting.  The checks play that application: a :class:`LockProber` registered on the device
makes DDI calls from inside the callback, each on a helper thread, and waits until the call returns or *parks* --
blocks on the runtime's own InfoQueue lock inside ``pfnReportMessageCb`` (the callback holds it: the helper's own
report simply waits its turn, which is the runtime serializing reports, not a driver lock).  A call still running
after :data:`~d3d12wl.messages.conformance_harness.LOCK_TIMEOUT_S`, and not parked, is blocked inside the driver by
the reporting thread: the check fails, naming the entry point it is stuck in.  When a helper parks, a second call
(on another new command list) shows whether the parked thread reported while holding a lock.  Reports made by the
helpers themselves never start probes of their own, so the suite's calls cannot cascade.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from d3d12wl.messages.channel import CommandList, CommandQueue, Device
from d3d12wl.messages.conformance_harness import LOCK_TIMEOUT_S, context, make_device, settle, shown
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

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, daemon=True, name="d3d12wl-lock-probe")
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
        blocked = self._unblocked(self._new_list_call(), situation)
        if blocked:
            if self.reported_list:
                self.gate_blocked = blocked
            else:
                self.failure = blocked
            return
        target = self._reported_list(on_workload) if self.reported_list else None
        if target is not None:
            self.list_probes += 1
            blocked = self._unblocked(self._execute_call(target), situation)
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

    def _wait(self, record: _Call) -> str:
        """"done", "parked" (waiting for the InfoQueue lock) or "blocked": asleep elsewhere for LOCK_TIMEOUT_S.  Time
        the thread spends runnable (starved of a CPU on a loaded machine) does not count, where the kernel says
        (:func:`thread_asleep`); a thread that keeps running (a spin lock) is blocked after ten times as long."""
        started = time.monotonic()
        asleep_since: float | None = None
        while not record.done.wait(0.002):
            if record.ident in self.device.threads_waiting_for_info_queue():
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

    def _unblocked(self, call: tuple[str, Callable[[], None]], situation: str) -> str | None:
        """Make the call on a helper thread; None when it returns or parks (and a second call shows the parked one
        holds no lock), else what blocked."""
        first = self._start(call)
        state = self._wait(first)
        if state == "blocked":
            return self._blocked(first, situation)
        if state == "parked":
            second = self._start(self._new_list_call())
            if self._wait(second) == "blocked":
                return (f"{self._blocked(second, situation)}, while another call of the suite waited to report from "
                        "inside the driver: that thread reported holding a lock the entry point takes")
        return None

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
    return True, (f"{prober.probed} report(s) probed in {len(prober.contexts)} context(s): no DDI call made from the "
                  "callback blocked")


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
