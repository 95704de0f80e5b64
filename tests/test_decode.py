"""``d3d12wl decode``: a readback's bytes as records (issue 13, item 1).

Fixtures are the spec's culling example ("GPU culling and work list emission"): the bundled readback files
``d3d12wl/examples/readback/*.bin`` hold the buffers of ``culling_capture.json`` byte for byte (the 16-byte hybrid
primary records, "Primary record layout"; the 24-byte SRV + DRAW secondary records, "Record byte layouts"; the
48-byte program-table slots, "Program table slot layout").  Every decoded value is checked against the packers'
own reader of the same bytes, and the JSON form is packed back into the same bytes.
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from d3d12wl import abi
from d3d12wl.cli import main
from d3d12wl.errors import LayoutError, PackError, ParseError
from d3d12wl.model import description
from d3d12wl.output import tables
from d3d12wl.records import decode, layout, packers

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling.json"
READBACK = EXAMPLES / "readback"


def objects() -> Any:
    return description.load(CULLING)


def run(argv: list[str], capsysbinary: pytest.CaptureFixture[bytes]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsysbinary.readouterr()
    return code, out.decode(), err.decode()


def test_secondary_records_as_the_spec_lays_them_out(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """"Record byte layouts": the SRV at 0, DRAW at 8, stride SecondaryRecordByteStride (24); VAs in hex."""
    code, out, _ = run(["decode", str(CULLING), "PCS.secondary", str(READBACK / "secondary_opaque.bin"),
                        "--va", "0x40000"], capsysbinary)
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == ("PCS.secondary: 24 bytes used, stride 24 (PCS.SecondaryRecordByteStride), 4 record(s) from "
                        f"offset 0 of {READBACK / 'secondary_opaque.bin'}")
    assert lines[1].split() == ["index", "va", "arg0_ShaderResourceView", "arg1_Draw.VertexCountPerInstance",
                                "arg1_Draw.InstanceCount", "arg1_Draw.StartVertexLocation",
                                "arg1_Draw.StartInstanceLocation"]
    rows = [line.split() for line in lines[2:]]
    assert rows == [["0", "0x40000", "0x100000", "36", "1", "0", "0"],
                    ["1", "0x40018", "0x101000", "24", "1", "36", "0"],
                    ["2", "0x40030", "0x103000", "60", "1", "198", "0"],
                    ["3", "0x40048", "0x104000", "240", "1", "342", "0"]]


def test_text_table_is_aligned_as_tables_aligns() -> None:
    """The header is the one table renderer's (tables.Columns); numbers right-aligned under it."""
    d = decode.view(decode.target(objects(), "PCS.primary"), (READBACK / "primary.bin").read_bytes())
    buf = io.BytesIO()
    decode.write(d, buf)
    lines = buf.getvalue().decode().splitlines()
    header, rows = lines[1], lines[2:]
    assert header == tables.render(("index", "ProgramTableIndex", "NumSecondaryRecords", "SecondaryRecords"),
                                   [], align=(">", ">", ">", ">"))[0]
    assert [r.split() for r in rows] == [["0", "0", "4", "0x40000"], ["1", "1", "2", "0x41800"],
                                         ["2", "2", "3", "0x43000"]]
    for row in rows:  # every cell ends where its header ends
        assert len(row) == len(header)


