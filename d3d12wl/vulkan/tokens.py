"""The parts every lowering shares: the push-constant block, the token builder (one token per argument, each with
the column its bytes come from), the action token, the command-list state a layout inherits, the split into
executes, and reading GPU memory as rows.

The push-constant block holds every root parameter the call can touch: the global root signature's parameters in
order (root constants ``4 * Num32BitValues`` bytes; a root CBV/SRV/UAV 8 bytes, its GPU VA; a descriptor table 8
bytes, its ``D3D12_GPU_DESCRIPTOR_HANDLE``), then the synthesized local root signature's slots
(:func:`d3d12wl.records.layout.inline_local_slots`), then, for the harness, one sequence-index DWORD.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import D3D12WLError
from d3d12wl.model.objects import RootSignature, WorkListArgumentDesc
from d3d12wl.model.state import CommandListState, IndexBufferView, VertexBufferView
from d3d12wl.records.layout import LayoutField, PCSLayout, inline_local_slots
from d3d12wl.vulkan.lowered import ACTIONS, LoweringError, NotLowered, PushConstantRange, Token
from d3d12wl.vulkan.vk import IndexInputMode, TokenType

#: bytes reserved in a sequence for a SEQUENCE_INDEX token (the driver writes the index; the bytes stay zero)
SEQUENCE_INDEX_BYTES = 4
#: sizes from the compiled headers: a root descriptor's GPU VA, a descriptor table's handle, the view structs a
#: VERTEX_BUFFER / INDEX_BUFFER token reads, a program identifier
VA_BYTES = abi.sizeof("D3D12_GPU_VIRTUAL_ADDRESS")
HANDLE_BYTES = abi.sizeof("D3D12_GPU_DESCRIPTOR_HANDLE")
VBV_BYTES = abi.sizeof("D3D12_VERTEX_BUFFER_VIEW")
IBV_BYTES = abi.sizeof("D3D12_INDEX_BUFFER_VIEW")
IDENTIFIER_BYTES = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")

TRIGGERS = {"DRAW": TokenType.DRAW, "DRAW_INDEXED": TokenType.DRAW_INDEXED, "DISPATCH": TokenType.DISPATCH,
            "DISPATCH_MESH": TokenType.DRAW_MESH_TASKS, "FIXED_DISPATCH": TokenType.DISPATCH}
ROOT_DESCRIPTORS = {"CONSTANT_BUFFER_VIEW": "CBV", "SHADER_RESOURCE_VIEW": "SRV", "UNORDERED_ACCESS_VIEW": "UAV"}
RECORD_POINTERS = ("PRIMARY_RECORD_POINTER", "SECONDARY_RECORD_POINTER", "PROGRAM_TABLE_POINTER")
NOT_LOWERED = {
    "DISPATCH_RAYS_DIMENSIONS": "raytracing class: an indirect execution set holds graphics or compute pipelines "
                                "(or shader objects), never raytracing pipelines",
    "DISPATCH_RAYS": "raytracing: an indirect execution set holds no raytracing pipelines",
    "DISPATCH_LIST_HEADER_POINTER": "validator pointer argument: GPU timeline validation hooks are not lowered",
    "PRIMARY_LIST_POINTER": "validator pointer argument: GPU timeline validation hooks are not lowered",
    "SECONDARY_LIST_POINTER": "validator pointer argument: GPU timeline validation hooks are not lowered",
}
#: the bytes an action token reads: the D3D12 argument struct (VkDraw*/VkDispatch*IndirectCommand has the same bytes)
TRIGGER_SIZE = {name: abi.sizeof(struct) for name, struct in (
    ("DRAW", "D3D12_DRAW_ARGUMENTS"), ("DRAW_INDEXED", "D3D12_DRAW_INDEXED_ARGUMENTS"),
    ("DISPATCH", "D3D12_DISPATCH_ARGUMENTS"), ("DISPATCH_MESH", "D3D12_DISPATCH_MESH_ARGUMENTS"))}


# ----------------------------------------------------------------------------------------------------------------
# The push-constant block
# ----------------------------------------------------------------------------------------------------------------

_PARAM_KIND = {"32BIT_CONSTANTS": "constants", "CBV": "descriptor", "SRV": "descriptor", "UAV": "descriptor",
               "DESCRIPTOR_TABLE": "descriptor_table"}


def _param_size(param_type: str, num_values: int) -> int:
    if param_type == "32BIT_CONSTANTS":
        return 4 * num_values
    return HANDLE_BYTES if param_type == "DESCRIPTOR_TABLE" else VA_BYTES


def push_block(rs: RootSignature | None, local: Sequence[tuple[str, int]], sequence_index: bool
               ) -> list[PushConstantRange]:
    """Global parameters in root-signature order, then the local slots, then (harness) one sequence-index DWORD."""
    ranges: list[PushConstantRange] = []
    offset = 0
    params = rs.pParameters if rs is not None else []
    for p, param in enumerate(params):
        kind = param.parameter_type_name
        size = _param_size(kind, param.Constants.Num32BitValues)
        ranges.append(PushConstantRange("global", p, _PARAM_KIND[kind], offset, size))
        offset += size
    for slot, (kind, num_values) in enumerate(local):
        size = _param_size(kind, num_values)
        ranges.append(PushConstantRange("local", slot, _PARAM_KIND[kind], offset, size))
        offset += size
    if sequence_index:
        ranges.append(PushConstantRange("harness", 0, "sequence_index", offset, 4))
    return ranges


def local_slots(args: Sequence[WorkListArgumentDesc]) -> list[tuple[str, int]]:
    """The synthesized local root signature's slots: (parameter type, Num32BitValues)."""
    out = []
    for indices in inline_local_slots(list(args)):
        rp = args[indices[0]].InlineRootParameter.RootParameter
        out.append((rp.parameter_type_name, rp.Constants.Num32BitValues))
    return out


