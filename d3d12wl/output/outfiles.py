"""Every file a user names for output is written here: atomically where it can be, through where it must be.

A regular file (or a name that does not exist yet) is written under a temporary name in its own folder, flushed,
closed and renamed over the final name only when the writer finished (``os.replace``, atomic on one file system):
an interrupted run (SIGINT, a full disk, an encoding error, an exception of the writer) leaves the old file or
none, never a torn one.  A full disk is seen by the write or by the close that meets it (file systems that
allocate late reserve the space as the write is taken; NFS reports at the close), so it fails the run before the
rename.  The file is not ``fsync``-ed: every output of d3d12wl is made again from the inputs it was made of, and
what survives a power loss is the file system's to say, as for ``cp``'s, a compiler's or ``numpy.save``'s output
(ext4 writes a file renamed over another before the rename).  Syncing made every ``-o`` wait for the disk to take
its bytes: 0.3-0.5 s for a gigabyte of JSON on the 16-core GPU machine's disk, more than the rest of the run.

A symlink is followed to its target, which is what gets replaced; an existing file keeps its mode.  A FIFO, a
character or block device is written through (opened and written in place): renaming a regular file over it would
replace the special file instead of feeding it.  ``-`` (or ``None``) is standard output.

An OS error on the named path (a missing folder, a directory, a read-only folder, a name too long, a symlink
loop, a full device, a file-size limit) is an :class:`OutputError` naming the path: exit 2 on the command line.
Each file names its own failing writes (its raw file does, :class:`_NamingFileIO`), so a file written inside
another's ``with`` never takes the blame for the other's full disk.  Standard output names no file: a write to it
that fails for the same reasons is :func:`stdout_error`'s, which the command line turns into exit 2 as well.
Text is UTF-8 and, as on standard output, what UTF-8 cannot encode (a lone surrogate a JSON file may hold in a
name) is written as a backslash escape instead of failing.  Inside a command, a file is opened for output only if
it is none of the files the command reads and no other output of it (:mod:`d3d12wl.output.claims`).
"""

from __future__ import annotations

import errno
import io
import os
import secrets
import stat
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from d3d12wl.errors import D3D12WLError
from d3d12wl.output import claims

__all__ = ["OutputError", "StagedFile", "is_stdout", "output_file", "stdout_error", "write_error", "write_failure"]

#: errors of writing to the destination itself (as opposed to a bug of the writer): raised inside the ``with``
#: body of :func:`output_file` by a write, they name the path
_DESTINATION_ERRNOS = frozenset({errno.ENOSPC, errno.EFBIG, errno.EDQUOT, errno.EIO, errno.EROFS, errno.EPIPE,
                                 errno.ENXIO, errno.EACCES, errno.EPERM})
#: the text errors handler of every text file written (the one standard output and standard error use)
TEXT_ERRORS = "backslashreplace"


class OutputError(D3D12WLError):
    """A file named for output cannot be written; ``where`` is the path as the user gave it."""


def is_stdout(path: str | os.PathLike[str] | None) -> bool:
    """``None`` and ``-`` mean standard output."""
    return path is None or os.fspath(path) == "-"


def _reason(exc: OSError) -> str:
    if exc.errno == errno.EFBIG:
        return "file too large (the file-size limit was reached)"
    return exc.strerror or type(exc).__name__


def _os_error(path: str | os.PathLike[str], exc: OSError) -> OutputError:
    return OutputError(f"cannot write {os.fspath(path)!r}: {_reason(exc)}", where=os.fspath(path))


def write_error(path: str | os.PathLike[str], exc: OSError) -> OutputError | None:
    """The :class:`OutputError` naming ``path`` for an OS error a write to it raised (a full disk, a file-size
    limit, an I/O error), or None when ``exc`` is no error of the destination (a writer's own bug stays one).
    The files :class:`StagedFile` opens apply it to their own writes; it is for a write made past them (on the
    descriptor)."""
    if exc.errno in _DESTINATION_ERRNOS and not exc.filename:
        return _os_error(path, exc)
    return None


