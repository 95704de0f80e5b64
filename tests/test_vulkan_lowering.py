"""The lowering to ``VK_EXT_device_generated_commands`` (d3d12wl.vulkan, docs/vulkan.md): layouts, token streams and
sequence buffers byte for byte on the bundled examples, the arguments that cannot be lowered, and the lowering held
to the reference executor through the CPU model of the GPU harness's recording shaders."""

from __future__ import annotations

import struct
from pathlib import Path

import numpy as np
import pytest
from executor_builder import patched

from d3d12wl import abi
from d3d12wl.capture.file import Capture, load_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.vulkan import IndexInputMode, LoweringError, TokenType, lower_capture
from d3d12wl.vulkan.captures import build_compute_capture, build_indexed_capture, build_inherited_capture

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
GPU_DIR = Path(__file__).resolve().parent.parent / "tools" / "gpu"


def example(name: str) -> Capture:
    return load_capture(EXAMPLES / f"{name}_capture.json")


def tokens(lowering: object) -> list[tuple[str, int, int, int | None, tuple[int, int] | None]]:
    lay = lowering.layout  # type: ignore[attr-defined]
    return [(t.type.name, t.offset, t.size, t.arg, (t.push_offset, t.push_size) if t.push_offset is not None else None)
            for t in lay.tokens]


# --------------------------------------------------------------------------------------------------------------
# The culling example (spec "Example": GPU culling and work list emission)
# --------------------------------------------------------------------------------------------------------------

#: the visible objects CullAndEmit wrote, per program-table slot in primary-record order:
#: (MaterialSRV, VertexCount, StartVertex); tools/make_example_capture.py SCENE
CULLING_DRAWS = {
    0: [(0x100000, 36, 0), (0x101000, 24, 36), (0x103000, 60, 198), (0x104000, 240, 342)],
    1: [(0x200000, 6, 156), (0x201000, 12, 258)],
    2: [(0x300000, 96, 60), (0x301000, 36, 270), (0x303000, 48, 606)],
}
TINTS = {0: (1.0, 1.0, 1.0, 1.0), 1: (0.5, 0.7, 1.0, 0.5), 2: (0.0, 0.0, 0.0, 1.0)}


def test_culling_layout_tokens_and_execution_set() -> None:
    """ProgramTableIndex -> slot -> program -> execution-set index (first token); the root SRV (GRS parameter 1)
    and the program-table tint (local b0 space1) become push constants; _DRAW the last token; the static sampler
    has no token."""
    low = lower_capture(example("culling"))
    assert low.lowered and low.not_lowered == ()
    assert low.execution_set == ("Opaque", "Transparent", "Shadow")
    assert tokens(low) == [("EXECUTION_SET", 0, 4, None, None),
                           ("PUSH_CONSTANT", 4, 8, 0, (8, 8)),
                           ("PUSH_CONSTANT", 12, 16, 2, (16, 16)),
                           ("DRAW", 28, 16, 1, None)]
    lay = low.layout
    assert lay is not None and lay.stride == 44 and lay.executable_class == "GRAPHICS"
    assert [(r.binding, r.parameter, r.kind, r.offset, r.size) for r in lay.push_constants] == [
        ("global", 0, "descriptor", 0, 8), ("global", 1, "descriptor", 8, 8), ("local", 0, "constants", 16, 16)]
    assert low.initial_push_constants == (0x50000).to_bytes(8, "little") + bytes(24)  # the per-frame CBV
    assert any("INLINE_STATIC_SAMPLER" in note for note in low.pipeline_state)


def test_culling_sequence_buffer_byte_for_byte() -> None:
    low = lower_capture(example("culling"))
    want = b"".join(struct.pack("<IQ4f4I", slot, srv, *TINTS[slot], count, 1, start, 0)
                    for slot, draws in CULLING_DRAWS.items() for srv, count, start in draws)
    assert low.sequence_bytes() == want
    assert low.execution_set_indices().tolist() == [0, 0, 0, 0, 1, 1, 2, 2, 2]
    assert low.programs == ("Opaque",) * 4 + ("Transparent",) * 2 + ("Shadow",) * 3


