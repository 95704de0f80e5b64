"""``d3d12wl layout`` (issue 3 item 5): the --json shape and the human table, on the spec's culling example."""

from __future__ import annotations

import json
from importlib import resources

from d3d12wl.cli import main

CULLING = str(resources.files("d3d12wl").joinpath("examples/culling.json"))
DIAGRAM = str(resources.files("d3d12wl").joinpath("examples/gpu_resident_diagram.json"))


def without_members(value):
    """A REC (or a dict of them) without the "members" key issue 24 added, for the issue-3 shape."""
    if isinstance(value, dict):
        return {k: without_members(v) for k, v in value.items() if k != "members"}
    return value


def test_layout_json_culling(capsys):
    """Spec "GPU culling and work list emission" in the issue's JSON shape: offsets relative to each record start,
    a program-table REC's size is the tail after the 32-byte identifier and its min_stride 32 + tail rounded to 8."""
    assert main(["layout", CULLING, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out) == {"program_command_signatures", "programs", "work_list_signatures", "command_signatures"}
    pcs = without_members(out["program_command_signatures"]["PCS"])
    assert pcs == {
        "class": "GRAPHICS",
        "record_kind": "HYBRID",
        "primary": {"header": "D3D12_WORK_LIST_PRIMARY_RECORD", "size": 16, "min_stride": 16, "fields": []},
        "secondary": {"header": None, "size": 24, "min_stride": 24, "fields": [
            {"arg": 0, "name": "arg0_ShaderResourceView", "offset": 0, "size": 8},
            {"arg": 1, "name": "arg1_Draw", "offset": 8, "size": 16}]},
        "program_table_record": {"header": "D3D12_PROGRAM_IDENTIFIER", "size": 16, "min_stride": 48, "fields": [
            {"arg": 2, "name": "arg2_InlineRootParameter", "offset": 32, "size": 16}]},
    }
    assert without_members(out["programs"]["Shadow"]) == {"program_table_record": pcs["program_table_record"]}
    assert out["work_list_signatures"] == {"WLS": {"min_primary_stride": 16, "min_program_table_stride": 48}}
    assert out["command_signatures"] == {}


def test_layout_json_explicit_path_uses_parameter(tmp_path, capsys):
    """Issue 3 item 5: an explicit-path tail names the local root parameter index as "parameter"."""
    doc = {"root_signatures": {"LRS": {"Flags": ["LOCAL_ROOT_SIGNATURE"], "pParameters": [
               {"ParameterType": "SRV"}, {"ParameterType": "32BIT_CONSTANTS", "Constants": {"Num32BitValues": 2}}]}},
           "program_command_signatures": {"P": {"pArgumentDescs": [
               {"Type": "SHADER_RESOURCE_VIEW", "Source": "PRIMARY_RECORD", "Binding": "LOCAL_ROOT_SIGNATURE"},
               {"Type": "DISPATCH", "Source": "PRIMARY_RECORD"}]}},
           "programs": {"X": {"ProgramCommandSignature": "P", "LocalRootSignature": "LRS"}},
           "command_signatures": {"EI": {"pArgumentDescs": [{"Type": "CONSTANT", "Constant": {"Num32BitValuesToSet": 1}},
                                                            {"Type": "DISPATCH"}]}}}
    path = tmp_path / "sig.json"
    path.write_text(json.dumps(doc))
    assert main(["layout", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    out = without_members(out)
    assert out["programs"]["X"]["program_table_record"] == {
        "header": "D3D12_PROGRAM_IDENTIFIER", "size": 8, "min_stride": 40,
        "fields": [{"parameter": 1, "name": "param1", "offset": 32, "size": 8}]}
    assert out["command_signatures"]["EI"] == {"header": None, "size": 16, "min_stride": 16, "fields": [
        {"arg": 0, "name": "arg0_Constant", "offset": 0, "size": 4},
        {"arg": 1, "name": "arg1_Dispatch", "offset": 4, "size": 12}]}


def test_layout_table_shows_padding_rows(capsys):
    """Human output: an aligned table per record with padding rows (the diagram's 28-byte secondary record pads
    to a 32-byte stride)."""
    assert main(["layout", DIAGRAM]) == 0
    text = capsys.readouterr().out
    assert "program command signature PCS_SecondarySRV: GRAPHICS, HYBRID" in text
    rows = [line.split() for line in text.splitlines()]
    assert ["24", "4", "2", "INLINE_ROOT_PARAMETER", "arg2_InlineRootParameter", "SECONDARY_RECORD", "local",
            "0"] in rows
    assert ["28", "4", "padding", "(trailing)"] in rows
    assert "work list signature WLS: min primary stride 24, min program-table stride 32" in text


EI_EXAMPLE = str(resources.files("d3d12wl").joinpath("examples/execute_indirect.json"))


def test_layout_table_pads_to_the_declared_stride(capsys):
    """IndirectDrawing.md "Plain MultiDrawIndirect": the 36-byte ByteStride shows bytes 20..35 as trailing
    padding; a declared stride the spec rejects is reported instead of used (rule 25(e))."""
    assert main(["layout", EI_EXAMPLE]) == 0
    out = capsys.readouterr().out
    assert "command signature PlainMultiDrawIndirect: 20 bytes used, min stride 20, stride 36" in out
    assert any(line.split()[:3] == ["20", "16", "padding"] for line in out.splitlines())
    assert main(["layout", str(resources.files("d3d12wl").joinpath("examples/invalid_signature.json"))]) == 0
    assert "(declared stride: stride 4 is below the minimum 8" in capsys.readouterr().out


def test_layout_json_members_carry_every_fact_of_the_table(capsys):
    """Issue 24 item 5: every REC has "members", one per row of the text table (header, identifier, arguments,
    local root arguments, padding), with its type, role, source, binding and root parameter (or IA slot), its C
    type and count, and whether the name is the argument desc's Name; the keys of issue 3 stay as they were.  The
    spec's culling example with names: the SRV sets global root parameter 1, the tint local parameter 0 (the
    synthesized slot), from the program-table record."""
    assert main(["layout", str(resources.files("d3d12wl").joinpath("examples/culling_named.json")), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    pcs = out["program_command_signatures"]["PCS"]
    primary = pcs["primary"]["members"]
    assert [(m["role"], m["name"], m["offset"], m["size"]) for m in primary] == [
        ("header", "ProgramTableIndex", 0, 4), ("header", "NumSecondaryRecords", 4, 4),
        ("header", "SecondaryRecords", 8, 8)]
    srv, draw = pcs["secondary"]["members"]
    assert srv == {"offset": 0, "size": 8, "role": "arg", "type": "SHADER_RESOURCE_VIEW", "name": "MaterialBufferSRV",
                   "named": True, "ctype": "D3D12_GPU_VIRTUAL_ADDRESS", "count": 1, "arg": 0, "parameter": None,
                   "source": "SECONDARY_RECORD", "binding": "GLOBAL_ROOT_SIGNATURE", "root_parameter": 1,
                   "ia_slot": None, "dword_offset": None, "trailing": False}
    assert (draw["name"], draw["type"], draw["binding"], draw["ctype"]) == ("Draw", "DRAW", None,
                                                                            "D3D12_DRAW_ARGUMENTS")
    ident, tint = pcs["program_table_record"]["members"]
    assert (ident["role"], ident["name"], ident["named"]) == ("identifier", "ProgramIdentifier", False)
    assert (tint["name"], tint["count"], tint["source"], tint["binding"], tint["root_parameter"],
            tint["dword_offset"]) == ("Tint", 4, "PROGRAM_TABLE_RECORD", "LOCAL_ROOT_SIGNATURE", 0, 0)
    assert main(["layout", EI_EXAMPLE, "--json"]) == 0
    ei = json.loads(capsys.readouterr().out)["command_signatures"]
    plain = ei["PlainMultiDrawIndirect"]["members"]
    assert [(m["role"], m["offset"], m["size"], m["trailing"]) for m in plain] == [("arg", 0, 20, False),
                                                                                  ("padding", 20, 16, True)]
    vb = next(m for m in ei["RootConstantsAndVertexBuffers"]["members"] if m["type"] == "VERTEX_BUFFER_VIEW")
    assert (vb["binding"], vb["ia_slot"], vb["root_parameter"]) == ("INPUT_ASSEMBLER", 3, None)
    assert main(["layout", EI_EXAMPLE]) == 0  # the same facts in the table
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["8", "16", "2", "VERTEX_BUFFER_VIEW", "arg2_VertexBuffer", "-", "IA", "slot", "3"] in rows
    assert ["0", "4", "0", "CONSTANT", "arg0_Constant", "-", "global", "2"] in rows
