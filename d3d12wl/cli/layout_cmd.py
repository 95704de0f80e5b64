"""The ``d3d12wl layout`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from d3d12wl.cli import _violations, load_description, summary
from d3d12wl.cli._options import add_description_argument, add_json_flag
from d3d12wl.model.argtypes import arg_type_info
from d3d12wl.model.objects import IndirectArgumentDesc, ObjectSet, WorkListArgumentDesc
from d3d12wl.output import tables
from d3d12wl.output.serialize import json_text
from d3d12wl.output.tables import Align
from d3d12wl.records.layout import (
    PROGRAM_TABLE,
    LayoutField,
    RecordLayout,
    command_layout,
    inline_local_slots,
    laying_out_once,
    pcs_layout,
    program_table_layout,
    signature_strides,
)

#: the plain-text --help description
DESCRIPTION = """\
The byte layout of every record class a description implies.

  d3d12wl layout DESC.json          a table per record (offset, size, arg index, arg type, member, source, binding:
                                   the root parameter or IA slot the member sets), padding rows
  d3d12wl layout DESC.json --json   {"program_command_signatures": {NAME: {"class", "record_kind", "primary",
                                   "secondary", "program_table_record"}}, "programs": {NAME:
                                   {"program_table_record"}}, "work_list_signatures": {NAME:
                                   {"min_primary_stride", "min_program_table_stride"}}, "command_signatures":
                                   {NAME: REC}}
                                   REC = {"header", "size", "min_stride", "fields": [{"arg" | "parameter",
                                   "name", "offset", "size"}], "members": [MEMBER]}, plus "declared_stride"
                                   where the description declares a stride that is not the minimum (0: the
                                   broadcast secondary form) and "declared_stride_problems" where it cannot be used
                                   MEMBER = every row of the table: {"offset", "size", "role" (header, identifier,
                                   arg, local, padding), "type" (the arg type, or the role), "name" (null for
                                   padding), "named" (the name is the argument desc's Name), "ctype", "count",
                                   "arg", "parameter", "source", "binding" (GLOBAL_ROOT_SIGNATURE,
                                   LOCAL_ROOT_SIGNATURE, INPUT_ASSEMBLER or null), "root_parameter", "ia_slot",
                                   "dword_offset", "trailing" (padding after the last member)}

Offsets are relative to the record start (the program-table slot start for a program-table record, whose
identifier takes bytes 0..31).  "fields" lists the payload fields; the fixed header is named by "header".  For a
program-table record "size" counts the tail bytes after the 32-byte identifier and "min_stride" is 32 + that
tail, rounded up to 8.

A description that breaks creation-time rules is laid out all the same (the bytes it would mean); one line on
stderr says how many rules it breaks (d3d12wl validate lists them), and --strict makes that exit 1."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("layout", help=summary("layout"),
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_description_argument(p)
    add_json_flag(p, "every record's layout")
    _violations.add_strict_flag(p)
    p.set_defaults(func=run)


#: a signature's argument descs
Args = Sequence[WorkListArgumentDesc | IndirectArgumentDesc]


class _Bindings:
    """What each argument of a signature sets: the binding, its root parameter or IA slot (the synthesized local
    root signature's slot for an ``_INLINE_ROOT_PARAMETER``, worked out on the first one met)."""

    def __init__(self, args: Args) -> None:
        self.args = args
        self._slot: dict[int, int] | None = None

    @property
    def slot(self) -> dict[int, int]:
        if self._slot is None:
            wl = [a for a in self.args if isinstance(a, WorkListArgumentDesc)]
            self._slot = {i: s for s, members in enumerate(inline_local_slots(wl)) for i in members} \
                if len(wl) == len(self.args) else {}
        return self._slot

    def of(self, f: LayoutField) -> tuple[str | None, int | None, int | None]:
        """(binding, root parameter, IA slot) of one member."""
        if f.role == "local":
            return "LOCAL_ROOT_SIGNATURE", f.parameter, None
        if f.role != "arg" or f.arg is None:
            return None, None, None
        arg = self.args[f.arg]
        t = f.arg_type
        if t == "VERTEX_BUFFER_VIEW":
            return "INPUT_ASSEMBLER", None, arg.VertexBuffer.Slot
        if t == "INDEX_BUFFER_VIEW":
            return "INPUT_ASSEMBLER", None, None
        if t == "INLINE_ROOT_PARAMETER":
            return "LOCAL_ROOT_SIGNATURE", self.slot.get(f.arg), None
        member = arg_type_info(t).union_member if t is not None else None
        rpi = getattr(getattr(arg, member), "RootParameterIndex", None) if member else None
        if rpi is None:
            return None, None, None
        binding = arg.binding_name if isinstance(arg, WorkListArgumentDesc) else "GLOBAL_ROOT_SIGNATURE"
        return binding, rpi, None


def _usable(layout: RecordLayout, stride: int | None) -> tuple[int | None, list[str]]:
    """The declared ``stride`` when the record can be read at it (else None), and why it cannot."""
    problems = layout.stride_problems(stride) if stride else []
    return (None if problems or not stride else stride), problems


def member_rows(layout: RecordLayout, bindings: _Bindings, stride: int | None = None) -> list[dict[str, Any]]:
    """Every member and hole of one record in offset order, with every fact the table shows (``--json``'s
    MEMBER): the one source of both views.  Padding runs up to ``stride`` when the record can be read at it;
    ``bindings`` are those of the record's signature (made once per signature)."""
    rows: list[dict[str, Any]] = []
    for f in layout.fields:
        binding, rpi, ia = bindings.of(f)
        kind = "local root parameter" if f.role == "local" else f.arg_type if f.role == "arg" else f.role
        rows.append({"offset": f.offset, "size": f.size, "role": f.role, "type": kind, "name": f.name,
                     "named": f.named, "ctype": f.ctype, "count": f.count, "arg": f.arg, "parameter": f.parameter,
                     "source": f.source, "binding": binding, "root_parameter": rpi, "ia_slot": ia,
                     "dword_offset": f.dword_offset, "trailing": False})
    for p in layout.padding(_usable(layout, stride)[0]):
        rows.append({"offset": p.offset, "size": p.size, "role": "padding", "type": "padding", "name": None,
                     "named": False, "ctype": None, "count": 1, "arg": None, "parameter": None, "source": None,
                     "binding": None, "root_parameter": None, "ia_slot": None, "dword_offset": None,
                     "trailing": p.trailing})
    return sorted(rows, key=lambda r: r["offset"])


def record_json(layout: RecordLayout | None, bindings: _Bindings | None = None) -> dict[str, Any] | None:
    """One REC of the ``--json`` output."""
    if layout is None:
        return None
    fields = []
    for f in layout.payload_fields:
        key = {"parameter": f.parameter} if f.role == "local" else {"arg": f.arg}
        fields.append({**key, "name": f.name, "offset": f.offset, "size": f.size})
    size = layout.tail_size if layout.record == PROGRAM_TABLE else layout.size
    out: dict[str, Any] = {"header": layout.header, "size": size, "min_stride": layout.min_stride, "fields": fields}
    if layout.declared_stride is not None and layout.declared_stride != layout.min_stride:
        out["declared_stride"] = layout.declared_stride  # 0: a secondary record's broadcast form
        problems = _usable(layout, layout.declared_stride)[1]
        if problems:
            out["declared_stride_problems"] = problems
    out["members"] = member_rows(layout, bindings or _Bindings(()), layout.declared_stride)
    return out


class _PerSignature:
    """One :class:`_Bindings` per argument list (a PCS and its programs share one)."""

    def __init__(self) -> None:
        self._made: dict[int, tuple[Args, _Bindings]] = {}

    def of(self, args: Args) -> _Bindings:
        hit = self._made.get(id(args))
        if hit is None or hit[0] is not args:
            hit = self._made[id(args)] = (args, _Bindings(args))
        return hit[1]


def layout_json(objects: ObjectSet) -> dict[str, Any]:
    bindings = _PerSignature()
    out: dict[str, Any] = {"program_command_signatures": {}, "programs": {}, "work_list_signatures": {},
                           "command_signatures": {}}
    for name, pcs in objects.program_command_signatures.items():
        pl = pcs_layout(pcs)
        b = bindings.of(pcs.pArgumentDescs)
        out["program_command_signatures"][name] = {
            "class": pl.executable_class.value, "record_kind": pl.record_kind.value,
            "primary": record_json(pl.primary, b), "secondary": record_json(pl.secondary, b),
            "program_table_record": record_json(pl.program_table, b)}
    for name, program in objects.programs.items():
        pargs = program.ProgramCommandSignature.pArgumentDescs if program.ProgramCommandSignature else []
        out["programs"][name] = {"program_table_record": record_json(program_table_layout(program),
                                                                     bindings.of(pargs))}
    for name, wls in objects.work_list_signatures.items():
        s = signature_strides(wls, objects)
        out["work_list_signatures"][name] = {"min_primary_stride": s.min_primary_stride,
                                             "min_program_table_stride": s.min_program_table_stride}
    for name, cs in objects.command_signatures.items():
        out["command_signatures"][name] = record_json(command_layout(cs), bindings.of(cs.pArgumentDescs))
    return out


_COLUMNS = ("offset", "size", "arg", "type", "member", "source", "binding")
_ALIGN: tuple[Align, ...] = (">", ">", ">", "<", "<", "<", "<")


def _binding_text(row: dict[str, Any]) -> str:
    if row["binding"] == "INPUT_ASSEMBLER":
        return f"IA slot {row['ia_slot']}" if row["ia_slot"] is not None else "IA index buffer"
    if row["binding"] is None or row["root_parameter"] is None:
        return "-" if row["role"] != "padding" else ""
    where = "global" if row["binding"] == "GLOBAL_ROOT_SIGNATURE" else "local"
    return f"{where} {row['root_parameter']}"


def record_table(title: str, layout: RecordLayout, indent: str = "  ", stride: int | None = None,
                 bindings: _Bindings | None = None) -> list[str]:
    """An aligned table of one record, padding rows included: up to ``stride`` when the description declares a
    usable one (a secondary record's SecondaryRecordByteStride, an ExecuteIndirect ByteStride), else up to the
    minimum stride."""
    broadcast = stride == 0 and layout.broadcast_ok
    usable, problems = _usable(layout, stride)
    table = []
    for r in member_rows(layout, bindings or _Bindings(()), stride):
        if r["role"] == "padding":
            table.append((str(r["offset"]), str(r["size"]), "", "padding", "(trailing)" if r["trailing"] else "",
                          "", ""))
            continue
        arg = f"p{r['parameter']}" if r["role"] == "local" else str(r["arg"]) if r["role"] == "arg" else "-"
        member = r["name"] + (f"[{r['count']}]" if r["count"] > 1 else "")
        table.append((str(r["offset"]), str(r["size"]), arg, r["type"] or "", member, r["source"] or "-",
                      _binding_text(r)))
    head = f"{indent}{title}: {layout.size} bytes used, min stride {layout.min_stride}" + (
        f", stride {usable}" if usable is not None and usable != layout.min_stride else "") + (
        ", declared stride 0 (broadcast: every secondary index reads the list's first record)" if broadcast else "") + (
        f", header {layout.header}" if layout.header else "")
    lines = [head] + [f"{indent}  (declared stride: {problem})" for problem in problems]
    lines += tables.render(_COLUMNS, table, indent=f"{indent}  ", align=_ALIGN)
    return lines


def layout_text(objects: ObjectSet) -> str:
    bindings = _PerSignature()
    lines: list[str] = []
    for name, pcs in objects.program_command_signatures.items():
        pl = pcs_layout(pcs)
        lines.append(f"program command signature {name}: {pl.executable_class.value}, {pl.record_kind.value}")
        for title, rec, stride in (("primary record", pl.primary, None),
                                   ("secondary record", pl.secondary, pcs.SecondaryRecordByteStride),
                                   ("program-table record (implicit path)", pl.program_table, None)):
            if rec is not None:
                lines += record_table(title, rec, stride=stride, bindings=bindings.of(pcs.pArgumentDescs))
        lines.append("")
    for name, program in objects.programs.items():
        rec = program_table_layout(program)
        if rec is not None:
            pargs = program.ProgramCommandSignature.pArgumentDescs if program.ProgramCommandSignature else []
            lines += record_table(f"program {name}: program-table record", rec, indent="", bindings=bindings.of(pargs))
            lines.append("")
    for name, wls in objects.work_list_signatures.items():
        s = signature_strides(wls, objects)
        lines.append(f"work list signature {name}: min primary stride {s.min_primary_stride}, "
                     f"min program-table stride {s.min_program_table_stride}")
    if objects.work_list_signatures:
        lines.append("")
    for name, cs in objects.command_signatures.items():
        lines += record_table(f"command signature {name}", command_layout(cs), indent="", stride=cs.ByteStride,
                              bindings=bindings.of(cs.pArgumentDescs))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def run(args: argparse.Namespace) -> int:
    objects = load_description(args)
    with laying_out_once():  # (the rules behind the violations line read the same layouts)
        if args.json:
            sys.stdout.write(json_text(layout_json(objects), indent=2))
            sys.stdout.write("\n")
        else:
            sys.stdout.write(layout_text(objects))
        return _violations.finish(args, objects, 0)
