"""``DispatchList`` (Tier 1) and ``DispatchList1`` (Tier 2) over raw GPU memory.

Per list, processing follows the spec's ten-step order ("Validator invocation order and barriers"), with the
read and re-read points explicit so a validation-hook runner (:class:`~d3d12wl.executor.list_run.ValidationHooks`)
can be inserted without touching the record walk:

1. read the header (``D3D12_DISPATCH_LIST_INPUT`` / ``_INPUT1``); signature-selection validator hook;
2. re-read the header if the hook ran;
3. select the signature and its paired binding (``SignatureIndex``; 0 / the single binding for direct bind);
4-6. primary-list validator hook; re-read the header if it ran; from here the header is fixed;
7-9. secondary-list validator hook; re-read the header if it ran (primary-record fields are read in step 10);
10. walk the primary records, their program-table slots and secondary records, and execute.

Then, for Tier 2, ``NextDispatchList`` is read and followed only with ``_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION`` and
a non-null value (spec "Next-list pointer semantics").  When it is read depends only on
``_END_WITH_WAIT_FOR_COMPLETION`` (Work Lists v0.851, rule 13): with it, at the list's retire point; without it, at
any time, including at launch, whatever the list's class and ordering.  The executor reads it where the list retires
(``Readings.next_list_read``: ``launch`` takes the value the list launched with).  Bytes written while a list runs
(only validators write in the model) stay unsequenced against every later list until a list sets the wait: a later
list that reads them is rule 13.

Bounds and policy on undefined behaviour (each case ends in a finding, never an exception):

* a fault reading the header ends the call (nothing else is knowable); a fault reading a primary record ends
  that list's record processing (later records lie past the same fault); a fault reading a secondary record ends
  that primary record's secondary list; a record whose program cannot be determined (index out of range,
  unknown identifier, PCS not in the signature, stride too small for its PCS) drives no executions and the walk
  goes on with the next record;
* records that overlap each other (two primary records sharing a secondary list, a secondary list overlapping the
  primary list, broadcast strides) are legal and simply read; a stride below a record's minimum (the record
  overlapping its successor) is rule 25(e);
* a record address that leaves the 64-bit VA space is a ``va-wrap`` finding and ends the walk;
* a continuation that revisits a list VA whose header bytes are unchanged would repeat for ever (nothing in the
  model writes memory between lists unless a hook does): ``chain-cycle`` finding, chain stopped;
* :class:`~d3d12wl.executor.trace.Limits` bounds lists, records and executions; counts read from memory are never used to
  size an allocation.

This module is the call and the list as the spec orders them; what each step leans on is a module of its own:
the types the steps share, one list being processed and what SetProgram bound (:mod:`~d3d12wl.executor.list_run`);
what SetProgram bound as the call finds it and where the call may be recorded (:mod:`~d3d12wl.executor.set_program`);
step 10, the record walk, and the executions it makes (:mod:`~d3d12wl.executor.record_walk`); the memory writes the
call watches, rules 13, 14 and 18 (:mod:`~d3d12wl.executor.memory_writes`); the end-of-call reset, which
ExecuteIndirect shares (:mod:`~d3d12wl.executor.end_of_call_reset`).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from d3d12wl._version import WORK_LISTS_SPEC
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import LayoutError
from d3d12wl.executor.context import ExecContext, Loc, StopCall
from d3d12wl.executor.decode import ctype_size, decode, enum_value, flag_members, offsetof, short_name
from d3d12wl.executor.end_of_call_reset import end_of_call_reset
from d3d12wl.executor.list_run import (
    INPUT,
    INPUT1,
    BoundPrograms,
    ListRun,
    PrimaryWalker,
    SignatureSelection,
    ValidationHooks,
    no_layout,
)
from d3d12wl.executor.memory_writes import ImmutableRanges, RecordWrites
from d3d12wl.executor.record_walk import walk_primary_records
from d3d12wl.executor.resolve import check_unset_root_parameters
from d3d12wl.executor.set_program import check_bind, check_command_list, check_selected_class
from d3d12wl.executor.trace import Limits, ListTrace, Readings, Trace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet
from d3d12wl.model.state import CommandListState, DeviceCaps, DispatchListCall, WorkListBinding
from d3d12wl.records.layout import WL_ALIGN, PCSLayout
from d3d12wl.rules import Sink
from d3d12wl.rules.setprogram import check_program_table_binding

__all__ = ["process_list", "run_dispatch_list"]


def _flag(enum: str, member: str) -> int:
    return enum_value(enum, member)


# --------------------------------------------------------------------------------------------------------------
# The call: SetProgram's binding, the chain of lists, the end-of-call reset
# --------------------------------------------------------------------------------------------------------------


def run_dispatch_list(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                      call: DispatchListCall, limits: Limits | None = None,
                      hooks: ValidationHooks | None = None, walker: PrimaryWalker | None = None,
                      readings: Readings | None = None) -> Trace:
    """Execute ``DispatchList`` (``call.tier2`` False) or ``DispatchList1`` and return the :class:`Trace`.

    ``walker``: step 10 of each list (default :func:`~d3d12wl.executor.record_walk.walk_primary_records`, the
    reference walk); it is used only when no validation hook runs (hooks write memory between steps: the reference
    walk always serves them).
    ``readings``: how the specs' two-way sentences are read (:class:`~d3d12wl.executor.trace.Readings`)."""
    args: dict[str, Any] = {"DispatchListInput": call.DispatchListInput}
    if call.tier2:
        args["MaxGraphicsPrimaryLists"] = call.MaxGraphicsPrimaryLists
    args["MaxGraphicsProgramInputsPerPrimaryList"] = call.MaxGraphicsProgramInputsPerPrimaryList
    if readings is not None and readings.non_default():
        args["readings"] = readings.non_default()
    trace = Trace("DispatchList1" if call.tier2 else "DispatchList", call_args=args)
    ctx = ExecContext(memory, device, objects, state, limits, trace, readings)
    check_command_list(ctx)
    bound = check_bind(ctx, call)
    if bound is not None:
        previous = memory.on_write
        memory.on_write = ImmutableRanges(ctx, bound, RecordWrites(ctx, previous))
        try:
            active = hooks if bound.validation_active else None
            _run_chain(ctx, call, bound, active, walker if active is None else None)
        except StopCall as stop:
            trace.stopped_reason = stop.reason
        finally:
            memory.on_write = previous
        check_unset_root_parameters(ctx)
        trace.end_of_call_reset = end_of_call_reset(ctx, list(bound.used.values()))
    return trace


