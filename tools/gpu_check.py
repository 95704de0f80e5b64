#!/usr/bin/env python3
"""Hold the reference executor to what a real GPU did: lower captures to ``VK_EXT_device_generated_commands``
(:mod:`d3d12wl.vulkan`), run them on the GPU machine through the C harness of ``tools/gpu/``, and compare the GPU's
records with the executor's trace, draw by draw (docs/vulkan.md).

Three steps, because the GPU machine has neither this package nor a network::

    python tools/gpu_check.py prepare DIR [--draws N]    # here: cases, harness binary, SPIR-V, run.sh into DIR
    (on the GPU machine, DIR carried as the working tree's .gpu:)  bash .gpu/run.sh
    python tools/gpu_check.py compare RESULTS [--draws N] [--json OUT]   # here: GPU records vs the executor

``prepare`` needs gcc, the Vulkan headers (Debian's libvulkan-dev) and glslc.  The cases: the bundled culling and
ExecuteIndirect examples, a Tier 1 compute work list (:func:`d3d12wl.vulkan.captures.build_compute_capture`), an
ExecuteIndirect of indexed draws (:func:`d3d12wl.vulkan.captures.build_indexed_capture`), a work list using
the three record pointers (:func:`d3d12wl.vulkan.captures.build_pointer_capture`), the two lists of the
bundled Tier 2 chain (``tier2_chain.0``, ``tier2_chain.1``: one DGC execute each) and a
``--draws``-draw graphics work list built with the builder (:func:`d3d12wl.vulkan.captures.build_big_capture`,
default 1 M = 2**20 draws).  ``compare`` re-derives every capture, runs the executor on it (timed), and compares:

* the GPU's records with the records the executor's trace implies (:func:`d3d12wl.vulkan.harness.expected_records`);
* the GPU's records with the CPU model of the lowered sequence buffer (:func:`d3d12wl.vulkan.case.model_records`),
  so that a mismatch says which side, the lowering or the executor, differs from the GPU.

For the big case the GPU machine itself checks every record against the model and sends back all records
compressed (``big.rec.xz``) when they fit, else every 1024th record (``big.sample.rec``).

The GPU walker (``tools/gpu/walk.comp``, :mod:`d3d12wl.vulkan.walker`) generates the sequence buffer of the
DispatchList cases on the GPU from the captured record bytes; the harness compares it byte for byte with the CPU
lowering's, then runs DGC on the GPU-generated sequences and the machine checks those records against the model.
"""

from __future__ import annotations

import argparse
import gzip
import json
import lzma
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl.capture.file import load_capture
from d3d12wl.executor import execute
from d3d12wl.executor.trace import Limits
from d3d12wl.vulkan import lower_capture
from d3d12wl.vulkan.captures import (
    build_big_capture,
    build_compute_capture,
    build_indexed_capture,
    build_pointer_capture,
)
from d3d12wl.vulkan.case import compare_records, model_records, write_case
from d3d12wl.vulkan.harness import case_of, expected_records
from d3d12wl.vulkan.walker import plan_of

ROOT = Path(__file__).resolve().parent.parent
GPU_SRC = ROOT / "tools" / "gpu"
EXAMPLES = ROOT / "d3d12wl" / "examples"
SAMPLE_EVERY = 1024

