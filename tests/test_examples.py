"""The bundled example captures, one per call kind, and what each is for:

* ``culling_capture.json``: ``DispatchList`` (Tier 1), the spec's "GPU culling and work list emission" (its
  executions are tested in ``test_dump.py``);
* ``execute_indirect_capture.json``: ``ExecuteIndirect`` with IndirectDrawing.md's "Root Constants + Vertex Buffers"
  command signature and a count buffer: 5 commands written, the count buffer says 3, MaxCommandCount 4, so
  ``min(3, 4)`` = 3 commands execute (IndirectDrawing.md "Drawing");
* ``tier2_chain_capture.json``: ``DispatchList1`` (Tier 2), a compute-class culling list continuing into a
  graphics-class draw list (spec "Work Lists Overview" cross-class chaining, "Signature Selection", "Dispatch List
  Continuations", "MaxGraphicsPrimaryLists", "Effect of continuations on per-list state").

Each is written by ``tools/make_example_capture.py`` from a JSON description next to it; the values below are the
generator's choices, stated here as what the example shows.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from d3d12wl import abi
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.executor import execute
from d3d12wl.executor.trace import Trace
from d3d12wl.model import description
from d3d12wl.records.layout import command_layout

TOOL = Path(__file__).resolve().parent.parent / "tools" / "make_example_capture.py"

#: capture -> (its JSON description, the D3D12_WORK_LISTS_TIER to validate it for, the call)
EXAMPLES = {
    "culling_capture.json": ("culling.json", "1", "DispatchList"),
    "execute_indirect_capture.json": ("execute_indirect.json", "1", "ExecuteIndirect"),
    "tier2_chain_capture.json": ("tier2_chain.json", "2", "DispatchList1"),
}
COLLECTIONS = ("root_signatures", "program_command_signatures", "work_list_signatures", "work_list_signature_arrays",
               "command_signatures", "programs")


def example_path(name: str) -> Path:
    path = resources.files("d3d12wl").joinpath(f"examples/{name}")
    assert isinstance(path, Path)  # an ordinary directory in the tests (source tree or installed package)
    return path


def run(name: str) -> Trace:
    return execute(load_capture(example_path(name)))


# ----------------------------------------------------------------------------------------------------------------
# every example
# ----------------------------------------------------------------------------------------------------------------


def test_generator_output_is_current() -> None:
    """``tools/make_example_capture.py --check``: every committed capture is what the generator writes now."""
    if not TOOL.exists():
        pytest.skip("source checkout only")
    proc = subprocess.run([sys.executable, str(TOOL), "--check"], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr


@pytest.mark.parametrize("capture", list(EXAMPLES))
def test_description_validates_clean(capture: str, capsys: pytest.CaptureFixture[str]) -> None:
    """``d3d12wl validate`` on each example's description, for the tier its call needs."""
    desc, tier, _ = EXAMPLES[capture]
    assert main(["validate", str(example_path(desc)), "--tier", tier]) == 0
    assert capsys.readouterr().out.strip() == "no violations"


def test_tier2_description_needs_tier_2(capsys: pytest.CaptureFixture[str]) -> None:
    """The chain's signature array is Tier 2 surface (spec "Tier 2 Dispatch Features")."""
    assert main(["validate", str(example_path("tier2_chain.json")), "--tier", "1"]) == 1
    assert "CreateWorkListSignatureArray" in capsys.readouterr().out


@pytest.mark.parametrize("capture", list(EXAMPLES))
def test_objects_come_from_the_description(capture: str) -> None:
    """The capture's object collections are its description's, member for member; small (< 50 KiB)."""
    doc = json.loads(example_path(capture).read_text(encoding="utf-8"))
    desc = description.dump(description.load(example_path(EXAMPLES[capture][0])))
    assert {k: doc[k] for k in COLLECTIONS if k in doc} == {k: v for k, v in desc.items() if v}
    assert example_path(capture).stat().st_size < 50 * 1024


@pytest.mark.parametrize("capture", list(EXAMPLES))
def test_executes_with_no_findings(capture: str) -> None:
    trace = run(capture)
    assert trace.call == EXAMPLES[capture][2]
    assert trace.findings == [] and trace.stopped_reason is None and trace.executions


