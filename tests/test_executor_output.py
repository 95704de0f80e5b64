"""Streaming output (d3d12wl.executor.output, ``d3d12wl exec --format``): every format from the trace's columns, the
verdict (findings and the end-of-call reset) in every one as a user reads it back (json, numpy, pyarrow, csv), one
encoding per value, the selection, the exit-1 line on stderr, and atomic files."""

from __future__ import annotations

import csv
import glob
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import sigint_default
from test_executor_columnar import culling_scene, place

from d3d12wl import abi
from d3d12wl.capture.file import load_capture, save_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute, output, rows, run, trace_tables
from d3d12wl.executor.execution_table import execution_columns, is_field_column
from d3d12wl.executor.output import TABLE_VERSION, VERDICT_COLUMNS, write_csv, write_json, write_jsonl, write_npz
from d3d12wl.executor.selection import Selection
from d3d12wl.executor.trace import Limits, Trace
from d3d12wl.output import arrowcols, blockwriter

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(glob.glob(str(ROOT / "d3d12wl" / "examples" / "*_capture.json")))
sys.path.insert(0, str(ROOT / "tools"))
from bench_executor import culling_capture, execute_indirect_capture  # noqa: E402

sys.path.pop(0)


def mixed_trace() -> Trace:
    """Columns, reference-walked records (an out-of-range index: a finding) and a partial record (a limit inside a
    secondary list: a limit-exceeded finding)."""
    s, prims = culling_scene(30)
    prims[7][0:4] = (9).to_bytes(4, "little")
    return run(s.memory, s.device, s.objects, s.state, place(s, prims), Limits(max_executions=80))


def traces() -> list[Trace]:
    return [*(execute(load_capture(p)) for p in EXAMPLES), mixed_trace(), execute(culling_capture(640, 16)),
            execute(execute_indirect_capture(300))]


def bad_frame(tmp_path: Path, draws: int = 400, per_record: int = 4, bad: tuple[int, ...] = (3, 17)) -> Path:
    """The builder's culling frame (tools/bench_executor.py) saved, with primary records ``bad`` selecting slot 99
    (``program-table-index-out-of-range``: exit 1)."""
    capture = culling_capture(draws, per_record)
    memory = GpuMemory()
    for r in capture.memory.regions:
        memory.map(r.base, bytearray(r.data), name=r.name, writable=True)
    first = int.from_bytes(memory.read(capture.call.DispatchListInput + 8, 8), "little")  # ProgramInputs
    for i in bad:
        memory.write(first + 16 * i, (99).to_bytes(4, "little"))  # the culling PCS's 16-byte primary records
    capture.memory = memory
    return save_capture(capture, tmp_path / "frame_capture.json")


# -- JSON, JSON lines, text: the same bytes from the columns ----------------------------------------------------


@pytest.mark.parametrize("trace", traces(), ids=lambda t: f"{t.call}-{len(t.executions)}")
def test_streamed_json_is_json_dump_of_to_dict(trace):
    out = io.StringIO()
    write_json(trace, out)
    assert out.getvalue() == json.dumps(trace.to_dict(), indent=1) + "\n"


def test_json_from_columns_in_small_blocks(monkeypatch):
    """Blocks of a few rows (d3d12wl.output.blockwriter.BLOCK) and windows of a few record rows give the same bytes."""
    trace = execute(culling_capture(96, 8))
    want = json.dumps(trace.to_dict(), indent=1) + "\n"
    monkeypatch.setattr(blockwriter, "BLOCK", 4096)
    monkeypatch.setattr(rows, "RECORD_ROWS", 7)
    monkeypatch.setattr(rows, "VIRTUAL_ROWS", 5)
    out = io.BytesIO()
    write_json(trace, out)
    assert out.getvalue().decode() == want


def _threaded_traces() -> list[tuple[str, Trace]]:
    s, prims = culling_scene(45, secondaries_each=1)
    for p in prims[:12] + prims[30:]:
        p[0:4] = (7).to_bytes(4, "little")  # runs of records skipped, each with a finding
    return [("mixed", mixed_trace()), ("culling", execute(culling_capture(600, 4))),
            ("indirect", execute(execute_indirect_capture(300))),
            ("findings", run(s.memory, s.device, s.objects, s.state, place(s, prims), Limits(max_findings=4096)))]


