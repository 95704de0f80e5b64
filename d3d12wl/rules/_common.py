"""Shared pieces of the creation-time validators: the :class:`Violation` record, a per-object collector, safe enum
name lookups (a desc may hold any integer), and the few D3D12 constants the rules read."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from typing import Any

from d3d12wl import abi
from d3d12wl.errors import D3D12WLError
from d3d12wl.model.argtypes import ArgTypeInfo, ExecutableClass, arg_type_info
from d3d12wl.model.objects import (
    IndirectArgumentDesc,
    ProgramCommandSignature,
    RootParameter1,
    WorkListArgumentDesc,
)
from d3d12wl.model.state import DeviceCaps
from d3d12wl.output.serialize import to_jsonable

#: Collections of an :class:`~d3d12wl.model.ObjectSet` (the first part of every violation path).
PCS_KIND = "program_command_signatures"
WLS_KIND = "work_list_signatures"
ARRAY_KIND = "work_list_signature_arrays"
CS_KIND = "command_signatures"
PROGRAM_KIND = "programs"
SET_PROGRAM_KIND = "set_program"
DEVICE_KIND = "device"


@dataclass(frozen=True)
class Violation:
    """One violated rule.

    ``rule``: the spec rule (``"rule 25(c)"``, numbering of design.md) or the section that states the requirement
    (``"_FIXED_DISPATCH"``, ``"Supported argument types"``, ``"Uniformity constraint 5"``,
    ``"IndirectDrawing Validation 4"``).  ``kind`` and ``name``: the offending object (its ObjectSet collection and
    its name).  ``arg``: the index in ``pArgumentDescs`` when one argument is at fault.  ``path``: the full member
    path (``program_command_signatures.PCS.pArgumentDescs[2].Source``).
    """

    rule: str
    kind: str
    name: str
    message: str
    arg: int | None = None
    path: str = ""

    def __str__(self) -> str:
        return f"{self.path or f'{self.kind}.{self.name}'}: [{self.rule}] {self.message}"

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = to_jsonable(self)
        return out


class ValidationError(D3D12WLError):
    """One or more creation-time validation rules are violated.

    ``violations`` holds every violation found (not only the first).
    """

    def __init__(self, violations: list[Violation], *, where: str | None = None) -> None:
        self.violations = list(violations)
        lines = "\n".join(f"  {v}" for v in self.violations)
        super().__init__(f"{len(self.violations)} validation error(s):\n{lines}", where=where)



@dataclass
class Sink:
    """Collects the violations of one object, building each member path from the object's kind and name."""

    kind: str
    name: str
    out: list[Violation] = field(default_factory=list)

    def add(self, rule: str, message: str, member: str | None = None, *, arg: int | None = None) -> None:
        path = f"{self.kind}.{self.name}" + (f".{member}" if member else "")
        self.out.append(Violation(rule, self.kind, self.name, message, arg, path))

    def arg(self, index: int, rule: str, message: str, member: str | None = None) -> None:
        self.add(rule, message, f"pArgumentDescs[{index}]" + (f".{member}" if member else ""), arg=index)


def short_name(enum_name: str, value: int) -> str | None:
    """The member's short name, or None when ``value`` is not a member of the enum."""
    try:
        return abi.enum_short_name(enum_name, value)
    except (D3D12WLError, ValueError, KeyError):
        return None


def enum_value(enum_name: str, member: str) -> int:
    return abi.enum_value(enum_name, member)


def tier2() -> int:
    return enum_value("D3D12_WORK_LISTS_TIER", "D3D12_WORK_LISTS_TIER_2")


def tier1() -> int:
    return enum_value("D3D12_WORK_LISTS_TIER", "D3D12_WORK_LISTS_TIER_1")


def is_tier2(caps: DeviceCaps) -> bool:
    return caps.Tier >= tier2()


@cache
def d3d12_constant(name: str) -> int:
    """A pre-existing d3d12.h constant the rules read, declared once in headers/d3d12wl_base.h."""
    return abi.constant(name)


@dataclass(slots=True)
class Arg:
    """One argument with its enum members decoded (None where the desc holds a value outside the enum), and what the
    rules ask of it on every pass, worked out once when it is decoded: whether its type's payload carries a
    RootParameterIndex (so Binding is meaningful for it) and that index, whether it is a dispatch trigger, whether it
    is an ``_INLINE_*`` local-root-signature arg.  Made once per argument, and never changed (not ``frozen``: a
    frozen dataclass costs five times as much to make, and a description can hold 100,000 arguments)."""

    index: int
    desc: WorkListArgumentDesc | IndirectArgumentDesc
    type: str | None
    info: ArgTypeInfo | None
    source: str | None
    binding: str | None
    #: the type's payload carries a RootParameterIndex (so Binding is meaningful for it)
    has_root_parameter: bool = False
    #: RootParameterIndex of the payload, for arg types that have one (else None)
    root_parameter_index: int | None = None
    is_trigger: bool = False
    is_inline_lrs: bool = False

    @property
    def wl(self) -> WorkListArgumentDesc:
        """The desc of a Work Lists arg (a program command signature's; decode_args asserts it): FixedDispatch,
        InlineRootParameter and InlineStaticSampler exist only there."""
        assert isinstance(self.desc, WorkListArgumentDesc)
        return self.desc

    @property
    def rpi_member(self) -> str:
        return self.payload_member("RootParameterIndex")

    def payload_member(self, member: str) -> str:
        """The member path of ``member`` of the arg's payload (its union member; an arg type that has one)."""
        assert self.info is not None and self.info.union_member is not None
        return f"{self.info.union_member}.{member}"

    def dword_range(self) -> tuple[int, int] | None:
        """[start, end) of the root-constant DWORDs a CONSTANT / INCREMENTING_CONSTANT arg writes."""
        if self.type == "CONSTANT":
            c = self.desc.Constant
            return c.DestOffsetIn32BitValues, c.DestOffsetIn32BitValues + c.Num32BitValuesToSet
        if self.type == "INCREMENTING_CONSTANT":
            start = self.desc.IncrementingConstant.DestOffsetIn32BitValues
            return start, start + 1
        return None


