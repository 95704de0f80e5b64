"""What a call executed, counted: executions per program, per list, per executable class, per dispatch trigger, and
per range of primary records (of ExecuteIndirect commands), for the report page's charts.

The counts are exact and never made from one Python object per execution: every segment of the trace's executions
is counted by the executor's column model (:func:`~d3d12wl.executor.execution_counts.segment_counts`): groups of
executions that resolve alike, each with one execution and how many resolve like it, and the executions each record
drove.  A 10 M-draw frame in columns is counted over its 2.5 M primary records with ``bincount`` and a dozen
objects; the executions the reference walk made count as themselves.

What the counts hold is bounded whatever the frame: a range chart keeps at most :data:`FINE_BUCKETS` buckets (their
width doubles as the indices grow), and ranges are counted for the first :data:`RANGE_LISTS` lists of a chain.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from d3d12wl.executor.execution_counts import ExecutionCounts, RecordCounts, segment_counts
from d3d12wl.executor.trace import Trace

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


def _add(into: dict[str, int], name: str | None, n: int) -> None:
    key = NONE if name is None else name
    into[key] = into.get(key, 0) + n


class _Counter:
    def __init__(self, trace: Trace) -> None:
        self.out = Tally()
        # the ranges cover every record walked, executions or not (a chart marks the findings of records that
        # drove none)
        if trace.call == "ExecuteIndirect":
            ranges = self.out.ranges[None] = RangeCounts(None)
            walked = trace.call_args.get("command_count")
            if isinstance(walked, int) and walked > 0:
                ranges.extend(walked - 1)
        for lst in trace.lists[:RANGE_LISTS]:
            ranges = self.out.ranges[lst.index] = RangeCounts(lst.index)
            if len(lst.primary_records):
                ranges.extend(len(lst.primary_records) - 1)

    def add(self, counts: ExecutionCounts) -> None:
        for first, n in counts.groups():
            _add(self.out.by_program, first.program, n)
            _add(self.out.by_class, first.executable_class, n)
            _add(self.out.by_trigger, first.trigger.type, n)
        for records in counts.records:
            self.records(records)

    def records(self, records: RecordCounts) -> None:
        if records.list_index is not None:
            self.out.by_list[records.list_index] = self.out.by_list.get(records.list_index, 0) + records.total
        ranges = self.out.ranges.get(records.list_index)
        if ranges is None:
            return
        if isinstance(records.index, range):
            ranges.add_span(records.index.start, len(records.index))
        else:
            ranges.add(records.index, records.executions)


def tally(trace: Trace) -> Tally:
    """The counts of ``trace`` (see the module docstring)."""
    counter = _Counter(trace)
    for segment in trace.executions.segments:
        counter.add(segment_counts(segment))
    out = counter.out
    out.executions = len(trace.executions)
    out.lists_not_ranged = max(0, len(trace.lists) - RANGE_LISTS)
    return out
