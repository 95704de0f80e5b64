"""Lay out a whole GPU-resident work list in one buffer at a given base VA.

One buffer holds the dispatch list input(s), the program table and, per dispatch list, its primary list and its
secondary list, each part starting at an 8-byte-aligned VA as the spec requires:

* ``D3D12_DISPATCH_LIST_INPUT`` / ``_INPUT1``: 8-byte aligned (spec "DispatchList", "DispatchList1");
* ``ProgramInputs.StartAddress`` and ``StrideInBytes``: 8-byte aligned (spec ``D3D12_DISPATCH_LIST_INPUT``);
* ``SecondaryRecords``: 8-byte aligned (spec ``D3D12_WORK_LIST_PRIMARY_RECORD``); secondary records of one list
  are contiguous, so with a stride that is a multiple of 8 every primary record's sub-list start stays aligned;
* program table ``Table.StartAddress``: 8-byte aligned, stride 0 or a multiple of 8 (spec
  ``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING``).

One program table bound to every signature (``program_table=``), or one binding per signature index
(``bindings=``, spec "Binding via SetProgram", ``D3D12_SET_WORK_LIST_DESC1::pBindings``): a program table for a
graphics- or compute-class signature, each placed in the buffer with its own stride and slot count and checked
against the programs it holds (spec "Program table slot layout", rule 6), or the caller's
``D3D12_WORK_LIST_RAYTRACING_BINDING`` for a raytracing-class one (its RTPSO and shader tables live outside the work
list).  :meth:`BuiltWorkList.set_program_desc` and :meth:`BuiltWorkList.command_list_state` give the SetProgram
state for either bind path, so a capture never needs it built by hand.

A validation program table (``validation_table=``, :class:`ValidationTableSpec`; spec "Validation program table",
"Binding the validation program table") is placed in the same buffer after the program tables: validator
identifiers, slot 0 the zero "no validator" sentinel, ``Table.StartAddress`` 8-byte aligned and the stride a
multiple of 8 as for a program table.  Only the Tier 2 array bind carries it
(``D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable`` and ``SignatureSelectionValidationProgramTableIndex``); the
direct bind (``D3D12_SET_WORK_LIST_DESC``) has no such field, so the builder rejects the pair.

Tier 2 lists are chained in the order given through ``NextDispatchList`` (spec "Dispatch List Continuations"),
with ``_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION`` set on every list but the last.  Every record is packed by the
vectorized packers of :mod:`d3d12wl.records.packers`; the builder only computes addresses (``SecondaryRecords`` from a
prefix sum of the per-primary-record counts) and places the parts.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import PackError
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet, Program, ProgramCommandSignature, RootSignature, WorkListSignature
from d3d12wl.model.objects import WorkListSignatureArray as SignatureArray
from d3d12wl.model.state import (
    CommandListState,
    DescriptorHeaps,
    GpuVirtualAddressRangeAndStride,
    IndexBufferView,
    ProgramTableBinding,
    RaytracingBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    SetWorkListDesc1,
    VertexBufferView,
    WorkListBinding,
)
from d3d12wl.records.layout import (
    PROGRAM_TABLE,
    SECONDARY,
    PCSLayout,
    RecordLayout,
    pcs_layout,
    program_table_layout,
    round_up,
)
from d3d12wl.records.packers import (
    VA_ALIGN,
    Columns,
    RecordData,
    column_views,
    count_records,
    pack_dispatch_list_inputs,
    pack_primary_records,
    pack_program_table,
    pack_secondary_records,
    record_layout,
    resolve_stride,
)

__all__ = ["DispatchListSpec", "ProgramTableSpec", "ValidationTableSpec", "BindingSpec", "Part", "BuiltWorkList",
           "build_work_list", "check_state"]


@dataclass
class DispatchListSpec:
    """One dispatch list: its program command signature, its primary records and (hybrid) its secondary records.

    ``primary``: the primary-record columns.  For a hybrid signature with ``secondary`` given, leave out
    ``NumSecondaryRecords`` and ``SecondaryRecords``: the builder writes them from ``secondary_counts`` (the number of
    secondary records of each primary record, in order; ``secondary`` holds them all, concatenated).  With the
    broadcast secondary stride (``SecondaryRecordByteStride == 0``) ``secondary`` holds one record per primary
    record and ``secondary_counts`` the number of executions each drives.
    """

    pcs: ProgramCommandSignature | PCSLayout
    primary: RecordData
    secondary: RecordData | None = None
    secondary_counts: ArrayLike | None = None
    primary_stride: int | None = None
    flags: int = 0
    signature_index: int = 0  # Tier 2: D3D12_DISPATCH_LIST_INPUT1::SignatureIndex

    @property
    def layout(self) -> PCSLayout:
        return self.pcs if isinstance(self.pcs, PCSLayout) else pcs_layout(self.pcs)


@dataclass
class ProgramTableSpec:
    """The program table: a program-table record layout (or the PCS / program it comes from), one row per slot
    (``ProgramIdentifier`` plus the tail columns), the slot stride (default: the minimum; 0 = broadcast) and the
    ``SlotCount`` to bind (default: the number of rows).  With a non-zero stride the table holds
    ``max(rows, SlotCount) * stride`` bytes, the slots past the rows zero."""

    layout: RecordLayout | PCSLayout | Program
    slots: RecordData
    stride: int | None = None
    slot_count: int | None = None


@dataclass
class ValidationTableSpec:
    """The validation program table (spec "Validation program table"): ``validators[i]`` is the program identifier
    of slot ``i`` (32 bytes, or anything with an ``identifier`` such as a :class:`d3d12wl.executor.validation.Validator`;
    None for an empty slot), so the validation index fields (``ListValidationProgramTableIndex``,
    ``RecordValidationProgramTableIndex``, ``signature_selection_index``) index it directly.  Slot 0 is the
    reserved "no validator" sentinel: give None there (the builder writes it zero).

    ``stride``: each slot's bytes, identifier first and the rest zero (default: one ``D3D12_PROGRAM_IDENTIFIER``);
    a multiple of 8 and at most ``D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE`` as for a program table, and not 0 (a
    broadcast stride would make every slot the sentinel).  ``slot_count``: the ``SlotCount`` to bind (default: the
    number of slots given; the slots past them are zero).  ``signature_selection_index``:
    ``D3D12_SET_WORK_LIST_DESC1::SignatureSelectionValidationProgramTableIndex`` (0 = no signature-selection
    validator)."""

    validators: Sequence[Any]
    stride: int | None = None
    slot_count: int | None = None
    signature_selection_index: int = 0


@dataclass(frozen=True)
class Part:
    """One part of the buffer: what it is, its VA, its size in bytes and its stride (0 for a single struct)."""

    name: str
    va: int
    size: int
    stride: int = 0
    count: int = 0


#: One signature index's binding for :func:`build_work_list`'s ``bindings``: a program table to place (graphics- or
#: compute-class signature), the caller's raytracing binding (raytracing-class signature: RTPSO name and shader-table
#: ranges, outside the work list), or None (an empty program-table binding, for a signature no list selects).
BindingSpec = ProgramTableSpec | RaytracingBinding | None


@dataclass(frozen=True)
class BuiltWorkList:
    """The bytes of a work list at ``base_va`` and where each part is.

    ``bindings`` holds the ``D3D12_WORK_LIST_BINDING`` of each signature index (``shared_binding``: the one binding
    of ``program_table=``, paired with every signature); ``program_tables`` the program-table part of each signature
    index (None for a raytracing or empty binding).  ``program_table`` and ``slot_count`` are those of the head
    list's signature index."""

    base_va: int
    data: np.ndarray
    tier: int
    parts: tuple[Part, ...]
    dispatch_inputs: tuple[int, ...]
    primary_lists: tuple[Part, ...]
    secondary_lists: tuple[Part | None, ...]
    program_table: Part | None
    slot_count: int
    graphics_lists: tuple[bool, ...] = field(default=())
    bindings: tuple[WorkListBinding, ...] = field(default=())
    program_tables: tuple[Part | None, ...] = field(default=())
    shared_binding: bool = True
    signature_indices: tuple[int, ...] = field(default=())
    signature: WorkListSignature | SignatureArray | None = None
    validation_table: Part | None = None
    validation_binding: ProgramTableBinding = field(default_factory=ProgramTableBinding)
    signature_selection_index: int = 0
    #: the ``objects`` given to :func:`build_work_list`: names in :meth:`command_list_state` resolve against them
    objects: ObjectSet | None = None

    @property
    def dispatch_input(self) -> int:
        """The VA to pass to DispatchList / DispatchList1 (the first list of a chain)."""
        return self.dispatch_inputs[0]

    @property
    def size(self) -> int:
        return int(self.data.nbytes)

    def bytes(self) -> bytes:
        return self.data.tobytes()

    def memory(self, name: str = "work_list") -> GpuMemory:
        """A :class:`GpuMemory` with the buffer mapped at ``base_va`` (the same bytes, not a copy)."""
        memory = GpuMemory()
        memory.map(self.base_va, self.data, name=name)
        return memory

    def program_table_binding(self, signature_index: int | None = None) -> ProgramTableBinding:
        """``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING`` of the head list's table, or of ``signature_index``'s."""
        if signature_index is None:
            t = self.program_table
            if t is None:
                return ProgramTableBinding()
            return ProgramTableBinding(GpuVirtualAddressRangeAndStride(t.va, t.size, t.stride), self.slot_count)
        binding = self.work_list_binding(signature_index)
        if binding.Type != _binding_type("PROGRAM_TABLE"):
            raise PackError(f"signature index {signature_index} has a raytracing binding, not a program table",
                            where=f"bindings[{signature_index}]", rule="Binding via SetProgram")
        return binding.ProgramTable

    def work_list_binding(self, signature_index: int = 0) -> WorkListBinding:
        """``D3D12_WORK_LIST_BINDING`` paired with the signature at ``signature_index`` (spec "Signature
        Selection": SignatureIndex selects the signature and its binding together)."""
        if self.shared_binding:
            return self.bindings[0] if self.bindings else _empty_binding()
        if not 0 <= signature_index < len(self.bindings):
            raise PackError(f"signature index {signature_index} has no binding ({len(self.bindings)} given)",
                            rule="Signature Selection")
        return self.bindings[signature_index]

    def set_program_desc(self, signature: WorkListSignature | SignatureArray | None = None) -> SetProgramDesc:
        """``D3D12_SET_PROGRAM_DESC`` binding ``signature`` (default: the one given to :func:`build_work_list`):
        a work list signature binds directly (``D3D12_PROGRAM_TYPE_WORK_LIST``, one binding; on Tier 2 every list's
        SignatureIndex must be 0), a signature array through ``D3D12_PROGRAM_TYPE_WORK_LIST1`` with ``pBindings``
        parallel to its ``pSignatures`` (Tier 2 only; spec "Binding via SetProgram").  A built validation table
        fills ``ValidationProgramTable`` and ``SignatureSelectionValidationProgramTableIndex`` of the array bind;
        with a direct bind it is an error (``D3D12_SET_WORK_LIST_DESC`` has no such field)."""
        signature = self.signature if signature is None else _signature_argument(signature, self.objects)
        if signature is None:
            raise PackError("SetProgram needs the bound signature: give it to build_work_list or here")
        if isinstance(signature, WorkListSignature):
            if self.validation_table is not None:
                raise PackError(_DIRECT_BIND_NO_VALIDATION.format(name=signature.name),
                                rule="Binding the validation program table")
            if not self.shared_binding and len(self.bindings) != 1:
                raise PackError(f"a direct bind (D3D12_SET_WORK_LIST_DESC) carries one binding, {len(self.bindings)} "
                                "were built; bind a signature array", rule="Binding via SetProgram")
            if self.tier == 2 and any(self.signature_indices):
                raise PackError(f"a direct bind needs SignatureIndex 0 in every list, the lists select "
                                f"{list(self.signature_indices)}", rule="Compatibility of bind type with dispatch "
                                "method")
            binding = self.work_list_binding(0)
            if not self.shared_binding:
                _check_classes([signature], [binding])
            return SetProgramDesc(_program_type("WORK_LIST"), WorkList=SetWorkListDesc(signature, binding))
        if self.tier == 1:
            raise PackError("tier 1 binds a work list signature directly (D3D12_SET_WORK_LIST_DESC); the array bind "
                            "(D3D12_SET_WORK_LIST_DESC1) is Tier 2 only", rule="Binding via SetProgram")
        n = len(signature.pSignatures)
        if self.shared_binding:
            bindings = [self.work_list_binding()] * n
        else:
            if len(self.bindings) != n:
                raise PackError(f"NumBindings ({len(self.bindings)}) must equal pSignatureArray->NumSignatures ({n}) "
                                f"of {signature.name!r}", rule="D3D12_SET_WORK_LIST_DESC1")
            bindings = list(self.bindings)
            _check_classes(signature.pSignatures, bindings)
        return SetProgramDesc(_program_type("WORK_LIST1"), WorkList1=SetWorkListDesc1(
            signature, bindings, self.validation_binding, self.signature_selection_index))

    def command_list_state(self, signature: WorkListSignature | SignatureArray | str | None = None, *,
                           objects: ObjectSet | None = None, **state: Any) -> CommandListState:
        """The command-list state before the call: SetProgram as :meth:`set_program_desc`, plus any other
        :class:`d3d12wl.model.state.CommandListState` member given by keyword (root signatures and arguments, IA, heaps).

        Every keyword is checked here, before anything is written: an unknown member, a value of the wrong type, or
        a name (``graphics_root_signature="GRS"``, ``signature="WLS"``) that does not resolve in ``objects`` (default:
        those given to :func:`build_work_list`) is a :class:`PackError` naming the argument."""
        objects = self.objects if objects is None else objects
        members = {f.name for f in dataclasses.fields(CommandListState)} - {"program"}
        for key in state:
            if key == "program":
                raise PackError("program is SetProgram's state, made here from the signature: give the signature "
                                "(or build a CommandListState yourself)", where=key)
            if key not in members:
                raise PackError(f"command_list_state() has no member {key!r}; the members are "
                                f"{', '.join(sorted(members))}", where=key)
        checked = check_state(CommandListState(**state), objects)
        signature = _signature_argument(signature, objects)
        return dataclasses.replace(checked, program=self.set_program_desc(signature))

    @property
    def raytracing(self) -> bool:
        """Whether a raytracing binding was built (the device then needs DispatchRaysSupported, rule 16)."""
        return any(b.Type == _binding_type("RAYTRACING") for b in self.bindings)

    @property
    def max_graphics_primary_lists(self) -> int:
        """DispatchList1's MaxGraphicsPrimaryLists for this chain: its graphics-class lists, empty ones included
        (spec "MaxGraphicsPrimaryLists")."""
        return sum(self.graphics_lists)

    @property
    def max_graphics_program_inputs_per_primary_list(self) -> int:
        """The largest graphics-class list's NumProgramInputs (spec "MaxGraphicsProgramInputsPerPrimaryList")."""
        return max((p.count for p, g in zip(self.primary_lists, self.graphics_lists) if g), default=0)

    def to_capture(self, objects: ObjectSet, signature: WorkListSignature | SignatureArray | None = None, *,
                   state: CommandListState | None = None, device: Any = None) -> Any:
        """A :class:`d3d12wl.capture.file.Capture` of the DispatchList (tier 1) or DispatchList1 (tier 2) call on this
        buffer.  Without ``state``, the state is :meth:`command_list_state` of ``signature`` (default: the one
        given to :func:`build_work_list`) and nothing else is set on the command list.  Without ``device``, the
        device has this tier and DispatchRaysSupported when a raytracing binding was built."""
        from d3d12wl.capture.file import CAPTURE_VERSION, Capture
        from d3d12wl.model.state import DeviceCaps, DispatchListCall

        if not isinstance(objects, ObjectSet):
            raise PackError(f"objects must be an ObjectSet (d3d12wl.model.description.load), not "
                            f"{type(objects).__name__}", where="objects")
        if state is None:
            if signature is None and self.signature is None:
                raise PackError("to_capture needs the bound signature (or a full command-list state)")
            state = self.command_list_state(signature, objects=objects)
        elif not isinstance(state, CommandListState):
            raise PackError(f"state must be a CommandListState (command_list_state()), not {type(state).__name__}",
                            where="state")
        else:
            state = check_state(state, objects)
        if device is None:
            device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{self.tier}"),
                                DispatchRaysSupported=self.raytracing)
        call = DispatchListCall(self.dispatch_input, self.max_graphics_program_inputs_per_primary_list,
                                self.max_graphics_primary_lists if self.tier == 2 else 0, tier2=self.tier == 2)
        return Capture(CAPTURE_VERSION, device, objects, self.memory(), state, call)

    def write_capture(self, path: str | os.PathLike[str], objects: ObjectSet,
                      signature: WorkListSignature | SignatureArray | None = None, *,
                      state: CommandListState | None = None, device: Any = None) -> Path:
        """Write :meth:`to_capture` with :func:`d3d12wl.capture.file.save_capture`; returns the path written.
        Every argument is checked before a byte is written, and save_capture writes each file atomically: a
        failure leaves no capture behind (neither the JSON nor a region's ``.bin``)."""
        from d3d12wl.capture.file import save_capture

        return save_capture(self.to_capture(objects, signature, state=state, device=device), path)


