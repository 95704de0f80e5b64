"""Reading the files a command is given: one place for every command, with ``-`` for stdin.

Every read is bounded.  A file that is not what the command expects is an :class:`InputError` naming the file (exit
2), after at most a bounded read: a directory, a missing or unreadable file, binary bytes where JSON is expected
(the first NUL byte or bytes that are not UTF-8), a stream (FIFO, character device such as ``/dev/zero``, stdin)
that does not end within the limit, a character or block device (`/dev/zero`, a terminal), an empty file.  Regular binary files are memory-mapped, never read whole, so a
readback of gigabytes costs only the pages a command touches.
"""

from __future__ import annotations

import json
import mmap
import os
import stat
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from d3d12wl.errors import CaptureError, D3D12WLError

if TYPE_CHECKING:
    from d3d12wl.capture.file import Capture
    from d3d12wl.model.objects import ObjectSet

__all__ = ["InputError", "MAX_JSON_BYTES", "MAX_STREAM_BYTES", "STDIN", "label", "load_capture",
           "load_description", "local_file", "read_binary", "read_json", "read_text"]

#: the name that means stdin
STDIN = "-"
#: a JSON document (a description, a capture, a state file) is at most this large
MAX_JSON_BYTES = 256 << 20
#: bytes read from a stream (stdin, a FIFO, a character device) at most; regular files are mapped, not read
MAX_STREAM_BYTES = 256 << 20
_CHUNK = 1 << 20


class InputError(D3D12WLError):
    """A file given to a command cannot be used as what the command expects; ``where`` names the file (and the
    argument or flag it was given to)."""


def label(name: str | os.PathLike[str]) -> str:
    return "<stdin>" if str(name) == STDIN else str(name)


def _where(name: str | os.PathLike[str], flag: str | None) -> str:
    return f"{label(name)} ({flag})" if flag else label(name)


def _check_path(path: Path, where: str, what: str) -> os.stat_result:
    try:
        st = path.stat()
    except FileNotFoundError:
        raise InputError(f"no such file (expected {what})", where=where) from None
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror or exc}", where=where) from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"is a directory, not {what}", where=where)
    return st


def _read_stream(f: Any, limit: int, where: str, what: str, *, text: bool) -> bytearray:
    """At most ``limit`` bytes of a stream; more is an error.  For ``text``, a NUL byte stops at once (a binary
    file, ``/dev/zero``)."""
    data = bytearray()
    while True:
        block = f.read(min(_CHUNK, limit + 1 - len(data)))
        if not block:
            break
        nul = block.find(b"\0") if text else -1
        if nul >= 0:
            raise InputError(f"holds binary data (a NUL byte at offset {len(data) + nul}), not {what}", where=where)
        data += block
        if len(data) > limit:
            raise InputError(f"does not end within {limit:,} bytes: not {what}", where=where)
    return data


def _open_bytes(name: str | os.PathLike[str], limit: int, what: str, flag: str | None, *, text: bool) -> bytearray:
    where = _where(name, flag)
    if str(name) == STDIN:
        stream = sys.stdin.buffer
        if stream.isatty():
            raise InputError(f"stdin is a terminal: pipe {what} in, or name a file", where=where)
        return _read_stream(stream, limit, where, what, text=text)
    path = Path(name)
    st = _check_path(path, where, what)
    if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode):
        kind = "character" if stat.S_ISCHR(st.st_mode) else "block"
        raise InputError(f"is a {kind} device, not {what}", where=where)
    try:
        with open(path, "rb") as f:
            return _read_stream(f, limit, where, what, text=text)
    except OSError as exc:
        raise InputError(f"cannot read it: {exc.strerror or exc}", where=where) from None


def read_text(name: str | os.PathLike[str], *, what: str = "a JSON document", flag: str | None = None,
              limit: int = MAX_JSON_BYTES) -> str:
    """The UTF-8 text of a file (``-``: stdin), read with a bound."""
    data = _open_bytes(name, limit, what, flag, text=True)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}): not {what}",
                         where=_where(name, flag)) from None


def read_json(name: str | os.PathLike[str], *, what: str = "a JSON document", flag: str | None = None) -> Any:
    """The parsed JSON of a file (``-``: stdin)."""
    text = read_text(name, what=what, flag=flag)
    if not text.strip():
        raise InputError(f"is empty: not {what}", where=_where(name, flag))
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno}): not {what}",
                         where=_where(name, flag)) from None


def read_binary(name: str | os.PathLike[str], *, what: str = "binary data", flag: str | None = None,
                limit: int = MAX_STREAM_BYTES) -> memoryview | bytes | bytearray:
    """The bytes of a file (``-``: stdin).  A regular file is memory-mapped read-only (zero-copy, never read
    whole); a stream is read up to ``limit`` bytes."""
    where = _where(name, flag)
    if str(name) != STDIN:
        path = Path(name)
        st = _check_path(path, where, what)
        if stat.S_ISREG(st.st_mode):
            if st.st_size == 0:
                return b""
            try:
                with open(path, "rb") as f:
                    return memoryview(mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ))
            except (OSError, ValueError) as exc:
                raise InputError(f"cannot map it: {exc}", where=where) from None
    return _open_bytes(name, limit, what, flag, text=False)


def local_file(name: str | os.PathLike[str], directory: Path, *, what: str, flag: str | None = None,
               suffix: str = "") -> Path:
    """A path that a tool can open itself (clang, the header check), for a text file given to a command: a regular
    file is checked with a bounded read (text, not binary) and given as is; stdin or a FIFO is read with the
    bound into ``directory``."""
    text = read_text(name, what=what, flag=flag)
    if str(name) != STDIN and stat.S_ISREG(Path(name).stat().st_mode):
        return Path(name)
    target = directory / f"{'stdin' if str(name) == STDIN else Path(name).name}{suffix}"
    target.write_text(text, encoding="utf-8")
    return target


def load_description(name: str | os.PathLike[str], *, flag: str | None = None) -> ObjectSet:
    """A JSON description of objects (``-``: stdin); errors name the file."""
    from d3d12wl.model import description

    doc = read_json(name, what="a JSON description", flag=flag)
    if not isinstance(doc, dict):
        raise InputError("a description is a JSON object of collections", where=_where(name, flag))
    try:
        return description.load(doc, ignore_keys=_CAPTURE_ONLY | {description.RECORD_STRUCTS})
    except D3D12WLError as exc:
        exc.args = (f"{label(name)}: {exc.args[0]}",)
        raise


#: the members a capture adds to a description: a capture can be given where a description is expected
_CAPTURE_ONLY = frozenset({"version", "device", "memory", "state", "call"})


def load_capture(name: str | os.PathLike[str], *, flag: str | None = None) -> Capture:
    """A capture file (``-``: stdin, with region files relative to the current directory); errors name the
    file."""
    from d3d12wl.capture import file as capture_file

    doc = read_json(name, what="a capture (JSON)", flag=flag)
    base = Path.cwd() if str(name) == STDIN else Path(name).parent
    try:
        capture = capture_file.load_capture(doc, base_dir=base)
    except CaptureError as exc:
        exc.args = (f"{label(name)}: {exc.args[0]}",)
        raise
    if str(name) != STDIN:
        capture.path = Path(name)
    return capture
