"""The ``d3d12wl decode`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import os
import re
import sys

from d3d12wl import abi, inputs
from d3d12wl.capture.file import CAPTURE_ONLY, OBJECT_COLLECTIONS
from d3d12wl.cli import load_description, summary
from d3d12wl.cli._options import add_json_flag, integer
from d3d12wl.model import description
from d3d12wl.records import decode

#: the plain-text --help description
DESCRIPTION = """\
d3d12wl decode DESC.json WHAT FILE|-: raw bytes (a GPU readback) as a table of records.
d3d12wl decode --capture CAPTURE.json [DESC.json] [WHAT]: the records of a capture as its call reads them.

WHAT is a record of the description, named as d3d12wl codegen --record and abi check --record-struct name them
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
             A WHAT the call does not read is exit 2 naming what it reads.  Without WHAT, every record class
             the call reads, in the order it reads them (text: one table after another; json: an array of the
             objects; csv, which holds one table, only where the call reads one class).  A lone operand is
             WHAT, unless it names no record class or struct but a file (or -): DESC.json
--offset N   first record at byte N of FILE (default 0)
--stride N   bytes from one record to the next (default: the declared stride: a PCS's SecondaryRecordByteStride,
             a command signature's ByteStride, a struct's sizeof; for primary and program-table records, whose
             stride the dispatch gives, the minimum); checked as the spec checks it; 0 is the broadcast form
--count N    records to decode (default: every record the bytes hold whole); with --count-file, at most N
             (MaxCommandCount: the call decodes min(the count buffer's value, MaxCommandCount))
--count-file FILE[,offset=N]
             the count from an ExecuteIndirect count buffer's readback: the UINT32 at byte N of FILE (default 0;
             CountBufferOffset, which the spec aligns to 4).  A count the bytes do not hold whole is a finding (the records they hold are decoded).  With
             --capture the count is the call's own (its count buffer, min'd with MaxCommandCount)
--va BASE    the GPU VA of FILE's byte 0: adds a va column, the VA of each record
--format     text (default: a summary line, an aligned table, one row per record), csv (a header row, one row
             per record), json (one object with the fields and "records", one object per record keyed by the
             packers' column names, "partial", "findings" and "warnings"), npz (a structured array "records",
             the name tables "names.<column>" and "meta", JSON's first members) or parquet (dictionary columns
             for enums and program names, JSON's first members in the "d3d12wl" metadata; needs the pyarrow
             extra): npz and parquet with the execution table's encodings, VAs as unsigned integers, an array
             member's elements as columns; --json is --format json

Enum members are shown by name, flags as NAME|NAME, VAs, descriptor handles and local-root DWORDs in hex, a
program-table slot's identifier as 64 hex digits with the name of the program it identifies (- for an all-zero
identifier, ? for one the description has no program for).  Findings (a finding line; in csv on stderr; in json
the "partial" and "findings" members), each exit 1: bytes left after the last whole record (a trailing partial
record); with --capture, the call-time findings of the executor and the records the call reads that are not
mapped.  Warnings (a warning line; in csv on stderr; in json "warnings"), never an error: without --capture,
records a wrong stride would make implausible (a ReservedPadding that is not 0, a list at a null or misaligned
address or past the VA space, a misaligned NextDispatchList or root CBV, an enum value outside its enum, an
identifier of no program), and, unless --stride was given (it is believed), the stride at which every record fits
better: every row plausible, and no row lost whose identifier is a program's (a stale or unused slot is legal).