_DIRECT_BIND_NO_VALIDATION = (
    "a validation program table was built, but a direct bind of {name!r} (D3D12_SET_WORK_LIST_DESC) has no "
    "ValidationProgramTable field and runs no validators: bind a signature array (D3D12_SET_WORK_LIST_DESC1, Tier 2; "
    "an array of one signature for a single-signature setup)")


def _named(value: Any, collection: Mapping[str, Any], kind: type, what: str, where: str) -> Any:
    """``value`` as an object of ``kind``: the object itself (one of ``collection`` when it is known) or the name of
    one in ``collection``; anything else is a :class:`PackError` naming ``where``."""
    if isinstance(value, str):
        if value in collection:
            return collection[value]
        known = ", ".join(sorted(collection)) or "none"
        raise PackError(f"{value!r} names no {what} of the objects (known: {known})", where=where)
    if not isinstance(value, kind):
        raise PackError(f"{where} must be a {kind.__name__} or the name of one, not {type(value).__name__}",
                        where=where)
    return value


def _signature_argument(signature: Any, objects: ObjectSet | None) -> WorkListSignature | SignatureArray | None:
    """The ``signature`` argument: None, a work list signature or signature array, or the name of one in
    ``objects``."""
    if signature is None or isinstance(signature, WorkListSignature | SignatureArray):
        return signature
    if isinstance(signature, str):
        if objects is None:
            raise PackError(f"signature {signature!r} is a name, but no objects were given to resolve it "
                            "(pass objects= to build_work_list or here, or the signature object)", where="signature")
        both = {**objects.work_list_signatures, **objects.work_list_signature_arrays}
        return _named(signature, both, WorkListSignature, "work list signature or signature array", "signature")
    raise PackError(f"signature must be a WorkListSignature, a WorkListSignatureArray or the name of one, not "
                    f"{type(signature).__name__}", where="signature")


