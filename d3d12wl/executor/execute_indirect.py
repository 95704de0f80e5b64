"""``ExecuteIndirect`` over raw GPU memory (IndirectDrawing.md "Drawing", "Incrementing constant",
"State leakage").

* command count: ``min(*CountBuffer, MaxCommandCount)`` with a count buffer (a UINT32 read at the count buffer VA),
  ``MaxCommandCount`` without;
* commands at ``ArgumentBuffer + k * ByteStride``, each decoded by the tightly packed :func:`~d3d12wl.records.layout.
  command_layout` of the command signature;
* the incrementing constant is ``k`` (0 for the first command, +1 per command);
* after the call, every binding the command signature sets is reset (VB slots and IB to NULL, root constants to
  0, root views to NULL) in the binding set of its class.

The call-time requirements (docs/executor.md, "Audit: every requirement on a call") are checked here for both
engines: :func:`check_call` once per call, before any read (the root signature, the runtime's offset and bounds
checks against each buffer's resource, the debug layer's resource states), and the :class:`CommandCheck` s on the
values of every command (the index buffer format, the root CBV address).  They only add findings: the hardware
would still read the bytes, so the trace keeps showing what they ask for.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor.context import ExecContext, Loc, StopCall
from d3d12wl.executor.decode import ctype_size, decode_record, type_name
from d3d12wl.executor.end_of_call_reset import command_signature_reset
from d3d12wl.executor.resolve import RecordData, check_unset_root_parameters, resolve_command
from d3d12wl.executor.trace import Execution, Limits, Readings, Trace
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.objects import CommandSignature, ObjectSet, RootSignature
from d3d12wl.model.state import (
    BufferResource,
    CommandListState,
    DeviceCaps,
    ExecuteIndirectCall,
    execute_indirect_root_signature,
)
from d3d12wl.records.layout import EI_BUFFER_ALIGN, EI_STRIDE_ALIGN, LayoutField, RecordLayout, command_layout

#: The count buffer holds "a single 32-bit unsigned integer (UINT32 / uint)" (the ExecuteIndirect seed, "The Count
#: Buffer"; IndirectDrawing.md "Drawing": ``pCountBuffer->ReadUINT32(CountBufferOffset)``).
COUNT_CTYPE = "uint32_t"
#: "If there are index buffer changes, the index buffer format is valid" (IndirectDrawing.md "Validation" 8): the
#: DXGI_FORMATs an index buffer view can name.
INDEX_FORMATS = ("R16_UINT", "R32_UINT")
#: "CBV -- Address and size must be a multiple of 256 bytes" (IndirectDrawing.md "Command signature Creation"):
#: d3d12.h's name for that multiple.
CBV_ALIGNMENT = "D3D12_CONSTANT_BUFFER_DATA_PLACEMENT_ALIGNMENT"
#: The resource state both buffers must be in (IndirectDrawing.md "Drawing"; the ExecuteIndirect seed).
INDIRECT_ARGUMENT_STATE = ("D3D12_RESOURCE_STATES", "INDIRECT_ARGUMENT")


def run_execute_indirect(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                         call: ExecuteIndirectCall, limits: Limits | None = None,
                         walker: CommandWalker | None = None, readings: Readings | None = None) -> Trace:
    """Execute ``ExecuteIndirect`` and return the :class:`Trace`; ``walker`` walks the commands (default the
    reference :func:`walk_commands`); ``readings``: how the specs' two-way sentences are read."""
    cs = call.pCommandSignature
    call_args: dict[str, Any] = {
        "pCommandSignature": cs.name if cs is not None else None, "MaxCommandCount": call.MaxCommandCount,
        "ArgumentBuffer": call.ArgumentBuffer, "CountBuffer": call.CountBuffer}
    if readings is not None and readings.non_default():
        call_args["readings"] = readings.non_default()
    trace = Trace("ExecuteIndirect", call_args=call_args)
    ctx = ExecContext(memory, device, objects, state, limits, trace, readings)
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
    if stride % EI_STRIDE_ALIGN or stride < layout.size:
        kind = "stride-misaligned" if stride % EI_STRIDE_ALIGN else "stride-below-minimum"
        ctx.finding(kind, rule, f"ByteStride {stride} must be a multiple of 4 and >= {layout.size} (the command's "
                    "tightly packed arguments): nothing executes")
        return trace
    check_call(ctx, call, cs, stride, root_set)
    count = call.MaxCommandCount
    if count_buffer_read(ctx, call):
        assert call.CountBuffer is not None
        if not ctx.aligned(call.CountBuffer, EI_BUFFER_ALIGN, "count buffer", "Drawing", Loc()):
            return trace
        data = ctx.read(call.CountBuffer, ctype_size(COUNT_CTYPE), "count buffer UINT32", "Drawing", Loc())
        if data is None:
            return trace
        count_value = int.from_bytes(data, "little")
        call_args["count_buffer_value"] = count_value
        count = min(count_value, call.MaxCommandCount)
    call_args["command_count"] = count
    if count and not ctx.aligned(call.ArgumentBuffer, EI_BUFFER_ALIGN, "argument buffer", "Drawing", Loc()):
        return trace
    trace.end_of_call_reset = command_signature_reset(cs, root_set)
    plan = CommandPlan(ctx, call, cs, layout, stride, count, cls, graphics, command_checks(cs, layout),
                       execute_indirect_root_signature(cs, state, graphics))
    try:
        (walker or walk_commands)(plan)
    except StopCall as stop:
        trace.stopped_reason = stop.reason
    check_unset_root_parameters(ctx, f"command signature {cs.name!r}")
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
    #: the requirements on the values of every command (empty: nothing to check per command)
    checks: tuple[CommandCheck, ...] = ()
    #: the root signature whose parameters every command sees (:func:`execute_indirect_root_signature`: the
    #: command signature's, or the command list's of its class when it has none)
    root_signature: RootSignature | None = None
    #: commands walked so far that did work (Readings.zero_work_counter "skips": the incrementing constant's value)
    worked: int = 0

    def flagged(self, rows: np.ndarray) -> np.ndarray:
        """The indices of the commands (rows of record bytes) that break a :class:`CommandCheck`, ascending."""
        if not self.checks:
            return np.empty(0, dtype=np.intp)
        bad = self.checks[0].flags(rows)
        for c in self.checks[1:]:
            bad = bad | c.flags(rows)
        return np.flatnonzero(bad)


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
    if plan.checks:
        row = np.frombuffer(data, dtype=np.uint8).reshape(1, -1)
        for c in plan.checks:
            if c.flags(row)[0]:
                c.report(ctx, loc, va, row)
    skips = ctx.readings.zero_work_counter == "skips"
    execution = build_command(plan, ctx.next_execution_index(), k, va, decode_record(plan.layout, data),
                              plan.worked if skips else k)
    ctx.add_execution(execution, loc)
    if skips and execution.trigger.does_work():
        plan.worked += 1
    return True


