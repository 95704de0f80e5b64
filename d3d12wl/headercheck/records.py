"""Engine record structs against the layout calculator.

An engine declares C/C++ structs (or HLSL ones, :func:`check_hlsl`) for the records it writes: the spec's culling
example declares ``struct SecondaryRecord { uint64_t MaterialBufferSRV; uint VertexCountPerInstance; ... }``,
the root SRV and then the four ``_DRAW`` arguments.  Each struct is bound to one record class of a description
(``PCS.secondary``; :func:`d3d12wl.records.layout.record_id`) and compared with its :class:`~d3d12wl.records.layout.RecordLayout`
on the Windows x64 ABI (for HLSL, at D3D12's structured-buffer layout):

- every layout field's bytes are covered by the struct's fields, with no gap;
- every struct field either lies inside one layout field (a payload split into parts: four ``UINT`` s for a
  ``D3D12_DRAW_ARGUMENTS``) or spans whole layout fields exactly (the fixed header as one
  ``D3D12_WORK_LIST_PRIMARY_RECORD`` member); one that straddles a boundary is named with both fields;
- a struct field wholly in the layout's padding is noted (the hardware never reads it);
- ``sizeof`` is a stride the record can use (rule 25(e) / "Stride derivation": at least the minimum stride, a
  multiple of its alignment), and not more than the stride the description declares for the record when it
  declares one (``SecondaryRecordByteStride``, ``ByteStride``; writing a wider struct would overwrite the next
  record).  A smaller one is noted: records are then not an array of the structs.

Names match by position and bytes, never by spelling: engines name their members as they like.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from d3d12wl.errors import ABIError, did_you_mean
from d3d12wl.headercheck import hlsl as hlsl_probe
from d3d12wl.headercheck.clang_ast import HeaderDecls, HeaderPath, HeaderRecord
from d3d12wl.headercheck.report import RECORD_KINDS, Difference, Entry
from d3d12wl.model import description
from d3d12wl.model.objects import ObjectSet
from d3d12wl.records import codegen
from d3d12wl.records.layout import (
    COMMAND,
    SECONDARY,
    LayoutField,
    RecordLayout,
    record_id,
    record_id_synonyms,
    record_layouts,
)


class Checker(Protocol):
    """What the record comparison asks of the header check's ``Checker`` (headercheck.check, which calls this
    module): the header's declarations, a record's field paths planned as probes, and a probe's measured value."""

    decls: HeaderDecls

    def plan_record(self, key: str, spelled: str, record: HeaderRecord) -> list[HeaderPath]: ...

    def value(self, key: str) -> int | None: ...

LAYOUT = "the layout"  # what a record struct's differences are measured against


@dataclass(frozen=True)
class RecordBinding:
    """An engine struct (``struct``, as given) bound to one record class of a description."""

    record: str  # record id, 'PCS.secondary'
    struct: str
    layout: RecordLayout
    declared_stride: int | None  # the stride the description declares for it, if any
    optional: bool = False  # bound by codegen's name, not by the user: skipped when the header lacks it


def declared_stride(objects: ObjectSet, layout: RecordLayout) -> int | None:
    if layout.record == SECONDARY:
        pcs = objects.program_command_signatures.get(layout.owner)
        return pcs.SecondaryRecordByteStride if pcs is not None and pcs.SecondaryRecordByteStride else None
    if layout.record == COMMAND:
        cs = objects.command_signatures.get(layout.owner)
        return cs.ByteStride if cs is not None and cs.ByteStride else None
    return None


def bind(signature: str | Path, names: dict[str, str]) -> list[RecordBinding]:
    """Bind engine structs to the record classes of the description at ``signature``.

    ``names`` maps record id -> struct name (``--record-struct``); it is merged over the description's own
    ``"record_structs"`` object.  With neither, every record class is bound to the name ``d3d12wl codegen``
    gives it (``PCS_SecondaryRecord``), and those the header does not declare are skipped."""
    path = Path(signature)
    raw = description.read_document(path)
    objects = description.load(raw)  # validates the document, record_structs included, against the schema
    given = raw.get(description.RECORD_STRUCTS, {})
    layouts = {record_id(layout): layout for layout in record_layouts(objects)}
    wanted = {**given, **names}
    unknown = sorted(set(wanted) - set(layouts))
    if unknown:
        hint = did_you_mean(unknown[0], layouts, record_id_synonyms(layouts)) if len(unknown) == 1 else ""
        raise ABIError(f"no record class {', '.join(unknown)} in {path.name}{hint}; its record classes: "
                       f"{', '.join(layouts) or 'none'}", where="--record-struct")
    if not wanted:
        return [RecordBinding(rid, codegen.struct_name(layout), layout, declared_stride(objects, layout), True)
                for rid, layout in layouts.items()]
    return [RecordBinding(rid, struct, layouts[rid], declared_stride(objects, layouts[rid]))
            for rid, struct in wanted.items()]


