"""SetProgram (command-list recording; the debug layer reports these): rule 16 (a raytracing binding needs
DispatchRaysSupported), rule 17 (binding Type matches the signature's class), the bind path vs tier ("Binding via
SetProgram": the array bind is Tier 2 only), the member rules of ``D3D12_SET_WORK_LIST_DESC1``,
``D3D12_WORK_LIST_BINDING`` and ``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING``, and rule 6 as far as the CPU can decide it
(every known program associated with the signature fits a non-zero program-table stride)."""

from __future__ import annotations

from d3d12wl import abi
from d3d12wl.errors import D3D12WLError
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet, WorkListSignature
from d3d12wl.model.state import DeviceCaps, ProgramTableBinding, SetProgramDesc, WorkListBinding
from d3d12wl.records.layout import WL_ALIGN, program_table_layout
from d3d12wl.rules._common import (
    SET_PROGRAM_KIND,
    Sink,
    Violation,
    enum_value,
    is_tier2,
    pcs_class,
    short_name,
    tier1,
)


def _signature_class(wls: WorkListSignature) -> ExecutableClass | None:
    classes = {pcs_class(p) for p in wls.pProgramCommandSignatures} - {None}
    return classes.pop() if len(classes) == 1 else None


def check_program_table_binding(sink: Sink, table: ProgramTableBinding, member: str) -> None:
    """``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING`` member rules."""
    rule = "D3D12_WORK_LIST_PROGRAM_TABLE_BINDING"
    t = table.Table
    identifier = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
    max_stride = abi.constant("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE")
    if t.StartAddress % WL_ALIGN:
        sink.add(rule, f"Table.StartAddress 0x{t.StartAddress:x} must be {WL_ALIGN}-byte aligned",
                 f"{member}.Table.StartAddress")
    stride = t.StrideInBytes
    if stride != 0:
        if stride < identifier or stride > max_stride or stride % WL_ALIGN:
            sink.add(rule, f"Table.StrideInBytes {stride} must be 0 or in [{identifier}, {max_stride}] "
                     f"(D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE) and a multiple of {WL_ALIGN}",
                     f"{member}.Table.StrideInBytes")
        if t.SizeInBytes < table.SlotCount * stride:
            sink.add(rule, f"Table.SizeInBytes {t.SizeInBytes} is below SlotCount * StrideInBytes = "
                     f"{table.SlotCount * stride}", f"{member}.Table.SizeInBytes")
    elif t.SizeInBytes < identifier:
        sink.add(rule, f"Table.SizeInBytes {t.SizeInBytes} cannot hold the broadcast record (at least the "
                 f"{identifier}-byte program identifier)", f"{member}.Table.SizeInBytes")


def _check_binding(sink: Sink, binding: WorkListBinding, wls: WorkListSignature | None, member: str,
                   caps: DeviceCaps, objects: ObjectSet | None) -> None:
    kind = short_name("D3D12_WORK_LIST_BINDING_TYPE", binding.Type)
    if kind is None:
        sink.add("D3D12_WORK_LIST_BINDING_TYPE", f"Type {binding.Type} is not a D3D12_WORK_LIST_BINDING_TYPE value",
                 f"{member}.Type")
        return
    cls = _signature_class(wls) if wls is not None else None
    if wls is not None and cls is not None:
        want = "RAYTRACING" if cls is ExecutableClass.RAYTRACING else "PROGRAM_TABLE"
        if kind != want:
            sink.add("rule 17", f"binding Type {kind} does not match the {cls.value.lower()}-class signature "
                     f"{wls.name!r} (needs {want})", f"{member}.Type")
    if kind == "RAYTRACING":
        if not caps.DispatchRaysSupported:
            sink.add("rule 16", "a RAYTRACING binding requires D3D12_FEATURE_DATA_WORK_LISTS::DispatchRaysSupported",
                     f"{member}.Type")
        if binding.pRaytracing is None:
            sink.add("D3D12_WORK_LIST_BINDING", "pRaytracing must be non-null when Type is RAYTRACING",
                     f"{member}.pRaytracing")
        return
    check_program_table_binding(sink, binding.ProgramTable, f"{member}.ProgramTable")
    stride = binding.ProgramTable.Table.StrideInBytes
    if objects is None or wls is None or stride == 0:
        return
    members = {id(p) for p in wls.pProgramCommandSignatures}
    for program in objects.programs.values():
        if program.ProgramCommandSignature is None or id(program.ProgramCommandSignature) not in members:
            continue
        try:
            record = program_table_layout(program)
        except D3D12WLError:
            continue  # the PCS or program is malformed; reported by the creation-time checks
        if record is not None and record.size > stride:
            sink.add("rule 6", f"program {program.name!r} needs {record.size} bytes per program-table slot (32-byte "
                     f"identifier + {record.tail_size}-byte local root argument tail), above Table.StrideInBytes "
                     f"{stride}", f"{member}.ProgramTable.Table.StrideInBytes")


