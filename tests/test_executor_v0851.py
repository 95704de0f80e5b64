"""Work Lists v0.851 (issue 43): every normative change from the v0.85 draft, in the spec's words, on both engines.

The change log's five points and the sentences behind them: "In-order no longer advances the chain" (Next-list
pointer semantics, rule 13); "The arriving list's flags decide what happens at a boundary" (D3D12_DISPATCH_LIST_FLAGS,
Ordering across a list boundary; Execution Order and State Scoping); "_ALLOW_OUT_OF_ORDER_GRAPHICS also decides whether
a boundary may serialize"; "The flags are the two halves of a barrier" (D3D12_DISPATCH_LIST_FLAGS1); the Validator
invocation order no longer limits the overlap of continuation boundaries to classes that allow out-of-order
completion.  Each test runs the call on both engines and requires the same trace (``to_dict``) from both."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from executor_builder import CONT, flags
from test_executor_chains import F1, LIST_VA, Chain, ZeroingHooks

from d3d12wl._version import WORK_LISTS_SPEC
from d3d12wl.executor import ENGINES, ListRun, Readings, run
from d3d12wl.executor.decode import offsetof
from d3d12wl.model.state import DispatchListCall

WAIT = flags(F1, "END_WITH_WAIT_FOR_COMPLETION")
FLUSH = flags(F1, "END_WITH_MEMORY_FLUSH")
OOO = flags(F1, "ALLOW_OUT_OF_ORDER_GRAPHICS")
NEXT = offsetof("D3D12_DISPATCH_LIST_INPUT1", "NextDispatchList")


def both(build: Callable[[], Chain], max_graphics: int = 16, hooks=None, readings: Readings | None = None):
    """The call of the chain ``build()`` makes, on every engine (a chain of its own each: validators write its
    memory): the traces must be equal; the columnar one is returned."""
    call = DispatchListCall(LIST_VA, 16, max_graphics, tier2=True)
    traces = {}
    for engine in ENGINES:
        if hooks is not None:
            hooks.calls.clear()
        s = build().s
        traces[engine] = run(s.memory, s.device, s.objects, s.state, call, hooks=hooks, engine=engine,
                             readings=readings)
    assert traces["columnar"].to_dict() == traces["reference"].to_dict()
    return traces["columnar"]


def test_the_version_is_the_public_one():
    assert WORK_LISTS_SPEC == "Work Lists v0.851"


# ---- In-order no longer advances the chain --------------------------------------------------------------------


@pytest.mark.parametrize("kind, list_flags", [("graphics", 0), ("graphics", OOO), ("compute", 0), ("mesh", 0)],
                         ids=["in-order graphics", "out-of-order graphics", "compute", "in-order mesh"])
def test_without_the_wait_next_dispatch_list_may_be_read_at_launch_whatever_the_class(kind, list_flags):
    """Next-list pointer semantics: "The timing of the NextDispatchList read depends only on whether this list sets
    _END_WITH_WAIT_FOR_COMPLETION. Whether a graphics-class list retires its records in order, which is what
    _ALLOW_OUT_OF_ORDER_GRAPHICS controls, does not affect it."  "With only _ALLOW_NEXT_DISPATCH_LIST_CONTINUATION
    set, the implementation may read NextDispatchList at any time, including at launch" (v0.85 read an in-order
    graphics list's pointer after its last record retired: withdrawn)."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, kind, n=2, flags_=CONT | list_flags)
        c.add_list(1, "compute", next_=0)
        return c

    trace = both(build)
    cont = trace.lists[0].continuation
    assert cont["followed"] and not cont["wait_for_completion"]
    assert cont["read_point"].startswith("any time, including at launch")
    assert "must not author" in cont["read_point"] and f"{WORK_LISTS_SPEC} rule 13" in cont["read_point"]
    assert "last record" not in cont["read_point"] and "retire" not in cont["read_point"]


