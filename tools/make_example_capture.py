#!/usr/bin/env python3
"""Regenerate the bundled example captures in ``d3d12wl/examples/``, one per call kind:

* ``culling_capture.json``: ``DispatchList`` (Tier 1), the spec's "GPU culling and work list emission";
* ``execute_indirect_capture.json``: ``ExecuteIndirect`` with a count buffer (:func:`build_execute_indirect`);
* ``tier2_chain_capture.json``: a ``DispatchList1`` continuation chain, compute into graphics
  (:func:`build_tier2_chain`);
* ``validation_chain_capture.json``: a ``DispatchList1`` chain with GPU timeline validation hooks on and corrupted
  lists for ``examples/validators.py`` to neutralize (:func:`build_validation_chain`).

The culling example (seed 000, section "Example") is captured right after CullAndEmit ran, just before
``DispatchList``.

What the spec gives, reproduced exactly:

* the program command signature ``args[0..3]``: a root SRV at GRS parameter 1 and ``_DRAW`` from the secondary
  record, a float4 tint (``_INLINE_ROOT_PARAMETER``, b0 space1, ``_PROGRAM_TABLE_RECORD``) and a linear/wrap static
  sampler (s0 space1); ``SecondaryRecordByteStride`` 24;
* the work list signature (that PCS, ``SubobjectMask`` VS | PS), bound directly (``D3D12_PROGRAM_TYPE_WORK_LIST``,
  Tier 1) with a program table of ``kProgramTableSlotCount`` = 64 slots x 48 bytes, of which slots 0-2 hold
  OpaqueProgram (tint white 1,1,1,1), TransparentProgram (0.5,0.7,1,0.5) and ShadowProgram (black 0,0,0,1);
* CullAndEmit's output: one hybrid primary record per active ProgramTableIndex (stride 16), each pointing at its
  program's slab of ``g_SecondaryBuffer`` (``ProgramTableIndex * MAX_RECORDS_PER_PIPELINE`` records in), whose
  secondary records are ``{MaterialBufferSRV, VertexCount, InstanceCount 1, StartVertex, StartInstance 0}``;
* ``DispatchList(DispatchListInput, MaxGraphicsProgramInputsPerPrimaryList = 3)``.

What the spec leaves to the application, chosen here: the scene (:data:`SCENE`, a few objects of which some are
culled), the VAs (page-like, one region per buffer), GRS parameter 0 (a root CBV b0 for the per-frame constants,
set on the command list), and program identifiers that read as their program's name in a hex dump.

Every byte offset comes from the compiled headers (:mod:`d3d12wl.abi`), the layout calculator
(:mod:`d3d12wl.records.layout`), the packers (:mod:`d3d12wl.records.packers`) and the work-list builder
(:func:`d3d12wl.capture.builder.build_work_list`); none is typed here.  Each example's objects come from one JSON
description next to it (``culling.json``, ``execute_indirect.json``, ``tier2_chain.json``).  Run
``python tools/make_example_capture.py`` to write all four (``--example NAME`` for one, ``--check`` to verify the
committed files are up to date).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.builder import (
    BindingSpec,
    BuiltWorkList,
    DispatchListSpec,
    ProgramTableSpec,
    ValidationTableSpec,
    build_work_list,
)
from d3d12wl.capture.file import CAPTURE_VERSION, Capture, capture_to_dict
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.examples import validators
from d3d12wl.model import description
from d3d12wl.model.objects import ObjectSet, ProgramCommandSignature, WorkListSignatureArray
from d3d12wl.model.state import (
    CommandListState,
    DeviceCaps,
    DispatchListCall,
    ExecuteIndirectCall,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    VertexBufferView,
    WorkListBinding,
)
from d3d12wl.records import packers
from d3d12wl.records.layout import LayoutField, pcs_layout, program_table_layout

OUT = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples" / "culling_capture.json"

#: GPU virtual addresses (page-like), one buffer each.
DISPATCH_INPUT_VA = 0x10000  # pDispatchInputBuffer
PRIMARY_LIST_VA = 0x20000  # pPrimaryListBuffer
PROGRAM_TABLE_VA = 0x30000  # pProgramTableBuffer
SECONDARY_BUFFER_VA = 0x40000  # g_SecondaryBuffer
FRAME_CONSTANTS_VA = 0x50000  # the per-frame CBV (g_ViewProjection), GRS parameter 0

MAX_RECORDS_PER_PIPELINE = 256  # the HLSL's #define
PROGRAM_TABLE_SLOT_COUNT = 64  # kProgramTableSlotCount

#: (program name in the state object, program-table slot, tint)
PROGRAMS = (
    ("Opaque", 0, (1.0, 1.0, 1.0, 1.0)),  # white
    ("Transparent", 1, (0.5, 0.7, 1.0, 0.5)),  # blue-ish, 50% alpha
    ("Shadow", 2, (0.0, 0.0, 0.0, 1.0)),  # black (shadow caster)
)


@dataclass(frozen=True)
class ObjectData:
    """The HLSL ``ObjectData`` members CullAndEmit copies, plus the outcome of its frustum test."""

    VertexCount: int
    StartVertex: int
    ProgramTableIndex: int
    MaterialSRV: int
    visible: bool


#: The scene: 12 objects, 3 culled.  Materials are buffers at 0x<slot+1>0<k>000, one per object.
SCENE: tuple[ObjectData, ...] = (
    ObjectData(36, 0, 0, 0x100000, True),
    ObjectData(24, 36, 0, 0x101000, True),
    ObjectData(96, 60, 2, 0x300000, True),
    ObjectData(6, 156, 1, 0x200000, True),
    ObjectData(36, 162, 0, 0x102000, False),
    ObjectData(60, 198, 0, 0x103000, True),
    ObjectData(12, 258, 1, 0x201000, True),
    ObjectData(36, 270, 2, 0x301000, True),
    ObjectData(36, 306, 2, 0x302000, False),
    ObjectData(240, 342, 0, 0x104000, True),
    ObjectData(24, 582, 1, 0x202000, False),
    ObjectData(48, 606, 2, 0x303000, True),
)


EXAMPLE_OBJECTS = OUT.parent / "culling.json"


def objects_description() -> dict:
    """The object collections, as the spec's CPU-side setup creates them (steps 1 and 2): the package's
    ``examples/culling.json``, the one description of the example's objects (its program identifiers read as
    ``"<name>Program"`` in a hex dump)."""
    return json.loads(EXAMPLE_OBJECTS.read_text(encoding="utf-8"))


def put(buf: bytearray, offset: int, size: int, value: int | bytes) -> None:
    """Store ``value`` in ``size`` little-endian bytes at ``offset`` (sizes come from the layout / headers)."""
    if isinstance(value, bytes):
        assert len(value) == size
        buf[offset:offset + size] = value
    else:
        buf[offset:offset + size] = value.to_bytes(size, "little")


def put_field(buf: bytearray, base: int, f: LayoutField, value: int | bytes) -> None:
    put(buf, base + f.offset, f.size, value)


def put_member(buf: bytearray, base: int, ctype: str, member: str, value: int) -> None:
    """Store a member of a fixed struct at its header-derived offset."""
    field_info = next(fi for fi in _all_fields(ctype) if fi[0] == member)
    put(buf, base + field_info[1], field_info[2], value)


def _all_fields(ctype: str, prefix: str = "", base: int = 0) -> list[tuple[str, int, int]]:
    out = []
    for f in abi.type_info(ctype).fields:
        if f.nested is not None:
            out += _all_fields(f.type, f"{prefix}{f.name}.", base + f.offset)
        else:
            out.append((f"{prefix}{f.name}", base + f.offset, f.size))
    return out


def build() -> Capture:
    objects = description.load(objects_description())
    pcs = objects.program_command_signatures["PCS"]
    layout = pcs_layout(pcs)
    assert layout.secondary is not None
    primary_stride = layout.primary.min_stride  # sizeof(D3D12_WORK_LIST_PRIMARY_RECORD) = 16
    secondary_stride = pcs.SecondaryRecordByteStride  # sizeof(SecondaryRecord) = 24
    assert layout.secondary.min_stride <= secondary_stride

    # CullAndEmit: per-program secondary lists in fixed slabs of g_SecondaryBuffer.
    emitted: dict[int, list[ObjectData]] = {slot: [] for _, slot, _ in PROGRAMS}
    for obj in SCENE:
        if obj.visible:
            emitted[obj.ProgramTableIndex].append(obj)

    memory = GpuMemory()
    srv = layout.secondary.arg_field(0)
    draw = layout.secondary.arg_field(1)
    assert srv is not None and draw is not None and draw.ctype == "D3D12_DRAW_ARGUMENTS"
    for name, slot, _ in PROGRAMS:
        records = emitted[slot]
        buf = bytearray(len(records) * secondary_stride)
        for i, obj in enumerate(records):
            base = i * secondary_stride
            put_field(buf, base, srv, obj.MaterialSRV)
            for member, value in (("VertexCountPerInstance", obj.VertexCount), ("InstanceCount", 1),
                                  ("StartVertexLocation", obj.StartVertex), ("StartInstanceLocation", 0)):
                put_member(buf, base + draw.offset, "D3D12_DRAW_ARGUMENTS", member, value)
        memory.map(SECONDARY_BUFFER_VA + slot * MAX_RECORDS_PER_PIPELINE * secondary_stride, bytes(buf),
                   name=f"g_SecondaryBuffer[{name}]")

    # The primary list: one hybrid record per active ProgramTableIndex.
    active = [(name, slot) for name, slot, _ in PROGRAMS if emitted[slot]]
    primary = bytearray(len(active) * primary_stride)
    for i, (_, slot) in enumerate(active):
        base = i * primary_stride
        put_field(primary, base, layout.primary.field("ProgramTableIndex"), slot)
        put_field(primary, base, layout.primary.field("NumSecondaryRecords"), len(emitted[slot]))
        put_field(primary, base, layout.primary.field("SecondaryRecords"),
                  SECONDARY_BUFFER_VA + slot * MAX_RECORDS_PER_PIPELINE * secondary_stride)
    memory.map(PRIMARY_LIST_VA, bytes(primary), name="pPrimaryListBuffer")

    # D3D12_DISPATCH_LIST_INPUT.
    dli = bytearray(abi.sizeof("D3D12_DISPATCH_LIST_INPUT"))
    put_member(dli, 0, "D3D12_DISPATCH_LIST_INPUT", "NumProgramInputs", len(active))
    put_member(dli, 0, "D3D12_DISPATCH_LIST_INPUT", "Flags", abi.enum_value("D3D12_DISPATCH_LIST_FLAGS", "NONE"))
    put_member(dli, 0, "D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StartAddress", PRIMARY_LIST_VA)
    put_member(dli, 0, "D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes", primary_stride)
    memory.map(DISPATCH_INPUT_VA, bytes(dli), name="pDispatchInputBuffer")

    # The program table: 64 slots; slots 0-2 = {identifier, float4 tint}, the rest zero.
    table_stride = max(t.min_stride for t in (program_table_layout(p) for p in objects.programs.values()) if t)
    table = bytearray(PROGRAM_TABLE_SLOT_COUNT * table_stride)
    for name, slot, tint in PROGRAMS:
        slot_layout = program_table_layout(objects.programs[name])
        assert slot_layout is not None
        tail = slot_layout.arg_field(2)  # args[2]: the tint, Source _PROGRAM_TABLE_RECORD
        assert tail is not None and tail.count == len(tint)
        base = slot * table_stride
        put_field(table, base, slot_layout.field("ProgramIdentifier"), objects.programs[name].Identifier)
        put_field(table, base, tail, struct.pack(f"<{len(tint)}f", *tint))
    memory.map(PROGRAM_TABLE_VA, bytes(table), name="pProgramTableBuffer")

    binding = WorkListBinding(
        Type=abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"),
        ProgramTable=ProgramTableBinding(
            GpuVirtualAddressRangeAndStride(PROGRAM_TABLE_VA, len(table), table_stride), PROGRAM_TABLE_SLOT_COUNT))
    state = CommandListState(
        program=SetProgramDesc(Type=abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"),
                               WorkList=SetWorkListDesc(objects.work_list_signatures["WLS"], binding)),
        graphics_root_signature=objects.root_signatures["GRS"],
        graphics_root_arguments={0: RootArgument("descriptor", value=FRAME_CONSTANTS_VA)},
    )
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    call = DispatchListCall(DispatchListInput=DISPATCH_INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=3)
    return Capture(CAPTURE_VERSION, device, objects, memory, state, call)


# ----------------------------------------------------------------------------------------------------------------
# ExecuteIndirect: IndirectDrawing.md "Root Constants + Vertex Buffers" with a count buffer
# ----------------------------------------------------------------------------------------------------------------

EI_OUT = OUT.parent / "execute_indirect_capture.json"
EI_OBJECTS = OUT.parent / "execute_indirect.json"
EI_SIGNATURE = "RootConstantsAndVertexBuffers"

EI_ARGUMENT_BUFFER_VA = 0x20000  # pArgumentBuffer (ArgumentBufferOffset 0)
EI_COUNT_BUFFER_VA = 0x30000  # pCountBuffer (CountBufferOffset 0)
EI_FRAME_CONSTANTS_VA = 0x50000  # RS parameter 0, a root CBV (b0) set on the command list
EI_SHARED_SRVS = {1: 0x60000, 3: 0x61000, 4: 0x62000, 5: 0x63000}  # RS parameters 1, 3, 4, 5: root SRVs t0-t3
EI_POSITIONS = VertexBufferView(0x100000, 0x10000, 12)  # VB slot 0, set on the command list (float3 positions)
EI_INSTANCE_STRIDE = 16  # VB slot 3: each command's per-instance buffer (float4 per instance)

#: The argument buffer's commands: (root constant 2 = object id, root constant 6 = material id, VB slot 3 buffer,
#: instances, VertexCountPerInstance, StartVertexLocation).  The producer wrote 5; the count buffer says 3 are live.
EI_COMMANDS = (
    (100, 7, 0x200000, 4, 36, 0),
    (101, 3, 0x201000, 1, 24, 36),
    (102, 7, 0x202000, 16, 96, 60),
    (103, 5, 0x203000, 2, 6, 156),  # beyond the count buffer's 3: written, never executed
    (104, 3, 0x204000, 8, 60, 162),  # beyond MaxCommandCount too
)
EI_COUNT = 3  # *pCountBuffer
EI_MAX_COMMAND_COUNT = 4  # min(3, 4) = 3 commands execute


def build_execute_indirect() -> Capture:
    """``ExecuteIndirect(RootConstantsAndVertexBuffers, MaxCommandCount = 4, args, 0, count, 0)`` with a count
    buffer holding 3 over 5 commands (IndirectDrawing.md "Drawing": ``min(CommandCount, MaxCommandCount)``).  The
    command signature and its root signature ``RS`` are the package's ``examples/execute_indirect.json``; the
    commands are packed by :func:`d3d12wl.records.packers.pack_execute_indirect` at the signature's ByteStride (40)."""
    objects = description.load(json.loads(EI_OBJECTS.read_text(encoding="utf-8")))
    cs = objects.command_signatures[EI_SIGNATURE]
    object_id, material_id, vb, instances, vertex_count, start_vertex = (
        np.array(column, dtype=np.uint64) for column in zip(*EI_COMMANDS))
    args = packers.pack_execute_indirect(cs, {
        "arg0_Constant": object_id.astype(np.uint32),  # root parameter 2 (b1)
        "arg1_Constant": material_id.astype(np.uint32),  # root parameter 6 (b2)
        "arg2_VertexBuffer.BufferLocation": vb,  # VB slot 3
        "arg2_VertexBuffer.SizeInBytes": instances * np.uint64(EI_INSTANCE_STRIDE),
        "arg2_VertexBuffer.StrideInBytes": EI_INSTANCE_STRIDE,
        "arg3_Draw.VertexCountPerInstance": vertex_count,
        "arg3_Draw.InstanceCount": instances,
        "arg3_Draw.StartVertexLocation": start_vertex,
        "arg3_Draw.StartInstanceLocation": 0,
    })
    memory = GpuMemory()
    memory.map(EI_ARGUMENT_BUFFER_VA, args.tobytes(), name="pArgumentBuffer")
    memory.map(EI_COUNT_BUFFER_VA, packers.pack_count_buffer(EI_COUNT).tobytes(), name="pCountBuffer")

    rs = cs.pRootSignature
    assert rs is not None
    state = CommandListState(
        graphics_root_signature=rs,
        graphics_root_arguments={0: RootArgument("descriptor", value=EI_FRAME_CONSTANTS_VA),
                                 **{p: RootArgument("descriptor", value=va) for p, va in EI_SHARED_SRVS.items()}},
        vertex_buffers={0: EI_POSITIONS},
    )
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    call = ExecuteIndirectCall(pCommandSignature=cs, MaxCommandCount=EI_MAX_COMMAND_COUNT,
                               ArgumentBuffer=EI_ARGUMENT_BUFFER_VA, CountBuffer=EI_COUNT_BUFFER_VA)
    return Capture(CAPTURE_VERSION, device, objects, memory, state, call)


