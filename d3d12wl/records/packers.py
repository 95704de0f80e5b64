"""Vectorized numpy packers and readers for every GPU-resident buffer: primary lists, secondary lists, program
tables, dispatch list inputs (Tier 1 and Tier 2) and ExecuteIndirect argument and count buffers.

Engine code hands in column arrays (a mapping of field path to array) or a structured array; the packers write
every column into its strided place in the output with one call of the record kernel ``d3d12wl_scatter_columns``
(``d3d12wl/records/_kernels.c``, compiled into ``d3d12wl._native``): one pass over the output, padding zeroed, integer
values narrowed or re-signed range-checked, and the spec's per-field checks (alignment, reserved zero) applied in
the same pass, so there is no Python loop per record.  The column plan of a (dtype, column names, checks) is
cached.  Field paths are the record's field names from the layout calculator, dotted into
struct payloads::

    pack_secondary_records(pcs_layout(pcs), {
        "arg0_ShaderResourceView": srv_addresses,               # uint64[n]
        "arg1_Draw.VertexCountPerInstance": vertex_counts,      # uint32[n]
        "arg1_Draw.InstanceCount": 1,                           # a 0-d value is broadcast
        "arg1_Draw.StartVertexLocation": start_vertices,
        "arg1_Draw.StartInstanceLocation": 0,
    })

A column of an enum-typed field (``arg1_IndexBuffer.Format``, ``Flags``) also takes member names as the JSON
does: the full name or the name without the enum's prefix (``"R16_UINT"``), one for every record or one per record
(a list or a numpy string array, ints allowed among them); a flag enum takes ``"A | B"``.

A column may also name a whole struct payload (``"arg1_Draw"``, ``"ProgramIdentifier"``) with a structured array
or raw bytes of the payload's size.  Missing or unknown columns, wrong lengths, non-integer values for integer
fields and values outside the field's C type raise :class:`~d3d12wl.errors.PackError` naming the column.  Members
named ``ReservedPadding`` may be omitted (they are zero).  Strides default to the layout's minimum and are checked
against the spec (spec "Stride derivation", rule 25(e); program tables "Program table slot layout"; ExecuteIndirect
ByteStride a multiple of 4).

Readers (``read_*``) turn bytes back into structured arrays without copying (``np.frombuffer``) and raise
:class:`~d3d12wl.errors.ParseError` naming the record and field when the buffer is short; :func:`to_columns`
turns a structured array into the same column mapping the packers take (copies by the gather kernel
``d3d12wl_gather_columns``).  A packer that raises after writing into ``out=`` leaves it partly written.  Output bytes equal construct's build of
the same values (:mod:`d3d12wl.records.schemas`), which the tests prove.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

from d3d12wl import abi
from d3d12wl.errors import D3D12WLError, PackError, ParseError
from d3d12wl.model.objects import CommandSignature, Program
from d3d12wl.records.dtypes import Leaf, leaves, record_dtype, struct_dtype
from d3d12wl.records.layout import (
    COMMAND,
    PRIMARY,
    PROGRAM_TABLE,
    SECONDARY,
    WL_ALIGN,
    PCSLayout,
    RecordLayout,
    command_layout,
    program_table_layout,
    record_id,
)
from d3d12wl.records.schemas import layout_leaves, missing_field

__all__ = [
    "NO_PROGRAM",
    "EMPTY_IDENTIFIER",
    "match_identifiers",
    "as_u8",
    "Columns",
    "RecordData",
    "pack_records",
    "pack_structs",
    "pack_primary_records",
    "pack_secondary_records",
    "pack_program_table",
    "pack_dispatch_list_inputs",
    "pack_execute_indirect",
    "pack_count_buffer",
    "read_records",
    "read_structs",
    "read_primary_records",
    "read_secondary_records",
    "read_program_table",
    "read_dispatch_list_inputs",
    "read_execute_indirect",
    "read_count_buffer",
    "FieldRuns",
    "field_runs",
    "column_enum",
    "enum_names",
    "to_columns",
    "count_records",
    "resolve_stride",
    "DISPATCH_LIST_INPUT",
    "DISPATCH_LIST_INPUT1",
]

Columns = Mapping[str, ArrayLike]
RecordData = Union[Columns, np.ndarray]
Buffer = Union[bytes, bytearray, memoryview, np.ndarray]

DISPATCH_LIST_INPUT = "D3D12_DISPATCH_LIST_INPUT"
DISPATCH_LIST_INPUT1 = "D3D12_DISPATCH_LIST_INPUT1"
#: Alignment the spec requires of every GPU VA the records and inputs carry (:data:`d3d12wl.records.layout.WL_ALIGN`).
VA_ALIGN = WL_ALIGN


# --- the shape of a dtype: leaves and struct-level nodes -----------------------------------------------------


@dataclass(frozen=True)
class _Node:
    """A field at any depth: a leaf, or a struct payload a column may fill whole (bytes or a structured array)."""

    path: str
    offset: int
    size: int
    dtype: np.dtype
    leaf: Leaf | None


@dataclass(frozen=True)
class _Shape:
    dtype: np.dtype
    nodes: dict[str, _Node]
    leaves: tuple[Leaf, ...]
    holes: tuple[tuple[int, int], ...]  # (offset, size) of bytes no leaf covers

    def covered(self, path: str) -> list[Leaf]:
        return [lf for lf in self.leaves if lf.path == path or lf.path.startswith(path + ".")]


@cache
def _shape(dtype: np.dtype) -> _Shape:
    lvs = leaves(dtype)
    nodes: dict[str, _Node] = {lf.path: _Node(lf.path, lf.offset, lf.size, lf.dtype, lf) for lf in lvs}

    def walk(dt: np.dtype, prefix: str, base: int) -> None:
        assert dt.fields is not None
        for name in dt.names or ():
            sub, off = dt.fields[name][:2]
            if sub.names and sub.subdtype is None:
                path = prefix + name
                nodes[path] = _Node(path, base + off, sub.itemsize, sub, None)
                walk(sub, path + ".", base + off)

    walk(dtype, "", 0)
    used = np.zeros(dtype.itemsize, dtype=bool)
    for lf in lvs:
        used[lf.offset:lf.offset + lf.size] = True
    holes: list[tuple[int, int]] = []
    i = 0
    while i < dtype.itemsize:
        if not used[i]:
            j = i
            while j < dtype.itemsize and not used[j]:
                j += 1
            holes.append((i, j - i))
            i = j
        else:
            i += 1
    return _Shape(dtype, nodes, lvs, tuple(holes))


def _is_optional(path: str) -> bool:
    return path.rsplit(".", 1)[-1] == "ReservedPadding"


# --- the kernels (d3d12wl/records/_kernels.c, compiled into d3d12wl._native) ------------------------------------------

if sys.byteorder != "little":  # pragma: no cover - the records are little-endian (Windows x64) and so is the kernel
    raise ImportError("d3d12wl.records.packers needs a little-endian host")

_PLANS: dict[tuple[int, tuple[str, ...], int], _Plan] = {}
_PLANS_MAX = 512


# The kernel build the packers and readers call, bound by _use_kernels (None until the import-time binding below).
# cffi has no type information: an FFI, its lib and its ctypes/cdata are Any to the type checker.
_ffi: Any = None  # the build's FFI
_lib: Any = None  # its lib: the d3d12wl_* kernels and constants
_NULL: Any = None  # ffi.NULL
_U8_ARRAY: Any = None  # ctype uint8_t[]
_COLUMN_ARRAY: Any = None  # ctype struct d3d12wl_column[]
_GATHER_ARRAY: Any = None  # ctype struct d3d12wl_gather[]
_SIZE_T_PTR: Any = None  # ctype size_t *


def _use_kernels(ffi: Any, lib: Any) -> tuple[Any, Any]:
    """Bind the packers and readers to a build of the record kernels (the extension's at import; the tests also
    bind a -DD3D12WL_NO_SIMD build) and return the previous (ffi, lib).  Cached plans hold the build's cdata, so
    they go."""
    global _ffi, _lib, _NULL, _U8_ARRAY, _COLUMN_ARRAY, _GATHER_ARRAY, _SIZE_T_PTR
    previous = _ffi, _lib
    _ffi, _lib, _NULL = ffi, lib, ffi.NULL
    _U8_ARRAY = ffi.typeof("uint8_t[]")
    _COLUMN_ARRAY = ffi.typeof("struct d3d12wl_column[]")
    _GATHER_ARRAY = ffi.typeof("struct d3d12wl_gather[]")
    _SIZE_T_PTR = ffi.typeof("size_t *")
    _PLANS.clear()
    return previous


_use_kernels(abi.default.ffi, abi.default.lib)
_SRC_SIGNED = int(_lib.D3D12WL_COLUMN_SRC_SIGNED)
_CONVERT = int(_lib.D3D12WL_COLUMN_CONVERT)
_CHECK_RANGE = int(_lib.D3D12WL_COLUMN_CHECK_RANGE)


def _address(a: np.ndarray) -> Any:
    """A ``uint8_t *`` to ``a``'s first element (``a`` must stay referenced while the kernel runs)."""
    if a.flags.c_contiguous:
        return _ffi.from_buffer(_U8_ARRAY, a, require_writable=False)
    return _ffi.cast("uint8_t *", a.__array_interface__["data"][0])


