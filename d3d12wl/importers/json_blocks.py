"""The blocks of a large JSON document another tool wrote, one at a time: a top-level JSON array of objects
(``[{...},{...}]``) or JSON lines (one object after another), as ``gfxrecon-convert`` writes with ``--format json``
and ``--format jsonl``.

A capture's convert JSON runs to gigabytes, so the document is never parsed whole: the file is memory-mapped and
scanned :data:`CHUNK` bytes at a time in columns (numpy: the quotes that open and close strings, then the brackets
outside strings and the nesting depth they make), which finds where each top-level object starts and ends; a
caller looks at a block's bytes (:meth:`Block.peek`) before it pays for parsing it (:meth:`Block.parse`, through
:func:`d3d12wl.inputs.parse_json` and its bounds).  Bounded: a block of more than ``max_block`` bytes, anything
but objects (and the array's commas) at the top level, or bytes after the document's end are an
:class:`~d3d12wl.importers.errors.ImportInputError` naming the file, the line and the byte.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from d3d12wl import inputs
from d3d12wl.importers.errors import ImportInputError

__all__ = ["CHUNK", "MAX_BLOCK_BYTES", "MAX_DOCUMENT_BYTES", "Block", "blocks", "first_block"]

#: bytes scanned at a time (each costs a few int32 columns of its length)
CHUNK = 1 << 21
#: the largest one block may be (a block is one API call; its arrays of bytes are what make one large)
MAX_BLOCK_BYTES = 1 << 28
#: the largest document read (it is mapped, never held; a frame's convert JSON is gigabytes)
MAX_DOCUMENT_BYTES = 1 << 40

_QUOTE, _BACKSLASH = ord('"'), ord("\\")
_OPEN = (ord("{"), ord("["))
_CLOSE = (ord("}"), ord("]"))
_SPACE = np.zeros(256, dtype=bool)
_SPACE[[ord(" "), ord("\t"), ord("\n"), ord("\r")]] = True


@dataclass(frozen=True)
class Block:
    """One top-level object: its ordinal in the document and its bytes ``[start, end)``."""

    data: Any  # the mapped document
    ordinal: int
    start: int
    end: int
    source: str

    @property
    def where(self) -> str:
        """``file:line`` of the block's first byte (counted when asked for: for a message)."""
        return f"{self.source}:{_line(self.data, self.start)}"

    def peek(self, pattern: re.Pattern[bytes], limit: int = 512) -> re.Match[bytes] | None:
        """``pattern`` searched in the block's first ``limit`` bytes (a call's name comes first)."""
        return pattern.search(self.data, self.start, min(self.end, self.start + limit))

    def match(self, pattern: re.Pattern[bytes], limit: int = 512) -> re.Match[bytes] | None:
        """``pattern`` matched at the block's first byte, within its first ``limit`` bytes."""
        return pattern.match(self.data, self.start, min(self.end, self.start + limit))

    def parse(self) -> Any:
        """The block as parsed JSON (bounded as every document is: :func:`d3d12wl.inputs.parse_json`)."""
        raw = bytes(self.data[self.start:self.end])
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ImportInputError(f"not UTF-8 text (byte 0x{raw[exc.start]:02x} at offset {self.start + exc.start})",
                                   where=self.where) from None
        cheap = f"{self.source}@{self.start}"  # (the block's line is counted only for a message)
        try:
            return inputs.parse_json(text, where=cheap)
        except inputs.InputError as exc:
            where = exc.where or cheap
            if where.startswith(cheap):  # "file@byte:line:column" of the block -> "file:line:column" of the file
                rest = where[len(cheap):].lstrip(":").split(":")
                line = _line(self.data, self.start) + (int(rest[0]) - 1 if rest[0].isdigit() else 0)
                where = f"{self.source}:{line}" + (f":{rest[1]}" if len(rest) > 1 else "")
            raise ImportInputError(exc.message, where=where) from None


def _line(data: Any, offset: int) -> int:
    return int(bytes(data[:offset]).count(b"\n")) + 1 if offset < (1 << 26) else _line_chunked(data, offset)


def _line_chunked(data: Any, offset: int) -> int:
    return 1 + sum(bytes(data[i:min(i + CHUNK, offset)]).count(b"\n") for i in range(0, offset, CHUNK))


def blocks(source: str | os.PathLike[str], *, what: str = "JSON document", max_block: int = MAX_BLOCK_BYTES,
           chunk: int = CHUNK) -> Iterator[Block]:
    """The top-level objects of the JSON array or JSON lines in ``source``, in order (see the module docstring)."""
    name = inputs.label(source)
    data = inputs.map_bytes(source, what=what, limit=MAX_DOCUMENT_BYTES)
    scanner = _Scanner(data, name, max_block)
    for at in range(0, len(data), chunk):
        yield from scanner.scan(at, min(len(data), at + chunk))
    scanner.finish()


def first_block(head: bytes, source: str) -> Block | None:
    """The first top-level object of a JSON array or JSON lines whose first bytes are ``head`` (what a reader that
    looks only at a file's head has), or None where it does not end within them or they are no such document."""
    try:
        return next(_Scanner(head, source, len(head)).scan(0, len(head)), None)
    except ImportInputError:
        return None


