"""The importers at frame scale (issue 40): a frame of ``--calls`` ExecuteIndirect calls of ``--commands`` commands
in all (default 100 and 100,000), shaped as GFXReconstruct writes it (tests/tool_shapes.py: gfxrecon-convert's JSON
with ``--filler`` other calls per ExecuteIndirect, and a gfxrecon-replay --dump-resources folder per call), imported
by ``d3d12wl import gfxr``; and a GITS pre/post-patch pair of the same number of commands, read and judged by
``d3d12wl import gits``.  Measured against anchors run in the same process (design.md: ratios, never bare times):

* GFXReconstruct, best of 3, CPU seconds: the convert JSON parsed whole by ``json.loads`` (what a reader that does not
  stream would do), every dumped file read (``numpy.fromfile``), the columnar executor over every capture written;
  then ``read_convert`` alone and ``import_gfxr`` (read, build, write, pre-flight); and ``d3d12wl import gfxr`` in a
  child process: wall time and peak resident memory (VmHWM), beside ``d3d12wl --version``'s wall time (start-up)
  and a child that only imports the command's modules (wall and peak);
* GITS, best of 3: the two text files' lines counted by Python (``bytes.count``) and split into Python lines (the
  per-line object a line reader makes), then ``read_gits_dump`` of both and ``pair_dumps``; ``d3d12wl import gits``
  in a child process: wall and peak.

    python tools/bench_importers.py [--calls N] [--commands N] [--filler N] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))
from tool_shapes import ConvertFile, gits_dump, hex_va, range_lookup, root_signature_blob, write_dump  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_references import best  # noqa: E402  (best of N, CPU seconds: the house's measure)

from d3d12wl import abi  # noqa: E402
from d3d12wl.capture.file import load_capture  # noqa: E402
from d3d12wl.executor import execute  # noqa: E402
from d3d12wl.importers.gfxr import import_gfxr  # noqa: E402
from d3d12wl.importers.gfxr_convert import read_convert  # noqa: E402
from d3d12wl.importers.gits import pair_dumps, read_gits_dump  # noqa: E402
from d3d12wl.model.objects import CommandSignature, EIConstantArg, IndirectArgumentDesc  # noqa: E402

ARGUMENTS = [{"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1, "DestOffsetIn32BitValues": 0,
                                               "Num32BitValuesToSet": 1}},
             {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 0}}, {"Type": "DRAW"}]
STRIDE = 36
MOVE = 0x7F00_0000_0000


def commands_bytes(call: int, n: int) -> bytes:
    k = np.arange(n, dtype=np.uint64)
    rec = np.zeros(n, dtype=[("c", "<u4"), ("vb", "<u8"), ("size", "<u4"), ("stride", "<u4"), ("draw", "<u4", 4)])
    rec["c"] = k + call * 1000
    rec["vb"] = 0x1000000 + k * 0x100
    rec["size"], rec["stride"] = 4096, 16
    rec["draw"][:, 0], rec["draw"][:, 1], rec["draw"][:, 2] = 3, 1, (3 * k).astype(np.uint32)
    assert rec.dtype.itemsize == STRIDE
    return rec.tobytes()


def build_frame(folder: Path, calls: int, commands: int, filler: int) -> tuple[Path, list[Path]]:
    cf = ConvertFile()
    rs = cf.root_signature(root_signature_blob([{"type": "CBV"}, {"type": "32BIT_CONSTANTS", "num": 1}]))
    cs = cf.command_signature(STRIDE, ARGUMENTS, rs)
    command_list = cf.command_list()
    dumps = []
    per = [commands // calls + (1 if i < commands % calls else 0) for i in range(calls)]
    for i, n in enumerate(per):
        args = cf.buffer(STRIDE * n + 256, 0x100000000 + (i << 24))
        counts = cf.buffer(256, 0x200000000 + (i << 16))
        cf.on(command_list, "Reset", {"pAllocator": 5, "pInitialState": 0})
        cf.on(command_list, "SetGraphicsRootSignature", {"pRootSignature": rs})
        cf.on(command_list, "SetGraphicsRootConstantBufferView", {"RootParameterIndex": 0,
                                                                   "BufferLocation": hex_va(0x50000)})
        cf.skip(filler)
        block = cf.execute_indirect(command_list, cs, n, args, 0, counts, 0)
        data = commands_bytes(i, n) + bytes(256)
        dumps.append(write_dump(folder / f"dump_{block}", "frame.gfxr", block, (args, 0, data),
                                (counts, 0, struct.pack("<I", n) + bytes(252))).parent)
    return cf.write(folder / "frame.json"), dumps


def child(args: list[str], folder: Path, body: str = "runpy.run_module('d3d12wl', run_name='__main__')"
          ) -> tuple[float, int]:
    """``d3d12wl ARGS`` (or ``body``) in a child process: (wall seconds, peak resident bytes)."""
    usage = folder / "usage.txt"
    code = ("import runpy, sys\nsys.argv = ['d3d12wl', *sys.argv[1:]]\n"
            f"try:\n    {body}\n"
            "finally:\n    hwm = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
            f"    open({str(usage)!r}, 'w').write(hwm)")
    t = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    wall = time.perf_counter() - t
    if done.returncode not in (0, 1):
        raise SystemExit(f"d3d12wl {' '.join(args)} failed ({done.returncode}): {done.stderr}")
    return wall, int(usage.read_text()) * 1024


def gfxr_part(folder: Path, calls: int, commands: int, filler: int) -> dict[str, Any]:
    t = time.perf_counter()
    convert, dumps = build_frame(folder, calls, commands, filler)
    built = time.perf_counter() - t
    text = convert.read_text()
    bins = sorted(p for d in dumps for p in d.glob("*.bin"))
    out: dict[str, Any] = {"calls": calls, "commands": commands, "convert_bytes": len(text),
                           "dump_bytes": sum(p.stat().st_size for p in bins), "built_s": built}
    del text
    out["anchor_json_loads_s"], _ = best(lambda: json.loads(convert.read_text()))
    out["anchor_read_dumps_s"], _ = best(lambda: [np.fromfile(p, dtype=np.uint8) for p in bins])
    out["read_convert_s"], frame = best(lambda: read_convert(convert, calls=None))
    assert len(frame.calls) == calls
    target = folder / "out"

    def run() -> Any:
        shutil.rmtree(target, ignore_errors=True)
        target.mkdir()
        return import_gfxr(convert, dumps, target)

    out["import_gfxr_s"], result = best(run)
    assert not result.errors and sum(c.commands for c in result.calls) == commands
    captures = [load_capture(c.captures["after"]) for c in result.calls]
    out["anchor_execute_s"], traces = best(lambda: [execute(c) for c in captures])
    assert sum(len(t.executions) for t in traces) == commands
    out["startup_wall_s"], _ = child(["--version"], folder)
    out["imports_wall_s"], out["imports_peak_rss_bytes"] = child(
        [], folder, "import d3d12wl.cli.import_cmd, d3d12wl.importers.gfxr, d3d12wl.importers.gits")
    shutil.rmtree(target)
    target.mkdir()
    out["cli_wall_s"], out["cli_peak_rss_bytes"] = child(
        ["import", "gfxr", str(convert), *map(str, dumps), "--output-dir", str(target), "--json"], folder)
    out["ratio_import_to_json_loads"] = out["import_gfxr_s"] / out["anchor_json_loads_s"]
    out["ratio_import_to_execute"] = out["import_gfxr_s"] / out["anchor_execute_s"]
    out["ratio_read_convert_to_json_loads"] = out["read_convert_s"] / out["anchor_json_loads_s"]
    return out


def gits_part(folder: Path, commands: int) -> dict[str, Any]:
    captured = range_lookup([(12, 0x1000000, 1 << 32)])
    replayed = range_lookup([(12, 0x1000000 + MOVE, 1 << 32)])

    def rows(move: int) -> list[Any]:
        return [[("CONSTANT", [k]), ("VERTEX_BUFFER_VIEW", [move + 0x1000000 + 0x100 * k, 4096, 16]),
                 ("DRAW", [3, 1, 3 * k, 0])] for k in range(commands)]

    t = time.perf_counter()
    pre = folder / "call_7_execute_indirect_pre_patch.txt"
    post = folder / "call_7_execute_indirect_post_patch.txt"
    pre.write_text(gits_dump(rows(0), captured, newline="\r\n"), newline="")
    post.write_text(gits_dump(rows(MOVE), replayed, newline="\r\n"), newline="")
    built = time.perf_counter() - t
    signature = CommandSignature("SIG", STRIDE, [
        IndirectArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "CONSTANT"),
                             Constant=EIConstantArg(1, 0, 1)),
        IndirectArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "VERTEX_BUFFER_VIEW")),
        IndirectArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "DRAW"))])
    out: dict[str, Any] = {"commands": commands, "bytes": pre.stat().st_size + post.stat().st_size, "built_s": built}
    out["anchor_count_lines_s"], _ = best(lambda: pre.read_bytes().count(b"\n") + post.read_bytes().count(b"\n"))
    out["anchor_split_lines_s"], _ = best(lambda: len(pre.read_bytes().splitlines()) + len(post.read_bytes()
                                                                                              .splitlines()))
    out["read_s"], dumps = best(lambda: (read_gits_dump(pre, signature), read_gits_dump(post, signature)))
    out["pair_s"], pair = best(lambda: pair_dumps(*dumps))
    assert pair.counts["patched"] == commands and not pair.errors
    target = folder / "gits_out"
    target.mkdir(exist_ok=True)
    out["cli_wall_s"], out["cli_peak_rss_bytes"] = child(
        ["import", "gits", str(pre), str(post), "--output-dir", str(target), "--format", "npz"], folder)
    out["ratio_read_to_split_lines"] = out["read_s"] / out["anchor_split_lines_s"]
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=100)
    p.add_argument("--commands", type=int, default=100_000)
    p.add_argument("--filler", type=int, default=50, help="other calls in the convert JSON per ExecuteIndirect")
    p.add_argument("--keep", metavar="DIR", help="build the files in DIR and keep them")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    folder = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="d3d12wl-bench-import-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        out = {"load": os.getloadavg(), "gfxr": gfxr_part(folder, args.calls, args.commands, args.filler),
               "gits": gits_part(folder, args.commands)}
    finally:
        if not args.keep:
            shutil.rmtree(folder)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    g, t = out["gfxr"], out["gits"]
    print(f"load average {out['load'][0]:.1f}")
    print(f"gfxr: {g['calls']} calls, {g['commands']:,} commands; convert JSON {g['convert_bytes'] / 1e6:.1f} MB, "
          f"dumps {g['dump_bytes'] / 1e6:.1f} MB")
    print(f"  anchors: json.loads {g['anchor_json_loads_s']:.3f} s, read dumps {g['anchor_read_dumps_s']:.3f} s, "
          f"execute {g['anchor_execute_s']:.3f} s")
    print(f"  read_convert {g['read_convert_s']:.3f} s ({g['ratio_read_convert_to_json_loads']:.2f}x json.loads), "
          f"import_gfxr {g['import_gfxr_s']:.3f} s ({g['ratio_import_to_json_loads']:.2f}x json.loads, "
          f"{g['ratio_import_to_execute']:.2f}x execute)")
    print(f"  d3d12wl import gfxr: {g['cli_wall_s']:.2f} s wall (start-up {g['startup_wall_s']:.2f} s, its modules "
          f"imported {g['imports_wall_s']:.2f} s), {g['cli_peak_rss_bytes'] / 2**20:.0f} MiB peak (imports alone "
          f"{g['imports_peak_rss_bytes'] / 2**20:.0f} MiB)")
    print(f"gits: {t['commands']:,} commands a dump, {t['bytes'] / 1e6:.1f} MB; anchors: count lines "
          f"{t['anchor_count_lines_s']:.3f} s, split lines {t['anchor_split_lines_s']:.3f} s")
    print(f"  read both {t['read_s']:.3f} s ({t['ratio_read_to_split_lines']:.2f}x split lines), pair "
          f"{t['pair_s']:.3f} s; d3d12wl import gits: {t['cli_wall_s']:.2f} s wall, "
          f"{t['cli_peak_rss_bytes'] / 2**20:.0f} MiB peak")
    return 0


if __name__ == "__main__":
    sys.exit(main())
