"""GITS's ExecuteIndirect dumps read in columns: each command's arguments as the record bytes they print, each GPU VA
with the resource GITS found it in, into the table ``d3d12wl patch-list`` writes; and for a pre- and post-patch
pair, the verdict per address.

The writer (intel/gits ``DirectX/player/executeIndirectDump.cpp``, ``ExecuteIndirectDump::DumpArgumentBuffer``;
docs/gits.md says which version was read) writes ``call_<key>_execute_indirect_<pre|post>_patch.txt``
(``gpuPatchDumpService.cpp``) for each ExecuteIndirect it patches: ``min(MaxCommandCount, *pCountBuffer)``
commands, each ``ARGUMENT <n>`` (from 1) and then a line per argument of the command signature, in its order:

* ``  DRAW a, b, c, d``, ``  DRAW INDEXED a, b, c, d, e`` (``BaseVertexLocation`` signed), ``  DISPATCH x, y, z``,
  ``  DISPATCH MESH x, y, z``;
* ``  VERTEX BUFFER VIEW <address>, size, stride``, ``  INDEX BUFFER VIEW <address>, size, format`` (the
  ``DXGI_FORMAT`` as a number);
* ``  CONSTANT v``: one line per DWORD of a ``CONSTANT`` argument (so two adjacent constant arguments print as one
  run: the dump alone does not say where one ends);
* ``  CONSTANT BUFFER VIEW <address>``, ``  SHADER BUFFER VIEW <address>`` (an SRV), ``  UNORDERED ACCESS VIEW
  <address>``;
* ``  DISPATCH RAYS`` and seven lines: ``    RayGenerationShaderRecord <address>, size``, ``    MissShaderTable
  <address>, size, stride``, the same for ``HitGroupTable`` and ``CallableShaderTable``, ``    Width w``,
  ``    Height h``, ``    Depth d``.

``<address>`` is ``{0x`` + 16 hex digits, then, unless it is 0, ``, key O<key>, offset <n>`` (the resource that
holds it and the offset in it: in the capture's addresses for the pre-patch dump, the player's for the post-patch
one) or ``, NOT FOUND``, then ``}``.  ``INCREMENTING_CONSTANT`` prints nothing (it has no bytes in a command).  The
command signature itself, ``ByteStride`` and the argument buffer's VA are not in the file: give the signature
(a capture or a description), or it is read from the lines (:func:`infer_signature`).

Read in columns (no Python object per line or per command): the lines classified by their first bytes, the numbers
parsed as digit runs (hex addresses apart), checked against the lines the signature prints, and placed into records
at the signature's ``ByteStride`` (:func:`d3d12wl.records.dtypes.record_dtype`).  A line the writer would not make
is an :class:`~d3d12wl.importers.errors.ImportInputError` naming the file and line.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import abi, inputs
from d3d12wl.capture.maps import VaMap
from d3d12wl.executor.references import COLUMNS, ReferenceTable
from d3d12wl.executor.trace import Finding
from d3d12wl.importers.errors import ImportInputError
from d3d12wl.model.objects import CommandSignature, EIConstantArg, IndirectArgumentDesc
from d3d12wl.records.dtypes import leaves, record_dtype
from d3d12wl.records.layout import RecordLayout, command_layout
from d3d12wl.records.references import REFERENCE_KINDS, VA, FieldReference, record_references

__all__ = ["FILE_NAME", "GITS_FINDING_KINDS", "VERDICTS", "GitsDump", "GitsPair", "infer_signature", "pair_dumps",
           "read_gits_dump"]

#: the file names GITS gives the dumps (``gpuPatchDumpService.cpp``)
FILE_NAME = re.compile(r"call_(?P<key>[0-9]+)_execute_indirect_(?P<phase>pre|post)_patch\.txt")
#: the most bytes of a dump read (it is mapped; a million commands of five lines is about 200 MB)
MAX_DUMP_BYTES = 1 << 34
#: bytes of the dump read at a time, cut before an ARGUMENT line (whole commands): each costs some 20 bytes of
#: columns a byte while it is read
CHUNK_BYTES = 1 << 22

#: a line's kind: its first bytes after its indentation, and that indentation
_LINE_KINDS: tuple[tuple[str, bytes, int], ...] = (
    ("ARGUMENT", b"ARGUMENT ", 0),
    ("DRAW_INDEXED", b"DRAW INDEXED ", 2), ("DRAW", b"DRAW ", 2),
    ("DISPATCH_MESH", b"DISPATCH MESH ", 2), ("DISPATCH_RAYS", b"DISPATCH RAYS", 2), ("DISPATCH", b"DISPATCH ", 2),
    ("VERTEX_BUFFER_VIEW", b"VERTEX BUFFER VIEW ", 2), ("INDEX_BUFFER_VIEW", b"INDEX BUFFER VIEW ", 2),
    ("CONSTANT_BUFFER_VIEW", b"CONSTANT BUFFER VIEW ", 2), ("CONSTANT", b"CONSTANT ", 2),
    ("SHADER_RESOURCE_VIEW", b"SHADER BUFFER VIEW ", 2), ("UNORDERED_ACCESS_VIEW", b"UNORDERED ACCESS VIEW ", 2),
    ("RAYS_RAYGEN", b"RayGenerationShaderRecord ", 4), ("RAYS_MISS", b"MissShaderTable ", 4),
    ("RAYS_HIT", b"HitGroupTable ", 4), ("RAYS_CALLABLE", b"CallableShaderTable ", 4),
    ("RAYS_WIDTH", b"Width ", 4), ("RAYS_HEIGHT", b"Height ", 4), ("RAYS_DEPTH", b"Depth ", 4))
_KIND_CODE = {name: i for i, (name, _, _) in enumerate(_LINE_KINDS)}
#: bytes of a line after its indentation compared with the kinds' first bytes (as two little-endian uint64: a
#: kind's value and the mask of its length)
_KEY = 16


def _key_words(text: bytes) -> tuple[int, int, int, int]:
    head = text[:_KEY].ljust(_KEY, b"\0")
    mask = (b"\xff" * min(len(text), _KEY)).ljust(_KEY, b"\0")
    return (int.from_bytes(head[:8], "little"), int.from_bytes(head[8:], "little"),
            int.from_bytes(mask[:8], "little"), int.from_bytes(mask[8:], "little"))


_KIND_KEYS = np.array([_key_words(text) for _, text, _ in _LINE_KINDS], dtype=np.uint64)
_KIND_INDENT = np.array([indent for _, _, indent in _LINE_KINDS], dtype=np.int64)
#: the lines each argument type prints (after ARGUMENT), and how many numbers each line holds (addresses counted)
_ARGUMENT_LINES = {
    "DRAW": (("DRAW", 4),), "DRAW_INDEXED": (("DRAW_INDEXED", 5),), "DISPATCH": (("DISPATCH", 3),),
    "DISPATCH_MESH": (("DISPATCH_MESH", 3),), "VERTEX_BUFFER_VIEW": (("VERTEX_BUFFER_VIEW", 3),),
    "INDEX_BUFFER_VIEW": (("INDEX_BUFFER_VIEW", 3),), "CONSTANT_BUFFER_VIEW": (("CONSTANT_BUFFER_VIEW", 1),),
    "SHADER_RESOURCE_VIEW": (("SHADER_RESOURCE_VIEW", 1),), "UNORDERED_ACCESS_VIEW": (("UNORDERED_ACCESS_VIEW", 1),),
    "DISPATCH_RAYS": (("DISPATCH_RAYS", 0), ("RAYS_RAYGEN", 2), ("RAYS_MISS", 3), ("RAYS_HIT", 3),
                      ("RAYS_CALLABLE", 3), ("RAYS_WIDTH", 1), ("RAYS_HEIGHT", 1), ("RAYS_DEPTH", 1)),
    "INCREMENTING_CONSTANT": (),
}
_SIGNED_LINES = {_KIND_CODE["DRAW_INDEXED"]}
_DIGITS = np.zeros(256, dtype=bool)
_DIGITS[ord("0"):ord("9") + 1] = True
_HEX = np.full(256, -1, dtype=np.int8)
for _i, _c in enumerate("0123456789abcdef"):
    _HEX[ord(_c)] = _i
    _HEX[ord(_c.upper())] = _i

#: an address's lookup: printed without one (a NULL address), found in a resource, NOT FOUND
NULL_ADDRESS, FOUND, NOT_FOUND = 0, 1, 2

#: the verdict of one address of a pre/post pair, in the order its codes number them
VERDICTS = ("null", "patched", "left-alone", "points-nowhere", "unpatched", "patched-elsewhere", "null-patched",
            "patched-to-null", "not-in-post", "not-in-pre")
#: the verdicts a replay cannot execute what was captured with
BLOCKING_VERDICTS = ("unpatched", "patched-elsewhere", "null-patched", "patched-to-null", "not-in-post", "not-in-pre")

GITS_SOURCE = "gits executeIndirectDump.cpp"
#: the findings of reading GITS's dumps, by kind
GITS_FINDING_KINDS = {
    "signature-inferred": "the dump does not hold the command signature: it is read from the dump's lines",
    "count-changed": "the pre- and post-patch dumps hold different numbers of commands",
    "argument-changed": "patching changed an argument that is no GPU VA",
    **{v: f"an address whose verdict is {v}" for v in BLOCKING_VERDICTS},
    "points-nowhere": "a captured address in no resource (pre-patch NOT FOUND, or in no range of the VA map)",
}
#: the most findings of one kind listed (the rest are counted)
MAX_LISTED = 16


@dataclass
class GitsDump:
    """One dump read: ``records`` (one per command, at the signature's ``ByteStride``; bytes the dump does not print
    are 0), and per GPU VA field (``va_fields``, the layout's references in record order) each command's lookup:
    ``status`` (:data:`NULL_ADDRESS`, :data:`FOUND`, :data:`NOT_FOUND`), ``keys`` (GITS's resource key, -1 without
    one) and ``offsets``."""

    path: Path
    signature: CommandSignature
    layout: RecordLayout
    records: np.ndarray
    va_fields: tuple[FieldReference, ...]
    status: np.ndarray
    keys: np.ndarray
    offsets: np.ndarray
    call_key: str | None = None
    phase: str | None = None
    inferred: bool = False
    findings: list[Finding] = field(default_factory=list)
    _va: np.ndarray | None = field(default=None, repr=False)
    _keys: np.ndarray | None = field(default=None, repr=False)

    @property
    def count(self) -> int:
        return len(self.records)

    def va_values(self) -> np.ndarray:
        """(commands, VA fields) of uint64: each command's addresses (made once)."""
        if self._va is None:
            out = np.zeros((self.count, len(self.va_fields)), dtype=np.uint64)
            if self.count:
                raw = self.records.view(np.uint8).reshape(self.count, -1)
                for j, f in enumerate(self.va_fields):
                    out[:, j] = raw[:, f.offset:f.offset + 8].copy().view("<u8").reshape(-1)
            self._va = out
        return self._va

    def table(self, findings: list[Finding] | None = None) -> ReferenceTable:
        """The references its commands hold, as ``d3d12wl patch-list`` writes them: a row per GPU VA field per
        command (command-major), ``kind`` va, ``value`` the address, ``record_id`` ``<signature>.command``,
        ``field`` the layout's name, ``command_index``, ``target`` GITS's resource (``O<key>``) and
        ``target_offset``; no region, offset or VA (the dump does not hold the argument buffer's).  All of it at
        once; :meth:`tables` gives it a block of commands at a time."""
        return ReferenceTable(self._columns(0, self.count), self.names(),
                              list(self.findings if findings is None else findings))

    def names(self) -> dict[str, list[str]]:
        """The name tables of :meth:`table`'s code columns (the same for every block of :meth:`tables`)."""
        return {"region": [], "kind": list(REFERENCE_KINDS), "identifier": [],
                "record_id": [f"{self.signature.name}.command"], "field": [f.name for f in self.va_fields],
                "heap": [], "target": [f"O{k}" for k in self._targets().tolist()]}

    def tables(self, commands: int = 1 << 16) -> Iterator[ReferenceTable]:
        """:meth:`table`'s rows ``commands`` commands at a time (bounded memory for a writer), without findings."""
        names = self.names()
        for lo in range(0, self.count, commands):
            yield ReferenceTable(self._columns(lo, min(self.count, lo + commands)), names)

    def _targets(self) -> np.ndarray:
        if self._keys is None:
            keys = self.keys.reshape(-1)
            self._keys = np.unique(keys[keys >= 0])
        return self._keys

    def _columns(self, lo: int, hi: int) -> dict[str, np.ndarray]:
        n, m = hi - lo, len(self.va_fields)
        rows = n * m
        cols = {c: np.full(rows, -1, dtype=dt) if dt.kind == "i" else np.zeros(rows, dtype=dt)
                for c, dt in COLUMNS.items()}
        cols["kind"][:] = REFERENCE_KINDS.index(VA)
        cols["value"][:] = self.va_values()[lo:hi].reshape(-1)
        cols["record_id"][:] = 0
        cols["field"][:] = np.tile(np.arange(m, dtype=np.int32), n)
        cols["command_index"][:] = np.repeat(np.arange(lo, hi, dtype=np.int64), m)
        keys = self.keys[lo:hi].reshape(-1)
        found = keys >= 0
        cols["target"][found] = np.searchsorted(self._targets(), keys[found]).astype(np.int32)
        cols["target_offset"][found] = self.offsets[lo:hi].reshape(-1)[found]
        return cols


# --------------------------------------------------------------------------------------------------------------
# Reading one dump
# --------------------------------------------------------------------------------------------------------------


class _Text:
    """Whole commands of the dump (``data``: from an ARGUMENT line to one, or the end), their lines, the lines' kinds
    and numbers, in columns; ``first_line``: the line the bytes start at in the file (for messages)."""

    def __init__(self, data: Any, source: str, first_line: int = 0) -> None:
        self.a = np.frombuffer(data, dtype=np.uint8) if len(data) else np.zeros(0, np.uint8)
        self.source = source
        self.first_line = first_line
        a = self.a
        newlines = np.flatnonzero(a == 10)
        starts = np.concatenate([[0], newlines + 1]).astype(np.int64)
        ends = np.concatenate([newlines, [len(a)]]).astype(np.int64)
        if len(starts) and ends[-1] == starts[-1]:  # (the empty line after the last newline)
            starts, ends = starts[:-1], ends[:-1]
        ends = np.where((ends > starts) & (a[np.maximum(ends - 1, 0)] == 13), ends - 1, ends)  # CRLF (std::ofstream)
        self.starts, self.ends = starts, ends
        self.kinds = self._classify()

    def line_of(self, byte: int) -> int:
        return int(np.searchsorted(self.starts, byte, side="right") - 1)

    def fail(self, line: int, message: str) -> ImportInputError:
        text = bytes(self.a[self.starts[line]:min(self.ends[line], self.starts[line] + 80)]).decode("latin-1")
        return ImportInputError(f"{message}: {text!r}", where=f"{self.source}:{self.first_line + line + 1}")

    def _classify(self) -> np.ndarray:
        """Each line's kind (:data:`_LINE_KINDS`): its indentation, then its first :data:`_KEY` bytes compared, as two
        words, with each kind's first bytes."""
        a, s, e = self.a, self.starts, self.ends
        n = len(s)
        if not n:
            return np.zeros(0, dtype=np.int16)
        last = len(a) - 1
        indent = np.zeros(n, dtype=np.int64)
        going = np.ones(n, dtype=bool)
        for i in range(5):  # leading spaces: 0, 2 or 4 (a fifth is a line of no kind)
            going &= (s + i < e) & (a[np.minimum(s + i, last)] == 32)
            indent += going
        index = (s + indent)[:, None] + np.arange(_KEY)
        key = np.where(index < e[:, None], a[np.minimum(index, last)], 0).astype(np.uint8)
        words = np.ascontiguousarray(key).view("<u8").reshape(n, 2)
        kinds = np.full(n, -1, dtype=np.int16)
        for code, (w0, w1, m0, m1) in enumerate(_KIND_KEYS):
            hit = (kinds < 0) & (indent == _KIND_INDENT[code]) & ((words[:, 0] & m0) == w0) & ((words[:, 1] & m1) == w1)
            kinds[hit] = code
        bad = np.flatnonzero(kinds < 0)
        if len(bad):
            raise self.fail(int(bad[0]), "not a line GITS's ExecuteIndirect dump writes")
        return kinds

    def numbers(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every number of the bytes in order: (start byte, value as uint64, whether an address, line)."""
        a = self.a
        last = len(a) - 1
        # addresses: "{0x" and 16 hex digits, then "}" or ","
        brace = np.flatnonzero(a[:max(len(a) - 19, 0)] == ord("{"))
        brace = brace[(a[brace + 1] == ord("0")) & (a[brace + 2] == ord("x"))]
        hex_digits = _HEX[a[brace[:, None] + 3 + np.arange(16)]] if len(brace) else np.zeros((0, 16), np.int8)
        after = a[brace + 19] if len(brace) else np.zeros(0, np.uint8)
        ok = np.all(hex_digits >= 0, axis=1) & ((after == ord("}")) | (after == ord(",")))
        if not ok.all():
            raise self.fail(self.line_of(brace[np.flatnonzero(~ok)[0]]),
                            "an address GITS writes as {0x and 16 hex digits, then } or ,")
        weights = np.uint64(16) ** np.arange(15, -1, -1, dtype=np.uint64)
        address_values = (hex_digits.astype(np.uint64) * weights).sum(axis=1, dtype=np.uint64)
        # decimal numbers: the runs of digits, but those of the addresses ("0" of "0x", the hex digits)
        d = _DIGITS[a]
        run_start = np.flatnonzero(d[1:] & ~d[:-1]) + 1 if len(a) > 1 else np.zeros(0, np.int64)
        run_end = np.flatnonzero(d[:-1] & ~d[1:]) + 1 if len(a) > 1 else np.zeros(0, np.int64)
        if len(a) and d[0]:
            run_start = np.concatenate([[0], run_start])
        if len(a) and d[-1]:
            run_end = np.concatenate([run_end, [len(a)]])
        if len(brace) and len(run_start):
            owner = np.searchsorted(brace, run_start, side="right") - 1
            inside = (owner >= 0) & (run_start < brace[np.maximum(owner, 0)] + 19)
            run_start, run_end = run_start[~inside], run_end[~inside]
        length = run_end - run_start
        if len(length) and length.max() > 20:
            k = int(np.argmax(length))
            raise self.fail(self.line_of(run_start[k]), f"a number of {length[k]} digits (GITS writes 32- and 64-bit "
                                                        "values)")
        values = np.zeros(len(run_start), dtype=np.uint64)
        for j in range(int(length.max()) if len(length) else 0):  # a digit place at a time (at most 20)
            live = length > j
            digit = a[np.minimum(run_start + j, last)].astype(np.uint64) - np.uint64(48)
            values = np.where(live, values * np.uint64(10) + digit, values)
        for k in np.flatnonzero(length == 20).tolist():  # 20 digits may pass 2^64 - 1: those few by Python's ints
            v = int(bytes(a[run_start[k]:run_end[k]]))
            if v >= 1 << 64:
                raise self.fail(self.line_of(run_start[k]), "a number past 2^64 - 1")
            values[k] = np.uint64(v)
        negative = (run_start > 0) & (a[np.maximum(run_start - 1, 0)] == ord("-"))
        values[negative] = (-values[negative].astype(np.int64)).astype(np.uint64)
        starts = np.concatenate([brace, run_start])
        order = np.argsort(starts, kind="stable")
        is_address = np.concatenate([np.ones(len(brace), bool), np.zeros(len(run_start), bool)])[order]
        starts = starts[order]
        values = np.concatenate([address_values, values])[order]
        lines = np.searchsorted(self.starts, starts, side="right") - 1
        return starts, values, is_address, lines


def _type(name: str) -> int:
    return abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", name)


def _lines_of(signature: CommandSignature) -> list[tuple[str, int]]:
    """The lines (kind, numbers) one command of ``signature`` prints, after its ARGUMENT line."""
    out: list[tuple[str, int]] = []
    for arg in signature.pArgumentDescs:
        if arg.type_name == "CONSTANT":
            out += [("CONSTANT", 1)] * arg.Constant.Num32BitValuesToSet
        elif arg.type_name in _ARGUMENT_LINES:
            out += list(_ARGUMENT_LINES[arg.type_name])
        else:
            raise ImportInputError(f"argument type {arg.type_name} is none GITS's ExecuteIndirect dump prints",
                                   where=f"command_signatures.{signature.name}")
    return out


def infer_signature(kinds: list[str], name: str) -> CommandSignature:
    """The command signature one command's lines (``kinds``, after its ARGUMENT line) print, read back: a run of
    CONSTANT lines is one argument of as many values, DISPATCH RAYS and its seven lines one argument; root parameter
    indices and slots are not printed (0 here); ``ByteStride`` the tightly packed size."""
    descs: list[IndirectArgumentDesc] = []
    i = 0
    while i < len(kinds):
        kind = kinds[i]
        if kind == "CONSTANT":
            j = i
            while j < len(kinds) and kinds[j] == "CONSTANT":
                j += 1
            descs.append(IndirectArgumentDesc(Type=_type("CONSTANT"), Constant=EIConstantArg(0, 0, j - i)))
            i = j
            continue
        if kind.startswith("RAYS_") or kind == "ARGUMENT":
            raise ValueError(kind)
        descs.append(IndirectArgumentDesc(Type=_type(kind)))
        i += len(_ARGUMENT_LINES[kind])
    signature = CommandSignature(name, 0, descs)
    signature.ByteStride = command_layout(signature).min_stride
    return signature


def _command_chunks(data: Any, size: int) -> list[tuple[int, int]]:
    """``[lo, hi)`` spans of ``data`` of about ``size`` bytes, each cut before an ARGUMENT line (whole commands)."""
    owner: Any = data.obj if isinstance(data, memoryview) else data  # (a mapped file's mmap, or bytes: both find)
    find = owner.find if hasattr(owner, "find") else bytes(data).find
    out, lo = [], 0
    while lo < len(data):
        at = find(b"\nARGUMENT ", lo + size) if lo + size < len(data) else -1
        hi = len(data) if at < 0 else at + 1
        out.append((lo, hi))
        lo = hi
    return out


def read_gits_dump(source: str | os.PathLike[str], signature: CommandSignature | None = None, *,
                   chunk: int = CHUNK_BYTES) -> GitsDump:
    """Read one of GITS's ExecuteIndirect dumps (see the module docstring) with ``signature``, or with the one its
    lines print (:func:`infer_signature`); ``chunk`` bytes of whole commands at a time."""
    path = Path(source)
    label = inputs.label(source)
    match = FILE_NAME.fullmatch(path.name)
    key, phase = (match.group("key"), match.group("phase")) if match else (None, None)
    data = inputs.map_bytes(source, what="GITS ExecuteIndirect dump", limit=MAX_DUMP_BYTES)
    findings: list[Finding] = []
    inferred = signature is None
    parts: list[_Part] = []
    first_line = commands = 0
    layout: RecordLayout | None = None
    for lo, hi in _command_chunks(data, chunk):
        text = _Text(data[lo:hi], label, first_line)
        if signature is None:
            signature = _inferred(text, f"call_{key}" if key else path.stem)
            findings.append(Finding("signature-inferred", GITS_SOURCE, "the dump does not hold the command signature: "
                                    "read from its lines (a run of CONSTANT lines as one argument; root parameter "
                                    "indices, slots and ByteStride are not printed); give the capture's with "
                                    "--description", "info"))
        if layout is None:
            layout = command_layout(signature)
        parts.append(_read_commands(text, signature, layout, commands))
        commands += len(parts[-1].records)
        first_line += len(text.kinds)
    if signature is None:  # an empty dump: a call of no commands, its signature unknown
        signature = CommandSignature(f"call_{key}" if key else path.stem, 0, [])
        findings.append(Finding("signature-inferred", GITS_SOURCE, "the dump holds no command: its signature is "
                                "unknown", "info"))
    layout = layout or command_layout(signature)
    va_fields = tuple(r for r in record_references(layout) if r.kind == VA)
    stride = signature.ByteStride if signature.ByteStride >= layout.size else layout.min_stride
    dtype = record_dtype(layout, stride)

    def joined(get: Any, empty: np.ndarray) -> np.ndarray:
        return np.concatenate([get(p) for p in parts]) if parts else empty

    m = len(va_fields)
    records = np.zeros(commands, dtype=dtype)  # (np.concatenate would make a packed dtype: the stride's padding lost)
    at = 0
    for part in parts:
        records[at:at + len(part.records)] = part.records
        at += len(part.records)
    return GitsDump(path, signature, layout, records, va_fields,
                    joined(lambda p: p.status, np.zeros((0, m), np.int8)),
                    joined(lambda p: p.keys, np.zeros((0, m), np.int64)),
                    joined(lambda p: p.offsets, np.zeros((0, m), np.uint64)), key, phase, inferred, findings)


@dataclass
class _Part:
    records: np.ndarray
    status: np.ndarray
    keys: np.ndarray
    offsets: np.ndarray


def _inferred(text: _Text, name: str) -> CommandSignature:
    names = [k for k, _, _ in _LINE_KINDS]
    arguments = np.flatnonzero(text.kinds == _KIND_CODE["ARGUMENT"])
    if not len(arguments) or arguments[0] != 0:
        raise text.fail(0, "a dump starts with ARGUMENT 1")
    first = [names[k] for k in text.kinds[1:arguments[1] if len(arguments) > 1 else len(text.kinds)].tolist()]
    try:
        return infer_signature(first, name)
    except ValueError:
        raise text.fail(1, "a command's lines do not start with an argument GITS prints") from None


def _read_commands(text: _Text, signature: CommandSignature, layout: RecordLayout, before: int) -> _Part:
    """The commands of one chunk (``before`` commands precede it in the file)."""
    names = [k for k, _, _ in _LINE_KINDS]
    arguments = np.flatnonzero(text.kinds == _KIND_CODE["ARGUMENT"])
    count = len(arguments)
    if len(text.kinds) and (not count or arguments[0] != 0):
        raise text.fail(0, "a dump starts with ARGUMENT 1")
    expected = _lines_of(signature)
    per = 1 + len(expected)
    if len(text.kinds) != count * per:
        bad = _first_mismatch(text.kinds, arguments, expected, per)
        raise text.fail(bad, f"a command of {signature.name} prints {per} lines "
                             f"(ARGUMENT, {', '.join(k for k, _ in expected) or 'nothing'})")
    pattern = np.array([_KIND_CODE["ARGUMENT"], *(_KIND_CODE[k] for k, _ in expected)], dtype=np.int16)
    grid = text.kinds.reshape(count, per)
    wrong = np.flatnonzero(np.any(grid != pattern, axis=1))
    if len(wrong):
        k = int(wrong[0])
        j = int(np.flatnonzero(grid[k] != pattern)[0])
        raise text.fail(k * per + j, f"command {before + k + 1} of {signature.name} prints {names[pattern[j]]} here")
    stride = signature.ByteStride if signature.ByteStride >= layout.size else layout.min_stride
    va_fields = tuple(r for r in record_references(layout) if r.kind == VA)
    part = _Part(np.zeros(count, dtype=record_dtype(layout, stride)), np.zeros((count, len(va_fields)), np.int8),
                 np.full((count, len(va_fields)), -1, dtype=np.int64), np.zeros((count, len(va_fields)), np.uint64))
    if count:
        starts, values, is_address, line = text.numbers()
        _check_argument_numbers(text, values, line, arguments, count, before)
        _fill(text, part.records, layout, expected, starts, values, is_address, line, count, per, part.status,
              part.keys, part.offsets, va_fields)
    return part


def _first_mismatch(kinds: np.ndarray, arguments: np.ndarray, expected: list[tuple[str, int]], per: int) -> int:
    sizes = np.diff(np.concatenate([arguments, [len(kinds)]]))
    bad = np.flatnonzero(sizes != per)
    if len(bad):
        return int(arguments[bad[0]] + min(int(sizes[bad[0]]), per - 1)) if sizes[bad[0]] > per else \
            int(arguments[bad[0]])
    return int(len(kinds) - 1)


def _check_argument_numbers(text: _Text, values: np.ndarray, line: np.ndarray, arguments: np.ndarray, count: int,
                            before: int) -> None:
    """``ARGUMENT n`` counts 1, 2, 3 ... with one number on its line."""
    at = np.searchsorted(line, arguments)
    ok = (at < len(line)) & (line[np.minimum(at, len(line) - 1)] == arguments)
    numbered = ok & (values[np.minimum(at, len(values) - 1)] == np.arange(before + 1, before + count + 1,
                                                                          dtype=np.uint64))
    if not numbered.all():
        k = int(np.flatnonzero(~numbered)[0])
        raise text.fail(int(arguments[k]), f"command {before + k + 1} is ARGUMENT {before + k + 1}")


def _fill(text: _Text, records: np.ndarray, layout: RecordLayout, expected: list[tuple[str, int]], starts: np.ndarray,
          values: np.ndarray, is_address: np.ndarray, line: np.ndarray, count: int, per: int, status: np.ndarray,
          keys: np.ndarray, offsets: np.ndarray, va_fields: tuple[FieldReference, ...]) -> None:
    """Place the printed values into the records, and each address's lookup into ``status``/``keys``/``offsets``."""
    a = text.a
    # which numbers are an address's lookup (", key O<k>, offset <o>") and which are the ARGUMENT's own
    after_key = (starts >= 5) & (a[np.maximum(starts - 1, 0)] == ord("O")) & (a[np.maximum(starts - 2, 0)] == 32) \
        & (a[np.maximum(starts - 5, 0)] == ord("k"))
    after_offset = (starts >= 7) & (a[np.maximum(starts - 7, 0)] == ord("o")) & (a[np.maximum(starts - 1, 0)] == 32)
    argument_line = text.kinds[line] == _KIND_CODE["ARGUMENT"]
    value = ~after_key & ~after_offset & ~argument_line
    per_line = np.bincount(line[value], minlength=len(text.kinds))
    want = np.array([0, *(n for _, n in expected)], dtype=np.int64)
    wrong = np.flatnonzero(per_line.reshape(count, per) != want)
    if len(wrong):
        raise text.fail(int(wrong[0]), f"GITS prints {want[wrong[0] % per]} numbers on this line; it has "
                                       f"{per_line.reshape(-1)[wrong[0]]}")
    negative = values.view(np.int64) < 0
    allowed = np.isin(text.kinds[line], list(_SIGNED_LINES)) & value
    if (negative & value & ~allowed).any():
        k = int(np.flatnonzero(negative & value & ~allowed)[0])
        raise text.fail(int(line[k]), "a negative number where GITS prints an unsigned one")
    numbers = values[value].reshape(count, -1)
    addresses = is_address[value].reshape(count, -1)
    va_offsets = {f.offset for f in va_fields}
    want = np.concatenate([np.full(int(np.prod(leaf.shape)) if leaf.shape else 1, leaf.offset in va_offsets)
                           for leaf in leaves(records.dtype)]) if count else np.zeros(0, bool)
    misplaced = np.flatnonzero(np.any(addresses != want, axis=1))
    if len(misplaced):  # an address where GITS prints a number, or a number where it prints an address
        k = int(misplaced[0])
        j = int(np.flatnonzero(addresses[k] != want)[0])
        at = starts[value].reshape(count, -1)[k, j]
        raise text.fail(text.line_of(at), "an address ({0x...}) where GITS prints a number" if addresses[k, j]
                        else "a number where GITS prints an address ({0x...})")
    column = 0
    for leaf in leaves(records.dtype):
        n = int(np.prod(leaf.shape)) if leaf.shape else 1
        target = records[leaf.path] if "." not in leaf.path else _nested(records, leaf.path)
        chunk = numbers[:, column:column + n]
        if leaf.shape:
            target[...] = chunk.astype(np.int64).astype(leaf.dtype).reshape(target.shape)
        elif leaf.dtype.kind == "i":
            target[...] = chunk[:, 0].view(np.int64).astype(leaf.dtype)
        else:
            target[...] = chunk[:, 0].astype(leaf.dtype)
        column += n
    if not va_fields:
        return
    # each address's lookup: "}" right after it (printed for 0 only), ", NOT FOUND}" or ", key O<k>, offset <o>}"
    address_at = starts[value][addresses.reshape(-1)] if addresses.any() else np.zeros(0, np.int64)
    columns = np.flatnonzero(want)
    follow = a[address_at + 19]
    status.reshape(-1)[:] = np.where(follow == ord("}"), NULL_ADDRESS,
                                     np.where(a[np.minimum(address_at + 21, len(a) - 1)] == ord("N"), NOT_FOUND, FOUND))
    printed = numbers[:, columns].reshape(-1)
    if ((status.reshape(-1) == NULL_ADDRESS) != (printed == 0)).any():
        k = int(np.flatnonzero((status.reshape(-1) == NULL_ADDRESS) != (printed == 0))[0])
        raise text.fail(text.line_of(address_at[k]), "GITS prints a lookup for every address but 0, and none for 0")
    key_at = np.flatnonzero(after_key)
    found = np.flatnonzero(status.reshape(-1) == FOUND)
    if len(found):
        where = np.searchsorted(starts[key_at], address_at[found] + 26)
        ok = (where < len(key_at)) & (starts[key_at[np.minimum(where, len(key_at) - 1)]] == address_at[found] + 26)
        if not ok.all():
            k = int(found[np.flatnonzero(~ok)[0]])
            raise text.fail(text.line_of(address_at[k]),
                            "an address's lookup is \", key O<key>, offset <n>}\" or \", NOT FOUND}\"")
        index = key_at[where]
        keys.reshape(-1)[found] = values[index].astype(np.int64)
        has_offset = (index + 1 < len(values)) & after_offset[np.minimum(index + 1, len(values) - 1)]
        if not has_offset.all():
            k = int(found[np.flatnonzero(~has_offset)[0]])
            raise text.fail(text.line_of(address_at[k]), "a key without its offset")
        offsets.reshape(-1)[found] = values[index + 1]


def _nested(records: np.ndarray, path: str) -> np.ndarray:
    out = records
    for part in path.split("."):
        out = out[part]
    return out


# --------------------------------------------------------------------------------------------------------------
# A pre- and post-patch pair
# --------------------------------------------------------------------------------------------------------------


@dataclass
class GitsPair:
    """The pre- and post-patch dumps of one call and the verdict of every address: ``verdict`` (codes of
    :data:`VERDICTS`) per row of the pre-patch table (command-major, VA fields in record order; rows of commands
    only the post-patch dump holds follow as ``not-in-pre``), ``counts`` by verdict, and the findings (the blocking
    verdicts and changed arguments listed :data:`MAX_LISTED` a kind, the rest counted in ``suppressed``)."""

    key: str | None
    pre: GitsDump
    post: GitsDump
    verdict: np.ndarray
    counts: dict[str, int]
    findings: list[Finding]
    suppressed: int = 0
    va_map: bool = False

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


def pair_dumps(pre: GitsDump, post: GitsDump, va_map: VaMap | None = None) -> GitsPair:
    """The verdict of every address of a pre/post pair (docs/gits.md "The verdict"): by GITS's own lookups, or,
    with ``va_map``, by the map (the post-patch address must be the pre-patch one mapped)."""
    n = min(pre.count, post.count)
    findings: list[Finding] = []
    listed: dict[str, int] = {}
    suppressed = 0

    def note(kind: str, message: str, severity: str = "error", command: int | None = None) -> None:
        nonlocal suppressed
        listed[kind] = listed.get(kind, 0) + 1
        if listed[kind] > MAX_LISTED:
            suppressed += 1
            return
        findings.append(Finding(kind, GITS_SOURCE, message, severity, command_index=command))

    if pre.count != post.count:
        note("count-changed", f"the pre-patch dump holds {pre.count} commands, the post-patch dump {post.count}: "
                              "the replay does not execute what was captured")
    p, q = pre.va_values()[:n], post.va_values()[:n]
    sp, sq = pre.status[:n], post.status[:n]
    same_place = (pre.keys[:n] == post.keys[:n]) & (pre.offsets[:n] == post.offsets[:n])
    code = {v: i for i, v in enumerate(VERDICTS)}
    verdict = np.full(p.shape, code["points-nowhere"], dtype=np.int8)
    null_p, null_q = p == 0, q == 0
    if va_map is None:
        captured = sp == FOUND
        verdict[captured & (sq == FOUND) & same_place] = code["left-alone"]
        verdict[captured & (sq == FOUND) & same_place & (p != q)] = code["patched"]
        verdict[captured & (sq == FOUND) & ~same_place] = code["patched-elsewhere"]
        verdict[captured & (sq == NOT_FOUND) & (p == q)] = code["unpatched"]
        verdict[captured & (sq == NOT_FOUND) & (p != q)] = code["patched-elsewhere"]
    else:
        mapped, ok = va_map.map(p.reshape(-1))
        mapped, ok = mapped.reshape(p.shape), ok.reshape(p.shape)
        verdict[ok & (q == mapped)] = code["left-alone"]
        verdict[ok & (q == mapped) & (mapped != p)] = code["patched"]
        verdict[ok & (q != mapped)] = code["patched-elsewhere"]
        verdict[ok & (q == p) & (mapped != p)] = code["unpatched"]
    verdict[~null_p & null_q] = code["patched-to-null"]
    verdict[null_p] = code["null"]
    verdict[null_p & ~null_q] = code["null-patched"]
    rows = [verdict.reshape(-1)]
    m = len(pre.va_fields)
    if pre.count > n:
        rows.append(np.full((pre.count - n) * m, code["not-in-post"], dtype=np.int8))
    if post.count > n:
        rows.append(np.full((post.count - n) * m, code["not-in-pre"], dtype=np.int8))
    verdicts = np.concatenate(rows) if rows else np.zeros(0, np.int8)
    counts = {v: int(c) for v, c in zip(VERDICTS, np.bincount(verdicts, minlength=len(VERDICTS)).tolist())}
    for name in (*BLOCKING_VERDICTS[:4], "points-nowhere"):
        hits = np.argwhere(verdict == code[name])
        for k, j in hits[:MAX_LISTED + 1].tolist():
            f = pre.va_fields[j].name
            where = "the VA map" if va_map is not None else "GITS's lookup"
            note(name, f"{f} {_address(pre, k, j)} -> {_address(post, k, j)} ({name}, by {where})",
                 "warning" if name == "points-nowhere" else "error", k)
        if len(hits) > MAX_LISTED + 1:
            suppressed += len(hits) - MAX_LISTED - 1
            listed[name] = listed.get(name, 0) + len(hits) - MAX_LISTED - 1
    _changed_arguments(pre, post, n, note)
    return GitsPair(pre.call_key or post.call_key, pre, post, verdicts, counts, findings, suppressed,
                    va_map is not None)


def _address(dump: GitsDump, k: int, j: int) -> str:
    value = int(dump.va_values()[k, j])
    status = int(dump.status[k, j])
    where = "" if status == NULL_ADDRESS else " NOT FOUND" if status == NOT_FOUND else \
        f" O{int(dump.keys[k, j])}+{int(dump.offsets[k, j])}"
    return f"0x{value:x}{where}"


def _changed_arguments(pre: GitsDump, post: GitsDump, n: int, note: Any) -> None:
    """Every byte of a command that no VA field holds is the same before and after patching."""
    if pre.records.dtype != post.records.dtype or not n:
        return
    a = pre.records[:n].view(np.uint8).reshape(n, -1)
    b = post.records[:n].view(np.uint8).reshape(n, -1)
    mask = np.ones(a.shape[1], dtype=bool)
    for f in pre.va_fields:
        mask[f.offset:f.offset + f.size] = False
    differ = np.any((a != b) & mask, axis=1)
    for k in np.flatnonzero(differ)[:MAX_LISTED].tolist():
        offset = int(np.flatnonzero((a[k] != b[k]) & mask)[0])
        name = next((leaf.path for leaf in leaves(pre.records.dtype)
                     if leaf.offset <= offset < leaf.offset + leaf.size), f"byte {offset}")
        note("argument-changed", f"{name} differs after patching (patching rewrites GPU VAs only)", "error", k)


# --------------------------------------------------------------------------------------------------------------
# The command line's inputs: the signature a capture or a description names, the dumps a folder holds
# --------------------------------------------------------------------------------------------------------------


def load_signature(source: str | os.PathLike[str], name: str | None = None) -> CommandSignature:
    """The command signature of a capture (its ExecuteIndirect call's, or ``name``) or of a description (its only
    one, or ``name``)."""
    from d3d12wl.capture.file import CAPTURE_ONLY, load_capture
    from d3d12wl.model import description
    from d3d12wl.model.state import ExecuteIndirectCall

    label = inputs.label(source)
    doc = inputs.load_json(source, what="capture or description")
    if isinstance(doc, dict) and "call" in doc and name is None:
        call = load_capture(source).call
        if not isinstance(call, ExecuteIndirectCall) or call.pCommandSignature is None:
            raise ImportInputError("is a capture of no ExecuteIndirect call: name a command signature with "
                                   "--command-signature", where=label)
        return call.pCommandSignature
    objects = description.load(doc, ignore_keys=CAPTURE_ONLY)
    signatures = objects.command_signatures
    if name is not None:
        if name not in signatures:
            raise ImportInputError(f"has no command signature {name!r} (it has: {', '.join(signatures) or 'none'})",
                                   where=label)
        return signatures[name]
    if len(signatures) != 1:
        raise ImportInputError(f"holds {len(signatures)} command signatures ({', '.join(signatures) or 'none'}): "
                               "name one with --command-signature", where=label)
    return next(iter(signatures.values()))


def dump_files(sources: list[str]) -> list[Path]:
    """The dumps the user named: files, and the ``call_*_execute_indirect_*_patch.txt`` files of folders."""
    out: list[Path] = []
    for source in sources:
        kind = inputs.path_kind(source)
        if kind == "a directory":
            found = sorted(p for p in Path(source).iterdir() if FILE_NAME.fullmatch(p.name))
            if not found:
                raise ImportInputError("holds no call_<key>_execute_indirect_<pre|post>_patch.txt file", where=source)
            out += found
        elif kind is None:
            raise ImportInputError("does not exist", where=source)
        else:
            out.append(Path(source))
    return out
