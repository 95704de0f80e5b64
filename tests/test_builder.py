"""The whole-work-list builder: every part at an 8-byte-aligned VA, addresses that point where the parts are, Tier 2
chains, and a capture that the executor runs (spec "GPU culling and work list emission", "D3D12_DISPATCH_LIST_INPUT",
"D3D12_WORK_LIST_PRIMARY_RECORD", "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING", "Dispatch List Continuations")."""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest

from d3d12wl import abi
from d3d12wl.capture.builder import (
    BuiltWorkList,
    DispatchListSpec,
    ProgramTableSpec,
    ValidationTableSpec,
    build_work_list,
)
from d3d12wl.errors import PackError
from d3d12wl.model import description
from d3d12wl.model.objects import ObjectSet, WorkListSignatureArray
from d3d12wl.model.state import RootArgument
from d3d12wl.records.layout import pcs_layout
from d3d12wl.records.packers import (
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
    from d3d12wl.capture.file import load_capture
    from d3d12wl.executor import execute

    objs = objects()
    wl = build_work_list([culling_list(objs, [2, 0, 3])], base_va=BASE, program_table=table(objs))
    wls = objs.work_list_signatures["WLS"]
    state = wl.command_list_state(wls, graphics_root_signature=objs.root_signatures["GRS"],
                                  graphics_root_arguments={0: RootArgument("descriptor", 0x50000)})  # the frame CBV
    path = wl.write_capture(tmp_path / "culling.json", objs, wls, state=state)
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


# ----------------------------------------------------------------------------------------------------------------
# one binding per signature index (spec "Binding via SetProgram", "Signature Selection", D3D12_SET_WORK_LIST_DESC1)
# ----------------------------------------------------------------------------------------------------------------

TINTS = {"Opaque": (1.0, 1.0, 1.0, 1.0), "AlphaTested": (0.5, 0.75, 0.25, 1.0)}


def chain_objects() -> ObjectSet:
    """examples/tier2_chain.json: compute WLS_Cull (identifier-only slots) and graphics WLS_Draw (48-byte slots,
    a float4 tint) in the array ARR, one shared GRS."""
    return description.load(EXAMPLES / "tier2_chain.json")


def cull_list(objs: ObjectSet, groups: list[int], signature_index: int = 0) -> DispatchListSpec:
    n = len(groups)
    return DispatchListSpec(objs.program_command_signatures["PCS_Cull"],
                            {"ProgramTableIndex": np.zeros(n, dtype=np.uint32),
                             "arg1_ShaderResourceView": 0x100000 + 0x1000 * np.arange(n, dtype=np.uint64),
                             "arg2_Dispatch.ThreadGroupCountX": np.array(groups, dtype=np.uint32),
                             "arg2_Dispatch.ThreadGroupCountY": 1, "arg2_Dispatch.ThreadGroupCountZ": 1},
                            signature_index=signature_index)


def draw_list(objs: ObjectSet, counts: list[int], signature_index: int = 1) -> DispatchListSpec:
    n = sum(counts)
    return DispatchListSpec(objs.program_command_signatures["PCS_Draw"],
                            {"ProgramTableIndex": np.arange(len(counts), dtype=np.uint32)},
                            {"arg0_ShaderResourceView": 0x200000 + 0x1000 * np.arange(n, dtype=np.uint64),
                             "arg2_Draw.VertexCountPerInstance": np.arange(n, dtype=np.uint32) + 3,
                             "arg2_Draw.InstanceCount": 1, "arg2_Draw.StartVertexLocation": 0,
                             "arg2_Draw.StartInstanceLocation": 0},
                            np.array(counts), signature_index=signature_index)


def cull_table(objs: ObjectSet) -> ProgramTableSpec:
    """32-byte identifier-only slots (the Cull program has no local root arguments)."""
    return ProgramTableSpec(objs.programs["Cull"], {"ProgramIdentifier": [objs.programs["Cull"].Identifier]})


def draw_table(objs: ObjectSet, stride: int | None = None, slot_count: int | None = None) -> ProgramTableSpec:
    """Opaque and AlphaTested, identifier + float4 tint (48 bytes minimum)."""
    tints = np.array([TINTS["Opaque"], TINTS["AlphaTested"]], dtype=np.float32)
    return ProgramTableSpec(pcs_layout(objs.program_command_signatures["PCS_Draw"]),
                            {"ProgramIdentifier": [objs.programs[n].Identifier for n in TINTS],
                             "arg3_InlineRootParameter": tints.view(np.uint32)}, stride=stride, slot_count=slot_count)


def floats(values: list[int]) -> tuple[float, ...]:
    return tuple(np.array(values, dtype=np.uint32).view(np.float32).tolist())


def assert_aligned_and_disjoint(wl: BuiltWorkList) -> None:
    end = wl.base_va
    for part in wl.parts:
        assert part.va % 8 == 0 and part.stride % 8 == 0, part
        assert part.va >= end, part
        end = part.va + part.size
    assert end <= wl.base_va + wl.size


def test_two_signatures_two_tables_of_different_strides() -> None:
    """A compute list (SignatureIndex 0, a 32-byte identifier-only table) continuing into a graphics list
    (SignatureIndex 1, a 64-byte-stride table: identifier + tint + app padding, 4 slots): each table is placed in
    the buffer with its own stride and slot count, SetProgram binds ARR with pBindings parallel to pSignatures, and
    each list executes its own programs with its own tints."""
    from d3d12wl.executor import execute

    objs = chain_objects()
    array = objs.work_list_signature_arrays["ARR"]
    wl = build_work_list([cull_list(objs, [2, 1]), draw_list(objs, [3, 2])], base_va=BASE, tier=2,
                         bindings=[cull_table(objs), draw_table(objs, stride=64, slot_count=4)], signature=array,
                         objects=objs)
    assert_aligned_and_disjoint(wl)
    cull, draw = wl.program_tables
    assert cull is not None and draw is not None and cull in wl.parts and draw in wl.parts
    assert (cull.stride, cull.size, draw.stride, draw.size) == (32, 32, 64, 4 * 64)
    assert wl.program_table == cull  # the head list's signature index

    desc = wl.set_program_desc()
    assert desc.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1")
    assert desc.WorkList1.pSignatureArray is array
    tables = [b.ProgramTable for b in desc.WorkList1.pBindings]
    assert [b.Type for b in desc.WorkList1.pBindings] == [abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE",
                                                                         "PROGRAM_TABLE")] * 2
    assert [(t.Table.StartAddress, t.Table.SizeInBytes, t.Table.StrideInBytes, t.SlotCount) for t in tables] == [
        (cull.va, 32, 32, 1), (draw.va, 256, 64, 4)]
    assert wl.program_table_binding(1) == tables[1]
    slots = read_program_table(pcs_layout(objs.program_command_signatures["PCS_Draw"]), view(wl, draw.va),
                               stride=64, count=2)
    assert slots["ProgramIdentifier"][1].tobytes() == objs.programs["AlphaTested"].Identifier

    grs = objs.root_signatures["GRS"]
    state = wl.command_list_state(graphics_root_signature=grs, compute_root_signature=grs)
    assert state.program == desc and state.compute_root_signature is grs
    trace = execute(wl.to_capture(objs, state=state))
    assert not trace.errors
    assert [(x.signature_index, x.signature) for x in trace.lists] == [(0, "WLS_Cull"), (1, "WLS_Draw")]
    assert [(e.list_index, e.program) for e in trace.executions] == [
        (0, "Cull"), (0, "Cull"), (1, "Opaque"), (1, "Opaque"), (1, "Opaque"), (1, "AlphaTested"), (1, "AlphaTested")]
    for e in trace.executions[2:]:
        tint = e.root_argument("local", 0)
        assert tint is not None and floats(tint.values) == TINTS[e.program]
        slot = 0 if e.program == "Opaque" else 1
        assert tint.sources[0].va == draw.va + slot * 64 + 32
    assert trace.executions[0].root_argument("local", 0) is None  # identifier-only slot: no tail


