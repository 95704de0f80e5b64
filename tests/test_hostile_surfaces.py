"""Hostile input on the surfaces the fuzz campaign of tests/fuzz does not mutate (issue 26): standard input, special
and sparse files, output paths, the environment, a capture's zeros regions, compiler inputs.  One test (or a few)
per class of the issue's table, built from the class's description; each names its class.

The rule they hold (design.md, "How we work": bad input gets a clear error naming where and why; hostile counts are
bounded, never crash or hang; an OS error on a path the user gave is exit 2 naming it): an input is bounded before
it is held, memory a capture claims is not memory it supplies, and every compiler run is bounded.

Not here: ``exec -o`` (classes 10, 14 for exec; issue 23) and ``messages check --driver`` (16, 17; issue 27).
"""

from __future__ import annotations

import importlib.util
import io
import json
import os
import resource
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
from conftest import require, sigint_default
from executor_builder import dispatch_input

import d3d12wl
from d3d12wl import inputs
from d3d12wl.abi import check as abi_check
from d3d12wl.abi import tools
from d3d12wl.capture.file import load_capture, save_capture
from d3d12wl.cli import main
from d3d12wl.errors import ABIError, D3D12WLError

EXAMPLES = Path(d3d12wl.__file__).resolve().parent / "examples"
CULLING = EXAMPLES / "culling.json"
CULLING_CAPTURE = EXAMPLES / "culling_capture.json"
#: where the zeros regions of these tests lie (far above the example's regions)
ZEROS_VA = 0x1_0000_0000


def _spawn(argv: list[str], stdin: Any, rlimits: dict[int, int] | None, timeout: float) -> tuple[int, bytes, float]:
    def limit() -> None:
        for which, value in (rlimits or {}).items():
            resource.setrlimit(which, (value, value))

    with subprocess.Popen(argv, stdin=stdin or subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          preexec_fn=limit) as proc:
        tail = [b""]

        def drain() -> None:
            assert proc.stdout is not None
            while chunk := proc.stdout.read(1 << 16):
                tail[0] = (tail[0] + chunk)[-4096:]

        reader = threading.Thread(target=drain)
        reader.start()
        assert proc.stderr is not None
        err = proc.stderr.read()
        reader.join(timeout)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    return proc.returncode, err + tail[0], usage.ru_maxrss / 1024


def run_cli(*argv: str | Path, stdin: Any = None, rlimits: dict[int, int] | None = None, timeout: float = 60
            ) -> tuple[int, str, float]:
    """``python -m d3d12wl ARGV`` in a child, its stdout discarded but for its last 4 KiB, which follow its stderr:
    (exit status, stderr and the end of stdout, the MiB its peak RSS (wait4) lies above a bare start's).  The peak of
    a child counts what it inherited from this process until it ran ``exec`` (the test process, grown over a whole
    suite), so the run is measured against a child that only imports the command line, spawned the same way."""
    code, out, peak = _spawn([sys.executable, "-m", "d3d12wl", *map(str, argv)], stdin, rlimits, timeout)
    _, _, bare = _spawn([sys.executable, "-c", "import d3d12wl.cli"], None, None, timeout)
    return code, out.decode("utf-8", "replace"), peak - bare


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise AssertionError("no VmRSS")


def culling_doc() -> dict[str, Any]:
    return json.loads(CULLING_CAPTURE.read_text(encoding="utf-8"))


def zeros_records_doc(records: int, stride: int = 16) -> dict[str, Any]:
    """The culling capture whose dispatch input walks ``records`` primary records of a zeros region (a 14 KB
    capture that claims ``records * stride`` bytes)."""
    doc = culling_doc()
    doc["memory"][0]["hex"] = dispatch_input(records, ZEROS_VA, stride).hex()
    doc["memory"].append({"name": "claimed", "base": hex(ZEROS_VA), "zeros": records * stride, "writable": True})
    return doc


# --- 1: an endless stream on stdin ------------------------------------------------------------------------------


class _Endless:
    """A stdin whose ``buffer.read`` never runs dry, counting what was asked of it."""

    def __init__(self, byte: bytes = b" ") -> None:
        self.byte, self.given = byte, 0
        self.buffer = self

    def read(self, n: int) -> bytes:
        self.given += n
        return self.byte * n


@pytest.mark.parametrize("reader", ["map_bytes", "read_text"])
def test_class_01_an_endless_stdin_is_refused_at_its_limit_holding_one_chunk(monkeypatch: pytest.MonkeyPatch,
                                                                             reader: str) -> None:
    """Class 1: standard input read in chunks against the cap and refused at the chunk that passes it; what was
    read is spooled to an unlinked file, so the process holds one chunk, not the cap."""
    endless = _Endless()
    monkeypatch.setattr(sys, "stdin", endless)
    limit = 16 * inputs.CHUNK_BYTES
    tracemalloc.start()
    try:
        with pytest.raises(inputs.InputError, match=f"holds more than {limit:,} bytes"):
            getattr(inputs, reader)(inputs.STDIN, limit=limit)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert endless.given <= limit + inputs.CHUNK_BYTES
    assert peak < 3 * inputs.CHUNK_BYTES, peak


def test_class_01_dev_zero_on_stdin_stops_at_its_first_byte() -> None:
    """Class 1 through the command line: an endless stream of NUL bytes is no JSON, refused at offset 0."""
    with open("/dev/zero", "rb") as zero:
        rc, err, rss = run_cli("validate", "-", stdin=zero)
    assert rc == 2 and "<stdin>: holds a NUL byte at offset 0" in err, err
    assert rss < 200, rss


def test_class_01_stdin_bytes_are_mapped_not_held(tmp_path: Path) -> None:
    """A readback on stdin (``decode ... -``, a capture region ``NAME=-@VA``) is spooled and mapped: the records
    decode as from the file, and a capture's stdin region is saved like any other."""
    readback = EXAMPLES / "readback" / "primary.bin"
    proc = subprocess.run(f"cat {readback} | {sys.executable} -m d3d12wl decode {CULLING} PCS.primary -",
                          shell=True, capture_output=True, timeout=60)  # (a pipe, not a file: spooled)
    assert proc.returncode == 0 and b"3 record(s)" in proc.stdout, proc.stderr
    out = tmp_path / "c.json"
    proc = subprocess.run(f"cat {readback} | {sys.executable} -m d3d12wl capture {CULLING} p=-@0x20000 "
                          f"--dispatch-list p -o {out}", shell=True, capture_output=True, timeout=60)
    assert proc.returncode in (0, 1), proc.stderr  # (1: the pre-flight's finding that no work list is bound)
    (region,) = [r for r in load_capture(out).memory.regions if r.name == "p"]
    assert bytes(region.data) == readback.read_bytes()


