"""DispatchList (Tier 1) in the reference executor: the spec's culling example and GPU-resident diagram, record
decoding by each record's PCS, every argument Source and Binding, broadcast strides, IA bindings, system pointers,
command-list state, raytracing-class lists and the end-of-call reset.  Each test names the spec section it proves."""

from __future__ import annotations

import struct

import pytest
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    TINTS,
    Scene,
    arg,
    constants_param,
    culling_pcs,
    culling_scene,
    dispatch,
    dispatch_input,
    draw,
    one_program_scene,
    primary,
    program,
    program_table,
    raytracing_scene,
    root_signature,
    secondaries,
    srv,
    table_param,
    trigger_draw,
    view_param,
)

from d3d12wl.executor import run_dispatch_list
from d3d12wl.model.objects import (
    ConstantArg,
    FixedDispatchArg,
    IncrementingConstantArg,
    InlineRootParameter,
    ProgramCommandSignature,
    RootParameterIndexArg,
    VertexBufferArg,
    WorkListSignature,
)
from d3d12wl.model.state import (
    DispatchListCall,
    IndexBufferView,
    RaytracingBinding,
    VertexBufferView,
)
from d3d12wl.records.layout import pcs_layout, program_table_layout

# ----------------------------------------------------------------------------------------------------------------
# The spec's culling example ("Example": GPU culling and work list emission)
# ----------------------------------------------------------------------------------------------------------------


def run(s: Scene, call: DispatchListCall, **kw):
    return run_dispatch_list(s.memory, s.device, s.objects, s.state, call, **kw)


def test_culling_example_executes_every_visible_instance_with_its_program_tint_srv_and_draw():
    """Spec "Example": hybrid records, SRV + DRAW from the secondary record, the per-material tint from the
    program-table LRA tail (Source _PROGRAM_TABLE_RECORD), the static sampler baked in."""
    s, call = culling_scene({"Opaque": 3, "Shadow": 2})
    trace = run(s, call)
    assert not trace.findings
    assert [(e.program, e.primary_index, e.secondary_index) for e in trace.executions] == [
        ("Opaque", 0, 0), ("Opaque", 0, 1), ("Opaque", 0, 2), ("Shadow", 1, 0), ("Shadow", 1, 1)]
    e = trace.executions[4]
    assert e.trigger.type == "DRAW" and e.trigger.fields["VertexCountPerInstance"] == 37
    assert e.root_argument("global", 1).value == 0x5000_0201
    tint = e.root_argument("local", 0)
    assert [struct.unpack("<f", struct.pack("<I", v))[0] for v in tint.values] == list(TINTS["Shadow"])
    assert tint.sources[0].kind == "program-table" and tint.sources[0].va == TABLE_VA + 2 * 48 + 32
    assert "program table slot 2" in tint.sources[0].origin
    # global root parameter 0 is not touched by any arg: it keeps the command-list value
    cbv = e.root_argument("global", 0)
    assert cbv.value == 0xCB0000 and cbv.sources[0].kind == "command-list"
    sampler = [ra for ra in e.root_arguments if ra.kind == "static_sampler"]
    assert sampler and sampler[0].register == "s0 space1"
    lt = trace.lists[0]
    assert lt.ordering == "in order" and lt.primary_records[1].program_table.program == "Shadow"
    assert lt.primary_records[0].secondary_records[2].fields["arg1_Draw"]["VertexCountPerInstance"] == 38


def test_end_of_call_reset_covers_touched_global_parameters_only_once():
    """Spec "State leakage and reset": the SRV at global parameter 1 is reset to NULL in the graphics set; the
    untouched CBV at 0 and local root arguments are not reset."""
    s, call = culling_scene({"Opaque": 1})
    trace = run(s, call)
    assert [(r.binding_set, r.what, r.parameter, r.reset_to) for r in trace.end_of_call_reset] == [
        ("graphics", "root view", 1, "NULL")]


