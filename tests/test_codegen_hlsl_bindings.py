"""``codegen --lang hlsl --bindings``: the register/space declarations of the root and local root parameters, judged by
an HLSL compiler against the description.

The generated file, the record structs and the bindings as ``codegen`` prints them, is compiled by glslc with a
compute shader that reads every declared resource (so none is dropped) under ``-fhlsl-iomap`` and a binding base
per register class (``hlsl_spirv.IOMAP``: glslang's HLSL front end then makes ``register(xN, spaceM)`` DescriptorSet M,
Binding base(x) + N).  Every resource variable's set, binding and array length in the SPIR-V must be what the
description's JSON says at the member the declaration names (its ``path``), read from the JSON text itself, not
through the model; the resources of the SPIR-V must be exactly the JSON's registers; a root-constants buffer must
put DWORD k at byte 4k.  Spec sections: "Binding sources at record execution", "Local root signatures",
"_INLINE_ROOT_PARAMETER", "_INLINE_STATIC_SAMPLER", the culling example ("GPU culling and work list emission").
"""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hlsl_spirv import CLASS_BASE, IOMAP, UNSIZED_INDEX, compile_hlsl, layout_mismatches, require_tools, spirv_bindings

from d3d12wl.cli import main
from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.hlsl_bindings import HlslBinding, HlslBindings, hlsl_bindings
from d3d12wl.records.layout import record_layouts

EXAMPLES = resources.files("d3d12wl").joinpath("examples")
DATA = Path(__file__).resolve().parent / "data"
#: the descriptions compiled: the spec's culling example, the other bundled ones, and tests/data/bindings.json
#: (descriptor tables of every range type, an unbounded range in a global and in a synthesized local root
#: signature, static and table samplers, comparison samplers, spaces 0-7, an explicit-path local root signature
#: whose constants are partly overridden per record, a synthesized constants slot composed of two arguments)
DESCRIPTIONS = [str(EXAMPLES.joinpath(n)) for n in ("culling.json", "culling_named.json", "tier2_chain.json",
                                                   "gpu_resident_diagram.json", "execute_indirect.json")] + [
    str(DATA / "bindings.json")]

#: D3D12's register class of each root parameter and range type (the test's own statement of the binding model)
CLASS = {"32BIT_CONSTANTS": "b", "CBV": "b", "SRV": "t", "UAV": "u", "SAMPLER": "s"}
#: NumDescriptors of an unbounded range: UINT_MAX (d3d12.h's D3D12_DESCRIPTOR_RANGE: "-1 or UINT_MAX")
UNBOUNDED = 0xFFFFFFFF
PROBE_TEXTURE = "d3d12wl_probe_texture"


@pytest.fixture(scope="module")
def hlsl_tools() -> None:
    require_tools()


def generated(path: str, pcs: str | None = None) -> tuple[str, HlslBindings]:
    """What ``codegen --lang hlsl --bindings`` prints (structs, then bindings) and the declarations."""
    objects = description.load(path)
    layouts = record_layouts(objects, pcs)
    found = hlsl_bindings(objects, pcs, layouts)
    return codegen.hlsl_source(layouts) + "\n" + found.text, found


def _touch(b: HlslBinding) -> list[str]:
    """Statements reading declaration ``b`` (element 0 of an array, element ``UNSIZED_INDEX`` of an unbounded one)."""
    if b.dwords is not None:
        return [f"acc ^= {b.name}.dw{k};" for k in range(b.dwords)]
    ref = b.name if b.count == 1 else f"{b.name}[0]" if b.count is not None else f"{b.name}[{UNSIZED_INDEX}]"
    t = b.hlsl_type
    if t.startswith("ConstantBuffer<"):
        return [f"acc ^= {ref}.Elements[0].x;"]
    if t in ("ByteAddressBuffer", "RWByteAddressBuffer"):
        return [f"acc ^= {ref}.Load(0);"]
    if t.startswith("Texture2D"):
        return [f"acc ^= asuint({ref}.Load(int3(0, 0, 0)).x);"]
    if t.startswith("RWTexture2D"):
        return [f"acc ^= asuint({ref}[uint2(0, 0)].x);"]
    if t == "SamplerState":
        return [f"acc ^= asuint({PROBE_TEXTURE}.SampleLevel({ref}, float2(0, 0), 0).x);"]
    if t == "SamplerComparisonState":
        return [f"acc ^= asuint({PROBE_TEXTURE}.SampleCmpLevelZero({ref}, float2(0, 0), 0.5));"]
    raise AssertionError(f"no way to read a {t}")


