"""The ``d3d12wl`` command line.

Each subcommand lives in its own module ``d3d12wl.cli.<name>_cmd`` that defines
``register(subparsers) -> None``; the subparser it adds sets ``func`` to a callable
``(args: argparse.Namespace) -> int`` (the exit code).

Exit codes: 0 clean, 1 findings, 2 unusable input (a :class:`~d3d12wl.errors.D3D12WLError`, whose message names the
file, flag or member), 3 an internal error (its traceback with ``d3d12wl --debug COMMAND ...``).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from d3d12wl import __version__
from d3d12wl.errors import D3D12WLError

#: subcommand modules, in the order ``--help`` lists them
COMMANDS: tuple[str, ...] = ("abi", "layout", "validate", "codegen", "decode", "capture", "dump", "exec")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="d3d12wl",
        description="Binary layout and ABI toolkit for D3D12 Work Lists, ExecuteIndirect and driver-reported messages.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("--debug", action="store_true", help="show the traceback of an internal error (exit 3)")
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
    except Exception as exc:  # a bug: exit 3, the traceback only with --debug
        if args.debug:
            raise
        print(f"d3d12wl {args.command}: internal error: {type(exc).__name__}: {exc} (run `d3d12wl --debug "
              f"{args.command} ...` for the traceback)", file=sys.stderr)
        return 3


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
