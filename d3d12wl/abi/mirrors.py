"""ctypes and numpy mirrors of every declared struct, generated from the same declarations.

The mirrors are built from the declared member types only (ctypes and numpy compute their
own C layout, ``align=True``); they are never given the compiler's offsets.  That is what
makes them a truth to check cffi against (``abi_check.check_mirrors``), and what lets
other modules use them (``numpy_dtype('D3D12_DISPATCH_LIST_INPUT')`` for bulk views).

Windows x64 mapping: enums and BOOL are 4-byte signed ints; pointers and function pointers
8 bytes (``c_void_p`` / ``u8``; this machine is 64-bit).  ``ctypes.wintypes`` is not used
(on Linux its BOOL is 8 bytes and WCHAR 4).
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from d3d12wl.abi.compiled import ABI, TypeInfo
from d3d12wl.errors import ABIError

_CTYPES_PRIMITIVES: dict[str, Any] = {
    "uint8_t": ctypes.c_uint8,
    "uint16_t": ctypes.c_uint16,
    "uint32_t": ctypes.c_uint32,
    "uint64_t": ctypes.c_uint64,
    "int8_t": ctypes.c_int8,
    "int16_t": ctypes.c_int16,
    "int32_t": ctypes.c_int32,
    "int64_t": ctypes.c_int64,
    "float": ctypes.c_float,
    "double": ctypes.c_double,
    "char": ctypes.c_char,
}
_NUMPY_PRIMITIVES: dict[str, str] = {
    "uint8_t": "<u1",
    "uint16_t": "<u2",
    "uint32_t": "<u4",
    "uint64_t": "<u8",
    "int8_t": "<i1",
    "int16_t": "<i2",
    "int32_t": "<i4",
    "int64_t": "<i8",
    "float": "<f4",
    "double": "<f8",
    "char": "S1",
}


def _groups(info: TypeInfo) -> list[tuple[str | None, list[Any]]]:
    """Fields in order, anonymous-union members grouped: [(None, [field]) | (group, [fields...])]."""
    out: list[tuple[str | None, list[Any]]] = []
    for f in info.fields:
        if f.union is not None and out and out[-1][0] == f.union:
            out[-1][1].append(f)
        else:
            out.append((f.union, [f]))
    return out


class _Builder:
    def __init__(self, abi: ABI) -> None:
        self.abi = abi
        self.ctypes_cache: dict[str, Any] = {}
        self.numpy_cache: dict[str, np.dtype] = {}

    # cffi ctype of each field, by name, for a struct ctype (anonymous members are flattened by cffi)
    def _cfields(self, ctype: Any) -> dict[str, Any]:
        return {name: f.type for name, f in (ctype.fields or ())}

    # --- ctypes ------------------------------------------------------------------------------------

    def ctypes_scalar(self, ct: Any, nested: TypeInfo | None) -> Any:
        kind = ct.kind
        if kind == "primitive":
            try:
                return _CTYPES_PRIMITIVES[ct.cname]
            except KeyError as exc:
                raise ABIError(f"no ctypes mirror for C type {ct.cname}") from exc
        if kind == "enum":
            return ctypes.c_int32
        if kind in ("pointer", "function"):
            return ctypes.c_void_p
        if kind == "array":
            return self.ctypes_scalar(ct.item, nested) * ct.length
        if kind in ("struct", "union"):
            if nested is None:
                raise ABIError(f"no declaration for nested {ct.cname}")
            return self.ctypes_type(ct, nested)
        raise ABIError(f"no ctypes mirror for C type {ct.cname} ({kind})")

    def ctypes_type(self, ctype: Any, info: TypeInfo) -> Any:
        key = info.name
        if key in self.ctypes_cache:
            return self.ctypes_cache[key]
        cfields = self._cfields(ctype)
        fields: list[tuple[str, Any]] = []
        anonymous: list[str] = []
        for group, members in _groups(info):
            if group is None:
                f = members[0]
                fields.append((f.name, self.ctypes_scalar(cfields[f.name], f.nested)))
                continue
            union_fields = [(f.name, self.ctypes_scalar(cfields[f.name], f.nested)) for f in members]
            union_cls = type(f"{info.name}_{group.replace('@', '_')}", (ctypes.Union,), {"_fields_": union_fields})
            name = f"_{group.replace('@', '_')}"
            fields.append((name, union_cls))
            anonymous.append(name)
        base = ctypes.Union if info.kind == "union" else ctypes.Structure
        attrs: dict[str, Any] = {"_fields_": fields}
        if anonymous:
            attrs["_anonymous_"] = anonymous
        cls = type(_py_name(info.name), (base,), attrs)
        self.ctypes_cache[key] = cls
        return cls

    # --- numpy -------------------------------------------------------------------------------------

    def numpy_scalar(self, ct: Any, nested: TypeInfo | None) -> Any:
        kind = ct.kind
        if kind == "primitive":
            try:
                return _NUMPY_PRIMITIVES[ct.cname]
            except KeyError as exc:
                raise ABIError(f"no numpy mirror for C type {ct.cname}") from exc
        if kind == "enum":
            return "<i4"
        if kind in ("pointer", "function"):
            return "<u8"
        if kind == "array":
            return (self.numpy_scalar(ct.item, nested), (ct.length,))
        if kind in ("struct", "union"):
            if nested is None:
                raise ABIError(f"no declaration for nested {ct.cname}")
            return self.numpy_type(ct, nested)
        raise ABIError(f"no numpy mirror for C type {ct.cname} ({kind})")

    def _union_dtype(self, items: list[tuple[str, Any]]) -> np.dtype:
        dts = [np.dtype(t, align=True) for _, t in items]
        align = max(d.alignment for d in dts)
        size = max(d.itemsize for d in dts)
        size = (size + align - 1) // align * align
        return np.dtype(
            {"names": [n for n, _ in items], "formats": dts, "offsets": [0] * len(items), "itemsize": size},
            align=True,
        )

    def numpy_type(self, ctype: Any, info: TypeInfo) -> np.dtype:
        key = info.name
        if key in self.numpy_cache:
            return self.numpy_cache[key]
        cfields = self._cfields(ctype)
        if info.kind == "union":
            dt = self._union_dtype([(f.name, self.numpy_scalar(cfields[f.name], f.nested)) for f in info.fields])
        else:
            items: list[tuple[str, Any]] = []
            for group, members in _groups(info):
                if group is None:
                    f = members[0]
                    items.append((f.name, self.numpy_scalar(cfields[f.name], f.nested)))
                else:
                    sub = [(f.name, self.numpy_scalar(cfields[f.name], f.nested)) for f in members]
                    items.append((f"_{group.replace('@', '_')}", self._union_dtype(sub)))
            dt = np.dtype(items, align=True)
        self.numpy_cache[key] = dt
        return dt


def _py_name(name: str) -> str:
    return "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in name)


_builders: dict[int, _Builder] = {}


def _builder(abi: ABI) -> _Builder:
    b = _builders.get(id(abi))
    if b is None or b.abi is not abi:
        b = _builders[id(abi)] = _Builder(abi)
    return b


def _default_abi(abi: ABI | None) -> ABI:
    if abi is not None:
        return abi
    from d3d12wl import abi as abi_module

    return abi_module.default


def ctypes_type(name: str, abi: ABI | None = None) -> Any:
    """A ``ctypes.Structure``/``Union`` mirroring the named type (anonymous unions via ``_anonymous_``)."""
    a = _default_abi(abi)
    info = a.type_info(name)
    return _builder(a).ctypes_type(a.ffi.typeof(info.name), info)


def numpy_dtype(name: str, abi: ABI | None = None) -> np.dtype:
    """An aligned numpy dtype mirroring the named type; an anonymous union is a sub-dtype ``_union_<offset>``."""
    a = _default_abi(abi)
    info = a.type_info(name)
    return _builder(a).numpy_type(a.ffi.typeof(info.name), info)


def ctypes_offset(cls: Any, path: str) -> tuple[int, int]:
    """(offset, size) of a dotted field path in a ctypes mirror."""
    offset = 0
    for piece in path.split("."):
        desc = getattr(cls, piece)
        offset += desc.offset
        ftype = dict(_all_ctypes_fields(cls))[piece]
        cls = ftype
    return offset, ctypes.sizeof(cls)


def _all_ctypes_fields(cls: Any) -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for name, t in cls._fields_:
        if name in getattr(cls, "_anonymous_", ()):
            out.extend(_all_ctypes_fields(t))
        else:
            out.append((name, t))
    return out


def numpy_offset(dt: np.dtype, path: str) -> tuple[int, int]:
    """(offset, size) of a dotted field path in a numpy mirror (anonymous-union sub-dtypes are looked through)."""
    offset = 0
    for piece in path.split("."):
        sub, off = _numpy_field(dt, piece)
        offset += off
        dt = sub
    return offset, dt.itemsize


def _numpy_field(dt: np.dtype, name: str) -> tuple[np.dtype, int]:
    if dt.fields is None:
        raise ABIError(f"numpy mirror has no field {name!r}")
    if name in dt.fields:
        sub, off = dt.fields[name][:2]
        return sub, off
    for fname, (sub, off, *_rest) in dt.fields.items():
        if fname.startswith("_union_") or fname.startswith("_struct_"):
            try:
                inner, ioff = _numpy_field(sub, name)
            except ABIError:
                continue
            return inner, off + ioff
    raise ABIError(f"numpy mirror has no field {name!r}")
