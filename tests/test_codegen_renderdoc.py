"""``d3d12wl codegen --lang renderdoc``: RenderDoc buffer formats (issue 13, item 5).

The output is checked against the grammar RenderDoc documents ("How do I specify a buffer format?",
docs/how/how_buffer_format.rst in baldurk/renderdoc) by a small parser written here from that page: comments, the
documented basic types, fixed and unbounded arrays, ``struct`` (only structs declared before), ``enum Name :
basetype`` with literal values, ``#pack(rule)`` at global scope, annotations in ``[[name(param)]]`` form before a
declaration (each in its own brackets: the viewer splits declarations at ``,`` and ``;``, and at braces even in a
comment), and ``[[offset(N)]]``, which may not place a member earlier than tight packing would.  The layout the
parser computes under ``#pack(scalar)`` must then be the layout calculator's, field by field, for every record of
the bundled examples (spec "Record byte layouts", "Program table slot layout", IndirectDrawing.md command
layouts), and sizeof/offsetof of the compiled headers for every declared struct.

Debian's renderdoc 1.24 (qrenderdoc, python3-renderdoc) has the parser inside the qrenderdoc GUI only
(BufferFormatter::ParseFormatString is not in its Python bindings), so it cannot check a format headless.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from d3d12wl import abi
from d3d12wl.cli import main
from d3d12wl.model import description
from d3d12wl.records import codegen, decode, renderdoc
from d3d12wl.records.decode import declared_stride
from d3d12wl.records.layout import record_id, record_layouts

EXAMPLES = Path(__file__).resolve().parents[1] / "d3d12wl" / "examples"
DESCRIPTIONS = ["culling.json", "execute_indirect.json", "tier2_chain.json", "gpu_resident_diagram.json"]

#: the documented basic types and their sizes
BASIC = {"bool": 4, "byte": 1, "short": 2, "int": 4, "long": 8, "ubyte": 1, "ushort": 2, "uint": 4, "ulong": 8,
         "half": 2, "float": 4, "double": 8}
FLOATS = {"half", "float", "double"}
PACKINGS = {"cbuffer", "d3dcbuffer", "cb", "structured", "d3duav", "uav", "std140", "ubo", "gl", "std430", "ssbo",
            "scalar"}
STRUCT_ANNOTATIONS = {"size", "byte_size", "single", "fixed"}
VAR_ANNOTATIONS = {"offset", "byte_offset", "pad", "padding", "single", "fixed", "row_major", "col_major", "rgb",
                   "hex", "hexadecimal", "bin", "binary", "unorm", "snorm", "packed"}
IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
ANNOTATION = re.compile(r"^\[\[(?P<name>[A-Za-z0-9_-]+)(\((?P<param>[^)]+)\))?\]\]\s*")


class FormatError(Exception):
    pass


@dataclass
class Member:
    name: str
    type: str
    offset: int
    size: int
    count: int | None  # None: unbounded
    annotations: dict[str, str | None]
    bits: int | None = None  # a bitfield's width (its unit of the base type starts at ``offset``)
    bit: int = 0  # the bitfield's first bit in its unit


@dataclass
class Struct:
    name: str
    members: list[Member] = field(default_factory=list)
    size: int = 0
    align: int = 1


@dataclass
class Parsed:
    packing: str | None
    enums: dict[str, tuple[str, dict[str, int]]]
    structs: dict[str, Struct]
    globals: list[Member]


def declarations(text: str) -> list[str]:
    """Declarations as the viewer reads them: comments dropped, ``;`` and ``,`` end one, a brace is one, a ``#``
    line ends at its newline."""
    if re.search(r"/[/*][^\n]*[{}]", text):
        raise FormatError("a brace inside a comment would end a declaration")
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", "", text)
    out: list[str] = []
    for line in text.split("\n"):
        if line.strip().startswith("#"):
            out.append(line.strip())
            continue
        for part in re.split(r"([;,{}])", line):
            part = part.strip()
            if part in ("", ";", ","):
                continue
            out.append(part)
    # a declaration may span lines (annotations alone on a line): join annotation-only pieces to what follows
    joined: list[str] = []
    pending = ""
    for d in out:
        if ANNOTATION.sub("", d) == "" and not d.startswith("#"):
            pending += d + " "
            continue
        joined.append(pending + d)
        pending = ""
    if pending:
        raise FormatError("annotations with no declaration")
    return joined


def _annotations(decl: str, allowed: set[str]) -> tuple[str, dict[str, str | None]]:
    found: dict[str, str | None] = {}
    while True:
        m = ANNOTATION.match(decl)
        if not m:
            return decl.strip(), found
        if m.group("name") not in allowed:
            raise FormatError(f"annotation {m.group('name')!r} is not documented here")
        found[m.group("name")] = m.group("param")
        decl = decl[m.end():]


def parse(text: str) -> Parsed:
    """The documented grammar, with #pack(scalar) layout (every type aligned to its component size)."""
    packing = None
    enums: dict[str, tuple[str, dict[str, int]]] = {}
    structs: dict[str, Struct] = {}
    globals_: list[Member] = []
    cur: Struct | None = None
    cur_enum: tuple[str, dict[str, int]] | None = None
    struct_annotations: dict[str, str | None] = {}
    pos = 0
    expect_open = False
    for decl in declarations(text):
        if decl.startswith("#"):
            m = re.fullmatch(r"#\s*pack\s*\(\s*(\w+)\s*\)", decl)
            if not m or m.group(1) not in PACKINGS:
                raise FormatError(f"bad #pack: {decl!r}")
            if cur is not None or cur_enum is not None:
                raise FormatError("#pack inside a struct")
            packing = m.group(1)
            continue
        if decl == "{":
            if not expect_open:
                raise FormatError("unexpected {")
            expect_open = False
            continue
        if decl == "}":
            if cur is not None:
                content = pos
                size = int(struct_annotations.get("size") or struct_annotations.get("byte_size") or content)
                if size < content:
                    raise FormatError(f"[[size({size})]] below the contents of {cur.name} ({content} bytes)")
                cur.size = size
                structs[cur.name] = cur
                cur = None
            elif cur_enum is not None:
                enums[cur_enum[0]] = cur_enum[1]  # type: ignore[assignment]
                cur_enum = None
            else:
                raise FormatError("unexpected }")
            continue
        if cur_enum is not None:
            m = re.fullmatch(rf"({IDENT})\s*=\s*(-?0x[0-9a-fA-F]+|-?[0-9]+)", decl)
            if not m:
                raise FormatError(f"enum values must be NAME = literal: {decl!r}")
            cur_enum[1][1][m.group(1)] = int(m.group(2), 0)
            continue
        if re.match(r"^(\[\[.*\]\]\s*)*(struct|enum)\s", decl):
            body, struct_annotations = _annotations(decl, STRUCT_ANNOTATIONS)
            m = re.fullmatch(rf"(struct|enum)\s+({IDENT})(\s*:\s*(\w+))?", body)
            if not m:
                raise FormatError(f"bad declaration {decl!r}")
            name = m.group(2)
            if name in structs or name in enums:
                raise FormatError(f"duplicate definition {name}")
            if cur is not None or cur_enum is not None:
                raise FormatError("nested declaration")
            if m.group(1) == "enum":
                if m.group(4) not in BASIC or m.group(4) in FLOATS:
                    raise FormatError(f"enum {name} needs a sized integer base type")
                cur_enum = (name, (m.group(4), {}))  # type: ignore[assignment]
            else:
                cur, pos = Struct(name), 0
            expect_open = True
            continue
        body, ann = _annotations(decl, VAR_ANNOTATIONS)
        m = re.fullmatch(rf"({IDENT})\s+({IDENT})\s*(\[(\d*)\])?(\s*:\s*(\d+))?", body)
        if not m:
            raise FormatError(f"bad member {decl!r}")
        tname, name, array, dim, _, width = m.groups()
        count = None if array is not None and dim == "" else int(dim) if dim else 1
        if tname in BASIC:
            size, align = BASIC[tname], BASIC[tname]
            if "hex" in ann and tname in FLOATS:
                raise FormatError("hex on a float")
        elif tname in enums:
            size = align = BASIC[enums[tname][0]]
        elif tname in structs:
            size, align = structs[tname].size, structs[tname].align
        else:
            raise FormatError(f"type {tname!r} is not a basic type or a struct/enum declared before")
        member = Member(name, tname, 0, size, count, ann)
        if cur is None:
            globals_.append(member)
            continue
        if count is None:
            raise FormatError("an unbounded array inside a struct")
        if width is not None:  # "Bitfields": C style, each within an instance of its base type (packing default)
            if tname not in BASIC or tname in FLOATS or array is not None:
                raise FormatError(f"{cur.name}.{name}: a bitfield needs an integer base type and no array")
            bits, unit = int(width), 8 * size
            if not 0 < bits <= unit:
                raise FormatError(f"{cur.name}.{name}: {bits} bits in a {unit}-bit {tname}")
            last = cur.members[-1] if cur.members else None
            if last is not None and last.bits is not None and last.type == tname and last.bit + last.bits + bits <= unit:
                member.offset, member.bit = last.offset, last.bit + last.bits
            else:
                member.offset = (pos + align - 1) // align * align
            member.bits = bits
            cur.members.append(member)
            cur.align = max(cur.align, align)
            pos = member.offset + size
            continue
        tight = (pos + align - 1) // align * align
        offset = int(ann.get("offset") or ann.get("byte_offset") or tight)
        if offset < tight:
            raise FormatError(f"{cur.name}.{name}: [[offset({offset})]] is before tight packing's {tight}")
        if offset % align:
            raise FormatError(f"{cur.name}.{name}: offset {offset} is not {align}-aligned")
        member.offset = offset
        cur.members.append(member)
        cur.align = max(cur.align, align)
        pos = offset + size * count
    if cur is not None or cur_enum is not None or expect_open:
        raise FormatError("unterminated declaration")
    return Parsed(packing, enums, structs, globals_)


