"""RenderDoc buffer formats for records and fixed structs (``d3d12wl codegen --lang renderdoc``).

RenderDoc's buffer viewer reads a buffer through a format written in its own declaration language (its docs, "How
do I specify a buffer format?"): C/HLSL-like ``struct`` declarations of basic types (``ubyte``/``ushort``/``uint``
/``ulong``, their signed forms, ``float``, ``double``), fixed arrays ``T name[N]``, an unbounded array ``T name[]``
for the repeated element (array of structs), ``enum Name : uint { A = 0, B = 0x1, }`` with every value given
literally, ``#pack(rule)`` at global scope, and annotations before a declaration: ``[[offset(N)]]`` (a member's
byte offset in its parent, never earlier than tight packing would put it), ``[[size(N)]]`` on a struct (padding it
to N bytes), ``[[pad]]`` (a member that only takes space), ``[[hex]]`` (integers shown in hexadecimal).  A struct
can only use structs and enums declared before it; the language has no unions and no pre-processor.

Each format generated here is self-contained (one per record class or struct, for one buffer): ``#pack(scalar)``
(tight packing, so no packing rule of the viewer can move a byte), every enum and nested struct it uses declared
first, every member with its ``[[offset]]``, every hole and the trailing pad up to the stride as a ``[[pad]]``
member, ``[[size(stride)]]`` on the record struct, VAs, descriptor handles, program identifiers and local-root DWORDs
``[[hex]]``, and finally ``Record records[];``.  Offsets, sizes and types come from the layout calculator and the
compiled headers; enum values from :mod:`d3d12wl.abi`.  A union (in a fixed struct) is shown as its first member,
the others named in a comment, padded to the union's size.  A flag enum is a struct of bitfields named after its
flags (RenderDoc's C-style bitfields: an OR shows each flag), and a ``D3D12_PROGRAM_IDENTIFIER`` its 32 bytes in
memory order, ``[[hex]] ubyte[32]``: the digits ``d3d12wl decode`` prints, not byte-swapped 64-bit words.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from d3d12wl import abi
from d3d12wl.abi.compiled import FieldInfo, TypeInfo
from d3d12wl.errors import LayoutError
from d3d12wl.records.codegen import c_identifier, struct_name
from d3d12wl.records.dtypes import Scalar, classify, field_type
from d3d12wl.records.layout import HEX_STRUCTS, HEX_TYPES, PROGRAM_IDENTIFIER, RecordLayout, record_id

__all__ = ["record_format", "struct_format", "source", "BASIC_TYPES"]

#: RenderDoc basic type per (kind, size) of a scalar
BASIC_TYPES = {("u", 1): "ubyte", ("u", 2): "ushort", ("u", 4): "uint", ("u", 8): "ulong",
               ("i", 1): "byte", ("i", 2): "short", ("i", 4): "int", ("i", 8): "long",
               ("f", 4): "float", ("f", 8): "double"}

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=4096)
def _type_name(text: str) -> str:
    # (cached: asked once per field, and a record can have 100,000 fields of a handful of types)
    return re.sub(r"\b(const|volatile|struct|union|enum)\b", "", text.split("[")[0]).strip()


@dataclass
class _Format:
    """Declarations collected in dependency order (each once) while a format is written."""

    decls: list[str] = field(default_factory=list)
    declared: set[str] = field(default_factory=set)

    def enum(self, name: str, size: int) -> str:
        if name in self.declared:
            return name
        self.declared.add(name)
        prefix = abi.default.enum_prefix(name)
        members = abi.enum_members(name)
        short = {m: m[len(prefix):] for m in members}
        use_short = all(_IDENT.fullmatch(s) for s in short.values()) and len(set(short.values())) == len(short)
        flags = abi.is_flag_enum(name)
        lines = [f"enum {name} : {BASIC_TYPES[('u', size)]}", "{"]
        for m, v in members.items():
            value = f"0x{v:x}" if flags else str(v)
            lines.append(f"  {short[m] if use_short else m} = {value},")
        lines.append("};")
        self.decls.append("\n".join(lines))
        return name

    def flags(self, name: str, size: int) -> str:
        """Declare flag enum ``name`` (once) as a struct of ``size`` bytes of bitfields, one bit per flag, so that
        the viewer shows every flag of an OR by its name (RenderDoc's "Bitfields": C-style ``uint name : bits``);
        bits the enum does not name are ``_bits{lo}_{hi}`` (shown, since a set one is a finding of its own)."""
        if name in self.declared:
            return name
        self.declared.add(name)
        prefix = abi.default.enum_prefix(name)
        bit_names: dict[int, str] = {}
        for m, v in abi.enum_members(name).items():
            if v > 0 and v & (v - 1) == 0 and v.bit_length() <= 8 * size:
                short = m[len(prefix):]
                bit_names.setdefault(v.bit_length() - 1, short if _IDENT.fullmatch(short) else m)
        base = BASIC_TYPES[("u", size)]
        lines = [f"[[size({size})]]", f"struct {name}", "{"]
        bit = 0
        while bit < 8 * size:
            if bit in bit_names:
                lines.append(f"  {base} {bit_names[bit]} : 1;")
                bit += 1
                continue
            end = bit
            while end + 1 < 8 * size and end + 1 not in bit_names:
                end += 1
            label = f"_bit{bit}" if end == bit else f"_bits{bit}_{end}"
            lines.append(f"  {base} {label} : {end - bit + 1};")
            bit = end + 1
        lines.append("};")
        self.decls.append("\n".join(lines))
        return name

    def struct(self, info: TypeInfo, hint: str = "") -> str:
        """Declare ``info`` (once) and return its name; an anonymous aggregate is named ``<hint>``."""
        name = info.name if _IDENT.fullmatch(info.name) else c_identifier(hint or "anonymous")
        if name in self.declared:
            return name
        if name == PROGRAM_IDENTIFIER:  # its bytes in memory order, the hex decode prints
            self.declared.add(name)
            self.decls.append("\n".join([f"[[size({info.size})]]", f"struct {name}", "{",
                                         f"  {_identifier_member(0, 'OpaqueData', info.size)}", "};"]))
            return name
        body = self.members(info.fields, info.size, name)
        self.declared.add(name)
        self.decls.append("\n".join([f"[[size({info.size})]]", f"struct {name}", "{", *body, "};"]))
        return name

    def scalar_member(self, ctype: str, scalar: Scalar, name: str, count: int, offset: int, hex_: bool
                      ) -> list[tuple[int, int, str]]:
        """A scalar (or scalar array) member; one whose offset is not a multiple of its size (a 64-bit VA at a
        4-byte offset) is split into 32-bit pieces ``name_lo``/``name_hi``, which no packing rule can move."""
        tname = _type_name(ctype)
        size = scalar.size
        if tname in abi.default.decls.enums and offset % size == 0:
            declared = self.flags(tname, size) if abi.is_flag_enum(tname) else self.enum(tname, size)
            return [(offset, size * count, _member(offset, declared, name, count, False, ctype))]
        base = BASIC_TYPES[(scalar.kind, size)]
        hex_ = (hex_ or scalar.pointer or tname in HEX_TYPES) and scalar.kind != "f"
        if offset % size == 0:
            return [(offset, size * count, _member(offset, base, name, count, hex_, ctype))]
        piece = 4 if offset % 4 == 0 and size % 4 == 0 else 1
        out = []
        for i in range(count):
            for k in range(size // piece):
                suffix = ("_lo", "_hi")[k] if size // piece == 2 else f"_b{k}"
                at = offset + i * size + k * piece
                label = f"{name}{i if count > 1 else ''}{suffix}"
                out.append((at, piece, _member(at, BASIC_TYPES[("u", piece)], label, 1, hex_,
                                               f"{ctype}, split: at {offset}, not {size}-aligned")))
        return out

    def emit(self, t: Scalar | TypeInfo, ctype: str, name: str, count: int, offset: int, hex_: bool,
             parent: str = "") -> list[tuple[int, int, str]]:
        """The members that show ``count`` values of type ``t`` at ``offset``: a nested struct where its offset
        suits its alignment, else its members flattened (``name_member``) at their absolute offsets."""
        if not isinstance(t, TypeInfo):
            return self.scalar_member(ctype, t, name, count, offset, hex_)
        if t.name == PROGRAM_IDENTIFIER and count == 1:  # 32 bytes in memory order: the hex decode prints
            return [(offset, t.size, _identifier_member(offset, name, t.size))]
        if offset % _align(t) == 0:
            sname = self.struct(t, f"{parent}_{name}")
            return [(offset, t.size * count, _member(offset, sname, name, count, False, sname))]
        out: list[tuple[int, int, str]] = []
        for i in range(count):
            base = offset + i * t.size
            for f, span in _shown_fields(t):
                ft = field_type(f)
                label = f"{name}{i if count > 1 else ''}_{f.name}"
                out += self.emit(ft, f.type, label, f.array_length or 1, base + f.offset,
                                 t.name in HEX_STRUCTS, parent)
        return out

    def members(self, fields: tuple[FieldInfo, ...], size: int, parent: str) -> list[str]:
        """The members of a struct; of each anonymous union only the first member (RenderDoc has no unions),
        spanning the union's size, the others named in a comment."""
        members: list[tuple[int, int, str]] = []
        info_fields = _shown_fields_of(fields)
        for f, span, others in info_fields:
            emitted = self.emit(field_type(f), f.type, f.name, f.array_length or 1, f.offset, parent in HEX_STRUCTS,
                                parent)
            if others:
                off, sz, text = emitted[-1]
                emitted[-1] = (off, sz, f"{text}; union: also {', '.join(others)}")
            first = min(e[0] for e in emitted)
            members += [(o, max(z, span - (o - first)) if o == first and len(emitted) == 1 else z, t)
                        for o, z, t in emitted]
        return _with_padding(members, size)


def _shown_fields_of(fields: tuple[FieldInfo, ...]) -> list[tuple[FieldInfo, int, list[str]]]:
    """(field, bytes it spans, other members of its union) for every field shown: of an anonymous union, its
    first member only."""
    unions: dict[str, list[FieldInfo]] = {}
    for f in fields:
        if f.union is not None:
            unions.setdefault(f.union, []).append(f)
    out = []
    for f in fields:
        group = unions.get(f.union) if f.union is not None else None
        if group is not None and f is not group[0]:
            continue
        span = max(g.size for g in group) if group else f.size
        out.append((f, span, [g.name for g in group[1:]] if group else []))
    return out


def _shown_fields(info: TypeInfo) -> list[tuple[FieldInfo, int]]:
    return [(f, span) for f, span, _ in _shown_fields_of(info.fields)]


def _align(t: Scalar | TypeInfo) -> int:
    """The alignment tight (scalar) packing gives a type: a scalar's size, a struct's largest member's."""
    if not isinstance(t, TypeInfo):
        return t.size
    return max([1, *(_align(field_type(f)) for f, _ in _shown_fields(t))])


def _identifier_member(offset: int, name: str, size: int) -> str:
    """A program identifier as its bytes, in hex and memory order (``decode`` prints the same digits run
    together), not as byte-swapped 64-bit words."""
    return _member(offset, BASIC_TYPES[("u", 1)], name, size, True,
                   f"{PROGRAM_IDENTIFIER}: {size} bytes in memory order")


def _member(offset: int, base: str, name: str, count: int, hex_: bool, ctype: str) -> str:
    annotations = f"[[offset({offset})]] " + ("[[hex]] " if hex_ else "")
    array = f"[{count}]" if count > 1 else ""
    return f"{annotations}{base} {name}{array};  // {_comment(ctype)}"


@lru_cache(maxsize=4096)
def _comment(ctype: str) -> str:
    # RenderDoc's parser ends a declaration at a brace even inside a comment: none in comments
    return re.sub(r"[{}]", "", ctype)


def _with_padding(members: list[tuple[int, int, str]], size: int) -> list[str]:
    """Members in offset order with a ``[[pad]]`` member for every hole and for the tail up to ``size``."""
    out: list[str] = []
    pos = 0
    pad = 0
    for offset, msize, text in sorted(members, key=lambda m: m[0]):
        if offset > pos:
            out.append(f"  [[offset({pos})]] [[pad]] ubyte _pad{pad}[{offset - pos}];")
            pad += 1
        out.append(f"  {text}")
        pos = max(pos, offset + msize)
    if size > pos:
        out.append(f"  [[offset({pos})]] [[pad]] ubyte _pad{pad}[{size - pos}];")
    return out


def _header(title: str) -> list[str]:
    return [f"// {title}", "// d3d12wl codegen --lang renderdoc: paste into RenderDoc's buffer viewer format",
            "#pack(scalar)"]


def _finish(fmt: _Format, title: str, body: str, name: str) -> str:
    parts = ["\n".join(_header(title)), *fmt.decls, body, f"{name} records[];"]
    return "\n\n".join(parts) + "\n"


def record_format(layout: RecordLayout, stride: int | None = None) -> str:
    """The buffer format of one record class at ``stride`` (default, or 0: the minimum stride)."""
    if stride is None or stride == 0:
        stride = layout.min_stride
    problems = layout.stride_problems(stride)
    if problems:
        raise LayoutError("; ".join(problems), where=f"{layout.record} record of {layout.owner!r}")
    if stride == 0:
        raise LayoutError("the record has no bytes: nothing for RenderDoc to show",
                          where=f"{layout.record} record of {layout.owner!r}")
    fmt = _Format()
    name = struct_name(layout)
    dword_arrays = layout.hex_dword_arrays
    members: list[tuple[int, int, str]] = []
    for f in sorted(layout.fields, key=lambda f: f.offset):
        if f.size == 0:
            continue
        members += fmt.emit(classify(f.ctype), f.ctype, f.name, f.count, f.offset, f.name in dword_arrays)
    title = (f"{layout.record} record of {layout.owner!r}: {layout.size} bytes used, stride {stride} "
             f"(minimum {layout.min_stride})")
    body = "\n".join([f"[[size({stride})]]", f"struct {name}", "{", *_with_padding(members, stride), "};"])
    return _finish(fmt, title, body, name)


def struct_format(name: str) -> str:
    """The buffer format of an array of a declared struct (``sizeof`` apart)."""
    info = abi.type_info(name)
    fmt = _Format()
    fmt.struct(info)
    body = fmt.decls.pop()
    return _finish(fmt, f"{name}: {info.size} bytes", body, name)


def source(layouts: Sequence[RecordLayout], structs: Sequence[str] = (), strides: Mapping[str, int] | None = None
           ) -> str:
    """Every format, one after another; each is a separate, self-contained format (one per buffer)."""
    parts = [record_format(r, (strides or {}).get(record_id(r))) for r in layouts]
    parts += [struct_format(s) for s in structs]
    return "\n".join(parts)