def test_pcs_not_in_signature_is_rule_1():
    """Rule 1: the program a slot names must be associated with one of the bound signature's PCSes."""
    s, call = culling_scene({"Opaque": 1})
    other, _ = culling_pcs()
    s.objects.programs["Opaque"].ProgramCommandSignature = other
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["program-not-in-signature"]
    assert trace.findings[0].rule == "rule 1" and not trace.executions


def test_program_table_index_out_of_range_skips_the_record_and_continues():
    """D3D12_WORK_LIST_PRIMARY_RECORD::ProgramTableIndex must be < SlotCount."""
    s, call = culling_scene({"Opaque": 1, "Transparent": 1})
    s.state.program.WorkList.Binding.ProgramTable.SlotCount = 1
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["program-table-index-out-of-range"]
    f = trace.findings[0]
    assert (f.list_index, f.primary_index, f.va) == (0, 1, PRIMARY_VA + 16)
    assert [e.program for e in trace.executions] == ["Opaque"]


def test_unknown_program_identifier():
    """Spec "Program table entries": a slot's identifier must name a program ("stale record")."""
    s, call = culling_scene({"Opaque": 1})
    s.memory.write(TABLE_VA, b"\xEE" * 32)
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["unknown-program-identifier"]
    assert trace.findings[0].va == TABLE_VA and not trace.executions


def test_num_program_inputs_zero_reads_no_program_inputs():
    """D3D12_DISPATCH_LIST_INPUT::NumProgramInputs: "ProgramInputs is not read when this is 0, and its StartAddress
    and StrideInBytes are then unconstrained"."""
    s, call = culling_scene({})
    s.memory.write(INPUT_VA, dispatch_input(0, 0xDEAD_BEEF_0003, 3))
    trace = run(s, call)
    assert not trace.findings and not trace.executions and trace.lists[0].primary_records == []


def test_primary_list_unmapped_is_a_finding_with_the_va():
    s, call = culling_scene({"Opaque": 1})
    s.memory.write(INPUT_VA, dispatch_input(2, 0x7000_0000, 16))
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["unmapped-va"]
    assert trace.findings[0].va == 0x7000_0000 and trace.lists[0].stopped
    message = trace.findings[0].message
    assert "is not mapped" in message and message.count("primary record 0") == 1  # the place is named once


def test_misaligned_dispatch_list_input():
    """DispatchList: DispatchListInput "Must be 8-byte aligned"."""
    s, call = culling_scene({"Opaque": 1})
    call.DispatchListInput = INPUT_VA + 4
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["misaligned-va"] and trace.findings[0].va == INPUT_VA + 4


def test_primary_stride_below_minimum_is_rule_25e():
    """Rule 25(e): ProgramInputs.StrideInBytes at least the minimum primary record size of the record's PCS."""
    s, call = culling_scene({"Opaque": 1})
    s.memory.write(INPUT_VA, dispatch_input(1, PRIMARY_VA, 8))
    trace = run(s, call)
    assert [(f.kind, f.rule) for f in trace.findings] == [  # the list's one PCS is also its worst case
        ("program-inputs-stride-below-worst-case", "D3D12_DISPATCH_LIST_INPUT::ProgramInputs"),
        ("stride-below-minimum", "rule 25(e)")]
    assert not trace.executions


def test_primary_stride_misaligned_is_rule_25e():
    s, call = culling_scene({"Opaque": 1})
    s.memory.write(INPUT_VA, dispatch_input(1, PRIMARY_VA, 20))
    trace = run(s, call)
    assert [(f.kind, f.rule) for f in trace.findings] == [("stride-misaligned", "rule 25(e)")]


