"""Time and peak memory of the executor on hostile input under the default Limits.

Run one case per process (peak RSS is per process); ENGINE is ``columnar`` (the default) or ``reference``::

    for c in self-cycle two-cycle broadcast-flood primary-flood culling-flood long-chain; do
        python tools/executor_worst_cases.py $c [ENGINE]
    done

Each case must end in bounded time and memory: whole, or with a finding (``chain-cycle``, ``limit-exceeded``
naming the flag that raises its limit, ``unmapped-va`` where the records run out).
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

# The scenes come from the executor tests' builder (tests/executor_builder.py: it imports only d3d12wl); this tool,
# like tests/, runs from a source checkout.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from executor_builder import (  # noqa: E402
    CONT,
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    Scene,
    culling_pcs,
    dispatch,
    dispatch_input,
    dispatch_input1,
    draw,
    hybrid_scene,
    primary,
    program,
    program_table,
    secondaries,
)

from d3d12wl.executor import ENGINES, run  # noqa: E402
from d3d12wl.model.objects import WorkListSignature  # noqa: E402
from d3d12wl.model.state import DispatchListCall, RootArgument  # noqa: E402

HIGH = 1 << 32

#: the cases, in the order the docstring's loop runs them
CASES = ("self-cycle", "two-cycle", "broadcast-flood", "primary-flood", "culling-flood", "long-chain")


def build(case: str) -> tuple[Scene, DispatchListCall]:
    if case == "self-cycle":  # NextDispatchList points at its own list
        s, _ = hybrid_scene()
        s.put(INPUT_VA, dispatch_input1(0, 0, 0, CONT, next_=INPUT_VA))
        return s, DispatchListCall(INPUT_VA, tier2=True)
    if case == "two-cycle":
        s, _ = hybrid_scene()
        s.put(INPUT_VA, dispatch_input1(0, 0, 0, CONT, next_=INPUT_VA + 64))
        s.put(INPUT_VA + 64, dispatch_input1(0, 0, 0, CONT, next_=INPUT_VA))
        return s, DispatchListCall(INPUT_VA, tier2=True)
    if case == "broadcast-flood":  # NumSecondaryRecords 0xFFFFFFFF over one broadcast (stride 0) secondary record
        s, pcs = hybrid_scene(secondary_stride=0)
        s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_Dispatch": dispatch(1)}]))
        s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=0xFFFFFFFF,
                                  SecondaryRecords=SECONDARY_VA))
        s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
        return s, DispatchListCall(INPUT_VA)
    if case == "primary-flood":  # NumProgramInputs 0xFFFFFFFF over 16 MiB of mapped (empty hybrid) primary records
        s, pcs = hybrid_scene()
        s.put(HIGH, primary(pcs, ProgramTableIndex=0) * (1 << 20))
        s.put(INPUT_VA, dispatch_input(0xFFFFFFFF, HIGH, 16))
        return s, DispatchListCall(INPUT_VA)
    if case == "culling-flood":  # the spec's culling PCS, 70,000 distinct secondary records under one primary record
        pcs, _ = culling_pcs()
        s = Scene()
        p = program("Opaque", 1, pcs)
        s.add_programs(p)
        s.put(TABLE_VA, program_table([(p, {"arg2_InlineRootParameter": [1, 2, 3, 4]})], 48))
        s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 48, 1)
        s.state.graphics_root_arguments[0] = RootArgument("descriptor", 0xCB0000)  # GRS parameter 0, the frame CBV
        s.put(HIGH, secondaries(pcs, [{"arg0_ShaderResourceView": k, "arg1_Draw": draw(k)} for k in range(70000)]))
        s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=70000, SecondaryRecords=HIGH))
        s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, 16))
        return s, DispatchListCall(INPUT_VA, 1)
    if case == "long-chain":  # 70,000 distinct empty lists, no cycle
        s, _ = hybrid_scene()
        s.put(HIGH, b"".join(dispatch_input1(0, 0, 0, CONT, next_=HIGH + 40 * (i + 1)) for i in range(70000)))
        return s, DispatchListCall(HIGH, tier2=True)
    raise SystemExit(f"unknown case {case!r}")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="Run one case per process (peak RSS is per process).")
    parser.add_argument("case", choices=CASES, help="the hostile input to run")
    parser.add_argument("engine", nargs="?", choices=ENGINES, default="columnar",
                        help="the executor engine (default columnar)")
    parsed = parser.parse_args(argv)
    case, engine = parsed.case, parsed.engine
    s, call = build(case)
    t = time.perf_counter()
    trace = run(s.memory, s.device, s.objects, s.state, call, engine=engine)
    dt = time.perf_counter() - t
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    last = trace.findings[-1].kind if trace.findings else None
    print(f"{case}: {dt:.2f} s, peak RSS {rss:.0f} MiB, {len(trace.lists)} lists, {len(trace.executions)} executions, "
          f"{sum(len(lt.primary_records) for lt in trace.lists)} primary records; last finding: {last}")


if __name__ == "__main__":
    main()
