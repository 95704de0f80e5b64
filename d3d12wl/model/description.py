"""The JSON description of objects (design.md, "The JSON description of objects") <-> :mod:`d3d12wl.model`
<-> the real C desc structs through cffi.

One generic walker drives every conversion.  For each model dataclass it pairs the dataclass fields (their type
hints say: nested struct, array, reference to a named object, enum-typed int, float, identifier bytes) with the
C struct's fields from :func:`d3d12wl.abi.type_info` (which say: the enum type of an int member, the ``Num...``
count of an array, the anonymous-union group of a member).  Nothing here retypes a member name, an enum value or
an offset.

JSON rules (design.md):

* member names exactly as in the C struct; an omitted member takes C's zero value;
* an array member is a JSON array under its pointer member's name; its ``Num...`` count may be given and must
  then equal the array's length;
* a pointer to another object is that object's name (a list of names for arrays of pointers);
* an enum value is a full or short member name, or an int; a flag enum a list of names, or an int;
* the program ``Identifier`` is 64 hex digits (the 32 bytes in memory order);
* a union member is written under its member name and must be the one the discriminator (``Type``,
  ``ParameterType``) selects;
* an argument desc may have a ``Name`` (not a C member: the name of its record member, a C identifier unique within
  its signature, :mod:`d3d12wl.model.fieldnames`); the cffi descs leave it out, so :func:`from_cffi` gives None.

Canonical form written by :func:`dump` (``dump(load(x))`` is the canonical form of ``x``; ``load(dump(o))``
equals ``o``): collections and objects in the set's order; ``Num...`` counts omitted; a member equal to C's zero
value omitted, except a plain enum member of an object that is written at all (``Type``, ``Source``,
``ParameterType``, ... stay, because they discriminate); enums by short name (an int if the value has no name);
flags as a list of short names (an int if some bit has no name); the identifier as lowercase hex.

Every problem is a :class:`DescriptionError` whose ``where`` is the member path
(``program_command_signatures.PCS.pArgumentDescs[1].Source``); :func:`load` collects them all and raises one
:class:`DescriptionErrors` listing every one.
"""

from __future__ import annotations

import dataclasses
import json
import types
import typing
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from d3d12wl import abi, inputs
from d3d12wl.errors import ABIError, D3D12WLError, DescriptionError, did_you_mean
from d3d12wl.model import fieldnames
from d3d12wl.model import objects as model
from d3d12wl.model.argtypes import arg_type_info, enum_synonyms
from d3d12wl.model.objects import (
    CommandSignature,
    IndirectArgumentDesc,
    ObjectSet,
    Program,
    ProgramCommandSignature,
    RootParameter1,
    RootSignature,
    WorkListArgumentDesc,
    WorkListSignature,
    WorkListSignatureArray,
)

#: The collections of a description file: key -> class of its named objects (design.md).
COLLECTIONS: dict[str, type] = {f.name: typing.get_type_hints(ObjectSet)[f.name].__args__[1]
                                for f in dataclasses.fields(ObjectSet)}
_COLLECTION_OF: dict[type, str] = {cls: key for key, cls in COLLECTIONS.items()}

#: The C desc each named class mirrors (None: no C desc; a Program is state-object side).  Root signatures go to
#: ``D3D12_ROOT_SIGNATURE_DESC2`` by default because the model's static samplers are ``_DESC1``.
C_DESC: dict[type, str | None] = {
    RootSignature: "D3D12_ROOT_SIGNATURE_DESC2",
    ProgramCommandSignature: "D3D12_PROGRAM_COMMAND_SIGNATURE_DESC",
    WorkListSignature: "D3D12_WORK_LIST_SIGNATURE_DESC",
    WorkListSignatureArray: "D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC",
    CommandSignature: "D3D12_COMMAND_SIGNATURE_DESC",
    Program: None,
}
_ALSO_ACCEPTED = {"D3D12_ROOT_SIGNATURE_DESC1": RootSignature}

#: D3D12_ROOT_PARAMETER1's anonymous union, selected by ParameterType (short names; d3d12.h's documented use).
ROOT_PARAMETER_UNION_MEMBER = {
    "DESCRIPTOR_TABLE": "DescriptorTable",
    "32BIT_CONSTANTS": "Constants",
    "CBV": "Descriptor",
    "SRV": "Descriptor",
    "UAV": "Descriptor",
}

SCHEMA_RESOURCE = "description.schema.json"


class DescriptionErrors(DescriptionError):
    """Every problem found in one description; ``errors`` holds each as a :class:`DescriptionError`."""

    def __init__(self, errors: list[DescriptionError]) -> None:
        self.errors = list(errors)
        lines = "\n".join(f"  {e}" for e in self.errors)
        first = self.errors[0]
        text = first.message if len(self.errors) == 1 else f"{len(self.errors)} errors in the description:\n{lines}"
        super().__init__(text, where=first.where if len(self.errors) == 1 else None)


# ----------------------------------------------------------------------------------------------------------------
# The member table: dataclass fields x C fields
# ----------------------------------------------------------------------------------------------------------------

INT, FLOAT, ENUM, FLAGS, HEX, STR, STRUCT, LIST, REF, REFLIST = (
    "int", "float", "enum", "flags", "hex", "str", "struct", "list", "ref", "reflist")
_SCALARS = (INT, FLOAT, ENUM, FLAGS)