def test_harness_sequence_index_slot_keeps_argument_offsets() -> None:
    """sequence_index=True: one more push-constant DWORD and a SEQUENCE_INDEX token whose bytes come after the draw
    (the draw stays the last token of the layout), so every argument keeps its offset."""
    plain, harness = lower_capture(example("culling")), lower_capture(example("culling"), sequence_index=True)
    assert tokens(harness) == tokens(plain)[:-1] + [("SEQUENCE_INDEX", 44, 4, None, (32, 4)), tokens(plain)[-1]]
    assert harness.layout is not None and harness.layout.stride == 48
    assert np.array_equal(harness.sequences[:, :44], plain.sequences)
    assert not harness.sequences[:, 44:].any()


# --------------------------------------------------------------------------------------------------------------
# ExecuteIndirect (IndirectDrawing.md "Root Constants + Vertex Buffers", count buffer 3 of MaxCommandCount 4)
# --------------------------------------------------------------------------------------------------------------

def test_execute_indirect_layout_is_the_command_signature() -> None:
    """No execution set (the bound pipeline); each argument is a token at its command-record offset, so the
    sequence buffer is the argument buffer's first min(count, MaxCommandCount) records, byte for byte."""
    cap = example("execute_indirect")
    low = lower_capture(cap)
    assert low.execution_set == () and low.count == 3
    assert tokens(low) == [("PUSH_CONSTANT", 0, 4, 0, (16, 4)), ("PUSH_CONSTANT", 4, 4, 1, (44, 4)),
                           ("VERTEX_BUFFER", 8, 16, 2, None), ("DRAW", 24, 16, 3, None)]
    lay = low.layout
    assert lay is not None and lay.stride == 40 and lay.token(2).vertex_binding_unit == 3
    assert low.sequence_bytes() == cap.memory.read(0x20000, 3 * 40)
    initial = np.frombuffer(low.initial_push_constants, dtype="<u4")
    assert initial.tolist() == [0x50000, 0, 0x60000, 0, 0, 0x61000, 0, 0x62000, 0, 0x63000, 0, 0]


# --------------------------------------------------------------------------------------------------------------
# What cannot be lowered
# --------------------------------------------------------------------------------------------------------------

def test_descriptor_table_is_a_push_constant_of_the_handle() -> None:
    """Spec "_DESCRIPTOR_TABLE": the record holds a D3D12_GPU_DESCRIPTOR_HANDLE; DGC binds no descriptor sets, so the
    handle is lowered as the value the draw receives: an 8-byte push constant at the parameter's place (the
    limitation: no heap is bound, a shader cannot read through it)."""
    cap = example("culling")
    rs = cap.objects.program_command_signatures["PCS"].pGlobalRootSignature
    rs.pParameters[0].ParameterType = abi.enum_value("D3D12_ROOT_PARAMETER_TYPE", "DESCRIPTOR_TABLE")
    arg = cap.objects.program_command_signatures["PCS"].pArgumentDescs[0]
    arg.Type = abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "DESCRIPTOR_TABLE")
    low = lower_capture(cap)
    assert low.lowered and low.layout is not None
    assert low.layout.push_range("global", 0).kind == "descriptor_table"
    token = low.layout.token(0)
    assert (token.type.name, token.size, token.push_offset) == ("PUSH_CONSTANT", 8, 0)
    # the handle is the record's 8 bytes, as the SRV's VA was before
    handles = np.ascontiguousarray(low.sequences[:, token.offset:token.offset + 8]).view("<u8").reshape(-1)
    assert handles.tolist() == [srv for slot in sorted(CULLING_DRAWS) for srv, _, _ in CULLING_DRAWS[slot]]


def test_raytracing_and_validator_arguments_are_reported_not_lowered() -> None:
    cap = example("culling")
    arg = cap.objects.program_command_signatures["PCS"].pArgumentDescs[0]
    arg.Type = abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "PRIMARY_LIST_POINTER")
    low = lower_capture(cap)
    assert not low.lowered and low.layout is None and low.count == 0
    assert [(n.what, n.arg) for n in low.not_lowered] == [("arg0 PRIMARY_LIST_POINTER", 0)]
    assert "validation hooks" in low.not_lowered[0].reason


