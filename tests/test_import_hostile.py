"""Files from other tools and other machines, broken every way a seed can: the importers either read them or refuse
them with a D3D12WLError naming the file (exit 2), never another exception; what they read is bounded (issue 40,
"Scale and hostility")."""

from __future__ import annotations

import copy
import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from test_import_gfxr import ROOT_CONSTANT_VBV_DRAW, VBV4_DRAW_INDEXED, Frame, constant_command, vbv4_command
from tool_shapes import gits_dump, range_lookup, root_signature_blob

from d3d12wl.cli import main
from d3d12wl.errors import D3D12WLError
from d3d12wl.importers import import_gfxr, pair_dumps, read_gits_dump, read_root_signature
from d3d12wl.importers.gfxr_convert import MAX_BLOB_BYTES, read_convert

VALUES: list[Any] = [None, True, -1, 0, 1, 2 ** 64, 2 ** 70, 1.5, "x", "0x", "0xzz", "0x1", "", [], {}, [1, 2],
                     {"ptr": -1}, "[Binary data]", "D3D12_INDIRECT_ARGUMENT_TYPE_DRAW",
                     "Unhandled D3D12_INDIRECT_ARGUMENT_TYPE (99)", "0b1", "0b2", [256], [-1]]


def _mutate(obj: Any, rng: random.Random, depth: int = 0) -> None:
    if isinstance(obj, dict) and obj:
        key: Any = rng.choice(list(obj))
    elif isinstance(obj, list) and obj:
        key = rng.randrange(len(obj))
    else:
        return
    r = rng.random()
    if r < 0.15:
        del obj[key]
    elif r < 0.5 or depth > 6:
        obj[key] = copy.deepcopy(rng.choice(VALUES))
    else:
        _mutate(obj[key], rng, depth + 1)


def _corrupt(data: bytes, rng: random.Random, alphabet: bytes, inserts: list[bytes], changes: int, longest: int
             ) -> bytes:
    """``data`` with up to ``changes`` bytes replaced (from ``alphabet``), runs cut (up to ``longest``) or bytes
    inserted (one of ``inserts``)."""
    out = bytearray(data)
    for _ in range(rng.randrange(1, changes)):
        i = rng.randrange(len(out))
        op = rng.random()
        if op < 0.4:
            out[i] = rng.choice(alphabet)
        elif op < 0.7:
            del out[i:i + rng.randrange(1, longest)]
        else:
            out[i:i] = rng.choice(inserts)
    return bytes(out)


def _frame(tmp: Path, seed: int) -> Frame:
    f = Frame(tmp)
    before = [constant_command(k) for k in range(3)] if seed % 2 else None
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(3)], count=2, max_count=3, before=before)
    f.call(VBV4_DRAW_INDEXED, 84, [vbv4_command(k, null_slot=1) for k in range(3)], count=None, max_count=3,
           root_signature=False)
    return f


@pytest.mark.parametrize("seed", range(40))
def test_a_convert_json_or_dump_broken_member_by_member(tmp_path: Path, seed: int) -> None:
    rng = random.Random(4000 + seed)
    f = _frame(tmp_path, seed)
    if seed % 3:
        for _ in range(rng.randrange(1, 4)):
            _mutate(rng.choice(f.cf.blocks[1:]), rng)
    else:
        dump = rng.choice(f.dumps) / "frame_dr.json"
        doc = json.loads(dump.read_text())
        for _ in range(rng.randrange(1, 4)):
            _mutate(doc, rng)
        dump.write_text(json.dumps(doc))
    out = tmp_path / "out"
    out.mkdir()
    try:
        import_gfxr(f.convert(rng.choice(["json", "jsonl"])), f.dumps, out)
    except D3D12WLError as exc:
        assert exc.where, exc


@pytest.mark.parametrize("seed", range(30))
def test_a_convert_json_broken_byte_by_byte(tmp_path: Path, seed: int) -> None:
    rng = random.Random(5000 + seed)
    f = _frame(tmp_path, seed)
    path = f.convert(rng.choice(["json", "jsonl"]))
    path.write_bytes(_corrupt(path.read_bytes(), rng, b'{}[]",:\\\0\n x\xff',
                              [b"{", b"}", b'"', b"[[[[", b"\\", b'"index": 1,'], 6, 30))
    out = tmp_path / "out"
    out.mkdir()
    try:
        import_gfxr(path, f.dumps, out)
    except D3D12WLError as exc:
        assert exc.where and str(path) in exc.where or "dump" in exc.where, exc


