"""Names that are the user's (issue 24 item 1): an argument desc's ``Name`` is the member name of its payload in
every view of a record, one spelling per member, and it survives any change to the rest of the signature.

The fixture is the spec's culling example ("GPU culling and work list emission") with names added
(examples/culling_named.json: ``MaterialBufferSRV``, the spec's own name for the root SRV in its HLSL
``SecondaryRecord``, then ``Draw``, ``Tint`` and ``LinearWrapSampler``).
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from test_codegen import PROPERTY, compile_c, signature_doc, wl_arg

from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.errors import DescriptionError, LayoutError
from d3d12wl.executor import execute
from d3d12wl.migrate.ei_to_wl import ei_to_wl
from d3d12wl.migrate.runs import CallSequenceEntry
from d3d12wl.migrate.wl_to_ei import wl_to_ei
from d3d12wl.model import description, fieldnames
from d3d12wl.model.objects import ProgramCommandSignature, WorkListArgumentDesc
from d3d12wl.records import codegen, ctypes_records, dtypes, packers, renderdoc, schemas
from d3d12wl.records.layout import command_layout, pcs_layout, record_layouts

EXAMPLES = Path(__file__).resolve().parents[1] / "d3d12wl" / "examples"
NAMED = EXAMPLES / "culling_named.json"


def culling_named() -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(NAMED.read_text())
    return doc


def named_capture(tmp_path: Path) -> Path:
    """The bundled culling capture with the named description's program command signature."""
    doc = json.loads((EXAMPLES / "culling_capture.json").read_text())
    doc["program_command_signatures"] = culling_named()["program_command_signatures"]
    path = tmp_path / "named_capture.json"
    path.write_text(json.dumps(doc))
    return path


# --- the description ------------------------------------------------------------------------------------------


def test_name_is_a_description_only_member() -> None:
    """Design.md "The JSON description of objects": the JSON mirrors the C descs member for member; Name is not a C
    member, so the model and the JSON carry it and the cffi desc does not (from_cffi gives None)."""
    objects = description.load(NAMED)
    args = objects.program_command_signatures["PCS"].pArgumentDescs
    assert [a.Name for a in args] == ["MaterialBufferSRV", "Draw", "Tint", "LinearWrapSampler"]
    assert description.load(description.dump(objects)) == objects
    assert [a["Name"] for a in description.dump(objects)["program_command_signatures"]["PCS"]["pArgumentDescs"]] \
        == ["MaterialBufferSRV", "Draw", "Tint", "LinearWrapSampler"]
    desc = description.to_cffi(objects.program_command_signatures["PCS"])
    back = description.from_cffi(desc.cdata, name="PCS", registry=desc.registry)
    assert [a.Name for a in back.pArgumentDescs] == [None] * 4
    assert "Name" not in {f.name for f in __import__("d3d12wl").abi.type_info("D3D12_WORK_LIST_ARGUMENT_DESC").fields}
    prop = description.schema()["$defs"]["WorkListArgumentDesc.D3D12_WORK_LIST_ARGUMENT_DESC"]["properties"]["Name"]
    assert prop["pattern"] == fieldnames.C_IDENTIFIER_PATTERN and "not a C member" in prop["description"]


BAD_NAMES = [
    ("1st", "is not a C identifier"),
    ("float", "is a C or C++ keyword"),
    ("float4", "is an HLSL type name"),
    ("_pad0", "starts with _"),
    ("arg3_Draw", "has the form of a positional name"),
    ("param2", "has the form of a positional name"),
    ("NumSecondaryRecords", "is a member of the record header D3D12_WORK_LIST_PRIMARY_RECORD"),
    ("ReservedPadding", "is a member of the record header D3D12_WORK_LIST_RAYTRACING_RECORD"),
    ("ProgramIdentifier", "is the program-table slot's program identifier member"),
    ("VertexCountPerInstance", "is a member of D3D12_DRAW_ARGUMENTS, which HLSL flattens into the record"),
    ("x" * 64, "at most 63"),
]


