"""The trace's executions as a table: one column model for every segment of the trace.

A segment of ``Trace.executions`` (a run of objects the reference walk made, a work-list batch, an ExecuteIndirect
command batch) says its own rows as groups (:meth:`ExecutionSegment.groups`): executions that resolve alike, each
group with the first execution it resolves like (an :class:`~d3d12wl.executor.trace.Execution`) and the values its
rows take of their own (:class:`GroupValues`: their indices and record VAs, the bytes of the records they read, the
system pointers and the incrementing constant).  One builder (:func:`group_columns`) makes a group's columns from
its first execution, every value read from a record, a system pointer or the counter taken from the group's arrays
instead; the objects the reference walk made are groups of one execution and nothing of their own.  So every
segment's columns, and the table's schema, come from the same code.

:func:`execution_columns` builds the table (:class:`ExecutionColumns`) of a range of executions;
:func:`execution_runs` walks the trace in runs of rows (what the streamed writers take, each with its groups and
table); :func:`execution_schema` gives the columns without building the table.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Callable, Collection, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from d3d12wl.executor.arrays import CHUNK, packed_dtype
from d3d12wl.executor.trace import Execution, RootArgumentValue, ValueSource, slot_members
from d3d12wl.output.table import NameTable
from d3d12wl.records.layout import RecordLayout

__all__ = ["FIELD_NAMES", "FIELD_SUFFIX", "IA_PREFIX", "INDEX_COLUMNS", "NAME_COLUMNS", "RECORD_VA_KEYS",
           "ROOT_PREFIX", "SOURCE_NAMES", "TRIGGER_FIELD", "TRIGGER_PREFIX", "VA_COLUMNS", "ExecutionColumns",
           "ExecutionGroups", "ExecutionRun", "ExecutionSegment", "GroupValues", "RecordBytes", "execution_columns",
           "execution_runs", "execution_schema", "group_columns", "ia_tag", "is_field_column", "member_columns",
           "new_codes", "root_tag", "run_table", "segment_columns", "segment_execution", "segment_groups"]


#: per-execution integer columns of :func:`execution_columns` (int64; -1 where absent, and ``absent`` says so)
INDEX_COLUMNS = ("index", "list_index", "signature_index", "primary_index", "secondary_index", "command_index",
                 "invocation", "counter")
#: the VA of each execution's records (uint64; 0 where absent)
VA_COLUMNS = ("primary_va", "secondary_va", "program_table_slot_va", "command_va")
#: the ``Execution.record_va`` key of each of :data:`VA_COLUMNS`
RECORD_VA_KEYS = dict(zip(VA_COLUMNS, ("primary", "secondary", "program_table_slot", "command"), strict=True))
#: categorical columns: an int32 code per execution into ``ExecutionColumns.names[column]`` (-1: absent)
NAME_COLUMNS = ("executable_class", "program", "pcs", "trigger")
#: the name table every ``.source`` column's codes index (ValueSource kinds)
SOURCE_NAMES = "source"
#: the name table every ``.field`` column's codes index (record members, ``ValueSource.field``)
FIELD_NAMES = "field"
#: a ``.field`` column: the record member (its layout name) that supplied the value of the column it ends, for
#: every value some execution takes from a record (a root argument, a constants DWORD, an IA binding)
FIELD_SUFFIX = ".field"
#: a trigger member's column is ``trigger.<member>`` (int64), in struct order, trigger types by enum value
TRIGGER_PREFIX = "trigger."
#: the record member the trigger's payload came from (not ``trigger.field``: every ``trigger.`` column is a member
#: of the payload)
TRIGGER_FIELD = "trigger_field"


def is_field_column(name: str) -> bool:
    """Whether column ``name`` holds record members (codes into ``names["field"]``)."""
    return name == TRIGGER_FIELD or name.endswith(FIELD_SUFFIX)


#: a constants slot's ``.field`` value: members, each with the DWORDs it supplied where it did not supply all
_SLOT_MEMBER = re.compile(r"(?P<name>[^\s\[]+)(?:\[(?P<first>\d+):(?P<end>\d+)\])?")


def member_columns(frame: Any, member: str) -> dict[str, Any]:
    """The values record member ``member`` supplied, found by the execution table's naming rule: a value some
    execution takes from a record is in a column named by its binding (``root.G1``, ``root.L0[2]``,
    ``ia.vb0.BufferLocation``, ``trigger.InstanceCount``), and the column's ``.field`` (the trigger's
    ``trigger_field``; a constants slot's ``root.L0.field``, after its DWORDs; an IA binding's ``ia.vb0.field``)
    names, row by row, the member (:attr:`d3d12wl.records.layout.LayoutField.name`: the argument's ``Name``, or
    ``arg0_ShaderResourceView``) that supplied it.  So ``ObjectId``'s values are those of ``root.G1`` where
    ``root.G1.field`` is ``ObjectId``.

    ``frame``: the table as a ``pandas.DataFrame`` with names as strings (``pandas.read_parquet`` or
    ``read_csv`` of ``exec --format parquet|csv``).  Returns the member's columns by the name the packers and
    ``decode`` spell them: ``ObjectId`` for a value, ``Draw.InstanceCount`` for each member of a struct payload
    (the trigger's, an IA view's), ``Tint[0]`` .. ``Tint[3]`` for the DWORDs of a constants member; each a
    ``pandas.Series`` of every row, missing (NaN / None) where the member supplied nothing.  Empty where no row's
    value came from it."""
    names = list(frame.columns)
    found: dict[str, Any] = {}

    def add(name: str, values: Any) -> None:
        found[name] = values if name not in found else found[name].combine_first(values)

    for c in names:
        if c == TRIGGER_FIELD:
            base, members = "trigger", [k for k in names if k.startswith(TRIGGER_PREFIX)]
        elif c.endswith(FIELD_SUFFIX):
            base = c[: -len(FIELD_SUFFIX)]
            members = [k for k in names if k.startswith(base + ".") and not is_field_column(k)
                       and not k.endswith((".source", ".va"))]
        else:
            continue
        dwords = sorted((int(k[len(base) + 1:-1]), k) for k in names if k.startswith(base + "[") and k.endswith("]"))
        if dwords:  # a constants slot: its members and their DWORDs
            for text in frame[c].dropna().unique():
                for m in _SLOT_MEMBER.finditer(str(text)):
                    if m.group("name") != member:
                        continue
                    first = int(m.group("first") or 0)
                    end = int(m.group("end") or len(dwords))
                    mask = frame[c] == text
                    for d, column in dwords[first:end]:
                        add(f"{member}[{d - first}]", frame[column].where(mask))
            continue
        mask = frame[c] == member
        if not mask.any():
            continue
        if base in names and c != TRIGGER_FIELD:  # (``trigger`` is the trigger's type, not a value)
            add(member, frame[base].where(mask))
        for k in members:
            values = frame[k].where(mask)
            if values.notna().any():  # (another trigger type's member: not this one's)
                add(f"{member}.{k[len(base) + 1:]}", values)
    return found


@dataclass
class ExecutionColumns:
    """A trace's executions as a struct of numpy arrays (all of one length), in this order: :data:`INDEX_COLUMNS`
    (int64), :data:`VA_COLUMNS` (uint64), :data:`NAME_COLUMNS` (int32 codes into ``names``), ``trigger.<member>``
    (int64) for every member of every trigger payload in struct order, every resolved root argument
    (:data:`ROOT_PREFIX`: ``root.G1`` / ``root.L0``, the VA or descriptor handle, uint64, with ``.source``, the
    ValueSource kind as a code into ``names["source"]``, and ``.va``, the byte it was read from; or ``root.G0[3]``
    per DWORD of a constants slot, int64; the DWORDs' sources are in the Execution objects only) and every IA
    binding (:data:`IA_PREFIX`: ``ia.vb<slot>.<member>`` by slot, then ``ia.ib.<member>``, members in struct
    order, with ``.source`` and ``.va``).  Wherever some execution takes a value from a record, its column has a
    ``.field`` column after it and its ``.source`` / ``.va`` (:data:`FIELD_SUFFIX`: ``root.G1.field``,
    ``ia.vb0.field``; a constants slot's ``root.L0.field`` after its DWORDs; the trigger's is
    :data:`TRIGGER_FIELD`, after its members): the record member that supplied it (``ValueSource.field``, the
    layout's name; for a constants slot :func:`~d3d12wl.executor.trace.slot_members`, ``Tint`` or ``Scale[0:2]
    Bias[2:4]``) as a code into ``names["field"]``, absent where the value came from no record.

    ``absent[name]`` (only for a column some row lacks) is True where the execution has no such value (no
    secondary record, no incrementing constant, a root parameter nothing set, another trigger type's member, ...);
    the column holds -1 (0 for uint64 columns) there, which is never to be read as a value."""

    columns: dict[str, np.ndarray]
    names: dict[str, list[str]]
    absent: dict[str, np.ndarray] = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.columns["index"])

    def is_absent(self, name: str) -> np.ndarray:
        """Per row, whether column ``name`` has no value there (all False for a column no row lacks)."""
        got = self.absent.get(name)
        return np.zeros(len(self), dtype=bool) if got is None else got

    def take(self, rows: np.ndarray) -> ExecutionColumns:
        """Rows ``rows`` of the table."""
        return ExecutionColumns({k: v[rows] for k, v in self.columns.items()}, self.names,
                                {k: v[rows] for k, v in self.absent.items()})



@dataclass
class _Part:
    """The columns of one run of executions (one segment's slice) and, per column, where its rows are absent (a
    bool: in every row or in none; or per row); ``triggers``: trigger type -> its members in struct order."""

    n: int
    cols: dict[str, np.ndarray] = field(default_factory=dict)
    absent: dict[str, np.ndarray | bool] = field(default_factory=dict)
    triggers: dict[str, list[str]] = field(default_factory=dict)

    def gone(self, name: str) -> np.ndarray | bool:
        """Where column ``name`` is absent: a bool (every row or none) or per row."""
        return self.absent.get(name, False) if name in self.cols else True


_I64, _U64, _I32 = np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.int32)


def _dtype_of(name: str) -> np.dtype:
    if name in VA_COLUMNS:
        return np.dtype(np.uint64)
    if name in NAME_COLUMNS or name.endswith(".source") or is_field_column(name):
        return np.dtype(np.int32)
    if name.startswith((ROOT_PREFIX, IA_PREFIX)):
        return _root_dtype(name)
    return np.dtype(np.int64)


def _key_order(parts: list[_Part]) -> list[str]:
    """The table's columns in their documented order (see :class:`ExecutionColumns`)."""
    from d3d12wl import abi

    keys = [*INDEX_COLUMNS, *VA_COLUMNS, *NAME_COLUMNS]
    types: dict[str, list[str]] = {}
    for p in parts:
        for t, members in p.triggers.items():
            types.setdefault(t, members)
    seen: set[str] = set()

    def enum_order(t: str) -> tuple[int, str]:
        try:
            return abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", t), t
        except Exception:  # noqa: BLE001 - a trigger type the headers do not name: after the named ones
            return 1 << 32, t

    for t in sorted(types, key=enum_order):
        for m in types[t]:
            if m not in seen and any(f"{TRIGGER_PREFIX}{m}" in p.cols for p in parts):
                seen.add(m)
                keys.append(f"{TRIGGER_PREFIX}{m}")
    if any(TRIGGER_FIELD in p.cols for p in parts):
        keys.append(TRIGGER_FIELD)
    keys += sorted({k for p in parts for k in p.cols if k.startswith(ROOT_PREFIX)}, key=_root_order)
    ia: dict[str, int] = {}
    for p in parts:
        for k in p.cols:
            if k.startswith(IA_PREFIX):
                ia.setdefault(k, len(ia))
    keys += sorted(ia, key=lambda k: (_ia_slot_order(k), _suffix_rank(k), ia[k]))
    return keys


#: the order of a value's own columns: the value, its ``.source``, ``.va``, ``.field``
_SUFFIXES = (".source", ".va", FIELD_SUFFIX)


def _suffix_rank(key: str) -> int:
    return next((i + 1 for i, suffix in enumerate(_SUFFIXES) if key.endswith(suffix)), 0)


def new_codes() -> dict[str, NameTable]:
    """The name tables of one table being built: one per :data:`NAME_COLUMNS` column, the sources', the fields'."""
    return {name: NameTable() for name in (*NAME_COLUMNS, SOURCE_NAMES, FIELD_NAMES)}


# -- the segments' rows as groups ------------------------------------------------------------------------------


class RecordBytes:
    """The records the executions of a group read, one per execution: their layout, their bytes (a uint8 matrix,
    gathered when first read) and their VAs."""

    def __init__(self, layout: RecordLayout, rows: Callable[[], np.ndarray], vas: np.ndarray) -> None:
        self.layout, self._rows, self.vas = layout, rows, vas
        self._got: np.ndarray | None = None

    @property
    def rows(self) -> np.ndarray:
        if self._got is None:
            self._got = self._rows()
        return self._got


#: a column some rows take of their own: its values and where they are absent (a bool for every row, or per row)
Column = tuple[np.ndarray, "np.ndarray | bool"]


@dataclass
class GroupValues:
    """What each of the ``n`` executions of a group takes of its own (everything else is the group's first
    execution's): ``columns``, index and VA columns (:data:`INDEX_COLUMNS`, :data:`VA_COLUMNS`); ``records``, by
    ValueSource kind, the record each execution reads (a value the first takes from that record, each takes from
    its own); ``system``, system pointer values by argument type (``PRIMARY_RECORD_POINTER``); ``counter``, the
    incrementing constant."""

    n: int
    columns: dict[str, Column] = field(default_factory=dict)
    records: dict[str, RecordBytes] = field(default_factory=dict)
    system: dict[str, np.ndarray] = field(default_factory=dict)
    counter: np.ndarray | None = None


@dataclass
class ExecutionGroups:
    """``n`` executions of a segment as groups of executions that resolve alike: ``which`` (per row, its group),
    ``firsts`` (per group, the execution every row of it resolves like), the index and VA columns given for every
    row at once (``shared_names``, made by ``make_shared`` when first read: :attr:`shared`) and ``values(g,
    rows)``, the :class:`GroupValues` of group ``g`` (whose rows are ``rows``).  What is made when first read is
    made on the thread that builds the table (:func:`execution_runs`' ``ahead``)."""

    n: int
    which: np.ndarray
    firsts: list[Execution]
    shared_names: tuple[str, ...] = ()
    make_shared: Callable[[], dict[str, Column]] | None = None
    values: Callable[[int, np.ndarray], GroupValues] | None = None
    _shared: dict[str, Column] | None = field(default=None, repr=False)

    @property
    def shared(self) -> dict[str, Column]:
        """The columns given for every row at once (:attr:`shared_names`), by name."""
        if self._shared is None:
            self._shared = {} if self.make_shared is None else self.make_shared()
        return self._shared

    def rows(self) -> list[np.ndarray]:
        """Per group, its rows (ascending)."""
        if len(self.firsts) == 1:
            return [np.arange(self.n)]
        if self.objects:
            return [np.array([i]) for i in range(self.n)]
        return [np.flatnonzero(self.which == g) for g in range(len(self.firsts))]

    def first_rows(self) -> list[int]:
        """Per group, its first row."""
        if self.objects:
            return list(range(self.n))
        if len(self.firsts) <= 64:  # (a pass per group: cheaper than sorting the rows, for a few groups)
            return [int(np.argmax(self.which == g)) for g in range(len(self.firsts))]
        return np.unique(self.which, return_index=True)[1].tolist()

    @property
    def objects(self) -> bool:
        """Whether these are executions the reference walk made: a group of one each, nothing of their own."""
        return self.values is None

    def group_values(self, g: int, rows: np.ndarray) -> GroupValues:
        return GroupValues(len(rows)) if self.values is None else self.values(g, rows)


class ExecutionSegment(Protocol):
    """A segment of ``Trace.executions`` that holds its executions as columns (a work-list batch, an
    ExecuteIndirect command batch): a :class:`~d3d12wl.executor.trace.Batch` that says its rows as groups."""

    def __len__(self) -> int: ...

    def item(self, i: int) -> Execution: ...

    def groups(self, a: int, b: int) -> ExecutionGroups: ...


def segment_groups(seg: Any, a: int, b: int) -> ExecutionGroups:
    """Executions ``a .. b - 1`` of a segment as groups: a columnar segment's own (:class:`ExecutionSegment`), or
    for objects (a list, or a batch that makes objects) one group per execution, with nothing of its own."""
    groups = getattr(seg, "groups", None)
    if groups is not None:
        got: ExecutionGroups = groups(a, b)
        return got
    execs = seg[a:b] if isinstance(seg, list) else list(seg.items(a, b))
    return ExecutionGroups(b - a, np.arange(b - a), execs)


def segment_execution(seg: Any, k: int) -> Execution:
    """Execution ``k`` of a segment (made on demand from a batch's columns)."""
    got: Execution = seg[k] if isinstance(seg, list) else seg.item(k)
    return got


# -- the one builder: a group's columns from its first execution and its values ----------------------------------


class _GroupColumns:
    """The columns of one group of executions (rows ``rows`` of a part): per column a scalar (the same for every
    row) or an array over the group's rows, and whether it is absent (a bool or an array); the trigger's members
    in struct order."""

    def __init__(self, n: int) -> None:
        self.n = n
        self.values: dict[str, Any] = {}
        self.absent: dict[str, Any] = {}
        self.trigger: tuple[str, list[str]] = ("", [])

    def put(self, name: str, value: Any, absent: Any = False) -> None:
        self.values[name] = value
        self.absent[name] = absent


def _payload(rows: np.ndarray, dtype: np.dtype, field_name: str) -> dict[str, np.ndarray]:
    """The int members of one payload field of records ``rows`` (uint8 matrix) read with the record's dtype."""
    values = rows.view(dtype).reshape(-1)[field_name]
    names = values.dtype.names
    if names is None:
        return {}
    return {n: values[n] for n in names if values[n].dtype.kind in "iu" and values[n].ndim == 1}


def group_columns(first: Execution, values: GroupValues, codes: dict[str, NameTable],
                  shared: Collection[str] = ()) -> _GroupColumns:
    """The columns of a group of executions that resolve like ``first``, each taking ``values`` of its own (the
    columns ``shared`` names are given for every row at once, not here)."""
    gc = _GroupColumns(values.n)
    for name in INDEX_COLUMNS:
        if name in shared:
            continue
        got = values.columns.get(name)
        if got is not None:
            gc.put(name, *got)
        elif name == "counter" and values.counter is not None:
            gc.put(name, values.counter)
        else:
            v = getattr(first, name)
            gc.put(name, -1 if v is None else v, v is None)
    for name, key in RECORD_VA_KEYS.items():
        if name in shared:
            continue
        got = values.columns.get(name)
        if got is not None:
            gc.put(name, *got)
        else:
            v = first.record_va.get(key)
            gc.put(name, 0 if v is None else v, v is None)
    for name in NAME_COLUMNS:
        code = codes[name].named(first.trigger.type if name == "trigger" else getattr(first, name))
        gc.put(name, code, code < 0)
    src = first.trigger.source
    hit = values.records.get(src.kind) if src is not None and src.arg is not None else None
    f = hit.layout.arg_field(src.arg) if hit is not None and src is not None and src.arg is not None else None
    payload: dict[str, Any]
    if hit is not None and f is not None:
        payload = _payload(hit.rows, packed_dtype(hit.layout), f.name)
    else:  # (static, program-table or an object's: the first's)
        payload = {k: v for k, v in first.trigger.fields.items() if isinstance(v, int)}
    gc.trigger = (first.trigger.type, list(payload))
    for k, v in payload.items():
        gc.put(f"{TRIGGER_PREFIX}{k}", v)
    _put_field(gc.put, TRIGGER_FIELD, src, codes)
    _root_columns(gc, first, values, codes)
    _ia_columns(gc, first, values, codes)
    return gc


def _combine(part: _Part, which: np.ndarray, rows: list[np.ndarray], groups: list[_GroupColumns]) -> None:
    """The groups' columns into ``part``: row r is of group ``which[r]`` (its row of that group's arrays is its
    position in ``rows[which[r]]``).  A column a group lacks is absent in its rows."""
    names: dict[str, None] = {}
    for g in groups:
        names.update(dict.fromkeys(g.values))
    k = len(groups)
    n = len(which)
    for name in names:
        dtype = _dtype_of(name)
        fill = 0 if dtype.kind == "u" else -1
        if k == 1 and name in groups[0].values:  # one group: its values are the column's
            v, a = groups[0].values[name], groups[0].absent[name]
            if np.ndim(v):  # (a view of the trace's records is copied: a table holds arrays of its own)
                part.cols[name] = np.asarray(v, dtype=dtype) if v.flags.owndata else np.array(v, dtype=dtype)
            else:
                part.cols[name] = np.full(n, fill if v is None else v, dtype=dtype)
            part.absent[name] = np.asarray(a, dtype=bool) if np.ndim(a) else bool(a)
            continue
        scalars = np.full(k, fill, dtype=dtype)
        gone = np.ones(k, dtype=bool)
        values: list[tuple[int, Any]] = []
        masks: list[tuple[int, Any]] = []
        for i, g in enumerate(groups):
            if name not in g.values:
                continue
            v, a = g.values[name], g.absent[name]
            if np.ndim(v):
                values.append((i, v))
            else:
                scalars[i] = fill if v is None else v
            if np.ndim(a):
                masks.append((i, a))
                gone[i] = False
            else:
                gone[i] = bool(a)
        # every row is put once: from its group's scalar (a gather, or one value for all) or its group's array
        if len(values) == k:
            col = np.empty(n, dtype=dtype)
        elif (scalars == scalars[0]).all():
            col = np.full(n, scalars[0], dtype=dtype)
        else:
            col = scalars.take(which)
        for i, v in values:
            col[rows[i]] = v
        part.cols[name] = col
        if not masks and (gone == gone[0]).all():
            part.absent[name] = bool(gone[0])
            continue
        absent = gone.take(which)
        for i, a in masks:
            absent[rows[i]] = a
        part.absent[name] = absent



def segment_columns(groups: ExecutionGroups, codes: dict[str, NameTable]) -> _Part:
    """The columns of a segment's rows, given as groups: each group's by :func:`group_columns`, combined."""
    part = _Part(groups.n)
    for name, (v, a) in groups.shared.items():
        part.cols[name] = v
        part.absent[name] = a
    rows = groups.rows()
    built = []
    for g, first in enumerate(groups.firsts):
        gc = group_columns(first, groups.group_values(g, rows[g]), codes, groups.shared_names)
        part.triggers.setdefault(*gc.trigger)
        built.append(gc)
    if groups.objects:
        _combine_rows(part, built)
    else:
        _combine(part, groups.which, rows, built)
    return part


def _combine_rows(part: _Part, groups: list[_GroupColumns]) -> None:
    """Groups of one row each (the objects the reference walk made, every value a scalar) into ``part``, a column
    at a time: row r is group r's.  A column a group lacks is absent in its row."""
    names: dict[str, None] = {}
    for g in groups:
        names.update(dict.fromkeys(g.values))
    for name in names:
        dtype = _dtype_of(name)
        fill = 0 if dtype.kind == "u" else -1
        values = [g.values.get(name, fill) for g in groups]
        part.cols[name] = np.array([fill if v is None else v for v in values], dtype=dtype)
        gone = np.array([bool(g.absent.get(name, True)) for g in groups], dtype=bool)
        part.absent[name] = gone if gone.any() and not gone.all() else bool(gone[0]) if len(gone) else False


def execution_columns(executions: Any, start: int = 0, stop: int | None = None) -> ExecutionColumns:
    """Executions ``start .. stop - 1`` of ``executions`` (a trace's :class:`~d3d12wl.executor.trace.LazyList`)
    as columns, built from each segment's groups (objects only for executions the reference walk made)."""
    stop = len(executions) if stop is None else min(stop, len(executions))
    codes = new_codes()
    parts: list[_Part] = []
    pos = 0
    for seg in executions.segments:
        a, b = max(start - pos, 0), min(stop - pos, len(seg))
        if a < b:
            parts.append(segment_columns(segment_groups(seg, a, b), codes))
        pos += len(seg)
        if pos >= stop:
            break
    return _table(parts, codes)


def _table(parts: list[_Part], codes: dict[str, NameTable]) -> ExecutionColumns:
    out: dict[str, np.ndarray] = {}
    absent: dict[str, np.ndarray] = {}
    total = sum(p.n for p in parts)
    for k in _key_order(parts):
        dtype = _dtype_of(k)
        fill = 0 if dtype.kind == "u" else -1
        if not parts:
            out[k] = np.zeros(0, dtype=dtype)
            continue
        gones = [p.gone(k) for p in parts]
        if len(parts) == 1 and k in parts[0].cols:
            out[k] = parts[0].cols[k].astype(dtype, copy=False)
        else:  # (one array, each part's rows put in place)
            col = out[k] = np.empty(total, dtype=dtype)
            pos = 0
            for p in parts:
                col[pos:pos + p.n] = p.cols[k] if k in p.cols else fill
                pos += p.n
        if all(not isinstance(g, np.ndarray) for g in gones):
            if any(gones):
                absent[k] = np.full(total, True) if all(gones) else np.repeat(np.array(gones, dtype=bool),
                                                                               [p.n for p in parts])
        elif len(parts) == 1:
            if gones[0].any():  # type: ignore[union-attr]
                absent[k] = gones[0]  # type: ignore[assignment]
        else:
            gone = np.concatenate([np.broadcast_to(g, p.n) for g, p in zip(gones, parts, strict=True)])
            if gone.any():
                absent[k] = gone
    names: dict[str, list[str]] = {}
    for name, c in codes.items():  # codes in name order, whatever order the segments met them in
        order = sorted(range(len(c.names)), key=c.names.__getitem__)
        names[name] = [c.names[i] for i in order]
        if order == list(range(len(order))):
            continue  # (met in name order: the codes are the table's)
        remap = np.empty(len(order) + 1, dtype=np.int32)
        remap[-1] = -1
        remap[np.array(order, dtype=np.intp)] = np.arange(len(order), dtype=np.int32)
        coded = {SOURCE_NAMES: lambda k: k.endswith(".source"), FIELD_NAMES: is_field_column}.get(name)
        for k in ([name] if coded is None else [k for k in out if coded(k)]):
            out[k] = remap.take(out[k])
    return ExecutionColumns(out, names, absent)



# -- root arguments as columns --------------------------------------------------------------------------------------

#: a root argument's columns are ``root.<G|L><parameter>`` (a VA / handle, uint64) with ``.source`` (its
#: ValueSource kind, an int32 code into ``names["source"]``) and ``.va`` (the byte it was read from), or for a
#: constants slot ``root.<G|L><parameter>[<dword>]`` (int64); absent where nothing set it
ROOT_PREFIX = "root."

#: ``_root_columns``' look-up of a record-sourced value: (values, VAs) of the field ``src`` names, or None
FieldValues = Any


def _root_order(key: str) -> tuple[str, int, int, int]:
    """root.G2, root.G2.source, root.G2.va, root.G2.field, root.G10[0], root.G10[1], root.G10.field ... : by
    binding, parameter, DWORD, then the value before its own columns (:func:`_suffix_rank`; a constants slot's
    ``.field`` after its DWORDs)."""
    tag = key[len(ROOT_PREFIX):]
    head = tag.split(".", 1)[0].split("[", 1)[0]
    dword = int(tag.split("[", 1)[1].rstrip("]")) if "[" in tag else -1
    rank = _suffix_rank(key)
    return head[0], int(head[1:]), 1 << 32 if rank == len(_SUFFIXES) and dword < 0 else dword, rank


def root_tag(binding: str, parameter: int) -> str:
    """The column of a root argument: ``root.G1`` (global parameter 1), ``root.L0`` (local parameter 0)."""
    return f"{ROOT_PREFIX}{'G' if binding == 'global' else 'L'}{parameter}"


def _root_dtype(key: str) -> np.dtype:
    if key.endswith((".source", FIELD_SUFFIX)):
        return _I32
    if key.endswith("]"):
        return _I64
    return _U64



def _put_field(put: Callable[..., None], name: str, src: ValueSource | str | None,
               codes: dict[str, NameTable]) -> None:
    """Column ``name`` (a ``.field``): the code of the record member ``src`` names (a source, or the members of a
    constants slot), where it names one."""
    member = src.field if isinstance(src, ValueSource) else src
    if member is not None:
        put(name, codes[FIELD_NAMES].named(member))


def _slot_members(ra: RootArgumentValue) -> str | None:
    """A constants slot's members (:func:`~d3d12wl.executor.trace.slot_members`): what its ``root.<tag>.field``
    column holds."""
    return slot_members(((s.field, s.first_dword, s.num_dwords) for s in ra.sources), len(ra.values or []))


def _field_values(values: GroupValues, src: ValueSource) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The values (and VAs) of the value ``src`` supplied, per row of a group, where each row takes its own: a
    field of the record it reads, a system pointer, the incrementing constant; None: the first's for every row."""
    if src.kind == "system":
        name = src.origin.removeprefix("system: ")
        if name == "incrementing constant":
            return None if values.counter is None else (values.counter, None)
        got = values.system.get(name)
        return None if got is None else (got, None)
    hit = values.records.get(src.kind)
    if hit is None or src.arg is None:
        return None
    f = hit.layout.arg_field(src.arg)
    if f is None:
        return None
    column = hit.rows.view(packed_dtype(hit.layout)).reshape(-1)[f.name]
    if column.dtype.names is not None:  # a descriptor handle: its ptr
        if "ptr" not in column.dtype.names:
            return None
        column = column["ptr"]
    return column, hit.vas + np.uint64(f.offset)


def _root_columns(part: _GroupColumns, first: Execution, values: GroupValues, codes: dict[str, NameTable]) -> None:
    """The root-argument columns of the executions of ``part`` that resolve like ``first``: values from records,
    system pointers and the incrementing constant from ``values`` where the group gives them, everything else
    ``first``'s."""
    for ra in first.root_arguments:
        if ra.kind == "static_sampler":
            continue
        tag = root_tag(ra.binding, ra.parameter)
        if ra.kind == "constants":
            for d, v in enumerate(ra.values or []):
                part.put(f"{tag}[{d}]", -1 if v is None else v, v is None)
            _put_field(part.put, f"{tag}{FIELD_SUFFIX}", _slot_members(ra), codes)
            for s in ra.sources:
                got = _field_values(values, s)
                if got is None or s.first_dword is None or s.num_dwords is None:
                    continue
                column = got[0]
                for e in range(s.num_dwords):
                    part.put(f"{tag}[{s.first_dword + e}]", column[:, e] if column.ndim == 2 else column)
            continue
        src = ra.sources[0] if ra.sources else None
        got = _field_values(values, src) if src is not None else None
        if got is not None:
            part.put(tag, got[0])
        else:
            part.put(tag, ra.value or 0, ra.value is None)
        part.put(f"{tag}.source", codes[SOURCE_NAMES].named(src.kind) if src else -1, src is None)
        if got is not None and got[1] is not None:
            part.put(f"{tag}.va", got[1])
        else:
            va = src.va if src is not None else None
            part.put(f"{tag}.va", va or 0, va is None)
        _put_field(part.put, f"{tag}{FIELD_SUFFIX}", src, codes)


# -- IA bindings as columns ---------------------------------------------------------------------------------------

#: an IA binding's columns: ``ia.vb<slot>.<member>`` / ``ia.ib.<member>`` (uint64) with ``.source`` (its
#: ValueSource kind, a code into ``names["source"]``) and ``.va`` (the byte it was read from); absent where
#: nothing is bound
IA_PREFIX = "ia."


def ia_tag(slot: int | None) -> str:
    """The columns' prefix of an IA binding: ``ia.vb3`` (vertex buffer slot 3), ``ia.ib`` (the index buffer)."""
    return f"{IA_PREFIX}{'ib' if slot is None else f'vb{slot}'}"


def _ia_slot_order(key: str) -> int:
    """``ia.vb3.*`` -> 3; ``ia.ib.*`` after every vertex buffer slot."""
    tag = key[len(IA_PREFIX):].split(".", 1)[0]
    return int(tag[2:]) if tag.startswith("vb") else 1 << 32



def _ia_columns(part: _GroupColumns, first: Execution, values: GroupValues, codes: dict[str, NameTable]) -> None:
    """The IA columns of the executions of ``part`` that resolve like ``first``: record-sourced bindings from the
    records' bytes, the rest (command-list state) ``first``'s."""
    for b in first.ia:
        tag, src = ia_tag(b.slot), b.source
        hit = values.records.get(src.kind) if src.arg is not None else None
        f = hit.layout.arg_field(src.arg) if hit is not None and src.arg is not None else None
        if hit is not None and f is not None:
            column = hit.rows.view(packed_dtype(hit.layout)).reshape(-1)[f.name]
            for member in column.dtype.names or ():
                part.put(f"{tag}.{member}", column[member])
            part.put(f"{tag}.va", hit.vas + np.uint64(f.offset))
        else:
            for member, value in (b.fields or {}).items():
                if isinstance(value, int):
                    part.put(f"{tag}.{member}", value)
            part.put(f"{tag}.va", src.va or 0, src.va is None)
        part.put(f"{tag}.source", codes[SOURCE_NAMES].named(src.kind))
        _put_field(part.put, f"{tag}{FIELD_SUFFIX}", src, codes)


# -- the trace in runs of rows (what the streamed writers walk) -------------------------------------------------


class ExecutionRun:
    """Executions ``start .. start + n - 1`` of a trace, one segment's slice, as the streamed writers take them:
    ``groups`` (:class:`ExecutionGroups`: per row its group, per group the execution its rows resolve like) and
    ``table`` (:func:`execution_columns` of the run; of a run of objects, made when first read)."""

    def __init__(self, start: int, n: int, groups: ExecutionGroups, table: ExecutionColumns | None = None,
                 segment: Any = None, offset: int = 0) -> None:
        self.start, self.n, self.groups, self.segment, self.offset = start, n, groups, segment, offset
        self._table = table

    @property
    def table(self) -> ExecutionColumns:
        if self._table is None:
            self._table = run_table(self.groups)
        return self._table

    @property
    def group(self) -> np.ndarray:
        """Per row, its group."""
        return self.groups.which

    @property
    def firsts(self) -> list[Execution]:
        """Per group, the execution every row of it resolves like."""
        return self.groups.firsts

    @property
    def objects(self) -> list[Execution] | None:
        """The run's executions where the reference walk made them (a run of objects), else None."""
        return self.groups.firsts if self.groups.objects else None

    def execution(self, row: int) -> Execution:
        """The object of row ``row`` (made on demand from a batch's columns)."""
        return segment_execution(self.segment, self.offset + row)


def execution_runs(executions: Any, start: int = 0, stop: int | None = None, rows: int = CHUNK, *,
                   ahead: int = 0) -> Iterator[ExecutionRun]:
    """Executions ``start .. stop - 1`` of ``executions`` in runs of at most ``rows``, each one segment's slice.
    ``ahead``: the tables of up to that many of a columnar segment's next runs are built on threads of their own
    while the caller reads the runs before them (numpy work over the batch's columns, which lets go of the GIL for
    much of its time; each run's table is its own, the batch only read): the same runs, in the same order."""
    pool = ThreadPoolExecutor(ahead, thread_name_prefix="d3d12wl-runs") if ahead > 0 else None
    pending: deque[Any] = deque()  # runs made, or (future of the table, the run's other members)
    try:
        for item in _runs(executions, start, stop, rows, pool):
            pending.append(item)
            while pending and (len(pending) > ahead or isinstance(pending[0], ExecutionRun)):
                yield _made(pending.popleft())
        while pending:
            yield _made(pending.popleft())
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _made(item: Any) -> ExecutionRun:
    if isinstance(item, ExecutionRun):
        return item
    future, members = item
    return ExecutionRun(table=future.result(), **members)


def _runs(executions: Any, start: int, stop: int | None, rows: int, pool: ThreadPoolExecutor | None) -> Iterator[
        Any]:
    """:func:`execution_runs`' runs, or where ``pool`` builds a columnar segment's run's table, the future of its
    table and the run's other members (its groups made here: a batch caches its groups' first executions)."""
    stop = len(executions) if stop is None else min(stop, len(executions))
    pos = 0
    for seg in executions.segments:
        a, b = max(start - pos, 0), min(stop - pos, len(seg))
        for lo in range(a, b, rows):
            hi = min(b, lo + rows)
            groups = segment_groups(seg, lo, hi)
            members = {"start": pos + lo, "n": hi - lo, "groups": groups, "segment": seg, "offset": lo}
            if groups.objects:  # (its table made if it is read: a text output writes the objects)
                yield ExecutionRun(**members)
            elif pool is not None:
                yield pool.submit(run_table, groups), members
            else:
                yield ExecutionRun(table=run_table(groups), **members)
        pos += len(seg)
        if pos >= stop:
            break


def run_table(groups: ExecutionGroups) -> ExecutionColumns:
    """The table of one run of a segment's rows."""
    codes = new_codes()
    return _table([segment_columns(groups, codes)], codes)


def execution_schema(executions: Any) -> tuple[list[str], set[str]]:
    """The columns :func:`execution_columns` gives for all of ``executions``, in order, and those some execution
    has no value in (nullable), without building the table: the first row of every group of every segment (every
    row of a group has the columns of its first, absent where it is absent)."""
    codes = new_codes()
    parts: list[_Part] = []
    for seg in executions.segments:
        groups = segment_groups(seg, 0, len(seg))
        if groups.objects:  # (groups of one: the rows themselves)
            parts.append(segment_columns(groups, codes))
            continue
        for k in groups.first_rows():
            parts.append(segment_columns(segment_groups(seg, k, k + 1), codes))
    keys = _key_order(parts)
    nullable = {k for k in keys if any(np.any(p.gone(k)) for p in parts)}
    return keys, nullable