def _check_members(value: Any, kind: type, where: str, key_range: range | None = None) -> None:
    if not isinstance(value, dict):
        raise PackError(f"{where} must be a dict of {kind.__name__}, not {type(value).__name__}", where=where)
    for key, item in value.items():
        if not isinstance(key, int) or isinstance(key, bool) or (key_range is not None and key not in key_range):
            span = f" in {key_range.start}..{key_range.stop - 1}" if key_range is not None else ""
            raise PackError(f"{where} is keyed by int{span}, not {key!r}", where=f"{where}[{key!r}]")
        if not isinstance(item, kind):
            raise PackError(f"{where}[{key}] must be a {kind.__name__}, not {type(item).__name__}",
                            where=f"{where}[{key}]")


def check_state(state: CommandListState, objects: ObjectSet | None) -> CommandListState:
    """``state`` with root-signature names resolved against ``objects``, every member of its type: a
    :class:`PackError` naming the member otherwise, before anything is written.  With ``objects`` a root signature
    object must be one of them (a capture refers to it by name)."""
    resolved: dict[str, Any] = {}
    for key in ("graphics_root_signature", "compute_root_signature"):
        value = getattr(state, key)
        if value is None:
            continue
        if isinstance(value, str) and objects is None:
            raise PackError(f"{key}={value!r} is a name, but no objects were given to resolve it (pass objects= "
                            "to build_work_list or command_list_state, or the RootSignature object)", where=key)
        known = objects.root_signatures if objects is not None else {}
        rs = _named(value, known, RootSignature, "root signature", key)
        if objects is not None and all(rs is not o and rs != o for o in known.values()):
            raise PackError(f"root signature {rs.name!r} is not among the objects (a capture names it)", where=key)
        resolved[key] = rs
    if state.program is not None and not isinstance(state.program, SetProgramDesc):
        raise PackError(f"program must be a SetProgramDesc, not {type(state.program).__name__}", where="program")
    slots = range(abi.constant("D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT"))
    _check_members(state.graphics_root_arguments, RootArgument, "graphics_root_arguments")
    _check_members(state.compute_root_arguments, RootArgument, "compute_root_arguments")
    _check_members(state.vertex_buffers, VertexBufferView, "vertex_buffers", slots)
    if state.index_buffer is not None and not isinstance(state.index_buffer, IndexBufferView):
        raise PackError(f"index_buffer must be an IndexBufferView or None, not {type(state.index_buffer).__name__}",
                        where="index_buffer")
    if not isinstance(state.descriptor_heaps, DescriptorHeaps):
        raise PackError(f"descriptor_heaps must be a DescriptorHeaps, not {type(state.descriptor_heaps).__name__}",
                        where="descriptor_heaps")
    return dataclasses.replace(state, **resolved)