@dataclass
class _Bound:
    binding: RecordBinding
    spelled: str  # the header's name for the struct
    fields: list[tuple[str, str]]  # (top-level member path, probe key prefix)
    hidden: str | None = None  # bytes the compiler adds that no member names (a vtable pointer), if any


def plan(checker: Checker, bindings: list[RecordBinding]) -> list[_Bound]:
    """Probe sizeof/alignof and every top-level member (anonymous members flattened) of each bound struct."""
    out: list[_Bound] = []
    for b in bindings:
        matches = checker.decls.matching(b.struct) or checker.decls.matching(f"struct {b.struct}")
        if len(matches) > 1:
            raise ABIError(f"{b.struct!r} is ambiguous in the header: {', '.join(matches)}; qualify it",
                           where=f"--record-struct {b.record}")
        if not matches:
            if not b.optional:
                raise ABIError(f"the headers declare no struct or class {b.struct!r}",
                               where=f"--record-struct {b.record}={b.struct}")
            continue
        spelled = matches[0]
        record = checker.decls.records[checker.decls.names[spelled]]
        key = f"R:{b.record}"
        paths = [hp for hp in checker.plan_record(key, spelled, record) if hp.parent == ""]
        hidden = ("a vtable pointer (virtual functions)" if record.polymorphic else
                  "virtual base classes" if record.virtual_bases else None)
        out.append(_Bound(b, spelled, [(hp.path, f"{key}|{hp.path}") for hp in paths], hidden))
    return out


def compare(checker: Checker, bound: list[_Bound]) -> list[Entry]:
    entries: list[Entry] = []
    for item in bound:
        b = item.binding
        layout = b.layout
        entry = Entry(RECORD_KINDS[0], b.record, item.spelled)
        entries.append(entry)
        if item.hidden is not None:
            entry.differences.append(Difference(b.struct, "hidden bytes", item.hidden, "none: a record is plain data",
                                                reference=LAYOUT))
        size = checker.value(f"R:{b.record}|sizeof")
        if size is None:
            entry.differences.append(Difference(b.struct, "size", "unmeasurable", layout.min_stride, reference=LAYOUT))
            continue
        members: list[tuple[str, int, int]] = []
        for path, key in item.fields:
            off, sz = checker.value(f"{key}|offset"), checker.value(f"{key}|size")
            if off is None or sz is None:
                entry.differences.append(Difference(f"{b.struct}.{path}", "offset", "unmeasurable", None,
                                                    reference=LAYOUT))
                continue
            members.append((path, off, sz))
        _verdict(entry, b, members, size)
    return entries


def _verdict(entry: Entry, b: RecordBinding, members: list[tuple[str, int, int]], size: int) -> None:
    """The comparison every record struct gets, C or HLSL: coverage and placement, then sizeof as a stride."""
    entry.compared = len(members)
    _cover(entry, b, b.layout, members)
    _stride(entry, b, b.layout, size)