def check_set_program(desc: SetProgramDesc, caps: DeviceCaps, objects: ObjectSet | None = None) -> list[Violation]:
    """Every violation the debug layer reports for ``SetProgram(desc)`` on a device with ``caps``.  With
    ``objects``, rule 6 is also checked for every program of ``objects`` associated with a bound signature."""
    sink = Sink(SET_PROGRAM_KIND, "desc")
    ptype = short_name("D3D12_PROGRAM_TYPE", desc.Type)
    if caps.Tier < tier1():
        sink.add("D3D12_WORK_LISTS_TIER", "the device does not support Work Lists (Tier NOT_SUPPORTED)")
    if ptype == "WORK_LIST":
        wl = desc.WorkList
        if wl.pSignature is None:
            sink.add("D3D12_SET_WORK_LIST_DESC", "pSignature must be non-null", "WorkList.pSignature")
        _check_binding(sink, wl.Binding, wl.pSignature, "WorkList.Binding", caps, objects)
    elif ptype == "WORK_LIST1":
        wl1 = desc.WorkList1
        if not is_tier2(caps):
            sink.add("Binding via SetProgram", "the array bind path (D3D12_PROGRAM_TYPE_WORK_LIST1) is Tier 2 only",
                     "Type")
        arr = wl1.pSignatureArray
        if arr is None:
            sink.add("D3D12_SET_WORK_LIST_DESC1", "pSignatureArray must be non-null", "WorkList1.pSignatureArray")
            signatures = []
        else:
            signatures = arr.pSignatures
            if len(wl1.pBindings) != len(signatures):
                sink.add("D3D12_SET_WORK_LIST_DESC1", f"NumBindings ({len(wl1.pBindings)}) must equal "
                         f"pSignatureArray->NumSignatures ({len(signatures)})", "WorkList1.pBindings")
        for i, binding in enumerate(wl1.pBindings):
            _check_binding(sink, binding, signatures[i] if i < len(signatures) else None,
                           f"WorkList1.pBindings[{i}]", caps, objects)
        vpt = wl1.ValidationProgramTable
        if vpt.Table.StartAddress == 0:
            if vpt.Table.StrideInBytes or vpt.SlotCount:
                sink.add("D3D12_SET_WORK_LIST_DESC1", "ValidationProgramTable.Table.StartAddress is 0 (no validation), "
                         "so Table.StrideInBytes and SlotCount must be 0 too", "WorkList1.ValidationProgramTable")
        else:
            check_program_table_binding(sink, vpt, "WorkList1.ValidationProgramTable")
    else:
        sink.add("D3D12_PROGRAM_TYPE", f"Type {desc.Type} is not a Work Lists program type (WORK_LIST = "
                 f"{enum_value('D3D12_PROGRAM_TYPE', 'D3D12_PROGRAM_TYPE_WORK_LIST')} or WORK_LIST1 = "
                 f"{enum_value('D3D12_PROGRAM_TYPE', 'D3D12_PROGRAM_TYPE_WORK_LIST1')})", "Type")
    return sink.out