@dataclass(frozen=True)
class Member:
    """One member of a model class as the converters see it.

    ``kind``: one of INT, FLOAT, ENUM, FLAGS, HEX, STR (an optional plain string), STRUCT, LIST, REF, REFLIST.
    ``cls``: the nested/element dataclass (STRUCT, LIST) or the referenced named class (REF, REFLIST).
    ``cinfo``: the :class:`abi.TypeInfo` of a nested struct or array element, if any.  ``enum``: the C enum
    of an ENUM/FLAGS member.  ``count``: the C ``Num...`` member of an array.  ``union``: the anonymous-union group.
    ``in_c``: the C desc has this member (``CommandSignature.pRootSignature`` and Program members have none).
    ``ctext``: the declared C type text (for the value range of an int).
    """

    name: str
    kind: str
    cls: type | None = None
    cinfo: abi.TypeInfo | None = None
    enum: str | None = None
    count: str | None = None
    union: str | None = None
    in_c: bool = False
    ctext: str | None = None

    # the Optional fields a member's kind guarantees, for the converters (asserted, not assumed)
    @property
    def enum_name(self) -> str:
        """``enum`` of an ENUM or FLAGS member."""
        assert self.enum is not None, (self.name, self.kind)
        return self.enum

    @property
    def model_class(self) -> type[Any]:
        """``cls`` of a STRUCT, LIST, REF or REFLIST member."""
        assert self.cls is not None, (self.name, self.kind)
        return self.cls

    @property
    def c_info(self) -> abi.TypeInfo:
        """``cinfo`` of a STRUCT or LIST member the C desc has (``in_c``)."""
        assert self.cinfo is not None, (self.name, self.kind)
        return self.cinfo


def _is_named(cls: type) -> bool:
    return cls in _COLLECTION_OF


def _element_info(ftype: str) -> abi.TypeInfo | None:
    """TypeInfo of the pointee of a ``const T *`` member (None for opaque COM interfaces)."""
    name = ftype.replace("const", "").replace("*", "").strip()
    try:
        return abi.type_info(name)
    except ABIError:
        return None


class _MemberBase(typing.TypedDict):
    """The Member fields every kind shares (what _build_members reads off the C field)."""

    name: str
    in_c: bool
    union: str | None
    ctext: str | None


_MEMBERS: dict[tuple[type, str | None], tuple[Member, ...]] = {}
def members(cls: type, cinfo: abi.TypeInfo | None) -> tuple[Member, ...]:
    """The member table of model class ``cls`` mirrored onto C type ``cinfo`` (None: no C counterpart)."""
    key = (cls, cinfo.name if cinfo else None)
    table = _MEMBERS.get(key)
    if table is None:
        table = _MEMBERS[key] = _build_members(cls, cinfo)
    return table


def _build_members(cls: type, cinfo: abi.TypeInfo | None) -> tuple[Member, ...]:
    hints = typing.get_type_hints(cls, vars(model), vars(model))
    cfields = {f.name: f for f in cinfo.fields} if cinfo else {}
    enums = set(abi.default.enum_names())
    out: list[Member] = []
    covered: set[str] = set()
    for f in dataclasses.fields(cls):
        if f.name == "name":
            continue
        hint = hints[f.name]
        cf = cfields.get(f.name)
        covered.add(f.name)
        base: _MemberBase = {"name": f.name, "in_c": cf is not None, "union": cf.union if cf else None,
                             "ctext": cf.type if cf else None}
        if typing.get_origin(hint) is list:
            (elem,) = typing.get_args(hint)
            count: str | None = "Num" + f.name[1:]
            if count in cfields:
                covered.add(count)
            else:
                count = None
            if _is_named(elem):
                out.append(Member(kind=REFLIST, cls=elem, count=count, **base))
            else:
                out.append(Member(kind=LIST, cls=elem, cinfo=_element_info(cf.type) if cf else None, count=count,
                                  **base))
        elif isinstance(hint, types.UnionType):
            (target,) = [a for a in typing.get_args(hint) if a is not type(None)]
            out.append(Member(kind=STR, **base) if target is str else Member(kind=REF, cls=target, **base))
        elif isinstance(hint, type) and dataclasses.is_dataclass(hint):
            nested = None
            if cf is not None:
                nested = cf.nested or abi.type_info(cf.type)
            out.append(Member(kind=STRUCT, cls=hint, cinfo=nested, **base))
        elif hint is bytes:
            out.append(Member(kind=HEX, **base))
        elif hint is float:
            out.append(Member(kind=FLOAT, **base))
        elif hint is int:
            if cf is not None and cf.type in enums:
                out.append(Member(kind=FLAGS if abi.is_flag_enum(cf.type) else ENUM, enum=cf.type, **base))
            else:
                out.append(Member(kind=INT, **base))
        else:  # pragma: no cover - a model class with a member kind this module does not know
            raise TypeError(f"{cls.__name__}.{f.name}: unsupported annotation {hint!r}")
    missing = set(cfields) - covered
    if missing:  # pragma: no cover - the model must mirror the C desc member for member
        assert cinfo is not None  # (only a C type has fields)
        raise D3D12WLError(f"model class {cls.__name__} lacks C members {sorted(missing)} of {cinfo.name}")
    return tuple(out)


def _desc_info(cls: type, ctype: str | None = None) -> abi.TypeInfo | None:
    name = ctype or C_DESC.get(cls)
    return abi.type_info(name) if name else None


def selected_union_member(obj: object) -> str | None:
    """The anonymous-union member the discriminator of ``obj`` selects, or None (none, or unknown discriminator)."""
    try:
        if isinstance(obj, WorkListArgumentDesc | IndirectArgumentDesc):
            return arg_type_info(obj.type_name).union_member
        if isinstance(obj, RootParameter1):
            return ROOT_PARAMETER_UNION_MEMBER.get(obj.parameter_type_name)
    except D3D12WLError:
        return None
    return None


def _discriminator(obj: object) -> str:
    return "ParameterType" if isinstance(obj, RootParameter1) else "Type"


