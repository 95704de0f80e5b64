"""``d3d12wl dump`` on the bundled example (issue 5 item 4, "Done when": the README's main job dumps the bundled
example and shows the executions with the right programs, tints, SRVs and draw arguments).

The expected values are the spec's, section "GPU culling and work list emission": three programs in slots 0-2 of a
48-byte program table (OpaqueProgram white (1,1,1,1), TransparentProgram blue-ish (0.5,0.7,1,0.5), ShadowProgram
black (0,0,0,1)); hybrid primary records (D3D12_WORK_LIST_PRIMARY_RECORD, 16 bytes); secondary records of a root SRV
(GRS parameter 1) and D3D12_DRAW_ARGUMENTS with InstanceCount 1 and StartInstanceLocation 0 (the HLSL's
SecondaryRecord); DispatchList(..., MaxGraphicsProgramInputsPerPrimaryList = 3).  The scene (which objects survive
culling, their SRVs and vertex ranges) is the generator's, tools/make_example_capture.py.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.cli.render import render_text
from d3d12wl.executor import execute, value_text
from d3d12wl.executor.dump_view import dump_view, hex_block, layout_spans
from d3d12wl.executor.value_text import as_float
from d3d12wl.records.layout import pcs_layout

TINTS = {"Opaque": (1.0, 1.0, 1.0, 1.0), "Transparent": (0.5, 0.7, 1.0, 0.5), "Shadow": (0.0, 0.0, 0.0, 1.0)}
#: (program, material SRV, VertexCountPerInstance, StartVertexLocation) per execution, in execution order
EXECUTIONS = [
    ("Opaque", 0x100000, 36, 0), ("Opaque", 0x101000, 24, 36), ("Opaque", 0x103000, 60, 198),
    ("Opaque", 0x104000, 240, 342),
    ("Transparent", 0x200000, 6, 156), ("Transparent", 0x201000, 12, 258),
    ("Shadow", 0x300000, 96, 60), ("Shadow", 0x301000, 36, 270), ("Shadow", 0x303000, 48, 606),
]


def example_dict() -> dict[str, Any]:
    return json.loads(resources.files("d3d12wl").joinpath("examples/culling_capture.json").read_text("utf-8"))


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    rc = main(["dump", *argv])
    return rc, capsys.readouterr().out


def test_text_shows_programs_tints_srvs_and_draw_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = run_cli(capsys)
    assert rc == 0
    assert "DispatchList(DispatchListInput=0x10000, MaxGraphicsProgramInputsPerPrimaryList=3)" in out
    assert "D3D12_DISPATCH_LIST_INPUT @0x10000" in out and "NumProgramInputs" in out
    for slot, (name, tint) in enumerate(TINTS.items()):
        assert f"program table slot {slot} @0x{0x30000 + 48 * slot:x}: {name}" in out
        assert f'identifier "{name}Program"' in out
        assert "float (" + ", ".join(f"{v:g}" for v in tint) + ")" in out
    assert "0x3f000000 0x3f333333 0x3f800000 0x3f000000" in out  # Transparent's tint as 4 DWORDs
    for program, srv, count, start in EXECUTIONS:
        assert f"0x{srv:x}" in out
    lines = [ln for ln in out.splitlines() if ln.lstrip().startswith("#") and "DRAW" in ln]
    assert len(lines) == len(EXECUTIONS)
    for line, (program, _srv, count, start) in zip(lines, EXECUTIONS, strict=True):
        assert f"  {program}  DRAW VertexCountPerInstance={count} InstanceCount=1 StartVertexLocation={start} " \
               f"StartInstanceLocation=0" in line
    assert "findings (0): none" in out


def test_json_is_the_same_view(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = run_cli(capsys, "--json")
    assert rc == 0
    view = json.loads(out)
    assert view["call"]["name"] == "DispatchList"
    assert view["device"]["Tier"] == "TIER_1"
    (lst,) = view["lists"]
    assert lst["input_struct"] == "D3D12_DISPATCH_LIST_INPUT" and lst["signature"] == "WLS"
    assert {h["field"]: h["value"] for h in lst["header"]} == {
        "NumProgramInputs": 3, "Flags": 0, "ProgramInputs.StartAddress": 0x20000, "ProgramInputs.StrideInBytes": 16}
    programs = [p["program_table"]["program"] for p in lst["primary_records"]]
    assert programs == list(TINTS)
    for p in lst["primary_records"]:
        (tail,) = p["program_table"]["tail"]
        assert tail["floats"] == pytest.approx(TINTS[p["program_table"]["program"]])
        assert len(tail["dwords"]) == 4
        assert p["record_kind"] == "HYBRID" and p["header"] == "D3D12_WORK_LIST_PRIMARY_RECORD"
    secondaries = [(p["program_table"]["program"], {f["field"]: f["value"] for f in s["fields"]})
                   for p in lst["primary_records"] for s in p["secondary_records"]]
    assert [(prog, f["arg0_ShaderResourceView"], f["arg1_Draw"]["VertexCountPerInstance"],
             f["arg1_Draw"]["StartVertexLocation"]) for prog, f in secondaries] == EXECUTIONS
    assert [(e["program"], e["trigger"]["fields"]["VertexCountPerInstance"]) for e in view["executions"]] == \
        [(p, c) for p, _, c, _ in EXECUTIONS]
    for e, (_, srv, _, _) in zip(view["executions"], EXECUTIONS, strict=True):
        by_param = {(ra["binding"], ra["parameter"], ra["kind"]): ra for ra in e["root_arguments"]}
        assert by_param[("global", 1, "SRV")]["value"] == srv
        assert by_param[("global", 0, "CBV")]["origin"] == "command-list state"
        assert by_param[("local", 0, "constants")]["floats"] == pytest.approx(TINTS[e["program"]])
    assert view["findings"] == []
    assert "hex" not in lst


def test_hex_labels_every_byte_with_its_field(capsys: pytest.CaptureFixture[str]) -> None:
    rc, out = run_cli(capsys, "--hex")
    assert rc == 0
    assert "0x00030000 +0x00  4f 70 61 71 75 65 50 72 6f 67 72 61 6d 00 00 00  ProgramIdentifier" in out
    assert '"OpaqueProgram"' in out
    assert "00 00 00 3f 33 33 33 3f 00 00 80 3f 00 00 00 3f  arg2_InlineRootParameter" in out  # Transparent tint
    assert "arg1_Draw.VertexCountPerInstance = 36" in out
    assert "0x00020008 +0x08  00 00 04 00 00 00 00 00" in out and "SecondaryRecords = 0x40000" in out
    assert "ProgramInputs.StrideInBytes = 16" in out
    rc, out = run_cli(capsys, "--hex", "--json")
    view = json.loads(out)
    lines = view["lists"][0]["primary_records"][0]["hex"]["lines"]
    assert [(ln["offset"], ln["field"]) for ln in lines] == [
        (0, "ProgramTableIndex"), (4, "NumSecondaryRecords"), (8, "SecondaryRecords")]


def _with_bytes(d: dict[str, Any], region: str, offset: int, data: bytes) -> None:
    r = next(r for r in d["memory"] if r["name"] == region)
    raw = bytearray(bytes.fromhex("".join(r["hex"]).replace(" ", "")))
    raw[offset:offset + len(data)] = data
    r["hex"] = raw.hex()


def test_padding_is_marked_in_the_hex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec "D3D12_DISPATCH_LIST_INPUT": the primary stride may exceed the record (trailing pad)."""
    d = example_dict()
    # Re-lay the primary list at stride 24: the generator's 3 x 16 bytes become 3 x 24 with 8 pad bytes each.
    r = next(r for r in d["memory"] if r["name"] == "pPrimaryListBuffer")
    raw = bytes.fromhex("".join(r["hex"]).replace(" ", ""))
    r["hex"] = b"".join(raw[i:i + 16] + b"\xee" * 8 for i in range(0, len(raw), 16)).hex()
    _with_bytes(d, "pDispatchInputBuffer", 16, (24).to_bytes(8, "little"))
    path = tmp_path / "padded.json"
    path.write_text(json.dumps(d))
    rc, out = run_cli(capsys, str(path), "--hex")
    assert "0x00020010 +0x10  ee ee ee ee ee ee ee ee" in out
    assert "(padding to the stride) (non-zero)" in out
    assert "primary [2] @0x20030" in out