@pytest.mark.parametrize("name,trace", _threaded_traces(), ids=lambda x: x if isinstance(x, str) else "")
def test_rows_made_on_worker_threads_are_the_single_threaded_bytes(monkeypatch, name, trace):
    """The rows made on worker threads and written in order on a writer thread (d3d12wl.output.blockwriter) are the
    bytes of making and writing them in turn: for blocks of several sizes (a block a few rows, records a few at a
    time, as few buffers in flight as workers), whole traces and selections, json and JSON lines, findings and
    skipped records from columns; the human text; and the execution table as CSV (in chunks of a few rows too)."""
    selections = [Selection(), Selection(program="Shadow", limit=3), Selection(primary=(5, 40), limit=9),
                  Selection(kinds=frozenset({"program-table-index-out-of-range"}), limit=5, primary=(0, 50))]
    writers = (write_json, write_jsonl, output.write_text, write_csv)
    want = {}
    for write in writers:
        for i, sel in enumerate(selections):
            out = io.BytesIO()
            write(trace, out, selection=sel, threads=0)
            want[write.__name__, i] = out.getvalue()
    assert want["write_json", 0].decode() == json.dumps(trace.to_dict(), indent=1) + "\n"
    for block, records, virtual, ahead, chunk in ((1 << 22, 1 << 15, 1 << 14, None, trace_tables.CHUNK_ROWS),
                                                  (3000, 40, 7, 3, 50)):
        monkeypatch.setattr(blockwriter, "BLOCK", block)
        monkeypatch.setattr(rows, "RECORD_ROWS", records)
        monkeypatch.setattr(rows, "VIRTUAL_ROWS", virtual)
        monkeypatch.setattr(output, "BLOCKS_AHEAD", ahead)
        monkeypatch.setattr(trace_tables, "CHUNK_ROWS", chunk)
        for write in writers:
            for i, sel in enumerate(selections):
                out = io.BytesIO()
                write(trace, out, selection=sel, threads=3)
                assert out.getvalue() == want[write.__name__, i], (write.__name__, sel, block)


@pytest.mark.parametrize("fmt", ["json", "jsonl", "csv"])
@pytest.mark.parametrize("error", [RuntimeError, KeyboardInterrupt])
def test_an_error_of_a_row_worker_leaves_the_old_file_and_no_thread(tmp_path, monkeypatch, fmt, error):
    """An exception raised on a worker thread as it makes a block (a bug; an interrupt) is raised in the caller's
    thread, the old file stays whole, no temporary file is left, and no worker or writer thread outlives the
    write."""
    import threading

    from d3d12wl.cli.exec_cmd import write_trace
    from d3d12wl.output import blockwriter, textrows

    trace = execute(culling_capture(2000, 4))
    target = tmp_path / f"t.{fmt}"
    target.write_bytes(b"old")
    monkeypatch.setattr(blockwriter, "default_workers", lambda: 3)
    monkeypatch.setattr(blockwriter, "BLOCK", 4096)
    real = textrows.PreparedRows.make
    calls = [0]

    def broken(self, *args, **kwargs):
        calls[0] += 1
        if calls[0] == 30:
            assert threading.current_thread() is not threading.main_thread()
            raise error("worker")
        return real(self, *args, **kwargs)

    monkeypatch.setattr(textrows.PreparedRows, "make", broken)
    with pytest.raises(error, match="worker"):
        write_trace(trace, fmt, str(target))
    assert calls[0] >= 30 and target.read_bytes() == b"old" and os.listdir(tmp_path) == [target.name]
    assert not [t for t in threading.enumerate() if t.name.startswith("d3d12wl-")]


@pytest.mark.skipif(not hasattr(os, "mkfifo") or not hasattr(__import__("fcntl"), "F_SETPIPE_SZ"),
                    reason="needs FIFOs and F_SETPIPE_SZ")
