"""A table (:mod:`d3d12wl.output.table`) as JSON rows: each row one flat JSON object, its columns in order, made from
the table's chunks by the C formatter (:mod:`d3d12wl.output.textrows`).

One encoding per kind: ``int`` and ``uint`` numbers, ``va`` and ``dword`` unsigned numbers, coded kinds
(``category``, ``enum``, ``text``) strings, an absent value ``null``.  Every row has every column.  What goes around
the rows (a JSON document's list, JSON lines' other records) is the caller's: :func:`row_template` takes what goes
before and after each row.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from d3d12wl.output.table import ColumnSpec
from d3d12wl.output.textrows import Part, Value

__all__ = ["row_template"]


def row_template(specs: Sequence[ColumnSpec], names: Callable[[ColumnSpec], Sequence[str]], *, lead: str = "",
                 keys: str = "", trail: str = "") -> list[Part]:
    """The template of one row: ``lead``, ``{``, ``keys`` (members written before the columns, each followed by a
    comma: JSON lines' ``"record":"execution",``), every column as ``"name":value``, ``}``, ``trail``.
    ``names(spec)`` is the name table a coded column's codes index (-1: absent)."""
    parts: list[Part] = [lead + "{" + keys]
    for i, s in enumerate(specs):
        if s.kind == "float":
            raise TypeError(f"column {s.name!r}: the text encoders write no float column (npz and Parquet do)")
        parts.append(("," if i else "") + json.dumps(s.name) + ":")
        mask = s.name if s.nullable else None
        if s.coded:
            parts.append(Value(s.name, "dict", absent="null", names=tuple(json.dumps(t) for t in names(s))))
        elif s.kind in ("va", "dword", "uint"):
            parts.append(Value(s.name, "udec", absent="null", mask=mask))
        else:
            parts.append(Value(s.name, "sdec", absent="null", mask=mask))
    parts.append("}" + trail)
    return parts
