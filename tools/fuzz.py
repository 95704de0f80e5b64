#!/usr/bin/env python3
"""A long fuzz campaign over captures, descriptions and command lines, with the engines of ``tests/fuzz``.

``--kinds`` picks what the inputs are (the seed picks among them, so an input is reproduced by its seed alone):

* ``capture``, ``description`` (``engine.py``): a bundled example with 1-3 hostile mutations (members replaced by
  hostile values, removed or added; record bytes overwritten), run through everything a user runs on it;
* ``cli`` (``surfaces.py``): a whole command line over hostile paths (special files, sparse and pseudo-files, names
  too long or not UTF-8, symlink loops, missing folders), a stdin stream, a hostile environment, a full disk
  (``RLIMIT_FSIZE``) or an interrupt mid-run, now and then a compiler bomb; run in a forked child and held to what
  a user is promised (exit 0/1/2/130, old files kept, no temporary file left, special files kept, no input written
  over);
* ``clash`` (``surfaces.py``, issue 42): a ``cli`` case that names one thing twice -- an output named as an input
  or as another output, a flag given twice with two values -- which must be exit 2;
* ``trace`` (``engine.py``, issue 42): the saved trace (``exec --json``) of a bundled capture with 1-3 hostile
  mutations, diffed against the original both ways and put through the equivalence and expected-draws checks;
* ``names`` (``names_surface.py``, issue 42): a description whose argument descs carry ``Name``s drawn from
  keywords, predefined macros, declared types and the like, through every generator and compiler (gcc in GNU C and
  C11, g++, glslc): a name the checks accept that a compiler refuses is a finding, saved with the names that fail
  alone and each compiler's first error.

Workers report, per input, how it ended and what it cost:

* ``ok`` or ``error`` (a clean D3D12WLError) are the two good endings;
* ``crash``: any other exception;
* ``slow``: over ``--time-limit`` seconds (1 by default) of the worker's CPU time (``--clock cpu``, the default, so
  a campaign run beside other work, or at ``nice 19``, measures what each input costs and not what it waited), or of
  wall time (``--clock wall``);
* ``big``: a peak resident set over ``--rss-limit`` MiB (512 by default), read from the worker's VmHWM, which is
  reset before each input.

Every bad input is saved under ``--out`` as ``<kind>-<seed>.json`` with ``<kind>-<seed>.txt`` saying why, minimized
to the first mutation step that still ends badly (a ``cli`` case is saved as it is: its seed remakes it).

``--surface driver`` fuzzes ``d3d12wl messages check --driver`` instead: per seed, a driver library compiled from
``tests/fuzz/hostile_driver.c`` with one or two hostilities (a crashing, exiting or looping constructor, a hostile
feature query, a 64 MiB description, wild pointers, random fields, a flood, an exit or a hang in the flush, a
truncated file), run with ``--timeout`` ``--budget`` seconds; an input ends badly unless the command exits 0, 1 or 2
within the budget (plus slack), with bounded output and no traceback (``driver-<seed>.txt`` says why).  Workers run
with an address-space limit (``--as-limit`` GiB) so a runaway allocation fails in its worker, not on the machine (a
``cli`` case's child inherits it; its CPU time and peak RSS are the child's own).  ``--json`` prints the summary as
JSON::

    python tools/fuzz.py --inputs 1000000 --workers 2 --out fuzz-findings
    python tools/fuzz.py --kinds cli --inputs 100000 --workers 2 --out fuzz-findings
    python tools/fuzz.py --kinds trace,trace,trace,clash,names --inputs 100000 --workers 2   # issue 42's surfaces

A kind named more than once in ``--kinds`` is drawn that much more often (the seed picks ``kinds[seed % len]``).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import random
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "fuzz"))

import engine  # noqa: E402  (tests/fuzz on the path above)
import names_surface  # noqa: E402
import surfaces  # noqa: E402

KINDS = ("capture", "description", "cli", "clash", "trace", "names")
#: the kinds a forked child of a pool runs (surfaces.py)
CLI_KINDS = ("cli", "clash")
#: the kinds of a campaign without --kinds (the seed -> input map of earlier campaigns)
DEFAULT_KINDS = ("capture", "description")
#: this worker's pool of hostile paths for ``cli`` cases (made by _init)
_POOL: Path | None = None


def _input(seed: int, kinds: tuple[str, ...] = DEFAULT_KINDS) -> tuple[str, str, list[dict[str, Any]]]:
    rng = random.Random(seed)
    kind = kinds[seed % len(kinds)]
    if kind in (*CLI_KINDS, "names"):
        return kind, "command line" if kind != "names" else "names", []
    name = rng.choice({"capture": engine.CAPTURES, "trace": engine.TRACES}.get(kind, engine.DESCRIPTIONS))
    return kind, name, engine.mutation_steps(name, rng)


def _reset_peak_rss() -> None:
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:  # not Linux, or not permitted: the peak then only grows, which over-reports
        pass


def _peak_rss_mib() -> float:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _run(kind: str, doc: dict[str, Any], name: str = "") -> tuple[str, str, float, float, float]:
    _reset_peak_rss()
    start, cpu_start = time.perf_counter(), time.process_time()
    try:
        outcome, why = engine.exercise(kind, doc, name), ""
    except MemoryError:
        outcome, why = "crash", "MemoryError (the address-space limit was reached)"
    except Exception as exc:  # noqa: BLE001 - what the campaign looks for
        frame = traceback.extract_tb(exc.__traceback__)[-1]
        outcome, why = "crash", f"{type(exc).__name__}: {exc} at {Path(frame.filename).name}:{frame.lineno}"
    return outcome, why, time.process_time() - cpu_start, time.perf_counter() - start, _peak_rss_mib()


def _verdict(outcome: str, seconds: float, rss: float, limits: tuple[float, float]) -> str:
    if outcome == "crash":
        return "crash"
    if seconds > limits[0]:
        return "slow"
    if rss > limits[1]:
        return "big"
    return outcome


def _init(as_limit_gib: float, root: str | None = None) -> None:
    global _POOL
    limit = int(as_limit_gib * (1 << 30))
    resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    if root is not None:  # cli cases: every module imported before a child forks, and a pool of hostile paths
        surfaces.preload()
        _POOL = surfaces.make_pool(Path(tempfile.mkdtemp(prefix=f"worker{os.getpid()}-", dir=root)))


def work(task: tuple[int, float, float, bool, tuple[str, ...]]) -> dict[str, Any]:
    seed, time_limit, rss_limit, wall_clock, kinds = task
    kind, name, steps = _input(seed, kinds)
    if kind == "names":
        _reset_peak_rss()
        start, cpu_start = time.perf_counter(), time.process_time()
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        outcome, why = names_surface.exercise(seed)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        # (its time: this worker's and the compilers'; its memory: this worker's, the compilers are bounded by theirs)
        cpu = time.process_time() - cpu_start + (after.ru_utime + after.ru_stime - children.ru_utime - children.ru_stime)
        wall = time.perf_counter() - start
        limit = time_limit + 2.0 * len(names_surface.compilers())
        verdict = _verdict(outcome, wall if wall_clock else cpu, _peak_rss_mib(), (limit, rss_limit))
        result = {"seed": seed, "kind": kind, "example": "names", "verdict": verdict,
                  "seconds": wall if wall_clock else cpu, "cpu_seconds": cpu, "wall_seconds": wall,
                  "rss_mib": _peak_rss_mib(), "why": why}
        if verdict not in ("ok", "error"):
            file, doc, names = names_surface.case(seed)
            result.update(doc={"file": file, "names": names}, steps=1)
        return result
    if kind in CLI_KINDS:
        assert _POOL is not None
        case = surfaces.case(seed, clash=kind == "clash")
        outcome, why, cpu, wall, rss = surfaces.exercise(case, _POOL)
        verdict = _verdict(outcome, wall if wall_clock else cpu, rss, (time_limit + case.allowed_seconds, rss_limit))
        result = {"seed": seed, "kind": kind, "example": " ".join(case.argv)[:200], "verdict": verdict,
                  "seconds": wall if wall_clock else cpu, "cpu_seconds": cpu, "wall_seconds": wall, "rss_mib": rss,
                  "why": why}
        if verdict not in ("ok", "error"):
            result.update(doc=case.to_json(), steps=1)
        return result
    outcome, why, cpu, wall, rss = _run(kind, steps[-1], name)
    verdict = _verdict(outcome, wall if wall_clock else cpu, rss, (time_limit, rss_limit))
    result = {"seed": seed, "kind": kind, "example": name, "verdict": verdict, "seconds": wall if wall_clock else cpu,
              "cpu_seconds": cpu, "wall_seconds": wall, "rss_mib": rss, "why": why}
    if verdict not in ("ok", "error"):
        for step, doc in enumerate(steps):  # minimize: the first mutation step that still ends badly
            o, w, c, t, r = _run(kind, doc, name)
            if _verdict(o, t if wall_clock else c, r, (time_limit, rss_limit)) == verdict:
                result.update(doc=doc, steps=step + 1, why=w or why)
                break
        else:
            result.update(doc=steps[-1], steps=len(steps))
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=10_000, help="how many inputs (default 10,000)")
    parser.add_argument("--seed", type=int, default=0, help="the first input's seed (default 0)")
    parser.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    parser.add_argument("--time-limit", type=float, default=1.0, help="seconds an input may take (default 1)")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                        help="what --time-limit measures: the worker's CPU time (default) or wall time")
    parser.add_argument("--rss-limit", type=float, default=512, help="MiB of peak RSS an input may use (default 512)")
    parser.add_argument("--as-limit", type=float, default=4, help="GiB of address space per worker (default 4)")
    parser.add_argument("--out", type=Path, default=Path("fuzz-findings"), help="where bad inputs are saved")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--kinds", default=",".join(DEFAULT_KINDS),
                        help=f"what the inputs are, comma-separated from {', '.join(KINDS)} (default "
                             f"{','.join(DEFAULT_KINDS)})")
    parser.add_argument("--surface", choices=("records", "driver"), default="records",
                        help="captures, descriptions and command lines (default, --kinds), or hostile driver "
                             "libraries for messages check")
    parser.add_argument("--budget", type=float, default=4.0,
                        help="with --surface driver: the --timeout each messages check run gets (default 4)")
    args = parser.parse_args(argv)
    if args.inputs < 1 or args.workers < 1:
        parser.error("--inputs and --workers must be at least 1")
    if args.surface == "driver":
        import driver_surface

        summary_ = driver_surface.campaign(range(args.seed, args.seed + args.inputs), workers=args.workers,
                                           budget_s=args.budget, out=args.out)
        print(json.dumps(summary_, indent=1) if args.json else " ".join(f"{k}={v}" for k, v in summary_.items()))
        return 1 if summary_["bad"] else 0
    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    if not kinds or any(k not in KINDS for k in kinds):
        parser.error(f"--kinds takes {', '.join(KINDS)}")
    counts = {v: 0 for v in ("ok", "error", "crash", "slow", "big")}
    start = time.perf_counter()
    tasks = ((s, args.time_limit, args.rss_limit, args.clock == "wall", kinds)
             for s in range(args.seed, args.seed + args.inputs))
    root = tempfile.mkdtemp(prefix="d3d12wl-fuzz-") if set(kinds) & set(CLI_KINDS) else None
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(143))  # (a kill still removes the pools)
    try:
        return _campaign(args, kinds, tasks, root, counts, start)
    finally:
        if root is not None:
            shutil.rmtree(root, ignore_errors=True)


def _campaign(args: argparse.Namespace, kinds: tuple[str, ...], tasks: Any, root: str | None,
              counts: dict[str, int], start: float) -> int:
    slowest, slowest_wall, biggest = 0.0, 0.0, 0.0
    names: dict[str, set[str]] = {}  # names kind: each name that fails alone, and what refused it
    with multiprocessing.get_context("fork").Pool(args.workers, _init, (args.as_limit, root),
                                                  maxtasksperchild=2000) as pool:
        for done, result in enumerate(pool.imap_unordered(work, tasks, chunksize=16), 1):
            counts[result["verdict"]] += 1
            if result["kind"] == "names" and result["verdict"] == "crash":
                for name, what in names_surface.failing(result["why"]).items():
                    names.setdefault(name, set()).update(what)
            slowest, biggest = max(slowest, result["seconds"]), max(biggest, result["rss_mib"])
            slowest_wall = max(slowest_wall, result["wall_seconds"])
            if "doc" in result:
                args.out.mkdir(parents=True, exist_ok=True)
                stem = args.out / f"{result['kind']}-{result['seed']}"
                stem.with_suffix(".json").write_text(json.dumps(result.pop("doc")), encoding="utf-8")
                stem.with_suffix(".txt").write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
            if done % 10_000 == 0:  # progress on stderr, also with --json (the summary is on stdout)
                print(f"{done:,} inputs, {counts}", file=sys.stderr, flush=True)
    summary = {"inputs": args.inputs, "first_seed": args.seed, "kinds": ",".join(kinds), **counts,
               "clock": args.clock,
               "slowest_seconds": round(slowest, 3), "slowest_wall_seconds": round(slowest_wall, 3),
               "peak_rss_mib": round(biggest, 1), "wall_seconds": round(time.perf_counter() - start, 1)}
    if names:
        summary["names_failing"] = {name: sorted(what) for name, what in sorted(names.items())}
    if args.json:
        print(json.dumps(summary, indent=1))
    else:
        print(" ".join(f"{k}={v}" for k, v in summary.items()))
    return 1 if counts["crash"] or counts["slow"] or counts["big"] else 0


if __name__ == "__main__":
    sys.exit(main())