def flatten(parsed: Parsed, struct: str, base: int = 0, prefix: str = "") -> dict[str, tuple[int, int, Member]]:
    """Every non-padding leaf of a struct: dotted path -> (offset, size of all elements, member)."""
    out: dict[str, tuple[int, int, Member]] = {}
    for m in parsed.structs[struct].members:
        if "pad" in m.annotations or (m.bits is not None and m.bit):  # (a bitfield unit counts once)
            continue
        if m.type in parsed.structs and m.count == 1:
            out.update(flatten(parsed, m.type, base + m.offset, f"{prefix}{m.name}."))
        else:
            out[prefix + m.name] = (base + m.offset, m.size * (m.count or 1), m)
    return out


def records() -> list[tuple[str, object, int]]:
    out = []
    for name in DESCRIPTIONS:
        objects = description.load(EXAMPLES / name)
        for r in record_layouts(objects):
            out.append((f"{name}:{record_id(r)}", r, declared_stride(r)[0]))
    return out


@pytest.mark.parametrize(("rid", "layout", "stride"), records(), ids=[r[0] for r in records()])
def test_every_record_parses_to_the_layout_calculators_bytes(rid: str, layout: object, stride: int) -> None:
    from d3d12wl.records.layout import RecordLayout

    assert isinstance(layout, RecordLayout)
    text = renderdoc.record_format(layout, stride)
    parsed = parse(text)
    name = codegen.struct_name(layout)
    assert parsed.packing == "scalar"
    assert [(g.type, g.name, g.count) for g in parsed.globals] == [(name, "records", None)]  # array of structs
    assert parsed.structs[name].size == (stride or layout.min_stride)
    leaves = flatten(parsed, name)
    covered = set()
    for f in layout.fields:
        if f.size == 0:
            continue
        mine = {p: v for p, v in leaves.items() if p == f.name or p.startswith(f.name + ".")
                or p.startswith(f.name + "_")}
        assert mine, (f.name, list(leaves))
        assert min(o for o, _, _ in mine.values()) == f.offset
        assert sum(s for _, s, _ in mine.values()) == f.size
        covered |= set(mine)
        if f.ctype == "D3D12_GPU_VIRTUAL_ADDRESS":
            assert all("hex" in m.annotations for _, _, m in mine.values()), f.name
    assert covered == set(leaves)