RUN_HEAD = """#!/bin/bash
# written by tools/gpu_check.py prepare; run from the repository root on the GPU machine
set -euo pipefail
for f in .gl/*.deb; do [ -e "$f" ] || continue; dpkg -x "$f" /; done; ldconfig
cd .gpu
if ! ./dgc_harness --probe > $OUT/probe.json 2>/tmp/probe.err; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  ./dgc_harness --probe > $OUT/probe.json || {{ cat /tmp/probe.err; exit 1; }}
fi
cat $OUT/probe.json
addjson() {{ python3 -c "import json,sys; d=json.load(open(sys.argv[2])); d['name']=sys.argv[1]; print(json.dumps(d))" "$1" "$2" >> "$3"; }}
# DGC on the CPU-generated sequences
for c in {small}; do
  ./dgc_harness $c.case $OUT/$c.rec /tmp/$c.summary.json spv {repeat_small}
  cat /tmp/$c.summary.json >> $OUT/summaries.jsonl
done
"""
RUN_BIG = """gunzip -c big.case.gz > /tmp/big.case
gunzip -c big.plan.gz > /tmp/big.plan
./dgc_harness /tmp/big.case /tmp/big.rec /tmp/big.summary.json spv {repeat_big}
cat /tmp/big.summary.json >> $OUT/summaries.jsonl
# a mismatch (exit 1) is recorded, and the verdict of compare fails on it; a crash (no check file) stops here
PYTHONPATH=py python3 -m d3d12wl.vulkan.case check /tmp/big.case /tmp/big.rec /tmp/big.check.json || [ $? -eq 1 ]
addjson big /tmp/big.check.json $OUT/summaries.jsonl
"""
RUN_WALK = """# the GPU walker: sequences generated on the GPU from the record bytes, then DGC on them
for c in {walked}; do
  p=$c.plan; k=$c.case; [ -e $p ] || {{ p=/tmp/$c.plan; k=/tmp/$c.case; }}
  ./dgc_harness --walk $p $k /tmp/$c.walked.case /tmp/$c.walk.json spv {repeat_small} || [ $? -eq 1 ]
  cat /tmp/$c.walk.json >> $OUT/walks.jsonl
  ./dgc_harness /tmp/$c.walked.case /tmp/$c.walked.rec /tmp/$c.walked.summary.json spv 1
  PYTHONPATH=py python3 -m d3d12wl.vulkan.case check /tmp/$c.walked.case /tmp/$c.walked.rec \\
    /tmp/$c.walked.check.json || [ $? -eq 1 ]
  addjson $c /tmp/$c.walked.check.json $OUT/walks.jsonl
done
cat $OUT/summaries.jsonl $OUT/walks.jsonl
"""
RUN_BIG_RECORDS = """python3 - <<'PY'
import lzma, os, numpy as np
out = os.environ["OUT"]
data = open("/tmp/big.rec", "rb").read()
dwords = {record_dwords}
rec = np.frombuffer(data, dtype="<u4").reshape(-1, dwords)
keep = np.r_[np.arange(0, len(rec), {every}), len(rec) - 1]
packed = lzma.compress(data, preset=6)
print("big records", len(data), "bytes, xz", len(packed))
if len(packed) < 15 << 20:
    open(os.path.join(out, "big.rec.xz"), "wb").write(packed)
else:
    rec[keep].tofile(os.path.join(out, "big.sample.rec"))
PY
"""


def _cases(draws: int) -> dict[str, tuple[Callable[[], Any], int | None]]:
    """name -> (the capture, the list of a DispatchList1 chain or None)."""
    def example(name: str) -> Callable[[], Any]:
        return lambda: load_capture(EXAMPLES / f"{name}_capture.json")

    return {"culling": (example("culling"), None),
            "execute_indirect": (example("execute_indirect"), None),
            "compute": (build_compute_capture, None),
            "indexed": (build_indexed_capture, None),
            "pointers": (build_pointer_capture, None),
            "tier2_chain.0": (example("tier2_chain"), 0),
            "tier2_chain.1": (example("tier2_chain"), 1),
            "big": (lambda: build_big_capture(draws), None)}


def _lowering(capture: Any, list_index: int | None) -> Any:
    low = lower_capture(capture, sequence_index=True)
    return low if list_index is None else low.lists[list_index]


def _selected(draws: int, names: list[str] | None) -> dict[str, tuple[Callable[[], Any], int | None]]:
    cases = _cases(draws)
    unknown = sorted(set(names or ()) - set(cases))
    if unknown:
        raise SystemExit(f"unknown cases {unknown}; known: {sorted(cases)}")
    return {k: v for k, v in cases.items() if names is None or k in names}


