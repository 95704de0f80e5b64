"""``d3d12wl headers``: where d3d12wl's C headers are installed (the include directory of generated C)."""

from __future__ import annotations

import argparse
import json

from d3d12wl.abi import headers
from d3d12wl.cli import summary

#: the plain-text --help description
DESCRIPTION = """\
Where d3d12wl's C headers are: the include directory that 'd3d12wl codegen --lang c' output and an engine's own
record headers compile against, shipped with the package.

  d3d12wl headers --path     the directory, one line (cc -std=c11 -fsyntax-only -I "$(d3d12wl headers --path)" ...)
  d3d12wl headers            the directory and the header files in it
  d3d12wl headers --json     {"path": DIR, "headers": [FILE, ...]}

The same from Python: d3d12wl.abi.headers.path()."""


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser("headers", help=summary("headers"), description=DESCRIPTION,
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--path", action="store_true", help="print only the include directory")
    p.add_argument("--json", action="store_true", help='print {"path": DIR, "headers": [FILE, ...]}')
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    where = headers.path()
    names = sorted(p.name for p in where.glob("*.h"))
    if args.json:
        print(json.dumps({"path": str(where), "headers": names}, indent=2))
    elif args.path:
        print(where)
    else:
        print(f"include directory: {where}")
        for name in names:
            print(f"  {name}")
    return 0
