"""One list of a ``DispatchList`` / ``DispatchList1`` call being processed, and what the call bound: the types the
spec's ten steps share (:mod:`d3d12wl.executor.dispatch_list`), its record walk (:mod:`~d3d12wl.executor.record_walk`),
the columnar walks and the validation-hook runner (:mod:`~d3d12wl.executor.validation`).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from d3d12wl.errors import LayoutError
from d3d12wl.executor.context import ExecContext, Loc
from d3d12wl.executor.trace import ListTrace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import WorkListSignature
from d3d12wl.model.state import WorkListBinding

__all__ = ["INPUT", "INPUT1", "RENAMED", "BoundPrograms", "ListRun", "PrimaryWalker", "SignatureSelection",
           "ValidationHooks", "no_layout", "renamed"]

INPUT = "D3D12_DISPATCH_LIST_INPUT"
INPUT1 = "D3D12_DISPATCH_LIST_INPUT1"


class ValidationHooks(Protocol):
    """A runner for the spec's validators ("GPU Timeline Validation Hooks").  Each method runs the validators of
    one step for the list in ``run`` (reading and writing ``run.ctx.memory``) and returns True if it dispatched
    any validator, in which case the executor re-reads the header as the spec's steps 2, 6 and 9 require.
    The executor calls these only when a validation program table is bound (array bind with a non-null
    ``ValidationProgramTable``); the direct-bind path never runs validators."""

    def signature_selection(self, run: ListRun) -> bool: ...  # step 1 (before SignatureIndex is read)

    def primary_list(self, run: ListRun) -> bool: ...  # step 4 (after selection)

    def secondary_lists(self, run: ListRun) -> bool: ...  # step 7 (all primary records)


#: step 10 of one list: walk its primary records (the reference
#: :func:`~d3d12wl.executor.record_walk.walk_primary_records` or a faster one that makes the same trace)
PrimaryWalker = Callable[["ListRun"], None]


@dataclass
class SignatureSelection:
    """The signature and paired binding a list selected (spec "Signature Selection": ``SignatureIndex`` selects both
    together; 0 with a direct bind), the signature's executable class and its program command signatures (by
    ``id``).  ``ListRun.selection`` holds it once step 3 has run.  (Formerly ``Selection``:
    :data:`RENAMED`.)"""

    signature_index: int
    signature: WorkListSignature
    binding: WorkListBinding
    executable_class: ExecutableClass
    members: frozenset[int]  # id() of the signature's program command signatures


@dataclass
class ListRun:
    """One list being processed: what hooks and the record walk share."""

    ctx: ExecContext
    index: int
    va: int
    tier2: bool
    header_bytes: bytes
    header: dict[str, Any]
    trace: ListTrace
    selection: SignatureSelection | None = None
    counter: int = 0  # the list's linear invocation sequence (incrementing constant, "Counting unit")
    #: NextDispatchList as the list launched (before any validator ran): Readings.next_list_read "launch"
    launch_next: int = 0
    #: the chain ends after this list whatever its continuation says (Readings.max_graphics_primary_lists "stop")
    ends_chain: bool = False
    #: executions that did work, in the list and in the current secondary list (Readings.zero_work_counter "skips")
    worked: int = 0
    worked_in_secondary_list: int = 0

    @property
    def loc(self) -> Loc:
        return Loc(list_index=self.index)


@dataclass
class BoundPrograms:
    """What SetProgram bound (spec "Binding via SetProgram"): the signatures and their paired bindings, whether it
    was the array bind (``D3D12_PROGRAM_TYPE_WORK_LIST1``) and whether it bound a validation program table; ``used``:
    the signatures the call's lists selected (the end-of-call reset covers them), by ``id``."""

    signatures: list[WorkListSignature]
    bindings: list[WorkListBinding]
    array: bool
    validation_active: bool
    used: dict[int, WorkListSignature] = field(default_factory=dict)


def no_layout(ctx: ExecContext, exc: LayoutError, rule: str, subject: str, loc: Loc, key: tuple[str, str]) -> None:
    """The finding for a PCS or program whose record layout cannot be computed: the layout error's rule (else
    ``rule``), ``subject: message``, once per ``key``."""
    ctx.finding("invalid-program-command-signature", exc.rule or rule, f"{subject}: {exc.message}", loc=loc, key=key)


#: names this stage renamed, importable under the old name for one more release with a ``DeprecationWarning``:
#: old name -> (new name, the version that removes the old one, why the new one)
RENAMED = {"Selection": ("SignatureSelection", "0.4.0", "the signature and binding a list selected; "
                         "d3d12wl.executor.selection.Selection is what an output shows of a trace")}


def renamed(module: str, name: str) -> Any:
    """A module ``__getattr__`` for the old names of :data:`RENAMED` (``d3d12wl.executor.Selection``): the
    renamed object, with a ``DeprecationWarning`` that says its new name; an ``AttributeError`` for any other."""
    got = RENAMED.get(name)
    if got is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    new, removed, why = got
    warnings.warn(f"{module}.{name} is renamed {new} ({why}); the old name is removed in d3d12wl {removed}",
                  DeprecationWarning, stacklevel=3)
    return globals()[new]
