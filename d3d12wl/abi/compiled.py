"""The ABI of every declared type, enum and constant, read from the compiled headers.

Every other part of d3d12wl takes sizes, offsets and enum values from here; nothing in
Python retypes them.  The numbers come from ``d3d12wl._native`` (cffi API mode, checked by
the C compiler); the spelling (declared field types, enum member order, anonymous unions,
provisional marks) comes from the header text embedded in that same module.

Module-level functions answer for the installed headers; :class:`ABI` answers for any
compiled header set (the checks run it on mutated copies)::

    sizeof("D3D12_DISPATCH_LIST_INPUT")                     # 24
    offsetof("D3D12_DISPATCH_LIST_INPUT1", "ProgramInputs.StrideInBytes")
    enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "DRAW")      # also the full member name
    enum("D3D12_DISPATCH_LIST_FLAGS1").ALLOW_NEXT_DISPATCH_LIST_CONTINUATION
    type_info("D3D12_WORK_LIST_PRIMARY_RECORD").fields

Anonymous unions are flattened as C flattens them: their members appear among the
parent's fields at the union's offset, each with ``union`` set to the same group name
(``"union@16"``), so overlapping fields are explicit.
"""

from __future__ import annotations

import enum as _enum
import json
import re
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from types import ModuleType
from typing import Any, NamedTuple

from d3d12wl.abi import decls as abi_decls
from d3d12wl.abi.decls import AggregateDecl, Declarations
from d3d12wl.errors import ABIError, did_you_mean

__all__ = [
    "ABI",
    "FieldInfo",
    "Provisional",
    "TypeInfo",
    "constant",
    "constants",
    "default",
    "enum",
    "enum_members",
    "enum_short_name",
    "enum_text",
    "enum_value",
    "enums",
    "ffi",
    "header_texts",
    "is_flag_enum",
    "lib",
    "offsetof",
    "provisional",
    "sizeof",
    "type_info",
    "types",
]

#: enum names ending like these are bitmasks (IntFlag)
_FLAG_SUFFIX = re.compile(r"_(FLAGS\d*|MASK|STATES)$")


@dataclass(frozen=True)
class FieldInfo:
    """One field of a struct or union, at its byte offset from the start of the outermost type
    it was asked of (``TypeInfo.fields``: from the start of that type)."""

    name: str
    offset: int
    size: int
    type: str  # declared C type text: 'uint32_t', 'D3D12_GPU_VIRTUAL_ADDRESS', 'uint64_t[4]', 'struct { ... }'
    is_pointer: bool = False
    array_length: int | None = None
    nested: TypeInfo | None = None  # for a struct/union-typed field (named or anonymous)
    union: str | None = None  # anonymous-union group ('union@<offset>') this field belongs to
    align: int = 1


@dataclass(frozen=True)
class TypeInfo:
    name: str
    kind: str  # 'struct' | 'union'
    size: int
    align: int
    fields: tuple[FieldInfo, ...]
    provisional: bool = False
    provisional_why: str | None = None
    header: str | None = None

    def field(self, name: str) -> FieldInfo:
        for f in self.fields:
            if f.name == name:
                return f
        raise ABIError(f"{self.name} has no field {name!r}; fields: {', '.join(f.name for f in self.fields)}")

    def walk(self, prefix: str = "", base: int = 0) -> list[tuple[str, FieldInfo, int]]:
        """Every field at every depth: (dotted path, field, absolute offset)."""
        out: list[tuple[str, FieldInfo, int]] = []
        for f in self.fields:
            path = f"{prefix}{f.name}"
            out.append((path, f, base + f.offset))
            if f.nested is not None and f.array_length is None:
                out.extend(f.nested.walk(path + ".", base + f.offset))
        return out


class Provisional(NamedTuple):
    name: str
    value: int | None  # None for a provisional type declaration
    why: str
    kind: str  # 'enum_member' | 'constant' | 'type'
    header: str


