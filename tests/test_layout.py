"""The layout calculator against the spec's own numbers, one test per layout rule.

Every test names the spec section it proves; each would fail if the rule were missing from d3d12wl.records.layout.
Fixtures are JSON descriptions (design.md format), the two spec examples are the shipped example files.
"""

from __future__ import annotations

from importlib import resources
from typing import Any

import pytest

from d3d12wl import abi
from d3d12wl.model import description
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet, RecordKind
from d3d12wl.records.layout import (
    LayoutField,
    command_layout,
    pcs_layout,
    program_table_layout,
    record_layouts,
    signature_strides,
)


def example(name: str) -> ObjectSet:
    return description.load(str(resources.files("d3d12wl").joinpath(f"examples/{name}")))


def arg(type_: str, source: str, binding: str = "GLOBAL_ROOT_SIGNATURE", **payload: Any) -> dict[str, Any]:
    return {"Type": type_, "Source": source, "Binding": binding, **payload}


def pcs(*args: dict[str, Any], stride: int = 0, lrs: dict | None = None) -> ObjectSet:
    doc: dict[str, Any] = {"program_command_signatures": {"P": {"pArgumentDescs": list(args),
                                                                "SecondaryRecordByteStride": stride}}}
    if lrs is not None:
        doc["root_signatures"] = {"LRS": lrs}
        doc["programs"] = {"Prog": {"ProgramCommandSignature": "P", "LocalRootSignature": "LRS"}}
    return description.load(doc)


def inline_constants(source: str, num: int, dest: int, count: int, *, register: int = 0) -> dict[str, Any]:
    return arg("INLINE_ROOT_PARAMETER", source, "LOCAL_ROOT_SIGNATURE", InlineRootParameter={
        "RootParameter": {"ParameterType": "32BIT_CONSTANTS",
                          "Constants": {"ShaderRegister": register, "RegisterSpace": 1, "Num32BitValues": num}},
        "DestOffsetIn32BitValues": dest, "Num32BitValuesToSet": count})


DRAW_SECONDARY = arg("DRAW", "SECONDARY_RECORD")
DRAW_PRIMARY = arg("DRAW", "PRIMARY_RECORD")


def offsets(layout) -> dict[str, tuple[int, int]]:
    return {f.name: (f.offset, f.size) for f in layout.payload_fields}


# --- the spec's examples -----------------------------------------------------------------------------------------


def test_culling_example_records():
    """Spec "GPU culling and work list emission": a 16-byte hybrid primary record with no inline tail, a 24-byte
    SecondaryRecord (Root SRV at 0, _DRAW at 8) and a 48-byte program-table stride (32 + 16-byte tint tail)."""
    objects = example("culling.json")
    pl = pcs_layout(objects.program_command_signatures["PCS"])
    assert (pl.executable_class, pl.record_kind) == (ExecutableClass.GRAPHICS, RecordKind.HYBRID)
    assert pl.primary.header == "D3D12_WORK_LIST_PRIMARY_RECORD"
    assert (pl.primary.size, pl.primary.min_stride, pl.primary.payload_fields) == (16, 16, ())
    assert offsets(pl.secondary) == {"arg0_ShaderResourceView": (0, 8), "arg1_Draw": (8, 16)}
    assert pl.secondary.min_stride == 24 == objects.program_command_signatures["PCS"].SecondaryRecordByteStride
    assert offsets(pl.program_table) == {"arg2_InlineRootParameter": (32, 16)}
    assert (pl.program_table.tail_size, pl.program_table.min_stride) == (16, 48)
    for name in ("Opaque", "Transparent", "Shadow"):
        assert program_table_layout(objects.programs[name]).min_stride == 48
    strides = signature_strides(objects.work_list_signatures["WLS"], objects)
    assert (strides.min_primary_stride, strides.min_program_table_stride) == (16, 48)


def test_gpu_resident_diagram_records():
    """Spec "Components", legend of the GPU-resident diagram: primary record [0]'s PCS sources MyMaterialSRV per
    execution plus a local MyTintColor; primary record [1]'s PCS sources MyMaterialSRV from the primary record
    (inline after the 16-byte header), so its secondary records are smaller."""
    objects = example("gpu_resident_diagram.json")
    first = pcs_layout(objects.program_command_signatures["PCS_SecondarySRV"])
    second = pcs_layout(objects.program_command_signatures["PCS_PrimarySRV"])
    assert first.record_kind is second.record_kind is RecordKind.HYBRID
    assert offsets(first.primary) == {}
    assert offsets(first.secondary) == {"arg0_ShaderResourceView": (0, 8), "arg1_Draw": (8, 16),
                                        "arg2_InlineRootParameter": (24, 4)}
    assert (first.secondary.size, first.secondary.min_stride) == (28, 32)
    assert offsets(second.primary) == {"arg0_ShaderResourceView": (16, 8)}
    assert offsets(second.secondary) == {"arg1_Draw": (0, 16)}
    assert second.secondary.min_stride < first.secondary.min_stride
    strides = signature_strides(objects.work_list_signatures["WLS"], objects)
    assert (strides.min_primary_stride, strides.min_program_table_stride) == (24, 32)


