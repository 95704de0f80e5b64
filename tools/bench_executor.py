"""The executor at real-frame scale: the columnar path against a bare numpy decoder of the same bytes and the
reference walker, measured in the same run (design.md: "Benchmarks report ratios against the anchors measured in
the same run, never bare times").

Inputs, built by :func:`d3d12wl.capture.builder.build_work_list` and the packers:

* ``culling``: a Tier 1 DispatchList of 1 M draws with the culling PCS of ``d3d12wl/examples/culling.json``
  (hybrid records; each primary record selects one of its three programs and drives ``--per-record`` secondary
  records: a material SRV and a DRAW each);
* ``execute_indirect``: ExecuteIndirect of 1 M commands with a count buffer (the ``RootConstantsAndVertexBuffers``
  signature of ``d3d12wl/examples/execute_indirect.json``: two root constants, a vertex buffer view and a DRAW).

Per input: the columnar executor's executions/s (best of 3) and resident bytes per execution (the trace's columns,
and every byte allocated and still held once the call returns, measured by tracemalloc in a separate run), the bare numpy decoder's rate (structured dtypes, a
program-table gather, repeat/cumsum over the secondary lists), the reference walker's rate on a 10 K sample, their
ratios, and the process's peak RSS at the end.

Then the per-format table: what a user reads of the ``culling`` frame, as a user gets it.  The capture is saved
(:func:`~d3d12wl.capture.file.save_capture`: the JSON and its ``.bin`` regions) and each output is made by the
command line in a fresh process: ``d3d12wl exec CAPTURE --format F -o FILE`` for every format of
``d3d12wl.executor.output.FORMATS``, ``d3d12wl dump CAPTURE -o FILE`` and ``d3d12wl dump CAPTURE --json -o FILE``
(best of ``--format-repeat``).  Per output: wall and CPU time, the process's peak RSS (``wait4``), and
executions/s beyond start-up: ``executions / (wall - start-up)``, where start-up is a process that imports the
command line and loads the same capture (measured the same way, in the same run), next to the engine alone, a
process that loads the capture and executes it (``d3d12wl.executor.execute``) and writes nothing: the ratio
``format rate / engine rate`` is the figure that carries over between machines.  The outputs a user reads or
pipes on (text, json, jsonl and their version 1, csv, dump) are measured a second time with standard output a pipe (``| pipe``) that
a child drains (``os.splice`` into ``/dev/null``: the reader costs no copy, so the rate is the writer's); the
issue's targets hold for a file or a pipe.  Two anchors measured in the same run say what the destination itself
carries: a pipe to the same reader, written 4 MiB at a time, and a new regular file written so and closed (as
every ``-o`` file is committed: no sync); an output of B bytes takes at least B over that rate.  The Parquet output
has an anchor of its own: pyarrow's own ``write_table`` of the same table (the file read back, written with
pyarrow's defaults, only the write timed), and the output's time beyond start-up over it (issue 39's target: at
most 1, executing the frame included in ours).

    python tools/bench_executor.py [--json] [--draws N] [--per-record K] [--sample N]
                                   [--formats text,json,...|all|none] [--format-repeat R] [--format-timeout S]
                                   [--formats-only]

``--draws 10000000`` is the 10 M-draw table; ``--json`` prints every figure as JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.file import Capture, save_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute
from d3d12wl.executor.trace import Limits, Trace
from d3d12wl.model import description
from d3d12wl.model.objects import ObjectSet
from d3d12wl.model.state import CommandListState, DeviceCaps, ExecuteIndirectCall, RootArgument
from d3d12wl.records import packers
from d3d12wl.records.dtypes import record_dtype
from d3d12wl.records.layout import command_layout, pcs_layout

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
BASE_VA = 0x1_0000_0000
ARGS_VA, COUNT_VA = 0x2_0000_0000, 0x3_0000_0000


def _objects(name: str) -> ObjectSet:
    return description.load(json.loads((EXAMPLES / name).read_text(encoding="utf-8")))


def culling_capture(draws: int, per_record: int) -> Capture:
    """``draws`` draws in ``draws // per_record`` hybrid records of the culling PCS, programs round-robin."""
    objects = _objects("culling.json")
    pcs = objects.program_command_signatures["PCS"]
    wls = objects.work_list_signatures["WLS"]
    programs = list(objects.programs.values())
    records = draws // per_record
    k = np.arange(draws, dtype=np.uint64)
    spec = DispatchListSpec(
        pcs, {"ProgramTableIndex": (np.arange(records) % len(programs)).astype(np.uint32)},
        {"arg0_ShaderResourceView": 0x7000_0000 + (k % 4096) * 256, "arg1_Draw.VertexCountPerInstance": 3 + k % 97,
         "arg1_Draw.InstanceCount": 1, "arg1_Draw.StartVertexLocation": k * 3 % 65536,
         "arg1_Draw.StartInstanceLocation": 0},
        np.full(records, per_record, dtype=np.uint32))
    tints = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 1.0, 0.5], [0.0, 0.0, 0.0, 1.0]], dtype=np.float32)
    table = ProgramTableSpec(pcs_layout(pcs), {"ProgramIdentifier": [p.Identifier for p in programs],
                                               "arg2_InlineRootParameter": tints[: len(programs)].view(np.uint32)})
    wl = build_work_list([spec], base_va=BASE_VA, program_table=table, signature=wls, objects=objects)
    grs = objects.root_signatures["GRS"]
    state = wl.command_list_state(graphics_root_signature=grs,
                                  graphics_root_arguments={0: RootArgument("descriptor", value=0x5000_0000)})
    capture: Capture = wl.to_capture(objects, state=state)
    return capture