@pytest.mark.parametrize("fmt", ["json", "jsonl"])  # (text, on the same writer, is 3 KB: it fits the pipe)
def test_an_interrupt_is_not_held_up_by_a_fifo_nobody_reads(tmp_path, fmt):
    """``exec -o FIFO`` whose reader holds the FIFO open and reads nothing (``| less``, paused): the writer thread
    is blocked in its write, and a Ctrl-C still ends the run (exit 130) while the reader waits, as it did when the
    caller's own thread wrote (the writer thread, once left, writes nothing more)."""
    import fcntl
    import signal
    import termios
    import time

    fifo = tmp_path / f"out.{fmt}"
    os.mkfifo(fifo)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        fcntl.fcntl(reader, fcntl.F_SETPIPE_SZ, 4096)  # (the bundled example's 30 KB cannot fit)
        p = subprocess.Popen([sys.executable, "-m", "d3d12wl", "exec", "--format", fmt, "-o", str(fifo), "--quiet"],
                             stderr=subprocess.PIPE, text=True, cwd=ROOT, preexec_fn=sigint_default)
        deadline = time.monotonic() + 60
        while not int.from_bytes(fcntl.ioctl(reader, termios.FIONREAD, b"\0" * 4), sys.byteorder):
            assert p.poll() is None and time.monotonic() < deadline, "nothing was written"
            time.sleep(0.02)
        time.sleep(0.3)  # (the writing began: the rest cannot fit, the writer is blocked in its write)
        p.send_signal(signal.SIGINT)
        try:
            _, err = p.communicate(timeout=30)  # (with the reader still there: held up, it would never end)
        finally:
            p.kill()
        assert p.returncode == 130 and "interrupted" in err, err
    finally:
        os.close(reader)


def test_jsonl_has_every_record_on_its_own_line():
    trace = mixed_trace()
    out = io.StringIO()
    write_jsonl(trace, out)
    records = [json.loads(line) for line in out.getvalue().splitlines()]
    kinds = [r["record"] for r in records]
    assert kinds[0] == "call" and kinds[-1] == "end"
    assert kinds.count("execution") == len(trace.executions) and kinds.count("finding") == len(trace.findings) == 2
    assert kinds.count("primary_record") == len(trace.lists[0].primary_records)
    assert kinds.count("reset") == len(trace.end_of_call_reset) == 1
    first = next(r for r in records if r["record"] == "execution")
    assert {k: v for k, v in first.items() if k != "record"} == trace.to_dict()["executions"][0]
    end = records[-1]
    assert end["exit_status"] == 1 and end["findings_by_kind"] == {"program-table-index-out-of-range": 1,
                                                                   "limit-exceeded": 1}


def test_text_is_the_object_rendering():
    """The human text from the columns is the reference's, written line by line from the objects."""
    from d3d12wl.executor.rows import text_line

    trace = mixed_trace()
    out = io.BytesIO()
    output.write_text(trace, out)
    lines = out.getvalue().decode().splitlines()
    start = lines.index(f"executions ({len(trace.executions)})")
    assert lines[start + 1: start + 1 + len(trace.executions)] == [text_line(e) for e in trace.executions]
    assert lines[-4:] == ["findings (2)", *(f"  {f}" for f in trace.findings), f"stopped: {trace.stopped_reason}"]


# -- the table formats: one encoding per value, the verdict beside the executions ----------------------------


def test_table_columns_order_and_kinds():
    """Trigger members in struct order (the compiled headers'), then root arguments by binding and parameter, then
    IA bindings by slot; each column's kind says how every format writes it."""
    trace = execute(load_capture(EXAMPLES[1]))  # ExecuteIndirect: root constants, views, a vertex buffer, DRAW
    specs = trace_tables.table_columns(trace)
    names = [s.name for s in specs]
    draw = [f.name for f in abi.type_info("D3D12_DRAW_ARGUMENTS").fields]
    assert [n.removeprefix("trigger.") for n in names if n.startswith("trigger.")] == draw
    assert names.index("root.G0") < names.index("root.G2[0]") < names.index("ia.vb3.BufferLocation")
    kinds = {s.name: s.kind for s in specs}
    assert kinds["command_va"] == kinds["root.G1"] == kinds["ia.vb3.BufferLocation"] == "va"
    assert kinds["root.G2[0]"] == "dword" and kinds["program"] == kinds["root.G1.source"] == "category"
    assert {s.name for s in specs if s.nullable} >= {"list_index", "primary_va", "program", "secondary_index"}
    assert execution_columns(trace.executions).columns.keys() == set(names)


