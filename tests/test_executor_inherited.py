"""What a draw sees (issue 25), in the specs' words, on both engines: the root arguments a command inherits from the
command list, the root parameters nothing set, and the bounds of an argument buffer the capture read back only in
part.

IndirectDrawing.md "Overview": a command signature specifies "The set of resource bindings which will change
per-command call versus the set which will be inherited"; "Command signature Creation": "The root signature must be
specified if and only if the command signature changes one of the root arguments"; "Driver Conformance Tests":
"Arbitrary command signatures produce the same results as corresponding non-indirect rendering API calls".  Work
Lists "Binding sources at record execution": "global root signature slots not touched by any per-record arg keep
the value that was set on the command list before DispatchList via SetGraphicsRoot* / SetComputeRoot* calls".

The ExecuteIndirect cases port the facts that vkd3d-proton's ``test_execute_indirect`` and
``test_execute_indirect_state`` (tests/d3d12_command.c) assert on real drivers: a DRAW / DRAW_INDEXED / DISPATCH
command signature created without a root signature draws and dispatches with the command list's root constants
and root views, a command signature that sets DWORDs 1-2 of a four-DWORD constants slot leaves DWORDs 0 and 3 to
the command list, and the same two commands executed through MaxCommandCount 1024 and a count buffer of 2 from a
256 KiB argument buffer.  Only the facts are ported (argument layouts, values, counts, what each draw receives).
"""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from executor_builder import culling_scene
from test_executor_differential import same

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture, save_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.cli import main
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.executor.trace import Trace
from d3d12wl.model import description
from d3d12wl.model.state import (
    BufferResource,
    CommandListState,
    DeviceCaps,
    ExecuteIndirectCall,
    IndexBufferView,
    RootArgument,
    VertexBufferView,
)
from d3d12wl.records import packers

ARGS_VA, COUNT_VA = 0x100000, 0x200000
CBV_VA, SRV_VA, UAV_VA = 0x300000, 0x310000, 0x320000
#: vkd3d-proton's root constants, SetGraphicsRoot32BitConstants(0, 4, {1000, 2000, 3000, 4000}) (floats)
VALUES = [1000.0, 2000.0, 3000.0, 4000.0]


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


#: the root signature of test_execute_indirect_state: b0 space1 four root constants, a root CBV, SRV and UAV
OBJECTS: dict[str, Any] = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "RegisterSpace": 1,
                                                           "Num32BitValues": 4}, "ShaderVisibility": "ALL"},
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "UAV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
    ], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]},
        "ComputeRS": {"pParameters": [
            {"ParameterType": "UAV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"}]}},
    "command_signatures": {
        # indirect_vbo: two vertex buffer views and the indexed draw, no root signature (needs_root_sig false)
        "IndirectVBO": {"ByteStride": 52, "pArgumentDescs": [
            {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 0}},
            {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 1}},
            {"Type": "DRAW_INDEXED"}]},
        # root_constant: DWORDs 1-2 of parameter 0 and the indexed draw (needs_root_sig true)
        "RootConstant": {"ByteStride": 28, "pRootSignature": "RS", "pArgumentDescs": [
            {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 0, "DestOffsetIn32BitValues": 1,
                                              "Num32BitValuesToSet": 2}},
            {"Type": "DRAW_INDEXED"}]},
        # test_execute_indirect: create_command_signature(device, D3D12_INDIRECT_ARGUMENT_TYPE_DISPATCH)
        "Dispatch": {"ByteStride": 12, "pArgumentDescs": [{"Type": "DISPATCH"}]},
        # a DRAW (16 bytes) at a 32-byte stride ("applications are allowed to specify an arbitrary byte stride")
        "PaddedDraw": {"ByteStride": 32, "pArgumentDescs": [{"Type": "DRAW"}]},
    },
}


