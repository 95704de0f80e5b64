"""GPU Timeline Validation Hooks (d3d12wl.executor.validation) in the reference executor.

Each test names the spec paragraph it proves: "Validator invocation order and barriers" (the ten steps per list),
"Validator defensive neutralization patterns" (the four levels), "Binding the validation program table" (array
bind + non-null table only; slot 0 = none), "System-generated validator pointer arg types" (what each validator
area is bound), "Validation hooks in continuation chains" (per-list repetition with each list's own signature).
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from executor_builder import (
    CONT,
    Scene,
    arg,
    constants_param,
    dispatch,
    dispatch_input1,
    draw,
    identifier,
    primary,
    program,
    program_table,
    root_signature,
    secondaries,
    view_param,
)

from d3d12wl import abi
from d3d12wl.executor import run_dispatch_list
from d3d12wl.executor.trace import Trace
from d3d12wl.executor.validation import (
    AREA_POINTERS,
    AREA_PRIMARY_LIST,
    AREA_SECONDARY_LIST,
    AREA_SIGNATURE_SELECTION,
    ValidationRunner,
    Validator,
    ValidatorCall,
    validation_program_table,
    validator_pcs,
)
from d3d12wl.model.objects import ConstantArg, ProgramCommandSignature, RootParameterIndexArg, WorkListSignature
from d3d12wl.model.state import DispatchListCall, GpuVirtualAddressRangeAndStride, ProgramTableBinding, RootArgument
from d3d12wl.records.layout import pcs_layout

INPUT1 = "D3D12_DISPATCH_LIST_INPUT1"
LIST_VA = 0x1000  # list i at LIST_VA + 0x100 * i
REC_VA = 0x10000  # list i's primary records at REC_VA + 0x1000 * i
SEC_VA = 0x30000
TABLE_A = 0x40000  # compute programs
TABLE_B = 0x41000  # graphics programs
VT_VA = 0x50000  # the validation program table

# validation-program-table slots (slot 0 is the reserved "no validator" sentinel)
SS, PL, PL_G, SL, UNKNOWN = 1, 2, 3, 4, 5
VALIDATOR_IDS = {SS: identifier(201), PL: identifier(202), PL_G: identifier(203), SL: identifier(204),
                 UNKNOWN: identifier(299)}
NUM_SLOTS = 6

GRS = root_signature("GRS", constants_param(1), view_param("SRV"))


def header_offset(member: str) -> int:
    return abi.offsetof(INPUT1, member)


def u32(call: ValidatorCall, va: int) -> int:
    return call.memory.read_u32(va)


class Setup:
    """Two signatures in one array: 0 compute (one inline PCS), 1 graphics (a hybrid and an inline PCS), each
    paired with its own program table; a validation program table at VT_VA."""

    def __init__(self) -> None:
        self.s = Scene()
        self.compute = ProgramCommandSignature("PCS_compute", [
            arg("CONSTANT", Constant=ConstantArg(0, 0, 1)), arg("DISPATCH")], pGlobalRootSignature=GRS)
        self.hybrid = ProgramCommandSignature("PCS_hybrid", [
            arg("SHADER_RESOURCE_VIEW", "SECONDARY_RECORD", ShaderResourceView=RootParameterIndexArg(1)),
            arg("DRAW", "SECONDARY_RECORD")], SecondaryRecordByteStride=32, pGlobalRootSignature=GRS)
        self.inline = ProgramCommandSignature("PCS_inline", [
            arg("CONSTANT", Constant=ConstantArg(0, 0, 1)), arg("DRAW")], pGlobalRootSignature=GRS)
        self.p_compute = program("compute", 1, self.compute)
        self.p_hybrid = program("hybrid", 2, self.hybrid)
        self.p_inline = program("inline", 3, self.inline)
        self.s.add_programs(self.p_compute, self.p_hybrid, self.p_inline)
        self.s.put(TABLE_A, program_table([(self.p_compute, {})], 32))
        self.s.put(TABLE_B, program_table([(self.p_hybrid, {}), (self.p_inline, {})], 32))
        self.wls_c = WorkListSignature("WLS_compute", [self.compute])
        self.wls_g = WorkListSignature("WLS_graphics", [self.hybrid, self.inline])
        self.s.bind_array("ARR", [(self.wls_c, Scene.binding(TABLE_A, 32, 1)), (self.wls_g, Scene.binding(TABLE_B, 32, 2))])
        self.stride = max(pcs_layout(p).primary.min_stride for p in (self.compute, self.hybrid, self.inline))
        self.runner = ValidationRunner()
        self.bind_validation_table()
        # what no PCS sets of GRS comes from the command list, in both binding sets
        for args in (self.s.state.graphics_root_arguments, self.s.state.compute_root_arguments):
            args[0] = RootArgument("constants", values=[0x77])
            args[1] = RootArgument("descriptor", 0x5100)

    def bind_validation_table(self, slots: int = NUM_SLOTS) -> None:
        self.s.put(VT_VA, validation_program_table([VALIDATOR_IDS.get(i) for i in range(NUM_SLOTS)]))
        self.s.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding(
            GpuVirtualAddressRangeAndStride(VT_VA, 32 * slots, 32), slots)

    def validator(self, slot: int, area: str, fn: Callable[[ValidatorCall], None],
                  pointers: list[str] | None = None) -> None:
        self.runner.register(Validator(VALIDATOR_IDS[slot], fn, f"{area}@{slot}",
                                       validator_pcs(f"V{slot}", area, pointers)))

    # records -----------------------------------------------------------------------------------------------------
    def compute_records(self, i: int, n: int, tag: int = 1) -> int:
        start = REC_VA + 0x1000 * i
        self.s.put(start, b"".join(primary(self.compute, self.stride, ProgramTableIndex=0, arg0_Constant=[tag + k],
                                           arg1_Dispatch=dispatch(tag + k)) for k in range(n)))
        return start

    def hybrid_record(self, i: int, n_secondary: int, sec_va: int = SEC_VA) -> int:
        start = REC_VA + 0x1000 * i
        self.s.put(sec_va, secondaries(self.hybrid, [{"arg0_ShaderResourceView": 0x9000 + k,
                                                      "arg1_Draw": draw(3 + k)} for k in range(n_secondary)]))
        self.s.put(start, primary(self.hybrid, self.stride, ProgramTableIndex=0, NumSecondaryRecords=n_secondary,
                                  SecondaryRecords=sec_va))
        return start

    def list(self, i: int, n: int, start: int, signature: int, next_: int = 0) -> int:
        va = LIST_VA + 0x100 * i
        self.s.put(va, dispatch_input1(n, start, self.stride, CONT if next_ else 0, signature, next_))
        return va

    def run(self, hooks: ValidationRunner | None = None) -> Trace:
        call = DispatchListCall(LIST_VA, 16, 16, tier2=True)
        return run_dispatch_list(self.s.memory, self.s.device, self.s.objects, self.s.state, call,
                                 hooks=self.runner if hooks is None else hooks)


def areas(trace: Trace) -> list[tuple[str, int, int | None]]:
    return [(v.area, v.list_index, v.primary_index) for v in trace.validator_invocations]


# ----------------------------------------------------------------------------------------------------------------
# The four neutralization levels ("Validator defensive neutralization patterns")
# ----------------------------------------------------------------------------------------------------------------


def test_whole_list_primary_list_validator_zeroes_num_program_inputs():
    """"Whole list": a primary-list validator with a UAV header pointer writes NumProgramInputs = 0; the
    implementation re-reads the header (step 6) and processes no records."""
    t = Setup()
    t.list(0, 3, t.compute_records(0, 3), 0)
    t.wls_c.ListValidationProgramTableIndex = PL
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: c.memory.write_u32(
        c.pointer("DISPATCH_LIST_HEADER_POINTER") + header_offset("NumProgramInputs"), 0))
    assert len(t.run(ValidationRunner()).executions) == 3  # control: without the validator all three run
    trace = t.run()
    assert trace.executions == [] and trace.lists[0].header["NumProgramInputs"] == 0
    assert areas(trace) == [(AREA_PRIMARY_LIST, 0, None)]
    assert not trace.errors


def test_signature_selection_validator_clamps_signature_index_and_zeroes_the_list():
    """"Signature selection" (and area 1 "Signature-selection validation"): the validator range-checks
    SignatureIndex against NumBindings (delivered by the debug layer's tracking), clamps it to 0 and writes
    NumProgramInputs = 0; the header is re-read before selection (step 2), so selection lands on slot 0 and no
    record runs.  D3D12_DISPATCH_LIST_INPUT::NumProgramInputs: the neutralized list still follows its
    NextDispatchList."""
    t = Setup()
    t.list(0, 2, t.compute_records(0, 2), signature=7, next_=LIST_VA + 0x100)
    t.list(1, 1, t.compute_records(1, 1, tag=50), signature=0)

    def clamp(c: ValidatorCall) -> None:
        header = c.pointer("DISPATCH_LIST_HEADER_POINTER")
        assert header is not None
        if u32(c, header + header_offset("SignatureIndex")) >= c.tracking["NumBindings"]:
            c.memory.write_u32(header + header_offset("SignatureIndex"), 0)
            c.memory.write_u32(header + header_offset("NumProgramInputs"), 0)

    t.s.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = SS
    t.validator(SS, AREA_SIGNATURE_SELECTION, clamp)
    unvalidated = t.run(ValidationRunner())
    assert unvalidated.findings_of("signature-index-out-of-range")  # control: undefined behaviour without it
    trace = t.run()
    assert not trace.findings
    assert trace.lists[0].signature_index == 0 and trace.lists[0].primary_records == []
    assert [e.list_index for e in trace.executions] == [1]
    assert [(v.area, v.step, v.list_index, v.pointers) for v in trace.validator_invocations] == [
        (AREA_SIGNATURE_SELECTION, 1, 0, {"DISPATCH_LIST_HEADER_POINTER": LIST_VA}),
        (AREA_SIGNATURE_SELECTION, 1, 1, {"DISPATCH_LIST_HEADER_POINTER": LIST_VA + 0x100})]


def test_secondary_list_validator_truncates_num_secondary_records():
    """"One primary record's secondary list": a secondary-list validator writes NumSecondaryRecords on its
    primary record (PRIMARY_RECORD_POINTER); the implementation re-reads the record's fields (step 9)."""
    t = Setup()
    rec = t.hybrid_record(0, 3)
    t.list(0, 1, rec, 1)
    t.hybrid.RecordValidationProgramTableIndex = SL
    offset = pcs_layout(t.hybrid).primary.field("NumSecondaryRecords").offset
    t.validator(SL, AREA_SECONDARY_LIST, lambda c: c.memory.write_u32(c.pointer("PRIMARY_RECORD_POINTER") + offset, 1))
    trace = t.run()
    assert len(trace.executions) == 1 and trace.lists[0].primary_records[0].fields["NumSecondaryRecords"] == 1
    (inv,) = trace.validator_invocations
    assert inv.pointers == {"PRIMARY_RECORD_POINTER": rec, "SECONDARY_LIST_POINTER": SEC_VA}
    assert inv.root_arguments == {0: rec, 1: SEC_VA} and inv.step == 7


def test_per_execution_validator_zeroes_a_draws_counts_and_the_draw_still_executes():
    """"One per-execution invocation": zeroing a _DRAW's VertexCountPerInstance / InstanceCount through
    SECONDARY_LIST_POINTER; "The implementation still invokes the dispatch-trigger but the GPU produces no shader
    work"."""
    t = Setup()
    t.list(0, 1, t.hybrid_record(0, 3), 1)
    t.hybrid.RecordValidationProgramTableIndex = SL
    draw_field = pcs_layout(t.hybrid).secondary.field("arg1_Draw")

    def zero_record_1(c: ValidatorCall) -> None:
        va = c.pointer("SECONDARY_LIST_POINTER") + 1 * c.tracking["SecondaryRecordByteStride"] + draw_field.offset
        c.memory.write_u32(va + abi.offsetof("D3D12_DRAW_ARGUMENTS", "VertexCountPerInstance"), 0)
        c.memory.write_u32(va + abi.offsetof("D3D12_DRAW_ARGUMENTS", "InstanceCount"), 0)

    t.validator(SL, AREA_SECONDARY_LIST, zero_record_1)
    trace = t.run()
    assert [(e.secondary_index, e.trigger.fields["VertexCountPerInstance"], e.trigger.fields["InstanceCount"])
            for e in trace.executions] == [(0, 3, 1), (1, 0, 0), (2, 5, 1)]


# ----------------------------------------------------------------------------------------------------------------
# Pointer args ("System-generated validator pointer arg types", "_SECONDARY_LIST_POINTER")
# ----------------------------------------------------------------------------------------------------------------


def test_fully_inline_graphics_record_gets_a_null_secondary_list_pointer():
    """_SECONDARY_LIST_POINTER: "or null when that record is fully-inline"; area 3: for a fully-inline
    graphics-class signature "the validator runs once for that primary record"."""
    t = Setup()
    start = REC_VA
    t.s.put(SEC_VA, secondaries(t.hybrid, [{"arg1_Draw": draw(3)}]))
    t.s.put(start, primary(t.inline, t.stride, ProgramTableIndex=1, arg0_Constant=[1], arg1_Draw=draw(3))
            + primary(t.hybrid, t.stride, ProgramTableIndex=0, NumSecondaryRecords=1, SecondaryRecords=SEC_VA))
    t.list(0, 2, start, 1)
    t.inline.RecordValidationProgramTableIndex = SL
    t.hybrid.RecordValidationProgramTableIndex = SL
    seen: list[dict[str, int | None]] = []
    t.validator(SL, AREA_SECONDARY_LIST, lambda c: seen.append(dict(c.pointers)))
    trace = t.run()
    assert seen == [{"PRIMARY_RECORD_POINTER": start, "SECONDARY_LIST_POINTER": None},
                    {"PRIMARY_RECORD_POINTER": start + t.stride, "SECONDARY_LIST_POINTER": SEC_VA}]
    assert [v.primary_index for v in trace.validator_invocations] == [0, 1]
    assert len(trace.executions) == 2 and not trace.findings


def test_primary_list_validator_pointers_come_from_the_header_and_the_selected_binding():
    """Area 2 bindings: DISPATCH_LIST_HEADER_POINTER (the list's header), PROGRAM_TABLE_POINTER
    (pBindings[SignatureIndex].ProgramTable.StartAddress), PRIMARY_LIST_POINTER (the header's ProgramInputs)."""
    t = Setup()
    rec = t.hybrid_record(0, 1)
    t.list(0, 1, rec, 1)
    t.wls_g.ListValidationProgramTableIndex = PL
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: None)
    (inv,) = t.run().validator_invocations
    assert inv.pointers == {"DISPATCH_LIST_HEADER_POINTER": LIST_VA, "PROGRAM_TABLE_POINTER": TABLE_B,
                            "PRIMARY_LIST_POINTER": rec}
    assert inv.grid == [1, 1, 1] and inv.validator == f"{AREA_PRIMARY_LIST}@{PL}"


