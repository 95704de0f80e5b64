"""The columnar fast path (d3d12wl.executor.columnar and its walks): columns for the common case, the reference walk
for every record a vectorized check flags, and the same trace as the reference walker."""

from __future__ import annotations

import glob
from pathlib import Path

import pytest
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    TABLE_VA,
    Scene,
    culling_pcs,
    dispatch_input,
    draw,
    patched,
    primary,
    program,
    program_table,
    secondaries,
)
from test_executor_execute_indirect import ARGS_VA, COUNT_VA, ei_scene

from d3d12wl import abi, examples
from d3d12wl.capture.file import load_capture
from d3d12wl.executor import arrays, execute, execution_table, learned_skips, run
from d3d12wl.executor.command_walk import CommandBatch
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.executor.trace import Limits, Trace
from d3d12wl.model.objects import WorkListSignature
from d3d12wl.model.state import DispatchListCall, ExecuteIndirectCall, RootArgument

EXAMPLES = sorted(glob.glob(str(Path(__file__).resolve().parent.parent / "d3d12wl" / "examples" / "*_capture.json")))
SECONDARY_BASE = 0x100000


def both(s: Scene, call: DispatchListCall | ExecuteIndirectCall, limits: Limits | None = None) -> tuple[Trace, Trace]:
    ref = run(s.memory, s.device, s.objects, s.state, call, limits, engine="reference")
    fast = run(s.memory, s.device, s.objects, s.state, call, limits)
    assert fast.to_dict() == ref.to_dict()
    return ref, fast


def culling_scene(records: int, secondaries_each: int = 3, programs: int = 2) -> tuple[Scene, list[bytearray]]:
    """The spec's culling PCS: ``records`` primary records (ProgramTableIndex k % programs), each with its own
    ``secondaries_each`` secondary records."""
    pcs, _ = culling_pcs()
    s = Scene()
    progs = [program(f"P{k}", k + 1, pcs) for k in range(programs)]
    s.add_programs(*progs)
    s.put(TABLE_VA, program_table([(p, {"arg2_InlineRootParameter": [k, 2, 3, 4]}) for k, p in enumerate(progs)], 48))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 48, programs)
    s.state.graphics_root_arguments[0] = RootArgument("descriptor", 0xCB0000)  # GRS parameter 0, the frame CBV
    sec = b"".join(secondaries(pcs, [{"arg0_ShaderResourceView": 0x1000 * i + j, "arg1_Draw": draw(3 * j + i)}
                                     for j in range(secondaries_each)]) for i in range(records))
    s.put(SECONDARY_BASE, sec)
    size = 24 * secondaries_each
    prims = [primary(pcs, ProgramTableIndex=i % programs, NumSecondaryRecords=secondaries_each,
                     SecondaryRecords=SECONDARY_BASE + i * size) for i in range(records)]
    return s, prims


def place(s: Scene, prims: list[bytearray]) -> DispatchListCall:
    s.put(PRIMARY_VA, b"".join(prims))
    s.put(INPUT_VA, dispatch_input(len(prims), PRIMARY_VA, len(prims[0])))
    return DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=1 << 20)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: Path(p).name)
def test_bundled_captures_run_in_columns_with_the_reference_trace(path):
    capture = load_capture(path)
    fast = execute(capture)
    assert fast.to_dict() == execute(capture, engine="reference").to_dict()
    if "validation" not in path:  # no validators given: every record of these captures is clean
        assert fast.executions.segments and all(not isinstance(seg, list) for seg in fast.executions.segments)


@pytest.mark.parametrize("num_inputs", [1, 2])
def test_a_stride_of_2_to_the_63_or_more(num_inputs):
    """D3D12_DISPATCH_LIST_INPUT.ProgramInputs.StrideInBytes is a UINT64 the GPU reads: one of 2^63 or more does
    not fit numpy's signed strides.  One record needs no stride and runs; a second record's address leaves the VA
    space, which the reference reports.  Both engines give the same trace (found by tools/fuzz.py)."""
    capture = load_capture(examples.path("culling_capture.json"))
    va = capture.call.DispatchListInput
    stride_at = va + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes")
    count_at = va + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "NumProgramInputs")
    patched(capture, stride_at, (0x8000000000000010).to_bytes(8, "little"))
    patched(capture, count_at, num_inputs.to_bytes(4, "little"))
    fast = execute(capture)
    assert fast.to_dict() == execute(capture, engine="reference").to_dict()
    assert len(fast.executions) == 4  # primary record 0 drives four secondary records (spec culling example)


def test_clean_records_make_no_object_per_record():
    s, prims = culling_scene(1500)
    ref, fast = both(s, place(s, prims))
    assert len(fast.executions) == 4500 and not ref.findings
    assert [type(seg).__name__ for seg in fast.executions.segments] == ["BatchExecutions"]
    assert [type(seg).__name__ for seg in fast.lists[0].primary_records.segments] == ["BatchRecords"]
    e = fast.executions[3334]  # made on demand, the reference's object
    assert e == ref.executions[3334] and (e.primary_index, e.secondary_index) == (1111, 1)


