"""What each ``D3D12_INDIRECT_ARGUMENT_TYPE`` means: the one table of per-argument-type facts.

Sizes of payload structs come from the compiled headers (:func:`d3d12wl.abi.sizeof`); what is typed here is
only what the specs state and the headers cannot: which union member a type uses, its record alignment in
Work Lists records (spec "Per-arg natural alignment", which for vertex/index buffer views is 4 although C's
``alignof`` is 8), the executable class a dispatch trigger gives its signature (spec "Terminology", Executable
class), which Sources a type accepts (the per-argument-type sections), and where the system pointer types may
appear (spec "System-generated validator pointer arg types").
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import Enum
from functools import cache

from d3d12wl import abi
from d3d12wl.errors import D3D12WLError


class ExecutableClass(str, Enum):
    """Spec "Terminology", Executable class: decided by the dispatch-trigger argument's type."""

    GRAPHICS = "GRAPHICS"
    COMPUTE = "COMPUTE"
    RAYTRACING = "RAYTRACING"


#: Sources a record-sourced arg may use (spec "Per-binding source").
RECORD_SOURCES = frozenset({"PRIMARY_RECORD", "SECONDARY_RECORD"})

#: Roles a program command signature can play for the pointer-arg availability rules
#: (spec "System-generated validator pointer arg types").
ROLE_DATA = "data"
ROLE_SIGNATURE_SELECTION_VALIDATOR = "signature_selection_validator"
ROLE_PRIMARY_LIST_VALIDATOR = "primary_list_validator"
ROLE_SECONDARY_LIST_VALIDATOR = "secondary_list_validator"
ALL_ROLES = frozenset(
    {ROLE_DATA, ROLE_SIGNATURE_SELECTION_VALIDATOR, ROLE_PRIMARY_LIST_VALIDATOR, ROLE_SECONDARY_LIST_VALIDATOR}
)


@dataclass(frozen=True)
class ArgTypeInfo:
    """Facts about one argument type.

    ``payload_ctype``: the C type of the record payload (None: the type reads no record bytes, or the size depends
    on the desc, see :func:`payload_of`).  ``wl_align``: its alignment in Work Lists records.
    ``trigger_class``: the executable class of a signature whose dispatch trigger this is, or None.
    ``sources``: Sources the type accepts in a program command signature.
    ``root_parameter_types``: the D3D12_ROOT_PARAMETER_TYPE short names the targeted root parameter may have.
    ``roles``: signature roles the type may appear in (pointer types only restrict this).
    ``wl``/``ei``: valid in a Work Lists program command signature / an ExecuteIndirect command signature.
    ``program_kind``: for a dispatch trigger, the kind of program it requires (spec rule 3, "Program-class
    compatibility": _DRAW / _DRAW_INDEXED graphics, _DISPATCH compute, _DISPATCH_MESH mesh,
    _DISPATCH_RAYS_DIMENSIONS raytracing-pipeline shaders); one of :data:`PROGRAM_KINDS`.
    ``api_call``: for an ExecuteIndirect dispatch trigger, the command-list method whose parameters its arguments
    are (IndirectDrawing.md "Overview": "The command type that will be used (DrawInstanced, DrawIndexedInstanced,
    Dispatch)"; DispatchMesh and DispatchRays likewise), the name a D3D12 programmer may type for it.
    """

    name: str
    union_member: str | None
    payload_ctype: str | None
    wl_align: int
    trigger_class: ExecutableClass | None
    sources: frozenset[str]
    root_parameter_types: frozenset[str] = frozenset()
    roles: frozenset[str] = ALL_ROLES
    wl: bool = True
    ei: bool = True
    system_pointer: bool = False
    not_on_raytracing: bool = False
    program_kind: str | None = None
    api_call: str | None = None

    @property
    def is_trigger(self) -> bool:
        return self.trigger_class is not None


#: Program kinds a dispatch trigger can require (spec rule 3); ``model.Program.ProgramKind`` takes these values.
PROGRAM_KINDS = ("GRAPHICS", "MESH", "COMPUTE", "RAYTRACING")

