"""CreateWorkListSignature and CreateWorkListSignatureArray.

Work list signature: NumProgramCommandSignatures >= 1, each PCS (CreateProgramCommandSignature rules), one executable
class per work list signature ("Uniformity constraint 4": a single list operates against records of one class),
exactly one PCS when raytracing-class ("Uniformity constraint 5"), at most one incrementing constant ("Incrementing
constant semantics"), rules 7-9 across its PCSes, ListValidationProgramTableIndex 0 at Tier 1.

Signature array: Tier 2 only, NumSignatures >= 1, rules 7-9 across the union of the PCSes of every signature
(spec "Uniformity constraints across program command signatures": validated at CreateWorkListSignatureArray).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ProgramCommandSignature, WorkListSignature, WorkListSignatureArray
from d3d12wl.model.state import DeviceCaps
from d3d12wl.rules._common import (
    ARRAY_KIND,
    PCS_KIND,
    WLS_KIND,
    Sink,
    Violation,
    decode_args,
    is_tier2,
    pcs_class,
)
from d3d12wl.rules.pcs import check_program_command_signature

_T = TypeVar("_T")


def _distinct(items: Sequence[_T]) -> list[_T]:
    seen: set[int] = set()
    out = []
    for item in items:
        if id(item) not in seen:
            seen.add(id(item))
            out.append(item)
    return out


def _binding_set(cls: ExecutableClass) -> str:
    """Graphics-class writes the graphics root binding state; compute- and raytracing-class the compute one."""
    return "graphics" if cls is ExecutableClass.GRAPHICS else "compute"


def updated_global_parameters(pcs: ProgramCommandSignature) -> frozenset[int]:
    """RootParameterIndex values of the global root signature this PCS updates (rule 8)."""
    args = decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name))
    return frozenset(rpi for a in args
                     if a.binding == "GLOBAL_ROOT_SIGNATURE" and (rpi := a.root_parameter_index) is not None)


def touched_ia(pcs: ProgramCommandSignature) -> tuple[frozenset[int], bool]:
    """(VB slots, IB present) of a graphics-class PCS (rule 9)."""
    args = decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name))
    vbs = frozenset(a.desc.VertexBuffer.Slot for a in args if a.type == "VERTEX_BUFFER_VIEW")
    return vbs, any(a.type == "INDEX_BUFFER_VIEW" for a in args)


def check_uniformity(sink: Sink, members: Sequence[tuple[str, ProgramCommandSignature]]) -> None:
    """Rules 7, 8 and 9 over the PCSes ``members`` (member path, PCS) used together in one DispatchList call."""
    grs_members = [(m, p, p.pGlobalRootSignature) for m, p in members if p.pGlobalRootSignature is not None]
    if grs_members:
        ref_member, ref, shared = grs_members[0]
        for member, pcs, grs in grs_members[1:]:
            if grs is not shared:
                sink.add("rule 7", f"program command signature {pcs.name!r} references global root signature "
                         f"{grs.name!r}, but the shared one (from {ref_member}, "
                         f"{ref.name!r}) is {shared.name!r}", member)
    first: dict[str, tuple[str, ProgramCommandSignature, frozenset[int]]] = {}
    first_ia: tuple[str, ProgramCommandSignature, tuple[frozenset[int], bool]] | None = None
    for member, pcs in members:
        cls = pcs_class(pcs)
        if cls is None:
            continue
        key = _binding_set(cls)
        params = updated_global_parameters(pcs)
        if key not in first:
            first[key] = (member, pcs, params)
        elif params != first[key][2]:
            ref_member, ref, ref_params = first[key]
            sink.add("rule 8", f"{key}-binding-set program command signatures must update the same global root "
                     f"parameters: {pcs.name!r} updates {sorted(params)}, {ref.name!r} ({ref_member}) updates "
                     f"{sorted(ref_params)}", member)
        if cls is ExecutableClass.GRAPHICS:
            ia = touched_ia(pcs)
            if first_ia is None:
                first_ia = (member, pcs, ia)
            elif ia != first_ia[2]:
                ref_member, ref, (ref_vbs, ref_ib) = first_ia
                sink.add("rule 9", f"graphics-class program command signatures must touch the same IA slots: "
                         f"{pcs.name!r} touches VB slots {sorted(ia[0])}, IB {ia[1]}; {ref.name!r} ({ref_member}) "
                         f"touches VB slots {sorted(ref_vbs)}, IB {ref_ib}", member)


def _incrementing_constants(pcs: ProgramCommandSignature) -> int:
    args = decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name))
    return sum(1 for a in args if a.type == "INCREMENTING_CONSTANT")


def check_work_list_signature(wls: WorkListSignature, caps: DeviceCaps, *,
                              include_pcs: bool = True) -> list[Violation]:
    """Every violation CreateWorkListSignature would reject ``wls`` for (with ``include_pcs``, also those of each
    program command signature it holds)."""
    out: list[Violation] = []
    sink = Sink(WLS_KIND, wls.name, out)
    pcses = wls.pProgramCommandSignatures
    if not pcses:
        sink.add("D3D12_WORK_LIST_SIGNATURE_DESC", "NumProgramCommandSignatures must be at least 1",
                 "pProgramCommandSignatures")
    if include_pcs:
        for pcs in _distinct(pcses):
            out.extend(check_program_command_signature(pcs, caps))
    members = [(f"pProgramCommandSignatures[{i}]", pcs) for i, pcs in enumerate(pcses)]

    classes = [(m, p, pcs_class(p)) for m, p in members]
    known = [(m, p, c) for m, p, c in classes if c is not None]
    if known:
        ref_member, ref, ref_cls = known[0]
        for member, pcs, cls in known[1:]:
            if cls is not ref_cls:
                sink.add("Uniformity constraint 4", f"a work list signature holds program command signatures of one "
                         f"executable class: {pcs.name!r} is {cls.value}, {ref.name!r} ({ref_member}) is "
                         f"{ref_cls.value}", member)
    if any(c is ExecutableClass.RAYTRACING for _, _, c in classes) and len(pcses) != 1:
        sink.add("Uniformity constraint 5", f"a raytracing-class work list signature must contain exactly one program "
                 f"command signature (has {len(pcses)})", "pProgramCommandSignatures")

    with_counter = [(m, p) for m, p in members if _incrementing_constants(p) > 0]
    for member, pcs in with_counter[1:]:
        sink.add("Incrementing constant semantics", f"a work list signature can contain at most one incrementing "
                 f"constant; {pcs.name!r} has one and so has {with_counter[0][1].name!r} ({with_counter[0][0]})",
                 member)

    check_uniformity(sink, members)

    if wls.ListValidationProgramTableIndex != 0 and not is_tier2(caps):
        sink.add("D3D12_WORK_LIST_SIGNATURE_DESC", "ListValidationProgramTableIndex must be 0 at Tier 1",
                 "ListValidationProgramTableIndex")
    return out


def check_signature_array(arr: WorkListSignatureArray, caps: DeviceCaps, *,
                          include_members: bool = True) -> list[Violation]:
    """Every violation CreateWorkListSignatureArray would reject ``arr`` for (with ``include_members``, also those of
    each work list signature and program command signature it reaches).

    Rules 7-9 are checked across the union of the PCSes.  Each work list signature is already uniform within itself
    (CreateWorkListSignature), so the array compares one representative per work list signature and per binding set
    (its first PCS of each class and its first PCS with a global root signature) against the array's first: a
    violation inside one work list signature is reported there, once, not again here.
    """
    out: list[Violation] = []
    sink = Sink(ARRAY_KIND, arr.name, out)
    if not is_tier2(caps):
        sink.add("CreateWorkListSignatureArray", "work list signature arrays are Tier 2 only")
    if not arr.pSignatures:
        sink.add("D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC", "NumSignatures must be at least 1", "pSignatures")
    if include_members:
        for wls in _distinct(arr.pSignatures):
            out.extend(check_work_list_signature(wls, caps))
    members: list[tuple[str, ProgramCommandSignature]] = []
    for i, wls in enumerate(arr.pSignatures):
        seen_sets: set[str] = set()
        seen_grs = False
        for j, pcs in enumerate(wls.pProgramCommandSignatures):
            cls = pcs_class(pcs)
            keys = set()
            if cls is not None and _binding_set(cls) not in seen_sets:
                keys.add(_binding_set(cls))
            if keys or (not seen_grs and pcs.pGlobalRootSignature is not None):
                members.append((f"pSignatures[{i}].pProgramCommandSignatures[{j}]", pcs))
                seen_sets |= keys
                seen_grs = seen_grs or pcs.pGlobalRootSignature is not None
    check_uniformity(sink, members)
    return out
