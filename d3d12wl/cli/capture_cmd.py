"""The ``d3d12wl capture`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import inputs
from d3d12wl.capture import assemble as asm
from d3d12wl.capture.file import (
    CAPTURE_ONLY,
    Capture,
    format_version,
    save_capture,
    write_capture_json,
)
from d3d12wl.cli import load_description, summary
from d3d12wl.cli._options import (
    add_json_flag,
    add_output_flag,
    add_tier_flag,
    integer,
    refuse_json_with_capture_on_stdout,
    rename,
)
from d3d12wl.errors import CaptureError
from d3d12wl.executor.preflight import RecordNote, check_records
from d3d12wl.executor.reads import CallReads, read_call, selected_slots
from d3d12wl.executor.trace import Finding
from d3d12wl.model import description
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.state import ExecuteIndirectCall
from d3d12wl.output import claims, outfiles, tables
from d3d12wl.output.serialize import json_text

#: the plain-text --help description
DESCRIPTION = """\
d3d12wl capture DESC.json REGION... -o OUT.json --dispatch-list VA ...: assemble a capture from raw buffers.

Regions (one per buffer; right after DESC.json, or anywhere as --region REGION):
  NAME=FILE@VA                    a readback file (memory-mapped; referenced from the capture if larger than 4 KiB,
                                  else written inline), FILE,offset=N,size=N for part of it
  NAME=hex:0011aabb@VA            bytes in hex
  NAME=base64:AAEC@VA             bytes in base64
  NAME=zeros:N@VA                 N zero bytes (scratch)
  NAME=-@VA                       the bytes on stdin
  ...,writable                    after the source: validators may write the region
A VA anywhere below is a number (0x hex or decimal), a region's NAME (its base) or NAME+N.

The call (one of), its parameters spelled as the spec names them:
  --dispatch-list VA --max-graphics-program-inputs-per-primary-list N
                                  DispatchList(DispatchListInput, MaxGraphicsProgramInputsPerPrimaryList)
  --dispatch-list1 VA --max-graphics-primary-lists N --max-graphics-program-inputs-per-primary-list N
                                  DispatchList1(DispatchListInput, MaxGraphicsPrimaryLists, ...) (Tier 2)
  --execute-indirect SIG --argument-buffer VA [--count-buffer VA] --max-command-count N
                    [--argument-buffer-resource BASE,WIDTH[,STATE]] [--count-buffer-resource BASE,WIDTH[,STATE]]
                                  ExecuteIndirect(SIG, MaxCommandCount, pArgumentBuffer + ArgumentBufferOffset,
                                  pCountBuffer + CountBufferOffset); a buffer's resource: its GPU VA,
                                  D3D12_RESOURCE_DESC::Width and (optionally) the D3D12_RESOURCE_STATES it is in at
                                  the call (NAME or NAME|NAME); the call reads at --argument-buffer /
                                  --count-buffer, so the offsets are what they lie past BASE.  Without one, the
                                  region holding the VA stands for the resource (writes capture version 2)
  (the spellings of 0.2.0, --max-inputs, --max-lists, --args, --count, --max, --args-resource and
  --count-resource, work for this release with a warning)

The binding (work lists):
  --program-table VA [--slots N] [--stride N]   SizeInBytes is the rest of the region VA lies in; the stride
                                                defaults to the signature's minimum program-table stride,
                                                SlotCount to what SizeInBytes holds.  Repeat for a signature
                                                array (one per signature index; --slots/--stride repeat with it)
  --signature NAME                              the work list signature (or, for DispatchList1, the signature
                                                array); default: the description's only one