def _binding_type(name: str) -> int:
    return abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", name)


def _program_type(name: str) -> int:
    return abi.enum_value("D3D12_PROGRAM_TYPE", name)


def _empty_binding() -> WorkListBinding:
    return WorkListBinding(_binding_type("PROGRAM_TABLE"), ProgramTableBinding())


def _signature_class(wls: WorkListSignature) -> ExecutableClass:
    """A work list signature's executable class (its PCSes share one, rule 20 / "Uniformity constraints")."""
    if not wls.pProgramCommandSignatures:
        raise PackError(f"work list signature {wls.name!r} has no program command signature",
                        rule="D3D12_WORK_LIST_SIGNATURE_DESC")
    return pcs_layout(wls.pProgramCommandSignatures[0]).executable_class


def _check_classes(signatures: Sequence[WorkListSignature], bindings: Sequence[WorkListBinding]) -> None:
    """Rule 17: each binding's Type matches its signature's class (PROGRAM_TABLE for graphics and compute,
    RAYTRACING for raytracing)."""
    for i, (wls, binding) in enumerate(zip(signatures, bindings)):
        raytracing = _signature_class(wls) is ExecutableClass.RAYTRACING
        if raytracing != (binding.Type == _binding_type("RAYTRACING")):
            want = "a raytracing binding" if raytracing else "a program table"
            raise PackError(f"signature index {i} ({wls.name!r}) is {_signature_class(wls).value.lower()}-class and "
                            f"pairs with {want}", where=f"bindings[{i}]", rule="rule 17")


