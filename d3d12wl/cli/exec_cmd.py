"""The ``d3d12wl exec`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
from contextlib import ExitStack
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from d3d12wl.cli import summary
from d3d12wl.cli._options import (
    add_json_flag,
    add_output_flag,
    add_quiet_flag,
    add_validators_flag,
    integer,
    warn,
)
from d3d12wl.cli.documents import CAPTURE, expecting
from d3d12wl.cli.progress import Progress
from d3d12wl.errors import D3D12WLError, did_you_mean
from d3d12wl.executor.output import FORMATS, JSON_VERSION, JSON_VERSIONS, TRACE_WRITERS
from d3d12wl.executor.selection import Selection
from d3d12wl.executor.trace import AUTO, SCALED_FLOORS, Limits, Readings, Trace
from d3d12wl.output import claims

if TYPE_CHECKING:
    from d3d12wl.capture.file import Capture
    from d3d12wl.executor.validation import ValidationRunner

EXAMPLE = "culling_capture.json"


#: the plain-text --help description
DESCRIPTION = """\
Run the executor on a capture and write the trace.

With no CAPTURE it runs the bundled example (the spec's GPU culling example).

Formats (--format), every one written from the trace's columns, with the verdict:
  text     the call, one line per list, per validator invocation, per execution, the end-of-call reset and the
           findings (the default)
  json     the whole trace as one JSON document
  jsonl    one JSON record per line: call, list, primary_record, validator_invocation, execution, reset,
           finding, and last end (with the verdict)
  csv      the execution table, one row per execution: VAs and root constants in 0x hex, names and enum
           members by name, absent values empty; the verdict table (findings and end-of-call reset) goes to
           FILE.findings.csv beside -o FILE.csv (or --findings PATH)
  npz      the execution table as a structured array `executions`, the verdict table `findings`, the name
           tables `names.<column>` and `meta` (JSON): pandas.DataFrame(numpy.load(F)["executions"])
  parquet  the execution table (names and enums as dictionary columns, VAs uint64, absent values null; the
           verdict in the key-value metadata `d3d12wl`) and the verdict table in FILE.findings.parquet
           (or --findings PATH); needs pip install 'd3d12wl[parquet]'

JSON versions (--json-version; json and jsonl say theirs first, version 1 by saying none):
  1        every execution in the trace's own shape (Trace.to_dict: nested root arguments with registers,
           sources and origins; 2-3 KB each; json byte for byte what earlier versions print)
  2        every execution as the execution table's row (the columns of csv, npz and parquet, flat, VAs as
           integers, names as strings, null where absent; 0.8 KB each on the culling frame): the default of
           --format json and jsonl
--json is --format json, as on every command that has --format.  Until now it wrote version 1 (the trace diff
and the migration checks read); this release it still does when --json-version is not given, with a warning on
standard error, and the next writes the version --format json writes: to keep version 1, add --json-version 1.

-o PATH writes to a file (atomically: an interrupted or failed run leaves the old file or none; npz and
parquet go to standard output without it).  When the trace has error findings (exit status 1), one line on
standard error says how many of which kinds and where they were written.  Progress goes to standard error
when it is a terminal (--quiet silences it).

Selection (the same as on dump): --list N, --primary A:B, --program NAME select the lists, primary records and
executions; --kind KIND (repeatable) the findings; --limit N shows at most N executions, N primary records,
N secondary records and N findings, the first ones in the trace's order (default: all), and every format says
what it left out.

--validators SPEC (repeatable) runs GPU-timeline validators (spec "GPU Timeline Validation Hooks"): SPEC is
module:attr or path/to/file.py:attr naming a ValidationRunner, a Validator, an iterable of Validators or a
zero-argument factory returning one (the bundled example is d3d12wl.examples.validators:VALIDATORS).  Validators
run only where the capture binds a signature array with a non-null ValidationProgramTable; its slots'
identifiers select them.  A SPEC that cannot be loaded exits 2.

The record and execution limits default to auto: the records the capture's supplied bytes can hold (its hex,
base64 and file regions; of a zeros region, what was written), so a real frame runs whole; broadcast strides are
bounded by --max-repeated-records.

