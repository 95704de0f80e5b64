"""The ``d3d12wl check`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag, integer, number
from d3d12wl.cli.exec_cmd import add_executor_flags, limits_from, load_hooks, readings_from
from d3d12wl.cli.progress import Progress
from d3d12wl.errors import D3D12WLError
from d3d12wl.verdicts.page import DEFAULT_LIMIT

#: seconds a capture may take by default (--capture-timeout)
DEFAULT_TIMEOUT_S = 600.0

#: the plain-text --help description
DESCRIPTION = f"""\
Judge captures for CI: every capture named, and every *.json file in the folders named (recursively), is run by
the executor in a process of its own, and the run ends with one verdict.

Standard output gets one row per file (status, executions, error and warning findings, new errors, time, peak
memory, and the new errors by kind or why the file was not judged), the findings by kind, and the totals; --json
prints the JSON report instead (version 1: the totals and every file's counts, judgement and first findings).
-o PATH writes that to PATH instead (atomically); --junit PATH writes a JUnit XML report (one test case per file:
a failure for new error findings, an error for a file that could not be judged) for the CI server to show.

Statuses: pass (no error findings), accepted (error findings, all accepted by the baseline), fail (error findings
the baseline does not accept), unusable (not a capture, a capture that cannot be loaded, or one that needed more
memory or time than a capture may take), internal-error, skipped (a file found in a folder that is a
description, a saved trace or a call sequence).

  --jobs N          processes judging captures at once (default: the CPUs this process may use)
  --shard I/N       judge the I-th of N shares of the files (round robin over their order: the arguments as
                    given, a folder's files sorted by path), so that N CI jobs given the same arguments judge
                    every file once between them (GitLab: --shard $CI_NODE_INDEX/$CI_NODE_TOTAL)
  --baseline PATH   accept the error findings a baseline file lists (per capture, per kind, a count): only new
                    ones fail (repeatable: the files of several shards)
  --write-baseline PATH
                    write the baseline that accepts every error finding of this run
  --output-dir DIR  write the page of every failing capture there (as 'd3d12wl report' makes it), its path
                    mirroring the capture's: frames/forest.json -> DIR/frames/forest.html
  --capture-memory MIB, --capture-timeout S
                    the address space and the wall-clock time one capture's process may take (default: the
                    machine's memory shared among the jobs, at least 2,048 MiB; {DEFAULT_TIMEOUT_S:g} s); a
                    capture that needs more is unusable, and the others are still judged

Exit status: 0 when every capture passes or is accepted, 1 when one fails (new error findings), 2 when a file
could not be judged, the paths hold no file to judge, a flag, the baseline or an output path cannot be used, 3 when
d3d12wl met an internal error on one; the highest applies.  When it is not 0, one line on standard error says why."""


def register(sub: Any) -> None:
    p = sub.add_parser("check", help=summary("check"), description=DESCRIPTION,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("paths", nargs="+", metavar="PATH",
                   help="capture files, and folders whose *.json files are judged (recursively)")
    p.add_argument("--jobs", type=integer, metavar="N", default=None,
                   help="processes judging captures at once (default: the CPUs this process may use)")
    p.add_argument("--shard", metavar="I/N", default=None,
                   help="judge only shard I of N (round robin over the files' order; 1 <= I <= N)")
    p.add_argument("--baseline", action="append", metavar="PATH", default=None,
                   help="a baseline file of accepted error findings (repeatable)")
    p.add_argument("--write-baseline", metavar="PATH", default=None,
                   help="write a baseline accepting every error finding of this run to PATH")
    p.add_argument("--junit", metavar="PATH", default=None, help="write a JUnit XML report to PATH")
    add_json_flag(p, "the JSON report instead of the summary (with -o PATH, in PATH)")
    p.add_argument("-o", "--output", metavar="PATH", default=None,
                   help="write the summary (the JSON report with --json) to PATH (atomically) instead of standard "
                        "output")
    p.add_argument("--output-dir", metavar="DIR", default=None,
                   help="write the page of every failing capture into DIR (as 'd3d12wl report' makes it)")
    p.add_argument("--limit", type=integer, metavar="N", default=DEFAULT_LIMIT,
                   help=f"--output-dir: at most N findings and N executions on each page (default {DEFAULT_LIMIT:,})")
    p.add_argument("--capture-memory", type=integer, metavar="MIB", default=None,
                   help="the address space one capture's process may map, in MiB (default: the machine's memory "
                        "shared among the jobs, at least 2,048)")
    p.add_argument("--capture-timeout", type=number, metavar="S", default=DEFAULT_TIMEOUT_S,
                   help=f"the seconds one capture's process may take (default {DEFAULT_TIMEOUT_S:g})")
    add_executor_flags(p)
    p.set_defaults(func=run)


def _outputs(args: argparse.Namespace, judged: list[str]) -> None:
    """Every output named can be written, and none is another, a baseline or a file ``judged``: exit 2 before any
    capture runs."""
    from d3d12wl.output import claims
    from d3d12wl.output.outfiles import check_target, is_stdout

    named = [(flag, path) for flag, path in (("-o", args.output), ("--junit", args.junit),
                                               ("--write-baseline", args.write_baseline)) if not is_stdout(path)]
    for flag, path in named:
        check_target(path)
    # (the rule of every command: no output is an input or another output, d3d12wl.output.claims)
    claims.check(named, [*(("--baseline", p) for p in args.baseline or ()), *(("PATH", p) for p in args.paths),
                         *(("PATH", p) for p in judged)])
    if [p for p in (args.junit, args.write_baseline) if p is not None and is_stdout(p)]:
        raise D3D12WLError("--junit and --write-baseline write files; standard output has the summary",
                           where="--junit" if is_stdout(args.junit) else "--write-baseline")
    if args.output_dir is not None:
        try:
            os.makedirs(args.output_dir, exist_ok=True)
        except OSError as exc:
            raise D3D12WLError(f"cannot make the folder: {exc.strerror or exc}", where="--output-dir") from None


def _kind_of(path: str) -> str | None:
    """What a file that did not load as a capture is: another kind of d3d12wl file (``description``, ``saved
    trace``, ``call sequence``), a capture tool's (``GFXReconstruct convert JSON``, ...), ``JSON file of no d3d12wl
    kind`` (an object with none of a capture's own members: a folder's other JSON, judged as skipped), or None (a
    broken capture, or not JSON at all: unusable)."""
    from d3d12wl import inputs
    from d3d12wl.capture.file import CAPTURE_ONLY
    from d3d12wl.cli import documents

    tool = documents.tool_kind_of_file(path)  # (before a parse: such a file runs to gigabytes)
    if tool is not None:
        return tool
    try:
        doc = inputs.load_json(path, what="file")
    except D3D12WLError:
        return None
    kind = documents.kind_of(doc)
    if kind is None and isinstance(doc, dict) and not set(doc) & CAPTURE_ONLY:
        return "JSON file of no d3d12wl kind"
    return kind


def run(args: argparse.Namespace) -> int:
    from d3d12wl.output.outfiles import output_file
    from d3d12wl.output.serialize import json_text
    from d3d12wl.verdicts.baseline import baseline_document, load_baseline
    from d3d12wl.verdicts.discover import PATTERN, discover, parse_shard
    from d3d12wl.verdicts.judge import JudgeOptions, judge, warm_up
    from d3d12wl.verdicts.junit import junit_xml
    from d3d12wl.verdicts.results import CaptureResult, CheckResults, report_document, summary_lines, verdict_text
    from d3d12wl.verdicts.runner import Bounds, default_jobs, default_memory_mib, run_all

    jobs = default_jobs() if args.jobs is None else args.jobs
    if jobs < 1:
        raise D3D12WLError("--jobs must be >= 1", where="--jobs")
    if args.limit < 0:
        raise D3D12WLError("--limit must be >= 0", where="--limit")
    if args.capture_memory is not None and args.capture_memory < 64:
        raise D3D12WLError("--capture-memory is in MiB and must be >= 64", where="--capture-memory")
    if args.capture_timeout <= 0:
        raise D3D12WLError("--capture-timeout must be > 0", where="--capture-timeout")
    shard = parse_shard(args.shard) if args.shard is not None else None
    limits = limits_from(args)
    readings = readings_from(args)
    found = discover(args.paths)
    if not found:  # (a CI job that judges nothing must not pass: a folder left empty, captures not fetched)
        raise D3D12WLError(f"found no {PATTERN} file to judge in {', '.join(args.paths)}: name capture files, or "
                           "folders that hold them", where="PATH")
    _outputs(args, [t.path for t in found])
    baseline = load_baseline(args.baseline or [])
    hooks = load_hooks(args.validators)
    targets = shard.of(found) if shard is not None else found
    jobs = min(jobs, max(len(targets), 1))
    memory = args.capture_memory if args.capture_memory is not None else default_memory_mib(jobs)
    options = JudgeOptions(limits, readings, hooks, baseline, args.output_dir, args.limit, _kind_of)

    def work(target: Any) -> CaptureResult:
        return judge(target, options)

    progress = Progress("check", quiet=args.quiet)
    finished: list[CaptureResult] = []

    def done(result: CaptureResult) -> None:
        finished.append(result)
        fails = sum(r.status == "fail" for r in finished)
        progress.stage(f"judged {len(finished):,}/{len(targets):,} files ({fails:,} fail)")

    start = time.perf_counter()
    warm_up(options)
    results = run_all(targets, work, jobs=jobs, bounds=Bounds(memory, args.capture_timeout), done=done)
    progress.done()
    checked = CheckResults(results, str(shard) if shard else None, jobs, memory, args.capture_timeout,
                           time.perf_counter() - start, list(args.baseline or ()))
    if args.junit is not None:
        with output_file(args.junit, binary=True) as out:
            out.write(junit_xml(checked))
    if args.write_baseline is not None:
        document = baseline_document((r.path, r.errors_by_kind, r.findings_suppressed) for r in results if r.judged)
        with output_file(args.write_baseline) as out:
            out.write(json_text(document) + "\n")
    with output_file(args.output) as out:
        if args.json:
            out.write(json_text(report_document(checked)) + "\n")
        else:
            out.write("\n".join(summary_lines(checked)) + "\n")
    status = checked.exit_status
    if status:
        print(f"d3d12wl check: {verdict_text(checked)}", file=sys.stderr)
    return status