def execute_indirect_capture(commands: int) -> Capture:
    objects = _objects("execute_indirect.json")
    cs = objects.command_signatures["RootConstantsAndVertexBuffers"]
    k = np.arange(commands, dtype=np.uint64)
    args = packers.pack_execute_indirect(cs, {
        "arg0_Constant": (k % 1000).astype(np.uint32), "arg1_Constant": (k % 64).astype(np.uint32),
        "arg2_VertexBuffer.BufferLocation": 0x9000_0000 + k * 64, "arg2_VertexBuffer.SizeInBytes": 64,
        "arg2_VertexBuffer.StrideInBytes": 16, "arg3_Draw.VertexCountPerInstance": 3 + k % 97,
        "arg3_Draw.InstanceCount": 4, "arg3_Draw.StartVertexLocation": k * 3 % 65536,
        "arg3_Draw.StartInstanceLocation": 0})
    memory = GpuMemory()
    memory.map(ARGS_VA, args, name="pArgumentBuffer")
    memory.map(COUNT_VA, packers.pack_count_buffer(commands), name="pCountBuffer")
    rs = cs.pRootSignature
    assert rs is not None
    state = CommandListState(graphics_root_signature=rs,
                             graphics_root_arguments={0: RootArgument("descriptor", value=0x5000_0000)})
    from d3d12wl import abi
    from d3d12wl.capture.file import CAPTURE_VERSION

    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    return Capture(CAPTURE_VERSION, device, objects, memory, state,
                   ExecuteIndirectCall(cs, commands, ARGS_VA, COUNT_VA))


# -- the bare numpy decoders ----------------------------------------------------------------------------------


def _region(memory: GpuMemory, va: int) -> tuple[np.ndarray, int]:
    r = memory.region_at(va)
    assert r is not None
    return np.frombuffer(r.data, dtype=np.uint8), r.base