def test_tier2_chain_is_one_lowering_per_list() -> None:
    """DispatchList1 (spec "Dispatch List Continuations"): the chain is followed as far as
    _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION allows, one DGC execute per list, each list with the signature and binding
    its SignatureIndex selects: the compute culling list (incrementing constant -> SEQUENCE_INDEX), then the graphics
    draw list."""
    low = lower_capture(example("tier2_chain"))
    assert low.lowered and low.layout is None and low.count == 8
    cull, draw = low.lists
    assert low.leaves() == (cull, draw)
    assert cull.positions is not None and draw.positions is not None
    assert cull.positions.tolist() == [0, 1, 2] and draw.positions.tolist() == [3, 4, 5, 6, 7]
    assert (cull.count, cull.execution_set, cull.layout and cull.layout.executable_class) == (3, ("Cull",), "COMPUTE")
    assert (draw.count, draw.execution_set, draw.layout and draw.layout.executable_class) == (
        5, ("Opaque", "AlphaTested"), "GRAPHICS")
    assert tokens(cull) == [("EXECUTION_SET", 0, 4, None, None), ("SEQUENCE_INDEX", 4, 4, 0, (8, 4)),
                            ("PUSH_CONSTANT", 8, 8, 1, (12, 8)), ("DISPATCH", 16, 12, 2, None)]
    assert [t[0] for t in tokens(draw)] == ["EXECUTION_SET", "PUSH_CONSTANT", "SEQUENCE_INDEX", "PUSH_CONSTANT",
                                           "DRAW"]
    assert [d["call"] for d in low.to_dict()["lists"]] == ["DispatchList1 list 0", "DispatchList1 list 1"]


def test_validation_hooks_are_reported_not_lowered() -> None:
    low = lower_capture(example("validation_chain"))
    assert not low.lowered and [n.what for n in low.not_lowered] == ["call"]
    assert "validation hooks" in low.not_lowered[0].reason


def test_undefined_bytes_raise() -> None:
    """A ProgramTableIndex past SlotCount is undefined behaviour: the lowering refuses (the executor reports it)."""
    # pPrimaryListBuffer at 0x20000: record 0's ProgramTableIndex = SlotCount (64)
    cap = patched(example("culling"), 0x20000, (64).to_bytes(4, "little"))
    with pytest.raises(LoweringError, match="SlotCount"):
        lower_capture(cap)


def test_compute_incrementing_constant_is_the_sequence_index() -> None:
    """Spec "Incrementing constant semantics": without _RESET_PER_SECONDARY_LIST the counter is the position in the
    list's linear sequence, which is the DGC sequence index: a SEQUENCE_INDEX token into GRS parameter 1."""
    low = lower_capture(build_compute_capture())
    assert low.layout is not None and low.layout.executable_class == "COMPUTE"
    assert tokens(low) == [("EXECUTION_SET", 0, 4, None, None), ("SEQUENCE_INDEX", 4, 4, 0, (8, 4)),
                           ("PUSH_CONSTANT", 8, 8, 1, (12, 8)), ("DISPATCH", 16, 12, 2, None)]


def test_execute_indirect_index_buffer_and_incrementing_constant() -> None:
    """INDEX_BUFFER_VIEW -> an INDEX_BUFFER token in the DXGI_INDEX_BUFFER input mode (it reads
    D3D12_INDEX_BUFFER_VIEW as it is); the incrementing constant (IndirectDrawing.md: k for command k) -> a
    SEQUENCE_INDEX token; the sequences hold the command records' argument bytes, min(count, MaxCommandCount) of
    them."""
    cap = build_indexed_capture()
    low = lower_capture(cap)
    assert tokens(low) == [("PUSH_CONSTANT", 0, 4, 0, (8, 4)), ("SEQUENCE_INDEX", 4, 4, 1, (12, 4)),
                           ("INDEX_BUFFER", 8, 16, 2, None), ("DRAW_INDEXED", 24, 20, 3, None)]
    lay = low.layout
    assert lay is not None and lay.token(2).index_mode is IndexInputMode.DXGI_INDEX_BUFFER
    records = np.frombuffer(cap.memory.read(0x20000, 61 * 48), dtype=np.uint8).reshape(61, 48)
    assert low.count == 61
    assert np.array_equal(low.sequences[:, 0:4], records[:, 0:4])  # the root constant
    assert not low.sequences[:, 4:8].any()  # the driver writes the sequence index
    assert np.array_equal(low.sequences[:, 8:44], records[:, 4:40])  # IBV + DRAW_INDEXED


