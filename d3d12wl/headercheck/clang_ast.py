"""What a foreign C/C++ header declares, read from clang's JSON AST (``-Xclang -ast-dump=json``).

This module knows names and spellings only: records with their fields in declaration order (anonymous
members kept as such), enums with their enumerators, typedefs, callback (function-pointer) typedefs and
variables.  The numbers (sizes, offsets, values) come from compiling probes of these names for the Windows
target (:mod:`d3d12wl.headercheck.probe`).

Names are qualified as C++ spells them (``engine::SecondaryRecord``); in C a struct known only by its tag is
spelled ``struct TAG``.  Each declaration remembers the file it was declared in, so a report can tell what a
user's header itself declares from what it merely includes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: a JSON AST node (clang's JSONNodeDumper output)
Node = dict[str, Any]

_ARRAY_RE = re.compile(r"((?:\[\d+\])+)$")
_QUALIFIERS_RE = re.compile(r"\b(?:const|volatile|struct|union|enum|class)\s+")
#: floating-point C types (a member of one of these is of kind "float")
FLOAT_TYPES = frozenset({"float", "double", "long double", "_Float16", "__fp16"})


@dataclass(frozen=True)
class HeaderField:
    """One member as declared.  ``name`` is None for an anonymous struct/union member, whose fields C
    flattens into the parent; ``record`` is the id of the struct/union a member's type is (named or not)."""

    name: str | None
    type: str  # the type as written (clang's qualType)
    desugared: str  # with every typedef resolved
    bitfield: bool = False
    record: str | None = None
    array_length: int | None = None  # product of every dimension, None when not an array


@dataclass
class HeaderRecord:
    id: str
    name: str  # qualified name or tag ('' when anonymous)
    kind: str  # 'struct' | 'union' | 'class'
    fields: list[HeaderField] = field(default_factory=list)
    file: str | None = None
    bases: tuple[str, ...] = ()  # C++ base classes, as written (their fields come first)
    virtual_bases: bool = False
    polymorphic: bool = False  # has a vtable pointer (C++ virtual functions or virtual bases)


@dataclass(frozen=True)
class HeaderEnum:
    name: str  # qualified
    members: tuple[str, ...]  # enumerator names as a probe spells them (qualified for C++ scoped enums)
    file: str | None
    scoped: bool = False


@dataclass(frozen=True)
class Callback:
    """A function-pointer typedef: its return and parameter types as written."""

    result: str
    params: tuple[str, ...]


@dataclass(frozen=True)
class HeaderTypedef:
    name: str
    type: str
    desugared: str
    record: str | None = None  # the record id it names, if it names a struct/union
    enum: str | None = None  # the enum it names
    callback: Callback | None = None
    file: str | None = None


@dataclass
class HeaderDecls:
    """Every struct, union, enum, typedef and variable a translation unit declares."""

    records: dict[str, HeaderRecord] = field(default_factory=dict)  # id -> record
    names: dict[str, str] = field(default_factory=dict)  # spelled name (typedef, tag, qualified) -> record id
    enums: dict[str, HeaderEnum] = field(default_factory=dict)  # qualified enum name (and typedef) -> enum
    enumerators: dict[str, str] = field(default_factory=dict)  # spelled enumerator -> its enum's name
    typedefs: dict[str, HeaderTypedef] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)  # spelled name -> type (constants declared as vars)
    declared_in: dict[str, str] = field(default_factory=dict)  # name -> file it was declared in

    def record(self, name: str) -> HeaderRecord | None:
        rid = self.names.get(name)
        return self.records.get(rid) if rid is not None else None

    def record_of_type(self, type_text: str) -> HeaderRecord | None:
        """The struct/union a field or typedef type names (typedefs followed), or None."""
        base = _QUALIFIERS_RE.sub("", _ARRAY_RE.sub("", type_text)).strip()
        seen: set[str] = set()
        while base not in self.names and base in self.typedefs and base not in seen:
            seen.add(base)
            td = self.typedefs[base]
            if td.record is not None:
                return self.records.get(td.record)
            base = _QUALIFIERS_RE.sub("", _ARRAY_RE.sub("", td.type)).strip()
        return self.record(base)

    def field_record(self, f: HeaderField) -> HeaderRecord | None:
        """The struct/union a member's type is: its unnamed record, or the record its type names as written
        (``struct Inner``) or fully qualified (``ns::Outer::Inner``)."""
        if f.record is not None:
            return self.records.get(f.record)
        return self.record_of_type(f.type) or self.record_of_type(f.desugared)

    def matching(self, name: str) -> list[str]:
        """Spelled record names equal to ``name`` or ending in ``::name`` (for a name given unqualified)."""
        if name in self.names:
            return [name]
        return sorted(n for n in self.names if n.endswith("::" + name))

    def category(self, type_text: str, desugared: str, record: str | None = None) -> str:
        """'pointer' | 'float' | 'record' | 'integer' (enums and bool are integers) for a member's or typedef's
        type; ``record`` is the id of the (unnamed) struct/union a member is declared with, if any."""
        text = _ARRAY_RE.sub("", desugared or type_text).strip()
        if text.endswith("*") or "(*)" in text or "*)" in text:
            return "pointer"
        if text in FLOAT_TYPES:
            return "float"
        if record is not None or self.record_of_type(text) is not None or self.record_of_type(type_text) is not None:
            return "record"
        return "integer"


