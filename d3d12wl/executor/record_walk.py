"""Step 10 of a list (Work Lists "Validator invocation order and barriers"), the reference walk: the list's primary
records one by one, each one's program-table slot (ProgramTableIndex -> slot -> identifier -> program -> PCS, rule 1;
its local-root tail, rule 6; its bytes unchanged while the call runs, rule 14), its secondary records, and every
execution they drive (:func:`build_execution`, which the columnar trace also makes its objects with).

The order is the spec's ("read ProgramTableIndex at offset 0, find the program and its PCS, then decode the rest"),
and every read is the hardware's.  A fault reading a primary record ends the list's walk; a fault reading a
secondary record ends that record's secondary list; a record whose program cannot be determined drives no
executions and the walk goes on (:mod:`d3d12wl.executor.dispatch_list` says the whole policy).
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from d3d12wl.errors import LayoutError
from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.decode import ctype_size, decode_record, enum_value, offsetof, type_name
from d3d12wl.executor.list_run import ListRun, SignatureSelection, no_layout
from d3d12wl.executor.resolve import RecordData, WorkListRecordContext
from d3d12wl.executor.trace import Execution, PrimaryRecordTrace, ProgramTableSlotTrace, RecordTrace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ProgramCommandSignature, RecordKind, WorkListSignature
from d3d12wl.records.layout import PROGRAM_IDENTIFIER, WL_ALIGN, PCSLayout

__all__ = ["build_execution", "ic_resets_per_secondary_list", "primary_walk_setup", "slot_index_in_range",
           "walk_primary_record", "walk_primary_records", "walk_secondary_records"]


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
        no_layout(ctx, exc, "Supported argument types", f"PCS {pcs.name!r}", loc, ("pcs", pcs.name))
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
        no_layout(ctx, exc, "Program table record layout", f"program {program.name!r}", loc,
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


def build_execution(sel: SignatureSelection, list_index: int, index: int, rctx: WorkListRecordContext, primary_va: int,
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
