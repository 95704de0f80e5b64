"""What a call executes, as a person reads it: the view ``d3d12wl dump`` prints as JSON (``--json``, its
``to_jsonable``) and renders as text (:mod:`d3d12wl.cli.render`), as typed objects.

:func:`dump_view` turns a :class:`~d3d12wl.capture.file.Capture` and the part of its trace a selection shows
(:class:`~d3d12wl.executor.trace_selection.SelectedTrace`) into a :class:`DumpView`: the call, the device, every
list's header, primary records (their program-table slot and secondary records) and validators, the executions with
every root argument and IA binding and where each came from, ExecuteIndirect's command records, the end-of-call
reset and the findings; each value as text by its C type (:mod:`d3d12wl.executor.value_text`), and with ``--hex``
annotated hex: every byte range labelled with the field it belongs to (:func:`hex_block`).  Byte offsets and field
names come from :mod:`d3d12wl.records.layout` (records) and :mod:`d3d12wl.abi` (fixed structs); nothing here
computes an offset of its own.
"""

from __future__ import annotations

import dataclasses
import struct
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from d3d12wl import abi
from d3d12wl.capture.file import Capture
from d3d12wl.errors import D3D12WLError, MemoryAccessError
from d3d12wl.executor.selection import LeftOut, Selection
from d3d12wl.executor.trace import Finding, ResetEntry, Trace, ValidatorInvocation, slot_members
from d3d12wl.executor.trace_selection import SelectedTrace, TraceSummary, select_trace
from d3d12wl.executor.value_text import as_float, float_text, format_value, looks_like_floats
from d3d12wl.output.serialize import IF_SET, to_jsonable
from d3d12wl.records.layout import IDENTIFIER_FIELD, LayoutCache, LayoutField, RecordLayout

__all__ = ["HEX_BYTES_PER_LINE", "HEX_PADDING_SHOWN", "CallView", "CommandView", "DeviceView", "DumpView",
           "DwordRow", "ExecutionView", "FieldRow", "HexBlock", "HexLine", "IAView", "ListView", "PrimaryView",
           "RootArgumentView", "SecondaryView", "SlotView", "Span", "TriggerView", "dump_view", "hex_block",
           "layout_spans"]

HEX_BYTES_PER_LINE = 16
#: the most bytes of one padding span a hex dump shows
HEX_PADDING_SHOWN = 256


# -- annotated hex ------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Span:
    """``size`` bytes at ``offset`` of a record or struct: the field ``label`` of C type ``ctype`` (``count``
    elements), or padding."""

    offset: int
    size: int
    label: str
    ctype: str | None
    count: int = 1
    padding: bool = False


@dataclass
class HexLine:
    """One line of a hex dump: up to 16 bytes at ``va`` (``offset`` in the block), the field they belong to and
    its label (``name = value`` on the field's first line)."""

    va: int
    offset: int
    hex: str
    field: str
    padding: bool
    label: str


@dataclass
class HexBlock:
    """An annotated hex dump of ``size`` bytes at ``va``."""

    title: str
    va: int
    size: int
    lines: list[HexLine]


def _struct_spans(prefix: str, offset: int, ctype: str, size: int, count: int) -> list[Span]:
    """A field split into its struct members (recursively), so every byte is labelled with its member."""
    if count == 1:
        try:
            info = abi.type_info(ctype)
        except D3D12WLError:
            info = None
        if info is not None and info.kind == "struct" and info.fields:
            spans: list[Span] = []
            for f in info.fields:
                spans += _struct_spans(f"{prefix}.{f.name}", offset + f.offset, f.type, f.size,
                                       f.array_length or 1)
            return spans
    return [Span(offset, size, prefix, ctype, count)]


def layout_spans(fields: Iterable[LayoutField], end: int) -> list[Span]:
    """A record's fields as spans, padding between them and to ``end`` (its stride) marked."""
    spans: list[Span] = []
    for f in sorted(fields, key=lambda f: f.offset):
        spans += _struct_spans(f.name, f.offset, f.ctype, f.size, f.count)
    return _with_padding(spans, end)


def _with_padding(spans: list[Span], end: int) -> list[Span]:
    out: list[Span] = []
    pos = 0
    for s in sorted(spans, key=lambda s: s.offset):
        if s.offset > pos:
            out.append(Span(pos, s.offset - pos, "(padding)", None, padding=True))
        out.append(s)
        pos = max(pos, s.offset + s.size)
    if end > pos:
        out.append(Span(pos, end - pos, "(padding to the stride)", None, padding=True))
    return out