def bare_culling(capture: Capture) -> int:
    """Decode every draw of the culling capture with numpy only: the list header, the primary records (structured
    dtype), the program-table gather (identifier -> program), the secondary lists by repeat/cumsum, the secondary
    records (structured dtype), and the per-draw columns (program, SRV, DRAW arguments)."""
    mem = capture.memory
    pcs = capture.objects.program_command_signatures["PCS"]
    layout = pcs_layout(pcs)
    header = packers.read_dispatch_list_inputs(mem.view(capture.call.DispatchListInput, 24))[0]
    n = int(header["NumProgramInputs"])
    start = int(header["ProgramInputs"]["StartAddress"])
    stride = int(header["ProgramInputs"]["StrideInBytes"])
    buf, base = _region(mem, start)
    prim = np.ndarray((n,), dtype=record_dtype(layout.primary, stride), buffer=buf, offset=start - base)
    binding = capture.state.program.WorkList.Binding.ProgramTable
    tbuf, tbase = _region(mem, binding.Table.StartAddress)
    t0, tstride = binding.Table.StartAddress - tbase, binding.Table.StrideInBytes
    ids = tbuf[t0: t0 + binding.SlotCount * tstride].reshape(binding.SlotCount, tstride)[:, :32]
    known = {bytes(p.Identifier): i for i, p in enumerate(capture.objects.programs.values())}
    slot_program = np.array([known.get(bytes(row), -1) for row in ids], dtype=np.int64)
    program = slot_program[prim["ProgramTableIndex"]]
    counts = prim["NumSecondaryRecords"].astype(np.int64)
    offsets = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(counts, out=offsets[1:])
    total = int(offsets[-1])
    j = np.arange(total, dtype=np.int64) - np.repeat(offsets[:-1], counts)
    sva = np.repeat(prim["SecondaryRecords"], counts) + j.astype(np.uint64) * np.uint64(pcs.SecondaryRecordByteStride)
    sbuf, sbase = _region(mem, int(sva[0]))
    assert layout.secondary is not None
    s_stride = pcs.SecondaryRecordByteStride
    s0 = int(sva.min()) - sbase
    sec_all = np.ndarray(((len(sbuf) - s0) // s_stride,), dtype=record_dtype(layout.secondary, s_stride), buffer=sbuf,
                         offset=s0)
    sec = sec_all[((sva - np.uint64(sbase + s0)) // np.uint64(s_stride)).astype(np.intp)]
    columns = {"program": np.repeat(program, counts), "srv": sec["arg0_ShaderResourceView"],
               "draw": sec["arg1_Draw"], "secondary_index": j}
    return len(columns["draw"])


def bare_execute_indirect(capture: Capture) -> int:
    call = capture.call
    assert isinstance(call, ExecuteIndirectCall) and call.pCommandSignature is not None and call.CountBuffer
    count = min(packers.read_count_buffer(capture.memory.view(call.CountBuffer, 4)), call.MaxCommandCount)
    cs = call.pCommandSignature
    buf, base = _region(capture.memory, call.ArgumentBuffer)
    cmds = np.ndarray((count,), dtype=record_dtype(command_layout(cs), cs.ByteStride), buffer=buf,
                      offset=call.ArgumentBuffer - base)
    columns = {name: cmds[name].copy() for name in cmds.dtype.names or ()}
    columns["counter"] = np.arange(count)
    return count


# -- measuring -------------------------------------------------------------------------------------------------


def _best(fn: Any, repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def _column_bytes(trace: Trace) -> int:
    return sum(getattr(seg, "batch", seg).nbytes for seg in trace.executions.segments if not isinstance(seg, list))


def bench(name: str, capture: Capture, bare: Any, sample: int) -> dict[str, Any]:
    big = Limits(max_lists=1 << 20, max_primary_records=1 << 32, max_secondary_records=1 << 32,
                 max_executions=1 << 40, max_records=1 << 40)
    t_bare, n_bare = _best(lambda: bare(capture), 3)
    gc.collect()
    tracemalloc.start()  # numpy reports its buffers to tracemalloc: the trace's resident bytes, exactly
    held = execute(capture, big)
    resident = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del held
    gc.collect()
    t_fast, trace = _best(lambda: execute(capture, big), 3)
    n = len(trace.executions)
    assert n == n_bare and not trace.errors, (n, n_bare, trace.findings[:3])
    small = Limits(max_executions=sample, max_records=1 << 40, max_primary_records=1 << 32,
                   max_secondary_records=1 << 32)
    t_ref, ref = _best(lambda: execute(capture, small, engine="reference"), 1)
    n_ref = len(ref.executions)
    sample_check = [e == trace.executions[e.index] for e in (ref.executions[0], ref.executions[n_ref - 1])]
    assert all(sample_check)
    out = {
        "input": name, "executions": n,
        "columnar_executions_per_s": n / t_fast, "columnar_s": t_fast,
        "bare_numpy_executions_per_s": n_bare / t_bare, "bare_numpy_s": t_bare,
        "reference_executions_per_s": n_ref / t_ref, "reference_sample": n_ref, "reference_s": t_ref,
        "ratio_to_bare_numpy": (n / t_fast) / (n_bare / t_bare),
        "ratio_to_reference": (n / t_fast) / (n_ref / t_ref),
        "column_bytes_per_execution": _column_bytes(trace) / n,
        "resident_bytes_per_execution": resident / n,
    }
    del trace, ref
    gc.collect()
    return out


# -- the per-format table -------------------------------------------------------------------------------------

#: every output the per-format table measures: its name and the command-line words after ``CAPTURE``
OUTPUTS: dict[str, list[str]] = {
    **{fmt: ["--format", fmt] for fmt in ("text", "json", "jsonl", "csv", "npz", "parquet")},
    # (json and jsonl above are the default, version 2: the executions as the execution table's rows; version 1,
    # the trace's own shape, measured beside them)
    **{f"{fmt} v1": ["--format", fmt, "--json-version", "1"] for fmt in ("json", "jsonl")},
    "dump": [], "dump --json": ["--json"],
}
_STARTUP = ("import sys\nimport d3d12wl.cli\nd3d12wl.cli._one_blas_thread()  # (as the command line does)\n"
            "import d3d12wl.cli.exec_cmd, d3d12wl.cli.dump_cmd, d3d12wl.executor.output\n"
            "from d3d12wl.capture.file import load_capture\nload_capture(sys.argv[1])\n")
_ENGINE = ("import sys\nimport d3d12wl.cli\nd3d12wl.cli._one_blas_thread()\n"
           "import d3d12wl.cli.exec_cmd, d3d12wl.cli.dump_cmd, d3d12wl.executor.output\n"
           "from d3d12wl.capture.file import load_capture\nfrom d3d12wl.executor import execute\n"
           "assert not execute(load_capture(sys.argv[1])).errors\n")


#: the outputs also measured written to a pipe (standard output): those a user reads or pipes on
PIPED = ("text", "json", "jsonl", "json v1", "jsonl v1", "csv", "dump", "dump --json")
#: the child reading the pipe: it drains it as fast as the kernel moves the bytes (splice into /dev/null, no copy
#: into the reader) and prints how many bytes it read, so the figure is the writer's, not a slow reader's
_DRAIN = ("import os, sys\nfd, total = sys.stdin.fileno(), 0\nnull = os.open(os.devnull, os.O_WRONLY)\n"
          "if hasattr(os, 'splice'):\n    while n := os.splice(fd, null, 1 << 20):\n        total += n\n"
          "else:\n    buf = bytearray(1 << 20)\n    while n := sys.stdin.buffer.readinto(buf):\n        total += n\n"
          "print(total)\n")
#: the pipe's own rate: a process writing 4 MiB blocks of zeros to the same reader (``sys.argv[1]`` bytes)
_PIPE_ANCHOR = ("import os, sys\nblock, left = memoryview(bytes(4 << 20)), int(sys.argv[1])\n"
                "while left > 0:\n    v = block[:left]\n    while v:\n        v = v[os.write(1, v):]\n"
                "    left -= len(block)\n")
#: a regular file's own rate: ``sys.argv[2]`` bytes written in 4 MiB blocks to a new file beside ``sys.argv[1]``
#: and closed, as outfiles commits (no sync); the folder is removed after the table, so no unlink is timed
_FILE_ANCHOR = ("import os, sys\nblock, left = bytes(4 << 20), int(sys.argv[2])\n"
                "with open(f'{sys.argv[1]}.{os.getpid()}', 'xb') as f:\n    while left > 0:\n"
                "        left -= f.write(block[:left])\n")
#: bytes the pipe and file anchors write
ANCHOR_BYTES = 1 << 30
#: pyarrow's own writer of the same table: ``sys.argv[1]`` (the Parquet ``exec --format parquet`` wrote) read back,
#: then written to ``sys.argv[2]`` by ``pyarrow.parquet.write_table`` with its defaults, only that timed (printed)
_PARQUET_ANCHOR = ("import sys, time\nimport pyarrow.parquet as pq\ntable = pq.read_table(sys.argv[1])\n"
                   "t = time.perf_counter()\npq.write_table(table, sys.argv[2])\nprint(time.perf_counter() - t)\n")


#: GNU time, which measures the peak RSS of the program it runs from a small process of its own (the peak RSS wait4
#: gives for a child forked from this process counts this process's pages until the exec)
GNU_TIME = "/usr/bin/time"


def _child(argv: list[str], timeout: float, stdout: Any = subprocess.DEVNULL) -> dict[str, Any]:
    """Run ``argv`` and measure it: wall, CPU (user + system) and peak RSS of that process alone (by GNU time when
    it is installed, else ``wait4``, which then counts this process's own pages too)."""
    report = None
    if os.path.exists(GNU_TIME):
        fd, report = tempfile.mkstemp(prefix="d3d12wl-bench-", suffix=".time")
        os.close(fd)
        argv = [GNU_TIME, "-f", "%M %U %S", "-o", report, *argv]
    t = time.perf_counter()
    p = subprocess.Popen(argv, stdout=stdout, stderr=subprocess.PIPE, start_new_session=True)
    deadline = t + timeout
    while True:
        pid, status, usage = os.wait4(p.pid, os.WNOHANG)
        if pid:
            break
        if time.perf_counter() > deadline:
            os.killpg(p.pid, 9)  # GNU time and the command it runs
            os.wait4(p.pid, 0)
            if report is not None:
                os.unlink(report)
            return {"timed_out": True, "wall_s": timeout}
        time.sleep(0.01)
    wall = time.perf_counter() - t
    err = p.stderr.read().decode(errors="replace") if p.stderr is not None else ""
    p.returncode = os.waitstatus_to_exitcode(status)
    cpu, peak = usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
    if report is not None:
        with open(report) as f:
            fields = f.read().split()[-3:]  # (GNU time writes "Command exited with non-zero status N" first)
        os.unlink(report)
        peak, cpu = int(fields[0]) * 1024, float(fields[1]) + float(fields[2])
    return {"timed_out": False, "wall_s": wall, "cpu_s": cpu, "peak_rss_bytes": peak, "exit": p.returncode,
            "stderr": err[-2000:]}


def _piped_child(argv: list[str], timeout: float) -> dict[str, Any]:
    """:func:`_child` with its standard output a pipe that a child (:data:`_DRAIN`) reads; ``output_bytes`` is what
    it read."""
    reader = subprocess.Popen([sys.executable, "-c", _DRAIN], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert reader.stdin is not None and reader.stdout is not None
    try:
        r = _child(argv, timeout, stdout=reader.stdin)
    finally:
        reader.stdin.close()
        read = reader.stdout.read()
        reader.wait()
    if not r["timed_out"]:
        r["output_bytes"] = int(read or 0)
    return r


def _best_child(argv: list[str], repeat: int, timeout: float, piped: bool = False) -> dict[str, Any]:
    runs = [(_piped_child if piped else _child)(argv, timeout) for _ in range(repeat)]
    done = [r for r in runs if not r["timed_out"]]
    if not done:
        return runs[0]
    best = min(done, key=lambda r: r["wall_s"])
    best["peak_rss_bytes"] = max(r["peak_rss_bytes"] for r in done)
    return best


def bench_formats(capture: Capture, executions: int, formats: list[str], repeat: int,
                  timeout: float) -> dict[str, Any]:
    """The per-format table (see the module docstring) for ``capture`` (``executions`` draws, no error)."""
    py = sys.executable
    with tempfile.TemporaryDirectory(prefix="d3d12wl-bench-") as tmp:
        path = save_capture(capture, Path(tmp) / "frame_capture.json")
        capture_bytes = sum(f.stat().st_size for f in Path(tmp).iterdir())
        startup = _best_child([py, "-c", _STARTUP, str(path)], repeat, timeout)
        engine = _best_child([py, "-c", _ENGINE, str(path)], repeat, timeout)
        # (None where the engine's time is within the start-up's noise: a loaded machine's best runs)
        engine_beyond = engine["wall_s"] - startup["wall_s"] if engine["wall_s"] > startup["wall_s"] + 1e-3 else None
        engine_cpu = engine["cpu_s"] - startup["cpu_s"] if engine["cpu_s"] > startup["cpu_s"] + 1e-3 else None
        pipe = _best_child([py, "-c", _PIPE_ANCHOR, str(ANCHOR_BYTES)], repeat, timeout, piped=True) \
            if any(name in PIPED for name in formats) else None
        disk = _best_child([py, "-c", _FILE_ANCHOR, str(Path(tmp) / "anchor"), str(ANCHOR_BYTES)], repeat, timeout)

        def rates(r: dict[str, Any]) -> dict[str, Any]:
            if r["timed_out"]:
                return {}
            beyond = max(r["wall_s"] - startup["wall_s"], 1e-9)
            cpu = max(r["cpu_s"] - startup["cpu_s"], 1e-9)
            return {"beyond_startup_s": beyond, "executions_per_s": executions / beyond,
                    "ratio_to_engine": engine_beyond and engine_beyond / beyond, "beyond_startup_cpu_s": cpu,
                    "executions_per_cpu_s": executions / cpu, "cpu_ratio_to_engine": engine_cpu and engine_cpu / cpu}

        rows = []
        for name in formats:
            command = "dump" if name.startswith("dump") else "exec"
            out = Path(tmp) / "out"
            argv = [py, "-m", "d3d12wl", command, str(path), *OUTPUTS[name]]
            r = _best_child([*argv, "-o", str(out)], repeat, timeout)
            row: dict[str, Any] = {"output": name, "command": " ".join(["d3d12wl", command, "CAPTURE", *OUTPUTS[name],
                                                                      "-o FILE"]), **r, **rates(r)}
            if not r["timed_out"]:
                row["output_bytes"] = out.stat().st_size if out.exists() else 0
                if name == "parquet" and r["exit"] in (0, 1) and out.exists():
                    row.update(_parquet_anchor(out, Path(tmp) / "anchor.parquet", repeat, timeout, row))
            out.unlink(missing_ok=True)
            if name in PIPED:  # (progress is off: standard error is not a terminal)
                piped = _best_child(argv, repeat, timeout, piped=True)
                row["pipe"] = {"command": " ".join(["d3d12wl", command, "CAPTURE", *OUTPUTS[name], "| READER"]),
                               **piped, **rates(piped)}
            rows.append(row)
    anchors = {"pipe_bytes_per_s": ANCHOR_BYTES / pipe["wall_s"] if pipe and not pipe["timed_out"] else None,
               "file_bytes_per_s": ANCHOR_BYTES / disk["wall_s"] if not disk["timed_out"] else None}
    return {"executions": executions, "capture_bytes": capture_bytes, "startup": startup, "engine": engine,
            "engine_executions_per_s": engine_beyond and executions / engine_beyond,
            "engine_executions_per_cpu_s": engine_cpu and executions / engine_cpu,
            "outputs": rows, "anchors": anchors, "load_average": os.getloadavg()}


def _parquet_anchor(written: Path, target: Path, repeat: int, timeout: float, row: dict[str, Any]) -> dict[str, Any]:
    """The issue 39 anchor: pyarrow's own ``write_table`` of the table ``exec --format parquet`` wrote (read back,
    written with pyarrow's defaults; best of ``repeat``), and the output's time beyond start-up over it (executing
    the frame included in ours)."""
    times = []
    for _ in range(repeat):
        done = subprocess.run([sys.executable, "-c", _PARQUET_ANCHOR, str(written), str(target)], capture_output=True,
                              text=True, timeout=timeout, check=False)
        if done.returncode == 0:
            times.append(float(done.stdout.split()[-1]))
        target.unlink(missing_ok=True)
    if not times:
        return {}
    best = min(times)
    beyond = row.get("beyond_startup_s")
    return {"write_table_s": best, "ratio_to_write_table": beyond / best if beyond else None}


def _number(value: float | None, scale: float, spec: str) -> str:
    return format(value * scale, spec) if value is not None else format("-", ">" + spec.split(".")[0])


def _print_formats(t: dict[str, Any]) -> None:
    print(f"per-format table: {t['executions']:,} executions, capture {t['capture_bytes'] / 2**20:.0f} MiB "
          f"(load average {' '.join(f'{x:.1f}' for x in t['load_average'])})")
    s, e = t["startup"], t["engine"]
    print(f"  start-up (imports + load_capture)  {s['wall_s']:6.2f} s wall {s['cpu_s']:6.2f} s CPU "
          f"{s['peak_rss_bytes'] / 2**20:6.0f} MiB")
    print(f"  engine alone (load + execute)      {e['wall_s']:6.2f} s wall {e['cpu_s']:6.2f} s CPU "
          f"{e['peak_rss_bytes'] / 2**20:6.0f} MiB  {_number(t['engine_executions_per_s'], 1e-6, '6.2f')} M/s beyond "
          f"start-up ({_number(t['engine_executions_per_cpu_s'], 1e-6, '.2f')} M per CPU s; -: within the start-up's "
          "noise)")
    a = t["anchors"]
    print("  anchors: a pipe carries " + (f"{a['pipe_bytes_per_s'] / 1e9:.2f} GB/s" if a["pipe_bytes_per_s"] else "-")
          + " (4 MiB writes to the reader), a file takes " + (f"{a['file_bytes_per_s'] / 1e9:.2f} GB/s"
                                                             if a["file_bytes_per_s"] else "-")
          + f" (4 MiB writes to a new file, closed; {ANCHOR_BYTES / 2**30:.0f} GiB each)")
    print("  beyond start-up: executions per second of wall time and of CPU time, and the engine's time over the "
          "output's (x engine); -o FILE, then (| pipe) standard output to a reader")
    print(f"  {'output':<17} {'wall s':>7} {'CPU s':>7} {'peak MiB':>9} {'M exec/s':>9} {'M/CPU s':>8} "
          f"{'x engine':>9} {'x eng CPU':>9} {'out MiB':>8} {'out GB/s':>8}  exit")
    for row in t["outputs"]:
        for name, r in ((row["output"], row), (f"{row['output']} | pipe", row.get("pipe"))):
            if r is None:
                continue
            if r["timed_out"]:
                print(f"  {name:<17} timed out after {r['wall_s']:.0f} s")
                continue
            print(f"  {name:<17} {r['wall_s']:7.2f} {r['cpu_s']:7.2f} {r['peak_rss_bytes'] / 2**20:9.0f} "
                  f"{r['executions_per_s'] / 1e6:9.2f} {r['executions_per_cpu_s'] / 1e6:8.2f} "
                  f"{_number(r['ratio_to_engine'], 1, '9.3f')} {_number(r['cpu_ratio_to_engine'], 1, '9.3f')} "
                  f"{r['output_bytes'] / 2**20:8.0f} "
                  f"{r['output_bytes'] / r['beyond_startup_s'] / 1e9:8.2f}  {r['exit']}")
            if r["exit"] not in (0, 1):
                print("    " + r["stderr"].strip().replace("\n", "\n    "))
            if r.get("write_table_s"):
                print(f"    pyarrow's own write_table of the same table: {r['write_table_s']:.3f} s; the output beyond "
                      f"start-up over it: {_number(r.get('ratio_to_write_table'), 1, '.2f')} x (target <= 1)")
    print("  (targets: >= 1 M executions/s beyond start-up and <= 300 MiB per format; dump <= 2 s beyond start-up)")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--draws", type=int, default=1 << 20, help="draws / commands per input (default 1,048,576)")
    ap.add_argument("--per-record", type=int, default=16, help="secondary records per primary record (culling)")
    ap.add_argument("--sample", type=int, default=10_000, help="executions the reference walker runs")
    ap.add_argument("--formats", default="all",
                    help=f"outputs of the per-format table, comma-separated ({', '.join(OUTPUTS)}), all or none")
    ap.add_argument("--format-repeat", type=int, default=1, help="runs per output (the best is kept)")
    ap.add_argument("--format-timeout", type=float, default=600, help="seconds one output may take")
    ap.add_argument("--formats-only", action="store_true", help="only the per-format table, not the engine benches")
    args = ap.parse_args(argv)
    formats = list(OUTPUTS) if args.formats == "all" else [] if args.formats == "none" else \
        [f.strip() for f in args.formats.split(",")]
    unknown = [f for f in formats if f not in OUTPUTS]
    if unknown:
        ap.error(f"unknown output(s) {', '.join(unknown)}; choose from {', '.join(OUTPUTS)}")
    culling = culling_capture(args.draws, args.per_record)
    results = [] if args.formats_only else [
        bench("culling (Tier 1 hybrid)", culling, bare_culling, args.sample),
        bench("ExecuteIndirect (count buffer)", execute_indirect_capture(args.draws), bare_execute_indirect,
              args.sample)]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    table = bench_formats(culling, len(execute(culling).executions), formats, args.format_repeat,
                          args.format_timeout) if formats else None
    if args.json:
        json.dump({"results": results, "peak_rss_bytes": peak, "formats": table}, sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0
    for r in results:
        print(f"{r['input']}: {r['executions']:,} executions")
        print(f"  columnar executor   {r['columnar_executions_per_s'] / 1e6:8.2f} M/s  ({r['columnar_s']:.3f} s)")
        print(f"  bare numpy decoder  {r['bare_numpy_executions_per_s'] / 1e6:8.2f} M/s  ({r['bare_numpy_s']:.3f} s)")
        print(f"  reference walker    {r['reference_executions_per_s'] / 1e3:8.1f} k/s  "
              f"({r['reference_sample']:,} executions, {r['reference_s']:.2f} s)")
        print(f"  ratio to bare numpy {r['ratio_to_bare_numpy']:8.2f}   (target >= 0.33)")
        print(f"  ratio to reference  {r['ratio_to_reference']:8.0f} x (target >= 100)")
        print(f"  bytes / execution   {r['column_bytes_per_execution']:8.1f} in columns, "
              f"{r['resident_bytes_per_execution']:.1f} resident (target <= 200)")
    if results:
        print(f"peak RSS {peak / 2**20:.0f} MiB")
    if table is not None:
        _print_formats(table)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
