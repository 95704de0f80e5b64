"""What a ``DispatchList`` / ``DispatchList1`` call watches memory writes for (``GpuMemory.on_write``; only validation
hooks write memory during a call): the ranges that must stay unchanged while the call runs (rules 14 and 18,
:class:`ImmutableRanges`) and the bytes written while the current list runs, which later lists must not read
unsequenced (rule 13, :class:`RecordWrites`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.decode import enum_value
from d3d12wl.executor.list_run import BoundPrograms

__all__ = ["ImmutableRanges", "RecordWrites"]


@dataclass(frozen=True)
class _Range:
    start: int
    end: int
    kind: str
    rule: str
    what: str


class ImmutableRanges:
    """``GpuMemory.on_write`` for one call: a write into memory that must stay unchanged from SetProgram until every
    referencing chain completes is a finding (the write still happens).  Rule 14: every bound program table
    (``pBindings[i].ProgramTable.Table``) and the ``ValidationProgramTable``; rule 18: the shader tables of every
    bound raytracing binding.  Only validation hooks write memory during a call."""

    def __init__(self, ctx: ExecContext, bound: BoundPrograms, previous: Callable[[int, int], None] | None) -> None:
        self.ctx = ctx
        self.previous = previous
        pt_type = enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
        rt_type = enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING")
        ranges: dict[tuple[int, int, str], _Range] = {}

        def add(start: int, size: int, kind: str, rule: str, what: str) -> None:
            if start and size:
                ranges.setdefault((start, start + size, kind), _Range(start, start + size, kind, rule, what))

        for i, b in enumerate(bound.bindings):
            if b.Type == pt_type:
                kind = "program-table-mutated"
                add(b.ProgramTable.Table.StartAddress, b.ProgramTable.Table.SizeInBytes, kind, "rule 14",
                    f"the program table of binding {i}")
            elif b.Type == rt_type and b.pRaytracing is not None:
                kind = "shader-table-mutated"
                rt = b.pRaytracing
                for name in ("RayGenerationShaderRecord", "MissShaderTable", "HitGroupTable", "CallableShaderTable"):
                    table = getattr(rt, name)
                    add(table.StartAddress, table.SizeInBytes, kind, "rule 18", f"binding {i}'s {name}")
        program = ctx.state.program
        if bound.array and program is not None:
            vpt = program.WorkList1.ValidationProgramTable.Table
            add(vpt.StartAddress, vpt.SizeInBytes, "program-table-mutated", "rule 14", "the ValidationProgramTable")
        self.ranges = list(ranges.values())

    def __call__(self, va: int, size: int) -> None:
        for r in self.ranges:
            if va < r.end and r.start < va + size:
                subject = ("bound program tables are" if r.kind == "program-table-mutated"
                           else "bound raytracing state (the RTPSO and its shader tables) is")
                self.ctx.finding(r.kind, r.rule,
                                 f"a write of {size} bytes at 0x{va:x} lands in {r.what} [0x{r.start:x}, "
                                 f"0x{r.end:x}): {subject} immutable from SetProgram until every referencing "
                                 "DispatchList / DispatchList1 chain has completed (the write happens)",
                                 loc=Loc(list_index=self.ctx.list_index), va=max(va, r.start), key=("mutated", r.start))
        if self.previous is not None:
            self.previous(va, size)


class RecordWrites:
    """``GpuMemory.on_write``: the byte ranges written while the current list runs (``ExecContext.written``)."""

    def __init__(self, ctx: ExecContext, previous: Callable[[int, int], None] | None) -> None:
        self.ctx = ctx
        self.previous = previous

    def __call__(self, va: int, size: int) -> None:
        self.ctx.written.append((va, va + size))
        if self.previous is not None:
            self.previous(va, size)
