"""A table (:mod:`d3d12wl.output.table`) as Parquet: a row group per chunk, each encoded on a thread of its own
while the next is made (pyarrow lets go of the GIL as it encodes), written sequentially (a pipe works).

One encoding per kind: ``int`` int64, ``uint`` and ``va`` uint64, ``dword`` uint32, ``float`` float64,
``category`` and ``enum`` dictionary columns (int32 indices, string values), ``text`` strings; absent values null.  The Arrow arrays are made
from the numpy columns' buffers (:mod:`d3d12wl.output.arrowcols`).  Needs pyarrow (``pip install
'd3d12wl[parquet]'``): without it :func:`pyarrow_modules` raises a :class:`~d3d12wl.errors.D3D12WLError` saying so.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import IO, Any

from d3d12wl.errors import D3D12WLError
from d3d12wl.output import arrowcols
from d3d12wl.output.table import ColumnSpec, Table, TableChunk

__all__ = ["AHEAD", "ParquetStream", "arrow_table", "pyarrow_modules", "schema", "write_parquet"]

#: row groups made ahead of the one being encoded (memory: one chunk's columns each)
AHEAD = 2


def pyarrow_modules(where: str = "--format") -> tuple[Any, Any]:
    """``pyarrow`` and ``pyarrow.parquet``, or a :class:`~d3d12wl.errors.D3D12WLError` at ``where`` saying how to
    install them."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise D3D12WLError("--format parquet needs pyarrow: pip install 'd3d12wl[parquet]'", where=where) from None
    return pa, pq


def _arrow_type(pa: Any, spec: ColumnSpec) -> Any:
    if spec.kind in ("category", "enum"):
        return pa.dictionary(pa.int32(), pa.string())
    return {"int": pa.int64(), "uint": pa.uint64(), "va": pa.uint64(), "dword": pa.uint32(),
            "text": pa.string(), "float": pa.float64()}[spec.kind]


def schema(specs: Sequence[ColumnSpec], metadata: Mapping[bytes, bytes] | None = None) -> Any:
    """The Arrow schema of columns ``specs`` (every field nullable), with ``metadata``."""
    pa = pyarrow_modules()[0]
    return pa.schema([pa.field(s.name, _arrow_type(pa, s)) for s in specs], metadata=metadata)


def arrow_table(table: Table, chunk: TableChunk, arrow_schema: Any) -> Any:
    """One chunk of ``table`` as an Arrow table of ``arrow_schema``."""
    pa = pyarrow_modules()[0]
    arrays = []
    for s, f in zip(table.specs, arrow_schema, strict=True):
        values = chunk.values[s.name]
        if s.coded:
            arr = arrowcols.dictionary(values, chunk.names_of(table, s))
            arrays.append(arr.cast(pa.string()) if s.kind == "text" else arr)
        elif s.kind == "float":
            arrays.append(arrowcols.floats(values, chunk.absent.get(s.name)))
        else:
            arrays.append(arrowcols.numbers(values, f.type, chunk.absent.get(s.name)))
    return pa.Table.from_arrays(arrays, schema=arrow_schema)


class ParquetStream:
    """One Parquet file of ``arrow_schema`` at ``out`` (a path, or a binary file written sequentially), its row
    groups given by :meth:`write` and encoded on one thread of its own, at most :data:`AHEAD` of them waiting; an
    error of the writer (a full disk) is raised at the next :meth:`write` or at :meth:`close`, and an interrupt
    lets the row group being written finish before the file is closed.  ``options``: ``pyarrow.parquet.
    ParquetWriter``'s (every writer takes :data:`~d3d12wl.output.arrowcols.PARQUET_WRITE_BATCH` values of a column
    at a time)."""

    def __init__(self, out: str | IO[bytes], arrow_schema: Any, **options: Any) -> None:
        pa, pq = pyarrow_modules()
        options = {"write_batch_size": arrowcols.PARQUET_WRITE_BATCH, **options}
        self.schema = arrow_schema
        self.kept = None if isinstance(out, str) else arrowcols.KeptFailures(out)
        self.rows = 0
        if self.kept is None:
            self.writer = pq.ParquetWriter(out, arrow_schema, **options)
        else:
            with self.kept.raising():
                self.writer = pq.ParquetWriter(pa.PythonFile(self.kept, mode="w"), arrow_schema, **options)
        self._pending: queue.Queue[Any] = queue.Queue(maxsize=AHEAD)
        self._failed: list[BaseException] = []
        self._thread = threading.Thread(target=self._encode, name="d3d12wl-parquet", daemon=True)
        self._thread.start()
        self._open = True

    def _encode(self) -> None:
        while (table := self._pending.get()) is not None:
            if not self._failed:  # (after a failure, only drained: the maker never waits on a dead writer)
                try:
                    self.writer.write_table(table)
                except BaseException as exc:  # noqa: BLE001 - raised again in the maker's thread
                    self._failed.append(exc)

    def _raise(self) -> None:
        if self._failed:
            exc = self._failed[0]
            if self.kept is not None and self.kept.failure is not None:
                raise self.kept.failure from None
            raise exc

    def write(self, arrow: Any) -> None:
        """A row group (an Arrow table of the schema)."""
        self._raise()
        self._pending.put(arrow)
        self.rows += arrow.num_rows

    def close(self, metadata: Mapping[str, str] | None = None) -> None:
        """Finish the file: the row groups given encoded (an empty table where there were none), ``metadata``
        added to its key-value metadata, the file closed; the writer's first error raised."""
        if not self._open:
            return
        self._open = False
        try:
            self._pending.put(None)
            self._thread.join()
            self._raise()
            self._finish(metadata)
        except BaseException:
            self._close_writer()
            raise

    def _finish(self, metadata: Mapping[str, str] | None) -> None:
        if self.kept is None:
            self._complete(metadata)
            return
        with self.kept.raising():
            self._complete(metadata)

    def _complete(self, metadata: Mapping[str, str] | None) -> None:
        try:
            if not self.rows:  # a table with no rows still has its schema
                self.writer.write_table(self.schema.empty_table())
            if metadata is not None:
                self.writer.add_key_value_metadata(dict(metadata))
        finally:
            self.writer.close()

    def _close_writer(self) -> None:
        try:
            if self.kept is None:
                self.writer.close()
            else:
                with self.kept.raising():
                    self.writer.close()
        except BaseException:  # noqa: BLE001 - the first error is the one raised
            pass

    def abort(self) -> None:
        """Stop: the thread drained and ended, the writer closed (what an interrupt of the maker leaves)."""
        if self._open:
            self._open = False
            self._pending.put(None)
            self._thread.join()
            self._close_writer()


def write_parquet(out: str | IO[bytes], table: Table, arrow_schema: Any, *,
                  on_chunk: Callable[[TableChunk], None] | None = None, **options: Any) -> int:
    """Every chunk of ``table`` as a row group of one Parquet file of ``arrow_schema`` at ``out``
    (:class:`ParquetStream`); returns the rows."""
    stream = ParquetStream(out, arrow_schema, **options)
    try:
        for chunk in table.chunks():
            stream.write(arrow_table(table, chunk, arrow_schema))
            if on_chunk is not None:
                on_chunk(chunk)
    except BaseException:
        stream.abort()
        raise
    stream.close()
    return stream.rows

