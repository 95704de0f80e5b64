"""GPU Timeline Validation Hooks (spec "GPU Timeline Validation Hooks"): a validator runner for the executor.

Validator programs are Python callables registered by their 32-byte program identifier.  The bound
``D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable`` holds identifiers exactly as a program table does (spec
"Validation program table"; slot 0 is the "no validator" sentinel); a validation index field selects a slot, the
slot's identifier selects the registered callable, and the validator's program command signature (given at
registration, or the one the state object associates with the identifier) declares which system pointer args it
is bound (spec "System-generated validator pointer arg types") and its grid (a ``_FIXED_DISPATCH`` arg, spec
"Binding the validation program table").  A validator reads and writes the same :class:`~d3d12wl.capture.memory.GpuMemory`
as the executor, so it neutralizes a list or record by writing through its pointers (spec "Validator defensive
neutralization patterns"; the regions it writes must be mapped writable).

::

    runner = ValidationRunner([Validator(ident, zero_bad_lists, "PrimaryListCheck", pcs=validator_pcs(...))])
    trace = execute(capture, hooks=runner)
    trace.validator_invocations          # each dispatch: area, step, list, slot, the pointer values it got

The executor calls the runner only on the array-bind path with a non-null ``ValidationProgramTable``; the runner
checks that again itself, so the direct-bind path runs no validators whatever the index fields say (spec "Binding
the validation program table").  Per list, in the spec's order ("Validator invocation order and barriers"):

1. :meth:`ValidationRunner.signature_selection`: ``SignatureSelectionValidationProgramTableIndex`` != 0 ->
   the signature-selection validator with ``DISPATCH_LIST_HEADER_POINTER`` (steps 2-3, the barrier, header
   re-read and selection, are the executor's);
4. :meth:`ValidationRunner.primary_list`: the selected signature's ``ListValidationProgramTableIndex`` != 0 ->
   the primary-list validator with ``DISPATCH_LIST_HEADER_POINTER``, ``PROGRAM_TABLE_POINTER`` (null for a
   raytracing-class list, which has no program table) and ``PRIMARY_LIST_POINTER`` (steps 5-6 are the executor's);
7. :meth:`ValidationRunner.secondary_lists`: for each primary record whose PCS has a non-zero
   ``RecordValidationProgramTableIndex`` (raytracing-class: hybrid records only), the secondary-list validator with
   ``PRIMARY_RECORD_POINTER`` and ``SECONDARY_LIST_POINTER`` (null for a fully-inline record).  The records are
   all examined first and the validators then dispatched, as the spec's "all primary records in parallel" has it
   (steps 8-10, barrier, re-reads and record processing, are the executor's).

Validators are Python, so a capture cannot carry them: :func:`load_validators` builds a runner from
``module:attr`` / ``path/to/file.py:attr`` specs (what ``d3d12wl exec --validators`` and ``d3d12wl dump
--validators`` take); ``d3d12wl/examples/validators.py`` is a worked example.

A slot index >= the table's SlotCount, an identifier of no registered validator, a validator without a program
command signature or without a grid is a finding and no dispatch; a declared pointer arg the area does not bind is
a finding and the arg is bound null; a fault while a validator reads or writes is a ``validator-fault`` finding.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from d3d12wl import abi, inputs
from d3d12wl.capture.memory import VA_LIMIT, GpuMemory
from d3d12wl.errors import ExecutionError, LayoutError, MemoryAccessError, ValidatorSpecError
from d3d12wl.executor.context import Loc
from d3d12wl.executor.list_run import ListRun
from d3d12wl.executor.trace import ValidatorInvocation
from d3d12wl.model.argtypes import (
    ROLE_PRIMARY_LIST_VALIDATOR,
    ROLE_SECONDARY_LIST_VALIDATOR,
    ROLE_SIGNATURE_SELECTION_VALIDATOR,
    ExecutableClass,
    arg_type_info,
)
from d3d12wl.model.objects import (
    FixedDispatchArg,
    ProgramCommandSignature,
    RecordKind,
    RootParameter1,
    RootParameterIndexArg,
    RootSignature,
    WorkListArgumentDesc,
)
from d3d12wl.model.state import SetWorkListDesc1

__all__ = [
    "AREAS",
    "AREA_PRIMARY_LIST",
    "AREA_SECONDARY_LIST",
    "AREA_SIGNATURE_SELECTION",
    "AREA_POINTERS",
    "ValidationRunner",
    "Validator",
    "ValidatorCall",
    "ValidatorFn",
    "load_validators",
    "validation_program_table",
    "validator_pcs",
]

AREA_SIGNATURE_SELECTION = "signature-selection"
AREA_PRIMARY_LIST = "primary-list"
AREA_SECONDARY_LIST = "secondary-list"
AREAS = (AREA_SIGNATURE_SELECTION, AREA_PRIMARY_LIST, AREA_SECONDARY_LIST)

#: The spec's step number of each area's dispatch ("Validator invocation order and barriers").
_STEP = {AREA_SIGNATURE_SELECTION: 1, AREA_PRIMARY_LIST: 4, AREA_SECONDARY_LIST: 7}
#: The argtypes role of each area (pointer-arg availability lives in one place: ``argtypes``).
_ROLE = {AREA_SIGNATURE_SELECTION: ROLE_SIGNATURE_SELECTION_VALIDATOR, AREA_PRIMARY_LIST: ROLE_PRIMARY_LIST_VALIDATOR,
         AREA_SECONDARY_LIST: ROLE_SECONDARY_LIST_VALIDATOR}
#: The index field that designates each area's validator (for finding texts).
_INDEX_FIELD = {
    AREA_SIGNATURE_SELECTION: "D3D12_SET_WORK_LIST_DESC1::SignatureSelectionValidationProgramTableIndex",
    AREA_PRIMARY_LIST: "D3D12_WORK_LIST_SIGNATURE_DESC::ListValidationProgramTableIndex",
    AREA_SECONDARY_LIST: "D3D12_PROGRAM_COMMAND_SIGNATURE_DESC::RecordValidationProgramTableIndex",
}
#: The system pointer args each area binds (spec "System-generated validator pointer arg types", the table).
AREA_POINTERS: dict[str, tuple[str, ...]] = {
    area: tuple(name for name in ("DISPATCH_LIST_HEADER_POINTER", "PROGRAM_TABLE_POINTER", "PRIMARY_LIST_POINTER",
                                  "PRIMARY_RECORD_POINTER", "SECONDARY_LIST_POINTER", "SECONDARY_RECORD_POINTER")
                if _ROLE[area] in arg_type_info(name).roles)
    for area in AREAS
}

_IDENTIFIER = "D3D12_PROGRAM_IDENTIFIER"
_TABLE_SECTION = "Validation program table"
_POINTER_SECTION = "System-generated validator pointer arg types"


@dataclass
class ValidatorCall:
    """What one validator dispatch sees.

    ``pointers``: the system pointer values by arg type short name, for the pointer args its PCS declares (None
    = null); ``root_arguments``: the same values by the validator's RootParameterIndex (where the implementation
    binds them).  ``grid``: the ``_FIXED_DISPATCH`` grid.  ``slot_va``: its validation-program-table slot (local
    root arguments follow the 32-byte identifier).  ``tracking``: what the spec says the debug layer delivers
    through additional bindings from its own tracking structures (``NumBindings``, the selected binding and
    signature, the record's PCS and layout, the list's position in the chain), since the pointers alone do not
    give it."""

    memory: GpuMemory
    area: str
    pointers: dict[str, int | None]
    root_arguments: dict[int, int | None]
    grid: tuple[int, int, int]
    slot_va: int
    tracking: Mapping[str, Any] = field(default_factory=dict)

    def pointer(self, name: str) -> int | None:
        """The value bound for pointer arg type ``name`` (``"PRIMARY_RECORD_POINTER"``); None if null or not
        declared."""
        return self.pointers.get(name)


#: A validator program: called once per dispatch, reads and writes ``call.memory``.
ValidatorFn = Callable[[ValidatorCall], None]


@dataclass
class Validator:
    """A validator program: its identifier (what a validation-program-table slot holds), the callable, a name for
    traces, and its program command signature (None: the one ``objects.programs`` associates with the
    identifier)."""

    identifier: bytes
    fn: ValidatorFn
    name: str = ""
    pcs: ProgramCommandSignature | None = None


# --------------------------------------------------------------------------------------------------------------
# Authoring helpers
# --------------------------------------------------------------------------------------------------------------


def validator_pcs(name: str, area: str, pointers: Sequence[str] | None = None,
                  grid: tuple[int, int, int] = (1, 1, 1)) -> ProgramCommandSignature:
    """A validator program command signature as the debug layer creates it: one ``SOURCE_SYSTEM`` /
    ``GLOBAL_ROOT_SIGNATURE`` arg per pointer (root parameters 0, 1, ... of a global root signature of UAV root
    descriptors, so the validator can write back) and a ``_FIXED_DISPATCH`` grid (``Source == _STATIC``).
    ``pointers`` defaults to every pointer the area binds (:data:`AREA_POINTERS`)."""
    if area not in _ROLE:
        raise ExecutionError(f"unknown validator area {area!r}; expected one of {', '.join(AREAS)}")
    names = list(AREA_POINTERS[area] if pointers is None else pointers)
    uav = abi.enum_value("D3D12_ROOT_PARAMETER_TYPE", "UAV")
    params = []
    for i in range(len(names)):
        p = RootParameter1(ParameterType=uav)
        p.Descriptor.ShaderRegister = i
        params.append(p)
    grs = RootSignature(f"{name}_GRS", params)
    system = abi.enum_value("D3D12_INDIRECT_ARGUMENT_SOURCE", "SYSTEM")
    static = abi.enum_value("D3D12_INDIRECT_ARGUMENT_SOURCE", "STATIC")
    glob = abi.enum_value("D3D12_INDIRECT_ARGUMENT_BINDING", "GLOBAL_ROOT_SIGNATURE")
    args = []
    for i, pointer in enumerate(names):
        a = WorkListArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", pointer), Source=system,
                                 Binding=glob)
        member = arg_type_info(pointer).union_member
        assert member is not None
        setattr(a, member, RootParameterIndexArg(i))
        args.append(a)
    args.append(WorkListArgumentDesc(Type=abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "FIXED_DISPATCH"),
                                     Source=static, Binding=glob, FixedDispatch=FixedDispatchArg(*grid)))
    return ProgramCommandSignature(name, args, pGlobalRootSignature=grs)


def validation_program_table(identifiers: Sequence[bytes | None], stride: int | None = None) -> bytes:
    """The bytes of a validation program table: slot i holds ``identifiers[i]`` (None: zero bytes, e.g. the
    reserved slot 0), each slot ``stride`` bytes (default: one identifier; else identifier + zero local-root
    tail)."""
    size = abi.sizeof(_IDENTIFIER)
    stride = size if stride is None else stride
    if stride < size:
        raise ExecutionError(f"validation program table stride {stride} < {size} (one D3D12_PROGRAM_IDENTIFIER)")
    out = bytearray()
    for ident in identifiers:
        raw = bytes(size) if ident is None else bytes(ident)
        if len(raw) != size:
            raise ExecutionError(f"a program identifier is {size} bytes, got {len(raw)}")
        out += raw + bytes(stride - size)
    return bytes(out)


# --------------------------------------------------------------------------------------------------------------
# The runner
# --------------------------------------------------------------------------------------------------------------


@dataclass
class _Pending:
    """A secondary-list dispatch decided at step 7, before any of the step's validators runs."""

    index: int
    primary_index: int
    pointers: dict[str, int | None]
    tracking: dict[str, Any]


