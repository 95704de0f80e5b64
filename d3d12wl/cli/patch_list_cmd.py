"""The ``d3d12wl patch-list`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, add_output_flag
from d3d12wl.cli.exec_cmd import add_limit_flags, limits_from

#: the plain-text --help description
DESCRIPTION = """\
d3d12wl patch-list CAPTURE [--format csv|jsonl|npz|parquet] [-o OUT]: every reference by value the call reads.

A replay on another run, driver or GPU must rewrite every GPU virtual address, GPU descriptor handle and program
identifier the frame holds by value.  The executor walks the call as the hardware would and lists each one once,
a row per field: where it is (region, offset, the VA of the field), what it is (kind: va, descriptor-handle,
program-identifier), its value, the record and field by the layout's names (record_id PCS.primary, field
arg1_VertexBuffer.BufferLocation; the capture's own members as call / state / programs and their member path), the
record's list, primary, secondary, slot or command index, the heap a handle must address, and what the value falls
in (target: the region holding a VA, the bound heap holding a handle, the program an identifier identifies, with
target_offset).  It is what a capture tool patches before replay, on the CPU or on the GPU.

Formats (one encoding per value): csv (the default; VAs in hex, absent values empty), jsonl (one object per row,
then the findings and an end line), npz (one typed array per column, names.<column> for the code columns,
findings.<member>), parquet (typed, code columns dictionary-encoded, the findings in the file's metadata; needs pip
install 'd3d12wl[parquet]').  -o writes the file atomically; without it the rows go to standard output.  A summary
and the findings go to standard error; --json (with -o FILE) prints them on standard output as {"output",
"format", "references", "kinds", "findings", "findings_suppressed"}.

Exit status: 0 when the walk and the table have no error findings, 1 when they have (the table is still written:
it lists what the call reads), 2 when the capture cannot be used (the message names the file or member)."""


def register(sub: Any) -> None:
    from d3d12wl.executor.references_output import FORMATS

    p = sub.add_parser("patch-list", help=summary("patch-list"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", metavar="CAPTURE", help="the capture file")
    p.add_argument("--format", choices=FORMATS, default="csv", help="csv (default), jsonl, npz or parquet")
    add_output_flag(p, "the table to write (default: standard output)")
    add_json_flag(p, "the summary and the findings (needs -o FILE: the table goes there)")
    add_limit_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.capture.file import load_capture
    from d3d12wl.cli.documents import CAPTURE, expecting
    from d3d12wl.errors import D3D12WLError
    from d3d12wl.executor.references import walk_references
    from d3d12wl.executor.references_output import writer_for
    from d3d12wl.output import claims
    from d3d12wl.output.outfiles import is_stdout, output_file
    from d3d12wl.records.references import REFERENCE_KINDS

    if args.json and is_stdout(args.output):
        raise D3D12WLError("the rows go to standard output without -o: give -o FILE with --json", where="--json")
    limits = limits_from(args)
    claims.check([("-o", args.output)], [("CAPTURE", args.capture)])
    with expecting(args.capture, CAPTURE):  # (a description, a trace or a call sequence is named so)
        capture = load_capture(args.capture)
    kinds: Counter[int] = Counter()
    with output_file(args.output, binary=True) as out:
        writer = writer_for(args.format, out)

        def sink(table: Any) -> None:
            writer.write(table)
            kinds.update(table.columns["kind"].tolist())

        walk = walk_references(capture, sink, limits=limits)
        findings = [*walk.trace.findings, *walk.findings]
        suppressed = walk.trace.findings_suppressed + walk.findings_suppressed
        writer.close(findings, suppressed)
    failed = any(f.severity == "error" for f in findings)
    if args.json:
        from d3d12wl.output.serialize import json_text, to_jsonable

        print(json_text({"output": args.output, "format": args.format, "references": walk.rows,
                         "kinds": {k: kinds[i] for i, k in enumerate(REFERENCE_KINDS)},
                         "findings": to_jsonable(findings), "findings_suppressed": suppressed}))
        return 1 if failed else 0
    counts = ", ".join(f"{kinds[i]} {k}" for i, k in enumerate(REFERENCE_KINDS))
    where = "" if is_stdout(args.output) else f" to {args.output}"
    print(f"{walk.rows} references ({counts}){where}", file=sys.stderr)
    more = f", {suppressed} more suppressed" if suppressed else ""
    print(f"findings ({len(findings)}{more})", file=sys.stderr)
    for f in findings:
        print(f"  {f}", file=sys.stderr)
    return 1 if failed else 0
