"""The ``d3d12wl exec`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import dataclasses
import io
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from importlib import resources
from typing import TYPE_CHECKING, Any

from d3d12wl import tables
from d3d12wl.cli import summary
from d3d12wl.cli.documents import CAPTURE, expecting
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor.output import FORMATS
from d3d12wl.executor.trace import AUTO, SCALED_FLOORS, Execution, Limits, Readings, Trace, ValidatorInvocation

if TYPE_CHECKING:
    from d3d12wl.executor.validation import ValidationRunner

EXAMPLE = "culling_capture.json"


#: the plain-text --help description
DESCRIPTION = """\
Run the executor on a capture and print the trace.

With no CAPTURE it runs the bundled example (the spec's GPU culling example).  Human output: one line per list,
one line per validator invocation (when there are any), one line per execution, the end-of-call reset, then the
findings; --json prints the whole trace as JSON (validator_invocations included).  --format picks text, json
(the same JSON, streamed), jsonl (one record per line), csv, npz or parquet (the execution table, with every root
argument and IA binding as columns; parquet needs pip install 'd3d12wl[parquet]'); -o PATH writes to a file.  Every format is written as the trace streams out of its
columns.

--validators SPEC (repeatable) runs GPU-timeline validators (spec "GPU Timeline Validation Hooks"): SPEC is
module:attr or path/to/file.py:attr naming a ValidationRunner, a Validator, an iterable of Validators or a
zero-argument factory returning one (the bundled example is d3d12wl.examples.validators:VALIDATORS).  Validators
run only where the capture binds a signature array with a non-null ValidationProgramTable; its slots'
identifiers select them.  A SPEC that cannot be loaded exits 2.

The record and execution limits default to auto: the records the capture's mapped bytes can hold, so a real
frame runs whole; broadcast strides are bounded by --max-repeated-records.

Exit status: 0 when the trace has no error findings, 1 when it has (undefined behaviour, invalid call, a limit
reached), 2 when the capture cannot be used at all."""


def register(sub: Any) -> None:
    p = sub.add_parser("exec", help=summary("exec"), description=DESCRIPTION, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("capture", nargs="?", help=f"capture file (default: the bundled example {EXAMPLE})")
    p.add_argument("--json", action="store_true", help="print the trace as JSON (the same as --format json)")
    p.add_argument("--format", choices=FORMATS, default=None,
                   help="text (default), json (Trace.to_dict, streamed), jsonl (one record per line), csv, npz or "
                        "parquet (the execution table; parquet needs the pyarrow extra); every format is written "
                        "as the trace streams out of its columns")
    p.add_argument("-o", "--output", metavar="PATH", default=None,
                   help="write to PATH instead of standard output (npz, parquet: standard output gets the bytes)")
    p.add_argument("--validators", action="append", metavar="SPEC", default=None,
                   help="run validators from module:attr or path/to/file.py:attr (a ValidationRunner, Validator, "
                        "iterable of Validators or zero-argument factory); repeatable")
    add_limit_flags(p)
    add_reading_flag(p)
    p.set_defaults(func=run)


def limit_value(text: str) -> int:
    """A ``--max-...`` value: a count, or ``auto`` (scaled to the capture's mapped bytes)."""
    return AUTO if text.strip().lower() == "auto" else int(text)


def add_limit_flags(p: argparse.ArgumentParser) -> None:
    """The ``--max-...`` flags of every :class:`~d3d12wl.executor.trace.Limits` field (``exec`` and ``dump``)."""
    defaults = Limits()
    for f in dataclasses.fields(Limits):
        default = getattr(defaults, f.name)
        shown = ("auto: the records the capture's mapped bytes hold, at least "
                 f"{SCALED_FLOORS[f.name]:,}") if default == AUTO else f"{default:,}"
        p.add_argument(Limits.flag(f.name), type=limit_value, metavar="N", default=default, dest=f.name,
                       help=f"executor limit {f.name} (default {shown})")


def add_reading_flag(p: argparse.ArgumentParser) -> None:
    """``--reading NAME=VALUE`` (``exec`` and ``dump``): a :class:`~d3d12wl.executor.trace.Readings` field."""
    choices = "; ".join(f"{n}={'|'.join(v)}" for n, v in Readings.CHOICES.items())
    p.add_argument("--reading", action="append", default=[], metavar="NAME=VALUE",
                   help=f"read a spec sentence that can be read two ways the other way: {choices} (the first "
                        "value of each is d3d12wl's reading, the default)")


def readings_from(args: argparse.Namespace) -> Readings:
    """The :class:`~d3d12wl.executor.trace.Readings` of ``--reading``; a bad one is exit 2 naming it."""
    chosen: dict[str, str] = {}
    for text in args.reading:
        name, eq, value = text.partition("=")
        if not eq or name.strip() not in Readings.CHOICES:
            raise D3D12WLError(f"expected NAME=VALUE with NAME one of {', '.join(Readings.CHOICES)}",
                               where=f"--reading {text}")
        chosen[name.strip()] = value.strip()
    try:
        return Readings(**chosen)
    except ValueError as exc:
        raise D3D12WLError(str(exc), where="--reading") from None


def load_hooks(specs: list[str] | None) -> ValidationRunner | None:
    """The runner for ``--validators`` (None without any); a spec that cannot be loaded raises
    :class:`~d3d12wl.errors.ValidatorSpecError`, which the CLI turns into exit 2."""
    if not specs:
        return None
    from d3d12wl.executor.validation import load_validators

    return load_validators(specs)


def limits_from(args: argparse.Namespace) -> Limits:
    return Limits(**{f.name: getattr(args, f.name) for f in dataclasses.fields(Limits)})


def run(args: argparse.Namespace) -> int:
    from d3d12wl.capture.file import load_capture
    from d3d12wl.executor import execute

    limits = limits_from(args)
    bad = [f.name for f in dataclasses.fields(Limits) if getattr(limits, f.name) < 0
           and not (getattr(limits, f.name) == AUTO and f.name in SCALED_FLOORS)]
    if bad:
        raise D3D12WLError(f"limits must be >= 0: {', '.join(bad)}", where=" ".join(Limits.flag(b) for b in bad))
    hooks = load_hooks(args.validators)
    with ExitStack() as stack:
        path = args.capture
        if path is None:
            path = str(stack.enter_context(resources.as_file(resources.files("d3d12wl") / "examples" / EXAMPLE)))
        with expecting(path, CAPTURE):  # (a description, a trace or a call sequence is named so)
            capture = load_capture(path)  # an unusable capture raises CaptureError: d3d12wl.cli.main exits 2
        trace = execute(capture, limits, hooks=hooks, readings=readings_from(args))
    fmt = args.format or ("json" if args.json else "text")
    if args.json and fmt != "json":
        raise D3D12WLError(f"--json and --format {fmt} disagree", where="--format")
    write_trace(trace, fmt, args.output, validators=hooks is not None)
    return 1 if trace.errors else 0


def write_trace(trace: Trace, fmt: str, path: str | None, *, validators: bool | None = None) -> None:
    """Write ``trace`` in ``fmt`` (:data:`~d3d12wl.executor.output.FORMATS`) to ``path`` or standard output."""
    from d3d12wl.executor import output

    if fmt in ("npz", "parquet"):
        write = output.write_npz if fmt == "npz" else output.write_parquet
        if path is not None:
            write(trace, path)
        else:
            buf = io.BytesIO()
            write(trace, buf)
            sys.stdout.buffer.write(buf.getvalue())
        return
    with ExitStack() as stack:
        out = sys.stdout if path is None else stack.enter_context(open(path, "w", encoding="utf-8", newline=""))
        if fmt == "json":
            output.write_json(trace, out)
        elif fmt == "jsonl":
            output.write_jsonl(trace, out)
        elif fmt == "csv":
            output.write_csv(trace, out)
        else:
            for chunk in _chunks(text_lines(trace, validators=validators)):
                out.write(chunk)


def _chunks(lines: Iterator[str], size: int = 4096) -> Iterator[str]:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= size:
            yield "\n".join(batch) + "\n"
            batch = []
    if batch:
        yield "\n".join(batch) + "\n"


# -- human output ---------------------------------------------------------------------------------------------


def _hex(value: Any) -> str:
    return f"0x{value:x}" if isinstance(value, int) else "-" if value is None else str(value)


def _where(e: Execution) -> str:
    if e.command_index is not None:
        return f"command {e.command_index}"
    parts = [f"list {e.list_index}", f"primary {e.primary_index}"]
    if e.secondary_index is not None:
        parts.append(f"secondary {e.secondary_index}")
    return " ".join(parts)


def _root_args(e: Execution) -> str:
    out = []
    for ra in e.root_arguments:
        if ra.kind == "static_sampler":
            continue
        tag = f"{'G' if ra.binding == 'global' else 'L'}{ra.parameter}"
        if ra.kind == "constants":
            value = "[" + " ".join(_hex(v) for v in (ra.values or [])) + "]"
        else:
            value = _hex(ra.value)
        out.append(f"{tag}={value}")
    return " ".join(out)


#: the streamed rows of ``exec``'s text output (tables.Columns: fixed widths, a wider cell widens only its row)
_EXECUTION_COLUMNS = tables.Columns(widths=(6, 28, 14, 0, 0), align=(">", "<", "<", "<", "<"), indent="  ")
_VALIDATOR_COLUMNS = tables.Columns(widths=(6, 19, 7, 20, 8, 20, 0), align=(">", "<", "<", "<", "<", "<", "<"),
                                    indent="  ")


def execution_line(e: Execution) -> str:
    trigger = " ".join(f"{k}={v}" for k, v in e.trigger.fields.items() if not isinstance(v, dict))
    counter = f" counter={e.counter}" if e.counter is not None else ""
    program = e.program or "-"
    return _EXECUTION_COLUMNS.row((f"#{e.index}", _where(e), program, f"{e.trigger.type} {trigger}{counter} ",
                                   _root_args(e)))


def validator_line(v: ValidatorInvocation) -> str:
    """One validator invocation: sequence, area and step, list and primary record, slot, validator, pointers."""
    where = f"list {v.list_index}" + (f" primary {v.primary_index}" if v.primary_index is not None else "")
    pointers = " ".join(f"{k}={_hex(p) if p is not None else 'NULL'}" for k, p in v.pointers.items())
    return _VALIDATOR_COLUMNS.row((f"#{v.sequence}", v.area, f"step {v.step} ", where, f"slot {v.slot}",
                                   v.validator, pointers))


def _arg(key: str, value: Any) -> str:
    if isinstance(value, int) and key.endswith(("Input", "Buffer", "Address")):
        return f"{key}=0x{value:x}"
    return f"{key}={'NULL' if value is None else value}"


def render_text(trace: Trace, *, validators: bool | None = None) -> str:
    """The human trace.  ``validators``: print the validator invocations block (None: only when there are
    invocations; ``exec --validators`` prints it, empty or not)."""
    return "\n".join(text_lines(trace, validators=validators)) + "\n"


def text_lines(trace: Trace, *, validators: bool | None = None) -> Iterator[str]:
    """The lines of :func:`render_text`, one at a time (executions made from their columns as they are written)."""
    yield f"{trace.call}({', '.join(_arg(k, v) for k, v in trace.call_args.items())})"
    for lt in trace.lists:
        cont = ""
        if lt.continuation is not None:
            nxt = lt.continuation.get("next")
            cont = f"  next={_hex(nxt)}{' (followed)' if lt.continuation.get('followed') else ''}"
        yield (f"list {lt.index} @0x{lt.va:x}  {lt.input_struct}  NumProgramInputs="
               f"{lt.header.get('NumProgramInputs')}  flags={'|'.join(lt.flags) or 'NONE'}  signature "
               f"{lt.signature_index} {lt.signature or '-'}  {lt.executable_class or '-'}  "
               f"{lt.ordering or ''}{cont}{'  stopped: ' + lt.stopped if lt.stopped else ''}")
    if validators or (validators is None and trace.validator_invocations):
        yield f"validator invocations ({len(trace.validator_invocations)})"
        yield from (validator_line(v) for v in trace.validator_invocations)
    yield f"executions ({len(trace.executions)})"
    yield from (execution_line(e) for e in trace.executions)
    yield "end-of-call reset" + ("" if trace.end_of_call_reset else ": nothing")
    for r in trace.end_of_call_reset:
        what = f"slot {r.slot}" if r.slot is not None else f"parameter {r.parameter}" if r.parameter is not None else ""
        dwords = f" dwords {r.dwords}" if r.dwords else ""
        yield f"  {r.binding_set:<8} {r.what} {what}{dwords} -> {r.reset_to}"
    more = f", {trace.findings_suppressed} more suppressed" if trace.findings_suppressed else ""
    yield f"findings ({len(trace.findings)}{more})"
    yield from (f"  {f}" for f in trace.findings)
    if trace.stopped_reason:
        yield f"stopped: {trace.stopped_reason}"
