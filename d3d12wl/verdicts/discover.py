"""The files a ``check`` judges: captures named on the command line and the ``*.json`` files found in folders, in a
fixed order, and the share of them one shard of a CI job judges.

Order: the arguments in the order given; a folder's files by their path, depth first, names sorted (``os.walk``
with sorted folders and files; names starting with ``.`` are left out, so are symbolic links to folders).  A file
reached twice (named and found, or through two arguments) is judged once, where it was first reached.

Shards: ``--shard I/N`` judges the files at positions ``I - 1``, ``I - 1 + N``, ``I - 1 + 2N``, ... of that order
(round robin, ``1 <= I <= N``): every runner of a CI job given the same arguments and the same checkout computes
the same order, so the N shards together judge every file exactly once, and their sizes differ by at most one.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass

from d3d12wl import inputs
from d3d12wl.errors import D3D12WLError

__all__ = ["PATTERN", "Shard", "Target", "discover", "parse_shard"]

#: the files of a folder that are judged
PATTERN = "*.json"


@dataclass(frozen=True)
class Target:
    """One file to judge: ``path`` as it is shown and keyed (in the baseline, the reports), POSIX separators;
    ``named``: given by name on the command line, so it must be a capture (a file found in a folder that is a
    description, a saved trace or a call sequence is skipped); ``error``: why it cannot even be opened (a folder
    that could not be read), else None."""

    path: str
    named: bool
    error: str | None = None


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (1-based) of ``count``."""

    index: int
    count: int

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def of(self, targets: Sequence[Target]) -> list[Target]:
        return list(targets[self.index - 1:: self.count])


def parse_shard(text: str, where: str = "--shard") -> Shard:
    """``I/N`` with ``1 <= I <= N`` (a bad one is a :class:`~d3d12wl.errors.D3D12WLError` naming ``where``)."""
    index, slash, count = text.partition("/")
    try:
        i, n = inputs.integer(index), inputs.integer(count)
    except ValueError:
        i = n = 0
    if not slash or not 1 <= i <= n:
        raise D3D12WLError(f"{text!r} is not I/N with 1 <= I <= N (shard I of N, as GitLab's "
                           "$CI_NODE_INDEX/$CI_NODE_TOTAL)", where=where)
    return Shard(i, n)


def _shown(path: str) -> str:
    return os.path.normpath(path).replace(os.sep, "/")


def discover(paths: Sequence[str]) -> list[Target]:
    """The files ``paths`` (captures and folders) name, in the module docstring's order.  A path that names nothing,
    or something that is neither a file nor a folder, is a :class:`~d3d12wl.inputs.InputError` naming it."""
    out: list[Target] = []
    seen: set[str] = set()

    def add(target: Target, real: str) -> None:
        if real not in seen:
            seen.add(real)
            out.append(target)

    for arg in paths:
        kind = inputs.path_kind(arg, where=arg)
        if kind is None:
            raise inputs.InputError("no such file or folder", where=arg)
        if kind == "a regular file":
            add(Target(_shown(arg), True), os.path.realpath(arg))
            continue
        if kind != "a directory":
            raise inputs.InputError(f"this is {kind}; check judges capture files and folders of them", where=arg)
        errors: list[OSError] = []

        def unlisted() -> None:  # (a folder that could not be listed: judged as unusable, in its place)
            for exc in errors:
                where = _shown(str(exc.filename))
                add(Target(where, False, f"cannot list the folder: {exc.strerror or exc}"), f"\0{where}")
            errors.clear()

        for root, dirs, files in os.walk(arg, onerror=errors.append):
            unlisted()
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith(".") and fnmatch.fnmatchcase(name, PATTERN):
                    path = os.path.join(root, name)
                    add(Target(_shown(path), False), os.path.realpath(path))
        unlisted()
    return out
