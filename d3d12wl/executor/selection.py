"""What part of a trace an output shows: the one selection of ``d3d12wl exec`` and ``d3d12wl dump``.

A :class:`Selection` picks one list (``list_index``), primary records ``A .. B - 1`` (``primary``), the records
and executions of one program (``program``), findings of some kinds (``kinds``), and bounds every kind of row by
``limit``: at most N executions, N primary records, N secondary records and N findings, the first ones in the
trace's order (0: no bound).  It is applied from the trace's columns (a mask per run of executions, per batch of
records), a :class:`Budget` per kind of row counts down what an output still shows, and :class:`LeftOut` counts
what the selection matched but left out, per kind of row, for the output to say.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl import inputs
from d3d12wl.executor.execution_table import ExecutionColumns, ExecutionRun, execution_runs
from d3d12wl.executor.trace import Finding

__all__ = ["Budget", "LeftOut", "RecordPicker", "Selection", "parse_range"]


def parse_range(text: str) -> tuple[int, int]:
    """``A:B`` (either side may be left out: ``:B``, ``A:``) as ``(A, B)``; ``A`` alone is ``(A, A + 1)``."""
    if ":" not in text:
        a = inputs.integer(text)
        return a, a + 1
    left, right = text.split(":", 1)
    return inputs.integer(left) if left.strip() else 0, inputs.integer(right) if right.strip() else 1 << 63


@dataclass(frozen=True)
class Selection:
    """See the module docstring; the default selects everything."""

    list_index: int | None = None
    primary: tuple[int, int] | None = None
    program: str | None = None
    kinds: frozenset[str] | None = None
    limit: int = 0

    @property
    def narrows(self) -> bool:
        """Whether it leaves anything out of a trace (an output then says what it left out)."""
        return any(v is not None for v in (self.list_index, self.primary, self.program, self.kinds)) or bool(
            self.limit)

    def bound(self, count: int) -> int:
        """How many of ``count`` matching rows of one kind it shows."""
        return count if not self.limit else min(count, self.limit)

    # -- executions --------------------------------------------------------------------------------------------

    def executions(self, table: ExecutionColumns) -> np.ndarray | None:
        """The rows of ``table`` it matches (None: every row), before ``limit``."""
        cols = table.columns
        mask: np.ndarray | None = None

        def both(m: np.ndarray) -> None:
            nonlocal mask
            mask = m if mask is None else mask & m

        if self.list_index is not None:
            both((cols["list_index"] == self.list_index) & ~table.is_absent("list_index"))
        if self.primary is not None:
            p = cols["primary_index"]
            both((p >= self.primary[0]) & (p < self.primary[1]) & ~table.is_absent("primary_index"))
        if self.program is not None:
            names = table.names["program"]
            code = names.index(self.program) if self.program in names else -2
            both(cols["program"] == code)
        return mask

    def run_rows(self, run: ExecutionRun) -> np.ndarray:
        """The rows of a run of executions (:func:`~d3d12wl.executor.execution_table.execution_runs`) it matches, in
        order, before ``limit``."""
        mask = self.executions(run.table)
        return np.arange(run.n) if mask is None else np.flatnonzero(mask)

    def run_picker(self, left: LeftOut) -> Callable[[ExecutionRun], np.ndarray] | None:
        """The rows of each run of executions it shows, in order, counting in ``left`` what its limit leaves
        out (None: it narrows nothing, every row)."""
        if not self.narrows:
            return None
        budget = Budget(self.limit)

        def pick(run: ExecutionRun) -> np.ndarray:
            rows = self.run_rows(run)
            shown = budget.take(len(rows))
            left.executions += len(rows) - shown
            return rows[:shown]

        return pick

    def count(self, executions: Any, rows: int) -> int:
        """How many of ``executions`` (a trace's) it shows: a pass over their columns in runs of ``rows`` (their
        number when it narrows none)."""
        if not self.narrows:
            return len(executions)
        total = 0
        for run in execution_runs(executions, rows=rows):
            mask = self.executions(run.table)
            total += run.n if mask is None else int(mask.sum())
        return self.bound(total)

    # -- primary records -----------------------------------------------------------------------------------------

    def takes_list(self, index: int) -> bool:
        return self.list_index is None or index == self.list_index

    def records(self, records: Any, start: int, stop: int) -> np.ndarray:
        """Which of primary records ``start .. stop - 1`` of a list (its ``primary_records``) it matches."""
        idx = np.arange(start, stop, dtype=np.int64)
        mask = np.ones(stop - start, dtype=bool)
        if self.primary is not None:
            mask &= (idx >= self.primary[0]) & (idx < self.primary[1])
        if self.program is not None and mask.any():
            mask &= np.array([p == self.program for p in record_programs(records, start, stop)], dtype=bool)
        return mask

    # -- findings ------------------------------------------------------------------------------------------------

    def finding(self, f: Finding) -> bool:
        """Whether it matches finding ``f`` (by kind; by list and primary record where ``f`` names them)."""
        if self.kinds is not None and f.kind not in self.kinds:
            return False
        if self.list_index is not None and f.list_index is not None and f.list_index != self.list_index:
            return False
        if self.primary is not None and f.primary_index is not None and not (
                self.primary[0] <= f.primary_index < self.primary[1]):
            return False
        return True


    def finding_rows(self, chunk: Any) -> np.ndarray:
        """Which findings of a chunk (a list of findings, or the columns of a batch of them:
        :class:`d3d12wl.executor.rows.FindingChunk`) it matches."""
        if isinstance(chunk, list):
            return np.array([self.finding(f) for f in chunk], dtype=bool)
        keep = np.array([self.finding(dataclasses.replace(t, primary_index=None)) for t in chunk.templates],
                        dtype=bool)
        mask = keep[chunk.template]
        if self.primary is not None:
            mask &= (chunk.primary_index >= self.primary[0]) & (chunk.primary_index < self.primary[1])
        return np.asarray(mask)

    def finding_picker(self, left: LeftOut) -> Callable[[Any], np.ndarray] | None:
        """The findings of each chunk it shows (a mask over the chunk), counting in ``left`` what its limit leaves
        out (None: every finding)."""
        if self.kinds is None and self.list_index is None and self.primary is None and not self.limit:
            return None
        budget = Budget(self.limit)

        def pick(chunk: Any) -> np.ndarray:
            mask = self.finding_rows(chunk)
            hits = np.flatnonzero(mask)
            shown = budget.take(len(hits))
            mask[hits[shown:]] = False
            left.findings += len(hits) - shown
            return mask

        return pick


def record_programs(records: Any, start: int = 0, stop: int | None = None) -> list[str | None]:
    """The program each of primary records ``start .. stop - 1`` of a list selected (None where none was
    determined), without making the records of a columnar batch."""
    stop = len(records) if stop is None else stop
    out: list[str | None] = []
    pos = 0
    for seg in records.segments:
        a, b = max(start - pos, 0), min(stop - pos, len(seg))
        if a < b:
            programs = getattr(seg, "programs", None)
            if programs is not None:  # a columnar batch: without making its records
                out += programs(a, b)
            else:
                items = seg[a:b] if isinstance(seg, list) else list(seg.items(a, b))
                out += [p.program_table.program if p.program_table else None for p in items]
        pos += len(seg)
        if pos >= stop:
            break
    return out


class RecordPicker:
    """Which primary records (and how many of their secondary records) an output shows, across its lists,
    counting in ``left`` what the selection's limit leaves out."""

    def __init__(self, selection: Selection, left: LeftOut) -> None:
        self.selection, self.left = selection, left
        self.records = Budget(selection.limit)
        #: how many secondary records are still shown (None: all)
        self.secondary = Budget(selection.limit) if selection.limit else None

    def of_list(self, list_index: int) -> Callable[[Any, int, int], np.ndarray] | None:
        """The records of list ``list_index`` it shows: a mask over records ``start .. stop - 1`` (None: all)."""
        sel = self.selection
        if sel.primary is None and sel.program is None and not sel.limit:
            return None

        def pick(records: Any, start: int, stop: int) -> np.ndarray:
            mask = sel.records(records, start, stop)
            hits = np.flatnonzero(mask)
            drop = hits[self.records.take(len(hits)):]
            mask[drop] = False
            if len(drop):
                self.left.primary_records[list_index] = self.left.primary_records.get(list_index, 0) + len(drop)
            return mask

        return pick


