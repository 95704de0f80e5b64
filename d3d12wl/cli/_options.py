"""The command line's shared vocabulary: the options more than one command has, each defined once here (its
spelling, its value type and the first words of its help), the value types the commands share (argparse ``type=``
callables: a bad value is a usage error, exit 2), the old spellings a rename keeps for one release, and the checks
of option combinations more than one command has.

One spelling means one thing on every command, and one thing has one spelling (docs/cli.md, "Vocabulary"):

- ``--json``: this command's result for programs, one JSON document on standard output (the product itself where
  the command prints one; the report of what was written where its product is a file), and the error object
  ``{kind, message, where, rule}`` on exit 2, usage errors included.
- ``-o/--output PATH``: one output file (``-``: standard output), written atomically; ``--output-dir DIR``: a folder.
- ``--format FMT``: the format of the output; ``--quiet``: no progress on standard error.

A renamed option keeps its old spelling for one release (:func:`rename`): it does what the new one does, after a
warning on standard error that names the new spelling (standard output is never changed by it)."""

from __future__ import annotations

import argparse
import math
import sys
from collections.abc import Sequence
from typing import Any, cast

from d3d12wl import inputs
from d3d12wl.errors import D3D12WLError

#: what an option is added to: a parser, an argument group or a mutually exclusive group
Container = argparse._ActionsContainer

__all__ = ["RenamedOption", "add_description_argument", "add_json_flag", "add_output_dir_flag", "add_output_flag", "add_quiet_flag",
           "add_tier_flag", "add_validators_flag", "add_verify_flag", "check_required", "integer", "number",
           "refuse_json_with_capture_on_stdout", "rename", "renamed_options", "tier", "warn"]


def integer(text: str) -> int:
    """A decimal or ``0x`` hexadecimal integer (:func:`d3d12wl.inputs.integer`)."""
    try:
        return inputs.integer(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def number(text: str) -> float:
    """A finite decimal number in ASCII digits (``float`` also takes other scripts' digits, ``inf`` and ``nan``)."""
    try:
        if not text.isascii():
            raise ValueError
        value = float(text)
        if not math.isfinite(value):
            raise ValueError
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text[:40]!r} (ASCII digits)") from None
    return value


#: the D3D12_WORK_LISTS_TIER members ``--tier`` takes, by their number
TIERS = (1, 2)


def tier(text: str) -> int:
    """A ``D3D12_WORK_LISTS_TIER``: its number (``1``, ``2``) or its member name, full or short (``TIER_2``,
    ``D3D12_WORK_LISTS_TIER_2``); the number."""
    from d3d12wl import abi

    word = text.strip()
    try:
        value = abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{word}" if word.isdigit() else word.upper())
    except D3D12WLError:
        value = None
    by_value = {abi.enum_value("D3D12_WORK_LISTS_TIER", f"TIER_{n}"): n for n in TIERS}
    if value not in by_value:
        raise argparse.ArgumentTypeError(f"{text[:40]!r} is not a work lists tier: give "
                                         f"{' or '.join(map(str, TIERS))} (TIER_1, D3D12_WORK_LISTS_TIER_2 too)")
    return by_value[value]


# --- the shared options ---------------------------------------------------------------------------------------------


def add_description_argument(p: Container, *, optional: str | None = None) -> argparse.Action:
    """``DESC.json``: the JSON description of the objects (the C desc structs as JSON; ``-`` for standard input);
    ``optional``: when it may be left out."""
    return p.add_argument("description", metavar="DESC.json", nargs="?" if optional else None,
                          help="the JSON description of the objects (the C desc structs as JSON; - for standard "
                               "input)" + (f"; optional {optional}" if optional else ""))



def add_json_flag(p: Container, what: str) -> argparse.Action:
    """``--json``: ``what`` (this command's result for programs) as one JSON document on standard output; on exit 2
    the error object instead."""
    return p.add_argument("--json", action="store_true",
                          help=f"the result for programs on standard output, as one JSON document: {what}; on exit 2 "
                               "the error object {kind, message, where, rule}")


def add_output_flag(p: Container, what: str, *, metavar: str = "PATH", required: bool = False,
                    default: str | None = None) -> argparse.Action:
    """``-o/--output PATH``: the one file the command writes (``-``: standard output), atomically."""
    return p.add_argument("-o", "--output", metavar=metavar, required=required, default=default,
                          help=f"{what}: written atomically; - for standard output")


def add_output_dir_flag(p: Container, what: str, *, required: bool = False) -> argparse.Action:
    """``--output-dir DIR``: the folder the command writes its files into."""
    return p.add_argument("--output-dir", metavar="DIR", required=required, default=None,
                          help=f"the folder to write {what} into (made if missing)")


