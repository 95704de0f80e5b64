"""Lower a captured ``DispatchList`` (Tier 1) or ``ExecuteIndirect`` call to ``VK_EXT_device_generated_commands``.

What the lowering produces (:class:`Lowering`):

* the **indirect-commands layout** (:class:`CommandsLayout`): one token per argument that carries data, each at a
  byte offset in a fixed-stride *sequence*; an ``EXECUTION_SET`` token first for a work list, the action token
  (``DRAW``, ``DRAW_INDEXED``, ``DISPATCH``, ``DRAW_MESH_TASKS``) last;
* the **execution set** (:attr:`Lowering.execution_set`): one pipeline per program of the bound work list
  signature's program command signature, in the capture's program order; a sequence's execution-set index is the
  program its primary record's ``ProgramTableIndex`` selects (slot -> identifier -> program);
* the **push-constant block** (:class:`PushConstantRange`): every root parameter the call can touch, global ones
  first in root-signature order, then the synthesized local root signature's slots (spec "_INLINE_ROOT_PARAMETER"):
  a root-constants parameter takes ``4 * Num32BitValues`` bytes, a root CBV/SRV/UAV 8 bytes (its GPU VA, read by
  the shader through a buffer device address);
* the **initial push constants**: the command-list state's root arguments, pushed once before the execute
  (values the records do not set are inherited, as in D3D12; an ExecuteIndirect whose command signature has no
  root signature, because it changes no root argument, lays out and pushes the command list's root signature of
  its class);
* the **sequence buffer**: ``count`` sequences of ``stride`` bytes, generated on the CPU from the record bytes
  with numpy (whole columns of bytes: the D3D12 argument structs and the Vulkan token payloads have the same
  bytes; ``D3D12_DRAW_ARGUMENTS`` is ``VkDrawIndirectCommand``, ``D3D12_VERTEX_BUFFER_VIEW`` is
  ``VkBindVertexBufferIndirectCommandEXT``, ``D3D12_INDEX_BUFFER_VIEW`` is what the ``DXGI_INDEX_BUFFER`` input
  mode reads, ``D3D12_DISPATCH_ARGUMENTS`` is ``VkDispatchIndirectCommand``);
* :attr:`Lowering.not_lowered`: every argument (or the call itself) that cannot be lowered, and why.  When it is
  not empty there is no layout and no sequence buffer.

The lowering reads bytes only through :class:`~d3d12wl.capture.memory.GpuMemory` and records only through
:mod:`d3d12wl.records.layout`; it does not use the executor.  Bytes that lead into undefined behaviour (an
unmapped VA, a slot past ``SlotCount``, an unknown program identifier, a misaligned ``DispatchListInput`` /
``StartAddress`` / ``SecondaryRecords``, a record stride below its layout's minimum, rule 25(e)) raise
:class:`LoweringError` naming the rule: the executor is the tool that explains those.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import D3D12WLError
from d3d12wl.model.objects import (
    IndirectArgumentDesc,
    ObjectSet,
    ProgramCommandSignature,
    RootSignature,
    WorkListArgumentDesc,
)
from d3d12wl.model.state import (
    CommandListState,
    DispatchListCall,
    ExecuteIndirectCall,
    execute_indirect_root_signature,
)
from d3d12wl.records import packers
from d3d12wl.records.layout import (
    WL_ALIGN,
    LayoutField,
    PCSLayout,
    command_layout,
    inline_local_slots,
    pcs_layout,
)
from d3d12wl.vulkan.vk import IndexInputMode, TokenType

__all__ = ["CommandsLayout", "DispatchListWalk", "Lowering", "SequenceColumn", "LoweringError", "NotLowered", "PushConstantRange", "Token", "lower",
           "lower_capture"]

#: bytes reserved in a sequence for a SEQUENCE_INDEX token (the driver writes the index; the bytes stay zero)
SEQUENCE_INDEX_BYTES = 4
#: sizes from the compiled headers: a root descriptor's GPU VA, the view structs a VERTEX_BUFFER / INDEX_BUFFER
#: token reads, a program identifier
_VA_BYTES = abi.sizeof("D3D12_GPU_VIRTUAL_ADDRESS")
_VBV_BYTES = abi.sizeof("D3D12_VERTEX_BUFFER_VIEW")
_IBV_BYTES = abi.sizeof("D3D12_INDEX_BUFFER_VIEW")
_IDENTIFIER_BYTES = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")

_TRIGGERS = {"DRAW": TokenType.DRAW, "DRAW_INDEXED": TokenType.DRAW_INDEXED, "DISPATCH": TokenType.DISPATCH,
             "DISPATCH_MESH": TokenType.DRAW_MESH_TASKS, "FIXED_DISPATCH": TokenType.DISPATCH}
_ROOT_DESCRIPTORS = {"CONSTANT_BUFFER_VIEW": "CBV", "SHADER_RESOURCE_VIEW": "SRV", "UNORDERED_ACCESS_VIEW": "UAV"}
_RECORD_POINTERS = ("PRIMARY_RECORD_POINTER", "SECONDARY_RECORD_POINTER", "PROGRAM_TABLE_POINTER")
_NOT_LOWERED = {
    "DESCRIPTOR_TABLE": "a descriptor-table handle selects descriptors in a D3D12 descriptor heap; "
                        "VK_EXT_device_generated_commands has no token that binds descriptor sets",
    "DISPATCH_RAYS_DIMENSIONS": "raytracing class: an indirect execution set holds graphics or compute pipelines "
                                "(or shader objects), never raytracing pipelines",
    "DISPATCH_RAYS": "raytracing: an indirect execution set holds no raytracing pipelines",
    "DISPATCH_LIST_HEADER_POINTER": "validator pointer argument: GPU timeline validation hooks are not lowered",
    "PRIMARY_LIST_POINTER": "validator pointer argument: GPU timeline validation hooks are not lowered",
    "SECONDARY_LIST_POINTER": "validator pointer argument: GPU timeline validation hooks are not lowered",
}


class LoweringError(D3D12WLError):
    """The capture's bytes cannot be lowered because they lead into undefined behaviour (run the executor for the
    finding), or the capture is not a call this lowering knows."""


@dataclass(frozen=True)
class PushConstantRange:
    """One root parameter's place in the push-constant block."""

    binding: str  # "global" | "local" | "harness"
    parameter: int
    kind: str  # "constants" | "descriptor" | "sequence_index"
    offset: int
    size: int


