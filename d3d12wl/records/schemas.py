"""construct schemas for every fixed plain-data struct and every record class.

One factory, :class:`Structs` (in the style of pyelftools' ``ELFStructs``), builds every schema from facts held
elsewhere: fixed structs from the compiled headers (:func:`d3d12wl.abi.type_info`), records from the layout
calculator (:class:`d3d12wl.records.layout.RecordLayout`).  Nothing is hand-typed.  Holes and trailing padding are explicit
``Padding`` at the offsets the headers and the layout give, never ``Aligned`` (which pads after a field and does not
align its start; design.md, "Layout facts that are easy to get wrong").

Parsing a short or truncated buffer raises :class:`~d3d12wl.errors.ParseError` naming the struct or record and the
first field that does not fit (found from offsets, not from construct's message).

Spec sections: "Primary record layout", "Record byte layouts", "Program table slot layout", "Program table record
layout"; IndirectDrawing.md "Indirect argument buffer structures" for ExecuteIndirect records.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

import construct as cs

from d3d12wl import abi
from d3d12wl.abi.compiled import TypeInfo
from d3d12wl.errors import ABIError, PackError, ParseError
from d3d12wl.records.dtypes import Scalar, field_type, has_union, layout_field_type, plain_data_types
from d3d12wl.records.layout import LayoutField, RecordLayout

__all__ = [
    "Structs",
    "STRUCTS",
    "struct_schema",
    "record_schema",
    "parse_struct",
    "build_struct",
    "parse_record",
    "build_record",
    "plain_data_types",
    "missing_field",
]

_SCALARS: dict[tuple[str, int], cs.Construct] = {
    ("u", 1): cs.Int8ul, ("u", 2): cs.Int16ul, ("u", 4): cs.Int32ul, ("u", 8): cs.Int64ul,
    ("i", 1): cs.Int8sl, ("i", 2): cs.Int16sl, ("i", 4): cs.Int32sl, ("i", 8): cs.Int64sl,
    ("f", 4): cs.Float32l, ("f", 8): cs.Float64l,
}


def _scalar(t: Scalar) -> cs.Construct:
    return _SCALARS[(t.kind, t.size)]


class Structs:
    """The factory of every construct schema (pyelftools ``ELFStructs`` style).

    ``structs.struct("D3D12_DISPATCH_LIST_INPUT")`` or ``structs.D3D12_DISPATCH_LIST_INPUT`` gives a fixed struct;
    ``structs.record(layout, stride)`` the schema of one record of a :class:`RecordLayout`.  Schemas are built
    once and cached.
    """

    def __init__(self, abi_: abi.ABI | None = None) -> None:
        self.abi = abi_ or abi.default
        self._structs: dict[str, cs.Struct] = {}
        self._records: dict[tuple[RecordLayout, int], cs.Struct] = {}

    def __getattr__(self, name: str) -> cs.Struct:
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            return self.struct(name)
        except ABIError as exc:
            raise AttributeError(str(exc)) from None

    def struct(self, name: str) -> cs.Struct:
        """The schema of a declared plain-data struct (pointer members as 8-byte addresses)."""
        info = self.abi.type_info(name)
        hit = self._structs.get(info.name)
        if hit is None:
            if has_union(info):
                raise ABIError(f"{info.name} is not plain data (it holds a union); it has no construct schema")
            hit = self._structs[info.name] = self._from_info(info)
        return hit

    def _from_info(self, info: TypeInfo) -> cs.Struct:
        members: list[cs.Construct] = []
        pos = 0
        for f in sorted(info.fields, key=lambda f: f.offset):
            if f.offset > pos:
                members.append(cs.Padding(f.offset - pos))
            t = field_type(f)
            sub = self.struct(t.name) if isinstance(t, TypeInfo) and t.name in self.abi.decls.aggregates else (
                self._from_info(t) if isinstance(t, TypeInfo) else _scalar(t))
            if f.array_length:
                sub = cs.Array(f.array_length, sub)
            members.append(f.name / sub)
            pos = f.offset + f.size
        if info.size > pos:
            members.append(cs.Padding(info.size - pos))
        return cs.Struct(*members)

    def _payload(self, f: LayoutField) -> cs.Construct:
        t = layout_field_type(f)
        sub = self.struct(t.name) if isinstance(t, TypeInfo) else _scalar(t)
        return cs.Array(f.count, sub) if f.count > 1 else sub

    def record(self, layout: RecordLayout, stride: int | None = None) -> cs.Struct:
        """The schema of one record of ``layout``: header members and payloads at their layout offsets, explicit
        ``Padding`` for holes and up to the stride (default ``min_stride``; 0, the broadcast form, also)."""
        end = layout.min_stride if not stride else stride
        key = (layout, end)
        hit = self._records.get(key)
        if hit is None:
            members: list[cs.Construct] = []
            pos = 0
            for f in sorted(layout.fields, key=lambda f: f.offset):
                if f.offset > pos:
                    members.append(cs.Padding(f.offset - pos))
                members.append(f.name / self._payload(f))
                pos = f.end
            if end < pos:
                raise PackError(f"stride {end} is below the {pos} bytes the {layout.record} record of "
                                f"{layout.owner!r} uses", rule="Stride derivation")
            if end > pos:
                members.append(cs.Padding(end - pos))
            hit = self._records[key] = cs.Struct(*members)
        return hit


#: The factory for the installed headers.
STRUCTS = Structs()


def struct_schema(name: str) -> cs.Struct:
    return STRUCTS.struct(name)


def record_schema(layout: RecordLayout, stride: int | None = None) -> cs.Struct:
    return STRUCTS.record(layout, stride)


# --- parse / build with the package's errors ---------------------------------------------------------------------


def _struct_leaves(info: TypeInfo, prefix: str = "", base: int = 0) -> list[tuple[str, int, int]]:
    out: list[tuple[str, int, int]] = []
    for f in info.fields:
        t = field_type(f)
        if isinstance(t, TypeInfo) and not f.array_length:
            out.extend(_struct_leaves(t, f"{prefix}{f.name}.", base + f.offset))
        elif isinstance(t, TypeInfo):
            n = f.array_length or 1
            for i in range(n):
                out.extend(_struct_leaves(t, f"{prefix}{f.name}[{i}].", base + f.offset + i * t.size))
        elif f.array_length:
            step = f.size // f.array_length
            out.extend((f"{prefix}{f.name}[{i}]", base + f.offset + i * step, step) for i in range(f.array_length))
        else:
            out.append((f"{prefix}{f.name}", base + f.offset, f.size))
    return sorted(out, key=lambda x: x[1])


def layout_leaves(layout: RecordLayout) -> list[tuple[str, int, int]]:
    """Every leaf of a record (its name as the packers spell it, its offset and size), in offset order: what a
    short record is checked against."""
    out: list[tuple[str, int, int]] = []
    for f in sorted(layout.fields, key=lambda f: f.offset):
        t = layout_field_type(f)
        elem = t.size
        for i in range(f.count):
            name = f"{f.name}[{i}]" if f.count > 1 else f.name
            off = f.offset + i * elem
            if isinstance(t, TypeInfo):
                out.extend(_struct_leaves(t, name + ".", off))
            else:
                out.append((name, off, elem))
    return out


def missing_field(leaves: list[tuple[str, int, int]], available: int, size: int) -> str:
    """The first field (dotted path, with its offset) that does not fit in ``available`` bytes."""
    for path, off, n in leaves:
        if off + n > available:
            return f"{path} (offset {off}, {n} bytes)"
    return f"padding (offset {available}..{size})"


def _check_length(data: bytes | bytearray | memoryview, offset: int, size: int, what: str,
                  leaves: list[tuple[str, int, int]], where: str) -> None:
    available = max(0, len(memoryview(data).cast("B")) - offset)
    if available < size:
        field = missing_field(leaves, available, size)
        raise ParseError(f"truncated: {what} needs {size} bytes at offset {offset}, only {available} available",
                         where=f"{where} field {field}")


@cache
def struct_leaves(name: str) -> tuple[tuple[str, int, int], ...]:
    """Every leaf of declared struct ``name`` (path, offset, size), as :func:`layout_leaves` gives a record's."""
    return tuple(_struct_leaves(abi.type_info(name)))


