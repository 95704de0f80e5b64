"""The layout calculator: the one source of truth for the bytes of every record class.

Spec sections implemented here: "Primary record layout", "Record byte layouts" ("Per-arg natural alignment",
"Stride derivation"), "Program table slot layout", "Program table record layout", "Local root signatures"
("Storage of local root arguments"), and for ExecuteIndirect IndirectDrawing.md "Command signature Creation"
(tightly packed arguments, ByteStride a multiple of 4).

Every consumer (construct schemas, numpy dtypes, C/HLSL codegen, packers, the executor) derives its view of a
record from a :class:`RecordLayout`; none computes an offset of its own.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from functools import cache

from d3d12wl import abi
from d3d12wl.errors import LayoutError
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.fieldnames import IDENTIFIER_FIELD as IDENTIFIER_FIELD
from d3d12wl.model.fieldnames import INLINE_RAYTRACING_RECORD as INLINE_RAYTRACING_RECORD
from d3d12wl.model.fieldnames import PRIMARY_HEADER as PRIMARY_HEADER
from d3d12wl.model.fieldnames import (
    check_names,
    field_name,
    local_name,
)
from d3d12wl.model.objects import (
    CommandSignature,
    IndirectArgumentDesc,
    ObjectSet,
    Program,
    ProgramCommandSignature,
    RecordKind,
    RootSignature,
    WorkListArgumentDesc,
    WorkListSignature,
    WorkListSignatureArray,
)
from d3d12wl.records._frozen import frozen
from d3d12wl.records.payloads import Payload, executable_class_of, payload_with, root_parameter_payload

#: Record kinds
PRIMARY = "primary"
SECONDARY = "secondary"
PROGRAM_TABLE = "program_table"
COMMAND = "command"

#: Work Lists GPU-resident addresses and strides are 8-byte aligned: DispatchListInput and NextDispatchList,
#: ProgramInputs.StartAddress / StrideInBytes, SecondaryRecords, SecondaryRecordByteStride, a program table's
#: Table.StartAddress / StrideInBytes (spec API sections), and every minimum stride rounds up to it (spec "Stride
#: derivation").  ExecuteIndirect's ByteStride is a multiple of 4 (IndirectDrawing.md "Validation").
WL_ALIGN = 8
WL_STRIDE_ALIGN = WL_ALIGN
EI_STRIDE_ALIGN = 4
#: ExecuteIndirect's buffers: "CountBufferOffset and ArgumentBufferOffset are 4-byte aligned" (IndirectDrawing.md
#: "Drawing", the core runtime's checks); "Every command sequence inside the argument buffer must align to a byte
#: boundary divisible by 4" (the ExecuteIndirect seed, "Alignment").
EI_BUFFER_ALIGN = EI_STRIDE_ALIGN

PROGRAM_IDENTIFIER = "D3D12_PROGRAM_IDENTIFIER"

#: Where the API holds each record class's stride: (C struct, member path).  The member's C type bounds the stride
#: (a UINT ``ByteStride`` or ``SecondaryRecordByteStride`` holds at most 2^32 - 1, a UINT64 ``StrideInBytes`` 2^64 -
#: 1), so no stride is accepted that the call could not be given.
STRIDE_MEMBERS = {
    PRIMARY: ("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes"),
    SECONDARY: ("D3D12_PROGRAM_COMMAND_SIGNATURE_DESC", "SecondaryRecordByteStride"),
    PROGRAM_TABLE: ("D3D12_WORK_LIST_PROGRAM_TABLE_BINDING", "Table.StrideInBytes"),
    COMMAND: ("D3D12_COMMAND_SIGNATURE_DESC", "ByteStride"),
}
#: the program table's stride cap (spec D3D12_WORK_LIST_PROGRAM_TABLE_BINDING: "at most
#: D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE")
PROGRAM_TABLE_MAX_STRIDE = "D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE"


@cache
def stride_limit(record: str) -> tuple[int, str]:
    """The largest stride a record class can be read at, and what sets it (its stride member's C type; for a program
    table, ``D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE``)."""
    struct, member = STRIDE_MEMBERS[record]
    f = abi.default.field(struct, member)
    limit, why = (1 << (8 * f.size)) - 1, f"{struct}::{member} is {f.type}"
    if record == PROGRAM_TABLE:
        cap = abi.constant(PROGRAM_TABLE_MAX_STRIDE)
        if cap < limit:
            limit, why = cap, PROGRAM_TABLE_MAX_STRIDE
    return limit, why

#: what is shown in hex (``d3d12wl decode``, ``codegen --lang renderdoc``): values of these C types (GPU virtual
#: addresses), every integer inside these structs (descriptor handles, the program identifier), pointers, and a
#: record's DWORD arrays (:attr:`RecordLayout.hex_dword_arrays`)
HEX_TYPES = frozenset({"D3D12_GPU_VIRTUAL_ADDRESS"})
HEX_STRUCTS = frozenset({"D3D12_GPU_DESCRIPTOR_HANDLE", "D3D12_CPU_DESCRIPTOR_HANDLE", PROGRAM_IDENTIFIER})

def round_up(value: int, align: int) -> int:
    return (value + align - 1) // align * align


@dataclass(frozen=True)
class LayoutField:
    """One run of bytes in a record.

    ``role``: ``'header'`` (a member of the fixed header struct), ``'identifier'`` (the program identifier of a
    program-table slot), ``'arg'`` (the payload of ``pArgumentDescs[arg]``), or ``'local'`` (an explicit-path
    local root argument not overridden per record, for root parameter ``parameter`` of the local root signature).
    ``ctype`` is the C type of the bytes, ``count`` > 1 for DWORD arrays (``UINT[count]``).  ``dword_offset`` is
    the first DWORD of a root-constants sub-range.  ``named``: ``name`` is the argument desc's ``Name`` (the user's),
    not a positional ``arg{i}_...``.
    """

    name: str
    offset: int
    size: int
    ctype: str
    role: str
    count: int = 1
    arg: int | None = None
    parameter: int | None = None
    source: str | None = None
    dword_offset: int | None = None
    arg_type: str | None = None
    named: bool = False

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True)
class Padding:
    offset: int
    size: int
    trailing: bool


@dataclass(frozen=True)
class RecordLayout:
    """The bytes of one record class.

    ``size`` is the end of the last byte used, measured from the record start (the header and, for a
    program-table record, the 32-byte identifier included); ``min_stride`` is what a stride must be at least.
    """

    record: str
    owner: str
    header: str | None
    header_size: int
    fields: tuple[LayoutField, ...]
    size: int
    min_stride: int
    stride_align: int
    broadcast_ok: bool
    #: the stride the description declares for this record class, when it declares one: a secondary record's
    #: ``SecondaryRecordByteStride`` (0: the broadcast form), an ExecuteIndirect command's non-zero ``ByteStride``
    declared_stride: int | None = None

    def field(self, name: str) -> LayoutField:
        for f in self.fields:
            if f.name == name:
                return f
        raise LayoutError(f"{self.record} record of {self.owner!r} has no field {name!r}; "
                          f"fields: {[f.name for f in self.fields]}")

    def arg_field(self, arg_index: int) -> LayoutField | None:
        for f in self.fields:
            if f.role == "arg" and f.arg == arg_index:
                return f
        return None

    @property
    def payload_fields(self) -> tuple[LayoutField, ...]:
        return tuple(f for f in self.fields if f.role in ("arg", "local"))

    @property
    def hex_dword_arrays(self) -> frozenset[str]:
        """The DWORD arrays of root constants and local root arguments (raw bits, shown in hex)."""
        return frozenset(f.name for f in self.payload_fields if f.count > 1)

    @property
    def tail_size(self) -> int:
        """Bytes after the fixed header (for a program-table record: the local-root-argument tail)."""
        return self.size - self.header_size

    def padding(self, stride: int | None = None) -> list[Padding]:
        """Holes between fields, and the trailing pad up to ``stride`` (default: ``min_stride``)."""
        holes: list[Padding] = []
        pos = 0
        for f in sorted(self.fields, key=lambda f: f.offset):
            if f.offset > pos:
                holes.append(Padding(pos, f.offset - pos, False))
            pos = max(pos, f.end)
        end = self.min_stride if stride is None or stride == 0 else stride
        if end > pos:
            holes.append(Padding(pos, end - pos, True))
        return holes

    def stride_problems(self, stride: int) -> list[str]:
        """Why ``stride`` cannot be used for this record (empty if it can).  Rule 25(e) / spec "Stride derivation"."""
        if stride == 0 and self.broadcast_ok:
            return []
        problems = []
        if stride < self.min_stride:
            problems.append(f"stride {stride} is below the minimum {self.min_stride} for the {self.record} record "
                            f"of {self.owner!r} ({self.size} bytes used)")
        if stride % self.stride_align:
            problems.append(f"stride {stride} is not a multiple of {self.stride_align}")
        limit, why = stride_limit(self.record)
        if stride > limit:
            problems.append(f"stride {stride} exceeds {limit} ({why})")
        return problems


class _Packer:
    """Places payloads one after another at their natural alignment (spec "Stride derivation")."""

    def __init__(self, start: int) -> None:
        self.pos = start
        self.fields: list[LayoutField] = []

    def place(self, name: str, payload: Payload, role: str, *, arg: int | None = None, parameter: int | None = None,
              source: str | None = None, dword_offset: int | None = None, arg_type: str | None = None,
              named: bool = False) -> None:
        align = payload.align
        offset = (self.pos + align - 1) // align * align  # round_up
        self.fields.append(_layout_field(name, offset, payload.size, payload.ctype, role, payload.count, arg,
                                         parameter, source, dword_offset, arg_type, named))
        self.pos = offset + payload.size


def _layout_field(name: str, offset: int, size: int, ctype: str, role: str, count: int, arg: int | None,
                  parameter: int | None, source: str | None, dword_offset: int | None, arg_type: str | None,
                  named: bool) -> LayoutField:
    """``LayoutField(name, offset, ..., named)``, made in one step (:func:`d3d12wl.records._frozen.frozen`: once
    per argument of a record)."""
    return frozen(LayoutField, {"name": name, "offset": offset, "size": size, "ctype": ctype, "role": role,
                                "count": count, "arg": arg, "parameter": parameter, "source": source,
                                "dword_offset": dword_offset, "arg_type": arg_type, "named": named})


def arg_field_name(index: int, arg: WorkListArgumentDesc | IndirectArgumentDesc) -> str:
    """Field name of ``pArgumentDescs[index]``'s payload: the desc's ``Name``, else
    ``arg{index}_{union member or trigger name}`` (:func:`d3d12wl.model.fieldnames.field_name`)."""
    return field_name(index, arg)


def _header_fields(header: str | None) -> tuple[list[LayoutField], int]:
    if header is None or header == INLINE_RAYTRACING_RECORD:
        return [], 0
    ti = abi.type_info(header)
    fields = [LayoutField(f.name, f.offset, f.size, f.type, "header") for f in ti.fields]
    return fields, ti.size


def _finish(record: str, owner: str, header: str | None, header_size: int, fields: list[LayoutField],
            align: int, broadcast_ok: bool) -> RecordLayout:
    size = max([header_size, *(f.end for f in fields)])
    return RecordLayout(record, owner, header, header_size, tuple(fields), size, round_up(size, align), align,
                        broadcast_ok)


def _record(record: str, owner: str, header: str | None, args: list[WorkListArgumentDesc], source: str,
            broadcast_ok: bool) -> RecordLayout:
    header_fields, header_size = _header_fields(header)
    packer = _Packer(header_size)
    for i, arg in enumerate(args):
        if arg.source_name != source:
            continue
        type_name = arg.type_name
        info = arg_type_info(type_name)
        payload = payload_with(arg, info)
        if payload is None:
            continue
        packer.place(field_name(i, arg, info), payload, "arg", arg=i, source=source, arg_type=type_name,
                     dword_offset=_dword_offset(arg, type_name), named=arg.Name is not None)
    return _finish(record, owner, header, header_size, header_fields + packer.fields, WL_STRIDE_ALIGN, broadcast_ok)


def _dword_offset(arg: WorkListArgumentDesc, name: str) -> int | None:
    """The first root-constant DWORD an argument of type ``name`` (its ``type_name``) writes, or None."""
    if name == "CONSTANT":
        return arg.Constant.DestOffsetIn32BitValues
    if name == "INLINE_ROOT_PARAMETER" and arg.InlineRootParameter.RootParameter.parameter_type_name == "32BIT_CONSTANTS":
        return arg.InlineRootParameter.DestOffsetIn32BitValues
    return None


def _program_table_header() -> tuple[list[LayoutField], int]:
    size = abi.sizeof(PROGRAM_IDENTIFIER)
    return [LayoutField(IDENTIFIER_FIELD, 0, size, PROGRAM_IDENTIFIER, "identifier")], size


def inline_local_slots(args: list[WorkListArgumentDesc]) -> list[list[int]]:
    """The synthesized local root signature's root-parameter slots, in first-appearance order (spec "Record byte
    layouts"), each as the list of ``_INLINE_ROOT_PARAMETER`` arg indices that target it.  A slot is identified by
    ShaderRegister + RegisterSpace + ParameterType (spec "_INLINE_ROOT_PARAMETER")."""
    slots: dict[tuple[int, int, int], list[int]] = {}
    for i, arg in enumerate(args):
        if arg.type_name != "INLINE_ROOT_PARAMETER":
            continue
        rp = arg.InlineRootParameter.RootParameter
        reg = rp.Constants if rp.parameter_type_name == "32BIT_CONSTANTS" else rp.Descriptor
        if rp.parameter_type_name == "DESCRIPTOR_TABLE":
            ranges = rp.DescriptorTable.pDescriptorRanges
            key_reg = (ranges[0].BaseShaderRegister, ranges[0].RegisterSpace) if ranges else (0, 0)
        else:
            key_reg = (reg.ShaderRegister, reg.RegisterSpace)
        slots.setdefault((*key_reg, rp.ParameterType), []).append(i)
    return list(slots.values())


def _implicit_tail(owner: str, args: list[WorkListArgumentDesc]) -> RecordLayout:
    """Implicit path: the program-table tail holds exactly the DWORDs / slots sourced ``_PROGRAM_TABLE_RECORD``,
    in synthesized-slot order (spec "_INLINE_ROOT_PARAMETER", "Program table record layout")."""
    header_fields, header_size = _program_table_header()
    packer = _Packer(header_size)
    for slot, arg_indices in enumerate(inline_local_slots(args)):
        for i in arg_indices:
            arg = args[i]
            if arg.source_name != "PROGRAM_TABLE_RECORD":
                continue
            type_name = arg.type_name
            info = arg_type_info(type_name)
            payload = payload_with(arg, info)
            if payload is not None:
                packer.place(field_name(i, arg, info), payload, "arg", arg=i, parameter=slot,
                             source="PROGRAM_TABLE_RECORD", arg_type=type_name,
                             dword_offset=_dword_offset(arg, type_name), named=arg.Name is not None)
    return _finish(PROGRAM_TABLE, owner, PROGRAM_IDENTIFIER, header_size, header_fields + packer.fields,
                   WL_STRIDE_ALIGN, True)


def _overridden(args: list[WorkListArgumentDesc], parameter: int) -> tuple[bool, set[int]]:
    """(whole slot overridden, overridden DWORDs) of local root parameter ``parameter`` by per-record args."""
    whole = False
    dwords: set[int] = set()
    for arg in args:
        if arg.binding_name != "LOCAL_ROOT_SIGNATURE" or arg.root_parameter_index != parameter:
            continue
        name = arg.type_name
        if name == "CONSTANT":
            start = arg.Constant.DestOffsetIn32BitValues
            dwords.update(range(start, start + arg.Constant.Num32BitValuesToSet))
        elif name == "INCREMENTING_CONSTANT":
            dwords.add(arg.IncrementingConstant.DestOffsetIn32BitValues)
        else:
            whole = True
    return whole, dwords


def _runs(values: Iterable[int]) -> Iterator[tuple[int, int]]:
    """Contiguous runs ``(start, length)`` of sorted integers."""
    run: list[int] = []
    for v in sorted(values):
        if run and v != run[-1] + 1:
            yield run[0], len(run)
            run = []
        run.append(v)
    if run:
        yield run[0], len(run)


def _explicit_tail(owner: str, args: list[WorkListArgumentDesc], lrs: RootSignature) -> RecordLayout:
    """Explicit path: the local root signature's slots in declared order, minus what the PCS overrides per
    record, packed with no holes for overridden slots (spec "Storage of local root arguments", rule 6)."""
    header_fields, header_size = _program_table_header()
    packer = _Packer(header_size)
    for p, param in enumerate(lrs.pParameters):
        whole, dwords = _overridden(args, p)
        if whole:
            continue
        kind = param.parameter_type_name
        if kind == "32BIT_CONSTANTS":
            remaining = set(range(param.Constants.Num32BitValues)) - dwords
            for start, length in _runs(remaining):
                payload = root_parameter_payload(kind, length)
                assert payload is not None
                name = local_name(p, None if length == param.Constants.Num32BitValues else start)
                packer.place(name, payload, "local", parameter=p, dword_offset=start)
        else:
            payload = root_parameter_payload(kind, 0)
            assert payload is not None
            packer.place(local_name(p), payload, "local", parameter=p)
    return _finish(PROGRAM_TABLE, owner, PROGRAM_IDENTIFIER, header_size, header_fields + packer.fields,
                   WL_STRIDE_ALIGN, True)


def uses_inline_local_root_signature(pcs: ProgramCommandSignature) -> bool:
    return any(a.type_name in ("INLINE_ROOT_PARAMETER", "INLINE_STATIC_SAMPLER") for a in pcs.pArgumentDescs)


@dataclass(frozen=True)
class PCSLayout:
    """Every record layout a program command signature implies."""

    pcs: ProgramCommandSignature
    executable_class: ExecutableClass
    record_kind: RecordKind
    primary: RecordLayout
    secondary: RecordLayout | None
    program_table: RecordLayout | None

    @property
    def name(self) -> str:
        return self.pcs.name


def pcs_layout(pcs: ProgramCommandSignature) -> PCSLayout:
    """Layouts of ``pcs``'s primary, secondary and (implicit-path) program-table records.

    Raises :class:`LayoutError` when the signature has no dispatch trigger (no executable class, so no header).
    Within :func:`laying_out_once`, each signature is laid out once.
    """
    memo = _ONCE.get()
    return _pcs_layout(pcs) if memo is None else memo.pcs(pcs)


def _check_names(args: list[WorkListArgumentDesc] | list[IndirectArgumentDesc], where: str) -> None:
    """A ``Name`` the description loader would refuse (objects made in Python do not pass through it) is a
    :class:`LayoutError` here, before any view spells it."""
    if any(a.Name is not None for a in args):
        for path, message in check_names(args, where):
            raise LayoutError(message, where=path)


def _pcs_layout(pcs: ProgramCommandSignature) -> PCSLayout:
    args = pcs.pArgumentDescs
    _check_names(args, f"program_command_signatures.{pcs.name}.pArgumentDescs")
    cls = executable_class_of(args)
    if cls is None:
        raise LayoutError("no dispatch-trigger argument, so no executable class and no record layout",
                          where=f"program_command_signatures.{pcs.name}", rule="Supported argument types")
    hybrid = any(a.source_name == "SECONDARY_RECORD" for a in args)
    kind = RecordKind.HYBRID if hybrid else RecordKind.INLINE
    rt = cls is ExecutableClass.RAYTRACING
    primary = _record(PRIMARY, pcs.name, PRIMARY_HEADER[(rt, kind)], args, "PRIMARY_RECORD", broadcast_ok=False)
    secondary = _record(SECONDARY, pcs.name, None, args, "SECONDARY_RECORD", broadcast_ok=True) if hybrid else None
    if secondary is not None:
        secondary = dataclasses.replace(secondary, declared_stride=pcs.SecondaryRecordByteStride)
    table = None if rt else _implicit_tail(pcs.name, args)
    return PCSLayout(pcs, cls, kind, primary, secondary, table)


def program_table_layout(program: Program, pcs_records: PCSLayout | None = None) -> RecordLayout | None:
    """The program-table record of one program: its PCS's implicit-path tail, or on the explicit path its local
    root signature's slots not overridden by the PCS.  None for raytracing-class programs (no program table).
    ``pcs_records``: the PCS's layout when the caller has it already (it is computed otherwise)."""
    pcs = program.ProgramCommandSignature
    if pcs is None:
        raise LayoutError("program has no associated program command signature", where=f"programs.{program.name}",
                          rule="rule 1")
    layout = pcs_records if pcs_records is not None and pcs_records.pcs is pcs else pcs_layout(pcs)
    if layout.program_table is None:
        return None
    if program.LocalRootSignature is None or uses_inline_local_root_signature(pcs):
        return _rename(layout.program_table, program.name)
    return _explicit_tail(program.name, pcs.pArgumentDescs, program.LocalRootSignature)


