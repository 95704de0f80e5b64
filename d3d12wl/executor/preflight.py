"""What ``d3d12wl capture``'s pre-flight says of the records a call reads, beyond the executor's call-time checks:
the size and stride plausibility ``d3d12wl decode`` has, run on the rows the call itself reads (issue 38 item 5).

For every record class the call reads (:func:`~d3d12wl.executor.reads.reached`; the dispatch inputs are the
call-time checks' already), the rows where the call reads them (:func:`~d3d12wl.executor.reads.call_rows`):

* rows the call reads that are not mapped whole are an **error**: the executor stops there (an ExecuteIndirect
  count above what the argument buffer holds, a truncated readback, a secondary list past its region).  For
  ExecuteIndirect the note says how many commands the argument buffer's bytes hold at the stride.
* rows a stride makes implausible (:mod:`d3d12wl.records.plausible`: a root CBV not a multiple of 256, a
  ReservedPadding that is not 0, an enum value of no member...) are a **warning**: a heuristic, which a legal
  buffer can trip.  Where another stride makes every record fit better, over the run of records the first
  implausible one belongs to (the argument buffer, a list's primary records, a secondary list, a program table),
  with the call's count of them whole in the bytes, it is named, with what sets the stride the call used.  A program
  table's slots are left to ``capture``'s slot report (:func:`d3d12wl.capture.assemble.program_table_slots`), which
  matches every slot's identifier and knows which slots the call's records select.

Nothing here executes a record: it reads the bytes the call would, in columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from d3d12wl.errors import D3D12WLError
from d3d12wl.executor.list_run import INPUT, INPUT1
from d3d12wl.executor.reads import CallReads, Rows, call_rows, reached
from d3d12wl.records import decode
from d3d12wl.records import layout as L
from d3d12wl.records.plausible import implausible, suggest_stride

__all__ = ["RecordNote", "check_records"]


@dataclass(frozen=True)
class RecordNote:
    """One thing the pre-flight says of a record class ``what``: ``severity`` ``error`` (the executor finds it so)
    or ``warning`` (a heuristic); ``stride`` the stride that fits better, where one does, and ``set_by`` what sets
    the stride the call reads at (the member to change)."""

    what: str
    severity: str
    message: str
    stride: int | None = None
    set_by: str | None = None

    def __str__(self) -> str:
        return f"{self.severity}: {self.what}: {self.message}"


def check_records(reads: CallReads) -> list[RecordNote]:
    """Every :class:`RecordNote` of the record classes ``reads`` reaches (see the module docstring)."""
    out: list[RecordNote] = []
    for what in reached(reads):
        if what in (INPUT, INPUT1):
            continue
        try:
            rows = call_rows(reads, what)
            target = decode.target(reads.objects, what)
        except D3D12WLError:  # (a class the call does not read after all: the call-time checks say why)
            continue
        out += _size(reads, what, rows)
        rec = target.record_layout
        if rec is None or rec.record != L.PROGRAM_TABLE:  # (a table's slots: capture's slot report, which knows
            # which slots the call's records select and at which stride the identifiers line up)
            out += _plausibility(reads, what, rows, target)
    return out


def _size(reads: CallReads, what: str, rows: Rows) -> list[RecordNote]:
    cmd = reads.commands
    region = reads.memory.region_at(cmd.start) if cmd is not None and rows.unmapped else None
    if cmd is None or region is None or not cmd.stride:
        return [RecordNote(what, "error", message) for message in rows.unmapped]
    rest = region.end - cmd.start
    holds = (rest - cmd.layout.size) // cmd.stride + 1 if rest >= cmd.layout.size else 0
    return [RecordNote(what, "error", f"the call reads {cmd.count} commands ({_count_from(reads)}) at ByteStride "
                       f"{cmd.stride} from 0x{cmd.start:x}, but region {region.name!r} holds {holds} whole commands "
                       f"from there: {'; '.join(rows.unmapped)}.  The argument buffer's readback is truncated, or the "
                       "count or the stride is not the one it was written with")]


def _count_from(reads: CallReads) -> str:
    """Where the command count comes from, as the call gives it (IndirectDrawing.md "Drawing": min(the count
    buffer's UINT32, MaxCommandCount) with a count buffer, MaxCommandCount without)."""
    args = reads.trace.call_args
    if "count_buffer_value" in args:
        return f"the count buffer's {args['count_buffer_value']}, MaxCommandCount {args['MaxCommandCount']}"
    return f"MaxCommandCount {args['MaxCommandCount']}, no count buffer"


def _plausibility(reads: CallReads, what: str, rows: Rows, target: decode.Target) -> list[RecordNote]:
    n = len(rows)
    if not n:
        return []
    data = np.ascontiguousarray(rows.data).reshape(-1)
    found = implausible(target, data, offset=0, stride=rows.size, count=n)
    if not found:
        return []
    notes = []
    for f in found:
        j = f.first
        more = f"; {f.count - 1} more likewise" if f.count > 1 else ""
        notes.append(RecordNote(what, "warning", f"{_row(rows, j)} (VA 0x{int(rows.va[j]):x}), read at "
                                f"{rows.reading().removeprefix('as the call reads them: ')}: {f.why(j)}{more}"))
    first = min(f.first for f in found)
    notes.append(_suggestion(reads, what, rows, target, first))
    return notes


def _row(rows: Rows, j: int) -> str:
    return ", ".join(f"{name} {int(col[j])}" for name, col in rows.columns.items()) or f"row {j}"


def _suggestion(reads: CallReads, what: str, rows: Rows, target: decode.Target, j: int) -> RecordNote:
    """The stride at which every record of the run that row ``j`` belongs to fits better (:func:`suggest_stride`),
    with the run's count the call reads whole in the bytes; or a note that there is none."""
    rec = target.record_layout
    run = _run(reads, what, rows, j, rec.record if rec is not None else None)
    if run is None:
        return RecordNote(what, "warning", "no other stride is tried: the call reads these records at stride 0 "
                                           "(the broadcast form) or not at one stride")
    start, stride, need, set_by = run
    region = reads.memory.region_at(start)
    if region is None or not stride:
        return RecordNote(what, "warning", f"no other stride is tried (the stride the call reads at comes from "
                                           f"{set_by})", set_by=set_by)
    # (the rest of the region, a view: the search reads a few thousand rows per stride, and the bytes of every
    # row only at the stride it finds)
    data = np.frombuffer(reads.memory.view(start, region.end - start), dtype=np.uint8)
    better = suggest_stride(target, data, offset=0, stride=stride, need=need)
    if better is None:
        return RecordNote(what, "warning", f"no other stride makes every record of the run at 0x{start:x} fit better "
                                           f"with its {need} records in the bytes (the stride {stride} comes from "
                                           f"{set_by})", set_by=set_by)
    at, fits = better
    return RecordNote(what, "warning", f"every record of the run at 0x{start:x} is plausible at stride {at}, where the "
                                      f"bytes hold {fits} (the call reads {need}): they look written {at} bytes "
                                      f"apart, not {stride}; the stride {stride} comes from {set_by}",
                      stride=at, set_by=set_by)


def _run(reads: CallReads, what: str, rows: Rows, j: int, kind: str | None
         ) -> tuple[int, int, int, str] | None:
    """(start VA, stride, records the call reads in it, what sets the stride) of row ``j``'s run."""
    if kind == L.COMMAND:
        cmd = reads.commands
        assert cmd is not None
        return cmd.start, cmd.stride, cmd.count, f"command_signatures.{cmd.signature.name}.ByteStride in the description"
    if kind == L.PRIMARY:
        lr = next(lr for lr in reads.lists if lr.index == int(rows.columns["list"][j]))
        assert lr.primary is not None
        n, start, stride = lr.primary
        return start, stride, n, f"list {lr.index}'s ProgramInputs.StrideInBytes in its dispatch input at 0x{lr.va:x}"
    if kind == L.SECONDARY:
        owner = what.rpartition(".")[0]
        stride = reads.objects.program_command_signatures[owner].SecondaryRecordByteStride
        same = (rows.columns["list"] == rows.columns["list"][j]) & (rows.columns["primary"] == rows.columns["primary"][j])
        return (int(rows.va[j]) - int(rows.columns["secondary"][j]) * stride, stride, int(np.count_nonzero(same)),
                f"program_command_signatures.{owner}.SecondaryRecordByteStride in the description")
    return None
