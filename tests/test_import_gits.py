"""``d3d12wl import gits``: GITS's ExecuteIndirect pre- and post-patch dumps (shaped by tests/tool_shapes.py from
``DirectX/player/executeIndirectDump.cpp``, docs/gits.md) read into the tables ``d3d12wl patch-list`` writes, and the
verdict per address, for the pair alone (GITS's lookups) and for a VA map (issue 40, item 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tool_shapes import gits_dump, range_lookup

from d3d12wl.capture.file import load_capture
from d3d12wl.capture.maps import VaMap, VaRange
from d3d12wl.cli import main
from d3d12wl.executor.references import patch_list
from d3d12wl.importers import ImportInputError
from d3d12wl.importers.gits import VERDICTS, infer_signature, load_signature, pair_dumps, read_gits_dump
from d3d12wl.model import description

CAPTURED = range_lookup([(12, 0x1000000, 0x100000), (13, 0x2000000, 0x100000)])
REPLAYED = range_lookup([(12, 0x7F0001000000, 0x100000), (13, 0x7F0002000000, 0x100000)])
MOVE = 0x7F0000000000
VA_MAP = VaMap([VaRange(0x1000000, 0x100000, 0x7F0001000000), VaRange(0x2000000, 0x100000, 0x7F0002000000)])
DESCRIPTION = {"command_signatures": {"SIG": {"ByteStride": 96, "pArgumentDescs": [
    {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1, "Num32BitValuesToSet": 1}},
    {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 2, "Num32BitValuesToSet": 1}},
    {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 0}},
    {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 1}}, {"Type": "INDEX_BUFFER_VIEW"},
    {"Type": "DRAW_INDEXED"}], "pRootSignature": "RS"}},
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "CBV"}, {"ParameterType": "32BIT_CONSTANTS", "Constants": {"Num32BitValues": 1}},
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"Num32BitValues": 1, "ShaderRegister": 1}}]}}}


def command(k: int, move: int = 0, *, null_vb: bool = True, base_vertex: int = -3) -> list[tuple[str, list[int]]]:
    return [("CONSTANT", [100 + k, 7]),
            ("VERTEX_BUFFER_VIEW", [move + 0x1000000 + 0x100 * k, 4096, 16]),
            ("VERTEX_BUFFER_VIEW", [0, 0, 0] if null_vb else [move + 0x1010000, 512, 16]),
            ("INDEX_BUFFER_VIEW", [move + 0x2000000 + 0x40 * k, 1024, 57]),
            ("DRAW_INDEXED", [36, 1, 6 * k, base_vertex, 0])]


def write(tmp_path: Path, phase: str, commands: Any, lookup: Any, key: int = 42, newline: str = "\r\n") -> Path:
    path = tmp_path / f"call_{key}_execute_indirect_{phase}_patch.txt"
    path.write_text(gits_dump(commands, lookup, newline=newline), newline="")
    return path


@pytest.fixture
def signature_file(tmp_path: Path) -> Path:
    path = tmp_path / "desc.json"
    path.write_text(json.dumps(DESCRIPTION))
    return path


def test_a_dump_reads_into_records_at_the_signatures_stride(tmp_path: Path, signature_file: Path) -> None:
    """With the command signature given, the two 1-DWORD CONSTANT arguments are two (the dump alone prints one run
    of two lines) and the records are at its ByteStride 96."""
    path = write(tmp_path, "pre", [command(k) for k in range(3)], CAPTURED)
    dump = read_gits_dump(path, load_signature(signature_file))
    assert dump.count == 3 and dump.records.dtype.itemsize == 96 and not dump.inferred
    assert dump.records["arg0_Constant"].tolist() == [100, 101, 102] and dump.records["arg1_Constant"].tolist() == \
        [7, 7, 7]
    assert dump.records["arg5_DrawIndexed"]["BaseVertexLocation"].tolist() == [-3, -3, -3]
    assert dump.records["arg4_IndexBuffer"]["Format"].tolist() == [57] * 3
    assert [f.name for f in dump.va_fields] == ["arg2_VertexBuffer.BufferLocation", "arg3_VertexBuffer.BufferLocation",
                                                "arg4_IndexBuffer.BufferLocation"]
    assert dump.status.tolist() == [[1, 0, 1]] * 3 and dump.keys[:, 0].tolist() == [12] * 3
    assert dump.offsets[:, 0].tolist() == [0, 0x100, 0x200]


def test_without_a_signature_it_is_read_from_the_lines(tmp_path: Path) -> None:
    dump = read_gits_dump(write(tmp_path, "pre", [command(k) for k in range(2)], CAPTURED))
    assert dump.inferred and [f.kind for f in dump.findings] == ["signature-inferred"]
    assert [a.type_name for a in dump.signature.pArgumentDescs] == ["CONSTANT", "VERTEX_BUFFER_VIEW",
                                                                    "VERTEX_BUFFER_VIEW", "INDEX_BUFFER_VIEW",
                                                                    "DRAW_INDEXED"]
    assert dump.signature.pArgumentDescs[0].Constant.Num32BitValuesToSet == 2 and dump.signature.ByteStride == 76
    assert infer_signature(["DISPATCH_RAYS", *[f"RAYS_{x}" for x in ("RAYGEN", "MISS", "HIT", "CALLABLE", "WIDTH",
                                                                        "HEIGHT", "DEPTH")]], "R").pArgumentDescs[
        0].type_name == "DISPATCH_RAYS"


def test_the_table_is_the_one_patch_list_writes_for_the_same_commands(tmp_path: Path, signature_file: Path) -> None:
    """The same commands in a capture's argument buffer: ``d3d12wl patch-list``'s rows of the commands (field,
    value, command index) are the dump's, every column spelled alike."""
    signature = load_signature(signature_file)
    commands = [command(k, null_vb=k % 2 == 0) for k in range(4)]
    dump = read_gits_dump(write(tmp_path, "pre", commands, CAPTURED), signature)
    doc = {"version": 1, "device": {"Tier": "TIER_NOT_SUPPORTED"}, **DESCRIPTION,
           "memory": [{"name": "args", "base": "0x100000", "hex": dump.records.tobytes().hex()}],
           "state": {"graphics_root_signature": "RS"},
           "call": {"ExecuteIndirect": {"pCommandSignature": "SIG", "MaxCommandCount": 4,
                                        "pArgumentBuffer": "0x100000"}}}
    capture = load_capture(doc)
    listed = [(r["record_id"], r["field"], r["value"], r["command_index"], r["kind"]) for r in patch_list(
        capture).rows() if r["command_index"] is not None]
    ours = [(r["record_id"], r["field"], r["value"], r["command_index"], r["kind"]) for r in dump.table().rows()]
    assert ours == listed and len(ours) == 12
    assert {r["target"] for r in dump.table().rows()} == {"O12", "O13", None}


