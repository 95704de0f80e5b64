"""What SetProgram bound, as a ``DispatchList`` / ``DispatchList1`` call finds it (Work Lists "Binding via SetProgram",
"Binding the validation program table", "Compatibility of bind type with dispatch method"), and where the call may be
recorded ("Bundles", "Command queue type", "Render passes"): the call-level checks made before the first list is read,
and the one made as each list selects its signature.
"""

from __future__ import annotations

from d3d12wl.errors import LayoutError
from d3d12wl.executor.context import ExecContext
from d3d12wl.executor.decode import enum_value, short_name
from d3d12wl.executor.list_run import BoundPrograms, ListRun
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import WorkListSignature
from d3d12wl.model.state import DispatchListCall, SetWorkListDesc1
from d3d12wl.rules import Sink
from d3d12wl.rules.setprogram import check_program_table_binding

__all__ = ["check_bind", "check_command_list", "check_selected_class"]


def _command_list_type(member: str) -> int:
    return enum_value("D3D12_COMMAND_LIST_TYPE", member)


def check_command_list(ctx: ExecContext) -> None:
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


def check_selected_class(run: ListRun, wls: WorkListSignature, cls: ExecutableClass) -> None:
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
    (``selected``) the signature each list selects is checked as it is selected (:func:`check_selected_class`)."""
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


def check_bind(ctx: ExecContext, call: DispatchListCall) -> BoundPrograms | None:
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
        return BoundPrograms([program.WorkList.pSignature], [program.WorkList.Binding], False, False)
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
        return BoundPrograms(sigs, list(desc.pBindings), True, validation)
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