def prepare(out: Path, draws: int, repeat_small: int, repeat_big: int, names: list[str] | None = None) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / "spv").mkdir(exist_ok=True)
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers", "-o",
                    str(out / "dgc_harness"), str(GPU_SRC / "harness.c"), "-lvulkan"], check=True)
    for shader in ("record.vert", "record.comp"):
        subprocess.run(["glslc", "--target-env=vulkan1.3", "-O", str(GPU_SRC / shader), "-o",
                        str(out / "spv" / f"{shader}.spv")], check=True)
    py = out / "py" / "d3d12wl" / "vulkan"
    py.mkdir(parents=True, exist_ok=True)
    (py.parent / "__init__.py").write_text("", encoding="utf-8")
    (py / "__init__.py").write_text("", encoding="utf-8")
    for shader in ("walk.comp",):
        subprocess.run(["glslc", "--target-env=vulkan1.3", "-O", str(GPU_SRC / shader), "-o",
                        str(out / "spv" / f"{shader}.spv")], check=True)
    for module in ("vk.py", "case.py"):
        shutil.copy(ROOT / "d3d12wl" / "vulkan" / module, py / module)
    manifest: dict[str, Any] = {"draws": draws, "cases": {}}
    small: list[str] = []
    walked: list[str] = []
    big_dwords = 0
    for name, (build, list_index) in _selected(draws, names).items():
        capture = build()
        lowering = _lowering(capture, list_index)
        case = case_of(lowering)
        plan = plan_of(lowering, capture.memory).to_bytes() if lowering.walk is not None else None
        if plan is not None:
            walked.append(name)
        if name != "big":
            small.append(name)
        if name == "big":
            with gzip.open(out / "big.case.gz", "wb", compresslevel=6) as f:
                f.write(case.to_bytes())
            if plan is not None:
                with gzip.open(out / "big.plan.gz", "wb", compresslevel=6) as f:
                    f.write(plan)
            big_dwords = case.record_dwords
        else:
            write_case(case, out / f"{name}.case")
            if plan is not None:
                (out / f"{name}.plan").write_bytes(plan)
        manifest["cases"][name] = {"sequences": case.count, "stride": case.stride, "tokens": len(case.tokens),
                                   "record_dwords": case.record_dwords}
    script = RUN_HEAD.format(small=" ".join(small), repeat_small=repeat_small)
    if big_dwords:
        script += RUN_BIG.format(repeat_big=repeat_big)
    script += RUN_WALK.format(walked=" ".join(walked), repeat_small=repeat_small)
    if big_dwords:
        script += RUN_BIG_RECORDS.format(record_dwords=big_dwords, every=SAMPLE_EVERY)
    (out / "run.sh").write_text(script, encoding="utf-8")
    (out / "run.sh").chmod(0o755)
    (out / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(manifest, indent=1))


def _records(path: Path, dwords: int) -> np.ndarray:
    data = lzma.decompress(path.read_bytes()) if path.suffix == ".xz" else path.read_bytes()
    return np.frombuffer(data, dtype="<u4").reshape(-1, dwords)


def compare(results: Path, draws: int, names: list[str] | None = None) -> dict[str, Any]:
    summaries: dict[str, dict[str, Any]] = {}
    checks: dict[str, dict[str, Any]] = {}
    walks: dict[str, dict[str, Any]] = {}
    walked_checks: dict[str, dict[str, Any]] = {}
    for file, runs, named in (("summaries.jsonl", summaries, checks), ("walks.jsonl", walks, walked_checks)):
        if (results / file).exists():
            for line in (results / file).read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                s = json.loads(line)
                if "name" in s:
                    named[s["name"]] = s
                else:
                    runs[str(s.get("case", s.get("walk", ""))).removesuffix(".case").removesuffix(".plan")] = s
    report: dict[str, Any] = {"probe": json.loads((results / "probe.json").read_text(encoding="utf-8"))
                              if (results / "probe.json").exists() else None, "cases": {}}
    for name, (build, list_index) in _selected(draws, names).items():
        capture = build()
        lowering = _lowering(capture, list_index)
        case = case_of(lowering)
        limits = Limits(max_executions=1 << 24, max_records=1 << 24)
        t0 = time.perf_counter()
        trace = execute(capture, limits)
        t1 = time.perf_counter()
        trace_dict = trace.to_dict()
        t2 = time.perf_counter()
        del trace
        want = expected_records(trace_dict, lowering, list_index)
        n_exec, findings = len(want), len(trace_dict["findings"])
        del trace_dict
        model = model_records(case)
        entry: dict[str, Any] = {"executions": n_exec, "executor_findings": findings,
                                 "walked": lowering.walk is not None,
                                 "executor_execute_s": round(t1 - t0, 3), "executor_to_dict_s": round(t2 - t1, 3),
                                 "lowering_vs_executor": _brief(compare_records(model, want))}
        if name == "big":
            full = results / "big.rec.xz"
            if "big" in checks:
                entry["gpu_vs_lowering_on_device"] = _brief(checks["big"])
            if full.exists():
                got = _records(full, case.record_dwords)[:case.count]
                entry["gpu_vs_executor"] = _brief(compare_records(got, want))
                entry["gpu_vs_lowering"] = _brief(compare_records(got, model))
            elif (results / "big.sample.rec").exists():
                got = _records(results / "big.sample.rec", case.record_dwords)
                keep = np.r_[np.arange(0, case.count, SAMPLE_EVERY), case.count - 1]
                entry["gpu_vs_executor_sample"] = _brief(compare_records(got, want[keep]))
        elif (results / f"{name}.rec").exists():
            got = _records(results / f"{name}.rec", case.record_dwords)[:case.count]
            entry["gpu_vs_executor"] = _brief(compare_records(got, want))
            entry["gpu_vs_lowering"] = _brief(compare_records(got, model))
        gpu = summaries.get(name)
        if gpu is not None:
            entry["gpu"] = {k: gpu[k] for k in ("preprocess_ms_min", "preprocess_ms_median", "execute_ms_min",
                                                "execute_ms_median", "total_ms_min", "total_ms_median", "repeat",
                                                "preprocess_bytes", "stride", "programs")}
        if name in walks:
            entry["gpu_walker"] = walks[name]
        if name in walked_checks:
            entry["dgc_on_walked_sequences_vs_lowering_on_device"] = _brief(walked_checks[name])
        report["cases"][name] = entry
        print(name, json.dumps(entry), flush=True)
    return report


