"""The whole-work-list builder: every part at an 8-byte-aligned VA, addresses that point where the parts are, Tier 2
chains, and a capture that the executor runs (spec "GPU culling and work list emission", "D3D12_DISPATCH_LIST_INPUT",
"D3D12_WORK_LIST_PRIMARY_RECORD", "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING", "Dispatch List Continuations")."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from d3d12wl import abi, description
from d3d12wl.builder import BuiltWorkList, DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.errors import PackError
from d3d12wl.layout import pcs_layout
from d3d12wl.model import ObjectSet, WorkListSignatureArray
from d3d12wl.packers import (
    read_dispatch_list_inputs,
    read_primary_records,
    read_program_table,
    read_secondary_records,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
BASE = 0x7_0000_0000


def objects() -> ObjectSet:
    return description.load(EXAMPLES / "culling.json")


def secondary(n: int) -> dict[str, np.ndarray | int]:
    return {"arg0_ShaderResourceView": 0x9000 + np.arange(n, dtype=np.uint64) * 256,
            "arg1_Draw.VertexCountPerInstance": np.arange(n, dtype=np.uint32) + 3, "arg1_Draw.InstanceCount": 1,
            "arg1_Draw.StartVertexLocation": 0, "arg1_Draw.StartInstanceLocation": 0}


def table(objs: ObjectSet) -> ProgramTableSpec:
    """Spec example step 4: three slots, identifier + float4 tint, SlotCount 64."""
    ids = [p.Identifier for p in objs.programs.values()]
    tint = np.array([[1, 1, 1, 1], [0.5, 0.7, 1, 0.5], [0, 0, 0, 1]], dtype=np.float32)
    pl = pcs_layout(objs.program_command_signatures["PCS"])
    return ProgramTableSpec(pl, {"ProgramIdentifier": ids, "arg2_InlineRootParameter": tint.view(np.uint32)},
                            slot_count=64)


def culling_list(objs: ObjectSet, counts: list[int]) -> DispatchListSpec:
    return DispatchListSpec(objs.program_command_signatures["PCS"],
                            {"ProgramTableIndex": np.arange(len(counts), dtype=np.uint32)},
                            secondary(sum(counts)), np.array(counts))


def view(wl: BuiltWorkList, va: int) -> np.ndarray:
    return wl.data[va - wl.base_va:]


def test_culling_work_list_layout() -> None:
    """Every part at an 8-byte-aligned VA inside the buffer, no overlaps; the dispatch input points at the primary
    list with the primary stride; each primary record points at its own run of secondary records."""
    objs = objects()
    wl = build_work_list([culling_list(objs, [2, 0, 3])], base_va=BASE, program_table=table(objs))
    end = BASE
    for part in wl.parts:
        assert part.va % 8 == 0 and part.stride % 8 == 0
        assert part.va >= end
        end = part.va + part.size
    assert end == BASE + wl.size
    inp = read_dispatch_list_inputs(wl.data, count=1)[0]
    primary = wl.primary_lists[0]
    assert (inp["NumProgramInputs"], inp["Flags"]) == (3, 0)
    assert (inp["ProgramInputs"]["StartAddress"], inp["ProgramInputs"]["StrideInBytes"]) == (primary.va, 16)
    pl = pcs_layout(objs.program_command_signatures["PCS"])
    records = read_primary_records(pl, view(wl, primary.va), count=3)
    sec = wl.secondary_lists[0]
    assert sec is not None
    assert records["NumSecondaryRecords"].tolist() == [2, 0, 3]
    assert records["SecondaryRecords"].tolist() == [sec.va, sec.va + 48, sec.va + 48]
    secs = read_secondary_records(pl, view(wl, sec.va), count=5)
    assert secs["arg1_Draw"]["VertexCountPerInstance"].tolist() == [3, 4, 5, 6, 7]
    slots = read_program_table(pl, view(wl, wl.program_table.va), count=3)  # type: ignore[union-attr]
    assert slots["ProgramIdentifier"].tobytes()[:32] == objs.programs["Opaque"].Identifier
    binding = wl.program_table_binding()
    # spec example step 3: tableSize = kProgramTableSlotCount * kProgramTableByteStride
    assert (binding.Table.StrideInBytes, binding.Table.SizeInBytes, binding.SlotCount) == (48, 64 * 48, 64)


def test_capture_executes_the_culling_list(tmp_path: Path) -> None:
    """What the builder lays out, the executor runs: one DRAW per secondary record, in order, reading the
    program-table slot of each primary record (spec "GPU culling and work list emission")."""
    from d3d12wl.capture import load_capture
    from d3d12wl.executor import execute

    objs = objects()
    wl = build_work_list([culling_list(objs, [2, 0, 3])], base_va=BASE, program_table=table(objs))
    path = wl.write_capture(tmp_path / "culling.json", objs, objs.work_list_signatures["WLS"])
    trace = execute(load_capture(path))
    draws = [e.trigger.fields["VertexCountPerInstance"] for e in trace.executions]
    assert draws == [3, 4, 5, 6, 7]
    assert [e.program for e in trace.executions] == ["Opaque", "Opaque", "Shadow", "Shadow", "Shadow"]
    assert trace.call_args.get("MaxGraphicsProgramInputsPerPrimaryList", 3) == 3
    assert not trace.findings


def test_tier_2_chain() -> None:
    """Spec D3D12_DISPATCH_LIST_INPUT1 / "Dispatch List Continuations": each list's NextDispatchList is the next
    input (0 for the last), _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION set on all but the last, ReservedPadding 0."""
    objs = objects()
    lists = [culling_list(objs, [1]), culling_list(objs, [2, 1]), culling_list(objs, [])]
    lists[1].signature_index = 0
    wl = build_work_list(lists, base_va=BASE, program_table=table(objs), tier=2)
    inputs = read_dispatch_list_inputs(wl.data, tier=2, count=3)
    assert inputs["NextDispatchList"].tolist() == [wl.dispatch_inputs[1], wl.dispatch_inputs[2], 0]
    cont = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    assert (inputs["Flags"] & cont).tolist() == [cont, cont, 0]
    assert inputs["ReservedPadding"].tolist() == [0, 0, 0]
    assert inputs["NumProgramInputs"].tolist() == [1, 2, 0]
    assert all(va % 8 == 0 for va in wl.dispatch_inputs)
    assert wl.max_graphics_primary_lists == 3  # an empty graphics list still counts
    assert wl.max_graphics_program_inputs_per_primary_list == 2

    from d3d12wl.executor import execute

    array = WorkListSignatureArray("ARR", [objs.work_list_signatures["WLS"]])
    objs.work_list_signature_arrays["ARR"] = array
    trace = execute(wl.to_capture(objs, array))
    assert [e.trigger.fields["VertexCountPerInstance"] for e in trace.executions] == [3, 3, 4, 5]
    assert len(trace.lists) == 3


def test_broadcast_secondary_stride() -> None:
    """Spec "Stride derivation": SecondaryRecordByteStride 0, every secondary index reads the list's first record;
    the builder gives each primary record its own one-record list."""
    objs = objects()
    pcs = copy.deepcopy(objs.program_command_signatures["PCS"])
    pcs.SecondaryRecordByteStride = 0
    wl = build_work_list([DispatchListSpec(pcs, {"ProgramTableIndex": [0, 1]}, secondary(2), [4, 1])],
                         base_va=BASE)
    pl = pcs_layout(pcs)
    sec = wl.secondary_lists[0]
    assert sec is not None and sec.stride == 0
    records = read_primary_records(pl, view(wl, wl.primary_lists[0].va), count=2)
    assert records["SecondaryRecords"].tolist() == [sec.va, sec.va + 24]
    assert records["NumSecondaryRecords"].tolist() == [4, 1]


def test_alignment_option_and_errors() -> None:
    objs = objects()
    wl = build_work_list([culling_list(objs, [1])], base_va=BASE, program_table=table(objs), align=256)
    assert all(p.va % 256 == 0 for p in wl.parts)
    with pytest.raises(PackError, match="aligned"):
        build_work_list([culling_list(objs, [1])], base_va=BASE + 4)
    with pytest.raises(PackError, match="exactly one list"):
        build_work_list([culling_list(objs, [1]), culling_list(objs, [1])], base_va=BASE)
    bad = culling_list(objs, [1, 1])
    bad.secondary_counts = [1, 2]
    with pytest.raises(PackError, match="sum to 3"):
        build_work_list([bad], base_va=BASE)
    owned = culling_list(objs, [1])
    owned.primary = {**owned.primary, "SecondaryRecords": [8]}  # type: ignore[dict-item]
    with pytest.raises(PackError, match="written by the builder"):
        build_work_list([owned], base_va=BASE)
