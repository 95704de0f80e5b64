"""What every conformance check stands on: traced devices, fault sites, bounded waits (the probes and the workloads
are :mod:`~d3d12wl.messages.conformance_workloads`).

* **Tracing.**  The driver is wrapped (:class:`TracedDriver`) so that every DDI entry point the runtime calls is
  recorded while it runs, per thread, in a :class:`BlackBox` -- in a forked check process also in shared memory, so
  a crash or a hang is attributed to the entry point it happened in.  An exception out of an entry point is a
  :class:`~d3d12wl.messages.conformance_results.DriverFault` at that site, except from
  ``pfnFlushDriverReportedMessages``, whose raises are held (the flush returns) and judged by the checks that read
  :attr:`TracedDevice.flush_raises`.
* **Bounded waits.**  :func:`run_watched` runs a workload on a thread of its own and turns one that does not finish
  into a hang at the DDI call it is stuck in; :func:`settle` is the grace period a late report gets.
"""

from __future__ import annotations

import itertools
import mmap
import os
import struct
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, TypeVar

from d3d12wl.messages.channel import Device, Runtime
from d3d12wl.messages.conformance_results import DriverFactory, DriverFault, Fault
from d3d12wl.messages.driver import CoreLayerCallbacks, DeviceFuncs, Driver, DriverDevice, DriverHandle
from d3d12wl.messages.enabling import RegistryOverlay

#: How long a DDI call made from inside a report may take before it counts as blocked by the reporting thread.
LOCK_TIMEOUT_S = 1.0
#: "The driver must return promptly": the bound on the device-removal flush.
REMOVAL_PROMPT_S = 1.0
#: How long a workload run on a watched thread (the removal workload) may take before the driver counts as hung (a
#: hang is forever; a correct driver takes milliseconds: the bound only has to be far from both, and within the check's
#: share of an isolated run's budget, which it never outlasts).
WORKLOAD_TIMEOUT_S = 10.0
#: How long a check waits after its workload (and after destroying its devices) for a late report to arrive.
GRACE_S = 0.15
#: After destroying its devices, a check waits longer, up to this, while a thread the driver started is still alive.
GRACE_MAX_S = 1.0

# ---- fault sites (the DDI entry points, as the spec and d3d12wl_conformance_ddi.h name them) -----------------
SITE_LOAD = "loading the driver"
SITE_FEATURES = "pfnGetSupportedExtendedFeatures"
SITE_ENABLE = "pfnEnableExtendedFeature"
SITE_FLUSH = "pfnFlushDriverReportedMessages"
SITE_REMOVAL_FLUSH = "pfnFlushDriverReportedMessages (device removal)"
SITE_SET_INDEX = "pfnSetCommandListStateIndex"
SITE_DESTROY_DEVICE = "DestroyDevice"
OUTSIDE = "no DDI call (a thread of the driver's own)"

T = TypeVar("T")


# ------------------------------------------------------------------------------------------------------------------
# the black box: which DDI calls are in progress
# ------------------------------------------------------------------------------------------------------------------