# --- 2: a sparse file of NUL bytes as a JSON document ------------------------------------------------------------


def test_class_02_a_sparse_gigabyte_of_nuls_is_refused_at_its_first_byte(tmp_path: Path) -> None:
    """Class 2: 1 GiB of holes is refused at offset 0 without its bytes or its text being held."""
    sparse = tmp_path / "sparse.json"
    with open(sparse, "wb") as f:
        f.truncate(1 << 30)
    rc, err, rss = run_cli("validate", sparse)
    assert rc == 2 and f"{sparse}: holds a NUL byte at offset 0: a description is JSON text" in err, err
    assert rss < 200, rss
    with open(sparse, "r+b") as f:  # JSON first, then the holes: refused where they start
        f.write(b'{"a": ')
    with pytest.raises(inputs.InputError, match="NUL byte at offset 6"):
        inputs.load_json(sparse)


# --- 3: JSON that would make millions of containers ------------------------------------------------------------


def test_class_03_json_is_bounded_by_the_containers_it_would_make(monkeypatch: pytest.MonkeyPatch) -> None:
    """Class 3: ``[{},{},...]`` is refused before it is parsed by the arrays and objects it would make (about 24
    bytes of memory per byte of text), counted outside strings: brackets inside a string make nothing."""
    monkeypatch.setattr(inputs, "MAX_JSON_CONTAINERS", 1000)
    over = "[" + ",".join(["{}"] * 1000) + "]"
    with pytest.raises(inputs.InputError, match="JSON of 1,001 arrays and objects, more than the 1,000"):
        inputs.parse_json(over, where="t.json")
    assert len(inputs.parse_json("[" + ",".join(["{}"] * 999) + "]", where="t.json")) == 999
    in_strings = json.dumps({"names": ["{[{[" * 100, '\\"{[' * 200]})  # escaped quotes stay inside the string
    assert inputs.parse_json(in_strings, where="t.json")["names"][0].startswith("{[")
    monkeypatch.setattr(inputs, "MAX_JSON_ITEMS", 1000)
    with pytest.raises(inputs.InputError, match="members and elements, more than the 1,000"):
        inputs.parse_json("[" + "0," * 1001 + "0]", where="t.json")


def test_class_03_the_real_bound_through_the_command_line(tmp_path: Path) -> None:
    """45 MB of ``[{},{},...]`` (15 million dicts, over 1 GiB parsed) exits 2 at the structure bound, small."""
    path = tmp_path / "braces.json"
    path.write_text("[" + "{}," * 15_000_000 + "{}]", encoding="ascii")
    rc, err, rss = run_cli("validate", path)
    assert rc == 2 and "JSON of 15,000,002 arrays and objects, more than the 8,388,608" in err, err
    assert rss < 400, rss


# --- 4, 5, 7, 8: zeros regions are never materialized ----------------------------------------------------------


ZEROS_BYTES = 4 << 30  # anonymous memory the OS reserves lazily; reading it whole would commit 4 GiB


def test_class_04_saving_a_large_zeros_region_reads_none_of_it(tmp_path: Path) -> None:
    """Class 4: a zeros region is saved as one ``"zeros"`` member without reading its pages; one that a write
    reached is saved as a sparse region file holding the written bytes."""
    doc = culling_doc()
    doc["memory"].append({"name": "scratch", "base": hex(ZEROS_VA), "zeros": ZEROS_BYTES, "writable": True})
    capture = load_capture(doc)
    before = rss_mib()
    save_capture(capture, tmp_path / "z.json")
    assert rss_mib() - before < 64
    saved = json.loads((tmp_path / "z.json").read_text())
    assert {"name": "scratch", "base": hex(ZEROS_VA), "writable": True, "zeros": ZEROS_BYTES} in saved["memory"]
    capture.memory.write(ZEROS_VA + (3 << 30), b"\x01\x02\x03\x04")
    save_capture(capture, tmp_path / "w.json")
    assert rss_mib() - before < 64
    region_file = tmp_path / "w.scratch.bin"
    assert region_file.stat().st_size == ZEROS_BYTES and region_file.stat().st_blocks * 512 < 1 << 24  # sparse
    back = load_capture(tmp_path / "w.json")
    assert back.memory.read(ZEROS_VA + (3 << 30), 4) == b"\x01\x02\x03\x04"


def test_class_05_program_table_slots_in_untouched_zeros_are_empty_unread() -> None:
    """Class 5: a program table over a zeros region claiming 4 GiB: every slot is empty, known without reading
    one; a slot a write reached is read and matched."""
    from d3d12wl.capture import assemble

    doc = culling_doc()
    table = doc["state"]["program"]["WorkList"]["Binding"]["ProgramTable"]
    doc["memory"].append({"name": "slots", "base": hex(ZEROS_VA), "zeros": ZEROS_BYTES, "writable": True})
    table["Table"] = {"StartAddress": hex(ZEROS_VA), "SizeInBytes": ZEROS_BYTES, "StrideInBytes": 32}
    table["SlotCount"] = ZEROS_BYTES // 32
    capture = load_capture(doc)
    before = rss_mib()
    (report,) = assemble.program_table_slots(capture)
    assert report.empty == ZEROS_BYTES // 32 and not report.programs and not report.findings
    opaque = bytes(capture.objects.programs["Opaque"].Identifier)
    capture.memory.write(ZEROS_VA + 32 * 1_000_000, opaque)
    (report,) = assemble.program_table_slots(capture)
    assert report.programs["Opaque"].tolist() == [1_000_000] and report.empty == ZEROS_BYTES // 32 - 1
    assert rss_mib() - before < 64


