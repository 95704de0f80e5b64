"""``d3d12wl codegen``: C or HLSL structs for every record a description implies.

d3d12wl codegen SIG.json --lang c [--pcs NAME]     a standalone C11 file (compile with -I headers) with
                                                   _Static_asserts on every sizeof and offsetof
d3d12wl codegen SIG.json --lang hlsl [--pcs NAME]  HLSL structs in the shape of the spec's culling example
d3d12wl codegen SIG.json --lang c --json           {"lang", "source", "structs": [{"name", "record", "owner",
                                                   "size", "stride", "text"}]} for tools

Records: each program command signature's primary, secondary and implicit-path program-table records; each program
whose program-table record differs from its PCS's (the explicit local-root-signature path); each ExecuteIndirect
command signature.  ``--pcs NAME`` restricts the output to that program command signature's records.
"""

from __future__ import annotations

import argparse
import json
import sys

from d3d12wl.cli import summary
from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.layout import record_layouts

#: the plain-text --help description
DESCRIPTION = """\
C or HLSL structs for every record a description implies.

  d3d12wl codegen SIG.json --lang c [--pcs NAME]     a standalone C11 file (compile it with the package's
                                                     headers on the include path) with _Static_asserts on
                                                     every sizeof and offsetof
  d3d12wl codegen SIG.json --lang hlsl [--pcs NAME]  HLSL structs in the shape of the spec's culling example
  d3d12wl codegen SIG.json --lang c --json           {"lang", "source", "structs": [{"name", "record", "owner",
                                                     "size", "stride", "text"}]} for tools

Records: each program command signature's primary, secondary and implicit-path program-table records; each
program whose program-table record differs from its PCS's (the explicit local-root-signature path); each
ExecuteIndirect command signature.  --pcs NAME restricts the output to that program command signature's records."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("codegen", help=summary("codegen"),
                              description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", metavar="SIG.json", help="a JSON description of the objects (the C desc structs as JSON)")
    p.add_argument("--lang", choices=("c", "hlsl"), required=True)
    p.add_argument("--pcs", metavar="NAME", help="only this program command signature's records")
    p.add_argument("--json", action="store_true", help="the generated source and each struct as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    layouts = record_layouts(description.load(args.description), args.pcs)
    text = codegen.c_source(layouts) if args.lang == "c" else codegen.hlsl_source(layouts)
    if not args.json:
        sys.stdout.write(text)
        return 0
    one = codegen.c_struct if args.lang == "c" else codegen.hlsl_struct
    structs = [{"name": codegen.struct_name(r), "record": r.record, "owner": r.owner, "size": r.size,
                "stride": r.min_stride, "text": one(r)} for r in layouts]
    json.dump({"lang": args.lang, "source": text, "structs": structs}, sys.stdout, indent=2)
    sys.stdout.write("\n")
    return 0