def _run_chain(ctx: ExecContext, call: DispatchListCall, bound: BoundPrograms, hooks: ValidationHooks | None,
               walker: PrimaryWalker | None = None) -> None:
    struct_name = INPUT1 if call.tier2 else INPUT
    size = ctype_size(struct_name)
    va = call.DispatchListInput
    seen: dict[int, tuple[int, bytes, int]] = {}  # list VA -> (list index, header bytes, memory write count)
    index = 0
    while True:
        loc = Loc(list_index=index)
        ctx.list_index = index
        if index >= ctx.limits.max_lists:
            ctx.stop("max_lists", "too many lists in one continuation chain", loc=loc, va=va)
        what = f"list {index} {struct_name}"
        rule = "DispatchList1" if call.tier2 else "DispatchList"
        if not ctx.aligned(va, WL_ALIGN, what, rule, loc):
            ctx.trace.stopped_reason = f"list {index}: misaligned {struct_name}"
            return
        data = ctx.read(va, size, what, rule, loc)
        if data is None:
            ctx.trace.stopped_reason = f"list {index}: {struct_name} at 0x{va:x} is not readable"
            return
        # Only validators write memory during a call; with no write since the first visit, the same header at the
        # same VA leads through the same lists back here again: the chain can never end.
        if va in seen and seen[va][1] == data and seen[va][2] == ctx.memory.write_count:
            first = seen[va][0]
            ctx.finding("chain-cycle", "Dispatch List Continuations",
                        f"list {index - 1}'s NextDispatchList leads back to list {first} at 0x{va:x} with the same "
                        f"header bytes: the chain would repeat lists {first}..{index - 1} for ever (bounded only by "
                        "TDR); stopped", loc=Loc(list_index=index - 1), va=va)
            ctx.trace.stopped_reason = f"chain cycle back to list {first}"
            return
        seen[va] = (index, data, ctx.memory.write_count)
        header = decode(struct_name, data)
        run = ListRun(ctx, index, va, call.tier2, data, header, ListTrace(index, va, struct_name),
                      launch_next=header.get("NextDispatchList", 0))
        ctx.trace.lists.append(run.trace)
        ctx.written = []
        next_va = process_list(run, call, bound, hooks, walker)
        _sequence_writes(run)
        if next_va is None:
            return
        va = next_va
        index += 1


