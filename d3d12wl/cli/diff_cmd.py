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

A capture against its replay's dump: B may be what a replay tool dumped of the same ExecuteIndirect call (a GITS
call_<key>_execute_indirect_<pre|post>_patch.txt, a gfxrecon-replay --dump-resources folder or its *_dr.json).  The
dump is read with the capture's command signature and compared command by command: each argument that differs is
named, and a replay that cannot execute what was captured is flagged: fewer or more commands than the capture's
count, an address left unpatched, patched elsewhere or into NULL, a NULL view patched into an address.  --va-map
(d3d12wl remap's map: where the capture's VA ranges lie in the replay) checks every replayed address against the
captured one mapped; without it, only NULLs and the dump's own lookup (GITS's NOT FOUND) are checked.

Exit status: 0 no difference, 1 any difference, 2 unusable input, 3 internal error."""


def register(sub: Any) -> None:
    p = sub.add_parser("diff", help=summary("diff"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("a", metavar="A", help="capture, saved trace or call sequence")
    p.add_argument("b", metavar="B", help="capture, saved trace or call sequence")
    p.add_argument("--key", default="", metavar="FIELD[,FIELD...]",
                   help="comma-separated fields to match executions by (default: position)")
    p.add_argument("--values-only", action="store_true", help="compare values, not where they came from")
    p.add_argument("--va-map", metavar="MAP", help="a replay dump B: where the capture's VA ranges lie in the replay "
                                                   "(d3d12wl remap's map)")
    add_json_flag(p, "the diff")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from d3d12wl.errors import D3D12WLError
    from d3d12wl.importers.replay_diff import diff_replay, replay_kind
    from d3d12wl.migrate.diff import diff_runs

    key = [k.strip() for k in args.key.split(",") if k.strip()]
    if replay_kind(args.b) is not None:
        from d3d12wl.capture.file import load_capture
        from d3d12wl.capture.maps import load_va_map
        from d3d12wl.cli.documents import CAPTURE, expecting

        for given, flag in ((key, "--key"), (args.values_only, "--values-only")):
            if given:
                raise D3D12WLError("a replay dump is compared with its capture command by command, its values only",
                                   where=flag)
        with expecting(args.a, CAPTURE):
            capture = load_capture(args.a)
        d = diff_replay(capture, args.b, va_map=load_va_map(args.va_map) if args.va_map else None)
    elif args.va_map:
        raise D3D12WLError("applies to a capture against its replay's dump (B a GITS or gfxrecon-replay dump)",
                           where="--va-map")
    else:
        d = diff_runs(args.a, args.b, key=key, sources=not args.values_only)
    if args.json:
        json.dump(d.to_dict(), sys.stdout, indent=1)
        sys.stdout.write("\n")
        return 0 if d.same else 1
    unit = "commands" if d.replay else "executions"
    lines = [f"diff: {d.matched} {unit} matched by {', '.join(d.key) or 'position'}" + (f"; {d.note}" if d.note else "")]
    for e in d.differences:
        if d.replay:
            lines.append(f"command {e.a}:")
        else:
            lines.append(f"execution A {e.a} / B {e.b}" + (f" (key {', '.join(map(str, e.key))})" if d.key else "")
                         + ":")
        lines += [f"  {w}" for w in e.what]
    if d.only_in_a:
        lines.append(f"only in A: {unit} {_ranges(d.only_in_a)}")
    if d.only_in_b:
        lines.append(f"only in B: {unit} {_ranges(d.only_in_b)}")
    if d.cannot_execute:
        lines.append("the replay cannot execute what was captured:")
        lines += [f"  {c}" for c in d.cannot_execute]
    lines += [f"finding added: {f}" for f in d.findings_added]
    lines += [f"finding removed: {f}" for f in d.findings_removed]
    lines.append("same" if d.same else f"different: {len(d.differences)} {unit} differ, {len(d.only_in_a)} only "
                 f"in A, {len(d.only_in_b)} only in B, {len(d.findings_added)} findings added, "
                 f"{len(d.findings_removed)} removed" + (f", {len(d.cannot_execute)} flags" if d.replay else ""))
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
