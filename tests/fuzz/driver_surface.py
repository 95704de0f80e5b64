"""The hostile-driver-library surface of the fuzz engine: `d3d12wl messages check --driver LIB.so` against libraries
compiled from ``hostile_driver.c`` with defines (one or more hostilities, random ones seeded), and truncated copies.

:func:`exercise` runs the command in a subprocess, bounded, and returns how it ended; a good ending is exit 0, 1 or
2, within the run's time budget (plus the start-up and reaping slack), with bounded output and no traceback.  Used by
``tests/fuzz/test_fuzz.py`` (a few fixed inputs, for CI) and ``tools/fuzz.py --surface driver`` (seeded campaigns).
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from d3d12wl.messages import c_driver

SOURCE = Path(__file__).resolve().parent / "hostile_driver.c"

#: the hostilities of hostile_driver.c (its header says what each does) that campaigns before issue 42 drew
HOSTILITIES = ("CONSTRUCTOR_CRASH", "CONSTRUCTOR_EXIT", "CONSTRUCTOR_LOOP", "QUERY_CRASH", "QUERY_LOOP", "QUERY_COUNT",
               "NULL_TABLE", "EXIT_IN_FLUSH", "HANG_IN_FLUSH", "HUGE_MESSAGE", "BAD_POINTERS", "RANDOM_FIELDS",
               "FLOOD")
#: issue 42's (classes 10, 11), drawn after those, so that a seed still draws what it drew before and may add one
OUTLIVING = ("CONSTRUCTOR_FORK", "CONSTRUCTOR_SPEW")
#: a truncated copy of a built library (not a define)
TRUNCATED = "TRUNCATED"

#: what the output of one run may hold at most (the 64 MiB description must not come back whole)
MAX_OUTPUT = 1 << 20
#: seconds past the budget a run may take (interpreter start-up, the last check's minimum share, reaping)
SLACK_S = 8.0


@dataclass(frozen=True)
class Outcome:
    hostilities: tuple[str, ...]
    exit_code: int | None  # None: killed (it outran the bound)
    seconds: float
    output_bytes: int
    why: str  # what was wrong ("" when the ending was good)

    @property
    def good(self) -> bool:
        return not self.why


def pick(rng: random.Random) -> tuple[tuple[str, ...], int]:
    """One or two hostilities (or a truncated library), now and then one of :data:`OUTLIVING` besides, and a seed,
    drawn from ``rng``."""
    choices = (*HOSTILITIES, TRUNCATED)
    hostile = tuple(sorted(set(rng.sample(choices, rng.choice((1, 1, 2))))))
    seed = rng.randrange(1 << 30)
    if rng.random() < 0.2:
        hostile = tuple(sorted({*hostile, rng.choice(OUTLIVING)}))
    return hostile, seed


def build(hostilities: tuple[str, ...], seed: int, out: Path, headers: Path | None = None) -> Path:
    """The library of ``hostilities`` (a truncated one: the reference built, then cut at a seeded length)."""
    defines = {f"HOSTILE_{h}": "1" for h in hostilities if h != TRUNCATED}
    defines["HOSTILE_SEED"] = str(seed)
    name = "-".join(hostilities) or "none"
    lib = c_driver.build_driver(SOURCE, out / f"{name}-{seed}.so", includes=[c_driver.C_DIR], defines=defines,
                                headers=headers, optimize="-O0")
    if TRUNCATED in hostilities:
        data = lib.read_bytes()
        cut = random.Random(seed).randrange(1, len(data))
        lib.write_bytes(data[:cut])
    return lib


def exercise(lib: Path, hostilities: tuple[str, ...], *, budget_s: float = 4.0) -> Outcome:
    """``d3d12wl messages check --driver lib --timeout budget_s`` in a subprocess, bounded; how it ended."""
    argv = [sys.executable, "-m", "d3d12wl", "messages", "check", "--driver", str(lib), "--timeout", str(budget_s)]
    started = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, timeout=budget_s + SLACK_S, check=False)
    except subprocess.TimeoutExpired as exc:
        size = len(exc.stdout or b"") + len(exc.stderr or b"")
        return Outcome(hostilities, None, time.monotonic() - started, size,
                       f"still running after {budget_s + SLACK_S:g} s (a --timeout of {budget_s:g} s)")
    seconds = time.monotonic() - started
    size = len(done.stdout) + len(done.stderr)
    why = []
    if done.returncode not in (0, 1, 2):
        why.append(f"exit {done.returncode}")
    if b"Traceback" in done.stderr or b"Traceback" in done.stdout:
        why.append("a traceback")
    if size > MAX_OUTPUT:
        why.append(f"{size:,} bytes of output")
    if done.returncode == 2 and b"error:" not in done.stderr:
        why.append("exit 2 without a message")
    tail = done.stderr.decode(errors="replace")[-300:] if why else ""
    return Outcome(hostilities, done.returncode, seconds, size, "; ".join(why) + (f": {tail}" if tail else ""))


def compiler_available() -> bool:
    return shutil.which("gcc") is not None


def campaign(seeds: range, *, workers: int, budget_s: float, out: Path) -> dict[str, object]:
    """Build and exercise one library per seed (:func:`pick`), ``workers`` at a time; every bad ending is saved as
    ``out/driver-<seed>.txt`` (the hostilities, the seed, what was wrong).  Returns the summary."""
    import json
    import tempfile
    from concurrent.futures import ThreadPoolExecutor

    counts = {"good": 0, "bad": 0}
    slowest = 0.0
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="d3d12wl-driver-fuzz-") as tmp:
        headers = c_driver.write_headers(Path(tmp) / "include")

        def one(seed: int) -> tuple[int, Outcome]:
            hostile, hseed = pick(random.Random(seed))
            folder = Path(tmp) / str(seed)
            folder.mkdir()
            try:
                return seed, exercise(build(hostile, hseed, folder, headers), hostile, budget_s=budget_s)
            finally:
                shutil.rmtree(folder, ignore_errors=True)

        with ThreadPoolExecutor(workers) as pool:
            for seed, outcome in pool.map(one, seeds):
                counts["good" if outcome.good else "bad"] += 1
                slowest = max(slowest, outcome.seconds)
                if not outcome.good:
                    out.mkdir(parents=True, exist_ok=True)
                    (out / f"driver-{seed}.txt").write_text(json.dumps({
                        "seed": seed, "hostilities": outcome.hostilities, "exit": outcome.exit_code,
                        "seconds": round(outcome.seconds, 2), "why": outcome.why}, indent=1) + "\n",
                        encoding="utf-8")
    return {"surface": "driver", "inputs": len(seeds), "first_seed": seeds.start, **counts, "budget_s": budget_s,
            "slowest_seconds": round(slowest, 2), "wall_seconds": round(time.monotonic() - started, 1)}