class BlackBox:
    """The DDI calls in progress, per thread: what a fault is attributed to.

    ``shared``: a shared memory map the most recently entered call still in progress is also written to, for the
    parent of a forked check process to read after the child crashed or was killed (:meth:`read_shared`)."""

    SIZE = 4096

    def __init__(self, shared: mmap.mmap | None = None) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, list[tuple[int, str, str]]] = {}
        self._serial = itertools.count(1)
        self._shared = shared

    @contextmanager
    def call(self, site: str, where: str) -> Iterator[None]:
        """Record the DDI call ``where`` (at ``site``) in progress on this thread; an exception out of it becomes a
        :class:`DriverFault` at the site (one already a DriverFault passes through)."""
        me = threading.get_ident()
        with self._lock:
            self._calls.setdefault(me, []).append((next(self._serial), site, where))
            self._publish()
        try:
            yield
        except DriverFault:
            raise
        except Exception as exc:  # noqa: BLE001 - the driver's fault, at this site
            raise DriverFault(Fault(site, where, f"raised {type(exc).__name__}: {shown(str(exc))}")) from exc
        finally:
            with self._lock:
                stack = self._calls.get(me)
                if stack:
                    stack.pop()
                    if not stack:
                        del self._calls[me]
                self._publish()

    def in_progress(self, thread: int | None = None) -> tuple[str, str] | None:
        """(site, where) of the most recently entered call still in progress (on ``thread``, or on any thread)."""
        with self._lock:
            stacks = [self._calls.get(thread, [])] if thread is not None else list(self._calls.values())
            latest = max((frame for stack in stacks for frame in stack[-1:]), default=None)
        return None if latest is None else (latest[1], latest[2])

    def _publish(self) -> None:
        if self._shared is None:
            return
        latest = max((stack[-1] for stack in self._calls.values() if stack), default=None)
        data = b"" if latest is None else f"{latest[1]}\t{latest[2]}".encode("utf-8", "replace")[:self.SIZE - 8]
        self._shared[4:4 + len(data)] = data
        self._shared[0:4] = struct.pack("<I", len(data))

    @classmethod
    def read_shared(cls, shared: mmap.mmap) -> tuple[str, str] | None:
        (size,) = struct.unpack("<I", shared[0:4])
        if not 0 < size <= cls.SIZE - 8:
            return None
        site, _, where = shared[4:4 + size].decode("utf-8", "replace").partition("\t")
        return site, where or site


@dataclass
class Context:
    """The check being run: its black box, the devices it made (torn down after it, when run in-process), and the
    time it must be decided by."""

    box: BlackBox = field(default_factory=BlackBox)
    devices: list[Device] = field(default_factory=list)
    deadline: float | None = None  # time.monotonic() by which the check must have decided


_context = Context()


def context() -> Context:
    return _context


@contextmanager
def check_context(ctx: Context) -> Iterator[Context]:
    """Make ``ctx`` the current check's context for the ``with`` body."""
    global _context
    outer, _context = _context, ctx
    try:
        yield ctx
    finally:
        _context = outer


def teardown(ctx: Context) -> None:
    """Destroy the devices a check left alive (their driver threads with them) and let go of the runtime model
    behind each (a driver device that can, ``retire()``: its callbacks stay valid for the driver's leftover
    threads); what the driver does then is not judged.  Best effort: an error here is the driver's, after its check
    was decided."""
    for device in ctx.devices:
        if not device.destroyed:
            try:
                device.destroy()
            except Exception:  # noqa: BLE001, S110 - after the verdict; nothing to judge
                pass
        retire = getattr(getattr(device.driver_device, "inner", None), "retire", None)
        if callable(retire):
            retire()


def shown(text: str | bytes, limit: int = 160, *, total: int | None = None) -> str:
    """Driver-supplied text as a detail shows it: bounded, with its length in bytes when cut (``total``: the whole
    length, when ``text`` is already a kept prefix of it)."""
    if isinstance(text, bytes):
        size, text = len(text), text[:limit * 4].decode("utf-8", "replace")
    else:
        size = len(text.encode("utf-8", "surrogatepass"))
    size = max(size, total or 0)
    return text if len(text) <= limit and size <= limit * 4 else f"{text[:limit]}... ({size:,} bytes)"


# ------------------------------------------------------------------------------------------------------------------
# the traced driver
# ------------------------------------------------------------------------------------------------------------------


class TracedDriver(Driver):
    """A driver whose adapter-level DDI runs in the black box."""

    def __init__(self, inner: Driver) -> None:
        self.inner = inner

    def __getattr__(self, name: str) -> Any:  # the driver's own attributes (CDriver.feature_query_note)
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)

    def get_supported_extended_features(self) -> Mapping[int, int]:
        with context().box.call(SITE_FEATURES, SITE_FEATURES):
            return dict(self.inner.get_supported_extended_features())

    def create_device(self, callbacks: CoreLayerCallbacks) -> DriverDevice:
        with context().box.call("pfnCreateDevice", "pfnCreateDevice"):
            return TracedDevice(self.inner.create_device(callbacks), callbacks)


