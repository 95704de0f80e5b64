"""The ``d3d12wl import`` command: ``import gfxr`` and ``import gits``, their options in ``register``, their work in
``run_gfxr`` / ``run_gits``; what they do, for users, is :data:`DESCRIPTION` (the ``--help``)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag

DESCRIPTION = """\
Read the files the tools people capture with write, and make what d3d12wl reads of them, nothing typed.

  d3d12wl import gfxr CONVERT.json DUMP... --output-dir DIR [--json]
      GFXReconstruct: CONVERT.json is gfxrecon-convert's JSON of a D3D12 capture (--format json or jsonl), each
      DUMP a gfxrecon-replay --dump-resources-dir folder (or its *_dr.json) of one ExecuteIndirect call.  Writes
      DIR/call_<block index>.json per call (the dumped buffers referenced in place, the command signature, root
      signature, resources, MaxCommandCount, offsets and the command list's state from the convert JSON; a second
      .after.json when the bytes after the call differ from those before it) and DIR/calls.json, the call sequence
      of them (d3d12wl exec, diff, migrate read it).  What the JSON and the dump do not hold is named as a finding,
      never guessed; a call that cannot be built is left out with an error finding.
  d3d12wl import gits DUMP... --output-dir DIR [--description FILE [--command-signature NAME]] [--va-map MAP]
                      [--format csv|jsonl|npz|parquet] [--json]
      GITS: each DUMP a call_<key>_execute_indirect_{pre,post}_patch.txt file (or a folder of them).  Writes, per
      dump, the references by value its arguments hold as the table d3d12wl patch-list writes
      (DIR/call_<key>_execute_indirect_<pre|post>_patch.<format>), and for each pre/post pair the verdict per
      address: patched, left alone, pointing nowhere, and the ones a replay cannot execute (unpatched, patched to
      another resource or offset, a NULL patched).  --va-map (d3d12wl remap's: old_base,size,new_base) checks each
      post-patch address against the map instead of GITS's resource lookup.  --description names the command
      signature (a capture: its call's; a description: its only one, or --command-signature NAME); without it the
      signature is read from the dump's lines (a run of CONSTANT lines as one argument).

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
    add_json_flag(g, "what was written and the findings")
    g.set_defaults(func=run_gfxr)
    register_gits(tools)


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


def register_gits(tools: Any) -> None:
    from d3d12wl.executor.references_output import FORMATS

    t = tools.add_parser("gits", help="GITS pre/post-patch ExecuteIndirect dumps -> patch-list tables and verdicts",
                         description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    t.add_argument("dumps", metavar="DUMP", nargs="+", help="a call_<key>_execute_indirect_<pre|post>_patch.txt file, "
                                                           "or a folder of them")
    t.add_argument("--output-dir", metavar="DIR", required=True, help="the folder to write the tables into")
    t.add_argument("--description", metavar="FILE", help="a capture or description (DESC.json) holding the command signature")
    t.add_argument("--command-signature", metavar="NAME", help="which of FILE's command signatures")
    t.add_argument("--va-map", metavar="MAP", help="check post-patch addresses against this VA map (d3d12wl remap's)")
    t.add_argument("--format", choices=FORMATS, default="csv", help="the tables' format (default csv)")
    add_json_flag(t, "the tables written, the verdicts and the findings")
    t.set_defaults(func=run_gits)


def run_gits(args: argparse.Namespace) -> int:
    from pathlib import Path

    from d3d12wl.capture.maps import load_va_map
    from d3d12wl.errors import D3D12WLError
    from d3d12wl.executor.references_output import writer_for
    from d3d12wl.importers.gits import FILE_NAME, dump_files, load_signature, pair_dumps, read_gits_dump
    from d3d12wl.output.outfiles import output_file

    out = Path(args.output_dir)
    if not out.is_dir():
        raise D3D12WLError("is no folder: make it first (the tables are written into it)", where=args.output_dir)
    if args.command_signature and not args.description:
        raise D3D12WLError("names a command signature of the --description file: give --description too",
                           where="--command-signature")
    signature = load_signature(args.description, args.command_signature) if args.description else None
    va_map = load_va_map(args.va_map) if args.va_map else None
    by_key: dict[str, dict[str, Path]] = {}  # the files of each call, read one call at a time
    for path in dump_files(args.dumps):
        match = FILE_NAME.fullmatch(path.name)
        key, phase = (match.group("key"), match.group("phase")) if match else (str(path), "dump")
        slot = by_key.setdefault(key, {})
        if phase in slot:
            raise D3D12WLError(f"dumps call {key} {phase}-patch as {slot[phase]} does: give each file once",
                               where=str(path))
        slot[phase] = path
    report: list[dict[str, Any]] = []
    failed = False
    for key, paths in by_key.items():
        dumps = {phase: read_gits_dump(path, signature) for phase, path in paths.items()}
        pair = pair_dumps(dumps["pre"], dumps["post"], va_map) if "pre" in dumps and "post" in dumps else None
        entry: dict[str, Any] = {"call": key, "dumps": {}}
        for phase, d in sorted(dumps.items(), key=lambda item: ("pre", "post", "dump").index(item[0])):
            findings = [*d.findings, *(pair.findings if pair is not None and phase == "post" else [])]
            suppressed = pair.suppressed if pair is not None and phase == "post" else 0
            target = out / f"{d.path.stem}.{args.format}"
            with output_file(target, binary=True) as stream:
                writer = writer_for(args.format, stream)
                for table in d.tables():  # a block of commands at a time
                    writer.write(table)
                writer.close(findings, suppressed)
            entry["dumps"][phase] = {"path": str(d.path), "table": str(target), "commands": d.count,
                                     "signature": d.signature.name, "inferred": d.inferred,
                                     "references": d.count * len(d.va_fields)}
        if pair is not None:
            entry["verdicts"] = pair.counts
            entry["by"] = "va map" if pair.va_map else "gits lookup"
            entry["findings"] = [{"kind": f.kind, "severity": f.severity, "message": f.message,
                                  "command_index": f.command_index} for f in pair.findings]
            entry["findings_suppressed"] = pair.suppressed
            failed |= bool(pair.errors)
        report.append(entry)
    if args.json:
        from d3d12wl.output.serialize import json_text

        print(json_text({"calls": report}))
        return 1 if failed else 0
    for entry in report:
        dumps_text = ", ".join(f"{p} {d['commands']} commands" for p, d in entry["dumps"].items())
        line = f"call {entry['call']}: {dumps_text}"
        if "verdicts" in entry:
            counts = ", ".join(f"{n} {v}" for v, n in entry["verdicts"].items() if n)
            line += f"; {sum(entry['verdicts'].values())} addresses ({entry['by']}): {counts or 'none'}"
        print(line)
        for f in entry.get("findings", []):
            where = f" command {f['command_index']}" if f["command_index"] is not None else ""
            print(f"  {f['severity']}: {f['kind']}{where}: {f['message']}")
        if entry.get("findings_suppressed"):
            print(f"  ({entry['findings_suppressed']} more not listed)")
        print(f"  wrote {', '.join(d['table'] for d in entry['dumps'].values())}")
    return 1 if failed else 0
