"""The registries of writers the command line looks up: per kind of result (a trace, the table of references by
value, a decoded table), its writers by format name, each with what it needs and writes beside its output.

A stage registers its writers (``TRACE_WRITERS.add(Writer("csv", write_csv, ...))``); a command takes its
``--format`` choices from the registry (:meth:`Writers.formats`) and writes through the entry it looks up
(:meth:`Writers.__getitem__`), never through a chain of ``if`` over format names.  Every table the writers write goes
through the one encoder of its format (:mod:`~d3d12wl.output.csv_table`, :mod:`~d3d12wl.output.json_table`,
:mod:`~d3d12wl.output.npz_table`, :mod:`~d3d12wl.output.parquet_table`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from d3d12wl.errors import D3D12WLError

__all__ = ["Writer", "Writers"]


@dataclass(frozen=True)
class Writer:
    """One format's writer: ``write`` (what it is called with is the registry's kind's: a trace writer takes the
    trace, a binary file and the options), ``summary`` (what it writes, for ``--help``), ``verdict`` (a writer of
    the verdict table to a second file beside the output, ``FILE.findings.<name>``; None where the output holds the
    verdict itself), ``verdict_inside`` (where in the output the verdict is, for the exit-1 line), ``extra`` (the
    optional dependency it needs: ``pip install 'd3d12wl[<extra>]'``)."""

    name: str
    write: Callable[..., Any]
    summary: str = ""
    verdict: Callable[..., Any] | None = None
    verdict_inside: str = ""
    extra: str | None = None


class Writers:
    """The writers of one kind of result (``what``: ``trace``, ``references``, ...), by format, in the order they
    were added."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._by_name: dict[str, Writer] = {}

    def add(self, writer: Writer) -> Writer:
        if writer.name in self._by_name:
            raise ValueError(f"a {self.what} writer for {writer.name!r} is registered already")
        self._by_name[writer.name] = writer
        return writer

    def formats(self) -> tuple[str, ...]:
        """The format names, in order (a command's ``--format`` choices)."""
        return tuple(self._by_name)

    def __getitem__(self, name: str) -> Writer:
        got = self._by_name.get(name)
        if got is None:
            raise D3D12WLError(f"{name!r} is not a format of the {self.what}; choose one of "
                               f"{', '.join(self._by_name)}", where="--format")
        return got

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    def __iter__(self) -> Iterator[Writer]:
        return iter(self._by_name.values())