@pytest.mark.parametrize("capture", list(EXAMPLES))
def test_cli_from_another_directory(capture: str, tmp_path: Path) -> None:
    """``d3d12wl dump <example>`` and ``d3d12wl exec <example> --json`` run from any working directory."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    path = str(example_path(capture))
    proc = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", path], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "findings (0): none" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "d3d12wl", "exec", path, "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["call"] == EXAMPLES[capture][2] and out["findings"] == []


# ----------------------------------------------------------------------------------------------------------------
# ExecuteIndirect: min(count, MaxCommandCount) commands of Root Constants + Vertex Buffers
# ----------------------------------------------------------------------------------------------------------------

#: per command: (root constant 2, root constant 6, VB slot 3 BufferLocation, SizeInBytes, DRAW arguments)
EI_COMMANDS = [
    (100, 7, 0x200000, 64, {"VertexCountPerInstance": 36, "InstanceCount": 4, "StartVertexLocation": 0,
                            "StartInstanceLocation": 0}),
    (101, 3, 0x201000, 16, {"VertexCountPerInstance": 24, "InstanceCount": 1, "StartVertexLocation": 36,
                            "StartInstanceLocation": 0}),
    (102, 7, 0x202000, 256, {"VertexCountPerInstance": 96, "InstanceCount": 16, "StartVertexLocation": 60,
                             "StartInstanceLocation": 0}),
]


def test_execute_indirect_runs_min_of_count_and_max_command_count() -> None:
    """IndirectDrawing.md "Drawing": ``CommandCount = min(*pCountBuffer, MaxCommandCount)``; the argument buffer
    holds more commands than either (5 at ByteStride 40), and only the first 3 execute."""
    capture = load_capture(example_path("execute_indirect_capture.json"))
    trace = execute(capture)
    args = trace.call_args
    assert (args["count_buffer_value"], args["MaxCommandCount"], args["command_count"]) == (3, 4, 3)
    cs = capture.objects.command_signatures["RootConstantsAndVertexBuffers"]
    assert cs.ByteStride == command_layout(cs).size == 40
    argument_buffer = next(r for r in capture.memory.regions if r.base == args["ArgumentBuffer"])
    assert argument_buffer.size == 5 * cs.ByteStride
    assert [e.command_index for e in trace.executions] == [0, 1, 2]


def test_execute_indirect_commands_carry_their_own_values() -> None:
    """Each command sets root constants 2 and 6, VB slot 3 and the DRAW arguments from its own 40 bytes; RS's other
    parameters and VB slot 0 come from the command list (IndirectDrawing.md "Root Constants + Vertex Buffers")."""
    trace = run("execute_indirect_capture.json")
    for e, (c2, c6, vb, vb_size, draw) in zip(trace.executions, EI_COMMANDS, strict=True):
        assert e.trigger.type == "DRAW" and e.trigger.fields == draw
        p2, p6 = e.root_argument("global", 2), e.root_argument("global", 6)
        assert p2 is not None and p6 is not None
        assert (p2.values, p6.values) == ([c2], [c6])
        assert [s.kind for s in p2.sources + p6.sources] == ["command", "command"]
        ia = {b.slot: b for b in e.ia}
        assert ia[3].fields == {"BufferLocation": vb, "SizeInBytes": vb_size, "StrideInBytes": 16}
        assert ia[3].source.kind == "command" and ia[0].source.kind == "command-list"
        cbv = e.root_argument("global", 0)
        assert cbv is not None and cbv.sources[0].kind == "command-list"
    reset = {(r.binding_set, r.what, r.parameter if r.slot is None else r.slot) for r in trace.end_of_call_reset}
    assert reset == {("graphics", "root constant", 2), ("graphics", "root constant", 6), ("ia", "vertex buffer", 3)}


# ----------------------------------------------------------------------------------------------------------------
# DispatchList1: compute culling list -> graphics draw list
# ----------------------------------------------------------------------------------------------------------------


def test_tier2_chain_two_lists_two_classes_two_signatures() -> None:
    """Spec "Signature Selection": each list's SignatureIndex picks the signature and its paired binding from the
    array bind (D3D12_PROGRAM_TYPE_WORK_LIST1, one program table per signature)."""
    capture = load_capture(example_path("tier2_chain_capture.json"))
    program = capture.state.program
    assert program is not None and program.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1")
    assert len(program.WorkList1.pBindings) == 2
    trace = execute(capture)
    lists = trace.lists
    assert [(x.signature_index, x.signature, x.executable_class) for x in lists] == [
        (0, "WLS_Cull", "COMPUTE"), (1, "WLS_Draw", "GRAPHICS")]
    tables = [x.binding["ProgramTable"]["Table"] for x in lists]  # type: ignore[index]
    assert tables[0]["StartAddress"] != tables[1]["StartAddress"]
    assert [t["StrideInBytes"] for t in tables] == [32, 48]  # identifier only; identifier + float4 tint
    assert [(e.list_index, e.program) for e in trace.executions] == [
        (0, "Cull"), (0, "Cull"), (0, "Cull"), (1, "Opaque"), (1, "Opaque"), (1, "Opaque"), (1, "AlphaTested"),
        (1, "AlphaTested")]
    assert [e.trigger.type for e in trace.executions] == ["DISPATCH"] * 3 + ["DRAW"] * 5
    assert [e.trigger.fields["ThreadGroupCountX"] for e in trace.executions[:3]] == [2, 1, 4]  # 100, 64, 200 / 64
    assert [x.primary_records[0].record_kind for x in lists] == ["INLINE", "HYBRID"]


def test_tier2_chain_continuation() -> None:
    """Spec "Dispatch List Continuations": the compute list allows continuation, waits and flushes, so
    NextDispatchList is read after preceding work has retired; the draw list's NextDispatchList is null."""
    trace = run("tier2_chain_capture.json")
    head, tail = trace.lists
    assert head.flags == ["ALLOW_NEXT_DISPATCH_LIST_CONTINUATION", "END_WITH_WAIT_FOR_COMPLETION",
                          "END_WITH_MEMORY_FLUSH"]
    cont = head.continuation
    assert cont is not None
    assert (cont["allowed"], cont["wait_for_completion"], cont["memory_flush"], cont["followed"]) == (
        True, True, True, True)
    assert cont["next"] == tail.va and "retired" in cont["read_point"]
    assert tail.header["NextDispatchList"] == 0 and tail.flags == []
    assert tail.continuation is not None and tail.continuation["followed"] is False


