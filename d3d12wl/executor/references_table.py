"""The table of references by value one call reads, and the collector that fills it from the columnar walk's
chunks: its columns and names (:class:`ReferenceTable`), the per-region listing a rebase writes through, the
per-record-layout plans of fields to read, and the state rows of the capture's own members.  Both engines of
:mod:`d3d12wl.executor.references` fill it (the walk and :mod:`d3d12wl.executor.references_fast`), which is why it
is a module of its own: the columns engine builds on it without importing the module that chooses the engine."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.file import Capture
from d3d12wl.capture.references import state_references
from d3d12wl.errors import LayoutError
from d3d12wl.executor.arrays import RegionArrays
from d3d12wl.executor.command_walk import CommandBatch
from d3d12wl.executor.execute_indirect import CommandPlan
from d3d12wl.executor.trace import Execution, Finding, ListTrace, PrimaryRecordTrace, Trace
from d3d12wl.executor.worklist_batch import BatchRecords, BatchSecondaryRecords, WorkListBatch
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import Program, ProgramCommandSignature, RecordKind, RootParameter1
from d3d12wl.model.state import SHADER_VISIBLE_HEAP_TYPES, table_heap_type
from d3d12wl.output.table import NameTable
from d3d12wl.records.layout import LayoutCache, LayoutField, RecordLayout, inline_local_slots, record_id
from d3d12wl.records.references import HANDLE, IDENTIFIER, REFERENCE_KINDS, VA, ctype_references, record_references

#: the table's columns, in order, with their dtypes
COLUMNS: dict[str, np.dtype] = {
    "region": np.dtype(np.int32), "offset": np.dtype(np.uint64), "va": np.dtype(np.uint64),
    "kind": np.dtype(np.int32), "value": np.dtype(np.uint64), "identifier": np.dtype(np.int32),
    "record_id": np.dtype(np.int32), "field": np.dtype(np.int32), "list_index": np.dtype(np.int64),
    "primary_index": np.dtype(np.int64), "secondary_index": np.dtype(np.int64), "slot_index": np.dtype(np.int64),
    "command_index": np.dtype(np.int64), "heap": np.dtype(np.int32), "target": np.dtype(np.int32),
    "target_offset": np.dtype(np.uint64),
}
#: the code columns, each indexing ``names[column]``
NAME_COLUMNS = ("region", "kind", "identifier", "record_id", "field", "heap", "target")
#: the findings the table itself makes (the call's own are the executor's, :data:`FINDING_KINDS`)
TABLE_FINDING_KINDS = {
    "reference-overlap": "bytes the call reads as one reference are also read as another (another kind, another "
                         "heap, or fields that overlap): no rewrite is right for both readings",
}
#: the index columns (-1: none)
_WHERE = ("list_index", "primary_index", "secondary_index", "slot_index", "command_index")
#: the record name of a validation-program-table slot
VALIDATION_TABLE = "validation_program_table"
#: the most table findings kept; further ones are counted
MAX_TABLE_FINDINGS = 64

_IDENTIFIER_SIZE = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
_KIND = {k: i for i, k in enumerate(REFERENCE_KINDS)}
_HEAP = {h: i for i, h in enumerate(SHADER_VISIBLE_HEAP_TYPES)}
#: a listed field's code (per region, :class:`Listed`): the kind, and for a handle its heap (what a rebase reads)
VA_CODE, IDENTIFIER_CODE = 0, 1
HANDLE_CODE = {h: 2 + i for i, h in enumerate(SHADER_VISIBLE_HEAP_TYPES)}
CODE_SIZE = np.array([8, _IDENTIFIER_SIZE, *(8 for _ in SHADER_VISIBLE_HEAP_TYPES)], dtype=np.uint64)


@dataclass
class ReferenceTable:
    """Rows of the table as columns (:data:`COLUMNS`), the name tables the code columns index, and the findings:
    the call's (the executor's, in its order) then the table's own (:data:`TABLE_FINDING_KINDS`)."""

    columns: dict[str, np.ndarray]
    names: dict[str, list[str]]
    findings: list[Finding] = field(default_factory=list)
    findings_suppressed: int = 0

    def __len__(self) -> int:
        return len(self.columns["va"])

    def decoded(self, column: str) -> list[str | None]:
        """A code column as its names (None where it has none)."""
        names = [*self.names[column], None]
        return [names[c] for c in self.columns[column].tolist()]

    def rows(self) -> Iterator[dict[str, Any]]:
        """Each row as a dict, codes as names, absent values as None (for small tables and tests; the writers
        work in columns)."""
        decoded = {c: self.decoded(c) for c in NAME_COLUMNS}
        cols = {c: self.columns[c].tolist() for c in COLUMNS if c not in NAME_COLUMNS}
        for i in range(len(self)):
            row: dict[str, Any] = {}
            for c in COLUMNS:
                row[c] = decoded[c][i] if c in NAME_COLUMNS else cols[c][i]
            if row["region"] is None:
                row["offset"] = row["va"] = None
            if row["kind"] == IDENTIFIER:
                row["value"] = None
            if row["target"] is None or row["kind"] == IDENTIFIER:
                row["target_offset"] = None
            for c in ("list_index", "primary_index", "secondary_index", "slot_index", "command_index"):
                if row[c] == -1:
                    row[c] = None
            yield row


Columns = dict[str, np.ndarray]


def _empty(n: int = 0) -> Columns:
    return {c: np.zeros(n, dtype=dt) for c, dt in COLUMNS.items()}


def _taken(cols: Columns, index: np.ndarray) -> Columns:
    return {c: v[index] for c, v in cols.items()}