_INLINE_LRS_TYPES = frozenset({"INLINE_ROOT_PARAMETER", "INLINE_STATIC_SAMPLER"})


#: decoded argument lists, kept while :func:`decoding_once` is active (one check_objects call): key (id of the
#: list, work_lists) -> (the list itself, the decoded args, the reports made while decoding)
_DECODED: ContextVar[dict[tuple[int, bool], tuple[object, list[Arg], list[tuple[int, str, str, str]]]] | None] = (
    ContextVar("d3d12wl_rules_decoded", default=None))


@contextmanager
def decoding_once() -> Iterator[None]:
    """Within the block, each argument list is decoded once however many rules ask (the objects do not change
    during one validation); every caller's sink still receives the reports."""
    token = _DECODED.set({})
    try:
        yield
    finally:
        _DECODED.reset(token)


class _Reports:
    """A sink stand-in that records what decoding reports, to replay into later callers' sinks."""

    def __init__(self, sink: Sink) -> None:
        self.sink = sink
        self.made: list[tuple[int, str, str, str]] = []

    def arg(self, index: int, rule: str, message: str, member: str) -> None:
        self.made.append((index, rule, message, member))
        self.sink.arg(index, rule, message, member)


def decode_args(args: Iterable[WorkListArgumentDesc | IndirectArgumentDesc], sink: Sink, *,
                work_lists: bool = True) -> list[Arg]:
    """Decode every argument, reporting Type / Source / Binding values that are not members of their enums."""
    memo = _DECODED.get()
    if memo is None:
        return _decode_args(args, _Reports(sink), work_lists)
    key = (id(args), work_lists)
    hit = memo.get(key)
    if hit is not None and hit[0] is args:
        for report in hit[2]:
            sink.arg(*report)
        return list(hit[1])
    reports = _Reports(sink)
    decoded = _decode_args(args, reports, work_lists)
    memo[key] = (args, decoded, reports.made)
    return list(decoded)


#: What decoding says about one (Type, Source, Binding) triple, the same for every argument that has it: type name,
#: facts, source, binding, the union member holding a RootParameterIndex (None: the payload has none), trigger,
#: inline-LRS, and the members (Type, Source, Binding) whose value is not a member of its enum, each with its rule
#: and enum.
_Decoded = tuple[str | None, ArgTypeInfo | None, str | None, str | None, str | None, bool, bool,
                 tuple[tuple[str, str, str], ...]]


def _decode_triple(type_value: Any, source_value: Any, binding_value: Any, work_lists: bool) -> _Decoded:
    bad: list[tuple[str, str, str]] = []  # (member, rule, enum)
    type_name = short_name("D3D12_INDIRECT_ARGUMENT_TYPE", type_value)
    info = None
    if type_name is not None:
        try:
            info = arg_type_info(type_name)
        except D3D12WLError:
            type_name = None
    if info is None:
        bad.append(("Type", "Supported argument types", "D3D12_INDIRECT_ARGUMENT_TYPE"))
    source = binding = None
    if work_lists:
        source = short_name("D3D12_INDIRECT_ARGUMENT_SOURCE", source_value)
        if source is None:
            bad.append(("Source", "D3D12_INDIRECT_ARGUMENT_SOURCE", "D3D12_INDIRECT_ARGUMENT_SOURCE"))
        binding = short_name("D3D12_INDIRECT_ARGUMENT_BINDING", binding_value)
        if binding is None:
            bad.append(("Binding", "D3D12_INDIRECT_ARGUMENT_BINDING", "D3D12_INDIRECT_ARGUMENT_BINDING"))
    # (the desc's own root_parameter_index reads RootParameterIndex from the union member its Type selects)
    rpi_holder = info.union_member if info is not None and info.root_parameter_types else None
    return (type_name, info, source, binding, rpi_holder, info is not None and info.is_trigger,
            type_name in _INLINE_LRS_TYPES, tuple(bad))