def test_execute_indirect_without_a_root_signature_pushes_the_command_lists_root_arguments() -> None:
    """IndirectDrawing.md "Command signature Creation": "The root signature must be specified if and only if the
    command signature changes one of the root arguments"; "Driver Conformance Tests": "Arbitrary command signatures
    produce the same results as corresponding non-indirect rendering API calls".  A DRAW-only command signature has
    no root signature, and its draws still see the command list's: the push-constant block is the command list's
    graphics root signature, the initial push constants its root arguments (what every sequence inherits), and no
    token writes them."""
    cap = build_inherited_capture()
    assert cap.call.pCommandSignature.pRootSignature is None
    low = lower_capture(cap)
    lay = low.layout
    assert lay is not None and tokens(low) == [("DRAW", 0, 16, 0, None)]
    assert [(r.binding, r.parameter, r.kind, r.offset, r.size) for r in lay.push_constants] == [
        ("global", 0, "constants", 0, 16), ("global", 1, "descriptor", 16, 8), ("global", 2, "descriptor", 24, 8)]
    state = cap.state.graphics_root_arguments
    assert low.initial_push_constants == (np.array(state[0].values, dtype="<u4").tobytes()
                                          + state[1].value.to_bytes(8, "little") + state[2].value.to_bytes(8, "little"))
    assert np.frombuffer(low.initial_push_constants[:16], dtype="<f4").tolist() == [1000.0, 2000.0, 3000.0, 4000.0]
    cap.state.graphics_root_signature = None  # nothing bound: nothing to push
    assert lower_capture(cap).layout.push_constants == ()


