"""The reference executor: ``DispatchList``, ``DispatchList1`` and ``ExecuteIndirect`` over raw GPU memory.

Feed it the bytes a GPU would read (a :class:`~d3d12wl.capture.memory.GpuMemory`), the objects, the command-list state
and the call; it returns a :class:`~d3d12wl.executor.trace.Trace`: every execution with every binding resolved and where
each value came from, every list header, the end-of-call reset, and findings where the bytes lead into undefined
behaviour.  Every read is a read the hardware would make, in the spec's order, through ``GpuMemory``; records are
interpreted only through :mod:`d3d12wl.records.layout`.

::

    trace = execute(capture)                                  # a d3d12wl.capture.file.Capture
    trace = run_dispatch_list(memory, device, objects, state, call, Limits(max_lists=16))
    trace = run_execute_indirect(memory, device, objects, state, ei_call)
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import ExecutionError
from d3d12wl.executor.dispatch_list import run_dispatch_list
from d3d12wl.executor.execute_indirect import run_execute_indirect
from d3d12wl.executor.list_run import ListRun, SignatureSelection, ValidationHooks, renamed
from d3d12wl.executor.trace import Limits, Readings, Trace
from d3d12wl.model.objects import ObjectSet
from d3d12wl.model.state import CommandListState, DeviceCaps, DispatchListCall, ExecuteIndirectCall

__all__ = ["ENGINES", "Limits", "ListRun", "Readings", "SignatureSelection", "Trace", "ValidationHooks", "execute", "run",
           "run_dispatch_list", "run_execute_indirect"]

if not TYPE_CHECKING:  # (so that a type checker flags the old names)

    def __getattr__(name: str) -> Any:
        """``Selection``, the old name of :class:`SignatureSelection` (:data:`~d3d12wl.executor.list_run.RENAMED`),
        with a ``DeprecationWarning``."""
        return renamed(__name__, name)


#: the ways to run a call: ``columnar`` (vectorized, the default; the reference walk wherever validation hooks run)
#: and ``reference`` (the per-record walker); both give the same trace
ENGINES = ("columnar", "reference")


def run(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
        call: DispatchListCall | ExecuteIndirectCall, limits: Limits | None = None,
        hooks: ValidationHooks | None = None, engine: str = "columnar", readings: Readings | None = None) -> Trace:
    """Execute ``call`` (DispatchList / DispatchList1 / ExecuteIndirect) against the given pieces.  ``engine``:
    one of :data:`ENGINES`; ``readings``: how the specs' two-way sentences are read (:class:`Readings`, default
    d3d12wl's; docs/spec-questions.md)."""
    if engine not in ENGINES:
        raise ExecutionError(f"unknown engine {engine!r}; expected one of {', '.join(ENGINES)}")
    if engine == "columnar" and isinstance(call, (DispatchListCall, ExecuteIndirectCall)):
        from d3d12wl.executor.columnar import run_columnar

        return run_columnar(memory, device, objects, state, call, limits, hooks, readings)
    if isinstance(call, DispatchListCall):
        return run_dispatch_list(memory, device, objects, state, call, limits, hooks, readings=readings)
    if isinstance(call, ExecuteIndirectCall):
        return run_execute_indirect(memory, device, objects, state, call, limits, readings=readings)
    raise ExecutionError(f"unknown call {type(call).__name__}; expected DispatchListCall or ExecuteIndirectCall")


def execute(capture: Any, limits: Limits | None = None, hooks: ValidationHooks | None = None,
            engine: str = "columnar", readings: Readings | None = None) -> Trace:
    """Execute the call of a :class:`d3d12wl.capture.file.Capture` (anything with ``memory``, ``device``,
    ``objects``, ``state`` and ``call``).  ``engine``: one of :data:`ENGINES`; ``readings``: see :func:`run`."""
    return run(capture.memory, capture.device, capture.objects, capture.state, capture.call, limits, hooks, engine,
               readings)
