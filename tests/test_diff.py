"""``d3d12wl diff``: executions matched by position or by key; program, trigger payload, each binding's value and
source, and findings added or removed; exit 1 on any difference."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from d3d12wl.capture.file import Capture, load_capture, save_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute
from d3d12wl.migrate.diff import diff_runs
from d3d12wl.migrate.runs import MigrationError
from d3d12wl.migrate.wl_to_ei import wl_to_ei

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling_capture.json"


def _patched(capture: Capture, va: int, data: bytes) -> Capture:
    """The capture with ``data`` written at ``va`` (regions copied; the bundled ones are read-only)."""
    memory = GpuMemory()
    for r in capture.memory:
        raw = bytearray(capture.memory.read(r.base, r.size))
        if r.base <= va < r.base + r.size:
            raw[va - r.base:va - r.base + len(data)] = data
        memory.map(r.base, bytes(raw), name=r.name)
    capture.memory = memory
    return capture


def test_a_capture_and_its_saved_trace_are_the_same(tmp_path: Path) -> None:
    trace = tmp_path / "trace.json"
    trace.write_text(json.dumps(execute(load_capture(CULLING)).to_dict()), encoding="utf-8")
    d = diff_runs(CULLING, trace)
    assert d.same and d.matched == 9


def test_a_changed_draw_argument_is_named() -> None:
    """Per-binding source: the DRAW of the culling example's first secondary record is at bytes 8..23."""
    changed = _patched(load_capture(CULLING), 0x40000 + 8, (7).to_bytes(4, "little"))
    d = diff_runs(CULLING, changed)
    assert not d.same and [e.a for e in d.differences] == [0]
    assert d.differences[0].what == ["trigger.VertexCountPerInstance: 36 -> 7"]


def test_sources_differ_after_lowering_values_do_not() -> None:
    lowered = wl_to_ei(load_capture(CULLING)).entries
    d = diff_runs(CULLING, lowered)
    assert not d.same and len(d.differences) == 9
    assert any(w.startswith("constants b0 space1: source program-table") for w in d.differences[0].what)
    assert diff_runs(CULLING, lowered, sources=False).same


def test_matching_by_key() -> None:
    """Match by program: the same draws of each program, whatever order the calls come in."""
    lowered = wl_to_ei(load_capture(CULLING)).entries
    reordered = lowered[::-1]
    assert not diff_runs(CULLING, reordered, sources=False).same
    keyed = diff_runs(CULLING, reordered, key=["program"], sources=False)
    assert keyed.same and keyed.matched == 9
    with pytest.raises(MigrationError, match="unknown key"):
        diff_runs(CULLING, reordered, key=["colour"])


def test_unmatched_executions_and_findings() -> None:
    """An out-of-range ProgramTableIndex drives no executions and is a finding (docs/executor.md "Policy on
    undefined behaviour"): the diff shows the executions lost and the finding added."""
    broken = _patched(load_capture(CULLING), 0x20000, (99).to_bytes(4, "little"))  # primary record 0 -> slot 99
    d = diff_runs(CULLING, broken, key=["program"])
    assert d.only_in_a == [0, 1, 2, 3] and not d.only_in_b
    assert d.findings_added and not d.findings_removed
    assert not diff_runs(broken, CULLING).same and diff_runs(broken, CULLING, key=["program"]).findings_removed


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", "diff", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_cli_exit_codes_and_json(tmp_path: Path) -> None:
    changed = tmp_path / "changed.json"
    save_capture(_patched(load_capture(CULLING), 0x40000 + 8, (7).to_bytes(4, "little")), changed)
    r = _cli(str(CULLING), str(CULLING))
    assert r.returncode == 0 and r.stdout.strip().endswith("same")
    r = _cli(str(CULLING), str(changed))
    assert r.returncode == 1 and "trigger.VertexCountPerInstance: 36 -> 7" in r.stdout
    r = _cli(str(CULLING), str(changed), "--json")
    doc = json.loads(r.stdout)
    assert r.returncode == 1 and doc["differences"][0]["what"] == ["trigger.VertexCountPerInstance: 36 -> 7"]
    r = _cli(str(CULLING), str(tmp_path / "nope.json"))
    assert r.returncode == 2 and "nope.json" in r.stderr
    r = _cli(str(CULLING), str(changed), "--key", "colour")
    assert r.returncode == 2 and "--key" in r.stderr