# ----------------------------------------------------------------------------------------------------------------
# DispatchList1: a Tier 2 continuation chain, compute-class culling list -> graphics-class draw list
# ----------------------------------------------------------------------------------------------------------------

TIER2_OUT = OUT.parent / "tier2_chain_capture.json"
TIER2_OBJECTS = OUT.parent / "tier2_chain.json"

TIER2_WORK_LIST_VA = 0x10000  # the builder's buffer: both D3D12_DISPATCH_LIST_INPUT1s, both program tables, the lists
TIER2_FRAME_CONSTANTS_VA = 0x50000  # GRS parameter 0, a root CBV (b0), set in both binding sets
THREADS_PER_GROUP = 64  # the culling shader's [numthreads(64, 1, 1)]

#: The culling list: one inline primary record per object batch (its SRV, its object count).
CULL_BATCHES = ((0x100000, 100), (0x101000, 64), (0x102000, 200))

#: The draw list the culling pass publishes: (program, program-table slot, tint, draws), each draw (material SRV,
#: VertexCountPerInstance, StartVertexLocation).
DRAW_PROGRAMS = (
    ("Opaque", 0, (1.0, 1.0, 1.0, 1.0), ((0x200000, 36, 0), (0x201000, 24, 36), (0x202000, 96, 60))),
    ("AlphaTested", 1, (0.5, 0.75, 0.25, 1.0), ((0x210000, 6, 156), (0x211000, 60, 162))),
)


