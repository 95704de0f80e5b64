"""Captures for the GPU comparison (tools/gpu_check.py), built with :func:`d3d12wl.capture.builder.build_work_list`.

:func:`build_big_capture`: a graphics work list of ``N`` draws over ``programs`` programs: ``N / per_record`` hybrid primary records (``ProgramTableIndex`` cycling
through the programs), ``per_record`` secondary records each.  Per draw: two root constants (GRS parameter 0: the
draw's number and a hash of it), a root SRV (GRS parameter 1) and ``_DRAW``; per program a float4 tint in the
program table (``_INLINE_ROOT_PARAMETER``, local b0 space1).  Every value is a function of the draw's number, so the
capture is reproducible from ``(draws, per_record, programs)`` alone.

:func:`build_compute_capture`: a Tier 1 compute work list (the culling list of ``examples/tier2_chain.json`` on its
own): an incrementing constant, a root SRV from the primary record and ``_DISPATCH``.

:func:`build_indexed_capture`: an ``ExecuteIndirect`` of indexed draws: a root constant, an incrementing constant
(IndirectDrawing.md "Incrementing constant"), an index buffer view (``R32_UINT``) and ``_DRAW_INDEXED`` with
negative ``BaseVertexLocation`` values, through a count buffer.

:func:`build_inherited_capture`: an ``ExecuteIndirect`` of draws whose command signature has no root signature (it
changes no root argument: IndirectDrawing.md "Command signature Creation"), so every draw sees the command list's
root arguments, which the lowering pushes as its initial push constants.

:func:`build_big_ei_capture`: an ``ExecuteIndirect`` of ``N`` draws (root constants, an incrementing constant,
``_DRAW``) through a count buffer.

More captures: :mod:`d3d12wl.vulkan.captures_signatures` (several program command signatures, descriptor tables,
mesh dispatches) and :mod:`d3d12wl.vulkan.captures_ia` (real vertex and index buffers).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model import description
from d3d12wl.model.state import CommandListState, DeviceCaps, ExecuteIndirectCall, RootArgument
from d3d12wl.records import packers
from d3d12wl.records.layout import IDENTIFIER_FIELD, pcs_layout

__all__ = ["OBJECTS", "build_big_capture", "build_big_ei_capture", "build_compute_capture", "build_indexed_capture",
           "build_inherited_capture", "build_pointer_capture", "execute_indirect_capture", "frame_capture",
           "program_objects"]

#: the objects of the capture, in the JSON description (design.md "The JSON description of objects")
OBJECTS: dict[str, Any] = {
    "root_signatures": {"GRS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "Num32BitValues": 2},
         "ShaderVisibility": "ALL"},
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 1}, "ShaderVisibility": "ALL"},
    ], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "program_command_signatures": {"PCS": {"pArgumentDescs": [
        {"Type": "CONSTANT", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE",
         "Constant": {"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 2}},
        {"Type": "SHADER_RESOURCE_VIEW", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE",
         "ShaderResourceView": {"RootParameterIndex": 1}},
        {"Type": "DRAW", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE"},
        {"Type": "INLINE_ROOT_PARAMETER", "Source": "PROGRAM_TABLE_RECORD", "Binding": "LOCAL_ROOT_SIGNATURE",
         "InlineRootParameter": {
             "RootParameter": {"ParameterType": "32BIT_CONSTANTS",
                               "Constants": {"ShaderRegister": 0, "RegisterSpace": 1, "Num32BitValues": 4},
                               "ShaderVisibility": "ALL"},
             "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 4}},
    ], "SecondaryRecordByteStride": 32, "pGlobalRootSignature": "GRS"}},
    "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"], "SubobjectMask": ["VS", "PS"]}},
}

BASE_VA = 0x1_0000_0000
FRAME_CONSTANTS_VA = 0x5000_0000


def program_objects(programs: int, doc: dict[str, Any] | None = None) -> Any:
    """The objects of ``doc`` (default :data:`OBJECTS`) with ``programs`` programs ``P0``, ``P1``, ... of ``PCS``."""
    doc = dict(OBJECTS if doc is None else doc)
    doc["programs"] = {f"P{p}": {"Identifier": (f"P{p}".encode() + bytes(32 - len(f"P{p}"))).hex(),
                                 "ProgramCommandSignature": "PCS"} for p in range(programs)}
    return description.load(doc)


def build_big_capture(draws: int = 1 << 20, per_record: int = 256, programs: int = 4, empty_every: int = 0) -> Any:
    """A Tier 1 ``DispatchList`` capture of ``draws`` draws (a multiple of ``per_record``); with ``empty_every`` = n,
    every n-th draw has ``VertexCountPerInstance`` 0 (it runs no invocation)."""
    i = np.arange(draws, dtype=np.uint64)
    vertices = np.where((i % empty_every == empty_every - 1) if empty_every else False, 0, 1 + i % 3)
    return frame_capture(per_record, programs, vertices.astype(np.uint32), (1 + i % 2).astype(np.uint32),
                         ((i * 3) % 1000003).astype(np.uint32))


def frame_capture(per_record: int, programs: int, vertices: np.ndarray, instances: np.ndarray,
                  start_vertex: np.ndarray) -> Any:
    """The work list of :func:`build_big_capture` with draw ``i`` of ``vertices[i]`` vertices from
    ``start_vertex[i]``, ``instances[i]`` instances (as many draws as ``vertices`` has, a multiple of
    ``per_record``)."""
    draws = len(vertices)
    if draws % per_record:
        raise ValueError(f"draws ({draws}) must be a multiple of per_record ({per_record})")
    objects = program_objects(programs)
    pcs = objects.program_command_signatures["PCS"]
    n_primary = draws // per_record
    i = np.arange(draws, dtype=np.uint64)
    u32 = np.uint32
    secondary = {
        "arg0_Constant": np.stack([i.astype(u32), ((i * 7) & 0xFFFF).astype(u32)], axis=1),
        "arg1_ShaderResourceView": 0x2_0000_0000 + i * 256,
        "arg2_Draw.VertexCountPerInstance": vertices,
        "arg2_Draw.InstanceCount": instances,
        "arg2_Draw.StartVertexLocation": start_vertex,
        "arg2_Draw.StartInstanceLocation": (i % 7).astype(u32),
    }
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": (np.arange(n_primary) % programs).astype(u32)}, secondary,
                            np.full(n_primary, per_record, dtype=u32))
    names = sorted(objects.programs)
    tints = np.array([[p / programs, 1.0 - p / programs, 0.25, 1.0] for p in range(programs)], dtype=np.float32)
    table = ProgramTableSpec(pcs_layout(pcs), {IDENTIFIER_FIELD: [objects.programs[n].Identifier for n in names],
                                               "arg3_InlineRootParameter": tints.view(np.uint32)})
    wls = objects.work_list_signatures["WLS"]
    wl = build_work_list([spec], base_va=BASE_VA, program_table=table, signature=wls, objects=objects)
    state = wl.command_list_state(wls, graphics_root_signature=pcs.pGlobalRootSignature,
                                  graphics_root_arguments={2: RootArgument("descriptor", value=FRAME_CONSTANTS_VA)})
    return wl.to_capture(objects, wls, state=state)


def _pointer_objects() -> dict[str, Any]:
    """:data:`OBJECTS` plus three root SRVs (GRS parameters 3, 4, 5) bound to the three record pointers."""
    doc = json.loads(json.dumps(OBJECTS))
    params = doc["root_signatures"]["GRS"]["pParameters"]
    args = doc["program_command_signatures"]["PCS"]["pArgumentDescs"]
    for register, (arg_type, payload) in enumerate((("PROGRAM_TABLE_POINTER", "ProgramTablePointer"),
                                                    ("PRIMARY_RECORD_POINTER", "PrimaryRecordPointer"),
                                                    ("SECONDARY_RECORD_POINTER", "SecondaryRecordPointer")), start=2):
        params.append({"ParameterType": "SRV", "Descriptor": {"ShaderRegister": register}, "ShaderVisibility": "ALL"})
        args.append({"Type": arg_type, "Source": "SYSTEM", "Binding": "GLOBAL_ROOT_SIGNATURE",
                     payload: {"RootParameterIndex": len(params) - 1}})
    return doc


def build_pointer_capture() -> Any:
    """A hybrid graphics work list using the three record pointers (spec "_PROGRAM_TABLE_POINTER",
    "_PRIMARY_RECORD_POINTER", "_SECONDARY_RECORD_POINTER") as root SRVs: four primary records selecting program
    table slots 2, 0, 1, 2 (so a slot's address differs from the table's start), three draws each."""
    objects = program_objects(3, _pointer_objects())
    pcs = objects.program_command_signatures["PCS"]
    u32 = np.uint32
    i = np.arange(12, dtype=np.uint64)
    secondary: dict[str, Any] = {"arg0_Constant": np.stack([i.astype(u32), (i * 5).astype(u32)], axis=1),
                                 "arg1_ShaderResourceView": 0x2_0000_0000 + i * 256,
                                 "arg2_Draw.VertexCountPerInstance": (1 + i % 3).astype(u32),
                                 "arg2_Draw.InstanceCount": 1, "arg2_Draw.StartVertexLocation": (i * 3).astype(u32),
                                 "arg2_Draw.StartInstanceLocation": 0}
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": np.array([2, 0, 1, 2], u32)}, secondary,
                            np.full(4, 3, dtype=u32))
    names = sorted(objects.programs)
    tints = np.array([[p, 0.5, 0.25, 1.0] for p in range(3)], dtype=np.float32)
    table = ProgramTableSpec(pcs_layout(pcs), {IDENTIFIER_FIELD: [objects.programs[n].Identifier for n in names],
                                               "arg3_InlineRootParameter": tints.view(np.uint32)})
    wls = objects.work_list_signatures["WLS"]
    wl = build_work_list([spec], base_va=BASE_VA, program_table=table, signature=wls, objects=objects)
    state = wl.command_list_state(wls, graphics_root_signature=pcs.pGlobalRootSignature,
                                  graphics_root_arguments={2: RootArgument("descriptor", value=FRAME_CONSTANTS_VA)})
    return wl.to_capture(objects, wls, state=state)


EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def build_compute_capture() -> Any:
    """Three compute dispatches of the ``Cull`` program (1x1x1, 2x1x1, 3x1x2 groups), SRVs 0x1000/0x2000/0x3000."""
    doc = json.loads((EXAMPLES / "tier2_chain.json").read_text(encoding="utf-8"))
    doc.pop("work_list_signature_arrays")
    objects = description.load(doc)
    pcs = objects.program_command_signatures["PCS_Cull"]
    u32 = np.uint32
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": np.zeros(3, u32),
                                  "arg1_ShaderResourceView": np.array([0x1000, 0x2000, 0x3000], np.uint64),
                                  "arg2_Dispatch.ThreadGroupCountX": np.array([1, 2, 3], u32),
                                  "arg2_Dispatch.ThreadGroupCountY": 1,
                                  "arg2_Dispatch.ThreadGroupCountZ": np.array([1, 1, 2], u32)})
    wls = objects.work_list_signatures["WLS_Cull"]
    cull = objects.programs["Cull"]
    wl = build_work_list([spec], base_va=0x10000, signature=wls, objects=objects,
                         program_table=ProgramTableSpec(cull, {IDENTIFIER_FIELD: [cull.Identifier]}))
    # every GRS parameter the PCS does not set comes from the command list, the draw list's too (the shared GRS of
    # tier2_chain.json: parameter 3 the buffer the culling writes, 4 and 5 the draws' SRV and constant)
    state = wl.command_list_state(wls, compute_root_signature=pcs.pGlobalRootSignature, compute_root_arguments={
        0: RootArgument("descriptor", value=0x5000), 3: RootArgument("descriptor", value=0x6000),
        4: RootArgument("descriptor", value=0), 5: RootArgument("constants", values=[0])})
    return wl.to_capture(objects, wls, state=state)


INDEXED_OBJECTS: dict[str, Any] = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 1, "Num32BitValues": 2},
         "ShaderVisibility": "ALL"},
    ], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {"Indexed": {"ByteStride": 48, "pArgumentDescs": [
        {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1, "DestOffsetIn32BitValues": 0,
                                          "Num32BitValuesToSet": 1}},
        {"Type": "INCREMENTING_CONSTANT", "IncrementingConstant": {"RootParameterIndex": 1,
                                                                   "DestOffsetIn32BitValues": 1}},
        {"Type": "INDEX_BUFFER_VIEW"},
        {"Type": "DRAW_INDEXED"},
    ], "pRootSignature": "RS"}},
}


def build_indexed_capture(commands: int = 64, count: int = 61) -> Any:
    """``ExecuteIndirect(Indexed, MaxCommandCount = commands, args, count buffer = count)``: command ``k`` sets
    b1[0] = 1000 + k, the incrementing constant b1[1], an R32_UINT index buffer view and draws ``3 + k % 4``
    indices from ``5 k``, ``1 + k % 3`` instances from ``k % 5``, with BaseVertexLocation ``10 k - 100``."""
    from d3d12wl.capture.file import CAPTURE_VERSION, Capture

    objects = description.load(INDEXED_OBJECTS)
    cs = objects.command_signatures["Indexed"]
    k = np.arange(commands, dtype=np.int64)
    args = packers.pack_execute_indirect(cs, {
        "arg0_Constant": (1000 + k).astype(np.uint32),
        "arg2_IndexBuffer.BufferLocation": (0x900000 + k * 0x1000).astype(np.uint64),
        "arg2_IndexBuffer.SizeInBytes": 4096,
        "arg2_IndexBuffer.Format": abi.enum_value("DXGI_FORMAT", "R32_UINT"),
        "arg3_DrawIndexed.IndexCountPerInstance": (3 + k % 4).astype(np.uint32),
        "arg3_DrawIndexed.InstanceCount": (1 + k % 3).astype(np.uint32),
        "arg3_DrawIndexed.StartIndexLocation": (5 * k).astype(np.uint32),
        "arg3_DrawIndexed.BaseVertexLocation": (10 * k - 100).astype(np.int32),
        "arg3_DrawIndexed.StartInstanceLocation": (k % 5).astype(np.uint32),
    })
    memory = GpuMemory()
    memory.map(0x20000, args.tobytes(), name="pArgumentBuffer")
    memory.map(0x30000, packers.pack_count_buffer(count).tobytes(), name="pCountBuffer")
    rs = cs.pRootSignature
    state = CommandListState(graphics_root_signature=rs, graphics_root_arguments={
        0: RootArgument("descriptor", value=FRAME_CONSTANTS_VA)})
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    call = ExecuteIndirectCall(pCommandSignature=cs, MaxCommandCount=commands, ArgumentBuffer=0x20000,
                               CountBuffer=0x30000)
    return Capture(CAPTURE_VERSION, device, objects, memory, state, call)


INHERITED_OBJECTS: dict[str, Any] = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "RegisterSpace": 1, "Num32BitValues": 4},
         "ShaderVisibility": "ALL"},
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
    ], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {"Draws": {"ByteStride": 16, "pArgumentDescs": [{"Type": "DRAW"}]}},
}


def build_inherited_capture(commands: int = 64, count: int = 61) -> Any:
    """``ExecuteIndirect(Draws, MaxCommandCount = commands, args, count buffer = count)`` with a DRAW-only command
    signature and no root signature; the command list sets ``RS``: four root constants (b0 space1: the floats 1000,
    2000, 3000, 4000), a root CBV and a root SRV.  Command ``k`` draws ``1 + k % 3`` vertices from ``4 k``,
    ``1 + k % 2`` instances."""
    objects = description.load(INHERITED_OBJECTS)
    cs = objects.command_signatures["Draws"]
    k = np.arange(commands, dtype=np.int64)
    args = packers.pack_execute_indirect(cs, {
        "arg0_Draw.VertexCountPerInstance": (1 + k % 3).astype(np.uint32),
        "arg0_Draw.InstanceCount": (1 + k % 2).astype(np.uint32),
        "arg0_Draw.StartVertexLocation": (4 * k).astype(np.uint32),
        "arg0_Draw.StartInstanceLocation": 0,
    })
    constants = np.array([1000.0, 2000.0, 3000.0, 4000.0], dtype=np.float32).view(np.uint32)
    state = CommandListState(graphics_root_signature=objects.root_signatures["RS"], graphics_root_arguments={
        0: RootArgument("constants", values=[int(v) for v in constants]),
        1: RootArgument("descriptor", value=FRAME_CONSTANTS_VA),
        2: RootArgument("descriptor", value=FRAME_CONSTANTS_VA + 0x1000)})
    return execute_indirect_capture(objects, cs, args, commands, count, state)


BIG_EI_OBJECTS: dict[str, Any] = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "Num32BitValues": 3},
         "ShaderVisibility": "ALL"},
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
    ], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {"Draws": {"ByteStride": 24, "pArgumentDescs": [
        {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0,
                                          "Num32BitValuesToSet": 2}},
        {"Type": "INCREMENTING_CONSTANT", "IncrementingConstant": {"RootParameterIndex": 0,
                                                                   "DestOffsetIn32BitValues": 2}},
        {"Type": "DRAW"},
    ], "pRootSignature": "RS"}},
}


def build_big_ei_capture(commands: int = 1 << 20, count: int | None = None) -> Any:
    """``ExecuteIndirect(Draws, MaxCommandCount = commands, args, count buffer = count (default commands - 1))``:
    command ``k`` sets b0[0..1] to (k, 7 k mod 65536), the incrementing constant b0[2] (IndirectDrawing.md: ``k``
    for command ``k``) and draws ``1 + k % 3`` vertices from ``3 k mod 1000003``, ``1 + k % 2`` instances from
    ``k % 7``; the command list sets the SRV t0."""
    objects = description.load(BIG_EI_OBJECTS)
    cs = objects.command_signatures["Draws"]
    k = np.arange(commands, dtype=np.uint64)
    args = packers.pack_execute_indirect(cs, {
        "arg0_Constant": np.stack([k.astype(np.uint32), ((k * 7) & 0xFFFF).astype(np.uint32)], axis=1),
        "arg2_Draw.VertexCountPerInstance": (1 + k % 3).astype(np.uint32),
        "arg2_Draw.InstanceCount": (1 + k % 2).astype(np.uint32),
        "arg2_Draw.StartVertexLocation": ((k * 3) % 1000003).astype(np.uint32),
        "arg2_Draw.StartInstanceLocation": (k % 7).astype(np.uint32)})
    state = CommandListState(graphics_root_signature=cs.pRootSignature, graphics_root_arguments={
        1: RootArgument("descriptor", value=FRAME_CONSTANTS_VA)})
    return execute_indirect_capture(objects, cs, args, commands, commands - 1 if count is None else count, state)


#: where :func:`execute_indirect_capture` maps the argument buffer and the count buffer
ARGUMENT_VA, COUNT_VA = 0x20000, 0x10000  # the count buffer below: any argument buffer fits above


def execute_indirect_capture(objects: Any, cs: Any, args: np.ndarray, max_count: int, count: int | None,
                             state: CommandListState, memory: GpuMemory | None = None) -> Any:
    """A Tier 1 device's ``ExecuteIndirect(cs, max_count, args at ARGUMENT_VA, count buffer at COUNT_VA holding
    count)`` (no count buffer for ``count`` None) over ``memory`` (default: just those two buffers)."""
    from d3d12wl.capture.file import CAPTURE_VERSION, Capture

    memory = GpuMemory() if memory is None else memory
    memory.map(ARGUMENT_VA, np.asarray(args, dtype=np.uint8).tobytes(), name="pArgumentBuffer")
    if count is not None:
        memory.map(COUNT_VA, packers.pack_count_buffer(count).tobytes(), name="pCountBuffer")
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    call = ExecuteIndirectCall(pCommandSignature=cs, MaxCommandCount=max_count, ArgumentBuffer=ARGUMENT_VA,
                               CountBuffer=None if count is None else COUNT_VA)
    return Capture(CAPTURE_VERSION, device, objects, memory, state, call)
