"""CreateProgramCommandSignature rules: one minimal violating signature per rule, built from a valid base."""

from __future__ import annotations

import pytest
from strategies import (
    PERMISSIVE_CAPS,
    TIER_1,
    TIER_2,
    culling_example,
    inline_param,
    inline_sampler,
    root_param,
    root_signature,
    wl_arg,
)

from d3d12wl.model.argtypes import (
    ROLE_DATA,
    ROLE_PRIMARY_LIST_VALIDATOR,
    ROLE_SECONDARY_LIST_VALIDATOR,
    ROLE_SIGNATURE_SELECTION_VALIDATOR,
)
from d3d12wl.model.objects import ProgramCommandSignature, RootSignature, WorkListArgumentDesc
from d3d12wl.model.state import DeviceCaps
from d3d12wl.rules import Violation, check_program_command_signature

CAPS = PERMISSIVE_CAPS


def rules_of(violations: list[Violation]) -> list[str]:
    return [v.rule for v in violations]


def check(pcs: ProgramCommandSignature, caps: DeviceCaps = CAPS, role: str = ROLE_DATA) -> list[str]:
    return rules_of(check_program_command_signature(pcs, caps, role))


def grs4() -> RootSignature:
    """0: 4 constants, 1: CBV, 2: SRV, 3: UAV, 4: descriptor table, 5: 2 constants."""
    return root_signature("GRS", "32BIT_CONSTANTS", "CBV", "SRV", "UAV", "DESCRIPTOR_TABLE",
                          root_param("32BIT_CONSTANTS", 2, register=5))


def pcs_of(*args: WorkListArgumentDesc, stride: int = 0, grs: RootSignature | None = None,
           name: str = "PCS") -> ProgramCommandSignature:
    return ProgramCommandSignature(name, list(args), stride, grs if grs is not None else grs4())


def compute_base() -> ProgramCommandSignature:
    return pcs_of(wl_arg("CONSTANT", rpi=0, num=4), wl_arg("DISPATCH"))


def rt_base() -> ProgramCommandSignature:
    return pcs_of(wl_arg("SHADER_RESOURCE_VIEW", rpi=2), wl_arg("DISPATCH_RAYS_DIMENSIONS"))


def test_valid_bases_have_no_violations() -> None:
    assert check(culling_example()) == []
    assert check(compute_base()) == []
    assert check(rt_base()) == []


def test_spec_culling_example_validates_clean_on_tier1_without_dispatch_rays() -> None:
    assert check(culling_example(), DeviceCaps(Tier=TIER_1)) == []


# --- Supported argument types ---------------------------------------------------------------------------------------


def test_supported_argument_types_exactly_one_dispatch_trigger() -> None:
    none = pcs_of(wl_arg("CONSTANT", rpi=0, num=4))
    two = pcs_of(wl_arg("DISPATCH"), wl_arg("FIXED_DISPATCH", "STATIC"))
    assert check(none) == ["Supported argument types"]
    assert check(two) == ["Supported argument types"]


def test_supported_argument_types_trigger_may_appear_at_any_index() -> None:
    assert check(pcs_of(wl_arg("DISPATCH"), wl_arg("CONSTANT", rpi=0, num=4))) == []


def test_supported_argument_types_dispatch_rays_not_valid_in_work_lists() -> None:
    v = check_program_command_signature(pcs_of(wl_arg("DISPATCH_RAYS")), CAPS)
    assert "Supported argument types" in rules_of(v)
    assert any(x.path == "program_command_signatures.PCS.pArgumentDescs[0].Type" for x in v)


def test_supported_argument_types_unknown_type_value() -> None:
    pcs = compute_base()
    pcs.pArgumentDescs[0].Type = 999
    v = check_program_command_signature(pcs, CAPS)
    assert [x.rule for x in v] == ["Supported argument types"]
    assert v[0].arg == 0


# --- Source requirements ---------------------------------------------------------------------------------------------


def test_incrementing_constant_source_must_be_system() -> None:
    pcs = pcs_of(wl_arg("INCREMENTING_CONSTANT", "PRIMARY_RECORD", rpi=0), wl_arg("DISPATCH"))
    v = check_program_command_signature(pcs, CAPS)
    assert rules_of(v) == ["_INCREMENTING_CONSTANT"]
    assert v[0].path == "program_command_signatures.PCS.pArgumentDescs[0].Source"


def test_fixed_dispatch_source_must_be_static() -> None:
    assert check(pcs_of(wl_arg("FIXED_DISPATCH", "PRIMARY_RECORD"))) == ["_FIXED_DISPATCH"]


