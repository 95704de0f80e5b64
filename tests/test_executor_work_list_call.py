"""Call-time requirements of the Work Lists spec on a DispatchList / DispatchList1 call, its SetProgram state and its
buffers, that the executor checks (issue 14; the audit table "Audit: every requirement on a call" of
docs/executor.md names these tests).  Each test quotes the requirement in the spec's words, breaks it, and shows
the finding on both engines; a check that only adds a finding leaves the execution as it was (the hardware would
still read the bytes)."""

from __future__ import annotations

from typing import Any

from executor_builder import (
    CONT,
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    TINTS,
    E,
    Scene,
    arg,
    constants_param,
    culling_pcs,
    dispatch,
    dispatch_input,
    dispatch_input1,
    f32,
    hybrid_scene,
    identifier,
    primary,
    program,
    program_table,
    raytracing_scene,
    secondaries,
)
from test_executor_chains import Chain

from d3d12wl import abi
from d3d12wl.executor import run
from d3d12wl.executor.trace import Trace
from d3d12wl.model.objects import InlineRootParameter, ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import DispatchListCall, GpuVirtualAddressRangeAndStride, ProgramTableBinding, RootArgument
from d3d12wl.records.layout import pcs_layout, program_table_layout

VT_VA = 0x7000
IDENTIFIER = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")


def both(s: Scene, call: DispatchListCall, hooks: Any = None) -> Trace:
    """The call on both engines; their traces are identical (the reference one is returned)."""
    reference = run(s.memory, s.device, s.objects, s.state, call, hooks=hooks, engine="reference")
    columnar = run(s.memory, s.device, s.objects, s.state, call, hooks=hooks, engine="columnar")
    assert columnar.to_dict() == reference.to_dict()
    return reference


def kinds(trace: Trace) -> list[tuple[str, str]]:
    return [(f.kind, f.rule) for f in trace.findings]


def executions(trace: Trace) -> list[dict[str, Any]]:
    return [e.trigger.fields for e in trace.executions]


def hybrid_list(n: int = 3, tier2: bool = False, **input1: Any) -> tuple[Scene, ProgramCommandSignature,
                                                                         DispatchListCall]:
    """The one-program hybrid scene with ``n`` primary records of two DISPATCH secondary records each."""
    s, pcs = hybrid_scene()
    records = []
    for i in range(n):
        va = SECONDARY_VA + 0x100 * i
        s.put(va, secondaries(pcs, [{"arg0_Dispatch": dispatch(i + 1)}, {"arg0_Dispatch": dispatch(i + 2)}]))
        records.append(primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=2, SecondaryRecords=va))
    s.put(PRIMARY_VA, b"".join(records))
    stride = pcs_layout(pcs).primary.min_stride
    s.put(INPUT_VA, dispatch_input1(n, PRIMARY_VA, stride, **input1) if tier2 else dispatch_input(n, PRIMARY_VA, stride))
    return s, pcs, DispatchListCall(INPUT_VA, tier2=tier2)


# ----------------------------------------------------------------------------------------------------------------
# SetProgram state the call reads
# ----------------------------------------------------------------------------------------------------------------


def test_raytracing_binding_needs_a_non_null_pointer():
    """D3D12_WORK_LIST_BINDING::pRaytracing: "When Type == _RAYTRACING, non-null pointer to a
    D3D12_WORK_LIST_RAYTRACING_BINDING" (its own kind: binding-type-mismatch stays rule 17)."""
    s, call = raytracing_scene(True)
    assert not both(s, call).findings
    s.state.program.WorkList.Binding.pRaytracing = None
    trace = both(s, call)
    assert kinds(trace) == [("raytracing-binding-null", "D3D12_WORK_LIST_BINDING::pRaytracing")]
    assert not trace.executions and trace.lists[0].stopped


def test_null_validation_program_table_needs_zero_stride_and_slot_count():
    """D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable: "ValidationProgramTable.Table.StartAddress == 0 means no
    validation, in which case ByteStride and SlotCount must also be 0"."""
    c = Chain()
    c.chain(["compute"])
    assert not both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True)).findings
    c.s.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding(
        GpuVirtualAddressRangeAndStride(0, 0, IDENTIFIER), 4)
    trace = both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True))
    assert kinds(trace) == [("null-validation-program-table-nonzero", "D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable")]
    assert len(trace.executions) == 1  # only a finding


