"""Every command reads its files through one bounded reader (d3d12wl.cli.inputs; issue 13, item 4): ``-`` is
stdin, and a file that is not what the command expects exits 2 with a message naming it, never a traceback and
never an unbounded read (a directory, binary bytes where JSON is expected, a FIFO, ``/dev/zero``)."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from d3d12wl.cli import inputs, main

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling.json"
BINARY = EXAMPLES / "readback" / "primary.bin"

#: each command that reads a JSON file, with the arguments around it ({} is the file)
JSON_COMMANDS = {
    "layout": ["layout", "{}"],
    "validate": ["validate", "{}"],
    "codegen": ["codegen", "{}", "--lang", "c"],
    "dump": ["dump", "{}"],
    "exec": ["exec", "{}"],
    "decode": ["decode", "{}", "PCS.primary", str(BINARY)],
    "capture": ["capture", "{}", "-o", "/nonexistent/never-written.json", "--dispatch-list", "0x10000"],
}


def argv(command: str, path: str) -> list[str]:
    return [path if a == "{}" else a for a in JSON_COMMANDS[command]]


@pytest.fixture
def fifo(tmp_path: Path):  # noqa: ANN201 - a generator fixture
    """A FIFO that a writer thread feeds with binary bytes."""
    path = tmp_path / "fifo"
    os.mkfifo(path)

    def feed() -> None:
        try:
            with open(path, "wb") as f:
                f.write(b"{\x00\x01binary" * 1000)
        except OSError:  # the reader stopped early
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    yield path
    t.join(timeout=5)


@pytest.mark.parametrize("command", sorted(JSON_COMMANDS))
@pytest.mark.parametrize("kind", ["directory", "binary", "dev_zero", "missing", "not_utf8", "empty", "bad_json"])
def test_wrong_file_exits_2_naming_it(command: str, kind: str, tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    paths = {"directory": str(tmp_path), "binary": str(BINARY), "dev_zero": "/dev/zero",
             "missing": str(tmp_path / "missing.json")}
    if kind in ("not_utf8", "empty", "bad_json"):
        p = tmp_path / f"{kind}.json"
        p.write_bytes({"not_utf8": b'{"a": "\xff"}', "empty": b"  \n", "bad_json": b'{"a": 1,'}[kind])
        paths[kind] = str(p)
    path = paths[kind]
    assert main(argv(command, path)) == 2
    err = capsys.readouterr().err
    assert path in err and err.startswith(f"d3d12wl {command}: error: ")
    assert "Traceback" not in err
    expected = {"directory": "is a directory", "binary": "holds binary data (a NUL byte at offset 0)",
                "dev_zero": "is a character device", "missing": "no such file", "not_utf8": "is not UTF-8 text",
                "empty": "is empty", "bad_json": "not valid JSON"}[kind]
    assert expected in err


@pytest.mark.parametrize("command", ["layout", "dump"])
def test_fifo_of_binary_bytes(command: str, fifo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv(command, str(fifo))) == 2
    err = capsys.readouterr().err
    assert str(fifo) in err and "holds binary data (a NUL byte at offset 1)" in err


def test_endless_stream_stops_at_the_bound(tmp_path: Path) -> None:
    path = tmp_path / "fifo"
    os.mkfifo(path)

    def feed() -> None:
        try:
            with open(path, "wb") as f:
                while True:
                    f.write(b" " * 4096)
        except OSError:  # BrokenPipe once the reader gave up
            pass

    t = threading.Thread(target=feed, daemon=True)
    t.start()
    with pytest.raises(inputs.InputError, match="does not end within 65,536 bytes"):
        inputs.read_text(path, limit=1 << 16)
    t.join(timeout=5)


def test_binary_stream_bound(tmp_path: Path) -> None:
    path = tmp_path / "fifo"
    os.mkfifo(path)
    t = threading.Thread(target=lambda: open(path, "wb").write(bytes(5000)), daemon=True)
    t.start()
    with pytest.raises(inputs.InputError, match="does not end within 4,096 bytes"):
        inputs.read_binary(path, limit=4096)
    t.join(timeout=5)


def test_regular_binary_files_are_mapped(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(bytes(range(256)) * 16)
    data = inputs.read_binary(path)
    assert isinstance(data, memoryview) and bytes(data[:3]) == b"\x00\x01\x02" and len(data) == 4096
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    assert inputs.read_binary(empty) == b""


@pytest.mark.parametrize("command", ["layout", "validate", "codegen", "decode"])
def test_description_from_stdin(command: str) -> None:
    args = [a if a != "{}" else "-" for a in JSON_COMMANDS[command]]
    result = subprocess.run([sys.executable, "-m", "d3d12wl", *args], input=CULLING.read_bytes(),
                            capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("command", ["dump", "exec"])
def test_capture_from_stdin(command: str) -> None:
    result = subprocess.run([sys.executable, "-m", "d3d12wl", command, "-"],
                            input=(EXAMPLES / "culling_capture.json").read_bytes(), capture_output=True, cwd=ROOT,
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert b"executions (9)" in result.stdout


def test_binary_on_stdin_where_json_is_expected() -> None:
    result = subprocess.run([sys.executable, "-m", "d3d12wl", "layout", "-"], input=BINARY.read_bytes(),
                            capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == 2
    assert result.stderr.decode().strip() == ("d3d12wl layout: error: <stdin>: holds binary data (a NUL byte at "
                                              "offset 0), not a JSON description")


def test_decode_binary_file_that_is_a_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", str(CULLING), "PCS.primary", str(tmp_path)]) == 2
    assert f"{tmp_path}: is a directory, not the bytes of PCS.primary" in capsys.readouterr().err
    assert main(["decode", str(CULLING), "PCS.primary", "/dev/zero"]) == 2
    assert "/dev/zero: is a character device" in capsys.readouterr().err


def test_abi_check_files_go_through_the_bounded_reader(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """`abi check --header/--hlsl/--signature`: a device, a directory or binary data exits 2 naming the flag before
    clang or the loader opens it."""
    for argv_, expected in [(["--header", "/dev/zero"], "/dev/zero (--header): is a character device"),
                            (["--header", str(tmp_path)], f"{tmp_path} (--header): is a directory"),
                            (["--header", str(BINARY)], f"{BINARY} (--header): holds binary data"),
                            (["--hlsl", str(BINARY), "--signature", str(CULLING)], "(--hlsl): holds binary data"),
                            (["--header", str(EXAMPLES / "culling_records.h"), "--signature", "/dev/zero"],
                             "/dev/zero (--signature): is a character device")]:
        assert main(["abi", "check", *argv_]) == 2
        assert expected in capsys.readouterr().err