@pytest.mark.parametrize("name", sorted(abi.types()))
def test_every_declared_struct_matches_the_compiled_headers(name: str) -> None:
    parsed = parse(renderdoc.struct_format(name))
    info = abi.type_info(name)
    assert parsed.structs[name].size == info.size
    assert [g.name for g in parsed.globals] == ["records"]
    unions = {f.union for f in info.fields if f.union is not None}
    shown = [f for f in info.fields if f.union is None or f is next(g for g in info.fields if g.union == f.union)]
    leaves = flatten(parsed, name)
    for f in shown:
        mine = [v for p, v in leaves.items() if p == f.name or p.startswith(f.name + ".")
                or p.startswith(f.name + "_")]
        assert mine and min(o for o, _, _ in mine) == f.offset, (name, f.name)
    assert len(shown) == len(info.fields) - sum(
        sum(1 for f in info.fields if f.union == u) - 1 for u in unions)


def test_enums_are_declared_with_the_compiled_values() -> None:
    parsed = parse(renderdoc.struct_format("D3D12_INDEX_BUFFER_VIEW"))
    base, values = parsed.enums["DXGI_FORMAT"]
    prefix = abi.default.enum_prefix("DXGI_FORMAT")
    assert base == "uint"
    assert values == {m[len(prefix):]: v for m, v in abi.enum_members("DXGI_FORMAT").items()}
    member = parsed.structs["D3D12_INDEX_BUFFER_VIEW"].members[-1]
    assert (member.name, member.type, member.offset) == ("Format", "DXGI_FORMAT", 12)


