"""Decode raw bytes (a GPU readback) as an array of one record class or fixed struct, as text, CSV or JSON.

``target(objects, what)`` names what the bytes hold: a record of the layout calculator by its
:func:`~d3d12wl.records.layout.record_id` (``PCS.primary``, ``PCS.secondary``, ``PCS.program_table``,
``Opaque.program_table`` for any program, ``EI.command``) or any declared struct (``D3D12_DISPATCH_LIST_INPUT1``,
``D3D12_DRAW_INDEXED_ARGUMENTS``).  ``view(target, data, ...)`` lays a zero-copy structured array over the bytes
at a stride (default: the declared one: a PCS's ``SecondaryRecordByteStride``, a command signature's
``ByteStride``, a struct's ``sizeof``; else the layout's minimum; checked by the packers' ``resolve_stride``) and
reports a trailing partial record instead of dropping it; the array is the packers' zero-copy reader's
(``read_records``, ``read_structs``) where the bytes hold every stride.  ``write(decoded, out, fmt)`` streams rows
in chunks.

Nothing is formatted one record at a time: every column is turned into a matrix of characters by numpy (digits by
division, hex digits by shifts, enum members by lookup over the distinct values, program names by one binary search
over the sorted identifiers), the cells of a chunk are placed into one matrix of lines, and the matrix is written as bytes.
Sizes, offsets and types come from :mod:`d3d12wl.records.dtypes` (the compiled headers and the layout
calculator); enum members from :mod:`d3d12wl.abi`; strides are checked by
:func:`d3d12wl.records.packers.resolve_stride`.
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, cached_property
from typing import IO, Any, Literal

import numpy as np

from d3d12wl import abi
from d3d12wl.abi.compiled import TypeInfo
from d3d12wl.errors import LayoutError, ParseError, did_you_mean
from d3d12wl.model.objects import ObjectSet
from d3d12wl.output import npz_table, parquet_table, tables
from d3d12wl.output.outfiles import TEXT_ERRORS
from d3d12wl.output.table import NUMPY_TYPES, ColumnSpec, NameTable, TableChunk
from d3d12wl.records import layout as L
from d3d12wl.records.dtypes import Leaf, classify, field_type, leaves, record_dtype, struct_dtype
from d3d12wl.records.packers import (
    EMPTY_IDENTIFIER,
    as_u8,
    match_identifiers,
    read_records,
    read_structs,
    resolve_stride,
)
from d3d12wl.records.plausible import implausible, suggest_stride
from d3d12wl.records.schemas import missing_field

__all__ = ["Decoded", "DecodedTable", "Format", "Partial", "Target", "FORMATS", "declared_stride", "gathered",
           "messages", "plausibility", "target", "view", "write", "write_npz", "write_parquet"]

Format = Literal["text", "json", "csv", "npz", "parquet"]
#: the formats :func:`write` writes: text, csv and json by this module's own formatter; npz and parquet the
#: table (:class:`DecodedTable`) through the output stage's encoders, with the execution table's encodings
FORMATS: tuple[str, ...] = ("text", "json", "csv", "npz", "parquet")

#: rows formatted and written at a time
CHUNK = 1 << 16
#: bytes of output assembled at a time at most (rows per chunk shrink below CHUNK for wide rows)
CHUNK_BYTES = 1 << 24
#: bytes of the (programs, longest name) matrix of a program column at most; past it, names are kept as they are
NAMES_BYTES = 1 << 24

#: the GPU VA space (a VA is a 64-bit unsigned integer), the strides numpy can lay a view at, and the copies of
#: the broadcast record (stride 0) that may be asked for (each is formatted)
VA_SPACE = 1 << 64
MAX_STRIDE = 1 << 63
MAX_BROADCAST = 1 << 24

#: at most this many distinct values of an enum/flags/float column are named one by one (more: plain numbers)
_MAX_DISTINCT = 1 << 14


# --- what the bytes are --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """One output column: ``leaf`` of the record dtype (a scalar, one element of a scalar array, or the whole
    32-byte program identifier), shown as ``kind``: ``dec``, ``hex``, ``enum`` (``enum`` names it), ``float``,
    ``identifier`` (64 hex digits) or ``program`` (the name of the program whose identifier it is)."""

    name: str
    offset: int
    dtype: np.dtype
    kind: str
    enum: str | None = None
    element: int | None = None  # index into a scalar array leaf
    group: str | None = None  # JSON key of the array this element belongs to


@dataclass(frozen=True)
class Target:
    """A record class or struct to decode: its dtype (``itemsize`` = the bytes one record uses), the default
    stride and where it comes from, the output columns, and the program identifiers to name."""

    name: str
    dtype: np.dtype
    size: int
    default_stride: int
    stride_from: str
    columns: tuple[Column, ...]
    record_layout: L.RecordLayout | None = None
    struct: str | None = None
    programs: tuple[tuple[bytes, str], ...] = ()

    def check_stride(self, stride: int | None) -> int:
        """``stride`` (default: the declared stride) checked: a record's by the spec's rules
        (:func:`~d3d12wl.records.packers.resolve_stride`), a struct's at least ``sizeof``."""
        if stride is None:
            stride = self.default_stride
        if self.record_layout is not None:
            return resolve_stride(self.record_layout, stride)
        if stride < self.size:
            raise LayoutError(f"stride {stride} is below sizeof({self.struct}) = {self.size}", where="--stride")
        return stride

    def leaves_for_messages(self) -> list[tuple[str, int, int]]:
        return [(lf.path, lf.offset, lf.size) for lf in leaves(self.dtype)]


@cache
def _enums() -> frozenset[str]:
    return frozenset(abi.default.enum_names())


def _ctypes_of_struct(info: TypeInfo, prefix: str, out: dict[str, tuple[str, str | None]], parent: str) -> None:
    """Dotted leaf path -> (declared C type, enclosing struct) of every scalar leaf of a struct, with the path
    names :func:`d3d12wl.records.dtypes.leaves` gives."""
    for f in info.fields:
        path = prefix + f.name
        t = field_type(f)
        if isinstance(t, TypeInfo):
            if f.array_length:
                for i in range(f.array_length):
                    _ctypes_of_struct(t, f"{path}[{i}].", out, t.name)
            else:
                _ctypes_of_struct(t, path + ".", out, t.name)
        else:
            out[path] = ("pointer" if t.pointer else f.type.split("[")[0].strip(), parent)


