"""The declarations of ``headers/*.h`` as data (the spelling, not the numbers), and their JSON form.

The numbers (sizes, offsets, enum values) always come from the compiled module; this module
only recovers what the compiler forgets: the declared type names of fields
(``D3D12_GPU_VIRTUAL_ADDRESS`` rather than ``uint64_t``), the member order of enums, which
fields share an anonymous union, which ``#define`` constants exist, and the provisional marks
``/* d3d12wl:provisional: <why> */`` at each value's one place of definition.

:mod:`d3d12wl.abi.header_parser` reads them from the header text (with pycparser) when the package is built;
the compiled module ships them as :func:`to_json` text, so importing d3d12wl parses no C.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from d3d12wl.output.serialize import to_jsonable


@dataclass(frozen=True)
class FieldDecl:
    """One member as declared: ``name`` is None for an anonymous union/struct member."""

    name: str | None
    type_text: str
    is_pointer: bool = False
    array_length: int | None = None
    #: for a named or anonymous struct/union member: the aggregate it refers to
    aggregate: AggregateDecl | None = None
    #: for an anonymous union/struct member: its members (flattened into the parent by C)
    anonymous: AggregateDecl | None = None


@dataclass(frozen=True)
class AggregateDecl:
    kind: str  # 'struct' | 'union'
    tag: str | None
    fields: tuple[FieldDecl, ...]


@dataclass(frozen=True)
class EnumDecl:
    name: str
    members: tuple[str, ...]


@dataclass(frozen=True)
class ProvisionalMark:
    name: str
    kind: str  # 'enum_member' | 'constant' | 'type'
    why: str
    header: str
    line: int


@dataclass
class Declarations:
    """Everything declared by a set of header texts, by name."""

    aggregates: dict[str, AggregateDecl] = field(default_factory=dict)  # typedef name -> struct/union
    opaque: set[str] = field(default_factory=set)  # COM interfaces: declared, never defined
    enums: dict[str, EnumDecl] = field(default_factory=dict)
    aliases: dict[str, str] = field(default_factory=dict)  # typedef name -> primitive type text
    functions: dict[str, str] = field(default_factory=dict)  # function-pointer typedef -> C text
    constants: list[str] = field(default_factory=list)  # #define names, in order
    provisional: list[ProvisionalMark] = field(default_factory=list)
    origin: dict[str, str] = field(default_factory=dict)  # declared name -> header file name


def to_json(decls: Declarations) -> str:
    """The declarations as JSON text (what the build embeds in the compiled module)."""
    return json.dumps(to_jsonable(decls), separators=(",", ":"))


def _aggregate(d: dict[str, Any]) -> AggregateDecl:
    return AggregateDecl(d["kind"], d["tag"], tuple(_field(f) for f in d["fields"]))


def _field(d: dict[str, Any]) -> FieldDecl:
    return FieldDecl(d["name"], d["type_text"], d["is_pointer"], d["array_length"],
                     _aggregate(d["aggregate"]) if d["aggregate"] is not None else None,
                     _aggregate(d["anonymous"]) if d["anonymous"] is not None else None)


def from_json(text: str) -> Declarations:
    """The inverse of :func:`to_json`."""
    d = json.loads(text)
    return Declarations(
        aggregates={k: _aggregate(v) for k, v in d["aggregates"].items()},
        opaque=set(d["opaque"]),
        enums={k: EnumDecl(v["name"], tuple(v["members"])) for k, v in d["enums"].items()},
        aliases=dict(d["aliases"]),
        functions=dict(d["functions"]),
        constants=list(d["constants"]),
        provisional=[ProvisionalMark(**m) for m in d["provisional"]],
        origin=dict(d["origin"]),
    )

