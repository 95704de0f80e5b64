"""Test support for the executor tests (and ``tools/executor_worst_cases.py``): build objects, pack records from
layouts, map them into GPU memory, and the few scenes several of them start from.

Every offset comes from :mod:`d3d12wl.records.layout` (records) or :mod:`d3d12wl.abi` (fixed structs); nothing here types
an offset.  Values are given by field name, as the executor's decoder returns them (structs as dicts, DWORD runs as
lists).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from random import Random
from typing import Any

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model.objects import (
    CommandSignature,
    DescriptorRange1,
    IndirectArgumentDesc,
    InlineRootParameter,
    ObjectSet,
    Program,
    ProgramCommandSignature,
    RootParameter1,
    RootParameterIndexArg,
    RootSignature,
    StaticSamplerDesc1,
    WorkListArgumentDesc,
    WorkListSignature,
    WorkListSignatureArray,
)
from d3d12wl.model.state import (
    CommandListState,
    DescriptorHeap,
    DescriptorHeaps,
    DeviceCaps,
    DispatchListCall,
    GpuVirtualAddressRange,
    GpuVirtualAddressRangeAndStride,
    ProgramTableBinding,
    RaytracingBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    SetWorkListDesc1,
    WorkListBinding,
)
from d3d12wl.records.layout import RecordLayout, pcs_layout, program_table_layout


def E(enum: str, member: str) -> int:  # noqa: N802 - reads like the C enum
    return abi.enum_value(enum, member)


def flags(enum: str, *members: str) -> int:
    value = 0
    for m in members:
        value |= E(enum, m)
    return value


# -- objects -----------------------------------------------------------------------------------------------------


def arg(type_: str, source: str = "PRIMARY_RECORD", binding: str = "GLOBAL_ROOT_SIGNATURE",
        **members: Any) -> WorkListArgumentDesc:
    a = WorkListArgumentDesc(Type=E("D3D12_INDIRECT_ARGUMENT_TYPE", type_),
                             Source=E("D3D12_INDIRECT_ARGUMENT_SOURCE", source),
                             Binding=E("D3D12_INDIRECT_ARGUMENT_BINDING", binding))
    for name, value in members.items():
        setattr(a, name, value)
    return a


def ei_arg(type_: str, **members: Any) -> IndirectArgumentDesc:
    a = IndirectArgumentDesc(Type=E("D3D12_INDIRECT_ARGUMENT_TYPE", type_))
    for name, value in members.items():
        setattr(a, name, value)
    return a


def constants_param(n: int, register: int = 0, space: int = 0) -> RootParameter1:
    p = RootParameter1(ParameterType=E("D3D12_ROOT_PARAMETER_TYPE", "32BIT_CONSTANTS"))
    p.Constants.Num32BitValues = n
    p.Constants.ShaderRegister = register
    p.Constants.RegisterSpace = space
    return p


def view_param(kind: str, register: int = 0, space: int = 0) -> RootParameter1:
    p = RootParameter1(ParameterType=E("D3D12_ROOT_PARAMETER_TYPE", kind))
    p.Descriptor.ShaderRegister = register
    p.Descriptor.RegisterSpace = space
    return p


def table_param(range_type: str = "SRV") -> RootParameter1:
    p = RootParameter1(ParameterType=E("D3D12_ROOT_PARAMETER_TYPE", "DESCRIPTOR_TABLE"))
    p.DescriptorTable.pDescriptorRanges = [DescriptorRange1(RangeType=E("D3D12_DESCRIPTOR_RANGE_TYPE", range_type),
                                                            NumDescriptors=1)]
    return p


def root_signature(name: str, *params: RootParameter1, local: bool = False) -> RootSignature:
    rs = RootSignature(name, list(params))
    if local:
        rs.Flags = E("D3D12_ROOT_SIGNATURE_FLAGS", "LOCAL_ROOT_SIGNATURE")
    return rs


def identifier(n: int) -> bytes:
    """A distinct 32-byte program identifier."""
    return bytes([n & 0xFF]) * 8 + (n * 0x9E3779B97F4A7C15 & (1 << 64) - 1).to_bytes(8, "little") + bytes(16)


def program(name: str, n: int, pcs: ProgramCommandSignature, lrs: RootSignature | None = None) -> Program:
    return Program(name, identifier(n), pcs, lrs)


def objects_of(programs: list[Program], *more: Any) -> ObjectSet:
    objs = ObjectSet()
    for p in programs:
        objs.programs[p.name] = p
    for o in more:
        if isinstance(o, CommandSignature):
            objs.command_signatures[o.name] = o
    return objs


# -- bytes -------------------------------------------------------------------------------------------------------


def _fields(ctype: str) -> list[tuple[str, int, str, int | None]] | None:
    try:
        info = abi.type_info(ctype)
    except Exception:
        return None
    return [(f.name, f.offset, f.type.split("[", 1)[0].strip(), f.array_length) for f in info.fields]


def encode_into(buf: bytearray, offset: int, ctype: str, value: Any) -> None:
    fields = _fields(ctype)
    if fields is None:
        size = abi.sizeof(ctype)
        fmt = {4: "I", 8: "Q", 2: "H", 1: "B"}[size]
        if ctype.startswith("int") and isinstance(value, int) and value < 0:
            fmt = fmt.lower()
        struct.pack_into("<" + fmt, buf, offset, value)
        return
    for name, off, ftype, length in fields:
        if name not in value:
            continue
        if length is not None:
            size = abi.sizeof(ftype)
            for i, v in enumerate(value[name]):
                encode_into(buf, offset + off + i * size, ftype, v)
        else:
            encode_into(buf, offset + off, ftype, value[name])


def encode(ctype: str, value: Any) -> bytes:
    buf = bytearray(abi.sizeof(ctype))
    encode_into(buf, 0, ctype, value)
    return bytes(buf)


def pack_record(layout: RecordLayout, values: dict[str, Any], size: int | None = None) -> bytearray:
    """One record of ``layout`` with the named fields set (others zero), ``size`` bytes (default min_stride)."""
    buf = bytearray(layout.min_stride if size is None else size)
    for name, value in values.items():
        f = layout.field(name)
        if f.role == "identifier":
            buf[f.offset: f.offset + f.size] = value
        elif isinstance(value, list) or f.count > 1:
            vals = value if isinstance(value, list) else [value]
            step = f.size // f.count
            for i, v in enumerate(vals):
                encode_into(buf, f.offset + i * step, f.ctype, v)
        else:
            encode_into(buf, f.offset, f.ctype, value)
    return buf


def f32(x: float) -> int:
    """A float as the DWORD a root constant holds."""
    return struct.unpack("<I", struct.pack("<f", x))[0]


def dispatch_input(n: int, start: int, stride: int, flags_: int = 0) -> bytes:
    return encode("D3D12_DISPATCH_LIST_INPUT", {"NumProgramInputs": n, "Flags": flags_,
                                                "ProgramInputs": {"StartAddress": start, "StrideInBytes": stride}})


def dispatch_input1(n: int, start: int, stride: int, flags_: int = 0, signature: int = 0, next_: int = 0,
                    padding: int = 0) -> bytes:
    return encode("D3D12_DISPATCH_LIST_INPUT1", {
        "NumProgramInputs": n, "Flags": flags_, "SignatureIndex": signature, "ReservedPadding": padding,
        "ProgramInputs": {"StartAddress": start, "StrideInBytes": stride}, "NextDispatchList": next_})


def program_table(slots: list[tuple[Program | bytes, dict[str, Any]]], stride: int) -> bytes:
    """A program table: each slot is (program or raw identifier bytes, tail field values)."""
    out = bytearray()
    for prog, tail in slots:
        if isinstance(prog, Program):
            layout = program_table_layout(prog)
            assert layout is not None
            rec = pack_record(layout, {"ProgramIdentifier": prog.Identifier, **tail}, max(stride, layout.size))
        else:
            rec = bytearray(prog) + bytearray(max(stride - len(prog), 0))
        out += rec[: stride] if stride else rec
    return bytes(out)


def primary(pcs: ProgramCommandSignature, stride: int | None = None, **values: Any) -> bytearray:
    layout = pcs_layout(pcs).primary
    return pack_record(layout, values, stride)


def secondaries(pcs: ProgramCommandSignature, rows: list[dict[str, Any]]) -> bytes:
    layout = pcs_layout(pcs).secondary
    assert layout is not None
    stride = pcs.SecondaryRecordByteStride
    if stride == 0:
        return bytes(pack_record(layout, rows[0]))
    return b"".join(bytes(pack_record(layout, r, stride)) for r in rows)


def root_parameters(rng: Random) -> list[tuple[Any, RootArgument]]:
    """1-3 root parameters of every kind (constants, a root CBV / SRV / UAV, a descriptor table), each with the
    command-list value that sets it."""
    out: list[tuple[Any, RootArgument]] = []
    for p in range(rng.randint(1, 3)):
        kind = rng.choice(["constants", "CBV", "SRV", "UAV", "table"])
        if kind == "constants":
            n = rng.randint(1, 4)
            out.append((constants_param(n, p), RootArgument("constants", values=[rng.getrandbits(32) for _ in range(n)])))
        elif kind == "table":
            out.append((table_param(), RootArgument("table", rng.randint(1, 1 << 20) * 32)))
        else:
            out.append((view_param(kind, p), RootArgument("descriptor", rng.randint(1, 1 << 24) * 256)))
    return out


def unset_one(rng: Random, args: dict[int, RootArgument]) -> None:
    """Leave one root parameter (or, of a constants slot of more than one DWORD, its last DWORDs) set by nothing."""
    p = rng.choice(sorted(args))
    a = args[p]
    if a.kind == "constants" and len(a.values) > 1 and rng.random() < 0.5:
        args[p] = RootArgument("constants", values=a.values[: rng.randint(1, len(a.values) - 1)])
    else:
        del args[p]


def draw(vertices: int, instances: int = 1, start_vertex: int = 0, start_instance: int = 0) -> dict[str, int]:
    return {"VertexCountPerInstance": vertices, "InstanceCount": instances, "StartVertexLocation": start_vertex,
            "StartInstanceLocation": start_instance}


def dispatch(x: int, y: int = 1, z: int = 1) -> dict[str, int]:
    return {"ThreadGroupCountX": x, "ThreadGroupCountY": y, "ThreadGroupCountZ": z}


# -- a scene ------------------------------------------------------------------------------------------------------


@dataclass
class Scene:
    """GPU memory + device + objects + command-list state, built up by a test."""

    memory: GpuMemory = field(default_factory=GpuMemory)
    device: DeviceCaps = field(default_factory=lambda: DeviceCaps(Tier=E("D3D12_WORK_LISTS_TIER", "TIER_2"),
                                                                  DispatchRaysSupported=True))
    objects: ObjectSet = field(default_factory=ObjectSet)
    state: CommandListState = field(default_factory=CommandListState)

    def put(self, va: int, data: bytes | bytearray, name: str = "") -> int:
        """Map ``data`` at ``va`` (writable), or overwrite it in place if a region already holds those bytes."""
        region = self.memory.region_at(va)
        if region is not None and region.contains(va, len(data)):
            self.memory.write(va, data)
        else:
            self.memory.map(va, bytearray(data), name=name or f"r@{va:x}", writable=True)
        return va

    def add_programs(self, *programs: Program) -> None:
        for p in programs:
            self.objects.programs[p.name] = p

    def bind(self, wls: WorkListSignature, table_va: int = 0, stride: int = 0, slots: int = 0,
             size: int | None = None, raytracing: Any = None) -> None:
        """Direct bind (D3D12_PROGRAM_TYPE_WORK_LIST)."""
        self.state.program = SetProgramDesc(Type=E("D3D12_PROGRAM_TYPE", "WORK_LIST"),
                                            WorkList=SetWorkListDesc(wls, self.binding(table_va, stride, slots,
                                                                                        size, raytracing)))

    @staticmethod
    def binding(table_va: int = 0, stride: int = 0, slots: int = 0, size: int | None = None,
                raytracing: Any = None) -> WorkListBinding:
        if raytracing is not None:
            return WorkListBinding(Type=E("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING"), pRaytracing=raytracing)
        size = slots * stride if size is None else size
        return WorkListBinding(Type=E("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE"),
                               ProgramTable=ProgramTableBinding(GpuVirtualAddressRangeAndStride(table_va, size, stride),
                                                                slots))

    def bind_array(self, name: str, pairs: list[tuple[WorkListSignature, WorkListBinding]]) -> None:
        """Array bind (D3D12_PROGRAM_TYPE_WORK_LIST1)."""
        array = WorkListSignatureArray(name, [w for w, _ in pairs])
        self.state.program = SetProgramDesc(Type=E("D3D12_PROGRAM_TYPE", "WORK_LIST1"),
                                            WorkList1=SetWorkListDesc1(array, [b for _, b in pairs]))


# -- shared scenes -------------------------------------------------------------------------------------------------

#: Where the scenes place the dispatch-list input, the primary and secondary records and the program table.
INPUT_VA, PRIMARY_VA, SECONDARY_VA, TABLE_VA = 0x1000, 0x2000, 0x10000, 0x40000
#: ``D3D12_DISPATCH_LIST_FLAGS1_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION``.
CONT = flags("D3D12_DISPATCH_LIST_FLAGS1", "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION")


def hybrid_scene(secondary_stride: int = 16) -> tuple[Scene, ProgramCommandSignature]:
    """One compute program "A" whose hybrid PCS "H" takes its DISPATCH from the secondary record, in a one-slot,
    32-byte-stride program table at TABLE_VA, bound directly."""
    pcs = ProgramCommandSignature("H", [arg("DISPATCH", "SECONDARY_RECORD")],
                                  SecondaryRecordByteStride=secondary_stride)
    return one_program_scene(pcs), pcs


def one_program_scene(pcs: ProgramCommandSignature) -> Scene:
    """A scene with one program "A" of ``pcs`` in a one-slot, 32-byte-stride program table at TABLE_VA, bound
    directly with work list signature "W"."""
    s = Scene()
    p = program("A", 1, pcs)
    s.add_programs(p)
    s.put(TABLE_VA, program_table([(p, {})], 32))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, 32, 1)
    return s


def srv(index: int, source: str = "SECONDARY_RECORD", binding: str = "GLOBAL_ROOT_SIGNATURE") -> WorkListArgumentDesc:
    return arg("SHADER_RESOURCE_VIEW", source, binding, ShaderResourceView=RootParameterIndexArg(index))


def trigger_draw(source: str = "SECONDARY_RECORD") -> WorkListArgumentDesc:
    return arg("DRAW", source)


def culling_pcs() -> tuple[ProgramCommandSignature, RootSignature]:
    """The spec's culling example ("Example": GPU culling and work list emission): its PCS and global root
    signature."""
    grs = root_signature("GRS", view_param("CBV", 0), view_param("SRV", 0))
    tint = InlineRootParameter(constants_param(4, register=0, space=1), 0, 4)
    sampler = StaticSamplerDesc1(ShaderRegister=0, RegisterSpace=1)
    pcs = ProgramCommandSignature("CullPCS", [
        srv(1),
        trigger_draw(),
        arg("INLINE_ROOT_PARAMETER", "PROGRAM_TABLE_RECORD", "LOCAL_ROOT_SIGNATURE", InlineRootParameter=tint),
        arg("INLINE_STATIC_SAMPLER", "STATIC", "LOCAL_ROOT_SIGNATURE", InlineStaticSampler=sampler),
    ], SecondaryRecordByteStride=24, pGlobalRootSignature=grs)
    return pcs, grs


#: The culling example's three programs and their per-material tints (program-table LRA).
TINTS = {"Opaque": (1.0, 1.0, 1.0, 1.0), "Transparent": (0.5, 0.7, 1.0, 0.5), "Shadow": (0.0, 0.0, 0.0, 1.0)}


def culling_scene(visible: dict[str, int]) -> tuple[Scene, DispatchListCall]:
    """Three programs in a 48-byte-stride table of 64 slots; one primary record per active program, its secondary
    records in a 256-record slab per program (MAX_RECORDS_PER_PIPELINE)."""
    pcs, grs = culling_pcs()
    s = Scene()
    progs = [program(name, i + 1, pcs) for i, name in enumerate(TINTS)]
    s.add_programs(*progs)
    wls = WorkListSignature("WLS", [pcs])
    tail = program_table_layout(progs[0])
    assert tail is not None and tail.min_stride == 48  # "Stride = 32-byte identifier + 16 bytes ... = 48"
    s.put(TABLE_VA, program_table([(p, {"arg2_InlineRootParameter": [f32(x) for x in TINTS[p.name]]})
                                   for p in progs], 48) + bytes(48 * 61))
    s.bind(wls, TABLE_VA, 48, 64)
    s.state.graphics_root_signature = grs
    s.state.graphics_root_arguments[0] = RootArgument("descriptor", 0xCB0000)
    records = []
    slab = 256 * 24
    for i, p in enumerate(progs):
        n = visible.get(p.name, 0)
        if not n:
            continue
        rows = [{"arg0_ShaderResourceView": 0x5000_0000 + 0x100 * i + k, "arg1_Draw": draw(36 + k)} for k in range(n)]
        s.put(SECONDARY_VA + i * slab, secondaries(pcs, rows))
        records.append(primary(pcs, ProgramTableIndex=i, NumSecondaryRecords=n, SecondaryRecords=SECONDARY_VA + i * slab))
    stride = pcs_layout(pcs).primary.min_stride
    assert stride == 16  # sizeof(D3D12_WORK_LIST_PRIMARY_RECORD)
    s.put(PRIMARY_VA, b"".join(records))
    s.put(INPUT_VA, dispatch_input(len(records), PRIMARY_VA, stride))
    return s, DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=3)



#: The heaps of :func:`descriptor_table_scene`: a CBV/SRV/UAV heap of 256 32-byte descriptors and a sampler heap of
#: 16 64-byte ones (capture version 4 ranges).
TABLE_HEAPS = {"CBV_SRV_UAV": DescriptorHeap(0xD000_0000, 256, 32), "SAMPLER": DescriptorHeap(0xE000_0000, 16, 64)}


def heap_handle(heap: str, index: int, skew: int = 0) -> int:
    """Descriptor ``index`` of ``TABLE_HEAPS[heap]`` (+ ``skew`` bytes: off a descriptor boundary)."""
    h = TABLE_HEAPS[heap]
    return h.GPUDescriptorHandleForHeapStart + index * h.DescriptorIncrementSize + skew


def descriptor_table_scene(handles: list[tuple[int, list[int]]]) -> tuple[Scene, DispatchListCall]:
    """Descriptor tables in records (spec "_DESCRIPTOR_TABLE"; "Local descriptor tables"): PCS "T" sets global root
    parameter 0, an SRV table, from the primary record, and a local sampler table (an _INLINE_ROOT_PARAMETER of
    type DESCRIPTOR_TABLE) and the DISPATCH from each secondary record.  ``handles``: per primary record, its SRV
    table handle and its secondary records' sampler table handles; both heaps bound with :data:`TABLE_HEAPS`."""
    grs = root_signature("GRS", table_param("SRV"))
    sampler_table = table_param("SAMPLER")
    pcs = ProgramCommandSignature("T", [
        arg("DESCRIPTOR_TABLE", DescriptorTable=RootParameterIndexArg(0)),
        arg("INLINE_ROOT_PARAMETER", "SECONDARY_RECORD", "LOCAL_ROOT_SIGNATURE",
            InlineRootParameter=InlineRootParameter(sampler_table, 0, 0)),
        arg("DISPATCH", "SECONDARY_RECORD")], pGlobalRootSignature=grs)
    layout = pcs_layout(pcs)
    assert layout.secondary is not None
    pcs.SecondaryRecordByteStride = layout.secondary.min_stride
    s = one_program_scene(pcs)
    s.state.descriptor_heaps = DescriptorHeaps(**TABLE_HEAPS)
    records = []
    lists = bytearray(0x100 * len(handles))  # one secondary list per 256 bytes
    for i, (srv_handle, sampler_handles) in enumerate(handles):
        rows = [{"arg1_InlineRootParameter": {"ptr": h}, "arg2_Dispatch": dispatch(1 + j)}
                for j, h in enumerate(sampler_handles)]
        if rows:
            data = secondaries(pcs, rows)
            lists[0x100 * i: 0x100 * i + len(data)] = data
        records.append(primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=len(rows),
                               SecondaryRecords=SECONDARY_VA + 0x100 * i, arg0_DescriptorTable={"ptr": srv_handle}))
    if lists:
        s.put(SECONDARY_VA, lists)
    s.put(PRIMARY_VA, b"".join(records))
    s.put(INPUT_VA, dispatch_input(len(records), PRIMARY_VA, layout.primary.min_stride))
    return s, DispatchListCall(INPUT_VA)