def graphics_state(objects: Any) -> CommandListState:
    """test_execute_indirect_state's command list: RS, its four root arguments, VB 0 and 1 (4-byte stride), an
    R32_UINT index buffer."""
    return CommandListState(
        graphics_root_signature=objects.root_signatures["RS"],
        graphics_root_arguments={0: RootArgument("constants", values=[f32(v) for v in VALUES]),
                                 1: RootArgument("descriptor", CBV_VA), 2: RootArgument("descriptor", SRV_VA),
                                 3: RootArgument("descriptor", UAV_VA)},
        vertex_buffers={0: VertexBufferView(0x400000, 256, 4), 1: VertexBufferView(0x410000, 256, 4)},
        index_buffer=IndexBufferView(0x420000, 256, abi.enum_value("DXGI_FORMAT", "R32_UINT")))


def capture(cs_name: str, data: dict[str, Any], max_count: int, *, count: int | None = None,
            mapped: int | None = None, resource: int | None = None, state: CommandListState | None = None,
            offset: int = 0) -> Capture:
    """An ExecuteIndirect of ``cs_name`` over the commands ``data`` (packer columns), ``mapped`` of them read
    back (default all) ``offset`` bytes into the argument buffer; ``resource``: the argument buffer's Width
    (capture version 2), or None (the region stands for it)."""
    objects = description.load(json.loads(json.dumps(OBJECTS)))
    cs = objects.command_signatures[cs_name]
    args = packers.pack_execute_indirect(cs, data).reshape(-1, cs.ByteStride)
    memory = GpuMemory()
    memory.map(ARGS_VA + offset, args[:mapped].tobytes(), name="pArgumentBuffer")
    if count is not None:
        memory.map(COUNT_VA, packers.pack_count_buffer(count).tobytes(), name="pCountBuffer")
    call = ExecuteIndirectCall(cs, max_count, ARGS_VA + offset, COUNT_VA if count is not None else None,
                               BufferResource(ARGS_VA, resource) if resource is not None else None)
    return Capture(CAPTURE_VERSION, DeviceCaps(), objects, memory, graphics_state(objects) if state is None else state,
                   call)


def both(c: Capture) -> Trace:
    """The trace, the same from both engines (to_dict and the execution table)."""
    return same(c.memory, c.device, c.objects, c.state, c.call)


#: indirect_vbo_data: per command two vertex buffer views and a DRAW_INDEXED (BufferLocations are VAs here)
INDIRECT_VBO = {
    "arg0_VertexBuffer.BufferLocation": np.array([0x410000, 0], np.uint64),
    "arg0_VertexBuffer.SizeInBytes": np.array([64, 0], np.uint32),
    "arg0_VertexBuffer.StrideInBytes": np.array([8, 0], np.uint32),
    "arg1_VertexBuffer.BufferLocation": np.array([0x430000, 0x400000 + 64], np.uint64),
    "arg1_VertexBuffer.SizeInBytes": 64,
    "arg1_VertexBuffer.StrideInBytes": np.array([16, 0], np.uint32),
    "arg2_DrawIndexed.IndexCountPerInstance": 2,
    "arg2_DrawIndexed.InstanceCount": np.array([2, 1], np.uint32),
    "arg2_DrawIndexed.StartIndexLocation": 0, "arg2_DrawIndexed.BaseVertexLocation": 0,
    "arg2_DrawIndexed.StartInstanceLocation": 0,
}


def root_view(e: Any) -> dict[int, tuple[Any, list[str]]]:
    """Per global root parameter: its value (VA) or DWORDs, and its sources' kinds."""
    return {ra.parameter: (ra.values if ra.kind == "constants" else ra.value, [s.kind for s in ra.sources])
            for ra in e.root_arguments if ra.binding == "global"}