def probe(text: str, found: HlslBindings, *, prefix: str = "", touch: dict[str, list[str]] | None = None) -> str:
    """``prefix`` (a shader's own #defines), the generated ``text``, then a compute shader reading every declaration
    (``touch``: statements replacing a declaration's own), its helpers in a space no declaration uses."""
    touch = touch or {}
    space = max((b.space for b in found.declarations), default=0) + 1
    body = [s for b in found.declarations for s in touch.get(b.name, _touch(b))]
    return "\n".join([prefix, text,
                      f"Texture2D<float4> {PROBE_TEXTURE} : register(t0, space{space});",
                      f"RWStructuredBuffer<uint> d3d12wl_probe_out : register(u0, space{space});",
                      "[numthreads(1, 1, 1)]", "void main(uint3 id : SV_DispatchThreadID)", "{", "    uint acc = 0;",
                      *(f"    {s}" for s in body), "    d3d12wl_probe_out[0] = acc;", "}", ""])


# --- the description's own words: the JSON at a declaration's path -----------------------------------------------


def at_path(doc: dict[str, Any], path: str) -> dict[str, Any]:
    """The JSON object at ``root_signatures.GRS.pParameters[3].DescriptorTable.pDescriptorRanges[1]``."""
    node: Any = doc
    for name, index in re.findall(r"(\w+)(?:\[(\d+)\])?", path):
        node = node[name]
        if index:
            node = node[int(index)]
    assert isinstance(node, dict)
    return node


def _short(value: str) -> str:
    return value.rsplit("_TYPE_", 1)[-1] if value.startswith("D3D12_") else value


def declared(node: dict[str, Any]) -> tuple[str, int, int, int | None, int | None]:
    """(class, register, space, count, DWORDs) a root parameter, range or static sampler of the JSON declares."""
    if "RangeType" in node:
        n = node["NumDescriptors"]
        return (CLASS[_short(node["RangeType"])], node.get("BaseShaderRegister", 0), node.get("RegisterSpace", 0),
                None if n == UNBOUNDED else n, None)
    if "Filter" in node:
        return "s", node.get("ShaderRegister", 0), node.get("RegisterSpace", 0), 1, None
    kind = _short(node["ParameterType"])
    member = node["Constants"] if kind == "32BIT_CONSTANTS" else node["Descriptor"]
    dwords = member["Num32BitValues"] if kind == "32BIT_CONSTANTS" else None
    return CLASS[kind], member.get("ShaderRegister", 0), member.get("RegisterSpace", 0), 1, dwords


def every_register(doc: dict[str, Any]) -> set[tuple[str, int, int, int | None]]:
    """(class, register, space, count) of every binding the JSON declares: every root signature's parameters
    (a table's ranges) and static samplers, and every _INLINE_ROOT_PARAMETER / _INLINE_STATIC_SAMPLER argument."""
    nodes: list[dict[str, Any]] = []

    def parameter(rp: dict[str, Any]) -> None:
        if _short(rp["ParameterType"]) == "DESCRIPTOR_TABLE":
            nodes.extend(rp["DescriptorTable"]["pDescriptorRanges"])
        else:
            nodes.append(rp)

    for rs in doc.get("root_signatures", {}).values():
        for rp in rs.get("pParameters", []):
            parameter(rp)
        nodes.extend(rs.get("pStaticSamplers", []))
    for pcs in doc.get("program_command_signatures", {}).values():
        for arg in pcs["pArgumentDescs"]:
            if "InlineRootParameter" in arg:
                parameter(arg["InlineRootParameter"]["RootParameter"])
            if "InlineStaticSampler" in arg:
                nodes.append(arg["InlineStaticSampler"])
    return {declared(n)[:4] for n in nodes}


