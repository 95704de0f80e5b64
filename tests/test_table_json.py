"""JSON and JSON lines version 2 (d3d12wl.output.json_table): every execution as the execution table's row, and
everything else as version 1 writes it.

The rows are held to the table the other formats write (``execution_columns``, the npz and CSV tests' reference),
value by value; the rest of each output to version 1's, record by record; and the bytes to those of one thread.
"""

from __future__ import annotations

import io
import json
import subprocess
import sys
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_executor_output import _threaded_traces, mixed_trace, traces

from d3d12wl import abi
from d3d12wl.executor import output, trace_tables
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.executor.output import TABLE_VERSION, write_json, write_jsonl
from d3d12wl.executor.selection import Selection
from d3d12wl.executor.trace import Trace
from d3d12wl.output import blockwriter
from d3d12wl.output.json_table import row_template
from d3d12wl.output.textrows import RowFormatter


def table_rows(trace: Trace) -> list[dict[str, Any]]:
    """The execution table of ``trace`` row by row, as version 2 means to write it: names by name, absent None."""
    table = execution_columns(trace.executions)
    specs = trace_tables.table_columns(trace)
    out: list[dict[str, Any]] = [{} for _ in range(len(table))]
    for s in specs:
        col = table.columns.get(s.name)
        gone = table.is_absent(s.name) if col is not None else np.ones(len(table), dtype=bool)
        for r, row in enumerate(out):
            if gone[r]:
                row[s.name] = None
            elif s.kind == "category":
                assert col is not None
                code = int(col[r])
                row[s.name] = table.names[s.names or s.name][code] if code >= 0 else None
            elif s.kind == "enum":
                assert col is not None
                row[s.name] = abi.enum_text(s.names or "", int(col[r]))
            else:
                assert col is not None
                row[s.name] = int(col[r])
    return out


def lines_of(write: Any, trace: Trace, **kw: Any) -> list[dict[str, Any]]:
    out = io.BytesIO()
    write(trace, out, **kw)
    return [json.loads(x) for x in out.getvalue().splitlines()]


def document(trace: Trace, **kw: Any) -> dict[str, Any]:
    out = io.BytesIO()
    write_json(trace, out, **kw)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("trace", traces(), ids=lambda t: f"{t.call}-{len(t.executions)}")
def test_version_2_executions_are_the_execution_table_rows(trace, monkeypatch):
    """Every column of the table in its order, in every row, one encoding per value (issue 23's item 5): indices,
    VAs and DWORDs as integers, names and enum members as strings, absent values null; in chunks of a few rows
    (the name tables grow from chunk to chunk)."""
    monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 5)
    want = table_rows(trace)
    columns = [s.name for s in trace_tables.table_columns(trace)]
    got = [r for r in lines_of(write_jsonl, trace, version=2) if r["record"] == "execution"]
    assert [list(r)[1:] for r in got] == [columns] * len(want)
    assert [{k: v for k, v in r.items() if k != "record"} for r in got] == want
    doc = document(trace, version=2)
    assert doc["executions"] == want


@pytest.mark.parametrize("trace", traces(), ids=lambda t: f"{t.call}-{len(t.executions)}")
def test_version_2_is_version_1_but_for_the_executions(trace):
    """Version 2 says its version, the table's version and columns first; every other member and record is
    version 1's (the lists, primary records, validator invocations, reset, findings and the end's verdict)."""
    specs = [dict(name=s.name, kind=s.kind, names=s.names, nullable=s.nullable) for s in trace_tables.table_columns(trace)]
    head = {"version": 2, "table_version": TABLE_VERSION, "columns": specs}
    v1, v2 = document(trace), document(trace, version=2)
    assert list(v2) == [*head, *v1] and {k: v2[k] for k in head} == head
    assert {k: v for k, v in v2.items() if k not in head and k != "executions"} == \
        {k: v for k, v in v1.items() if k != "executions"}
    one, two = lines_of(write_jsonl, trace), lines_of(write_jsonl, trace, version=2)
    assert "version" not in one[0] and two[0] == {"record": "call", **head, **{k: v for k, v in one[0].items()
                                                                                if k != "record"}}
    assert [r for r in two[1:] if r["record"] != "execution"] == [r for r in one[1:] if r["record"] != "execution"]
    assert sum(r["record"] == "execution" for r in two) == len(trace.executions)
    assert two[-1]["record"] == "end" and two[-1]["exit_status"] == int(trace.has_errors)


