"""The execution table as JSON rows: the executions of ``exec --format json`` and ``--format jsonl`` version 2.

Version 1 of those outputs writes each execution in the trace's own shape (``Execution`` of ``Trace.to_dict()``:
nested root arguments with their registers, sources and origin texts; about 2-3 KB an execution).  Version 2
writes it as one flat JSON object, the execution table's row: the columns CSV, npz and Parquet hold
(:func:`~d3d12wl.executor.output.table_columns`, table version :data:`~d3d12wl.executor.output.TABLE_VERSION`),
in their order, one encoding per value as in the typed formats: indices as integers, VAs and root constants' DWORDs
as unsigned integers, names and enum members (program, trigger, every ``.source`` and ``.field``, ``ia.ib.Format``)
as strings, and a value an execution does not have as ``null``.  Every row has every column.

The rows are made by the C formatter (:mod:`d3d12wl.textrows`) from the table's chunks, in blocks on the block
writer's workers where ``write`` is a :class:`~d3d12wl.blockwriter.BlockWriter`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

import numpy as np

from d3d12wl.executor.rows import _write_blocks
from d3d12wl.textrows import Part, RowFormatter, Value

__all__ = ["Chunk", "Spec", "row_template", "write_rows"]

#: one chunk of the execution table: (rows, values by column, where each nullable column is absent)
Chunk = tuple[int, dict[str, np.ndarray], dict[str, np.ndarray]]


class Spec(Protocol):
    """What a row needs of a column (:class:`~d3d12wl.executor.output.ColumnSpec`)."""

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def nullable(self) -> bool: ...


def row_template(specs: Sequence[Spec], names: Callable[[Spec], Sequence[str]], *, lead: str = "",
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


def write_rows(chunks: Iterable[Chunk], specs: Sequence[Spec], names: Callable[[Spec], Sequence[str]],
               write: Callable[[Any], Any], *, lead: str = "", keys: str = "", trail: str = "",
               first_skip: int = 0) -> int:
    """Every row of ``chunks`` by :func:`row_template` (``first_skip`` bytes dropped from the first row: a
    separator); returns how many rows were written.  The template is compiled again only where a chunk met names
    the last one's did not have."""
    count = 0
    formatter: RowFormatter | None = None
    known: tuple[int, ...] = ()
    for n, values, absent in chunks:
        if not n:
            continue
        sizes = tuple(len(names(s)) for s in specs if s.kind in ("category", "enum"))
        if formatter is None or sizes != known:
            formatter, known = RowFormatter([row_template(specs, names, lead=lead, keys=keys, trail=trail)]), sizes
        _write_blocks(formatter, values, n, None, write, absent, skip=first_skip if count == 0 else 0)
        count += n
    return count
