"""The ``d3d12wl decode`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import re
import sys

from d3d12wl import inputs
from d3d12wl.capture.file import CAPTURE_ONLY, OBJECT_COLLECTIONS
from d3d12wl.cli import load_description, summary
from d3d12wl.cli._options import add_json_flag, integer
from d3d12wl.model import description
from d3d12wl.records import decode

#: the plain-text --help description
DESCRIPTION = """\
d3d12wl decode DESC.json WHAT FILE|-: raw bytes (a GPU readback) as a table of records.
d3d12wl decode --capture CAPTURE.json [DESC.json] WHAT: the records of a capture as its call reads them.

WHAT is a record of the description, named as d3d12wl codegen and abi check --record name them
(PCS.primary, PCS.secondary, PCS.program_table, PROGRAM.program_table for any program,
EI.command), or any declared struct (D3D12_DISPATCH_LIST_INPUT1, D3D12_DRAW_INDEXED_ARGUMENTS; see
d3d12wl abi).  FILE is the bytes (-: stdin); a regular file is memory-mapped, not read whole.

--capture CAPTURE.json   decode WHAT where and as the capture's call reads it, every row with its VA: the
             dispatch inputs of the chain (D3D12_DISPATCH_LIST_INPUT / _INPUT1); PCS.primary at each list's
             ProgramInputs (start, stride, NumProgramInputs; only the records whose program is PCS's where a
             list's signature has several); PCS.secondary at each of those records' SecondaryRecords
             (NumSecondaryRecords at the PCS's SecondaryRecordByteStride); PCS.program_table at the bound table
             (Table.StartAddress, StrideInBytes, SlotCount); EI.command at the argument buffer (ByteStride, the
             command count).  Index columns say where each row is (list, primary, secondary, binding, slot,
             command).  DESC.json, when given, names the members (its WHAT must have the capture's bytes).
             A WHAT the call does not read is exit 2 naming what it reads.
--offset N   first record at byte N of FILE (default 0)
--stride N   bytes from one record to the next (default: the declared stride: a PCS's SecondaryRecordByteStride,
             a command signature's ByteStride, a struct's sizeof; for primary and program-table records, whose
             stride the dispatch gives, the minimum); checked as the spec checks it; 0 is the broadcast form
--count N    records to decode (default: every record the bytes hold whole)
--va BASE    the GPU VA of FILE's byte 0: adds a va column, the VA of each record
--format     text (default: a summary line, an aligned table, one row per record), csv (a header row, one row
             per record), json (one object with the fields and "records", one object per record keyed by the
             packers' column names, "partial" and "findings"); --json is --format json

Enum members are shown by name, flags as NAME|NAME, VAs, descriptor handles and local-root DWORDs in hex, a
program-table slot's identifier as 64 hex digits with the name of the program it identifies (- for an all-zero
identifier, ? for one the description has no program for).  Findings (a finding line; in csv on stderr; in json
the "partial" and "findings" members), each exit 1: bytes left after the last whole record (a trailing partial
record); without --capture, records a wrong stride makes implausible (a ReservedPadding that is not 0, a list at a
null or misaligned address or past the VA space, a misaligned NextDispatchList or root CBV, an enum value outside
its enum, an identifier of no program), with the stride at which every record would be plausible; with
--capture, the call-time findings of the executor and the records the call reads that are not mapped.

Exit status: 0 decoded, 1 findings, 2 an unusable description, capture, WHAT, FILE (JSON text where raw bytes are
expected) or flag."""

#: the flags that choose records in a raw FILE (not with --capture, where the call chooses them)
_FILE_FLAGS = ("offset", "count", "stride", "va")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("decode", help=summary("decode"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter,
                              usage="%(prog)s DESC.json WHAT FILE [options] | %(prog)s --capture CAPTURE.json "
                                    "[DESC.json] WHAT [--format F]")
    p.add_argument("operands", metavar="DESC.json WHAT FILE", nargs="+",
                   help="the JSON description (or a capture; - for stdin), WHAT (PCS.primary, PCS.secondary, "
                        "PCS.program_table, PROGRAM.program_table, EI.command, or a struct name) and the bytes "
                        "(- for stdin); with --capture: [DESC.json] WHAT")
    p.add_argument("--capture", metavar="CAPTURE.json", help="decode WHAT as this capture's call reads it")
    p.add_argument("--offset", type=integer, default=None, metavar="N", help="first record at byte N (default 0)")
    p.add_argument("--count", type=integer, default=None, metavar="N", help="records to decode (default: all whole)")
    p.add_argument("--stride", type=integer, default=None, metavar="N", help="bytes between records (default: the "
                                                                          "declared stride)")
    p.add_argument("--va", type=integer, default=None, metavar="BASE", help="GPU VA of the file's byte 0")
    p.add_argument("--format", choices=decode.FORMATS, default=None, help="output format (default text)")
    add_json_flag(p, "the records: --format json")
    p.set_defaults(func=run)


#: bytes of a FILE looked at to tell JSON text from raw bytes
_HEAD = 4096


def _refuse_json(data: memoryview | bytes, source: str) -> None:
    """FILE that is JSON text (a capture or a description where raw bytes are meant) is unusable input, said
    so, rather than decoded as records."""
    head = bytes(data[:_HEAD])
    text = head.lstrip(b" \t\r\n")
    if not text.startswith(b"{"):
        return
    try:
        sample = text.decode("utf-8", errors="strict")
    except UnicodeDecodeError as exc:
        if exc.start < len(text) - 4:  # (a character cut at the end of the head is still text)
            return
    else:
        del sample
    keys = set(re.findall(rb'"([A-Za-z_]+)"\s*:', head))
    capture = {k.encode() for k in CAPTURE_ONLY} & keys
    collections = {k.encode() for k in OBJECT_COLLECTIONS} & keys
    if not capture and not collections:
        return
    if capture:
        what = "a d3d12wl capture (JSON with " + ", ".join(sorted(k.decode() for k in capture)) + ")"
        hint = f"decode its records as its call reads them with d3d12wl decode --capture {source} WHAT"
    else:
        what = "a JSON description"
        hint = "give it as DESC.json and the readback's raw bytes as FILE"
    raise inputs.InputError(f"{source} is {what}, not raw bytes: {hint}", where=f"{source} (FILE)")


def _from_capture(args: argparse.Namespace) -> decode.Decoded:
    if len(args.operands) not in (1, 2):
        raise inputs.InputError("with --capture give [DESC.json] WHAT (the capture holds the bytes)",
                                where=" ".join(args.operands))
    for flag in _FILE_FLAGS:
        if getattr(args, flag) is not None:
            raise inputs.InputError("chooses records in a raw FILE; with --capture the call chooses them",
                                    where=f"--{flag}")
    # (imported here: a decode of a raw FILE, the common case, starts without the executor)
    from d3d12wl.capture.file import load_capture
    from d3d12wl.executor.reads import call_rows, read_call

    what = args.operands[-1]
    capture = load_capture(args.capture)
    reads = read_call(capture.memory, capture.device, capture.objects, capture.state, capture.call)
    if len(args.operands) == 2:
        args.description = args.operands[0]
        objects = load_description(args, ignore_keys=CAPTURE_ONLY | {description.RECORD_STRUCTS})
    else:
        objects = capture.objects
    rows = call_rows(reads, what)
    target = decode.target(objects, what)
    if target.size != rows.size:
        raise inputs.InputError(f"{what} is {target.size} bytes in {args.operands[0]} but {rows.size} in the "
                                "capture's description", where="DESC.json")
    findings = [f"the call: {f}" for f in reads.trace.findings if f.severity == "error"]
    findings += [f"left out: {note}" for note in rows.left_out]
    return decode.gathered(target, rows.data, rows.va, columns=rows.columns, reading=rows.reading(),
                           call_stride=rows.stride, source=inputs.label(args.capture), findings=findings)


def run(args: argparse.Namespace) -> int:
    fmt: decode.Format = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise inputs.InputError(f"--json is --format json, so it and --format {fmt} disagree: give one of them",
                                where="--format")
    if args.capture is not None:
        decoded = _from_capture(args)
    else:
        if len(args.operands) != 3:
            raise inputs.InputError("give DESC.json WHAT FILE (or --capture CAPTURE.json [DESC.json] WHAT)",
                                    where=" ".join(args.operands))
        args.description, what, file = args.operands
        if "-" == args.description == file:
            raise inputs.InputError("stdin can feed DESC.json or FILE, not both", where="-")
        objects = load_description(args, ignore_keys=CAPTURE_ONLY | {description.RECORD_STRUCTS})
        target = decode.target(objects, what)
        data = inputs.map_bytes(file, what=f"file of {what} records")
        _refuse_json(data, inputs.label(file))
        decoded = decode.view(target, data, offset=args.offset or 0, stride=args.stride, count=args.count,
                              va=args.va, source=inputs.label(file))
        decoded.findings += decode.plausibility(decoded)

    def warn(message: str) -> None:
        print(f"d3d12wl decode: finding: {message}", file=sys.stderr)

    out = sys.stdout.buffer
    decode.write(decoded, out, fmt, warn=warn)
    out.flush()
    return 1 if decode.messages(decoded) else 0
