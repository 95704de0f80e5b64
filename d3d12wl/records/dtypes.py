"""numpy dtypes of every fixed struct (from :mod:`d3d12wl.abi`) and every record (from a :class:`RecordLayout`).

Nothing here retypes an offset or a size: fixed structs take theirs from the compiled headers, records from the
layout calculator.  Every dtype has explicit ``offsets`` and ``itemsize`` (C's ``sizeof`` for a struct, the stride
for a record), so holes and trailing padding are where C and the spec put them (design.md, "Layout facts that are
easy to get wrong").  numpy never zeroes padding by itself: the packers in :mod:`d3d12wl.records.packers` do.

The C-type classification (:func:`classify`) is shared with the construct schemas of :mod:`d3d12wl.records.schemas`, so
both views read a C type the same way: pointers and function pointers are 8-byte unsigned addresses, enums are
4-byte unsigned (as cffi reads enums without negative members), ``int32_t`` is signed, ``float`` is IEEE single.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

import numpy as np

from d3d12wl import abi
from d3d12wl.abi.compiled import FieldInfo, TypeInfo
from d3d12wl.errors import ABIError
from d3d12wl.records.layout import LayoutField, RecordLayout

#: The spec's Windows type names that the headers spell with fixed-width types (design.md, "ABI rules").
_SPEC_SPELLINGS = {"UINT": "uint32_t", "DWORD": "uint32_t", "INT": "int32_t", "BOOL": "int32_t",
                   "UINT64": "uint64_t", "SIZE_T": "uint64_t", "WCHAR": "uint16_t", "FLOAT": "float"}

_PRIMITIVE = {
    "uint8_t": ("u", 1), "uint16_t": ("u", 2), "uint32_t": ("u", 4), "uint64_t": ("u", 8),
    "int8_t": ("i", 1), "int16_t": ("i", 2), "int32_t": ("i", 4), "int64_t": ("i", 8),
    "char": ("i", 1), "float": ("f", 4), "double": ("f", 8),
}


@dataclass(frozen=True)
class Scalar:
    """A scalar C type as bytes: ``kind`` 'u' (unsigned; also enums, pointers), 'i' (signed) or 'f' (float)."""

    kind: str
    size: int
    pointer: bool = False

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(f"<{self.kind}{self.size}")

    @property
    def min(self) -> int:
        return -(1 << (8 * self.size - 1)) if self.kind == "i" else 0

    @property
    def max(self) -> int:
        return (1 << (8 * self.size - 1)) - 1 if self.kind == "i" else (1 << (8 * self.size)) - 1


def _element_text(text: str) -> str:
    text = re.sub(r"\[\s*\d*\s*\]", "", text)
    return re.sub(r"\b(const|volatile|struct|union|enum)\b", "", text).strip()


@cache
def classify(ctype: str) -> Scalar | TypeInfo:
    """A C type text (``'uint32_t'``, ``'D3D12_GPU_VIRTUAL_ADDRESS'``, ``'const char *'``, ``'UINT'``,
    ``'D3D12_DRAW_ARGUMENTS'``) as a :class:`Scalar` or, for a struct/union, its :class:`TypeInfo`."""
    text = _element_text(ctype)
    if "*" in text:
        return Scalar("u", abi.ffi.sizeof("void *"), pointer=True)
    text = _SPEC_SPELLINGS.get(text, text)
    resolved = abi.default.resolve(text)
    if resolved in abi.default.decls.aggregates:
        return abi.type_info(resolved)
    if resolved in _PRIMITIVE:
        return Scalar(*_PRIMITIVE[resolved])
    try:
        ct = abi.ffi.typeof(resolved)
    except Exception as exc:  # cffi raises ffi.error / CDefError
        raise ABIError(f"unknown C type {ctype!r}") from exc
    if ct.kind in ("pointer", "function"):
        return Scalar("u", abi.ffi.sizeof("void *"), pointer=True)
    if ct.kind == "enum":
        return Scalar("u", abi.ffi.sizeof(ct))
    if ct.kind == "primitive" and ct.cname in _PRIMITIVE:
        return Scalar(*_PRIMITIVE[ct.cname])
    raise ABIError(f"C type {ctype!r} ({ct.kind} {ct.cname}) has no byte view")


def field_type(f: FieldInfo) -> Scalar | TypeInfo:
    """The element type of a struct field (the nested :class:`TypeInfo` for an anonymous aggregate)."""
    if f.nested is not None:
        return f.nested
    if f.is_pointer:
        return Scalar("u", f.size // (f.array_length or 1), pointer=True)
    return classify(f.type)


def has_union(info: TypeInfo) -> bool:
    """Whether a struct is or contains a union (at any depth)."""
    if info.kind == "union":
        return True
    for f in info.fields:
        if f.union is not None:
            return True
        t = field_type(f)
        if isinstance(t, TypeInfo) and has_union(t):
            return True
    return False


def plain_data_types() -> list[str]:
    """Every declared struct that is plain data: no unions at any depth (pointers are 8-byte addresses)."""
    return [name for name, info in abi.types().items() if info.kind == "struct" and not has_union(info)]


@cache
def struct_dtype(name: str) -> np.dtype:
    """The numpy dtype of a declared struct: explicit offsets, ``itemsize == sizeof``, nested structs as nested
    dtypes, arrays as subarrays.  Union members overlap at their offsets, as in C."""
    return _info_dtype(abi.type_info(name))


def _info_dtype(info: TypeInfo) -> np.dtype:
    names, formats, offsets = [], [], []
    for f in info.fields:
        t = field_type(f)
        base = _info_dtype(t) if isinstance(t, TypeInfo) else t.dtype
        names.append(f.name)
        formats.append((base, (f.array_length,)) if f.array_length else base)
        offsets.append(f.offset)
    return np.dtype({"names": names, "formats": formats, "offsets": offsets, "itemsize": info.size})


def layout_field_type(f: LayoutField) -> Scalar | TypeInfo:
    return classify(f.ctype)


def layout_field_dtype(f: LayoutField) -> np.dtype | tuple[np.dtype, tuple[int]]:
    t = layout_field_type(f)
    base = struct_dtype(t.name) if isinstance(t, TypeInfo) else t.dtype
    return (base, (f.count,)) if f.count > 1 else base


def record_itemsize(layout: RecordLayout, stride: int | None = None) -> int:
    """Bytes one record occupies in an array: the stride, or ``min_stride`` for the default or broadcast (0)."""
    return layout.min_stride if not stride else stride


@cache
def record_dtype(layout: RecordLayout, stride: int | None = None) -> np.dtype:
    """The dtype of one record of ``layout`` with ``itemsize`` = the stride (default ``min_stride``)."""
    fields = sorted(layout.fields, key=lambda f: f.offset)
    return np.dtype({
        "names": [f.name for f in fields],
        "formats": [layout_field_dtype(f) for f in fields],
        "offsets": [f.offset for f in fields],
        "itemsize": record_itemsize(layout, stride),
    })


def dtype_for(layout_or_struct: RecordLayout | str, stride: int | None = None) -> np.dtype:
    """The dtype of a record layout (``itemsize`` = stride, default ``min_stride``) or of a struct by name."""
    if isinstance(layout_or_struct, RecordLayout):
        return record_dtype(layout_or_struct, stride)
    if stride is not None:
        raise ABIError("a struct's dtype has itemsize == sizeof; stride applies to record layouts only")
    return struct_dtype(layout_or_struct)


@dataclass(frozen=True)
class Leaf:
    """A scalar or scalar-array field at any depth of a structured dtype: ``path`` ``'arg1_Draw.InstanceCount'``,
    ``offset`` from the record start, ``dtype`` of one element, ``shape`` of the subarray (``()`` for a scalar)."""

    path: str
    offset: int
    dtype: np.dtype
    shape: tuple[int, ...]

    @property
    def size(self) -> int:
        return int(self.dtype.itemsize * int(np.prod(self.shape, dtype=np.int64)))


@cache
def leaves(dtype: np.dtype) -> tuple[Leaf, ...]:
    """Every leaf of a structured dtype, in offset order (subarrays of structs are expanded as ``name[i].x``)."""
    out: list[Leaf] = []
    _walk(dtype, "", 0, out)
    return tuple(sorted(out, key=lambda leaf: leaf.offset))


def _walk(dtype: np.dtype, prefix: str, base: int, out: list[Leaf]) -> None:
    assert dtype.fields is not None
    for name in dtype.names or ():
        sub, off = dtype.fields[name][:2]
        path = f"{prefix}{name}"
        if sub.subdtype is not None:
            elem, shape = sub.subdtype
            if elem.names:
                for i in range(int(np.prod(shape))):
                    _walk(elem, f"{path}[{i}].", base + off + i * elem.itemsize, out)
            else:
                out.append(Leaf(path, base + off, elem, shape))
        elif sub.names:
            _walk(sub, path + ".", base + off, out)
        else:
            out.append(Leaf(path, base + off, sub, ()))
