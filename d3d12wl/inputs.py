"""Bounded reading of what users hand the tool: a file (or ``-`` for stdin), its UTF-8 text, its JSON.

One rule for every input: it is bounded before it is held.  A regular file is memory-mapped, never copied whole;
standard input, and a pseudo-file whose size reads 0 but that holds bytes (``/proc``), is read
:data:`CHUNK_BYTES` at a time into an unlinked temporary file against its size limit and refused at the chunk that
passes it, so an endless stream costs one chunk of memory.  What is not a regular file (a directory, a FIFO, a
device such as ``/dev/zero``) is refused before anything is read, and every OS error on a path names it.  JSON
text holding a NUL byte (a sparse or binary file) is refused at that byte, before any text is made; JSON is
bounded by what it would make (at most :data:`MAX_JSON_CONTAINERS` arrays and objects and :data:`MAX_JSON_ITEMS`
members and elements, :func:`check_structure`), by depth (a document nested deeper than :data:`MAX_DEPTH` is
refused, not recursed into), integers of at most :data:`MAX_INT_DIGITS` digits, and no ``NaN`` / ``Infinity``.
An integer a user types is ASCII digits (:func:`integer`).  Callers raise their own error kind
(``DescriptionError``, ``CaptureError``) from the :class:`InputError` these raise, with the member path they know.

:func:`schema_validator` gives the JSON Schema validator every schema of the package is checked with: its
``integer`` is a JSON number written without a fraction or exponent (``1.0`` and ``-0.0`` are not integers,
whatever Draft 2020-12 allows), so what passes the schema is an int everywhere after it.
"""

from __future__ import annotations

import gc
import json
import math
import mmap
import os
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from d3d12wl.errors import D3D12WLError

__all__ = ["CHUNK_BYTES", "MAX_DEPTH", "MAX_INT_DIGITS", "MAX_JSON_BYTES", "MAX_JSON_CONTAINERS", "MAX_JSON_ITEMS",
           "MAX_STREAM_BYTES", "STDIN", "FileRead", "InputError", "check_structure", "file_kind", "files_read",
           "given_once", "integer", "json_depth", "label", "load_json", "map_bytes", "note_read", "parse_json",
           "path_kind", "path_of", "paused_cycle_collection", "read_bytes", "read_text", "recording",
           "schema_validator"]

#: the name that stands for standard input
STDIN = "-"
#: the largest JSON document read (descriptions and captures; bulk bytes belong in region files)
MAX_JSON_BYTES = 1 << 30
#: the deepest nesting of arrays and objects accepted (descriptions and captures nest about 8 deep)
MAX_DEPTH = 64
#: the most digits of a JSON integer (a 64-bit value has 20)
MAX_INT_DIGITS = 40
#: the most arrays and objects one JSON document may make: each is a Python container of 56 bytes or more, so
#: text such as ``[{},{},...]`` would make about 24 bytes of memory per byte (the million-argument description
#: of tools/bench_description.py makes 4,000,034)
MAX_JSON_CONTAINERS = 1 << 23
#: the most members and elements one JSON document may hold, counted by the commas between them (that
#: description has 9,000,050; a capture of 200 MB of hex lines 2 million)
MAX_JSON_ITEMS = 1 << 25
#: the most bytes of binary data (a readback) read from standard input; a regular file is mapped instead
MAX_STREAM_BYTES = 1 << 30
#: bytes read from a stream (standard input, a pseudo-file) at a time: a stream is refused at its limit having
#: held at most this much of it
CHUNK_BYTES = 1 << 22


class InputError(D3D12WLError):
    """A file or document the tool cannot use as it is: ``where`` names the file (and line), the message why."""


@dataclass(frozen=True)
class FileRead:
    """A regular file a command read: what it was read as, the name it was given by and its real path."""

    what: str
    shown: str
    real: str


#: the files read in the running command, by (st_dev, st_ino), while :func:`recording` (None: nothing is recorded)
_READ: ContextVar[dict[tuple[int, int], FileRead] | None] = ContextVar("d3d12wl_files_read", default=None)


@contextmanager
def recording() -> Iterator[dict[tuple[int, int], FileRead]]:
    """Inside: every regular file read through this module, every region file a capture maps and every
    validators file, is recorded (:func:`files_read`), so that the output stage can refuse to write over one of
    them (:mod:`d3d12wl.output.claims`, issue 42).  A command line runs one command inside it; nothing is recorded
    outside."""
    token = _READ.set({})
    try:
        yield _READ.get() or {}
    finally:
        _READ.reset(token)