def test_validation_program_table_keeps_the_program_table_binding_member_rules():
    """D3D12_WORK_LIST_PROGRAM_TABLE_BINDING is "Used by: D3D12_SET_WORK_LIST_DESC1 - ValidationProgramTable
    member": a non-null ValidationProgramTable keeps its member rules ("Table.StrideInBytes must be 0 or at least
    sizeof(D3D12_PROGRAM_IDENTIFIER) = 32 ... and a multiple of 8 bytes when non-zero")."""
    c = Chain()
    c.chain(["compute"])
    c.bind_validation_table()
    assert not both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True)).findings
    c.s.state.program.WorkList1.ValidationProgramTable.Table.StrideInBytes = 36
    trace = both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True))
    assert [f.kind for f in trace.findings] == ["program-table-binding-invalid"] * 2  # the stride; SizeInBytes < 36
    assert all(f.message.startswith("ValidationProgramTable: ") for f in trace.findings)


def test_validation_index_fields_without_a_validation_program_table_are_ignored():
    """"Binding the validation program table": "When ValidationProgramTable is null on D3D12_SET_WORK_LIST_DESC1,
    the implementation ignores all validation index fields on the bound signatures; no validators are invoked ...
    When binding via the direct-bind path ... no validators are invoked regardless of any index fields the
    signature carries": a note (info), nothing else changes."""
    s, pcs, call = hybrid_list()
    plain = both(s, call)
    s.state.program.WorkList.pSignature.ListValidationProgramTableIndex = 2
    pcs.RecordValidationProgramTableIndex = 3
    trace = both(s, call)
    assert [(f.kind, f.severity) for f in trace.findings] == [("validation-index-ignored", "info")]
    assert "W.ListValidationProgramTableIndex 2, H.RecordValidationProgramTableIndex 3" in trace.findings[0].message
    assert executions(trace) == executions(plain) and not trace.errors
    c = Chain()
    c.chain(["compute"])
    c.s.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = 1
    trace = both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True))
    assert [f.kind for f in trace.findings] == ["validation-index-ignored"]
    assert "ValidationProgramTable is null" in trace.findings[0].message


# ----------------------------------------------------------------------------------------------------------------
# The dispatch list input
# ----------------------------------------------------------------------------------------------------------------


def two_pcs_scene(stride: int) -> tuple[Scene, DispatchListCall, int]:
    """A compute signature of two PCSes: "H" (hybrid, 16-byte primary record) and "Big" (fully inline, its DISPATCH
    and a four-DWORD inline local constants slot in the primary record, 32 bytes); every record selects H's program.
    Returns the scene, the call and Big's primary-record minimum."""
    s = Scene()
    small = ProgramCommandSignature("H", [arg("DISPATCH", "SECONDARY_RECORD")], SecondaryRecordByteStride=16)
    big = ProgramCommandSignature("Big", [
        arg("INLINE_ROOT_PARAMETER", "PRIMARY_RECORD", "LOCAL_ROOT_SIGNATURE",
            InlineRootParameter=InlineRootParameter(constants_param(4, register=0, space=1), 0, 4)),
        arg("DISPATCH")])
    pa, pb = program("A", 1, small), program("B", 2, big)
    s.add_programs(pa, pb)
    s.put(TABLE_VA, program_table([(pa, {}), (pb, {})], 32))
    s.bind(WorkListSignature("W", [small, big]), TABLE_VA, 32, 2)
    s.put(SECONDARY_VA, secondaries(small, [{"arg0_Dispatch": dispatch(5)}]))
    s.put(PRIMARY_VA, b"".join(primary(small, stride, ProgramTableIndex=0, NumSecondaryRecords=1,
                                       SecondaryRecords=SECONDARY_VA) for _ in range(2)))
    s.put(INPUT_VA, dispatch_input(2, PRIMARY_VA, stride))
    return s, DispatchListCall(INPUT_VA), pcs_layout(big).primary.min_stride


