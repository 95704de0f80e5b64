"""Option value types the commands share (argparse ``type=`` callables: a bad value is a usage error, exit 2)."""

from __future__ import annotations

import argparse


def integer(text: str) -> int:
    """A decimal or ``0x`` hexadecimal integer."""
    try:
        return int(text, 0)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r} (decimal or 0x hex)") from None
