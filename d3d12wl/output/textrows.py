"""Text rows from columns: the one formatter of every large text output (``exec`` text, JSON, JSON lines and CSV,
``dump``'s tables).

A *template* is a sequence of parts: literal text, a :class:`Value` (element ``r`` of a column, written as an
unsigned or signed decimal, a hexadecimal or a name from a dictionary; the column's mask, where it has one, says
where the value is absent, which writes the value's ``absent`` text instead), or a :class:`Cell` (parts padded to
a width, left- or right-aligned; a wider cell widens only its own row).  :class:`RowFormatter` compiles templates
once and writes ``n`` rows at a time, each row following the template a per-row index picks, in one pass of the C
kernel ``d3d12wl_format_rows`` (``d3d12wl/records/_kernels.c``): no Python object per row, the bytes of a chunk
in one buffer.

:func:`json_parts` turns JSON-ready data whose leaves may be :class:`Value` s (a number) or :class:`Text` s (a
string made of parts) into a template that writes exactly what ``json.dumps`` writes for the same data with the
values in place.

::

    f = RowFormatter([["#", Value("index"), " @0x", Value("va", "hex"), "\\n"]])
    f.format({"index": np.arange(2), "va": np.array([16, 255])}, 2)   # b'#0 @0x10\\n#1 @0xff\\n'
"""

from __future__ import annotations

import importlib
import json
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from d3d12wl.output.outfiles import TEXT_ERRORS

__all__ = ["Cell", "Field", "Part", "PreparedRows", "RowBuffer", "RowFormatter", "Splice", "Text", "Value", "csv_cell", "json_parts", "json_string", "split"]

ValueKind = Literal["udec", "sdec", "hex", "dict"]
_KINDS = {"udec": 1, "sdec": 2, "hex": 3, "dict": 4}
_LITERAL, _MARK, _PAD_LEFT, _PAD_RIGHT = 0, 5, 6, 7
#: bytes a value op may write at most (20 digits and a sign; the kernel checks it too)
_VALUE_BYTES = 21
#: room the kernel's short copies need past the pool's and the output's end (D3D12WL_SHORT)
_SLACK = 16


@dataclass(frozen=True)
class Field:
    """Where a :class:`Value` reads a record's field: the little-endian integer of ``size`` bytes (1, 2, 4 or 8)
    at ``offset`` of a record of source ``source`` (a table of records: a C-contiguous two-dimensional uint8 array,
    a record a row), sign-extended where ``signed``.  The value's column then holds, per row, the record's row
    number in the source."""

    source: str
    offset: int
    size: int
    signed: bool = False


@dataclass(frozen=True)
class Value:
    """Element ``r`` of column ``column`` (or, with ``field``, the field of the record that element names):
    ``udec`` (unsigned decimal), ``sdec`` (signed decimal), ``hex`` (lowercase hexadecimal, at least ``digits``
    digits, no prefix) or ``dict`` (the column holds codes into ``names``; a code outside them is absent).  Where
    the mask column ``mask`` is true the value is absent and ``absent`` is written instead.  ``add`` is added (mod
    2**64) to the value before it is written; ``prefix`` (``0x``) is written before a value that is present."""

    column: str
    kind: ValueKind = "udec"
    absent: str = ""
    mask: str | None = None
    add: int = 0
    digits: int = 0
    names: tuple[str, ...] = ()
    prefix: str = ""
    field: Field | None = None


@dataclass(frozen=True)
class Cell:
    """``parts`` padded with spaces to ``width`` bytes, left-aligned (``<``) or right-aligned (``>``)."""

    parts: tuple[Part, ...]
    width: int
    align: Literal["<", ">"] = "<"


@dataclass(frozen=True)
class Text:
    """A JSON string made of parts (:func:`json_parts` escapes its literal parts; values are written as they
    are, so they must need no escape: numbers, or names that :func:`json_string` escaped)."""

    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Splice:
    """A place in a :func:`json_parts` template where the caller puts rows of its own (a list of variable length):
    the template is split there."""

    name: str


Part = str | bytes | Value | Cell


def csv_cell(text: str) -> str:
    """``text`` as one CSV cell (RFC 4180): quoted, with its quotes doubled, where it holds a comma, a quote or a line
    break; as it is otherwise."""
    return '"' + text.replace('"', '""') + '"' if any(c in text for c in ',"\r\n') else text


def json_string(text: str) -> str:
    """``text`` as the inside of a JSON string (what ``json.dumps`` writes between the quotes)."""
    return json.dumps(text)[1:-1]


#: an op before the kernel gets it: (kind, width, column, mask, lead, lead_length, text, length, prefix,
#: prefix_length, add, dict, dict_count, source, offset, size, sign), with column, mask and source as indices
#: into the formatter's names
_Op = tuple[int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int, int]
#: an op's last members where its value is element r of its column
_NO_FIELD = (-1, 0, 0, 0)