def test_chunks_and_flagged_records_take_the_reference_walk(monkeypatch):
    """Corrupt records in the middle (index out of range, misaligned and unmapped secondary lists, too many
    secondary records) and chunk boundaries: findings in the reference's words and order, the rest in columns."""
    monkeypatch.setattr(arrays, "CHUNK", 64)
    s, prims = culling_scene(300)
    prims[10] = primary(culling_pcs()[0], ProgramTableIndex=7, NumSecondaryRecords=1, SecondaryRecords=SECONDARY_BASE)
    prims[64] = primary(culling_pcs()[0], ProgramTableIndex=0, NumSecondaryRecords=2,
                        SecondaryRecords=SECONDARY_BASE + 4)
    prims[65] = primary(culling_pcs()[0], ProgramTableIndex=1, NumSecondaryRecords=2, SecondaryRecords=0x7000000)
    prims[200] = primary(culling_pcs()[0], ProgramTableIndex=1, NumSecondaryRecords=5000,
                         SecondaryRecords=SECONDARY_BASE)
    ref, fast = both(s, place(s, prims), Limits(max_secondary_records=500))
    assert [(f.kind, f.primary_index) for f in ref.findings] == [
        ("program-table-index-out-of-range", 10), ("misaligned-va", 64), ("unmapped-va", 65),
        ("limit-exceeded", 200)]
    # record 200's first 500 secondary records are columns; the reference walk takes over at the limit
    assert all(not isinstance(seg, list) for seg in fast.executions.segments)
    prt = fast.lists[0].primary_records[200]
    assert len(prt.secondary_records) == len(prt.executions) == 500
    assert {type(seg).__name__ for seg in fast.lists[0].primary_records.segments} == {"BatchRecords", "list"}


@pytest.mark.parametrize("limits", [Limits(max_executions=1000), Limits(max_records=777),
                                    Limits(max_primary_records=250), Limits(max_findings=0)])
def test_limits_stop_at_the_reference_record(monkeypatch, limits):
    monkeypatch.setattr(arrays, "CHUNK", 100)
    s, prims = culling_scene(400)
    ref, fast = both(s, place(s, prims), limits)
    assert ref.stopped_reason or limits.max_findings == 0


def test_unmapped_record_ends_the_list_where_the_reference_does():
    s, prims = culling_scene(50)
    call = place(s, prims)
    s.put(INPUT_VA, dispatch_input(80, PRIMARY_VA, len(prims[0])))  # 30 records past the mapped ones
    ref, fast = both(s, call)
    assert [(f.kind, f.primary_index) for f in ref.findings] == [("unmapped-va", 50)]


def test_validation_hooks_always_take_the_reference_walk():
    capture = load_capture(next(p for p in EXAMPLES if "validation_chain" in p))
    from d3d12wl.executor.validation import load_validators

    fast = execute(capture, hooks=load_validators(["d3d12wl.examples.validators:VALIDATORS"]))
    ref = execute(capture, hooks=load_validators(["d3d12wl.examples.validators:VALIDATORS"]), engine="reference")
    assert fast.to_dict() == ref.to_dict()
    assert all(isinstance(seg, list) for seg in fast.executions.segments)


@pytest.mark.parametrize("count,max_count,limits", [(7, 9, None), (9, 7, None), (7, 7, Limits(max_executions=4)),
                                                    (7, 7, Limits(max_records=3)), (12, 12, None)])
def test_execute_indirect_in_columns(monkeypatch, count, max_count, limits):
    monkeypatch.setattr(arrays, "CHUNK", 3)
    s, cs = ei_scene(9)  # 9 commands mapped: 12 runs past the argument buffer's end
    s.put(COUNT_VA, count.to_bytes(4, "little"))
    ref, fast = both(s, ExecuteIndirectCall(cs, max_count, ARGS_VA, COUNT_VA), limits)
    assert any(isinstance(seg, CommandBatch) for seg in fast.executions.segments)


def test_execution_columns_are_the_trace_as_a_table():
    s, prims = culling_scene(40, secondaries_each=2)
    ref, fast = both(s, place(s, prims))
    table = execution_columns(fast.executions)
    cols = table.columns
    assert len(table) == 80 and table.names["program"] == ["P0", "P1"] and table.names["trigger"] == ["DRAW"]
    assert cols["primary_index"][:4].tolist() == [0, 0, 1, 1] and cols["secondary_index"][:4].tolist() == [0, 1, 0, 1]
    assert cols["program"][:4].tolist() == [0, 0, 1, 1] and (cols["counter"] == -1).all()
    assert cols["trigger.VertexCountPerInstance"].tolist() == [
        e.trigger.fields["VertexCountPerInstance"] for e in ref.executions]
    assert cols["secondary_va"].tolist() == [e.record_va["secondary"] for e in ref.executions]
    part = execution_columns(fast.executions, 10, 13)
    assert part.columns["index"].tolist() == [10, 11, 12]