State (the root signatures default to those the call's class uses):
  --state STATE.json              the capture's "state" member (the capture format) as a base; the flags add to it
  --root-arg [graphics:|compute:]P=VALUE
                                  root parameter P: a VA for a root CBV/SRV/UAV, a handle for a table, DWORDs
                                  (1,2,3) for root constants, as the bound root signature declares P
  --vertex-buffer SLOT=VA,SIZE,STRIDE, --index-buffer VA,SIZE,FORMAT
  --graphics-root-signature NAME, --compute-root-signature NAME, --tier 1|2, --dispatch-rays
  --command-list-type TYPE        the D3D12_COMMAND_LIST_TYPE the call is recorded on (DIRECT, BUNDLE, COMPUTE,
                                  COPY, VIDEO_DECODE, VIDEO_PROCESS, VIDEO_ENCODE; default DIRECT)
  --in-render-pass                the call is recorded inside a render pass scope (both write capture version 3)
  --descriptor-heap TYPE[=START,NUM,INCREMENT]
                                  a shader-visible heap (CBV_SRV_UAV or SAMPLER) is bound (SetDescriptorHeaps), with
                                  its GPU handle range: GetGPUDescriptorHandleForHeapStart, NumDescriptors and
                                  GetDescriptorHandleIncrementSize (capture version 4); repeat per type

Program identifiers are read from the bound table's slots and matched to the description's programs; where some
match none, the stride at which every slot would hold a program's (or an empty) identifier is named.  Then the
call-time checks d3d12wl exec makes before any record runs are made on what was assembled (the bind, the command
list, every dispatch input of the chain: MaxGraphicsProgramInputsPerPrimaryList against NumProgramInputs, strides
and alignment; ExecuteIndirect's buffers), each finding printed with the flag that sets what it is about (and, for
MaxGraphicsProgramInputsPerPrimaryList and MaxGraphicsPrimaryLists, the value the bytes need).  Then the records
the call reads are judged as d3d12wl decode judges raw bytes, where and at the strides the call reads them: records
the call reads that the regions do not hold (an ExecuteIndirect count past the argument buffer's readback: how many
commands it holds) are errors; records a stride makes implausible (a root CBV not a multiple of 256, a misaligned
list, an enum value of no member) are warnings, with the stride at which every record of the run fits better and
what sets the stride the call used (a command signature's ByteStride, a PCS's SecondaryRecordByteStride, a list's
ProgramInputs.StrideInBytes).  The capture is written atomically (a temporary file renamed); -o - prints it (every
region inline).  Exit status: 0 written (warnings, a heuristic's, included: an identifier of no program in a slot no
record selects, which is legal), 1 written with findings (an identifier of no program in a slot a record the call
reads selects, a SlotCount the table does not hold, an error of the call-time checks, records the call reads that
are not there), 2 unusable input (the message names the file or flag)."""

_MAX_INPUTS, _MAX_LISTS = "--max-graphics-program-inputs-per-primary-list", "--max-graphics-primary-lists"

#: the old spellings of the call's parameters (renamed after 0.2.0: --count and --max meant other things elsewhere)
_RENAMED = {"--max-inputs": _MAX_INPUTS, "--max-lists": _MAX_LISTS, "--args": "--argument-buffer", "--count": "--count-buffer",
            "--max": "--max-command-count", "--args-resource": "--argument-buffer-resource",
            "--count-resource": "--count-buffer-resource"}


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("capture", help=summary("capture"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("description", metavar="DESC.json", help="the JSON description of objects; - for stdin")
    p.add_argument("regions", metavar="REGION", nargs="*", help="NAME=FILE@VA, NAME=hex:..@VA, NAME=base64:..@VA, "
                                                                "NAME=zeros:N@VA, NAME=-@VA")
    p.add_argument("--region", action="append", default=[], metavar="REGION", dest="more_regions",
                   help="a region anywhere on the line (the positional REGIONs must follow DESC.json directly)")
    add_output_flag(p, "the capture to write", metavar="OUT.json", required=True)
    call = p.add_mutually_exclusive_group(required=True)
    call.add_argument("--dispatch-list", metavar="VA", help="DispatchList(DispatchListInput=VA, ...)")
    call.add_argument("--dispatch-list1", metavar="VA", help="DispatchList1(DispatchListInput=VA, ...)")
    call.add_argument("--execute-indirect", metavar="SIG", help="ExecuteIndirect with command signature SIG")
    # the call's parameters, spelled as the spec names them
    p.add_argument(_MAX_INPUTS, type=integer, default=None, metavar="N",
                   dest="max_inputs", help="DispatchList, DispatchList1: MaxGraphicsProgramInputsPerPrimaryList "
                                           "(default 0)")
    p.add_argument(_MAX_LISTS, type=integer, default=None, metavar="N", dest="max_lists",
                   help="DispatchList1: MaxGraphicsPrimaryLists (default 0)")
    p.add_argument("--argument-buffer", metavar="VA", dest="args",
                   help="ExecuteIndirect: the argument buffer (pArgumentBuffer + ArgumentBufferOffset)")
    p.add_argument("--count-buffer", metavar="VA", dest="count",
                   help="ExecuteIndirect: the count buffer (pCountBuffer + CountBufferOffset; default: none)")
    p.add_argument("--max-command-count", type=integer, default=None, metavar="N", dest="max",
                   help="ExecuteIndirect: MaxCommandCount (default 0)")
    p.add_argument("--argument-buffer-resource", metavar="BASE,WIDTH[,STATE]", dest="args_resource",
                   help="ExecuteIndirect: the argument buffer's resource (GPU VA, size in bytes, resource state)")
    p.add_argument("--count-buffer-resource", metavar="BASE,WIDTH[,STATE]", dest="count_resource",
                   help="ExecuteIndirect: the count buffer's resource (GPU VA, size in bytes, resource state)")
    for old, new in _RENAMED.items():
        rename(p, old, new)
    p.add_argument("--program-table", action="append", default=[], metavar="VA", help="bind a program table at VA")
    p.add_argument("--slots", action="append", type=integer, default=[], metavar="N",
                   help="its SlotCount (repeat with --program-table)")
    p.add_argument("--stride", action="append", type=integer, default=[], metavar="N",
                   help="its StrideInBytes: bytes between its records (repeat with --program-table)")
    p.add_argument("--signature", metavar="NAME", help="work list signature or signature array to bind")
    p.add_argument("--state", metavar="STATE.json", help='the capture\'s "state" member as a base')
    p.add_argument("--root-arg", action="append", default=[], metavar="[graphics:|compute:]P=VALUE",
                   help="root parameter P: a VA (root CBV/SRV/UAV), a handle (table) or DWORDs (root constants)")
    p.add_argument("--vertex-buffer", action="append", default=[], metavar="SLOT=VA,SIZE,STRIDE",
                   help="a bound vertex buffer view (IASetVertexBuffers)")
    p.add_argument("--index-buffer", metavar="VA,SIZE,FORMAT", help="the bound index buffer view (IASetIndexBuffer)")
    p.add_argument("--graphics-root-signature", metavar="NAME", help="SetGraphicsRootSignature")
    p.add_argument("--compute-root-signature", metavar="NAME", help="SetComputeRootSignature")
    add_tier_flag(p, default=None, default_text="1; 2 for DispatchList1")
    p.add_argument("--dispatch-rays", action="store_true", help="DispatchRaysSupported")
    p.add_argument("--command-list-type", metavar="TYPE",
                   help="the D3D12_COMMAND_LIST_TYPE the call is recorded on (default DIRECT)")
    p.add_argument("--in-render-pass", action="store_true", help="the call is recorded inside a render pass")
    p.add_argument("--descriptor-heap", action="append", default=[], metavar="TYPE[=START,NUM,INCREMENT]",
                   help="a bound shader-visible descriptor heap and its GPU handle range")
    add_json_flag(p, 'what was written, {"output", "version", "call", "regions", "program_tables", "findings", '
                     '"call_time_checks", "warnings", "records"} (not with -o -, which prints the capture itself)')
    p.set_defaults(func=run)


def _bindings(args: argparse.Namespace) -> list[asm.BindingSpec]:
    n = len(args.program_table)
    for flag, values in (("--slots", args.slots), ("--stride", args.stride)):
        if len(values) > max(n, 1) or (n > 1 and len(values) not in (0, 1, n)):
            raise CaptureError(f"give {flag} once, or once per --program-table ({n})", where=flag)
        if values and not n:
            raise CaptureError(f"{flag} applies to a --program-table", where=flag)

    def pick(values: list[int], i: int) -> int | None:
        return values[i] if len(values) == n and n > 1 else values[0] if values else None

    return [asm.BindingSpec(va, pick(args.slots, i), pick(args.stride, i)) for i, va in enumerate(args.program_table)]


def _call(args: argparse.Namespace) -> asm.CallSpec:
    if args.execute_indirect is not None:
        return asm.CallSpec("ExecuteIndirect", signature=args.execute_indirect, args=args.args, count=args.count,
                            max_commands=args.max or 0, args_resource=args.args_resource,
                            count_resource=args.count_resource)
    for flag, dest in (("--argument-buffer", "args"), ("--count-buffer", "count"),
                       ("--argument-buffer-resource", "args_resource"), ("--count-buffer-resource", "count_resource")):
        if getattr(args, dest) is not None:
            raise CaptureError(f"applies to --execute-indirect only; leave {flag} out", where=flag)
    if args.dispatch_list is not None:
        return asm.CallSpec("DispatchList", input=args.dispatch_list, max_inputs=args.max_inputs or 0)
    return asm.CallSpec("DispatchList1", input=args.dispatch_list1, max_inputs=args.max_inputs or 0,
                        max_lists=args.max_lists or 0)


def _given(args: argparse.Namespace, dest: str, flag: str, member: str) -> str:
    value = getattr(args, dest)
    return f"the flag: {flag} ({member}) is " + (f"{value}" if value is not None else "0, its default (not given)")


def _flag_hints(finding: Finding, reads: CallReads, args: argparse.Namespace) -> list[str]:
    """Which flag of this command contradicts the bytes a call-time finding is about, and what to give."""
    kind = finding.kind
    if kind == "max-graphics-program-inputs-exceeded":
        graphics = [lr for lr in reads.lists if lr.executable_class is ExecutableClass.GRAPHICS]
        need = max((lr.header["NumProgramInputs"] for lr in graphics), default=0)
        return [f"{_given(args, 'max_inputs', _MAX_INPUTS, 'MaxGraphicsProgramInputsPerPrimaryList')}, but the "
                f"dispatch input{'s hold' if len(graphics) > 1 else ' holds'} NumProgramInputs {need}: give "
                f"{_MAX_INPUTS} {need}"]
    if kind == "max-graphics-primary-lists-exceeded":
        return [f"{_given(args, 'max_lists', _MAX_LISTS, 'MaxGraphicsPrimaryLists')}, but the chain has "
                f"{reads.trace.graphics_lists} graphics-class lists: give {_MAX_LISTS} {reads.trace.graphics_lists}"]
    flags = _FLAG_OF_KIND.get(kind)
    return [f"the flag: {flags}"] if flags else []


#: the flags that set what a call-time finding of this kind is about
_FLAG_OF_KIND = {
    "tier-not-supported": "--tier (default 1)",
    "dispatch-rays-not-supported": "--dispatch-rays",
    "no-work-list-bound": "--signature", "bind-type-mismatch-dispatch-method": "--dispatch-list / --dispatch-list1",
    "num-bindings-mismatch": "--program-table (one per signature index)",
    "program-table-binding-invalid": "--program-table / --slots / --stride",
    "program-table-stride-too-small": "--stride (the program table's StrideInBytes)",
    "program-table-size-too-small": "--program-table (its region's size) / --stride",
    "root-signature-not-set": "--graphics-root-signature / --compute-root-signature",
    "root-signature-mismatch": "--graphics-root-signature / --compute-root-signature",
    "argument-buffer-out-of-bounds": "--max-command-count (MaxCommandCount) / --argument-buffer-resource",
    "argument-buffer-wrong-state": "--argument-buffer-resource BASE,WIDTH,STATE",
    "count-buffer-out-of-bounds": "--count-buffer / --count-buffer-resource", "count-buffer-wrong-state":
        "--count-buffer-resource BASE,WIDTH,STATE",
    "dispatch-list-in-bundle": "--command-list-type", "command-list-type-invalid": "--command-list-type",
    "render-pass-compute-class": "--in-render-pass", "execute-indirect-command-list-type-invalid":
        "--command-list-type", "execute-indirect-bundle-count-buffer": "--command-list-type / --count-buffer",
    "execute-indirect-bundle-multiple-operations": "--command-list-type",
}


def _note_hints(note: RecordNote, args: argparse.Namespace) -> list[str]:
    """What to change for a record note: the flag or the description member that sets what it is about."""
    if note.severity == "error" and note.what.endswith(".command"):
        return ["the flags: --count (the count buffer) and --max (MaxCommandCount) set how many commands the call "
                "reads; the argument buffer's region is its readback file"]
    if note.stride is None or note.set_by is None:
        return []
    if note.set_by.startswith("program table"):
        return [f"the flag: --stride ({note.set_by}): give --stride {note.stride}"]
    if note.set_by.endswith("in the description"):
        return [f"DESC.json: set {note.set_by.removesuffix(' in the description')} to {note.stride} if the buffer "
                "was written so (that stride is the description's, not a flag's)"]
    return [f"the bytes: {note.set_by}"]


def _summary(capture: Capture, output: str, reports: list[asm.SlotReport], reads: CallReads,
             args: argparse.Namespace, notes: list[RecordNote]) -> list[str]:
    lines = [f"wrote {output}: {_call_text(capture)}"]
    rows = [(r.name, f"0x{r.base:x}", r.size, "inline" if r.source == "inline" else _relative(r.source))
            for r in capture.memory.regions]
    lines += tables.render(("region", "base", "bytes", "source"), rows, indent="  ")
    for rep in reports:
        t = rep.table
        by_first_slot = sorted(rep.programs.items(), key=lambda kv: int(kv[1][0]))
        named = ", ".join(f"{name} {_slots(s)}" for name, s in by_first_slot)
        named = named or "no program"
        lines.append(f"  program table {rep.binding} @0x{t.Table.StartAddress:x}: {t.Table.SizeInBytes} bytes, "
                     f"stride {t.Table.StrideInBytes}, {t.SlotCount} slots: {named}, {rep.empty} empty")
    findings = [f for rep in reports for f in rep.findings]
    lines.append(f"findings ({len(findings)})")
    lines += [f"  {f}" for f in findings]
    for rep in reports:
        if rep.lines_up_at is not None:
            lines.append(f"    the flag: --stride (program table {rep.binding}'s StrideInBytes) is "
                         f"{rep.table.Table.StrideInBytes}: give --stride {rep.lines_up_at[0]}")
    call = reads.trace.findings
    lines.append(f"call-time checks ({len(call)}; as d3d12wl exec makes them, before any record is executed)")
    for f in call:
        lines.append(f"  {f}")
        lines += [f"    {hint}" for hint in _flag_hints(f, reads, args)]
    warnings = [w for rep in reports for w in rep.warnings]
    lines.append(f"the records the call reads ({len(notes) + len(warnings)}; sizes and strides as d3d12wl decode "
                 "judges them; a warning is a heuristic, never an error)")
    for note in notes:
        lines.append(f"  {note}")
        lines += [f"    {hint}" for hint in _note_hints(note, args)]
    lines += [f"  warning: {w}" for w in warnings]
    return lines


def _summary_json(capture: Capture, output: str, reports: list[asm.SlotReport], reads: CallReads,
                  args: argparse.Namespace, notes: list[RecordNote]) -> dict[str, Any]:
    """What ``--json`` prints: the summary's facts as JSON (VAs as integers, as the capture format's readers take),
    and the pre-flight's call-time checks, each with the flag hints the text gives."""
    return {
        "output": output, "version": format_version(capture), "call": _call_text(capture),
        "regions": [{"name": r.name, "base": r.base, "size": r.size, "source": r.source}
                    for r in capture.memory.regions],
        "program_tables": [{"binding": rep.binding, "start_address": rep.table.Table.StartAddress,
                            "size": rep.table.Table.SizeInBytes, "stride": rep.table.Table.StrideInBytes,
                            "slot_count": rep.table.SlotCount,
                            "programs": {name: [int(s) for s in slots] for name, slots in rep.programs.items()},
                            "empty": rep.empty, "unmatched": [{"slot": s, "identifier": h} for s, h in rep.unmatched],
                            "lines_up_at": None if rep.lines_up_at is None else rep.lines_up_at[0]}
                           for rep in reports],
        "findings": [f for rep in reports for f in rep.findings],
        "call_time_checks": [{"kind": f.kind, "severity": f.severity, "rule": f.rule, "where": f.where(),
                              "message": f.message, "flags": _flag_hints(f, reads, args)}
                             for f in reads.trace.findings],
        "warnings": [w for rep in reports for w in rep.warnings],
        "records": [{"what": n.what, "severity": n.severity, "message": n.message, "stride": n.stride,
                     "set_by": n.set_by, "hints": _note_hints(n, args)} for n in notes]}