# --- packing plans: per (dtype, column names, checks), everything that does not depend on the values ----------


@dataclass(frozen=True)
class _Check:
    """A constraint on a packed field, checked by the kernel on each output record: ``kind`` 'align' (a multiple
    of :data:`VA_ALIGN`) or 'zero', only where the ``when`` field is nonzero (None: every record)."""

    path: str
    kind: str
    rule: str
    when: str | None = None


@dataclass(frozen=True)
class _Target:
    """One input column of a plan: a leaf field (converted element by element) or a whole struct payload (bytes)."""

    path: str
    node: _Node
    offset: int
    shape: tuple[int, ...]  # the leaf's subarray shape (() for a scalar); (size,) bytes for a struct payload
    count: int  # elements per record
    dst: np.dtype  # one element of the field (uint8 for a struct payload)
    lo: int  # the field's C range (integer fields)
    hi: int
    is_leaf: bool

    @property
    def raw(self) -> tuple[Any, ...] | None:
        """The kernel column after its address for a contiguous 1-D array of exactly the field's type (a scalar
        field: a raw copy, nothing to convert or range-check); None for subarray and struct payload fields."""
        if not self.is_leaf or self.shape:
            return None
        size = self.dst.itemsize
        return (size, size, self.offset, 1, size, size, 0, self.lo, self.hi)


@dataclass(frozen=True)
class _Plan:
    dtype: np.dtype
    names: tuple[str, ...]
    checks: tuple[_Check, ...]
    targets: tuple[_Target, ...]
    zeros: tuple[tuple[Any, ...], ...]  # kernel columns that zero the bytes no input column writes
    kernel_checks: Any  # struct d3d12wl_check[] of the applied checks (read only), or NULL
    applied: tuple[tuple[_Check, Leaf], ...]  # the checks whose field the record has, in kernel order
    raw: tuple[tuple[np.dtype, tuple[Any, ...]] | None, ...]  # per target: (field type, _Target.raw) or None


def _plan(dtype: np.dtype, names: tuple[str, ...], checks: tuple[_Check, ...], what: str) -> _Plan:
    key = (id(dtype), names, id(checks))
    plan = _PLANS.get(key)
    if plan is not None and plan.dtype is dtype and plan.checks is checks:
        return plan
    plan = _make_plan(dtype, names, checks, what)
    if len(_PLANS) >= _PLANS_MAX:
        _PLANS.clear()
    _PLANS[key] = plan  # the plan holds dtype and checks, so their ids stay theirs while the entry lives
    return plan


def _make_plan(dtype: np.dtype, names: tuple[str, ...], checks: tuple[_Check, ...], what: str) -> _Plan:
    shape = _shape(dtype)
    covered: dict[str, str] = {}
    targets: list[_Target] = []
    for path in names:
        node = shape.nodes.get(path)
        if node is None:
            known = ", ".join(lf.path for lf in shape.leaves)
            raise PackError(f"unknown column {path!r}; columns of this record: {known}", where=what)
        for lf in shape.covered(path) if node.leaf is None else [node.leaf]:
            if lf.path in covered:
                raise PackError(f"columns {covered[lf.path]!r} and {path!r} both write {lf.path!r}", where=what)
            covered[lf.path] = path
        if node.leaf is not None:
            lf = node.leaf
            lo, hi = (int(np.iinfo(lf.dtype).min), int(np.iinfo(lf.dtype).max)) if lf.dtype.kind in "ui" else (0, 0)
            count = int(np.prod(lf.shape, dtype=np.int64))
            targets.append(_Target(path, node, lf.offset, lf.shape, count, lf.dtype, lo, hi, True))
        else:
            targets.append(_Target(path, node, node.offset, (node.size,), node.size, np.dtype(np.uint8), 0, 255,
                                   False))
    missing = [lf.path for lf in shape.leaves if lf.path not in covered and not _is_optional(lf.path)]
    if missing:
        raise PackError(f"missing column(s) {', '.join(map(repr, missing))}", where=what)
    zero = list(shape.holes) + [(lf.offset, lf.size) for lf in shape.leaves if lf.path not in covered]
    zeros = tuple((_NULL, 0, 0, off, 1, 1, size, 0, 0, 0) for off, size in sorted(zero))
    rows, applied = [], []
    for c in checks:
        node = shape.nodes.get(c.path)
        if node is None or node.leaf is None:
            continue  # the record has no such field: nothing to check
        lf = node.leaf
        when = shape.nodes[c.when].leaf if c.when is not None else None
        kind = _lib.D3D12WL_CHECK_ALIGN if c.kind == "align" else _lib.D3D12WL_CHECK_ZERO
        rows.append((lf.offset, lf.size, kind, VA_ALIGN, when.offset if when else 0, when.size if when else 0, 0))
        applied.append((c, lf))
    kernel_checks = _ffi.new("struct d3d12wl_check[]", rows) if rows else _NULL
    raw = tuple(None if t.raw is None else (t.dst, t.raw) for t in targets)
    return _Plan(dtype, names, checks, tuple(targets), zeros, kernel_checks, tuple(applied), raw)


# --- values -> one kernel column ------------------------------------------------------------------------------------


def _safe_cast(src: np.dtype, dst: np.dtype) -> bool:
    """Whether every value of integer type ``src`` fits integer type ``dst`` (numpy's 'safe' casting)."""
    if src.kind == dst.kind:
        return src.itemsize <= dst.itemsize
    return src.kind == "u" and src.itemsize < dst.itemsize  # unsigned into a wider signed type


