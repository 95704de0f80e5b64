"""SetProgram rules (16, 17, 6, bind path vs tier, binding struct members), ExecuteIndirect command-signature rules
(IndirectDrawing.md "Validation"), and the ``d3d12wl validate`` command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from strategies import (
    PERMISSIVE_CAPS,
    TIER_1,
    TIER_2,
    command_signature,
    culling_example,
    ei_arg,
    ev,
    root_param,
    root_signature,
    wl_arg,
)
from test_rules_pcs import pcs_of, rules_of

from d3d12wl.cli import main
from d3d12wl.model.objects import ObjectSet, Program, WorkListSignature, WorkListSignatureArray
from d3d12wl.model.state import (
    DeviceCaps,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RaytracingBinding,
    SetProgramDesc,
    SetWorkListDesc,
    SetWorkListDesc1,
    WorkListBinding,
)
from d3d12wl.rules import check_command_signature, check_set_program

CAPS = PERMISSIVE_CAPS
EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"


def table(start: int = 0x10000, size: int = 64 * 48, stride: int = 48, slots: int = 64) -> WorkListBinding:
    return WorkListBinding(ev("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"),
                           ProgramTableBinding(GpuVirtualAddressRangeAndStride(start, size, stride), slots))


def rt_binding() -> WorkListBinding:
    return WorkListBinding(ev("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING"), pRaytracing=RaytracingBinding("RTPSO"))


def direct(wls: WorkListSignature, binding: WorkListBinding) -> SetProgramDesc:
    return SetProgramDesc(ev("D3D12_PROGRAM_TYPE", "WORK_LIST"), WorkList=SetWorkListDesc(wls, binding))


def array(arr: WorkListSignatureArray, *bindings: WorkListBinding, validation: ProgramTableBinding | None = None
          ) -> SetProgramDesc:
    desc1 = SetWorkListDesc1(arr, list(bindings), validation or ProgramTableBinding())
    return SetProgramDesc(ev("D3D12_PROGRAM_TYPE", "WORK_LIST1"), WorkList1=desc1)


def culling_wls() -> WorkListSignature:
    return WorkListSignature("WLS", [culling_example()])


def rt_wls() -> WorkListSignature:
    return WorkListSignature("RW", [pcs_of(wl_arg("DISPATCH_RAYS_DIMENSIONS"), name="R")])


def scheck(desc: SetProgramDesc, caps: DeviceCaps = CAPS, objects: ObjectSet | None = None) -> list[str]:
    return rules_of(check_set_program(desc, caps, objects))


# --- SetProgram ---------------------------------------------------------------------------------------------------------


def test_set_program_valid_bases() -> None:
    assert scheck(direct(culling_wls(), table()), DeviceCaps(Tier=TIER_1)) == []
    assert scheck(direct(rt_wls(), rt_binding())) == []
    arr = WorkListSignatureArray("ARR", [culling_wls(), rt_wls()])
    assert scheck(array(arr, table(), rt_binding())) == []


def test_rule_17_binding_type_matches_signature_class() -> None:
    v = check_set_program(direct(culling_wls(), rt_binding()), CAPS)
    assert rules_of(v) == ["rule 17"] and v[0].path == "set_program.desc.WorkList.Binding.Type"
    assert scheck(direct(rt_wls(), table())) == ["rule 17"]
    arr = WorkListSignatureArray("ARR", [culling_wls(), rt_wls()])
    v = check_set_program(array(arr, table(), table()), CAPS)
    assert rules_of(v) == ["rule 17"] and v[0].path == "set_program.desc.WorkList1.pBindings[1].Type"


def test_rule_16_raytracing_binding_needs_dispatch_rays_supported() -> None:
    assert scheck(direct(rt_wls(), rt_binding()), DeviceCaps(Tier=TIER_2)) == ["rule 16"]


def test_raytracing_binding_needs_non_null_pointer() -> None:
    binding = rt_binding()
    binding.pRaytracing = None
    assert scheck(direct(rt_wls(), binding)) == ["D3D12_WORK_LIST_BINDING"]


def test_array_bind_path_is_tier2_only_and_bindings_parallel() -> None:
    arr = WorkListSignatureArray("ARR", [culling_wls()])
    assert scheck(array(arr, table()), DeviceCaps(Tier=TIER_1)) == ["Binding via SetProgram"]
    assert scheck(array(arr, table(), table())) == ["D3D12_SET_WORK_LIST_DESC1"]


def test_program_type_must_be_a_work_list_type() -> None:
    desc = direct(culling_wls(), table())
    desc.Type = ev("D3D12_PROGRAM_TYPE", "GENERIC_PIPELINE")
    assert scheck(desc) == ["D3D12_PROGRAM_TYPE"]


@pytest.mark.parametrize(("binding", "ok"), [
    (table(stride=0, size=48), True),       # broadcast
    (table(stride=32, size=64 * 32), True),
    (table(stride=4096, size=64 * 4096), True),
    (table(stride=24, size=64 * 24), False),  # below the identifier
    (table(stride=52, size=64 * 52), False),  # not a multiple of 8
    (table(stride=4104, size=64 * 4104), False),  # above D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE
    (table(start=0x10004), False),          # StartAddress 8-aligned
    (table(size=63 * 48), False),           # SizeInBytes >= SlotCount * stride
    (table(stride=0, size=16), False),      # broadcast record must fit
])
def test_program_table_binding_members(binding: WorkListBinding, ok: bool) -> None:
    expected = [] if ok else ["D3D12_WORK_LIST_PROGRAM_TABLE_BINDING"]
    assert scheck(direct(culling_wls(), binding)) == expected


def test_validation_program_table_zero_start_means_zero_stride_and_slots() -> None:
    arr = WorkListSignatureArray("ARR", [culling_wls()])
    off = ProgramTableBinding(GpuVirtualAddressRangeAndStride(0, 0, 32), 0)
    assert scheck(array(arr, table(), validation=off)) == ["D3D12_SET_WORK_LIST_DESC1"]
    on = ProgramTableBinding(GpuVirtualAddressRangeAndStride(0x20000, 4 * 64, 64), 4)
    assert scheck(array(arr, table(), validation=on)) == []


def test_rule_6_known_programs_fit_the_program_table_stride() -> None:
    wls = culling_wls()
    objects = ObjectSet(programs={"Opaque": Program("Opaque", ProgramCommandSignature=wls.pProgramCommandSignatures[0])})
    assert scheck(direct(wls, table(stride=48)), objects=objects) == []
    assert scheck(direct(wls, table(stride=40, size=64 * 40)), objects=objects) == ["rule 6"]  # 32 + 16-byte tint
    assert scheck(direct(wls, table(stride=0, size=48)), objects=objects) == []  # broadcast: no ceiling


# --- ExecuteIndirect (IndirectDrawing.md "Validation") ----------------------------------------------------------------


def echeck(cs) -> list[str]:  # noqa: ANN001
    return rules_of(check_command_signature(cs))


def ei_rs():  # noqa: ANN201
    """0: 4 constants, 1: CBV, 2: SRV, 3: UAV, 4: descriptor table."""
    return root_signature("RS", "32BIT_CONSTANTS", "CBV", "SRV", "UAV", "DESCRIPTOR_TABLE")


def test_ei_valid_bases_including_plain_multi_draw_indirect_example() -> None:
    assert echeck(command_signature("MDI", 36, [ei_arg("DRAW_INDEXED")])) == []
    args = [ei_arg("CONSTANT", rpi=0, num=1), ei_arg("CONSTANT_BUFFER_VIEW", rpi=1), ei_arg("VERTEX_BUFFER_VIEW", slot=3),
            ei_arg("DRAW")]
    assert echeck(command_signature("CS", 4 + 8 + 16 + 16, args, ei_rs())) == []  # CBV tightly packed at 4


def test_ei_validation_1_exactly_one_draw_dispatch_entry_last() -> None:
    rs = ei_rs()
    assert echeck(command_signature("CS", 4, [ei_arg("CONSTANT", rpi=0, num=1)], rs)) == ["IndirectDrawing Validation 1"]
    assert echeck(command_signature("CS", 32, [ei_arg("DRAW"), ei_arg("DRAW")])) == ["IndirectDrawing Validation 1"]
    assert echeck(command_signature("CS", 20, [ei_arg("DRAW"), ei_arg("CONSTANT", rpi=0, num=1)], rs)) == [
        "IndirectDrawing Validation 1"]


def test_ei_validation_2_index_buffer_only_with_draw_indexed() -> None:
    assert echeck(command_signature("CS", 32, [ei_arg("INDEX_BUFFER_VIEW"), ei_arg("DRAW")])) == [
        "IndirectDrawing Validation 2"]


def test_ei_validation_3_and_4_byte_stride() -> None:
    assert echeck(command_signature("CS", 18, [ei_arg("DRAW")])) == ["IndirectDrawing Validation 3"]
    assert echeck(command_signature("CS", 12, [ei_arg("DRAW")])) == ["IndirectDrawing Validation 4"]


def test_ei_validation_5_bindings_compatible_with_root_signature() -> None:
    assert echeck(command_signature("CS", 20, [ei_arg("SHADER_RESOURCE_VIEW", rpi=1), ei_arg("DISPATCH")], ei_rs())) == [
        "IndirectDrawing Validation 5"]


def test_ei_validation_6_root_parameter_slot_defined_once() -> None:
    args = [ei_arg("CONSTANT_BUFFER_VIEW", rpi=1), ei_arg("CONSTANT_BUFFER_VIEW", rpi=1), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 28, args, ei_rs())) == ["IndirectDrawing Validation 6"]


def test_ei_validation_7_root_parameter_in_range() -> None:
    args = [ei_arg("UNORDERED_ACCESS_VIEW", rpi=7), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 20, args, ei_rs())) == ["IndirectDrawing Validation 7"]


def test_ei_validation_9_vertex_buffer_slot_in_range() -> None:
    assert echeck(command_signature("CS", 32, [ei_arg("VERTEX_BUFFER_VIEW", slot=32), ei_arg("DRAW")])) == [
        "IndirectDrawing Validation 9"]


def test_ei_validation_10_sorted_by_root_parameter_index() -> None:
    args = [ei_arg("SHADER_RESOURCE_VIEW", rpi=2), ei_arg("CONSTANT_BUFFER_VIEW", rpi=1), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 28, args, ei_rs())) == ["IndirectDrawing Validation 10"]


def test_ei_validation_11_root_constants_sorted_without_overlap() -> None:
    rs = ei_rs()
    ok = [ei_arg("CONSTANT", rpi=0, dest=0, num=2), ei_arg("INCREMENTING_CONSTANT", rpi=0, dest=2), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 20, ok, rs)) == []
    bad = [ei_arg("CONSTANT", rpi=0, dest=1, num=2), ei_arg("CONSTANT", rpi=0, dest=0, num=1), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 24, bad, rs)) == ["IndirectDrawing Validation 11"]


def test_ei_validation_12_dispatch_changes_no_vertex_or_index_buffer() -> None:
    assert echeck(command_signature("CS", 28, [ei_arg("VERTEX_BUFFER_VIEW"), ei_arg("DISPATCH")])) == [
        "IndirectDrawing Validation 12"]


def test_ei_validation_13_root_signature_iff_root_arguments_change() -> None:
    assert echeck(command_signature("CS", 16, [ei_arg("DRAW")], ei_rs())) == ["IndirectDrawing Validation 13"]
    assert echeck(command_signature("CS", 20, [ei_arg("CONSTANT", rpi=0, num=1), ei_arg("DRAW")])) == [
        "IndirectDrawing Validation 13"]


def test_ei_validation_14_constants_within_root_parameter_range() -> None:
    args = [ei_arg("CONSTANT", rpi=0, dest=3, num=2), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 20, args, ei_rs())) == ["IndirectDrawing Validation 14"]


def test_ei_validation_15_and_16_vertex_and_index_buffer_uniqueness() -> None:
    args = [ei_arg("VERTEX_BUFFER_VIEW", slot=1), ei_arg("VERTEX_BUFFER_VIEW", slot=1), ei_arg("DRAW")]
    assert echeck(command_signature("CS", 48, args)) == ["IndirectDrawing Validation 15"]
    args = [ei_arg("INDEX_BUFFER_VIEW"), ei_arg("INDEX_BUFFER_VIEW"), ei_arg("DRAW_INDEXED")]
    assert echeck(command_signature("CS", 52, args)) == ["IndirectDrawing Validation 16"]


def test_ei_validation_17_num_32bit_values_to_set_positive() -> None:
    args = [ei_arg("CONSTANT", rpi=0, num=0), ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 12, args, ei_rs())) == ["IndirectDrawing Validation 17"]


def test_ei_incrementing_constant_at_most_one() -> None:
    rs = root_signature("RS", root_param("32BIT_CONSTANTS", 4))
    args = [ei_arg("INCREMENTING_CONSTANT", rpi=0, dest=0), ei_arg("INCREMENTING_CONSTANT", rpi=0, dest=1),
            ei_arg("DISPATCH")]
    assert echeck(command_signature("CS", 12, args, rs)) == ["Incrementing constant"]


def test_ei_work_lists_only_types_rejected() -> None:
    assert "Command signature Creation" in echeck(command_signature("CS", 12, [ei_arg("DISPATCH_RAYS_DIMENSIONS")]))


# --- d3d12wl validate ---------------------------------------------------------------------------------------------------


def test_cli_validate_spec_examples_clean(capsys: pytest.CaptureFixture[str]) -> None:
    for name in ("culling.json", "gpu_resident_diagram.json"):
        assert main(["validate", str(EXAMPLES / name)]) == 0
        assert "no violations" in capsys.readouterr().out


def test_cli_validate_reports_every_violation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = json.loads((EXAMPLES / "culling.json").read_text())
    pcs = doc["program_command_signatures"]["PCS"]
    pcs["SecondaryRecordByteStride"] = 20
    pcs["pArgumentDescs"][0]["ShaderResourceView"]["RootParameterIndex"] = 0
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 1
    out = capsys.readouterr().out
    assert "rule 25(b)" in out and "program_command_signatures.PCS.pArgumentDescs[0]" in out
    assert main(["validate", str(path), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["count"] == len(report["violations"]) == 3
    assert sorted(v["rule"] for v in report["violations"]) == ["rule 25(b)", "rule 25(e)", "rule 25(e)"]
    assert {"rule", "path", "message", "arg", "kind", "name"} <= set(report["violations"][0])


def test_cli_validate_tier_and_dispatch_rays_flags(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = {"root_signatures": {"GRS": {"pParameters": [{"ParameterType": "SRV"}]}},
           "program_command_signatures": {"R": {
               "pArgumentDescs": [{"Type": "SHADER_RESOURCE_VIEW", "Source": "PRIMARY_RECORD",
                                   "ShaderResourceView": {"RootParameterIndex": 0}},
                                  {"Type": "DISPATCH_RAYS_DIMENSIONS", "Source": "PRIMARY_RECORD"}],
               "pGlobalRootSignature": "GRS"}},
           "work_list_signatures": {"W": {"pProgramCommandSignatures": ["R"]}},
           "work_list_signature_arrays": {"A": {"pSignatures": ["W"]}}}
    path = tmp_path / "rt.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path), "--dispatch-rays"]) == 0
    capsys.readouterr()
    assert main(["validate", str(path), "--json"]) == 1
    assert [v["rule"] for v in json.loads(capsys.readouterr().out)["violations"]] == ["rule 16"]
    assert main(["validate", str(path), "--tier", "1", "--dispatch-rays", "--json"]) == 1
    assert [v["rule"] for v in json.loads(capsys.readouterr().out)["violations"]] == ["CreateWorkListSignatureArray"]
