"""``d3d12wl exec``: the bundled example, --json, limits flags and exit codes (0 clean, 1 error findings, 2 unusable
input)."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from d3d12wl.cli import main


def example() -> dict:
    return json.loads((resources.files("d3d12wl") / "examples" / "culling_capture.json").read_text())


def write(tmp_path: Path, data: dict) -> str:
    path = tmp_path / "capture.json"
    path.write_text(json.dumps(data))
    return str(path)


def test_exec_bundled_example_human(capsys):
    assert main(["exec"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("DispatchList(DispatchListInput=0x10000, MaxGraphicsProgramInputsPerPrimaryList=3)")
    assert "executions (9)" in out and "findings (0)" in out
    assert out.count(" Opaque ") == 4 and out.count(" Shadow ") == 3 and "root view parameter 1 -> NULL" in out


def test_exec_bundled_example_json(capsys):
    assert main(["exec", "--json"]) == 0
    trace = json.loads(capsys.readouterr().out)
    assert [e["program"] for e in trace["executions"]] == ["Opaque"] * 4 + ["Transparent"] * 2 + ["Shadow"] * 3
    assert trace["findings"] == [] and trace["limits"]["max_lists"] == 1 << 16
    tint = [ra for ra in trace["executions"][4]["root_arguments"] if ra["binding"] == "local"][0]
    assert tint["sources"][0]["kind"] == "program-table"


def test_exec_error_findings_exit_1(tmp_path, capsys):
    data = example()
    data["call"]["DispatchList"]["DispatchListInput"] = "0x10004"
    assert main(["exec", write(tmp_path, data)]) == 1
    assert "misaligned-va" in capsys.readouterr().out


def test_exec_limit_flag(tmp_path, capsys):
    assert main(["exec", "--max-executions", "3", "--json"]) == 1
    trace = json.loads(capsys.readouterr().out)
    assert len(trace["executions"]) == 3 and trace["findings"][-1]["kind"] == "limit-exceeded"
    assert "--max-executions" in trace["findings"][-1]["message"]


@pytest.mark.parametrize("mutate", [lambda d: d.pop("call"), lambda d: d.update(version=999)])
def test_exec_unusable_capture_exit_2(tmp_path, capsys, mutate):
    data = example()
    mutate(data)
    assert main(["exec", write(tmp_path, data)]) == 2
    assert "error" in capsys.readouterr().err


def test_exec_missing_file_exit_2(tmp_path, capsys):
    assert main(["exec", str(tmp_path / "nope.json")]) == 2


@pytest.mark.parametrize("fmt", ["json", "jsonl", "text", "csv"])
@pytest.mark.parametrize("limit", [2**63, 2**64 + 5])
def test_a_limit_of_2_to_the_63_or_more_bounds_nothing(tmp_path, limit, fmt):
    """Issue 42, class 1: ``exec --limit N --format json`` or ``jsonl`` with N >= 2^63 was an OverflowError, exit 3
    (the secondary-record budget compared in int64). Every format takes it as a bound no trace reaches: the output
    of a limit above every count (2^40), exit 0."""
    got, want = tmp_path / f"got.{fmt}", tmp_path / f"want.{fmt}"
    assert main(["exec", "--limit", str(limit), "--format", fmt, "-o", str(got)]) == 0
    assert main(["exec", "--limit", str(2**40), "--format", fmt, "-o", str(want)]) == 0
    assert got.read_bytes() == want.read_bytes()
