"""Vectorized numpy packers and readers for every GPU-resident buffer: primary lists, secondary lists, program
tables, dispatch list inputs (Tier 1 and Tier 2) and ExecuteIndirect argument and count buffers.

Engine code hands in column arrays (a mapping of field path to array) or a structured array; the packers write
every column into its strided place in one zeroed output buffer, so there is no Python loop per record and
padding bytes are zero.  Field paths are the record's field names from the layout calculator, dotted into
struct payloads::

    pack_secondary_records(pcs_layout(pcs), {
        "arg0_ShaderResourceView": srv_addresses,               # uint64[n]
        "arg1_Draw.VertexCountPerInstance": vertex_counts,      # uint32[n]
        "arg1_Draw.InstanceCount": 1,                           # a 0-d value is broadcast
        "arg1_Draw.StartVertexLocation": start_vertices,
        "arg1_Draw.StartInstanceLocation": 0,
    })

A column may also name a whole struct payload (``"arg1_Draw"``, ``"ProgramIdentifier"``) with a structured array
or raw bytes of the payload's size.  Missing or unknown columns, wrong lengths, non-integer values for integer
fields and values outside the field's C type raise :class:`~d3d12wl.errors.PackError` naming the column.  Members
named ``ReservedPadding`` may be omitted (they are zero).  Strides default to the layout's minimum and are checked
against the spec (spec "Stride derivation", rule 25(e); program tables "Program table slot layout"; ExecuteIndirect
ByteStride a multiple of 4).

Readers (``read_*``) turn bytes back into structured arrays without copying (``np.frombuffer``) and raise
:class:`~d3d12wl.errors.ParseError` naming the record and field when the buffer is short; :func:`to_columns`
turns a structured array into the same column mapping the packers take.  Output bytes equal construct's build of
the same values (:mod:`d3d12wl.schemas`), which the tests prove.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Union

import numpy as np
from numpy.typing import ArrayLike

from d3d12wl import abi
from d3d12wl.dtypes import Leaf, leaves, record_dtype, struct_dtype
from d3d12wl.errors import PackError, ParseError
from d3d12wl.layout import (
    COMMAND,
    PRIMARY,
    PROGRAM_TABLE,
    SECONDARY,
    PCSLayout,
    RecordLayout,
    command_layout,
    program_table_layout,
)
from d3d12wl.model import CommandSignature, Program
from d3d12wl.schemas import _layout_leaves, missing_field

__all__ = [
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
#: Alignment the spec requires of every GPU VA the records and inputs carry (dispatch input, ProgramInputs
#: StartAddress and stride, SecondaryRecords, program table StartAddress).
VA_ALIGN = 8


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


def _strided(buf: np.ndarray, n: int, stride: int, offset: int, dtype: np.dtype, shape: tuple[int, ...]) -> np.ndarray:
    """A view of one field of ``n`` records in a uint8 buffer."""
    if n == 0:
        return np.zeros((0, *shape), dtype=dtype)
    elem = dtype.itemsize
    inner: list[int] = []
    step = elem
    for dim in reversed(shape):
        inner.insert(0, step)
        step *= dim
    return np.ndarray((n, *shape), dtype=dtype, buffer=buf, offset=offset, strides=(stride, *inner))


def _is_optional(path: str) -> bool:
    return path.rsplit(".", 1)[-1] == "ReservedPadding"


# --- values -> one column -----------------------------------------------------------------------------------------


def _column(path: str, value: ArrayLike, n: int, leaf: Leaf, what: str) -> np.ndarray:
    a = value if isinstance(value, np.ndarray) else np.asarray(value)
    if a.dtype.kind not in "uibf":
        raise PackError(f"column {path!r} has dtype {a.dtype}, not numbers", where=what)
    if a.shape != leaf.shape and a.shape != (n, *leaf.shape):
        if a.ndim and a.shape[0] != n:
            raise PackError(f"column {path!r} has {a.shape[0]} values, expected {n}", where=what)
        raise PackError(f"column {path!r} has shape {a.shape}, expected {(n, *leaf.shape)} or {leaf.shape}",
                        where=what)
    target = leaf.dtype
    if target.kind in "ui":
        if a.dtype.kind == "f":
            raise PackError(f"column {path!r} holds {a.dtype} values but the field is {target}; pass integers "
                            f"(for float bits in DWORDs use .view(np.uint32))", where=what)
        if a.dtype.kind == "b" or np.can_cast(a.dtype, target, "safe") or a.size == 0:
            return a
        info = np.iinfo(target)
        lo, hi = a.min(), a.max()
        if lo < info.min or hi > info.max:
            bad = (a < info.min) | (a > info.max)
            index = int(np.argmax(bad.reshape(len(a), -1).any(axis=1))) if a.ndim else 0
            v = a[index] if a.ndim else a
            raise PackError(f"column {path!r} value {v.tolist()} at record {index} is outside {target} "
                            f"[{info.min}, {info.max}]", where=what)
    return a


def _flatten(data: RecordData, prefix: str = "") -> dict[str, Any]:
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
    return int(n)


# --- the one packing routine ----------------------------------------------------------------------------------


def _pack(dtype: np.dtype, data: RecordData, *, what: str, count: int | None = None,
          out: np.ndarray | None = None, records: int | None = None) -> np.ndarray:
    shape = _shape(dtype)
    stride = dtype.itemsize
    if isinstance(data, np.ndarray) and data.dtype == dtype:
        n = len(data) if count is None else count
        if n != len(data):
            raise PackError(f"structured array has {len(data)} records, expected {n}", where=what)
        buf = _output(out, n * stride, what)
        buf[:] = np.ascontiguousarray(data).view(np.uint8).reshape(-1)
        _zero_holes(buf, n, stride, shape.holes)
        return buf
    columns = _flatten(data)
    covered: dict[str, str] = {}
    plan: list[tuple[str, _Node, Any]] = []
    for path, value in columns.items():
        node = shape.nodes.get(path)
        if node is None:
            known = ", ".join(lf.path for lf in shape.leaves)
            raise PackError(f"unknown column {path!r}; columns of this record: {known}", where=what)
        for lf in shape.covered(path) if node.leaf is None else [node.leaf]:
            if lf.path in covered:
                raise PackError(f"columns {covered[lf.path]!r} and {path!r} both write {lf.path!r}", where=what)
            covered[lf.path] = path
        plan.append((path, node, value))
    missing = [lf.path for lf in shape.leaves if lf.path not in covered and not _is_optional(lf.path)]
    if missing:
        raise PackError(f"missing column(s) {', '.join(map(repr, missing))}", where=what)
    n = _count([(path, _rows(value, node)) for path, node, value in plan], count, what)
    if records is not None and n != records:
        raise PackError(f"{n} records given, but this form holds exactly {records}", where=what)
    # validate every column before writing anything
    ready: list[tuple[_Node, np.ndarray, bool]] = []
    for path, node, value in plan:
        if node.leaf is not None:
            ready.append((node, _column(path, value, n, node.leaf, what), False))
        else:
            ready.append((node, _struct_column(path, value, n, node, what), True))
    zero = list(shape.holes) + [(lf.offset, lf.size) for lf in shape.leaves if lf.path not in covered]
    if out is None:
        # every byte is written below when nothing is left to zero; otherwise start from zeroed memory
        buf = np.empty(n * stride, dtype=np.uint8) if not zero else np.zeros(n * stride, dtype=np.uint8)
    else:
        buf = _output(out, n * stride, what)
        _zero_holes(buf, n, stride, tuple(zero))
    writes: list[tuple[np.ndarray, np.ndarray, bool]] = []
    for node, values, raw in ready:
        if raw:
            target = _strided(buf, n, stride, node.offset, np.dtype(np.uint8), (node.size,))
        else:
            assert node.leaf is not None
            target = _strided(buf, n, stride, node.offset, node.leaf.dtype, node.leaf.shape)
        writes.append((target, values, values.shape[:1] == (n,) and values.ndim == target.ndim))
    _chunked_copy(writes, n, stride)
    return buf


#: Records per block when interleaving columns: about 1 MiB of output, so every column of a block is written
#: while the block is in cache (one pass over memory instead of one per column).
CHUNK_BYTES = 1 << 20


def _chunked_copy(writes: list[tuple[np.ndarray, np.ndarray, bool]], n: int, stride: int) -> None:
    """``target[...] = values`` for every pair, block by block; ``per_record`` False broadcasts ``values``."""
    step = max(1024, CHUNK_BYTES // max(stride, 1))
    if n <= step:
        for target, values, _ in writes:
            target[...] = values
        return
    for start in range(0, n, step):
        end = min(n, start + step)
        for target, values, per_record in writes:
            target[start:end] = values[start:end] if per_record else values


def _struct_column(path: str, value: Any, n: int, node: _Node, what: str) -> np.ndarray:
    """A whole struct payload given as structured values or raw bytes, as uint8 rows of the payload's size."""
    if isinstance(value, np.ndarray) and value.dtype.names is not None:
        if value.dtype != node.dtype:
            sub = _pack(node.dtype, _flatten(value), what=f"{what} column {path!r}", count=len(value))
        else:
            sub = np.ascontiguousarray(value).view(np.uint8).reshape(-1).copy()
            _zero_holes(sub, len(value), node.size, _shape(node.dtype).holes)
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


