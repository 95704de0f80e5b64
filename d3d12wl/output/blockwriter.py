"""Large outputs made in blocks on several threads and written in order on one more: the bytes are exactly those
of making and writing every block in turn on the caller's thread.

A :class:`BlockWriter` is a ``write(data)`` callable (bytes that are ready, written in turn) with one more method,
:meth:`~BlockWriter.block`: a function that makes a block of bytes into a :class:`~d3d12wl.output.textrows.RowBuffer`
(the C kernel ``d3d12wl_format_rows``, which lets go of the GIL), run on a worker thread while the caller goes
on making the next ones.  One writer thread takes the blocks in the order they were given, waits for each, and
writes it: the write system calls (a pipe that is slow to drain, a file's page cache) overlap the making too.

Memory is bounded: at most ``ahead`` blocks (default: one per worker and two more) are made or waiting (each a
buffer of its own, reused once written);
the caller waits for a buffer when all are taken.  Ready bytes are gathered to :data:`GATHER` bytes before they
join the queue.  A regular file's pages are left to the kernel's write-back: nothing waits for the disk
(:mod:`d3d12wl.output.outfiles` says why the commit does not sync).

The writer thread writes on a duplicate of ``out``'s descriptor of its own (``os.write``, no lock of ``out``'s
held), so that an interrupt is never held up by a destination that does not drain: a FIFO or a pipe whose
reader stopped reading (``| less``, paused) would block that write for as long as the reader waits.

An error of a worker (a bug) or of the writer (a full disk, a closed pipe; named as ``out``'s own writes name it,
:func:`d3d12wl.output.outfiles.write_failure`) stops the writing and is raised in the caller's thread at its next call,
or by :meth:`~BlockWriter.close`; an exception of the caller (an interrupt) makes :meth:`~BlockWriter.close`
cancel the blocks not yet made, write nothing more and join the threads before it goes on (a staged file is then
discarded whole by its owner).  The writer thread is waited for at most :data:`ABORT_WAIT` seconds: one blocked
in a write that does not return is left to end by itself as the write returns (writing nothing more, closing its
descriptor), a daemon that holds no lock the caller needs.

With ``workers=0`` (one CPU) nothing is threaded: every block is made and written on the caller's thread.
"""

from __future__ import annotations

import io
import os
import queue
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import ThreadPoolExecutor
from types import TracebackType
from typing import IO, Any

import numpy as np

from d3d12wl.output.outfiles import write_failure
from d3d12wl.output.textrows import RowBuffer, RowFormatter

__all__ = ["ABORT_WAIT", "BLOCK", "GATHER", "BlockWriter", "Make", "default_workers", "write_block", "write_rows"]

#: a function making a block into the buffer it is given (None: a buffer of the maker's own, valid until its next
#: call); it returns the block's bytes (a view of the buffer)
Make = Callable[["RowBuffer | None"], Any]
#: ready bytes gathered before they are queued for the writer thread
GATHER = 1 << 16
#: the most worker threads (the kernel's blocks are written faster than a pipe or a page cache takes them beyond)
MAX_WORKERS = 8
#: seconds an aborted writer waits for the writer thread's write in progress (a regular file's ends in far less)
ABORT_WAIT = 0.25
_DONE = object()