def check_hlsl(files: list[Path], bindings: list[RecordBinding], workdir: Path, *, defines: tuple[str, ...] = (),
               includes: tuple[Path, ...] = ()) -> list[Entry]:
    """HLSL record structs (``--hlsl``) against the layout calculator, at D3D12's structured-buffer layout
    (:mod:`d3d12wl.headercheck.hlsl`).  Structs bound by the user must exist; those bound by codegen's default name
    are checked when the HLSL declares them."""
    def probe(names: list[str]) -> dict[str, hlsl_probe.HlslStruct]:
        return hlsl_probe.probe_structs(files, names, workdir, defines=defines, includes=includes)

    probe([])  # the HLSL compiles on its own: a failure below is then about a struct name
    found = probe(sorted({b.struct for b in bindings if not b.optional}))
    for b in bindings:
        if b.optional and b.struct not in found:
            try:
                found.update(probe([b.struct]))
            except ABIError:
                continue  # the HLSL does not declare codegen's name for this record
    entries: list[Entry] = []
    for b in bindings:
        got = found.get(b.struct)
        if got is None:
            continue
        entry = Entry(RECORD_KINDS[1], b.record, got.name)
        entries.append(entry)
        _verdict(entry, b, [(m.name, m.offset, m.size) for m in got.members], got.size)
        vulkan = [f"{m.name} at {m.vulkan_offset}" for m in got.members
                  if m.vulkan_offset is not None and m.vulkan_offset != m.offset]
        if vulkan or (got.vulkan_stride is not None and got.vulkan_stride != got.size):
            entry.notes.append(f"under Vulkan's std430 rules (glslang) the layout differs: "
                               f"{', '.join(vulkan) or 'members agree'}, stride {got.vulkan_stride} "
                               f"(D3D12's structured-buffer stride is {got.size})")
    return entries


def _span(f: LayoutField) -> str:
    return f"{f.name} [{f.offset}..{f.end - 1}]"


def _cover(entry: Entry, b: RecordBinding, layout: RecordLayout, members: list[tuple[str, int, int]]) -> None:
    starts = {f.offset for f in layout.fields}
    ends = {f.end for f in layout.fields}
    for path, off, size in members:
        end = off + size
        where = f"{b.struct}.{path}"
        inside = [f for f in layout.fields if f.offset <= off and end <= f.end]
        overlapping = [f for f in layout.fields if f.offset < end and off < f.end]
        if size == 0 or inside or (off in starts and end in ends and overlapping):
            continue
        if not overlapping:
            entry.notes.append(f"{path} [{off}..{end - 1}] lies in the record's padding (never read)")
            continue
        entry.differences.append(Difference(
            where, "placement", f"[{off}..{end - 1}] ({size} bytes)",
            "; ".join(_span(f) for f in overlapping), reference=LAYOUT,
        ))
    for f in layout.fields:
        covered = sorted((max(off, f.offset), min(off + size, f.end)) for _p, off, size in members
                         if off < f.end and f.offset < off + size)
        pos, gaps = f.offset, []
        for lo, hi in covered:
            if lo > pos:
                gaps.append((pos, lo))
            pos = max(pos, hi)
        if pos < f.end:
            gaps.append((pos, f.end))
        for lo, hi in gaps:
            entry.differences.append(Difference(
                f"{b.struct} bytes [{lo}..{hi - 1}]", "coverage", "no member",
                f"{f.name} ({f.ctype}{'[%d]' % f.count if f.count > 1 else ''}, {f.role}"
                f"{', pArgumentDescs[%d] %s' % (f.arg, f.arg_type) if f.arg is not None else ''})",
                reference=LAYOUT,
            ))


def _stride(entry: Entry, b: RecordBinding, layout: RecordLayout, size: int) -> None:
    if size < layout.size:
        entry.differences.append(Difference(b.struct, "size", size, f"at least {layout.size} (bytes used)",
                                            reference=LAYOUT))
        return
    for problem in layout.stride_problems(size):
        entry.differences.append(Difference(b.struct, "size as stride", size, problem, reference=LAYOUT))
    what = "SecondaryRecordByteStride" if layout.record == SECONDARY else "ByteStride"
    if b.declared_stride is not None and size > b.declared_stride:
        entry.differences.append(Difference(b.struct, f"size vs the declared {what}", size, b.declared_stride,
                                            reference="the description"))
    elif b.declared_stride is not None and size < b.declared_stride:
        entry.notes.append(f"sizeof {size} is less than the declared {what} {b.declared_stride}: records are "
                           f"{b.declared_stride} bytes apart, so an array of {b.struct} is not an array of records")
    elif b.declared_stride is None and size != layout.min_stride and not layout.stride_problems(size):
        entry.notes.append(f"sizeof {size} is wider than the minimum stride {layout.min_stride} (allowed)")
