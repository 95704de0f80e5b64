#!/usr/bin/env python3
"""Hold the reference executor to what a real GPU did: lower captures to ``VK_EXT_device_generated_commands``
(:mod:`d3d12wl.vulkan`), run them on the GPU machine through the C harness of ``tools/gpu/``, and compare the GPU's
records with the executor's trace, draw by draw (docs/vulkan.md).

Three steps, because the GPU machine has neither this package nor a network::

    python tools/gpu_check.py prepare DIR [CAPTURE.json ...] [--suite] [--max-sequences N]   # here
    (on the GPU machine, DIR carried:)  bash DIR/run.sh           # writes $OUT/results.tar.xz, one archive
    python tools/gpu_check.py compare RESULTS [--json OUT]        # here: RESULTS is that archive (or its folder)

``prepare`` takes any captures (``d3d12wl`` capture files) and, with ``--suite`` or when none is given, the suite:
the bundled examples and the builder-made captures of :mod:`d3d12wl.vulkan.captures`, ``captures_signatures`` and
``captures_ia`` (a ``--draws``-draw work list and ExecuteIndirect, and a ``--frame-draws``-draw frame split into
executes of at most ``--max-sequences``).  Each capture is lowered and made a case; a call the lowering or the
harness cannot represent is *refused* here, with the reason, and never reaches the GPU.  ``prepare`` needs gcc,
Debian's ``libvulkan-dev`` and glslc; the GPU machine needs only the Vulkan loader and numpy.

On the GPU machine ``run.sh`` runs every case (the harness first checks every address it will hand the GPU and
exits 2 naming one outside the uploaded regions: a refusal, recorded with the harness's message), the GPU walker on
every leaf that has one (and the case again on the GPU-walked sequences), and packs every result into one archive:
the records of each case whole (xz) when they fit, else their SHA-256 (draw IDs zeroed) and every 1024th record.

``compare`` re-derives every capture, runs the executor on it (timed) and compares, per case:

* the GPU's records with the records the executor's trace implies (:func:`d3d12wl.vulkan.harness.expected_records`);
* the GPU's records with the CPU model of the lowered sequences (:func:`d3d12wl.vulkan.case.model_records`),
  so that a mismatch says which side, the lowering or the executor, differs from the GPU;

and its verdict lists each capture as ran (its mismatches), refused (the reason) or failed (why).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import lzma
import subprocess
import sys
import tarfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl.capture.file import load_capture
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor import execute
from d3d12wl.executor.columnar import execution_columns
from d3d12wl.executor.trace import Limits
from d3d12wl.output.outfiles import output_file
from d3d12wl.vulkan import captures as builders
from d3d12wl.vulkan import captures_ia, captures_signatures, lower_capture
from d3d12wl.vulkan.case import Model, case_from_bytes, compare_records, digest, fetch_masks, model_records
from d3d12wl.vulkan.harness import HarnessRefusal, Prepared, expected_records, prepare_case
from d3d12wl.vulkan.lowered import Lowering, LoweringError
from d3d12wl.vulkan.vk import TokenType
from d3d12wl.vulkan.walker import plan_of

ROOT = Path(__file__).resolve().parent.parent
GPU_SRC = ROOT / "tools" / "gpu"
EXAMPLES = ROOT / "d3d12wl" / "examples"
#: the records of a case come back whole when they compress to at most this; else a digest and a sample
RECORDS_BACK = 8 << 20
#: a case's records this large are not compressed on the device (its digest and sample come back)
RECORDS_RAW_MAX = 32 << 20
SAMPLE_EVERY = 1024
#: cases at least this large are carried compressed
COMPRESS_OVER = 1 << 20


# ----------------------------------------------------------------------------------------------------------------
# The captures
# ----------------------------------------------------------------------------------------------------------------

def suite(draws: int, frame_draws: int) -> dict[str, dict[str, Any]]:
    """name -> how to make the capture: ``{"path": ...}`` or ``{"builder": module.function, "args": {...}}``."""
    out: dict[str, dict[str, Any]] = {}
    for path in sorted(EXAMPLES.glob("*_capture.json")) + sorted((EXAMPLES / "culling_ei").glob("call*_*.json")):
        out[path.stem.removesuffix("_capture")] = {"path": str(path)}

    def add(name: str, function: str, max_sequences: int | None = None, **args: Any) -> None:
        out[name] = {"builder": function, "args": args}
        if max_sequences is not None:  # split into executes of at most this many, whatever the device allows
            out[name]["max_sequences"] = max_sequences

    add("compute", "captures.build_compute_capture")
    add("indexed", "captures.build_indexed_capture")
    add("inherited", "captures.build_inherited_capture")
    add("pointers", "captures.build_pointer_capture")
    add("mixed", "captures_signatures.build_mixed_capture", tier=1)
    add("mixed_tier2", "captures_signatures.build_mixed_capture", tier=2)
    add("tables", "captures_signatures.build_table_capture")
    add("mesh", "captures_signatures.build_mesh_capture")
    add("ia", "captures_ia.build_ia_capture")
    add("ia_inherited_ib", "captures_ia.build_ia_capture", index_buffer="command_list")
    add("inherited_ia", "captures_ia.build_inherited_ia_capture")
    add("mixed_tier2_split", "captures_signatures.build_mixed_capture", tier=2, max_sequences=5)
    add("ia_split", "captures_ia.build_ia_capture", max_sequences=7)
    add("big", "captures.build_big_capture", draws=draws)
    add("big_ei", "captures.build_big_ei_capture", commands=draws)
    add("big_ei_split", "captures.build_big_ei_capture", commands=draws, max_sequences=max(1, draws // 3))
    if frame_draws:
        add("frame", "captures.build_big_capture", draws=frame_draws)
    return out


_MODULES = {"captures": builders, "captures_signatures": captures_signatures, "captures_ia": captures_ia}


def make_capture(source: dict[str, Any]) -> Any:
    if "path" in source:
        return load_capture(source["path"])
    module, function = source["builder"].split(".")
    build: Callable[..., Any] = getattr(_MODULES[module], function)
    return build(**source.get("args", {}))


def _lower(capture: Any, max_sequences: int) -> tuple[Lowering, Prepared]:
    low = lower_capture(capture, sequence_index=True, max_sequences=max_sequences)
    return low, prepare_case(low, capture.memory)


def _write(path: Path, data: bytes | str) -> Path:
    """Every file prepare and compare write: atomic (d3d12wl.output.outfiles), an OS error naming the path (exit 2)."""
    with output_file(path, binary=True) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _xz(data: bytes, stride: int) -> bytes:
    """xz with a delta filter of the records' stride (builder-made columns compress to almost nothing)."""
    filters = [{"id": lzma.FILTER_DELTA, "dist": max(1, min(stride, 256))}, {"id": lzma.FILTER_LZMA2, "preset": 1}]
    return lzma.compress(data, format=lzma.FORMAT_XZ, filters=filters)