def _rename(layout: RecordLayout, owner: str) -> RecordLayout:
    return RecordLayout(layout.record, owner, layout.header, layout.header_size, layout.fields, layout.size,
                        layout.min_stride, layout.stride_align, layout.broadcast_ok)


@dataclass(frozen=True)
class SignatureStrides:
    """Minimum strides across the program command signatures (and programs) a work list signature reaches."""

    min_primary_stride: int
    min_program_table_stride: int | None

    def merge(self, other: SignatureStrides) -> SignatureStrides:
        tables = [t for t in (self.min_program_table_stride, other.min_program_table_stride) if t is not None]
        return SignatureStrides(max(self.min_primary_stride, other.min_primary_stride),
                                max(tables) if tables else None)


def signature_strides(wls: WorkListSignature, objects: ObjectSet | None = None) -> SignatureStrides:
    """Spec "Stride derivation" and "Program table slot layout": the primary stride must fit the worst-case
    primary record of every PCS; the program-table stride must fit 32 + the largest program-table tail among the
    PCSes' implicit tails and, given ``objects``, every program associated with one of them."""
    primary = 0
    tables: list[int] = []
    for pcs in wls.pProgramCommandSignatures:
        layout = pcs_layout(pcs)
        primary = max(primary, layout.primary.min_stride)
        if layout.program_table is not None:
            tables.append(layout.program_table.min_stride)
    if objects is not None:
        members = {id(p) for p in wls.pProgramCommandSignatures}
        for program in objects.programs.values():
            if program.ProgramCommandSignature is not None and id(program.ProgramCommandSignature) in members:
                table = program_table_layout(program)
                if table is not None:
                    tables.append(table.min_stride)
    return SignatureStrides(primary, max(tables) if tables else None)