def _flags(enum: str, *members: str) -> int:
    value = 0
    for member in members:
        value |= abi.enum_value(enum, member)
    return value


@dataclass(frozen=True)
class Tier2Objects:
    """The Tier 2 examples' objects (``tier2_chain.json``) and where their two signatures sit in ``ARR``."""

    objects: ObjectSet
    pcs_cull: ProgramCommandSignature
    pcs_draw: ProgramCommandSignature
    array: WorkListSignatureArray
    cull_index: int
    draw_index: int


def _tier2_objects() -> Tier2Objects:
    objects = description.load(json.loads(TIER2_OBJECTS.read_text(encoding="utf-8")))
    pcs_cull = objects.program_command_signatures["PCS_Cull"]
    pcs_draw = objects.program_command_signatures["PCS_Draw"]
    array = objects.work_list_signature_arrays["ARR"]
    cull_index = next(i for i, s in enumerate(array.pSignatures) if pcs_cull in s.pProgramCommandSignatures)
    draw_index = next(i for i, s in enumerate(array.pSignatures) if pcs_draw in s.pProgramCommandSignatures)
    return Tier2Objects(objects, pcs_cull, pcs_draw, array, cull_index, draw_index)


def _cull_list(t: Tier2Objects, batches: Sequence[tuple[int, int]], flags: int) -> DispatchListSpec:
    """A compute-class culling list: one inline ``Cull`` record per (object batch SRV, object count), dispatching
    enough thread groups for the batch."""
    batch_srv, batch_objects = (np.array(c, dtype=np.uint64) for c in zip(*batches, strict=True))
    return DispatchListSpec(
        t.pcs_cull,
        {"ProgramTableIndex": np.zeros(len(batches), dtype=np.uint32),  # slot 0 of the culling table: Cull
         "arg1_ShaderResourceView": batch_srv,
         "arg2_Dispatch.ThreadGroupCountX": (batch_objects + THREADS_PER_GROUP - 1) // THREADS_PER_GROUP,
         "arg2_Dispatch.ThreadGroupCountY": 1, "arg2_Dispatch.ThreadGroupCountZ": 1},
        flags=flags, signature_index=t.cull_index)