def parse_struct(name: str, data: bytes | bytearray | memoryview, offset: int = 0) -> cs.Container:
    """Parse one ``name`` struct at ``offset``.  A short buffer raises :class:`ParseError` naming the field."""
    schema = STRUCTS.struct(name)
    size = schema.sizeof()
    _check_length(data, offset, size, name, list(struct_leaves(name)), name)
    try:
        return schema.parse(bytes(memoryview(data).cast("B")[offset:offset + size]))
    except cs.ConstructError as exc:  # pragma: no cover - lengths are checked above
        raise ParseError(str(exc), where=name) from exc


def build_struct(name: str, values: Mapping[str, Any]) -> bytes:
    """Build one ``name`` struct from a (nested) mapping; a missing or bad member raises :class:`PackError`."""
    try:
        return STRUCTS.struct(name).build(values)
    except (cs.ConstructError, KeyError, TypeError, ValueError) as exc:
        raise PackError(f"cannot build {name}: {exc}", where=name) from exc


def _record_where(layout: RecordLayout, index: int | None) -> str:
    n = "" if index is None else f" {index}"
    return f"{layout.record} record{n} of {layout.owner!r}"


def parse_record(layout: RecordLayout, data: bytes | bytearray | memoryview, offset: int = 0,
                 stride: int | None = None, index: int | None = None) -> cs.Container:
    """Parse one record of ``layout`` at ``offset`` (``stride`` bytes, default ``min_stride``).  A truncated
    buffer raises :class:`ParseError` naming the record (and ``index``, when given) and the field."""
    schema = STRUCTS.record(layout, stride)
    size = schema.sizeof()
    where = _record_where(layout, index)
    _check_length(data, offset, size, where, layout_leaves(layout), where)
    try:
        return schema.parse(bytes(memoryview(data).cast("B")[offset:offset + size]))
    except cs.ConstructError as exc:  # pragma: no cover - lengths are checked above
        raise ParseError(str(exc), where=where) from exc


def build_record(layout: RecordLayout, values: Mapping[str, Any], stride: int | None = None) -> bytes:
    """Build one record of ``layout`` (padding zeroed); a missing or bad member raises :class:`PackError`."""
    try:
        return STRUCTS.record(layout, stride).build(values)
    except (cs.ConstructError, KeyError, TypeError, ValueError) as exc:
        raise PackError(f"cannot build: {exc}", where=_record_where(layout, None)) from exc
