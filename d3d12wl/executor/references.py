"""The references by value one call reads: every GPU VA, GPU descriptor handle and program identifier a replay
on another run, driver or GPU must rewrite, as one table of columns (design.md, "References by value: what a replay
tool must rewrite").

The table follows the call: the executor walks it (:func:`walk_references` runs the columnar engine with a consumer
after each chunk), and the records it reads give the rows: each list's
``D3D12_DISPATCH_LIST_INPUT(1)`` (``ProgramInputs.StartAddress`` when records are read, ``NextDispatchList`` when the
continuation reads it), every primary and secondary record, every program-table slot a record selects (its
identifier and its local-root tail), every validation-program-table slot a validator would be dispatched from,
every ExecuteIndirect command.  Which bytes of a record are references is the layout calculator's
(:func:`d3d12wl.records.references.record_references`); the capture's own members that hold references (the call's
buffers, SetProgram's bindings, root arguments, IA views, descriptor heaps, the programs' identifiers:
:func:`d3d12wl.capture.references.state_references`) come first, with no VA.  Then, list by list, chunk by chunk of
the walk: the list's header, the program-table slots the chunk's records select first, the records' own references
in record order, their secondary records' in record order (a record the reference walk made brings its slot and
secondary records with it); each record's identifiers first, then its fields in layout order; the continuation and
the validation slots after the list's records.  A field read more than once (a
broadcast stride, two records sharing a secondary list, a slot many records select) is one row; a field read as two
different references is a ``reference-overlap`` finding of the table.

Columns (:data:`COLUMNS`), one numpy array each and no Python object per row; code columns index the table's
``names`` (-1: none):

* ``region`` (code), ``offset``, ``va``: where the field is (``region`` -1 for a member of the capture itself);
* ``kind`` (code into :data:`~d3d12wl.records.references.REFERENCE_KINDS`), ``value`` (the VA or handle; 0 for an
  identifier, whose 32 bytes are ``identifier``, a code into hex strings);
* ``record_id``, ``field`` (codes): the record by its layout's name (:func:`~d3d12wl.records.layout.record_id`:
  ``PCS.primary``, ``Opaque.program_table``, ``EI.command``; the struct for a list header,
  ``D3D12_DISPATCH_LIST_INPUT1``; ``validation_program_table``; ``call``, ``state``, ``programs`` for the capture's
  own members) and the field by the layout's field name and member path (``arg1_VertexBuffer.BufferLocation``; the
  member path below ``call`` / ``state`` / ``programs`` in the capture file);
* ``list_index``, ``primary_index``, ``secondary_index``, ``slot_index``, ``command_index`` (-1: none): which record;
* ``heap`` (code into the shader-visible heap types): the heap a descriptor handle must address;
* ``target`` (code), ``target_offset``: what the value falls in, the memory region holding a VA, the bound heap
  (capture version 4) holding a handle, the program an identifier identifies; ``target_offset`` is the value's
  offset in it.

Two engines give this table (:data:`ENGINES`): the walk described above (the oracle), and, wherever they decide the
call exactly as the walk would, the columns of :mod:`d3d12wl.executor.references_fast` (the records' reference
fields read in runs, no trace of executions); ``walk_references`` takes the columns first and the walk for every
call they cannot decide.

Memory: the walk holds one chunk of records and, per region, the offsets listed so far (9 bytes a reference), so
:func:`walk_references` streams a capture of any size; :func:`patch_list` keeps the whole table.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from d3d12wl.capture.file import Capture
from d3d12wl.executor.command_walk import walk_commands_columnar
from d3d12wl.executor.dispatch_list import run_dispatch_list
from d3d12wl.executor.execute_indirect import CommandPlan, run_execute_indirect
from d3d12wl.executor.list_walk import walk_primary_records_columnar
from d3d12wl.executor.references_table import (  # noqa: F401 - (the table's names, re-exported)
    COLUMNS,
    NAME_COLUMNS,
    TABLE_FINDING_KINDS,
    Collector,
    ReferenceTable,
    ReferenceWalk,
    RowSink,
    concatenate,
)
from d3d12wl.executor.trace import Limits, Trace
from d3d12wl.model.state import DispatchListCall

__all__ = ["COLUMNS", "ENGINES", "NAME_COLUMNS", "TABLE_FINDING_KINDS", "ReferenceTable", "ReferenceWalk", "patch_list",
           "walk_references"]


#: how :func:`walk_references` reads the records: ``"auto"`` the columns where they decide the call, else the walk;
#: ``"walk"`` always the walk (the oracle the differential test holds the columns to)
ENGINES = ("auto", "walk")


def walk_references(capture: Capture, sink: RowSink, *, limits: Limits | None = None,
                    targets: bool = True, engine: str = "auto") -> ReferenceWalk:
    """Execute ``capture``'s call and hand every reference it reads to ``sink``, a chunk of rows at a time (each a
    :class:`ReferenceTable` whose ``names`` grow as the walk goes on; codes, once given, stay).  The capture's own
    members come first.  The trace returned has its findings; its executions and records were released as they
    were streamed.  ``targets=False``: the rows' ``target`` is left out (-1), for a consumer that does not read
    it (``remap``).

    ``engine="auto"`` reads the call's records (a DispatchList's lists, an ExecuteIndirect's commands) in columns
    without the executor's trace of executions (:mod:`d3d12wl.executor.references_fast`, the same table row for
    row) and takes the walk for every call the columns cannot decide (a record or command the walk reports or
    hands to the reference walk, a limit, raytracing, W58 handles in records); ``"walk"`` always takes the walk.  ``ReferenceWalk.engine`` says which
    ran and ``ReferenceWalk.undecided`` why the columns did not."""
    if engine not in ENGINES:
        raise ValueError(f"engine {engine!r}: one of {', '.join(ENGINES)}")
    undecided = None
    if engine == "auto":
        from d3d12wl.executor.references_fast import Undecided, fast_references

        collector = Collector(capture, sink, targets)
        try:
            trace = fast_references(capture, collector, limits)
        except Undecided as why:
            undecided = str(why)
        else:
            return _walked(collector, trace, "columns", None)
    collector = Collector(capture, sink, targets)
    collector.state_rows()
    call = capture.call
    if isinstance(call, DispatchListCall):
        trace = run_dispatch_list(capture.memory, capture.device, capture.objects, capture.state, call, limits,
                                  walker=lambda run: walk_primary_records_columnar(
                                      run, partial(collector.take_list, run)))
    else:
        holder: list[CommandPlan] = []

        def walker(plan: CommandPlan) -> None:
            holder.append(plan)
            walk_commands_columnar(plan, partial(collector.take_commands, plan))

        trace = run_execute_indirect(capture.memory, capture.device, capture.objects, capture.state, call, limits,
                                     walker=walker)
        for plan in holder:
            collector.take_commands(plan)
    return _walked(collector, trace, "walk", undecided)


def _walked(collector: Collector, trace: Trace, engine: str, undecided: str | None) -> ReferenceWalk:
    collector.finish(trace)
    table = collector.table_findings()
    return ReferenceWalk(trace, collector.names, collector.listed, collector.region_names, collector.regions.bases,
                         collector.rows, table, max(0, collector.listed.overlap_count - len(table)), engine,
                         undecided)


def patch_list(capture: Capture, *, limits: Limits | None = None, engine: str = "auto") -> ReferenceTable:
    """The whole table of the references ``capture``'s call reads (:func:`walk_references`, kept), with the call's
    findings and the table's."""
    parts: list[dict[str, np.ndarray]] = []
    walk = walk_references(capture, lambda t: parts.append(t.columns), limits=limits, engine=engine)
    return ReferenceTable(concatenate(parts), walk.names, [*walk.trace.findings, *walk.findings],
                          walk.trace.findings_suppressed + walk.findings_suppressed)

