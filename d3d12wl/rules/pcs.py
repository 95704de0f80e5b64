"""CreateProgramCommandSignature: every rule the spec says rejects a ``D3D12_PROGRAM_COMMAND_SIGNATURE_DESC``.

Covered: "Supported argument types" (exactly one dispatch trigger; DISPATCH_RAYS not valid in Work Lists), the
per-argument-type sections (Source and Binding requirements, ``_FIXED_DISPATCH`` grid caps, pointer-arg availability
per role and per class, ``_INLINE_*`` payload constraints), rules 16, 21, 22 (the CreateProgramCommandSignature part),
23(a)-(f), 24(a)-(c), 25(a)-(e), 26 (the arg-content part), 27, the Tier 1 restriction on
RecordValidationProgramTableIndex, and at most one incrementing constant.

Root-parameter checks resolve RootParameterIndex against ``pGlobalRootSignature`` for Binding GLOBAL.  For Binding
LOCAL on the explicit path the local root signature is only known at state-object creation (it is associated with
the programs, not the PCS); :func:`check_local_root_targets` does those checks and :mod:`d3d12wl.rules.programs`
calls it per program.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from d3d12wl.errors import D3D12WLError
from d3d12wl.model.argtypes import ALL_ROLES, ROLE_DATA, ExecutableClass
from d3d12wl.model.objects import ProgramCommandSignature, RootParameter1, StaticSamplerDesc1
from d3d12wl.model.state import DeviceCaps
from d3d12wl.records.layout import pcs_layout
from d3d12wl.rules._common import (
    PCS_KIND,
    Arg,
    ParameterTypes,
    Sink,
    Violation,
    constants_in_order,
    d3d12_constant,
    decode_args,
    descending_root_parameters,
    enum_value,
    is_tier2,
    parameter_type,
    shared_root_parameters,
    short_name,
    single_trigger_class,
)

#: Where a per-type Source requirement is stated, when not in the type's own per-argument-type section.
_SOURCE_RULE = {"INLINE_STATIC_SAMPLER": "rule 23(d)"}
#: Types whose own per-argument-type section states their Source requirement.
_OWN_SOURCE_SECTION = frozenset({"INCREMENTING_CONSTANT", "FIXED_DISPATCH", "INLINE_ROOT_PARAMETER",
                                 "DISPATCH_RAYS_DIMENSIONS"})
_POINTER_SECTION = "System-generated validator pointer arg types"


def check_program_command_signature(pcs: ProgramCommandSignature, caps: DeviceCaps,
                                    role: str = ROLE_DATA) -> list[Violation]:
    """Every violation CreateProgramCommandSignature would reject ``pcs`` for, on a device with ``caps``.

    ``role``: the signature's use (``argtypes.ROLE_DATA`` or one of the validator roles), for pointer-arg
    availability (spec "System-generated validator pointer arg types").
    """
    sink = Sink(PCS_KIND, pcs.name)
    args = decode_args(pcs.pArgumentDescs, sink)
    triggers = [a for a in args if a.is_trigger]
    for a in triggers:
        assert a.info is not None
        if not a.info.wl:
            sink.arg(a.index, "Supported argument types",
                     f"{a.type} is not valid in a Work Lists program command signature (the Work Lists raytracing "
                     "trigger is DISPATCH_RAYS_DIMENSIONS)", "Type")
    wl_triggers = [a for a in triggers if a.info is not None and a.info.wl]
    if len(wl_triggers) != 1:
        found = ", ".join(f"pArgumentDescs[{a.index}] {a.type}" for a in wl_triggers) or "none"
        sink.add("Supported argument types",
                 f"a program command signature must contain exactly one dispatch-trigger argument (DRAW, "
                 f"DRAW_INDEXED, DISPATCH, DISPATCH_MESH, DISPATCH_RAYS_DIMENSIONS or FIXED_DISPATCH); found {found}",
                 "pArgumentDescs")
    cls = single_trigger_class(args)
    hybrid = any(a.source == "SECONDARY_RECORD" for a in args)

    _check_sources_and_bindings(sink, args)
    _check_pointer_availability(sink, args, caps, role, cls, hybrid, wl_triggers)
    _check_fixed_dispatch(sink, args, caps)
    if cls is ExecutableClass.RAYTRACING:
        if not caps.DispatchRaysSupported:
            sink.add("rule 16", "a raytracing-class program command signature (DISPATCH_RAYS_DIMENSIONS trigger) "
                     "requires D3D12_FEATURE_DATA_WORK_LISTS::DispatchRaysSupported", "pArgumentDescs")
        _check_rule_21(sink, args)
    _check_rule_22(sink, args)
    _check_rule_23(sink, args)
    _check_rule_24(sink, args)
    _check_rule_25(sink, pcs, args, cls, hybrid, wl_triggers)

    if pcs.pGlobalRootSignature is None:
        for a in args:
            if a.has_root_parameter and a.binding == "GLOBAL_ROOT_SIGNATURE":
                sink.arg(a.index, "rule 26", f"{a.type} targets the global root signature but pGlobalRootSignature "
                         "is null", "Binding")
    elif pcs.pGlobalRootSignature.is_local:
        sink.add("D3D12_PROGRAM_COMMAND_SIGNATURE_DESC", f"pGlobalRootSignature {pcs.pGlobalRootSignature.name!r} "
                 "is a local root signature (D3D12_ROOT_SIGNATURE_FLAG_LOCAL_ROOT_SIGNATURE)", "pGlobalRootSignature")

    if pcs.RecordValidationProgramTableIndex != 0:
        if cls is ExecutableClass.RAYTRACING and not hybrid:
            sink.add("rule 27", "a fully-inline raytracing-class program command signature takes no secondary list "
                     "validator: RecordValidationProgramTableIndex must be 0", "RecordValidationProgramTableIndex")
        if not is_tier2(caps):
            sink.add("D3D12_PROGRAM_COMMAND_SIGNATURE_DESC", "RecordValidationProgramTableIndex must be 0 at Tier 1",
                     "RecordValidationProgramTableIndex")

    counters = [a for a in args if a.type == "INCREMENTING_CONSTANT"]
    for a in counters[1:]:
        sink.arg(a.index, "Incrementing constant semantics",
                 f"a work list signature can contain at most one incrementing constant; this program command "
                 f"signature already has one at pArgumentDescs[{counters[0].index}]", "Type")
    return sink.out


# ------------------------------------------------------------------------------------------------------------------


def _check_sources_and_bindings(sink: Sink, args: list[Arg]) -> None:
    for a in args:
        info = a.info
        if info is None:
            continue
        if a.source is not None and a.source not in info.sources:
            if a.type in _SOURCE_RULE:
                rule = _SOURCE_RULE[a.type]
            elif info.system_pointer or a.type in _OWN_SOURCE_SECTION:
                rule = f"_{a.type}"
            else:
                rule = "D3D12_INDIRECT_ARGUMENT_SOURCE"
            allowed = " or ".join(sorted(info.sources))
            sink.arg(a.index, rule, f"Source {a.source} is not valid for {a.type} (must be {allowed})", "Source")
        if a.binding is None:
            continue
        if info.system_pointer and a.binding != "GLOBAL_ROOT_SIGNATURE":
            sink.arg(a.index, f"_{a.type}", f"{a.type} requires Binding GLOBAL_ROOT_SIGNATURE (the synthesized "
                     "value is invocation-level context)", "Binding")
        elif a.is_inline_lrs and a.binding != "LOCAL_ROOT_SIGNATURE":
            sink.arg(a.index, f"_{a.type}", f"{a.type} requires Binding LOCAL_ROOT_SIGNATURE", "Binding")


def _check_pointer_availability(sink: Sink, args: list[Arg], caps: DeviceCaps, role: str,
                                cls: ExecutableClass | None, hybrid: bool, triggers: list[Arg]) -> None:
    if role not in ALL_ROLES:
        raise D3D12WLError(f"unknown program command signature role {role!r}; one of {sorted(ALL_ROLES)}")
    if role != ROLE_DATA:
        if not is_tier2(caps):
            sink.add("GPU Timeline Validation Hooks", f"a {role.replace('_', ' ')} program command signature "
                     "requires Tier 2 (validation hooks are Tier 2 only)")
        if len(triggers) == 1 and triggers[0].type != "FIXED_DISPATCH":
            sink.arg(triggers[0].index, "Binding the validation program table",
                     "a validator program command signature declares its dispatch grid with a FIXED_DISPATCH "
                     f"trigger, not {triggers[0].type}", "Type")
    for a in args:
        info = a.info
        if info is None or not info.system_pointer:
            continue
        if role not in info.roles:
            where = ", ".join(sorted(r.replace("_", " ") for r in info.roles))
            sink.arg(a.index, _POINTER_SECTION,
                     f"{a.type} is not available in a {role.replace('_', ' ')} program command signature "
                     f"(only: {where})", "Type")
        if info.not_on_raytracing and cls is ExecutableClass.RAYTRACING:
            sink.arg(a.index, f"_{a.type}", f"{a.type} is not valid on a raytracing-class program command signature "
                     "(raytracing-class signatures have no program table)", "Type")
        if a.type == "SECONDARY_RECORD_POINTER" and not hybrid:
            sink.arg(a.index, "_SECONDARY_RECORD_POINTER",
                     "SECONDARY_RECORD_POINTER has no defined value on a fully-inline (primary-only) program command "
                     "signature: it requires an arg with Source SECONDARY_RECORD", "Type")


def _check_fixed_dispatch(sink: Sink, args: list[Arg], caps: DeviceCaps) -> None:
    cap = d3d12_constant("D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION")
    for a in args:
        if a.type != "FIXED_DISPATCH":
            continue
        fd = a.wl.FixedDispatch
        dims = {"ThreadGroupCountX": fd.ThreadGroupCountX, "ThreadGroupCountY": fd.ThreadGroupCountY,
                "ThreadGroupCountZ": fd.ThreadGroupCountZ}
        one_d = fd.ThreadGroupCountY == 1 and fd.ThreadGroupCountZ == 1
        for member, value in dims.items():
            limit = caps.Max1DDispatchSize if one_d and member == "ThreadGroupCountX" else cap
            if value < 1:
                sink.arg(a.index, "_FIXED_DISPATCH", f"{member} is {value}; each dimension must be at least 1 (a "
                         "fixed zero-thread-group grid can never dispatch)", f"FixedDispatch.{member}")
            elif value > limit:
                why = ("Max1DDispatchSize for a 1D grid" if limit is not cap
                       else "D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION")
                sink.arg(a.index, "_FIXED_DISPATCH", f"{member} is {value}, above {limit} ({why})",
                         f"FixedDispatch.{member}")


def _check_rule_21(sink: Sink, args: list[Arg]) -> None:
    for a in args:
        if a.is_inline_lrs:
            sink.arg(a.index, "rule 21", f"{a.type} cannot be used on a raytracing-class program command signature "
                     "(its local root arguments live in shader-table records)", "Type")
        elif a.has_root_parameter and a.binding == "LOCAL_ROOT_SIGNATURE":
            sink.arg(a.index, "rule 21", "no arg of a raytracing-class program command signature may have Binding "
                     "LOCAL_ROOT_SIGNATURE", "Binding")


def _check_rule_22(sink: Sink, args: list[Arg]) -> None:
    inline = [a for a in args if a.is_inline_lrs]
    if not inline:
        return
    for a in args:
        if a.has_root_parameter and a.binding == "LOCAL_ROOT_SIGNATURE":
            sink.arg(a.index, "rule 22", f"{a.type} with Binding LOCAL_ROOT_SIGNATURE (explicit local root signature "
                     f"path) mixed with {inline[0].type} at pArgumentDescs[{inline[0].index}] (implicit path); pick "
                     "one local root signature authoring path", "Binding")


def inline_slot_key(rp: RootParameter1) -> tuple[int, int, int] | None:
    """Identity of a synthesized local root signature slot: ShaderRegister + RegisterSpace + ParameterType (spec
    "_INLINE_ROOT_PARAMETER"); a descriptor table is identified by its first range.  None if the type is unknown."""
    ptype = parameter_type(rp)
    if ptype is None:
        return None
    if ptype == "32BIT_CONSTANTS":
        reg = (rp.Constants.ShaderRegister, rp.Constants.RegisterSpace)
    elif ptype == "DESCRIPTOR_TABLE":
        ranges = rp.DescriptorTable.pDescriptorRanges
        reg = (ranges[0].BaseShaderRegister, ranges[0].RegisterSpace) if ranges else (0, 0)
    else:
        reg = (rp.Descriptor.ShaderRegister, rp.Descriptor.RegisterSpace)
    return (*reg, rp.ParameterType)


def synthesized_slots(args: list[Arg]) -> list[list[Arg]]:
    """The synthesized local root signature's parameter slots in first-appearance order, each as its inline args."""
    slots: dict[tuple[int, int, int], list[Arg]] = {}
    for a in args:
        if a.type == "INLINE_ROOT_PARAMETER":
            key = inline_slot_key(a.wl.InlineRootParameter.RootParameter)
            if key is not None:
                slots.setdefault(key, []).append(a)
    return list(slots.values())