def files_read() -> dict[tuple[int, int], FileRead]:
    """The files read so far in the running command (empty outside :func:`recording`)."""
    return dict(_READ.get() or {})


def note_read(source: str | os.PathLike[str] | int, what: str, shown: str | None = None) -> None:
    """Record that the running command reads ``source`` (a path, or an open descriptor and ``shown``, the name it
    was opened by) as ``what``; only a regular file is recorded (standard input redirected from a file is one)."""
    read = _READ.get()
    if read is None:
        return
    try:
        info = os.fstat(source) if isinstance(source, int) else os.stat(source)
    except (OSError, ValueError):
        return
    if stat.S_ISREG(info.st_mode):
        name = shown if shown is not None else os.fspath(source)  # type: ignore[arg-type]
        real = os.path.realpath(name) if name != STDIN else ""
        read.setdefault((info.st_dev, info.st_ino), FileRead(what, "standard input" if name == STDIN else name, real))


def file_kind(mode: int) -> str | None:
    """None for a regular file, else what it is (``a directory``, ``a FIFO``, ``a device``, ...)."""
    if stat.S_ISREG(mode):
        return None
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _regular(name: str, what: str) -> os.stat_result:
    """``os.stat`` of a file to read: what is not a regular file, and every OS error (a missing file, a name too
    long, a symlink loop, a permission), is an :class:`InputError` naming it."""
    try:
        info = os.stat(name)
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", where=name) from None
    kind = file_kind(info.st_mode)
    if kind is not None:
        raise InputError(f"is {kind}, not a {what}", where=name)
    return info


def _too_big(limit: int, what: str, where: str) -> InputError:
    return InputError(f"holds more than {limit:,} bytes, the most a {what} may have", where=where)


def _nul(chunk: bytes | mmap.mmap, at: int, what: str, where: str) -> None:
    """A NUL byte is never in JSON text (not even inside a string): refused where it is, before more is read."""
    i = chunk.find(b"\0")
    if i >= 0:
        raise InputError(f"holds a NUL byte at offset {at + i}: a {what} is JSON text, and binary data belongs in a "
                         "region file", where=where)


def _spool(read: Callable[[int], bytes], *, limit: int, what: str, where: str, text: bool) -> mmap.mmap | bytes:
    """A stream (standard input, a pseudo-file whose size reads 0) read :data:`CHUNK_BYTES` at a time into an
    unlinked temporary file, then mapped: the bytes are never held in memory, and a stream past ``limit`` is
    refused at the chunk that passes it (JSON text also at its first NUL byte)."""
    total = 0
    try:
        with tempfile.TemporaryFile(prefix="d3d12wl-stream-") as spool:
            while chunk := read(CHUNK_BYTES):
                if text:
                    _nul(chunk, total, what, where)
                total += len(chunk)
                if total > limit:
                    raise _too_big(limit, what, where)
                spool.write(chunk)
            if not total:
                return b""
            spool.flush()
            return mmap.mmap(spool.fileno(), 0, access=mmap.ACCESS_READ)
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", where=where) from None


def _stdin_file() -> int | None:
    """Standard input's descriptor when it is a regular file read from its start (``< file``: mapped in place),
    else None (a pipe, a terminal, or a replaced ``sys.stdin``)."""
    try:
        fd = sys.stdin.fileno()
        if stat.S_ISREG(os.fstat(fd).st_mode) and os.lseek(fd, 0, os.SEEK_CUR) == 0:
            return fd
    except (AttributeError, OSError, ValueError):
        pass
    return None


