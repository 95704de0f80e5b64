"""The trace's executions counted segment by segment (``executor.execution_counts``): whatever rows of a segment are
counted (a whole batch, a window that starts or ends inside a primary record's secondary list), the counts are the
execution table's, which has a row per execution: per program, PCS, class, trigger, list and signature, and per
record.  The column model's rule that makes them exact: every execution of a group resolves like its first in
those members."""

from __future__ import annotations

from collections import Counter

import pytest
import verdict_captures as vc

import d3d12wl
from d3d12wl import examples
from d3d12wl.executor.execution_counts import ExecutionCounts, segment_counts
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.executor.trace import Trace

#: the members every execution of a group shares with the group's first
MEMBERS = ("program", "pcs", "executable_class", "list_index", "signature_index")


def _from_counts(counts: ExecutionCounts) -> tuple[Counter[tuple[object, ...]], Counter[tuple[object, ...]]]:
    groups: Counter[tuple[object, ...]] = Counter()
    for first, n in counts.groups():
        groups[(*(getattr(first, m) for m in MEMBERS), first.trigger.type)] += n
    records: Counter[tuple[object, ...]] = Counter()
    for r in counts.records:
        weights = [1] * len(r.index) if r.executions is None else r.executions.tolist()
        for i, n in zip(list(r.index), weights, strict=True):
            if n:
                records[(r.list_index, int(i))] += int(n)
    return groups, records


def _from_table(trace: Trace, start: int, stop: int) -> tuple[Counter[tuple[object, ...]], Counter[tuple[object, ...]]]:
    table = execution_columns(trace.executions, start, stop)
    c, names = table.columns, table.names

    def value(column: str, row: int) -> object:
        if column in names:
            code = int(c[column][row])
            return None if code < 0 else names[column][code]
        return None if table.is_absent(column)[row] else int(c[column][row])

    groups: Counter[tuple[object, ...]] = Counter()
    records: Counter[tuple[object, ...]] = Counter()
    for row in range(len(table)):
        groups[(*(value(m, row) for m in MEMBERS), value("trigger", row))] += 1
        lst = value("list_index", row)
        records[(lst, value("command_index" if lst is None else "primary_index", row))] += 1
    return groups, records


@pytest.mark.parametrize("build", [
    lambda: vc.named_work_list_capture(records=600, per_record=3, unmapped=[7, 300]),
    lambda: vc.named_ei_capture(commands=700, bad=(5, 500)),
    lambda: d3d12wl.load_capture(examples.path("tier2_chain_capture.json")),
    lambda: d3d12wl.load_capture(examples.path("validation_chain_capture.json")),
], ids=["work list batches", "ExecuteIndirect batches and objects", "tier 2 chain", "objects of the reference walk"])
def test_every_window_of_every_segment_counts_as_the_table_does(build: object, request: pytest.FixtureRequest) -> None:
    engine = "reference" if "reference" in request.node.name else "columnar"
    trace = d3d12wl.execute(build(), engine=engine)  # type: ignore[operator]
    kinds = {type(seg) for seg in trace.executions.segments}
    assert (list in kinds) == (engine == "reference" or "objects" in request.node.name)
    pos = 0
    for seg in trace.executions.segments:
        n = len(seg)
        windows = {(0, n), (0, min(n, 1)), (min(n, 2), n), (n // 3, 2 * n // 3 + 1), (n - 1, n), (n // 2, n // 2)}
        for a, b in sorted(windows):
            counts = segment_counts(seg, a, b)
            assert counts.total == b - a == sum(r.total for r in counts.records)
            assert _from_counts(counts) == _from_table(trace, pos + a, pos + b), (type(seg).__name__, a, b)
        pos += n


def test_a_batch_is_counted_by_record_with_one_execution_per_group() -> None:
    """Primary records selecting three programs in turn, three draws each: one group per program (in the order the
    batch met them), every record's executions."""
    trace = d3d12wl.execute(vc.named_work_list_capture(records=90, per_record=3))
    (seg,) = trace.executions.segments
    counts = segment_counts(seg, 4, 26)  # (from inside record 1 to inside record 8)
    # records 3 and 6 select Opaque; 1, 4 and 7 Transparent; 2, 5 and 8 Shadow
    assert [(first.program, n) for first, n in counts.groups()] == [("Opaque", 6), ("Transparent", 2 + 3 + 3),
                                                                    ("Shadow", 3 + 3 + 2)]
    (records,) = counts.records
    assert records.list_index == 0 and records.index.tolist() == list(range(1, 9))  # type: ignore[union-attr]
    assert records.executions is not None and records.executions.tolist() == [2, 3, 3, 3, 3, 3, 3, 2]


def test_commands_are_counted_as_one_span() -> None:
    trace = d3d12wl.execute(vc.named_ei_capture(commands=40, bad=()))
    (seg,) = trace.executions.segments
    counts = segment_counts(seg, 3, 30)
    (records,) = counts.records
    assert records.list_index is None and records.index == range(3, 30) and records.executions is None
    assert [n for _, n in counts.groups()] == [27]