def _sequence_writes(run: ListRun) -> None:
    """Work Lists v0.851 "Next-list pointer semantics": with _END_WITH_WAIT_FOR_COMPLETION what follows "does not begin
    until preceding work has fully retired"; without it "the next list may launch before this one retires".  So the
    bytes written while this list ran (and those of earlier lists not yet sequenced) are unsequenced against every
    later list until a list sets the wait; a read of them is rule 13 (``ExecContext.read``)."""
    waits = run.tier2 and bool(run.header["Flags"] & _flag("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION"))
    run.ctx.sequence_writes(run.index, waits)


# --------------------------------------------------------------------------------------------------------------
# One list, in the spec's ten-step order
# --------------------------------------------------------------------------------------------------------------


def _reread_header(run: ListRun) -> None:
    struct_name = run.trace.input_struct
    data = run.ctx.read(run.va, ctype_size(struct_name), f"list {run.index} {struct_name} (re-read)",
                        "Validator invocation order and barriers", run.loc)
    if data is not None:
        run.header_bytes = data
        run.header = decode(struct_name, data)


def process_list(run: ListRun, call: DispatchListCall, bound: BoundPrograms, hooks: ValidationHooks | None,
                 walker: PrimaryWalker | None = None) -> int | None:
    """Process one list; return the next list's VA (Tier 2 continuation) or None when the call ends here."""
    lt = run.trace
    # Step 1: the header has been read; signature-selection validation.
    if hooks is not None and hooks.signature_selection(run):
        _reread_header(run)  # step 2
    _describe_header(run)
    # Step 3: select the signature and its binding.
    run.selection = _select(run, call, bound)
    # Steps 4-6: primary-list validation, then the header is fixed.
    if run.selection is not None and hooks is not None and hooks.primary_list(run):
        _reread_header(run)
        _describe_header(run)
    # Steps 7-9: secondary-list validation (per primary record), then header and records are fixed.
    if run.selection is not None and hooks is not None and hooks.secondary_lists(run):
        _reread_header(run)
        _describe_header(run)
    if run.selection is not None:
        _check_counts(run, call)
        # Step 10: record processing (the reference walk, or the columnar one when no hooks run).
        (walker or walk_primary_records)(run)
    elif lt.stopped is None:
        lt.stopped = "no signature selected"
    if run.ends_chain:
        return None
    return _continuation(run, call)


def _describe_header(run: ListRun) -> None:
    ctx, lt, h = run.ctx, run.trace, run.header
    lt.header = h
    enum = "D3D12_DISPATCH_LIST_FLAGS1" if run.tier2 else "D3D12_DISPATCH_LIST_FLAGS"
    members = flag_members(enum)
    known = 0
    names = []
    for name, value in members:
        known |= value
        if h["Flags"] & value == value:
            names.append(name)
    lt.flags = names
    unknown = h["Flags"] & ~known
    flags_va = run.va + offsetof(lt.input_struct, "Flags")
    if unknown:
        ctx.finding("unknown-flag-bits", enum, f"Flags 0x{h['Flags']:x} has bits 0x{unknown:x} that {enum} does "
                    "not define", loc=run.loc, va=flags_va, severity="warning", key=(run.index, "flags"))
    if run.tier2 and h["ReservedPadding"] != 0:
        ctx.finding("reserved-padding-nonzero", INPUT1, f"ReservedPadding is 0x{h['ReservedPadding']:x}; must be 0",
                    loc=run.loc, va=run.va + offsetof(INPUT1, "ReservedPadding"), key=(run.index, "padding"))


