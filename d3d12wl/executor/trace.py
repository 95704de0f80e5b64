"""What the reference executor reports: the :class:`Trace` of one ``DispatchList`` / ``DispatchList1`` /
``ExecuteIndirect`` call, with every execution, every list header, the end-of-call reset and the findings.

Everything here is plain data (dataclasses of ints, strings, lists and dicts); :meth:`Trace.to_dict` gives the
JSON form ``d3d12wl exec --json`` prints.  VAs are ints (JSON numbers); the human renderings print them in hex.

Stable identifiers: :attr:`Finding.kind` is a stable id (``"unmapped-va"``, ``"stride-below-minimum"``, ...; the
full list is :data:`FINDING_KINDS`), :attr:`Finding.rule` names the spec rule or section.
"""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, overload

from d3d12wl.output.serialize import to_jsonable

T = TypeVar("T")
T_co = TypeVar("T_co", covariant=True)

#: Severities, most severe first.  ``error``: undefined behaviour or an invalid call; ``warning``: legal but
#: almost certainly not meant (e.g. flag bits the spec does not define); ``info``: notes.
SEVERITIES = ("error", "warning", "info")

#: Every finding kind the executor emits, with what it means.
FINDING_KINDS: dict[str, str] = {
    "unmapped-va": "a read the hardware would make touches no mapped GPU memory (or runs past a region's end)",
    "misaligned-va": "a VA the spec requires aligned (8 bytes for headers, lists, tables; 4 for EI buffers) is not",
    "va-wrap": "a record address computed from a base and a stride leaves the 64-bit VA space",
    "no-work-list-bound": "DispatchList without a work list signature bound by SetProgram",
    "bind-type-mismatch-dispatch-method": "array bind (WORK_LIST1) with DispatchList (Tier 1)",
    "tier-not-supported": "the call or bind path needs a higher D3D12_WORK_LISTS_TIER than the device reports",
    "dispatch-rays-not-supported": "a raytracing-class signature on a device without DispatchRaysSupported",
    "num-bindings-mismatch": "D3D12_SET_WORK_LIST_DESC1: NumBindings != pSignatureArray->NumSignatures",
    "signature-index-out-of-range": "SignatureIndex does not select a bound signature/binding pair",
    "binding-type-mismatch": "D3D12_WORK_LIST_BINDING Type does not match the signature's executable class",
    "reserved-padding-nonzero": "a ReservedPadding field that must be 0 is not",
    "unknown-flag-bits": "flag bits the spec does not define are set",
    "stride-below-minimum": "a record stride is below the minimum the record's layout needs",
    "stride-misaligned": "a stride is not a multiple of what the spec requires",
    "program-table-binding-invalid": "the bound D3D12_WORK_LIST_PROGRAM_TABLE_BINDING breaks its member rules",
    "program-table-index-out-of-range": "ProgramTableIndex >= SlotCount",
    "unknown-program-identifier": "a program-table slot holds an identifier of no known program",
    "program-not-in-signature": "the program's PCS is not one of the selected work list signature's PCSes",
    "program-class-mismatch": "a record's PCS is of another executable class than its list's signature",
    "direct-bind-signature-index-nonzero":
        "DispatchList1 over a direct bind (D3D12_PROGRAM_TYPE_WORK_LIST) reads a SignatureIndex other than 0",
    "raytracing-binding-null": "a RAYTRACING D3D12_WORK_LIST_BINDING has a null pRaytracing",
    "program-without-command-signature":
        "a program-table slot's program has no program command signature associated with it",
    "program-inputs-stride-below-worst-case":
        "ProgramInputs.StrideInBytes does not fit the worst-case primary record of the selected signature's PCSes",
    "program-table-size-too-small":
        "a broadcast (stride 0) program table's SizeInBytes cannot hold its record: identifier + that program's LRA",
    "null-validation-program-table-nonzero":
        "ValidationProgramTable.Table.StartAddress is 0 (no validation) but its StrideInBytes or SlotCount is not",
    "shader-table-mutated": "a bound raytracing shader table was written during the call (rule 18)",
    "next-dispatch-list-ignored":
        "a non-null NextDispatchList without _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION: ignored, the call ends (info)",
    "validation-index-ignored":
        "non-zero validation index fields with no ValidationProgramTable bound: ignored, no validator runs (info)",
    "program-table-stride-too-small": "a program's program-table-record LRA does not fit Table.StrideInBytes - 32",
    "program-table-mutated":
        "bound program-table (or validation-program-table) bytes were written or changed during the call (rule 14)",
    "invalid-program-command-signature": "a PCS the executor must decode has no record layout",
    "descriptor-heap-not-bound": "a descriptor-table argument executes with no heap of the required type bound",
    "max-graphics-primary-lists-exceeded": "more graphics-class lists in the chain than MaxGraphicsPrimaryLists",
    "max-graphics-program-inputs-exceeded":
        "a graphics list's NumProgramInputs exceeds MaxGraphicsProgramInputsPerPrimaryList",
    "chain-cycle": "a continuation chain revisits a list with the same bytes: it would never end",
    "continuation-authored-without-wait":
        "a list reads bytes written while an earlier list of the chain ran, and no list since has set "
        "_END_WITH_WAIT_FOR_COMPLETION (Work Lists v0.851 rule 13): it may have read them before the write",
    "next-dispatch-list-written":
        "a list's NextDispatchList was written while the list ran (by a validator): implementation-defined which "
        "value is followed (warning)",
    "limit-exceeded": "an executor limit (Limits) was reached; the call was stopped there",
    "root-signature-mismatch": "the command list's root signature is not the command signature's",
    "missing-command-signature": "ExecuteIndirect without a command signature",
    "no-dispatch-trigger": "an ExecuteIndirect command signature has no draw/dispatch argument",
    "root-signature-not-set":
        "ExecuteIndirect whose command signature has a root signature, on a command list with none set (its class)",
    "argument-buffer-offset-misaligned": "ExecuteIndirect's ArgumentBufferOffset is not 4-byte aligned",
    "count-buffer-offset-misaligned": "ExecuteIndirect's CountBufferOffset is not 4-byte aligned",
    "argument-buffer-out-of-bounds":
        "ArgumentBufferOffset + MaxCommandCount * ByteStride exceeds pArgumentBuffer (its resource or region)",
    "count-buffer-out-of-bounds": "CountBufferOffset + the UINT32 count exceeds pCountBuffer (its resource or region)",
    "argument-buffer-wrong-state": "the argument buffer's resource is not in the INDIRECT_ARGUMENT state",
    "count-buffer-wrong-state": "the count buffer's resource is not in the INDIRECT_ARGUMENT state",
    "index-buffer-format-invalid": "an ExecuteIndirect command's index buffer view has no valid index format",
    "cbv-address-misaligned": "an ExecuteIndirect command's root CBV address is not a multiple of 256 bytes",
    # GPU Timeline Validation Hooks (d3d12wl.executor.validation)
    "validator-index-out-of-range": "a validation index field is >= the bound ValidationProgramTable's SlotCount",
    "unknown-validator-identifier": "a validation-program-table slot holds an identifier of no registered validator",
    "validator-without-signature": "no program command signature is known for a validator program",
    "validator-grid-missing": "a validator's program command signature has no _FIXED_DISPATCH grid",
    "validator-pointer-arg-unavailable": "a validator declares a system pointer arg its validator area does not bind",
    "validator-fault": "a validator's read or write of GPU memory faulted (unmapped VA or read-only region)",
    # The command list the call is recorded on (capture version 3: state.command_list_type, state.in_render_pass)
    "dispatch-list-in-bundle": "DispatchList / DispatchList1 recorded into a bundle command list (Work Lists Bundles)",
    "command-list-type-invalid":
        "DispatchList / DispatchList1 on a copy or video command list, or on a compute command list with a "
        "graphics-class signature used by the call (Work Lists Command queue type)",
    "render-pass-compute-class":
        "a compute-class or raytracing-class signature used by a DispatchList / DispatchList1 call inside a render "
        "pass scope (Work Lists Render passes)",
    "execute-indirect-command-list-type-invalid":
        "ExecuteIndirect on a command list that is neither direct, compute nor a bundle (copy, video)",
    "execute-indirect-bundle-count-buffer":
        "ExecuteIndirect in a bundle with a count buffer (only a NULL one is allowed)",
    "execute-indirect-bundle-multiple-operations":
        "ExecuteIndirect in a bundle whose command signature has more than 1 operation",
    # What a draw sees (issue 25)
    "root-parameter-not-set":
        "a root parameter of an execution's root signature that neither the command list nor the signature sets "
        "(once per call and parameter; every declared parameter counts as read: warning)",
    "argument-buffer-bounds-unknown":
        "ArgumentBufferOffset + MaxCommandCount * ByteStride exceeds the mapped region that stands for a resource the "
        "capture does not give: its size is unknown (warning; give it with capture --argument-buffer-resource)",
    "count-buffer-bounds-unknown":
        "CountBufferOffset + the UINT32 count exceeds the mapped region that stands for a resource the capture does "
        "not give: its size is unknown (warning; give it with capture --count-buffer-resource)",
    # The bound descriptor heaps' GPU ranges (capture version 4: state.descriptor_heaps)
    "descriptor-handle-outside-heap":
        "a descriptor-table handle a record holds lies outside the bound heap of its type, or not on a descriptor "
        "boundary (Work Lists _DESCRIPTOR_TABLE)",
}