Exit status: 0 decoded, 1 findings, 2 an unusable description, capture, WHAT, FILE (JSON text where raw bytes are
expected) or flag."""

#: the flags that choose records in a raw FILE (not with --capture, where the call chooses them)
_FILE_FLAGS = ("offset", "count", "stride", "va", "count_file")


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("decode", help=summary("decode"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter,
                              usage="%(prog)s DESC.json WHAT FILE [options] | %(prog)s --capture CAPTURE.json "
                                    "[DESC.json] [WHAT] [--format F]")
    p.add_argument("operands", metavar="DESC.json WHAT FILE", nargs="*",
                   help="the JSON description (or a capture; - for stdin), WHAT (PCS.primary, PCS.secondary, "
                        "PCS.program_table, PROGRAM.program_table, EI.command, or a struct name) and the bytes "
                        "(- for stdin); with --capture: [DESC.json] [WHAT]")
    p.add_argument("--capture", metavar="CAPTURE.json", help="decode WHAT as this capture's call reads it")
    p.add_argument("--offset", type=integer, default=None, metavar="N", help="first record at byte N (default 0)")
    p.add_argument("--count", type=integer, default=None, metavar="N", help="records to decode (default: all whole)")
    p.add_argument("--stride", type=integer, default=None, metavar="N", help="bytes between records (default: the "
                                                                          "declared stride)")
    p.add_argument("--count-file", default=None, metavar="FILE[,offset=N]",
                   help="take the count from a count buffer's readback: the UINT32 at byte N of FILE (default 0)")
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


def _from_capture(args: argparse.Namespace) -> tuple[list[decode.Decoded], bool]:
    """``--capture``: WHAT (or every record class the call reads: the second value true) as the call reads it.
    A lone operand is WHAT unless it names no record class of the capture's description and no declared struct
    but a file (or ``-``): DESC.json."""
    if len(args.operands) > 2:
        raise inputs.InputError("with --capture give [DESC.json] [WHAT] (the capture holds the bytes)",
                                where=" ".join(args.operands))
    for flag in _FILE_FLAGS:
        if getattr(args, flag) is not None:
            raise inputs.InputError("chooses records in a raw FILE; with --capture the call chooses them",
                                    where=f"--{flag.replace('_', '-')}")
    # (imported here: a decode of a raw FILE, the common case, starts without the executor)
    from d3d12wl.capture.file import load_capture
    from d3d12wl.executor.reads import call_rows, reached, read_call

    capture = load_capture(args.capture)
    reads = read_call(capture.memory, capture.device, capture.objects, capture.state, capture.call)
    lone = args.operands[0] if len(args.operands) == 1 else None
    lone_what = lone is not None and (lone in decode.known_targets(capture.objects) or lone in abi.types()
                                      or not (lone == "-" or os.path.exists(lone)))
    desc = args.operands[0] if len(args.operands) == 2 or (args.operands and not lone_what) else None
    whats = args.operands[1:] if desc is not None else list(args.operands)
    several = not whats
    if desc is not None:
        args.description = desc
        objects = load_description(args, ignore_keys=CAPTURE_ONLY | {description.RECORD_STRUCTS})
    else:
        objects = capture.objects
    if not whats:
        whats = reached(reads)
        if not whats:
            raise inputs.InputError(f"the call ({reads.call}) reads no records (see the findings of d3d12wl exec)",
                                    where="--capture")
    findings = [f"the call: {f}" for f in reads.trace.findings if f.severity == "error"]
    out = []
    for what in whats:
        rows = call_rows(reads, what)
        target = decode.target(objects, what)
        if target.size != rows.size:
            raise inputs.InputError(f"{what} is {target.size} bytes in {desc} but {rows.size} in the capture's "
                                    "description", where="DESC.json")
        out.append(decode.gathered(target, rows.data, rows.va, columns=rows.columns, reading=rows.reading(),
                                   call_stride=rows.stride, source=inputs.label(args.capture),
                                   findings=findings + [f"left out: {note}" for note in rows.left_out]))
    return out, several


def _count_buffer(text: str) -> tuple[int, str, int]:
    """``--count-file FILE[,offset=N]``: the UINT32 at byte N of FILE (IndirectDrawing.md "Drawing":
    ``pCountBuffer->ReadUINT32(CountBufferOffset)``, the offset 4-byte aligned), the file's label and N."""
    where = f"--count-file {text}"
    file, offset = text, 0
    head, sep, tail = text.rpartition(",offset=")
    if sep:
        try:
            file, offset = head, inputs.integer(tail)
        except ValueError as exc:
            raise inputs.InputError(f"{exc}: give FILE[,offset=N]", where=where) from None
    if offset < 0 or offset % 4:
        raise inputs.InputError(f"offset {offset} is not a multiple of 4 (CountBufferOffset is 4-byte aligned, "
                                "IndirectDrawing.md \"Drawing\")", where=where)
    if file == "-":
        raise inputs.InputError("the count buffer is a file (stdin can feed DESC.json or FILE)", where=where)
    data = inputs.map_bytes(file, what="count buffer")
    if len(data) < offset + 4:
        raise inputs.InputError(f"{inputs.label(file)} holds {len(data)} bytes: no UINT32 at offset {offset}",
                                where=where)
    return int.from_bytes(bytes(data[offset:offset + 4]), "little"), inputs.label(file), offset