def _acquire(source: str | os.PathLike[str], *, limit: int, what: str, text: bool) -> mmap.mmap | bytes:
    """The bytes of a regular file or of standard input (``-``), mapped read-only (``b""`` when there are none).

    A regular file is mapped as it is (never copied); one whose size reads 0 but that holds bytes (a pseudo-file of
    ``/proc``) or that cannot be mapped is read as a stream, as standard input is: in chunks against ``limit``
    (:func:`_spool`).  What is not a regular file is refused before anything is read."""
    name = os.fspath(source)
    where = label(source)
    if name == STDIN:
        fd = _stdin_file()
        if fd is not None:
            note_read(fd, what, STDIN)
        if fd is None:
            return _spool(sys.stdin.buffer.read, limit=limit, what=what, where=where, text=text)
        return _map_fd(fd, limit, what, where, lambda: _spool(sys.stdin.buffer.read, limit=limit, what=what,
                                                              where=where, text=text))
    _regular(name, what)
    try:
        # O_NONBLOCK: a path swapped for a FIFO after the check above must not make the open wait for a writer
        with open(os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0)), "rb") as f:
            kind = file_kind(os.fstat(f.fileno()).st_mode)
            if kind is not None:
                raise InputError(f"is {kind}, not a {what}", where=name)
            note_read(f.fileno(), what, name)
            return _map_fd(f.fileno(), limit, what, where,
                           lambda: _spool(f.read, limit=limit, what=what, where=where, text=text))
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", where=where) from None


def _map_fd(fd: int, limit: int, what: str, where: str, stream: Callable[[], mmap.mmap | bytes]
            ) -> mmap.mmap | bytes:
    size = os.fstat(fd).st_size
    if size > limit:
        raise InputError(f"holds {size:,} bytes, more than the {limit:,} a {what} may have", where=where)
    if size == 0:
        return stream()
    try:
        return mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # a file system that maps nothing (some pseudo-files): read it as a stream
        return stream()