def concatenate(parts: list[dict[str, np.ndarray]]) -> dict[str, np.ndarray]:
    """Chunks of rows as one set of columns (each contiguous)."""
    if not parts:
        return {c: np.zeros(0, dtype=dt) for c, dt in COLUMNS.items()}
    return {c: np.concatenate([p[c] for p in parts]) for c in COLUMNS}


# --------------------------------------------------------------------------------------------------------------
# What has been listed, per region: a field read again is one row; one read as another reference is a finding
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _StridedFields:
    """A run of fields listed as what they are: ``count`` records ``stride`` bytes apart from offset ``first``,
    each with fields at ``offsets`` (ascending and apart) of ``codes``; their arrays are made when asked for."""

    first: int
    count: int
    stride: int
    offsets: tuple[int, ...]
    codes: tuple[int, ...]

    def arrays(self, dtype: np.dtype) -> tuple[np.ndarray, np.ndarray]:
        at = np.arange(self.count, dtype=np.uint64) * np.uint64(self.stride) + np.uint64(self.first)
        o = (at[:, None] + np.array(self.offsets, dtype=np.uint64)[None, :]).reshape(-1).astype(dtype)
        return o, np.tile(np.array(self.codes, dtype=np.int8), self.count)


#: a run of :class:`Listed`: (lo, hi, offsets, codes), or (lo, hi, fields at a stride, None)
_Run = tuple[int, int, "np.ndarray | _StridedFields", "np.ndarray | None"]


class Listed:
    """Per memory region, the offsets of the fields listed so far and their codes (kind, and for a handle its
    heap): the rows' identity, and what ``d3d12wl remap`` rewrites.  Kept as runs, each ascending and covering an
    interval no other run touches: the walk lists each stream of records (a list's primary records, their
    secondary records) in ascending order chunk after chunk, so a chunk's fields usually make a run of their own
    (checked with one comparison and a bisection); fields that fall among ones listed before are merged with the
    runs they touch.  5 bytes a field in a region under 4 GiB, 9 above; fields of records at a stride
    (:meth:`fresh_strided`) a few dozen bytes a run until their arrays are asked for."""

    def __init__(self, sizes: list[int]) -> None:
        self.runs: list[list[_Run]] = [[] for _ in sizes]
        self.starts: list[list[int]] = [[] for _ in sizes]
        self.dtypes = [np.dtype(np.uint32) if size <= 1 << 32 else np.dtype(np.uint64) for size in sizes]
        self.overlaps: list[tuple[int, int, int, int]] = []  # (region, offset, code, other code | -1 - offset)
        self.overlap_count = 0

    def arrays(self, region: int) -> tuple[np.ndarray, np.ndarray]:
        """Every field of ``region`` listed so far: (offsets, codes), ascending (the runs joined in order)."""
        runs = self.runs[region]
        if not runs:
            return np.zeros(0, dtype=self.dtypes[region]), np.zeros(0, dtype=np.int8)
        if len(runs) > 1 or runs[0][3] is None:
            lo, hi = runs[0][0], runs[-1][1]
            parts = [self._run_arrays(region, k) for k in range(len(runs))]
            runs[:] = [(lo, hi, np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts]))]
            self.starts[region] = [lo]
        o, c = runs[0][2], runs[0][3]
        assert isinstance(o, np.ndarray) and c is not None
        return o, c

    def _run_arrays(self, r: int, k: int) -> tuple[np.ndarray, np.ndarray]:
        _, _, o, c = self.runs[r][k]
        if isinstance(o, _StridedFields):
            return o.arrays(self.dtypes[r])
        assert c is not None
        return o, c

    def fresh_strided(self, r: int, first: int, count: int, stride: int, offsets: tuple[int, ...],
                      codes: tuple[int, ...]) -> bool:
        """List the fields of ``count`` records ``stride`` bytes apart from offset ``first`` of region ``r``, each
        with fields at ``offsets`` (ascending, 8 bytes or more apart, within the stride) of ``codes``, when none
        of them falls among fields listed before (True: every one is fresh, recorded as the run it is); False:
        nothing is recorded, and the caller lists them with :meth:`fresh`."""
        lo = first + offsets[0]
        hi = first + (count - 1) * stride + offsets[-1] + int(CODE_SIZE[codes[-1]])
        starts, runs = self.starts[r], self.runs[r]
        i = bisect.bisect_left(starts, hi)
        if i and runs[i - 1][1] > lo:  # (runs never overlap: the one before is the only one that can reach lo)
            return False
        runs.insert(i, (lo, hi, _StridedFields(first, count, stride, offsets, codes), None))
        starts.insert(i, lo)
        return True

    def fresh(self, r: int, o: np.ndarray, c: np.ndarray, disjoint: bool = False,
              stored: np.ndarray | None = None) -> np.ndarray:
        """Which of these fields of region ``r`` (offsets ``o`` in listing order, codes ``c``) are listed for the
        first time; they are recorded.  ``disjoint``: the caller knows ``o`` ascends and no field reaches the
        next (fields of records at a stride), so neither is checked again; ``stored``: ``o`` already in the
        region's offset dtype."""
        if not len(o):
            return np.zeros(0, dtype=bool)
        ascending = disjoint or len(o) < 2 or bool(np.all(o[1:] > o[:-1]))
        lo = int(o[0]) if ascending else int(o.min())
        if disjoint:
            hi = int(o[-1]) + int(CODE_SIZE[c[-1]])
        else:
            ends = o.astype(np.uint64) + CODE_SIZE[c]
            hi = int(ends[-1]) if ascending else int(ends.max())
        starts, runs = self.starts[r], self.runs[r]
        i = bisect.bisect_left(starts, hi)  # runs starting before hi ...
        j = i
        while j > 0 and runs[j - 1][1] > lo:  # ... that end after lo touch [lo, hi)
            j -= 1
        if ascending and j == i:
            if not disjoint:
                self._overlaps(r, o, c)
            keep = stored if stored is not None and stored.dtype == self.dtypes[r] else o.astype(self.dtypes[r])
            runs.insert(i, (lo, hi, keep, c))
            starts.insert(i, lo)
            return np.ones(len(o), dtype=bool)
        return self._merge(r, o, c, j, i)

    def _merge(self, r: int, o: np.ndarray, c: np.ndarray, j: int, i: int) -> np.ndarray:
        """Fields among ones listed before (runs ``j .. i - 1`` touch them), or not ascending: a field listed
        before (or earlier among these) is not fresh; one whose bytes are read as another reference than the
        first reading is an overlap.  The runs touched and these fields become one run."""
        runs = self.runs[r]
        if i > j:
            parts = [self._run_arrays(r, k) for k in range(j, i)]
            old_o = np.concatenate([p[0] for p in parts]).astype(np.uint64)
            old_c = np.concatenate([p[1] for p in parts])
        else:
            old_o, old_c = np.zeros(0, dtype=np.uint64), np.zeros(0, dtype=np.int8)
        o = o.astype(np.uint64)
        order = _stable_order(o)  # equal offsets keep the walk's order: the first reading leads
        so, sc = o[order], c[order]
        first = np.ones(len(so), dtype=bool)
        first[1:] = so[1:] != so[:-1]
        leader = sc[np.flatnonzero(first)][np.cumsum(first) - 1]  # the first reading of each offset here
        pos = np.searchsorted(old_o, so)
        hit = pos < len(old_o)
        hit[hit] = old_o[pos[hit]] == so[hit]
        if hit.any():
            leader[hit] = old_c[pos[hit]]  # ... or the one listed before
        for k in np.flatnonzero(leader != sc).tolist():
            self._overlap(r, int(so[k]), int(sc[k]), int(leader[k]))
        fresh = first & ~hit
        merged_o = np.concatenate([old_o, so[fresh]])
        merged_c = np.concatenate([old_c, sc[fresh]])
        is_new = np.concatenate([np.zeros(len(old_o), dtype=bool), np.ones(int(fresh.sum()), dtype=bool)])
        morder = _stable_order(merged_o)
        merged_o, merged_c = merged_o[morder], merged_c[morder]
        self._overlaps(r, merged_o, merged_c, is_new[morder])
        lo = int(merged_o[0])
        hi = max(int((merged_o + CODE_SIZE[merged_c]).max()), runs[i - 1][1] if i > j else 0)
        runs[j:i] = [(lo, hi, merged_o.astype(self.dtypes[r]), merged_c)]
        self.starts[r][j:i] = [lo]
        out = np.zeros(len(o), dtype=bool)
        out[order[fresh]] = True
        return out

    def _overlaps(self, r: int, o: np.ndarray, c: np.ndarray, new: np.ndarray | None = None) -> None:
        """Fields (ascending ``o``) whose bytes run into the next one's (``new``: report only pairs with a field
        listed now)."""
        if len(o) < 2:
            return
        bad = o[:-1].astype(np.uint64) + CODE_SIZE[c[:-1]] > o[1:]
        if new is not None:
            bad &= new[:-1] | new[1:]
        for k in np.flatnonzero(bad).tolist():
            self._overlap(r, int(o[k + 1]), int(c[k + 1]), int(c[k]), int(o[k]))

    def _overlap(self, r: int, offset: int, code: int, other: int, other_offset: int | None = None) -> None:
        self.overlap_count += 1
        if len(self.overlaps) < MAX_TABLE_FINDINGS:
            self.overlaps.append((r, offset, code, other if other_offset is None else -1 - other_offset))


