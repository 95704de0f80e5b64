"""``DispatchList`` (Tier 1) and ``DispatchList1`` (Tier 2) over raw GPU memory.

Per list, processing follows the spec's ten-step order ("Validator invocation order and barriers"), with the
read and re-read points explicit so a validation-hook runner (:class:`ValidationHooks`) can be inserted without
touching the record walk:

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
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Protocol

from d3d12wl._version import WORK_LISTS_SPEC
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import LayoutError
from d3d12wl.executor.context import ExecContext, Loc, StopCall
from d3d12wl.executor.decode import (
    binding_name,
    ctype_size,
    decode,
    decode_record,
    enum_value,
    flag_members,
    offsetof,
    short_name,
    type_name,
)
from d3d12wl.executor.resolve import RecordData, WorkListRecordContext, check_unset_root_parameters, root_index
from d3d12wl.executor.trace import (
    Execution,
    Limits,
    ListTrace,
    PrimaryRecordTrace,
    ProgramTableSlotTrace,
    Readings,
    RecordTrace,
    ResetEntry,
    Trace,
)
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet, ProgramCommandSignature, RecordKind, WorkListSignature
from d3d12wl.model.state import CommandListState, DeviceCaps, DispatchListCall, SetWorkListDesc1, WorkListBinding
from d3d12wl.records.layout import WL_ALIGN, PCSLayout
from d3d12wl.rules import Sink
from d3d12wl.rules.setprogram import check_program_table_binding

INPUT = "D3D12_DISPATCH_LIST_INPUT"
INPUT1 = "D3D12_DISPATCH_LIST_INPUT1"
PROGRAM_IDENTIFIER = "D3D12_PROGRAM_IDENTIFIER"


def _flag(enum: str, member: str) -> int:
    return enum_value(enum, member)


# --------------------------------------------------------------------------------------------------------------
# Validation hooks (GPU Timeline Validation Hooks): the insertion points, no validators
# --------------------------------------------------------------------------------------------------------------


class ValidationHooks(Protocol):
    """A runner for the spec's validators ("GPU Timeline Validation Hooks").  Each method runs the validators of
    one step for the list in ``run`` (reading and writing ``run.ctx.memory``) and returns True if it dispatched
    any validator, in which case the executor re-reads the header as the spec's steps 2, 6 and 9 require.
    The executor calls these only when a validation program table is bound (array bind with a non-null
    ``ValidationProgramTable``); the direct-bind path never runs validators."""

    def signature_selection(self, run: ListRun) -> bool: ...  # step 1 (before SignatureIndex is read)

    def primary_list(self, run: ListRun) -> bool: ...  # step 4 (after selection)

    def secondary_lists(self, run: ListRun) -> bool: ...  # step 7 (all primary records)


#: step 10 of one list: walk its primary records (the reference :func:`walk_primary_records` or a faster one that
#: makes the same trace)
PrimaryWalker = Callable[["ListRun"], None]


@dataclass
class Selection:
    """The signature and paired binding a list selected (spec "Signature Selection")."""

    signature_index: int
    signature: WorkListSignature
    binding: WorkListBinding
    executable_class: ExecutableClass
    members: frozenset[int]  # id() of the signature's program command signatures


@dataclass
class ListRun:
    """One list being processed: what hooks and the record walk share."""

    ctx: ExecContext
    index: int
    va: int
    tier2: bool
    header_bytes: bytes
    header: dict[str, Any]
    trace: ListTrace
    selection: Selection | None = None
    counter: int = 0  # the list's linear invocation sequence (incrementing constant, "Counting unit")
    #: NextDispatchList as the list launched (before any validator ran): Readings.next_list_read "launch"
    launch_next: int = 0
    #: the chain ends after this list whatever its continuation says (Readings.max_graphics_primary_lists "stop")
    ends_chain: bool = False
    #: executions that did work, in the list and in the current secondary list (Readings.zero_work_counter "skips")
    worked: int = 0
    worked_in_secondary_list: int = 0

    @property
    def loc(self) -> Loc:
        return Loc(list_index=self.index)


@dataclass
class _Bound:
    """What SetProgram bound (spec "Binding via SetProgram")."""

    signatures: list[WorkListSignature]
    bindings: list[WorkListBinding]
    array: bool
    validation_active: bool
    used: dict[int, WorkListSignature] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------------------------------


def run_dispatch_list(memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                      call: DispatchListCall, limits: Limits | None = None,
                      hooks: ValidationHooks | None = None, walker: PrimaryWalker | None = None,
                      readings: Readings | None = None) -> Trace:
    """Execute ``DispatchList`` (``call.tier2`` False) or ``DispatchList1`` and return the :class:`Trace`.

    ``walker``: step 10 of each list (default :func:`walk_primary_records`, the reference walk); it is used only
    when no validation hook runs (hooks write memory between steps: the reference walk always serves them).
    ``readings``: how the specs' two-way sentences are read (:class:`~d3d12wl.executor.trace.Readings`)."""
    args: dict[str, Any] = {"DispatchListInput": call.DispatchListInput}
    if call.tier2:
        args["MaxGraphicsPrimaryLists"] = call.MaxGraphicsPrimaryLists
    args["MaxGraphicsProgramInputsPerPrimaryList"] = call.MaxGraphicsProgramInputsPerPrimaryList
    if readings is not None and readings.non_default():
        args["readings"] = readings.non_default()
    trace = Trace("DispatchList1" if call.tier2 else "DispatchList", call_args=args)
    ctx = ExecContext(memory, device, objects, state, limits, trace, readings)
    _check_command_list(ctx)
    bound = _check_bind(ctx, call)
    if bound is not None:
        previous = memory.on_write
        memory.on_write = _ImmutableRanges(ctx, bound, _RecordWrites(ctx, previous))
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


