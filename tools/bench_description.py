#!/usr/bin/env python3
"""Benchmark: the cost of large descriptions and large hex readbacks, against anchors measured in the same run
(issue 15, item 4: "100,000 arguments validated, laid out and generated in under 5 s each"; "200 MB of spaced hex in
under 5 s and 1 GB").

Descriptions, built here for each ``--sizes`` N (10,000 and 100,000 by default; add 1,000,000 for the linearity
check), each the bundled ``culling.json`` plus:

* ``wl``: a global root signature ``BIG`` of N ``32BIT_CONSTANTS`` parameters and a program command signature
  ``BIGPCS`` of N ``CONSTANT`` arguments, argument i setting one DWORD of root parameter i from the secondary record,
  then a ``DRAW``; ``SecondaryRecordByteStride`` is the minimum and ``NumArgumentDescs`` / ``NumParameters`` are
  left out (they are optional);
* ``ei``: the same root signature and an ExecuteIndirect command signature ``BIGEI`` of N ``CONSTANT`` arguments
  and a ``DRAW``, ``ByteStride`` the command's size.

Every document is valid: ``validate`` finds no violation.  For each document and each command (``validate``,
``layout``, ``layout --json``, ``codegen --lang c``, ``--lang hlsl``, ``--lang hlsl --bindings``, ``--lang
renderdoc``) it measures

* in process: ``d3d12wl.cli.main`` on the document file with stdout to ``/dev/null`` (best of ``--repeat``), as a
  library call (the command line also freezes the loaded description out of the cycle collector; a call does not),
  with this process's own objects frozen meanwhile; reported as seconds, microseconds per argument, and ratios to
  two anchors measured on the same document in the same process: ``json.loads`` of its text, and a plain
  per-argument Python loop (one formatted line per argument and parameter from the parsed JSON: the least a Python
  tool does per argument);
* through the command line: ``d3d12wl CMD FILE > /dev/null`` in a subprocess, its wall time, CPU time and peak RSS
  (``wait4``), best of ``--cli-repeat``;
* per stage, in process, for the largest size: read and parse, schema check, loader, rules, notes, layouts and
  each generator, so a regression shows where it is.

Linearity: the per-argument cost at each size against the one at the previous size (1.0 is linear; a quadratic
step shows as about the size ratio).

Hex: a capture (the bundled ``culling_capture.json``) with one more region of ``--hex-mb`` MB of spaced hex (``"4f
70 61 ..."``, 32 bytes a line, as a readback tool prints them) is loaded by ``load_capture`` in process and by
``d3d12wl dump`` through the command line (wall, CPU, peak RSS), against ``json.loads`` of its text and
``bytes.fromhex`` of its hex text.

Targets: every command under 5 s wall through the command line at 100,000 arguments; linear cost; the hex capture
under 5 s and 1 GB peak RSS.  The load average is printed: on a shared machine wall times move with it.

    python tools/bench_description.py [--sizes 10000,100000,1000000] [--repeat 3] [--cli-repeat 3]
                                      [--hex-mb 200] [--no-hex] [--json] [--keep DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import abi, cli, inputs
from d3d12wl.capture.file import HEX_LINE_BYTES, load_capture
from d3d12wl.model import description
from d3d12wl.model.state import DeviceCaps
from d3d12wl.records import codegen, hlsl_bindings, renderdoc
from d3d12wl.records.decode import declared_stride
from d3d12wl.records.layout import command_layout, pcs_layout, record_id, record_layouts, round_up
from d3d12wl.rules import check_objects
from d3d12wl.rules.notes import notes

#: the directory holding the d3d12wl package this process imported (where the command-line runs start)
PACKAGE_ROOT = Path(cli.__file__).resolve().parent.parent.parent
EXAMPLES = PACKAGE_ROOT / "d3d12wl" / "examples"
TARGET_SECONDS = 5.0
TARGET_HEX_SECONDS = 5.0
TARGET_HEX_RSS = 1 << 30
#: a per-argument cost this many times the previous size's is reported as not linear
LINEAR_SLACK = 1.5

COMMANDS: dict[str, list[str]] = {
    "validate": ["validate"],
    "layout": ["layout"],
    "layout --json": ["layout", "--json"],
    "codegen c": ["codegen", "--lang", "c"],
    "codegen hlsl": ["codegen", "--lang", "hlsl"],
    "codegen hlsl --bindings": ["codegen", "--lang", "hlsl", "--bindings"],
    # (every record's format: text output takes one --record, and the documents' records differ by case)
    "codegen renderdoc": ["codegen", "--lang", "renderdoc", "--json"],
}
CASES = ("wl", "ei")


# --------------------------------------------------------------------------------------------------------------
# The documents
# --------------------------------------------------------------------------------------------------------------


def _root_signature(n: int) -> dict[str, Any]:
    return {"pParameters": [{"ParameterType": "32BIT_CONSTANTS",
                             "Constants": {"ShaderRegister": i, "Num32BitValues": 1}, "ShaderVisibility": "ALL"}
                            for i in range(n)]}


def argument_document(case: str, n: int) -> dict[str, Any]:
    """The ``case`` document with ``n`` arguments (see the module docstring); its strides come from the layout
    calculator, so the document is valid by construction."""
    doc: dict[str, Any] = json.loads((EXAMPLES / "culling.json").read_text(encoding="utf-8"))
    doc["program_command_signatures"]["PCS"].pop("NumArgumentDescs", None)
    doc["root_signatures"]["BIG"] = _root_signature(n)
    if case == "wl":
        args = [{"Type": "CONSTANT", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE",
                 "Constant": {"RootParameterIndex": i, "Num32BitValuesToSet": 1}} for i in range(n)]
        args.append({"Type": "DRAW", "Source": "SECONDARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE"})
        pcs: dict[str, Any] = {"pArgumentDescs": args, "pGlobalRootSignature": "BIG"}
        doc["program_command_signatures"]["BIGPCS"] = pcs
        secondary = pcs_layout(description.load(doc).program_command_signatures["BIGPCS"]).secondary
        assert secondary is not None
        pcs["SecondaryRecordByteStride"] = secondary.min_stride
    elif case == "ei":
        args = [{"Type": "CONSTANT", "Constant": {"RootParameterIndex": i, "Num32BitValuesToSet": 1}}
                for i in range(n)]
        args.append({"Type": "DRAW"})
        cs: dict[str, Any] = {"pArgumentDescs": args, "pRootSignature": "BIG"}
        doc["command_signatures"] = {"BIGEI": cs}
        cs["ByteStride"] = round_up(command_layout(description.load(doc).command_signatures["BIGEI"]).size, 4)
    else:
        raise ValueError(case)
    return doc


def _arguments(doc: dict[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for coll in ("program_command_signatures", "command_signatures"):
        for obj in doc.get(coll, {}).values():
            out += obj["pArgumentDescs"]
    return out


def python_loop(doc: dict[str, Any]) -> list[str]:
    """The per-argument anchor: one formatted line per argument and root parameter of the parsed document."""
    lines = []
    for i, a in enumerate(_arguments(doc)):
        payload = a.get("Constant") or {}
        lines.append(f"arg{i} {a['Type']} {a.get('Source', '-')} {a.get('Binding', '-')} "
                     f"{payload.get('RootParameterIndex', '-')} {payload.get('Num32BitValuesToSet', '-')}")
    for rs in doc["root_signatures"].values():
        for p, param in enumerate(rs["pParameters"]):
            lines.append(f"param{p} {param['ParameterType']} {param.get('ShaderVisibility', '-')}")
    return lines


def hex_capture(hex_bytes: int) -> tuple[dict[str, Any], str]:
    """The bundled culling capture with one more region holding ``hex_bytes`` of spaced hex text (32 bytes a line),
    and that hex text as one string (for the ``bytes.fromhex`` anchor)."""
    doc: dict[str, Any] = json.loads((EXAMPLES / "culling_capture.json").read_text(encoding="utf-8"))
    size = hex_bytes // 3 // HEX_LINE_BYTES * HEX_LINE_BYTES
    data = np.random.default_rng(0).integers(0, 256, size, dtype=np.uint8).tobytes()
    lines = [data[i:i + HEX_LINE_BYTES].hex(" ") for i in range(0, size, HEX_LINE_BYTES)]
    doc["memory"].append({"name": "readback", "base": "0x7000000000", "hex": lines})
    return doc, " ".join(lines)


# --------------------------------------------------------------------------------------------------------------
# Measuring
# --------------------------------------------------------------------------------------------------------------


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The fastest of ``repeat`` runs of ``fn``, in seconds."""
    times = []
    for _ in range(max(1, repeat)):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return min(times)


