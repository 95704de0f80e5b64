"""C and HLSL struct text from a :class:`~d3d12wl.records.layout.RecordLayout` (design.md, "The shape": codegen is a view
derived from the layout, never a second computation of it).

C: one ``typedef struct`` per record, every byte explicit (``uint8_t _padN[k]`` for holes and the trailing pad up to
the stride), packed to 4 (:func:`c_packing`) only where a member sits below its C alignment (a 16-byte vertex/index
buffer view at a 4-byte offset as the spec's "Per-arg natural alignment" table requires although C's ``alignof`` is
8; an ExecuteIndirect VA after a root constant) or the stride is not a multiple of the members' alignment; each
struct says its alignof and why it is packed (an engine's struct of the same members unpacked has another
alignof); then ``_Static_assert`` on ``sizeof``, ``alignof`` and the ``offsetof`` of every member, and for the fixed
header's members on their offset in the header struct itself.
Payloads are the headers' own types (``D3D12_DRAW_ARGUMENTS``, ``D3D12_GPU_VIRTUAL_ADDRESS``), so
:func:`c_source` includes ``headers/`` and compiles standalone with ``-I headers``; after the real ``<d3d12.h>``
(its include guard ``__d3d12_h__`` defined) it takes the pre-existing types from that header instead and declares
only the ones it predates (the Work Lists headers, ``D3D12_DISPATCH_RAYS_DIMENSIONS``, and
``D3D12_PROGRAM_IDENTIFIER`` below SDK 1.613), each once per translation unit.  The asserts go through
``D3D12WL_STATIC_ASSERT`` (``_Static_assert`` in C, ``static_assert`` in C++), so the file is C11 and C++11.

HLSL: the shape of the spec's culling-example ``SecondaryRecord``: ``uint64_t`` for VAs and handles (below Shader
Model 6.0, which has no 64-bit type, ``uint2``: ``.x`` the low DWORD, as FXC code such as the D3D12ExecuteIndirect
sample's writes them), ``uint`` for DWORDs, payload structs flattened into their members, explicit ``uint`` padding.  A ``uint64_t`` is 8-aligned in a
structured buffer and makes its struct's size (the buffer's stride) a multiple of 8 (the std430-like SPIR-V layout
glslc gives a ``StructuredBuffer``; tests/test_codegen_hlsl.py checks every offset), so a ``uint64_t`` at an offset
that is not a multiple of 8 (a buffer view at 4), and every ``uint64_t`` of a record whose stride is not a multiple
of 8 (an ExecuteIndirect command of a CBV and a DRAW_INDEXED: 28 bytes), is split into ``_lo``/``_hi`` uints (a
``uint64_t[n]``: ``uint _dw[2n]``, low DWORD first), so that no HLSL packing rule can move a byte; a ``uint2`` follows
the same rule.  A payload
member keeps its own name (``BufferLocation``) in the field with the strongest claim on it (header, trigger, index
buffer view, then the rest by argument index) and is prefixed with its field name elsewhere, so adding arguments
never renames an existing member unless the new one claims it more strongly.  A field the user named (its argument
desc's ``Name``) claims no bare name: its members are always ``Name_Member``, the C member path ``Name.Member``
with ``_`` for ``.``, so no other argument can rename them.  Two members that would be spelled alike are a
:class:`~d3d12wl.errors.LayoutError` naming both.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import NamedTuple

from d3d12wl import abi
from d3d12wl.abi.check import PRE_EXISTING_HEADERS
from d3d12wl.errors import LayoutError
from d3d12wl.model.argtypes import arg_type_info
from d3d12wl.model.fieldnames import RECORD_STRUCT_SUFFIXES
from d3d12wl.records._frozen import frozen
from d3d12wl.records.layout import COMMAND, PRIMARY, PROGRAM_TABLE, SECONDARY, LayoutField, RecordLayout, record_id

#: Headers a generated C file includes, in dependency order (they are cffi-cdef style: no #include of their own).
C_HEADERS = ("d3d12wl_base.h", "d3d12wl_execute_indirect.h", "d3d12wl_work_lists.h")

#: A C struct is packed to this where a member sits below its C alignment: the largest alignment any record payload
#: has at a non-multiple of its C alignment (spec "Per-arg natural alignment": views at 4; ExecuteIndirect's tightly
#: packed arguments: a VA at 4).  Every offset comes from explicit padding.
C_PACK = 4


@dataclass(frozen=True)
class CPacking:
    """How a record's C struct is packed: ``alignof`` the struct has as generated, ``natural`` the alignment its
    members give it unpacked, ``pack`` the ``#pragma pack`` it needs (None: none) and ``why`` (the first member
    below its alignment, or the stride)."""

    alignof: int
    natural: int
    pack: int | None
    why: str

    def comment(self, name: str) -> str:
        if self.pack is None:
            return f"alignof({name}) is {self.alignof}, its members' natural alignment (no #pragma pack)"
        return (f"packed to {self.pack} (#pragma pack(push, {self.pack})): {self.why}, so alignof({name}) is "
                f"{self.alignof}, not the {self.natural} its members have; a struct of these members without the pack "
                f"has alignof {self.natural} and another layout")


def c_packing(layout: RecordLayout, stride: int) -> CPacking:
    """The packing of ``layout``'s C struct at ``stride`` (the C compiler's alignment of each member's type on the
    Windows x64 ABI, which the headers' fixed-width types make the host's too)."""
    natural, why = 1, ""
    for f in sorted(layout.fields, key=lambda f: f.offset):
        if f.size == 0:
            continue
        align = abi.default.alignof(f.ctype)
        natural = max(natural, align)
        if f.offset % align and not why:
            why = f"{f.name} ({f.ctype}, alignof {align}) sits at offset {f.offset}"
    if not why and stride % natural:
        why = f"the stride {stride} is not a multiple of {natural}"
    if not why:
        return CPacking(natural, natural, None, "")
    return CPacking(min(natural, C_PACK), natural, C_PACK, why)

#: a record class's struct name suffix: the names model.fieldnames refuses as members (C++ refuses a member named as
#: its struct), spelt there once, in the record classes' order
_RECORD_SUFFIX = dict(zip((PRIMARY, SECONDARY, PROGRAM_TABLE, COMMAND),
                          (suffix.removeprefix("_") for suffix in RECORD_STRUCT_SUFFIXES), strict=True))
_RECORD_TITLE = {PRIMARY: "primary record", SECONDARY: "secondary record", PROGRAM_TABLE: "program-table record",
                 COMMAND: "ExecuteIndirect command"}


def c_identifier(text: str) -> str:
    ident = re.sub(r"\W", "_", text)
    return f"_{ident}" if not ident or ident[0].isdigit() else ident


def struct_name(layout: RecordLayout) -> str:
    """``<owner>_<RecordKind>``: ``PCS_SecondaryRecord``, ``Opaque_ProgramTableRecord``, ``EI_Command``."""
    return f"{c_identifier(layout.owner)}_{_RECORD_SUFFIX[layout.record]}"


def declared_stride_note(layout: RecordLayout) -> str:
    """The stride the description declares, when it is not the minimum: ``SecondaryRecordByteStride 0`` (the
    broadcast form, spec "Stride derivation") or a larger one; '' otherwise."""
    declared = layout.declared_stride
    if declared is None or declared == layout.min_stride:
        return ""
    member = "SecondaryRecordByteStride" if layout.record == SECONDARY else "ByteStride"
    if declared == 0:
        return (f"declared {member} 0: broadcast, every secondary index reads the record at the list's start "
                f"(minimum {layout.min_stride})")
    return f"declared {member} {declared} (minimum {layout.min_stride})"


def _title(layout: RecordLayout, stride: int) -> str:
    header = f", header {layout.header}" if layout.header else ""
    declared = declared_stride_note(layout)
    return (f"{_RECORD_TITLE[layout.record]} of {layout.owner!r}{header}: {layout.size} bytes used, "
            f"stride {stride} (minimum {layout.min_stride})" + (f"; {declared}" if declared else ""))


def _describe(f: LayoutField) -> str:
    if f.role == "header":
        return "header"
    if f.role == "identifier":
        return "program identifier"
    if f.role == "local":
        dw = f", DWORDs {f.dword_offset}..{f.dword_offset + f.count - 1}" if f.dword_offset is not None else ""
        return f"local root parameter {f.parameter}{dw}"
    dw = f", DWORD {f.dword_offset}+" if f.dword_offset is not None else ""
    return f"pArgumentDescs[{f.arg}] {f.arg_type} from {f.source or 'record'}{dw}"


class _Slot(NamedTuple):
    """One C/HLSL member: a field or a run of padding (a tuple: one per field of a record of 100,000)."""

    offset: int
    size: int
    field: LayoutField | None


def _slots(layout: RecordLayout, stride: int) -> list[_Slot]:
    fields = {f.offset: f for f in layout.fields if f.size > 0}
    holes = {p.offset: p for p in layout.padding(stride)}
    out = []
    for offset in sorted({*fields, *holes}):
        if offset in fields:
            out.append(_Slot(offset, fields[offset].size, fields[offset]))
        else:
            out.append(_Slot(offset, holes[offset].size, None))
    return out


def _stride(layout: RecordLayout, stride: int | None) -> int:
    if stride is None or stride == 0:
        return layout.min_stride
    problems = layout.stride_problems(stride)
    if problems:
        raise LayoutError("; ".join(problems), where=f"{layout.record} record of {layout.owner!r}")
    return stride


def c_struct(layout: RecordLayout, stride: int | None = None) -> str:
    """The C struct of one record (``stride``: sizeof; default the minimum stride).  Empty string for a record
    with no bytes at all (a fully-inline raytracing record without primary args is not a C struct)."""
    stride = _stride(layout, stride)
    if stride == 0:
        return f"/* {_title(layout, stride)}: no bytes, no struct */\n"
    name = struct_name(layout)
    packing = c_packing(layout, stride)
    lines = [f"/* {_title(layout, stride)} */", f"/* {packing.comment(name)} */"]
    if packing.pack is not None:
        lines.append(f"#pragma pack(push, {packing.pack})")
    lines += [f"typedef struct {name}", "{"]
    asserts = [f'{C_ASSERT}(sizeof({name}) == {stride}, "sizeof({name})");',
               f'{C_ASSERT}({C_ALIGNOF}({name}) == {packing.alignof}, "alignof({name})");']
    pad = 0
    for slot in _slots(layout, stride):
        f = slot.field
        where = f"[{slot.offset}..{slot.offset + slot.size - 1}]"
        if f is None:
            lines.append(f"    {f'uint8_t _pad{pad}[{slot.size}];':<56}/* {where} padding */")
            pad += 1
            continue
        decl = f"{f.ctype} {f.name}[{f.count}]" if f.count > 1 else f"{f.ctype} {f.name}"
        lines.append(f"    {decl + ';':<56}/* {where} {_describe(f)} */")
        asserts.append(f'{C_ASSERT}(offsetof({name}, {f.name}) == {f.offset}, "{name}.{f.name}");')
        asserts.append(f'{C_ASSERT}(sizeof((({name} *)0)->{f.name}) == {f.size}, "sizeof {name}.{f.name}");')
        if f.role == "header" and layout.header:
            asserts.append(f'{C_ASSERT}(offsetof({layout.header}, {f.name}) == {f.offset}, '
                           f'"{layout.header}.{f.name}");')
    lines += [f"}} {name};", *(["#pragma pack(pop)"] if packing.pack is not None else []), *asserts, ""]
    return "\n".join(lines)


#: The real d3d12.h's include guard: defined, the generated C takes the pre-existing D3D12 types from it.
D3D12_H_GUARD = "__d3d12_h__"

#: Types d3d12wl's pre-existing-type headers declare that d3d12.h gained after Debian's 1.606 (the ABI check's
#: truth 4 lists them as lacking there): the D3D12_SDK_VERSION that declares them (Agility SDK 1.613, work graphs).
D3D12_H_SINCE = {"D3D12_PROGRAM_IDENTIFIER": 613}

#: The generated C's static-assert macro (C11 ``_Static_assert``, C++11 ``static_assert``) and alignof macro (C11
#: ``_Alignof``, C++11 ``alignof``).
C_ASSERT = "D3D12WL_STATIC_ASSERT"
C_ALIGNOF = "D3D12WL_ALIGNOF"

_C_PRIMITIVES = {"uint8_t", "uint16_t", "uint32_t", "uint64_t", "int8_t", "int16_t", "int32_t", "int64_t", "float",
                 "double", "void", "char", "struct", "union", "enum"}


def _in_d3d12_h(name: str) -> bool:
    """Declared by every d3d12.h since 1.606: a pre-existing API type (abi.check's truth 4 set)."""
    decls = abi.default.decls
    provisional = {m.name for m in decls.provisional}
    return (decls.origin.get(name) in PRE_EXISTING_HEADERS and not name.startswith("D3D12DDI")
            and name not in provisional and name not in D3D12_H_SINCE)


def _type_dependencies(name: str) -> list[str]:
    """The declared names a declaration of ``name`` refers to, in order of first mention."""
    decls = abi.default.decls
    if name in decls.aggregates:
        text = " ".join(f.type_text for f in decls.aggregates[name].fields)
    elif name in decls.aliases:
        text = decls.aliases[name]
    else:
        return []
    known = decls.aggregates.keys() | decls.aliases.keys() | decls.enums.keys() | decls.opaque
    out: list[str] = []
    for word in re.findall(r"[A-Za-z_]\w*", text):
        if word in known and word != name and word not in out:
            out.append(word)
    return out


def _c_declaration(name: str) -> str:
    """The declaration of one header type as the headers spell it (member names and type names from
    :mod:`d3d12wl.abi.decls`, enum values from the compiled module)."""
    decls = abi.default.decls
    if name in decls.opaque:
        return f"typedef struct {name} {name};"
    if name in decls.aliases:
        return f"typedef {decls.aliases[name]} {name};"
    if name in decls.enums:
        values = abi.enum_members(name)
        body = [f"    {m} = {values[m]}," for m in decls.enums[name].members]
        return "\n".join([f"typedef enum {name}", "{", *body, f"}} {name};"])
    agg = decls.aggregates[name]
    body = []
    for f in agg.fields:
        if f.name is None:
            body.append(f"    {f.type_text};")
            continue
        base = re.sub(r"\[\d+\]$", "", f.type_text).strip()
        dims = f"[{f.array_length}]" if f.array_length else ""
        body.append(f"    {base} {f.name}{dims};")
    return "\n".join([f"typedef {agg.kind} {agg.tag or name}", "{", *body, f"}} {name};"])


def c_type_names(layouts: list[RecordLayout]) -> list[str]:
    """Every declared type the records use (field types, fixed headers, what those refer to), dependencies first."""
    ordered: list[str] = []

    def visit(name: str) -> None:
        if name in ordered or name in _C_PRIMITIVES:
            return
        for dep in _type_dependencies(name):
            visit(dep)
        ordered.append(name)

    decls = abi.default.decls
    known = decls.aggregates.keys() | decls.aliases.keys() | decls.enums.keys() | decls.opaque
    for layout in layouts:
        names = [f.ctype for f in layout.fields] + ([layout.header] if layout.header else [])
        for n in names:
            if n in known:
                visit(n)
    return ordered


def _c_after_d3d12_h(layouts: list[RecordLayout]) -> list[str]:
    """The declarations the records need that the real d3d12.h lacks, each guarded to be declared once."""
    out = []
    for name in c_type_names(layouts):
        if _in_d3d12_h(name):
            continue
        guard = f"D3D12WL_DECLARED_{name}"
        cond = f"!defined({guard})"
        since = D3D12_H_SINCE.get(name)
        if since is not None:
            cond += f" && D3D12_SDK_VERSION < {since} /* d3d12.h declares {name} from SDK 1.{since} */"
        out += [f"#if {cond}", f"#define {guard}", _c_declaration(name), "#endif"]
    return out


def c_source(layouts: list[RecordLayout], *, include_headers: bool = True,
             strides: Mapping[str, int] | None = None) -> str:
    """A standalone C11 / C++11 translation unit: includes, then :func:`c_struct` of each layout (at its stride in
    ``strides``, by :func:`~d3d12wl.records.layout.record_id`; default the minimum).

    Included after the real ``<d3d12.h>`` it uses that header's pre-existing types and declares only what it
    lacks (``include_headers``); otherwise it includes d3d12wl's ``headers/`` (once per translation unit)."""
    head = ["/* Generated by d3d12wl codegen from the layout calculator; do not edit. */",
            "#include <stddef.h>", "#include <stdint.h>",
            f"#ifndef {C_ASSERT}", "#ifdef __cplusplus",
            f"#define {C_ASSERT}(condition, message) static_assert(condition, message)", "#else",
            f"#define {C_ASSERT}(condition, message) _Static_assert(condition, message)", "#endif", "#endif",
            f"#ifndef {C_ALIGNOF}", "#ifdef __cplusplus", f"#define {C_ALIGNOF}(type) alignof(type)", "#else",
            f"#define {C_ALIGNOF}(type) _Alignof(type)", "#endif", "#endif"]
    if include_headers:
        head += [f"#ifdef {D3D12_H_GUARD}",
                 "/* after the real <d3d12.h>: its pre-existing types, and here what these records need that it lacks */",
                 *_c_after_d3d12_h(layouts),
                 "#elif !defined(D3D12WL_HEADERS_INCLUDED)", "#define D3D12WL_HEADERS_INCLUDED",
                 *[f'#include "{h}"' for h in C_HEADERS], "#endif"]
    return "\n".join(head) + "\n\n" + "\n".join(c_struct(layout, (strides or {}).get(record_id(layout)))
                                                for layout in layouts)


# ----------------------------------------------------------------------------------------------------------------
# HLSL
# ----------------------------------------------------------------------------------------------------------------

_HLSL_SCALAR = {"uint32_t": "uint", "int32_t": "int", "uint64_t": "uint64_t", "float": "float"}

#: The Shader Models ``codegen --lang hlsl --shader-model`` takes, as the profiles spell them (``cs_5_1``, ``cs_6_0``)
SHADER_MODELS = ("5_0", "5_1", "6_0", "6_1", "6_2", "6_3", "6_4", "6_5", "6_6", "6_7", "6_8", "6_9")
DEFAULT_SHADER_MODEL = "6_0"
#: the first Shader Model with 64-bit integers (``uint64_t``: DXC; FXC, which compiles 5.x, has none)
INT64_SHADER_MODEL = "6_0"


def parse_shader_model(text: str) -> str:
    """A Shader Model as :data:`SHADER_MODELS` spells it, from ``5_1``, ``5.1`` or ``cs_5_1``; a
    :class:`~d3d12wl.errors.LayoutError` naming the models otherwise."""
    model = re.sub(r"^[a-z]{2}_", "", text.strip().lower()).replace(".", "_")
    if model not in SHADER_MODELS:
        raise LayoutError(f"no Shader Model {text!r}; give one of {', '.join(SHADER_MODELS)}", where="--shader-model")
    return model


def has_int64(model: str) -> bool:
    """Whether HLSL of Shader Model ``model`` has ``uint64_t``."""
    return SHADER_MODELS.index(parse_shader_model(model)) >= SHADER_MODELS.index(INT64_SHADER_MODEL)


@dataclass(frozen=True)
class HlslMember:
    """One flattened HLSL member: ``type name[count]`` at ``offset``.

    Where it comes from, for checking it against the layout without trusting ``offset``: ``field`` is the name of
    its :class:`~d3d12wl.records.layout.LayoutField` (``None`` for padding), ``path`` the dotted member path inside the
    field's C type (``""`` for the field itself) and ``part`` the byte offset inside that C member (4 for the
    ``_hi`` half of a split ``uint64_t``, else 0).
    """

    name: str
    hlsl_type: str
    offset: int
    size: int
    count: int = 1
    comment: str = ""
    field: str | None = None
    path: str = ""
    part: int = 0


def _leaves(ctype: str, offset: int, prefix: str) -> list[tuple[str, str, str, int, int, int]]:
    """(name, dotted path, scalar C type, offset, element size, count) of every scalar inside ``ctype``."""
    shape = _leaf_shape(ctype)
    if isinstance(shape, str):
        return [(prefix, "", shape, offset, abi.sizeof(shape), 1)]
    return [(name, path, scalar, offset + off, size, count) for name, path, scalar, off, size, count in shape]


@lru_cache(maxsize=4096)
def _leaf_shape(ctype: str) -> str | tuple[tuple[str, str, str, int, int, int], ...]:
    """The scalars of struct ``ctype`` as :func:`_leaves` gives them at offset 0, or the scalar C type ``ctype``
    is (asked once per field: cached)."""
    resolved = abi.default.resolve(ctype)
    if resolved in abi.default.decls.aggregates:
        out = []
        for path, f, off in abi.type_info(resolved).walk():
            if f.nested is None:
                scalar = abi.default.resolve(re.sub(r"\[\d+\]$", "", f.type).strip())
                count = f.array_length or 1
                out.append((path.replace(".", "_"), path, scalar, off, f.size // count, count))
        return tuple(out)
    if resolved in abi.default.decls.enums:
        resolved = "uint32_t"
    return resolved


def _name_claim(f: LayoutField) -> tuple[int, int, int]:
    """How strongly a field claims its payload's bare member names (lowest wins), from the field alone: the fixed
    header, then the dispatch trigger (one per signature, spec "exactly one dispatch trigger"), then the index
    buffer view (at most one, rule 25(c)), then vertex buffer views and the rest, each by argument index."""
    if f.role != "arg" or f.arg_type is None:
        return (0, -1, f.offset)
    info = arg_type_info(f.arg_type)
    rank = 1 if info.is_trigger else 2 if info.name == "INDEX_BUFFER_VIEW" else 3
    return (rank, f.arg if f.arg is not None else -1, f.offset)


#: one HlslMember's values, in its field order
_HlslRow = tuple[str, str, int, int, int, str, str | None, str, int]


def hlsl_members(layout: RecordLayout, stride: int | None = None,
                 shader_model: str = DEFAULT_SHADER_MODEL) -> list[HlslMember]:
    """The flattened members of a record's HLSL struct, padding included, for HLSL of ``shader_model`` (below 6.0
    no 64-bit type: a ``uint64_t`` is a ``uint2``, ``.x`` its low DWORD)."""
    return [frozen(HlslMember, {"name": name, "hlsl_type": hlsl_type, "offset": offset, "size": size,
                                "count": count, "comment": comment, "field": field, "path": path, "part": part})
            for name, hlsl_type, offset, size, count, comment, field, path, part
            in _hlsl_rows(layout, _stride(layout, stride), has_int64(shader_model))]


def _hlsl_rows(layout: RecordLayout, stride: int, int64: bool = True) -> list[_HlslRow]:
    # (field, leaf name, path in the field's C type, scalar, offset, element size, count)
    raw: list[tuple[LayoutField | None, str, str, str, int, int, int]] = []
    for slot in _slots(layout, stride):
        f = slot.field
        if f is None:
            assert slot.size % 4 == 0 and slot.offset % 4 == 0, "records are built of DWORDs"
            raw.append((None, "", "", "uint32_t", slot.offset, 4, slot.size // 4))
        elif f.count > 1:
            raw.append((f, f.name, "", f.ctype, f.offset, f.size // f.count, f.count))
        else:
            leaves = _leaves(f.ctype, f.offset, f.name)
            if len(leaves) == 1:  # D3D12_GPU_DESCRIPTOR_HANDLE {ptr}, D3D12_PROGRAM_IDENTIFIER: keep the field's name
                leaves = [(f.name, *leaves[0][1:])]
            raw.extend((f, *leaf) for leaf in leaves)
    # A payload's own member name (VertexCountPerInstance, BufferLocation) goes to the field with the strongest
    # claim on it (:func:`_name_claim`); every other field with that member is prefixed with its field name.  So a
    # name depends only on the fields that claim it more strongly: adding vertex-buffer views (weaker than the index
    # buffer view) or a later one of them never renames an existing member.  A named field claims nothing: its
    # members are always prefixed with its name.
    owner: dict[str, tuple[int, int, int]] = {}
    claims: dict[int, tuple[int, int, int]] = {}  # id(field) -> its claim (worked out once per field)
    for f, leaf, *_ in raw:
        if f is not None and leaf != f.name and not f.named:
            claim = claims.get(id(f))
            if claim is None:
                claim = claims[id(f)] = _name_claim(f)
            owner[leaf] = min(owner.get(leaf, claim), claim)
    out: list[_HlslRow] = []
    pad = 0
    for f, leaf, path, scalar, off, size, count in raw:
        if f is None:
            out.append((f"_pad{pad}", "uint", off, 4 * count, count, "padding", None, "", 0))
            pad += 1
            continue
        name = f"{f.name}_{leaf}" if leaf != f.name and (f.named or owner[leaf] != claims[id(f)]) else leaf
        if scalar == "uint64_t" and (off % 8 or stride % 8):
            why = "at a 4-byte offset" if off % 8 else f"in a record of stride {stride}, not a multiple of 8"
            if count > 1:
                out.append((f"{name}_dw", "uint", off, size * count, 2 * count,
                            f"{_describe(f)} (uint64_t[{count}] {why}, as low/high DWORD pairs)", f.name, path, 0))
                continue
            for half, delta in (("lo", 0), ("hi", 4)):
                out.append((f"{name}_{half}", "uint", off + delta, 4, 1, f"{_describe(f)} (uint64_t {why}, split)",
                            f.name, path, delta))
            continue
        if scalar == "uint64_t" and not int64:
            out.append((name, "uint2", off, size * count, count, f"{_describe(f)} (64 bits as a uint2: .x the low "
                        "DWORD, .y the high; no 64-bit integers below Shader Model 6.0)", f.name, path, 0))
            continue
        out.append((name, _HLSL_SCALAR.get(scalar, "uint"), off, size * count, count, _describe(f), f.name, path, 0))
    _unique_members(layout, out)
    return out


def _unique_members(layout: RecordLayout, rows: list[_HlslRow]) -> None:
    """Two HLSL members spelled alike (a ``Name`` that is another field's flattened ``Field_Member``) is an error
    naming both, never a struct that does not compile."""
    seen: dict[str, _HlslRow] = {}
    for row in rows:
        other = seen.setdefault(row[0], row)
        if other is not row:
            raise LayoutError(f"HLSL member {row[0]!r} of {struct_name(layout)} would stand for both "
                              f"{other[6]}{'.' + other[7] if other[7] else ''} and {row[6]}"
                              f"{'.' + row[7] if row[7] else ''}; rename one (its argument desc's Name)",
                              where=f"{layout.record} record of {layout.owner!r}")


def hlsl_struct(layout: RecordLayout, stride: int | None = None, shader_model: str = DEFAULT_SHADER_MODEL) -> str:
    """The HLSL struct of one record (the shape of the spec's culling-example ``SecondaryRecord``) for HLSL of
    ``shader_model``."""
    stride = _stride(layout, stride)
    name = struct_name(layout)
    lines = [f"// {_title(layout, stride)}", f"struct {name}", "{"]
    for m in hlsl_members(layout, stride, shader_model):
        decl = f"{m.hlsl_type} {m.name}" + (f"[{m.count}]" if m.count > 1 else "")
        lines.append(f"    {decl + ';':<44}// [{m.offset}..{m.offset + m.size - 1}] {m.comment}")
    lines += ["};", ""]
    return "\n".join(lines)


def hlsl_source(layouts: list[RecordLayout], strides: Mapping[str, int] | None = None,
                shader_model: str = DEFAULT_SHADER_MODEL) -> str:
    """:func:`hlsl_struct` of each layout with bytes (at its stride in ``strides``, by record id), for HLSL of
    ``shader_model``, which the file's first lines say."""
    model = parse_shader_model(shader_model)
    if has_int64(model):
        says = (f"// Shader Model {model.replace('_', '.')} and later (DXC): a GPU VA or descriptor handle is a uint64_t "
                "where it sits at a multiple of 8 in a record whose stride is one, else uint _lo/_hi halves.")
    else:
        says = (f"// Shader Model {model.replace('_', '.')} (FXC, cs_{model}): no 64-bit type; a GPU VA or descriptor "
                "handle is a uint2 (.x the low DWORD, .y the high) where it sits at a multiple of 8 in a record whose "
                "stride is one, else uint _lo/_hi halves.")
    head = f"// Generated by d3d12wl codegen from the layout calculator; do not edit.\n{says}\n\n"
    return head + "\n".join(hlsl_struct(layout, (strides or {}).get(record_id(layout)), model) for layout in layouts
                             if layout.min_stride)
