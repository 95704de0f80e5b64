"""A Parquet file's footer (its ``FileMetaData``, Thrift's compact protocol) read and written again, so that row
groups encoded apart, each as a file of its own on a thread of its own, become one file: their bytes laid one after
another and one footer listing them all, every offset in it moved by where its row group now starts.

The codec is generic over the compact protocol (it keeps each struct's field ids, types and order, so what it reads
it writes back byte for byte, as Apache Thrift's own writer wrote it); what it knows of Parquet is only the field
ids of the offsets it moves and of the lists it joins (parquet.thrift, apache/parquet-format):

* ``FileMetaData``: 3 ``num_rows``, 4 ``row_groups``;
* ``RowGroup``: 1 ``columns``, 5 ``file_offset``, 7 ``ordinal``;
* ``ColumnChunk``: 2 ``file_offset``, 3 ``meta_data``, 4 ``offset_index_offset``, 6 ``column_index_offset``;
* ``ColumnMetaData``: 9 ``data_page_offset``, 10 ``index_page_offset``, 11 ``dictionary_page_offset``,
  14 ``bloom_filter_offset``.

An offset of 0 is none (the file's magic is there; Arrow writes the deprecated ``ColumnChunk.file_offset`` as 0) and
stays 0.  Page indexes and bloom filters, which a writer places after all its row groups, travel with their part's
row group bytes when a part has them (the file stays valid, in another layout than one writer's); pyarrow writes
neither unless asked, and :class:`~d3d12wl.output.parquet_table.ParquetStream` does not ask.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from typing import Any

__all__ = ["MAGIC", "Field", "FileParts", "decode_struct", "encode_struct", "footer_of"]

MAGIC = b"PAR1"

# compact protocol types
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY, _LIST, _SET, _MAP, _STRUCT = range(1, 13)

# parquet.thrift field ids
_FMD_NUM_ROWS, _FMD_ROW_GROUPS = 3, 4
_RG_COLUMNS, _RG_FILE_OFFSET, _RG_ORDINAL = 1, 5, 7
_CC_FILE_OFFSET, _CC_META, _CC_OFFSET_INDEX, _CC_COLUMN_INDEX = 2, 3, 4, 6
_CMD_OFFSETS = (9, 10, 11, 14)


@dataclass
class Field:
    """One field of a struct: its id, compact type and value (a struct: a list of :class:`Field`; a list or set:
    ``(element type, [values])``; a map: ``(key type, value type, [(k, v)])``)."""

    fid: int
    ctype: int
    value: Any


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data, self.at = data, 0

    def byte(self) -> int:
        b = self.data[self.at]
        self.at += 1
        return b

    def varint(self) -> int:
        shift = result = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                return result
            shift += 7
            if shift > 70:
                raise ValueError("a varint longer than 10 bytes")

    def zigzag(self) -> int:
        n = self.varint()
        return (n >> 1) ^ -(n & 1)

    def value(self, ctype: int) -> Any:
        if ctype in (_TRUE, _FALSE):  # (an element of a list: one byte)
            return self.byte() == _TRUE
        if ctype == _BYTE:
            return self.byte()
        if ctype in (_I16, _I32, _I64):
            return self.zigzag()
        if ctype == _DOUBLE:
            (v,) = struct.unpack_from("<d", self.data, self.at)
            self.at += 8
            return v
        if ctype == _BINARY:
            n = self.varint()
            v = self.data[self.at:self.at + n]
            if len(v) != n:
                raise ValueError("a string past the footer's end")
            self.at += n
            return v
        if ctype in (_LIST, _SET):
            head = self.byte()
            size, etype = head >> 4, head & 0x0F
            if size == 15:
                size = self.varint()
            return (etype, [self.value(etype) for _ in range(size)])
        if ctype == _MAP:
            size = self.varint()
            if not size:
                return (0, 0, [])
            kv = self.byte()
            k, v = kv >> 4, kv & 0x0F
            return (k, v, [(self.value(k), self.value(v)) for _ in range(size)])
        if ctype == _STRUCT:
            return self.struct()
        raise ValueError(f"compact type {ctype} at byte {self.at}")

    def struct(self) -> list[Field]:
        fields: list[Field] = []
        last = 0
        while (head := self.byte()) != 0:
            ctype, delta = head & 0x0F, head >> 4
            fid = last + delta if delta else self.zigzag()
            value = (ctype == _TRUE) if ctype in (_TRUE, _FALSE) else self.value(ctype)
            fields.append(Field(fid, ctype, value))
            last = fid
        return fields


def _varint(n: int, out: bytearray) -> None:
    while n > 0x7F:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)


def _zigzag(n: int, out: bytearray) -> None:
    _varint((n << 1) ^ (n >> 63), out)


def _value(ctype: int, value: Any, out: bytearray) -> None:
    if ctype in (_TRUE, _FALSE):
        out.append(_TRUE if value else _FALSE)
    elif ctype == _BYTE:
        out.append(value)
    elif ctype in (_I16, _I32, _I64):
        _zigzag(value, out)
    elif ctype == _DOUBLE:
        out += struct.pack("<d", value)
    elif ctype == _BINARY:
        _varint(len(value), out)
        out += value
    elif ctype in (_LIST, _SET):
        etype, items = value
        if len(items) < 15:
            out.append(len(items) << 4 | etype)
        else:
            out.append(0xF0 | etype)
            _varint(len(items), out)
        for item in items:
            _value(etype, item, out)
    elif ctype == _MAP:
        k, v, items = value
        _varint(len(items), out)
        if items:
            out.append(k << 4 | v)
            for key, val in items:
                _value(k, key, out)
                _value(v, val, out)
    elif ctype == _STRUCT:
        _struct(value, out)
    else:
        raise ValueError(f"compact type {ctype}")


def _struct(fields: list[Field], out: bytearray) -> None:
    last = 0
    for f in fields:
        ctype = (_TRUE if f.value else _FALSE) if f.ctype in (_TRUE, _FALSE) else f.ctype
        delta = f.fid - last
        if 0 < delta <= 15:
            out.append(delta << 4 | ctype)
        else:
            out.append(ctype)
            _zigzag(f.fid, out)
        if f.ctype not in (_TRUE, _FALSE):
            _value(f.ctype, f.value, out)
        last = f.fid
    out.append(0)


def decode_struct(data: bytes) -> list[Field]:
    """The struct the compact-protocol bytes ``data`` hold (a ValueError where they end early or hold a type the
    protocol has not)."""
    reader = _Reader(data)
    try:
        fields = reader.struct()
    except IndexError:
        raise ValueError("the struct runs past its bytes") from None
    if reader.at != len(data):
        raise ValueError(f"{len(data) - reader.at} bytes after the struct")
    return fields


def encode_struct(fields: list[Field]) -> bytes:
    """``fields`` in the compact protocol."""
    out = bytearray()
    _struct(fields, out)
    return bytes(out)


def footer_of(file: bytes | memoryview) -> tuple[int, list[Field]]:
    """Where the footer of the Parquet file ``file`` starts, and its ``FileMetaData`` (a copy: nothing of it refers
    to ``file``)."""
    view = memoryview(file)
    if len(view) < 12 or view[:4] != MAGIC or view[-4:] != MAGIC:
        raise ValueError("not a Parquet file (PAR1 at both ends)")
    (length,) = struct.unpack_from("<I", view, len(view) - 8)
    start = len(view) - 8 - length
    if start < 4:
        raise ValueError("a footer longer than the file")
    return start, decode_struct(bytes(view[start:len(view) - 8]))


def _get(fields: list[Field], fid: int) -> Field | None:
    return next((f for f in fields if f.fid == fid), None)


def _need(fields: list[Field], fid: int, what: str) -> Field:
    f = _get(fields, fid)
    if f is None:
        raise ValueError(f"a footer without its {what}")
    return f


def _move(fields: list[Field], fid: int, by: int) -> None:
    f = _get(fields, fid)
    if f is not None and f.value:  # (0 is no offset: the magic is there; Arrow writes ColumnChunk.file_offset 0)
        f.value += by


class FileParts:
    """Parquet files of one schema joined into one as they come (:meth:`add`: the file's bytes after its leading
    magic and before its footer; what to write), and the footer that ends it (:meth:`footer`)."""

    def __init__(self) -> None:
        self.written = len(MAGIC)  # where the next part's bytes go (the file's own magic comes first)
        self.row_groups: list[Any] = []
        self.rows = 0

    def add(self, file: bytes | memoryview) -> memoryview:
        """Take one file; the bytes to write next (its row groups' pages)."""
        start, meta = footer_of(file)
        by = self.written - len(MAGIC)
        groups = _get(meta, _FMD_ROW_GROUPS)
        for group in groups.value[1] if groups is not None else ():
            _move(group, _RG_FILE_OFFSET, by)
            ordinal = _get(group, _RG_ORDINAL)
            if ordinal is not None:
                ordinal.value = len(self.row_groups)
            for chunk in _need(group, _RG_COLUMNS, "RowGroup.columns").value[1]:
                for fid in (_CC_FILE_OFFSET, _CC_OFFSET_INDEX, _CC_COLUMN_INDEX):
                    _move(chunk, fid, by)
                cmd = _get(chunk, _CC_META)
                if cmd is not None:
                    for fid in _CMD_OFFSETS:
                        _move(cmd.value, fid, by)
            self.row_groups.append(group)
        rows = _get(meta, _FMD_NUM_ROWS)
        self.rows += rows.value if rows is not None else 0
        self.written += start - len(MAGIC)
        return memoryview(file)[len(MAGIC):start]

    def footer(self, template: bytes | memoryview) -> bytes:
        """The joined file's footer, its length and magic: the ``FileMetaData`` of ``template`` (a Parquet file of
        the schema with no row group, written with the options and key-value metadata the file is to have, so
        that the writer's own merge of them is kept) with every row group added and their rows."""
        meta = footer_of(template)[1]
        _need(meta, _FMD_NUM_ROWS, "FileMetaData.num_rows").value = self.rows
        groups = _need(meta, _FMD_ROW_GROUPS, "FileMetaData.row_groups")
        groups.value = (groups.value[0], self.row_groups)
        body = encode_struct(meta)
        return body + struct.pack("<I", len(body)) + MAGIC


