"""What a call executed, counted: executions per program, per list, per executable class, per dispatch trigger, and
per range of primary records (of ExecuteIndirect commands), for the report page's charts.

The counts are exact and never made from one Python object per execution.  The trace's executions are segments
(:class:`~d3d12wl.executor.trace.LazyList`), each counted the cheapest way it allows:

* a run of work-list records in columns (:class:`~d3d12wl.executor.worklist_batch.WorkListBatch`) per record: every
  execution of a record's group resolves like the group's first (``group_first``: its program, class and trigger),
  and ``exec_off`` says how many executions each record drove, so a 10 M-draw frame is counted over its 2.5 M
  records with ``bincount`` and a dozen objects;
* a run of ExecuteIndirect commands in columns (:class:`~d3d12wl.executor.command_walk.CommandBatch`): its commands
  are consecutive, each one execution, all of one command signature (its first says the class and trigger);
* anything else through the trace's execution table (:func:`~d3d12wl.executor.execution_table.execution_runs`, the runs
  the streamed writers read), or its objects where the reference walk made them.

What the counts hold is bounded whatever the frame: a range chart keeps at most :data:`FINE_BUCKETS` buckets (their
width doubles as the indices grow), and ranges are counted for the first :data:`RANGE_LISTS` lists of a chain.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from d3d12wl.executor.command_walk import CommandBatch
from d3d12wl.executor.execution_table import ExecutionRun, execution_runs
from d3d12wl.executor.trace import Execution, LazyList, Trace
from d3d12wl.executor.worklist_batch import WorkListBatch

__all__ = ["FINE_BUCKETS", "RANGE_LISTS", "Bar", "RangeCounts", "Tally", "tally"]

#: the buckets a range count keeps (a power of two); its charts merge them into fewer bars
FINE_BUCKETS = 1024
#: the lists of a chain whose primary records are counted by range (the first ones); every list is counted whole
RANGE_LISTS = 8
#: a name for executions without one (ExecuteIndirect commands have no program)
NONE = "(none)"


@dataclass(frozen=True)
class Bar:
    """One bar of a range chart: records ``first`` .. ``last`` and the executions they drove."""

    first: int
    last: int
    count: int


@dataclass
class RangeCounts:
    """Executions per range of record indices: the primary records of list ``list_index``, or (``list_index``
    None) an ExecuteIndirect call's commands.  Bucket ``b`` counts the executions of records ``b * width`` ..
    ``(b + 1) * width - 1``; ``width`` doubles whenever an index would fall past :data:`FINE_BUCKETS` buckets."""

    list_index: int | None
    width: int = 1
    counts: np.ndarray = field(default_factory=lambda: np.zeros(FINE_BUCKETS, dtype=np.int64))
    #: the highest record index counted (-1: none)
    last: int = -1

    @property
    def record(self) -> str:
        return "command" if self.list_index is None else "primary record"

    def extend(self, last: int) -> None:
        """Cover records 0 .. ``last`` (records that drove no execution are counted as 0)."""
        while last >= self.width * FINE_BUCKETS:
            self.counts = self.counts.reshape(-1, 2).sum(axis=1)
            self.counts = np.concatenate([self.counts, np.zeros(FINE_BUCKETS - len(self.counts), dtype=np.int64)])
            self.width *= 2
        self.last = max(self.last, last)

    def add(self, indices: np.ndarray, weights: np.ndarray | None = None) -> None:
        """Count an execution at each of ``indices`` (``weights``: that many at each)."""
        if not len(indices):
            return
        self.extend(int(indices.max()))
        got = np.bincount(indices // self.width, weights=weights, minlength=FINE_BUCKETS)
        self.counts += got.astype(np.int64) if weights is not None else got

    def add_span(self, first: int, n: int) -> None:
        """Count one execution at each of indices ``first`` .. ``first + n - 1``."""
        if n <= 0:
            return
        self.extend(first + n - 1)
        b0, b1 = first // self.width, (first + n - 1) // self.width
        edges = np.clip(np.arange(b0, b1 + 2, dtype=np.int64) * self.width, first, first + n)
        self.counts[b0:b1 + 1] += np.diff(edges)

    def bars(self, most: int) -> list[Bar]:
        """At most ``most`` bars of equal width covering records 0 .. :attr:`last`."""
        if self.last < 0:
            return []
        used = self.last // self.width + 1
        per = max(1, -(-used // most))  # buckets per bar
        out = []
        for b in range(0, used, per):
            first = b * self.width
            out.append(Bar(first, min((b + per) * self.width, self.last + 1) - 1, int(self.counts[b:b + per].sum())))
        return out


@dataclass
class Tally:
    """The counts of one trace (see the module docstring).  The dicts are in first-seen order."""

    executions: int = 0
    by_program: dict[str, int] = field(default_factory=dict)
    by_class: dict[str, int] = field(default_factory=dict)
    by_trigger: dict[str, int] = field(default_factory=dict)
    by_list: dict[int, int] = field(default_factory=dict)
    ranges: dict[int | None, RangeCounts] = field(default_factory=dict)
    #: lists whose ranges were not counted (after the first :data:`RANGE_LISTS`)
    lists_not_ranged: int = 0


def _add(into: dict[str, int], codes: np.ndarray, names: list[str]) -> None:
    counts = np.bincount(codes + 1, minlength=len(names) + 1)  # (code -1: absent)
    for code in np.flatnonzero(counts):
        name = NONE if code == 0 else names[code - 1]
        into[name] = into.get(name, 0) + int(counts[code])


def _add_keys(into: dict[str, int], keys: Iterable[str | None]) -> None:
    for key in keys:
        name = NONE if key is None else key
        into[name] = into.get(name, 0) + 1


class _Counter:
    def __init__(self, trace: Trace) -> None:
        self.out = Tally()
        self.ei = trace.call == "ExecuteIndirect"
        # the ranges cover every record walked, executions or not (a chart marks the findings of records that
        # drove none)
        if self.ei:
            ranges = self.out.ranges[None] = RangeCounts(None)
            walked = trace.call_args.get("command_count")
            if isinstance(walked, int) and walked > 0:
                ranges.extend(walked - 1)
        for lst in trace.lists[:RANGE_LISTS]:
            ranges = self.out.ranges[lst.index] = RangeCounts(lst.index)
            if len(lst.primary_records):
                ranges.extend(len(lst.primary_records) - 1)

    def ranged(self, list_index: int | None) -> RangeCounts | None:
        return self.out.ranges.get(list_index)

    def lists(self, list_index: np.ndarray, primary: np.ndarray) -> None:
        if not len(list_index):
            return
        lo, hi = int(list_index.min()), int(list_index.max())
        counts = np.bincount(list_index - lo) if hi > lo else np.array([len(list_index)])
        for k in np.flatnonzero(counts):
            n = self.out.by_list.get(lo + int(k), 0)
            self.out.by_list[lo + int(k)] = n + int(counts[k])
            ranges = self.ranged(lo + int(k))
            if ranges is not None:
                ranges.add(primary if hi == lo else primary[list_index == lo + k])

    def named(self, into: dict[str, int], name: str | None, n: int) -> None:
        key = NONE if name is None else name
        into[key] = into.get(key, 0) + n

    def work_list_batch(self, batch: WorkListBatch) -> None:
        """A batch's executions, record by record (see the module docstring)."""
        per_record = np.diff(batch.exec_off)
        per_group = np.bincount(batch.gid, weights=per_record).astype(np.int64)
        list_index = None
        for g in np.flatnonzero(per_group):
            first = batch.group_first(int(g))
            n = int(per_group[g])
            self.named(self.out.by_program, first.program, n)
            self.named(self.out.by_class, first.executable_class, n)
            self.named(self.out.by_trigger, first.trigger.type, n)
            list_index = first.list_index
        if list_index is None:
            return
        total = int(per_record.sum())
        self.out.by_list[list_index] = self.out.by_list.get(list_index, 0) + total
        ranges = self.ranged(list_index)
        if ranges is not None:
            ranges.add(batch.primary_index, per_record)

    def command_batch(self, batch: CommandBatch) -> None:
        """Consecutive commands of one command signature, one execution each."""
        first = batch.item(0)
        n = len(batch)
        self.named(self.out.by_program, first.program, n)
        self.named(self.out.by_class, first.executable_class, n)
        self.named(self.out.by_trigger, first.trigger.type, n)
        ranges = self.ranged(None)
        assert ranges is not None
        ranges.add_span(batch.first_command, n)

    def table(self, run: ExecutionRun) -> None:
        assert run.table is not None
        table = run.table
        c = table.columns
        for key, into in (("program", self.out.by_program), ("executable_class", self.out.by_class),
                          ("trigger", self.out.by_trigger)):
            _add(into, c[key], table.names[key])
        if self.ei:
            ranges = self.ranged(None)
            assert ranges is not None
            ranges.add(c["command_index"])
        else:
            self.lists(c["list_index"], c["primary_index"])

    def objects(self, executions: list[Execution]) -> None:
        _add_keys(self.out.by_program, (e.program for e in executions))
        _add_keys(self.out.by_class, (e.executable_class for e in executions))
        _add_keys(self.out.by_trigger, (e.trigger.type for e in executions))
        if self.ei:
            ranges = self.ranged(None)
            assert ranges is not None
            ranges.add(np.array([e.command_index or 0 for e in executions], dtype=np.int64))
        else:
            self.lists(np.array([e.list_index or 0 for e in executions], dtype=np.int64),
                       np.array([e.primary_index or 0 for e in executions], dtype=np.int64))