def _code_name(code: int) -> str:
    if code == VA_CODE:
        return "a GPU VA"
    if code == IDENTIFIER_CODE:
        return "a program identifier"
    heap = next(h for h, v in HANDLE_CODE.items() if v == code)
    return f"a descriptor handle of the {heap} heap"


# --------------------------------------------------------------------------------------------------------------
# The walk
# --------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class FieldPlan:
    """The references of one record class (as one program uses it): per 8-byte reference its field code, offset,
    kind and heap codes; the 32-byte identifiers apart."""

    record: int
    fields: np.ndarray
    offsets: np.ndarray
    kinds: np.ndarray
    heaps: np.ndarray
    codes: np.ndarray  # the Listed codes
    identifiers: tuple[tuple[int, int], ...]  # (field code, offset)
    size: int  # bytes of the record the references lie in


RowSink = Callable[[ReferenceTable], None]


@dataclass
class ReferenceWalk:
    """What :func:`walk_references` walked: the call's trace (its items released as they were streamed), the
    name tables, the table's findings and what was listed per region (:class:`Listed`), the number of rows."""

    trace: Trace
    names: dict[str, list[str]]
    listed: Listed
    region_names: list[str]
    region_bases: np.ndarray
    rows: int
    findings: list[Finding]
    findings_suppressed: int
    #: which engine read the records (``"columns"`` or ``"walk"``), and why the columns did not (None: they did,
    #: or the walk was asked for)
    engine: str = "walk"
    undecided: str | None = None


