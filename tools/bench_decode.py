#!/usr/bin/env python3
"""Benchmark: ``d3d12wl decode`` of 1,000,000 records, from a raw readback and as a capture's call reads them.

One run (issue 24): the culling example's secondary records (spec "GPU culling and work list emission": Root SRV +
DRAW, 24 bytes each), decoded to a file as text, CSV and JSON by a fresh ``python -m d3d12wl`` process each (the
command a user runs), in these cases:

* ``raw``: ``decode culling.json PCS.secondary FILE --va BASE`` (the positional names);
* ``raw named``: the same with ``culling_named.json`` (the names of issue 24);
* ``capture``: ``decode --capture CAPTURE.json PCS.secondary``, the records gathered from where the call reads them:
  a dispatch list of ``--lists`` primary records, each with its slice of the secondary records at its
  ``SecondaryRecords`` (so every row's VA is computed from the primary records, as the executor walks them);
* ``baseline raw``: ``raw`` with ``--baseline SRC`` on the import path instead of this tree (another version of
  d3d12wl, e.g. ``git archive main``'s export with its compiled ``_native`` module copied in), in the same run.

Each figure is the best of ``--repeat`` runs (after one untimed run that writes the bytecode caches): CPU seconds
of the child (user + system), its wall time and the bytes it wrote (``--capture`` adds the list, primary and
secondary index columns), with the start-up (a decode of 0 records) measured beside them, and the ratio of each
case's CPU to ``raw`` (and to ``baseline raw``, where given).  ``--json`` prints the table.  The machine is shared: compare CPU, and
ratios within one run.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from d3d12wl.model import description  # noqa: E402
from d3d12wl.records import packers  # noqa: E402
from d3d12wl.records.layout import pcs_layout  # noqa: E402

EXAMPLES = ROOT / "d3d12wl" / "examples"
FORMATS = ("text", "csv", "json")
BASE = {"dispatch": 0x10000, "primary": 0x100000, "table": 0x200000, "secondary": 0x1000000}


def _secondary(n: int) -> np.ndarray:
    objects = description.load(EXAMPLES / "culling.json")
    pl = pcs_layout(objects.program_command_signatures["PCS"])
    i = np.arange(n, dtype=np.uint32)
    return packers.pack_secondary_records(pl, {
        "arg0_ShaderResourceView": 0x100000 + 0x100 * i.astype(np.uint64), "arg1_Draw.VertexCountPerInstance":
        36 + i % 1000, "arg1_Draw.InstanceCount": 1, "arg1_Draw.StartVertexLocation": i * 3,
        "arg1_Draw.StartInstanceLocation": 0})


def build(tmp: Path, n: int, lists: int) -> dict[str, Path]:
    """The readback, and a capture of a DispatchList whose ``lists`` primary records share its ``n`` records."""
    secondary = _secondary(n)
    sec = tmp / "secondary.bin"
    secondary.tofile(sec)
    objects = description.load(EXAMPLES / "culling.json")
    pl = pcs_layout(objects.program_command_signatures["PCS"])
    per = n // lists
    counts = np.full(lists, per, dtype=np.uint32)
    counts[-1] += n - per * lists
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.uint64)
    primary = packers.pack_primary_records(pl, {"ProgramTableIndex": np.arange(lists, dtype=np.uint32) % 3,
                                                "NumSecondaryRecords": counts,
                                                "SecondaryRecords": BASE["secondary"] + starts * np.uint64(24)})
    table = packers.pack_program_table(pl.program_table, {  # type: ignore[arg-type]
        "ProgramIdentifier": [p.Identifier for p in objects.programs.values()],
        "arg2_InlineRootParameter": np.full((3, 4), 0x3F800000, dtype=np.uint32)})
    dispatch = packers.pack_dispatch_list_inputs({"NumProgramInputs": lists, "Flags": 0,
                                                  "ProgramInputs.StartAddress": BASE["primary"],
                                                  "ProgramInputs.StrideInBytes": pl.primary.min_stride}, count=1)
    paths = {"secondary": sec}
    for key, data in (("dispatch", dispatch), ("primary", primary), ("table", table)):
        paths[key] = tmp / f"{key}.bin"
        data.tofile(paths[key])
    capture = tmp / "capture.json"
    regions = [f"{k}={paths[k]}@0x{BASE[k]:x}" for k in ("dispatch", "primary", "table", "secondary")]
    subprocess.run([sys.executable, "-m", "d3d12wl", "capture", str(EXAMPLES / "culling.json"), *regions,
                    "--dispatch-list", "dispatch", "--max-inputs", str(lists), "--program-table", "table",
                    "--root-arg", "0=0x50000", "-o", str(capture)], check=True, capture_output=True, cwd=tmp)
    paths["capture"] = capture
    return paths


def run(argv: list[str], pythonpath: str, repeat: int) -> tuple[float, float, int]:
    """Best (CPU, wall) seconds of ``python -m d3d12wl ARGV > FILE`` over ``repeat`` runs (one run first, untimed,
    to write the bytecode caches), and the bytes it wrote."""
    env = {**os.environ, "PYTHONPATH": pythonpath}
    best = (float("inf"), float("inf"))
    size = 0
    with tempfile.TemporaryFile() as out:
        for k in range(repeat + 1):
            out.seek(0)
            out.truncate()
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t = time.perf_counter()
            rc = subprocess.run([sys.executable, "-m", "d3d12wl", *argv], stdout=out, stderr=subprocess.PIPE,
                                env=env, cwd=tempfile.gettempdir()).returncode
            wall = time.perf_counter() - t
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if rc not in (0, 1):
                raise SystemExit(f"d3d12wl {' '.join(argv)} exited {rc}")
            size = out.tell()
            if k:
                cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
                best = min(best, (cpu, wall))
    return best[0], best[1], size


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--records", type=int, default=1_000_000)
    ap.add_argument("--lists", type=int, default=1000, help="primary records sharing the records (--capture)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline", metavar="SRC", help="another d3d12wl source tree to measure 'raw' with")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    here = str(ROOT)
    with tempfile.TemporaryDirectory(prefix="d3d12wl-bench-decode-") as tmp_name:
        paths = build(Path(tmp_name), args.records, args.lists)
        raw = ["decode", str(EXAMPLES / "culling.json"), "PCS.secondary", str(paths["secondary"]),
               "--va", f"0x{BASE['secondary']:x}"]
        named = ["decode", str(EXAMPLES / "culling_named.json"), *raw[2:]]
        capture = ["decode", "--capture", str(paths["capture"]), "PCS.secondary"]
        cases: dict[str, tuple[list[str], str]] = {"raw": (raw, here), "raw named": (named, here),
                                                   "capture": (capture, here)}
        if args.baseline:
            cases["baseline raw"] = (raw, str(Path(args.baseline).resolve()))
        startup = run(["decode", str(EXAMPLES / "culling.json"), "PCS.secondary", "-", "--count", "0"], here,
                      args.repeat)
        table: dict[str, dict[str, dict[str, float]]] = {}
        for fmt in FORMATS:
            table[fmt] = {}
            for name, (argv, path) in cases.items():
                cpu, wall, size = run([*argv, "--format", fmt], path, args.repeat)
                table[fmt][name] = {"cpu_s": cpu, "wall_s": wall, "bytes": size}
    load = os.getloadavg()
    report: dict[str, Any] = {"records": args.records, "lists": args.lists, "startup_cpu_s": startup[0],
                              "load_average": load, "formats": table}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"d3d12wl decode of {args.records:,} culling secondary records to a file, best of {args.repeat} "
          f"(start-up: decode of 0 records, {startup[0]:.2f} s CPU; load average {load[0]:.1f})")
    head = f"{'format':<6}  {'case':<13}  {'CPU s':>6}  {'wall s':>6}  {'MB':>6}  {'x raw':>6}"
    if args.baseline:
        head += f"  {'x baseline':>10}"
    print(head)
    for fmt, rows in table.items():
        for name, r in rows.items():
            line = (f"{fmt:<6}  {name:<13}  {r['cpu_s']:>6.2f}  {r['wall_s']:>6.2f}  {r['bytes'] / 1e6:>6.0f}  "
                    f"{r['cpu_s'] / rows['raw']['cpu_s']:>6.2f}")
            if args.baseline:
                line += f"  {r['cpu_s'] / rows['baseline raw']['cpu_s']:>10.2f}"
            print(line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