def build_command(plan: CommandPlan, index: int, k: int, va: int, fields: dict[str, Any],
                  counter: int | None = None) -> Execution:
    """The :class:`Execution` of command ``k`` (decoded ``fields`` at ``va``): shared by the reference walk and the
    columnar trace, which makes it on demand from its columns.  ``counter``: the incrementing constant's value
    (IndirectDrawing.md "starts at 0 for the first command and increments by 1 for each subsequent command": ``k``,
    unless ``Readings.zero_work_counter`` says otherwise)."""
    cs = plan.cs
    record = RecordData(f"command {k}", "command", va, plan.layout, fields)
    resolved = resolve_command(plan.root_signature, cs.pArgumentDescs, record, k if counter is None else counter,
                               plan.ctx.state, plan.graphics)
    return Execution(
        index=index, executable_class=plan.cls.value if plan.cls else "", trigger=resolved.trigger,
        command_index=k, invocation=k, counter=resolved.counter, root_arguments=resolved.root_arguments,
        ia=resolved.ia, record_va={"command": va})


# ----------------------------------------------------------------------------------------------------------------
# Call-time requirements (docs/executor.md "Audit: every requirement on a call", ExecuteIndirect rows)
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class BufferExtent:
    """The resource a buffer parameter of the call lies in: the one the capture gives (``resource``), or, where it
    gives none, the mapped region that holds the VA, which stands for the resource (``region`` names it)."""

    what: str  # "argument buffer" / "count buffer"
    va: int  # the VA the call reads: the resource's GPUVirtualAddress + the offset parameter
    base: int
    width: int
    state: int | None
    region: str | None = None

    @property
    def offset(self) -> int:
        """``ArgumentBufferOffset`` / ``CountBufferOffset`` (negative: the VA lies before the resource)."""
        return self.va - self.base

    def describe(self) -> str:
        if self.region is None:
            return f"its resource (0x{self.base:x}, Width {self.width})"
        return f"region {self.region!r} (0x{self.base:x}, {self.width} bytes), which stands for its resource"


