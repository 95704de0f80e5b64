"""d3d12wl.output.blockwriter: blocks made on worker threads and written in order on a writer thread are the bytes of
making and writing them in turn; errors of a worker, of the writer and of the caller end the write with every
thread joined."""

from __future__ import annotations

import errno
import os
import random
import threading
import time

import numpy as np
import pytest

from d3d12wl.output.blockwriter import BlockWriter, write_block
from d3d12wl.output.outfiles import output_file
from d3d12wl.output.textrows import RowBuffer, RowFormatter, Value


def _threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith("d3d12wl-")]


def _maker(formatter: RowFormatter, lo: int, hi: int, delay: float):
    def make(buffer: RowBuffer | None) -> memoryview:
        time.sleep(delay)  # (blocks finish out of order)
        return formatter.format({"v": np.arange(lo, hi)}, hi - lo, buffer=buffer)

    return make


@pytest.mark.parametrize("workers,ahead", [(0, None), (1, None), (4, None), (4, 1), (3, 2)])
def test_blocks_and_ready_bytes_are_written_in_the_order_given(workers, ahead):
    formatter = RowFormatter([[Value("v", "sdec"), ","]])
    rng = random.Random(workers)
    want, got = bytearray(), bytearray()
    with BlockWriter(got.extend, workers=workers, ahead=ahead) as w:
        for i in range(60):
            if rng.random() < 0.5:
                text = f"<{i}>".encode() * rng.randrange(1, 5000)  # (some over GATHER: queued on their own)
                w(text)
                want += text
            else:
                lo, hi = rng.randrange(0, 1000), rng.randrange(1000, 3000)
                write_block(w, _maker(formatter, lo, hi, rng.random() / 500))
                want += b"".join(f"{v},".encode() for v in range(lo, hi))
    assert bytes(got) == bytes(want) and not _threads()


def test_a_writer_without_block_makes_blocks_now():
    formatter = RowFormatter([[Value("v"), "\n"]])
    got: list[bytes] = []
    write_block(lambda b: got.append(bytes(b)), _maker(formatter, 3, 6, 0))
    assert got == [b"3\n4\n5\n"]


def test_an_error_of_the_destination_is_raised_in_the_callers_thread():
    """A full disk on the writer thread: the caller gets the OSError (outfiles names the path from it) at its
    next call or at close, nothing more is written, and the threads are joined."""
    formatter = RowFormatter([[Value("v"), "\n"]])
    writes = [0]

    def full(data: object) -> None:
        writes[0] += 1
        if writes[0] == 3:
            raise OSError(errno.ENOSPC, "No space left on device")

    with pytest.raises(OSError) as info:
        with BlockWriter(full, workers=2) as w:
            for i in range(200):
                write_block(w, _maker(formatter, 0, 100, 0.001))
    assert info.value.errno == errno.ENOSPC and writes[0] == 3 and not _threads()


def test_an_exception_of_the_caller_stops_the_writing_and_joins_every_thread():
    formatter = RowFormatter([[Value("v"), "\n"]])
    got = bytearray()
    want = b"".join(f"{v}\n".encode() for v in range(100)) * 40
    with pytest.raises(KeyboardInterrupt):
        with BlockWriter(got.extend, workers=3) as w:
            for _ in range(40):
                write_block(w, _maker(formatter, 0, 100, 0.002))
            raise KeyboardInterrupt
    assert want.startswith(bytes(got)) and not _threads()


def test_a_regular_file_is_written_whole_and_nothing_waits_for_its_disk(tmp_path, monkeypatch):
    """The writer thread writes a regular file on its own descriptor, in order, and leaves its pages to the
    kernel's write-back: no sync, no advice (d3d12wl.output.outfiles says why)."""
    def forbidden(*args: object) -> None:
        raise AssertionError("the writer waited for the disk")

    monkeypatch.setattr(os, "fsync", forbidden)
    monkeypatch.setattr(os, "fdatasync", forbidden, raising=False)  # (not on every platform)
    if hasattr(os, "posix_fadvise"):
        monkeypatch.setattr(os, "posix_fadvise", forbidden)
    formatter = RowFormatter([[Value("v", "hex"), "\n"]])
    path = tmp_path / "out.txt"
    with output_file(path, binary=True) as f, BlockWriter(f.write, workers=2, out=f) as w:
        for lo in range(0, 200_000, 10_000):
            write_block(w, _maker(formatter, lo, lo + 10_000, 0))
    assert path.read_bytes() == b"".join(f"{v:x}\n".encode() for v in range(200_000))
