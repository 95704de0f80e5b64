"""Hostile input ends fast, in bounded memory, with a finding (issue 5 item 3: "Hostile input is bounded")."""

from __future__ import annotations

import time

from executor_builder import (
    CONT,
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    Scene,
    dispatch,
    dispatch_input,
    dispatch_input1,
    hybrid_scene,
    primary,
    secondaries,
)

from d3d12wl.capture.memory import VA_LIMIT
from d3d12wl.executor import run_dispatch_list
from d3d12wl.executor.trace import Limits
from d3d12wl.model.state import DispatchListCall


def run(s: Scene, call: DispatchListCall, limits: Limits | None = None):
    t0 = time.perf_counter()
    trace = run_dispatch_list(s.memory, s.device, s.objects, s.state, call, limits)
    assert time.perf_counter() - t0 < 10
    return trace


def test_num_program_inputs_0xffffffff_stops_at_the_end_of_mapped_memory():
    s, pcs = hybrid_scene()
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=1, SecondaryRecords=SECONDARY_VA) * 4)
    s.put(INPUT_VA, dispatch_input(0xFFFFFFFF, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.primary_index, f.va) for f in trace.findings] == [("unmapped-va", 4, PRIMARY_VA + 64)]
    assert len(trace.executions) == 4


def test_num_program_inputs_0xffffffff_over_mapped_memory_hits_the_primary_record_limit():
    s, pcs = hybrid_scene()
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0) * 64)  # NumSecondaryRecords 0: no executions
    s.put(INPUT_VA, dispatch_input(0xFFFFFFFF, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA), Limits(max_primary_records=50))
    assert [f.kind for f in trace.findings] == ["limit-exceeded"]
    assert "max_primary_records" in trace.findings[0].message and "--max-primary-records" in trace.findings[0].message
    assert trace.stopped_reason and len(trace.lists[0].primary_records) == 50


def test_num_secondary_records_huge_with_broadcast_stride_hits_the_secondary_limit():
    """A broadcast secondary stride (0) with NumSecondaryRecords 0xFFFFFFFF would read the same record for ever."""
    s, pcs = hybrid_scene(secondary_stride=0)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=0xFFFFFFFF, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA), Limits(max_secondary_records=1000))
    assert [f.kind for f in trace.findings] == ["limit-exceeded"]
    assert "--max-secondary-records" in trace.findings[0].message and len(trace.executions) == 1000


def test_execution_and_record_limits():
    s, pcs = hybrid_scene(secondary_stride=0)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=100, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA), Limits(max_executions=10))
    assert "max_executions" in trace.findings[-1].message and len(trace.executions) == 10
    trace = run(s, DispatchListCall(INPUT_VA), Limits(max_records=10))
    assert "max_records" in trace.findings[-1].message and len(trace.executions) == 9


def test_self_referencing_chain_is_found_and_stopped():
    """"Chain length and termination": a producer bug writing a self-referencing NextDispatchList."""
    s, _ = hybrid_scene()
    s.put(INPUT_VA, dispatch_input1(0, 0, 0, CONT, next_=INPUT_VA))
    trace = run(s, DispatchListCall(INPUT_VA, tier2=True))
    assert [(f.kind, f.va) for f in trace.findings] == [("chain-cycle", INPUT_VA)]
    assert len(trace.lists) == 1 and "cycle" in trace.stopped_reason


def test_two_cycle_chain_is_found_and_stopped():
    s, pcs = hybrid_scene()
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0))
    s.put(INPUT_VA, dispatch_input1(1, PRIMARY_VA, 16, CONT, next_=INPUT_VA + 0x40))
    s.put(INPUT_VA + 0x40, dispatch_input1(0, 0, 0, CONT, next_=INPUT_VA))
    trace = run(s, DispatchListCall(INPUT_VA, tier2=True))
    assert [(f.kind, f.list_index) for f in trace.findings] == [("chain-cycle", 1)]
    assert len(trace.lists) == 2


def test_long_acyclic_chain_hits_the_list_limit():
    s, _ = hybrid_scene()
    for i in range(8):
        s.put(INPUT_VA + 0x40 * i, dispatch_input1(0, 0, 0, CONT, next_=INPUT_VA + 0x40 * (i + 1)))
    trace = run(s, DispatchListCall(INPUT_VA, tier2=True), Limits(max_lists=5))
    assert [f.kind for f in trace.findings] == ["limit-exceeded"] and "--max-lists" in trace.findings[0].message
    assert len(trace.lists) == 5


def test_primary_stride_that_wraps_the_va_space():
    s, pcs = hybrid_scene()
    top = VA_LIMIT - 0x1000
    s.put(top, primary(pcs, ProgramTableIndex=0))
    s.put(INPUT_VA, dispatch_input(3, top, 1 << 63))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.primary_index) for f in trace.findings] == [("va-wrap", 1)]
    assert len(trace.lists[0].primary_records) == 1


def test_secondary_list_that_wraps_the_va_space():
    s, pcs = hybrid_scene()
    top = VA_LIMIT - 16
    s.put(top, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=5, SecondaryRecords=top))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.secondary_index) for f in trace.findings] == [("va-wrap", 1)]
    assert len(trace.executions) == 1


def test_findings_are_capped_and_counted():
    s, pcs = hybrid_scene()
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=7) * 200)  # every record: index out of range
    s.put(INPUT_VA, dispatch_input(200, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA), Limits(max_findings=10))
    assert len(trace.findings) == 10 and trace.findings_suppressed == 190


def test_execution_limit_stops_a_broadcast_flood_in_bounded_time():
    """NumSecondaryRecords 0xFFFFFFFF over one broadcast record stops at max_executions (default-limit timings:
    tools/executor_worst_cases.py, docs/executor.md)."""
    s, pcs = hybrid_scene(secondary_stride=0)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=0xFFFFFFFF, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    limits = Limits(max_executions=20_000)
    trace = run(s, DispatchListCall(INPUT_VA), limits)
    assert trace.findings[-1].kind == "limit-exceeded" and len(trace.executions) == limits.max_executions


def test_two_arguments_of_different_kinds_on_one_root_parameter():
    """A signature the creation-time rules reject (rule 24(b): two arguments naming one root parameter, here an SRV and
    an incrementing constant both left at RootParameterIndex 0) still runs when captured: the end-of-call reset
    reports a reset for each instead of failing an assertion, on both engines (found by tools/fuzz.py)."""
    import json

    from d3d12wl import examples
    from d3d12wl.capture.file import load_capture
    from d3d12wl.executor import execute

    doc = json.loads(examples.path("validation_chain_capture.json").read_text(encoding="utf-8"))
    args = doc["program_command_signatures"]["PCS_Draw"]["pArgumentDescs"]
    del args[0]["ShaderResourceView"], args[1]["IncrementingConstant"]
    capture = load_capture(doc, base_dir=examples.FOLDER)
    fast = execute(capture)
    assert fast.to_dict() == execute(capture, engine="reference").to_dict()
    at_zero = {(r.what, r.parameter) for r in fast.end_of_call_reset if r.parameter == 0 and r.binding_set == "graphics"}
    assert {("root view", 0), ("root constant", 0)} <= at_zero
