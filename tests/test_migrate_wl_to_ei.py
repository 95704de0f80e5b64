"""``migrate wl-to-ei``: the lowering a runtime without Work Lists would do, checked by the executor, and the round
trips WL -> EI -> WL and EI -> WL -> EI (spec "Execution Order and State Scoping" for the order compared)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from d3d12wl import abi
from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.file import Capture, load_capture
from d3d12wl.executor import execute
from d3d12wl.migrate.ei_to_wl import ei_to_wl
from d3d12wl.migrate.equivalence import compare_runs
from d3d12wl.migrate.runs import MigrationError, load_call_sequence
from d3d12wl.migrate.scene import bucket_scene
from d3d12wl.migrate.wl_to_ei import wl_to_ei
from d3d12wl.model import description
from d3d12wl.model.state import RootArgument
from d3d12wl.records.layout import pcs_layout
from d3d12wl.rules import check_command_signature

ROOT = Path(__file__).resolve().parents[1]
CULLING = ROOT / "d3d12wl" / "examples" / "culling_capture.json"


def test_culling_example_lowers_to_one_call_per_program_and_back() -> None:
    """The spec's culling example: three programs, a tint from the program table, a root SRV and DRAW per secondary
    record.  The tint becomes command-list state of each program's call, at its register b0 space1."""
    wl = load_capture(CULLING)
    lowered = wl_to_ei(wl)
    report = lowered.report()
    assert [(c["program"], c["count"]) for c in report["calls"]] == [("Opaque", 4), ("Transparent", 2), ("Shadow", 3)]
    assert report["after"]["calls"] == 3 and report["after"]["empty_calls"] == 0
    for call in lowered.calls:
        assert check_command_signature(call.capture.call.pCommandSignature) == []  # type: ignore[union-attr, arg-type]
        assert not execute(call.capture).to_dict()["findings"]
    assert compare_runs(wl, lowered.entries).same
    back = ei_to_wl(lowered.entries)
    assert back.placement["b0 space1"] == "program-table"
    comparison = compare_runs(wl, back.capture)
    assert comparison.same and comparison.ordered


def test_bucket_scene_round_trips_with_its_empty_calls() -> None:
    """Motivation: the PSOs no draw uses still cost an ExecuteIndirect each once the work list is lowered."""
    scene = bucket_scene(500, 12, mixed=True, seed=11)
    wl = ei_to_wl(scene)
    lowered = wl_to_ei(wl.capture)
    report = lowered.report()
    empty = sum(e.capture.memory.read_u32(0x100000) == 0 for e in scene)
    assert report["after"]["calls"] == 12 and report["after"]["empty_calls"] == empty > 0
    assert [c.program for c in lowered.calls if c.count] == [e.program for e in scene if
                                                             e.capture.memory.read_u32(0x100000)]
    assert compare_runs(scene, lowered.entries).same
    assert wl_to_ei(wl.capture, include_empty=False).report()["after"]["empty_calls"] == 0


def _interleaved(flags: int) -> Capture:
    """The culling objects with primary records selecting slots 0, 1, 0 (spec "Primary record layout")."""
    objects = description.load(ROOT / "d3d12wl" / "examples" / "culling.json")
    pcs = objects.program_command_signatures["PCS"]
    names = ["Opaque", "Transparent"]
    ids = np.frombuffer(b"".join(objects.programs[n].Identifier for n in names), dtype=np.uint8).reshape(2, 32)
    tints = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 0.7, 1.0, 0.5]], dtype=np.float32).view(np.uint32)
    counts = np.array([2, 1, 3])
    n = int(counts.sum())
    draws = DispatchListSpec(pcs, {"ProgramTableIndex": np.array([0, 1, 0], dtype=np.uint32)}, secondary={
        "arg0_ShaderResourceView": 0x100000 + np.arange(n, dtype=np.uint64) * np.uint64(0x1000),
        "arg1_Draw.VertexCountPerInstance": np.arange(n) + 3, "arg1_Draw.InstanceCount": 1,
        "arg1_Draw.StartVertexLocation": 0, "arg1_Draw.StartInstanceLocation": 0}, secondary_counts=counts,
        flags=flags)
    built = build_work_list([draws], base_va=0x10000, signature=objects.work_list_signatures["WLS"],
                            program_table=ProgramTableSpec(pcs_layout(pcs), {"ProgramIdentifier": ids,
                                                                                "arg2_InlineRootParameter": tints}))
    grs = objects.root_signatures["GRS"]
    state = built.command_list_state(graphics_root_signature=grs,
                                     graphics_root_arguments={0: RootArgument("descriptor", value=0x50000)})
    capture = built.to_capture(objects, state=state)
    assert isinstance(capture, Capture)
    return capture


