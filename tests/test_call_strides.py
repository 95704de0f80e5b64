"""The call's own strides in every view (issue 24 items 2 and 3): ``decode --capture``, the plausibility findings of
``decode`` without one, ``codegen --stride`` / ``--capture``, and ``capture``'s pre-flight.

The fixture is the spec's culling example ("GPU culling and work list emission") with names added
(examples/culling_named.json), read back from buffers written at strides above the minimum with junk in the
padding, as an engine's producer shader leaves it: ``ProgramInputs.StrideInBytes`` 32 for 16-byte primary records,
``SecondaryRecordByteStride`` 32 for 24-byte secondary records and a program-table ``StrideInBytes`` of 64 for 48-byte
slots, every padding byte 0xCD.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.executor import execute
from d3d12wl.executor.reads import call_rows, read_call
from d3d12wl.model import description
from d3d12wl.records import layout as L
from d3d12wl.records import packers

EXAMPLES = Path(__file__).resolve().parents[1] / "d3d12wl" / "examples"
JUNK = 0xCD
PRIMARY_STRIDE, SECONDARY_STRIDE, TABLE_STRIDE, SLOTS = 32, 32, 64, 8
BASE = {"dispatch": 0x10000, "primary": 0x20000, "table": 0x30000, "secondary": 0x40000}
#: the culling example's draws (spec example, bundled culling_capture.json): per program the draws' vertex counts
DRAWS = {"Opaque": [36, 24, 60, 240], "Transparent": [6, 12], "Shadow": [96, 36, 48]}


def named_doc(stride: int = SECONDARY_STRIDE) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((EXAMPLES / "culling_named.json").read_text())
    doc["program_command_signatures"]["PCS"]["SecondaryRecordByteStride"] = stride
    return doc


def junk_padding(data: np.ndarray, stride: int, size: int) -> bytes:
    """``data`` (records ``stride`` apart, ``size`` bytes used) with every byte past ``size`` of each set to JUNK."""
    rows = data.reshape(-1, stride).copy()
    rows[:, size:] = JUNK
    return rows.tobytes()


def write_readback(tmp: Path) -> tuple[Path, list[str]]:
    """The named culling description (SecondaryRecordByteStride 32) and the capture regions of its readback."""
    doc = named_doc()
    desc = tmp / "culling_named32.json"
    desc.write_text(json.dumps(doc))
    objects = description.load(doc)
    pl = L.pcs_layout(objects.program_command_signatures["PCS"])
    assert pl.secondary is not None and pl.program_table is not None
    secondaries, lists = [], []
    va = BASE["secondary"]
    for p, (name, counts) in enumerate(DRAWS.items()):
        n = len(counts)
        data = packers.pack_secondary_records(pl, {
            "MaterialBufferSRV": 0x100000 * (p + 1) + 0x1000 * np.arange(n, dtype=np.uint64),
            "Draw.VertexCountPerInstance": np.array(counts, dtype=np.uint32), "Draw.InstanceCount": 1,
            "Draw.StartVertexLocation": 0, "Draw.StartInstanceLocation": 0}, stride=SECONDARY_STRIDE)
        secondaries.append((name, va, junk_padding(data, SECONDARY_STRIDE, pl.secondary.size)))
        lists.append((p, n, va))
        va += 0x1000
    primary = packers.pack_primary_records(pl, {"ProgramTableIndex": [i for i, _, _ in lists],
                                                "NumSecondaryRecords": [n for _, n, _ in lists],
                                                "SecondaryRecords": [v for _, _, v in lists]}, stride=PRIMARY_STRIDE)
    names = list(DRAWS)
    idents = [objects.programs[n].Identifier for n in names] + [bytes(32)] * (SLOTS - len(names))
    tints = np.zeros((SLOTS, 4), dtype=np.uint32)
    tints[: len(names)] = 0x3F800000
    table = packers.pack_program_table(pl.program_table, {"ProgramIdentifier": idents, "Tint": tints},
                                       stride=TABLE_STRIDE)
    dispatch = packers.pack_dispatch_list_inputs({"NumProgramInputs": len(lists), "Flags": 0,
                                                  "ProgramInputs.StartAddress": BASE["primary"],
                                                  "ProgramInputs.StrideInBytes": PRIMARY_STRIDE}, count=1)
    files = {"dispatch": dispatch.tobytes(), "primary": junk_padding(primary, PRIMARY_STRIDE, pl.primary.size),
             "table": junk_padding(table, TABLE_STRIDE, pl.program_table.size)}
    regions = []
    for key, data in files.items():
        path = tmp / f"{key}.bin"
        path.write_bytes(data)
        regions.append(f"{key}={path}@0x{BASE[key]:x}")
    for name, va, data in secondaries:
        path = tmp / f"secondary_{name}.bin"
        path.write_bytes(data)
        regions.append(f"{name.lower()}={path}@0x{va:x}")
    return desc, regions


def assemble(tmp: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> tuple[Path, int, str]:
    desc, regions = write_readback(tmp)
    out = tmp / "capture.json"
    rc = main(["capture", str(desc), *regions, "--dispatch-list", "dispatch", "--program-table", "table",
               "--root-arg", "0=0x50000", *extra, "-o", str(out)])
    return out, rc, capsys.readouterr().out


@pytest.fixture()
def readback(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> Path:
    out, rc, text = assemble(tmp_path, capsys, "--max-graphics-program-inputs-per-primary-list", "3", "--stride", str(TABLE_STRIDE))
    assert rc == 0, text
    return out


# --- capture's pre-flight (item 3) ---------------------------------------------------------------------------


def test_preflight_names_the_flag_whose_default_contradicts_the_bytes(tmp_path: Path,
                                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """Rule 12: --max-graphics-program-inputs-per-primary-list left at its default 0 under a dispatch input with NumProgramInputs 3: the capture is
    written, exit 1, and the call-time finding names the flag and the value the bytes need."""
    out, rc, text = assemble(tmp_path, capsys, "--stride", str(TABLE_STRIDE))
    assert rc == 1 and out.is_file()
    assert "error: max-graphics-program-inputs-exceeded [rule 12] list 0 @0x10000" in text
    assert ("the flag: --max-graphics-program-inputs-per-primary-list (MaxGraphicsProgramInputsPerPrimaryList) is 0, its default (not given), but "
            "the dispatch input holds NumProgramInputs 3: give --max-graphics-program-inputs-per-primary-list 3") in text
    assert execute(load_capture(out)).findings_of("max-graphics-program-inputs-exceeded")  # exec agrees


def test_preflight_says_at_which_stride_the_identifiers_line_up(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    """A table written at StrideInBytes 64 and bound at the signature's minimum 48 (the default): its slots 1 and 2
    read junk, and the identifiers line up at 64 (spec "Program table slot layout")."""
    out, rc, text = assemble(tmp_path, capsys, "--max-graphics-program-inputs-per-primary-list", "3")
    assert rc == 1 and out.is_file()
    assert "matches no program of the description" in text
    assert ("program table 0: the identifiers line up at stride 64 (Opaque slot 0, Transparent slot 1, Shadow slot "
            "2): the table was written at StrideInBytes 64, not 48") in text
    assert "the flag: --stride (program table 0's StrideInBytes) is 48: give --stride 64" in text


def test_a_clean_readback_assembles_with_no_finding(readback: Path) -> None:
    trace = execute(load_capture(readback))
    assert not trace.findings
    assert [e.trigger.fields["VertexCountPerInstance"] for e in trace.executions] == [
        n for counts in DRAWS.values() for n in counts]


# --- decode --capture (item 2) --------------------------------------------------------------------------------


def decode_csv(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, list[dict[str, str]], str]:
    rc = main(["decode", *argv, "--format", "csv"])
    captured = capsys.readouterr()
    lines = captured.out.splitlines()
    head = lines[0].split(",")
    return rc, [dict(zip(head, line.split(","), strict=True)) for line in lines[1:]], captured.err


def test_decode_capture_reads_each_record_class_as_the_call_does(readback: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    """Every row carries its VA; the primary list at ProgramInputs' start and stride 32, each secondary list at
    its SecondaryRecords with the PCS's stride 32, the program table at its bound stride 64: the junk in the
    padding is never read, and the members are named as the description names them."""
    rc, rows, _ = decode_csv(capsys, "--capture", str(readback), "PCS.primary")
    assert rc == 0
    assert [(r["list"], r["primary"], r["va"], r["NumSecondaryRecords"]) for r in rows] == [
        ("0", "0", "0x20000", "4"), ("0", "1", "0x20020", "2"), ("0", "2", "0x20040", "3")]
    rc, rows, _ = decode_csv(capsys, "--capture", str(readback), "PCS.secondary")
    assert rc == 0 and len(rows) == 9
    assert [r["va"] for r in rows[:5]] == ["0x40000", "0x40020", "0x40040", "0x40060", "0x41000"]
    assert [int(r["Draw.VertexCountPerInstance"]) for r in rows] == [n for c in DRAWS.values() for n in c]
    assert [(r["primary"], r["secondary"]) for r in rows[3:5]] == [("0", "3"), ("1", "0")]
    assert rows[1]["MaterialBufferSRV"] == "0x101000"
    rc, rows, _ = decode_csv(capsys, "--capture", str(readback), "PCS.program_table")
    assert rc == 0 and len(rows) == SLOTS
    assert [(r["slot"], r["va"], r["program"]) for r in rows[:4]] == [
        ("0", "0x30000", "Opaque"), ("1", "0x30040", "Transparent"), ("2", "0x30080", "Shadow"), ("3", "0x300c0", "-")]
    assert rows[1]["Tint[0]"] == "0x3f800000"
    rc, rows, _ = decode_csv(capsys, "--capture", str(readback), "D3D12_DISPATCH_LIST_INPUT")
    assert rc == 0 and [(r["va"], r["ProgramInputs.StrideInBytes"]) for r in rows] == [("0x10000", "32")]


def test_decode_capture_text_and_json(readback: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--capture", str(readback), "PCS.secondary"]) == 0
    text = capsys.readouterr().out
    assert text.splitlines()[0] == (f"PCS.secondary: 24 bytes used, 9 record(s) as the call reads them: stride 32 "
                                    f"(PCS.SecondaryRecordByteStride), from {readback}")
    assert main(["decode", "--capture", str(readback), "PCS.primary", "--format", "json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["stride"] == PRIMARY_STRIDE and doc["findings"] == []
    assert doc["read_as"] == "as the call reads them: stride 32 (list 0 D3D12_DISPATCH_LIST_INPUT::ProgramInputs." \
                             "StrideInBytes)"
    assert [r["va"] for r in doc["records"]] == ["0x20000", "0x20020", "0x20040"]


def test_decode_capture_what_the_call_does_not_read_is_exit_2(readback: Path,
                                                              capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--capture", str(readback), "EI.command"]) == 2
    err = capsys.readouterr().err
    assert "the call (DispatchList) does not read EI.command" in err
    assert "it reads D3D12_DISPATCH_LIST_INPUT, PCS.primary, PCS.secondary, PCS.program_table" in err
    assert main(["decode", "--capture", str(readback), "D3D12_DISPATCH_LIST_INPUT1"]) == 2
    assert "its dispatch input is D3D12_DISPATCH_LIST_INPUT" in capsys.readouterr().err
    assert main(["decode", "--capture", str(readback), "PCS.primary", "--stride", "16"]) == 2
    assert "--stride" in capsys.readouterr().err


def test_decode_capture_with_another_description_names_the_members(readback: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    """DESC.json with --capture names the members (here the positional names of culling.json, the same bytes)."""
    doc = named_doc()
    for arg in doc["program_command_signatures"]["PCS"]["pArgumentDescs"]:
        del arg["Name"]
    desc = readback.parent / "positional.json"
    desc.write_text(json.dumps(doc))
    rc, rows, _ = decode_csv(capsys, "--capture", str(readback), str(desc), "PCS.secondary")
    assert rc == 0 and rows[0]["arg0_ShaderResourceView"] == "0x100000" and "arg1_Draw.InstanceCount" in rows[0]


def test_unmapped_secondary_lists_are_left_out_and_said(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A primary record whose secondary list is not mapped: its rows are left out, said in a finding (exit 1)."""
    desc, regions = write_readback(tmp_path)
    regions = [r for r in regions if not r.startswith("shadow=")]
    out = tmp_path / "partial.json"
    main(["capture", str(desc), *regions, "--dispatch-list", "dispatch", "--program-table", "table", "--stride",
          "64", "--max-graphics-program-inputs-per-primary-list", "3", "--root-arg", "0=0x50000", "-o", str(out)])
    capsys.readouterr()
    rc, rows, err = decode_csv(capsys, "--capture", str(out), "PCS.secondary")
    assert rc == 1 and len(rows) == 6
    assert ("left out: 1 secondary lists are not mapped whole (the first: primary record 2 of list 0, 3 records at "
            "0x42000)") in err


