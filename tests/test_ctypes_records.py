"""ctypes Structures for every record class, from the layout calculator (issue 16 item 10).

Spec "Record byte layouts" / "Per-arg natural alignment" (IndirectDrawing.md for ExecuteIndirect): each record's
``ctypes.Structure`` has the C codegen struct's members and offsets, explicit ``_padN`` members, ``_pack_`` only
where a payload sits below its C alignment or the stride is not a multiple of it, and ``from_buffer`` over what the
packers wrote reads the packed values.  tests/test_schemas.py's ``common`` adds ctypes to the one-call record check.
"""

from __future__ import annotations

import ctypes
from importlib import resources
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from test_codegen import PROPERTY, signature_doc
from test_schemas import c_members

from d3d12wl.errors import LayoutError
from d3d12wl.model import description
from d3d12wl.records import packers
from d3d12wl.records.ctypes_records import RECORD_PACK, record_ctype, to_value
from d3d12wl.records.layout import RecordLayout, command_layout, pcs_layout

CULLING = str(resources.files("d3d12wl").joinpath("examples/culling.json"))


def members(cls: Any) -> list[tuple[str, int, int]]:
    return [(f[0], getattr(cls, f[0]).offset, getattr(cls, f[0]).size) for f in cls._fields_]


def test_culling_secondary_records_from_buffer() -> None:
    """Spec "GPU culling and work list emission": 1000 packed 24-byte secondary records read through
    ``(PCS_SecondaryRecord * n).from_buffer`` without a copy, values as written."""
    pl = pcs_layout(description.load(CULLING).program_command_signatures["PCS"])
    n = 1000
    packed = packers.pack_secondary_records(pl, {
        "arg0_ShaderResourceView": 0x100000 + 0x1000 * np.arange(n, dtype=np.uint64),
        "arg1_Draw.VertexCountPerInstance": 36, "arg1_Draw.InstanceCount": 1,
        "arg1_Draw.StartVertexLocation": 36 * np.arange(n, dtype=np.uint32), "arg1_Draw.StartInstanceLocation": 0})
    cls = record_ctype(pl.secondary)
    assert cls.__name__ == "PCS_SecondaryRecord" and ctypes.sizeof(cls) == 24 and not hasattr(cls, "_pack_")
    rows = (cls * n).from_buffer(packed)
    assert rows[2].arg0_ShaderResourceView == 0x102000 and rows[2].arg1_Draw.StartVertexLocation == 72
    assert to_value(rows[999]) == {"arg0_ShaderResourceView": 0x100000 + 0x1000 * 999, "arg1_Draw": {
        "VertexCountPerInstance": 36, "InstanceCount": 1, "StartVertexLocation": 36 * 999, "StartInstanceLocation": 0}}
    rows[0].arg1_Draw.InstanceCount = 7  # the same memory, not a copy
    assert packers.read_secondary_records(pl, packed)["arg1_Draw"]["InstanceCount"][0] == 7


def _primary(args: list[dict[str, Any]]) -> RecordLayout:
    objects = description.load({"program_command_signatures": {"P": {"pArgumentDescs": args}}})
    return pcs_layout(objects.program_command_signatures["P"]).primary


def test_pack_only_where_the_spec_alignment_needs_it() -> None:
    """A vertex buffer view at 4 (its C alignment is 8) needs ``_pack_`` 4; so does a 28-byte ExecuteIndirect
    command holding a uint64 (IndirectDrawing.md: CBV + DRAW_INDEXED, tightly packed).  from_buffer reads both."""
    vb = _primary([{"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"}, {"Type": "DRAW", "Source": "PRIMARY_RECORD"}])
    cls = record_ctype(vb)
    assert cls._pack_ == RECORD_PACK and members(cls)[:2] == [("ProgramTableIndex", 0, 4), ("arg0_VertexBuffer", 4, 16)]
    assert members(cls) == c_members(vb)
    packed = packers.pack_primary_records(vb, {
        "ProgramTableIndex": [3], "arg0_VertexBuffer.BufferLocation": [0x1234_5678_9ABC], "arg0_VertexBuffer.SizeInBytes": 64,
        "arg0_VertexBuffer.StrideInBytes": 16, "arg1_Draw.VertexCountPerInstance": 3, "arg1_Draw.InstanceCount": 1,
        "arg1_Draw.StartVertexLocation": 0, "arg1_Draw.StartInstanceLocation": 0})
    row = cls.from_buffer(packed)
    assert (row.ProgramTableIndex, row.arg0_VertexBuffer.BufferLocation) == (3, 0x1234_5678_9ABC)

    objects = description.load({"command_signatures": {"EI": {"ByteStride": 28, "pArgumentDescs": [
        {"Type": "CONSTANT_BUFFER_VIEW", "ConstantBufferView": {"RootParameterIndex": 0}}, {"Type": "DRAW_INDEXED"}]}}})
    ei = command_layout(objects.command_signatures["EI"])
    cls = record_ctype(ei)
    assert ctypes.sizeof(cls) == 28 and cls._pack_ == RECORD_PACK and members(cls) == c_members(ei)
    cmd = packers.pack_execute_indirect(ei, {"arg0_ConstantBufferView": [0xABC0, 0xDEF0],
                                             "arg1_DrawIndexed.IndexCountPerInstance": [6, 9],
                                             "arg1_DrawIndexed.InstanceCount": 1, "arg1_DrawIndexed.StartIndexLocation": 0,
                                             "arg1_DrawIndexed.BaseVertexLocation": -4,
                                             "arg1_DrawIndexed.StartInstanceLocation": 0})
    rows = (cls * 2).from_buffer(cmd)
    assert [(r.arg0_ConstantBufferView, r.arg1_DrawIndexed.IndexCountPerInstance) for r in rows] == [
        (0xABC0, 6), (0xDEF0, 9)]
    assert rows[1].arg1_DrawIndexed.BaseVertexLocation == -4  # INT BaseVertexLocation is signed


def test_declared_stride_and_bad_stride() -> None:
    """A stride above the minimum pads the struct; one below it (rule 25(e)) is refused."""
    pl = pcs_layout(description.load(CULLING).program_command_signatures["PCS"])
    cls = record_ctype(pl.secondary, 32)
    assert ctypes.sizeof(cls) == 32 and members(cls)[-1] == ("_pad0", 24, 8)
    with pytest.raises(LayoutError, match="below the minimum 24"):
        record_ctype(pl.secondary, 16)


@PROPERTY
@given(signature_doc())
def test_random_signatures_ctypes_equal_the_c_codegen(doc: dict[str, Any]) -> None:
    """For random signatures, every record's ctypes Structure has the C codegen struct's members, offsets and
    sizeof (tests/test_codegen.py compiles the same structs with gcc and the MSVC target)."""
    objects = description.load(doc)
    pl = pcs_layout(objects.program_command_signatures["P"])
    layouts = [r for r in (pl.primary, pl.secondary, pl.program_table) if r is not None]
    layouts.append(command_layout(objects.command_signatures["EI"]))
    for layout in layouts:
        if layout.min_stride:
            cls = record_ctype(layout)
            assert ctypes.sizeof(cls) == layout.min_stride and members(cls) == c_members(layout), layout.owner
