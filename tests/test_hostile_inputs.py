"""Hostile input never escapes (design.md, "Output": no bare exception reaches a user): each class a fuzz
campaign found gets a clear error naming the file or member, exit 2, bounded time and memory."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import d3d12wl
from d3d12wl.capture.file import load_capture
from d3d12wl.errors import D3D12WLError
from d3d12wl.model import description

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"


def culling_capture() -> dict[str, Any]:
    return json.loads((EXAMPLES / "culling_capture.json").read_text(encoding="utf-8"))


def run_cli(*argv: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", *argv], capture_output=True, text=True, input=stdin,
                          timeout=60, encoding="utf-8", errors="backslashreplace")


def write(tmp_path: Path, name: str, doc: Any) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["capture", "description"])
def test_not_utf8(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(b'{"version": 1, "name": "\xff"}')
    done = run_cli("exec" if kind == "capture" else "validate", str(path))
    assert done.returncode == 2 and "is not UTF-8 text (byte 0xff at offset 24)" in done.stderr, done.stderr
    assert "Traceback" not in done.stderr


def test_nesting_1000_levels_deep(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text('{"root_signatures": ' + "[" * 1000 + "]" * 1000 + "}", encoding="utf-8")
    with pytest.raises(D3D12WLError, match="nested more deeply than the 64 levels"):
        description.load(path)
    with pytest.raises(D3D12WLError, match="nested more deeply"):
        load_capture(path)


def test_integer_of_5000_digits(tmp_path: Path) -> None:
    doc = culling_capture()
    text = json.dumps(doc).replace('"MaxGraphicsProgramInputsPerPrimaryList": 3',
                                   '"MaxGraphicsProgramInputsPerPrimaryList": ' + "9" * 5000)
    path = tmp_path / "big.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(D3D12WLError, match="an integer of 5000 digits"):
        load_capture(path)


@pytest.mark.parametrize("value", [1.0, -0.0, 2.5e0])
def test_integer_valued_floats_are_not_integers(value: float) -> None:
    doc = json.loads((EXAMPLES / "culling.json").read_text(encoding="utf-8"))
    doc["program_command_signatures"]["PCS"]["SecondaryRecordByteStride"] = value
    with pytest.raises(D3D12WLError) as info:
        description.load(doc)
    assert "program_command_signatures.PCS.SecondaryRecordByteStride" in str(info.value)


def test_integer_valued_float_in_a_capture(tmp_path: Path) -> None:
    doc = culling_capture()
    doc["call"]["DispatchList"]["MaxGraphicsProgramInputsPerPrimaryList"] = 3.0
    with pytest.raises(D3D12WLError, match="call.DispatchList.MaxGraphicsProgramInputsPerPrimaryList"):
        load_capture(doc)


@pytest.mark.parametrize("path", ["/dev/zero", "/tmp", "fifo"])
def test_capture_or_description_that_is_not_a_file(tmp_path: Path, path: str) -> None:
    if path == "fifo":
        path = str(tmp_path / "fifo")
        os.mkfifo(path)
    for command in ("exec", "dump", "validate", "layout"):
        done = run_cli(command, path)
        assert done.returncode == 2 and f"{path}: is a" in done.stderr, (command, done.stderr)


@pytest.mark.parametrize("target", ["dir", "fifo", "/dev/zero", "long"])
def test_region_file_that_is_not_a_regular_file(tmp_path: Path, target: str) -> None:
    doc = culling_capture()
    if target == "dir":
        (tmp_path / "dir").mkdir()
        name, why = "dir", "is a directory"
    elif target == "fifo":
        os.mkfifo(tmp_path / "fifo")
        name, why = "fifo", "is a FIFO"
    elif target == "/dev/zero":
        name, why = "/dev/zero", "is a device"
    else:
        name, why = "x" * 300 + ".bin", "cannot be read: File name too long"
    region = doc["memory"][0]
    del region["hex"]
    region["file"] = name
    with pytest.raises(D3D12WLError, match=why) as info:
        load_capture(doc, base_dir=tmp_path)
    assert "memory[0].file" in str(info.value)


def test_zeros_of_2_to_the_63(tmp_path: Path) -> None:
    doc = culling_capture()
    doc["memory"].append({"name": "huge", "base": "0x100000000", "zeros": 1 << 63})
    with pytest.raises(D3D12WLError) as info:
        load_capture(doc)
    assert "memory[" in str(info.value)


def test_execute_indirect_signature_with_a_work_lists_only_argument() -> None:
    """IndirectDrawing.md: an ExecuteIndirect command signature takes only its own argument types; layout and
    codegen name the argument instead of failing an assertion."""
    from d3d12wl.records import codegen, layout

    doc = json.loads((EXAMPLES / "execute_indirect.json").read_text(encoding="utf-8"))
    cs = copy.deepcopy(doc["command_signatures"]["PlainMultiDrawIndirect"])
    cs["pArgumentDescs"].insert(0, {"Type": "INLINE_ROOT_PARAMETER"})
    doc["command_signatures"]["Bad"] = cs
    objects = description.load(doc)
    with pytest.raises(D3D12WLError, match="command_signatures.Bad.pArgumentDescs\\[0\\]"):
        layout.command_layout(objects.command_signatures["Bad"])
    with pytest.raises(D3D12WLError, match="INLINE_ROOT_PARAMETER"):
        codegen.c_source(layout.record_layouts(objects))


def test_lone_surrogate_names_print(tmp_path: Path) -> None:
    doc = json.loads((EXAMPLES / "culling.json").read_text(encoding="utf-8"))
    doc["program_command_signatures"]["Opaque\ud800"] = doc["program_command_signatures"]["PCS"]
    path = tmp_path / "surrogate.json"
    path.write_text(json.dumps(doc), encoding="utf-8")  # json.dumps escapes it: legal JSON
    done = run_cli("layout", str(path))
    assert done.returncode == 0 and "Opaque\\ud800" in done.stdout, done.stderr


def test_an_internal_error_is_one_line_and_exit_3(monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    from d3d12wl.cli import layout_cmd, main

    def broken(_args: object) -> int:
        raise KeyError("boom")

    monkeypatch.setattr(layout_cmd, "run", broken)
    assert main(["layout", str(EXAMPLES / "culling.json")]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "internal error: KeyError: 'boom'; please report it" in err
    assert main(["--debug", "layout", str(EXAMPLES / "culling.json")]) == 3
    assert "Traceback" in capsys.readouterr().err


@pytest.mark.parametrize("member", ["Num32BitValues", "Num32BitValuesToSet", "DestOffsetIn32BitValues"])
def test_a_root_constant_range_larger_than_a_root_signature(member: str) -> None:
    """Num32BitValues 0x7FFFFFFF is a valid UINT, but no root signature holds more than D3D12_MAX_ROOT_COST DWORDs
    (the spec's "root-signature-budget accounting"): the description is refused with the member path, so nothing
    downstream sizes an allocation by it (the executor once allocated 4 GB for it)."""
    doc = json.loads((EXAMPLES / "culling.json").read_text(encoding="utf-8"))
    inline = doc["program_command_signatures"]["PCS"]["pArgumentDescs"][2]["InlineRootParameter"]
    target = inline["RootParameter"]["Constants"] if member == "Num32BitValues" else inline
    target[member] = 0x7FFFFFFF
    with pytest.raises(D3D12WLError, match=f"{member} 2147483647 is more DWORDs than a root signature holds"):
        description.load(doc)


def test_hex_dump_of_a_record_whose_stride_is_huge() -> None:
    """dump --hex shows the start of padding up to a stride read from GPU memory, not 2^40 bytes of it."""
    from d3d12wl import abi
    from d3d12wl.cli import render
    from d3d12wl.executor import execute
    from d3d12wl.executor.dump_view import dump_view

    doc = culling_capture()
    region = doc["memory"][0]  # pDispatchInputBuffer: the D3D12_DISPATCH_LIST_INPUT at DispatchListInput
    data = bytearray(bytes.fromhex("".join(region["hex"]) if isinstance(region["hex"], list) else region["hex"]))
    at = abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StrideInBytes")
    data[at:at + 8] = (0xFF00000010).to_bytes(8, "little")
    region["hex"] = data.hex()
    capture = load_capture(doc)
    text = render.render_text(dump_view(capture, execute(capture), with_hex=True))
    assert "more bytes not shown" in text and len(text) < 1 << 20


def test_an_argument_source_outside_its_enum_is_a_violation(tmp_path: Path) -> None:
    """A Source of 99 is a violation that validate lists (exit 1), not an error from the notes' layout (exit 2)."""
    doc = json.loads((EXAMPLES / "culling.json").read_text(encoding="utf-8"))
    next(iter(doc["program_command_signatures"].values()))["pArgumentDescs"][0]["Source"] = 99
    path = tmp_path / "bad_source.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = run_cli("validate", str(path))
    assert done.returncode == 1 and "Source 99 is not a D3D12_INDIRECT_ARGUMENT_SOURCE value" in done.stdout
