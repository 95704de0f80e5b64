"""``ExecuteIndirect`` over raw GPU memory (IndirectDrawing.md "Drawing", "Incrementing constant",
"State leakage").

* command count: ``min(*CountBuffer, MaxCommandCount)`` with a count buffer (a UINT32 read at the count buffer VA),
  ``MaxCommandCount`` without;
* commands at ``ArgumentBuffer + k * ByteStride``, each decoded by the tightly packed :func:`~d3d12wl.records.layout.
  command_layout` of the command signature;
* the incrementing constant is ``k`` (0 for the first command, +1 per command);
* after the call, every binding the command signature sets is reset (VB slots and IB to NULL, root constants to
  0, root views to NULL) in the binding set of its class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor.context import ExecContext, Loc, StopCall
from d3d12wl.executor.decode import decode_record, type_name
from d3d12wl.executor.dispatch_list import _reset_entry, _reset_order
from d3d12wl.executor.resolve import RecordData, resolve_command
from d3d12wl.executor.trace import Execution, Limits, ResetEntry, Trace
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.objects import CommandSignature, ObjectSet
from d3d12wl.model.state import CommandListState, DeviceCaps, ExecuteIndirectCall
from d3d12wl.records.layout import RecordLayout, command_layout


def run_execute_indirect(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                         call: ExecuteIndirectCall, limits: Limits | None = None,
                         walker: CommandWalker | None = None) -> Trace:
    """Execute ``ExecuteIndirect`` and return the :class:`Trace`; ``walker`` walks the commands (default the
    reference :func:`walk_commands`)."""
    cs = call.pCommandSignature
    call_args: dict[str, Any] = {
        "pCommandSignature": cs.name if cs is not None else None, "MaxCommandCount": call.MaxCommandCount,
        "ArgumentBuffer": call.ArgumentBuffer, "CountBuffer": call.CountBuffer}
    trace = Trace("ExecuteIndirect", call_args=call_args)
    ctx = ExecContext(memory, device, objects, state, limits, trace)
    if cs is None:
        ctx.finding("missing-command-signature", "Drawing", "ExecuteIndirect without a command signature")
        return trace
    trigger = next((a for a in cs.pArgumentDescs if arg_type_info(type_name(a)).is_trigger), None)
    if trigger is None:
        ctx.finding("no-dispatch-trigger", "Validation",
                    f"command signature {cs.name!r} has no draw/dispatch argument: nothing executes")
        return trace
    cls = arg_type_info(type_name(trigger)).trigger_class
    graphics = cls is ExecutableClass.GRAPHICS
    root_set = "graphics" if graphics else "compute"
    call_args["executable_class"] = cls.value if cls is not None else None
    layout = command_layout(cs)
    stride = cs.ByteStride
    rule = "Validation"
    if stride % 4 or stride < layout.size:
        kind = "stride-misaligned" if stride % 4 else "stride-below-minimum"
        ctx.finding(kind, rule, f"ByteStride {stride} must be a multiple of 4 and >= {layout.size} (the command's "
                    "tightly packed arguments): nothing executes")
        return trace
    cl_rs = state.graphics_root_signature if graphics else state.compute_root_signature
    if cs.pRootSignature is not None and cl_rs is not None and cl_rs is not cs.pRootSignature:
        ctx.finding("root-signature-mismatch", "Drawing",
                    f"the command list's {root_set} root signature {cl_rs.name!r} is not the command signature's "
                    f"{cs.pRootSignature.name!r}")
    count = call.MaxCommandCount
    if call.CountBuffer is not None:
        if not ctx.aligned(call.CountBuffer, 4, "count buffer", "Drawing", Loc()):
            return trace
        data = ctx.read(call.CountBuffer, 4, "count buffer UINT32", "Drawing", Loc())
        if data is None:
            return trace
        count_value = int.from_bytes(data, "little")
        call_args["count_buffer_value"] = count_value
        count = min(count_value, call.MaxCommandCount)
    call_args["command_count"] = count
    if count and not ctx.aligned(call.ArgumentBuffer, 4, "argument buffer", "Drawing", Loc()):
        return trace
    reset: dict[tuple[Any, ...], ResetEntry] = {}
    for arg in cs.pArgumentDescs:
        _reset_entry(reset, root_set, arg, cs.name)
    trace.end_of_call_reset = sorted(reset.values(), key=_reset_order)
    plan = CommandPlan(ctx, call, cs, layout, stride, count, cls, graphics)
    try:
        (walker or walk_commands)(plan)
    except StopCall as stop:
        trace.stopped_reason = stop.reason
    return trace


@dataclass
class CommandPlan:
    """What every command of one ExecuteIndirect call shares: the command walk's input."""

    ctx: ExecContext
    call: ExecuteIndirectCall
    cs: CommandSignature
    layout: RecordLayout
    stride: int
    count: int
    cls: ExecutableClass | None
    graphics: bool


#: the command walk of one call (the reference :func:`walk_commands` or a faster one that makes the same trace)
CommandWalker = Callable[[CommandPlan], None]


def walk_commands(plan: CommandPlan) -> None:
    """The reference walk: every command one by one."""
    for k in range(plan.count):
        if not walk_command(plan, k):
            return


def walk_command(plan: CommandPlan, k: int) -> bool:
    """Command ``k`` as the reference walks it; False when the walk ends here."""
    ctx, call, trace = plan.ctx, plan.call, plan.ctx.trace
    loc = Loc(command_index=k)
    va = ctx.record_address(call.ArgumentBuffer, k, plan.stride, plan.layout.size, "command", "Drawing", loc)
    if va is None:
        trace.stopped_reason = f"command {k} address wraps"
        return False
    ctx.count_record(loc, va)
    if len(trace.executions) >= ctx.limits.max_executions:
        ctx.stop("max_executions", f"ExecuteIndirect has {plan.count} commands", loc=loc)
    data = ctx.read(va, plan.layout.size, f"command {k}", "Drawing", loc)
    if data is None:
        trace.stopped_reason = f"command {k} unreadable"
        return False
    ctx.add_execution(build_command(plan, ctx.next_execution_index(), k, va, decode_record(plan.layout, data)),
                      loc)
    return True


def build_command(plan: CommandPlan, index: int, k: int, va: int, fields: dict[str, Any]) -> Execution:
    """The :class:`Execution` of command ``k`` (decoded ``fields`` at ``va``): shared by the reference walk and the
    columnar trace, which makes it on demand from its columns."""
    cs = plan.cs
    record = RecordData(f"command {k}", "command", va, plan.layout, fields)
    resolved = resolve_command(cs.pRootSignature, cs.pArgumentDescs, record, k, plan.ctx.state, plan.graphics)
    return Execution(
        index=index, executable_class=plan.cls.value if plan.cls else "", trigger=resolved.trigger,
        command_index=k, invocation=k, counter=resolved.counter, root_arguments=resolved.root_arguments,
        ia=resolved.ia, record_va={"command": va})