@pytest.mark.parametrize(("name", "why"), BAD_NAMES, ids=[n[:12] for n, _ in BAD_NAMES])
def test_a_bad_name_is_a_description_error_with_its_member_path(name: str, why: str) -> None:
    doc = culling_named()
    doc["program_command_signatures"]["PCS"]["pArgumentDescs"][1]["Name"] = name
    with pytest.raises(DescriptionError) as err:
        description.load(doc)
    assert err.value.where == "program_command_signatures.PCS.pArgumentDescs[1].Name"
    assert why in err.value.message


def test_every_bad_name_is_reported_at_once_in_both_kinds_of_signature() -> None:
    doc = culling_named()
    doc["program_command_signatures"]["PCS"]["pArgumentDescs"][2]["Name"] = "MaterialBufferSRV"
    doc["program_command_signatures"]["PCS"]["pArgumentDescs"][3]["Name"] = "int"
    ei = json.loads((EXAMPLES / "execute_indirect.json").read_text())
    doc["command_signatures"] = ei["command_signatures"]
    doc["root_signatures"].update(ei["root_signatures"])
    doc["command_signatures"]["RootConstantsAndVertexBuffers"]["pArgumentDescs"][1]["Name"] = "BufferLocation"
    with pytest.raises(DescriptionError) as err:
        description.load(doc)
    got = {(e.where, e.message.split(" is ")[0]) for e in err.value.errors}  # type: ignore[attr-defined]
    assert got == {("program_command_signatures.PCS.pArgumentDescs[2].Name", "'MaterialBufferSRV'"),
                   ("program_command_signatures.PCS.pArgumentDescs[3].Name", "'int'"),
                   ("command_signatures.RootConstantsAndVertexBuffers.pArgumentDescs[1].Name", "'BufferLocation'")}
    dup = next(e for e in err.value.errors if e.where.endswith("[2].Name"))  # type: ignore[attr-defined]
    assert "also the Name of program_command_signatures.PCS.pArgumentDescs[0]" in dup.message


def test_objects_made_in_python_are_held_to_the_same_rules() -> None:
    pcs = copy.deepcopy(description.load(NAMED).program_command_signatures["PCS"])
    pcs.pArgumentDescs[1].Name = "SecondaryRecords"
    with pytest.raises(LayoutError, match="record header") as err:
        pcs_layout(pcs)
    assert err.value.where == "program_command_signatures.PCS.pArgumentDescs[1].Name"