def test_findings_are_printed_and_set_the_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Spec "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING": every ProgramTableIndex must be in [0, SlotCount)."""
    d = example_dict()
    _with_bytes(d, "pPrimaryListBuffer", 16, (64).to_bytes(4, "little"))  # primary [1]: index 64, SlotCount 64
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(d))
    rc, out = run_cli(capsys, str(path))
    assert rc == 1
    assert "program-table-index-out-of-range" in out
    assert "primary 1" in out.split("findings (")[1]
    rc, out = run_cli(capsys, str(path), "--json")
    assert rc == 1
    assert any(f["kind"] == "program-table-index-out-of-range" and f["primary_index"] == 1
               for f in json.loads(out)["findings"])


def test_unmapped_bytes_show_as_question_marks(capsys: pytest.CaptureFixture[str]) -> None:
    c = load_capture(example_dict())
    view = dump_view(c, execute(c), with_hex=True)
    # Point the hex of the first secondary record at an unmapped VA: rendering must not raise.
    layout = pcs_layout(c.objects.program_command_signatures["PCS"]).secondary
    assert layout is not None
    block = hex_block(c, "nowhere", 0x7000_0000, layout_spans(layout.fields, 24))
    assert block.lines[0].hex == " ".join(["??"] * 8)
    assert block.lines[0].label.endswith("(unmapped)")
    assert "executions (9)" in render_text(view)


def test_as_float_prints_float32_values_readably() -> None:
    assert as_float(0x3F333333) == 0.7
    assert as_float(0x3F800000) == 1.0


def test_dwords_read_as_floats_only_when_they_look_like_floats() -> None:
    """The tint's DWORDs (the culling example's float4) read as floats; integers such as an incrementing
    constant's 0, 1, 2 or a root constant 100 are denormals as floats and are shown as DWORDs only."""
    assert value_text.looks_like_floats([0x3F800000, 0, 0, 0x3F800000])
    assert not value_text.looks_like_floats([0, 1, 2]) and not value_text.looks_like_floats([100])
    assert not value_text.looks_like_floats([0, 0]) and not value_text.looks_like_floats([0x7F800000])  # zeros, infinity
    assert value_text.format_value([0, 1, 2]) == "0x00000000 0x00000001 0x00000002"
    assert value_text.format_value([0x3F000000]).endswith("= float (0.5)")