def test_max_graphics_program_inputs_per_primary_list_is_rule_12():
    """Rule 12 (and "MaxGraphicsProgramInputsPerPrimaryList"): a graphics list's NumProgramInputs above the bound."""
    s, call = culling_scene({"Opaque": 1, "Transparent": 1, "Shadow": 1})
    call.MaxGraphicsProgramInputsPerPrimaryList = 2
    trace = run(s, call)
    assert [(f.kind, f.rule) for f in trace.findings] == [("max-graphics-program-inputs-exceeded", "rule 12")]


def test_descriptor_table_without_heap_bound():
    """Spec "_DESCRIPTOR_TABLE": executing a descriptor-table argument with no heap of the required type bound."""
    grs = root_signature("GRS", table_param("SRV"), table_param("SAMPLER"))
    pcs = ProgramCommandSignature("P", [
        arg("DESCRIPTOR_TABLE", DescriptorTable=RootParameterIndexArg(0)),
        arg("DESCRIPTOR_TABLE", DescriptorTable=RootParameterIndexArg(1)),
        arg("DISPATCH")], pGlobalRootSignature=grs)
    s = one_program_scene(pcs)
    s.state.descriptor_heaps.CBV_SRV_UAV = True
    rec = primary(pcs, ProgramTableIndex=0, arg0_DescriptorTable={"ptr": 0x100}, arg1_DescriptorTable={"ptr": 0x200},
                  arg2_Dispatch=dispatch(1))
    s.put(PRIMARY_VA, rec)
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, len(rec)))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.rule) for f in trace.findings] == [("descriptor-heap-not-bound", "_DESCRIPTOR_TABLE")]
    assert "SAMPLER" in trace.findings[0].message
    e = trace.executions[0]
    assert e.root_argument("global", 0).value == 0x100 and e.root_argument("global", 1).value == 0x200
    assert [(r.what, r.parameter, r.binding_set) for r in trace.end_of_call_reset] == [
        ("descriptor table", 0, "compute"), ("descriptor table", 1, "compute")]


# ----------------------------------------------------------------------------------------------------------------
# The GPU-resident diagram ("Components")
# ----------------------------------------------------------------------------------------------------------------


def diagram_scene() -> tuple[Scene, DispatchListCall]:
    grs = root_signature("GRS", view_param("SRV", 0))
    lrs = root_signature("LRS_A", constants_param(1, 0, 1), local=True)
    pcs_a = ProgramCommandSignature("PCS_A", [
        srv(0), trigger_draw(),
        arg("CONSTANT", "SECONDARY_RECORD", "LOCAL_ROOT_SIGNATURE", Constant=ConstantArg(0, 0, 1))],
        SecondaryRecordByteStride=32, pGlobalRootSignature=grs)
    pcs_c = ProgramCommandSignature("PCS_C", [srv(0, "PRIMARY_RECORD"), trigger_draw()],
                                    SecondaryRecordByteStride=16, pGlobalRootSignature=grs)
    s = Scene()
    a, b, c = program("A", 1, pcs_a, lrs), program("B", 2, pcs_a, lrs), program("C", 3, pcs_c)
    s.add_programs(a, b, c)
    s.put(TABLE_VA, program_table([(a, {}), (b, {}), (b"\x5A" * 32, {}), (c, {})], 32))  # slot 2: stale record
    s.bind(WorkListSignature("WLS", [pcs_a, pcs_c]), TABLE_VA, 32, 4)
    stride = max(pcs_layout(pcs_a).primary.min_stride, pcs_layout(pcs_c).primary.min_stride)
    assert stride == 24
    sec_a, sec_c = SECONDARY_VA, SECONDARY_VA + 0x1000
    s.put(sec_a, secondaries(pcs_a, [{"arg0_ShaderResourceView": 0xAAAA, "arg1_Draw": draw(64),
                                      "arg2_Constant": 0xC0FFEE + k} for k in range(12)]))
    s.put(sec_c, secondaries(pcs_c, [{"arg1_Draw": draw(32, 4)} for _ in range(8)]))
    s.put(PRIMARY_VA, primary(pcs_a, stride, ProgramTableIndex=0, NumSecondaryRecords=12, SecondaryRecords=sec_a)
          + primary(pcs_c, stride, ProgramTableIndex=3, NumSecondaryRecords=8, SecondaryRecords=sec_c,
                    arg0_ShaderResourceView=0xFFFF))
    s.put(INPUT_VA, dispatch_input(2, PRIMARY_VA, stride))
    return s, DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=2)


