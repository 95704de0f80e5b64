"""Bounded reading of what users hand the tool: a file (or ``-`` for stdin), its UTF-8 text, its JSON.

Every reader here stops at a size limit before reading more, refuses what is not a regular file (a directory, a
FIFO, a device such as ``/dev/zero``) before reading anything, and names the file and why.  JSON is parsed with
bounded depth (a document nested deeper than :data:`MAX_DEPTH` is refused, not recursed into), integers of at
most :data:`MAX_INT_DIGITS` digits, and no ``NaN`` / ``Infinity``.  Callers raise their own error kind
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
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from d3d12wl.errors import D3D12WLError

__all__ = ["MAX_DEPTH", "MAX_INT_DIGITS", "MAX_JSON_BYTES", "MAX_STREAM_BYTES", "STDIN", "InputError", "file_kind",
           "integer", "json_depth", "label", "load_json", "map_bytes", "parse_json", "path_of",
           "paused_cycle_collection", "read_bytes",
           "read_text",
           "schema_validator"]

#: the name that stands for standard input
STDIN = "-"
#: the largest JSON document read (descriptions and captures; bulk bytes belong in region files)
MAX_JSON_BYTES = 1 << 30
#: the deepest nesting of arrays and objects accepted (descriptions and captures nest about 8 deep)
MAX_DEPTH = 64
#: the most digits of a JSON integer (a 64-bit value has 20)
MAX_INT_DIGITS = 40
#: the most bytes of binary data (a readback) read from standard input; a regular file is mapped instead
MAX_STREAM_BYTES = 1 << 30


class InputError(D3D12WLError):
    """A file or document the tool cannot use as it is: ``where`` names the file (and line), the message why."""


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


def read_bytes(source: str | os.PathLike[str], *, limit: int = MAX_JSON_BYTES, what: str = "file") -> bytes:
    """The bytes of a regular file, or of standard input for ``-``, at most ``limit`` of them."""
    name = os.fspath(source)
    if name == STDIN:
        data = sys.stdin.buffer.read(limit + 1)
        if len(data) > limit:
            raise InputError(f"standard input holds more than {limit:,} bytes, the most a {what} may have",
                             where="<stdin>")
        return data
    try:
        info = os.stat(name)
        kind = file_kind(info.st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, not a {what}", where=name)
        if info.st_size > limit:
            raise InputError(f"holds {info.st_size:,} bytes, more than the {limit:,} a {what} may have", where=name)
        with open(name, "rb") as f:
            data = f.read(limit + 1)
    except OSError as exc:
        raise InputError(f"cannot read the {what}: {exc.strerror or exc}", where=name) from None
    if len(data) > limit:  # it grew while being read
        raise InputError(f"holds more than the {limit:,} bytes a {what} may have", where=name)
    return data


def map_bytes(source: str | os.PathLike[str], *, what: str = "file", limit: int = MAX_STREAM_BYTES
              ) -> memoryview | bytes:
    """The bytes of binary data (a readback): a regular file memory-mapped read-only, so a file of gigabytes costs
    only the pages a command reads and is never copied; standard input for ``-``, at most ``limit`` bytes.  What is
    not a regular file is refused before anything is read, as :func:`read_bytes` does."""
    name = os.fspath(source)
    if name == STDIN:
        return read_bytes(source, limit=limit, what=what)
    try:
        info = os.stat(name)
        kind = file_kind(info.st_mode)
        if kind is not None:
            raise InputError(f"is {kind}, not a {what}", where=name)
        if info.st_size == 0:
            return b""
        with open(name, "rb") as f:
            return memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the {what}: {getattr(exc, 'strerror', None) or exc}", where=name) from None


def label(source: str | os.PathLike[str]) -> str:
    """How a message names a source: its path, or ``<stdin>``."""
    return "<stdin>" if os.fspath(source) == STDIN else os.fspath(source)


def read_text(source: str | os.PathLike[str], *, limit: int = MAX_JSON_BYTES, what: str = "file") -> str:
    """The UTF-8 text of a regular file (or stdin for ``-``); text that is not UTF-8 is refused with its offset."""
    data = read_bytes(source, limit=limit, what=what)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        name = label(source)
        raise InputError(f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): a {what} is "
                         "JSON text, and binary data belongs in a region file", where=name) from None


def integer(text: str) -> int:
    """An integer a user typed (an option, a region's VA or size): decimal or ``0x`` hexadecimal, ``_`` between
    digits as Python allows; at most :data:`MAX_INT_DIGITS` digits.  ``ValueError`` saying why otherwise (callers
    raise their own error kind from it)."""
    digits = text.strip().lstrip("+-").removeprefix("0x").removeprefix("0X").replace("_", "")
    if len(digits) > MAX_INT_DIGITS:
        raise ValueError(f"an integer of {len(digits)} digits (at most {MAX_INT_DIGITS}): {text[:20]!r}...")
    try:
        return int(text, 0)
    except ValueError:
        raise ValueError(f"not an integer: {text!r} (decimal or 0x hex)") from None


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


def parse_json(text: str, *, where: str) -> Any:
    """JSON text parsed with the bounds of this module; errors name ``where`` and the line and column."""
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