@cache
def _nested_c_infos() -> dict[type, abi.TypeInfo | None]:
    """The C type each model class mirrors, found by walking the member tables from the named classes' descs (a
    nested class's C type is its parent member's: ``RootParameter1`` is ``D3D12_ROOT_PARAMETER1``)."""
    found: dict[type, abi.TypeInfo | None] = {}
    todo = [(cls, _desc_info(cls)) for cls in COLLECTIONS.values()]
    while todo:
        cls, cinfo = todo.pop()
        if cls in found:
            continue
        found[cls] = cinfo
        todo += [(m.model_class, m.cinfo) for m in members(cls, cinfo) if m.kind in (STRUCT, LIST)]
    return found


def member_c_info(cls: type) -> abi.TypeInfo | None:
    """The C type model class ``cls`` mirrors (None where it has none: a ``Program``), as the loader pairs them."""
    return _nested_c_infos().get(cls)


@cache
def _repr_table(cls: type) -> tuple[tuple[str, str, str | None, bool], ...]:
    """The member table :func:`d3d12wl.model.objects.compact_repr` reads (registered below)."""
    return tuple((m.name, m.kind, m.enum, m.union is not None) for m in members(cls, member_c_info(cls)))


model.register_member_table(_repr_table)


def _is_default(value: object) -> bool:
    return model.is_zero(value)


def _path(parent: str, name: str) -> str:
    return f"{parent}.{name}" if parent else name


# ----------------------------------------------------------------------------------------------------------------
# JSON -> model
# ----------------------------------------------------------------------------------------------------------------


#: the root-signature budget in DWORDs (d3d12.h) and the members that count DWORDs of a root-constant range
ROOT_BUDGET = "D3D12_MAX_ROOT_COST"
DWORD_COUNTS = frozenset({"Num32BitValues", "Num32BitValuesToSet", "DestOffsetIn32BitValues"})


#: A member path not yet formatted: a formatted path, or ``(parent, member name or list index)``.  The loader builds
#: one per nested object and formats it only for an error (:func:`_where`), so a valid description of 100,000
#: arguments costs no path strings.
_Where = str | tuple[Any, str | int]


def _where(where: _Where) -> str:
    """The member path ``where`` stands for (``program_command_signatures.PCS.pArgumentDescs[1].Source``)."""
    parts: list[str | int] = []
    while not isinstance(where, str):
        where, part = where
        parts.append(part)
    for part in reversed(parts):
        where = f"{where}[{part}]" if isinstance(part, int) else _path(where, part)
    return where


#: How the loader converts one member: ``convert(loader, raw, parent)`` is the member's value from its JSON ``raw``,
#: or ``_BAD`` after the loader has recorded why; ``parent`` is the path of the object that holds the member.
_Converter = typing.Callable[["_Loader", Any, _Where], Any]
#: One loader step for a member table and the keys an object writes: the (array, count member) pairs to check,
#: (JSON key, converter) in member order (as C declares them), and the union members written (checked against the
#: discriminator once every member is set).
_Step = tuple[tuple[tuple[str, str], ...], tuple[tuple[str, _Converter], ...], tuple[str, ...]]


class _Plan:
    """How the loader fills one model class mirrored onto one C type: a converter per member, made once, and a
    :data:`_Step` per distinct tuple of keys written (a description of 100,000 arguments has a handful)."""

    #: distinct key tuples remembered per plan (a step is also cheap to recompute, so a hostile document of many
    #: key orders costs time linear in its size, not memory)
    MAX_STEPS = 256

    def __init__(self, cls: type, table: tuple[Member, ...]) -> None:
        self.cls = cls
        self.table = table
        #: the member that selects the union member (checked only where a union member is written), and the union
        #: member each of its values selects (selected_union_member, which reads nothing else)
        self.discriminator = "ParameterType" if issubclass(cls, RootParameter1) else "Type"  # (_discriminator)
        self.selected: dict[Any, str | None] = {}
        self.position = {m.name: i for i, m in enumerate(table)}
        self.counted = tuple((m.name, m.count) for m in table if m.count)
        self.unions = tuple(m.name for m in table if m.union)
        self.converters: dict[str, _Converter] = {}
        self.steps: dict[tuple[str, ...], _Step] = {}

    def step(self, keys: tuple[str, ...]) -> _Step:
        step = self.steps.get(keys)
        if step is None:
            keyset = set(keys)
            written = sorted((self.position[k], k) for k in keyset if k in self.position)  # (counts are no members)
            step = (tuple((name, count) for name, count in self.counted if count in keyset),
                    tuple((name, self.converter(name)) for _, name in written),
                    tuple(name for name in self.unions if name in keyset))
            if len(self.steps) < self.MAX_STEPS:
                self.steps[keys] = step
        return step

    def converter(self, name: str) -> _Converter:
        convert = self.converters.get(name)
        if convert is None:
            convert = self.converters[name] = _converter(self.table[self.position[name]])
        return convert


_PLANS: dict[tuple[type, str | None], _Plan] = {}


def _plan(cls: type, cinfo: abi.TypeInfo | None) -> _Plan:
    key = (cls, cinfo.name if cinfo else None)
    plan = _PLANS.get(key)
    if plan is None:
        plan = _PLANS[key] = _Plan(cls, members(cls, cinfo))
    return plan