def _counted(target: decode.Target, data: memoryview | bytes, args: argparse.Namespace, source: str
             ) -> decode.Decoded:
    """The records of FILE, ``--count`` of them, or as many as ``--count-file``'s value (at most ``--count``)."""
    if args.count_file is None:
        return decode.view(target, data, offset=args.offset or 0, stride=args.stride, count=args.count,
                           va=args.va, source=source)
    value, file, at = _count_buffer(args.count_file)
    want = value if args.count is None else min(value, args.count)
    capped = f", at most --count {args.count}" if args.count is not None and args.count < value else ""
    says = f"the count buffer's {value} at offset {at} of {file}{capped}"
    whole = decode.view(target, data, offset=args.offset or 0, stride=args.stride, count=None, va=args.va,
                        source=source)
    if want <= whole.count:
        out = decode.view(target, data, offset=args.offset or 0, stride=args.stride, count=want, va=args.va,
                          source=source)
    else:
        out = whole
        out.findings.append(f"{says}: {want} records, but {source} holds {whole.count} whole at stride "
                            f"{whole.stride} from offset {whole.offset}: the other {want - whole.count} are not in "
                            "it (a readback shorter than the count, or the wrong stride)")
    out.count_from = {"file": file, "offset": at, "value": value, "says": says}
    return out


def run(args: argparse.Namespace) -> int:
    fmt: decode.Format = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise inputs.InputError(f"--json is --format json, so it and --format {fmt} disagree: give one of them",
                                where="--format")
    several = False
    if args.capture is not None:
        decodes, several = _from_capture(args)
    else:
        if len(args.operands) != 3:
            raise inputs.InputError("give DESC.json WHAT FILE (or --capture CAPTURE.json [DESC.json] [WHAT])",
                                    where=" ".join(args.operands) or "DESC.json")
        args.description, what, file = args.operands
        if "-" == args.description == file:
            raise inputs.InputError("stdin can feed DESC.json or FILE, not both", where="-")
        objects = load_description(args, ignore_keys=CAPTURE_ONLY | {description.RECORD_STRUCTS})
        target = decode.target(objects, what)
        data = inputs.map_bytes(file, what=f"file of {what} records")
        _refuse_json(data, inputs.label(file))
        decoded = _counted(target, data, args, inputs.label(file))
        decoded.warnings += decode.plausibility(decoded, given=args.stride is not None)
        decodes = [decoded]

    def warn(message: str) -> None:
        print(f"d3d12wl decode: finding: {message}", file=sys.stderr)

    def caution(message: str) -> None:
        print(f"d3d12wl decode: warning: {message}", file=sys.stderr)

    out = sys.stdout.buffer
    if several and fmt == "csv" and len(decodes) > 1:
        raise inputs.InputError("csv holds one table, and the call reads "
                                f"{', '.join(d.target.name for d in decodes)}: give WHAT, one of them",
                                where="--format csv")
    if several and fmt == "json":
        out.write(b"[\n")
    for i, decoded in enumerate(decodes):
        if i:
            out.write(b",\n" if fmt == "json" else b"\n")
        decode.write(decoded, out, fmt, warn=warn, caution=caution)
    if several and fmt == "json":
        out.write(b"]\n")
    out.flush()
    return 1 if any(decode.messages(d) for d in decodes) else 0

