"""Human rendering of what a call executes: aligned tables and annotated hex (design.md, "Output").

:func:`dump_view` turns a :class:`~d3d12wl.capture.file.Capture` and the executor's :class:`~d3d12wl.executor.trace.Trace` into
one plain-data view (what ``d3d12wl dump --json`` prints); :func:`render_text` prints that same view for people.
Byte offsets and field names come from :mod:`d3d12wl.records.layout` (records) and :mod:`d3d12wl.abi` (fixed structs);
nothing here computes an offset of its own.

Values are shown by their C type: GPU VAs and descriptor handles in hex, enums and flags by name, DWORD arrays
(root constants, local-root tails) as hex DWORDs and as IEEE floats, since a root constant is untyped bits and a
tint or a scale is only readable as floats.
"""

from __future__ import annotations

import struct
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.file import Capture
from d3d12wl.errors import D3D12WLError, MemoryAccessError
from d3d12wl.executor.selection import Budget, Selection, parse_range  # noqa: F401 - (dump's selection)
from d3d12wl.executor.trace import Finding, Trace, slot_members
from d3d12wl.output import tables
from d3d12wl.records.layout import IDENTIFIER_FIELD, LayoutCache, LayoutField, RecordLayout

#: C types shown in hex (addresses and handles).
ADDRESS_TYPES = frozenset({"D3D12_GPU_VIRTUAL_ADDRESS", "D3D12_GPU_DESCRIPTOR_HANDLE"})
#: Members shown in hex whatever their declared type (GPU VAs spelled UINT64 in some structs).
ADDRESS_MEMBERS = frozenset({"StartAddress", "BufferLocation", "NextDispatchList", "SecondaryRecords", "ptr",
                             "DispatchListInput", "ArgumentBuffer", "CountBuffer",
                             "next"})  # the trace's continuation: the NextDispatchList it read
HEX_BYTES_PER_LINE = 16


# ----------------------------------------------------------------------------------------------------------------
# Values
# ----------------------------------------------------------------------------------------------------------------


def as_float(dword: int) -> float:
    """The IEEE-754 single a DWORD holds, rounded to float precision for printing (0.7 prints as 0.7)."""
    return float(f"{struct.unpack('<f', struct.pack('<I', dword & 0xFFFFFFFF))[0]:.7g}")


def looks_like_floats(values: Sequence[int]) -> bool:
    """DWORDs worth reading as IEEE-754 singles: each is +-0 or a normal float (a small integer such as a counter
    or an index is a denormal, a reading of which would only mislead), and not all are zero."""
    def normal_or_zero(v: int) -> bool:
        exponent = (v >> 23) & 0xFF
        return v & 0x7FFFFFFF == 0 or 0 < exponent < 0xFF

    return bool(values) and all(normal_or_zero(v) for v in values) and any(v & 0x7FFFFFFF for v in values)


def _float_text(values: Sequence[int]) -> str:
    """``  = float (1, 0.5)`` when :func:`looks_like_floats`, else nothing."""
    if not looks_like_floats(values):
        return ""
    return "  = float (" + ", ".join(f"{as_float(v):g}" for v in values) + ")"


def _is_enum(ctype: str) -> bool:
    return ctype in _enum_names()


_ENUMS: frozenset[str] | None = None


def _enum_names() -> frozenset[str]:
    global _ENUMS
    if _ENUMS is None:
        _ENUMS = frozenset(abi.default.enum_names())
    return _ENUMS


_MEMBER_ENUMS: dict[str, str] | None = None


def _member_enum(name: str) -> str | None:
    """The enum type of every declared struct member called ``name``, when they all agree (``Format``:
    ``DXGI_FORMAT``, ``Flags`` does not: each struct has its own), so a value printed without its C type (an IA
    binding's fields) still shows its member name."""
    global _MEMBER_ENUMS
    if _MEMBER_ENUMS is None:
        seen: dict[str, set[str]] = {}
        enums = _enum_names()
        for type_name in abi.default.type_names():
            for path, f, _ in abi.type_info(type_name).walk():
                t = abi.default.resolve(f.type)
                seen.setdefault(path.rsplit(".", 1)[-1], set()).add(t if t in enums else "")
        _MEMBER_ENUMS = {member: next(iter(ts)) for member, ts in seen.items() if len(ts) == 1 and "" not in ts}
    return _MEMBER_ENUMS.get(name)


