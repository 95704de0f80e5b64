"""ExecuteIndirect in columns: the command walk in chunks, each chunk's commands checked (VA wrap, mapping,
limits, the per-command requirements) as arrays and copied in one gather, and the commands no check flags added to
the trace as a :class:`CommandBatch`; the reference walk (:func:`~d3d12wl.executor.execute_indirect.walk_command`)
takes every command a check stops at, which reports it."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from d3d12wl.capture.memory import VA_LIMIT
from d3d12wl.executor import arrays
from d3d12wl.executor.decode import decode_record
from d3d12wl.executor.execute_indirect import CommandPlan, build_command, walk_command
from d3d12wl.executor.execution_counts import ExecutionCounts, RecordCounts
from d3d12wl.executor.execution_table import ExecutionGroups, GroupValues, RecordBytes
from d3d12wl.executor.slot_groups import regions_of
from d3d12wl.executor.trace import Execution

__all__ = ["ChunkDone", "CommandBatch", "walk_commands_columnar"]

#: called by the walks after each chunk's records and executions are in the trace
ChunkDone = Callable[[], None]


@dataclass
class CommandBatch:
    """Commands ``first_command ..`` of one ExecuteIndirect call as columns: their bytes (``rows``), VAs
    ``ArgumentBuffer + k * ByteStride``."""

    plan: CommandPlan
    first_execution: int
    first_command: int
    rows: np.ndarray

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def nbytes(self) -> int:
        return self.rows.nbytes

    def va(self, i: int) -> int:
        return self.plan.call.ArgumentBuffer + (self.first_command + i) * self.plan.stride

    def columns(self, a: int = 0, b: int | None = None) -> dict[str, np.ndarray]:
        k = np.arange(a, len(self.rows) if b is None else b, dtype=np.int64)
        command = self.first_command + k
        return {"index": self.first_execution + k, "command_index": command, "invocation": command,
                "command_va": np.uint64(self.plan.call.ArgumentBuffer) + command.astype(np.uint64)
                * np.uint64(self.plan.stride)}

    def item(self, i: int) -> Execution:
        fields = decode_record(self.plan.layout, self.rows[i].tobytes())
        return build_command(self.plan, self.first_execution + i, self.first_command + i, self.va(i), fields)

    def items(self, start: int, stop: int) -> Iterator[Execution]:
        for i in range(start, stop):
            yield self.item(i)

    def counts(self, a: int, b: int) -> ExecutionCounts:
        """Commands ``a .. b - 1`` counted: one group (the first's), one execution per command."""
        if b <= a:
            return ExecutionCounts([], np.zeros(0, dtype=np.int64), [])
        return ExecutionCounts([self.item(a)], np.array([b - a], dtype=np.int64),
                               [RecordCounts(None, range(self.first_command + a, self.first_command + b))])

    def groups(self, a: int, b: int) -> ExecutionGroups:
        """Commands ``a .. b - 1`` as one group: the first's, each with its own indices, VA, bytes and counter."""
        cols = self.columns(a, b)
        first = self.item(a)
        values = GroupValues(b - a, records={"command": RecordBytes(self.plan.layout, lambda: self.rows[a:b],
                                                                     cols["command_va"])})
        if first.counter is not None:
            values.counter = cols["command_index"]
        return ExecutionGroups(b - a, np.zeros(b - a, dtype=np.int64), [first], tuple(cols),
                               lambda: {name: (v, False) for name, v in cols.items()}, lambda g, rows: values)


def _add_commands(plan: CommandPlan, batch: CommandBatch) -> None:
    """A run of commands the reference would execute without a finding, added to the trace as columns."""
    ctx = plan.ctx
    ctx.trace.executions.add_batch(batch)
    ctx.records_walked += len(batch)
    ctx.note_executions((plan.cls.value if plan.cls else "", None), len(batch), lambda: batch.item(0))


def walk_commands_columnar(plan: CommandPlan, on_chunk: ChunkDone | None = None) -> None:
    """The command walk in chunks: each chunk's commands checked (VA wrap, mapping, limits) as arrays and copied
    in one gather; the first command a check stops at takes the reference walk, which reports it.  The commands
    whose values break a per-command requirement (:meth:`CommandPlan.flagged`: the index buffer format, the root
    CBV address) take the reference walk too, which reports them and executes them as it does; the commands
    between them stay columns.  ``on_chunk``: called after each chunk's commands are in the trace."""
    ctx, trace = plan.ctx, plan.ctx.trace
    regions = regions_of(ctx)
    base, stride, size = plan.call.ArgumentBuffer, plan.stride, plan.layout.size
    first_wrap = 0 if base + size > VA_LIMIT else (VA_LIMIT - size - base) // stride + 1
    k = 0
    while k < plan.count:
        budget = min(ctx.limits.max_records - ctx.records_walked,
                     ctx.limits.max_executions - len(trace.executions))
        end = min(plan.count, k + arrays.CHUNK, first_wrap, k + max(budget, 0))
        rows = None
        if end > k:
            va0 = base + k * stride
            region = regions.region_of(va0, va0 + (end - k - 1) * stride + max(size, 1))
            if region >= 0:  # the whole chunk in one region: one strided copy
                rows = regions.strided(region, va0, end - k, stride, size).copy()
            else:
                vas = np.uint64(va0) + np.arange(end - k, dtype=np.uint64) * np.uint64(stride)
                ridx = regions.locate(vas, max(size, 1))
                bad = np.flatnonzero(ridx < 0)
                if len(bad):
                    end = k + int(bad[0])
                    vas, ridx = vas[: end - k], ridx[: end - k]
                rows = regions.gather(ridx, vas, size)
        if end > k and rows is not None:
            start = 0
            for f in plan.flagged(rows).tolist():  # the budget above covers every command of the chunk
                if f > start:
                    _add_commands(plan, CommandBatch(plan, len(trace.executions), k + start, rows[start:f]))
                if not walk_command(plan, k + f):
                    return
                start = f + 1
            if start < end - k:
                _add_commands(plan, CommandBatch(plan, len(trace.executions), k + start, rows[start:]))
            k = end
            if on_chunk is not None:
                on_chunk()
            continue
        if not walk_command(plan, k):  # the reference reports the wrap, fault or limit
            return
        k += 1
