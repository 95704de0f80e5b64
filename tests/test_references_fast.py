"""The references table read in columns (d3d12wl/executor/references_fast.py) is the walk's table (the oracle,
``engine="walk"``), row for row and code for code, with the same findings and the same listing per region (what
``remap`` rewrites), on every capture the tests build: the spec's bundled examples (Tier 1 culling, the Tier 2
chain, ExecuteIndirect with and without count buffers, the validation chain), the executor scenes of
tests/remap_cases.py (descriptor tables global and local, an explicit local root signature's tail, raytracing),
every Work Lists and ExecuteIndirect breaker of tests/call_requirements.py kept and broken (hostile calls with
findings: unmapped and misaligned records, limits, bad slots, chains), zeros regions, and the benchmark's frame
at several chunk sizes.  Where the columns cannot decide, the call takes the walk and says why."""

from __future__ import annotations

import random
import sys
from pathlib import Path
from typing import Any

import breakers_ei  # noqa: F401  (registers its breakers)
import breakers_wl  # noqa: F401  (registers its breakers)
import numpy as np
import pytest
from call_requirements import BREAKERS, Call
from remap_cases import CASES

from d3d12wl.capture.file import CAPTURE_VERSION, Capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import arrays, references_fast
from d3d12wl.executor.references import COLUMNS, ReferenceWalk, patch_list, walk_references
from d3d12wl.executor.trace import Limits
from d3d12wl.model.state import DispatchListCall
from d3d12wl.records import packers
from d3d12wl.records.dtypes import record_dtype
from d3d12wl.records.layout import pcs_layout

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))
from bench_executor import culling_capture, execute_indirect_capture  # noqa: E402  (the benchmarks' frames)


def _walked(capture: Capture, engine: str, limits: Limits | None = None) -> tuple[dict[str, np.ndarray],
                                                                                  ReferenceWalk]:
    parts: list[dict[str, np.ndarray]] = []
    walk = walk_references(capture, lambda t: parts.append(t.columns), limits=limits, engine=engine)
    cols = {c: np.concatenate([p[c] for p in parts]) if parts else np.zeros(0, dtype=dt)
            for c, dt in COLUMNS.items()}
    return cols, walk


def assert_same(capture: Capture, limits: Limits | None = None) -> ReferenceWalk:
    """Both engines give one table: columns (dtype and values), names, findings, the listing per region."""
    want, oracle = _walked(capture, "walk", limits)
    got, walk = _walked(capture, "auto", limits)
    for c, dt in COLUMNS.items():
        assert got[c].dtype == dt == want[c].dtype, c
        assert np.array_equal(got[c], want[c]), (c, got[c][:8], want[c][:8])
    assert walk.names == oracle.names
    assert walk.rows == oracle.rows == len(got["va"])
    assert [str(f) for f in walk.trace.findings] == [str(f) for f in oracle.trace.findings]
    assert walk.trace.findings_suppressed == oracle.trace.findings_suppressed
    assert [str(f) for f in walk.findings] == [str(f) for f in oracle.findings]
    assert walk.findings_suppressed == oracle.findings_suppressed
    for r in range(len(walk.region_names)):
        (o1, c1), (o2, c2) = walk.listed.arrays(r), oracle.listed.arrays(r)
        assert o1.dtype == o2.dtype and np.array_equal(o1, o2) and np.array_equal(c1, c2)
    assert walk.trace.stopped_reason == oracle.trace.stopped_reason
    assert [len(lt.primary_records) for lt in walk.trace.lists] == [len(lt.primary_records)
                                                                     for lt in oracle.trace.lists]
    assert len(walk.trace.executions) == len(oracle.trace.executions)
    return walk


@pytest.mark.parametrize("name", list(CASES))
def test_every_case_gives_the_walks_table(name: str) -> None:
    assert_same(CASES[name]())


def _capture(call: Call) -> Capture:
    return Capture(CAPTURE_VERSION, call.device, call.objects, call.memory, call.state, call.call)


