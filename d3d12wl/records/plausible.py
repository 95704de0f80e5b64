"""Rows that a stride makes implausible: what ``d3d12wl decode`` reports when no capture says how the call reads the
bytes, and the stride at which they become plausible.

A readback decoded at the wrong stride drifts: from the second record on, each row starts inside another record or
its padding (the issue that asked for this: a primary list written at ``ProgramInputs.StrideInBytes`` 32 and read
at the 24-byte minimum showed ``NumSecondaryRecords`` 3452816845 and a misaligned ``SecondaryRecords``).  A row is
implausible when a value in it is one the spec rules out or that points nowhere:

* ``ReservedPadding`` that is not 0 (spec: "must be 0");
* a list the record describes (``NumSecondaryRecords`` records at ``SecondaryRecords``, ``NumProgramInputs`` at
  ``ProgramInputs.StartAddress``) with a null pointer, a pointer that is not 8-byte aligned (spec: list addresses
  and strides are 8-byte aligned), a stride that is not, or records that would run past the 64-bit VA space, and a
  ``NextDispatchList`` that is neither null nor 8-byte aligned;
* a root CBV address that is neither null nor a multiple of 256 bytes (IndirectDrawing.md "Command signature
  Creation": "CBV -- Address and size must be a multiple of 256 bytes"; ``D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_
  ALIGNMENT``);
* an enum member outside its enum, flag bits the enum does not define;
* a program-table slot's identifier that is neither all zero (an empty slot) nor any program's of the description.

Padding bytes are not judged: the spec leaves them to the application ("App-defined padding (ignored by the
system)"), so junk in them is legal.  Everything is vectorized over the rows; the stride search reads at most
:data:`SEARCH_ROWS` rows per candidate stride.

All of it is a heuristic, and a legal buffer can trip it (a stale or unused program-table slot holds an identifier
of no program; a root CBV no command of the call reads): what it finds is a warning, never an error (issue 42 class
13), and a stride is suggested only where every record fits better (:func:`suggest_stride`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Protocol

import numpy as np

from d3d12wl import abi
from d3d12wl.records import layout as L
from d3d12wl.records.packers import NO_PROGRAM, Buffer, as_u8, match_identifiers

__all__ = ["Implausible", "Rowed", "SEARCH_ROWS", "implausible", "suggest_stride"]

#: rows read per candidate stride when looking for the stride at which rows become plausible
SEARCH_ROWS = 4096
#: the largest stride tried: this many times the minimum, and at least this many bytes
SEARCH_FACTOR, SEARCH_BYTES = 16, 1024

#: (count member, pointer member) of the lists a record or struct describes, and the alignment the spec gives
#: their addresses (and strides)
_LISTS: tuple[tuple[str, str, str | None], ...] = (
    ("NumSecondaryRecords", "SecondaryRecords", None),
    ("NumProgramInputs", "ProgramInputs.StartAddress", "ProgramInputs.StrideInBytes"))
_NEXT = "NextDispatchList"
_RESERVED = "ReservedPadding"
_VA_SPACE = 1 << 64


class _Column(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def offset(self) -> int: ...

    @property
    def dtype(self) -> np.dtype: ...

    @property
    def kind(self) -> str: ...

    @property
    def enum(self) -> str | None: ...


class Rowed(Protocol):
    """What is decoded (a :class:`d3d12wl.records.decode.Target`): its output columns, record layout (None for a
    struct), the description's program identifiers and the bytes one row uses."""

    @property
    def columns(self) -> Sequence[_Column]: ...

    @property
    def record_layout(self) -> L.RecordLayout | None: ...

    @property
    def programs(self) -> Sequence[tuple[bytes, str]]: ...

    @property
    def size(self) -> int: ...


@dataclass(frozen=True)
class Implausible:
    """One reason rows are implausible: ``bad`` marks the rows, ``why`` says it for the first of them."""

    what: str
    bad: np.ndarray
    why: Callable[[int], str]

    @property
    def count(self) -> int:
        return int(np.count_nonzero(self.bad))

    @property
    def first(self) -> int:
        return int(np.argmax(self.bad))


@cache
def _cbv_alignment() -> int:
    return int(abi.constant("D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT"))


