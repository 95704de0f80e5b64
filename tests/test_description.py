"""The JSON description (design.md "The JSON description of objects") and the model <-> cffi desc converters."""

from __future__ import annotations

import json
from importlib import resources
from typing import Any

import pytest

from d3d12wl import abi
from d3d12wl.cli import main
from d3d12wl.errors import DescriptionError
from d3d12wl.model import description
from d3d12wl.model.description import DescriptionErrors

EXAMPLES = ["culling.json", "gpu_resident_diagram.json"]


def example_doc(name: str) -> dict[str, Any]:
    return json.loads(resources.files("d3d12wl").joinpath(f"examples/{name}").read_text())


def errors_of(doc: Any) -> dict[str, str]:
    with pytest.raises(DescriptionErrors) as info:
        description.load(doc)
    return {e.where: e.message for e in info.value.errors}


def culling_with(mutate) -> dict[str, Any]:
    doc = example_doc("culling.json")
    mutate(doc)
    return doc


@pytest.mark.parametrize("name", EXAMPLES)
def test_round_trip_is_canonical(name):
    """dump(load(x)) is canonical: loading it gives the same objects and dumping again gives the same document."""
    objects = description.load(example_doc(name))
    doc = description.dump(objects)
    assert description.load(doc) == objects
    assert description.dump(description.load(json.loads(json.dumps(doc)))) == doc
    assert "NumArgumentDescs" not in json.dumps(doc)  # counts are implied by the arrays


