"""Captured against replayed (issue 40, item 3): ``d3d12wl diff CAPTURE REPLAY_DUMP`` names, per command, the
arguments that differ and flags a replay whose count or addresses cannot execute what was captured.  The replay's
dumps are shaped as GITS and gfxrecon-replay write them (tests/tool_shapes.py); the RenderDoc cases the issue names
are tests here: #3891 (a count buffer smaller than the recorded count left GPU VAs unpatched: four VBVs and an
indexed draw, ByteStride 84, a GPU-written count) and PR #3908 (NULL vertex and index buffer views inside
ExecuteIndirect)."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest
from tool_shapes import gits_dump, range_lookup, write_dump

from d3d12wl.capture.file import load_capture
from d3d12wl.capture.maps import VaMap, VaRange
from d3d12wl.cli import main
from d3d12wl.importers.errors import ImportInputError
from d3d12wl.importers.replay_diff import diff_replay

CAPTURED_VB, CAPTURED_IB = 0x1000000, 0x2000000
REPLAY_VB, REPLAY_IB = 0x7F0001000000, 0x7F0002000000
VA_MAP = VaMap([VaRange(CAPTURED_VB, 0x100000, REPLAY_VB), VaRange(CAPTURED_IB, 0x100000, REPLAY_IB)])
CAPTURED_LOOKUP = range_lookup([(12, CAPTURED_VB, 0x100000), (13, CAPTURED_IB, 0x100000)])
REPLAY_LOOKUP = range_lookup([(12, REPLAY_VB, 0x100000), (13, REPLAY_IB, 0x100000)])

# RenderDoc #3891's command signature: VBV slots 0-3 and DRAW_INDEXED, 4 * 16 + 20 = 84 bytes
SIGNATURE = {"ByteStride": 84, "pArgumentDescs": [
    *({"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": s}} for s in range(4)), {"Type": "DRAW_INDEXED"}]}


def command(k: int, vb: int, *, null_slot: int | None = None, instances: int = 1) -> list[tuple[str, list[int]]]:
    views = [("VERTEX_BUFFER_VIEW", [0 if s == null_slot else vb + 0x10000 * s + 0x100 * k, 4096, 16])
             for s in range(4)]
    return [*views, ("DRAW_INDEXED", [36, instances, 6 * k, -2, 0])]


def command_bytes(cmd: list[tuple[str, list[int]]]) -> bytes:
    out = b""
    for kind, v in cmd:
        out += struct.pack("<QII", *v) if kind == "VERTEX_BUFFER_VIEW" else struct.pack("<IIIiI", *v)
    return out


def capture(tmp_path: Path, commands: list[list[tuple[str, list[int]]]], count: int, max_count: int = 8) -> Any:
    """The captured call: the commands at ByteStride 84, a GPU-written count buffer holding ``count``."""
    data = b"".join(command_bytes(c) for c in commands)
    doc = {"version": 2, "device": {"Tier": "TIER_NOT_SUPPORTED"}, "command_signatures": {"VBV4": SIGNATURE},
           "memory": [{"name": "args", "base": "0x100000", "hex": (data + bytes(84 * max_count - len(data))).hex()},
                      {"name": "count", "base": "0x200000", "hex": struct.pack("<I", count).hex()}],
           "state": {},
           "call": {"ExecuteIndirect": {"pCommandSignature": "VBV4", "MaxCommandCount": max_count,
                                        "pArgumentBuffer": {"GPUVirtualAddress": "0x100000", "Width": 84 * max_count},
                                        "ArgumentBufferOffset": 0, "pCountBuffer": "0x200000",
                                        "CountBufferOffset": 0}}}
    path = tmp_path / "captured.json"
    path.write_text(json.dumps(doc))
    return load_capture(path)


def post_patch(tmp_path: Path, commands: list[list[tuple[str, list[int]]]], key: int = 7) -> Path:
    path = tmp_path / f"call_{key}_execute_indirect_post_patch.txt"
    path.write_text(gits_dump(commands, REPLAY_LOOKUP, newline="\r\n"))
    return path


@pytest.mark.parametrize("va_map", [None, VA_MAP], ids=["gits-lookup", "va-map"])
def test_a_replay_that_patched_every_address_is_the_same(tmp_path: Path, va_map: VaMap | None) -> None:
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(5)], count=5)
    dump = post_patch(tmp_path, [command(k, REPLAY_VB) for k in range(5)])
    d = diff_replay(captured, dump, va_map=va_map)
    assert d.same and d.matched == 5 and d.replay and d.cannot_execute == []


def test_renderdoc_3891_a_smaller_replay_count_executes_fewer_commands(tmp_path: Path) -> None:
    """The replay's count buffer holds 3 where the capture's held 5: commands 3 and 4 are not executed (and a patcher
    that walked the replay's count left them unpatched while the GPU ran the recorded count)."""
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(5)], count=5)
    dump = post_patch(tmp_path, [command(k, REPLAY_VB) for k in range(3)])
    d = diff_replay(captured, dump, va_map=VA_MAP)
    assert not d.same and d.only_in_a == [3, 4] and d.differences == []
    assert d.cannot_execute == ["the replay executes 3 commands, the capture 5 (count buffer: captured 5, replayed "
                                "None)"]