class ABI:
    """The ABI of one compiled header set: ``ffi``/``lib`` from cffi and the header texts they were built from."""

    def __init__(self, ffi: Any, lib: Any, headers: dict[str, str], decls: Declarations | None = None) -> None:
        self.ffi = ffi
        self.lib = lib
        self.headers = dict(headers)
        if decls is None:  # a header set compiled on the fly: read its spelling now (pycparser)
            from d3d12wl.abi import header_parser

            decls = header_parser.parse(self.headers)
        self.decls: Declarations = decls
        self._types: dict[str, TypeInfo] = {}
        self._enums: dict[str, type[_enum.IntEnum] | type[_enum.IntFlag]] = {}
        # memo tables for the look-ups the executor and packers make per record (the compiled module is immutable)
        self._members: dict[str, dict[str, int]] = {}
        self._prefixes: dict[str, str] = {}
        self._values: dict[tuple[str, str], int] = {}
        self._short_names: dict[tuple[str, int], str] = {}
        self._offsets: dict[tuple[str, str], int] = {}
        self._sizes: dict[str, int] = {}

    @classmethod
    def from_module(cls, module: ModuleType) -> ABI:
        """From a compiled module built by ``build_ffi.make_ffi`` (it embeds its header texts and their declarations,
        read at build time)."""
        bundle = json.loads(module.ffi.string(module.lib.d3d12wl_header_bundle()).decode("utf-8"))
        decls = abi_decls.from_json(bundle["decls"]) if "decls" in bundle else None
        return cls(module.ffi, module.lib, {name: bundle["files"][name] for name in bundle["order"]}, decls)

    # --- types ---------------------------------------------------------------------------

    @cached_property
    def _provisional_types(self) -> dict[str, str]:
        return {m.name: m.why for m in self.decls.provisional if m.kind == "type"}

    def type_names(self) -> list[str]:
        return list(self.decls.aggregates)

    def types(self) -> dict[str, TypeInfo]:
        """Every declared struct/union type by typedef name, in declaration order."""
        return {name: self.type_info(name) for name in self.decls.aggregates}

    def resolve(self, name: str) -> str:
        """A typedef name resolved to what it names (``D3D12_GPU_VIRTUAL_ADDRESS`` -> ``uint64_t``)."""
        seen = set()
        while name in self.decls.aliases and name not in seen:
            seen.add(name)
            name = self.decls.aliases[name]
        return name

    def type_info(self, name: str) -> TypeInfo:
        if name in self._types:
            return self._types[name]
        resolved = self.resolve(name)
        if resolved not in self.decls.aggregates:
            if resolved in self.decls.enums:
                raise ABIError(f"{name} is an enum, not a struct or union; use enum({name!r})")
            raise ABIError(f"no struct or union named {name!r} in the headers")
        ctype = self._ctype(resolved)
        why = self._provisional_types.get(resolved)
        info = TypeInfo(
            name=resolved,
            kind=ctype.kind,
            size=self.ffi.sizeof(ctype),
            align=self.ffi.alignof(ctype),
            fields=self._fields(ctype, self.decls.aggregates[resolved]),
            provisional=why is not None,
            provisional_why=why,
            header=self.decls.origin.get(resolved),
        )
        self._types[name] = self._types[resolved] = info
        return info

    def _ctype(self, name: str) -> Any:
        try:
            return self.ffi.typeof(name)
        except Exception as exc:  # cffi raises ffi.error / CDefError
            raise ABIError(f"the compiled module has no type {name!r}") from exc

    def _fields(self, ctype: Any, decl: AggregateDecl, anon: str | None = None) -> tuple[FieldInfo, ...]:
        cfields = dict(ctype.fields or ())
        out: list[FieldInfo] = []
        for fd in decl.fields:
            if fd.anonymous is not None:
                # C flattens anonymous members; cffi lists them in the parent with their offsets
                first = fd.anonymous.fields[0].name
                group = f"{fd.anonymous.kind}@{cfields[first].offset}"
                out.extend(self._fields(ctype, fd.anonymous, group))
                continue
            cf = cfields.get(fd.name)
            if cf is None:
                raise ABIError(f"{ctype.cname}: the compiled module has no field {fd.name!r}")
            ft = cf.type
            nested = None
            elem = ft.item if fd.array_length is not None else ft
            tag = elem.cname.split(" ", 1)[1] if elem.kind in ("struct", "union") else None
            if tag is not None and fd.aggregate is None and tag in self.decls.aggregates:
                nested = self.type_info(tag)
            elif fd.aggregate is not None and elem.kind in ("struct", "union"):
                if fd.aggregate.tag and fd.aggregate.tag in self.decls.aggregates:
                    nested = self.type_info(fd.aggregate.tag)
                else:
                    nested = TypeInfo(
                        name=fd.type_text,
                        kind=elem.kind,
                        size=self.ffi.sizeof(elem),
                        align=self.ffi.alignof(elem),
                        fields=self._fields(elem, fd.aggregate),
                    )
            out.append(
                FieldInfo(
                    name=fd.name or "",
                    offset=cf.offset,
                    size=self.ffi.sizeof(ft),
                    type=fd.type_text,
                    is_pointer=fd.is_pointer,
                    array_length=fd.array_length,
                    nested=nested,
                    union=anon,
                    align=self.ffi.alignof(ft),
                )
            )
        return tuple(out)

    def sizeof(self, name: str) -> int:
        size = self._sizes.get(name)
        if size is None:
            size = self._sizes[name] = self._sizeof(name)
        return size

    def _sizeof(self, name: str) -> int:
        resolved = self.resolve(name)
        if resolved in self.decls.aggregates:
            return self.type_info(resolved).size
        try:
            return int(self.ffi.sizeof(resolved))
        except Exception as exc:
            raise ABIError(f"no type named {name!r} in the headers") from exc

    def alignof(self, name: str) -> int:
        return self.type_info(name).align if self.resolve(name) in self.decls.aggregates else self.ffi.alignof(name)

    def offsetof(self, name: str, path: str) -> int:
        """Byte offset of a dotted field path (``'ProgramInputs.StrideInBytes'``, ``'OpaqueData[2]'``)."""
        offset = self._offsets.get((name, path))
        if offset is None:
            offset = self._offsets[(name, path)] = self._offsetof(name, path)
        return offset

    def _offsetof(self, name: str, path: str) -> int:
        info = self.type_info(name)
        parts: list[str | int] = []
        for piece in path.split("."):
            m = re.fullmatch(r"(\w+)((?:\[\d+\])*)", piece)
            if not m:
                raise ABIError(f"{info.name}: bad field path {path!r}")
            parts.append(m.group(1))
            parts.extend(int(i) for i in re.findall(r"\[(\d+)\]", m.group(2)))
        try:
            return int(self.ffi.offsetof(info.name, *parts))
        except (KeyError, TypeError, AttributeError, IndexError, self.ffi.error) as exc:
            raise ABIError(f"{info.name} has no field {path!r}") from exc

    def field(self, name: str, path: str) -> FieldInfo:
        """The field at a dotted path (offset relative to ``name``)."""
        for p, f, off in self.type_info(name).walk():
            if p == path:
                return FieldInfo(f.name, off, f.size, f.type, f.is_pointer, f.array_length, f.nested, f.union, f.align)
        raise ABIError(f"{self.resolve(name)} has no field {path!r}")

    # --- enums -----------------------------------------------------------------------------

    def enum_names(self) -> list[str]:
        return list(self.decls.enums)

    def is_flag_enum(self, name: str) -> bool:
        return bool(_FLAG_SUFFIX.search(name))

    def enum_members(self, name: str) -> dict[str, int]:
        """Full member name -> value, read from the compiled module, in declaration order."""
        return dict(self._enum_members(name))

    def _enum_members(self, name: str) -> dict[str, int]:
        members = self._members.get(name)
        if members is None:
            decl = self.decls.enums.get(name)
            if decl is None:
                raise ABIError(f"no enum named {name!r} in the headers")
            members = self._members[name] = {m: int(getattr(self.lib, m)) for m in decl.members}
        return members

    def enum_prefix(self, name: str) -> str:
        prefix = self._prefixes.get(name)
        if prefix is None:
            prefix = self._prefixes[name] = self._enum_prefix(name)
        return prefix

    def _enum_prefix(self, name: str) -> str:
        members = list(self.decls.enums[name].members) if name in self.decls.enums else []
        candidates = [name + "_", re.sub(r"S(\d*)$", r"\1", name) + "_"]
        for c in candidates:
            if members and all(m.startswith(c) and len(m) > len(c) for m in members):
                return c
        common = name + "_"
        for m in members:
            while not m.startswith(common):
                common = common[:-1]
        return common[: common.rfind("_") + 1]

    def enum(self, name: str) -> type[_enum.IntEnum] | type[_enum.IntFlag]:
        if name not in self._enums:
            prefix = self.enum_prefix(name)
            members = [(m[len(prefix) :], v) for m, v in self.enum_members(name).items()]
            # (mypy reads the functional Enum API with a non-literal class name as an instance, not a class)
            if self.is_flag_enum(name):
                self._enums[name] = _enum.IntFlag(name, members)  # type: ignore[assignment]
            else:
                self._enums[name] = _enum.IntEnum(name, members)  # type: ignore[assignment]
        return self._enums[name]

    def enums(self) -> dict[str, type[_enum.IntEnum] | type[_enum.IntFlag]]:
        return {name: self.enum(name) for name in self.decls.enums}

    def enum_value(self, enum_name: str, member: str) -> int:
        value = self._values.get((enum_name, member))
        if value is None:
            value = self._values[(enum_name, member)] = self._enum_value(enum_name, member)
        return value

    def _enum_value(self, enum_name: str, member: str) -> int:
        members = self._enum_members(enum_name)
        if member in members:
            return members[member]
        prefix = self.enum_prefix(enum_name)
        if prefix + member in members:
            return members[prefix + member]
        # a '_'-bounded tail of a full name that still holds the whole short name (e.g. 'TIER_1' for
        # D3D12_WORK_LISTS_TIER_1, whose short name is '1'); a shorter tail ('TABLE' for PROGRAM_TABLE) is a typo
        tails = [m for m in members if m.endswith("_" + member) and len(member) > len(m) - len(prefix)]
        if member and len(tails) == 1:
            return members[tails[0]]
        shorts = [m[len(prefix) :] for m in members]
        hint = did_you_mean(member.removeprefix(prefix), shorts) if isinstance(member, str) else ""
        raise ABIError(f"{enum_name} has no member {member!r}{hint}; valid: {', '.join(shorts)} (or with the prefix "
                       f"{prefix})")

    def enum_short_name(self, enum_name: str, value: int) -> str:
        name = self._short_names.get((enum_name, value))
        if name is None:
            name = self._short_names[(enum_name, value)] = self._enum_short_name(enum_name, value)
        return name

    def enum_text(self, enum_name: str, value: int) -> str:
        """``value`` as text: its member's short name; a flag enum's value that is no member as the single-bit
        members it sets joined by ``|`` (bits no member names as one hex number); any other value the number."""
        try:
            return self.enum_short_name(enum_name, value)
        except ABIError:
            pass
        if not self.is_flag_enum(enum_name) or value <= 0:
            return str(value)
        prefix = self.enum_prefix(enum_name)
        names, rest = [], value
        for m, bit in self._enum_members(enum_name).items():
            if bit > 0 and bit & (bit - 1) == 0 and rest & bit:
                names.append(m[len(prefix) :])
                rest &= ~bit
        return "|".join(names + ([f"0x{rest:x}"] if rest else []))

    def _enum_short_name(self, enum_name: str, value: int) -> str:
        prefix = self.enum_prefix(enum_name)
        for m, v in self._enum_members(enum_name).items():
            if v == value:
                return m[len(prefix) :]
        raise ABIError(f"{enum_name} has no member with value {value}")

    # --- constants and provisional values ---------------------------------------------------------

    def constants(self) -> dict[str, int]:
        return {name: int(getattr(self.lib, name)) for name in self.decls.constants}

    def constant(self, name: str) -> int:
        if name not in self.decls.constants:
            raise ABIError(f"no #define constant {name!r} in the headers; known: {', '.join(self.decls.constants)}")
        return int(getattr(self.lib, name))

    def provisional(self) -> list[Provisional]:
        out = []
        for m in self.decls.provisional:
            value = int(getattr(self.lib, m.name)) if m.kind in ("enum_member", "constant") else None
            out.append(Provisional(m.name, value, m.why, m.kind, m.header))
        return out

    def is_provisional(self, name: str) -> bool:
        return any(m.name == name for m in self.decls.provisional)

    def functions(self) -> dict[str, str]:
        """Function-pointer typedefs (DDI entry points and callbacks) -> C text."""
        return dict(self.decls.functions)