def _decode_span(data: bytes, span: Span) -> Any:
    if span.padding:
        return None
    if span.count > 1 and span.size == 4 * span.count:
        return list(struct.unpack(f"<{span.count}I", data))
    if span.size in (1, 2, 4, 8):
        return int.from_bytes(data, "little")
    return None


def hex_block(capture: Capture, title: str, va: int, spans: list[Span]) -> HexBlock:
    """An annotated hex dump of ``spans`` (offsets relative to ``va``), read through the capture's memory."""
    lines: list[HexLine] = []
    for span in spans:
        # padding runs to a stride read from GPU memory, which can be ~2^40 bytes: show its start only
        shown = min(span.size, HEX_PADDING_SHOWN) if span.padding else span.size
        try:
            data: bytes | None = capture.memory.read(va + span.offset, shown)
        except MemoryAccessError:
            data = None
        value = None if data is None else _decode_span(data, span)
        label = span.label
        if data is None:
            label += " (unmapped)"
        elif span.padding and any(data):
            label += " (non-zero)"
        elif value is not None:
            label += f" = {format_value(value, span.ctype, span.label.rsplit('.', 1)[-1])}"
        if span.label.split(".")[0] == IDENTIFIER_FIELD and span.offset == 0 and data is not None:
            text = data.rstrip(b"\0")
            if text and all(32 <= b < 127 for b in text):
                label += f' "{text.decode("ascii")}"'
        for start in range(0, shown, HEX_BYTES_PER_LINE):
            chunk = None if data is None else data[start:start + HEX_BYTES_PER_LINE]
            n = min(HEX_BYTES_PER_LINE, shown - start)
            lines.append(HexLine(va + span.offset + start, span.offset + start,
                                 " ".join("??" for _ in range(n)) if chunk is None else chunk.hex(" "), span.label,
                                 span.padding, label if start == 0 else f"  ...{span.label}"))
        if shown < span.size:
            lines.append(HexLine(va + span.offset + shown, span.offset + shown, "", span.label, span.padding,
                                 f"  ...{span.label}: {span.size - shown:,} more bytes not shown"))
    return HexBlock(title, va, max((s.offset + s.size for s in spans), default=0), lines)


def _header_spans(ctype: str) -> list[Span]:
    info = abi.type_info(ctype)
    spans: list[Span] = []
    for f in info.fields:
        spans += _struct_spans(f.name, f.offset, f.type, f.size, f.array_length or 1)
    return _with_padding(spans, info.size)


# -- the view -----------------------------------------------------------------------------------------------------


@dataclass
class FieldRow:
    """A field: its name, its value and the value as text by its C type."""

    field: str
    value: Any
    text: str


@dataclass
class DwordRow(FieldRow):
    """A field of DWORDs (a local-root tail's): also as hex DWORDs and, where they look like floats, as floats."""

    dwords: list[str] = field(default_factory=list)
    floats: list[float] | None = None


@dataclass
class CallView:
    name: str
    args: dict[str, Any]
    text: str


@dataclass
class DeviceView:
    Tier: str
    DispatchRaysSupported: bool


@dataclass
class SlotView:
    """The program-table slot a primary record selected: its program, identifier (and its text, where it is
    printable ASCII) and local-root tail."""

    index: int
    va: int
    program: str | None
    identifier: str | None
    identifier_text: str | None
    tail: list[FieldRow]
    hex: HexBlock | None = field(default=None, metadata=IF_SET)


@dataclass
class SecondaryView:
    index: int
    va: int
    fields: list[FieldRow]
    hex: HexBlock | None = field(default=None, metadata=IF_SET)


@dataclass
class PrimaryView:
    """A primary record decoded by field name, its slot and its secondary records."""

    index: int
    va: int
    pcs: str | None
    record_kind: str | None
    header: str | None
    skipped: str | None
    executions: list[int]
    secondary_records_left_out: int | None = field(default=None, metadata=IF_SET)
    fields: list[FieldRow] = field(default_factory=list)
    hex: HexBlock | None = field(default=None, metadata=IF_SET)
    program_table: SlotView | None = None
    secondary_records: list[SecondaryView] = field(default_factory=list)


