"""Notes: what is legal but easy to get wrong, reported beside the violations and never counted as one.

A hybrid program command signature whose ``SecondaryRecordByteStride`` is 0 (C's zero value, so also what an
omitted member gives) uses the broadcast form: every secondary index of a primary record resolves to the record at
its list's start address (spec "Stride derivation" and rule 25(e): "must be 0 or at least the minimum
secondary-record size ... a 0 stride is the broadcast form").  Legal, so ``d3d12wl validate`` exits 0 with a note.
"""

from __future__ import annotations

from dataclasses import dataclass

from d3d12wl.errors import ABIError, LayoutError
from d3d12wl.model.objects import ObjectSet
from d3d12wl.records.layout import pcs_layout
from d3d12wl.rules._common import PCS_KIND, Violation


@dataclass(frozen=True)
class Note(Violation):
    """One note: a :class:`Violation`'s shape (the rule or section it is about, the object, why, the member path),
    reported beside the violations and never counted as one."""


def notes(objects: ObjectSet) -> list[Note]:
    """Every note on ``objects``, in description order."""
    out: list[Note] = []
    for name, pcs in objects.program_command_signatures.items():
        try:
            secondary = pcs_layout(pcs).secondary
        except (LayoutError, ABIError):  # no dispatch trigger, or an enum value out of range (a Source of 99):
            continue  # violations, reported by check_objects
        if secondary is not None and pcs.SecondaryRecordByteStride == 0:
            out.append(Note(
                "rule 25(e)", PCS_KIND, name,
                f"SecondaryRecordByteStride is 0, the broadcast form: every secondary index of a primary record "
                f"reads the record at its list's start address (the {secondary.size}-byte secondary record's minimum "
                f"stride is {secondary.min_stride}; declare it for one record per index)",
                path=f"{PCS_KIND}.{name}.SecondaryRecordByteStride"))
    return out
