"""Writing a trace as it streams out of its columns: JSON (byte for byte what ``json.dump(trace.to_dict(),
indent=1)`` writes), JSON lines, CSV and npz of the execution table.

Nothing here holds the whole trace as objects: executions, primary records and secondary records are made from
their batches and written one after another, so the output of millions of executions needs the memory of one
item at a time.
"""

from __future__ import annotations

import csv
import dataclasses
import json
import shutil
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any, TextIO

import numpy as np

from d3d12wl.executor.columnar import NAME_COLUMNS, execution_columns
from d3d12wl.executor.trace import LazyList, ListTrace, PrimaryRecordTrace, Trace
from d3d12wl.serialize import to_jsonable

__all__ = ["FORMATS", "write_csv", "write_json", "write_jsonl", "write_npz", "write_parquet"]

#: the formats ``d3d12wl exec --format`` writes (text is the CLI's own; parquet needs the optional pyarrow,
#: ``pip install 'd3d12wl[parquet]'``)
FORMATS = ("text", "json", "jsonl", "csv", "npz", "parquet")
#: rows per chunk of the table formats
CHUNK_ROWS = 1 << 16
#: the trace objects written member by member (they hold LazyLists); everything else is one json.dumps
_STREAMED = (Trace, ListTrace, PrimaryRecordTrace)


# -- JSON ---------------------------------------------------------------------------------------------------------


def write_json(trace: Trace, out: TextIO) -> None:
    """``trace.to_dict()`` as ``json.dump(..., indent=1)`` writes it, streamed item by item."""
    _write(trace, out, 0)
    out.write("\n")


def _fields(obj: Any) -> Iterator[tuple[str, Any]]:
    for f in dataclasses.fields(obj):
        if f.metadata.get("json", True):
            yield f.name, getattr(obj, f.name)
    for name in getattr(type(obj), "JSON_PROPERTIES", ()):
        yield name, getattr(obj, name)


def _write(value: Any, out: TextIO, depth: int) -> None:
    pad = " " * (depth + 1)
    if isinstance(value, LazyList):
        if not len(value):
            out.write("[]")
            return
        out.write("[")
        for i, item in enumerate(value):
            out.write(",\n" if i else "\n")
            out.write(pad)
            _write(item, out, depth + 1)
        out.write("\n" + " " * depth + "]")
    elif isinstance(value, _STREAMED):
        out.write("{")
        for i, (name, member) in enumerate(_fields(value)):
            out.write(",\n" if i else "\n")
            out.write(f"{pad}{json.dumps(name)}: ")
            _write(member, out, depth + 1)
        out.write("\n" + " " * depth + "}")
    else:
        out.write(json.dumps(to_jsonable(value), indent=1).replace("\n", "\n" + " " * depth))


# -- JSON lines -----------------------------------------------------------------------------------------------


def write_jsonl(trace: Trace, out: TextIO) -> None:
    """One JSON object per line, each with a ``record`` key: ``call`` (call, call_args, limits), ``list`` (a list
    trace without its records), ``primary_record`` (with ``list_index``), ``execution``, ``validator_invocation``,
    ``reset``, ``finding``, and last ``end`` (findings_suppressed, stopped_reason, graphics_lists)."""
    def line(kind: str, body: Any, **extra: Any) -> None:
        out.write(json.dumps({"record": kind, **extra, **to_jsonable(body)}, separators=(",", ":")))
        out.write("\n")

    line("call", {"call": trace.call, "call_args": trace.call_args, "limits": trace.limits})
    for lt in trace.lists:
        line("list", {name: value for name, value in _fields(lt) if name != "primary_records"})
        for prt in lt.primary_records:
            line("primary_record", prt, list_index=lt.index)
    for v in trace.validator_invocations:
        line("validator_invocation", v)
    for e in trace.executions:
        line("execution", e)
    for r in trace.end_of_call_reset:
        line("reset", r)
    for f in trace.findings:
        line("finding", f)
    line("end", {"findings_suppressed": trace.findings_suppressed, "stopped_reason": trace.stopped_reason,
                 "graphics_lists": trace.graphics_lists})


# -- the execution table ------------------------------------------------------------------------------------------


def write_csv(trace: Trace, out: TextIO) -> None:
    """The execution table (:func:`~d3d12wl.executor.columnar.execution_columns`), one row per execution, in
    chunks of :data:`CHUNK_ROWS`; program, PCS and trigger by name.  The trigger-member columns are those of the
    first chunk's triggers (a call has one trigger type per class)."""
    writer = csv.writer(out, lineterminator="\n")
    header: list[str] | None = None
    n = len(trace.executions)
    for start in range(0, max(n, 1), CHUNK_ROWS):
        table = execution_columns(trace.executions, start, start + CHUNK_ROWS)
        if header is None:
            header = list(table.columns)
            writer.writerow(header)
        cols: list[Any] = []
        for name in header:
            col = table.columns.get(name)
            if col is None:
                cols.append([""] * len(table))
            elif name in NAME_COLUMNS or name.endswith(".source"):
                names = np.array([*table.names[_names_of(name)], ""], dtype=object)
                cols.append(names[col].tolist())
            else:
                cols.append(col.tolist())
        writer.writerows(zip(*cols, strict=True))


