"""Breakers (tests/call_requirements.py) of the Work Lists requirements on DispatchList / DispatchList1 calls: one
per row of the audit table's Work Lists part (docs/executor.md)."""

from __future__ import annotations

import random

from call_requirements import Call, breaks
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    dispatch,
    dispatch_input,
    hybrid_scene,
    primary,
    secondaries,
)

from d3d12wl.model.state import DispatchListCall
from d3d12wl.records.layout import pcs_layout


def hybrid_call(rng: random.Random, tier2: bool = False) -> tuple[Call, int]:
    """A valid DispatchList of the one-program hybrid scene: 1-4 primary records, each with 1-4 DISPATCH secondary
    records; returns the call and the primary stride."""
    s, pcs = hybrid_scene()
    stride = pcs_layout(pcs).primary.min_stride
    records = []
    for i in range(rng.randint(1, 4)):
        n = rng.randint(1, 4)
        va = SECONDARY_VA + 0x100 * i
        s.put(va, secondaries(pcs, [{"arg0_Dispatch": dispatch(rng.randint(1, 64))} for _ in range(n)]))
        records.append(primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=n, SecondaryRecords=va))
    s.put(PRIMARY_VA, b"".join(records))
    s.put(INPUT_VA, dispatch_input(len(records), PRIMARY_VA, stride))
    return Call(s.memory, s.device, s.objects, s.state, DispatchListCall(INPUT_VA, tier2=tier2)), stride


@breaks("no-work-list-bound")
def no_work_list_bound(rng: random.Random, broken: bool) -> Call:
    """W1: Dispatch Model, "must have a work list signature bound via SetProgram before the call"."""
    c, _ = hybrid_call(rng)
    if broken:
        c.state.program = None
    return c
