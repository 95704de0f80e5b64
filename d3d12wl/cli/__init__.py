"""The ``d3d12wl`` command line.

Each subcommand lives in its own module ``d3d12wl.cli.<name>_cmd`` that defines
``register(subparsers) -> None``; the subparser it adds sets ``func`` to a callable
``(args: argparse.Namespace) -> int`` (the exit code).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from d3d12wl import __version__
from d3d12wl.errors import D3D12WLError

#: subcommand modules, in the order ``--help`` lists them
COMMANDS: tuple[str, ...] = ("abi", "layout", "validate", "codegen", "dump", "exec", "messages")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="d3d12wl",
        description="Binary layout and ABI toolkit for D3D12 Work Lists, ExecuteIndirect and driver-reported messages.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMANDS:
        importlib.import_module(f"d3d12wl.cli.{name}_cmd").register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except D3D12WLError as exc:
        print(f"d3d12wl {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `d3d12wl dump | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
