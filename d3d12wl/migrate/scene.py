"""A synthetic GPU-driven scene bucketed by PSO, as an engine issues it without Work Lists (spec "Motivation": one
ExecuteIndirect per possible PSO, a count buffer each, many of them 0): the input of the migration measurements and
tests.  Deterministic for a seed.

Root signature ``RS``: a root CBV b0 (per-frame constants, set once), a root SRV t0 (per-draw object data), one root
constant b1 (the material id, set on the command list before each PSO's call).  Command signatures:
``DrawIndexedSRV`` (SRV + ``DRAW_INDEXED``, ByteStride 28) and, with ``mixed=True`` for every second PSO,
``DrawSRV`` (SRV + ``DRAW``, 24).  Every buffer is packed by :func:`d3d12wl.records.packers.pack_execute_indirect`.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.migrate.runs import CallSequenceEntry
from d3d12wl.model import description
from d3d12wl.model.state import (
    BufferResource,
    CommandListState,
    DeviceCaps,
    ExecuteIndirectCall,
    IndexBufferView,
    RootArgument,
)
from d3d12wl.records.packers import pack_count_buffer, pack_execute_indirect

__all__ = ["OBJECTS", "bucket_scene"]

OBJECTS = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 1, "Num32BitValues": 1},
         "ShaderVisibility": "ALL"}], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {
        "DrawIndexedSRV": {"ByteStride": 28, "pRootSignature": "RS", "pArgumentDescs": [
            {"Type": "SHADER_RESOURCE_VIEW", "ShaderResourceView": {"RootParameterIndex": 1}},
            {"Type": "DRAW_INDEXED"}]},
        "DrawSRV": {"ByteStride": 24, "pRootSignature": "RS", "pArgumentDescs": [
            {"Type": "SHADER_RESOURCE_VIEW", "ShaderResourceView": {"RootParameterIndex": 1}},
            {"Type": "DRAW"}]},
    },
}

FRAME_CONSTANTS_VA = 0x10000
ARGUMENTS_VA = 0x1000000  # one argument buffer per PSO, 16 MiB apart
COUNTS_VA = 0x100000


def bucket_scene(draws: int = 100_000, psos: int = 64, *, active: float = 0.75, seed: int = 1,
                 mixed: bool = False) -> list[CallSequenceEntry]:
    """``psos`` ExecuteIndirect calls (one per PSO, in PSO order) drawing ``draws`` in all; a fraction ``active``
    of the PSOs has draws this frame, the others' count buffers hold 0.  MaxCommandCount is each bucket's capacity
    (the largest bucket, rounded up to 256), as an engine sizes them on the CPU; so is each argument buffer's
    resource (``ExecuteIndirectCall.ArgumentBufferResource``: IndirectDrawing.md "Drawing" bounds MaxCommandCount *
    ByteStride by it), in the INDIRECT_ARGUMENT state; the capture maps the commands written this frame."""
    rng = np.random.default_rng(seed)
    objects = description.load(OBJECTS)
    n_active = max(1, int(round(psos * active)))
    live = np.sort(rng.choice(psos, size=n_active, replace=False))
    weights = rng.random(n_active) + 0.2
    counts = np.zeros(psos, dtype=np.int64)
    counts[live] = np.floor(weights / weights.sum() * draws).astype(np.int64)
    counts[live[0]] += draws - int(counts.sum())
    capacity = int(-(-max(int(counts.max()), 1) // 256) * 256)
    ib = IndexBufferView(0x20000000, 1 << 24, abi.enum_value("DXGI_FORMAT", "R32_UINT"))
    out = []
    first = 0
    for p in range(psos):
        cs = objects.command_signatures["DrawSRV" if mixed and p % 2 else "DrawIndexedSRV"]
        n = int(counts[p])
        idx = np.arange(first, first + n, dtype=np.uint64)
        first += n
        cols: dict[str, Any] = {"arg0_ShaderResourceView": 0x40000000 + idx * np.uint64(256)}
        if cs.name == "DrawSRV":
            cols.update({"arg1_Draw.VertexCountPerInstance": (36 + idx % np.uint64(90)).astype(np.uint32),
                         "arg1_Draw.InstanceCount": 1, "arg1_Draw.StartVertexLocation": (idx * 3).astype(np.uint32),
                         "arg1_Draw.StartInstanceLocation": 0})
        else:
            cols.update({"arg1_DrawIndexed.IndexCountPerInstance": (36 + idx % np.uint64(300)).astype(np.uint32),
                         "arg1_DrawIndexed.InstanceCount": (1 + idx % np.uint64(3)).astype(np.uint32),
                         "arg1_DrawIndexed.StartIndexLocation": (idx * 6).astype(np.uint32),
                         "arg1_DrawIndexed.BaseVertexLocation": 0, "arg1_DrawIndexed.StartInstanceLocation": 0})
        args = pack_execute_indirect(cs, cols, count=n) if n else np.zeros(0, dtype=np.uint8)
        memory = GpuMemory()
        va = ARGUMENTS_VA + p * (1 << 24)
        if n:
            memory.map(va, args, name="pArgumentBuffer")
        memory.map(COUNTS_VA, pack_count_buffer(n), name="pCountBuffer")
        rs = cs.pRootSignature
        state = CommandListState(graphics_root_signature=rs, index_buffer=ib, graphics_root_arguments={
            0: RootArgument("descriptor", value=FRAME_CONSTANTS_VA),
            2: RootArgument("constants", values=[1000 + p])})
        resource = BufferResource(va, capacity * cs.ByteStride, abi.enum_value("D3D12_RESOURCE_STATES",
                                                                                "INDIRECT_ARGUMENT"))
        call = ExecuteIndirectCall(cs, capacity, va, COUNTS_VA, ArgumentBufferResource=resource)
        device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"))
        out.append(CallSequenceEntry(Capture(CAPTURE_VERSION, device, objects, memory, state, call), f"PSO{p:02d}"))
    return out