@pytest.mark.parametrize("broken", [False, True])
@pytest.mark.parametrize("breaker", BREAKERS, ids=lambda b: f"{b.name}")
def test_every_breaker_kept_and_broken_gives_the_walks_table(breaker: Any, broken: bool) -> None:
    """Hostile calls: whatever the breaker breaks (the columns decide it or hand the call to the walk), the
    table, the findings and the listing are the walk's."""
    assert_same(_capture(breaker.build(random.Random(7), broken)))


@pytest.mark.parametrize("chunk", [3, 64, arrays.CHUNK])
def test_the_benchmark_frame_in_columns_at_every_chunk_size(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The culling frame (hybrid records, three programs, four secondary records each) is decided in columns, and
    the rows come in the walk's order whatever the chunk size."""
    monkeypatch.setattr(arrays, "CHUNK", chunk)
    walk = assert_same(culling_capture(4 * 200, 4))
    assert walk.engine == "columns" and walk.undecided is None


@pytest.mark.parametrize("cache", [None, 0, 1536])
def test_pass_one_columns_kept_read_again_or_both(cache: int | None, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pass 2 reads the chunks pass 1 kept (16 bytes a hybrid record, up to references_fast.CACHE_BYTES) and
    reads the others again: every chunk kept, none (a cap of 0), and a cap reached in the middle of the list
    (64-record chunks of 1024 bytes, the last one 128: the first and the last fit in 1536) give the walk's
    table."""
    monkeypatch.setattr(arrays, "CHUNK", 64)
    if cache is not None:
        monkeypatch.setattr(references_fast, "CACHE_BYTES", cache)
    reads: list[int] = []
    chunk_columns = references_fast._chunk_columns

    def counted(lp: Any, i0: int, i1: int) -> Any:
        reads.append(i0)
        return chunk_columns(lp, i0, i1)

    monkeypatch.setattr(references_fast, "_chunk_columns", counted)
    capture = culling_capture(4 * 200, 4)  # 200 primary records: chunks of 64, 64, 64 and 8
    got, walk = _walked(capture, "auto")
    assert walk.engine == "columns"
    again = {None: [], 0: [0, 64, 128, 192], 1536: [64, 128]}[cache]
    assert reads == [0, 64, 128, 192, *again]
    monkeypatch.setattr(references_fast, "_chunk_columns", chunk_columns)
    want, _ = _walked(capture, "walk")
    for c in COLUMNS:
        assert np.array_equal(got[c], want[c]), c
    assert_same(capture)


@pytest.mark.parametrize("chunk", [3, 64, arrays.CHUNK])
def test_execute_indirect_commands_in_columns_at_every_chunk_size(chunk: int,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """The executor benchmark's ExecuteIndirect frame (root constants, a vertex buffer view each, a count buffer)
    is read in columns, chunk by chunk as the walk takes it; a limit inside it sends the call to the walk."""
    monkeypatch.setattr(arrays, "CHUNK", chunk)
    capture = execute_indirect_capture(200)
    walk = assert_same(capture)
    assert walk.engine == "columns" and walk.undecided is None
    table = patch_list(capture)
    assert table.columns["command_index"][table.columns["command_index"] >= 0].tolist() == list(range(200))
    walk = assert_same(capture, Limits(max_executions=150))
    assert walk.engine == "walk" and walk.undecided == "a limit"


def _reversed_lists(capture: Capture) -> Capture:
    """The frame with record k reading list n - 1 - k (the same lists, not end to end)."""
    pcs = capture.objects.program_command_signatures["PCS"]
    header = packers.read_dispatch_list_inputs(capture.memory.view(capture.call.DispatchListInput, 24))[0]
    n, start = int(header["NumProgramInputs"]), int(header["ProgramInputs"]["StartAddress"])
    stride = int(header["ProgramInputs"]["StrideInBytes"])
    memory = GpuMemory()
    for r in capture.memory.regions:
        data = bytearray(r.data)
        if r.base <= start < r.end:
            rec = np.ndarray((n,), dtype=record_dtype(pcs_layout(pcs).primary, stride), buffer=data,
                             offset=start - r.base)
            rec["SecondaryRecords"] = rec["SecondaryRecords"][::-1].copy()
        memory.map(r.base, bytes(data), name=r.name)
    capture.memory = memory
    return capture


def test_secondary_lists_out_of_order_are_read_by_a_gather() -> None:
    """Secondary lists that do not lie end to end leave the one-run read (a gather of the fields); the rows and
    the listing are still the walk's."""
    capture = _reversed_lists(culling_capture(4 * 50, 4))
    walk = assert_same(capture)
    assert walk.engine == "columns"
    table = patch_list(capture)
    secondary = table.columns["secondary_index"] >= 0
    assert bool((np.diff(table.columns["va"][secondary].astype(np.int64)) < 0).any())  # not one ascending run


def _primary_records(capture: Capture) -> tuple[np.ndarray, GpuMemory]:
    """The frame's primary records as a writable structured array over a copy of its memory (one region)."""
    pcs = capture.objects.program_command_signatures["PCS"]
    header = packers.read_dispatch_list_inputs(capture.memory.view(capture.call.DispatchListInput, 24))[0]
    n, start = int(header["NumProgramInputs"]), int(header["ProgramInputs"]["StartAddress"])
    stride = int(header["ProgramInputs"]["StrideInBytes"])
    (region,) = [r for r in capture.memory.regions if r.size]
    data = bytearray(region.data)
    rec = np.ndarray((n,), dtype=record_dtype(pcs_layout(pcs).primary, stride), buffer=data,
                     offset=start - region.base)
    memory = GpuMemory()
    memory.map(region.base, data, name=region.name)
    return rec, memory


def _split(memory: GpuMemory, va: int) -> GpuMemory:
    """The one region as two that meet at ``va``."""
    (region,) = [r for r in memory.regions if r.size]
    data = bytes(region.data)
    out = GpuMemory()
    out.map(region.base, data[:va - region.base], name="low")
    out.map(va, data[va - region.base:], name="high")
    return out


def test_secondary_lists_across_regions_and_empty_lists() -> None:
    """End-to-end secondary lists split between two adjacent regions at a list's start are read per list (the
    gather); split inside a list, the walk reports it and takes the call; records of no secondary record, their
    SecondaryRecords misaligned or unmapped, read nothing and keep the rest of the chunk in one run."""
    capture = culling_capture(4 * 100, 4)
    rec, memory = _primary_records(capture)
    at = int(rec["SecondaryRecords"][30])
    capture.memory = _split(memory, at)
    walk = assert_same(capture)
    assert walk.engine == "columns"
    rows = walk.rows
    capture.memory = _split(memory, at + 8)
    walk = assert_same(capture)
    assert walk.engine == "walk" and walk.undecided == "a secondary list leaves its region"
    capture.memory = memory
    rec["NumSecondaryRecords"][99] = 0  # the last list empty, its address where it would start: still one run
    assert_same(capture)
    rec["NumSecondaryRecords"][[0, 7, 99]] = 0
    rec["SecondaryRecords"][[0, 7, 99]] = [3, 0, 2**64 - 8]
    walk = assert_same(capture)
    assert walk.engine == "columns" and walk.rows == rows - 3 * 4  # (one SRV a secondary record)
    rec["SecondaryRecords"][50] += 8  # no longer end to end: each list checked on its own, the fields gathered
    walk = assert_same(capture)
    assert walk.engine == "columns"


def test_limits_send_the_call_to_the_walk() -> None:
    capture = culling_capture(4 * 100, 4)
    walk = assert_same(capture, Limits(max_executions=50))
    assert walk.engine == "walk" and walk.undecided == "a limit"
    walk = assert_same(capture, Limits(max_primary_records=10))
    assert walk.engine == "walk" and walk.undecided == "max_primary_records"


def test_unmapped_secondary_records_send_the_call_to_the_walk() -> None:
    capture = culling_capture(4 * 20, 4)
    regions = [r for r in capture.memory.regions if r.size]
    memory = GpuMemory()
    for r in regions:  # the secondary records' region cut short: the last lists leave it
        memory.map(r.base, bytes(r.data)[: r.size - 64] if r is regions[-1] else bytes(r.data), name=r.name)
    capture.memory = memory
    walk = assert_same(capture)
    assert walk.engine == "walk" and walk.undecided is not None


def test_zeros_regions_and_no_records() -> None:
    """A list with no primary record reads nothing; a region of zeros (no bytes materialized) reads as zeros."""
    capture = culling_capture(4 * 10, 4)
    memory = GpuMemory()
    for r in capture.memory.regions:
        memory.map(r.base, bytes(r.data), name=r.name)
    map_zeros = getattr(memory, "map_zeros", None)
    if map_zeros is not None:
        map_zeros(0x7000_0000, 1 << 20, name="zeros")
    capture.memory = memory
    assert_same(capture)


def test_what_takes_the_walk_says_why() -> None:
    for name in ("execute indirect", "execute indirect, every argument"):
        _, walk = _walked(CASES[name](), "auto")
        assert walk.engine == "columns" and walk.undecided is None, name
    why = {"command_unmapped": "commands outside one region", "command_va_wrap": "a command's address wraps",
           "index_buffer_format_invalid": "a command the executor reports",
           "cbv_address_misaligned": "a command the executor reports"}
    for breaker in BREAKERS:
        if breaker.name in why:
            _, walk = _walked(_capture(breaker.build(random.Random(7), True)), "auto")
            assert walk.engine == "walk" and walk.undecided is not None, breaker.name
            assert walk.undecided.startswith(why[breaker.name]), (breaker.name, walk.undecided)
    rt = CASES["raytracing hybrid"]()
    _, walk = _walked(rt, "auto")
    assert walk.engine == "walk" and walk.undecided is not None and "raytracing" in walk.undecided
    culling = CASES["tier 1 culling"]()
    assert isinstance(culling.call, DispatchListCall)
    _, walk = _walked(culling, "auto")
    assert walk.engine == "columns"
    _, walk = _walked(culling, "walk")
    assert walk.engine == "walk" and walk.undecided is None
    with pytest.raises(ValueError, match="engine"):
        walk_references(culling, lambda t: None, engine="fast")


def test_fields_at_a_stride_are_listed_as_runs_and_merge_with_later_fields() -> None:
    """Listed.fresh_strided keeps a run of records' fields as the run it is; fields listed later among them (a
    shared list, the same field read as another kind) are merged, found listed, and reported as fresh() would:
    the listing ends as if every field had gone through fresh()."""
    from d3d12wl.executor.references_table import Listed

    def listing(strided: bool) -> tuple[Listed, list[list[bool]]]:
        listed, seen = Listed([1 << 20]), []
        if strided:
            assert listed.fresh_strided(0, 64, 10, 32, (0, 16), (0, 2))
            assert listed.fresh_strided(0, 1024, 3, 8, (0,), (0,))
            assert not listed.fresh_strided(0, 96 + 16, 2, 32, (0,), (0,))  # among the first run: not recorded
        else:
            o = (64 + 32 * np.arange(10)[:, None] + np.array([0, 16])[None, :]).reshape(-1).astype(np.uint64)
            seen.append(listed.fresh(0, o, np.tile(np.array([0, 2], np.int8), 10), disjoint=True).tolist())
            o = (1024 + 8 * np.arange(3)).astype(np.uint64)
            seen.append(listed.fresh(0, o, np.zeros(3, np.int8), disjoint=True).tolist())
        # a later chunk: two fields listed before (one as another kind), one new between the runs
        seen.append(listed.fresh(0, np.array([80, 128, 600], np.uint64), np.array([2, 2, 0], np.int8)).tolist())
        return listed, seen

    a, seen_a = listing(True)
    b, seen_b = listing(False)
    assert seen_a[-1] == seen_b[-1] == [False, False, True]
    (oa, ca), (ob, cb) = a.arrays(0), b.arrays(0)
    assert oa.dtype == ob.dtype == np.uint32 and oa.tolist() == ob.tolist() and ca.tolist() == cb.tolist()
    assert a.overlaps == b.overlaps and a.overlap_count == b.overlap_count == 1  # 128: a VA read as a handle
