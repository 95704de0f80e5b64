"""`d3d12wl abi` report and JSON."""

from __future__ import annotations

import json

import pytest

from d3d12wl import abi
from d3d12wl.cli import main


def test_json_covers_every_type_enum_and_provisional(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["abi", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {t["name"] for t in data["types"]} == set(abi.types())
    assert {e["name"] for e in data["enums"]} == set(abi.enums())
    t = next(t for t in data["types"] if t["name"] == "D3D12_DISPATCH_LIST_INPUT")
    assert set(t) >= {"name", "size", "align", "fields", "provisional"}
    assert [f["name"] for f in t["fields"]] == ["NumProgramInputs", "Flags", "ProgramInputs"]
    assert all(set(f) >= {"name", "offset", "size", "type"} for f in t["fields"])
    e = next(e for e in data["enums"] if e["name"] == "D3D12_INDIRECT_ARGUMENT_TYPE")
    assert e["flag"] is False and any(m["provisional"] for m in e["members"])
    assert {p["name"] for p in data["provisional"]} == {p.name for p in abi.provisional()}


def test_report_shows_holes_padding_and_provisional(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["abi", "D3D12_WORK_LIST_ARGUMENT_DESC", "D3D12_PROGRAM_COMMAND_SIGNATURE_DESC",
                 "D3D12_INDIRECT_ARGUMENT_TYPE"]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "struct D3D12_PROGRAM_COMMAND_SIGNATURE_DESC {" in out
    assert "byte hole" in out and "trailing padding" in out
    assert "D3D12_INDIRECT_ARGUMENT_TYPE_FIXED_DISPATCH = 12,  /* provisional */" in out


def test_unknown_name_is_an_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["abi", "D3D12_NOPE"]) == 2
    assert "D3D12_NOPE" in capsys.readouterr().err