# --- Record byte layouts: per-arg natural alignment ------------------------------------------------------------


@pytest.mark.parametrize("view", ["VERTEX_BUFFER_VIEW", "INDEX_BUFFER_VIEW"])
def test_buffer_views_align_to_4(view):
    """Spec "Per-arg natural alignment": D3D12_VERTEX/INDEX_BUFFER_VIEW are 16 bytes at 4-byte alignment, although
    C's alignof is 8: after the 4-byte fully-inline header the view sits at 4, not 8."""
    ctype = f"D3D12_{view.replace('_VIEW', '')}_VIEW"
    assert abi.default.alignof(ctype) == 8  # C would pad: the rule is what puts it at 4
    pl = pcs_layout(pcs(arg(view, "PRIMARY_RECORD"), arg("DRAW_INDEXED", "PRIMARY_RECORD")).program_command_signatures["P"])
    assert pl.primary.header == "D3D12_WORK_LIST_INLINE_PRIMARY_RECORD"
    fields = list(offsets(pl.primary).values())
    assert fields == [(4, 16), (20, 20)]
    assert (pl.primary.size, pl.primary.min_stride) == (40, 40)


def test_root_descriptor_after_root_constant_aligns_to_8():
    """Spec "Per-arg natural alignment": a root descriptor is 8 bytes at 8, so after one root constant DWORD at 0
    the CBV starts at 8 (4 bytes of padding), unlike ExecuteIndirect's tight packing."""
    pl = pcs_layout(pcs(arg("CONSTANT", "SECONDARY_RECORD", Constant={"Num32BitValuesToSet": 1}),
                        arg("CONSTANT_BUFFER_VIEW", "SECONDARY_RECORD"), DRAW_SECONDARY).program_command_signatures["P"])
    assert offsets(pl.secondary) == {"arg0_Constant": (0, 4), "arg1_ConstantBufferView": (8, 8), "arg2_Draw": (16, 16)}
    assert [(p.offset, p.size) for p in pl.secondary.padding()] == [(4, 4)]


def test_raytracing_hybrid_header_padding():
    """Spec "Primary record layout", raytracing-class hybrid: NumSecondaryRecords at 0, bytes 4..7 padding
    (ReservedPadding) for the 8-byte SecondaryRecords at 8, the inline tail from 16; fully inline has no header."""
    hybrid = pcs_layout(pcs(arg("DISPATCH_RAYS_DIMENSIONS", "SECONDARY_RECORD"),
                            arg("CONSTANT", "PRIMARY_RECORD", Constant={"Num32BitValuesToSet": 1}))
                        .program_command_signatures["P"])
    assert hybrid.executable_class is ExecutableClass.RAYTRACING
    assert hybrid.primary.header == "D3D12_WORK_LIST_RAYTRACING_RECORD"
    header = {f.name: (f.offset, f.size) for f in hybrid.primary.fields if f.role == "header"}
    assert header == {"NumSecondaryRecords": (0, 4), "ReservedPadding": (4, 4), "SecondaryRecords": (8, 8)}
    assert offsets(hybrid.primary) == {"arg1_Constant": (16, 4)}
    assert hybrid.program_table is None  # raytracing-class has no program table
    inline = pcs_layout(pcs(arg("DISPATCH_RAYS_DIMENSIONS", "PRIMARY_RECORD")).program_command_signatures["P"])
    assert inline.primary.header == "D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD" and inline.primary.header_size == 0
    assert offsets(inline.primary) == {"arg0_DispatchRaysDimensions": (0, 12)}
    assert inline.primary.min_stride == 16


def test_zero_byte_args():
    """Spec "Per-arg natural alignment", last row: _INCREMENTING_CONSTANT, validator pointer types,
    _INLINE_STATIC_SAMPLER and _FIXED_DISPATCH take 0 record bytes."""
    objects = pcs(
        arg("INCREMENTING_CONSTANT", "SYSTEM"),
        arg("INLINE_STATIC_SAMPLER", "STATIC", "LOCAL_ROOT_SIGNATURE"),
        arg("PROGRAM_TABLE_POINTER", "SYSTEM"),
        arg("PRIMARY_RECORD_POINTER", "SYSTEM"),
        arg("FIXED_DISPATCH", "STATIC", FixedDispatch={"ThreadGroupCountX": 1, "ThreadGroupCountY": 1,
                                                        "ThreadGroupCountZ": 1}),
    )
    pl = pcs_layout(objects.program_command_signatures["P"])
    assert pl.executable_class is ExecutableClass.COMPUTE and pl.record_kind is RecordKind.INLINE
    assert pl.primary.payload_fields == () and (pl.primary.size, pl.primary.min_stride) == (4, 8)
    assert pl.program_table.tail_size == 0


