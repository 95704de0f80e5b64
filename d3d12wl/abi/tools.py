"""The compilers and disassemblers d3d12wl runs (clang, the host C compiler, glslc, spirv-dis), each run bounded.

What a compiler is given can make it take any amount of memory and time: a macro that doubles itself 30 times is
800 bytes of header and gigabytes of tokens, a file that includes itself without a guard never ends in glslc.  So
every run is bounded by :class:`ToolLimits`:

* ``memory_mib``: the address space of the tool's process (``RLIMIT_AS``; default 2,048 MiB: clang checking
  ``d3d12.h`` stays under 200 MiB of it);
* ``cpu_seconds``: its CPU time (``RLIMIT_CPU``; default 60 s: clang checks ``d3d12.h`` in about 1 s), and five
  times that of wall-clock time, for a loaded machine;
* ``output_mib``: the largest file it may write (``RLIMIT_FSIZE``, default 1,024 MiB), and no core file;
* ``include_depth`` and ``source_bytes``: how deep the sources handed to it may include each other and how many
  bytes they may total, checked before it starts (:mod:`d3d12wl.headercheck.sources`), and (times
  :data:`AST_BYTES_PER_SOURCE_BYTE`) how much JSON AST the header check reads back from clang.

Reaching a limit is an :class:`~d3d12wl.errors.ABIError` (exit 2) naming the tool, the limit and the
``d3d12wl abi check`` flag that raises it (:data:`FLAGS`).  The limits in force are those of :func:`limited`
(a context manager) or the defaults; ``abi check --tool-memory/--tool-cpu/--include-depth/--source-bytes`` set
them for one run.  Standard input is never the terminal's (a header cannot make a compiler wait), and clang's
crash reproducers (files it leaves in the temporary folder) are off.
"""

from __future__ import annotations

import contextlib
import os
import re
import resource
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from d3d12wl.errors import ABIError

__all__ = ["AST_BYTES_PER_SOURCE_BYTE", "DEFAULT_LIMITS", "FLAGS", "ToolLimits", "ToolRun", "current_limits",
           "limited", "run_tool", "spawn"]


@dataclass(frozen=True)
class ToolLimits:
    """The bounds of every compiler and disassembler run (see the module docstring)."""

    memory_mib: int = 2048
    cpu_seconds: int = 60
    output_mib: int = 1024
    include_depth: int = 64
    source_bytes: int = 8 << 20

    def __post_init__(self) -> None:
        for name in ("memory_mib", "cpu_seconds", "output_mib", "include_depth", "source_bytes"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ABIError(f"{name} must be a positive integer, got {value!r}", where=FLAGS.get(name, name))

    @property
    def wall_seconds(self) -> int:
        """Wall-clock time a run may take: five times its CPU time (a loaded machine is slow, not hostile)."""
        return 5 * self.cpu_seconds

    @property
    def ast_bytes(self) -> int:
        """Bytes of JSON AST the header check reads back from clang."""
        return AST_BYTES_PER_SOURCE_BYTE * self.source_bytes


#: the flag of ``d3d12wl abi check`` that sets each limit
FLAGS = {"memory_mib": "--tool-memory", "cpu_seconds": "--tool-cpu", "include_depth": "--include-depth",
         "source_bytes": "--source-bytes", "output_mib": "--tool-output"}
#: clang's JSON AST (indentation dropped) per byte of source: 9 for d3d12.h (12.8 MiB from 1.5 MB), 17 for a
#: struct of 100,000 fields; the header check reads back at most this many times ``source_bytes``
AST_BYTES_PER_SOURCE_BYTE = 16
DEFAULT_LIMITS = ToolLimits()
_LIMITS: ContextVar[ToolLimits] = ContextVar("d3d12wl_tool_limits", default=DEFAULT_LIMITS)


def current_limits() -> ToolLimits:
    """The limits runs get now (those of the innermost :func:`limited`, else :data:`DEFAULT_LIMITS`)."""
    return _LIMITS.get()


@contextlib.contextmanager
def limited(limits: ToolLimits | None) -> Iterator[ToolLimits]:
    """Every tool run inside the block gets ``limits`` (None: those already in force)."""
    if limits is None:
        yield current_limits()
        return
    token = _LIMITS.set(limits)
    try:
        yield limits
    finally:
        _LIMITS.reset(token)


def _preexec(limits: ToolLimits) -> None:  # runs in the child between fork and exec: no Python objects made
    memory = limits.memory_mib << 20
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 5))
    size = limits.output_mib << 20
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _name(cmd: list[str]) -> str:
    return Path(cmd[0]).name


#: what a tool prints when an allocation failed (LLVM, the C++ runtime, glibc)
_OUT_OF_MEMORY = re.compile(r"out of memory|bad_alloc|Cannot allocate memory|Allocation failed|MemoryError|virtual memory "
                            r"exhausted", re.I)


