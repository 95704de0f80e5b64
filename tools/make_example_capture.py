#!/usr/bin/env python3
"""Regenerate ``d3d12wl/examples/culling_capture.json``: the spec's "GPU culling and work list emission" example
(seed 000, section "Example"), captured right after CullAndEmit ran, just before ``DispatchList``.

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

Every byte offset comes from the compiled headers (:mod:`d3d12wl.abi`) and the layout calculator
(:mod:`d3d12wl.layout`); none is typed here.  Run ``python tools/make_example_capture.py`` (``--check`` to verify
the committed file is up to date).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from d3d12wl import abi, description
from d3d12wl.capture import CAPTURE_VERSION, Capture, capture_to_dict
from d3d12wl.layout import LayoutField, pcs_layout, program_table_layout
from d3d12wl.memory import GpuMemory
from d3d12wl.state import (
    CommandListState,
    DeviceCaps,
    DispatchListCall,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    WorkListBinding,
)

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


def render(capture: Capture) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        data = capture_to_dict(capture, Path(tmp), inline_limit=1 << 20)
    return json.dumps(data, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    parser.add_argument("-o", "--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run tools/make_example_capture.py", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