def test_a_command_signature_without_root_signature_draws_with_the_command_lists_root_arguments():
    """"The root signature must be specified if and only if the command signature changes one of the root
    arguments": IndirectVBO changes none and has none, and each of its draws sees every root argument of the
    command list's root signature (the constants, CBV, SRV and UAV it set), as "corresponding non-indirect rendering
    API calls" would; its vertex buffers come from the commands and the index buffer from the command list."""
    trace = both(capture("IndirectVBO", INDIRECT_VBO, 2))
    assert not trace.findings and len(trace.executions) == 2
    expected = {0: ([f32(v) for v in VALUES], ["command-list"]), 1: (CBV_VA, ["command-list"]),
                2: (SRV_VA, ["command-list"]), 3: (UAV_VA, ["command-list"])}
    for e in trace.executions:
        assert root_view(e) == expected
        assert [(b.slot, b.source.kind) for b in e.ia] == [(0, "command"), (1, "command"), (None, "command-list")]
    assert trace.executions[1].ia[0].fields["BufferLocation"] == 0  # "indirectly binding NULL descriptor"
    assert [e.trigger.fields["InstanceCount"] for e in trace.executions] == [2, 1]
    # the execution table (every exec export writes it): the inherited values with their source
    table = execution_columns(trace.executions)
    assert table.columns["root.G0[0]"].tolist() == [f32(1000.0)] * 2
    assert table.columns["root.G3"].tolist() == [UAV_VA] * 2
    assert [table.names["source"][c] for c in table.columns["root.G1.source"]] == ["command-list"] * 2
    # the reset (IndirectDrawing.md "State leakage") is what the command signature binds: the two VB slots only
    assert [(r.what, r.slot) for r in trace.end_of_call_reset] == [("vertex buffer", 0), ("vertex buffer", 1)]


def test_a_dispatch_without_root_signature_sees_the_command_lists_compute_root_uav():
    """test_execute_indirect's dispatch: a DISPATCH-only command signature without a root signature, the command
    list's compute root signature with one root UAV (SetComputeRootUnorderedAccessView), one command at
    ArgumentBufferOffset 64 (offsetof(argument_data, dispatch)) of a 116-byte buffer: the dispatch {2, 3, 4} sees
    the UAV, and only compute arguments ("compute command signatures only affect compute root arguments")."""
    objects = description.load(json.loads(json.dumps(OBJECTS)))
    state = CommandListState(compute_root_signature=objects.root_signatures["ComputeRS"],
                             compute_root_arguments={0: RootArgument("descriptor", UAV_VA)},
                             graphics_root_signature=objects.root_signatures["RS"])
    dispatch = {"arg0_Dispatch.ThreadGroupCountX": [2], "arg0_Dispatch.ThreadGroupCountY": 3,
                "arg0_Dispatch.ThreadGroupCountZ": 4}
    trace = both(capture("Dispatch", dispatch, 1, state=state, offset=64, resource=116))
    assert not trace.findings
    (e,) = trace.executions
    assert e.executable_class == "COMPUTE" and e.ia == []
    assert e.trigger.fields == {"ThreadGroupCountX": 2, "ThreadGroupCountY": 3, "ThreadGroupCountZ": 4}
    assert root_view(e) == {0: (UAV_VA, ["command-list"])}
    assert e.root_arguments[0].register == "u0 space0"


def test_root_constants_compose_the_commands_dwords_with_the_command_lists():
    """test_execute_indirect_state's root_constant case: CONSTANT {RootParameterIndex 0, DestOffsetIn32BitValues 1,
    Num32BitValuesToSet 2}: DWORDs 1 and 2 come from each command (100, 500; 200, 800), DWORDs 0 and 3 keep the
    command list's 1000 and 4000 ("When setting root constants, DestOffsetIn32BitValues and Num32BitValuesToSet are
    interpreted correctly"); after the call those two DWORDs are reset to 0 ("State leakage")."""
    data = {"arg0_Constant": np.array([[f32(100.0), f32(500.0)], [f32(200.0), f32(800.0)]], np.uint32),
            "arg1_DrawIndexed.IndexCountPerInstance": np.array([2, 1], np.uint32),
            "arg1_DrawIndexed.InstanceCount": np.array([1, 2], np.uint32),
            "arg1_DrawIndexed.StartIndexLocation": np.array([0, 1], np.uint32),
            "arg1_DrawIndexed.BaseVertexLocation": 0,
            "arg1_DrawIndexed.StartInstanceLocation": np.array([0, 100], np.uint32)}
    trace = both(capture("RootConstant", data, 2))
    assert not trace.findings
    first, second = (e.root_argument("global", 0) for e in trace.executions)
    assert first.values == [f32(1000.0), f32(100.0), f32(500.0), f32(4000.0)]
    assert second.values == [f32(1000.0), f32(200.0), f32(800.0), f32(4000.0)]
    assert [(s.kind, s.first_dword, s.num_dwords) for s in first.sources] == [
        ("command-list", 0, 1), ("command", 1, 2), ("command-list", 3, 1)]
    assert [(r.what, r.parameter, r.dwords) for r in trace.end_of_call_reset] == [("root constant", 0, [1, 2])]


