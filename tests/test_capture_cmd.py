"""``d3d12wl capture``: a capture assembled from readback files executes as the hand-written one does (issue 13,
item 2).

Fixtures: the bundled captures of the three call kinds (docs/capture.md "The bundled examples") split into their
regions' raw bytes, as a capture tool reads the buffers back.  Re-assembled with one command each, the trace of
the executor is the same as the bundled capture's: the spec's culling example (DispatchList, "GPU culling and work
list emission"), IndirectDrawing.md's root constants + vertex buffers (ExecuteIndirect with a count buffer) and
the Tier 2 compute-into-graphics chain (DispatchList1).  Program identifiers are read from the table's slots
("Program table slot layout": each slot starts with its D3D12_PROGRAM_IDENTIFIER) and matched to the programs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from cli_flags import CULLING_REGIONS

from d3d12wl.capture import assemble as asm
from d3d12wl.capture import file as capture_file
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.errors import CaptureError
from d3d12wl.executor import execute
from d3d12wl.output.outfiles import OutputError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "d3d12wl" / "examples"
READBACK = EXAMPLES / "readback"
CULLING = EXAMPLES / "culling.json"

CULLING_CALL = ["--dispatch-list", "dispatch_input", "--max-graphics-program-inputs-per-primary-list", "3", "--program-table", "program_table",
                "--root-arg", "0=0x50000"]


def trace_of(capture: Any) -> dict[str, Any]:
    return execute(capture).to_dict()


def split_regions(capture_path: Path, directory: Path) -> list[str]:
    """The regions of a bundled capture as NAME=FILE@VA arguments over raw .bin files."""
    capture = load_capture(capture_path)
    out = []
    for i, r in enumerate(capture.memory.regions):
        path = directory / f"region{i}.bin"
        path.write_bytes(bytes(r.data))
        out.append(f"r{i}={path}@0x{r.base:x}")
    return out


def test_culling_readback_executes_as_the_bundled_capture(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                                          ) -> None:
    out = tmp_path / "capture.json"
    assert main(["capture", str(CULLING), *CULLING_REGIONS, *CULLING_CALL, "-o", str(out)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == (f"wrote {out}: DispatchList(DispatchListInput=0x10000, "
                        "MaxGraphicsProgramInputsPerPrimaryList=3)")
    assert ("  program table 0 @0x30000: 3072 bytes, stride 48, 64 slots: Opaque slot 0, Transparent slot 1, "
            "Shadow slot 2, 61 empty") in lines
    assert lines[-3:] == ["findings (0)",
                          "call-time checks (0; as d3d12wl exec makes them, before any record is executed)",
                          "the records the call reads (0; sizes and strides as d3d12wl decode judges them; a warning "
                          "is a heuristic, never an error)"]
    assembled = load_capture(out)
    bundled = load_capture(EXAMPLES / "culling_capture.json")
    assert trace_of(assembled) == trace_of(bundled)
    assert capture_file.capture_to_dict(assembled)["state"] == capture_file.capture_to_dict(bundled)["state"]
    # dump and exec run on it at once
    assert main(["dump", str(out)]) == 0 and main(["exec", str(out)]) == 0


def test_execute_indirect_from_regions_and_a_state_file(tmp_path: Path) -> None:
    bundled_path = EXAMPLES / "execute_indirect_capture.json"
    regions = split_regions(bundled_path, tmp_path)  # r0 argument buffer, r1 count buffer
    state = tmp_path / "state.json"
    state.write_text(json.dumps(json.loads(bundled_path.read_text())["state"]))
    out = tmp_path / "ei.json"
    code = main(["capture", str(EXAMPLES / "execute_indirect.json"), *regions, "--execute-indirect",
                 "RootConstantsAndVertexBuffers", "--argument-buffer", "r0", "--count-buffer", "r1", "--max-command-count", "4",
                 "--state", str(state), "-o", str(out)])
    assert code == 0
    assert trace_of(load_capture(out)) == trace_of(load_capture(bundled_path))


def test_execute_indirect_state_by_flags(tmp_path: Path) -> None:
    """Root arguments by flag, typed by the root signature: root CBV/SRVs take a VA; the vertex buffer by flag."""
    bundled_path = EXAMPLES / "execute_indirect_capture.json"
    regions = split_regions(bundled_path, tmp_path)
    out = tmp_path / "ei.json"
    code = main(["capture", str(EXAMPLES / "execute_indirect.json"), *regions, "--execute-indirect",
                 "RootConstantsAndVertexBuffers", "--argument-buffer", "r0", "--count-buffer", "r1", "--max-command-count", "4",
                 "--root-arg", "0=0x50000", "--root-arg", "1=0x60000", "--root-arg", "3=0x61000",
                 "--root-arg", "4=0x62000", "--root-arg", "5=0x63000",
                 "--vertex-buffer", "0=0x100000,65536,12", "-o", str(out)])
    assert code == 0
    assert trace_of(load_capture(out)) == trace_of(load_capture(bundled_path))


def test_execute_indirect_buffer_resources(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--argument-buffer-resource / --count-buffer-resource BASE,WIDTH[,STATE]: the resources IndirectDrawing.md's "Drawing" checks
    run against (the offsets the VAs imply, MaxCommandCount * ByteStride within Width, the INDIRECT_ARGUMENT
    state); written as capture version 2."""
    bundled_path = EXAMPLES / "execute_indirect_capture.json"
    regions = split_regions(bundled_path, tmp_path)
    state = tmp_path / "state.json"
    state.write_text(json.dumps(json.loads(bundled_path.read_text())["state"]))
    base = ["capture", str(EXAMPLES / "execute_indirect.json"), *regions, "--execute-indirect",
            "RootConstantsAndVertexBuffers", "--argument-buffer", "r0", "--count-buffer", "r1", "--max-command-count", "4", "--state", str(state)]
    out = tmp_path / "ei.json"
    assert main([*base, "--argument-buffer-resource", "r0,65536,INDIRECT_ARGUMENT",
                 "--count-buffer-resource", "r1,4,INDIRECT_ARGUMENT|COPY_SOURCE", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == 2 and doc["call"]["ExecuteIndirect"]["pArgumentBuffer"]["Width"] == 65536
    assert trace_of(load_capture(out)) == trace_of(load_capture(bundled_path))
    # a resource too small for MaxCommandCount commands, in the UAV state: the call-time findings, which capture's
    # pre-flight prints (exit 1, the capture still written) with the flags that set what they are about
    capsys.readouterr()
    assert main([*base, "--argument-buffer-resource", "r0,64,UNORDERED_ACCESS", "-o", str(out)]) == 1
    text = capsys.readouterr().out
    kinds = [f["kind"] for f in trace_of(load_capture(out))["findings"]]
    assert kinds == ["argument-buffer-out-of-bounds", "argument-buffer-wrong-state"]
    assert "call-time checks (2; as d3d12wl exec makes them, before any record is executed)" in text
    assert "  error: argument-buffer-out-of-bounds [Drawing]" in text
    assert "    the flag: --max-command-count (MaxCommandCount) / --argument-buffer-resource" in text
    assert "    the flag: --argument-buffer-resource BASE,WIDTH,STATE" in text
    assert main([*base, "--argument-buffer-resource", "r0+4,64", "-o", str(out)]) == 2
    assert "lies before the resource's GPUVirtualAddress" in capsys.readouterr().err
    assert main([*base, "--count-buffer-resource", "r1,4,NOT_A_STATE", "-o", str(out)]) == 2
    assert "NOT_A_STATE" in capsys.readouterr().err


def test_command_list_type_and_render_pass(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--command-list-type TYPE / --in-render-pass: the command list the call is recorded on (capture version 3,
    written only when it is not a direct list outside a render pass); IndirectDrawing.md "Bundles" checks it."""
    bundled_path = EXAMPLES / "execute_indirect_capture.json"
    regions = split_regions(bundled_path, tmp_path)
    state = tmp_path / "state.json"
    state.write_text(json.dumps(json.loads(bundled_path.read_text())["state"]))
    base = ["capture", str(EXAMPLES / "execute_indirect.json"), *regions, "--execute-indirect",
            "RootConstantsAndVertexBuffers", "--argument-buffer", "r0", "--count-buffer", "r1", "--max-command-count", "4", "--state", str(state)]
    out = tmp_path / "ei.json"
    assert main([*base, "--command-list-type", "DIRECT", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == 1 and "command_list_type" not in doc["state"]
    assert main([*base, "--command-list-type", "D3D12_COMMAND_LIST_TYPE_BUNDLE", "--in-render-pass",
                 "-o", str(out)]) == 1  # (the pre-flight's findings: written all the same)
    doc = json.loads(out.read_text())
    assert doc["version"] == 3 and doc["state"]["command_list_type"] == "BUNDLE" and doc["state"]["in_render_pass"]
    kinds = [f["kind"] for f in trace_of(load_capture(out))["findings"]]
    assert kinds == ["execute-indirect-bundle-count-buffer", "execute-indirect-bundle-multiple-operations"]
    capsys.readouterr()
    assert main([*base, "--command-list-type", "GRAPHICS", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert "--command-list-type" in err and "GRAPHICS" in err


def test_descriptor_heaps(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--descriptor-heap TYPE[=START,NUM,INCREMENT]: a bound shader-visible heap (SetDescriptorHeaps) and, capture
    version 4, its GPU handle range; a capture that gives no range stays at its older version."""
    base = ["capture", str(CULLING), *CULLING_REGIONS, *CULLING_CALL]
    out = tmp_path / "culling.json"
    assert main([*base, "--descriptor-heap", "SAMPLER", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == 1 and doc["state"]["descriptor_heaps"] == {"CBV_SRV_UAV": False, "SAMPLER": True}
    assert main([*base, "--descriptor-heap", "CBV_SRV_UAV=0xd0000000,4096,32", "--descriptor-heap",
                 "D3D12_DESCRIPTOR_HEAP_TYPE_SAMPLER=0xe0000000,16,64", "-o", str(out)]) == 0
    doc = json.loads(out.read_text())
    assert doc["version"] == 4 and capture_file.schema_errors(doc) == []
    heaps = load_capture(out).state.descriptor_heaps
    assert heaps.heap("CBV_SRV_UAV") is not None and heaps.heap("CBV_SRV_UAV").NumDescriptors == 4096
    assert heaps.heap("SAMPLER") is not None and heaps.heap("SAMPLER").DescriptorIncrementSize == 64
    for bad, says in (("RTV=0x1000,4,32", "never shader-visible"), ("CBV_SRV_UAV=0x1000,4", "START,NUM,INCREMENT"),
                      ("TEXTURE", "TEXTURE"), ("SAMPLER=0x1000,4,0", "never 0")):
        capsys.readouterr()
        assert main([*base, "--descriptor-heap", bad, "-o", str(out)]) == 2
        err = capsys.readouterr().err
        assert says in err and ("--descriptor-heap" in err or "descriptor_heaps" in err), err


def test_tier2_chain_with_two_program_tables(tmp_path: Path) -> None:
    """DispatchList1 on a signature array: one --program-table per signature index, each with its own stride."""
    bundled_path = EXAMPLES / "tier2_chain_capture.json"
    bundled = load_capture(bundled_path)
    regions = split_regions(bundled_path, tmp_path)
    bindings = bundled.state.program.WorkList1.pBindings  # type: ignore[union-attr]
    flags = []
    for b in bindings:
        t = b.ProgramTable
        flags += ["--program-table", f"0x{t.Table.StartAddress:x}", "--slots", str(t.SlotCount),
                  "--stride", str(t.Table.StrideInBytes)]
    doc = json.loads(bundled_path.read_text())
    state = tmp_path / "state.json"
    state.write_text(json.dumps({k: v for k, v in doc["state"].items() if k != "program"}))
    call = doc["call"]["DispatchList1"]
    out = tmp_path / "chain.json"
    code = main(["capture", str(EXAMPLES / "tier2_chain.json"), *regions, "--dispatch-list1",
                 call["DispatchListInput"], "--max-graphics-primary-lists", str(call["MaxGraphicsPrimaryLists"]), "--max-graphics-program-inputs-per-primary-list",
                 str(call["MaxGraphicsProgramInputsPerPrimaryList"]), *flags, "--state", str(state), "-o", str(out)])
    assert code == 0
    assembled = load_capture(out)
    assert assembled.device.Tier == bundled.device.Tier
    got = assembled.state.program.WorkList1.pBindings  # type: ignore[union-attr]
    assert [(b.ProgramTable.Table.StartAddress, b.ProgramTable.Table.StrideInBytes, b.ProgramTable.SlotCount)
            for b in got] == [(b.ProgramTable.Table.StartAddress, b.ProgramTable.Table.StrideInBytes,
                               b.ProgramTable.SlotCount) for b in bindings]
    assert trace_of(assembled)["executions"] == trace_of(bundled)["executions"]


def _table_with_slot(tmp_path: Path, slot: int) -> list[str]:
    table = bytearray((READBACK / "program_table.bin").read_bytes())
    table[48 * slot] = 0x42  # an identifier no program has
    path = tmp_path / "table.bin"
    path.write_bytes(bytes(table))
    return [r if not r.startswith("program_table=") else f"program_table={path}@0x30000" for r in CULLING_REGIONS]


def test_an_unknown_identifier_in_a_slot_no_record_selects_is_a_warning(tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42 class 13, in capture: a stale or unused slot is legal (the culling call's records select slots 0, 1
    and 2; slot 5 holds an identifier no program has).  It is said, as a warning; the capture is written, exit 0."""
    out = tmp_path / "capture.json"
    assert main(["capture", str(CULLING), *_table_with_slot(tmp_path, 5), *CULLING_CALL, "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "findings (0)" in text
    assert (f"  warning: program table 0 slot 5 @0x{0x30000 + 5 * 48:x}: identifier 42{'00' * 31} matches no program "
            "of the description (no record the call reads selects it: a stale or unused slot is legal)") in text
    assert not execute(load_capture(out)).has_errors  # exec agrees: nothing reads slot 5


def test_an_unknown_identifier_in_a_selected_slot_is_a_finding(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """Slot 1, which the culling call's second primary record selects, holds an identifier of no program: a finding
    (exit 1), as the executor finds it."""
    out = tmp_path / "capture.json"
    assert main(["capture", str(CULLING), *_table_with_slot(tmp_path, 1), *CULLING_CALL, "-o", str(out)]) == 1
    text = capsys.readouterr().out
    assert "findings (1)" in text
    assert (f"program table 0 slot 1 @0x{0x30000 + 48:x}: identifier 42") in text
    assert "matches no program of the description, and a record the call reads selects the slot" in text
    assert out.is_file() and execute(load_capture(out)).has_errors


def test_slot_count_beyond_the_table_is_a_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "capture.json"
    code = main(["capture", str(CULLING), *CULLING_REGIONS, *CULLING_CALL, "--slots", "65", "-o", str(out)])
    assert code == 1
    # the binding rule's own words (rules.setprogram): SizeInBytes >= SlotCount * StrideInBytes, 65 * 48 = 3120
    assert ("program table 0 @0x30000: [D3D12_WORK_LIST_PROGRAM_TABLE_BINDING] Table.SizeInBytes 3072 is below "
            "SlotCount * StrideInBytes = 3120") in capsys.readouterr().out


@pytest.mark.parametrize(("call", "message"), [
    (["--stride", "50", "--slots", "61"], "Table.StrideInBytes 50 must be 0 or in [32, "),
    (["--program-table", "program_table+4"], "Table.StartAddress 0x30004 must be 8-byte aligned"),
])
def test_program_table_binding_rules_are_findings(call: list[str], message: str, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The capture's findings on a bound program table are the binding rules exec applies
    (D3D12_WORK_LIST_PROGRAM_TABLE_BINDING): a stride that is no multiple of 8, a misaligned table."""
    out = tmp_path / "capture.json"
    base = [a for a in CULLING_CALL if a != "program_table"] if "--program-table" in call else [
        *CULLING_CALL]
    if "--program-table" in call:
        base.remove("--program-table")
    code = main(["capture", str(CULLING), *CULLING_REGIONS, *base, *call, "-o", str(out)])
    assert code == 1
    assert message in capsys.readouterr().out


def test_region_grammar(tmp_path: Path) -> None:
    data = tmp_path / "data.bin"
    data.write_bytes(bytes(range(32)))
    r = asm.parse_region(f"a={data},offset=8,size=16,writable@0x1000")
    assert (r.name, r.base, r.size, r.entry["offset"], r.entry["size"], r.entry["writable"]) == (
        "a", 0x1000, 16, 8, 16, True)
    assert asm.parse_region("h=hex:00 01 02@4096").size == 3
    assert asm.parse_region("z=zeros:0x100,writable@0x2000").entry == {"name": "z", "base": "0x2000",
                                                                      "writable": True, "zeros": 256}
    assert asm.parse_region("b=base64:AAEC@0x10").size == 3
    assert asm.parse_region("s=-@0x10", stdin=b"1234").data == b"1234"
    regions = [asm.parse_region("h=hex:0001@0x3000")]
    assert asm.resolve_va("h+0x10", regions, "x") == 0x3010 and asm.resolve_va("0x20", regions, "x") == 0x20
    for bad, message in [("nova", "expected NAME=FILE@VA"), (f"a={tmp_path}@0x0", "not a regular file"),
                         ("a=missing.bin@0x0", "no such file"), ("a=hex:123@0x0", "even number"),
                         (f"a={data},offset=40@0", "runs past the end"), ("a=zeros:4@0xzz", "not an integer"),
                         (f"a={data},bogus@0", "unknown option")]:
        with pytest.raises(CaptureError, match=message):
            asm.parse_region(bad)
    with pytest.raises(CaptureError, match="neither a VA nor a region name"):
        asm.resolve_va("nothere", regions, "--argument-buffer")


@pytest.mark.parametrize(("extra", "message"), [
    (["--root-arg", "7=0x1"], "has 2 parameters, no parameter 7"),
    (["--program-table", "0x90000"], "VA 0x90000 is in no region"),
    (["--signature", "NOPE"], "no work list signature or signature array named 'NOPE'"),
    (["--argument-buffer", "0x0"], "applies to --execute-indirect only"),
    (["--argument-buffer-resource", "0x0,16"], "applies to --execute-indirect only"),
])
def test_unusable_flags_exit_2_naming_the_flag(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               extra: list[str], message: str) -> None:
    call = CULLING_CALL if "--program-table" not in extra else CULLING_CALL[:4] + CULLING_CALL[6:]
    assert main(["capture", str(CULLING), *CULLING_REGIONS, *call, *extra, "-o", str(tmp_path / "c.json")]) == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "c.json").exists()


def test_overlapping_regions_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["capture", str(CULLING), *CULLING_REGIONS, "extra=zeros:16@0x20008", *CULLING_CALL,
                 "-o", str(tmp_path / "c.json")]) == 2
    assert "overlap" in capsys.readouterr().err


def test_save_is_atomic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """save_capture writes a temporary file and renames it: a failed save leaves the old capture whole."""
    out = tmp_path / "capture.json"
    assert main(["capture", str(CULLING), *CULLING_REGIONS, *CULLING_CALL, "-o", str(out)]) == 0
    before = out.read_bytes()

    def broken(*args: Any, **kwargs: Any) -> None:  # (the disk fills as the file is renamed: a new folder block)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OutputError, match="No space left on device"):  # (named: exit 2)
        capture_file.save_capture(load_capture(out), out)
    assert out.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["capture.json"]


def test_stdout_capture_feeds_dump_on_stdin() -> None:
    """-o - prints the capture (every region inline); dump - reads it from stdin."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    made = subprocess.run([sys.executable, "-m", "d3d12wl", "capture", str(CULLING), *CULLING_REGIONS,
                           *CULLING_CALL, "-o", "-"], capture_output=True, cwd=ROOT, env=env, timeout=60)
    assert made.returncode == 0, made.stderr
    assert b"findings (0)" in made.stderr
    dumped = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", "-"], input=made.stdout, capture_output=True,
                            cwd=ROOT, env=env, timeout=60)
    assert dumped.returncode == 0, dumped.stderr
    assert b"executions (9)" in dumped.stdout


def test_region_bytes_from_stdin(tmp_path: Path) -> None:
    out = tmp_path / "c.json"
    regions = [r if not r.startswith("primary=") else "primary=-@0x20000" for r in CULLING_REGIONS]
    made = subprocess.run([sys.executable, "-m", "d3d12wl", "capture", str(CULLING), *regions, *CULLING_CALL,
                           "-o", str(out)], input=(READBACK / "primary.bin").read_bytes(), capture_output=True,
                          cwd=ROOT, timeout=60)
    assert made.returncode == 0, made.stderr
    assert trace_of(load_capture(out)) == trace_of(load_capture(EXAMPLES / "culling_capture.json"))


def test_a_large_program_table_is_matched_at_once(tmp_path: Path) -> None:
    """100,000 slots: every slot's identifier is compared by numpy, unmatched ones counted, a few listed."""
    objects = __import__("d3d12wl.model.description", fromlist=["load"]).load(CULLING)
    n, stride = 100_000, 48
    table = bytearray(n * stride)
    ids = [objects.programs[p].Identifier for p in ("Opaque", "Transparent", "Shadow")]
    for slot in range(0, n, 3):
        table[slot * stride:slot * stride + 32] = ids[slot % 2]
    for slot in range(1, n, 3000):
        table[slot * stride] = 0x77
    path = tmp_path / "table.bin"
    path.write_bytes(bytes(table))
    spec = asm.AssembleSpec(regions=[asm.parse_region(f"t={path}@0x100000"),
                                     asm.parse_region("di=zeros:24@0x10000")],
                            call=asm.CallSpec("DispatchList", input="di"), bindings=[asm.BindingSpec("t")])
    (report,) = asm.program_table_slots(asm.assemble(objects, spec), max_listed=2)
    assert report.table.SlotCount == n
    assert len(report.programs["Opaque"]) + len(report.programs["Transparent"]) == len(range(0, n, 3))
    assert len(report.unmatched) == 2 and report.unmatched[0][0] == 1
    assert report.empty == n - len(range(0, n, 3)) - len(range(1, n, 3000))
    assert report.findings[-1] == f"program table 0: {len(range(1, n, 3000)) - 2} more slots with identifiers that " \
                                  "match no program"


def test_regions_by_option_anywhere(tmp_path: Path) -> None:
    out = tmp_path / "capture.json"
    regions = [a for r in CULLING_REGIONS for a in ("--region", r)]
    assert main(["capture", str(CULLING), *CULLING_CALL, "-o", str(out), *regions]) == 0
    assert trace_of(load_capture(out)) == trace_of(load_capture(EXAMPLES / "culling_capture.json"))


def test_capture_only_members_are_defined_once() -> None:
    """The members a capture has beyond a description's collections: one definition (capture.file), which
    decode and capture both ignore when a capture is given as DESC.json."""
    from d3d12wl.capture import file
    from d3d12wl.cli import capture_cmd, decode_cmd

    assert decode_cmd.CAPTURE_ONLY is file.CAPTURE_ONLY is capture_cmd.CAPTURE_ONLY
    assert file.CAPTURE_ONLY == {"version", "device", "memory", "state", "call"}