@dataclass(frozen=True)
class _Range:
    start: int
    end: int
    kind: str
    rule: str
    what: str


class _ImmutableRanges:
    """``GpuMemory.on_write`` for one call: a write into memory that must stay unchanged from SetProgram until every
    referencing chain completes is a finding (the write still happens).  Rule 14: every bound program table
    (``pBindings[i].ProgramTable.Table``) and the ``ValidationProgramTable``; rule 18: the shader tables of every
    bound raytracing binding.  Only validation hooks write memory during a call."""

    def __init__(self, ctx: ExecContext, bound: _Bound, previous: Callable[[int, int], None] | None) -> None:
        self.ctx = ctx
        self.previous = previous
        pt_type = enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
        rt_type = enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING")
        ranges: dict[tuple[int, int, str], _Range] = {}

        def add(start: int, size: int, kind: str, rule: str, what: str) -> None:
            if start and size:
                ranges.setdefault((start, start + size, kind), _Range(start, start + size, kind, rule, what))

        for i, b in enumerate(bound.bindings):
            if b.Type == pt_type:
                kind = "program-table-mutated"
                add(b.ProgramTable.Table.StartAddress, b.ProgramTable.Table.SizeInBytes, kind, "rule 14",
                    f"the program table of binding {i}")
            elif b.Type == rt_type and b.pRaytracing is not None:
                kind = "shader-table-mutated"
                rt = b.pRaytracing
                for name in ("RayGenerationShaderRecord", "MissShaderTable", "HitGroupTable", "CallableShaderTable"):
                    table = getattr(rt, name)
                    add(table.StartAddress, table.SizeInBytes, kind, "rule 18", f"binding {i}'s {name}")
        program = ctx.state.program
        if bound.array and program is not None:
            vpt = program.WorkList1.ValidationProgramTable.Table
            add(vpt.StartAddress, vpt.SizeInBytes, "program-table-mutated", "rule 14", "the ValidationProgramTable")
        self.ranges = list(ranges.values())

    def __call__(self, va: int, size: int) -> None:
        for r in self.ranges:
            if va < r.end and r.start < va + size:
                subject = ("bound program tables are" if r.kind == "program-table-mutated"
                           else "bound raytracing state (the RTPSO and its shader tables) is")
                self.ctx.finding(r.kind, r.rule,
                                 f"a write of {size} bytes at 0x{va:x} lands in {r.what} [0x{r.start:x}, "
                                 f"0x{r.end:x}): {subject} immutable from SetProgram until every referencing "
                                 "DispatchList / DispatchList1 chain has completed (the write happens)",
                                 loc=Loc(list_index=self.ctx.list_index), va=max(va, r.start), key=("mutated", r.start))
        if self.previous is not None:
            self.previous(va, size)


class _RecordWrites:
    """``GpuMemory.on_write``: the byte ranges written while the current list runs (``ExecContext.written``)."""

    def __init__(self, ctx: ExecContext, previous: Callable[[int, int], None] | None) -> None:
        self.ctx = ctx
        self.previous = previous

    def __call__(self, va: int, size: int) -> None:
        self.ctx.written.append((va, va + size))
        if self.previous is not None:
            self.previous(va, size)


def _command_list_type(member: str) -> int:
    return enum_value("D3D12_COMMAND_LIST_TYPE", member)


def _check_command_list(ctx: ExecContext) -> None:
    """Work Lists "Bundles" ("DispatchList is not allowed inside a bundle command list") and "Command queue type"
    ("Both methods are invalid on copy or video command lists"): once per call, before anything is read.  Findings
    only: the hardware would still read the bytes."""
    cl_type = ctx.state.command_list_type
    if cl_type == _command_list_type("BUNDLE"):
        ctx.finding("dispatch-list-in-bundle", "Bundles",
                    f"{ctx.trace.call} is recorded into a bundle command list: DispatchList is not allowed inside a "
                    "bundle command list (recording it into a bundle is invalid)")
    elif cl_type not in (_command_list_type("DIRECT"), _command_list_type("COMPUTE")):
        ctx.finding("command-list-type-invalid", "Command queue type",
                    f"{ctx.trace.call} on a {short_name('D3D12_COMMAND_LIST_TYPE', cl_type)} command list: "
                    "DispatchList and DispatchList1 are invalid on copy or video command lists (valid on direct "
                    "and, for compute-class and raytracing-class signatures, compute command lists)")