def test_program_inputs_stride_fits_the_worst_case_primary_record_of_the_signature():
    """D3D12_DISPATCH_LIST_INPUT1::ProgramInputs: "Its StrideInBytes must fit the worst-case primary record across
    every program command signature reachable from the work list signature selected by SignatureIndex" (Tier 1:
    "across every program command signature this dispatch will reference"): checked once per list, also when no
    record selects the larger PCS; the records still execute at that stride."""
    s, call, worst = two_pcs_scene(32)
    assert worst == 32
    clean = both(s, call)
    assert not clean.findings and len(clean.executions) == 2
    s, call, _ = two_pcs_scene(16)
    trace = both(s, call)
    assert kinds(trace) == [("program-inputs-stride-below-worst-case", "D3D12_DISPATCH_LIST_INPUT::ProgramInputs")]
    assert trace.findings[0].va == INPUT_VA + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes")
    assert "PCS 'Big' needs 32 bytes" in trace.findings[0].message
    assert executions(trace) == executions(clean)


def test_next_dispatch_list_is_ignored_without_the_continuation_flag():
    """D3D12_DISPATCH_LIST_INPUT1::NextDispatchList: "Ignored unless D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_DISPATCH_
    LIST_CONTINUATION is set in Flags": a note (info); the call ends after the list."""
    s, _, call = hybrid_list(tier2=True, next_=0)
    clean = both(s, call)
    s, _, call = hybrid_list(tier2=True, next_=INPUT_VA + 0x800)
    trace = both(s, call)
    assert [(f.kind, f.severity, f.va) for f in trace.findings] == [
        ("next-dispatch-list-ignored", "info", INPUT_VA + abi.offsetof("D3D12_DISPATCH_LIST_INPUT1", "NextDispatchList"))]
    assert len(trace.lists) == 1 and executions(trace) == executions(clean)
    s, _, call = hybrid_list(tier2=True, flags_=CONT, next_=0)
    assert not both(s, call).findings  # null with the flag: the call ends, nothing to note


# ----------------------------------------------------------------------------------------------------------------
# The program table
# ----------------------------------------------------------------------------------------------------------------


def test_program_without_a_program_command_signature():
    """"State object integration for program-table programs": "Every generic program whose identifier may appear
    in a program table must have a program command signature subobject associated with it" (rule 1's first
    half; a PCS outside the signature is program-not-in-signature)."""
    s, _, call = hybrid_list(1)
    s.objects.programs["A"].ProgramCommandSignature = None
    trace = both(s, call)
    assert kinds(trace) == [("program-without-command-signature", "rule 1")] and not trace.executions


def broadcast_table_scene(size: int) -> tuple[Scene, DispatchListCall]:
    """The culling PCS (a 16-byte program-table LRA tail: 48-byte records) with a broadcast program table
    (Table.StrideInBytes 0) of ``size`` bytes, 8 slots; two primary records at slots 0 and 5."""
    pcs, grs = culling_pcs()
    s = Scene()
    p = program("Opaque", 1, pcs)
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {"arg2_InlineRootParameter": [f32(x) for x in TINTS["Opaque"]]})], 0))
    s.bind(WorkListSignature("WLS", [pcs]), TABLE_VA, 0, 8, size=size)
    s.state.graphics_root_arguments[0] = RootArgument("descriptor", 0xCB0000)  # the culling example's frame CBV
    rows = [{"arg0_ShaderResourceView": 0x5000, "arg1_Draw": {"VertexCountPerInstance": 3, "InstanceCount": 1}}]
    s.put(SECONDARY_VA, secondaries(pcs, rows))
    s.put(PRIMARY_VA, b"".join(primary(pcs, ProgramTableIndex=i, NumSecondaryRecords=1, SecondaryRecords=SECONDARY_VA)
                               for i in (0, 5)))
    s.put(INPUT_VA, dispatch_input(2, PRIMARY_VA, 16))
    return s, DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=2)


