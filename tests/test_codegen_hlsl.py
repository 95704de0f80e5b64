"""Generated HLSL against the layout calculator, judged by an HLSL compiler.

glslc (shaderc's glslang HLSL front end) compiles every generated struct as the element of a ``StructuredBuffer``;
the SPIR-V ``Offset`` of every member, the ``ArrayStride`` of every array member and of the buffer itself (the
record stride) must equal the calculator's bytes (see ``hlsl_spirv``).  glslc or spirv-dis missing skips with
the reason, or fails under CI=true.
"""

from __future__ import annotations

import dataclasses
from importlib import resources
from typing import Any

import pytest
from hlsl_spirv import layout_mismatches, require_tools, shader_source, spirv_layouts, with_strides
from hypothesis import HealthCheck, given, settings
from test_codegen import signature_doc

from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.layout import RecordLayout, command_layout, pcs_layout, record_layouts

EXAMPLES = resources.files("d3d12wl").joinpath("examples")


@pytest.fixture(scope="module")
def hlsl_tools() -> None:
    """glslc and spirv-dis, or skip (fail under CI=true) before any example is drawn."""
    require_tools()


def example_layouts(name: str) -> list[RecordLayout]:
    return record_layouts(description.load(str(EXAMPLES.joinpath(name))))


@pytest.mark.usefixtures("hlsl_tools")
@pytest.mark.parametrize("name", ["culling.json", "gpu_resident_diagram.json", "execute_indirect.json",
                                  "tier2_chain.json"])
def test_example_hlsl_layout_equals_calculator(name: str) -> None:
    """Spec "GPU culling and work list emission" / "Components" / IndirectDrawing.md: every record of the examples
    as HLSL, compiled, puts every member and the record stride where the layout calculator does."""
    layouts = example_layouts(name)
    assert layouts
    assert layout_mismatches(layouts) == []


@pytest.mark.usefixtures("hlsl_tools")
def test_culling_secondary_record_in_spirv() -> None:
    """The spec's ``SecondaryRecord`` {uint64_t SRV; uint x4} as SPIR-V: Offsets 0, 8, 12, 16, 20, ArrayStride 24."""
    secondary = pcs_layout(description.load(str(EXAMPLES.joinpath("culling.json")))
                           .program_command_signatures["PCS"]).secondary
    assert secondary is not None
    got = spirv_layouts([secondary])["PCS_SecondaryRecord"]
    assert got.members == ["arg0_ShaderResourceView", "VertexCountPerInstance", "InstanceCount",
                           "StartVertexLocation", "StartInstanceLocation"]
    assert [got.offsets[i] for i in range(5)] == [0, 8, 12, 16, 20] and got.buffer_stride == 24


def test_every_member_is_read() -> None:
    """The shader reads every member (every array element) of every struct, so none can be optimized away."""
    layouts = example_layouts("culling.json")
    text = shader_source(with_strides(layouts))
    for i, layout in enumerate(layouts):
        for m in codegen.hlsl_members(layout):
            refs = [f"r{i}.{m.name}[{k}]" for k in range(m.count)] if m.count > 1 else [f"r{i}.{m.name}"]
            assert all(r in text for r in refs), (m.name, text)


def _mutated(mp: pytest.MonkeyPatch, mutate: Any) -> None:
    real = codegen.hlsl_members
    mp.setattr(codegen, "hlsl_members", lambda layout, stride=None, model=codegen.DEFAULT_SHADER_MODEL: mutate(
        real(layout, stride, model)))