Exit status: 0 when the trace has no error findings, 1 when it has (undefined behaviour, invalid call, a limit
reached), 2 when the capture, a flag or an output path cannot be used."""


def register(sub: Any) -> None:
    p = sub.add_parser("exec", help=summary("exec"), description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", nargs="?", help=f"capture file (default: the bundled example {EXAMPLE})")
    add_json_flag(p, "the trace: --format json (this release without --json-version: version 1, with a warning; "
                     "the next: the version --format json writes)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="text (default), json (one document), jsonl (one record per line), csv, npz or parquet "
                        "(the execution table; parquet needs the pyarrow extra)")
    p.add_argument("--json-version", type=integer, metavar="N", default=None,
                   help=f"json, jsonl: the version to write, {' or '.join(map(str, JSON_VERSIONS))} (default "
                        f"{JSON_VERSION}; with --json 1): 1 every execution in the trace's shape, 2 as the "
                        "execution table's row")
    add_output_flag(p, "where the trace goes (default: standard output)")
    p.add_argument("--findings", metavar="PATH", default=None,
                   help="csv, parquet: where the verdict table goes (default: beside -o FILE.EXT, "
                        "FILE.findings.EXT)")
    add_validators_flag(p)
    add_selection_flags(p, default_limit=0)
    add_quiet_flag(p)
    add_limit_flags(p)
    add_reading_flag(p)
    p.set_defaults(func=run)


def add_selection_flags(p: argparse.ArgumentParser, *, default_limit: int) -> None:
    """The selection flags of ``exec`` and ``dump`` (:class:`~d3d12wl.executor.selection.Selection`)."""
    p.add_argument("--list", type=integer, metavar="N", default=None, dest="list_index",
                   help="only list N (its header, records, executions and findings)")
    p.add_argument("--primary", metavar="A:B", default=None,
                   help="only primary records A..B-1 (A:, :B and A alone work too) and their executions")
    p.add_argument("--program", metavar="NAME", default=None,
                   help="only the records and executions of program NAME")
    p.add_argument("--kind", action="append", metavar="KIND", default=None,
                   help="only findings of kind KIND (repeatable; d3d12wl.executor.trace.FINDING_KINDS)")
    shown = f"default {default_limit:,}" if default_limit else "default 0: all"
    p.add_argument("--limit", type=integer, metavar="N", default=default_limit,
                   help=f"at most N executions, N primary records, N secondary records and N findings, the first "
                        f"ones in the trace's order ({shown}); the output says how many it left out")


def selection_from(args: argparse.Namespace) -> Selection:
    """The :class:`~d3d12wl.executor.selection.Selection` of :func:`add_selection_flags`' flags (a bad value is
    exit 2 naming the flag)."""
    from d3d12wl.executor.selection import parse_range
    from d3d12wl.executor.trace import FINDING_KINDS

    try:
        primary = parse_range(args.primary) if args.primary is not None else None
    except ValueError:
        raise D3D12WLError(f"--primary {args.primary!r} is not A:B: give A:B for primary records A..B-1 (A: and :B "
                           "and A alone work too)", where="--primary") from None
    if primary is not None and not 0 <= primary[0] < primary[1]:
        raise D3D12WLError(f"--primary {args.primary!r} selects no record: give A:B with 0 <= A < B for primary "
                           "records A..B-1", where="--primary")
    if args.list_index is not None and args.list_index < 0:
        raise D3D12WLError(f"--list {args.list_index} is no list: lists are numbered from 0 in the chain's order",
                           where="--list")
    if args.limit < 0:
        raise D3D12WLError("--limit must be >= 0 (0: all)", where="--limit")
    unknown = [k for k in args.kind or () if k not in FINDING_KINDS]
    if unknown:
        raise D3D12WLError(f"--kind {unknown[0]!r} is not a finding kind{did_you_mean(unknown[0], FINDING_KINDS)} "
                           "(d3d12wl.executor.trace.FINDING_KINDS lists them)", where="--kind")
    return Selection(args.list_index, primary, args.program, frozenset(args.kind) if args.kind else None,
                     args.limit)


def check_selection(args: argparse.Namespace, capture: Capture) -> None:
    """The selection names what the capture's call has (exit 2 otherwise, not an empty selection that looks like
    a call that ran nothing): ``--program NAME`` a program of the capture (with the closest name); ``--list`` and
    ``--primary`` a work list's lists and primary records, which an ExecuteIndirect call has none of."""
    from d3d12wl.model.state import ExecuteIndirectCall

    names = list(capture.objects.programs)
    if args.program is not None and args.program not in names:
        raise D3D12WLError(f"no program {args.program!r} in the capture{did_you_mean(args.program, names)}; its "
                           f"programs: {', '.join(names) or 'none'}", where="--program")
    given = [flag for flag, value in (("--list", args.list_index), ("--primary", args.primary)) if value is not None]
    if given and isinstance(capture.call, ExecuteIndirectCall):
        raise D3D12WLError(f"{given[0]} selects a work list's lists and primary records, and an ExecuteIndirect call "
                           "has none: its commands are its executions (--limit N shows the first N)", where=given[0])


