"""Option value types the commands share (argparse ``type=`` callables: a bad value is a usage error, exit 2), and
the checks of option combinations more than one command has."""

from __future__ import annotations

import argparse
import math

from d3d12wl import inputs
from d3d12wl.errors import D3D12WLError


def integer(text: str) -> int:
    """A decimal or ``0x`` hexadecimal integer (:func:`d3d12wl.inputs.integer`)."""
    try:
        return inputs.integer(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def number(text: str) -> float:
    """A finite decimal number in ASCII digits (``float`` also takes other scripts' digits, ``inf`` and ``nan``)."""
    try:
        if not text.isascii():
            raise ValueError
        value = float(text)
        if not math.isfinite(value):
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r} (ASCII digits)") from None
    return value


def refuse_json_with_capture_on_stdout(args: argparse.Namespace) -> None:
    """``-o -`` prints the capture itself on standard output (``capture``, ``migrate ei-to-wl``), so ``--json``, the
    report on standard output, needs ``-o FILE``: exit 2, before any work."""
    if args.json and args.output == "-":
        raise D3D12WLError("-o - prints the capture itself on stdout; give -o FILE with --json", where="--json")
