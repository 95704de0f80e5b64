"""Breakers (tests/call_requirements.py) of the Work Lists requirements on DispatchList / DispatchList1 calls: one
per row of the audit table's Work Lists part (docs/executor.md).  Each docstring names its row and quotes the
requirement in the spec's words; ``build(rng, broken)`` makes the same call twice, keeping or breaking it."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from call_requirements import Call, breaks
from executor_builder import (
    CONT,
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_VA,
    TINTS,
    E,
    Scene,
    arg,
    constants_param,
    culling_pcs,
    descriptor_table_scene,
    dispatch,
    dispatch_input,
    dispatch_input1,
    f32,
    heap_handle,
    identifier,
    one_program_scene,
    primary,
    program,
    program_table,
    raytracing_scene,
    root_parameters,
    root_signature,
    secondaries,
    table_param,
    unset_one,
)
from test_executor_chains import Chain

from d3d12wl import abi
from d3d12wl.executor.validation import (
    AREA_PRIMARY_LIST,
    AREA_SIGNATURE_SELECTION,
    ValidationRunner,
    Validator,
    ValidatorCall,
    validation_program_table,
    validator_pcs,
)
from d3d12wl.model.objects import (
    InlineRootParameter,
    Program,
    ProgramCommandSignature,
    RootParameterIndexArg,
    WorkListSignature,
)
from d3d12wl.model.state import (
    DispatchListCall,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RaytracingBinding,
)
from d3d12wl.records.layout import WL_ALIGN, pcs_layout, program_table_layout

INPUT1 = "D3D12_DISPATCH_LIST_INPUT1"
VT_VA = 0x7000  # the validation program table
SCRATCH_VA = 0x8000  # memory a validator may write freely
UNMAPPED_VA = 0x90_0000  # nothing is mapped there
TIER_1 = E("D3D12_WORK_LISTS_TIER", "TIER_1")
U32 = (1 << 32) - 1
IDENTIFIER = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")


@dataclass
class WorkList:
    """A valid call of the one-program hybrid scene (program "A", PCS "H", signature "W", one-slot table) and what
    a breaker changes: its records, secondary lists and input are at the executor_builder VAs."""

    call: Call
    scene: Scene
    pcs: ProgramCommandSignature
    wls: WorkListSignature
    stride: int
    n: int
    secondary: list[int]  # NumSecondaryRecords per primary record

    @property
    def dispatch(self) -> DispatchListCall:
        assert isinstance(self.call.call, DispatchListCall)
        return self.call.call

    def record_va(self, i: int) -> int:
        return PRIMARY_VA + i * self.stride

    def put_input(self, n: int | None = None, start: int = PRIMARY_VA, stride: int | None = None, flags_: int = 0,
                  signature: int = 0, next_: int = 0, padding: int = 0) -> None:
        n = self.n if n is None else n
        stride = self.stride if stride is None else stride
        self.scene.put(INPUT_VA, dispatch_input1(n, start, stride, flags_, signature, next_, padding)
                       if self.dispatch.tier2 else dispatch_input(n, start, stride, flags_))


def work_list(rng: random.Random, *, tier2: bool = False, array: bool = False, trigger: str = "DISPATCH",
              **input1: Any) -> WorkList:
    """1-4 primary records of the one-program hybrid scene, each with 1-4 secondary records carrying its
    ``trigger`` (DISPATCH: compute-class; DRAW: graphics-class, the call's graphics bounds then fit exactly); a
    direct bind, or (``array``) the same signature and binding through a one-entry signature array."""
    pcs = ProgramCommandSignature("H", [arg(trigger, "SECONDARY_RECORD")], SecondaryRecordByteStride=16)
    s = one_program_scene(pcs)
    wls = s.state.program.WorkList.pSignature
    if array:
        s.bind_array("ARR", [(wls, s.state.program.WorkList.Binding)])
    payload = "arg0_Dispatch" if trigger == "DISPATCH" else "arg0_Draw"
    stride = pcs_layout(pcs).primary.min_stride
    counts, records = [], []
    for i in range(rng.randint(1, 4)):
        m = rng.randint(1, 4)
        va = SECONDARY_VA + 0x100 * i
        value = dispatch(rng.randint(1, 64)) if trigger == "DISPATCH" else {"VertexCountPerInstance": 3,
                                                                            "InstanceCount": rng.randint(1, 9)}
        s.put(va, secondaries(pcs, [{payload: value} for _ in range(m)]))
        records.append(primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=m, SecondaryRecords=va))
        counts.append(m)
    s.put(PRIMARY_VA, b"".join(records))
    graphics = trigger != "DISPATCH"
    call = DispatchListCall(INPUT_VA, len(records) if graphics else 0, 1 if graphics and tier2 else 0, tier2)
    wl = WorkList(Call(s.memory, s.device, s.objects, s.state, call), s, pcs, wls, stride, len(records), counts)
    wl.put_input(**input1)
    return wl


def hybrid_call(rng: random.Random, tier2: bool = False) -> tuple[Call, int]:
    """A valid DispatchList (DispatchList1 with ``tier2``) of the one-program hybrid scene: 1-4 primary records,
    each with 1-4 DISPATCH secondary records; returns the call and the primary stride."""
    wl = work_list(rng, tier2=tier2)
    return wl.call, wl.stride


def chain_call(kinds: list[str], max_graphics: int | None = None, max_inputs: int = 16) -> Call:
    """A DispatchList1 chain of one-record lists of ``kinds`` (tests/test_executor_chains.py::Chain)."""
    c = Chain()
    c.chain(kinds)
    graphics = sum(k in ("graphics", "mesh") for k in kinds)
    call = DispatchListCall(0x1000, max_inputs, graphics if max_graphics is None else max_graphics, tier2=True)
    return Call(c.s.memory, c.s.device, c.s.objects, c.s.state, call)


# ----------------------------------------------------------------------------------------------------------------
# The call and what SetProgram bound
# ----------------------------------------------------------------------------------------------------------------


@breaks("no-work-list-bound")
def no_work_list_bound(rng: random.Random, broken: bool) -> Call:
    """W1: Dispatch Model, "must have a work list signature bound via SetProgram before the call"."""
    c, _ = hybrid_call(rng)
    if broken:
        c.state.program = None
    return c


@breaks("bind-type-mismatch-dispatch-method")
def array_bind_with_dispatch_list(rng: random.Random, broken: bool) -> Call:
    """W2: "Compatibility of bind type with dispatch method": array binding (WORK_LIST1) with DispatchList (Tier 1):
    "invalid (array bindings are Tier 2 only)"."""
    return work_list(rng, array=broken).call


@breaks("tier-not-supported")
def call_above_the_device_tier(rng: random.Random, broken: bool) -> Call:
    """W3: D3D12_WORK_LISTS_TIER: "Calling a Tier 2 entry point on a Tier 1 device fails at the API boundary" (and
    DispatchList needs Tier 1)."""
    wl = work_list(rng, tier2=rng.random() < 0.5)
    if broken:
        wl.scene.device.Tier = TIER_1 if wl.dispatch.tier2 else E("D3D12_WORK_LISTS_TIER", "NOT_SUPPORTED")
    return wl.call


@breaks("direct-bind-signature-index-nonzero")
def direct_bind_signature_index(rng: random.Random, broken: bool) -> Call:
    """W5: "single binding (WORK_LIST) ... DispatchList1 (Tier 2): valid, SignatureIndex must be 0"."""
    return work_list(rng, tier2=True, signature=rng.randint(1, U32) if broken else 0).call


@breaks("num-bindings-mismatch")
def num_bindings(rng: random.Random, broken: bool) -> Call:
    """W6: D3D12_SET_WORK_LIST_DESC1: "Must satisfy NumBindings == pSignatureArray->NumSignatures"."""
    wl = work_list(rng, tier2=True, array=True)
    if broken:
        bindings = wl.scene.state.program.WorkList1.pBindings
        bindings.extend([bindings[0]] * rng.randint(1, 3))
    return wl.call


@breaks("signature-index-out-of-range")
def signature_index_out_of_range(rng: random.Random, broken: bool) -> Call:
    """W7: "When the index field is zero, no signature-selection validator runs and an out-of-range SignatureIndex
    is undefined behavior" (SignatureIndex "must be 0 when NumSignatures == 1")."""
    return work_list(rng, tier2=True, array=True, signature=rng.randint(1, U32) if broken else 0).call


@breaks("binding-type-mismatch")
def binding_type_against_class(rng: random.Random, broken: bool) -> Call:
    """W8: rule 17, "D3D12_WORK_LIST_BINDING Type must match the bound signature's executable class"."""
    wl = work_list(rng)
    if broken:
        wl.scene.state.program.WorkList.Binding = Scene.binding(raytracing=RaytracingBinding("RTPSO"))
    return wl.call


def raytracing_call(rng: random.Random) -> tuple[Call, Scene]:
    s, call = raytracing_scene(rng.random() < 0.5, 0)
    return Call(s.memory, s.device, s.objects, s.state, call), s


@breaks("raytracing-binding-null")
def null_raytracing_binding(rng: random.Random, broken: bool) -> Call:
    """W9: D3D12_WORK_LIST_BINDING::pRaytracing: "When Type == _RAYTRACING, non-null pointer to a
    D3D12_WORK_LIST_RAYTRACING_BINDING"."""
    c, s = raytracing_call(rng)
    if broken:
        s.state.program.WorkList.Binding.pRaytracing = None
    return c


@breaks("dispatch-rays-not-supported")
def dispatch_rays_unsupported(rng: random.Random, broken: bool) -> Call:
    """W10: rule 16, "requires D3D12_FEATURE_DATA_WORK_LISTS::DispatchRaysSupported == TRUE on the device"."""
    c, s = raytracing_call(rng)
    s.device.DispatchRaysSupported = not broken
    return c


@breaks("program-table-binding-invalid")
def program_table_binding_members(rng: random.Random, broken: bool) -> Call:
    """W11: D3D12_WORK_LIST_PROGRAM_TABLE_BINDING: "Table.StartAddress must be 8-byte aligned. Table.StrideInBytes
    must be 0 or at least sizeof(D3D12_PROGRAM_IDENTIFIER) = 32 (and at most D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE),
    and a multiple of 8 bytes when non-zero. For a non-zero stride, Table.SizeInBytes must be at least SlotCount *
    Table.StrideInBytes"."""
    wl = work_list(rng)
    t = wl.scene.state.program.WorkList.Binding.ProgramTable.Table
    if broken:
        which = rng.randrange(4)
        if which == 0:
            t.StartAddress += rng.randint(1, 7)
        elif which == 1:
            t.StrideInBytes = rng.choice([8, 16, 24, 36, 44])
        elif which == 2:
            t.StrideInBytes = abi.constant("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE") + 8 * rng.randint(1, 4)
        else:
            t.SizeInBytes = rng.randint(0, t.SizeInBytes - 1)
    return wl.call


def validation_table(s: Scene, ids: list[bytes | None], size: int | None = None) -> None:
    """Map a validation program table of ``ids`` (slot 0 the "no validator" sentinel) at VT_VA and bind it."""
    s.put(VT_VA, validation_program_table(ids))
    s.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding(
        GpuVirtualAddressRangeAndStride(VT_VA, IDENTIFIER * len(ids) if size is None else size, IDENTIFIER), len(ids))


@breaks("program-table-binding-invalid")
def validation_program_table_binding_members(rng: random.Random, broken: bool) -> Call:
    """W12: D3D12_WORK_LIST_PROGRAM_TABLE_BINDING is "Used by: ... D3D12_SET_WORK_LIST_DESC1 - ValidationProgramTable
    member": a non-null ValidationProgramTable keeps the member rules."""
    wl = work_list(rng, tier2=True, array=True)
    validation_table(wl.scene, [None, None])
    t = wl.scene.state.program.WorkList1.ValidationProgramTable.Table
    if broken:
        t.StrideInBytes = rng.choice([8, 20, 36])
    return wl.call


@breaks("null-validation-program-table-nonzero")
def null_validation_program_table(rng: random.Random, broken: bool) -> Call:
    """W13: D3D12_SET_WORK_LIST_DESC1::ValidationProgramTable: "ValidationProgramTable.Table.StartAddress == 0 means
    no validation, in which case ByteStride and SlotCount must also be 0"."""
    wl = work_list(rng, tier2=True, array=True)
    if broken:
        stride, slots = rng.choice([(IDENTIFIER, 0), (0, rng.randint(1, 8)), (IDENTIFIER, rng.randint(1, 8))])
        wl.scene.state.program.WorkList1.ValidationProgramTable = ProgramTableBinding(
            GpuVirtualAddressRangeAndStride(0, 0, stride), slots)
    return wl.call


@breaks("validation-index-ignored")
def validation_index_without_table(rng: random.Random, broken: bool) -> Call:
    """W14: "When ValidationProgramTable is null on D3D12_SET_WORK_LIST_DESC1, the implementation ignores all
    validation index fields on the bound signatures; no validators are invoked" (and the direct bind: "no
    validators are invoked regardless of any index fields the signature carries")."""
    array = rng.random() < 0.5
    wl = work_list(rng, tier2=array, array=array)
    if broken:
        which = rng.randrange(3 if array else 2)
        if which == 0:
            wl.wls.ListValidationProgramTableIndex = rng.randint(1, 9)
        elif which == 1:
            wl.pcs.RecordValidationProgramTableIndex = rng.randint(1, 9)
        else:
            wl.scene.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = rng.randint(1, 9)
    return wl.call


# ----------------------------------------------------------------------------------------------------------------
# The dispatch list input
# ----------------------------------------------------------------------------------------------------------------


@breaks("misaligned-va")
def misaligned_dispatch_list_input(rng: random.Random, broken: bool) -> Call:
    """W18: DispatchList: "DispatchListInput: GPU virtual address of a D3D12_DISPATCH_LIST_INPUT struct in GPU
    memory. Must be 8-byte aligned"."""
    wl = work_list(rng, tier2=rng.random() < 0.5)
    if broken:
        wl.dispatch.DispatchListInput += rng.randint(1, 7)
    return wl.call


@breaks("unmapped-va")
def unmapped_dispatch_list_input(rng: random.Random, broken: bool) -> Call:
    """W19: DispatchList: "DispatchListInput: GPU virtual address of a D3D12_DISPATCH_LIST_INPUT struct in GPU
    memory"."""
    wl = work_list(rng, tier2=rng.random() < 0.5)
    if broken:
        wl.dispatch.DispatchListInput = UNMAPPED_VA + 8 * rng.randint(0, 64)
    return wl.call


@breaks("misaligned-va")
def misaligned_program_inputs_start(rng: random.Random, broken: bool) -> Call:
    """W21: D3D12_DISPATCH_LIST_INPUT::ProgramInputs: "When NumProgramInputs > 0, StartAddress and StrideInBytes
    must be 8-byte aligned" (StartAddress)."""
    wl = work_list(rng)
    if broken:
        wl.put_input(start=PRIMARY_VA + rng.randint(1, 7))
    return wl.call


@breaks("stride-misaligned")
def misaligned_program_inputs_stride(rng: random.Random, broken: bool) -> Call:
    """W22: D3D12_DISPATCH_LIST_INPUT::ProgramInputs: "StartAddress and StrideInBytes must be 8-byte aligned"
    (StrideInBytes)."""
    wl = work_list(rng)
    if broken:
        wl.put_input(stride=wl.stride + rng.randint(1, 7))
    return wl.call


def two_pcs_call(rng: random.Random, stride_above_small: int) -> Call:
    """A compute signature of PCS "H" (hybrid: 16-byte primary records) and "Big" (fully inline with a four-DWORD
    primary-sourced local constants slot: 32 bytes); every record selects H's program; the list's stride is H's
    minimum + ``stride_above_small``."""
    s = Scene()
    small = ProgramCommandSignature("H", [arg("DISPATCH", "SECONDARY_RECORD")], SecondaryRecordByteStride=16)
    big = ProgramCommandSignature("Big", [
        arg("INLINE_ROOT_PARAMETER", "PRIMARY_RECORD", "LOCAL_ROOT_SIGNATURE",
            InlineRootParameter=InlineRootParameter(constants_param(4, register=0, space=1), 0, 4)),
        arg("DISPATCH")])
    pa, pb = program("A", 1, small), program("B", 2, big)
    s.add_programs(pa, pb)
    s.put(TABLE_VA, program_table([(pa, {}), (pb, {})], 32))
    s.bind(WorkListSignature("W", [small, big] if rng.random() < 0.5 else [big, small]), TABLE_VA, 32, 2)
    stride = pcs_layout(small).primary.min_stride + stride_above_small
    n = rng.randint(1, 4)
    s.put(SECONDARY_VA, secondaries(small, [{"arg0_Dispatch": dispatch(rng.randint(1, 9))}]))
    s.put(PRIMARY_VA, b"".join(primary(small, stride, ProgramTableIndex=0, NumSecondaryRecords=1,
                                       SecondaryRecords=SECONDARY_VA) for _ in range(n)))
    s.put(INPUT_VA, dispatch_input(n, PRIMARY_VA, stride))
    return Call(s.memory, s.device, s.objects, s.state, DispatchListCall(INPUT_VA))


@breaks("program-inputs-stride-below-worst-case")
def stride_below_the_signatures_worst_case(rng: random.Random, broken: bool) -> Call:
    """W23: D3D12_DISPATCH_LIST_INPUT1::ProgramInputs: "Its StrideInBytes must fit the worst-case primary record
    across every program command signature reachable from the work list signature selected by SignatureIndex"
    (D3D12_DISPATCH_LIST_INPUT: "across every program command signature this dispatch will reference"), whichever
    PCS the records select."""
    return two_pcs_call(rng, 8 if broken else 16)


@breaks("stride-below-minimum")
def program_inputs_stride_below_the_records_minimum(rng: random.Random, broken: bool) -> Call:
    """W24: rule 25(e): "ProgramInputs.StrideInBytes ... must be 8-byte aligned AND at least the minimum-required-
    size for that record class ... Rejected ... at DispatchList for the per-dispatch ProgramInputs.StrideInBytes"."""
    wl = work_list(rng)
    if broken:
        wl.put_input(stride=wl.stride - WL_ALIGN)
    return wl.call


@breaks("unmapped-va")
def primary_records_past_their_memory(rng: random.Random, broken: bool) -> Call:
    """W25: D3D12_DISPATCH_LIST_INPUT::ProgramInputs: "an array of NumProgramInputs primary records": the records
    the count implies lie in GPU memory."""
    wl = work_list(rng)
    if broken:
        wl.put_input(n=wl.n + rng.randint(1, 1000))
    return wl.call


@breaks("va-wrap")
def primary_records_past_the_va_space(rng: random.Random, broken: bool) -> Call:
    """W26: D3D12_DISPATCH_LIST_INPUT::ProgramInputs: "an array of NumProgramInputs primary records": an array
    that runs past the end of the 64-bit VA space does not exist."""
    wl = work_list(rng)
    top = (1 << 64) - 0x1000
    records = wl.scene.memory.read(PRIMARY_VA, wl.n * wl.stride)
    wl.scene.put(top, records + bytes(0x1000 - len(records)))
    wl.put_input(n=0x1000 // wl.stride + rng.randint(1, 3) if broken else wl.n, start=top)
    return wl.call


@breaks("unknown-flag-bits")
def undefined_flag_bits(rng: random.Random, broken: bool) -> Call:
    """W27: D3D12_DISPATCH_LIST_INPUT::Flags: "A bitwise OR of D3D12_DISPATCH_LIST_FLAGS values" (a warning)."""
    wl = work_list(rng)
    if broken:
        wl.put_input(flags_=1 << rng.randint(1, 31))
    return wl.call


@breaks("reserved-padding-nonzero")
def input1_reserved_padding(rng: random.Random, broken: bool) -> Call:
    """W28: D3D12_DISPATCH_LIST_INPUT1::ReservedPadding: "Must be 0"."""
    return work_list(rng, tier2=True, padding=rng.randint(1, U32) if broken else 0).call


@breaks("max-graphics-program-inputs-exceeded")
def graphics_list_above_max_program_inputs(rng: random.Random, broken: bool) -> Call:
    """W29: rule 12: "NumProgramInputs must not exceed the MaxGraphicsProgramInputsPerPrimaryList arg the app passed.
    Exceeding the bound is undefined behavior"."""
    wl = work_list(rng, tier2=rng.random() < 0.5, trigger="DRAW")
    if broken:
        wl.dispatch.MaxGraphicsProgramInputsPerPrimaryList = rng.randint(0, wl.n - 1)
    return wl.call


@breaks("max-graphics-primary-lists-exceeded")
def chain_above_max_graphics_primary_lists(rng: random.Random, broken: bool) -> Call:
    """W30: rule 11: "The number of graphics-class lists actually executed by a DispatchList1 call's chain must not
    exceed the MaxGraphicsPrimaryLists arg ... Exceeding the bound is undefined behavior"."""
    kinds = [rng.choice(["compute", "graphics", "mesh", "raytracing"]) for _ in range(rng.randint(1, 4))]
    kinds[rng.randrange(len(kinds))] = rng.choice(["graphics", "mesh"])
    graphics = sum(k in ("graphics", "mesh") for k in kinds)
    return chain_call(kinds, rng.randint(0, graphics - 1) if broken else graphics)


@breaks("continuation-authored-without-wait")
def validator_writes_the_next_list_without_the_wait(rng: random.Random, broken: bool) -> Call:
    """W36: rule 13 (Work Lists v0.851): "A list whose shaders write any part of the next D3D12_DISPATCH_LIST_INPUT1,
    or data the next list consumes, must set _END_WITH_WAIT_FOR_COMPLETION, whatever its class": list 0's validator
    writes bytes of list 1's input back; list 0 sets the wait (kept) or not (broken)."""
    c = Chain()
    kinds = [rng.choice(["compute", "graphics", "mesh"]), rng.choice(["compute", "graphics"])]
    wait = 0 if broken else abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION")
    flush = rng.choice([0, abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_MEMORY_FLUSH")])
    c.add_list(0, kinds[0], flags_=CONT | wait | flush)
    c.add_list(1, kinds[1], next_=0)
    validation_table(c.s, [None, None])
    size = rng.randint(1, 8)
    target = 0x1100 + rng.randint(0, abi.sizeof("D3D12_DISPATCH_LIST_INPUT1") - size)
    return Call(c.s.memory, c.s.device, c.s.objects, c.s.state, DispatchListCall(0x1000, 16, 16, tier2=True),
                WriteBack(target, size))


@breaks("next-dispatch-list-written")
def validator_writes_its_own_next_dispatch_list(rng: random.Random, broken: bool) -> Call:
    """W100: "Writing other header fields (e.g., NextDispatchList) has implementation-defined effect" (Validator
    defensive neutralization patterns): list 0's validator writes its own NextDispatchList back (broken), or scratch
    memory (kept)."""
    c = Chain()
    c.add_list(0, rng.choice(["compute", "graphics"]),
               flags_=CONT | rng.choice([0, abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION")]))
    c.add_list(1, "compute", next_=0)
    validation_table(c.s, [None, None])
    c.s.put(SCRATCH_VA, bytes(64))
    next_va = 0x1000 + abi.offsetof("D3D12_DISPATCH_LIST_INPUT1", "NextDispatchList")
    target = next_va if broken else SCRATCH_VA + rng.randint(0, 56)
    return Call(c.s.memory, c.s.device, c.s.objects, c.s.state, DispatchListCall(0x1000, 16, 16, tier2=True),
                WriteBack(target, 8))


@breaks("misaligned-va")
def misaligned_next_dispatch_list(rng: random.Random, broken: bool) -> Call:
    """W32: D3D12_DISPATCH_LIST_INPUT1::NextDispatchList: "Must be 0 or 8-byte aligned"."""
    return work_list(rng, tier2=True, flags_=CONT, next_=INPUT_VA + 0x800 + rng.randint(1, 7) if broken else 0).call


@breaks("next-dispatch-list-ignored")
def next_dispatch_list_without_the_flag(rng: random.Random, broken: bool) -> Call:
    """W33: D3D12_DISPATCH_LIST_INPUT1::NextDispatchList: "Ignored unless D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_
    DISPATCH_LIST_CONTINUATION is set in Flags" (a note)."""
    return work_list(rng, tier2=True, next_=8 * rng.randint(1, 1 << 40) if broken else 0).call


@breaks("unmapped-va")
def continuation_into_unmapped_memory(rng: random.Random, broken: bool) -> Call:
    """W34: "Next-list pointer semantics": "If the value is non-null, the GPU treats it as if DispatchList1
    (NextDispatchList, ...) had just been issued": the next D3D12_DISPATCH_LIST_INPUT1 lies in GPU memory."""
    return work_list(rng, tier2=True, flags_=CONT,
                     next_=UNMAPPED_VA + 8 * rng.randint(0, 64) if broken else 0).call


@breaks("chain-cycle")
def self_referencing_next_dispatch_list(rng: random.Random, broken: bool) -> Call:
    """W35: "Chain length and termination": "a producer-shader bug that writes a self-referencing NextDispatchList
    (in which case the chain is bounded only by GPU-engine TDR)"."""
    return work_list(rng, tier2=True, flags_=CONT, next_=INPUT_VA if broken else 0).call


# ----------------------------------------------------------------------------------------------------------------
# Primary and secondary records
# ----------------------------------------------------------------------------------------------------------------


def _patch_record(wl: WorkList, rng: random.Random, field: str, value: Any) -> None:
    """Set ``field`` of one random primary record."""
    i = rng.randrange(wl.n)
    f = pcs_layout(wl.pcs).primary.field(field)
    size = f.size
    wl.scene.memory.write(wl.record_va(i) + f.offset, (value % (1 << 8 * size)).to_bytes(size, "little"))


@breaks("program-table-index-out-of-range")
def program_table_index_past_slot_count(rng: random.Random, broken: bool) -> Call:
    """W44: D3D12_WORK_LIST_PRIMARY_RECORD::ProgramTableIndex: "Must be a valid index within the bound program
    table's SlotCount" (D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::SlotCount: "must be in [0, SlotCount)")."""
    wl = work_list(rng)
    if broken:
        _patch_record(wl, rng, "ProgramTableIndex", rng.randint(1, U32))
    return wl.call


@breaks("misaligned-va")
def misaligned_secondary_records(rng: random.Random, broken: bool) -> Call:
    """W45: D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords: "The address must be 8-byte aligned"."""
    wl = work_list(rng)
    if broken:
        i = rng.randrange(wl.n)
        f = pcs_layout(wl.pcs).primary.field("SecondaryRecords")
        wl.scene.memory.write(wl.record_va(i) + f.offset,
                              (SECONDARY_VA + 0x100 * i + rng.randint(1, 7)).to_bytes(f.size, "little"))
    return wl.call


@breaks("unmapped-va")
def secondary_records_past_their_memory(rng: random.Random, broken: bool) -> Call:
    """W46: D3D12_WORK_LIST_PRIMARY_RECORD::SecondaryRecords: "an array of NumSecondaryRecords secondary records,
    each SecondaryRecordByteStride bytes"."""
    wl = work_list(rng)
    if broken:
        i = rng.randrange(wl.n)
        f = pcs_layout(wl.pcs).primary.field("NumSecondaryRecords")
        wl.scene.memory.write(wl.record_va(i) + f.offset,
                              (wl.secondary[i] + rng.randint(1, 100)).to_bytes(f.size, "little"))
    return wl.call


@breaks("reserved-padding-nonzero")
def raytracing_record_reserved_padding(rng: random.Random, broken: bool) -> Call:
    """W48: D3D12_WORK_LIST_RAYTRACING_RECORD::ReservedPadding: "must be 0"."""
    s, call = raytracing_scene(True, rng.randint(1, U32) if broken else 0)
    return Call(s.memory, s.device, s.objects, s.state, call)


@breaks("stride-below-minimum")
def secondary_stride_below_minimum(rng: random.Random, broken: bool) -> Call:
    """W49: rule 25(e): "SecondaryRecordByteStride ... must be 0 or at least the minimum secondary-record size"
    (a capture can hold a PCS the creation-time rules reject: checked as the records are walked)."""
    wl = work_list(rng)
    if broken:
        wl.pcs.SecondaryRecordByteStride = 8
    return wl.call


@breaks("stride-misaligned")
def secondary_stride_misaligned(rng: random.Random, broken: bool) -> Call:
    """W50: rule 25(e): "SecondaryRecordByteStride ... and 8-byte aligned when non-zero"."""
    wl = work_list(rng)
    if broken:
        wl.pcs.SecondaryRecordByteStride = 16 + rng.choice([1, 2, 3, 4, 5, 6, 7, 12, 20])
    return wl.call


# ----------------------------------------------------------------------------------------------------------------
# The program table and its programs
# ----------------------------------------------------------------------------------------------------------------


@breaks("unknown-program-identifier")
def slot_with_an_unknown_identifier(rng: random.Random, broken: bool) -> Call:
    """W62: "Any given table entry is only referenced if an executing list points to it and has records to invoke
    on it; otherwise the memory doesn't need to be initialized": a referenced slot holds a known program's
    identifier."""
    wl = work_list(rng)
    if broken:
        wl.scene.memory.write(TABLE_VA, identifier(rng.randint(100, 200)))
    return wl.call


@breaks("program-without-command-signature")
def program_without_pcs(rng: random.Random, broken: bool) -> Call:
    """W63: "Every generic program whose identifier may appear in a program table must have a program command
    signature subobject associated with it"."""
    wl = work_list(rng)
    if broken:
        wl.scene.objects.programs["A"].ProgramCommandSignature = None
    return wl.call


@breaks("program-not-in-signature")
def program_of_another_signature(rng: random.Random, broken: bool) -> Call:
    """W64: "The associated program command signature must be one of the ID3D12ProgramCommandSignatures referenced
    ... by the ID3D12WorkListSignature that the dispatch list runs against"."""
    wl = work_list(rng)
    if broken:
        other = ProgramCommandSignature("Other", list(wl.pcs.pArgumentDescs), SecondaryRecordByteStride=16)
        wl.scene.objects.programs["A"].ProgramCommandSignature = other
    return wl.call


def culling_call(rng: random.Random, table_stride: int, table_size: int | None = None) -> Call:
    """The spec's culling PCS (a 16-byte program-table LRA: 48-byte records) with one program in a table of
    ``table_stride`` (0: broadcast) and 1-4 primary records of 1-3 draws each (SlotCount 8)."""
    pcs, grs = culling_pcs()
    s = Scene()
    p = program("Opaque", 1, pcs)
    s.add_programs(p)
    slot = program_table([(p, {"arg2_InlineRootParameter": [f32(x) for x in TINTS["Opaque"]]})], 48)
    s.put(TABLE_VA, slot + bytes(64))
    s.bind(WorkListSignature("WLS", [pcs]), TABLE_VA, table_stride, 8 if table_stride == 0 else 1,
           size=table_size if table_size is not None else max(table_stride, len(slot)))
    s.state.graphics_root_signature = grs
    records = []
    for i in range(rng.randint(1, 4)):
        rows = [{"arg0_ShaderResourceView": 0x5000 + k, "arg1_Draw": {"VertexCountPerInstance": 3, "InstanceCount": 1}}
                for k in range(rng.randint(1, 3))]
        s.put(SECONDARY_VA + 0x100 * i, secondaries(pcs, rows))
        records.append(primary(pcs, ProgramTableIndex=rng.randrange(8) if table_stride == 0 else 0,
                               NumSecondaryRecords=len(rows), SecondaryRecords=SECONDARY_VA + 0x100 * i))
    s.put(PRIMARY_VA, b"".join(records))
    s.put(INPUT_VA, dispatch_input(len(records), PRIMARY_VA, pcs_layout(pcs).primary.min_stride))
    return Call(s.memory, s.device, s.objects, s.state, DispatchListCall(INPUT_VA, len(records)))


@breaks("program-table-stride-too-small")
def program_table_stride_below_the_lra(rng: random.Random, broken: bool) -> Call:
    """W65: rule 6: "the program-table-record portion of its local root arguments ... must be ≤
    Table.StrideInBytes - sizeof(D3D12_PROGRAM_IDENTIFIER) ... Without that validation, mismatch is undefined
    behavior"."""
    return culling_call(rng, 40 if broken else rng.choice([48, 56, 64]))


@breaks("program-table-size-too-small")
def broadcast_table_below_its_record(rng: random.Random, broken: bool) -> Call:
    """W66: D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::Table: "For a zero stride, Table.SizeInBytes must hold the single
    broadcast record (one program identifier plus that program's program-table-record LRA)"."""
    record = program_table_layout(Program("Opaque", identifier(1), culling_pcs()[0]))
    assert record is not None  # the identifier and the 16-byte tint
    size = rng.randint(IDENTIFIER, record.size - 1) if broken else rng.randint(record.size, record.size + 64)
    return culling_call(rng, 0, size)


@breaks("unmapped-va")
def program_table_slot_past_its_memory(rng: random.Random, broken: bool) -> Call:
    """W68: "Populating the program table": "the SetProgram-bound D3D12_WORK_LIST_PROGRAM_TABLE_BINDING::Table.
    StartAddress is dereferenced at DispatchList time and slot ProgramTableIndex is read": the slot lies in GPU
    memory."""
    wl = work_list(rng)
    if broken:
        wl.scene.state.program.WorkList.Binding.ProgramTable.Table.StartAddress = UNMAPPED_VA
    return wl.call


@breaks("program-class-mismatch")
def signature_mixing_classes(rng: random.Random, broken: bool) -> Call:
    """W69: "Work List Signature": "a single work list signature cannot mix executable classes" (the list takes
    the class of the signature's first PCS; a record of another class is not executed)."""
    wl = work_list(rng)
    first = ProgramCommandSignature("First", [arg("DRAW" if broken else "DISPATCH")])
    wl.wls.pProgramCommandSignatures.insert(0, first)
    return wl.call


@breaks("invalid-program-command-signature")
def signature_with_an_unusable_pcs(rng: random.Random, broken: bool) -> Call:
    """W70: "Supported argument types": "Each program command signature must contain exactly one dispatch-trigger
    argument" (a capture's signature can hold one the creation-time rules reject: it has no record layout)."""
    wl = work_list(rng)
    if broken:
        wl.wls.pProgramCommandSignatures.append(ProgramCommandSignature("NoTrigger", []))
    return wl.call


@breaks("descriptor-heap-not-bound")
def descriptor_table_without_its_heap(rng: random.Random, broken: bool) -> Call:
    """W57: _DESCRIPTOR_TABLE: "If, at DispatchList time, no descriptor heap of the required type is bound on the
    command list, behavior for any record that actually executes a DESCRIPTOR_TABLE argument is undefined"."""
    sampler = rng.random() < 0.5
    grs = root_signature("GRS", table_param("SAMPLER" if sampler else "SRV"))
    pcs = ProgramCommandSignature("T", [arg("DESCRIPTOR_TABLE", DescriptorTable=RootParameterIndexArg(0)),
                                        arg("DISPATCH")], pGlobalRootSignature=grs)
    s = one_program_scene(pcs)
    stride = pcs_layout(pcs).primary.min_stride
    n = rng.randint(1, 4)
    s.put(PRIMARY_VA, b"".join(primary(pcs, ProgramTableIndex=0, arg0_DescriptorTable={"ptr": 0x100 + 8 * i},
                                       arg1_Dispatch=dispatch(1)) for i in range(n)))
    s.put(INPUT_VA, dispatch_input(n, PRIMARY_VA, stride))
    setattr(s.state.descriptor_heaps, "SAMPLER" if sampler else "CBV_SRV_UAV", not broken)
    return Call(s.memory, s.device, s.objects, s.state, DispatchListCall(INPUT_VA))


@breaks("descriptor-handle-outside-heap")
def descriptor_handle_outside_its_heap(rng: random.Random, broken: bool) -> Call:
    """W58: _DESCRIPTOR_TABLE: the record's D3D12_GPU_DESCRIPTOR_HANDLE "must address the currently bound descriptor
    heap of the appropriate type" (the capture gives the bound heaps' ranges, version 4): a global SRV table from
    the primary record and a local sampler table from each secondary record, one of them moved outside its heap, off
    a descriptor boundary, or into the heap of the other type."""
    handles = [(heap_handle("CBV_SRV_UAV", rng.randrange(256)),
                [heap_handle("SAMPLER", rng.randrange(16)) for _ in range(rng.randint(1, 3))])
               for _ in range(rng.randint(1, 4))]
    if broken:
        i = rng.randrange(len(handles))
        srv_handle, samplers = handles[i]
        how = rng.choice(["outside", "boundary", "other heap"])
        if rng.random() < 0.5:
            srv_handle = {"outside": heap_handle("CBV_SRV_UAV", 256), "boundary": srv_handle + 4,
                          "other heap": heap_handle("SAMPLER", 0)}[how]
        else:
            j = rng.randrange(len(samplers))
            samplers[j] = {"outside": heap_handle("SAMPLER", -1), "boundary": samplers[j] + 8,
                           "other heap": heap_handle("CBV_SRV_UAV", 0)}[how]
        handles[i] = (srv_handle, samplers)
    s, call = descriptor_table_scene(handles)
    return Call(s.memory, s.device, s.objects, s.state, call)


# ----------------------------------------------------------------------------------------------------------------
# Rules 14 and 18: what SetProgram bound is immutable for the call
# ----------------------------------------------------------------------------------------------------------------


class WriteBack:
    """Validation hooks (the only writers of GPU memory during a call) that write ``size`` bytes at ``va`` back
    unchanged in list 0's primary-list step: a write, though no byte changes."""

    def __init__(self, va: int, size: int) -> None:
        self.va, self.size = va, size

    def signature_selection(self, run: Any) -> bool:
        return False

    def primary_list(self, run: Any) -> bool:
        if run.index == 0:
            run.ctx.memory.write(self.va, run.ctx.memory.read(self.va, self.size))
        return True

    def secondary_lists(self, run: Any) -> bool:
        return False


@breaks("program-table-mutated")
def write_into_a_bound_program_table(rng: random.Random, broken: bool) -> Call:
    """W71: rule 14: "The buffer pointed to by binding.ProgramTable.Table.StartAddress ..., plus the buffer pointed
    to by D3D12_SET_WORK_LIST_DESC1's ValidationProgramTable.Table.StartAddress if present, must not be written by
    the GPU or the CPU during this window"."""
    wl = work_list(rng, tier2=True, array=True)
    validation_table(wl.scene, [None, None])
    wl.scene.put(SCRATCH_VA, bytes(64))
    size = rng.randint(1, 8)
    if not broken:
        target = SCRATCH_VA + rng.randint(0, 56)
    elif rng.random() < 0.5:
        target = TABLE_VA + rng.randint(0, IDENTIFIER - size)  # slot 0: its identifier
    else:
        target = VT_VA + rng.randint(0, 2 * IDENTIFIER - size)
    wl.call.hooks = WriteBack(target, size)
    return wl.call


@breaks("shader-table-mutated")
def write_into_a_bound_shader_table(rng: random.Random, broken: bool) -> Call:
    """W72: rule 18: "the D3D12_WORK_LIST_RAYTRACING_BINDING's pRaytracingStateObject reference and its four
    shader-table address/range/stride values must not change during this window" (D3D12_WORK_LIST_RAYTRACING_
    BINDING: "Contents ... must not be mutated from when SetProgram executes on the GPU until every referencing
    DispatchList / DispatchList1 chain completes")."""
    c = Chain()
    c.chain(["raytracing"])
    rt = c.s.state.program.WorkList1.pBindings[3].pRaytracing
    name = rng.choice(["RayGenerationShaderRecord", "MissShaderTable", "HitGroupTable", "CallableShaderTable"])
    table = getattr(rt, name)
    table.StartAddress, table.SizeInBytes = 0x9000, 128
    if name != "RayGenerationShaderRecord":
        table.StrideInBytes = 64
    c.s.put(0x9000, bytes(128))
    c.s.put(SCRATCH_VA, bytes(64))
    validation_table(c.s, [None, None])
    size = rng.randint(1, 8)
    target = 0x9000 + rng.randint(0, 128 - size) if broken else SCRATCH_VA + rng.randint(0, 56)
    return Call(c.s.memory, c.s.device, c.s.objects, c.s.state, DispatchListCall(0x1000, 16, 16, tier2=True),
                WriteBack(target, size))


# ----------------------------------------------------------------------------------------------------------------
# GPU Timeline Validation Hooks (validators: d3d12wl.executor.validation)
# ----------------------------------------------------------------------------------------------------------------

SS_SLOT, PL_SLOT = 1, 2  # validation-program-table slots of the signature-selection and primary-list validators
SS_ID, PL_ID = identifier(201), identifier(202)


def hooked(rng: random.Random) -> tuple[WorkList, ValidationRunner]:
    """The hybrid work list through a one-signature array with a validation program table of three slots (0: the
    sentinel, 1: a signature-selection validator, 2: a primary-list validator), neither designated yet."""
    wl = work_list(rng, tier2=True, array=True)
    validation_table(wl.scene, [None, SS_ID, PL_ID])
    runner = ValidationRunner()
    wl.call.hooks = runner
    return wl, runner


def _nothing(call: ValidatorCall) -> None:
    pass


@breaks("validator-index-out-of-range")
def validator_index_past_the_table(rng: random.Random, broken: bool) -> Call:
    """W87: the validation program table is "structurally identical to the regular program table" (SlotCount:
    "must be in [0, SlotCount)"): a non-zero validation index field names one of its slots."""
    wl, runner = hooked(rng)
    runner.register(Validator(PL_ID, _nothing, "PL", validator_pcs("VPL", AREA_PRIMARY_LIST)))
    wl.wls.ListValidationProgramTableIndex = rng.randint(3, 99) if broken else PL_SLOT
    return wl.call


@breaks("unknown-validator-identifier")
def validator_slot_with_an_unknown_identifier(rng: random.Random, broken: bool) -> Call:
    """W88: "Validation programs are regular generic compute programs declared in ID3D12StateObjects. Their
    identifiers are obtained via ID3D12StateObjectProperties1::GetProgramIdentifier, written into the validation
    program table": a designated slot holds a validator program's identifier."""
    wl, runner = hooked(rng)
    if not broken:
        runner.register(Validator(PL_ID, _nothing, "PL", validator_pcs("VPL", AREA_PRIMARY_LIST)))
    wl.wls.ListValidationProgramTableIndex = PL_SLOT
    return wl.call


@breaks("validator-without-signature")
def validator_without_a_program_command_signature(rng: random.Random, broken: bool) -> Call:
    """W89: "The validator program command signatures are never members of any work list signature's
    pProgramCommandSignatures[]; they are reached exclusively through slots in the bound validation program
    table": a validator program has its program command signature."""
    wl, runner = hooked(rng)
    runner.register(Validator(PL_ID, _nothing, "PL", None if broken else validator_pcs("VPL", AREA_PRIMARY_LIST)))
    wl.wls.ListValidationProgramTableIndex = PL_SLOT
    return wl.call


@breaks("validator-grid-missing")
def validator_without_a_fixed_dispatch_grid(rng: random.Random, broken: bool) -> Call:
    """W90: "Each validator program command signature declares its dispatch grid with a _FIXED_DISPATCH arg
    (Source == _STATIC)"."""
    wl, runner = hooked(rng)
    pcs = validator_pcs("VPL", AREA_PRIMARY_LIST, grid=(rng.randint(1, 8), 1, 1))
    if broken:
        pcs.pArgumentDescs.pop()  # validator_pcs puts the _FIXED_DISPATCH grid last
    runner.register(Validator(PL_ID, _nothing, "PL", pcs))
    wl.wls.ListValidationProgramTableIndex = PL_SLOT
    return wl.call


@breaks("validator-pointer-arg-unavailable")
def signature_selection_validator_with_list_pointers(rng: random.Random, broken: bool) -> Call:
    """W91: "the program command signature that SignatureSelectionValidationProgramTableIndex points at should
    declare only DISPATCH_LIST_HEADER_POINTER" (the availability table: each validator area is bound its own
    pointers)."""
    wl, runner = hooked(rng)
    pointers = ["DISPATCH_LIST_HEADER_POINTER"]
    if broken:
        pointers.append(rng.choice(["PROGRAM_TABLE_POINTER", "PRIMARY_LIST_POINTER", "PRIMARY_RECORD_POINTER",
                                    "SECONDARY_LIST_POINTER"]))
    runner.register(Validator(SS_ID, _nothing, "SS", validator_pcs("VSS", AREA_SIGNATURE_SELECTION, pointers)))
    wl.scene.state.program.WorkList1.SignatureSelectionValidationProgramTableIndex = SS_SLOT
    return wl.call


@breaks("validator-fault")
def validator_writing_outside_writable_memory(rng: random.Random, broken: bool) -> Call:
    """W92: "A validation shader can defensively neutralize bad records by writing back through any of its bindings
    declared as a UAV-bound root descriptor": its writes land in writable GPU memory."""
    wl, runner = hooked(rng)
    target = UNMAPPED_VA + 8 * rng.randint(0, 64) if broken else None
    count = abi.offsetof(INPUT1, "NumProgramInputs")

    def rewrite_count(call: ValidatorCall) -> None:
        header = call.pointer("DISPATCH_LIST_HEADER_POINTER")
        assert header is not None
        va = header + count if target is None else target
        call.memory.write(va, call.memory.read(header + count, 4))  # the same count back (or into nowhere)

    runner.register(Validator(PL_ID, rewrite_count, "PL", validator_pcs("VPL", AREA_PRIMARY_LIST)))
    wl.wls.ListValidationProgramTableIndex = PL_SLOT
    return wl.call


# ----------------------------------------------------------------------------------------------------------------
# The command list the call is recorded on (capture version 3: state.command_list_type, state.in_render_pass)
# ----------------------------------------------------------------------------------------------------------------

COMMAND_LIST_TYPE = "D3D12_COMMAND_LIST_TYPE"
#: "Both methods are invalid on copy or video command lists" (Work Lists "Command queue type")
COPY_OR_VIDEO = ("COPY", "VIDEO_DECODE", "VIDEO_PROCESS", "VIDEO_ENCODE")
CHAIN_KINDS = ("compute", "graphics", "mesh", "raytracing")
GRAPHICS_KINDS = ("graphics", "mesh")


def _chain_with(rng: random.Random, must: tuple[str, ...]) -> list[str]:
    """1-4 list kinds of the four-signature array (tests/test_executor_chains.py::Chain), one of them of ``must``."""
    kinds = [rng.choice(CHAIN_KINDS) for _ in range(rng.randint(1, 4))]
    kinds[rng.randrange(len(kinds))] = rng.choice(must)
    return kinds


@breaks("dispatch-list-in-bundle")
def dispatch_list_in_a_bundle(rng: random.Random, broken: bool) -> Call:
    """W96: Bundles: "DispatchList is not allowed inside a bundle command list ... Recording DispatchList into a
    bundle is invalid" (kept: a direct or compute command list; the signature is compute-class)."""
    wl = work_list(rng, tier2=rng.random() < 0.5)
    wl.scene.state.command_list_type = E(COMMAND_LIST_TYPE, "BUNDLE" if broken else rng.choice(["DIRECT", "COMPUTE"]))
    return wl.call


@breaks("command-list-type-invalid")
def dispatch_list_on_a_copy_or_video_list(rng: random.Random, broken: bool) -> Call:
    """W97: Command queue type: "Both methods are invalid on copy or video command lists" (kept: direct, or compute
    for a compute-class signature)."""
    trigger = rng.choice(["DISPATCH", "DRAW"])
    wl = work_list(rng, tier2=rng.random() < 0.5, trigger=trigger)
    kept = rng.choice(["DIRECT", "COMPUTE"] if trigger == "DISPATCH" else ["DIRECT"])
    wl.scene.state.command_list_type = E(COMMAND_LIST_TYPE, rng.choice(COPY_OR_VIDEO) if broken else kept)
    return wl.call


@breaks("command-list-type-invalid")
def graphics_signature_used_on_a_compute_list(rng: random.Random, broken: bool) -> Call:
    """W97: Command queue type: "On compute command lists they are valid when every signature actually used by the
    call is compute-class or raytracing-class, ... every signature reached via SignatureIndex across the
    continuation chain in the Tier 2 case" (a chain that selects a graphics-class signature: kept on a direct
    command list, broken on a compute one)."""
    c = chain_call(_chain_with(rng, GRAPHICS_KINDS))
    c.state.command_list_type = E(COMMAND_LIST_TYPE, "COMPUTE" if broken else "DIRECT")
    return c


@breaks("render-pass-compute-class")
def compute_class_list_inside_a_render_pass(rng: random.Random, broken: bool) -> Call:
    """W98: Render passes: "Compute-class and raytracing-class lists cannot be recorded inside a render pass scope";
    "For Tier 2 mixed-class chains the call is rejected inside a render pass if any signature reachable via
    SignatureIndex across the chain is compute-class or raytracing-class, even when the first list is
    graphics-class" (a DispatchList of a compute-class signature, or a chain with a compute or raytracing list)."""
    c = work_list(rng).call if rng.random() < 0.25 else chain_call(_chain_with(rng, ("compute", "raytracing")))
    c.state.in_render_pass = broken
    return c


@breaks("root-parameter-not-set")
def global_root_parameter_set_by_nothing(rng: random.Random, broken: bool) -> Call:
    """W99: Binding sources at record execution: "The PSO sees the merged result: every global root signature slot
    the program uses (filled from one of the global root signature sources above)"; "global root signature slots
    not touched by any per-record arg keep the value that was set on the command list before DispatchList via
    SetGraphicsRoot* / SetComputeRoot* calls" (a slot of the PCS's pGlobalRootSignature that no argument sets,
    and no value on the command list either)."""
    trigger = rng.choice(["DISPATCH", "DRAW"])
    wl = work_list(rng, tier2=rng.random() < 0.5, trigger=trigger)
    params = root_parameters(rng)
    grs = root_signature("GRS", *[p for p, _ in params])
    wl.pcs.pGlobalRootSignature = grs
    args = {p: a for p, (_, a) in enumerate(params)}
    if broken:
        unset_one(rng, args)
    graphics = trigger == "DRAW"
    wl.scene.state.graphics_root_signature = grs if graphics else None
    wl.scene.state.compute_root_signature = None if graphics else grs
    (wl.scene.state.graphics_root_arguments if graphics else wl.scene.state.compute_root_arguments).update(args)
    return wl.call