def _leaf_ctypes(record: L.RecordLayout | None, struct: str | None) -> dict[str, tuple[str, str | None]]:
    out: dict[str, tuple[str, str | None]] = {}
    if struct is not None:
        _ctypes_of_struct(abi.type_info(struct), "", out, struct)
        return out
    assert record is not None
    for lf in record.fields:
        t = classify(lf.ctype)
        if isinstance(t, TypeInfo):
            if lf.count > 1:
                for i in range(lf.count):
                    _ctypes_of_struct(t, f"{lf.name}[{i}].", out, t.name)
            else:
                _ctypes_of_struct(t, lf.name + ".", out, t.name)
        else:
            out[lf.name] = (lf.ctype, None)
    return out


def _kind(ctype: str, parent: str | None, leaf: Leaf, dword_array: bool) -> tuple[str, str | None]:
    if ctype in _enums():
        return "enum", ctype
    if leaf.dtype.kind == "f":
        return "float", None
    if ctype == "pointer" or ctype in L.HEX_TYPES or parent in L.HEX_STRUCTS or dword_array:
        return "hex", None
    return "dec", None


def _columns(dtype: np.dtype, record: L.RecordLayout | None, struct: str | None,
             with_programs: bool) -> tuple[Column, ...]:
    ctypes = _leaf_ctypes(record, struct)
    dword_arrays = record.hex_dword_arrays if record is not None else frozenset()
    cols: list[Column] = []
    for leaf in leaves(dtype):
        ctype, parent = ctypes.get(leaf.path, ("", None))
        if parent == L.PROGRAM_IDENTIFIER:
            owner = leaf.path.rsplit(".", 1)[0]
            cols.append(Column(owner, leaf.offset, leaf.dtype, "identifier"))
            if with_programs:
                cols.append(Column("program", leaf.offset, leaf.dtype, "program"))
            continue
        kind, enum = _kind(ctype, parent, leaf, leaf.path in dword_arrays)
        if leaf.shape:
            n = int(np.prod(leaf.shape))
            cols += [Column(f"{leaf.path}[{i}]", leaf.offset + i * leaf.dtype.itemsize, leaf.dtype, kind, enum,
                            element=i, group=leaf.path) for i in range(n)]
        else:
            cols.append(Column(leaf.path, leaf.offset, leaf.dtype, kind, enum))
    return tuple(cols)


def _used_dtype(dtype: np.dtype, size: int) -> np.dtype:
    """``dtype`` with ``itemsize`` = the bytes a record uses (so the last record needs no trailing padding)."""
    assert dtype.fields is not None and dtype.names is not None
    return np.dtype({"names": list(dtype.names), "formats": [dtype.fields[n][0] for n in dtype.names],
                     "offsets": [dtype.fields[n][1] for n in dtype.names], "itemsize": size})


def _program_ids(objects: ObjectSet) -> tuple[tuple[bytes, str], ...]:
    return tuple((bytes(p.Identifier), name) for name, p in objects.programs.items() if p.Identifier is not None)


def known_targets(objects: ObjectSet) -> list[str]:
    """The record names :func:`target` accepts for ``objects`` (structs aside)."""
    names = [L.record_id(r) for r in L.record_layouts(objects)]
    names += [f"{name}.{L.PROGRAM_TABLE}" for name in objects.programs if f"{name}.{L.PROGRAM_TABLE}" not in names]
    return names


def target(objects: ObjectSet, what: str) -> Target:
    """What ``what`` names: a record of ``objects`` (``PCS.secondary``, ``Opaque.program_table``, ``EI.command``)
    or a declared struct (``D3D12_DISPATCH_LIST_INPUT1``).  Raises :class:`LayoutError` naming the choices."""
    for rec in L.record_layouts(objects):
        if L.record_id(rec) == what:
            return _record_target(objects, rec)
    owner, _, kind = what.rpartition(".")
    if kind == L.PROGRAM_TABLE and owner in objects.programs:
        rec_or_none = L.program_table_layout(objects.programs[owner])
        if rec_or_none is None:
            raise LayoutError(f"program {owner!r} is raytracing-class: it has no program-table record", where=what)
        return _record_target(objects, rec_or_none)
    if what in abi.types():
        info = abi.type_info(what)
        dtype = struct_dtype(what)
        return Target(what, dtype, info.size, info.size, f"sizeof({what})", _columns(dtype, None, what, False),
                      struct=what)
    names = known_targets(objects)
    hint = did_you_mean(what, names, L.record_id_synonyms(names)) or did_you_mean(what, abi.types())
    raise LayoutError(f"{what!r} is neither a record of the description ({', '.join(names) or 'none'}) nor a "
                      f"declared struct (`d3d12wl abi` lists them){hint}", where="WHAT")


def declared_stride(rec: L.RecordLayout) -> tuple[int, str]:
    """The stride a record class is read at by default, and where it comes from: the description's
    (:attr:`RecordLayout.declared_stride`: a PCS's ``SecondaryRecordByteStride``, 0 the broadcast form; a command
    signature's non-zero ``ByteStride``); for primary and program-table records, whose stride the call or binding
    gives, the layout's minimum."""
    if rec.declared_stride is not None:
        member = "SecondaryRecordByteStride" if rec.record == L.SECONDARY else "ByteStride"
        return rec.declared_stride, f"{rec.owner}.{member}"
    return rec.min_stride, "the minimum stride"


def _record_target(objects: ObjectSet, rec: L.RecordLayout) -> Target:
    stride, stride_from = declared_stride(rec)
    dtype = _used_dtype(record_dtype(rec), rec.size)
    programs = _program_ids(objects) if rec.record == L.PROGRAM_TABLE else ()
    return Target(L.record_id(rec), dtype, rec.size, stride, stride_from,
                  _columns(dtype, rec, None, bool(programs)), record_layout=rec, programs=programs)