def test_in_order_list_lowers_to_one_call_per_run() -> None:
    """Execution Order: records of an in-order graphics list run in array order, so slots 0, 1, 0 are three calls."""
    wl = _interleaved(0)
    lowered = wl_to_ei(wl)
    assert [(c.program, c.count) for c in lowered.calls] == [("Opaque", 2), ("Transparent", 1), ("Opaque", 3)]
    comparison = compare_runs(wl, lowered.entries)
    assert comparison.same and comparison.ordered


def test_out_of_order_list_lowers_to_one_call_per_slot_compared_as_multisets() -> None:
    """_ALLOW_OUT_OF_ORDER_GRAPHICS: any order across primary records, so one call per slot, and the runs compare as
    multisets (in order they differ)."""
    wl = _interleaved(abi.enum_value("D3D12_DISPATCH_LIST_FLAGS", "ALLOW_OUT_OF_ORDER_GRAPHICS"))
    lowered = wl_to_ei(wl)
    assert [(c.program, c.count) for c in lowered.calls] == [("Opaque", 5), ("Transparent", 1)]
    comparison = compare_runs(wl, lowered.entries)
    assert comparison.same and not comparison.ordered
    assert not compare_runs(wl, lowered.entries, order="strict").same


def test_a_tier2_chain_lowers_list_by_list() -> None:
    """Dispatch List Continuations / Signature Selection: each list of the chain with the signature and binding its
    SignatureIndex selects; the compute list is one call per slot (never ordered), the in-order graphics list one
    call per run; the incrementing constant restarts with each list."""
    wl = load_capture(ROOT / "d3d12wl" / "examples" / "tier2_chain_capture.json")
    lowered = wl_to_ei(wl)
    assert [(c.program, c.count) for c in lowered.calls] == [("Cull", 3), ("Opaque", 3), ("AlphaTested", 2)]
    assert lowered.report()["before"]["parts"]["dispatch_input"] == 2 * 40
    comparison = compare_runs(wl, lowered.entries)
    assert comparison.same and comparison.classes == {"COMPUTE": False, "GRAPHICS": True}, comparison
    assert not compare_runs(wl, lowered.entries[::-1]).same  # the graphics draws out of order


def test_a_bound_validation_table_is_refused() -> None:
    """GPU Timeline Validation Hooks rewrite the lists as they run; a lowering cannot run Python validators."""
    with pytest.raises(MigrationError, match="ValidationProgramTable"):
        wl_to_ei(load_capture(ROOT / "d3d12wl" / "examples" / "validation_chain_capture.json"))