def array_strides(array: WorkListSignatureArray, objects: ObjectSet | None = None) -> SignatureStrides:
    strides = [signature_strides(w, objects) for w in array.pSignatures]
    if not strides:
        raise LayoutError("signature array has no signatures", where=f"work_list_signature_arrays.{array.name}")
    result = strides[0]
    for s in strides[1:]:
        result = result.merge(s)
    return result


def command_layout(cs: CommandSignature) -> RecordLayout:
    """ExecuteIndirect: arguments tightly packed in pArgumentDescs order, no padding; ByteStride a multiple of 4
    (IndirectDrawing.md, "Command signature Creation" and "Validation")."""
    _check_names(cs.pArgumentDescs, f"command_signatures.{cs.name}.pArgumentDescs")
    packer = _Packer(0)
    for i, arg in enumerate(cs.pArgumentDescs):
        type_name = arg.type_name
        info = arg_type_info(type_name)
        if not info.ei:
            raise LayoutError(f"{type_name} is a Work Lists argument type; an ExecuteIndirect command signature "
                              "cannot hold it (IndirectDrawing.md, \"Command signature Creation\")",
                              where=f"command_signatures.{cs.name}.pArgumentDescs[{i}]")
        payload = payload_with(arg, info, tight=True)
        if payload is not None:
            packer.place(field_name(i, arg, info), payload, "arg", arg=i, arg_type=type_name,
                         dword_offset=arg.Constant.DestOffsetIn32BitValues if type_name == "CONSTANT" else None,
                         named=arg.Name is not None)
    layout = _finish(COMMAND, cs.name, None, 0, packer.fields, EI_STRIDE_ALIGN, broadcast_ok=False)
    return dataclasses.replace(layout, declared_stride=cs.ByteStride or None)


