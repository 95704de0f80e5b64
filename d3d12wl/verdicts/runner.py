"""Every file of a ``check`` judged in a process of its own, ``jobs`` at a time, each bounded in memory and time.

The processes are forked from this one after it has imported the executor (a capture costs a fork, not an
interpreter's start-up and imports), one per file: a capture that needs too much memory, never ends, or crashes
the process takes only its own process down, and its peak memory and CPU time are its own (``wait4``).

* Memory: the capture's process may map at most ``memory_mib`` MiB of address space (``RLIMIT_AS``); an
  allocation past it fails, and the capture is ``unusable``, its reason naming the flag that raises the bound.
* Time: a process still running ``timeout_s`` seconds after it started is killed, and the capture is
  ``unusable`` likewise.
* A process that dies of a signal (a crash), or exits without a result, is an ``internal-error`` of that file.

The result comes back pickled through a pipe (the object this module's own child made).  An interrupt (Ctrl-C)
kills every running process before it is raised again; a ``check`` that ends any other way (a ``SIGTERM`` from a CI
job's timeout, a ``SIGKILL``) takes its captures' processes with it: each asks the kernel for a ``SIGKILL`` when
the process that forked it ends (Linux's ``PR_SET_PDEATHSIG``), since their time bound is the parent's to keep.  Peak memory is the process's peak resident set: what it
shares with this process (the interpreter and the imported package, some 100 MiB) included.
"""

from __future__ import annotations

import ctypes
import gc
import math
import os
import pickle
import resource
import select
import signal
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from d3d12wl.verdicts.discover import Target
from d3d12wl.verdicts.judge import error_reason
from d3d12wl.verdicts.results import CaptureResult

__all__ = ["FLAGS", "MIN_MEMORY_MIB", "Bounds", "default_jobs", "default_memory_mib", "run_all"]

#: the ``check`` flag that sets each bound (named by the reason of a capture that reached it)
FLAGS = {"memory_mib": "--capture-memory", "timeout_s": "--capture-timeout"}
#: the least default memory bound of a capture's process (its address space: the interpreter, numpy and the
#: package map some 600 MiB before a capture is read)
MIN_MEMORY_MIB = 2048
#: the exit status of a capture's process that could not send its result
_NO_RESULT = 70
#: prctl(2)'s option that sets the signal a process gets when its parent ends (linux/prctl.h)
PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class Bounds:
    """The bounds of every capture's process: address space in MiB and wall-clock seconds (None: unbounded)."""

    memory_mib: int | None = None
    timeout_s: float | None = None