@dataclass
class ListView:
    """A dispatch list: its header decoded by member (and as hex), its primary records, the validators dispatched
    for it in the spec's step order."""

    index: int
    va: int
    input_struct: str
    flags: list[str]
    signature_index: int | None
    signature: str | None
    executable_class: str | None
    binding: dict[str, Any] | None
    ordering: str | None
    ordering_note: str | None
    continuation: dict[str, Any] | None
    stopped: str | None
    header: list[FieldRow] = field(default_factory=list)
    hex: HexBlock | None = field(default=None, metadata=IF_SET)
    primary_records: list[PrimaryView] = field(default_factory=list)
    validators: list[ValidatorInvocation] = field(default_factory=list)


@dataclass
class TriggerView:
    type: str
    fields: dict[str, Any]
    text: str
    origin: str | None
    field: str | None


@dataclass
class RootArgumentView:
    """A root argument an execution sees: its value (or DWORDs, and their floats) as text, where it came from
    (``origin``), the record member that supplied it (``field``) and both (``from``)."""

    binding: str
    parameter: int
    kind: str
    register: str | None
    value: int | None
    values: list[int | None] | None
    floats: list[float] | None
    text: str
    origin: str
    field: str | None
    from_: str = dataclasses.field(default="", metadata={"json_name": "from"})


@dataclass
class IAView:
    slot: int | None
    fields: dict[str, Any] | None
    origin: str | None
    field: str | None
    from_: str = dataclasses.field(default="", metadata={"json_name": "from"})


@dataclass
class ExecutionView:
    index: int
    executable_class: str
    list_index: int | None
    signature_index: int | None
    primary_index: int | None
    secondary_index: int | None
    command_index: int | None
    program: str | None
    pcs: str | None
    invocation: int
    counter: int | None
    system_pointers: dict[str, Any]
    record_va: dict[str, Any]
    trigger: TriggerView
    root_arguments: list[RootArgumentView]
    ia: list[IAView]


@dataclass
class CommandView:
    """ExecuteIndirect: the argument-buffer record behind an execution."""

    index: int | None
    va: int
    command_signature: str
    ByteStride: int
    hex: HexBlock | None = field(default=None, metadata=IF_SET)


@dataclass
class DumpView:
    """What ``d3d12wl dump`` shows (see the module docstring); ``summary`` and ``left_out`` where a selection made
    it, ``validators`` (the validators loaded) and ``info_queue`` (the findings as an application's InfoQueue holds
    them) where the command adds them."""

    capture: str | None
    call: CallView
    device: DeviceView
    lists: list[ListView]
    executions: list[ExecutionView]
    end_of_call_reset: list[ResetEntry]
    findings: list[Finding]
    findings_suppressed: int
    stopped_reason: str | None
    summary: TraceSummary | None = field(default=None, metadata=IF_SET)
    left_out: LeftOut | None = field(default=None, metadata=IF_SET)
    commands: list[CommandView] = field(default_factory=list)
    validators: list[str] | None = field(default=None, metadata=IF_SET)
    info_queue: Any = field(default=None, metadata=IF_SET)


def _field_rows(fields: dict[str, Any], layout: RecordLayout | None) -> list[FieldRow]:
    ctypes = {f.name: f.ctype for f in layout.fields} if layout is not None else {}
    return [FieldRow(k, v, format_value(v, ctypes.get(k), k)) for k, v in fields.items()]


def _tail_rows(tail: dict[str, Any], layout: RecordLayout | None) -> list[FieldRow]:
    rows = []
    for row in _field_rows(tail, layout):
        v = row.value
        if isinstance(v, list) and all(isinstance(x, int) for x in v):
            row = DwordRow(row.field, v, row.text, [f"0x{x:08x}" for x in v],
                           [as_float(x) for x in v] if looks_like_floats(v) else None)
        rows.append(row)
    return rows


def _call_text(call: str, call_args: dict[str, Any]) -> str:
    args = dict(call_args or {})
    args.pop("tier2", None)
    if call == "DispatchList":
        args.pop("MaxGraphicsPrimaryLists", None)
    parts = []
    for k, v in args.items():
        if isinstance(v, dict):  # an object (ExecuteIndirect's command signature)
            v = v.get("name", v)
        parts.append(f"{k}={format_value(v, None, k)}")
    return f"{call}({', '.join(parts)})"


