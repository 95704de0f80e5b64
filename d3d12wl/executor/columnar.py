"""The columnar engine of the executor: the same trace as the reference walk, in columns.

It runs the reference's call-level steps (:func:`~d3d12wl.executor.dispatch_list.run_dispatch_list`,
:func:`~d3d12wl.executor.execute_indirect.run_execute_indirect`) with walkers of its own for the records:

* :mod:`~d3d12wl.executor.list_walk`: a list's primary records in chunks of numpy gathers, a mask per check sending
  flagged records through the reference walk; the program-table slots its records select, each checked once
  (:mod:`~d3d12wl.executor.slot_groups`); what the reference does with a flagged slot's records, learned and then
  taken in columns (:mod:`~d3d12wl.executor.learned_skips`); the records no check flags as batches of columns
  (:mod:`~d3d12wl.executor.worklist_batch`);
* :mod:`~d3d12wl.executor.command_walk`: ExecuteIndirect's commands the same way;
* :mod:`~d3d12wl.executor.execution_table`: the trace's executions as a table, from every segment's groups.

Raytracing-class lists, calls with validation hooks (which write memory between steps) and calls under the
``zero_work_counter`` reading "skips" always take the reference walk.
"""

from __future__ import annotations

from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor.command_walk import walk_commands_columnar
from d3d12wl.executor.dispatch_list import run_dispatch_list
from d3d12wl.executor.execute_indirect import run_execute_indirect
from d3d12wl.executor.list_run import ValidationHooks
from d3d12wl.executor.list_walk import walk_primary_records_columnar
from d3d12wl.executor.trace import Limits, Readings, Trace
from d3d12wl.model.objects import ObjectSet
from d3d12wl.model.state import CommandListState, DeviceCaps, DispatchListCall, ExecuteIndirectCall

__all__ = ["run_columnar"]


def run_columnar(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                 call: DispatchListCall | ExecuteIndirectCall, limits: Limits | None = None,
                 hooks: ValidationHooks | None = None, readings: Readings | None = None) -> Trace:
    """Execute ``call`` with the columnar walks (the reference walk wherever validation hooks run, and under
    ``Readings.zero_work_counter`` "skips", whose counter depends on each execution's trigger)."""
    reference = readings is not None and readings.zero_work_counter == "skips"
    if isinstance(call, DispatchListCall):
        return run_dispatch_list(memory, device, objects, state, call, limits, hooks,
                                 walker=None if reference else walk_primary_records_columnar, readings=readings)
    return run_execute_indirect(memory, device, objects, state, call, limits,
                                walker=None if reference else walk_commands_columnar, readings=readings)
