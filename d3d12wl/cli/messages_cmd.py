"""The ``d3d12wl messages`` command: its options in ``register``, its work in ``run``; what it does, for users,
is :data:`DESCRIPTION` (its ``--help``)."""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path
from typing import Any

from d3d12wl import inputs
from d3d12wl.cli import summary
from d3d12wl.cli._options import add_json_flag
from d3d12wl.errors import UsageError
from d3d12wl.messages.conformance import DEFAULT_BUDGET_S, MIN_CHECK_S, ConformanceReport, run_conformance
from d3d12wl.messages.conformance_harness import SITE_LOAD
from d3d12wl.messages.driver import Driver
from d3d12wl.messages.errors import MessagesError
from d3d12wl.output import claims, tables
from d3d12wl.output.outfiles import output_file
from d3d12wl.output.serialize import to_jsonable

REFERENCE_NAME = "d3d12wl reference driver (Python model, d3d12wl.messages.reference_driver)"

DESCRIPTION = f"""\
The driver-reported-messages conformance suite (spec v0.3, "HLK / conformance"): checks of the delivery contract,
each deciding one spec sentence on any implementing driver, run against a driver.

d3d12wl messages check                      the bundled reference driver (d3d12wl.messages.reference_driver)
d3d12wl messages check --driver LIB.so      a driver library exporting the entry points of
                                            d3d12wl/messages/c/d3d12wl_conformance_ddi.h, handed real C tables
                                            laid out by the compiled headers
    [--callback-offset NAME=OFFSET ...]     where the driver reads a callback of D3D12DDI_CORELAYER_DEVICECALLBACKS_0126
    [--callback-table-size BYTES]           (its real d3d12umddi.h offsets: the spec elides the members before them)
    [--timeout SECONDS]                     the time budget of the whole run with --driver (default {DEFAULT_BUDGET_S:g}):
                                            the library is loaded and queried, then each check run, in a process of
                                            its own, each check given an equal share of the budget left (at least
                                            {MIN_CHECK_S:g} s); a crash, an exit or a hang fails one check
    [--json | --junit FILE]                 JSON on stdout, or a JUnit XML report written to FILE as well as the text

One line per check: pass, fail, skip (not decided) or warn (a "should" not followed), its name and the spec sentence
it decides; then what each failure and warning saw, and which checks passed without deciding.  A driver that does
not offer the feature is checked for silence and skips the rest.  A driver's fault (an exception, a crash, an exit,
a hang) at one DDI entry point fails one check and skips the others that met it.  Exit 0 no check failed, 1 a check
failed, 2 unusable input (the library cannot be loaded -- it crashes, exits or loops while loading -- or lacks an
entry point; a bad option), 3 an internal error.

The checks (each decides one sentence of the spec, quoted):
{{checks}}"""


