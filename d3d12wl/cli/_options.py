"""Option value types the commands share (argparse ``type=`` callables: a bad value is a usage error, exit 2)."""

from __future__ import annotations

import argparse

from d3d12wl import inputs


def integer(text: str) -> int:
    """A decimal or ``0x`` hexadecimal integer (:func:`d3d12wl.inputs.integer`)."""
    try:
        return inputs.integer(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
