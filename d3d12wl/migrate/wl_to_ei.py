"""``migrate wl-to-ei``: the lowering a runtime or translation layer without Work Lists would do.

A ``DispatchList`` (Tier 1, direct bind) or a ``DispatchList1`` chain (Tier 2: each list with the signature and
binding its SignatureIndex selects, continuations followed as the spec follows them) of graphics- or compute-class
lists with program tables becomes ExecuteIndirect calls, per program-table slot an ExecuteIndirect command
signature, an argument buffer and a count (spec "Motivation" read backwards):

* the root signature of each call is the global root signature followed by the PCS's synthesized local root
  signature (same registers; spec "Local root signatures", implicit path), with its inline static samplers;
* every per-record argument (``_PRIMARY_RECORD`` / ``_SECONDARY_RECORD``; a primary-record value is repeated in the
  command of each execution it drives) becomes an argument of the command signature, the trigger last; an
  ``_INCREMENTING_CONSTANT`` becomes a ``CONSTANT`` holding the value the work list would have produced (spec
  "Incrementing constant semantics": list-wide, or per secondary list with ``_RESET_PER_SECONDARY_LIST``);
* what the program-table slot supplies (``_PROGRAM_TABLE_RECORD``) is set on the command list before the call.

Calls follow the spec's order (spec "Execution Order and State Scoping"): a graphics-class list without
``_ALLOW_OUT_OF_ORDER_GRAPHICS`` runs its records in order, so it is lowered to one call per run of consecutive
records of one slot; any other list to one call per slot.  Because which programs are active is known only on the
GPU, a filled slot no record selects still gets its call, with a count of 0 (``include_empty``): those are the empty
calls Work Lists exist to remove.

Records are read in columns (one gather per record class; no Python object per record) and every buffer is packed
by :func:`d3d12wl.records.packers.pack_execute_indirect` at offsets from the layout calculator.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.migrate._columns import VIEW_ARG, column_for, gather, rows_of, strided
from d3d12wl.migrate.runs import CallSequenceEntry, MigrationError
from d3d12wl.migrate.scene import ARGUMENTS_VA  # each call's argument buffer at its own VA in its own capture
from d3d12wl.migrate.scene import COUNTS_VA as COUNT_VA
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info
from d3d12wl.model.objects import (
    CommandSignature,
    EIConstantArg,
    IndirectArgumentDesc,
    ObjectSet,
    Program,
    ProgramCommandSignature,
    RootParameter1,
    RootParameterIndexArg,
    RootSignature,
    StaticSamplerDesc1,
    VertexBufferArg,
)
from d3d12wl.model.state import CommandListState, DispatchListCall, ExecuteIndirectCall, RootArgument
from d3d12wl.records.layout import EI_STRIDE_ALIGN, LayoutField, PCSLayout, inline_local_slots, pcs_layout, round_up
from d3d12wl.records.packers import pack_count_buffer, pack_execute_indirect, read_dispatch_list_inputs

__all__ = ["EiCall", "WlToEi", "wl_to_ei"]

IDENTIFIER = "D3D12_PROGRAM_IDENTIFIER"
_EI_ROOT_TYPES = {t: str(arg_type_info(t).union_member) for t in VIEW_ARG.values()}
_VIEW_OF_PARAM = VIEW_ARG


@dataclass
class EiCall:
    """One lowered call: its slot and program, its command signature and the number of commands."""

    slot: int
    program: str
    signature: str
    count: int
    capture: Capture

    @property
    def bytes(self) -> int:
        call = self.capture.call
        assert isinstance(call, ExecuteIndirectCall) and call.pCommandSignature is not None
        return self.count * call.pCommandSignature.ByteStride + pack_count_buffer(0).nbytes


@dataclass
class WlToEi:
    calls: list[EiCall]
    ordering: str
    bytes_before: int
    parts_before: dict[str, int] = field(default_factory=dict)
    #: list-boundary synchronization an ExecuteIndirect call sequence cannot carry: per list that ends with
    #: _END_WITH_WAIT_FOR_COMPLETION / _END_WITH_MEMORY_FLUSH and continues, the calls it falls between and the
    #: flags; the application records a barrier there (spec "Dispatch List Continuations")
    barriers: list[dict[str, Any]] = field(default_factory=list)

    @property
    def entries(self) -> list[CallSequenceEntry]:
        return [CallSequenceEntry(c.capture, c.program) for c in self.calls]

    def report(self) -> dict[str, Any]:
        draws = sum(c.count for c in self.calls)
        return {
            "before": {"calls": 1, "empty_calls": 0 if draws else 1, "draws": draws, "bytes": self.bytes_before,
                       "parts": self.parts_before},
            "after": {"calls": len(self.calls), "empty_calls": sum(c.count == 0 for c in self.calls), "draws": draws,
                      "bytes": sum(c.bytes for c in self.calls)},
            "ordering": self.ordering,
            "barriers": self.barriers,
            "calls": [{"slot": c.slot, "program": c.program, "command_signature": c.signature, "count": c.count,
                       "bytes": c.bytes} for c in self.calls],
        }


def _t(name: str) -> int:
    return abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", name)


@dataclass
class _Lowered:
    """The ExecuteIndirect side of one PCS: root signature, command signature, and per command-signature argument
    where its bytes come from (a WL arg index, or the incrementing constant)."""

    pcs: ProgramCommandSignature
    layout: PCSLayout
    root_signature: RootSignature | None
    signature: CommandSignature
    sources: list[tuple[int, str]]  # (WL arg index, "record" | "counter") per EI arg, in EI arg order
    table_params: list[tuple[int, int, int]]  # (EI root parameter, WL arg index, first dword) from the program table
    local_base: int


def _view_arg(type_name: str, rpi: int) -> IndirectArgumentDesc:
    d = IndirectArgumentDesc(Type=_t(type_name))
    setattr(d, _EI_ROOT_TYPES[type_name], RootParameterIndexArg(rpi))
    return d


def _lower_pcs(pcs: ProgramCommandSignature, grs: RootSignature | None) -> _Lowered:
    lay = pcs_layout(pcs)
    args = pcs.pArgumentDescs
    where = f"program_command_signatures.{pcs.name}"
    if lay.executable_class not in (ExecutableClass.GRAPHICS, ExecutableClass.COMPUTE):
        raise MigrationError("a raytracing-class PCS has no ExecuteIndirect lowering here", where=where)
    global_params = list(grs.pParameters) if grs is not None else []
    base = len(global_params)
    slots = inline_local_slots(args)
    slot_of = {i: s for s, members in enumerate(slots) for i in members}
    local_params = [args[m[0]].InlineRootParameter.RootParameter for m in slots]
    samplers = list(grs.pStaticSamplers) if grs is not None else []
    ei: list[tuple[tuple[int, int, int], IndirectArgumentDesc, int, str]] = []
    table: list[tuple[int, int, int]] = []
    trigger: tuple[IndirectArgumentDesc, int] | None = None
    for i, a in enumerate(args):
        t, src = a.type_name, a.source_name
        if a.binding_name == "LOCAL_ROOT_SIGNATURE" and t not in ("INLINE_ROOT_PARAMETER", "INLINE_STATIC_SAMPLER"):
            raise MigrationError(f"argument {i}: the explicit local root signature path is not lowered",
                                 where=f"{where}.pArgumentDescs[{i}]")
        if t == "INLINE_STATIC_SAMPLER":
            samplers.append(StaticSamplerDesc1(**vars(a.InlineStaticSampler)))
            continue
        if arg_type_info(t).is_trigger and arg_type_info(t).ei:
            trigger = (IndirectArgumentDesc(Type=a.Type), i)
            continue
        if t == "INLINE_ROOT_PARAMETER":
            rp = a.InlineRootParameter.RootParameter
            p = base + slot_of[i]
            first = a.InlineRootParameter.DestOffsetIn32BitValues
            if src == "PROGRAM_TABLE_RECORD":
                table.append((p, i, first))
                continue
            if rp.parameter_type_name == "32BIT_CONSTANTS":
                d = IndirectArgumentDesc(Type=_t("CONSTANT"), Constant=EIConstantArg(
                    p, first, a.InlineRootParameter.Num32BitValuesToSet))
            elif rp.parameter_type_name in _VIEW_OF_PARAM:
                d = _view_arg(_VIEW_OF_PARAM[rp.parameter_type_name], p)
            else:
                raise MigrationError(f"argument {i}: an inline {rp.parameter_type_name} has no ExecuteIndirect "
                                     "argument type", where=f"{where}.pArgumentDescs[{i}]")
            ei.append(((0, p, first), d, i, "record"))
        elif t == "CONSTANT":
            c = a.Constant
            ei.append(((0, c.RootParameterIndex, c.DestOffsetIn32BitValues), IndirectArgumentDesc(
                Type=a.Type, Constant=EIConstantArg(c.RootParameterIndex, c.DestOffsetIn32BitValues,
                                                    c.Num32BitValuesToSet)), i, "record"))
        elif t == "INCREMENTING_CONSTANT":
            c2 = a.IncrementingConstant
            ei.append(((0, c2.RootParameterIndex, c2.DestOffsetIn32BitValues), IndirectArgumentDesc(
                Type=_t("CONSTANT"), Constant=EIConstantArg(c2.RootParameterIndex, c2.DestOffsetIn32BitValues, 1)),
                i, "counter"))
        elif t in _EI_ROOT_TYPES:
            rpi = getattr(a, _EI_ROOT_TYPES[t]).RootParameterIndex
            ei.append(((0, rpi, 0), _view_arg(t, rpi), i, "record"))
        elif t == "VERTEX_BUFFER_VIEW":
            ei.append(((-1, a.VertexBuffer.Slot, 0), IndirectArgumentDesc(
                Type=a.Type, VertexBuffer=VertexBufferArg(a.VertexBuffer.Slot)), i, "record"))
        elif t == "INDEX_BUFFER_VIEW":
            ei.append(((-1, 1 << 20, 0), IndirectArgumentDesc(Type=a.Type), i, "record"))
        else:
            raise MigrationError(f"argument {i} ({t}) has no ExecuteIndirect lowering", where=f"{where}.pArgumentDescs[{i}]")
    if trigger is None:
        raise MigrationError("no dispatch trigger", where=where)
    ei.sort(key=lambda e: e[0])
    for _, d, i, _ in ei:  # each lowered argument keeps its work list argument's Name
        d.Name = args[i].Name
    trigger[0].Name = args[trigger[1]].Name
    descs = [d for _, d, _, _ in ei] + [trigger[0]]
    sources = [(i, kind) for _, _, i, kind in ei] + [(trigger[1], "record")]
    params = global_params + [RootParameter1(ParameterType=p.ParameterType, DescriptorTable=p.DescriptorTable,
                                             Constants=p.Constants, Descriptor=p.Descriptor,
                                             ShaderVisibility=p.ShaderVisibility) for p in local_params]
    rooted = any(arg_type_info(d.type_name).root_parameter_types for d in descs)
    flags = grs.Flags if grs is not None else 0
    rs = None
    if params or samplers:
        rs = grs if grs is not None and not local_params and len(samplers) == len(grs.pStaticSamplers) else \
            RootSignature(f"RS_{pcs.name}", params, samplers, flags)
    cs = CommandSignature(f"CS_{pcs.name}", 0, descs, 0, rs if rooted else None)
    from d3d12wl.records.layout import command_layout

    cs.ByteStride = round_up(max(command_layout(cs).size, 4), EI_STRIDE_ALIGN)
    return _Lowered(pcs, lay, rs, cs, sources, table, base)


def _field(layout: Any, arg: int) -> LayoutField:
    f = layout.arg_field(arg) if layout is not None else None
    if f is None:
        raise MigrationError(f"argument {arg} has no field in its record")
    return f


def wl_to_ei(capture: Capture, *, include_empty: bool = True, max_executions: int | None = None,
             max_records: int | None = None, max_lists: int = 65_536) -> WlToEi:
    """Lower a DispatchList (Tier 1) or DispatchList1 (Tier 2 chain) capture to ExecuteIndirect calls (see the
    module docstring).  The primary records of one list and the executions of one list are bounded as the
    executor bounds them (``max_records``, ``max_executions``; by default :class:`~d3d12wl.executor.Limits`'
    automatic ones, scaled to the bytes the capture supplies: a zeros region that claims 2^24 records for free
    does not make the lowering hold 2^24 of them); past one, a :class:`MigrationError` naming it."""
    from d3d12wl.executor import Limits  # the package's public face

    auto = Limits().resolved(capture.memory.supplied_bytes)
    max_executions = auto.max_executions if max_executions is None else max_executions
    max_records = auto.max_primary_records if max_records is None else max_records
    call = capture.call
    where = str(capture.path) if capture.path else "capture"
    if not isinstance(call, DispatchListCall):
        raise MigrationError(f"wl-to-ei lowers a DispatchList or DispatchList1, not {capture.call_name}", where=where)
    program = capture.state.program
    direct = abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST")
    if program is None or program.Type not in (direct, abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1")):
        raise MigrationError("the state binds no work list signature (SetProgram)", where=f"{where}: state.program")
    if program.Type != direct and program.WorkList1.ValidationProgramTable.Table.StartAddress:
        raise MigrationError("a ValidationProgramTable is bound: its validators rewrite the lists as they run, and a "
                             "lowering reads them as published; run `d3d12wl exec --validators` instead",
                             where=f"{where}: state.program.WorkList1.ValidationProgramTable",
                             rule="GPU Timeline Validation Hooks")
    tier2 = call.tier2
    input_name = "D3D12_DISPATCH_LIST_INPUT1" if tier2 else "D3D12_DISPATCH_LIST_INPUT"
    size = abi.sizeof(input_name)
    flags_enum = "D3D12_DISPATCH_LIST_FLAGS1" if tier2 else "D3D12_DISPATCH_LIST_FLAGS"
    ooo_flag = abi.enum_value(flags_enum, "ALLOW_OUT_OF_ORDER_GRAPHICS")
    cont_flag = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION") if tier2 else 0
    memory = capture.memory
    cache: dict[int, _Lowered] = {}
    objects = ObjectSet(programs={name: Program(name, p.Identifier) for name, p in capture.objects.programs.items()})
    calls: list[EiCall] = []
    parts = {"dispatch_input": 0, "program_table": 0, "primary": 0, "secondary": 0}
    orderings: list[str] = []
    barriers: list[dict[str, Any]] = []
    va, seen = call.DispatchListInput, set[int]()
    while va:
        if va in seen or len(seen) >= max_lists:
            raise MigrationError("the continuation chain does not end (a list is visited twice, or more than "
                                 f"{max_lists})", where=f"{where}: list {len(seen)} at 0x{va:x}",
                                 rule="Dispatch List Continuations")
        index = len(seen)
        seen.add(va)
        header = read_dispatch_list_inputs(memory.read(va, size, what="dispatch list input"), tier=2 if tier2 else 1)[0]
        signature_index = int(header["SignatureIndex"]) if tier2 else 0
        if program.Type == direct:
            if signature_index:
                raise MigrationError(f"SignatureIndex {signature_index} with a direct bind", where=f"list {index}",
                                     rule="Signature Selection")
            wls, binding = program.WorkList.pSignature, program.WorkList.Binding
        else:
            array = program.WorkList1.pSignatureArray
            if array is None or not 0 <= signature_index < len(array.pSignatures):
                raise MigrationError(f"SignatureIndex {signature_index} is outside the bound array",
                                     where=f"list {index}", rule="Signature Selection")
            wls, binding = array.pSignatures[signature_index], program.WorkList1.pBindings[signature_index]
        if wls is None or binding.Type != abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"):
            raise MigrationError("the list's signature needs a program-table binding (raytracing-class lists are not "
                                 "lowered)", where=f"{where}: list {index}")
        flags = int(header["Flags"])
        lowered_calls, list_parts, ordering = _lower_list(
            capture, objects, cache, wls, binding, int(header["NumProgramInputs"]),
            int(header["ProgramInputs"]["StartAddress"]), int(header["ProgramInputs"]["StrideInBytes"]),
            bool(flags & ooo_flag), include_empty, (max_records, max_executions),
            f"{where}: list {index}" if tier2 else where)
        calls.extend(lowered_calls)
        orderings.append(ordering)
        parts["dispatch_input"] += size
        for k, v in list_parts.items():
            parts[k] += v
        va = int(header["NextDispatchList"]) if tier2 and flags & cont_flag else 0
        end_sync = [name for name in ("END_WITH_WAIT_FOR_COMPLETION", "END_WITH_MEMORY_FLUSH")
                    if tier2 and flags & abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", name)]
        if va and end_sync:
            barriers.append({"list": index, "after_call": len(calls) - 1, "before_call": len(calls),
                             "flags": end_sync})
    ordering = orderings[0] if len(set(orderings)) == 1 else "; ".join(
        f"list {i}: {o}" for i, o in enumerate(orderings))
    return WlToEi(calls, ordering, sum(parts.values()), parts, barriers)


def _lower_list(capture: Capture, objects: ObjectSet, cache: dict[int, _Lowered], wls: Any, binding: Any, n: int,
                start: int, stride: int, ooo: bool, include_empty: bool, bounds: tuple[int, int],
                where: str) -> tuple[list[EiCall], dict[str, int], str]:
    """Lower one dispatch list's records to calls (at most ``bounds`` = (primary records, executions))."""
    max_records, max_executions = bounds
    if n > max_records:
        raise MigrationError(f"NumProgramInputs {n:,} exceeds the {max_records:,} primary records a list may have "
                             "here (the records the capture's supplied bytes hold; `d3d12wl exec` reports what the "
                             "call does with it)", where=where)
    memory = capture.memory
    pcses = wls.pProgramCommandSignatures
    layouts = [pcs_layout(p) for p in pcses]
    graphics = layouts[0].executable_class is ExecutableClass.GRAPHICS if layouts else True
    in_order = graphics and not ooo
    grs = pcses[0].pGlobalRootSignature if pcses else None
    for p in pcses:
        if id(p) not in cache:
            cache[id(p)] = _lower_pcs(p, grs)
    lowered = [cache[id(p)] for p in pcses]

    # the program table: identifier and tail of every slot
    pt = binding.ProgramTable
    slots, pt_stride = pt.SlotCount, pt.Table.StrideInBytes
    ident_size = abi.sizeof(IDENTIFIER)
    tail_size = max([lay.program_table.size for lay in layouts if lay.program_table is not None], default=ident_size)
    table_rows = strided(memory, pt.Table.StartAddress, slots, pt_stride, tail_size, "program-table slot")
    by_id = {bytes(p.Identifier): p for p in capture.objects.programs.values()}
    slot_program = [by_id.get(table_rows[s, :ident_size].tobytes()) for s in range(slots)]
    pcs_index = {id(p): i for i, p in enumerate(pcses)}
    slot_pcs = np.array([pcs_index.get(id(p.ProgramCommandSignature), -1) if p is not None else -1
                         for p in slot_program], dtype=np.int64)

    # primary records in columns: ProgramTableIndex (offset 0 of every non-raytracing header) selects the program and
    # with it the PCS whose layout the rest of the record follows (spec "Primary record layout")
    index_field = layouts[0].primary.field("ProgramTableIndex") if layouts else None
    if index_field is None:
        raise MigrationError("the bound signature has no program command signature", where=where)
    if n and stride % 8:
        raise MigrationError(f"ProgramInputs.StrideInBytes {stride} is not 8-byte aligned", where=where,
                             rule="rule 25(e)")
    head = strided(memory, start, n, stride, index_field.end, "primary record")
    pti = column_for(index_field, rows_of(head, index_field)).astype(np.int64)
    bad = np.flatnonzero((pti >= slots) | (slot_pcs[np.minimum(pti, max(slots - 1, 0))] < 0)) if slots else \
        np.arange(n)
    if len(bad):
        i = int(bad[0])
        raise MigrationError(f"primary record {i} selects slot {int(pti[i])}, which holds no known program of the "
                             "bound signature; `d3d12wl exec` reports what the call does with it",
                             where=f"primary record {i}")
    rec_pcs = slot_pcs[pti] if n else np.zeros(0, dtype=np.int64)
    present = [layouts[k] for k in np.unique(rec_pcs)]
    if n and stride < max(lay.primary.min_stride for lay in present):
        raise MigrationError(f"ProgramInputs.StrideInBytes {stride} is below the minimum primary record of a PCS "
                             "its records select", where=where, rule="rule 25(e)")
    # each record read at its own PCS's primary size (a last record of a small PCS may end before the largest)
    record_va = np.uint64(start) + np.arange(n, dtype=np.uint64) * np.uint64(stride)
    primary: dict[int, np.ndarray] = {}  # PCS -> the primary bytes of its records, in record order
    row_of = np.zeros(n, dtype=np.int64)  # a record's row in primary[its PCS]
    for k in (int(k) for k in np.unique(rec_pcs)):
        mask = rec_pcs == k
        primary[k] = gather(memory, record_va[mask], layouts[k].primary.size, "primary record",
                            indices=np.flatnonzero(mask))
        row_of[mask] = np.arange(int(mask.sum()))
    counts = np.ones(n, dtype=np.int64)
    sec_va = np.zeros(n, dtype=np.uint64)
    for k, lay in enumerate(layouts):
        mask = rec_pcs == k
        if lay.secondary is not None and mask.any():
            nf, vf = lay.primary.field("NumSecondaryRecords"), lay.primary.field("SecondaryRecords")
            counts[mask] = column_for(nf, rows_of(primary[k], nf)).astype(np.int64)
            sec_va[mask] = column_for(vf, rows_of(primary[k], vf))
    total = int(counts.sum())
    if total > max_executions:
        raise MigrationError(f"{total:,} executions exceed the {max_executions:,} a list may have here (the records "
                             "the capture's supplied bytes hold)", where=where)
    exec_record = np.repeat(np.arange(n), counts)
    first = np.zeros(n, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:]) if n else None
    exec_k = np.arange(total, dtype=np.int64) - np.repeat(first, counts)
    exec_pcs = rec_pcs[exec_record] if total else np.zeros(0, dtype=np.int64)
    exec_slot = pti[exec_record] if total else np.zeros(0, dtype=np.int64)

    # per execution, the bytes of every per-record argument, per PCS
    arg_rows: list[dict[int, np.ndarray]] = []
    sec_bytes = 0
    for k, (lay, low) in enumerate(zip(layouts, lowered)):
        sel = np.flatnonzero(exec_pcs == k)
        rows: dict[int, np.ndarray] = {}
        sec = None
        if lay.secondary is not None and len(sel):
            sstride = low.pcs.SecondaryRecordByteStride
            va = sec_va[exec_record[sel]] + exec_k[sel].astype(np.uint64) * np.uint64(sstride)
            sec = gather(memory, va, lay.secondary.size, "secondary record")
            sec_bytes += len(sel) * (sstride or lay.secondary.min_stride)
        for arg, kind in low.sources:
            if kind == "counter":
                a = low.pcs.pArgumentDescs[arg]
                reset = a.IncrementingConstant.Flags & abi.enum_value("D3D12_INCREMENTING_CONSTANT_FLAGS",
                                                                      "RESET_PER_SECONDARY_LIST")
                # the flag overrides the list-wide count for hybrid signatures only (spec "Incrementing constant
                # semantics"); a fully-inline PCS counts list-wide with or without it
                value = exec_k[sel] if reset and lay.secondary is not None else sel
                rows[arg] = value.astype("<u4").view(np.uint8).reshape(-1, 4)
                continue
            src = low.pcs.pArgumentDescs[arg].source_name
            if src == "SECONDARY_RECORD":
                assert sec is not None or not len(sel)
                f = _field(lay.secondary, arg)
                rows[arg] = rows_of(sec, f) if sec is not None else np.zeros((0, f.size), dtype=np.uint8)
            else:
                f = _field(lay.primary, arg)
                mine = primary.get(k, np.zeros((0, lay.primary.size), dtype=np.uint8))
                rows[arg] = rows_of(mine, f)[row_of[exec_record[sel]]]
        arg_rows.append(rows)

    # the calls: runs of one slot (in order) or one call per slot (any order), plus the empty ones
    if in_order:
        breaks = np.flatnonzero(np.diff(exec_slot)) + 1 if total else np.zeros(0, dtype=np.int64)
        groups = [(int(exec_slot[s]), np.arange(s, e)) for s, e in
                  zip(np.r_[0, breaks], np.r_[breaks, total]) if e > s]
    else:
        order = np.argsort(exec_slot, kind="stable")
        values, starts = np.unique(exec_slot[order], return_index=True)
        groups = [(int(v), part) for v, part in zip(values, np.split(order, starts[1:]))]
    used = {s for s, _ in groups}
    if include_empty:
        groups += [(s, np.zeros(0, dtype=np.int64)) for s in range(slots)
                   if s not in used and slot_program[s] is not None and slot_pcs[s] >= 0]
    # the programs keep their identifiers (a later ei-to-wl gives them back); their PCS is not an EI object
    for low in lowered:
        if low.root_signature is not None:
            objects.root_signatures[low.root_signature.name] = low.root_signature
        objects.command_signatures[low.signature.name] = low.signature
    of_pcs = [np.flatnonzero(exec_pcs == k) for k in range(len(layouts))]
    calls = []
    for slot, members in groups:
        k = int(slot_pcs[slot])
        low, rows = lowered[k], arg_rows[k]
        local = np.searchsorted(of_pcs[k], members)  # positions among this PCS's executions
        calls.append(_call(capture, low, rows, local, slot, table_rows[slot], slot_program[slot].name,  # type: ignore[union-attr]
                           objects))
    parts = {"program_table": slots * (pt_stride or tail_size), "primary": n * stride, "secondary": sec_bytes}
    ordering = "in order: one call per run of one slot" if in_order else "any order: one call per slot"
    return calls, parts, ordering