def test_gpu_resident_diagram_two_pcses_with_different_secondary_shapes():
    """Spec "Components" (GPU-resident diagram): primary [0] selects slot 0 with 12 secondary records carrying
    MyMaterialSRV and a local-root tint; primary [1] selects slot 3 with 8 records and the SRV inline in the
    primary record; slot 2's stale record is never referenced."""
    s, call = diagram_scene()
    trace = run(s, call)
    assert not trace.findings
    assert len(trace.executions) == 20
    first, last = trace.executions[0], trace.executions[-1]
    assert (first.program, first.pcs) == ("A", "PCS_A") and (last.program, last.pcs) == ("C", "PCS_C")
    assert first.root_argument("global", 0).value == 0xAAAA
    tint = trace.executions[11].root_argument("local", 0)
    assert tint.values == [0xC0FFEE + 11] and tint.sources[0].kind == "secondary"
    assert tint.sources[0].va == SECONDARY_VA + 11 * 32 + 24
    srv_c = last.root_argument("global", 0)
    assert srv_c.value == 0xFFFF and srv_c.sources[0].va == PRIMARY_VA + 24 + 16
    assert "primary record 1" in srv_c.sources[0].origin
    assert last.trigger.fields == draw(32, 4) and last.root_argument("local", 0) is None
    prt = trace.lists[0].primary_records
    assert prt[0].record_kind == "HYBRID" and len(prt[0].secondary_records) == 12 and len(prt[1].executions) == 8


def test_mixed_hybrid_and_inline_records_in_one_list():
    """Spec "Primary record layout": the header kind follows the PCS each record selects, so one list mixes
    D3D12_WORK_LIST_PRIMARY_RECORD and D3D12_WORK_LIST_INLINE_PRIMARY_RECORD records."""
    grs = root_signature("GRS", constants_param(2))
    hybrid = ProgramCommandSignature("H", [arg("CONSTANT", Constant=ConstantArg(0, 0, 2)),
                                           arg("DISPATCH", "SECONDARY_RECORD")],
                                     SecondaryRecordByteStride=16, pGlobalRootSignature=grs)
    inline = ProgramCommandSignature("I", [arg("CONSTANT", Constant=ConstantArg(0, 0, 2)), arg("DISPATCH")],
                                     pGlobalRootSignature=grs)
    s = Scene()
    ph, pi = program("PH", 1, hybrid), program("PI", 2, inline)
    s.add_programs(ph, pi)
    s.put(TABLE_VA, program_table([(ph, {}), (pi, {})], 32))
    s.bind(WorkListSignature("W", [hybrid, inline]), TABLE_VA, 32, 2)
    stride = 24
    s.put(SECONDARY_VA, secondaries(hybrid, [{"arg1_Dispatch": dispatch(k + 1)} for k in range(2)]))
    s.put(PRIMARY_VA, primary(inline, stride, ProgramTableIndex=1, arg0_Constant=[7, 8], arg1_Dispatch=dispatch(9))
          + primary(hybrid, stride, ProgramTableIndex=0, NumSecondaryRecords=2, SecondaryRecords=SECONDARY_VA,
                    arg0_Constant=[5, 6]))
    s.put(INPUT_VA, dispatch_input(2, PRIMARY_VA, stride))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert not trace.findings
    got = [(e.program, e.trigger.fields["ThreadGroupCountX"], e.root_argument("global", 0).values)
           for e in trace.executions]
    assert got == [("PI", 9, [7, 8]), ("PH", 1, [5, 6]), ("PH", 2, [5, 6])]
    assert [p.header for p in trace.lists[0].primary_records] == [
        "D3D12_WORK_LIST_INLINE_PRIMARY_RECORD", "D3D12_WORK_LIST_PRIMARY_RECORD"]
    assert trace.lists[0].ordering == "any order"  # compute-class records are never ordered