def test_record_sourced_type_rejects_system_source() -> None:
    pcs = pcs_of(wl_arg("CONSTANT", "SYSTEM", rpi=0, num=4), wl_arg("DISPATCH"))
    assert check(pcs) == ["D3D12_INDIRECT_ARGUMENT_SOURCE"]


def test_program_table_record_source_only_on_inline_root_parameter() -> None:
    pcs = pcs_of(wl_arg("CONSTANT", "PROGRAM_TABLE_RECORD", rpi=0, num=4), wl_arg("DISPATCH"))
    assert check(pcs) == ["D3D12_INDIRECT_ARGUMENT_SOURCE"]


def test_pointer_source_must_be_system() -> None:
    pcs = pcs_of(wl_arg("PRIMARY_RECORD_POINTER", "PRIMARY_RECORD", rpi=1), wl_arg("DISPATCH"))
    assert check(pcs) == ["_PRIMARY_RECORD_POINTER"]


def test_source_value_outside_enum() -> None:
    pcs = compute_base()
    pcs.pArgumentDescs[1].Source = 0  # C's zero value is not a D3D12_INDIRECT_ARGUMENT_SOURCE member
    assert check(pcs) == ["D3D12_INDIRECT_ARGUMENT_SOURCE"]


# --- Binding requirements --------------------------------------------------------------------------------------------


def test_pointer_binding_must_be_global() -> None:
    pcs = pcs_of(wl_arg("PRIMARY_RECORD_POINTER", "SYSTEM", "LOCAL_ROOT_SIGNATURE", rpi=1), wl_arg("DISPATCH"))
    assert "_PRIMARY_RECORD_POINTER" in check(pcs)


def test_inline_types_binding_must_be_local() -> None:
    pcs = culling_example()
    pcs.pArgumentDescs[2].Binding = 0  # GLOBAL_ROOT_SIGNATURE
    pcs.pArgumentDescs[3].Binding = 0
    assert check(pcs) == ["_INLINE_ROOT_PARAMETER", "_INLINE_STATIC_SAMPLER"]


# --- _FIXED_DISPATCH grid caps ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("grid", [(0, 1, 1), (1, 0, 1), (1, 1, 0)])
def test_fixed_dispatch_each_dimension_at_least_one(grid: tuple[int, int, int]) -> None:
    assert check(pcs_of(wl_arg("FIXED_DISPATCH", "STATIC", grid=grid))) == ["_FIXED_DISPATCH"]


def test_fixed_dispatch_dimension_at_most_65535() -> None:
    assert check(pcs_of(wl_arg("FIXED_DISPATCH", "STATIC", grid=(65535, 65535, 65535)))) == []
    assert check(pcs_of(wl_arg("FIXED_DISPATCH", "STATIC", grid=(2, 65536, 1)))) == ["_FIXED_DISPATCH"]
    assert check(pcs_of(wl_arg("FIXED_DISPATCH", "STATIC", grid=(65536, 2, 1)))) == ["_FIXED_DISPATCH"]


def test_fixed_dispatch_1d_x_up_to_max_1d_dispatch_size() -> None:
    pcs = pcs_of(wl_arg("FIXED_DISPATCH", "STATIC", grid=(1 << 20, 1, 1)))
    assert check(pcs, DeviceCaps(Tier=TIER_2, Max1DDispatchSize=65535)) == ["_FIXED_DISPATCH"]
    assert check(pcs, DeviceCaps(Tier=TIER_2, Max1DDispatchSize=1 << 20)) == []
    assert check(pcs_of(wl_arg("FIXED_DISPATCH", "STATIC", grid=((1 << 20) + 1, 1, 1))),
                 DeviceCaps(Tier=TIER_2, Max1DDispatchSize=1 << 20)) == ["_FIXED_DISPATCH"]


# --- pointer-arg availability -----------------------------------------------------------------------------------------


def test_pointer_availability_validator_only_pointer_rejected_in_data_pcs() -> None:
    for ptype in ("DISPATCH_LIST_HEADER_POINTER", "PRIMARY_LIST_POINTER", "SECONDARY_LIST_POINTER"):
        pcs = pcs_of(wl_arg(ptype, "SYSTEM", rpi=1), wl_arg("DISPATCH"))
        assert check(pcs) == ["System-generated validator pointer arg types"], ptype