_G, _C, _R = ExecutableClass.GRAPHICS, ExecutableClass.COMPUTE, ExecutableClass.RAYTRACING
_SYS = frozenset({"SYSTEM"})
_STATIC = frozenset({"STATIC"})
_ROOT_DESCRIPTOR = frozenset({"CBV", "SRV", "UAV"})


def _ptr(name: str, member: str, roles: frozenset[str], *, not_on_raytracing: bool = False) -> ArgTypeInfo:
    # System pointers: a root descriptor slot (8-byte VA) synthesized by the system; 0 record bytes.
    return ArgTypeInfo(
        name, member, None, 8, None, _SYS, _ROOT_DESCRIPTOR, roles, ei=False, system_pointer=True,
        not_on_raytracing=not_on_raytracing,
    )


_TABLE: tuple[ArgTypeInfo, ...] = (
    ArgTypeInfo("DRAW", None, "D3D12_DRAW_ARGUMENTS", 4, _G, RECORD_SOURCES, program_kind="GRAPHICS",
                api_call="DrawInstanced"),
    ArgTypeInfo("DRAW_INDEXED", None, "D3D12_DRAW_INDEXED_ARGUMENTS", 4, _G, RECORD_SOURCES,
                program_kind="GRAPHICS", api_call="DrawIndexedInstanced"),
    ArgTypeInfo("DISPATCH", None, "D3D12_DISPATCH_ARGUMENTS", 4, _C, RECORD_SOURCES, program_kind="COMPUTE",
                api_call="Dispatch"),
    ArgTypeInfo("VERTEX_BUFFER_VIEW", "VertexBuffer", "D3D12_VERTEX_BUFFER_VIEW", 4, None, RECORD_SOURCES),
    ArgTypeInfo("INDEX_BUFFER_VIEW", None, "D3D12_INDEX_BUFFER_VIEW", 4, None, RECORD_SOURCES),
    ArgTypeInfo("CONSTANT", "Constant", None, 4, None, RECORD_SOURCES, frozenset({"32BIT_CONSTANTS"})),
    ArgTypeInfo("CONSTANT_BUFFER_VIEW", "ConstantBufferView", "D3D12_GPU_VIRTUAL_ADDRESS", 8, None, RECORD_SOURCES,
                frozenset({"CBV"})),
    ArgTypeInfo("SHADER_RESOURCE_VIEW", "ShaderResourceView", "D3D12_GPU_VIRTUAL_ADDRESS", 8, None, RECORD_SOURCES,
                frozenset({"SRV"})),
    ArgTypeInfo("UNORDERED_ACCESS_VIEW", "UnorderedAccessView", "D3D12_GPU_VIRTUAL_ADDRESS", 8, None,
                RECORD_SOURCES, frozenset({"UAV"})),
    # ExecuteIndirect only: "not valid in a Work Lists program command signature" (spec "Supported argument types").
    ArgTypeInfo("DISPATCH_RAYS", None, "D3D12_DISPATCH_RAYS_DESC", 8, _R, RECORD_SOURCES, wl=False,
                program_kind="RAYTRACING", api_call="DispatchRays"),
    ArgTypeInfo("DISPATCH_MESH", None, "D3D12_DISPATCH_MESH_ARGUMENTS", 4, _G, RECORD_SOURCES,
                program_kind="MESH", api_call="DispatchMesh"),
    ArgTypeInfo("INCREMENTING_CONSTANT", "IncrementingConstant", None, 4, None, _SYS, frozenset({"32BIT_CONSTANTS"})),
    # Work-Lists-specific types (spec "Supported argument types"); none is in the ExecuteIndirect set.
    ArgTypeInfo("FIXED_DISPATCH", "FixedDispatch", None, 4, _C, _STATIC, ei=False, program_kind="COMPUTE"),
    ArgTypeInfo("DESCRIPTOR_TABLE", "DescriptorTable", "D3D12_GPU_DESCRIPTOR_HANDLE", 8, None, RECORD_SOURCES,
                frozenset({"DESCRIPTOR_TABLE"}), ei=False),
    ArgTypeInfo("DISPATCH_RAYS_DIMENSIONS", None, "D3D12_DISPATCH_RAYS_DIMENSIONS", 4, _R, RECORD_SOURCES, ei=False,
                program_kind="RAYTRACING"),
    ArgTypeInfo("INLINE_ROOT_PARAMETER", "InlineRootParameter", None, 4, None,
                frozenset({"PRIMARY_RECORD", "SECONDARY_RECORD", "SYSTEM", "PROGRAM_TABLE_RECORD"}), ei=False),
    ArgTypeInfo("INLINE_STATIC_SAMPLER", "InlineStaticSampler", None, 4, None, _STATIC, ei=False),
    _ptr("DISPATCH_LIST_HEADER_POINTER", "DispatchListHeaderPointer",
         frozenset({ROLE_PRIMARY_LIST_VALIDATOR, ROLE_SIGNATURE_SELECTION_VALIDATOR})),
    _ptr("PROGRAM_TABLE_POINTER", "ProgramTablePointer", frozenset({ROLE_PRIMARY_LIST_VALIDATOR, ROLE_DATA}),
         not_on_raytracing=True),
    _ptr("PRIMARY_LIST_POINTER", "PrimaryListPointer", frozenset({ROLE_PRIMARY_LIST_VALIDATOR})),
    _ptr("PRIMARY_RECORD_POINTER", "PrimaryRecordPointer", frozenset({ROLE_SECONDARY_LIST_VALIDATOR, ROLE_DATA})),
    _ptr("SECONDARY_LIST_POINTER", "SecondaryListPointer", frozenset({ROLE_SECONDARY_LIST_VALIDATOR})),
    _ptr("SECONDARY_RECORD_POINTER", "SecondaryRecordPointer", frozenset({ROLE_DATA})),
)