def test_renderdoc_3891_commands_past_the_replay_count_left_unpatched(tmp_path: Path) -> None:
    """The replay executes all 5 commands but patched only the first 3: the last two keep the captured VAs, which
    point at no resource of the replay (GITS's lookup) and which the VA map moves (the map)."""
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(5)], count=5)
    dump = post_patch(tmp_path, [command(k, REPLAY_VB if k < 3 else CAPTURED_VB) for k in range(5)])
    for va_map in (None, VA_MAP):
        d = diff_replay(captured, dump, va_map=va_map)
        assert not d.same and [e.a for e in d.differences] == [3, 4]
        assert len(d.cannot_execute) == 8 and all("unpatched" in c for c in d.cannot_execute)
        assert d.differences[0].what[0] == (f"arg0_VertexBuffer.BufferLocation: 0x{CAPTURED_VB + 0x300:x} -> "
                                            f"0x{CAPTURED_VB + 0x300:x}"
                                            + (f" (mapped: 0x{REPLAY_VB + 0x300:x})" if va_map else "")
                                            + ": unpatched")


def test_renderdoc_pr_3908_a_null_vertex_buffer_view_stays_null(tmp_path: Path) -> None:
    """NULL vertex buffer views inside ExecuteIndirect: a replay that keeps them NULL executes what was captured; one
    that patches a NULL into an address (treating 0 as a captured VA) does not."""
    captured = capture(tmp_path, [command(k, CAPTURED_VB, null_slot=2) for k in range(3)], count=3)
    kept = post_patch(tmp_path, [command(k, REPLAY_VB, null_slot=2) for k in range(3)], key=1)
    assert diff_replay(captured, kept, va_map=VA_MAP).same
    assert diff_replay(captured, kept).same
    broken = [command(k, REPLAY_VB, null_slot=2) for k in range(3)]
    broken[1][2] = ("VERTEX_BUFFER_VIEW", [REPLAY_VB, 4096, 16])  # 0 + the range's move
    patched = post_patch(tmp_path, broken, key=2)
    d = diff_replay(captured, patched, va_map=VA_MAP)
    assert [e.a for e in d.differences] == [1]
    assert d.differences[0].what == [f"arg2_VertexBuffer.BufferLocation: 0x0 -> 0x{REPLAY_VB:x}: null-patched"]
    assert d.cannot_execute == [f"command 1 arg2_VertexBuffer.BufferLocation: 0x0 -> 0x{REPLAY_VB:x}: null-patched"]


def test_an_address_patched_into_null_or_elsewhere(tmp_path: Path) -> None:
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(2)], count=2)
    replayed = [command(k, REPLAY_VB) for k in range(2)]
    replayed[0][0] = ("VERTEX_BUFFER_VIEW", [0, 4096, 16])
    replayed[1][1] = ("VERTEX_BUFFER_VIEW", [REPLAY_VB + 0x40, 4096, 16])
    d = diff_replay(captured, post_patch(tmp_path, replayed), va_map=VA_MAP)
    assert [c.rsplit(": ", 1)[1] for c in d.cannot_execute] == ["patched-to-null", "patched-elsewhere"]


def test_the_arguments_that_differ_are_named_per_command(tmp_path: Path) -> None:
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(3)], count=3)
    replayed = [command(k, REPLAY_VB, instances=4 if k == 2 else 1) for k in range(3)]
    d = diff_replay(captured, post_patch(tmp_path, replayed), va_map=VA_MAP)
    assert [(e.a, e.what) for e in d.differences] == [(2, ["arg4_DrawIndexed.InstanceCount: 1 -> 4"])]
    assert d.cannot_execute == [] and not d.same


def test_a_gfxrecon_replay_dump_against_its_capture(tmp_path: Path) -> None:
    """gfxrecon-replay's dump of the call: its argument bytes (replay VAs) and count, checked through the VA map."""
    commands = [command(k, CAPTURED_VB) for k in range(4)]
    captured = capture(tmp_path, commands, count=4)
    replayed = b"".join(command_bytes(command(k, REPLAY_VB if k != 3 else CAPTURED_VB)) for k in range(4))
    folder = tmp_path / "dump"
    write_dump(folder, "frame.gfxr", 40, (5, 0, replayed + bytes(84 * 4)), (6, 0, struct.pack("<I", 4) + bytes(12)))
    d = diff_replay(captured, folder, va_map=VA_MAP)
    assert [e.a for e in d.differences] == [3] and len(d.cannot_execute) == 4
    without_map = diff_replay(captured, folder)
    assert without_map.same and "NULL addresses only" in without_map.note  # what it cannot know, it says


