"""The output stage's column model (d3d12wl.output.table): a table's chunks joined and cut to the rows an encoder
writes at a time (``joined_chunks``: the execution table's runs into chunks of ``CHUNK_ROWS``) keep every row, its
absent flags and the names its codes index."""

from __future__ import annotations

import numpy as np
import pytest

from d3d12wl.output.table import TableChunk, joined_chunks


def _chunk(start: int, n: int) -> TableChunk:
    k = np.arange(start, start + n, dtype=np.int64)
    return TableChunk(n, {"index": k, "code": (k % 3).astype(np.int32)}, {"index": k % 5 == 0})


def test_chunks_are_joined_and_cut_with_every_row_and_its_absent_flags() -> None:
    sizes = [3, 0, 7, 1, 10, 2]
    starts = np.cumsum([0, *sizes[:-1]]).tolist()
    got = list(joined_chunks((_chunk(s, n) for s, n in zip(starts, sizes, strict=True)), 4))
    assert [c.n for c in got] == [4, 4, 4, 4, 4, 3]  # (none empty, the last the rest)
    index = np.concatenate([c.values["index"] for c in got])
    assert index.tolist() == list(range(sum(sizes)))
    assert np.concatenate([c.absent["index"] for c in got]).tolist() == (index % 5 == 0).tolist()
    assert np.concatenate([c.values["code"] for c in got]).tolist() == (index % 3).tolist()


def test_a_chunk_with_names_of_its_own_is_cut_with_them() -> None:
    """A chunk whose codes index names of its own (the verdict table's) keeps them in every piece it is cut into:
    without them an encoder would read its codes against the table's names."""
    chunk = _chunk(0, 10)
    chunk.names["code"] = ["zero", "one", "two"]
    got = list(joined_chunks([chunk], 4))
    assert [c.n for c in got] == [4, 4, 2]
    assert all(c.names == {"code": ["zero", "one", "two"]} for c in got)
    assert [c.values["index"][0] for c in got] == [0, 4, 8]


def test_chunks_with_names_of_their_own_are_not_joined() -> None:
    named = _chunk(0, 3)
    named.names["code"] = ["zero", "one", "two"]
    with pytest.raises(AssertionError, match="not joined"):
        list(joined_chunks([named, _chunk(3, 3)], 4))