def test_signature_selection_validator_declaring_other_pointers_gets_them_null():
    """"the program command signature that SignatureSelectionValidationProgramTableIndex points at should declare
    only DISPATCH_LIST_HEADER_POINTER": the others have no value yet (finding, bound null)."""
    t = Setup()
    t.list(0, 1, t.compute_records(0, 1), 0)
    t.s.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = SS
    t.validator(SS, AREA_SIGNATURE_SELECTION, lambda c: None,
                ["DISPATCH_LIST_HEADER_POINTER", "PRIMARY_LIST_POINTER"])
    trace = t.run()
    assert trace.validator_invocations[0].pointers == {"DISPATCH_LIST_HEADER_POINTER": LIST_VA,
                                                       "PRIMARY_LIST_POINTER": None}
    assert [f.rule for f in trace.findings_of("validator-pointer-arg-unavailable")] == [
        "System-generated validator pointer arg types"]
    assert AREA_POINTERS[AREA_SIGNATURE_SELECTION] == ("DISPATCH_LIST_HEADER_POINTER",)
    assert AREA_POINTERS[AREA_SECONDARY_LIST] == ("PRIMARY_RECORD_POINTER", "SECONDARY_LIST_POINTER")


# ----------------------------------------------------------------------------------------------------------------
# Order ("Validator invocation order and barriers") and binding ("Binding the validation program table")
# ----------------------------------------------------------------------------------------------------------------