def _batch(segment: object) -> WorkListBatch | CommandBatch | None:
    """The batch whose executions ``segment`` is, where it is one (a work-list batch's executions wrap it)."""
    if isinstance(segment, CommandBatch):
        return segment if len(segment) else None
    batch = getattr(segment, "batch", None)
    if isinstance(batch, WorkListBatch) and len(segment) == batch.num_executions:  # type: ignore[arg-type]
        return batch
    return None


def tally(trace: Trace, *, threads: int | None = None) -> Tally:
    """The counts of ``trace`` (see the module docstring).  ``threads``: how many runs' tables of the segments that
    are not batches are built ahead on threads of their own (default: one per CPU after the first, at most 4)."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # (not Linux)
        cpus = os.cpu_count() or 1
    ahead = threads if threads is not None else max(0, min(4, cpus - 1))
    counter = _Counter(trace)
    rest: LazyList[Execution] = LazyList()  # (the segments counted through the execution table)
    for segment in trace.executions.segments:
        batch = _batch(segment)
        if isinstance(batch, WorkListBatch):
            counter.work_list_batch(batch)
        elif isinstance(batch, CommandBatch):
            counter.command_batch(batch)
        elif isinstance(segment, list):
            counter.objects(segment)
        else:
            rest.add_batch(segment)
    for run in execution_runs(rest, ahead=ahead) if len(rest) else ():
        if run.objects is not None:
            counter.objects(run.objects)
        else:
            counter.table(run)
    out = counter.out
    out.executions = len(trace.executions)
    out.lists_not_ranged = max(0, len(trace.lists) - RANGE_LISTS)
    return out
