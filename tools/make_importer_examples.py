#!/usr/bin/env python3
"""Write the bundled examples of the importers (docs/gfxreconstruct.md, docs/gits.md), shaped as the tools write
them (tests/tool_shapes.py, from a reading of their writers' source; nothing copied from those projects):

* ``d3d12wl/examples/gfxr/``: ``frame.json``, gfxrecon-convert's JSON (``--format json``) of a small D3D12 frame,
  and one gfxrecon-replay ``--dump-resources-dir`` folder per ExecuteIndirect call dumped (``dump_<block index>``):
  call 1 draws with a root constant and a vertex buffer per command (a count buffer of 3, MaxCommandCount 4, dumped
  before and after the call); call 2 is RenderDoc #3891's command signature, four vertex buffer views and an indexed
  draw (ByteStride 84), slot 2's view NULL (RenderDoc PR #3908), MaxCommandCount 5 and no count buffer, dumped
  after the call only;
* ``d3d12wl/examples/gits/``: GITS's pre- and post-patch dumps of one ExecuteIndirect
  (``call_1234_execute_indirect_{pre,post}_patch.txt``) of the same command signature (``signature.json``, a
  description) and 5 commands, of which the replay patched the first 3 only (RenderDoc #3891), and the VA map of
  the replay (``va_map.csv``, the map ``d3d12wl remap`` reads);
* ``d3d12wl/examples/gits/captured.json``: the capture of that call (what GITS's pre-patch dump shows, at the VAs
  it was captured at), the capture ``d3d12wl diff`` compares the post-patch dump with.

``--check`` verifies the committed files are current (exit 1 naming the stale ones).
"""

from __future__ import annotations

import argparse
import json
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT))
from tool_shapes import ConvertFile, enum, gits_dump, hex_va, range_lookup, root_signature_blob, write_dump  # noqa: E402

EXAMPLES = ROOT / "d3d12wl" / "examples"
#: RenderDoc #3891's command: four vertex buffer views and an indexed draw
VBV4 = [*({"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": s}} for s in range(4)), {"Type": "DRAW_INDEXED"}]
CAPTURED_VB, REPLAY_VB = 0x1000000, 0x7F0001000000


def vbv4(k: int, vb: int, null_slot: int | None = None) -> list[tuple[str, list[int]]]:
    return [*(("VERTEX_BUFFER_VIEW", [0 if s == null_slot else vb + 0x10000 * s + 0x100 * k, 4096, 16])
              for s in range(4)), ("DRAW_INDEXED", [36, 1, 36 * k, 0, 0])]


def vbv4_bytes(k: int, vb: int, null_slot: int | None = None) -> bytes:
    out = b""
    for kind, v in vbv4(k, vb, null_slot):
        out += struct.pack("<QII", *v) if kind == "VERTEX_BUFFER_VIEW" else struct.pack("<IIIiI", *v)
    return out


def gfxr(folder: Path) -> None:
    cf = ConvertFile(source_path="C:\\captures\\frame.gfxr")
    rs = cf.root_signature(root_signature_blob([{"type": "CBV", "register": 0},
                                                {"type": "32BIT_CONSTANTS", "num": 1, "register": 1}]))
    constant_draw = cf.command_signature(36, [
        {"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1, "DestOffsetIn32BitValues": 0,
                                          "Num32BitValuesToSet": 1}},
        {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 0}}, {"Type": "DRAW"}], rs)
    four_views = cf.command_signature(84, VBV4)
    args1 = cf.buffer(4096, 0x20000)
    count1 = cf.buffer(256, 0x30000)
    args2 = cf.buffer(84 * 5, 0x40000)
    command_list = cf.command_list()
    cf.on(command_list, "SetGraphicsRootSignature", {"pRootSignature": rs})
    cf.on(command_list, "SetGraphicsRootConstantBufferView", {"RootParameterIndex": 0,
                                                               "BufferLocation": hex_va(0x50000)})
    cf.on(command_list, "IASetIndexBuffer", {"pView": {"BufferLocation": hex_va(0x60000), "SizeInBytes": 4096,
                                                       "Format": enum("DXGI_FORMAT", "R16_UINT")}})
    cf.skip(2)
    block1 = cf.execute_indirect(command_list, constant_draw, 4, args1, 0, count1, 16)
    cf.skip(1)
    block2 = cf.execute_indirect(command_list, four_views, 5, args2)
    cf.write(folder / "frame.json")
    commands = b"".join(struct.pack("<I", 100 + k) + struct.pack("<QII", 0x200000 + 0x1000 * k, 4096, 16)
                        + struct.pack("<4I", 3, 1, 3 * k, 0) for k in range(4))
    data = commands + bytes(4096 - len(commands))
    counts = struct.pack("<I", 3) + bytes(256 - 16 - 4)
    write_dump(folder / f"dump_{block1}", "frame.gfxr", block1, (args1, 0, data), (count1, 16, counts), before=data,
               before_counts=counts, target=(0, 0, 0))
    views = b"".join(vbv4_bytes(k, REPLAY_VB, null_slot=2) for k in range(5))
    write_dump(folder / f"dump_{block2}", "frame.gfxr", block2, (args2, 0, views), None, target=(0, 0, 1))


