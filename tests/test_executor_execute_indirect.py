"""ExecuteIndirect in the reference executor: IndirectDrawing.md "Drawing" (count buffer and MaxCommandCount),
"Incrementing constant", "State leakage", and the "Driver Conformance Tests" cases."""

from __future__ import annotations

import struct

import pytest
from executor_builder import Scene, constants_param, draw, ei_arg, encode, root_signature, view_param

from d3d12wl.executor import run_execute_indirect
from d3d12wl.model.objects import (
    CommandSignature,
    EIConstantArg,
    EIIncrementingConstantArg,
    RootParameterIndexArg,
    VertexBufferArg,
)
from d3d12wl.model.state import ExecuteIndirectCall, RootArgument, VertexBufferView
from d3d12wl.records.layout import command_layout

ARGS_VA = 0x10000
COUNT_VA = 0x20000


def ei_scene(commands: int = 5, stride: int | None = None) -> tuple[Scene, CommandSignature]:
    rs = root_signature("RS", constants_param(4), view_param("SRV", 0), view_param("CBV", 0))
    cs = CommandSignature("CS", 0, [
        ei_arg("CONSTANT", Constant=EIConstantArg(0, 1, 2)),
        ei_arg("INCREMENTING_CONSTANT", IncrementingConstant=EIIncrementingConstantArg(0, 3)),
        ei_arg("SHADER_RESOURCE_VIEW", ShaderResourceView=RootParameterIndexArg(1)),
        ei_arg("VERTEX_BUFFER_VIEW", VertexBuffer=VertexBufferArg(2)),
        ei_arg("DRAW")], pRootSignature=rs)
    layout = command_layout(cs)
    # tightly packed: 8 (2 constants) + 8 (SRV) + 16 (VBV) + 16 (DRAW), no padding
    assert [f.offset for f in layout.fields] == [0, 8, 16, 32] and layout.size == 48
    cs.ByteStride = stride or layout.size
    s = Scene()
    s.state.graphics_root_signature = rs
    s.state.graphics_root_arguments[0] = RootArgument("constants", values=[100, 101, 102, 103])
    s.state.graphics_root_arguments[2] = RootArgument("descriptor", 0xC0C0)
    s.state.vertex_buffers[0] = VertexBufferView(0xA, 1, 1)
    buf = bytearray()
    for k in range(commands):
        rec = bytearray(cs.ByteStride)
        for f, value in zip(layout.fields, [[k, k * 10], 0x5000 + k,
                                            {"BufferLocation": 0x8000 + k, "SizeInBytes": 64, "StrideInBytes": 16},
                                            draw(3 * (k + 1))], strict=True):
            if isinstance(value, list):
                struct.pack_into("<2I", rec, f.offset, *value)
            elif isinstance(value, int):
                struct.pack_into("<Q", rec, f.offset, value)
            else:
                rec[f.offset: f.offset + f.size] = encode(f.ctype, value)
        buf += rec
    s.put(ARGS_VA, buf)
    return s, cs


def run(s: Scene, call: ExecuteIndirectCall):
    return run_execute_indirect(s.memory, s.device, s.objects, s.state, call)


@pytest.mark.parametrize("count_value, max_count, expected", [(3, 5, 3), (7, 5, 5), (0, 5, 0), (4, 0, 0)])
def test_count_buffer_gives_min_of_count_and_max_command_count(count_value, max_count, expected):
    """IndirectDrawing.md "Drawing": with a count buffer, CommandCount = min(*pCountBuffer, MaxCommandCount);
    Driver Conformance Tests "GPU computes min(MaxCommandCount, CommandCount)", "MaxCommandCount==0"."""
    s, cs = ei_scene()
    s.put(COUNT_VA, struct.pack("<I", count_value))
    trace = run(s, ExecuteIndirectCall(cs, max_count, ARGS_VA, COUNT_VA))
    assert not trace.findings
    assert len(trace.executions) == expected
    assert trace.call_args["count_buffer_value"] == count_value and trace.call_args["command_count"] == expected


@pytest.mark.parametrize("max_count", [0, 1, 5])
def test_null_count_buffer_executes_exactly_max_command_count(max_count):
    """IndirectDrawing.md "Drawing": "If pCounterBuffer is NULL, the MaxCommandCount specifies the exact number of
    operations"; Driver Conformance Tests "CountBuffer is NULL and ... non-NULL", "MaxCommandCount==0"."""
    s, cs = ei_scene()
    trace = run(s, ExecuteIndirectCall(cs, max_count, ARGS_VA, None))
    assert not trace.findings and len(trace.executions) == max_count