def bit_names(parsed: Parsed, struct: str) -> dict[int, str]:
    """Bit position -> member name of a struct of bitfields, as the viewer lays them out."""
    out = {}
    for m in parsed.structs[struct].members:
        assert m.bits is not None and m.offset == 0, m
        out.update({m.bit + k: m.name for k in range(m.bits)})
    return out


def test_flag_enums_are_bitfields_so_an_or_shows_each_flag() -> None:
    """Issue 24 item 4: RenderDoc's "Bitfields" (C-style ``uint name : bits``), one named bit per flag of
    D3D12_DISPATCH_LIST_FLAGS1, every other bit covered, in one 4-byte unit at the member's offset: an OR of
    _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION and _END_WITH_MEMORY_FLUSH sets exactly those two named members."""
    enum = "D3D12_DISPATCH_LIST_FLAGS1"
    parsed = parse(renderdoc.struct_format("D3D12_DISPATCH_LIST_INPUT1"))
    assert enum not in parsed.enums and parsed.structs[enum].size == 4
    member = parsed.structs["D3D12_DISPATCH_LIST_INPUT1"].members[1]
    assert (member.name, member.type, member.offset) == ("Flags", enum, 4)
    bits = bit_names(parsed, enum)
    assert sorted(bits) == list(range(32))
    prefix = abi.default.enum_prefix(enum)
    for name, value in abi.enum_members(enum).items():
        if value and value & (value - 1) == 0:
            assert bits[value.bit_length() - 1] == name[len(prefix):]
    value = abi.enum_value(enum, "ALLOW_NEXT_DISPATCH_LIST_CONTINUATION") | abi.enum_value(enum, "END_WITH_MEMORY_FLUSH")
    shown = {bits[b] for b in range(32) if value >> b & 1}
    assert shown == {"ALLOW_NEXT_DISPATCH_LIST_CONTINUATION", "END_WITH_MEMORY_FLUSH"}


def test_the_program_identifier_is_its_32_bytes_as_decode_prints_them() -> None:
    """Issue 24 item 4: the identifier of a program-table slot is ``[[hex]] ubyte[32]`` in memory order (not four
    byte-swapped 64-bit words), so the viewer shows the digits ``d3d12wl decode`` prints, byte for byte."""
    objects = description.load(EXAMPLES / "culling.json")
    rec = next(r for r in record_layouts(objects) if record_id(r) == "PCS.program_table")
    parsed = parse(renderdoc.record_format(rec))
    ident = flatten(parsed, codegen.struct_name(rec))["ProgramIdentifier"]
    assert (ident[0], ident[1], ident[2].type, ident[2].count) == (0, 32, "ubyte", 32)
    assert "hex" in ident[2].annotations
    opaque = objects.programs["Opaque"].Identifier
    slot = opaque + bytes(16)
    shown = "".join(f"{b:02x}" for b in slot[ident[0]:ident[0] + ident[2].count])  # element by element
    t = decode.target(objects, "PCS.program_table")
    out = io.BytesIO()
    decode.write(decode.view(t, slot), out, "csv")
    assert out.getvalue().decode().splitlines()[1].split(",")[1] == shown == opaque.hex()
    parsed_struct = parse(renderdoc.struct_format("D3D12_PROGRAM_IDENTIFIER"))
    (member,) = parsed_struct.structs["D3D12_PROGRAM_IDENTIFIER"].members
    assert (member.type, member.count, "hex" in member.annotations) == ("ubyte", 32, True)


def test_a_misaligned_va_is_split_so_no_packing_rule_moves_it() -> None:
    """Spec "Per-arg natural alignment": a VERTEX_BUFFER_VIEW sits at 4 in a Work Lists record, although its
    BufferLocation is a 64-bit VA; RenderDoc would align a ulong (and the struct) to 8."""
    doc = {"root_signatures": {"RS": {"pParameters": [{"ParameterType": "32BIT_CONSTANTS",
                                                        "Constants": {"Num32BitValues": 2}}]}},
           "program_command_signatures": {"P": {"pArgumentDescs": [
               {"Type": "CONSTANT", "Source": "PRIMARY_RECORD", "Binding": "GLOBAL_ROOT_SIGNATURE",
                "Constant": {"RootParameterIndex": 0, "Num32BitValuesToSet": 2}},
               {"Type": "VERTEX_BUFFER_VIEW", "Source": "PRIMARY_RECORD", "VertexBuffer": {"Slot": 0}},
               {"Type": "DRAW", "Source": "PRIMARY_RECORD"}], "pGlobalRootSignature": "RS"}}}
    objects = description.load(doc)
    layouts = {record_id(r): r for r in record_layouts(objects)}
    rec = layouts["P.primary"]
    vb = rec.field("arg1_VertexBuffer")
    assert vb.offset % 8 == 4  # spec "Per-arg natural alignment": views at 4
    parsed = parse(renderdoc.record_format(rec))
    leaves = flatten(parsed, codegen.struct_name(rec))
    lo, hi = leaves["arg1_VertexBuffer_BufferLocation_lo"], leaves["arg1_VertexBuffer_BufferLocation_hi"]
    assert (lo[0], hi[0], lo[2].type) == (vb.offset, vb.offset + 4, "uint")
    assert "hex" in lo[2].annotations


