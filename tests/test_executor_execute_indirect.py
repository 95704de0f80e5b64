"""ExecuteIndirect in the reference executor: IndirectDrawing.md "Drawing" (count buffer and MaxCommandCount),
"Incrementing constant", "State leakage", and the "Driver Conformance Tests" cases."""

from __future__ import annotations

import struct

import pytest
from executor_builder import Scene, constants_param, draw, ei_arg, encode, pack_record, root_signature, view_param

from d3d12wl import abi
from d3d12wl.executor import arrays, columnar, run_execute_indirect
from d3d12wl.model.objects import (
    CommandSignature,
    EIConstantArg,
    EIIncrementingConstantArg,
    RootParameterIndexArg,
    VertexBufferArg,
)
from d3d12wl.model.state import BufferResource, ExecuteIndirectCall, RootArgument, VertexBufferView
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
    """A read past the mapped bytes is unmapped-va where it happens.  The core runtime's bounds check ("The offset
    implied by MaxCommandCount, ArgumentBufferOffset, and the drawing program stride do not exceed the bounds of
    pArgumentBuffer") is a finding of its own, before any read: a warning that the bound is unknown where the region
    stands for a resource the capture does not give (the real buffer may be larger than what was read back), and
    none at all when the capture gives a resource that holds the three commands."""
    s, cs = ei_scene(commands=2)
    trace = run(s, ExecuteIndirectCall(cs, 3, ARGS_VA))
    assert [(f.kind, f.severity, f.command_index, f.va) for f in trace.findings] == [
        ("argument-buffer-bounds-unknown", "warning", None, ARGS_VA), ("unmapped-va", "error", 2, ARGS_VA + 96)]
    assert "--argument-buffer-resource BASE,WIDTH[,STATE]" in trace.findings[0].message
    assert len(trace.executions) == 2
    resource = BufferResource(ARGS_VA, 3 * cs.ByteStride)
    trace = run(s, ExecuteIndirectCall(cs, 3, ARGS_VA, ArgumentBufferResource=resource))
    assert [(f.kind, f.command_index, f.va) for f in trace.findings] == [("unmapped-va", 2, ARGS_VA + 96)]


def test_misaligned_count_buffer():
    """The count buffer's UINT32 at a VA that is not 4-byte aligned is misaligned-va and ends the call; its offset
    into the resource (here the region) breaks "CountBufferOffset and ArgumentBufferOffset are 4-byte aligned"."""
    s, cs = ei_scene(commands=1)
    s.put(COUNT_VA, struct.pack("<II", 1, 1))
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA, COUNT_VA + 2))
    assert [f.kind for f in trace.findings] == ["count-buffer-offset-misaligned", "misaligned-va"]


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
    s.state.compute_root_signature = rs
    s.state.graphics_root_arguments[0] = RootArgument("constants", values=[1])
    s.put(ARGS_VA, struct.pack("<4I", 77, 2, 1, 1))
    trace = run(s, ExecuteIndirectCall(cs, 1, ARGS_VA))
    assert not trace.findings
    e = trace.executions[0]
    assert e.executable_class == "COMPUTE" and e.root_argument("global", 0).values == [77] and e.ia == []
    assert e.trigger.fields == {"ThreadGroupCountX": 2, "ThreadGroupCountY": 1, "ThreadGroupCountZ": 1}
    assert [r.binding_set for r in trace.end_of_call_reset] == ["compute"]


# -- call-time requirements (docs/executor.md "Audit: every requirement on a call", ExecuteIndirect rows) --------


def test_root_signature_not_set():
    """IndirectDrawing.md "Drawing" (debug layer): "The root signature of the command list matches the root
    signature of the command signature": a command list with no root signature set matches none.  The call still
    executes (the finding only adds), and what the command signature does not set is set by nothing: DWORD 0 of
    the constants and the root CBV (warnings, once per call)."""
    s, cs = ei_scene(commands=2)
    s.state.graphics_root_signature = None
    s.state.graphics_root_arguments.clear()
    trace = run(s, ExecuteIndirectCall(cs, 2, ARGS_VA))
    assert [(f.kind, f.rule, f.severity) for f in trace.findings] == [
        ("root-signature-not-set", "Drawing", "error"), ("root-parameter-not-set", "Overview", "warning"),
        ("root-parameter-not-set", "Overview", "warning")]
    assert trace.findings[1].message.startswith("DWORD 0 of graphics root parameter 0 (constants b0 space0)")
    assert trace.findings[2].message.startswith("graphics root parameter 2 (CBV b0 space0)")
    assert len(trace.executions) == 2