def test_csv_one_encoding_per_value(tmp_path, monkeypatch):
    monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 7)  # several chunks
    trace = mixed_trace()
    out = io.BytesIO()
    write_csv(trace, out)
    got = list(csv.DictReader(io.StringIO(out.getvalue().decode())))
    assert len(got) == len(trace.executions) == 80
    for row, e in zip(got, trace.executions, strict=True):
        assert row["primary_va"] == f"0x{e.record_va['primary']:x}" and row["command_va"] == ""  # absent: empty
        assert row["program"] == e.program and row["trigger"] == "DRAW" and row["executable_class"] == "GRAPHICS"
        assert row["root.G1"] == f"0x{e.root_argument('global', 1).value:x}" and row["root.G1.source"] == "secondary"
        assert row["counter"] == "" and int(row["secondary_index"]) == e.secondary_index
        assert row["root.L0[0]"] == f"0x{e.root_argument('local', 0).values[0]:x}"


def test_csv_ia_enum_by_name():
    """An enum member (the index buffer's DXGI_FORMAT) is its name in CSV, a dictionary column in Parquet."""
    from test_executor_execute_indirect import ARGS_VA, ei_scene

    from d3d12wl.model.state import ExecuteIndirectCall, IndexBufferView

    s, cs = ei_scene(3)
    s.state.index_buffer = IndexBufferView(0x7000, 64, abi.enum_value("DXGI_FORMAT", "R16_UINT"))
    trace = run(s.memory, s.device, s.objects, s.state, ExecuteIndirectCall(cs, 3, ARGS_VA))
    assert len(trace.executions) == 3
    out = io.BytesIO()
    write_csv(trace, out)
    got = list(csv.DictReader(io.StringIO(out.getvalue().decode())))
    assert {r["ia.ib.Format"] for r in got} == {"R16_UINT"} and {r["ia.ib.BufferLocation"] for r in got} == {"0x7000"}
    pq = pytest.importorskip("pyarrow.parquet")
    buf = io.BytesIO()
    output.write_parquet(trace, buf)
    table = pq.read_table(io.BytesIO(buf.getvalue()))
    assert str(table.schema.field("ia.ib.Format").type).startswith("dictionary")
    assert set(table.column("ia.ib.Format").to_pylist()) == {"R16_UINT"}


def test_npz_loads_into_a_dataframe_in_one_call(tmp_path, monkeypatch):
    """``executions``: one structured array (every column the same length), the verdict table ``findings``, the
    name tables, ``meta``; the values are the table's, absent ones flagged."""
    monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 7)
    trace = mixed_trace()
    table = execution_columns(trace.executions)
    write_npz(trace, tmp_path / "t.npz")
    with np.load(tmp_path / "t.npz") as z:
        ex = z["executions"]
        assert len(ex) == 80 and ex.dtype.names is not None
        for name, col in table.columns.items():
            if name in ("executable_class", "program", "pcs", "trigger") or name.endswith(".source") or \
                    is_field_column(name):
                key = "source" if name.endswith(".source") else "field" if is_field_column(name) else name
                assert [z[f"names.{key}"][c] if c >= 0 else None for c in ex[name]] == \
                    [table.names[key][c] if c >= 0 else None for c in col], name
            else:
                gone = table.is_absent(name)
                assert np.array_equal(ex[name][~gone], col[~gone]), name
                if gone.any():
                    assert np.array_equal(ex[f"{name}.absent"], gone), name
        f = z["findings"]
        kinds = z["names.findings.kind"]
        assert [kinds[c] for c in f["kind"] if c >= 0] == [x.kind for x in trace.findings]
        assert list(z["names.findings.record"][f["record"]]) == ["finding", "finding", "reset"]
        meta = json.loads(str(z["meta"]))
        assert meta["version"] == TABLE_VERSION and meta["exit_status"] == 1 and meta["executions"] == 80
    pd = pytest.importorskip("pandas")
    df = pd.DataFrame(np.load(tmp_path / "t.npz")["executions"])
    assert len(df) == 80 and df["primary_va"].dtype == np.uint64