def test_a_partial_readback_of_a_large_argument_buffer_is_no_bounds_error():
    """test_execute_indirect_state's "equivalent call with indirect count": MaxCommandCount 1024 and a count buffer
    of 2 over a 256 KiB argument buffer.  "The offset implied by MaxCommandCount, ArgumentBufferOffset, and the
    drawing program stride do not exceed the bounds of pArgumentBuffer": 1024 * 52 bytes fit the resource.  A
    capture that read back only the two commands cannot decide that bound: a warning that says the size is
    unknown and how to give it, not an error; with the resource given there is nothing to report, and with a
    resource too small for 1024 commands it is the runtime's error."""
    partial = both(capture("IndirectVBO", INDIRECT_VBO, 1024, count=2))
    (f,) = partial.findings
    assert (f.kind, f.severity, f.va) == ("argument-buffer-bounds-unknown", "warning", ARGS_VA)
    assert "its size is unknown" in f.message and "--argument-buffer-resource BASE,WIDTH[,STATE]" in f.message
    assert "version 2" in f.message
    assert len(partial.executions) == 2
    whole = both(capture("IndirectVBO", INDIRECT_VBO, 1024, count=2, resource=256 * 1024))
    assert not whole.findings and whole.to_dict()["executions"] == partial.to_dict()["executions"]
    small = both(capture("IndirectVBO", INDIRECT_VBO, 1024, count=2, resource=4096))
    assert [(f.kind, f.severity) for f in small.findings] == [("argument-buffer-out-of-bounds", "error")]


def test_a_root_parameter_nothing_sets_is_one_warning_per_call_and_parameter():
    """Work Lists "Binding sources at record execution": "The PSO sees the merged result: every global root
    signature slot the program uses (filled from one of the global root signature sources above)".  When neither
    the command list nor the command signature fills a slot, each draw reads an undefined value: one warning for
    the call and that parameter (not one per draw), naming it, how many executions read it and the first, and how
    to give its value.  The trace shows the slot as command-list state, not set."""
    c = capture("IndirectVBO", {**INDIRECT_VBO}, 2)
    del c.state.graphics_root_arguments[2]
    c.state.graphics_root_arguments[0] = RootArgument("constants", values=[f32(1000.0), f32(2000.0)])
    trace = both(c)
    assert [(f.kind, f.severity, f.command_index) for f in trace.findings] == [
        ("root-parameter-not-set", "warning", 0), ("root-parameter-not-set", "warning", 0)]
    constants, srv = (f.message for f in trace.findings)
    assert constants.startswith("DWORDs 2, 3 of graphics root parameter 0 (constants b0 space1) is set neither on "
                                "the command list nor by command signature 'IndirectVBO': 2 executions")
    assert srv.startswith("graphics root parameter 2 (SRV t0 space0)")
    assert "--root-arg graphics:2=VA" in srv and "counts every parameter the root signature declares as read" in srv
    ra = trace.executions[1].root_argument("global", 2)
    assert ra is not None and ra.value is None and [s.origin for s in ra.sources] == ["command-list state (not set)"]


@pytest.mark.parametrize("draws", [1, 3])
def test_a_work_list_global_parameter_nothing_sets_is_one_warning_for_the_call(draws):
    """Work Lists "Binding sources at record execution", global root signature / static default: the culling
    example's root CBV (GRS parameter 0) is command-list state; left unset, every draw reads an undefined value,
    reported once for the call, whatever the number of draws (both engines)."""
    s, call = culling_scene({"Opaque": draws, "Shadow": draws})
    assert not same(s.memory, s.device, s.objects, s.state, call).findings
    del s.state.graphics_root_arguments[0]
    trace = same(s.memory, s.device, s.objects, s.state, call)
    (f,) = trace.findings
    assert (f.kind, f.severity, f.rule) == ("root-parameter-not-set", "warning", "Binding sources at record execution")
    assert f.message.startswith("graphics root parameter 0 (CBV b0 space0) is set neither on the command list nor "
                                f"by PCS 'CullPCS': {2 * draws} executions (the first: execution 0)")
    assert (f.list_index, f.primary_index, f.secondary_index) == (0, 0, 0)