class ValidationRunner:
    """Runs registered validators at the executor's hook points (implements
    :class:`d3d12wl.executor.ValidationHooks`).  Invocations are appended to ``trace.validator_invocations``."""

    def __init__(self, validators: Iterable[Validator] = ()) -> None:
        self.validators: dict[bytes, Validator] = {}
        for v in validators:
            self.register(v)

    def register(self, validator: Validator) -> Validator:
        ident = bytes(validator.identifier)
        size = abi.sizeof(_IDENTIFIER)
        if len(ident) != size:
            raise ExecutionError(f"validator {validator.name!r}: identifier is {len(ident)} bytes, not {size}")
        if ident in self.validators:
            raise ExecutionError(f"validator {validator.name!r}: identifier {ident.hex()[:16]}... is already "
                                 f"registered to {self.validators[ident].name!r}")
        self.validators[ident] = validator
        return validator

    # -- the three hook points ----------------------------------------------------------------------------------

    def signature_selection(self, run: ListRun) -> bool:
        """Step 1: before SignatureIndex is read for selection; only the header pointer exists yet."""
        desc = _active_desc(run)
        if desc is None or desc.SignatureSelectionValidationProgramTableIndex == 0:
            return False
        tracking = {"NumBindings": len(desc.pBindings), "list_index": run.index}
        return self._dispatch(run, desc, AREA_SIGNATURE_SELECTION, desc.SignatureSelectionValidationProgramTableIndex,
                              {"DISPATCH_LIST_HEADER_POINTER": run.va}, tracking)

    def primary_list(self, run: ListRun) -> bool:
        """Step 4: the selected signature's primary-list validator."""
        desc = _active_desc(run)
        sel = run.selection
        if desc is None or sel is None or sel.signature.ListValidationProgramTableIndex == 0:
            return False
        table = None if sel.executable_class is ExecutableClass.RAYTRACING else sel.binding.ProgramTable
        pointers = {"DISPATCH_LIST_HEADER_POINTER": run.va,
                    "PROGRAM_TABLE_POINTER": table.Table.StartAddress if table is not None else None,
                    "PRIMARY_LIST_POINTER": run.header["ProgramInputs"]["StartAddress"]}
        tracking = {"NumBindings": len(desc.pBindings), "list_index": run.index,
                    "SignatureIndex": sel.signature_index, "signature": sel.signature, "binding": sel.binding,
                    "executable_class": sel.executable_class.value}
        return self._dispatch(run, desc, AREA_PRIMARY_LIST, sel.signature.ListValidationProgramTableIndex, pointers,
                              tracking)

    def secondary_lists(self, run: ListRun) -> bool:
        """Step 7: one secondary-list validator dispatch per primary record whose PCS designates one."""
        desc = _active_desc(run)
        if desc is None or run.selection is None:
            return False
        pending = list(self._secondary_dispatches(run))
        dispatched = False
        for p in pending:
            dispatched |= self._dispatch(run, desc, AREA_SECONDARY_LIST, p.index, p.pointers, p.tracking,
                                         primary_index=p.primary_index)
        return dispatched

    # -- step 7: which primary records get a validator ----------------------------------------------------------

    def _secondary_dispatches(self, run: ListRun) -> Iterable[_Pending]:
        """The primary records of the list (as the header stands after step 6) whose PCS has a non-zero
        RecordValidationProgramTableIndex.  A record whose PCS cannot be determined gets no validator; the record
        walk (step 10) reports it."""
        ctx, sel = run.ctx, run.selection
        assert sel is not None
        n = run.header["NumProgramInputs"]
        start = run.header["ProgramInputs"]["StartAddress"]
        stride = run.header["ProgramInputs"]["StrideInBytes"]
        if n == 0 or start % 8 or stride % 8:
            return
        for i in range(min(n, ctx.limits.max_primary_records)):
            va = start + i * stride
            if va + 4 > VA_LIMIT:
                return
            # the pre-pass reads records too: it counts toward the call's limits (a hooked list with
            # NumProgramInputs 0xFFFFFFFF would otherwise walk max_primary_records records outside every limit)
            ctx.count_record(Loc(list_index=run.index, primary_index=i), va)
            pcs = self._record_pcs(run, va)
            if pcs is None or pcs.RecordValidationProgramTableIndex == 0:
                continue
            try:
                layout = ctx.layouts.pcs(pcs)
            except LayoutError:
                continue
            hybrid = layout.record_kind is RecordKind.HYBRID
            if sel.executable_class is ExecutableClass.RAYTRACING and not hybrid:
                continue  # fires only for raytracing-class hybrid records (rule 27)
            if stride < layout.primary.min_stride:
                continue  # rule 25(e): the walk reports it and does not execute the record
            secondary: int | None = None
            if hybrid:
                secondary = _read_u64(ctx.memory, va + layout.primary.field("SecondaryRecords").offset)
                if secondary is None:
                    continue
            yield _Pending(pcs.RecordValidationProgramTableIndex, i,
                           {"PRIMARY_RECORD_POINTER": va, "SECONDARY_LIST_POINTER": secondary},
                           {"list_index": run.index, "primary_index": i, "pcs": pcs, "layout": layout,
                            "record_kind": layout.record_kind.value,
                            "SecondaryRecordByteStride": pcs.SecondaryRecordByteStride})

    def _record_pcs(self, run: ListRun, va: int) -> ProgramCommandSignature | None:
        """The PCS a primary record selects: the single RTPSO-bound one for raytracing-class, otherwise
        ProgramTableIndex (offset 0) -> program-table slot -> identifier -> program -> its PCS (rule 1)."""
        ctx, sel = run.ctx, run.selection
        assert sel is not None
        if sel.executable_class is ExecutableClass.RAYTRACING:
            return sel.signature.pProgramCommandSignatures[0] if sel.signature.pProgramCommandSignatures else None
        pt_index = _read_u32(ctx.memory, va)
        pt = sel.binding.ProgramTable
        if pt_index is None or pt_index >= pt.SlotCount:
            return None
        slot_va = pt.Table.StartAddress + pt_index * pt.Table.StrideInBytes
        ident = _read(ctx.memory, slot_va, abi.sizeof(_IDENTIFIER))
        program = ctx.program_by_identifier(ident) if ident is not None else None
        pcs = program.ProgramCommandSignature if program is not None else None
        return pcs if pcs is not None and id(pcs) in sel.members else None

    # -- one dispatch -------------------------------------------------------------------------------------------

    def _dispatch(self, run: ListRun, desc: SetWorkListDesc1, area: str, index: int,
                  available: dict[str, int | None], tracking: dict[str, Any], primary_index: int | None = None) -> bool:
        """Look up validation-program-table slot ``index``, bind the validator's declared pointers and call it.
        True if it was dispatched."""
        ctx = run.ctx
        loc = Loc(list_index=run.index, primary_index=primary_index)
        vt = desc.ValidationProgramTable
        if index >= vt.SlotCount:
            ctx.finding("validator-index-out-of-range", _TABLE_SECTION,
                        f"{_INDEX_FIELD[area]} {index} >= ValidationProgramTable.SlotCount {vt.SlotCount}: no "
                        f"{area} validator dispatched", loc=loc, key=(run.index, area, index))
            return False
        size = abi.sizeof(_IDENTIFIER)
        slot_va = ctx.record_address(vt.Table.StartAddress, index, vt.Table.StrideInBytes, size,
                                     "validation program table slot", _TABLE_SECTION, loc)
        if slot_va is None:
            return False
        ident = ctx.read(slot_va, size, f"validation program table slot {index} identifier", _TABLE_SECTION, loc)
        if ident is None:
            return False
        validator = self.validators.get(ident)
        if validator is None:
            ctx.finding("unknown-validator-identifier", _TABLE_SECTION,
                        f"validation program table slot {index} ({_INDEX_FIELD[area]}) holds identifier "
                        f"{ident.hex()[:16]}... of no registered validator: no {area} validator dispatched",
                        loc=loc, va=slot_va, key=(run.index, area, index))
            return False
        name = validator.name or ident.hex()[:16]
        pcs = validator.pcs
        if pcs is None:
            program = ctx.program_by_identifier(ident)
            pcs = program.ProgramCommandSignature if program is not None else None
        if pcs is None:
            ctx.finding("validator-without-signature", _TABLE_SECTION,
                        f"validator {name!r} (slot {index}) has no program command signature (give one at "
                        "registration or associate one with its program): not dispatched", loc=loc, va=slot_va,
                        key=("nosig", ident))
            return False
        grid = _grid(pcs)
        if grid is None:
            ctx.finding("validator-grid-missing", "Binding the validation program table",
                        f"validator {name!r} PCS {pcs.name!r} declares no _FIXED_DISPATCH grid: not dispatched",
                        loc=loc, va=slot_va, key=("grid", ident))
            return False
        pointers, roots = self._bind(run, area, pcs, name, available, loc)
        trace = ctx.trace
        trace.validator_invocations.append(ValidatorInvocation(
            sequence=len(trace.validator_invocations), area=area, step=_STEP[area], list_index=run.index, slot=index,
            slot_va=slot_va, identifier=ident.hex(), validator=name, primary_index=primary_index,
            pointers=dict(pointers), root_arguments=dict(roots), grid=list(grid),
            executions_before=len(trace.executions)))
        call = ValidatorCall(ctx.memory, area, pointers, roots, grid, slot_va, tracking)
        try:
            validator.fn(call)
        except MemoryAccessError as exc:
            ctx.finding("validator-fault", "Validator defensive neutralization patterns",
                        f"{area} validator {name!r}: {exc.message} (its later writes did not happen)", loc=loc,
                        va=exc.va)
        return True

    def _bind(self, run: ListRun, area: str, pcs: ProgramCommandSignature, name: str,
              available: dict[str, int | None], loc: Loc) -> tuple[dict[str, int | None], dict[int, int | None]]:
        """The pointer args the validator's PCS declares, bound from what the area has (spec "System-generated
        validator pointer arg types"); a pointer the area does not bind is a finding and is bound null."""
        pointers: dict[str, int | None] = {}
        roots: dict[int, int | None] = {}
        role = _ROLE[area]
        for i, a in enumerate(pcs.pArgumentDescs):
            type_name = abi.enum_short_name("D3D12_INDIRECT_ARGUMENT_TYPE", a.Type)
            info = arg_type_info(type_name)
            if not info.system_pointer:
                continue
            value = available.get(type_name)
            if role not in info.roles:
                value = None
                allowed = ", ".join(AREA_POINTERS[area])
                run.ctx.finding("validator-pointer-arg-unavailable", _POINTER_SECTION,
                                f"{area} validator {name!r} PCS {pcs.name!r} pArgumentDescs[{i}] declares {type_name}; "
                                f"a {area} validator is bound only {allowed}: bound null", loc=loc,
                                key=("ptr", pcs.name, i, area))
            pointers[type_name] = value
            assert info.union_member is not None
            roots[getattr(a, info.union_member).RootParameterIndex] = value
        return pointers, roots