@dataclass(frozen=True)
class Token:
    """One ``VkIndirectCommandsLayoutTokenEXT``: ``type`` at byte ``offset`` of a sequence, reading ``size`` bytes.

    ``arg``: the D3D12 argument it lowers (None: the execution set, the harness's sequence-index slot).
    ``push_offset`` / ``push_size``: the ``updateRange`` of a push-constant or sequence-index token.
    """

    type: TokenType
    offset: int
    size: int
    arg: int | None = None
    push_offset: int | None = None
    push_size: int | None = None
    vertex_binding_unit: int | None = None
    index_mode: IndexInputMode | None = None

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type.name, "offset": self.offset, "size": self.size, "arg": self.arg}
        if self.push_offset is not None:
            d["updateRange"] = {"offset": self.push_offset, "size": self.push_size}
        if self.vertex_binding_unit is not None:
            d["vertexBindingUnit"] = self.vertex_binding_unit
        if self.index_mode is not None:
            d["mode"] = self.index_mode.name
        return d


@dataclass(frozen=True)
class CommandsLayout:
    """The indirect-commands layout: tokens in layout order, the sequence stride, and the push-constant block."""

    executable_class: str  # "GRAPHICS" | "COMPUTE"
    tokens: tuple[Token, ...]
    stride: int
    push_constants: tuple[PushConstantRange, ...]

    @property
    def push_constant_size(self) -> int:
        return max((r.offset + r.size for r in self.push_constants), default=0)

    def token(self, arg: int) -> Token:
        return next(t for t in self.tokens if t.arg == arg)

    def push_range(self, binding: str, parameter: int) -> PushConstantRange:
        return next(r for r in self.push_constants if r.binding == binding and r.parameter == parameter)

    def to_dict(self) -> dict[str, Any]:
        return {"executable_class": self.executable_class, "indirectStride": self.stride,
                "push_constant_size": self.push_constant_size,
                "push_constants": [vars(r) for r in self.push_constants],
                "tokens": [t.to_dict() for t in self.tokens]}


@dataclass(frozen=True)
class NotLowered:
    """An argument (``arg`` index; None for the call or the signature as a whole) that cannot be lowered."""

    what: str
    reason: str
    arg: int | None = None


@dataclass(frozen=True)
class SequenceColumn:
    """Where the bytes of one token of every sequence come from (what the GPU walker of
    :mod:`d3d12wl.vulkan.walker` does per sequence): ``source`` is ``execution_set`` (the program's execution-set
    index), ``zero`` (a SEQUENCE_INDEX slot), ``constant`` (``constant``), ``secondary_index`` (the index within the
    secondary list), ``va:PRIMARY_RECORD_POINTER`` / ``va:SECONDARY_RECORD_POINTER`` / ``va:PROGRAM_TABLE_POINTER``
    (a record's VA), or ``primary`` / ``secondary`` / ``table`` (``size`` bytes at ``field_offset`` of that record);
    written at ``offset`` of the sequence."""

    source: str
    offset: int
    size: int
    field_offset: int = 0
    constant: bytes = b""


@dataclass(frozen=True)
class DispatchListWalk:
    """The facts of the list a GPU walker needs, read from the ``D3D12_DISPATCH_LIST_INPUT`` and the layouts:
    the primary records (VA, count, stride, size, the header fields' offsets), the secondary records (stride, size;
    hybrid only), the program table (VA, stride, SlotCount, the bytes of a slot read) and the identifiers of the
    execution set's programs, in execution-set order."""

    primary_va: int
    primary_count: int
    primary_stride: int
    primary_size: int
    program_table_index_offset: int
    hybrid: bool
    num_secondary_offset: int
    secondary_records_offset: int
    secondary_stride: int
    secondary_size: int
    table_va: int
    table_stride: int
    slot_count: int
    slot_size: int
    identifiers: tuple[bytes, ...]
    columns: tuple[SequenceColumn, ...]


