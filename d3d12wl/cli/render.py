"""The human rendering of what a call executes (design.md, "Output"): ``d3d12wl dump``'s text, aligned tables and
annotated hex, rendered from the executor's :class:`~d3d12wl.executor.dump_view.DumpView` (which ``dump --json``
prints as it is).  Nothing here reads a trace, a capture or a byte: the view holds every value and its text."""

from __future__ import annotations

from collections.abc import Sequence

from d3d12wl.executor.dump_view import DumpView, FieldRow, HexBlock, PrimaryView
from d3d12wl.executor.trace import ValidatorInvocation
from d3d12wl.executor.trace_selection import TraceSummary
from d3d12wl.executor.value_text import format_value
from d3d12wl.output import tables

__all__ = ["render_text", "summary_lines"]


def _hex_lines(block: HexBlock, indent: str) -> list[str]:
    out = [f"{indent}{block.title}:"]
    for ln in block.lines:
        out.append(f"{indent}  0x{ln.va:08x} +0x{ln.offset:02x}  {ln.hex:<47}  {ln.label}")
    return out


def render_text(view: DumpView) -> str:
    """The human rendering of a :func:`~d3d12wl.executor.dump_view.dump_view`."""
    out: list[str] = []
    if view.capture:
        out.append(f"capture  {view.capture}")
    out.append(f"call     {view.call.text}")
    dev = view.device
    out.append(f"device   {dev.Tier}, DispatchRaysSupported={str(dev.DispatchRaysSupported).lower()}")
    if view.summary is not None:
        out += summary_lines(view.summary)
    left_out = view.left_out
    for lst in view.lists:
        out.append("")
        sig = f"signature {lst.signature_index} {lst.signature!r}" if lst.signature else "no signature"
        out.append(f"list {lst.index}  {lst.input_struct} @0x{lst.va:x}  {sig}  {lst.executable_class or '-'}  "
                   f"{lst.ordering or ''}".rstrip())
        if lst.ordering_note:
            out.append(f"  ({lst.ordering_note})")
        out += tables.render(("field", "value"), [(h.field, h.text) for h in lst.header], indent="  ")
        if lst.binding:
            out.append(f"  binding  {format_value(lst.binding, 'D3D12_WORK_LIST_BINDING')}")
        if lst.hex is not None:
            out += _hex_lines(lst.hex, "  ")
        if lst.validators or view.validators is not None:
            out += _validators_text(lst.validators)
        for p in lst.primary_records:
            out += _primary_text(p)
        left = left_out.primary_records.get(lst.index) if left_out is not None else None
        if left:
            out.append(f"  ... {left:,} more primary records left out (raise --limit, or pick them with --primary A:B)")
        if lst.continuation:
            out.append(f"  continuation  {format_value(lst.continuation)}")
        if lst.stopped:
            out.append(f"  stopped: {lst.stopped}")
    for cmd in view.commands:
        if cmd.hex is not None:
            out.append("")
            out += _hex_lines(cmd.hex, "  ")
    out.append("")
    left = left_out.executions if left_out is not None else 0
    out.append(f"executions ({len(view.executions)}" + (f" shown, {left:,} more left out: raise --limit or narrow "
                                                       "with --list / --primary / --program)" if left else ")"))
    for ex in view.executions:
        where = " ".join(f"{k} {v}" for k, v in (("list", ex.list_index), ("primary", ex.primary_index),
                                                 ("secondary", ex.secondary_index),
                                                 ("command", ex.command_index)) if v is not None)
        counter = f"  counter {ex.counter}" if ex.counter is not None else ""
        out.append(f"  #{ex.index}  {where}  {ex.program or '-'}  {ex.trigger.type} {ex.trigger.text}{counter}")
        rows = [(ra.binding, ra.parameter, ra.kind, ra.register or "", ra.text, "<- " + ra.from_)
                for ra in ex.root_arguments]
        if rows:
            out += tables.render(("binding", "param", "kind", "register", "value", "from"), rows, indent="      ")
        for ia in ex.ia:
            what = "index buffer" if ia.slot is None else f"vertex buffer {ia.slot}"
            out.append(f"      IA {what}: {format_value(ia.fields)}  <- {ia.from_}")
    if view.end_of_call_reset:
        out.append("")
        out.append("end-of-call reset")
        out += tables.render(("set", "what", "parameter/slot", "dwords", "reset to", "touched by"),
                             [(r.binding_set, r.what, r.parameter if r.parameter is not None else
                               (r.slot if r.slot is not None else "-"),
                               " ".join(map(str, r.dwords)) if r.dwords else "-", r.reset_to,
                               ", ".join(r.touched_by or [])) for r in view.end_of_call_reset], indent="  ")
    out.append("")
    findings = view.findings
    left_findings = left_out.findings if left_out is not None else 0
    out.append(f"findings ({len(findings)}" + (f" shown, {left_findings:,} more left out" if left_findings else "")
               + ")" + (":" if findings else ": none"))
    out += [f"  {f}" for f in findings]
    if view.findings_suppressed:
        out.append(f"  ... and {view.findings_suppressed} more (raise --max-findings)")
    if view.stopped_reason:
        out.append(f"stopped: {view.stopped_reason}")
    if view.info_queue is not None:
        from d3d12wl.messages.driver_channel import render_info_queue

        out.append("")
        out += render_info_queue(view.info_queue)
    return "\n".join(out) + "\n"