# --------------------------------------------------------------------------------------------------------------
# Loading validators named on the command line
# --------------------------------------------------------------------------------------------------------------

_SPEC_FORMS = "module:attr or path/to/file.py:attr"
_WANTED = "a ValidationRunner, a Validator, an iterable of Validators or a zero-argument factory returning one"


def load_validators(specs: str | Iterable[str]) -> ValidationRunner:
    """One :class:`ValidationRunner` from validator specs, each ``module:attr`` (an importable module) or
    ``path/to/file.py:attr`` (a Python file, relative to the working directory; ``attr`` may be dotted).  The
    attribute is a :class:`ValidationRunner`, a :class:`Validator`, an iterable of :class:`Validator` or a
    zero-argument factory returning one of those.  A single spec naming a runner gives that runner itself (a
    subclass keeps its behaviour); otherwise the validators of every spec are registered, in order, with one new
    runner.

    Loading runs the module's code.  A missing module, file or attribute, a module that fails to import, a factory
    that raises, a value of the wrong type or an identifier registered twice is a :class:`ValidatorSpecError` whose
    ``where`` names the spec."""
    spec_list = [specs] if isinstance(specs, str) else list(specs)
    resolved = [(spec, _resolve_spec(spec)) for spec in spec_list]
    if len(resolved) == 1 and isinstance(resolved[0][1], ValidationRunner):
        return resolved[0][1]
    runner = ValidationRunner()
    for spec, value in resolved:
        for v in value.validators.values() if isinstance(value, ValidationRunner) else value:
            try:
                runner.register(v)
            except ExecutionError as exc:
                raise _spec_error(spec, exc.message) from None
    return runner


