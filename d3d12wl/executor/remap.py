"""Rebasing a capture for replay on another run, driver or GPU: every reference by value the call reads rewritten
through a VA map, a heap map and an identifier map (:mod:`d3d12wl.capture.maps`), every other byte identical, and
the proof that the rebased capture executes the same (design.md, "References by value: what a replay tool must
rewrite").

:func:`remap` walks the call once (:func:`d3d12wl.executor.references.walk_references`, in chunks), checks that each
reference has somewhere to go, and writes the capture with its regions moved with their ranges and the listed
fields rewritten region by region in windows (a region no reference lies in is referenced in place, not copied),
the call's buffers, SetProgram's bindings, root arguments, IA views, descriptor heaps and the programs' identifiers
rewritten with them.  A reference into no range is an ``unmapped-reference`` finding naming the field, and nothing is
written, unless ``keep_unmapped`` (then it stays as it was, a warning).  :func:`verify_remap` runs the executor on
both captures and requires the same executions, lists and findings with every reference mapped, and the same table
of references with every location and value mapped.
"""

from __future__ import annotations

import copy
import dataclasses
import io
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

import numpy as np

from d3d12wl.capture.file import Capture, load_capture, save_capture
from d3d12wl.capture.maps import HeapMap, IdentifierMap, ReferenceMaps, VaMap
from d3d12wl.capture.memory import GpuMemory, Region
from d3d12wl.capture.references import state_references
from d3d12wl.executor import execute
from d3d12wl.executor.execution_table import VA_COLUMNS, execution_columns
from d3d12wl.executor.references import ReferenceTable, ReferenceWalk, patch_list, walk_references
from d3d12wl.executor.references_table import CODE_SIZE, HANDLE_CODE, IDENTIFIER_CODE, MAX_TABLE_FINDINGS, VA_CODE
from d3d12wl.executor.trace import Finding, Limits, Trace
from d3d12wl.model.state import SHADER_VISIBLE_HEAP_TYPES
from d3d12wl.records.references import HANDLE, IDENTIFIER, REFERENCE_KINDS, VA

__all__ = ["REMAP_FINDING_KINDS", "Remapped", "Verification", "WINDOW", "remap", "verify_remap"]

#: the findings of a rebase (the table's own, :data:`~d3d12wl.executor.references.TABLE_FINDING_KINDS`, too)
REMAP_FINDING_KINDS = {
    "unmapped-reference": "a reference the call reads lies in no range of the map of its kind (error; a warning, "
                          "and kept as it was, with keep_unmapped)",
}
#: bytes of a region rewritten at a time when the rebased capture is written
WINDOW = 1 << 24
_RULE = "References by value"


@dataclass
class Verification:
    """What :func:`verify_remap` compared: ``differences`` (empty: the same), the executions and references it
    compared."""

    executions: int
    references: int
    differences: list[str] = field(default_factory=list)

    @property
    def same(self) -> bool:
        return not self.differences


@dataclass
class Remapped:
    """The outcome of :func:`remap`: the rebased ``capture`` (None when an error finding stopped it; read back
    from ``path`` when one was written), the rebase's ``findings`` (:data:`REMAP_FINDING_KINDS` and the table's
    ``reference-overlap``), the call's own findings (``call_findings``, the executor's: a rebase keeps them), how
    many references it listed, and per kind whose map was given how many it rewrote (nulls included) and kept
    (unmapped, with keep_unmapped), where each region went (``regions``: name -> (old base,
    new base)) and, with ``verify``, the :class:`Verification`."""

    capture: Capture | None
    findings: list[Finding]
    findings_suppressed: int
    call_findings: list[Finding]
    references: int
    rewritten: dict[str, int]
    kept: dict[str, int]
    regions: dict[str, tuple[int, int]]
    path: Path | None = None
    verification: Verification | None = None

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]


# --------------------------------------------------------------------------------------------------------------
# Mapping values
# --------------------------------------------------------------------------------------------------------------