def _same_constants_slot(x: RootParameter1, y: RootParameter1) -> bool:
    return (x.ParameterType, x.Constants, x.ShaderVisibility) == (y.ParameterType, y.Constants, y.ShaderVisibility)


def _check_rule_23(sink: Sink, args: list[Arg]) -> None:
    visibility_all = enum_value("D3D12_SHADER_VISIBILITY", "D3D12_SHADER_VISIBILITY_ALL")
    for a in args:
        if a.type == "INLINE_ROOT_PARAMETER":
            irp = a.wl.InlineRootParameter
            rp = irp.RootParameter
            ptype = parameter_type(rp)
            if ptype is None:
                sink.arg(a.index, "_INLINE_ROOT_PARAMETER", f"RootParameter.ParameterType {rp.ParameterType} is not "
                         "a D3D12_ROOT_PARAMETER_TYPE value", "InlineRootParameter.RootParameter.ParameterType")
                continue
            if rp.ShaderVisibility != visibility_all:
                sink.arg(a.index, "rule 23(c)", "RootParameter.ShaderVisibility must be D3D12_SHADER_VISIBILITY_ALL",
                         "InlineRootParameter.RootParameter.ShaderVisibility")
            if ptype == "32BIT_CONSTANTS":
                size = rp.Constants.Num32BitValues
                if irp.Num32BitValuesToSet == 0:
                    sink.arg(a.index, "rule 23(e)", "Num32BitValuesToSet must be > 0 (the footprint is explicit)",
                             "InlineRootParameter.Num32BitValuesToSet")
                elif irp.DestOffsetIn32BitValues + irp.Num32BitValuesToSet > size:
                    sink.arg(a.index, "rule 23(e)", f"DWORD sub-range [{irp.DestOffsetIn32BitValues}, "
                             f"{irp.DestOffsetIn32BitValues + irp.Num32BitValuesToSet}) exceeds the slot's "
                             f"Num32BitValues {size}", "InlineRootParameter.Num32BitValuesToSet")
            elif irp.DestOffsetIn32BitValues or irp.Num32BitValuesToSet:
                sink.arg(a.index, "_INLINE_ROOT_PARAMETER", "DestOffsetIn32BitValues and Num32BitValuesToSet must be 0 "
                         f"for ParameterType {ptype}", "InlineRootParameter")
        elif a.type == "INLINE_STATIC_SAMPLER" and a.wl.InlineStaticSampler.ShaderVisibility != visibility_all:
            sink.arg(a.index, "_INLINE_STATIC_SAMPLER", "ShaderVisibility must be D3D12_SHADER_VISIBILITY_ALL",
                     "InlineStaticSampler.ShaderVisibility")

    for slot in synthesized_slots(args):
        if len(slot) < 2:
            continue
        first = slot[0]
        rp0 = first.wl.InlineRootParameter.RootParameter
        if parameter_type(rp0) != "32BIT_CONSTANTS":
            for a in slot[1:]:
                sink.arg(a.index, "rule 23(a)", f"a second INLINE_ROOT_PARAMETER for the {parameter_type(rp0)} slot "
                         f"declared by pArgumentDescs[{first.index}]; non-constant slots take a single inline arg",
                         "InlineRootParameter.RootParameter")
            continue
        for a in slot[1:]:
            if not _same_constants_slot(a.wl.InlineRootParameter.RootParameter, rp0):
                sink.arg(a.index, "rule 23(a)", "INLINE_ROOT_PARAMETER args sharing a constants slot must wrap "
                         f"identical RootParameter content (differs from pArgumentDescs[{first.index}])",
                         "InlineRootParameter.RootParameter")
        ranges = [(a.wl.InlineRootParameter.DestOffsetIn32BitValues,
                   a.wl.InlineRootParameter.DestOffsetIn32BitValues + a.wl.InlineRootParameter.Num32BitValuesToSet)
                  for a in slot]
        if not constants_in_order(slot, ranges, adjacent=True):
            sink.arg(slot[1].index, "rule 23(f)", "INLINE_ROOT_PARAMETER args of one constants slot (pArgumentDescs "
                     f"{[a.index for a in slot]}, DWORD ranges {ranges}) must be adjacent, in ascending "
                     "DestOffsetIn32BitValues order, without overlap", "InlineRootParameter.DestOffsetIn32BitValues")

    samplers: dict[tuple[int, int], Arg] = {}
    for a in args:
        if a.type == "INLINE_STATIC_SAMPLER":
            s: StaticSamplerDesc1 = a.wl.InlineStaticSampler
            key = (s.ShaderRegister, s.RegisterSpace)
            if key in samplers:
                sink.arg(a.index, "rule 23(b)", f"a second INLINE_STATIC_SAMPLER for register s{key[0]} space "
                         f"{key[1]} (first at pArgumentDescs[{samplers[key].index}])", "InlineStaticSampler")
            else:
                samplers[key] = a