def test_program_table_slots_name_their_programs(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """"Program table slot layout": a 32-byte identifier, then the tint (four DWORDs, hex as dump shows them);
    the identifier is matched to the description's programs ('-' for an empty slot)."""
    code, out, _ = run(["decode", str(CULLING), "PCS.program_table", str(READBACK / "program_table.bin"),
                        "--format", "csv"], capsysbinary)
    assert code == 0
    rows = list(csv.DictReader(io.StringIO(out)))
    assert len(rows) == 64  # kProgramTableSlotCount slots of 48 bytes: 3072 bytes
    assert [r["program"] for r in rows[:4]] == ["Opaque", "Transparent", "Shadow", "-"]
    assert rows[0]["ProgramIdentifier"] == objects().programs["Opaque"].Identifier.hex()
    assert [rows[1][f"arg2_InlineRootParameter[{i}]"] for i in range(4)] == [
        "0x3f000000", "0x3f333333", "0x3f800000", "0x3f000000"]  # (0.5, 0.7, 1, 0.5)


def test_unknown_identifier_is_shown_as_such() -> None:
    data = bytearray((READBACK / "program_table.bin").read_bytes())
    data[5] ^= 0xFF
    d = decode.view(decode.target(objects(), "PCS.program_table"), bytes(data), count=2)
    buf = io.BytesIO()
    decode.write(d, buf, "json")
    records = json.loads(buf.getvalue())["records"]
    assert [r["program"] for r in records] == ["?", "Transparent"]


@pytest.mark.parametrize("name", ["secondary_opaque.bin", "secondary_transparent.bin", "secondary_shadow.bin"])
def test_json_packs_back_into_the_same_bytes(name: str) -> None:
    """The JSON records are the packers' columns: packing them gives the bytes back."""
    rec = layout.pcs_layout(objects().program_command_signatures["PCS"])
    data = (READBACK / name).read_bytes()
    buf = io.BytesIO()
    decode.write(decode.view(decode.target(objects(), "PCS.secondary"), data), buf, "json")
    doc = json.loads(buf.getvalue())
    assert doc["partial"] is None and doc["count"] == len(data) // 24 and doc["stride"] == 24
    columns = {k: np.array([int(r[k], 0) if isinstance(r[k], str) else r[k] for r in doc["records"]])
               for k in doc["records"][0] if k != "index"}
    columns["arg0_ShaderResourceView"] = columns["arg0_ShaderResourceView"].astype(np.uint64)
    assert packers.pack_secondary_records(rec, columns).tobytes() == data
    reader = packers.read_secondary_records(rec, data)
    assert [r["arg1_Draw.StartVertexLocation"] for r in doc["records"]] == reader["arg1_Draw"][
        "StartVertexLocation"].tolist()


def test_default_stride_is_the_declared_one() -> None:
    """Stride defaults to SecondaryRecordByteStride (32 here), not the 24-byte minimum."""
    doc = json.loads(CULLING.read_text())
    doc["program_command_signatures"]["PCS"]["SecondaryRecordByteStride"] = 32
    objs = description.load(doc)
    rec = layout.pcs_layout(objs.program_command_signatures["PCS"])
    data = packers.pack_secondary_records(rec, {"arg0_ShaderResourceView": np.array([8, 16, 24], dtype=np.uint64),
                                                "arg1_Draw": np.zeros(3 * 16, dtype=np.uint8).reshape(3, 16)},
                                          stride=32)
    d = decode.view(decode.target(objs, "PCS.secondary"), data)
    assert (d.stride, d.count, d.partial) == (32, 3, None)
    assert d.records["arg0_ShaderResourceView"].tolist() == [8, 16, 24]
    # the last record needs only the 24 bytes it uses, not its trailing padding
    d = decode.view(decode.target(objs, "PCS.secondary"), data[:2 * 32 + 24])
    assert (d.count, d.partial) == (3, None)


def test_trailing_partial_record_is_reported(capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path) -> None:
    data = (READBACK / "secondary_opaque.bin").read_bytes() + bytes(10)
    path = tmp_path / "secondary.bin"
    path.write_bytes(data)
    code, out, _ = run(["decode", str(CULLING), "PCS.secondary", str(path), "--va", "0x40000"], capsysbinary)
    assert code == 1
    assert out.splitlines()[-1] == ("finding: trailing partial record 4 at offset 96 (VA 0x40060): 10 of 24 bytes; "
                                    "it ends in arg1_Draw.VertexCountPerInstance (offset 8, 4 bytes)")
    code, out, err = run(["decode", str(CULLING), "PCS.secondary", str(path), "--format", "csv"], capsysbinary)
    assert code == 1 and len(out.splitlines()) == 5 and "trailing partial record 4" in err
    code, out, _ = run(["decode", str(CULLING), "PCS.secondary", str(path), "--format", "json"], capsysbinary)
    partial = json.loads(out)["partial"]
    assert code == 1 and (partial["index"], partial["offset"], partial["available"]) == (4, 96, 10)


def test_count_the_bytes_do_not_hold_is_unusable(capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    code, _, err = run(["decode", str(CULLING), "PCS.primary", str(READBACK / "primary.bin"), "--count", "4"],
                       capsysbinary)
    assert code == 2 and "--count" in err and "primary.bin" in err and "(3 whole records)" in err
    d = decode.view(decode.target(objects(), "PCS.primary"), (READBACK / "primary.bin").read_bytes(), count=2,
                    offset=16)
    assert d.records["ProgramTableIndex"].tolist() == [1, 2] and d.partial is None


def test_stride_is_checked_as_the_spec_checks_it() -> None:
    """Rule 25(e) / "Stride derivation": at least the minimum and a multiple of 8; 0 is the broadcast form."""
    t = decode.target(objects(), "PCS.secondary")
    with pytest.raises(PackError, match="below the minimum 24"):
        decode.view(t, bytes(48), stride=16)
    with pytest.raises(PackError, match="multiple of 8"):
        decode.view(t, bytes(64), stride=28)
    d = decode.view(t, bytes(48), stride=0)
    assert d.count == 1 and d.partial is None
    with pytest.raises(LayoutError, match="below sizeof"):
        decode.view(decode.target(objects(), "D3D12_DRAW_ARGUMENTS"), bytes(32), stride=8)


def test_structs_with_enums_by_name(capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path) -> None:
    """A declared struct: D3D12_DISPATCH_LIST_INPUT1, Flags by member name, NextDispatchList in hex."""
    flags = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    data = packers.pack_dispatch_list_inputs({
        "NumProgramInputs": np.array([3, 0], dtype=np.uint32), "Flags": np.array([flags, 0], dtype=np.uint32),
        "SignatureIndex": 1, "ProgramInputs.StartAddress": np.array([0x20000, 0], dtype=np.uint64),
        "ProgramInputs.StrideInBytes": 16, "NextDispatchList": np.array([0x10028, 0], dtype=np.uint64)}, tier=2)
    path = tmp_path / "inputs.bin"
    path.write_bytes(data.tobytes())
    code, out, _ = run(["decode", str(CULLING), "D3D12_DISPATCH_LIST_INPUT1", str(path), "--format", "csv"],
                       capsysbinary)
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and len(rows) == 2
    assert rows[0]["Flags"] == "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION" and rows[1]["Flags"] == "NONE"
    assert rows[0]["NextDispatchList"] == "0x10028" and rows[0]["ProgramInputs.StartAddress"] == "0x20000"
    assert rows[0]["NumProgramInputs"] == "3" and rows[1]["ProgramInputs.StrideInBytes"] == "16"
    t = decode.target(objects(), "D3D12_DRAW_INDEXED_ARGUMENTS")
    assert (t.size, t.default_stride) == (abi.sizeof("D3D12_DRAW_INDEXED_ARGUMENTS"),) * 2
    assert [c.name for c in t.columns][-1] == "StartInstanceLocation"
    neg = decode.view(t, np.array([3, 1, 0, -5, 0], dtype="<i4").view(np.uint8))
    assert neg.records["BaseVertexLocation"].tolist() == [-5]
    buf = io.BytesIO()
    decode.write(neg, buf, "csv")
    assert buf.getvalue().decode().splitlines()[1] == "0,3,1,0,-5,0"


def test_execute_indirect_command_takes_byte_stride() -> None:
    """IndirectDrawing.md: the argument buffer at ByteStride (36 for PlainMultiDrawIndirect, 20 bytes used)."""
    objs = description.load(EXAMPLES / "execute_indirect.json")
    t = decode.target(objs, "PlainMultiDrawIndirect.command")
    assert (t.size, t.default_stride, t.stride_from) == (20, 36, "PlainMultiDrawIndirect.ByteStride")
    d = decode.view(t, bytes(36 + 20))
    assert d.count == 2 and d.partial is None


def test_what_names_records_programs_and_structs() -> None:
    objs = objects()
    assert decode.target(objs, "Opaque.program_table").record_layout == layout.program_table_layout(
        objs.programs["Opaque"])
    with pytest.raises(LayoutError, match=r"PCS\.primary, PCS\.secondary, PCS\.program_table"):
        decode.target(objs, "PCS.tertiary")


def test_chunks_stream_the_same_output() -> None:
    """Output is formatted a chunk at a time; the chunk size does not change a byte (text widths are measured over
    every record first)."""
    rec = layout.pcs_layout(objects().program_command_signatures["PCS"])
    n = 1000
    data = packers.pack_secondary_records(rec, {
        "arg0_ShaderResourceView": (0x100000 + 0x1000 * np.arange(n)).astype(np.uint64),
        "arg1_Draw.VertexCountPerInstance": np.arange(n, dtype=np.uint32) ** 2,
        "arg1_Draw.InstanceCount": 1, "arg1_Draw.StartVertexLocation": 0, "arg1_Draw.StartInstanceLocation": 0})
    d = decode.view(decode.target(objects(), "PCS.secondary"), data, va=0xFFF0)
    for fmt in ("text", "csv", "json"):
        outs = []
        for chunk in (7, 1 << 16):
            buf = io.BytesIO()
            decode.write(d, buf, fmt, chunk=chunk)  # type: ignore[arg-type]
            outs.append(buf.getvalue())
        assert outs[0] == outs[1]
    for fmt in ("npz", "parquet"):  # (a row group a chunk, and a zip's times: the same table, not the same bytes)
        tables = []
        for chunk in (7, 1 << 16):
            buf = io.BytesIO()
            decode.write(d, buf, fmt, chunk=chunk)  # type: ignore[arg-type]
            tables.append(_typed(fmt, buf.getvalue()))
        assert tables[0] == tables[1]
    buf = io.BytesIO()
    decode.write(d, buf, "json", chunk=7)
    records = json.loads(buf.getvalue())["records"]
    assert len(records) == n and records[999]["arg1_Draw.VertexCountPerInstance"] == 999 ** 2
    assert records[999]["va"] == f"0x{0xFFF0 + 999 * 24:x}"


def test_stdin(tmp_path: Path) -> None:
    data = (READBACK / "primary.bin").read_bytes()
    result = subprocess.run([sys.executable, "-m", "d3d12wl", "decode", str(CULLING), "PCS.primary", "-",
                             "--format", "csv"], input=data, capture_output=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().splitlines()[1:] == ["0,0,4,0x40000", "1,1,2,0x41800", "2,2,3,0x43000"]
    result = subprocess.run([sys.executable, "-m", "d3d12wl", "decode", "-", "PCS.primary",
                             str(READBACK / "primary.bin")], input=CULLING.read_bytes(), capture_output=True,
                            cwd=ROOT, timeout=60)
    assert result.returncode == 0 and b"3 record(s)" in result.stdout


def test_empty_and_short_files() -> None:
    t = decode.target(objects(), "PCS.primary")
    d = decode.view(t, b"")
    assert d.count == 0 and d.partial is None
    d = decode.view(t, bytes(5))
    assert d.count == 0 and d.partial is not None and d.partial.available == 5
    with pytest.raises(ParseError, match="past the end"):
        decode.view(t, bytes(5), offset=6)


def test_readback_example_files_are_current() -> None:
    """The bundled readback .bin files are the bundled culling capture's regions, byte for byte."""
    result = subprocess.run([sys.executable, str(ROOT / "tools" / "make_readback_example.py"), "--check"],
                            capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("distinct", [3, 20000])
def test_floats_by_value_and_json_without_nan(distinct: int) -> None:
    """Float members (a static sampler's MipLODBias, MinLOD, MaxLOD) print as numpy's shortest repr; JSON writes a
    NaN or an infinity as null (JSON has neither), whether a few or many distinct values are shown."""
    name = "D3D12_STATIC_SAMPLER_DESC"
    n = distinct
    data = np.zeros(n * abi.sizeof(name), dtype=np.uint8)
    arr = np.ndarray((n,), dtype=decode.target(objects(), name).dtype, buffer=data)
    arr["MaxLOD"] = np.arange(n, dtype=np.float32) / 4
    arr["MaxLOD"][0] = np.inf
    arr["MinLOD"][1] = np.nan
    d = decode.view(decode.target(objects(), name), data)
    buf = io.BytesIO()
    decode.write(d, buf, "json")
    records = json.loads(buf.getvalue())["records"]
    assert records[0]["MaxLOD"] is None and records[1]["MinLOD"] is None and records[2]["MaxLOD"] == 0.5
    buf = io.BytesIO()
    decode.write(d, buf, "csv")
    rows = list(csv.DictReader(io.StringIO(buf.getvalue().decode())))
    assert rows[0]["MaxLOD"] == "inf" and rows[1]["MinLOD"] == "nan" and rows[2]["MaxLOD"] == "0.5"


def test_records_are_the_packers_readers_view() -> None:
    """Where the bytes hold every stride, decode's array is packers.read_records' (same dtype, no copy); a last
    record without its trailing padding still decodes (a strided view)."""
    data = (READBACK / "secondary_opaque.bin").read_bytes()
    rec = layout.pcs_layout(objects().program_command_signatures["PCS"])
    d = decode.view(decode.target(objects(), "PCS.secondary"), data)
    assert d.records.dtype == packers.read_secondary_records(rec, data).dtype
    assert np.shares_memory(d.records, d.buffer)
    s = decode.view(decode.target(objects(), "D3D12_DISPATCH_LIST_INPUT"),
                    (READBACK / "dispatch_input.bin").read_bytes())
    assert s.records.dtype == packers.read_dispatch_list_inputs((READBACK / "dispatch_input.bin").read_bytes()).dtype
    assert int(s.records["NumProgramInputs"][0]) == 3


def _renamed_programs(tmp_path: Path, names: dict[str, str]) -> Path:
    doc = json.loads(CULLING.read_text())
    doc["programs"] = {names.get(k, k): v for k, v in doc["programs"].items()}
    path = tmp_path / "renamed.json"
    path.write_text(json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return path


def test_program_names_are_escaped_per_format(capsysbinary: pytest.CaptureFixture[bytes], tmp_path: Path) -> None:
    """A program name with a quote, a backslash, a comma or non-ASCII characters is written whole and escaped as
    the format needs (JSON string escapes, CSV quoting); its UTF-8 bytes are measured, not its characters."""
    names = {"Opaque": 'Op"a\\que', "Transparent": "Trans,parent", "Shadow": "Ω" * 14}
    desc = _renamed_programs(tmp_path, names)
    argv = ["decode", str(desc), "PCS.program_table", str(READBACK / "program_table.bin"), "--count", "4"]
    code, out, _ = run([*argv, "--format", "json"], capsysbinary)
    assert code == 0
    assert [r["program"] for r in json.loads(out)["records"]] == [*names.values(), "-"]
    code, out, _ = run([*argv, "--format", "csv"], capsysbinary)
    assert code == 0
    assert [r["program"] for r in csv.DictReader(io.StringIO(out))] == [*names.values(), "-"]
    code, out, _ = run(argv, capsysbinary)
    assert code == 0 and "Ω" * 14 in out and 'Op"a\\que' in out
    lines = out.splitlines()[1:]  # the text table stays aligned by characters, whatever a name's UTF-8 bytes
    assert len({len(line) for line in lines}) == 1
    assert len({line.index("0x3f") for line in lines[1:3]}) == 1


@pytest.mark.parametrize(("extra", "where"), [
    (["--va", "0xffffffffffffffff"], "--va"),
    (["--va", "-1"], "--va"),
    (["--va", str(1 << 64)], "--va"),
    (["--stride", str(1 << 64)], "--stride"),
    (["--stride", str(1 << 63)], "--stride"),
    (["--stride", "0", "--count", str((1 << 63) - 1)], "--count"),
    (["--stride", "0", "--count", str(3 * 10 ** 8)], "--count"),
])
def test_out_of_range_va_stride_count_are_usage_errors(extra: list[str], where: str,
                                                        capsysbinary: pytest.CaptureFixture[bytes]) -> None:
    """A VA, stride or count past the 64-bit VA space (or a broadcast count beyond any dispatch) is refused before
    any output, with exit 2 naming the option (not a crash with exit 3, nor a minutes-long run)."""
    code, out, err = run(["decode", str(CULLING), "PCS.secondary", str(READBACK / "secondary_opaque.bin"), *extra],
                         capsysbinary)
    assert code == 2, err
    assert out == "" and where in err


def test_many_distinct_floats_stay_aligned() -> None:
    """A float column with more distinct values than are tabled is formatted chunk by chunk in the width measured
    up front: every text row is as wide as the header (the columns after it stay under their headers)."""
    name = "D3D12_STATIC_SAMPLER_DESC"
    n = 20000
    data = np.zeros(n * abi.sizeof(name), dtype=np.uint8)
    arr = np.ndarray((n,), dtype=decode.target(objects(), name).dtype, buffer=data)
    arr["MaxLOD"] = np.arange(n, dtype=np.float32) / 4
    arr["RegisterSpace"] = 7
    buf = io.BytesIO()
    decode.write(decode.view(decode.target(objects(), name), data), buf)
    lines = buf.getvalue().decode().splitlines()
    header, rows = lines[1], lines[2:]
    assert len(rows) == n
    end = header.index("MaxLOD") + len("MaxLOD")
    assert len({len(r) for r in rows}) == 1
    assert all(r[:end].endswith(str(v)) for r, v in zip(rows[::997], arr["MaxLOD"][::997].tolist(), strict=True))


def test_identifiers_are_matched_by_one_lookup() -> None:
    """packers.match_identifiers (decode's program column and capture's slots both use it): every 32-byte slot
    looked up among the sorted identifiers, chunk by chunk; exact on all 32 bytes (trailing NULs included), the
    last of two equal identifiers wins, all-zero is EMPTY_IDENTIFIER unless a program has it."""
    rng = np.random.default_rng(7)
    ids = [rng.integers(0, 256, 32, dtype=np.uint8).tobytes() for _ in range(50)]
    ids.append(b"A" + bytes(31))  # a prefix of the next one but for its trailing NULs
    ids.append(b"A" + bytes(30) + b"\x01")
    n, stride = 1000, 40
    pick = rng.integers(-2, len(ids), n)
    data = np.zeros((n, stride), dtype=np.uint8)
    for i, k in enumerate(pick):
        if k >= 0:
            data[i, :32] = np.frombuffer(ids[k], dtype=np.uint8)
        elif k == -1:
            data[i, :32] = 0xEE
    want = pick.copy()
    for chunk in (1, 7, 1 << 20):
        got = packers.match_identifiers(data.tobytes(), ids, count=n, stride=stride, chunk=chunk)
        assert got.tolist() == want.tolist()
    assert packers.match_identifiers(bytes(32), [ids[0], ids[0]], count=3, stride=0).tolist() == [-2] * 3
    assert packers.match_identifiers(ids[0], [ids[0], ids[0]], count=1, stride=0).tolist() == [1]
    assert packers.match_identifiers(bytes(32), [bytes(32)], count=1, stride=32).tolist() == [0]
    assert packers.match_identifiers(b"", ids, count=0, stride=32).tolist() == []


def test_records_are_built_once_and_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """view() does not build the structured array (write reads the buffer itself); Decoded.records builds it once."""
    calls: list[int] = []
    real = decode._records

    def counted(*args: Any) -> np.ndarray:
        calls.append(1)
        return real(*args)

    monkeypatch.setattr(decode, "_records", counted)
    d = decode.view(decode.target(objects(), "PCS.secondary"), (READBACK / "secondary_opaque.bin").read_bytes())
    decode.write(d, io.BytesIO(), "json")
    assert calls == []
    assert d.records is d.records and calls == [1]


def test_enum_text_is_abi_s() -> None:
    """One enum/flag text (abi.enum_text), used by decode: a member's short name, a flag value as its single-bit
    members joined by '|' and unnamed bits in hex, a value that is no member as the number."""
    e = "D3D12_DISPATCH_LIST_FLAGS1"
    assert abi.enum_text(e, 0) == "NONE"
    assert abi.enum_text(e, 2) == "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION"
    assert abi.enum_text(e, 1 | 8 | 0x30) == "ALLOW_OUT_OF_ORDER_GRAPHICS|END_WITH_MEMORY_FLUSH|0x30"
    assert abi.enum_text("D3D12_INDIRECT_ARGUMENT_TYPE", 0x7FFF) == str(0x7FFF)
    assert not hasattr(decode, "_enum_text")


def test_an_enum_column_of_many_values_says_it_is_numbers() -> None:
    """An enum column with more distinct values than are named one by one falls back to numbers, and the JSON
    "fields" entry says so (kind "dec", no enum), as its values (JSON numbers) are."""
    name = "D3D12_DISPATCH_LIST_INPUT1"
    n = 20000
    data = np.zeros(n * abi.sizeof(name), dtype=np.uint8)
    arr = np.ndarray((n,), dtype=decode.target(objects(), name).dtype, buffer=data)
    arr["Flags"] = np.arange(n)
    buf = io.BytesIO()
    decode.write(decode.view(decode.target(objects(), name), data), buf, "json")
    doc = json.loads(buf.getvalue())
    field = next(f for f in doc["fields"] if f["name"] == "Flags")
    assert field["kind"] == "dec" and "enum" not in field
    assert [r["Flags"] for r in doc["records"][:3]] == [0, 1, 2]


def _typed(fmt: str, data: bytes) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """A decode npz or Parquet read back as a user does (numpy.load, pyarrow): its columns, names as names, and
    what it says about itself."""
    if fmt == "npz":
        with np.load(io.BytesIO(data)) as z:
            r = z["records"]
            cols: dict[str, list[Any]] = {}
            for name in r.dtype.names or ():
                values = r[name].tolist()
                if f"names.{name}" in z:
                    values = [str(z[f"names.{name}"][v]) for v in values]
                cols[name] = values
            return cols, json.loads(str(z["meta"]))
    pq = pytest.importorskip("pyarrow.parquet")
    t = pq.read_table(io.BytesIO(data))
    return t.to_pydict(), json.loads(t.schema.metadata[b"d3d12wl"])


@pytest.mark.parametrize("fmt", ["npz", "parquet"])
@pytest.mark.parametrize(("what", "file", "extra"), [
    ("PCS.secondary", "secondary_opaque.bin", ["--va", "0x40000"]),
    ("PCS.program_table", "program_table.bin", []),
    ("D3D12_DISPATCH_LIST_INPUT", "dispatch_input.bin", []),
])
def test_npz_and_parquet_hold_the_json_s_records_with_the_execution_table_s_encodings(
        capsysbinary: pytest.CaptureFixture[bytes], fmt: str, what: str, file: str, extra: list[str]) -> None:
    """Issue 38, item 5: "decode writes npz and Parquet with the execution table's encodings": every record of the
    bundled readback, decoded to npz and to Parquet through the output stage's encoders, is the JSON's record
    (the oracle): VAs and handles as unsigned integers (JSON's hex strings), enum members and program names by
    name, the identifier as its hex digits, an array member's elements as columns of their own (CSV's); and each
    says first what the JSON says first."""
    argv = ["decode", str(CULLING), what, str(READBACK / file), *extra]
    assert main([*argv, "--format", "json"]) == 0
    doc = json.loads(capsysbinary.readouterr().out)
    assert main([*argv, "--format", fmt]) == 0
    cols, meta = _typed(fmt, capsysbinary.readouterr().out)
    assert meta == {k: v for k, v in doc.items() if k != "records"}
    rows = [dict(zip(cols, values, strict=True)) for values in zip(*cols.values(), strict=True)]
    assert len(rows) == len(doc["records"]) > 0
    kinds = {f["name"]: f["kind"] for f in meta["fields"]}
    for row, record in zip(rows, doc["records"], strict=True):
        flat = {f"{k}[{i}]": x for k, v in record.items() if isinstance(v, list) for i, x in enumerate(v)}
        for name, value in [*((k, v) for k, v in record.items() if not isinstance(v, list)), *flat.items()]:
            want = int(value, 16) if kinds.get(name) == "hex" or name == "va" else value
            assert row[name] == want, (name, row[name], value)