def _output(out: np.ndarray | None, nbytes: int, what: str) -> np.ndarray:
    if out is None:
        return np.zeros(nbytes, dtype=np.uint8)
    if not isinstance(out, np.ndarray) or out.dtype != np.uint8 or out.ndim != 1 or not out.flags.c_contiguous:
        raise PackError("out= must be a 1-D C-contiguous uint8 array", where=what)
    if not out.flags.writeable:
        raise PackError("out= is read-only", where=what)
    if out.nbytes < nbytes:
        raise PackError(f"out= holds {out.nbytes} bytes, {nbytes} needed", where=what)
    return out[:nbytes]


def _zero_holes(buf: np.ndarray, n: int, stride: int, holes: tuple[tuple[int, int], ...]) -> None:
    for off, size in holes:
        _strided(buf, n, stride, off, np.dtype(np.uint8), (size,))[...] = 0


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
    return _pack(record_dtype(layout, stride or None), data, what=_what(layout), count=count, out=out,
                 records=1 if stride == 0 else None)


def _layout_of(layout: PCSLayout | RecordLayout, kind: str) -> RecordLayout:
    if isinstance(layout, RecordLayout):
        if layout.record != kind:
            raise PackError(f"expected a {kind} record layout, got a {layout.record} layout of {layout.owner!r}")
        return layout
    rec = {PRIMARY: layout.primary, SECONDARY: layout.secondary, PROGRAM_TABLE: layout.program_table}[kind]
    if rec is None:
        raise PackError(f"program command signature {layout.name!r} has no {kind} records",
                        rule="Primary record layout" if kind == SECONDARY else "Program Table")
    return rec


