"""DispatchList1 (Tier 2) in the reference executor: signature selection, continuations and their flags,
cross-class chains, MaxGraphicsPrimaryLists accounting (the spec's table, every row), the single end-of-call reset,
and the validation-hook re-read points."""

from __future__ import annotations

import pytest
from executor_builder import (
    CONT,
    TABLE_VA,
    E,
    Scene,
    arg,
    constants_param,
    dispatch,
    dispatch_input,
    dispatch_input1,
    draw,
    flags,
    one_program_scene,
    primary,
    program,
    program_table,
    root_signature,
    view_param,
)

from d3d12wl.executor import ListRun, run_dispatch_list
from d3d12wl.model.objects import (
    ConstantArg,
    IncrementingConstantArg,
    ProgramCommandSignature,
    RootParameterIndexArg,
    WorkListSignature,
)
from d3d12wl.model.state import (
    DispatchListCall,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RaytracingBinding,
    RootArgument,
)
from d3d12wl.records.layout import pcs_layout

F1 = "D3D12_DISPATCH_LIST_FLAGS1"
LIST_VA = 0x1000  # list i at LIST_VA + 0x100 * i
REC_VA = 0x10000  # list i's primary records at REC_VA + 0x1000 * i

GRS = root_signature("GRS", constants_param(2), view_param("SRV"))
KINDS = {  # kind -> (signature index, trigger arg, root-parameter-0 arg)
    "compute": (0, "DISPATCH"), "graphics": (1, "DRAW"), "mesh": (2, "DISPATCH_MESH"),
    "raytracing": (3, "DISPATCH_RAYS_DIMENSIONS")}


def make_pcs(kind: str) -> ProgramCommandSignature:
    trigger = KINDS[kind][1]
    return ProgramCommandSignature(f"PCS_{kind}", [
        arg("CONSTANT", Constant=ConstantArg(0, 0, 1)),
        arg("INCREMENTING_CONSTANT", "SYSTEM", IncrementingConstant=IncrementingConstantArg(0, 1)),
        arg(trigger)], pGlobalRootSignature=GRS)


class Chain:
    """Four signatures in one array (compute, graphics, mesh, raytracing), each with one inline PCS; lists
    are placed at fixed VAs."""

    def __init__(self) -> None:
        self.s = Scene()
        self.pcs = {k: make_pcs(k) for k in KINDS}
        self.programs = {k: program(k, i + 1, self.pcs[k]) for i, k in enumerate(("compute", "graphics", "mesh"))}
        self.s.add_programs(*self.programs.values())
        self.s.put(TABLE_VA, program_table([(p, {}) for p in self.programs.values()], 32))
        table = Scene.binding(TABLE_VA, 32, 3)
        rt = Scene.binding(raytracing=RaytracingBinding("RTPSO"))
        self.s.bind_array("ARR", [(WorkListSignature(f"WLS_{k}", [self.pcs[k]]), rt if k == "raytracing" else table)
                                  for k in KINDS])
        self.stride = max(pcs_layout(p).primary.min_stride for p in self.pcs.values())
        # GRS parameter 1 (the root SRV no PCS sets) from command-list state, in both binding sets
        self.s.state.graphics_root_arguments[1] = RootArgument("descriptor", 0x5500)
        self.s.state.compute_root_arguments[1] = RootArgument("descriptor", 0x5600)

    def bind_validation_table(self, va: int = 0x7000) -> None:
        """A non-null ValidationProgramTable (its bytes are not mapped: only the executor's hook points run, no
        validator reads it): a one-slot, 32-byte-stride D3D12_WORK_LIST_PROGRAM_TABLE_BINDING."""
        self.s.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding(
            GpuVirtualAddressRangeAndStride(va, 32, 32), 1)

    def records(self, kind: str, n: int, tag: int) -> bytes:
        pcs = self.pcs[kind]
        payload = {"compute": ("arg2_Dispatch", dispatch(tag)), "graphics": ("arg2_Draw", draw(tag)),
                   "mesh": ("arg2_DispatchMesh", dispatch(tag)),
                   "raytracing": ("arg2_DispatchRaysDimensions", {"Width": tag, "Height": 1, "Depth": 1})}[kind]
        slot = {"compute": 0, "graphics": 1, "mesh": 2}.get(kind)
        header = {} if slot is None else {"ProgramTableIndex": slot}
        return b"".join(primary(pcs, self.stride, arg0_Constant=[tag], **header, **{payload[0]: payload[1]})
                        for _ in range(n))

    def add_list(self, i: int, kind: str, n: int = 1, flags_: int = CONT, next_: int | None = None,
                 signature: int | None = None, start: int | None = None, padding: int = 0) -> int:
        va = LIST_VA + 0x100 * i
        if start is None:
            start = REC_VA + 0x1000 * i
            if n:
                self.s.put(start, self.records(kind, n, 10 * i + 1))
        if next_ is None:
            next_ = LIST_VA + 0x100 * (i + 1)
        self.s.put(va, dispatch_input1(n, start, self.stride, flags_, KINDS[kind][0] if signature is None else signature,
                                       next_, padding))
        return va

    def chain(self, kinds: list[str], empty: tuple[int, ...] = ()) -> int:
        for i, kind in enumerate(kinds):
            last = i == len(kinds) - 1
            self.add_list(i, kind, 0 if i in empty else 1, next_=0 if last else None)
        return LIST_VA

    def run(self, max_graphics: int = 16, max_inputs: int = 16, **kw):
        call = DispatchListCall(LIST_VA, max_inputs, max_graphics, tier2=True)
        return run_dispatch_list(self.s.memory, self.s.device, self.s.objects, self.s.state, call, **kw)


