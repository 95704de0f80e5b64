"""``d3d12wl dump`` at frame scale: --list, --primary A:B, --program NAME, --limit N (saying how many it left out),
the executor's --max-* flags, and the summary per program and findings by kind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from d3d12wl.capture.file import save_capture
from d3d12wl.executor import execute
from d3d12wl.executor.selection import Selection, parse_range
from d3d12wl.executor.trace_selection import select_trace
from d3d12wl.output.serialize import to_jsonable

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from bench_executor import culling_capture  # noqa: E402

sys.path.pop(0)

DRAWS, PER_RECORD = 3000, 4  # 750 primary records, programs Opaque / Transparent / Shadow round-robin


@pytest.fixture(scope="module")
def capture_path(tmp_path_factory):
    path = tmp_path_factory.mktemp("dump") / "frame_capture.json"
    save_capture(culling_capture(DRAWS, PER_RECORD), path)
    return path


def dump(path: Path, *args: str) -> tuple[int, dict]:
    p = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", str(path), "--json", *args], capture_output=True,
                       text=True, check=False)
    return p.returncode, json.loads(p.stdout) if p.stdout else {}


def test_parse_range():
    assert parse_range("3:7") == (3, 7) and parse_range("5") == (5, 6) and parse_range(":4") == (0, 4)
    assert parse_range("9:")[0] == 9


def test_default_limit_says_what_it_left_out(capture_path):
    rc, view = dump(capture_path)
    assert rc == 0 and len(view["executions"]) == 1000 and view["left_out"]["executions"] == DRAWS - 1000
    assert len(view["lists"][0]["primary_records"]) == 750 and view["left_out"]["primary_records"] == {}
    summary = view["summary"]
    assert summary["executions"] == DRAWS and [p["executions"] for p in summary["programs"]] == [1000, 1000, 1000]
    assert summary["findings_by_kind"] == {}
    # every secondary record's DRAW: 3 + k % 97 vertices, one instance (tools/bench_executor.py)
    assert sum(p["vertices"] for p in summary["programs"]) == sum(3 + k % 97 for k in range(DRAWS))
    assert sum(p["instances"] for p in summary["programs"]) == DRAWS


def test_list_primary_program_and_limit_select(capture_path):
    rc, view = dump(capture_path, "--list", "0", "--primary", "10:20", "--program", "Shadow", "--limit", "5")
    assert rc == 0
    records = view["lists"][0]["primary_records"]
    assert [p["index"] for p in records] == [11, 14, 17]  # Shadow is slot 2 of 3
    assert {e["program"] for e in view["executions"]} == {"Shadow"} and len(view["executions"]) == 5
    assert view["left_out"]["executions"] == 3 * PER_RECORD - 5
    assert all(10 <= e["primary_index"] < 20 for e in view["executions"])
    rc, view = dump(capture_path, "--list", "1")
    assert view["lists"] == [] and view["executions"] == []


def test_max_flags_reach_the_executor(capture_path):
    rc, view = dump(capture_path, "--max-executions", "100")
    assert rc == 1 and view["summary"]["findings_by_kind"] == {"limit-exceeded": 1}
    assert "--max-executions" in view["findings"][0]["message"]


def test_text_output_has_the_summary_and_the_left_out_count(capture_path):
    p = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", str(capture_path), "--limit", "10"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0
    assert "summary  3,000 executions" in p.stdout and "Transparent" in p.stdout
    assert f"executions (10 shown, {DRAWS - 10:,} more left out" in p.stdout
    assert "740 more primary records left out" in p.stdout


def test_selected_trace_is_to_dict_when_nothing_is_left_out():
    capture = culling_capture(40, 4)
    trace = execute(capture)
    full = trace.to_dict()
    sel = to_jsonable(select_trace(trace, Selection(limit=0)))
    assert {k: v for k, v in sel.items() if k not in ("left_out", "summary")} == full


def test_limit_bounds_every_kind_of_row_secondary_records_too(tmp_path):
    """--limit N bounds the secondary records shown too (issue: `--program Shadow --limit 2` printed 739 lines of a
    100,000-draw capture): 40 secondary records per primary record, --limit 2 shows 2 of each kind of row."""
    path = tmp_path / "wide_capture.json"
    save_capture(culling_capture(1200, 40), path)
    rc, view = dump(path, "--program", "Shadow", "--limit", "2")
    assert rc == 0
    records = view["lists"][0]["primary_records"]
    assert [len(p["secondary_records"]) for p in records] == [2, 0] and len(view["executions"]) == 2
    assert view["left_out"] == {"executions": 10 * 40 - 2, "primary_records": {"0": 8},
                                "secondary_records": 2 * 40 - 2, "findings": 0}
    p = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", str(path), "--program", "Shadow", "--limit", "2"],
                       capture_output=True, text=True, check=False)
    assert p.returncode == 0 and len(p.stdout.splitlines()) < 80
    assert "secondary records (2 shown, 38 more left out: raise --limit)" in p.stdout


def test_kind_and_output_file_and_the_exit_1_line(capture_path, tmp_path):
    out = tmp_path / "dump.txt"
    p = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", str(capture_path), "--max-executions", "100",
                        "--kind", "limit-exceeded", "-o", str(out)], capture_output=True, text=True, check=False)
    assert p.returncode == 1 and p.stdout == ""
    err = p.stderr.strip().splitlines()
    assert len(err) == 1 and "1 error finding (limit-exceeded 1)" in err[0] and repr(str(out)) in err[0]
    assert "  error: limit-exceeded [executor limits]" in out.read_text()
    rc, view = dump(capture_path, "--max-executions", "100", "--kind", "chain-cycle")
    assert rc == 1 and view["findings"] == []  # the exit status is the trace's, whatever the selection shows
    assert subprocess.run([sys.executable, "-m", "d3d12wl", "dump", "--kind", "nope"], capture_output=True,
                          check=False).returncode == 2