def dump_view(capture: Capture, trace: SelectedTrace | Trace, *, with_hex: bool = False) -> DumpView:
    """The view ``d3d12wl dump`` prints (``--json``) and renders (text) of what ``trace`` shows (a whole
    :class:`~d3d12wl.executor.trace.Trace`: all of it, with no summary or left_out)."""
    whole = isinstance(trace, Trace)
    selected = select_trace(trace, Selection()) if isinstance(trace, Trace) else trace
    t: dict[str, Any] = to_jsonable(selected)
    cache = LayoutCache()
    view = DumpView(str(capture.path) if capture.path else None,
                    CallView(t["call"], t["call_args"], _call_text(t["call"], t["call_args"])),
                    DeviceView(_tier_text(capture.device.Tier), capture.device.DispatchRaysSupported),
                    [], [], selected.end_of_call_reset, selected.findings, selected.findings_suppressed,
                    selected.stopped_reason, None if whole else selected.summary,
                    None if whole else selected.left_out)
    for lst in t["lists"]:
        struct_name = lst["input_struct"]
        lv = ListView(**{k: lst[k] for k in ("index", "va", "input_struct", "flags", "signature_index",
                                                 "signature", "executable_class", "binding", "ordering",
                                                 "ordering_note", "continuation", "stopped")})
        header_ctypes = {s.label: s.ctype for s in _header_spans(struct_name)}
        lv.header = [FieldRow(k, v, format_value(v, header_ctypes.get(k), k.rsplit(".", 1)[-1]))
                     for k, v in _flatten(lst.get("header", {})).items()]
        if with_hex:
            lv.hex = hex_block(capture, f"{struct_name} @0x{lst['va']:x}", lst["va"], _header_spans(struct_name))
        stride = (lst.get("header") or {}).get("ProgramInputs", {}).get("StrideInBytes")
        lv.primary_records = [_primary_view(capture, cache, p, stride, lst.get("binding"), with_hex)
                              for p in lst.get("primary_records", [])]
        # the validators dispatched for this list, in the spec's step order (1, 4, 7; "Validator invocation order
        # and barriers"), each with the pointer values it was bound
        lv.validators = sorted((v for v in selected.validator_invocations if v.list_index == lst["index"]),
                               key=lambda v: (v.step, v.sequence))
        view.lists.append(lv)
    view.executions = [_execution_view(ex) for ex in t["executions"]]
    view.commands = _commands_view(capture, t, with_hex)
    return view


def _commands_view(capture: Capture, t: dict[str, Any], with_hex: bool) -> list[CommandView]:
    """ExecuteIndirect: the argument-buffer record behind each execution (IndirectDrawing.md, tightly packed
    arguments at ByteStride)."""
    from d3d12wl.model.state import ExecuteIndirectCall
    from d3d12wl.records.layout import command_layout

    call = capture.call
    if not isinstance(call, ExecuteIndirectCall) or call.pCommandSignature is None:
        return []
    cs = call.pCommandSignature
    layout = command_layout(cs)
    out = []
    for ex in t["executions"]:
        va = (ex.get("record_va") or {}).get("command")
        if va is None:
            continue
        cv = CommandView(ex.get("command_index"), va, cs.name, cs.ByteStride)
        if with_hex:
            cv.hex = hex_block(capture, f"command [{ex.get('command_index')}] @0x{va:x} (ByteStride "
                                        f"{cs.ByteStride})", va, layout_spans(layout.fields, cs.ByteStride))
        out.append(cv)
    return out


def _tier_text(tier: int) -> str:
    """``TIER_1`` (the capture format's spelling), or the number for a value the enum does not name."""
    for name, value in abi.enum_members("D3D12_WORK_LISTS_TIER").items():
        if value == tier:
            return name.removeprefix("D3D12_WORK_LISTS_")
    return str(tier)


def _flatten(d: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in d.items():
        name = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, name + "."))
        else:
            out[name] = v
    return out