# ----------------------------------------------------------------------------------------------------------------
# prepare
# ----------------------------------------------------------------------------------------------------------------

RUN_HEAD = """#!/bin/bash
# written by tools/gpu_check.py prepare; runs on the GPU machine: bash DIR/run.sh (results: $OUT/results.tar.xz)
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
for f in "$HERE"/../.gl/*.deb; do [ -e "$f" ] || continue; dpkg -x "$f" /; done; ldconfig
R=/tmp/gpu_results; W=/tmp/gpu_work; rm -rf "$R" "$W"; mkdir -p "$R" "$W"
cd "$HERE"
export PYTHONPATH="$HERE/py"
if ! ./dgc_harness --probe > "$R/probe.json" 2>"$W/probe.err"; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  ./dgc_harness --probe > "$R/probe.json" 2>>"$W/probe.err" || {{ cat "$W/probe.err"; exit 1; }}
fi
cat "$R/probe.json"
unpack() {{ python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; }}
# run NAME CASE DWORDS COUNT REPEAT TAG: the harness on CASE, its exit status, its records (whole or digested)
run() {{
  local n=$1 c=$2 dw=$3 cnt=$4 rep=$5 tag=$6
  ./dgc_harness "$c" "$W/$n$tag.rec" "$R/$n$tag.summary.json" spv "$rep" 2>"$R/$n$tag.stderr"
  echo $? > "$R/$n$tag.rc"
  [ "$(cat "$R/$n$tag.rc")" = 0 ] || {{ cat "$R/$n$tag.stderr"; return; }}
  python3 -m d3d12wl.vulkan.case digest "$W/$n$tag.rec" "$dw" "$cnt" "$R/$n$tag.digest.json" {every} \\
    "$R/$n$tag.sample.rec"
  if [ "$(stat -c %s "$W/$n$tag.rec")" -le {raw_max} ]; then
    python3 -c "import lzma,sys; d=open(sys.argv[1],'rb').read(); c=lzma.compress(d, filters=[{{'id': lzma.FILTER_DELTA, 'dist': min(4*int(sys.argv[3]),256)}}, {{'id': lzma.FILTER_LZMA2, 'preset': 1}}]); len(c) <= {back} and open(sys.argv[2],'wb').write(c)" "$W/$n$tag.rec" "$R/$n$tag.rec.xz" "$dw"
  fi
}}
# walk NAME CASE LAYOUT REPEAT: the GPU walker on one layout's plan; the next walk reads the walked case
walk() {{
  local n=$1 c=$2 l=$3 rep=$4 p="$HERE/cases/$1.$3.plan"
  [ -e "$p" ] || {{ unpack "$p.xz" "$W/$1.$3.plan"; p="$W/$1.$3.plan"; }}
  ./dgc_harness --walk "$p" "$c" "$l" "$W/$n.walked.case" "$R/$n.walk$l.json" spv "$rep" 2>"$R/$n.walk$l.stderr"
  local rc=$?; echo $rc > "$R/$n.walk$l.rc"; return $rc
}}
"""
RUN_CASE = """# {name}
c="$HERE/cases/{name}.case"; [ -e "$c" ] || {{ unpack "$c.xz" "$W/{name}.case"; c="$W/{name}.case"; }}
run {name} "$c" {dwords} {count} {repeat} ""
"""
RUN_WALK = """cp "$c" "$W/{name}.walking.case"
for l in {layouts}; do walk {name} "$W/{name}.walking.case" $l {repeat} && cp "$W/{name}.walked.case" "$W/{name}.walking.case"; done
run {name} "$W/{name}.walking.case" {dwords} {count} 1 ".walked"
"""
RUN_TAIL = """tar -cJf "$OUT/results.tar.xz" -C "$R" .
ls -la "$OUT"
"""