def _draw_list(t: Tier2Objects, records: Sequence[tuple[int, Sequence[tuple[int, int, int]]]]) -> DispatchListSpec:
    """A graphics-class draw list: one hybrid record per (draw-table slot, draws), each draw (material SRV,
    VertexCountPerInstance, StartVertexLocation) one secondary record."""
    draws = [d for _, ds in records for d in ds]
    material, vertex_count, start_vertex = (np.array(c, dtype=np.uint64) for c in zip(*draws, strict=True))
    return DispatchListSpec(
        t.pcs_draw,
        {"ProgramTableIndex": np.array([slot for slot, _ in records], dtype=np.uint32)},
        {"arg0_ShaderResourceView": material, "arg2_Draw.VertexCountPerInstance": vertex_count,
         "arg2_Draw.InstanceCount": 1, "arg2_Draw.StartVertexLocation": start_vertex,
         "arg2_Draw.StartInstanceLocation": 0},
        np.array([len(ds) for _, ds in records], dtype=np.uint32),
        signature_index=t.draw_index)


def _tier2_bindings(t: Tier2Objects, draw_programs: Sequence[tuple[str, tuple[float, ...]]]) -> list[BindingSpec]:
    """pBindings parallel to ``ARR``: the culling table (32-byte identifier-only slots) and the draw table (one slot
    per (program, tint), identifier + float4 tint)."""
    programs = t.objects.programs
    draw_table = ProgramTableSpec(
        pcs_layout(t.pcs_draw),
        {"ProgramIdentifier": [programs[name].Identifier for name, _ in draw_programs],
         "arg3_InlineRootParameter": np.array([tint for _, tint in draw_programs], dtype=np.float32).view(np.uint32)})
    cull_table = ProgramTableSpec(programs["Cull"], {"ProgramIdentifier": [programs["Cull"].Identifier]})
    bindings: list[BindingSpec] = [None] * len(t.array.pSignatures)
    bindings[t.cull_index], bindings[t.draw_index] = cull_table, draw_table
    return bindings