@dataclass
class Lowering:
    """The lowering of one call; :attr:`sequences` is ``(count, stride)`` bytes (empty when not lowered)."""

    call: str
    layout: CommandsLayout | None
    execution_set: tuple[str, ...]
    initial_push_constants: bytes
    sequences: np.ndarray
    not_lowered: tuple[NotLowered, ...] = ()
    pipeline_state: tuple[str, ...] = ()
    #: per sequence: the execution-set index of its program (None for ExecuteIndirect: the bound pipeline)
    program_indices: np.ndarray | None = None
    #: DispatchList: what a GPU walker needs to generate the same sequences from the record bytes
    walk: DispatchListWalk | None = None
    #: DispatchList1: one lowering (one DGC execute) per list of the chain, in order; this one has no layout
    lists: tuple[Lowering, ...] = ()

    @property
    def lowered(self) -> bool:
        return (self.layout is not None or bool(self.lists)) and not self.not_lowered

    @property
    def count(self) -> int:
        return int(self.sequences.shape[0])

    @property
    def programs(self) -> tuple[str | None, ...]:
        """Per sequence: the program name (None for ExecuteIndirect: the bound pipeline); built on demand from
        :attr:`program_indices`."""
        if self.program_indices is None:
            return (None,) * self.count
        return tuple(self.execution_set[i] for i in self.program_indices.tolist())

    def program_of(self, sequence: int) -> str | None:
        """The program name of one sequence."""
        if self.program_indices is None:
            return None
        return self.execution_set[int(self.program_indices[sequence])]

    def sequence_bytes(self) -> bytes:
        return self.sequences.tobytes()

    def execution_set_indices(self) -> np.ndarray:
        """The execution-set index of every sequence (read back from the sequence bytes)."""
        assert self.layout is not None
        t = next(t for t in self.layout.tokens if t.type is TokenType.EXECUTION_SET)
        return self.sequences[:, t.offset:t.offset + 4].copy().view("<u4").reshape(-1)

    def to_dict(self) -> dict[str, Any]:
        return {"call": self.call, "lowered": self.lowered,
                "layout": self.layout.to_dict() if self.layout else None,
                "execution_set": list(self.execution_set),
                "initial_push_constants": self.initial_push_constants.hex(),
                "sequence_count": self.count,
                "sequence_sha256": hashlib.sha256(self.sequence_bytes()).hexdigest(),
                "not_lowered": [vars(n) for n in self.not_lowered],
                "pipeline_state": list(self.pipeline_state),
                "lists": [low.to_dict() for low in self.lists]}


# ----------------------------------------------------------------------------------------------------------------
# The push-constant block
# ----------------------------------------------------------------------------------------------------------------

def _param_size(param_type: str, num_values: int) -> int | None:
    if param_type == "32BIT_CONSTANTS":
        return 4 * num_values
    if param_type in ("CBV", "SRV", "UAV"):
        return _VA_BYTES
    return None  # descriptor tables have no place in the push-constant block


def _push_block(rs: RootSignature | None, local: Sequence[tuple[str, int]], sequence_index: bool
                ) -> list[PushConstantRange]:
    """Global parameters in root-signature order, then the local slots, then (harness) one sequence-index DWORD."""
    ranges: list[PushConstantRange] = []
    offset = 0
    params = rs.pParameters if rs is not None else []
    for p, param in enumerate(params):
        size = _param_size(param.parameter_type_name, param.Constants.Num32BitValues)
        if size is None:
            continue
        kind = "constants" if param.parameter_type_name == "32BIT_CONSTANTS" else "descriptor"
        ranges.append(PushConstantRange("global", p, kind, offset, size))
        offset += size
    for slot, (param_type, num_values) in enumerate(local):
        size = _param_size(param_type, num_values)
        if size is None:
            continue
        kind = "constants" if param_type == "32BIT_CONSTANTS" else "descriptor"
        ranges.append(PushConstantRange("local", slot, kind, offset, size))
        offset += size
    if sequence_index:
        ranges.append(PushConstantRange("harness", 0, "sequence_index", offset, 4))
    return ranges


def _local_slots(args: Sequence[WorkListArgumentDesc]) -> list[tuple[str, int]]:
    out = []
    for indices in inline_local_slots(list(args)):
        rp = args[indices[0]].InlineRootParameter.RootParameter
        out.append((rp.parameter_type_name, rp.Constants.Num32BitValues))
    return out


def _initial_push_constants(block: Sequence[PushConstantRange], state: CommandListState, compute: bool) -> bytes:
    """The command-list state's global root arguments at their places in the block (zero elsewhere)."""
    size = max((r.offset + r.size for r in block), default=0)
    out = bytearray(size)
    args = state.compute_root_arguments if compute else state.graphics_root_arguments
    for r in block:
        if r.binding != "global" or r.parameter not in args:
            continue
        a = args[r.parameter]
        if a.kind == "constants" and r.kind == "constants":
            data = np.asarray(a.values, dtype="<u4").tobytes()[:r.size]
        elif a.kind == "descriptor" and r.kind == "descriptor":
            data = int(a.value).to_bytes(_VA_BYTES, "little")
        else:
            continue
        out[r.offset:r.offset + len(data)] = data
    return bytes(out)


# ----------------------------------------------------------------------------------------------------------------
# Tokens
# ----------------------------------------------------------------------------------------------------------------

@dataclass
class _Column:
    """Where one token's bytes come from (the sources of :class:`SequenceColumn`, and ``command`` for an
    ExecuteIndirect command record), the field in that record (or the constant bytes)."""

    token: Token
    source: str
    field: LayoutField | None = None
    constant: bytes = b""


class _LayoutBuilder:
    def __init__(self, block: Sequence[PushConstantRange]) -> None:
        self.block = list(block)
        self.tokens: list[Token] = []
        self.columns: list[_Column] = []
        self.not_lowered: list[NotLowered] = []
        self.pipeline_state: list[str] = []
        self.offset = 0

    def add(self, token_type: TokenType, size: int, source: str, *, arg: int | None = None,
            field: LayoutField | None = None, constant: bytes = b"", **kw: Any) -> None:
        token = Token(token_type, self.offset, size, arg, **kw)
        self.tokens.append(token)
        self.columns.append(_Column(token, source, field, constant))
        self.offset += size

    def ordered(self) -> tuple[Token, ...]:
        """Layout order: the execution set first, the action token last (its bytes need not be last)."""
        action = [t for t in self.tokens if t.type in _ACTIONS]
        return tuple([t for t in self.tokens if t.type not in _ACTIONS] + action)

    def push(self, arg: int, binding: str, parameter: int, dword: int, size: int, source: str,
             field: LayoutField | None = None, token_type: TokenType = TokenType.PUSH_CONSTANT) -> None:
        r = next((r for r in self.block if r.binding == binding and r.parameter == parameter), None)
        if r is None:
            self.not_lowered.append(NotLowered(f"arg{arg}", f"{binding} root parameter {parameter} has no place in "
                                               "the push-constant block (a descriptor table)", arg))
            return
        self.add(token_type, size, source, arg=arg, field=field, push_offset=r.offset + 4 * dword, push_size=size)


