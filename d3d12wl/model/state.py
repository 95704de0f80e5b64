"""Command-list state before a call, the call itself, and the device caps: everything the executor cannot know
from GPU memory and therefore takes as explicit input (design.md, "The shape": "everything it cannot know is an
explicit input (captured state), never a default guessed silently").

The SetProgram classes mirror ``D3D12_SET_PROGRAM_DESC`` / ``D3D12_SET_WORK_LIST_DESC(1)`` /
``D3D12_WORK_LIST_BINDING`` member for member, with objects in place of interface pointers (see
:mod:`d3d12wl.model`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from d3d12wl import abi
from d3d12wl.model.objects import (
    CommandSignature,
    RootParameter1,
    RootSignature,
    WorkListSignature,
    WorkListSignatureArray,
)


@dataclass
class DeviceCaps:
    """``D3D12_FEATURE_DATA_WORK_LISTS`` plus the compute grid cap the ``_FIXED_DISPATCH`` rules read
    (spec "_FIXED_DISPATCH": ``D3D12_FEATURE_DATA_D3D12_OPTIONS22::Max1DDispatchSize``, at least 65,535)."""

    Tier: int = 0
    DispatchRaysSupported: bool = False
    Max1DDispatchSize: int = 65535


@dataclass
class GpuVirtualAddressRange:
    StartAddress: int = 0
    SizeInBytes: int = 0


@dataclass
class GpuVirtualAddressRangeAndStride:
    StartAddress: int = 0
    SizeInBytes: int = 0
    StrideInBytes: int = 0


@dataclass
class ProgramTableBinding:
    """``D3D12_WORK_LIST_PROGRAM_TABLE_BINDING``."""

    Table: GpuVirtualAddressRangeAndStride = field(default_factory=GpuVirtualAddressRangeAndStride)
    SlotCount: int = 0


@dataclass
class RaytracingBinding:
    """``D3D12_WORK_LIST_RAYTRACING_BINDING``; ``pRaytracingStateObject`` is the RTPSO's name."""

    pRaytracingStateObject: str = ""
    RayGenerationShaderRecord: GpuVirtualAddressRange = field(default_factory=GpuVirtualAddressRange)
    MissShaderTable: GpuVirtualAddressRangeAndStride = field(default_factory=GpuVirtualAddressRangeAndStride)
    HitGroupTable: GpuVirtualAddressRangeAndStride = field(default_factory=GpuVirtualAddressRangeAndStride)
    CallableShaderTable: GpuVirtualAddressRangeAndStride = field(default_factory=GpuVirtualAddressRangeAndStride)


@dataclass
class WorkListBinding:
    """``D3D12_WORK_LIST_BINDING``: ``Type`` (``D3D12_WORK_LIST_BINDING_TYPE``) selects the member."""

    Type: int = 0
    ProgramTable: ProgramTableBinding = field(default_factory=ProgramTableBinding)
    pRaytracing: RaytracingBinding | None = None


@dataclass
class SetWorkListDesc:
    """``D3D12_SET_WORK_LIST_DESC`` (direct bind, Tier 1+)."""

    pSignature: WorkListSignature | None = None
    Binding: WorkListBinding = field(default_factory=WorkListBinding)


@dataclass
class SetWorkListDesc1:
    """``D3D12_SET_WORK_LIST_DESC1`` (array bind, Tier 2)."""

    pSignatureArray: WorkListSignatureArray | None = None
    pBindings: list[WorkListBinding] = field(default_factory=list)
    ValidationProgramTable: ProgramTableBinding = field(default_factory=ProgramTableBinding)
    SignatureSelectionValidationProgramTableIndex: int = 0


@dataclass
class SetProgramDesc:
    """``D3D12_SET_PROGRAM_DESC`` for the two Work Lists program types (``Type`` is a ``D3D12_PROGRAM_TYPE``)."""

    Type: int = 0
    WorkList: SetWorkListDesc = field(default_factory=SetWorkListDesc)
    WorkList1: SetWorkListDesc1 = field(default_factory=SetWorkListDesc1)


@dataclass
class RootArgument:
    """The value of one root parameter on the command list.

    ``kind``: ``'constants'`` (``values``: one int per DWORD, the slot's full width), ``'descriptor'``
    (``value``: a GPU VA for a root CBV/SRV/UAV) or ``'table'`` (``value``: a GPU descriptor handle ``ptr``).
    """

    kind: str
    value: int = 0
    values: list[int] = field(default_factory=list)


@dataclass
class VertexBufferView:
    """``D3D12_VERTEX_BUFFER_VIEW``."""

    BufferLocation: int = 0
    SizeInBytes: int = 0
    StrideInBytes: int = 0