def test_steps_1_4_7_run_in_order_before_any_record_of_the_list():
    """Steps 1, 4, 7 in that order, all before step 10 (record processing)."""
    t = Setup()
    t.list(0, 1, t.hybrid_record(0, 2), 1)
    t.s.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = SS
    t.wls_g.ListValidationProgramTableIndex = PL
    t.hybrid.RecordValidationProgramTableIndex = SL
    for slot, area in ((SS, AREA_SIGNATURE_SELECTION), (PL, AREA_PRIMARY_LIST), (SL, AREA_SECONDARY_LIST)):
        t.validator(slot, area, lambda c: None)
    trace = t.run()
    assert [(v.step, v.area, v.executions_before) for v in trace.validator_invocations] == [
        (1, AREA_SIGNATURE_SELECTION, 0), (4, AREA_PRIMARY_LIST, 0), (7, AREA_SECONDARY_LIST, 0)]
    assert [v.sequence for v in trace.validator_invocations] == [0, 1, 2] and len(trace.executions) == 2


def test_direct_bind_runs_no_validators_whatever_the_index_fields_say():
    """"When binding via the direct-bind path (D3D12_SET_WORK_LIST_DESC, no ValidationProgramTable field), no
    validators are invoked regardless of any index fields the signature carries"."""
    t = Setup()
    t.list(0, 1, t.hybrid_record(0, 2), 0)
    t.wls_g.ListValidationProgramTableIndex = PL
    t.hybrid.RecordValidationProgramTableIndex = SL
    called: list[str] = []
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: called.append("pl"))
    t.validator(SL, AREA_SECONDARY_LIST, lambda c: called.append("sl"))
    t.s.bind(t.wls_g, TABLE_B, 32, 2)
    trace = t.run()
    assert called == [] and trace.validator_invocations == [] and len(trace.executions) == 2