def _binding(arg: WorkListArgumentDesc | IndirectArgumentDesc) -> str:
    if isinstance(arg, WorkListArgumentDesc) and arg.binding_name == "LOCAL_ROOT_SIGNATURE":
        return "local"
    return "global"


def _source_of(arg: WorkListArgumentDesc) -> str:
    return {"PRIMARY_RECORD": "primary", "SECONDARY_RECORD": "secondary",
            "PROGRAM_TABLE_RECORD": "table"}.get(arg.source_name, arg.source_name.lower())


def _field(layout: PCSLayout, i: int, source: str) -> LayoutField | None:
    record = {"primary": layout.primary, "secondary": layout.secondary, "table": layout.program_table}.get(source)
    return record.arg_field(i) if record is not None else None


def _work_list_tokens(b: _LayoutBuilder, pcs: ProgramCommandSignature, layout: PCSLayout, sequence_index: bool
                      ) -> None:
    args = pcs.pArgumentDescs
    local_slot_of = {i: slot for slot, indices in enumerate(inline_local_slots(list(args))) for i in indices}
    explicit_local = any(_binding(a) == "local" and a.type_name != "INLINE_ROOT_PARAMETER"
                         and a.type_name != "INLINE_STATIC_SAMPLER" for a in args)
    if explicit_local:
        b.not_lowered.append(NotLowered("signature", "per-record arguments bound to an explicit local root signature: "
                                        "only the implicit (inline) local root signature path is lowered"))
    b.add(TokenType.EXECUTION_SET, 4, "execution_set")
    trigger: tuple[int, WorkListArgumentDesc] | None = None
    for i, arg in enumerate(args):
        name, source = arg.type_name, _source_of(arg)
        what = f"arg{i} {name}"
        if name in _TRIGGERS:
            trigger = (i, arg)
        elif name in _NOT_LOWERED:
            b.not_lowered.append(NotLowered(what, _NOT_LOWERED[name], i))
        elif name == "INLINE_STATIC_SAMPLER":
            b.pipeline_state.append(f"{what}: an immutable sampler in the execution set's pipeline layout (no token)")
        elif name == "CONSTANT":
            c = arg.Constant
            b.push(i, _binding(arg), c.RootParameterIndex, c.DestOffsetIn32BitValues, 4 * c.Num32BitValuesToSet,
                   source, _field(layout, i, source))
        elif name in _ROOT_DESCRIPTORS:
            b.push(i, _binding(arg), arg.root_parameter_index or 0, 0, _VA_BYTES, source, _field(layout, i, source))
        elif name == "INLINE_ROOT_PARAMETER":
            ip = arg.InlineRootParameter
            rp = ip.RootParameter
            if rp.parameter_type_name == "DESCRIPTOR_TABLE":
                b.not_lowered.append(NotLowered(what, _NOT_LOWERED["DESCRIPTOR_TABLE"], i))
                continue
            f = _field(layout, i, source)
            dword = ip.DestOffsetIn32BitValues if rp.parameter_type_name == "32BIT_CONSTANTS" else 0
            size = f.size if f is not None else 0
            b.push(i, "local", local_slot_of[i], dword, size, source, f)
        elif name == "INCREMENTING_CONSTANT":
            ic = arg.IncrementingConstant
            # spec "Incrementing constant semantics": the reset flag acts on hybrid signatures only
            reset = ic.Flags & abi.enum_value("D3D12_INCREMENTING_CONSTANT_FLAGS", "RESET_PER_SECONDARY_LIST")
            if reset and layout.secondary is not None:  # the index within the secondary list: computed here
                b.push(i, _binding(arg), ic.RootParameterIndex, ic.DestOffsetIn32BitValues, 4, "secondary_index")
            else:  # the position in the list's linear sequence = the DGC sequence index
                b.push(i, _binding(arg), ic.RootParameterIndex, ic.DestOffsetIn32BitValues, SEQUENCE_INDEX_BYTES,
                       "zero", token_type=TokenType.SEQUENCE_INDEX)
        elif name in _RECORD_POINTERS:
            b.push(i, _binding(arg), arg.root_parameter_index or 0, 0, _VA_BYTES, f"va:{name}")
        elif name == "VERTEX_BUFFER_VIEW":
            b.add(TokenType.VERTEX_BUFFER, _VBV_BYTES, source, arg=i, field=_field(layout, i, source),
                  vertex_binding_unit=arg.VertexBuffer.Slot)
        elif name == "INDEX_BUFFER_VIEW":
            b.add(TokenType.INDEX_BUFFER, _IBV_BYTES, source, arg=i, field=_field(layout, i, source),
                  index_mode=IndexInputMode.DXGI_INDEX_BUFFER)
        else:
            b.not_lowered.append(NotLowered(what, "argument type not known to this lowering", i))
    _finish_tokens(b, trigger, layout, sequence_index)


def _finish_tokens(b: _LayoutBuilder, trigger: tuple[int, Any] | None, layout: PCSLayout | None,
                   sequence_index: bool) -> None:
    """The action token, then (harness) the sequence-index slot after it: the bytes of every argument keep the
    offsets they would have without the harness."""
    _action(b, trigger, layout)
    if sequence_index:
        r = b.block[-1]
        b.add(TokenType.SEQUENCE_INDEX, SEQUENCE_INDEX_BYTES, "zero", push_offset=r.offset, push_size=4)


