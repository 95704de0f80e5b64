"""How the members of a record are named: the user's ``Name`` of an argument desc, or its positional name.

A record's members are the fixed header's members (spec "Primary record layout"), the program identifier of a
program-table slot (``ProgramIdentifier``), one member per argument that has record bytes, and on the explicit
local-root-signature path one per local root argument the program table holds (``param{p}``, ``param{p}_dw{k}``).
An argument's member is named by the optional ``Name`` of its desc (``D3D12_WORK_LIST_ARGUMENT_DESC``,
``D3D12_INDIRECT_ARGUMENT_DESC``), else positionally: ``arg{index}_{union member or trigger name}``
(``arg0_ShaderResourceView``, ``arg1_Draw``).  The positional names are an interface and stay as they are; a
``Name`` is the user's and survives any change to the rest of the signature.

``Name`` is not a member of the C desc structs: the JSON description and the model carry it (a description-only
member, like a program's ``ProgramKind``), the cffi descs do not.  The layout calculator
(:mod:`d3d12wl.records.layout`) is the one place that names a record's members, from :func:`field_name`; every
view (C, HLSL, RenderDoc, ctypes, construct, numpy, packers, decode, dump, exec) takes the name from there.

A ``Name`` must be a C identifier that every generated view can spell (issue 42: generated code compiles for every
name the checks accept): no keyword, predefined macro, standard-header name or HLSL type of
:mod:`d3d12wl.model.reserved_names`; no name the D3D12 headers declare (a type, which a member of its name would hide
in C++, an enumerator or a constant) nor one starting with the API's prefixes (``D3D12``, ``ID3D12``, ``DXGI``...);
not of a generated struct's form (``PCS_SecondaryRecord``: C++ refuses a member named as its class); no leading
underscore (``_pad0`` and its kind are d3d12wl's padding members), not of a positional form (``arg3_Foo``,
``param2``: another argument could take it), not a header member (``ProgramTableIndex``, ``NumSecondaryRecords``,
``SecondaryRecords``, ``ReservedPadding``), ``ProgramIdentifier``, or a member of a payload struct
(``VertexCountPerInstance``, ``BufferLocation``: HLSL flattens those into the record), and unique within its
signature's arguments.  :func:`check_names` says what is wrong with each, with its member path.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from functools import cache

from d3d12wl import abi
from d3d12wl.model.argtypes import ArgTypeInfo, all_arg_types, arg_type_info
from d3d12wl.model.objects import IndirectArgumentDesc, RecordKind, WorkListArgumentDesc
from d3d12wl.model.reserved_names import reserved_word

#: the description-only member of an argument desc that names its record member
NAME_MEMBER = "Name"

#: the member name of a program-table slot's 32-byte program identifier (spec "Program table slot layout")
IDENTIFIER_FIELD = "ProgramIdentifier"

#: The fixed primary-record header per (raytracing class, record kind) (spec "Primary record layout", first
#: table).  The raytracing fully-inline record has no header: ``D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD`` is "not
#: a real struct" and has no C declaration (design.md, "ABI rules").
INLINE_RAYTRACING_RECORD = "D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD"
PRIMARY_HEADER = {
    (False, RecordKind.HYBRID): "D3D12_WORK_LIST_PRIMARY_RECORD",
    (False, RecordKind.INLINE): "D3D12_WORK_LIST_INLINE_PRIMARY_RECORD",
    (True, RecordKind.HYBRID): "D3D12_WORK_LIST_RAYTRACING_RECORD",
    (True, RecordKind.INLINE): INLINE_RAYTRACING_RECORD,
}

#: the positional name's suffix for a trigger or IA argument that has no union member of its own
_PAYLOAD_NAME = {
    "DRAW": "Draw",
    "DRAW_INDEXED": "DrawIndexed",
    "DISPATCH": "Dispatch",
    "DISPATCH_MESH": "DispatchMesh",
    "DISPATCH_RAYS": "DispatchRays",
    "DISPATCH_RAYS_DIMENSIONS": "DispatchRaysDimensions",
    "INDEX_BUFFER_VIEW": "IndexBuffer",
}


def payload_name(info: ArgTypeInfo) -> str:
    """The positional name's suffix of an argument of type ``info``: its union member or trigger name."""
    return info.union_member or _PAYLOAD_NAME.get(info.name, info.name)


def positional_name(index: int, info: ArgTypeInfo) -> str:
    """``arg{index}_{union member or trigger name}``: the name of ``pArgumentDescs[index]``'s member when its desc
    has no ``Name``."""
    return f"arg{index}_{payload_name(info)}"


def field_name(index: int, arg: WorkListArgumentDesc | IndirectArgumentDesc, info: ArgTypeInfo | None = None) -> str:
    """The member name of ``pArgumentDescs[index]``'s payload: its ``Name``, else :func:`positional_name`."""
    name = arg.Name
    if name is not None:
        return name
    return positional_name(index, info if info is not None else arg_type_info(arg.type_name))


def local_name(parameter: int, dword_offset: int | None = None) -> str:
    """Explicit-path local root argument ``parameter`` of the program table (``param{p}``), or the DWORD run of
    its root constants that starts at ``dword_offset`` (``param{p}_dw{k}``) when the PCS overrides the rest."""
    return f"param{parameter}" if dword_offset is None else f"param{parameter}_dw{dword_offset}"


# --- what a Name may be ------------------------------------------------------------------------------------------

