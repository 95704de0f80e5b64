"""Round trips of random command signatures and records through both migrations, proved by the executor: the
original ExecuteIndirect calls, the work list made from them and the calls lowered back from that work list execute
the same draws with the same resolved bindings (spec "Execution Order and State Scoping": in order for draws, as
multisets for dispatches), and every object made passes the creation-time rules (Uniformity constraints 1-3,
IndirectDrawing Validation)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute
from d3d12wl.migrate.ei_to_wl import ei_to_wl
from d3d12wl.migrate.equivalence import compare_runs
from d3d12wl.migrate.runs import CallSequenceEntry
from d3d12wl.migrate.wl_to_ei import wl_to_ei
from d3d12wl.model.objects import (
    CommandSignature,
    EIConstantArg,
    IndirectArgumentDesc,
    RootConstants,
    RootDescriptor1,
    RootParameter1,
    RootParameterIndexArg,
    RootSignature,
    VertexBufferArg,
)
from d3d12wl.model.state import (
    BufferResource,
    CommandListState,
    DeviceCaps,
    ExecuteIndirectCall,
    RootArgument,
    VertexBufferView,
)
from d3d12wl.records.layout import command_layout, round_up
from d3d12wl.records.packers import pack_count_buffer, pack_execute_indirect
from d3d12wl.rules import check_command_signature, check_objects

PROPERTY = settings(max_examples=40, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

_VIEW = {"CBV": ("CONSTANT_BUFFER_VIEW", "ConstantBufferView", "b"),
         "SRV": ("SHADER_RESOURCE_VIEW", "ShaderResourceView", "t"),
         "UAV": ("UNORDERED_ACCESS_VIEW", "UnorderedAccessView", "u")}


def _e(enum: str, name: str) -> int:
    return abi.enum_value(enum, name)


@dataclass
class Param:
    kind: str  # constants | CBV | SRV | UAV
    size: int  # DWORDs of a constants parameter
    mode: str  # command | call | global
    first: int  # first DWORD a command sets (constants)


@st.composite
def scenes(draw: st.DrawFn) -> list[CallSequenceEntry]:
    compute = draw(st.booleans())
    params = []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["constants", "CBV", "SRV", "UAV"]))
        size = draw(st.integers(1, 4)) if kind == "constants" else 0
        # the first parameter is set per command, so the command signature has a root signature and every trace
        # lists the root arguments (IndirectDrawing Validation 13)
        mode = "command" if not params else draw(st.sampled_from(["command", "call", "call", "global"]))
        first = draw(st.integers(0, size - 1)) if kind == "constants" and mode == "command" else 0
        params.append(Param(kind, size, mode, first))
    vb_slot = None if compute or not draw(st.booleans()) else draw(st.integers(0, 3))
    triggers = ["DISPATCH"] if compute else draw(st.lists(st.sampled_from(["DRAW", "DRAW_INDEXED"]), min_size=1,
                                                          max_size=2, unique=True))
    regs = {"b": 0, "t": 0, "u": 0}
    root_params = []
    for p in params:
        letter = "b" if p.kind in ("constants", "CBV") else _VIEW[p.kind][2]
        reg, regs[letter] = regs[letter], regs[letter] + 1
        if p.kind == "constants":
            root_params.append(RootParameter1(ParameterType=_e("D3D12_ROOT_PARAMETER_TYPE", "32BIT_CONSTANTS"),
                                              Constants=RootConstants(reg, 0, p.size)))
        else:
            root_params.append(RootParameter1(ParameterType=_e("D3D12_ROOT_PARAMETER_TYPE", p.kind),
                                              Descriptor=RootDescriptor1(reg, 0)))
    rs = RootSignature("RS", root_params, [], _e("D3D12_ROOT_SIGNATURE_FLAGS", "ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"))
    # a second command signature may have a root signature of its own: one more root constant only it declares (a
    # local root parameter of its PCS once migrated, spec "Local root signatures")
    extra = draw(st.sampled_from([None, "command", "call"])) if len(triggers) == 2 else None
    rs2 = RootSignature("RS2", [*root_params, RootParameter1(
        ParameterType=_e("D3D12_ROOT_PARAMETER_TYPE", "32BIT_CONSTANTS"), Constants=RootConstants(regs["b"], 0, 2))],
        [], rs.Flags) if extra else None
    signatures = []
    for t in triggers:
        own = rs2 if rs2 is not None and t == triggers[1] else None
        args = []
        if vb_slot is not None:
            args.append(IndirectArgumentDesc(Type=_e("D3D12_INDIRECT_ARGUMENT_TYPE", "VERTEX_BUFFER_VIEW"),
                                             VertexBuffer=VertexBufferArg(vb_slot)))
        for i, p in enumerate(params):
            if p.mode != "command":
                continue
            if p.kind == "constants":
                args.append(IndirectArgumentDesc(Type=_e("D3D12_INDIRECT_ARGUMENT_TYPE", "CONSTANT"),
                                                 Constant=EIConstantArg(i, p.first, p.size - p.first)))
            else:
                a = IndirectArgumentDesc(Type=_e("D3D12_INDIRECT_ARGUMENT_TYPE", _VIEW[p.kind][0]))
                setattr(a, _VIEW[p.kind][1], RootParameterIndexArg(i))
                args.append(a)
        if own is not None and extra == "command":
            args.append(IndirectArgumentDesc(Type=_e("D3D12_INDIRECT_ARGUMENT_TYPE", "CONSTANT"),
                                             Constant=EIConstantArg(len(params), 0, 2)))
        args.append(IndirectArgumentDesc(Type=_e("D3D12_INDIRECT_ARGUMENT_TYPE", t)))
        cs = CommandSignature(f"CS_{t}", 0, args, 0, own or rs)
        cs.ByteStride = round_up(command_layout(cs).size, 4) + 4 * draw(st.integers(0, 2))
        assert check_command_signature(cs) == []
        signatures.append(cs)
    calls = draw(st.integers(1, 5))
    rng = np.random.default_rng(draw(st.integers(0, 2 ** 16)))
    global_values = {i: rng.integers(1, 1 << 20) for i in range(len(params))}
    device = DeviceCaps(Tier=_e("D3D12_WORK_LISTS_TIER", "TIER_1"))
    entries = []
    for c in range(calls):
        cs = signatures[draw(st.integers(0, len(signatures) - 1))]
        n = draw(st.integers(0, 4))
        layout = command_layout(cs)
        cols: dict[str, object] = {}
        for i, a in enumerate(cs.pArgumentDescs):
            f = layout.arg_field(i)
            if f is None:
                continue
            if a.type_name == "VERTEX_BUFFER_VIEW":
                cols[f.name + ".BufferLocation"] = rng.integers(1, 1 << 20, n).astype(np.uint64) << np.uint64(8)
                cols[f.name + ".SizeInBytes"] = rng.integers(0, 1 << 16, n).astype(np.uint32)
                cols[f.name + ".StrideInBytes"] = rng.integers(0, 64, n).astype(np.uint32)
            elif a.type_name == "CONSTANT":
                cols[f.name] = rng.integers(0, 1 << 32, (n, f.count) if f.count > 1 else n, dtype=np.uint64
                                            ).astype(np.uint32)
            elif a.type_name in ("CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW"):
                cols[f.name] = rng.integers(1, 1 << 20, n).astype(np.uint64) << np.uint64(8)
            else:
                cols[f.name] = rng.integers(0, 1 << 12, (n, f.size // 4)).astype(np.uint32).view(np.uint8)
        memory = GpuMemory()
        if n:
            memory.map(0x200000, pack_execute_indirect(cs, cols, count=n), name="args")
        memory.map(0x100000, pack_count_buffer(n), name="count")
        root_args = {}
        for i, p in enumerate(params):
            value = global_values[i] if p.mode == "global" else int(rng.integers(1, 1 << 20))
            if p.kind == "constants":
                root_args[i] = RootArgument("constants", values=[(value + k) & 0xFFFFFFFF for k in range(p.size)])
            else:
                root_args[i] = RootArgument("descriptor", value=value << 8)
        call_rs = cs.pRootSignature or rs
        if call_rs is rs2:
            root_args[len(params)] = RootArgument("constants", values=[c + 7, int(rng.integers(0, 1 << 20))])
        state = CommandListState(**({"compute_root_signature": call_rs, "compute_root_arguments": root_args}
                                    if compute else {"graphics_root_signature": call_rs,
                                                     "graphics_root_arguments": root_args,
                                          "vertex_buffers": {0: VertexBufferView(0x900000, 4096, 16)}}))
        capacity = n + draw(st.integers(0, 2))
        # the argument buffer's resource holds MaxCommandCount commands (IndirectDrawing.md "Drawing" bounds them by
        # it); the capture maps the n written
        call = ExecuteIndirectCall(cs, capacity, 0x200000, 0x100000,
                                   ArgumentBufferResource=BufferResource(0x200000, capacity * cs.ByteStride))
        entries.append(CallSequenceEntry(Capture(CAPTURE_VERSION, device, _objects(rs, rs2, signatures), memory, state,
                                                 call), f"P{c}"))
    return entries


def _objects(rs: RootSignature, rs2: RootSignature | None, signatures: list[CommandSignature]) -> object:
    from d3d12wl.model.objects import ObjectSet

    return ObjectSet(root_signatures={r.name: r for r in (rs, rs2) if r is not None},
                     command_signatures={cs.name: cs for cs in signatures})


@PROPERTY
@given(scenes(), st.sampled_from(["program-table", "records"]), st.sampled_from(["auto", "inline", "hybrid"]))
def test_random_buckets_round_trip_through_a_work_list(entries: list[CallSequenceEntry], constants: str,
                                                        layout: str) -> None:
    wl = ei_to_wl(entries, bucket_constants=constants, layout=layout)
    assert check_objects(wl.capture.objects, wl.capture.device) == []
    assert not execute(wl.capture).to_dict()["findings"]
    forward = compare_runs(entries, wl.capture)
    assert forward.same and not forward.note, forward
    graphics = entries[0].capture.state.compute_root_signature is None
    assert forward.ordered == (graphics or forward.count_a == 0)
    back = wl_to_ei(wl.capture)
    for call in back.calls:
        assert check_command_signature(call.capture.call.pCommandSignature) == []  # type: ignore[union-attr, arg-type]
    assert len(back.calls) == len(entries) or layout == "inline" and not wl.capture.objects.root_signatures
    backward = compare_runs(entries, back.entries)
    assert backward.same, backward
    # a lowered command signature that changes no root argument has no root signature (IndirectDrawing
    # Validation 13); its draws' root arguments are the command list's and are compared all the same
    assert not backward.note
    assert compare_runs(wl.capture, back.entries).same
