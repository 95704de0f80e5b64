"""A table (:mod:`d3d12wl.output.table`) into an ``.npz`` (what ``numpy.load`` reads), written chunk by chunk
straight into the zip (``ZIP_STORED``, zip64; a pipe works: nothing is seeked), so the memory it needs is a chunk's.

Two shapes, each one array format of numpy's:

* :func:`write_structured`: the table as one structured array, a field per column (its kind's numpy type; a
  ``text`` column as fixed-width strings), and ``<column>.absent`` (bool) beside every nullable column that is not
  coded (a coded column's absent rows hold -1);
* :func:`write_columns`: one array per column, ``<column>.npy``, streamed through a temporary file per column
  (a table whose row count is known only at its end).

The name tables go beside as string arrays (:func:`write_names`), and whatever else the caller has (:func:`write_array`).
"""

from __future__ import annotations

import shutil
import tempfile
import zipfile
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from pathlib import Path
from typing import IO, Any

import numpy as np

from d3d12wl.output.blockwriter import BlockWriter, default_workers
from d3d12wl.output.table import NUMPY_TYPES, ColumnSpec, NameTable, Table, TableChunk

__all__ = ["AHEAD", "ColumnFiles", "Pack", "names_array", "structured_dtype", "write_array", "write_columns", "write_names",
           "write_structured"]

#: chunks' records packed or waiting to be written at a time (each a chunk's records: 14 MiB for the 1 M-draw frame)
AHEAD = 2
#: packs columns into records of a structured dtype, returning their bytes (the packers' C kernel, given by the
#: caller; :func:`numpy_pack` otherwise)
Pack = Callable[[np.dtype, Mapping[str, np.ndarray]], Any]


def numpy_pack(dtype: np.dtype, columns: Mapping[str, np.ndarray]) -> np.ndarray:
    """Columns into records of ``dtype`` by numpy, field by field."""
    n = len(next(iter(columns.values()))) if columns else 0
    out = np.zeros(n, dtype=dtype)
    for name, col in columns.items():
        out[name] = col
    return out.view(np.uint8)


def names_array(names: Sequence[str]) -> np.ndarray:
    """A name table as a string array (an empty one of width 1)."""
    return np.array(names, dtype=str) if names else np.zeros(0, dtype="U1")


def write_array(z: zipfile.ZipFile, name: str, array: np.ndarray, *, zip64: bool = True) -> None:
    """``array`` as member ``<name>.npy`` (``zip64``: with the zip64 sizes, however small it is)."""
    with z.open(f"{name}.npy", "w", force_zip64=zip64) as entry:
        np.lib.format.write_array(entry, array, allow_pickle=False)


def write_names(z: zipfile.ZipFile, prefix: str, table: Table,
                names: Mapping[str, Sequence[str]] | None = None) -> None:
    """The name table of every coded column that is not ``text`` (each table once, in the order the columns come)
    as ``<prefix><key>.npy``: ``names[key]`` where given (what :func:`write_structured` built), else the
    table's."""
    tables: dict[str, ColumnSpec] = {}
    for s in table.specs:
        if s.kind in ("category", "enum"):
            tables.setdefault(s.names_key, s)
    for key, spec in tables.items():
        got = (names or {}).get(key)
        write_array(z, f"{prefix}{key}", names_array(table.names_of(spec) if got is None else got))


def structured_dtype(specs: Sequence[ColumnSpec], widths: Mapping[str, int] | None = None) -> np.dtype:
    """The records of :func:`write_structured`: a field per column, ``<column>.absent`` beside each nullable one
    that is not coded; a ``text`` column's strings ``widths[column]`` characters wide."""
    names: list[str] = []
    formats: list[Any] = []
    for s in specs:
        names.append(s.name)
        formats.append(np.dtype(f"U{(widths or {}).get(s.name, 1)}") if s.kind == "text" else NUMPY_TYPES[s.kind])
        if s.nullable and not s.coded:
            names.append(f"{s.name}.absent")
            formats.append(np.dtype(np.bool_))
    return np.dtype({"names": names, "formats": formats})