def _action(b: _LayoutBuilder, trigger: tuple[int, Any] | None, layout: PCSLayout | None) -> None:
    if trigger is None:
        b.not_lowered.append(NotLowered("signature", "no dispatch trigger"))
        return
    i, arg = trigger
    name = arg.type_name
    if name == "FIXED_DISPATCH":
        fd = arg.FixedDispatch
        dims = np.array([fd.ThreadGroupCountX, fd.ThreadGroupCountY, fd.ThreadGroupCountZ], dtype="<u4").tobytes()
        b.add(TokenType.DISPATCH, _TRIGGER_SIZE["DISPATCH"], "constant", arg=i, constant=dims)
        return
    if layout is None:  # ExecuteIndirect: the command record
        b.add(_TRIGGERS[name], _TRIGGER_SIZE[name], "command", arg=i)
        return
    source = _source_of(arg)
    f = _field(layout, i, source)
    if f is None:
        raise LoweringError(f"arg{i} {name}: Source {arg.source_name} has no record in the layout of this signature",
                            rule="Dispatch trigger arguments")
    b.add(_TRIGGERS[name], f.size, source, arg=i, field=f)
    if name == "DISPATCH_MESH":
        b.pipeline_state.append(f"arg{i} DISPATCH_MESH: lowered to DRAW_MESH_TASKS (needs VK_EXT_mesh_shader)")


_ACTIONS = (TokenType.DRAW, TokenType.DRAW_INDEXED, TokenType.DISPATCH, TokenType.DRAW_MESH_TASKS)
#: the bytes an action token reads: the D3D12 argument struct (VkDraw*/VkDispatch*IndirectCommand has the same bytes)
_TRIGGER_SIZE = {name: abi.sizeof(struct) for name, struct in (
    ("DRAW", "D3D12_DRAW_ARGUMENTS"), ("DRAW_INDEXED", "D3D12_DRAW_INDEXED_ARGUMENTS"),
    ("DISPATCH", "D3D12_DISPATCH_ARGUMENTS"), ("DISPATCH_MESH", "D3D12_DISPATCH_MESH_ARGUMENTS"))}


