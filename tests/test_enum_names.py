"""Enum columns take member names, as the JSON description does (design.md "The JSON description of objects": "An
enum value is written by name, either the full name or the name without its enum's prefix"), and ``dump`` prints
enum members by name (``Format=R16_UINT``, not 57).

The record is spec "Input Assembler bindings"' index buffer view (``D3D12_INDEX_BUFFER_VIEW::Format``, a
``DXGI_FORMAT``) with a DRAW_INDEXED, both from the primary record.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from d3d12wl import abi
from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.cli import main
from d3d12wl.errors import PackError
from d3d12wl.executor.value_text import format_value
from d3d12wl.model import description
from d3d12wl.records import packers
from d3d12wl.records.layout import pcs_layout

R16 = abi.enum_value("DXGI_FORMAT", "R16_UINT")
R32 = abi.enum_value("DXGI_FORMAT", "R32_UINT")
IDENTIFIER = b"IndexedProgram".ljust(32, b"\0").hex()
DOC = {
    "program_command_signatures": {"PCS": {"pArgumentDescs": [
        {"Type": "INDEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD"},
        {"Type": "DRAW_INDEXED", "Source": "PRIMARY_RECORD"}]}},
    "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"], "SubobjectMask": ["VS", "PS"]}},
    "programs": {"Indexed": {"Identifier": IDENTIFIER, "ProgramCommandSignature": "PCS"}},
}


def columns(fmt: object, n: int = 2) -> dict[str, object]:
    return {"ProgramTableIndex": np.zeros(n, dtype=np.uint32), "arg0_IndexBuffer.BufferLocation": 0x20000,
            "arg0_IndexBuffer.SizeInBytes": 128, "arg0_IndexBuffer.Format": fmt,
            "arg1_DrawIndexed.IndexCountPerInstance": 6, "arg1_DrawIndexed.InstanceCount": 1,
            "arg1_DrawIndexed.StartIndexLocation": 0, "arg1_DrawIndexed.BaseVertexLocation": 0,
            "arg1_DrawIndexed.StartInstanceLocation": 0}


@pytest.mark.parametrize(("fmt", "want"), [
    ("R16_UINT", [R16, R16]),                                   # the short name, for every record
    ("DXGI_FORMAT_R32_UINT", [R32, R32]),                        # the full name
    (["R16_UINT", "R32_UINT"], [R16, R32]),                       # one per record
    (np.array(["R32_UINT", "R16_UINT"]), [R32, R16]),             # a numpy string column
    (["R16_UINT", R32], [R16, R32]),                              # names and values mixed
])
def test_packers_take_enum_member_names(fmt: object, want: list[int]) -> None:
    pl = pcs_layout(description.load(DOC).program_command_signatures["PCS"])
    by_name = packers.pack_primary_records(pl, columns(fmt))
    by_value = packers.pack_primary_records(pl, columns(np.array(want, dtype=np.uint32)))
    assert by_name.tobytes() == by_value.tobytes()
    assert packers.read_primary_records(pl, by_name)["arg0_IndexBuffer"]["Format"].tolist() == want


def test_flag_enum_names_and_structs() -> None:
    """A flag enum column takes ``"A | B"``; a fixed struct's enum member (D3D12_DISPATCH_LIST_INPUT::Flags) too."""
    flag = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS", "ALLOW_OUT_OF_ORDER_GRAPHICS")
    cols = {"NumProgramInputs": 0, "Flags": "ALLOW_OUT_OF_ORDER_GRAPHICS", "ProgramInputs.StartAddress": 0,
            "ProgramInputs.StrideInBytes": 0}
    assert packers.read_dispatch_list_inputs(packers.pack_dispatch_list_inputs(cols, count=1))["Flags"][0] == flag
    flags1 = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION") | abi.enum_value(
        "D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_MEMORY_FLUSH")
    cols1 = {**cols, "Flags": "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION | END_WITH_MEMORY_FLUSH", "SignatureIndex": 0,
             "NextDispatchList": 0}
    packed = packers.pack_dispatch_list_inputs(cols1, tier=2, count=1)
    assert packers.read_dispatch_list_inputs(packed, tier=2)["Flags"][0] == flags1