# ----------------------------------------------------------------------------------------------------------------
# MaxGraphicsPrimaryLists (the spec's table, every row)
# ----------------------------------------------------------------------------------------------------------------

MAX_GRAPHICS_TABLE = [
    (["graphics"], 1),
    (["compute"], 0),
    (["compute", "graphics", "compute", "graphics", "compute"], 2),
    (["compute", "compute", "compute", "compute"], 0),
    (["graphics", "graphics", "graphics"], 3),
    (["mesh", "graphics", "mesh"], 3),
    (["compute", "mesh", "graphics", "raytracing"], 2),
]


@pytest.mark.parametrize("kinds, bound", MAX_GRAPHICS_TABLE, ids=["->".join(k) for k, _ in MAX_GRAPHICS_TABLE])
def test_max_graphics_primary_lists_table(kinds, bound):
    """Spec "MaxGraphicsPrimaryLists" examples: the table's value is exactly enough; one less is rule 11."""
    c = Chain()
    c.chain(kinds)
    trace = c.run(max_graphics=bound)
    assert not trace.findings
    assert trace.graphics_lists == bound and len(trace.lists) == len(kinds)
    assert [e.executable_class for e in trace.executions] == [
        "GRAPHICS" if k in ("graphics", "mesh") else k.upper() for k in kinds]
    if bound:
        trace = c.run(max_graphics=bound - 1)
        assert [(f.kind, f.rule) for f in trace.findings] == [("max-graphics-primary-lists-exceeded", "rule 11")]


def test_empty_graphics_list_still_counts():
    """Rule 11: "A list counts whether or not it executes any records"."""
    c = Chain()
    c.chain(["graphics", "compute", "graphics"], empty=(0,))
    assert not c.run(max_graphics=2).findings
    trace = c.run(max_graphics=1)
    assert [f.kind for f in trace.findings] == ["max-graphics-primary-lists-exceeded"]
    assert trace.findings[0].list_index == 2


def test_max_graphics_program_inputs_is_per_list_not_summed():
    """"MaxGraphicsProgramInputsPerPrimaryList": the maximum over each individual list, not the sum."""
    c = Chain()
    c.add_list(0, "graphics", 2)
    c.add_list(1, "graphics", 2, next_=0)
    assert not c.run(max_inputs=2).findings
    assert [f.list_index for f in c.run(max_inputs=1).findings] == [0, 1]


# ----------------------------------------------------------------------------------------------------------------
# Continuations and their flags
# ----------------------------------------------------------------------------------------------------------------


