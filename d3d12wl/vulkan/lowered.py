"""What a lowering to ``VK_EXT_device_generated_commands`` produces (:mod:`d3d12wl.vulkan.lowering` makes it): the
indirect-commands layout (:class:`CommandsLayout` of :class:`Token` s over a push-constant block of
:class:`PushConstantRange` s), the sequence buffer, the execution set, the command-list state the call inherits,
and, per sequence, which execution of the executor's trace it is.

A call lowers to one or more *leaves* (:meth:`Lowering.leaves`), each one indirect-commands layout with its
sequences: an ExecuteIndirect call is one leaf; a DispatchList list is one leaf per program command signature its
records use (``groups``), or itself when they use one; a DispatchList1 chain is its lists' leaves in chain order
(``lists``).  The GPU harness runs the leaves in that order, each as one or more DGC executes of at most
``max_sequences`` sequences (:attr:`Lowering.chunks`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl.errors import D3D12WLError
from d3d12wl.model.state import IndexBufferView, VertexBufferView
from d3d12wl.vulkan.vk import IndexInputMode, TokenType

__all__ = ["CommandsLayout", "DispatchListWalk", "ExecuteIndirectWalk", "Lowering", "LoweringError", "NotLowered",
           "PushConstantRange", "SequenceColumn", "Token"]


class LoweringError(D3D12WLError):
    """The capture's bytes cannot be lowered because they lead into undefined behaviour (run the executor for the
    finding), or the capture is not a call this lowering knows."""


@dataclass(frozen=True)
class PushConstantRange:
    """One root parameter's place in the push-constant block."""

    binding: str  # "global" | "local" | "harness"
    parameter: int
    kind: str  # "constants" | "descriptor" | "descriptor_table" | "sequence_index"
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


#: the action tokens (the last token of a layout)
ACTIONS = (TokenType.DRAW, TokenType.DRAW_INDEXED, TokenType.DISPATCH, TokenType.DRAW_MESH_TASKS)


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

    @property
    def action(self) -> Token:
        """The action token (``DRAW``, ``DRAW_INDEXED``, ``DISPATCH``, ``DRAW_MESH_TASKS``)."""
        return next(t for t in self.tokens if t.type in ACTIONS)

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
    """Where the bytes of one token of every sequence come from (what the GPU walkers of
    :mod:`d3d12wl.vulkan.walker` do per sequence): ``source`` is ``execution_set`` (the program's execution-set
    index), ``zero`` (a SEQUENCE_INDEX slot), ``constant`` (``constant``), ``secondary_index`` (the index within the
    secondary list), ``position`` (the execution's position in its list, or the command index: an incrementing
    constant that a SEQUENCE_INDEX token cannot give), ``va:PRIMARY_RECORD_POINTER`` /
    ``va:SECONDARY_RECORD_POINTER`` / ``va:PROGRAM_TABLE_POINTER`` (a record's VA), or ``primary`` / ``secondary``
    / ``table`` / ``command`` (``size`` bytes at ``field_offset`` of that record); written at ``offset`` of the
    sequence."""

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


@dataclass(frozen=True)
class ExecuteIndirectWalk:
    """The facts of an ExecuteIndirect call a GPU walker needs: the argument buffer (VA, ``ByteStride``, the
    command record's size), ``MaxCommandCount``, the count buffer's VA (0: none) and the columns."""

    argument_va: int
    stride: int
    record_size: int
    max_count: int
    count_va: int
    columns: tuple[SequenceColumn, ...]


@dataclass
class Lowering:
    """The lowering of one call, or of one part of it.  A *leaf* has a :attr:`layout` and ``(count, stride)``
    :attr:`sequences`; a call or list of several leaves has ``lists`` (a DispatchList1 chain) or ``groups`` (a
    list whose records use several program command signatures) and no layout of its own."""

    call: str
    layout: CommandsLayout | None
    execution_set: tuple[str, ...]
    initial_push_constants: bytes
    sequences: np.ndarray
    not_lowered: tuple[NotLowered, ...] = ()
    pipeline_state: tuple[str, ...] = ()
    #: per sequence: the execution-set index of its program (None for ExecuteIndirect: the bound pipeline)
    program_indices: np.ndarray | None = None
    #: what a GPU walker needs to generate the same sequences from the record bytes (None: no walker for it)
    walk: DispatchListWalk | ExecuteIndirectWalk | None = None
    #: DispatchList1: one lowering per list of the chain, in order; this one has no layout
    lists: tuple[Lowering, ...] = ()
    #: a list whose records use several program command signatures: one leaf per signature (record layout), in
    #: the order of the work list signature's pProgramCommandSignatures; this one has no layout
    groups: tuple[Lowering, ...] = ()
    #: per sequence: the index of its execution in the executor's trace of the whole call (int64)
    positions: np.ndarray | None = None
    #: the executes the sequences run as: (first sequence, count), each count <= the ``max_sequences`` lowered for
    chunks: tuple[tuple[int, int], ...] = ()
    #: the command list's vertex buffers that no token of the layout sets (slot -> view): bound before the execute
    vertex_buffers: tuple[tuple[int, VertexBufferView], ...] = ()
    #: the command list's index buffer, when the layout's draws are indexed and no token sets one
    index_buffer: IndexBufferView | None = None
    #: free-form facts about the lowering a reader should know (what was lowered how)
    notes: tuple[str, ...] = field(default=())

    @property
    def lowered(self) -> bool:
        return (self.layout is not None or bool(self.lists) or bool(self.groups)) and not self.not_lowered

    @property
    def count(self) -> int:
        """Sequences of this leaf; for a chain or a list of groups, of all its leaves."""
        if self.layout is None:
            return sum(leaf.count for leaf in self.leaves())
        return int(self.sequences.shape[0])

    def leaves(self) -> tuple[Lowering, ...]:
        """The leaves in the order the harness runs them: the chain's lists, each list's groups."""
        if self.lists:
            return tuple(leaf for lst in self.lists for leaf in lst.leaves())
        if self.groups:
            return self.groups
        return (self,) if self.layout is not None else ()

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
                "sequence_sha256": hashlib.sha256(b"".join(leaf.sequence_bytes() for leaf in self.leaves()))
                .hexdigest(),
                "chunks": [list(c) for c in self.chunks],
                "vertex_buffers": {str(slot): vars(v) for slot, v in self.vertex_buffers},
                "index_buffer": vars(self.index_buffer) if self.index_buffer is not None else None,
                "not_lowered": [vars(n) for n in self.not_lowered],
                "pipeline_state": list(self.pipeline_state),
                "notes": list(self.notes),
                "lists": [low.to_dict() for low in self.lists],
                "groups": [low.to_dict() for low in self.groups]}