def array_length(type_text: str) -> int | None:
    m = _ARRAY_RE.search(type_text.strip())
    if not m:
        return None
    n = 1
    for d in re.findall(r"\[(\d+)\]", m.group(1)):
        n *= int(d)
    return n


class _Files:
    """clang writes a location's file only when it differs from the last one written, in document order;
    following every location in that order recovers each declaration's file."""

    def __init__(self) -> None:
        self.last: str | None = None

    def bare(self, loc: Node) -> str | None:
        if "file" in loc:
            self.last = loc["file"]
        return self.last

    def loc(self, loc: Node | None) -> str | None:
        if not loc:
            return self.last
        if "spellingLoc" in loc or "expansionLoc" in loc:
            self.bare(loc.get("spellingLoc", {}))
            return self.bare(loc.get("expansionLoc", {}))
        return self.bare(loc)

    def node(self, node: Node) -> str | None:
        """Follow a node's own location and range; return the file of its location."""
        file = self.loc(node.get("loc"))
        rng = node.get("range")
        if rng:
            self.loc(rng.get("begin"))
            self.loc(rng.get("end"))
        return file

    def skip(self, node: Node) -> None:
        """Follow every location below a node we do not otherwise read (function bodies, templates)."""
        self.node(node)
        for child in node.get("inner", ()):
            if isinstance(child, dict):
                self.skip(child)


def _type_node_target(node: Node) -> tuple[str, Any]:
    """What a typedef's type node names: ('record', id) | ('enum', name) | ('callback', Callback) |
    ('typedef', name) | ('other', None)."""
    kind = node.get("kind")
    if kind in ("ElaboratedType", "ParenType", "QualType", "AttributedType", "MacroQualifiedType"):
        owned = node.get("ownedTagDecl")
        if owned and owned.get("kind", "").endswith("RecordDecl"):
            return "record", owned["id"]
        if owned and owned.get("kind") == "EnumDecl":
            return "enum", owned.get("id")
        inner = node.get("inner") or []
        return _type_node_target(inner[0]) if inner else ("other", None)
    if kind == "RecordType":
        return "record", node["decl"]["id"]
    if kind == "EnumType":
        return "enum", node["decl"].get("id")
    if kind == "TypedefType":
        return "typedef", node["decl"].get("name")
    if kind == "PointerType":
        inner = node.get("inner") or []
        target = inner[0] if inner else {}
        while target.get("kind") in ("ParenType", "AttributedType", "MacroQualifiedType") and target.get("inner"):
            target = target["inner"][0]
        if target.get("kind") == "FunctionProtoType":
            types = [t.get("type", {}).get("qualType", "?") for t in target.get("inner", [])]
            return "callback", Callback(types[0] if types else "void", tuple(types[1:]))
    return "other", None