def _leaf_array(t: _Target, value: ArrayLike, what: str) -> np.ndarray:
    a = value if isinstance(value, np.ndarray) else np.asarray(value)
    if a.dtype.kind not in "uibf":
        raise PackError(f"column {t.path!r} has dtype {a.dtype}, not numbers", where=what)
    if a.dtype.kind == "f" and t.dst.kind in "ui":
        raise PackError(f"column {t.path!r} holds {a.dtype} values but the field is {t.dst}; pass integers "
                        f"(for float bits in DWORDs use .view(np.uint32))", where=what)
    return a


def _leaf_column(t: _Target, a: np.ndarray, n: int, what: str) -> tuple[np.ndarray, tuple[Any, ...]]:
    """(the array the kernel reads, its kernel column) for a leaf field: shape checked, integers converted and
    range-checked by the kernel, floats converted by numpy first."""
    per_record = a.shape == (n, *t.shape)
    if not per_record and a.shape != t.shape:
        if a.ndim and a.shape[0] != n:
            raise PackError(f"column {t.path!r} has {a.shape[0]} values, expected {n}", where=what)
        raise PackError(f"column {t.path!r} has shape {a.shape}, expected {(n, *t.shape)} or {t.shape}", where=what)
    if len(t.shape) > 1:
        a = a.reshape((n, t.count) if per_record else (t.count,))
    dst = t.dst
    flags = 0
    if dst.kind == "f":
        if a.dtype != dst:
            a = a.astype(dst)
    else:
        if a.dtype.kind == "b":
            a = a.view(np.uint8)
        elif not a.dtype.isnative:
            a = a.astype(a.dtype.newbyteorder("="))
        if not per_record and a.dtype != dst and a.size <= 64:
            # one value for every record (a Python int is int64): converted here, so the kernel copies raw lanes
            if a.size and not _safe_cast(a.dtype, dst) and (int(a.min()) < t.lo or int(a.max()) > t.hi):
                raise PackError(f"column {t.path!r} value {a.tolist()} at record 0 is outside {dst} "
                                f"[{t.lo}, {t.hi}]", where=what)
            a = a.astype(dst)
        src = a.dtype
        if src.kind == "i":
            flags |= _SRC_SIGNED
        if src.itemsize != dst.itemsize or src.kind != dst.kind:
            flags |= _CONVERT
        if not _safe_cast(src, dst):
            flags |= _CHECK_RANGE
    size = a.dtype.itemsize
    return a, (_address(a), a.strides[0] if per_record else 0, a.strides[-1] if t.shape else size, t.offset,
               t.count, size, dst.itemsize, flags, t.lo, t.hi)


def _bytes_column(t: _Target, a: np.ndarray, n: int) -> tuple[Any, ...]:
    """The kernel column of a struct payload given as uint8 rows (``(n, size)``) or one value (``(size,)``)."""
    per_record = a.ndim == 2
    return (_address(a), a.strides[0] if per_record else 0, a.strides[-1], t.offset, t.count, 1, 1, 0, 0, 0)


def column_views(data: RecordData, prefix: str = "") -> dict[str, Any]:
    """A structured array as column views keyed by leaf path (a mapping is returned as is)."""
    if isinstance(data, np.ndarray):
        if data.dtype.names is None:
            raise PackError(f"expected a structured array or a mapping of columns, got an array of {data.dtype}")
        return {prefix + lf.path: _field_view(data, lf.path) for lf in leaves(data.dtype)}
    return dict(data)


def _field_view(arr: np.ndarray, path: str) -> np.ndarray:
    view = arr
    for part in path.split("."):
        view = view[part]
    return view


def _rows(value: Any, node: _Node) -> int | None:
    """How many records a column gives values for (None: one value broadcast to every record)."""
    if node.leaf is not None:
        shape = np.shape(value)
        return shape[0] if len(shape) > len(node.leaf.shape) else None
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        return len(value) if value.ndim else None
    if isinstance(value, (bytes, bytearray, memoryview)):
        size = memoryview(value).nbytes
        return None if size == node.size else size // node.size
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], (bytes, bytearray)):
        return len(value)
    shape = np.shape(value)
    if np.asarray(value).dtype.kind in "VS":
        return shape[0] if shape else None
    return shape[0] if len(shape) == 2 else None


def count_records(layout: RecordLayout, data: RecordData) -> int:
    """How many records ``data`` (columns or a structured array) holds for ``layout``, as the packers count them."""
    if isinstance(data, np.ndarray):
        return len(data)
    shape = _shape(record_dtype(layout))
    rows = []
    for path, value in dict(data).items():
        node = shape.nodes.get(path)
        if node is None:
            raise PackError(f"unknown column {path!r}", where=_what(layout))
        rows.append((path, _rows(value, node)))
    return _count(rows, None, _what(layout))


def _count(rows: list[tuple[str, int | None]], count: int | None, what: str) -> int:
    n = count
    for path, r in rows:
        if r is not None:
            if n is None:
                n = r
            elif r != n:
                raise PackError(f"column {path!r} has {r} values, expected {n}", where=what)
    if n is None:
        raise PackError("every column is a single value: pass count= to say how many records", where=what)
    if isinstance(n, bool) or not isinstance(n, int | np.integer) or n < 0:
        raise PackError(f"count must be a non-negative integer, not {n!r}", where=what)
    return int(n)


# --- the one packing routine ----------------------------------------------------------------------------------


# --- enum member names -> values ---------------------------------------------------------------------------------


def _enum_fields(ctype: str, prefix: str) -> dict[str, str]:
    """Leaf path -> enum type of every enum-typed member of ``ctype`` (the C type of a field at ``prefix``)."""
    decls = abi.default.decls
    resolved = abi.default.resolve(ctype)
    if resolved in decls.enums:
        return {prefix: resolved}
    if resolved not in decls.aggregates:
        return {}
    out = {}
    for path, f, _ in abi.type_info(resolved).walk():
        if f.nested is None:
            t = abi.default.resolve(re.sub(r"\[\d+\]$", "", f.type).strip())
            if t in decls.enums:
                out[f"{prefix}.{path}" if prefix else path] = t
    return out


def _layout_enums(layout: RecordLayout) -> dict[str, str]:
    out: dict[str, str] = {}
    for f in layout.fields:
        out.update(_enum_fields(f.ctype, f.name))
    return out


def column_enum(layout: PCSLayout | RecordLayout | str, column: str) -> str:
    """The C enum of an enum-typed column of a record (``"arg1_IndexBuffer.Format"``: ``DXGI_FORMAT``) or of a
    declared struct given by name (``"D3D12_DISPATCH_LIST_INPUT"``, ``"Flags"``); a :class:`PackError` naming the
    enum-typed columns when ``column`` is not one."""
    if isinstance(layout, str):
        enums = _enum_fields(layout, "")
        what = layout
    else:  # (a PCS's records: its argument columns are named apart, arg0_..., argN_...)
        records = [layout] if isinstance(layout, RecordLayout) else [r for r in (
            layout.primary, layout.secondary, layout.program_table) if r is not None]
        enums = {k: v for r in records for k, v in _layout_enums(r).items()}
        what = ", ".join(record_id(r) for r in records)
    if column not in enums:
        raise PackError(f"column {column!r} is not enum-typed; enum-typed columns: {', '.join(enums) or 'none'}",
                        where=what)
    return enums[column]


