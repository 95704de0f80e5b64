"""``d3d12wl check`` over a folder of captures and ``d3d12wl report``'s page of a large frame, measured against
anchors run in the same process (design.md: ratios against anchors of the same run, never bare times).

check: ``--captures`` captures (default 100) of ``--draws`` draws each (default 100,000) of the culling frame
(:func:`bench_executor.culling_capture`: hybrid records of the culling PCS, ``--per-record`` draws each), saved into a
temporary folder as a user's would be (JSON and ``.bin`` regions).  ``d3d12wl check DIR --json`` runs in a fresh
process with ``--jobs 1`` and with ``--jobs J`` (default: the CPUs this process may use), best of ``--repeat``; per
run: wall, CPU, the check process's own peak, and from its JSON report every capture's time and peak (median and
largest; a capture's peak is its forked process's, the pages it shares with ``check`` included).  Anchors: start-up
(a process importing the command line), and the engine alone: one process loading and executing every capture in
turn, the least ``--jobs 1`` can cost; the figures that carry over between machines are ``check --jobs 1`` /
engine and the speed-up of ``--jobs J`` over ``--jobs 1``.

report: a frame of ``--page-draws`` draws (default 10 M) saved; ``d3d12wl report CAPTURE -o PAGE`` in a fresh
process, best of ``--repeat``; anchors as bench_executor's: start-up (importing the command line and loading the
capture) and the engine (loading and executing it).  "Beyond start-up" is a process's wall less start-up's; the
page's time beyond start-up against the engine's is the ratio; and the page's size.

    python tools/bench_check.py [--json] [--captures N] [--draws D] [--per-record K] [--jobs J] [--repeat R]
                                [--page-draws N] [--skip-check] [--skip-page] [--timeout S]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_executor import _best_child, culling_capture

from d3d12wl.capture.file import save_capture

#: a process that imports what ``check`` and ``report`` import (the start-up every figure is measured beyond)
_STARTUP = ("import d3d12wl.cli\nd3d12wl.cli._one_blas_thread()\n"
            "import d3d12wl.cli.check_cmd, d3d12wl.cli.report_cmd, d3d12wl.verdicts.judge, d3d12wl.verdicts.page\n"
            "import d3d12wl.executor.columnar\n")
#: start-up and loading the capture ``sys.argv[1]``
_STARTUP_LOAD = _STARTUP + "import sys\nfrom d3d12wl.capture.file import load_capture\nload_capture(sys.argv[1])\n"
#: start-up, then every capture of the folder ``sys.argv[1]`` loaded and executed in turn (the engine alone)
_ENGINE = (_STARTUP + "import sys, pathlib\nfrom d3d12wl.capture.file import load_capture\n"
           "from d3d12wl.executor import execute\n"
           "for p in sorted(pathlib.Path(sys.argv[1]).glob('*.json')):\n    execute(load_capture(p))\n")


def _mib(value: float) -> float:
    return round(value / (1 << 20), 1)


def bench_check(folder: Path, captures: int, draws: int, jobs: int, repeat: int, timeout: float) -> dict[str, Any]:
    py = sys.executable
    startup = _best_child([py, "-c", _STARTUP], repeat, timeout)
    engine = _best_child([py, "-c", _ENGINE, str(folder)], repeat, timeout)
    out: dict[str, Any] = {"captures": captures, "draws_per_capture": draws, "startup_s": startup["wall_s"],
                           "engine": {"wall_s": engine["wall_s"], "cpu_s": engine["cpu_s"],
                                      "peak_mib": _mib(engine["peak_rss_bytes"])}, "runs": {}}
    for j in sorted({1, jobs}):
        report = folder.parent / f"check-{j}.json"
        run = _best_child([py, "-m", "d3d12wl", "check", str(folder), "--jobs", str(j), "--quiet", "--json", "-o",
                           str(report)], repeat, timeout)
        if run.get("timed_out") or run.get("exit") != 0:
            out["runs"][j] = {"failed": run}
            continue
        doc = json.loads(report.read_text(encoding="utf-8"))
        times = [c["time_s"] for c in doc["captures"]]
        peaks = [c["peak_mib"] for c in doc["captures"]]
        assert len(times) == captures and doc["totals"]["executions"] == captures * draws, doc["totals"]
        out["runs"][j] = {"wall_s": run["wall_s"], "cpu_s": run["cpu_s"], "check_peak_mib": _mib(run["peak_rss_bytes"]),
                          "capture_time_median_s": statistics.median(times), "capture_time_max_s": max(times),
                          "capture_peak_median_mib": round(statistics.median(peaks), 1),
                          "capture_peak_max_mib": round(max(peaks), 1),
                          "x_engine": run["wall_s"] / engine["wall_s"],
                          "captures_per_s": captures / run["wall_s"],
                          "draws_per_s": captures * draws / run["wall_s"]}
    if 1 in out["runs"] and jobs in out["runs"] and "wall_s" in out["runs"][jobs] and "wall_s" in out["runs"][1]:
        out["speed_up"] = out["runs"][1]["wall_s"] / out["runs"][jobs]["wall_s"]
    return out


def bench_page(folder: Path, draws: int, per_record: int, repeat: int, timeout: float) -> dict[str, Any]:
    py = sys.executable
    capture = save_capture(culling_capture(draws, per_record), folder / "frame.json")
    page = folder / "frame.html"
    startup = _best_child([py, "-c", _STARTUP_LOAD, str(capture)], repeat, timeout)
    engine = _best_child([py, "-c", _STARTUP_LOAD + "from d3d12wl.executor import execute\n"
                          "execute(load_capture(sys.argv[1]))\n", str(capture)], repeat, timeout)
    made = _best_child([py, "-m", "d3d12wl", "report", str(capture), "-o", str(page), "--quiet"], repeat, timeout)
    if made.get("timed_out") or made.get("exit") != 0:
        return {"draws": draws, "failed": made}
    beyond, engine_beyond = made["wall_s"] - startup["wall_s"], engine["wall_s"] - startup["wall_s"]
    return {"draws": draws, "page_bytes": page.stat().st_size, "startup_s": startup["wall_s"],
            "engine_s": engine["wall_s"], "engine_beyond_startup_s": engine_beyond, "report_s": made["wall_s"],
            "report_beyond_startup_s": beyond, "report_peak_mib": _mib(made["peak_rss_bytes"]),
            "engine_peak_mib": _mib(engine["peak_rss_bytes"]), "x_engine_beyond_startup": beyond / engine_beyond}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--json", action="store_true")
    p.add_argument("--captures", type=int, default=100)
    p.add_argument("--draws", type=int, default=100_000)
    p.add_argument("--per-record", type=int, default=4)
    p.add_argument("--jobs", type=int, default=len(os.sched_getaffinity(0)))
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--page-draws", type=int, default=10_000_000)
    p.add_argument("--skip-check", action="store_true")
    p.add_argument("--skip-page", action="store_true")
    p.add_argument("--timeout", type=float, default=900.0)
    args = p.parse_args(argv)
    out: dict[str, Any] = {"cpus": len(os.sched_getaffinity(0)), "load_average": os.getloadavg()[0]}
    root = Path(tempfile.mkdtemp(prefix="d3d12wl-bench-check-"))
    try:
        if not args.skip_check:
            folder = root / "frames"
            folder.mkdir()
            t = time.perf_counter()
            capture = culling_capture(args.draws, args.per_record)
            first = save_capture(capture, folder / "frame000.json")
            for i in range(1, args.captures):  # (the same frame: the JSON and its .bin regions copied)
                for f in folder.glob("frame000*"):
                    shutil.copy(f, folder / f.name.replace("frame000", f"frame{i:03}"))
            text = first.read_text(encoding="utf-8")
            for i in range(1, args.captures):  # (each capture names its own .bin files)
                (folder / f"frame{i:03}.json").write_text(text.replace("frame000", f"frame{i:03}"), encoding="utf-8")
            out["made_s"] = time.perf_counter() - t
            out["check"] = bench_check(folder, args.captures, args.draws, args.jobs, args.repeat, args.timeout)
            shutil.rmtree(folder)
        if not args.skip_page:
            out["page"] = bench_page(root, args.page_draws, args.per_record, args.repeat, args.timeout)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    if "check" in out:
        c = out["check"]
        print(f"check: {c['captures']} captures of {c['draws_per_capture']:,} draws; start-up {c['startup_s']:.2f} s; "
              f"the engine alone (one process, every capture in turn) {c['engine']['wall_s']:.2f} s, "
              f"{c['engine']['peak_mib']} MiB")
        for j, r in c["runs"].items():
            if "failed" in r:
                print(f"  --jobs {j}: failed: {r['failed']}")
                continue
            print(f"  --jobs {j}: {r['wall_s']:.2f} s ({r['x_engine']:.2f}x the engine, {r['captures_per_s']:.1f} "
                  f"captures/s, {r['draws_per_s'] / 1e6:.2f} M draws/s); per capture {r['capture_time_median_s']:.3f} s "
                  f"median, {r['capture_time_max_s']:.3f} s max, peak {r['capture_peak_median_mib']} MiB median, "
                  f"{r['capture_peak_max_mib']} MiB max; check itself {r['check_peak_mib']} MiB")
        if "speed_up" in c:
            print(f"  --jobs {args.jobs} is {c['speed_up']:.2f}x --jobs 1")
    if "page" in out:
        g = out["page"]
        if "failed" in g:
            print(f"report: failed: {g['failed']}")
        else:
            print(f"report: {g['draws']:,} draws: the page {g['page_bytes'] / 1e6:.2f} MB in {g['report_beyond_startup_s']:.2f} s "
                  f"beyond start-up ({g['startup_s']:.2f} s), the engine {g['engine_beyond_startup_s']:.2f} s beyond "
                  f"start-up: {g['x_engine_beyond_startup']:.2f}x; peaks: report {g['report_peak_mib']} MiB, engine "
                  f"{g['engine_peak_mib']} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