def test_broadcast_program_table_size_holds_the_identifier_and_the_programs_lra():
    """D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::Table: "For a zero stride, Table.SizeInBytes must hold the single
    broadcast record (one program identifier plus that program's program-table-record LRA)": reported once, at
    the first record that reads it; the records still execute (both engines)."""
    record = program_table_layout(broadcast_table_scene(48)[0].objects.programs["Opaque"])
    assert record is not None and record.size == 48
    s, call = broadcast_table_scene(48)
    clean = both(s, call)
    assert not clean.findings and len(clean.executions) == 2
    s, call = broadcast_table_scene(40)
    trace = both(s, call)
    assert kinds(trace) == [("program-table-size-too-small", "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::Table")]
    assert trace.findings[0].primary_index == 0 and executions(trace) == executions(clean)
    s, call = broadcast_table_scene(16)  # not even the identifier: the SetProgram member rule says so
    assert [f.kind for f in both(s, call).findings] == ["program-table-binding-invalid"]


def test_app_defined_padding_after_the_lra_is_never_read():
    """"Program table slot layout": "[32 + LRA_N..] App-defined padding (ignored by the system)": a 64-byte stride
    whose last slot's padding lies outside mapped memory reads no byte of it."""
    s, _, call = hybrid_list(1)
    p = s.objects.programs["A"]
    s.memory = type(s.memory)()
    s.put(TABLE_VA, program_table([(identifier(77), {}), (p, {})], 64)[: 64 + IDENTIFIER])  # slot 1: identifier only
    s.bind(s.state.program.WorkList.pSignature, TABLE_VA, 64, 2, size=128)
    pcs = p.ProgramCommandSignature
    assert pcs is not None
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=1, NumSecondaryRecords=1, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = both(s, call)
    assert not trace.findings and len(trace.executions) == 1


def test_binding_is_ignored_for_arguments_without_a_root_parameter_index():
    """D3D12_WORK_LIST_ARGUMENT_DESC::Binding: "Ignored for arg types that don't have a RootParameterIndex payload,
    namely the dispatch-trigger args ... and the IA bindings": a DISPATCH declared _LOCAL_ROOT_SIGNATURE executes
    as the _GLOBAL_ROOT_SIGNATURE one does."""
    s, pcs, call = hybrid_list(2)
    plain = both(s, call)
    pcs.pArgumentDescs[0].Binding = E("D3D12_INDIRECT_ARGUMENT_BINDING", "LOCAL_ROOT_SIGNATURE")
    trace = both(s, call)
    assert not trace.findings and trace.to_dict()["executions"] == plain.to_dict()["executions"]


# ----------------------------------------------------------------------------------------------------------------
# Rules 14 and 18: bound tables are immutable for the call
# ----------------------------------------------------------------------------------------------------------------


class WriteBack:
    """Validation hooks that write ``size`` bytes at ``va`` back unchanged in list 0's primary-list step: a write,
    though no byte changes (the spec forbids the write: "must not be written by the GPU or the CPU")."""

    def __init__(self, va: int, size: int = 4) -> None:
        self.va, self.size = va, size

    def signature_selection(self, run: Any) -> bool:
        return False

    def primary_list(self, run: Any) -> bool:
        if run.index == 0:
            run.ctx.memory.write(self.va, run.ctx.memory.read(self.va, self.size))
        return True

    def secondary_lists(self, run: Any) -> bool:
        return False


def test_any_write_into_a_bound_program_table_or_the_validation_program_table_is_rule_14():
    """Rule 14: "The buffer pointed to by binding.ProgramTable.Table.StartAddress (for each D3D12_WORK_LIST_BINDING
    with Type == _PROGRAM_TABLE ...), plus the buffer pointed to by D3D12_SET_WORK_LIST_DESC1's
    ValidationProgramTable.Table.StartAddress if present, must not be written by the GPU or the CPU during this
    window": a write anywhere in those ranges (a slot no record reads, the validation program table), not only a
    change the call reads back."""
    def chain() -> Chain:
        c = Chain()
        c.chain(["compute"])
        c.s.put(VT_VA, bytes(64))
        c.bind_validation_table(VT_VA)
        c.s.put(0x8000, bytes(16))  # scratch memory a validator may write
        return c

    for target, where in ((0x8000, None), (VT_VA + 8, "the ValidationProgramTable"),
                          (TABLE_VA + 2 * IDENTIFIER + 4, "the program table of binding 0")):
        c = chain()
        trace = both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True), hooks=WriteBack(target))
        assert len(trace.executions) == 1  # the write happened; nothing read changed
        if where is None:
            assert not trace.findings
        else:
            assert [(f.kind, f.rule, f.list_index, f.va) for f in trace.findings] == [
                ("program-table-mutated", "rule 14", 0, target)]
            assert where in trace.findings[0].message