def _select(run: ListRun, call: DispatchListCall, bound: BoundPrograms) -> SignatureSelection | None:
    """Spec "Signature Selection", "Compatibility of bind type with dispatch method", rule 17."""
    ctx, lt = run.ctx, run.trace
    index = run.header["SignatureIndex"] if run.tier2 else 0
    lt.signature_index = index
    sig_va = run.va + offsetof(INPUT1, "SignatureIndex") if run.tier2 else run.va
    count = min(len(bound.signatures), len(bound.bindings))
    if index >= count and not bound.array:
        ctx.finding("direct-bind-signature-index-nonzero", "Compatibility of bind type with dispatch method",
                    f"SignatureIndex {index} with a single binding (D3D12_PROGRAM_TYPE_WORK_LIST): DispatchList1 is "
                    "valid there only if SignatureIndex is 0 (it \"must be 0 when a signature is bound directly via "
                    "D3D12_SET_WORK_LIST_DESC\"): list records not processed", loc=run.loc, va=sig_va)
        lt.stopped = "SignatureIndex must be 0 with a direct bind"
        return None
    if index >= count:
        ctx.finding("signature-index-out-of-range", "D3D12_DISPATCH_LIST_INPUT1::SignatureIndex",
                    f"SignatureIndex {index} is out of range for NumBindings/NumSignatures ({count}); undefined "
                    "behaviour: list records not processed", loc=run.loc, va=sig_va)
        lt.stopped = "signature index out of range"
        return None
    wls = bound.signatures[index]
    binding = bound.bindings[index]
    lt.signature = wls.name
    layouts: list[PCSLayout] = []
    for pcs in wls.pProgramCommandSignatures:
        try:
            layouts.append(ctx.layouts.pcs(pcs))
        except LayoutError as exc:
            no_layout(ctx, exc, "Supported argument types", f"work list signature {wls.name!r}: PCS {pcs.name!r}",
                      run.loc, ("pcs", pcs.name))
    if not layouts:
        lt.stopped = "signature has no usable program command signature"
        return None
    cls = layouts[0].executable_class
    lt.executable_class = cls.value
    check_selected_class(run, wls, cls)
    if cls is ExecutableClass.GRAPHICS and not _count_graphics_list(run, call):
        return None
    rt_type = enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING")
    pt_type = enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
    want = rt_type if cls is ExecutableClass.RAYTRACING else pt_type
    lt.binding = ctx.memo(binding, "summary", _binding_summary)
    if binding.Type != want:
        ctx.finding("binding-type-mismatch", "rule 17",
                    f"binding {index} has Type {short_name('D3D12_WORK_LIST_BINDING_TYPE', binding.Type)} "
                    f"but signature {wls.name!r} is {cls.value.lower()}-class (needs "
                    f"{short_name('D3D12_WORK_LIST_BINDING_TYPE', want)}): list records not processed",
                    loc=run.loc, key=("binding", index))
        lt.stopped = "binding type does not match the signature's class"
        return None
    if cls is ExecutableClass.RAYTRACING:
        if binding.pRaytracing is None:
            ctx.finding("raytracing-binding-null", "D3D12_WORK_LIST_BINDING::pRaytracing",
                        f"binding {index} is RAYTRACING with a null pRaytracing (\"When Type == _RAYTRACING, non-null "
                        "pointer to a D3D12_WORK_LIST_RAYTRACING_BINDING\"): list records not processed", loc=run.loc,
                        key=("rt", index))
            lt.stopped = "no raytracing binding"
            return None
        if not ctx.device.DispatchRaysSupported:
            ctx.finding("dispatch-rays-not-supported", "rule 16",
                        f"signature {wls.name!r} is raytracing-class; the device reports DispatchRaysSupported "
                        "FALSE", loc=run.loc, key=("rays",))
    else:
        _check_program_table_binding(run, index, binding)
    bound.used.setdefault(id(wls), wls)
    flags = run.header["Flags"]
    ooo = _flag("D3D12_DISPATCH_LIST_FLAGS", "ALLOW_OUT_OF_ORDER_GRAPHICS")
    if cls is ExecutableClass.GRAPHICS and not flags & ooo:
        lt.ordering = "in order"
        lt.ordering_note = ("graphics-class: primary records in ProgramInputs order, secondary records in array "
                            "order (Execution Order and State Scoping); at its boundary it lands after work already "
                            "in flight, which may retire first, so rasterization and output-merger results stay in "
                            f"submission order (the arriving list's flags decide, {WORK_LISTS_SPEC})")
    elif cls is ExecutableClass.GRAPHICS:
        lt.ordering = "any order"
        lt.ordering_note = ("graphics-class with _ALLOW_OUT_OF_ORDER_GRAPHICS: records may launch and retire in any "
                            "order, and at its boundary the list may overtake work still in flight (the arriving "
                            f"list's flags decide, {WORK_LISTS_SPEC})")
    else:
        lt.ordering = "any order"
        lt.ordering_note = (f"{cls.value.lower()}-class records are never guaranteed to launch or execute in "
                            "ProgramInputs order (Execution Order and State Scoping); the trace lists them in "
                            "walk order")
    return SignatureSelection(index, wls, binding, cls, frozenset(id(p) for p in wls.pProgramCommandSignatures))