def default_jobs() -> int:
    """The CPUs this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # (not Linux)
        return max(1, os.cpu_count() or 1)


def default_memory_mib(jobs: int) -> int:
    """The machine's memory shared among ``jobs`` processes, at least :data:`MIN_MEMORY_MIB`."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return MIN_MEMORY_MIB
    return max(MIN_MEMORY_MIB, total // max(jobs, 1) >> 20)


def _die_with_parent(parent: int) -> None:
    """In a capture's process: be killed when ``parent`` (the process that forked it) ends, so that no capture runs
    on, unbounded, after ``check`` is gone (a no-op where the C library has no ``prctl``: not Linux)."""
    try:
        prctl = ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # (it ended before the request was made)
        os._exit(_NO_RESULT)


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


class _Child:
    """``work(target)`` running in a forked process, its result coming back through a pipe."""

    def __init__(self, index: int, target: Target, work: Callable[[Target], CaptureResult], bounds: Bounds) -> None:
        self.index, self.target, self.bounds = index, target, bounds
        self.chunks: list[bytes] = []
        sys.stdout.flush()
        sys.stderr.flush()
        read_end, write_end = os.pipe()
        self.started = time.monotonic()
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the child: judge, send, leave without running any of the parent's cleanup
            code = 0
            try:
                _die_with_parent(parent)
                os.close(read_end)
                signal.signal(signal.SIGINT, signal.SIG_DFL)  # (Ctrl-C: the parent reports, the child just ends)
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
                if bounds.memory_mib is not None:
                    limit = bounds.memory_mib << 20
                    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
                data = pickle.dumps(_judged(target, work, bounds))
                with os.fdopen(write_end, "wb") as out:
                    out.write(data)
            except BaseException:  # noqa: BLE001 - the parent reports a child that sent nothing
                code = _NO_RESULT
            os._exit(code)
        os.close(write_end)
        self.fd = read_end
        self.deadline = None if bounds.timeout_s is None else self.started + bounds.timeout_s

    def read(self) -> bool:
        """Take what the pipe has; True at its end (the child is done)."""
        chunk = os.read(self.fd, 1 << 16)
        if chunk:
            self.chunks.append(chunk)
        return not chunk

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(self.fd)
        os.waitpid(self.pid, 0)

    def finish(self, *, timed_out: bool) -> CaptureResult:
        """Reap the child: its result, or the result of how it ended."""
        if timed_out:
            os.kill(self.pid, signal.SIGKILL)
        os.close(self.fd)
        _, status, usage = os.wait4(self.pid, 0)
        wall = time.monotonic() - self.started
        path = self.target.path
        if not timed_out and os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0 and self.chunks:
            result: CaptureResult = pickle.loads(b"".join(self.chunks))  # noqa: S301 - our own child's object
        elif timed_out:
            result = CaptureResult(path, "unusable", {
                "kind": "LimitError", "message": f"not judged within {self.bounds.timeout_s:g} s, the time a capture "
                f"may take (its process was killed; raise it with {FLAGS['timeout_s']})",
                "where": FLAGS["timeout_s"], "rule": None})
        elif os.WIFSIGNALED(status):
            result = CaptureResult(path, "internal-error", {
                "kind": "InternalError", "message": f"the capture's process was killed by "
                f"{_signal_name(os.WTERMSIG(status))}; please report it ('d3d12wl exec {path} --debug' runs it "
                "alone)", "where": None, "rule": None})
        else:
            result = CaptureResult(path, "internal-error", {
                "kind": "InternalError", "message": f"the capture's process ended (status {os.WEXITSTATUS(status)}) "
                "without a result; please report it", "where": None, "rule": None})
        result.time_s = wall
        result.cpu_s = usage.ru_utime + usage.ru_stime
        result.peak_mib = usage.ru_maxrss / 1024  # (KiB on Linux)
        return result


def _judged(target: Target, work: Callable[[Target], CaptureResult], bounds: Bounds) -> CaptureResult:
    """``work(target)``, an exception it raises made the file's result (in the child)."""
    try:
        return work(target)
    except MemoryError:
        return CaptureResult(target.path, "unusable", {
            "kind": "LimitError", "message": f"needs more memory than the {bounds.memory_mib:,} MiB of address space "
            f"a capture may take (raise it with {FLAGS['memory_mib']})", "where": FLAGS["memory_mib"],
            "rule": None})
    except RecursionError as exc:
        return CaptureResult(target.path, "internal-error", error_reason(exc))
    except Exception as exc:  # noqa: BLE001 - any other failure is d3d12wl's, reported for this file alone
        return CaptureResult(target.path, "internal-error", error_reason(exc))


def _readable(children: Sequence[_Child], wait: float | None) -> set[int]:
    """The pipes of ``children`` that can be read (or have ended), waiting at most ``wait`` seconds (None: until
    one can).  poll(2), not select(2): a descriptor numbered 1024 or more (--jobs in the thousands, or a process
    that holds many files) is one select cannot wait on."""
    poller = select.poll()
    for child in children:
        poller.register(child.fd, select.POLLIN)
    timeout = None if wait is None else math.ceil(wait * 1000)
    return {fd for fd, _ in poller.poll(timeout)}


def run_all(targets: Sequence[Target], work: Callable[[Target], CaptureResult], *, jobs: int, bounds: Bounds,
            done: Callable[[CaptureResult], None] | None = None) -> list[CaptureResult]:
    """``work`` of every target in a process of its own, ``jobs`` at a time; the results in the targets' order.
    ``done`` is called with each result as it comes."""
    results: list[CaptureResult | None] = [None] * len(targets)
    waiting = deque(enumerate(targets))
    running: list[_Child] = []
    gc.collect()
    gc.freeze()  # (the children then leave the parent's objects unwritten: fewer pages copied per fork)
    try:
        while waiting or running:
            while waiting and len(running) < max(1, jobs):
                index, target = waiting.popleft()
                running.append(_Child(index, target, work, bounds))
            deadlines = [c.deadline for c in running if c.deadline is not None]
            wait = max(0.0, min(deadlines) - time.monotonic()) if deadlines else None
            ready = _readable(running, wait)
            now = time.monotonic()
            for child in list(running):
                ended = child.fd in ready and child.read()
                if ended or (child.deadline is not None and now >= child.deadline):
                    running.remove(child)
                    result = child.finish(timed_out=not ended)
                    results[child.index] = result
                    if done is not None:
                        done(result)
    except BaseException:
        for child in running:
            child.kill()
        raise
    finally:
        gc.unfreeze()
    return [r for r in results if r is not None]