def test_buffer_offsets_are_4_byte_aligned_in_their_resource():
    """IndirectDrawing.md "Drawing" (core runtime): "CountBufferOffset and ArgumentBufferOffset are 4-byte
    aligned": the offset into the resource the capture gives, even where the VA itself is aligned."""
    s, cs = ei_scene(commands=2)
    s.put(COUNT_VA, struct.pack("<I", 2))
    args = BufferResource(ARGS_VA - 2, 2 + 2 * cs.ByteStride)
    count = BufferResource(COUNT_VA - 6, 10)
    trace = run(s, ExecuteIndirectCall(cs, 2, ARGS_VA, COUNT_VA, args, count))
    assert [(f.kind, f.va) for f in trace.findings] == [("argument-buffer-offset-misaligned", ARGS_VA),
                                                        ("count-buffer-offset-misaligned", COUNT_VA)]
    assert len(trace.executions) == 2
    trace = run(s, ExecuteIndirectCall(cs, 2, ARGS_VA, COUNT_VA, BufferResource(ARGS_VA - 4, 4 + 2 * cs.ByteStride),
                                       BufferResource(COUNT_VA - 4, 8)))
    assert not trace.findings


def test_buffer_bounds_implied_by_max_command_count():
    """IndirectDrawing.md "Drawing" (core runtime): "The offset implied by MaxCommandCount, ArgumentBufferOffset,
    and the drawing program stride do not exceed the bounds of pArgumentBuffer (similarly for count buffer)".  The
    runtime checks MaxCommandCount, not the count the GPU reads later (here 2), and the execution is unchanged."""
    s, cs = ei_scene(commands=5)
    s.put(COUNT_VA, struct.pack("<I", 2))
    fits = ExecuteIndirectCall(cs, 4, ARGS_VA, COUNT_VA, BufferResource(ARGS_VA, 4 * cs.ByteStride),
                               BufferResource(COUNT_VA, 4))
    assert not run(s, fits).findings
    short = ExecuteIndirectCall(cs, 5, ARGS_VA, COUNT_VA, BufferResource(ARGS_VA, 4 * cs.ByteStride),
                                BufferResource(COUNT_VA, 2))
    trace = run(s, short)
    assert [(f.kind, f.va) for f in trace.findings] == [("argument-buffer-out-of-bounds", ARGS_VA),
                                                        ("count-buffer-out-of-bounds", COUNT_VA)]
    assert len(trace.executions) == 2
    before = ExecuteIndirectCall(cs, 1, ARGS_VA, None, BufferResource(ARGS_VA + 4, 1024))
    assert [f.kind for f in run(s, before).findings] == ["argument-buffer-out-of-bounds"]


@pytest.mark.parametrize("state, kinds", [
    (["INDIRECT_ARGUMENT"], []), (["GENERIC_READ"], []), (["INDIRECT_ARGUMENT", "COPY_SOURCE"], []),
    (["UNORDERED_ACCESS"], ["argument-buffer-wrong-state", "count-buffer-wrong-state"]),
    (["COMMON"], ["argument-buffer-wrong-state", "count-buffer-wrong-state"])])