class TracedDevice(DriverDevice):
    """A driver device whose every DDI entry point runs in the black box.

    ``flush_raises``: what ``pfnFlushDriverReportedMessages`` raised, as (flush ordinal, kind, text); ``flushes``:
    every flush call (:class:`FlushCall`); ``after_set_index``: called
    right after each ``pfnSetCommandListStateIndex`` returns (the concurrent workload's interleaving)."""

    def __init__(self, inner: DriverDevice, callbacks: CoreLayerCallbacks) -> None:
        self.inner = inner
        self.runtime_device: Device = callbacks.hRTDevice
        self.flush_raises: list[tuple[int, str, str]] = []
        self.flushes: list[FlushCall] = []
        self.after_set_index: Callable[[], None] | None = None

    def _call(self, site: str, where: str | None = None) -> Any:
        return context().box.call(site, where or site)

    def enable_extended_feature(self, feature: int, version: int) -> DeviceFuncs | None:
        with self._call(SITE_ENABLE):
            funcs = self.inner.enable_extended_feature(feature, version)
        if funcs is None:
            return None
        inner_flush, inner_set = funcs.pfnFlushDriverReportedMessages, funcs.pfnSetCommandListStateIndex

        def flush(hdevice: Any) -> None:
            kind = self.runtime_device._flush_kind or "flush"
            site = SITE_REMOVAL_FLUSH if kind == "device removal" else SITE_FLUSH
            me = threading.get_ident()
            entry = FlushCall(kind, time.perf_counter(), self.runtime_device.report_seconds(me), thread=me,
                              threads_before=process_threads() if site == SITE_REMOVAL_FLUSH else None)
            self.flushes.append(entry)
            try:
                with self._call(site, f"{SITE_FLUSH} ({kind})"):
                    inner_flush(hdevice)
            except DriverFault as fault:
                if fault.fault.hang:
                    raise
                self.flush_raises.append((len(self.flushes) - 1, kind, fault.fault.what))  # held: the flush returns
            finally:
                entry.end = time.perf_counter()
                entry.report_seconds = self.runtime_device.report_seconds(me) - entry.report_seconds

        def set_index(hcl: Any, index: int) -> None:
            with self._call(SITE_SET_INDEX):
                inner_set(hcl, index)
            hook = self.after_set_index
            if hook is not None:
                hook()

        return DeviceFuncs(flush, set_index)

    def create_command_queue(self, hqueue: DriverHandle) -> None:
        with self._call("CreateCommandQueue"):
            self.inner.create_command_queue(hqueue)

    def destroy_command_queue(self, hqueue: DriverHandle) -> None:
        with self._call("DestroyCommandQueue"):
            self.inner.destroy_command_queue(hqueue)

    def create_command_list(self, hcl: DriverHandle) -> None:
        with self._call("CreateCommandList"):
            self.inner.create_command_list(hcl)

    def command_list_work(self, hcl: DriverHandle, kind: str, payload: Mapping[str, Any]) -> None:
        with self._call("CommandListWork", f"CommandListWork ({kind})"):
            self.inner.command_list_work(hcl, kind, payload)

    def reset_command_list(self, hcl: DriverHandle) -> None:
        with self._call("ResetCommandList"):
            self.inner.reset_command_list(hcl)

    def destroy_command_list(self, hcl: DriverHandle) -> None:
        with self._call("DestroyCommandList"):
            self.inner.destroy_command_list(hcl)

    def execute_command_lists(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        with self._call("ExecuteCommandLists"):
            self.inner.execute_command_lists(hqueue, hcls)

    def gpu_execute(self, hqueue: DriverHandle, hcls: tuple[DriverHandle, ...]) -> None:
        with self._call("GpuExecute"):
            self.inner.gpu_execute(hqueue, hcls)

    def destroy_device(self) -> None:
        with self._call(SITE_DESTROY_DEVICE):
            self.inner.destroy_device()

    def removal_flush(self) -> FlushCall | None:
        """The device-removal flush call (None: not made)."""
        return next((f for f in self.flushes if f.kind == "device removal"), None)


@dataclass
class FlushCall:
    """One call of ``pfnFlushDriverReportedMessages``: its kind, when it started and ended (``perf_counter``; end None
    while it runs), and the time its thread spent inside ``pfnReportMessageCb`` meanwhile (the runtime's share)."""

    kind: str
    start: float
    report_seconds: float
    end: float | None = None
    #: the thread that made the call (``threading.get_ident()``)
    thread: int | None = None
    #: the device-removal flush: the process's threads (kernel ids) when it began, so a report made during it from a
    #: thread not among them comes from a thread the driver started in the flush
    threads_before: set[int] | None = None

    @property
    def driver_seconds(self) -> float | None:
        """The time the driver itself took: the call's, less the runtime's callbacks (None while it runs)."""
        return None if self.end is None else max(0.0, self.end - self.start - self.report_seconds)


def make_runtime(factory: DriverFactory, *, registry: RegistryOverlay | None = None) -> Runtime:
    """A runtime on the traced driver ``factory()`` makes ("At adapter init, the runtime queries the driver's
    supported extended features")."""
    with context().box.call(SITE_LOAD, SITE_LOAD):
        driver = factory()
    return Runtime(TracedDriver(driver), registry=registry)


class FeatureRefused(Exception):
    """The driver offers the feature, the runtime enabled it on a device, and pfnEnableExtendedFeature refused:
    nothing of the channel can be decided on that device (``advertised_version_supported`` fails it)."""


def make_device(factory: DriverFactory, *, debug: bool = True, toggle: bool = True,
                registry: RegistryOverlay | None = None, runtime: Runtime | None = None,
                expect_enabled: bool = True) -> Device:
    """A device of ``factory()``'s driver (or of ``runtime``), the debug layer and the toggle as given.  Raises
    :class:`FeatureRefused` when the runtime enabled the feature and the driver refused it (``expect_enabled``)."""
    rt = runtime or make_runtime(factory, registry=registry)
    if debug:
        rt.debug.enable_debug_layer()
    rt.debug.set_enable_driver_reported_messages(toggle)
    device = rt.create_device()
    context().devices.append(device)
    if expect_enabled and device.decision.requested and rt.negotiated_version() is not None \
            and not device.driver_reported_messages_enabled:
        raise FeatureRefused(f"pfnEnableExtendedFeature refused version {rt.negotiated_version()}, the one negotiated")
    return device


def traced(device: Device) -> TracedDevice:
    driver_device = device.driver_device
    assert isinstance(driver_device, TracedDevice)
    return driver_device


def run_watched(work: Callable[[], T], timeout_s: float = WORKLOAD_TIMEOUT_S) -> T:
    """``work()`` on a thread of its own, bounded: returns its result, re-raises its exception, or -- when it has not
    finished within ``timeout_s`` (or by the check's deadline) -- raises the hang as a :class:`DriverFault` at the
    DDI call the thread is stuck in."""
    done = threading.Event()
    result: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            result.append(work())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller
            errors.append(exc)
        done.set()

    worker = threading.Thread(target=run, daemon=True, name="d3d12wl-conformance-workload")
    worker.start()
    deadline = context().deadline
    if deadline is not None:
        timeout_s = max(0.05, min(timeout_s, deadline - time.monotonic() - 0.25))
    if not done.wait(timeout_s):
        site, where = context().box.in_progress(worker.ident) or (OUTSIDE, OUTSIDE)
        raise DriverFault(Fault(site, where, f"did not return within {timeout_s:.2g} s", hang=True))
    if errors:
        raise errors[0]
    return result[0]


def settle(seconds: float = GRACE_S) -> None:
    """The grace period: give a late report the time to arrive."""
    time.sleep(seconds)


def process_threads() -> set[int] | None:
    """The threads of this process (their kernel ids), from /proc/self/task; None where that cannot be read."""
    try:
        return {int(name) for name in os.listdir("/proc/self/task")}
    except (OSError, ValueError):
        return None


def settle_threads(baseline: set[int] | None, minimum: float = GRACE_S, maximum: float = GRACE_MAX_S) -> None:
    """The grace period after a device's destruction: ``minimum``, and then as long as a thread started since
    ``baseline`` (:func:`process_threads`) is still alive -- a driver's leftover thread may be about to report --
    up to ``maximum``.  A correct driver's threads are gone by then: the wait is ``minimum``."""
    time.sleep(minimum)
    if baseline is None:
        return
    deadline = time.monotonic() + maximum - minimum
    while time.monotonic() < deadline and (process_threads() or set()) - baseline:
        time.sleep(0.005)


