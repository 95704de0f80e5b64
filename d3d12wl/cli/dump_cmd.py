"""The ``d3d12wl dump`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from contextlib import ExitStack
from importlib import resources
from pathlib import Path

from d3d12wl.capture.file import load_capture
from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, add_output_flag, add_quiet_flag, add_validators_flag
from d3d12wl.cli.documents import CAPTURE, expecting
from d3d12wl.cli.exec_cmd import (
    add_limit_flags,
    add_reading_flag,
    add_selection_flags,
    check_selection,
    limits_from,
    readings_from,
    selection_from,
)
from d3d12wl.cli.progress import Progress
from d3d12wl.cli.render import render_text
from d3d12wl.executor.trace import LazyList

EXAMPLE = "examples/culling_capture.json"
#: rows of each kind ``dump`` shows by default (--limit: executions, primary records per list, secondary records per
#: primary record, findings)
DEFAULT_LIMIT = 1000


#: the plain-text --help description
DESCRIPTION = """\
What a captured call executes, as a person wants to read it.

  d3d12wl dump [CAPTURE]          a summary of the whole call (per program: executions, vertices, indices,
                                  instances and thread groups; findings by kind); the call; each dispatch list
                                  header; each primary record decoded by field name, its program-table slot
                                  (program name, local-root tail as DWORDs and floats) and its secondary records;
                                  then the executions (program, trigger, every root argument with where it came
                                  from), the end-of-call reset and the findings, then the findings as an
                                  application sees them in its InfoQueue (the executor as a driver on the
                                  driver-reported-messages channel)
  d3d12wl dump CAPTURE --hex      adds annotated hex dumps: every byte range labelled with the field it belongs
                                  to, padding marked
  d3d12wl dump CAPTURE --json     the same view as JSON
  d3d12wl dump CAPTURE --list N --primary A:B --program NAME --kind KIND --limit N
                                  shows one list, primary records A..B-1, one program's records and executions,
                                  findings of kind KIND (repeatable), at most N executions, N primary records, N
                                  secondary records and N findings, the first ones in the trace's order (default
                                  1,000; the output says how many it left out); the same selection as exec's
  d3d12wl dump CAPTURE -o PATH    writes to PATH (atomically) instead of standard output
  d3d12wl dump CAPTURE --max-executions N ...
                                  the executor limits, as on exec
  d3d12wl dump CAPTURE --validators SPEC
                                  runs GPU-timeline validators (repeatable; SPEC is module:attr or
                                  path/to/file.py:attr naming a ValidationRunner, a Validator, an iterable of
                                  Validators or a zero-argument factory) and shows, under each list, the
                                  validators dispatched for it in the spec's step order (step, area, primary
                                  record, slot, validator, pointer values); the headers and records shown are as
                                  the executor re-read them after the validators wrote

Without CAPTURE: the bundled example, the spec's "GPU culling and work list emission".  Exit status: 0, or 1
when the trace has error findings (undefined behaviour; one line on standard error says how many of which
kinds), 2 when the capture, a flag or the output path cannot be used.  Progress goes to standard error when it
is a terminal (--quiet silences it)."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("dump", help=summary("dump"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", metavar="CAPTURE", nargs="?", help="a capture file (default: the bundled example)")
    p.add_argument("--hex", action="store_true", help="add annotated hex dumps of every record")
    add_json_flag(p, "the same view")
    p.add_argument("--info-queue", action="store_true",
                   help="show the InfoQueue block even when the call put no message in it (only the driver's "
                        "initialization message)")
    add_validators_flag(p)
    add_output_flag(p, "where the view goes (default: standard output)")
    add_selection_flags(p, default_limit=DEFAULT_LIMIT)
    add_quiet_flag(p)
    add_limit_flags(p)
    add_reading_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.cli.exec_cmd import load_hooks, verdict_line
    from d3d12wl.executor import execute
    from d3d12wl.executor.dump_view import dump_view
    from d3d12wl.executor.trace_selection import select_trace, shown_findings
    from d3d12wl.messages.driver_channel import info_queue_view, run_in_info_queue
    from d3d12wl.output import claims
    from d3d12wl.output.outfiles import is_stdout, output_file
    from d3d12wl.output.serialize import json_text, to_jsonable

    selection = selection_from(args)
    limits = limits_from(args)
    claims.check([("-o", args.output)], [("CAPTURE", args.capture)])
    hooks = load_hooks(args.validators)
    progress = Progress("dump", quiet=args.quiet)
    with ExitStack() as stack:
        if args.capture is None:
            # as_file: a real path even when the package is installed zipped
            path = stack.enter_context(resources.as_file(resources.files("d3d12wl").joinpath(EXAMPLE)))
        else:
            path = Path(args.capture)
        progress.stage("loading the capture")
        with expecting(path, CAPTURE):  # (a description, a trace or a call sequence is named so)
            capture = load_capture(path)  # an unusable capture raises CaptureError: d3d12wl.cli.main exits 2
        check_selection(args, capture)
        progress.stage("executing")
        trace = execute(capture, limits, hooks=hooks, readings=readings_from(args))
        progress.stage("selecting")
        view = dump_view(capture, select_trace(trace, selection), with_hex=args.hex)
        if hooks is not None:  # which validators were loaded (render_text then shows a block under every list)
            view.validators = [v.name or v.identifier.hex() for v in hooks.validators.values()]
        # the findings shown, as an application sees them in its InfoQueue
        in_queue = run_in_info_queue(trace=dataclasses.replace(trace, findings=LazyList(shown_findings(trace,
                                                                                                         selection))))
        view.info_queue = info_queue_view(in_queue.messages)
    progress.done()
    if args.json:
        text = json_text(to_jsonable(view), indent=1) + "\n"
    else:
        # the InfoQueue block when the call put a message there (beyond the driver's initialization message, which
        # every device with the channel enabled has), or when asked for; --json always has "info_queue"
        shown = args.info_queue or bool(in_queue.driver_messages)
        text = render_text(view if shown else dataclasses.replace(view, info_queue=None))
    with output_file(args.output) as out:
        out.write(text)
    if trace.has_errors:
        where = "standard output" if is_stdout(args.output) else repr(args.output)
        print(f"d3d12wl dump: {verdict_line(trace)}; written to {where}", file=sys.stderr)
        return 1
    return 0