def test_both_buffers_in_the_indirect_argument_state(state, kinds):
    """IndirectDrawing.md "Drawing": "The debug layer will issue an error if either the count buffer or the
    argument buffer are not in the D3D12_RESOURCE_USAGE_INDIRECT_ARGUMENT state"; the ExecuteIndirect seed: "you
    must insert a resource barrier transitioning both ... from UNORDERED_ACCESS to INDIRECT_ARGUMENT".  A state
    that includes INDIRECT_ARGUMENT (GENERIC_READ does) is one."""
    s, cs = ei_scene(commands=2)
    s.put(COUNT_VA, struct.pack("<I", 2))
    value = 0
    for name in state:
        value |= abi.enum_value("D3D12_RESOURCE_STATES", name)
    call = ExecuteIndirectCall(cs, 2, ARGS_VA, COUNT_VA, BufferResource(ARGS_VA, 2 * cs.ByteStride, value),
                               BufferResource(COUNT_VA, 4, value))
    trace = run(s, call)
    assert [f.kind for f in trace.findings] == kinds and len(trace.executions) == 2
    no_state = ExecuteIndirectCall(cs, 2, ARGS_VA, COUNT_VA, BufferResource(ARGS_VA, 2 * cs.ByteStride))
    assert not run(s, no_state).findings  # a capture that does not say checks nothing


def indexed_scene(n: int) -> tuple[Scene, CommandSignature, list[dict]]:
    """A graphics command signature of a root CBV, an index buffer view and DRAW_INDEXED, with ``n`` valid
    commands (CBVs at multiples of 256, R16_UINT / R32_UINT index buffers)."""
    rs = root_signature("RS", view_param("CBV", 0))
    cs = CommandSignature("CS", 0, [ei_arg("CONSTANT_BUFFER_VIEW", ConstantBufferView=RootParameterIndexArg(0)),
                                    ei_arg("INDEX_BUFFER_VIEW"), ei_arg("DRAW_INDEXED")], pRootSignature=rs)
    layout = command_layout(cs)
    cs.ByteStride = layout.size
    s = Scene()
    s.state.graphics_root_signature = rs
    formats = [abi.enum_value("DXGI_FORMAT", f) for f in ("R16_UINT", "R32_UINT")]
    values = [{"arg0_ConstantBufferView": 0x100000 + 256 * k,
               "arg1_IndexBuffer": {"BufferLocation": 0x200000, "SizeInBytes": 64, "Format": formats[k % 2]},
               "arg2_DrawIndexed": {"IndexCountPerInstance": 3, "InstanceCount": 1, "StartIndexLocation": 0,
                                    "BaseVertexLocation": 0, "StartInstanceLocation": 0}} for k in range(n)]
    return s, cs, values


def _put_commands(s: Scene, cs: CommandSignature, values: list[dict]) -> None:
    layout = command_layout(cs)
    s.put(ARGS_VA, b"".join(pack_record(layout, v, cs.ByteStride) for v in values))


@pytest.mark.parametrize("chunk", [3, 1 << 16])
def test_per_command_values_index_format_and_cbv_address(chunk):
    """IndirectDrawing.md "Validation": "If there are index buffer changes, the index buffer format is valid"
    (the format is in the argument buffer, so it is checked per command); "Command signature Creation": "CBV --
    Address and size must be a multiple of 256 bytes".  Both engines report the same findings (the columnar path
    sends the flagged commands through the reference walk, in any chunking) and execute every command."""
    s, cs, values = indexed_scene(9)
    values[1]["arg0_ConstantBufferView"] += 0x40
    values[4]["arg1_IndexBuffer"]["Format"] = abi.enum_value("DXGI_FORMAT", "UNKNOWN")
    values[5]["arg0_ConstantBufferView"] += 4
    values[5]["arg1_IndexBuffer"]["Format"] = 7
    _put_commands(s, cs, values)
    call = ExecuteIndirectCall(cs, 9, ARGS_VA)
    old = arrays.CHUNK
    arrays.CHUNK = chunk
    try:
        col = columnar.run_columnar(s.memory, s.device, s.objects, s.state, call)
    finally:
        arrays.CHUNK = old
    ref = run(s, call)
    assert col.to_dict() == ref.to_dict()
    field = {f.name: f.offset for f in command_layout(cs).fields}
    fmt = abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "Format")
    got = [(f.kind, f.command_index, f.va) for f in ref.findings]
    assert got == [("cbv-address-misaligned", 1, ARGS_VA + cs.ByteStride),
                   ("index-buffer-format-invalid", 4, ARGS_VA + 4 * cs.ByteStride + field["arg1_IndexBuffer"] + fmt),
                   ("cbv-address-misaligned", 5, ARGS_VA + 5 * cs.ByteStride),
                   ("index-buffer-format-invalid", 5, ARGS_VA + 5 * cs.ByteStride + field["arg1_IndexBuffer"] + fmt)]
    assert len(ref.executions) == 9 and ref.executions[1].root_argument("global", 0).value == 0x100140
    assert "UNKNOWN is not one of R16_UINT, R32_UINT" in ref.findings[1].message