def test_flag_clear_means_no_continuation_even_with_a_non_null_pointer():
    """D3D12_DISPATCH_LIST_INPUT1::NextDispatchList: "Ignored unless ..._ALLOW_NEXT_DISPATCH_LIST_CONTINUATION is
    set in Flags"."""
    c = Chain()
    c.add_list(0, "compute", flags_=0)
    c.add_list(1, "compute")
    trace = c.run()
    assert len(trace.lists) == 1 and len(trace.executions) == 1
    assert trace.lists[0].continuation["allowed"] is False and trace.lists[0].continuation["followed"] is False


def test_null_next_dispatch_list_ends_the_call():
    """"Next-list pointer semantics" 2: "If the value is null, the DispatchList1 call ends"."""
    c = Chain()
    c.add_list(0, "compute", next_=0)
    trace = c.run()
    assert len(trace.lists) == 1 and trace.lists[0].continuation["next"] == 0
    assert trace.stopped_reason is None


@pytest.mark.parametrize("extra, wait, flush", [(0, False, False),
                                                 (flags(F1, "END_WITH_WAIT_FOR_COMPLETION"), True, False),
                                                 (flags(F1, "END_WITH_MEMORY_FLUSH"), False, True)])
def test_wait_and_flush_flags_are_recorded(extra, wait, flush):
    """D3D12_DISPATCH_LIST_FLAGS1 _END_WITH_WAIT_FOR_COMPLETION / _END_WITH_MEMORY_FLUSH: recorded with the read
    point of NextDispatchList they imply ("Next-list pointer semantics": "The timing of the NextDispatchList read
    depends only on whether this list sets _END_WITH_WAIT_FOR_COMPLETION", Work Lists v0.851)."""
    c = Chain()
    c.add_list(0, "compute", flags_=CONT | extra)
    c.add_list(1, "graphics", next_=0)
    trace = c.run()
    cont = trace.lists[0].continuation
    assert (cont["wait_for_completion"], cont["memory_flush"], cont["followed"]) == (wait, flush, True)
    assert ("retired" in cont["read_point"]) == wait
    assert "including at launch" in trace.lists[1].continuation["read_point"]  # in-order graphics: no exception
    assert ("END_WITH_WAIT_FOR_COMPLETION" in trace.lists[0].flags) == wait


def test_num_program_inputs_zero_mid_chain_reads_no_program_inputs_and_continues():
    """D3D12_DISPATCH_LIST_INPUT::NumProgramInputs: "0 is legal ... including a list in the middle of the chain,
    which continues into the next list"; ProgramInputs is not read (here it is unmapped and misaligned)."""
    c = Chain()
    c.add_list(0, "compute")
    c.add_list(1, "compute", n=0, start=0xBAD_0000_0004)
    c.add_list(2, "compute", next_=0)
    trace = c.run()
    assert not trace.findings
    assert [e.list_index for e in trace.executions] == [0, 2] and len(trace.lists) == 3


def test_counter_resets_per_list_in_a_chain():
    """"Effect of continuations on per-list state": the incrementing-constant counter resets to 0 at the start of
    every list."""
    c = Chain()
    c.add_list(0, "compute", n=3)
    c.add_list(1, "compute", n=2, next_=0)
    trace = c.run()
    assert [(e.list_index, e.counter) for e in trace.executions] == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1)]
    assert trace.executions[4].root_argument("global", 0).values == [11, 1]


def test_cross_class_chain_has_one_reset_for_both_binding_sets():
    """"State leakage and reset": applied once at the end of the call, the union of bindings touched by every
    signature actually used, partitioned by class."""
    c = Chain()
    c.chain(["compute", "graphics", "compute"])
    trace = c.run()
    assert [(r.binding_set, r.what, r.parameter, r.dwords) for r in trace.end_of_call_reset] == [
        ("graphics", "root constant", 0, [0, 1]), ("compute", "root constant", 0, [0, 1])]
    assert trace.end_of_call_reset[1].touched_by == ["PCS_compute"]