def test_null_validation_program_table_runs_no_validators():
    """"When ValidationProgramTable is null on D3D12_SET_WORK_LIST_DESC1, the implementation ignores all
    validation index fields on the bound signatures; no validators are invoked"."""
    t = Setup()
    t.list(0, 1, t.compute_records(0, 1), 0)
    t.wls_c.ListValidationProgramTableIndex = PL
    t.s.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = SS
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: pytest.fail("validator ran"))
    t.validator(SS, AREA_SIGNATURE_SELECTION, lambda c: pytest.fail("validator ran"))
    t.s.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding()
    trace = t.run()
    assert trace.validator_invocations == [] and len(trace.executions) == 1


def test_slot_zero_is_no_validator_and_bad_slots_are_findings():
    """"Validation program table": slot 0 is the "no validator" sentinel; an index >= SlotCount and an
    identifier of no known validator program dispatch nothing and are findings."""
    t = Setup()
    t.list(0, 1, t.compute_records(0, 1), 0)
    t.wls_c.ListValidationProgramTableIndex = 0
    trace = t.run()
    assert trace.validator_invocations == [] and not trace.findings
    t.wls_c.ListValidationProgramTableIndex = UNKNOWN
    trace = t.run()
    assert [f.kind for f in trace.findings] == ["unknown-validator-identifier"] and len(trace.executions) == 1
    t.wls_c.ListValidationProgramTableIndex = NUM_SLOTS
    trace = t.run()
    assert [f.kind for f in trace.findings] == ["validator-index-out-of-range"]