# --- the records in the bytes --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Partial:
    """A trailing record the bytes hold only part of."""

    index: int
    offset: int
    available: int
    size: int
    field: str

    def message(self, va: int | None) -> str:
        at = f" (VA 0x{va + self.offset:x})" if va is not None else ""
        return (f"trailing partial record {self.index} at offset {self.offset}{at}: {self.available} of "
                f"{self.size} bytes; it ends in {self.field}")

    def to_dict(self, va: int | None) -> dict[str, Any]:
        return {"index": self.index, "offset": self.offset, "va": None if va is None else f"0x{va + self.offset:x}",
                "available": self.available, "size": self.size, "field": self.field,
                "message": self.message(va)}


@dataclass
class Decoded:
    """Records over a buffer: ``records`` (built once, on first use) is a zero-copy structured array (``itemsize`` = bytes used, strided by
    ``stride``); ``va`` the VA of the buffer's byte 0 when given.

    Records gathered from where a call reads them (:func:`gathered`) lie one after another in ``buffer`` (``stride``
    is then the bytes one uses) with their own VAs in ``vas``, index columns (``list``, ``primary``, ``slot``, ...)
    in ``index_columns`` and how the call reads them in ``reading``.  ``findings``: errors, reported like a partial
    record (what the call reads that the rows leave out, the call's own findings); ``warnings``: what a heuristic
    says (rows a stride makes implausible, :func:`plausibility`), never an error."""

    target: Target
    buffer: np.ndarray
    offset: int
    stride: int
    count: int
    partial: Partial | None
    va: int | None = None
    source: str = "-"
    vas: np.ndarray | None = None
    index_columns: dict[str, np.ndarray] = field(default_factory=dict)
    reading: str | None = None
    call_stride: int | None = None
    findings: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    #: where the count comes from when it is not the bytes' or the user's (``decode --count-file``: the file, offset and
    #: value of the count buffer's UINT32)
    count_from: dict[str, Any] | None = None

    @cached_property
    def records(self) -> np.ndarray:
        """The records as a structured array, built on first use (:func:`write` reads the buffer itself)."""
        if self.vas is not None:  # gathered: one after another, ``stride`` = the bytes one uses
            if not self.count:
                return np.zeros(0, dtype=self.target.dtype)
            return np.ndarray((self.count,), dtype=self.target.dtype, buffer=self.buffer, strides=(self.stride,))
        return _records(self.target, self.buffer, self.offset, self.stride, self.count)

    def record_va(self, index: int) -> int | None:
        if self.vas is not None:
            return int(self.vas[index]) if 0 <= index < len(self.vas) else None
        return None if self.va is None else self.va + self.offset + index * self.stride

    @property
    def has_va(self) -> bool:
        return self.va is not None or self.vas is not None


def gathered(t: Target, data: np.ndarray, vas: np.ndarray, *, columns: dict[str, np.ndarray] | None = None,
             reading: str = "", call_stride: int | None = None, source: str = "-",
             findings: list[str] | None = None) -> Decoded:
    """The records of ``t`` whose bytes are the rows of ``data`` (``(n, t.size)`` uint8), each at its VA in ``vas``
    (``d3d12wl decode --capture``: the rows a call reads, from :func:`d3d12wl.executor.reads.call_rows`)."""
    rows = np.ascontiguousarray(data, dtype=np.uint8).reshape(len(vas), t.size)
    return Decoded(t, rows.reshape(-1), 0, t.size, len(vas), None, None, source, np.asarray(vas, dtype=np.uint64),
                   dict(columns or {}), reading, call_stride, list(findings or []))


def view(t: Target, data: Any, *, offset: int = 0, stride: int | None = None, count: int | None = None,
         va: int | None = None, source: str = "-") -> Decoded:
    """The records of ``t`` in ``data`` from ``offset``, ``stride`` apart (default: the declared stride; 0, the
    broadcast form, is one record).  ``count`` defaults to every record the bytes hold whole; bytes left after
    them are a :class:`Partial` record.  An explicit ``count`` the bytes do not hold raises :class:`ParseError`."""
    buf = as_u8(data)
    if va is not None and not 0 <= va < VA_SPACE:
        raise ParseError(f"VA 0x{va:x} is outside the 64-bit VA space", where="--va")
    if stride is not None and not 0 <= stride < MAX_STRIDE:
        raise ParseError(f"stride {stride} is outside [0, 2**63)", where="--stride")
    stride = t.check_stride(stride)
    if offset < 0:
        raise ParseError(f"offset {offset} is negative", where="--offset")
    available = max(0, buf.nbytes - offset)
    if offset > buf.nbytes:
        raise ParseError(f"offset {offset} is past the end ({buf.nbytes} bytes)", where=f"{source} --offset")
    size = t.size
    if stride == 0:
        fits = 1 if available >= size else 0
    else:
        fits = (available - size) // stride + 1 if available >= size else 0
    partial = None
    if count is None:
        n = fits  # (at most 1 at stride 0)
        end = n * stride if stride else n * size
        if stride and available > end or (n == 0 and available):
            left = available - end
            partial = Partial(n, offset + end, left, size, missing_field(t.leaves_for_messages(), left, size))
    else:
        n = int(count)
        if n < 0:
            raise ParseError(f"count {n} is negative", where="--count")
        if n > fits and not (stride == 0 and fits):
            raise ParseError(f"{n} records of {size} bytes at stride {stride} from offset {offset} need "
                             f"{(n - 1) * stride + size} bytes; {source} holds {available} from there "
                             f"({fits} whole records)", where=f"{source} --count")
        if stride == 0 and n > MAX_BROADCAST:
            raise ParseError(f"{n} copies of the broadcast record (stride 0): at most {MAX_BROADCAST}",
                             where="--count")
    if va is not None and n and va + offset + (n - 1) * stride + size > VA_SPACE:
        raise ParseError(f"record {n - 1} at VA 0x{va + offset + (n - 1) * stride:x} ends past the 64-bit VA "
                         "space", where="--va")
    return Decoded(t, buf, offset, stride, n, partial, va, source)


