"""Default limits that let a real frame through and stop hostile counts (Limits: AUTO limits scaled to the
mapped bytes, max_repeated_records for broadcast strides, the validation-hook pre-pass counted)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    dispatch,
    dispatch_input,
    hybrid_scene,
    primary,
    secondaries,
)
from test_validation_hooks import AREA_SECONDARY_LIST, SL, Setup

from d3d12wl.executor import execute, run
from d3d12wl.executor.trace import AUTO, BYTES_PER_RECORD, SCALED_FLOORS, Limits
from d3d12wl.model.state import DispatchListCall

ROOT = Path(__file__).resolve().parent.parent


def tool(name: str):  # noqa: ANN201 - a module from tools/
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        return __import__(name)
    finally:
        sys.path.pop(0)


def test_auto_limits_scale_with_the_mapped_bytes():
    limits = Limits()
    assert limits.max_records == limits.max_executions == AUTO
    small = limits.resolved(1000)
    assert small.max_executions == SCALED_FLOORS["max_executions"] and small.max_records == SCALED_FLOORS["max_records"]
    big = limits.resolved(1 << 30)
    assert big.max_executions == big.max_records == (1 << 30) // BYTES_PER_RECORD
    assert Limits(max_executions=10).resolved(1 << 30).max_executions == 10  # an explicit limit stays
    assert limits.max_executions == AUTO  # resolved() makes a new object


def test_a_real_frame_runs_whole_at_the_defaults():
    """120,000 draws (more than the 65,536 executions of the old fixed default) run whole: no limit finding."""
    capture = tool("bench_executor").culling_capture(120_000, 16)
    trace = execute(capture)
    assert len(trace.executions) == 120_000 and not trace.findings and trace.stopped_reason is None
    assert trace.limits.max_executions >= 120_000


def test_a_broadcast_flood_stops_at_max_repeated_records():
    """NumSecondaryRecords 0xFFFFFFFF over one broadcast (stride 0) record: 12 bytes would drive 4 billion
    executions; the repeated-records limit stops it and names its flag."""
    s, pcs = hybrid_scene(secondary_stride=0)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=0xFFFFFFFF, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    call = DispatchListCall(INPUT_VA)
    (f,) = run(s.memory, s.device, s.objects, s.state, call).findings  # a tiny capture: the executions floor
    assert f.kind == "limit-exceeded" and "--max-executions" in f.message
    trace = run(s.memory, s.device, s.objects, s.state, call, Limits(max_executions=1 << 24))  # as in a big capture
    (f,) = trace.findings
    assert f.kind == "limit-exceeded" and "--max-repeated-records" in f.message
    assert len(trace.executions) == Limits().max_repeated_records + 1  # the first record is not a repeat
    small = Limits(max_repeated_records=100)
    ref = run(s.memory, s.device, s.objects, s.state, call, small, engine="reference")
    assert ref.to_dict() == run(s.memory, s.device, s.objects, s.state, call, small).to_dict()


def test_the_validation_hook_pre_pass_counts_toward_max_records():
    """A hooked list with NumProgramInputs 0xFFFFFFFF: the secondary-list validators' pre-pass reads records
    (step 7) and counts them, so the call stops at max_records instead of walking max_primary_records records
    outside every limit."""
    t = Setup()
    rec = t.hybrid_record(0, 1)
    t.hybrid.RecordValidationProgramTableIndex = SL
    t.validator(SL, AREA_SECONDARY_LIST, lambda c: None)
    call = DispatchListCall(t.list(0, 0xFFFFFFFF, rec, 1), 16, 16, tier2=True)
    trace = run(t.s.memory, t.s.device, t.s.objects, t.s.state, call, Limits(max_records=500), hooks=t.runner)
    assert trace.findings[-1].kind == "limit-exceeded" and "--max-records" in trace.findings[-1].message
    assert trace.validator_invocations == []  # stopped in the pre-pass, before any validator ran
    assert trace.lists[0].primary_records == []


@pytest.mark.parametrize("case,kind", [("self-cycle", "chain-cycle"), ("two-cycle", "chain-cycle"),
                                       ("broadcast-flood", "limit-exceeded"), ("primary-flood", "unmapped-va"),
                                       ("culling-flood", None)])
def test_worst_cases_at_the_defaults(case, kind):
    """docs/executor.md's worst cases at the default limits: each ends with its finding (culling-flood, 70,000
    distinct secondary records, now runs whole)."""
    s, call = tool("executor_worst_cases").build(case)
    trace = run(s.memory, s.device, s.objects, s.state, call)
    assert (trace.findings[-1].kind if trace.findings else None) == kind
    if kind == "limit-exceeded":
        assert "--max-" in trace.findings[-1].message