def test_tier2_chain_counter_resets_per_list() -> None:
    """Spec "Effect of continuations on per-list state": the incrementing constant restarts at 0 in every list
    (compute GRS parameter 1, graphics GRS parameter 5), and counts across primary records within a list."""
    trace = run("tier2_chain_capture.json")
    assert [e.counter for e in trace.executions] == [0, 1, 2, 0, 1, 2, 3, 4]
    for e in trace.executions:
        ic = e.root_argument("global", 1 if e.list_index == 0 else 5)
        assert ic is not None and ic.values == [e.counter] and ic.sources[0].kind == "system"


def test_tier2_chain_max_graphics_primary_lists() -> None:
    """Spec "MaxGraphicsPrimaryLists": compute -> graphics needs 1; 0 is exceeded (rule 11)."""
    capture = load_capture(example_path("tier2_chain_capture.json"))
    assert capture.call.MaxGraphicsPrimaryLists == 1
    trace = execute(capture)
    assert trace.graphics_lists == 1 and [x.counts_as_graphics_list for x in trace.lists] == [False, True]
    capture.call.MaxGraphicsPrimaryLists = 0
    assert [f.kind for f in execute(capture).findings] == ["max-graphics-primary-lists-exceeded"]


def test_tier2_chain_one_reset_at_end_of_call_for_both_classes() -> None:
    """Spec "State leakage and reset": one reset after the whole chain, the union of what each signature touched,
    per class (compute set: GRS 1 and 2; graphics set: GRS 4 and 5); GRS 0 and 3 (command-list only) keep theirs."""
    trace = run("tier2_chain_capture.json")
    reset: dict[tuple[str, int | None], Any] = {(r.binding_set, r.parameter): r for r in trace.end_of_call_reset}
    assert set(reset) == {("compute", 1), ("compute", 2), ("graphics", 4), ("graphics", 5)}
    assert reset["compute", 1].touched_by == ["PCS_Cull"] and reset["graphics", 5].touched_by == ["PCS_Draw"]
    assert [reset[k].what for k in (("compute", 1), ("compute", 2), ("graphics", 4), ("graphics", 5))] == [
        "root constant", "root view", "root view", "root constant"]
