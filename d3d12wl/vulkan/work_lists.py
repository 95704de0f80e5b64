"""Lower a ``DispatchList`` (Tier 1) or ``DispatchList1`` chain (Tier 2): one leaf per program command signature a
list's records use (one indirect-commands layout per record layout), each with an execution set of that signature's
programs, the sequences of each in record order.

A primary record's program, and so its signature, is what its ``ProgramTableIndex`` selects: slot -> identifier ->
program -> ``ProgramCommandSignature``.  Each leaf's sequences are that signature's executions in record order;
:attr:`~d3d12wl.vulkan.lowered.Lowering.positions` says where each stands in the executor's order (the list's
linear order: primary records in order, each record's secondary records in order, the lists of a chain one after
another).  An incrementing constant is the position in the list's linear sequence: the DGC sequence index when the
list is one leaf run as one execute, else a push constant holding the position (spec "Incrementing constant
semantics").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model.objects import ObjectSet, ProgramCommandSignature, RootSignature
from d3d12wl.model.state import CommandListState, DispatchListCall
from d3d12wl.records import packers
from d3d12wl.records.layout import (
    WL_ALIGN,
    PCSLayout,
    RecordLayout,
    inline_local_slots,
    pcs_layout,
    program_table_layout,
    uses_inline_local_root_signature,
)
from d3d12wl.vulkan.lowered import (
    CommandsLayout,
    DispatchListWalk,
    Lowering,
    LoweringError,
    NotLowered,
    SequenceColumn,
)
from d3d12wl.vulkan.tokens import (
    IBV_BYTES,
    IDENTIFIER_BYTES,
    NOT_LOWERED,
    RECORD_POINTERS,
    ROOT_DESCRIPTORS,
    TRIGGERS,
    VA_BYTES,
    VBV_BYTES,
    LayoutBuilder,
    chunks_of,
    gather,
    index_mode,
    inherited_ia,
    initial_push_constants,
    local_slots,
    push_block,
    record_field,
    rows,
    source_of,
    u32,
    u64,
    view,
)
from d3d12wl.vulkan.vk import TokenType

__all__ = ["lower_dispatch_list"]


def not_lowered(call: str, reason: str | None = None, *, items: Sequence[NotLowered] = ()) -> Lowering:
    """A lowering with nothing to run: what could not be lowered, and why."""
    found = tuple(items) + ((NotLowered("call", reason),) if reason else ())
    return Lowering(call, None, (), b"", np.zeros((0, 0), dtype=np.uint8), found)


def lower_dispatch_list(memory: GpuMemory, objects: ObjectSet, state: CommandListState, call: DispatchListCall,
                        sequence_index: bool, max_sequences: int | None, cut: bool = False) -> Lowering:
    if call.tier2:
        return _lower_chain(memory, objects, state, call, sequence_index, max_sequences, cut)
    program = state.program
    wl = program.WorkList if program is not None else None
    if wl is None or wl.pSignature is None:
        raise LoweringError("no work list bound by SetProgram", where="state.program")
    size = abi.sizeof("D3D12_DISPATCH_LIST_INPUT")
    if call.DispatchListInput % WL_ALIGN:
        raise LoweringError(f"DispatchListInput 0x{call.DispatchListInput:x} is not {WL_ALIGN}-byte aligned",
                            rule="DispatchList")
    dli = packers.read_dispatch_list_inputs(view(memory, call.DispatchListInput, size, "D3D12_DISPATCH_LIST_INPUT"))
    return _lower_list("DispatchList", memory, objects, state, wl.pSignature, wl.Binding, dli, call, sequence_index,
                       max_sequences, cut)


def _lower_chain(memory: GpuMemory, objects: ObjectSet, state: CommandListState, call: DispatchListCall,
                 sequence_index: bool, max_sequences: int | None, cut: bool) -> Lowering:
    """DispatchList1: the chain followed as the spec says ("Dispatch List Continuations": NextDispatchList is
    followed only with _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION and a non-null value), one lowering per list, in
    order; the signature and binding of each list by its SignatureIndex."""
    program = state.program
    wl1 = program.WorkList1 if program is not None else None
    wl = program.WorkList if program is not None else None
    if wl1 is not None and wl1.pSignatureArray is not None:
        if wl1.ValidationProgramTable.Table.StartAddress:
            return not_lowered("DispatchList1", "GPU timeline validation hooks (a bound ValidationProgramTable) are "
                               "not lowered: validators may rewrite the lists between steps")
        signatures, bindings = list(wl1.pSignatureArray.pSignatures), list(wl1.pBindings)
    elif wl is not None and wl.pSignature is not None:
        # spec "Compatibility of bind type with dispatch method": DispatchList1 on a signature bound directly
        # (D3D12_SET_WORK_LIST_DESC), SignatureIndex 0 selecting it and its one binding
        signatures, bindings = [wl.pSignature], [wl.Binding]
    else:
        raise LoweringError("no work list signature bound by SetProgram", where="state.program")
    size = abi.sizeof("D3D12_DISPATCH_LIST_INPUT1")
    allow = abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")
    lists: list[Lowering] = []
    seen: set[int] = set()
    va, graphics, offset = call.DispatchListInput, 0, 0
    while va:
        where = f"list {len(lists)} @0x{va:x}"
        if va in seen:
            raise LoweringError("the chain returns to a list it already ran", where=where,
                                rule="Dispatch List Continuations")
        seen.add(va)
        if va % WL_ALIGN:
            raise LoweringError(f"D3D12_DISPATCH_LIST_INPUT1 at 0x{va:x} is not {WL_ALIGN}-byte aligned", where=where,
                                rule="DispatchList1" if not lists else "D3D12_DISPATCH_LIST_INPUT1::NextDispatchList")
        dli = packers.read_dispatch_list_inputs(view(memory, va, size, "D3D12_DISPATCH_LIST_INPUT1"), tier=2)
        if int(dli["ReservedPadding"][0]):
            raise LoweringError("non-zero ReservedPadding", where=where, rule="D3D12_DISPATCH_LIST_INPUT1")
        index = int(dli["SignatureIndex"][0])
        if index >= len(signatures) or index >= len(bindings):
            raise LoweringError(f"SignatureIndex {index} past the {len(signatures)} signatures bound", where=where,
                                rule="Signature Selection")
        low = _lower_list(f"DispatchList1 list {len(lists)}", memory, objects, state, signatures[index],
                          bindings[index], dli, call, sequence_index, max_sequences, cut)
        if not low.lowered:
            return not_lowered("DispatchList1", items=[NotLowered(f"list {len(lists)} {n.what}", n.reason, n.arg)
                                                       for n in low.not_lowered])
        leaves = low.leaves()
        graphics += leaves[0].layout is not None and leaves[0].layout.executable_class == "GRAPHICS"
        for leaf in leaves:  # positions in the chain's order of executions: this list's after the lists before
            assert leaf.positions is not None
            leaf.positions = leaf.positions + offset
        offset += low.count
        lists.append(low)
        va = int(dli["NextDispatchList"][0]) if int(dli["Flags"][0]) & allow else 0
    if graphics > call.MaxGraphicsPrimaryLists:
        raise LoweringError(f"{graphics} graphics-class lists > MaxGraphicsPrimaryLists {call.MaxGraphicsPrimaryLists}",
                            rule="rule 11")
    return Lowering("DispatchList1", None, (), b"", np.zeros((0, 0), dtype=np.uint8), lists=tuple(lists))


def _records_at(memory: GpuMemory, vas: np.ndarray, size: int, what: str) -> np.ndarray:
    """The ``size``-byte records at ``vas`` (uint64) as a (len(vas), size) uint8 array."""
    return gather(memory, vas, size, vas, np.ones(len(vas), dtype=np.int64), 0) if len(vas) else \
        np.zeros((0, size), dtype=np.uint8)


class _Group:
    """The records of one program command signature in a list (on the explicit local root signature path, of one
    local root signature among its programs': ``lrs``, whose program-table tail is ``tail``)."""

    def __init__(self, pcs: ProgramCommandSignature, layout: PCSLayout, programs: tuple[str, ...],
                 lrs: RootSignature | None = None, tail: RecordLayout | None = None) -> None:
        self.pcs, self.layout, self.programs, self.lrs = pcs, layout, programs, lrs
        self.tail = tail if tail is not None else layout.program_table
        self.tail_size = self.tail.size if self.tail is not None else IDENTIFIER_BYTES
        self.records = np.zeros(0, dtype=np.int64)  # primary record indices, in record order
        self.primary = np.zeros((0, layout.primary.size), dtype=np.uint8)
        self.counts = np.zeros(0, dtype=np.int64)  # executions per record


def _groups_of(pcs: ProgramCommandSignature, layout: PCSLayout, objects: ObjectSet) -> list[_Group]:
    """The groups of one program command signature: its programs, or on the explicit local root signature path
    (its programs associated with a ``D3D12_LOCAL_ROOT_SIGNATURE``, no ``_INLINE_*`` argument: spec "Local root
    signatures") its programs of each local root signature, in the order they first appear: each local root
    signature is its own push-constant block, so its own indirect-commands layout."""
    programs = [(n, p) for n, p in objects.programs.items() if p.ProgramCommandSignature is pcs]
    if uses_inline_local_root_signature(pcs) or all(p.LocalRootSignature is None for _, p in programs):
        return [_Group(pcs, layout, tuple(n for n, _ in programs))]
    by_lrs: dict[int, list[str]] = {}
    for n, p in programs:
        by_lrs.setdefault(id(p.LocalRootSignature), []).append(n)
    return [_Group(pcs, layout, tuple(names), objects.programs[names[0]].LocalRootSignature,
                   program_table_layout(objects.programs[names[0]], layout)) for names in by_lrs.values()]


def _lower_list(name: str, memory: GpuMemory, objects: ObjectSet, state: CommandListState, wls: Any,
                binding: Any, dli: np.ndarray, call: DispatchListCall, sequence_index: bool,
                max_sequences: int | None, cut: bool) -> Lowering:
    """One list: its signature and binding, its D3D12_DISPATCH_LIST_INPUT(1) as read."""
    if binding.ProgramTable is None or binding.pRaytracing is not None:
        return not_lowered(name, "raytracing binding: an indirect execution set holds no raytracing pipelines")
    groups: list[_Group] = []
    for pcs in wls.pProgramCommandSignatures:
        layout = pcs_layout(pcs)
        cls = layout.executable_class.value
        if cls not in ("GRAPHICS", "COMPUTE"):
            return not_lowered(name, f"{cls} class: only graphics and compute work lists are lowered")
        groups.extend(_groups_of(pcs, layout, objects))
    tier2 = name.startswith("DispatchList1")
    n_primary = int(dli["NumProgramInputs"][0])
    start = int(dli["ProgramInputs"]["StartAddress"][0])
    p_stride = int(dli["ProgramInputs"]["StrideInBytes"][0])
    if groups[0].layout.executable_class.value == "GRAPHICS" and n_primary > call.MaxGraphicsProgramInputsPerPrimaryList:
        raise LoweringError(f"NumProgramInputs {n_primary} > MaxGraphicsProgramInputsPerPrimaryList "
                            f"{call.MaxGraphicsProgramInputsPerPrimaryList}", rule="rule 12")
    if n_primary and start % WL_ALIGN:  # "ProgramInputs is not read when this is 0"
        raise LoweringError(f"ProgramInputs.StartAddress 0x{start:x} is not {WL_ALIGN}-byte aligned",
                            rule="D3D12_DISPATCH_LIST_INPUT1" if tier2 else "D3D12_DISPATCH_LIST_INPUT")

    # ProgramTableIndex -> slot -> identifier -> program -> (its signature's group, its execution-set index)
    pti_offset = groups[0].layout.primary.field("ProgramTableIndex").offset
    if n_primary and len(groups) == 1:  # several signatures: checked against each one its records use, below
        problems = groups[0].layout.primary.stride_problems(p_stride)
        if problems:
            raise LoweringError(f"ProgramInputs.StrideInBytes: {'; '.join(problems)}", rule="rule 25(e)")
    pti = u32(rows(memory, start + pti_offset, n_primary, p_stride, 4, "primary records"), 0)
    table = binding.ProgramTable.Table
    slot_count = binding.ProgramTable.SlotCount
    if n_primary and int(pti.max()) >= slot_count:
        k = int(np.argmax(pti >= slot_count))
        raise LoweringError(f"ProgramTableIndex {int(pti[k])} >= SlotCount {slot_count}", where=f"primary record {k}")
    by_identifier = {objects.programs[p].Identifier: (g, i) for g, group in enumerate(groups)
                     for i, p in enumerate(group.programs)}
    slots, slot_row = np.unique(pti, return_inverse=True)
    slot_group = np.empty(len(slots), dtype=np.int64)
    slot_set = np.empty(len(slots), dtype="<u4")
    slot_bytes: dict[int, np.ndarray] = {}
    for k, s in enumerate(slots.tolist()):
        slot_va = table.StartAddress + s * table.StrideInBytes
        ident = bytes(view(memory, slot_va, IDENTIFIER_BYTES, f"program table slot {s}"))
        if ident not in by_identifier:
            raise LoweringError(f"program table slot {s} holds an identifier of no program of "
                                f"{', '.join(g.pcs.name for g in groups)}: {ident.hex()}", rule="Program table entries")
        slot_group[k], slot_set[k] = by_identifier[ident]
        size = groups[int(slot_group[k])].tail_size
        slot_bytes[k] = np.frombuffer(view(memory, slot_va, size, f"program table slot {s}"), dtype=np.uint8)
    record_group = slot_group[slot_row] if n_primary else np.zeros(0, dtype=np.int64)

    # each group's primary records, and the executions each drives (NumSecondaryRecords; 1 for inline records)
    counts = np.zeros(n_primary, dtype=np.int64)
    for g, group in enumerate(groups):
        ks = np.flatnonzero(record_group == g)
        group.records = ks
        if not len(ks):
            continue
        if len(groups) > 1:
            problems = group.layout.primary.stride_problems(p_stride)
            if problems:
                raise LoweringError(f"ProgramInputs.StrideInBytes for {group.pcs.name!r}: {'; '.join(problems)}",
                                    rule="rule 25(e)")
        size = group.layout.primary.size
        group.primary = rows(memory, start, n_primary, p_stride, size, "primary records") if len(ks) == n_primary \
            else _records_at(memory, np.uint64(start) + ks.astype(np.uint64) * np.uint64(p_stride), size,
                             "primary records")
        if group.layout.secondary is not None:
            group.counts = u32(group.primary, group.layout.primary.field("NumSecondaryRecords").offset).astype(np.int64)
        else:
            group.counts = np.ones(len(ks), dtype=np.int64)
        counts[ks] = group.counts
    first = np.zeros(n_primary, dtype=np.int64)
    np.cumsum(counts[:-1], out=first[1:])
    total = int(counts.sum())
    used = [g for g in groups if len(g.records)] or groups[:1]
    one_execute = not cut and len(used) == 1 and (max_sequences is None or total <= max_sequences)
    leaves = []
    for group in used:
        leaf = _lower_group(f"{name} {_group_name(group)}" if len(used) > 1 else name, memory, state, group, start,
                            p_stride, first, slot_row, slot_set, slot_bytes, table, slot_count, one_execute,
                            sequence_index, max_sequences, objects)
        if not leaf.lowered:
            return leaf
        leaves.append(leaf)
    if len(leaves) == 1:
        return leaves[0]
    return Lowering(name, None, (), b"", np.zeros((0, 0), dtype=np.uint8), groups=tuple(leaves),
                    notes=(f"{len(leaves)} program command signatures: one indirect-commands layout each, run one "
                           "after another, each one's sequences in record order",))


def _group_name(group: _Group) -> str:
    return group.pcs.name if group.lrs is None else f"{group.pcs.name} ({group.lrs.name})"


def _lower_group(name: str, memory: GpuMemory, state: CommandListState, group: _Group, start: int, p_stride: int,
                 first: np.ndarray, slot_row: np.ndarray, slot_set: np.ndarray, slot_bytes: dict[int, np.ndarray],
                 table: Any, slot_count: int, one_execute: bool, sequence_index: bool, max_sequences: int | None,
                 objects: ObjectSet) -> Lowering:
    """The leaf of one program command signature: its layout, execution set and the sequences of its records."""
    pcs, layout = group.pcs, group.layout
    compute = layout.executable_class.value == "COMPUTE"
    local = local_slots(pcs.pArgumentDescs) if group.lrs is None else \
        [(param.parameter_type_name, param.Constants.Num32BitValues) for param in group.lrs.pParameters]
    block = push_block(pcs.pGlobalRootSignature, local, sequence_index)
    b = LayoutBuilder(block)
    _work_list_tokens(b, pcs, layout, sequence_index, one_execute, group.lrs, group.tail)
    if b.not_lowered:
        return not_lowered(name, items=b.not_lowered)
    ks, primary, counts = group.records, group.primary, group.counts
    n_rec = len(ks)
    # executions: one per primary record (inline), one per secondary record (hybrid)
    if layout.secondary is not None:
        sec_va = u64(primary, layout.primary.field("SecondaryRecords").offset)
        s_stride = pcs.SecondaryRecordByteStride
        problems = layout.secondary.stride_problems(s_stride)  # 0 is the broadcast form
        if problems and int(counts.sum()):
            raise LoweringError(f"PCS {pcs.name!r} SecondaryRecordByteStride: {'; '.join(problems)}",
                                rule="rule 25(e)")
        misaligned = (sec_va % np.uint64(WL_ALIGN) != 0) & (counts > 0)
        if misaligned.any():
            k = int(np.argmax(misaligned))
            raise LoweringError(f"SecondaryRecords 0x{int(sec_va[k]):x} is not {WL_ALIGN}-byte aligned",
                                where=f"primary record {int(ks[k])}", rule=layout.primary.header)
        of_primary = np.repeat(np.arange(n_rec), counts)
        firsts = np.zeros(n_rec, dtype=np.int64)
        np.cumsum(counts[:-1], out=firsts[1:])
        within = np.arange(len(of_primary)) - np.repeat(firsts, counts)
        sec_record_va = np.repeat(sec_va, counts) + within.astype(np.uint64) * np.uint64(s_stride)
        secondary = gather(memory, sec_record_va, layout.secondary.size, sec_va, counts, s_stride)
    else:
        secondary = None
        of_primary = np.arange(n_rec)
        within = np.zeros(n_rec, dtype=np.int64)
        sec_record_va = np.zeros(n_rec, dtype=np.uint64)
    n = len(of_primary)
    positions = first[ks][of_primary] + within
    record = ks[of_primary]
    rows_of_slot = slot_row[record]
    stride = b.stride
    seq = np.zeros((n, stride), dtype=np.uint8)
    record_vas = {"PRIMARY_RECORD_POINTER": np.uint64(start) + record.astype(np.uint64) * np.uint64(p_stride),
                  "SECONDARY_RECORD_POINTER": sec_record_va,
                  # spec "_PROGRAM_TABLE_POINTER": the binding's ProgramTable.StartAddress (not the slot's VA)
                  "PROGRAM_TABLE_POINTER": np.full(n, table.StartAddress, dtype=np.uint64)}
    set_index = slot_set[rows_of_slot] if n else np.zeros(0, dtype="<u4")
    distinct, slot_of_sequence = np.unique(rows_of_slot, return_inverse=True)
    slot_matrix = np.stack([slot_bytes[int(k)] for k in distinct]) if n else \
        np.zeros((0, group.tail_size), dtype=np.uint8)
    for col in b.columns:
        t = col.token
        dst = seq[:, t.offset:t.offset + t.size]
        if col.source == "execution_set":
            dst[:] = set_index.astype("<u4").view(np.uint8).reshape(n, 4)
        elif col.source == "zero":
            continue
        elif col.source == "constant":
            dst[:] = np.frombuffer(col.constant, dtype=np.uint8)
        elif col.source == "secondary_index":
            dst[:] = within.astype("<u4").view(np.uint8).reshape(n, 4)
        elif col.source == "position":
            dst[:] = positions.astype("<u4").view(np.uint8).reshape(n, 4)
        elif col.source.startswith("va:"):
            dst[:] = record_vas[col.source[3:]].astype("<u8").view(np.uint8).reshape(n, VA_BYTES)
        else:
            assert col.field is not None
            f = col.field
            if col.source == "secondary":
                assert secondary is not None
                dst[:] = secondary[:, f.offset:f.offset + t.size]
            elif col.source == "primary":
                dst[:] = primary[of_primary, f.offset:f.offset + t.size]
            else:  # program table: the slot's bytes, read once per distinct slot
                dst[:] = slot_matrix[slot_of_sequence, f.offset:f.offset + t.size]
    lay = CommandsLayout(layout.executable_class.value, b.ordered(), stride, tuple(block))
    vbs, ib = inherited_ia(lay.tokens, state, lay.action.type)
    columns = tuple(SequenceColumn(c.source, c.token.offset, c.token.size, c.field.offset if c.field else 0,
                                   c.constant) for c in b.columns)
    walk = None
    if len(ks) == len(first):  # every record of the list is this signature's: one walk generates them all
        sec = layout.secondary
        hybrid = sec is not None
        walk = DispatchListWalk(
            start, len(ks), p_stride, layout.primary.size, layout.primary.field("ProgramTableIndex").offset, hybrid,
            layout.primary.field("NumSecondaryRecords").offset if hybrid else 0,
            layout.primary.field("SecondaryRecords").offset if hybrid else 0,
            pcs.SecondaryRecordByteStride if hybrid else 0, sec.size if sec is not None else 0,
            table.StartAddress, table.StrideInBytes, slot_count, group.tail_size,
            tuple(objects.programs[p].Identifier for p in group.programs), columns)
    return Lowering(name, lay, group.programs, initial_push_constants(block, state, compute), seq, (),
                    tuple(b.pipeline_state), set_index, walk, positions=positions.astype(np.int64),
                    chunks=chunks_of(n, max_sequences), vertex_buffers=vbs, index_buffer=ib)


def _explicit_tail_tokens(b: LayoutBuilder, tail: RecordLayout) -> None:
    """Explicit local root signature path: every local root argument no record overrides comes from the program-table
    slot's tail (spec "Binding sources at record execution", local / static default): a push constant per run of
    bytes, at its parameter's place in the block, read from the slot of each sequence's program."""
    for f in tail.fields:
        if f.role != "local" or f.parameter is None:
            continue
        r = next(r for r in b.block if r.binding == "local" and r.parameter == f.parameter)
        offset = r.offset + 4 * (f.dword_offset or 0)
        b.add(TokenType.PUSH_CONSTANT, f.size, "table", field=f, push_offset=offset, push_size=f.size)


def _binding(arg: Any) -> str:
    return "local" if arg.binding_name == "LOCAL_ROOT_SIGNATURE" else "global"


def _work_list_tokens(b: LayoutBuilder, pcs: ProgramCommandSignature, layout: PCSLayout, sequence_index: bool,
                      one_execute: bool, lrs: RootSignature | None, tail: RecordLayout | None) -> None:
    args = pcs.pArgumentDescs
    local_slot_of = {i: slot for slot, indices in enumerate(inline_local_slots(list(args))) for i in indices}
    explicit_local = any(_binding(a) == "local" and a.type_name != "INLINE_ROOT_PARAMETER"
                         and a.type_name != "INLINE_STATIC_SAMPLER" for a in args)
    if explicit_local and lrs is None:  # rule 25(b): RootParameterIndex must index the local root signature
        b.not_lowered.append(NotLowered("signature", "per-record arguments bound to the local root signature of "
                                        "programs that have none (rule 25(b))"))
    if lrs is not None:
        for s, sampler in enumerate(lrs.pStaticSamplers):
            b.pipeline_state.append(f"{lrs.name} static sampler {s} (s{sampler.ShaderRegister} space"
                                    f"{sampler.RegisterSpace}): an immutable sampler in the execution set's pipeline "
                                    "layout (no token)")
    b.add(TokenType.EXECUTION_SET, 4, "execution_set")
    trigger: tuple[int, Any] | None = None
    for i, arg in enumerate(args):
        name, source = arg.type_name, source_of(arg)
        what = f"arg{i} {name}"
        if name in TRIGGERS:
            trigger = (i, arg)
        elif name in NOT_LOWERED:
            b.not_lowered.append(NotLowered(what, NOT_LOWERED[name], i))
        elif name == "INLINE_STATIC_SAMPLER":
            b.pipeline_state.append(f"{what}: an immutable sampler in the execution set's pipeline layout (no token)")
        elif name == "CONSTANT":
            c = arg.Constant
            b.push(i, _binding(arg), c.RootParameterIndex, c.DestOffsetIn32BitValues, 4 * c.Num32BitValuesToSet,
                   source, record_field(layout, i, source))
        elif name in ROOT_DESCRIPTORS or name == "DESCRIPTOR_TABLE":  # the VA, or the descriptor handle
            f = record_field(layout, i, source)
            b.push(i, _binding(arg), arg.root_parameter_index or 0, 0, f.size if f is not None else VA_BYTES, source, f)
        elif name == "INLINE_ROOT_PARAMETER":
            ip = arg.InlineRootParameter
            rp = ip.RootParameter
            f = record_field(layout, i, source)
            dword = ip.DestOffsetIn32BitValues if rp.parameter_type_name == "32BIT_CONSTANTS" else 0
            b.push(i, "local", local_slot_of[i], dword, f.size if f is not None else 0, source, f)
        elif name == "INCREMENTING_CONSTANT":
            ic = arg.IncrementingConstant
            # spec "Incrementing constant semantics": the reset flag acts on hybrid signatures only
            reset = ic.Flags & abi.enum_value("D3D12_INCREMENTING_CONSTANT_FLAGS", "RESET_PER_SECONDARY_LIST")
            b.incrementing_constant(i, _binding(arg), ic.RootParameterIndex, ic.DestOffsetIn32BitValues,
                                    per_list=bool(reset) and layout.secondary is not None, one_execute=one_execute)
        elif name in RECORD_POINTERS:
            b.push(i, _binding(arg), arg.root_parameter_index or 0, 0, VA_BYTES, f"va:{name}")
        elif name == "VERTEX_BUFFER_VIEW":
            b.add(TokenType.VERTEX_BUFFER, VBV_BYTES, source, arg=i, field=record_field(layout, i, source),
                  vertex_binding_unit=arg.VertexBuffer.Slot)
        elif name == "INDEX_BUFFER_VIEW":
            b.add(TokenType.INDEX_BUFFER, IBV_BYTES, source, arg=i, field=record_field(layout, i, source),
                  index_mode=index_mode())
        else:
            b.not_lowered.append(NotLowered(what, "argument type not known to this lowering", i))
    if lrs is not None and tail is not None:
        _explicit_tail_tokens(b, tail)
    b.finish(trigger, layout, sequence_index)