def add_quiet_flag(p: Container) -> argparse.Action:
    """``--quiet``: no progress line on standard error."""
    return p.add_argument("--quiet", action="store_true",
                          help="no progress on standard error (shown only when it is a terminal)")


def add_tier_flag(p: Container, *, default: int | None, default_text: str) -> argparse.Action:
    """``--tier N``: the device's ``D3D12_WORK_LISTS_TIER`` (:func:`tier`)."""
    return p.add_argument("--tier", type=tier, default=default, metavar="1|2",
                          help=f"the device's D3D12_WORK_LISTS_TIER: 1 or 2 (TIER_1, D3D12_WORK_LISTS_TIER_2 too; "
                               f"default {default_text})")


def add_verify_flag(p: Container, what: str) -> argparse.Action:
    """``--verify``: execute what the command made beside what it was given, and require the same executions."""
    return p.add_argument("--verify", action="store_true",
                          help=f"execute both sides and compare: {what} (exit 1 when they differ)")


def add_validators_flag(p: Container) -> argparse.Action:
    """``--validators SPEC``: GPU-timeline validators to run (``exec``, ``dump``)."""
    return p.add_argument("--validators", action="append", metavar="SPEC", default=None,
                          help="run validators from module:attr or path/to/file.py:attr (a ValidationRunner, "
                               "Validator, iterable of Validators or zero-argument factory); repeatable")


# --- renamed options: the old spelling for one release --------------------------------------------------------------


def warn(prog: str, text: str) -> None:
    """One warning line on standard error, as ``d3d12wl COMMAND: warning: ...`` (never on standard output)."""
    print(f"{prog}: warning: {text}", file=sys.stderr)


class RenamedOption(argparse.Action):
    """An old spelling of an option: the new option's action runs with the values given, after a warning on standard
    error naming the new spelling.  Hidden from ``--help`` and from did-you-mean; listed in docs/cli.md."""

    def __init__(self, option_strings: Sequence[str], dest: str, *, target: argparse.Action, **kwargs: Any) -> None:
        # (argparse converts and checks a value by the action that read it: this one takes the target's type,
        # choices and const, so the old spelling accepts exactly what the new one does)
        super().__init__(option_strings, dest=argparse.SUPPRESS, nargs=target.nargs, const=target.const,
                         default=argparse.SUPPRESS, type=cast(Any, target.type), choices=target.choices,
                         metavar=target.metavar, help=argparse.SUPPRESS)
        self.target = target

    @property
    def new(self) -> str:
        """The spelling that replaces this one (the target's long option)."""
        return next((o for o in self.target.option_strings if o.startswith("--")), self.target.option_strings[0])

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        warn(parser.prog, f"{option_string} is now {self.new} (the old spelling is kept for this release only; "
                          f"write {self.new})")
        self.target(parser, namespace, values, self.new)


def rename(p: Container, old: str, new: str) -> None:
    """Keep ``old`` working as a spelling of the option ``new`` (already added to ``p``) for one release.  A required
    ``new`` is then checked after parsing (:func:`check_required`), since argparse sees only the spelling given."""
    target = p._option_string_actions[new]
    if target.required:
        target.required = False
        setattr(target, _REQUIRED, True)
    p.add_argument(old, action=RenamedOption, target=target)


#: the attribute that marks an option required under either of its spellings
_REQUIRED = "d3d12wl_required"


def check_required(p: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """argparse's own usage error for a required option that has an old spelling and was given under neither."""
    missing = [a.option_strings[-1] for a in p._actions
               if getattr(a, _REQUIRED, False) and getattr(args, a.dest, None) in (None, [])]
    if missing:
        p.error(f"the following arguments are required: {', '.join(missing)}")


def renamed_options(p: argparse.ArgumentParser) -> list[tuple[str, str]]:
    """``(old, new)`` for every old spelling :func:`rename` kept on ``p``."""
    return [(o, a.new) for a in p._actions if isinstance(a, RenamedOption) for o in a.option_strings]


# --- combinations ---------------------------------------------------------------------------------------------------


def refuse_json_with_capture_on_stdout(args: argparse.Namespace) -> None:
    """``-o -`` prints the capture itself on standard output (``capture``, ``migrate ei-to-wl``), so ``--json``, the
    report on standard output, needs ``-o FILE``: exit 2, before any work."""
    if args.json and args.output == "-":
        raise D3D12WLError("-o - prints the capture itself on stdout; give -o FILE with --json", where="--json")