def buffer_extent(memory: GpuMemory, what: str, va: int, resource: BufferResource | None) -> BufferExtent | None:
    """The :class:`BufferExtent` of the buffer at ``va``; None when the capture gives no resource and no region
    holds ``va`` (the read reports it)."""
    if resource is not None:
        return BufferExtent(what, va, resource.GPUVirtualAddress, resource.Width, resource.State)
    region = memory.region_at(va)
    if region is None:
        return None
    return BufferExtent(what, va, region.base, region.size, None, region.name)


@cache
def _indirect_argument() -> int:
    return abi.enum_value(*INDIRECT_ARGUMENT_STATE)


@dataclass(frozen=True)
class BufferRequirements:
    """The finding kinds of one buffer parameter's call-time requirements (IndirectDrawing.md "Drawing")."""

    offset_member: str
    misaligned_kind: str
    out_of_bounds_kind: str
    wrong_state_kind: str
    #: the bounds against a region that stands for a resource the capture does not give (a warning: the
    #: resource's size is unknown); ``resource_flag`` / ``resource_member`` say how to give the resource
    bounds_unknown_kind: str
    resource_flag: str
    resource_member: str


ARGUMENT_BUFFER = BufferRequirements("ArgumentBufferOffset", misaligned_kind="argument-buffer-offset-misaligned",
                                     out_of_bounds_kind="argument-buffer-out-of-bounds",
                                     wrong_state_kind="argument-buffer-wrong-state",
                                     bounds_unknown_kind="argument-buffer-bounds-unknown",
                                     resource_flag="--argument-buffer-resource", resource_member="pArgumentBuffer")
COUNT_BUFFER = BufferRequirements("CountBufferOffset", misaligned_kind="count-buffer-offset-misaligned",
                                  out_of_bounds_kind="count-buffer-out-of-bounds",
                                  wrong_state_kind="count-buffer-wrong-state",
                                  bounds_unknown_kind="count-buffer-bounds-unknown",
                                  resource_flag="--count-buffer-resource", resource_member="pCountBuffer")


def check_call(ctx: ExecContext, call: ExecuteIndirectCall, cs: CommandSignature, stride: int, root_set: str) -> None:
    """The requirements IndirectDrawing.md "Drawing" (and the ExecuteIndirect seed) place on the call itself,
    checked once before any read: the command list's type ("Drawing", "Bundles"), the debug layer's root-signature
    match, then per buffer the core runtime's offset alignment and bounds and the debug layer's resource state.
    Findings only: the execution is unchanged."""
    check_command_list(ctx, call, cs)
    state = ctx.state
    cl_rs = state.graphics_root_signature if root_set == "graphics" else state.compute_root_signature
    if cs.pRootSignature is not None and cl_rs is not None and cl_rs is not cs.pRootSignature:
        ctx.finding("root-signature-mismatch", "Drawing",
                    f"the command list's {root_set} root signature {cl_rs.name!r} is not the command signature's "
                    f"{cs.pRootSignature.name!r}")
    elif cs.pRootSignature is not None and cl_rs is None:
        ctx.finding("root-signature-not-set", "Drawing",
                    f"the command list has no {root_set} root signature set; the command signature's is "
                    f"{cs.pRootSignature.name!r} (the debug layer validates that they match)")
    count_size = ctype_size(COUNT_CTYPE)
    argument = buffer_extent(ctx.memory, "argument buffer", call.ArgumentBuffer, call.ArgumentBufferResource)
    used = (call.MaxCommandCount - 1) * stride + command_layout(cs).size if call.MaxCommandCount else 0
    _check_buffer(ctx, ARGUMENT_BUFFER, argument, call.MaxCommandCount * stride,
                  f"MaxCommandCount {call.MaxCommandCount} * ByteStride {stride}", used)
    if count_buffer_read(ctx, call):
        assert call.CountBuffer is not None
        count = buffer_extent(ctx.memory, "count buffer", call.CountBuffer, call.CountBufferResource)
        _check_buffer(ctx, COUNT_BUFFER, count, count_size, f"the {count_size}-byte count")


def count_buffer_read(ctx: ExecContext, call: ExecuteIndirectCall) -> bool:
    """Whether the call reads its count buffer (and the runtime checks it): with one, "UINT CommandCount =
    pCountBuffer->ReadUINT32(CountBufferOffset); CommandCount = min(CommandCount, MaxCommandCount)" (Drawing) --
    when MaxCommandCount is 0 too, unless ``Readings.zero_max_count_buffer`` is "unread" (docs/spec-questions.md
    Q17: min(0, n) is 0 whatever the buffer holds, so neither the read nor the count buffer's checks happen)."""
    if call.CountBuffer is None:
        return False
    return call.MaxCommandCount > 0 or ctx.readings.zero_max_count_buffer == "read"