def test_pointer_availability_data_pointers_accepted_in_data_pcs() -> None:
    pcs = pcs_of(wl_arg("PROGRAM_TABLE_POINTER", "SYSTEM", rpi=1), wl_arg("PRIMARY_RECORD_POINTER", "SYSTEM", rpi=2),
                 wl_arg("SECONDARY_RECORD_POINTER", "SYSTEM", rpi=3), wl_arg("DISPATCH", "SECONDARY_RECORD"),
                 stride=16)
    assert check(pcs) == []


def test_pointer_availability_per_validator_role() -> None:
    def validator(ptype: str) -> ProgramCommandSignature:
        return pcs_of(wl_arg(ptype, "SYSTEM", rpi=1), wl_arg("FIXED_DISPATCH", "STATIC"))

    assert check(validator("SECONDARY_LIST_POINTER"), role=ROLE_SECONDARY_LIST_VALIDATOR) == []
    assert check(validator("PRIMARY_LIST_POINTER"), role=ROLE_PRIMARY_LIST_VALIDATOR) == []
    assert check(validator("DISPATCH_LIST_HEADER_POINTER"), role=ROLE_SIGNATURE_SELECTION_VALIDATOR) == []
    assert check(validator("PRIMARY_LIST_POINTER"), role=ROLE_SECONDARY_LIST_VALIDATOR) == [
        "System-generated validator pointer arg types"]
    assert check(validator("PRIMARY_LIST_POINTER"), role=ROLE_SIGNATURE_SELECTION_VALIDATOR) == [
        "System-generated validator pointer arg types"]


def test_pointer_availability_validator_roles_are_tier2_with_fixed_dispatch() -> None:
    pcs = pcs_of(wl_arg("PRIMARY_LIST_POINTER", "SYSTEM", rpi=1), wl_arg("FIXED_DISPATCH", "STATIC"))
    assert check(pcs, DeviceCaps(Tier=TIER_1), ROLE_PRIMARY_LIST_VALIDATOR) == ["GPU Timeline Validation Hooks"]
    pcs = pcs_of(wl_arg("PRIMARY_LIST_POINTER", "SYSTEM", rpi=1), wl_arg("DISPATCH"))
    assert check(pcs, role=ROLE_PRIMARY_LIST_VALIDATOR) == ["Binding the validation program table"]


def test_pointer_availability_program_table_pointer_not_on_raytracing() -> None:
    pcs = pcs_of(wl_arg("PROGRAM_TABLE_POINTER", "SYSTEM", rpi=1), wl_arg("DISPATCH_RAYS_DIMENSIONS"))
    assert check(pcs) == ["_PROGRAM_TABLE_POINTER"]
    pcs = pcs_of(wl_arg("PRIMARY_RECORD_POINTER", "SYSTEM", rpi=1), wl_arg("DISPATCH_RAYS_DIMENSIONS"))
    assert check(pcs) == []


def test_pointer_availability_secondary_record_pointer_not_on_fully_inline() -> None:
    pcs = pcs_of(wl_arg("SECONDARY_RECORD_POINTER", "SYSTEM", rpi=1), wl_arg("DISPATCH"))
    assert check(pcs) == ["_SECONDARY_RECORD_POINTER"]
    pcs = pcs_of(wl_arg("SECONDARY_RECORD_POINTER", "SYSTEM", rpi=1), wl_arg("DISPATCH_RAYS_DIMENSIONS",
                                                                             "SECONDARY_RECORD"))
    assert check(pcs) == []


# --- numbered rules ---------------------------------------------------------------------------------------------------


def test_rule_16_dispatch_rays_supported() -> None:
    assert check(rt_base(), DeviceCaps(Tier=TIER_2, DispatchRaysSupported=False)) == ["rule 16"]


def test_rule_21_raytracing_no_local_binding() -> None:
    pcs = pcs_of(wl_arg("SHADER_RESOURCE_VIEW", binding="LOCAL_ROOT_SIGNATURE", rpi=0),
                 wl_arg("DISPATCH_RAYS_DIMENSIONS"))
    assert check(pcs) == ["rule 21"]


def test_rule_21_raytracing_no_inline_local_root_signature_args() -> None:
    pcs = pcs_of(inline_param("PRIMARY_RECORD"), inline_sampler(), wl_arg("DISPATCH_RAYS_DIMENSIONS"))
    assert check(pcs) == ["rule 21", "rule 21"]


def test_rule_22_no_mixing_inline_and_explicit_local_paths() -> None:
    pcs = culling_example()
    pcs.pArgumentDescs.insert(0, wl_arg("CONSTANT", binding="LOCAL_ROOT_SIGNATURE", rpi=0, num=1))
    assert "rule 22" in check(pcs)


