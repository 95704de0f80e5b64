"""design.md "Output": every command has ``--json`` for tools, and an input that cannot be used exits 2.  Under
``--json`` that error is a JSON object on stdout, ``{"kind", "message", "where", "rule"}``, made once by the one
top-level handler (``d3d12wl.cli.main``); any other exception is a bug: exit 3, ``kind`` ``InternalError``."""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path

import pytest

from d3d12wl.cli import main

EXAMPLES = Path(str(resources.files("d3d12wl").joinpath("examples")))
KEYS = {"kind", "message", "where", "rule"}


def _json_error(argv: list[str], capsys: pytest.CaptureFixture[str], status: int = 2) -> dict[str, object]:
    assert main(argv) == status
    captured = capsys.readouterr()
    got = json.loads(captured.out)
    assert set(got) == KEYS, got
    assert "error" in captured.err  # people still get the text on stderr
    return got


@pytest.fixture
def not_json(tmp_path: Path) -> Path:
    path = tmp_path / "broken.json"
    path.write_text('{"program_command_signatures": {\n')
    return path


@pytest.mark.parametrize("command", [["validate"], ["layout"], ["codegen", "--lang", "c"], ["dump"], ["exec"]])
def test_unreadable_json_is_a_json_error(command: list[str], not_json: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    got = _json_error([command[0], str(not_json), *command[1:], "--json"], capsys)
    assert got["where"] == f"{not_json}:2:1" and "not valid JSON" in str(got["message"])
    assert got["kind"] in {"DescriptionError", "CaptureError"}


def test_the_rule_and_member_path_of_a_description_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A program command signature without a dispatch trigger has no record layout (spec "Supported argument
    types"): where is the member path, rule the section."""
    path = tmp_path / "no_trigger.json"
    path.write_text(json.dumps({"program_command_signatures": {"P": {"pArgumentDescs": [
        {"Type": "CONSTANT_BUFFER_VIEW", "Source": "PRIMARY_RECORD"}]}}}))
    got = _json_error(["layout", str(path), "--json"], capsys)
    assert got == {"kind": "LayoutError", "message": got["message"], "where": "program_command_signatures.P",
                   "rule": "Supported argument types"}


def test_a_missing_file_and_an_unknown_type(capsys: pytest.CaptureFixture[str]) -> None:
    got = _json_error(["validate", "no-such-file.json", "--json"], capsys)
    assert got["kind"] == "DescriptionError" and got["where"] == "no-such-file.json"
    got = _json_error(["abi", "NO_SUCH_TYPE", "--json"], capsys)
    assert got["kind"] == "ABIError" and "NO_SUCH_TYPE" in str(got["message"])


def test_without_json_the_error_is_text_only(not_json: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(not_json)]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "not valid JSON" in captured.err


def test_an_internal_error_exits_3(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """A bug (here: a KeyError out of the validator) is not an unusable input: exit 3, kind InternalError."""
    from d3d12wl.cli import validate_cmd

    def broken(*_: object) -> list[object]:
        raise KeyError("boom")

    monkeypatch.setattr(validate_cmd, "check_objects", broken)
    got = _json_error(["validate", str(EXAMPLES / "culling.json"), "--json"], capsys, status=3)
    assert got == {"kind": "InternalError", "message": "KeyError: 'boom'", "where": None, "rule": None}


def test_exec_limits_and_abi_check_names_go_through_the_one_handler(capsys: pytest.CaptureFixture[str]) -> None:
    """The commands raise; only main turns errors into statuses (no command prints its own and returns 2)."""
    got = _json_error(["exec", "--max-lists", "-1", "--json"], capsys)
    assert got["kind"] == "D3D12WLError" and got["where"] == "--max-lists"
    got = _json_error(["abi", "check", "extra", "--json"], capsys)
    assert got["where"] == "d3d12wl abi check" and "takes no names" in str(got["message"])


@pytest.mark.parametrize("command", [["exec"], ["dump"], ["patch-list", "CAPTURE", "-o", "OUT.csv"],
                                     ["remap", "CAPTURE", "--va-map", "MAP", "-o", "OUT.json"], ["report", "-o", "OUT.html"],
                                     ["check", "CAPTURE"]])
def test_a_negative_executor_limit_is_exit_2_on_every_command_that_has_the_limits(
        command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """docs/cli.md "One vocabulary": the --max-... flags are the executor's limits on every command that has them.
    dump, patch-list and remap ran with a negative one and reported it reached at once (a limit-exceeded finding,
    exit 1; remap wrote a rebase): exit 2 naming the flag, before anything is written, as exec did."""
    capture = str(EXAMPLES / "culling_capture.json")
    (tmp_path / "map.csv").write_text("old_base,size,new_base\n0x0,0x100000000,0x1000000000\n")
    argv = [{"CAPTURE": capture, "MAP": str(tmp_path / "map.csv")}.get(w, w) for w in command]
    argv = [str(tmp_path / w) if w.startswith("OUT.") else w for w in argv]
    got = _json_error([*argv, "--max-executions", "-3", "--json"], capsys)
    assert got["kind"] == "D3D12WLError" and got["where"] == "--max-executions", got
    assert not list(tmp_path.glob("OUT*"))
