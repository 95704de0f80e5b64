"""``d3d12wl examples``: where the bundled examples are installed (the specs' own examples as descriptions, captures,
headers, HLSL and readbacks), so a command line can name them from a plain ``pip install``."""

from __future__ import annotations

import argparse

from d3d12wl import examples
from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag
from d3d12wl.output.serialize import json_text

#: the plain-text --help description
DESCRIPTION = """\
Where the bundled examples are: the specs' own examples (the GPU culling example, the ExecuteIndirect notes' command
signatures, a Tier 2 chain, the readback buffers of the culling example, ...), installed with the package.

  d3d12wl examples                    the folder and every example file in it
  d3d12wl examples --path             the folder, one line: d3d12wl layout "$(d3d12wl examples --path)/culling.json"
  d3d12wl examples --path NAME        the file NAME (culling.json, readback/primary.bin); exit 2 if there is none
  d3d12wl examples --json             {"path": DIR, "examples": [NAME, ...]}

The same from Python: d3d12wl.examples.path(NAME), d3d12wl.examples.names()."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("examples", help=summary("examples"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("name", metavar="NAME", nargs="?", help="one example file (with --path: print its path)")
    p.add_argument("--path", action="store_true", help="print only the folder (or, with NAME, the file)")
    add_json_flag(p, '{"path": DIR, "examples": [NAME, ...]}')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    where = examples.path(args.name) if args.name else examples.FOLDER
    names = [args.name] if args.name else examples.names()
    if args.json:
        print(json_text({"path": str(where), "examples": names}, indent=2))
    elif args.path:
        print(where)
    else:
        print(f"examples: {where}")
        for name in names:
            print(f"  {name}")
    return 0
