"""Lower a captured ``DispatchList`` (Tier 1), ``DispatchList1`` chain (Tier 2) or ``ExecuteIndirect`` call to
``VK_EXT_device_generated_commands``.

What the lowering produces (:class:`~d3d12wl.vulkan.lowered.Lowering`, one or more *leaves*):

* the **indirect-commands layout** (:class:`CommandsLayout`): one token per argument that carries data, each at a
  byte offset in a fixed-stride *sequence*; an ``EXECUTION_SET`` token first for a work list, the action token
  (``DRAW``, ``DRAW_INDEXED``, ``DISPATCH``, ``DRAW_MESH_TASKS``) last;
* the **execution set** (:attr:`Lowering.execution_set`): one pipeline per program of the leaf's program command
  signature, in the capture's program order; a sequence's execution-set index is the program its primary record's
  ``ProgramTableIndex`` selects (slot -> identifier -> program).  A list whose records use several program command
  signatures is one leaf per signature (:mod:`d3d12wl.vulkan.work_lists`);
* the **push-constant block** (:class:`PushConstantRange`, :mod:`d3d12wl.vulkan.tokens`): every root parameter the
  call can touch, global ones first in root-signature order, then the synthesized local root signature's slots
  (spec "_INLINE_ROOT_PARAMETER"): a root-constants parameter takes ``4 * Num32BitValues`` bytes, a root
  CBV/SRV/UAV 8 bytes (its GPU VA), a descriptor table 8 bytes (its GPU descriptor handle: the value the draw
  receives; no descriptor heap is bound);
* the **initial push constants**: the command-list state's root arguments, pushed once before the execute
  (values the records do not set are inherited, as in D3D12; an ExecuteIndirect whose command signature has no
  root signature, because it changes no root argument, lays out and pushes the command list's root signature of
  its class), and the command list's **vertex and index buffers** that no token sets (spec "Input Assembler
  bindings"), bound before the execute;
* the **sequence buffer**: ``count`` sequences of ``stride`` bytes, generated on the CPU from the record bytes
  with numpy (whole columns of bytes: the D3D12 argument structs and the Vulkan token payloads have the same
  bytes; ``D3D12_DRAW_ARGUMENTS`` is ``VkDrawIndirectCommand``, ``D3D12_VERTEX_BUFFER_VIEW`` is
  ``VkBindVertexBufferIndirectCommandEXT``, ``D3D12_INDEX_BUFFER_VIEW`` is what the ``DXGI_INDEX_BUFFER`` input
  mode reads, ``D3D12_DISPATCH_ARGUMENTS`` is ``VkDispatchIndirectCommand``), and the **executes** it runs as
  (:attr:`Lowering.chunks`: at most ``max_sequences`` each);
* :attr:`Lowering.not_lowered`: every argument (or the call itself) that cannot be lowered, and why.  When it is
  not empty there is no layout and no sequence buffer.

The lowering reads bytes only through :class:`~d3d12wl.capture.memory.GpuMemory` and records only through
:mod:`d3d12wl.records.layout`; it does not use the executor.  Bytes that lead into undefined behaviour (an
unmapped VA, a slot past ``SlotCount``, an unknown program identifier, a misaligned ``DispatchListInput`` /
``StartAddress`` / ``SecondaryRecords``, a record stride below its layout's minimum, rule 25(e)) raise
:class:`LoweringError` naming the rule: the executor is the tool that explains those.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model.objects import IndirectArgumentDesc, ObjectSet
from d3d12wl.model.state import (
    CommandListState,
    DispatchListCall,
    ExecuteIndirectCall,
    execute_indirect_root_signature,
)
from d3d12wl.records.layout import command_layout
from d3d12wl.vulkan.lowered import (
    CommandsLayout,
    DispatchListWalk,
    ExecuteIndirectWalk,
    Lowering,
    LoweringError,
    NotLowered,
    PushConstantRange,
    SequenceColumn,
    Token,
)
from d3d12wl.vulkan.tokens import (
    IBV_BYTES,
    NOT_LOWERED,
    ROOT_DESCRIPTORS,
    SEQUENCE_INDEX_BYTES,
    TRIGGERS,
    VA_BYTES,
    VBV_BYTES,
    LayoutBuilder,
    chunks_of,
    index_mode,
    inherited_ia,
    initial_push_constants,
    push_block,
    rows,
    view,
)
from d3d12wl.vulkan.vk import TokenType
from d3d12wl.vulkan.work_lists import lower_dispatch_list, not_lowered

__all__ = ["CommandsLayout", "DispatchListWalk", "ExecuteIndirectWalk", "Lowering", "LoweringError", "NotLowered",
           "PushConstantRange", "SEQUENCE_INDEX_BYTES", "SequenceColumn", "Token", "lower", "lower_capture"]


# ----------------------------------------------------------------------------------------------------------------
# The sequence buffer: ExecuteIndirect
# ----------------------------------------------------------------------------------------------------------------

def _lower_execute_indirect(memory: GpuMemory, state: CommandListState, call: ExecuteIndirectCall,
                            sequence_index: bool, max_sequences: int | None, cut: bool) -> Lowering:
    cs = call.pCommandSignature
    if cs is None:
        raise LoweringError("no command signature", where="call.ExecuteIndirect.pCommandSignature")
    args = cs.pArgumentDescs
    names = [a.type_name for a in args]
    cls = "COMPUTE" if "DISPATCH" in names else "GRAPHICS"
    count = call.MaxCommandCount
    if call.CountBuffer is not None:
        count = min(count, int(np.frombuffer(view(memory, call.CountBuffer, 4, "count buffer"), dtype="<u4")[0]))
    one_execute = not cut and (max_sequences is None or count <= max_sequences)
    # a command signature that changes no root argument has no root signature: its commands see the command
    # list's (IndirectDrawing.md "Command signature Creation"), whose values are the initial push constants
    block = push_block(execute_indirect_root_signature(cs, state, cls == "GRAPHICS"), (), sequence_index)
    b = LayoutBuilder(block)
    rec = command_layout(cs)
    trigger: tuple[int, IndirectArgumentDesc] | None = None
    for i, arg in enumerate(args):
        name = arg.type_name
        f = rec.arg_field(i)
        if name in TRIGGERS:
            trigger = (i, arg)
        elif name in NOT_LOWERED:
            b.not_lowered.append(NotLowered(f"arg{i} {name}", NOT_LOWERED[name], i))
        elif name == "CONSTANT":
            c = arg.Constant
            b.push(i, "global", c.RootParameterIndex, c.DestOffsetIn32BitValues, 4 * c.Num32BitValuesToSet,
                   "command", f)
        elif name in ROOT_DESCRIPTORS:
            b.push(i, "global", arg.root_parameter_index or 0, 0, VA_BYTES, "command", f)
        elif name == "INCREMENTING_CONSTANT":  # IndirectDrawing.md: k for command k
            ic = arg.IncrementingConstant
            b.incrementing_constant(i, "global", ic.RootParameterIndex, ic.DestOffsetIn32BitValues, per_list=False,
                                    one_execute=one_execute)
        elif name == "VERTEX_BUFFER_VIEW":
            b.add(TokenType.VERTEX_BUFFER, VBV_BYTES, "command", arg=i, field=f, vertex_binding_unit=arg.VertexBuffer.Slot)
        elif name == "INDEX_BUFFER_VIEW":
            b.add(TokenType.INDEX_BUFFER, IBV_BYTES, "command", arg=i, field=f, index_mode=index_mode())
        else:
            b.not_lowered.append(NotLowered(f"arg{i} {name}", "argument type not known to this lowering", i))
    b.finish(trigger, None, sequence_index)
    for col in b.columns:
        if col.source == "command" and col.field is None and col.token.arg is not None:
            col.field = rec.arg_field(col.token.arg)
    if b.not_lowered:
        return not_lowered("ExecuteIndirect", items=b.not_lowered)
    records = rows(memory, call.ArgumentBuffer, count, cs.ByteStride, rec.size, "argument buffer")
    stride = b.stride
    seq = np.zeros((count, stride), dtype=np.uint8)
    positions = np.arange(count, dtype=np.int64)
    for col in b.columns:
        t = col.token
        if col.source == "zero":
            continue
        if col.source == "position":
            seq[:, t.offset:t.offset + t.size] = positions.astype("<u4").view(np.uint8).reshape(count, 4)
            continue
        if col.field is None:
            raise LoweringError(f"arg{t.arg}: no field of the command record for a {t.type.name} token",
                                rule="Command signature layout")
        seq[:, t.offset:t.offset + t.size] = records[:, col.field.offset:col.field.offset + t.size]
    lay = CommandsLayout(cls, b.ordered(), stride, tuple(block))
    vbs, ib = inherited_ia(lay.tokens, state, lay.action.type)
    columns = tuple(SequenceColumn(c.source, c.token.offset, c.token.size, c.field.offset if c.field else 0,
                                   c.constant) for c in b.columns)
    walk = ExecuteIndirectWalk(call.ArgumentBuffer, cs.ByteStride, rec.size, call.MaxCommandCount,
                               call.CountBuffer or 0, columns)
    return Lowering("ExecuteIndirect", lay, (), initial_push_constants(block, state, cls == "COMPUTE"), seq, (),
                    tuple(b.pipeline_state), walk=walk, positions=positions, chunks=chunks_of(count, max_sequences),
                    vertex_buffers=vbs, index_buffer=ib)


# ----------------------------------------------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------------------------------------------

def lower(memory: GpuMemory, objects: ObjectSet, state: CommandListState,
          call: DispatchListCall | ExecuteIndirectCall, *, sequence_index: bool = False,
          max_sequences: int | None = None, cut: bool = False) -> Lowering:
    """Lower one call.  ``sequence_index``: add a ``SEQUENCE_INDEX`` token writing each sequence's index into one
    more push-constant DWORD after the root parameters (what the GPU harness records draws by).
    ``max_sequences``: the most sequences one DGC execute may run (the device's ``maxIndirectSequenceCount``);
    larger leaves are split into executes of at most that many (:attr:`Lowering.chunks`).  None: one execute per
    leaf.  ``cut``: the caller cuts the leaves into executes of its own (:mod:`d3d12wl.vulkan.submissions`), so no
    sequence index restarts unseen: an incrementing constant is lowered as a push constant holding the position."""
    if isinstance(call, DispatchListCall):
        return lower_dispatch_list(memory, objects, state, call, sequence_index, max_sequences, cut)
    if isinstance(call, ExecuteIndirectCall):
        return _lower_execute_indirect(memory, state, call, sequence_index, max_sequences, cut)
    raise LoweringError(f"unknown call {type(call).__name__}")


def lower_capture(capture: Any, *, sequence_index: bool = False, max_sequences: int | None = None,
                  cut: bool = False) -> Lowering:
    """:func:`lower` on a :class:`d3d12wl.capture.file.Capture`."""
    return lower(capture.memory, capture.objects, capture.state, capture.call, sequence_index=sequence_index,
                 max_sequences=max_sequences, cut=cut)