#: The command list types ExecuteIndirect is recorded on: "The command list is a direct command list or a compute
#: command list (not a copy or JPEG decode command list)" (IndirectDrawing.md "Drawing"), or a bundle ("Bundles").
COMMAND_LIST_TYPES = ("DIRECT", "COMPUTE", "BUNDLE")


def check_command_list(ctx: ExecContext, call: ExecuteIndirectCall, cs: CommandSignature) -> None:
    """IndirectDrawing.md "Drawing": "The command list is a direct command list or a compute command list (not a
    copy or JPEG decode command list)"; "Bundles": "ExecuteIndirect is allowed inside of bundle command lists only
    if all of the following are true: 1. CountBuffer is NULL (CPU-specified count only) 2. The command signature
    contains exactly 1 operation"."""
    enum_name = "D3D12_COMMAND_LIST_TYPE"
    cl_type = ctx.state.command_list_type
    if cl_type not in {abi.enum_value(enum_name, t) for t in COMMAND_LIST_TYPES}:
        ctx.finding("execute-indirect-command-list-type-invalid", "Drawing",
                    f"ExecuteIndirect on a {abi.enum_short_name(enum_name, cl_type)} command list: the command list "
                    "must be a direct command list or a compute command list (not a copy or JPEG decode command "
                    "list), or a bundle")
    if cl_type != abi.enum_value(enum_name, "BUNDLE"):
        return
    if call.CountBuffer is not None:
        ctx.finding("execute-indirect-bundle-count-buffer", "Bundles",
                    f"ExecuteIndirect in a bundle with a count buffer (at 0x{call.CountBuffer:x}): allowed inside "
                    "a bundle only if CountBuffer is NULL (CPU-specified count only)", va=call.CountBuffer)
    if len(cs.pArgumentDescs) != 1:
        ctx.finding("execute-indirect-bundle-multiple-operations", "Bundles",
                    f"ExecuteIndirect in a bundle with command signature {cs.name!r} of {len(cs.pArgumentDescs)} "
                    "operations: allowed inside a bundle only if the command signature contains exactly 1 operation "
                    "(no root argument changes, no VB/IB binding changes)")


def _check_buffer(ctx: ExecContext, req: BufferRequirements, extent: BufferExtent | None, needed: int,
                  implied: str, used: int | None = None) -> None:
    """"CountBufferOffset and ArgumentBufferOffset are 4-byte aligned"; "The offset implied by MaxCommandCount,
    ArgumentBufferOffset, and the drawing program stride do not exceed the bounds of pArgumentBuffer (similarly
    for count buffer)"; "The debug layer will issue an error if either the count buffer or the argument buffer
    are not in the D3D12_RESOURCE_USAGE_INDIRECT_ARGUMENT state"."""
    if extent is None:
        return
    offset = extent.offset
    if offset >= 0 and offset % EI_BUFFER_ALIGN:
        ctx.finding(req.misaligned_kind, "Drawing",
                    f"{req.offset_member} {offset} (0x{extent.va:x} in {extent.describe()}) is not "
                    f"{EI_BUFFER_ALIGN}-byte aligned", va=extent.va)
    if offset < 0:
        ctx.finding(req.out_of_bounds_kind, "Drawing",
                    f"the {extent.what} VA 0x{extent.va:x} lies before {extent.describe()}", va=extent.va)
    elif offset + needed > extent.width and extent.region is not None:
        # the capture maps the bytes it read back, which may be a part of a larger resource: the bound is unknown
        ctx.finding(req.bounds_unknown_kind, "Drawing",
                    f"{req.offset_member} {offset} + {implied} = {offset + needed} bytes exceed the {extent.width} "
                    f"bytes of {extent.describe()}, but the capture gives no resource for the {extent.what}: its "
                    "size is unknown, and the runtime checks the bound against the resource's Width. Give the "
                    f"resource with `d3d12wl capture {req.resource_flag} BASE,WIDTH[,STATE]` (capture format "
                    f"version 2: call.ExecuteIndirect.{req.resource_member} as {{GPUVirtualAddress, Width, State}}) "
                    "to check it", severity="warning", va=extent.va)
    elif offset + needed > extent.width:
        # docs/spec-questions.md Q5: "the offset implied by MaxCommandCount ... and the drawing program stride" is
        # read as whole strides (reading A); say so where the last command's used bytes would still fit
        last = ("" if used is None or offset + used > extent.width else
                f" (under reading A of the bound, whole strides: the last command's used bytes end at {offset + used}, "
                "within it; docs/spec-questions.md Q5)")
        ctx.finding(req.out_of_bounds_kind, "Drawing",
                    f"{req.offset_member} {offset} + {implied} = {offset + needed} bytes exceed the {extent.width} "
                    f"bytes of {extent.describe()}{last}", va=extent.va)
    if extent.state is not None and not extent.state & _indirect_argument():
        enum_name, member = INDIRECT_ARGUMENT_STATE
        ctx.finding(req.wrong_state_kind, "Drawing",
                    f"the {extent.what}'s resource is in state {abi.enum_text(enum_name, extent.state)}, not "
                    f"{member}", va=extent.va)