def test_dword_subrange_split_between_program_table_and_secondary():
    """Spec "_INLINE_ROOT_PARAMETER": one 8-DWORD constants slot composed from two sources, DWORDs 0-3 from the
    program-table record and 4-7 from a secondary record; "the program-table tail carries exactly the DWORDs
    sourced this way"."""
    pl = pcs_layout(pcs(inline_constants("PROGRAM_TABLE_RECORD", 8, 0, 4), inline_constants("SECONDARY_RECORD", 8, 4, 4),
                        DRAW_SECONDARY).program_command_signatures["P"])
    table, secondary = pl.program_table.arg_field(0), pl.secondary.arg_field(1)
    assert (table.offset, table.size, table.dword_offset, table.parameter) == (32, 16, 0, 0)
    assert (secondary.offset, secondary.size, secondary.dword_offset) == (0, 16, 4)
    assert pl.program_table.min_stride == 48 and pl.secondary.min_stride == 32


def test_explicit_path_tail_has_no_hole_for_overridden_slot():
    """Spec "Program table record layout" / "Storage of local root arguments": on the explicit path the tail holds
    the local root signature's slots not overridden per record, in declared order, packed with raytracing
    shader-record rules and no dead space for the overridden slot."""
    lrs = {"Flags": ["LOCAL_ROOT_SIGNATURE"], "pParameters": [
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}},
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 1, "Num32BitValues": 3}},
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}},
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 2, "Num32BitValues": 4}}]}
    objects = pcs(arg("CONSTANT_BUFFER_VIEW", "SECONDARY_RECORD", "LOCAL_ROOT_SIGNATURE",
                      ConstantBufferView={"RootParameterIndex": 0}),
                  arg("CONSTANT", "SECONDARY_RECORD", "LOCAL_ROOT_SIGNATURE",
                      Constant={"RootParameterIndex": 3, "DestOffsetIn32BitValues": 1, "Num32BitValuesToSet": 2}),
                  DRAW_SECONDARY, stride=32, lrs=lrs)
    tail = program_table_layout(objects.programs["Prog"])
    got = [(f.name, f.parameter, f.offset, f.size) for f in tail.payload_fields]
    assert got == [("param1", 1, 32, 12), ("param2", 2, 48, 8), ("param3_dw0", 3, 56, 4), ("param3_dw3", 3, 60, 4)]
    assert (tail.tail_size, tail.min_stride) == (32, 64)
    # the overridden CBV lives in the secondary record instead, 8 bytes at 8-byte alignment
    assert offsets(pcs_layout(objects.program_command_signatures["P"]).secondary)["arg0_ConstantBufferView"] == (0, 8)


# --- Stride derivation ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("dwords", "size", "stride"), [(1, 8, 8), (2, 12, 16), (3, 16, 16)])
def test_min_strides_round_up_to_8(dwords, size, stride):
    """Spec "Stride derivation": sum sizes and padding, "then rounding the total up to 8-byte for the stride"."""
    pl = pcs_layout(pcs(arg("CONSTANT", "PRIMARY_RECORD", Constant={"Num32BitValuesToSet": dwords}),
                        arg("DISPATCH", "SECONDARY_RECORD")).program_command_signatures["P"])
    assert (pl.primary.size, pl.primary.min_stride) == (16 + 4 * dwords, round_8(16 + 4 * dwords))
    inline = pcs_layout(pcs(arg("CONSTANT", "PRIMARY_RECORD", Constant={"Num32BitValuesToSet": dwords}),
                            arg("FIXED_DISPATCH", "STATIC", FixedDispatch={"ThreadGroupCountX": 1,
                                                                          "ThreadGroupCountY": 1,
                                                                          "ThreadGroupCountZ": 1}))
                        .program_command_signatures["P"])
    assert (inline.primary.size, inline.primary.min_stride) == (size, stride)


def round_8(n: int) -> int:
    return (n + 7) // 8 * 8