class LayoutCache:
    """Memoizes layouts per object identity (objects are mutable dataclasses, so not hashable)."""

    def __init__(self) -> None:
        self._pcs: dict[int, tuple[ProgramCommandSignature, PCSLayout]] = {}
        self._programs: dict[int, tuple[Program, RecordLayout | None]] = {}

    def pcs(self, pcs: ProgramCommandSignature) -> PCSLayout:
        hit = self._pcs.get(id(pcs))
        if hit is None or hit[0] is not pcs:
            hit = (pcs, _pcs_layout(pcs))
            self._pcs[id(pcs)] = hit
        return hit[1]

    def program(self, program: Program) -> RecordLayout | None:
        hit = self._programs.get(id(program))
        if hit is None or hit[0] is not program:
            pcs = program.ProgramCommandSignature
            hit = (program, program_table_layout(program, self.pcs(pcs) if pcs is not None else None))
            self._programs[id(program)] = hit
        return hit[1]


#: the layouts of the active :func:`laying_out_once` block
_ONCE: ContextVar[LayoutCache | None] = ContextVar("d3d12wl_laying_out_once", default=None)


@contextmanager
def laying_out_once() -> Iterator[LayoutCache]:
    """Within the block, :func:`pcs_layout` lays each program command signature out once, however many callers ask
    (the objects must not change during the block): ``d3d12wl validate`` asks in the rules (rule 25(e)) and again
    in the notes, for signatures of up to 100,000 arguments."""
    cache = _ONCE.get()
    if cache is not None:  # (nested: the outer block's layouts serve)
        yield cache
        return
    cache = LayoutCache()
    token = _ONCE.set(cache)
    try:
        yield cache
    finally:
        _ONCE.reset(token)


