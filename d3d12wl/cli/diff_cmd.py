"""The ``d3d12wl diff`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag

DESCRIPTION = """\
Compare what two runs execute: captures, saved traces (the output of exec --format json --json-version 1) or
call sequence files.

Executions are matched by position, or with --key by the values of the listed fields (program, call,
list_index, primary_index, secondary_index, command_index, trigger): the n-th execution with a key value in A
against the n-th with that value in B.  For each pair it shows what differs: the program, the trigger type and
payload, and each binding's (root argument by register, IA slot) value and source; --values-only leaves the
sources out.  Unmatched executions and findings added or removed are differences too.

Exit status: 0 no difference, 1 any difference, 2 unusable input, 3 internal error."""


def register(sub: Any) -> None:
    p = sub.add_parser("diff", help=summary("diff"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="capture, saved trace or call sequence")
    p.add_argument("b", metavar="B", help="capture, saved trace or call sequence")
    p.add_argument("--key", default="", metavar="FIELD[,FIELD...]",
                   help="comma-separated fields to match executions by (default: position)")
    p.add_argument("--values-only", action="store_true", help="compare values, not where they came from")
    add_json_flag(p, "the diff")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.migrate.diff import diff_runs

    key = [k.strip() for k in args.key.split(",") if k.strip()]
    d = diff_runs(args.a, args.b, key=key, sources=not args.values_only)
    if args.json:
        json.dump(d.to_dict(), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0 if d.same else 1
    lines = [f"diff: {d.matched} executions matched by {', '.join(d.key) or 'position'}"
             + (f"; {d.note}" if d.note else "")]
    for e in d.differences:
        lines.append(f"execution A {e.a} / B {e.b}" + (f" (key {', '.join(map(str, e.key))})" if d.key else "") + ":")
        lines += [f"  {w}" for w in e.what]
    if d.only_in_a:
        lines.append(f"only in A: executions {_ranges(d.only_in_a)}")
    if d.only_in_b:
        lines.append(f"only in B: executions {_ranges(d.only_in_b)}")
    lines += [f"finding added: {f}" for f in d.findings_added]
    lines += [f"finding removed: {f}" for f in d.findings_removed]
    lines.append("same" if d.same else f"different: {len(d.differences)} executions differ, {len(d.only_in_a)} only "
                 f"in A, {len(d.only_in_b)} only in B, {len(d.findings_added)} findings added, "
                 f"{len(d.findings_removed)} removed")
    print("\n".join(lines))
    return 0 if d.same else 1


def _ranges(values: list[int]) -> str:
    """``[0, 1, 2, 5]`` as ``0-2, 5``."""
    runs: list[list[int]] = []
    for v in values:
        if runs and v == runs[-1][1] + 1:
            runs[-1][1] = v
        else:
            runs.append([v, v])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs)