def test_dump_and_every_exec_format_show_the_inherited_root_arguments(tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]):
    """What the trace holds, every writer shows: `dump` lists the inherited root bindings with their source, and
    each `exec` format carries them (text, json, jsonl, csv, npz, parquet)."""
    path = save_capture(capture("IndirectVBO", INDIRECT_VBO, 2), tmp_path / "vbo.json")
    assert main(["dump", str(path)]) == 0
    out = capsys.readouterr().out
    assert "u0 space0" in out and "command-list state" in out
    assert main(["exec", str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [a["register"] for a in doc["executions"][0]["root_arguments"]] == [
        "b0 space1", "b0 space0", "t0 space0", "u0 space0"]
    for fmt in ("text", "jsonl", "csv"):
        assert main(["exec", str(path), "--format", fmt, "-o", str(tmp_path / f"out.{fmt}")]) == 0
        text = (tmp_path / f"out.{fmt}").read_text()
        assert (f"{UAV_VA}" in text or f"0x{UAV_VA:x}" in text), fmt
    assert main(["exec", str(path), "--format", "npz", "-o", str(tmp_path / "out.npz")]) == 0
    with np.load(tmp_path / "out.npz") as z:  # (table version 2: one structured array, d3d12wl.executor.output)
        assert z["executions"]["root.G3"].tolist() == [UAV_VA, UAV_VA]
    pq = pytest.importorskip("pyarrow.parquet")
    assert main(["exec", str(path), "--format", "parquet", "-o", str(tmp_path / "out.parquet")]) == 0
    assert pq.read_table(tmp_path / "out.parquet").column("root.G3").to_pylist() == [UAV_VA, UAV_VA]


def test_the_first_reader_is_the_same_whichever_program_table_slot_runs_first():
    """Two programs of one PCS (the culling example's Opaque and Shadow), their records in the reverse order of
    their program-table slots: both engines name the same first execution (the columnar engine groups records by
    slot, the reference walks them in order)."""
    s, call = culling_scene({"Opaque": 2, "Shadow": 3})
    del s.state.graphics_root_arguments[0]
    from executor_builder import PRIMARY_VA

    first, second = (s.memory.read(PRIMARY_VA + 16 * i, 16) for i in range(2))
    s.memory.write(PRIMARY_VA, second + first)  # Shadow (slot 2) first, then Opaque (slot 0)
    trace = same(s.memory, s.device, s.objects, s.state, call)
    assert [e.program for e in trace.executions] == ["Shadow"] * 3 + ["Opaque"] * 2
    (f,) = trace.findings
    assert "5 executions (the first: execution 0)" in f.message and f.primary_index == 0


def test_the_bound_counts_whole_strides_and_says_so_where_the_last_commands_bytes_fit():
    """"The offset implied by MaxCommandCount, ArgumentBufferOffset, and the drawing program stride": d3d12wl reads
    it as MaxCommandCount whole strides (docs/spec-questions.md Q5, reading A).  Four 16-byte DRAWs at a 32-byte
    stride in a resource of 3 * 32 + 16 bytes: under reading A an error that says the last command's used bytes
    fit; a resource of 4 * 32 bytes is within the bound; one of 3 * 32 bytes fails either way, without the note."""
    draws = {"arg0_Draw.VertexCountPerInstance": np.arange(4, dtype=np.uint32) + 3, "arg0_Draw.InstanceCount": 1,
             "arg0_Draw.StartVertexLocation": 0, "arg0_Draw.StartInstanceLocation": 0}
    tight = both(capture("PaddedDraw", draws, 4, resource=3 * 32 + 16))
    (f,) = tight.findings
    assert f.kind == "argument-buffer-out-of-bounds" and "reading A" in f.message and "end at 112" in f.message
    assert not both(capture("PaddedDraw", draws, 4, resource=4 * 32)).findings
    (short,) = both(capture("PaddedDraw", draws, 4, resource=3 * 32)).findings
    assert short.kind == "argument-buffer-out-of-bounds" and "reading A" not in short.message