def _relative(path: str) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:  # another drive on Windows
        return path
    return path if rel.startswith("..") else rel


def _slots(slots: Sequence[int] | np.ndarray) -> str:
    shown = ",".join(str(s) for s in slots[:8])
    return f"slot{'s' if len(slots) > 1 else ''} {shown}{',...' if len(slots) > 8 else ''}"


def _call_text(capture: Capture) -> str:
    call = capture.call
    if isinstance(call, ExecuteIndirectCall):
        count = "NULL" if call.CountBuffer is None else f"0x{call.CountBuffer:x}"
        name = call.pCommandSignature.name if call.pCommandSignature else "NULL"
        return (f"ExecuteIndirect(pCommandSignature={name}, MaxCommandCount={call.MaxCommandCount}, "
                f"pArgumentBuffer=0x{call.ArgumentBuffer:x}, pCountBuffer={count})")
    lists = f", MaxGraphicsPrimaryLists={call.MaxGraphicsPrimaryLists}" if call.tier2 else ""
    return (f"{capture.call_name}(DispatchListInput=0x{call.DispatchListInput:x}{lists}, "
            f"MaxGraphicsProgramInputsPerPrimaryList={call.MaxGraphicsProgramInputsPerPrimaryList})")


def run(args: argparse.Namespace) -> int:
    args.regions = [*args.regions, *args.more_regions]
    outfiles.check_target(args.output)  # (an -o that can never be written is exit 2 before the regions are read)
    claims.check([("-o", args.output)], [("DESC.json", args.description), ("--state", args.state)])
    refuse_json_with_capture_on_stdout(args)
    stdin_regions = [r for r in args.regions if r.partition("=")[2].rpartition("@")[0].split(",")[0] == "-"]
    if len(stdin_regions) + (args.description == "-") + (args.state == "-") > 1:
        raise inputs.InputError("stdin can feed one of DESC.json, --state and a region, not several", where="-")
    objects = load_description(args, ignore_keys=CAPTURE_ONLY | {description.RECORD_STRUCTS})
    stdin = inputs.map_bytes(inputs.STDIN, what="region") if stdin_regions else None
    regions = [asm.parse_region(text, stdin=stdin) for text in args.regions]
    state = inputs.load_json(args.state, what="state file (--state)") if args.state else {}
    if not isinstance(state, dict):
        raise inputs.InputError('expected a JSON object, the capture\'s "state" member', where=inputs.label(args.state))
    spec = asm.AssembleSpec(
        regions=regions, call=_call(args), bindings=_bindings(args), signature=args.signature, tier=args.tier,
        dispatch_rays=args.dispatch_rays, state=state, root_arguments=args.root_arg,
        vertex_buffers=args.vertex_buffer, index_buffer=args.index_buffer,
        command_list_type=args.command_list_type, in_render_pass=args.in_render_pass,
        descriptor_heaps=args.descriptor_heap,
        root_signatures={k: v for k, v in (("graphics", args.graphics_root_signature),
                                           ("compute", args.compute_root_signature)) if v})
    capture = asm.assemble(objects, spec)
    # the pre-flight: the executor's call-time checks on what was assembled (the call's walk down to its records),
    # the slots its records select, and the sizes and strides of the records it reads
    reads = read_call(capture.memory, capture.device, capture.objects, capture.state, capture.call)
    reports = asm.program_table_slots(capture, selected=selected_slots(reads))
    notes = check_records(reads)
    if args.output == "-":
        write_capture_json(capture, sys.stdout)
        for line in _summary(capture, "<stdout>", reports, reads, args, notes):
            print(line, file=sys.stderr)
    else:
        try:
            target = save_capture(capture, Path(args.output))
        except OSError as exc:
            raise inputs.InputError(f"cannot write the capture: {exc.strerror or exc}",
                                    where=f"{args.output} (-o)") from None
        if args.json:
            print(json_text(_summary_json(capture, str(target), reports, reads, args, notes), indent=2))
        else:
            for line in _summary(capture, str(target), reports, reads, args, notes):
                print(line)
    errors = any(rep.findings for rep in reports) or reads.trace.errors or any(n.severity == "error" for n in notes)
    return 1 if errors else 0