def test_rule_23a_non_constant_slot_takes_single_inline_arg() -> None:
    pcs = pcs_of(inline_param("PRIMARY_RECORD", "CBV", register=2), inline_param("SECONDARY_RECORD", "CBV", register=2),
                 wl_arg("DISPATCH"))
    assert check(pcs) == ["rule 23(a)"]


def test_rule_23a_shared_constants_slot_needs_identical_content() -> None:
    ok = pcs_of(inline_param("PROGRAM_TABLE_RECORD", size=8, dest=0, num=4),
                inline_param("PRIMARY_RECORD", size=8, dest=4, num=4), wl_arg("DISPATCH"))
    assert check(ok) == []
    bad = pcs_of(inline_param("PROGRAM_TABLE_RECORD", size=8, dest=0, num=4),
                 inline_param("PRIMARY_RECORD", size=8, dest=4, num=4), wl_arg("DISPATCH"))
    bad.pArgumentDescs[1].InlineRootParameter.RootParameter.Constants.ShaderRegister = 0
    bad.pArgumentDescs[1].InlineRootParameter.RootParameter.Constants.Num32BitValues = 8
    bad.pArgumentDescs[0].InlineRootParameter.RootParameter.Constants.Num32BitValues = 9  # same slot key, other size
    assert "rule 23(a)" in check(bad)


def test_rule_23b_one_inline_static_sampler_per_register() -> None:
    pcs = pcs_of(inline_sampler(register=3), inline_sampler(register=3), wl_arg("DISPATCH"))
    assert check(pcs) == ["rule 23(b)"]
    assert check(pcs_of(inline_sampler(register=3), inline_sampler(register=3, space=2), wl_arg("DISPATCH"))) == []


def test_rule_23c_inline_root_parameter_visibility_all() -> None:
    pcs = pcs_of(inline_param("PRIMARY_RECORD", visibility="PIXEL"), wl_arg("DISPATCH"))
    assert check(pcs) == ["rule 23(c)"]


def test_inline_static_sampler_visibility_all() -> None:
    assert check(pcs_of(inline_sampler(visibility="PIXEL"), wl_arg("DISPATCH"))) == ["_INLINE_STATIC_SAMPLER"]


def test_rule_23d_inline_static_sampler_source_static() -> None:
    assert check(pcs_of(inline_sampler(source="PRIMARY_RECORD"), wl_arg("DISPATCH"))) == ["rule 23(d)"]


def test_rule_23e_inline_constants_sub_range() -> None:
    assert check(pcs_of(inline_param("PRIMARY_RECORD", size=4, dest=2, num=3), wl_arg("DISPATCH"))) == ["rule 23(e)"]
    assert check(pcs_of(inline_param("PRIMARY_RECORD", size=4, dest=0, num=0), wl_arg("DISPATCH"))) == ["rule 23(e)"]


def test_inline_root_parameter_non_constants_offsets_zero() -> None:
    pcs = pcs_of(inline_param("PRIMARY_RECORD", "SRV"), wl_arg("DISPATCH"))
    pcs.pArgumentDescs[0].InlineRootParameter.Num32BitValuesToSet = 1
    assert check(pcs) == ["_INLINE_ROOT_PARAMETER"]


def test_rule_23f_shared_constants_slot_adjacent_ascending_no_overlap() -> None:
    first, second = inline_param("PROGRAM_TABLE_RECORD", size=8, dest=0, num=4), inline_param("PRIMARY_RECORD",
                                                                                              size=8, dest=4, num=4)
    assert check(pcs_of(second, first, wl_arg("DISPATCH"))) == ["rule 23(f)"]  # descending
    assert check(pcs_of(first, wl_arg("DISPATCH"), second)) == ["rule 23(f)"]  # not adjacent
    overlap = inline_param("PRIMARY_RECORD", size=8, dest=3, num=4)
    assert check(pcs_of(first, overlap, wl_arg("DISPATCH"))) == ["rule 23(f)"]