def _check_rule_24(sink: Sink, args: list[Arg]) -> None:
    by_scope: dict[str, list[Arg]] = defaultdict(list)
    for a in args:
        if a.has_root_parameter and a.binding is not None:
            by_scope[a.binding].append(a)
    for scope, scoped in by_scope.items():
        for a, highest in descending_root_parameters(scoped):
            sink.arg(a.index, "rule 24(a)", f"RootParameterIndex {a.root_parameter_index} follows "
                     f"{highest.root_parameter_index} (pArgumentDescs[{highest.index}]); {scope} args must be in "
                     "ascending RootParameterIndex order", a.rpi_member)
        for rpi, group, ranges in shared_root_parameters(scoped):
            if ranges is None:
                for a in group[1:]:
                    sink.arg(a.index, "rule 24(b)", f"({scope}, RootParameterIndex {rpi}) is already referenced by "
                             f"pArgumentDescs[{group[0].index}]; only root constants slots take several args",
                             a.rpi_member)
            elif not constants_in_order(group, ranges, adjacent=True):
                sink.arg(group[1].index, "rule 24(c)", f"args updating constants slot ({scope}, {rpi}) (pArgumentDescs "
                         f"{[a.index for a in group]}, DWORD ranges {ranges}) must be adjacent, in ascending "
                         "DestOffsetIn32BitValues order, without overlap",
                         group[1].payload_member("DestOffsetIn32BitValues"))