def record_layouts(objects: ObjectSet, pcs_name: str | None = None) -> list[RecordLayout]:
    """Every record class a description implies, in description order: each program command signature's primary,
    secondary and implicit-path program-table records; each program whose program-table record differs from its
    PCS's (the explicit local-root-signature path); each ExecuteIndirect command signature.  ``pcs_name``
    restricts it to that program command signature's records."""
    if pcs_name is not None and pcs_name not in objects.program_command_signatures:
        known = ", ".join(objects.program_command_signatures) or "none"
        raise LayoutError(f"no program command signature named {pcs_name!r}; known: {known}", where="--pcs")
    out: list[RecordLayout] = []
    cache = _ONCE.get() or LayoutCache()  # each PCS is laid out once, however many programs use it (and callers
    # within laying_out_once() reuse these layouts)
    for name, pcs in objects.program_command_signatures.items():
        if pcs_name is None or name == pcs_name:
            pl = cache.pcs(pcs)
            out += [r for r in (pl.primary, pl.secondary, pl.program_table) if r is not None]
    for program in objects.programs.values():
        program_pcs = program.ProgramCommandSignature
        if program_pcs is None or (pcs_name is not None and program_pcs.name != pcs_name):
            continue
        implicit = cache.pcs(program_pcs).program_table
        own = program_table_layout(program, cache.pcs(program_pcs))
        if own is not None and (implicit is None or own.fields != implicit.fields):
            out.append(own)
    if pcs_name is None:
        out += [command_layout(cs) for cs in objects.command_signatures.values()]
    return out