def read_bytes(source: str | os.PathLike[str], *, limit: int = MAX_JSON_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file, or of standard input for ``-``, at most ``limit`` of them (a copy: for data of
    any size use :func:`map_bytes`)."""
    data = _acquire(source, limit=limit, what=what, text=False)
    out = bytes(data)
    if isinstance(data, mmap.mmap):
        data.close()
    return out


def map_bytes(source: str | os.PathLike[str], *, what: str = "file", limit: int = MAX_STREAM_BYTES
              ) -> memoryview | bytes:
    """The bytes of binary data (a readback): a regular file memory-mapped read-only, so a file of gigabytes costs
    only the pages a command reads and is never copied; standard input (``-``) or a pseudo-file read in chunks
    into an unlinked temporary file and mapped the same way, at most ``limit`` bytes.  What is not a regular file
    is refused before anything is read."""
    data = _acquire(source, limit=limit, what=what, text=False)
    return memoryview(data) if isinstance(data, mmap.mmap) else data


def label(source: str | os.PathLike[str]) -> str:
    """How a message names a source: its path, or ``<stdin>``."""
    return "<stdin>" if os.fspath(source) == STDIN else os.fspath(source)


def read_text(source: str | os.PathLike[str], *, limit: int = MAX_JSON_BYTES, what: str = "file") -> str:
    """The UTF-8 text of a regular file (or stdin for ``-``); text that is not UTF-8, or that holds a NUL byte
    (never JSON: a sparse or binary file), is refused with its offset, before the text is made."""
    data = _acquire(source, limit=limit, what=what, text=True)
    name = label(source)
    try:
        _nul(data, 0, what, name)
        try:
            return str(data, "utf-8")
        except UnicodeDecodeError as exc:
            raise InputError(f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): a {what} is "
                             "JSON text, and binary data belongs in a region file", where=name) from None
    finally:
        if isinstance(data, mmap.mmap):
            data.close()


def path_kind(path: str | os.PathLike[str], *, where: str | None = None) -> str | None:
    """What a path a user gave names: ``"a regular file"``, ``"a directory"`` (or another :func:`file_kind`), or
    None when nothing is there (a missing name, or a folder on the way that is a file).  Any other OS error (a name
    too long, a symlink loop, a permission) is an :class:`InputError` naming ``where`` (default: the path)."""
    try:
        info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except (OSError, ValueError) as exc:  # (ValueError: an embedded NUL)
        shown = "it" if where is None else repr(os.fspath(path))
        raise InputError(f"cannot use {shown}: {getattr(exc, 'strerror', None) or exc}",
                         where=where or os.fspath(path)) from None
    return file_kind(info.st_mode) or "a regular file"


def integer(text: str) -> int:
    """An integer a user typed (an option, a region's VA or size): decimal or ``0x`` hexadecimal in ASCII digits
    (Python's ``int`` also takes other scripts' digits: ``"\uff11\uff12\uff13"``, full-width 123, is refused
    here), ``_`` between digits as Python allows; at most :data:`MAX_INT_DIGITS` digits.  ``ValueError`` saying why
    otherwise (callers raise their own error kind from it)."""
    if not text.isascii():
        raise ValueError(f"not an integer: {text[:40]!r} (ASCII digits only: decimal or 0x hex)")
    digits = text.strip().lstrip("+-").removeprefix("0x").removeprefix("0X").replace("_", "")
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(digits)} digits (at most {MAX_INT_DIGITS}): {text[:20]!r}...")
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"not an integer: {text!r} (decimal or 0x hex)") from None


def given_once(seen: dict[Any, tuple[Any, str]], key: Any, value: Any, text: str, *, flag: str, what: str) -> None:
    """One use of a repeated flag that names a thing (``--descriptor-heap TYPE=...``, ``--root-arg P=...``): record
    that ``text`` gives ``key`` (normalized by the caller: the enum member, not its spelling) the value ``value`` in
    ``seen``; an earlier use that gave it another value is an :class:`InputError` naming both uses (``what`` names
    the thing).  The same value twice is the same thing said twice, and is kept (issue 42, class 5)."""
    before = seen.get(key)
    if before is not None and before[0] != value:
        raise InputError(f"{flag} {before[1]} and {flag} {text} give {what} two different values: give it once",
                         where=flag)
    seen[key] = (value, text)


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(text.lstrip('-'))} digits (at most {MAX_INT_DIGITS})")
    return int(text)


def _no_constant(name: str) -> float:
    raise ValueError(f"{name} is not JSON")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):  # 1e999: JSON's grammar allows it, but no float holds it
        raise ValueError(f"the number {text[:40]} is out of a double's range")
    return value


def json_depth(value: Any, limit: int = MAX_DEPTH) -> int:
    """The nesting depth of parsed JSON (a scalar is 0), level by level without recursion; stops past ``limit``."""
    depth, level = 0, [value] if type(value) in _CONTAINERS else []
    while level:
        depth += 1
        if depth > limit:
            return depth
        below: list[Any] = []
        add = below.append
        for item in level:
            for c in item.values() if type(item) is dict else item:  # (a plain loop: no list per container)
                if type(c) in _CONTAINERS:
                    add(c)
        level = below
    return depth


_CONTAINERS = frozenset({dict, list})
#: the least integer with more than MAX_INT_DIGITS digits
_TOO_LONG = 10 ** MAX_INT_DIGITS


def _shape(value: Any, limit: int = MAX_DEPTH) -> tuple[int, bool]:
    """(:func:`json_depth`, whether an integer anywhere in ``value`` has more than MAX_INT_DIGITS digits), in one
    walk; the depth stops past ``limit`` (and then the integers below are not looked at)."""
    kind = type(value)
    long_integer = kind is int and not -_TOO_LONG < value < _TOO_LONG
    depth, level = 0, [value] if kind in _CONTAINERS else []
    while level:
        depth += 1
        if depth > limit:
            return depth, long_integer
        below: list[Any] = []
        add = below.append
        for item in level:
            for c in item.values() if type(item) is dict else item:
                kind = type(c)
                if kind in _CONTAINERS:
                    add(c)
                elif kind is int and not -_TOO_LONG < c < _TOO_LONG:
                    long_integer = True
        level = below
    return depth, long_integer


@contextmanager
def paused_cycle_collection() -> Iterator[None]:
    """Python's cycle collector paused for the block (and resumed after it if it was running), around work that
    makes many containers and no reference cycles (parsing JSON, loading a description from it).  Left running, the
    collector re-walks every container made so far each time the allocations pass its thresholds and finds nothing:
    about 40% of reading and loading a description of 100,000 arguments.  Objects are still freed by reference
    counting as usual."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _outside_strings(text: str) -> tuple[int, int]:
    """The ``{`` and ``[`` (together) and the commas of JSON text that are not inside a string, counted a chunk at
    a time with numpy: a quote opens or closes a string unless an odd run of backslashes precedes it."""
    import numpy as np

    containers = commas = 0
    inside, run = 0, 0  # whether the chunk starts inside a string; backslashes ending the chunk before
    step = 1 << 20
    for i in range(0, len(text), step):
        a = np.frombuffer(text[i:i + step].encode("utf-8", "surrogatepass"), dtype=np.uint8)
        positions = np.arange(a.size)
        last = np.maximum.accumulate(np.where(a != 0x5C, positions, -1))  # the last non-backslash up to each byte
        quotes = np.flatnonzero(a == 0x22)
        before = quotes - 1
        last_before = np.where(before >= 0, last[np.maximum(before, 0)], -1)
        runs = before - last_before + np.where(last_before < 0, run, 0)
        toggles = quotes[runs % 2 == 0]
        for chars, is_container in ((np.flatnonzero((a == 0x7B) | (a == 0x5B)), True),
                                    (np.flatnonzero(a == 0x2C), False)):
            outside = int(np.count_nonzero((inside + np.searchsorted(toggles, chars, side="right")) % 2 == 0))
            if is_container:
                containers += outside
            else:
                commas += outside
        inside = (inside + toggles.size) % 2
        end = a.size - 1
        run = (end - int(last[end]) + (run if last[end] < 0 else 0)) if a.size else run
    return containers, commas


def check_structure(text: str, *, where: str) -> None:
    """Refuse, before it is parsed, JSON text that would make more than :data:`MAX_JSON_CONTAINERS` arrays and
    objects or hold more than :data:`MAX_JSON_ITEMS` members and elements: bounded by what it would make, not only
    by its bytes and depth.  Text shorter than both bounds cannot exceed them and is not counted; otherwise the
    brackets and commas are counted (in C), and counted again outside strings only when that count is over."""
    if len(text) <= min(MAX_JSON_CONTAINERS, MAX_JSON_ITEMS):
        return
    containers, commas = text.count("{") + text.count("["), text.count(",")
    if containers <= MAX_JSON_CONTAINERS and commas <= MAX_JSON_ITEMS:
        return
    containers, commas = _outside_strings(text)
    if containers > MAX_JSON_CONTAINERS:
        raise InputError(f"JSON of {containers:,} arrays and objects, more than the {MAX_JSON_CONTAINERS:,} a "
                         "document may have", where=where)
    if commas > MAX_JSON_ITEMS:
        raise InputError(f"JSON of more than {commas:,} members and elements, more than the {MAX_JSON_ITEMS:,} a "
                         "document may have", where=where)


def parse_json(text: str, *, where: str) -> Any:
    """JSON text parsed with the bounds of this module; errors name ``where`` and the line and column."""
    check_structure(text, where=where)
    # The digit bound as a parse hook costs a Python call per integer (a third of the parse of a large description),
    # so a text is first parsed without it and its integers checked in the walk that measures its depth; anything
    # that is not plainly within the bounds (a long integer, a deep nesting, any error) is parsed again the bounded
    # way, which says what is wrong exactly as it always has.
    try:
        with paused_cycle_collection():
            value = json.loads(text, parse_float=_parse_float, parse_constant=_no_constant)
            depth, long_integer = _shape(value)
        if depth <= MAX_DEPTH and not long_integer:
            return value
    except (ValueError, RecursionError):
        pass
    return _parse_bounded(text, where)


def _parse_bounded(text: str, where: str) -> Any:
    try:
        with paused_cycle_collection():
            value = json.loads(text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON: {exc.msg}", where=f"{where}:{exc.lineno}:{exc.colno}") from None
    except RecursionError:
        raise InputError(f"JSON nested more deeply than the {MAX_DEPTH} levels a document may have",
                         where=where) from None
    except ValueError as exc:  # from the hooks: a huge integer, NaN or Infinity
        raise InputError(f"not usable JSON: {exc}", where=where) from None
    with paused_cycle_collection():
        depth = json_depth(value)
    if depth > MAX_DEPTH:
        raise InputError(f"JSON nested more deeply than the {MAX_DEPTH} levels a document may have", where=where)
    return value


def load_json(source: str | os.PathLike[str], *, what: str = "file", limit: int = MAX_JSON_BYTES) -> Any:
    """The JSON document of a file (or stdin for ``-``), read and parsed within the bounds of this module."""
    name = label(source)
    return parse_json(read_text(source, limit=limit, what=what), where=name)


def _is_json_integer(checker: Any, instance: Any) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


def schema_validator(schema: dict[str, Any], **kwargs: Any) -> Any:
    """A Draft 2020-12 validator of ``schema`` whose ``integer`` is a JSON integer (see the module docstring)."""
    import jsonschema

    base = jsonschema.Draft202012Validator
    cls = jsonschema.validators.extend(base, type_checker=base.TYPE_CHECKER.redefine("integer", _is_json_integer))
    return cls(schema, **kwargs)


def path_of(source: str | os.PathLike[str]) -> Path | None:
    """The file a source names (None for stdin)."""
    return None if os.fspath(source) == STDIN else Path(source)
