"""d3d12wl.output.outfiles: every file a user names for output is written atomically (regular files) or through
(FIFOs, devices), and an OS error on the path is an OutputError naming it (exit 2)."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest

from d3d12wl.output import outfiles
from d3d12wl.output.outfiles import OutputError, output_file


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp"))


def test_a_new_file_appears_whole_and_leaves_no_temporary(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    with output_file(target) as f:
        f.write("line\n")
        assert not target.exists()  # only under its final name once the writer is done
    assert target.read_text() == "line\n" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("failure", [RuntimeError("writer bug"), KeyboardInterrupt()])
def test_a_failing_or_interrupted_writer_leaves_the_old_file(tmp_path: Path, failure: BaseException) -> None:
    target = tmp_path / "out.csv"
    target.write_text("old\n")
    with pytest.raises(type(failure)):
        with output_file(target) as f:
            f.write("new, torn")
            raise failure
    assert target.read_text() == "old\n" and _leftovers(tmp_path) == []


def test_an_encoding_error_cannot_tear_the_file(tmp_path: Path) -> None:
    """A lone surrogate (valid JSON "\\ud800" in a program name) is escaped as on standard output."""
    target = tmp_path / "names.txt"
    with output_file(target) as f:
        f.write("program \ud800\n")
    assert target.read_bytes() == b"program \\ud800\n"


def test_binary_output(tmp_path: Path) -> None:
    target = tmp_path / "out.bin"
    with output_file(target, binary=True) as f:
        f.write(b"\x00\x01")
    assert target.read_bytes() == b"\x00\x01"


def test_an_existing_file_keeps_its_mode(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    target.chmod(0o640)
    with output_file(target) as f:
        f.write("new")
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_text() == "new"


def test_a_symlink_is_followed_to_its_target(tmp_path: Path) -> None:
    real = tmp_path / "real.txt"
    real.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(real)
    with output_file(link) as f:
        f.write("new")
    assert link.is_symlink() and real.read_text() == "new"


def test_a_fifo_is_written_through(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    with output_file(fifo) as f:
        f.write("through\n")
    reader.join(10)
    assert got == [b"through\n"] and stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_device_is_written_through() -> None:
    with output_file("/dev/null") as f:
        f.write("nothing")
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)


def test_standard_output(capsys: pytest.CaptureFixture[str]) -> None:
    with output_file("-") as f:
        f.write("to stdout\n")
    assert capsys.readouterr().out == "to stdout\n"


@pytest.mark.parametrize("case", ["directory", "missing folder", "name too long", "symlink loop", "empty",
                                  "not a folder"])
def test_a_path_that_cannot_be_written_is_an_output_error_naming_it(tmp_path: Path, case: str) -> None:
    if case == "directory":
        path = str(tmp_path)
    elif case == "missing folder":
        path = str(tmp_path / "no" / "such" / "out.txt")
    elif case == "name too long":
        path = str(tmp_path / ("n" * 300))
    elif case == "symlink loop":
        (tmp_path / "a").symlink_to(tmp_path / "b")
        (tmp_path / "b").symlink_to(tmp_path / "a")
        path = str(tmp_path / "a")
    elif case == "not a folder":
        (tmp_path / "file").write_text("")
        path = str(tmp_path / "file" / "out.txt")
    else:
        path = ""
    with pytest.raises(OutputError) as info:
        with output_file(path) as f:
            f.write("x")
    assert info.value.where == (path or "''")


def _with_4_kib_files(body: str, report: str) -> subprocess.CompletedProcess[str]:
    """Run ``body`` (statements indented by 4) in a Python process whose files may not grow past 4 KiB
    (RLIMIT_FSIZE: a full disk; Python ignores SIGXFSZ, so the write fails with EFBIG); an OutputError runs
    ``report`` (``exc`` is the error) and exits 2."""
    code = ("import resource, sys\nfrom d3d12wl.output.outfiles import OutputError, output_file\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))\n"
            f"try:\n{body}except OutputError as exc:\n    {report}\n    sys.exit(2)\n")
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          cwd=Path(__file__).resolve().parent.parent)


def test_a_full_disk_is_an_output_error_and_keeps_the_old_file(tmp_path: Path) -> None:
    """RLIMIT_FSIZE stands for a full device: the write fails with EFBIG (Python ignores SIGXFSZ)."""
    target = tmp_path / "out.txt"
    target.write_text("old\n")
    result = _with_4_kib_files(f"    with output_file({str(target)!r}) as f:\n"
                               "        for _ in range(100):\n"
                               "            f.write('x' * 1000)\n", "print(exc.where, exc.message)")
    assert result.returncode == 2, result.stderr
    assert str(target) in result.stdout and "file-size limit" in result.stdout
    assert target.read_text() == "old\n" and _leftovers(tmp_path) == []


@pytest.mark.parametrize("step", ["flush", "rename"])
def test_an_interrupt_while_the_file_is_flushed_or_renamed_leaves_the_old_file_and_no_temporary(
        tmp_path: Path, monkeypatch, step: str) -> None:
    """An interrupt during the commit (the last flush can take long on a busy disk; found by issue 26's campaign,
    seeds 30019672 and 30051826: messages check --junit left its temporary file) discards the staged file: the old
    one stays, nothing else is left."""
    target = tmp_path / "report.xml"
    target.write_text("old")

    real = outfiles._NamingFileIO.write if step == "flush" else os.replace
    calls = []

    def interrupted(*args: Any) -> Any:  # (once, as a Ctrl-C lands: a second close flushes for real)
        calls.append(args)
        if len(calls) == 1:
            raise KeyboardInterrupt
        return real(*args)

    if step == "flush":
        monkeypatch.setattr(outfiles._NamingFileIO, "write", interrupted)
    else:
        monkeypatch.setattr(os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt), output_file(target) as f:
        f.write("new")
    monkeypatch.undo()
    assert target.read_text() == "old" and sorted(os.listdir(tmp_path)) == ["report.xml"]


def test_the_commit_does_not_wait_for_the_disk(tmp_path: Path, monkeypatch) -> None:
    """The commit flushes, closes and renames; it does not sync the file or its folder (outfiles' docstring says
    why: every output is made again from its inputs, and a sync made each -o wait for the disk)."""
    def forbidden(*args: object) -> None:
        raise AssertionError("the commit waited for the disk")

    monkeypatch.setattr(os, "fsync", forbidden)
    monkeypatch.setattr(os, "fdatasync", forbidden, raising=False)  # (not on every platform)
    with output_file(tmp_path / "out.txt") as f:
        f.write("new")
    assert (tmp_path / "out.txt").read_text() == "new"


def test_an_interrupt_as_the_temporary_file_is_created_leaves_nothing(tmp_path: Path, monkeypatch) -> None:
    """The temporary name is known before the file exists: an interrupt landing just after it was created (seed
    40037232 of issue 26's campaign: tempfile.mkstemp hands the name back only after creating it) is cleaned up."""
    real_open = os.open

    def created_then_interrupted(path, flags, mode=0o777):  # noqa: ANN001, ANN202 - os.open's own signature
        os.close(real_open(path, flags, mode))
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "open", created_then_interrupted)
    with pytest.raises(KeyboardInterrupt), output_file(tmp_path / "out.json") as f:
        f.write("never")
    monkeypatch.undo()
    assert os.listdir(tmp_path) == []



