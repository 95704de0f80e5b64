"""Spec "Incrementing constant semantics", every rule (the per-list reset in a chain is in test_executor_chains,
ExecuteIndirect's counter in test_executor_execute_indirect)."""

from __future__ import annotations

from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    Scene,
    arg,
    constants_param,
    dispatch,
    dispatch_input,
    flags,
    primary,
    program,
    program_table,
    root_signature,
    secondaries,
)

from d3d12wl.executor import run_dispatch_list
from d3d12wl.model.objects import IncrementingConstantArg, ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import DispatchListCall, RootArgument
from d3d12wl.records.layout import pcs_layout

GRS = root_signature("G", constants_param(2))
RESET = flags("D3D12_INCREMENTING_CONSTANT_FLAGS", "RESET_PER_SECONDARY_LIST")


def ic(flags_: int = 0, local: bool = False):
    return arg("INCREMENTING_CONSTANT", "SYSTEM", "LOCAL_ROOT_SIGNATURE" if local else "GLOBAL_ROOT_SIGNATURE",
               IncrementingConstant=IncrementingConstantArg(0, 1, flags_))


def hybrid_pcs(name: str = "H", ic_flags: int | None = 0) -> ProgramCommandSignature:
    args = [arg("DISPATCH", "SECONDARY_RECORD")]
    if ic_flags is not None:
        args.insert(0, ic(ic_flags))
    return ProgramCommandSignature(name, args, SecondaryRecordByteStride=16, pGlobalRootSignature=GRS)


def inline_pcs(name: str = "I", with_ic: bool = True) -> ProgramCommandSignature:
    args = [arg("DISPATCH")]
    if with_ic:
        args.insert(0, ic())
    return ProgramCommandSignature(name, args, pGlobalRootSignature=GRS)


def run_list(pcses: list[ProgramCommandSignature], records: list[tuple[int, int]], flags_: int = 0):
    """records: (pcs index, NumSecondaryRecords or -1 for an inline record)."""
    s = Scene()
    progs = [program(p.name, i + 1, p) for i, p in enumerate(pcses)]
    s.add_programs(*progs)
    s.put(TABLE_VA, program_table([(p, {}) for p in progs], 32))
    s.bind(WorkListSignature("W", pcses), TABLE_VA, 32, len(progs))
    # DWORD 0 of GRS parameter 0 from the command list, in both binding sets (the counter writes DWORD 1)
    s.state.graphics_root_arguments[0] = s.state.compute_root_arguments[0] = RootArgument("constants", values=[7, 0])
    stride = 24
    data = b""
    for r, (k, n) in enumerate(records):
        pcs = pcses[k]
        layout = pcs_layout(pcs)
        last = len(pcs.pArgumentDescs) - 1
        if n < 0:
            trigger = layout.primary.arg_field(last).name
            data += primary(pcs, stride, ProgramTableIndex=k, **{trigger: dispatch(1)})
        else:
            va = SECONDARY_VA + 0x1000 * r
            trigger = layout.secondary.arg_field(last).name
            s.put(va, secondaries(pcs, [{trigger: dispatch(1)}] * n))
            data += primary(pcs, stride, ProgramTableIndex=k, NumSecondaryRecords=n, SecondaryRecords=va)
    s.put(PRIMARY_VA, data)
    s.put(INPUT_VA, dispatch_input(len(records), PRIMARY_VA, stride, flags_))
    trace = run_dispatch_list(s.memory, s.device, s.objects, s.state, DispatchListCall(INPUT_VA, 16))
    assert not trace.findings
    return trace


def test_list_wide_counter_crosses_primary_records():
    """"By default the count does not reset at primary record boundaries": secondary records of primary record N
    continue from where N-1's left off; primary records themselves do not increment."""
    trace = run_list([hybrid_pcs()], [(0, 2), (0, 0), (0, 3)])
    assert [e.counter for e in trace.executions] == [0, 1, 2, 3, 4]
    assert [e.root_argument("global", 0).values[1] for e in trace.executions] == [0, 1, 2, 3, 4]
    assert trace.executions[0].root_argument("global", 0).sources[-1].origin == "system: incrementing constant"


def test_reset_per_secondary_list_restarts_at_each_primary_record():
    """_RESET_PER_SECONDARY_LIST: "the counter restarts at 0 at the start of every primary record's secondary
    list"."""
    trace = run_list([hybrid_pcs(ic_flags=RESET)], [(0, 2), (0, 3)])
    assert [e.counter for e in trace.executions] == [0, 1, 0, 1, 2]
    assert [e.invocation for e in trace.executions] == [0, 1, 2, 3, 4]


def test_inline_signatures_count_primary_records():
    """"For fully-inline signatures ... each primary record is one shader invocation"."""
    trace = run_list([inline_pcs()], [(0, -1)] * 4)
    assert [e.counter for e in trace.executions] == [0, 1, 2, 3]


def test_reset_flag_has_no_effect_on_inline_records():
    """"on a fully-inline signature the flag has no effect because there is no secondary list"."""
    pcs = ProgramCommandSignature("I", [ic(RESET), arg("DISPATCH")], pGlobalRootSignature=GRS)
    trace = run_list([pcs], [(0, -1)] * 3)
    assert [e.counter for e in trace.executions] == [0, 1, 2]


def test_counter_counts_every_execution_regardless_of_program():
    """"Effect of continuations on per-list state": within a list the counter increments across every execution
    ... regardless of which program runs each execution (one PCS of the signature carries the IC)."""
    trace = run_list([hybrid_pcs("H", ic_flags=None), inline_pcs("I")], [(0, 2), (1, -1), (0, 1), (1, -1)])
    assert [(e.pcs, e.counter, e.invocation) for e in trace.executions] == [
        ("H", None, 0), ("H", None, 1), ("I", 2, 2), ("H", None, 3), ("I", 4, 4)]


def test_out_of_order_graphics_does_not_change_numbering():
    """"Interaction with _ALLOW_OUT_OF_ORDER_GRAPHICS": invocation N always sees counter == N."""
    pcs = ProgramCommandSignature("G", [ic(), arg("DRAW")], pGlobalRootSignature=GRS)
    trace = run_list([pcs], [(0, -1)] * 3, flags("D3D12_DISPATCH_LIST_FLAGS", "ALLOW_OUT_OF_ORDER_GRAPHICS"))
    assert [e.counter for e in trace.executions] == [0, 1, 2]
    assert trace.lists[0].ordering == "any order"