def _records(t: Target, buf: np.ndarray, offset: int, stride: int, n: int) -> np.ndarray:
    """The records as a structured array without a copy: the packers' own readers where the bytes hold every
    record's stride (the same dtype as :func:`~d3d12wl.records.packers.read_records` gives), else (the last record
    without its trailing padding, or a struct at a stride other than its sizeof) a strided view with ``itemsize``
    = the bytes a record uses."""
    if stride and n * stride <= buf.nbytes - offset:
        if t.record_layout is not None:
            return read_records(t.record_layout, buf, stride=stride, count=n, offset=offset)
        if t.struct is not None and stride == t.size:
            return read_structs(t.struct, buf, count=n, offset=offset)
    if not n:
        return np.zeros(0, dtype=t.dtype)
    return np.ndarray((n,), dtype=t.dtype, buffer=buf, offset=offset, strides=(stride,))


# --- formatting columns as character matrices --------------------------------------------------------------

_HEX_DIGITS = np.frombuffer(b"0123456789abcdef", dtype=np.uint8)
_ZERO, _X, _MINUS, _SPACE, _NEWLINE = ord("0"), ord("x"), ord("-"), ord(" "), ord("\n")
#: a byte that is never UTF-8: fills a text cell's bytes beyond its characters, dropped from the output
_DROPPED = 0xFF


def _leaf_values(d: Decoded, col: Column, lo: int, hi: int) -> np.ndarray:
    """The values of ``col`` for records ``lo..hi`` as a strided view of the buffer (no copy)."""
    n = hi - lo
    if not n:
        return np.zeros(0, dtype=col.dtype)
    start = d.offset + lo * d.stride + col.offset
    if col.kind in ("identifier", "program"):
        size = abi.sizeof(L.PROGRAM_IDENTIFIER)
        return np.ndarray((n, size), dtype=np.uint8, buffer=d.buffer, offset=start, strides=(d.stride, 1))
    return np.ndarray((n,), dtype=col.dtype, buffer=d.buffer, offset=start, strides=(d.stride,))


def _digits(mag: np.ndarray, base: int, width: int) -> np.ndarray:
    """Right-aligned digits of unsigned ``mag`` in ``width`` characters, NUL where there is no digit (a value of 0
    is ``0``).  32-bit arithmetic where the values fit (numpy's 64-bit division is much slower)."""
    out = np.zeros((mag.shape[0], width), dtype=np.uint8)
    if not mag.shape[0]:
        return out
    narrow = mag.dtype.itemsize <= 4 or int(mag.max()) <= 0xFFFFFFFF
    v = mag.astype(np.uint32 if narrow else np.uint64, copy=True)
    for pos in range(width - 1, -1, -1):
        if base == 16:
            digit = np.bitwise_and(v, 15)
            v = np.right_shift(v, 4)
        else:
            v, digit = np.divmod(v, v.dtype.type(base))
        chars = _HEX_DIGITS[digit]
        if pos < width - 1:
            chars[(v == 0) & (digit == 0)] = 0
        out[:, pos] = chars
        if not v.any():
            break
    return out


def _ndigits(value: int, base: int) -> int:
    return max(1, len(format(value, "x" if base == 16 else "d")))


def _format_int(values: np.ndarray, width: int, hex_: bool) -> np.ndarray:
    """Right-aligned decimal (``-`` sign for negatives) or ``0x`` hexadecimal in ``width`` characters."""
    if hex_:
        digits = _digits(values.astype(np.uint64) if values.dtype.kind != "i" else values.view(
            np.dtype(f"u{values.dtype.itemsize}")).astype(np.uint64), 16, width - 2)
        out = np.zeros((values.shape[0], width), dtype=np.uint8)
        out[:, 2:] = digits
        first = np.argmax(digits != 0, axis=1)  # the first digit (there is at least one)
        rows = np.arange(values.shape[0])
        out[rows, first] = _ZERO
        out[rows, first + 1] = _X
        return out
    if values.dtype.kind == "i":
        neg = values < 0
        mag = np.where(neg, -(values.astype(np.int64) + 1), values).astype(np.uint64) + neg.astype(np.uint64)
        out = _digits(mag, 10, width)
        if neg.any():
            first = np.argmax(out != 0, axis=1)
            rows = np.nonzero(neg)[0]
            out[rows, first[rows] - 1] = _MINUS
        return out
    return _digits(values, 10, width)


def _strings(texts: list[str], fill: int = 0) -> np.ndarray:
    """A table of left-aligned texts padded with ``fill`` (NUL) as a (k, width) character matrix (width in UTF-8
    bytes)."""
    encoded = [t.encode("utf-8", TEXT_ERRORS) for t in texts]
    width = max([1, *(len(t) for t in encoded)])
    arr = np.array(encoded, dtype=f"S{width}")
    mat = arr.view(np.uint8).reshape(len(texts), width) if texts else np.zeros((0, width), dtype=np.uint8)
    if fill:
        mat[mat == 0] = fill
    return mat


def _right(mat: np.ndarray, width: int) -> np.ndarray:
    """Left-aligned NUL-padded cells realigned right in ``width`` characters."""
    n, w = mat.shape
    lengths = (mat != 0).sum(axis=1)
    out = np.zeros((n, width), dtype=np.uint8)
    cols = np.arange(width)[None, :] - (width - lengths)[:, None]
    ok = cols >= 0
    rows = np.broadcast_to(np.arange(n)[:, None], (n, width))
    out[ok] = mat[rows[ok], cols[ok]]
    return out


@dataclass
class _Table:
    """The distinct values of a column and their texts: ``inverse[i]`` indexes ``texts`` for record ``i``."""

    values: np.ndarray
    texts: np.ndarray  # (k, width) characters


def _escaped(text: str, fmt: Format) -> str:
    """``text`` as a cell of ``fmt``: JSON string escapes (the quotes are the column's), CSV quoting where the
    text holds a comma, a quote or a line break, text as it is; in text and CSV, what UTF-8 cannot encode (a lone
    surrogate a JSON name may hold) as a backslash escape, as standard output writes it."""
    if fmt == "json":
        return json.dumps(text)[1:-1]
    text = text.encode("utf-8", TEXT_ERRORS).decode("utf-8")
    if fmt == "csv" and any(c in text for c in ',"\r\n'):
        return '"' + text.replace('"', '""') + '"'
    return text


