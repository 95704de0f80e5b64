"""d3d12wl.output.arrowcols: the Arrow arrays of every Parquet writer, made from numpy buffers, equal to what
``pyarrow.array`` makes of the same columns, and never importing pandas (issue 23: every output at the engine's
speed; ``pyarrow.array`` imports pandas wherever it is installed, 1.2 s of a 1 M-draw parquet output)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pa = pytest.importorskip("pyarrow")

from d3d12wl.output import arrowcols  # noqa: E402


@pytest.mark.parametrize("dtype,arrow_type", [(np.uint64, pa.uint64()), (np.int64, pa.int64()),
                                              (np.uint32, pa.uint32()), (np.int32, pa.int32())])
def test_numbers_equal_pyarrow_array_with_nulls_where_absent(dtype: type, arrow_type: object) -> None:
    values = (np.arange(70, dtype=np.int64) * 7919 % 1000).astype(dtype)
    absent = np.arange(70) % 3 == 1
    got = arrowcols.numbers(values, arrow_type, absent)
    assert got.equals(pa.array(values, type=arrow_type, mask=absent))
    assert got.null_count == int(absent.sum())
    assert arrowcols.numbers(values, arrow_type).equals(pa.array(values, type=arrow_type))
    assert arrowcols.numbers(values, arrow_type, np.zeros(70, bool)).null_count == 0


def test_numbers_of_a_sliced_column_and_a_wider_type() -> None:
    """A strided view and an int32 column written as int64 (the buffers are made contiguous in the type's dtype)."""
    values = np.arange(40, dtype=np.int32)[::3]
    assert arrowcols.numbers(values, pa.int64()).to_pylist() == values.tolist()


def test_numbers_refuses_a_type_it_does_not_make() -> None:
    with pytest.raises(TypeError, match="integer"):
        arrowcols.numbers(np.zeros(2), pa.float32())


def test_strings_escape_what_utf8_cannot_encode_as_the_text_outputs_do() -> None:
    names = ["Opaque", "", "Op\ud800aque", "\u00e9t\u00e9"]
    got = arrowcols.strings(names)
    assert got.to_pylist() == ["Opaque", "", "Op\\ud800aque", "\u00e9t\u00e9"]
    assert arrowcols.strings([]).to_pylist() == []


def test_dictionary_nulls_negative_codes() -> None:
    got = arrowcols.dictionary(np.array([2, -1, 0, 1, 2], dtype=np.int64), ["a", "b", "c"])
    assert got.to_pylist() == ["c", None, "a", "b", "c"]
    assert got.type == pa.dictionary(pa.int32(), pa.string())


def test_strings_past_what_an_arrow_string_array_holds_is_a_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(arrowcols, "MAX_STRING_BYTES", 10)
    with pytest.raises(ValueError, match="more than an Arrow string array holds"):
        arrowcols.strings(["123456", "789012"])


def test_no_pandas_import() -> None:
    """The point of the module: a Parquet writer's arrays made without pandas being imported (in a fresh process,
    where pandas is installed or not)."""
    code = ("import sys, numpy as np, pyarrow as pa\n"
            "from d3d12wl.output import arrowcols\n"
            "arrowcols.numbers(np.arange(5), pa.uint64(), np.arange(5) == 2)\n"
            "arrowcols.dictionary(np.array([0, -1]), ['x'])\n"
            "print('pandas' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert out.stdout.strip() == "False", out.stderr