# -- the command list the call is recorded on (capture version 3: state.command_list_type) ------------------------

CL = "D3D12_COMMAND_LIST_TYPE"


def on_both_engines(s: Scene, call: ExecuteIndirectCall):
    from d3d12wl.executor import run as execute

    reference = execute(s.memory, s.device, s.objects, s.state, call, engine="reference")
    assert execute(s.memory, s.device, s.objects, s.state, call, engine="columnar").to_dict() == reference.to_dict()
    return reference


def dispatch_scene(n: int = 3) -> tuple[Scene, CommandSignature]:
    """One-operation command signature (DISPATCH), ``n`` commands, a count buffer holding ``n`` at COUNT_VA."""
    cs = CommandSignature("CS", 12, [ei_arg("DISPATCH")])
    s = Scene()
    s.put(ARGS_VA, b"".join(struct.pack("<3I", k + 1, 1, 1) for k in range(n)))
    s.put(COUNT_VA, struct.pack("<I", n))
    return s, cs


def test_the_command_list_is_direct_or_compute_not_copy_or_video():
    """IndirectDrawing.md "Drawing" (core runtime): "The command list is a direct command list or a compute command
    list (not a copy or JPEG decode command list)" (a bundle is "Bundles"' case).  Once per call; the commands still
    execute."""
    s, cs = dispatch_scene()
    call = ExecuteIndirectCall(cs, 3, ARGS_VA)
    for member in ("DIRECT", "COMPUTE", "BUNDLE"):
        s.state.command_list_type = abi.enum_value(CL, member)
        assert not on_both_engines(s, call).findings
    for member in ("COPY", "VIDEO_DECODE", "VIDEO_PROCESS", "VIDEO_ENCODE"):
        s.state.command_list_type = abi.enum_value(CL, member)
        trace = on_both_engines(s, call)
        assert [(f.kind, f.rule) for f in trace.findings] == [("execute-indirect-command-list-type-invalid", "Drawing")]
        assert member in trace.findings[0].message and len(trace.executions) == 3


def test_in_a_bundle_only_without_count_buffer_and_with_exactly_one_operation():
    """IndirectDrawing.md "Bundles": "ExecuteIndirect is allowed inside of bundle command lists only if all of the
    following are true: 1. CountBuffer is NULL (CPU-specified count only) 2. The command signature contains exactly 1
    operation. This implies that the command signature does not contain root arguments changes, nor contain VB/IB
    binding changes."  Each is its own finding; outside a bundle neither applies."""
    s, cs = dispatch_scene()
    with_count = ExecuteIndirectCall(cs, 3, ARGS_VA, COUNT_VA)
    assert not on_both_engines(s, with_count).findings
    s.state.command_list_type = abi.enum_value(CL, "BUNDLE")
    assert not on_both_engines(s, ExecuteIndirectCall(cs, 3, ARGS_VA)).findings
    trace = on_both_engines(s, with_count)
    assert [(f.kind, f.rule, f.va) for f in trace.findings] == [("execute-indirect-bundle-count-buffer", "Bundles",
                                                                 COUNT_VA)]
    assert len(trace.executions) == 3
    s, cs = ei_scene(commands=2)  # CONSTANT, INCREMENTING_CONSTANT, SRV, VBV, DRAW: 5 operations
    call = ExecuteIndirectCall(cs, 2, ARGS_VA)
    assert not on_both_engines(s, call).findings
    s.state.command_list_type = abi.enum_value(CL, "BUNDLE")
    trace = on_both_engines(s, call)
    assert [(f.kind, f.rule) for f in trace.findings] == [("execute-indirect-bundle-multiple-operations", "Bundles")]
    assert "5 operations" in trace.findings[0].message and len(trace.executions) == 2