def test_lowering_makes_no_python_object_per_record(monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot path is whole columns: 4096 primary records of one secondary record each are read through a fixed
    number of memory views (one region view and a gather, not one view per list), and the per-sequence programs are
    the execution-set index array (names only on demand)."""
    from d3d12wl.vulkan.captures import build_big_capture

    cap = build_big_capture(4096, per_record=1, programs=4)
    views = 0
    inner = cap.memory.view

    def counting(*args: object, **kw: object) -> memoryview:
        nonlocal views
        views += 1
        return inner(*args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(cap.memory, "view", counting)
    low = lower_capture(cap)
    assert views < 16, views
    assert isinstance(low.program_indices, np.ndarray) and low.program_indices.shape == (4096,)
    assert low.program_indices.tolist() == low.execution_set_indices().tolist()
    assert low.program_of(5) == low.programs[5] == low.execution_set[5 % 4]


def test_secondary_records_in_two_regions_are_still_read() -> None:
    """The gather's fallback: secondary lists in two regions are read list by list, byte for byte the same."""
    from d3d12wl.vulkan.captures import build_big_capture

    cap = build_big_capture(64, per_record=8, programs=2)
    want = lower_capture(cap).sequence_bytes()
    walk = lower_capture(cap).walk
    assert walk is not None
    first = int.from_bytes(cap.memory.read(walk.primary_va + walk.secondary_records_offset, 8), "little")
    cut = first + 4 * 8 * walk.secondary_stride  # after the fourth list
    memory = GpuMemory()
    for region in cap.memory.regions:
        if region.contains(cut) and region.base != cut:
            memory.map(region.base, bytes(region.data[:cut - region.base]), name=region.name + ".0")
            memory.map(cut, bytes(region.data[cut - region.base:]), name=region.name + ".1")
        else:
            memory.map(region.base, bytes(region.data), name=region.name)
    cap.memory = memory
    assert lower_capture(cap).sequence_bytes() == want


def test_primary_stride_below_the_layout_minimum_raises() -> None:
    """Rule 25(e): ProgramInputs.StrideInBytes below the primary record's minimum stride makes records overlap;
    the lowering refuses it instead of reading overlapping rows."""
    cap = example("culling")
    off = abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes")
    cap = patched(cap, cap.call.DispatchListInput + off, (8).to_bytes(8, "little"))
    with pytest.raises(LoweringError, match=r"below the minimum.*rule 25\(e\)|rule 25\(e\).*below the minimum"):
        lower_capture(cap)


def test_secondary_stride_below_the_record_size_raises() -> None:
    """Rule 25(e): a SecondaryRecordByteStride (not 0, the broadcast form) below the secondary record's size."""
    from d3d12wl.vulkan.captures import build_big_capture

    cap = build_big_capture(64, per_record=8, programs=2)
    cap.objects.program_command_signatures["PCS"].SecondaryRecordByteStride = 8
    with pytest.raises(LoweringError, match=r"SecondaryRecordByteStride.*below the minimum"):
        lower_capture(cap)


def test_misaligned_dispatch_list_input_raises() -> None:
    """DispatchListInput must be 8-byte aligned (D3D12_DISPATCH_LIST_INPUT holds 8-byte fields)."""
    cap = example("culling")
    cap.call.DispatchListInput += 4
    with pytest.raises(LoweringError, match="not 8-byte aligned"):
        lower_capture(cap)


# --------------------------------------------------------------------------------------------------------------
# Several program command signatures, any size, inherited state, mesh dispatches
# --------------------------------------------------------------------------------------------------------------

def test_several_signatures_are_one_leaf_each_in_record_order() -> None:
    """A list whose records use two program command signatures of different record layouts (the SRV in the
    secondary record or in the primary; spec "Uniformity constraints" 2 keeps the global parameters alike): one
    indirect-commands layout and execution set per signature, each leaf's sequences that signature's executions in
    record order, and positions that put every sequence back at its place in the list (the executor's order)."""
    from d3d12wl.vulkan.captures_signatures import build_mixed_capture

    cap = build_mixed_capture(tier=1)
    low = lower_capture(cap)
    assert low.lowered and low.layout is None and len(low.groups) == 2
    secondary_srv, primary_srv = low.groups
    assert secondary_srv.execution_set == ("A", "B") and primary_srv.execution_set == ("C", "D")
    assert secondary_srv.layout is not None and primary_srv.layout is not None
    assert secondary_srv.layout.stride != primary_srv.layout.stride
    positions = np.concatenate([g.positions for g in low.groups if g.positions is not None])
    assert sorted(positions.tolist()) == list(range(low.count))  # every execution once
    for g in low.groups:  # record order within a leaf
        assert g.positions is not None and (np.diff(g.positions) > 0).all()
    assert all(g.walk is None for g in low.groups)  # one walk walks one signature's list


def test_incrementing_constant_is_the_list_position_across_leaves_and_executes() -> None:
    """Spec "Incrementing constant semantics": the counter is the position in the list's linear sequence.  When
    the list runs as several leaves or several executes, a SEQUENCE_INDEX token would restart it, so it is a push
    constant holding the position; as one execute of one leaf it stays the DGC sequence index."""
    from d3d12wl.vulkan.captures import build_big_ei_capture
    from d3d12wl.vulkan.captures_signatures import build_mixed_capture

    mixed = lower_capture(build_mixed_capture(tier=1))
    ic = 2  # arg 2 of both signatures
    for g in mixed.groups:
        assert g.layout is not None and g.positions is not None
        t = g.layout.token(ic)
        assert t.type.name == "PUSH_CONSTANT"
        got = np.ascontiguousarray(g.sequences[:, t.offset:t.offset + 4]).view("<u4").reshape(-1)
        assert got.tolist() == g.positions.tolist()
    cap = build_big_ei_capture(100)
    whole, split = lower_capture(cap), lower_capture(cap, max_sequences=40)
    assert whole.layout is not None and whole.layout.token(1).type.name == "SEQUENCE_INDEX"
    assert whole.chunks == ((0, 99),)
    assert split.layout is not None and split.layout.token(1).type.name == "PUSH_CONSTANT"
    assert split.chunks == ((0, 40), (40, 40), (80, 19))
    t = split.layout.token(1)
    assert np.ascontiguousarray(split.sequences[:, t.offset:t.offset + 4]).view("<u4").reshape(-1).tolist() == \
        list(range(99))


def test_calls_over_max_sequences_split_into_executes() -> None:
    from d3d12wl.vulkan.captures import build_big_capture

    cap = build_big_capture(1000, per_record=100)
    low = lower_capture(cap, max_sequences=300)
    assert low.chunks == ((0, 300), (300, 300), (600, 300), (900, 100))
    assert low.sequence_bytes() == lower_capture(cap).sequence_bytes()  # no incrementing constant: the same bytes
    with pytest.raises(LoweringError, match="at least 1"):
        lower_capture(cap, max_sequences=0)


def test_inherited_index_and_vertex_buffers() -> None:
    """Spec "Input Assembler bindings" (as under ExecuteIndirect): a slot or the index buffer that no argument sets
    is the command list's.  The indexed draws that took their index buffer from the command list are the ones a
    harness without it sent to address 0; with no index buffer anywhere the draws read a null view, every index 0
    (D3D11.3 8.20), which the harness binds as an empty range."""
    from d3d12wl.vulkan.captures_ia import IB16_VA, VB0_VA, VB1_VA, build_inherited_ia_capture

    cap = build_inherited_ia_capture()
    low = lower_capture(cap)
    assert low.index_buffer is not None and low.index_buffer.BufferLocation == IB16_VA
    assert [(slot, v.BufferLocation) for slot, v in low.vertex_buffers] == [(0, VB0_VA), (2, VB1_VA)]
    cap.state.index_buffer = None
    null = lower_capture(cap)
    assert null.lowered and null.index_buffer is not None and null.index_buffer.BufferLocation == 0


def test_vertex_buffer_tokens_leave_the_command_lists_other_slots() -> None:
    from d3d12wl.vulkan.captures_ia import VB0_VA, build_ia_capture

    low = lower_capture(build_ia_capture())
    assert [(slot, v.BufferLocation) for slot, v in low.vertex_buffers] == [(0, VB0_VA)]  # slot 1 is the token's
    assert low.index_buffer is None  # the token's
    inherited = lower_capture(build_ia_capture(index_buffer="command_list"))
    assert inherited.index_buffer is not None


def test_dispatch_mesh_is_draw_mesh_tasks() -> None:
    """_DISPATCH_MESH (a graphics-class trigger) lowers to DRAW_MESH_TASKS: D3D12_DISPATCH_MESH_ARGUMENTS is
    VkDrawMeshTasksIndirectCommandEXT, byte for byte."""
    from d3d12wl.vulkan.captures_signatures import build_mesh_capture

    low = lower_capture(build_mesh_capture())
    assert low.layout is not None and low.layout.action.type.name == "DRAW_MESH_TASKS"
    t = low.layout.action
    groups = np.ascontiguousarray(low.sequences[:, t.offset:t.offset + 12]).view("<u4").reshape(-1, 3)
    i = np.arange(low.count)
    assert groups.tolist() == np.stack([1 + i % 4, 1 + i % 2, 1 + i % 3], axis=1).tolist()


def test_a_large_argument_buffer_leaves_room_for_the_count_buffer() -> None:
    """execute_indirect_capture maps the count buffer below the argument buffer, so any number of commands fits
    (1,048,576 commands of 24 bytes once ran over a count buffer placed above)."""
    from d3d12wl.vulkan.captures import ARGUMENT_VA, COUNT_VA, build_big_ei_capture

    cap = build_big_ei_capture(1 << 16)
    assert COUNT_VA + 4 <= ARGUMENT_VA and lower_capture(cap).count == (1 << 16) - 1


def test_the_explicit_local_root_signature_path() -> None:
    """Spec "Local root signatures", explicit path: the push-constant block holds each program's local root signature
    (LA for A and C, LB for B: one indirect-commands layout each, so the list is two leaves); a record's local
    arguments override parameters of it, and the rest (spec "Binding sources at record execution": the static
    default) are push constants read from each sequence's program-table slot, at their parameters' places."""
    from d3d12wl.records.layout import program_table_layout
    from d3d12wl.vulkan.captures_signatures import build_explicit_capture

    cap = build_explicit_capture(6)
    low = lower_capture(cap)
    assert [leaf.execution_set for leaf in low.leaves()] == [("A", "C"), ("B",)]
    lb = low.leaves()[1]
    assert lb.layout is not None
    local = {r.parameter: r for r in lb.layout.push_constants if r.binding == "local"}
    assert [(p, r.kind, r.size) for p, r in local.items()] == [(0, "constants", 12), (1, "descriptor", 8),
                                                               (2, "descriptor", 8)]
    tail = program_table_layout(cap.objects.programs["B"])
    from_table = [t for t in lb.layout.tokens if t.type is TokenType.PUSH_CONSTANT and t.arg is None]
    # LB's DWORDs 0 and 2 of parameter 0 and its SRV (parameter 2): what no record overrides
    assert [(t.push_offset, t.size) for t in from_table] == [(local[0].offset, 4), (local[0].offset + 8, 4),
                                                             (local[2].offset, 8)]
    assert [f.name for f in tail.fields if f.role == "local"] == ["param0_dw0", "param0_dw2", "param2"]
    overrides = [t for t in lb.layout.tokens if t.type is TokenType.PUSH_CONSTANT and t.arg in (1, 2)]
    assert [(t.push_offset, t.size) for t in overrides] == [(local[0].offset + 4, 4), (local[1].offset, 8)]


def test_local_arguments_of_programs_with_no_local_root_signature_are_refused() -> None:
    """Rule 25(b): a local argument's RootParameterIndex indexes the local root signature; a program with none
    leaves nothing to bind it to."""
    from d3d12wl.vulkan.captures_signatures import build_explicit_capture

    cap = build_explicit_capture(6)
    for p in cap.objects.programs.values():
        p.LocalRootSignature = None
    low = lower_capture(cap)
    assert not low.lowered and "rule 25(b)" in low.not_lowered[0].reason
