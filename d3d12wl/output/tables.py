"""The one table renderer of every human view (``abi``, ``layout``, ``validate``, ``dump``, ``exec``, the header
report): aligned columns, numbers right-aligned (negative and hexadecimal ones too), enum members by name.

Two ways to lay a table out:

* :func:`render` measures every cell and returns the lines (header first) -- for tables that fit in memory;
* :class:`Columns` takes fixed widths and formats one row at a time -- for streamed output of millions of rows,
  where a cell wider than its column widens only its own row.

::

    render(("offset", "size", "field"), [(0, 4, "ProgramTableIndex"), (-8, 8, "x")])
    # ['offset  size  field', '     0     4  ProgramTableIndex', '    -8     8  x']
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Align", "Columns", "cell", "is_numeric", "render"]

#: ``"<"`` left, ``">"`` right, ``None`` right when every non-empty cell of the column is a number, else left
Align = Literal["<", ">"] | None

_NUMBER = re.compile(r"[-+]?(?:\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|0x[0-9a-fA-F]+|inf|nan)")


def cell(value: Any) -> str:
    """The text of one cell: enum members by name (``DRAW``, ``VS|PS``), None as ``-``, everything else ``str``."""
    if type(value) is str:
        return value
    if value is None:
        return "-"
    if isinstance(value, enum.Flag):
        return value.name or ("NONE" if not value else str(value.value))
    if isinstance(value, enum.Enum):
        return str(value.name)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def is_numeric(text: str) -> bool:
    """A decimal (negative included), a float or a ``0x`` hexadecimal number."""
    return bool(_NUMBER.fullmatch(text))


def _aligns(cells: Sequence[Sequence[str]], ncols: int, align: Sequence[Align] | None) -> list[str]:
    out: list[str] = []
    for i in range(ncols):
        wanted = align[i] if align is not None else None
        if wanted is None:
            column = [r[i] for r in cells if i < len(r) and r[i] not in ("", "-")]
            wanted = ">" if column and all(is_numeric(c) for c in column) else "<"
        out.append(wanted)
    return out


def _line(cells: Sequence[str], widths: Sequence[int], aligns: Sequence[str], indent: str, gap: str) -> str:
    parts = [c.rjust(w) if a == ">" else c.ljust(w) for c, w, a in zip(cells, widths, aligns, strict=False)]
    return (indent + gap.join(parts)).rstrip()


def render(headers: Sequence[str] | None, rows: Iterable[Sequence[Any]], *, indent: str = "",
           align: Sequence[Align] | None = None, gap: str = "  ") -> list[str]:
    """The lines of an aligned table (``headers`` first unless None).  A row shorter than the header leaves its
    last columns empty; the last column is not padded."""
    cells = [[c if type(c) is str else cell(c) for c in row] for row in rows]
    ncols = max([len(headers or ()), *(len(r) for r in cells)], default=0)
    cells = [r + [""] * (ncols - len(r)) if len(r) < ncols else r for r in cells]
    head = list(headers) + [""] * (ncols - len(headers)) if headers is not None else None
    columns = list(zip(*cells)) if cells else [()] * ncols
    widths = [max([len(head[i]) if head else 0, *map(len, columns[i])]) for i in range(ncols)]
    aligns = _aligns(cells, ncols, align)
    out = [_line(head, widths, aligns, indent, gap)] if head is not None else []
    # (the _line of every row, in one str.format call per row: a table can have 100,000 rows)
    row_format = indent.replace("{", "{{").replace("}", "}}") + gap.replace("{", "{{").replace("}", "}}").join(
        f"{{:{'>' if a == '>' else '<'}{w}}}" for a, w in zip(aligns, widths, strict=True))
    out.extend(row_format.format(*r).rstrip() for r in cells)
    return out


@dataclass(frozen=True)
class Columns:
    """Fixed-width columns for streamed rows: ``widths[i]`` is the least width of column ``i`` (the last column is
    never padded), ``align[i]`` its alignment (``">"`` or ``"<"``)."""

    widths: Sequence[int]
    align: Sequence[Literal["<", ">"]]
    indent: str = ""
    gap: str = " "

    def row(self, values: Sequence[Any]) -> str:
        return _line([cell(v) for v in values], self.widths, self.align, self.indent, self.gap)
