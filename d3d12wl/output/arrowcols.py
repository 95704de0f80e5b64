"""Arrow arrays from numpy columns, made from their buffers: the one way every Parquet writer builds its columns.
(Every Parquet writer encodes into memory and writes the bytes itself, :mod:`d3d12wl.output.parquet_table`, so an
error of the file, a full disk, is raised as the file raises it, never made into pyarrow's status and back.)

``pyarrow.array`` asks, for every array it converts, whether pandas is installed, and imports pandas to find out:
1.2 s of the 3.7 s that ``exec --format parquet`` of a 1,048,576-draw frame took on the development machine
(pyarrow 26), wherever pandas is installed, for columns that are numpy arrays already.
``pyarrow.Array.from_buffers`` takes the same bytes as they are, and asks nothing.  Callers have imported pyarrow
(each writer's own check says how to install it); this module imports it only inside its functions.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from d3d12wl.output.outfiles import TEXT_ERRORS

#: the most bytes the names of one dictionary may hold in an Arrow ``string`` array (its offsets are int32)
MAX_STRING_BYTES = (1 << 31) - 1
#: values every Parquet writer takes of a column at a time (``write_batch_size``; pyarrow's default is 1,024): the
#: encoder, one thread, is what bounds a Parquet output, and 65,536 encodes the 1 M-draw frame's execution table in
#: 0.20 s instead of 0.24 s (the 2-core machine; the same file, pages still cut at pyarrow's 1 MiB)
PARQUET_WRITE_BATCH = 1 << 16


def _validity(absent: np.ndarray | None) -> tuple[Any, int]:
    """The validity bitmap of a column (``None`` when nothing is absent) and its null count."""
    import pyarrow as pa

    if absent is None:
        return None, 0
    absent = np.asarray(absent, dtype=bool)
    nulls = int(np.count_nonzero(absent))
    if not nulls:
        return None, 0
    return pa.py_buffer(np.packbits(~absent, bitorder="little")), nulls


def numbers(values: np.ndarray, arrow_type: Any, absent: np.ndarray | None = None) -> Any:
    """``values`` as an Arrow array of the integer ``arrow_type`` (the values converted to its numpy dtype, which
    its name spells: ``int32``, ``uint64``), null where ``absent`` is true."""
    import pyarrow as pa

    if not pa.types.is_integer(arrow_type):
        raise TypeError(f"arrowcols.numbers makes integer arrays, not {arrow_type}")
    data = np.ascontiguousarray(values, dtype=np.dtype(str(arrow_type)))
    validity, nulls = _validity(absent)
    return pa.Array.from_buffers(arrow_type, len(data), [validity, pa.py_buffer(data)], null_count=nulls)


def floats(values: np.ndarray, absent: np.ndarray | None = None) -> Any:
    """``values`` as an Arrow float64 array, null where ``absent`` is true."""
    import pyarrow as pa

    data = np.ascontiguousarray(values, dtype=np.float64)
    validity, nulls = _validity(absent)
    return pa.Array.from_buffers(pa.float64(), len(data), [validity, pa.py_buffer(data)], null_count=nulls)


def strings(names: Sequence[str]) -> Any:
    """``names`` as an Arrow ``string`` array: UTF-8, with what UTF-8 cannot encode (a lone surrogate a JSON name
    may hold) escaped as the text outputs write it (:data:`d3d12wl.output.outfiles.TEXT_ERRORS`)."""
    import pyarrow as pa

    encoded = [name.encode("utf-8", TEXT_ERRORS) for name in names]
    ends = np.cumsum(np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded)))
    if len(ends) and ends[-1] > MAX_STRING_BYTES:
        raise ValueError(f"{len(encoded)} names of {int(ends[-1]):,} bytes: more than an Arrow string array holds "
                         f"({MAX_STRING_BYTES:,})")
    offsets = np.zeros(len(encoded) + 1, dtype=np.int32)
    offsets[1:] = ends
    return pa.Array.from_buffers(pa.string(), len(encoded),
                                 [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))])


def dictionary(codes: np.ndarray, names: Sequence[str]) -> Any:
    """Codes into ``names`` as an Arrow dictionary array (int32 indices, :func:`strings` values), null where a
    code is negative."""
    import pyarrow as pa

    indices = np.ascontiguousarray(codes, dtype=np.int32)
    return pa.DictionaryArray.from_arrays(numbers(indices, pa.int32(), indices < 0), strings(names))
