"""References by value in the bytes of records: the fields a replay on another run, driver or GPU must rewrite
(design.md, "References by value: what a replay tool must rewrite").

Three kinds of value point outside the record and differ between runs: GPU virtual addresses
(``D3D12_GPU_VIRTUAL_ADDRESS``: root views, vertex and index buffer views, ``SecondaryRecords``,
``ProgramInputs.StartAddress``, ``NextDispatchList``, ExecuteIndirect's shader-table ranges), GPU descriptor handles
(``D3D12_GPU_DESCRIPTOR_HANDLE``: descriptor tables, global and local) and program identifiers
(``D3D12_PROGRAM_IDENTIFIER``, opaque and per driver and run: every program-table slot starts with one).  Which
bytes hold them follows from the C types alone: a field of one of those types is a reference, and a struct holds
the references of its members (:func:`ctype_references`, over the compiled headers' fields).  The fields of a
record come from the one layout calculator (:func:`record_references` of a :class:`~d3d12wl.records.layout.
RecordLayout`), so every record class, whatever its signature, has its references listed without a table of its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from d3d12wl import abi
from d3d12wl.errors import ABIError
from d3d12wl.records.layout import PROGRAM_IDENTIFIER, LayoutField, RecordLayout

__all__ = ["HANDLE", "IDENTIFIER", "REFERENCE_CTYPES", "REFERENCE_KINDS", "VA", "FieldReference", "MemberReference",
           "ctype_references", "record_references"]

#: a GPU virtual address (``D3D12_GPU_VIRTUAL_ADDRESS``)
VA = "va"
#: a GPU descriptor handle (``D3D12_GPU_DESCRIPTOR_HANDLE``): it addresses a descriptor of a bound heap
HANDLE = "descriptor-handle"
#: a program identifier (``D3D12_PROGRAM_IDENTIFIER``)
IDENTIFIER = "program-identifier"
#: every kind, in the order tables list them
REFERENCE_KINDS = (VA, HANDLE, IDENTIFIER)
#: the C type of each kind: a value of the type is a reference of the kind
REFERENCE_CTYPES = {"D3D12_GPU_VIRTUAL_ADDRESS": VA, "D3D12_GPU_DESCRIPTOR_HANDLE": HANDLE, PROGRAM_IDENTIFIER: IDENTIFIER}


@dataclass(frozen=True)
class MemberReference:
    """A reference inside a value of some C type: ``path`` its member path (``""``: the value itself,
    ``".BufferLocation"``, ``".MissShaderTable.StartAddress"``), ``offset`` and ``size`` its bytes in the value."""

    path: str
    offset: int
    size: int
    kind: str


@cache
def ctype_references(ctype: str) -> tuple[MemberReference, ...]:
    """The references a value of C type ``ctype`` holds, in member order: the value itself if its type is one of
    :data:`REFERENCE_CTYPES`, else those of a struct's members, recursively; none for scalars, enums and arrays
    (root-constant DWORDs are values, not references)."""
    kind = REFERENCE_CTYPES.get(ctype)
    if kind is not None:
        return (MemberReference("", 0, abi.sizeof(ctype), kind),)
    try:
        info = abi.type_info(ctype)
    except ABIError:  # a scalar type or an enum: no references
        return ()
    out: list[MemberReference] = []
    for f in info.fields:
        if f.array_length is not None or f.is_pointer:
            continue
        for m in ctype_references(f.type):
            out.append(MemberReference(f".{f.name}{m.path}", f.offset + m.offset, m.size, m.kind))
    return tuple(out)


@dataclass(frozen=True)
class FieldReference:
    """A reference in a record: ``name`` the layout field's name and member path (``arg1_VertexBuffer.BufferLocation``,
    ``SecondaryRecords``, ``ProgramIdentifier``), ``offset`` and ``size`` its bytes from the record's start, the
    layout ``field`` it lies in."""

    name: str
    offset: int
    size: int
    kind: str
    field: LayoutField


@cache
def _layout_references(layout: RecordLayout) -> tuple[FieldReference, ...]:
    out: list[FieldReference] = []
    for f in layout.fields:
        if f.count > 1:  # a DWORD array (root constants): values
            continue
        for m in ctype_references(f.ctype):
            out.append(FieldReference(f"{f.name}{m.path}", f.offset + m.offset, m.size, m.kind, f))
    return tuple(out)


def record_references(layout: RecordLayout) -> tuple[FieldReference, ...]:
    """Every reference of ``layout``'s records, in field order (the fixed header's members, the program identifier
    of a program-table record, the arguments' payloads)."""
    return _layout_references(layout)