def test_the_verdict_of_every_address_by_gits_lookups(tmp_path: Path) -> None:
    pre = read_gits_dump(write(tmp_path, "pre", [command(k) for k in range(4)], CAPTURED))
    replayed = [command(k, MOVE) for k in range(4)]
    replayed[1] = command(1, 0)  # left as captured: NOT FOUND in the replay
    replayed[2][3] = ("INDEX_BUFFER_VIEW", [MOVE + 0x2000000 + 0x1000, 1024, 57])  # patched to another offset
    replayed[3][2] = ("VERTEX_BUFFER_VIEW", [MOVE + 0x1010000, 0, 0])  # a NULL view patched into an address
    post = read_gits_dump(write(tmp_path, "post", replayed, REPLAYED))
    pair = pair_dumps(pre, post)
    rows = [VERDICTS[v] for v in pair.verdict.tolist()]
    assert rows == ["patched", "null", "patched", "unpatched", "null", "unpatched", "patched", "null",
                    "patched-elsewhere", "patched", "null-patched", "patched"]
    assert pair.counts["patched"] == 5 and pair.counts["null"] == 3
    assert sorted({f.kind for f in pair.errors}) == ["null-patched", "patched-elsewhere", "unpatched"]
    assert next(f for f in pair.findings if f.kind == "unpatched").message == (
        "arg1_VertexBuffer.BufferLocation 0x1000100 O12+256 -> 0x1000100 NOT FOUND (unpatched, by GITS's lookup)")