def test_parquet_dictionary_nulls_and_the_verdict(tmp_path, monkeypatch):
    """Row groups of CHUNK_ROWS; names as dictionary columns, VAs uint64, absent values null; the verdict in the
    schema's key-value metadata and in the verdict table."""
    pq = pytest.importorskip("pyarrow.parquet")
    pa = pytest.importorskip("pyarrow")
    monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 16)
    trace = mixed_trace()
    output.write_parquet(trace, str(tmp_path / "t.parquet"), verdict_file="t.findings.parquet")
    output.write_verdict_parquet(trace, str(tmp_path / "t.findings.parquet"))
    got = pq.read_table(tmp_path / "t.parquet")
    assert got.num_rows == 80 and pq.ParquetFile(tmp_path / "t.parquet").num_row_groups == 5
    assert got.schema.field("primary_va").type == pa.uint64()
    assert pa.types.is_dictionary(got.schema.field("program").type)
    assert got.column("program").to_pylist() == [e.program for e in trace.executions]
    assert got.column("counter").null_count == 80 and got.column("command_index").null_count == 80
    assert got.column("root.G1").to_pylist() == [e.root_argument("global", 1).value for e in trace.executions]
    meta = json.loads(got.schema.metadata[b"d3d12wl"])
    assert meta["exit_status"] == 1 and meta["findings_by_kind"]["limit-exceeded"] == 1
    assert meta["findings_file"] == "t.findings.parquet" and meta["end_of_call_reset"][0]["what"] == "root view"
    assert [f["kind"] for f in json.loads(got.schema.metadata[b"d3d12wl.findings"])] == \
        [f.kind for f in trace.findings]
    verdict = pq.read_table(tmp_path / "t.findings.parquet")
    assert verdict.column_names == list(VERDICT_COLUMNS)
    assert verdict.column("record").to_pylist() == ["finding", "finding", "reset"]
    assert verdict.column("va").to_pylist()[:2] == [f.va for f in trace.findings]


def test_parquet_without_pyarrow_is_an_unusable_request(monkeypatch, tmp_path):
    from d3d12wl.errors import D3D12WLError

    monkeypatch.setitem(sys.modules, "pyarrow", None)  # import pyarrow raises ImportError
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(D3D12WLError, match=r"d3d12wl\[parquet\]"):
        output.write_parquet(mixed_trace(), str(tmp_path / "t.parquet"))


# -- selection --------------------------------------------------------------------------------------------------


def test_selection_bounds_every_kind_of_row():
    """--limit N: at most N executions, N primary records, N secondary records and N findings, the first in the
    trace's order; each output says what it left out."""
    trace = execute(culling_capture(3000, 4))  # 750 records, programs round-robin
    sel = Selection(program="Shadow", primary=(10, 40), limit=2)
    out = io.BytesIO()
    written = write_json(trace, out, selection=sel)
    doc = json.loads(out.getvalue())
    assert [p["index"] for p in doc["lists"][0]["primary_records"]] == [11, 14]
    assert [len(p["secondary_records"]) for p in doc["lists"][0]["primary_records"]] == [2, 0]
    assert [e["program"] for e in doc["executions"]] == ["Shadow", "Shadow"]
    assert doc["left_out"] == {"executions": 10 * 4 - 2, "primary_records": {"0": 8}, "secondary_records": 6,
                               "findings": 0}
    assert written.left_out.executions == 38
    jl = io.BytesIO()
    write_jsonl(trace, jl, selection=sel)
    lines = [json.loads(x) for x in jl.getvalue().splitlines()]
    assert sum(r["record"] == "execution" for r in lines) == 2 and lines[-1]["left_out"]["executions"] == 38
    text = io.BytesIO()
    output.write_text(trace, text, selection=sel)
    assert "\n38 executions left out (raise --limit" in text.getvalue().decode()  # (the text lists no records)
    c = io.BytesIO()
    write_csv(trace, c, selection=sel)
    assert len(c.getvalue().decode().splitlines()) == 3