def test_cli_wl_to_ei_writes_a_call_sequence(tmp_path: Path) -> None:
    r = subprocess.run([sys.executable, "-m", "d3d12wl", "migrate", "wl-to-ei", str(CULLING), "--output-dir", str(tmp_path),
                        "--verify", "--json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["verify"]["same"] and report["after"]["calls"] == 3
    entries = load_call_sequence(tmp_path / "calls.json")
    assert [e.program for e in entries] == ["Opaque", "Transparent", "Shadow"]
    assert compare_runs(CULLING, tmp_path / "calls.json").same
    r = subprocess.run([sys.executable, "-m", "d3d12wl", "migrate", "wl-to-ei",
                        str(ROOT / "d3d12wl" / "examples" / "execute_indirect_capture.json"), "-o", str(tmp_path)],
                       cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and "lowers a DispatchList or DispatchList1" in r.stderr


def _ic_capture(reset: bool, trigger: str, inline_ic: bool = False) -> Capture:
    """A list-wide (or per-secondary-list) incrementing constant over hybrid records of two primary records and an
    inline PCS without one (with one, of the same flags, when ``inline_ic``) (spec "Incrementing constant
    semantics")."""
    sys.path.insert(0, str(Path(__file__).parent))
    from executor_builder import (
        INPUT_VA,
        PRIMARY_VA,
        SECONDARY_VA,
        TABLE_VA,
        Scene,
        arg,
        constants_param,
        dispatch_input,
        draw,
        primary,
        program,
        program_table,
        root_signature,
        secondaries,
    )

    from d3d12wl.capture.file import CAPTURE_VERSION
    from d3d12wl.model.objects import IncrementingConstantArg, ProgramCommandSignature, WorkListSignature
    from d3d12wl.model.state import DispatchListCall, RootArgument

    grs = root_signature("G", constants_param(2))
    flags_ = abi.enum_value("D3D12_INCREMENTING_CONSTANT_FLAGS", "RESET_PER_SECONDARY_LIST") if reset else 0
    ic = arg("INCREMENTING_CONSTANT", "SYSTEM", IncrementingConstant=IncrementingConstantArg(0, 1, flags_))
    fill = arg("CONSTANT", "PRIMARY_RECORD")
    fill.Constant.Num32BitValuesToSet = 1
    hybrid = ProgramCommandSignature("H", [ic, arg(trigger, "SECONDARY_RECORD")], SecondaryRecordByteStride=16,
                                     pGlobalRootSignature=grs)
    inline = ProgramCommandSignature("I", [fill, *([ic] if inline_ic else []), arg(trigger)],
                                     pGlobalRootSignature=grs)
    s = Scene()
    progs = [program("A", 1, hybrid), program("B", 2, inline)]
    s.add_programs(*progs)
    s.put(TABLE_VA, program_table([(p, {}) for p in progs], 32))
    s.bind(WorkListSignature("W", [hybrid, inline]), TABLE_VA, 32, 2)
    s.state.graphics_root_signature = s.state.compute_root_signature = grs
    # both DWORDs of G's constants from the command list: the records and the counter override some per execution
    s.state.graphics_root_arguments[0] = s.state.compute_root_arguments[0] = RootArgument("constants", values=[5, 6])
    payload = draw(3) if trigger == "DRAW" else {"ThreadGroupCountX": 1, "ThreadGroupCountY": 1,
                                                 "ThreadGroupCountZ": 1}
    name = "Draw" if trigger == "DRAW" else "Dispatch"
    data = b""
    for r, n in enumerate([2, -1, 3]):
        if n < 0:
            data += primary(inline, 24, ProgramTableIndex=1, arg0_Constant=[9],
                            **{f"arg{2 if inline_ic else 1}_{name}": payload})
        else:
            va = SECONDARY_VA + 0x1000 * r
            s.put(va, secondaries(hybrid, [{f"arg1_{name}": payload}] * n))
            data += primary(hybrid, 24, ProgramTableIndex=0, NumSecondaryRecords=n, SecondaryRecords=va)
    s.put(PRIMARY_VA, data)
    s.put(INPUT_VA, dispatch_input(3, PRIMARY_VA, 24))
    return Capture(CAPTURE_VERSION, s.device, s.objects, s.memory, s.state,
                   DispatchListCall(INPUT_VA, 3 if trigger == "DRAW" else 0))


@pytest.mark.parametrize("reset", [False, True], ids=["list-wide", "reset-per-secondary-list"])
@pytest.mark.parametrize("trigger", ["DRAW", "DISPATCH"])
def test_incrementing_constant_becomes_the_values_it_would_have_had(reset: bool, trigger: str) -> None:
    """Incrementing constant semantics: the counter post-increments per invocation across the whole list (every
    program's executions count), or restarts at each secondary list; lowered, each command carries its value."""
    wl = _ic_capture(reset, trigger)
    trace = execute(wl).to_dict()
    assert not trace["findings"]
    counters = [e["counter"] for e in trace["executions"] if e["pcs"] == "H"]
    assert counters == ([0, 1, 0, 1, 2] if reset else [0, 1, 3, 4, 5])
    lowered = wl_to_ei(wl)
    assert sum(c.count for c in lowered.calls) == 6
    comparison = compare_runs(wl, lowered.entries)
    assert comparison.same and comparison.ordered == (trigger == "DRAW") and not comparison.note, comparison


@pytest.mark.parametrize("trigger", ["DRAW", "DISPATCH"])
def test_reset_per_secondary_list_leaves_a_fully_inline_counter_list_wide(trigger: str) -> None:
    """Incrementing constant semantics: _RESET_PER_SECONDARY_LIST "overrides this for hybrid signatures" only; a
    fully-inline PCS's counter stays list-wide (its record, after two hybrid executions, sees 2)."""
    wl = _ic_capture(True, trigger, inline_ic=True)
    trace = execute(wl).to_dict()
    assert not trace["findings"]
    assert [e["counter"] for e in trace["executions"] if e["pcs"] == "I"] == [2]
    comparison = compare_runs(wl, wl_to_ei(wl).entries)
    assert comparison.same, comparison


@pytest.mark.parametrize("count", [1 << 20, 1 << 30])
def test_a_huge_num_program_inputs_is_refused_before_anything_is_allocated(count: int) -> None:
    """Dispatch list input: NumProgramInputs records of StrideInBytes must lie in mapped memory; past it (or past
    what one migration reads) the lowering refuses, naming the first record outside, before allocating."""
    import tracemalloc

    from d3d12wl.capture.memory import GpuMemory
    from d3d12wl.migrate.runs import MigrationError

    capture = load_capture(CULLING)
    at = capture.call.DispatchListInput + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "NumProgramInputs")  # type: ignore[union-attr]
    memory = GpuMemory()
    for r in capture.memory:
        raw = bytearray(capture.memory.read(r.base, r.size))
        if r.base <= at < r.base + r.size:
            raw[at - r.base:at - r.base + 4] = count.to_bytes(4, "little")
        memory.map(r.base, bytes(raw), name=r.name)
    capture.memory = memory
    tracemalloc.start()
    try:
        with pytest.raises(MigrationError, match="primary record 3 at VA|exceed"):
            wl_to_ei(capture)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak


def _with_region(capture: Capture, base: int, size: int | None = None, patch: tuple[int, bytes] | None = None
                 ) -> Capture:
    """``capture`` with the region at ``base`` cut to ``size`` bytes and/or ``patch`` (va, bytes) written."""
    from d3d12wl.capture.memory import GpuMemory

    memory = GpuMemory()
    for r in capture.memory:
        raw = bytearray(capture.memory.read(r.base, r.size))
        if patch is not None and r.base <= patch[0] < r.base + r.size:
            raw[patch[0] - r.base:patch[0] - r.base + len(patch[1])] = patch[1]
        memory.map(r.base, bytes(raw[:size] if r.base == base and size is not None else raw), name=r.name)
    capture.memory = memory
    return capture


def test_each_primary_record_is_read_at_its_own_pcs_size() -> None:
    """Primary record layout: a record is its PCS's header and inline tail; the last record, of the hybrid PCS (16
    bytes), may end before the inline PCS's 24-byte record would, where the mapped list ends."""
    sys.path.insert(0, str(Path(__file__).parent))
    from executor_builder import PRIMARY_VA

    full = _ic_capture(False, "DRAW")
    hybrid = pcs_layout(full.objects.programs["A"].ProgramCommandSignature)  # type: ignore[arg-type]
    cut = _with_region(_ic_capture(False, "DRAW"), PRIMARY_VA, 2 * 24 + hybrid.primary.size)
    assert not execute(cut).to_dict()["findings"]
    assert compare_runs(cut, wl_to_ei(cut).entries).same


def test_a_primary_stride_not_8_byte_aligned_is_refused() -> None:
    """Rule 25(e) (Per-arg integrity (e)): ProgramInputs.StrideInBytes must be 8-byte aligned."""
    sys.path.insert(0, str(Path(__file__).parent))
    from executor_builder import INPUT_VA

    from d3d12wl.migrate.runs import MigrationError

    at = INPUT_VA + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes")
    capture = _with_region(_ic_capture(False, "DRAW"), INPUT_VA, patch=(at, (28).to_bytes(8, "little")))
    with pytest.raises(MigrationError, match="not 8-byte aligned"):
        wl_to_ei(capture)