class _Formatter:
    """Turns a column of a chunk of records into a (rows, width) character matrix.  ``width`` is fixed for the
    whole output (measured over every record up front, so text columns align across chunks)."""

    def __init__(self, d: Decoded, col: Column, *, fmt: Format = "text") -> None:
        self.d, self.col, self.fmt, self.json = d, col, fmt, fmt == "json"
        self.table: _Table | None = None
        self.names = np.zeros((0, 1), dtype=np.uint8)
        self.ragged: list[bytes] | None = None  # the program names, when too many and long for a matrix
        self.width = 1
        self.extra = 0  # bytes of a cell beyond its width in characters (text: non-ASCII program names)
        values = _leaf_values(d, col, 0, d.count)
        if col.kind in ("dec", "hex"):
            if d.count:
                lo, hi = int(values.min()), int(values.max())
                if col.kind == "hex":
                    top = hi if values.dtype.kind != "i" else (1 << (8 * values.dtype.itemsize)) - 1
                    self.width = 2 + _ndigits(top, 16)
                else:
                    self.width = max(len(str(lo)), len(str(hi)))
        elif col.kind == "identifier":
            self.width = 2 * abi.sizeof(L.PROGRAM_IDENTIFIER)  # two hex digits a byte
        else:
            self._make_table(values)

    def _make_table(self, values: np.ndarray) -> None:
        col = self.col
        if col.kind == "program":  # the names of the description's programs, '-' (all zero) and '?' (no program)
            # indexed by match_identifiers' answer - EMPTY_IDENTIFIER: '-' (EMPTY_IDENTIFIER), '?' (NO_PROGRAM), the
            # programs
            names = ["-", "?", *(_escaped(name, self.fmt) for _, name in self.d.target.programs)]
            if self.fmt == "text":  # aligned by characters: each name padded to as many, the UTF-8 bytes beyond
                self.width = max(len(n) for n in names)  # them filled with bytes that are dropped
                names = [n.ljust(self.width) for n in names]
            encoded = [n.encode("utf-8") for n in names]
            cell = max(len(n) for n in encoded)
            if len(encoded) * cell <= NAMES_BYTES:
                self.names = _strings(names, fill=_DROPPED if self.fmt == "text" else 0)
            else:  # one long name among many: a (programs, longest) matrix would be mostly padding
                self.ragged = encoded
            self.extra = cell - self.width if self.fmt == "text" else 0
            self.width = self.width if self.fmt == "text" else cell
            return
        distinct = np.unique(values)
        if distinct.size > _MAX_DISTINCT and col.kind in ("enum", "float"):  # not an enum column after all
            self.col = Column(col.name, col.offset, col.dtype, "float" if col.kind == "float" else "dec")
            if col.kind == "enum":
                self.width = max(len(str(int(values.min()))), len(str(int(values.max()))))
                return
        if col.kind == "enum":
            assert col.enum is not None
            texts = [abi.enum_text(col.enum, int(v)) for v in distinct]
        else:  # float: numpy's shortest repr of each distinct value
            if distinct.size > _MAX_DISTINCT:  # formatted chunk by chunk; the widest text, measured vectorized
                self.width = max(4, int(np.strings.str_len(np.asarray(distinct).astype("S32")).max()))
                self.table = None
                return
            texts = [t.decode() for t in np.asarray(distinct).astype("S32").tolist()]
            if self.json:  # JSON has no NaN or Infinity
                texts = [t if np.isfinite(v) else "null" for t, v in zip(texts, distinct, strict=True)]
        self.table = _Table(distinct, _strings(texts))
        self.width = self.table.texts.shape[1]

    @property
    def right(self) -> bool:
        return self.col.kind in ("dec", "hex", "float")

    def cells(self, lo: int, hi: int) -> np.ndarray:
        col = self.col
        values = _leaf_values(self.d, col, lo, hi)
        if col.kind in ("dec", "hex"):
            return _format_int(values, self.width, col.kind == "hex")
        if col.kind == "identifier":
            out = np.empty((hi - lo, 2 * values.shape[1]), dtype=np.uint8)
            out[:, 0::2] = _HEX_DIGITS[values >> 4]
            out[:, 1::2] = _HEX_DIGITS[values & 15]
            return out
        if col.kind == "program":  # every row's identifier looked up among the description's programs at once
            d = self.d
            which = match_identifiers(d.buffer, [ident for ident, _ in d.target.programs], count=hi - lo,
                                      stride=d.stride, offset=d.offset + lo * d.stride + col.offset)
            if self.ragged is None:
                return self.names[which - EMPTY_IDENTIFIER]
            out = np.full((hi - lo, self.width + self.extra), _DROPPED if self.fmt == "text" else 0, dtype=np.uint8)
            for k in np.unique(which):  # each name written into the rows that show it
                name = np.frombuffer(self.ragged[int(k) - EMPTY_IDENTIFIER], dtype=np.uint8)
                out[which == k, :name.size] = name
            return out
        if self.table is None:  # many distinct floats
            text = np.asarray(values).astype("S32")
            if self.json:
                text[~np.isfinite(values)] = b"null"
            mat = text.view(np.uint8).reshape(hi - lo, -1)
            return _right(mat, self.width)
        cells = self.table.texts[np.searchsorted(self.table.values, values)]
        return _right(cells, self.width) if self.right else cells


# --- writing -----------------------------------------------------------------------------------------------