def test_selection_of_findings_by_kind():
    trace = mixed_trace()
    out = io.BytesIO()
    write_json(trace, out, selection=Selection(kinds=frozenset({"limit-exceeded"})))
    doc = json.loads(out.getvalue())
    assert [f["kind"] for f in doc["findings"]] == ["limit-exceeded"] and len(doc["executions"]) == 80


# -- the command line: the verdict wherever the executions go, the exit-1 line, atomic files ----------------------


def cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", "exec", *args], capture_output=True, text=True,
                          check=False, cwd=cwd)


def test_exec_format_flags(tmp_path):
    as_json = cli("--json")
    assert as_json.returncode == 0 and cli("--format", "json", "--json-version", "1").stdout == as_json.stdout
    assert json.loads(as_json.stdout) == execute(load_capture(EXAMPLES[0])).to_dict()
    assert json.loads(cli("--format", "json").stdout)["version"] == 2
    assert cli("--json", "--json-version", "2").stdout == cli("--format", "json").stdout
    lines = cli("--format", "jsonl").stdout.splitlines()
    assert json.loads(lines[0])["record"] == "call" and json.loads(lines[0])["version"] == 2
    assert "version" not in json.loads(cli("--format", "jsonl", "--json-version", "1").stdout.splitlines()[0])
    for bad in (("--format", "csv", "--json-version", "2"), ("--format", "json", "--json-version", "3")):
        got = cli(*bad)
        assert got.returncode == 2 and "--json-version" in got.stderr and "Traceback" not in got.stderr
    assert cli("--format", "csv").stdout.splitlines()[0].startswith("index,list_index")
    assert cli("--format", "npz", "-o", str(tmp_path / "x.npz")).returncode == 0
    assert np.load(tmp_path / "x.npz")["executions"]["index"].tolist() == list(range(9))
    assert cli("--json", "--format", "csv").returncode == 2
    assert cli("--format", "json", "--findings", "x").returncode == 2


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "csv", "npz", "parquet"])
def test_the_verdict_in_every_format(tmp_path, fmt):
    """A frame with error findings: exit 1, one line on stderr with the findings by kind and where they went, and
    the findings read back from what was written, as a user reads it."""
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    frame = bad_frame(tmp_path)
    out = tmp_path / f"out.{fmt}"
    p = cli(str(frame), "--format", fmt, "-o", str(out))
    assert p.returncode == 1, p.stderr
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and "2 error findings (program-table-index-out-of-range 2)" in err[0]
    kinds: list[str]
    if fmt == "text":
        text = out.read_text()
        kinds = [line.split()[1] for line in text.splitlines() if line.startswith("  error: ")]
        assert f"written to {str(out)!r}" in err[0]
    elif fmt == "json":
        kinds = [f["kind"] for f in json.loads(out.read_text())["findings"]]
    elif fmt == "jsonl":
        kinds = [r["kind"] for r in map(json.loads, out.read_text().splitlines()) if r["record"] == "finding"]
    elif fmt == "csv":
        side = tmp_path / "out.findings.csv"
        assert f"written to {str(side)!r}" in err[0]
        got = list(csv.DictReader(side.open()))
        kinds = [r["kind"] for r in got if r["record"] == "finding"]
        assert [r["what"] for r in got if r["record"] == "reset"] == ["root view"]
        assert all(r["va"].startswith("0x") for r in got if r["record"] == "finding")
    elif fmt == "npz":
        z = np.load(out)
        f = z["findings"]
        kinds = [z["names.findings.kind"][c] for c in f["kind"] if c >= 0]
    else:
        import pyarrow.parquet as pq

        meta = json.loads(pq.read_schema(out).metadata[b"d3d12wl"])
        assert meta["exit_status"] == 1 and meta["findings_file"] == "out.findings.parquet"
        verdict = pq.read_table(tmp_path / "out.findings.parquet").to_pylist()
        kinds = [r["kind"] for r in verdict if r["record"] == "finding"]
    assert kinds == ["program-table-index-out-of-range"] * 2