def test_direct_bind_state() -> None:
    """D3D12_PROGRAM_TYPE_WORK_LIST / D3D12_SET_WORK_LIST_DESC: one signature, one binding; valid with DispatchList
    and, with every SignatureIndex 0, with DispatchList1 (spec "Compatibility of bind type with dispatch method")."""
    from d3d12wl.executor import execute

    objs = objects()
    wls = objs.work_list_signatures["WLS"]
    wl = build_work_list([culling_list(objs, [2, 0, 3])], base_va=BASE, program_table=table(objs), signature=wls)
    desc = wl.set_program_desc()
    assert desc.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST") and desc.WorkList.pSignature is wls
    assert desc.WorkList.Binding.Type == abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
    assert desc.WorkList.Binding.ProgramTable == wl.program_table_binding()
    state = wl.command_list_state(graphics_root_signature=objs.root_signatures["GRS"])
    assert state.program == desc and state.graphics_root_signature is objs.root_signatures["GRS"]
    assert not execute(wl.to_capture(objs)).errors  # no root argument set: warnings only
    with pytest.raises(PackError, match="Tier 2 only"):
        wl.set_program_desc(WorkListSignatureArray("ARR", [wls]))

    # tier 2, direct bind: one binding, SignatureIndex 0 in every list
    lists = [culling_list(objs, [1]), culling_list(objs, [2])]
    wl2 = build_work_list(lists, base_va=BASE, tier=2, bindings=[table(objs)], signature=wls)
    desc2 = wl2.set_program_desc()
    assert desc2.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST")
    assert desc2.WorkList.Binding.ProgramTable.SlotCount == 64
    trace = execute(wl2.to_capture(objs))
    assert not trace.errors and len(trace.lists) == 2
    lists[1].signature_index = 1
    with pytest.raises(PackError, match="SignatureIndex 1 is out of range"):
        build_work_list(lists, base_va=BASE, tier=2, bindings=[table(objs)], signature=wls)