def _secondary_addresses(spec: DispatchListSpec, layout: PCSLayout, n_primary: int, va: int,
                         stride: int) -> tuple[np.ndarray, np.ndarray]:
    """(NumSecondaryRecords, SecondaryRecords) for each primary record of a list with contiguous secondaries."""
    where = f"dispatch list of {layout.name!r}"
    if spec.secondary_counts is None:
        raise PackError("secondary records given without secondary_counts (how many belong to each primary record)",
                        where=where)
    counts = np.asarray(spec.secondary_counts)
    if counts.size == 0:
        counts = counts.astype(np.uint32)
    if counts.shape != (n_primary,):
        raise PackError(f"secondary_counts has shape {counts.shape}, expected ({n_primary},) (one per primary record)",
                        where=where)
    if counts.dtype.kind not in "ui" or (counts.size and (counts.min() < 0 or counts.max() > 0xFFFFFFFF)):
        raise PackError("secondary_counts must be UINT32 values", where=where)
    if stride == 0:  # broadcast: one physical record per primary record
        step = record_layout(layout, SECONDARY).min_stride
        addresses = va + np.arange(n_primary, dtype=np.uint64) * np.uint64(step)
    else:
        first = np.zeros(n_primary, dtype=np.uint64)
        np.cumsum(counts[:-1], out=first[1:])
        addresses = np.uint64(va) + first * np.uint64(stride)
    return counts.astype(np.uint32, copy=False), addresses