@dataclass
class _Compiled:
    ops: list[_Op] = field(default_factory=list)
    starts: list[int] = field(default_factory=lambda: [0])
    pool: bytearray = field(default_factory=bytearray)
    dict_entries: list[int] = field(default_factory=list)
    columns: dict[str, int] = field(default_factory=dict)
    masks: dict[str, int] = field(default_factory=dict)
    #: the sources fields are read from, and the bytes each record of each must have at least
    sources: dict[str, int] = field(default_factory=dict)
    record_bytes: dict[str, int] = field(default_factory=dict)
    max_bytes: list[int] = field(default_factory=list)
    _pooled: dict[bytes, int] = field(default_factory=dict)

    def text(self, data: bytes) -> int:
        at = self._pooled.get(data)
        if at is None:
            at = self._pooled[data] = len(self.pool)
            self.pool += data
        return at

    def _pending_literal(self) -> bytes:
        """The literal op ending the template being compiled (taken off it: the next op leads with it)."""
        if len(self.ops) > self.starts[-1] and self.ops[-1][0] == _LITERAL:
            op = self.ops.pop()
            return bytes(self.pool[op[4]:op[4] + op[5]])
        return b""

    def add(self, kind: int, width: int = 0, column: int = -1, mask: int = -1, text: bytes = b"",
            prefix: bytes = b"", add: int = 0, first: int = 0, count: int = 0,
            source: tuple[int, int, int, int] = _NO_FIELD) -> None:
        lead = self._pending_literal()
        self.ops.append((kind, width, column, mask, self.text(lead), len(lead), self.text(text), len(text),
                         self.text(prefix), len(prefix), add, first, count, *source))

    def literal(self, data: bytes) -> int:
        if data:
            lead = self._pending_literal() + data
            self.ops.append((_LITERAL, 0, -1, -1, self.text(lead), len(lead), 0, 0, 0, 0, 0, 0, 0, *_NO_FIELD))
        return len(data)

    def value(self, v: Value) -> int:
        column = self.columns.setdefault(v.column, len(self.columns))
        mask = -1 if v.mask is None else self.masks.setdefault(v.mask, len(self.masks))
        absent = v.absent.encode("utf-8", TEXT_ERRORS)
        first = count = 0
        longest = _VALUE_BYTES
        if v.kind == "dict":
            names = [n.encode("utf-8", TEXT_ERRORS) for n in v.names]
            first, count = len(self.dict_entries) // 2, len(names)
            for name in names:
                self.dict_entries += [self.text(name), len(name)]
            longest = max([0, *map(len, names)])
        prefix = v.prefix.encode("utf-8", TEXT_ERRORS)
        source = _NO_FIELD
        if v.field is not None:
            f = v.field
            if f.size not in (1, 2, 4, 8) or f.offset < 0:
                raise ValueError(f"field of {f.size} bytes at offset {f.offset} of {f.source!r}")
            source = (self.sources.setdefault(f.source, len(self.sources)), f.offset, f.size, int(f.signed))
            self.record_bytes[f.source] = max(self.record_bytes.get(f.source, 0), f.offset + f.size)
        self.add(_KINDS[v.kind], min(v.digits, 16), column, mask, absent, prefix, v.add % (1 << 64), first, count,
                 source)
        return max(longest + len(prefix), len(absent), min(v.digits, 16) + len(prefix))

    def part(self, part: Part) -> int:
        if isinstance(part, str):
            return self.literal(part.encode("utf-8", TEXT_ERRORS))
        if isinstance(part, bytes):
            return self.literal(part)
        if isinstance(part, Value):
            return self.value(part)
        self.add(_MARK)
        inner = sum(self.part(p) for p in part.parts)
        self.add(_PAD_LEFT if part.align == "<" else _PAD_RIGHT, part.width)
        return max(inner, part.width)

    def template(self, parts: Sequence[Part]) -> None:
        self.max_bytes.append(sum(self.part(p) for p in parts))
        self.starts.append(len(self.ops))


class RowBuffer:
    """The bytes :meth:`RowFormatter.format` writes into (grown as a call needs): one per thread that formats, or
    per block being written while others are made."""

    def __init__(self) -> None:
        self.array = np.empty(0, dtype=np.uint8)

    def room(self, size: int) -> np.ndarray:
        if self.array.size < size:
            self.array = np.empty(size, dtype=np.uint8)
        return self.array


