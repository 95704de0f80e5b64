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
from collections.abc import Iterator
from typing import IO, Any, TextIO

import numpy as np

from d3d12wl.executor.columnar import NAME_COLUMNS, execution_columns
from d3d12wl.executor.trace import LazyList, ListTrace, PrimaryRecordTrace, Trace
from d3d12wl.serialize import to_jsonable

__all__ = ["FORMATS", "write_csv", "write_json", "write_jsonl", "write_npz"]

#: the formats ``d3d12wl exec --format`` writes (text is the CLI's own)
FORMATS = ("text", "json", "jsonl", "csv", "npz")
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
            elif name in NAME_COLUMNS:
                names = np.array([*table.names[name], ""], dtype=object)
                cols.append(names[col].tolist())
            else:
                cols.append(col.tolist())
        writer.writerows(zip(*cols, strict=True))


def write_npz(trace: Trace, out: str | IO[bytes]) -> None:
    """The execution table as an ``.npz``: one array per column, and ``names.<column>`` for the program, PCS and
    trigger names the codes index."""
    table = execution_columns(trace.executions)
    arrays = dict(table.columns)
    for name, values in table.names.items():
        arrays[f"names.{name}"] = np.array(values, dtype=str)
    np.savez(out, **arrays)  # type: ignore[arg-type]