@dataclass(frozen=True)
class CommandCheck:
    """One requirement on a value every command holds (``size`` bytes at ``offset`` of the command record, an
    unsigned integer): a multiple of ``multiple_of``, or one of ``allowed``.  :meth:`flags` tests a matrix of
    command records at once (one row per command; the reference walk passes its one command as a row),
    :meth:`report` makes the finding of a flagged one.  The columnar path sends flagged commands through the
    reference walk, so both engines report the same findings."""

    kind: str
    rule: str
    field: LayoutField
    offset: int
    size: int
    what: str
    multiple_of: int | None = None
    allowed: tuple[str, ...] = ()  # DXGI_FORMAT names
    enum_name: str = ""

    def values(self, rows: np.ndarray) -> np.ndarray:
        """The checked value of every row: a strided view of the rows' bytes, no copy (the last axis of a row
        matrix is contiguous)."""
        return rows[:, self.offset:self.offset + self.size].view(f"<u{self.size}")[:, 0]

    def flags(self, rows: np.ndarray) -> np.ndarray:
        values = self.values(rows)
        m = self.multiple_of
        if m is not None:
            if m & (m - 1) == 0:  # a power of two (the CBV's 256): a mask, not a division
                return (values & values.dtype.type(m - 1)) != 0
            return values % values.dtype.type(m) != 0
        bad = np.ones(len(values), dtype=bool)
        for v in _enum_values(self.enum_name, self.allowed).tolist():
            bad &= values != v
        return bad

    def report(self, ctx: ExecContext, loc: Loc, va: int, row: np.ndarray) -> None:
        value = int(self.values(row)[0])
        if self.multiple_of is not None:
            text = f"0x{value:x} is not a multiple of {self.multiple_of} bytes"
        else:
            text = f"{abi.enum_text(self.enum_name, value)} is not one of {', '.join(self.allowed)}"
        ctx.finding(self.kind, self.rule, f"command {loc.command_index}: {self.what}: {text}", loc=loc,
                    va=va + self.offset)


@cache
def _enum_values(enum_name: str, names: tuple[str, ...]) -> np.ndarray:
    return np.array([abi.enum_value(enum_name, n) for n in names], dtype=np.int64)


def command_checks(cs: CommandSignature, layout: RecordLayout) -> tuple[CommandCheck, ...]:
    """The :class:`CommandCheck` s of ``cs``'s commands: each root CBV's address (IndirectDrawing.md "Command
    signature Creation": "CBV -- Address and size must be a multiple of 256 bytes"; "Obtaining buffer virtual
    addresses": the CB alignment "still applies") and each index buffer view's Format ("Validation" 8)."""
    out = []
    for f in layout.fields:
        if f.arg is None:
            continue
        arg = cs.pArgumentDescs[f.arg]
        if f.arg_type == "CONSTANT_BUFFER_VIEW":
            out.append(CommandCheck(kind="cbv-address-misaligned", rule="Command signature Creation", field=f,
                                    offset=f.offset, size=f.size,
                                    what=f"the root CBV of pArgumentDescs[{f.arg}] (root parameter "
                                         f"{arg.ConstantBufferView.RootParameterIndex})",
                                    multiple_of=abi.constant(CBV_ALIGNMENT)))
        elif f.arg_type == "INDEX_BUFFER_VIEW":
            member = next(m for m in abi.type_info(f.ctype).fields if m.name == "Format")
            out.append(CommandCheck(kind="index-buffer-format-invalid", rule="Validation 8", field=f,
                                    offset=f.offset + member.offset, size=member.size,
                                    what=f"the index buffer view Format of pArgumentDescs[{f.arg}]",
                                    allowed=INDEX_FORMATS, enum_name=member.type))
    return tuple(out)