def _sub_ctypes(ctype: str) -> dict[str, str]:
    try:
        info = abi.type_info(ctype)
    except D3D12WLError:
        return {}
    return {f.name: f.type for f in info.fields}


def format_value(value: Any, ctype: str | None = None, name: str = "") -> str:
    """One value as text, by its C type (see the module docstring)."""
    if value is None:
        return "-"
    if isinstance(value, dict):
        subs = _sub_ctypes(ctype) if ctype else {}
        return "{" + ", ".join(f"{k}={format_value(v, subs.get(k), k)}" for k, v in value.items()) + "}"
    if isinstance(value, list | tuple):
        if all(isinstance(v, int) for v in value) and (ctype in (None, "UINT", "uint32_t")):
            return " ".join(f"0x{v:08x}" for v in value) + _float_text(value)
        return "[" + ", ".join(format_value(v, ctype) for v in value) + "]"
    if isinstance(value, bool) or not isinstance(value, int):
        return str(value)
    if ctype in ADDRESS_TYPES or name in ADDRESS_MEMBERS or name.endswith("View") or name.endswith("Pointer"):
        return f"0x{value:x}"
    if ctype and _is_enum(ctype):
        return abi.enum_text(ctype, value)
    member_enum = _member_enum(name) if ctype is None and name else None
    if member_enum is not None:
        return abi.enum_text(member_enum, value)
    return str(value)


def _va(value: int | None) -> str:
    return "-" if value is None else f"0x{value:x}"


# ----------------------------------------------------------------------------------------------------------------
# Annotated hex
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Span:
    offset: int
    size: int
    label: str
    ctype: str | None
    count: int = 1
    padding: bool = False


def _struct_spans(prefix: str, offset: int, ctype: str, size: int, count: int) -> list[_Span]:
    """A field split into its struct members (recursively), so every byte is labelled with its member."""
    if count == 1:
        try:
            info = abi.type_info(ctype)
        except D3D12WLError:
            info = None
        if info is not None and info.kind == "struct" and info.fields:
            spans: list[_Span] = []
            for f in info.fields:
                spans += _struct_spans(f"{prefix}.{f.name}", offset + f.offset, f.type, f.size,
                                       f.array_length or 1)
            return spans
    return [_Span(offset, size, prefix, ctype, count)]


def _layout_spans(fields: Iterable[LayoutField], end: int) -> list[_Span]:
    spans: list[_Span] = []
    for f in sorted(fields, key=lambda f: f.offset):
        spans += _struct_spans(f.name, f.offset, f.ctype, f.size, f.count)
    return _with_padding(spans, end)


def _with_padding(spans: list[_Span], end: int) -> list[_Span]:
    out: list[_Span] = []
    pos = 0
    for s in sorted(spans, key=lambda s: s.offset):
        if s.offset > pos:
            out.append(_Span(pos, s.offset - pos, "(padding)", None, padding=True))
        out.append(s)
        pos = max(pos, s.offset + s.size)
    if end > pos:
        out.append(_Span(pos, end - pos, "(padding to the stride)", None, padding=True))
    return out


def _decode_span(data: bytes, span: _Span) -> Any:
    if span.padding:
        return None
    if span.count > 1 and span.size == 4 * span.count:
        return list(struct.unpack(f"<{span.count}I", data))
    if span.size in (1, 2, 4, 8):
        return int.from_bytes(data, "little")
    return None


#: the most bytes of one padding span a hex dump shows
HEX_PADDING_SHOWN = 256


def hex_block(capture: Capture, title: str, va: int, spans: list[_Span]) -> dict[str, Any]:
    """An annotated hex dump of ``spans`` (offsets relative to ``va``), read through the capture's memory."""
    lines: list[dict[str, Any]] = []
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
            lines.append({
                "va": va + span.offset + start,
                "offset": span.offset + start,
                "hex": " ".join("??" for _ in range(n)) if chunk is None else chunk.hex(" "),
                "field": span.label,
                "padding": span.padding,
                "label": label if start == 0 else f"  ...{span.label}",
            })
        if shown < span.size:
            lines.append({"va": va + span.offset + shown, "offset": span.offset + shown, "hex": "",
                          "field": span.label, "padding": span.padding,
                          "label": f"  ...{span.label}: {span.size - shown:,} more bytes not shown"})
    return {"title": title, "va": va, "size": max((s.offset + s.size for s in spans), default=0), "lines": lines}


