"""State-object creation: what the runtime can decide when programs are associated with program command signatures.

Covered, as far as the model states it (``model.Program``):

* rule 1: every program has a program command signature associated (the invocation-scoped part for raytracing
  shaders is execution-time, GPU-based validation);
* rule 2: the program's global root signature in scope matches its PCS's ``pGlobalRootSignature``;
* rule 3: the program's kind (when stated) is what its PCS's dispatch trigger requires;
* rule 4: the programs reachable through one work list signature's program table are of one executable class, and a
  graphics table mixing mesh and non-mesh programs has a SubobjectMask covering VS and MS;
* rule 22: no explicit local root signature association resolves onto a program whose PCS synthesizes one;
* rule 25(a)/(b) for explicit-path Binding LOCAL args, against each associated program's local root signature;
* rule 26: a program with a global root signature in scope needs a non-null ``pGlobalRootSignature`` on its PCS;
* "Local root signatures": an explicitly associated local root signature carries the LOCAL_ROOT_SIGNATURE flag.

Rule 6 (program-table LRA footprint) needs the bound stride: :func:`d3d12wl.rules.setprogram.check_set_program`
checks it against the known programs; against the programs actually present in a table it is execution-time.
"""

from __future__ import annotations

from d3d12wl.model.argtypes import PROGRAM_KINDS, ExecutableClass
from d3d12wl.model.objects import ObjectSet
from d3d12wl.rules._common import PROGRAM_KIND, WLS_KIND, Arg, Sink, Violation, enum_value, pcs_class, pcs_trigger
from d3d12wl.rules.pcs import check_local_root_targets, has_explicit_local_args, uses_inline_local_root_signature

_KIND_CLASS = {"GRAPHICS": ExecutableClass.GRAPHICS, "MESH": ExecutableClass.GRAPHICS,
               "COMPUTE": ExecutableClass.COMPUTE, "RAYTRACING": ExecutableClass.RAYTRACING}


def check_programs(objects: ObjectSet) -> list[Violation]:
    """Every state-object-creation violation decidable from the programs of ``objects``."""
    out: list[Violation] = []
    for program in objects.programs.values():
        sink = Sink(PROGRAM_KIND, program.name, out)
        pcs = program.ProgramCommandSignature
        lrs = program.LocalRootSignature
        if program.ProgramKind is not None and program.ProgramKind not in PROGRAM_KINDS:
            sink.add("rule 3", f"ProgramKind {program.ProgramKind!r} is not one of {list(PROGRAM_KINDS)}",
                     "ProgramKind")
        if lrs is not None and not lrs.is_local:
            sink.add("Local root signatures", f"local root signature {lrs.name!r} lacks "
                     "D3D12_ROOT_SIGNATURE_FLAG_LOCAL_ROOT_SIGNATURE", "LocalRootSignature")
        if pcs is None:
            sink.add("rule 1", "the program has no program command signature associated with it, so it cannot be "
                     "used with Work Lists", "ProgramCommandSignature")
            continue
        trigger = pcs_trigger(pcs)
        if trigger is not None and program.ProgramKind in PROGRAM_KINDS and program.ProgramKind != trigger.program_kind:
            sink.add("rule 3", f"program command signature {pcs.name!r} has a {trigger.name} trigger, which requires a "
                     f"{trigger.program_kind} program; this program is {program.ProgramKind}", "ProgramKind")
        if lrs is not None and uses_inline_local_root_signature(pcs):
            sink.add("rule 22", f"explicit local root signature {lrs.name!r} resolves onto a program whose program "
                     f"command signature {pcs.name!r} synthesizes its local root signature from _INLINE_* args",
                     "LocalRootSignature")
        if has_explicit_local_args(pcs):
            if lrs is None:
                sink.add("rule 25(b)", f"program command signature {pcs.name!r} has Binding LOCAL_ROOT_SIGNATURE args "
                         "but the program has no local root signature associated", "LocalRootSignature")
            else:
                def report(a: Arg, rule: str, message: str, member: str, _pcs: str = pcs.name,
                           _sink: Sink = sink) -> None:
                    _sink.add(rule, f"program_command_signatures.{_pcs}.pArgumentDescs[{a.index}].{member}: {message}",
                              "LocalRootSignature", arg=a.index)

                check_local_root_targets(pcs, lrs.pParameters, f"local root signature {lrs.name!r}", report)
        grs = program.GlobalRootSignature
        if grs is not None:
            if pcs.pGlobalRootSignature is None:
                sink.add("rule 26", f"the program has global root signature {grs.name!r} in scope, so its program "
                         f"command signature {pcs.name!r} must have a non-null pGlobalRootSignature",
                         "GlobalRootSignature")
            elif pcs.pGlobalRootSignature is not grs:
                sink.add("rule 2", f"the program uses global root signature {grs.name!r}, but its program command "
                         f"signature {pcs.name!r} references {pcs.pGlobalRootSignature.name!r}", "GlobalRootSignature")

    _check_rule_4(objects, out)
    return out


def _check_rule_4(objects: ObjectSet, out: list[Violation]) -> None:
    mask_vs = enum_value("D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "D3D12_PIPELINE_STATE_SUBOBJECT_MASK_VS")
    mask_ms = enum_value("D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "D3D12_PIPELINE_STATE_SUBOBJECT_MASK_MS")
    for wls in objects.work_list_signatures.values():
        members = {id(p) for p in wls.pProgramCommandSignatures}
        if any(pcs_class(p) is ExecutableClass.RAYTRACING for p in wls.pProgramCommandSignatures):
            continue  # no program table
        kinds: dict[str, str] = {}
        for program in objects.programs.values():
            pcs = program.ProgramCommandSignature
            if pcs is not None and id(pcs) in members and program.ProgramKind in _KIND_CLASS:
                kinds.setdefault(program.ProgramKind, program.name)
        sink = Sink(WLS_KIND, wls.name, out)
        classes = {_KIND_CLASS[k] for k in kinds}
        if len(classes) > 1:
            listed = ", ".join(f"{name!r} ({kind})" for kind, name in kinds.items())
            sink.add("rule 4", f"programs reachable through this signature's program table must be of one executable "
                     f"class; found {listed}", "pProgramCommandSignatures")
        elif "GRAPHICS" in kinds and "MESH" in kinds and (wls.SubobjectMask & (mask_vs | mask_ms)) != mask_vs | mask_ms:
            sink.add("rule 4", f"the program table mixes mesh ({kinds['MESH']!r}) and non-mesh ({kinds['GRAPHICS']!r}) "
                     "graphics programs, so SubobjectMask must cover the subobjects that vary (at least VS and MS)",
                     "SubobjectMask")
