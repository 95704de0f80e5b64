"""What a new user trips on at the command line (issue 29): every command has ``--json``; a usage error prints the
usage of the command given, not the top level's; a misspelt member or enum name gets a "did you mean"; a file of
the wrong kind (a description given to exec, a capture to validate, a saved trace, a call sequence) is named as
what it is."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from d3d12wl import examples
from d3d12wl.cli import build_parser, main
from d3d12wl.errors import did_you_mean


def _leaves(parser: argparse.ArgumentParser, name: str = "d3d12wl") -> list[tuple[str, argparse.ArgumentParser]]:
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        return [(name, parser)]
    return [leaf for a in subs for sub, p in a.choices.items() for leaf in _leaves(p, f"{name} {sub}")]


@pytest.mark.parametrize(("command", "parser"), _leaves(build_parser()), ids=lambda v: v if isinstance(v, str) else "")
def test_every_command_has_json(command: str, parser: argparse.ArgumentParser) -> None:
    """README, "Command line": every command has --json output for tools."""
    assert "--json" in parser._option_string_actions, command


@pytest.mark.parametrize(("argv", "usage"), [
    (["exec", "--frobnicate"], "usage: d3d12wl exec "),
    (["decode", "d.json", "PCS.primary", "f.bin", "--jsn"], "usage: d3d12wl decode "),
    (["migrate", "wl-to-ei", "c.json", "--output-dir", "d", "--frob"], "usage: d3d12wl migrate wl-to-ei "),
    (["messages", "check", "--frob"], "usage: d3d12wl messages check "),
])
def test_a_usage_error_prints_the_commands_usage(argv: list[str], usage: str,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    err = capsys.readouterr().err
    assert exit_info.value.code == 2 and err.startswith(usage), err
    assert f"error: unrecognized arguments: {argv[-1]}" in err and "COMMAND" not in err


def test_decode_json_is_format_json(capsys: pytest.CaptureFixture[str]) -> None:
    desc, data = str(examples.path("culling.json")), str(examples.path("readback/primary.bin"))
    assert main(["decode", desc, "PCS.primary", data, "--json"]) == 0
    as_json = capsys.readouterr().out
    assert main(["decode", desc, "PCS.primary", data, "--format", "json"]) == 0
    assert capsys.readouterr().out == as_json and len(json.loads(as_json)["records"]) == 3
    assert main(["decode", desc, "PCS.primary", data, "--json", "--format", "csv"]) == 2
    assert "--json is --format json, so it and --format csv disagree" in capsys.readouterr().err


def test_capture_json_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "c.json"
    argv = ["capture", str(examples.path("execute_indirect.json")), "args=zeros:160@0x20000",
            "count=hex:03000000@0x30000", "--execute-indirect", "RootConstantsAndVertexBuffers", "--argument-buffer", "args",
            "--count-buffer", "count", "--max-command-count", "4", "-o", str(out), "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["output"] == str(out) and summary["version"] == 1 and out.is_file()
    assert summary["call"].startswith("ExecuteIndirect(pCommandSignature=RootConstantsAndVertexBuffers")
    assert [(r["name"], r["base"], r["size"]) for r in summary["regions"]] == [("args", 0x20000, 160),
                                                                              ("count", 0x30000, 4)]
    assert summary["program_tables"] == [] and summary["findings"] == []
    assert main([*argv[:-3], "-o", "-", "--json"]) == 2
    assert "give -o FILE with --json" in capsys.readouterr().err


def test_culling_readback_capture_json_names_the_slots(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The README's readback capture, as JSON: the program table's slots by program (spec culling example)."""
    rb = examples.FOLDER / "readback"
    regions = [f"{n}={rb / f}@{va}" for n, f, va in (
        ("dispatch_input", "dispatch_input.bin", "0x10000"), ("primary", "primary.bin", "0x20000"),
        ("program_table", "program_table.bin", "0x30000"), ("opaque", "secondary_opaque.bin", "0x40000"),
        ("transparent", "secondary_transparent.bin", "0x41800"), ("shadow", "secondary_shadow.bin", "0x43000"))]
    assert main(["capture", str(examples.path("culling.json")), *regions, "--dispatch-list", "dispatch_input",
                 "--max-graphics-program-inputs-per-primary-list", "3", "--program-table", "program_table", "--root-arg", "0=0x50000",
                 "-o", str(tmp_path / "c.json"), "--json"]) == 0
    (table,) = json.loads(capsys.readouterr().out)["program_tables"]
    assert table["programs"] == {"Opaque": [0], "Transparent": [1], "Shadow": [2]}
    assert (table["start_address"], table["stride"], table["slot_count"], table["empty"]) == (0x30000, 48, 64, 61)