def _converter(m: Member) -> _Converter:
    """The converter of member ``m`` (see :data:`_Converter`)."""
    name = m.name

    if m.kind == INT:
        dwords = name in DWORD_COUNTS

        def convert_int(loader: _Loader, raw: Any, parent: _Where) -> Any:
            if not isinstance(raw, int):  # 1.0 or -0.0: what JSON Schema calls an integer is not one
                loader.error((parent, name), f"{raw!r} is not an integer")
                return _BAD
            if dwords and raw > loader.root_budget:
                # a root-constant range larger than a whole root signature cannot be created; nothing sizes an
                # allocation by it (a hostile 0x7FFFFFFF would be 8 GB of DWORDs per execution)
                loader.error((parent, name), f"{name} {raw} is more DWORDs than a root signature holds "
                                             f"({ROOT_BUDGET} = {loader.root_budget})")
                return _BAD
            return raw
        return convert_int
    if m.kind == STR:
        return lambda loader, raw, parent: raw
    if m.kind == FLOAT:
        return lambda loader, raw, parent: float(raw)
    if m.kind == HEX:
        return lambda loader, raw, parent: bytes.fromhex(raw)
    if m.kind in (ENUM, FLAGS):
        enum_name = m.enum_name
        known: dict[str, int] = {}  # names this member has resolved (a bounded set: the enum's spellings)

        def convert_enum(loader: _Loader, raw: Any, parent: _Where, where: _Where | None = None) -> Any:
            try:
                return known[raw]
            except (KeyError, TypeError):  # (TypeError: a list or an object, which the slow path reports)
                pass
            value = loader.enum_value(enum_name, raw, (parent, name) if where is None else where)
            if value is not _BAD and isinstance(raw, str):
                known[raw] = value
            return value
        if m.kind == ENUM:
            return convert_enum

        def convert_flags(loader: _Loader, raw: Any, parent: _Where) -> Any:
            if isinstance(raw, int):
                return raw
            where = (parent, name)
            if not isinstance(raw, list):
                loader.error(where, f"{raw!r} is neither an integer nor a list of {enum_name} member names")
                return _BAD
            bits = 0
            for i, item in enumerate(raw):
                v = convert_enum(loader, item, parent, (where, i))
                bits |= 0 if v is _BAD else v
            return bits
        return convert_flags
    if m.kind in (STRUCT, LIST):
        cls, plan = m.model_class, _plan(m.model_class, m.cinfo)

        def convert_struct(loader: _Loader, raw: Any, parent: _Where) -> Any:
            obj = cls()
            loader.fill(obj, plan, raw, (parent, name))
            return obj
        if m.kind == STRUCT:
            return convert_struct

        def convert_list(loader: _Loader, raw: Any, parent: _Where) -> Any:
            where, fill = (parent, name), loader.fill
            out = []
            for i, item in enumerate(raw):
                obj = cls()
                fill(obj, plan, item, (where, i))
                out.append(obj)
            return out
        return convert_list
    if m.kind in (REF, REFLIST):
        target = m.model_class
        if m.kind == REF:
            return lambda loader, raw, parent: loader.ref(target, raw, (parent, name))

        def convert_refs(loader: _Loader, raw: Any, parent: _Where) -> Any:
            where = (parent, name)
            refs = [loader.ref(target, item, (where, i)) for i, item in enumerate(raw)]
            return [r for r in refs if r is not _BAD]
        return convert_refs
    raise AssertionError(m.kind)  # pragma: no cover


class _Loader:
    def __init__(self, objects: ObjectSet) -> None:
        self.objects = objects
        self.errors: list[DescriptionError] = []
        self.root_budget = abi.constant(ROOT_BUDGET)

    def error(self, where: _Where, message: str) -> None:
        self.errors.append(DescriptionError(message, where=_where(where)))

    def fill(self, obj: object, plan: _Plan, data: dict[str, Any], where: _Where) -> None:
        keys = tuple(data)
        counted, writes, unions = plan.steps.get(keys) or plan.step(keys)
        for name, count in counted:
            n = len(data.get(name, []))
            if data[count] != n:
                self.error((where, count), f"{count} is {data[count]} but {name} has {n} element(s)")
        for name, convert in writes:
            value = convert(self, data[name], where)
            if value is not _BAD:
                setattr(obj, name, value)
        if unions:
            self.check_union(obj, plan, unions, where)

    def check_union(self, obj: object, plan: _Plan, written: tuple[str, ...], where: _Where) -> None:
        disc = plan.discriminator
        value = getattr(obj, disc)
        try:
            selected = plan.selected[value]
        except (KeyError, TypeError):  # (TypeError: an unhashable value, which no converter returns)
            selected = selected_union_member(obj)
            if len(plan.selected) < plan.MAX_STEPS and isinstance(value, int):
                plan.selected[value] = selected
        for name in written:
            if name != selected:
                what = f"selects {selected}" if selected else "selects no union member"
                self.error((where, name), f"union member {name} is not the one {disc} {value!r} uses ({disc} {what})")

    def enum_value(self, enum_name: str, raw: Any, where: _Where) -> Any:
        if isinstance(raw, int):
            return raw
        if not isinstance(raw, str):
            self.error(where, f"{raw!r} is neither an integer nor a {enum_name} member name")
            return _BAD
        try:
            return abi.enum_value(enum_name, raw)
        except D3D12WLError as exc:
            self.error(where, exc.message)
            return _BAD

    def ref(self, cls: type, name: str | None, where: _Where) -> Any:
        if name is None:
            return None
        coll = _COLLECTION_OF[cls]
        target = getattr(self.objects, coll).get(name)
        if target is None:
            others = [k for k in COLLECTIONS if k != coll and name in getattr(self.objects, k)]
            hint = f" ({name!r} is in {others[0]})" if others else ""
            known = ", ".join(getattr(self.objects, coll)) or "none"
            self.error(where, f"no object named {name!r} in {coll}{hint}; known: {known}")
            return _BAD
        return target


_BAD = object()