def limit_value(text: str) -> int:
    """A ``--max-...`` value: a count, or ``auto`` (scaled to the capture's supplied bytes)."""
    return AUTO if text.strip().lower() == "auto" else integer(text)


def add_limit_flags(p: argparse.ArgumentParser) -> None:
    """The ``--max-...`` flags of every :class:`~d3d12wl.executor.trace.Limits` field (``exec`` and ``dump``)."""
    defaults = Limits()
    for f in dataclasses.fields(Limits):
        default = getattr(defaults, f.name)
        shown = ("auto: the records the capture's supplied bytes hold, at least "
                 f"{SCALED_FLOORS[f.name]:,}") if default == AUTO else f"{default:,}"
        # (auto's default is the word, which argparse reads through limit_value as it reads a given one: the
        # reference page's default column then says auto, not the sentinel AUTO stands for)
        p.add_argument(Limits.flag(f.name), type=limit_value, metavar="N", dest=f.name,
                       default="auto" if default == AUTO else default,
                       help=f"executor limit {f.name} (default {shown})")


def add_reading_flag(p: argparse.ArgumentParser) -> None:
    """``--reading NAME=VALUE`` (``exec`` and ``dump``): a :class:`~d3d12wl.executor.trace.Readings` field."""
    choices = "; ".join(f"{n}={'|'.join(v)}" for n, v in Readings.CHOICES.items())
    p.add_argument("--reading", action="append", default=[], metavar="NAME=VALUE",
                   help=f"read a spec sentence that can be read two ways the other way: {choices} (the first "
                        "value of each is d3d12wl's reading, the default)")


def readings_from(args: argparse.Namespace) -> Readings:
    """The :class:`~d3d12wl.executor.trace.Readings` of ``--reading``; a bad one is exit 2 naming it."""
    from d3d12wl import inputs

    chosen: dict[str, str] = {}
    given: dict[object, tuple[object, str]] = {}
    for text in args.reading:
        name, eq, value = text.partition("=")
        if not eq or name.strip() not in Readings.CHOICES:
            raise D3D12WLError(f"expected NAME=VALUE with NAME one of {', '.join(Readings.CHOICES)}",
                               where=f"--reading {text}")
        inputs.given_once(given, name.strip(), value.strip(), text, flag="--reading", what=f"reading {name.strip()}")
        chosen[name.strip()] = value.strip()
    try:
        return Readings(**chosen)
    except ValueError as exc:
        raise D3D12WLError(str(exc), where="--reading") from None


def load_capture_arg(path: str | None, stack: ExitStack) -> Capture:
    """The capture a command was given (None: the bundled example :data:`EXAMPLE`, its file kept while ``stack``
    is open); a file of another kind (a description, a trace, a call sequence) is named so, and an unusable
    capture raises :class:`~d3d12wl.errors.CaptureError` (exit 2)."""
    from d3d12wl.capture.file import load_capture

    if path is None:
        path = str(stack.enter_context(resources.as_file(resources.files("d3d12wl") / "examples" / EXAMPLE)))
    with expecting(path, CAPTURE):
        return load_capture(path)