def test_exit_1_line_for_a_table_on_standard_output(tmp_path):
    """csv on standard output: the verdict table has nowhere to go but --findings PATH; the line says so."""
    frame = bad_frame(tmp_path)
    p = cli(str(frame), "--format", "csv")
    assert p.returncode == 1 and "needs --findings PATH" in p.stderr
    p = cli(str(frame), "--format", "csv", "--findings", str(tmp_path / "v.csv"))
    assert p.returncode == 1 and (tmp_path / "v.csv").read_text().startswith(",".join(VERDICT_COLUMNS))


def test_npz_and_parquet_stream_to_standard_output(tmp_path):
    frame = bad_frame(tmp_path)
    p = subprocess.run([sys.executable, "-m", "d3d12wl", "exec", str(frame), "--format", "npz"],
                       capture_output=True, check=False)
    assert p.returncode == 1
    z = np.load(io.BytesIO(p.stdout))
    assert len(z["executions"]) == 400 - 2 * 4 and len(z["findings"]) == 3


def test_exec_selection_flags(tmp_path):
    frame = bad_frame(tmp_path, draws=3000)
    p = cli(str(frame), "--format", "jsonl", "--program", "Shadow", "--limit", "2", "--kind",
            "program-table-index-out-of-range")
    assert p.returncode == 1
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    assert sum(r["record"] == "execution" for r in lines) == 2
    assert sum(r["record"] == "primary_record" for r in lines) == 2
    assert lines[-1]["left_out"]["findings"] == 0 and lines[-1]["left_out"]["executions"] > 0
    assert cli(str(frame), "--kind", "no-such-kind").returncode == 2
    assert cli(str(frame), "--primary", "x:y").returncode == 2


def test_an_unwritable_output_is_exit_2_naming_it(tmp_path):
    p = cli("--format", "csv", "-o", str(tmp_path / "no" / "such" / "dir.csv"))
    assert p.returncode == 2 and "dir.csv" in p.stderr and "does not exist" in p.stderr


@pytest.mark.parametrize("fmt", ["json", "csv", "npz"])
def test_a_failing_write_leaves_the_old_file(tmp_path, monkeypatch, fmt):
    """An exception in the middle of writing (a bug, SIGINT, a full disk) leaves the old file (and the old
    sidecar), never a torn one, and no temporary file behind."""
    from d3d12wl.cli.exec_cmd import write_trace

    trace = mixed_trace()
    target = tmp_path / f"t.{fmt}"
    target.write_bytes(b"old")
    side = tmp_path / f"t.findings.{fmt}"
    side.write_bytes(b"old side")
    calls = [0]
    real = rows.RowFormatter.prepare if fmt != "npz" else output.pack_columns

    def broken(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 2:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    if fmt == "npz":
        monkeypatch.setattr(output, "pack_columns", broken)
        monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 16)
    else:
        monkeypatch.setattr(rows.RowFormatter, "prepare", broken)
        monkeypatch.setattr(blockwriter, "BLOCK", 2048)
    with pytest.raises(KeyboardInterrupt):
        write_trace(trace, fmt, str(target))
    assert target.read_bytes() == b"old" and side.read_bytes() == b"old side"
    assert sorted(os.listdir(tmp_path)) == sorted([side.name, target.name])