def rays_objects() -> tuple[ObjectSet, WorkListSignatureArray]:
    """tier2_chain.json plus a raytracing-class signature WLS_Rays (PCS_Cull's global args, _DISPATCH_RAYS_DIMENSIONS
    from the primary record), in the array [WLS_Cull, WLS_Rays]."""
    from d3d12wl.model.objects import WorkListSignature

    objs = chain_objects()
    pcs = copy.deepcopy(objs.program_command_signatures["PCS_Cull"])
    pcs.name = "PCS_Rays"
    pcs.pGlobalRootSignature = objs.root_signatures["GRS"]
    pcs.pArgumentDescs[2].Type = abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "DISPATCH_RAYS_DIMENSIONS")
    objs.program_command_signatures["PCS_Rays"] = pcs
    wls = WorkListSignature("WLS_Rays", [pcs])
    objs.work_list_signatures["WLS_Rays"] = wls
    array = WorkListSignatureArray("ARR_RT", [objs.work_list_signatures["WLS_Cull"], wls])
    objs.work_list_signature_arrays["ARR_RT"] = array
    return objs, array


def test_raytracing_binding_slot() -> None:
    """A raytracing-class signature pairs with D3D12_WORK_LIST_RAYTRACING_BINDING (rule 17): the caller's RTPSO and
    shader-table ranges (outside the work list) go into pBindings[1] as given; no program table is placed for it."""
    from d3d12wl.executor import execute
    from d3d12wl.model.state import GpuVirtualAddressRange, GpuVirtualAddressRangeAndStride, RaytracingBinding

    objs, array = rays_objects()
    rt = RaytracingBinding("RTPSO", GpuVirtualAddressRange(0x900000, 64),
                           GpuVirtualAddressRangeAndStride(0x901000, 128, 64),
                           GpuVirtualAddressRangeAndStride(0x902000, 256, 64))
    rays = DispatchListSpec(objs.program_command_signatures["PCS_Rays"],
                            {"arg1_ShaderResourceView": [0x300000],
                             "arg2_DispatchRaysDimensions.Width": [640], "arg2_DispatchRaysDimensions.Height": 480,
                             "arg2_DispatchRaysDimensions.Depth": 1}, signature_index=1)
    wl = build_work_list([cull_list(objs, [1]), rays], base_va=BASE, tier=2, bindings=[cull_table(objs), rt],
                         signature=array, objects=objs)
    assert_aligned_and_disjoint(wl)
    assert wl.program_tables[1] is None and len([p for p in wl.parts if "program table" in p.name]) == 1
    desc = wl.set_program_desc()
    binding = desc.WorkList1.pBindings[1]
    assert binding.Type == abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING") and binding.pRaytracing is rt
    assert wl.raytracing
    capture = wl.to_capture(objs)
    assert capture.device.DispatchRaysSupported  # rule 16
    trace = execute(capture)
    assert not trace.errors
    assert [e.program for e in trace.executions] == ["Cull", "RTPSO"]
    assert trace.lists[1].binding["Type"] == "RAYTRACING"
    assert trace.executions[1].trigger.fields == {"Width": 640, "Height": 480, "Depth": 1}

    with pytest.raises(PackError, match=r"rule 17.*raytracing-class and pairs with a RaytracingBinding"):
        build_work_list([cull_list(objs, [1]), rays], base_va=BASE, tier=2,
                        bindings=[cull_table(objs), cull_table(objs)], signature=array)
    with pytest.raises(PackError, match=r"lists\[0\].*rule 17.*pairs with a program table"):
        build_work_list([cull_list(objs, [1])], base_va=BASE, tier=2, bindings=[rt, rt])


