"""Writing the table of references by value (:mod:`d3d12wl.executor.references`) as it streams out of the walk:
CSV, JSON lines, npz and Parquet, each chunk through the output stage's one encoder of its format, with no Python
object per row.  :data:`REFERENCE_WRITERS` is the registry ``d3d12wl patch-list --format`` looks up.

One value, one encoding (design.md, "What users read is part of the product's speed"): VAs, handles and offsets are
uint64 in the typed formats (npz, Parquet), JSON numbers in JSON lines and hex (``0x10000``) in CSV; code columns
are names (a dictionary column in Parquet, ``names.<column>`` beside the codes in npz); a value the row does not
have is empty (CSV), ``null`` (JSON lines, Parquet), or in npz -1 for codes and indices and 0 for a uint64 whose row
says it has none (``region`` -1: no VA and offset; ``kind`` program-identifier: no value and no target_offset;
``target`` -1: no target_offset).  The findings travel with the rows: JSON lines ``{"record": "finding", ...}``
lines and an ``end`` line, npz ``findings.<member>`` arrays, Parquet the file's ``d3d12wl.findings`` metadata
(JSON); CSV holds the rows only (the command line prints the findings on standard error and exits 1).
"""

from __future__ import annotations

import json
import zipfile
from collections.abc import Iterator, Sequence
from functools import partial
from typing import IO

import numpy as np

from d3d12wl.executor.references import COLUMNS, NAME_COLUMNS, ReferenceTable
from d3d12wl.executor.trace import Finding
from d3d12wl.output import csv_table, npz_table, parquet_table
from d3d12wl.output.json_table import row_template
from d3d12wl.output.table import ColumnSpec, TableChunk
from d3d12wl.output.writers import Writer, Writers
from d3d12wl.records.references import IDENTIFIER, REFERENCE_KINDS

__all__ = ["FORMATS", "REFERENCE_WRITERS", "SPECS", "TableWriter", "absent", "writer_for"]

#: rows the typed formats gather before writing a row group / block
BLOCK_ROWS = 1 << 16
#: the columns shown in hex in text formats
HEX_COLUMNS = ("offset", "va", "value", "target_offset")
#: the index columns (-1: none)
INDEX_COLUMNS = ("list_index", "primary_index", "secondary_index", "slot_index", "command_index")
#: the table's columns as the encoders take them: the code columns names, the uint64 columns VAs, the rest
#: integers; every one nullable (:func:`absent`)
SPECS = tuple(ColumnSpec(c, "category" if c in NAME_COLUMNS else "va" if c in HEX_COLUMNS else "int", None, True)
              for c in COLUMNS)
_FINDING_MEMBERS = ("kind", "rule", "severity", "message", "list_index", "primary_index", "secondary_index",
                    "command_index", "va")