def enum_names(values: ArrayLike, enum: str) -> np.ndarray:
    """The member names of an integer column a reader gave back (``read_*``'s enum fields are the raw integers):
    a numpy string array of the same shape, each value as ``decode`` shows it (its short name, a flag enum's value
    as ``A|B``, a value no member names as its number; ``abi.enum_text``), one lookup per distinct value.
    ``enum`` is the C enum (:func:`column_enum` finds a column's)."""
    a = np.asarray(values)
    if a.dtype.kind not in "iu":
        raise PackError(f"enum_names takes an integer column, not {a.dtype}", where=enum)
    distinct, inverse = np.unique(a, return_inverse=True)
    names = np.array([abi.enum_text(enum, int(v)) for v in distinct], dtype=str)
    return names[inverse].reshape(a.shape)


def _holds_names(value: Any) -> bool:
    if isinstance(value, str):
        return True
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "UO" and (value.dtype.kind == "U" or any(isinstance(v, str) for v in value.flat))
    return isinstance(value, list | tuple) and any(isinstance(v, str) for v in value)


def _member_value(enum: str, name: str, path: str, what: str) -> int:
    parts = [p.strip() for p in name.split("|")] if abi.is_flag_enum(enum) else [name]
    value = 0
    for part in parts:
        try:
            value |= abi.enum_value(enum, part)
        except D3D12WLError as exc:
            raise PackError(f"column {path!r}: {exc}", where=what) from None
    return value


def _enum_column(path: str, value: Any, enums: Mapping[str, str], what: str) -> Any:
    """Member names of the enum of field ``path`` as their values (ints pass through)."""
    enum = enums.get(path)
    if enum is None:
        raise PackError(f"column {path!r} holds names, but its field is not an enum", where=what)
    if isinstance(value, str):
        return _member_value(enum, value, path, what)
    a = value if isinstance(value, np.ndarray) else np.asarray(value, dtype=object)  # ["R16_UINT", 42] stays mixed
    if a.dtype.kind == "U":  # one lookup per distinct name
        names, inverse = np.unique(a, return_inverse=True)
        values = np.array([_member_value(enum, str(n), path, what) for n in names], dtype=np.int64)
        return values[inverse].reshape(a.shape)
    flat = [v if not isinstance(v, str) else _member_value(enum, v, path, what) for v in a.astype(object).flat]
    if not all(isinstance(v, int | np.integer) and not isinstance(v, bool) for v in flat):
        raise PackError(f"column {path!r} of enum {enum} holds values that are neither member names nor integers",
                        where=what)
    return np.array(flat, dtype=np.int64).reshape(a.shape)


def _pack(dtype: np.dtype, data: RecordData, *, what: str, count: int | None = None,
          out: np.ndarray | None = None, records: int | None = None, checks: tuple[_Check, ...] = (),
          enums: Callable[[], Mapping[str, str]] | None = None) -> np.ndarray:
    """Every column into its field of ``n`` records of ``dtype.itemsize`` bytes, padding zeroed, by one kernel call
    (d3d12wl_scatter_columns) that also range-checks narrowed integers and applies ``checks``; the first failing
    record raises PackError naming the column and the record.  ``enums`` gives the enum of each enum-typed leaf
    (asked only when a column holds member names)."""
    columns = column_views(data)
    if enums is not None:
        named = [path for path, value in columns.items() if _holds_names(value)]
        if named:
            table = enums()
            for path in named:
                columns[path] = _enum_column(path, columns[path], table, what)
    plan = _plan(dtype, tuple(columns), checks, what)
    raw = _raw_columns(plan, columns, count)
    if raw is not None:  # the common form: nothing to convert, broadcast or check but the common length
        n, raw_arrays, raw_kernel_columns = raw
        if records is not None and n != records:
            raise PackError(f"{n} records given, but this form holds exactly {records}", where=what)
        return _scatter(plan, dtype.itemsize, n, raw_kernel_columns, raw_arrays, raw_arrays, out, what)
    values: list[Any] = []
    rows: list[tuple[str, int | None]] = []
    for t in plan.targets:
        value = columns[t.path]
        if t.is_leaf:
            value = _leaf_array(t, value, what)
            rows.append((t.path, value.shape[0] if value.ndim > len(t.shape) else None))
        else:
            rows.append((t.path, _rows(value, t.node)))
        values.append(value)
    n = _count(rows, count, what)
    if records is not None and n != records:
        raise PackError(f"{n} records given, but this form holds exactly {records}", where=what)
    # every column's shape and type is checked before anything is written
    arrays: list[np.ndarray] = []
    kernel_columns: list[tuple[Any, ...]] = []
    for t, value in zip(plan.targets, values):
        if t.is_leaf:
            a, col = _leaf_column(t, value, n, what)
        else:
            a = _struct_column(t.path, value, n, t.node, what)
            col = _bytes_column(t, a, n)
        arrays.append(a)
        kernel_columns.append(col)
    return _scatter(plan, dtype.itemsize, n, kernel_columns, arrays, values, out, what)


def _raw_columns(plan: _Plan, columns: dict[str, Any], count: int | None) -> tuple[int, list[Any], list[Any]] | None:
    """(n, the arrays, their kernel columns) when every column is a C-contiguous 1-D array of exactly its scalar
    field's type, all of one length (the form engine code packs from): the kernel copies them raw, so the general
    path's conversions and shape checks have nothing to do; None otherwise (the general path checks everything)."""
    n = count
    values: list[Any] = []
    kernel_columns: list[Any] = []
    for t, raw in zip(plan.targets, plan.raw):
        a = columns[t.path]
        if raw is None or type(a) is not np.ndarray or a.ndim != 1 or not a.flags.c_contiguous or \
                (a.dtype is not raw[0] and a.dtype != raw[0]):  # (numpy's builtin dtypes are singletons)
            return None
        if n is None:
            n = len(a)
        elif len(a) != n:
            return None
        values.append(a)
        kernel_columns.append((_ffi.from_buffer(_U8_ARRAY, a, require_writable=False), *raw[1]))
    return (n, values, kernel_columns) if n is not None else None


def _scatter(plan: _Plan, stride: int, n: int, kernel_columns: list[Any], arrays: list[np.ndarray],
             values: list[Any], out: np.ndarray | None, what: str) -> np.ndarray:
    """The one kernel call: ``kernel_columns`` (then the plan's zeroing columns) into ``n`` records of ``stride``
    bytes, with the plan's checks; the first failure raises PackError."""
    buf = _allocate(n * stride, what, zeroed=False) if out is None else _output(out, n * stride, what)
    if n == 0:
        return buf
    kernel_columns.extend(plan.zeros)
    failed = _ffi.new(_SIZE_T_PTR)
    first = _lib.d3d12wl_scatter_columns(_ffi.from_buffer(_U8_ARRAY, buf), stride, n,
                                         _ffi.new(_COLUMN_ARRAY, kernel_columns), len(kernel_columns),
                                         plan.kernel_checks, len(plan.applied), failed)
    if first >= 0:
        _raise_failure(plan, arrays, values, buf, stride, int(first), int(failed[0]), len(kernel_columns), what)
    return buf


