"""Decoding bytes into values by C type, with every size and offset taken from :mod:`d3d12wl.abi`.

A struct decodes to a dict of its members (nested structs to nested dicts, arrays to lists), a scalar to an int.
Nothing here knows a field offset of its own.
"""

from __future__ import annotations

import struct
from functools import cache
from typing import Any

from d3d12wl import abi
from d3d12wl.errors import ABIError
from d3d12wl.records.layout import LayoutField, RecordLayout

_UNSIGNED = {1: "B", 2: "H", 4: "I", 8: "Q"}
_SIGNED = {1: "b", 2: "h", 4: "i", 8: "q"}


@cache
def _struct_fields(ctype: str) -> tuple[tuple[str, int, str, int | None], ...] | None:
    """(name, offset, type, array_length) of each member of struct ``ctype``, or None for a scalar type."""
    try:
        info = abi.type_info(ctype)
    except ABIError:
        return None
    out = []
    for f in info.fields:
        base = f.type.split("[", 1)[0].strip()
        out.append((f.name, f.offset, base, f.array_length))
    return tuple(out)


@cache
def _scalar_format(ctype: str) -> str:
    size = abi.sizeof(ctype)
    signed = ctype.startswith("int") or ctype in ("INT", "BOOL", "HRESULT")
    if ctype == "float":
        return "<f"
    return "<" + (_SIGNED if signed else _UNSIGNED)[size]


@cache
def ctype_size(ctype: str) -> int:
    return abi.sizeof(ctype)


def decode(ctype: str, data: bytes | memoryview, offset: int = 0) -> Any:
    """The value of one ``ctype`` at ``data[offset:]``."""
    fields = _struct_fields(ctype)
    if fields is None:
        return struct.unpack_from(_scalar_format(ctype), data, offset)[0]
    out: dict[str, Any] = {}
    for name, off, ftype, length in fields:
        if length is not None:
            size = ctype_size(ftype)
            out[name] = [decode(ftype, data, offset + off + i * size) for i in range(length)]
        else:
            out[name] = decode(ftype, data, offset + off)
    return out


def decode_field(f: LayoutField, data: bytes | memoryview, base: int = 0) -> Any:
    """A layout field's value: ``ctype[count]`` as a list when ``count > 1`` (or for root-constant DWORD runs,
    which are always lists), else the decoded ctype."""
    if f.count > 1 or f.dword_offset is not None or (f.role == "arg" and f.arg_type == "CONSTANT"):
        size = ctype_size(f.ctype)
        return [decode(f.ctype, data, base + f.offset + i * size) for i in range(f.count)]
    return decode(f.ctype, data, base + f.offset)


def decode_record(layout: RecordLayout, data: bytes | memoryview, *, skip_identifier: bool = False) -> dict[str, Any]:
    """Every field of ``layout`` decoded by name (``data`` starts at the record start)."""
    out: dict[str, Any] = {}
    for f in layout.fields:
        if f.role == "identifier":
            if not skip_identifier:
                out[f.name] = bytes(data[f.offset: f.offset + f.size]).hex()
            continue
        out[f.name] = decode_field(f, data)
    return out


def struct_offset(ctype: str, path: str) -> int:
    return abi.offsetof(ctype, path)


# -- enum short names, memoized (the executor asks for them once per argument per execution) ----------------------


@cache
def short_name(enum: str, value: int) -> str:
    return abi.enum_short_name(enum, value)


def type_name(arg: Any) -> str:
    """``arg.type_name`` (short D3D12_INDIRECT_ARGUMENT_TYPE name), memoized."""
    return short_name("D3D12_INDIRECT_ARGUMENT_TYPE", arg.Type)


def source_name(arg: Any) -> str:
    return short_name("D3D12_INDIRECT_ARGUMENT_SOURCE", arg.Source)


def binding_name(arg: Any) -> str:
    return short_name("D3D12_INDIRECT_ARGUMENT_BINDING", arg.Binding)


def parameter_type_name(param: Any) -> str:
    return short_name("D3D12_ROOT_PARAMETER_TYPE", param.ParameterType)


@cache
def enum_value(enum: str, member: str) -> int:
    """``abi.enum_value``, memoized."""
    return abi.enum_value(enum, member)


@cache
def offsetof(ctype: str, path: str) -> int:
    """``abi.offsetof``, memoized."""
    return abi.offsetof(ctype, path)


@cache
def flag_members(enum: str) -> tuple[tuple[str, int], ...]:
    """(short name, value) of each non-zero member of a flag enum, and nothing else."""
    return tuple((abi.enum_short_name(enum, v), v) for v in abi.enum_members(enum).values() if v)


@cache
def constant(name: str) -> int:
    return abi.constant(name)