def test_version_2_selection_says_what_it_left_out():
    """--limit and --program bound version 2's rows as version 1's, and the end / left_out says so."""
    trace = mixed_trace()
    sel = Selection(program="P1", limit=2)
    for version in (1, 2):
        got = lines_of(write_jsonl, trace, selection=sel, version=version)
        assert sum(r["record"] == "execution" for r in got) == 2
        assert got[-1]["left_out"] == lines_of(write_jsonl, trace, selection=sel)[-1]["left_out"]
    rows2 = [r for r in lines_of(write_jsonl, trace, selection=sel, version=2) if r["record"] == "execution"]
    assert [r["program"] for r in rows2] == ["P1"] * 2
    assert document(trace, selection=sel, version=2)["left_out"] == document(trace, selection=sel)["left_out"]


@pytest.mark.parametrize("name,trace", _threaded_traces(), ids=lambda x: x if isinstance(x, str) else "")
def test_version_2_rows_made_on_worker_threads_are_the_single_threaded_bytes(monkeypatch, name, trace):
    """Blocks of a few rows on three workers, chunks of a few rows, as few buffers in flight as workers: the bytes
    of one thread, for whole traces and selections."""
    selections = [Selection(), Selection(program="Shadow", limit=3), Selection(primary=(5, 40), limit=9)]
    writers = (partial(write_json, version=2), partial(write_jsonl, version=2))
    want = {}
    for w, write in enumerate(writers):
        for i, sel in enumerate(selections):
            out = io.BytesIO()
            write(trace, out, selection=sel, threads=0)
            want[w, i] = out.getvalue()
    monkeypatch.setattr(blockwriter, "BLOCK", 3000)
    monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 11)
    monkeypatch.setattr(output, "BLOCKS_AHEAD", 3)
    for w, write in enumerate(writers):
        for i, sel in enumerate(selections):
            out = io.BytesIO()
            write(trace, out, selection=sel, threads=3)
            assert out.getvalue() == want[w, i], (w, sel)


def test_names_are_json_strings_whatever_they_hold():
    """A name with a quote, a backslash, a control character or a non-ASCII letter is one JSON string."""
    from d3d12wl.output.table import ColumnSpec

    names = ['Op"aque\\', "Tr\u00e4ns\tparent", "\u5f71"]
    specs = [ColumnSpec("index", "int"), ColumnSpec("program", "category", "program", True),
             ColumnSpec("va", "va", None, True)]
    f = RowFormatter([row_template(specs, lambda s: names, trail="\n")])
    got = bytes(f.format({"index": np.array([0, -5, 7]), "program": np.array([0, 1, -1], dtype=np.int32),
                          "va": np.array([2**64 - 1, 0, 16], dtype=np.uint64)}, 3, None,
                         {"va": np.array([False, True, False])}))
    assert [json.loads(x) for x in got.splitlines()] == [
        {"index": 0, "program": names[0], "va": 2**64 - 1}, {"index": -5, "program": names[1], "va": None},
        {"index": 7, "program": None, "va": 16}]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", *args], capture_output=True, text=True, check=False)


def test_diff_reads_version_1_and_names_what_to_save_for_version_2(tmp_path: Path):
    """``exec --json`` is version 1, the trace diff compares; a version 2 document is exit 2 saying what to save."""
    v1, v2 = tmp_path / "v1.json", tmp_path / "v2.json"
    assert cli("exec", "--json", "-o", str(v1)).returncode == 0
    assert cli("exec", "--format", "json", "-o", str(v2)).returncode == 0
    assert "version" not in json.loads(v1.read_text()) and json.loads(v2.read_text())["version"] == 2
    assert cli("diff", str(v1), str(v1)).returncode == 0
    got = cli("diff", str(v2), str(v1))
    assert got.returncode == 2 and str(v2) in got.stderr and "--json-version 1" in got.stderr
    assert "Traceback" not in got.stderr