class Batch(Protocol[T_co]):
    """A block of trace items held as columns (numpy arrays), made into objects only when asked for: the
    columnar path of the executor (:mod:`d3d12wl.executor.columnar`) adds these to a :class:`LazyList`."""

    def __len__(self) -> int: ...

    def item(self, i: int) -> T_co: ...  # 0 <= i < len(self)

    def items(self, start: int, stop: int) -> Iterator[T_co]: ...  # item(start) .. item(stop - 1)


class LazyList(Sequence[T]):
    """A sequence of trace items: plain objects (``append``) and columnar :class:`Batch` es (``add_batch``), in
    order.  Indexing, slicing and iteration make objects from a batch's columns on demand, so a trace of millions
    of executions holds numpy columns, not millions of objects.  Compares equal to a list of the same items."""

    __slots__ = ("_segments", "_starts", "_length")

    def __init__(self, items: Iterable[T] = ()) -> None:
        self._segments: list[list[T] | Batch[T]] = []
        self._starts: list[int] = []
        self._length = 0
        for x in items:
            self.append(x)

    def append(self, item: T) -> None:
        if not self._segments or not isinstance(self._segments[-1], list):
            self._starts.append(self._length)
            self._segments.append([])
        seg = self._segments[-1]
        assert isinstance(seg, list)
        seg.append(item)
        self._length += 1

    def add_batch(self, batch: Batch[T]) -> None:
        if len(batch):
            self._starts.append(self._length)
            self._segments.append(batch)
            self._length += len(batch)

    @property
    def segments(self) -> tuple[list[T] | Batch[T], ...]:
        """The lists and batches in order (what streaming writers walk)."""
        return tuple(self._segments)

    def __len__(self) -> int:
        return self._length

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            start, stop, step = index.indices(self._length)
            if step == 1:
                return list(self.iter_range(start, stop))
            return [self[i] for i in range(start, stop, step)]
        i = index + self._length if index < 0 else index
        if not 0 <= i < self._length:
            raise IndexError("trace index out of range")
        s = bisect.bisect_right(self._starts, i) - 1
        seg = self._segments[s]
        off = i - self._starts[s]
        return seg[off] if isinstance(seg, list) else seg.item(off)

    def iter_range(self, start: int, stop: int) -> Iterator[T]:
        """Items ``start`` .. ``stop - 1``, made segment by segment."""
        if start >= stop:
            return
        s = max(0, bisect.bisect_right(self._starts, start) - 1)
        while s < len(self._segments) and self._starts[s] < stop:
            seg, base = self._segments[s], self._starts[s]
            a, b = max(start, base) - base, min(stop, base + len(seg)) - base
            if isinstance(seg, list):
                yield from seg[a:b]
            else:
                yield from seg.items(a, b)
            s += 1

    def __iter__(self) -> Iterator[T]:
        return self.iter_range(0, self._length)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, (list, tuple, LazyList)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:  # mutable, like a list
        raise TypeError("unhashable type: 'LazyList'")

    def __repr__(self) -> str:
        return f"LazyList(len={self._length}, segments={len(self._segments)})"

    def tolist(self) -> list[T]:
        """Every item as a plain list (what :func:`d3d12wl.output.serialize.to_jsonable` writes)."""
        return list(self)

    def release(self) -> None:
        """Let go of every item held so far, keeping their count: what a consumer that streams a call's items
        (:func:`d3d12wl.executor.references.walk_references`) does once it has read them, so a call of any length
        needs the memory of one chunk.  Items added later are held as before; a released one cannot be read."""
        if self._segments and not (len(self._segments) == 1 and isinstance(self._segments[0], Released)):
            self._segments = [Released(self._length)]
            self._starts = [0]


