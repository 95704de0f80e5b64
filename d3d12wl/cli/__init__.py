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

from d3d12wl._version import __version__
from d3d12wl.errors import D3D12WLError

#: subcommand -> its one-line summary, in the order ``--help`` lists them; the module is ``d3d12wl.cli.<name>_cmd``
COMMANDS: dict[str, str] = {
    "abi": "ABI report of the compiled headers; 'abi check' runs the ABI truth checks",
    "layout": "byte layout of every record a description implies",
    "validate": "check a JSON description against the creation-time rules",
    "codegen": "C / HLSL structs for the records of a description",
    "dump": "print what a captured call executes (headers, records, executions, findings)",
    "exec": "execute a captured DispatchList / DispatchList1 / ExecuteIndirect and print the trace",
    "migrate": "move per-PSO ExecuteIndirect buckets to one work list and back, with the bytes and calls saved",
    "diff": "what differs between two captures, saved traces or call sequences, execution by execution",
}

#: build_parser(command=ALL) registers every command in full
ALL = "*"

__all__ = ["ALL", "COMMANDS", "build_parser", "main", "summary"]


def summary(name: str) -> str:
    """The one-line summary of a command (its ``help`` in the command list)."""
    return COMMANDS[name]


def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The argument parser.  Only ``command`` (every one for :data:`ALL`) is imported and registered in full; the
    others are listed by their summary, so ``d3d12wl --help`` imports no command module."""
    parser = argparse.ArgumentParser(
        prog="d3d12wl",
        description="Binary layout and ABI toolkit for D3D12 Work Lists, ExecuteIndirect and driver-reported messages.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, text in COMMANDS.items():
        if command in (ALL, name):
            importlib.import_module(f"d3d12wl.cli.{name}_cmd").register(sub)
        else:
            sub.add_parser(name, help=text, add_help=False)
    return parser


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top level takes no option values)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


def main(argv: Sequence[str] | None = None) -> int:
    words = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser(_command_of(words))
    args = parser.parse_args(words)
    try:
        return int(args.func(args))
    except D3D12WLError as exc:
        print(f"d3d12wl {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `d3d12wl dump | head`
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