def test_stride_too_small_names_the_signature_index() -> None:
    """Rule 6 / "Program table slot layout": a non-zero stride must hold 32 + each present program's tail; the error
    names the signature index whose table is short."""
    objs = chain_objects()
    lists = [cull_list(objs, [1]), draw_list(objs, [1, 1])]
    array = objs.work_list_signature_arrays["ARR"]
    with pytest.raises(PackError, match=r"bindings\[1\] \(SignatureIndex 1\).*stride 40"):
        build_work_list(lists, base_va=BASE, tier=2, bindings=[cull_table(objs), draw_table(objs, stride=40)],
                        signature=array)
    # packed with the identifier-only layout, the slot holds Opaque, whose tint needs 48 bytes: only the programs
    # (objects) can tell
    short = ProgramTableSpec(objs.programs["Cull"], {"ProgramIdentifier": [objs.programs["Opaque"].Identifier]})
    build_work_list(lists[:1], base_va=BASE, tier=2, bindings=[cull_table(objs), short])
    with pytest.raises(PackError, match=r"bindings\[1\] \(SignatureIndex 1\) \[rule 6\].*'Opaque'.*48"):
        build_work_list(lists, base_va=BASE, tier=2, bindings=[cull_table(objs), short], signature=array, objects=objs)


def test_bindings_shape_errors() -> None:
    objs = chain_objects()
    array = objs.work_list_signature_arrays["ARR"]
    lists = [cull_list(objs, [1]), draw_list(objs, [1, 1])]
    with pytest.raises(PackError, match="not both"):
        build_work_list(lists, base_va=BASE, tier=2, program_table=draw_table(objs), bindings=[cull_table(objs)])
    with pytest.raises(PackError, match=r"NumBindings \(1\) must equal"):
        build_work_list(lists, base_va=BASE, tier=2, bindings=[cull_table(objs)], signature=array)
    swapped = [cull_list(objs, [1], signature_index=1), draw_list(objs, [1, 1], signature_index=0)]
    with pytest.raises(PackError, match=r"lists\[0\].*'PCS_Cull' is not in signature index 1"):
        build_work_list(swapped, base_va=BASE, tier=2, bindings=[cull_table(objs), draw_table(objs)], signature=array)
    # the same table at two indices is placed once
    shared = draw_table(objs)
    wl = build_work_list(lists[1:], base_va=BASE, tier=2, bindings=[shared, shared])
    assert wl.program_tables[0] is wl.program_tables[1]
    assert len([p for p in wl.parts if "program table" in p.name]) == 1