@dataclass
class IndexBufferView:
    """``D3D12_INDEX_BUFFER_VIEW`` (``Format`` is a ``DXGI_FORMAT`` value)."""

    BufferLocation: int = 0
    SizeInBytes: int = 0
    Format: int = 0


#: The ``D3D12_DESCRIPTOR_HEAP_TYPE`` members (short names) SetDescriptorHeaps binds: one shader-visible heap of
#: each at a time (RTV and DSV heaps are never shader-visible).
SHADER_VISIBLE_HEAP_TYPES = ("CBV_SRV_UAV", "SAMPLER")


def heap_type(name: str) -> int:
    """The ``D3D12_DESCRIPTOR_HEAP_TYPE`` value of a shader-visible heap type's short name."""
    return abi.enum_value("D3D12_DESCRIPTOR_HEAP_TYPE", name)


def table_heap_type(param: RootParameter1 | None) -> str:
    """The type of the descriptor heap a descriptor-table root parameter's handle addresses, a
    :data:`SHADER_VISIBLE_HEAP_TYPES` name (spec "_DESCRIPTOR_TABLE": "the implementation routes each record's handle
    to whichever bound heap matches the root parameter's declared type"; a table of sampler ranges is a sampler
    table)."""
    sampler = abi.enum_value("D3D12_DESCRIPTOR_RANGE_TYPE", "SAMPLER")
    if param is not None and param.DescriptorTable.pDescriptorRanges:
        if param.DescriptorTable.pDescriptorRanges[0].RangeType == sampler:
            return "SAMPLER"
    return "CBV_SRV_UAV"


@dataclass
class DescriptorHeap:
    """The GPU handle range of a bound shader-visible descriptor heap (capture version 4), as D3D12 reports it:
    ``ID3D12DescriptorHeap::GetGPUDescriptorHandleForHeapStart().ptr``, ``D3D12_DESCRIPTOR_HEAP_DESC::NumDescriptors``
    and ``ID3D12Device::GetDescriptorHandleIncrementSize(Type)``.  Descriptor ``i``'s GPU handle is
    ``GPUDescriptorHandleForHeapStart + i * DescriptorIncrementSize``."""

    GPUDescriptorHandleForHeapStart: int = 0
    NumDescriptors: int = 0
    DescriptorIncrementSize: int = 0

    @property
    def size(self) -> int:
        """Bytes of GPU handle space the heap spans."""
        return self.NumDescriptors * self.DescriptorIncrementSize

    @property
    def end(self) -> int:
        return self.GPUDescriptorHandleForHeapStart + self.size

    def problem(self, handle: int) -> str | None:
        """Why ``handle`` is no descriptor of this heap (outside it, or not on a descriptor boundary); None when it
        is descriptor ``(handle - start) / DescriptorIncrementSize``."""
        start, inc = self.GPUDescriptorHandleForHeapStart, self.DescriptorIncrementSize
        if not start <= handle < self.end:
            return (f"outside the heap [0x{start:x}, 0x{self.end:x}) ({self.NumDescriptors} descriptors of "
                    f"{inc} bytes)")
        if (handle - start) % inc:
            return (f"not on a descriptor boundary: 0x{start:x} + {(handle - start) // inc} * {inc} + "
                    f"{(handle - start) % inc}")
        return None


@dataclass
class DescriptorHeaps:
    """The shader-visible descriptor heaps bound by SetDescriptorHeaps, one member per heap type
    (:data:`SHADER_VISIBLE_HEAP_TYPES`): False (none bound), True (one bound, its range not captured) or, from
    capture version 4, the bound heap's :class:`DescriptorHeap` range.  Spec "_DESCRIPTOR_TABLE": a record that
    executes a descriptor-table arg with no heap of the required type bound is undefined behaviour, and the handle
    "must address the currently bound descriptor heap of the appropriate type"."""

    CBV_SRV_UAV: bool | DescriptorHeap = False
    SAMPLER: bool | DescriptorHeap = False

    def bound(self, heap_type_name: str) -> bool:
        """Whether a heap of that type (a :data:`SHADER_VISIBLE_HEAP_TYPES` name) is bound."""
        return bool(getattr(self, heap_type_name))

    def heap(self, heap_type_name: str) -> DescriptorHeap | None:
        """The bound heap's range, where the capture gives it."""
        value = getattr(self, heap_type_name)
        return value if isinstance(value, DescriptorHeap) else None


