"""A flag that takes one value says it once: given twice with two different values (``-o a.csv -o b.csv``,
``--format csv --format json``, ``--dispatch-list A --dispatch-list B``) it is a usage error (exit 2) naming both,
where argparse would keep the last one silently.  The same value twice is the same thing said twice, and is kept.
A repeatable flag that names a thing in its value (``--descriptor-heap TYPE=...``) says each thing once too
(:func:`d3d12wl.inputs.given_once`, where the value is read).  Issue 42, "Repeated flags that name the same thing
differently are exit 2"."""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from typing import Any

__all__ = ["StoreOnce"]

#: the namespace attribute that holds, per destination, the option string and the value it was first given
_GIVEN = "_d3d12wl_given"


class StoreOnce(argparse._StoreAction):
    """argparse's ``store``, refusing a second, different value of the same destination (whichever of its option
    strings gave it)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: str | Sequence[Any] | None, option_string: str | None = None) -> None:
        if option_string is not None:  # (a positional is stored once by argparse itself)
            given: dict[str, tuple[str, Any]] = namespace.__dict__.setdefault(_GIVEN, {})
            before = given.get(self.dest)
            if before is not None and before[1] != values:
                parser.error(f"{before[0]} {_text(before[1])} and {option_string} {_text(values)}: one flag given "
                             "two values; give it once")
            given[self.dest] = (option_string, values)
        super().__call__(parser, namespace, values, option_string)


def _text(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)
