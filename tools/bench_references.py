"""The references by value of a real frame (issue 28): the table, its formats and the rebase, measured against
anchors run in the same process (design.md: "Benchmarks report ratios against the anchors measured in the same run,
never bare times").

Part 1, a 1 M-draw frame (the culling frame of tools/bench_executor.py: hybrid records of the culling PCS, each
primary record driving ``--per-record`` secondary records with a material SRV; one VA per secondary record and one
per primary record): best of 3, CPU seconds, of

* the anchors: a numpy copy of the frame's bytes, and the columnar executor's own walk (``execute``);
* ``walk_references`` (every reference located, listed once, checked for overlaps, handed over in chunks: what
  ``remap`` runs) read in columns (``engine="auto"``: d3d12wl/executor/references_fast.py, best of 5) and by the
  walk-based oracle (``engine="walk"``), and ``patch_list`` (the same, kept as one table of columns) both ways;
* each ``patch-list`` format writing that table (to memory);
* ``remap`` of the frame in memory, with maps that move every reference.

Part 1b (``--commands``, default 1 M; 0 skips it): the ExecuteIndirect frame of tools/bench_executor.py (root
constants and a vertex buffer view a command, a count buffer): ``walk_references`` of it in columns and by the
walk, best of 5 and 3.

Part 2 (``--remap-bytes``, default 1 GiB; 0 skips it): a capture of that many bytes of records written to a
temporary folder as region files, rebased by ``d3d12wl remap`` in a child process at ``nice 10``: its wall time,
CPU time and peak resident memory (``ru_maxrss``), and the load average around it.

    python tools/bench_references.py [--json] [--draws N] [--per-record K] [--commands N] [--remap-bytes N]
                                     [--keep DIR] [--no-nice]
"""

from __future__ import annotations

import argparse
import io
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_executor import culling_capture, execute_indirect_capture  # noqa: E402  (the executor benchmark's frames)

from d3d12wl import abi  # noqa: E402
from d3d12wl.capture.file import Capture, load_capture, save_capture  # noqa: E402
from d3d12wl.capture.maps import VaMap, VaRange  # noqa: E402
from d3d12wl.capture.memory import GpuMemory  # noqa: E402
from d3d12wl.executor import execute  # noqa: E402
from d3d12wl.executor.references import patch_list, walk_references  # noqa: E402
from d3d12wl.executor.references_output import FORMATS, writer_for  # noqa: E402
from d3d12wl.executor.remap import remap  # noqa: E402
from d3d12wl.records.dtypes import record_dtype  # noqa: E402
from d3d12wl.records.layout import pcs_layout  # noqa: E402

DELTA = 0x7F00_0000_0000


def best(fn: Any, repeat: int = 3) -> tuple[float, Any]:
    """The least CPU seconds of ``repeat`` runs of ``fn()`` and its last result."""
    times, out = [], None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        times.append(time.process_time() - t)
    return min(times), out