def binding_mismatches(path: str, text: str, found: HlslBindings) -> list[str]:
    """Every disagreement between glslc's SPIR-V and the description's JSON (empty: none)."""
    doc = json.loads(Path(path).read_text())
    got = spirv_bindings(compile_hlsl(probe(text, found), IOMAP))
    problems = []
    seen = set()
    for b in found.declarations:
        cls, register, space, count, dwords = declared(at_path(doc, b.path))
        var = got.get(b.name)
        if var is None:
            problems.append(f"{b.name}: no such resource in the SPIR-V")
            continue
        seen.add((cls, register, space, count))
        want = (space, CLASS_BASE[cls] + register, UNSIZED_INDEX + 1 if count is None else count)
        if (var.descriptor_set, var.binding, var.count) != want:
            problems.append(f"{b.name}: SPIR-V DescriptorSet {var.descriptor_set} Binding {var.binding} count "
                            f"{var.count}; {b.path} says {cls}{register} space{space} count {count} (Binding {want[1]})")
        if dwords is not None and var.offsets != [4 * k for k in range(dwords)]:
            problems.append(f"{b.name}: member Offsets {var.offsets}, root constants of {dwords} DWORDs")
    resources = {name: v for name, v in got.items() if not name.startswith("d3d12wl_probe_")}
    if len(resources) != len(found.declarations):
        problems.append(f"SPIR-V resources {sorted(resources)} != declarations {[b.name for b in found.declarations]}")
    if seen != every_register(doc):
        problems.append(f"registers declared {sorted(map(str, seen))} != the description's "
                        f"{sorted(map(str, every_register(doc)))}")
    return problems


# --- tests ----------------------------------------------------------------------------------------------------------


@pytest.mark.usefixtures("hlsl_tools")
@pytest.mark.parametrize("path", DESCRIPTIONS, ids=lambda p: Path(p).name)
def test_bindings_compile_with_the_structs_at_the_description_registers(path: str) -> None:
    """The structs and the bindings compile together; every resource is at the description's register class,
    register, space and count, every register of the description is declared, root constants are DWORD-packed;
    the structs' layout is still the calculator's (the bindings change no byte of them)."""
    text, found = generated(path)
    assert found.declarations
    assert binding_mismatches(path, text, found) == []
    assert layout_mismatches(record_layouts(description.load(path))) == []


@pytest.mark.usefixtures("hlsl_tools")
def test_culling_example_bindings() -> None:
    """Spec "GPU culling and work list emission": the synthesized local root signature holds "1 root parameter
    (32BIT_CONSTANTS, 4 dwords, b0 space1 ...)" and "1 static sampler (linear/wrap, s0 space1 ...)", its tint from
    the program-table record; GRS parameter 1 is the root SRV (t0) args[0] sets from the secondary record."""
    text, found = generated(str(EXAMPLES.joinpath("culling.json")))
    by_name = {b.name: b for b in found.declarations}
    assert list(by_name) == ["GRS_param0", "GRS_param1", "PCS_lrs_param0", "PCS_lrs_sampler0"]
    tint = by_name["PCS_lrs_param0"]
    assert (tint.register_text, tint.dwords, tint.local, tint.hlsl_type) == (
        "register(b0, space1)", 4, True, "ConstantBuffer<PCS_lrs_param0_Constants>")
    for k in range(4):
        assert (f"uint dw{k};" in tint.text and f"PROGRAM_TABLE_RECORD: PCS_ProgramTableRecord."
                f"arg2_InlineRootParameter[{k}]" in tint.text.splitlines()[3 + k])
    sampler = by_name["PCS_lrs_sampler0"]
    assert sampler.text.endswith("SamplerState PCS_lrs_sampler0 : register(s0, space1);")
    assert "MIN_MAG_MIP_LINEAR" in sampler.text
    srv = by_name["GRS_param1"]
    assert (srv.register_text, srv.kind, srv.local) == ("register(t0, space0)", "SRV", False)
    assert ("set by PCS.pArgumentDescs[0] SHADER_RESOURCE_VIEW from SECONDARY_RECORD: "
            "PCS_SecondaryRecord.arg0_ShaderResourceView") in srv.text
    assert "keeps the command list's root argument" in by_name["GRS_param0"].text
    assert text.index("struct PCS_SecondaryRecord") < text.index("GRS_param0_TYPE GRS_param0 : register(b0, space0);")