def _header_spans(ctype: str) -> list[_Span]:
    info = abi.type_info(ctype)
    spans: list[_Span] = []
    for f in info.fields:
        spans += _struct_spans(f.name, f.offset, f.type, f.size, f.array_length or 1)
    return _with_padding(spans, info.size)


# ----------------------------------------------------------------------------------------------------------------
# The view
# ----------------------------------------------------------------------------------------------------------------


def _field_rows(fields: dict[str, Any], layout: RecordLayout | None) -> list[dict[str, Any]]:
    ctypes = {f.name: f.ctype for f in layout.fields} if layout is not None else {}
    return [{"field": k, "value": v, "text": format_value(v, ctypes.get(k), k)} for k, v in fields.items()]


def _tail_rows(tail: dict[str, Any], layout: RecordLayout | None) -> list[dict[str, Any]]:
    rows = _field_rows(tail, layout)
    for row in rows:
        v = row["value"]
        if isinstance(v, list) and all(isinstance(x, int) for x in v):
            row["dwords"] = [f"0x{x:08x}" for x in v]
            row["floats"] = [as_float(x) for x in v] if looks_like_floats(v) else None
    return rows


def _call_text(trace: dict[str, Any]) -> str:
    args = dict(trace.get("call_args") or {})
    args.pop("tier2", None)
    if trace["call"] == "DispatchList":
        args.pop("MaxGraphicsPrimaryLists", None)
    parts = []
    for k, v in args.items():
        if isinstance(v, dict):  # an object (ExecuteIndirect's command signature)
            v = v.get("name", v)
        parts.append(f"{k}={format_value(v, None, k)}")
    return f"{trace['call']}({', '.join(parts)})"


def dump_view(capture: Capture, trace: Trace | dict[str, Any], *, with_hex: bool = False) -> dict[str, Any]:
    """The plain-data view ``d3d12wl dump`` prints (``--json``) and renders (text)."""
    t = trace.to_dict() if isinstance(trace, Trace) else trace
    cache = LayoutCache()
    view: dict[str, Any] = {
        "capture": str(capture.path) if capture.path else None,
        "call": {"name": t["call"], "args": t.get("call_args"), "text": _call_text(t)},
        "device": {"Tier": _tier_text(capture.device.Tier),
                   "DispatchRaysSupported": capture.device.DispatchRaysSupported},
        "lists": [],
        "executions": [],
        "end_of_call_reset": t.get("end_of_call_reset", []),
        "findings": t.get("findings", []),
        "findings_suppressed": t.get("findings_suppressed", 0),
        "stopped_reason": t.get("stopped_reason"),
    }
    for extra in ("summary", "left_out"):  # dump's selection of a frame-scale trace (selected_trace)
        if extra in t:
            view[extra] = t[extra]
    for lst in t.get("lists", []):
        struct_name = lst["input_struct"]
        lv: dict[str, Any] = {k: lst.get(k) for k in ("index", "va", "input_struct", "flags", "signature_index",
                                                         "signature", "executable_class", "binding", "ordering",
                                                         "ordering_note", "continuation", "stopped")}
        header_ctypes = {s.label: s.ctype for s in _header_spans(struct_name)}
        lv["header"] = [{"field": k, "value": v, "text": _nested_text(k, v, header_ctypes)}
                        for k, v in _flatten(lst.get("header", {})).items()]
        if with_hex:
            lv["hex"] = hex_block(capture, f"{struct_name} @0x{lst['va']:x}", lst["va"], _header_spans(struct_name))
        stride = (lst.get("header") or {}).get("ProgramInputs", {}).get("StrideInBytes")
        lv["primary_records"] = [_primary_view(capture, cache, p, stride, lst.get("binding"), with_hex)
                                 for p in lst.get("primary_records", [])]
        # the validators dispatched for this list, in the spec's step order (1, 4, 7; "Validator invocation order
        # and barriers"), each with the pointer values it was bound
        lv["validators"] = sorted((v for v in t.get("validator_invocations", []) if v["list_index"] == lst["index"]),
                                  key=lambda v: (v["step"], v["sequence"]))
        view["lists"].append(lv)
    for ex in t.get("executions", []):
        view["executions"].append(_execution_view(ex))
    view["commands"] = _commands_view(capture, t, with_hex)
    return view


