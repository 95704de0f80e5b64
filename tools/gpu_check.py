#!/usr/bin/env python3
"""Hold the reference executor to what a real GPU did: lower captures to ``VK_EXT_device_generated_commands``
(:mod:`d3d12wl.vulkan`), run them on the GPU machine through the C harness of ``tools/gpu/``, and compare the GPU's
records with the executor's trace, draw by draw (docs/vulkan.md).

Three steps, because the GPU machine has neither this package nor a network::

    python tools/gpu_check.py prepare DIR [CAPTURE.json ...] [--suite] [--corpora] [--max-sequences N]   # here
    (on the GPU machine, DIR carried:)  bash DIR/run.sh           # writes $OUT/results.tar.xz, one archive
    python tools/gpu_check.py compare RESULTS --manifest DIR/manifest.json [--json OUT]   # here

``prepare`` takes any captures (``d3d12wl`` capture files) and, with ``--suite`` or when none is given, the suite:
the bundled examples, the builder-made captures of :mod:`d3d12wl.vulkan.captures`, ``captures_signatures``,
``captures_ia`` and ``captures_scale`` (a ``--draws``-draw work list and ExecuteIndirect, a ``--frame-draws``-draw
frame split into executes of at most ``--max-sequences``, and the two ``--heavy-draws``-draw frames of issue 44);
``--corpora`` adds the test corpora (every capture of ``tests/remap_cases.py`` and, per breaker of
``tests/call_requirements.py``, the call that keeps its requirement and the one that breaks it).  Each capture is
lowered and made a case, its executes cut so that none is estimated to run longer than ``--submission-ms``
(:mod:`d3d12wl.vulkan.submissions`); a call the lowering or the harness cannot represent is *refused* here, with
the reason, and never reaches the GPU.  ``prepare`` needs gcc, Debian's ``libvulkan-dev`` and glslc; the GPU
machine needs only the Vulkan loader and numpy.

On the GPU machine ``run.sh`` runs every case, one submission per execute (the harness first checks every address it
will hand the GPU and exits 2 naming one outside the uploaded regions: a refusal, recorded with the harness's
message), checks the GPU's records against the lowering's model there, chunk by chunk
(``python -m d3d12wl.vulkan.case check``: per chunk of :data:`~d3d12wl.vulkan.case.RECORDS_PER_CHUNK` records the
digest of the records as compared, and the records of every chunk that differs from the model), runs the GPU
walker on every leaf that has one (and the case again on the walked sequences where they differ), and packs
everything into one archive: the records of a case whole (xz) when they compress to :data:`RECORDS_BACK`.

``compare`` re-derives every capture, runs the executor on it (timed) and compares, per case and chunk by chunk
(memory bounded by a chunk, the capture and the trace, whatever the draws' sizes):

* the GPU's records with the records the executor's trace implies (:func:`d3d12wl.vulkan.harness.expected_chunks`):
  record for record where the records came back (whole, or the chunks that differ from the model), else by the
  chunk's digest (equal digests are equal records), or through the model where the GPU machine found the chunk
  equal to it;
* the GPU's records with the CPU model of the lowered sequences (:func:`d3d12wl.vulkan.case.model_chunks`), so that
  a mismatch says which side, the lowering or the executor, differs from the GPU;

Every capture is prepared and compared in a process of its own: one capture's failure (an exception, memory, a
crash) is that capture's verdict, never the end of the run, and each one's peak memory is stated.  The verdict lists
each capture as ran (its mismatches), refused (the reason) or failed (why).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):  # one BLAS thread: processes fork
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import functools  # noqa: E402
import io  # noqa: E402
import json  # noqa: E402
import lzma  # noqa: E402
import random  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import select  # noqa: E402
import shutil  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tarfile  # noqa: E402
import time  # noqa: E402
import traceback  # noqa: E402
from collections.abc import Callable  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from d3d12wl.capture.file import CAPTURE_VERSION, Capture, load_capture  # noqa: E402
from d3d12wl.errors import D3D12WLError  # noqa: E402
from d3d12wl.executor import execute  # noqa: E402
from d3d12wl.executor.trace import Limits  # noqa: E402
from d3d12wl.output.outfiles import output_file  # noqa: E402
from d3d12wl.vulkan import captures as builders  # noqa: E402
from d3d12wl.vulkan import captures_ia, captures_scale, captures_signatures, lower_capture  # noqa: E402
from d3d12wl.vulkan.case import (  # noqa: E402
    Case,
    Model,
    Tally,
    as_compared,
    case_memory,
    chunk_ranges,
    compare_records,
    digest,
    fetch_masks,
    model_chunk,
)
from d3d12wl.vulkan.harness import HarnessRefusal, Prepared, expected_chunks, prepare_case  # noqa: E402
from d3d12wl.vulkan.lowered import Lowering, LoweringError  # noqa: E402
from d3d12wl.vulkan.submissions import DEFAULT_BOUND_MS, cut, estimated_ns  # noqa: E402
from d3d12wl.vulkan.vk import TokenType  # noqa: E402
from d3d12wl.vulkan.walker import plan_of  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
GPU_SRC = ROOT / "tools" / "gpu"
EXAMPLES = ROOT / "d3d12wl" / "examples"
TESTS = ROOT / "tests"
#: the records of a case come back whole when they compress to at most this (else the GPU machine's check of them)
RECORDS_BACK = 2 << 20
#: a case's records this large are not compressed on the device
RECORDS_RAW_MAX = 32 << 20
#: the archive the device tool brings back is one file of at most 16 MiB: past this, records are left out of it
ARCHIVE_MAX = 15 << 20
#: cases at least this large are carried compressed
COMPRESS_OVER = 1 << 20
#: a case estimated to take longer than this on the GPU runs once (no timing repeats)
REPEAT_ONCE_OVER_MS = 2000.0
#: the executor's limits for the calls the GPU runs (the frame has 10,485,760 executions)
EXECUTOR_LIMITS = Limits(max_executions=1 << 26, max_records=1 << 26)
#: the modules the GPU machine needs to check records (numpy only), copied into DIR/py
DEVICE_MODULES = ("vk.py", "fetch.py", "case.py")


# ----------------------------------------------------------------------------------------------------------------
# The captures
# ----------------------------------------------------------------------------------------------------------------

def suite(draws: int, frame_draws: int, heavy_draws: int = 0) -> dict[str, dict[str, Any]]:
    """name -> how to make the capture: ``{"path": ...}``, ``{"builder": module.function, "args": {...}}`` or
    ``{"corpus": ...}`` (:func:`corpora`)."""
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
    add("explicit", "captures_signatures.build_explicit_capture")
    add("robust_ia", "captures_ia.build_robust_ia_capture")
    add("inherited_null_ib", "captures_ia.build_inherited_ia_capture", index_buffer=False)
    add("mixed_tier2_split", "captures_signatures.build_mixed_capture", tier=2, max_sequences=5)
    add("ia_split", "captures_ia.build_ia_capture", max_sequences=7)
    add("big", "captures.build_big_capture", draws=draws)
    add("big_ei", "captures.build_big_ei_capture", commands=draws)
    add("big_ei_split", "captures.build_big_ei_capture", commands=draws, max_sequences=max(1, draws // 3))
    if frame_draws:
        add("frame", "captures.build_big_capture", draws=frame_draws)
    if heavy_draws:
        add("heavy_ei", "captures_scale.build_heavy_ei_capture", commands=heavy_draws)
        add("heavy_frame", "captures_scale.build_heavy_frame_capture", draws=heavy_draws)
    return out


#: what a case name may hold: it names the case's files and is a word of run.sh (a user's capture file is named
#: after it, its other characters made ``_``); no ``.``, so one case's files (``NAME.walked.rc``) are no other's
CASE_NAME = re.compile(r"[A-Za-z0-9_-]+")


def case_name(path: Path, taken: Any) -> str:
    """The case name of a user's capture file: its name without ``.json``, every character :data:`CASE_NAME` does
    not allow made ``_`` (a space or ``$(...)`` would be run.sh's to split or run), ``_`` added until it is none of
    ``taken`` nor the negative control's."""
    name = re.sub(r"[^A-Za-z0-9_-]", "_", path.name.removesuffix(".json")).lstrip("-") or "capture"
    while name in taken or name == HOSTILE:
        name += "_"
    return name


def _tests() -> Any:
    """The test corpora's modules (tests/ is not a package: it is put on the path, as tools/executor_worst_cases.py
    does; this tool runs from a source checkout)."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    import breakers_ei  # type: ignore[import-not-found]  # noqa: F401 - registers the ExecuteIndirect breakers
    import breakers_wl  # type: ignore[import-not-found]  # noqa: F401 - registers the Work Lists breakers
    import call_requirements  # type: ignore[import-not-found]
    import remap_cases  # type: ignore[import-not-found]
    return call_requirements, remap_cases


def corpora(seed: int = 0) -> dict[str, dict[str, Any]]:
    """The test corpora: every capture of ``tests/remap_cases.py`` and, per breaker of
    ``tests/call_requirements.py``, the call that keeps its requirement and the one that breaks it (drawn with
    ``seed``)."""
    requirements, remap_cases = _tests()
    out: dict[str, dict[str, Any]] = {}
    for name in remap_cases.CASES:
        out["remap_" + "_".join(name.replace(",", "").split())] = {"corpus": "remap_cases", "name": name}
    for b in requirements.BREAKERS:
        for broken in (False, True):
            out[f"breaker_{b.name}_{'broken' if broken else 'kept'}"] = {
                "corpus": "breakers", "name": b.name, "kind": b.kind, "seed": seed, "broken": broken}
    return out


_MODULES = {"captures": builders, "captures_signatures": captures_signatures, "captures_ia": captures_ia,
            "captures_scale": captures_scale}


def make_capture(source: dict[str, Any]) -> Any:
    if "path" in source:
        return load_capture(source["path"])
    if "corpus" in source:
        requirements, remap_cases = _tests()
        if source["corpus"] == "remap_cases":
            return remap_cases.CASES[source["name"]]()
        breaker = next(b for b in requirements.BREAKERS if b.name == source["name"] and b.kind == source["kind"])
        c = breaker.build(random.Random(source["seed"]), source["broken"])
        return Capture(CAPTURE_VERSION, c.device, c.objects, c.memory, c.state, c.call)
    module, function = source["builder"].split(".")
    build: Callable[..., Any] = getattr(_MODULES[module], function)
    return build(**source.get("args", {}))


def _lower(capture: Any, max_sequences: int, bound_ms: float) -> tuple[Lowering, Prepared]:
    """The call lowered for the harness, its executes cut within ``bound_ms`` each (d3d12wl.vulkan.submissions)."""
    low = lower_capture(capture, sequence_index=True, max_sequences=max_sequences)
    if low.lowered:
        low = cut(low, lambda: lower_capture(capture, sequence_index=True, max_sequences=max_sequences, cut=True),
                  max_sequences, bound_ms)
    return low, prepare_case(low, capture.memory)


def _write(path: Path, data: bytes | str) -> Path:
    """Every file prepare and compare write: atomic (d3d12wl.output.outfiles), an OS error naming the path (exit 2)."""
    with output_file(path, binary=True) as f:
        f.write(data.encode("utf-8") if isinstance(data, str) else data)
    return path


def _write_pieces(path: Path, pieces: Any, xz_stride: int | None) -> None:
    """``pieces`` (bytes-like) to ``path``, xz-compressed piece by piece with a delta filter of ``xz_stride`` when it
    is given (builder-made columns compress to almost nothing)."""
    with output_file(path, binary=True) as f:
        if xz_stride is None:
            for piece in pieces:
                f.write(piece)
            return
        filters = [{"id": lzma.FILTER_DELTA, "dist": max(1, min(xz_stride, 256))},
                   {"id": lzma.FILTER_LZMA2, "preset": 1}]
        z = lzma.LZMACompressor(format=lzma.FORMAT_XZ, filters=filters)
        for piece in pieces:
            f.write(z.compress(piece))
        f.write(z.flush())


# ----------------------------------------------------------------------------------------------------------------
# One capture in a process of its own
# ----------------------------------------------------------------------------------------------------------------

class Unusable(Exception):
    """A capture that cannot be read (unusable input: exit 2), raised again in the parent."""


def isolated(work: Callable[[], dict[str, Any]], timeout_s: float | None = None) -> dict[str, Any]:
    """``work()`` in a forked child: its result (a JSON object) with ``peak_mib`` (the child's peak resident set),
    or ``{"failed": why}`` when it raised (``MemoryError`` included), was killed (by a signal, the out-of-memory
    killer) or ran past ``timeout_s``.  A :class:`d3d12wl.errors.D3D12WLError` loading a capture is raised again
    here as :class:`Unusable`."""
    sys.stdout.flush()
    sys.stderr.flush()
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: run, report, and leave without running the parent's cleanup
        os.close(r)
        out: dict[str, Any]
        try:
            out = {"result": work()}
        except Unusable as e:
            out = {"unusable": str(e)}
        except BaseException as e:  # noqa: BLE001 - every failure of one capture is that capture's verdict
            out = {"failed": f"{type(e).__name__}: {e}",
                   "where": "".join(traceback.format_exception(e)[-3:])[-2000:]}
        try:
            with os.fdopen(w, "wb") as f:
                f.write(json.dumps(out).encode("utf-8"))
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(0)
    os.close(w)
    data = b""
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    with os.fdopen(r, "rb", buffering=0) as f:
        while True:
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            ready, _, _ = select.select([f], [], [], wait)
            if not ready:
                os.kill(pid, signal.SIGKILL)
                data = json.dumps({"failed": f"ran past its {timeout_s:g} s"}).encode()
                break
            block = f.read(1 << 16)
            if not block:
                break
            data += block
    _, status, usage = os.wait4(pid, 0)
    peak = usage.ru_maxrss // 1024
    if not data:
        why = (f"killed by signal {os.WTERMSIG(status)} (SIGKILL: the out-of-memory killer, or a limit)"
               if os.WIFSIGNALED(status) else f"ended with status {os.WEXITSTATUS(status)} and no result")
        return {"failed": f"the process {why}", "peak_mib": peak}
    out = json.loads(data)
    if "unusable" in out:
        raise Unusable(out["unusable"])
    if "failed" in out:
        return {**out, "peak_mib": peak}
    return {**out["result"], "peak_mib": peak}


def _load(source: dict[str, Any]) -> Any:
    try:
        return make_capture(source)
    except D3D12WLError as e:  # a capture that cannot be read is unusable input (exit 2), not a refusal
        raise Unusable(str(e)) from e


# ----------------------------------------------------------------------------------------------------------------
# prepare
# ----------------------------------------------------------------------------------------------------------------

RUN_HEAD = """#!/bin/bash
# written by tools/gpu_check.py prepare; runs on the GPU machine: bash DIR/run.sh (results: $OUT/results.tar.xz)
set -uo pipefail
HERE="$(cd "$(dirname "$0")" && pwd)"
for f in "$HERE"/../.gl/*.deb; do [ -e "$f" ] || continue; dpkg -x "$f" /; done; ldconfig
WORK="$(mktemp -d)"; R="$WORK/results"; W="$WORK/work"; mkdir -p "$R" "$W"
cd "$HERE"
# cases start while the run has spent less than BUDGET seconds; the rest are recorded as not run, and the archive is
# packed in time (the device tool's command limit is 600 s)
START=$SECONDS; BUDGET=${{GPU_RUN_BUDGET_S:-{budget}}}
export PYTHONPATH="$HERE/py"
python3 -m compileall -q "$HERE/py" > /dev/null  # the machine sets PYTHONDONTWRITEBYTECODE: compile once, here
if ! ./dgc_harness --probe > "$R/probe.json" 2>"$W/probe.err"; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  ./dgc_harness --probe > "$R/probe.json" 2>>"$W/probe.err" || {{ cat "$W/probe.err"; exit 1; }}
fi
cat "$R/probe.json"
unpack() {{ python3 -c "import lzma,sys; open(sys.argv[2],'wb').write(lzma.open(sys.argv[1]).read())" "$1" "$2"; }}
# run NAME CASE DWORDS REPEAT TAG LIMIT: the harness on CASE (killed after LIMIT seconds), its exit status, the
# records checked against the lowering's model chunk by chunk (digests, and the records of the chunks that differ),
# and the records whole when they are small
run() {{
  local n=$1 c=$2 dw=$3 rep=$4 tag=$5 limit=$6
  timeout -k 5 "$limit" ./dgc_harness "$c" "$W/$n$tag.rec" "$R/$n$tag.summary.json" spv "$rep" 2>"$R/$n$tag.stderr"
  echo $? > "$R/$n$tag.rc"
  [ "$(cat "$R/$n$tag.rc")" = 0 ] || {{ cat "$R/$n$tag.stderr"; return; }}
  python3 -m d3d12wl.vulkan.case check "$c" "$W/$n$tag.rec" "$R/$n$tag.check.json" "$R/$n$tag.bad.rec" \\
    > "$R/$n$tag.check.out" 2>&1
  echo $? > "$R/$n$tag.check.rc"
  [ -s "$R/$n$tag.bad.rec" ] || rm -f "$R/$n$tag.bad.rec"
  if [ "$(stat -c %s "$W/$n$tag.rec")" -le {raw_max} ]; then
    python3 -c "import lzma,sys; d=open(sys.argv[1],'rb').read(); c=lzma.compress(d, filters=[{{'id': lzma.FILTER_DELTA, 'dist': min(4*int(sys.argv[3]),256)}}, {{'id': lzma.FILTER_LZMA2, 'preset': 1}}]); len(c) <= {back} and open(sys.argv[2],'wb').write(c)" "$W/$n$tag.rec" "$R/$n$tag.rec.xz" "$dw"
  fi
  rm -f "$W/$n$tag.rec"
}}
# walk NAME CASE LAYOUT REPEAT: the GPU walker on one layout's plan; the next walk reads the walked case
walk() {{
  local n=$1 c=$2 l=$3 rep=$4 p="$HERE/cases/$1.$3.plan"
  [ -e "$p" ] || {{ unpack "$p.xz" "$W/$1.$3.plan"; p="$W/$1.$3.plan"; }}
  timeout -k 5 120 ./dgc_harness --walk "$p" "$c" "$l" "$W/$n.walked.case" "$R/$n.walk$l.json" spv "$rep" 2>"$R/$n.walk$l.stderr"
  local rc=$?; echo $rc > "$R/$n.walk$l.rc"; return $rc
}}
"""
RUN_CASE = """# {name}
if [ $((SECONDS - START)) -ge "$BUDGET" ]; then
echo "not run: the run's $BUDGET s were spent before it" > "$R/{name}.skipped"
else
c="$HERE/cases/{name}.case"; [ -e "$c" ] || {{ unpack "$c.xz" "$W/{name}.case"; c="$W/{name}.case"; }}
run {name} "$c" {dwords} {repeat} "" {limit}
{walk}fi
"""
#: the walker on every layout that has a plan; the case runs again on the walked sequences only where they differ
#: from the ones that ran (byte for byte: the harness compares them), since the same bytes make the same records
RUN_WALK = """cp "$c" "$W/{name}.walking.case"; same=1
for l in {layouts}; do
  if walk {name} "$W/{name}.walking.case" $l {repeat}; then cp "$W/{name}.walked.case" "$W/{name}.walking.case"; fi
  grep -q '"mismatched_sequences": 0,' "$R/{name}.walk$l.json" 2>/dev/null || same=0
done
[ $same = 1 ] || run {name} "$W/{name}.walking.case" {dwords} 1 ".walked" {limit}
rm -f "$W/{name}.walking.case" "$W/{name}.walked.case" "$W/{name}.case" "$W"/{name}.*.plan
"""
#: seconds run.sh lets cases start in (GPU_RUN_BUDGET_S overrides it there), and the least time one case may take
RUN_BUDGET_S = 480
CASE_LIMIT_S = 60
RUN_TAIL = """tar -cJf "$OUT/results.tar.xz" -C "$R" .
if [ "$(stat -c %s "$OUT/results.tar.xz")" -gt {archive_max} ]; then  # the device tool brings back 16 MiB a file
  tar -cJf "$OUT/results.tar.xz" -C "$R" --exclude='*.bad.rec' --exclude='*.rec.xz' .
fi
rm -rf "$WORK"
ls -la "$OUT"
"""


def _compile(out: Path, masks: set[int]) -> None:
    """The harness and its shaders (``_build``), and the modules the GPU machine runs (``_carry_modules``)."""
    _build(out, masks)
    _carry_modules(out)


#: what prepare builds the harness and its shaders with, and what to install for it
BUILD_TOOLS = ("gcc", "glslc")
BUILD_NEEDS = "prepare needs gcc, Debian's libvulkan-dev (the Vulkan headers and loader) and glslc"
#: the seconds one compiler run may take
BUILD_TIMEOUT_S = 300


def check_build_tools() -> None:
    """:class:`Unusable` naming the compilers that are missing, before any capture is prepared."""
    missing = [tool for tool in BUILD_TOOLS if shutil.which(tool) is None]
    if missing:
        raise Unusable(f"{' and '.join(missing)} not found: {BUILD_NEEDS}")


def _tool(argv: list[str]) -> None:
    """One compiler run, bounded in time; its failure is :class:`Unusable` with the end of what it said."""
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=BUILD_TIMEOUT_S, check=False)
    except FileNotFoundError as e:
        raise Unusable(f"{argv[0]} not found: {BUILD_NEEDS}") from e
    except subprocess.TimeoutExpired as e:
        raise Unusable(f"{argv[0]} ran past {BUILD_TIMEOUT_S} s building {argv[-3]}") from e
    if done.returncode:
        said = (done.stderr or done.stdout).strip()[-2000:]
        raise Unusable(f"{' '.join(argv)} failed (exit {done.returncode}): {said}\n({BUILD_NEEDS})")


def _build(out: Path, masks: set[int]) -> None:
    _tool(["gcc", "-O2", "-Wall", "-Wextra", "-Wno-missing-field-initializers", "-o", str(out / "dgc_harness"),
           str(GPU_SRC / "harness.c"), "-lvulkan"])
    spv = out / "spv"
    spv.mkdir(exist_ok=True)
    jobs = [(f"record.vert.{m:08x}.spv", "record.vert", [f"-DFETCH_MASK=0x{m:x}"]) for m in sorted(masks)]
    jobs += [("record.comp.spv", "record.comp", []), ("record.mesh.spv", "record.mesh", []),
             ("walk.comp.spv", "walk.comp", [])]
    for name, shader, defines in jobs:
        _tool(["glslc", "--target-env=vulkan1.3", "-O", *defines, str(GPU_SRC / shader), "-o", str(spv / name)])


def _carry_modules(out: Path) -> None:
    py = out / "py" / "d3d12wl" / "vulkan"
    py.mkdir(parents=True, exist_ok=True)
    _write(py.parent / "__init__.py", "")
    _write(py / "__init__.py", "")
    for module in DEVICE_MODULES:
        _write(py / module, (ROOT / "d3d12wl" / "vulkan" / module).read_bytes())


def prepare_one(out: Path, name: str, source: dict[str, Any], max_sequences: int, bound_ms: float,
                repeat_small: int, repeat_big: int) -> dict[str, Any]:
    """Lower one capture and write its case (and walker plans) into ``out/cases``: its manifest entry, with
    ``refused`` (the reason) for a call the lowering or the harness cannot represent."""
    t0 = time.perf_counter()
    entry: dict[str, Any] = {"source": source, "max_sequences": source.get("max_sequences", max_sequences),
                             "submission_bound_ms": bound_ms}
    capture = _load(source)
    try:
        low, prep = _lower(capture, entry["max_sequences"], bound_ms)
    except HarnessRefusal as e:
        entry["refused"] = f"the harness cannot represent the call: {e}"
    except LoweringError as e:
        entry["refused"] = f"the lowering refuses the call: {e}"
    except D3D12WLError as e:
        entry["refused"] = f"the call cannot be lowered: {e}"
    if "refused" in entry:
        return entry
    errors = execute(capture, EXECUTOR_LIMITS).errors  # what the GPU need not match: never sent to it
    if errors:
        f = errors[0]
        where = f" {f.where()}" if f.where() else ""
        entry["refused"] = (f"the executor reports {len(errors)} error finding(s), an invalid call or undefined "
                            f"behaviour, which no GPU need match: {f.kind} [{f.rule}]{where}: {f.message}")
        return entry
    case = prep.case
    big = sum(lay.count * lay.stride for lay in case.layouts) + sum(r.size for r in case.regions) > COMPRESS_OVER
    target = out / "cases" / f"{name}.case{'.xz' if big else ''}"
    _write_pieces(target, case.pieces(), case.layouts[0].stride if big else None)
    walked = []
    for li, leaf in enumerate(low.leaves()):
        if leaf.walk is None:
            continue
        plan = plan_of(leaf, capture.memory)
        # the plan's bytes are mostly records: delta-coded at their stride
        stride = getattr(plan.walk, "secondary_stride", 0) or getattr(plan.walk, "stride", 0) or \
            getattr(plan.walk, "primary_stride", 8)
        _write_pieces(out / "cases" / f"{name}.{li}.plan{'.xz' if big else ''}", [plan.to_bytes()],
                      stride if big else None)
        walked.append(li)
    estimate_ms = float(sum(estimated_ns(leaf).sum() for leaf in low.leaves())) / 1e6
    longest_ms = max((float(estimated_ns(leaf)[a:a + n].sum()) / 1e6 for leaf in low.leaves()
                      for a, n in leaf.chunks), default=0.0)
    repeat = 1 if estimate_ms > REPEAT_ONCE_OVER_MS else repeat_big if case.count > 1 << 16 else repeat_small
    entry.update(case_sha256=case.sha256(), records=case.count, record_dwords=case.record_dwords,
                 layouts=len(case.layouts), executes=len(case.executes),
                 largest_execute=max((e[2] for e in case.executes), default=0), programs=list(prep.programs),
                 walked_layouts=walked, notes=list(prep.notes), masks=fetch_masks(case), repeat=repeat,
                 estimated_gpu_ms=round(estimate_ms, 3), estimated_longest_submission_ms=round(longest_ms, 3),
                 case_bytes=target.stat().st_size, prepare_s=round(time.perf_counter() - t0, 3))
    return entry


def prepare(out: Path, sources: dict[str, dict[str, Any]], max_sequences: int, repeat_small: int,
            repeat_big: int, bound_ms: float = DEFAULT_BOUND_MS, timeout_s: float | None = None) -> dict[str, Any]:
    """Lower every capture (each in a process of its own), write its case (and walker plans), the harness, the
    shaders and run.sh into ``out``."""
    check_build_tools()
    unsafe = [name for name in sources if not CASE_NAME.fullmatch(name) or name == HOSTILE]
    if unsafe:
        raise ValueError(f"case names {unsafe}: a case name is letters, digits, _ and - (case_name makes one) and "
                         f"not {HOSTILE}")
    (out / "cases").mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"max_sequences": max_sequences, "submission_bound_ms": bound_ms, "cases": {}}
    script = RUN_HEAD.format(raw_max=RECORDS_RAW_MAX, back=RECORDS_BACK, budget=RUN_BUDGET_S)
    masks: set[int] = {0}
    t0 = time.perf_counter()
    for name, source in sources.items():
        entry = isolated(functools.partial(prepare_one, out, name, source, max_sequences, bound_ms, repeat_small,
                                           repeat_big), timeout_s)
        entry.setdefault("source", source)
        manifest["cases"][name] = entry
        if "refused" in entry or "failed" in entry:
            print(f"{name}: {'refused' if 'refused' in entry else 'FAILED'}: {entry.get('refused') or entry['failed']}",
                  flush=True)
            continue
        masks.update(entry.pop("masks"))
        limit = max(CASE_LIMIT_S, int(3 * entry["estimated_gpu_ms"] * entry["repeat"] / 1000))
        walk = RUN_WALK.format(name=name, layouts=" ".join(map(str, entry["walked_layouts"])), repeat=entry["repeat"],
                               dwords=entry["record_dwords"], limit=limit) if entry["walked_layouts"] else ""
        script += RUN_CASE.format(name=name, dwords=entry["record_dwords"], repeat=entry["repeat"], limit=limit,
                                  walk=walk)
        print(f"{name}: {entry['records']} records, {entry['layouts']} layouts, {entry['executes']} executes "
              f"(longest estimated {entry['estimated_longest_submission_ms']} ms), walked {entry['walked_layouts']}, "
              f"{entry['case_bytes']} bytes, peak {entry['peak_mib']} MiB", flush=True)
    ia = manifest["cases"].get("ia", {})
    if "records" in ia:
        script += _negative_control(out, manifest, sources["ia"], bound_ms)
    script += RUN_TAIL.format(archive_max=ARCHIVE_MAX)
    _compile(out, masks)
    _write(out / "run.sh", script).chmod(0o755)
    manifest["prepare_s"] = round(time.perf_counter() - t0, 3)
    manifest["peak_mib"] = max((e.get("peak_mib", 0) for e in manifest["cases"].values()), default=0)
    _write(out / "manifest.json", json.dumps(manifest, indent=1) + "\n")
    return manifest


#: the negative control: a case whose first index buffer view the harness must refuse (exit 2) on the GPU machine,
#: before it creates anything
HOSTILE = "hostile_address"
HOSTILE_VA = 0xDEAD_0000


def _negative_control(out: Path, manifest: dict[str, Any], source: dict[str, Any], bound_ms: float) -> str:
    """The ``ia`` case with sequence 0's index buffer view moved outside every region (what the CPU side would
    refuse): the harness must exit 2 naming it."""
    _, prep = _lower(make_capture(source), manifest["cases"]["ia"]["max_sequences"], bound_ms)
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


class GpuRecords:
    """What came back of one run (``tag``) of a case, read chunk by chunk: the records whole (``TAG.rec.xz``,
    decompressed as they are read), or the GPU machine's check of them (``TAG.check.json``: per chunk the digest of
    the records as compared and the model's, the mismatches against the model, and ``TAG.bad.rec``, the records of
    the chunks that differ from it)."""

    def __init__(self, results: Results, tag: str, case: Case) -> None:
        self.tag, self.dwords = tag, case.record_dwords
        raw = results.files.get(f"{tag}.rec.xz")
        self.stream = lzma.open(io.BytesIO(raw)) if raw is not None else None
        self.check = results.json(f"{tag}.check.json")
        self.bad: dict[int, np.ndarray] = {}
        if self.check is not None:
            data = np.frombuffer(results.files.get(f"{tag}.bad.rec", b""), dtype="<u4")
            at = 0
            for k in self.check.get("bad_chunks", []):
                n = self.check["chunks"][k]["count"] * self.dwords
                if at + n <= len(data):
                    self.bad[k] = data[at:at + n].reshape(-1, self.dwords)
                at += n

    @property
    def usable(self) -> str | None:
        """Why nothing can be compared, or None."""
        if self.stream is None and self.check is None:
            return "no records came back"
        return None

    def whole(self, n: int) -> np.ndarray | None:
        """The next ``n`` records of the whole records, or None (not whole, or short)."""
        if self.stream is None:
            return None
        data = self.stream.read(n * self.dwords * 4)
        if len(data) != n * self.dwords * 4:
            return None
        return np.frombuffer(data, dtype="<u4").reshape(n, self.dwords)


def _compare_chunk(gpu: GpuRecords, k: int, first: int, want: Model, model: Model, vs_executor: Tally,
                   vs_lowering: Tally | None) -> None:
    """One chunk of the GPU's records against the executor's (``want``) and, with whole records, the model's."""
    n = len(want.records)
    got = gpu.whole(n)
    if got is not None:
        vs_executor.add(first, compare_records(got, want.records, invocations_min=want.invocations_min))
        if vs_lowering is not None:
            vs_lowering.add(first, compare_records(got, model.records, invocations_min=model.invocations_min))
        return
    if gpu.stream is not None:
        vs_executor.fail("the records that came back are fewer than the case's")
        return
    chunks = gpu.check.get("chunks", [])
    if k >= len(chunks) or chunks[k]["first"] != first or chunks[k]["count"] != n:
        vs_executor.fail(f"the GPU machine's check has no chunk {k} of records {first}..{first + n - 1}")
        return
    c = chunks[k]
    if c["model"] != digest(model.records):
        vs_executor.fail(f"chunk {k}: the GPU machine modelled records {first}..{first + n - 1} otherwise than here "
                         "(a different d3d12wl/vulkan/case.py there?)")
        return
    if k in gpu.bad:  # the records of a chunk that differs from the model: record for record
        vs_executor.add(first, compare_records(gpu.bad[k], want.records, invocations_min=want.invocations_min))
    elif c["gpu"] == digest(want.records):  # equal digests, equal records
        vs_executor.add(first, compare_records(want.records, want.records))
    elif c["mismatches"] == 0:  # the GPU's records are the model's, as compared: the model against the executor
        vs_executor.add(first, compare_records(as_compared(model.records, model), want.records,
                                               invocations_min=want.invocations_min))
    else:
        vs_executor.fail(f"chunk {k}: records {first}..{first + n - 1} differ from the lowering's model on the GPU "
                         f"({c['mismatches']}) and did not come back: their mismatches against the executor are not "
                         "counted")


def compare_one(name: str, entry: dict[str, Any], results: Results) -> dict[str, Any]:
    """One case: the executor's trace, the lowering's model and the GPU's records, chunk by chunk."""
    capture = _load(entry["source"])
    low, prep = _lower(capture, entry["max_sequences"], entry.get("submission_bound_ms", DEFAULT_BOUND_MS))
    case = prep.case
    e: dict[str, Any] = {"records": case.count, "layouts": len(case.layouts), "executes": len(case.executes),
                         "notes": entry.get("notes", [])}
    if case.sha256() != entry["case_sha256"]:
        e["error"] = "the capture lowers to another case than the one that ran (a different capture or code)"
    rc = results.text(f"{name}.rc")
    skipped = results.text(f"{name}.skipped")
    if skipped is not None:
        e["error"] = skipped
    elif rc is None:
        e["error"] = "no result for this case came back"
    elif rc != "0":
        stderr = results.text(f"{name}.stderr") or ""
        if rc == "2":
            e["refused"] = f"the harness refused the case: {stderr}"
        else:
            e["error"] = f"the harness failed (exit {rc}): {stderr}"
    t0 = time.perf_counter()
    trace = execute(capture, EXECUTOR_LIMITS)
    t1 = time.perf_counter()
    e.update(executions=len(trace.executions), executor_errors=len(trace.errors),
             executor_execute_ms=round((t1 - t0) * 1e3, 3))
    tallies = {"lowering_vs_executor": Tally()}
    runs: dict[str, tuple[GpuRecords, Tally, Tally | None]] = {}
    if rc == "0":
        gpu = GpuRecords(results, name, case)
        runs["gpu_vs_executor"] = (gpu, Tally(), Tally() if gpu.stream is not None else None)
        walked = results.text(f"{name}.walked.rc")
        if walked == "0":
            runs["dgc_on_walked_sequences_vs_executor"] = (GpuRecords(results, f"{name}.walked", case), Tally(), None)
    for gpu, vs_executor, _ in runs.values():
        if gpu.usable is not None:
            vs_executor.fail(gpu.usable)
    memory = case_memory(case)
    expected_s = model_s = 0.0
    ranges = chunk_ranges([lay.count for lay in case.layouts])
    chunks = expected_chunks(trace.executions, low, prep, capture.memory)
    for k, (li, a, b, first) in enumerate(ranges):
        t = time.perf_counter()
        got_first, want = next(chunks)
        t2 = time.perf_counter()
        model = model_chunk(case, li, a, b, memory)
        t3 = time.perf_counter()
        expected_s, model_s = expected_s + t2 - t, model_s + t3 - t2
        assert got_first == first
        tallies["lowering_vs_executor"].add(first, compare_records(model.records, want.records))
        if not np.array_equal(model.invocations_min, want.invocations_min):
            tallies["lowering_vs_executor"].fail(f"the least invocation counts differ in records {first}.."
                                                 f"{first + b - a - 1}")
        for gpu, vs_executor, vs_lowering in runs.values():
            if gpu.usable is None and vs_executor.error is None:
                _compare_chunk(gpu, k, first, want, model, vs_executor, vs_lowering)
    e.update(expected_records_ms=round(expected_s * 1e3, 3), model_records_ms=round(model_s * 1e3, 3))
    del trace
    e["lowering_vs_executor"] = tallies["lowering_vs_executor"].to_dict()
    for key, (gpu, vs_executor, vs_lowering) in runs.items():
        e[key] = vs_executor.to_dict()
        if key != "gpu_vs_executor":
            continue
        if vs_lowering is not None:
            e["gpu_vs_lowering"] = {**vs_lowering.to_dict(), "by": "record for record, here"}
        elif gpu.check is not None:
            e["gpu_vs_lowering"] = {k: v for k, v in gpu.check.items() if k not in ("chunks", "bad_chunks",
                                                                                      "chunk_records")}
            e["gpu_vs_lowering"]["by"] = "record for record, on the GPU machine"
            e[key]["by"] = (f"per chunk of {gpu.check.get('chunk_records')} records: digests, the chunks that differ "
                            f"from the model record for record ({len(gpu.bad)} came back)")
        else:
            e["gpu_vs_lowering"] = {"compared": 0, "mismatches": None, "error": gpu.usable or "no check"}
    if rc == "0":
        summary = results.json(f"{name}.summary.json")
        if summary is not None:
            e["gpu"] = {k: summary[k] for k in ("preprocess_ms_min", "preprocess_ms_median", "execute_ms_min",
                                                "execute_ms_median", "total_ms_min", "total_ms_median", "repeat",
                                                "executes", "largest_execute", "preprocess_bytes", "views_checked",
                                                "maxIndirectSequenceCount", "submissions", "longest_submission_gpu_ms",
                                                "longest_submission_wall_ms") if k in summary}
            bound = entry.get("submission_bound_ms", DEFAULT_BOUND_MS)
            longest = summary.get("longest_submission_gpu_ms")
            if longest is not None and longest > bound:
                e["error"] = (f"a submission ran {longest:.1f} ms of GPU time, over the {bound:.0f} ms bound: the cost "
                              "model of d3d12wl.vulkan.submissions underestimates this device")
        walks = {}
        for li in entry.get("walked_layouts", []):
            w = results.json(f"{name}.walk{li}.json")
            walks[str(li)] = w if w is not None else {"error": f"no walk result (exit {results.text(f'{name}.walk{li}.rc')}): "
                                                               f"{results.text(f'{name}.walk{li}.stderr')}"}
        if walks:
            e["gpu_walker"] = walks
            if "dgc_on_walked_sequences_vs_executor" not in e:
                if all(w.get("mismatched_sequences") == 0 for w in walks.values()):
                    e["dgc_on_walked_sequences_vs_executor"] = {
                        **e.get("gpu_vs_executor", {}), "by": "the run above: the walked sequences are those bytes"}
                else:
                    e["dgc_on_walked_sequences_vs_executor"] = {
                        "compared": 0, "mismatches": None,
                        "error": f"the walked case did not run: {results.text(f'{name}.walked.stderr')}"}
    return e


def compare(results: Results, manifest: dict[str, Any], names: list[str] | None = None,
            timeout_s: float | None = None) -> dict[str, Any]:
    report: dict[str, Any] = {"probe": results.json("probe.json"), "max_sequences": manifest["max_sequences"],
                              "submission_bound_ms": manifest.get("submission_bound_ms", DEFAULT_BOUND_MS),
                              "negative_control": negative_control(results, manifest), "cases": {}}
    for name, entry in manifest["cases"].items():
        if names is not None and name not in names:
            continue
        if "refused" in entry or "failed" in entry:
            report["cases"][name] = {k: entry[k] for k in ("refused", "failed") if k in entry}
            print(name, "refused:" if "refused" in entry else "FAILED at prepare:",
                  entry.get("refused") or entry.get("failed"), flush=True)
            continue
        e = isolated(functools.partial(compare_one, name, entry, results), timeout_s)
        report["cases"][name] = e
        print(name, json.dumps({k: v for k, v in e.items() if k not in ("notes", "where")}), flush=True)
    report["peak_mib"] = max((e.get("peak_mib", 0) for e in report["cases"].values()), default=0)
    report["compare_peak_mib_of_this_process"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024
    return report


def verdict(report: dict[str, Any]) -> tuple[list[str], list[str]]:
    """``(lines, failures)``: one line per capture (ran: its executions and mismatches; refused: the reason;
    FAILED: why), and every reason the run fails.  Passing needs positive evidence for every case that ran: a
    comparison that could not be made, a missing result, a mismatch, a walker's mismatched sequences or error bits,
    a submission over the bound, a capture whose preparation or comparison failed fail it; a refused capture is an
    outcome, not a failure."""
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
        if e.get("failed"):
            bad.append(e["failed"])
        if e.get("error"):
            bad.append(e["error"])
        for key in ("gpu_vs_executor", "gpu_vs_lowering", "lowering_vs_executor"):
            if e.get("failed"):
                break
            v = e.get(key)
            if v is None:
                if not e.get("error"):  # a case that did not run says why once
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
                         f"{g.get('total_ms_min', '?')} ms in {e['executes']} executes, the longest "
                         f"{g.get('longest_submission_gpu_ms', '?')} ms; executor {e['executor_execute_ms']} ms; "
                         f"compared in {e.get('peak_mib', '?')} MiB)")
    return lines, failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare", help="lower the captures; write the cases, the harness and run.sh into DIR")
    p.add_argument("dir", type=Path)
    p.add_argument("captures", nargs="*", type=Path, help="capture files (default: the suite)")
    p.add_argument("--suite", action="store_true", help="also the bundled and builder-made captures")
    p.add_argument("--corpora", action="store_true", help="also the test corpora (tests/remap_cases.py, the breakers "
                   "of tests/call_requirements.py)")
    p.add_argument("--cases", nargs="+", help="only these cases of the suite and corpora")
    p.add_argument("--draws", type=int, default=1 << 20, help="draws of the big work list and ExecuteIndirect")
    p.add_argument("--frame-draws", type=int, default=0, help="draws of the frame (0: none)")
    p.add_argument("--heavy-draws", type=int, default=0,
                   help="draws of each of the two heavy frames of issue 44, 1.3e10 and 2.6e10 vertex invocations at "
                        "100000 (0: none)")
    p.add_argument("--max-sequences", type=int, default=1 << 20,
                   help="sequences per DGC execute: the device's maxIndirectSequenceCount (dgc_harness --probe)")
    p.add_argument("--submission-ms", type=float, default=DEFAULT_BOUND_MS,
                   help="the estimated GPU time one submission may take (d3d12wl.vulkan.submissions)")
    p.add_argument("--repeat-small", type=int, default=20)
    p.add_argument("--repeat-big", type=int, default=5)
    p.add_argument("--timeout", type=float, default=None, help="seconds one capture may take to prepare")
    c = sub.add_parser("compare", help="compare the GPU's results with the executor")
    c.add_argument("results", type=Path, help="results.tar.xz from run.sh, or the folder it was unpacked into")
    c.add_argument("--manifest", type=Path, required=True, help="DIR/manifest.json written by prepare")
    c.add_argument("--json", type=Path)
    c.add_argument("--cases", nargs="+", help="only these cases")
    c.add_argument("--timeout", type=float, default=None, help="seconds one capture may take to compare")
    args = ap.parse_args(argv)
    try:
        return _run(args)
    except Unusable as e:
        print(f"gpu_check: {e}", file=sys.stderr)  # a capture that cannot be used
        return 2
    except (D3D12WLError, OSError, tarfile.TarError, lzma.LZMAError, ValueError, KeyError) as e:
        print(f"gpu_check: {e}", file=sys.stderr)  # a path, an archive or a manifest that cannot be used
        return 2


def read_manifest(path: Path) -> dict[str, Any]:
    """The manifest ``prepare`` wrote; :class:`Unusable` naming the file when it is not one."""
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as e:
        raise Unusable(f"{path}: not the manifest.json gpu_check prepare writes ({e}); give --manifest "
                       "DIR/manifest.json of the kit that ran") from e
    if not isinstance(manifest, dict) or not isinstance(manifest.get("cases"), dict) or "max_sequences" not in manifest:
        raise Unusable(f"{path}: not the manifest.json gpu_check prepare writes (no 'cases' and 'max_sequences'); give "
                       "--manifest DIR/manifest.json of the kit that ran")
    return manifest


def _run(args: argparse.Namespace) -> int:
    if args.command == "prepare":
        sources: dict[str, dict[str, Any]] = {}
        if args.suite or not (args.captures or args.corpora):
            sources.update(suite(args.draws, args.frame_draws, args.heavy_draws))
        if args.corpora:
            sources.update(corpora())
        if args.cases:
            unknown = sorted(set(args.cases) - set(sources))
            if unknown:
                print(f"unknown cases {unknown}; known: {sorted(sources)}", file=sys.stderr)
                return 2
            sources = {k: v for k, v in sources.items() if k in args.cases}
        for path in args.captures:
            sources[case_name(path, sources)] = {"path": str(path.resolve())}
        manifest = prepare(args.dir, sources, args.max_sequences, args.repeat_small, args.repeat_big,
                           args.submission_ms, args.timeout)
        failed = [n for n, e in manifest["cases"].items() if "failed" in e]
        print(f"prepared {len(manifest['cases'])} captures in {manifest['prepare_s']} s, each in at most "
              f"{manifest['peak_mib']} MiB; refused {sum('refused' in e for e in manifest['cases'].values())}, "
              f"failed {len(failed)}")
        return 1 if failed else 0
    manifest = read_manifest(args.manifest)
    try:
        results = Results(args.results)
    except tarfile.TarError as e:
        raise Unusable(f"{args.results}: not the results.tar.xz run.sh writes, nor a folder it was unpacked into "
                       f"({str(e).splitlines()[0]})") from e
    report = compare(results, manifest, args.cases, args.timeout)
    lines, failures = verdict(report)
    report["verdict"] = lines
    if args.json:
        _write(args.json, json.dumps(report, indent=1) + "\n")
    print("\n".join(lines))
    print(f"compared each capture in at most {report['peak_mib']} MiB")
    for failure in failures:
        print("FAIL", failure, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