def _spec_error(spec: str, message: str) -> ValidatorSpecError:
    return ValidatorSpecError(message, where=f"validator spec {spec!r}")


def _resolve_spec(spec: str) -> ValidationRunner | list[Validator]:
    if not isinstance(spec, str) or ":" not in spec:
        raise _spec_error(str(spec), f"expected {_SPEC_FORMS}")
    target, attr = spec.rsplit(":", 1)  # rsplit: a Windows path keeps its drive letter
    if not target or not attr or not all(part.isidentifier() for part in attr.split(".")):
        raise _spec_error(spec, f"expected {_SPEC_FORMS} (attr a Python name, dotted for a nested one)")
    module = _load_file(spec, target) if _is_path(target) else _import_module(spec, target)
    value: Any = module
    for i, part in enumerate(attr.split(".")):
        if not hasattr(value, part):
            owner = module.__name__ if i == 0 else ".".join(attr.split(".")[:i])
            raise _spec_error(spec, f"{owner!r} has no attribute {part!r}")
        value = getattr(value, part)
    got = _as_validators(spec, attr, value)
    if got is None and callable(value):
        try:
            made = value()
        except (Exception, SystemExit) as exc:  # the factory is user code: any failure is the spec's
            raise _spec_error(spec, f"factory {attr}() raised {type(exc).__name__}: {exc}") from exc
        got = _as_validators(spec, f"{attr}()", made)
        if got is None:
            raise _spec_error(spec, f"factory {attr}() returned {type(made).__name__}, not {_WANTED}")
    if got is None:
        raise _spec_error(spec, f"{attr} is {type(value).__name__}, not {_WANTED}")
    return got