def test_a_write_into_a_bound_shader_table_is_rule_18():
    """Rule 18: "the D3D12_WORK_LIST_RAYTRACING_BINDING's pRaytracingStateObject reference and its four shader-table
    address/range/stride values must not change during this window"; D3D12_WORK_LIST_RAYTRACING_BINDING:
    "Contents ... must not be mutated from when SetProgram executes on the GPU until every referencing DispatchList
    / DispatchList1 chain completes"."""
    c = Chain()
    c.chain(["raytracing"])
    rt = c.s.state.program.WorkList1.pBindings[3].pRaytracing
    rt.HitGroupTable = GpuVirtualAddressRangeAndStride(0x9000, 128, 64)
    c.s.put(0x9000, bytes(128))
    c.s.put(VT_VA, bytes(64))
    c.bind_validation_table(VT_VA)
    trace = both(c.s, DispatchListCall(0x1000, 16, 16, tier2=True), hooks=WriteBack(0x9040, 8))
    assert [(f.kind, f.rule, f.va) for f in trace.findings] == [("shader-table-mutated", "rule 18", 0x9040)]
    assert "binding 3's HitGroupTable" in trace.findings[0].message and len(trace.executions) == 1


# ----------------------------------------------------------------------------------------------------------------
# The command list the call is recorded on (capture version 3: state.command_list_type, state.in_render_pass)
# ----------------------------------------------------------------------------------------------------------------

CL = "D3D12_COMMAND_LIST_TYPE"


def chain_scene(kinds_: list[str]) -> tuple[Scene, DispatchListCall]:
    """A DispatchList1 chain of one-record lists of ``kinds_`` over the four-signature array (compute, graphics,
    mesh, raytracing: every class is bound, only the lists' SignatureIndex values select)."""
    c = Chain()
    c.chain(kinds_)
    graphics = sum(k in ("graphics", "mesh") for k in kinds_)
    return c.s, DispatchListCall(0x1000, 16, graphics, tier2=True)


def test_dispatch_list_is_not_allowed_inside_a_bundle():
    """Bundles: "DispatchList is not allowed inside a bundle command list ... Recording DispatchList into a bundle
    is invalid."  Checked once per call; the execution is unchanged (the hardware would still read the bytes)."""
    for tier2 in (False, True):
        s, _, call = hybrid_list(tier2=tier2)
        kept = both(s, call)
        assert not kept.findings
        s.state.command_list_type = E(CL, "BUNDLE")
        trace = both(s, call)
        assert kinds(trace) == [("dispatch-list-in-bundle", "Bundles")]
        assert executions(trace) == executions(kept)


def test_both_methods_are_invalid_on_copy_or_video_command_lists():
    """Command queue type: "DispatchList and DispatchList1 are valid on direct command lists for any class of
    signature. ... Both methods are invalid on copy or video command lists."  Once per call."""
    s, _, call = hybrid_list(tier2=True)
    for member in ("DIRECT", "COMPUTE"):
        s.state.command_list_type = E(CL, member)
        assert not both(s, call).findings
    for member in ("COPY", "VIDEO_DECODE", "VIDEO_PROCESS", "VIDEO_ENCODE"):
        s.state.command_list_type = E(CL, member)
        trace = both(s, call)
        assert kinds(trace) == [("command-list-type-invalid", "Command queue type")]
        assert member in trace.findings[0].message and trace.findings[0].list_index is None


