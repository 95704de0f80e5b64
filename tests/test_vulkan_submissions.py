"""d3d12wl.vulkan.submissions: a lowered call cut into executes so that no GPU submission is estimated to run
longer than a bound (issue 44), the records still compared with the executor record for record."""

from __future__ import annotations

import numpy as np
import pytest

from d3d12wl.executor import execute
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.vulkan import lower_capture
from d3d12wl.vulkan.captures import build_big_ei_capture, build_compute_capture
from d3d12wl.vulkan.captures_scale import build_heavy_frame_capture
from d3d12wl.vulkan.case import compare_records, layout_state, model_records
from d3d12wl.vulkan.harness import expected_records, prepare_case
from d3d12wl.vulkan.submissions import (
    NS_PER_INVOCATION,
    NS_PER_SEQUENCE,
    SubmissionBoundError,
    cut,
    estimated_ns,
    executes_within,
    invocations,
)
from d3d12wl.vulkan.vk import TokenType


def test_executes_are_cut_greedily_within_the_bound_and_the_sequence_limit() -> None:
    costs = np.array([1.0, 1, 1, 5, 1, 2, 2])
    assert executes_within(costs, None, 5.0, "x") == ((0, 3), (3, 1), (4, 3))
    assert executes_within(costs, 2, 5.0, "x") == ((0, 2), (2, 1), (3, 1), (4, 2), (6, 1))
    assert executes_within(costs, None, 100.0, "x") == ((0, 7),)
    assert executes_within(np.zeros(0), None, 1.0, "x") == ((0, 0),)


def test_a_command_alone_over_the_bound_is_refused_naming_it() -> None:
    """A D3D12 draw or dispatch is one command: it cannot be cut."""
    with pytest.raises(SubmissionBoundError, match="ExecuteIndirect sequence 2: estimated 6 ms"):
        executes_within(np.array([1e6, 1e6, 6e6]), None, 5e6, "ExecuteIndirect")


def test_invocations_are_what_the_action_asks_for() -> None:
    """Vertices (or indices) x instances, or thread groups: what the model of the recording shaders counts."""
    for cap in (build_big_ei_capture(300), build_compute_capture(), build_heavy_frame_capture(1000, per_record=100)):
        low = lower_capture(cap, sequence_index=True)
        case = prepare_case(low, cap.memory).case
        for li, leaf in enumerate(low.leaves()):
            assert np.array_equal(invocations(leaf), layout_state(case, li).invocations)


def test_a_dispatch_too_large_for_64_bits_is_estimated_not_wrapped() -> None:
    """Three group counts of 2^22 ask for 2^66 groups: a uint64 product wraps to 0, which estimated the dispatch at
    one sequence's 50 ns and let it through to the GPU; the estimate multiplies in float64 and the call is refused
    before the GPU, naming the command."""
    low = lower_capture(build_compute_capture(), sequence_index=True)
    leaf = low.leaves()[0]
    action = leaf.layout.action
    leaf.sequences = leaf.sequences.copy()
    leaf.sequences[0, action.offset:action.offset + 12] = np.full(3, 1 << 22, dtype="<u4").view(np.uint8)
    assert estimated_ns(leaf)[0] == NS_PER_SEQUENCE + NS_PER_INVOCATION * 2.0 ** 66
    with pytest.raises(SubmissionBoundError, match="sequence 0: estimated"):
        cut(low, lambda: low, None, 1000.0)


def test_a_cut_list_is_lowered_again_and_still_agrees_with_the_executor() -> None:
    """An ExecuteIndirect whose incrementing constant is the DGC sequence index when it runs as one execute: cut by
    the bound into executes of about 4 commands, it is lowered again with the constant a push constant holding the
    position (a sequence index would restart), and the records still equal the executor's, record for record."""
    cap = build_big_ei_capture(64)
    low = lower_capture(cap, sequence_index=True)
    leaf = low.leaves()[0]
    assert leaf.chunks == ((0, 63),)
    increments = [t for t in leaf.layout.tokens if t.type is TokenType.SEQUENCE_INDEX and t.arg is not None]
    assert increments  # the incrementing constant as the sequence index
    bound_ms = 4 * (NS_PER_SEQUENCE + NS_PER_INVOCATION * 4) / 1e6
    cut_low = cut(low, lambda: lower_capture(cap, sequence_index=True, cut=True), None, bound_ms)
    chunks = cut_low.leaves()[0].chunks
    assert len(chunks) > 10 and sum(n for _, n in chunks) == 63
    assert not [t for t in cut_low.leaves()[0].layout.tokens if t.type is TokenType.SEQUENCE_INDEX and t.arg is not None]
    prep = prepare_case(cut_low, cap.memory)
    assert len(prep.case.executes) == len(chunks)
    trace = execute(cap)
    want = expected_records(execution_columns(trace.executions), cut_low, prep, cap.memory)
    assert compare_records(model_records(prep.case).records, want.records)["mismatches"] == 0
