"""A table (:mod:`d3d12wl.output.table`) as CSV (RFC 4180): a header row of the column names, then one row per row
of the table, made from its chunks by the C formatter (:mod:`d3d12wl.output.textrows`) in blocks
(:func:`~d3d12wl.output.blockwriter.write_rows`).

One encoding per kind: ``int`` a signed decimal, ``uint`` an unsigned one, ``va`` and ``dword`` ``0x``
hexadecimal, coded kinds (``category``, ``enum``, ``text``) the name (quoted where it holds a comma, a quote or a
line break; a NUL written ``\\0``, which no CSV reader mistakes for the end of a string); an absent value empty.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from d3d12wl.output.blockwriter import write_rows
from d3d12wl.output.outfiles import TEXT_ERRORS
from d3d12wl.output.table import ColumnSpec, Table, TableChunk
from d3d12wl.output.textrows import Part, RowFormatter, Value, csv_cell

__all__ = ["Template", "TextRows", "cell", "header", "row_template", "write_csv", "write_table_rows"]

Write = Callable[[Any], Any]


def cell(name: str) -> str:
    """A name as one CSV cell."""
    return csv_cell(name.replace("\0", "\\0"))


def header(table: Table) -> bytes:
    """The header row: every column's name."""
    return (",".join(cell(s.name) for s in table.specs) + "\n").encode("utf-8", TEXT_ERRORS)


def _value(spec: ColumnSpec, names: Sequence[str]) -> Value:
    if spec.kind == "float":
        raise TypeError(f"column {spec.name!r}: the text encoders write no float column (npz and Parquet do)")
    mask = spec.name if spec.nullable else None
    if spec.coded:
        return Value(spec.name, "dict", names=tuple(cell(t) for t in names))
    if spec.kind in ("va", "dword"):
        return Value(spec.name, "hex", mask=mask, prefix="0x")
    return Value(spec.name, "udec" if spec.kind == "uint" else "sdec", mask=mask)


def row_template(table: Table, names: Callable[[ColumnSpec], Sequence[str]]) -> list[Part]:
    """One row of ``table``, a coded column's names by ``names(spec)``."""
    parts: list[Part] = []
    for i, s in enumerate(table.specs):
        if i:
            parts.append(",")
        parts.append(_value(s, names(s) if s.coded else []))
    parts.append("\n")
    return parts


#: a row's template given the names of each coded column (:func:`row_template`, a JSON row)
Template = Callable[[Callable[[ColumnSpec], Sequence[str]]], list[Part]]


class TextRows:
    """Rows of a table written chunk by chunk by a template (this module's row, or another text format's: a JSON
    row), the formatter made again only where a chunk's names are not the last one's (a table's name tables only
    grow); ``first_skip`` bytes dropped from the first row (a separator)."""

    def __init__(self, table: Table, write: Write, template: Template, *, first_skip: int = 0) -> None:
        self.table, self.write, self.template = table, write, template
        self.coded = [s for s in table.specs if s.coded]
        self.formatter: RowFormatter | None = None
        self.known: tuple[Any, ...] = ()
        self.skip = first_skip
        self.rows = 0

    def chunk(self, chunk: TableChunk) -> None:
        """The rows of ``chunk``."""
        if not chunk.n:
            return
        names = {s.name: chunk.names_of(self.table, s) for s in self.coded}
        known = tuple(tuple(names[s.name]) if s.name in chunk.names else len(names[s.name]) for s in self.coded)
        if self.formatter is None or known != self.known:
            self.formatter, self.known = RowFormatter([self.template(lambda s: names[s.name])]), known
        write_rows(self.formatter, chunk.values, chunk.n, None, self.write, chunk.absent, skip=self.skip)
        self.skip = 0
        self.rows += chunk.n


def write_table_rows(table: Table, write: Write, template: Template, *, first_skip: int = 0) -> int:
    """Every row of ``table``'s chunks by ``template`` (:class:`TextRows`); returns how many."""
    rows = TextRows(table, write, template, first_skip=first_skip)
    for chunk in table.chunks():
        rows.chunk(chunk)
    return rows.rows


def write_csv(table: Table, write: Write) -> int:
    """``table`` as CSV: the header, then every row.  Returns how many rows."""
    write(header(table))
    return write_table_rows(table, write, lambda names: row_template(table, names))