def _call(capture: Capture, low: _Lowered, rows: dict[int, np.ndarray], local: np.ndarray, slot: int,
          slot_row: np.ndarray, program: str, objects: ObjectSet) -> EiCall:
    from d3d12wl.records.layout import command_layout

    cs = low.signature
    layout = command_layout(cs)
    count = len(local)
    args = np.zeros(0, dtype=np.uint8)
    if count:
        cols: dict[str, Any] = {}
        for j, (arg, _) in enumerate(low.sources):
            f = layout.arg_field(j)
            if f is not None:
                cols[f.name] = column_for(f, rows[arg][local])
        args = pack_execute_indirect(cs, cols, count=count)
    memory = GpuMemory()
    if count:
        memory.map(ARGUMENTS_VA, args, name="pArgumentBuffer")
    memory.map(COUNT_VA, pack_count_buffer(count), name="pCountBuffer")
    old = capture.state
    graphics = low.layout.executable_class is ExecutableClass.GRAPHICS
    root_args = dict(old.graphics_root_arguments if graphics else old.compute_root_arguments)
    rs = low.root_signature
    for p, arg, first in low.table_params:
        assert rs is not None and low.layout.program_table is not None
        f = _field(low.layout.program_table, arg)
        value = slot_row[f.offset:f.offset + f.size]
        param = rs.pParameters[p]
        if param.parameter_type_name == "32BIT_CONSTANTS":
            have = root_args.get(p)
            dwords = list(have.values) if have is not None else [0] * param.Constants.Num32BitValues
            new = [int(v) for v in np.ascontiguousarray(value).view("<u4")]
            dwords[first:first + len(new)] = new
            root_args[p] = RootArgument("constants", values=dwords)
        else:
            root_args[p] = RootArgument("descriptor", value=int(np.ascontiguousarray(value).view("<u8")[0]))
    # a constants parameter of the local root signature that only commands set still needs its command-list base
    if rs is not None:
        for p in range(low.local_base, len(rs.pParameters)):
            param = rs.pParameters[p]
            if p not in root_args and param.parameter_type_name == "32BIT_CONSTANTS":
                root_args[p] = RootArgument("constants", values=[0] * param.Constants.Num32BitValues)
    state = CommandListState(
        graphics_root_signature=rs if graphics else old.graphics_root_signature,
        compute_root_signature=old.compute_root_signature if graphics else rs,
        graphics_root_arguments=root_args if graphics else dict(old.graphics_root_arguments),
        compute_root_arguments=dict(old.compute_root_arguments) if graphics else root_args,
        vertex_buffers=dict(old.vertex_buffers), index_buffer=old.index_buffer,
        descriptor_heaps=old.descriptor_heaps)
    ei = ExecuteIndirectCall(cs, count, ARGUMENTS_VA, COUNT_VA)
    return EiCall(slot, program, cs.name, count,
                  Capture(CAPTURE_VERSION, capture.device, objects, memory, state, ei))