class Collector:
    """The table of references one call reads, filled as the walk's chunks stream out of the executor: the state
    rows of the capture's own members, then per chunk the rows of its records (through :attr:`sink`)."""

    def __init__(self, capture: Capture, sink: RowSink, targets: bool = True) -> None:
        self.capture = capture
        self.sink = sink
        self.targets = targets
        self.regions = RegionArrays(capture.memory)
        self.region_names = [r.name for r in capture.memory.regions if r.size]
        heap_names = list(SHADER_VISIBLE_HEAP_TYPES)
        self.programs: dict[bytes, int] = {}  # identifier -> program (the first one with it, as the executor finds)
        for i, p in enumerate(capture.objects.programs.values()):
            self.programs.setdefault(bytes(p.Identifier), i)
        self.names: dict[str, list[str]] = {
            "region": self.region_names, "kind": list(REFERENCE_KINDS), "heap": heap_names,
            "target": [*self.region_names, *heap_names, *capture.objects.programs]}
        self.codes = {c: NameTable() for c in ("identifier", "record_id", "field")}
        for c, codes in self.codes.items():
            self.names[c] = codes.names
        self.layouts = LayoutCache()
        self.plans: dict[tuple[int, tuple[str | None, ...]], tuple[RecordLayout, Any, FieldPlan]] = {}
        self.listed = Listed([r.size for r in capture.memory.regions if r.size])
        self.slots: set[int] = set()  # program-table slot VAs listed
        self.headers: set[int] = set()  # list indices whose header rows are listed
        self.pcses: dict[int, set[int]] = {}  # list index -> id() of the PCSes its records selected
        self.rows = 0
        heaps = capture.state.descriptor_heaps
        self.heap_ranges = [(i, h) for i, name in enumerate(heap_names) if (h := heaps.heap(name)) is not None]
        #: the first ``target`` code of a program
        self.program_target = len(self.region_names) + len(heap_names)
        # what _targets looks values up in, as ranges (start, last, target code): the regions, then each bound
        # heap that spans handles; _heap_range: a heap's triplet among them
        nregions = len(self.region_names)
        spans = [(i, h) for i, h in self.heap_ranges if h.size]
        self.target_ranges = np.zeros((nregions + len(spans), 3), dtype=np.uint64)
        self.target_ranges[:nregions, 0] = self.regions.bases
        self.target_ranges[:nregions, 1] = self.regions.lasts
        self.target_ranges[:nregions, 2] = np.arange(nregions, dtype=np.uint64)
        self._heap_range: dict[int, int] = {}
        for k, (i, h) in enumerate(spans):
            start = h.GPUDescriptorHandleForHeapStart
            self.target_ranges[nregions + k] = (start, min(start + h.size - 1, (1 << 64) - 1), nregions + i)
            self._heap_range[i] = nregions + k
        self._tables: dict[int, tuple[FieldPlan, np.ndarray]] = {}

    # -- emitting rows ------------------------------------------------------------------------------------------

    def emit(self, cols: Columns) -> None:
        """Hand rows (one sequence of the walk: a block of records, usually ascending) to the sink, each field
        listed once: the fields listed before are left out."""
        n = len(cols["va"])
        if not n:
            return
        region = cols["region"]
        first = int(region[0])
        one = first >= 0 and bool(np.all(region == first))
        if one or (region >= 0).any():
            kind = cols["kind"]
            codes = np.where(kind == _KIND[IDENTIFIER], IDENTIFIER_CODE,
                             np.where(kind == _KIND[VA], VA_CODE, 2 + np.maximum(cols["heap"], 0))).astype(np.int8)
            if one:  # the usual block: all in one region
                keep = self.listed.fresh(first, cols["offset"], codes)
            else:
                keep = np.ones(n, dtype=bool)
                for r in np.unique(region[region >= 0]).tolist():
                    idx = np.flatnonzero(region == r)
                    keep[idx] = self.listed.fresh(r, cols["offset"][idx], codes[idx])
            if not keep.all():
                cols = _taken(cols, np.flatnonzero(keep))
        self.rows += len(cols["va"])
        self.sink(ReferenceTable(cols, self.names))

    def _targets(self, value: np.ndarray, kind: np.ndarray, heap: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``target`` / ``target_offset`` of VAs and handles (identifiers' are set apart)."""
        is_va = kind == _KIND[VA]
        bases, lasts = self.regions.bases, self.regions.lasts
        all_va = bool(is_va.all())
        if all_va and len(bases) <= 8 and len(value):  # a few regions: one unsigned compare each (no search)
            lo, hi = int(value.min()), int(value.max())
            near = [(r, b, last) for r, (b, last) in enumerate(zip(bases.tolist(), lasts.tolist()))
                    if b <= hi and lo <= last]
            if not near:  # no value in any region: every row's target is none
                return constant(-1, len(value), np.int32), constant(0, len(value), np.uint64)
            target = np.full(len(value), -1, dtype=np.int32)
            offset = np.zeros(len(value), dtype=np.uint64)
            for k, b, last in near:
                d = value - np.uint64(b)
                inside = np.flatnonzero(d <= np.uint64(last - b))
                if len(inside):
                    target[inside] = k
                    offset[inside] = d[inside]
            return target, offset
        target = np.full(len(value), -1, dtype=np.int32)
        offset = np.zeros(len(value), dtype=np.uint64)
        if len(bases) and is_va.any():
            va = slice(None) if is_va.all() else np.flatnonzero(is_va)
            v = value[va]
            r = np.searchsorted(bases, v, side="right").astype(np.int32) - 1
            safe = np.maximum(r, 0)
            ok = (r >= 0) & (v <= lasts[safe])
            target[va] = np.where(ok, r, -1)
            offset[va] = np.where(ok, v - bases[safe], np.uint64(0))
        for i, h in self.heap_ranges if not all_va else ():
            m = (kind == _KIND[HANDLE]) & (heap == i)
            start = np.uint64(h.GPUDescriptorHandleForHeapStart)
            m &= (value >= start) & (value - start < np.uint64(h.size))
            target[m] = len(self.region_names) + i
            offset[m] = value[m] - start
        return target, offset

    def target_tables(self, plan: FieldPlan) -> np.ndarray:
        """Per 8-byte reference of ``plan``, the ranges of :attr:`target_ranges` its value is looked up in (first,
        count), as :func:`~d3d12wl.records.packers.field_runs` takes them: a VA in the memory regions, a descriptor
        handle in the bound heap of its type (:meth:`_targets`' answers, in the kernel)."""
        hit = self._tables.get(id(plan))
        if hit is not None and hit[0] is plan:
            return hit[1]
        nregions = len(self.region_names)
        tables = np.zeros((len(plan.offsets), 2), dtype=np.int64)
        for f, (kind, heap) in enumerate(zip(plan.kinds.tolist(), plan.heaps.tolist())):
            if kind == _KIND[VA]:
                tables[f] = (0, nregions)
            elif kind == _KIND[HANDLE] and heap in self._heap_range:
                tables[f] = (self._heap_range[heap], 1)
        self._tables[id(plan)] = (plan, tables)
        return tables

    def rows_of(self, plan: FieldPlan, records: np.ndarray | None, vas: np.ndarray, where: dict[str, Any],
                values: np.ndarray | None = None) -> Columns:
        """The rows of ``len(vas)`` records of one plan (``records``: their bytes, a uint8 matrix; or ``values``,
        their references' values already read, :func:`plan_values`), record by record and, in each, its
        identifiers then its other references in field order."""
        n, f, g = len(vas), len(plan.offsets), len(plan.identifiers)
        width = f + g
        total = n * width
        if not total:
            return _empty()
        region = self.regions.locate(vas, max(plan.size, 1)).astype(np.int32)
        base = np.where(region >= 0, self.regions.bases[np.maximum(region, 0)], np.uint64(0))
        cols: Columns = {}
        if f:
            if values is None:
                assert records is not None
                values = plan_values(plan, records)
            value = values.reshape(-1)
            if f == 1:
                kind, heap = constant(plan.kinds[0], n, np.int32), constant(plan.heaps[0], n, np.int32)
                field, va = constant(plan.fields[0], n, np.int32), vas + np.uint64(plan.offsets[0])
            else:
                kind, heap, field = np.tile(plan.kinds, n), np.tile(plan.heaps, n), np.tile(plan.fields, n)
                va = (vas[:, None] + plan.offsets.astype(np.uint64)[None, :]).reshape(-1)
            if self.targets:
                target, target_offset = self._targets(value, kind, heap)
            else:
                target, target_offset = constant(-1, n * f, np.int32), constant(0, n * f, np.uint64)
            cols = {"va": va, "kind": kind, "value": value, "identifier": constant(-1, n * f, np.int32),
                    "field": field, "heap": heap, "target": target, "target_offset": target_offset}
        if g:
            assert records is not None
            ident: Columns = {c: np.empty((n, g), dtype=COLUMNS[c]) for c in ("va", "kind", "value", "identifier",
                                                                               "field", "heap", "target",
                                                                               "target_offset")}
            for k, (field_code, off) in enumerate(plan.identifiers):
                idents = [bytes(x) for x in records[:, off:off + _IDENTIFIER_SIZE]]
                program = np.array([self.programs.get(i, -1) for i in idents], dtype=np.int32)
                ident["va"][:, k] = vas + np.uint64(off)
                ident["identifier"][:, k] = [self.codes["identifier"].named(i.hex()) for i in idents]
                ident["target"][:, k] = np.where(program >= 0, self.program_target + program, -1)
                ident["field"][:, k] = field_code
            ident["kind"][:] = _KIND[IDENTIFIER]
            ident["value"][:] = 0
            ident["heap"][:] = -1
            ident["target_offset"][:] = 0
            if f:  # record by record: the identifiers lead
                cols = {c: np.concatenate([ident[c], cols[c].reshape(n, f)], axis=1).reshape(-1) for c in ident}
            else:
                cols = {c: v.reshape(-1) for c, v in ident.items()}
        if width > 1:
            region, base = np.repeat(region, width), np.repeat(base, width)
        cols["region"] = region
        cols["offset"] = cols["va"] - base if bool((region >= 0).all()) else np.where(region >= 0, cols["va"] - base,
                                                                                       np.uint64(0))
        cols["record_id"] = constant(plan.record, total, np.int32)
        for c in _WHERE:
            v = where.get(c, -1)
            if np.ndim(v):
                cols[c] = np.repeat(np.asarray(v, dtype=np.int64), width) if width > 1 else np.asarray(v, np.int64)
            else:
                cols[c] = constant(v, total, np.int64)
        return {c: cols[c] for c in COLUMNS}

    # -- plans --------------------------------------------------------------------------------------------------

    def plan(self, layout: RecordLayout, pcs: ProgramCommandSignature | None, program: Program | None,
             record: str | None = None) -> FieldPlan:
        """The plan of ``layout``'s records as ``program`` uses them: one per layout and the heaps its handles
        address (programs of one PCS share it unless their local root signatures route a handle elsewhere)."""
        refs = record_references(layout)
        key = plan_key(layout, pcs, program)
        heaps = key[1]
        hit = self.plans.get(key)
        if hit is not None and hit[0] is layout:
            return hit[2]
        made = self._plan(record or record_id(layout), [(r.name, r.offset, r.kind, h) for r, h in zip(refs, heaps)],
                          layout.size)
        self.plans[key] = (layout, heaps, made)
        return made

    def _plan(self, record: str, refs: Sequence[tuple[str, int, str, str | None]], size: int) -> FieldPlan:
        eight = [r for r in refs if r[2] != IDENTIFIER]
        field_codes = np.array([self.codes["field"].named(r[0]) for r in eight], dtype=np.int32)
        heaps = np.array([_HEAP[r[3]] if r[3] is not None else -1 for r in eight], dtype=np.int32)
        kinds = np.array([_KIND[r[2]] for r in eight], dtype=np.int32)
        codes = np.array([VA_CODE if r[2] == VA else HANDLE_CODE[r[3] or "CBV_SRV_UAV"] for r in eight],
                         dtype=np.int8)
        identifiers = tuple((self.codes["field"].named(r[0]), r[1]) for r in refs if r[2] == IDENTIFIER)
        return FieldPlan(self.codes["record_id"].named(record), field_codes, np.array([r[1] for r in eight], dtype=np.int64),
                     kinds, heaps, codes, identifiers, size)

    # -- the capture's own members ------------------------------------------------------------------------------

    def state_rows(self) -> None:
        refs = state_references(self.capture)
        if not refs:
            return
        rows = _empty(len(refs))
        for c in ("region", "identifier", "heap", *_WHERE):
            rows[c][:] = -1
        for i, ref in enumerate(refs):
            rows["kind"][i] = _KIND[ref.kind]
            rows["record_id"][i] = self.codes["record_id"].named(ref.record)
            rows["field"][i] = self.codes["field"].named(ref.field)
            if ref.kind == IDENTIFIER:
                rows["identifier"][i] = self.codes["identifier"].named(ref.value.hex())
            else:
                rows["value"][i] = ref.value
            if ref.heap is not None:
                rows["heap"][i] = _HEAP[ref.heap]
        rows["target"], rows["target_offset"] = self._targets(rows["value"], rows["kind"], rows["heap"])
        for i, ref in enumerate(refs):
            if ref.kind == IDENTIFIER:
                program = self.programs.get(ref.value, -1)
                rows["target"][i] = self.program_target + program if program >= 0 else -1
        self.emit(rows)

    # -- records as the walk hands them over ----------------------------------------------------------------------

    def take_list(self, run: Any) -> None:
        """After a chunk of list ``run``: its new rows, then release the trace's items."""
        lt: ListTrace = run.trace
        self.header(lt, program_inputs=True)
        self._take_records(lt)
        run.ctx.trace.executions.release()

    def _take_records(self, lt: ListTrace) -> None:
        for seg in lt.primary_records.segments:
            if isinstance(seg, BatchRecords):
                self._batch(lt, seg.batch)
            elif isinstance(seg, list):
                for prt in seg:
                    self._object(lt, prt)
        lt.primary_records.release()

    def header(self, lt: ListTrace, program_inputs: bool, continuation: bool = False) -> None:
        """``ProgramInputs.StartAddress`` (read when NumProgramInputs is not 0) once per list; ``NextDispatchList``
        when the continuation read it."""
        refs = ctype_references(lt.input_struct)
        wanted = []
        if program_inputs and lt.index not in self.headers and lt.header.get("NumProgramInputs"):
            wanted.append(".ProgramInputs.StartAddress")
        if continuation and (lt.continuation or {}).get("allowed"):
            wanted.append(".NextDispatchList")
        self.headers.add(lt.index)
        chosen = [(m.path[1:], m.offset, m.kind, None) for m in refs if m.path in wanted]
        if not chosen:
            return
        plan = self._plan(lt.input_struct, chosen, abi.sizeof(lt.input_struct))
        self._records(plan, [lt.va], {"list_index": lt.index})

    def gather(self, vas: np.ndarray, size: int) -> np.ndarray | None:
        ridx = self.regions.locate(vas, max(size, 1))
        if (ridx < 0).any():
            return None
        return self.regions.gather(ridx, vas, size)

    def slot(self, lt: ListTrace, index: int, va: int, program: Program | None, tail: bool) -> Columns | None:
        """The rows of a program-table slot a record selected, the first time one does: its identifier and (when
        read) its local-root tail."""
        if va in self.slots:
            return None
        self.slots.add(va)
        layout = None
        if program is not None and tail:
            try:
                layout = self.layouts.program(program)
            except LayoutError:
                layout = None
        if layout is not None:
            plan = self.plan(layout, program.ProgramCommandSignature if program else None, program)
        else:
            plan = self._plan("program_table" if program is None else f"{program.name}.program_table",
                              [("ProgramIdentifier", 0, IDENTIFIER, None)], _IDENTIFIER_SIZE)
        vas = np.array([va], dtype=np.uint64)
        records = self.gather(vas, plan.size)
        return None if records is None else self.rows_of(plan, records, vas, {"list_index": lt.index,
                                                                              "slot_index": index})

    def _batch(self, lt: ListTrace, batch: WorkListBatch) -> None:
        """A run of primary records the columns took, as three sequences: the program-table slots they select
        first, their own references in record order, their secondary records' in record order."""
        groups = batch.walk.groups
        gid = batch.gid.astype(np.int64)
        present = np.unique(gid).tolist()
        pcs_seen = self.pcses.setdefault(lt.index, set())
        classes: dict[tuple[int, int], list[int]] = {}  # (primary plan, secondary plan) -> its groups
        plans: dict[int, tuple[FieldPlan, FieldPlan | None]] = {}
        for g in present:
            group = groups[g]
            pcs_seen.add(id(group.pcs))
            got = self.slot(lt, group.pt_index, group.table.va, group.program, True)
            if got is not None:
                self.emit(got)
            sec = self.plan(group.layout.secondary, group.pcs, group.program) if group.hybrid and \
                group.layout.secondary is not None else None
            plans[g] = (self.plan(group.layout.primary, group.pcs, group.program), sec)
            classes.setdefault((id(plans[g][0]), id(sec)), []).append(g)
        primary: list[tuple[np.ndarray, Columns]] = []
        secondary: list[tuple[np.ndarray, Columns]] = []
        for members in classes.values():
            pplan, splan = plans[members[0]]
            m = np.arange(len(gid)) if len(classes) == 1 else np.flatnonzero(np.isin(gid, members))
            values = np.empty((len(m), len(pplan.offsets)), dtype=np.uint64)
            at = {g: np.flatnonzero(gid[m] == g) if len(members) > 1 else slice(None) for g in members}
            for g in members:
                values[at[g]] = plan_values(pplan, batch.primary_rows[g])
            where = {"list_index": lt.index, "primary_index": batch.primary_index[m]}
            primary.append((m, self.rows_of(pplan, None, batch.primary_va[m], where, values)))
            if splan is not None:
                secondary.append(self._secondaries(lt, batch, splan, m, members, at))
        for parts in (primary, secondary):
            if len(parts) == 1:
                self.emit(parts[0][1])
            elif parts:  # records of several shapes: in record order again
                cols = concatenate([p[1] for p in parts])
                position = np.concatenate([np.repeat(m, len(p["va"]) // max(len(m), 1)) for m, p in parts])
                self.emit(_taken(cols, _stable_order(position)))

    def _secondaries(self, lt: ListTrace, batch: WorkListBatch, plan: FieldPlan, m: np.ndarray, members: list[int],
                     at: dict[int, Any]) -> tuple[np.ndarray, Columns]:
        """The secondary records the columns took of records ``m`` (of one shape; ``at``: each group's records
        among them), in record order: per secondary record its record's position, and the rows."""
        ns = np.diff(batch.exec_off)[m]
        owner = np.repeat(np.arange(len(m)), ns)
        first = np.zeros(len(m) + 1, dtype=np.int64)
        np.cumsum(ns, out=first[1:])
        j = np.arange(int(first[-1]), dtype=np.int64) - first[:-1][owner]
        base = np.empty(len(m), dtype=np.uint64)
        values = np.empty((len(j), len(plan.offsets)), dtype=np.uint64)
        for g in members:
            base[at[g]] = batch.secondary_base[g]
            rows = batch.secondary_rows[g]
            if len(members) == 1:
                values[:] = plan_values(plan, rows)
            else:  # the group's secondary records, in the class's record order
                t = at[g]
                values[np.repeat(first[:-1][t], ns[t]) + np.arange(len(rows)) - np.repeat(
                    np.cumsum(ns[t]) - ns[t], ns[t])] = plan_values(plan, rows)
        stride = np.uint64(batch.walk.groups[members[0]].sstride)
        vas = base[owner] + j.astype(np.uint64) * stride
        cols = self.rows_of(plan, None, vas, {"list_index": lt.index, "primary_index": batch.primary_index[m][owner],
                                              "secondary_index": j}, values)
        return m[owner], cols

    def _object(self, lt: ListTrace, prt: PrimaryRecordTrace) -> None:
        """A record the reference walk made (flagged, or of a raytracing-class list): its program-table slot and its
        bytes as read, its secondary records."""
        objects = self.capture.objects
        program = None
        slot = prt.program_table
        if slot is not None:
            program = objects.programs.get(slot.program) if slot.program is not None else None
            got = self.slot(lt, slot.index, slot.va, program, bool(prt.fields) or bool(slot.tail))
            if got is not None:
                self.emit(got)
        pcs = objects.program_command_signatures.get(prt.pcs) if prt.pcs is not None else None
        if pcs is None or not prt.fields:
            return
        self.pcses.setdefault(lt.index, set()).add(id(pcs))
        try:
            layout = self.layouts.pcs(pcs)
        except LayoutError:
            return
        where = {"list_index": lt.index, "primary_index": prt.index}
        self._records(self.plan(layout.primary, pcs, program), [prt.va], where)
        if layout.record_kind is not RecordKind.HYBRID or layout.secondary is None:
            return
        splan = self.plan(layout.secondary, pcs, program)
        for seg in prt.secondary_records.segments:
            if isinstance(seg, BatchSecondaryRecords):  # the secondary records the columns took before handing over
                b, g, r = seg.batch, int(seg.batch.gid[seg.r]), seg.r
                j = np.arange(len(seg), dtype=np.int64)
                vas = b.secondary_base[g][b.group_row[r]] + j.astype(np.uint64) * np.uint64(seg.group.sstride)
                self.emit(self.rows_of(splan, b.secondary_rows[g][b.sec_off[r] + j], vas,
                                       {**where, "secondary_index": j}))
            elif isinstance(seg, list):
                indices = [s.index for s in seg]
                self._records(splan, [s.va for s in seg], {**where, "secondary_index": np.array(indices, np.int64)})

    def _records(self, plan: FieldPlan, vas_list: list[int], where: dict[str, Any]) -> None:
        if not vas_list:
            return
        vas = np.array(vas_list, dtype=np.uint64)
        records = self.gather(vas, plan.size)
        if records is not None:
            self.emit(self.rows_of(plan, records, vas, where))

    # -- ExecuteIndirect ----------------------------------------------------------------------------------------

    def take_commands(self, plan: CommandPlan) -> None:
        executions = plan.ctx.trace.executions
        cplan = self.plan(plan.layout, None, None)
        for seg in executions.segments:
            if isinstance(seg, CommandBatch):
                k = np.arange(len(seg), dtype=np.int64) + seg.first_command
                vas = np.uint64(plan.call.ArgumentBuffer) + k.astype(np.uint64) * np.uint64(plan.stride)
                self.emit(self.rows_of(cplan, seg.rows, vas, {"command_index": k}))
            elif isinstance(seg, list):
                commands: list[Execution] = seg
                self._records(cplan, [e.record_va["command"] for e in commands],
                              {"command_index": np.array([e.command_index for e in commands], dtype=np.int64)})
        executions.release()

    # -- the end of the call ------------------------------------------------------------------------------------

    def finish(self, trace: Trace) -> None:
        for lt in trace.lists:
            self.header(lt, program_inputs=True)
            self._take_records(lt)
            self.header(lt, program_inputs=False, continuation=True)
            self._validation_slots(lt)

    def _validation_slots(self, lt: ListTrace) -> None:
        """The validation-program-table slots the validators of list ``lt`` would be dispatched from (spec
        "Validator invocation order and barriers": the signature-selection validator, the selected signature's
        primary-list validator, each selected PCS's secondary-list validator)."""
        program = self.capture.state.program
        if program is None or program.Type != abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"):
            return
        desc = program.WorkList1
        vpt = desc.ValidationProgramTable
        if desc.pSignatureArray is None or vpt.Table.StartAddress == 0:
            return
        indices = [desc.SignatureSelectionValidationProgramTableIndex]
        wls = self.capture.objects.work_list_signatures.get(lt.signature) if lt.signature is not None else None
        if wls is not None:
            indices.append(wls.ListValidationProgramTableIndex)
            seen = self.pcses.get(lt.index, set())
            raytracing = lt.executable_class == ExecutableClass.RAYTRACING.value
            for pcs in wls.pProgramCommandSignatures:
                if id(pcs) not in seen:
                    continue
                try:
                    hybrid = self.layouts.pcs(pcs).record_kind is RecordKind.HYBRID
                except LayoutError:
                    continue
                if not raytracing or hybrid:  # rule 27: raytracing-class hybrid records only
                    indices.append(pcs.RecordValidationProgramTableIndex)
        plan = self._plan(VALIDATION_TABLE, [("ProgramIdentifier", 0, IDENTIFIER, None)], _IDENTIFIER_SIZE)
        for index in dict.fromkeys(i for i in indices if i and i < vpt.SlotCount):
            va = vpt.Table.StartAddress + index * vpt.Table.StrideInBytes
            if va in self.slots:
                continue
            self.slots.add(va)
            self._records(plan, [va], {"list_index": lt.index, "slot_index": index})

    def table_findings(self) -> list[Finding]:
        out = []
        for r, offset, code, other in self.listed.overlaps:
            va = int(self.regions.bases[r]) + offset
            if other < 0:  # fields that overlap
                at = int(self.regions.bases[r]) + (-1 - other)
                message = (f"region {self.region_names[r]!r} +0x{offset:x}: the reference read at 0x{va:x} overlaps "
                           f"the one read at 0x{at:x}")
            else:
                message = (f"region {self.region_names[r]!r} +0x{offset:x}: 0x{va:x} is read as {_code_name(code)} "
                           f"and as {_code_name(other)}")
            out.append(Finding("reference-overlap", "References by value", message + ": no rewrite is right for "
                               "both readings", va=va))
        return out


def _stable_order(values: np.ndarray) -> np.ndarray:
    """The order that sorts ``values``, equal ones kept in the order they come (the first reading leads)."""
    return np.argsort(values, kind=_STABLE)


_STABLE: Final = "stable"


def constant(value: int, n: int, dtype: Any) -> np.ndarray:
    """``n`` times ``value``, read-only and without the memory (a column every row of a block shares): one element
    at stride 0 (what ``np.broadcast_to`` makes, at half its cost; a chunk makes a dozen)."""
    one = np.array([value], dtype=dtype)
    out = np.ndarray((n,), dtype=one.dtype, buffer=one, strides=(0,))
    out.flags.writeable = False
    return out


def plan_values(plan: FieldPlan, records: np.ndarray) -> np.ndarray:
    """The 8-byte references' values of records (a uint8 matrix of whole records), one row per record."""
    values = np.empty((len(records), len(plan.offsets)), dtype=np.uint64)
    for k, off in enumerate(plan.offsets.tolist()):
        values[:, k] = records[:, off:off + 8].view("<u8")[:, 0]
    return values


def plan_key(layout: RecordLayout, pcs: ProgramCommandSignature | None,
             program: Program | None) -> tuple[int, tuple[str | None, ...]]:
    """What makes two plans of ``layout`` the same: the layout, and the heaps its descriptor handles address as
    ``program`` uses it (:meth:`Collector.plan` keeps one plan per key)."""
    refs = record_references(layout)
    return id(layout), tuple(_field_heap(r.field, pcs, program) if r.kind == HANDLE else None for r in refs)


def _field_heap(f: LayoutField, pcs: ProgramCommandSignature | None, program: Program | None) -> str:
    """The heap type a descriptor-table field's handle addresses: its root parameter's (spec "_DESCRIPTOR_TABLE"),
    from the local root signature for a local argument, the inline parameter for an _INLINE_ROOT_PARAMETER, the
    global root signature otherwise."""
    param: RootParameter1 | None = None
    lrs = program.LocalRootSignature if program is not None else None
    if f.role == "local" and lrs is not None and f.parameter is not None and f.parameter < len(lrs.pParameters):
        param = lrs.pParameters[f.parameter]
    elif f.arg is not None and pcs is not None and f.arg < len(pcs.pArgumentDescs):
        args = pcs.pArgumentDescs
        a = args[f.arg]
        if a.type_name == "INLINE_ROOT_PARAMETER":
            param = a.InlineRootParameter.RootParameter
        else:
            p = a.root_parameter_index
            if p is not None and a.binding_name == "LOCAL_ROOT_SIGNATURE":
                slots = inline_local_slots(args)
                if slots and p < len(slots):  # the implicit path: a slot of the synthesized local root signature
                    param = args[slots[p][0]].InlineRootParameter.RootParameter
                elif lrs is not None and p < len(lrs.pParameters):
                    param = lrs.pParameters[p]
            elif p is not None and pcs.pGlobalRootSignature is not None and p < len(pcs.pGlobalRootSignature.pParameters):
                param = pcs.pGlobalRootSignature.pParameters[p]
    return table_heap_type(param)
