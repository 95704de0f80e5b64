#!/usr/bin/env python3
"""Benchmark: pack and parse Work Lists records with d3d12wl, with construct, and copy the same bytes with numpy.

One run, one process (issue 4, item 4):

* 1,000,000 secondary records of the culling example (spec "GPU culling and work list emission"): Root SRV + DRAW,
  24 bytes each;
* 100,000 primary records of the same example (the hybrid header ``D3D12_WORK_LIST_PRIMARY_RECORD``, 16 bytes).

For each record set and each of pack and parse it measures records/s for

* ``d3d12wl``: the vectorized packers (``pack_*_records`` from column arrays into a new buffer) and readers
  (``read_*_records`` + ``to_columns``: the bytes back into new column arrays);
* ``construct``: a construct ``Struct`` built and parsed one record at a time, the way a user without d3d12wl
  would; timed on a sample (``--construct-sample`` records, 20,000 by default) so the run stays short;
* ``memcpy``: numpy copying the same number of bytes into a new buffer (the memory-bandwidth anchor).

Each figure is the best of ``--repeat`` runs.  It prints the ratios d3d12wl/construct and d3d12wl/memcpy, and the
peak extra memory (tracemalloc) of packing the 1,000,000 secondary records against the output size.  ``--json``
prints ``{"secondary": {"pack": {"d3d12wl": rps, "construct": rps, "memcpy": rps}, "parse": {...}},
"primary": {...}}``.

Targets (issue 4): d3d12wl >= 200x construct and >= 40% of the memcpy rate; peak extra memory < 3x the output.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl.model import description
from d3d12wl.records.layout import PCSLayout, RecordLayout, pcs_layout
from d3d12wl.records.packers import (
    pack_primary_records,
    pack_secondary_records,
    read_primary_records,
    read_secondary_records,
    to_columns,
)
from d3d12wl.records.schemas import record_schema

EXAMPLE = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples" / "culling.json"
TARGET_CONSTRUCT = 200.0
TARGET_MEMCPY = 0.40
TARGET_MEMORY = 3.0


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds."""
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def culling_layout() -> PCSLayout:
    objects = description.load(EXAMPLE)
    return pcs_layout(objects.program_command_signatures["PCS"])


def secondary_columns(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "arg0_ShaderResourceView": rng.integers(0, 1 << 40, n, dtype=np.uint64) << np.uint64(8),
        "arg1_Draw.VertexCountPerInstance": rng.integers(3, 1 << 16, n, dtype=np.uint32),
        "arg1_Draw.InstanceCount": np.ones(n, dtype=np.uint32),
        "arg1_Draw.StartVertexLocation": rng.integers(0, 1 << 24, n, dtype=np.uint32),
        "arg1_Draw.StartInstanceLocation": np.zeros(n, dtype=np.uint32),
    }