def _tier2_state(t: Tier2Objects, wl: BuiltWorkList) -> CommandListState:
    """SetProgram from the builder, the shared GRS bound in both binding sets, parameter 0 the per-frame CBV and
    parameter 3 the buffer the culling shaders write the draw list into.  Each binding set also sets the parameters
    only the other class's PCS fills per record (graphics 1 and 2, compute 4 and 5: NULL views and zero constants),
    so that no execution reads a parameter nothing set (``root-parameter-not-set``: every parameter the root
    signature declares counts as read)."""
    grs = t.pcs_cull.pGlobalRootSignature
    assert grs is not None and grs is t.pcs_draw.pGlobalRootSignature  # Uniformity constraint 1
    frame = RootArgument("descriptor", value=TIER2_FRAME_CONSTANTS_VA)
    draw_list = RootArgument("descriptor", value=wl.base_va)
    null, zero = RootArgument("descriptor", value=0), RootArgument("constants", values=[0])
    return wl.command_list_state(
        graphics_root_signature=grs,
        compute_root_signature=grs,
        compute_root_arguments={0: frame, 3: draw_list, 4: null, 5: zero},
        graphics_root_arguments={0: frame, 1: zero, 2: null, 3: draw_list},
    )


def build_tier2_chain() -> Capture:
    """``DispatchList1(input, MaxGraphicsPrimaryLists = 1, MaxGraphicsProgramInputsPerPrimaryList = 2)`` over a
    two-list chain laid out by :func:`d3d12wl.capture.builder.build_work_list` (tier 2):

    * list 0, ``SignatureIndex`` 0 (``WLS_Cull``, compute-class): fully-inline records (``Cull`` program, object
      batch SRV, ``_DISPATCH``), an incrementing constant in GRS parameter 1; flags
      ``_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION | _END_WITH_WAIT_FOR_COMPLETION | _END_WITH_MEMORY_FLUSH``: the
      culling shaders write the draw list with cached writes, and NextDispatchList is read once they retire;
    * list 1, ``SignatureIndex`` 1 (``WLS_Draw``, graphics-class): hybrid records for two programs (``Opaque``,
      ``AlphaTested``; a float4 tint each in the program table), a material SRV and ``_DRAW`` per secondary record,
      an incrementing constant in GRS parameter 5; ``NextDispatchList`` 0 ends the call.

    SetProgram binds the array ``ARR`` (``D3D12_PROGRAM_TYPE_WORK_LIST1``) with two bindings, a program table each,
    both placed by the builder (``bindings``) with their own strides: pBindings[0] the culling table (32-byte
    identifier-only slots), pBindings[1] the draw table (48-byte slots, identifier + tint).  The capture holds the
    memory as each list reads it: the draw list as the culling pass publishes it (the executor runs no shaders)."""
    t = _tier2_objects()
    cull = _cull_list(t, CULL_BATCHES, _flags("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION",
                                              "END_WITH_WAIT_FOR_COMPLETION", "END_WITH_MEMORY_FLUSH"))
    assert [slot for _, slot, _, _ in DRAW_PROGRAMS] == list(range(len(DRAW_PROGRAMS)))
    draw = _draw_list(t, [(slot, ds) for _, slot, _, ds in DRAW_PROGRAMS])
    bindings = _tier2_bindings(t, [(name, tint) for name, _, tint, _ in DRAW_PROGRAMS])
    wl = build_work_list([cull, draw], base_va=TIER2_WORK_LIST_VA, tier=2, bindings=bindings, signature=t.array,
                         objects=t.objects)
    capture = wl.to_capture(t.objects, state=_tier2_state(t, wl))  # a Tier 2 device, no raytracing
    capture.memory = wl.memory(name="work list (DispatchList1 inputs, program tables, lists)")
    assert capture.call.MaxGraphicsPrimaryLists == 1  # one graphics-class list in the chain
    return capture


