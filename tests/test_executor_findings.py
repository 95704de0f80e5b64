"""Every finding kind the executor can emit has a test (the remaining ones are here), and FINDING_KINDS matches the
code: design.md "Undefined behaviour is reported, never executed blindly ... Each finding names the rule or
section, the list, record and byte"."""

from __future__ import annotations

import re
from pathlib import Path

from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    Scene,
    arg,
    dispatch,
    dispatch_input,
    draw,
    ei_arg,
    hybrid_scene,
    primary,
    program,
    program_table,
    secondaries,
)
from test_executor_chains import LIST_VA, Chain, ZeroingHooks

import d3d12wl.executor
from d3d12wl.executor import run_dispatch_list, run_execute_indirect
from d3d12wl.executor.trace import FINDING_KINDS
from d3d12wl.model.objects import CommandSignature, EIConstantArg, ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import DispatchListCall, ExecuteIndirectCall

TESTS = Path(__file__).parent
SOURCES = Path(d3d12wl.executor.__file__).parent


def _emitted(paths: list[Path]) -> set[str]:
    code = "".join(p.read_text() for p in paths)
    found = set(re.findall(r'(?:finding\(\s*|kind\s*=\s*)"([a-z0-9-]+)"', code))
    return found | set(re.findall(r'"(stride-[a-z-]+)"', code))


def test_finding_kinds_table_matches_the_code_and_every_executor_kind_is_tested():
    executor = _emitted(list(SOURCES.glob("*.py"))) | {"limit-exceeded"}
    everywhere = executor | _emitted(list(SOURCES.parent.glob("*.py")))
    assert executor <= set(FINDING_KINDS) and set(FINDING_KINDS) <= everywhere
    tests = "".join(p.read_text() for p in TESTS.glob("test_executor*.py"))
    untested = [k for k in sorted(executor) if tests.count(f'"{k}"') < 1]
    assert untested == []


def run(s: Scene, call: DispatchListCall):
    return run_dispatch_list(s.memory, s.device, s.objects, s.state, call)


def test_secondary_stride_below_minimum_is_rule_25e():
    s, pcs = hybrid_scene(secondary_stride=8)
    s.put(SECONDARY_VA, bytes(64))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=2, SecondaryRecords=SECONDARY_VA))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.rule) for f in trace.findings] == [("stride-below-minimum", "rule 25(e)")]
    assert not trace.executions


def test_misaligned_secondary_records():
    """D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords: "The address must be 8-byte aligned"."""
    s, pcs = hybrid_scene()
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}] * 2) + bytes(8))
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=1, SecondaryRecords=SECONDARY_VA + 4))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.va, f.primary_index) for f in trace.findings] == [("misaligned-va", SECONDARY_VA + 4, 0)]


def test_unknown_flag_bits_is_a_warning():
    s, pcs = hybrid_scene()
    s.put(INPUT_VA, dispatch_input(0, 0, 0, flags_=0x80))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.severity) for f in trace.findings] == [("unknown-flag-bits", "warning")]
    assert trace.errors == []


def test_program_table_binding_invalid():
    """D3D12_WORK_LIST_PROGRAM_TABLE_BINDING: StrideInBytes 0 or a multiple of 8 in [32, 4096]; SizeInBytes >=
    SlotCount * stride."""
    s, pcs = hybrid_scene()
    s.state.program.WorkList.Binding.ProgramTable.Table.StrideInBytes = 36
    s.put(INPUT_VA, dispatch_input(0, 0, 0))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [f.kind for f in trace.findings] == ["program-table-binding-invalid"] * 2


def test_invalid_program_command_signature_in_the_bound_signature():
    s, pcs = hybrid_scene()
    s.state.program.WorkList.pSignature = WorkListSignature("W", [ProgramCommandSignature("NoTrigger", [])])
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [f.kind for f in trace.findings] == ["invalid-program-command-signature"]
    assert trace.lists[0].stopped


def test_program_class_mismatch_within_one_signature():
    """Spec "Work List Signature": "a single work list signature cannot mix executable classes"."""
    g = ProgramCommandSignature("G", [arg("DRAW")])
    c = ProgramCommandSignature("C", [arg("DISPATCH")])
    s = Scene()
    pc = program("PC", 2, c)
    s.add_programs(pc)
    s.put(TABLE_VA, program_table([(pc, {})], 32))
    s.bind(WorkListSignature("W", [g, c]), TABLE_VA, 32, 1)
    s.put(PRIMARY_VA, primary(c, 24, ProgramTableIndex=0, arg0_Dispatch=dispatch(1)))
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 24))
    trace = run(s, DispatchListCall(INPUT_VA, 1))
    assert [f.kind for f in trace.findings] == ["program-class-mismatch"] and not trace.executions


def test_num_bindings_mismatch():
    c = Chain()
    c.s.state.program.WorkList1.pBindings.pop()
    c.add_list(0, "compute", next_=0)
    trace = c.run()
    assert [f.kind for f in trace.findings] == ["num-bindings-mismatch"]
    assert len(trace.executions) == 1


class TableWriter(ZeroingHooks):
    """A hook that rewrites program-table slot 0 during list 1 (what rule 14 forbids)."""

    def primary_list(self, run):
        if run.index == 1:
            run.ctx.memory.write(0x40000, b"\x77" * 32)
        return False


def test_program_table_mutated_during_the_call_is_rule_14():
    c = Chain()
    c.add_list(0, "compute")
    c.add_list(1, "compute", next_=0)
    c.bind_validation_table()
    trace = c.run(hooks=TableWriter())
    assert ("program-table-mutated", "rule 14") in [(f.kind, f.rule) for f in trace.findings]
    assert trace.findings[0].list_index == 1 and LIST_VA


def test_execute_indirect_without_command_signature_or_trigger():
    s = Scene()
    trace = run_execute_indirect(s.memory, s.device, s.objects, s.state, ExecuteIndirectCall(None, 1, 0))
    assert [f.kind for f in trace.findings] == ["missing-command-signature"]
    cs = CommandSignature("CS", 8, [ei_arg("CONSTANT", Constant=EIConstantArg(0, 0, 1))])
    trace = run_execute_indirect(s.memory, s.device, s.objects, s.state, ExecuteIndirectCall(cs, 1, 0))
    assert [f.kind for f in trace.findings] == ["no-dispatch-trigger"] and draw(1)


def test_misaligned_program_inputs_start_address():
    """D3D12_DISPATCH_LIST_INPUT::ProgramInputs: "When NumProgramInputs > 0, StartAddress and StrideInBytes must be
    8-byte aligned"."""
    s, pcs = hybrid_scene()
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0) * 2)
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA + 4, 16))
    trace = run(s, DispatchListCall(INPUT_VA))
    assert [(f.kind, f.va) for f in trace.findings] == [("misaligned-va", PRIMARY_VA + 4)]
    assert trace.lists[0].primary_records == []