def add_executor_flags(p: argparse.ArgumentParser) -> None:
    """What a command that runs the executor on captures takes besides (``report``, ``check``): ``--validators``,
    ``--quiet``, the ``--max-...`` limits and ``--reading``."""
    add_validators_flag(p)
    add_quiet_flag(p)
    add_limit_flags(p)
    add_reading_flag(p)


def load_hooks(specs: list[str] | None) -> ValidationRunner | None:
    """The runner for ``--validators`` (None without any); a spec that cannot be loaded raises
    :class:`~d3d12wl.errors.ValidatorSpecError`, which the CLI turns into exit 2."""
    if not specs:
        return None
    from d3d12wl.executor.validation import load_validators

    return load_validators(specs)


def limits_from(args: argparse.Namespace) -> Limits:
    """The :class:`~d3d12wl.executor.trace.Limits` of :func:`add_limit_flags`' flags, on every command that has
    them; a negative one (other than ``auto``) is exit 2 naming its flag, not a limit reached at once."""
    limits = Limits(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Limits)})
    bad = [f.name for f in dataclasses.fields(Limits) if getattr(limits, f.name) < 0
           and not (getattr(limits, f.name) == AUTO and f.name in SCALED_FLOORS)]
    if bad:
        raise D3D12WLError(f"limits must be >= 0: {', '.join(bad)} (give a count, or auto where the default is auto)",
                           where=" ".join(Limits.flag(b) for b in bad))
    return limits


def run(args: argparse.Namespace) -> int:
    from d3d12wl.executor import execute

    limits = limits_from(args)
    fmt = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise D3D12WLError(f"--json is --format json, so it and --format {fmt} disagree: give one of them",
                           where="--format")
    version = json_version_of(args, fmt)
    if args.findings is not None and TRACE_WRITERS[fmt].verdict is None:
        tables = " and ".join(w.name for w in TRACE_WRITERS if w.verdict is not None)
        raise D3D12WLError(f"--findings names the verdict table of {tables}; --format {fmt} holds the "
                           "findings itself: leave --findings out", where="--findings")
    selection = selection_from(args)
    side = _sidecar(args.output, args.findings, fmt) if TRACE_WRITERS[fmt].verdict is not None else None
    claims.check([("-o", args.output), ("--findings" if args.findings else "the verdict table beside -o", side)],
                 [("CAPTURE", args.capture)])
    hooks = load_hooks(args.validators)
    progress = Progress("exec", quiet=args.quiet)
    with ExitStack() as stack:
        progress.stage("loading the capture")
        capture = load_capture_arg(args.capture, stack)
        check_selection(args, capture)
        progress.stage("executing")
        trace = execute(capture, limits, hooks=hooks, readings=readings_from(args))
    where = write_trace(trace, fmt, args.output, validators=hooks is not None, selection=selection,
                        findings=args.findings, progress=progress, json_version=version)
    progress.done()
    if trace.has_errors:
        print(f"d3d12wl exec: {verdict_line(trace)}; {where}", file=sys.stderr)
        return 1
    return 0


def json_version_of(args: argparse.Namespace, fmt: str) -> int:
    """The JSON version ``exec`` writes: ``--json-version``, else 1 with ``--json`` (the trace for tools) and
    :data:`~d3d12wl.executor.output.JSON_VERSION` with ``--format json`` / ``jsonl``; a version not in
    :data:`~d3d12wl.executor.output.JSON_VERSIONS`, or one given with another format, is exit 2 naming the flag."""
    if args.json_version is None:
        if args.json and JSON_VERSION != 1:
            warn("d3d12wl exec", f"--json wrote JSON version 1 before and still does this release; from the next it "
                                 f"writes what --format json writes (version {JSON_VERSION}): add --json-version 1 "
                                 "to keep version 1 (diff and migrate read it)")
            return 1
        return JSON_VERSION
    if fmt not in ("json", "jsonl"):
        raise D3D12WLError(f"json and jsonl have versions; --format {fmt} has none: leave --json-version out",
                           where="--json-version")
    if args.json_version not in JSON_VERSIONS:
        raise D3D12WLError(f"{args.json_version} is not one of "
                           f"{', '.join(map(str, JSON_VERSIONS))}", where="--json-version")
    return int(args.json_version)