def _first(mask: np.ndarray) -> int:
    return int(np.argmax(mask))


def _check_aligned(buf: np.ndarray, dtype: np.dtype, n: int, path: str, when: str | None, what: str,
                   rule: str, *, zero_ok: bool = False) -> None:
    shape = _shape(dtype)
    leaf = shape.nodes[path].leaf
    assert leaf is not None
    vals = _strided(buf, n, dtype.itemsize, leaf.offset, leaf.dtype, ())
    if n == 0 or not int(np.bitwise_or.reduce(vals)) % VA_ALIGN:
        return  # one pass, no temporaries: every value is aligned
    bad = (vals % VA_ALIGN) != 0
    if when is not None:
        w = shape.nodes[when].leaf
        assert w is not None
        bad &= _strided(buf, n, dtype.itemsize, w.offset, w.dtype, ()) > 0
    if zero_ok:
        bad &= vals != 0
    if bad.any():
        i = _first(bad)
        raise PackError(f"{path} 0x{int(vals[i]):x} at record {i} is not {VA_ALIGN}-byte aligned",
                        where=f"{what} column {path!r}", rule=rule)


def pack_primary_records(layout: PCSLayout | RecordLayout, data: RecordData, *, stride: int | None = None,
                         count: int | None = None, out: np.ndarray | None = None, validate: bool = True) -> np.ndarray:
    """A primary list (spec "Primary record layout"): the header members (``ProgramTableIndex``,
    ``NumSecondaryRecords``, ``SecondaryRecords`` as the header has them) plus the primary-sourced payloads.
    ``stride`` is the dispatch's ``ProgramInputs.StrideInBytes`` (default: the minimum).  With ``validate``,
    ``SecondaryRecords`` must be 8-byte aligned where ``NumSecondaryRecords`` > 0 (spec
    ``D3D12_WORK_LIST_PRIMARY_RECORD``) and the raytracing header's ``ReservedPadding`` 0."""
    rec = _layout_of(layout, PRIMARY)
    stride = resolve_stride(rec, stride)
    buf = pack_records(rec, data, stride=stride, count=count, out=out)
    if validate:
        dtype = record_dtype(rec, stride or None)
        n = buf.nbytes // dtype.itemsize
        names = {f.name for f in rec.fields}
        if "SecondaryRecords" in names and not _all_aligned(data, "SecondaryRecords"):
            _check_aligned(buf, dtype, n, "SecondaryRecords", "NumSecondaryRecords", _what(rec),
                           "D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords")
        if "ReservedPadding" in names:
            _check_zero(buf, dtype, n, "ReservedPadding", _what(rec), "D3D12_WORK_LIST_RAYTRACING_RECORD")
    return buf