def absent(columns: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Per column, the rows that have no value in it (the module's docstring says which)."""
    no_memory = columns["region"] < 0
    out = {c: columns[c] < 0 for c in (*NAME_COLUMNS, *INDEX_COLUMNS)}
    out["offset"] = out["va"] = no_memory
    out["value"] = columns["kind"] == REFERENCE_KINDS.index(IDENTIFIER)
    out["target_offset"] = (columns["target"] < 0) | out["value"]
    return out


class _Rows:
    """The table as the encoders see it: :data:`SPECS`, the collector's name tables as they are now."""

    specs = SPECS

    def __init__(self) -> None:
        self.names: dict[str, list[str]] = {}

    def names_of(self, spec: ColumnSpec) -> Sequence[str]:
        return self.names.get(spec.name, [])

    def chunks(self) -> Iterator[TableChunk]:
        return iter(())  # (the rows are pushed, chunk by chunk: TableWriter.write)


def _chunk(table: ReferenceTable) -> TableChunk:
    return TableChunk(len(table), table.columns, absent(table.columns))


class TableWriter:
    """Writes a table chunk by chunk (:meth:`write`), then its findings (:meth:`close`)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.rows = 0
        self.table = _Rows()

    def write(self, table: ReferenceTable) -> None:
        raise NotImplementedError

    def close(self, findings: list[Finding], suppressed: int) -> None:
        pass


class _TextWriter(TableWriter):
    """A text format: each chunk's rows by its encoder's template."""

    def __init__(self, out: IO[bytes], template: csv_table.Template) -> None:
        super().__init__(out)
        self.text = csv_table.TextRows(self.table, out.write, template)

    def write(self, table: ReferenceTable) -> None:
        if not len(table):
            return
        self.table.names = table.names
        self.text.chunk(_chunk(table))
        self.rows += len(table)


class CsvWriter(_TextWriter):
    """A header of :data:`~d3d12wl.executor.references.COLUMNS`, then one line per row (:mod:`d3d12wl.output.
    csv_table`): codes as names, VAs in hex, absent values empty."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out, lambda names: csv_table.row_template(self.table, names))
        out.write(csv_table.header(self.table))


class JsonlWriter(_TextWriter):
    """One object per row, ``{"record": "reference", <column>: value, ...}`` (:mod:`d3d12wl.output.json_table`:
    names as strings, numbers as JSON numbers, absent ``null``), then a ``finding`` line per finding and an
    ``end`` line."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out, partial(row_template, SPECS, keys='"record":"reference",', trail="\n"))

    def close(self, findings: list[Finding], suppressed: int) -> None:
        for f in findings:
            self.out.write(json.dumps({"record": "finding", **{m: getattr(f, m) for m in _FINDING_MEMBERS}},
                                      separators=(",", ":")).encode() + b"\n")
        self.out.write(json.dumps({"record": "end", "references": self.rows, "findings": len(findings),
                                   "findings_suppressed": suppressed}, separators=(",", ":")).encode() + b"\n")


class _Blocks(TableWriter):
    """Gathers chunks into blocks of at least :data:`BLOCK_ROWS` rows for the typed formats."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        self.pending: list[dict[str, np.ndarray]] = []
        self.pending_rows = 0

    def write(self, table: ReferenceTable) -> None:
        if not len(table):
            return
        self.table.names = table.names
        self.pending.append(table.columns)
        self.pending_rows += len(table)
        if self.pending_rows >= BLOCK_ROWS:
            self.flush()

    def flush(self) -> None:
        if not self.pending:
            return
        block = {c: np.concatenate([p[c] for p in self.pending]) for c in COLUMNS}
        self.pending, self.pending_rows = [], 0
        self.block(block)
        self.rows += len(block["va"])

    def block(self, columns: dict[str, np.ndarray]) -> None:
        raise NotImplementedError


class NpzWriter(_Blocks):
    """One array per column (its dtype, :data:`~d3d12wl.executor.references.COLUMNS`; :func:`d3d12wl.output.
    npz_table.write_columns`), ``names.<column>`` for each code column, ``findings.<member>`` for the findings; the
    columns are written through temporary files block by block, so the memory it needs is one block's."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        self.files = npz_table.ColumnFiles(COLUMNS, prefix="d3d12wl-patch-npz-")

    def block(self, columns: dict[str, np.ndarray]) -> None:
        self.files.add(columns)

    def close(self, findings: list[Finding], suppressed: int) -> None:
        self.flush()
        try:
            with zipfile.ZipFile(self.out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
                npz_table.write_columns(z, self.files)
                for c in NAME_COLUMNS:
                    npz_table.write_array(z, f"names.{c}", np.array(self.table.names.get(c, []), dtype=str))
                for m in _FINDING_MEMBERS:
                    values = [getattr(f, m) for f in findings]
                    if m in ("kind", "rule", "severity", "message"):
                        array = np.array(values, dtype=str)
                    elif m == "va":
                        array = np.array([0 if v is None else v for v in values], dtype=np.uint64)
                    else:
                        array = np.array([-1 if v is None else v for v in values], dtype=np.int64)
                    npz_table.write_array(z, f"findings.{m}", array, zip64=False)
                npz_table.write_array(z, "findings_suppressed", np.array(suppressed, dtype=np.int64), zip64=False)
        finally:
            self.files.close()


class ParquetWriter(_Blocks):
    """A row group per block (:mod:`d3d12wl.output.parquet_table`): uint64 and int64 columns typed, code columns
    dictionary-encoded strings, absent values null; the findings in the file's ``d3d12wl.findings`` metadata (a
    JSON list).  Needs pyarrow (``pip install 'd3d12wl[parquet]'``)."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        self.schema = parquet_table.schema(SPECS)
        self.stream = parquet_table.ParquetStream(out, self.schema)

    def block(self, columns: dict[str, np.ndarray]) -> None:
        chunk = TableChunk(len(columns["va"]), columns, absent(columns))
        self.stream.write(parquet_table.arrow_table(self.table, chunk, self.schema))

    def close(self, findings: list[Finding], suppressed: int) -> None:
        try:
            self.flush()
        except BaseException:
            self.stream.abort()
            raise
        self.stream.close({"d3d12wl.findings": json.dumps([{m: getattr(f, m) for m in _FINDING_MEMBERS}
                                                          for f in findings]),
                           "d3d12wl.findings_suppressed": str(suppressed)})


#: the writers of the table of references, by ``patch-list --format`` (each ``write(out)`` makes a
#: :class:`TableWriter`; parquet needs the optional pyarrow)
REFERENCE_WRITERS = Writers("table of references")
REFERENCE_WRITERS.add(Writer("csv", CsvWriter, "one row per reference; the findings on standard error"))
REFERENCE_WRITERS.add(Writer("jsonl", JsonlWriter, "one object per reference, then the findings and an end line",
                             verdict_inside="its finding lines"))
REFERENCE_WRITERS.add(Writer("npz", NpzWriter, "one array per column, the names and the findings",
                             verdict_inside="its findings.* arrays"))
REFERENCE_WRITERS.add(Writer("parquet", ParquetWriter, "the table, the findings in its metadata",
                             verdict_inside="its d3d12wl.findings metadata", extra="parquet"))
#: the formats ``d3d12wl patch-list --format`` writes
FORMATS = REFERENCE_WRITERS.formats()


def writer_for(fmt: str, out: IO[bytes]) -> TableWriter:
    """The writer of ``fmt`` (:data:`FORMATS`) onto the binary stream ``out``."""
    writer: TableWriter = REFERENCE_WRITERS[fmt].write(out)
    return writer

