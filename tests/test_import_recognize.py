"""A GFXReconstruct file given where a capture is read is named for what it is, with the command that reads it
(docs/gfxreconstruct.md: gfxrecon-convert's JSON and gfxrecon-replay's ``--dump-resources`` JSON are both a JSON
array, or JSON lines, whose first object is ``{"header": {...}}``; only the dump's header has
``dumpResourcesOptions``), and ``check`` over a folder skips them as it skips the folder's other non-captures."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from tool_shapes import ConvertFile

from d3d12wl.cli import main
from d3d12wl.examples import FOLDER as EXAMPLES
from d3d12wl.importers.recognize import GFXR_CONVERT, GFXR_DUMP, SNIFF_BYTES, tool_file_kind

GFXR = EXAMPLES / "gfxr"
CONVERT, DUMP = GFXR / "frame.json", GFXR / "dump_16" / "frame_dr.json"


def test_the_bundled_files_are_recognized_by_their_first_bytes() -> None:
    assert tool_file_kind(CONVERT) == GFXR_CONVERT
    assert tool_file_kind(DUMP) == GFXR_DUMP
    assert tool_file_kind(EXAMPLES / "culling_capture.json") is None
    assert tool_file_kind(EXAMPLES / "culling.json") is None


def test_json_lines_and_a_header_past_nothing_else(tmp_path: Path) -> None:
    jsonl = ConvertFile().write(tmp_path / "frame.jsonl", "jsonl")
    assert tool_file_kind(jsonl) == GFXR_CONVERT
    # the dump's marker must be a member of the header, not a string inside it or a later block
    quoted = tmp_path / "quoted.json"
    quoted.write_text(json.dumps([{"header": {"note": '"dumpResourcesOptions": no'}}, {"dumpResourcesOptions": 1}]))
    assert tool_file_kind(quoted) == GFXR_CONVERT
    assert tool_file_kind(tmp_path / "missing.json") is None
    for text in ("[]", "[1, 2]", '{"header": 1}', '[{"head": {}}]', "", "\xff"):
        (tmp_path / "other.json").write_text(text, encoding="latin-1")
        assert tool_file_kind(tmp_path / "other.json") is None, text


def test_a_fifo_or_a_folder_is_not_opened_for_reading(tmp_path: Path) -> None:
    """Asked of a FIFO no one writes to, the answer comes at once (opening it for reading waits for a writer: the
    hostile-surface fuzzer's 'remap FIFO' hung in the error path that asks)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    assert tool_file_kind(fifo) is None and tool_file_kind(tmp_path) is None


def test_only_the_first_bytes_are_read(tmp_path: Path) -> None:
    """A convert JSON runs to gigabytes: what follows the first SNIFF_BYTES is never looked at (here it is not even
    JSON)."""
    big = tmp_path / "big.json"
    big.write_bytes(CONVERT.read_bytes()[:400] + b"\0" * (4 * SNIFF_BYTES))
    assert tool_file_kind(big) == GFXR_CONVERT


@pytest.mark.parametrize(("argv", "expected", "what"), [
    (["exec", str(CONVERT)], "a capture", "GFXReconstruct convert JSON"),
    (["dump", str(DUMP)], "a capture", "GFXReconstruct resource dump"),
    (["report", str(CONVERT), "-o", "-"], "a capture", "GFXReconstruct convert JSON"),
    (["validate", str(CONVERT)], "a description", "GFXReconstruct convert JSON"),
])
def test_a_command_given_one_says_what_it_is_and_what_to_run(argv: list[str], expected: str, what: str,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert f"this is a {what}, not {expected}" in err and "d3d12wl import gfxr CONVERT.json DUMP..." in err, err


def test_check_skips_them_in_a_folder_and_names_one_given_by_name(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    folder = tmp_path / "frames"
    shutil.copytree(GFXR, folder / "gfxr")
    shutil.copy(EXAMPLES / "culling_capture.json", folder)
    assert main(["check", str(folder), "--jobs", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    status = {Path(c["path"]).name + ("@" + Path(c["path"]).parent.name): c["status"] for c in report["captures"]}
    assert status == {"culling_capture.json@frames": "pass", "frame.json@gfxr": "skipped",
                      "frame_dr.json@dump_16": "skipped", "frame_dr.json@dump_18": "skipped"}
    assert main(["check", str(CONVERT), "--jobs", "1"]) == 2
    assert "this is a GFXReconstruct convert JSON, not a capture" in capsys.readouterr().out
