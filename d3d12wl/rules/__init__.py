"""Creation-time validation: every rule the specs say is checked when an object is created or bound.

Every entry point returns the list of ALL violations (a :class:`Violation` names the rule or section, the object,
the argument index and the member path); :func:`validate` raises :class:`~d3d12wl.rules.ValidationError` with all
of them.

==========================================  ==========================================================================
entry point                                 spec point
==========================================  ==========================================================================
:func:`check_program_command_signature`     CreateProgramCommandSignature
:func:`check_work_list_signature`           CreateWorkListSignature
:func:`check_signature_array`               CreateWorkListSignatureArray
:func:`check_programs`                      state-object creation (program <-> PCS / root signature associations)
:func:`check_set_program`                   SetProgram (debug layer)
:func:`check_command_signature`             CreateCommandSignature (ExecuteIndirect, IndirectDrawing.md "Validation")
:func:`check_objects`                       all of the above over an ObjectSet (SetProgram excepted)
==========================================  ==========================================================================

Rules (numbering of design.md) checked here: 1 (association present), 2, 3, 4 (as far as the model states program
kinds), 6 (known programs against a bound stride, at SetProgram), 7, 8, 9, 16, 17, 21, 22, 23(a)-(f), 24(a)-(c),
25(a)-(d), 25(e) for SecondaryRecordByteStride, 26, 27, and the sections named in :mod:`d3d12wl.rules.pcs`.

Execution-time rules, which belong to the executor (they depend on GPU memory or on what actually executes):
1 (for invoked raytracing shaders), 5 (SubobjectMask adherence of the programs present in a table), 6 (against the
program identifiers actually present in the table), 10-13 (continuation chains and per-call bounds), 14 and 18 (bound
tables / raytracing bindings immutable while in flight), 19 (invoked raytracing shaders' global root signature),
20 (each selected RTPSO binding satisfies 1, 18, 19), 25(e) for ProgramInputs.StrideInBytes (per dispatch), 28
(producer writes published; undiagnosable).  Rule 15 states where raytracing local root arguments live; its checkable
consequence is rule 21.
"""

from __future__ import annotations

from d3d12wl.model.argtypes import (
    ROLE_DATA,
    ROLE_PRIMARY_LIST_VALIDATOR,
    ROLE_SECONDARY_LIST_VALIDATOR,
    ROLE_SIGNATURE_SELECTION_VALIDATOR,
)
from d3d12wl.model.objects import ObjectSet, ProgramCommandSignature
from d3d12wl.model.state import DeviceCaps
from d3d12wl.rules._common import DEVICE_KIND, Sink, ValidationError, Violation, decode_args, decoding_once, tier1
from d3d12wl.rules.execute_indirect import check_command_signature
from d3d12wl.rules.pcs import check_program_command_signature
from d3d12wl.rules.programs import check_programs
from d3d12wl.rules.setprogram import check_set_program
from d3d12wl.rules.signatures import check_signature_array, check_work_list_signature

__all__ = [
    "Sink",
    "ValidationError",
    "Violation",
    "check_command_signature",
    "check_objects",
    "check_program_command_signature",
    "check_programs",
    "check_set_program",
    "check_signature_array",
    "check_work_list_signature",
    "infer_role",
    "validate",
]

_VALIDATOR_ROLES = (ROLE_PRIMARY_LIST_VALIDATOR, ROLE_SECONDARY_LIST_VALIDATOR, ROLE_SIGNATURE_SELECTION_VALIDATOR)


def infer_role(pcs: ProgramCommandSignature) -> str:
    """The role of a PCS that no work list signature holds: ``data`` unless it declares a validator-only pointer arg,
    then the first validator role whose availability covers all its pointer args (or ``data`` if none does, so the
    availability violation is reported against the data role).  Validator program command signatures are never
    members of a work list signature (spec "Binding the validation program table")."""
    args = decode_args(pcs.pArgumentDescs, Sink("program_command_signatures", pcs.name))
    pointer_roles = [a.info.roles for a in args if a.info is not None and a.info.system_pointer]
    if all(ROLE_DATA in roles for roles in pointer_roles):
        return ROLE_DATA
    for role in _VALIDATOR_ROLES:
        if all(role in roles for roles in pointer_roles):
            return role
    return ROLE_DATA


def check_objects(objects: ObjectSet, caps: DeviceCaps, roles: dict[str, str] | None = None) -> list[Violation]:
    """Every creation-time violation in ``objects`` on a device with ``caps``, each reported once.

    ``roles`` maps PCS names to their role (``argtypes.ROLE_*``); a PCS held by a work list signature is a data PCS,
    any other takes its role from ``roles`` or :func:`infer_role`.
    """
    with decoding_once():
        return _check_objects(objects, caps, roles)


def _check_objects(objects: ObjectSet, caps: DeviceCaps, roles: dict[str, str] | None) -> list[Violation]:
    out: list[Violation] = []
    if caps.Tier < tier1():
        Sink(DEVICE_KIND, "caps", out).add("D3D12_WORK_LISTS_TIER", "the device does not support Work Lists (Tier "
                                           "NOT_SUPPORTED): every Work Lists object creation fails", "Tier")
    members = {id(p) for w in objects.work_list_signatures.values() for p in w.pProgramCommandSignatures}
    reached: dict[int, ProgramCommandSignature] = {}
    for pcs in objects.program_command_signatures.values():
        reached[id(pcs)] = pcs
    for wls in objects.work_list_signatures.values():
        for pcs in wls.pProgramCommandSignatures:
            reached.setdefault(id(pcs), pcs)
    for pcs in reached.values():
        role = ROLE_DATA if id(pcs) in members else (roles or {}).get(pcs.name) or infer_role(pcs)
        out.extend(check_program_command_signature(pcs, caps, role))
    for wls in objects.work_list_signatures.values():
        out.extend(check_work_list_signature(wls, caps, include_pcs=False))
    for arr in objects.work_list_signature_arrays.values():
        out.extend(check_signature_array(arr, caps, include_members=False))
    for cs in objects.command_signatures.values():
        out.extend(check_command_signature(cs))
    out.extend(check_programs(objects))
    return out


def validate(objects: ObjectSet, caps: DeviceCaps, roles: dict[str, str] | None = None) -> None:
    """Raise :class:`ValidationError` carrying every violation in ``objects``; return None if there is none."""
    violations = check_objects(objects, caps, roles)
    if violations:
        raise ValidationError(violations)