def _as_validators(spec: str, what: str, value: Any) -> ValidationRunner | list[Validator] | None:
    """``value`` as a runner or a list of validators; None if it is neither (it may be a factory)."""
    if isinstance(value, ValidationRunner):
        return value
    if isinstance(value, Validator):
        return [value]
    if callable(value) or isinstance(value, (str, bytes, Mapping)) or not isinstance(value, Iterable):
        return None
    items = list(value)
    for i, item in enumerate(items):
        if not isinstance(item, Validator):
            raise _spec_error(spec, f"{what}[{i}] is {type(item).__name__}, not a Validator")
    return items


def _is_path(target: str) -> bool:
    return target.endswith(".py") or "/" in target or os.sep in target


def _import_module(spec: str, name: str) -> ModuleType:
    if not all(part.isidentifier() for part in name.split(".")):
        raise _spec_error(spec, f"{name!r} is not a module name (a file needs its .py suffix)")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
            raise _spec_error(spec, f"no module named {name!r} (not installed or not on PYTHONPATH; name a file "
                                    "as path/to/file.py:attr)") from None
        raise _spec_error(spec, f"importing {name!r} failed: ModuleNotFoundError: {exc}") from exc
    except (Exception, SystemExit) as exc:  # the module's own code failed
        raise _spec_error(spec, f"importing {name!r} failed: {type(exc).__name__}: {exc}") from exc


