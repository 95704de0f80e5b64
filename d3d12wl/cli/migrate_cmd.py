"""The ``d3d12wl migrate`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import (
    add_json_flag,
    add_output_dir_flag,
    add_output_flag,
    add_verify_flag,
    integer,
    number,
    refuse_json_with_capture_on_stdout,
    rename,
)
from d3d12wl.cli.documents import CAPTURE, expecting
from d3d12wl.output import claims, tables

DESCRIPTION = """\
Migrate between per-PSO ExecuteIndirect buckets and one work list (spec "Motivation").

  d3d12wl migrate ei-to-wl INPUT... -o OUT.json [--bucket-constants program-table|records]
                           [--layout auto|inline|hybrid] [--verify] [--json]
      INPUT: a call sequence file, or ExecuteIndirect captures as PROGRAM=PATH (or PATH: the program is the
      file's stem), in command-list order.  Writes one DispatchList capture (a DispatchList1 chain when
      graphics and compute calls mix): one PCS per command signature,
      per-draw arguments in records, per-call constants in the program table (--bucket-constants records keeps
      them global, in the records), each PCS laid out fully inline or hybrid, whichever is smaller (--layout
      forces one).  Prints calls, empty calls and bytes before and after, and both layouts' bytes.
  d3d12wl migrate wl-to-ei CAPTURE --output-dir DIR [--no-empty] [--verify] [--json]
      The lowering a runtime without Work Lists would do, list by list of a DispatchList1 chain: per slot an ExecuteIndirect command
      signature, argument buffer and count (one call per run of one slot where the spec orders the records; a
      call with count 0 for each program no record selects, unless --no-empty).  Writes the captures and
      DIR/calls.json.  Prints calls, empty calls and bytes moved before and after.
  d3d12wl migrate scene --output-dir DIR [--draws N] [--psos K] [--active F] [--seed S] [--mixed]
      Write a synthetic per-PSO bucket scene (captures + DIR/calls.json) to measure with.

--verify executes the original and the migrated calls and compares the draws and their resolved bindings, in
order where the spec guarantees it, else as multisets.