@pytest.mark.usefixtures("hlsl_tools")
def test_glslc_maps_space_to_set_and_register_to_binding() -> None:
    """What the check relies on, shown on its own: without options glslc makes register(xN, spaceM) DescriptorSet M,
    Binding N for every class (so b0 and t0 of a space collide there); -fhlsl-iomap adds the class's base."""
    text, found = generated(str(EXAMPLES.joinpath("culling.json")))
    plain = spirv_bindings(compile_hlsl(probe(text, found)))
    mapped = spirv_bindings(compile_hlsl(probe(text, found), IOMAP))
    for name, (space, cls, register) in {"GRS_param0": (0, "b", 0), "GRS_param1": (0, "t", 0),
                                         "PCS_lrs_param0": (1, "b", 0), "PCS_lrs_sampler0": (1, "s", 0)}.items():
        assert (plain[name].descriptor_set, plain[name].binding) == (space, register)
        assert (mapped[name].descriptor_set, mapped[name].binding) == (space, CLASS_BASE[cls] + register)


@pytest.mark.usefixtures("hlsl_tools")
def test_the_check_is_live() -> None:
    """A declaration at another register or space, or a range one descriptor short, is caught."""
    path = str(DATA / "bindings.json")
    text, found = generated(path)
    for old, new, expected in [
            ("register(t8, space2)", "register(t9, space2)", "GRS_param3_range3: SPIR-V DescriptorSet 2 Binding 20009"),
            ("register(b0, space6)", "register(b0, space5)", "Inline_lrs_param0: SPIR-V DescriptorSet 5"),
            ("GRS_param3_range0[8]", "GRS_param3_range0[7]", "GRS_param3_range0: SPIR-V DescriptorSet 2 Binding "
                                                             "20000 count 7")]:
        assert text.count(old) == 1, old
        problems = binding_mismatches(path, text.replace(old, new), found)
        assert any(p.startswith(expected) for p in problems), (old, problems)


@pytest.mark.usefixtures("hlsl_tools")
def test_a_shader_declares_its_own_type_beside_the_records() -> None:
    """Spec example's root SRV is the material buffer; a shader that #defines GRS_param1_TYPE as a StructuredBuffer of
    the generated PCS_SecondaryRecord gets it at the root signature's t0 space0, with the record's 24-byte stride."""
    path = str(EXAMPLES.joinpath("culling.json"))
    text, found = generated(path)
    source = probe(text, found, prefix="#define GRS_param1_TYPE StructuredBuffer<PCS_SecondaryRecord>",
                   touch={"GRS_param1": ["acc ^= GRS_param1[id.x].VertexCountPerInstance;"]})
    spirv = compile_hlsl(source, IOMAP)
    got = spirv_bindings(spirv)["GRS_param1"]
    assert (got.descriptor_set, got.binding) == (0, CLASS_BASE["t"])
    assert re.search(r"OpDecorate %\w+ ArrayStride 24\b", spirv)