def build_work_list(lists: Sequence[DispatchListSpec], *, base_va: int, program_table: ProgramTableSpec | None = None,
                    tier: int = 1, align: int = VA_ALIGN, bindings: Sequence[BindingSpec] | None = None,
                    signature: WorkListSignature | SignatureArray | None = None,
                    objects: ObjectSet | None = None,
                    validation_table: ValidationTableSpec | None = None) -> BuiltWorkList:
    """Pack and place every part of a work list in one buffer starting at ``base_va``.

    Order: dispatch list input(s), program table(s) (in signature-index order), the validation program table, then
    for each list its primary list and secondary list.  Each part starts at a VA that is a multiple of ``align`` (at least 8, a power of two).
    Tier 1 takes exactly one list; tier 2 chains the lists in order.

    ``program_table``: one table, paired with every signature.  ``bindings`` (instead): one :data:`BindingSpec` per
    signature index (``D3D12_SET_WORK_LIST_DESC1::pBindings``; exactly one for a direct bind or tier 1), each
    program table placed with its own stride and slot count (the same :class:`ProgramTableSpec` at several indices
    is placed once).  Each list's binding must match its PCS's class (rule 17).  ``signature``: the work list
    signature or signature array SetProgram binds; with it the bindings are checked against its signatures (count,
    class, each list's PCS in the signature it selects) and :meth:`BuiltWorkList.set_program_desc` needs no
    argument.  ``objects``: with it, each table's stride is checked against the program-table layout of every
    program whose identifier it holds (rule 6).  ``validation_table``: a :class:`ValidationTableSpec` to place
    (Tier 2 array bind only: an error with tier 1 or a work list ``signature``); with ``signature`` every non-zero
    validation index field of its signatures and their program command signatures must name a filled slot below
    SlotCount."""
    if tier not in (1, 2):
        raise PackError(f"tier must be 1 or 2, not {tier}")
    if align < VA_ALIGN or align & (align - 1):
        raise PackError(f"align must be a power of two >= {VA_ALIGN}, not {align}")
    if base_va % VA_ALIGN:
        raise PackError(f"base VA 0x{base_va:x} is not {VA_ALIGN}-byte aligned", rule="DispatchList")
    if not lists:
        raise PackError("a work list needs at least one dispatch list")
    if tier == 1 and len(lists) != 1:
        raise PackError(f"tier 1 executes exactly one list (D3D12_DISPATCH_LIST_INPUT has no NextDispatchList), "
                        f"{len(lists)} given", rule="Dispatch List Continuations")

    cursor = base_va
    parts: list[Part] = []

    def place(size: int) -> int:
        nonlocal cursor
        va = round_up(cursor, align)
        cursor = va + size
        return va

    input_name = "D3D12_DISPATCH_LIST_INPUT" if tier == 1 else "D3D12_DISPATCH_LIST_INPUT1"
    input_size = abi.sizeof(input_name)
    input_vas = [place(input_size) for _ in lists]
    blocks: list[tuple[int, np.ndarray]] = []

    table_part: Part | None = None
    slot_count = 0
    built_bindings: list[WorkListBinding] = []
    table_parts: list[Part | None] = []
    if program_table is not None:
        if bindings is not None:
            raise PackError("give one program table for every signature (program_table) or one binding per signature "
                            "index (bindings), not both")
        table, table_part, slot_count = _place_table(program_table, "program table", "program_table", objects, place)
        blocks.append((table_part.va, table))
        built_bindings.append(_table_binding(table_part, slot_count))
        table_parts.append(table_part)
    elif bindings is not None:
        _check_bindings(lists, bindings, tier, signature)
        placed: dict[int, tuple[Part, int]] = {}
        for i, wanted in enumerate(bindings):
            if isinstance(wanted, RaytracingBinding):
                built_bindings.append(WorkListBinding(_binding_type("RAYTRACING"), pRaytracing=wanted))
                table_parts.append(None)
            elif wanted is None:
                built_bindings.append(_empty_binding())
                table_parts.append(None)
            else:
                if id(wanted) not in placed:
                    table, part, count = _place_table(wanted, f"program table {i}",
                                                      f"bindings[{i}] (SignatureIndex {i})", objects, place)
                    blocks.append((part.va, table))
                    placed[id(wanted)] = part, count
                part, count = placed[id(wanted)]
                built_bindings.append(_table_binding(part, count))
                table_parts.append(part)
        head = 0 if tier == 1 else lists[0].signature_index
        table_part = table_parts[head]
        slot_count = built_bindings[head].ProgramTable.SlotCount if table_part is not None else 0

    validation_part: Part | None = None
    validation_binding = ProgramTableBinding()
    if validation_table is not None:
        _check_validation_bind(tier, signature)
        vt, validation_part, vt_slots = _pack_validation_table(validation_table, place)
        blocks.append((validation_part.va, vt))
        validation_binding = ProgramTableBinding(GpuVirtualAddressRangeAndStride(
            validation_part.va, validation_part.size, validation_part.stride), vt_slots)
        if isinstance(signature, SignatureArray):
            _check_validation_indices(signature, vt, validation_part.stride, vt_slots)

    primary_parts: list[Part] = []
    secondary_parts: list[Part | None] = []
    graphics: list[bool] = []
    for i, spec in enumerate(lists):
        layout = spec.layout
        rec = layout.primary
        stride = resolve_stride(rec, spec.primary_stride)
        n = count_records(rec, spec.primary)
        primary_va = place(n * stride)
        sec_part: Part | None = None
        primary_data: RecordData = spec.primary
        if spec.secondary is not None:
            if layout.secondary is None:
                raise PackError(f"signature {layout.name!r} has no SOURCE_SECONDARY_RECORD args, so no secondary "
                                f"records", where=f"lists[{i}]", rule="Primary record layout")
            sec_stride = resolve_stride(layout.secondary, layout.pcs.SecondaryRecordByteStride)
            n_sec = count_records(layout.secondary, spec.secondary)
            step = sec_stride or layout.secondary.min_stride
            if sec_stride == 0 and n_sec != n:
                raise PackError(f"with the broadcast secondary stride each primary record has one secondary record: "
                                f"{n} primary, {n_sec} secondary", where=f"lists[{i}]", rule="Stride derivation")
            sec_va = place(n_sec * step)
            counts, addresses = _secondary_addresses(spec, layout, n, sec_va, sec_stride)
            if sec_stride and int(counts.sum(dtype=np.uint64)) != n_sec:
                raise PackError(f"secondary_counts sum to {int(counts.sum())}, but {n_sec} secondary records are given",
                                where=f"lists[{i}]")
            columns = column_views(spec.primary)
            for key in ("NumSecondaryRecords", "SecondaryRecords"):
                if key in columns:
                    raise PackError(f"column {key!r} is written by the builder from secondary_counts; leave it out",
                                    where=f"lists[{i}]")
            columns["NumSecondaryRecords"] = counts
            columns["SecondaryRecords"] = addresses
            primary_data = columns
            if sec_stride == 0:
                secondary = _pack_broadcast(layout, spec)
            else:
                secondary = pack_secondary_records(layout.secondary, spec.secondary, stride=sec_stride)
            sec_part = Part(f"secondary list {i}", sec_va, secondary.nbytes, sec_stride, n_sec)
            blocks.append((sec_va, secondary))
        primary = pack_primary_records(rec, primary_data, stride=stride)
        primary_parts.append(Part(f"primary list {i}", primary_va, primary.nbytes, stride, n))
        secondary_parts.append(sec_part)
        graphics.append(layout.executable_class is ExecutableClass.GRAPHICS)
        blocks.append((primary_va, primary))

    continuation = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    inputs: Columns = {
        "NumProgramInputs": np.array([p.count for p in primary_parts], dtype=np.uint64),
        "Flags": np.array([s.flags | (continuation if tier == 2 and i + 1 < len(lists) else 0)
                           for i, s in enumerate(lists)], dtype=np.uint64),
        "ProgramInputs.StartAddress": np.array([p.va for p in primary_parts], dtype=np.uint64),
        "ProgramInputs.StrideInBytes": np.array([p.stride for p in primary_parts], dtype=np.uint64),
    }
    if tier == 2:
        inputs = {**inputs,
                  "SignatureIndex": np.array([s.signature_index for s in lists], dtype=np.uint64),
                  "NextDispatchList": np.array(input_vas[1:] + [0], dtype=np.uint64)}
    packed_inputs = pack_dispatch_list_inputs(inputs, tier=tier)
    for i, va in enumerate(input_vas):
        parts.append(Part(f"{input_name} {i}", va, input_size))
        blocks.append((va, packed_inputs[i * input_size:(i + 1) * input_size]))
    parts.extend({id(t): t for t in table_parts if t is not None}.values())
    if validation_part is not None:
        parts.append(validation_part)
    for p, s in zip(primary_parts, secondary_parts):
        parts.append(p)
        if s is not None:
            parts.append(s)

    data = np.zeros(cursor - base_va, dtype=np.uint8)
    for va, block in blocks:
        data[va - base_va:va - base_va + block.nbytes] = block
    return BuiltWorkList(base_va, data, tier, tuple(sorted(parts, key=lambda p: p.va)), tuple(input_vas),
                         tuple(primary_parts), tuple(secondary_parts), table_part, slot_count, tuple(graphics),
                         bindings=tuple(built_bindings), program_tables=tuple(table_parts),
                         shared_binding=bindings is None, signature_indices=tuple(s.signature_index for s in lists),
                         signature=signature, validation_table=validation_part,
                         validation_binding=validation_binding,
                         signature_selection_index=validation_table.signature_selection_index
                         if validation_table is not None else 0, objects=objects)


_VALIDATION_BIND = "Binding the validation program table"
_VALIDATION_TABLE = "Validation program table"


def _check_validation_bind(tier: int, signature: WorkListSignature | SignatureArray | None) -> None:
    """Only D3D12_SET_WORK_LIST_DESC1 (the Tier 2 array bind) carries a ValidationProgramTable."""
    if tier == 1:
        raise PackError("a validation program table binds only through the array bind (D3D12_SET_WORK_LIST_DESC1), "
                        "which is Tier 2 only; tier 1 binds directly (D3D12_SET_WORK_LIST_DESC, no "
                        "ValidationProgramTable field) and runs no validators", where="validation_table",
                        rule=_VALIDATION_BIND)
    if isinstance(signature, WorkListSignature):
        raise PackError(_DIRECT_BIND_NO_VALIDATION.format(name=signature.name), where="validation_table",
                        rule=_VALIDATION_BIND)


