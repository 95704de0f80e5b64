"""Parquet row groups encoded on several threads and joined into one file (d3d12wl.output.parquet_table.ParquetStream,
d3d12wl.output.parquet_footer): the file is byte for byte the one pyarrow's own ParquetWriter writes given the same
row groups, whatever the number of encoders; the footer codec writes back what it reads (Thrift compact protocol,
as parquet-format's FileMetaData is serialized)."""

from __future__ import annotations

import io
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from d3d12wl.output import arrowcols, parquet_footer, parquet_table

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

ROWS = 3000


def schema(metadata: dict[bytes, bytes] | None = None) -> Any:
    return pa.schema([pa.field("i", pa.int64()), pa.field("va", pa.uint64()), pa.field("dw", pa.uint32()),
                      pa.field("program", pa.dictionary(pa.int32(), pa.string())), pa.field("note", pa.string()),
                      pa.field("f", pa.float64())], metadata=metadata)


def chunk(k: int, arrow_schema: Any, rows: int = ROWS) -> Any:
    """Row group ``k``: every kind the tables write, with nulls, dictionary columns and repeated strings."""
    rng = np.random.default_rng(k)
    i = np.arange(k * rows, (k + 1) * rows, dtype=np.int64)
    va = rng.integers(0, 1 << 63, rows, dtype=np.int64).astype(np.uint64)
    program = arrowcols.dictionary((i % 4 - 1).astype(np.int32), ["Opaque", "Shadow", "Transparent"])
    note = pa.array([None if j % 5 == 0 else f"n{j % 13}" for j in range(rows)])
    return pa.Table.from_arrays([pa.array(i), arrowcols.numbers(va, pa.uint64(), i % 7 == 0),
                                 pa.array((i * 3).astype(np.uint32)), program, note, pa.array(i * 0.25)],
                                schema=arrow_schema)


def pyarrow_file(tables: list[Any], arrow_schema: Any, metadata: dict[str, str] | None = None,
                 **options: Any) -> bytes:
    """What one ParquetWriter writes of ``tables`` (the stream's options: its write batch)."""
    sink = io.BytesIO()
    writer = pq.ParquetWriter(sink, arrow_schema, write_batch_size=arrowcols.PARQUET_WRITE_BATCH, **options)
    for t in tables or [arrow_schema.empty_table()]:
        writer.write_table(t)
    if metadata is not None:
        writer.add_key_value_metadata(metadata)
    writer.close()
    return sink.getvalue()


def stream_file(tables: list[Any], arrow_schema: Any, metadata: dict[str, str] | None = None, *, workers: int,
                **options: Any) -> bytes:
    sink = io.BytesIO()
    stream = parquet_table.ParquetStream(sink, arrow_schema, workers=workers, **options)
    for t in tables:
        stream.write(t)
    stream.close(metadata)
    return sink.getvalue()


@pytest.mark.parametrize("workers", [1, 2, 3, 8])
@pytest.mark.parametrize("groups", [0, 1, 7])
def test_the_file_is_pyarrows_own_byte_for_byte(workers: int, groups: int) -> None:
    s = schema({b"d3d12wl": b'{"version": 2}'})
    tables = [chunk(k, s) for k in range(groups)]
    options = {"use_dictionary": ["program"]}
    expected = pyarrow_file(tables, s, {"d3d12wl.findings": "[]", "d3d12wl": "kept?"}, **options)
    got = stream_file(tables, s, {"d3d12wl.findings": "[]", "d3d12wl": "kept?"}, workers=workers, **options)
    assert got == expected
    back = pq.read_table(io.BytesIO(got))
    assert back.num_rows == groups * ROWS and pq.ParquetFile(io.BytesIO(got)).metadata.num_row_groups == max(groups, 1)
    if groups:
        assert back.equals(pa.concat_tables(tables).cast(back.schema))


def test_the_footer_codec_writes_back_what_it_reads() -> None:
    s = schema({b"k": b"v"})
    file = pyarrow_file([chunk(k, s) for k in range(20)], s, {"more": "x" * 300})  # lists of 15 or more: long form
    start, meta = parquet_footer.footer_of(file)
    assert parquet_footer.encode_struct(meta) == file[start:-8]
    for bad in (b"", b"PAR1PAR1", file[:-1], b"XXXX" + file[4:], file[:start] + b"\x00\x00\x00\x00" + file[-4:]):
        with pytest.raises(ValueError):
            parquet_footer.footer_of(bad)
    with pytest.raises(ValueError):
        parquet_footer.decode_struct(file[start:-9])  # cut short


def test_an_encoders_error_is_raised_in_the_callers_thread_and_the_file_is_left(monkeypatch: pytest.MonkeyPatch,
                                                                               tmp_path: Path) -> None:
    s = schema()
    real = pq.ParquetWriter.write_table
    threads = set()

    def failing(self: Any, table: Any, *args: Any, **kwargs: Any) -> Any:
        threads.add(threading.current_thread().name)
        if table.num_rows and table.column("i")[0].as_py() == 4 * ROWS:
            raise OSError(28, "No space left on device")
        return real(self, table, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", failing)
    path = tmp_path / "t.parquet"
    stream = parquet_table.ParquetStream(str(path), s, workers=2)
    with pytest.raises(OSError, match="No space left"):
        for k in range(10):
            stream.write(chunk(k, s))
        stream.close()
    stream.abort()
    assert all(t.startswith("d3d12wl-parquet") for t in threads)
    with pytest.raises(Exception):  # noqa: B017 - unfinished: pyarrow finds no footer
        pq.read_table(path)


def test_encoders_follow_the_cpus_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    import os

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(3)))
    assert parquet_table.encoders() == 3
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: set(range(64)))
    assert parquet_table.encoders() == parquet_table.MAX_ENCODERS