# ----------------------------------------------------------------------------------------------------------------
# the validation program table (spec "Validation program table", "Binding the validation program table",
# D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable / SignatureSelectionValidationProgramTableIndex)
# ----------------------------------------------------------------------------------------------------------------

SIGSEL_ID = b"SignatureSelectionCheck".ljust(32, b"\0")


def validated_chain(objs: ObjectSet, **spec: object) -> tuple[BuiltWorkList, WorkListSignatureArray]:
    """The cull + draw chain on ARR, the validation index fields set (list validator slot 1, record validator slot
    2), with a validation table [sentinel, PrimaryListCheck, SecondaryListCheck, a signature-selection check]."""
    from d3d12wl.examples import validators

    array = objs.work_list_signature_arrays["ARR"]
    for wls in array.pSignatures:
        wls.ListValidationProgramTableIndex = validators.PRIMARY_LIST_SLOT
    objs.program_command_signatures["PCS_Draw"].RecordValidationProgramTableIndex = validators.SECONDARY_LIST_SLOT
    vt = ValidationTableSpec([*validators.table_slots(), SIGSEL_ID], **spec)  # type: ignore[arg-type]
    wl = build_work_list([cull_list(objs, [2]), draw_list(objs, [1, 2])], base_va=BASE, tier=2,
                         bindings=[cull_table(objs), draw_table(objs)], signature=array, objects=objs,
                         validation_table=vt)
    return wl, array


def test_validation_table_placement_and_set_program_desc() -> None:
    """The table is placed 8-byte aligned after the program tables and before the lists: slot 0 zero (the "no
    validator" sentinel), slot i the identifier of validators[i] at i * stride, zero past the identifier and past
    the slots given; the array bind carries it in ValidationProgramTable with the signature-selection index."""
    from d3d12wl.examples.validators import PRIMARY_LIST_CHECK, SECONDARY_LIST_CHECK
    from d3d12wl.model.state import GpuVirtualAddressRangeAndStride, ProgramTableBinding

    objs = chain_objects()
    wl, array = validated_chain(objs, stride=48, slot_count=6, signature_selection_index=3)
    assert_aligned_and_disjoint(wl)
    vt = wl.validation_table
    assert vt is not None and vt in wl.parts and vt.va % 8 == 0
    assert (vt.stride, vt.size, vt.count) == (48, 6 * 48, 4)
    assert all(t is not None and t.va + t.size <= vt.va for t in wl.program_tables)
    assert vt.va + vt.size <= wl.primary_lists[0].va
    raw = view(wl, vt.va)[:vt.size].tobytes()
    slots = [raw[i * 48:(i + 1) * 48] for i in range(6)]
    assert slots[0] == bytes(48) and slots[4] == slots[5] == bytes(48)
    for i, ident in ((1, PRIMARY_LIST_CHECK.identifier), (2, SECONDARY_LIST_CHECK.identifier), (3, SIGSEL_ID)):
        assert slots[i] == ident + bytes(16)

    desc = wl.set_program_desc()
    assert desc.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1") and desc.WorkList1.pSignatureArray is array
    assert desc.WorkList1.ValidationProgramTable == wl.validation_binding == ProgramTableBinding(
        GpuVirtualAddressRangeAndStride(vt.va, 6 * 48, 48), 6)
    assert desc.WorkList1.SignatureSelectionValidationProgramTableIndex == 3
    assert wl.command_list_state().program == desc

    # the defaults: one identifier per slot, SlotCount = the slots given, no signature-selection validator
    wl2, _ = validated_chain(chain_objects())
    d2 = wl2.set_program_desc().WorkList1
    assert wl2.validation_table is not None and wl2.validation_table.va % 8 == 0
    assert (d2.ValidationProgramTable.Table.StrideInBytes, d2.ValidationProgramTable.Table.SizeInBytes,
            d2.ValidationProgramTable.SlotCount, d2.SignatureSelectionValidationProgramTableIndex) == (32, 128, 4, 0)
    # placed at the builder's alignment like every part
    objs3 = chain_objects()
    wl3 = build_work_list([cull_list(objs3, [1])], base_va=BASE, tier=2, align=256,
                          bindings=[cull_table(objs3), None], validation_table=ValidationTableSpec([None, SIGSEL_ID]))
    assert wl3.validation_table is not None and wl3.validation_table.va % 256 == 0
    # without a validation table nothing changes: StartAddress 0, stride and SlotCount 0
    plain = build_work_list([cull_list(objs3, [1])], base_va=BASE, tier=2, bindings=[cull_table(objs3), None],
                            signature=objs3.work_list_signature_arrays["ARR"])
    assert plain.validation_table is None
    assert plain.set_program_desc().WorkList1.ValidationProgramTable == ProgramTableBinding()
    assert plain.set_program_desc().WorkList1.SignatureSelectionValidationProgramTableIndex == 0