def test_commands_walk_by_byte_stride_with_incrementing_constant_and_root_constant_offsets():
    """"Arbitrary 4-byte aligned byte strides", "DestOffsetIn32BitValues and Num32BitValuesToSet are interpreted
    correctly", "Incrementing constant": 0 for the first command, +1 per command."""
    s, cs = ei_scene(commands=3, stride=52)
    trace = run(s, ExecuteIndirectCall(cs, 3, ARGS_VA))
    assert not trace.findings
    for k, e in enumerate(trace.executions):
        assert e.record_va["command"] == ARGS_VA + 52 * k
        assert e.counter == k
        assert e.root_argument("global", 0).values == [100, k, k * 10, k]
        assert [src.kind for src in e.root_argument("global", 0).sources] == ["command-list", "command", "system"]
        assert e.root_argument("global", 1).value == 0x5000 + k
        assert e.root_argument("global", 2).value == 0xC0C0  # untouched: command-list state
        assert e.trigger.fields["VertexCountPerInstance"] == 3 * (k + 1)
        assert {b.slot: b.source.kind for b in e.ia} == {0: "command-list", 2: "command"}


def test_state_leakage_reset_set():
    """IndirectDrawing.md "State leakage": touched VB slot -> NULL, root constants -> 0 (incrementing included),
    root views -> NULL; untouched bindings are not reset."""
    s, cs = ei_scene(commands=1)
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA))
    got = [(r.binding_set, r.what, r.parameter, r.slot, r.dwords, r.reset_to) for r in trace.end_of_call_reset]
    assert got == [("graphics", "root constant", 0, None, [1, 2, 3], "0"),
                   ("graphics", "root view", 1, None, None, "NULL"),
                   ("ia", "vertex buffer", None, 2, None, "NULL")]


def test_byte_stride_below_the_packed_size():
    s, cs = ei_scene(commands=1)
    cs.ByteStride = 44
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA))
    assert [f.kind for f in trace.findings] == ["stride-below-minimum"] and not trace.executions


def test_argument_buffer_past_its_end_is_unmapped_va():
    s, cs = ei_scene(commands=2)
    trace = run(s, ExecuteIndirectCall(cs, 3, ARGS_VA))
    assert [(f.kind, f.command_index, f.va) for f in trace.findings] == [("unmapped-va", 2, ARGS_VA + 96)]
    assert len(trace.executions) == 2


def test_misaligned_count_buffer():
    """IndirectDrawing.md "Drawing": CountBufferOffset and ArgumentBufferOffset are 4-byte aligned."""
    s, cs = ei_scene(commands=1)
    s.put(COUNT_VA, struct.pack("<II", 1, 1))
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA, COUNT_VA + 2))
    assert [f.kind for f in trace.findings] == ["misaligned-va"]


def test_root_signature_mismatch():
    """IndirectDrawing.md "Drawing": the command list's root signature must match the command signature's."""
    s, cs = ei_scene(commands=1)
    s.state.graphics_root_signature = root_signature("Other")
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA))
    assert [f.kind for f in trace.findings] == ["root-signature-mismatch"]


def test_dispatch_uses_the_compute_binding_set():
    """"Changing root arguments works with both compute and graphics": a DISPATCH signature reads and resets the
    compute root arguments."""
    rs = root_signature("RS", constants_param(1))
    cs = CommandSignature("CS", 16, [ei_arg("CONSTANT", Constant=EIConstantArg(0, 0, 1)), ei_arg("DISPATCH")],
                          pRootSignature=rs)
    s = Scene()
    s.state.graphics_root_arguments[0] = RootArgument("constants", values=[1])
    s.put(ARGS_VA, struct.pack("<4I", 77, 2, 1, 1))
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA))
    assert not trace.findings
    e = trace.executions[0]
    assert e.executable_class == "COMPUTE" and e.root_argument("global", 0).values == [77] and e.ia == []
    assert e.trigger.fields == {"ThreadGroupCountX": 2, "ThreadGroupCountY": 1, "ThreadGroupCountZ": 1}
    assert [r.binding_set for r in trace.end_of_call_reset] == ["compute"]