def _identifier_bytes(value: Any, slot: int) -> bytes | None:
    """A slot's 32-byte program identifier: bytes-like, or an object with an ``identifier`` (a Validator)."""
    if value is None:
        return None
    raw = getattr(value, "identifier", value)
    try:
        if isinstance(raw, int | str):  # bytes(7) would be seven zero bytes, bytes("x") a TypeError
            raise TypeError
        ident = bytes(raw)
    except TypeError:
        raise PackError(f"slot {slot} is {type(value).__name__}, not a program identifier, a Validator or None",
                        where=f"validation_table.validators[{slot}]", rule=_VALIDATION_TABLE) from None
    size = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
    if len(ident) != size:
        raise PackError(f"slot {slot}: a D3D12_PROGRAM_IDENTIFIER is {size} bytes, got {len(ident)}",
                        where=f"validation_table.validators[{slot}]", rule=_VALIDATION_TABLE)
    return ident


def _pack_validation_table(spec: ValidationTableSpec, place: Callable[[int], int]) -> tuple[np.ndarray, Part, int]:
    """Pack and place the validation program table: (bytes, part, SlotCount).  Slot 0 stays the zero sentinel;
    the stride follows the program-table rules (multiple of 8, at least one identifier, at most the maximum)."""
    where = "validation_table"
    size = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
    ids = [_identifier_bytes(v, i) for i, v in enumerate(spec.validators)]
    if not ids:
        raise PackError("a validation program table needs at least slot 0 (the \"no validator\" sentinel); leave "
                        "validation_table out for no validation (StartAddress 0)", where=where, rule=_VALIDATION_TABLE)
    if ids[0] is not None and any(ids[0]):
        raise PackError("slot 0 is reserved as the \"no validator\" sentinel (an index field of 0 disables its "
                        "validator): give None there and the validators from slot 1", where=f"{where}.validators[0]",
                        rule=_VALIDATION_TABLE)
    stride = size if spec.stride is None else spec.stride
    limit = abi.constant("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE")
    if stride == 0:
        raise PackError("stride 0 (broadcast) would make every slot slot 0, the \"no validator\" sentinel; give a "
                        f"stride of at least {size}", where=where, rule=_VALIDATION_TABLE)
    if stride % VA_ALIGN or stride < size or stride > limit:
        raise PackError(f"stride {stride} must be a multiple of {VA_ALIGN}, at least one D3D12_PROGRAM_IDENTIFIER "
                        f"({size}) and at most D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE ({limit}), as for a program "
                        "table", where=where, rule="D3D12_WORK_LIST_PROGRAM_TABLE_BINDING")
    slot_count = len(ids) if spec.slot_count is None else spec.slot_count
    if slot_count < len(ids):
        raise PackError(f"slot_count {slot_count} leaves slots {slot_count}..{len(ids) - 1} of the {len(ids)} given "
                        "out of the table", where=where, rule=_VALIDATION_TABLE)
    index = spec.signature_selection_index
    if index and (not 0 < index < len(ids) or ids[index] is None):
        raise PackError(f"signature_selection_index {index} names no validator (SignatureSelectionValidation"
                        f"ProgramTableIndex must be 0 or a filled slot of the {len(ids)} given)", where=where,
                        rule="D3D12_SET_WORK_LIST_DESC1")
    table = np.zeros(slot_count * stride, dtype=np.uint8)
    for i, ident in enumerate(ids):
        if ident is not None:
            table[i * stride:i * stride + size] = np.frombuffer(ident, dtype=np.uint8)
    part = Part("validation program table", place(table.nbytes), table.nbytes, stride, len(ids))
    return table, part, slot_count


def _check_validation_indices(array: SignatureArray, table: np.ndarray, stride: int, slot_count: int) -> None:
    """Every non-zero validation index field of the bound array's signatures and of their program command
    signatures is interpreted against the validation table (spec "Binding the validation program table"): it must
    name a slot below SlotCount that holds a validator."""
    size = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
    fields: list[tuple[str, int]] = []
    for wls in array.pSignatures:
        fields.append((f"work list signature {wls.name!r} ListValidationProgramTableIndex",
                       wls.ListValidationProgramTableIndex))
        fields.extend((f"program command signature {pcs.name!r} RecordValidationProgramTableIndex",
                       pcs.RecordValidationProgramTableIndex) for pcs in wls.pProgramCommandSignatures)
    for what, index in fields:
        if index == 0:
            continue
        if index >= slot_count:
            raise PackError(f"{what} {index} >= the validation table's SlotCount {slot_count}",
                            where="validation_table", rule=_VALIDATION_BIND)
        if not table[index * stride:index * stride + size].any():
            raise PackError(f"{what} {index} names an empty slot of the validation table (no validator identifier)",
                            where="validation_table", rule=_VALIDATION_BIND)


def _table_binding(part: Part, slot_count: int) -> WorkListBinding:
    return WorkListBinding(_binding_type("PROGRAM_TABLE"), ProgramTableBinding(
        GpuVirtualAddressRangeAndStride(part.va, part.size, part.stride), slot_count))