def _primary_view(capture: Capture, cache: LayoutCache, p: dict[str, Any], stride: int | None,
                  binding: dict[str, Any] | None, with_hex: bool) -> PrimaryView:
    pcs = capture.objects.program_command_signatures.get(p.get("pcs") or "")
    layout = cache.pcs(pcs) if pcs is not None else None
    pv = PrimaryView(**{k: p[k] for k in ("index", "va", "pcs", "record_kind", "header", "skipped",
                                              "executions")})
    pv.secondary_records_left_out = p.get("secondary_records_left_out") or None
    pv.fields = _field_rows(p.get("fields", {}), layout.primary if layout else None)
    if with_hex and layout is not None:
        end = stride if stride else layout.primary.min_stride
        pv.hex = hex_block(capture, f"primary record [{p['index']}] @0x{p['va']:x} (stride {end})", p["va"],
                           layout_spans(layout.primary.fields, end))
    slot = p.get("program_table")
    if slot is not None:
        program = capture.objects.programs.get(slot.get("program") or "")
        slot_layout = cache.program(program) if program is not None else None
        identifier = bytes.fromhex(slot.get("identifier") or "")
        text = identifier.rstrip(b"\0")
        sv = SlotView(slot["index"], slot["va"], slot.get("program"), slot.get("identifier"),
                      text.decode("ascii") if text and all(32 <= b < 127 for b in text) else None,
                      _tail_rows(slot.get("tail", {}), slot_layout))
        if with_hex and slot_layout is not None:
            table_stride = ((binding or {}).get("ProgramTable") or {}).get("Table", {}).get("StrideInBytes")
            end = table_stride if table_stride else slot_layout.size
            sv.hex = hex_block(capture, f"program table slot {slot['index']} @0x{slot['va']:x} "
                                        f"(stride {table_stride})", slot["va"], layout_spans(slot_layout.fields, end))
        pv.program_table = sv
    secondary_layout = layout.secondary if layout else None
    sstride = pcs.SecondaryRecordByteStride if pcs is not None else None
    for s in p.get("secondary_records", []):
        sv2 = SecondaryView(s["index"], s["va"], _field_rows(s.get("fields", {}), secondary_layout))
        if with_hex and secondary_layout is not None:
            end = sstride if sstride else secondary_layout.min_stride
            sv2.hex = hex_block(capture, f"secondary record [{s['index']}] @0x{s['va']:x} (stride {sstride})",
                                s["va"], layout_spans(secondary_layout.fields, end))
        pv.secondary_records.append(sv2)
    return pv


def _source_text(sources: list[dict[str, Any]]) -> str:
    return "; ".join(s.get("origin", s.get("kind", "?")) for s in sources) or "not set"


def _from_text(sources: list[dict[str, Any]]) -> str:
    """The dump's "from" column: source by source, its origin and the record member that supplied it."""
    return "; ".join(s.get("origin", s.get("kind", "?")) + (f" ({s['field']})" if s.get("field") else "")
                     for s in sources) or "not set"


def _source_fields(ra: dict[str, Any]) -> str | None:
    """The record member that supplied a root argument (``ValueSource.field``; a constants slot's members as the
    execution table's ``.field`` column spells them, ``slot_members``); None where no record did."""
    sources = ra.get("sources") or []
    if ra.get("values") is None:
        return next((s["field"] for s in sources if s.get("field")), None)
    return slot_members(((s.get("field"), s.get("first_dword"), s.get("num_dwords")) for s in sources),
                        len(ra["values"]))


def _execution_view(ex: dict[str, Any]) -> ExecutionView:
    trig = ex["trigger"]
    trigger = TriggerView(trig["type"], trig["fields"],
                          " ".join(f"{k}={v}" for k, v in (trig.get("fields") or {}).items()),
                          (trig.get("source") or {}).get("origin"), (trig.get("source") or {}).get("field"))
    ras = []
    for ra in ex.get("root_arguments", []):
        values = ra.get("values")
        if values is not None:
            text = " ".join("?" if v is None else f"0x{v:08x}" for v in values)
            known = [v for v in values if v is not None]
            if len(known) == len(values) and values:
                text += float_text(known)
        elif ra.get("value") is not None:
            text = f"0x{ra['value']:x}"
        else:
            text = "-"
        ras.append(RootArgumentView(
            ra.get("binding"), ra.get("parameter"), ra.get("kind"), ra.get("register"), ra.get("value"), values,
            [as_float(v) for v in values] if values and None not in values and looks_like_floats(values) else None,
            text, _source_text(ra.get("sources", [])), _source_fields(ra), _from_text(ra.get("sources", []))))
    ia = [IAView(b.get("slot"), b.get("fields"), (b.get("source") or {}).get("origin"),
                 (b.get("source") or {}).get("field"), _from_text([b["source"]] if b.get("source") else []))
          for b in ex.get("ia", [])]
    return ExecutionView(**{k: ex[k] for k in ("index", "executable_class", "list_index", "signature_index",
                                                   "primary_index", "secondary_index", "command_index", "program",
                                                   "pcs", "invocation", "counter", "system_pointers", "record_va")},
                         trigger=trigger, root_arguments=ras, ia=ia)
