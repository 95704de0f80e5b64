"""No output may be an input of the same command or another output of it (issue 42, "What to build", classes 3
and 4; design.md, "Every file is written atomically ... no output may be an input or another output of the same
command").  The rule is :mod:`d3d12wl.output.claims`: the names a command is given are checked before anything is
read or written, and every file it opens for output is checked, as it is opened, against every file it has read
(a capture's region files, a validators file) and every output it has opened.  Exit 2 naming both; nothing
written, and every input as it was.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
from pathlib import Path

import pytest
from cli_flags import actions
from conftest import require

import d3d12wl
from d3d12wl.capture.file import load_capture, save_capture
from d3d12wl.cli import ALL, build_parser, main
from d3d12wl.output import claims

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"
CULLING = EXAMPLES / "culling.json"
CULLING_CAPTURE = EXAMPLES / "culling_capture.json"
READBACK = EXAMPLES / "readback"


def _digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and its content (what a refused run must leave as it was)."""
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and not p.is_symlink()}


def _refused(argv: list[str], folder: Path, capsys: pytest.CaptureFixture[str], *names: str) -> str:
    """Run ``argv``: exit 2, every file of ``folder`` as it was, no file added, and the message naming ``names``."""
    before = _digests(folder)
    assert main(argv) == 2, capsys.readouterr().err
    err = capsys.readouterr().err
    assert _digests(folder) == before, err
    for name in names:
        assert name in err, (name, err)
    assert "internal error" not in err
    return err