def read_document(data: dict[str, Any] | str | Path) -> dict[str, Any]:
    """The JSON object of a description (a dict as is, JSON text, a file path, or ``-`` for stdin), read within the
    bounds of :mod:`d3d12wl.inputs`; errors name the file and line."""
    if isinstance(data, dict):
        return data
    try:
        if isinstance(data, str) and data.lstrip().startswith("{"):
            origin = "<string>"
            parsed = inputs.parse_json(data, where=origin)
        else:
            origin = "<stdin>" if str(data) == inputs.STDIN else str(data)
            parsed = inputs.load_json(data, what="description")
    except inputs.InputError as exc:
        raise DescriptionError(exc.message, where=exc.where) from None
    if not isinstance(parsed, dict):
        raise DescriptionError("a description is a JSON object of collections", where=origin)
    return parsed


#: top-level key naming the engine struct of each record class (read by d3d12wl.headercheck.records)
RECORD_STRUCTS = "record_structs"


def load(data: dict[str, Any] | str | Path, *, ignore_keys: Collection[str] = ()) -> ObjectSet:
    """An :class:`ObjectSet` from a JSON description (a dict, JSON text, or a file path).

    ``ignore_keys``: top-level keys that are not description collections (a capture's ``memory``, ``state``, ...).
    Raises :class:`DescriptionErrors` with every problem found.
    """
    with inputs.paused_cycle_collection():  # (reading and loading make no reference cycles)
        doc = {k: v for k, v in read_document(data).items() if k not in ignore_keys}
        schema_errors = validate_schema(doc)
        if schema_errors:
            raise DescriptionErrors(schema_errors)
        objects = ObjectSet()
        for key, cls in COLLECTIONS.items():  # every object exists before any reference is resolved
            getattr(objects, key).update({name: cls(name=name) for name in doc.get(key, {})})
        loader = _Loader(objects)
        for key, cls in COLLECTIONS.items():
            for name, body in doc.get(key, {}).items():
                loader.fill(getattr(objects, key)[name], _plan(cls, _desc_info(cls)), body, f"{key}.{name}")
        for key in ("program_command_signatures", "command_signatures"):
            for name, signature in getattr(objects, key).items():
                for where, message in fieldnames.check_names(signature.pArgumentDescs,
                                                             f"{key}.{name}.pArgumentDescs"):
                    loader.error(where, message)
    if loader.errors:
        raise DescriptionErrors(loader.errors)
    return objects


# ----------------------------------------------------------------------------------------------------------------
# model -> JSON
# ----------------------------------------------------------------------------------------------------------------


def _enum_json(enum_name: str, value: int) -> str | int:
    try:
        return abi.enum_short_name(enum_name, value)
    except D3D12WLError:
        return value


def _flags_json(enum_name: str, value: int) -> list[str] | int:
    names, rest = [], value
    for bit in abi.enum_members(enum_name).values():
        if bit and value & bit == bit:
            names.append(abi.enum_short_name(enum_name, bit))
            rest &= ~bit
    return value if rest else names