@pytest.mark.parametrize("kind", ["graphics", "compute"])
def test_with_the_wait_the_read_is_deferred_to_the_retire_point(kind):
    """_END_WITH_WAIT_FOR_COMPLETION: "Within a continuation chain, this defers the read of NextDispatchList to the
    retire point, and with it the whole of the next D3D12_DISPATCH_LIST_INPUT1 it points at."  "A list sets it when
    its shaders write the next list, or produce data the next list consumes, whatever its class."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, kind, flags_=CONT | WAIT)
        c.add_list(1, "compute", next_=0)
        return c

    cont = both(build).lists[0].continuation
    assert cont["wait_for_completion"] and cont["read_point"].startswith("at this list's retire point")
    assert "may author the next list" in cont["read_point"]


# ---- Rule 13: a list whose shaders author the next list must set the wait ---------------------------------------


class AuthoringHooks(ZeroingHooks):
    """A validator of list 0 that writes into what list 1 reads: list 1's NumProgramInputs (one record instead of
    two), at the primary-list step.  Validators are the only shaders the model runs."""

    def __init__(self, target: int) -> None:
        super().__init__()
        self.target = target

    def primary_list(self, run: ListRun) -> bool:
        self.calls.append(("primary_list", run.index))
        if run.index == 0:
            run.ctx.memory.write_u32(self.target, 1)
        return False


@pytest.mark.parametrize("kind, list_flags", [("graphics", 0), ("graphics", FLUSH), ("compute", 0)],
                         ids=["in-order graphics", "flush alone", "compute"])
def test_a_list_that_writes_the_next_lists_input_without_the_wait_is_rule_13(kind, list_flags):
    """Rule 13: "A list whose shaders write any part of the next D3D12_DISPATCH_LIST_INPUT1, or data the next list
    consumes, must set _END_WITH_WAIT_FOR_COMPLETION, whatever its class. Without it the implementation may read the
    pointer and launch the next list before the shader that wrote it has retired."  An in-order graphics list is no
    exception ("its records retire in order, but that says nothing about when the implementation reads the
    pointer"), and _END_WITH_MEMORY_FLUSH is "Visibility only: it does not hold the next list back"."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, kind, flags_=CONT | list_flags)
        c.add_list(1, "compute", n=2, next_=0)
        c.bind_validation_table()
        return c

    trace = both(build, hooks=AuthoringHooks(LIST_VA + 0x100))
    found = trace.findings_of("continuation-authored-without-wait")
    assert [(f.rule, f.list_index, f.va) for f in found] == [("rule 13", 1, LIST_VA + 0x100)]
    assert "list 0" in found[0].message and WORK_LISTS_SPEC in found[0].message
    assert trace.lists[1].header["NumProgramInputs"] == 1  # the trace shows the bytes as written


def test_the_wait_on_the_writing_list_sequences_its_writes():
    """The same validator write, with _END_WITH_WAIT_FOR_COMPLETION on list 0: "The implementation defers reading
    NextDispatchList until preceding work has fully retired, so shaders inside the current list are free to write
    into the memory holding the next D3D12_DISPATCH_LIST_INPUT1"."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, "graphics", flags_=CONT | WAIT)
        c.add_list(1, "compute", n=2, next_=0)
        c.bind_validation_table()
        return c

    trace = both(build, hooks=AuthoringHooks(LIST_VA + 0x100))
    assert not trace.findings and len(trace.executions) == 2


def test_unsequenced_writes_reach_every_later_list_until_a_list_sets_the_wait():
    """"Such a chain runs with no barrier between its lists, and the implementation launches through it as greedily
    as it has room for": a write made while list 0 ran, read by list 2, after a list 1 without the wait, is still
    unsequenced; a wait on list 1 sequences it ("does not begin until preceding work has fully retired")."""
    for middle, expected in ((CONT, [2]), (CONT | WAIT, [])):
        def build() -> Chain:
            c = Chain()
            c.add_list(0, "compute")
            c.add_list(1, "compute", flags_=middle)
            c.add_list(2, "compute", n=2, next_=0)
            c.bind_validation_table()
            return c

        trace = both(build, hooks=AuthoringHooks(LIST_VA + 0x200))
        assert [f.list_index for f in trace.findings_of("continuation-authored-without-wait")] == expected


def test_a_list_reading_what_it_wrote_itself_is_no_finding():
    """The neutralization patterns write the list's own header: "The implementation re-reads the header before
    record processing" (the same list: sequenced by the validator's barrier, steps 2, 5, 8)."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, "compute", n=2)
        c.add_list(1, "compute", next_=0)
        c.bind_validation_table()
        return c

    trace = both(build, hooks=ZeroingHooks())
    assert not trace.findings and [e.list_index for e in trace.executions] == [1]


# ---- Q15: a validator that writes its own list's NextDispatchList -----------------------------------------------


class RedirectingHooks(ZeroingHooks):
    """A signature-selection validator of list 0 that writes list 0's own NextDispatchList to list 2."""

    def signature_selection(self, run: ListRun) -> bool:
        self.calls.append(("signature_selection", run.index))
        if run.index == 0:
            run.ctx.memory.write(run.va + NEXT, (LIST_VA + 0x200).to_bytes(8, "little"))
            return True
        return False

    def primary_list(self, run: ListRun) -> bool:
        return False


@pytest.mark.parametrize("list_flags, reading, followed", [
    (CONT, "retire", 2), (CONT, "launch", 1), (CONT | WAIT, "retire", 2), (CONT | WAIT, "launch", 2)],
    ids=["no wait, retire", "no wait, launch", "wait, retire", "wait, launch"])
