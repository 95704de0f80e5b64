"""The trace's executions counted segment by segment, never one Python object per execution: how many resolve like
each of a few executions (their program, PCS, executable class, trigger type, list and signature), and how many
each record drove.  What a report counts a frame by (:func:`d3d12wl.verdicts.tally`).

A segment of ``Trace.executions`` counts its own rows where it holds them as columns (:class:`CountedSegment`:
a work-list batch per primary record, from the executions each drove; an ExecuteIndirect command batch as one span
of commands); the executions the reference walk made count as themselves.  Every execution of a group resolves
like the group's first in those members: the column model writes them once per group
(:func:`~d3d12wl.executor.execution_table.group_columns`), so a count by them is exact.

::

    for segment in trace.executions.segments:
        counts = segment_counts(segment)
        for first, n in counts.groups():        # n executions with first's program, class and trigger
            ...
        for records in counts.records:          # a list's primary records (or the call's commands)
            records.list_index, records.index, records.executions
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from d3d12wl.executor.execution_table import segment_groups
from d3d12wl.executor.trace import Execution

__all__ = ["CountedSegment", "ExecutionCounts", "RecordCounts", "segment_counts"]


@dataclass(frozen=True)
class RecordCounts:
    """The executions some records drove: primary records of list ``list_index``, or (``list_index`` None) the
    commands of an ExecuteIndirect call.  ``index``: the records' indices (a ``range`` for consecutive records);
    ``executions``: how many executions each drove (None: one each)."""

    list_index: int | None
    index: np.ndarray | range
    executions: np.ndarray | None = None

    @property
    def total(self) -> int:
        """The executions these records drove."""
        return len(self.index) if self.executions is None else int(self.executions.sum())


@dataclass(frozen=True)
class ExecutionCounts:
    """A run of executions counted: ``firsts`` (per group, the execution every execution of the group resolves
    like), ``per_group`` (how many executions each group has; a group may have none) and ``records`` (the records
    that drove them, by list)."""

    firsts: Sequence[Execution]
    per_group: np.ndarray
    records: list[RecordCounts]

    @property
    def total(self) -> int:
        """The executions counted."""
        return int(self.per_group.sum())

    def groups(self) -> Iterator[tuple[Execution, int]]:
        """Per group that has executions, in order: its first execution and how many resolve like it."""
        for g in np.flatnonzero(self.per_group).tolist():
            yield self.firsts[g], int(self.per_group[g])


class CountedSegment(Protocol):
    """A segment of ``Trace.executions`` held as columns that counts its own rows (a work-list batch, an
    ExecuteIndirect command batch)."""

    def __len__(self) -> int: ...

    def counts(self, a: int, b: int) -> ExecutionCounts: ...


def segment_counts(seg: Any, a: int = 0, b: int | None = None) -> ExecutionCounts:
    """Executions ``a .. b - 1`` (default: all) of a segment, counted: a columnar segment's own count
    (:class:`CountedSegment`), or of objects (a list, or a batch that makes objects) each execution by itself."""
    b = len(seg) if b is None else b
    counts = getattr(seg, "counts", None)
    if counts is not None:
        got: ExecutionCounts = counts(a, b)
        return got
    return executions_counted(segment_groups(seg, a, b).firsts)


def executions_counted(executions: Sequence[Execution]) -> ExecutionCounts:
    """Execution objects counted, each a group of its own; their records by list, in the order lists first
    appear."""
    n = len(executions)
    lists = np.array([-1 if e.list_index is None else e.list_index for e in executions], dtype=np.int64)
    index = np.array([(e.command_index if e.list_index is None else e.primary_index) or 0 for e in executions],
                     dtype=np.int64)
    records = []
    if n:
        found, first = np.unique(lists, return_index=True)
        for value in found[np.argsort(first)].tolist():
            records.append(RecordCounts(None if value < 0 else value, index[lists == value]))
    return ExecutionCounts(executions, np.ones(n, dtype=np.int64), records)
