#!/usr/bin/env python3
"""Run the conformance suite many times on every driver of its C corpus (tests/messages_corpus.py), and print how
often each got its pinned verdict: a correct variant must pass every run ("A conformance suite never fails a correct
implementation"), a planted bug must fail the check that claims it every run.

Each run is either ``isolated`` (each check in a forked process, as ``d3d12wl messages check --driver`` runs it) or
``in-process`` (``run_conformance(factory)``); ``--mode both`` (the default) alternates them.  ``--workers`` runs go
at once (forked).  A variant that crashes the process runs isolated only.

    python3 tools/messages_corpus.py --runs 20              # the figures docs/messages.md quotes
    python3 tools/messages_corpus.py --runs 3 --only OWN_THREAD,REFERENCE --json
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import messages_corpus as corpus  # noqa: E402  (tests/ on the path above)

from d3d12wl.messages import c_driver  # noqa: E402
from d3d12wl.messages.conformance import run_conformance  # noqa: E402


def _run(job: tuple[str, str, str]) -> dict[str, Any]:
    name, path, mode = job
    started = time.monotonic()
    report = run_conformance(lambda: c_driver.CDriver(c_driver.load_library(path)), isolate=mode == "isolated",
                             timeout_s=60)
    seconds = time.monotonic() - started
    problem = corpus.BY_NAME[name].mismatch(report) or (
        f"internal errors: {report.internal_errors}" if report.internal_errors else None)
    return {"variant": name, "mode": mode, "seconds": seconds, "problem": problem,
            "failed": report.failed(), "warned": report.outcomes("warn"), "skipped": report.outcomes("skip")}


def _modes(variant: corpus.Variant, mode: str, runs: int) -> list[str]:
    if variant.isolated or mode == "isolated":
        return ["isolated"] * runs
    if mode == "in-process":
        return ["in-process"] * runs
    return [("isolated", "in-process")[i % 2] for i in range(runs)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=20, help="runs of each variant (default 20)")
    parser.add_argument("--mode", choices=("both", "isolated", "in-process"), default="both")
    parser.add_argument("--workers", type=int, default=2, help="runs at once (default 2)")
    parser.add_argument("--only", help="comma-separated variant names")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    variants = [v for v in corpus.VARIANTS if not args.only or v.name in args.only.split(",")]
    if not variants or args.runs < 1 or args.workers < 1:
        parser.error("no variant selected, or --runs / --workers below 1")
    started, cpu = time.monotonic(), time.process_time()
    with tempfile.TemporaryDirectory(prefix="d3d12wl-corpus-") as tmp:
        libs = corpus.build(Path(tmp), variants, jobs=args.workers)
        jobs = [(v.name, str(libs[v.name]), m) for v in variants for m in _modes(v, args.mode, args.runs)]
        with multiprocessing.get_context("fork").Pool(args.workers) as pool:
            results = pool.map(_run, jobs, chunksize=1)
    rows = []
    for v in variants:
        mine = [r for r in results if r["variant"] == v.name]
        bad = [r for r in mine if r["problem"]]
        rows.append({"variant": v.name, "correct": v.correct, "claims": v.claims, "runs": len(mine),
                     "pinned": len(mine) - len(bad),
                     "caught": None if v.correct else sum(v.claims in r["failed"] + r["warned"] for r in mine),
                     "seconds_isolated": _mean([r["seconds"] for r in mine if r["mode"] == "isolated"]),
                     "seconds_in_process": _mean([r["seconds"] for r in mine if r["mode"] == "in-process"]),
                     "problems": sorted({r["problem"] for r in bad})[:3]})
    summary = {
        "variants": len(variants), "runs": len(results),
        "correct_runs": sum(r["runs"] for r in rows if r["correct"]),
        "false_failures": sum(r["runs"] - r["pinned"] for r in rows if r["correct"]),
        "planted_runs": sum(r["runs"] for r in rows if not r["correct"]),
        "planted_caught": sum(r["caught"] or 0 for r in rows if not r["correct"]),
        "planted_off_pin": sum(r["runs"] - r["pinned"] for r in rows if not r["correct"]),
        "wall_seconds": round(time.monotonic() - started, 1), "parent_cpu_seconds": round(time.process_time() - cpu, 1),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    if args.json:
        print(json.dumps({"summary": summary, "variants": rows}, indent=1))
    else:
        print(f"{'variant':32} {'kind':7} {'claims':34} {'pinned':>7} {'caught':>7} {'iso s':>6} {'in s':>6}")
        for r in rows:
            caught = "" if r["correct"] else f"{r['caught']}/{r['runs']}"
            print(f"{r['variant']:32} {'correct' if r['correct'] else 'planted':7} {r['claims'] or '':34} "
                  f"{r['pinned']:>3}/{r['runs']:<3} {caught:>7} {_fmt(r['seconds_isolated']):>6} "
                  f"{_fmt(r['seconds_in_process']):>6}")
            for problem in r["problems"]:
                print(f"    {problem[:400]}")
        print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 1 if summary["false_failures"] or summary["planted_off_pin"] else 0


def _mean(values: list[float]) -> float | None:
    return round(sum(values) / len(values), 3) if values else None


def _fmt(value: float | None) -> str:
    return "" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