def test_rule_24a_sorted_by_root_parameter_index_within_each_binding() -> None:
    pcs = pcs_of(wl_arg("SHADER_RESOURCE_VIEW", rpi=2), wl_arg("CONSTANT_BUFFER_VIEW", rpi=1), wl_arg("DISPATCH"))
    v = check_program_command_signature(pcs, CAPS)
    assert rules_of(v) == ["rule 24(a)"]
    assert v[0].path == "program_command_signatures.PCS.pArgumentDescs[1].ConstantBufferView.RootParameterIndex"
    # the two Binding scopes sort independently and may interleave
    pcs = pcs_of(wl_arg("CONSTANT_BUFFER_VIEW", rpi=1), wl_arg("CONSTANT", binding="LOCAL_ROOT_SIGNATURE", rpi=0, num=1),
                 wl_arg("SHADER_RESOURCE_VIEW", rpi=2), wl_arg("DISPATCH"))
    assert check(pcs) == []


def test_rule_24b_single_arg_per_non_constants_slot() -> None:
    pcs = pcs_of(wl_arg("CONSTANT_BUFFER_VIEW", rpi=1), wl_arg("CONSTANT_BUFFER_VIEW", "SECONDARY_RECORD", rpi=1),
                 wl_arg("DISPATCH"), stride=8)
    assert check(pcs) == ["rule 24(b)"]


def test_rule_24c_constants_slot_sub_updates_adjacent_ascending_no_overlap() -> None:
    ok = pcs_of(wl_arg("CONSTANT", rpi=0, dest=0, num=2), wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0, dest=2),
                wl_arg("CONSTANT", rpi=0, dest=3, num=1), wl_arg("DISPATCH"))
    assert check(ok) == []
    overlap = pcs_of(wl_arg("CONSTANT", rpi=0, dest=0, num=2), wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0, dest=1),
                     wl_arg("DISPATCH"))
    assert check(overlap) == ["rule 24(c)"]
    descending = pcs_of(wl_arg("CONSTANT", rpi=0, dest=2, num=2), wl_arg("CONSTANT", rpi=0, dest=0, num=2),
                        wl_arg("DISPATCH"))
    assert check(descending) == ["rule 24(c)"]
    apart = pcs_of(wl_arg("CONSTANT", rpi=0, dest=0, num=2), wl_arg("DISPATCH"), wl_arg("CONSTANT", rpi=0, dest=2,
                                                                                        num=2))
    assert check(apart) == ["rule 24(c)"]


def test_rule_25a_constant_sizing() -> None:
    assert check(pcs_of(wl_arg("CONSTANT", rpi=0, num=0), wl_arg("DISPATCH"))) == ["rule 25(a)"]
    assert check(pcs_of(wl_arg("CONSTANT", rpi=0, dest=2, num=3), wl_arg("DISPATCH"))) == ["rule 25(a)"]
    assert check(pcs_of(wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=5, dest=2), wl_arg("DISPATCH"))) == ["rule 25(a)"]
    assert check(pcs_of(wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=5, dest=1), wl_arg("DISPATCH"))) == []


def test_rule_25b_root_parameter_index_in_range_and_type_matches() -> None:
    v = check_program_command_signature(pcs_of(wl_arg("UNORDERED_ACCESS_VIEW", rpi=9), wl_arg("DISPATCH")), CAPS)
    assert rules_of(v) == ["rule 25(b)"] and "out of range" in v[0].message
    v = check_program_command_signature(pcs_of(wl_arg("DESCRIPTOR_TABLE", rpi=1), wl_arg("DISPATCH")), CAPS)
    assert rules_of(v) == ["rule 25(b)"] and "DESCRIPTOR_TABLE" in v[0].message
    assert check(pcs_of(wl_arg("PRIMARY_RECORD_POINTER", "SYSTEM", rpi=4), wl_arg("DISPATCH"))) == ["rule 25(b)"]


def test_rule_25b_vertex_buffer_slot_range() -> None:
    assert check(pcs_of(wl_arg("VERTEX_BUFFER_VIEW", slot=32), wl_arg("DRAW"))) == ["rule 25(b)"]
    assert check(pcs_of(wl_arg("VERTEX_BUFFER_VIEW", slot=31), wl_arg("DRAW"))) == []


def test_rule_25c_ia_args_per_class() -> None:
    assert check(pcs_of(wl_arg("VERTEX_BUFFER_VIEW"), wl_arg("DISPATCH"))) == ["rule 25(c)"]
    assert check(pcs_of(wl_arg("INDEX_BUFFER_VIEW"), wl_arg("DISPATCH_RAYS_DIMENSIONS"))) == ["rule 25(c)"]
    assert check(pcs_of(wl_arg("INDEX_BUFFER_VIEW"), wl_arg("DRAW"))) == ["rule 25(c)"]
    assert check(pcs_of(wl_arg("INDEX_BUFFER_VIEW"), wl_arg("DRAW_INDEXED"))) == []
    assert check(pcs_of(wl_arg("INDEX_BUFFER_VIEW"), wl_arg("INDEX_BUFFER_VIEW"), wl_arg("DRAW_INDEXED"))) == [
        "rule 25(c)"]