def _count_graphics_list(run: ListRun, call: DispatchListCall) -> bool:
    """Rule 11: "The number of graphics-class lists actually executed by a DispatchList1 call's chain must not exceed
    the MaxGraphicsPrimaryLists arg the app passed.  A list counts whether or not it executes any records"
    (docs/spec-questions.md Q14: a list counts once the signature it selects is graphics-class, whatever stops its
    records).  False when the chain stops before this list (``Readings.max_graphics_primary_lists`` "stop")."""
    ctx, lt = run.ctx, run.trace
    number = ctx.trace.graphics_lists + 1
    stop = call.tier2 and number > call.MaxGraphicsPrimaryLists and ctx.readings.max_graphics_primary_lists == "stop"
    if not stop:
        lt.counts_as_graphics_list = True
        ctx.trace.graphics_lists = number
    if not call.tier2 or number <= call.MaxGraphicsPrimaryLists:
        return True
    ctx.finding("max-graphics-primary-lists-exceeded", "rule 11",
                f"list {run.index} is graphics-class list number {number} of the chain; "
                f"MaxGraphicsPrimaryLists is {call.MaxGraphicsPrimaryLists} (a list counts whether or not it executes "
                "records): undefined behaviour; " + (
                    "under the reading that the bound caps the lists the chain may execute (--reading "
                    "max_graphics_primary_lists=stop), the chain ends before this list" if stop else
                    "the list is executed as its bytes ask"), loc=run.loc, va=run.va)
    if not stop:
        return True
    lt.stopped = "MaxGraphicsPrimaryLists reached: the chain ends before this list"
    ctx.trace.stopped_reason = f"list {run.index}: MaxGraphicsPrimaryLists {call.MaxGraphicsPrimaryLists} reached"
    run.ends_chain = True
    return False


def _binding_summary(binding: WorkListBinding) -> dict[str, Any]:
    out: dict[str, Any] = {"Type": short_name("D3D12_WORK_LIST_BINDING_TYPE", binding.Type)}
    if binding.Type == enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING"):
        out["Raytracing"] = asdict(binding.pRaytracing) if binding.pRaytracing is not None else None
    else:
        out["ProgramTable"] = asdict(binding.ProgramTable)
    return out


def _check_program_table_binding(run: ListRun, index: int, binding: WorkListBinding) -> None:
    """D3D12_WORK_LIST_PROGRAM_TABLE_BINDING member rules (the same checks ``d3d12wl validate`` makes at
    SetProgram, :func:`d3d12wl.rules.setprogram.check_program_table_binding`), reported once per binding."""
    sink = Sink("binding", str(index))
    check_program_table_binding(sink, binding.ProgramTable, "ProgramTable")
    for v in sink.out:
        run.ctx.finding("program-table-binding-invalid", v.rule, f"binding {index}: {v.message}", loc=run.loc,
                        va=binding.ProgramTable.Table.StartAddress, key=("ptb", index, v.message))


def _check_counts(run: ListRun, call: DispatchListCall) -> None:
    """Rule 12: a graphics list's NumProgramInputs against MaxGraphicsProgramInputsPerPrimaryList (the header as
    fixed after validation)."""
    sel = run.selection
    assert sel is not None
    n = run.header["NumProgramInputs"]
    if sel.executable_class is ExecutableClass.GRAPHICS and n > call.MaxGraphicsProgramInputsPerPrimaryList:
        run.ctx.finding("max-graphics-program-inputs-exceeded", "rule 12",
                        f"graphics-class list {run.index} has NumProgramInputs {n} > "
                        f"MaxGraphicsProgramInputsPerPrimaryList {call.MaxGraphicsProgramInputsPerPrimaryList}",
                        loc=run.loc, va=run.va)


# --------------------------------------------------------------------------------------------------------------
# After the list: the next one (Tier 2)
# --------------------------------------------------------------------------------------------------------------