def test_validation_table_runs_the_validators() -> None:
    """The built state drives the runner: per list the signature-selection check (step 1), the primary-list check
    (step 4), and the secondary-list check for each hybrid record (step 7), each from its slot."""
    from d3d12wl.examples.validators import VALIDATORS
    from d3d12wl.executor import execute
    from d3d12wl.executor.validation import AREA_SIGNATURE_SELECTION, ValidationRunner, Validator, validator_pcs

    objs = chain_objects()
    wl, _ = validated_chain(objs, signature_selection_index=3)
    sigsel = Validator(SIGSEL_ID, lambda call: None, "SigSel", validator_pcs("SigSel_PCS", AREA_SIGNATURE_SELECTION))
    grs = objs.root_signatures["GRS"]
    trace = execute(wl.to_capture(objs, state=wl.command_list_state(graphics_root_signature=grs,
                                                                     compute_root_signature=grs)),
                    hooks=ValidationRunner([*VALIDATORS, sigsel]))
    assert not trace.errors
    assert [(v.list_index, v.step, v.slot, v.validator, v.primary_index) for v in trace.validator_invocations] == [
        (0, 1, 3, "SigSel", None), (0, 4, 1, "PrimaryListCheck", None),
        (1, 1, 3, "SigSel", None), (1, 4, 1, "PrimaryListCheck", None),
        (1, 7, 2, "SecondaryListCheck", 0), (1, 7, 2, "SecondaryListCheck", 1)]
    vt = wl.validation_table
    assert vt is not None and all(v.slot_va == vt.va + v.slot * vt.stride for v in trace.validator_invocations)
    assert [e.list_index for e in trace.executions] == [0, 1, 1, 1]


def test_validation_table_rejected_on_a_direct_bind() -> None:
    """Only D3D12_SET_WORK_LIST_DESC1 carries ValidationProgramTable: a direct bind (D3D12_SET_WORK_LIST_DESC, and
    tier 1, which has only the direct bind) with a validation table is an error that says why."""
    objs = chain_objects()
    wls = objs.work_list_signatures["WLS_Cull"]
    vt = ValidationTableSpec([None, SIGSEL_ID])
    wl = build_work_list([cull_list(objs, [1])], base_va=BASE, tier=2, bindings=[cull_table(objs)],
                         validation_table=vt)
    for call in (wl.set_program_desc, wl.command_list_state):
        with pytest.raises(PackError, match=r"Binding the validation program table.*direct bind of 'WLS_Cull' "
                                            r"\(D3D12_SET_WORK_LIST_DESC\) has no ValidationProgramTable"):
            call(wls)
    # the array of that one signature carries it
    single = WorkListSignatureArray("ARR1", [wls])
    assert wl.set_program_desc(single).WorkList1.ValidationProgramTable.SlotCount == 2
    with pytest.raises(PackError, match=r"validation_table.*direct bind of 'WLS_Cull'"):
        build_work_list([cull_list(objs, [1])], base_va=BASE, tier=2, bindings=[cull_table(objs)], signature=wls,
                        validation_table=vt)
    with pytest.raises(PackError, match=r"validation_table.*Tier 2 only"):
        build_work_list([culling_list(objects(), [1])], base_va=BASE, program_table=table(objects()),
                        validation_table=vt)


