"""What a call executed, counted: executions per program, per list, per executable class, per dispatch trigger, and
per range of primary records (of ExecuteIndirect commands), for the report page's charts.

The counts are exact and made from the trace's columns (:func:`d3d12wl.executor.columnar.execution_runs`, the
runs the streamed writers read, their tables built ahead on threads), never from one Python object per execution:
a 10 M-draw frame is counted in runs of :data:`~d3d12wl.executor.columnar.CHUNK` rows.  What the counts hold is
bounded whatever the frame: a range chart keeps at most :data:`FINE_BUCKETS` buckets (their width doubles as the
indices grow), and ranges are counted for the first :data:`RANGE_LISTS` lists of a chain.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np

from d3d12wl.executor.columnar import ExecutionRun, execution_runs
from d3d12wl.executor.trace import Execution, Trace

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

    def add(self, indices: np.ndarray) -> None:
        if not len(indices):
            return
        self.extend(int(indices.max()))
        self.counts += np.bincount(indices // self.width, minlength=FINE_BUCKETS)

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


def tally(trace: Trace, *, threads: int | None = None) -> Tally:
    """The counts of ``trace`` (see the module docstring).  ``threads``: how many runs' tables are built ahead on
    threads of their own (default: one per CPU after the first, at most 4)."""
    ahead = threads if threads is not None else max(0, min(4, len(os.sched_getaffinity(0)) - 1))
    counter = _Counter(trace)
    for run in execution_runs(trace.executions, ahead=ahead):
        if run.objects is not None:
            counter.objects(run.objects)
        else:
            counter.table(run)
        counter.out.executions += run.n
    out = counter.out
    out.lists_not_ranged = max(0, len(trace.lists) - RANGE_LISTS)
    return out