def _dump_obj(obj: object, cinfo: abi.TypeInfo | None, objects: ObjectSet, where: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for m in members(type(obj), cinfo):
        value = getattr(obj, m.name)
        if m.kind == ENUM:
            out[m.name] = _enum_json(m.enum_name, value)
            continue
        if _is_default(value):
            continue
        path = _path(where, m.name)
        if m.kind in (INT, FLOAT, STR):
            out[m.name] = value
        elif m.kind == FLAGS:
            out[m.name] = _flags_json(m.enum_name, value)
        elif m.kind == HEX:
            out[m.name] = value.hex()
        elif m.kind == STRUCT:
            out[m.name] = _dump_obj(value, m.cinfo, objects, path)
        elif m.kind == LIST:
            out[m.name] = [_dump_obj(v, m.cinfo, objects, f"{path}[{i}]") for i, v in enumerate(value)]
        elif m.kind == REF:
            out[m.name] = _ref_name(value, objects, path)
        elif m.kind == REFLIST:
            out[m.name] = [_ref_name(v, objects, f"{path}[{i}]") for i, v in enumerate(value)]
    return out


def _ref_name(target: Any, objects: ObjectSet, where: str) -> str:
    coll = _COLLECTION_OF[type(target)]
    if getattr(objects, coll).get(target.name) is not target:
        raise DescriptionError(f"refers to {target.name!r}, which is not the object of that name in {coll}",
                               where=where)
    return target.name


def dump(objects: ObjectSet) -> dict[str, Any]:
    """The canonical JSON description of ``objects`` (see the module docstring); empty collections omitted."""
    doc: dict[str, Any] = {}
    for key, cls in COLLECTIONS.items():
        coll = getattr(objects, key)
        if coll:
            doc[key] = {name: _dump_obj(obj, _desc_info(cls), objects, f"{key}.{name}") for name, obj in coll.items()}
    return doc


# ----------------------------------------------------------------------------------------------------------------
# The JSON Schema, generated from the same member tables; the shipped file is this function's output
# ----------------------------------------------------------------------------------------------------------------

_INT_RANGE = {"uint32_t": (0, 2**32 - 1), "int32_t": (-(2**31), 2**31 - 1), "uint64_t": (0, 2**64 - 1)}
ENUM_KEYWORD = "x-d3d12wl-enum"


def _int_schema(ctext: str | None) -> dict[str, Any]:
    lo, hi = _INT_RANGE.get(abi.default.resolve(ctext) if ctext else "uint32_t", _INT_RANGE["uint32_t"])
    return {"type": "integer", "minimum": lo, "maximum": hi}


def _enum_def(enum_name: str) -> dict[str, Any]:
    full = list(abi.enum_members(enum_name))
    prefix = abi.default.enum_prefix(enum_name)
    return {"description": f"{enum_name}: full or short member name, or an integer", ENUM_KEYWORD: enum_name,
            "anyOf": [_int_schema("uint32_t"), {"enum": full + [n[len(prefix):] for n in full]}]}


def build_schema() -> dict[str, Any]:
    """The JSON Schema of a description, from the model classes and the compiled headers."""
    defs: dict[str, Any] = {}

    def enum_ref(enum_name: str) -> dict[str, Any]:
        defs.setdefault(f"enum.{enum_name}", _enum_def(enum_name))
        return {"$ref": f"#/$defs/enum.{enum_name}"}

    def obj_ref(cls: type, cinfo: abi.TypeInfo | None) -> dict[str, Any]:
        key = cls.__name__ if cinfo is None or cinfo.name.startswith("struct") else f"{cls.__name__}.{cinfo.name}"
        if key not in defs:
            defs[key] = {}
            props: dict[str, Any] = {}
            for m in members(cls, cinfo):
                if m.count:
                    props[m.count] = {**_int_schema("uint32_t"), "description": f"optional; must equal len({m.name})"}
                if m.kind == INT:
                    props[m.name] = _int_schema(m.ctext)
                elif m.kind == FLOAT:
                    props[m.name] = {"type": "number"}
                elif m.kind == ENUM:
                    props[m.name] = enum_ref(m.enum_name)
                elif m.kind == FLAGS:
                    props[m.name] = {"anyOf": [_int_schema("uint32_t"),
                                               {"type": "array", "items": enum_ref(m.enum_name)}]}
                elif m.kind == STR and m.name == fieldnames.NAME_MEMBER:
                    props[m.name] = {"type": ["string", "null"], "pattern": fieldnames.C_IDENTIFIER_PATTERN,
                                     "description": "not a C member: the name of this argument's member in its "
                                                    "record (a C identifier, unique within the signature; without "
                                                    "it the member is arg{index}_{...})"}
                elif m.kind == STR:
                    props[m.name] = {"type": ["string", "null"]}
                elif m.kind == HEX:
                    size = abi.sizeof("D3D12_PROGRAM_IDENTIFIER")
                    props[m.name] = {"type": "string", "pattern": f"^[0-9a-fA-F]{{{2 * size}}}$",
                                     "description": f"the {size}-byte D3D12_PROGRAM_IDENTIFIER as {2 * size} hex "
                                                    "digits"}
                elif m.kind == STRUCT:
                    props[m.name] = obj_ref(m.model_class, m.cinfo)
                elif m.kind == LIST:
                    props[m.name] = {"type": "array", "items": obj_ref(m.model_class, m.cinfo)}
                elif m.kind == REF:
                    props[m.name] = {"type": ["string", "null"],
                                     "description": f"name of an object in {_COLLECTION_OF[m.model_class]}"}
                elif m.kind == REFLIST:
                    props[m.name] = {"type": "array", "items": {"type": "string"},
                                     "description": f"names of objects in {_COLLECTION_OF[m.model_class]}"}
            defs[key] = {"type": "object", "additionalProperties": False, "properties": props}
            if cinfo is not None and not cinfo.name.startswith("struct"):
                defs[key]["description"] = cinfo.name
        return {"$ref": f"#/$defs/{key}"}

    props = {key: {"type": "object", "additionalProperties": obj_ref(cls, _desc_info(cls))}
             for key, cls in COLLECTIONS.items()}
    props[RECORD_STRUCTS] = {
        "type": "object", "additionalProperties": {"type": "string", "minLength": 1},
        "description": "optional: record class ('PCS.secondary', 'Opaque.program_table', 'EI.command') -> the "
                       "C/C++ struct an engine declares for it, checked by `d3d12wl abi check --header H "
                       "--signature THIS`; not an object collection",
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://d3d12wl.invalid/description.schema.json",
        "title": "d3d12wl JSON description of Work Lists and ExecuteIndirect objects",
        "description": "Generated by d3d12wl.model.description.build_schema() from the model and the compiled headers; "
                       "members mirror the C desc structs (design.md, 'The JSON description of objects').",
        "type": "object",
        "additionalProperties": False,
        "properties": props,
        "$defs": dict(sorted(defs.items())),
    }


@cache
def schema() -> dict[str, Any]:
    """The shipped schema (``d3d12wl/model/description.schema.json``)."""
    text = resources.files("d3d12wl.model").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8")
    return json.loads(text)


def write_schema(path: Path | None = None) -> Path:
    """Regenerate the shipped schema file (run after changing the model or the headers)."""
    target = path or Path(__file__).resolve().parent / SCHEMA_RESOURCE
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(build_schema(), indent=1) + "\n", encoding="utf-8")
    return target


def _json_path(parts: Iterator[Any]) -> str:
    out = ""
    for p in parts:
        out = f"{out}[{p}]" if isinstance(p, int) else _path(out, str(p))
    return out


@cache
def _fast_validator() -> Any:
    """jsonschema-rs's validator of the schema (Rust: 100,000 arguments in about 0.2 s, where the Python validator
    takes about 40 s), or None where it is not installed.  It only says whether a document is valid; the messages of
    an invalid one come from the Python validator, and the loader refuses the integer-valued floats it lets pass."""
    # jsonschema-rs imports decimal from Rust (as it is imported and on its first use), and an interrupt (Ctrl-C)
    # landing in that import is a Rust panic, not a KeyboardInterrupt: imported first, where an interrupt is Python's
    # own (found by tools/fuzz.py --kinds cli, an interrupt a few milliseconds into `d3d12wl layout`)
    import decimal  # noqa: F401

    try:
        import jsonschema_rs
    except ImportError:  # pragma: no cover - a platform without its wheel
        return None
    return jsonschema_rs.validator_for(schema())