def _brief(result: dict[str, Any]) -> dict[str, Any]:
    keys = ("compared", "mismatches", "ran", "no_invocation", "draw_ids", "first_mismatches", "error")
    return {k: result[k] for k in keys if k in result and (k != "first_mismatches" or result[k])}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="write the cases, the harness and run.sh into DIR")
    p.add_argument("dir", type=Path)
    p.add_argument("--draws", type=int, default=1 << 20)
    p.add_argument("--repeat-small", type=int, default=20)
    p.add_argument("--repeat-big", type=int, default=10)
    p.add_argument("--cases", nargs="+", help="only these cases (default: all)")
    c = sub.add_parser("compare", help="compare the GPU's results in RESULTS with the executor")
    c.add_argument("results", type=Path)
    c.add_argument("--draws", type=int, default=1 << 20)
    c.add_argument("--json", type=Path)
    c.add_argument("--cases", nargs="+", help="only these cases (default: all)")
    args = ap.parse_args(argv)
    if args.command == "prepare":
        prepare(args.dir, args.draws, args.repeat_small, args.repeat_big, args.cases)
        return 0
    report = compare(args.results, args.draws, args.cases)
    if args.json:
        args.json.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    failures = verdict(report)
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    return 1 if failures else 0


#: results every case must have: (key, the keys that may stand for it on the big case, whose records come back
#: sampled when the full set does not fit)
REQUIRED = (("gpu_vs_executor", ("gpu_vs_executor_sample",)), ("gpu_vs_lowering", ("gpu_vs_lowering_on_device",)))
#: results every DispatchList case (one with a GPU walk) must have
REQUIRED_WALKED = ("gpu_walker", "dgc_on_walked_sequences_vs_lowering_on_device")


def verdict(report: dict[str, Any]) -> list[str]:
    """Every reason the GPU run fails, one line each (empty: it passed).  A comparison that could not be made
    (``error``, ``mismatches`` None), a mismatch, the walker's mismatched sequences or error bits, and a result
    that is missing (a ``.rec``, walk or check file that never came back) are failures: passing needs positive
    evidence for every case."""
    out: list[str] = []
    for name, e in report["cases"].items():
        for key, stand_ins in REQUIRED:
            if not any(k in e for k in (key, *stand_ins)):
                out.append(f"{name}: no {key} result")
        if e.get("walked"):
            out.extend(f"{name}: no {key} result" for key in REQUIRED_WALKED if key not in e)
        for key, v in e.items():
            if not isinstance(v, dict):
                continue
            if v.get("error"):
                out.append(f"{name}: {key}: {v['error']}")
            if "mismatches" in v and v["mismatches"] is None and not v.get("error"):
                out.append(f"{name}: {key}: nothing compared")
            if v.get("mismatches"):
                out.append(f"{name}: {key}: {v['mismatches']} mismatches")
            if v.get("mismatched_sequences"):
                out.append(f"{name}: {key}: {v['mismatched_sequences']} mismatched sequences")
            if v.get("error_bits"):
                out.append(f"{name}: {key}: error bits {v['error_bits']}")
    return out


if __name__ == "__main__":
    sys.exit(main())