class Released:
    """The place of ``n`` items a :class:`LazyList` let go of (:meth:`LazyList.release`)."""

    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def item(self, i: int) -> Any:
        raise IndexError(f"trace item {i} was released after it was streamed")

    def items(self, start: int, stop: int) -> Iterator[Any]:
        raise IndexError(f"trace items {start}..{stop - 1} were released after they were streamed")


#: the default of the limits that scale with the capture (:meth:`Limits.resolved`)
AUTO = -1
#: the scaled limits never go below these (the fixed defaults of earlier versions)
SCALED_FLOORS = {"max_primary_records": 1 << 20, "max_secondary_records": 1 << 20, "max_executions": 1 << 16,
                 "max_records": 1 << 18}
#: bytes per record the scaled limits assume: the smallest Work Lists record stride (strides round up to 8)
BYTES_PER_RECORD = 8


@dataclass(slots=True)
class Limits:
    """Bounds that keep the executor's time and memory finite on hostile input (design.md checklist: "a chain that
    does not end ... is found and stopped").  Reaching one stops the call with a ``limit-exceeded`` finding naming
    the limit; raise it with ``Limits(max_...=N)`` or the matching ``--max-...`` flag of ``d3d12wl exec`` / ``dump``.

    A real frame's records are bytes in the capture, so the record and execution limits default to :data:`AUTO`:
    the number of records the capture's supplied bytes can hold as distinct records (``supplied bytes //``
    :data:`BYTES_PER_RECORD`, never below :data:`SCALED_FLOORS`), resolved per call (:meth:`resolved`), which
    lets every real capture run whole.  Supplied bytes are those of its hex, base64 and file regions and the pages
    of its zeros regions something wrote (:attr:`~d3d12wl.capture.memory.GpuMemory.supplied_bytes`): a 14 KB
    capture claiming a zeros region of 2^24 records gets the floors, not 2^24.  Records that do not occupy bytes of their own (a broadcast stride of 0: 12
    bytes can drive 4 billion records) are bounded by ``max_repeated_records``, and chains by ``max_lists`` (chains
    that revisit a list with unchanged bytes stop as ``chain-cycle``).  No limit ever allocates in proportion to a
    count read from GPU memory.
    """

    #: lists in one call (the head list plus continuations)
    max_lists: int = 1 << 16
    #: primary records walked in one list (AUTO: scaled to the mapped bytes)
    max_primary_records: int = AUTO
    #: secondary records walked under one primary record (AUTO: scaled to the mapped bytes)
    max_secondary_records: int = AUTO
    #: executions (draws, dispatches, ray dispatches, EI commands) in one call (AUTO: scaled to the mapped bytes)
    max_executions: int = AUTO
    #: primary + secondary records (and EI commands, and records a validation-hook pre-pass reads) walked in one
    #: call, executed or not (AUTO: scaled to the mapped bytes)
    max_records: int = AUTO
    #: records read from the bytes of the record before them (a broadcast stride of 0), in one call
    max_repeated_records: int = 1 << 16
    #: findings kept in the trace; further ones are counted in ``Trace.findings_suppressed``
    max_findings: int = 1 << 12

    #: CLI flag of each limit
    @staticmethod
    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    @staticmethod
    def scaled(mapped_bytes: int, name: str) -> int:
        """What an :data:`AUTO` limit ``name`` is for ``mapped_bytes`` of supplied memory."""
        return max(SCALED_FLOORS[name], mapped_bytes // BYTES_PER_RECORD)

    def resolved(self, mapped_bytes: int) -> Limits:
        """These limits with every :data:`AUTO` one scaled to ``mapped_bytes`` of supplied memory (a new object)."""
        out = Limits(**self.as_dict())
        for name in SCALED_FLOORS:
            if getattr(out, name) == AUTO:
                setattr(out, name, Limits.scaled(mapped_bytes, name))
        return out

    def as_dict(self) -> dict[str, int]:
        out: dict[str, int] = to_jsonable(self)
        return out


@dataclass(frozen=True, slots=True)
class Readings:
    """Where a spec sentence can be read two ways (docs/spec-questions.md), the reading the executor takes; the
    defaults are d3d12wl's, the others a user needs to predict an implementation that reads it the other way.
    ``d3d12wl exec`` / ``dump`` take ``--reading NAME=VALUE``; a trace made under a non-default reading says so in
    ``call_args["readings"]``."""

    #: Work Lists "Render passes": "the call is rejected inside a render pass if any signature reachable via
    #: SignatureIndex across the chain is compute-class or raytracing-class" (docs/spec-questions.md Q4):
    #: ``selected``, every signature a list of the chain selects (what "Command queue type" calls "actually used");
    #: ``bound``, every signature of the bound array, the one set a runtime recording the call can see
    render_pass: str = "selected"
    #: Work Lists rule 11 "Exceeding the bound is undefined behavior" against "MaxGraphicsPrimaryLists ... caps the
    #: count of graphics-class lists the chain may execute" (Q14): ``execute``, the list past the bound runs and is
    #: reported; ``stop``, the chain ends before it (the list does not run)
    max_graphics_primary_lists: str = "execute"
    #: Work Lists v0.851 "Next-list pointer semantics": without _END_WITH_WAIT_FOR_COMPLETION "the implementation
    #: may read NextDispatchList at any time, including at launch" (Q15: a validator that writes its own list's
    #: NextDispatchList): ``retire``, read where the list retires, after its validators; ``launch``, the value the
    #: list held when it launched, before any validator ran (a list with the wait is read at its retire point
    #: either way)
    next_list_read: str = "retire"
    #: D3D12_WORK_LIST_PROGRAM_TABLE_BINDING "Every primary record's ProgramTableIndex must be in [0, SlotCount)"
    #: against "A 0 stride is the broadcast form: every logical index resolves to the single record" (Q16):
    #: ``checked``, SlotCount bounds the index of a broadcast table too; ``any``, with Table.StrideInBytes 0 every
    #: index selects the one record
    broadcast_slot_index: str = "checked"
    #: IndirectDrawing.md "Drawing": the count is read ("UINT CommandCount = pCountBuffer->ReadUINT32(...)") before
    #: it is clamped, and the count buffer's bound is validated, when MaxCommandCount is 0 too (Q17): ``read``;
    #: ``unread``, a call whose MaxCommandCount is 0 neither reads nor checks its count buffer (min(0, n) is 0)
    zero_max_count_buffer: str = "read"
    #: the incrementing constant of a draw or dispatch that does no work (a zero count or dimension, Q18): Work
    #: Lists "one secondary record = one shader invocation", IndirectDrawing.md "increments by 1 for each subsequent
    #: command": ``consumes`` (every execution takes the next value); ``skips``, "per shader invocation (per PSO
    #: launch)", "for each executed command": an execution that launches nothing does not advance the counter (the
    #: columnar engine then walks as the reference does)
    zero_work_counter: str = "consumes"

    #: every reading and the values it takes (the first is the default)
    CHOICES = {"render_pass": ("selected", "bound"), "max_graphics_primary_lists": ("execute", "stop"),
               "next_list_read": ("retire", "launch"), "broadcast_slot_index": ("checked", "any"),
               "zero_max_count_buffer": ("read", "unread"), "zero_work_counter": ("consumes", "skips")}

    def __post_init__(self) -> None:
        for name, values in self.CHOICES.items():
            if getattr(self, name) not in values:
                raise ValueError(f"reading {name} is one of {', '.join(values)}, not {getattr(self, name)!r}")

    def non_default(self) -> dict[str, str]:
        """The readings that differ from d3d12wl's (what a trace records)."""
        return {n: getattr(self, n) for n, values in self.CHOICES.items() if getattr(self, n) != values[0]}


@dataclass(slots=True)
class Finding:
    """Undefined behaviour, an invalid call, or a suspicious value, found while executing.

    ``kind``: stable id (:data:`FINDING_KINDS`); ``rule``: the spec rule or section (``"rule 25(e)"``,
    ``"D3D12_DISPATCH_LIST_INPUT1"``); ``va``: the byte it concerns; indices say where in the call."""

    kind: str
    rule: str
    message: str
    severity: str = "error"
    list_index: int | None = None
    primary_index: int | None = None
    secondary_index: int | None = None
    command_index: int | None = None
    va: int | None = None

    def where_parts(self, number: Callable[[str, int], Any] = lambda member, value: str(value),
                    address: Callable[[int], Any] = lambda va: f"{va:x}") -> list[Any]:
        """Where the finding is, as parts: ``list 3 primary 12 secondary 0 command 4 @0x1f00``, each index that
        is set and the VA; ``number(member, value)`` and ``address(va)`` give a number's part (its text, or a
        template's hole: :mod:`d3d12wl.executor.rows` writes findings from columns by these parts).  The one
        spelling of a finding's where."""
        parts: list[Any] = []
        for label, member in FINDING_WHERE:
            value = getattr(self, member)
            if value is not None:
                parts += [" " if parts else "", f"{label} ", number(member, value)]
        if self.va is not None:
            parts += [" " if parts else "", "@0x", address(self.va)]
        return parts

    def where(self) -> str:
        return "".join(self.where_parts())

    def __str__(self) -> str:
        where = self.where()
        return f"{self.severity}: {self.kind} [{self.rule}]{' ' + where if where else ''}: {self.message}"


#: the indices a finding's where names, in order: (its word, the member)
FINDING_WHERE = (("list", "list_index"), ("primary", "primary_index"), ("secondary", "secondary_index"),
                 ("command", "command_index"))


@dataclass(slots=True)
class ValueSource:
    """Where (part of) a value came from.  ``origin`` is a readable description ("secondary record 2 @0x20010
    +0", "program table slot 1 @0x30030 +32", "system: incrementing constant", "command-list state");
    ``kind`` is one of ``primary``, ``secondary``, ``program-table``, ``system``, ``static``, ``command-list``,
    ``command`` (an ExecuteIndirect argument record); ``va`` the first byte read (None for non-memory sources);
    ``first_dword``/``num_dwords`` the DWORD sub-range of a constants slot this source supplied; ``arg`` the
    index of the argument desc it resolves; ``field`` the record member that supplied the value, spelled as the
    record's layout names it (:attr:`d3d12wl.records.layout.LayoutField.name`: the argument's ``Name`` where the
    description gives one, else the positional ``arg0_ShaderResourceView``), None where the value came from no
    record (command-list state, system values, static arguments, bytes a record does not have)."""

    kind: str
    origin: str
    va: int | None = None
    first_dword: int | None = None
    num_dwords: int | None = None
    arg: int | None = None
    field: str | None = None


def slot_members(sources: Iterable[tuple[str | None, int | None, int | None]], dwords: int) -> str | None:
    """The record members that supplied a constants slot of ``dwords`` DWORDs, from its sources'
    ``(field, first_dword, num_dwords)`` in DWORD order: each member's name, with the DWORDs it supplied as
    ``[first:end]`` unless it supplied the whole slot, joined by spaces (``Tint``; ``Scale[0:2] Bias[2:4]``;
    ``Tint[0:3]`` where DWORD 3 is the command list's); None where no record supplied any."""
    parts = [name if first == 0 and count == dwords else f"{name}[{first}:{(first or 0) + (count or 0)}]"
             for name, first, count in sources if name is not None]
    return " ".join(parts) or None


@dataclass(slots=True)
class RootArgumentValue:
    """The value one root parameter has when an execution runs.

    ``binding``: ``"global"`` or ``"local"``; ``parameter``: root parameter index (global root signature,
    explicit local root signature, or synthesized slot index on the implicit path); ``kind``: ``constants``,
    ``CBV``, ``SRV``, ``UAV``, ``descriptor_table`` or ``static_sampler``.  ``value`` is a VA / descriptor handle
    (None when nothing set it), ``values`` the DWORDs of a constants slot (None per unset DWORD)."""

    binding: str
    parameter: int
    kind: str
    value: int | None = None
    values: list[int | None] | None = None
    sources: list[ValueSource] = field(default_factory=list)
    register: str | None = None


@dataclass(slots=True)
class Trigger:
    """The dispatch trigger of an execution: ``type`` (``DRAW``, ``DISPATCH_RAYS_DIMENSIONS``, ...), its payload
    ``fields`` by member name, and where they came from."""

    type: str
    fields: dict[str, Any]
    source: ValueSource | None = None

    def does_work(self) -> bool:
        """False when the trigger launches nothing: a count member (``VertexCountPerInstance``, ``InstanceCount``,
        ``IndexCountPerInstance``, ``ThreadGroupCountX`` ...) or a ray dimension (``Width``, ``Height``, ``Depth``) is
        0 (``Readings.zero_work_counter``)."""
        return all(value != 0 for name, value in self.fields.items()
                   if isinstance(value, int) and ("Count" in name or name in ("Width", "Height", "Depth")))


@dataclass(slots=True)
class IABinding:
    """One IA binding an execution sees: a vertex buffer slot or the index buffer."""

    slot: int | None  # None for the index buffer
    fields: dict[str, Any] | None  # None: nothing bound
    source: ValueSource


@dataclass(slots=True)
class Execution:
    """One draw / dispatch / ray dispatch / EI command as the hardware would run it."""

    index: int
    executable_class: str
    trigger: Trigger
    list_index: int | None = None
    signature_index: int | None = None
    primary_index: int | None = None
    secondary_index: int | None = None
    command_index: int | None = None
    program: str | None = None
    pcs: str | None = None
    invocation: int = 0  # position in the list's linear invocation sequence (EI: the command index)
    counter: int | None = None  # the incrementing-constant value this execution sees (None: no IC arg)
    root_arguments: list[RootArgumentValue] = field(default_factory=list)
    ia: list[IABinding] = field(default_factory=list)
    system_pointers: dict[str, int | None] = field(default_factory=dict)
    raytracing: dict[str, Any] | None = None
    record_va: dict[str, int] = field(default_factory=dict)

    def root_argument(self, binding: str, parameter: int) -> RootArgumentValue | None:
        for ra in self.root_arguments:
            if ra.binding == binding and ra.parameter == parameter:
                return ra
        return None


@dataclass(slots=True)
class RecordTrace:
    """A decoded record: ``fields`` by layout field name (header members and ``arg{i}_...`` payloads)."""

    index: int
    va: int
    fields: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ProgramTableSlotTrace:
    """The program-table slot a primary record selected."""

    index: int
    va: int
    identifier: str  # hex
    program: str | None
    tail: dict[str, Any] = field(default_factory=dict)  # local-root-argument tail decoded by field name


@dataclass(slots=True)
class PrimaryRecordTrace(RecordTrace):
    pcs: str | None = None
    record_kind: str | None = None  # HYBRID / INLINE
    header: str | None = None  # the fixed header struct name
    program_table: ProgramTableSlotTrace | None = None
    secondary_records: LazyList[RecordTrace] = field(default_factory=LazyList)
    executions: LazyList[int] = field(default_factory=LazyList)  # Execution.index values
    skipped: str | None = None  # why this record drove no executions (a finding says more)


@dataclass(slots=True)
class ListTrace:
    """One dispatch list: its header as read, the signature it selected and its records."""

    index: int
    va: int
    input_struct: str  # D3D12_DISPATCH_LIST_INPUT or D3D12_DISPATCH_LIST_INPUT1
    header: dict[str, Any] = field(default_factory=dict)
    flags: list[str] = field(default_factory=list)
    signature_index: int | None = None
    signature: str | None = None
    executable_class: str | None = None
    binding: dict[str, Any] | None = None
    ordering: str | None = None  # "in order" / "any order"
    ordering_note: str | None = None
    counts_as_graphics_list: bool = False
    primary_records: LazyList[PrimaryRecordTrace] = field(default_factory=LazyList)
    continuation: dict[str, Any] | None = None
    stopped: str | None = None  # why record processing of this list stopped early


@dataclass(slots=True)
class ResetEntry:
    """One binding the end-of-call reset sets (IndirectDrawing.md "State leakage"; spec "State leakage and
    reset")."""

    binding_set: str  # "graphics" / "compute" / "ia"
    what: str  # "root constant", "root view", "descriptor table", "vertex buffer", "index buffer"
    parameter: int | None = None
    slot: int | None = None
    dwords: list[int] | None = None
    reset_to: str = "0"
    touched_by: list[str] = field(default_factory=list)


@dataclass(slots=True)
class ValidatorInvocation:
    """One validator dispatch (spec "Validator invocation order and barriers"): its ``area``
    (``signature-selection``, ``primary-list``, ``secondary-list``), the spec ``step`` (1, 4 or 7), the list and,
    for the secondary-list area, the primary record it was dispatched against; the validation-program-table
    ``slot`` and identifier; the system pointer values it was given by arg type (``pointers``; None = null) and by
    root parameter (``root_arguments``); its ``grid`` (_FIXED_DISPATCH); ``executions_before``: how many
    executions of the call had run when it was dispatched (order against record processing)."""

    sequence: int
    area: str
    step: int
    list_index: int
    slot: int
    slot_va: int
    identifier: str  # hex
    validator: str | None
    primary_index: int | None = None
    pointers: dict[str, int | None] = field(default_factory=dict)
    root_arguments: dict[int, int | None] = field(default_factory=dict)
    grid: list[int] = field(default_factory=list)
    executions_before: int = 0


@dataclass(slots=True)
class Trace:
    call: str  # "DispatchList", "DispatchList1", "ExecuteIndirect"
    call_args: dict[str, Any] = field(default_factory=dict)
    lists: list[ListTrace] = field(default_factory=list)
    executions: LazyList[Execution] = field(default_factory=LazyList)
    end_of_call_reset: list[ResetEntry] = field(default_factory=list)
    #: the findings in the order they were found (a LazyList: the columnar path adds those of records of a
    #: flagged slot as batches, made into objects on demand)
    findings: LazyList[Finding] = field(default_factory=LazyList)
    findings_suppressed: int = 0
    stopped_reason: str | None = None
    limits: Limits = field(default_factory=Limits)
    graphics_lists: int = 0
    validator_invocations: list[ValidatorInvocation] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def finding_counts(self) -> dict[tuple[str, str], int]:
        """(severity, kind) -> how many findings, in the order first found, without making a batch's findings
        (a batch that knows its counts says them: ``finding_counts()``)."""
        out: dict[tuple[str, str], int] = {}
        for seg in self.findings.segments:
            counts = getattr(seg, "finding_counts", None)
            if counts is not None:
                for key, n in counts().items():
                    out[key] = out.get(key, 0) + n
                continue
            for f in seg if isinstance(seg, list) else seg.items(0, len(seg)):
                out[(f.severity, f.kind)] = out.get((f.severity, f.kind), 0) + 1
        return out

    @property
    def has_errors(self) -> bool:
        """Whether any finding is an error (exit status 1), without making a batch's findings."""
        return any(severity == "error" and n for (severity, _), n in self.finding_counts().items())

    def findings_of(self, kind: str) -> list[Finding]:
        return [f for f in self.findings if f.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form ``d3d12wl exec --json`` prints (through the one serializer, d3d12wl.output.serialize)."""
        out: dict[str, Any] = to_jsonable(self)
        return out