def _check_selected_class(run: ListRun, wls: WorkListSignature, cls: ExecutableClass) -> None:
    """The signature a list selects is one "actually used by the call" (Work Lists "Command queue type": "the single
    bound signature in the Tier 1 case, or every signature reached via SignatureIndex across the continuation chain
    in the Tier 2 case"; "Render passes": "any signature reachable via SignatureIndex across the chain"): on a
    compute command list it must be compute-class or raytracing-class, inside a render pass graphics-class.  Once
    per signature and call; findings only."""
    ctx = run.ctx
    graphics = cls is ExecutableClass.GRAPHICS
    if graphics and ctx.state.command_list_type == _command_list_type("COMPUTE"):
        ctx.finding("command-list-type-invalid", "Command queue type",
                    f"list {run.index} selects the graphics-class signature {wls.name!r} on a compute command list: "
                    "there DispatchList / DispatchList1 are valid only when every signature actually used by the "
                    "call is compute-class or raytracing-class", loc=run.loc, key=("compute command list", id(wls)))
    if not graphics and ctx.state.in_render_pass:
        ctx.finding("render-pass-compute-class", "Render passes",
                    f"list {run.index} selects the {cls.value.lower()}-class signature {wls.name!r} inside a render "
                    "pass scope: compute-class and raytracing-class lists cannot be recorded inside a render pass "
                    "(a Tier 2 chain is rejected if any signature reached via SignatureIndex is one)", loc=run.loc,
                    key=("render pass", id(wls)))


def _check_bound_classes(ctx: ExecContext, signatures: list[WorkListSignature]) -> None:
    """Work Lists "Render passes" under the ``bound`` reading (``Readings.render_pass``, docs/spec-questions.md
    Q4): "any signature reachable via SignatureIndex across the chain" is every signature SetProgram bound, which is
    what a runtime recording the call can see; each compute-class or raytracing-class one inside a render pass is
    the finding, once per signature and call, whether or not a list selects it.  Under the default reading
    (``selected``) the signature each list selects is checked as it is selected (:func:`_check_selected_class`)."""
    if ctx.readings.render_pass != "bound" or not ctx.state.in_render_pass:
        return
    for index, wls in enumerate(signatures):
        try:
            cls = ctx.layouts.pcs(wls.pProgramCommandSignatures[0]).executable_class
        except (LayoutError, IndexError):
            continue  # a signature the executor cannot class is reported where a list selects it
        if cls is not ExecutableClass.GRAPHICS:
            ctx.finding("render-pass-compute-class", "Render passes",
                        f"SetProgram binds the {cls.value.lower()}-class signature {wls.name!r} (signature index "
                        f"{index}) and the call is recorded inside a render pass scope: under the reading that a "
                        "signature \"reachable via SignatureIndex\" is any signature bound (--reading "
                        "render_pass=bound), the call is rejected whether or not a list selects it",
                        key=("render pass", id(wls)))


def _check_bind(ctx: ExecContext, call: DispatchListCall) -> _Bound | None:
    program = ctx.state.program
    tier1 = enum_value("D3D12_WORK_LISTS_TIER", "TIER_1")
    tier2 = enum_value("D3D12_WORK_LISTS_TIER", "TIER_2")
    if ctx.device.Tier < (tier2 if call.tier2 else tier1):
        ctx.finding("tier-not-supported", "Feature Tiers and Capability Queries",
                    f"{ctx.trace.call} needs D3D12_WORK_LISTS_TIER_{2 if call.tier2 else 1}; the device reports "
                    f"{ctx.device.Tier}")
    work_list = enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST")
    work_list1 = enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1")
    if program is not None and program.Type == work_list and program.WorkList.pSignature is not None:
        _ignored_validation_indices(ctx, [program.WorkList.pSignature], None)
        _check_bound_classes(ctx, [program.WorkList.pSignature])
        return _Bound([program.WorkList.pSignature], [program.WorkList.Binding], False, False)
    if program is not None and program.Type == work_list1 and program.WorkList1.pSignatureArray is not None:
        desc, signature_array = program.WorkList1, program.WorkList1.pSignatureArray
        if ctx.device.Tier < tier2:
            ctx.finding("tier-not-supported", "Binding via SetProgram",
                        "the array bind path (D3D12_PROGRAM_TYPE_WORK_LIST1 and D3D12_SET_WORK_LIST_DESC1) is only "
                        f"valid on devices reporting WORK_LISTS_TIER_2; the device reports {ctx.device.Tier}")
        if not call.tier2:
            ctx.finding("bind-type-mismatch-dispatch-method", "Compatibility of bind type with dispatch method",
                        "an array binding (D3D12_PROGRAM_TYPE_WORK_LIST1) is bound; DispatchList (Tier 1) cannot "
                        "use it (array bindings are Tier 2 only): nothing executes")
            return None
        sigs = list(signature_array.pSignatures)
        if len(desc.pBindings) != len(sigs):
            ctx.finding("num-bindings-mismatch", "D3D12_SET_WORK_LIST_DESC1",
                        f"NumBindings {len(desc.pBindings)} != pSignatureArray->NumSignatures {len(sigs)}")
        vpt = desc.ValidationProgramTable
        validation = vpt.Table.StartAddress != 0
        if validation:
            sink = Sink("binding", "ValidationProgramTable")
            check_program_table_binding(sink, vpt, "ValidationProgramTable")
            for v in sink.out:
                ctx.finding("program-table-binding-invalid", v.rule, f"ValidationProgramTable: {v.message}",
                            va=vpt.Table.StartAddress, key=("vpt", v.message))
        else:
            if vpt.Table.StrideInBytes or vpt.SlotCount:
                ctx.finding("null-validation-program-table-nonzero", "D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable",
                            "ValidationProgramTable.Table.StartAddress == 0 means no validation, in which case "
                            f"ByteStride and SlotCount must also be 0 (Table.StrideInBytes {vpt.Table.StrideInBytes}, "
                            f"SlotCount {vpt.SlotCount})")
            _ignored_validation_indices(ctx, sigs, desc)
        _check_bound_classes(ctx, sigs)
        return _Bound(sigs, list(desc.pBindings), True, validation)
    ctx.finding("no-work-list-bound", "Dispatch Model",
                f"{ctx.trace.call} needs a work list signature bound via SetProgram (D3D12_PROGRAM_TYPE_WORK_LIST"
                f"{' or _WORK_LIST1' if call.tier2 else ''}): nothing executes")
    return None


