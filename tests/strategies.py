"""Builders and hypothesis strategies for creation-time objects (program command signatures, work list signatures
and their root signatures), shared by the rule, layout and codegen tests.

Builders (plain functions, enum members by short name, everything else C's zero value):

* :func:`wl_arg` one ``WorkListArgumentDesc``; :func:`ei_arg` one ``IndirectArgumentDesc``;
* :func:`root_param`, :func:`root_signature`, :func:`inline_param`, :func:`inline_sampler`;
* :func:`culling_example` the spec's culling example (section "GPU culling and work list emission").

Strategies (``from strategies import valid_pcs, valid_work_list_signature``):

* :func:`valid_pcs` draws a :class:`GeneratedPCS` (a program command signature plus its global root signature)
  that every creation-time rule accepts on :data:`PERMISSIVE_CAPS`;
* :func:`valid_work_list_signature` draws a :class:`GeneratedWLS` (a work list signature, its program command
  signatures and their shared global root signature), uniform per rules 7-9 and Uniformity constraints 4 and 5.

Generated signatures cover every executable class, hybrid and fully-inline records, root constants split into
sub-ranges (literal and incrementing), root descriptors, descriptor tables, data-role system pointers, vertex/index
buffer views, inline local root parameters (constants split across primary/secondary/program-table sources) and inline
static samplers, with args interleaved in any order the rules allow.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import pairwise

from hypothesis import strategies as st

from d3d12wl import abi
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import (
    CommandSignature,
    DescriptorRange1,
    IndirectArgumentDesc,
    ProgramCommandSignature,
    RootConstants,
    RootDescriptor1,
    RootDescriptorTable1,
    RootParameter1,
    RootSignature,
    StaticSamplerDesc1,
    WorkListArgumentDesc,
    WorkListSignature,
)
from d3d12wl.model.state import DeviceCaps
from d3d12wl.records.layout import pcs_layout

# ------------------------------------------------------------------------------------------------------------------
# Builders
# ------------------------------------------------------------------------------------------------------------------


def ev(enum: str, member: str) -> int:
    """Enum value by short or full member name."""
    return abi.enum_value(enum, member)


TIER_1 = ev("D3D12_WORK_LISTS_TIER", "D3D12_WORK_LISTS_TIER_1")
TIER_2 = ev("D3D12_WORK_LISTS_TIER", "D3D12_WORK_LISTS_TIER_2")
#: A Tier 2 device with DispatchRaysSupported: the caps on which generated signatures must validate clean.
PERMISSIVE_CAPS = DeviceCaps(Tier=TIER_2, DispatchRaysSupported=True)


def root_param(kind: str, num: int = 0, register: int = 0, space: int = 0, visibility: str = "ALL") -> RootParameter1:
    """A ``D3D12_ROOT_PARAMETER1``: ``kind`` is a D3D12_ROOT_PARAMETER_TYPE short name; ``num`` the constants count."""
    p = RootParameter1(ParameterType=ev("D3D12_ROOT_PARAMETER_TYPE", kind),
                       ShaderVisibility=ev("D3D12_SHADER_VISIBILITY", visibility))
    if kind == "32BIT_CONSTANTS":
        p.Constants = RootConstants(register, space, num)
    elif kind == "DESCRIPTOR_TABLE":
        p.DescriptorTable = RootDescriptorTable1([DescriptorRange1(NumDescriptors=1, BaseShaderRegister=register,
                                                                   RegisterSpace=space)])
    else:
        p.Descriptor = RootDescriptor1(register, space)
    return p


def root_signature(name: str, *params: RootParameter1 | str, local: bool = False) -> RootSignature:
    """A root signature; a ``str`` parameter is a kind for :func:`root_param` (constants get 4 values)."""
    built = [root_param(p, 4 if p == "32BIT_CONSTANTS" else 0, register=i) if isinstance(p, str) else p
             for i, p in enumerate(params)]
    flags = ev("D3D12_ROOT_SIGNATURE_FLAGS", "LOCAL_ROOT_SIGNATURE") if local else 0
    return RootSignature(name, built, Flags=flags)


_RPI_MEMBER = {"CONSTANT_BUFFER_VIEW": "ConstantBufferView", "SHADER_RESOURCE_VIEW": "ShaderResourceView",
               "UNORDERED_ACCESS_VIEW": "UnorderedAccessView", "DESCRIPTOR_TABLE": "DescriptorTable",
               "DISPATCH_LIST_HEADER_POINTER": "DispatchListHeaderPointer",
               "PROGRAM_TABLE_POINTER": "ProgramTablePointer", "PRIMARY_LIST_POINTER": "PrimaryListPointer",
               "PRIMARY_RECORD_POINTER": "PrimaryRecordPointer", "SECONDARY_LIST_POINTER": "SecondaryListPointer",
               "SECONDARY_RECORD_POINTER": "SecondaryRecordPointer"}


def wl_arg(type_name: str, source: str = "PRIMARY_RECORD", binding: str = "GLOBAL_ROOT_SIGNATURE", *,
           rpi: int = 0, dest: int = 0, num: int = 0, slot: int = 0, flags: int = 0,
           grid: tuple[int, int, int] = (1, 1, 1)) -> WorkListArgumentDesc:
    """One Work Lists argument.  ``rpi`` goes to the type's RootParameterIndex; ``dest``/``num`` to CONSTANT and
    INCREMENTING_CONSTANT; ``slot`` to VERTEX_BUFFER_VIEW; ``grid`` to FIXED_DISPATCH."""
    a = WorkListArgumentDesc(Type=ev("D3D12_INDIRECT_ARGUMENT_TYPE", type_name),
                             Source=ev("D3D12_INDIRECT_ARGUMENT_SOURCE", source),
                             Binding=ev("D3D12_INDIRECT_ARGUMENT_BINDING", binding))
    if type_name == "CONSTANT":
        a.Constant.RootParameterIndex, a.Constant.DestOffsetIn32BitValues, a.Constant.Num32BitValuesToSet = rpi, dest, num
    elif type_name == "INCREMENTING_CONSTANT":
        ic = a.IncrementingConstant
        ic.RootParameterIndex, ic.DestOffsetIn32BitValues, ic.Flags = rpi, dest, flags
    elif type_name == "VERTEX_BUFFER_VIEW":
        a.VertexBuffer.Slot = slot
    elif type_name == "FIXED_DISPATCH":
        a.FixedDispatch.ThreadGroupCountX, a.FixedDispatch.ThreadGroupCountY, a.FixedDispatch.ThreadGroupCountZ = grid
    elif type_name in _RPI_MEMBER:
        getattr(a, _RPI_MEMBER[type_name]).RootParameterIndex = rpi
    return a


def inline_param(source: str, kind: str = "32BIT_CONSTANTS", *, size: int = 4, dest: int = 0, num: int | None = None,
                 register: int = 0, space: int = 1, visibility: str = "ALL") -> WorkListArgumentDesc:
    """An INLINE_ROOT_PARAMETER arg declaring a local slot (``size`` constants for a constants slot) and filling
    DWORDs [dest, dest + num) of it (``num`` defaults to the whole slot; 0 for non-constant slots)."""
    a = wl_arg("INLINE_ROOT_PARAMETER", source, "LOCAL_ROOT_SIGNATURE")
    a.InlineRootParameter.RootParameter = root_param(kind, size, register, space, visibility)
    if kind == "32BIT_CONSTANTS":
        a.InlineRootParameter.DestOffsetIn32BitValues = dest
        a.InlineRootParameter.Num32BitValuesToSet = size - dest if num is None else num
    return a


def inline_sampler(register: int = 0, space: int = 1, source: str = "STATIC",
                   visibility: str = "ALL") -> WorkListArgumentDesc:
    a = wl_arg("INLINE_STATIC_SAMPLER", source, "LOCAL_ROOT_SIGNATURE")
    a.InlineStaticSampler = StaticSamplerDesc1(ShaderRegister=register, RegisterSpace=space,
                                               ShaderVisibility=ev("D3D12_SHADER_VISIBILITY", visibility))
    return a


def ei_arg(type_name: str, *, rpi: int = 0, dest: int = 0, num: int = 0, slot: int = 0) -> IndirectArgumentDesc:
    """One ExecuteIndirect argument."""
    a = IndirectArgumentDesc(Type=ev("D3D12_INDIRECT_ARGUMENT_TYPE", type_name))
    if type_name == "CONSTANT":
        a.Constant.RootParameterIndex, a.Constant.DestOffsetIn32BitValues, a.Constant.Num32BitValuesToSet = rpi, dest, num
    elif type_name == "INCREMENTING_CONSTANT":
        a.IncrementingConstant.RootParameterIndex, a.IncrementingConstant.DestOffsetIn32BitValues = rpi, dest
    elif type_name == "VERTEX_BUFFER_VIEW":
        a.VertexBuffer.Slot = slot
    elif type_name in _RPI_MEMBER:
        getattr(a, _RPI_MEMBER[type_name]).RootParameterIndex = rpi
    return a


def command_signature(name: str, stride: int, args: list[IndirectArgumentDesc],
                      rs: RootSignature | None = None) -> CommandSignature:
    return CommandSignature(name, stride, args, pRootSignature=rs)


def culling_example() -> ProgramCommandSignature:
    """The spec's culling example PCS ("GPU culling and work list emission", CPU-side setup step 1): root SRV at
    global slot 1 and DRAW from the secondary record, a 4-DWORD tint constants slot (b0 space1) from the
    program-table record, a static sampler (s0 space1); SecondaryRecordByteStride 24."""
    grs = root_signature("GRS", "CBV", "SRV")
    args = [wl_arg("SHADER_RESOURCE_VIEW", "SECONDARY_RECORD", rpi=1),
            wl_arg("DRAW", "SECONDARY_RECORD"),
            inline_param("PROGRAM_TABLE_RECORD", size=4, register=0, space=1),
            inline_sampler(register=0, space=1)]
    return ProgramCommandSignature("PCS", args, SecondaryRecordByteStride=24, pGlobalRootSignature=grs)


# ------------------------------------------------------------------------------------------------------------------
# Strategies
# ------------------------------------------------------------------------------------------------------------------


@dataclass
class GeneratedPCS:
    pcs: ProgramCommandSignature
    global_root_signature: RootSignature


@dataclass
class GeneratedWLS:
    wls: WorkListSignature
    pcses: list[ProgramCommandSignature]
    global_root_signature: RootSignature


@dataclass
class _Plan:
    """What every PCS of one work list signature shares (rules 7-9): class, GRS, updated parameters, IA slots."""

    cls: ExecutableClass
    grs: RootSignature
    touched: list[int]
    vbs: list[int]
    ib: bool
    kinds: list[str] = field(default_factory=list)


_PARAM_KINDS = ("32BIT_CONSTANTS", "CBV", "SRV", "UAV", "DESCRIPTOR_TABLE")
_RECORD = ("PRIMARY_RECORD", "SECONDARY_RECORD")


@st.composite
def _plan(draw: st.DrawFn, cls: ExecutableClass | None = None) -> _Plan:
    cls = cls or draw(st.sampled_from(list(ExecutableClass)))
    kinds = draw(st.lists(st.sampled_from(_PARAM_KINDS), max_size=6))
    params = [root_param(k, draw(st.integers(1, 8)) if k == "32BIT_CONSTANTS" else 0, register=i)
              for i, k in enumerate(kinds)]
    grs = root_signature("GRS", *params)
    touched = sorted(draw(st.sets(st.integers(0, len(kinds) - 1)))) if kinds else []
    graphics = cls is ExecutableClass.GRAPHICS
    vbs = sorted(draw(st.sets(st.integers(0, 31), max_size=3))) if graphics else []
    ib = graphics and draw(st.booleans())
    return _Plan(cls, grs, touched, vbs, ib, kinds)


def _split(draw: st.DrawFn, size: int) -> list[tuple[int, int]]:
    """Ascending, non-overlapping, non-empty DWORD ranges inside [0, size); at least one."""
    cuts = sorted(draw(st.sets(st.integers(1, size - 1), max_size=3))) if size > 1 else []
    bounds = [0, *cuts, size]
    ranges = list(pairwise(bounds))
    keep = draw(st.lists(st.booleans(), min_size=len(ranges), max_size=len(ranges)))
    chosen = [r for r, k in zip(ranges, keep, strict=True) if k]
    return chosen or [ranges[0]]


@st.composite
def _pcs_from_plan(draw: st.DrawFn, plan: _Plan, name: str, allow_counter: bool) -> ProgramCommandSignature:
    rt = plan.cls is ExecutableClass.RAYTRACING
    hybrid_wanted = draw(st.booleans())
    source = st.sampled_from(_RECORD) if hybrid_wanted else st.just("PRIMARY_RECORD")
    counter_used = False
    global_blocks: list[list[WorkListArgumentDesc]] = []
    pointers: list[WorkListArgumentDesc] = []
    for p in plan.touched:
        kind = plan.kinds[p]
        if kind == "32BIT_CONSTANTS":
            block = []
            for start, end in _split(draw, plan.grs.pParameters[p].Constants.Num32BitValues):
                if allow_counter and not counter_used and end - start == 1 and draw(st.booleans()):
                    flags = draw(st.sampled_from([0, 1]))
                    block.append(wl_arg("INCREMENTING_CONSTANT", "SYSTEM", rpi=p, dest=start, flags=flags))
                    counter_used = True
                else:
                    block.append(wl_arg("CONSTANT", draw(source), rpi=p, dest=start, num=end - start))
            global_blocks.append(block)
        elif kind == "DESCRIPTOR_TABLE":
            global_blocks.append([wl_arg("DESCRIPTOR_TABLE", draw(source), rpi=p)])
        else:
            choices = ["VIEW", "PRIMARY_RECORD_POINTER", "SECONDARY_RECORD_POINTER"]
            if not rt:
                choices.append("PROGRAM_TABLE_POINTER")
            pick = draw(st.sampled_from(choices))
            if pick == "VIEW":
                view = {"CBV": "CONSTANT_BUFFER_VIEW", "SRV": "SHADER_RESOURCE_VIEW", "UAV": "UNORDERED_ACCESS_VIEW"}
                global_blocks.append([wl_arg(view[kind], draw(source), rpi=p)])
            else:
                pointer = wl_arg(pick, "SYSTEM", rpi=p)
                pointers.append(pointer)
                global_blocks.append([pointer])

    other_blocks: list[list[WorkListArgumentDesc]] = []
    if plan.cls is ExecutableClass.GRAPHICS:
        trigger = "DRAW_INDEXED" if plan.ib else draw(st.sampled_from(["DRAW", "DRAW_INDEXED", "DISPATCH_MESH"]))
        other_blocks.append([wl_arg(trigger, draw(source))])
        other_blocks += [[wl_arg("VERTEX_BUFFER_VIEW", draw(source), slot=s)] for s in plan.vbs]
        if plan.ib:
            other_blocks.append([wl_arg("INDEX_BUFFER_VIEW", draw(source))])
    elif plan.cls is ExecutableClass.COMPUTE:
        if draw(st.booleans()):
            grid = (draw(st.integers(1, 65535)), draw(st.integers(1, 65535)), draw(st.integers(1, 65535)))
            other_blocks.append([wl_arg("FIXED_DISPATCH", "STATIC", grid=grid)])
        else:
            other_blocks.append([wl_arg("DISPATCH", draw(source))])
    else:
        other_blocks.append([wl_arg("DISPATCH_RAYS_DIMENSIONS", draw(source))])

    if not rt and draw(st.booleans()):  # implicit local root signature
        inline_source = st.sampled_from(["PROGRAM_TABLE_RECORD", "PRIMARY_RECORD", "SECONDARY_RECORD"]
                                        if hybrid_wanted else ["PROGRAM_TABLE_RECORD", "PRIMARY_RECORD"])
        for register in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(_PARAM_KINDS))
            if kind == "32BIT_CONSTANTS":
                size = draw(st.integers(1, 8))
                other_blocks.append([inline_param(draw(inline_source), size=size, dest=s, num=e - s, register=register)
                                     for s, e in _split(draw, size)])
            else:
                other_blocks.append([inline_param(draw(inline_source), kind, register=register)])
        other_blocks += [[inline_sampler(register=r)] for r in range(draw(st.integers(0, 2)))]

    blocks = global_blocks + other_blocks
    order = draw(st.permutations(range(len(blocks))))
    global_positions = sorted(i for i, b in enumerate(order) if b < len(global_blocks))
    placed: list[list[WorkListArgumentDesc]] = [blocks[b] for b in order]
    for position, block in zip(global_positions, global_blocks, strict=True):
        placed[position] = block  # globals keep ascending RootParameterIndex order (rule 24(a))
    args = [a for block in placed for a in block]

    hybrid = any(a.Source == ev("D3D12_INDIRECT_ARGUMENT_SOURCE", "SECONDARY_RECORD") for a in args)
    if not hybrid:
        for pointer in pointers:  # SECONDARY_RECORD_POINTER needs a hybrid signature
            if pointer.Type == ev("D3D12_INDIRECT_ARGUMENT_TYPE", "SECONDARY_RECORD_POINTER"):
                pointer.Type = ev("D3D12_INDIRECT_ARGUMENT_TYPE", "PRIMARY_RECORD_POINTER")
                pointer.PrimaryRecordPointer.RootParameterIndex = pointer.SecondaryRecordPointer.RootParameterIndex
    uses_grs = bool(plan.touched)
    pcs = ProgramCommandSignature(name, args, 0, plan.grs if uses_grs or draw(st.booleans()) else None)
    if hybrid and draw(st.booleans()):
        secondary = pcs_layout(pcs).secondary
        assert secondary is not None
        pcs.SecondaryRecordByteStride = secondary.min_stride + 8 * draw(st.integers(0, 3))
    return pcs


@st.composite
def valid_pcs(draw: st.DrawFn, cls: ExecutableClass | None = None) -> GeneratedPCS:
    """A program command signature every creation-time rule accepts on :data:`PERMISSIVE_CAPS`, with its GRS."""
    plan = draw(_plan(cls))
    pcs = draw(_pcs_from_plan(plan, "PCS", allow_counter=True))
    return GeneratedPCS(pcs, plan.grs)


@st.composite
def valid_work_list_signature(draw: st.DrawFn, cls: ExecutableClass | None = None) -> GeneratedWLS:
    """A work list signature (1-3 PCSes of one class; exactly one when raytracing-class) that every creation-time
    rule accepts on :data:`PERMISSIVE_CAPS`, with its PCSes and shared global root signature."""
    plan = draw(_plan(cls))
    count = 1 if plan.cls is ExecutableClass.RAYTRACING else draw(st.integers(1, 3))
    counter_owner = draw(st.integers(-1, count - 1))
    pcses = [draw(_pcs_from_plan(plan, f"PCS{i}", allow_counter=i == counter_owner)) for i in range(count)]
    if plan.touched:
        for pcs in pcses:
            pcs.pGlobalRootSignature = plan.grs
    mask = draw(st.sampled_from([0, ev("D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "VS")
                                 | ev("D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "PS")]))
    return GeneratedWLS(WorkListSignature("WLS", pcses, mask), pcses, plan.grs)