def _commands_view(capture: Capture, t: dict[str, Any], with_hex: bool) -> list[dict[str, Any]]:
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
    for ex in t.get("executions", []):
        va = (ex.get("record_va") or {}).get("command")
        if va is None:
            continue
        cv: dict[str, Any] = {"index": ex.get("command_index"), "va": va, "command_signature": cs.name,
                              "ByteStride": cs.ByteStride}
        if with_hex:
            cv["hex"] = hex_block(capture, f"command [{ex.get('command_index')}] @0x{va:x} (ByteStride "
                                           f"{cs.ByteStride})", va, _layout_spans(layout.fields, cs.ByteStride))
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


def _nested_text(name: str, value: Any, ctypes: dict[str, str | None]) -> str:
    return format_value(value, ctypes.get(name), name.rsplit(".", 1)[-1])


def _primary_view(capture: Capture, cache: LayoutCache, p: dict[str, Any], stride: int | None,
                  binding: dict[str, Any] | None, with_hex: bool) -> dict[str, Any]:
    pcs = capture.objects.program_command_signatures.get(p.get("pcs") or "")
    layout = cache.pcs(pcs) if pcs is not None else None
    pv: dict[str, Any] = {k: p.get(k) for k in ("index", "va", "pcs", "record_kind", "header", "skipped",
                                                 "executions")}
    if p.get("secondary_records_left_out"):
        pv["secondary_records_left_out"] = p["secondary_records_left_out"]
    pv["fields"] = _field_rows(p.get("fields", {}), layout.primary if layout else None)
    if with_hex and layout is not None:
        end = stride if stride else layout.primary.min_stride
        pv["hex"] = hex_block(capture, f"primary record [{p['index']}] @0x{p['va']:x} (stride {end})", p["va"],
                              _layout_spans(layout.primary.fields, end))
    slot = p.get("program_table")
    if slot is not None:
        program = capture.objects.programs.get(slot.get("program") or "")
        slot_layout = cache.program(program) if program is not None else None
        identifier = bytes.fromhex(slot.get("identifier") or "")
        text = identifier.rstrip(b"\0")
        sv: dict[str, Any] = {
            "index": slot["index"], "va": slot["va"], "program": slot.get("program"),
            "identifier": slot.get("identifier"),
            "identifier_text": text.decode("ascii") if text and all(32 <= b < 127 for b in text) else None,
            "tail": _tail_rows(slot.get("tail", {}), slot_layout),
        }
        if with_hex and slot_layout is not None:
            table_stride = ((binding or {}).get("ProgramTable") or {}).get("Table", {}).get("StrideInBytes")
            end = table_stride if table_stride else slot_layout.size
            sv["hex"] = hex_block(capture, f"program table slot {slot['index']} @0x{slot['va']:x} "
                                           f"(stride {table_stride})", slot["va"],
                                  _layout_spans(slot_layout.fields, end))
        pv["program_table"] = sv
    else:
        pv["program_table"] = None
    secondary_layout = layout.secondary if layout else None
    sstride = pcs.SecondaryRecordByteStride if pcs is not None else None
    pv["secondary_records"] = []
    for s in p.get("secondary_records", []):
        sv2: dict[str, Any] = {"index": s["index"], "va": s["va"],
                               "fields": _field_rows(s.get("fields", {}), secondary_layout)}
        if with_hex and secondary_layout is not None:
            end = sstride if sstride else secondary_layout.min_stride
            sv2["hex"] = hex_block(capture, f"secondary record [{s['index']}] @0x{s['va']:x} (stride {sstride})",
                                   s["va"], _layout_spans(secondary_layout.fields, end))
        pv["secondary_records"].append(sv2)
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


