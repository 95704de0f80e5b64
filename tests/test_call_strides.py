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
    junk padding as records (NumSecondaryRecords 3452816845 at a misaligned SecondaryRecords): warnings (a heuristic
    never makes an error, issue 42 class 13: exit 0), and every record is plausible at stride 32."""
    desc, _ = write_readback(tmp_path)
    rc, rows, err = decode_csv(capsys, str(desc), "PCS.primary", str(tmp_path / "primary.bin"), "--va", "0x20000")
    assert rc == 0 and len(rows) == 6
    assert rows[1]["NumSecondaryRecords"] == str(0xCDCDCDCD)
    assert ("d3d12wl decode: warning: implausible at stride 16: record 1 (VA 0x20010): SecondaryRecords "
            "0xcdcdcdcdcdcdcdcd is not 8-byte aligned (NumSecondaryRecords 3452816845); 2 more record(s) likewise") \
        in err
    assert "every record is plausible at stride 32 (3 records in the bytes): decode with --stride 32" in err
    rc, rows, err = decode_csv(capsys, str(desc), "PCS.primary", str(tmp_path / "primary.bin"), "--stride", "32")
    assert rc == 0 and len(rows) == 3 and err == ""


def test_a_program_table_at_the_wrong_stride_is_implausible(tmp_path: Path,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    desc, _ = write_readback(tmp_path)
    rc, _, err = decode_csv(capsys, str(desc), "PCS.program_table", str(tmp_path / "table.bin"))
    assert rc == 1 and "finding: trailing partial record 10 at offset 480" in err  # (512 bytes at 48: a fact)
    assert "warning: implausible at stride 48: record 1" in err
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


@pytest.mark.parametrize(("record", "stride", "limit", "why"), [
    ("PCS.secondary", 1 << 32, (1 << 32) - 1, "D3D12_PROGRAM_COMMAND_SIGNATURE_DESC::SecondaryRecordByteStride is "
                                              "uint32_t"),
    ("PCS.secondary", (1 << 64) + 8, (1 << 32) - 1, "SecondaryRecordByteStride is uint32_t"),
    ("PCS.primary", 1 << 64, (1 << 64) - 1, "D3D12_DISPATCH_LIST_INPUT::ProgramInputs.StrideInBytes is uint64_t"),
    ("PCS.program_table", 4104, 4096, "D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE"),
])
def test_issue42_class_6_a_stride_the_api_cannot_hold_is_exit_2(record: str, stride: int, limit: int, why: str,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42 class 6: ``codegen --stride RECORD=N`` with N >= 2^32 wrote C, HLSL and RenderDoc with that padding
    (gcc only warned, truncating both sides of the size assertion alike).  A stride is bounded by the C type of the
    member the API holds it in (``SecondaryRecordByteStride`` and ``ByteStride`` are UINT, ``StrideInBytes`` UINT64)
    and a program table's by ``D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE`` (spec ``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING``)."""
    for lang in ("c", "hlsl", "renderdoc"):
        assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", lang, "--record", record,
                     "--stride", f"{record}={stride}"]) == 2
        out, err = capsys.readouterr()
        assert out == "" and f"--stride {record}={stride}: stride {stride} exceeds {limit} (" in err and why in err
    rec = L.pcs_layout(description.load(EXAMPLES / "culling.json").program_command_signatures["PCS"])
    assert rec.secondary is not None and rec.secondary.stride_problems((1 << 32) - 8) == []


def test_an_execute_indirect_byte_stride_past_uint_is_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """IndirectDrawing.md: ``ByteStride`` is a UINT; decode and codegen refuse 2^32 for it."""
    ei = str(EXAMPLES / "execute_indirect.json")
    assert main(["codegen", ei, "--lang", "c", "--stride", "PlainMultiDrawIndirect.command=4294967296"]) == 2
    assert "D3D12_COMMAND_SIGNATURE_DESC::ByteStride is uint32_t" in capsys.readouterr().err
    assert main(["decode", ei, "PlainMultiDrawIndirect.command", str(EXAMPLES / "readback" / "primary.bin"),
                 "--stride", "4294967296"]) == 2
    assert "stride 4294967296 exceeds 4294967295" in capsys.readouterr().err


# --- a heuristic never makes an error (issue 42 class 13) --------------------------------------------------------