def primary_columns(n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    return {
        "ProgramTableIndex": rng.integers(0, 64, n, dtype=np.uint32),
        "NumSecondaryRecords": rng.integers(0, 256, n, dtype=np.uint32),
        "SecondaryRecords": rng.integers(0, 1 << 40, n, dtype=np.uint64) << np.uint64(3),
    }


def nested(columns: dict[str, np.ndarray], i: int) -> dict[str, Any]:
    """Record ``i`` as the nested dict a construct user builds from."""
    out: dict[str, Any] = {}
    for path, col in columns.items():
        *parents, leaf = path.split(".")
        d = out
        for p in parents:
            d = d.setdefault(p, {})
        d[leaf] = int(col[i])
    return out


def measure(name: str, layout: RecordLayout, n: int, columns: dict[str, np.ndarray],
            pack: Callable[[dict[str, np.ndarray]], np.ndarray], read: Callable[[np.ndarray], np.ndarray],
            sample: int, repeat: int) -> dict[str, dict[str, float]]:
    packed = pack(columns)
    stride = packed.nbytes // n
    # d3d12wl
    t_pack = best(lambda: pack(columns), repeat)
    t_parse = best(lambda: to_columns(read(packed)), repeat)
    # memcpy anchor: numpy copies the same bytes into a new buffer
    t_copy = best(lambda: packed.copy(), repeat)
    # construct, per record, on a sample
    k = min(sample, n)
    schema = record_schema(layout, stride)
    records = [nested(columns, i) for i in range(k)]
    raw = packed[:k * stride].tobytes()
    chunks = [raw[i * stride:(i + 1) * stride] for i in range(k)]
    c_build = best(lambda: [schema.build(r) for r in records], max(1, repeat // 2))
    c_parse = best(lambda: [schema.parse(c) for c in chunks], max(1, repeat // 2))
    assert b"".join(schema.build(r) for r in records[:100]) == raw[:100 * stride], f"{name}: construct disagrees"
    return {
        "pack": {"d3d12wl": n / t_pack, "construct": k / c_build, "memcpy": n / t_copy},
        "parse": {"d3d12wl": n / t_parse, "construct": k / c_parse, "memcpy": n / t_copy},
    }


def bandwidth_anchor(repeat: int) -> float:
    """Bytes/s of numpy copying 100 MB (design.md "Measured anchors": the memcpy limit, beyond the caches)."""
    src = np.ones(100_000_000, dtype=np.uint8)
    dst = np.empty_like(src)
    return src.nbytes / best(lambda: np.copyto(dst, src), max(2, repeat // 2))


def peak_memory(layout: PCSLayout, columns: dict[str, np.ndarray]) -> tuple[int, int]:
    """(peak extra bytes while packing, output bytes), measured with tracemalloc (numpy reports its buffers)."""
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        before = tracemalloc.get_traced_memory()[0]
        out = pack_secondary_records(layout, columns)
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    return peak, out.nbytes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--secondary", type=int, default=1_000_000, help="secondary records (default 1,000,000)")
    ap.add_argument("--primary", type=int, default=100_000, help="primary records (default 100,000)")
    ap.add_argument("--construct-sample", type=int, default=20_000,
                    help="records construct builds and parses per timing (default 20,000)")
    ap.add_argument("--repeat", type=int, default=7, help="runs per figure; the best is kept (default 7)")
    args = ap.parse_args(argv)

    layout = culling_layout()
    assert layout.secondary is not None
    rng = np.random.default_rng(0)
    sec = secondary_columns(args.secondary, rng)
    pri = primary_columns(args.primary, rng)
    results = {
        "secondary": measure("secondary", layout.secondary, args.secondary, sec,
                             lambda c: pack_secondary_records(layout, c), lambda b: read_secondary_records(layout, b),
                             args.construct_sample, args.repeat),
        "primary": measure("primary", layout.primary, args.primary, pri,
                           lambda c: pack_primary_records(layout, c), lambda b: read_primary_records(layout, b),
                           args.construct_sample, args.repeat),
    }
    peak, size = peak_memory(layout, sec)
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    ok = True
    print(f"d3d12wl records benchmark (best of {args.repeat}; construct timed per record on "
          f"{min(args.construct_sample, args.secondary):,} records; memcpy = numpy copy of the same bytes)")
    for kind, label in (("secondary", f"{args.secondary:,} secondary records (24 bytes, SRV + DRAW)"),
                        ("primary", f"{args.primary:,} primary records (16 bytes, D3D12_WORK_LIST_PRIMARY_RECORD)")):
        print(f"\n{label}")
        print(f"  {'':6} {'d3d12wl rec/s':>15} {'construct rec/s':>16} {'memcpy rec/s':>15} "
              f"{'x construct':>12} {'of memcpy':>10}")
        for op in ("pack", "parse"):
            r = results[kind][op]
            vs_c, vs_m = r["d3d12wl"] / r["construct"], r["d3d12wl"] / r["memcpy"]
            ok &= vs_c >= TARGET_CONSTRUCT and vs_m >= TARGET_MEMCPY
            print(f"  {op:6} {r['d3d12wl']:>15,.0f} {r['construct']:>16,.0f} {r['memcpy']:>15,.0f} "
                  f"{vs_c:>11,.0f}x {vs_m:>9.0%}")
    ok &= peak < TARGET_MEMORY * size
    bandwidth = bandwidth_anchor(args.repeat)
    print(f"\nfor reference, the 100 MB memory-bandwidth anchor (numpy copyto): {bandwidth / 1e9:.1f} GB/s; "
          f"d3d12wl as a share of it:")
    for kind, record_size in (("secondary", 24), ("primary", 16)):
        shares = ", ".join(f"{op} {results[kind][op]['d3d12wl'] * record_size / bandwidth:.0%}" for op in ("pack", "parse"))
        print(f"  {kind}: {shares}")
    print(f"\npeak extra memory packing {args.secondary:,} secondary records: {peak / 2**20:.1f} MiB "
          f"for {size / 2**20:.1f} MiB of output ({peak / size:.2f}x)")
    print(f"targets (>= {TARGET_CONSTRUCT:.0f}x construct, >= {TARGET_MEMCPY:.0%} of memcpy, "
          f"< {TARGET_MEMORY:.0f}x output memory): {'met' if ok else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