@pytest.mark.usefixtures("hlsl_tools")
def test_the_check_is_live() -> None:
    """A codegen that disagrees with the calculator is caught: an unsplit ``uint64_t`` at a 4-byte offset (a vertex
    buffer view's BufferLocation at 4, realigned to 8 by the compiler), two DRAW members emitted in swapped order,
    and a missing trailing pad (the compiler's record stride is then short)."""
    objects = description.load({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"}, {"Type": "DRAW", "Source": "PRIMARY_RECORD"}]}}})
    primary = pcs_layout(objects.program_command_signatures["P"]).primary
    assert primary is not None and layout_mismatches([primary]) == []

    def unsplit(members: list[codegen.HlslMember]) -> list[codegen.HlslMember]:
        return [dataclasses.replace(m, name=m.name[:-3], hlsl_type="uint64_t", size=8, part=0)
                if m.name.endswith("_lo") else m for m in members if not m.name.endswith("_hi")]

    def swapped(members: list[codegen.HlslMember]) -> list[codegen.HlslMember]:
        i = [m.name for m in members].index("VertexCountPerInstance")
        a, b = members[i], members[i + 1]
        return [*members[:i], dataclasses.replace(b, offset=a.offset), dataclasses.replace(a, offset=b.offset),
                *members[i + 2:]]

    def no_trailing_pad(members: list[codegen.HlslMember]) -> list[codegen.HlslMember]:
        assert members[-1].field is None
        return members[:-1]

    for mutate, expected in [(unsplit, "P_PrimaryRecord.BufferLocation: SPIR-V Offset 8, layout offset 4"),
                             (swapped, "P_PrimaryRecord.InstanceCount: SPIR-V Offset 20, layout offset 24"),
                             (no_trailing_pad, "P_PrimaryRecord: StructuredBuffer ArrayStride 36, record stride 40")]:
        with pytest.MonkeyPatch.context() as mp:
            _mutated(mp, mutate)
            problems = layout_mismatches([primary])
        assert any(expected in p for p in problems), (mutate.__name__, problems)


@pytest.mark.usefixtures("hlsl_tools")
def test_uint64_in_a_record_whose_stride_is_not_a_multiple_of_8_is_split() -> None:
    """IndirectDrawing.md: an ExecuteIndirect stride need only be a multiple of 4, but a ``uint64_t`` makes an HLSL
    structured buffer's stride a multiple of 8 (glslc: 32 for a 28-byte struct).  So a CBV + DRAW_INDEXED command
    (28 bytes) emits its VA as ``_lo``/``_hi``; at stride 32 it stays a ``uint64_t``; both compile to the bytes."""
    objects = description.load({"command_signatures": {"EI": {"pArgumentDescs": [
        {"Type": "CONSTANT_BUFFER_VIEW"}, {"Type": "DRAW_INDEXED"}]}}})
    command = command_layout(objects.command_signatures["EI"])
    assert command.min_stride == 28
    names = {stride: [(m.name, m.hlsl_type) for m in codegen.hlsl_members(command, stride)][:2] for stride in (28, 32)}
    assert names == {28: [("arg0_ConstantBufferView_lo", "uint"), ("arg0_ConstantBufferView_hi", "uint")],
                     32: [("arg0_ConstantBufferView", "uint64_t"), ("IndexCountPerInstance", "uint")]}
    for stride in (28, 32, 36, 40):
        assert layout_mismatches([command], [stride]) == [], stride
    vertex = example_layouts("execute_indirect.json")[1]  # RootConstantsAndVertexBuffers: BufferLocation at 8
    assert layout_mismatches([vertex], [44]) == [] and layout_mismatches([vertex], [48]) == []
    assert "BufferLocation_hi" in codegen.hlsl_struct(vertex, 44) and "uint64_t BufferLocation;" in \
        codegen.hlsl_struct(vertex, 48)


@pytest.mark.usefixtures("hlsl_tools")
def test_uint64_array_in_a_4_aligned_stride_becomes_dwords() -> None:
    """No record the spec defines has a ``uint64_t[n]`` and a stride that is not a multiple of 8 (the program
    identifier is only in program-table records, 8-aligned strides), but codegen handles it: a program-table record
    made 4-aligned emits ``uint ProgramIdentifier_dw[8]``, and it compiles to the bytes."""
    table = pcs_layout(description.load(str(EXAMPLES.joinpath("culling.json")))
                       .program_command_signatures["PCS"]).program_table
    assert table is not None
    odd = dataclasses.replace(table, stride_align=4)
    first = codegen.hlsl_members(odd, 52)[0]
    assert (first.name, first.hlsl_type, first.count, first.size) == ("ProgramIdentifier_dw", "uint", 8, 32)
    assert layout_mismatches([odd], [52]) == []


PROPERTY = settings(max_examples=12, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.usefixtures("hlsl_tools")
@PROPERTY
@given(signature_doc())
def test_random_signatures_hlsl_layout_equals_calculator(doc: dict[str, Any]) -> None:
    """Spec "Record byte layouts" / IndirectDrawing.md: for random signatures (test_codegen's strategy), glslc
    places every member of every record's HLSL struct, and the record stride, where the calculator does."""
    objects = description.load(doc)
    pl = pcs_layout(objects.program_command_signatures["P"])
    layouts = [r for r in (pl.primary, pl.secondary, pl.program_table) if r is not None]
    layouts.append(command_layout(objects.command_signatures["EI"]))
    assert layout_mismatches(layouts) == []