def stale_slot_table(tmp_path: Path, stride: int) -> tuple[Path, Path]:
    """The named culling description and a program table written at ``stride`` (its minimum, 48, or more) whose
    slot 5 holds an identifier of no program (a stale slot: legal) and whose odd slots 1 and 7 hold programs'."""
    doc = named_doc()
    desc = tmp_path / "culling_named.json"
    desc.write_text(json.dumps(doc))
    objects = description.load(doc)
    pl = L.pcs_layout(objects.program_command_signatures["PCS"])
    assert pl.program_table is not None
    ids = [objects.programs[n].Identifier for n in ("Opaque", "Transparent", "Shadow")]
    idents = [ids[0], ids[1], ids[2], bytes(32), bytes(32), b"\x77" * 32, ids[0], ids[1]]
    table = packers.pack_program_table(pl.program_table, {"ProgramIdentifier": idents,
                                                          "Tint": np.full((8, 4), 0x3F800000, np.uint32)},
                                       stride=stride)
    path = tmp_path / "stale.bin"
    path.write_bytes(table.tobytes())
    return desc, path


@pytest.mark.parametrize("given", [True, False], ids=["--stride 48", "the default stride"])
def test_issue42_class_13_a_stale_slot_at_the_right_stride_is_a_warning(given: bool, tmp_path: Path,
                                                                        capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 42 class 13: a right table at its right stride, one slot holding an identifier the description does
    not know (a stale or unused slot is legal), was exit 1 ("implausible") with the advice to decode at twice the
    stride, which only skips the slot.  Now: a warning, exit 0; an explicit --stride is believed (no stride is
    suggested); and at the default stride no stride is suggested either, since every stride but 48 loses slots whose
    identifiers are programs' (1 and 7)."""
    desc, table = stale_slot_table(tmp_path, 48)
    rc, rows, err = decode_csv(capsys, str(desc), "PCS.program_table", str(table), *(["--stride", "48"] if given
                                                                                     else []))
    assert rc == 0 and [r["program"] for r in rows] == ["Opaque", "Transparent", "Shadow", "-", "-", "?", "Opaque",
                                                        "Transparent"]
    assert "record 5: ProgramIdentifier is neither empty nor any program's identifier in the description" in err
    assert "--stride 96" not in err and "every record is plausible" not in err and "finding" not in err
    if given:
        assert "(at --stride 48, taken as given)" in err and "no other stride" not in err
    else:
        assert "no other stride makes every record fit better" in err


def test_the_json_keeps_findings_and_warnings_apart(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    desc, table = stale_slot_table(tmp_path, 48)
    assert main(["decode", str(desc), "PCS.program_table", str(table), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["findings"] == [] and len(doc["warnings"]) == 2 and "record 5" in doc["warnings"][0]


def test_a_table_at_twice_its_minimum_stride_is_still_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The rule keeps the suggestion where it is right: a table written at 96 (junk in each slot's last 48 bytes)
    and read at the minimum 48: its odd rows read the junk, every slot is plausible at 96, and no program's
    identifier is lost there."""
    doc = named_doc()
    desc = tmp_path / "culling_named.json"
    desc.write_text(json.dumps(doc))
    objects = description.load(doc)
    table = L.pcs_layout(objects.program_command_signatures["PCS"]).program_table
    assert table is not None
    ids = [objects.programs[n].Identifier for n in ("Opaque", "Transparent", "Shadow")] + [bytes(32)] * 5
    data = packers.pack_program_table(table, {"ProgramIdentifier": ids, "Tint": np.zeros((8, 4), np.uint32)},
                                      stride=96)
    path = tmp_path / "table96.bin"
    path.write_bytes(junk_padding(data, 96, table.size))
    rc, _, err = decode_csv(capsys, str(desc), "PCS.program_table", str(path))
    assert rc == 0 and "every record is plausible at stride 96 (8 records in the bytes): decode with --stride 96" in err


# --- capture's pre-flight runs decode's size and stride plausibility (issue 38 item 5) ----------------------------

#: the D3D12ExecuteIndirect sample's command signature: a root CBV and a draw (24 bytes), declared at ByteStride 32
SAMPLE = {"root_signatures": {"RS": {"pParameters": [
              {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "VERTEX"}],
              "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
          "command_signatures": {"Sample": {"ByteStride": 32, "pArgumentDescs": [
              {"Type": "CONSTANT_BUFFER_VIEW", "ConstantBufferView": {"RootParameterIndex": 0}},
              {"Type": "DRAW"}], "pRootSignature": "RS"}}}
COMMANDS = 420


def sample_buffers(tmp: Path, byte_stride: int, args_bytes: int | None = None) -> tuple[Path, list[str]]:
    """The description (ByteStride ``byte_stride``) and the regions of 420 commands written 24 bytes apart (each a
    CBV at 0x10000000 + 256 i and a 3-vertex draw), ``args_bytes`` of them read back (default the sample's frame of
    1,024 commands), and a count buffer of 420."""
    doc = json.loads(json.dumps(SAMPLE))
    doc["command_signatures"]["Sample"]["ByteStride"] = byte_stride
    desc = tmp / "sample.json"
    desc.write_text(json.dumps(doc))
    commands = np.zeros(1024, dtype=[("cbv", "<u8"), ("draw", "<u4", 4)])
    commands["cbv"][:COMMANDS] = 0x10000000 + 256 * np.arange(COMMANDS, dtype=np.uint64)
    commands["draw"][:COMMANDS] = [3, 1, 0, 0]
    (tmp / "args.bin").write_bytes(commands.tobytes()[:args_bytes])
    (tmp / "count.bin").write_bytes(np.uint32(COMMANDS).tobytes())
    return desc, [f"args={tmp / 'args.bin'}@0x20000000", f"count={tmp / 'count.bin'}@0x30000000"]


def capture_sample(tmp: Path, capsys: pytest.CaptureFixture[str], byte_stride: int, args_bytes: int | None = None,
                   *extra: str) -> tuple[int, str, Path]:
    desc, regions = sample_buffers(tmp, byte_stride, args_bytes)
    out = tmp / "capture.json"
    rc = main(["capture", str(desc), *regions, "--execute-indirect", "Sample", "--args", "args", "--count", "count",
               "--max", "1024", "--graphics-root-signature", "RS", "-o", str(out), *extra])
    return rc, capsys.readouterr().out, out


def test_preflight_names_the_byte_stride_that_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The issue's case: ByteStride 32 over 24-byte commands passed capture (0 findings, exit 0) while exec ran 315
    garbage draws and 105 misaligned CBVs.  The pre-flight reads the 420 commands the call reads as decode judges
    them: the misaligned root CBVs (a warning: a heuristic), and the stride at which every command is plausible,
    all 420 whole in the bytes, with the description member that sets it."""
    rc, text, out = capture_sample(tmp_path, capsys, 32)
    assert rc == 0 and out.is_file()
    assert ("  warning: Sample.command: command 1 (VA 0x20000020), read at stride 32 (Sample.ByteStride): the root CBV "
            "arg0_ConstantBufferView 0x100000003 is not a multiple of 256 bytes; 104 more likewise") in text
    assert ("  warning: Sample.command: every record of the run at 0x20000000 is plausible at stride 24, where the "
            "bytes hold 1024 (the call reads 420): they look written 24 bytes apart, not 32; the stride 32 comes from "
            "command_signatures.Sample.ByteStride in the description") in text
    assert "    DESC.json: set command_signatures.Sample.ByteStride to 24 if the buffer was written so" in text
    assert execute(load_capture(out)).findings_of("cbv-address-misaligned")  # exec agrees on the bytes
    rc, text, out = capture_sample(tmp_path, capsys, 24)
    assert rc == 0 and "the records the call reads (0;" in text and not execute(load_capture(out)).has_errors


def test_preflight_finds_the_commands_the_bytes_do_not_hold(tmp_path: Path,
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Truncated arguments: 420 commands at ByteStride 24 in a 1,000-byte readback (41 whole commands).  The call
    reads past the region, as exec finds (unmapped): an error, exit 1, naming what holds how many."""
    rc, text, out = capture_sample(tmp_path, capsys, 24, 1000)
    assert rc == 1 and out.is_file()
    assert ("  error: Sample.command: the call reads 420 commands (the count buffer's 420, MaxCommandCount 1024) at "
            "ByteStride 24 from 0x20000000, but region 'args' holds 41 whole commands from there: 379 of 420 commands "
            "are not mapped whole (the first at 0x200003d8)") in text
    assert "the flags: --count (the count buffer) and --max (MaxCommandCount)" in text
    assert execute(load_capture(out)).findings_of("unmapped-va")
    rc, text, _ = capture_sample(tmp_path, capsys, 32, COMMANDS * 24)  # both: 315 whole at 32, all 420 at 24
    assert rc == 1 and "region 'args' holds 315 whole commands" in text and "plausible at stride 24" in text


def test_preflight_in_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, text, _ = capture_sample(tmp_path, capsys, 32, None, "--json")
    doc = json.loads(text)
    assert rc == 0 and [(r["what"], r["severity"], r["stride"]) for r in doc["records"]] == [
        ("Sample.command", "warning", None), ("Sample.command", "warning", 24)]
    assert doc["records"][1]["set_by"] == "command_signatures.Sample.ByteStride in the description"


# --- what decode knows it does not ask for (issue 38 item 5) -------------------------------------------------------


def sample_frame(tmp: Path) -> tuple[Path, Path]:
    """The sample's frame buffer as it reads back: 1,024 commands (420 of them written, ByteStride 24), and the
    UAV counter the culling shader appends with, at the next 4 KiB (the sample's CommandBufferCounterOffset)."""
    desc, _ = sample_buffers(tmp, 24)
    frame = bytearray((tmp / "args.bin").read_bytes())
    frame += bytes(4096 - len(frame) % 4096 if len(frame) % 4096 else 0) + np.uint32(COMMANDS).tobytes()
    path = tmp / "frame.bin"
    path.write_bytes(bytes(frame))
    return desc, path


def test_decode_takes_the_count_from_the_count_buffer(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """IndirectDrawing.md "Drawing": the call reads min(*pCountBuffer at CountBufferOffset, MaxCommandCount)
    commands; --count-file FILE,offset=N reads that UINT32 (the user read it with od), --count caps it as
    MaxCommandCount does."""
    desc, frame = sample_frame(tmp_path)
    rc, rows, err = decode_csv(capsys, str(desc), "Sample.command", str(frame), "--count-file",
                               f"{frame},offset=24576")
    assert rc == 0 and len(rows) == COMMANDS and err == ""
    assert rows[-1]["arg0_ConstantBufferView"] == hex(0x10000000 + 256 * (COMMANDS - 1))
    rc, rows, _ = decode_csv(capsys, str(desc), "Sample.command", str(frame), "--count-file",
                             f"{frame},offset=24576", "--count", "100")
    assert rc == 0 and len(rows) == 100
    assert main(["decode", str(desc), "Sample.command", str(frame), "--count-file", f"{frame},offset=24576",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["count"] == COMMANDS and doc["count_from"]["value"] == COMMANDS and doc["count_from"]["offset"] == 24576
    assert main(["decode", str(desc), "Sample.command", str(frame), "--count-file", f"{frame},offset=24576"]) == 0
    assert capsys.readouterr().out.startswith(f"Sample.command: 24 bytes used, stride 24 (Sample.ByteStride), 420 "
                                              f"record(s) (the count buffer's 420 at offset 24576 of {frame})")


def test_a_count_the_bytes_do_not_hold_is_a_finding(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The count buffer says 420; the readback holds 1,000 bytes (41 whole commands): the 41 are decoded, and the
    rest is a finding, exit 1."""
    desc, _ = sample_buffers(tmp_path, 24, 1000)
    rc, rows, err = decode_csv(capsys, str(desc), "Sample.command", str(tmp_path / "args.bin"), "--count-file",
                               str(tmp_path / "count.bin"))
    assert rc == 1 and len(rows) == 41
    assert (f"the count buffer's 420 at offset 0 of {tmp_path / 'count.bin'}: 420 records, but "
            f"{tmp_path / 'args.bin'} holds 41 whole at stride 24 from offset 0: the other 379 are not in it") in err


@pytest.mark.parametrize(("value", "message"), [
    ("{count},offset=2", "offset 2 is not a multiple of 4 (CountBufferOffset is 4-byte aligned"),
    ("{count},offset=8", "holds 4 bytes: no UINT32 at offset 8"),
    ("{count},offset=x", "not an integer: 'x'"),
    ("-", "the count buffer is a file"),
])
def test_an_unusable_count_buffer_is_exit_2(value: str, message: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    desc, _ = sample_buffers(tmp_path, 24)
    assert main(["decode", str(desc), "Sample.command", str(tmp_path / "args.bin"), "--count-file",
                 value.format(count=tmp_path / "count.bin")]) == 2
    err = capsys.readouterr().err
    assert message in err and "--count-file" in err


def test_decode_capture_without_what_decodes_what_the_call_reads(readback: Path, tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """``decode --capture CAP`` printed the other form's usage; now it decodes every record class the call reads,
    in the order it reads them: one table after another, a JSON array, and csv where the call reads one class
    (ExecuteIndirect: its commands, with the call's own count)."""
    assert main(["decode", "--capture", str(readback)]) == 0
    heads = [line.split(":")[0] for line in capsys.readouterr().out.splitlines() if line and line[0] not in " i"]
    assert heads == ["D3D12_DISPATCH_LIST_INPUT", "PCS.primary", "PCS.secondary", "PCS.program_table"]
    assert main(["decode", "--capture", str(readback), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [(d["what"], d["count"]) for d in doc] == [("D3D12_DISPATCH_LIST_INPUT", 1), ("PCS.primary", 3),
                                                      ("PCS.secondary", 9), ("PCS.program_table", SLOTS)]
    assert main(["decode", "--capture", str(readback), "--format", "csv"]) == 2
    assert "csv holds one table, and the call reads D3D12_DISPATCH_LIST_INPUT, PCS.primary" in capsys.readouterr().err
    _, _, capture = capture_sample(tmp_path, capsys, 24)
    rc, rows, _ = decode_csv(capsys, "--capture", str(capture))
    assert rc == 0 and len(rows) == COMMANDS and rows[-1]["command"] == str(COMMANDS - 1)
    # a lone operand is WHAT where it names a record class, else DESC.json (naming the members)
    rc, rows, _ = decode_csv(capsys, "--capture", str(capture), "Sample.command")
    assert rc == 0 and len(rows) == COMMANDS
    desc = tmp_path / "named.json"
    named = json.loads(json.dumps(SAMPLE))
    named["command_signatures"]["Sample"]["ByteStride"] = 24
    named["command_signatures"]["Sample"]["pArgumentDescs"][0]["Name"] = "cbv"
    desc.write_text(json.dumps(named))
    rc, rows, _ = decode_csv(capsys, "--capture", str(capture), str(desc))
    assert rc == 0 and rows[0]["cbv"] == "0x10000000"
    assert main(["decode", "--capture", str(capture), "--count-file", str(tmp_path / "count.bin")]) == 2
    assert "--count-file: chooses records in a raw FILE" in capsys.readouterr().err


def test_preflight_names_the_list_stride_that_fits(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A dispatch input whose ProgramInputs.StrideInBytes is 16 over primary records written 32 apart: the rows at
    16 read the junk padding (a misaligned SecondaryRecords, NumSecondaryRecords 3452816845), which the pre-flight
    says, as warnings (exit 0), with the stride at which the list's 3 records fit and what sets the 16 (the dispatch
    input's bytes); exec then finds the errors those rows make."""
    desc, regions = write_readback(tmp_path)
    (tmp_path / "dispatch.bin").write_bytes(packers.pack_dispatch_list_inputs(
        {"NumProgramInputs": 3, "Flags": 0, "ProgramInputs.StartAddress": BASE["primary"],
         "ProgramInputs.StrideInBytes": 16}, count=1).tobytes())
    out = tmp_path / "capture.json"
    rc = main(["capture", str(desc), *regions, "--dispatch-list", "dispatch", "--program-table", "table", "--stride",
               str(TABLE_STRIDE), "--max-inputs", "3", "--root-arg", "0=0x50000", "-o", str(out)])
    text = capsys.readouterr().out
    assert rc == 0
    assert ("  warning: PCS.primary: list 0, primary 1 (VA 0x20010), read at stride 16 (list 0 "
            "D3D12_DISPATCH_LIST_INPUT::ProgramInputs.StrideInBytes): SecondaryRecords 0xcdcdcdcdcdcdcdcd is not "
            "8-byte aligned (NumSecondaryRecords 3452816845)") in text
    assert ("  warning: PCS.primary: every record of the run at 0x20000 is plausible at stride 32, where the bytes "
            "hold 3 (the call reads 3): they look written 32 bytes apart, not 16; the stride 16 comes from list 0's "
            "ProgramInputs.StrideInBytes in its dispatch input at 0x10000") in text
    assert "    the bytes: list 0's ProgramInputs.StrideInBytes in its dispatch input at 0x10000" in text
    assert execute(load_capture(out)).has_errors
