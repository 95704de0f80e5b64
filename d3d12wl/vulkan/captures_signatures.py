"""Captures for the GPU comparison that exercise what one indirect-commands layout cannot hold:
:func:`build_mixed_capture` (a list whose records use two program command signatures of different record layouts;
Tier 1, or Tier 2 after a compute list in a chain), :func:`build_table_capture` (descriptor-table arguments, from
the records, the program table and the command list) and :func:`build_mesh_capture` (``_DISPATCH_MESH`` through an
execution set of mesh pipelines).  Every value is a function of the record or draw number, so each capture is
reproducible from its arguments alone.

:func:`build_work_list` packs one program command signature per list, so the mixed list is packed here from the
same vectorized packers: each signature's primary records at their places in one primary list (one stride for
all, the larger minimum), each signature's secondary records in one block, the program table with one slot per
program (identifier, then that program's tail).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model import description
from d3d12wl.model.state import (
    CommandListState,
    DescriptorHeaps,
    DeviceCaps,
    DispatchListCall,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    SetWorkListDesc1,
    WorkListBinding,
)
from d3d12wl.records import packers
from d3d12wl.records.layout import IDENTIFIER_FIELD, WL_ALIGN, pcs_layout, program_table_layout, round_up

__all__ = ["EXPLICIT_OBJECTS", "MIXED_OBJECTS", "build_explicit_capture", "build_mesh_capture", "build_mixed_capture",
           "build_table_capture"]


def _constants(register: int, n: int, space: int = 0) -> dict[str, Any]:
    return {"ParameterType": "32BIT_CONSTANTS", "ShaderVisibility": "ALL",
            "Constants": {"ShaderRegister": register, "RegisterSpace": space, "Num32BitValues": n}}


def _arg(type_: str, source: str, **payload: Any) -> dict[str, Any]:
    binding = "LOCAL_ROOT_SIGNATURE" if type_ == "INLINE_ROOT_PARAMETER" else "GLOBAL_ROOT_SIGNATURE"
    return {"Type": type_, "Source": source, "Binding": binding, **payload}


def _inline(source: str, register: int, n: int) -> dict[str, Any]:
    return _arg("INLINE_ROOT_PARAMETER", source, InlineRootParameter={
        "RootParameter": _constants(register, n, space=1), "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": n})


#: one global root signature (spec "Uniformity constraints" 1), two graphics-class signatures updating the same
#: global parameters (2: root constants b0, the SRV t0, the incrementing constant b2) with different record layouts
#: (the SRV in the secondary record or in the primary; a local constant from the secondary record or a float4 from
#: the program table), and a compute-class signature for the head list of the Tier 2 chain
MIXED_OBJECTS: dict[str, Any] = {
    "root_signatures": {"GRS": {"pParameters": [
        _constants(0, 2),
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 1}, "ShaderVisibility": "ALL"},
        _constants(2, 1),
    ], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "program_command_signatures": {
        "PCS_SecondarySRV": {"pArgumentDescs": [
            _arg("CONSTANT", "SECONDARY_RECORD",
                 Constant={"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 2}),
            _arg("SHADER_RESOURCE_VIEW", "SECONDARY_RECORD", ShaderResourceView={"RootParameterIndex": 1}),
            _arg("INCREMENTING_CONSTANT", "SYSTEM", IncrementingConstant={"RootParameterIndex": 3}),
            _arg("DRAW", "SECONDARY_RECORD"),
            _inline("SECONDARY_RECORD", 0, 1),
        ], "SecondaryRecordByteStride": 40, "pGlobalRootSignature": "GRS"},
        "PCS_PrimarySRV": {"pArgumentDescs": [
            _arg("SHADER_RESOURCE_VIEW", "PRIMARY_RECORD", ShaderResourceView={"RootParameterIndex": 1}),
            _arg("CONSTANT", "SECONDARY_RECORD",
                 Constant={"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 2}),
            _arg("INCREMENTING_CONSTANT", "SYSTEM", IncrementingConstant={"RootParameterIndex": 3}),
            _arg("DRAW", "SECONDARY_RECORD"),
            _inline("PROGRAM_TABLE_RECORD", 1, 4),
        ], "SecondaryRecordByteStride": 24, "pGlobalRootSignature": "GRS"},
        "PCS_Cull": {"pArgumentDescs": [
            _arg("SHADER_RESOURCE_VIEW", "PRIMARY_RECORD", ShaderResourceView={"RootParameterIndex": 1}),
            _arg("DISPATCH", "PRIMARY_RECORD"),
        ], "pGlobalRootSignature": "GRS"},
    },
    "work_list_signatures": {
        "WLS_Mixed": {"pProgramCommandSignatures": ["PCS_SecondarySRV", "PCS_PrimarySRV"], "SubobjectMask": ["VS", "PS"]},
        "WLS_Cull": {"pProgramCommandSignatures": ["PCS_Cull"], "SubobjectMask": ["CS"]},
    },
    "work_list_signature_arrays": {"ARR": {"pSignatures": ["WLS_Cull", "WLS_Mixed"]}},
    "programs": {name: {"Identifier": (name.encode() * 32)[:32].hex(), "ProgramCommandSignature": pcs}
                 for name, pcs in (("A", "PCS_SecondarySRV"), ("B", "PCS_SecondarySRV"), ("C", "PCS_PrimarySRV"),
                                   ("D", "PCS_PrimarySRV"), ("K", "PCS_Cull"))},
}

_BASE_VA = 0x4_0000_0000
_FRAME_CONSTANTS = 0x5000_0000


class _Placer:
    """Parts placed one after another from a base VA, each 8-byte aligned (spec "DispatchList"), in one region."""

    def __init__(self, base: int) -> None:
        self.base = self.cursor = base
        self.parts: list[tuple[int, np.ndarray]] = []

    def place(self, data: np.ndarray) -> int:
        va = round_up(self.cursor, WL_ALIGN)
        self.parts.append((va, np.asarray(data, dtype=np.uint8).reshape(-1)))
        self.cursor = va + int(data.nbytes)
        return va

    def memory(self) -> GpuMemory:
        buf = np.zeros(round_up(self.cursor - self.base, WL_ALIGN), dtype=np.uint8)
        for va, data in self.parts:
            buf[va - self.base:va - self.base + data.nbytes] = data
        memory = GpuMemory()
        memory.map(self.base, buf, name="work_list")
        return memory


def _table(objects: Any, names: list[str], place: _Placer) -> ProgramTableBinding:
    """A program table with one slot per program: its identifier, then its tail (columns from the program's number:
    a float4 of it for a float4 tail, a float for a DWORD or a view); the stride the largest record needs."""
    layouts = [program_table_layout(objects.programs[n]) for n in names]
    stride = max(round_up(lay.min_stride, WL_ALIGN) for lay in layouts if lay is not None)
    data = np.zeros(len(names) * stride, dtype=np.uint8)
    for k, (name, lay) in enumerate(zip(names, layouts, strict=True)):
        assert lay is not None
        cols: dict[str, Any] = {IDENTIFIER_FIELD: [objects.programs[name].Identifier]}
        for f in lay.payload_fields:
            value = np.array([[k + 0.5, 1.0, 0.25 * k, 1.0][:f.count]], dtype=np.float32).view(np.uint32)
            cols[f.name] = value if f.count > 1 else value.reshape(1)
        row = packers.pack_program_table(lay, cols, stride=stride)
        data[k * stride:k * stride + row.nbytes] = row
    va = place.place(data)
    return ProgramTableBinding(GpuVirtualAddressRangeAndStride(va, data.nbytes, stride), len(names))


def _mixed_list(objects: Any, place: _Placer, records: int) -> tuple[dict[str, Any], ProgramTableBinding]:
    """The mixed list: record ``k`` selects slot ``(k * 5 + k // 3) % 4`` (programs A, B of PCS_SecondarySRV, C, D of
    PCS_PrimarySRV) and has ``k % 4`` secondary records (so some drive no draw); draw ``i`` (in list order) sets b0
    to (i, 7 i), the SRV 0x2_0000_0000 + 256 i and draws 1 + i % 3 vertices from 3 i, 1 + i % 2 instances."""
    names = ["A", "B", "C", "D"]
    table = _table(objects, names, place)
    k = np.arange(records)
    slot = ((k * 5 + k // 3) % 4).astype(np.uint32)
    counts = (k % 4).astype(np.int64)
    first = np.concatenate([[0], np.cumsum(counts)[:-1]])
    pcs_of = {n: objects.programs[n].ProgramCommandSignature.name for n in names}
    layouts = {p: pcs_layout(objects.program_command_signatures[p]) for p in set(pcs_of.values())}
    stride = max(round_up(lay.primary.min_stride, WL_ALIGN) for lay in layouts.values())
    primary = np.zeros(records * stride, dtype=np.uint8)
    primary_va = place.place(primary)  # the bytes are filled in below, in place
    for p, lay in sorted(layouts.items()):
        mine = np.flatnonzero(np.array([pcs_of[names[s]] == p for s in slot]))
        n_sec = counts[mine]
        draw = np.concatenate([first[r] + np.arange(counts[r]) for r in mine]) if len(mine) else np.zeros(0, int)
        i = draw.astype(np.uint64)
        args = {a.type_name: j for j, a in enumerate(lay.pcs.pArgumentDescs)}
        assert lay.secondary is not None
        sec_cols: dict[str, Any] = {f"arg{args['CONSTANT']}_Constant": np.stack([i.astype(np.uint32), (i * 7).astype(np.uint32)], 1),
                    f"arg{args['DRAW']}_Draw.VertexCountPerInstance": (1 + i % 3).astype(np.uint32),
                    f"arg{args['DRAW']}_Draw.InstanceCount": (1 + i % 2).astype(np.uint32),
                    f"arg{args['DRAW']}_Draw.StartVertexLocation": (3 * i).astype(np.uint32),
                    f"arg{args['DRAW']}_Draw.StartInstanceLocation": (i % 5).astype(np.uint32)}
        prim_cols: dict[str, Any] = {"ProgramTableIndex": slot[mine], "NumSecondaryRecords": n_sec.astype(np.uint32)}
        srv = 0x2_0000_0000 + i * 256
        if lay.secondary.arg_field(args["SHADER_RESOURCE_VIEW"]) is not None:
            sec_cols[f"arg{args['SHADER_RESOURCE_VIEW']}_ShaderResourceView"] = srv
            sec_cols[f"arg{args['INLINE_ROOT_PARAMETER']}_InlineRootParameter"] = \
                (1000 + i).astype(np.uint32)
        else:  # the primary record's SRV: its record's number
            prim_cols[f"arg{args['SHADER_RESOURCE_VIEW']}_ShaderResourceView"] = 0x3_0000_0000 + mine.astype(np.uint64)
        s_stride = lay.pcs.SecondaryRecordByteStride
        block = packers.pack_secondary_records(lay, sec_cols, stride=s_stride) if len(i) else \
            np.zeros(8, dtype=np.uint8)
        block_va = place.place(block)
        before = np.concatenate([[0], np.cumsum(n_sec)[:-1]]) if len(n_sec) else np.zeros(0, dtype=np.int64)
        prim_cols["SecondaryRecords"] = (block_va + before * s_stride).astype(np.uint64)
        rows = packers.pack_primary_records(lay, prim_cols, stride=stride).reshape(len(mine), stride)
        primary.reshape(records, stride)[mine] = rows
    dli = {"NumProgramInputs": records, "Flags": 0, "ProgramInputs.StartAddress": primary_va,
           "ProgramInputs.StrideInBytes": stride}
    return dli, table


def build_mixed_capture(tier: int = 1, records: int = 24) -> Any:
    """A list whose records use both graphics signatures of ``WLS_Mixed`` (:data:`MIXED_OBJECTS`), ``records``
    primary records; with ``tier=2`` a DispatchList1 chain over ``ARR`` whose head list (``WLS_Cull``, program K:
    three dispatches of 1..3 groups) continues into the mixed list.  The command list sets the CBV b1 (both
    classes) and b0, b2 of the compute set."""
    from d3d12wl.capture.file import CAPTURE_VERSION, Capture

    objects = description.load(MIXED_OBJECTS)
    place = _Placer(_BASE_VA)
    tier_enum = abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{tier}")
    inputs: list[dict[str, Any]] = []
    if tier == 2:
        dli_va = [place.place(np.zeros(abi.sizeof("D3D12_DISPATCH_LIST_INPUT1"), np.uint8)) for _ in range(2)]
        cull_table = _table(objects, ["K"], place)
        cull = pcs_layout(objects.program_command_signatures["PCS_Cull"])
        cull_rows = packers.pack_primary_records(cull, {
            "ProgramTableIndex": np.zeros(3, np.uint32), "arg0_ShaderResourceView": np.array([0x1000, 0x2000, 0x3000],
                                                                                            np.uint64),
            "arg1_Dispatch.ThreadGroupCountX": np.array([1, 2, 3], np.uint32), "arg1_Dispatch.ThreadGroupCountY": 1,
            "arg1_Dispatch.ThreadGroupCountZ": np.array([1, 1, 2], np.uint32)})
        cull_va = place.place(cull_rows)
        inputs.append({"NumProgramInputs": 3, "Flags": abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1",
                                                                      "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION"),
                       "ProgramInputs.StartAddress": cull_va, "ProgramInputs.StrideInBytes": cull.primary.min_stride,
                       "SignatureIndex": 0, "NextDispatchList": dli_va[1]})
    else:
        dli_va = [place.place(np.zeros(abi.sizeof("D3D12_DISPATCH_LIST_INPUT"), np.uint8))]
    mixed, table = _mixed_list(objects, place, records)
    if tier == 2:
        inputs.append({**mixed, "SignatureIndex": 1, "NextDispatchList": 0})
    else:
        inputs.append(mixed)
    for va, cols in zip(dli_va, inputs, strict=True):
        packed = packers.pack_dispatch_list_inputs({k: np.array([v], dtype=np.uint64) for k, v in cols.items()},
                                                   tier=tier)
        for at, data in place.parts:
            if at == va:
                data[:] = packed
    binding_type = abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
    grs = objects.root_signatures["GRS"]
    common = {2: RootArgument("descriptor", value=_FRAME_CONSTANTS)}
    if tier == 2:
        program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"), WorkList1=SetWorkListDesc1(
            objects.work_list_signature_arrays["ARR"],
            [WorkListBinding(binding_type, cull_table), WorkListBinding(binding_type, table)]))
        call = DispatchListCall(dli_va[0], records, 1, tier2=True)
    else:
        program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"), WorkList=SetWorkListDesc(
            objects.work_list_signatures["WLS_Mixed"], WorkListBinding(binding_type, table)))
        call = DispatchListCall(dli_va[0], records)
    state = CommandListState(program=program, graphics_root_signature=grs, compute_root_signature=grs,
                             graphics_root_arguments=dict(common), compute_root_arguments={
                                 **common, 0: RootArgument("constants", values=[11, 12]),
                                 3: RootArgument("constants", values=[13])})
    return Capture(CAPTURE_VERSION, DeviceCaps(Tier=tier_enum), objects, place.memory(), state, call)


def _table_param(range_type: str, register: int, space: int = 0) -> dict[str, Any]:
    return {"ParameterType": "DESCRIPTOR_TABLE", "ShaderVisibility": "ALL", "DescriptorTable": {"pDescriptorRanges": [
        {"RangeType": range_type, "NumDescriptors": 1, "BaseShaderRegister": register, "RegisterSpace": space}]}}


TABLE_OBJECTS: dict[str, Any] = {
    "root_signatures": {"GRS": {"pParameters": [
        _table_param("SRV", 0), _table_param("CBV", 0), _constants(1, 1)], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "program_command_signatures": {"PCS": {"pArgumentDescs": [
        _arg("DESCRIPTOR_TABLE", "SECONDARY_RECORD", DescriptorTable={"RootParameterIndex": 0}),
        _arg("CONSTANT", "SECONDARY_RECORD",
             Constant={"RootParameterIndex": 2, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 1}),
        _arg("DRAW", "SECONDARY_RECORD"),
        _arg("INLINE_ROOT_PARAMETER", "PROGRAM_TABLE_RECORD", InlineRootParameter={
            "RootParameter": _table_param("SRV", 5, 1)}),
    ], "SecondaryRecordByteStride": 32, "pGlobalRootSignature": "GRS"}},
    "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"], "SubobjectMask": ["VS", "PS"]}},
    "programs": {f"T{p}": {"Identifier": (f"T{p}".encode() * 16)[:32].hex(), "ProgramCommandSignature": "PCS"}
                 for p in range(2)},
}


def build_table_capture(draws: int = 12) -> Any:
    """Descriptor-table arguments: each draw's SRV table (GRS parameter 0) from its secondary record (handle
    0xD000_0000 + 64 i), a local table (t5 space1) per program from the program table (0xE000_0000 + 4096 p), and
    the CBV table (parameter 1) from the command list (0xC000_0000); four draws per primary record, the
    programs alternating.  The shader-visible CBV/SRV/UAV heap is bound (spec "_DESCRIPTOR_TABLE")."""
    objects = description.load(TABLE_OBJECTS)
    pcs = objects.program_command_signatures["PCS"]
    i = np.arange(draws, dtype=np.uint64)
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": (np.arange(draws // 4) % 2).astype(np.uint32)}, {
        "arg0_DescriptorTable.ptr": 0xD000_0000 + 64 * i, "arg1_Constant": (500 + i).astype(np.uint32),
        "arg2_Draw.VertexCountPerInstance": (1 + i % 3).astype(np.uint32), "arg2_Draw.InstanceCount": 1,
        "arg2_Draw.StartVertexLocation": (2 * i).astype(np.uint32), "arg2_Draw.StartInstanceLocation": 0},
        np.full(draws // 4, 4, dtype=np.uint32))
    names = sorted(objects.programs)
    table = ProgramTableSpec(pcs_layout(pcs), {IDENTIFIER_FIELD: [objects.programs[n].Identifier for n in names],
                                               "arg3_InlineRootParameter.ptr": np.array([0xE000_0000 + 4096 * p for p in
                                                                                     range(2)], np.uint64)})
    wls = objects.work_list_signatures["WLS"]
    wl = build_work_list([spec], base_va=_BASE_VA, program_table=table, signature=wls, objects=objects)
    state = wl.command_list_state(wls, graphics_root_signature=pcs.pGlobalRootSignature,
                                  graphics_root_arguments={1: RootArgument("table", value=0xC000_0000)},
                                  descriptor_heaps=DescriptorHeaps(CBV_SRV_UAV=True))
    return wl.to_capture(objects, wls, state=state)


MESH_OBJECTS: dict[str, Any] = {
    "root_signatures": {"GRS": {"pParameters": [_constants(0, 2)]}},
    "program_command_signatures": {"PCS": {"pArgumentDescs": [
        _arg("CONSTANT", "SECONDARY_RECORD",
             Constant={"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 2}),
        _arg("DISPATCH_MESH", "SECONDARY_RECORD"),
        _inline("PROGRAM_TABLE_RECORD", 0, 2),
    ], "SecondaryRecordByteStride": 24, "pGlobalRootSignature": "GRS"}},
    "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"], "SubobjectMask": ["MS", "PS"]}},
    "programs": {f"M{p}": {"Identifier": (f"M{p}".encode() * 16)[:32].hex(), "ProgramCommandSignature": "PCS",
                           "ProgramKind": "MESH"} for p in range(3)},
}


def build_mesh_capture(draws: int = 30) -> Any:
    """``_DISPATCH_MESH`` (spec "Executable classes": a graphics-class trigger) from secondary records: mesh
    dispatch ``i`` launches (1 + i % 4, 1 + i % 2, 1 + i % 3) workgroups with root constants (i, 3 i); five per
    primary record, cycling through three mesh programs with two local constants each from the program table."""
    objects = description.load(MESH_OBJECTS)
    pcs = objects.program_command_signatures["PCS"]
    i = np.arange(draws, dtype=np.uint64)
    n_primary = draws // 5
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": (np.arange(n_primary) % 3).astype(np.uint32)}, {
        "arg0_Constant": np.stack([i.astype(np.uint32), (3 * i).astype(np.uint32)], 1),
        "arg1_DispatchMesh.ThreadGroupCountX": (1 + i % 4).astype(np.uint32),
        "arg1_DispatchMesh.ThreadGroupCountY": (1 + i % 2).astype(np.uint32),
        "arg1_DispatchMesh.ThreadGroupCountZ": (1 + i % 3).astype(np.uint32)}, np.full(n_primary, 5, dtype=np.uint32))
    names = sorted(objects.programs)
    table = ProgramTableSpec(pcs_layout(pcs), {IDENTIFIER_FIELD: [objects.programs[n].Identifier for n in names],
                                               "arg2_InlineRootParameter": np.array([[p, 100 + p] for p in range(3)],
                                                                                    np.uint32)})
    wls = objects.work_list_signatures["WLS"]
    wl = build_work_list([spec], base_va=_BASE_VA, program_table=table, signature=wls, objects=objects)
    return wl.to_capture(objects, wls, state=wl.command_list_state(wls, graphics_root_signature=pcs.pGlobalRootSignature))


def _local_arg(type_: str, source: str, **payload: Any) -> dict[str, Any]:
    return {"Type": type_, "Source": source, "Binding": "LOCAL_ROOT_SIGNATURE", **payload}


#: the explicit local root signature path (spec "Local root signatures"): one graphics-class signature whose records
#: set a root constant of the global root signature, a local CBV (local parameter 1) and one DWORD of a local root
#: constants parameter (0, DWORD 1); programs A and B are associated with local root signature LA, program C with
#: LB, whose parameters the records do not override come from each program's program-table slot
EXPLICIT_OBJECTS: dict[str, Any] = {
    "root_signatures": {
        "GRS": {"pParameters": [_constants(0, 1)], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]},
        "LA": {"pParameters": [_constants(0, 2, space=1),
                               {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 1, "RegisterSpace": 1},
                                "ShaderVisibility": "ALL"}], "Flags": ["LOCAL_ROOT_SIGNATURE"]},
        "LB": {"pParameters": [_constants(0, 3, space=1),
                               {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 1, "RegisterSpace": 1},
                                "ShaderVisibility": "ALL"},
                               {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0, "RegisterSpace": 1},
                                "ShaderVisibility": "ALL"}], "Flags": ["LOCAL_ROOT_SIGNATURE"]},
    },
    "program_command_signatures": {"PCS": {"pArgumentDescs": [
        _arg("CONSTANT", "PRIMARY_RECORD",
             Constant={"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 1}),
        _local_arg("CONSTANT", "PRIMARY_RECORD",
                   Constant={"RootParameterIndex": 0, "DestOffsetIn32BitValues": 1, "Num32BitValuesToSet": 1}),
        _local_arg("CONSTANT_BUFFER_VIEW", "PRIMARY_RECORD", ConstantBufferView={"RootParameterIndex": 1}),
        _arg("DRAW", "PRIMARY_RECORD"),
    ], "pGlobalRootSignature": "GRS"}},
    "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"], "SubobjectMask": ["VS", "PS"]}},
    "programs": {name: {"Identifier": (name.encode() * 32)[:32].hex(), "ProgramCommandSignature": "PCS",
                        "LocalRootSignature": lrs} for name, lrs in (("A", "LA"), ("B", "LB"), ("C", "LA"))},
}


def build_explicit_capture(records: int = 24) -> Any:
    """A Tier 1 list of ``records`` inline records of :data:`EXPLICIT_OBJECTS`: record ``k`` selects program
    ``k % 3`` (A, B, C), sets b0 to ``k``, local b0 space1 DWORD 1 to ``100 + k`` and the local CBV to
    ``0x6_0000_0000 + 256 k``, and draws ``1 + k % 3`` vertices from ``3 k``; each program's slot holds the rest of
    its local root signature (a float of the program's number per DWORD, 8-byte views likewise)."""
    from d3d12wl.capture.file import CAPTURE_VERSION, Capture

    objects = description.load(EXPLICIT_OBJECTS)
    place = _Placer(_BASE_VA)
    dli_va = place.place(np.zeros(abi.sizeof("D3D12_DISPATCH_LIST_INPUT"), np.uint8))
    table = _table(objects, ["A", "B", "C"], place)
    lay = pcs_layout(objects.program_command_signatures["PCS"])
    k = np.arange(records, dtype=np.uint64)
    rows = packers.pack_primary_records(lay, {
        "ProgramTableIndex": (k % 3).astype(np.uint32), "arg0_Constant": k.astype(np.uint32),
        "arg1_Constant": (100 + k).astype(np.uint32), "arg2_ConstantBufferView": 0x6_0000_0000 + 256 * k,
        "arg3_Draw.VertexCountPerInstance": (1 + k % 3).astype(np.uint32), "arg3_Draw.InstanceCount": 1,
        "arg3_Draw.StartVertexLocation": (3 * k).astype(np.uint32), "arg3_Draw.StartInstanceLocation": 0})
    stride = lay.primary.min_stride
    primary_va = place.place(rows)
    dli = packers.pack_dispatch_list_inputs({"NumProgramInputs": np.array([records], np.uint64),
                                             "Flags": np.array([0], np.uint64),
                                             "ProgramInputs.StartAddress": np.array([primary_va], np.uint64),
                                             "ProgramInputs.StrideInBytes": np.array([stride], np.uint64)})
    for at, data in place.parts:
        if at == dli_va:
            data[:] = dli
    program = SetProgramDesc(abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"), WorkList=SetWorkListDesc(
        objects.work_list_signatures["WLS"],
        WorkListBinding(abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"), table)))
    state = CommandListState(program=program, graphics_root_signature=objects.root_signatures["GRS"])
    return Capture(CAPTURE_VERSION, DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1")), objects,
                   place.memory(), state, DispatchListCall(dli_va, records))
