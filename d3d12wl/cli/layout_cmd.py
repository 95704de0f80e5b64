"""The ``d3d12wl layout`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from d3d12wl import tables
from d3d12wl.cli import _violations, load_description, summary
from d3d12wl.model.objects import ObjectSet
from d3d12wl.records.layout import (
    PROGRAM_TABLE,
    RecordLayout,
    command_layout,
    laying_out_once,
    pcs_layout,
    program_table_layout,
    signature_strides,
)
from d3d12wl.serialize import json_text
from d3d12wl.tables import Align

#: the plain-text --help description
DESCRIPTION = """\
The byte layout of every record class a description implies.

  d3d12wl layout SIG.json          a table per record (offset, size, arg index, arg type, member, source),
                                   padding rows
  d3d12wl layout SIG.json --json   {"program_command_signatures": {NAME: {"class", "record_kind", "primary",
                                   "secondary", "program_table_record"}}, "programs": {NAME:
                                   {"program_table_record"}}, "work_list_signatures": {NAME:
                                   {"min_primary_stride", "min_program_table_stride"}}, "command_signatures":
                                   {NAME: REC}}
                                   REC = {"header", "size", "min_stride", "fields": [{"arg" | "parameter",
                                   "name", "offset", "size"}]}, plus "declared_stride" where the description
                                   declares a stride that is not the minimum (0: the broadcast secondary form)

Offsets are relative to the record start (the program-table slot start for a program-table record, whose
identifier takes bytes 0..31).  "fields" lists the payload fields; the fixed header is named by "header".  For a
program-table record "size" counts the tail bytes after the 32-byte identifier and "min_stride" is 32 + that
tail, rounded up to 8.

A description that breaks creation-time rules is laid out all the same (the bytes it would mean); one line on
stderr says how many rules it breaks (d3d12wl validate lists them), and --strict makes that exit 1."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("layout", help=summary("layout"),
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", metavar="SIG.json", help="a JSON description of the objects (the C desc structs as JSON)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    _violations.add_strict_flag(p)
    p.set_defaults(func=run)


def record_json(layout: RecordLayout | None) -> dict[str, Any] | None:
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
    return out


def layout_json(objects: ObjectSet) -> dict[str, Any]:
    out: dict[str, Any] = {"program_command_signatures": {}, "programs": {}, "work_list_signatures": {},
                           "command_signatures": {}}
    for name, pcs in objects.program_command_signatures.items():
        pl = pcs_layout(pcs)
        out["program_command_signatures"][name] = {
            "class": pl.executable_class.value, "record_kind": pl.record_kind.value,
            "primary": record_json(pl.primary), "secondary": record_json(pl.secondary),
            "program_table_record": record_json(pl.program_table)}
    for name, program in objects.programs.items():
        out["programs"][name] = {"program_table_record": record_json(program_table_layout(program))}
    for name, wls in objects.work_list_signatures.items():
        s = signature_strides(wls, objects)
        out["work_list_signatures"][name] = {"min_primary_stride": s.min_primary_stride,
                                             "min_program_table_stride": s.min_program_table_stride}
    for name, cs in objects.command_signatures.items():
        out["command_signatures"][name] = record_json(command_layout(cs))
    return out


_COLUMNS = ("offset", "size", "arg", "type", "member", "source")
_ALIGN: tuple[Align, ...] = (">", ">", ">", "<", "<", "<")


def record_table(title: str, layout: RecordLayout, indent: str = "  ", stride: int | None = None) -> list[str]:
    """An aligned table of one record, padding rows included: up to ``stride`` when the description declares a
    usable one (a secondary record's SecondaryRecordByteStride, an ExecuteIndirect ByteStride), else up to the
    minimum stride."""
    broadcast = stride == 0 and layout.broadcast_ok
    problems = layout.stride_problems(stride) if stride else []
    if problems or not stride:
        stride = None
    items: list[tuple[int, tuple[str, ...]]] = []
    for f in layout.fields:
        if f.role == "local":
            arg, kind = f"p{f.parameter}", "local root parameter"
        elif f.role == "arg":
            arg, kind = str(f.arg), f.arg_type or ""
        else:
            arg, kind = "-", f.role
        member = f.name + (f"[{f.count}]" if f.count > 1 else "")
        items.append((f.offset, (str(f.offset), str(f.size), arg, kind, member, f.source or "-")))
    for p in layout.padding(stride):
        items.append((p.offset, (str(p.offset), str(p.size), "", "padding", "(trailing)" if p.trailing else "", "")))
    head = f"{indent}{title}: {layout.size} bytes used, min stride {layout.min_stride}" + (
        f", stride {stride}" if stride is not None and stride != layout.min_stride else "") + (
        ", declared stride 0 (broadcast: every secondary index reads the list's first record)" if broadcast else "") + (
        f", header {layout.header}" if layout.header else "")
    lines = [head] + [f"{indent}  (declared stride: {problem})" for problem in problems]
    lines += tables.render(_COLUMNS, [r for _, r in sorted(items, key=lambda i: i[0])], indent=f"{indent}  ",
                           align=_ALIGN)
    return lines


def layout_text(objects: ObjectSet) -> str:
    lines: list[str] = []
    for name, pcs in objects.program_command_signatures.items():
        pl = pcs_layout(pcs)
        lines.append(f"program command signature {name}: {pl.executable_class.value}, {pl.record_kind.value}")
        for title, rec, stride in (("primary record", pl.primary, None),
                                   ("secondary record", pl.secondary, pcs.SecondaryRecordByteStride),
                                   ("program-table record (implicit path)", pl.program_table, None)):
            if rec is not None:
                lines += record_table(title, rec, stride=stride)
        lines.append("")
    for name, program in objects.programs.items():
        rec = program_table_layout(program)
        if rec is not None:
            lines += record_table(f"program {name}: program-table record", rec, indent="")
            lines.append("")
    for name, wls in objects.work_list_signatures.items():
        s = signature_strides(wls, objects)
        lines.append(f"work list signature {name}: min primary stride {s.min_primary_stride}, "
                     f"min program-table stride {s.min_program_table_stride}")
    if objects.work_list_signatures:
        lines.append("")
    for name, cs in objects.command_signatures.items():
        lines += record_table(f"command signature {name}", command_layout(cs), indent="", stride=cs.ByteStride)
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