@dataclass
class CommandListState:
    """Command-list state before the call: what records do not override comes from here (spec "Binding sources
    at record execution", "Input Assembler bindings")."""

    program: SetProgramDesc | None = None
    graphics_root_signature: RootSignature | None = None
    compute_root_signature: RootSignature | None = None
    graphics_root_arguments: dict[int, RootArgument] = field(default_factory=dict)
    compute_root_arguments: dict[int, RootArgument] = field(default_factory=dict)
    vertex_buffers: dict[int, VertexBufferView] = field(default_factory=dict)
    index_buffer: IndexBufferView | None = None
    descriptor_heaps: DescriptorHeaps = field(default_factory=DescriptorHeaps)
    #: the ``D3D12_COMMAND_LIST_TYPE`` the call is recorded on (Work Lists "Bundles", "Command queue type";
    #: IndirectDrawing.md "Drawing", "Bundles"): DIRECT unless the capture says otherwise
    command_list_type: int = field(default_factory=lambda: direct_command_list_type())
    #: whether the call is recorded inside a render pass scope (between BeginRenderPass and EndRenderPass; Work
    #: Lists "Render passes")
    in_render_pass: bool = False

    def root_signature_of(self, graphics: bool) -> RootSignature | None:
        """The root signature set on the command list for one class (SetGraphicsRootSignature /
        SetComputeRootSignature): graphics-class work reads the graphics set, compute- and raytracing-class work
        the compute set (IndirectDrawing.md "Command signature Creation"; Work Lists "Root signature bindings")."""
        return self.graphics_root_signature if graphics else self.compute_root_signature

    def root_arguments_of(self, graphics: bool) -> dict[int, RootArgument]:
        """The root arguments set on the command list for one class (SetGraphicsRoot* / SetComputeRoot*)."""
        return self.graphics_root_arguments if graphics else self.compute_root_arguments


def execute_indirect_root_signature(cs: CommandSignature, state: CommandListState,
                                    graphics: bool) -> RootSignature | None:
    """The root signature whose parameters an ExecuteIndirect call's commands see: the command signature's when it
    has one, else the one set on the command list for its class.  IndirectDrawing.md "Command signature Creation":
    "The root signature must be specified if and only if the command signature changes one of the root
    arguments", and "Driver Conformance Tests": "Arbitrary command signatures produce the same results as
    corresponding non-indirect rendering API calls": a command signature that changes no root argument still draws
    with every root argument of the command list."""
    return cs.pRootSignature if cs.pRootSignature is not None else state.root_signature_of(graphics)


def direct_command_list_type() -> int:
    """``D3D12_COMMAND_LIST_TYPE_DIRECT``: the type a command-list state has unless it says otherwise."""
    return abi.enum_value("D3D12_COMMAND_LIST_TYPE", "DIRECT")


@dataclass
class DispatchListCall:
    """``DispatchList`` (Tier 1) or ``DispatchList1`` (Tier 2, ``tier2=True``)."""

    DispatchListInput: int = 0
    MaxGraphicsProgramInputsPerPrimaryList: int = 0
    MaxGraphicsPrimaryLists: int = 0
    tier2: bool = False


@dataclass
class BufferResource:
    """The ``ID3D12Resource`` an ExecuteIndirect buffer parameter names, as far as the call's checks read it
    (IndirectDrawing.md "Drawing": the runtime validates the offsets and bounds against the resource, the debug
    layer its state).

    ``GPUVirtualAddress``: ``GetGPUVirtualAddress()``, the resource's first byte; ``Width``:
    ``D3D12_RESOURCE_DESC::Width``, a buffer's size in bytes; ``State``: the ``D3D12_RESOURCE_STATES`` the resource
    is in when the call executes (after the command list's barriers), None where the capture does not say."""

    GPUVirtualAddress: int = 0
    Width: int = 0
    State: int | None = None


@dataclass
class ExecuteIndirectCall:
    """``ExecuteIndirect`` with buffers given as VAs (resource base + offset); ``CountBuffer`` None = NULL.

    ``ArgumentBufferResource`` / ``CountBufferResource``: the resources ``pArgumentBuffer`` / ``pCountBuffer``
    (None: not captured; the executor then takes the mapped region that holds the VA for the resource).  The
    offsets the runtime checks are ``ArgumentBuffer - ArgumentBufferResource.GPUVirtualAddress`` and likewise for
    the count buffer."""

    pCommandSignature: CommandSignature | None = None
    MaxCommandCount: int = 0
    ArgumentBuffer: int = 0
    CountBuffer: int | None = None
    ArgumentBufferResource: BufferResource | None = None
    CountBufferResource: BufferResource | None = None
