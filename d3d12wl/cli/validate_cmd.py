"""``d3d12wl validate DESC.json``: every creation-time violation in a JSON description; exit 1 if any, 0 if none."""

from __future__ import annotations

import argparse

from d3d12wl import abi
from d3d12wl.cli import load_description, summary
from d3d12wl.cli._options import add_description_argument, add_json_flag, add_tier_flag
from d3d12wl.model.state import DeviceCaps
from d3d12wl.output import tables
from d3d12wl.output.serialize import json_text
from d3d12wl.records.layout import laying_out_once
from d3d12wl.rules import check_objects
from d3d12wl.rules.notes import notes


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "validate", help=summary("validate"),
        description="Check every object of a JSON description (the C desc structs as JSON) against "
                    "the creation-time rules of the Work Lists and ExecuteIndirect specs, and print every violation "
                    "with its rule or section and member path, then notes on what is legal but easy to get wrong "
                    "(a broadcast SecondaryRecordByteStride of 0).  Exit status: 0 no violation (notes or not), 1 "
                    "violations, 2 the file could not be read.")
    add_description_argument(p)
    add_json_flag(p, '{"violations": [...], "count": N, "notes": [...]}')
    add_tier_flag(p, default=2, default_text="2: the device to validate for")
    p.add_argument("--dispatch-rays", action="store_true",
                   help="the device reports D3D12_FEATURE_DATA_WORK_LISTS::DispatchRaysSupported")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    objects = load_description(args)
    caps = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{args.tier}"),
                      DispatchRaysSupported=args.dispatch_rays)
    with laying_out_once():  # (the rules and the notes read the same layouts)
        violations = check_objects(objects, caps)
        found = notes(objects)
    if args.json:
        print(json_text({"violations": [v.to_dict() for v in violations], "count": len(violations),
                          "notes": [n.to_dict() for n in found]}, indent=2))
        return 1 if violations else 0
    if violations:
        for line in tables.render(("rule", "path", "message"), [(v.rule, v.path, v.message) for v in violations],
                                  align=("<", "<", "<")):
            print(line)
        print(f"{len(violations)} violation(s)")
    else:
        print("no violations")
    if found:
        for line in tables.render(("note", "path", "message"), [(n.rule, n.path, n.message) for n in found],
                                  align=("<", "<", "<")):
            print(line)
    return 1 if violations else 0
