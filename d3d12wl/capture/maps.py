"""The maps ``d3d12wl remap`` rebases a capture with: where its GPU VAs, descriptor heaps and program identifiers go
on the run, driver or GPU it is replayed on (design.md, "References by value: what a replay tool must rewrite").

* :class:`VaMap`: ranges ``old_base, size -> new_base``; a VA inside a range moves with it, and so does every memory
  region wholly inside one.  CSV lines ``old_base,size,new_base`` (an optional header line, ``#`` comments) or JSON
  ``[{"old_base": ..., "size": ..., "new_base": ...}, ...]`` (or ``[old_base, size, new_base]`` triples); numbers
  decimal or ``0x`` hex, in JSON also as strings.
* :class:`HeapMap`: per shader-visible heap type, the old heap (``old_start``, ``old_increment``,
  ``num_descriptors``: from the capture's version 4 range where it gives one) and the new one (``new_start``,
  ``new_increment``); descriptor ``i`` of the old heap is descriptor ``i`` of the new.  CSV lines
  ``heap,old_start,old_increment,new_start,new_increment,num_descriptors`` (empty cells: the capture's) or JSON
  ``{"CBV_SRV_UAV": {"new_start": ..., "new_increment": ...}, ...}``.
* :class:`IdentifierMap`: each program's new identifier, by program name or by old identifier (64 hex digits).  CSV
  lines ``old,new`` or JSON ``{"Opaque": "<64 hex digits>", ...}``.

A map that cannot be used is a :class:`MapError` naming the file and entry (exit 2): a range that is empty, wraps
the 64-bit space or overlaps another (on either side), a region only partly inside a range, a range mapped onto
memory a region that does not move occupies, a heap entry that contradicts the capture's heap or whose increment
does not divide the distance to it, an identifier map that is not a bijection.  A null VA or handle (0) is never
mapped.  Every map has an :meth:`inverse` that takes the rebased capture back.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from d3d12wl import abi, inputs
from d3d12wl.capture.memory import VA_LIMIT, GpuMemory, Region
from d3d12wl.errors import D3D12WLError
from d3d12wl.model.objects import ObjectSet
from d3d12wl.model.state import SHADER_VISIBLE_HEAP_TYPES, DescriptorHeap, DescriptorHeaps

__all__ = ["HeapEntry", "HeapMap", "IdentifierMap", "MapError", "ReferenceMaps", "VaMap", "VaRange", "load_heap_map",
           "load_identifier_map", "load_va_map"]

_IDENTIFIER_SIZE = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
_U64 = np.uint64


class MapError(D3D12WLError):
    """A map file, or an entry of one, that cannot be used; ``where`` names the file and the entry."""


# --------------------------------------------------------------------------------------------------------------
# Reading map files: CSV lines or JSON
# --------------------------------------------------------------------------------------------------------------


def _entries(source: str | os.PathLike[str], what: str, header_word: str) -> list[tuple[str, Any]]:
    """The entries of a map file as (where, value): a JSON document's items, or a CSV file's lines as lists of
    cells (blank lines, ``#`` comments and a header line starting with ``header_word`` left out)."""
    label = inputs.label(source)
    text = inputs.read_text(source, what=what)
    if text.lstrip().startswith(("[", "{")):
        doc = inputs.parse_json(text, where=label)
        if isinstance(doc, dict):
            return [(f"{label}: {k}", (k, v)) for k, v in doc.items()]
        if isinstance(doc, list):
            return [(f"{label}: [{i}]", v) for i, v in enumerate(doc)]
        raise MapError(f"a {what} is a JSON array or object", where=label)
    out: list[tuple[str, Any]] = []
    for n, line in enumerate(text.splitlines(), 1):
        stripped = line.split("#", 1)[0].strip()
        if not stripped or (not out and stripped.lower().startswith(header_word)):
            continue
        out.append((f"{label}: line {n}", [c.strip() for c in stripped.split(",")]))
    return out


def _number(value: Any, where: str, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise MapError(f"{what}: expected a number (decimal or 0x hex), got {value!r}", where=where)
    if isinstance(value, str):
        try:
            value = inputs.integer(value)
        except ValueError:
            raise MapError(f"{what}: {value!r} is not a number (decimal or 0x hex)", where=where) from None
    if not 0 <= value < VA_LIMIT:
        raise MapError(f"{what}: {value} is outside the unsigned 64-bit range", where=where)
    return value


# --------------------------------------------------------------------------------------------------------------
# GPU virtual addresses
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class VaRange:
    """One entry of a :class:`VaMap`: ``[old_base, old_base + size)`` moves to ``new_base``; ``entry`` names where
    it was given."""

    old_base: int
    size: int
    new_base: int
    entry: str = ""

    @property
    def old_end(self) -> int:
        return self.old_base + self.size

    @property
    def new_end(self) -> int:
        return self.new_base + self.size

    def describe(self) -> str:
        return (f"[0x{self.old_base:x}, 0x{self.old_end:x}) -> [0x{self.new_base:x}, 0x{self.new_end:x})"
                + (f" ({self.entry})" if self.entry else ""))


@dataclass
class VaMap:
    """GPU VA ranges and where they move (:class:`VaRange`), checked on creation: none empty, wrapping or
    overlapping another on either side."""

    ranges: list[VaRange]

    def __post_init__(self) -> None:
        for r in self.ranges:
            if r.size == 0:
                raise MapError(f"an empty range (size 0) at 0x{r.old_base:x}", where=r.entry or "va map")
            for side, base in (("old", r.old_base), ("new", r.new_base)):
                if base + r.size > VA_LIMIT:
                    raise MapError(f"the {side} range 0x{base:x} + {r.size} bytes wraps the 64-bit VA space",
                                   where=r.entry or "va map")
        self.ranges = sorted(self.ranges, key=lambda r: r.old_base)
        for side in ("old", "new"):
            by = sorted(self.ranges, key=lambda r: getattr(r, f"{side}_base"))
            for a, b in zip(by, by[1:]):
                if getattr(b, f"{side}_base") < getattr(a, f"{side}_end"):
                    raise MapError(f"the {side} ranges of {a.describe()} and {b.describe()} overlap",
                                   where=b.entry or "va map")
        self._old = np.array([r.old_base for r in self.ranges], dtype=np.uint64)
        self._last = np.array([r.old_end - 1 for r in self.ranges], dtype=np.uint64)
        # the move of each range, modulo 2^64 (a VA plus it is the moved VA whichever way the range moves)
        self._delta = np.array([(r.new_base - r.old_base) % VA_LIMIT for r in self.ranges], dtype=np.uint64)

    def range_of(self, va: int, size: int = 1) -> VaRange | None:
        """The range holding all of ``[va, va + size)``, else None."""
        for r in self.ranges:
            if r.old_base <= va and va + size <= r.old_end:
                return r
        return None

    def map(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(new values, mapped) of VAs (uint64): a VA inside a range moves with it; 0 (null) stays 0 and counts as
        mapped; a VA in no range is not mapped (its value is kept)."""
        values = np.asarray(values, dtype=np.uint64)
        null = values == 0
        if not len(self.ranges):
            return values.copy(), null
        i = np.searchsorted(self._old, values, side="right")
        below = i == 0
        i -= 1
        i[below] = 0
        ok = ~below & (values <= self._last[i])
        new = values + np.where(ok, self._delta[i], _U64(0))
        if null.any():  # (a range may start at 0: a null VA still stays null)
            new[null] = 0
            ok |= null
        return new, ok

    def map_one(self, value: int) -> int | None:
        new, ok = self.map(np.array([value], dtype=np.uint64))
        return int(new[0]) if ok[0] else None

    def moved(self, region: Region) -> int | None:
        """Where ``region`` moves (its new base), or None when it is in no range."""
        r = self.range_of(region.base, max(region.size, 1))
        return None if r is None else r.new_base + (region.base - r.old_base)

    def check_regions(self, memory: GpuMemory) -> dict[str, int]:
        """Each region's new base (a region in no range stays where it is); a region only partly inside a range,
        or a range moved onto memory a region that stays occupies, is a :class:`MapError` naming the entry."""
        out: dict[str, int] = {}
        staying: list[Region] = []
        for region in memory.regions:
            if not region.size:
                new = self.moved(region)
                out[region.name] = region.base if new is None else new
                continue
            new = self.moved(region)
            if new is None:
                for r in self.ranges:
                    if region.base < r.old_end and r.old_base < region.end:
                        raise MapError(f"region {region.name!r} [0x{region.base:x}, 0x{region.end:x}) is only partly "
                                       f"inside {r.describe()}: a region moves whole", where=r.entry or "va map")
                staying.append(region)
                new = region.base
            out[region.name] = new
        for region in staying:
            for r in self.ranges:
                if region.base < r.new_end and r.new_base < region.end:
                    raise MapError(f"{r.describe()} maps onto [0x{region.base:x}, 0x{region.end:x}), which region "
                                   f"{region.name!r} occupies and no range moves", where=r.entry or "va map")
        return out

    def inverse(self) -> VaMap:
        return VaMap([VaRange(r.new_base, r.size, r.old_base, f"inverse of {r.entry}" if r.entry else "")
                      for r in self.ranges])


def load_va_map(source: str | os.PathLike[str]) -> VaMap:
    """A :class:`VaMap` from a CSV or JSON file (the module's docstring gives both forms)."""
    ranges = []
    for where, value in _entries(source, "VA map", "old"):
        if isinstance(value, tuple):  # a JSON object's member: not a form of this map
            raise MapError("a VA map is a JSON array of {old_base, size, new_base} (or [old_base, size, new_base])",
                           where=where)
        if isinstance(value, dict):
            keys = ("old_base", "size", "new_base")
            unknown = set(value) - set(keys)
            if unknown or set(keys) - set(value):
                raise MapError(f"a range is {{old_base, size, new_base}}; got {sorted(value)}", where=where)
            cells = [value[k] for k in keys]
        elif isinstance(value, list):
            cells = value
        else:
            raise MapError(f"expected a range, got {value!r}", where=where)
        if len(cells) != 3:
            raise MapError(f"a range is old_base,size,new_base: got {len(cells)} values", where=where)
        old, size, new = (_number(c, where, k) for c, k in zip(cells, ("old_base", "size", "new_base"), strict=True))
        ranges.append(VaRange(old, size, new, where))
    return VaMap(ranges)


# --------------------------------------------------------------------------------------------------------------
# Descriptor heaps
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class HeapEntry:
    """One heap of a :class:`HeapMap`: descriptor ``i < num_descriptors`` at ``old_start + i * old_increment`` is
    at ``new_start + i * new_increment`` (a None: the capture's heap gives it)."""

    heap: str
    new_start: int
    new_increment: int
    old_start: int | None = None
    old_increment: int | None = None
    num_descriptors: int | None = None
    entry: str = ""

    def describe(self) -> str:
        return f"{self.heap} heap" + (f" ({self.entry})" if self.entry else "")


@dataclass
class HeapMap:
    """Where the handles of each heap type go (:class:`HeapEntry`); :meth:`resolved` fills what the capture's
    heaps give and checks the rest."""

    entries: dict[str, HeapEntry] = field(default_factory=dict)

    def resolved(self, heaps: DescriptorHeaps) -> HeapMap:
        """Every member given (from the capture's version 4 range where the map leaves it out) and checked: the
        old heap must be (part of) the capture's, on its descriptor boundaries, and no heap may wrap the 64-bit
        handle space or overlap another heap on either side."""
        out: dict[str, HeapEntry] = {}
        for name, e in self.entries.items():
            where = e.entry or f"heap map {name}"
            captured = heaps.heap(name)
            start, inc, num = e.old_start, e.old_increment, e.num_descriptors
            if captured is not None:
                if inc is not None and inc != captured.DescriptorIncrementSize:
                    raise MapError(f"old_increment {inc} differs from the capture's {name} heap "
                                   f"({captured.DescriptorIncrementSize})", where=where)
                inc = captured.DescriptorIncrementSize
                start = captured.GPUDescriptorHandleForHeapStart if start is None else start
                skip, rem = divmod(start - captured.GPUDescriptorHandleForHeapStart, inc)
                if rem:
                    raise MapError(f"the increment size {inc} does not divide the distance from the capture's {name} "
                                   f"heap start 0x{captured.GPUDescriptorHandleForHeapStart:x} to old_start "
                                   f"0x{start:x}", where=where)
                if not 0 <= skip < max(captured.NumDescriptors, 1):
                    raise MapError(f"old_start 0x{start:x} is outside the capture's {name} heap", where=where)
                num = captured.NumDescriptors - skip if num is None else num
            missing = [k for k, v in (("old_start", start), ("old_increment", inc), ("num_descriptors", num))
                       if v is None]
            if missing:
                raise MapError(f"{', '.join(missing)} needed: the capture gives no {name} heap range (capture "
                               "version 4)", where=where)
            assert start is not None and inc is not None and num is not None
            for what, value in (("old_increment", inc), ("new_increment", e.new_increment)):
                if value == 0:
                    raise MapError(f"{what} is 0: a descriptor increment size is never 0", where=where)
            for side, base, step in (("old", start, inc), ("new", e.new_start, e.new_increment)):
                if base + num * step > VA_LIMIT:
                    raise MapError(f"the {side} heap 0x{base:x} + {num} * {step} wraps the 64-bit handle space",
                                   where=where)
            out[name] = replace(e, old_start=start, old_increment=inc, num_descriptors=num)
        resolved = HeapMap(out)
        for side in ("old", "new"):
            spans = sorted((resolved._span(e, side), e) for e in out.values())
            for (a, ea), (b, eb) in zip(spans, spans[1:]):
                if b[0] < a[1]:
                    raise MapError(f"the {side} {ea.heap} and {eb.heap} heaps overlap", where=eb.entry or "heap map")
        return resolved

    @staticmethod
    def _span(e: HeapEntry, side: str) -> tuple[int, int]:
        assert e.old_start is not None and e.old_increment is not None and e.num_descriptors is not None
        if side == "old":
            return e.old_start, e.old_start + e.num_descriptors * e.old_increment
        return e.new_start, e.new_start + e.num_descriptors * e.new_increment

    def map(self, values: np.ndarray, heap: str) -> tuple[np.ndarray, np.ndarray]:
        """(new handles, mapped) of descriptor handles (uint64) of heap type ``heap`` (of a resolved map): a
        handle on a descriptor of the old heap goes to the same descriptor of the new one; 0 stays 0."""
        values = np.asarray(values, dtype=np.uint64)
        null = values == 0
        e = self.entries.get(heap)
        if e is None:
            return values.copy(), null
        assert e.old_start is not None and e.old_increment is not None and e.num_descriptors is not None
        delta = values - _U64(e.old_start)
        index, rem = delta // _U64(e.old_increment), delta % _U64(e.old_increment)
        ok = (values >= _U64(e.old_start)) & (rem == 0) & (index < _U64(e.num_descriptors))
        new = np.where(ok, _U64(e.new_start) + index * _U64(e.new_increment), values)
        return np.where(null, _U64(0), new), ok | null

    def heaps(self, heaps: DescriptorHeaps) -> DescriptorHeaps:
        """``heaps`` with every mapped range moved to its new start and increment."""
        out = DescriptorHeaps(heaps.CBV_SRV_UAV, heaps.SAMPLER)
        for name in SHADER_VISIBLE_HEAP_TYPES:
            h, e = heaps.heap(name), self.entries.get(name)
            if h is not None and e is not None:
                new_start = self.map(np.array([h.GPUDescriptorHandleForHeapStart], dtype=np.uint64), name)[0][0]
                setattr(out, name, DescriptorHeap(int(new_start), h.NumDescriptors, e.new_increment))
            elif h is not None:
                setattr(out, name, DescriptorHeap(h.GPUDescriptorHandleForHeapStart, h.NumDescriptors,
                                                  h.DescriptorIncrementSize))
        return out

    def inverse(self) -> HeapMap:
        """The map back (of a resolved map)."""
        return HeapMap({name: HeapEntry(name, e.old_start or 0, e.old_increment or 0, e.new_start, e.new_increment,
                                        e.num_descriptors, f"inverse of {e.entry}" if e.entry else "")
                        for name, e in self.entries.items()})


_HEAP_MEMBERS = ("old_start", "old_increment", "new_start", "new_increment", "num_descriptors")


def load_heap_map(source: str | os.PathLike[str]) -> HeapMap:
    """A :class:`HeapMap` from a CSV or JSON file (the module's docstring gives both forms)."""
    entries: dict[str, HeapEntry] = {}
    for where, value in _entries(source, "heap map", "heap"):
        if isinstance(value, tuple):
            name, body = value
            if not isinstance(body, dict):
                raise MapError(f"expected an object of {', '.join(_HEAP_MEMBERS)}", where=where)
            unknown = set(body) - set(_HEAP_MEMBERS)
            if unknown:
                raise MapError(f"unknown member {sorted(unknown)[0]!r}; expected {', '.join(_HEAP_MEMBERS)}",
                               where=where)
            members = dict(body)
        elif isinstance(value, list) and all(isinstance(c, str) for c in value):
            if not 5 <= len(value) <= 6:
                raise MapError("a heap is heap,old_start,old_increment,new_start,new_increment[,num_descriptors]",
                               where=where)
            name = value[0]
            members = {k: c for k, c in zip(_HEAP_MEMBERS, value[1:], strict=False) if c != ""}
        else:
            raise MapError("a heap map is CSV lines or a JSON object keyed by heap type", where=where)
        try:
            name = abi.enum_short_name("D3D12_DESCRIPTOR_HEAP_TYPE", abi.enum_value("D3D12_DESCRIPTOR_HEAP_TYPE",
                                                                                     str(name)))
        except D3D12WLError as exc:
            raise MapError(exc.message, where=where) from None
        if name not in SHADER_VISIBLE_HEAP_TYPES:
            raise MapError(f"a {name} heap is never shader-visible: no handle a call reads addresses it", where=where)
        if name in entries:
            raise MapError(f"the {name} heap is mapped twice (first by {entries[name].entry})", where=where)
        for k in ("new_start", "new_increment"):
            if members.get(k) is None:
                raise MapError(f"{k} is required", where=where)
        numbers = {k: _number(v, where, k) if v is not None else None for k, v in members.items()}
        entries[name] = HeapEntry(name, numbers.pop("new_start") or 0, numbers.pop("new_increment") or 0,
                                  **numbers, entry=where)
    return HeapMap(entries)


# --------------------------------------------------------------------------------------------------------------
# Program identifiers
# --------------------------------------------------------------------------------------------------------------


def _identifier(text: Any, where: str, what: str) -> bytes | None:
    """64 hex digits as the 32 identifier bytes, else None."""
    if not isinstance(text, str):
        raise MapError(f"{what}: expected a program name or 64 hex digits, got {text!r}", where=where)
    digits = text[2:] if text.lower().startswith("0x") else text
    if len(digits) != 2 * _IDENTIFIER_SIZE:
        return None
    try:
        return bytes.fromhex(digits)
    except ValueError:
        return None


@dataclass
class IdentifierMap:
    """Each program's new identifier: ``by_name`` (program name -> identifier) and ``by_identifier`` (old -> new),
    each entry with where it was given; :meth:`resolved` makes them one bijection over the capture's programs."""

    by_name: dict[str, tuple[bytes, str]] = field(default_factory=dict)
    by_identifier: dict[bytes, tuple[bytes, str]] = field(default_factory=dict)

    def resolved(self, objects: ObjectSet) -> IdentifierMap:
        """Old identifier -> new identifier for every entry; a name of no program, an identifier mapped twice, two
        identifiers mapped to one, or a new identifier another program keeps is a :class:`MapError`."""
        pairs: dict[bytes, tuple[bytes, str]] = {}
        for name, (new, where) in self.by_name.items():
            program = objects.programs.get(name)
            if program is None:
                known = ", ".join(objects.programs) or "none"
                raise MapError(f"no program named {name!r} (known: {known})", where=where)
            old = bytes(program.Identifier)
            if old in pairs:
                raise MapError(f"program {name!r}'s identifier is mapped twice (also by {pairs[old][1]})", where=where)
            pairs[old] = (new, where)
        for old, (new, where) in self.by_identifier.items():
            if old in pairs:
                raise MapError(f"identifier {old.hex()[:16]}... is mapped twice (also by {pairs[old][1]})",
                               where=where)
            pairs[old] = (new, where)
        targets: dict[bytes, str] = {}
        for old, (new, where) in pairs.items():
            if new in targets:
                raise MapError(f"not a bijection: {new.hex()[:16]}... is the new identifier of two entries (also "
                               f"{targets[new]})", where=where)
            targets[new] = where
        kept = {bytes(p.Identifier): name for name, p in objects.programs.items() if bytes(p.Identifier) not in pairs}
        for new, where in targets.items():
            if new in kept:
                raise MapError(f"not a bijection: {new.hex()[:16]}... is program {kept[new]!r}'s identifier, which no "
                               "entry maps away", where=where)
        return IdentifierMap({}, pairs)

    def map(self, identifier: bytes) -> bytes | None:
        """The new identifier of ``identifier`` (of a resolved map), None if no entry maps it."""
        hit = self.by_identifier.get(bytes(identifier))
        return None if hit is None else hit[0]

    def inverse(self) -> IdentifierMap:
        """The map back (of a resolved map)."""
        return IdentifierMap({}, {new: (old, f"inverse of {where}") for old, (new, where) in self.by_identifier.items()})


def load_identifier_map(source: str | os.PathLike[str]) -> IdentifierMap:
    """An :class:`IdentifierMap` from a CSV or JSON file (the module's docstring gives both forms)."""
    out = IdentifierMap()
    for where, value in _entries(source, "identifier map", "old"):
        if isinstance(value, tuple):
            old, new = value
        elif isinstance(value, list) and len(value) == 2:
            old, new = value
        else:
            raise MapError("an identifier map is CSV lines old,new or a JSON object {old: new}", where=where)
        new_id = _identifier(new, where, "new")
        if new_id is None:
            raise MapError(f"new: {new!r} is not an identifier (64 hex digits)", where=where)
        old_id = _identifier(old, where, "old")
        if old_id is not None:
            if old_id in out.by_identifier:
                raise MapError(f"identifier {old} is mapped twice (also by {out.by_identifier[old_id][1]})",
                               where=where)
            out.by_identifier[old_id] = (new_id, where)
        else:
            if old in out.by_name:
                raise MapError(f"program {old!r} is mapped twice (also by {out.by_name[old][1]})", where=where)
            out.by_name[str(old)] = (new_id, where)
    return out


# --------------------------------------------------------------------------------------------------------------
# All three
# --------------------------------------------------------------------------------------------------------------


@dataclass
class ReferenceMaps:
    """The three maps of one rebase; ``heaps`` / ``identifiers`` None: those references stay as they are."""

    va: VaMap
    heaps: HeapMap | None = None
    identifiers: IdentifierMap | None = None

    def resolved(self, objects: ObjectSet, heaps: DescriptorHeaps) -> ReferenceMaps:
        return ReferenceMaps(self.va, self.heaps.resolved(heaps) if self.heaps is not None else None,
                             self.identifiers.resolved(objects) if self.identifiers is not None else None)

    def inverse(self) -> ReferenceMaps:
        """The maps back (of resolved maps): rebasing the rebased capture with them gives the original."""
        return ReferenceMaps(self.va.inverse(), self.heaps.inverse() if self.heaps is not None else None,
                             self.identifiers.inverse() if self.identifiers is not None else None)

    def to_json(self) -> dict[str, Any]:
        """The maps in their JSON file forms (``va``, ``heaps``, ``identifiers``), e.g. to save an inverse."""
        out: dict[str, Any] = {"va": [{"old_base": f"0x{r.old_base:x}", "size": r.size, "new_base": f"0x{r.new_base:x}"}
                                      for r in self.va.ranges]}
        if self.heaps is not None:
            out["heaps"] = {name: {k: (f"0x{v:x}" if k.endswith("start") else v) for k in _HEAP_MEMBERS
                                   if (v := getattr(e, k)) is not None} for name, e in self.heaps.entries.items()}
        if self.identifiers is not None:
            out["identifiers"] = {old.hex(): new.hex() for old, (new, _) in self.identifiers.by_identifier.items()}
            out["identifiers"].update({name: new.hex() for name, (new, _) in self.identifiers.by_name.items()})
        return out

