"""The one line ``layout`` and ``codegen`` print on stderr when the description they read breaks creation-time
rules (a layout of a signature the runtime would refuse to create is still shown: it is what the bytes would be),
and ``--strict``, which makes that exit 1 as ``validate`` does."""

from __future__ import annotations

import argparse
import sys

from d3d12wl.model.objects import ObjectSet


def add_strict_flag(p: argparse.ArgumentParser) -> None:
    p.add_argument("--strict", action="store_true",
                   help="exit 1 when the description breaks a creation-time rule (d3d12wl validate lists them); "
                        "without it the output is written and one line on stderr says how many")


def finish(args: argparse.Namespace, objects: ObjectSet, code: int) -> int:
    """After the command wrote its output: the line on stderr if ``objects`` break creation-time rules (checked for
    a Tier 2 device, validate's default), and the exit status: ``code``, or 1 under ``--strict`` when they do.  Run
    it inside the command's ``laying_out_once()``, so the rules reuse the layouts the command made."""
    from d3d12wl import abi
    from d3d12wl.model.state import DeviceCaps
    from d3d12wl.rules import check_objects

    violations = check_objects(objects, DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_2")))
    if not violations:
        return code
    first = violations[0]
    print(f"d3d12wl {args.command}: warning: the description breaks {len(violations)} creation-time rule(s), the "
          f"first {first.rule} at {first.path}; d3d12wl validate lists them"
          + ("" if args.strict else " (--strict makes this exit 1)"), file=sys.stderr)
    return 1 if args.strict else code