def shift_map(capture: Capture) -> VaMap:
    """Every region and every VA outside the regions the frame references, moved by :data:`DELTA`."""
    table = patch_list(capture)
    values = table.columns["value"][table.columns["kind"] == 0]
    ranges = [VaRange(r.base, r.size, r.base + DELTA) for r in capture.memory.regions if r.size]
    outside = np.unique(values[(values != 0) & (table.columns["target"][table.columns["kind"] == 0] < 0)])
    pages = np.unique(outside // np.uint64(4096))
    ranges += [VaRange(int(p) * 4096, 4096, int(p) * 4096 + DELTA) for p in pages.tolist()]
    return VaMap(ranges)


def frame_part(draws: int, per_record: int) -> dict[str, Any]:
    capture = culling_capture(draws, per_record)
    data = [np.frombuffer(r.data, dtype=np.uint8) for r in capture.memory.regions if r.size]
    nbytes = sum(d.nbytes for d in data)
    t_copy, _ = best(lambda: [d.copy() for d in data])
    t_exec, trace = best(lambda: execute(capture))
    counted: list[int] = []
    engines: list[str] = []

    def walked(engine: str) -> None:
        walk = walk_references(capture, lambda t: None, engine=engine)
        counted.append(walk.rows)
        engines.append(walk.engine)

    t_fast, _ = best(lambda: walked("auto"), 5)
    t_walk, _ = best(lambda: walked("walk"))
    refs = counted[-1]
    t_table, table = best(lambda: patch_list(capture), 5)
    t_table_walk, _ = best(lambda: patch_list(capture, engine="walk"))
    formats = {}
    for fmt in FORMATS:
        def write(fmt: str = fmt) -> int:
            out = io.BytesIO()
            w = writer_for(fmt, out)
            w.write(table)
            w.close(table.findings, 0)
            return len(out.getvalue())
        t, size = best(write, 2)
        formats[fmt] = {"seconds": t, "rows_per_s": refs / t, "bytes": size}
    va = shift_map(capture)
    t_remap, rebased = best(lambda: remap(capture, va), 2)
    assert not rebased.errors
    return {
        "draws": len(trace.executions), "references": refs, "frame_bytes": nbytes,
        "copy_s": t_copy, "copy_bytes_per_s": nbytes / t_copy,
        "execute_s": t_exec, "execute_draws_per_s": len(trace.executions) / t_exec,
        "engine": engines[0],
        "columns_s": t_fast, "columns_per_s": refs / t_fast,
        "columns_over_execute": t_fast / t_exec, "columns_over_copy": t_fast / t_copy,
        "columns_speedup_over_walk": t_walk / t_fast,
        "walk_references_s": t_walk, "walk_references_per_s": refs / t_walk,
        "walk_over_execute": t_walk / t_exec, "walk_over_copy": t_walk / t_copy,
        "patch_list_s": t_table, "patch_list_per_s": refs / t_table,
        "patch_list_walk_s": t_table_walk, "patch_list_walk_per_s": refs / t_table_walk,
        "formats": formats, "remap_in_memory_s": t_remap, "remap_per_s": refs / t_remap,
    }


def commands_part(commands: int) -> dict[str, Any]:
    capture = execute_indirect_capture(commands)
    counted: list[tuple[int, str]] = []

    def walked(engine: str) -> None:
        walk = walk_references(capture, lambda t: None, engine=engine)
        counted.append((walk.rows, walk.engine))

    t_fast, _ = best(lambda: walked("auto"), 5)
    t_walk, _ = best(lambda: walked("walk"))
    refs, engine = counted[0]
    return {"commands": commands, "references": refs, "engine": engine, "columns_s": t_fast,
            "columns_per_s": refs / t_fast, "walk_references_s": t_walk, "walk_references_per_s": refs / t_walk,
            "columns_speedup_over_walk": t_walk / t_fast}


# -- part 2: a capture of ~1 GiB rebased in a child process -------------------------------------------------------


def big_capture(folder: Path, nbytes: int, per_record: int) -> tuple[Path, Path, int]:
    """A culling frame of about ``nbytes`` bytes of records, the records as region files written in chunks (never
    held whole), and a VA map moving all of it; (capture, map, draws)."""
    small = culling_capture(3 * per_record, per_record)
    pcs = small.objects.program_command_signatures["PCS"]
    layout = pcs_layout(pcs)
    assert layout.secondary is not None
    sec_size, prim_size = layout.secondary.min_stride, layout.primary.min_stride
    records = max(1, nbytes // (per_record * sec_size + prim_size))
    draws = records * per_record
    prim_va, sec_va = 0x10_0000_0000, 0x20_0000_0000
    sdt, pdt = record_dtype(layout.secondary), record_dtype(layout.primary)
    chunk = 1 << 20
    with open(folder / "secondary.bin", "wb") as f:
        for a in range(0, draws, chunk):
            k = np.arange(a, min(draws, a + chunk), dtype=np.uint64)
            rec = np.zeros(len(k), dtype=sdt)
            rec["arg0_ShaderResourceView"] = 0x7000_0000 + (k % 4096) * 256
            rec["arg1_Draw"]["VertexCountPerInstance"] = 3 + k % 97
            rec["arg1_Draw"]["InstanceCount"] = 1
            rec.tofile(f)
    with open(folder / "primary.bin", "wb") as f:
        for a in range(0, records, chunk):
            k = np.arange(a, min(records, a + chunk), dtype=np.uint64)
            rec = np.zeros(len(k), dtype=pdt)
            rec["ProgramTableIndex"] = k % 3
            rec["NumSecondaryRecords"] = per_record
            rec["SecondaryRecords"] = np.uint64(sec_va) + k * np.uint64(per_record * sec_size)
            rec.tofile(f)
    capture = small
    region = capture.memory.regions[0]  # the small frame's one buffer: its dispatch input and program table
    raw = bytearray(region.data)
    header = capture.call.DispatchListInput - region.base  # the input now points at the big records
    n_at = header + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "NumProgramInputs")
    start_at = header + abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StartAddress")
    raw[n_at:n_at + 4] = records.to_bytes(4, "little")
    raw[start_at:start_at + 8] = prim_va.to_bytes(8, "little")
    big = GpuMemory()
    big.map(region.base, bytes(raw), name="small")
    big.map_file(prim_va, folder / "primary.bin", name="primary")
    big.map_file(sec_va, folder / "secondary.bin", name="secondary")
    capture.memory = big
    path = save_capture(capture, folder / "big.json")
    ranges = [{"old_base": r.base, "size": r.size, "new_base": r.base + DELTA} for r in big.regions]
    ranges += [{"old_base": 0x7000_0000, "size": 4096 * 256, "new_base": 0x7000_0000 + DELTA},
               {"old_base": 0x5000_0000, "size": 4096, "new_base": 0x5000_0000 + DELTA}]
    vamap = folder / "va.json"
    vamap.write_text(json.dumps(ranges))
    return path, vamap, draws


def remap_part(nbytes: int, per_record: int, keep: str | None, nice: bool = True) -> dict[str, Any]:
    folder = Path(keep) if keep else Path(tempfile.mkdtemp(prefix="d3d12wl-bench-remap-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        t = time.perf_counter()
        path, vamap, draws = big_capture(folder, nbytes, per_record)
        built = time.perf_counter() - t
        size = sum(p.stat().st_size for p in folder.glob("*.bin"))
        out = folder / "out"
        out.mkdir(exist_ok=True)
        load_before = os.getloadavg()
        usage = folder / "usage.txt"
        # the child reports its own peak RSS, VmHWM (ru_maxrss would count the pages of this process it was forked
        # from before it ran the command)
        code = ("import resource, runpy, sys\nsys.argv = ['d3d12wl', *sys.argv[1:]]\n"
                "try:\n    runpy.run_module('d3d12wl', run_name='__main__')\n"
                "finally:\n    r = resource.getrusage(resource.RUSAGE_SELF)\n"
                "    hwm = open('/proc/self/status').read().split('VmHWM:')[1].split()[0]\n"
                f"    open({str(usage)!r}, 'w').write(f'{{hwm}} {{r.ru_utime + r.ru_stime}}')")
        t = time.perf_counter()
        done = subprocess.run([*(["nice", "-n", "10"] if nice else []), sys.executable, "-c", code, "remap", str(path), "--va-map",
                               str(vamap), "-o", str(out / "big.json")], capture_output=True, text=True)
        wall = time.perf_counter() - t
        load_after = os.getloadavg()
        if done.returncode:
            raise SystemExit(f"remap failed ({done.returncode}): {done.stdout}{done.stderr}")
        maxrss_kib, cpu = usage.read_text().split()
        rebased = load_capture(out / "big.json")
        moved = rebased.memory.region_at(0x20_0000_0000 + DELTA)
        assert moved is not None and int.from_bytes(moved.data[:8], "little") == 0x7000_0000 + DELTA
        return {"bytes": size, "draws": draws, "built_s": built, "remap_wall_s": wall, "remap_cpu_s": float(cpu),
                "remap_peak_rss_bytes": int(maxrss_kib) * 1024, "nice": 10 if nice else 0, "load_before": load_before, "load_after": load_after,
                "summary": done.stdout.splitlines()[0]}
    finally:
        if not keep:
            for p in sorted(folder.rglob("*"), reverse=True):
                p.unlink() if p.is_file() else p.rmdir()
            folder.rmdir()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--draws", type=int, default=1_000_000)
    p.add_argument("--per-record", type=int, default=4)
    p.add_argument("--commands", type=int, default=1_000_000, help="ExecuteIndirect commands (0: skip)")
    p.add_argument("--remap-bytes", type=int, default=1 << 30, help="bytes of the rebased capture (0: skip)")
    p.add_argument("--no-nice", action="store_true", help="run the remap child at the normal priority")
    p.add_argument("--keep", metavar="DIR", help="build the large capture in DIR and keep it")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    out: dict[str, Any] = {"load": os.getloadavg()}
    out["frame"] = frame_part(args.draws, args.per_record)
    if args.commands:
        out["commands"] = commands_part(args.commands)
    if args.remap_bytes:
        out["remap"] = remap_part(args.remap_bytes, args.per_record, args.keep, not args.no_nice)
    if args.json:
        print(json.dumps(out, indent=1))
        return 0
    f = out["frame"]
    print(f"load average {out['load'][0]:.1f}; frame: {f['draws']:,} draws, {f['references']:,} references, "
          f"{f['frame_bytes'] / 1e6:.1f} MB")
    print(f"  anchors        numpy copy {f['copy_s'] * 1e3:7.1f} ms ({f['copy_bytes_per_s'] / 1e9:.1f} GB/s)   "
          f"execute {f['execute_s'] * 1e3:7.1f} ms ({f['execute_draws_per_s'] / 1e6:.1f} M draws/s)")
    print(f"  columns ({f['engine']})  {f['columns_s'] * 1e3:7.1f} ms  {f['columns_per_s'] / 1e6:6.1f} M refs/s"
          f"  ({f['columns_over_execute']:.2f}x execute, {f['columns_over_copy']:.1f}x the copy, "
          f"{f['columns_speedup_over_walk']:.1f}x faster than the walk)   target >= 50 M refs/s")
    print(f"  walk (oracle)   {f['walk_references_s'] * 1e3:7.1f} ms  {f['walk_references_per_s'] / 1e6:6.1f} M refs/s"
          f"  ({f['walk_over_execute']:.2f}x execute, {f['walk_over_copy']:.1f}x the copy)")
    print(f"  patch_list      {f['patch_list_s'] * 1e3:7.1f} ms  {f['patch_list_per_s'] / 1e6:6.1f} M refs/s   "
          f"walk-based {f['patch_list_walk_s'] * 1e3:7.1f} ms  {f['patch_list_walk_per_s'] / 1e6:6.1f} M refs/s")
    for fmt, r in f["formats"].items():
        print(f"  {fmt:<15} {r['seconds'] * 1e3:7.1f} ms  {r['rows_per_s'] / 1e6:6.1f} M rows/s  "
              f"{r['bytes'] / 1e6:.1f} MB")
    print(f"  remap (memory)  {f['remap_in_memory_s'] * 1e3:7.1f} ms  {f['remap_per_s'] / 1e6:6.1f} M refs/s")
    if "commands" in out:
        c = out["commands"]
        print(f"ExecuteIndirect: {c['commands']:,} commands, {c['references']:,} references: columns ({c['engine']}) "
              f"{c['columns_s'] * 1e3:.1f} ms ({c['columns_per_s'] / 1e6:.1f} M refs/s), walk "
              f"{c['walk_references_s'] * 1e3:.1f} ms ({c['walk_references_per_s'] / 1e6:.1f} M refs/s), "
              f"{c['columns_speedup_over_walk']:.1f}x")
    if "remap" in out:
        r = out["remap"]
        print(f"remap of {r['bytes'] / 2**30:.2f} GiB ({r['draws']:,} draws) at nice {r['nice']}: {r['remap_wall_s']:.1f} s wall, "
              f"{r['remap_cpu_s']:.1f} s CPU, peak RSS {r['remap_peak_rss_bytes'] / 2**30:.2f} GiB; load "
              f"{r['load_before'][0]:.1f} -> {r['load_after'][0]:.1f}")
        print(f"  {r['summary']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
