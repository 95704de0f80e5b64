"""One rule for the names of a command's files: no output may be an input of the same command, or another of its
outputs (design.md, "Every file is written atomically"; issue 42, classes 3 and 4).

Two files are the same file when both exist and are one (the same device and inode: a symlink, a hard link, a path
spelt another way), else when their real paths are equal (an output not written yet).  Standard output (``-``) is
one output however often it is named; standard input is never an output.  A character device (``/dev/null``, a
terminal) is a sink that replaces nothing and gives nothing back: it is never "the same file", so ``-o /dev/null
--findings /dev/null`` stays a way to discard both.  A FIFO is a file like any other: two outputs written into one
would reach its reader as one stream.

A command checks the names it is given before it reads or writes anything (:func:`check`, one call in its
``run``): every output against every input and every other output, exit 2 naming both
(:class:`OutputNameError`).  Inside the command (:func:`command`, which ``d3d12wl.cli.main`` enters around every
command), every file the command reads is recorded (:func:`d3d12wl.inputs.recording`: a capture, its region
files, a description, a map, a validators file), and every output file :mod:`d3d12wl.output.outfiles` opens is
checked as it is opened, before a byte of it is written (:func:`claim`): the files a command derives from the
names it was given (a ``FILE.findings.csv`` beside ``-o FILE.csv``, a capture's region files, a migration's calls)
and the inputs it finds as it reads (a capture's region files) are held to the same rule.  Outside a command (the
Python API) nothing is recorded or refused.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from d3d12wl import inputs
from d3d12wl.errors import D3D12WLError

__all__ = ["OutputNameError", "check", "claim", "command"]

#: how standard output is shown
STDOUT = "standard output"


class OutputNameError(D3D12WLError):
    """An output named as an input of the same command, or as another of its outputs; the message names both, and
    ``where`` the output (exit 2)."""


@dataclass
class _Named:
    """A file a command names: how it was named (``-o``, ``CAPTURE``, ``the capture``), the path as given, its
    device and inode where it exists, its real path (None for standard output)."""

    role: str
    shown: str
    inode: tuple[int, int] | None
    real: str | None
    opened: bool = False

    def text(self) -> str:
        """``-o 'out.csv'``, ``the capture 'c.json'``, ``-o -`` (standard output)."""
        return f"{self.role} -" if self.real is None else f"{self.role} {self.shown!r}"

    @property
    def where(self) -> str:
        """The flag that named it, or the path of a file the command derived."""
        return self.shown if self.role.startswith("the ") else self.role


#: the outputs of the running command: named up front (:func:`check`) or opened (:func:`claim`); None outside one
_OUTPUTS: ContextVar[list[_Named] | None] = ContextVar("d3d12wl_outputs", default=None)


@contextmanager
def command() -> Iterator[None]:
    """The scope of one command: what it reads is recorded, what it writes is checked against it (module
    docstring)."""
    with inputs.recording():
        token = _OUTPUTS.set([])
        try:
            yield
        finally:
            _OUTPUTS.reset(token)


def _named(role: str, path: str | os.PathLike[str]) -> _Named | None:
    """The file ``path`` names (None for a character device, which is never the same file)."""
    shown = os.fspath(path)
    if shown == "-":
        return _Named(role, STDOUT, None, None)
    try:
        info: os.stat_result | None = os.stat(shown)
    except (OSError, ValueError):  # not there yet (or never writable: outfiles says so, naming it)
        info = None
    if info is not None and stat.S_ISCHR(info.st_mode):
        return None
    try:
        real = os.path.realpath(shown)
    except (OSError, ValueError):
        real = os.path.abspath(shown)
    return _Named(role, shown, (info.st_dev, info.st_ino) if info is not None else None, real)


def _same(a: _Named, b: _Named) -> bool:
    if a.real is None or b.real is None:
        return a.real is None and b.real is None
    if a.inode is not None and b.inode is not None:
        return a.inode == b.inode
    return a.real == b.real


def _is_input(out: _Named, given: _Named) -> OutputNameError:
    return OutputNameError(f"{out.text()} is {given.text()}, which this command reads: writing it would replace "
                           "what is read (an output may not be an input of the same command); give another path",
                           where=out.where)


def _two_outputs(out: _Named, other: _Named) -> OutputNameError:
    both = "both standard output" if out.real is None else "the same file"
    return OutputNameError(f"{other.text()} and {out.text()} are {both}: each output of a command needs its own "
                           "path", where=out.where)


def _read_files() -> list[_Named]:
    return [_Named(f"the {r.what}", r.shown, key, r.real) for key, r in inputs.files_read().items()]


def check(outputs: Iterable[tuple[str, str | os.PathLike[str] | None]],
          inputs_: Iterable[tuple[str, str | os.PathLike[str] | None]] = ()) -> None:
    """Refuse, before anything is read or written, an output that is an input or another output: ``outputs`` and
    ``inputs_`` are (role, path) pairs, the role how the command line names the file (``-o``, ``--findings``,
    ``CAPTURE``); a path None (not given) or ``-`` for an input (standard input) is left out.  Inside
    :func:`command` the outputs are kept, so that the files opened later are checked against them, and are also
    checked against the files read so far.  Raises :class:`OutputNameError` naming both."""
    outs = [n for role, path in outputs if path is not None and (n := _named(role, path)) is not None]
    given = [n for role, path in inputs_ if path is not None and os.fspath(path) != "-"
             and (n := _named(role, path)) is not None and n.inode is not None]
    kept = _OUTPUTS.get()
    earlier = list(kept or ())
    read = _read_files() if kept is not None else []
    for i, out in enumerate(outs):
        for other in (*earlier, *outs[:i]):
            if _same(out, other):
                raise _two_outputs(out, other)
        for source in (*given, *read):
            if _same(out, source):
                raise _is_input(out, source)
    if kept is not None:
        kept.extend(outs)


def claim(path: str | os.PathLike[str]) -> None:
    """Called as an output file is opened (:class:`d3d12wl.output.outfiles.StagedFile`), before it is written:
    inside :func:`command`, refuse it when it is a file the command read, or an output already opened (an output
    named up front by :func:`check` is opened once); outside, nothing."""
    kept = _OUTPUTS.get()
    if kept is None:
        return
    out = _named("the output", path)
    if out is None or out.real is None:
        return
    for source in _read_files():
        if _same(out, source):
            raise _is_input(out, source)
    for other in kept:
        if _same(out, other):
            if other.opened:
                raise _two_outputs(out, other)
            other.opened = True
            return
    out.opened = True
    kept.append(out)