# ----------------------------------------------------------------------------------------------------------------
# DispatchList1 with GPU timeline validation hooks: a chain with corrupted lists, for examples/validators.py
# ----------------------------------------------------------------------------------------------------------------

VALIDATION_OUT = OUT.parent / "validation_chain_capture.json"

#: list 0: (object batch SRV, objects in it)
VALIDATION_CULL_BATCHES = ((0x100000, 100), (0x101000, 64))
#: the draw table's slots: (program, tint)
VALIDATION_DRAW_PROGRAMS = (("Opaque", (1.0, 1.0, 1.0, 1.0)), ("AlphaTested", (0.5, 0.75, 0.25, 1.0)))
#: lists 1 and 2: per record (draw-table slot, draws), each draw (material SRV, VertexCountPerInstance,
#: StartVertexLocation)
VALIDATION_LIST1 = ((0, ((0x200000, 36, 0), (0x201000, 24, 36))), (1, ((0x210000, 6, 60),)))
VALIDATION_LIST2 = ((0, ((0x220000, 36, 66), (0x221000, 12, 102), (0x222000, 48, 114))),)
#: what the producer wrote into list 1's NumProgramInputs: the culling pass's input object count
CORRUPT_NUM_PROGRAM_INPUTS = sum(n for _, n in VALIDATION_CULL_BATCHES)
#: what list 2's record claims (3 secondary records exist)
CORRUPT_NUM_SECONDARY_RECORDS = 8


