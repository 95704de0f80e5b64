"""``d3d12wl abi``: the ABI of the compiled headers, and its truth checks.

d3d12wl abi [NAME ...]         pahole-style report of all (or the named) types, enums, constants
d3d12wl abi --json [NAME ...]  the same as JSON (shape documented in d3d12wl.abi_report)
d3d12wl abi check [--json]     run the ABI truth checks this machine can run; exit 1 on any
                               disagreement (each printed, naming type and field), listing what was skipped
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from d3d12wl import abi, abi_check, abi_report


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = subparsers.add_parser(
        "abi",
        help="ABI report of the compiled headers; `abi check` runs the ABI truth checks",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("names", nargs="*", metavar="NAME", help="types, enums or constants to show; or `check`")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument(
        "--headers", metavar="DIR", help="with `check`: check the headers in DIR instead of the installed ones"
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    names: list[str] = list(args.names)
    if names[:1] == ["check"]:
        if len(names) > 1:
            print("d3d12wl abi check: takes no names", file=sys.stderr)
            return 2
        if args.headers:
            from d3d12wl import _ffi_builder

            with tempfile.TemporaryDirectory(prefix="d3d12wl-abi-") as tmp:
                headers = _ffi_builder.read_headers(Path(args.headers))
                results = abi_check.run_all(abi_check.compile_headers(headers, Path(tmp)))
        else:
            results = abi_check.run_all()
        if args.json:
            json.dump(abi_report.checks_json(results), sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            sys.stdout.write(abi_report.format_checks(results))
        return 0 if all(r.ok for r in results) else 1
    a = abi.default
    if args.json:
        for n in names:  # unknown names are errors, not silently dropped
            if a.resolve(n) not in a.decls.aggregates and n not in a.decls.enums and n not in a.decls.constants:
                a.type_info(n)
        json.dump(abi_report.abi_json(a, names or None), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(abi_report.format_report(a, names or None))
    return 0
