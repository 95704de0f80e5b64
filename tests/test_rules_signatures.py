"""CreateWorkListSignature, CreateWorkListSignatureArray and state-object-creation rules, check_objects, and property
tests that generated valid signatures validate clean."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from strategies import (
    PERMISSIVE_CAPS,
    TIER_1,
    TIER_2,
    culling_example,
    ev,
    root_param,
    root_signature,
    valid_pcs,
    valid_work_list_signature,
    wl_arg,
)
from test_rules_pcs import grs4, pcs_of, rules_of

from d3d12wl.model.objects import ObjectSet, Program, ProgramCommandSignature, WorkListSignature, WorkListSignatureArray
from d3d12wl.model.state import DeviceCaps
from d3d12wl.rules import (
    ValidationError,
    check_objects,
    check_program_command_signature,
    check_programs,
    check_signature_array,
    check_work_list_signature,
    validate,
)

CAPS = PERMISSIVE_CAPS


def wls_of(*pcses: ProgramCommandSignature, name: str = "WLS", mask: int = 0) -> WorkListSignature:
    return WorkListSignature(name, list(pcses), mask)


def wcheck(wls: WorkListSignature, caps: DeviceCaps = CAPS) -> list[str]:
    return rules_of(check_work_list_signature(wls, caps))


def compute(name: str, grs=None, *extra) -> ProgramCommandSignature:  # noqa: ANN001
    return pcs_of(wl_arg("CONSTANT", rpi=0, num=4), *extra, wl_arg("DISPATCH"), name=name, grs=grs)


def graphics(name: str, grs=None, *extra) -> ProgramCommandSignature:  # noqa: ANN001
    return pcs_of(wl_arg("CONSTANT", rpi=0, num=4), *extra, wl_arg("DRAW"), name=name, grs=grs)


def raytracing(name: str, grs=None) -> ProgramCommandSignature:  # noqa: ANN001
    return pcs_of(wl_arg("CONSTANT", rpi=0, num=4), wl_arg("DISPATCH_RAYS_DIMENSIONS"), name=name, grs=grs)


# --- CreateWorkListSignature --------------------------------------------------------------------------------------------


def test_work_list_signature_valid_bases() -> None:
    grs = grs4()
    assert wcheck(wls_of(culling_example())) == []
    assert wcheck(wls_of(compute("A", grs), compute("B", grs))) == []
    assert wcheck(wls_of(raytracing("R", grs))) == []


def test_work_list_signature_needs_at_least_one_pcs() -> None:
    assert wcheck(wls_of()) == ["D3D12_WORK_LIST_SIGNATURE_DESC"]


def test_work_list_signature_includes_each_pcs_violations_once() -> None:
    bad = pcs_of(wl_arg("DISPATCH"), wl_arg("DISPATCH"))
    assert wcheck(wls_of(bad, bad)) == ["Supported argument types"]


def test_uniformity_constraint_4_one_executable_class_per_work_list_signature() -> None:
    grs = grs4()
    v = check_work_list_signature(wls_of(compute("A", grs), graphics("B", grs)), CAPS)
    assert rules_of(v) == ["Uniformity constraint 4"]
    assert v[0].path == "work_list_signatures.WLS.pProgramCommandSignatures[1]"


def test_uniformity_constraint_5_exactly_one_pcs_per_raytracing_work_list_signature() -> None:
    grs = grs4()
    assert wcheck(wls_of(raytracing("R1", grs), raytracing("R2", grs))) == ["Uniformity constraint 5"]


def test_incrementing_constant_at_most_one_per_work_list_signature() -> None:
    grs = grs4()
    a = pcs_of(wl_arg("CONSTANT", rpi=0, num=3), wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0, dest=3),
               wl_arg("DISPATCH"), name="A", grs=grs)
    b = pcs_of(wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0, dest=0), wl_arg("DISPATCH"), name="B", grs=grs)
    assert wcheck(wls_of(a, compute("C", grs))) == []
    assert wcheck(wls_of(a, b)) == ["Incrementing constant semantics"]


def test_rule_7_shared_global_root_signature() -> None:
    v = check_work_list_signature(wls_of(compute("A", grs4()), compute("B", grs4())), CAPS)
    assert rules_of(v) == ["rule 7"]  # two objects with equal content are still two root signatures
    assert v[0].path == "work_list_signatures.WLS.pProgramCommandSignatures[1]"


def test_rule_7_null_global_root_signature_is_exempt() -> None:
    grs = grs4()
    bare = ProgramCommandSignature("Bare", [wl_arg("DISPATCH")])
    assert wcheck(wls_of(compute("A", grs), bare, compute("B", grs))) == ["rule 8"]  # Bare updates no parameter
    bare.pArgumentDescs.insert(0, wl_arg("CONSTANT", rpi=0, num=4))
    bare.pGlobalRootSignature = None
    assert "rule 7" not in wcheck(wls_of(compute("A", grs), bare))


def test_rule_8_identical_updated_global_parameters_within_a_class() -> None:
    grs = grs4()
    a = compute("A", grs, wl_arg("CONSTANT_BUFFER_VIEW", rpi=1))
    b = compute("B", grs)
    assert wcheck(wls_of(a, b)) == ["rule 8"]
    # different arg types for the same parameter are fine; local-binding args are program-local
    c = pcs_of(wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=0), wl_arg("PRIMARY_RECORD_POINTER", "SYSTEM", rpi=1),
               wl_arg("CONSTANT", binding="LOCAL_ROOT_SIGNATURE", rpi=0, num=1), wl_arg("DISPATCH"), name="C", grs=grs)
    assert wcheck(wls_of(a, c)) == []


def test_rule_9_identical_ia_slots_across_graphics_pcs() -> None:
    grs = grs4()
    a = graphics("A", grs, wl_arg("VERTEX_BUFFER_VIEW", slot=0))
    b = graphics("B", grs, wl_arg("VERTEX_BUFFER_VIEW", slot=1))
    c = graphics("C", grs, wl_arg("VERTEX_BUFFER_VIEW", slot=0))
    assert wcheck(wls_of(a, c)) == []
    assert wcheck(wls_of(a, b)) == ["rule 9"]
    d = pcs_of(wl_arg("CONSTANT", rpi=0, num=4), wl_arg("VERTEX_BUFFER_VIEW", slot=0), wl_arg("INDEX_BUFFER_VIEW"),
               wl_arg("DRAW_INDEXED"), name="D", grs=grs)
    assert wcheck(wls_of(a, d)) == ["rule 9"]


def test_list_validation_index_zero_at_tier1() -> None:
    wls = wls_of(compute("A", grs4()))
    wls.ListValidationProgramTableIndex = 2
    assert wcheck(wls, DeviceCaps(Tier=TIER_1)) == ["D3D12_WORK_LIST_SIGNATURE_DESC"]
    assert wcheck(wls, DeviceCaps(Tier=TIER_2)) == []


# --- CreateWorkListSignatureArray -------------------------------------------------------------------------------------


def acheck(arr: WorkListSignatureArray, caps: DeviceCaps = CAPS) -> list[str]:
    return rules_of(check_signature_array(arr, caps))


def test_signature_array_valid_cross_class_chain() -> None:
    grs = grs4()
    compute_wls = wls_of(compute("C", grs), name="CW")
    graphics_wls = wls_of(pcs_of(wl_arg("CONSTANT_BUFFER_VIEW", rpi=1), wl_arg("DRAW"), name="G", grs=grs), name="GW")
    rt_wls = wls_of(raytracing("R", grs), name="RW")
    # graphics touches another parameter set than compute/raytracing: independent binding sets
    assert acheck(WorkListSignatureArray("ARR", [compute_wls, graphics_wls, rt_wls, compute_wls])) == []


def test_signature_array_tier2_only_and_at_least_one_signature() -> None:
    arr = WorkListSignatureArray("ARR", [wls_of(compute("C", grs4()))])
    assert acheck(arr, DeviceCaps(Tier=TIER_1)) == ["CreateWorkListSignatureArray"]
    assert acheck(WorkListSignatureArray("ARR", [])) == ["D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC"]


def test_signature_array_rule_7_across_signatures() -> None:
    arr = WorkListSignatureArray("ARR", [wls_of(compute("A", grs4()), name="W0"),
                                         wls_of(compute("B", grs4()), name="W1")])
    v = check_signature_array(arr, CAPS)
    assert rules_of(v) == ["rule 7"]
    assert v[0].path == "work_list_signature_arrays.ARR.pSignatures[1].pProgramCommandSignatures[0]"


def test_signature_array_rule_8_compute_and_raytracing_share_the_compute_binding_set() -> None:
    grs = grs4()
    rt = pcs_of(wl_arg("CONSTANT_BUFFER_VIEW", rpi=1), wl_arg("DISPATCH_RAYS_DIMENSIONS"), name="R", grs=grs)
    arr = WorkListSignatureArray("ARR", [wls_of(compute("C", grs), name="W0"), wls_of(rt, name="W1")])
    assert acheck(arr) == ["rule 8"]


def test_signature_array_rule_9_across_signatures() -> None:
    grs = grs4()
    arr = WorkListSignatureArray("ARR", [wls_of(graphics("A", grs, wl_arg("VERTEX_BUFFER_VIEW", slot=0)), name="W0"),
                                         wls_of(graphics("B", grs), name="W1")])
    assert acheck(arr) == ["rule 9"]


def test_signature_array_reports_a_within_signature_violation_once() -> None:
    inner = wls_of(compute("A", grs4()), compute("B", grs4()))
    assert acheck(WorkListSignatureArray("ARR", [inner])) == ["rule 7"]


# --- state-object creation ----------------------------------------------------------------------------------------------


def objects_with(*programs: Program, wls: WorkListSignature | None = None) -> ObjectSet:
    o = ObjectSet(programs={p.name: p for p in programs})
    if wls is not None:
        o.work_list_signatures[wls.name] = wls
    return o


def test_programs_valid_base() -> None:
    pcs = culling_example()
    assert check_programs(objects_with(Program("Opaque", ProgramCommandSignature=pcs, ProgramKind="GRAPHICS",
                                               GlobalRootSignature=pcs.pGlobalRootSignature))) == []


def test_rule_1_program_command_signature_association() -> None:
    v = check_programs(objects_with(Program("P")))
    assert rules_of(v) == ["rule 1"] and v[0].path == "programs.P.ProgramCommandSignature"


def test_rule_2_program_global_root_signature_matches_pcs() -> None:
    pcs = culling_example()
    other = root_signature("Other", "CBV", "SRV")
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs,
                                                        GlobalRootSignature=other)))) == ["rule 2"]


def test_rule_3_program_kind_matches_dispatch_trigger() -> None:
    pcs = culling_example()  # DRAW: graphics programs
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs,
                                                        ProgramKind="COMPUTE")))) == ["rule 3"]
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs,
                                                        ProgramKind="MESH")))) == ["rule 3"]
    mesh = pcs_of(wl_arg("DISPATCH_MESH"), name="M")
    assert check_programs(objects_with(Program("P", ProgramCommandSignature=mesh, ProgramKind="MESH"))) == []


def test_rule_4_one_program_class_per_table_and_mesh_mix_needs_mask() -> None:
    grs = grs4()
    draw = graphics("D", grs)
    mesh = pcs_of(wl_arg("CONSTANT", rpi=0, num=4), wl_arg("DISPATCH_MESH"), name="M", grs=grs)
    vs, ps, ms = (ev("D3D12_PIPELINE_STATE_SUBOBJECT_MASK", m) for m in ("VS", "PS", "MS"))
    programs = (Program("Draw", ProgramCommandSignature=draw, ProgramKind="GRAPHICS"),
                Program("Mesh", ProgramCommandSignature=mesh, ProgramKind="MESH"))
    assert check_programs(objects_with(*programs, wls=wls_of(draw, mesh, mask=vs | ps | ms))) == []
    v = check_programs(objects_with(*programs, wls=wls_of(draw, mesh, mask=vs | ps)))
    assert rules_of(v) == ["rule 4"] and v[0].path == "work_list_signatures.WLS.SubobjectMask"
    comp = compute("C", grs)
    mixed = (Program("Draw", ProgramCommandSignature=draw, ProgramKind="GRAPHICS"),
             Program("Comp", ProgramCommandSignature=comp, ProgramKind="COMPUTE"))
    assert "rule 4" in rules_of(check_programs(objects_with(*mixed, wls=wls_of(draw, comp))))


def test_rule_22_explicit_local_root_signature_on_implicit_path_program() -> None:
    lrs = root_signature("LRS", "32BIT_CONSTANTS", local=True)
    v = check_programs(objects_with(Program("P", ProgramCommandSignature=culling_example(), LocalRootSignature=lrs)))
    assert rules_of(v) == ["rule 22"]


def test_local_root_signature_must_carry_the_local_flag() -> None:
    lrs = root_signature("LRS", "32BIT_CONSTANTS")
    pcs = pcs_of(wl_arg("DISPATCH"))
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs,
                                                        LocalRootSignature=lrs)))) == ["Local root signatures"]


def test_rule_25b_explicit_path_local_args_resolve_against_program_lrs() -> None:
    pcs = pcs_of(wl_arg("CONSTANT", binding="LOCAL_ROOT_SIGNATURE", rpi=0, dest=2, num=2),
                 wl_arg("SHADER_RESOURCE_VIEW", binding="LOCAL_ROOT_SIGNATURE", rpi=1), wl_arg("DISPATCH"))
    assert check_program_command_signature(pcs, CAPS) == []  # the LRS is not known at PCS creation
    good = root_signature("Good", "32BIT_CONSTANTS", "SRV", local=True)
    small = root_signature("Small", "32BIT_CONSTANTS", local=True)
    assert check_programs(objects_with(Program("P", ProgramCommandSignature=pcs, LocalRootSignature=good))) == []
    v = check_programs(objects_with(Program("P", ProgramCommandSignature=pcs, LocalRootSignature=small)))
    assert rules_of(v) == ["rule 25(b)"] and v[0].arg == 1
    assert "program_command_signatures.PCS.pArgumentDescs[1]" in v[0].message
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs)))) == ["rule 25(b)"]
    tiny = root_signature("Tiny", root_param("32BIT_CONSTANTS", 3), "SRV", local=True)
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs,
                                                        LocalRootSignature=tiny)))) == ["rule 25(a)"]


def test_rule_26_program_global_root_signature_in_scope_needs_pcs_grs() -> None:
    pcs = ProgramCommandSignature("PCS", [wl_arg("DISPATCH")])
    assert rules_of(check_programs(objects_with(Program("P", ProgramCommandSignature=pcs,
                                                        GlobalRootSignature=grs4())))) == ["rule 26"]


# --- check_objects / validate -------------------------------------------------------------------------------------------


def test_check_objects_reports_each_violation_once() -> None:
    bad = pcs_of(wl_arg("DISPATCH"), wl_arg("DISPATCH"))
    wls = wls_of(bad)
    objects = ObjectSet(program_command_signatures={"PCS": bad}, work_list_signatures={"WLS": wls},
                        work_list_signature_arrays={"ARR": WorkListSignatureArray("ARR", [wls, wls])})
    assert rules_of(check_objects(objects, CAPS)) == ["Supported argument types"]


def test_check_objects_infers_validator_role_for_pcs_outside_work_list_signatures() -> None:
    validator = pcs_of(wl_arg("SECONDARY_LIST_POINTER", "SYSTEM", rpi=1), wl_arg("FIXED_DISPATCH", "STATIC"),
                       name="V")
    assert check_objects(ObjectSet(program_command_signatures={"V": validator}), CAPS) == []
    wls = wls_of(validator)
    assert "System-generated validator pointer arg types" in rules_of(
        check_objects(ObjectSet(program_command_signatures={"V": validator}, work_list_signatures={"W": wls}), CAPS))


def test_check_objects_tier_not_supported() -> None:
    assert rules_of(check_objects(ObjectSet(), DeviceCaps())) == ["D3D12_WORK_LISTS_TIER"]


def test_validate_raises_with_every_violation() -> None:
    pcs = pcs_of(wl_arg("DISPATCH"), wl_arg("VERTEX_BUFFER_VIEW", slot=40))
    with pytest.raises(ValidationError) as info:
        validate(ObjectSet(program_command_signatures={"PCS": pcs}), CAPS)
    assert sorted(v.rule for v in info.value.violations) == ["rule 25(b)", "rule 25(c)"]
    validate(ObjectSet(program_command_signatures={"PCS": culling_example()}), CAPS)


# --- properties -----------------------------------------------------------------------------------------------------------

_PROPERTY = settings(max_examples=150, derandomize=True, deadline=None,
                     suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@_PROPERTY
@given(valid_pcs())
def test_property_generated_valid_pcs_validate_clean(g) -> None:  # noqa: ANN001
    assert check_program_command_signature(g.pcs, CAPS) == []


@_PROPERTY
@given(valid_work_list_signature())
def test_property_generated_valid_work_list_signatures_validate_clean(g) -> None:  # noqa: ANN001
    assert check_work_list_signature(g.wls, CAPS) == []
    objects = ObjectSet(program_command_signatures={p.name: p for p in g.pcses}, work_list_signatures={"WLS": g.wls},
                        work_list_signature_arrays={"ARR": WorkListSignatureArray("ARR", [g.wls, g.wls])})
    assert check_objects(objects, CAPS) == []