def in_process(argv: list[str]) -> int:
    """``d3d12wl ARGV`` in this process, its output to /dev/null; its exit status."""
    with open(os.devnull, "w", encoding="utf-8") as sink, contextlib.redirect_stdout(sink):
        return cli.main(argv)


#: runs ``sys.argv[1:]`` as a child and prints its wall seconds, CPU seconds and peak RSS (KiB) as JSON: a small
#: process of its own, so the child's peak RSS does not start from this one's (Linux counts the memory a process
#: had when it forked in the child's ru_maxrss)
_LAUNCHER = """
import json, os, subprocess, sys, time
t = time.perf_counter()
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL)
_, status, usage = os.wait4(proc.pid, 0)
print(json.dumps({"wall_s": time.perf_counter() - t, "cpu_s": usage.ru_utime + usage.ru_stime,
                  "rss_bytes": usage.ru_maxrss * 1024, "exit": os.waitstatus_to_exitcode(status)}))
"""


def _run_recording(argv: list[str], codes: list[int]) -> None:
    codes.append(in_process(argv))


def through_cli(argv: list[str], repeat: int) -> dict[str, float]:
    """``d3d12wl ARGV > /dev/null`` in a fresh process: best wall and CPU seconds of ``repeat`` runs after one
    warm-up, and the peak RSS in bytes.  The children run with bytecode caching on (``PYTHONDONTWRITEBYTECODE``
    removed from their environment), as after ``pip install``, like tools/bench_startup.py."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [sys.executable, "-c", _LAUNCHER, sys.executable, "-m", "d3d12wl", *argv]
    runs = []
    for i in range(max(1, repeat) + 1):
        # (run from the package's parent: ``-m`` puts the working directory first on sys.path, so the command runs
        # the same d3d12wl as this process)
        done = subprocess.run(command, env=env, check=True, capture_output=True, text=True, cwd=PACKAGE_ROOT)
        run = json.loads(done.stdout)
        if run["exit"] != 0:
            raise RuntimeError(f"d3d12wl {' '.join(argv)}: exit {run['exit']}: {done.stderr[-2000:]}")
        if i:  # (the first run is the warm-up: it writes the bytecode caches)
            runs.append(run)
    return {"wall_s": min(r["wall_s"] for r in runs), "cpu_s": min(r["cpu_s"] for r in runs),
            "rss_bytes": max(r["rss_bytes"] for r in runs), "exit": runs[-1]["exit"]}


def stages(doc: dict[str, Any], case: str) -> dict[str, float]:
    """Seconds per stage of the commands, in process, one run each."""
    out: dict[str, float] = {}

    def timed(name: str, fn: Callable[[], Any]) -> Any:
        t = time.perf_counter()
        value = fn()
        out[name] = time.perf_counter() - t
        return value

    text = json.dumps(doc)
    parsed = timed("read and parse (inputs.parse_json)", lambda: inputs.parse_json(text, where="doc"))
    timed("schema check", lambda: description.validate_schema(parsed))
    objects = timed("loader (model objects)", lambda: description.load(parsed))
    caps = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "D3D12_WORK_LISTS_TIER_2"))
    violations = timed("rules (check_objects)", lambda: check_objects(objects, caps))
    assert not violations, violations[:3]
    timed("notes", lambda: notes(objects))
    layouts = timed("layouts (record_layouts)", lambda: record_layouts(objects))
    from d3d12wl.cli import layout_cmd
    timed("layout text", lambda: layout_cmd.layout_text(objects))
    timed("layout --json (dict)", lambda: layout_cmd.layout_json(objects))
    timed("C source", lambda: codegen.c_source(layouts))
    timed("HLSL source", lambda: codegen.hlsl_source(layouts))
    timed("HLSL bindings", lambda: hlsl_bindings.hlsl_bindings(objects, None, layouts))
    strides = {record_id(r): declared_stride(r)[0] for r in layouts}
    timed("RenderDoc formats", lambda: renderdoc.source(layouts, [], strides))
    return out


def load_average() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - a platform without it
        return "unknown"


def bench_descriptions(cases: tuple[str, ...], sizes: list[int], repeat: int, cli_repeat: int, directory: Path
                       ) -> dict[str, Any]:
    results: dict[str, Any] = {}
    for case in cases:
        results[case] = {}
        for n in sizes:
            doc = argument_document(case, n)
            text = json.dumps(doc)
            path = directory / f"{case}_{n}.json"
            path.write_text(text, encoding="utf-8")
            args = len(_arguments(doc))
            t_json = best(lambda: json.loads(text), repeat)
            t_loop = best(lambda: python_loop(doc), repeat)
            row: dict[str, Any] = {"arguments": args, "bytes": len(text), "json_loads_s": t_json,
                                   "python_loop_s": t_loop, "commands": {}}
            # this process's own objects (the documents, the results) kept out of the cycle collector's sight while
            # the commands run, as in a program that calls d3d12wl with little else alive; the commands' own objects
            # are collected as any library's are (only the command line freezes its description)
            gc.collect()
            gc.freeze()
            try:
                for label, argv in COMMANDS.items():
                    codes: list[int] = []
                    t = best(functools.partial(_run_recording, [*argv, str(path)], codes), repeat)
                    assert set(codes) == {0}, f"{case} {n} {label}: exit {codes}"
                    row["commands"][label] = {"in_process_s": t, "us_per_arg": t / args * 1e6,
                                              "x_json_loads": t / t_json, "x_python_loop": t / t_loop,
                                              "cli": through_cli([*argv, str(path)], cli_repeat)}
            finally:
                gc.unfreeze()
            if n == max(sizes):
                row["stages"] = stages(doc, case)
            results[case][str(n)] = row
            print(f"  measured {case} {n:,}", file=sys.stderr)
    return results


def _hex_anchors(doc: dict[str, Any], hex_text: str, path: Path, repeat: int) -> dict[str, float]:
    text = json.dumps(doc, indent=1)
    path.write_text(text, encoding="utf-8")
    return {"hex_chars": len(hex_text), "json_loads_s": best(lambda: json.loads(text), repeat),
            "fromhex_s": best(lambda: bytes.fromhex(hex_text), repeat)}


def bench_hex(hex_mb: int, repeat: int, cli_repeat: int, directory: Path) -> dict[str, Any]:
    path = directory / f"hex_{hex_mb}mb.json"
    out: dict[str, Any] = _hex_anchors(*hex_capture(hex_mb * 1_000_000), path, repeat)
    out["file_bytes"] = path.stat().st_size
    out["load_capture_s"] = best(lambda: load_capture(path), repeat)
    out["cli_dump"] = through_cli(["dump", str(path)], cli_repeat)
    return out


# --------------------------------------------------------------------------------------------------------------
# Report
# --------------------------------------------------------------------------------------------------------------


def report(results: dict[str, Any], cases: tuple[str, ...], sizes: list[int], repeat: int, cli_repeat: int) -> bool:
    ok = True
    print(f"d3d12wl description benchmark (in process: best of {repeat}; command line: best of {cli_repeat}, wall; "
          f"load average {results['load_average']} at the start; d3d12wl from {results['package']})")
    for case in cases:
        for n in sizes:
            row = results["descriptions"][case][str(n)]
            print(f"\n{case}: {row['arguments']:,} arguments ({row['bytes'] / 1e6:.1f} MB of JSON); anchors: json.loads "
                  f"{row['json_loads_s']:.3f} s, per-argument Python loop {row['python_loop_s']:.3f} s")
            print(f"  {'command':18} {'in-process s':>12} {'us/arg':>7} {'x json':>7} {'x loop':>7} "
                  f"{'CLI wall s':>10} {'CLI cpu s':>9} {'peak RSS':>9}")
            for label, r in row["commands"].items():
                c = r["cli"]
                met = c["wall_s"] < TARGET_SECONDS or n > 100_000
                ok &= met
                print(f"  {label:18} {r['in_process_s']:>12.2f} {r['us_per_arg']:>7.1f} {r['x_json_loads']:>7.1f} "
                      f"{r['x_python_loop']:>7.1f} {c['wall_s']:>10.2f} {c['cpu_s']:>9.2f} "
                      f"{c['rss_bytes'] / 2**20:>5.0f} MiB" + ("" if met else "  (over 5 s)"))
        for a, b in zip(sizes, sizes[1:], strict=False):
            ra, rb = results["descriptions"][case][str(a)], results["descriptions"][case][str(b)]
            growth = {label: rb["commands"][label]["us_per_arg"] / ra["commands"][label]["us_per_arg"]
                      for label in COMMANDS}
            linear = all(g < LINEAR_SLACK for g in growth.values())
            ok &= linear
            print(f"  per-argument cost at {b:,} / at {a:,}: "
                  + ", ".join(f"{label} {g:.2f}" for label, g in growth.items()) + ("" if linear else "  (NOT linear)"))
        big = results["descriptions"][case][str(max(sizes))]
        print(f"  stages at {max(sizes):,} (in process, one run): "
              + ", ".join(f"{k} {v:.2f} s" for k, v in big["stages"].items()))
    if "hex" in results:
        h = results["hex"]
        c = h["cli_dump"]
        met = c["wall_s"] < TARGET_HEX_SECONDS and c["rss_bytes"] < TARGET_HEX_RSS
        ok &= met
        print(f"\nhex: a capture with {h['hex_chars'] / 1e6:.0f} MB of spaced hex ({h['file_bytes'] / 1e6:.0f} MB file)")
        print(f"  load_capture {h['load_capture_s']:.2f} s in process (json.loads {h['json_loads_s']:.2f} s, "
              f"bytes.fromhex {h['fromhex_s']:.2f} s: {h['load_capture_s'] / h['json_loads_s']:.1f}x json.loads); "
              f"d3d12wl dump: {c['wall_s']:.2f} s wall, {c['cpu_s']:.2f} s CPU, {c['rss_bytes'] / 2**20:.0f} MiB peak RSS"
              + ("" if met else "  (target NOT met)"))
    print(f"\ntargets (every command < {TARGET_SECONDS:.0f} s wall at up to 100,000 arguments, per-argument cost "
          f"within {LINEAR_SLACK}x across sizes, hex < {TARGET_HEX_SECONDS:.0f} s and < 1 GiB): "
          f"{'met' if ok else 'NOT met'}")
    return ok


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="10000,100000", help="argument counts, comma-separated (default 10000,100000)")
    ap.add_argument("--repeat", type=int, default=3, help="in-process runs per figure; the best is kept (default 3)")
    ap.add_argument("--cli-repeat", type=int, default=3, help="command-line runs per figure (default 3)")
    ap.add_argument("--hex-mb", type=int, default=200, help="MB of spaced hex in the capture (default 200)")
    ap.add_argument("--no-hex", action="store_true", help="skip the hex capture")
    ap.add_argument("--cases", default=",".join(CASES), help="wl, ei or both (default: both)")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--keep", metavar="DIR", help="write the documents to DIR and keep them")
    args = ap.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(","))
    cases = tuple(c for c in args.cases.split(",") if c)

    with contextlib.ExitStack() as stack:
        directory = Path(args.keep) if args.keep else Path(stack.enter_context(tempfile.TemporaryDirectory()))
        directory.mkdir(parents=True, exist_ok=True)
        results: dict[str, Any] = {"load_average": load_average(), "package": str(PACKAGE_ROOT),
                                   "descriptions": bench_descriptions(cases, sizes, args.repeat, args.cli_repeat, directory)}
        if not args.no_hex:
            results["hex"] = bench_hex(args.hex_mb, args.repeat, args.cli_repeat, directory)
    results["load_average_end"] = load_average()
    results["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    if args.json:
        print(json.dumps(results, indent=2))
        return 0
    report(results, cases, sizes, args.repeat, args.cli_repeat)
    print(f"this process's peak RSS: {results['peak_rss_bytes'] / 2**20:.0f} MiB; load average at the end "
          f"{results['load_average_end']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