def test_each_file_names_its_own_failing_write_when_files_are_nested(tmp_path: Path) -> None:
    """A file written inside another file's ``with`` (exec's csv executions around its verdict table) names itself
    when its write fails, not the file whose ``with`` is innermost: the error is the file's own.  Neither file is
    left, torn or temporary."""
    outer, inner = tmp_path / "executions.csv", tmp_path / "executions.findings.csv"
    result = _with_4_kib_files(
        f"    with output_file({str(outer)!r}, binary=True) as big, output_file({str(inner)!r}) as small:\n"
        "        small.write('kind,rule\\n')\n"
        "        big.write(b'x' * 100_000)\n", "print(exc.where)")
    assert result.returncode == 2, result.stderr
    assert result.stdout.strip() == str(outer)
    assert os.listdir(tmp_path) == []


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("argv", [["exec"], ["exec", "--format", "csv"], ["dump"], ["layout", "--json", "-"]])
def test_standard_output_on_a_full_device_is_exit_2_naming_it(argv: list[str]) -> None:
    """``d3d12wl ... > /dev/full``: the output cannot be written, which is unusable output (exit 2, one line naming
    standard output), not an internal error; no traceback, and nothing more after it."""
    signature = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples" / "culling.json"
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "d3d12wl", *argv], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120, input=signature.read_text() if "-" in argv else None)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        f"d3d12wl {argv[0]}: error: standard output: cannot write it: No space left on device"]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full")
@pytest.mark.parametrize("argv", [["--help"], ["--version"], ["exec", "--help"]])
def test_help_and_version_on_a_full_device_is_exit_2(argv: list[str]) -> None:
    """``d3d12wl --help > /dev/full`` wrote nothing and exited 0 (argparse swallows its write's error); now the same
    one line and exit 2 as every other output to standard output.  Through a pipe they still print."""
    with open("/dev/full", "wb") as full:
        result = subprocess.run([sys.executable, "-m", "d3d12wl", *argv], stdout=full, stderr=subprocess.PIPE,
                                text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.strip().splitlines() == ["d3d12wl: error: standard output: cannot write it: No space left "
                                                  "on device"]
    shown = subprocess.run([sys.executable, "-m", "d3d12wl", *argv], capture_output=True, text=True, timeout=120)
    assert shown.returncode == 0 and shown.stdout.startswith(("usage:", "d3d12wl ")) and not shown.stderr