@pytest.mark.parametrize(("column", "value", "message"), [
    ("arg0_IndexBuffer.Format", "R8_UINT", r"'arg0_IndexBuffer.Format': DXGI_FORMAT has no member 'R8_UINT'"),
    ("arg0_IndexBuffer.Format", ["R16_UINT", 1.5], "neither member names nor integers"),
    ("ProgramTableIndex", "R16_UINT", "'ProgramTableIndex' holds names, but its field is not an enum"),
])
def test_bad_names_name_the_column(column: str, value: object, message: str) -> None:
    pl = pcs_layout(description.load(DOC).program_command_signatures["PCS"])
    with pytest.raises(PackError, match=message):
        packers.pack_primary_records(pl, {**columns(57), column: value})


def test_dump_prints_enum_members_by_name(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A capture of the record, built from names: dump shows the index buffer binding's Format by name."""
    objects = description.load(DOC)
    pcs = objects.program_command_signatures["PCS"]
    table = ProgramTableSpec(pcs_layout(pcs), {"ProgramIdentifier": [objects.programs["Indexed"].Identifier]})
    wl = build_work_list([DispatchListSpec(pcs, columns("R16_UINT", 1))], base_va=0x10000, program_table=table,
                         signature=objects.work_list_signatures["WLS"], objects=objects)
    path = wl.write_capture(tmp_path / "indexed.json", objects)
    assert main(["dump", str(path)]) == 0
    out = capsys.readouterr().out
    assert "Format=R16_UINT" in out and "Format=57" not in out


def test_format_value_names_a_member_without_its_ctype() -> None:
    """The value helper: a member whose name has one enum type in every declared struct (Format: DXGI_FORMAT) is
    printed by name even when the caller has no C type; others stay numbers."""
    assert format_value({"BufferLocation": 0x20000, "SizeInBytes": 128, "Format": R16}) == (
        "{BufferLocation=0x20000, SizeInBytes=128, Format=R16_UINT}")
    assert format_value({"SizeInBytes": 128, "StrideInBytes": 16}) == "{SizeInBytes=128, StrideInBytes=16}"


def test_reader_columns_by_name() -> None:
    """packers.enum_names / column_enum (issue 29): the readers give enum fields back as integers; the helper names
    them as decode shows them (short names, flags as A|B, a value no member names as its number), and column_enum
    finds the enum of a record's column (IndirectDrawing.md's vertex buffer signature has none; a PCS with an index
    buffer view has DXGI_FORMAT) or of a declared struct's."""
    import numpy as np

    from d3d12wl.errors import PackError
    from d3d12wl.model import description
    from d3d12wl.records import layout, packers

    objs = description.load({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "INDEX_BUFFER_VIEW", "Source": "SECONDARY_RECORD"},
        {"Type": "DRAW_INDEXED", "Source": "SECONDARY_RECORD"}], "SecondaryRecordByteStride": 40}}})
    pl = layout.pcs_layout(objs.program_command_signatures["P"])
    assert packers.column_enum(pl, "arg0_IndexBuffer.Format") == "DXGI_FORMAT"
    packed = packers.pack_secondary_records(pl, {"arg0_IndexBuffer.BufferLocation": 0x1000,
                                                 "arg0_IndexBuffer.SizeInBytes": 64,
                                                 "arg0_IndexBuffer.Format": ["R16_UINT", "R32_UINT"],
                                                 "arg1_DrawIndexed.IndexCountPerInstance": 3, "arg1_DrawIndexed.InstanceCount": 1,
                                                 "arg1_DrawIndexed.StartIndexLocation": 0,
                                                 "arg1_DrawIndexed.BaseVertexLocation": 0,
                                                 "arg1_DrawIndexed.StartInstanceLocation": 0})
    back = packers.read_secondary_records(pl, packed)["arg0_IndexBuffer"]["Format"]
    assert back.dtype.kind in "iu" and packers.enum_names(back, "DXGI_FORMAT").tolist() == ["R16_UINT", "R32_UINT"]
    assert packers.column_enum("D3D12_DISPATCH_LIST_INPUT1", "Flags") == "D3D12_DISPATCH_LIST_FLAGS1"
    flags = np.array([[0, 2], [6, 0x102]], dtype=np.uint32)
    assert packers.enum_names(flags, "D3D12_DISPATCH_LIST_FLAGS1").tolist() == [
        ["NONE", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION"],
        ["ALLOW_NEXT_DISPATCH_LIST_CONTINUATION|END_WITH_WAIT_FOR_COMPLETION", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION|0x100"]]
    with pytest.raises(PackError, match="column 'arg1_DrawIndexed.InstanceCount' is not enum-typed; enum-typed "
                                        "columns: arg0_IndexBuffer.Format"):
        packers.column_enum(pl, "arg1_DrawIndexed.InstanceCount")