def _execution_view(ex: dict[str, Any]) -> dict[str, Any]:
    trig = ex.get("trigger") or {}
    ev: dict[str, Any] = {k: ex.get(k) for k in ("index", "executable_class", "list_index", "signature_index",
                                                 "primary_index", "secondary_index", "command_index", "program",
                                                 "pcs", "invocation", "counter", "system_pointers", "record_va")}
    ev["trigger"] = {"type": trig.get("type"), "fields": trig.get("fields"),
                     "text": " ".join(f"{k}={v}" for k, v in (trig.get("fields") or {}).items()),
                     "origin": (trig.get("source") or {}).get("origin"),
                     "field": (trig.get("source") or {}).get("field")}
    ras = []
    for ra in ex.get("root_arguments", []):
        values = ra.get("values")
        if values is not None:
            text = " ".join("?" if v is None else f"0x{v:08x}" for v in values)
            known = [v for v in values if v is not None]
            if len(known) == len(values) and values:
                text += _float_text(known)
        elif ra.get("value") is not None:
            text = f"0x{ra['value']:x}"
        else:
            text = "-"
        ras.append({**{k: ra.get(k) for k in ("binding", "parameter", "kind", "register", "value", "values")},
                    "floats": [as_float(v) for v in values] if values and None not in values
                    and looks_like_floats(values) else None,
                    "text": text, "origin": _source_text(ra.get("sources", [])),
                    "field": _source_fields(ra), "from": _from_text(ra.get("sources", []))})
    ev["root_arguments"] = ras
    ev["ia"] = [{"slot": ia.get("slot"), "fields": ia.get("fields"),
                 "origin": (ia.get("source") or {}).get("origin"), "field": (ia.get("source") or {}).get("field"),
                 "from": _from_text([ia["source"]] if ia.get("source") else [])} for ia in ex.get("ia", [])]
    return ev


# ----------------------------------------------------------------------------------------------------------------
# Text
# ----------------------------------------------------------------------------------------------------------------


def _hex_lines(block: dict[str, Any], indent: str) -> list[str]:
    out = [f"{indent}{block['title']}:"]
    for ln in block["lines"]:
        out.append(f"{indent}  0x{ln['va']:08x} +0x{ln['offset']:02x}  {ln['hex']:<47}  {ln['label']}")
    return out


def render_text(view: dict[str, Any]) -> str:
    """The human rendering of a :func:`dump_view`."""
    out: list[str] = []
    if view.get("capture"):
        out.append(f"capture  {view['capture']}")
    out.append(f"call     {view['call']['text']}")
    dev = view["device"]
    out.append(f"device   {dev['Tier']}, DispatchRaysSupported={str(dev['DispatchRaysSupported']).lower()}")
    if view.get("summary"):
        out += summary_lines(view["summary"])
    for lst in view["lists"]:
        out.append("")
        sig = f"signature {lst['signature_index']} {lst['signature']!r}" if lst.get("signature") else "no signature"
        out.append(f"list {lst['index']}  {lst['input_struct']} @0x{lst['va']:x}  {sig}  "
                   f"{lst.get('executable_class') or '-'}  {lst.get('ordering') or ''}".rstrip())
        if lst.get("ordering_note"):
            out.append(f"  ({lst['ordering_note']})")
        out += tables.render(("field", "value"), [(h["field"], h["text"]) for h in lst["header"]], indent="  ")
        if lst.get("binding"):
            out.append(f"  binding  {format_value(lst['binding'], 'D3D12_WORK_LIST_BINDING')}")
        if "hex" in lst:
            out += _hex_lines(lst["hex"], "  ")
        if lst.get("validators") or view.get("validators") is not None:
            out += _validators_text(lst.get("validators") or [])
        for p in lst["primary_records"]:
            out += _primary_text(p)
        left = (view.get("left_out") or {}).get("primary_records", {}).get(lst["index"])
        if left:
            out.append(f"  ... {left:,} more primary records left out (raise --limit, or pick them with --primary A:B)")
        if lst.get("continuation"):
            out.append(f"  continuation  {format_value(lst['continuation'])}")
        if lst.get("stopped"):
            out.append(f"  stopped: {lst['stopped']}")
    for cmd in view.get("commands", []):
        if "hex" in cmd:
            out.append("")
            out += _hex_lines(cmd["hex"], "  ")
    out.append("")
    left = (view.get("left_out") or {}).get("executions", 0)
    out.append(f"executions ({len(view['executions'])}" + (f" shown, {left:,} more left out: raise --limit or narrow "
                                                         "with --list / --primary / --program)" if left else ")"))
    for ex in view["executions"]:
        where = " ".join(f"{k} {ex[key]}" for k, key in (("list", "list_index"), ("primary", "primary_index"),
                                                         ("secondary", "secondary_index"),
                                                         ("command", "command_index")) if ex.get(key) is not None)
        counter = f"  counter {ex['counter']}" if ex.get("counter") is not None else ""
        out.append(f"  #{ex['index']}  {where}  {ex.get('program') or '-'}  {ex['trigger']['type']} "
                   f"{ex['trigger']['text']}{counter}")
        rows = [(ra["binding"], ra["parameter"], ra["kind"], ra.get("register") or "", ra["text"], "<- " + ra["from"])
                for ra in ex["root_arguments"]]
        if rows:
            out += tables.render(("binding", "param", "kind", "register", "value", "from"), rows, indent="      ")
        for ia in ex["ia"]:
            what = "index buffer" if ia["slot"] is None else f"vertex buffer {ia['slot']}"
            out.append(f"      IA {what}: {format_value(ia['fields'])}  <- {ia['from']}")
    if view["end_of_call_reset"]:
        out.append("")
        out.append("end-of-call reset")
        out += tables.render(("set", "what", "parameter/slot", "dwords", "reset to", "touched by"),
                     [(r["binding_set"], r["what"], r["parameter"] if r["parameter"] is not None else
                       (r["slot"] if r["slot"] is not None else "-"),
                       " ".join(map(str, r["dwords"])) if r.get("dwords") else "-", r["reset_to"],
                       ", ".join(r.get("touched_by") or [])) for r in view["end_of_call_reset"]], indent="  ")
    out.append("")
    findings = view["findings"]
    left_findings = (view.get("left_out") or {}).get("findings", 0)
    out.append(f"findings ({len(findings)}" + (f" shown, {left_findings:,} more left out" if left_findings else "")
               + ")" + (":" if findings else ": none"))
    for f in findings:
        out.append(f"  {Finding(**f)}")
    if view.get("findings_suppressed"):
        out.append(f"  ... and {view['findings_suppressed']} more (raise --max-findings)")
    if view.get("stopped_reason"):
        out.append(f"stopped: {view['stopped_reason']}")
    if view.get("info_queue") is not None:
        from d3d12wl.messages.driver_channel import render_info_queue

        out.append("")
        out += render_info_queue(view["info_queue"])
    return "\n".join(out) + "\n"