def _load_file(spec: str, target: str) -> ModuleType:
    path = Path(target).expanduser()
    kind = inputs.path_kind(path, where="--validators")
    if kind != "a regular file":
        raise _spec_error(spec, f"no such file {str(path)!r}" if kind is None else f"{str(path)!r} is not a file")
    resolved = path.resolve()
    inputs.note_read(path, "validators file (--validators)")
    # a private, stable module name per file (dataclasses and pickling look modules up in sys.modules)
    name = f"_d3d12wl_validators_{resolved.stem}_{hashlib.sha1(str(resolved).encode()).hexdigest()[:12]}"
    loader_spec = importlib.util.spec_from_file_location(name, resolved)
    if loader_spec is None or loader_spec.loader is None:
        raise _spec_error(spec, f"{str(path)!r} cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[name] = module
    try:
        loader_spec.loader.exec_module(module)
    except (Exception, SystemExit) as exc:  # the file's own code failed
        sys.modules.pop(name, None)
        raise _spec_error(spec, f"loading {str(path)!r} failed: {type(exc).__name__}: {exc}") from exc
    return module


# --------------------------------------------------------------------------------------------------------------
# helpers
# --------------------------------------------------------------------------------------------------------------


def _active_desc(run: ListRun) -> SetWorkListDesc1 | None:
    """The bound D3D12_SET_WORK_LIST_DESC1 when validation is active: array bind with a non-null
    ValidationProgramTable; None otherwise (direct bind runs no validators whatever the index fields say)."""
    program = run.ctx.state.program
    if program is None or program.Type != abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"):
        return None
    desc = program.WorkList1
    if desc.pSignatureArray is None or desc.ValidationProgramTable.Table.StartAddress == 0:
        return None
    return desc


def _grid(pcs: ProgramCommandSignature) -> tuple[int, int, int] | None:
    fixed = abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "FIXED_DISPATCH")
    for a in pcs.pArgumentDescs:
        if a.Type == fixed:
            g = a.FixedDispatch
            return (g.ThreadGroupCountX, g.ThreadGroupCountY, g.ThreadGroupCountZ)
    return None


def _read(memory: GpuMemory, va: int, size: int) -> bytes | None:
    """A read the implementation makes to decide dispatches; a fault here is left to the record walk to report."""
    if va + size > VA_LIMIT:
        return None
    try:
        return memory.read(va, size)
    except MemoryAccessError:
        return None


def _read_u32(memory: GpuMemory, va: int) -> int | None:
    data = _read(memory, va, 4)
    return None if data is None else int.from_bytes(data, "little")


def _read_u64(memory: GpuMemory, va: int) -> int | None:
    data = _read(memory, va, 8)
    return None if data is None else int.from_bytes(data, "little")
