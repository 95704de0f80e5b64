"""The ``d3d12wl decode`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import sys

from d3d12wl import inputs
from d3d12wl.capture.file import CAPTURE_ONLY
from d3d12wl.cli import load_description, summary
from d3d12wl.cli._options import integer
from d3d12wl.model import description
from d3d12wl.records import decode

#: the plain-text --help description
DESCRIPTION = """\
d3d12wl decode DESC.json WHAT FILE|-: raw bytes (a GPU readback) as a table of records.

WHAT is a record of the description, named as d3d12wl codegen and abi check --record name them
(PCS.primary, PCS.secondary, PCS.program_table, PROGRAM.program_table for any program,
EI.command), or any declared struct (D3D12_DISPATCH_LIST_INPUT1, D3D12_DRAW_INDEXED_ARGUMENTS; see
d3d12wl abi).  FILE is the bytes (-: stdin); a regular file is memory-mapped, not read whole.

--offset N   first record at byte N of FILE (default 0)
--stride N   bytes from one record to the next (default: the declared stride: a PCS's SecondaryRecordByteStride,
             a command signature's ByteStride, a struct's sizeof; for primary and program-table records, whose
             stride the dispatch gives, the minimum); checked as the spec checks it; 0 is the broadcast form
--count N    records to decode (default: every record the bytes hold whole)
--va BASE    the GPU VA of FILE's byte 0: adds a va column, the VA of each record
--format     text (default: a summary line, an aligned table, one row per record), csv (a header row, one row
             per record), json (one object with the fields and "records", one object per record keyed by the
             packers' column names, and "partial"); --json is --format json

Enum members are shown by name, flags as NAME|NAME, VAs, descriptor handles and local-root DWORDs in hex, a
program-table slot's identifier as 64 hex digits with the name of the program it identifies (- for an all-zero
identifier, ? for one the description has no program for).  Bytes left after the last whole record are a
trailing partial record: reported (a finding line; in csv on stderr; in json the "partial" member) and exit 1.

Exit status: 0 decoded, 1 a trailing partial record, 2 an unusable description, WHAT, FILE or flag."""

def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("decode", help=summary("decode"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", metavar="DESC.json", help="the JSON description (or a capture); - for stdin")
    p.add_argument("what", metavar="WHAT", help="PCS.primary, PCS.secondary, PCS.program_table, "
                                                "PROGRAM.program_table, EI.command, or a struct name")
    p.add_argument("file", metavar="FILE", help="the bytes; - for stdin")
    p.add_argument("--offset", type=integer, default=0, metavar="N", help="first record at byte N (default 0)")
    p.add_argument("--count", type=integer, default=None, metavar="N", help="records to decode (default: all whole)")
    p.add_argument("--stride", type=integer, default=None, metavar="N", help="bytes between records (default: the "
                                                                          "declared stride)")
    p.add_argument("--va", type=integer, default=None, metavar="BASE", help="GPU VA of the file's byte 0")
    p.add_argument("--format", choices=decode.FORMATS, default=None, help="output format (default text)")
    p.add_argument("--json", action="store_true", help="the same as --format json")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if "-" == args.description == args.file:
        raise inputs.InputError("stdin can feed DESC.json or FILE, not both", where="-")
    fmt: decode.Format = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise inputs.InputError(f"--json and --format {fmt} disagree", where="--format")
    objects = load_description(args, ignore_keys=CAPTURE_ONLY | {description.RECORD_STRUCTS})
    target = decode.target(objects, args.what)
    data = inputs.map_bytes(args.file, what=f"file of {args.what} records")
    decoded = decode.view(target, data, offset=args.offset, stride=args.stride, count=args.count, va=args.va,
                          source=inputs.label(args.file))

    def warn(message: str) -> None:
        print(f"d3d12wl decode: finding: {message}", file=sys.stderr)

    out = sys.stdout.buffer
    decode.write(decoded, out, fmt, warn=warn)
    out.flush()
    return 1 if decoded.partial is not None else 0