def test_validate_cli_names_the_member(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = culling_named()
    doc["program_command_signatures"]["PCS"]["pArgumentDescs"][0]["Name"] = "Material SRV"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert "program_command_signatures.PCS.pArgumentDescs[0].Name" in err and "is not a C identifier" in err


# --- one spelling per member in every view ----------------------------------------------------------------


def test_the_named_culling_example_in_every_view(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """LayoutField.name is the one place: C (offsetof), HLSL, ctypes, construct, numpy, the packers, decode,
    layout, dump, exec and RenderDoc all spell MaterialBufferSRV, Draw (Draw.VertexCountPerInstance; HLSL
    Draw_VertexCountPerInstance) and Tint, and a member of a struct payload as field.member wherever it can be."""
    objects = description.load(NAMED)
    pl = pcs_layout(objects.program_command_signatures["PCS"])
    assert pl.secondary is not None and pl.program_table is not None
    assert [(f.name, f.named) for f in pl.secondary.fields] == [("MaterialBufferSRV", True), ("Draw", True)]
    assert [f.name for f in pl.program_table.fields] == ["ProgramIdentifier", "Tint"]
    c = codegen.c_source([pl.primary, pl.secondary, pl.program_table])
    assert "D3D12_GPU_VIRTUAL_ADDRESS MaterialBufferSRV;" in c and "D3D12_DRAW_ARGUMENTS Draw;" in c
    assert "offsetof(PCS_SecondaryRecord, Draw) == 8" in c and "uint32_t Tint[4];" in c
    assert compile_c(c + "\n_Static_assert(offsetof(PCS_SecondaryRecord, Draw.InstanceCount) == 12, \"\");\n",
                     tmp_path) == []
    hlsl = [m.name for m in codegen.hlsl_members(pl.secondary)]
    assert hlsl == ["MaterialBufferSRV", "Draw_VertexCountPerInstance", "Draw_InstanceCount",
                    "Draw_StartVertexLocation", "Draw_StartInstanceLocation"]
    assert [n for n, _ in ctypes_records.record_ctype(pl.secondary)._fields_] == ["MaterialBufferSRV", "Draw"]
    assert dtypes.record_dtype(pl.secondary).names == ("MaterialBufferSRV", "Draw")
    parsed = schemas.parse_record(pl.secondary, bytes(range(24)))
    assert set(parsed) >= {"MaterialBufferSRV", "Draw"} and parsed["Draw"]["InstanceCount"] == 0x0F0E0D0C
    data = packers.pack_secondary_records(pl, {"MaterialBufferSRV": np.array([0x100000, 0x101000], np.uint64),
                                               "Draw.VertexCountPerInstance": [36, 24], "Draw.InstanceCount": 1,
                                               "Draw.StartVertexLocation": [0, 36], "Draw.StartInstanceLocation": 0})
    back = packers.read_secondary_records(pl, data)
    assert int(back["Draw"]["StartVertexLocation"][1]) == 36 and int(back["MaterialBufferSRV"][1]) == 0x101000
    rd = renderdoc.record_format(pl.secondary)
    assert "[[hex]] ulong MaterialBufferSRV;" in rd and "D3D12_DRAW_ARGUMENTS Draw;" in rd
    # decode and layout (text and JSON)
    readback = tmp_path / "secondary.bin"
    readback.write_bytes(data.tobytes())
    assert main(["decode", str(NAMED), "PCS.secondary", str(readback), "--format", "csv"]) == 0
    header = capsys.readouterr().out.splitlines()[0].split(",")
    assert header == ["index", "MaterialBufferSRV", "Draw.VertexCountPerInstance", "Draw.InstanceCount",
                      "Draw.StartVertexLocation", "Draw.StartInstanceLocation"]
    assert main(["layout", str(NAMED)]) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert ["0", "8", "0", "SHADER_RESOURCE_VIEW", "MaterialBufferSRV", "SECONDARY_RECORD", "global", "1"] in rows
    assert ["32", "16", "2", "INLINE_ROOT_PARAMETER", "Tint[4]", "PROGRAM_TABLE_RECORD", "local", "0"] in rows
    # dump and exec: the trace's records keyed by the same names, the dump's table spelled as decode spells it
    capture = named_capture(tmp_path)
    assert main(["dump", str(capture)]) == 0
    dump = capsys.readouterr().out
    assert re.search(r"#\s+va\s+MaterialBufferSRV\s+Draw\.VertexCountPerInstance\s+Draw\.InstanceCount", dump)
    assert "  Tint  0x3f800000 0x3f800000 0x3f800000 0x3f800000  = float (1, 1, 1, 1)" in dump
    assert "     0x100000  " in dump  # a VA in hex by its C type, whatever its name
    trace = execute(load_capture(capture)).to_dict()
    primary = trace["lists"][0]["primary_records"][0]
    assert primary["program_table"]["tail"] == {"Tint": [0x3F800000] * 4}
    assert primary["secondary_records"][0]["fields"] == {"MaterialBufferSRV": 0x100000, "Draw": {
        "VertexCountPerInstance": 36, "InstanceCount": 1, "StartVertexLocation": 0, "StartInstanceLocation": 0}}
    assert main(["exec", str(capture), "--format", "jsonl"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert next(r for r in lines if r["record"] == "primary_record")["program_table"]["tail"] == {
        "Tint": [0x3F800000] * 4}


def test_the_spec_hlsl_secondary_record_with_only_the_srv_named() -> None:
    """With only the root SRV named, the HLSL is the spec's culling SecondaryRecord member for member (an unnamed
    trigger keeps its members' bare names, issue 16)."""
    doc = culling_named()
    for arg in doc["program_command_signatures"]["PCS"]["pArgumentDescs"][1:]:
        del arg["Name"]
    sec = pcs_layout(description.load(doc).program_command_signatures["PCS"]).secondary
    assert sec is not None
    assert [(m.hlsl_type, m.name) for m in codegen.hlsl_members(sec)] == [
        ("uint64_t", "MaterialBufferSRV"), ("uint", "VertexCountPerInstance"), ("uint", "InstanceCount"),
        ("uint", "StartVertexLocation"), ("uint", "StartInstanceLocation")]


def test_hlsl_members_spelled_alike_are_an_error() -> None:
    """A Name that is another field's flattened Field_Member would declare one HLSL member twice."""
    objects = description.load({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD", "Name": "Pos"},
        {"Type": "CONSTANT_BUFFER_VIEW", "Source": "PRIMARY_RECORD", "Name": "Pos_SizeInBytes"},
        {"Type": "DRAW", "Source": "PRIMARY_RECORD"}]}}})
    with pytest.raises(LayoutError, match="HLSL member 'Pos_SizeInBytes' of P_PrimaryRecord would stand for both"):
        codegen.hlsl_members(pcs_layout(objects.program_command_signatures["P"]).primary)


def test_migrations_keep_the_names() -> None:
    """ExecuteIndirect -> Work Lists and back: each argument keeps the Name of the argument it comes from."""
    cap = load_capture(EXAMPLES / "execute_indirect_capture.json")
    cs = cap.objects.command_signatures["RootConstantsAndVertexBuffers"]
    for arg, name in zip(cs.pArgumentDescs, ["MaterialIndex", "DrawFlags", "Positions", "Draw"], strict=True):
        arg.Name = name
    wl = ei_to_wl([CallSequenceEntry(cap, "Draw")]).capture
    (pcs,) = wl.objects.program_command_signatures.values()
    names = {a.Name for a in pcs.pArgumentDescs} - {None}
    assert {"Positions", "Draw"} <= names
    layouts = pcs_layout(pcs)
    fields = {f.name for rec in (layouts.primary, layouts.secondary) if rec is not None for f in rec.fields}
    assert {"Positions", "Draw"} <= fields
    named = load_capture(EXAMPLES / "culling_capture.json")
    named.objects.program_command_signatures["PCS"].pArgumentDescs[0].Name = "MaterialBufferSRV"
    named.objects.program_command_signatures["PCS"].pArgumentDescs[1].Name = "Draw"
    calls = wl_to_ei(named).calls
    assert len(calls) == 3
    for call in calls:
        sig = call.capture.objects.command_signatures[call.signature]
        assert [f.name for f in command_layout(sig).fields] == ["MaterialBufferSRV", "Draw"]


# --- names survive a change of the signature (property) -------------------------------------------------------


def _payload_indices(doc: dict[str, Any]) -> list[int]:
    objects = description.load(doc)
    pl = pcs_layout(objects.program_command_signatures["P"])
    return sorted({f.arg for r in (pl.primary, pl.secondary, pl.program_table) if r is not None for f in r.fields
                   if f.arg is not None})


def _spellings(pcs: ProgramCommandSignature, ei: Any) -> dict[str, tuple[Any, ...]]:
    """Name -> (its C declaration, its HLSL members, its numpy dtype field) in every record, EI command too."""
    pl = pcs_layout(pcs)
    records = [r for r in (pl.primary, pl.secondary, pl.program_table) if r is not None] + [command_layout(ei)]
    out: dict[str, tuple[Any, ...]] = {}
    for rec in records:
        c = codegen.c_struct(rec)
        hlsl = codegen.hlsl_members(rec) if rec.min_stride else []
        names = dtypes.record_dtype(rec).names or ()
        for f in rec.fields:
            if f.named:
                decl = re.search(rf"\b{f.ctype} {f.name}(\[\d+\])?;", c)
                assert decl is not None, (f.name, c)
                out[f.name] = (rec.record, decl.group(0), f.name in names,
                               sorted((m.path, m.part, m.name) for m in hlsl if m.field == f.name))
    return out


@PROPERTY
@given(signature_doc(), st.data())
def test_inserting_an_argument_keeps_every_named_members_name(doc: dict[str, Any], data: st.DataObject) -> None:
    """Issue 24: inserting an argument anywhere (an INDEX_BUFFER_VIEW renamed arg3_DrawIndexed to arg4_DrawIndexed
    in the issue) keeps every named member's name and its C, HLSL and numpy spelling, in a work list signature's
    records and an ExecuteIndirect command."""
    args = doc["program_command_signatures"]["P"]["pArgumentDescs"]
    named = data.draw(st.sets(st.sampled_from(_payload_indices(doc))), label="named") if _payload_indices(doc) \
        else set()
    for i in named:
        args[i]["Name"] = f"Member{i}"
    ei_args = doc["command_signatures"]["EI"]["pArgumentDescs"]
    for i, a in enumerate(ei_args):
        if data.draw(st.booleans(), label=f"ei{i}"):
            a["Name"] = f"Command{i}"
    before_objects = description.load(doc)
    before = _spellings(before_objects.program_command_signatures["P"], before_objects.command_signatures["EI"])
    assert len(before) == len(named) + sum("Name" in a for a in ei_args)
    after_doc = copy.deepcopy(doc)
    after_args = after_doc["program_command_signatures"]["P"]["pArgumentDescs"]
    after_args.insert(data.draw(st.integers(0, len(after_args)), label="at"), data.draw(wl_arg(), label="new"))
    ei_new = data.draw(st.sampled_from([{"Type": "CONSTANT", "Constant": {"Num32BitValuesToSet": 2}},
                                        {"Type": "VERTEX_BUFFER_VIEW"}, {"Type": "INDEX_BUFFER_VIEW"}]))
    after_ei = after_doc["command_signatures"]["EI"]["pArgumentDescs"]
    after_ei.insert(data.draw(st.integers(0, len(after_ei) - 1), label="ei at"), ei_new)
    after_objects = description.load(after_doc)
    after = _spellings(after_objects.program_command_signatures["P"], after_objects.command_signatures["EI"])
    assert after == before


def test_positional_names_stay_as_they_were() -> None:
    """Without a Name the member is arg{index}_{union member or trigger} (an interface: unchanged)."""
    objects = description.load(EXAMPLES / "culling.json")
    pl = pcs_layout(objects.program_command_signatures["PCS"])
    assert pl.secondary is not None and pl.program_table is not None
    assert [f.name for f in pl.secondary.fields] == ["arg0_ShaderResourceView", "arg1_Draw"]
    assert [f.name for f in pl.program_table.fields] == ["ProgramIdentifier", "arg2_InlineRootParameter"]
    assert fieldnames.field_name(1, WorkListArgumentDesc(Type=pl.pcs.pArgumentDescs[1].Type)) == "arg1_Draw"


def test_a_name_spelt_as_a_generated_struct_is_refused() -> None:
    """Every struct codegen names (``PCS_PrimaryRecord``, ``Opaque_ProgramTableRecord``, ``EI_Command``...) is a
    Name fieldnames refuses (C++ refuses a member named as its struct): both take the suffixes from
    ``fieldnames.RECORD_STRUCT_SUFFIXES``, spelt once."""
    layouts = [*record_layouts(description.load(culling_named())),
               *record_layouts(description.load(json.loads((EXAMPLES / "execute_indirect.json").read_text())))]
    names = {codegen.struct_name(layout) for layout in layouts}
    assert {n.rpartition("_")[2] for n in names} == {"PrimaryRecord", "SecondaryRecord", "ProgramTableRecord",
                                                     "Command"}
    for name in names:
        problem = fieldnames.name_problem(name)
        assert problem is not None and "generated struct" in problem, name