def record_id(layout: RecordLayout) -> str:
    """``<owner>.<record>``: ``PCS.secondary``, ``Opaque.program_table``, ``EI.command`` (how a user names one
    record class of a description, e.g. ``abi check --record-struct PCS.secondary=SecondaryRecord``)."""
    return f"{layout.owner}.{layout.record}"


def record_id_synonyms(ids: Iterable[str]) -> dict[str, str]:
    """The spec's names of the record classes ``ids`` name, for a did-you-mean (:func:`d3d12wl.errors.closest`):
    the ``D3D12_INDIRECT_ARGUMENT_SOURCE`` member that reads a record class (``PRIMARY_RECORD``,
    ``SECONDARY_RECORD``, ``PROGRAM_TABLE_RECORD``) after its owner, ``PCS.primary_record`` -> ``PCS.primary``."""
    sources = {m.removeprefix(abi.default.enum_prefix("D3D12_INDIRECT_ARGUMENT_SOURCE"))
               for m in abi.enum_members("D3D12_INDIRECT_ARGUMENT_SOURCE")}
    out: dict[str, str] = {}
    for rid in ids:
        owner, _, kind = rid.rpartition(".")
        if f"{kind.upper()}_RECORD" in sources:
            out[f"{owner}.{kind}_record"] = rid
    return out
