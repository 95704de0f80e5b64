"""Python mirror of the Work Lists and ExecuteIndirect creation-time descs.

Every class mirrors one C desc struct of ``headers/`` member for member, with the spec's member names
(design.md, "Interfaces users touch"): a user who knows the C API knows these objects.  Differences from C,
all mechanical:

* an array member is a Python list under its pointer member's name (``pArgumentDescs``); its ``Num...``
  count is ``len()`` of that list and is not stored;
* a pointer to another object (``pGlobalRootSignature``, ``pProgramCommandSignatures``) holds the object itself;
* union members are all present as attributes holding C's zero value unless written; which one is meaningful
  is decided, as in C, by the discriminator (``Type``, ``ParameterType``).  A union member not written is made
  when first read (:func:`union_member`): an argument desc has fifteen union members and one of them is used, and a
  description of 100,000 arguments would otherwise make millions of objects no one reads;
* enum-typed members hold ints (``IntEnum``/``IntFlag`` values from :mod:`d3d12wl.abi`);
* an argument desc has a ``Name`` that C has not: the name of its record member (:mod:`d3d12wl.model.fieldnames`),
  carried by the JSON description and the model, not by the cffi descs.

Objects are named (``name``): JSON descriptions and captures refer to objects by name.

This module holds structure only.  What an argument type *means* (its record payload, its executable class)
lives in :mod:`d3d12wl.model.argtypes`; creation-time rules in :mod:`d3d12wl.rules`; byte layouts in
:mod:`d3d12wl.records.layout`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, TypeVar

from d3d12wl import abi
from d3d12wl.model.argtypes import arg_type_info

T = TypeVar("T")
C = TypeVar("C", bound=type)

#: the field metadata of a union member (:func:`union_member`)
UNION_MEMBER = "d3d12wl_union_member"


def union_member(factory: Callable[[], T]) -> T:
    """A union member of a desc class: C's zero value of its type unless written, like every member, but made when
    first read rather than with the object (the class is decorated with :func:`_union_members_made_when_read`)."""
    made: T = field(default_factory=factory, metadata={UNION_MEMBER: True})
    return made


class _ZeroUntilRead:
    """The class attribute of a union member: the first read of an object's member that was never written makes
    C's zero value of its type and stores it on the object, where every later read finds it (stored with
    ``setdefault``: two threads reading it first get the same object).  The class itself has no such attribute, as
    a dataclass field with a default factory has none."""

    __slots__ = ("factory", "name")

    def __init__(self, name: str, factory: Callable[[], Any]) -> None:
        self.name = name
        self.factory = factory

    def __get__(self, obj: object, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError(self.name)
        return obj.__dict__.setdefault(self.name, self.factory())


class _Factory:
    """The default every member with a default factory shows in a signature (as dataclasses writes it)."""

    def __repr__(self) -> str:
        return "<factory>"


_FACTORY = _Factory()


def _union_members_made_when_read(cls: C) -> C:
    """Give dataclass ``cls`` an ``__init__`` with the dataclass's own signature that stores a :func:`union_member`
    only when it is passed (every other member as the dataclass stores it), a :class:`_ZeroUntilRead` per union
    member, and a ``__getstate__`` that makes every union member first, so that ``copy.copy``, ``copy.deepcopy``
    and ``pickle`` see what they saw when every member was made with the object.  Equality, ``repr``,
    ``dataclasses.fields`` / ``replace`` / ``asdict`` read members, so they are unchanged too."""
    fields = dataclasses.fields(cls)
    assert not hasattr(cls, "__post_init__") and all(f.init and not f.kw_only for f in fields), cls
    names = tuple(f.name for f in fields if f.metadata.get(UNION_MEMBER))
    namespace: dict[str, Any] = {"__name__": cls.__module__, "_FACTORY": _FACTORY}
    params, body = [], []
    for f in fields:
        if f.default is not dataclasses.MISSING:
            namespace[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
            body.append(f"    self.{f.name} = {f.name}")
        elif f.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{f.name}"] = f.default_factory
            params.append(f"{f.name}=_FACTORY")
            body.append(f"    if {f.name} is not _FACTORY:\n        self.{f.name} = {f.name}" if f.name in names else
                        f"    self.{f.name} = _factory_{f.name}() if {f.name} is _FACTORY else {f.name}")
        else:
            params.append(f.name)
            body.append(f"    self.{f.name} = {f.name}")
    exec(f"def __init__(self, {', '.join(params)}):\n" + "\n".join(body) + "\n", namespace)  # noqa: S102
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__annotations__ = {**{f.name: f.type for f in fields}, "return": None}
    cls.__init__ = init  # type: ignore[misc]
    for f in fields:
        if f.name in names:
            setattr(cls, f.name, _ZeroUntilRead(f.name, f.default_factory))  # type: ignore[arg-type]

    def __getstate__(self: Any) -> dict[str, Any]:
        for name in names:
            getattr(self, name)
        state: dict[str, Any] = self.__dict__
        return state

    __getstate__.__qualname__ = f"{cls.__qualname__}.__getstate__"
    cls.__getstate__ = __getstate__  # type: ignore[assignment]
    return cls


class _ShortNames:
    """``abi.enum_short_name(enum_name, value)`` for one enum, the answers kept in a dict of their own: the model's
    ``type_name`` / ``source_name`` / ``binding_name`` / ``parameter_type_name`` are read several times per argument
    by the rules and the layout calculator, for descriptions of 100,000 arguments.  Only names found are kept (a set
    bounded by the enum's members); a value outside the enum raises as ``abi.enum_short_name`` does, every time."""

    __slots__ = ("enum_name", "names")

    def __init__(self, enum_name: str) -> None:
        self.enum_name = enum_name
        self.names: dict[int, str] = {}

    def __call__(self, value: int) -> str:
        try:
            return self.names[value]
        except KeyError:
            name = self.names[value] = abi.enum_short_name(self.enum_name, value)
            return name


_TYPE_NAME = _ShortNames("D3D12_INDIRECT_ARGUMENT_TYPE")
_SOURCE_NAME = _ShortNames("D3D12_INDIRECT_ARGUMENT_SOURCE")
_BINDING_NAME = _ShortNames("D3D12_INDIRECT_ARGUMENT_BINDING")
_PARAMETER_TYPE_NAME = _ShortNames("D3D12_ROOT_PARAMETER_TYPE")


class RecordKind(str, Enum):
    """Spec "Primary record layout": hybrid iff any arg has Source == SOURCE_SECONDARY_RECORD."""

    HYBRID = "HYBRID"
    INLINE = "INLINE"


# --------------------------------------------------------------------------------------------------------------
# Root signatures (pre-existing D3D12 types: D3D12_ROOT_SIGNATURE_DESC1 / D3D12_ROOT_PARAMETER1 / ...)
# --------------------------------------------------------------------------------------------------------------


@dataclass
class DescriptorRange1:
    """``D3D12_DESCRIPTOR_RANGE1``."""

    RangeType: int = 0
    NumDescriptors: int = 0
    BaseShaderRegister: int = 0
    RegisterSpace: int = 0
    Flags: int = 0
    OffsetInDescriptorsFromTableStart: int = 0


@dataclass
class RootDescriptorTable1:
    """``D3D12_ROOT_DESCRIPTOR_TABLE1``."""

    pDescriptorRanges: list[DescriptorRange1] = field(default_factory=list)


@dataclass
class RootConstants:
    """``D3D12_ROOT_CONSTANTS``."""

    ShaderRegister: int = 0
    RegisterSpace: int = 0
    Num32BitValues: int = 0


@dataclass
class RootDescriptor1:
    """``D3D12_ROOT_DESCRIPTOR1``."""

    ShaderRegister: int = 0
    RegisterSpace: int = 0
    Flags: int = 0


@_union_members_made_when_read
@dataclass
class RootParameter1:
    """``D3D12_ROOT_PARAMETER1``; ``ParameterType`` selects which union member is meaningful."""

    ParameterType: int = 0
    DescriptorTable: RootDescriptorTable1 = union_member(RootDescriptorTable1)
    Constants: RootConstants = union_member(RootConstants)
    Descriptor: RootDescriptor1 = union_member(RootDescriptor1)
    ShaderVisibility: int = 0

    @property
    def parameter_type_name(self) -> str:
        return _PARAMETER_TYPE_NAME(self.ParameterType)


@dataclass
class StaticSamplerDesc1:
    """``D3D12_STATIC_SAMPLER_DESC1``."""

    Filter: int = 0
    AddressU: int = 0
    AddressV: int = 0
    AddressW: int = 0
    MipLODBias: float = 0.0
    MaxAnisotropy: int = 0
    ComparisonFunc: int = 0
    BorderColor: int = 0
    MinLOD: float = 0.0
    MaxLOD: float = 0.0
    ShaderRegister: int = 0
    RegisterSpace: int = 0
    ShaderVisibility: int = 0
    Flags: int = 0


@dataclass
class RootSignature:
    """A root signature object, from ``D3D12_ROOT_SIGNATURE_DESC1`` (static samplers as ``_DESC1``).

    Global or local is the ``D3D12_ROOT_SIGNATURE_FLAG_LOCAL_ROOT_SIGNATURE`` bit of ``Flags``.
    """

    name: str
    pParameters: list[RootParameter1] = field(default_factory=list)
    pStaticSamplers: list[StaticSamplerDesc1] = field(default_factory=list)
    Flags: int = 0

    @property
    def is_local(self) -> bool:
        return bool(self.Flags & abi.enum_value("D3D12_ROOT_SIGNATURE_FLAGS", "LOCAL_ROOT_SIGNATURE"))


# --------------------------------------------------------------------------------------------------------------
# Work Lists argument descs (D3D12_WORK_LIST_ARGUMENT_DESC and its union members)
# --------------------------------------------------------------------------------------------------------------


@dataclass
class VertexBufferArg:
    Slot: int = 0


@dataclass
class ConstantArg:
    RootParameterIndex: int = 0
    DestOffsetIn32BitValues: int = 0
    Num32BitValuesToSet: int = 0


@dataclass
class RootParameterIndexArg:
    """The one-member payload shared by CBV/SRV/UAV, DescriptorTable and the six pointer arg types."""

    RootParameterIndex: int = 0


@dataclass
class IncrementingConstantArg:
    RootParameterIndex: int = 0
    DestOffsetIn32BitValues: int = 0
    Flags: int = 0


@dataclass
class FixedDispatchArg:
    ThreadGroupCountX: int = 0
    ThreadGroupCountY: int = 0
    ThreadGroupCountZ: int = 0


@dataclass
class InlineRootParameter:
    """``D3D12_WORK_LIST_INLINE_ROOT_PARAMETER``."""

    RootParameter: RootParameter1 = field(default_factory=RootParameter1)
    DestOffsetIn32BitValues: int = 0
    Num32BitValuesToSet: int = 0


@_union_members_made_when_read
@dataclass
class WorkListArgumentDesc:
    """``D3D12_WORK_LIST_ARGUMENT_DESC``: Type, Source, Binding and every per-type union member."""

    Type: int = 0
    Source: int = 0
    Binding: int = 0
    VertexBuffer: VertexBufferArg = union_member(VertexBufferArg)
    Constant: ConstantArg = union_member(ConstantArg)
    ConstantBufferView: RootParameterIndexArg = union_member(RootParameterIndexArg)
    ShaderResourceView: RootParameterIndexArg = union_member(RootParameterIndexArg)
    UnorderedAccessView: RootParameterIndexArg = union_member(RootParameterIndexArg)
    IncrementingConstant: IncrementingConstantArg = union_member(IncrementingConstantArg)
    DescriptorTable: RootParameterIndexArg = union_member(RootParameterIndexArg)
    FixedDispatch: FixedDispatchArg = union_member(FixedDispatchArg)
    InlineRootParameter: InlineRootParameter = union_member(InlineRootParameter)
    InlineStaticSampler: StaticSamplerDesc1 = union_member(StaticSamplerDesc1)
    DispatchListHeaderPointer: RootParameterIndexArg = union_member(RootParameterIndexArg)
    ProgramTablePointer: RootParameterIndexArg = union_member(RootParameterIndexArg)
    PrimaryListPointer: RootParameterIndexArg = union_member(RootParameterIndexArg)
    PrimaryRecordPointer: RootParameterIndexArg = union_member(RootParameterIndexArg)
    SecondaryListPointer: RootParameterIndexArg = union_member(RootParameterIndexArg)
    SecondaryRecordPointer: RootParameterIndexArg = union_member(RootParameterIndexArg)
    #: not a C member: the name of this argument's record member (:mod:`d3d12wl.model.fieldnames`); None gives the
    #: positional ``arg{index}_{...}``
    Name: str | None = None

    @property
    def type_name(self) -> str:
        """Short ``D3D12_INDIRECT_ARGUMENT_TYPE`` member name (``'DRAW'``)."""
        return _TYPE_NAME(self.Type)

    @property
    def source_name(self) -> str:
        return _SOURCE_NAME(self.Source)

    @property
    def binding_name(self) -> str:
        return _BINDING_NAME(self.Binding)

    @property
    def payload(self) -> object | None:
        """The union member this arg's Type selects, or None for types without one (DRAW, INDEX_BUFFER_VIEW, ...)."""
        member = arg_type_info(self.type_name).union_member
        return getattr(self, member) if member else None

    @property
    def root_parameter_index(self) -> int | None:
        """RootParameterIndex of the payload, for arg types that have one."""
        payload = self.payload
        return getattr(payload, "RootParameterIndex", None)


@dataclass
class ProgramCommandSignature:
    """``D3D12_PROGRAM_COMMAND_SIGNATURE_DESC``."""

    name: str
    pArgumentDescs: list[WorkListArgumentDesc] = field(default_factory=list)
    SecondaryRecordByteStride: int = 0
    pGlobalRootSignature: RootSignature | None = None
    RecordValidationProgramTableIndex: int = 0


@dataclass
class WorkListSignature:
    """``D3D12_WORK_LIST_SIGNATURE_DESC``."""

    name: str
    pProgramCommandSignatures: list[ProgramCommandSignature] = field(default_factory=list)
    SubobjectMask: int = 0
    ListValidationProgramTableIndex: int = 0


@dataclass
class WorkListSignatureArray:
    """``D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC``."""

    name: str
    pSignatures: list[WorkListSignature] = field(default_factory=list)


@dataclass
class Program:
    """The state-object side of a program-table program (spec "State object integration for program-table
    programs"): its name, its 32-byte ``D3D12_PROGRAM_IDENTIFIER``, the program command signature associated with it,
    and, on the explicit local-root-signature path, the local root signature associated with it.

    Raytracing-class shaders are reached through shader tables, not program tables; a ``Program`` whose PCS is
    raytracing-class stands for a raytracing shader export (raygen, miss, hit group, callable) whose identifier
    appears in a shader-table record.

    ``ProgramKind`` (optional, ``None`` = not stated): what kind of program it is, one of
    ``argtypes.PROGRAM_KINDS`` (``GRAPHICS`` for a VS-based graphics program, ``MESH``, ``COMPUTE``,
    ``RAYTRACING`` for a raytracing shader export); rule 3 checks it against the PCS's dispatch trigger.
    ``GlobalRootSignature`` (optional, ``None`` = none in scope or not stated): the global root signature in scope
    for the program (an explicit ``D3D12_GLOBAL_ROOT_SIGNATURE`` subobject or a DXIL-embedded one); rules 2 and 26
    check it against the PCS's ``pGlobalRootSignature``.
    """

    name: str
    Identifier: bytes = bytes(32)
    ProgramCommandSignature: ProgramCommandSignature | None = None
    LocalRootSignature: RootSignature | None = None
    ProgramKind: str | None = None
    GlobalRootSignature: RootSignature | None = None


# --------------------------------------------------------------------------------------------------------------
# ExecuteIndirect (D3D12_INDIRECT_ARGUMENT_DESC / D3D12_COMMAND_SIGNATURE_DESC)
# --------------------------------------------------------------------------------------------------------------


@dataclass
class EIConstantArg:
    RootParameterIndex: int = 0
    DestOffsetIn32BitValues: int = 0
    Num32BitValuesToSet: int = 0


@dataclass
class EIIncrementingConstantArg:
    RootParameterIndex: int = 0
    DestOffsetIn32BitValues: int = 0


@_union_members_made_when_read
@dataclass
class IndirectArgumentDesc:
    """``D3D12_INDIRECT_ARGUMENT_DESC`` (ExecuteIndirect)."""

    Type: int = 0
    VertexBuffer: VertexBufferArg = union_member(VertexBufferArg)
    Constant: EIConstantArg = union_member(EIConstantArg)
    ConstantBufferView: RootParameterIndexArg = union_member(RootParameterIndexArg)
    ShaderResourceView: RootParameterIndexArg = union_member(RootParameterIndexArg)
    UnorderedAccessView: RootParameterIndexArg = union_member(RootParameterIndexArg)
    IncrementingConstant: EIIncrementingConstantArg = union_member(EIIncrementingConstantArg)
    #: not a C member: the name of this argument's record member (:mod:`d3d12wl.model.fieldnames`)
    Name: str | None = None

    @property
    def type_name(self) -> str:
        return _TYPE_NAME(self.Type)

    @property
    def payload(self) -> object | None:
        member = arg_type_info(self.type_name).union_member
        return getattr(self, member, None) if member else None

    @property
    def root_parameter_index(self) -> int | None:
        return getattr(self.payload, "RootParameterIndex", None)


@dataclass
class CommandSignature:
    """``D3D12_COMMAND_SIGNATURE_DESC`` plus the root signature passed to CreateCommandSignature."""

    name: str
    ByteStride: int = 0
    pArgumentDescs: list[IndirectArgumentDesc] = field(default_factory=list)
    NodeMask: int = 0
    pRootSignature: RootSignature | None = None


# --------------------------------------------------------------------------------------------------------------
# A set of named objects (what a JSON description file holds)
# --------------------------------------------------------------------------------------------------------------


@dataclass
class ObjectSet:
    """The named objects of one description file (design.md, "The JSON description of objects")."""

    root_signatures: dict[str, RootSignature] = field(default_factory=dict)
    program_command_signatures: dict[str, ProgramCommandSignature] = field(default_factory=dict)
    work_list_signatures: dict[str, WorkListSignature] = field(default_factory=dict)
    work_list_signature_arrays: dict[str, WorkListSignatureArray] = field(default_factory=dict)
    command_signatures: dict[str, CommandSignature] = field(default_factory=dict)
    programs: dict[str, Program] = field(default_factory=dict)

    def program_by_identifier(self, identifier: bytes) -> Program | None:
        for program in self.programs.values():
            if program.Identifier == identifier:
                return program
        return None


# --------------------------------------------------------------------------------------------------------------
# repr: the members written, enums by name
# --------------------------------------------------------------------------------------------------------------

#: the classes whose objects are named (an ObjectSet collection's): a member referring to one shows its name
_NAMED = (RootSignature, ProgramCommandSignature, WorkListSignature, WorkListSignatureArray, CommandSignature, Program)


def _value_repr(value: Any, kind: str, enum_name: str | None) -> str:
    if kind in ("enum", "flags") and enum_name is not None and isinstance(value, int):
        return abi.enum_text(enum_name, value)
    if isinstance(value, _NAMED):
        return f"<{type(value).__name__} {value.name!r}>"
    if isinstance(value, list):
        return "[" + ", ".join(_value_repr(v, kind, enum_name) for v in value) + "]"
    if isinstance(value, bytes):
        text = value.rstrip(b"\0")
        zeros = len(value) - len(text)
        if text.isascii() and all(32 <= c < 127 for c in text):
            return f"{text!r}" + (f" + bytes({zeros})" if zeros else "")
        return f"bytes.fromhex({value.hex()!r})"
    return repr(value)


#: (member name, kind, enum name or None, is a union member) of each member of a model class, in C's order: the
#: description's member table (:func:`d3d12wl.model.description.members`), registered by that module when it is
#: imported (it imports this one); until then a repr shows enum values as integers
MemberTable = Callable[[type], tuple[tuple[str, str, "str | None", bool], ...]]
_member_table: MemberTable | None = None


def register_member_table(table: MemberTable) -> None:
    global _member_table
    _member_table = table


def _plain_table(cls: type) -> tuple[tuple[str, str, str | None, bool], ...]:
    return tuple((f.name, "int", None, bool(f.metadata.get(UNION_MEMBER))) for f in dataclasses.fields(cls)
                 if f.name != "name")


def is_zero(value: Any) -> bool:
    """True when ``value`` is C's zero value of its member (what the canonical JSON and the repr leave out)."""
    if isinstance(value, _NAMED):
        return False
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return bool(value == type(value)())
    return value is None or value in (0, b"", [], bytes(32))


def compact_repr(obj: Any) -> str:
    """``ClassName(member=value, ...)`` of a model object: the members that are not C's zero value (as the canonical
    JSON writes them, ``description.dump``: the discriminating enum members always), enums and flags by their short
    names, a referenced named object by its name, a program identifier as its text.  A union member that was never
    read is not made (it is C's zero value)."""
    cls = type(obj)
    parts = [f"{obj.name!r}"] if isinstance(obj, _NAMED) else []
    for name, kind, enum_name, union in (_member_table or _plain_table)(cls):
        if union and name not in vars(obj):
            continue  # (never read nor written: C's zero value, and reading it would make it)
        value = getattr(obj, name)
        if kind != "enum" and is_zero(value):
            continue
        parts.append(f"{name}={_value_repr(value, kind, enum_name)}")
    return f"{cls.__name__}({', '.join(parts)})"


def _with_compact_repr(cls: type) -> None:
    cls.__repr__ = compact_repr  # type: ignore[assignment]


for _cls in (DescriptorRange1, RootDescriptorTable1, RootConstants, RootDescriptor1, RootParameter1, StaticSamplerDesc1,
             RootSignature, VertexBufferArg, ConstantArg, RootParameterIndexArg, IncrementingConstantArg,
             FixedDispatchArg, InlineRootParameter, WorkListArgumentDesc, ProgramCommandSignature, WorkListSignature,
             WorkListSignatureArray, Program, EIConstantArg, EIIncrementingConstantArg, IndirectArgumentDesc,
             CommandSignature):
    _with_compact_repr(_cls)