def test_the_verdict_for_a_va_map(tmp_path: Path) -> None:
    pre = read_gits_dump(write(tmp_path, "pre", [command(k, null_vb=False) for k in range(2)], CAPTURED))
    replayed = [command(k, MOVE, null_vb=False) for k in range(2)]
    replayed[1][1] = ("VERTEX_BUFFER_VIEW", [0x1000100, 4096, 16])
    post = read_gits_dump(write(tmp_path, "post", replayed, REPLAYED))
    pair = pair_dumps(pre, post, VA_MAP)
    assert [VERDICTS[v] for v in pair.verdict.tolist()] == ["patched"] * 3 + ["unpatched", "patched", "patched"]
    unmapped = VaMap([VaRange(0x2000000, 0x100000, 0x7F0002000000)])
    assert pair_dumps(pre, post, unmapped).counts["points-nowhere"] == 4  # the VBs: in no range


def test_counts_and_non_address_arguments_that_patching_changed(tmp_path: Path) -> None:
    pre = read_gits_dump(write(tmp_path, "pre", [command(k) for k in range(3)], CAPTURED))
    replayed = [command(k, MOVE) for k in range(2)]
    replayed[0][4] = ("DRAW_INDEXED", [36, 2, 0, -3, 0])
    post = read_gits_dump(write(tmp_path, "post", replayed, REPLAYED))
    pair = pair_dumps(pre, post)
    kinds = [f.kind for f in pair.errors]
    assert kinds[0] == "count-changed" and "argument-changed" in kinds
    assert pair.counts["not-in-post"] == 3
    changed = next(f for f in pair.findings if f.kind == "argument-changed")
    assert changed.command_index == 0 and changed.message.startswith("arg4_DrawIndexed.InstanceCount differs")


def test_a_dispatch_rays_dump(tmp_path: Path) -> None:
    values = [0x1000000, 64, 0x1000100, 128, 32, 0x1000200, 256, 64, 0, 0, 0, 1920, 1080, 1]
    dump = read_gits_dump(write(tmp_path, "pre", [[("DISPATCH_RAYS", values)]] * 2, CAPTURED))
    assert [f.name for f in dump.va_fields][0] == "arg0_DispatchRays.RayGenerationShaderRecord.StartAddress"
    assert dump.records["arg0_DispatchRays"]["Width"].tolist() == [1920, 1920]
    assert dump.status.tolist() == [[1, 1, 1, 0]] * 2


def test_an_empty_dump_is_a_call_of_no_commands(tmp_path: Path) -> None:
    path = tmp_path / "call_9_execute_indirect_pre_patch.txt"
    path.write_text("")
    assert read_gits_dump(path).count == 0


@pytest.mark.parametrize(("text", "line", "message"), [
    ("ARGUMENT 1\n  DRAW 1, 2, 3, 4\n  BOGUS 1\n", 3, "not a line GITS's ExecuteIndirect dump writes"),
    ("  DRAW 1, 2, 3, 4\n", 1, "a dump starts with ARGUMENT 1"),
    ("ARGUMENT 1\n  DRAW 1, 2, 3\n", 2, "GITS prints 4 numbers on this line; it has 3"),
    ("ARGUMENT 1\n  DRAW 1, 2, 3, 4\nARGUMENT 3\n  DRAW 1, 2, 3, 4\n", 3, "command 2 is ARGUMENT 2"),
    ("ARGUMENT 1\n  DRAW 1, -2, 3, 4\n", 2, "a negative number where GITS prints an unsigned one"),
    ("ARGUMENT 1\n  DRAW 1, 2, 3, 123456789012345678901234\n", 2, "a number of 24 digits"),
    ("ARGUMENT 1\n  CONSTANT BUFFER VIEW {0x00000000010000zz}\n", 2, "an address GITS writes"),
    ("ARGUMENT 1\n  CONSTANT BUFFER VIEW {0x0000000001000000}\n", 2, "a lookup for every address but 0"),
    ("ARGUMENT 1\n  DRAW 1, 2, 3, 4\nARGUMENT 2\n  DISPATCH 1, 2, 3\n", 4, "prints DRAW here"),
    ("ARGUMENT 1\n  DRAW 1, 2, 3, 4\nARGUMENT 2\n", 3, "prints 2 lines"),
])
def test_a_line_gits_would_not_write_is_named(tmp_path: Path, text: str, line: int, message: str) -> None:
    path = tmp_path / "call_5_execute_indirect_pre_patch.txt"
    path.write_text(text)
    with pytest.raises(ImportInputError, match=message) as info:
        read_gits_dump(path)
    assert info.value.where == f"{path}:{line}"