class _Reader:
    def __init__(self, cplusplus: bool) -> None:
        self.cxx = cplusplus
        self.out = HeaderDecls()
        self.files = _Files()
        self.enum_ids: dict[str, HeaderEnum] = {}  # enum decl id -> enum (anonymous ones named by a typedef)

    # --- declarations ---------------------------------------------------------------------------------

    def decls(self, nodes: list[Node], scope: str) -> None:
        for node in nodes:
            kind = node.get("kind", "")
            if kind in ("LinkageSpecDecl", "ExternCContextDecl"):
                self.files.node(node)
                self.decls(node.get("inner", []), scope)
            elif kind == "NamespaceDecl":
                self.files.node(node)
                name = node.get("name")
                self.decls(node.get("inner", []), f"{scope}{name}::" if name else scope)
            elif kind in ("RecordDecl", "CXXRecordDecl"):
                self.record(node, scope)
            elif kind == "EnumDecl":
                self.enum(node, scope)
            elif kind in ("TypedefDecl", "TypeAliasDecl"):
                self.typedef(node, scope)
            elif kind == "VarDecl":
                file = self.files.node(node)
                self.files.skip({"inner": node.get("inner", [])})
                name = scope + node.get("name", "")
                self.out.variables[name] = node.get("type", {}).get("qualType", "")
                self._declared(name, file)
            else:
                self.files.skip(node)

    def _declared(self, name: str, file: str | None) -> None:
        if file is not None and name:
            self.out.declared_in.setdefault(name, file)

    def record(self, node: Node, scope: str) -> HeaderRecord | None:
        file = self.files.node(node)
        if node.get("isImplicit"):  # C++'s injected class name
            return None
        name = node.get("name") or ""
        qualified = f"{scope}{name}" if name else ""
        if not node.get("completeDefinition"):
            self.files.skip({"inner": node.get("inner", [])})
            return None
        bases = node.get("bases") or []
        rec = HeaderRecord(node["id"], qualified, node.get("tagUsed", "struct"), file=file,
                           bases=tuple(b.get("type", {}).get("qualType", "") for b in bases),
                           virtual_bases=any(b.get("isVirtual") for b in bases),
                           polymorphic=bool(node.get("definitionData", {}).get("isPolymorphic")))
        self.out.records[rec.id] = rec
        if qualified:
            spelled = qualified if self.cxx else f"{rec.kind} {qualified}"
            self.out.names[spelled] = rec.id
            self._declared(spelled, file)
            if self.cxx:
                self._declared(qualified, file)
        last_anonymous: str | None = None
        for child in node.get("inner", []):
            kind = child.get("kind", "")
            if kind in ("RecordDecl", "CXXRecordDecl"):
                nested = self.record(child, f"{qualified}::" if self.cxx and qualified else scope)
                last_anonymous = nested.id if nested is not None and not nested.name else None
            elif kind == "FieldDecl":
                self.files.node(child)
                self.files.skip({"inner": child.get("inner", [])})
                rec.fields.append(self.field(child, last_anonymous))
            elif kind == "EnumDecl":
                self.enum(child, f"{qualified}::" if self.cxx and qualified else scope)
            elif kind in ("TypedefDecl", "TypeAliasDecl"):
                self.typedef(child, f"{qualified}::" if self.cxx and qualified else scope)
            else:
                self.files.skip(child)
        return rec

    def field(self, node: Node, last_anonymous: str | None) -> HeaderField:
        t = node.get("type", {})
        qual = t.get("qualType", "")
        desugared = t.get("desugaredQualType", qual)
        unnamed = "(unnamed " in qual or "(anonymous " in qual
        name = node.get("name")
        if node.get("isImplicit") and not name:
            name = None  # an anonymous struct/union member
        return HeaderField(
            name=name,
            type=qual,
            desugared=desugared,
            bitfield=bool(node.get("isBitfield")),
            record=last_anonymous if unnamed else None,
            array_length=array_length(qual) or array_length(desugared),
        )

    def enum(self, node: Node, scope: str) -> None:
        file = self.files.node(node)
        name = node.get("name") or ""
        scoped = node.get("scopedEnumTag") is not None
        members = []
        for child in node.get("inner", []):
            self.files.skip(child)
            if child.get("kind") == "EnumConstantDecl":
                members.append(child["name"])
        if not members and not name:
            return
        qualified = f"{scope}{name}" if name else ""
        member_scope = f"{qualified}::" if scoped else scope
        spelled = tuple(member_scope + m for m in members)
        enum = HeaderEnum(qualified or f"(anonymous enum in {file})", spelled, file, scoped)
        if node.get("id"):
            self.enum_ids[node["id"]] = enum
        if qualified:
            self.out.enums[qualified] = enum
            self._declared(qualified, file)
        for m in spelled:
            self.out.enumerators[m] = enum.name
            self._declared(m, file)

    def typedef(self, node: Node, scope: str) -> None:
        file = self.files.node(node)
        inner = node.get("inner", [])
        for child in inner:
            self.files.skip(child)
        name = scope + node.get("name", "")
        t = node.get("type", {})
        kind, target = _type_node_target(inner[0]) if inner else ("other", None)
        td = HeaderTypedef(
            name=name,
            type=t.get("qualType", ""),
            desugared=t.get("desugaredQualType", t.get("qualType", "")),
            record=target if kind == "record" else None,
            enum=self.enum_ids[target].name if kind == "enum" and target in self.enum_ids else None,
            callback=target if kind == "callback" else None,
            file=file,
        )
        self.out.typedefs[name] = td
        self._declared(name, file)
        if td.record is not None:
            self.out.names.setdefault(name, td.record)
        if kind == "enum" and target in self.enum_ids:
            self.out.enums.setdefault(name, self.enum_ids[target])


def read(ast: Node, *, cplusplus: bool) -> HeaderDecls:
    """The declarations of one translation unit's JSON AST."""
    reader = _Reader(cplusplus)
    reader.decls(ast.get("inner", []), "")
    return reader.out


@dataclass(frozen=True)
class HeaderPath:
    path: str
    field: HeaderField
    parent: str  # the path of the aggregate holding it ('' at the top)


def header_paths(decls: HeaderDecls, record: HeaderRecord, prefix: str = "", depth: int = 0) -> list[HeaderPath]:
    """Every field of a header record at every depth, anonymous members flattened (as C reads them)."""
    out: list[HeaderPath] = []
    if depth > 16:  # a record cannot contain itself; this bounds a malformed AST
        return out
    for base in record.bases:  # a C++ base's members are the derived struct's first members
        nested = decls.record_of_type(base)
        if nested is not None:
            out += header_paths(decls, nested, prefix, depth + 1)
    for f in record.fields:
        if f.name is None:
            nested = decls.field_record(f)
            if nested is not None:
                out += header_paths(decls, nested, prefix, depth + 1)
            continue
        path = f"{prefix}{f.name}"
        out.append(HeaderPath(path, f, prefix.rstrip(".")))
        if f.array_length is None and not f.bitfield:
            nested = decls.field_record(f)
            if nested is not None:
                out += header_paths(decls, nested, path + ".", depth + 1)
    return out
