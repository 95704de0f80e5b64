"""The two-way sentences of docs/spec-questions.md that the executor can run both ways (``--reading NAME=VALUE``,
``executor.Readings``), on both engines: the broadcast program table's index (Q16), the count buffer of an
ExecuteIndirect whose MaxCommandCount is 0 (Q17) and the incrementing constant of an execution that does no work
(Q18).  The chain readings (Q14, Q15) are in test_executor_v0851.py; the
render-pass one (Q4) in test_executor_work_list_call.py."""

from __future__ import annotations

import struct

import pytest
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    Scene,
    arg,
    dispatch,
    dispatch_input,
    one_program_scene,
    primary,
    program,
    program_table,
    secondaries,
)
from test_executor_execute_indirect import ARGS_VA, COUNT_VA, ei_scene
from test_executor_incrementing_constant import RESET, hybrid_pcs

from d3d12wl.cli import main
from d3d12wl.executor import ENGINES, Readings, run
from d3d12wl.model.objects import ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import BufferResource, DispatchListCall, ExecuteIndirectCall, RootArgument
from d3d12wl.records.layout import command_layout, pcs_layout


def both(s, call, readings: Readings | None = None):
    traces = [run(s.memory, s.device, s.objects, s.state, call, engine=e, readings=readings) for e in ENGINES]
    assert traces[0].to_dict() == traces[1].to_dict()
    return traces[0]


def broadcast_call(indices: list[int]):
    """One compute program in a broadcast program table (Table.StrideInBytes 0, SlotCount 1), its records selecting
    ``indices``."""
    pcs = ProgramCommandSignature("P", [arg("DISPATCH")])
    s = one_program_scene(pcs)
    binding = s.state.program.WorkList.Binding.ProgramTable
    binding.Table.StrideInBytes = 0
    stride = 16
    s.put(PRIMARY_VA, b"".join(primary(pcs, stride, ProgramTableIndex=i, arg0_Dispatch=dispatch(i + 1))
                               for i in indices))
    s.put(INPUT_VA, dispatch_input(len(indices), PRIMARY_VA, stride))
    return s, DispatchListCall(INPUT_VA)


def test_a_broadcast_tables_index_is_bounded_by_slot_count_under_d3d12wls_reading():
    """D3D12_WORK_LIST_PROGRAM_TABLE_BINDING: SlotCount "Every primary record's ProgramTableIndex must be in [0,
    SlotCount). Keeping this separate is necessary for stride-0 broadcast, where many logical indices resolve to one
    physical record." (Q16, d3d12wl's reading ``checked``)."""
    s, call = broadcast_call([0, 5, 0])
    trace = both(s, call)
    assert [(f.kind, f.primary_index) for f in trace.findings] == [("program-table-index-out-of-range", 1)]
    assert "broadcast_slot_index=any" in trace.findings[0].message
    assert [e.primary_index for e in trace.executions] == [0, 2]


def test_every_index_selects_the_broadcast_record_under_the_other_reading():
    """Table: "A 0 stride is the broadcast form: every logical index resolves to the single record at the table's
    start address" (Q16, ``broadcast_slot_index=any``): index 5 runs the one program; a non-zero stride is
    unchanged."""
    s, call = broadcast_call([0, 5, 0])
    trace = both(s, call, Readings(broadcast_slot_index="any"))
    assert not trace.findings and [e.primary_index for e in trace.executions] == [0, 1, 2]
    assert trace.call_args["readings"] == {"broadcast_slot_index": "any"}
    assert trace.lists[0].primary_records[1].program_table.va == TABLE_VA
    s.state.program.WorkList.Binding.ProgramTable.Table.StrideInBytes = 32
    strided = both(s, call, Readings(broadcast_slot_index="any"))
    assert [f.kind for f in strided.findings] == ["program-table-index-out-of-range"]


@pytest.mark.parametrize("reading, read", [("read", True), ("unread", False)])
def test_the_count_buffer_of_a_zero_max_command_count(reading, read):
    """IndirectDrawing.md "Drawing": "UINT CommandCount = pCountBuffer->ReadUINT32(CountBufferOffset); CommandCount =
    min(CommandCount, MaxCommandCount)" and "The offset implied by MaxCommandCount ... (similarly for count buffer)"
    (Q17): d3d12wl reads and checks the count buffer when MaxCommandCount is 0 too; under ``unread`` a call that can
    execute nothing neither reads nor checks it.  Here the count buffer is unmapped and its resource too small."""
    s, cs = ei_scene(commands=1)
    call = ExecuteIndirectCall(cs, 0, ARGS_VA, COUNT_VA + 0x100,
                               CountBufferResource=BufferResource(COUNT_VA + 0x100, 2))
    trace = both(s, call, Readings(zero_max_count_buffer=reading))
    kinds = [f.kind for f in trace.findings]
    assert (kinds == ["count-buffer-out-of-bounds", "unmapped-va"]) == read and (kinds == []) != read
    assert trace.call_args["command_count"] == 0 if not read else "command_count" not in trace.call_args
    assert not trace.executions
    s.put(COUNT_VA, struct.pack("<I", 7))
    mapped = both(s, ExecuteIndirectCall(cs, 0, ARGS_VA, COUNT_VA), Readings(zero_max_count_buffer=reading))
    assert ("count_buffer_value" in mapped.call_args) == read and mapped.call_args["command_count"] == 0


