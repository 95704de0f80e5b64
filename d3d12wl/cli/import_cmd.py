"""The ``d3d12wl import`` command: ``import gfxr`` and ``import gits``, their options in ``register``, their work in
``run_gfxr`` / ``run_gits``; what they do, for users, is :data:`DESCRIPTION` (the ``--help``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from d3d12wl.cli import summary

DESCRIPTION = """\
Read the files the tools people capture with write, and make what d3d12wl reads of them, nothing typed.

  d3d12wl import gfxr CONVERT.json DUMP... --output-dir DIR [--json]
      GFXReconstruct: CONVERT.json is gfxrecon-convert's JSON of a D3D12 capture (--format json or jsonl), each
      DUMP a gfxrecon-replay --dump-resources-dir folder (or its *_dr.json) of one ExecuteIndirect call.  Writes
      DIR/call_<block index>.json per call (the dumped buffers referenced in place, the command signature, root
      signature, resources, MaxCommandCount, offsets and the command list's state from the convert JSON; a second
      .after.json when the bytes after the call differ from those before it) and DIR/calls.json, the call sequence
      of them (d3d12wl exec, diff, migrate read it).  What the JSON and the dump do not hold is named as a finding,
      never guessed; a call that cannot be built is left out with an error finding.  docs/gfxreconstruct.md.
  d3d12wl import gits DUMP... --output-dir DIR [--signature FILE [--command-signature NAME]] [--va-map MAP]
                      [--format csv|jsonl|npz|parquet] [--json]
      GITS: each DUMP a call_<key>_execute_indirect_{pre,post}_patch.txt file (or a folder of them).  Writes, per
      dump, the references by value its arguments hold as the table d3d12wl patch-list writes
      (DIR/call_<key>_execute_indirect_<pre|post>_patch.<format>), and for each pre/post pair the verdict per
      address: patched, left alone, pointing nowhere, and the ones a replay cannot execute (unpatched, patched to
      another resource or offset, a NULL patched).  --va-map (d3d12wl remap's: old_base,size,new_base) checks each
      post-patch address against the map instead of GITS's resource lookup.  --signature names the command
      signature (a capture: its call's; a description: its only one, or --command-signature NAME); without it the
      signature is read from the dump's lines (a run of CONSTANT lines as one argument).  docs/gits.md.

Exit status: 0 clean, 1 error findings (a call left out; an address a replay cannot execute), 2 unusable input (the
message names the file and member or line), 3 internal error."""


def register(sub: Any) -> None:
    p = sub.add_parser("import", help=summary("import"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    tools = p.add_subparsers(dest="tool", metavar="TOOL")
    tools.required = True
    g = tools.add_parser("gfxr", help="gfxrecon-convert JSON + gfxrecon-replay --dump-resources -> captures",
                         description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    g.add_argument("convert", metavar="CONVERT.json", help="gfxrecon-convert's JSON (or JSON lines) of the capture")
    g.add_argument("dumps", metavar="DUMP", nargs="+", help="a --dump-resources-dir folder, or its *_dr.json")
    g.add_argument("--output-dir", metavar="DIR", required=True, help="the folder to write the captures into")
    g.add_argument("--json", action="store_true", help="print what was written and the findings as JSON")
    g.set_defaults(func=run_gfxr)


def run_gfxr(args: argparse.Namespace) -> int:
    from d3d12wl.importers.gfxr import import_gfxr

    result = import_gfxr(args.convert, args.dumps, args.output_dir)
    if args.json:
        from d3d12wl.output.serialize import json_text

        print(json_text(result.to_dict()))
        return 1 if result.errors else 0
    for call in result.calls:
        if call.captures:
            written = ", ".join(str(p) for p in call.captures.values())
            count = "no count buffer" if call.count_value is None else f"count {call.count_value}"
            print(f"{written}: block {call.block}, {call.command_signature}, MaxCommandCount "
                  f"{call.max_command_count}, {count} -> {call.commands} commands")
        else:
            print(f"block {call.block} ({call.dump}): not written")
        for f in call.findings:
            print(f"  {f}")
    if result.sequence is not None:
        n = sum(1 for c in result.calls if c.captures)
        print(f"{result.sequence}: the call sequence of {n} call{'s' if n != 1 else ''}")
    if result.errors:
        print(f"{len(result.errors)} error findings", file=sys.stderr)
    return 1 if result.errors else 0