def _ignored_validation_indices(ctx: ExecContext, signatures: list[WorkListSignature],
                                desc: SetWorkListDesc1 | None) -> None:
    """Spec "Binding the validation program table": with no ValidationProgramTable (the direct bind has no such
    field; a D3D12_SET_WORK_LIST_DESC1 may bind a null one) "the implementation ignores all validation index fields
    on the bound signatures; no validators are invoked".  Non-zero ones are a note: they are ignored."""
    fields: list[str] = []
    if desc is not None and desc.SignatureSelectionValidationProgramTableIndex:
        fields.append(f"SignatureSelectionValidationProgramTableIndex {desc.SignatureSelectionValidationProgramTableIndex}")
    seen: set[int] = set()
    for wls in signatures:
        if id(wls) in seen:
            continue
        seen.add(id(wls))
        if wls.ListValidationProgramTableIndex:
            fields.append(f"{wls.name}.ListValidationProgramTableIndex {wls.ListValidationProgramTableIndex}")
        for pcs in wls.pProgramCommandSignatures:
            if pcs.RecordValidationProgramTableIndex and id(pcs) not in seen:
                seen.add(id(pcs))
                fields.append(f"{pcs.name}.RecordValidationProgramTableIndex {pcs.RecordValidationProgramTableIndex}")
    if not fields:
        return
    shown = ", ".join(fields[:8]) + (f" and {len(fields) - 8} more" if len(fields) > 8 else "")
    why = ("the direct bind (D3D12_SET_WORK_LIST_DESC) has no ValidationProgramTable" if desc is None
           else "ValidationProgramTable is null")
    ctx.finding("validation-index-ignored", "Binding the validation program table",
                f"{why}: the implementation ignores all validation index fields and invokes no validator ({shown})",
                severity="info")


