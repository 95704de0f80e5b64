"""A table (:mod:`d3d12wl.output.table`) as Parquet: a row group per chunk, the row groups encoded on several threads
at once (pyarrow lets go of the GIL as it encodes), each as a Parquet file of its own in memory, and written in
order into one file with one footer listing them all (:mod:`d3d12wl.output.parquet_footer`), sequentially (a pipe
works).  The bytes are those one ``pyarrow.parquet.ParquetWriter`` writes given the same row groups (a test holds
it); only the time differs: one writer encodes a row group at a time, and its one thread bounded the output.

One encoding per kind: ``int`` int64, ``uint`` and ``va`` uint64, ``dword`` uint32, ``float`` float64,
``category`` and ``enum`` dictionary columns (int32 indices, string values), ``text`` strings; absent values null.  The Arrow arrays are made
from the numpy columns' buffers (:mod:`d3d12wl.output.arrowcols`).  Needs pyarrow (``pip install
'd3d12wl[parquet]'``): without it :func:`pyarrow_modules` raises a :class:`~d3d12wl.errors.D3D12WLError` saying so.
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import IO, Any

from d3d12wl.errors import D3D12WLError
from d3d12wl.output import arrowcols, parquet_footer
from d3d12wl.output.table import ColumnSpec, Table, TableChunk

__all__ = ["AHEAD", "MAX_ENCODERS", "ParquetStream", "arrow_table", "encoders", "pyarrow_modules", "schema",
           "write_parquet"]

#: row groups made ahead of those being encoded (memory: one chunk's columns and its encoding each)
AHEAD = 2
#: the most row groups encoded at once (past 8, the one thread that makes the chunks is the bound)
MAX_ENCODERS = 8


def encoders() -> int:
    """The row groups a stream encodes at once: the CPUs this process may run on, at most :data:`MAX_ENCODERS`."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cpus = os.cpu_count() or 1
    return max(1, min(MAX_ENCODERS, cpus))


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
    groups given by :meth:`write`, ``workers`` (default :func:`encoders`) of them encoded at once and at most
    :data:`AHEAD` more waiting; an error of an encoder is raised at a later :meth:`write` or at :meth:`close`, one of
    ``out`` (a full disk) where it is written, in the caller's thread; an interrupt (:meth:`abort`) lets the row
    groups being encoded finish, writes none of them, and leaves the file unfinished.  ``options``:
    ``pyarrow.parquet.ParquetWriter``'s (every writer takes :data:`~d3d12wl.output.arrowcols.PARQUET_WRITE_BATCH`
    values of a column at a time)."""

    def __init__(self, out: str | IO[bytes], arrow_schema: Any, *, workers: int | None = None,
                 **options: Any) -> None:
        self._pa, self._pq = pyarrow_modules()
        self.options = {"write_batch_size": arrowcols.PARQUET_WRITE_BATCH, **options}
        self.schema = arrow_schema
        self.rows = 0
        self._own = isinstance(out, str)
        self.out: IO[bytes] = open(out, "wb") if isinstance(out, str) else out  # noqa: SIM115 - closed in close()
        self._parts = parquet_footer.FileParts()
        self._workers = workers or encoders()
        self._pool = ThreadPoolExecutor(self._workers, thread_name_prefix="d3d12wl-parquet")
        self._pending: deque[Future[Any]] = deque()
        self._open = True
        try:
            self.out.write(parquet_footer.MAGIC)
        except BaseException:
            self.abort()
            raise

    def _encode(self, table: Any, metadata: Mapping[str, str] | None = None) -> Any:
        """``table`` as a Parquet file of its own (a pyarrow buffer)."""
        sink = self._pa.BufferOutputStream()
        writer = self._pq.ParquetWriter(sink, self.schema, **self.options)
        try:
            if table is not None:
                writer.write_table(table)
            if metadata is not None:
                writer.add_key_value_metadata(dict(metadata))
        finally:
            writer.close()
        return sink.getvalue()

    def _write_done(self, keep: int) -> None:
        """The encoded row groups written, in order: those done, and more until at most ``keep`` are pending."""
        while self._pending and (len(self._pending) > keep or self._pending[0].done()):
            encoded = self._pending.popleft().result()  # (an encoder's exception is raised here)
            self.out.write(self._parts.add(memoryview(encoded)))

    def write(self, arrow: Any) -> None:
        """A row group (an Arrow table of the schema)."""
        self._write_done(self._workers + AHEAD - 1)
        self._pending.append(self._pool.submit(self._encode, arrow))
        self.rows += arrow.num_rows

    def close(self, metadata: Mapping[str, str] | None = None) -> None:
        """Finish the file: the row groups given written (an empty table where there were none, as pyarrow's
        writer does), then the footer with ``metadata`` added to the key-value metadata; the first error raised."""
        if not self._open:
            return
        try:
            if not self.rows:  # a table with no rows still has its schema
                self._pending.append(self._pool.submit(self._encode, self.schema.empty_table()))
            self._write_done(0)
            self.out.write(self._parts.footer(memoryview(self._encode(None, metadata))))
        except BaseException:
            self.abort()
            raise
        self._open = False
        self._pool.shutdown()
        if self._own:
            self.out.close()

    def abort(self) -> None:
        """Stop: the row groups not begun dropped, those being encoded finished and dropped, the file left
        unfinished (closed, where the stream opened it)."""
        if self._open:
            self._open = False
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pending.clear()
            if self._own:
                self.out.close()


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

