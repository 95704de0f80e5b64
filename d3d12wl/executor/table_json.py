"""The execution table as JSON rows: the executions of ``exec --format json`` and ``--format jsonl`` version 2.

Version 1 of those outputs writes each execution in the trace's own shape (``Execution`` of ``Trace.to_dict()``:
nested root arguments with their registers, sources and origin texts; about 2-3 KB an execution).  Version 2
writes it as one flat JSON object, the execution table's row: the columns CSV, npz and Parquet hold
(:func:`~d3d12wl.executor.output.table_columns`, table version :data:`~d3d12wl.executor.output.TABLE_VERSION`),
in their order, one encoding per value as in the typed formats: indices as integers, VAs and root constants' DWORDs
as unsigned integers, names and enum members (program, trigger, every ``.source`` and ``.field``, ``ia.ib.Format``)
as strings, and a value an execution does not have as ``null``.  Every row has every column.

The rows are made by the C formatter (:mod:`d3d12wl.output.textrows`) from the table's chunks, as CSV's are
(``output._Tables.write_rows``), in blocks on the block writer's workers.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from d3d12wl.output.textrows import Part, Value

__all__ = ["ColumnKind", "row_template"]


class ColumnKind(Protocol):
    """What a row needs of a column: :class:`~d3d12wl.executor.output.ColumnSpec`'s name, kind and nullability
    (typed here by what it has: ``output`` imports this module, not the other way)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def nullable(self) -> bool: ...


S = TypeVar("S", bound=ColumnKind)


def row_template(specs: Sequence[S], names: Callable[[S], Sequence[str]], *, lead: str = "",
                 keys: str = "", trail: str = "") -> list[Part]:
    """The template of one row: ``lead``, ``{``, ``keys`` (members written before the columns, each followed by a
    comma: JSON lines' ``"record":"execution",``), every column as ``"name":value``, ``}``, ``trail``.
    ``names(spec)`` is the name table a category or enum column's codes index (-1: absent)."""
    parts: list[Part] = [lead + "{" + keys]
    for i, s in enumerate(specs):
        parts.append(("," if i else "") + json.dumps(s.name) + ":")
        mask = s.name if s.nullable else None
        if s.kind in ("category", "enum"):
            parts.append(Value(s.name, "dict", absent="null", names=tuple(json.dumps(t) for t in names(s))))
        elif s.kind in ("va", "dword"):
            parts.append(Value(s.name, "udec", absent="null", mask=mask))
        else:
            parts.append(Value(s.name, "sdec", absent="null", mask=mask))
    parts.append("}" + trail)
    return parts
