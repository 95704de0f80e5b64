"""Per-call executor state: memory access that turns faults into findings, limits, and the trace being built."""

from __future__ import annotations

import bisect
from collections.abc import Callable
from typing import Any, NamedTuple

from d3d12wl._version import WORK_LISTS_SPEC
from d3d12wl.capture.memory import VA_LIMIT, GpuMemory
from d3d12wl.errors import MemoryAccessError
from d3d12wl.executor.trace import Execution, Finding, Limits, Readings, Trace
from d3d12wl.model.objects import ObjectSet, Program
from d3d12wl.model.state import CommandListState, DeviceCaps
from d3d12wl.records.layout import LayoutCache


class StopCall(Exception):
    """Raised to end the whole call (a limit was reached); ``reason`` becomes ``Trace.stopped_reason``."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


class Loc(NamedTuple):
    """Where in the call a finding or a read is: list, primary record, secondary record, EI command."""

    list_index: int | None = None
    primary_index: int | None = None
    secondary_index: int | None = None
    command_index: int | None = None

    def but(self, **kw: int | None) -> Loc:
        return self._replace(**kw)


class ExecContext:
    """What every part of one call's execution shares."""

    def __init__(self, memory: GpuMemory, device: DeviceCaps, objects: ObjectSet, state: CommandListState,
                 limits: Limits | None, trace: Trace, readings: Readings | None = None) -> None:
        self.memory = memory
        #: the readings of the specs' two-way sentences this call is executed under (docs/spec-questions.md)
        self.readings = readings or Readings()
        self.device = device
        self.objects = objects
        self.state = state
        # scaled to the bytes the capture supplies: a zeros region claims any number of records for free
        self.limits = (limits or Limits()).resolved(memory.supplied_bytes)
        self.trace = trace
        trace.limits = self.limits
        self.layouts = LayoutCache()
        #: the list being processed (DispatchList / DispatchList1), for findings made outside the list's own code
        #: (a validator's write into memory the call must not change)
        self.list_index: int | None = None
        #: the byte ranges (start, end) written while the current list runs (only validators write in the model)
        self.written: list[tuple[int, int]] = []
        #: the bytes written while an earlier list ran, when no list since (that one included) set
        #: _END_WITH_WAIT_FOR_COMPLETION: reading them is Work Lists v0.851 rule 13 (:meth:`read`); sorted,
        #: non-overlapping (start, end, the first list that wrote into the range), kept by :meth:`sequence_writes`
        self.unsequenced: list[tuple[int, int, int]] = []
        self.records_walked = 0
        self.records_repeated = 0
        self._finding_keys: set[Any] = set()
        self._programs: dict[bytes, Program] = {}
        #: program-table slot VA -> (bytes, program, RecordData, ProgramTableSlotTrace) of its last decode
        self.slot_cache: dict[int, tuple[bytes, Any, Any, Any]] = {}
        self._memo: dict[tuple[int, str], tuple[Any, Any]] = {}
        #: per (executable class, PCS name; None for ExecuteIndirect): the call's first execution that ran with it
        #: and how many did (what the once-per-call checks on resolved bindings read: resolve.check_unset_root_parameters)
        self.executed: dict[tuple[str, str | None], list[Any]] = {}
        for program in objects.programs.values():
            self._programs.setdefault(bytes(program.Identifier), program)

    def memo(self, obj: Any, name: str, compute: Any) -> Any:
        """``compute(obj)``, computed once per call per object (objects are mutable, so keyed by identity)."""
        key = (id(obj), name)
        hit = self._memo.get(key)
        if hit is None or hit[0] is not obj:
            hit = (obj, compute(obj))
            self._memo[key] = hit
        return hit[1]

    # -- findings ----------------------------------------------------------------------------------------------

    def finding(self, kind: str, rule: str, message: str, *, loc: Loc = Loc(), va: int | None = None,
                severity: str = "error", key: Any = None) -> None:
        """Record a finding.  With ``key``, only the first finding with that key is recorded (per call)."""
        if key is not None:
            full_key = (kind, key)
            if full_key in self._finding_keys:
                return
            self._finding_keys.add(full_key)
        if len(self.trace.findings) >= self.limits.max_findings:
            self.trace.findings_suppressed += 1
            return
        self.trace.findings.append(Finding(kind, rule, message, severity, loc.list_index, loc.primary_index,
                                           loc.secondary_index, loc.command_index, va))

    def stop(self, limit: str, message: str, *, loc: Loc = Loc(), va: int | None = None) -> None:
        """A limit was reached: record a ``limit-exceeded`` finding and end the call."""
        value = getattr(self.limits, limit)
        text = (f"{message}: limit {limit} = {value} reached; raise it with Limits({limit}=N) or "
                f"`{Limits.flag(limit)} N` on `d3d12wl exec` / `d3d12wl dump`")
        # a limit finding is never suppressed by max_findings
        self.trace.findings.append(Finding("limit-exceeded", "executor limits", text, "error", loc.list_index,
                                           loc.primary_index, loc.secondary_index, loc.command_index, va))
        raise StopCall(text)

    # -- bounded work ------------------------------------------------------------------------------------------

    def count_record(self, loc: Loc, va: int) -> None:
        if self.records_walked >= self.limits.max_records:
            self.stop("max_records", "too many records walked in one call", loc=loc, va=va)
        self.records_walked += 1

    def count_repeated(self, loc: Loc, va: int) -> None:
        """A record read from the bytes of the record before it (a broadcast stride of 0)."""
        if self.records_repeated >= self.limits.max_repeated_records:
            self.stop("max_repeated_records", "too many records read again from the same bytes (a broadcast "
                      "stride of 0) in one call", loc=loc, va=va)
        self.records_repeated += 1

    def add_execution(self, execution: Execution, loc: Loc) -> None:
        if len(self.trace.executions) >= self.limits.max_executions:
            self.stop("max_executions", "too many executions in one call", loc=loc)
        self.trace.executions.append(execution)
        key = (execution.executable_class, execution.pcs)
        hit = self.executed.get(key)
        if hit is None:
            self.executed[key] = [execution, 1]
        else:
            hit[1] += 1

    def note_executions(self, key: tuple[str, str | None], count: int, first: Callable[[], Execution]) -> None:
        """``count`` executions of ``key`` (executable class, PCS name) added as columns (the columnar engine's
        batches); ``first()`` makes the first of them, called only when ``key`` has not run before in this call."""
        if count <= 0:
            return
        hit = self.executed.get(key)
        if hit is None:
            self.executed[key] = [first(), count]
        else:
            hit[1] += count

    def next_execution_index(self) -> int:
        return len(self.trace.executions)

    # -- memory ------------------------------------------------------------------------------------------------

    def aligned(self, va: int, align: int, what: str, rule: str, loc: Loc) -> bool:
        if va % align:
            self.finding("misaligned-va", rule, f"{what} at 0x{va:x} is not {align}-byte aligned", loc=loc, va=va)
            return False
        return True

    def record_address(self, base: int, index: int, stride: int, size: int, what: str, rule: str,
                       loc: Loc) -> int | None:
        """``base + index * stride``, or None (with a ``va-wrap`` finding) if the record leaves the VA space."""
        va = base + index * stride
        if va + max(size, 1) > VA_LIMIT:
            self.finding("va-wrap", rule, f"{what} {index} at 0x{base:x} + {index} * {stride} (+{size} bytes) "
                         "leaves the 64-bit VA space", loc=loc, va=va % VA_LIMIT)
            return None
        return va

    def read(self, va: int, size: int, what: str, rule: str, loc: Loc) -> bytes | None:
        """``size`` bytes at ``va``, or None with an ``unmapped-va`` / ``va-wrap`` finding."""
        if va + size > VA_LIMIT:
            self.finding("va-wrap", rule, f"{what}: {size} bytes at 0x{va:x} leave the 64-bit VA space",
                         loc=loc, va=va)
            return None
        if self.unsequenced:
            self._check_unsequenced(va, size, what, loc)
        try:
            return self.memory.read(va, size, what=what)
        except MemoryAccessError as exc:
            # the memory error's message already starts with ``what``
            self.finding("unmapped-va", rule, exc.message, loc=loc, va=exc.va)
            return None

    def sequence_writes(self, list_index: int, waits: bool) -> None:
        """The end of list ``list_index``: with the wait (``waits``) every write so far is sequenced against what
        follows; without it the ranges it wrote (:attr:`written`) join :attr:`unsequenced`.  :attr:`written` starts
        afresh."""
        written, self.written = self.written, []
        if waits:
            self.unsequenced = []
            return
        for start, end in written:
            lo = bisect.bisect_left(self.unsequenced, start, key=lambda r: r[1])  # the first range ending after start
            hi = bisect.bisect_right(self.unsequenced, end, key=lambda r: r[0])  # past the last starting by end
            merged = self.unsequenced[lo:hi]
            writer = min([list_index, *(r[2] for r in merged)])
            start = min([start, *(r[0] for r in merged)])
            end = max([end, *(r[1] for r in merged)])
            self.unsequenced[lo:hi] = [(start, end, writer)]

    def _check_unsequenced(self, va: int, size: int, what: str, loc: Loc) -> None:
        """Work Lists v0.851 rule 13: "A list whose shaders write any part of the next D3D12_DISPATCH_LIST_INPUT1, or
        data the next list consumes, must set _END_WITH_WAIT_FOR_COMPLETION, whatever its class.  Without it the
        implementation may read the pointer and launch the next list before the shader that wrote it has retired."
        Once per (writing list, reading list)."""
        first = bisect.bisect_right(self.unsequenced, va, key=lambda r: r[1])  # the first range ending after va
        for start, end, writer in self.unsequenced[first:first + 1]:
            if va < end and start < va + size:
                at = max(va, start)
                self.finding("continuation-authored-without-wait", "rule 13",
                             f"{what} at 0x{va:x} reads bytes written while list {writer} ran (at 0x{at:x}), and no "
                             f"list from list {writer} on sets _END_WITH_WAIT_FOR_COMPLETION: the implementation may "
                             "have read them and launched this list before that write retired; a list whose shaders "
                             "write the next list's input or data it consumes must set the wait, whatever its class "
                             f"({WORK_LISTS_SPEC}; the trace shows the bytes as written)", loc=loc, va=at,
                             key=(writer, loc.list_index))

    def program_by_identifier(self, identifier: bytes) -> Program | None:
        return self._programs.get(identifier)
