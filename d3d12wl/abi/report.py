"""Human (pahole-style) and JSON reports of the compiled ABI.

JSON shape (``d3d12wl abi --json``)::

    {
      "types": [{"name", "kind", "size", "align", "provisional": bool, "provisional_why": str|null, "header",
                 "fields": [{"name", "offset", "size", "type", "align",
                             "union": "union@16"|null,      # anonymous-union group, fields flattened as in C
                             "is_pointer": bool, "array_length": int|null,
                             "fields": [...]}]}],           # only for an anonymous struct-typed field
      "enums": [{"name", "flag": bool, "prefix", "header",
                 "members": [{"name", "short_name", "value", "provisional": bool}]}],
      "constants": [{"name", "value", "provisional": bool}],
      "functions": [{"name", "c"}],
      "provisional": [{"name", "value": int|null, "why", "kind", "header"}]
    }

Lists are in header declaration order.  Offsets are from the start of the type.
"""

from __future__ import annotations

from typing import Any

from d3d12wl.abi.check import CheckResult
from d3d12wl.abi.compiled import ABI, FieldInfo, TypeInfo
from d3d12wl.output.serialize import to_jsonable


def field_json(f: FieldInfo) -> dict[str, Any]:
    out: dict[str, Any] = {
        "name": f.name,
        "offset": f.offset,
        "size": f.size,
        "type": f.type,
        "align": f.align,
        "union": f.union,
        "is_pointer": f.is_pointer,
        "array_length": f.array_length,
    }
    if f.nested is not None and f.type.startswith(("struct {", "union {")):
        out["fields"] = [field_json(n) for n in f.nested.fields]
    return out


def type_json(info: TypeInfo) -> dict[str, Any]:
    return {
        "name": info.name,
        "kind": info.kind,
        "size": info.size,
        "align": info.align,
        "provisional": info.provisional,
        "provisional_why": info.provisional_why,
        "header": info.header,
        "fields": [field_json(f) for f in info.fields],
    }


def enum_json(abi: ABI, name: str) -> dict[str, Any]:
    prefix = abi.enum_prefix(name)
    return {
        "name": name,
        "flag": abi.is_flag_enum(name),
        "prefix": prefix,
        "header": abi.decls.origin.get(name),
        "members": [
            {"name": m, "short_name": m[len(prefix) :], "value": v, "provisional": abi.is_provisional(m)}
            for m, v in abi.enum_members(name).items()
        ],
    }


def abi_json(abi: ABI, names: list[str] | None = None) -> dict[str, Any]:
    type_names = [n for n in (names or abi.type_names()) if abi.resolve(n) in abi.decls.aggregates]
    enum_names = [n for n in (names or abi.enum_names()) if n in abi.decls.enums]
    return {
        "types": [type_json(abi.type_info(n)) for n in type_names],
        "enums": [enum_json(abi, n) for n in enum_names],
        "constants": [
            {"name": n, "value": v, "provisional": abi.is_provisional(n)} for n, v in abi.constants().items()
        ],
        "functions": [{"name": n, "c": c} for n, c in abi.functions().items()],
        "provisional": to_jsonable(abi.provisional()),
    }


# --- pahole-style text --------------------------------------------------------------------------------


def _row(indent: int, decl: str, offset: int, size: int, note: str = "") -> str:
    text = " " * indent + decl
    return f"{text:<72} /* {offset:5d} {size:5d} */{'  ' + note if note else ''}"


