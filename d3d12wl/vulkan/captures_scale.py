"""Captures at the scale of the frames that broke the GPU check (issue 44): draws of tens of thousands of vertices
and several instances each, so that a frame of 100,000 draws runs about 10^10 vertex invocations.

:func:`build_heavy_ei_capture`: an ``ExecuteIndirect`` of ``commands`` draws through a count buffer (a root
constant and ``_DRAW`` per command) over the command list's captured vertex buffer in slot 0, which the harness
fetches: command ``k`` draws ``heavy_count(k)`` vertices (below 65,536) from ``heavy_start(k)`` with ``1 + k % 7``
instances (4 on average: 1.3e10 vertex invocations at 100,000 commands).

:func:`build_heavy_frame_capture`: a Tier 1 hybrid work list of ``draws`` draws in the shape of
:func:`d3d12wl.vulkan.captures.build_big_capture` (two root constants, a root SRV and ``_DRAW`` per secondary
record, a tint per program in the program table), each draw of ``heavy_count(i)`` vertices and ``1 + i % 15``
instances (8 on average: 2.6e10 vertex invocations at 100,000 draws).

Every value is a function of the draw's number, so each capture is reproducible from its arguments alone.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model import description
from d3d12wl.model.state import CommandListState, VertexBufferView
from d3d12wl.records import packers
from d3d12wl.vulkan.captures import execute_indirect_capture, frame_capture
from d3d12wl.vulkan.captures_ia import vertex_words

__all__ = ["build_heavy_ei_capture", "build_heavy_frame_capture", "heavy_count", "heavy_start"]

#: the vertex buffer of the ExecuteIndirect capture: VERTICES vertices of STRIDE bytes, captured
VERTICES, STRIDE, VB_VA = 1 << 17, 8, 0x4000_0000
#: the most vertices one draw has
MAX_COUNT = 1 << 16


def heavy_count(k: np.ndarray) -> np.ndarray:
    """The vertex count of draw ``k``: a mix of ``k`` below :data:`MAX_COUNT` (32,768 on average)."""
    return ((k.astype(np.uint64) * 2654435761 >> np.uint64(7)) % np.uint64(MAX_COUNT)).astype(np.uint32)


def heavy_start(k: np.ndarray) -> np.ndarray:
    """The first vertex of draw ``k``: every vertex it reads lies in the :data:`VERTICES`-vertex buffer."""
    return ((k.astype(np.uint64) * 40503) % np.uint64(VERTICES - MAX_COUNT)).astype(np.uint32)


HEAVY_EI_OBJECTS: dict[str, Any] = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "Num32BitValues": 1},
         "ShaderVisibility": "ALL"}], "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {"HeavyDraws": {"ByteStride": 20, "pArgumentDescs": [
        {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 0, "Num32BitValuesToSet": 1}},
        {"Type": "DRAW"}], "pRootSignature": "RS"}},
}


def build_heavy_ei_capture(commands: int = 100_000, count: int | None = None) -> Any:
    """``ExecuteIndirect(HeavyDraws, MaxCommandCount = commands, args, count buffer = count (default commands))``:
    command ``k`` sets b0 to ``k`` and draws ``heavy_count(k)`` vertices from ``heavy_start(k)``, ``1 + k % 7``
    instances from ``k % 5``, fetching the command list's vertex buffer (slot 0, :data:`VERTICES` vertices of
    :data:`STRIDE` bytes, in the capture)."""
    objects = description.load(HEAVY_EI_OBJECTS)
    cs = objects.command_signatures["HeavyDraws"]
    k = np.arange(commands, dtype=np.uint64)
    args = packers.pack_execute_indirect(cs, {
        "arg0_Constant": k.astype(np.uint32),
        "arg1_Draw.VertexCountPerInstance": heavy_count(k),
        "arg1_Draw.InstanceCount": (1 + k % 7).astype(np.uint32),
        "arg1_Draw.StartVertexLocation": heavy_start(k),
        "arg1_Draw.StartInstanceLocation": (k % 5).astype(np.uint32)})
    memory = GpuMemory()
    memory.map(VB_VA, vertex_words(np.arange(VERTICES), 0x5EED, STRIDE // 4).tobytes(), name="vertex buffer 0")
    state = CommandListState(graphics_root_signature=cs.pRootSignature,
                             vertex_buffers={0: VertexBufferView(VB_VA, VERTICES * STRIDE, STRIDE)})
    return execute_indirect_capture(objects, cs, args, commands, commands if count is None else count, state, memory)


def build_heavy_frame_capture(draws: int = 100_000, per_record: int = 250, programs: int = 4) -> Any:
    """A Tier 1 ``DispatchList`` of ``draws`` draws (a multiple of ``per_record``) in the shape of
    :func:`~d3d12wl.vulkan.captures.build_big_capture`, draw ``i`` of ``heavy_count(i)`` vertices from
    ``heavy_start(i)`` and ``1 + i % 15`` instances."""
    i = np.arange(draws, dtype=np.uint64)
    return frame_capture(per_record, programs, heavy_count(i), (1 + i % 15).astype(np.uint32), heavy_start(i))