def test_rule_25d_vertex_buffer_slot_unique() -> None:
    pcs = pcs_of(wl_arg("VERTEX_BUFFER_VIEW", slot=3), wl_arg("VERTEX_BUFFER_VIEW", slot=3), wl_arg("DRAW"))
    assert check(pcs) == ["rule 25(d)"]


def test_rule_25e_secondary_record_byte_stride() -> None:
    pcs = culling_example()
    for stride, ok in ((24, True), (0, True), (32, True), (16, False), (28, False)):
        pcs.SecondaryRecordByteStride = stride
        assert check(pcs) == ([] if ok else ["rule 25(e)"]), stride
    pcs = compute_base()
    pcs.SecondaryRecordByteStride = 8  # no SECONDARY_RECORD arg: must be 0
    assert check(pcs) == ["rule 25(e)"]


def test_rule_26_global_root_signature_required_for_global_args() -> None:
    pcs = compute_base()
    pcs.pGlobalRootSignature = None
    assert check(pcs) == ["rule 26"]
    assert check(ProgramCommandSignature("PCS", [wl_arg("DISPATCH")])) == []


def test_rule_27_fully_inline_raytracing_takes_no_record_validator() -> None:
    pcs = rt_base()
    pcs.RecordValidationProgramTableIndex = 3
    assert check(pcs) == ["rule 27"]
    hybrid = pcs_of(wl_arg("SHADER_RESOURCE_VIEW", rpi=2), wl_arg("DISPATCH_RAYS_DIMENSIONS", "SECONDARY_RECORD"))
    hybrid.RecordValidationProgramTableIndex = 3
    assert check(hybrid) == []
    inline_compute = compute_base()
    inline_compute.RecordValidationProgramTableIndex = 3
    assert check(inline_compute) == []


def test_record_validation_index_zero_at_tier1() -> None:
    pcs = compute_base()
    pcs.RecordValidationProgramTableIndex = 1
    assert check(pcs, DeviceCaps(Tier=TIER_1)) == ["D3D12_PROGRAM_COMMAND_SIGNATURE_DESC"]


def test_incrementing_constant_at_most_one_per_signature() -> None:
    pcs = pcs_of(wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0, dest=0),
                 wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0, dest=1), wl_arg("DISPATCH"))
    assert check(pcs) == ["Incrementing constant semantics"]


def test_all_violations_of_one_signature_are_reported() -> None:
    pcs = pcs_of(wl_arg("SHADER_RESOURCE_VIEW", rpi=2),
                 wl_arg("CONSTANT_BUFFER_VIEW", rpi=1),                      # rule 24(a)
                 wl_arg("INCREMENTING_CONSTANT", "PRIMARY_RECORD", rpi=0),  # _INCREMENTING_CONSTANT, rule 24(a)
                 wl_arg("VERTEX_BUFFER_VIEW"),                               # rule 25(c) (compute)
                 wl_arg("FIXED_DISPATCH", "STATIC", grid=(0, 1, 1)),        # _FIXED_DISPATCH
                 stride=8)                                                   # rule 25(e)
    v = check_program_command_signature(pcs, CAPS)
    assert sorted(rules_of(v)) == sorted(["rule 24(a)", "rule 24(a)", "_INCREMENTING_CONSTANT", "rule 25(c)",
                                          "_FIXED_DISPATCH", "rule 25(e)"])
    assert {x.arg for x in v} == {1, 2, 3, 4, None}
    assert all(str(x).startswith("program_command_signatures.PCS") for x in v)


def test_stride_is_still_checked_when_the_trigger_count_is_wrong() -> None:
    """Every violation is reported, not only the first: two dispatch triggers ("Supported argument types") do not
    hide a secondary stride below the minimum (rule 25(e)); the secondary record's bytes do not depend on the
    executable class."""
    pcs = pcs_of(wl_arg("SHADER_RESOURCE_VIEW", "SECONDARY_RECORD", rpi=0), wl_arg("DRAW"), wl_arg("DISPATCH"),
                 stride=4)
    rules = rules_of(check_program_command_signature(pcs, CAPS))
    assert "Supported argument types" in rules
    assert rules.count("rule 25(e)") == 2  # below the minimum 8, and not a multiple of 8