def fast_valid(doc: Any) -> bool:
    """True when jsonschema-rs calls ``doc`` valid; False when it does not, is not installed, or cannot take the
    document at all (a lone surrogate, an integer past 64 bits): the Python validator then decides."""
    fast = _fast_validator()
    if fast is None:
        return False
    try:
        return bool(fast.is_valid(doc))
    except (UnicodeError, ValueError, OverflowError, TypeError):
        return False


def validate_schema(doc: dict[str, Any]) -> list[DescriptionError]:
    """Every schema violation of ``doc``, each with its member path."""
    if fast_valid(doc):
        return []
    validator = inputs.schema_validator(schema())
    errors = []
    for err in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        while err.validator == "anyOf" and err.context and ENUM_KEYWORD not in err.schema:
            err = max(err.context, key=lambda e: len(e.absolute_path))  # a flags list: blame the bad element
        where = _json_path(iter(err.absolute_path)) or "<top level>"
        enum_name = err.schema.get(ENUM_KEYWORD) if isinstance(err.schema, dict) else None
        if enum_name:
            prefix = abi.default.enum_prefix(enum_name)
            shorts = [n[len(prefix):] for n in abi.enum_members(enum_name)]
            hint = did_you_mean(err.instance.removeprefix(prefix), shorts, enum_synonyms(enum_name)) \
                if isinstance(err.instance, str) else ""
            message = (f"{err.instance!r} is not a {enum_name} member (full or short name) or integer{hint}; valid: "
                       f"{', '.join(shorts)}")
        elif err.validator == "pattern" and err.absolute_path and err.absolute_path[-1] == fieldnames.NAME_MEMBER:
            message = fieldnames.name_problem(err.instance) or err.message
        elif err.validator == "additionalProperties" and isinstance(err.instance, dict):
            known = err.schema.get("properties", {}) if isinstance(err.schema, dict) else {}
            unknown = [k for k in err.instance if k not in known]
            message = "unknown member(s) " + ", ".join(f"{k!r}{did_you_mean(k, known)}" for k in unknown)
            if known:
                message += f"; members: {', '.join(known)}"
        else:
            message = err.message
        errors.append(DescriptionError(message, where=where))
    return errors


# ----------------------------------------------------------------------------------------------------------------
# model <-> cffi desc structs
# ----------------------------------------------------------------------------------------------------------------

_HANDLE_BASE = 0x7FF0_0000_0000
_HANDLE_STEP = 0x100


class HandleRegistry:
    """Fake non-null COM interface pointers for objects (C descs hold ``ID3D12RootSignature *`` etc. opaquely)."""

    def __init__(self) -> None:
        self._objects: dict[int, object] = {}
        self._handles: dict[int, int] = {}

    def handle(self, obj: object) -> int:
        h = self._handles.get(id(obj))
        if h is None:
            h = _HANDLE_BASE + _HANDLE_STEP * (len(self._objects) + 1)
            self._handles[id(obj)] = h
            self._objects[h] = obj
        return h

    def lookup(self, handle: int, where: str) -> object:
        try:
            return self._objects[handle]
        except KeyError:
            raise DescriptionError(f"interface pointer 0x{handle:x} is not a handle of this registry",
                                   where=where) from None

    def __len__(self) -> int:
        return len(self._objects)


@dataclass
class CDesc:
    """A C desc built by :func:`to_cffi`: ``cdata`` (a ``T *``) and everything it points to, kept alive here.

    ``registry`` maps the fake interface pointers in it back to objects; ``extras`` holds the C values of model
    members the desc struct has no member for (``CommandSignature.pRootSignature``, the CreateCommandSignature
    argument).
    """

    cdata: Any
    ctype: str
    registry: HandleRegistry
    keepalive: list[Any] = field(default_factory=list)
    extras: dict[str, Any] = field(default_factory=dict)

    @property
    def struct(self) -> Any:
        return self.cdata[0]


def _ptr_type(cdata: Any, name: str) -> Any:
    return abi.ffi.typeof(getattr(cdata, name))


class _CWriter:
    def __init__(self, registry: HandleRegistry, keepalive: list[Any]) -> None:
        self.registry = registry
        self.keepalive = keepalive

    def ptr(self, ctype: Any, target: object | None) -> Any:
        return abi.ffi.NULL if target is None else abi.ffi.cast(ctype, self.registry.handle(target))

    def fill(self, c: Any, obj: object, cinfo: abi.TypeInfo, where: str) -> None:
        table = members(type(obj), cinfo)
        selected = selected_union_member(obj)
        for m in table:
            value = getattr(obj, m.name)
            path = _path(where, m.name)
            if m.union and m.name != selected:
                if not _is_default(value):
                    raise DescriptionError(f"union member {m.name} is set but {_discriminator(obj)} selects "
                                           f"{selected or 'none'}; C holds only one", where=path)
                continue
            if not m.in_c:
                if m.kind not in (REF, STR) and not _is_default(value):  # (a STR member is description-only)
                    raise DescriptionError(f"{cinfo.name} has no member {m.name}; value {value!r} would be lost",
                                           where=path)
                continue
            if m.kind in _SCALARS:
                setattr(c, m.name, value)
            elif m.kind == STRUCT:
                self.fill(getattr(c, m.name), value, m.c_info, path)
            elif m.kind == LIST:
                arr = abi.ffi.new(abi.ffi.getctype(_ptr_type(c, m.name).item, "[]"), len(value))
                self.keepalive.append(arr)
                for i, item in enumerate(value):
                    self.fill(arr[i], item, m.c_info, f"{path}[{i}]")
                setattr(c, m.name, arr if value else abi.ffi.NULL)
            elif m.kind == REF:
                setattr(c, m.name, self.ptr(_ptr_type(c, m.name), value))
            elif m.kind == REFLIST:
                item = _ptr_type(c, m.name).item
                arr = abi.ffi.new(abi.ffi.getctype(item, "[]"), [self.ptr(item, v) for v in value])
                self.keepalive.append(arr)
                setattr(c, m.name, arr if value else abi.ffi.NULL)
            if m.count:
                setattr(c, m.count, len(value))


