"""Captures for the GPU comparison whose draws fetch real vertex and index buffers (the bytes are in the capture):
:func:`build_ia_capture` (ExecuteIndirect: a vertex buffer and an index buffer view per command, the index format
alternating between ``R16_UINT`` and ``R32_UINT`` command by command, another vertex buffer and, with
``index_buffer="command_list"``, the index buffer inherited from the command list) and
:func:`build_inherited_ia_capture` (a work list whose indexed draws take the index buffer and two vertex buffers
from the command list: Work Lists "Input Assembler bindings").  Every byte is a function of its position, so
each capture is reproducible from its arguments alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model import description
from d3d12wl.model.state import CommandListState, IndexBufferView, RootArgument, VertexBufferView
from d3d12wl.records import packers
from d3d12wl.records.layout import IDENTIFIER_FIELD, pcs_layout
from d3d12wl.vulkan.captures import execute_indirect_capture

__all__ = ["build_ia_capture", "build_inherited_ia_capture", "build_robust_ia_capture"]

VERTICES = 4096
#: where the buffers live, and their contents: vertex ``v`` of a buffer holds :func:`vertex_words`
VB0_VA, VB1_VA, IB16_VA, IB32_VA = 0x60_0000, 0x68_0000, 0x70_0000, 0x71_0000
INDICES = 2048


def vertex_words(v: np.ndarray, salt: int, words: int) -> np.ndarray:
    """The ``words`` uint32 of vertex ``v`` of a buffer: a mix of the vertex number and ``salt``, then ``v``."""
    out = np.zeros((len(v), words), dtype=np.uint32)
    out[:, 0] = ((v.astype(np.uint64) * 2654435761 + salt) & 0xFFFFFFFF).astype(np.uint32)
    for w in range(1, words):
        out[:, w] = (v + w).astype(np.uint32)
    return out


def _memory(extra: dict[int, np.ndarray]) -> GpuMemory:
    v = np.arange(VERTICES)
    j = np.arange(INDICES)
    memory = GpuMemory()
    memory.map(VB0_VA, vertex_words(v, 0xABCD, 3).tobytes(), name="vertex buffer 0 (12-byte vertices)")
    memory.map(VB1_VA, vertex_words(v, 0x1234, 4).tobytes(), name="vertex buffer 1 (16-byte vertices)")
    memory.map(IB16_VA, ((7 * j) % 500).astype("<u2").tobytes(), name="index buffer R16_UINT")
    memory.map(IB32_VA, ((13 * j + 1) % 700).astype("<u4").tobytes(), name="index buffer R32_UINT")
    for va, data in extra.items():
        memory.map(va, data.tobytes(), name=f"0x{va:x}")
    return memory


IA_OBJECTS: dict[str, Any] = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "Num32BitValues": 1},
         "ShaderVisibility": "ALL"}], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {
        "IndexedIA": {"ByteStride": 56, "pArgumentDescs": [
            {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 0, "Num32BitValuesToSet": 1}},
            {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 1}},
            {"Type": "INDEX_BUFFER_VIEW"},
            {"Type": "DRAW_INDEXED"}], "pRootSignature": "RS"},
        "IndexedInheritedIB": {"ByteStride": 40, "pArgumentDescs": [
            {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 0, "Num32BitValuesToSet": 1}},
            {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 1}},
            {"Type": "DRAW_INDEXED"}], "pRootSignature": "RS"},
    },
}


def build_ia_capture(commands: int = 48, index_buffer: str = "command", robust: bool = False) -> Any:
    """``ExecuteIndirect`` of indexed draws through a count buffer (``commands - 3``): command ``k`` sets b0 to
    ``100 + k``, vertex buffer slot 1 to ``VB1 + 1024 (k % 4)`` (stride 16, or 32 for odd ``k``), and (with
    ``index_buffer="command"``) an index buffer view alternating ``R16_UINT`` (even ``k``) and ``R32_UINT`` at
    ``64 (k % 3)`` bytes into its buffer; it draws ``3 + k % 5`` indices from ``5 k``, ``1 + k % 2`` instances,
    BaseVertexLocation ``k % 7``.  Vertex buffer slot 0 (12-byte vertices) comes from the command list; with
    ``index_buffer="command_list"`` so does the index buffer (R32_UINT)."""
    objects = description.load(IA_OBJECTS)
    name = "IndexedIA" if index_buffer == "command" else "IndexedInheritedIB"
    if index_buffer not in ("command", "command_list"):
        raise ValueError(f"index_buffer is 'command' or 'command_list', not {index_buffer!r}")
    cs = objects.command_signatures[name]
    k = np.arange(commands, dtype=np.int64)
    cols: dict[str, Any] = {
        "arg0_Constant": (100 + k).astype(np.uint32),
        "arg1_VertexBuffer.BufferLocation": (VB1_VA + 1024 * (k % 4)).astype(np.uint64),
        "arg1_VertexBuffer.SizeInBytes": (VERTICES * 16 - 1024 * (k % 4)).astype(np.uint32),
        "arg1_VertexBuffer.StrideInBytes": np.where(k % 2, 32, 16).astype(np.uint32)}
    draw = "arg3_DrawIndexed" if index_buffer == "command" else "arg2_DrawIndexed"
    if index_buffer == "command":
        r16, r32 = abi.enum_value("DXGI_FORMAT", "R16_UINT"), abi.enum_value("DXGI_FORMAT", "R32_UINT")
        wide = k % 2 == 1
        cols.update({"arg2_IndexBuffer.BufferLocation": np.where(wide, IB32_VA, IB16_VA) + 64 * (k % 3),
                     "arg2_IndexBuffer.SizeInBytes": np.where(wide, 4, 2) * INDICES - 64 * (k % 3),
                     "arg2_IndexBuffer.Format": np.where(wide, r32, r16)})
    cols.update({f"{draw}.IndexCountPerInstance": (3 + k % 5).astype(np.uint32),
                 f"{draw}.InstanceCount": (1 + k % 2).astype(np.uint32),
                 f"{draw}.StartIndexLocation": (5 * k).astype(np.uint32),
                 f"{draw}.BaseVertexLocation": (k % 7).astype(np.int32), f"{draw}.StartInstanceLocation": 0})
    if robust:  # build_robust_ia_capture
        ib, vb = "arg2_IndexBuffer", "arg1_VertexBuffer"
        esize = np.where(k % 2, 4, 2)
        room = cols[f"{ib}.SizeInBytes"] // esize - 5 * k
        cols[f"{draw}.IndexCountPerInstance"] = np.where(k % 4 == 1, room + 40, 3 + k % 5).astype(np.uint32)
        cols[f"{ib}.BufferLocation"] = np.where(k % 4 == 0, 0, cols[f"{ib}.BufferLocation"]).astype(np.uint64)
        cols[f"{vb}.BufferLocation"] = np.where(k % 4 == 2, 0, cols[f"{vb}.BufferLocation"]).astype(np.uint64)
        cols[f"{vb}.SizeInBytes"] = np.where(k % 4 == 3, 32, cols[f"{vb}.SizeInBytes"]).astype(np.uint32)
    state = CommandListState(graphics_root_signature=cs.pRootSignature,
                             vertex_buffers={0: VertexBufferView(VB0_VA, VERTICES * 12, 12)})
    if index_buffer == "command_list":
        state.index_buffer = IndexBufferView(IB32_VA, INDICES * 4, abi.enum_value("DXGI_FORMAT", "R32_UINT"))
    return execute_indirect_capture(objects, cs, packers.pack_execute_indirect(cs, cols), commands, commands - 3,
                                    state, _memory({}))


INHERITED_IA_OBJECTS: dict[str, Any] = {
    "root_signatures": {"GRS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "Num32BitValues": 1},
         "ShaderVisibility": "ALL"}], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "program_command_signatures": {"PCS": {"pArgumentDescs": [
        {"Type": "CONSTANT", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE",
         "Constant": {"RootParameterIndex": 0, "DestOffsetIn32BitValues": 0, "Num32BitValuesToSet": 1}},
        {"Type": "DRAW_INDEXED", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE"},
    ], "SecondaryRecordByteStride": 24, "pGlobalRootSignature": "GRS"}},
    "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"], "SubobjectMask": ["VS", "PS"]}},
    "programs": {f"I{p}": {"Identifier": (f"I{p}".encode() * 16)[:32].hex(), "ProgramCommandSignature": "PCS"}
                 for p in range(2)},
}


def build_inherited_ia_capture(draws: int = 40, index_buffer: bool = True) -> Any:
    """A work list of indexed draws (``_DRAW_INDEXED`` from secondary records, no IA argument) whose index buffer
    (R16_UINT) and vertex buffers (slot 0, 12-byte vertices; slot 2, 16-byte vertices) are the command list's
    (spec "Input Assembler bindings"): draw ``i`` sets b0 to ``i`` and draws ``2 + i % 4`` indices from ``3 i``,
    ``1 + i % 3`` instances, BaseVertexLocation ``i % 5``; eight draws per primary record, the programs alternating.
    These are the draws a harness that did not bind the command list's index buffer sent to address 0.  With
    ``index_buffer=False`` the command list has none: every index reads 0 (D3D11.3 8.20)."""
    objects = description.load(INHERITED_IA_OBJECTS)
    pcs = objects.program_command_signatures["PCS"]
    i = np.arange(draws, dtype=np.int64)
    n_primary = draws // 8
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": (np.arange(n_primary) % 2).astype(np.uint32)}, {
        "arg0_Constant": i.astype(np.uint32),
        "arg1_DrawIndexed.IndexCountPerInstance": (2 + i % 4).astype(np.uint32),
        "arg1_DrawIndexed.InstanceCount": (1 + i % 3).astype(np.uint32),
        "arg1_DrawIndexed.StartIndexLocation": (3 * i).astype(np.uint32),
        "arg1_DrawIndexed.BaseVertexLocation": (i % 5).astype(np.int32),
        "arg1_DrawIndexed.StartInstanceLocation": 0}, np.full(n_primary, 8, dtype=np.uint32))
    names = sorted(objects.programs)
    table = ProgramTableSpec(pcs_layout(pcs), {IDENTIFIER_FIELD: [objects.programs[n].Identifier for n in names]})
    wls = objects.work_list_signatures["WLS"]
    wl = build_work_list([spec], base_va=0x1_0000_0000, program_table=table, signature=wls, objects=objects)
    memory = _memory({})
    for region in wl.memory().regions:
        memory.map(region.base, bytes(region.data), name=region.name)
    state = wl.command_list_state(wls, graphics_root_signature=pcs.pGlobalRootSignature,
                                  index_buffer=IndexBufferView(IB16_VA, INDICES * 2,
                                                               abi.enum_value("DXGI_FORMAT", "R16_UINT")),
                                  vertex_buffers={0: VertexBufferView(VB0_VA, VERTICES * 12, 12),
                                                  2: VertexBufferView(VB1_VA, VERTICES * 16, 16)},
                                  graphics_root_arguments={0: RootArgument("constants", values=[0])})
    if not index_buffer:
        state.index_buffer = None
    cap = wl.to_capture(objects, wls, state=state)
    cap.memory = memory
    return cap


def build_robust_ia_capture(commands: int = 48) -> Any:
    """:func:`build_ia_capture` with what D3D12 reads as 0 (D3D11.3 8.19.2 "Addressing Bounds", 8.20 "no Buffer
    bound"), by command ``k``: ``k % 4 == 0`` a null index buffer view, 1 an index count running 40 indices past
    the end of its view, 2 a null vertex buffer view in slot 1, 3 a slot-1 view 32 bytes long (every vertex past
    its second reads 0)."""
    return build_ia_capture(commands, robust=True)