@pytest.mark.parametrize(("spec", "message"), [
    (dict(validators=[SIGSEL_ID]), r"validators\[0\].*slot 0 is reserved"),
    (dict(validators=[]), "at least slot 0"),
    (dict(validators=[None, b"short"]), r"validators\[1\].*32 bytes, got 5"),
    (dict(validators=[None, 7]), r"validators\[1\].*int, not a program identifier"),
    (dict(validators=[None, SIGSEL_ID], stride=0), "stride 0 .*sentinel"),
    (dict(validators=[None, SIGSEL_ID], stride=36), "stride 36 must be a multiple of 8"),
    (dict(validators=[None, SIGSEL_ID], stride=24), "at least one D3D12_PROGRAM_IDENTIFIER"),
    (dict(validators=[None, SIGSEL_ID, SIGSEL_ID], slot_count=2), "slot_count 2 leaves slots 2..2"),
    (dict(validators=[None, SIGSEL_ID, None], signature_selection_index=2), "signature_selection_index 2 names no"),
    (dict(validators=[None, SIGSEL_ID], signature_selection_index=5), "signature_selection_index 5 names no"),
], ids=["slot0", "empty", "short-id", "not-id", "stride0", "stride36", "stride24", "slot-count", "sigsel-empty",
        "sigsel-range"])
def test_validation_table_spec_errors(spec: dict, message: str) -> None:
    objs = chain_objects()
    with pytest.raises(PackError, match=message):
        build_work_list([cull_list(objs, [1])], base_va=BASE, tier=2, bindings=[cull_table(objs), None],
                        validation_table=ValidationTableSpec(**spec))


def test_validation_index_fields_checked_against_the_table() -> None:
    """With the bound array, every non-zero validation index field (ListValidationProgramTableIndex of each
    signature, RecordValidationProgramTableIndex of each of their PCSes) names a filled slot below SlotCount."""
    from d3d12wl.examples.validators import PRIMARY_LIST_CHECK

    objs = chain_objects()
    array = objs.work_list_signature_arrays["ARR"]
    for wls in array.pSignatures:
        wls.ListValidationProgramTableIndex = 1
    objs.program_command_signatures["PCS_Draw"].RecordValidationProgramTableIndex = 2
    lists = [cull_list(objs, [1]), draw_list(objs, [1])]
    bindings = [cull_table(objs), draw_table(objs)]
    with pytest.raises(PackError, match=r"'PCS_Draw' RecordValidationProgramTableIndex 2 >= the validation table's "
                                        r"SlotCount 2"):
        build_work_list(lists, base_va=BASE, tier=2, bindings=bindings, signature=array,
                        validation_table=ValidationTableSpec([None, PRIMARY_LIST_CHECK]))
    with pytest.raises(PackError, match=r"RecordValidationProgramTableIndex 2 names an empty slot"):
        build_work_list(lists, base_va=BASE, tier=2, bindings=bindings, signature=array,
                        validation_table=ValidationTableSpec([None, PRIMARY_LIST_CHECK, None]))
    # without the signature the builder cannot see the index fields; with it and a filled slot 2 all is well
    build_work_list(lists, base_va=BASE, tier=2, bindings=bindings,
                    validation_table=ValidationTableSpec([None, PRIMARY_LIST_CHECK, None]))
    build_work_list(lists, base_va=BASE, tier=2, bindings=bindings, signature=array,
                    validation_table=ValidationTableSpec([None, PRIMARY_LIST_CHECK, SIGSEL_ID]))