# --- the installed headers ------------------------------------------------------------------------


def _load_native() -> ModuleType:
    try:
        import importlib

        native = importlib.import_module("d3d12wl._native")  # the cffi-built extension (no stub)
    except ImportError as exc:  # pragma: no cover - depends on the install
        raise ABIError(
            f"the compiled headers (d3d12wl._native) are missing from {Path(__file__).resolve().parent.parent}: "
            "install the "
            "package with `pip install .` (then run it from outside the source tree, which would shadow the "
            "installed package) or, in a source checkout, `pip install -e .`, which builds them in place"
        ) from exc
    return native


_native_module = _load_native()
default: ABI = ABI.from_module(_native_module)
ffi = default.ffi
lib = default.lib


def header_texts() -> dict[str, str]:
    """The header texts the installed module was compiled from (file name -> text, dependency order)."""
    return dict(default.headers)


def type_info(name: str) -> TypeInfo:
    return default.type_info(name)


def types() -> dict[str, TypeInfo]:
    return default.types()


#: (the installed ABI's bound method: no wrapper call on the per-record paths)
sizeof = default.sizeof


#: (the installed ABI's bound method: no wrapper call on the per-record paths)
offsetof = default.offsetof


def enum(name: str) -> type[_enum.IntEnum] | type[_enum.IntFlag]:
    return default.enum(name)


def enums() -> dict[str, type[_enum.IntEnum] | type[_enum.IntFlag]]:
    return default.enums()


def enum_members(name: str) -> dict[str, int]:
    return default.enum_members(name)


def is_flag_enum(name: str) -> bool:
    return default.is_flag_enum(name)


#: (the installed ABI's bound method: no wrapper call on the per-record paths)
enum_value = default.enum_value


#: (the installed ABI's bound method: no wrapper call on the per-record paths)
enum_short_name = default.enum_short_name


def enum_text(enum_name: str, value: int) -> str:
    return default.enum_text(enum_name, value)


def constant(name: str) -> int:
    return default.constant(name)


def constants() -> dict[str, int]:
    return default.constants()


def provisional() -> list[Provisional]:
    return default.provisional()