def _all_aligned(data: RecordData, path: str) -> bool:
    """Whether a contiguous integer input column is all multiples of 8 (one reduction over the input, cheaper than
    over the strided output); False when that cannot be told from the input alone."""
    if isinstance(data, np.ndarray):
        return False
    col = data.get(path)
    if not isinstance(col, np.ndarray) or col.dtype.kind not in "ui" or not col.flags.c_contiguous or col.size == 0:
        return False
    return not int(np.bitwise_or.reduce(col.reshape(-1).view(f"u{col.dtype.itemsize}"))) % VA_ALIGN


def _check_zero(buf: np.ndarray, dtype: np.dtype, n: int, path: str, what: str, rule: str) -> None:
    leaf = _shape(dtype).nodes[path].leaf
    assert leaf is not None
    vals = _strided(buf, n, dtype.itemsize, leaf.offset, leaf.dtype, ())
    if (vals != 0).any():
        i = _first(vals != 0)
        raise PackError(f"{path} must be 0, is {int(vals[i])} at record {i}", where=f"{what} column {path!r}",
                        rule=rule)


def pack_secondary_records(layout: PCSLayout | RecordLayout, data: RecordData, *, stride: int | None = None,
                           count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """A secondary list (spec "Record byte layouts").  ``stride`` defaults to the PCS's
    ``SecondaryRecordByteStride`` when a :class:`PCSLayout` is given (0 there is the broadcast form: one record),
    else to the minimum."""
    rec = _layout_of(layout, SECONDARY)
    if stride is None and isinstance(layout, PCSLayout):
        stride = layout.pcs.SecondaryRecordByteStride
    return pack_records(rec, data, stride=stride, count=count, out=out)


def pack_program_table(layout: RecordLayout | PCSLayout | Program, data: RecordData, *, stride: int | None = None,
                       count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """A program table (spec "Program table slot layout", "Program table record layout"): ``ProgramIdentifier``
    (32-byte values, uint8 rows, or ``ProgramIdentifier.OpaqueData`` as uint64[n, 4]) plus the local-root-argument
    tail columns.  ``stride``: 0 (broadcast, one slot) or at least the minimum, a multiple of 8, at most
    ``D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE``."""
    if isinstance(layout, Program):
        rec = program_table_layout(layout)
        if rec is None:
            raise PackError(f"program {layout.name!r} is raytracing-class: it has no program table",
                            rule="Program Table")
    else:
        rec = _layout_of(layout, PROGRAM_TABLE)
    limit = abi.constant("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE")
    if stride is not None and stride > limit:
        raise PackError(f"stride {stride} exceeds D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE ({limit})", where=_what(rec),
                        rule="D3D12_WORK_LIST_PROGRAM_TABLE_BINDING")
    return pack_records(rec, data, stride=stride, count=count, out=out)


def pack_structs(name: str, data: RecordData, *, count: int | None = None, out: np.ndarray | None = None) -> np.ndarray:
    """An array of a fixed struct (``sizeof`` bytes each) from columns or a structured array."""
    return _pack(struct_dtype(name), data, what=f"{name} array", count=count, out=out)


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
    buf = pack_structs(name, data, count=count, out=out)
    if validate:
        dtype = struct_dtype(name)
        n = buf.nbytes // dtype.itemsize
        for path in ("ProgramInputs.StartAddress", "ProgramInputs.StrideInBytes"):
            _check_aligned(buf, dtype, n, path, "NumProgramInputs", f"{name} array", f"{name}::ProgramInputs")
        if tier == 2:
            _check_zero(buf, dtype, n, "ReservedPadding", f"{name} array", f"{name}::ReservedPadding")
            _check_aligned(buf, dtype, n, "NextDispatchList", None, f"{name} array", f"{name}::NextDispatchList",
                           zero_ok=True)
    return buf


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


def _as_u8(data: Buffer) -> np.ndarray:
    if isinstance(data, np.ndarray):
        return data.reshape(-1).view(np.uint8) if data.flags.c_contiguous else np.ascontiguousarray(data).view(
            np.uint8).reshape(-1)
    return np.frombuffer(data, dtype=np.uint8)


def _read(dtype: np.dtype, data: Buffer, count: int | None, offset: int, where: Callable[[int], str],
          leaves_: Callable[[], list[tuple[str, int, int]]]) -> np.ndarray:
    buf = _as_u8(data)
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
    return _read(record_dtype(layout, stride or None), data, count, offset,
                 lambda i: f"{layout.record} record {i} of {layout.owner!r}", lambda: _layout_leaves(layout))


def read_primary_records(layout: PCSLayout | RecordLayout, data: Buffer, **kw: Any) -> np.ndarray:
    return read_records(_layout_of(layout, PRIMARY), data, **kw)


def read_secondary_records(layout: PCSLayout | RecordLayout, data: Buffer, **kw: Any) -> np.ndarray:
    if kw.get("stride") is None and isinstance(layout, PCSLayout):
        kw["stride"] = layout.pcs.SecondaryRecordByteStride
    return read_records(_layout_of(layout, SECONDARY), data, **kw)


def read_program_table(layout: RecordLayout | PCSLayout, data: Buffer, **kw: Any) -> np.ndarray:
    return read_records(_layout_of(layout, PROGRAM_TABLE), data, **kw)


def read_execute_indirect(layout: RecordLayout | CommandSignature, data: Buffer, **kw: Any) -> np.ndarray:
    if isinstance(layout, CommandSignature):
        if kw.get("stride") is None and layout.ByteStride:
            kw["stride"] = layout.ByteStride
        layout = command_layout(layout)
    return read_records(layout, data, **kw)


def read_structs(name: str, data: Buffer, *, count: int | None = None, offset: int = 0) -> np.ndarray:
    from d3d12wl.schemas import _leaves_of_struct

    return _read(struct_dtype(name), data, count, offset, lambda i: f"{name} {i}",
                 lambda: list(_leaves_of_struct(name)))


def read_dispatch_list_inputs(data: Buffer, *, tier: int = 1, count: int | None = None, offset: int = 0) -> np.ndarray:
    return read_structs(DISPATCH_LIST_INPUT if tier == 1 else DISPATCH_LIST_INPUT1, data, count=count, offset=offset)


def read_count_buffer(data: Buffer, offset: int = 0) -> int:
    buf = _as_u8(data)
    if buf.nbytes - offset < 4:
        raise ParseError(f"truncated: the count buffer needs 4 bytes at offset {offset}, only "
                         f"{max(0, buf.nbytes - offset)} available", where="count buffer field count (UINT32)")
    return int(np.frombuffer(buf, dtype="<u4", count=1, offset=offset)[0])


def to_columns(arr: np.ndarray, *, copy: bool = True) -> dict[str, np.ndarray]:
    """A structured array as the column mapping the packers take (leaf path -> array); ``copy`` makes each column
    contiguous and independent of the buffer."""
    views = {lf.path: _field_view(arr, lf.path) for lf in leaves(arr.dtype)}
    if not copy:
        return views
    out = {path: np.empty(v.shape, dtype=v.dtype) for path, v in views.items()}
    _chunked_copy([(out[p], v, True) for p, v in views.items()], len(arr), arr.dtype.itemsize)
    return out