def test_program_table_slots_of_a_file_region_release_its_pages(tmp_path: Path) -> None:
    """Beside class 5, from the campaign (seed 20048916): a program table over a sparse 256 MiB file region (every
    slot read: a file's bytes are not known unread) keeps no more of its pages than a chunk's, and no array of every
    slot number (a 1 GiB table held 1.36 GiB, now 0.23)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("RSS from /proc/self/status")
    from d3d12wl.capture import assemble

    size = 256 << 20
    with open(tmp_path / "slots.bin", "wb") as f:
        f.truncate(size)
    doc = culling_doc()
    table = doc["state"]["program"]["WorkList"]["Binding"]["ProgramTable"]
    doc["memory"].append({"name": "slots", "base": hex(ZEROS_VA), "file": str(tmp_path / "slots.bin")})
    table["Table"] = {"StartAddress": hex(ZEROS_VA), "SizeInBytes": size, "StrideInBytes": 32}
    table["SlotCount"] = size // 32
    capture = load_capture(doc)
    before = rss_mib()
    (report,) = assemble.program_table_slots(capture)
    assert report.empty == size // 32 and not report.programs
    assert rss_mib() - before < 96  # the slots' int32 codes (32 MiB) and a chunk, not the file's 256 MiB


def test_a_writable_file_region_written_inline_keeps_no_pages(tmp_path: Path) -> None:
    """From the campaign (seeds 20035932, 20052731): ``capture`` writing a writable (copy-on-write) file region
    inline to standard output releases its pages as it goes (MADV_PAGEOUT, which keeps what a write changed:
    tests/test_memory.py) instead of holding the whole region."""
    region = tmp_path / "r.bin"
    with open(region, "wb") as f:
        f.truncate(256 << 20)
    code, err, peak = run_cli("capture", CULLING, f"r2={region},writable@0x20000", "-o", "-",
                              "--dispatch-list", "0x10000", timeout=120)
    assert code in (0, 1), err
    assert peak < 128, f"{peak:.0f} MiB above a bare start for a 256 MiB region written inline"


def test_capture_names_an_output_it_can_never_write_before_reading_its_regions(tmp_path: Path) -> None:
    """From the campaign (seed 20048916): ``-o nowhere/out`` is exit 2 naming it before a region is read (the
    region here is a file that does not exist, which would otherwise be the error)."""
    code, err, _ = run_cli("capture", CULLING, f"r0={tmp_path / 'absent.bin'}@0x10000", "-o",
                           tmp_path / "nowhere" / "out.json", "--dispatch-list", "r0")
    assert code == 2 and "nowhere" in err and "does not exist" in err and "absent.bin" not in err, err


def test_class_07_automatic_limits_scale_with_supplied_bytes() -> None:
    """Class 7: a 14 KB capture whose zeros region holds 2^24 primary records gets the limits' floors, not 2^24
    records' worth; the pages a write reached count."""
    from d3d12wl.capture.memory import ZERO_PAGE
    from d3d12wl.executor import Limits, execute
    from d3d12wl.executor.trace import BYTES_PER_RECORD, SCALED_FLOORS

    doc = zeros_records_doc(1 << 24)
    doc["memory"][0]["hex"] = dispatch_input(4, ZEROS_VA, 16).hex()  # the region claims 2^24, the call walks 4
    capture = load_capture(doc)
    supplied = capture.memory.supplied_bytes
    assert supplied < 1 << 16 < (1 << 24) * 16
    trace = execute(capture)
    assert trace.limits.max_primary_records == SCALED_FLOORS["max_primary_records"]
    assert trace.limits.max_executions == SCALED_FLOORS["max_executions"]
    claimed = next(r for r in capture.memory.regions if r.name == "claimed")
    capture.memory.write(claimed.base + (1 << 20), bytes(16))
    assert capture.memory.supplied_bytes - supplied == ZERO_PAGE  # the page a write reached counts
    supplied_records = Limits().resolved(64 << 20).max_primary_records
    assert supplied_records == (64 << 20) // BYTES_PER_RECORD  # (64 MiB of hex or file regions would count whole)


def test_class_07_the_walk_stops_at_the_floor(tmp_path: Path) -> None:
    """Class 7 through the command line: the 2^24 zero records stop at the records' floor (exit 1, a
    limit-exceeded finding), in bounded memory (main: 1.37 GiB)."""
    from d3d12wl.executor.trace import SCALED_FLOORS

    path = tmp_path / "claimed.json"
    path.write_text(json.dumps(zeros_records_doc(1 << 24)))
    rc, err, rss = run_cli("dump", path)
    floor = SCALED_FLOORS["max_records"]
    assert rc == 1 and f"limit max_records = {floor} reached" in err, err
    assert rss < 600, rss


def test_class_08_wl_to_ei_of_claimed_records_is_refused_by_name(tmp_path: Path) -> None:
    """Class 8: ``migrate wl-to-ei`` bounds a list's records as the executor does (main: MemoryError, exit 3)."""
    path = tmp_path / "claimed.json"
    path.write_text(json.dumps(zeros_records_doc(1 << 24)))
    rc, err, rss = run_cli("migrate", "wl-to-ei", path, "--output-dir", tmp_path / "out")
    assert rc == 2 and "NumProgramInputs 16,777,216 exceeds the 1,048,576 primary records" in err, err
    assert rss < 200 and not (tmp_path / "out" / "calls.json").exists()


# --- 6: capture -o - streams -------------------------------------------------------------------------------------


def test_class_06_capture_to_stdout_streams_its_hex(tmp_path: Path) -> None:
    """Class 6: ``capture -o -`` with a 48 MB region writes its hex lines a chunk at a time (main held every line:
    about 6.5 bytes of memory per byte of region), and the text is the one ``capture_to_dict`` would make."""
    from d3d12wl.capture.file import capture_to_dict, write_capture_json

    region = tmp_path / "big.bin"
    region.write_bytes(os.urandom(1 << 20) * 48)
    rc, err, rss = run_cli("capture", CULLING, f"big={region}@0x100000", "--dispatch-list", "big", "-o", "-",
                           timeout=120)
    assert rc in (0, 1) and err.rstrip().endswith("}"), err  # (1: the pre-flight finds no work list bound)
    assert rss < 200, rss  # (peaks, 2026-12-01: main 315 MiB for this region, now 113 MiB, a bare start 18)
    capture = load_capture(CULLING_CAPTURE)
    capture.memory.map(0x900000, os.urandom(100_000), name="odd")  # a partial last line, several chunks
    out = io.StringIO()
    write_capture_json(capture, out, chunk=4096)
    assert out.getvalue() == json.dumps(capture_to_dict(capture), indent=1) + "\n"


