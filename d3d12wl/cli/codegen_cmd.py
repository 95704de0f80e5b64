"""The ``d3d12wl codegen`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys

from d3d12wl import abi
from d3d12wl.cli import _violations, load_description, summary
from d3d12wl.errors import LayoutError
from d3d12wl.model.objects import ObjectSet
from d3d12wl.records import codegen, renderdoc
from d3d12wl.records.decode import declared_stride
from d3d12wl.records.layout import RecordLayout, laying_out_once, record_id, record_layouts
from d3d12wl.serialize import json_text

#: the plain-text --help description
DESCRIPTION = """\
C, HLSL or RenderDoc structs for every record a description implies.

  d3d12wl codegen SIG.json --lang c [--pcs NAME]     a standalone C11 file (compile it with the package's
                                                     headers on the include path) with _Static_asserts on
                                                     every sizeof and offsetof
  d3d12wl codegen SIG.json --lang hlsl [--pcs NAME]  HLSL structs in the shape of the spec's culling example
  d3d12wl codegen SIG.json --lang renderdoc          RenderDoc buffer-viewer formats: one self-contained format
                                                     per record (at its declared stride), explicit [[offset]]s
                                                     and [[pad]]s, enums declared, VAs [[hex]]
  d3d12wl codegen SIG.json --lang renderdoc --struct D3D12_DISPATCH_LIST_INPUT1
                                                     ... and for any declared struct (repeatable)
  d3d12wl codegen SIG.json --lang c --json           {"lang", "source", "structs": [{"name", "record", "owner",
                                                     "size", "stride", "text"}]} for tools

Records: each program command signature's primary, secondary and implicit-path program-table records; each
program whose program-table record differs from its PCS's (the explicit local-root-signature path); each
ExecuteIndirect command signature.  --pcs NAME restricts the output to that program command signature's records,
--record ID (PCS.secondary, as decode and abi check --record name them; repeatable) to those records; with
--struct and no --record, only the structs are written.

A description that breaks creation-time rules is generated all the same; one line on stderr says how many rules
it breaks (d3d12wl validate lists them), and --strict makes that exit 1."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("codegen", help=summary("codegen"),
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", metavar="SIG.json", help="a JSON description of the objects (the C desc structs as JSON)")
    p.add_argument("--lang", choices=("c", "hlsl", "renderdoc"), required=True)
    p.add_argument("--pcs", metavar="NAME", help="only this program command signature's records")
    p.add_argument("--record", action="append", default=[], metavar="ID", help="only this record (PCS.secondary, "
                                                                               "EI.command); repeatable")
    p.add_argument("--struct", action="append", default=[], metavar="NAME",
                   help="--lang renderdoc: also the format of this declared struct; repeatable")
    p.add_argument("--json", action="store_true", help="the generated source and each struct as JSON")
    _violations.add_strict_flag(p)
    p.set_defaults(func=run)


def _select(objects: ObjectSet, args: argparse.Namespace) -> list[RecordLayout]:
    layouts = record_layouts(objects, args.pcs)
    if args.struct and not args.record:
        return []
    if not args.record:
        return layouts
    by_id = {record_id(r): r for r in layouts}
    unknown = [r for r in args.record if r not in by_id]
    if unknown:
        raise LayoutError(f"no record {', '.join(map(repr, unknown))}; records: {', '.join(by_id) or 'none'}",
                          where="--record")
    return [by_id[r] for r in args.record]


def run(args: argparse.Namespace) -> int:
    objects = load_description(args)
    with laying_out_once():  # (the rules behind the violations line read the same layouts)
        return _violations.finish(args, objects, _generate(objects, args))


def _generate(objects: ObjectSet, args: argparse.Namespace) -> int:
    layouts = _select(objects, args)
    if args.struct and args.lang != "renderdoc":
        raise LayoutError("--struct applies to --lang renderdoc (the C and HLSL of declared structs are the "
                          "headers' own)", where="--struct")
    for name in args.struct:
        if name not in abi.types():
            raise LayoutError(f"no declared struct named {name!r} (`d3d12wl abi` lists them)", where="--struct")
    strides = {record_id(r): declared_stride(r)[0] for r in layouts}
    if args.lang == "c":
        text = codegen.c_source(layouts)
    elif args.lang == "hlsl":
        text = codegen.hlsl_source(layouts)
    else:
        text = renderdoc.source(layouts, args.struct, strides)
    if not args.json:
        sys.stdout.write(text)
        return 0
    if args.lang == "renderdoc":
        structs = [{"name": codegen.struct_name(r), "record": r.record, "owner": r.owner, "size": r.size,
                    "stride": strides[record_id(r)] or r.min_stride,
                    "text": renderdoc.record_format(r, strides[record_id(r)])} for r in layouts]
        structs += [{"name": s, "record": None, "owner": None, "size": abi.sizeof(s), "stride": abi.sizeof(s),
                     "text": renderdoc.struct_format(s)} for s in args.struct]
    else:
        one = codegen.c_struct if args.lang == "c" else codegen.hlsl_struct
        structs = [{"name": codegen.struct_name(r), "record": r.record, "owner": r.owner, "size": r.size,
                    "stride": r.min_stride, "text": one(r)} for r in layouts]
    sys.stdout.write(json_text({"lang": args.lang, "source": text, "structs": structs}, indent=2))
    sys.stdout.write("\n")
    return 0