def _validators_text(invocations: list[dict[str, Any]]) -> list[str]:
    """A list's validator invocations (``dump --validators``): step, area, primary record, slot, validator and the
    pointer values it was bound."""
    if not invocations:
        return ["  validators: none dispatched"]
    rows = [(f"#{v['sequence']}", v["step"], v["area"], "-" if v.get("primary_index") is None else v["primary_index"],
             v["slot"], v.get("validator") or "-",
             " ".join(f"{k}={'NULL' if p is None else _va(p)}" for k, p in (v.get("pointers") or {}).items()))
            for v in invocations]
    return [f"  validators ({len(invocations)})"] + tables.render(("#", "step", "area", "primary", "slot", "validator",
                                                          "pointers"), rows, indent="    ")


def _cells(rows: list[dict[str, Any]]) -> dict[str, str]:
    """A record's field rows as table cells keyed by the member path ``decode`` and the packers spell
    (``MaterialBufferSRV``, ``arg1_Draw.VertexCountPerInstance``): a field's own text (formatted by its C type), a
    struct field's members each by its member name."""
    out: dict[str, str] = {}
    for r in rows:
        if isinstance(r["value"], dict):
            out.update((k, format_value(v, None, k.rsplit(".", 1)[-1]))
                       for k, v in _flatten(r["value"], r["field"] + ".").items())
        else:
            out[r["field"]] = r["text"]
    return out