def test_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "renderdoc", "--record", "PCS.secondary",
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in doc["structs"]] == ["PCS_SecondaryRecord"] and doc["structs"][0]["stride"] == 24
    parse(doc["structs"][0]["text"])
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "renderdoc", "--struct",
                 "D3D12_DRAW_INDEXED_ARGUMENTS"]) == 0
    text = capsys.readouterr().out
    assert "D3D12_DRAW_INDEXED_ARGUMENTS records[];" in text and "PCS_SecondaryRecord" not in text
    parse(text)
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "renderdoc", "--record", "PCS.nope"]) == 2
    assert "no record 'PCS.nope'" in capsys.readouterr().err
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "c", "--struct", "D3D12_DRAW_ARGUMENTS"]) == 2
    # one format per buffer: without --record (or --struct) the command says how to pick one, and --json gives all
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "renderdoc"]) == 2
    err = capsys.readouterr().err
    assert "--record ID (PCS.primary, PCS.secondary, PCS.program_table)" in err and "--struct NAME" in err
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "renderdoc", "--record", "PCS.primary",
                 "--record", "PCS.secondary"]) == 2
    assert "one format" in capsys.readouterr().err
    assert main(["codegen", str(EXAMPLES / "culling.json"), "--lang", "renderdoc", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert [s["name"] for s in doc["structs"]] == ["PCS_PrimaryRecord", "PCS_SecondaryRecord",
                                                   "PCS_ProgramTableRecord"]
    assert all(s["text"].count("#pack(scalar)") == 1 for s in doc["structs"])


def test_the_parser_rejects_what_the_documentation_rules_out() -> None:
    for bad in ["struct A { [[offset(0)]] uint a; [[offset(2)]] uint b; };",  # before tight packing
                "struct A { B b; }; struct B { uint x; };",  # used before declared
                "enum E { A = 1, };",  # no base type
                "enum E : uint { A, };",  # no value
                "struct A { uint a; // a {brace}\n};",
                "struct A { [[offset(0), hex]] uint a; };"]:
        with pytest.raises(FormatError):
            parse(bad)


@pytest.mark.parametrize("what", ["D3D12_GPU_DESCRIPTOR_HANDLE",
                                  "D3D12_DISPATCH_LIST_INPUT1", "D3D12_DRAW_INDEXED_ARGUMENTS",
                                  "D3D12_VERTEX_BUFFER_VIEW"])
def test_decode_and_renderdoc_show_the_same_members_in_hex(what: str) -> None:
    """Which members are hex is decided once (records.layout.HEX_TYPES, HEX_STRUCTS, hex_dword_arrays): a
    struct's top-level scalar is [[hex]] in its RenderDoc format exactly where decode shows it in hex."""
    t = decode.target(description.load(EXAMPLES / "culling.json"), what)
    text = renderdoc.struct_format(what)
    for col in t.columns:
        if "." in col.name or "[" in col.name or col.kind in ("enum", "float"):
            continue
        line = next(ln for ln in text.splitlines() if re.search(rf"\b{re.escape(col.name)};", ln))
        assert ("[[hex]]" in line) == (col.kind == "hex"), (col, line)


def test_dword_arrays_are_hex_in_both() -> None:
    objects = description.load(EXAMPLES / "culling.json")
    rec = next(r for r in record_layouts(objects) if record_id(r) == "PCS.program_table")
    assert rec.hex_dword_arrays == {"arg2_InlineRootParameter"}
    kinds = {c.kind for c in decode.target(objects, "PCS.program_table").columns
             if c.group == "arg2_InlineRootParameter"}
    assert kinds == {"hex"}
    assert re.search(r"\[\[hex\]\] uint arg2_InlineRootParameter\[4\]", renderdoc.record_format(rec))