def verdict_line(trace: Trace) -> str:
    """``3 error findings (misaligned-va 2, limit-exceeded 1), 1 warning``: the findings by severity, the errors by
    kind, and how many more were suppressed."""
    from d3d12wl.executor.output import verdict

    v = verdict(trace)
    errors = {kind: n for (severity, kind), n in trace.finding_counts().items() if severity == "error"}
    n = v["findings_by_severity"].get("error", 0)
    text = f"{n:,} error finding{'s' if n != 1 else ''} (" + ", ".join(f"{k} {c:,}" for k, c in errors.items()) + ")"
    for severity in ("warning", "info"):
        m = v["findings_by_severity"].get(severity, 0)
        if m:
            text += f", {m:,} {severity}{'s' if m != 1 and severity == 'warning' else ''}"
    if trace.findings_suppressed:
        text += f", {trace.findings_suppressed:,} more suppressed (--max-findings)"
    return text


def _sidecar(output: str | None, findings: str | None, ext: str) -> str | None:
    """Where the verdict table of a csv or parquet output goes: ``--findings``, else beside ``-o FILE.EXT`` as
    ``FILE.findings.EXT``; None for standard output without ``--findings``."""
    from d3d12wl.output.outfiles import is_stdout

    if findings is not None:
        return findings
    if is_stdout(output):
        return None
    assert output is not None
    p = Path(output)
    stem = p.name[: -len(p.suffix)] if p.suffix else p.name
    return str(p.with_name(f"{stem}.findings.{ext}"))


def write_trace(trace: Trace, fmt: str, path: str | None, *, validators: bool | None = None,
                selection: Selection | None = None, findings: str | None = None,
                progress: Progress | None = None, json_version: int = 1) -> str:
    """Write ``trace`` in ``fmt`` (a writer of :data:`~d3d12wl.executor.output.TRACE_WRITERS`; json and jsonl in
    version ``json_version``) to ``path`` or standard output (atomically, through
    :func:`d3d12wl.output.outfiles.output_file`), with the verdict: in the output, or for a writer with a verdict
    table of its own, beside it (``findings``, else ``FILE.findings.<fmt>`` beside ``-o FILE.<fmt>``); returns where
    the findings went (for the exit-1 line)."""
    from d3d12wl.executor.output import TRACE_WRITERS, WriteOptions
    from d3d12wl.output.outfiles import is_stdout, output_file

    writer = TRACE_WRITERS[fmt]
    shown = "standard output" if is_stdout(path) else repr(path)
    side = _sidecar(path, findings, fmt) if writer.verdict is not None else None
    options = WriteOptions(selection or Selection(), progress.writer(len(trace.executions)) if progress else None,
                           validators, json_version, None if side is None else Path(side).name)
    with ExitStack() as stack:
        # (the file named first: an -o that cannot be written is the error; the verdict table is renamed into place
        # first, the executions last)
        out = stack.enter_context(output_file(path, binary=True))
        if side is not None and writer.verdict is not None:
            writer.verdict(trace, stack.enter_context(output_file(side, binary=True)), options)
        writer.write(trace, out, options)
        if writer.verdict is None:
            inside = f" ({writer.verdict_inside})" if writer.verdict_inside else ""
            return f"written to {shown}{inside}"
        out.flush()  # (an output written through that fails, a full device, fails here, naming itself: before the
        #            verdict table, renamed first, takes its name)
        if side is None:
            return (f"not written: the verdict table of {fmt} on standard output needs --findings PATH (or -o "
                    f"FILE.{fmt}: it then goes to FILE.findings.{fmt})")
        return f"written to {side!r} (the verdict table of {shown})"


def render_text(trace: Trace, *, validators: bool | None = None) -> str:
    """The human trace (what ``d3d12wl exec`` prints).  ``validators``: print the validator invocations block
    (None: only when there are invocations; ``exec --validators`` prints it, empty or not)."""
    from d3d12wl.executor.output import write_text

    out = io.BytesIO()
    write_text(trace, out, validators=validators)
    return out.getvalue().decode("utf-8")
