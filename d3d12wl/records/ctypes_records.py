"""``ctypes.Structure`` mirrors of every record (primary, secondary, program-table, ExecuteIndirect command), made
from the same :class:`~d3d12wl.records.layout.RecordLayout` as the construct schemas, the numpy dtypes and the C
codegen, member for member as :func:`d3d12wl.records.codegen.c_struct` declares them: the layout's fields in offset
order, every hole and the trailing pad up to the stride an explicit ``uint8_t _padN[k]`` member.

The record is packed to 4 (``_pack_``, with ``_layout_ = "ms"``) only where the spec's "Per-arg natural
alignment" needs it: a payload at an offset that is not a multiple of its C alignment (a 16-byte vertex or index
buffer view at 4) or a stride that is not a multiple of the record's largest alignment (an ExecuteIndirect command
of a CBV and a DRAW_INDEXED: 28 bytes).  Payload structs (``D3D12_DRAW_ARGUMENTS``, ...) are built from the
compiled headers' fields with :func:`d3d12wl.records.dtypes.classify`, the classification construct and numpy use
(enums 4-byte unsigned, pointers 8-byte addresses); every struct's size and offsets are checked against the
compiled module when it is made.  ``ctypes.wintypes`` is not used (on Linux its BOOL is 8 bytes, its WCHAR 4)::

    Secondary = record_ctype(pcs_layout(pcs).secondary)       # PCS_SecondaryRecord, 24 bytes
    rows = (Secondary * n).from_buffer(packed)                 # zero-copy over what the packers wrote
    rows[2].arg1_Draw.StartVertexLocation
"""

from __future__ import annotations

import ctypes
import re
from functools import lru_cache
from typing import Any

from d3d12wl import abi
from d3d12wl.abi.compiled import TypeInfo
from d3d12wl.errors import LayoutError
from d3d12wl.records.dtypes import Scalar, classify
from d3d12wl.records.layout import RecordLayout

__all__ = ["RECORD_PACK", "record_ctype", "struct_ctype", "to_value", "from_value"]

#: the packing of a record whose payloads sit below their C alignment (spec "Per-arg natural alignment": views at
#: 4), the C codegen's ``#pragma pack(push, 4)`` where a member needs it
RECORD_PACK = 4

_SCALARS: dict[tuple[str, int], Any] = {
    ("u", 1): ctypes.c_uint8, ("u", 2): ctypes.c_uint16, ("u", 4): ctypes.c_uint32, ("u", 8): ctypes.c_uint64,
    ("i", 1): ctypes.c_int8, ("i", 2): ctypes.c_int16, ("i", 4): ctypes.c_int32, ("i", 8): ctypes.c_int64,
    ("f", 4): ctypes.c_float, ("f", 8): ctypes.c_double,
}


def _scalar(s: Scalar) -> Any:
    return _SCALARS[(s.kind, s.size)]


def _element(ctype: str) -> Any:
    """The ctypes type of one element of C type ``ctype`` (a scalar or a struct)."""
    t = classify(ctype)
    return struct_ctype(t.name) if isinstance(t, TypeInfo) else _scalar(t)


def _padded(members: list[tuple[str, int, int, Any]], end: int) -> list[tuple[str, Any]]:
    """``_fields_`` from (name, offset, size, type) in offset order, with ``_padN`` members for every hole and up to
    ``end``."""
    fields: list[tuple[str, Any]] = []
    pos = pad = 0
    for name, offset, size, ct in sorted(members, key=lambda m: m[1]):
        if offset > pos:
            fields.append((f"_pad{pad}", ctypes.c_uint8 * (offset - pos)))
            pad += 1
        fields.append((name, ct))
        pos = offset + size
    if end > pos:
        fields.append((f"_pad{pad}", ctypes.c_uint8 * (end - pos)))
    return fields