def format_type(info: TypeInfo, indent: int = 0, base: int = 0) -> list[str]:
    """pahole-like lines: each field with offset and size, holes, trailing padding."""
    pad = " " * indent
    head = (
        f"{pad}{info.kind} {info.name} {{"
        if not info.name.startswith(("struct {", "union {"))
        else f"{pad}{info.kind} {{"
    )
    lines = [head + (f"  /* provisional: {info.provisional_why} */" if info.provisional else "")]
    end = 0
    group: str | None = None
    for f in info.fields:
        if f.union != group:
            if group is not None:
                lines.append(f"{pad}    }};")
            if f.union is not None:
                if f.offset > end and info.kind == "struct":
                    lines.append(f"{pad}    /* XXX {f.offset - end} byte hole */")
                lines.append(f"{pad}    union {{  /* anonymous, {f.union} */")
            group = f.union
        inner = 8 if f.union is not None else 4
        if f.union is None and info.kind == "struct" and f.offset > end:
            lines.append(f"{pad}    /* XXX {f.offset - end} byte hole */")
        if f.nested is not None and f.type.startswith(("struct {", "union {")):
            lines.extend(format_type(f.nested, indent + inner, base + f.offset))
            lines[-1] = lines[-1][:-1] + f" {f.name};"
            lines[-1] = _row(0, lines[-1], base + f.offset, f.size)
        else:
            type_text = f.type
            name = f.name
            if f.array_length is not None:
                type_text, dims = f.type.split("[", 1)
                name = f"{f.name}[{dims}"
            lines.append(_row(indent + inner, f"{type_text:<44} {name};", base + f.offset, f.size))
        end = max(end, f.offset + f.size)
    if group is not None:
        lines.append(f"{pad}    }};")
    tail = info.size - end if info.kind == "struct" else info.size - max((f.size for f in info.fields), default=0)
    summary = f"size: {info.size}, align: {info.align}"
    if tail:
        summary += f", trailing padding: {tail}"
    lines.append(f"{pad}    /* {summary} */")
    lines.append(f"{pad}}};")
    return lines


def format_enum(abi: ABI, name: str) -> list[str]:
    kind = "flags" if abi.is_flag_enum(name) else "enum"
    lines = [f"enum {name} {{  /* {kind}, 4 bytes */"]
    for m, v in abi.enum_members(name).items():
        value = f"0x{v:x}" if abi.is_flag_enum(name) else str(v)
        mark = "  /* provisional */" if abi.is_provisional(m) else ""
        lines.append(f"    {m} = {value},{mark}")
    lines.append("};")
    return lines


def format_report(abi: ABI, names: list[str] | None = None) -> str:
    blocks: list[list[str]] = []
    if names:
        for n in names:
            if abi.resolve(n) in abi.decls.aggregates:
                blocks.append(format_type(abi.type_info(n)))
            elif n in abi.decls.enums:
                blocks.append(format_enum(abi, n))
            elif n in abi.decls.constants:
                blocks.append([f"#define {n} {abi.constant(n)}"])
            else:
                abi.type_info(n)  # raises ABIError naming it
    else:
        blocks.extend(format_type(abi.type_info(n)) for n in abi.type_names())
        blocks.extend(format_enum(abi, n) for n in abi.enum_names())
        blocks.append([f"#define {n} {v}" for n, v in abi.constants().items()])
        prov = abi.provisional()
        if prov:
            blocks.append(
                ["/* provisional (the specs leave these open; chosen once, see design.md 'ABI rules'): */"]
                + [f"/*   {p.name} = {p.value if p.value is not None else '(type)'}: {p.why} */" for p in prov]
            )
    return "\n\n".join("\n".join(b) for b in blocks) + "\n"


def format_checks(results: list[CheckResult]) -> str:
    lines = []
    for r in results:
        if r.skipped:
            lines.append(f"SKIP {r.name}: {r.skipped}")
            continue
        status = "ok  " if r.ok else "FAIL"
        lines.append(f"{status} {r.name}: {r.description}: {r.counts()}, {r.other} other")
        lines.extend(f"     {f}" for f in r.findings)
        if r.lacks:
            lines.append(f"     reference lacks {len(r.lacks)} of our names (reported, not failed):")
            lines.extend(f"       {n}" for n in r.lacks)
    return "\n".join(lines) + "\n"


def checks_json(results: list[CheckResult]) -> dict[str, Any]:
    return {
        "ok": all(r.ok for r in results),
        "checks": [
            {
                "name": r.name,
                "description": r.description,
                "skipped": r.skipped,
                "ok": r.ok,
                "types": r.types,
                "fields": r.fields,
                "enum_members": r.enum_members,
                "other": r.other,
                "findings": [{"check": f.check, "where": f.where, "message": f.message} for f in r.findings],
                "lacks": r.lacks,
            }
            for r in results
        ],
    }