def _validators_text(invocations: Sequence[ValidatorInvocation]) -> list[str]:
    """A list's validator invocations (``dump --validators``): step, area, primary record, slot, validator and the
    pointer values it was bound."""
    if not invocations:
        return ["  validators: none dispatched"]
    rows = [(f"#{v.sequence}", v.step, v.area, "-" if v.primary_index is None else v.primary_index, v.slot,
             v.validator or "-", " ".join(f"{k}={'NULL' if p is None else f'0x{p:x}'}" for k, p in v.pointers.items()))
            for v in invocations]
    return [f"  validators ({len(invocations)})"] + tables.render(("#", "step", "area", "primary", "slot", "validator",
                                                                  "pointers"), rows, indent="    ")


def _cells(rows: list[FieldRow]) -> dict[str, str]:
    """A record's field rows as table cells keyed by the member path ``decode`` and the packers spell
    (``MaterialBufferSRV``, ``arg1_Draw.VertexCountPerInstance``): a field's own text (formatted by its C type), a
    struct field's members each by its member name."""
    out: dict[str, str] = {}
    for r in rows:
        if isinstance(r.value, dict):
            out.update((k, format_value(v, None, k.rsplit(".", 1)[-1])) for k, v in _members(r.value, r.field + "."))
        else:
            out[r.field] = r.text
    return out


def _members(value: dict[str, object], prefix: str) -> list[tuple[str, object]]:
    """A struct value's leaf members by path."""
    out: list[tuple[str, object]] = []
    for k, v in value.items():
        if isinstance(v, dict):
            out += _members(v, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", v))
    return out


def _primary_text(p: PrimaryView) -> list[str]:
    pcs = f"program command signature {p.pcs!r}" if p.pcs else "no program command signature"
    out = ["", f"  primary [{p.index}] @0x{p.va:x}  {p.header or '-'}  {(p.record_kind or '-').lower()} record, {pcs}"]
    out += tables.render(("field", "value"), [(r.field, r.text) for r in p.fields], indent="    ")
    if p.hex is not None:
        out += _hex_lines(p.hex, "    ")
    slot = p.program_table
    if slot is not None:
        ident = f'"{slot.identifier_text}"' if slot.identifier_text else slot.identifier
        out.append(f"    program table slot {slot.index} @0x{slot.va:x}: {slot.program or '(unknown)'}"
                   f"  identifier {ident}")
        for row in slot.tail:
            out.append(f"      {row.field}  {row.text}")
        if slot.hex is not None:
            out += _hex_lines(slot.hex, "      ")
    if p.secondary_records:
        left = p.secondary_records_left_out or 0
        more = f" shown, {left:,} more left out: raise --limit" if left else ""
        out.append(f"    secondary records ({len(p.secondary_records)}{more})")
        flat = [(s, _cells(s.fields)) for s in p.secondary_records]
        names = list(flat[0][1])
        rows = [[s.index, f"0x{s.va:x}", *(cells.get(n, "-") for n in names)] for s, cells in flat]
        out += tables.render(("#", "va", *names), rows, indent="      ")
        for s in p.secondary_records:
            if s.hex is not None:
                out += _hex_lines(s.hex, "      ")
    if p.skipped:
        out.append(f"    skipped: {p.skipped}")
    return out


def summary_lines(summary: TraceSummary) -> list[str]:
    """A trace's summary: its executions, per program their totals, its findings by kind."""
    out = [f"summary  {summary.executions:,} executions"]
    if summary.programs:
        out += tables.render(("program", "executions", "vertices", "indices", "instances", "groups"),
                             [(p.program, p.executions, p.vertices, p.indices, p.instances, p.groups)
                              for p in summary.programs], indent="  ")
    kinds = summary.findings_by_kind
    more = f", {summary.findings_suppressed} suppressed" if summary.findings_suppressed else ""
    out.append("  findings by kind: " + (", ".join(f"{k} {n}" for k, n in sorted(kinds.items())) or "none") + more)
    return out