def _decode_args(args: Iterable[WorkListArgumentDesc | IndirectArgumentDesc], sink: _Reports,
                 work_lists: bool) -> list[Arg]:
    out = []
    triples: dict[tuple[Any, Any, Any], _Decoded] = {}  # (a description of 100,000 arguments has a handful)
    key: tuple[Any, Any, Any]
    for i, desc in enumerate(args):
        if work_lists:
            assert isinstance(desc, WorkListArgumentDesc)
            key = (desc.Type, desc.Source, desc.Binding)
        else:
            key = (desc.Type, None, None)
        decoded = triples.get(key)
        if decoded is None:
            decoded = triples[key] = _decode_triple(key[0], key[1], key[2], work_lists)
        type_name, info, source, binding, rpi_holder, trigger, inline_lrs, bad = decoded
        if bad:
            for member, rule, enum in bad:
                sink.arg(i, rule, f"{member} {getattr(desc, member)} is not a {enum} value", member)
        rpi = None
        if rpi_holder is not None:
            rpi = getattr(getattr(desc, rpi_holder, None), "RootParameterIndex", None)
        out.append(Arg(i, desc, type_name, info, source, binding, rpi_holder is not None, rpi, trigger, inline_lrs))
    return out


def single_trigger_class(args: list[Arg]) -> ExecutableClass | None:
    """The executable class when the dispatch triggers (valid in Work Lists) agree on one; else None."""
    classes = {a.info.trigger_class for a in args if a.is_trigger and a.info is not None and a.info.wl}
    return classes.pop() if len(classes) == 1 else None


def pcs_class(pcs: ProgramCommandSignature) -> ExecutableClass | None:
    """The PCS's executable class, without reporting anything (None if undecidable)."""
    return single_trigger_class(decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name)))


def pcs_trigger(pcs: ProgramCommandSignature) -> ArgTypeInfo | None:
    triggers = [a.info for a in decode_args(pcs.pArgumentDescs, Sink(PCS_KIND, pcs.name))
                if a.is_trigger and a.info is not None and a.info.wl]
    return triggers[0] if len(triggers) == 1 else None


def is_hybrid(pcs: ProgramCommandSignature) -> bool:
    """Spec "Primary record layout": hybrid iff any arg has Source == SOURCE_SECONDARY_RECORD."""
    return any(short_name("D3D12_INDIRECT_ARGUMENT_SOURCE", a.Source) == "SECONDARY_RECORD"
               for a in pcs.pArgumentDescs)


def parameter_type(param: RootParameter1) -> str | None:
    return short_name("D3D12_ROOT_PARAMETER_TYPE", param.ParameterType)


class ParameterTypes:
    """:func:`parameter_type` of many root parameters (one per argument of 100,000), each ParameterType value looked
    up once."""

    def __init__(self) -> None:
        self.names: dict[int, str | None] = {}

    def __call__(self, param: RootParameter1) -> str | None:
        value = param.ParameterType
        try:
            return self.names[value]
        except KeyError:
            name = self.names[value] = parameter_type(param)
            return name


def overlaps(ranges: list[tuple[int, int]]) -> bool:
    return any(b[0] < a[1] for a, b in pairwise(ranges))


def descending_root_parameters(args: list[Arg]) -> Iterator[tuple[Arg, Arg]]:
    """``(arg, highest)`` for each of ``args`` (in order, each with a RootParameterIndex) whose RootParameterIndex is
    below that of ``highest``, the arg holding the highest index seen before it: where an ascending order breaks."""
    highest: Arg | None = None
    for a in args:
        rpi = a.root_parameter_index or 0
        if highest is not None and rpi < (highest.root_parameter_index or 0):
            yield a, highest
        else:
            highest = a


def shared_root_parameters(args: list[Arg]) -> Iterator[tuple[int, list[Arg], list[tuple[int, int]] | None]]:
    """``(rpi, group, ranges)`` for each RootParameterIndex that more than one of ``args`` targets: the args in
    order, and their root-constant DWORD ranges when every one of them writes root constants (else None)."""
    first: dict[int, Arg] = {}
    groups: dict[int, list[Arg]] = {}  # (only the indices targeted more than once: no list per argument)
    for a in args:
        rpi = a.root_parameter_index or 0
        head = first.setdefault(rpi, a)
        if head is not a:
            group = groups.get(rpi)
            if group is None:
                groups[head.root_parameter_index or 0] = [head, a]  # (keyed as its first argument has it)
            else:
                group.append(a)
    # in the order of each index's first argument, as a dict of every index would hold them
    for rpi, group in sorted(groups.items(), key=lambda item: item[1][0].index):
        ranges = [r for a in group if (r := a.dword_range()) is not None]
        yield rpi, group, ranges if len(ranges) == len(group) else None


def constants_in_order(group: list[Arg], ranges: list[tuple[int, int]], *, adjacent: bool) -> bool:
    """The DWORD ranges that ``group`` writes into one constants slot are in ascending DestOffsetIn32BitValues order
    without overlap (and, with ``adjacent``, the args are adjacent in pArgumentDescs)."""
    if adjacent and not all(b.index == a.index + 1 for a, b in pairwise(group)):
        return False
    return all(r1[0] < r2[0] for r1, r2 in pairwise(ranges)) and not overlaps(sorted(ranges))
