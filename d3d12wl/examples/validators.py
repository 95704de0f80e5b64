"""Example GPU-timeline validators (spec "GPU Timeline Validation Hooks") for ``--validators``.

Captures cannot carry validators (they are Python callables), so ``d3d12wl exec`` and ``d3d12wl dump`` load them
from a spec; this file is one::

    d3d12wl exec d3d12wl/examples/validation_chain_capture.json --validators d3d12wl.examples.validators:VALIDATORS
    d3d12wl dump d3d12wl/examples/validation_chain_capture.json --validators path/to/validators.py:make_runner

Two validators, neutralizing by writing through their UAV pointers (spec "Validator defensive neutralization
patterns"); the regions they write must be ``"writable": true`` in the capture:

* :data:`PRIMARY_LIST_CHECK` (primary-list area, step 4, "Whole list"): a list whose ``ProgramInputs`` is
  misaligned (StartAddress or StrideInBytes not a multiple of 8) or whose ``NumProgramInputs`` records do not fit
  in the tracked allocation holding ``StartAddress`` gets ``NumProgramInputs = 0``: no record of it executes, its
  ``NextDispatchList`` is still followed;
* :data:`SECONDARY_LIST_CHECK` (secondary-list area, step 7, "One primary record's secondary list"): a hybrid
  record whose ``NumSecondaryRecords`` records run past the tracked allocation holding ``SecondaryRecords`` gets
  ``NumSecondaryRecords`` truncated to the records that fit (0 if the list is misaligned or untracked).

"Tracked allocation": a debug layer knows every buffer the application created; here each memory region of the
capture stands for one (:func:`tracked_range`).  Every offset comes from the compiled headers
(:func:`d3d12wl.abi.offsetof`) or the record layout the debug layer delivers in ``call.tracking["layout"]``.

The identifiers are what the capture's validation program table holds (:func:`validation_program_table`): slot 0
is the reserved "no validator" sentinel, slot :data:`PRIMARY_LIST_SLOT` and :data:`SECONDARY_LIST_SLOT` these two.
"""

from __future__ import annotations

from d3d12wl import abi
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor.validation import (
    AREA_PRIMARY_LIST,
    AREA_SECONDARY_LIST,
    ValidationRunner,
    Validator,
    ValidatorCall,
    validation_program_table,
    validator_pcs,
)
from d3d12wl.records.layout import WL_ALIGN

__all__ = ["PRIMARY_LIST_CHECK", "SECONDARY_LIST_CHECK", "VALIDATORS", "PRIMARY_LIST_SLOT", "SECONDARY_LIST_SLOT",
           "make_runner", "table_bytes", "table_slots", "tracked_range"]

_INPUT1 = "D3D12_DISPATCH_LIST_INPUT1"  # validation runs only on the DispatchList1 array-bind path
_VA_ALIGN = WL_ALIGN  # ProgramInputs.StartAddress / StrideInBytes and SecondaryRecords (spec D3D12_DISPATCH_LIST_INPUT)

PRIMARY_LIST_SLOT = 1
SECONDARY_LIST_SLOT = 2


def _identifier(name: str) -> bytes:
    """A 32-byte D3D12_PROGRAM_IDENTIFIER that reads as the validator's name in a hex dump."""
    return name.encode().ljust(abi.sizeof("D3D12_PROGRAM_IDENTIFIER"), b"\0")


def tracked_range(memory: GpuMemory, va: int) -> tuple[int, int] | None:
    """``(start, end)`` of the tracked allocation holding ``va``: the capture's memory region; None if untracked."""
    region = memory.region_at(va)
    return None if region is None else (region.base, region.end)


def _fits(memory: GpuMemory, va: int, size: int) -> bool:
    tracked = tracked_range(memory, va)
    return tracked is not None and va + size <= tracked[1]


def check_primary_list(call: ValidatorCall) -> None:
    """Zero ``NumProgramInputs`` of a list whose ProgramInputs are misaligned or leave their tracked allocation."""
    header = call.pointer("DISPATCH_LIST_HEADER_POINTER")
    if header is None:
        return
    mem = call.memory
    count_va = header + abi.offsetof(_INPUT1, "NumProgramInputs")
    n = mem.read_u32(count_va)
    start = mem.read_u64(header + abi.offsetof(_INPUT1, "ProgramInputs.StartAddress"))
    stride = mem.read_u64(header + abi.offsetof(_INPUT1, "ProgramInputs.StrideInBytes"))
    if n == 0:
        return
    misaligned = start % _VA_ALIGN != 0 or stride % _VA_ALIGN != 0
    footprint = max(n * stride, _VA_ALIGN)  # a broadcast stride (0) reads one record
    if misaligned or not _fits(mem, start, footprint):
        mem.write_u32(count_va, 0)


def truncate_secondary_list(call: ValidatorCall) -> None:
    """Truncate ``NumSecondaryRecords`` to the secondary records that lie in their tracked allocation."""
    record = call.pointer("PRIMARY_RECORD_POINTER")
    secondary = call.pointer("SECONDARY_LIST_POINTER")
    layout = call.tracking.get("layout")
    if record is None or secondary is None or layout is None or layout.secondary is None:
        return  # a fully-inline record has no secondary list
    mem = call.memory
    count_va = record + layout.primary.field("NumSecondaryRecords").offset
    n = mem.read_u32(count_va)
    stride = int(call.tracking["SecondaryRecordByteStride"])
    size = layout.secondary.size
    tracked = tracked_range(mem, secondary)
    if secondary % _VA_ALIGN or tracked is None or secondary + size > tracked[1]:
        fit = 0
    elif stride == 0:  # broadcast: every execution reads the one record
        fit = n
    else:
        fit = (tracked[1] - secondary - size) // stride + 1
    if n > fit:
        mem.write_u32(count_va, fit)


PRIMARY_LIST_CHECK = Validator(_identifier("PrimaryListCheck"), check_primary_list, "PrimaryListCheck",
                               validator_pcs("PrimaryListCheck_PCS", AREA_PRIMARY_LIST))
SECONDARY_LIST_CHECK = Validator(_identifier("SecondaryListCheck"), truncate_secondary_list, "SecondaryListCheck",
                                 validator_pcs("SecondaryListCheck_PCS", AREA_SECONDARY_LIST))

#: Both validators (``--validators d3d12wl.examples.validators:VALIDATORS``).
VALIDATORS = [PRIMARY_LIST_CHECK, SECONDARY_LIST_CHECK]


def make_runner() -> ValidationRunner:
    """A factory (``--validators ...validators.py:make_runner``): a runner with both validators."""
    return ValidationRunner(VALIDATORS)


def table_slots() -> list[Validator | None]:
    """The validation program table's slots these validators expect: slot 0 the "no validator" sentinel (None),
    then the two validators (what :class:`d3d12wl.capture.builder.ValidationTableSpec` takes)."""
    slots: list[Validator | None] = [None, None, None]
    slots[PRIMARY_LIST_SLOT] = PRIMARY_LIST_CHECK
    slots[SECONDARY_LIST_SLOT] = SECONDARY_LIST_CHECK
    return slots


def table_bytes() -> bytes:
    """The validation program table these validators expect: slot 0 none, then the two identifiers."""
    return validation_program_table([None if v is None else v.identifier for v in table_slots()])