def test_migrate_scene_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["migrate", "scene", "--output-dir", str(tmp_path), "--draws", "10", "--psos", "2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"calls": 2, "draws": 10, "output": str(tmp_path / "calls.json")}


# --- did you mean ------------------------------------------------------------------------------------------------


def test_did_you_mean() -> None:
    assert did_you_mean("SecondaryRecordByteStrid", ["pArgumentDescs", "SecondaryRecordByteStride"]) == \
        " (did you mean 'SecondaryRecordByteStride'?)"
    assert did_you_mean("draw", ["DRAW", "DISPATCH"]) == " (did you mean 'DRAW'?)"
    assert did_you_mean("zzzz", ["DRAW", "DISPATCH"]) == "" and did_you_mean(3, ["DRAW"]) == ""


def _culling() -> dict:
    return json.loads(examples.path("culling.json").read_text())


def test_a_misspelt_member_and_enum_name_in_a_description(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    doc = _culling()
    pcs = doc["program_command_signatures"]["PCS"]
    pcs["SecondaryRecordByteStrid"] = pcs.pop("SecondaryRecordByteStride")
    pcs["pArgumentDescs"][1]["Type"] = "DRWA"
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(doc))
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert ("program_command_signatures.PCS: unknown member(s) 'SecondaryRecordByteStrid' (did you mean "
            "'SecondaryRecordByteStride'?); members: ") in err
    assert ("pArgumentDescs[1].Type: 'DRWA' is not a D3D12_INDIRECT_ARGUMENT_TYPE member (full or short name) or "
            "integer (did you mean 'DRAW'?); valid: DRAW, ") in err


def test_a_misspelt_member_in_a_capture_and_an_enum_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capture = json.loads(examples.path("culling_capture.json").read_text())
    capture["stat"] = capture.pop("state")
    path = tmp_path / "typo.json"
    path.write_text(json.dumps(capture))
    assert main(["exec", str(path)]) == 2
    assert "stat: unknown member 'stat' (did you mean 'state'?); expected one of: version," in capsys.readouterr().err
    assert main(["capture", str(examples.path("culling.json")), "--dispatch-list", "0", "-o", "-",
                 "--command-list-type", "BUNDEL"]) == 2
    assert "D3D12_COMMAND_LIST_TYPE has no member 'BUNDEL' (did you mean 'BUNDLE'?)" in capsys.readouterr().err


# --- the wrong kind of file ----------------------------------------------------------------------------------------


@pytest.fixture
def trace_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["exec", "--json"]) == 0
    path = tmp_path / "trace.json"
    path.write_text(capsys.readouterr().out)
    return path