class _Mapper:
    """The resolved maps applied to columns of values: (new values, mapped) per kind."""

    def __init__(self, maps: ReferenceMaps) -> None:
        self.maps = maps

    def va(self, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        return self.maps.va.map(values)

    def handle(self, values: np.ndarray, heap: str | None) -> tuple[np.ndarray, np.ndarray]:
        """Handles of heap type ``heap`` (None: whichever mapped heap holds each); without a heap map they
        stay."""
        values = np.asarray(values, dtype=np.uint64)
        heaps = self.maps.heaps
        if heaps is None:
            return values.copy(), np.ones(len(values), dtype=bool)
        if heap is not None:
            return heaps.map(values, heap)
        new, ok = values.copy(), values == 0
        for name in heaps.entries:
            got, hit = heaps.map(values, name)
            take = hit & ~ok
            new[take], ok = got[take], ok | hit
        return new, ok

    def identifier(self, old: bytes) -> tuple[bytes, bool]:
        ids = self.maps.identifiers
        if ids is None:
            return old, True
        new = ids.map(old)
        return (old, False) if new is None else (new, True)

    def value(self, kind: str, value: Any, heap: str | None) -> tuple[Any, bool]:
        if kind == IDENTIFIER:
            return self.identifier(value)
        got, ok = (self.va if kind == VA else lambda v: self.handle(v, heap))(np.array([value], dtype=np.uint64))
        return int(got[0]), bool(ok[0])


# --------------------------------------------------------------------------------------------------------------
# The rebase
# --------------------------------------------------------------------------------------------------------------


class _Check:
    """The walk's sink: which references have somewhere to go, per kind; the others as findings."""

    def __init__(self, mapper: _Mapper, keep_unmapped: bool) -> None:
        self.mapper = mapper
        self.keep = keep_unmapped
        self.findings: list[Finding] = []
        self.unmapped = 0
        self.rewritten: Counter[str] = Counter()
        self.kept: Counter[str] = Counter()

    def __call__(self, table: ReferenceTable) -> None:
        cols, names = table.columns, table.names
        kind = cols["kind"]
        ok = np.ones(len(table), dtype=bool)
        m = kind == REFERENCE_KINDS.index(VA)
        if m.any():
            ok[m] = self.mapper.va(cols["value"][m])[1]
        for i, heap in enumerate(SHADER_VISIBLE_HEAP_TYPES):
            m = (kind == REFERENCE_KINDS.index(HANDLE)) & (cols["heap"] == i)
            if m.any():
                ok[m] = self.mapper.handle(cols["value"][m], heap)[1]
        m = np.flatnonzero(kind == REFERENCE_KINDS.index(IDENTIFIER))
        idents = names["identifier"]
        for i in m.tolist():
            ok[i] = self.mapper.identifier(bytes.fromhex(idents[cols["identifier"][i]]))[1]
        maps = self.mapper.maps
        given = {VA: True, HANDLE: maps.heaps is not None, IDENTIFIER: maps.identifiers is not None}
        for k, name in enumerate(REFERENCE_KINDS):
            if given[name]:
                self.rewritten[name] += int(((kind == k) & ok).sum())
                self.kept[name] += int(((kind == k) & ~ok).sum())
        for i in np.flatnonzero(~ok).tolist():
            self._finding(table, i)

    def _finding(self, table: ReferenceTable, i: int) -> None:
        self.unmapped += 1
        if len(self.findings) >= MAX_TABLE_FINDINGS:
            return
        cols, names = table.columns, table.names
        kind = REFERENCE_KINDS[cols["kind"][i]]
        record = names["record_id"][cols["record_id"][i]]
        fld = names["field"][cols["field"][i]]
        if cols["region"][i] >= 0:
            where = (f"{record}.{fld} at 0x{int(cols['va'][i]):x} (region {names['region'][cols['region'][i]]!r} "
                     f"+0x{int(cols['offset'][i]):x})")
        else:
            where = f"{record}.{fld} (the capture's {record} member)"
        if kind == IDENTIFIER:
            what = f"identifier {names['identifier'][cols['identifier'][i]][:16]}... is in no entry of the identifier map"
        elif kind == VA:
            what = f"VA 0x{int(cols['value'][i]):x} lies in no range of the VA map"
        else:
            heap = SHADER_VISIBLE_HEAP_TYPES[cols["heap"][i]]
            what = f"handle 0x{int(cols['value'][i]):x} is no descriptor of the heap map's old {heap} heap"
        kept = ": kept as it is (keep_unmapped)" if self.keep else ""
        self.findings.append(Finding("unmapped-reference", _RULE, f"{where}: {what}{kept}",
                                     "warning" if self.keep else "error",
                                     _index(cols["list_index"][i]), _index(cols["primary_index"][i]),
                                     _index(cols["secondary_index"][i]), _index(cols["command_index"][i]),
                                     int(cols["va"][i]) if cols["region"][i] >= 0 else None))


def _index(value: Any) -> int | None:
    return None if int(value) < 0 else int(value)


#: applies the rewrite of one region's listed fields to a window of its bytes
_Patch = Callable[[np.ndarray, int], None]


def _patcher(mapper: _Mapper, offsets: np.ndarray, codes: np.ndarray) -> _Patch:
    """``patch(window, start)``: rewrite, in ``window`` (the region's bytes from offset ``start``), every listed
    field that starts in it (the window must reach past the last one's end)."""
    handle_heaps = {code: heap for heap, code in HANDLE_CODE.items()}

    key = offsets.dtype.type  # (a key of another type would convert the whole array at every search)

    def patch(window: np.ndarray, start: int) -> None:
        a = int(np.searchsorted(offsets, key(start), side="left"))
        b = int(np.searchsorted(offsets, key(start + len(window)), side="left"))
        if a == b:
            return
        o = (offsets[a:b] - key(start)).astype(np.intp)
        c = codes[a:b]
        eight = c != IDENTIFIER_CODE
        if eight.any():
            at = o[eight] if not eight.all() else o
            aligned = not (at & 7).any() and not start & 7
            if aligned:  # the usual case: 8-byte fields on 8-byte boundaries, one gather and one scatter
                words = window[: len(window) // 8 * 8].view("<u8")
                old = words[at >> 3]
            else:
                cols = at[:, None] + np.arange(8)
                old = window[cols].view("<u8").reshape(-1)
            cc = c[eight] if not eight.all() else c
            if bool((cc == VA_CODE).all()):
                new = mapper.va(old)[0]
            else:
                new = old.copy()
                m = cc == VA_CODE
                new[m] = mapper.va(old[m])[0]
                for code, heap in handle_heaps.items():
                    m = cc == code
                    if m.any():
                        new[m] = mapper.handle(old[m], heap)[0]
            if aligned:
                words[at >> 3] = new
            else:
                window[cols] = new.view(np.uint8).reshape(-1, 8)
        for off in o[~eight].tolist():
            old_id = window[off:off + _IDENTIFIER_SIZE].tobytes()
            new_id = mapper.identifier(old_id)[0]
            window[off:off + _IDENTIFIER_SIZE] = np.frombuffer(new_id, dtype=np.uint8)

    return patch


_IDENTIFIER_SIZE = int(CODE_SIZE[IDENTIFIER_CODE])


def _window_writer(region: Region, patch: _Patch, offsets: np.ndarray, codes: np.ndarray,
                   window: int) -> Callable[[IO[bytes]], None]:
    """Writes ``region``'s bytes rewritten, ``window`` bytes at a time (a field across a window's end is written
    with the window it starts in; the fields do not overlap, so the last one before the end reaches furthest)."""
    key = offsets.dtype.type

    def write(out: IO[bytes]) -> None:
        data = region.data
        pos = 0
        while pos < region.size:
            stop = min(pos + window, region.size)
            i = int(np.searchsorted(offsets, key(stop), side="left"))
            if i:
                stop = max(stop, min(int(offsets[i - 1]) + int(CODE_SIZE[codes[i - 1]]), region.size))
            buf = np.frombuffer(bytearray(data[pos:stop]), dtype=np.uint8)
            patch(buf, pos)
            out.write(buf.tobytes())
            pos = stop

    return write


def remap(capture: Capture, va_map: VaMap, heap_map: HeapMap | None = None,
          identifier_map: IdentifierMap | None = None, *, keep_unmapped: bool = False,
          output: str | Path | None = None, verify: bool = False, limits: Limits | None = None,
          window: int = WINDOW) -> Remapped:
    """Rebase ``capture`` through the maps (:mod:`d3d12wl.capture.maps`; a map that cannot be used raises
    :class:`~d3d12wl.capture.maps.MapError` naming its entry).  With ``output`` the rebased capture is written there
    (atomically, its rewritten regions streamed ``window`` bytes at a time, the others referenced in place) and read
    back; without it, it is made in memory.  ``verify``: also :func:`verify_remap` it against ``capture``."""
    maps = ReferenceMaps(va_map, heap_map, identifier_map).resolved(capture.objects, capture.state.descriptor_heaps)
    bases = maps.va.check_regions(capture.memory)
    mapper = _Mapper(maps)
    check = _Check(mapper, keep_unmapped)
    walk = walk_references(capture, check, limits=limits, targets=False)
    findings = [*walk.findings, *check.findings]
    suppressed = walk.findings_suppressed + max(0, check.unmapped - len(check.findings))
    regions = {r.name: (r.base, bases[r.name]) for r in capture.memory.regions}
    result = Remapped(None, findings, suppressed, list(walk.trace.findings), walk.rows, dict(check.rewritten),
                      dict(check.kept), regions)
    if any(f.severity == "error" for f in findings):
        return result
    rebased, writers = _rebase(capture, maps, mapper, walk, bases, window)
    if output is not None:
        result.path = save_capture(rebased, output, region_writers=writers)
        rebased = load_capture(result.path)
    else:
        rebased = _in_memory(rebased, writers)
    result.capture = rebased
    if verify:
        result.verification = verify_remap(capture, rebased, maps, limits=limits)
    return result


def _rebase(capture: Capture, maps: ReferenceMaps, mapper: _Mapper, walk: ReferenceWalk, bases: dict[str, int],
            window: int) -> tuple[Capture, dict[str, Callable[[IO[bytes]], None]]]:
    """The rebased capture: its regions at their new bases (a region with listed fields with writers of its
    rewritten bytes; in memory, a rewritten copy), the call, state and programs rewritten."""
    objects, state, call = copy.deepcopy((capture.objects, capture.state, capture.call))
    out = Capture(capture.version, dataclasses.replace(capture.device), objects, GpuMemory(), state, call)
    for ref in state_references(out):
        new, ok = mapper.value(ref.kind, ref.value, ref.heap)
        if ok:
            ref.set(new)
    if maps.heaps is not None:
        out.state.descriptor_heaps = maps.heaps.heaps(capture.state.descriptor_heaps)
    writers: dict[str, Callable[[IO[bytes]], None]] = {}
    listed = {name: i for i, name in enumerate(walk.region_names)}
    for region in capture.memory.regions:
        i = listed.get(region.name)
        offsets, codes = walk.listed.arrays(i) if i is not None else (np.zeros(0, np.uint64), np.zeros(0, np.int8))
        data: Any = region.data
        if len(offsets):
            patch = _patcher(mapper, offsets, codes)
            writers[region.name] = _window_writer(region, patch, offsets, codes, window)
        moved = out.memory.map(bases[region.name], data, name=region.name, writable=region.writable,
                               source=region.source)
        moved.offset = region.offset
    return out, writers


def _in_memory(rebased: Capture, writers: dict[str, Callable[[IO[bytes]], None]]) -> Capture:
    """``rebased`` with every region that has a writer holding its written bytes (a copy in memory)."""
    memory = GpuMemory()
    for region in rebased.memory.regions:
        writer = writers.get(region.name)
        if writer is None:
            memory.map(region.base, region.data, name=region.name, writable=region.writable,
                       source=region.source).offset = region.offset
            continue
        buffer = io.BytesIO()
        writer(buffer)
        memory.map(region.base, bytearray(buffer.getbuffer()), name=region.name, writable=region.writable)
    rebased.memory = memory
    return rebased


# --------------------------------------------------------------------------------------------------------------
# The proof
# --------------------------------------------------------------------------------------------------------------

#: differences listed at most
MAX_DIFFERENCES = 20


def verify_remap(original: Capture, rebased: Capture, maps: ReferenceMaps, *, limits: Limits | None = None,
                 chunk: int = 1 << 16) -> Verification:
    """Run the executor on both captures and compare, with every reference mapped (``maps`` resolved): the lists
    (their VAs and headers), the executions (every column of the execution table, VAs, handles and the addresses
    values were read from mapped), the findings (kind, rule, severity, where; their VAs mapped) and the tables of
    references (every location and value mapped, every name the same)."""
    mapper = _Mapper(maps)
    a, b = execute(original, limits), execute(rebased, limits)
    diffs: list[str] = []
    _lists(a, b, mapper, diffs)
    _findings(a, b, mapper, diffs)
    executions = _executions(a, b, mapper, diffs, chunk)
    ta, tb = patch_list(original, limits=limits), patch_list(rebased, limits=limits)
    _tables(ta, tb, mapper, diffs)
    return Verification(executions, len(ta), diffs[:MAX_DIFFERENCES])


def _mapped_va(mapper: _Mapper, value: int | None) -> int | None:
    if value is None:
        return None
    return int(mapper.va(np.array([value], dtype=np.uint64))[0][0])


def _lists(a: Trace, b: Trace, mapper: _Mapper, diffs: list[str]) -> None:
    if len(a.lists) != len(b.lists):
        diffs.append(f"{len(a.lists)} lists in the original, {len(b.lists)} rebased")
    for la, lb in zip(a.lists, b.lists):
        if _mapped_va(mapper, la.va) != lb.va:
            diffs.append(f"list {la.index}: at 0x{la.va:x} maps to 0x{_mapped_va(mapper, la.va):x}, rebased at 0x{lb.va:x}")
        same = ("flags", "signature_index", "signature", "executable_class", "ordering", "stopped")
        for name in same:
            if getattr(la, name) != getattr(lb, name):
                diffs.append(f"list {la.index}: {name} {getattr(la, name)!r} -> {getattr(lb, name)!r}")
        for key in ("NumProgramInputs", "Flags", "SignatureIndex"):
            if la.header.get(key) != lb.header.get(key):
                diffs.append(f"list {la.index}: header {key} {la.header.get(key)} -> {lb.header.get(key)}")


def _findings(a: Trace, b: Trace, mapper: _Mapper, diffs: list[str]) -> None:
    def key(f: Finding, va: int | None) -> tuple[Any, ...]:
        return (f.kind, f.rule, f.severity, f.list_index, f.primary_index, f.secondary_index, f.command_index, va)

    ka, kb = [], []
    for fa, fb in zip(a.findings, b.findings, strict=False):
        va = None
        if fa.va is not None:
            new, ok = mapper.va(np.array([fa.va], dtype=np.uint64))
            # a fault's address outside every range was computed from a base that moved (a read past a
            # region's end): where it lands is not a reference's value, so it is not compared
            va = int(new[0]) if ok[0] else fb.va
        ka.append(key(fa, va))
        kb.append(key(fb, fb.va))
    ka += [key(f, f.va) for f in a.findings[len(b.findings):]]
    kb += [key(f, f.va) for f in b.findings[len(a.findings):]]
    if ka != kb:
        only_a = [str(f) for f, k in zip(a.findings, ka) if k not in kb][:3]
        only_b = [str(f) for f, k in zip(b.findings, kb) if k not in ka][:3]
        diffs.append(f"findings differ: {len(a.findings)} in the original, {len(b.findings)} rebased"
                     + "".join(f"; only the original: {t}" for t in only_a)
                     + "".join(f"; only rebased: {t}" for t in only_b))


def _root_kinds(trace: Trace, cols: dict[str, np.ndarray], start: int) -> dict[str, np.ndarray]:
    """Per root-argument value column (``root.G1``), per row: whether it is a VA (True) or a descriptor handle
    (False), from one execution of each program of the chunk (the executor's own resolution)."""
    pair = cols["pcs"].astype(np.int64) * (1 << 32) + cols["program"].astype(np.int64)
    uniq, first, inverse = np.unique(pair, return_index=True, return_inverse=True)
    kinds: dict[str, np.ndarray] = {}
    for u, row in enumerate(first.tolist()):
        e = trace.executions[start + row]
        for ra in e.root_arguments:
            if ra.kind in ("constants", "static_sampler"):
                continue
            tag = f"root.{'G' if ra.binding == 'global' else 'L'}{ra.parameter}"
            kinds.setdefault(tag, np.ones(len(uniq), dtype=bool))[u] = ra.kind != "descriptor_table"
    return {tag: k[inverse.reshape(-1)] for tag, k in kinds.items()}


def _executions(a: Trace, b: Trace, mapper: _Mapper, diffs: list[str], chunk: int) -> int:
    n = len(a.executions)
    if n != len(b.executions):
        diffs.append(f"{n} executions in the original, {len(b.executions)} rebased")
        return min(n, len(b.executions))
    for start in range(0, n, chunk):
        ca, cb = execution_columns(a.executions, start, start + chunk), execution_columns(b.executions, start,
                                                                                        start + chunk)
        if ca.names != cb.names:
            diffs.append(f"executions {start}..: names differ: {ca.names} -> {cb.names}")
            return n
        if ca.columns.keys() != cb.columns.keys():
            diffs.append(f"executions {start}..: columns differ: {sorted(set(ca.columns) ^ set(cb.columns))}")
            return n
        kinds = _root_kinds(a, ca.columns, start)
        for name, va in ca.columns.items():
            if name in VA_COLUMNS or name.endswith((".va", ".BufferLocation")):
                expected = mapper.va(va)[0]
            elif name in kinds:
                is_va = kinds[name]
                expected = va.copy()
                expected[is_va] = mapper.va(va[is_va])[0]
                expected[~is_va] = mapper.handle(va[~is_va], None)[0]
            else:
                expected = va
            got = cb.columns[name]
            if not np.array_equal(expected, got):
                i = int(np.flatnonzero(expected != got)[0])
                diffs.append(f"execution {start + i}: {name}: the original's {va[i]} maps to {expected[i]}, rebased "
                             f"{got[i]}")
                if len(diffs) >= MAX_DIFFERENCES:
                    return n
    return n


def _tables(ta: ReferenceTable, tb: ReferenceTable, mapper: _Mapper, diffs: list[str]) -> None:
    if len(ta) != len(tb):
        diffs.append(f"{len(ta)} references in the original, {len(tb)} rebased")
        return
    ca, cb = ta.columns, tb.columns

    def names(t: ReferenceTable, column: str) -> np.ndarray:
        return np.array([*t.names[column], ""], dtype=object)[t.columns[column]]

    for column in ("kind", "record_id", "field", "region", "heap"):
        if not np.array_equal(names(ta, column), names(tb, column)):
            i = int(np.flatnonzero(names(ta, column) != names(tb, column))[0])
            diffs.append(f"reference {i}: {column} {names(ta, column)[i]} -> {names(tb, column)[i]}")
    for column in ("list_index", "primary_index", "secondary_index", "slot_index", "command_index", "offset"):
        if not np.array_equal(ca[column], cb[column]):
            i = int(np.flatnonzero(ca[column] != cb[column])[0])
            diffs.append(f"reference {i}: {column} {ca[column][i]} -> {cb[column][i]}")
    memory = ca["region"] >= 0
    want_va = np.where(memory, mapper.va(ca["va"])[0], ca["va"])
    if not np.array_equal(want_va, cb["va"]):
        i = int(np.flatnonzero(want_va != cb["va"])[0])
        diffs.append(f"reference {i}: read at 0x{int(ca['va'][i]):x}, which maps to 0x{int(want_va[i]):x}; rebased "
                     f"at 0x{int(cb['va'][i]):x}")
    kind = ca["kind"]
    want = ca["value"].copy()
    m = kind == REFERENCE_KINDS.index(VA)
    want[m] = mapper.va(ca["value"][m])[0]
    for h, heap in enumerate(SHADER_VISIBLE_HEAP_TYPES):
        m = (kind == REFERENCE_KINDS.index(HANDLE)) & (ca["heap"] == h)
        want[m] = mapper.handle(ca["value"][m], heap)[0]
    if not np.array_equal(want, cb["value"]):
        i = int(np.flatnonzero(want != cb["value"])[0])
        diffs.append(f"reference {i}: value 0x{int(ca['value'][i]):x} maps to 0x{int(want[i]):x}; rebased "
                     f"0x{int(cb['value'][i]):x}")
    ida, idb = names(ta, "identifier"), names(tb, "identifier")
    for i in np.flatnonzero(kind == REFERENCE_KINDS.index(IDENTIFIER)).tolist():
        new = mapper.identifier(bytes.fromhex(ida[i]))[0].hex()
        if new != idb[i]:
            diffs.append(f"reference {i}: identifier {ida[i][:16]}... maps to {new[:16]}...; rebased {idb[i][:16]}...")
            break