def initial_push_constants(block: Sequence[PushConstantRange], state: CommandListState, compute: bool) -> bytes:
    """The command-list state's global root arguments at their places in the block (zero elsewhere): root
    constants, root views (the VA) and descriptor tables (the handle's ``ptr``)."""
    size = max((r.offset + r.size for r in block), default=0)
    out = bytearray(size)
    args = state.compute_root_arguments if compute else state.graphics_root_arguments
    for r in block:
        if r.binding != "global" or r.parameter not in args:
            continue
        a = args[r.parameter]
        if a.kind == "constants" and r.kind == "constants":
            data = np.asarray(a.values, dtype="<u4").tobytes()[:r.size]
        elif (a.kind, r.kind) in (("descriptor", "descriptor"), ("table", "descriptor_table")):
            data = int(a.value).to_bytes(r.size, "little")
        else:
            continue
        out[r.offset:r.offset + len(data)] = data
    return bytes(out)


# ----------------------------------------------------------------------------------------------------------------
# Tokens
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class Column:
    """Where one token's bytes come from (the sources of :class:`~d3d12wl.vulkan.lowered.SequenceColumn`), the
    field in that record (or the constant bytes)."""

    token: Token
    source: str
    field: LayoutField | None = None
    constant: bytes = b""


class LayoutBuilder:
    """Tokens one after another in a sequence, each with its :class:`Column`."""

    def __init__(self, block: Sequence[PushConstantRange]) -> None:
        self.block = list(block)
        self.tokens: list[Token] = []
        self.columns: list[Column] = []
        self.not_lowered: list[NotLowered] = []
        self.pipeline_state: list[str] = []
        self.offset = 0

    def add(self, token_type: TokenType, size: int, source: str, *, arg: int | None = None,
            field: LayoutField | None = None, constant: bytes = b"", **kw: Any) -> None:
        token = Token(token_type, self.offset, size, arg, **kw)
        self.tokens.append(token)
        self.columns.append(Column(token, source, field, constant))
        self.offset += size

    def ordered(self) -> tuple[Token, ...]:
        """Layout order: the execution set first, the action token last (its bytes need not be last)."""
        action = [t for t in self.tokens if t.type in ACTIONS]
        return tuple([t for t in self.tokens if t.type not in ACTIONS] + action)

    def push(self, arg: int, binding: str, parameter: int, dword: int, size: int, source: str,
             field: LayoutField | None = None, token_type: TokenType = TokenType.PUSH_CONSTANT) -> None:
        r = next((r for r in self.block if r.binding == binding and r.parameter == parameter), None)
        if r is None:
            self.not_lowered.append(NotLowered(f"arg{arg}", f"{binding} root parameter {parameter} is not a "
                                               "parameter of the root signature", arg))
            return
        self.add(token_type, size, source, arg=arg, field=field, push_offset=r.offset + 4 * dword, push_size=size)

    def incrementing_constant(self, arg: int, binding: str, parameter: int, dword: int, *, per_list: bool,
                              one_execute: bool) -> None:
        """An incrementing constant: the index within the secondary list (``per_list``, a hybrid signature with
        _RESET_PER_SECONDARY_LIST), else the position in the list's linear sequence (IndirectDrawing.md: ``k`` for
        command ``k``), which is the DGC sequence index when the sequences run as one execute in that order
        (``one_execute``) and otherwise a push constant holding it."""
        if per_list:
            self.push(arg, binding, parameter, dword, 4, "secondary_index")
        elif one_execute:
            self.push(arg, binding, parameter, dword, SEQUENCE_INDEX_BYTES, "zero", token_type=TokenType.SEQUENCE_INDEX)
        else:
            self.push(arg, binding, parameter, dword, 4, "position")

    def finish(self, trigger: tuple[int, Any] | None, layout: PCSLayout | None, sequence_index: bool) -> None:
        """The action token, then (harness) the sequence-index slot after it: the bytes of every argument keep the
        offsets they would have without the harness."""
        self._action(trigger, layout)
        if sequence_index:
            r = self.block[-1]
            self.add(TokenType.SEQUENCE_INDEX, SEQUENCE_INDEX_BYTES, "zero", push_offset=r.offset, push_size=4)

    def _action(self, trigger: tuple[int, Any] | None, layout: PCSLayout | None) -> None:
        if trigger is None:
            self.not_lowered.append(NotLowered("signature", "no dispatch trigger"))
            return
        i, arg = trigger
        name = arg.type_name
        if name == "FIXED_DISPATCH":
            fd = arg.FixedDispatch
            dims = np.array([fd.ThreadGroupCountX, fd.ThreadGroupCountY, fd.ThreadGroupCountZ], dtype="<u4").tobytes()
            self.add(TokenType.DISPATCH, TRIGGER_SIZE["DISPATCH"], "constant", arg=i, constant=dims)
            return
        if name == "DISPATCH_MESH":
            self.pipeline_state.append(f"arg{i} DISPATCH_MESH: DRAW_MESH_TASKS through an execution set of mesh "
                                       "pipelines (needs VK_EXT_mesh_shader)")
        if layout is None:  # ExecuteIndirect: the command record
            self.add(TRIGGERS[name], TRIGGER_SIZE[name], "command", arg=i)
            return
        source = source_of(arg)
        f = record_field(layout, i, source)
        if f is None:
            raise LoweringError(f"arg{i} {name}: Source {arg.source_name} has no record in the layout of this "
                                "signature", rule="Dispatch trigger arguments")
        self.add(TRIGGERS[name], f.size, source, arg=i, field=f)

    @property
    def stride(self) -> int:
        return -(-self.offset // 4) * 4


def source_of(arg: WorkListArgumentDesc) -> str:
    return {"PRIMARY_RECORD": "primary", "SECONDARY_RECORD": "secondary",
            "PROGRAM_TABLE_RECORD": "table"}.get(arg.source_name, arg.source_name.lower())


def record_field(layout: PCSLayout, i: int, source: str) -> LayoutField | None:
    record = {"primary": layout.primary, "secondary": layout.secondary, "table": layout.program_table}.get(source)
    return record.arg_field(i) if record is not None else None


# ----------------------------------------------------------------------------------------------------------------
# The command-list state a layout inherits, and the executes
# ----------------------------------------------------------------------------------------------------------------

#: the command list has no index buffer (IASetIndexBuffer(NULL), or none set): a null view, through which every index
#: the input assembler reads is 0 (D3D11.3 8.20); R32_UINT only so that the binding names an index type
NULL_INDEX_BUFFER = IndexBufferView(0, 0, abi.enum_value("DXGI_FORMAT", "R32_UINT"))


def inherited_ia(tokens: Sequence[Token], state: CommandListState, action: TokenType
                 ) -> tuple[tuple[tuple[int, VertexBufferView], ...], IndexBufferView | None]:
    """Work Lists "Input Assembler bindings" (as under ExecuteIndirect): a vertex-buffer slot or the index buffer
    that no argument of the signature sets is the binding the command list set before the call.  Returns the
    inherited vertex buffers and the inherited index buffer (for indexed draws; :data:`NULL_INDEX_BUFFER` when the
    command list has none: every index reads 0, D3D11.3 8.20)."""
    if action not in (TokenType.DRAW, TokenType.DRAW_INDEXED):
        return (), None
    token_slots = {t.vertex_binding_unit for t in tokens if t.type is TokenType.VERTEX_BUFFER}
    vbs = tuple(sorted((slot, v) for slot, v in state.vertex_buffers.items() if slot not in token_slots))
    if action is not TokenType.DRAW_INDEXED or any(t.type is TokenType.INDEX_BUFFER for t in tokens):
        return vbs, None
    return vbs, state.index_buffer if state.index_buffer is not None else NULL_INDEX_BUFFER


def chunks_of(count: int, max_sequences: int | None) -> tuple[tuple[int, int], ...]:
    """``count`` sequences as executes of at most ``max_sequences`` (None: one execute)."""
    if max_sequences is not None and max_sequences < 1:
        raise LoweringError(f"max_sequences must be at least 1, not {max_sequences}")
    step = count if max_sequences is None else max_sequences
    if count == 0:
        return ((0, 0),)
    return tuple((first, min(step, count - first)) for first in range(0, count, step))


def index_mode() -> IndexInputMode:
    """INDEX_BUFFER tokens read ``D3D12_INDEX_BUFFER_VIEW`` as it is: the DXGI input mode (``Format`` per
    sequence)."""
    return IndexInputMode.DXGI_INDEX_BUFFER


# ----------------------------------------------------------------------------------------------------------------
# Memory as rows
# ----------------------------------------------------------------------------------------------------------------

def rows(memory: GpuMemory, va: int, count: int, stride: int, size: int, what: str) -> np.ndarray:
    """``count`` records of ``size`` bytes, ``stride`` apart (0 = the same record), as a (count, size) uint8 array."""
    if count == 0:
        return np.zeros((0, size), dtype=np.uint8)
    if stride == 0:
        row = np.frombuffer(view(memory, va, size, what), dtype=np.uint8)
        return np.broadcast_to(row, (count, size))
    span = (count - 1) * stride + size
    flat = np.frombuffer(view(memory, va, span, what), dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(flat, shape=(count, size), strides=(stride, 1))


def gather(memory: GpuMemory, vas: np.ndarray, size: int, list_vas: np.ndarray, counts: np.ndarray,
           stride: int) -> np.ndarray:
    """The ``size``-byte records at ``vas`` as a (len(vas), size) uint8 array: one view of the region that holds
    them all and one gather at their byte offsets (no Python object per record).  When they are not all in one
    region, list by list (:func:`rows`), which names the list whose bytes are not mapped."""
    if len(vas) == 0:
        return np.zeros((0, size), dtype=np.uint8)
    lo, hi = int(vas.min()), int(vas.max()) + size
    region = memory.region_at(lo)
    if region is not None and region.contains(lo, hi - lo):
        flat = np.frombuffer(view(memory, lo, hi - lo, "secondary records"), dtype=np.uint8)
        windows = np.lib.stride_tricks.sliding_window_view(flat, size)
        return windows[(vas - np.uint64(lo)).astype(np.intp)]
    parts = [rows(memory, int(list_vas[k]), int(counts[k]), stride, size, f"secondary records of primary record {k}")
             for k in range(len(counts)) if counts[k]]
    return np.concatenate(parts)


def view(memory: GpuMemory, va: int, size: int, what: str) -> memoryview:
    try:
        return memory.view(va, size, what=what)
    except D3D12WLError as e:
        raise LoweringError(f"{what}: {e}", where=f"VA 0x{va:x}") from e


def u32(data: np.ndarray, offset: int) -> np.ndarray:
    return np.ascontiguousarray(data[:, offset:offset + 4]).view("<u4").reshape(-1)


def u64(data: np.ndarray, offset: int) -> np.ndarray:
    return np.ascontiguousarray(data[:, offset:offset + 8]).view("<u8").reshape(-1)