@pytest.fixture
def capture(tmp_path: Path) -> Path:
    """The culling capture with every region in a file of its own beside it (``cap.<region>.bin``)."""
    path = tmp_path / "cap.json"
    save_capture(load_capture(CULLING_CAPTURE), path, inline_limit=0)
    return path


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_class_03_the_verdict_table_named_as_the_executions_file(fmt: str, tmp_path: Path, capture: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Class 3: ``exec --format csv|parquet -o P --findings P`` wrote one file at P (for csv the executions: the
    verdict lost) and said the verdict was written to P.  Exit 2 naming both, before anything is written; an old P
    stays as it was."""
    if fmt == "parquet":
        require(importlib.util.find_spec("pyarrow") is not None, "exec --format parquet needs pyarrow")
    p = tmp_path / "P"
    p.write_bytes(b"old")
    _refused(["exec", str(capture), "--format", fmt, "-o", str(p), "--findings", str(p)], tmp_path, capsys,
             f"-o {str(p)!r} and --findings {str(p)!r} are the same file")
    # spelt another way, or through a symlink, it is the same file
    (tmp_path / "sub").mkdir()
    (tmp_path / "link").symlink_to(p)
    for other in (str(tmp_path / "sub" / ".." / "P"), str(tmp_path / "link")):
        _refused(["exec", str(capture), "--format", fmt, "-o", str(p), "--findings", other], tmp_path, capsys,
                 "are the same file")
    # the sidecar derived from -o, named by --findings as well
    _refused(["exec", str(capture), "--format", fmt, "-o", str(tmp_path / f"e.{fmt}"), "--findings",
              str(tmp_path / f"e.{fmt}")], tmp_path, capsys, "are the same file")


def test_class_04_the_verdict_table_named_as_the_capture_being_read(tmp_path: Path, capture: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """Class 4: ``exec CAPTURE --format csv -o e.csv --findings CAPTURE`` replaced the capture being read by the
    verdict CSV.  Exit 2 naming both, the capture and its region files as they were, no e.csv."""
    _refused(["exec", str(capture), "--format", "csv", "-o", str(tmp_path / "e.csv"), "--findings", str(capture)],
             tmp_path, capsys, f"--findings {str(capture)!r} is CAPTURE {str(capture)!r}, which this command reads")
    # -o itself, and the sidecar -o derives (FILE.findings.csv) when that is the capture
    _refused(["exec", str(capture), "--format", "csv", "-o", str(capture)], tmp_path, capsys, "CAPTURE")
    named = tmp_path / "x.findings.csv"
    capture.rename(named)
    _refused(["exec", str(named), "--format", "csv", "-o", str(tmp_path / "x.csv")], tmp_path, capsys,
             f"the verdict table beside -o {str(named)!r} is CAPTURE")


def test_an_output_over_a_file_the_capture_maps(tmp_path: Path, capture: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A capture's region file is an input too (found as the capture is read): exec, dump, patch-list and remap
    refuse to write over it, naming it."""
    region = tmp_path / "cap.pPrimaryListBuffer.bin"
    vamap = tmp_path / "vamap.csv"
    vamap.write_text("0x0,0x100000000,0x200000000\n")
    for argv in (["exec", str(capture), "--format", "csv", "-o", str(region)],
                 ["exec", str(capture), "--format", "csv", "-o", str(tmp_path / "e.csv"), "--findings", str(region)],
                 ["dump", str(capture), "-o", str(region)],
                 ["patch-list", str(capture), "-o", str(region)],
                 ["remap", str(capture), "--va-map", str(vamap), "-o", str(region)]):
        _refused(argv, tmp_path, capsys, f"is the region file {str(region)!r}, which this command reads")


def test_capture_over_one_of_its_own_region_files(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``capture DESC r=FILE@VA -o FILE``: the region's file is read as the capture is assembled, and -o may not
    replace it (nor may a region file the save derives, ``OUT.<region>.bin``)."""
    data = tmp_path / "primary.bin"
    data.write_bytes((READBACK / "primary.bin").read_bytes())
    argv = ["capture", str(CULLING), f"dispatch_input={READBACK / 'dispatch_input.bin'}@0x10000",
            f"primary={data}@0x20000", f"program_table={READBACK / 'program_table.bin'}@0x30000",
            f"opaque={READBACK / 'secondary_opaque.bin'}@0x40000",
            f"transparent={READBACK / 'secondary_transparent.bin'}@0x41800",
            f"shadow={READBACK / 'secondary_shadow.bin'}@0x43000",
            "--dispatch-list", "dispatch_input", "--max-inputs", "3", "--program-table", "program_table",
            "--root-arg", "0=0x50000"]
    _refused([*argv, "-o", str(data)], tmp_path, capsys, "is the region file")
    _refused([*argv, "-o", str(tmp_path / "d.json"), "--state", str(tmp_path / "d.json")], tmp_path, capsys,
             "--state")
    assert main([*argv, "-o", str(tmp_path / "ok.json")]) == 0


def test_migrations_never_write_over_what_they_read(tmp_path: Path, capture: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """migrate wl-to-ei into the folder of its capture, which a call file it writes would replace; ei-to-wl over
    its call sequence or one of its captures; every name checked before the first file is written."""
    first = tmp_path / "call000_Opaque.json"
    capture.rename(first)
    _refused(["migrate", "wl-to-ei", str(first), "--output-dir", str(tmp_path)], tmp_path, capsys,
             f"--output-dir {str(first)!r} is the capture {str(first)!r}")
    folder = tmp_path / "ei"
    assert main(["migrate", "wl-to-ei", str(first), "--output-dir", str(folder)]) == 0
    _refused(["migrate", "ei-to-wl", str(folder / "calls.json"), "-o", str(folder / "calls.json")], tmp_path,
             capsys, "INPUT")
    _refused(["migrate", "ei-to-wl", f"P={folder / 'call001_Transparent.json'}", "-o",
              str(folder / "call001_Transparent.json")], tmp_path, capsys, "INPUT")
    _refused(["migrate", "ei-to-wl", str(folder / "calls.json"), "-o", str(folder / "call002_Shadow.json")],
             tmp_path, capsys, "is the capture")


def test_report_over_its_capture(tmp_path: Path, capture: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``report CAPTURE -o CAPTURE`` would replace the capture by its page; -o over one of its region files too."""
    _refused(["report", str(capture), "-o", str(capture)], tmp_path, capsys, "CAPTURE")
    _refused(["report", str(capture), "-o", str(tmp_path / "cap.pPrimaryListBuffer.bin")], tmp_path, capsys,
             "is the region file")


def test_messages_junit_over_the_driver(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``messages check --driver LIB --junit LIB`` would replace the library under test by its report."""
    lib = tmp_path / "driver.so"
    lib.write_bytes(b"\x7fELF not a real library")
    _refused(["messages", "check", "--driver", str(lib), "--junit", str(lib)], tmp_path, capsys,
             f"--junit {str(lib)!r} is --driver {str(lib)!r}")


def test_streams_and_sinks(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``-`` names standard output, one output however often it is named; a character device is a sink, never the
    same file (``/dev/null`` twice discards both); a FIFO is a file, which two outputs would feed as one stream."""
    base = ["exec", str(CULLING_CAPTURE), "--format", "csv"]
    _refused([*base, "-o", "-", "--findings", "-"], tmp_path, capsys, "-o - and --findings - are both standard output")
    assert main([*base, "-o", os.devnull, "--findings", os.devnull]) == 0
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    _refused([*base, "-o", str(fifo), "--findings", str(fifo)], tmp_path, capsys, "are the same file")


def test_outside_a_command_nothing_is_refused(tmp_path: Path, capture: Path) -> None:
    """The Python API is not a command: saving a capture over the file it was loaded from is the caller's choice
    (and its region files, referenced in place, are not rewritten)."""
    loaded = load_capture(capture)
    save_capture(loaded, capture)
    assert load_capture(capture).memory.regions
    claims.claim(capture)  # (outside a command: nothing kept, nothing refused)


#: every flag that names an output file (or folder), by command; a new one must be added here and tested (above;
#: check's and codegen's in tests/test_check.py and test_codegen_engines.py; the files import writes into its
#: --output-dir, migrate's calls, a capture's region files: by the check as each is opened)
OUTPUT_FLAGS = {
    ("capture", "-o"), ("dump", "-o"), ("exec", "-o"), ("exec", "--findings"), ("messages check", "--junit"),
    ("migrate ei-to-wl", "-o"), ("migrate scene", "--output-dir"), ("migrate wl-to-ei", "--output-dir"),
    ("patch-list", "-o"), ("remap", "-o"), ("codegen", "-o"), ("report", "-o"), ("check", "-o"),
    ("check", "--junit"), ("check", "--write-baseline"), ("check", "--output-dir"), ("import gfxr", "--output-dir"),
    ("import gits", "--output-dir"),
}


def test_every_output_flag_is_held_to_the_rule() -> None:
    """The output flags of every command (``-o``, ``--findings``, ``--junit``: a flag whose destination is an output
    file) are the ones the tests above hold to the rule."""
    found = {(command, a.option_strings[0]) for command, a in actions(build_parser(ALL))
             if a.dest in ("output", "findings", "junit", "write_baseline", "output_dir")}
    assert found == OUTPUT_FLAGS
