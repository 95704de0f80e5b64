"""The end-of-call reset: the bindings a call leaves reset in command-list state (Work Lists "State leakage and
reset"; IndirectDrawing.md "State leakage"), for ``DispatchList`` / ``DispatchList1`` (:func:`end_of_call_reset`)
and ``ExecuteIndirect`` (:func:`command_signature_reset`) alike: vertex-buffer slots and the index buffer to NULL,
root constants to 0, root views to NULL, descriptor tables to a NULL handle; local root arguments do not leak.
"""

from __future__ import annotations

from typing import Any

from d3d12wl.errors import LayoutError
from d3d12wl.executor.context import ExecContext
from d3d12wl.executor.decode import binding_name, type_name
from d3d12wl.executor.resolve import root_index
from d3d12wl.executor.trace import ResetEntry
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import CommandSignature, WorkListSignature

__all__ = ["command_signature_reset", "end_of_call_reset", "reset_entry", "reset_order"]

_CONSTANT_TYPES = ("CONSTANT", "INCREMENTING_CONSTANT")
_VIEW_TYPES = ("CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW")


def end_of_call_reset(ctx: ExecContext, signatures: list[WorkListSignature]) -> list[ResetEntry]:
    """Spec "State leakage and reset": once, after the whole chain, for the union of bindings touched by every
    signature actually used, partitioned by class (graphics -> graphics root + IA; compute/raytracing -> compute
    root).  Only global-root-signature bindings leak to command-list state; local root arguments do not."""
    entries: dict[tuple[Any, ...], ResetEntry] = {}
    for wls in signatures:
        for pcs in wls.pProgramCommandSignatures:
            try:
                cls = ctx.layouts.pcs(pcs).executable_class
            except LayoutError:
                continue
            root_set = "graphics" if cls is ExecutableClass.GRAPHICS else "compute"
            for arg in pcs.pArgumentDescs:
                reset_entry(entries, root_set, arg, pcs.name)
    return sorted(entries.values(), key=reset_order)


def reset_order(e: ResetEntry) -> tuple[Any, ...]:
    return ({"graphics": 0, "compute": 1, "ia": 2}[e.binding_set], e.what == "index buffer",
            e.parameter if e.parameter is not None else -1, e.slot if e.slot is not None else -1)


def reset_entry(entries: dict[tuple[Any, ...], ResetEntry], root_set: str, arg: Any, owner: str) -> None:
    """Add the reset one argument implies (shared by DispatchList and ExecuteIndirect).  Entries are keyed by the
    parameter and what the argument sets there: in a signature the creation-time rules reject, two arguments of
    different kinds can name one root parameter, and each reset is reported (neither is merged into the other)."""
    name = type_name(arg)
    binding = binding_name(arg) if hasattr(arg, "Binding") else "GLOBAL_ROOT_SIGNATURE"
    if name == "VERTEX_BUFFER_VIEW":
        key: tuple[Any, ...] = ("ia", "vb", arg.VertexBuffer.Slot)
        entry = entries.setdefault(key, ResetEntry("ia", "vertex buffer", slot=arg.VertexBuffer.Slot,
                                                   reset_to="NULL"))
    elif name == "INDEX_BUFFER_VIEW":
        entry = entries.setdefault(("ia", "ib"), ResetEntry("ia", "index buffer", reset_to="NULL"))
    elif binding != "GLOBAL_ROOT_SIGNATURE" or name.startswith("INLINE_"):
        return
    elif name in _CONSTANT_TYPES:
        p = root_index(arg)
        if name == "CONSTANT":
            dwords = range(arg.Constant.DestOffsetIn32BitValues,
                           arg.Constant.DestOffsetIn32BitValues + arg.Constant.Num32BitValuesToSet)
        else:
            dwords = range(arg.IncrementingConstant.DestOffsetIn32BitValues,
                           arg.IncrementingConstant.DestOffsetIn32BitValues + 1)
        entry = entries.setdefault((root_set, p, "root constant"),
                                   ResetEntry(root_set, "root constant", parameter=p, dwords=[], reset_to="0"))
        assert entry.dwords is not None
        entry.dwords = sorted(set(entry.dwords) | set(dwords))
    elif name in _VIEW_TYPES or name.endswith("_POINTER"):
        p = root_index(arg)
        entry = entries.setdefault((root_set, p, "root view"),
                                   ResetEntry(root_set, "root view", parameter=p, reset_to="NULL"))
    elif name == "DESCRIPTOR_TABLE":
        p = root_index(arg)
        entry = entries.setdefault((root_set, p, "descriptor table"),
                                   ResetEntry(root_set, "descriptor table", parameter=p,
                                              reset_to="NULL descriptor table handle"))
    else:
        return
    if owner not in entry.touched_by:
        entry.touched_by.append(owner)


def command_signature_reset(cs: CommandSignature, root_set: str) -> list[ResetEntry]:
    """IndirectDrawing.md "State leakage": ExecuteIndirect resets, after the call, every binding command signature
    ``cs`` sets in the ``root_set`` (graphics or compute) root arguments and the IA."""
    entries: dict[tuple[Any, ...], ResetEntry] = {}
    for arg in cs.pArgumentDescs:
        reset_entry(entries, root_set, arg, cs.name)
    return sorted(entries.values(), key=reset_order)