def _raise_failure(plan: _Plan, arrays: list[np.ndarray], values: list[Any], buf: np.ndarray, stride: int,
                   index: int, item: int, ncols: int, what: str) -> None:
    """The PackError for the kernel's first failure: a value outside its field's C type (column ``item``), or a
    failed check (``item - ncols``)."""
    if item < len(plan.targets):  # the zeroing columns that follow the targets never fail
        t = plan.targets[item]
        a = values[item]
        v = a[index] if a.ndim > len(t.shape) else a
        raise PackError(f"column {t.path!r} value {v.tolist()} at record {index} is outside {t.dst} "
                        f"[{t.lo}, {t.hi}]", where=what)
    check, lf = plan.applied[item - ncols]
    v = int(np.frombuffer(buf, dtype=lf.dtype, count=1, offset=index * stride + lf.offset)[0])
    if check.kind == "align":
        raise PackError(f"{check.path} 0x{v:x} at record {index} is not {VA_ALIGN}-byte aligned",
                        where=f"{what} column {check.path!r}", rule=check.rule)
    raise PackError(f"{check.path} must be 0, is {v} at record {index}", where=f"{what} column {check.path!r}",
                    rule=check.rule)


def _struct_column(path: str, value: Any, n: int, node: _Node, what: str) -> np.ndarray:
    """A whole struct payload given as structured values or raw bytes, as uint8 rows of the payload's size
    (``(n, size)``, or ``(size,)`` for one value given for every record)."""
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        rows = value.reshape(1) if value.ndim == 0 else value
        sub = _pack(node.dtype, rows, what=f"{what} column {path!r}", count=len(rows))
        if value.ndim == 0:
            return sub
        return sub.reshape(-1, node.size) if len(value) == n else _bad_rows(path, len(value), n, what)
    if isinstance(value, (bytes, bytearray, memoryview)):
        a = np.frombuffer(value, dtype=np.uint8)
    elif isinstance(value, (list, tuple)) and value and isinstance(value[0], (bytes, bytearray)):
        if any(len(v) != node.size for v in value):
            raise PackError(f"column {path!r} needs {node.size} bytes per record", where=what)
        a = np.frombuffer(b"".join(value), dtype=np.uint8).reshape(-1, node.size)
    else:
        a = np.asarray(value)
        if a.dtype.kind in "VS" and a.dtype.itemsize == node.size:
            a = np.ascontiguousarray(a).view(np.uint8).reshape(*a.shape, node.size)
        elif a.dtype != np.uint8:
            raise PackError(f"column {path!r} is the struct payload {node.path}: give a structured array, "
                            f"{node.size}-byte values, uint8 rows of {node.size}, or its member columns", where=what)
    if a.shape == (node.size,):
        return a
    if a.ndim != 2 or a.shape[1] != node.size:
        raise PackError(f"column {path!r} needs {node.size} bytes per record, got shape {a.shape}", where=what)
    return a if len(a) == n else _bad_rows(path, len(a), n, what)


def _bad_rows(path: str, got: int, n: int, what: str) -> np.ndarray:
    raise PackError(f"column {path!r} has {got} values, expected {n}", where=what)


def _allocate(nbytes: int, what: str, *, zeroed: bool) -> np.ndarray:
    """A new output buffer; a count too large to allocate (a hostile or corrupt count) is a PackError naming the
    size, not a bare MemoryError."""
    try:
        return np.zeros(nbytes, dtype=np.uint8) if zeroed else np.empty(nbytes, dtype=np.uint8)
    except (MemoryError, ValueError) as exc:
        raise PackError(f"cannot allocate {nbytes:,} bytes of output ({exc})", where=what) from None


def _output(out: np.ndarray | None, nbytes: int, what: str) -> np.ndarray:
    if out is None:
        return _allocate(nbytes, what, zeroed=True)
    if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.ndim != 1 or not out.flags.c_contiguous:
        raise PackError("out= must be a 1-D C-contiguous uint8 array", where=what)
    if not out.flags.writeable:
        raise PackError("out= is read-only", where=what)
    if out.nbytes < nbytes:
        raise PackError(f"out= holds {out.nbytes} bytes, {nbytes} needed", where=what)
    return out[:nbytes]


# --- strides -----------------------------------------------------------------------------------------------------


def resolve_stride(layout: RecordLayout, stride: int | None) -> int:
    """``stride`` (default: the layout's ``min_stride``) checked against the spec for the record class: at least the
    minimum, a multiple of 8 (Work Lists) or 4 (ExecuteIndirect), 0 only where the broadcast form exists."""
    if stride is None:
        return layout.min_stride
    stride = int(stride)
    problems = layout.stride_problems(stride)
    if stride == 0 and not layout.broadcast_ok:
        problems.append(f"stride 0 (the broadcast form) is not allowed for {layout.record} records")
    if stride < 0:
        problems = [f"stride {stride} is negative"]
    if problems:
        rule = "IndirectDrawing.md Validation" if layout.record == COMMAND else "rule 25(e), Stride derivation"
        raise PackError("; ".join(problems), where=f"{layout.record} records of {layout.owner!r}", rule=rule)
    return stride


def _what(layout: RecordLayout) -> str:
    return f"{layout.record} records of {layout.owner!r}"


def pack_records(layout: RecordLayout, data: RecordData, *, stride: int | None = None, count: int | None = None,
                 out: np.ndarray | None = None) -> np.ndarray:
    """Pack records of any class into a uint8 array of ``n * stride`` bytes (for stride 0, the broadcast form,
    exactly one record of ``min_stride`` bytes)."""
    stride = resolve_stride(layout, stride)
    return _pack(_record_dtype(layout, stride), data, what=_what(layout), count=count, out=out,
                 records=1 if stride == 0 else None, enums=lambda: _layout_enums(layout))


_DTYPES: dict[tuple[int, int], tuple[RecordLayout, np.dtype]] = {}


def _record_dtype(layout: RecordLayout, stride: int) -> np.dtype:
    """``record_dtype(layout, stride or None)``, looked up by the layout's identity first (hashing a layout walks
    every field; the packers and readers ask once per call)."""
    hit = _DTYPES.get((id(layout), stride))
    if hit is not None and hit[0] is layout:
        return hit[1]
    dtype = record_dtype(layout, stride or None)
    if len(_DTYPES) >= _PLANS_MAX:
        _DTYPES.clear()
    _DTYPES[(id(layout), stride)] = (layout, dtype)  # the entry holds the layout, so the id stays its own
    return dtype


def record_layout(layout: PCSLayout | RecordLayout | Program, kind: str) -> RecordLayout:
    """The ``kind`` (``layout.PRIMARY`` / ``SECONDARY`` / ``PROGRAM_TABLE``) record layout a packer works on: the
    layout itself, that record class of a PCS's layouts, or a program's program-table record."""
    if isinstance(layout, Program):
        table = program_table_layout(layout) if kind == PROGRAM_TABLE else None
        if table is None:
            raise PackError(f"program {layout.name!r} has no {kind} record layout (a raytracing-class program has no "
                            "program table)", rule="Program Table")
        return table
    if isinstance(layout, RecordLayout):
        if layout.record != kind:
            raise PackError(f"expected a {kind} record layout, got a {layout.record} layout of {layout.owner!r}")
        return layout
    rec = {PRIMARY: layout.primary, SECONDARY: layout.secondary, PROGRAM_TABLE: layout.program_table}[kind]
    if rec is None:
        raise PackError(f"program command signature {layout.name!r} has no {kind} records",
                        rule="Primary record layout" if kind == SECONDARY else "Program Table")
    return rec


#: spec D3D12_WORK_LIST_PRIMARY_RECORD (and _RAYTRACING_RECORD): SecondaryRecords 8-byte aligned where
#: NumSecondaryRecords > 0; the raytracing header's ReservedPadding 0.
_PRIMARY_CHECKS = (
    _Check("SecondaryRecords", "align", "D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords", when="NumSecondaryRecords"),
    _Check("ReservedPadding", "zero", "D3D12_WORK_LIST_RAYTRACING_RECORD"),
)


