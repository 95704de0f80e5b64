"""The bytes a finding concerns: the record it names, read from the capture's memory, with the fields its layout
gives and the field the finding is about marked.

A finding says where it is (list, primary record, secondary record, command, and the byte ``va``) and which rule or
member of the spec it breaks (``rule``, often ``STRUCT::Member``).  :func:`finding_record` finds the record:

1. the records the finding's indices name, innermost first: the ExecuteIndirect command; the secondary record; the
   primary record; its program-table slot; the secondary record of that primary record whose bytes hold ``va`` (a
   finding about a secondary record's field is reported on its primary record); the list's
   ``D3D12_DISPATCH_LIST_INPUT`` / ``_INPUT1``;
2. the first of them whose bytes hold ``va``, with the field at ``va`` marked; else the innermost, with the member
   the rule names marked where the record has it.

Fields are the record layout's (:mod:`d3d12wl.records.layout`: the argument desc's ``Name`` where the description
gives one), a struct payload's members as ``name.Member``; the list headers' are the compiled headers' members
(:func:`d3d12wl.abi.type_info`).  Values are decoded by :mod:`d3d12wl.executor.decode`.  At most
:data:`WINDOW` bytes of a record are kept (those around the marked field), so a view is small whatever the stride.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cache

from d3d12wl import abi
from d3d12wl.capture.memory import VA_LIMIT, GpuMemory
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor.decode import decode
from d3d12wl.executor.trace import Finding, ListTrace, PrimaryRecordTrace, Trace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.fieldnames import PRIMARY_HEADER
from d3d12wl.model.objects import ObjectSet, RecordKind
from d3d12wl.model.state import ExecuteIndirectCall
from d3d12wl.records.layout import (
    HEX_STRUCTS,
    HEX_TYPES,
    PROGRAM_IDENTIFIER,
    RecordLayout,
    command_layout,
    pcs_layout,
    program_table_layout,
)

__all__ = ["ROW", "WINDOW", "RecordBytes", "Span", "finding_record"]

#: bytes per row of a hex view
ROW = 16
#: the most bytes of one record a view keeps
WINDOW = 256


@dataclass(frozen=True)
class Span:
    """One field of a record: ``name`` as the layout spells it (``named``: the user's ``Name``), ``offset`` and
    ``size`` from the record start, its C type and its value as text."""

    name: str
    offset: int
    size: int
    ctype: str
    value: str
    named: bool = False

    @property
    def end(self) -> int:
        return self.offset + self.size


@dataclass(frozen=True)
class RecordBytes:
    """The bytes of one record as a hex view shows them: the record at ``va`` of ``size`` bytes (``what`` it is,
    ``title`` which one), bytes ``start`` .. ``start + len(data) - 1`` of it (None where no memory is mapped), its
    fields, the one the finding concerns (``marked``, a span's name) and how that was decided (``note``)."""

    what: str
    title: str
    va: int
    size: int
    start: int
    data: tuple[int | None, ...]
    spans: tuple[Span, ...]
    marked: str | None
    note: str

    def span_at(self, offset: int) -> Span | None:
        for s in self.spans:
            if s.offset <= offset < s.end:
                return s
        return None


@dataclass(frozen=True)
class _Field:
    name: str
    offset: int
    size: int
    ctype: str
    count: int = 1
    named: bool = False
    hex: bool = False


@dataclass(frozen=True)
class _Candidate:
    what: str
    title: str
    va: int
    size: int
    fields: tuple[_Field, ...]


# -- fields and their values ---------------------------------------------------------------------------------------


@cache
def _enums() -> frozenset[str]:
    return frozenset(abi.enums())


@cache
def _struct(ctype: str) -> abi.TypeInfo | None:
    if ctype in _enums():
        return None
    try:
        return abi.type_info(ctype)
    except D3D12WLError:
        return None


def _leaves(name: str, offset: int, ctype: str, size: int, count: int, named: bool, hexed: bool) -> Iterator[_Field]:
    """The fields a hex view labels: a struct's members as ``name.Member`` (recursively); a struct of one member, a
    program identifier and an array as one field."""
    info = _struct(ctype) if count == 1 else None
    if info is None or ctype == PROGRAM_IDENTIFIER or len(info.fields) == 1:
        yield _Field(name, offset, size, ctype, count, named, hexed or ctype in HEX_TYPES or ctype in HEX_STRUCTS)
        return
    for m in info.fields:
        base = m.type.split("[", 1)[0].strip()
        yield from _leaves(f"{name}.{m.name}", offset + m.offset, base, m.size, m.array_length or 1, named,
                           hexed or ctype in HEX_STRUCTS)


def _layout_fields(layout: RecordLayout) -> tuple[_Field, ...]:
    hexed = layout.hex_dword_arrays
    return tuple(leaf for f in layout.fields
                 for leaf in _leaves(f.name, f.offset, f.ctype, f.size, f.count, f.named, f.name in hexed))


def _struct_fields(struct: str) -> tuple[_Field, ...]:
    info = _struct(struct)
    if info is None:
        return ()
    return tuple(leaf for m in info.fields
                 for leaf in _leaves(m.name, m.offset, m.type.split("[", 1)[0].strip(), m.size, m.array_length or 1,
                                     False, False))


def _value(f: _Field, data: Sequence[int | None], at: int) -> str:
    raw = data[at: at + f.size]
    if len(raw) < f.size or any(b is None for b in raw):
        return "(not mapped)" if any(b is None for b in raw) else "(not shown)"
    buf = bytes(b for b in raw if b is not None)
    if f.ctype == PROGRAM_IDENTIFIER or (f.count == 1 and _struct(f.ctype) is not None):
        return buf.hex()
    try:
        size = f.size // f.count
        values = [decode(f.ctype, buf, i * size) for i in range(f.count)]
    except (D3D12WLError, ValueError, KeyError, IndexError):
        return buf.hex()
    texts = [_text(f, v) for v in values]
    return texts[0] if f.count == 1 else "[" + ", ".join(texts) + "]"


def _text(f: _Field, value: object) -> str:
    if isinstance(value, float):
        return repr(value)
    if not isinstance(value, int):
        return str(value)
    if f.ctype in _enums():
        return abi.enum_text(f.ctype, value)
    return f"0x{value:x}" if f.hex else str(value)


# -- the records a finding names ------------------------------------------------------------------------------------


class _Place:
    """What a finding's indices name, looked up in the trace and the capture's objects."""

    def __init__(self, objects: ObjectSet, trace: Trace, call: object) -> None:
        self.objects, self.trace, self.call = objects, trace, call

    def list_of(self, f: Finding) -> ListTrace | None:
        if f.list_index is None or not 0 <= f.list_index < len(self.trace.lists):
            return None
        lst = self.trace.lists[f.list_index]
        return lst if lst.index == f.list_index else next((x for x in self.trace.lists if x.index == f.list_index),
                                                          None)

    @staticmethod
    def primary(lst: ListTrace, index: int) -> PrimaryRecordTrace | None:
        records = lst.primary_records
        if 0 <= index < len(records):
            prt = records[index]
            if prt.index == index:
                return prt
        return None

    def candidates(self, f: Finding) -> list[_Candidate]:
        out: list[_Candidate] = []
        if f.command_index is not None:
            out += self.command(f.command_index)
        lst = self.list_of(f)
        if lst is None:
            return out
        if f.primary_index is not None:
            prt = self.primary(lst, f.primary_index)
            where = f"list {lst.index}"
            if prt is not None and f.secondary_index is not None:
                out += self.secondary(prt, f.secondary_index, where)
            out += self.primary_record(lst, f.primary_index, prt, f.rule)
            if prt is not None:
                out += self.slot(prt, where)
                if f.va is not None and f.secondary_index is None:
                    out += self.secondary_at(prt, f.va, where)
        out += self.header(lst)
        return out

    def command(self, k: int) -> list[_Candidate]:
        call = self.call
        if not isinstance(call, ExecuteIndirectCall) or call.pCommandSignature is None:
            return []
        cs = call.pCommandSignature
        try:
            layout = command_layout(cs)
        except D3D12WLError:
            return []
        size = cs.ByteStride or layout.size
        return [_Candidate("command", f"command {k} of {cs.name!r}", call.ArgumentBuffer + k * size, size,
                           _layout_fields(layout))]

    def primary_record(self, lst: ListTrace, i: int, prt: PrimaryRecordTrace | None,
                       rule: str) -> list[_Candidate]:
        inputs = lst.header.get("ProgramInputs") or {}
        start, stride = inputs.get("StartAddress"), inputs.get("StrideInBytes")
        va = prt.va if prt is not None else (start + i * stride if isinstance(start, int) and isinstance(stride, int)
                                             else None)
        if va is None:
            return []
        pcs = self.objects.program_command_signatures.get(prt.pcs) if prt is not None and prt.pcs else None
        title = f"primary record {i} of list {lst.index}"
        if pcs is not None:
            layout = pcs_layout(pcs).primary
            return [_Candidate("primary record", f"{title} ({pcs.name})", va, max(stride or 0, layout.size),
                               _layout_fields(layout))]
        # no program command signature is known for it (its ProgramTableIndex selects no program, or it could not
        # be read): the header struct the rule names, if it names one; else, outside a raytracing-class list, the
        # ProgramTableIndex both of its possible headers start with (spec "Primary record layout": bytes [0..3] of
        # D3D12_WORK_LIST_PRIMARY_RECORD and of D3D12_WORK_LIST_INLINE_PRIMARY_RECORD)
        struct = rule.split("::", 1)[0] if "::" in rule else None
        if struct is None and lst.executable_class != ExecutableClass.RAYTRACING.value:
            struct = PRIMARY_HEADER[(False, RecordKind.INLINE)]
        fields = _struct_fields(struct) if struct else ()
        size = max(stride or 0, max((x.offset + x.size for x in fields), default=0)) or ROW
        return [_Candidate("primary record", f"{title} (no program command signature)", va, size, fields)]

    def secondary(self, prt: PrimaryRecordTrace, j: int, where: str) -> list[_Candidate]:
        pcs = self.objects.program_command_signatures.get(prt.pcs) if prt.pcs else None
        base = prt.fields.get("SecondaryRecords")
        if pcs is None or not isinstance(base, int):
            return []
        layout = pcs_layout(pcs).secondary
        if layout is None:
            return []
        stride = pcs.SecondaryRecordByteStride
        return [_Candidate("secondary record", f"secondary record {j} of primary record {prt.index} ({where}, "
                           f"{pcs.name})", base + j * stride, stride or layout.size, _layout_fields(layout))]

    def secondary_at(self, prt: PrimaryRecordTrace, va: int, where: str) -> list[_Candidate]:
        pcs = self.objects.program_command_signatures.get(prt.pcs) if prt.pcs else None
        base, n = prt.fields.get("SecondaryRecords"), prt.fields.get("NumSecondaryRecords")
        if pcs is None or not isinstance(base, int) or not isinstance(n, int) or va < base:
            return []
        stride = pcs.SecondaryRecordByteStride
        j = (va - base) // stride if stride else 0
        return self.secondary(prt, j, where) if j < n else []

    def slot(self, prt: PrimaryRecordTrace, where: str) -> list[_Candidate]:
        slot = prt.program_table
        if slot is None:
            return []
        program = self.objects.programs.get(slot.program) if slot.program else None
        layout = None
        if program is not None:
            try:
                layout = program_table_layout(program)
            except D3D12WLError:
                layout = None
        fields = _layout_fields(layout) if layout is not None else _struct_fields(PROGRAM_IDENTIFIER)
        if layout is None:  # (the identifier alone, as one field)
            fields = (_Field("ProgramIdentifier", 0, abi.sizeof(PROGRAM_IDENTIFIER), PROGRAM_IDENTIFIER, hex=True),)
        size = max(layout.size if layout is not None else 0, max(x.offset + x.size for x in fields))
        return [_Candidate("program-table slot", f"program-table slot {slot.index} of primary record {prt.index} "
                           f"({where}{', ' + slot.program if slot.program else ''})", slot.va, size, fields)]

    @staticmethod
    def header(lst: ListTrace) -> list[_Candidate]:
        fields = _struct_fields(lst.input_struct)
        info = _struct(lst.input_struct)
        return [_Candidate(lst.input_struct, f"list {lst.index} header ({lst.input_struct})", lst.va,
                           info.size if info is not None else ROW, fields)]


def _read(memory: GpuMemory, va: int, n: int) -> tuple[int | None, ...]:
    out: list[int | None] = []
    pos, end = va, min(va + n, VA_LIMIT)
    while pos < end:
        region = memory.region_at(pos)
        if region is None:
            out.append(None)
            pos += 1
            continue
        take = min(end, region.end) - pos
        out.extend(region.data[pos - region.base: pos - region.base + take])
        pos += take
    return tuple(out)


def _member(rule: str) -> str | None:
    """The member a ``STRUCT::Member`` rule names."""
    return rule.split("::", 1)[1] if "::" in rule else None


def _view(memory: GpuMemory, c: _Candidate, marked: _Field | None, note: str) -> RecordBytes:
    start = 0
    if c.size > WINDOW and marked is not None:
        start = max(0, min(marked.offset - WINDOW // 4, c.size - WINDOW)) // ROW * ROW
    n = min(c.size - start, WINDOW)
    data = _read(memory, c.va + start, n)
    spans = tuple(Span(f.name, f.offset, f.size, f.ctype, _value(f, data, f.offset - start), f.named)
                  for f in c.fields if f.offset < start + n and f.offset + f.size > start)
    return RecordBytes(c.what, c.title, c.va, c.size, start, data, spans, marked.name if marked else None, note)


def _rule_field(c: _Candidate, rule: str) -> _Field | None:
    """The field of ``c`` the rule's ``STRUCT::Member`` names (a struct member's first leaf)."""
    member = _member(rule)
    if member is None:
        return None
    return next((f for f in c.fields if f.name == member or f.name.startswith(member + ".")), None)


def finding_record(memory: GpuMemory, objects: ObjectSet, trace: Trace, call: object,
                   finding: Finding) -> RecordBytes | None:
    """The record ``finding`` concerns (see the module docstring), or None when it names none (a finding about
    the call itself).  Where the finding's byte is not mapped and another of its records has the member the rule
    names (``SecondaryRecords`` of the primary record whose secondary records are not mapped), that record is shown
    with the member marked: its bytes are there, and they are what is wrong."""
    candidates = _Place(objects, trace, call).candidates(finding)
    va = finding.va
    if va is not None:
        for c in candidates:
            if c.va <= va < c.va + c.size:
                if memory.region_at(va) is None:
                    for other in candidates:
                        field = _rule_field(other, finding.rule) if other is not c else None
                        if field is not None:
                            return _view(memory, other, field, f"0x{va:x} ({c.title}) is not mapped; marked: the "
                                         f"member the rule names ({finding.rule})")
                at = va - c.va
                field = next((f for f in c.fields if f.offset <= at < f.offset + f.size), None)
                note = (f"the byte the finding names, 0x{va:x}, is +{at} in this record" +
                        ("" if field is not None else ", in no field of its layout (padding or past its end)"
                         if c.fields else "; its fields are not known"))
                return _view(memory, c, field, note)
    if not candidates:
        return None
    c = candidates[0]
    field = _rule_field(c, finding.rule)
    where = f"0x{va:x} lies outside it" if va is not None else "the finding names no byte"
    note = (f"{where}; marked: the member the rule names ({finding.rule})" if field is not None
            else f"{where}; no field of it is marked")
    return _view(memory, c, field, note)