def test_explicit_path_local_constants_name_their_writers() -> None:
    """Spec "Local root signatures" (explicit path) and rule 6: the local root constants DWORDs the PCS does not
    override come from the program's program-table record, the others from the secondary record."""
    _, found = generated(str(DATA / "bindings.json"))
    lrs = next(b for b in found.declarations if b.name == "LRS_param0")
    lines = lrs.text.splitlines()
    assert "Lit's program-table record: Lit_ProgramTableRecord.param0_dw0[0]" in lines[3]
    assert "Lit's program-table record: Lit_ProgramTableRecord.param0_dw0[1]" in lines[4]
    assert "Explicit.pArgumentDescs[2] CONSTANT from SECONDARY_RECORD: Explicit_SecondaryRecord.arg2_Constant[0]" \
        in lines[5]
    grs = next(b for b in found.declarations if b.name == "GRS_param0")
    assert "not set per record: the command list's root constants" in grs.text.splitlines()[3]
    assert "Inline_PrimaryRecord.arg0_Constant[1]" in grs.text.splitlines()[5]


def test_pcs_scope_has_its_root_signatures_only() -> None:
    """--pcs: the global root signature the PCS names and the local root signatures of it and its programs."""
    _, cull = generated(str(EXAMPLES.joinpath("tier2_chain.json")), "PCS_Cull")
    assert cull.root_signatures == ("GRS",)
    _, explicit = generated(str(DATA / "bindings.json"), "Explicit")
    assert explicit.root_signatures == ("GRS", "LRS")
    _, inline = generated(str(DATA / "bindings.json"), "Inline")
    assert inline.root_signatures == ("GRS", "Inline_lrs")


