"""Read the declarations of ``headers/*.h`` from their text with pycparser (the spelling, not the numbers).

The build runs this once (``_ffi_builder.make_ffi``) and embeds the result in the compiled module; at run time it
is needed only for header sets compiled on the fly (the ABI mutation checks).  See :mod:`d3d12wl.abi.decls`.
"""

from __future__ import annotations

import re

from pycparser import c_ast, c_generator, c_parser

from d3d12wl.abi.decls import AggregateDecl, Declarations, EnumDecl, FieldDecl, ProvisionalMark
from d3d12wl.errors import ABIError

PROVISIONAL_TAG = "d3d12wl:provisional:"

#: fixed-width types the headers use; fake typedefs so pycparser knows them as type names
_BUILTIN_TYPEDEFS = (
    "typedef int uint8_t; typedef int uint16_t; typedef int uint32_t; typedef int uint64_t;"
    "typedef int int8_t; typedef int int16_t; typedef int int32_t; typedef int int64_t;"
    "typedef int size_t;\n"
)
BUILTIN_NAMES = frozenset(re.findall(r"typedef int (\w+);", _BUILTIN_TYPEDEFS))


_COMMENT_RE = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_DEFINE_RE = re.compile(r"^\s*#\s*define\s+(\w+)\s+(.+?)\s*$", re.M)
_GEN = c_generator.CGenerator()


def _strip(text: str) -> str:
    # keep line numbers: replace each comment by the same number of newlines
    text = _COMMENT_RE.sub(lambda m: "\n" * m.group(0).count("\n"), text)
    return "\n".join("" if line.lstrip().startswith("#") else line for line in text.splitlines())


def _type_text(node: c_ast.Node) -> str:
    """Compact C spelling of a declarator's type, without the declared name."""
    if isinstance(node, c_ast.TypeDecl):
        quals = " ".join(node.quals)
        inner = node.type
        if isinstance(inner, c_ast.IdentifierType):
            base = " ".join(inner.names)
        elif isinstance(inner, (c_ast.Struct, c_ast.Union)):
            kw = "struct" if isinstance(inner, c_ast.Struct) else "union"
            if inner.decls is None or inner.name:
                base = f"{kw} {inner.name}"
            else:
                parts = " ".join(f"{_type_text(d.type)} {d.name};" for d in inner.decls)
                base = f"{kw} {{ {parts} }}"
        elif isinstance(inner, c_ast.Enum):
            base = f"enum {inner.name}"
        else:  # pragma: no cover
            raise ABIError(f"unsupported declaration {inner!r}")
        return f"{quals} {base}".strip()
    if isinstance(node, c_ast.PtrDecl):
        if isinstance(node.type, c_ast.FuncDecl):
            return _GEN.visit(c_ast.Typename(name=None, quals=[], align=None, type=node)).strip()
        quals = " ".join(node.quals)
        return f"{_type_text(node.type)} *{quals}".rstrip()
    if isinstance(node, c_ast.ArrayDecl):
        return f"{_type_text(node.type)}[{_GEN.visit(node.dim)}]"
    raise ABIError(f"unsupported declarator {type(node).__name__}")  # pragma: no cover


def _aggregate(node: c_ast.Struct | c_ast.Union, tags: dict[str, AggregateDecl]) -> AggregateDecl | None:
    kind = "struct" if isinstance(node, c_ast.Struct) else "union"
    if node.decls is None:
        return tags.get(node.name) if node.name else None
    fields = tuple(_field(d, tags) for d in node.decls)
    agg = AggregateDecl(kind, node.name, fields)
    if node.name:
        tags[node.name] = agg
    return agg


def _field(decl: c_ast.Decl, tags: dict[str, AggregateDecl]) -> FieldDecl:
    t = decl.type
    if decl.name is None:  # anonymous union / struct member
        inner = t.type if isinstance(t, c_ast.TypeDecl) else t
        if not isinstance(inner, (c_ast.Struct, c_ast.Union)):
            raise ABIError(f"unnamed member that is not a union or struct: {decl.coord}")
        agg = _aggregate(inner, tags)
        return FieldDecl(None, _type_text(c_ast.TypeDecl(None, [], None, inner)), anonymous=agg)
    is_pointer = isinstance(t, c_ast.PtrDecl)
    array_length = None
    elem = t
    if isinstance(t, c_ast.ArrayDecl):
        array_length = int(_GEN.visit(t.dim), 0)
        elem = t.type
    aggregate = None
    if isinstance(elem, c_ast.TypeDecl) and isinstance(elem.type, (c_ast.Struct, c_ast.Union)):
        aggregate = _aggregate(elem.type, tags)
    return FieldDecl(decl.name, _type_text(t), is_pointer, array_length, aggregate)