def write_failure(out: IO[Any], exc: OSError) -> OSError | OutputError:
    """What a write to ``out`` made on its descriptor (past its file object: another thread's ``os.write``) that
    failed with ``exc`` is: the :class:`OutputError` naming the path, as ``out``'s own writes would raise it, when
    ``out`` is a file :func:`output_file` or :class:`StagedFile` opened; ``exc`` as it is otherwise (standard
    output: :func:`stdout_error`)."""
    raw = getattr(out, "raw", None) or getattr(getattr(out, "buffer", None), "raw", None)
    return raw._named(exc) if isinstance(raw, _NamingFileIO) else exc


def stdout_error(exc: OSError) -> OutputError | None:
    """The :class:`OutputError` for an OS error of a write that names no file (the files of :func:`output_file`
    name their own): standard output, redirected to a full device or a file past its size limit; None when
    ``exc`` is no such error (a reader that closed the pipe is not one: ``d3d12wl dump | head`` ends quietly)."""
    if exc.filename is None and exc.errno in _DESTINATION_ERRNOS and exc.errno != errno.EPIPE:
        return OutputError(f"cannot write it: {_reason(exc)}", where="standard output")
    return None


def _umask() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def _destination(path: str | os.PathLike[str]) -> tuple[Path, os.stat_result | None]:
    """The file to write (a symlink followed to its target) and its ``stat`` (None when it does not exist)."""
    shown = os.fspath(path)
    if not shown:
        raise OutputError("an empty path cannot be written", where="''")
    target = Path(os.path.realpath(path)) if os.path.islink(path) else Path(path)
    try:
        st = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # ELOOP, ENAMETOOLONG, ENOTDIR, EACCES
        raise _os_error(path, exc) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise OutputError(f"cannot write {shown!r}: it is a directory", where=shown)
    if st is None and not os.path.isdir(target.parent):
        raise OutputError(f"cannot write {shown!r}: its folder {str(target.parent)!r} does not exist", where=shown)
    return target, st


def check_target(path: str | os.PathLike[str]) -> None:
    """Raise :class:`OutputError` naming ``path`` now if it can never be written (a directory, a folder that does
    not exist, a name too long, a loop): for a command to say so before it does its work, not after."""
    if not is_stdout(path):
        _destination(path)


class _NamingFileIO(io.FileIO):
    """A file whose failing writes (a full device, a file-size limit, an I/O error, a reader gone) raise the
    :class:`OutputError` naming the path the user gave, wherever the write happens: in the writer, in a flush, in
    the close of a file nested in another's ``with`` (each file names itself, never the one around it)."""

    def __init__(self, file: str | Path | int, mode: str, *, shown: str) -> None:
        super().__init__(file, mode)
        self.shown = shown

    def write(self, data: Any) -> int | None:  # type: ignore[override]
        try:
            return super().write(data)
        except OSError as exc:
            raise self._named(exc) from None

    def truncate(self, size: int | None = None) -> int:
        try:
            return super().truncate(size)
        except OSError as exc:
            raise self._named(exc) from None

    def _named(self, exc: OSError) -> OSError | OutputError:
        named = write_error(self.shown, exc)
        return exc if named is None else named