Exit status: 0 done (and equivalent), 1 --verify found a difference, 2 unusable input, 3 internal error."""


def register(sub: Any) -> None:
    p = sub.add_parser("migrate", help=summary("migrate"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    steps = p.add_subparsers(dest="direction", metavar="DIRECTION")
    steps.required = True
    e = steps.add_parser("ei-to-wl", help="ExecuteIndirect calls -> one DispatchList capture")
    e.add_argument("inputs", nargs="+", metavar="INPUT", help="call sequence file, or PROGRAM=CAPTURE / CAPTURE")
    add_output_flag(e, "the DispatchList capture to write (with -o -, the report goes to standard error)",
                    metavar="OUT.json", required=True)
    e.add_argument("--bucket-constants", choices=("program-table", "records"), default="program-table",
                   help="where bindings constant per call go (default: program-table)")
    e.add_argument("--layout", choices=("auto", "inline", "hybrid"), default="auto",
                   help="record layout of every PCS (default: auto, the fewer bytes)")
    add_verify_flag(e, "the ExecuteIndirect calls and the work list")
    add_json_flag(e, "the report")
    e.set_defaults(func=run_ei_to_wl)
    s = steps.add_parser("scene", help="write a synthetic per-PSO bucket scene")
    add_output_dir_flag(s, "the captures and calls.json", required=True)
    rename(s, "-o", "--output-dir")
    rename(s, "--output", "--output-dir")
    s.add_argument("--draws", type=integer, default=100_000, metavar="N",
                   help="draws in the whole scene (default 100,000)")
    s.add_argument("--psos", type=integer, default=64, metavar="N", help="pipeline states, one bucket each (default 64)")
    s.add_argument("--active", type=number, default=0.75, metavar="FRACTION",
                   help="fraction of PSOs with draws (default 0.75)")
    s.add_argument("--seed", type=integer, default=1, metavar="N", help="the random seed (default 1)")
    s.add_argument("--mixed", action="store_true", help="every second PSO uses a DRAW command signature")
    add_json_flag(s, '{"calls", "draws", "output"}')
    s.set_defaults(func=run_scene)
    w = steps.add_parser("wl-to-ei", help="a DispatchList capture -> ExecuteIndirect calls, one per program")
    w.add_argument("capture", metavar="CAPTURE", help="a DispatchList or DispatchList1 capture")
    add_output_dir_flag(w, "the captures and calls.json", required=True)
    rename(w, "-o", "--output-dir")
    rename(w, "--output", "--output-dir")
    w.add_argument("--no-empty", action="store_true", help="leave out the calls of programs no record selects")
    add_verify_flag(w, "the work list and the ExecuteIndirect calls")
    add_json_flag(w, "the report")
    w.set_defaults(func=run_wl_to_ei)


@contextlib.contextmanager
def _writing(where: str, flag: str = "-o") -> Iterator[None]:
    """An output that cannot be written is unusable input (exit 2 from ``cli.main``), named by its option."""
    from d3d12wl.migrate.runs import MigrationError

    try:
        yield
    except OSError as exc:
        raise MigrationError(f"cannot write: {exc.strerror or exc}", where=f"{exc.filename or where} ({flag})") from None


def read_inputs(inputs: list[str]) -> list[Any]:
    """Call sequence entries from a call sequence file or PROGRAM=CAPTURE arguments."""
    from d3d12wl.capture.file import load_capture
    from d3d12wl.migrate.runs import CallSequenceEntry, load_run_source

    if len(inputs) == 1 and "=" not in inputs[0]:
        doc = load_run_source(inputs[0])
        if isinstance(doc, list):
            return doc
        return [CallSequenceEntry(doc, Path(inputs[0]).stem)]
    entries = []
    loaded: dict[str, Any] = {}  # a capture named twice is loaded once (by its resolved path)
    for item in inputs:
        name, sep, path = item.partition("=")
        if not sep:
            name, path = Path(item).stem, item
        key = os.path.realpath(path)
        if key not in loaded:
            loaded[key] = load_capture(path)
        entries.append(CallSequenceEntry(loaded[key], name))
    return entries


def _figures(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    rows = [(k.replace("_", " "), before[k], after[k]) for k in ("calls", "empty_calls", "draws", "bytes")]
    return tables.render(("", "before", "after"), rows)


def _verify(original: Any, migrated: Any, report: dict[str, Any]) -> int:
    from d3d12wl.migrate.equivalence import compare_runs

    result = compare_runs(original, migrated)
    report["verify"] = {"same": result.same, "ordered": result.ordered, "compared": result.how,
                        "note": result.note, "differences": result.differences}
    return 0 if result.same else 1


def _print_json(report: dict[str, Any], code: int) -> int:
    json.dump(report, sys.stdout, indent=1)
    sys.stdout.write("\n")
    return code


def _verify_lines(report: dict[str, Any]) -> list[str]:
    """The --verify verdict and its differences, as text (nothing without --verify)."""
    if "verify" not in report:
        return []
    v = report["verify"]
    note = f"; {v['note']}" if v["note"] else ""
    return [f"verify: {'same executions' if v['same'] else 'DIFFERENT'} (compared {v['compared']}{note})",
            *(f"  {d}" for d in v["differences"])]


def _save_calls(output: str, calls: list[tuple[Any, str | None]]) -> Path:
    """Each ExecuteIndirect call as ``OUTPUT/callNNN_PROGRAM.json`` and the call sequence ``OUTPUT/calls.json``."""
    from d3d12wl.capture.file import file_stem, save_capture
    from d3d12wl.migrate.runs import save_call_sequence

    folder = Path(output)
    names = [(f"call{i:03d}_{file_stem(program or 'call', 'call')}.json", program)  # (the program: in calls.json)
             for i, (_, program) in enumerate(calls)]
    # every file named before any is written (against the files read: the capture of wl-to-ei, its region files)
    claims.check([("--output-dir", folder / name) for name in (*(n for n, _ in names), "calls.json")])
    with _writing(output, "--output-dir"):
        folder.mkdir(parents=True, exist_ok=True)
        for (capture, _), (name, _) in zip(calls, names, strict=True):
            save_capture(capture, folder / name)
        return save_call_sequence(folder / "calls.json", names)


def run_ei_to_wl(args: argparse.Namespace) -> int:
    from d3d12wl.capture.file import save_capture, write_capture_json
    from d3d12wl.migrate.ei_to_wl import ei_to_wl

    to_stdout = args.output == "-"  # the capture itself on stdout (every region inline), as capture -o - prints it
    refuse_json_with_capture_on_stdout(args)
    claims.check([("-o", args.output)], [("INPUT", i.partition("=")[2] if "=" in i else i) for i in args.inputs])
    entries = read_inputs(args.inputs)
    result = ei_to_wl(entries, bucket_constants=args.bucket_constants, layout=args.layout)
    if to_stdout:
        write_capture_json(result.capture, sys.stdout)
        out: Path | str = "<stdout>"
    else:
        with _writing(args.output):
            Path(args.output).parent.mkdir(parents=True, exist_ok=True)
            out = save_capture(result.capture, args.output)
    report = result.report()
    report["output"] = str(out)
    code = _verify(entries, result.capture, report) if args.verify else 0
    if args.json:
        return _print_json(report, code)
    lines = [f"ei-to-wl: {len(entries)} ExecuteIndirect calls -> 1 {result.capture.call_name} ({out})", *_figures(
        report["before"], report["after"]), "record layouts (bytes of the records of each PCS):"]
    lines += tables.render(("pcs", "fully inline", "hybrid", "chosen"),
                           [(c["pcs"], c["inline_bytes"], c["hybrid_bytes"], c["chosen"]) for c in report["layouts"]],
                           indent="  ")
    lines.append(f"work list bytes: fully inline {report['bytes_fully_inline']}, hybrid {report['bytes_hybrid']}, "
                 f"written {report['after']['bytes']} ({', '.join(f'{k} {v}' for k, v in report['after']['parts'].items())})")
    lines.append("bindings:")
    lines += tables.render(None, sorted(report["placement"].items()), indent="  ")
    print("\n".join(lines + _verify_lines(report)), file=sys.stderr if to_stdout else sys.stdout)
    return code


def run_scene(args: argparse.Namespace) -> int:
    from d3d12wl.migrate.runs import MigrationError
    from d3d12wl.migrate.scene import bucket_scene

    if args.draws < 0 or args.psos < 1 or not 0 < args.active <= 1:
        raise MigrationError("--draws >= 0, --psos >= 1 and 0 < --active <= 1", where="--draws/--psos/--active")
    entries = bucket_scene(args.draws, args.psos, active=args.active, seed=args.seed, mixed=args.mixed)
    path = _save_calls(args.output_dir, [(e.capture, e.program) for e in entries])
    if args.json:
        return _print_json({"calls": len(entries), "draws": args.draws, "output": str(path)}, 0)
    print(f"scene: {len(entries)} ExecuteIndirect calls, {args.draws} draws -> {path}")
    return 0


def run_wl_to_ei(args: argparse.Namespace) -> int:
    from d3d12wl.capture.file import load_capture
    from d3d12wl.migrate.wl_to_ei import wl_to_ei

    with expecting(args.capture, CAPTURE):
        capture = load_capture(args.capture)
    result = wl_to_ei(capture, include_empty=not args.no_empty)
    path = _save_calls(args.output_dir, [(c.capture, c.program) for c in result.calls])
    report = result.report()
    report["output"] = str(path)
    code = _verify(capture, result.entries, report) if args.verify else 0
    if args.json:
        return _print_json(report, code)
    lines = [f"wl-to-ei: 1 {capture.call_name} -> {len(result.calls)} ExecuteIndirect calls ({path}); "
             f"{report['ordering']}",
             *_figures(report["before"], report["after"]), "calls:"]
    lines += tables.render(("slot", "program", "command signature", "count", "bytes"),
                           [(c["slot"], c["program"], c["command_signature"], c["count"], c["bytes"])
                            for c in report["calls"]], indent="  ")
    lines += [f"barrier between calls {b['after_call']} and {b['before_call']} (list {b['list']} ends with "
              f"{' | '.join(b['flags'])}): record it on the command list" for b in report["barriers"]]
    print("\n".join(lines + _verify_lines(report)))
    return code