class RowFormatter:
    """Templates compiled for the kernel; :meth:`format` writes rows of them from columns.  The compiled ops are
    only read by a call (they name columns by index), so calls on several threads at once are safe, each with a
    :class:`RowBuffer` of its own (the kernel lets go of the GIL)."""

    def __init__(self, templates: Sequence[Sequence[Part]]) -> None:
        native = importlib.import_module("d3d12wl._native")  # the cffi-built extension (no stub)
        ffi, lib = native.ffi, native.lib
        self._ffi, self._lib = ffi, lib
        c = _Compiled()
        for parts in templates:
            c.template(parts)
        self.templates = len(templates)
        #: the columns and mask columns :meth:`format` reads, by name
        self.columns = tuple(c.columns)
        self.masks = tuple(c.masks)
        self.max_bytes = np.array(c.max_bytes, dtype=np.int64)
        self._ops = ffi.new("struct d3d12wl_op[]", max(len(c.ops), 1))
        #: the sources fields are read from (:class:`Field`), by name, and the bytes a record of each must have
        self.sources = tuple(c.sources)
        self._record_bytes = [c.record_bytes[name] for name in self.sources]
        for i, op in enumerate(c.ops):
            o = self._ops[i]
            (o.kind, o.width, o.column, o.mask, o.lead, o.lead_length, o.text, o.length, o.prefix, o.prefix_length,
             o.add, o.dict, o.dict_count, o.source, o.offset, o.size, o.sign) = op
        self._starts = ffi.new("int64_t[]", c.starts)
        self._pool = ffi.new("uint8_t[]", bytes(c.pool) + bytes(_SLACK))
        self._dict = ffi.new("uint64_t[]", c.dict_entries or [0])
        self._buffer = RowBuffer()

    def format(self, columns: Mapping[str, np.ndarray], n: int, which: np.ndarray | None = None,
               masks: Mapping[str, np.ndarray] | None = None, *, sources: Mapping[str, np.ndarray] | None = None,
               buffer: RowBuffer | None = None) -> memoryview:
        """Rows ``0 .. n - 1``: row ``r`` follows template ``which[r]`` (default: template 0) and reads element
        ``r`` of every column it names (integers, converted to 8 bytes) and mask (booleans), and the fields of the
        records of ``sources`` it names (:class:`Field`).  The bytes are ``buffer``'s (default: the formatter's
        own), valid until its next use: write them out (or copy them) first."""
        return self.prepare(columns, n, which, masks, sources=sources).make(buffer)

    def kernel_columns(self, columns: Mapping[str, np.ndarray], n: int) -> dict[str, np.ndarray]:
        """Rows ``0 .. n - 1`` of the columns this formatter reads as the kernel reads them (8-byte contiguous
        arrays: views of those that are already): converted once, a chunk's columns are sliced into blocks that
        :meth:`prepare` takes as they are."""
        return {name: _eight_bytes(columns[name], n) for name in self.columns}

    def prepare(self, columns: Mapping[str, np.ndarray], n: int, which: np.ndarray | None = None,
                masks: Mapping[str, np.ndarray] | None = None, *, sources: Mapping[str, np.ndarray] | None = None,
                skip: int = 0) -> PreparedRows:
        """:meth:`format`'s rows as one kernel call ready to be made (by :meth:`PreparedRows.make`, on any
        thread), its first ``skip`` bytes left out: every Python step of the call (the columns as 8-byte arrays,
        the pointers, the bound) is taken here, so that a worker thread that makes it holds the GIL only to start
        and end the kernel."""
        if n <= 0:
            return PreparedRows(self, 0, 0, skip)
        ffi = self._ffi
        keep: list[Any] = []
        cols = ffi.new("uint64_t *[]", max(len(self.columns), 1))
        # (the arrays' memory is handed over by ffi.from_buffer, a view that keeps the array alive: several times
        # cheaper than ndarray.ctypes, which makes an object per call, for the dozens of columns of every block)
        from_buffer = ffi.from_buffer
        for i, name in enumerate(self.columns):
            view = from_buffer("uint64_t[]", _eight_bytes(columns[name], n))
            keep.append(view)
            cols[i] = view
        mask_ptrs = ffi.new("uint8_t *[]", max(len(self.masks), 1))
        for i, name in enumerate(self.masks):
            assert masks is not None, name
            view = from_buffer("uint8_t[]", np.ascontiguousarray(masks[name][:n], dtype=np.bool_))
            keep.append(view)
            mask_ptrs[i] = view
        tables = ffi.new("struct d3d12wl_source[]", max(len(self.sources), 1))
        for i, name in enumerate(self.sources):
            assert sources is not None, name
            records = sources[name]
            if records.dtype != np.uint8 or records.ndim != 2 or not records.flags.c_contiguous or \
                    records.shape[1] < self._record_bytes[i]:
                raise ValueError(f"source {name!r}: a C-contiguous uint8 array of records of at least "
                                 f"{self._record_bytes[i]} bytes, not {records.dtype} {records.shape}")
            view = from_buffer("uint8_t[]", records)
            keep.append(view)
            tables[i].base, tables[i].stride, tables[i].count = view, records.shape[1], records.shape[0]
        if which is None:
            capacity = int(self.max_bytes[0]) * n
            row_template = ffi.NULL
        else:
            w = np.ascontiguousarray(which[:n], dtype=np.int32)
            capacity = int(self.max_bytes[w].sum())
            row_template = from_buffer("int32_t[]", w)
        return PreparedRows(self, n, capacity, skip, (cols, mask_ptrs, tables, row_template), keep)