def _primary_text(p: dict[str, Any]) -> list[str]:
    pcs = f"program command signature {p['pcs']!r}" if p.get("pcs") else "no program command signature"
    out = ["", f"  primary [{p['index']}] @0x{p['va']:x}  {p.get('header') or '-'}  "
               f"{(p.get('record_kind') or '-').lower()} record, {pcs}"]
    out += tables.render(("field", "value"), [(r["field"], r["text"]) for r in p["fields"]], indent="    ")
    if "hex" in p:
        out += _hex_lines(p["hex"], "    ")
    slot = p.get("program_table")
    if slot is not None:
        ident = f'"{slot["identifier_text"]}"' if slot.get("identifier_text") else slot.get("identifier")
        out.append(f"    program table slot {slot['index']} @0x{slot['va']:x}: {slot.get('program') or '(unknown)'}"
                   f"  identifier {ident}")
        for row in slot["tail"]:
            out.append(f"      {row['field']}  {row['text']}")
        if "hex" in slot:
            out += _hex_lines(slot["hex"], "      ")
    if p["secondary_records"]:
        left = p.get("secondary_records_left_out") or 0
        more = f" shown, {left:,} more left out: raise --limit" if left else ""
        out.append(f"    secondary records ({len(p['secondary_records'])}{more})")
        flat = [(s, _cells(s["fields"])) for s in p["secondary_records"]]
        names = list(flat[0][1])
        rows = [[s["index"], f"0x{s['va']:x}", *(cells.get(n, "-") for n in names)] for s, cells in flat]
        out += tables.render(("#", "va", *names), rows, indent="      ")
        for s in p["secondary_records"]:
            if "hex" in s:
                out += _hex_lines(s["hex"], "      ")
    if p.get("skipped"):
        out.append(f"    skipped: {p['skipped']}")
    return out


# ----------------------------------------------------------------------------------------------------------------
# dump at frame scale: a selection of the trace, and a summary of all of it
# ----------------------------------------------------------------------------------------------------------------

#: rows of each kind ``dump`` shows by default (--limit: executions, primary records per list, secondary records per
#: primary record, findings)
DEFAULT_LIMIT = 1000


def selected_trace(trace: Trace, sel: Selection) -> dict[str, Any]:
    """The :meth:`Trace.to_dict` shape of the part of ``trace`` that ``sel`` selects, plus ``left_out`` (what the
    selection matched but ``limit`` left out: executions, primary records per list, secondary records, findings)
    and ``summary`` (:func:`trace_summary` of the whole trace).  One pass over the trace's columns in chunks; only
    what is shown is made into objects."""
    import dataclasses

    from d3d12wl.executor.execution_table import execution_runs
    from d3d12wl.executor.selection import Budget, LeftOut
    from d3d12wl.executor.trace import ListTrace
    from d3d12wl.output.serialize import to_jsonable

    left = LeftOut()
    summary = _Summary()
    shown: list[Any] = []
    executions, primaries, secondaries = Budget(sel.limit), Budget(sel.limit), Budget(sel.limit)
    for run in execution_runs(trace.executions):
        summary.add(run)
        rows = sel.run_rows(run)
        take = executions.take(len(rows))
        left.executions += len(rows) - take
        shown += [run.execution(int(r)) for r in rows[:take]]
    out: dict[str, Any] = {"call": trace.call, "call_args": to_jsonable(trace.call_args), "lists": []}
    fields = [f.name for f in dataclasses.fields(ListTrace)]
    for lt in trace.lists:
        if not sel.takes_list(lt.index):
            continue
        lv = {f: to_jsonable(getattr(lt, f)) for f in fields if f != "primary_records"}
        records = lt.primary_records
        a, b = sel.primary or (0, len(records))
        a, b = max(a, 0), min(b, len(records))
        keep: list[int] = []
        matched = 0
        for lo in range(a, b, 1 << 16):
            hi = min(b, lo + (1 << 16))
            hits = (lo + np.flatnonzero(sel.records(records, lo, hi))).tolist()
            matched += len(hits)
            keep += hits[:primaries.take(len(hits))]
        if matched > len(keep):
            left.primary_records[lt.index] = matched - len(keep)
        lv["primary_records"] = [_record_dict(records[i], secondaries, left) for i in keep]
        out["lists"].append(lv)
    out["executions"] = [to_jsonable(e) for e in shown]
    out["findings"] = to_jsonable(shown_findings(trace, sel, left))
    for name in ("end_of_call_reset", "findings_suppressed", "stopped_reason", "limits", "graphics_lists",
                 "validator_invocations"):
        out[name] = to_jsonable(getattr(trace, name))
    out["left_out"] = left.to_dict()
    out["summary"] = summary.result(trace)
    return out


def shown_findings(trace: Trace, sel: Selection, left: Any = None) -> list[Any]:
    """The findings ``sel`` shows (only those are made), counting the rest in ``left`` (a LeftOut)."""
    from d3d12wl.executor.rows import FindingChunk, finding_chunks
    from d3d12wl.executor.selection import LeftOut

    left = LeftOut() if left is None else left
    budget = Budget(sel.limit)
    shown: list[Any] = []
    for chunk in finding_chunks(trace.findings, sel.finding_rows):
        take = budget.take(len(chunk))
        left.findings += len(chunk) - take
        shown += [chunk.finding(r) for r in range(take)] if isinstance(chunk, FindingChunk) else chunk[:take]
    return shown