BASE = gits_dump([[("CONSTANT", [k, 2]), ("VERTEX_BUFFER_VIEW", [0x1000000 + k if k % 2 else 0, 4096, 16]),
                   ("DRAW_INDEXED", [3, 1, k, -k, 0]),
                   ("DISPATCH_RAYS", [0x1000000, 64, 0, 0, 0, 0x1000100, 4, 4, 0, 0, 0, 1, 2, 3])] for k in range(6)],
                 range_lookup([(12, 0x1000000, 1 << 20)])).encode()


@pytest.mark.parametrize("seed", range(120))
def test_a_gits_dump_broken_byte_by_byte(tmp_path: Path, seed: int) -> None:
    rng = random.Random(6000 + seed)
    good = tmp_path / "call_1_execute_indirect_pre_patch.txt"
    good.write_bytes(BASE)
    reference = read_gits_dump(good)
    path = tmp_path / "call_1_execute_indirect_post_patch.txt"
    path.write_bytes(_corrupt(BASE, rng, b"0123456789-{},xO \n\rabcdefNK",
                              [b"\n", b"ARGUMENT 1\n", b"  CONSTANT 5\n", b"99999999999999999999999", b"{0x",
                               b", NOT FOUND", b"{0x0000000000000000}", b", key O1, offset 2"], 5, 20))
    try:
        dump = read_gits_dump(path, reference.signature if seed % 2 else None, chunk=rng.choice([64, 1 << 22]))
        dump.table()
        if dump.records.dtype == reference.records.dtype:
            pair_dumps(reference, dump)
    except D3D12WLError as exc:
        assert exc.where and exc.where.startswith(str(path)), exc


BLOB = root_signature_blob([{"type": "CBV"}, {"type": "DESCRIPTOR_TABLE", "ranges": [{"NumDescriptors": 2}]},
                            {"type": "32BIT_CONSTANTS", "num": 3}], [{"Filter": 1}], version="1_2")


@pytest.mark.parametrize("seed", range(150))
def test_a_root_signature_blob_broken_byte_by_byte(seed: int) -> None:
    rng = random.Random(7000 + seed)
    data = bytearray(BLOB)
    for _ in range(rng.randrange(1, 4)):
        data[rng.randrange(len(data))] = rng.randrange(256)
    if rng.random() < 0.2:
        data = data[:rng.randrange(len(data))]
    try:
        read_root_signature(bytes(data), "RS", where="blob")
    except D3D12WLError as exc:
        assert exc.where == "blob"


def test_what_is_read_is_bounded(tmp_path: Path) -> None:
    """A root signature blob above MAX_BLOB_BYTES and more vertex buffer views than a command list has slots are
    refused naming the member; a block above the block bound before it is parsed (test_import_json_blocks)."""
    f = _frame(tmp_path, 0)
    f.cf.blocks[1]["method"]["args"]["pBlobWithRootSignature"] = [0] * (MAX_BLOB_BYTES + 1)
    with pytest.raises(D3D12WLError, match=r"pBlobWithRootSignature: .*more than the 1,048,576 read here"):
        read_convert(f.convert())
    g = _frame(tmp_path / "g", 0)
    g.cf.vertex_buffers(g.command_list, 0, [(0x1000, 16, 16)] * 33)
    with pytest.raises(D3D12WLError, match=r"NumViews: 33 views: a command list has 32 slots"):
        read_convert(g.convert())


def test_the_command_line_never_shows_a_traceback(tmp_path: Path, capsys: Any) -> None:
    f = _frame(tmp_path, 1)
    f.cf.blocks[3]["method"]["args"] = [1, 2, 3]
    out = tmp_path / "out"
    out.mkdir()
    code = main(["import", "gfxr", str(f.convert()), *map(str, f.dumps), "--output-dir", str(out)])
    err = capsys.readouterr().err
    assert code == 2 and "Traceback" not in err and "expected the call's args as an object" in err
    shutil.rmtree(out)