def test_validator_writing_a_read_only_region_is_a_fault():
    """"Validator defensive neutralization patterns": write-back needs a UAV (writable) binding; a write to
    read-only memory faults, is a finding, and the list runs as it stands."""
    t = Setup()
    start = REC_VA + 0x8000
    t.s.memory.map(start, bytes(primary(t.compute, t.stride, ProgramTableIndex=0, arg1_Dispatch=dispatch(1))),
                   name="read-only records")
    t.list(0, 1, start, 0)
    t.wls_c.ListValidationProgramTableIndex = PL
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: c.memory.write_u32(c.pointer("PRIMARY_LIST_POINTER"), 9))
    trace = t.run()
    assert [f.kind for f in trace.findings] == ["validator-fault"] and len(trace.executions) == 1


# ----------------------------------------------------------------------------------------------------------------
# Continuation chains ("Validation hooks in continuation chains")
# ----------------------------------------------------------------------------------------------------------------


def test_chain_each_list_is_validated_by_the_validators_its_own_signature_selects():
    """"Each list in a continuation chain triggers its own set of validators based on the signature it selects via
    SignatureIndex"; a cross-class chain gets per-class validation (compute list -> compute validators, graphics
    list -> graphics validators); the table binding persists for the whole chain."""
    t = Setup()
    t.list(0, 1, t.compute_records(0, 1), 0, next_=LIST_VA + 0x100)
    t.list(1, 1, t.hybrid_record(1, 2), 1, next_=LIST_VA + 0x200)
    t.list(2, 2, t.compute_records(2, 2), 0)
    t.wls_c.ListValidationProgramTableIndex = PL
    t.wls_g.ListValidationProgramTableIndex = PL_G
    t.hybrid.RecordValidationProgramTableIndex = SL
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: None)
    t.validator(PL_G, AREA_PRIMARY_LIST, lambda c: None)
    t.validator(SL, AREA_SECONDARY_LIST, lambda c: None)
    trace = t.run()
    assert [(v.list_index, v.slot, v.pointers.get("DISPATCH_LIST_HEADER_POINTER"),
             v.pointers.get("PROGRAM_TABLE_POINTER"), v.executions_before) for v in trace.validator_invocations] == [
        (0, PL, LIST_VA, TABLE_A, 0),
        (1, PL_G, LIST_VA + 0x100, TABLE_B, 1),
        (1, SL, None, None, 1),
        (2, PL, LIST_VA + 0x200, TABLE_A, 3)]
    assert [e.list_index for e in trace.executions] == [0, 1, 1, 2, 2] and not trace.findings