def test_signature_index_out_of_range_stops_that_list_only():
    """D3D12_DISPATCH_LIST_INPUT1::SignatureIndex out of range is undefined behaviour: finding; the list runs no
    records; its continuation (read from the same header) is still followed."""
    c = Chain()
    c.add_list(0, "compute", signature=9)
    c.add_list(1, "compute", next_=0)
    trace = c.run()
    assert [(f.kind, f.list_index, f.va) for f in trace.findings] == [
        ("signature-index-out-of-range", 0, LIST_VA + 8)]
    assert [e.list_index for e in trace.executions] == [1]


def test_direct_bind_requires_signature_index_zero():
    """"Compatibility of bind type with dispatch method": single binding with DispatchList1, SignatureIndex must be 0."""
    c = Chain()
    arr = c.s.state.program.WorkList1
    c.s.bind(arr.pSignatureArray.pSignatures[0], TABLE_VA, 32, 3)
    c.add_list(0, "compute", next_=0)  # SignatureIndex 0: fine
    assert not c.run().findings
    c.add_list(0, "graphics", next_=0)  # SignatureIndex 1 with a direct bind
    assert [(f.kind, f.rule) for f in c.run().findings] == [
        ("direct-bind-signature-index-nonzero", "Compatibility of bind type with dispatch method")]


def test_array_bind_with_tier1_dispatch_list_is_invalid():
    c = Chain()
    c.s.put(0x900, dispatch_input(1, REC_VA, c.stride))
    trace = run_dispatch_list(c.s.memory, c.s.device, c.s.objects, c.s.state, DispatchListCall(0x900))
    assert [f.kind for f in trace.findings] == ["bind-type-mismatch-dispatch-method"] and not trace.executions


def test_tier2_call_on_tier1_device():
    c = Chain()
    c.chain(["compute"])
    c.s.device.Tier = E("D3D12_WORK_LISTS_TIER", "TIER_1")
    assert [(f.kind, f.rule) for f in c.run().findings] == [
        ("tier-not-supported", "Feature Tiers and Capability Queries"),  # DispatchList1 is a Tier 2 entry point
        ("tier-not-supported", "Binding via SetProgram")]  # and the array bind path is Tier 2 only


def test_input1_reserved_padding_nonzero():
    c = Chain()
    c.add_list(0, "compute", next_=0, padding=1)
    trace = c.run()
    assert [(f.kind, f.va) for f in trace.findings] == [("reserved-padding-nonzero", LIST_VA + 12)]


def test_misaligned_next_dispatch_list():
    """D3D12_DISPATCH_LIST_INPUT1::NextDispatchList: "Must be 0 or 8-byte aligned"."""
    c = Chain()
    c.add_list(0, "compute", next_=LIST_VA + 0x104)
    trace = c.run()
    assert [(f.kind, f.va) for f in trace.findings] == [("misaligned-va", LIST_VA + 0x104)]
    assert len(trace.lists) == 1


def test_raytracing_binding_per_list_and_graphics_ordering_flag():
    """"Signature Selection": SignatureIndex selects signature and binding together; _ALLOW_OUT_OF_ORDER_GRAPHICS
    makes a graphics list "any order" without changing the counter numbering."""
    c = Chain()
    c.add_list(0, "raytracing")
    c.add_list(1, "graphics", n=3, flags_=flags(F1, "ALLOW_OUT_OF_ORDER_GRAPHICS"), next_=0)
    trace = c.run()
    assert not trace.findings
    assert trace.executions[0].program == "RTPSO" and trace.lists[0].binding["Type"] == "RAYTRACING"
    assert trace.lists[1].ordering == "any order"
    assert [e.counter for e in trace.executions[1:]] == [0, 1, 2]


# ----------------------------------------------------------------------------------------------------------------
# Validation hooks: the insertion points and re-reads (no validators are implemented here)
# ----------------------------------------------------------------------------------------------------------------