def _stride(b: _LayoutBuilder) -> int:
    return -(-b.offset // 4) * 4


# ----------------------------------------------------------------------------------------------------------------
# The sequence buffer: DispatchList
# ----------------------------------------------------------------------------------------------------------------

def _rows(memory: GpuMemory, va: int, count: int, stride: int, size: int, what: str) -> np.ndarray:
    """``count`` records of ``size`` bytes, ``stride`` apart (0 = the same record), as a (count, size) uint8 array."""
    if count == 0:
        return np.zeros((0, size), dtype=np.uint8)
    if stride == 0:
        row = np.frombuffer(_view(memory, va, size, what), dtype=np.uint8)
        return np.broadcast_to(row, (count, size))
    span = (count - 1) * stride + size
    flat = np.frombuffer(_view(memory, va, span, what), dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(flat, shape=(count, size), strides=(stride, 1))


def _gather(memory: GpuMemory, vas: np.ndarray, size: int, list_vas: np.ndarray, counts: np.ndarray,
            stride: int) -> np.ndarray:
    """The ``size``-byte records at ``vas`` as a (len(vas), size) uint8 array: one view of the region that holds
    them all and one gather at their byte offsets (no Python object per record).  When they are not all in one
    region, list by list (:func:`_rows`), which names the list whose bytes are not mapped."""
    if len(vas) == 0:
        return np.zeros((0, size), dtype=np.uint8)
    lo, hi = int(vas.min()), int(vas.max()) + size
    region = memory.region_at(lo)
    if region is not None and region.contains(lo, hi - lo):
        flat = np.frombuffer(_view(memory, lo, hi - lo, "secondary records"), dtype=np.uint8)
        windows = np.lib.stride_tricks.sliding_window_view(flat, size)
        return windows[(vas - np.uint64(lo)).astype(np.intp)]
    parts = [_rows(memory, int(list_vas[k]), int(counts[k]), stride, size, f"secondary records of primary record {k}")
             for k in range(len(counts)) if counts[k]]
    return np.concatenate(parts)


def _view(memory: GpuMemory, va: int, size: int, what: str) -> memoryview:
    try:
        return memory.view(va, size, what=what)
    except D3D12WLError as e:
        raise LoweringError(f"{what}: {e}", where=f"VA 0x{va:x}") from e


def _u32(rows: np.ndarray, offset: int) -> np.ndarray:
    return np.ascontiguousarray(rows[:, offset:offset + 4]).view("<u4").reshape(-1)


def _u64(rows: np.ndarray, offset: int) -> np.ndarray:
    return np.ascontiguousarray(rows[:, offset:offset + 8]).view("<u8").reshape(-1)


def _lower_dispatch_list(memory: GpuMemory, objects: ObjectSet, state: CommandListState, call: DispatchListCall,
                         sequence_index: bool) -> Lowering:
    if call.tier2:
        return _lower_chain(memory, objects, state, call, sequence_index)
    program = state.program
    wl = program.WorkList if program is not None else None
    if wl is None or wl.pSignature is None:
        raise LoweringError("no work list bound by SetProgram", where="state.program")
    size = abi.sizeof("D3D12_DISPATCH_LIST_INPUT")
    if call.DispatchListInput % WL_ALIGN:
        raise LoweringError(f"DispatchListInput 0x{call.DispatchListInput:x} is not {WL_ALIGN}-byte aligned",
                            rule="DispatchList")
    dli = packers.read_dispatch_list_inputs(_view(memory, call.DispatchListInput, size, "D3D12_DISPATCH_LIST_INPUT"))
    return _lower_list("DispatchList", memory, objects, state, wl.pSignature, wl.Binding, dli, call, sequence_index)


def _lower_chain(memory: GpuMemory, objects: ObjectSet, state: CommandListState, call: DispatchListCall,
                 sequence_index: bool) -> Lowering:
    """DispatchList1: the chain followed as the spec says ("Dispatch List Continuations": NextDispatchList is
    followed only with _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION and a non-null value), one lowering (one DGC execute)
    per list, in order; the signature and binding of each list by its SignatureIndex."""
    program = state.program
    wl1 = program.WorkList1 if program is not None else None
    if wl1 is None or wl1.pSignatureArray is None:
        raise LoweringError("no work list signature array bound by SetProgram", where="state.program")
    if wl1.ValidationProgramTable.Table.StartAddress:
        return _not_lowered("DispatchList1", "GPU timeline validation hooks (a bound ValidationProgramTable) are not "
                            "lowered: validators may rewrite the lists between steps")
    signatures = wl1.pSignatureArray.pSignatures
    size = abi.sizeof("D3D12_DISPATCH_LIST_INPUT1")
    allow = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    lists: list[Lowering] = []
    seen: set[int] = set()
    va, graphics = call.DispatchListInput, 0
    while va:
        where = f"list {len(lists)} @0x{va:x}"
        if va in seen:
            raise LoweringError("the chain returns to a list it already ran", where=where,
                                rule="Dispatch List Continuations")
        seen.add(va)
        if va % WL_ALIGN:
            raise LoweringError(f"D3D12_DISPATCH_LIST_INPUT1 at 0x{va:x} is not {WL_ALIGN}-byte aligned", where=where,
                                rule="DispatchList1" if not lists else "D3D12_DISPATCH_LIST_INPUT1::NextDispatchList")
        dli = packers.read_dispatch_list_inputs(_view(memory, va, size, "D3D12_DISPATCH_LIST_INPUT1"), tier=2)
        if int(dli["ReservedPadding"][0]):
            raise LoweringError("non-zero ReservedPadding", where=where, rule="D3D12_DISPATCH_LIST_INPUT1")
        index = int(dli["SignatureIndex"][0])
        if index >= len(signatures) or index >= len(wl1.pBindings):
            raise LoweringError(f"SignatureIndex {index} past the array's {len(signatures)} signatures", where=where,
                                rule="Signature Selection")
        low = _lower_list(f"DispatchList1 list {len(lists)}", memory, objects, state, signatures[index],
                          wl1.pBindings[index], dli, call, sequence_index)
        if not low.lowered:
            return _not_lowered("DispatchList1", items=[NotLowered(f"list {len(lists)} {n.what}", n.reason, n.arg)
                                                        for n in low.not_lowered])
        if low.layout is None:  # _lower_list returns a layout whenever it lowered the list
            raise LoweringError("a lowered list without a layout", where=where)
        graphics += low.layout.executable_class == "GRAPHICS"
        lists.append(low)
        va = int(dli["NextDispatchList"][0]) if int(dli["Flags"][0]) & allow else 0
    if graphics > call.MaxGraphicsPrimaryLists:
        raise LoweringError(f"{graphics} graphics-class lists > MaxGraphicsPrimaryLists {call.MaxGraphicsPrimaryLists}",
                            rule="rule 11")
    return Lowering("DispatchList1", None, (), b"", np.zeros((0, 0), dtype=np.uint8), lists=tuple(lists))


def _lower_list(name: str, memory: GpuMemory, objects: ObjectSet, state: CommandListState, wls: Any,
                binding: Any, dli: np.ndarray, call: DispatchListCall, sequence_index: bool) -> Lowering:
    """One list: its signature and binding, its D3D12_DISPATCH_LIST_INPUT(1) as read."""
    if binding.ProgramTable is None or binding.pRaytracing is not None:
        return _not_lowered(name, "raytracing binding: an indirect execution set holds no raytracing pipelines")
    pcses = wls.pProgramCommandSignatures
    if len(pcses) != 1:
        return _not_lowered(name, f"the work list signature has {len(pcses)} program command signatures: "
                            "one indirect-commands layout serves one record layout")
    pcs = pcses[0]
    layout = pcs_layout(pcs)
    cls = layout.executable_class.value
    if cls not in ("GRAPHICS", "COMPUTE"):
        return _not_lowered(name, f"{cls} class: only graphics and compute work lists are lowered")
    compute = cls == "COMPUTE"
    block = _push_block(pcs.pGlobalRootSignature, _local_slots(pcs.pArgumentDescs), sequence_index)
    b = _LayoutBuilder(block)
    _work_list_tokens(b, pcs, layout, sequence_index)
    if b.not_lowered:
        return _not_lowered(name, items=b.not_lowered)
    programs = tuple(name for name, p in objects.programs.items() if p.ProgramCommandSignature is pcs)
    by_identifier = {objects.programs[n].Identifier: i for i, n in enumerate(programs)}

    n_primary = int(dli["NumProgramInputs"][0])
    start = int(dli["ProgramInputs"]["StartAddress"][0])
    p_stride = int(dli["ProgramInputs"]["StrideInBytes"][0])
    if cls == "GRAPHICS" and n_primary > call.MaxGraphicsProgramInputsPerPrimaryList:
        raise LoweringError(f"NumProgramInputs {n_primary} > MaxGraphicsProgramInputsPerPrimaryList "
                            f"{call.MaxGraphicsProgramInputsPerPrimaryList}", rule="rule 12")
    if n_primary:  # "ProgramInputs is not read when this is 0"
        if start % WL_ALIGN:
            raise LoweringError(f"ProgramInputs.StartAddress 0x{start:x} is not {WL_ALIGN}-byte aligned",
                                rule="D3D12_DISPATCH_LIST_INPUT1" if name.startswith("DispatchList1")
                                else "D3D12_DISPATCH_LIST_INPUT")
        problems = layout.primary.stride_problems(p_stride)
        if problems:
            raise LoweringError(f"ProgramInputs.StrideInBytes: {'; '.join(problems)}", rule="rule 25(e)")
    primary = _rows(memory, start, n_primary, p_stride, layout.primary.size, "primary records")

    # ProgramTableIndex -> slot -> identifier -> program -> execution-set index
    table = binding.ProgramTable.Table
    slot_count = binding.ProgramTable.SlotCount
    pti = _u32(primary, layout.primary.field("ProgramTableIndex").offset)
    if n_primary and int(pti.max()) >= slot_count:
        k = int(np.argmax(pti >= slot_count))
        raise LoweringError(f"ProgramTableIndex {int(pti[k])} >= SlotCount {slot_count}", where=f"primary record {k}")
    tail_size = layout.program_table.size if layout.program_table is not None else _IDENTIFIER_BYTES
    slots, slot_row = np.unique(pti, return_inverse=True)
    slot_bytes = np.stack([np.frombuffer(_view(memory, table.StartAddress + int(s) * table.StrideInBytes, tail_size,
                                               f"program table slot {int(s)}"), dtype=np.uint8) for s in slots]) \
        if len(slots) else np.zeros((0, tail_size), dtype=np.uint8)
    set_index = np.empty(len(slots), dtype="<u4")
    for k, s in enumerate(slots):
        ident = slot_bytes[k, :_IDENTIFIER_BYTES].tobytes()
        if ident not in by_identifier:
            raise LoweringError(f"program table slot {int(s)} holds an identifier of no program of "
                                f"{pcs.name}: {ident.hex()}", rule="Program table entries")
        set_index[k] = by_identifier[ident]

    # executions: one per primary record (inline), one per secondary record (hybrid)
    if layout.secondary is not None:
        counts = _u32(primary, layout.primary.field("NumSecondaryRecords").offset).astype(np.int64)
        sec_va = _u64(primary, layout.primary.field("SecondaryRecords").offset)
        s_stride = pcs.SecondaryRecordByteStride
        problems = layout.secondary.stride_problems(s_stride)  # 0 is the broadcast form
        if problems and int(counts.sum()):
            raise LoweringError(f"PCS {pcs.name!r} SecondaryRecordByteStride: {'; '.join(problems)}",
                                rule="rule 25(e)")
        misaligned = (sec_va % np.uint64(WL_ALIGN) != 0) & (counts > 0)
        if misaligned.any():
            k = int(np.argmax(misaligned))
            raise LoweringError(f"SecondaryRecords 0x{int(sec_va[k]):x} is not {WL_ALIGN}-byte aligned",
                                where=f"primary record {k}", rule=layout.primary.header)
        of_primary = np.repeat(np.arange(n_primary), counts)
        first = np.concatenate([[0], np.cumsum(counts)[:-1]]) if n_primary else np.zeros(0, dtype=np.int64)
        within = np.arange(len(of_primary)) - np.repeat(first, counts)
        sec_record_va = np.repeat(sec_va, counts) + within.astype(np.uint64) * np.uint64(s_stride)
        secondary = _gather(memory, sec_record_va, layout.secondary.size, sec_va, counts, s_stride)
    else:
        secondary = None
        of_primary = np.arange(n_primary)
        within = np.zeros(n_primary, dtype=np.int64)
        sec_record_va = np.zeros(n_primary, dtype=np.uint64)
    n = len(of_primary)
    stride = _stride(b)
    seq = np.zeros((n, stride), dtype=np.uint8)
    record_vas = {"PRIMARY_RECORD_POINTER": np.uint64(start) + of_primary.astype(np.uint64) * np.uint64(p_stride),
                  "SECONDARY_RECORD_POINTER": sec_record_va,
                  # spec "_PROGRAM_TABLE_POINTER": the binding's ProgramTable.StartAddress (not the slot's VA)
                  "PROGRAM_TABLE_POINTER": np.full(n, table.StartAddress, dtype=np.uint64)}
    for col in b.columns:
        t = col.token
        dst = seq[:, t.offset:t.offset + t.size]
        if col.source == "execution_set":
            dst[:] = set_index[slot_row[of_primary]].view(np.uint8).reshape(n, 4)
        elif col.source == "zero":
            continue
        elif col.source == "constant":
            dst[:] = np.frombuffer(col.constant, dtype=np.uint8)
        elif col.source == "secondary_index":
            dst[:] = within.astype("<u4").view(np.uint8).reshape(n, 4)
        elif col.source.startswith("va:"):
            dst[:] = record_vas[col.source[3:]].astype("<u8").view(np.uint8).reshape(n, _VA_BYTES)
        else:
            assert col.field is not None
            f = col.field
            if col.source == "secondary":
                assert secondary is not None
                dst[:] = secondary[:, f.offset:f.offset + t.size]
            elif col.source == "primary":
                dst[:] = primary[of_primary, f.offset:f.offset + t.size]
            else:  # program table
                dst[:] = slot_bytes[slot_row[of_primary], f.offset:f.offset + t.size]
    lay = CommandsLayout(cls, b.ordered(), stride, tuple(block))
    program_indices = set_index[slot_row[of_primary]] if n else np.zeros(0, dtype="<u4")
    columns = tuple(SequenceColumn(c.source, c.token.offset, c.token.size, c.field.offset if c.field else 0,
                                   c.constant) for c in b.columns)
    sec = layout.secondary
    hybrid = sec is not None
    walk = DispatchListWalk(
        start, n_primary, p_stride, layout.primary.size, layout.primary.field("ProgramTableIndex").offset, hybrid,
        layout.primary.field("NumSecondaryRecords").offset if hybrid else 0,
        layout.primary.field("SecondaryRecords").offset if hybrid else 0,
        pcs.SecondaryRecordByteStride if hybrid else 0, sec.size if sec is not None else 0,
        table.StartAddress, table.StrideInBytes, slot_count, tail_size,
        tuple(objects.programs[p].Identifier for p in programs), columns)
    return Lowering(name, lay, programs, _initial_push_constants(block, state, compute), seq, (),
                    tuple(b.pipeline_state), program_indices, walk)


# ----------------------------------------------------------------------------------------------------------------
# The sequence buffer: ExecuteIndirect
# ----------------------------------------------------------------------------------------------------------------

def _lower_execute_indirect(memory: GpuMemory, state: CommandListState, call: ExecuteIndirectCall,
                            sequence_index: bool) -> Lowering:
    cs = call.pCommandSignature
    if cs is None:
        raise LoweringError("no command signature", where="call.ExecuteIndirect.pCommandSignature")
    args = cs.pArgumentDescs
    names = [a.type_name for a in args]
    cls = "COMPUTE" if "DISPATCH" in names else "GRAPHICS"
    # a command signature that changes no root argument has no root signature: its commands see the command
    # list's (IndirectDrawing.md "Command signature Creation"), whose values are the initial push constants
    block = _push_block(execute_indirect_root_signature(cs, state, cls == "GRAPHICS"), (), sequence_index)
    b = _LayoutBuilder(block)
    rec = command_layout(cs)
    trigger: tuple[int, IndirectArgumentDesc] | None = None
    for i, arg in enumerate(args):
        name = arg.type_name
        f = rec.arg_field(i)
        if name in _TRIGGERS:
            trigger = (i, arg)
        elif name in _NOT_LOWERED:
            b.not_lowered.append(NotLowered(f"arg{i} {name}", _NOT_LOWERED[name], i))
        elif name == "CONSTANT":
            c = arg.Constant
            b.push(i, "global", c.RootParameterIndex, c.DestOffsetIn32BitValues, 4 * c.Num32BitValuesToSet,
                   "command", f)
        elif name in _ROOT_DESCRIPTORS:
            b.push(i, "global", arg.root_parameter_index or 0, 0, _VA_BYTES, "command", f)
        elif name == "INCREMENTING_CONSTANT":  # IndirectDrawing.md: k for command k = the DGC sequence index
            ic = arg.IncrementingConstant
            b.push(i, "global", ic.RootParameterIndex, ic.DestOffsetIn32BitValues, SEQUENCE_INDEX_BYTES, "zero",
                   token_type=TokenType.SEQUENCE_INDEX)
        elif name == "VERTEX_BUFFER_VIEW":
            b.add(TokenType.VERTEX_BUFFER, _VBV_BYTES, "command", arg=i, field=f, vertex_binding_unit=arg.VertexBuffer.Slot)
        elif name == "INDEX_BUFFER_VIEW":
            b.add(TokenType.INDEX_BUFFER, _IBV_BYTES, "command", arg=i, field=f, index_mode=IndexInputMode.DXGI_INDEX_BUFFER)
        else:
            b.not_lowered.append(NotLowered(f"arg{i} {name}", "argument type not known to this lowering", i))
    _finish_tokens(b, trigger, None, sequence_index)
    for col in b.columns:
        if col.source == "command" and col.field is None and col.token.arg is not None:
            col.field = rec.arg_field(col.token.arg)
    if b.not_lowered:
        return _not_lowered("ExecuteIndirect", items=b.not_lowered)
    count = call.MaxCommandCount
    if call.CountBuffer is not None:
        count = min(count, int(np.frombuffer(_view(memory, call.CountBuffer, 4, "count buffer"), dtype="<u4")[0]))
    records = _rows(memory, call.ArgumentBuffer, count, cs.ByteStride, rec.size, "argument buffer")
    stride = _stride(b)
    seq = np.zeros((count, stride), dtype=np.uint8)
    for col in b.columns:
        t = col.token
        if col.source == "zero":
            continue
        if col.field is None:
            raise LoweringError(f"arg{t.arg}: no field of the command record for a {t.type.name} token",
                                rule="Command signature layout")
        seq[:, t.offset:t.offset + t.size] = records[:, col.field.offset:col.field.offset + t.size]
    lay = CommandsLayout(cls, b.ordered(), stride, tuple(block))
    return Lowering("ExecuteIndirect", lay, (), _initial_push_constants(block, state, cls == "COMPUTE"), seq, (),
                    tuple(b.pipeline_state))


def _not_lowered(call: str, reason: str | None = None, *, items: Sequence[NotLowered] = ()) -> Lowering:
    """A lowering with nothing to run: what could not be lowered, and why."""
    found = tuple(items) + ((NotLowered("call", reason),) if reason else ())
    return Lowering(call, None, (), b"", np.zeros((0, 0), dtype=np.uint8), found)


# ----------------------------------------------------------------------------------------------------------------
# Entry points
# ----------------------------------------------------------------------------------------------------------------

def lower(memory: GpuMemory, objects: ObjectSet, state: CommandListState,
          call: DispatchListCall | ExecuteIndirectCall, *, sequence_index: bool = False) -> Lowering:
    """Lower one call.  ``sequence_index``: add a ``SEQUENCE_INDEX`` token writing each sequence's index into one
    more push-constant DWORD after the root parameters (what the GPU harness records draws by)."""
    if isinstance(call, DispatchListCall):
        return _lower_dispatch_list(memory, objects, state, call, sequence_index)
    if isinstance(call, ExecuteIndirectCall):
        return _lower_execute_indirect(memory, state, call, sequence_index)
    raise LoweringError(f"unknown call {type(call).__name__}")


def lower_capture(capture: Any, *, sequence_index: bool = False) -> Lowering:
    """:func:`lower` on a :class:`d3d12wl.capture.file.Capture`."""
    return lower(capture.memory, capture.objects, capture.state, capture.call, sequence_index=sequence_index)