class _Synthetic(_Formatter):
    """The ``index`` and ``va`` columns, computed from the record number (or, for gathered records, their own
    VAs), and a gathered record's index columns (``list``, ``primary``, ...)."""

    def __init__(self, d: Decoded, name: str, values: np.ndarray | None = None) -> None:
        self.d, self.name, self.fmt, self.json = d, name, "text", False
        self.extra = 0
        self.values = values
        self.col = Column(name, 0, np.dtype(np.uint64), "hex" if name == "va" else "dec")
        self.table = None
        if values is not None:
            self.width = len(str(int(values.max()))) if len(values) else 1
        elif name == "index":
            self.width = len(str(max(d.count - 1, 0)))
        elif d.vas is not None:
            self.width = 2 + _ndigits(int(d.vas.max()) if d.count else 0, 16)
        else:
            self.width = 2 + _ndigits(d.record_va(max(d.count - 1, 0)) or 0, 16)

    def cells(self, lo: int, hi: int) -> np.ndarray:
        if self.values is not None:
            return _format_int(self.values[lo:hi], self.width, False)
        idx = np.arange(lo, hi, dtype=np.uint64)
        if self.name == "index":
            return _format_int(idx, self.width, False)
        if self.d.vas is not None:
            return _format_int(self.d.vas[lo:hi], self.width, True)
        assert self.d.va is not None
        base = np.uint64(self.d.va + self.d.offset)
        return _format_int(base + idx * np.uint64(self.d.stride), self.width, True)


def _formatters(d: Decoded, fmt: Format = "text") -> list[_Formatter]:
    out: list[_Formatter] = [_Synthetic(d, "index")]
    out += [_Synthetic(d, name, values) for name, values in d.index_columns.items()]
    if d.has_va:
        out.append(_Synthetic(d, "va"))
    out += [_Formatter(d, c, fmt=fmt) for c in d.target.columns]
    return out


def _json_quoted(f: _Formatter) -> bool:
    return f.col.kind in ("hex", "enum", "identifier", "program")


def _assemble(parts: list[bytes | tuple[_Formatter, int]], lo: int, hi: int, *, text: bool) -> bytes:
    """One chunk of lines: literal byte strings and cells (formatter, width) placed side by side in one character
    matrix.  CSV/JSON (``text`` False) drop every NUL (variable-length rows); text turns the NULs of every column
    into spaces and drops those trailing the last column (a left-aligned last column is not padded)."""
    n = hi - lo
    cells = [(p[0].cells(lo, hi), p[1]) if isinstance(p, tuple) else p for p in parts]
    width = sum(len(c) if isinstance(c, bytes) else max(c[1], c[0].shape[1]) for c in cells)
    out = np.zeros((n, width), dtype=np.uint8)
    pos = last_cell = 0
    for c in cells:
        if isinstance(c, bytes):
            out[:, pos:pos + len(c)] = np.frombuffer(c, dtype=np.uint8)
            pos += len(c)
        else:
            mat, w = c
            last_cell = pos
            out[:, pos:pos + mat.shape[1]] = mat
            pos += max(w, mat.shape[1])
    if text:
        # every character of a cell or a literal is printable (>= space) but the final newline: NUL padding
        # becomes a space with one maximum, and the newline is put back
        last = next(p for p in reversed(parts) if isinstance(p, tuple))
        if last[0].right:
            np.maximum(out, _SPACE, out=out)
            out[:, -1] = _NEWLINE
            data = out.tobytes()
        else:
            head = out[:, :last_cell]
            np.maximum(head, _SPACE, out=head)  # a left-aligned last column is not padded: its NULs are dropped
            data = out[out != 0].tobytes()
        dropped = any(isinstance(p, tuple) and p[0].extra for p in parts)
        return data.replace(bytes([_DROPPED]), b"") if dropped else data
    return out[out != 0].tobytes()


def _text_parts(fs: list[_Formatter]) -> tuple[str, list[bytes | tuple[_Formatter, int]]]:
    widths = [max(f.width, len(f.col.name)) for f in fs]
    aligns: list[Literal["<", ">"]] = [">" if f.right else "<" for f in fs]
    header = tables.Columns(widths=widths, align=aligns, gap="  ").row([f.col.name for f in fs])
    parts: list[bytes | tuple[_Formatter, int]] = []
    for i, (f, w) in enumerate(zip(fs, widths, strict=True)):
        if i:
            parts.append(b"  ")
        # right-aligned cells come padded to the formatter's width; shift them to the column's
        if f.right and w > f.width:
            parts.append(b" " * (w - f.width))
        parts.append((f, (f.width if f.right or i == len(fs) - 1 else w) + f.extra))
    parts.append(b"\n")
    return header, parts


def _csv_parts(fs: list[_Formatter]) -> tuple[str, list[bytes | tuple[_Formatter, int]]]:
    parts: list[bytes | tuple[_Formatter, int]] = []
    for i, f in enumerate(fs):
        if i:
            parts.append(b",")
        parts.append((f, f.width))
    parts.append(b"\n")
    return ",".join(f.col.name for f in fs), parts


def _json_parts(fs: list[_Formatter]) -> list[bytes | tuple[_Formatter, int]]:
    parts: list[bytes | tuple[_Formatter, int]] = []
    open_group: str | None = None
    first = True
    for f in fs:
        group = f.col.group
        if open_group is not None and group != open_group:
            parts.append(b"]")
            open_group = None
        if group is not None and group == open_group:
            parts.append(b",")
        else:
            key = group if group is not None else f.col.name
            parts.append(((b"{" if first else b",") + json.dumps(key).encode() + b":"
                          + (b"[" if group is not None else b"")))
            open_group = group
        first = False
        q = b'"' if _json_quoted(f) else b""
        if q:
            parts.append(q)
        parts.append((f, f.width))
        if q:
            parts.append(q)
    if open_group is not None:
        parts.append(b"]")
    parts.append(b"}")
    return parts


def _chunks(n: int, chunk: int) -> Iterator[tuple[int, int]]:
    for lo in range(0, n, chunk):
        yield lo, min(n, lo + chunk)


def summary(d: Decoded) -> str:
    t = d.target
    if d.vas is not None:
        return f"{t.name}: {t.size} bytes used, {d.count} record(s) {d.reading}, from {d.source}"
    stride = f"stride {d.stride} ({t.stride_from})" if d.stride == t.default_stride else f"stride {d.stride}"
    count = "" if d.count_from is None else f" ({d.count_from['says']})"
    return (f"{t.name}: {t.size} bytes used, {stride}, {d.count} record(s){count} from offset {d.offset} of "
            f"{d.source}")


