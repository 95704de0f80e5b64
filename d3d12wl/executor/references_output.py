"""Writing the table of references by value (:mod:`d3d12wl.executor.references`) as it streams out of the walk:
CSV, JSON lines, npz and Parquet, each from the chunks' columns with no Python object per row.

One value, one encoding (design.md, "What users read is part of the product's speed"): VAs, handles and offsets are
uint64 in the typed formats (npz, Parquet), JSON numbers in JSON lines and hex (``0x10000``) in CSV; code columns
are names (a dictionary column in Parquet, ``names.<column>`` beside the codes in npz); a value the row does not
have is empty (CSV), ``null`` (JSON lines, Parquet), or in npz -1 for codes and indices and 0 for a uint64 whose row
says it has none (``region`` -1: no VA and offset; ``kind`` program-identifier: no value and no target_offset;
``target`` -1: no target_offset).  The findings travel with the rows: JSON lines ``{"record": "finding", ...}`` lines and an ``end``
line, npz ``findings.<member>`` arrays, Parquet the file's ``d3d12wl.findings`` metadata (JSON); CSV holds the rows
only (the command line prints the findings on standard error and exits 1).
"""

from __future__ import annotations

import json
import shutil
import tempfile
import zipfile
from pathlib import Path
from typing import IO, Any

import numpy as np

from d3d12wl.executor.references import COLUMNS, NAME_COLUMNS, ReferenceTable
from d3d12wl.executor.trace import Finding
from d3d12wl.output import arrowcols
from d3d12wl.output.textrows import Part, RowFormatter, Value, csv_cell
from d3d12wl.records.references import IDENTIFIER, REFERENCE_KINDS

__all__ = ["FORMATS", "TableWriter", "writer_for"]

#: the formats ``d3d12wl patch-list --format`` writes
FORMATS = ("csv", "jsonl", "npz", "parquet")
#: rows the typed formats gather before writing a row group / block
BLOCK_ROWS = 1 << 16
#: the columns shown in hex in text formats
HEX_COLUMNS = ("offset", "va", "value", "target_offset")
#: the index columns (-1: none)
INDEX_COLUMNS = ("list_index", "primary_index", "secondary_index", "slot_index", "command_index")
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


class TableWriter:
    """Writes a table chunk by chunk (:meth:`write`), then its findings (:meth:`close`)."""

    def __init__(self, out: IO[bytes]) -> None:
        self.out = out
        self.rows = 0

    def write(self, table: ReferenceTable) -> None:
        raise NotImplementedError

    def close(self, findings: list[Finding], suppressed: int) -> None:
        pass


class _RowsWriter(TableWriter):
    """A text format: each chunk's rows made by :class:`~d3d12wl.output.textrows.RowFormatter` (the C kernel) from the
    columns, the template made again when a name table has grown (names, once given a code, keep it)."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        self._formatter: RowFormatter | None = None
        self._names: tuple[int, ...] = ()

    def template(self, names: dict[str, list[str]]) -> list[Part]:
        raise NotImplementedError

    def write(self, table: ReferenceTable) -> None:
        cols, n = table.columns, len(table)
        if not n:
            return
        sizes = tuple(len(table.names.get(c, ())) for c in NAME_COLUMNS)
        if self._formatter is None or sizes != self._names:
            self._formatter, self._names = RowFormatter([self.template(table.names)]), sizes
        none = absent(cols)
        self.out.write(self._formatter.format(cols, n, masks={f"{c}.absent": m for c, m in none.items()}))
        self.rows += n


def _number(c: str, absent_text: str, *, hex_: bool) -> Value:
    kind: Any = "hex" if hex_ else "udec" if COLUMNS[c].kind == "u" else "sdec"
    return Value(c, kind, absent=absent_text, mask=f"{c}.absent", prefix="0x" if hex_ else "")


class CsvWriter(_RowsWriter):
    """A header of :data:`COLUMNS`, then one line per row: codes as names, VAs in hex, absent values empty."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        out.write(",".join(COLUMNS).encode() + b"\n")

    def template(self, names: dict[str, list[str]]) -> list[Part]:
        parts: list[Part] = []
        for i, c in enumerate(COLUMNS):
            if i:
                parts.append(",")
            # (a NUL in a name is written \\0, as this table's CSV always wrote it)
            parts.append(Value(c, "dict", names=tuple(csv_cell(x.replace("\0", "\\0")) for x in names.get(c, ())))
                         if c in NAME_COLUMNS else _number(c, "", hex_=c in HEX_COLUMNS))
        return [*parts, "\n"]