def raytracing_scene(hybrid: bool, padding: int = 0) -> tuple[Scene, DispatchListCall]:
    """A raytracing-class list (spec "Raytracing pipeline programs"): one PCS with a primary-sourced root SRV and a
    DISPATCH_RAYS_DIMENSIONS trigger (from the secondary records when ``hybrid``: two of them), the RTPSO and two
    shader tables bound directly; one primary record."""
    grs = root_signature("G", view_param("SRV"))
    src = "SECONDARY_RECORD" if hybrid else "PRIMARY_RECORD"
    pcs = ProgramCommandSignature("RT", [srv(0, "PRIMARY_RECORD"), arg("DISPATCH_RAYS_DIMENSIONS", src)],
                                  SecondaryRecordByteStride=16 if hybrid else 0, pGlobalRootSignature=grs)
    s = Scene()
    rtb = RaytracingBinding("RTPSO", GpuVirtualAddressRange(0x9000, 64),
                            GpuVirtualAddressRangeAndStride(0x9100, 64, 32))
    s.bind(WorkListSignature("W", [pcs]), raytracing=rtb)
    s.state.compute_root_arguments[0] = RootArgument("descriptor", 0x1111)
    layout = pcs_layout(pcs).primary
    dims = {"Width": 64, "Height": 32, "Depth": 1}
    if hybrid:
        s.put(SECONDARY_VA, secondaries(pcs, [{"arg1_DispatchRaysDimensions": dims}] * 2))
        rec = primary(pcs, NumSecondaryRecords=2, ReservedPadding=padding, SecondaryRecords=SECONDARY_VA,
                      arg0_ShaderResourceView=0xABC)
    else:
        rec = primary(pcs, arg0_ShaderResourceView=0xABC, arg1_DispatchRaysDimensions=dims)
    s.put(PRIMARY_VA, rec)
    s.put(INPUT_VA, dispatch_input(1, PRIMARY_VA, layout.min_stride))
    return s, DispatchListCall(INPUT_VA)


def patched(cap: Any, va: int, data: bytes) -> Any:
    """``cap`` (a Capture) with ``data`` written at ``va``: its memory rebuilt region by region, the region that
    holds the bytes patched (captured regions are read-only)."""
    memory = GpuMemory()
    for region in cap.memory.regions:
        raw = bytearray(region.data)
        if region.contains(va, len(data)):
            raw[va - region.base:va - region.base + len(data)] = data
        memory.map(region.base, bytes(raw), name=region.name)
    cap.memory = memory
    return cap