def _checks_text() -> str:
    import textwrap

    from d3d12wl.messages.conformance import CHECKS

    lines = []
    for c in CHECKS:
        lines.append(f"  {c.name}{' (a should: warn)' if c.advisory else ''}")
        lines += textwrap.wrap(f"\u201c{c.sentence}\u201d", 112, initial_indent="      spec: ",
                               subsequent_indent="            ", break_on_hyphens=False, break_long_words=False)
        lines += textwrap.wrap(c.decides, 112, initial_indent="      decides: ", subsequent_indent="               ",
                               break_on_hyphens=False, break_long_words=False)
    return "\n".join(lines)


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    description = DESCRIPTION.format(checks=_checks_text())
    p = subparsers.add_parser(
        "messages", help=summary("messages"),
        description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="messages_command", metavar="SUBCOMMAND")
    sub.required = True
    c = sub.add_parser("check", help="run the conformance checks against the reference driver or a driver library",
                       description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    c.add_argument("--driver", metavar="LIB.so", help="a driver shared library (default: the bundled reference driver)")
    c.add_argument("--callback-offset", action="append", default=[], metavar="NAME=OFFSET",
                   help="byte offset of a D3D12DDI_CORELAYER_DEVICECALLBACKS_0126 member in the driver's real table "
                        "(with --driver; decimal or 0x hex; repeatable)")
    c.add_argument("--callback-table-size", metavar="BYTES",
                   help="size of the driver's real callback table (with --driver; default: the compiled headers')")
    out = c.add_mutually_exclusive_group()
    add_json_flag(out, "the checks' results")
    out.add_argument("--junit", metavar="FILE", help="also write a JUnit XML report to FILE")
    c.add_argument("--timeout", metavar="SECONDS", type=float, default=DEFAULT_BUDGET_S,
                   help=f"with --driver: the time budget of the whole run (default {DEFAULT_BUDGET_S:g}); each check "
                        f"runs in its own process with an equal share of the budget left (at least {MIN_CHECK_S:g} s), "
                        "so a crash or a hang fails one check")
    c.set_defaults(func=run)


def _number(text: str, what: str) -> int:
    try:
        return inputs.integer(text)
    except ValueError:
        raise UsageError(f"{text!r} is not a number", where=what) from None


def _factory(args: argparse.Namespace, made: list[Any]) -> tuple[str, Callable[[], Driver]]:
    """(the driver's name, a factory of it) from the options; raises a D3D12WLError on unusable input.  A driver
    library's factory keeps every ``CDriver`` it makes in ``made``."""
    if args.driver is None:
        if args.callback_offset or args.callback_table_size:
            raise UsageError("--callback-offset and --callback-table-size apply to a driver library",
                             where="--driver")
        from d3d12wl.messages.reference_driver import ReferenceDriver

        return REFERENCE_NAME, ReferenceDriver
    from d3d12wl.messages.c_driver import CallbackLayout, CDriver, load_library

    offsets: dict[str, int] = {}
    given: dict[object, tuple[object, str]] = {}
    for item in args.callback_offset:
        name, sep, value = item.partition("=")
        if not sep or not name.strip():
            raise UsageError(f"{item!r} is not NAME=OFFSET", where="--callback-offset")
        offsets[name.strip()] = _number(value.strip(), "--callback-offset")
        inputs.given_once(given, name.strip(), offsets[name.strip()], item, flag="--callback-offset",
                          what=name.strip())
    size = None if args.callback_table_size is None else _number(args.callback_table_size, "--callback-table-size")
    layout = CallbackLayout.compiled().with_offsets(offsets, size)
    path = Path(args.driver)
    if not path.is_file():
        raise UsageError("no such file" if not path.exists() else "not a regular file", where=str(path))

    def factory() -> Driver:  # loaded in each check's process (load_library), never in this one
        made.append(CDriver(load_library(path), layout))
        return made[-1]

    return str(args.driver), factory


def _verdict(report: ConformanceReport) -> str:
    counts = {o: sum(r.outcome == o for r in report.results) for o in ("pass", "fail", "skip", "warn")}
    word = "FAIL" if counts["fail"] else ("SKIP" if counts["skip"] == len(report.results) else "PASS")
    warned = f", {counts['warn']} warned" if counts["warn"] else ""
    return f"verdict: {word}: {counts['pass']} passed, {counts['fail']} failed, {counts['skip']} skipped{warned}"


def format_text(name: str, report: ConformanceReport) -> list[str]:
    """The text report: a header, one line per check, what each failure saw, the verdict."""
    lines = [f"conformance: {name}"]
    lines += tables.render(("result", "check", "spec"), [(r.outcome, r.name, r.sentence) for r in report.results],
                           align=("<", "<", "<"))
    undecided = [r for r in report.results if r.outcome == "pass" and r.detail.startswith("not decid")]
    for title, seen in (("failures:", [r for r in report.results if r.outcome == "fail"]),
                        ("warnings:", [r for r in report.results if r.outcome == "warn"]),
                        ("passed without deciding (the driver gave them nothing to decide on):", undecided)):
        if seen:
            lines.append(title)
            lines += tables.render(None, [(r.name, r.detail) for r in seen], indent="  ", align=("<", "<"))
    if report.driver_output:  # (the driver's own lines, apart from d3d12wl's, each marked and bounded)
        total = sum(o.size for o in report.driver_output)
        lines.append(f"the driver's output ({total:,} bytes to standard output and error, in "
                     f"{len(report.driver_output)} processes; the first lines of each, --json has more):")
        lines += [f"  [{o.process}] {line}" for o in report.driver_output for line in o.lines(most=3)]
    lines.append(_verdict(report))
    return lines


def junit_xml(name: str, report: ConformanceReport) -> bytes:
    """A JUnit XML report: one testcase per check (a failure carries what the check saw and the spec sentence)."""
    suite = ET.Element("testsuite", name="d3d12wl messages check", tests=str(len(report.results)),
                       failures=str(sum(r.outcome == "fail" for r in report.results)),
                       skipped=str(sum(r.outcome == "skip" for r in report.results)), errors="0")
    ET.SubElement(ET.SubElement(suite, "properties"), "property", name="driver", value=name)
    output = {o.process: o for o in report.driver_output}
    for r in report.results:
        case = ET.SubElement(suite, "testcase", classname=f"d3d12wl.messages.conformance.{r.section}", name=r.name)
        if r.name in output:
            ET.SubElement(case, "system-err").text = "\n".join(output[r.name].lines())
        if r.outcome == "fail":
            ET.SubElement(case, "failure", message=r.detail).text = r.sentence
        elif r.outcome == "skip":
            ET.SubElement(case, "skipped", message=r.detail)
        elif r.outcome == "warn":  # JUnit has no warning: a passing case that says so
            ET.SubElement(case, "system-out").text = f"warning: {r.detail} ({r.sentence})"
        elif r.detail:
            ET.SubElement(case, "system-out").text = r.detail
    return ET.tostring(suite, encoding="utf-8", xml_declaration=True)


def _internal(what: str) -> int:
    print(f"d3d12wl messages check: internal error: {what}; please report it", file=sys.stderr)
    return 3


def run(args: argparse.Namespace) -> int:
    made: list[Any] = []
    claims.check([("--junit", args.junit)], [("--driver", args.driver)])
    name, factory = _factory(args, made)  # a D3D12WLError here is unusable input: main() prints it, exit 2
    if not math.isfinite(args.timeout) or args.timeout <= 0:
        raise UsageError(f"{args.timeout:g} is not a positive number of seconds", where="--timeout")
    with contextlib.ExitStack() as stack:
        # the JUnit file is opened first (a path that cannot be written is exit 2 before the run), written last,
        # and takes its name only when complete
        junit = stack.enter_context(output_file(args.junit, binary=True)) if args.junit else None
        # a driver library is loaded and each check run in a process of its own: a crash, an exit or a hang fails
        # one check; what the suite itself raises is d3d12wl's own error (the top-level handler: exit 3, --debug)
        try:
            report = run_conformance(factory, isolate=args.driver is not None, timeout_s=args.timeout,
                                     internal_errors=lambda: [e for driver in made for e in driver.harness_errors()])
        except MessagesError as exc:  # the library could not be loaded: unusable input, named by its path
            if args.driver is None or exc.where not in (SITE_LOAD, str(args.driver), None):
                raise
            raise UsageError(exc.message, where=str(args.driver)) from exc
        if report.internal_errors:  # the suite's (or its C callbacks') own error: the verdict cannot be trusted
            return _internal(f"{len(report.internal_errors)} error(s) of the suite itself, the first: "
                             f"{report.internal_errors[0]}")
        if args.json:
            json.dump({"driver": name, "passed": report.passed, "results": to_jsonable(list(report.results)),
                       "driver_output": [{"process": o.process, "bytes": o.size,
                                          "head": o.head.decode("utf-8", "backslashreplace")}
                                         for o in report.driver_output]}, sys.stdout, indent=2)
            sys.stdout.write("\n")
        else:
            print("\n".join(format_text(name, report)))
        if junit is not None:
            junit.write(junit_xml(name, report))
    return 0 if report.passed else 1