class StagedFile:
    """One output file: ``open()`` gives a binary file to write, ``commit()`` puts it under its final name,
    ``discard()`` leaves the final name as it was.  A regular or new file is staged under a temporary name in its
    folder; a FIFO or device is opened and written through (``commit`` only closes it)."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = os.fspath(path)
        self.target, st = _destination(path)
        claims.claim(path)  # (inside a command: never a file it reads, or another output of it; issue 42)
        self.through = st is not None and not stat.S_ISREG(st.st_mode)
        self.mode = stat.S_IMODE(st.st_mode) if st is not None and not self.through else 0o666 & ~_umask()
        self.tmp: Path | None = None
        self.file: IO[bytes] | None = None

    def open(self) -> IO[bytes]:
        try:
            if self.through:
                raw = _NamingFileIO(self.target, "wb", shown=self.path)
            else:
                fd = self._create()
                try:
                    os.chmod(fd, self.mode)  # made private: the mode the file has, or open() would give
                    raw = _NamingFileIO(fd, "wb", shown=self.path)
                except BaseException:
                    os.close(fd)
                    raise
            self.file = io.BufferedWriter(raw)
        except OSError as exc:
            self.discard()
            raise _os_error(self.path, exc) from None
        return self.file

    def _create(self) -> int:
        """Create the temporary file beside the target (O_EXCL, private) and return its descriptor.  Its name is
        known to :meth:`discard` before it exists, so an interrupt that lands as it is created leaves nothing
        behind (``tempfile.mkstemp`` hands the name back only after creating it; found by issue 26's campaign,
        seed 40037232).  The name's 64 random bits make a clash with another file practically impossible."""
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0)
        for _ in range(100):
            self.tmp = self.target.parent / f".{self.target.name[:200]}.{secrets.token_hex(8)}.tmp"
            try:
                return os.open(self.tmp, flags, 0o600)
            except FileExistsError:
                self.tmp = None
        raise FileExistsError(errno.EEXIST, "no free temporary name", str(self.target.parent))

    def commit(self) -> None:
        """Flush, close and rename into place (or close a written-through file); an OS error discards the
        temporary file and raises :class:`OutputError`."""
        f, self.file = self.file, None
        try:
            if f is not None:
                f.close()  # (flushes first: a full disk met there names the file)
            if self.tmp is not None:
                os.replace(self.tmp, self.target)
                self.tmp = None
        except OSError as exc:
            if f is not None:
                _close_quietly(f)
            self.discard()
            raise _os_error(self.path, exc) from None
        except BaseException:  # an interrupt while flushing (a slow disk) or renaming
            if f is not None:
                _close_quietly(f)
            self.discard()  # (after the rename there is nothing left to remove: the new file stands, whole)
            raise

    def discard(self) -> None:
        """Close and remove the temporary file; the final name keeps what it had."""
        f, self.file = self.file, None
        if f is not None:
            _close_quietly(f)
        if self.tmp is not None:
            self.tmp.unlink(missing_ok=True)
            self.tmp = None


def _close_quietly(f: IO[Any]) -> None:
    try:
        f.close()
    except (OSError, OutputError):  # (the close flushes what is buffered: a write that fails names the file)
        pass


@contextmanager
def output_file(path: str | os.PathLike[str] | None, *, binary: bool = False) -> Iterator[IO[Any]]:
    """A file to write ``path`` through (text: UTF-8, newlines as written, escapes for what UTF-8 cannot hold;
    ``binary=True``: bytes).  ``None`` or ``-`` is standard output, which is not closed.  The file takes its final
    name only when the ``with`` body ends without an exception; an exception leaves the old file or none.  An OS
    error of the destination (opening, a write that fails for want of space or a file-size limit, the rename) is an
    :class:`OutputError` naming ``path``."""
    if is_stdout(path):
        stream: IO[Any] = sys.stdout.buffer if binary else sys.stdout
        yield stream
        stream.flush()
        return
    assert path is not None
    staged = StagedFile(path)
    try:
        raw = staged.open()
        text = None if binary else _text(raw)
        yield raw if text is None else text
        if text is not None:
            text.flush()
            text.detach()  # the binary file stays open for commit
    except OSError as exc:
        staged.discard()
        named = write_error(path, exc)
        if named is not None:
            raise named from None
        raise
    except BaseException:
        staged.discard()
        raise
    staged.commit()


def _text(raw: IO[bytes]) -> io.TextIOWrapper:
    return io.TextIOWrapper(raw, encoding="utf-8", errors=TEXT_ERRORS, newline="")
