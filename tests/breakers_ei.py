"""Breakers (tests/call_requirements.py) of the ExecuteIndirect requirements (the ExecuteIndirect seed and
IndirectDrawing.md): one per row of the audit table's ExecuteIndirect part (docs/executor.md)."""

from __future__ import annotations

import random

from call_requirements import Call, breaks
from executor_builder import Scene, dispatch, ei_arg, pack_record

from d3d12wl.model.objects import CommandSignature
from d3d12wl.model.state import ExecuteIndirectCall
from d3d12wl.records.layout import command_layout

ARGUMENT_VA = 0x8000


def dispatch_call(rng: random.Random) -> Call:
    """A valid ExecuteIndirect of 1-8 DISPATCH commands at their tightly packed stride, no count buffer."""
    s = Scene()
    cs = CommandSignature("CS", 0, [ei_arg("DISPATCH")])
    layout = command_layout(cs)
    cs.ByteStride = layout.size
    n = rng.randint(1, 8)
    s.put(ARGUMENT_VA, b"".join(pack_record(layout, {"arg0_Dispatch": dispatch(rng.randint(1, 64))}) for _ in range(n)))
    return Call(s.memory, s.device, s.objects, s.state, ExecuteIndirectCall(cs, n, ARGUMENT_VA))


@breaks("missing-command-signature")
def missing_command_signature(rng: random.Random, broken: bool) -> Call:
    """E1: IndirectDrawing.md "Drawing": ExecuteIndirect interprets each command by pCommandSignature."""
    c = dispatch_call(rng)
    if broken:
        assert isinstance(c.call, ExecuteIndirectCall)
        c.call.pCommandSignature = None
    return c