def to_cffi(obj: object, *, ctype: str | None = None, registry: HandleRegistry | None = None) -> CDesc:
    """The C desc struct of a named model object (``D3D12_PROGRAM_COMMAND_SIGNATURE_DESC`` for a
    :class:`ProgramCommandSignature`, ...).  ``ctype`` picks an alternative desc (``D3D12_ROOT_SIGNATURE_DESC1``,
    whose static samplers have no Flags).  Referenced objects become fake interface pointers from ``registry``
    (a new one if None)."""
    cls = type(obj)
    ctype = ctype or C_DESC.get(cls)
    if ctype is None or (ctype not in (C_DESC.get(cls),) and _ALSO_ACCEPTED.get(ctype) is not cls):
        raise DescriptionError(f"{cls.__name__} has no C desc {ctype or ''}".rstrip(), where=getattr(obj, "name", None))
    registry = registry if registry is not None else HandleRegistry()
    desc = CDesc(abi.ffi.new(f"{ctype} *"), ctype, registry)
    writer = _CWriter(registry, desc.keepalive)
    cinfo = abi.type_info(ctype)
    where = f"{_COLLECTION_OF[cls]}.{getattr(obj, 'name', '')}"
    writer.fill(desc.cdata[0], obj, cinfo, where)
    for m in members(cls, cinfo):
        if m.kind == REF and not m.in_c:
            iface = {RootSignature: "ID3D12RootSignature *"}[m.model_class]
            desc.extras[m.name] = writer.ptr(abi.ffi.typeof(iface), getattr(obj, m.name))
    return desc


class _CReader:
    def __init__(self, registry: HandleRegistry) -> None:
        self.registry = registry

    def ref(self, ptr: Any, where: str) -> object | None:
        if ptr == abi.ffi.NULL:
            return None
        return self.registry.lookup(int(abi.ffi.cast("uintptr_t", ptr)), where)

    def read(self, c: Any, cls: type, cinfo: abi.TypeInfo, where: str, **init: Any) -> Any:
        obj = cls(**init)
        table = members(cls, cinfo)
        for m in table:  # discriminators first: they decide which union member is read
            if m.in_c and not m.union and m.kind in _SCALARS:
                setattr(obj, m.name, getattr(c, m.name))
        selected = selected_union_member(obj)
        for m in table:
            if not m.in_c or (m.union and m.name != selected) or m.kind in _SCALARS:
                continue
            path = _path(where, m.name)
            if m.kind == STRUCT:
                setattr(obj, m.name, self.read(getattr(c, m.name), m.model_class, m.c_info, path))
                continue
            if m.kind == REF:
                setattr(obj, m.name, self.ref(getattr(c, m.name), path))
                continue
            n = getattr(c, m.count) if m.count else 0
            arr = getattr(c, m.name)
            if n and arr == abi.ffi.NULL:
                raise DescriptionError(f"{m.count} is {n} but {m.name} is NULL", where=path)
            if m.kind == LIST:
                setattr(obj, m.name, [self.read(arr[i], m.model_class, m.c_info, f"{path}[{i}]")
                                      for i in range(n)])
            else:
                setattr(obj, m.name, [self.ref(arr[i], f"{path}[{i}]") for i in range(n)])
        return obj


def from_cffi(cdata: Any, *, name: str, registry: HandleRegistry, **extras: Any) -> Any:
    """The model object of a C desc (a struct or a pointer to one).  Interface pointers are resolved through
    ``registry``; ``extras`` gives C values for model members the desc has no member for (``pRootSignature=``)."""
    ctype = abi.ffi.typeof(cdata)
    if ctype.kind == "pointer":
        cdata, ctype = cdata[0], ctype.item
    cname = ctype.cname.removeprefix("struct ")
    cls = _ALSO_ACCEPTED.get(cname) or next((k for k, v in C_DESC.items() if v == cname), None)
    if cls is None:
        raise DescriptionError(f"no model class mirrors {cname}", where=name)
    reader = _CReader(registry)
    where = f"{_COLLECTION_OF[cls]}.{name}"
    obj = reader.read(cdata, cls, abi.type_info(cname), where, name=name)
    for key, ptr in extras.items():
        setattr(obj, key, reader.ref(ptr, _path(where, key)))
    return obj


def to_cffi_all(objects: ObjectSet) -> dict[str, dict[str, CDesc]]:
    """Every C desc of a set, sharing one handle registry (so cross-references round-trip through from_cffi)."""
    registry = HandleRegistry()
    out: dict[str, dict[str, CDesc]] = {}
    for key, cls in COLLECTIONS.items():
        if C_DESC.get(cls):
            out[key] = {name: to_cffi(obj, registry=registry) for name, obj in getattr(objects, key).items()}
    return out


__all__ = [
    "COLLECTIONS",
    "CDesc",
    "DescriptionErrors",
    "HandleRegistry",
    "build_schema",
    "dump",
    "from_cffi",
    "load",
    "members",
    "schema",
    "selected_union_member",
    "to_cffi",
    "to_cffi_all",
    "validate_schema",
    "write_schema",
]