def write_npz(trace: Trace, out: str | IO[bytes]) -> None:
    """The execution table as an ``.npz`` (what ``numpy.load`` reads): one array per column, and
    ``names.<column>`` for the program, PCS, trigger and (``root.*.source``) source-kind names the codes index (in the order the call first met
    them).  Written in chunks of :data:`CHUNK_ROWS` executions through temporary files, so the memory it needs is
    one chunk's columns, whatever the trace's length."""
    n = len(trace.executions)
    names: dict[str, list[str]] = {name: [] for name in (*NAME_COLUMNS, "source")}
    with tempfile.TemporaryDirectory(prefix="d3d12wl-npz-") as tmp:
        parts: dict[str, tuple[IO[bytes], np.dtype]] = {}
        try:
            for start in range(0, n, CHUNK_ROWS) if n else [0]:
                table = execution_columns(trace.executions, start, start + CHUNK_ROWS)
                rows = len(table)
                for name, col in table.columns.items():
                    if name in NAME_COLUMNS or name.endswith(".source"):  # chunk codes -> the call's codes
                        chunk_names = table.names[_names_of(name)]
                        known = names[_names_of(name)]
                        for value in chunk_names:
                            if value not in known:
                                known.append(value)
                        remap = np.array([*(known.index(v) for v in chunk_names), -1], dtype=np.int32)
                        col = remap[col]
                    if name not in parts:  # a column first met in this chunk: "none" for the rows before it
                        new: IO[bytes] = open(Path(tmp) / f"{len(parts)}.bin", "w+b")  # noqa: SIM115 - closed below
                        parts[name] = (new, col.dtype)
                        _none(start, col.dtype).tofile(new)
                    f, dtype = parts[name]
                    col.astype(dtype, copy=False).tofile(f)
                for name, (f, dtype) in parts.items():  # a column this chunk lacks
                    if name not in table.columns:
                        _none(rows, dtype).tofile(f)
            arrays = {name: (f, dtype) for name, (f, dtype) in parts.items()}
            with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
                for name, (f, dtype) in arrays.items():
                    f.flush()
                    f.seek(0)
                    with z.open(f"{name}.npy", "w", force_zip64=True) as entry:
                        np.lib.format.write_array_header_1_0(entry, {"descr": np.lib.format.dtype_to_descr(dtype),
                                                                     "fortran_order": False, "shape": (n,)})
                        shutil.copyfileobj(f, entry, 1 << 20)
                for name, values in names.items():
                    with z.open(f"names.{name}.npy", "w", force_zip64=True) as entry:
                        np.lib.format.write_array(entry, np.array(values, dtype=str))
        finally:
            for f, _ in parts.values():
                f.close()


def _names_of(column: str) -> str:
    """The name table a code column indexes: its own (program, pcs, trigger) or ``source`` (root.*.source)."""
    return "source" if column.endswith(".source") else column


def _none(n: int, dtype: np.dtype) -> np.ndarray:
    """``n`` rows of what the execution table writes for "no value": 0 for VAs (unsigned), -1 otherwise."""
    return np.full(n, 0 if dtype.kind == "u" else -1, dtype=dtype)


def write_parquet(trace: Trace, out: str | IO[bytes]) -> None:
    """The execution table as Parquet, one row group per chunk of :data:`CHUNK_ROWS` executions: the code columns
    (program, PCS, trigger, ``root.*.source``) as strings.  The columns are those of the first chunk (a call has
    one trigger type per class).  Needs pyarrow (``pip install 'd3d12wl[parquet]'``); without it an
    :class:`~d3d12wl.errors.D3D12WLError`."""
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        from d3d12wl.errors import D3D12WLError

        raise D3D12WLError("--format parquet needs pyarrow: pip install 'd3d12wl[parquet]'",
                           where="--format") from None
    writer: Any = None
    schema: Any = None
    n = len(trace.executions)
    try:
        for start in range(0, n, CHUNK_ROWS) if n else [0]:
            table = execution_columns(trace.executions, start, start + CHUNK_ROWS)
            if schema is None:
                fields = []
                for name, col in table.columns.items():
                    coded = name in NAME_COLUMNS or name.endswith(".source")
                    fields.append(pa.field(name, pa.string() if coded else pa.from_numpy_dtype(col.dtype)))
                schema = pa.schema(fields)
                writer = pq.ParquetWriter(out, schema)
            arrays = []
            for f in schema:
                values = table.columns.get(f.name)
                if values is None:
                    arrays.append(pa.nulls(len(table), f.type))
                elif f.name in NAME_COLUMNS or f.name.endswith(".source"):
                    names = np.array([*table.names[_names_of(f.name)], None], dtype=object)
                    arrays.append(pa.array(names[values], type=pa.string()))
                else:
                    arrays.append(pa.array(values.astype(f.type.to_pandas_dtype(), copy=False)))
            writer.write_table(pa.Table.from_arrays(arrays, schema=schema))
    finally:
        if writer is not None:
            writer.close()