def gits(folder: Path) -> None:
    captured = range_lookup([(40 + s, CAPTURED_VB + 0x10000 * s, 0x10000) for s in range(4)])
    replayed = range_lookup([(40 + s, REPLAY_VB + 0x10000 * s, 0x10000) for s in range(4)])
    (folder / "call_1234_execute_indirect_pre_patch.txt").write_text(
        gits_dump([vbv4(k, CAPTURED_VB) for k in range(5)], captured), newline="")
    (folder / "call_1234_execute_indirect_post_patch.txt").write_text(
        gits_dump([vbv4(k, REPLAY_VB if k < 3 else CAPTURED_VB) for k in range(5)], replayed), newline="")
    (folder / "signature.json").write_text(json.dumps({"command_signatures": {"VBV4": {
        "ByteStride": 84, "pArgumentDescs": [{k: v for k, v in a.items()} for a in VBV4]}}}, indent=1) + "\n")
    (folder / "va_map.csv").write_text(f"old_base,size,new_base\n0x{CAPTURED_VB:x},0x40000,0x{REPLAY_VB:x}\n")
    data = b"".join(vbv4_bytes(k, CAPTURED_VB) for k in range(5))
    capture = {"version": 2, "device": {"Tier": "TIER_NOT_SUPPORTED"},
               "command_signatures": {"VBV4": {"ByteStride": 84, "pArgumentDescs": VBV4}},
               "memory": [{"name": "args", "base": "0x100000", "hex": [data[i:i + 32].hex(" ")
                                                                     for i in range(0, len(data), 32)]},
                          {"name": "count", "base": "0x200000", "hex": struct.pack("<I", 5).hex(" ")}],
               "state": {},
               "call": {"ExecuteIndirect": {"pCommandSignature": "VBV4", "MaxCommandCount": 8,
                                            "pArgumentBuffer": {"GPUVirtualAddress": "0x100000", "Width": 84 * 8},
                                            "ArgumentBufferOffset": 0, "pCountBuffer": "0x200000",
                                            "CountBufferOffset": 0}}}
    (folder / "captured.json").write_text(json.dumps(capture, indent=1) + "\n")


def contents(scratch: Path) -> dict[str, bytes]:
    for name, make in (("gfxr", gfxr), ("gits", gits)):
        (scratch / name).mkdir(parents=True, exist_ok=True)
        make(scratch / name)
    return {p.relative_to(scratch).as_posix(): p.read_bytes() for p in sorted(scratch.rglob("*")) if p.is_file()}


def main(argv: list[str] | None = None) -> int:
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="verify the committed files instead of writing them")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        files = contents(Path(scratch))
    committed = {p.relative_to(EXAMPLES).as_posix() for name in ("gfxr", "gits")
                 for p in (EXAMPLES / name).rglob("*") if p.is_file()}
    if args.check:
        stale = sorted(name for name, data in files.items() if not (EXAMPLES / name).is_file()
                       or (EXAMPLES / name).read_bytes() != data)
        stale += sorted(committed - set(files))
        if stale:
            print(f"stale importer examples (run {Path(__file__).name}): {', '.join(stale)}", file=sys.stderr)
            return 1
        return 0
    for name in committed - set(files):
        (EXAMPLES / name).unlink()
    for name, data in files.items():
        (EXAMPLES / name).parent.mkdir(parents=True, exist_ok=True)
        (EXAMPLES / name).write_bytes(data)
    return 0


if __name__ == "__main__":
    sys.exit(main())
