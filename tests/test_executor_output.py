"""Streaming output (d3d12wl.executor.output, ``d3d12wl exec --format``): the same JSON as Trace.to_dict, written
item by item; JSON lines; the execution table as CSV and npz."""

from __future__ import annotations

import csv
import glob
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from test_executor_columnar import culling_scene, place

from d3d12wl.capture.file import load_capture
from d3d12wl.executor import execute, run
from d3d12wl.executor.columnar import execution_columns
from d3d12wl.executor.output import write_csv, write_json, write_jsonl, write_npz
from d3d12wl.executor.trace import Limits, Trace

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(glob.glob(str(ROOT / "d3d12wl" / "examples" / "*_capture.json")))


def mixed_trace() -> Trace:
    """Columns, reference-walked records (an out-of-range index) and a partial record (a limit inside a secondary
    list)."""
    s, prims = culling_scene(30)
    prims[7][0:4] = (9).to_bytes(4, "little")
    return run(s.memory, s.device, s.objects, s.state, place(s, prims), Limits(max_executions=80))


def traces() -> list[Trace]:
    return [*(execute(load_capture(p)) for p in EXAMPLES), mixed_trace()]


@pytest.mark.parametrize("trace", traces(), ids=lambda t: t.call)
def test_streamed_json_is_json_dump_of_to_dict(trace):
    out = io.StringIO()
    write_json(trace, out)
    assert out.getvalue() == json.dumps(trace.to_dict(), indent=1) + "\n"


def test_jsonl_has_every_record_on_its_own_line():
    trace = mixed_trace()
    out = io.StringIO()
    write_jsonl(trace, out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    kinds = [r["record"] for r in records]
    assert kinds[0] == "call" and kinds[-1] == "end"
    assert kinds.count("execution") == len(trace.executions) and kinds.count("finding") == len(trace.findings)
    assert kinds.count("primary_record") == len(trace.lists[0].primary_records)
    first = next(r for r in records if r["record"] == "execution")
    assert {k: v for k, v in first.items() if k != "record"} == trace.to_dict()["executions"][0]


def test_csv_and_npz_hold_the_execution_table(tmp_path, monkeypatch):
    import d3d12wl.executor.output as output

    monkeypatch.setattr(output, "CHUNK_ROWS", 7)  # several chunks
    trace = mixed_trace()
    table = execution_columns(trace.executions)
    out = io.StringIO()
    write_csv(trace, out)
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert len(rows) == len(trace.executions) == 80
    assert [int(r["secondary_index"]) for r in rows] == table.columns["secondary_index"].tolist()
    assert {r["program"] for r in rows} == {e.program for e in trace.executions}
    assert [int(r["root.G1"]) for r in rows] == [e.root_argument("global", 1).value for e in trace.executions]
    assert {r["root.G1.source"] for r in rows} == {"secondary"}
    write_npz(trace, tmp_path / "t.npz")  # in chunks of 7 rows
    with np.load(tmp_path / "t.npz") as z:
        assert set(z.files) == {*table.columns, "names.program", "names.pcs", "names.trigger", "names.source"}
        for name, col in table.columns.items():
            if name in ("program", "pcs", "trigger") or name.endswith(".source"):  # codes in first-met order
                key = "source" if name.endswith(".source") else name
                assert [z[f"names.{key}"][c] for c in z[name]] == [table.names[key][c] for c in col]
            else:
                assert np.array_equal(z[name], col), name


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", "exec", *args], capture_output=True, text=True,
                          check=False)


def test_exec_format_flags(tmp_path):
    as_json = cli("--json")
    assert as_json.returncode == 0 and cli("--format", "json").stdout == as_json.stdout
    assert json.loads(as_json.stdout) == execute(load_capture(EXAMPLES[0])).to_dict()
    lines = cli("--format", "jsonl").stdout.splitlines()
    assert json.loads(lines[0])["record"] == "call"
    assert cli("--format", "csv").stdout.splitlines()[0].startswith("index,list_index")
    assert cli("--format", "npz", "-o", str(tmp_path / "x.npz")).returncode == 0
    assert np.load(tmp_path / "x.npz")["index"].tolist() == list(range(9))
    assert cli("--json", "--format", "csv").returncode == 2


@pytest.mark.parametrize("command", ["exec", "dump"])
def test_an_internal_error_exits_3(monkeypatch, capsys, command):
    import d3d12wl.executor
    from d3d12wl.cli import main

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(d3d12wl.executor, "execute", broken)
    assert main([command]) == 3
    assert "internal error" in capsys.readouterr().err


def test_parquet_holds_the_execution_table(tmp_path, monkeypatch):
    """``--format parquet`` (the optional pyarrow extra; .ci/run installs it): row groups of CHUNK_ROWS, codes as
    names."""
    pq = pytest.importorskip("pyarrow.parquet")
    import d3d12wl.executor.output as output

    monkeypatch.setattr(output, "CHUNK_ROWS", 16)
    trace = mixed_trace()
    output.write_parquet(trace, str(tmp_path / "t.parquet"))
    got = pq.read_table(tmp_path / "t.parquet")
    table = execution_columns(trace.executions)
    assert got.num_rows == len(trace.executions) and pq.ParquetFile(tmp_path / "t.parquet").num_row_groups == 5
    assert got.column("secondary_index").to_pylist() == table.columns["secondary_index"].tolist()
    assert got.column("program").to_pylist() == [e.program for e in trace.executions]
    assert got.column("root.G1").to_pylist() == [e.root_argument("global", 1).value for e in trace.executions]
    assert cli("--format", "parquet", "-o", str(tmp_path / "x.parquet")).returncode == 0
    assert pq.read_table(tmp_path / "x.parquet").num_rows == 9


def test_parquet_without_pyarrow_is_an_unusable_request(monkeypatch, tmp_path):
    from d3d12wl.errors import D3D12WLError
    from d3d12wl.executor.output import write_parquet

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(D3D12WLError, match=r"d3d12wl\[parquet\]"):
        write_parquet(mixed_trace(), str(tmp_path / "t.parquet"))