# ----------------------------------------------------------------------------------------------------------------
# Broadcast strides, constants composed from several sources, explicit local root signatures, IA, pointers
# ----------------------------------------------------------------------------------------------------------------


def test_secondary_stride_zero_broadcasts_the_first_record():
    """Spec "Stride derivation": SecondaryRecordByteStride 0 is the broadcast form (every secondary index resolves
    to the record at the secondary list's start address)."""
    pcs = ProgramCommandSignature("P", [arg("DISPATCH", "SECONDARY_RECORD"),
                                        arg("PRIMARY_RECORD_POINTER", "SYSTEM",
                                            PrimaryRecordPointer=RootParameterIndexArg(0)),
                                        arg("SECONDARY_RECORD_POINTER", "SYSTEM",
                                            SecondaryRecordPointer=RootParameterIndexArg(1)),
                                        arg("PROGRAM_TABLE_POINTER", "SYSTEM",
                                            ProgramTablePointer=RootParameterIndexArg(2))],
                                  SecondaryRecordByteStride=0,
                                  pGlobalRootSignature=root_signature("G", view_param("SRV"), view_param("SRV", 1),
                                                                      view_param("SRV", 2)))
    s = Scene()
    p = program("A", 1, pcs)
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {})], 0))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 0, 5, size=32)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(4)}]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=4, NumSecondaryRecords=3, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert not trace.findings
    assert [e.record_va["secondary"] for e in trace.executions] == [SECONDARY_VA] * 3
    assert [e.trigger.fields["ThreadGroupCountX"] for e in trace.executions] == [4, 4, 4]
    e = trace.executions[2]
    # program table stride 0: index 4 (< SlotCount 5) resolves to the record at the table's start
    assert e.record_va["program_table_slot"] == TABLE_VA
    assert e.system_pointers == {"PRIMARY_RECORD_POINTER": PRIMARY_VA, "SECONDARY_RECORD_POINTER": SECONDARY_VA,
                                 "PROGRAM_TABLE_POINTER": TABLE_VA}
    assert [e.root_argument("global", i).value for i in range(3)] == [PRIMARY_VA, SECONDARY_VA, TABLE_VA]
    assert e.root_argument("global", 1).sources[0].origin == "system: SECONDARY_RECORD_POINTER"


def test_constants_slot_composed_from_program_table_primary_secondary_and_system():
    """Spec "_INLINE_ROOT_PARAMETER" / rule 23(e): one local constants slot composed from sub-ranges with different
    sources (program-table record, primary record, secondary record, incrementing constant on a global slot)."""
    slot = constants_param(6, 0, 1)
    inline = [arg("INLINE_ROOT_PARAMETER", src, "LOCAL_ROOT_SIGNATURE",
                  InlineRootParameter=InlineRootParameter(slot, off, n))
              for src, off, n in (("PROGRAM_TABLE_RECORD", 0, 2), ("PRIMARY_RECORD", 2, 1),
                                  ("SECONDARY_RECORD", 3, 3))]
    grs = root_signature("G", constants_param(2))
    pcs = ProgramCommandSignature("P", [*inline, arg("CONSTANT", Constant=ConstantArg(0, 0, 1)),
                                        arg("INCREMENTING_CONSTANT", "SYSTEM",
                                            IncrementingConstant=IncrementingConstantArg(0, 1)),
                                        arg("DISPATCH", "SECONDARY_RECORD")],
                                  SecondaryRecordByteStride=24, pGlobalRootSignature=grs)
    s = Scene()
    p = program("A", 1, pcs)
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {"arg0_InlineRootParameter": [10, 11]})], 40))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 40, 1)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg2_InlineRootParameter": [30 + k, 31, 32], "arg5_Dispatch": dispatch(1)}
                                          for k in range(2)]))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=2, SecondaryRecords=SECONDARY_VA,
                              arg1_InlineRootParameter=[20], arg3_Constant=[99]))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, pcs_layout(pcs).primary.min_stride))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert not trace.findings
    local = trace.executions[1].root_argument("local", 0)
    assert local.values == [10, 11, 20, 31, 31, 32]
    assert [(src.kind, src.first_dword, src.num_dwords) for src in local.sources] == [
        ("program-table", 0, 2), ("primary", 2, 1), ("secondary", 3, 3)]
    g = trace.executions[1].root_argument("global", 0)
    assert g.values == [99, 1] and [src.kind for src in g.sources] == ["primary", "system"]
    assert [r.dwords for r in trace.end_of_call_reset] == [[0, 1]]