def write_structured(z: zipfile.ZipFile, name: str, table: Table, rows: int, *,
                     widths: Mapping[str, int] | None = None, pack: Pack = numpy_pack,
                     threads: int | None = None) -> dict[str, list[str]]:
    """``table``'s rows (``rows`` of them, said in the header first) as member ``<name>.npy``, one structured array
    (:func:`structured_dtype`) written chunk by chunk; ``text`` columns as their strings.  A coded column whose
    chunks have names of their own is written as codes into a name table built here: returns those tables (by
    name table key) for :func:`write_names`.  An ``AssertionError`` where the rows are not ``rows``.

    Each chunk's records are packed on a worker thread (``pack``: the packers' C kernel lets go of the GIL) and
    written into the zip (its CRC and the file's write) on one more, in order, while the caller reads the next
    chunk (:class:`~d3d12wl.output.blockwriter.BlockWriter`; ``threads``: 0 none, else one worker; at most
    :data:`AHEAD` chunks' records made or waiting): the same bytes as one thread."""
    dtype = structured_dtype(table.specs, widths)
    fields = set(dtype.names or ())
    built: dict[str, NameTable] = {}
    done = 0
    with z.open(f"{name}.npy", "w", force_zip64=True) as entry:
        np.lib.format.write_array_header_2_0(entry, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                     "fortran_order": False, "shape": (rows,)})
        workers = min(1, default_workers() if threads is None else threads)
        with BlockWriter(entry.write, workers=workers, ahead=AHEAD) as write:
            for chunk in table.chunks():
                columns = _record_columns(table, chunk, dtype, fields, built)
                write.block(partial(_packed, pack, dtype, columns))
                done += chunk.n
    assert done == rows, (done, rows)
    return {key: t.names for key, t in built.items()}


def _packed(pack: Pack, dtype: np.dtype, columns: Mapping[str, np.ndarray], buffer: object) -> memoryview:
    """One chunk's records (a block of :func:`write_structured`; the block writer's buffer is not needed)."""
    return memoryview(pack(dtype, columns)).cast("B")


def _record_columns(table: Table, chunk: TableChunk, dtype: np.dtype, fields: set[str],
                    built: dict[str, NameTable]) -> dict[str, np.ndarray]:
    assert dtype.fields is not None
    columns: dict[str, np.ndarray] = {}
    for s in table.specs:
        col = chunk.values[s.name]
        if s.kind == "text":
            texts = np.array([*chunk.names_of(table, s), ""], dtype=dtype.fields[s.name][0])
            columns[s.name] = texts[np.where(col < 0, len(texts) - 1, col)]
        elif s.coded and s.name in chunk.names:
            mine = built.setdefault(s.names_key, NameTable())
            columns[s.name] = mine.codes(chunk.names[s.name], col)
        else:
            columns[s.name] = np.ascontiguousarray(col, dtype=dtype.fields[s.name][0])
        gone = chunk.absent.get(s.name)
        if gone is not None and f"{s.name}.absent" in fields:
            columns[f"{s.name}.absent"] = np.ascontiguousarray(gone)
    return columns


class ColumnFiles:
    """:func:`write_columns`' temporary files: each column's values as they come, chunk by chunk."""

    def __init__(self, dtypes: Mapping[str, np.dtype], prefix: str = "d3d12wl-npz-") -> None:
        self.dtypes = dict(dtypes)
        self.rows = 0
        self._tmp = tempfile.TemporaryDirectory(prefix=prefix)
        self.files: dict[str, IO[bytes]] = {
            c: open(Path(self._tmp.name) / f"{i}.bin", "w+b") for i, c in enumerate(self.dtypes)}  # noqa: SIM115

    def add(self, columns: Mapping[str, np.ndarray]) -> None:
        n = 0
        for c, f in self.files.items():
            col = columns[c]
            col.astype(self.dtypes[c], copy=False).tofile(f)
            n = len(col)
        self.rows += n

    def close(self) -> None:
        for f in self.files.values():
            f.close()
        self._tmp.cleanup()


def write_columns(z: zipfile.ZipFile, files: ColumnFiles) -> None:
    """Every column of ``files`` as member ``<column>.npy``: one array of its dtype."""
    for c, f in files.files.items():
        f.flush()
        f.seek(0)
        with z.open(f"{c}.npy", "w", force_zip64=True) as entry:
            np.lib.format.write_array_header_1_0(entry, {"descr": np.lib.format.dtype_to_descr(files.dtypes[c]),
                                                         "fortran_order": False, "shape": (files.rows,)})
            shutil.copyfileobj(f, entry, 1 << 20)