def test_enums_by_full_or_short_name_and_flags_as_names_or_int():
    """design.md: an enum by full or short member name; a flag enum as a list of names or an integer."""
    mask = abi.enum_value("D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "VS") | abi.enum_value(
        "D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "PS")

    def full_names(doc: dict[str, Any]) -> None:
        doc["program_command_signatures"]["PCS"]["pArgumentDescs"][1]["Type"] = "D3D12_INDIRECT_ARGUMENT_TYPE_DRAW"
        doc["work_list_signatures"]["WLS"]["SubobjectMask"] = mask

    a, b = description.load(example_doc("culling.json")), description.load(culling_with(full_names))
    assert a == b and a.work_list_signatures["WLS"].SubobjectMask == mask
    assert description.dump(a)["work_list_signatures"]["WLS"]["SubobjectMask"] == ["VS", "PS"]


def test_references_resolve_across_collections():
    objects = description.load(example_doc("culling.json"))
    pcs = objects.program_command_signatures["PCS"]
    assert pcs.pGlobalRootSignature is objects.root_signatures["GRS"]
    assert objects.work_list_signatures["WLS"].pProgramCommandSignatures == [pcs]
    assert objects.programs["Shadow"].ProgramCommandSignature is pcs
    assert objects.programs["Opaque"].Identifier == b"OpaqueProgram".ljust(32, b"\0")


def test_every_error_is_collected_with_its_member_path():
    """design.md: loading rejects what does not fit "with the path of the offending member"; every problem is
    reported, not only the first."""

    def break_it(doc: dict[str, Any]) -> None:
        pcs = doc["program_command_signatures"]["PCS"]
        pcs["pArgumentDescs"][1]["Source"] = "SECONDARY"  # not a member name
        pcs["pGlobalRootSignature"] = "NoSuchRS"
        pcs["NumArgumentDescs"] = 3
        doc["work_list_signatures"]["WLS"]["pProgramCommandSignatures"] = ["PCS", "Nope"]

    # schema errors come first and alone (the semantic pass needs a well-formed document)
    got = errors_of(culling_with(break_it))
    assert set(got) == {"program_command_signatures.PCS.pArgumentDescs[1].Source"}
    assert "SECONDARY_RECORD" in got["program_command_signatures.PCS.pArgumentDescs[1].Source"]

    def break_semantics(doc: dict[str, Any]) -> None:
        pcs = doc["program_command_signatures"]["PCS"]
        pcs["pGlobalRootSignature"] = "NoSuchRS"
        pcs["NumArgumentDescs"] = 3
        pcs["pArgumentDescs"][1]["Constant"] = {"Num32BitValuesToSet": 1}  # DRAW has no union member
        doc["work_list_signatures"]["WLS"]["pProgramCommandSignatures"] = ["PCS", "GRS"]

    got = errors_of(culling_with(break_semantics))
    assert set(got) == {
        "program_command_signatures.PCS.pGlobalRootSignature",
        "program_command_signatures.PCS.NumArgumentDescs",
        "program_command_signatures.PCS.pArgumentDescs[1].Constant",
        "work_list_signatures.WLS.pProgramCommandSignatures[1]",
    }
    assert "'GRS' is in root_signatures" in got["work_list_signatures.WLS.pProgramCommandSignatures[1]"]
    assert "NumArgumentDescs is 3 but pArgumentDescs has 4" in got["program_command_signatures.PCS.NumArgumentDescs"]


@pytest.mark.parametrize(("mutate", "where", "text"), [
    (lambda d: d["programs"]["Opaque"].update(Identifier="12"), "programs.Opaque.Identifier", "does not match"),
    (lambda d: d["programs"]["Opaque"].update(Identifer="00"), "programs.Opaque", "Identifer"),
    (lambda d: d["root_signatures"]["GRS"].update(Flags=["LOCAL"]), "root_signatures.GRS.Flags[0]",
     "D3D12_ROOT_SIGNATURE_FLAGS"),
    (lambda d: d["root_signatures"]["GRS"]["pParameters"][0].update(Constants={"Num32BitValues": 1}),
     "root_signatures.GRS.pParameters[0].Constants", "ParameterType"),
    (lambda d: d.update(extra_collection={}), "<top level>", "extra_collection"),
])
def test_single_errors(mutate, where, text):
    got = errors_of(culling_with(mutate))
    assert list(got) == [where] and text in got[where]


def test_ignore_keys_lets_a_capture_share_the_file():
    doc = culling_with(lambda d: d.update(memory={"regions": []}))
    assert description.load(doc, ignore_keys={"memory"}) == description.load(example_doc("culling.json"))


def test_bad_json_text_and_missing_file():
    with pytest.raises(DescriptionError) as info:
        description.load('{"programs": {,}}')
    assert info.value.where == "<string>:1:15"
    with pytest.raises(DescriptionError, match="cannot read"):
        description.load("/nonexistent/sig.json")


def test_shipped_schema_is_generated_from_model_and_headers():
    """The schema file in the package is build_schema()'s output (regenerate with description.write_schema())."""
    assert description.schema() == json.loads(json.dumps(description.build_schema()))


# --- model <-> cffi ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", EXAMPLES)
def test_cffi_round_trip_of_every_object(name):
    """to_cffi builds the real C descs (cross-references as fake interface pointers of one registry); from_cffi
    reads them back to equal objects."""
    objects = description.load(example_doc(name))
    descs = description.to_cffi_all(objects)
    for key, by_name in descs.items():
        for obj_name, desc in by_name.items():
            back = description.from_cffi(desc.cdata, name=obj_name, registry=desc.registry)
            original = getattr(objects, key)[obj_name]
            assert back == original
            if key != "root_signatures":  # referenced objects come back as the very same objects
                for ref in ("pGlobalRootSignature", "pProgramCommandSignatures", "pSignatures"):
                    if hasattr(back, ref):
                        assert getattr(back, ref) == getattr(original, ref)


def test_cffi_desc_holds_c_values():
    objects = description.load(example_doc("culling.json"))
    descs = description.to_cffi_all(objects)
    pcs = descs["program_command_signatures"]["PCS"].struct
    assert pcs.NumArgumentDescs == 4 and pcs.SecondaryRecordByteStride == 24
    assert pcs.pArgumentDescs[1].Type == abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "DRAW")
    assert pcs.pArgumentDescs[0].ShaderResourceView.RootParameterIndex == 1
    assert pcs.pArgumentDescs[3].InlineStaticSampler.AddressU == abi.enum_value("D3D12_TEXTURE_ADDRESS_MODE", "WRAP")
    assert pcs.pGlobalRootSignature != abi.ffi.NULL
    wls = descs["work_list_signatures"]["WLS"].struct
    assert wls.NumProgramCommandSignatures == 1 and wls.pProgramCommandSignatures[0] != abi.ffi.NULL
    grs = descs["root_signatures"]["GRS"]
    assert grs.ctype == "D3D12_ROOT_SIGNATURE_DESC2" and grs.struct.pParameters[1].ParameterType == abi.enum_value(
        "D3D12_ROOT_PARAMETER_TYPE", "SRV")