def build_validation_chain() -> Capture:
    """A Tier 2 ``DispatchList1`` chain with the GPU timeline validation hooks on (spec "GPU Timeline Validation
    Hooks"), for the validators of ``d3d12wl/examples/validators.py``::

        d3d12wl exec d3d12wl/examples/validation_chain_capture.json --validators d3d12wl.examples.validators:VALIDATORS

    The objects of the Tier 2 chain example with the validation index fields set: both work list signatures'
    ``ListValidationProgramTableIndex`` = the primary-list check's slot, ``PCS_Draw``'s
    ``RecordValidationProgramTableIndex`` = the secondary-list check's slot.  One writable buffer (validators write
    back through UAVs) holds the lists, both program tables and the validation program table (slot 0 the "no
    validator" sentinel, then the validators' identifiers); SetProgram binds ``ARR`` with a non-null
    ``ValidationProgramTable``, so the array-bind path runs validators:

    * list 0, ``WLS_Cull``: two fully-inline culling dispatches; valid;
    * list 1, ``WLS_Draw``: two hybrid draw records, but the producer wrote the culling pass's *input* object count
      into ``NumProgramInputs`` (:data:`CORRUPT_NUM_PROGRAM_INPUTS`) instead of the 2 survivors: the records run far
      past the buffer.  The primary-list check zeroes ``NumProgramInputs`` and the list executes nothing (its
      ``NextDispatchList`` is still followed);
    * list 2, ``WLS_Draw``: one hybrid record with 3 secondary records whose ``NumSecondaryRecords`` says
      :data:`CORRUPT_NUM_SECONDARY_RECORDS`; its secondary list is the last part of the buffer, so the
      secondary-list check truncates the count to the 3 that exist.

    Without validators the executor runs what the bytes say (list 1's garbage records, list 2's reads past the
    buffer) and reports it."""
    t = _tier2_objects()
    for wls in t.array.pSignatures:  # the validation index fields (slot 0 = no validator)
        wls.ListValidationProgramTableIndex = validators.PRIMARY_LIST_SLOT
    t.pcs_draw.RecordValidationProgramTableIndex = validators.SECONDARY_LIST_SLOT
    cull = _cull_list(t, VALIDATION_CULL_BATCHES,
                      _flags("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION", "END_WITH_MEMORY_FLUSH"))
    wl = build_work_list([cull, _draw_list(t, VALIDATION_LIST1), _draw_list(t, VALIDATION_LIST2)],
                         base_va=TIER2_WORK_LIST_VA, tier=2, bindings=_tier2_bindings(t, VALIDATION_DRAW_PROGRAMS),
                         signature=t.array, objects=t.objects,
                         validation_table=ValidationTableSpec(validators.table_slots()))

    # the corruption, written where the headers and the layout say the fields are
    data = bytearray(wl.bytes())
    header = wl.dispatch_inputs[1] - wl.base_va + abi.offsetof("D3D12_DISPATCH_LIST_INPUT1", "NumProgramInputs")
    data[header:header + 4] = CORRUPT_NUM_PROGRAM_INPUTS.to_bytes(4, "little")
    count = wl.primary_lists[2].va - wl.base_va + pcs_layout(t.pcs_draw).primary.field("NumSecondaryRecords").offset
    data[count:count + 4] = CORRUPT_NUM_SECONDARY_RECORDS.to_bytes(4, "little")
    last_secondary = wl.secondary_lists[2]
    assert last_secondary is not None and last_secondary.va + last_secondary.size == wl.base_va + wl.size

    capture = wl.to_capture(t.objects, state=_tier2_state(t, wl))  # SetProgram: ARR, pBindings, validation table
    memory = GpuMemory()
    memory.map(wl.base_va, data, name="work list (DispatchList1 inputs, program tables, validation program table, "
               "lists)", writable=True)
    capture.memory = memory
    return capture


