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

from d3d12wl import codegen, description
from d3d12wl.errors import DescriptionError
from d3d12wl.layout import RecordLayout, command_layout, pcs_layout, program_table_layout
from d3d12wl.model import ObjectSet


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("codegen", help="C / HLSL structs for the records of a description",
                              description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", metavar="SIG.json", help="a JSON description (design.md format)")
    p.add_argument("--lang", choices=("c", "hlsl"), required=True)
    p.add_argument("--pcs", metavar="NAME", help="only this program command signature's records")
    p.add_argument("--json", action="store_true", help="the generated source and each struct as JSON")
    p.set_defaults(func=run)


def record_layouts(objects: ObjectSet, pcs_name: str | None = None) -> list[RecordLayout]:
    """Every record layout of a set, in description order (see the module docstring)."""
    if pcs_name is not None and pcs_name not in objects.program_command_signatures:
        known = ", ".join(objects.program_command_signatures) or "none"
        raise DescriptionError(f"no program command signature named {pcs_name!r}; known: {known}", where="--pcs")
    out: list[RecordLayout] = []
    for name, pcs in objects.program_command_signatures.items():
        if pcs_name is None or name == pcs_name:
            pl = pcs_layout(pcs)
            out += [r for r in (pl.primary, pl.secondary, pl.program_table) if r is not None]
    for program in objects.programs.values():
        program_pcs = program.ProgramCommandSignature
        if program_pcs is None or (pcs_name is not None and program_pcs.name != pcs_name):
            continue
        own, implicit = program_table_layout(program), pcs_layout(program_pcs).program_table
        if own is not None and (implicit is None or own.fields != implicit.fields):
            out.append(own)
    if pcs_name is None:
        out += [command_layout(cs) for cs in objects.command_signatures.values()]
    return out


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