def test_a_signature_the_lines_do_not_fit(tmp_path: Path, signature_file: Path) -> None:
    path = write(tmp_path, "pre", [[("DRAW", [3, 1, 0, 0])]], CAPTURED)
    with pytest.raises(ImportInputError, match="a command of SIG prints 7 lines"):
        read_gits_dump(path, load_signature(signature_file))


@pytest.mark.parametrize("fmt", ["csv", "jsonl", "npz", "parquet"])
def test_the_command_line_writes_both_tables_and_the_verdicts(tmp_path: Path, capsys: Any, fmt: str) -> None:
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    dumps = tmp_path / "dumps"
    dumps.mkdir()
    write(dumps, "pre", [command(k) for k in range(3)], CAPTURED)
    replayed = [command(k, MOVE if k != 2 else 0) for k in range(3)]
    write(dumps, "post", replayed, REPLAYED)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["import", "gits", str(dumps), "--output-dir", str(out), "--format", fmt, "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    (call,) = report["calls"]
    assert call["call"] == "42" and call["verdicts"]["unpatched"] == 2 and call["verdicts"]["patched"] == 4
    assert sorted(p.name for p in out.iterdir()) == [f"call_42_execute_indirect_{p}_patch.{fmt}"
                                                     for p in ("post", "pre")]
    table = out / f"call_42_execute_indirect_post_patch.{fmt}"
    if fmt == "csv":
        lines = table.read_text().splitlines()
        assert lines[0].startswith("region,offset,va,kind,value") and len(lines) == 1 + 9
        assert lines[1] == ",,,va,0x7f0001000000,,call_42.command,arg1_VertexBuffer.BufferLocation,,,,,0,,O12,0x0"
    elif fmt == "jsonl":
        records = [json.loads(x) for x in table.read_text().splitlines()]
        assert [r["kind"] for r in records if r["record"] == "finding"] == ["signature-inferred", "unpatched",
                                                                            "unpatched"]
        assert records[-1]["record"] == "end"
    elif fmt == "npz":
        with np.load(table) as z:
            assert z["value"].shape == (9,) and list(z["findings.kind"]) == ["signature-inferred", "unpatched",
                                                                             "unpatched"]
    assert main(["import", "gits", str(dumps), "--output-dir", str(out), "--format", fmt]) == 1
    text = capsys.readouterr().out
    assert "call 42: pre 3 commands, post 3 commands; 9 addresses (gits lookup): 3 null, 4 patched, 2 unpatched" \
        in text


def test_the_command_line_with_a_signature_and_a_va_map(tmp_path: Path, signature_file: Path, capsys: Any) -> None:
    write(tmp_path, "pre", [command(k) for k in range(2)], CAPTURED)
    write(tmp_path, "post", [command(k, MOVE) for k in range(2)], REPLAYED)
    va_map = tmp_path / "va_map.csv"
    va_map.write_text("old_base,size,new_base\n0x1000000,0x100000,0x7f0001000000\n0x2000000,0x100000,0x7f0002000000\n")
    out = tmp_path / "out"
    out.mkdir()
    code = main(["import", "gits", str(tmp_path / "call_42_execute_indirect_pre_patch.txt"),
                 str(tmp_path / "call_42_execute_indirect_post_patch.txt"), "--output-dir", str(out), "--description",
                 str(signature_file), "--va-map", str(va_map), "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["calls"][0]["by"] == "va map" and report["calls"][0]["dumps"]["pre"]["signature"] == \
        "SIG"
    assert main(["import", "gits", str(tmp_path), "--output-dir", str(out), "--command-signature", "SIG"]) == 2
    assert "--description" in capsys.readouterr().err
    description.load(DESCRIPTION)  # (the fixture is a valid description)