def _check(cls: Any, what: str, size: int, offsets: dict[str, int]) -> None:
    got = {name: getattr(cls, name).offset for name, _ in cls._fields_ if name in offsets}
    if ctypes.sizeof(cls) != size or got != offsets:
        raise LayoutError(f"the ctypes mirror disagrees with the layout: sizeof {ctypes.sizeof(cls)} (expected {size}), "
                          f"offsets {got} (expected {offsets})", where=what)


@lru_cache(maxsize=None)
def struct_ctype(name: str) -> Any:
    """A ``ctypes.Structure`` of a fixed payload struct of the headers (explicit padding, its C layout)."""
    info = abi.type_info(name)
    if info.kind != "struct" or any(f.union is not None for f in info.fields):
        raise LayoutError(f"{name} is not a plain struct (records hold no unions)", where=name)
    members = []
    for f in info.fields:
        base = struct_ctype(f.nested.name) if f.nested is not None else _element(re.sub(r"\[\d+\]$", "", f.type))
        members.append((f.name, f.offset, f.size, base * f.array_length if f.array_length else base))
    cls = type(name, (ctypes.Structure,), {"_fields_": _padded(members, info.size)})
    _check(cls, name, info.size, {f.name: f.offset for f in info.fields})
    return cls


def _needs_pack(layout: RecordLayout, members: list[tuple[str, int, int, Any]], stride: int) -> bool:
    aligns = [ctypes.alignment(ct) for _, _, _, ct in members]
    return any(offset % a for (_, offset, _, _), a in zip(members, aligns)) or bool(aligns and stride % max(aligns))


@lru_cache(maxsize=256)
def record_ctype(layout: RecordLayout, stride: int | None = None) -> Any:
    """The ``ctypes.Structure`` of one record at ``stride`` (default: the minimum; ``sizeof`` is the stride), named
    and laid out as its C codegen struct (``PCS_SecondaryRecord``)."""
    from d3d12wl.records.codegen import struct_name

    end = layout.min_stride if not stride else stride
    problems = layout.stride_problems(end) if end else []
    if problems:
        raise LayoutError("; ".join(problems), where=f"{layout.record} record of {layout.owner!r}")
    members = []
    for f in layout.fields:
        if f.size == 0:
            continue
        base = _element(f.ctype)
        members.append((f.name, f.offset, f.size, base * f.count if f.count > 1 else base))
    attrs: dict[str, Any] = {"_fields_": _padded(members, end)}
    if _needs_pack(layout, members, end):
        attrs["_pack_"] = RECORD_PACK
        attrs["_layout_"] = "ms"  # the MSVC layout _pack_ means (Python 3.14 asks for it to be said)
    cls = type(struct_name(layout), (ctypes.Structure,), attrs)
    _check(cls, f"{layout.record} record of {layout.owner!r}", end, {name: off for name, off, _, _ in members})
    return cls


def to_value(obj: Any) -> Any:
    """A ctypes record, struct, array or scalar as plain Python: dicts by member name (padding left out), lists,
    ints and floats (the values the construct schemas parse)."""
    if isinstance(obj, ctypes.Structure):
        names = [member[0] for member in obj._fields_]
        return {name: to_value(getattr(obj, name)) for name in names if not name.startswith("_pad")}
    if isinstance(obj, ctypes.Array):
        return [to_value(v) for v in obj]
    return obj


def from_value(cls: Any, value: Any) -> Any:
    """An instance of ctypes struct ``cls`` holding ``value`` (as :func:`to_value` gives it); padding zero."""
    out = cls()
    for name, ct in cls._fields_:
        if name.startswith("_pad"):
            continue
        v = value[name]
        if issubclass(ct, ctypes.Structure):
            setattr(out, name, from_value(ct, v))
        elif issubclass(ct, ctypes.Array):
            arr = getattr(out, name)
            for i, item in enumerate(v):
                arr[i] = from_value(ct._type_, item) if issubclass(ct._type_, ctypes.Structure) else item
        else:
            setattr(out, name, v)
    return out