def pack_primary_records(layout: PCSLayout | RecordLayout, data: RecordData, *, stride: int | None = None,
                         count: int | None = None, out: np.ndarray | None = None, validate: bool = True) -> np.ndarray:
    """A primary list (spec "Primary record layout"): the header members (``ProgramTableIndex``,
    ``NumSecondaryRecords``, ``SecondaryRecords`` as the header has them) plus the primary-sourced payloads.
    ``stride`` is the dispatch's ``ProgramInputs.StrideInBytes`` (default: the minimum).  With ``validate``,
    ``SecondaryRecords`` must be 8-byte aligned where ``NumSecondaryRecords`` > 0 (spec
    ``D3D12_WORK_LIST_PRIMARY_RECORD``) and the raytracing header's ``ReservedPadding`` 0."""
    rec = record_layout(layout, PRIMARY)
    stride = resolve_stride(rec, stride)
    return _pack(_record_dtype(rec, stride), data, what=_what(rec), count=count, out=out,
                 checks=_PRIMARY_CHECKS if validate else (), enums=lambda: _layout_enums(rec))


def pack_secondary_records(layout: PCSLayout | RecordLayout, data: RecordData, *, stride: int | None = None,
                           count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """A secondary list (spec "Record byte layouts").  ``stride`` defaults to the PCS's
    ``SecondaryRecordByteStride`` when a :class:`PCSLayout` is given (0 there is the broadcast form: one record),
    else to the minimum."""
    rec = record_layout(layout, SECONDARY)
    if stride is None and isinstance(layout, PCSLayout):
        stride = layout.pcs.SecondaryRecordByteStride
    return pack_records(rec, data, stride=stride, count=count, out=out)


def pack_program_table(layout: RecordLayout | PCSLayout | Program, data: RecordData, *, stride: int | None = None,
                       count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """A program table (spec "Program table slot layout", "Program table record layout"): ``ProgramIdentifier``
    (32-byte values, uint8 rows, or ``ProgramIdentifier.OpaqueData`` as uint64[n, 4]) plus the local-root-argument
    tail columns.  ``stride``: 0 (broadcast, one slot) or at least the minimum, a multiple of 8, at most
    ``D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE``."""
    rec = record_layout(layout, PROGRAM_TABLE)
    limit = abi.constant("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE")
    if stride is not None and stride > limit:
        raise PackError(f"stride {stride} exceeds D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE ({limit})", where=_what(rec),
                        rule="D3D12_WORK_LIST_PROGRAM_TABLE_BINDING")
    return pack_records(rec, data, stride=stride, count=count, out=out)


def pack_columns(dtype: np.dtype, data: RecordData, *, out: np.ndarray | None = None) -> np.ndarray:
    """Columns (``data``: a mapping of field name to array, all of one length) into records of any structured
    ``dtype`` (fields of integer and bool types), by the one kernel call every packer makes; returns the uint8
    buffer of ``len * dtype.itemsize`` bytes (``out`` when given)."""
    return _pack(dtype, data, what=f"records of {dtype}", out=out)


def pack_structs(name: str, data: RecordData, *, count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """An array of a fixed struct (``sizeof`` bytes each) from columns or a structured array."""
    return _pack(struct_dtype(name), data, what=f"{name} array", count=count, out=out,
                 enums=lambda: _enum_fields(name, ""))


def pack_dispatch_list_inputs(data: RecordData, *, tier: int = 1, count: int | None = None,
                              out: np.ndarray | None = None, validate: bool = True) -> np.ndarray:
    """``D3D12_DISPATCH_LIST_INPUT`` (tier 1) or ``D3D12_DISPATCH_LIST_INPUT1`` (tier 2) values, ``sizeof`` apart
    (24 and 40 bytes, so each stays 8-byte aligned after an aligned start).  Columns: ``NumProgramInputs``,
    ``Flags``, ``ProgramInputs.StartAddress``, ``ProgramInputs.StrideInBytes`` and for tier 2 ``SignatureIndex``,
    ``NextDispatchList`` (``ReservedPadding`` optional).  With ``validate``: StartAddress and StrideInBytes 8-byte
    aligned when NumProgramInputs > 0 (spec ``D3D12_DISPATCH_LIST_INPUT``), ReservedPadding 0 and
    NextDispatchList 0 or 8-byte aligned (spec ``D3D12_DISPATCH_LIST_INPUT1``)."""
    if tier not in (1, 2):
        raise PackError(f"tier must be 1 or 2, not {tier}")
    name = DISPATCH_LIST_INPUT if tier == 1 else DISPATCH_LIST_INPUT1
    return _pack(struct_dtype(name), data, what=f"{name} array", count=count, out=out,
                 checks=_DISPATCH_CHECKS[name] if validate else (), enums=lambda: _enum_fields(name, ""))


#: spec D3D12_DISPATCH_LIST_INPUT::ProgramInputs: StartAddress and StrideInBytes 8-byte aligned where
#: NumProgramInputs > 0; D3D12_DISPATCH_LIST_INPUT1: ReservedPadding 0, NextDispatchList 0 or 8-byte aligned.
_DISPATCH_CHECKS = {
    name: tuple(_Check(path, "align", f"{name}::ProgramInputs", when="NumProgramInputs")
                for path in ("ProgramInputs.StartAddress", "ProgramInputs.StrideInBytes"))
    + ((_Check("ReservedPadding", "zero", f"{name}::ReservedPadding"),
        _Check("NextDispatchList", "align", f"{name}::NextDispatchList")) if name == DISPATCH_LIST_INPUT1 else ())
    for name in (DISPATCH_LIST_INPUT, DISPATCH_LIST_INPUT1)
}


def pack_execute_indirect(layout: RecordLayout | CommandSignature, data: RecordData, *, stride: int | None = None,
                          count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """An ExecuteIndirect argument buffer (IndirectDrawing.md: arguments tightly packed in pArgumentDescs order,
    ByteStride a multiple of 4).  ``stride`` defaults to the command signature's ``ByteStride`` when one is
    given, else to the minimum."""
    if isinstance(layout, CommandSignature):
        if stride is None and layout.ByteStride:
            stride = layout.ByteStride
        layout = command_layout(layout)
    if layout.record != COMMAND:
        raise PackError(f"expected an ExecuteIndirect command layout, got a {layout.record} layout")
    return pack_records(layout, data, stride=stride, count=count, out=out)


def pack_count_buffer(count: int) -> np.ndarray:
    """The ExecuteIndirect count buffer: one UINT32 (IndirectDrawing.md, "count buffer")."""
    if not 0 <= int(count) <= 0xFFFFFFFF:
        raise PackError(f"count {count} is outside UINT32", where="count buffer")
    return np.array([count], dtype="<u4").view(np.uint8)


# --- readers -----------------------------------------------------------------------------------------------------


def as_u8(data: Buffer) -> np.ndarray:
    """``data`` (bytes, a buffer, any C-contiguous array) as a flat uint8 array, without a copy where it can."""
    if type(data) is np.ndarray and data.dtype is _U8 and data.ndim == 1 and data.flags.c_contiguous:
        return data  # what the packers return
    if isinstance(data, np.ndarray):
        return data.reshape(-1).view(np.uint8) if data.flags.c_contiguous else np.ascontiguousarray(data).view(
            np.uint8).reshape(-1)
    return np.frombuffer(data, dtype=np.uint8)


_U8 = np.dtype(np.uint8)


def _read(dtype: np.dtype, data: Buffer, count: int | None, offset: int, where: Callable[[int], str],
          leaves_: Callable[[], list[tuple[str, int, int]]]) -> np.ndarray:
    buf = as_u8(data)
    available = max(0, buf.nbytes - offset)
    size = dtype.itemsize
    n = available // size if count is None else int(count)
    if n * size > available:
        index = available // size
        field = missing_field(leaves_(), available - index * size, size)
        raise ParseError(f"truncated: {n} records of {size} bytes need {n * size} bytes at offset {offset}, "
                         f"only {available} available", where=f"{where(index)} field {field}")
    return np.frombuffer(buf, dtype=dtype, count=n, offset=offset) if n else np.zeros(0, dtype=dtype)


def read_records(layout: RecordLayout, data: Buffer, *, stride: int | None = None, count: int | None = None,
                 offset: int = 0) -> np.ndarray:
    """Records of ``layout`` as a structured array viewing ``data`` (no copy).  ``count`` defaults to every whole
    record in the buffer (one for stride 0, the broadcast form)."""
    stride = resolve_stride(layout, stride)
    if stride == 0 and count is None:
        count = 1
    return _read(_record_dtype(layout, stride), data, count, offset,
                 lambda i: f"{layout.record} record {i} of {layout.owner!r}", lambda: layout_leaves(layout))


def read_primary_records(layout: PCSLayout | RecordLayout, data: Buffer, **kw: Any) -> np.ndarray:
    """A primary list (``D3D12_DISPATCH_LIST_INPUT::ProgramInputs``) read back: :func:`read_records` of the PCS's
    primary record, at ``stride`` (default the minimum; the call's ``ProgramInputs.StrideInBytes`` is the real one)."""
    return read_records(record_layout(layout, PRIMARY), data, **kw)


def read_secondary_records(layout: PCSLayout | RecordLayout, data: Buffer, **kw: Any) -> np.ndarray:
    """A secondary list read back: :func:`read_records` of the PCS's secondary record, at the PCS's
    ``SecondaryRecordByteStride`` unless ``stride`` is given (0: the broadcast form, one record)."""
    if kw.get("stride") is None and isinstance(layout, PCSLayout):
        kw["stride"] = layout.pcs.SecondaryRecordByteStride
    return read_records(record_layout(layout, SECONDARY), data, **kw)


def read_program_table(layout: RecordLayout | PCSLayout, data: Buffer, **kw: Any) -> np.ndarray:
    """A program table read back: its slots (the 32-byte ``ProgramIdentifier``, then the local-root tail) as
    :func:`read_records`, at ``stride`` (default the minimum; the binding's ``StrideInBytes`` is the real one)."""
    return read_records(record_layout(layout, PROGRAM_TABLE), data, **kw)


def read_execute_indirect(layout: RecordLayout | CommandSignature, data: Buffer, **kw: Any) -> np.ndarray:
    """An ExecuteIndirect argument buffer read back (IndirectDrawing.md): one structured row per command, its
    columns named as the layout names the arguments (``arg0_Constant``, ``arg3_Draw.VertexCountPerInstance``, or
    the argument descs' ``Name``).  Given the :class:`~d3d12wl.model.objects.CommandSignature`, the stride is its
    ``ByteStride``; ``count`` defaults to every whole command in ``data`` (read the count buffer with
    :func:`read_count_buffer` and take ``min(count, MaxCommandCount)``, as the GPU does), ``offset`` is
    ``ArgumentBufferOffset`` within ``data``.  No copy: the array views ``data``."""
    if isinstance(layout, CommandSignature):
        if kw.get("stride") is None and layout.ByteStride:
            kw["stride"] = layout.ByteStride
        layout = command_layout(layout)
    return read_records(layout, data, **kw)


def read_structs(name: str, data: Buffer, *, count: int | None = None, offset: int = 0) -> np.ndarray:
    """Declared structs (``D3D12_DISPATCH_LIST_INPUT1``, ``D3D12_DRAW_ARGUMENTS``) packed at their ``sizeof``, as a
    structured array viewing ``data``; ``count`` defaults to every whole one."""
    from d3d12wl.records.schemas import struct_leaves

    return _read(struct_dtype(name), data, count, offset, lambda i: f"{name} {i}",
                 lambda: list(struct_leaves(name)))


def read_dispatch_list_inputs(data: Buffer, *, tier: int = 1, count: int | None = None, offset: int = 0) -> np.ndarray:
    """Dispatch list inputs read back: ``D3D12_DISPATCH_LIST_INPUT`` (``tier`` 1) or ``_INPUT1`` (``tier`` 2)."""
    return read_structs(DISPATCH_LIST_INPUT if tier == 1 else DISPATCH_LIST_INPUT1, data, count=count, offset=offset)


def read_count_buffer(data: Buffer, offset: int = 0) -> int:
    """The UINT32 an ExecuteIndirect count buffer holds at ``offset`` (``CountBufferOffset``); a :class:`ParseError`
    when fewer than 4 bytes are there.  The call executes ``min(count, MaxCommandCount)`` commands."""
    buf = as_u8(data)
    if buf.nbytes - offset < 4:
        raise ParseError(f"truncated: the count buffer needs 4 bytes at offset {offset}, only "
                         f"{max(0, buf.nbytes - offset)} available", where="count buffer field count (UINT32)")
    return int(np.frombuffer(buf, dtype="<u4", count=1, offset=offset)[0])


def to_columns(arr: np.ndarray, *, copy: bool = True) -> dict[str, np.ndarray]:
    """A structured array as the column mapping the packers take (leaf path -> array); ``copy`` makes each column
    contiguous and independent of the buffer (one kernel call gathers every column, d3d12wl_gather_columns)."""
    if not copy:
        return {lf.path: _field_view(arr, lf.path) for lf in leaves(arr.dtype)}
    plan = _GATHER_PLANS.get(id(arr.dtype))
    if plan is None or plan[0] is not arr.dtype:
        plan = (arr.dtype, tuple((lf.path, lf.offset, lf.size, lf.dtype, lf.shape) for lf in leaves(arr.dtype)))
        if len(_GATHER_PLANS) >= _PLANS_MAX:
            _GATHER_PLANS.clear()
        _GATHER_PLANS[id(arr.dtype)] = plan  # the entry holds the dtype, so the id stays its own
    fields = plan[1]
    flat = arr if arr.ndim == 1 else arr.reshape(-1)
    n = len(flat)
    out: dict[str, np.ndarray] = {}
    rows = []
    for path, offset, size, dtype, shape in fields:
        out[path] = column = np.empty((n, *shape), dtype=dtype)
        rows.append((_ffi.from_buffer(_U8_ARRAY, column), size, offset, size))
    if n:
        _lib.d3d12wl_gather_columns(_address(flat), flat.strides[0], n, _ffi.new(_GATHER_ARRAY, rows), len(fields))
    if arr.ndim != 1:
        out = {path: out[path].reshape(*arr.shape, *shape) for path, _, _, _, shape in fields}
    return out


_GATHER_PLANS: dict[int, tuple[np.dtype, tuple[tuple[str, int, int, np.dtype, tuple[int, ...]], ...]]] = {}


@dataclass(frozen=True)
class FieldRuns:
    """The 8-byte fields of runs of strided records as row columns (:func:`field_runs`), record by record and, in
    each, field by field: ``va``, ``rel`` (offset in the region; ``rel32`` the same as uint32, or None), ``value``,
    ``owner`` (``first_owner`` + the run; None unless asked), ``index`` (``first_index`` + the record's place in
    its run), and ``target`` / ``target_offset`` (None unless ``ranges`` were given): the code of the range each
    value falls in and its offset there, or -1 and 0."""

    va: np.ndarray
    rel: np.ndarray
    rel32: np.ndarray | None
    value: np.ndarray
    owner: np.ndarray | None
    index: np.ndarray
    target: np.ndarray | None
    target_offset: np.ndarray | None


def field_runs(region: np.ndarray, region_base: int, bases: np.ndarray, counts: np.ndarray, stride: int,
               offsets: Sequence[int], *, first_owner: int | None = None, first_index: int = 0,
               rel32: bool = False, ranges: np.ndarray | None = None,
               tables: np.ndarray | None = None) -> FieldRuns:
    """Run k's ``counts[k]`` records at ``bases[k] + j * stride`` of ``region`` (a uint8 array of the bytes mapped
    at ``region_base``), the 8-byte field at each of ``offsets`` of each record, read in one pass by the
    ``d3d12wl_field_runs`` kernel, which checks first that every field lies inside the region.

    ``ranges`` (an ``(m, 3)`` uint64 array of ranges: start, last, code) with ``tables`` (``(len(offsets), 2)``:
    per field its first range and how many; each table's ranges ascending and disjoint): each value's ``target``
    is the code of the range of its field's table holding it, ``target_offset`` the value less the range's
    start (-1 and 0 in none)."""
    bases = np.ascontiguousarray(bases, dtype=np.uint64)
    counts = np.ascontiguousarray(counts, dtype=np.int64)
    offs = np.ascontiguousarray(offsets, dtype=np.uint64)
    if len(bases) != len(counts):
        raise ValueError(f"field_runs: {len(bases)} bases and {len(counts)} counts")
    rows = max(int(counts.sum()), 0) * len(offs)
    if ranges is not None:
        ranges, tables = _range_tables(ranges, tables, len(offs))
    va, rel, value = (np.empty(rows, dtype=np.uint64) for _ in range(3))
    index = np.empty(rows, dtype=np.int64)
    owner = np.empty(rows, dtype=np.int64) if first_owner is not None else None
    r32 = np.empty(rows, dtype=np.uint32) if rel32 else None
    target = np.empty(rows, dtype=np.int32) if ranges is not None else None
    target_offset = np.empty(rows, dtype=np.uint64) if ranges is not None else None

    def ptr(a: np.ndarray | None, ctype: str) -> Any:
        return _NULL if a is None else _ffi.cast(ctype, a.ctypes.data)

    if len(counts) and len(offs):  # (the kernel checks the runs first: a negative count too)
        bad = _lib.d3d12wl_field_runs(ptr(region, "uint8_t *"), len(region), region_base, ptr(bases, "uint64_t *"),
                                      ptr(counts, "int64_t *"), len(counts), stride, ptr(offs, "uint64_t *"),
                                      len(offs), first_owner or 0, first_index, ptr(ranges, "uint64_t *"),
                                      ptr(tables, "int64_t *"), rows, ptr(va, "uint64_t *"), ptr(rel, "uint64_t *"),
                                      ptr(r32, "uint32_t *"), ptr(value, "uint64_t *"), ptr(owner, "int64_t *"),
                                      ptr(index, "int64_t *"), ptr(target, "int32_t *"),
                                      ptr(target_offset, "uint64_t *"))
        if bad >= 0:
            raise ValueError(f"field_runs: run {bad} has a field outside the region or a negative count")
    return FieldRuns(va, rel, r32, value, owner, index, target, target_offset)


def _range_tables(ranges: np.ndarray, tables: np.ndarray | None, nfields: int) -> tuple[np.ndarray, np.ndarray]:
    """:func:`field_runs`' ``ranges`` and ``tables`` as the kernel reads them, checked: every table inside
    ``ranges``, its ranges ascending and disjoint, every code an int32."""
    ranges = np.ascontiguousarray(ranges, dtype=np.uint64).reshape(-1, 3)
    if tables is None:
        raise ValueError("field_runs: ranges without tables")
    tables = np.ascontiguousarray(tables, dtype=np.int64).reshape(-1, 2)
    if len(tables) != nfields:
        raise ValueError(f"field_runs: {len(tables)} tables for {nfields} fields")
    first, n = tables[:, 0], tables[:, 1]
    if bool(((first < 0) | (n < 0) | (first + n > len(ranges))).any()):
        raise ValueError("field_runs: a table outside the ranges")
    start, last = ranges[:, 0], ranges[:, 1]
    if bool((last < start).any()) or int(ranges[:, 2].max(initial=0)) > 0x7FFF_FFFF:
        raise ValueError("field_runs: a range that ends before it starts, or a code beyond int32")
    for a, m in tables.tolist():
        if m > 1 and bool((start[a + 1:a + m] <= last[a:a + m - 1]).any()):
            raise ValueError("field_runs: a table's ranges not ascending and disjoint")
    return ranges, tables


# --- program identifiers -------------------------------------------------------------------------------------

#: :func:`match_identifiers`' answer for an identifier that names no program, and for an all-zero one
NO_PROGRAM = -1
EMPTY_IDENTIFIER = -2

#: identifiers matched at a time (bounds the temporaries: about 20 bytes a slot)
MATCH_CHUNK = 1 << 20


def match_identifiers(data: Buffer, identifiers: Sequence[bytes], *, count: int, stride: int, offset: int = 0,
                      chunk: int = MATCH_CHUNK, done: Callable[[int, int], None] | None = None) -> np.ndarray:
    """Which of ``identifiers`` (D3D12_PROGRAM_IDENTIFIERs) each of ``count`` slots holds, the slots ``stride``
    bytes apart from ``offset`` in ``data``, each starting with its identifier: an int32 array of indexes into
    ``identifiers`` (the last one where two are equal), :data:`EMPTY_IDENTIFIER` for an all-zero identifier that
    is no program's, :data:`NO_PROGRAM` for any other.  The slots are viewed as 32-byte strings (no copy), the
    identifiers sorted once and every slot looked up by binary search: O(slots log programs), chunk by chunk;
    ``done(first, n)`` is called once slots ``first .. first + n - 1`` are read (to release their pages)."""
    size = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
    out = np.full(count, NO_PROGRAM, dtype=np.int32)
    if not count:
        return out
    kind = f"S{size}"  # fixed-width byte strings: equal exactly when all their bytes are (NUL padding included)
    slots = np.ndarray((count,), dtype=kind, buffer=as_u8(data), offset=offset, strides=(stride,))
    last = {bytes(ident): k for k, ident in enumerate(identifiers)}
    keys = np.array(list(last), dtype=kind)
    order = np.argsort(keys)
    keys, index = keys[order], np.array(list(last.values()), dtype=np.int32)[order]
    empty = np.zeros(1, dtype=kind)[0]
    for lo in range(0, count, chunk):
        values, dest = slots[lo:lo + chunk], out[lo:lo + chunk]
        dest[values == empty] = EMPTY_IDENTIFIER
        if keys.size:
            pos = np.searchsorted(keys, values)
            np.minimum(pos, keys.size - 1, out=pos)
            hit = keys[pos] == values
            dest[hit] = index[pos[hit]]
        if done is not None:
            done(lo, len(values))
    return out