class _Scanner:
    """The scan's state between chunks: inside a string or not, a backslash run's parity at the chunk's end, the
    nesting depth, where the open block started."""

    def __init__(self, data: Any, source: str, max_block: int) -> None:
        self.data = data
        self.source = source
        self.max_block = max_block
        self.inside = False
        self.escaped = False  # the chunk before ended in an odd run of backslashes (inside a string)
        self.depth = 0
        self.base: int | None = None  # 1 in a top-level array, 0 for JSON lines; None before the first byte
        self.ended = False  # the array's closing bracket was read
        self.block_start: int | None = None
        self.ordinal = 0
        self.commas = 0  # commas since the last block ended (in an array)

    def fail(self, message: str, offset: int) -> ImportInputError:
        return ImportInputError(f"{message} (byte {offset})", where=f"{self.source}:{_line(self.data, offset)}")

    def scan(self, lo: int, hi: int) -> Iterator[Block]:
        a = np.frombuffer(self.data, dtype=np.uint8, count=hi - lo, offset=lo)
        if self.base is None:
            first = np.flatnonzero(~_SPACE[a])
            if not len(first):
                return
            i = int(first[0])
            if a[i] == _OPEN[1]:
                self.base = 1
            elif a[i] == _OPEN[0]:
                self.base = 0
            else:
                raise self.fail("not a JSON array of objects or JSON lines of objects: it starts with "
                                f"{bytes(a[i:i + 20])!r}", lo + i)
        quotes = self._toggles(a)
        mark = np.zeros(len(a), dtype=np.int32)
        mark[quotes] = 1
        outside = ((np.cumsum(mark, dtype=np.int32) - mark + int(self.inside)) & 1) == 0  # before each byte
        outside[quotes] = False
        opens = outside & ((a == _OPEN[0]) | (a == _OPEN[1]))
        closes = outside & ((a == _CLOSE[0]) | (a == _CLOSE[1]))
        step = opens.astype(np.int32) - closes.astype(np.int32)
        after = np.cumsum(step, dtype=np.int32) + np.int32(self.depth)
        before = after - step
        base = self.base
        # bytes at the top level (outside every block): whitespace, the array's brackets and commas only
        top = (before <= base) & (after <= base)
        top_quotes = quotes[before[quotes] <= base] if len(quotes) else quotes
        if len(top_quotes):
            raise self.fail("a string at the top level: only objects are read here", lo + int(top_quotes[0]))
        stray = np.flatnonzero(top & ~_SPACE[a] & ~opens & ~closes)
        starts = np.flatnonzero(opens & (before == base))
        ends = np.flatnonzero(closes & (after == base))
        negative = np.flatnonzero(after < 0)
        events = sorted([(int(i), 0) for i in starts] + [(int(i), 1) for i in ends] + [(int(i), 2) for i in stray]
                        + [(int(i), 3) for i in negative[:1]]
                        + ([(int(i), 4) for i in np.flatnonzero(closes & (after == base - 1))[:1]] if base else []))
        for i, kind in events:
            at = lo + i
            if self.ended:
                raise self.fail("bytes after the end of the JSON array", at)
            if kind == 3:
                raise self.fail("a closing bracket that closes nothing", at)
            if kind == 4:  # the array's own ]
                if self.block_start is not None:
                    raise self.fail("the array ends inside a block", at)
                self.ended = True
                continue
            if kind == 2:
                if base and a[i] == ord(",") and self.commas == 0 and self.ordinal:
                    self.commas = 1
                    continue
                raise self.fail(f"{bytes(a[i:i + 1])!r} at the top level: only objects"
                                + (" separated by single commas" if base else " one after another") + " are read here",
                                at)
            if kind == 0:
                if base and self.ordinal and self.commas != 1:
                    raise self.fail("two blocks without a comma between them", at)
                if a[i] != _OPEN[0]:
                    raise self.fail("an array at the top level: only objects are read here", at)
                self.block_start = at
                continue
            assert self.block_start is not None
            yield Block(self.data, self.ordinal, self.block_start, at + 1, self.source)
            self.ordinal += 1
            self.commas = 0
            self.block_start = None
        if self.block_start is not None and hi - self.block_start > self.max_block:
            raise self.fail(f"a block of more than {self.max_block:,} bytes, the most one may have", self.block_start)
        self.depth = int(after[-1]) if len(after) else self.depth
        self.inside = bool((self.inside + len(quotes)) % 2)

    def _toggles(self, a: np.ndarray) -> np.ndarray:
        """The indices of the quotes that open or close a string: a quote preceded by an even run of backslashes
        (the run may continue from the chunk before)."""
        quotes = np.flatnonzero(a == _QUOTE)
        if not len(quotes):
            backslashes = np.flatnonzero(a != _BACKSLASH)
            run = len(a) - 1 - int(backslashes[-1]) if len(backslashes) else len(a) + self.escaped
            self.escaped = bool(run % 2) if len(backslashes) else bool((self.escaped + len(a)) % 2)
            return quotes
        positions = np.arange(len(a))
        last = np.maximum.accumulate(np.where(a != _BACKSLASH, positions, -1))  # the last non-backslash up to i
        before = quotes - 1
        last_before = np.where(before >= 0, last[np.maximum(before, 0)], -1)
        runs = before - last_before + np.where(last_before < 0, int(self.escaped), 0)
        end_last = int(last[-1])
        self.escaped = bool(((len(a) - 1 - end_last) + (int(self.escaped) if end_last < 0 else 0)) % 2)
        return quotes[runs % 2 == 0]

    def finish(self) -> None:
        if self.block_start is not None:
            raise self.fail("the document ends inside a block", self.block_start)
        if self.base == 1 and not self.ended:
            raise self.fail("the JSON array is not closed", len(self.data))
        if self.base and self.commas:
            raise self.fail("a comma after the last block", len(self.data))
