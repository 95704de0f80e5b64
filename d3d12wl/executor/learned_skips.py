"""Records of a flagged program-table slot in columns: what the reference walk does with every record of a slot it
reports (its findings, the record it lists, no execution), learned from two of them and then applied to every later
record of that slot without walking it.

The columnar list walk (:mod:`d3d12wl.executor.list_walk`) sends the first records of such a slot through the
reference walk, watching each (:meth:`SkipLearner.observed`); two that the reference treats alike but for their
index and VA teach the :class:`Skip`, and the records after them become a :class:`SkippedRecords` batch (the
records) and a :class:`FindingRows` batch (their findings) in the trace.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from d3d12wl.executor.list_run import ListRun
from d3d12wl.executor.trace import Finding, PrimaryRecordTrace

__all__ = ["SKIP_ATTEMPTS", "FindingRows", "Observed", "Skip", "SkipLearner", "SkipState", "SkippedRecords",
           "runs_of"]

#: records of one flagged slot the reference walks to learn its skip, at most
SKIP_ATTEMPTS = 4


class SkipLearner:
    """The skips of one list's flagged slots: per ProgramTableIndex, what the reference did with its last record,
    or the skip every later record of that index gets in columns.  ``reference(i)`` walks record ``i`` with the
    reference walk (False: the list's walk ended)."""

    def __init__(self, run: ListRun, reference: Callable[[int], bool]) -> None:
        self.run = run
        self.ctx = run.ctx
        self.reference = reference
        self._skips: dict[int, SkipState] = {}

    def learned(self, pt: int) -> bool:
        """Whether the skip of slot ``pt``'s records is learned."""
        state = self._skips.get(pt)
        return state is not None and state.learned is not None

    def observed(self, i: int, pt: int, va: int) -> bool:
        """Record ``i`` (of a flagged slot ``pt``) by the reference walk, watching what it did: two records of the
        same slot that the reference treats alike (the same findings and record but for the record's index and
        VA, no execution, the walk going on) teach the skip that every later record of that slot then gets in
        columns (:meth:`skipped_run`)."""
        ctx, run = self.ctx, self.run
        trace = ctx.trace
        before = (len(trace.findings), trace.findings_suppressed, len(run.trace.primary_records),
                  len(trace.executions), ctx.records_walked, ctx.records_repeated, run.trace.stopped)
        ok = self.reference(i)
        state = self._skips.setdefault(pt, SkipState())
        if state.learned is not None or state.attempts >= SKIP_ATTEMPTS:
            return ok
        state.attempts += 1
        after = (len(trace.findings), trace.findings_suppressed, len(run.trace.primary_records),
                 len(trace.executions), ctx.records_walked, ctx.records_repeated, run.trace.stopped)
        plain = ok and after[1] == before[1] and after[2] == before[2] + 1 and after[3:] == (
            before[3], before[4] + 1, before[5], before[6])
        seen = Observed(i, va, list(trace.findings[before[0]:]), run.trace.primary_records[-1]) if plain else None
        if seen is not None and state.last is not None:
            state.learned = Skip.learn(state.last, seen)
        state.last = seen
        return ok

    def skipped_run(self, i0: int, a: int, b: int, vas: np.ndarray, pt_of: np.ndarray) -> int:
        """Records ``a .. b - 1`` of the chunk (each of a slot whose skip is learned) in columns, as far as the
        record limit lets them go; returns how many."""
        ctx, run = self.ctx, self.run
        n = min(b - a, max(ctx.limits.max_records - ctx.records_walked, 0))
        if n <= 0:
            return 0
        pts = pt_of[a:a + n]
        index = np.arange(i0 + a, i0 + a + n, dtype=np.int64)
        va = vas[a:a + n]
        for lo, hi, pt in runs_of(pts):
            skip = self._skips[pt].learned
            assert skip is not None
            run.trace.primary_records.add_batch(SkippedRecords(skip, index[lo:hi], va[lo:hi]))
            rows = skip.findings * (hi - lo)
            room = max(ctx.limits.max_findings - len(ctx.trace.findings), 0)
            kept = min(rows, room)
            if kept:
                ctx.trace.findings.add_batch(FindingRows(skip, index[lo:hi], va[lo:hi], kept))
            ctx.trace.findings_suppressed += rows - kept
        ctx.records_walked += n
        return n


def runs_of(values: np.ndarray) -> list[tuple[int, int, int]]:
    """(start, stop, value) of every run of equal values."""
    if not len(values):
        return []
    cuts = np.flatnonzero(values[1:] != values[:-1]) + 1
    starts = [0, *cuts.tolist()]
    stops = [*cuts.tolist(), len(values)]
    return [(a, b, int(values[a])) for a, b in zip(starts, stops, strict=True)]


@dataclass
class Observed:
    """What the reference did with record ``index`` at ``va`` of a flagged slot: the findings it reported and the
    record it listed."""

    index: int
    va: int
    findings: list[Finding]
    record: PrimaryRecordTrace


@dataclass
class Skip:
    """What the reference does with every record of a flagged slot, learned from two of them: its findings, each
    with the VA at ``offset`` from the record's (``relative``) or at an address of its own, and the record it lists
    (the same but for its index and VA)."""

    kinds: list[tuple[str, str, str, str, int | None, int | None, bool]]
    record: PrimaryRecordTrace

    @property
    def findings(self) -> int:
        return len(self.kinds)

    @staticmethod
    def learn(a: Observed, b: Observed) -> Skip | None:
        """The skip both records had, or None when they differ in anything but their index and VA."""
        if len(a.findings) != len(b.findings):
            return None
        kinds = []
        for fa, fb in zip(a.findings, b.findings, strict=True):
            same = (fa.kind, fa.rule, fa.message, fa.severity, fa.list_index) == (
                fb.kind, fb.rule, fb.message, fb.severity, fb.list_index)
            if not same or (fa.primary_index, fb.primary_index) != (a.index, b.index) or any(
                    x is not None for x in (fa.secondary_index, fb.secondary_index, fa.command_index,
                                            fb.command_index)):
                return None
            if fa.va is None or fb.va is None:
                if fa.va is not fb.va:
                    return None
                at, relative = None, False
            elif fa.va - a.va == fb.va - b.va:
                at, relative = fa.va - a.va, True
            elif fa.va == fb.va:
                at, relative = fa.va, False
            else:
                return None
            kinds.append((fa.kind, fa.rule, fa.message, fa.severity, fa.list_index, at, relative))
        ra, rb = a.record, b.record
        if (ra.index, ra.va, rb.index, rb.va) != (a.index, a.va, b.index, b.va) or len(ra.secondary_records) or \
                len(rb.secondary_records) or len(ra.executions) or len(rb.executions):
            return None
        if (ra.fields, ra.pcs, ra.record_kind, ra.header, ra.program_table, ra.skipped) != (
                rb.fields, rb.pcs, rb.record_kind, rb.header, rb.program_table, rb.skipped):
            return None
        return Skip(kinds, ra)

    def finding(self, j: int, index: int, va: int) -> Finding:
        kind, rule, message, severity, list_index, at, relative = self.kinds[j]
        return Finding(kind, rule, message, severity, list_index, index, None, None,
                       None if at is None else va + at if relative else at)


@dataclass
class SkipState:
    """What the learner knows of one slot: the last record it watched, the skip once learned, the attempts."""

    last: Observed | None = None
    learned: Skip | None = None
    attempts: int = 0


class SkippedRecords:
    """Records of a flagged slot that the reference would list and skip alike, as a
    :class:`~d3d12wl.executor.trace.Batch` of PrimaryRecordTrace."""

    def __init__(self, skip: Skip, index: np.ndarray, va: np.ndarray) -> None:
        self.skip, self.index, self.va = skip, index, va

    def __len__(self) -> int:
        return len(self.index)

    @property
    def nbytes(self) -> int:
        return self.index.nbytes + self.va.nbytes

    def programs(self, a: int, b: int) -> list[str | None]:
        """The program records ``a .. b - 1`` selected (the same for all: none determined, or the slot's)."""
        slot = self.skip.record.program_table
        return [slot.program if slot is not None else None] * (b - a)

    def item(self, i: int) -> PrimaryRecordTrace:
        r = self.skip.record
        return PrimaryRecordTrace(int(self.index[i]), int(self.va[i]), copy.deepcopy(r.fields), pcs=r.pcs,
                                  record_kind=r.record_kind, header=r.header, program_table=r.program_table,
                                  skipped=r.skipped)

    def items(self, start: int, stop: int) -> Iterator[PrimaryRecordTrace]:
        for i in range(start, stop):
            yield self.item(i)


class FindingRows:
    """The findings of records skipped alike (:class:`SkippedRecords`), ``skip.findings`` per record in order,
    the first ``count``, as a :class:`~d3d12wl.executor.trace.Batch` of Finding."""

    def __init__(self, skip: Skip, index: np.ndarray, va: np.ndarray, count: int) -> None:
        self.skip, self.index, self.va, self.count = skip, index, va, count

    def __len__(self) -> int:
        return self.count

    def item(self, i: int) -> Finding:
        r, j = divmod(i, self.skip.findings)
        return self.skip.finding(j, int(self.index[r]), int(self.va[r]))

    def items(self, start: int, stop: int) -> Iterator[Finding]:
        for i in range(start, stop):
            yield self.item(i)

    def templates(self) -> list[Finding]:
        """Per finding of a record, the finding every record has but for ``primary_index`` and ``va`` (which
        :meth:`columns` give)."""
        return [self.skip.finding(j, 0, 0) for j in range(self.skip.findings)]

    def columns(self, a: int, b: int) -> dict[str, np.ndarray]:
        """Findings ``a .. b - 1`` as columns: ``template`` (an index into :meth:`templates`), ``primary_index``,
        ``va`` and ``va.absent``."""
        k = np.arange(a, b, dtype=np.int64)
        r, j = np.divmod(k, self.skip.findings)
        at = np.array([0 if x[5] is None else x[5] for x in self.skip.kinds], dtype=np.uint64)
        relative = np.array([x[6] for x in self.skip.kinds], dtype=bool)
        none = np.array([x[5] is None for x in self.skip.kinds], dtype=bool)
        va = np.where(relative[j], self.va[r].astype(np.uint64) + at[j], at[j])
        return {"template": j, "primary_index": self.index[r], "va": np.where(none[j], 0, va).astype(np.uint64),
                "va.absent": none[j]}

    def finding_counts(self) -> dict[tuple[str, str], int]:
        """(severity, kind) -> how many of these findings, without making them."""
        out: dict[tuple[str, str], int] = {}
        per, extra = divmod(self.count, self.skip.findings)
        for j, k in enumerate(self.skip.kinds):
            key = (k[3], k[0])
            out[key] = out.get(key, 0) + per + (1 if j < extra else 0)
        return out

