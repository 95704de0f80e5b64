"""The ``d3d12wl report`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys
import time
from contextlib import ExitStack
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, integer
from d3d12wl.cli.exec_cmd import (
    EXAMPLE,
    add_executor_flags,
    limits_from,
    load_capture_arg,
    load_hooks,
    readings_from,
    verdict_line,
)
from d3d12wl.cli.progress import Progress
from d3d12wl.errors import D3D12WLError
from d3d12wl.verdicts.page import DEFAULT_LIMIT

#: the plain-text --help description
DESCRIPTION = f"""\
Run the executor on a capture and write the page of the call: one self-contained HTML file (no script, nothing
fetched from anywhere), readable offline and attachable to a bug.

The page shows the verdict; the call, the device, the command-list state and the GPU memory regions; the objects
(program command signatures with their arguments named as the records name them); charts of the executions per
program, per executable class and trigger, per list and per range of primary records (of commands), with the
findings marked over the ranges; the findings, each opening the bytes of the record it concerns as an annotated
hex view, the fields named by the description's Names and the field the finding is about marked; the first
executions as a table, with a note of how many were left out; the end-of-call reset.  Its size does not grow with
the frame: every list on it is cut (--limit for the findings and executions) and says what it left out.

With no CAPTURE it makes the page of the bundled example ({EXAMPLE}).

-o PATH writes the page to PATH (atomically: an interrupted or failed run leaves the old file or none); without it
the page goes to standard output.  --json prints, on standard output, where the page went, its size and the
verdict (it needs -o PATH).

Exit status: 0 when the trace has no error findings, 1 when it has (the page is written; one line on standard
error says how many of which kinds), 2 when the capture, a flag or the output path cannot be used."""


def register(sub: Any) -> None:
    p = sub.add_parser("report", help=summary("report"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", nargs="?", help=f"capture file (default: the bundled example {EXAMPLE})")
    p.add_argument("-o", "--output", metavar="PATH", default=None,
                   help="write the page to PATH (atomically) instead of standard output")
    p.add_argument("--limit", type=integer, metavar="N", default=DEFAULT_LIMIT,
                   help=f"at most N findings (each with its record's bytes) and N executions on the page, the first "
                        f"ones in the trace's order (default {DEFAULT_LIMIT:,}); the page says how many it left out")
    add_json_flag(p, "where the page went, its size and the verdict (needs -o PATH)")
    add_executor_flags(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.executor import execute
    from d3d12wl.executor.output import verdict
    from d3d12wl.output import claims
    from d3d12wl.output.outfiles import is_stdout, output_file
    from d3d12wl.output.serialize import json_text
    from d3d12wl.verdicts.page import PageInput, build_page

    if args.limit < 0:
        raise D3D12WLError("--limit must be >= 0", where="--limit")
    if args.json and is_stdout(args.output):
        raise D3D12WLError("--json prints its result on standard output; give the page a file with -o PATH",
                           where="--json")
    claims.check([("-o", args.output)], [("CAPTURE", args.capture)])
    limits = limits_from(args)
    hooks = load_hooks(args.validators)
    progress = Progress("report", quiet=args.quiet)
    with ExitStack() as stack:
        progress.stage("loading the capture")
        start = time.perf_counter()
        capture = load_capture_arg(args.capture, stack)
        loaded = time.perf_counter()
        progress.stage("executing")
        trace = execute(capture, limits, hooks=hooks, readings=readings_from(args))
        executed = time.perf_counter()
        progress.stage("making the page")
        page = build_page(PageInput(capture, trace, args.capture or EXAMPLE, args.limit, loaded - start,
                                    executed - loaded))
    data = page.encode("utf-8")
    with output_file(args.output, binary=True) as out:
        out.write(data)
    progress.done()
    shown = "standard output" if is_stdout(args.output) else repr(args.output)
    if args.json:
        print(json_text({"page": args.output, "bytes": len(data), "executions": len(trace.executions),
                         "verdict": verdict(trace)}))
    if trace.has_errors:
        print(f"d3d12wl report: {verdict_line(trace)}; the page: {shown}", file=sys.stderr)
        return 1
    return 0