#: a C identifier (C11 6.4.2.1, the basic character set)
C_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
#: the JSON Schema spelling of :data:`C_IDENTIFIER` (leading underscores are refused by :func:`name_problem`)
C_IDENTIFIER_PATTERN = "^[A-Za-z_][A-Za-z0-9_]*$"
#: the positional forms d3d12wl gives members itself
_POSITIONAL = re.compile(r"(arg|param)[0-9]+(_[A-Za-z0-9_]*)?\Z")
#: longest Name accepted (C guarantees 63 significant characters of an internal identifier, C11 5.2.4.1)
MAX_NAME = 63

#: the prefixes of the D3D12 API's names (the real d3d12.h declares its types, enumerators and constants with them)
#: and of the generated C's own macros (``D3D12WL_STATIC_ASSERT``)
API_PREFIXES = ("D3D12", "ID3D12", "D3D_", "DXGI", "D3D12WL_")
#: the suffixes of the generated structs' names (``PCS_SecondaryRecord``): C++ forbids a member named as its class.
#: The one spelling: records.codegen names the primary, secondary, program-table and command structs with them, in
#: this order
RECORD_STRUCT_SUFFIXES = ("_PrimaryRecord", "_SecondaryRecord", "_ProgramTableRecord", "_Command")


@cache
def declared_names() -> frozenset[str]:
    """Every name the package's headers declare: types and struct tags, enumerators and constants (read from the
    compiled headers)."""
    decls = abi.default.decls
    names = set(decls.aggregates) | set(decls.aliases) | set(decls.enums) | set(decls.opaque)
    names |= {a.tag for a in decls.aggregates.values() if a.tag}
    names |= {m for e in decls.enums.values() for m in e.members}
    names |= set(abi.constants())
    return frozenset(names)


@cache
def reserved_members() -> dict[str, str]:
    """Every member name a ``Name`` may not take, with why: the fixed headers' members, the program identifier,
    and the members of every payload struct an argument can have (HLSL flattens those into the record)."""
    out: dict[str, str] = {}
    for header in PRIMARY_HEADER.values():
        if header != INLINE_RAYTRACING_RECORD:
            for f in abi.type_info(header).fields:
                out.setdefault(f.name, f"a member of the record header {header}")
    out[IDENTIFIER_FIELD] = "the program-table slot's program identifier member"
    for info in all_arg_types():
        ctype = info.payload_ctype
        if ctype is None or ctype not in abi.default.decls.aggregates:
            continue
        for path, _, _ in abi.type_info(ctype).walk():
            leaf = path.rsplit(".", 1)[-1]
            out.setdefault(leaf, f"a member of {ctype}, which HLSL flattens into the record")
    return out


def name_problem(name: object) -> str | None:
    """Why ``name`` cannot be a ``Name``, or None when it can (uniqueness aside: :func:`check_names`)."""
    if not isinstance(name, str):
        return f"{name!r} is not a string"
    if not C_IDENTIFIER.match(name):
        return f"{name!r} is not a C identifier (a letter or _, then letters, digits and _)"
    if len(name) > MAX_NAME:
        return f"{name!r} is {len(name)} characters long; at most {MAX_NAME} (C's significant initial characters)"
    if name.startswith("_"):
        return f"{name!r} starts with _, which d3d12wl's own members take (the _padN padding members)"
    reserved = reserved_word(name)
    if reserved is not None:
        return f"{name!r} is {reserved}: the generated C, C++ or HLSL could not spell the member"
    if name in declared_names():
        return (f"{name!r} is declared by the D3D12 headers (a type, an enumerator or a constant): in C++ a member "
                "spelt as a type hides it from the members after it, and a macro rewrites the member")
    if name.startswith(API_PREFIXES):
        return (f"{name!r} starts with {next(p for p in API_PREFIXES if name.startswith(p))}, a prefix of the D3D12 "
                "API's names (the real d3d12.h's types, enumerators and macros) and of the generated C's own macros")
    if name.endswith(RECORD_STRUCT_SUFFIXES):
        return (f"{name!r} has the form of a generated struct's name (OWNER{', OWNER'.join(RECORD_STRUCT_SUFFIXES)}), "
                "and C++ refuses a member named as its struct")
    if _POSITIONAL.match(name):
        return (f"{name!r} has the form of a positional name (arg{{index}}_..., param{{p}}...), which another "
                "argument or local root parameter takes")
    why = reserved_members().get(name)
    if why is not None:
        return f"{name!r} is {why}"
    return None


@cache
def _problem(name: str) -> str | None:
    return name_problem(name)


def check_names(args: Sequence[WorkListArgumentDesc | IndirectArgumentDesc], where: str = "pArgumentDescs"
                ) -> Iterator[tuple[str, str]]:
    """``(member path, message)`` for every ``Name`` of ``args`` that cannot be used: not a usable identifier
    (:func:`name_problem`), or given to two arguments of one signature (a name is unique within the signature: its
    arguments' members meet in the views of a call, the primary, secondary and program-table records side by
    side)."""
    first: dict[str, int] = {}
    for i, arg in enumerate(args):
        name = arg.Name
        if name is None:
            continue
        path = f"{where}[{i}].{NAME_MEMBER}"
        problem = _problem(name) if isinstance(name, str) else name_problem(name)
        if problem is not None:
            yield path, problem
            continue
        if name in first:
            yield path, f"{name!r} is also the Name of {where}[{first[name]}]; a Name is unique within its signature"
            continue
        first[name] = i
