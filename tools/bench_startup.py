#!/usr/bin/env python3
"""Benchmark: start-up cost of d3d12wl, as ratios against a bare interpreter measured in the same run.

Each case is a fresh ``python`` process, timed wall-clock, best of ``--repeat`` runs (the minimum is the cost
without the noise of other work on the machine):

* ``python -c pass``: the anchor;
* ``import numpy``: the floor of anything that needs numpy (the executor reads GPU memory through it);
* ``import d3d12wl``, ``import d3d12wl.abi``, ``import d3d12wl.executor``;
* ``d3d12wl --help`` (through ``python -m d3d12wl``).

It prints seconds and the ratio to the anchor for each, and for the executor also its cost above numpy's.  The
children run with bytecode caching on (``PYTHONDONTWRITEBYTECODE`` removed from their environment, one warm-up run
each), as after ``pip install``, which compiles every module: without it each start recompiles every module.
``--json`` prints ``{"repeat": N, "cases": {name: {"seconds": s, "ratio": r}}}``.

Targets (issue 11): ``import d3d12wl.executor`` under 100 ms, ``d3d12wl --help`` under 8x the bare interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

CASES: dict[str, list[str]] = {
    "python -c pass": ["-c", "pass"],
    "import numpy": ["-c", "import numpy"],
    "import d3d12wl": ["-c", "import d3d12wl"],
    "import d3d12wl.abi": ["-c", "import d3d12wl.abi"],
    "import d3d12wl.executor": ["-c", "import d3d12wl.executor"],
    "d3d12wl --help": ["-m", "d3d12wl", "--help"],
}
ANCHOR = "python -c pass"


def best_of(argv: list[str], repeat: int) -> float:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    subprocess.run([sys.executable, *argv], check=True, stdout=subprocess.DEVNULL, env=env)  # warm the caches
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run([sys.executable, *argv], check=True, stdout=subprocess.DEVNULL, env=env)
        best = min(best, time.perf_counter() - start)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=15, help="runs per case; the best is kept (default 15)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error("--repeat must be at least 1")
    seconds = {name: best_of(case, args.repeat) for name, case in CASES.items()}
    anchor = seconds[ANCHOR]
    cases = {name: {"seconds": round(s, 4), "ratio": round(s / anchor, 2)} for name, s in seconds.items()}
    if args.json:
        print(json.dumps({"repeat": args.repeat, "cases": cases}, indent=1))
        return 0
    from d3d12wl.output import tables

    rows = [(name, f"{c['seconds'] * 1000:.1f}", f"{c['ratio']:.1f}x") for name, c in cases.items()]
    for line in tables.render(("case", "ms (best)", "vs bare python"), rows, align=("<", ">", ">")):
        print(line)
    above = seconds["import d3d12wl.executor"] - seconds["import numpy"]
    print(f"import d3d12wl.executor above import numpy: {above * 1000:.1f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