def test_a_corrupted_continuation_list_is_neutralized_before_any_of_its_records_run():
    """Issue 6 "Done when" and "Validator invocation order and barriers": "Each list in the chain gets its own full
    structural validation ... before any of its own records execute"; with "Whole list" neutralization a corrupted
    continuation (records past mapped memory, program-table indices out of range) never reaches record
    execution, while the list before it runs in full."""
    t = Setup()
    t.list(0, 2, t.compute_records(0, 2), 0, next_=LIST_VA + 0x100)
    bad = REC_VA + 0x1000
    t.s.put(bad, primary(t.compute, t.stride, ProgramTableIndex=0x00BADBAD, arg1_Dispatch=dispatch(0xFFFF)))
    t.s.put(LIST_VA + 0x100, dispatch_input1(1000, bad, t.stride, 0, 0, 0))  # producer wrote a bad count
    t.wls_c.ListValidationProgramTableIndex = PL

    def structural(c: ValidatorCall) -> None:
        """Neutralize a list whose records do not fit the bound table or lie outside mapped memory."""
        header = c.pointer("DISPATCH_LIST_HEADER_POINTER")
        n = u32(c, header + header_offset("NumProgramInputs"))
        stride = u32(c, header + header_offset("ProgramInputs.StrideInBytes"))
        slots = c.tracking["binding"].ProgramTable.SlotCount
        for i in range(n):
            va = c.pointer("PRIMARY_LIST_POINTER") + i * stride
            region = c.memory.region_at(va)
            if region is None or not region.contains(va, stride) or u32(c, va) >= slots:
                c.memory.write_u32(header + header_offset("NumProgramInputs"), 0)
                return

    unvalidated = t.run(ValidationRunner())
    assert {"program-table-index-out-of-range"} <= {f.kind for f in unvalidated.findings}  # control
    t.validator(PL, AREA_PRIMARY_LIST, structural)
    trace = t.run()
    assert not trace.findings
    assert [(v.list_index, v.executions_before) for v in trace.validator_invocations] == [(0, 0), (1, 2)]
    assert [e.list_index for e in trace.executions] == [0, 0]
    assert trace.lists[1].header["NumProgramInputs"] == 0 and trace.lists[1].primary_records == []