def test_a_gits_pre_patch_dump_holds_the_captured_addresses(tmp_path: Path, capsys: Any) -> None:
    """GITS dumps ``pre_patch`` before it patches (gpuPatchDumpService.cpp), looking each address up among the
    captured resources (``fromCapture``, executeIndirectDump.cpp PrintGpuAddress): its addresses are the captured
    ones, so a VA map does not apply (exit 2 naming the dump, not 20 addresses flagged ``unpatched``), and a NOT
    FOUND there is a captured address in no captured resource (points nowhere), not an address the replay left
    unpatched."""
    commands = [command(k, CAPTURED_VB) for k in range(5)]
    captured = capture(tmp_path, commands, count=5)
    pre = tmp_path / "call_7_execute_indirect_pre_patch.txt"
    pre.write_text(gits_dump(commands, CAPTURED_LOOKUP))
    d = diff_replay(captured, pre)
    assert d.same and "pre-patch" in d.note
    with pytest.raises(ImportInputError, match="pre-patch dump") as err:
        diff_replay(captured, pre, va_map=VA_MAP)
    assert err.value.where == str(pre)
    va_map = tmp_path / "va_map.csv"
    va_map.write_text(f"0x{CAPTURED_VB:x},0x100000,0x{REPLAY_VB:x}\n")
    assert main(["diff", str(captured.path), str(pre), "--va-map", str(va_map)]) == 2
    assert "pre-patch" in capsys.readouterr().err
    # slot 3's captured addresses in no captured resource: GITS prints NOT FOUND in the pre-patch dump
    nowhere = tmp_path / "call_8_execute_indirect_pre_patch.txt"
    nowhere.write_text(gits_dump(commands, range_lookup([(12, CAPTURED_VB, 0x30000), (13, CAPTURED_IB, 0x100000)])))
    d = diff_replay(captured, nowhere)
    assert len(d.cannot_execute) == 5 and all(c.endswith(": points-nowhere") for c in d.cannot_execute)
    # an address that is not the captured one is named
    moved = [command(k, CAPTURED_VB) for k in range(5)]
    moved[2][0] = ("VERTEX_BUFFER_VIEW", [CAPTURED_VB + 0x40, 4096, 16])
    changed = tmp_path / "call_9_execute_indirect_pre_patch.txt"
    changed.write_text(gits_dump(moved, CAPTURED_LOOKUP))
    d = diff_replay(captured, changed)
    assert not d.same and [(e.a, e.what) for e in d.differences] == [(2, [
        f"arg0_VertexBuffer.BufferLocation: 0x{CAPTURED_VB + 0x200:x} -> 0x{CAPTURED_VB + 0x40:x}: not the captured "
        "address (a pre-patch dump holds the captured ones)"])]


def test_a_capture_that_does_not_hold_its_commands_is_named(tmp_path: Path, capsys: Any) -> None:
    """The capture's argument buffer maps fewer bytes than its call executes: exit 2 naming the capture and what to
    run, not a VA-only message."""
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(5)], count=5)
    doc = json.loads(captured.path.read_text())
    doc["memory"][0]["hex"] = doc["memory"][0]["hex"][:2 * 84 * 2]  # two of the five commands
    short = tmp_path / "short.json"
    short.write_text(json.dumps(doc))
    dump = post_patch(tmp_path, [command(k, REPLAY_VB) for k in range(5)])
    assert main(["diff", str(short), str(dump)]) == 2
    err = capsys.readouterr().err
    assert f"{short}: does not hold the commands its call executes" in err and "d3d12wl exec" in err


def test_the_command_line(tmp_path: Path, capsys: Any) -> None:
    captured = capture(tmp_path, [command(k, CAPTURED_VB) for k in range(5)], count=5)
    dump = post_patch(tmp_path, [command(k, REPLAY_VB if k < 3 else CAPTURED_VB) for k in range(5)])
    va_map = tmp_path / "va_map.csv"
    va_map.write_text(f"0x{CAPTURED_VB:x},0x100000,0x{REPLAY_VB:x}\n0x{CAPTURED_IB:x},0x100000,0x{REPLAY_IB:x}\n")
    assert main(["diff", str(captured.path), str(dump), "--va-map", str(va_map)]) == 1
    out = capsys.readouterr().out
    assert "diff: 5 commands matched by command_index" in out and "the replay cannot execute what was captured:" in out
    assert "command 3:" in out and out.rstrip().endswith("8 flags")
    assert main(["diff", str(captured.path), str(dump), "--json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["same"] is False and len(doc["cannot_execute"]) == 8 and doc["key"] == ["command_index"]
    assert main(["diff", str(captured.path), str(dump), "--key", "program"]) == 2
    assert "--key" in capsys.readouterr().err
    assert main(["diff", str(captured.path), str(captured.path), "--va-map", str(va_map)]) == 2
    assert "--va-map" in capsys.readouterr().err
    assert main(["diff", str(captured.path), str(captured.path), "--json"]) == 0
    assert "cannot_execute" not in json.loads(capsys.readouterr().out)  # two runs: the JSON keeps its shape
