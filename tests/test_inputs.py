"""``decode`` and ``capture`` read their files through the one bounded reader, d3d12wl.inputs (issue 13, item 4;
tests/test_hostile_inputs.py covers the reader and the other commands): ``-`` is stdin, a readback file is
memory-mapped, and what is not a regular file (a directory, a FIFO, ``/dev/zero``) or not what the command expects
(binary data where JSON is expected) exits 2 naming the file, never with a traceback."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from d3d12wl import inputs
from d3d12wl.cli import main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling.json"
BINARY = EXAMPLES / "readback" / "primary.bin"


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    return path


def not_files(tmp_path: Path, fifo: Path) -> dict[str, tuple[str, str]]:
    return {"directory": (str(tmp_path), "is a directory"), "device": ("/dev/zero", "is a device"),
            "fifo": (str(fifo), "is a FIFO")}


@pytest.mark.parametrize("kind", ["directory", "device", "fifo"])
def test_decode_refuses_what_is_not_a_file(kind: str, tmp_path: Path, fifo: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    path, expected = not_files(tmp_path, fifo)[kind]
    for argv in (["decode", str(CULLING), "PCS.primary", path], ["decode", path, "PCS.primary", str(BINARY)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{path}: {expected}" in err and "Traceback" not in err


@pytest.mark.parametrize("kind", ["directory", "device", "fifo"])
def test_capture_refuses_what_is_not_a_file(kind: str, tmp_path: Path, fifo: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path, expected = not_files(tmp_path, fifo)[kind]
    out = str(tmp_path / "c.json")
    for argv, message in [
        (["capture", path, "-o", out, "--dispatch-list", "0x0"], f"{path}: {expected}"),
        (["capture", str(CULLING), f"r={path}@0x1000", "-o", out, "--dispatch-list", "0x1000"], "not a regular file"),
        (["capture", str(CULLING), "-o", out, "--dispatch-list", "0x0", "--state", path], f"{path}: {expected}"),
    ]:
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert message in err and "Traceback" not in err
    assert not Path(out).exists()


def test_binary_where_json_is_expected(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    for argv in (["decode", str(BINARY), "PCS.primary", str(BINARY)],
                 ["capture", str(BINARY), "-o", str(tmp_path / "c.json"), "--dispatch-list", "0x0"],
                 ["capture", str(CULLING), "-o", str(tmp_path / "c.json"), "--dispatch-list", "0x0", "--state",
                  str(BINARY)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert str(BINARY) in err and "Traceback" not in err


def test_readback_files_are_mapped(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 16)
    data = inputs.map_bytes(path)
    assert isinstance(data, memoryview) and bytes(data[:3]) == b"\x00\x01\x02" and len(data) == 4096
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert inputs.map_bytes(empty) == b""


def test_stdin_bound_for_readbacks(monkeypatch: pytest.MonkeyPatch) -> None:
    class Stdin:
        class buffer:  # noqa: N801 - mimics sys.stdin.buffer
            @staticmethod
            def read(n: int) -> bytes:
                return bytes(min(n, 5000))

    monkeypatch.setattr(sys, "stdin", Stdin)
    with pytest.raises(inputs.InputError, match="more than 4,096 bytes"):
        inputs.map_bytes(inputs.STDIN, limit=4096, what="readback")


def test_description_and_readback_from_stdin() -> None:
    result = subprocess.run([sys.executable, "-m", "d3d12wl", "decode", "-", "PCS.primary", str(BINARY)],
                            input=CULLING.read_bytes(), capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0 and b"3 record(s)" in result.stdout, result.stderr
    result = subprocess.run([sys.executable, "-m", "d3d12wl", "decode", "-", "PCS.primary", "-"],
                            input=CULLING.read_bytes(), capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2 and b"stdin can feed DESC.json or FILE, not both" in result.stderr


def test_capture_state_from_stdin(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    result = subprocess.run([sys.executable, "-m", "d3d12wl", "capture", str(CULLING), "-o", str(out),
                             "--dispatch-list", "0x10000", "--state", "-"],
                            input=b'{"graphics_root_arguments": {"0": {"Descriptor": "0x50000"}}}',
                            capture_output=True, cwd=ROOT, timeout=60)
    # written; exit 1: the pre-flight's call-time checks find no program table bound (none was given)
    assert result.returncode == 1 and b"no-work-list-bound" in result.stdout, result.stderr
    assert '"Descriptor": "0x50000"' in out.read_text()


@pytest.mark.parametrize("number", ["1e999", "-1e999"])
def test_a_number_beyond_a_double_is_refused(number: str, tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    """1e999 is JSON's grammar but no double: parsed it would be an infinity that validate lets through, capture
    writes as Infinity (not JSON) and dump refuses.  It is refused where it is read."""
    with pytest.raises(inputs.InputError, match="out of a double's range"):
        inputs.parse_json(f'{{"MaxLOD": {number}}}', where="x.json")
    culling = Path(__file__).resolve().parents[1] / "d3d12wl" / "examples" / "culling.json"
    desc = tmp_path / "desc.json"
    desc.write_text(culling.read_text().replace('"MaxLOD": 3.4028234663852886e+38', f'"MaxLOD": {number}'))
    assert number in desc.read_text()
    assert main(["validate", str(desc)]) == 2
    assert "out of a double's range" in capsys.readouterr().err


def test_one_integer_parser_for_options_and_region_grammar(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """inputs.integer is the one parser of a typed integer: decode's --count and capture's region grammar give the
    same answers and the same refusal (a huge digit string is refused, not converted)."""
    from d3d12wl.capture import assemble
    from d3d12wl.cli import _options
    from d3d12wl.errors import CaptureError

    for text, value in [("0x10", 16), ("1_000", 1000), ("42", 42)]:
        assert inputs.integer(text) == _options.integer(text) == assemble._int(text, "x") == value
    with pytest.raises(ValueError, match="not an integer"):
        inputs.integer("0xzz")
    with pytest.raises(ValueError, match="digits"):
        inputs.integer("9" * 5000)
    with pytest.raises(CaptureError, match="digits"):
        assemble._int("9" * 5000, "x")


@pytest.mark.parametrize(("text", "message"), [
    ('{"a": ' + "1" * inputs.MAX_INT_DIGITS + "}", None),
    ('{"a": [-' + "1" * inputs.MAX_INT_DIGITS + "]}", None),
    ('{"a": ' + "1" * (inputs.MAX_INT_DIGITS + 1) + "}", "an integer of 41 digits (at most 40)"),
    ('{"a": [{"b": -' + "1" * (inputs.MAX_INT_DIGITS + 1) + "}]}", "an integer of 41 digits (at most 40)"),
    ("1" * (inputs.MAX_INT_DIGITS + 1), "an integer of 41 digits (at most 40)"),
    # past Python's own limit on converting digits (4,300), the bound still speaks first
    ('{"a": ' + "7" * 5000 + "}", "an integer of 5000 digits (at most 40)"),
    # the first long integer in the text is the one named, whatever follows it
    ('{"a": ' + "1" * 50 + ', "b": ' + "2" * 45 + ', "c": }', "an integer of 50 digits (at most 40)"),
    ('{"a": "' + "1" * 100 + '", "b": 7}', None),  # (digits in a string are no integer)
])
def test_integer_digit_bound(text: str, message: str | None) -> None:
    """parse_json bounds integers to MAX_INT_DIGITS digits.  It parses without the per-integer hook (a third of the
    parse of a large description) and checks the integers in its depth walk; a document that is not plainly within
    the bounds is parsed again with the hook, so every error is the one it always was."""
    if message is not None:
        with pytest.raises(inputs.InputError, match=re.escape(message)):
            inputs.parse_json(text, where="t")
    else:
        assert isinstance(inputs.parse_json(text, where="t"), dict)


def test_parsing_pauses_the_cycle_collector_and_resumes_it() -> None:
    import gc

    assert gc.isenabled()
    inputs.parse_json('{"a": [1, {"b": 2}]}', where="t")
    assert gc.isenabled()
    gc.disable()
    try:
        inputs.parse_json("[]", where="t")
        assert not gc.isenabled()  # (it resumes only what was running)
    finally:
        gc.enable()