def _compile(out: Path, masks: set[int]) -> None:
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers", "-o",
                    str(out / "dgc_harness"), str(GPU_SRC / "harness.c"), "-lvulkan"], check=True, timeout=300)
    spv = out / "spv"
    spv.mkdir(exist_ok=True)
    jobs = [(f"record.vert.{m:08x}.spv", "record.vert", [f"-DFETCH_MASK=0x{m:x}"]) for m in sorted(masks)]
    jobs += [("record.comp.spv", "record.comp", []), ("record.mesh.spv", "record.mesh", []),
             ("walk.comp.spv", "walk.comp", [])]
    for name, shader, defines in jobs:
        subprocess.run(["glslc", "--target-env=vulkan1.3", "-O", *defines, str(GPU_SRC / shader), "-o",
                        str(spv / name)], check=True, timeout=300)
    py = out / "py" / "d3d12wl" / "vulkan"
    py.mkdir(parents=True, exist_ok=True)
    _write(py.parent / "__init__.py", "")
    _write(py / "__init__.py", "")
    for module in ("vk.py", "fetch.py", "case.py"):
        _write(py / module, (ROOT / "d3d12wl" / "vulkan" / module).read_bytes())


def prepare(out: Path, sources: dict[str, dict[str, Any]], max_sequences: int, repeat_small: int,
            repeat_big: int) -> dict[str, Any]:
    """Lower every capture, write its case (and walker plans), the harness, the shaders and run.sh into ``out``."""
    (out / "cases").mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"max_sequences": max_sequences, "cases": {}}
    script = RUN_HEAD.format(every=SAMPLE_EVERY, raw_max=RECORDS_RAW_MAX, back=RECORDS_BACK)
    masks: set[int] = {0}
    for name, source in sources.items():
        entry: dict[str, Any] = {"source": source}
        manifest["cases"][name] = entry
        t0 = time.perf_counter()
        entry["max_sequences"] = source.get("max_sequences", max_sequences)
        capture = make_capture(source)  # a capture that cannot be read is unusable input (exit 2), not a refusal
        try:
            low, prep = _lower(capture, entry["max_sequences"])
        except HarnessRefusal as e:
            entry["refused"] = f"the harness cannot represent the call: {e}"
        except LoweringError as e:
            entry["refused"] = f"the lowering refuses the call: {e}"
        except D3D12WLError as e:
            entry["refused"] = f"the call cannot be lowered: {e}"
        if "refused" in entry:
            print(f"{name}: refused: {entry['refused']}", flush=True)
            continue
        case = prep.case
        data = case.to_bytes()
        big = len(data) > COMPRESS_OVER
        target = out / "cases" / f"{name}.case{'.xz' if big else ''}"
        _write(target, _xz(data, case.layouts[0].stride) if big else data)
        walked = []
        for li, leaf in enumerate(low.leaves()):
            if leaf.walk is None:
                continue
            plan = plan_of(leaf, capture.memory)
            raw = plan.to_bytes()
            # the plan's bytes are mostly records: delta-coded at their stride
            stride = getattr(plan.walk, "secondary_stride", 0) or getattr(plan.walk, "stride", 0) or \
                getattr(plan.walk, "primary_stride", 8)
            _write(out / "cases" / f"{name}.{li}.plan{'.xz' if big else ''}", _xz(raw, stride) if big else raw)
            walked.append(li)
        masks.update(fetch_masks(case))
        repeat = repeat_big if case.count > 1 << 16 else repeat_small
        entry.update(case_sha256=hashlib.sha256(data).hexdigest(), records=case.count, record_dwords=case.record_dwords,
                     layouts=len(case.layouts), executes=len(case.executes),
                     largest_execute=max((e[2] for e in case.executes), default=0), programs=list(prep.programs),
                     walked_layouts=walked, notes=list(prep.notes), prepare_s=round(time.perf_counter() - t0, 3))
        script += RUN_CASE.format(name=name, dwords=case.record_dwords, count=case.count, repeat=repeat)
        if walked:
            script += RUN_WALK.format(name=name, layouts=" ".join(map(str, walked)), repeat=repeat,
                                      dwords=case.record_dwords, count=case.count)
        print(f"{name}: {case.count} records, {len(case.layouts)} layouts, {len(case.executes)} executes, "
              f"walked {walked}, {target.stat().st_size} bytes", flush=True)
    if "ia" in manifest["cases"] and "refused" not in manifest["cases"]["ia"]:
        script += _negative_control(out, manifest, sources["ia"])
    script += RUN_TAIL
    _compile(out, masks)
    _write(out / "run.sh", script).chmod(0o755)
    _write(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return manifest


#: the negative control: a case whose first index buffer view the harness must refuse (exit 2) on the GPU machine,
#: before it creates anything
HOSTILE = "hostile_address"
HOSTILE_VA = 0xDEAD_0000


def _negative_control(out: Path, manifest: dict[str, Any], source: dict[str, Any]) -> str:
    """The ``ia`` case with sequence 0's index buffer view moved outside every region (what the CPU side would
    refuse): the harness must exit 2 naming it."""
    _, prep = _lower(make_capture(source), manifest["cases"]["ia"]["max_sequences"])
    lay = prep.case.layouts[0]
    token = next(t for t in lay.tokens if t.type == TokenType.INDEX_BUFFER)
    lay.sequences = lay.sequences.copy()
    lay.sequences[0, token.offset:token.offset + 8] = np.frombuffer(HOSTILE_VA.to_bytes(8, "little"), np.uint8)
    _write(out / "cases" / f"{HOSTILE}.case", prep.case.to_bytes())
    manifest["negative_control"] = {"name": HOSTILE, "va": HOSTILE_VA,
                                    "expect": "exit 2 naming the view outside every uploaded region"}
    return (f'# the negative control: must exit 2\n./dgc_harness "$HERE/cases/{HOSTILE}.case" "$W/{HOSTILE}.rec" '
            f'"$R/{HOSTILE}.summary.json" spv 1 2>"$R/{HOSTILE}.stderr"; echo $? > "$R/{HOSTILE}.rc"\n')


def negative_control(results: Results, manifest: dict[str, Any]) -> dict[str, Any] | None:
    """Whether the harness refused the negative control as it must."""
    nc = manifest.get("negative_control")
    if nc is None:
        return None
    rc, stderr = results.text(f"{nc['name']}.rc"), results.text(f"{nc['name']}.stderr") or ""
    ok = rc == "2" and f"0x{nc['va']:x}" in stderr and "outside every uploaded region" in stderr
    return {"exit": rc, "stderr": stderr, "as_expected": ok}


# ----------------------------------------------------------------------------------------------------------------
# compare
# ----------------------------------------------------------------------------------------------------------------

class Results:
    """The files of a results archive (or folder), by name."""

    def __init__(self, path: Path) -> None:
        self.files: dict[str, bytes] = {}
        if path.is_dir():
            for f in path.rglob("*"):
                if f.is_file():
                    self.files[f.name] = f.read_bytes()
        else:
            with tarfile.open(path) as tar:
                for m in tar.getmembers():
                    if m.isfile():
                        got = tar.extractfile(m)
                        if got is not None:
                            self.files[Path(m.name).name] = got.read()

    def json(self, name: str) -> Any:
        return json.loads(self.files[name]) if name in self.files else None

    def text(self, name: str) -> str | None:
        return self.files[name].decode("utf-8", "replace").strip() if name in self.files else None

    def records(self, name: str, dwords: int, count: int) -> np.ndarray | None:
        raw = self.files.get(f"{name}.rec.xz")
        if raw is None:
            return None
        return np.frombuffer(lzma.decompress(raw), dtype="<u4").reshape(-1, dwords)[:count]

    def sample(self, name: str, dwords: int) -> np.ndarray | None:
        raw = self.files.get(f"{name}.sample.rec")
        return None if raw is None else np.frombuffer(raw, dtype="<u4").reshape(-1, dwords)


def _brief(result: dict[str, Any]) -> dict[str, Any]:
    keys = ("compared", "mismatches", "ran", "no_invocation", "draw_ids", "first_mismatches", "error", "by")
    return {k: result[k] for k in keys if k in result and (k != "first_mismatches" or result[k])}


def _against(results: Results, tag: str, want: Model, dwords: int, count: int) -> dict[str, Any]:
    """The GPU's records of one run (``tag``) against ``want``: whole when they came back, else by digest (and the
    sample, record for record)."""
    got = results.records(tag, dwords, count)
    if got is not None:
        return _brief(compare_records(got, want.records, invocations_min=want.invocations_min))
    dig = results.json(f"{tag}.digest.json")
    if dig is None:
        return {"compared": 0, "mismatches": None, "error": "no records came back"}
    out: dict[str, Any] = {"by": "sha256 of every record (draw IDs zeroed)"}
    if dig["gpu_digest"] == digest(want.records) and dig["records"] == count:
        out.update(compared=count, mismatches=0)
    else:
        sample = results.sample(tag, dwords)
        keep = np.r_[np.arange(0, count, SAMPLE_EVERY), count - 1] if count else np.zeros(0, dtype=np.int64)
        if sample is None or len(sample) != len(keep):
            return {"compared": 0, "mismatches": None, "error": "digests differ and no usable sample came back"}
        r = compare_records(sample, want.records[keep], invocations_min=want.invocations_min[keep])
        out = {**_brief(r), "by": f"digests differ: every {SAMPLE_EVERY}th record compared"}
        if not r["mismatches"]:  # the digests differ for a reason the sample did not catch
            out["error"] = "the digest of the records differs from the expected one"
    return out


def compare(results: Results, manifest: dict[str, Any], names: list[str] | None = None) -> dict[str, Any]:
    report: dict[str, Any] = {"probe": results.json("probe.json"), "max_sequences": manifest["max_sequences"],
                              "negative_control": negative_control(results, manifest), "cases": {}}
    for name, entry in manifest["cases"].items():
        if names is not None and name not in names:
            continue
        if "refused" in entry:
            report["cases"][name] = {"refused": entry["refused"]}
            print(name, "refused:", entry["refused"], flush=True)
            continue
        capture = make_capture(entry["source"])
        low, prep = _lower(capture, entry["max_sequences"])
        data = prep.case.to_bytes()
        e: dict[str, Any] = {"records": prep.case.count, "layouts": len(prep.case.layouts),
                             "executes": len(prep.case.executes), "notes": entry.get("notes", [])}
        if hashlib.sha256(data).hexdigest() != entry["case_sha256"]:
            e["error"] = "the capture lowers to another case than the one that ran (a different capture or code)"
        rc = results.text(f"{name}.rc")
        if rc is None:
            e["error"] = "no result for this case came back"
        elif rc != "0":
            stderr = results.text(f"{name}.stderr") or ""
            if rc == "2":
                e["refused"] = f"the harness refused the case: {stderr}"
            else:
                e["error"] = f"the harness failed (exit {rc}): {stderr}"
        t0 = time.perf_counter()
        trace = execute(capture, Limits(max_executions=1 << 26, max_records=1 << 26))
        t1 = time.perf_counter()
        columns = execution_columns(trace.executions)
        t2 = time.perf_counter()
        want = expected_records(columns, low, prep, capture.memory)
        t3 = time.perf_counter()
        e.update(executions=len(trace.executions), executor_errors=len(trace.errors),
                 executor_execute_ms=round((t1 - t0) * 1e3, 3), executor_columns_ms=round((t2 - t1) * 1e3, 3),
                 expected_records_ms=round((t3 - t2) * 1e3, 3))
        del trace, columns
        model = model_records(case_from_bytes(data))
        e["lowering_vs_executor"] = _brief(compare_records(model.records, want.records))
        if not np.array_equal(model.invocations_min, want.invocations_min):
            e["lowering_vs_executor"]["error"] = "the least invocation counts differ"
        dwords, count = prep.case.record_dwords, prep.case.count
        if rc == "0":
            e["gpu_vs_executor"] = _against(results, name, want, dwords, count)
            e["gpu_vs_lowering"] = _against(results, name, model, dwords, count)
            summary = results.json(f"{name}.summary.json")
            if summary is not None:
                e["gpu"] = {k: summary[k] for k in ("preprocess_ms_min", "preprocess_ms_median", "execute_ms_min",
                                                    "execute_ms_median", "total_ms_min", "total_ms_median", "repeat",
                                                    "executes", "largest_execute", "preprocess_bytes",
                                                    "views_checked", "maxIndirectSequenceCount") if k in summary}
            walks = {}
            for li in entry.get("walked_layouts", []):
                w = results.json(f"{name}.walk{li}.json")
                walks[str(li)] = w if w is not None else {"error": f"no walk result (exit {results.text(f'{name}.walk{li}.rc')}): "
                                                                   f"{results.text(f'{name}.walk{li}.stderr')}"}
            if walks:
                e["gpu_walker"] = walks
                if results.text(f"{name}.walked.rc") == "0":
                    e["dgc_on_walked_sequences_vs_executor"] = _against(results, f"{name}.walked", want, dwords, count)
                else:
                    e["dgc_on_walked_sequences_vs_executor"] = {
                        "compared": 0, "mismatches": None,
                        "error": f"the walked case did not run: {results.text(f'{name}.walked.stderr')}"}
        report["cases"][name] = e
        print(name, json.dumps({k: v for k, v in e.items() if k != "notes"}), flush=True)
    return report


def verdict(report: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(lines, failures)``: one line per capture (ran: its executions and mismatches; refused: the reason;
    FAILED: why), and every reason the run fails.  Passing needs positive evidence for every case that ran: a
    comparison that could not be made, a missing result, a mismatch, a walker's mismatched sequences or error bits
    fail it; a refused capture is an outcome, not a failure."""
    lines: list[str] = []
    failures: list[str] = []
    nc = report.get("negative_control")
    if nc is not None:
        if nc["as_expected"]:
            lines.append(f"{HOSTILE}: refused by the harness as it must ({nc['stderr']})")
        else:
            failures.append(f"{HOSTILE}: the harness did not refuse the view outside every region: exit {nc['exit']}")
            lines.append(f"{HOSTILE}: FAILED (exit {nc['exit']}: {nc['stderr']})")
    for name, e in report["cases"].items():
        if "refused" in e:
            lines.append(f"{name}: refused ({e['refused']})")
            continue
        bad: list[str] = []
        if e.get("error"):
            bad.append(e["error"])
        for key in ("gpu_vs_executor", "gpu_vs_lowering", "lowering_vs_executor"):
            v = e.get(key)
            if v is None:
                bad.append(f"no {key} result")
                continue
            if v.get("error"):
                bad.append(f"{key}: {v['error']}")
            if v.get("mismatches") is None and not v.get("error"):
                bad.append(f"{key}: nothing compared")
            if v.get("mismatches"):
                bad.append(f"{key}: {v['mismatches']} mismatches")
        for li, w in (e.get("gpu_walker") or {}).items():
            if w.get("error"):
                bad.append(f"walker layout {li}: {w['error']}")
            if w.get("mismatched_sequences"):
                bad.append(f"walker layout {li}: {w['mismatched_sequences']} mismatched sequences")
            if w.get("error_bits"):
                bad.append(f"walker layout {li}: error bits {w['error_bits']}")
        walked = e.get("dgc_on_walked_sequences_vs_executor")
        if e.get("gpu_walker") is not None and (walked is None or walked.get("mismatches") != 0):
            bad.append(f"DGC on the walked sequences: {walked}")
        if bad:
            failures.extend(f"{name}: {b}" for b in bad)
            lines.append(f"{name}: FAILED ({'; '.join(bad)})")
        else:
            g = e.get("gpu", {})
            lines.append(f"{name}: ran ({e['executions']} executions, 0 mismatches; GPU preprocess + execute "
                         f"{g.get('total_ms_min', '?')} ms in {e['executes']} executes; executor "
                         f"{e['executor_execute_ms']} ms)")
    return lines, failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="lower the captures; write the cases, the harness and run.sh into DIR")
    p.add_argument("dir", type=Path)
    p.add_argument("captures", nargs="*", type=Path, help="capture files (default: the suite)")
    p.add_argument("--suite", action="store_true", help="also the bundled and builder-made captures")
    p.add_argument("--cases", nargs="+", help="only these cases of the suite")
    p.add_argument("--draws", type=int, default=1 << 20, help="draws of the big work list and ExecuteIndirect")
    p.add_argument("--frame-draws", type=int, default=0, help="draws of the frame (0: none)")
    p.add_argument("--max-sequences", type=int, default=1 << 20,
                   help="sequences per DGC execute: the device's maxIndirectSequenceCount (dgc_harness --probe)")
    p.add_argument("--repeat-small", type=int, default=20)
    p.add_argument("--repeat-big", type=int, default=5)
    c = sub.add_parser("compare", help="compare the GPU's results with the executor")
    c.add_argument("results", type=Path, help="results.tar.xz from run.sh, or the folder it was unpacked into")
    c.add_argument("--manifest", type=Path, required=True, help="DIR/manifest.json written by prepare")
    c.add_argument("--json", type=Path)
    c.add_argument("--cases", nargs="+", help="only these cases")
    args = ap.parse_args(argv)
    try:
        return _run(args)
    except (D3D12WLError, OSError, tarfile.TarError, lzma.LZMAError, ValueError, KeyError) as e:
        print(f"gpu_check: {e}", file=sys.stderr)  # a path, an archive or a manifest that cannot be used
        return 2


def _run(args: argparse.Namespace) -> int:
    if args.command == "prepare":
        sources: dict[str, dict[str, Any]] = {}
        if args.suite or not args.captures:
            sources.update(suite(args.draws, args.frame_draws))
            if args.cases:
                unknown = sorted(set(args.cases) - set(sources))
                if unknown:
                    print(f"unknown cases {unknown}; known: {sorted(sources)}", file=sys.stderr)
                    return 2
                sources = {k: v for k, v in sources.items() if k in args.cases}
        for path in args.captures:
            name = path.name.removesuffix(".json")
            while name in sources:
                name += "_"
            sources[name] = {"path": str(path.resolve())}
        prepare(args.dir, sources, args.max_sequences, args.repeat_small, args.repeat_big)
        return 0
    manifest = json.loads(args.manifest.read_text(encoding="utf-8"))
    report = compare(Results(args.results), manifest, args.cases)
    lines, failures = verdict(report)
    report["verdict"] = lines
    if args.json:
        _write(args.json, json.dumps(report, indent=1) + "\n")
    print("\n".join(lines))
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