def test_a_validator_writing_next_dispatch_list_follows_the_reading(list_flags, reading, followed):
    """Validator defensive neutralization patterns: "Writing other header fields (e.g., NextDispatchList) has
    implementation-defined effect"; Next-list pointer semantics: without the wait "the implementation may read
    NextDispatchList at any time, including at launch", with it the read is deferred "to the retire point"
    (docs/spec-questions.md Q15).  d3d12wl follows the value at the retire point; ``next_list_read=launch`` the value
    the list launched with, where the list does not set the wait."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, "compute", flags_=list_flags)
        c.add_list(1, "compute", next_=0)
        c.add_list(2, "compute", next_=0)
        c.bind_validation_table()
        return c

    trace = both(build, hooks=RedirectingHooks(), readings=Readings(next_list_read=reading))
    assert [lt.va for lt in trace.lists] == [LIST_VA, LIST_VA + 0x100 * followed]
    (warning,) = trace.findings_of("next-dispatch-list-written")
    assert warning.severity == "warning" and warning.va == LIST_VA + NEXT
    assert "implementation-defined" in warning.message
    assert trace.call_args.get("readings", {}) == ({} if reading == "retire" else {"next_list_read": "launch"})


# ---- The arriving list's flags decide what happens at a boundary --------------------------------------------------


def test_the_arriving_lists_flags_decide_at_a_boundary():
    """D3D12_DISPATCH_LIST_FLAGS, Ordering across a list boundary: "A graphics-class list that does not set
    _ALLOW_OUT_OF_ORDER_GRAPHICS retires its records in order among themselves, and lands after work already in
    flight. ... A list that does set _ALLOW_OUT_OF_ORDER_GRAPHICS may instead overtake work still in flight".  The
    four transitions (ordered / unordered, followed by ordered / unordered): each list says what its own flags make
    of the boundary it arrives at."""
    def build() -> Chain:
        c = Chain()
        c.add_list(0, "graphics")
        c.add_list(1, "graphics", flags_=CONT | OOO)
        c.add_list(2, "graphics", flags_=CONT | OOO)
        c.add_list(3, "graphics", next_=0)
        return c

    trace = both(build)
    assert [lt.ordering for lt in trace.lists] == ["in order", "any order", "any order", "in order"]
    for lt in trace.lists:
        arrives = ("lands after work already in flight" if lt.ordering == "in order"
                   else "may overtake work still in flight")
        assert arrives in lt.ordering_note and "the arriving list's flags decide" in lt.ordering_note


# ---- Q14: MaxGraphicsPrimaryLists exceeded, and what counts -------------------------------------------------------


def test_exceeding_max_graphics_primary_lists_under_each_reading():
    """Rule 11: "Exceeding the bound is undefined behavior"; MaxGraphicsPrimaryLists "caps the count of
    graphics-class lists the chain may execute" (docs/spec-questions.md Q14).  d3d12wl executes the list past the
    bound and reports it; ``max_graphics_primary_lists=stop`` ends the chain before it."""
    def build() -> Chain:
        c = Chain()
        c.chain(["graphics", "compute", "graphics", "compute"])
        return c

    trace = both(build, max_graphics=1)
    assert [(f.kind, f.list_index) for f in trace.findings] == [("max-graphics-primary-lists-exceeded", 2)]
    assert len(trace.lists) == 4 and trace.graphics_lists == 2
    stopped = both(build, max_graphics=1, readings=Readings(max_graphics_primary_lists="stop"))
    assert [(f.kind, f.list_index) for f in stopped.findings] == [("max-graphics-primary-lists-exceeded", 2)]
    assert len(stopped.lists) == 3 and stopped.graphics_lists == 1 and "stop" in stopped.findings[0].message
    assert [e.list_index for e in stopped.executions] == [0, 1]
    assert stopped.lists[2].stopped and stopped.stopped_reason


def test_a_graphics_list_that_runs_nothing_counts():
    """Rule 11: "A list counts whether or not it executes any records" (Q14: once the signature it selects is
    graphics-class): a graphics list whose binding does not match its class (rule 17, no record runs) counts."""
    def build() -> Chain:
        c = Chain()
        c.chain(["graphics", "mesh"])
        c.s.state.program.WorkList1.pBindings[2] = c.s.state.program.WorkList1.pBindings[3]  # a raytracing one
        return c

    trace = both(build, max_graphics=1)
    assert [(f.kind, f.list_index) for f in trace.findings] == [("max-graphics-primary-lists-exceeded", 1),
                                                                 ("binding-type-mismatch", 1)]
    assert trace.graphics_lists == 2 and [e.list_index for e in trace.executions] == [0]