class _Rows:
    """Column values of ``count`` rows ``stride`` apart from ``offset`` (strided views, no copy)."""

    def __init__(self, buffer: np.ndarray, offset: int, stride: int, count: int,
                 leaf: Callable[[str], tuple[int, np.dtype] | None]) -> None:
        self.buffer, self.offset, self.stride, self.count, self.leaf = buffer, offset, stride, count, leaf

    def get(self, name: str) -> np.ndarray | None:
        found = self.leaf(name)
        if found is None or not self.count:
            return None
        at, dtype = found
        return np.ndarray((self.count,), dtype=dtype, buffer=self.buffer, offset=self.offset + at,
                          strides=(self.stride,))


def implausible(target: Rowed, buffer: Buffer, *, offset: int, stride: int, count: int) -> list[Implausible]:
    """Every reason some of the ``count`` rows of ``target`` at ``offset``, ``stride`` apart in ``buffer``, are
    implausible (see the module docstring)."""
    buf = as_u8(buffer)
    cols = {c.name: c for c in target.columns if c.kind not in ("identifier", "program")}

    def leaf(name: str) -> tuple[int, np.dtype] | None:
        c = cols.get(name)
        return None if c is None else (c.offset, c.dtype)

    rows = _Rows(buf, offset, stride, count, leaf)
    out: list[Implausible] = []
    for name, c in cols.items():
        if name.rsplit(".", 1)[-1] == _RESERVED:
            v = rows.get(name)
            if v is not None and v.any():
                out.append(Implausible(name, v != 0, _says("{name} is 0x{value:x}; must be 0", name, v)))
        if c.kind == "enum" and c.enum is not None:
            v = rows.get(name)
            if v is not None:
                out += _enum_check(name, c.enum, v)
    for count_name, pointer_name, stride_name in _LISTS:  # (stride_name: None where the list's stride is elsewhere)
        n, ptr = rows.get(count_name), rows.get(pointer_name)
        if n is None or ptr is None:
            continue
        lists = n > 0
        out += _list_checks(count_name, pointer_name, n, ptr, lists)
        list_stride = rows.get(stride_name) if stride_name else None
        if list_stride is not None and stride_name is not None:
            bad = lists & (list_stride % L.WL_ALIGN != 0)
            if bad.any():
                out.append(Implausible(stride_name, bad, _says(f"{{name}} {{value}} is not a multiple of {L.WL_ALIGN}",
                                                               stride_name, list_stride)))
    nxt = rows.get(_NEXT)
    if nxt is not None:
        bad = (nxt != 0) & (nxt % np.uint64(L.WL_ALIGN) != 0)
        if bad.any():
            out.append(Implausible(_NEXT, bad, _says(f"{{name}} 0x{{value:x}} is not {L.WL_ALIGN}-byte aligned", _NEXT,
                                                     nxt)))
    rec = target.record_layout
    if rec is not None:
        for f in rec.fields:
            if f.arg_type == "CONSTANT_BUFFER_VIEW":
                v = rows.get(f.name)
                if v is not None:
                    align = np.uint64(_cbv_alignment())
                    bad = (v != 0) & (v % align != 0)
                    if bad.any():
                        out.append(Implausible(f.name, bad, _says(f"the root CBV {{name}} 0x{{value:x}} is not a "
                                                                  f"multiple of {int(align)} bytes", f.name, v)))
    if target.programs and count:
        ident = next((c for c in target.columns if c.kind == "identifier"), None)
        if ident is not None:
            which = match_identifiers(buf, [i for i, _ in target.programs], count=count, stride=stride,
                                      offset=offset + ident.offset)
            bad = which == NO_PROGRAM
            if bad.any():
                out.append(Implausible(ident.name, bad, lambda i: f"{ident.name} is neither empty nor any program's "
                                                                  "identifier in the description"))
    return out


def _says(template: str, name: str, values: np.ndarray) -> Callable[[int], str]:
    """``template`` with ``{name}`` and row ``i``'s ``{value}``."""
    return lambda i: template.format(name=name, value=int(values[i]))