class ZeroingHooks:
    """A stand-in hook runner: at the primary-list step it neutralizes list 0 (NumProgramInputs = 0), as the
    spec's "Whole list" neutralization pattern does."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int]] = []

    def signature_selection(self, run: ListRun) -> bool:
        self.calls.append(("signature_selection", run.index))
        return False

    def primary_list(self, run: ListRun) -> bool:
        self.calls.append(("primary_list", run.index))
        if run.index == 0:
            run.ctx.memory.write_u32(run.va, 0)
            return True
        return False

    def secondary_lists(self, run: ListRun) -> bool:
        self.calls.append(("secondary_lists", run.index))
        return False


def test_hooks_run_in_step_order_and_the_header_is_re_read():
    """"Validator invocation order and barriers": steps 1, 4, 7 per list; step 6 re-reads the header, so a list
    neutralized by its primary-list validator executes no records and still continues."""
    c = Chain()
    c.add_list(0, "compute", n=2)
    c.add_list(1, "compute", next_=0)
    c.bind_validation_table()
    hooks = ZeroingHooks()
    trace = c.run(hooks=hooks)
    assert hooks.calls == [(step, i) for i in (0, 1) for step in ("signature_selection", "primary_list",
                                                                  "secondary_lists")]
    assert [e.list_index for e in trace.executions] == [1]
    assert trace.lists[0].header["NumProgramInputs"] == 0


def test_hooks_do_not_run_without_a_validation_program_table():
    """"Binding the validation program table": with a null ValidationProgramTable no validators are invoked."""
    c = Chain()
    c.add_list(0, "compute", n=2, next_=0)
    hooks = ZeroingHooks()
    trace = c.run(hooks=hooks)
    assert hooks.calls == [] and len(trace.executions) == 2


def test_pointer_args_report_list_header_and_primary_list():
    """The system pointer args resolve to the header, the primary list and the program table start."""
    grs = root_signature("G", view_param("SRV"), view_param("SRV", 1))
    pcs = ProgramCommandSignature("P", [
        arg("PROGRAM_TABLE_POINTER", "SYSTEM", ProgramTablePointer=RootParameterIndexArg(0)),
        arg("PRIMARY_RECORD_POINTER", "SYSTEM", PrimaryRecordPointer=RootParameterIndexArg(1)),
        arg("DISPATCH")], pGlobalRootSignature=grs)
    s = one_program_scene(pcs)
    s.put(REC_VA, primary(pcs, 24, ProgramTableIndex=0, arg2_Dispatch=dispatch(1)) * 2)
    s.put(LIST_VA, dispatch_input1(2, REC_VA, 24))
    trace = run_dispatch_list(s.memory, s.device, s.objects, s.state, DispatchListCall(LIST_VA, tier2=True))
    assert not trace.findings
    assert [e.root_argument("global", 1).value for e in trace.executions] == [REC_VA, REC_VA + 24]
    assert trace.executions[1].root_argument("global", 0).value == TABLE_VA
    assert [(r.what, r.parameter) for r in trace.end_of_call_reset] == [("root view", 0), ("root view", 1)]


class RewritingHooks(ZeroingHooks):
    """A stand-in validator that writes memory (the header's own NumProgramInputs, unchanged) at the
    signature-selection step of the first ``writes`` lists, then stops writing."""

    def __init__(self, writes: int) -> None:
        super().__init__()
        self.writes = writes

    def signature_selection(self, run: ListRun) -> bool:
        self.calls.append(("signature_selection", run.index))
        if self.writes:
            self.writes -= 1
            run.ctx.memory.write_u32(run.va, run.header["NumProgramInputs"])
            return True
        return False

    def primary_list(self, run: ListRun) -> bool:
        return False


def test_revisit_after_a_validator_wrote_memory_is_not_yet_a_cycle():
    """"Chain length and termination" / "Validator defensive neutralization patterns": validators read and write
    the memory the chain runs on, so a list revisited with the same header bytes is a cycle that can never end
    only if nothing was written since the first visit.  Lists 0 -> 1 -> 0 -> ...: writes at visits 0-2, so the
    first revisit that proves a cycle is list 1 at visit 5."""
    c = Chain()
    c.add_list(0, "compute", n=1, flags_=CONT | flags(F1, "END_WITH_WAIT_FOR_COMPLETION"))  # its writes sequenced
    c.add_list(1, "compute", n=1, next_=LIST_VA)
    c.bind_validation_table()
    trace = c.run(hooks=RewritingHooks(writes=3))
    assert [f.kind for f in trace.findings] == ["chain-cycle"]
    assert len(trace.lists) == 5 and trace.findings[0].list_index == 4