def test_command_signature_root_signature_travels_as_extra():
    """D3D12_COMMAND_SIGNATURE_DESC has no root signature member; CreateCommandSignature takes it separately."""
    objects = description.load({"root_signatures": {"RS": {"pParameters": [{"ParameterType": "32BIT_CONSTANTS",
                                                                            "Constants": {"Num32BitValues": 1}}]}},
                                "command_signatures": {"EI": {"ByteStride": 20, "pRootSignature": "RS",
                                                              "pArgumentDescs": [
                                                                  {"Type": "CONSTANT",
                                                                   "Constant": {"Num32BitValuesToSet": 1}},
                                                                  {"Type": "DRAW"}]}}})
    desc = description.to_cffi(objects.command_signatures["EI"])
    assert desc.struct.ByteStride == 20 and desc.struct.NumArgumentDescs == 2
    assert desc.extras["pRootSignature"] != abi.ffi.NULL
    desc.registry.handle(objects.root_signatures["RS"])  # same object -> same handle
    back = description.from_cffi(desc.cdata, name="EI", registry=desc.registry, **desc.extras)
    assert back == objects.command_signatures["EI"]


def test_root_signature_desc1_cannot_hold_sampler_flags():
    """D3D12_ROOT_SIGNATURE_DESC1's samplers are D3D12_STATIC_SAMPLER_DESC (no Flags): a set Flags is refused,
    not dropped."""
    rs = description.load({"root_signatures": {"RS": {"pStaticSamplers": [{"MaxLOD": 1.0}]}}}).root_signatures["RS"]
    assert description.from_cffi(description.to_cffi(rs, ctype="D3D12_ROOT_SIGNATURE_DESC1").cdata, name="RS",
                                 registry=description.HandleRegistry()) == rs
    rs.pStaticSamplers[0].Flags = abi.enum_value("D3D12_SAMPLER_FLAGS", "UINT_BORDER_COLOR")
    with pytest.raises(DescriptionError) as info:
        description.to_cffi(rs, ctype="D3D12_ROOT_SIGNATURE_DESC1")
    assert info.value.where == "root_signatures.RS.pStaticSamplers[0].Flags"


def test_unknown_interface_pointer_is_an_error():
    objects = description.load(example_doc("culling.json"))
    desc = description.to_cffi(objects.program_command_signatures["PCS"])
    with pytest.raises(DescriptionError) as info:
        description.from_cffi(desc.cdata, name="PCS", registry=description.HandleRegistry())
    assert info.value.where == "program_command_signatures.PCS.pGlobalRootSignature"


def test_cli_reports_member_path_and_exits_2(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(culling_with(
        lambda d: d["program_command_signatures"]["PCS"].update(pGlobalRootSignature="Missing"))))
    assert main(["layout", str(path)]) == 2
    assert "program_command_signatures.PCS.pGlobalRootSignature" in capsys.readouterr().err


#: problems only the loader finds (the schema lets them through), nested as deep as the model goes
_LOADER_ONLY: dict[str, Any] = {
    "root_signatures": {"R": {
        "pParameters": [{"ParameterType": "32BIT_CONSTANTS", "Constants": {"Num32BitValues": 65}},
                        {"ParameterType": "CBV", "Constants": {"ShaderRegister": 1}}],
        "NumParameters": 3, "Flags": [1, "LOCAL_ROOT_SIGNATURE"]}},
    "program_command_signatures": {"P": {
        "pArgumentDescs": [
            {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1.0, "Num32BitValuesToSet": 65}},
            {"Type": "DRAW", "InlineRootParameter": {
                "RootParameter": {"ParameterType": "CBV", "Constants": {"Num32BitValues": 70}},
                "Num32BitValuesToSet": 100}},
            {"Type": 99, "Constant": {}},
            {"Type": "INLINE_ROOT_PARAMETER", "InlineRootParameter": {"RootParameter": {
                "ParameterType": "32BIT_CONSTANTS", "Descriptor": {},
                "DescriptorTable": {"pDescriptorRanges": [{}], "NumDescriptorRanges": 2}}}}],
        "pGlobalRootSignature": "Nope", "NumArgumentDescs": 5, "SecondaryRecordByteStride": 2.0}},
    "work_list_signatures": {"W": {"pProgramCommandSignatures": ["P", "R", "Q"]}},
    "command_signatures": {"C": {
        "pArgumentDescs": [{"Type": "CONSTANT", "Constant": {"DestOffsetIn32BitValues": 1000}},
                           {"Type": "DRAW", "VertexBuffer": {}}],
        "pRootSignature": "P"}},
    "programs": {"G": {"ProgramCommandSignature": "R", "GlobalRootSignature": "R", "LocalRootSignature": "W"}},
}