_BY_NAME = {info.name: info for info in _TABLE}


def _upper_snake(name: str) -> str:
    """``DrawIndexedInstanced`` -> ``DRAW_INDEXED_INSTANCED`` (an enum member's spelling of a method name)."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).upper()


@cache
def enum_synonyms(enum_name: str) -> dict[str, str]:
    """The other D3D12 names of an enum's members, for a did-you-mean that puts the D3D12 meaning first
    (:func:`d3d12wl.errors.closest`): of ``D3D12_INDIRECT_ARGUMENT_TYPE``, the command-list method a trigger stands
    for (``DRAW_INSTANCED`` -> ``DRAW``, not the closer spelling ``DRAW_INDEXED``) and the root parameter type an
    argument sets (``CBV`` -> ``CONSTANT_BUFFER_VIEW``, ``32BIT_CONSTANTS`` -> ``CONSTANT``); of
    ``D3D12_ROOT_PARAMETER_TYPE``, the other way (``CONSTANT_BUFFER_VIEW`` -> ``CBV``).  Read from the table of
    argument types (the first claim wins: a system pointer sets a root CBV too, but is no one's meaning of it)."""
    out: dict[str, str] = {}
    if enum_name == "D3D12_INDIRECT_ARGUMENT_TYPE":
        for info in _TABLE:
            if info.api_call is not None:
                out.setdefault(_upper_snake(info.api_call), info.name)
            if not info.system_pointer:
                for rpt in sorted(info.root_parameter_types):
                    if rpt != info.name:
                        out.setdefault(rpt, info.name)
    elif enum_name == "D3D12_ROOT_PARAMETER_TYPE":
        for info in _TABLE:
            if not info.system_pointer and len(info.root_parameter_types) == 1:
                (rpt,) = info.root_parameter_types
                if rpt != info.name:
                    out.setdefault(info.name, rpt)
    return out


def arg_type_info(name: str) -> ArgTypeInfo:
    """Facts for the argument type with short name ``name`` (``'DRAW'``)."""
    try:
        return _BY_NAME[name]
    except KeyError:
        raise D3D12WLError(f"unknown D3D12_INDIRECT_ARGUMENT_TYPE {name!r}") from None


@cache
def all_arg_types() -> tuple[ArgTypeInfo, ...]:
    """Every argument type, checked once against the compiled enum (every enum member has facts here)."""
    enum = abi.enum("D3D12_INDIRECT_ARGUMENT_TYPE")
    names = {abi.enum_short_name("D3D12_INDIRECT_ARGUMENT_TYPE", int(m)) for m in enum}
    missing = names - _BY_NAME.keys()
    if missing:
        raise D3D12WLError(f"argument types without facts in d3d12wl.model.argtypes: {sorted(missing)}")
    return _TABLE