# --- 9: a wide program column ----------------------------------------------------------------------------------


def test_class_09_a_megabyte_program_name_is_decoded_in_bounded_chunks() -> None:
    """Class 9: ``decode`` of 128 slots naming a program with a 1 MB name assembles a few rows at a time (main
    asked for a (rows, 1 MB) matrix of 65,536 rows: 3.8 GiB for 4,096 slots), text and CSV alike."""
    from d3d12wl.model import description
    from d3d12wl.records import decode

    doc = json.loads(CULLING.read_text())
    long_name = "N" * 1_000_000
    doc["programs"][long_name] = doc["programs"].pop("Opaque")
    objects = description.load(doc)
    slot = (EXAMPLES / "readback" / "program_table.bin").read_bytes()[:48]
    target = decode.target(objects, "PCS.program_table")
    for fmt in ("text", "csv"):
        decoded = decode.view(target, slot * 128, offset=0, stride=None, count=None, va=None, source="slots")

        class Sink(io.RawIOBase):
            written = 0

            def write(self, b: Any) -> int:
                Sink.written += len(b)
                return len(b)

        tracemalloc.start()
        try:
            decode.write(decoded, Sink(), fmt)
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert Sink.written > 128 * 1_000_000 and peak < 6 * decode.CHUNK_BYTES, (fmt, peak)


# --- 11, 12: OS errors on paths and environment variables ----------------------------------------------------------


LONG = "a" * 5000


def _long_path_commands(tmp_path: Path) -> dict[str, list[str]]:
    header = EXAMPLES / "culling_records.h"
    hlsl = EXAMPLES / "culling_records.hlsl"
    return {
        "capture file": ["exec", LONG],
        "dump capture": ["dump", LONG],
        "description": ["validate", LONG],
        "decode file": ["decode", str(CULLING), "PCS.primary", LONG],
        "capture region file": ["capture", str(CULLING), f"r={LONG}@0x1000", "--dispatch-list", "r", "-o",
                                str(tmp_path / "c.json")],
        "capture -o": ["capture", str(CULLING), "r=hex:00@0x1000", "--dispatch-list", "r", "-o", LONG],
        "--validators": ["exec", str(EXAMPLES / "validation_chain_capture.json"), "--validators", f"{LONG}.py:V"],
        "--header": ["abi", "check", "--header", LONG],
        "--headers": ["abi", "check", "--headers", LONG],
        "--directx-headers": ["abi", "check", "--header", str(header), "--directx-headers", LONG],
        "--include": ["abi", "check", "--header", str(header), "--include", LONG],
        "--prelude": ["abi", "check", "--header", str(header), "--prelude", LONG],
        "--hlsl": ["abi", "check", "--hlsl", LONG, "--description", str(CULLING), "--record-struct",
                   "PCS.secondary=SecondaryRecord"],
        "--description": ["abi", "check", "--hlsl", str(hlsl), "--description", LONG, "--record-struct",
                        "PCS.secondary=SecondaryRecord"],
        "migrate input": ["migrate", "ei-to-wl", LONG, "-o", str(tmp_path / "wl.json")],
        "migrate --output-dir": ["migrate", "wl-to-ei", str(CULLING_CAPTURE), "--output-dir", f"{tmp_path}/{LONG}"],
        "diff": ["diff", LONG, str(CULLING_CAPTURE)],
        "--junit": ["messages", "check", "--junit", f"{tmp_path}/{LONG}"],
    }