def default_workers() -> int:
    """Worker threads for this process: one per CPU it may run on, at most :data:`MAX_WORKERS`, none on one CPU
    (the caller mostly waits for the workers: on two CPUs two workers make the blocks fastest)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return min(MAX_WORKERS, cpus) if cpus > 1 else 0


class BlockWriter:
    """``write(data)`` and ``block(make)``, written in the order they were called, by ``write`` (the destination's,
    called on the writer thread) or, when ``out`` (the file ``write`` writes) has a descriptor, on the writer
    thread's own duplicate of it (the same bytes at the same place).
    Use it as a context manager (or call :meth:`close`)."""

    def __init__(self, write: Callable[[Any], Any], *, workers: int | None = None, ahead: int | None = None,
                 out: IO[Any] | None = None) -> None:
        self._write = write
        self.workers = default_workers() if workers is None else workers
        self._failed: list[BaseException] = []
        self._gathered = bytearray()
        if not self.workers:
            return
        self._own = _own_descriptor(out)
        if self._own is not None:
            self._out: Any = out
            self._write = self._write_own
        self._free: queue.Queue[RowBuffer] = queue.Queue()
        for _ in range(ahead or self.workers + 2):
            self._free.put(RowBuffer())
        self._pending: queue.Queue[Any] = queue.Queue()  # (bounded by the buffers and by GATHER)
        self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="d3d12wl-rows")
        self._stop = False
        self._thread = threading.Thread(target=self._drain, name="d3d12wl-writer", daemon=True)
        self._thread.start()

    # -- the caller's side ---------------------------------------------------------------------------------------

    def __call__(self, data: Any) -> None:
        """Write ``data`` (bytes-like; copied: the caller may reuse its buffer) after everything given so far."""
        self._check()
        if not self.workers:
            self._write(data)
            return
        self._gathered += data
        if len(self._gathered) >= GATHER:
            self._flush_gathered()

    def block(self, make: Make) -> None:
        """Write what ``make(buffer)`` returns after everything given so far; ``make`` runs on a worker thread."""
        self._check()
        if not self.workers:
            self._write(make(None))
            return
        self._flush_gathered()
        while True:  # (a buffer comes back as soon as the writer wrote it, or as soon as it failed)
            try:
                buffer = self._free.get(timeout=0.1)
                break
            except queue.Empty:
                self._check()
        self._pending.put((self._pool.submit(make, buffer), buffer))

    def close(self) -> None:
        """Write what is left, join the threads, and raise the first error of a worker or of the writer."""
        if self.workers and self._thread.is_alive():
            try:
                self._flush_gathered()
                self._pending.put(_DONE)
                self._thread.join()
                self._pool.shutdown()
            except BaseException:  # an interrupt while the rest is written: write nothing more
                self.abort()
                raise
        self._check()

    def abort(self) -> None:
        """Write nothing more: cancel the blocks not yet made, let those being made finish, join the threads."""
        if not self.workers:
            return
        self._stop = True
        if self._thread.is_alive():
            self._pending.put(_DONE)
        self._pool.shutdown(cancel_futures=True)
        self._thread.join(ABORT_WAIT)

    def __enter__(self) -> BlockWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        if kind is None:
            self.close()
        else:
            self.abort()

    def _check(self) -> None:
        if self._failed:
            raise self._failed[0]

    def _flush_gathered(self) -> None:
        if self._gathered:
            self._pending.put(bytes(self._gathered))
            self._gathered.clear()

    # -- the writer thread ---------------------------------------------------------------------------------------

    def _drain(self) -> None:
        try:
            self._drain_pending()
        finally:
            if self._own is not None:
                os.close(self._own)

    def _write_own(self, data: Any) -> None:
        """``data`` written whole on the writer's own descriptor (what ``out.write`` would write; its failure is
        the error ``out``'s own write would raise), stopping between two partial writes once aborted."""
        assert self._own is not None
        view = memoryview(data).cast("B")
        while len(view) and not self._stop:
            try:
                n = os.write(self._own, view)
            except OSError as exc:
                raise write_failure(self._out, exc) from None
            view = view[n:]

    def _drain_pending(self) -> None:
        while (item := self._pending.get()) is not _DONE:
            future, buffer = item if isinstance(item, tuple) else (None, None)
            try:
                if self._failed or self._stop:
                    continue  # (drained only: the caller is told at its next call)
                self._write(item if future is None else future.result())
            except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
                self._failed.append(exc)
            finally:
                if buffer is not None:
                    self._free.put(buffer)


#: bytes one formatter call writes at most (rows are written in blocks of this size)
BLOCK = 4 << 20


def write_rows(formatter: RowFormatter, columns: Mapping[str, np.ndarray], n: int, which: np.ndarray | None,
               write: Callable[[Any], Any], masks: Mapping[str, np.ndarray] | None = None, *, skip: int = 0) -> None:
    """Rows ``0 .. n - 1`` of ``formatter``'s templates (``which``: each row's template) in blocks of about
    :data:`BLOCK` bytes, each prepared here and made on a worker thread where ``write`` is a :class:`BlockWriter`
    (:func:`write_block`); ``skip`` bytes dropped from the first (a separator)."""
    step = max(1, BLOCK // max(int(formatter.max_bytes.max()), 1))
    if n > step:  # (converted once, then sliced: a block's columns are views)
        columns = formatter.kernel_columns(columns, n)
    for lo in range(0, n, step):
        hi = min(n, lo + step)
        write_block(write, formatter.prepare(
            {k: columns[k][lo:hi] for k in formatter.columns}, hi - lo, None if which is None else which[lo:hi],
            None if masks is None else {k: masks[k][lo:hi] for k in formatter.masks}, skip=skip if lo == 0 else 0).make)


def write_block(write: Callable[[Any], Any], make: Make) -> None:
    """``make``'s block written by ``write``: on a worker thread of a :class:`BlockWriter` (or of a writer that
    has a ``block`` method too), else made and written now."""
    block = getattr(write, "block", None)
    if block is not None:
        block(make)
    else:
        write(make(None))


def _own_descriptor(out: IO[Any] | None) -> int | None:
    """A duplicate of ``out``'s descriptor (what it buffered flushed first), for the writer thread to write on; None
    when ``out`` has none (an in-memory file), which the thread then writes through its own ``write``."""
    if out is None:
        return None
    try:
        fd = out.fileno()
        out.flush()
        return os.dup(fd)
    except (AttributeError, OSError, ValueError, io.UnsupportedOperation):
        return None