def test_parquet_interrupted_or_failing_in_its_encoder_thread_leaves_the_old_file(tmp_path, monkeypatch):
    """Parquet row groups are encoded on a thread of their own (d3d12wl.output.parquet_table.ParquetStream): an interrupt of the
    maker and an error of the encoder (a full disk) both end the write with the old file and sidecar kept, no
    temporary file left, and the error raised in the caller's thread (the full disk as outfiles names it)."""
    pytest.importorskip("pyarrow")
    from d3d12wl.cli.exec_cmd import write_trace

    trace = mixed_trace()
    target, side = tmp_path / "t.parquet", tmp_path / "t.findings.parquet"
    target.write_bytes(b"old")
    side.write_bytes(b"old side")
    monkeypatch.setattr(trace_tables, "CHUNK_ROWS", 16)
    real = arrowcols.numbers
    calls = [0]

    def interrupted(*args, **kwargs):
        calls[0] += 1
        if calls[0] == 40:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(arrowcols, "numbers", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_trace(trace, "parquet", str(target))
    monkeypatch.setattr(arrowcols, "numbers", real)
    import pyarrow.parquet as pq

    writes = [0]
    real_write = pq.ParquetWriter.write_table

    def full(self, table, *args, **kwargs):
        writes[0] += 1
        if writes[0] == 2:
            raise OSError(27, "File too large")
        return real_write(self, table, *args, **kwargs)

    monkeypatch.setattr(pq.ParquetWriter, "write_table", full)
    from d3d12wl.output.outfiles import OutputError

    with pytest.raises(OutputError, match="file-size limit"):  # (exit 2 naming the file)
        write_trace(trace, "parquet", str(target))
    assert target.read_bytes() == b"old" and side.read_bytes() == b"old side"
    assert sorted(os.listdir(tmp_path)) == sorted([side.name, target.name])


def test_a_verdict_table_is_not_committed_when_its_executions_fail_on_a_full_device(tmp_path):
    """``exec --format csv -o /dev/full --findings SIDE``: the executions' device fails (ENOSPC) before the verdict
    table takes its name, so SIDE keeps what it had (issue 26's campaign, seed 30029837: the sidecar was renamed
    into place, then the device failed: exit 2 with SIDE changed)."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    side = tmp_path / "side.csv"
    side.write_text("old")
    p = cli(str(EXAMPLES[0]), "--format", "csv", "-o", "/dev/full", "--findings", str(side))
    assert p.returncode == 2 and "/dev/full" in p.stderr, p.stderr
    assert side.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["side.csv"]


def test_findings_of_every_record_stream_from_columns(tmp_path):
    """Every record bad (D3D12_WORK_LIST_PRIMARY_RECORD::ProgramTableIndex >= SlotCount): the findings and the
    skipped records are columns in the trace (d3d12wl.executor.columnar), and every output writes them from the
    columns exactly as from the reference's objects."""
    s, prims = culling_scene(3000, secondaries_each=1)
    for p in prims:
        p[0:4] = (7).to_bytes(4, "little")
    call = place(s, prims)
    limits = Limits(max_findings=1 << 20)
    fast = run(s.memory, s.device, s.objects, s.state, call, limits)
    ref = run(s.memory, s.device, s.objects, s.state, call, limits, engine="reference")
    assert len(fast.findings.segments) < 5 and len(fast.findings) == 3000 and fast.has_errors
    for write in (write_json, write_jsonl, output.write_text, output.write_verdict_csv):
        a, b = io.BytesIO(), io.BytesIO()
        write(fast, a)
        write(ref, b)
        assert a.getvalue() == b.getvalue(), write.__name__
    a = io.BytesIO()
    write_json(fast, a)
    assert a.getvalue() == (json.dumps(ref.to_dict(), indent=1) + "\n").encode()
    write_npz(fast, tmp_path / "f.npz")
    with np.load(tmp_path / "f.npz") as z:
        f = z["findings"]
        assert len(f) == 3001 and list(f["primary_index"][:3000]) == list(range(3000))
        assert list(f["va"][:2]) == [x.va for x in ref.findings[:2]]
    sel = Selection(primary=(10, 20), limit=4)
    a, b = io.BytesIO(), io.BytesIO()
    write_jsonl(fast, a, selection=sel)
    write_jsonl(ref, b, selection=sel)
    assert a.getvalue() == b.getvalue()
    assert json.loads(a.getvalue().splitlines()[-1])["left_out"] == {
        "executions": 0, "primary_records": {"0": 6}, "secondary_records": 0, "findings": 6}