@pytest.mark.parametrize(("argv", "kind"), [
    (["exec", "{culling.json}"], "a description, not a capture"),
    (["dump", "{culling.json}"], "a description, not a capture"),
    (["migrate", "wl-to-ei", "{culling.json}", "--output-dir", "{tmp}"], "a description, not a capture"),
    (["exec", "{culling_ei/calls.json}"], "a call sequence, not a capture"),
    (["dump", "{trace}"], "a saved trace, not a capture"),
    (["validate", "{culling_capture.json}"], "a capture, not a description"),
    (["layout", "{trace}"], "a saved trace, not a description"),
    (["codegen", "{culling_ei/calls.json}", "--lang", "c"], "a call sequence, not a description"),
])
def test_a_file_of_the_wrong_kind_is_named(argv: list[str], kind: str, trace_file: Path, tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    def word(w: str) -> str:
        if w == "{trace}":
            return str(trace_file)
        if w == "{tmp}":
            return str(tmp_path / "out")
        return str(examples.path(w[1:-1])) if w.startswith("{") else w

    argv = [word(w) for w in argv]
    given = next(w for w in argv if w.endswith(".json"))
    assert main([*argv, "--json"]) == 2
    out = capsys.readouterr()
    error = json.loads(out.out)
    assert error["message"].startswith(f"this is {kind}: ") and error["where"] == given, error
    assert f"{given}: this is {kind}: " in out.err


def test_a_capture_is_still_a_description_where_one_is_read(capsys: pytest.CaptureFixture[str]) -> None:
    """decode and capture read a capture's objects as the description (CAPTURE_ONLY): no wrong-kind error there."""
    assert main(["decode", str(examples.path("culling_capture.json")), "PCS.primary",
                 str(examples.path("readback/primary.bin"))]) == 0
    assert "3 record(s)" in capsys.readouterr().out


# --- layout and codegen say when the description breaks rules ------------------------------------------------------


@pytest.mark.parametrize("argv", [["layout"], ["layout", "--json"], ["codegen", "--lang", "c"],
                                  ["codegen", "--lang", "hlsl", "--json"]])
def test_layout_and_codegen_name_the_violations_on_stderr(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    """The bundled invalid description breaks 4 rules (validate lists them); layout and codegen still write what
    the bytes would be, and say so in one stderr line; --strict exits 1, as validate does."""
    invalid, valid = str(examples.path("invalid_signature.json")), str(examples.path("culling.json"))
    assert main(["validate", invalid]) == 1
    assert capsys.readouterr().out.splitlines()[-1] == "4 violation(s)"
    assert main([argv[0], invalid, *argv[1:]]) == 0
    out = capsys.readouterr()
    assert out.out and out.err.splitlines() == [
        f"d3d12wl {argv[0]}: warning: the description breaks 4 creation-time rule(s), the first Supported argument "
        "types at program_command_signatures.PCS.pArgumentDescs; d3d12wl validate lists them (--strict makes this "
        "exit 1)"]
    assert main([argv[0], invalid, *argv[1:], "--strict"]) == 1
    strict = capsys.readouterr()
    assert strict.out == out.out and "(--strict" not in strict.err and "breaks 4 creation-time rule(s)" in strict.err
    assert main([argv[0], valid, *argv[1:], "--strict"]) == 0 and capsys.readouterr().err == ""


# --- dump's InfoQueue block ---------------------------------------------------------------------------------------


def test_dump_shows_the_info_queue_when_the_call_put_a_message_there(capsys: pytest.CaptureFixture[str]) -> None:
    """Driver-reported messages spec: a device with the channel enabled always holds the driver's initialization
    message, so the block is shown when the call added one (a finding), or with --info-queue; --json always has
    it.  The bundled culling capture is clean; the validation chain capture without its validators is not."""
    assert main(["dump"]) == 0
    clean = capsys.readouterr().out
    assert "InfoQueue" not in clean and clean.splitlines()[-1] == "findings (0): none"
    assert main(["dump", "--info-queue"]) == 0
    shown = capsys.readouterr().out.split("InfoQueue (driver-reported messages) (1):\n")
    assert shown[0].rstrip("\n") == clean.rstrip("\n") and "Driver Reported Messages Enabled" in shown[1]
    assert main(["dump", "--json"]) == 0
    (init,) = json.loads(capsys.readouterr().out)["info_queue"]
    assert init["category_name"] == "INITIALIZATION"
    assert main(["dump", str(examples.path("validation_chain_capture.json"))]) == 1
    out = capsys.readouterr().out
    assert "InfoQueue (driver-reported messages) (" in out and "EXECUTION ERROR" in out


@pytest.mark.parametrize(("argv", "where", "said"), [
    (["exec", "--list", "-1"], "--list", "lists are numbered from 0"),
    (["dump", "--primary", "5:2"], "--primary", "give A:B with 0 <= A < B"),
    (["exec", "--primary", ":0"], "--primary", "selects no record"),
    (["exec", str(examples.path("execute_indirect_capture.json")), "--list", "0"], "--list",
     "an ExecuteIndirect call has none"),
    (["dump", str(examples.path("execute_indirect_capture.json")), "--primary", "0:2"], "--primary",
     "its commands are its executions"),
])
def test_a_selection_of_nothing_the_call_can_have_is_exit_2(argv: list[str], where: str, said: str,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """exec and dump's selection names what the call has, as --program names one of its programs: a negative list,
    an empty or reversed --primary range, and --list / --primary on an ExecuteIndirect call (IndirectDrawing.md: its
    commands are the executions; a work list's lists and primary records are Work Lists' own) selected nothing and
    printed "executions (0 selected of 3)" with exit 0, as if the call had run nothing."""
    assert main([*argv, "--json"]) == 2
    got = json.loads(capsys.readouterr().out)
    assert got["where"] == where and said in got["message"], got


def test_a_selection_the_call_has_still_selects(capsys: pytest.CaptureFixture[str]) -> None:
    """(the checks above refuse only what selects nothing: the culling example's second primary record, alone or as
    a range of one, is the Transparent program's two draws)"""
    for primary in ("1", "1:2"):
        assert main(["exec", "--primary", primary]) == 0
        assert "executions (2 selected of 9)" in capsys.readouterr().out