EXAMPLES: dict[str, tuple[Callable[[], Capture], Path]] = {
    "culling": (build, OUT),
    "execute_indirect": (build_execute_indirect, EI_OUT),
    "tier2_chain": (build_tier2_chain, TIER2_OUT),
    "validation_chain": (build_validation_chain, VALIDATION_OUT),
}


def render(capture: Capture) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        data = capture_to_dict(capture, Path(tmp), inline_limit=1 << 20)
    return json.dumps(data, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a committed file differs")
    parser.add_argument("--example", choices=sorted(EXAMPLES), action="append",
                        help="only this example (repeatable; default: all)")
    parser.add_argument("-o", "--output", type=Path, help="write (or check) this file instead (one --example)")
    args = parser.parse_args(argv)
    names = args.example or list(EXAMPLES)
    if args.output is not None and len(names) != 1:
        parser.error("--output needs exactly one --example")
    status = 0
    for name in names:
        make, out = EXAMPLES[name]
        out = args.output or out
        text = render(make())
        if args.check:
            current = out.read_text(encoding="utf-8") if out.exists() else ""
            if current != text:
                print(f"{out} is out of date: run tools/make_example_capture.py", file=sys.stderr)
                status = 1
            continue
        out.write_text(text, encoding="utf-8")
        print(f"wrote {out} ({len(text.encode())} bytes)")
    return status


if __name__ == "__main__":
    sys.exit(main())