class JsonlWriter(_RowsWriter):
    """One object per row, ``{"record": "reference", <column>: value, ...}`` (names as strings, numbers as JSON
    numbers, absent ``null``), then a ``finding`` line per finding and an ``end`` line."""

    def template(self, names: dict[str, list[str]]) -> list[Part]:
        parts: list[Part] = ['{"record":"reference"']
        for c in COLUMNS:
            parts.append(f",{json.dumps(c)}:")
            parts.append(Value(c, "dict", absent="null", names=tuple(json.dumps(x) for x in names.get(c, ())))
                         if c in NAME_COLUMNS else _number(c, "null", hex_=False))
        return [*parts, "}\n"]

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
        self.names: dict[str, list[str]] = {}

    def write(self, table: ReferenceTable) -> None:
        if not len(table):
            return
        self.names = table.names
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
    """One array per column (its dtype, :data:`~d3d12wl.executor.references.COLUMNS`), ``names.<column>`` for each
    code column, ``findings.<member>`` for the findings; the columns are written through temporary files block by
    block, so the memory it needs is one block's."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        self.tmp = tempfile.TemporaryDirectory(prefix="d3d12wl-patch-npz-")
        self.files = {c: open(Path(self.tmp.name) / f"{i}.bin", "w+b") for i, c in enumerate(COLUMNS)}  # noqa: SIM115

    def block(self, columns: dict[str, np.ndarray]) -> None:
        for c, f in self.files.items():
            columns[c].astype(COLUMNS[c], copy=False).tofile(f)

    def close(self, findings: list[Finding], suppressed: int) -> None:
        self.flush()
        try:
            with zipfile.ZipFile(self.out, "w", compression=zipfile.ZIP_STORED, allowZip64=True) as z:
                for c, f in self.files.items():
                    f.flush()
                    f.seek(0)
                    with z.open(f"{c}.npy", "w", force_zip64=True) as entry:
                        np.lib.format.write_array_header_1_0(entry, {"descr": np.lib.format.dtype_to_descr(COLUMNS[c]),
                                                                     "fortran_order": False, "shape": (self.rows,)})
                        shutil.copyfileobj(f, entry, 1 << 20)
                for c in NAME_COLUMNS:
                    with z.open(f"names.{c}.npy", "w", force_zip64=True) as entry:
                        np.lib.format.write_array(entry, np.array(self.names.get(c, []), dtype=str))
                arrays = {m: [getattr(f, m) for f in findings] for m in _FINDING_MEMBERS}
                for m, values in arrays.items():
                    if m in ("kind", "rule", "severity", "message"):
                        array = np.array(values, dtype=str)
                    elif m == "va":
                        array = np.array([0 if v is None else v for v in values], dtype=np.uint64)
                    else:
                        array = np.array([-1 if v is None else v for v in values], dtype=np.int64)
                    with z.open(f"findings.{m}.npy", "w") as entry:
                        np.lib.format.write_array(entry, array)
                with z.open("findings_suppressed.npy", "w") as entry:
                    np.lib.format.write_array(entry, np.array(suppressed, dtype=np.int64))
        finally:
            for f in self.files.values():
                f.close()
            self.tmp.cleanup()


class ParquetWriter(_Blocks):
    """A row group per block: uint64 and int64 columns typed, code columns dictionary-encoded strings, absent
    values null; the findings in the file's ``d3d12wl.findings`` metadata (a JSON list).  Needs pyarrow (``pip
    install 'd3d12wl[parquet]'``)."""

    def __init__(self, out: IO[bytes]) -> None:
        super().__init__(out)
        try:
            import pyarrow as pa
            import pyarrow.parquet as pq
        except ImportError:
            from d3d12wl.errors import D3D12WLError

            raise D3D12WLError("--format parquet needs pyarrow: pip install 'd3d12wl[parquet]'",
                               where="--format") from None
        self.pa = pa
        fields = [pa.field(c, pa.dictionary(pa.int32(), pa.string()) if c in NAME_COLUMNS
                           else pa.from_numpy_dtype(dt)) for c, dt in COLUMNS.items()]
        self.schema = pa.schema(fields)
        self.kept = arrowcols.KeptFailures(out)
        with self.kept.raising():
            self.writer = pq.ParquetWriter(self.kept, self.schema, write_batch_size=arrowcols.PARQUET_WRITE_BATCH)

    def block(self, columns: dict[str, np.ndarray]) -> None:
        pa = self.pa
        none = absent(columns)
        arrays = []
        for c in COLUMNS:
            if c in NAME_COLUMNS:
                indices = arrowcols.numbers(columns[c], pa.int32(), none[c])
                arrays.append(pa.DictionaryArray.from_arrays(indices, arrowcols.strings(self.names.get(c, []))))
            else:
                arrays.append(arrowcols.numbers(columns[c], pa.from_numpy_dtype(columns[c].dtype), none[c]))
        with self.kept.raising():
            self.writer.write_table(self.pa.Table.from_arrays(arrays, schema=self.schema))

    def close(self, findings: list[Finding], suppressed: int) -> None:
        with self.kept.raising():
            try:
                self.flush()
                if not self.rows:  # a table with no rows still has its schema
                    self.writer.write_table(self.schema.empty_table())
                self.writer.add_key_value_metadata({
                    "d3d12wl.findings": json.dumps([{m: getattr(f, m) for m in _FINDING_MEMBERS}
                                                    for f in findings]),
                    "d3d12wl.findings_suppressed": str(suppressed)})
            finally:
                self.writer.close()


def writer_for(fmt: str, out: IO[bytes]) -> TableWriter:
    """The writer of ``fmt`` (:data:`FORMATS`) onto the binary stream ``out``."""
    writers: dict[str, type[TableWriter]] = {"csv": CsvWriter, "jsonl": JsonlWriter, "npz": NpzWriter,
                                             "parquet": ParquetWriter}
    return writers[fmt](out)