def test_stride_checks_and_broadcast():
    """Spec "Stride derivation" and "Program table slot layout": a stride must be >= the minimum and 8-byte aligned;
    0 is the broadcast form for SecondaryRecordByteStride and the program-table stride, never for the primary."""
    pl = pcs_layout(example("culling.json").program_command_signatures["PCS"])
    assert pl.secondary.stride_problems(0) == [] and pl.program_table.stride_problems(0) == []
    assert pl.primary.stride_problems(0)  # ProgramInputs.StrideInBytes has no broadcast form
    assert pl.secondary.stride_problems(24) == [] and pl.secondary.stride_problems(32) == []
    assert any("below the minimum" in p for p in pl.secondary.stride_problems(16))
    assert any("multiple of 8" in p for p in pl.secondary.stride_problems(28))
    assert any("below the minimum" in p for p in pl.program_table.stride_problems(40))
    assert pl.program_table.stride_problems(48) == []


# --- ExecuteIndirect (IndirectDrawing.md) ----------------------------------------------------------------------


def command(*args: dict[str, Any], stride: int = 0) -> Any:
    objects = description.load({"command_signatures": {"EI": {"ByteStride": stride, "pArgumentDescs": list(args)}}})
    return command_layout(objects.command_signatures["EI"])


def test_execute_indirect_tight_packing():
    """IndirectDrawing.md "Command signature creation": arguments are tightly packed, so a root CBV after one root
    constant sits at offset 4 (a Work Lists record would put it at 8)."""
    layout = command({"Type": "CONSTANT", "Constant": {"Num32BitValuesToSet": 1}},
                     {"Type": "CONSTANT_BUFFER_VIEW"}, {"Type": "DRAW"})
    assert offsets(layout) == {"arg0_Constant": (0, 4), "arg1_ConstantBufferView": (4, 8), "arg2_Draw": (12, 16)}
    assert (layout.size, layout.min_stride, layout.padding()) == (28, 28, [])


def test_execute_indirect_plain_multidraw_indirect_example():
    """IndirectDrawing.md "Plain MultiDrawIndirect": DRAW_INDEXED's 20 bytes at 0 and a 36-byte ByteStride with
    bytes 20..35 padding; ByteStride is a multiple of 4, not 8."""
    layout = command({"Type": "DRAW_INDEXED"}, stride=36)
    assert offsets(layout) == {"arg0_DrawIndexed": (0, 20)}
    assert layout.min_stride == 20 and layout.stride_problems(36) == []
    assert [(p.offset, p.size) for p in layout.padding(36)] == [(20, 16)]
    assert layout.stride_problems(38)  # not a multiple of 4


def test_execute_indirect_root_constants_vertex_buffer_example():
    """IndirectDrawing.md "Root Constants + Vertex Buffers": constants for root parameters 2 and 6 at 0 and 4, the
    vertex buffer view at 8..23, the draw at 24..39; ByteStride 40 with no padding."""
    layout = command({"Type": "CONSTANT", "Constant": {"RootParameterIndex": 2, "Num32BitValuesToSet": 1}},
                     {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 6, "Num32BitValuesToSet": 1}},
                     {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 3}}, {"Type": "DRAW"}, stride=40)
    assert [(f.offset, f.size) for f in layout.payload_fields] == [(0, 4), (4, 4), (8, 16), (24, 16)]
    assert (layout.size, layout.min_stride, layout.stride_problems(40)) == (40, 40, [])


def test_layout_fields_are_the_dataclass_s_own() -> None:
    """The calculator makes its LayoutFields in one step (records._frozen): each is the object ``LayoutField(...)``
    makes, field for field (equal, hashing alike, no attribute more or less)."""
    import dataclasses

    from d3d12wl.records._frozen import field_names

    layouts = record_layouts(example("culling.json")) + record_layouts(example("execute_indirect.json"))
    fields = [f for r in layouts for f in r.fields if f.role == "arg"]
    assert fields
    for f in fields:
        rebuilt = LayoutField(**{name: getattr(f, name) for name in field_names(LayoutField)})
        assert f == rebuilt and hash(f) == hash(rebuilt) and repr(f) == repr(rebuilt)
        assert vars(f) == vars(rebuilt) and dataclasses.astuple(f) == dataclasses.astuple(rebuilt)


def test_laying_out_once_lays_each_signature_out_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """``laying_out_once`` (``d3d12wl validate``: the rules, then the notes): each PCS is laid out once inside the
    block, every time outside it, with equal layouts."""
    from d3d12wl.records import layout as layout_module

    pcs = example("culling.json").program_command_signatures["PCS"]
    made: list[Any] = []
    real = layout_module._pcs_layout
    monkeypatch.setattr(layout_module, "_pcs_layout", lambda p: made.append(p) or real(p))
    with layout_module.laying_out_once():
        first = pcs_layout(pcs)
        assert pcs_layout(pcs) is first and len(made) == 1
        with layout_module.laying_out_once():
            assert pcs_layout(pcs) is first and len(made) == 1
    assert pcs_layout(pcs) == first and len(made) == 2