def test_call_rows_of_a_broadcast_secondary_stride(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """SecondaryRecordByteStride 0 (spec "Stride derivation", the broadcast form): every index of a list reads the
    record at the list's start; the rows say so."""
    out = execute_capture_with_stride(tmp_path, capsys, 0)
    cap = load_capture(out)
    rows = call_rows(read_call(cap.memory, cap.device, cap.objects, cap.state, cap.call), "PCS.secondary")
    assert rows.stride == 0 and rows.reading().startswith("as the call reads them: stride 0 (")
    assert [int(v) for v in rows.va[:4]] == [BASE["secondary"]] * 4


def execute_capture_with_stride(tmp_path: Path, capsys: pytest.CaptureFixture[str], stride: int) -> Path:
    doc = named_doc(stride)
    _, regions = write_readback(tmp_path)
    desc = tmp_path / f"stride{stride}.json"
    desc.write_text(json.dumps(doc))
    out = tmp_path / f"stride{stride}_capture.json"
    main(["capture", str(desc), *regions, "--dispatch-list", "dispatch", "--program-table", "table", "--stride",
          "64", "--max-graphics-program-inputs-per-primary-list", "3", "--root-arg", "0=0x50000", "-o", str(out)])
    capsys.readouterr()
    return out


# --- decode without a capture: implausible rows (item 2) -----------------------------------------------------


def test_a_wrong_stride_makes_rows_implausible_and_the_right_one_is_named(tmp_path: Path,
                                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: the primary list read at the 16-byte minimum instead of ProgramInputs' 32 decodes the
    junk padding as records (NumSecondaryRecords 3452816845 at a misaligned SecondaryRecords): findings, exit 1,
    and every record is plausible at stride 32."""
    desc, _ = write_readback(tmp_path)
    rc, rows, err = decode_csv(capsys, str(desc), "PCS.primary", str(tmp_path / "primary.bin"), "--va", "0x20000")
    assert rc == 1 and len(rows) == 6
    assert rows[1]["NumSecondaryRecords"] == str(0xCDCDCDCD)
    assert ("implausible at stride 16: record 1 (VA 0x20010): SecondaryRecords 0xcdcdcdcdcdcdcdcd is not 8-byte "
            "aligned (NumSecondaryRecords 3452816845); 2 more record(s) likewise") in err
    assert "every record is plausible at stride 32 (3 records in the bytes): decode with --stride 32" in err
    rc, rows, err = decode_csv(capsys, str(desc), "PCS.primary", str(tmp_path / "primary.bin"), "--stride", "32")
    assert rc == 0 and len(rows) == 3 and err == ""


def test_a_program_table_at_the_wrong_stride_is_implausible(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    desc, _ = write_readback(tmp_path)
    rc, _, err = decode_csv(capsys, str(desc), "PCS.program_table", str(tmp_path / "table.bin"))
    assert rc == 1
    assert "ProgramIdentifier is neither empty nor any program's identifier in the description" in err
    assert "every record is plausible at stride 64 (8 records in the bytes)" in err


def test_junk_in_padding_at_the_right_stride_is_no_finding(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Spec "Program table record layout": padding is "App-defined ... (ignored by the system)": junk there is
    legal, so the declared SecondaryRecordByteStride decodes the secondary lists with no finding."""
    desc, _ = write_readback(tmp_path)
    rc, rows, err = decode_csv(capsys, str(desc), "PCS.secondary", str(tmp_path / "secondary_Opaque.bin"))
    assert rc == 0 and err == "" and [r["Draw.VertexCountPerInstance"] for r in rows] == ["36", "24", "60", "240"]


def test_a_capture_given_as_raw_bytes_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    capture = EXAMPLES / "culling_capture.json"
    assert main(["decode", str(EXAMPLES / "culling.json"), "PCS.primary", str(capture)]) == 2
    err = capsys.readouterr().err
    assert f"{capture} is a d3d12wl capture (JSON with device, memory, version), not raw bytes" in err
    assert f"d3d12wl decode --capture {capture} WHAT" in err
    assert main(["decode", str(EXAMPLES / "culling.json"), "PCS.primary", str(EXAMPLES / "culling.json")]) == 2
    assert "is a JSON description, not raw bytes" in capsys.readouterr().err


# --- codegen at the strides a buffer has (item 2) ------------------------------------------------------------


def test_codegen_stride_and_capture(readback: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--capture takes the strides the call reads (ProgramInputs 32, the table's 64; SecondaryRecordByteStride 32
    is the description's); --stride ID=N overrides one; below the minimum is exit 2 naming the record."""
    for lang in ("c", "hlsl", "renderdoc"):
        assert main(["codegen", "--capture", str(readback), "--lang", lang, "--json"]) == 0
        doc = json.loads(capsys.readouterr().out)
        got = {f"{s['owner']}.{s['record']}": (s["stride"], s["stride_from"]) for s in doc["structs"]}
        assert got["PCS.primary"] == (32, "the capture's list 0 D3D12_DISPATCH_LIST_INPUT::ProgramInputs."
                                          "StrideInBytes")
        assert got["PCS.program_table"] == (64, "the capture's binding 0 ProgramTable.Table.StrideInBytes")
        assert got["PCS.secondary"][0] == 32
    assert main(["codegen", "--capture", str(readback), "--lang", "c", "--record", "PCS.primary"]) == 0
    c = capsys.readouterr().out
    assert "D3D12WL_STATIC_ASSERT(sizeof(PCS_PrimaryRecord) == 32" in c and "uint8_t _pad0[16];" in c
    assert main(["codegen", "--capture", str(readback), "--lang", "renderdoc", "--record", "PCS.program_table",
                 "--stride", "PCS.program_table=128"]) == 0
    assert "[[size(128)]]\nstruct PCS_ProgramTableRecord" in capsys.readouterr().out
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "hlsl", "--stride", "PCS.secondary=16"]) == 2
    err = capsys.readouterr().err
    assert "--stride PCS.secondary=16: stride 16 is below the minimum 24 for the secondary record of 'PCS'" in err
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "c", "--stride", "PCS.nope=16"]) == 2
    assert "no record 'PCS.nope'" in capsys.readouterr().err
    assert main(["codegen", "--lang", "c"]) == 2