class PreparedRows:
    """One call of the kernel with its arguments made (:meth:`RowFormatter.prepare`): :meth:`make` writes its rows
    into a buffer.  Calls of several at once on several threads are safe, each with a buffer of its own."""

    __slots__ = ("_formatter", "_n", "_capacity", "_skip", "_pointers", "_keep")

    def __init__(self, formatter: RowFormatter, n: int, capacity: int, skip: int,
                 pointers: tuple[Any, Any, Any, Any] | None = None, keep: list[Any] | None = None) -> None:
        self._formatter, self._n, self._capacity, self._skip = formatter, n, capacity, skip
        #: the kernel's columns, masks, sources and row templates, and the views that keep their memory alive
        self._pointers, self._keep = pointers, keep

    def make(self, buffer: RowBuffer | None) -> memoryview:
        """The rows' bytes (less the first ``skip``), in ``buffer`` (None: the formatter's own), valid until its
        next use."""
        if self._pointers is None:
            return memoryview(b"")
        f = self._formatter
        cols, mask_ptrs, tables, row_template = self._pointers
        out = (buffer or f._buffer).room(self._capacity + _SLACK)
        got = f._lib.d3d12wl_format_rows(f._ffi.from_buffer("uint8_t[]", out, require_writable=True), self._capacity,
                                         self._n, f._ops, f._starts, row_template, f._pool, f._dict, cols, mask_ptrs,
                                         tables)
        if got < 0:  # (a bug of the caller's: its bounds and sources are its own)
            raise RuntimeError(f"row {-1 - got} overflowed its bound or named a record its source does not hold")
        return out.data[self._skip:got]


def _eight_bytes(values: np.ndarray, n: int) -> np.ndarray:
    a = np.asarray(values)[:n]
    if a.dtype.kind in "iub" and a.dtype.itemsize == 8 and a.flags.c_contiguous:
        return a
    if a.dtype.kind == "i":
        return np.ascontiguousarray(a, dtype=np.int64)
    return np.ascontiguousarray(a, dtype=np.uint64)


# -- JSON templates ------------------------------------------------------------------------------------------------

#: the marks of holes in a JSON template: a string no JSON-ready data holds (NUL-delimited, with a random token)
_NONCE = secrets.token_hex(8)
_HOLE = re.compile(rf'"\\u0000{_NONCE}(\d+)\\u0000"')


def json_parts(data: Any, *, indent: int | None = None, separators: tuple[str, str] | None = None,
               depth: int = 0) -> list[Part | Splice]:
    """The template of ``json.dumps(data, indent=indent, separators=separators)`` with every line after the first
    indented by ``depth`` more spaces (an item nested in a document being streamed), where ``data``'s leaves may be
    :class:`Value` s (written as they are: a number), :class:`Text` s (a string of parts) and :class:`Splice` s
    (left in the parts, for :func:`split`)."""
    nonce = _NONCE
    holes: list[Value | Text | Splice] = []

    def mark(obj: Any) -> Any:
        if isinstance(obj, (Value, Text, Splice)):
            holes.append(obj)
            return f"\0{nonce}{len(holes) - 1}\0"
        if isinstance(obj, dict):
            return {k: mark(v) for k, v in obj.items()}
        if isinstance(obj, (list, tuple)):
            return [mark(v) for v in obj]
        return obj

    text = json.dumps(mark(data), indent=indent, separators=separators)
    if depth:
        text = text.replace("\n", "\n" + " " * depth)
    parts: list[Part | Splice] = []
    pos = 0
    for m in _HOLE.finditer(text):
        parts.append(text[pos:m.start()])
        hole = holes[int(m.group(1))]
        if isinstance(hole, (Value, Splice)):
            parts.append(hole)
        else:
            parts.append('"')
            parts += [json_string(p) if isinstance(p, str) else p for p in hole.parts]
            parts.append('"')
        pos = m.end()
    parts.append(text[pos:])
    return [p for p in parts if p != ""]


def split(parts: Sequence[Part | Splice]) -> list[list[Part]]:
    """``parts`` cut at every :class:`Splice`: the templates before, between and after them."""
    out: list[list[Part]] = [[]]
    for p in parts:
        if isinstance(p, Splice):
            out.append([])
        else:
            out[-1].append(p)
    return out