#: what the loader reports for them: every one, in document order, each at its member path (a count member, a
#: union member, a DWORD count, a float for an integer, a reference, an element of a list of references)
_LOADER_ONLY_ERRORS = [
    ("root_signatures.R.NumParameters",
     "NumParameters is 3 but pParameters has 2 element(s)"),
    ("root_signatures.R.pParameters[0].Constants.Num32BitValues",
     "Num32BitValues 65 is more DWORDs than a root signature holds (D3D12_MAX_ROOT_COST = 64)"),
    ("root_signatures.R.pParameters[1].Constants",
     "union member Constants is not the one ParameterType 2 uses (ParameterType selects Descriptor)"),
    ("program_command_signatures.P.NumArgumentDescs",
     "NumArgumentDescs is 5 but pArgumentDescs has 4 element(s)"),
    ("program_command_signatures.P.pArgumentDescs[0].Constant.RootParameterIndex",
     "1.0 is not an integer"),
    ("program_command_signatures.P.pArgumentDescs[0].Constant.Num32BitValuesToSet",
     "Num32BitValuesToSet 65 is more DWORDs than a root signature holds (D3D12_MAX_ROOT_COST = 64)"),
    ("program_command_signatures.P.pArgumentDescs[1].InlineRootParameter.RootParameter.Constants.Num32BitValues",
     "Num32BitValues 70 is more DWORDs than a root signature holds (D3D12_MAX_ROOT_COST = 64)"),
    ("program_command_signatures.P.pArgumentDescs[1].InlineRootParameter.RootParameter.Constants",
     "union member Constants is not the one ParameterType 2 uses (ParameterType selects Descriptor)"),
    ("program_command_signatures.P.pArgumentDescs[1].InlineRootParameter.Num32BitValuesToSet",
     "Num32BitValuesToSet 100 is more DWORDs than a root signature holds (D3D12_MAX_ROOT_COST = 64)"),
    ("program_command_signatures.P.pArgumentDescs[1].InlineRootParameter",
     "union member InlineRootParameter is not the one Type 0 uses (Type selects no union member)"),
    ("program_command_signatures.P.pArgumentDescs[2].Constant",
     "union member Constant is not the one Type 99 uses (Type selects no union member)"),
    ("program_command_signatures.P.pArgumentDescs[3].InlineRootParameter.RootParameter.DescriptorTable.NumDescriptorRanges",
     "NumDescriptorRanges is 2 but pDescriptorRanges has 1 element(s)"),
    ("program_command_signatures.P.pArgumentDescs[3].InlineRootParameter.RootParameter.DescriptorTable",
     "union member DescriptorTable is not the one ParameterType 1 uses (ParameterType selects Constants)"),
    ("program_command_signatures.P.pArgumentDescs[3].InlineRootParameter.RootParameter.Descriptor",
     "union member Descriptor is not the one ParameterType 1 uses (ParameterType selects Constants)"),
    ("program_command_signatures.P.SecondaryRecordByteStride",
     "2.0 is not an integer"),
    ("program_command_signatures.P.pGlobalRootSignature",
     "no object named 'Nope' in root_signatures; known: R"),
    ("work_list_signatures.W.pProgramCommandSignatures[1]",
     "no object named 'R' in program_command_signatures ('R' is in root_signatures); known: P"),
    ("work_list_signatures.W.pProgramCommandSignatures[2]",
     "no object named 'Q' in program_command_signatures; known: P"),
    ("command_signatures.C.pArgumentDescs[0].Constant.DestOffsetIn32BitValues",
     "DestOffsetIn32BitValues 1000 is more DWORDs than a root signature holds (D3D12_MAX_ROOT_COST = 64)"),
    ("command_signatures.C.pArgumentDescs[1].VertexBuffer",
     "union member VertexBuffer is not the one Type 0 uses (Type selects no union member)"),
    ("command_signatures.C.pRootSignature",
     "no object named 'P' in root_signatures ('P' is in program_command_signatures); known: R"),
    ("programs.G.ProgramCommandSignature",
     "no object named 'R' in program_command_signatures ('R' is in root_signatures); known: P"),
    ("programs.G.LocalRootSignature",
     "no object named 'W' in root_signatures ('W' is in work_list_signatures); known: R"),
]


def test_loader_errors_name_every_member_path() -> None:
    with pytest.raises(DescriptionErrors) as info:
        description.load(_LOADER_ONLY)
    assert [(e.where, e.message) for e in info.value.errors] == _LOADER_ONLY_ERRORS