# ----------------------------------------------------------------------------------------------------------------
# Raytracing-class lists
# ----------------------------------------------------------------------------------------------------------------


def test_raytracing_secondary_validator_fires_only_for_hybrid_records():
    """Area 3: "for raytracing-class ... the validator fires once per raytracing-class hybrid primary record over
    that record's secondary list"; a fully-inline raytracing signature can never invoke it (rule 27).  Area 2:
    PROGRAM_TABLE_POINTER applies to graphics/compute only; a raytracing list has no program table (bound null)."""
    from d3d12wl.model.state import RaytracingBinding

    t = Setup()
    rt_hybrid = ProgramCommandSignature("PCS_rt_hybrid", [
        arg("SHADER_RESOURCE_VIEW", "SECONDARY_RECORD", ShaderResourceView=RootParameterIndexArg(1)),
        arg("DISPATCH_RAYS_DIMENSIONS", "SECONDARY_RECORD")], SecondaryRecordByteStride=24, pGlobalRootSignature=GRS,
        RecordValidationProgramTableIndex=SL)
    rt_inline = ProgramCommandSignature("PCS_rt_inline", [arg("DISPATCH_RAYS_DIMENSIONS")], pGlobalRootSignature=GRS,
                                        RecordValidationProgramTableIndex=SL)
    rt = Scene.binding(raytracing=RaytracingBinding("RTPSO"))
    wls_h, wls_i = WorkListSignature("WLS_rt_h", [rt_hybrid]), WorkListSignature("WLS_rt_i", [rt_inline])
    wls_h.ListValidationProgramTableIndex = PL
    t.s.bind_array("ARR", [(wls_h, rt), (wls_i, rt)])
    t.bind_validation_table()
    stride = 16
    t.s.put(SEC_VA, secondaries(rt_hybrid, [{"arg1_DispatchRaysDimensions": {"Width": 4, "Height": 1, "Depth": 1}}]))
    t.s.put(REC_VA, b"".join(primary(rt_hybrid, stride, NumSecondaryRecords=1, SecondaryRecords=SEC_VA)
                             for _ in range(2)))
    t.s.put(REC_VA + 0x1000, primary(rt_inline, stride, arg0_DispatchRaysDimensions={"Width": 2, "Height": 1,
                                                                                      "Depth": 1}))
    t.s.put(LIST_VA, dispatch_input1(2, REC_VA, stride, CONT, 0, LIST_VA + 0x100))
    t.s.put(LIST_VA + 0x100, dispatch_input1(1, REC_VA + 0x1000, stride, 0, 1, 0))
    t.validator(PL, AREA_PRIMARY_LIST, lambda c: None)
    t.validator(SL, AREA_SECONDARY_LIST, lambda c: None)
    trace = t.run()
    assert [(v.area, v.list_index, v.primary_index, v.pointers) for v in trace.validator_invocations] == [
        (AREA_PRIMARY_LIST, 0, None, {"DISPATCH_LIST_HEADER_POINTER": LIST_VA, "PROGRAM_TABLE_POINTER": None,
                                      "PRIMARY_LIST_POINTER": REC_VA}),
        (AREA_SECONDARY_LIST, 0, 0, {"PRIMARY_RECORD_POINTER": REC_VA, "SECONDARY_LIST_POINTER": SEC_VA}),
        (AREA_SECONDARY_LIST, 0, 1, {"PRIMARY_RECORD_POINTER": REC_VA + stride, "SECONDARY_LIST_POINTER": SEC_VA})]
    assert [e.list_index for e in trace.executions] == [0, 0, 1] and not trace.findings