def _rows_per_chunk(parts: list[bytes | tuple[_Formatter, int]], chunk: int) -> int:
    """At most ``chunk`` rows, and as many as fit :data:`CHUNK_BYTES` of output: a row made wide by a long
    program name (a megabyte) is assembled a few rows at a time, not 65,536 rows at once."""
    width = sum(len(p) if isinstance(p, bytes) else max(p[1], p[0].width + p[0].extra) for p in parts)
    return max(1, min(chunk, CHUNK_BYTES // max(width, 1)))


def plausibility(d: Decoded, *, given: bool = False) -> list[str]:
    """What makes rows of ``d`` implausible at its stride (:mod:`d3d12wl.records.plausible`), one warning per reason,
    then the stride at which every record fits better, or that there is none; [] when every row is plausible.
    ``given``: the stride is the user's (``--stride``), which is believed: the rows are said, no stride is
    suggested."""
    if not d.count:
        return []
    found = implausible(d.target, d.buffer, offset=d.offset, stride=d.stride, count=d.count)
    if not found:
        return []
    out = []
    for f in found:
        first, n = f.first, f.count
        va = d.record_va(first)
        at = f" (VA 0x{va:x})" if va is not None else ""
        more = f"; {n - 1} more record(s) likewise" if n > 1 else ""
        if given:
            out.append(f"record {first}{at}: {f.why(first)}{more} (at --stride {d.stride}, taken as given)")
        else:
            out.append(f"implausible at stride {d.stride}: record {first}{at}: {f.why(first)}{more}")
    if given:
        return out
    better = suggest_stride(d.target, d.buffer, offset=d.offset, stride=d.stride) if d.stride else None
    if better is not None:
        out.append(f"every record is plausible at stride {better[0]} ({better[1]} records in the bytes): decode with "
                   f"--stride {better[0]}, or with --capture CAPTURE.json to read the records as the call does")
    else:
        out.append("no other stride makes every record fit better; with --capture CAPTURE.json decode reads the "
                   "records as the call does")
    return out


def messages(d: Decoded) -> list[str]:
    """Every finding of ``d``: its trailing partial record and :attr:`Decoded.findings`."""
    return ([d.partial.message(d.va)] if d.partial is not None else []) + d.findings


def write(d: Decoded, out: IO[bytes], fmt: Format = "text", *, chunk: int = CHUNK,
          warn: Callable[[str], None] | None = None, caution: Callable[[str], None] | None = None) -> None:
    """Stream the records of ``d`` to ``out`` as ``text`` (a summary line, an aligned table, a finding line for a
    partial record and each finding, a warning line for each warning), ``csv`` (a header row, one row per record;
    the findings go to ``warn``, the warnings to ``caution``), ``json`` (one object: the target, stride, count,
    fields, ``partial``, ``findings``, ``warnings`` and ``records``, one object per record keyed by the packers'
    column names), or ``npz`` / ``parquet``: the records as a table with the execution table's encodings
    (:class:`DecodedTable`, :func:`write_npz`, :func:`write_parquet`), the findings and warnings in its meta and,
    as for csv, to ``warn`` and ``caution``."""
    if fmt in ("npz", "parquet"):
        (write_npz if fmt == "npz" else write_parquet)(d, out, chunk=chunk)
        _tell(d, warn, caution)
        return
    fs = _formatters(d, fmt)
    if fmt == "text":
        header, parts = _text_parts(fs)
        out.write((summary(d) + "\n" + header + "\n").encode("utf-8", TEXT_ERRORS))
        for lo, hi in _chunks(d.count, _rows_per_chunk(parts, chunk)):
            out.write(_assemble(parts, lo, hi, text=True))
        for message in messages(d):
            out.write(f"finding: {message}\n".encode("utf-8", TEXT_ERRORS))
        for message in d.warnings:
            out.write(f"warning: {message}\n".encode("utf-8", TEXT_ERRORS))
        return
    if fmt == "csv":
        header, parts = _csv_parts(fs)
        out.write((header + "\n").encode("utf-8", TEXT_ERRORS))
        for lo, hi in _chunks(d.count, _rows_per_chunk(parts, chunk)):
            out.write(_assemble(parts, lo, hi, text=False))
        _tell(d, warn, caution)
        return
    head = _head(d, [f.col for f in fs if not isinstance(f, _Synthetic)])
    text = json.dumps(head, indent=1)
    out.write((text[:-2] + ',\n "records": [').encode())
    rows: list[bytes | tuple[_Formatter, int]] = [b",\n  ", *_json_parts(fs)]
    for lo, hi in _chunks(d.count, _rows_per_chunk(rows, chunk)):
        body = _assemble(rows, lo, hi, text=False)
        out.write(body[1:] if lo == 0 else body)  # no comma before the first record
    out.write(b"\n ]\n}\n")


def _tell(d: Decoded, warn: Callable[[str], None] | None, caution: Callable[[str], None] | None) -> None:
    """The findings to ``warn`` and the warnings to ``caution``: where a format that holds no line of text (csv,
    npz, Parquet) says them."""
    if warn is not None:
        for message in messages(d):
            warn(message)
    if caution is not None:
        for message in d.warnings:
            caution(message)


def _head(d: Decoded, columns: Sequence[Column]) -> dict[str, Any]:
    """What a decoded output says about itself: the target, source, stride, count, ``fields`` (``columns`` as they
    are written), the partial record and the findings (JSON's first members, npz's ``meta``, Parquet's
    ``d3d12wl`` metadata)."""
    t = d.target
    gathered_ = d.vas is not None
    return {
        "what": t.name, "source": d.source, "offset": d.offset,
        "stride": d.call_stride if gathered_ else d.stride, "size": t.size,
        "default_stride": t.default_stride, "stride_from": t.stride_from, "count": d.count,
        "va": None if d.va is None else f"0x{d.va:x}",
        # the columns as formatted (an enum column of too many distinct values is shown as numbers)
        "fields": [{"name": c.name, "offset": c.offset, "kind": c.kind, **({"enum": c.enum} if c.enum else {})}
                   for c in columns],
        "partial": None if d.partial is None else d.partial.to_dict(d.va),
        "findings": d.findings,
        "warnings": d.warnings,
        **({"count_from": d.count_from} if d.count_from is not None else {}),
        **({"read_as": d.reading} if gathered_ else {}),
    }


# --- the records as a table: npz and Parquet -----------------------------------------------------------------


#: a decoded column's kind in the output stage's column model (:mod:`d3d12wl.output.table`): decimal integers as
#: ``int`` (a uint64's as ``uint``), hex as ``va`` (8 bytes) or ``dword``, an enum as ``enum``, the identifier as
#: ``text`` (64 hex digits), the program as ``category``, a float as ``float``
def _spec(col: Column) -> ColumnSpec:
    if col.kind == "dec":
        return ColumnSpec(col.name, "uint" if col.dtype == np.dtype(np.uint64) else "int")
    if col.kind == "hex":
        return ColumnSpec(col.name, "va" if col.dtype.itemsize == 8 else "dword")
    if col.kind == "enum":
        return ColumnSpec(col.name, "enum", col.enum)
    if col.kind == "identifier":
        return ColumnSpec(col.name, "text")
    if col.kind == "program":
        return ColumnSpec(col.name, "category")
    return ColumnSpec(col.name, "float")


class DecodedTable:
    """The records of a :class:`Decoded` as a table of the output stage (:class:`~d3d12wl.output.table.Table`):
    ``index``, a gathered record's index columns (``list``, ``primary``, ...), ``va`` where the records have VAs,
    then every column of the target in chunks of ``chunk`` records: the execution table's encodings (VAs uint64,
    enums and program names by name, no value absent)."""

    def __init__(self, d: Decoded, chunk: int = CHUNK) -> None:
        self.d, self.chunk = d, chunk
        self.columns = list(d.target.columns)
        self.column_specs = [_spec(c) for c in self.columns]
        self.specs = [ColumnSpec("index", "int"), *(ColumnSpec(n, "int") for n in d.index_columns),
                      *([ColumnSpec("va", "va")] if d.has_va else []), *self.column_specs]
        self.names: dict[str, NameTable] = {s.name: NameTable() for s in self.specs if s.kind == "enum"}
        programs = ["-", "?", *(name for _, name in d.target.programs)]  # (match_identifiers - EMPTY_IDENTIFIER)
        self.names.update({c.name: NameTable(programs) for c in self.columns if c.kind == "program"})

    def names_of(self, spec: ColumnSpec) -> list[str]:
        table = self.names.get(spec.name)
        return [] if table is None else table.names

    def chunks(self) -> Iterator[TableChunk]:
        d = self.d
        for lo, hi in _chunks(d.count, self.chunk):
            idx = np.arange(lo, hi, dtype=np.int64)
            values: dict[str, np.ndarray] = {"index": idx}
            names: dict[str, Sequence[str]] = {}
            for name, where in d.index_columns.items():
                values[name] = np.asarray(where[lo:hi], dtype=np.int64)
            if d.has_va:
                values["va"] = d.vas[lo:hi] if d.vas is not None else \
                    np.uint64(d.va + d.offset) + idx.astype(np.uint64) * np.uint64(d.stride)  # type: ignore[operator]
            for col, spec in zip(self.columns, self.column_specs, strict=True):
                raw = _leaf_values(d, col, lo, hi)
                if col.kind == "program":
                    values[col.name] = (match_identifiers(d.buffer, [i for i, _ in d.target.programs], count=hi - lo,
                                                          stride=d.stride, offset=d.offset + lo * d.stride
                                                          + col.offset) - EMPTY_IDENTIFIER).astype(np.int32)
                elif col.kind == "identifier":
                    rows = np.ascontiguousarray(raw)
                    distinct, which = np.unique(rows, axis=0, return_inverse=True)
                    names[col.name] = [bytes(r).hex() for r in distinct]
                    values[col.name] = which.reshape(-1).astype(np.int32)
                elif col.kind == "enum":
                    assert col.enum is not None
                    distinct, which = np.unique(raw, return_inverse=True)
                    texts = [abi.enum_text(col.enum, int(v)) for v in distinct]
                    values[col.name] = self.names[col.name].codes(texts, which.reshape(-1))
                else:
                    values[col.name] = np.ascontiguousarray(raw, dtype=NUMPY_TYPES[spec.kind])
            yield TableChunk(hi - lo, values, {}, names)


def write_npz(d: Decoded, out: IO[bytes], *, chunk: int = CHUNK) -> None:
    """The records as an ``.npz`` (:mod:`d3d12wl.output.npz_table`): ``records``, a structured array of one field
    per column (the identifier as 64 hex digits), ``names.<column>`` for every enum and program column, and
    ``meta`` (JSON: what :func:`write`'s json says first: the target, stride, count, fields, partial record and
    findings).  Written chunk by chunk straight into the zip (standard output works)."""
    table = DecodedTable(d, chunk)
    widths = {s.name: 2 * abi.sizeof(L.PROGRAM_IDENTIFIER) for s in table.specs if s.kind == "text"}
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
        npz_table.write_structured(z, "records", table, d.count, widths=widths)
        npz_table.write_names(z, "names.", table)
        npz_table.write_array(z, "meta", np.array(json.dumps(_head(d, table.columns))))


def write_parquet(d: Decoded, out: IO[bytes], *, chunk: int = CHUNK) -> None:
    """The records as Parquet (:mod:`d3d12wl.output.parquet_table`), a row group per chunk: enum members and program
    names as dictionary columns, VAs uint64, the identifier a string; what :func:`write`'s json says first in the
    key-value metadata ``d3d12wl``.  Needs pyarrow (``pip install 'd3d12wl[parquet]'``)."""
    table = DecodedTable(d, chunk)
    metadata = {b"d3d12wl": json.dumps(_head(d, table.columns)).encode("utf-8", TEXT_ERRORS)}
    parquet_table.write_parquet(out, table, parquet_table.schema(table.specs, metadata),
                                use_dictionary=[s.name for s in table.specs if s.kind in ("category", "enum")])