def test_compute_command_lists_need_every_signature_actually_used_to_be_compute_or_raytracing_class():
    """Command queue type: "On compute command lists they are valid when every signature actually used by the call
    is compute-class or raytracing-class, the single bound signature in the Tier 1 case, or every signature reached
    via SignatureIndex across the continuation chain in the Tier 2 case."  Used means selected: the array binds a
    graphics-class and a mesh signature too, and a chain that selects neither is valid; the first list that selects
    one is the finding (once per signature)."""
    s, call = chain_scene(["compute", "raytracing", "compute"])
    s.state.command_list_type = E(CL, "COMPUTE")
    assert not both(s, call).findings
    s, call = chain_scene(["compute", "graphics", "graphics", "mesh"])
    s.state.command_list_type = E(CL, "DIRECT")
    kept = both(s, call)
    assert not kept.findings
    s.state.command_list_type = E(CL, "COMPUTE")
    trace = both(s, call)
    assert [(f.kind, f.rule, f.list_index) for f in trace.findings] == [
        ("command-list-type-invalid", "Command queue type", 1), ("command-list-type-invalid", "Command queue type", 3)]
    assert "WLS_graphics" in trace.findings[0].message and "WLS_mesh" in trace.findings[1].message
    assert [e.trigger.fields for e in trace.executions] == [e.trigger.fields for e in kept.executions]
    # Tier 1: the single bound signature
    s1, _, call1 = hybrid_list()
    s1.state.command_list_type = E(CL, "COMPUTE")
    assert not both(s1, call1).findings


def test_compute_and_raytracing_class_lists_cannot_be_recorded_inside_a_render_pass():
    """Render passes: "Graphics-class lists can be recorded inside a render pass scope"; "Compute-class and
    raytracing-class lists cannot be recorded inside a render pass scope."; "For Tier 2 mixed-class chains the call is
    rejected inside a render pass if any signature reachable via SignatureIndex across the chain is compute-class or
    raytracing-class, even when the first list is graphics-class.\""""
    s, call = chain_scene(["graphics", "mesh", "graphics"])
    s.state.in_render_pass = True
    assert not both(s, call).findings
    s, call = chain_scene(["graphics", "compute", "raytracing"])
    kept = both(s, call)
    assert not kept.findings
    s.state.in_render_pass = True
    trace = both(s, call)
    assert [(f.kind, f.rule, f.list_index) for f in trace.findings] == [
        ("render-pass-compute-class", "Render passes", 1), ("render-pass-compute-class", "Render passes", 2)]
    assert "compute-class" in trace.findings[0].message and "raytracing-class" in trace.findings[1].message
    assert [e.trigger.fields for e in trace.executions] == [e.trigger.fields for e in kept.executions]
    s1, _, call1 = hybrid_list()  # Tier 1: the bound compute-class signature
    s1.state.in_render_pass = True
    assert kinds(both(s1, call1)) == [("render-pass-compute-class", "Render passes")]


def test_render_pass_reading_bound_rejects_a_bound_signature_no_list_selects(tmp_path):
    """docs/spec-questions.md Q4: "any signature reachable via SignatureIndex across the chain" read as every
    signature SetProgram bound (``Readings(render_pass="bound")``, ``--reading render_pass=bound``): the graphics
    chain over the four-signature array (compute, graphics, mesh, raytracing bound) is rejected inside a render pass
    for the compute and raytracing signatures no list selects, once each, at the call; under the default reading
    (``selected``) it is not.  Both engines; the trace records the reading."""
    from d3d12wl.cli import main
    from d3d12wl.executor import Readings

    s, call = chain_scene(["graphics", "mesh", "graphics"])
    s.state.in_render_pass = True
    bound = Readings(render_pass="bound")
    assert not both(s, call).findings
    reference = run(s.memory, s.device, s.objects, s.state, call, engine="reference", readings=bound)
    columnar = run(s.memory, s.device, s.objects, s.state, call, readings=bound)
    assert columnar.to_dict() == reference.to_dict()
    assert [(f.kind, f.list_index) for f in reference.findings] == [("render-pass-compute-class", None)] * 2
    assert ["WLS_compute" in reference.findings[0].message, "WLS_raytracing" in reference.findings[1].message] == [
        True, True]
    assert reference.call_args["readings"] == {"render_pass": "bound"}
    assert "readings" not in both(s, call).call_args
    # the command line (the bundled culling capture, outside any render pass: no finding either way)
    assert main(["exec", "--reading", "render_pass=bound", "--format", "json", "-o", str(tmp_path / "t.json")]) == 0
    assert main(["exec", "--reading", "render_pass=any"]) == 2
    assert main(["dump", "--reading", "nope=1"]) == 2
