"""The one column model every table output is written from: columns described by :class:`ColumnSpec`, rows read
in chunks of numpy columns (:class:`TableChunk`), names coded through :class:`NameTable`.

A table (the execution table, the verdict table, the table of references by value, a decoded record table) is its
columns and its chunks: each encoder (:mod:`~d3d12wl.output.csv_table`, :mod:`~d3d12wl.output.json_table`,
:mod:`~d3d12wl.output.npz_table`, :mod:`~d3d12wl.output.parquet_table`) writes any table from them, one encoding
per kind of value (design.md, "What users read is part of the product's speed"):

=========== ============================= =========================== ================= ==========================
kind        values (numpy)                CSV                         JSON              npz / Parquet
=========== ============================= =========================== ================= ==========================
``int``     int64 (or the column's dtype) signed decimal              number            int64 (the dtype)
``uint``    uint64                        unsigned decimal            number            uint64
``va``      uint64                        ``0x`` hexadecimal          number            uint64
``dword``   uint32                        ``0x`` hexadecimal          number            uint32
``category`` int32 codes into a name table the name                    string            codes + names / dictionary
``enum``    int32 codes into a name table the name                    string            codes + names / dictionary
``text``    int32 codes into a name table the name                    string            strings
``float``   float64                       (none: typed formats only)  (none)            float64
=========== ============================= =========================== ================= ==========================

A value a row does not have is absent: empty in CSV, ``null`` in JSON and Parquet, ``<column>.absent`` (or a -1
code) in npz.  Nothing here knows what a table is of; the stages above say their columns.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

__all__ = ["CODED", "NUMPY_TYPES", "ColumnSpec", "NameTable", "Table", "TableChunk", "joined_chunks"]

#: the kinds whose values are codes into a name table
CODED = ("category", "enum", "text")
#: the numpy type of every kind's values
NUMPY_TYPES: dict[str, np.dtype[Any]] = {
    "int": np.dtype(np.int64), "uint": np.dtype(np.uint64), "va": np.dtype(np.uint64), "dword": np.dtype(np.uint32),
    "category": np.dtype(np.int32), "enum": np.dtype(np.int32), "text": np.dtype(np.int32),
    "float": np.dtype(np.float64)}


@dataclass(frozen=True)
class ColumnSpec:
    """One column of a table: ``kind`` (the module docstring's table); ``names``: the name table a ``category``
    column's codes index (columns may share one; None: the column's own), or the enum an ``enum`` column's values
    are members of; ``nullable``: some row has no value there."""

    name: str
    kind: str
    names: str | None = None
    nullable: bool = False

    @property
    def coded(self) -> bool:
        """Whether the column's values are codes into a name table."""
        return self.kind in CODED

    @property
    def names_key(self) -> str:
        """The name table the column's codes index: a category's shared table, or the column's own."""
        return self.names if self.kind == "category" and self.names else self.name


class NameTable:
    """A name table being built while a table is written: names in the order first met, a code for each."""

    def __init__(self, names: Iterable[str] = ()) -> None:
        self.names: list[str] = []
        self._of: dict[str, int] = {}
        for n in names:
            self.code(n)

    def __len__(self) -> int:
        return len(self.names)

    def code(self, name: str | None) -> int:
        """The code of ``name`` (given one the first time it is met); -1 for None."""
        if name is None:
            return -1
        got = self._of.get(name)
        if got is None:
            got = self._of[name] = len(self.names)
            self.names.append(name)
        return got

    def named(self, name: str | None) -> int:
        """The code of a name where there is one: -1 for None and for the empty name (no name)."""
        return -1 if not name else self.code(name)

    def codes(self, texts: Sequence[str], codes: np.ndarray) -> np.ndarray:
        """Per-row codes into ``texts`` (-1 absent) as int32 codes into this table (``codes`` itself where
        ``texts`` are this table's first names)."""
        mine = [self.code(t) for t in texts]
        if mine == list(range(len(mine))):
            return codes.astype(np.int32, copy=False)
        remap = np.array([*mine, -1], dtype=np.int32)
        return remap.take(codes)  # (a code of -1 takes the last entry: -1)


@dataclass
class TableChunk:
    """Rows of a table as columns: ``values[name]`` in its kind's numpy type (codes for coded kinds, 0 where a row
    is absent), ``absent[name]`` True where a nullable column's row has no value (a column not there has none
    absent); ``names[name]``, where a coded column's codes index names of the chunk's own, those names (else the
    table's, ``Table.names_of``).  Read them, never write them: they may be views of a trace's own columns."""

    n: int
    values: dict[str, np.ndarray]
    absent: dict[str, np.ndarray] = field(default_factory=dict)
    names: dict[str, Sequence[str]] = field(default_factory=dict)

    def names_of(self, table: Table, spec: ColumnSpec) -> Sequence[str]:
        """The names coded column ``spec``'s codes index in this chunk."""
        own = self.names.get(spec.name)
        return table.names_of(spec) if own is None else own

    def head(self, k: int) -> TableChunk:
        """Rows ``0 .. k - 1`` (their codes index the same names)."""
        return TableChunk(k, {c: v[:k] for c, v in self.values.items()}, {c: v[:k] for c, v in self.absent.items()},
                          self.names)

    def tail(self, k: int) -> TableChunk:
        """Rows ``k ..`` (their codes index the same names)."""
        return TableChunk(self.n - k, {c: v[k:] for c, v in self.values.items()},
                          {c: v[k:] for c, v in self.absent.items()}, self.names)


def joined_chunks(chunks: Iterable[TableChunk], rows: int) -> Iterator[TableChunk]:
    """``chunks`` joined and cut into chunks of ``rows`` rows (the last may be shorter; none is empty)."""
    pending: list[TableChunk] = []
    have = 0
    for c in chunks:
        if not c.n:
            continue
        pending.append(c)
        have += c.n
        while have >= rows:
            whole = _joined(pending)
            yield whole.head(rows)
            have -= rows
            pending = [whole.tail(rows)] if have else []
    if pending:
        yield _joined(pending)


def _joined(parts: list[TableChunk]) -> TableChunk:
    if len(parts) == 1:
        return parts[0]
    assert not any(p.names for p in parts), "chunks with names of their own are not joined"
    return TableChunk(sum(p.n for p in parts), {k: np.concatenate([p.values[k] for p in parts]) for k in
                                                parts[0].values},
                      {k: np.concatenate([p.absent[k] for p in parts]) for k in parts[0].absent})


class Table(Protocol):
    """What an encoder writes: the columns, their name tables (complete once :meth:`chunks` is exhausted; a
    text encoder reads them as each chunk comes), and the rows in chunks."""

    @property
    def specs(self) -> Sequence[ColumnSpec]: ...

    def names_of(self, spec: ColumnSpec) -> Sequence[str]: ...

    def chunks(self) -> Iterator[TableChunk]: ...