def test_the_reading_flag_on_the_command_line(tmp_path, capsys):
    """``--reading NAME=VALUE`` names every reading; a bad one is exit 2 naming the flag."""
    assert main(["exec", "--reading", "broadcast_slot_index=sometimes"]) == 2
    err = capsys.readouterr().err
    assert "--reading" in err and "checked, any" in err
    assert main(["exec", "--reading", "zero_max_count_buffer=unread", "--json"]) == 0
    assert '"zero_max_count_buffer": "unread"' in capsys.readouterr().out


def zero_work_list(reset: bool):
    """Two primary records of a hybrid compute PCS with an incrementing constant, their secondary records'
    dispatches (2, 0, 3) and (0, 4): two of the five launch no thread group."""
    pcs = hybrid_pcs(ic_flags=RESET if reset else 0)
    s = Scene()
    p = program("H", 1, pcs)
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {})], 32))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 32, 1)
    s.state.compute_root_arguments[0] = RootArgument("constants", values=[7, 0])
    trigger = pcs_layout(pcs).secondary.arg_field(1).name
    data = b""
    for r, groups in enumerate(((2, 0, 3), (0, 4))):
        va = SECONDARY_VA + 0x1000 * r
        s.put(va, secondaries(pcs, [{trigger: dispatch(x)} for x in groups]))
        data += primary(pcs, 24, ProgramTableIndex=0, NumSecondaryRecords=len(groups), SecondaryRecords=va)
    s.put(PRIMARY_VA, data)
    s.put(INPUT_VA, dispatch_input(2, PRIMARY_VA, 24))
    return s, DispatchListCall(INPUT_VA)


@pytest.mark.parametrize("reset, consumes, skips", [(False, [0, 1, 2, 3, 4], [0, 1, 1, 2, 2]),
                                                    (True, [0, 1, 2, 0, 1], [0, 1, 1, 0, 0])],
                         ids=["list-wide", "_RESET_PER_SECONDARY_LIST"])
def test_a_dispatch_that_does_no_work_and_the_incrementing_constant(reset, consumes, skips):
    """Incrementing constant semantics: "The counter post-increments per shader invocation (per PSO launch)" and "one
    secondary record = one shader invocation" (Q18).  d3d12wl: every execution takes the next value (vkd3d-proton's
    tests assert the same of ExecuteIndirect); ``zero_work_counter=skips``: a dispatch of 0 thread groups launches
    nothing and takes none.  ``invocation`` is the position either way."""
    s, call = zero_work_list(reset)
    default = both(s, call)
    assert [e.counter for e in default.executions] == consumes
    assert [e.invocation for e in default.executions] == [0, 1, 2, 3, 4]
    other = both(s, call, Readings(zero_work_counter="skips"))
    assert [e.counter for e in other.executions] == skips
    assert [e.root_argument("global", 0).values[1] for e in other.executions] == skips
    assert other.call_args["readings"] == {"zero_work_counter": "skips"}


def test_an_execute_indirect_command_that_draws_nothing_and_the_incrementing_constant():
    """IndirectDrawing.md "Incrementing constant": "the value starts at 0 for the first command and increments by 1
    for each subsequent command" (d3d12wl, and vkd3d-proton's tests) against "update a specified root constant for
    each executed command" (Q18, ``zero_work_counter=skips``): command 1 draws 0 vertices."""
    s, cs = ei_scene(commands=3)
    draw_field = command_layout(cs).fields[-1]
    s.memory.write(ARGS_VA + cs.ByteStride + draw_field.offset, bytes(4))  # VertexCountPerInstance of command 1
    call = ExecuteIndirectCall(cs, 3, ARGS_VA)
    assert [e.counter for e in both(s, call).executions] == [0, 1, 2]
    assert [e.counter for e in both(s, call, Readings(zero_work_counter="skips")).executions] == [0, 1, 1]