def test_missing_capture_is_an_error_not_a_traceback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["dump", str(tmp_path / "nope.json")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "nope.json" in err and "Traceback" not in err


def test_cli_in_a_subprocess_from_another_directory(tmp_path: Path) -> None:
    """The bundled example is found through importlib.resources, whatever the working directory."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-m", "d3d12wl", "dump", "--json"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    view = json.loads(proc.stdout)
    assert [p["program_table"]["program"] for p in view["lists"][0]["primary_records"]] == list(TINTS)
    proc = subprocess.run([sys.executable, "-m", "d3d12wl", "dump"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0 and "Transparent" in proc.stdout and "float (0.5, 0.7, 1, 0.5)" in proc.stdout


def test_execute_indirect_commands_in_hex(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """IndirectDrawing.md: arguments tightly packed, one command every ByteStride bytes, min(count, MaxCommandCount)."""
    d = example_dict()
    d["command_signatures"] = {"EI": {"ByteStride": 16, "pArgumentDescs": [{"Type": "DRAW"}]}}
    d["memory"].append({"name": "args", "base": "0x60000",
                        "hex": "24000000 01000000 00000000 00000000 06000000 02000000 03000000 00000000"})
    d["call"] = {"ExecuteIndirect": {"pCommandSignature": "EI", "MaxCommandCount": 2, "pArgumentBuffer": "0x60000"}}
    path = tmp_path / "ei.json"
    path.write_text(json.dumps(d))
    rc, out = run_cli(capsys, str(path), "--hex")
    assert "command [1] @0x60010 (ByteStride 16)" in out
    assert "arg0_Draw.InstanceCount = 2" in out
    assert "#1  command 1  -  DRAW VertexCountPerInstance=6 InstanceCount=2 StartVertexLocation=3" in out