def _place_table(spec: ProgramTableSpec, name: str, where: str, objects: ObjectSet | None,
                 place: Callable[[int], int]) -> tuple[np.ndarray, Part, int]:
    """Pack one program table (``where`` names it in errors), check its stride against the programs it holds, and
    place it: (bytes, part, SlotCount)."""
    try:
        table = pack_program_table(spec.layout, spec.slots, stride=spec.stride)
        rows = count_records(record_layout(spec.layout, PROGRAM_TABLE), spec.slots)
    except PackError as exc:
        raise PackError(exc.message, where=f"{where}: {exc.where}" if exc.where else where, rule=exc.rule) from exc
    table_stride = table.nbytes // max(rows, 1) if spec.stride is None else spec.stride
    slot_count = rows if spec.slot_count is None else spec.slot_count
    if objects is not None:
        _check_programs(table, rows, table_stride or table.nbytes, where, objects)
    if table_stride and slot_count > rows:
        # Table.SizeInBytes must be at least SlotCount * StrideInBytes (spec
        # D3D12_WORK_LIST_PROGRAM_TABLE_BINDING); the slots past the given rows are zero
        table = np.concatenate([table, np.zeros((slot_count - rows) * table_stride, dtype=np.uint8)])
    return table, Part(name, place(table.nbytes), table.nbytes, table_stride, rows), slot_count


def _check_programs(table: np.ndarray, rows: int, slot_bytes: int, where: str, objects: ObjectSet) -> None:
    """Rule 6 / "Program table slot layout": every program whose identifier a slot holds fits the slot (its
    32-byte identifier plus its program-table local-root-argument tail); a raytracing-class program has no slot."""
    size = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
    by_id = {bytes(p.Identifier): p for p in objects.programs.values()}
    step = slot_bytes if rows > 1 else 0
    for row in range(rows):
        program = by_id.get(table[row * step:row * step + size].tobytes())
        if program is None:
            continue  # not a program of ``objects``: only the GPU-timeline check can size it
        record = program_table_layout(program)
        if record is None:
            raise PackError(f"slot {row} holds raytracing-class program {program.name!r}, which has no program-table "
                            "slot (raytracing-class programs are reached through shader tables)", where=where,
                            rule="rule 6")
        if record.min_stride > slot_bytes:
            raise PackError(f"slot {row} holds program {program.name!r}, which needs {record.min_stride} bytes per "
                            f"slot ({size}-byte identifier + {record.tail_size}-byte local root argument tail), above "
                            f"the stride {slot_bytes}", where=where, rule="rule 6")


def _check_bindings(lists: Sequence[DispatchListSpec], bindings: Sequence[BindingSpec], tier: int,
                    signature: WorkListSignature | SignatureArray | None) -> None:
    """The shape of per-signature bindings: one per signature of the bound array (one for a direct bind or tier 1),
    each list's SignatureIndex in range, and each binding's kind matching the class of the PCS (rule 17) and of the
    signature that index selects."""
    if not bindings:
        raise PackError("bindings needs at least one binding (one per signature index)",
                        rule="D3D12_SET_WORK_LIST_DESC1")
    for i, given in enumerate(bindings):
        if given is not None and not isinstance(given, ProgramTableSpec | RaytracingBinding):
            raise PackError(f"a binding is a ProgramTableSpec, a RaytracingBinding or None, not "
                            f"{type(given).__name__}", where=f"bindings[{i}]")
        if isinstance(given, RaytracingBinding) and not isinstance(given.pRaytracingStateObject, str):
            raise PackError(f"pRaytracingStateObject is the RTPSO's name (a str), not "
                            f"{type(given.pRaytracingStateObject).__name__}",
                            where=f"bindings[{i}].pRaytracingStateObject")
    direct = tier == 1 or isinstance(signature, WorkListSignature)
    if direct and len(bindings) != 1:
        raise PackError(f"a direct bind (D3D12_SET_WORK_LIST_DESC) pairs one signature with one binding, "
                        f"{len(bindings)} given", rule="Binding via SetProgram")
    signatures: Sequence[WorkListSignature] | None = None
    if isinstance(signature, SignatureArray):
        if tier == 1:
            raise PackError("the array bind (D3D12_SET_WORK_LIST_DESC1) is Tier 2 only", rule="Binding via SetProgram")
        signatures = signature.pSignatures
        if len(bindings) != len(signatures):
            raise PackError(f"NumBindings ({len(bindings)}) must equal pSignatureArray->NumSignatures "
                            f"({len(signatures)}) of {signature.name!r}", rule="D3D12_SET_WORK_LIST_DESC1")
    elif signature is not None:
        signatures = [signature]
    if signatures is not None:
        for i, (wls, given) in enumerate(zip(signatures, bindings)):
            cls = _signature_class(wls)
            if given is not None and (cls is ExecutableClass.RAYTRACING) != isinstance(given, RaytracingBinding):
                want = "a RaytracingBinding" if cls is ExecutableClass.RAYTRACING else "a program table"
                raise PackError(f"signature index {i} ({wls.name!r}) is {cls.value.lower()}-class and pairs with "
                                f"{want}", where=f"bindings[{i}]", rule="rule 17")
    for n, spec in enumerate(lists):
        index = 0 if tier == 1 else spec.signature_index
        if not 0 <= index < len(bindings):
            raise PackError(f"SignatureIndex {index} is out of range for {len(bindings)} binding(s)",
                            where=f"lists[{n}]", rule="Signature Selection")
        layout = spec.layout
        if signatures is not None and all(p is not layout.pcs for p in signatures[index].pProgramCommandSignatures):
            raise PackError(f"program command signature {layout.name!r} is not in signature index {index} "
                            f"({signatures[index].name!r})", where=f"lists[{n}]", rule="Signature Selection")
        binding = bindings[index]
        raytracing = layout.executable_class is ExecutableClass.RAYTRACING
        if binding is not None and raytracing != isinstance(binding, RaytracingBinding):
            want = "a RaytracingBinding" if raytracing else "a program table"
            raise PackError(f"{layout.name!r} is {layout.executable_class.value.lower()}-class, so signature index "
                            f"{index} pairs with {want}", where=f"lists[{n}]", rule="rule 17")



def _pack_broadcast(layout: PCSLayout, spec: DispatchListSpec) -> np.ndarray:
    """Broadcast secondary lists, one physical record each, placed ``min_stride`` apart (vectorized)."""
    assert layout.secondary is not None and spec.secondary is not None
    return pack_secondary_records(layout.secondary, spec.secondary, stride=layout.secondary.min_stride)