@pytest.mark.parametrize("ahead", [1, 3])
def test_runs_built_ahead_on_threads_are_the_runs_built_in_turn(monkeypatch, ahead):
    """execution_runs(ahead=N) builds the tables of a work-list batch's next runs on threads of its own: the same
    runs (starts, groups, firsts, every column, name and absent mask), in the same order; an error building one
    is raised where that run is read, and a reader that stops early leaves no thread behind."""
    import threading

    import numpy as np

    monkeypatch.setattr(arrays, "CHUNK", 64)
    s, prims = culling_scene(300)
    prims[100] = primary(culling_pcs()[0], ProgramTableIndex=7, NumSecondaryRecords=1, SecondaryRecords=SECONDARY_BASE)
    _, fast = both(s, place(s, prims))
    turn = list(execution_table.execution_runs(fast.executions, rows=50))
    built = list(execution_table.execution_runs(fast.executions, rows=50, ahead=ahead))
    assert len(turn) == len(built) > 10
    for a, b in zip(turn, built, strict=True):
        assert (a.start, a.n, a.firsts, a.objects) == (b.start, b.n, b.firsts, b.objects)
        assert (a.table is None) == (b.table is None) and (a.group is None) == (b.group is None)
        if a.table is not None and b.table is not None:
            assert a.table.names == b.table.names and a.table.columns.keys() == b.table.columns.keys()
            assert all(np.array_equal(a.table.columns[k], b.table.columns[k]) for k in a.table.columns)
            assert a.table.absent.keys() == b.table.absent.keys()
            assert all(np.array_equal(a.table.absent[k], b.table.absent[k]) for k in a.table.absent)
            assert np.array_equal(a.group, b.group)
    real, calls = execution_table.run_table, [0]

    def broken(*args):
        calls[0] += 1
        if calls[0] == 3:
            raise RuntimeError("run 3")
        return real(*args)

    monkeypatch.setattr(execution_table, "run_table", broken)
    got = execution_table.execution_runs(fast.executions, rows=50, ahead=ahead)
    with pytest.raises(RuntimeError, match="run 3"):
        list(got)
    stopped = execution_table.execution_runs(fast.executions, rows=50, ahead=ahead)
    next(stopped)
    stopped.close()
    assert not [t for t in threading.enumerate() if t.name.startswith("d3d12wl-runs")]


@pytest.mark.parametrize("programs", [1, 2])
def test_a_table_holds_arrays_of_its_own(programs):
    """The columns read from records (a run of consecutive secondary records is read in place) are copies: writing
    into a table leaves the trace, and the next table of it, as they were; with one group per run and several."""
    s, prims = culling_scene(40, secondaries_each=2)
    if programs == 1:
        for p in prims:
            p[0:4] = (0).to_bytes(4, "little")
    _, fast = both(s, place(s, prims))
    table = execution_columns(fast.executions)
    want = {k: v.copy() for k, v in table.columns.items()}
    assert len(set(table.columns["program"].tolist())) == programs
    for v in table.columns.values():
        v[...] = 7
    again = execution_columns(fast.executions)
    assert all((again.columns[k] == v).all() for k, v in want.items())


@pytest.mark.parametrize("bad,limits", [
    (lambda i: True, None),  # every record selects a slot past SlotCount
    (lambda i: i % 3 == 1, None),  # every third
    (lambda i: i % 7 != 0, Limits(max_findings=50)),  # findings suppressed part-way through a run
    (lambda i: i >= 10, Limits(max_records=200)),  # the record limit inside a run
    (lambda i: i % 2 == 0, Limits(max_primary_records=77)),
])
def test_records_of_a_flagged_slot_in_columns(monkeypatch, bad, limits):
    """D3D12_WORK_LIST_PRIMARY_RECORD::ProgramTableIndex >= SlotCount on many records: once the reference has
    walked two records of a slot alike (the same finding and skipped record but for index and VA), the rest of
    that slot's records are columns (findings and records as batches), with the reference's trace."""
    monkeypatch.setattr(arrays, "CHUNK", 64)
    s, prims = culling_scene(300)
    for i, p in enumerate(prims):
        if bad(i):
            p[0:4] = (5 + i % 2).to_bytes(4, "little")  # two flagged slots, alternating
    ref, fast = both(s, place(s, prims), limits)
    assert len(fast.findings) == len(ref.findings) and fast.findings_suppressed == ref.findings_suppressed
    assert fast.finding_counts() == ref.finding_counts() and fast.has_errors
    assert any(isinstance(seg, learned_skips.FindingRows) for seg in fast.findings.segments)
    assert any(isinstance(seg, learned_skips.SkippedRecords) for seg in fast.lists[0].primary_records.segments)
