"""Hostile input, round 3 (issue 42): the surfaces added last, each class of the issue's table that this branch
owns (2, 3, 4, 5, 10, 11, 12) proved by a test built from its line there.  Each test names its class.

The rule they hold (design.md, "How the team works"): bad input gets a clear error naming where and why, exit 2 for
unusable input; nothing a user gave is lost or half-written; a driver library's process is the harness's to end.
The output-name rule (no output may be an input or another output) is tests/test_output_claims.py's, the UINT
bounds tests/test_spec_uints.py's, the repeated flags tests/test_repeated_flags.py's.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import d3d12wl
from d3d12wl.cli import main
from d3d12wl.migrate.ei_to_wl import identifier_for

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"


# --- 12: a lone surrogate in a program name, through migrate ei-to-wl --------------------------------------------


def test_class_12_ei_to_wl_of_a_program_named_by_a_lone_surrogate(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Class 12: ``migrate ei-to-wl`` of a call sequence whose program is ``"\\ud800"`` (valid JSON) migrates, as
    every other writer takes such a name: the program keeps its name, and the identifier made from it (the name's
    bytes, zero-padded) is the name's own bytes, distinct from any other name's (``surrogatepass``: a backslash
    escape would give the identifier of the program literally named ``\\ud800``)."""
    folder = tmp_path / "ei"
    shutil.copytree(EXAMPLES / "culling_ei", folder)
    calls = json.loads((folder / "calls.json").read_text())
    calls["calls"][0]["program"] = "\ud800"
    (folder / "calls.json").write_text(json.dumps(calls))
    out = tmp_path / "wl.json"
    assert main(["migrate", "ei-to-wl", str(folder / "calls.json"), "-o", str(out), "--verify"]) == 0
    assert "verify: same executions" in capsys.readouterr().out
    programs = json.loads(out.read_text())["programs"]
    assert "\ud800" in programs
    assert bytes.fromhex(programs["\ud800"]["Identifier"]) == identifier_for("\ud800")
    assert identifier_for("\ud800") != identifier_for("\\ud800")
    assert identifier_for("\ud800").rstrip(b"\0") == b"\xed\xa0\x80"