def check_root_targets(args: list[Arg], params: list[RootParameter1], what: str,
                       report: Callable[[Arg, str, str, str], None]) -> None:
    """Rules 25(a)/(b) for every arg in ``args`` against the root parameters ``params`` of ``what``: the index is in
    range, the parameter's type is one the arg type may target (``argtypes`` root_parameter_types), and constant
    sub-ranges fit the slot.  ``report(arg, rule, message, member)``."""
    types = ParameterTypes()
    for a in args:
        rpi = a.root_parameter_index
        assert rpi is not None and a.info is not None
        if rpi >= len(params):
            report(a, "rule 25(b)", f"RootParameterIndex {rpi} is out of range for {what} ({len(params)} "
                   "parameters)", a.rpi_member)
            continue
        ptype = types(params[rpi])
        if ptype not in a.info.root_parameter_types:
            want = " or ".join(sorted(a.info.root_parameter_types))
            report(a, "rule 25(b)", f"{a.type} must target a {want} root parameter; parameter {rpi} of {what} is "
                   f"{ptype or params[rpi].ParameterType}", a.rpi_member)
            continue
        if ptype != "32BIT_CONSTANTS":
            continue
        size = params[rpi].Constants.Num32BitValues
        if a.type == "CONSTANT":
            c = a.desc.Constant
            if c.Num32BitValuesToSet and c.DestOffsetIn32BitValues + c.Num32BitValuesToSet > size:
                report(a, "rule 25(a)", f"DWORDs [{c.DestOffsetIn32BitValues}, "
                       f"{c.DestOffsetIn32BitValues + c.Num32BitValuesToSet}) exceed the {size} constants of parameter "
                       f"{rpi} of {what}", "Constant.Num32BitValuesToSet")
        elif a.type == "INCREMENTING_CONSTANT":
            dest = a.desc.IncrementingConstant.DestOffsetIn32BitValues
            if dest >= size:
                report(a, "rule 25(a)", f"DestOffsetIn32BitValues {dest} is not below the {size} constants of "
                       f"parameter {rpi} of {what}", "IncrementingConstant.DestOffsetIn32BitValues")