def _record_dict(prt: Any, secondaries: Budget, left: Any) -> dict[str, Any]:
    """A primary record's ``to_dict`` shape with the secondary records ``secondaries`` still shows (only those are
    made), counting the rest in ``left``."""
    import dataclasses

    from d3d12wl.output.serialize import to_jsonable

    out = {f.name: to_jsonable(getattr(prt, f.name)) for f in dataclasses.fields(prt)
           if f.name != "secondary_records"}
    n = len(prt.secondary_records)
    shown = secondaries.take(n)
    left.secondary_records += n - shown
    out["secondary_records"] = to_jsonable(prt.secondary_records[:shown])
    ordered = {k: out[k] for k in (f.name for f in dataclasses.fields(prt))}
    if n > shown:
        ordered["secondary_records_left_out"] = n - shown
    return ordered


class _Summary:
    """:func:`trace_summary`, accumulated run by run of the trace's columns."""

    def __init__(self) -> None:
        self.programs: dict[str, list[int]] = {}

    def add(self, run: Any) -> None:
        table = run.table
        cols, names = table.columns, table.names
        n = len(table)

        def member(name: str) -> Any:
            col = cols.get(f"trigger.{name}")
            if col is None:
                return np.zeros(n, dtype=np.int64)
            return np.where(table.is_absent(f"trigger.{name}"), 0, col)

        triggers = np.array([*names["trigger"], ""], dtype=object)[cols["trigger"]] if n else np.zeros(0)
        instances = member("InstanceCount")
        vertices = np.where(triggers == "DRAW", member("VertexCountPerInstance") * instances, 0)
        indices = np.where(triggers == "DRAW_INDEXED", member("IndexCountPerInstance") * instances, 0)
        groups = member("ThreadGroupCountX") * member("ThreadGroupCountY") * member("ThreadGroupCountZ")
        codes = cols["program"]
        for code in np.unique(codes).tolist():
            m = codes == code
            name = names["program"][code] if code >= 0 else "-"
            acc = self.programs.setdefault(name, [0, 0, 0, 0, 0])
            for i, v in enumerate((int(m.sum()), int(vertices[m].sum()), int(indices[m].sum()),
                                   int(instances[m].sum()), int(groups[m].sum()))):
                acc[i] += v

    def result(self, trace: Trace) -> dict[str, Any]:
        by_kind: dict[str, int] = {}
        for (_, kind), n in trace.finding_counts().items():
            by_kind[kind] = by_kind.get(kind, 0) + n
        programs = [{"program": p, "executions": a[0], "vertices": a[1], "indices": a[2], "instances": a[3],
                     "groups": a[4]} for p, a in sorted(self.programs.items(), key=lambda kv: (kv[0] != "-", kv[0]))]
        return {"executions": len(trace.executions), "programs": programs, "findings_by_kind": by_kind,
                "findings_suppressed": trace.findings_suppressed}


def trace_summary(trace: Trace) -> dict[str, Any]:
    """Per program (``-`` for ExecuteIndirect and raytracing-class executions without one): executions and the
    totals of vertices (DRAW), indices (DRAW_INDEXED), instances and thread groups (DISPATCH, DISPATCH_MESH,
    FIXED_DISPATCH); findings by kind.  Computed chunk by chunk from the trace's columns."""
    from d3d12wl.executor.execution_table import execution_runs

    summary = _Summary()
    for run in execution_runs(trace.executions):
        summary.add(run)
    return summary.result(trace)


def summary_lines(summary: dict[str, Any]) -> list[str]:
    out = [f"summary  {summary['executions']:,} executions"]
    if summary["programs"]:
        out += tables.render(("program", "executions", "vertices", "indices", "instances", "groups"),
                             [(p["program"], p["executions"], p["vertices"], p["indices"], p["instances"],
                               p["groups"]) for p in summary["programs"]], indent="  ")
    kinds = summary["findings_by_kind"]
    more = f", {summary['findings_suppressed']} suppressed" if summary.get("findings_suppressed") else ""
    out.append("  findings by kind: " + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none") + more)
    return out