def _enum_check(name: str, enum: str, v: np.ndarray) -> list[Implausible]:
    members = np.array(sorted(set(abi.enum_members(enum).values())), dtype=np.int64)
    values = v.astype(np.int64)
    if abi.is_flag_enum(enum):
        known = int(np.bitwise_or.reduce(members)) if members.size else 0
        bad = (values & ~known) != 0
        return [Implausible(name, bad, lambda i: f"{name} 0x{int(values[i]):x} has bits {enum} does not define")] \
            if bad.any() else []
    bad = ~np.isin(values, members)
    return [Implausible(name, bad, lambda i: f"{name} {int(values[i])} is no {enum} member")] if bad.any() else []


def _list_checks(count_name: str, pointer_name: str, n: np.ndarray, ptr: np.ndarray,
                 lists: np.ndarray) -> list[Implausible]:
    out = []
    null = lists & (ptr == 0)
    if null.any():
        out.append(Implausible(pointer_name, null, lambda i: f"{count_name} {int(n[i])} records at a null "
                                                             f"{pointer_name}"))
    misaligned = lists & (ptr % np.uint64(L.WL_ALIGN) != 0)
    if misaligned.any():
        out.append(Implausible(pointer_name, misaligned, lambda i: f"{pointer_name} 0x{int(ptr[i]):x} is not "
                                                                   f"{L.WL_ALIGN}-byte aligned ({count_name} "
                                                                   f"{int(n[i])})"))
    # the records take at least 8 bytes each (every stride is a multiple of 8): past the VA space?
    room = (np.uint64(_VA_SPACE - 1) - ptr) // np.uint64(L.WL_ALIGN)
    wraps = lists & (n.astype(np.uint64) > room + np.uint64(1))
    if wraps.any():
        out.append(Implausible(count_name, wraps, lambda i: f"{count_name} {int(n[i])} records from "
                                                            f"{pointer_name} 0x{int(ptr[i]):x} run past the 64-bit "
                                                            "VA space"))
    return out


def suggest_stride(target: Rowed, buffer: Buffer, *, offset: int, stride: int, need: int | None = None
                   ) -> tuple[int, int] | None:
    """The smallest stride other than ``stride`` at which every record fits better, and how many rows the bytes
    hold at it; None when there is none.  A stride fits better when

    * every row the bytes hold at it is plausible (the search reads at most :data:`SEARCH_ROWS` rows per candidate;
      the stride it finds is then checked on every row);
    * it keeps every row the bytes confirm at ``stride``: a row whose program identifier is a program's of the
      description (32 bytes no chance makes) starts a row at the candidate too, so a stride that merely skips the
      implausible rows (twice the right one, past a stale slot) is no suggestion;
    * the bytes hold at least ``need`` rows at it (the count the call reads, when it is known)."""
    buf = as_u8(buffer)
    available = buf.nbytes - offset
    rec = target.record_layout
    align = rec.stride_align if rec is not None else 4
    low = rec.min_stride if rec is not None else target.size
    low = max(align, (low + align - 1) // align * align)
    high = min(available, max(SEARCH_FACTOR * low, SEARCH_BYTES))
    confirmed = _confirmed(target, buf, offset=offset, stride=stride)
    for candidate in range(low, high + 1, align):
        if candidate == stride or candidate < target.size:
            continue
        fits = (available - target.size) // candidate + 1 if available >= target.size else 0
        if fits < max(2, need or 0):
            break
        if confirmed.size and np.any(confirmed % candidate):
            continue
        if implausible(target, buf, offset=offset, stride=candidate, count=min(fits, SEARCH_ROWS)):
            continue
        if fits > SEARCH_ROWS and implausible(target, buf, offset=offset, stride=candidate, count=fits):
            continue
        return candidate, fits
    return None


def _confirmed(target: Rowed, buf: np.ndarray, *, offset: int, stride: int) -> np.ndarray:
    """The byte offsets (from ``offset``) of the rows at ``stride`` whose program identifier is a program's of the
    description: rows the bytes confirm (empty where the target has no identifier or ``stride`` is 0)."""
    ident = next((c for c in target.columns if c.kind == "identifier"), None)
    available = buf.nbytes - offset
    if ident is None or not target.programs or not stride or available < target.size:
        return np.zeros(0, dtype=np.int64)
    count = (available - target.size) // stride + 1
    which = match_identifiers(buf, [i for i, _ in target.programs], count=count, stride=stride,
                              offset=offset + ident.offset)
    return np.nonzero(which >= 0)[0].astype(np.int64) * stride