def _marks(header: str, text: str) -> list[ProvisionalMark]:
    out: list[ProvisionalMark] = []
    for lineno, line in enumerate(text.splitlines(), 1):
        if PROVISIONAL_TAG not in line:
            continue
        why = line.split(PROVISIONAL_TAG, 1)[1].split("*/", 1)[0].strip()
        code = line.split("/*", 1)[0]
        if m := re.match(r"\s*#\s*define\s+(\w+)", code):
            out.append(ProvisionalMark(m.group(1), "constant", why, header, lineno))
        elif m := re.match(r"\s*(\w+)\s*=", code):
            out.append(ProvisionalMark(m.group(1), "enum_member", why, header, lineno))
        elif m := re.search(r"\}\s*(\w+)\s*;", code):
            out.append(ProvisionalMark(m.group(1), "type", why, header, lineno))
        elif m := re.search(r"\(\s*\*\s*(\w+)\s*\)", code):
            out.append(ProvisionalMark(m.group(1), "type", why, header, lineno))
        else:
            raise ABIError(f"{header}:{lineno}: provisional mark on a line that defines nothing: {line.strip()}")
    return out


def parse(headers: dict[str, str]) -> Declarations:
    """Parse header texts (file name -> text, in dependency order)."""
    out = Declarations()
    tags: dict[str, AggregateDecl] = {}
    chunks = [_BUILTIN_TYPEDEFS]
    for header, text in headers.items():
        names = [m.group(1) for m in _DEFINE_RE.finditer(text)]
        out.constants.extend(names)
        for name in names:
            out.origin.setdefault(name, header)
        out.provisional.extend(_marks(header, text))
        chunks.append(f'# 1 "{header}"\n{_strip(text)}\n')
    try:
        ast = c_parser.CParser().parse("".join(chunks), filename="<builtin>")
    except Exception as exc:  # pycparser raises its own ParseError
        raise ABIError(f"cannot parse the headers: {exc}") from exc
    for node in ast.ext:
        header = node.coord.file if node.coord is not None else "<builtin>"
        if header == "<builtin>":
            continue
        _declare(node, out, tags, header)
    return out


def _declare(node: c_ast.Node, out: Declarations, tags: dict[str, AggregateDecl], header: str) -> None:
    if isinstance(node, c_ast.Typedef):
        name, t = node.name, node.type
        if name in BUILTIN_NAMES or name in out.origin:
            return
        out.origin[name] = header
        if isinstance(t, c_ast.TypeDecl):
            inner = t.type
            if isinstance(inner, (c_ast.Struct, c_ast.Union)):
                agg = _aggregate(inner, tags)
                if agg is None:
                    out.opaque.add(name)
                else:
                    out.aggregates[name] = agg
            elif isinstance(inner, c_ast.Enum):
                members = tuple(e.name for e in inner.values.enumerators) if inner.values else ()
                out.enums[name] = EnumDecl(name, members)
                for m in members:
                    out.origin.setdefault(m, header)
            else:
                out.aliases[name] = _type_text(t)
        elif isinstance(t, c_ast.PtrDecl) and isinstance(t.type, c_ast.FuncDecl):
            out.functions[name] = _type_text(t)
        else:  # pragma: no cover
            out.aliases[name] = _type_text(t)
    elif isinstance(node, c_ast.Decl) and isinstance(node.type, (c_ast.Struct, c_ast.Union, c_ast.Enum)):
        if isinstance(node.type, c_ast.Enum) and node.type.name and node.type.values:
            members = tuple(e.name for e in node.type.values.enumerators)
            out.enums.setdefault(node.type.name, EnumDecl(node.type.name, members))
        elif not isinstance(node.type, c_ast.Enum):
            _aggregate(node.type, tags)