def _continuation(run: ListRun, call: DispatchListCall) -> int | None:
    """Spec "Next-list pointer semantics" (Work Lists v0.851): read NextDispatchList and follow it only with
    _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION and a non-null value.  "The timing of the NextDispatchList read depends
    only on whether this list sets _END_WITH_WAIT_FOR_COMPLETION": with it, at the retire point; without it, at any
    time, including at launch, whatever the list's class (an in-order graphics list no longer advances the chain by
    its last record retiring).  The executor reads it where the list retires; ``Readings.next_list_read`` "launch"
    follows the value the list launched with instead, when the list does not set the wait (Q15)."""
    if not run.tier2:
        return None
    ctx, lt = run.ctx, run.trace
    flags = run.header["Flags"]
    allow = bool(flags & _flag("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION"))
    wait = bool(flags & _flag("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION"))
    flush = bool(flags & _flag("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_MEMORY_FLUSH"))
    cont: dict[str, Any] = {"allowed": allow, "wait_for_completion": wait, "memory_flush": flush,
                            "next": None, "followed": False}
    if wait:
        cont["read_point"] = ("at this list's retire point, after preceding work has fully retired "
                              "(_END_WITH_WAIT_FOR_COMPLETION): shaders in this list may author the next list")
    else:
        cont["read_point"] = ("any time, including at launch (no _END_WITH_WAIT_FOR_COMPLETION, whatever the list's "
                              f"class and ordering: {WORK_LISTS_SPEC} rule 13): the next input and the data it "
                              "consumes must already be valid; shaders in this list must not author them")
    lt.continuation = cont
    if not allow:
        cont["note"] = "no _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION: NextDispatchList is ignored; the call ends"
        if run.header["NextDispatchList"]:
            ctx.finding("next-dispatch-list-ignored", "D3D12_DISPATCH_LIST_INPUT1::NextDispatchList",
                        f"NextDispatchList is 0x{run.header['NextDispatchList']:x} but Flags lacks "
                        "_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION: it is ignored and the call ends after this list",
                        loc=run.loc, va=run.va + offsetof(INPUT1, "NextDispatchList"), severity="info")
        return None
    field_va = run.va + offsetof(INPUT1, "NextDispatchList")
    size = ctype_size("D3D12_GPU_VIRTUAL_ADDRESS")
    written = any(start < field_va + size and field_va < end for start, end in ctx.written)
    at_launch = not wait and ctx.readings.next_list_read == "launch"
    if at_launch:
        nxt = run.launch_next
    else:
        data = ctx.read(field_va, size, f"list {run.index} NextDispatchList", "Next-list pointer semantics", run.loc)
        if data is None:
            ctx.trace.stopped_reason = f"list {run.index}: NextDispatchList unreadable"
            return None
        nxt = int.from_bytes(data, "little")
    if written:
        _next_written(run, field_va, nxt, wait, at_launch)
    cont["next"] = nxt
    if nxt == 0:
        cont["note"] = "NextDispatchList is null: the call ends after this list"
        return None
    if not ctx.aligned(nxt, WL_ALIGN, f"list {run.index} NextDispatchList", "D3D12_DISPATCH_LIST_INPUT1::NextDispatchList",
                       run.loc):
        ctx.trace.stopped_reason = f"list {run.index}: misaligned NextDispatchList"
        return None
    cont["followed"] = True
    return nxt


def _next_written(run: ListRun, field_va: int, nxt: int, wait: bool, at_launch: bool) -> None:
    """A validator wrote the list's own NextDispatchList (docs/spec-questions.md Q15): "Writing other header fields
    (e.g., NextDispatchList) has implementation-defined effect" (Validator defensive neutralization patterns), and
    without _END_WITH_WAIT_FOR_COMPLETION the field may be read at launch, before the validator ran."""
    if wait:
        when = ("the list sets _END_WITH_WAIT_FOR_COMPLETION, which defers the read to its retire point, after the "
                "write: the written value is followed")
    elif at_launch:
        when = ("without _END_WITH_WAIT_FOR_COMPLETION the implementation may read it at any time, including at "
                "launch; under --reading next_list_read=launch the value the list launched with is followed")
    else:
        when = ("without _END_WITH_WAIT_FOR_COMPLETION the implementation may read it at any time, including at "
                "launch, before the write; the value at the list's retire point is followed (--reading "
                f"next_list_read=launch follows 0x{run.launch_next:x}, the value it launched with)")
    run.ctx.finding("next-dispatch-list-written", "Validator defensive neutralization patterns",
                    f"list {run.index}'s NextDispatchList was written while the list ran (0x{run.launch_next:x} at "
                    f"launch, 0x{nxt:x} followed): writing it \"has implementation-defined effect\"; {when} "
                    f"({WORK_LISTS_SPEC})", loc=run.loc, va=field_va, severity="warning")
