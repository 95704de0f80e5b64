"""The ``d3d12wl dump`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import json
import sys
from contextlib import ExitStack
from importlib import resources
from pathlib import Path

from d3d12wl.capture.file import load_capture
from d3d12wl.cli import summary
from d3d12wl.cli.documents import CAPTURE, expecting
from d3d12wl.cli.exec_cmd import add_limit_flags, add_reading_flag, limits_from, readings_from
from d3d12wl.cli.render import DEFAULT_LIMIT, Selection, dump_view, parse_range, render_text, selected_trace
from d3d12wl.errors import D3D12WLError

EXAMPLE = "examples/culling_capture.json"


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
  d3d12wl dump CAPTURE --list N --primary A:B --program NAME --limit N
                                  shows one list, primary records A..B-1, one program's records and executions,
                                  at most N executions and N records per list (default 1,000; the output says
                                  how many it left out)
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
when the trace has error findings (undefined behaviour), 2 when the capture cannot be used."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("dump", help=summary("dump"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", metavar="CAPTURE", nargs="?", help="a capture file (default: the bundled example)")
    p.add_argument("--hex", action="store_true", help="add annotated hex dumps of every record")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--info-queue", action="store_true",
                   help="show the InfoQueue block even when the call put no message in it (only the driver's "
                        "initialization message)")
    p.add_argument("--validators", action="append", metavar="SPEC", default=None,
                   help="run validators from module:attr or path/to/file.py:attr (a ValidationRunner, Validator, "
                        "iterable of Validators or zero-argument factory); repeatable")
    p.add_argument("--list", type=int, metavar="N", default=None, dest="list_index",
                   help="show only list N (its header, records and executions)")
    p.add_argument("--primary", metavar="A:B", default=None, help="show only primary records A..B-1 (A:, :B and A "
                                                                  "alone work too) and their executions")
    p.add_argument("--program", metavar="NAME", default=None,
                   help="show only the records and executions of program NAME")
    p.add_argument("--limit", type=int, metavar="N", default=DEFAULT_LIMIT,
                   help=f"show at most N executions and N primary records per list (default {DEFAULT_LIMIT:,}; "
                        "0: all); the output says how many it left out")
    add_limit_flags(p)
    add_reading_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.cli.exec_cmd import load_hooks
    from d3d12wl.executor import execute
    from d3d12wl.messages.driver_channel import info_queue_view, run_in_info_queue

    try:
        primary = parse_range(args.primary) if args.primary is not None else None
    except ValueError:
        raise D3D12WLError(f"--primary {args.primary!r} is not A:B", where="--primary") from None
    if args.limit < 0:
        raise D3D12WLError("--limit must be >= 0", where="--limit")
    selection = Selection(args.list_index, primary, args.program, args.limit)
    limits = limits_from(args)
    hooks = load_hooks(args.validators)
    with ExitStack() as stack:
        if args.capture is None:
            # as_file: a real path even when the package is installed zipped
            path = stack.enter_context(resources.as_file(resources.files("d3d12wl").joinpath(EXAMPLE)))
        else:
            path = Path(args.capture)
        with expecting(path, CAPTURE):  # (a description, a trace or a call sequence is named so)
            capture = load_capture(path)  # an unusable capture raises CaptureError: d3d12wl.cli.main exits 2
        trace = execute(capture, limits, hooks=hooks, readings=readings_from(args))
        view = dump_view(capture, selected_trace(trace, selection), with_hex=args.hex)
        if hooks is not None:  # which validators were loaded (render_text then shows a block under every list)
            view["validators"] = [v.name or v.identifier.hex() for v in hooks.validators.values()]
        in_queue = run_in_info_queue(trace=trace)
        view["info_queue"] = info_queue_view(in_queue.messages)
    if args.json:
        json.dump(view, sys.stdout, indent=1)
        sys.stdout.write("\n")
    else:
        # the InfoQueue block when the call put a message there (beyond the driver's initialization message, which
        # every device with the channel enabled has), or when asked for; --json always has "info_queue"
        shown = args.info_queue or bool(in_queue.driver_messages)
        sys.stdout.write(render_text(view if shown else {k: v for k, v in view.items() if k != "info_queue"}))
    return 1 if any(f.get("severity") == "error" for f in view["findings"]) else 0