def test_cli_text_json_and_errors(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    culling = str(EXAMPLES.joinpath("culling.json"))
    assert main(["codegen", culling, "--lang", "hlsl", "--bindings"]) == 0
    out = capsys.readouterr().out
    assert out == generated(culling)[0]
    assert main(["codegen", culling, "--lang", "hlsl", "--bindings", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["source"] == out and doc["bindings"]["source"] in out and doc["bindings"]["note"] is None
    assert [(d["name"], d["register"], d["space"], d["count"]) for d in doc["bindings"]["declarations"]] == [
        ("GRS_param0", "b0", 0, 1), ("GRS_param1", "t0", 0, 1), ("PCS_lrs_param0", "b0", 1, 1),
        ("PCS_lrs_sampler0", "s0", 1, 1)]
    assert main(["codegen", culling, "--lang", "hlsl", "--json"]) == 0
    assert "bindings" not in json.loads(capsys.readouterr().out)
    assert main(["codegen", culling, "--lang", "c", "--bindings"]) == 2
    assert "--bindings: --bindings applies to --lang hlsl" in capsys.readouterr().err


def test_a_description_without_root_signatures_says_so(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """No root signature and no inline local root parameters: the structs, a comment and one stderr line, exit 0."""
    path = tmp_path / "plain.json"
    path.write_text(json.dumps({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "DISPATCH", "Source": "PRIMARY_RECORD"}]}}}))
    assert main(["codegen", str(path), "--lang", "hlsl", "--bindings"]) == 0
    captured = capsys.readouterr()
    assert "struct P_PrimaryRecord" in captured.out
    assert captured.out.endswith("// no bindings: the description has no root signature (none in root_signatures, "
                                 "and no _INLINE_ROOT_PARAMETER / _INLINE_STATIC_SAMPLER arguments): no bindings to "
                                 "declare\n")
    assert captured.err.startswith("d3d12wl codegen: --bindings: the description has no root signature")
    assert main(["codegen", str(path), "--lang", "hlsl", "--bindings", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)["bindings"]
    assert doc["declarations"] == [] and doc["note"].startswith("the description has no root signature")
    assert main(["codegen", str(EXAMPLES.joinpath("tier2_chain.json")), "--lang", "hlsl", "--bindings",
                 "--pcs", "PCS_Cull"]) == 0
    assert "--bindings" not in capsys.readouterr().err


def test_two_declarations_spelled_alike_are_an_error(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A root signature named A_lrs and the local root signature PCS A synthesizes would both declare A_lrs_param0."""
    doc = json.loads((EXAMPLES / "culling.json").read_text())
    doc["root_signatures"]["PCS_lrs"] = {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 5, "Num32BitValues": 1}}]}
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(doc))
    assert main(["codegen", str(path), "--lang", "hlsl", "--bindings"]) == 2
    err = capsys.readouterr().err
    assert "HLSL name 'PCS_lrs_param0' would declare both root_signatures.PCS_lrs.pParameters[0] and " \
           "program_command_signatures.PCS.pArgumentDescs[2].InlineRootParameter.RootParameter" in err


def test_empty_and_unknown_members(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """A range of 0 descriptors, root constants of 0 DWORDs, a table of no ranges and a root signature of nothing
    declare nothing and say so; a ParameterType or RangeType outside its enum is exit 2 naming the member."""
    doc = {"root_signatures": {"my-rs.1": {"pParameters": [
        {"ParameterType": "DESCRIPTOR_TABLE", "DescriptorTable": {"pDescriptorRanges": [
            {"RangeType": "SRV", "NumDescriptors": 0}]}},
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"Num32BitValues": 0}},
        {"ParameterType": "DESCRIPTOR_TABLE"}]}, "Empty": {}},
        "program_command_signatures": {"P": {"pArgumentDescs": [{"Type": "DISPATCH", "Source": "PRIMARY_RECORD"}],
                                             "pGlobalRootSignature": "my-rs.1"}}}
    path = tmp_path / "empty.json"
    path.write_text(json.dumps(doc))
    found = hlsl_bindings(description.load(str(path)))
    assert found.declarations == () and found.root_signatures == ("my_rs_1", "Empty")
    for line in ["// range 0: SRV t0 space0, 0 descriptor(s) (root_signatures.my-rs.1.pParameters[0].DescriptorTable"
                 ".pDescriptorRanges[0])", "//   NumDescriptors 0: nothing to declare",
                 "//   Num32BitValues 0: nothing to declare", "//   no ranges: nothing to declare",
                 "// no parameters and no static samplers: nothing to declare"]:
        assert line in found.text.splitlines(), line
    for member, bad, message in [("ParameterType", {"ParameterType": 9},
                                  "root_signatures.R.pParameters[0]: ParameterType 9 is not a D3D12_ROOT_PARAMETER_TYPE"),
                                 ("RangeType", {"ParameterType": "DESCRIPTOR_TABLE", "DescriptorTable": {
                                     "pDescriptorRanges": [{"RangeType": 7, "NumDescriptors": 1}]}},
                                  "root_signatures.R.pParameters[0].DescriptorTable.pDescriptorRanges[0]: RangeType 7 is "
                                  "not a D3D12_DESCRIPTOR_RANGE_TYPE")]:
        path.write_text(json.dumps({"root_signatures": {"R": {"pParameters": [bad]}}}))
        assert main(["codegen", str(path), "--lang", "hlsl", "--bindings"]) == 2, member
        captured = capsys.readouterr()
        assert message in captured.err and captured.out == "", (member, captured.err)
    path.write_text(json.dumps({"program_command_signatures": doc["program_command_signatures"] | {
        "Q": {"pArgumentDescs": [{"Type": "DISPATCH", "Source": "PRIMARY_RECORD"}]}}, "root_signatures": {
        "my-rs.1": {}}}))
    assert hlsl_bindings(description.load(str(path)), "Q").note == (
        "program command signature 'Q' has no root signature (none in root_signatures it uses, and no "
        "_INLINE_ROOT_PARAMETER / _INLINE_STATIC_SAMPLER arguments): no bindings to declare")


def test_argument_names_name_the_record_members() -> None:
    """An argument's ``Name`` (culling_named.json) is the record member each comment names: the layout's field."""
    _, found = generated(str(EXAMPLES.joinpath("culling_named.json")))
    by_name = {b.name: b for b in found.declarations}
    assert "SECONDARY_RECORD: PCS_SecondaryRecord.MaterialBufferSRV" in by_name["GRS_param1"].text
    assert "PROGRAM_TABLE_RECORD: PCS_ProgramTableRecord.Tint[3]" in by_name["PCS_lrs_param0"].text