def test_explicit_local_root_signature_tail_supplies_what_records_do_not_override():
    """Spec "Binding sources at record execution" (explicit path): local slots not overridden per record take the
    program-table tail, packed in LRS order over the not-overridden subset (no hole for the overridden DWORD)."""
    lrs = root_signature("L", constants_param(3, 0, 1), view_param("CBV", 1, 1), local=True)
    pcs = ProgramCommandSignature("P", [arg("CONSTANT", "PRIMARY_RECORD", "LOCAL_ROOT_SIGNATURE",
                                            Constant=ConstantArg(0, 1, 1)), arg("DISPATCH")])
    p = program("A", 1, pcs, lrs)
    tail = program_table_layout(p)
    assert [f.name for f in tail.fields] == ["ProgramIdentifier", "param0_dw0", "param0_dw2", "param1"]
    s = Scene()
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {"param0_dw0": [1], "param0_dw2": [3], "param1": 0xCBCB})], 56))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 56, 1)
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, arg0_Constant=[2], arg1_Dispatch=dispatch(1)))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, pcs_layout(pcs).primary.min_stride))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert not trace.findings
    e = trace.executions[0]
    assert e.root_argument("local", 0).values == [1, 2, 3]
    assert [src.kind for src in e.root_argument("local", 0).sources] == ["program-table", "primary", "program-table"]
    assert e.root_argument("local", 1).value == 0xCBCB
    assert trace.end_of_call_reset == []  # local root arguments never leak into command-list state


def test_program_table_stride_too_small_for_the_programs_lra_is_rule_6():
    s, call = culling_scene({"Opaque": 1})
    s.state.program.WorkList.Binding.ProgramTable.Table.StrideInBytes = 40
    trace = run(s, call)
    assert ("program-table-stride-too-small", "rule 6") in [(f.kind, f.rule) for f in trace.findings]
    assert not trace.executions


def test_ia_bindings_record_slots_over_command_list_state():
    """Spec "Input Assembler bindings": per-record bytes supply the slots a signature binds; command-list state the
    rest; touched slots (and the IB) reset to NULL at end of call."""
    pcs = ProgramCommandSignature("P", [arg("VERTEX_BUFFER_VIEW", VertexBuffer=VertexBufferArg(1)),
                                        arg("INDEX_BUFFER_VIEW"), arg("DRAW_INDEXED")])
    s = one_program_scene(pcs)
    s.state.vertex_buffers = {0: VertexBufferView(0xA000, 64, 16), 1: VertexBufferView(0xB000, 64, 16)}
    s.state.index_buffer = IndexBufferView(0xC000, 12, 42)
    vbv = {"BufferLocation": 0x1_0000, "SizeInBytes": 256, "StrideInBytes": 32}
    ibv = {"BufferLocation": 0x2_0000, "SizeInBytes": 128, "Format": 57}
    rec = primary(pcs, ProgramTableIndex=0, arg0_VertexBuffer=vbv, arg1_IndexBuffer=ibv,
                  arg2_DrawIndexed={"IndexCountPerInstance": 6, "InstanceCount": 1, "BaseVertexLocation": -3})
    s.put(PRIMARY_VA, rec)
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, len(rec)))
    trace = run(s, DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=1))
    assert not trace.findings
    ia = {b.slot: (b.fields, b.source.kind) for b in trace.executions[0].ia}
    assert ia[0] == ({"BufferLocation": 0xA000, "SizeInBytes": 64, "StrideInBytes": 16}, "command-list")
    assert ia[1] == (vbv, "primary") and ia[None] == (ibv, "primary")
    assert trace.executions[0].trigger.fields["BaseVertexLocation"] == -3
    assert [(r.what, r.slot) for r in trace.end_of_call_reset] == [("vertex buffer", 1), ("index buffer", None)]