def _run_chain(ctx: ExecContext, call: DispatchListCall, bound: _Bound, hooks: ValidationHooks | None,
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


def process_list(run: ListRun, call: DispatchListCall, bound: _Bound, hooks: ValidationHooks | None,
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


def _select(run: ListRun, call: DispatchListCall, bound: _Bound) -> Selection | None:
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
            _no_layout(ctx, exc, "Supported argument types", f"work list signature {wls.name!r}: PCS {pcs.name!r}",
                       run.loc, ("pcs", pcs.name))
    if not layouts:
        lt.stopped = "signature has no usable program command signature"
        return None
    cls = layouts[0].executable_class
    lt.executable_class = cls.value
    _check_selected_class(run, wls, cls)
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
    return Selection(index, wls, binding, cls, frozenset(id(p) for p in wls.pProgramCommandSignatures))


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


def _no_layout(ctx: ExecContext, exc: LayoutError, rule: str, subject: str, loc: Loc, key: tuple[str, str]) -> None:
    """The finding for a PCS or program whose record layout cannot be computed: the layout error's rule (else
    ``rule``), ``subject: message``, once per ``key``."""
    ctx.finding("invalid-program-command-signature", exc.rule or rule, f"{subject}: {exc.message}", loc=loc, key=key)


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


# --------------------------------------------------------------------------------------------------------------
# Step 10: the record walk
# --------------------------------------------------------------------------------------------------------------


def primary_walk_setup(run: ListRun) -> tuple[int, int, int] | None:
    """The list's (NumProgramInputs, ProgramInputs.StartAddress, StrideInBytes), or None (with the finding, if
    any) when no primary record is read."""
    ctx, lt, h = run.ctx, run.trace, run.header
    n = h["NumProgramInputs"]
    if n == 0:
        return None  # "ProgramInputs is not read when this is 0, and its StartAddress and StrideInBytes are unconstrained"
    start = h["ProgramInputs"]["StartAddress"]
    stride = h["ProgramInputs"]["StrideInBytes"]
    rule = "rule 25(e)"
    if not ctx.aligned(start, WL_ALIGN, f"list {run.index} ProgramInputs.StartAddress", lt.input_struct, run.loc):
        lt.stopped = "misaligned ProgramInputs.StartAddress"
        return None
    if stride % WL_ALIGN:
        ctx.finding("stride-misaligned", rule, f"ProgramInputs.StrideInBytes {stride} is not a multiple of {WL_ALIGN}",
                    loc=run.loc, va=run.va + offsetof(lt.input_struct, "ProgramInputs.StrideInBytes"))
        lt.stopped = "misaligned ProgramInputs.StrideInBytes"
        return None
    _check_worst_case_stride(run, stride)
    return n, start, stride


def _check_worst_case_stride(run: ListRun, stride: int) -> None:
    """D3D12_DISPATCH_LIST_INPUT1::ProgramInputs: "Its StrideInBytes must fit the worst-case primary record across
    every program command signature reachable from the work list signature selected by SignatureIndex" (the Tier 1
    input: "across every program command signature this dispatch will reference"), once per list whichever PCSes
    its records select.  Only a finding: each record is still read at the stride (its own PCS's minimum is rule
    25(e), per record)."""
    ctx, sel, lt = run.ctx, run.selection, run.trace
    assert sel is not None
    worst = ctx.memo(sel.signature, "worst-primary", lambda wls: _worst_primary(ctx, wls))
    if worst is None or stride >= worst[0]:
        return
    ctx.finding("program-inputs-stride-below-worst-case", f"{lt.input_struct}::ProgramInputs",
                f"ProgramInputs.StrideInBytes {stride} does not fit the worst-case primary record across every program "
                f"command signature reachable from work list signature {sel.signature.name!r}: PCS {worst[1]!r} needs "
                f"{worst[0]} bytes (header + inline primary-sourced tail + trailing pad)", loc=run.loc,
                va=run.va + offsetof(lt.input_struct, "ProgramInputs.StrideInBytes"))


def _worst_primary(ctx: ExecContext, wls: WorkListSignature) -> tuple[int, str] | None:
    """The largest minimum primary-record stride among ``wls``'s PCSes (those with a layout) and its PCS."""
    worst: tuple[int, str] | None = None
    for pcs in wls.pProgramCommandSignatures:
        try:
            need = ctx.layouts.pcs(pcs).primary.min_stride
        except LayoutError:
            continue  # reported as invalid-program-command-signature at selection
        if worst is None or need > worst[0]:
            worst = (need, pcs.name)
    return worst


def walk_primary_records(run: ListRun) -> None:
    """Step 10, the reference walk: every primary record one by one."""
    setup = primary_walk_setup(run)
    if setup is None:
        return
    n, start, stride = setup
    for i in range(n):
        if not walk_primary_record(run, i, n, start, stride):
            return


def walk_primary_record(run: ListRun, i: int, n: int, start: int, stride: int) -> bool:
    """Primary record ``i`` of ``n`` as the reference walks it (limits, address, record count, decode, execute);
    False when the list's walk ends here."""
    ctx, lt = run.ctx, run.trace
    loc = run.loc.but(primary_index=i)
    if i >= ctx.limits.max_primary_records:
        ctx.stop("max_primary_records", f"list {run.index} has NumProgramInputs {n}", loc=loc)
    va = ctx.record_address(start, i, stride, 4, "primary record", "rule 25(e)", loc)
    if va is None:
        lt.stopped = f"primary record {i} address wraps"
        return False
    ctx.count_record(loc, va)
    if stride == 0 and i:
        ctx.count_repeated(loc, va)
    if not _primary_record(run, i, va, stride, loc):
        lt.stopped = f"primary record {i} unreadable"
        return False
    return True


def _primary_record(run: ListRun, i: int, va: int, stride: int, loc: Loc) -> bool:
    """Decode and execute one primary record.  False ends the list's walk (a fault reading the record)."""
    ctx, sel = run.ctx, run.selection
    assert sel is not None
    prt = PrimaryRecordTrace(i, va)
    run.trace.primary_records.append(prt)
    table: RecordData | None = None
    program = None
    system: dict[str, int | None] = {"PRIMARY_RECORD_POINTER": va, "DISPATCH_LIST_HEADER_POINTER": run.va,
                                     "PRIMARY_LIST_POINTER": run.header["ProgramInputs"]["StartAddress"]}
    if sel.executable_class is ExecutableClass.RAYTRACING:
        pcs: ProgramCommandSignature = sel.signature.pProgramCommandSignatures[0]
    else:
        # "read ProgramTableIndex at offset 0, find the program and its PCS, then decode the rest"
        head = ctx.read(va, 4, f"primary record {i} ProgramTableIndex", "Primary record layout", loc)
        if head is None:
            return False
        pt_index = int.from_bytes(head, "little")
        got = _program_table_slot(run, prt, pt_index, loc)
        if got is None:
            return True
        program, table = got
        assert program.ProgramCommandSignature is not None
        pcs = program.ProgramCommandSignature
        system["PROGRAM_TABLE_POINTER"] = sel.binding.ProgramTable.Table.StartAddress
    try:
        layout = ctx.layouts.pcs(pcs)
    except LayoutError as exc:
        _no_layout(ctx, exc, "Supported argument types", f"PCS {pcs.name!r}", loc, ("pcs", pcs.name))
        prt.skipped = "PCS has no record layout"
        return True
    prt.pcs = pcs.name
    prt.record_kind = layout.record_kind.value
    prt.header = layout.primary.header
    if layout.executable_class is not sel.executable_class:
        ctx.finding("program-class-mismatch", "Work List Signature",
                    f"PCS {pcs.name!r} is {layout.executable_class.value.lower()}-class in a "
                    f"{sel.executable_class.value.lower()}-class list (a single work list signature cannot mix "
                    "executable classes): not executed", loc=loc, va=va, key=(run.index, i, "class"))
        prt.skipped = "executable class differs from the list's"
        return True
    if stride < layout.primary.min_stride:
        ctx.finding("stride-below-minimum", "rule 25(e)",
                    f"ProgramInputs.StrideInBytes {stride} is below the minimum {layout.primary.min_stride} of "
                    f"PCS {pcs.name!r}'s primary record ({layout.primary.size} bytes used): records overlap; "
                    "not executed", loc=loc, va=va, key=(run.index, "stride", pcs.name))
        prt.skipped = "stride below the PCS's minimum primary record size"
        return True
    data = ctx.read(va, layout.primary.size, f"primary record {i}", "Primary record layout", loc)
    if data is None:
        return False
    prt.fields = decode_record(layout.primary, data)
    primary = RecordData(f"primary record {i}", "primary", va, layout.primary, prt.fields)
    rctx = WorkListRecordContext(ctx, loc, sel.executable_class, pcs, layout, program, primary, table, system)
    rt_binding = sel.binding.pRaytracing if sel.executable_class is ExecutableClass.RAYTRACING else None
    if rt_binding is not None and layout.record_kind is RecordKind.HYBRID and prt.fields.get("ReservedPadding"):
        ctx.finding("reserved-padding-nonzero", "D3D12_WORK_LIST_RAYTRACING_RECORD",
                    f"ReservedPadding is 0x{prt.fields['ReservedPadding']:x}; must be 0", loc=loc,
                    va=va + layout.primary.field("ReservedPadding").offset)
    if layout.record_kind is RecordKind.INLINE:
        _execute(run, rctx, prt, None, None)
        return True
    walk_secondary_records(run, rctx, prt, layout, loc)
    return True


def slot_index_in_range(ctx: ExecContext, pt: Any, pt_index: int) -> bool:
    """D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::SlotCount: "Every primary record's ProgramTableIndex must be in [0,
    SlotCount)", a broadcast table (stride 0) included unless ``Readings.broadcast_slot_index`` is "any" ("every
    logical index resolves to the single record", docs/spec-questions.md Q16).  Both engines ask this."""
    return pt_index < pt.SlotCount or (not pt.Table.StrideInBytes and ctx.readings.broadcast_slot_index == "any")


def _program_table_slot(run: ListRun, prt: PrimaryRecordTrace, pt_index: int,
                        loc: Loc) -> tuple[Any, RecordData] | None:
    """Spec "Program table slot layout": slot ``index * stride`` (stride 0: broadcast), index < SlotCount, the
    identifier -> program -> its PCS (rule 1), then the program's local-root tail."""
    ctx, sel = run.ctx, run.selection
    assert sel is not None
    pt = sel.binding.ProgramTable
    if not slot_index_in_range(ctx, pt, pt_index):
        ctx.finding("program-table-index-out-of-range", "D3D12_WORK_LIST_PRIMARY_RECORD::ProgramTableIndex",
                    f"ProgramTableIndex {pt_index} >= SlotCount {pt.SlotCount}: undefined behaviour, not executed"
                    + ("" if pt.Table.StrideInBytes else " (the table is the broadcast form, stride 0: under the "
                       "reading that every index then selects its one record, --reading broadcast_slot_index=any, "
                       "it would execute)"), loc=loc, va=prt.va)
        prt.skipped = "ProgramTableIndex out of range"
        return None
    stride = pt.Table.StrideInBytes
    slot_va = ctx.record_address(pt.Table.StartAddress, pt_index, stride, ctype_size(PROGRAM_IDENTIFIER),
                                 "program table slot", "Program table slot layout", loc)
    if slot_va is None:
        prt.skipped = "program table slot address wraps"
        return None
    ident = ctx.read(slot_va, ctype_size(PROGRAM_IDENTIFIER), f"program table slot {pt_index} identifier",
                     "Program table slot layout", loc)
    if ident is None:
        prt.skipped = "program table slot unreadable"
        return None
    cached = ctx.slot_cache.get(slot_va)
    if cached is not None and cached[0][: len(ident)] == ident:
        # the same slot again: read its bytes as the hardware would, and reuse the decode if they are unchanged
        data = ctx.read(slot_va, len(cached[0]), f"program table slot {pt_index}", "Program table record layout",
                        loc)
        if data is None:
            prt.skipped = "program table slot unreadable"
            return None
        if data == cached[0] and cached[3].index == pt_index:
            prt.program_table = cached[3]
            return cached[1], cached[2]
    _check_table_stable(run, slot_va, ident, loc)
    program = ctx.program_by_identifier(ident)
    slot_trace = ProgramTableSlotTrace(pt_index, slot_va, ident.hex(), program.name if program else None)
    prt.program_table = slot_trace
    if program is None:
        ctx.finding("unknown-program-identifier", "Program table entries",
                    f"program table slot {pt_index} holds identifier {ident.hex()[:16]}... of no known program: "
                    "not executed", loc=loc, va=slot_va)
        prt.skipped = "unknown program identifier"
        return None
    pcs = program.ProgramCommandSignature
    if pcs is None:
        ctx.finding("program-without-command-signature", "rule 1",
                    f"program {program.name!r} (slot {pt_index}) has no program command signature associated with it "
                    "(\"Every generic program whose identifier may appear in a program table must have a program "
                    "command signature subobject associated with it\"): not executed", loc=loc, va=slot_va)
        prt.skipped = "program has no program command signature"
        return None
    if id(pcs) not in sel.members:
        ctx.finding("program-not-in-signature", "rule 1",
                    f"program {program.name!r} (slot {pt_index}) is associated with PCS {pcs.name!r}, not one of work "
                    f"list signature {sel.signature.name!r}'s: not executed", loc=loc, va=slot_va)
        prt.skipped = "program's PCS not in the selected signature"
        return None
    try:
        tail_layout = ctx.layouts.program(program)
    except LayoutError as exc:
        _no_layout(ctx, exc, "Program table record layout", f"program {program.name!r}", loc,
                   ("program", program.name))
        prt.skipped = "program has no program-table layout"
        return None
    assert tail_layout is not None
    if stride and tail_layout.size > stride:
        ctx.finding("program-table-stride-too-small", "rule 6",
                    f"program {program.name!r} needs {tail_layout.size - ctype_size(PROGRAM_IDENTIFIER)} bytes of "
                    f"program-table-record LRA; Table.StrideInBytes {stride} leaves "
                    f"{stride - ctype_size(PROGRAM_IDENTIFIER)}: not executed", loc=loc, va=slot_va,
                    key=(sel.signature_index, program.name))
        prt.skipped = "program-table stride too small for the program's LRA"
        return None
    if not stride and ctype_size(PROGRAM_IDENTIFIER) <= pt.Table.SizeInBytes < tail_layout.size:
        ctx.finding("program-table-size-too-small", "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::Table",
                    f"broadcast program table (Table.StrideInBytes 0): Table.SizeInBytes {pt.Table.SizeInBytes} "
                    f"cannot hold the single broadcast record of program {program.name!r} ({tail_layout.size} bytes: "
                    "\"one program identifier plus that program's program-table-record LRA\")", loc=loc, va=slot_va,
                    key=("ptsize", sel.signature_index, program.name))
    data = ctx.read(slot_va, tail_layout.size, f"program table slot {pt_index}", "Program table record layout", loc)
    if data is None:
        prt.skipped = "program table slot unreadable"
        return None
    _check_table_stable(run, slot_va, data, loc)
    slot_trace.tail = decode_record(tail_layout, data, skip_identifier=True)
    record = RecordData(f"program table slot {pt_index}", "program-table", slot_va, tail_layout, slot_trace.tail)
    ctx.slot_cache[slot_va] = (data, program, record, slot_trace)
    return program, record


def _check_table_stable(run: ListRun, slot_va: int, data: bytes, loc: Loc) -> None:
    """Rule 14: bound program tables are immutable until every referencing chain completes.  ``data`` (read at
    ``slot_va``) is compared with what the call read there before."""
    cached = run.ctx.slot_cache.get(slot_va)
    if cached is None:
        return
    n = min(len(cached[0]), len(data))
    if cached[0][:n] != data[:n]:
        run.ctx.finding("program-table-mutated", "rule 14",
                        f"program table slot at 0x{slot_va:x} changed during the call (bound program tables are "
                        "immutable until every referencing chain completes)", loc=loc, va=slot_va,
                        key=("mutated", _table_start(run)))


def _table_start(run: ListRun) -> int:
    """The bound program table of the list's binding (the key a rule-14 finding is reported once under)."""
    assert run.selection is not None
    return run.selection.binding.ProgramTable.Table.StartAddress


def walk_secondary_records(run: ListRun, rctx: WorkListRecordContext, prt: PrimaryRecordTrace, layout: PCSLayout,
                            loc: Loc, start: int = 0) -> None:
    """The secondary list of primary record ``prt`` from secondary record ``start`` on (the columnar walk hands a
    record over after the secondary records it has walked itself)."""
    ctx = run.ctx
    n = prt.fields["NumSecondaryRecords"]
    base = prt.fields["SecondaryRecords"]
    rctx.system["SECONDARY_LIST_POINTER"] = base
    if n == 0:
        return
    header_field = layout.primary.field("SecondaryRecords")
    if not ctx.aligned(base, WL_ALIGN, f"primary record {prt.index} SecondaryRecords", f"{layout.primary.header}",
                       loc):
        prt.skipped = "misaligned SecondaryRecords"
        return
    sec = layout.secondary
    assert sec is not None
    stride = layout.pcs.SecondaryRecordByteStride
    problems = sec.stride_problems(stride)  # 0 is the broadcast form
    if problems:
        kind = "stride-misaligned" if stride % sec.stride_align else "stride-below-minimum"
        ctx.finding(kind, "rule 25(e)",
                    f"PCS {layout.pcs.name!r} SecondaryRecordByteStride: {'; '.join(problems)}: secondary records "
                    "not executed", loc=loc, va=prt.va + header_field.offset, key=("secstride", layout.pcs.name))
        prt.skipped = "secondary stride invalid"
        return
    reset = ctx.memo(layout.pcs, "ic-reset", ic_resets_per_secondary_list)
    run.worked_in_secondary_list = 0  # (the columnar walk hands over mid-list only under "consumes")
    for j in range(start, n):
        sloc = loc.but(secondary_index=j)
        if j >= ctx.limits.max_secondary_records:
            ctx.stop("max_secondary_records", f"primary record {prt.index} has NumSecondaryRecords {n}", loc=sloc)
        sva = ctx.record_address(base, j, stride, sec.size, "secondary record", "rule 25(e)", sloc)
        if sva is None:
            prt.skipped = f"secondary record {j} address wraps"
            return
        ctx.count_record(sloc, sva)
        if stride == 0 and j:
            ctx.count_repeated(sloc, sva)
        data = ctx.read(sva, sec.size, f"secondary record {j} of primary record {prt.index}",
                        "D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords", sloc)
        if data is None:
            prt.skipped = f"secondary record {j} unreadable"
            return
        rtrace = RecordTrace(j, sva, decode_record(sec, data))
        prt.secondary_records.append(rtrace)
        _execute(run, rctx, prt, RecordData(f"secondary record {j}", "secondary", sva, sec, rtrace.fields), j,
                 ic_value=j if reset else None)


def ic_resets_per_secondary_list(pcs: ProgramCommandSignature) -> bool:
    flag = enum_value("D3D12_INCREMENTING_CONSTANT_FLAGS", "RESET_PER_SECONDARY_LIST")
    return any(type_name(a) == "INCREMENTING_CONSTANT" and a.IncrementingConstant.Flags & flag
               for a in pcs.pArgumentDescs)


def _execute(run: ListRun, rctx: WorkListRecordContext, prt: PrimaryRecordTrace, secondary: RecordData | None,
             secondary_index: int | None, ic_value: int | None = None) -> None:
    """One execution (spec "Incrementing constant semantics": the counter is the position in the list's linear
    invocation sequence, or the index within the secondary list with _RESET_PER_SECONDARY_LIST; under
    ``Readings.zero_work_counter`` "skips", the executions before it in that sequence that did work)."""
    ctx, sel = run.ctx, run.selection
    assert sel is not None
    loc = rctx.loc.but(secondary_index=secondary_index)
    skips = ctx.readings.zero_work_counter == "skips"
    if skips:
        ic_value = run.worked if ic_value is None else run.worked_in_secondary_list
    execution = build_execution(sel, run.index, ctx.next_execution_index(), rctx, prt.va, prt.index, secondary,
                                secondary_index, run.counter, ic_value)
    ctx.add_execution(execution, loc)
    prt.executions.append(execution.index)
    run.counter += 1
    if skips and execution.trigger.does_work():
        run.worked += 1
        run.worked_in_secondary_list += 1


def build_execution(sel: Selection, list_index: int, index: int, rctx: WorkListRecordContext, primary_va: int,
                    primary_index: int, secondary: RecordData | None, secondary_index: int | None, invocation: int,
                    ic_value: int | None) -> Execution:
    """The :class:`Execution` of one record (resolving every binding through ``rctx``): shared by the reference
    walk and the columnar trace, which makes it on demand from its columns."""
    counter = invocation if ic_value is None else ic_value
    resolved = rctx.resolve(secondary, counter)
    program_name = rctx.program.name if rctx.program is not None else None
    rt = None
    if sel.executable_class is ExecutableClass.RAYTRACING and sel.binding.pRaytracing is not None:
        rt = asdict(sel.binding.pRaytracing)
        program_name = sel.binding.pRaytracing.pRaytracingStateObject or None
    record_va = {"primary": primary_va}
    if secondary is not None:
        record_va["secondary"] = secondary.va
    if rctx.table is not None:
        record_va["program_table_slot"] = rctx.table.va
    return Execution(
        index=index, executable_class=sel.executable_class.value, trigger=resolved.trigger,
        list_index=list_index, signature_index=sel.signature_index, primary_index=primary_index,
        secondary_index=secondary_index, program=program_name, pcs=rctx.pcs.name, invocation=invocation,
        counter=resolved.counter, root_arguments=resolved.root_arguments, ia=resolved.ia,
        system_pointers={k: v for k, v in resolved.system_pointers.items()
                         if k in ("PROGRAM_TABLE_POINTER", "PRIMARY_RECORD_POINTER", "SECONDARY_RECORD_POINTER")},
        raytracing=rt, record_va=record_va)


# --------------------------------------------------------------------------------------------------------------
# End-of-call reset
# --------------------------------------------------------------------------------------------------------------

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
