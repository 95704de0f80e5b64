"""The ``d3d12wl remap`` command: its options in ``register``, its work in ``run``; what it does, for users, is
:data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, add_output_flag, add_verify_flag
from d3d12wl.cli.exec_cmd import add_limit_flags, limits_from
from d3d12wl.output import tables

#: the plain-text --help description
DESCRIPTION = """\
d3d12wl remap CAPTURE --va-map MAP [--heap-map MAP] [--identifier-map MAP] -o OUT [--keep-unmapped] [--verify]:
rebase a capture for replay on another run, driver or GPU.

Every reference by value the call reads (the rows of d3d12wl patch-list) is rewritten and every other byte is
kept: GPU VAs through --va-map (ranges old_base,size,new_base: CSV lines or a JSON array of {old_base, size,
new_base}); the memory regions move with their ranges, and so do the call's buffers, SetProgram's table bindings,
the root arguments, IA views and the dispatch inputs.  Descriptor handles through --heap-map (per heap type
CBV_SRV_UAV / SAMPLER: new_start and new_increment, and old_start, old_increment, num_descriptors where the capture
gives no heap range: CSV heap,old_start,old_increment,new_start,new_increment,num_descriptors or a JSON object
keyed by heap type); descriptor i of the old heap is descriptor i of the new one.  Program identifiers through
--identifier-map (old,new per line or a JSON object: old is a program name or 64 hex digits, new 64 hex digits),
the programs' own identifiers with them.  Without --heap-map or --identifier-map those references stay.

A reference into no range of its map is an error finding naming the field, and nothing is written, unless
--keep-unmapped (it stays as it was: a warning).  A map that cannot be used exits 2 naming its entry: a range that
is empty, wraps or overlaps another, a region only partly inside a range, a range moved onto memory a region that
does not move occupies, a heap that contradicts the capture's or whose increment does not divide the distance to
it, an identifier map that is not a bijection.

--verify runs the executor on both captures and requires the same executions, lists and findings with every
reference mapped, and the same patch list with every location and value mapped.  The capture is written
atomically: OUT.json and, for each rewritten region larger than 4 KiB, OUT.<region>.bin next to it (streamed, 16
MiB at a time); a region no reference lies in is referenced in place.

Exit status: 0 rebased (and, with --verify, verified), 1 error findings (nothing written) or a verification that
failed, 2 unusable input (the message names the file, entry or flag)."""


def register(sub: Any) -> None:
    p = sub.add_parser("remap", help=summary("remap"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", metavar="CAPTURE", help="the capture file")
    p.add_argument("--va-map", metavar="MAP", required=True, help="GPU VA ranges: old_base,size,new_base (CSV or JSON)")
    p.add_argument("--heap-map", metavar="MAP", help="descriptor heaps: old and new start and increment (CSV or JSON)")
    p.add_argument("--identifier-map", metavar="MAP", help="program identifiers: old (name or hex) -> new (CSV or JSON)")
    add_output_flag(p, "the rebased capture to write", metavar="OUT.json", required=True)
    p.add_argument("--keep-unmapped", action="store_true", help="keep a reference into no range as it is (a warning)")
    add_verify_flag(p, "the capture and its rebase")
    add_json_flag(p, "the outcome")
    add_limit_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.capture.file import load_capture
    from d3d12wl.capture.maps import load_heap_map, load_identifier_map, load_va_map
    from d3d12wl.cli.documents import CAPTURE, expecting
    from d3d12wl.errors import D3D12WLError
    from d3d12wl.executor.remap import remap
    from d3d12wl.output import claims
    from d3d12wl.output.outfiles import is_stdout

    if is_stdout(args.output):
        raise D3D12WLError("a rebased capture is a file and its region files next to it: name one with -o",
                           where="-o")
    limits = limits_from(args)
    claims.check([("-o", args.output)], [("CAPTURE", args.capture), ("--va-map", args.va_map),
                                         ("--heap-map", args.heap_map), ("--identifier-map", args.identifier_map)])
    with expecting(args.capture, CAPTURE):  # (a description, a trace or a call sequence is named so)
        capture = load_capture(args.capture)
    va_map = load_va_map(args.va_map)
    heap_map = load_heap_map(args.heap_map) if args.heap_map else None
    identifier_map = load_identifier_map(args.identifier_map) if args.identifier_map else None
    result = remap(capture, va_map, heap_map, identifier_map, keep_unmapped=args.keep_unmapped,
                   output=args.output, verify=args.verify, limits=limits)
    failed = bool(result.errors) or (result.verification is not None and not result.verification.same)
    if args.json:
        from d3d12wl.output.serialize import json_text

        print(json_text(_json(result)))
    else:
        for line in _lines(result, args.output):
            print(line)
    return 1 if failed else 0


def _json(result: Any) -> dict[str, Any]:
    v = result.verification
    return {
        "written": str(result.path) if result.path is not None else None, "references": result.references,
        "rewritten": result.rewritten, "kept": result.kept,
        "regions": {name: {"old_base": old, "new_base": new} for name, (old, new) in result.regions.items()},
        "findings": [_finding(f) for f in result.findings], "findings_suppressed": result.findings_suppressed,
        "call_findings": len(result.call_findings),
        "verification": None if v is None else {"same": v.same, "executions": v.executions,
                                                "references": v.references, "differences": v.differences}}


def _finding(f: Any) -> dict[str, Any]:
    return {"kind": f.kind, "rule": f.rule, "severity": f.severity, "message": f.message, "va": f.va}


def _lines(result: Any, output: str) -> list[str]:
    counts = ", ".join(f"{n} {kind} rewritten" + (f", {result.kept[kind]} kept" if result.kept.get(kind) else "")
                       for kind, n in result.rewritten.items())
    head = f"rebased to {result.path}" if result.path is not None else f"not written ({output}): error findings"
    lines = [f"{head}: {result.references} references ({counts or 'none rewritten'})"]
    rows = [(name, f"0x{old:x}", f"0x{new:x}") for name, (old, new) in result.regions.items()]
    lines += tables.render(("region", "old base", "new base"), rows, indent="  ")
    if result.call_findings:
        lines.append(f"the call's own findings: {len(result.call_findings)} (d3d12wl exec shows them; a rebase keeps "
                     "them)")
    more = f", {result.findings_suppressed} more suppressed" if result.findings_suppressed else ""
    lines.append(f"findings ({len(result.findings)}{more})")
    lines += [f"  {f}" for f in result.findings]
    v = result.verification
    if v is not None:
        if v.same:
            lines.append(f"verified: the same {v.executions} executions and {v.references} references, every "
                         "reference mapped")
        else:
            lines.append(f"verification failed ({len(v.differences)} differences):")
            lines += [f"  {d}" for d in v.differences]
    return lines