def test_fixed_dispatch_reads_no_record_bytes():
    """Spec "_FIXED_DISPATCH": the grid is fixed on the arg; the record holds only the header."""
    pcs = ProgramCommandSignature("P", [arg("FIXED_DISPATCH", "STATIC", FixedDispatch=FixedDispatchArg(2, 3, 4))])
    s = one_program_scene(pcs)
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 8))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert not trace.findings
    assert trace.executions[0].trigger.fields == {"ThreadGroupCountX": 2, "ThreadGroupCountY": 3,
                                                  "ThreadGroupCountZ": 4}


# ----------------------------------------------------------------------------------------------------------------
# Raytracing class
# ----------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("hybrid", [False, True])
def test_raytracing_list_uses_the_bound_rtpso_and_no_program_table(hybrid):
    """Spec "Raytracing pipeline programs": no ProgramTableIndex, the RTPSO and shader tables bound at SetProgram,
    the compute root binding set, any order."""
    s, call = raytracing_scene(hybrid)
    trace = run(s, call)
    assert not trace.findings
    assert len(trace.executions) == (2 if hybrid else 1)
    e = trace.executions[0]
    assert e.executable_class == "RAYTRACING" and e.program == "RTPSO"
    assert e.raytracing["MissShaderTable"] == {"StartAddress": 0x9100, "SizeInBytes": 64, "StrideInBytes": 32}
    assert e.trigger.fields == {"Width": 64, "Height": 32, "Depth": 1}
    assert e.root_argument("global", 0).value == 0xABC and e.root_arguments[-1].binding == "global"
    assert trace.lists[0].ordering == "any order"
    assert trace.end_of_call_reset[0].binding_set == "compute"
    assert trace.lists[0].primary_records[0].header == (
        "D3D12_WORK_LIST_RAYTRACING_RECORD" if hybrid else "D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD")


def test_raytracing_record_reserved_padding_nonzero():
    """D3D12_WORK_LIST_RAYTRACING_RECORD::ReservedPadding "must be 0"."""
    s, call = raytracing_scene(True, padding=7)
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["reserved-padding-nonzero"]
    assert trace.findings[0].va == PRIMARY_VA + 4


def test_raytracing_without_dispatch_rays_support_is_rule_16():
    s, call = raytracing_scene(False)
    s.device.DispatchRaysSupported = False
    assert [f.rule for f in run(s, call).findings] == ["rule 16"]


def test_binding_type_must_match_class_rule_17():
    s, call = culling_scene({"Opaque": 1})
    rt = Scene.binding(raytracing=RaytracingBinding("X"))
    s.state.program.WorkList.Binding = rt
    trace = run(s, call)
    assert [(f.kind, f.rule) for f in trace.findings] == [("binding-type-mismatch", "rule 17")]
    assert not trace.executions


def test_nothing_bound():
    s, call = culling_scene({"Opaque": 1})
    s.state.program = None
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == ["no-work-list-bound"] and not trace.lists