#: the most rows of one kind anything counts (numpy's int64 counts): a limit at or above it bounds nothing a trace
#: holds, and is counted down from here
MOST_ROWS = (1 << 63) - 1


class Budget:
    """How many more rows of one kind an output shows: ``limit`` (0: no bound), counted down as rows are shown.
    A limit above :data:`MOST_ROWS` (``--limit`` takes any integer) is :data:`MOST_ROWS`: no trace holds more, and
    the counts it is compared with are int64."""

    def __init__(self, limit: int) -> None:
        self.left: int | None = min(limit, MOST_ROWS) if limit else None

    def take(self, n: int) -> int:
        """Of ``n`` matching rows, how many are shown."""
        if self.left is None:
            return n
        shown = min(n, self.left)
        self.left -= shown
        return shown

    def take_each(self, counts: np.ndarray) -> np.ndarray:
        """Of ``counts[i]`` matching rows of each of several parents in order, how many of each are shown."""
        if self.left is None:
            return counts
        before = np.cumsum(counts) - counts
        shown = np.clip(self.left - before, 0, counts)
        self.left -= int(shown.sum())
        return shown


@dataclass
class LeftOut:
    """What a selection matched but its ``limit`` left out, per kind of row (``primary_records`` by list)."""

    executions: int = 0
    primary_records: dict[int, int] = field(default_factory=dict)
    secondary_records: int = 0
    findings: int = 0

    def any(self) -> bool:
        return bool(self.executions or self.primary_records or self.secondary_records or self.findings)

    def to_dict(self) -> dict[str, Any]:
        return {"executions": self.executions, "primary_records": dict(self.primary_records),
                "secondary_records": self.secondary_records, "findings": self.findings}

    def text(self) -> str:
        """``12 executions, 3 primary records, 40 secondary records left out`` (empty when nothing was)."""
        parts = [(self.executions, "execution"), (sum(self.primary_records.values()), "primary record"),
                 (self.secondary_records, "secondary record"), (self.findings, "finding")]
        shown = [f"{n:,} {what}{'s' if n != 1 else ''}" for n, what in parts if n]
        return ", ".join(shown) + " left out" if shown else ""