class ToolRun:
    """One bounded run: :func:`spawn` starts it, :meth:`finish` waits for it (reaping it itself, so that its
    resource usage is known) and turns a limit it reached into an :class:`ABIError`."""

    def __init__(self, cmd: list[str], cwd: Path, stdout: IO[bytes] | int, stderr: IO[bytes],
                 where: str | None = None) -> None:
        self.cmd, self.limits, self.stderr = cmd, current_limits(), stderr
        self.where = where or " ".join([_name(cmd), *cmd[-1:]])
        limits = self.limits
        try:
            self.proc = subprocess.Popen(cmd, cwd=cwd, stdout=stdout, stderr=stderr, stdin=subprocess.DEVNULL,
                                         preexec_fn=lambda: _preexec(limits))
        except OSError as exc:  # the tool named by an environment variable is missing, a folder, not executable
            raise ABIError(f"cannot run {cmd[0]!r}: {exc.strerror or exc}", where=cmd[0]) from None
        self._done: list[tuple[int, int, resource.struct_rusage]] = []
        self._waiter = threading.Thread(target=self._wait, name=f"d3d12wl-wait-{_name(cmd)}", daemon=True)
        self._waiter.start()
        #: when the run's wall-clock limit is reached (time.monotonic)
        self.deadline = time.monotonic() + self.limits.wall_seconds
        self.killed = False
        self.maxrss_mib = 0.0
        self.cpu_seconds = 0.0

    def _wait(self) -> None:
        self._done.append(os.wait4(self.proc.pid, 0))

    def kill(self) -> None:
        """Stop the run if it is still going (a signal by pid: only this run's waiter reaps the process, so the
        pid is still its own)."""
        if not self._done:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGKILL)
                self.killed = True

    def wall_clock_error(self) -> ABIError:
        return ABIError(f"{_name(self.cmd)} did not finish in {self.limits.wall_seconds} s of wall-clock time (five "
                        f"times the CPU limit; raise it with {FLAGS['cpu_seconds']} SECONDS)", where=self.where)

    def finish(self) -> int:
        """The exit status (negative: the signal), after the run ended; a limit reached raises."""
        self._waiter.join(max(0.0, self.deadline - time.monotonic()))
        if self._waiter.is_alive() or self.killed:  # (killed: at the wall-clock limit, by a reader of its output)
            self.kill()
            self._waiter.join()
            raise self.wall_clock_error()
        _, status, usage = self._done[0]
        code = os.waitstatus_to_exitcode(status)
        self.proc.returncode = code  # reaped here: Popen must not wait for it again
        self.maxrss_mib = usage.ru_maxrss / 1024
        self.cpu_seconds = usage.ru_utime + usage.ru_stime
        if code == 0:
            return code
        tool, limits, where = _name(self.cmd), self.limits, self.where
        if code == -signal.SIGXCPU or (code == -signal.SIGKILL and self.cpu_seconds >= limits.cpu_seconds - 1):
            raise ABIError(f"{tool} reached its CPU-time limit of {limits.cpu_seconds} s (a header or macro that "
                           f"expands without end?); raise it with {FLAGS['cpu_seconds']} SECONDS",
                           where=where)
        if code == -signal.SIGXFSZ:
            raise ABIError(f"{tool} reached its output-file limit of {limits.output_mib} MiB; raise it with "
                           f"{FLAGS['output_mib']} MIB", where=where)
        if _OUT_OF_MEMORY.search(_tail(self.stderr)) or self.maxrss_mib * 2 >= limits.memory_mib:
            raise ABIError(f"{tool} reached its address-space limit of {limits.memory_mib} MiB (a macro that "
                           f"expands without end?); raise it with {FLAGS['memory_mib']} MIB", where=where)
        return code


def spawn(cmd: list[str], cwd: Path, *, stdout: IO[bytes] | int, stderr: IO[bytes], where: str | None = None
          ) -> ToolRun:
    """Start ``cmd`` under the limits in force (for a caller that streams its output; :func:`run_tool` otherwise).
    ``stderr`` is a file (a limit's diagnosis reads its end); ``where`` is what an error names (default: the tool
    and its last argument)."""
    return ToolRun(cmd, cwd, stdout, stderr, where)


#: the most bytes of a tool's standard output or error kept (diagnostics of a hostile header can be gigabytes)
OUTPUT_KEPT = 64 << 20


def _read(f: IO[bytes]) -> str:
    f.seek(0)
    return f.read(OUTPUT_KEPT).decode("utf-8", "replace")


def run_tool(cmd: list[str], cwd: Path, *, where: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run a compiler or disassembler under the limits in force: its output captured (at most
    :data:`OUTPUT_KEPT` bytes of each stream), no standard input.  A limit reached raises :class:`ABIError` naming
    the tool, the limit and its flag; any other failure is the caller's to read from the return code and stderr."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        run = spawn(cmd, cwd, stdout=out, stderr=err, where=where)
        try:
            code = run.finish()
        finally:
            run.kill()
        return subprocess.CompletedProcess(cmd, code, _read(out), _read(err))


def _tail(err: IO[bytes]) -> str:
    """The end of what the tool wrote to standard error."""
    try:
        size = os.fstat(err.fileno()).st_size
        return os.pread(err.fileno(), 20000, max(0, size - 20000)).decode("utf-8", "replace")
    except OSError:
        return ""