@pytest.mark.parametrize("case", list(_long_path_commands(Path("/tmp"))))
def test_class_11_a_5000_character_path_is_exit_2_naming_it(case: str, tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Class 11: a path of 5,000 characters (ENAMETOOLONG) in every option and argument that takes one is exit 2
    naming the path or its flag (main: exit 3 for a capture region file, --validators, --header, --headers,
    --directx-headers, --include, --prelude, --hlsl)."""
    rc = main(_long_path_commands(tmp_path)[case])
    err = capsys.readouterr().err
    assert rc == 2 and "internal error" not in err, err
    assert "too long" in err.lower(), err


def test_class_11_the_environment_variable_of_the_directx_headers(monkeypatch: pytest.MonkeyPatch,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv(abi_check.D3D12_INCLUDE_ENV, LONG)
    assert main(["abi", "check"]) == 2
    err = capsys.readouterr().err
    assert f"${abi_check.D3D12_INCLUDE_ENV}" in err and "File name too long" in err, err


def test_class_12_an_incomplete_directx_headers_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Class 12: $D3D12WL_DIRECTX_HEADERS naming a folder with d3d12.h and winadapter.h but not the rest d3d12.h
    needs is exit 2 naming the missing file and the variable (main: exit 3); naming nothing at all is still a
    skip (tests/test_packaging.py)."""
    require(abi_check.find_host_cc() is not None, "no C compiler")
    for sub in ("directx/d3d12.h", "wsl/winadapter.h"):
        (tmp_path / sub).parent.mkdir(exist_ok=True)
        (tmp_path / sub).write_text("")
    monkeypatch.setenv(abi_check.D3D12_INCLUDE_ENV, str(tmp_path))
    assert main(["abi", "check"]) == 2
    err = capsys.readouterr().err
    assert f"{tmp_path}/directx/d3d12sdklayers.h" in err and "is incomplete" in err and "internal" not in err


@pytest.mark.parametrize("value", ["missing", "folder", "not executable"])
def test_class_12_d3d12wl_clang_that_cannot_run(value: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    target = {"missing": tmp_path / "no-clang", "folder": tmp_path, "not executable": tmp_path / "clang"}[value]
    if value == "not executable":
        target.write_text("#!/bin/sh\n")
    monkeypatch.setenv(abi_check.CLANG_ENV, str(target))
    header = tmp_path / "h.h"
    header.write_text("struct S { int a; };\n")
    for argv in (["abi", "check"], ["abi", "check", "--header", str(header)]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"${abi_check.CLANG_ENV}" in err and str(target) in err and "internal" not in err, err


def test_an_os_error_no_command_named_is_still_exit_2(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """The last line of defence: an OSError with a file name that reaches cli.main is exit 2 naming the file, not
    an internal error (and, with --json, an error object of kind InputError)."""
    from d3d12wl.cli import validate_cmd

    def fail(args: Any) -> int:
        raise PermissionError(13, "Permission denied", "/some/where")

    monkeypatch.setattr(validate_cmd, "run", fail)
    assert main(["validate", str(CULLING), "--json"]) == 2
    out, err = capsys.readouterr()
    assert "/some/where: Permission denied" in err and "internal" not in err
    assert json.loads(out) == {"kind": "InputError", "message": "Permission denied", "where": "/some/where",
                               "rule": None}


def test_a_panic_of_an_extension_is_not_a_traceback(monkeypatch: pytest.MonkeyPatch,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """A Rust extension's panic (pyo3's PanicException derives from BaseException, not Exception) is an internal
    error in one line, or, when an interrupt caused it, an interrupt (exit 130; found by tools/fuzz.py --kinds cli:
    jsonschema-rs importing decimal as SIGINT arrived)."""
    from d3d12wl.cli import validate_cmd

    class PanicException(BaseException):
        pass

    for message, code in (("index out of bounds", 3), ("failed to import: KeyboardInterrupt()", 130)):
        def panic(args: Any, message: str = message) -> int:
            raise PanicException(message)

        monkeypatch.setattr(validate_cmd, "run", panic)
        assert main(["validate", str(CULLING)]) == code
        err = capsys.readouterr().err
        assert "Traceback" not in err and ("internal error" in err if code == 3 else "interrupted" in err)


def test_an_interrupt_inside_the_schema_extension_is_an_interrupt(tmp_path: Path) -> None:
    """An interrupt landing as jsonschema-rs imports decimal (which it does from Rust, as it is imported) was a Rust
    panic printed over the terminal: decimal is imported first, in Python, so the interrupt is Python's own (exit
    130, no panic).  The interrupt is made deterministic by an import hook, in a fresh process."""
    probe = tmp_path / "probe.py"
    probe.write_text("import builtins, sys\nreal = builtins.__import__\n"
                     "def imp(name, *a, **k):\n    if name == 'decimal' and 'decimal' not in sys.modules:\n"
                     "        raise KeyboardInterrupt\n    return real(name, *a, **k)\n"
                     "builtins.__import__ = imp\nfrom d3d12wl.cli import main\n"
                     f"sys.exit(main(['validate', {str(CULLING)!r}]))\n")
    done = subprocess.run([sys.executable, str(probe)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 130 and "interrupted" in done.stderr, done.stderr
    assert "panicked" not in done.stderr and "Traceback" not in done.stderr, done.stderr


def test_an_interrupt_inside_a_callback_ends_the_command(monkeypatch: pytest.MonkeyPatch,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """An interrupt that lands while Python runs a callback it cannot raise from (here a finalizer; in the
    campaign of issue 26 a weakref callback of the import system, seeds 10004584 and 10011890) was printed as
    "Exception ignored in ..." with a traceback and lost, the command running on to exit 0.  It ends the command
    as any interrupt does: exit 130, "interrupted", no traceback, and the command stops there."""
    from d3d12wl.cli import validate_cmd

    reached: list[str] = []

    class Finalizer:
        def __del__(self) -> None:
            raise KeyboardInterrupt

    def run(args: Any) -> int:
        Finalizer()  # collected at once: its KeyboardInterrupt is unraisable
        reached.append("after")
        return 0

    monkeypatch.setattr(validate_cmd, "run", run)
    assert main(["validate", str(CULLING)]) == 130
    err = capsys.readouterr().err
    assert "interrupted" in err and "Exception ignored" not in err and "Traceback" not in err, err
    assert reached == []


def test_an_interrupt_in_a_callback_with_sigint_ignored_still_ends_the_command(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The interrupt is raised again by d3d12wl itself, not by a signal: with SIGINT ignored (a job started with it
    ignored, as a test runner may) it still ends the command where it landed (exit 130, no traceback)."""
    from d3d12wl.cli import validate_cmd

    reached: list[str] = []

    class Finalizer:
        def __del__(self) -> None:
            raise KeyboardInterrupt

    def run(args: Any) -> int:
        Finalizer()
        reached.append("after")
        return 0

    monkeypatch.setattr(validate_cmd, "run", run)
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        assert main(["validate", str(CULLING)]) == 130
    finally:
        signal.signal(signal.SIGINT, previous)
    err = capsys.readouterr().err
    assert "interrupted" in err and "Exception ignored" not in err, err
    assert reached == [] and sys.gettrace() is None


# --- 13: a lone surrogate in a name, in every writer -------------------------------------------------------------


def test_class_13_a_lone_surrogate_program_name_in_decode_and_migrate(tmp_path: Path,
                                                                       capsys: pytest.CaptureFixture[str]) -> None:
    """Class 13: a program named ``"Opaque\\ud800"`` (valid JSON) is written as stdout writes it, a backslash
    escape, by decode (text, CSV, JSON) and by migrate (its captures and calls.json; the call file names keep
    letters and digits only)."""
    doc = culling_doc()
    doc["programs"]["Opaque\ud800"] = doc["programs"].pop("Opaque")
    capture = tmp_path / "surrogate.json"
    capture.write_text(json.dumps(doc))
    readback = EXAMPLES / "readback" / "program_table.bin"
    for fmt in ("text", "csv", "json"):
        assert main(["decode", str(capture), "PCS.program_table", str(readback), "--format", fmt]) == 0
        out = capsys.readouterr().out
        assert "Opaque\\ud800" in out, fmt
    assert main(["migrate", "wl-to-ei", str(capture), "--output-dir", str(tmp_path / "ei")]) == 0
    calls = json.loads((tmp_path / "ei" / "calls.json").read_text())
    assert "Opaque\ud800" in [c["program"] for c in calls["calls"]]
    assert all(c["capture"].isascii() for c in calls["calls"])


@pytest.mark.parametrize("fmt", ["text", "json", "jsonl", "csv", "npz", "parquet", "dump", "dump --json"])
def test_class_13_a_lone_surrogate_program_name_in_exec_and_dump_files(fmt: str, tmp_path: Path) -> None:
    """Class 13 for issue 23's writers: ``exec -o`` in every format and ``dump -o`` write a program named
    ``"Opaque\\ud800"`` as stdout writes it (a backslash escape; Arrow's dictionary holds the same text), exit 1
    for none of it (the capture is clean), never an internal error."""
    if fmt == "parquet":
        require(importlib.util.find_spec("pyarrow") is not None, "exec --format parquet needs pyarrow")
    capture = tmp_path / "surrogate.json"
    capture.write_text((EXAMPLES / "culling_capture.json").read_text().replace('"Opaque"', '"Opaque\\ud800"'))
    out = tmp_path / f"out.{fmt.split()[0]}"
    argv = ["dump", str(capture), *fmt.split()[1:]] if fmt.startswith("dump") else \
        ["exec", str(capture), "--format", fmt]
    assert main([*argv, "-o", str(out)]) == 0
    if fmt == "npz":
        import numpy as np
        names = np.load(out)["names.program"].tolist()  # (codes into names.<column>, README "exec")
        assert "Opaque\ud800" in names, names
    elif fmt == "parquet":
        import pyarrow.parquet as pq
        assert "Opaque\\ud800" in pq.read_table(out).column("program").to_pylist()
    else:
        text = out.read_text(encoding="utf-8")
        assert "Opaque\\ud800" in text, text[:400]  # (JSON's own escape of it is the same six characters)


# --- 14: the JUnit report of messages check: a full disk, an interrupt -----------------------------------------


def test_class_14_junit_on_a_full_disk_keeps_the_old_report(tmp_path: Path) -> None:
    """Class 14 for ``messages check --junit`` (the exec -o writers are issue 23's): a file-size limit (a full
    disk) is exit 2 naming the file, and the report written before is left whole."""
    report = tmp_path / "report.xml"
    report.write_text("<old/>")
    rc, err, _ = run_cli("messages", "check", "--junit", report, rlimits={resource.RLIMIT_FSIZE: 200})
    assert rc == 2 and str(report) in err and "file-size limit" in err, err
    assert report.read_text() == "<old/>" and [p.name for p in tmp_path.iterdir()] == ["report.xml"]


@pytest.mark.parametrize("command", ["capture", "remap"])
def test_class_14_a_capture_saved_on_a_full_disk_keeps_the_old_one(command: str, tmp_path: Path) -> None:
    """save_capture on a full disk (a file-size limit reached by a region file or the JSON, also through remap's
    region writers) is exit 2 naming the file, and the capture saved before is left whole, with no temporary file
    (found by tools/fuzz.py --kinds cli: remap under RLIMIT_FSIZE was an OSError, exit 3)."""
    out = tmp_path / "out.json"
    out.write_text("old")
    region = tmp_path / "big.bin"
    region.write_bytes(bytes(range(256)) * 64)
    vamap = tmp_path / "va.csv"
    vamap.write_text("0x0,0x100000000,0x200000000\n")
    argv = (["capture", CULLING, f"big={region},writable@0x100000", "--dispatch-list", "big", "-o", out]
            if command == "capture" else
            ["remap", EXAMPLES / "validation_chain_capture.json", "--va-map", vamap, "-o", out, "--keep-unmapped"])
    rc, err, _ = run_cli(*argv, rlimits={resource.RLIMIT_FSIZE: 100})
    assert rc == 2 and "file-size limit" in err and str(tmp_path) in err, err
    assert out.read_text() == "old" and sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["out.json", "big.bin", "va.csv"])


@pytest.mark.skipif(importlib.util.find_spec("pyarrow") is None, reason="needs pyarrow")
@pytest.mark.parametrize("command", ["exec", "patch-list"])
def test_class_13_14_parquet_named_not_in_utf8_on_a_full_disk(command: str, tmp_path: Path) -> None:
    """Classes 13 and 14 together (issue 26's campaign, seed 80036566): Parquet to ``out\\udcff.parquet`` (a name
    that is not UTF-8) on a full disk is exit 2 naming the file, as every other format is, not an internal
    UnicodeEncodeError (pyarrow re-encodes a Python file's error message as strict UTF-8), and nothing is left."""
    target = f"out{os.fsdecode(bytes([0xFF]))}.parquet"
    argv = ["exec", CULLING_CAPTURE, "--format", "parquet", "--primary", "0:2"] if command == "exec" else [
        "patch-list", CULLING_CAPTURE, "--format", "parquet"]
    code = ("import os, resource, sys\nfrom d3d12wl.cli import main\n"
            "resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))\n"
            f"os.chdir({str(tmp_path)!r})\nsys.exit(main({[str(a) for a in argv] + ['-o', target]!r}))\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120)
    err = result.stderr.decode("utf-8", "backslashreplace")
    assert result.returncode == 2, err
    assert "internal error" not in err and "file-size limit" in err and "out\\udcff.parquet" in err, err
    assert os.listdir(tmp_path) == []


def test_class_14_junit_refused_before_the_suite_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["messages", "check", "--junit", str(tmp_path / "no-folder" / "r.xml")]) == 2
    assert "does not exist" in capsys.readouterr().err


def test_class_14_sigint_while_saving_a_capture_leaves_the_old_one(tmp_path: Path) -> None:
    """An interrupt mid-save (the .bin of a 256 MiB region being written) leaves the capture saved before, and no
    temporary file."""
    target = tmp_path / "c.json"
    save_capture(load_capture(CULLING_CAPTURE), target)
    before = target.read_bytes()
    # (each write of the save takes 20 ms more, so the interrupt lands while the .bin is written on any disk)
    code = ("import os, signal, sys, time\nfrom d3d12wl.output import outfiles\n"
            "from d3d12wl.capture.file import load_capture, save_capture\nwrite = outfiles._NamingFileIO.write\n"
            "outfiles._NamingFileIO.write = lambda self, data: (time.sleep(0.02), write(self, data))[1]\n"
            f"c = load_capture({str(CULLING_CAPTURE)!r})\nc.memory.map(0x900000000, os.urandom(1 << 20) * 256, "
            "name='big')\nprint('ready', flush=True)\nsave_capture(c, sys.argv[1])\n")
    proc = subprocess.Popen([sys.executable, "-c", code, str(target)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, preexec_fn=sigint_default)
    assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
    deadline = 200
    while deadline and not any(p.name.endswith(".tmp") for p in tmp_path.iterdir()):
        threading.Event().wait(0.01)
        deadline -= 1
    proc.send_signal(signal.SIGINT)
    proc.communicate(timeout=60)
    assert target.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.json"]


# --- 15: capture -o onto a FIFO, a device, a symlink -----------------------------------------------------------


def test_class_15_capture_onto_a_fifo_is_written_through(tmp_path: Path) -> None:
    """Class 15: a FIFO stays a FIFO and its reader gets the capture, every region inline (as ``-o -``)."""
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    capture = load_capture(CULLING_CAPTURE)
    capture.memory.map(0x900000, bytes(range(256)) * 64, name="big")  # above INLINE_LIMIT: inline all the same
    save_capture(capture, fifo)
    reader.join(30)
    assert fifo.is_fifo() and sorted(p.name for p in tmp_path.iterdir()) == ["fifo"]
    doc = json.loads(got[0])
    assert all("hex" in r or "zeros" in r for r in doc["memory"])
    assert main(["capture", str(CULLING), "r=hex:00@0x1000", "--dispatch-list", "r", "-o", os.devnull]) in (0, 1)
    assert Path(os.devnull).is_char_device()


def test_class_15_capture_onto_a_symlink_replaces_its_target(tmp_path: Path) -> None:
    """A symlink stays a link; the capture and its region files go beside its target, and the capture loads
    through the link and from the target alike."""
    real = tmp_path / "store"
    real.mkdir()
    (real / "c.json").write_text("old")
    link = tmp_path / "link.json"
    link.symlink_to(real / "c.json")
    capture = load_capture(CULLING_CAPTURE)
    capture.memory.map(0x900000, bytes(range(256)) * 64, name="big")
    save_capture(capture, link)
    assert link.is_symlink() and (real / "c.big.bin").is_file()
    for path in (link, real / "c.json"):
        assert bytes(next(r for r in load_capture(path).memory.regions if r.name == "big").data) == \
            bytes(range(256)) * 64


# --- 18, 19, 20: compilers under limits --------------------------------------------------------------------------


@pytest.fixture
def clang() -> str:
    found = abi_check.find_clang()
    require(found is not None, "clang not installed")
    assert found is not None
    return found


def _bomb(n: int = 32) -> str:
    """800 bytes of macros that expand to 2^n tokens."""
    lines = ["#define A0 x"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, n + 1)]
    return "\n".join(lines) + f"\nint v[] = {{A{n}}};\n"


def test_class_18_a_macro_bomb_header_reaches_the_memory_limit(clang: str, tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """Class 18: clang under an address-space limit (main: 2.7-10 GiB): exit 2 naming the limit and its flag."""
    header = tmp_path / "bomb.h"
    header.write_text(_bomb())
    assert main(["abi", "check", "--header", str(header), "--prelude", "none", "--tool-memory", "300"]) == 2
    err = capsys.readouterr().err
    assert "clang reached its address-space limit of 300 MiB" in err and "--tool-memory" in err, err
    assert not list(Path(tools.tempfile.gettempdir()).glob("bomb-*.sh"))  # no crash reproducer left behind


def test_class_19_a_million_field_struct_is_refused_before_clang(clang: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Class 19: a struct of 10^6 fields (14 MB; main: 46 s, 3 GiB) is over the source bound: exit 2 at once,
    naming --source-bytes; the JSON AST read back is bounded too."""
    header = tmp_path / "big.h"
    header.write_text("struct Big {\n" + "".join(f"  int f{i};\n" for i in range(1_000_000)) + "};\n")
    assert main(["abi", "check", "--header", str(header), "--prelude", "none"]) == 2
    err = capsys.readouterr().err
    assert "total more than 8,388,608 bytes" in err and "--source-bytes" in err, err
    small = tmp_path / "wide.h"
    small.write_text("struct Wide {\n" + "".join(f"  int f{i};\n" for i in range(20_000)) + "};\n")
    assert main(["abi", "check", "--header", str(small), "--prelude", "none", "--source-bytes", "300000"]) == 2
    err = capsys.readouterr().err
    assert "clang's JSON AST of the headers exceeds" in err and "--source-bytes" in err, err


def test_class_19_deep_includes_are_refused_by_depth(clang: str, tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(10):
        (tmp_path / f"h{i}.h").write_text(f'#pragma once\n#include "h{i + 1}.h"\n' if i < 9 else "#pragma once\n")
    argv = ["abi", "check", "--header", str(tmp_path / "h0.h"), "--prelude", "none"]
    assert main([*argv, "--include-depth", "5"]) == 2
    assert "nest deeper than 5 levels" in capsys.readouterr().err
    assert main(argv) == 0


def test_an_include_of_a_fifo_or_a_device_never_waits(clang: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """clang opening a FIFO waits for a writer for ever, using no CPU (so no CPU limit ends it), and reads
    /dev/zero without end: an include the walk resolves to either is refused before clang runs; one it cannot
    follow (a macro) is stopped at the wall-clock limit while its output is read."""
    from d3d12wl.headercheck import probe

    os.mkfifo(tmp_path / "pipe")
    for target in ("pipe", "/dev/zero"):
        header = tmp_path / "h.h"
        header.write_text(f'#include "{target}"\nstruct S {{ int a; }};\n')
        assert main(["abi", "check", "--header", str(header), "--prelude", "none"]) == 2
        err = capsys.readouterr().err
        assert f"includes '{target}', which is a {'FIFO' if target == 'pipe' else 'device'}" in err, err
    with tempfile.TemporaryFile() as err_file:  # a tool that writes nothing and uses no CPU
        run = tools.spawn(["sleep", "30"], tmp_path, stdout=subprocess.PIPE, stderr=err_file)
        run.deadline = time.monotonic() + 0.3  # (the limit's 300 s, made short)
        assert run.proc.stdout is not None
        with pytest.raises(ABIError, match="did not finish in 300 s of wall-clock time"):
            probe._read_by(run.proc.stdout, run)
        with pytest.raises(ABIError, match="wall-clock"):
            run.finish()  # killed: its waiter has reaped it
        run.proc.stdout.close()


def _glslc() -> None:
    from d3d12wl.headercheck import hlsl

    require(shutil.which("glslc") is not None and shutil.which("spirv-dis") is not None, "glslc not installed")
    assert hlsl.find_tools()


@pytest.mark.parametrize("kind", ["self-include", "macro bomb"])
def test_class_20_hlsl_bombs(kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Class 20: glslc (main: no include depth, no memory limit, 4.4 GiB): a file that includes itself is refused
    before glslc runs; a macro bomb reaches the memory limit; both exit 2 naming why."""
    _glslc()
    source = tmp_path / "records.hlsl"
    if kind == "self-include":
        source.write_text('#include "records.hlsl"\nstruct SecondaryRecord { uint a; };\n')
    else:
        lines = ["#define A0 1+"] + [f"#define A{i} A{i - 1} A{i - 1}" for i in range(1, 33)]
        source.write_text("\n".join(lines) + "\nstatic const uint v = A32 1;\nstruct SecondaryRecord { uint a; };\n")
    rc = main(["abi", "check", "--hlsl", str(source), "--description", str(CULLING), "--record-struct",
               "PCS.secondary=SecondaryRecord", "--tool-memory", "300"])
    err = capsys.readouterr().err
    assert rc == 2, err
    if kind == "self-include":
        assert "records.hlsl includes itself (records.hlsl -> records.hlsl) with no include guard" in err, err
    else:
        assert "glslc reached its address-space limit of 300 MiB" in err, err


def test_tool_limits_name_what_was_reached(tmp_path: Path) -> None:
    """The runner of every compiler: the CPU limit (SIGXCPU), the address space (an allocation refused), each an
    ABIError naming the tool, the limit and its flag; a tool that cannot start names itself."""
    spin = [sys.executable, "-c", "while True: pass"]
    with tools.limited(tools.ToolLimits(cpu_seconds=1)), pytest.raises(ABIError, match="CPU-time limit of 1 s"):
        tools.run_tool(spin, tmp_path)
    hog = [sys.executable, "-c", "x = bytearray(1 << 30)"]
    with tools.limited(tools.ToolLimits(memory_mib=200)), pytest.raises(ABIError, match="address-space limit"):
        tools.run_tool(hog, tmp_path)
    with pytest.raises(ABIError, match="cannot run"):
        tools.run_tool([str(tmp_path / "nothing")], tmp_path)
    with pytest.raises(ABIError, match="--tool-cpu"):
        tools.ToolLimits(cpu_seconds=0)
    assert tools.run_tool([sys.executable, "-c", "print(6 * 7)"], tmp_path).stdout == "42\n"


# --- the rest of the issue: digits, call sequences, pseudo-files, numeric keys -------------------------------------


def test_full_width_digits_are_not_numbers(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``@\\uff11\\uff12\\uff13`` (full-width 123) was the VA 0x7b: addresses and numbers are ASCII digits."""
    with pytest.raises(ValueError, match="ASCII digits"):
        inputs.integer("\uff11\uff12\uff13")
    assert main(["capture", str(CULLING), "r=hex:00@\uff11\uff12\uff13", "--dispatch-list", "r", "-o",
                 str(tmp_path / "c.json")]) == 2
    assert "ASCII digits" in capsys.readouterr().err
    doc = culling_doc()
    doc["memory"][0]["base"] = "\uff11\uff12\uff13"
    with pytest.raises(D3D12WLError, match="memory\\[0\\].base"):
        load_capture(doc)
    with pytest.raises(SystemExit):
        main(["exec", str(CULLING_CAPTURE), "--max-executions", "\uff11\uff12"])


def test_numeric_object_keys_are_bounded_like_integers() -> None:
    """A root argument index written with 5,000 digits is refused by name (main: Python's int() limit, exit 3)."""
    doc = culling_doc()
    doc["state"]["graphics_root_arguments"] = {"9" * 5000: {"Descriptor": "0x50000"}}
    with pytest.raises(D3D12WLError, match="is not a decimal index \\(at most 40 ASCII digits\\)") as info:
        load_capture(doc)
    assert "state.graphics_root_arguments" in str(info.value)


def test_a_call_sequence_loads_each_capture_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """20,000 calls naming one capture load it once (main: 20,000 times, 11-15 s)."""
    from d3d12wl.migrate import runs

    shutil.copy(CULLING_CAPTURE, tmp_path / "c.json")
    sequence = tmp_path / "calls.json"
    sequence.write_text(json.dumps({"call_sequence": 1, "calls": [{"capture": "c.json", "program": "Opaque"}] *
                                    10_000 + [{"capture": "./c.json", "program": "Shadow"}] * 10_000}))
    loads: list[Path] = []
    real = runs.load_capture
    monkeypatch.setattr(runs, "load_capture", lambda p: loads.append(p) or real(p))
    entries = runs.load_call_sequence(sequence)
    assert len(entries) == 20_000 and len(loads) == 1 and entries[0].capture is entries[-1].capture


def test_a_pseudo_file_whose_size_reads_0_is_read_as_a_stream(capsys: pytest.CaptureFixture[str]) -> None:
    """``decode`` of /proc/self/status (size 0, bytes inside): main returned 0 records with exit 0."""
    assert os.stat("/proc/self/status").st_size == 0
    assert main(["decode", str(CULLING), "D3D12_DISPATCH_LIST_INPUT", "/proc/self/status"]) in (0, 1)
    out = capsys.readouterr().out
    assert " 0 record(s)" not in out and "record(s)" in out
    assert len(inputs.map_bytes("/proc/self/status")) > 100