def _check_rule_25(sink: Sink, pcs: ProgramCommandSignature, args: list[Arg], cls: ExecutableClass | None,
                   hybrid: bool, triggers: list[Arg]) -> None:
    def report(a: Arg, rule: str, message: str, member: str) -> None:
        sink.arg(a.index, rule, message, member)

    for a in args:
        if a.type == "CONSTANT" and a.desc.Constant.Num32BitValuesToSet == 0:
            sink.arg(a.index, "rule 25(a)", "Num32BitValuesToSet must be > 0", "Constant.Num32BitValuesToSet")

    grs = pcs.pGlobalRootSignature
    global_args = [a for a in args if a.has_root_parameter and a.binding == "GLOBAL_ROOT_SIGNATURE"]
    if grs is not None:
        check_root_targets(global_args, grs.pParameters, f"global root signature {grs.name!r}", report)
    local_args = [a for a in args if a.has_root_parameter and a.binding == "LOCAL_ROOT_SIGNATURE"]
    slots = synthesized_slots(args)
    if local_args and slots:  # rule 22 is violated too; still resolve against the synthesized signature
        params = [slot[0].wl.InlineRootParameter.RootParameter for slot in slots]
        check_root_targets(local_args, params, "the synthesized local root signature", report)

    slot_count = d3d12_constant("D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT")
    vbs = [a for a in args if a.type == "VERTEX_BUFFER_VIEW"]
    ibs = [a for a in args if a.type == "INDEX_BUFFER_VIEW"]
    seen: dict[int, Arg] = {}
    for a in vbs:
        slot = a.desc.VertexBuffer.Slot
        if slot >= slot_count:
            sink.arg(a.index, "rule 25(b)", f"VB slot {slot} is outside the D3D12 VB slot range [0, {slot_count})",
                     "VertexBuffer.Slot")
        if slot in seen:
            sink.arg(a.index, "rule 25(d)", f"VB slot {slot} is already touched by pArgumentDescs[{seen[slot].index}]",
                     "VertexBuffer.Slot")
        else:
            seen[slot] = a
    if cls in (ExecutableClass.COMPUTE, ExecutableClass.RAYTRACING):
        for a in vbs + ibs:
            sink.arg(a.index, "rule 25(c)", f"{a.type} is not valid on a {cls.value.lower()}-class program command "
                     "signature (no IA bindings in that class)", "Type")
    else:
        trigger = triggers[0].type if len(triggers) == 1 else None
        for a in ibs:
            if trigger is not None and trigger != "DRAW_INDEXED":
                sink.arg(a.index, "rule 25(c)", f"INDEX_BUFFER_VIEW requires a DRAW_INDEXED trigger, not {trigger}",
                         "Type")
    for a in ibs[1:]:
        sink.arg(a.index, "rule 25(c)", f"at most one INDEX_BUFFER_VIEW per program command signature (first at "
                 f"pArgumentDescs[{ibs[0].index}])", "Type")

    stride = pcs.SecondaryRecordByteStride
    if not hybrid:
        if stride != 0:
            sink.add("rule 25(e)", f"SecondaryRecordByteStride must be 0 when no arg has Source SECONDARY_RECORD "
                     f"(is {stride})", "SecondaryRecordByteStride")
    elif stride != 0 and triggers and all(a.info is not None and a.source is not None for a in args):
        try:
            secondary = pcs_layout(pcs).secondary
        except D3D12WLError:
            secondary = None  # a malformed arg already reported above
        if secondary is not None:
            for problem in secondary.stride_problems(stride):
                sink.add("rule 25(e)", f"SecondaryRecordByteStride: {problem}", "SecondaryRecordByteStride")


def check_local_root_targets(pcs: ProgramCommandSignature, lrs_params: list[RootParameter1], what: str,
                             report: Callable[[Arg, str, str, str], None]) -> None:
    """Rules 25(a)/(b) for the explicit-path Binding LOCAL args of ``pcs`` against a program's local root signature
    (decided at state-object creation, when the association is known)."""
    args = decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name))
    local = [a for a in args if a.has_root_parameter and a.binding == "LOCAL_ROOT_SIGNATURE"]
    check_root_targets(local, lrs_params, what, report)


def has_explicit_local_args(pcs: ProgramCommandSignature) -> bool:
    args = decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name))
    return (not any(a.is_inline_lrs for a in args)
            and any(a.has_root_parameter and a.binding == "LOCAL_ROOT_SIGNATURE" for a in args))


def uses_inline_local_root_signature(pcs: ProgramCommandSignature) -> bool:
    return any(short_name("D3D12_INDIRECT_ARGUMENT_TYPE", a.Type) in ("INLINE_ROOT_PARAMETER", "INLINE_STATIC_SAMPLER")
               for a in pcs.pArgumentDescs)
