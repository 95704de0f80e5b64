"""The ``d3d12wl`` command line.

Each subcommand lives in its own module ``d3d12wl.cli.<name>_cmd`` (a ``-`` in the name is ``_``) that defines
``register(subparsers) -> None``; the subparser it adds sets ``func`` to a callable
``(args: argparse.Namespace) -> int`` (the exit code).
"""

from __future__ import annotations

import _thread
import argparse
import gc
import importlib
import json
import os
import re
import sys
import traceback
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NoReturn

from d3d12wl._version import SPECS_LINE, __version__
from d3d12wl.cli._options import check_required
from d3d12wl.errors import D3D12WLError, UsageError, closest, did_you_mean

if TYPE_CHECKING:
    from d3d12wl.model.objects import ObjectSet

#: subcommand -> its one-line summary, in the order ``--help`` lists them; the module is ``d3d12wl.cli.<name>_cmd``
#: (``patch-list``: ``patch_list_cmd``)
COMMANDS: dict[str, str] = {
    "abi": "ABI report of the compiled headers; 'abi check' runs the ABI truth checks",
    "layout": "byte layout of every record a description implies",
    "validate": "check a JSON description against the creation-time rules",
    "codegen": "C / HLSL structs and RenderDoc formats for the records of a description",
    "decode": "decode raw bytes (a readback) as records of a description or a declared struct",
    "capture": "assemble a capture from a description and raw buffers (.bin)",
    "dump": "print what a captured call executes (headers, records, executions, findings)",
    "exec": "execute a captured DispatchList / DispatchList1 / ExecuteIndirect and print the trace",
    "messages": "driver-reported messages: 'messages check' runs the conformance suite against a driver",
    "headers": "where the package's C headers are (the include directory of generated C) and the flags to use them",
    "examples": "where the bundled examples are (the specs' own descriptions, captures and readbacks)",
    "migrate": "move per-PSO ExecuteIndirect buckets to one work list and back, with the bytes and calls saved",
    "diff": "what differs between two captures, saved traces or call sequences, execution by execution",
    "patch-list": "every GPU VA, descriptor handle and program identifier a captured call reads by value",
    "remap": "rebase a capture for replay: every reference rewritten through VA, heap and identifier maps",
    "import": "captures and patch-list tables from GFXReconstruct's and GITS's files, nothing typed",
    "check": "judge captures and folders of them for CI: a summary, JUnit XML and JSON, a baseline, shards",
    "report": "the page of a captured call: one self-contained HTML file with charts and the findings' bytes",
}

#: build_parser(command=ALL) registers every command in full
ALL = "*"

__all__ = ["ALL", "COMMANDS", "EXIT_CODES", "EXIT_INTERNAL", "EXIT_UNUSABLE", "build_parser", "error_object",
           "leaf_parsers", "load_description", "main", "summary"]


def summary(name: str) -> str:
    """The one-line summary of a command (its ``help`` in the command list)."""
    return COMMANDS[name]


def load_description(args: argparse.Namespace, **kwargs: Any) -> ObjectSet:
    """:func:`d3d12wl.model.description.load` of the command's ``args.description``.

    When the command owns its process (:func:`main` read the process's own command line), the loaded objects are
    then kept out of the cycle collector's sight (``gc.freeze()``): the command holds its description until the
    process exits, so the collector can free none of it, and without the freeze it would re-walk every object of a
    100,000-argument description (millions of them) each time the command's own allocations pass its thresholds,
    about a third of ``d3d12wl validate``'s time.  The command's own garbage is collected as usual.  Called in
    another program's process (``main([...])``), nothing is frozen."""
    from d3d12wl import inputs
    from d3d12wl.capture.file import CAPTURE_ONLY
    from d3d12wl.cli import documents
    from d3d12wl.model import description

    # a file of another kind (a capture where only a description is read, a trace, a call sequence) is named so
    accepted = [documents.CAPTURE] if CAPTURE_ONLY <= set(kwargs.get("ignore_keys", ())) else []
    with documents.expecting(args.description, documents.DESCRIPTION, accepted):
        if not getattr(args, "owns_process", False):
            return description.load(args.description, **kwargs)
        with inputs.paused_cycle_collection():  # (until frozen: a collection before would walk all of it once more)
            objects = description.load(args.description, **kwargs)
            gc.freeze()
    return objects


class _CommandListFormatter(argparse.RawDescriptionHelpFormatter):
    """The top-level help, each command's summary on its name's line: argparse measures the commands' names one
    indent short of where it prints them, so the longest (``patch-list``) would get a line of its own."""

    def add_argument(self, action: argparse.Action) -> None:
        super().add_argument(action)
        if isinstance(action, argparse._SubParsersAction):
            self._action_max_length += self._indent_increment


#: the words of the command line :func:`main` is parsing (a usage error looks for ``--json`` in them)
_WORDS: ContextVar[tuple[str, ...]] = ContextVar("d3d12wl_words", default=())


class _Parser(argparse.ArgumentParser):
    """argparse's parser, but:

    - a usage error answers the mistake: a value that is not one of the choices (a command, a ``--format``) names
      the closest one (did you mean), and one without a close match says where the choices are listed; with
      ``--json`` on the line, the error object (``kind`` ``UsageError``) is printed on standard output too (exit 2),
      also where the command itself is mistyped or missing (``d3d12wl dumpp --json``, ``d3d12wl migrate --json``);
    - a flag that takes one value and is given two (``-o a -o b``) is a usage error naming both
      (:class:`~d3d12wl.cli._once.StoreOnce`), where argparse kept the last one silently;
    - ``--help`` and ``--version`` on standard output that cannot be written (a full device) raise its OS error
      (:func:`main` makes it exit 2 saying so) instead of exit 0 having printed nothing; a usage error written to a
      standard error that cannot be written is still exit 2, as argparse has it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        from d3d12wl.cli._once import StoreOnce

        self.register("action", None, StoreOnce)
        self.register("action", "store", StoreOnce)

    def _print_message(self, message: str, file: Any = None) -> None:
        if not message or (file is not None and file is not sys.stdout):
            super()._print_message(message, file)
            return
        sys.stdout.write(message)
        sys.stdout.flush()

    def _check_value(self, action: argparse.Action, value: Any) -> None:
        if action.choices is None or value in action.choices:
            return
        names = [str(c) for c in action.choices]
        what = "command" if isinstance(action, argparse._SubParsersAction) else "choice"
        raise argparse.ArgumentError(action, f"invalid {what}: {value!r}{did_you_mean(str(value), names)}; choose "
                                             f"from {', '.join(names)}")

    def error(self, message: str) -> NoReturn:
        if "did you mean" not in message and "--help" not in message:
            message += f" (see '{self.prog} --help')"
        if "--json" in _WORDS.get():  # (every command has --json: before one is found, it is the one meant)
            print(json.dumps(error_object(UsageError(message, where=_usage_where(message))), indent=2))
        super().error(message)


def _usage_where(message: str) -> str | None:
    """The flag or argument an argparse usage error is about: ``argument --format: ...`` -> ``--format``; the first
    unrecognized word; the required ones."""
    for pattern in (r"argument ([^:]+): ", r"unrecognized arguments: (\S+)",
                    r"the following arguments are required: ([^(]+?)(?: \(|$)", r"one of the arguments (.+?) is required"):
        found = re.match(pattern, message)
        if found:
            return found.group(1).strip()
    return None


def _options_of(parser: argparse.ArgumentParser) -> list[str]:
    """The option strings ``parser`` shows in its help (not an old spelling kept for a release)."""
    return [o for a in parser._actions if a.help != argparse.SUPPRESS for o in a.option_strings]


def _unrecognized(parser: argparse.ArgumentParser, extras: Sequence[str]) -> str:
    """argparse's "unrecognized arguments" with what was meant: the closest option of this command, else the
    commands that have it."""
    hints = []
    for word in extras:
        flag = word.partition("=")[0]
        if not flag.startswith("-") or flag == "-":
            continue
        near = closest(flag, _options_of(parser))
        if near is not None:
            hints.append(f"{flag}: did you mean {near}?" if len(extras) > 1 else f"did you mean {near}?")
            continue
        owners = [name for name, leaf in leaf_parsers() if flag in _options_of(leaf)]
        if owners:
            hints.append(f"{flag} is an option of {', '.join('d3d12wl ' + o for o in owners)}")
    text = f"unrecognized arguments: {' '.join(extras)}"
    return f"{text} ({'; '.join(hints)})" if hints else text


def leaf_parsers(parser: argparse.ArgumentParser | None = None,
                 path: tuple[str, ...] = ()) -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """Every command that runs (``exec``, ``migrate wl-to-ei``, ``messages check``) and its parser, in the order of
    ``d3d12wl --help`` (of :func:`build_parser` ``(ALL)`` without ``parser``)."""
    parser = build_parser(ALL) if parser is None else parser
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if not subs:
        yield " ".join(path), parser
        return
    for action in subs:
        for name, child in action.choices.items():
            yield from leaf_parsers(child, (*path, name))


def build_parser(command: str | None = ALL) -> argparse.ArgumentParser:
    """The argument parser.  Only ``command`` (every one for :data:`ALL`) is imported and registered in full; the
    others are listed by their summary, so ``d3d12wl --help`` imports no command module."""
    parser = _Parser(
        prog="d3d12wl",
        description="Binary layout and ABI toolkit for D3D12 Work Lists, ExecuteIndirect and driver-reported messages.",
        epilog=EXIT_CODES + "\n\n--debug (anywhere on the line) prints the traceback of an internal error.",
        formatter_class=_CommandListFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__} ({SPECS_LINE})")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name, text in COMMANDS.items():
        if command in (ALL, name):
            importlib.import_module(f"d3d12wl.cli.{name.replace('-', '_')}_cmd").register(sub)
            command_parser = sub.choices[name]
            command_parser.epilog = EXIT_CODES
            command_parser.formatter_class = argparse.RawDescriptionHelpFormatter
        else:
            sub.add_parser(name, help=text, add_help=False)
    return parser


def _innermost(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)command parser ``args`` were parsed by: ``d3d12wl migrate wl-to-ei``'s, not ``d3d12wl``'s."""
    while True:
        chosen = [a.choices[getattr(args, a.dest)] for a in parser._actions
                  if isinstance(a, argparse._SubParsersAction) and getattr(args, a.dest, None) in (a.choices or {})]
        if not chosen:
            return parser
        parser = chosen[0]


def _command_of(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names: its first word that is not an option (the top level takes no option values)."""
    for word in argv:
        if not word.startswith("-"):
            return word if word in COMMANDS else None
    return None


#: what the exit codes mean (the same for every command)
EXIT_CODES = """\
exit status:
  0  clean: nothing to report
  1  error findings (undefined behaviour, violations, differences)
  2  unusable input: a file, member or flag that cannot be used, named in the message
  3  internal error in d3d12wl (please report it; --debug shows the traceback)"""

#: exit status of an input that cannot be used (a D3D12WLError) and of an internal error (any other exception)
EXIT_UNUSABLE = 2
EXIT_INTERNAL = 3


def error_object(exc: BaseException) -> dict[str, object]:
    """What ``--json`` prints for an error: its ``kind`` (the exception class: ``DescriptionError``,
    ``CaptureError``, ... or ``InternalError``), ``message``, ``where`` and ``rule`` (None when not known)."""
    from d3d12wl.output.serialize import to_jsonable

    if isinstance(exc, D3D12WLError):
        return dict(to_jsonable({"kind": type(exc).__name__, "message": exc.message, "where": exc.where,
                                 "rule": exc.rule}))
    return {"kind": "InternalError", "message": f"{type(exc).__name__}: {exc}", "where": None, "rule": None}


def _survive_any_text() -> None:
    """Output survives any string (a lone surrogate in a name, a terminal that is not UTF-8): what the stream
    cannot encode is written as a backslash escape instead of raising."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if callable(reconfigure):
            reconfigure(errors="backslashreplace")


@contextmanager
def _interrupts_kept() -> Iterator[None]:
    """An interrupt (Ctrl-C) that lands while Python runs a callback it cannot raise from (a weakref's, an import
    lock's, a finalizer) is printed as "Exception ignored in ..." with a traceback, and lost: the command runs on.
    Inside this block it is raised again where the program goes on.  In the main thread: in the frame that ran
    when the callback was made, at its next line or call (a trace function, as pdb stops a program, removed once
    it fired); from another thread: in the main thread (:func:`_thread.interrupt_main`).  The command's own handler
    then ends the run (exit 130)."""
    previous = sys.unraisablehook
    main_thread = _thread.get_ident()

    def hook(unraisable: Any) -> None:
        if unraisable.exc_type is None or not issubclass(unraisable.exc_type, KeyboardInterrupt):
            previous(unraisable)
        elif _thread.get_ident() != main_thread:
            _thread.interrupt_main()
        else:
            _raise_at_next_line(sys._getframe(1))

    sys.unraisablehook = hook
    try:
        yield
    finally:
        sys.unraisablehook = previous


def _raise_at_next_line(frame: Any) -> None:
    """Raise KeyboardInterrupt at the next line or call of this thread, in ``frame`` or any frame below or above it
    (every frame of the stack traced until it fires; the tracer in force before comes back)."""
    before = sys.gettrace()
    traced: list[Any] = []

    def fire(f: Any, event: str, arg: Any) -> Any:
        sys.settrace(before)
        for t in traced:
            t.f_trace = None
        raise KeyboardInterrupt

    while frame is not None:
        frame.f_trace = fire
        traced.append(frame)
        frame = frame.f_back
    sys.settrace(fire)


def _one_blas_thread() -> None:
    """Before numpy is first imported by a command that owns its process: one OpenBLAS thread, unless the
    environment chose.  No command does linear algebra, and numpy's OpenBLAS otherwise starts a thread per CPU at
    import that spins before it sleeps: 2 CPU seconds of every run on the 16-core GPU machine, beside the output's
    own workers."""
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns its exit code (:data:`EXIT_CODES`).  The one place errors become exit statuses:
    an unusable input is 2 (with ``--json`` also the :func:`error_object` on stdout), and so is an OS error on a path
    that no command turned into its own message (it names the path); an exception d3d12wl did not
    expect is one line on stderr and exit 3 (with ``--json`` also its error object); ``--debug`` (before or after
    the command) adds the traceback.  ``argv`` None reads the process's own command line (the ``d3d12wl`` script,
    ``python -m d3d12wl``): the command then owns the process (see :func:`load_description`)."""
    words = list(sys.argv[1:] if argv is None else argv)
    if argv is None:
        _one_blas_thread()
    debug = "--debug" in words
    words = [w for w in words if w != "--debug"]
    _survive_any_text()
    parser = build_parser(_command_of(words))
    _WORDS.set(tuple(words))
    try:
        args, extras = parser.parse_known_args(words)
    except BrokenPipeError:  # `d3d12wl --help | head -1`
        _quiet_broken_pipe()
        return 0
    except OSError as exc:  # --help or --version on a standard output that cannot be written (_Parser)
        if not _told_unwritable(exc, "d3d12wl"):
            raise
        return EXIT_UNUSABLE
    command_parser = _innermost(parser, args)
    if extras:  # (argparse's own message, but with the usage of the command given, not the top level's)
        command_parser.error(_unrecognized(command_parser, extras))
    check_required(command_parser, args)
    args.owns_process = argv is None  # (the process's own command line: see load_description)
    as_json = bool(getattr(args, "json", False))
    from d3d12wl.output import claims

    try:
        with _interrupts_kept(), claims.command():  # (what the command reads, its outputs are checked against)
            return int(args.func(args))
    except D3D12WLError as exc:
        print(f"d3d12wl {args.command}: error: {exc}", file=sys.stderr)
        if as_json:
            print(json.dumps(error_object(exc), indent=2))
        return EXIT_UNUSABLE
    except BrokenPipeError:  # `d3d12wl dump | head`
        _quiet_broken_pipe()
        return 0
    except OSError as exc:
        if exc.filename is None:
            if not _told_unwritable(exc, f"d3d12wl {args.command}"):
                return _internal(exc, args.command, debug, as_json)
            return EXIT_UNUSABLE
        # an OS error on a path that no command turned into its own message: the path is unusable, exit 2
        from d3d12wl.inputs import InputError

        name = os.fsdecode(exc.filename) if isinstance(exc.filename, str | bytes) else str(exc.filename)
        unusable = InputError(exc.strerror or str(exc), where=name)
        print(f"d3d12wl {args.command}: error: {unusable}", file=sys.stderr)
        if as_json:
            print(json.dumps(error_object(unusable), indent=2))
        return EXIT_UNUSABLE
    except KeyboardInterrupt:
        print(f"d3d12wl {args.command}: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the one top-level handler: no traceback without --debug
        return _internal(exc, args.command, debug, as_json)
    except BaseException as exc:  # not Exception: a Rust panic of an extension (pyo3's PanicException)
        if isinstance(exc, SystemExit | GeneratorExit):
            raise
        if "KeyboardInterrupt" in str(exc):  # the panic of an interrupt that landed inside the extension
            print(f"d3d12wl {args.command}: interrupted", file=sys.stderr)
            return 130
        return _internal(exc, args.command, debug, as_json)


def _told_unwritable(exc: OSError, who: str) -> bool:
    """Whether ``exc`` is a write to standard output that cannot be written (:func:`d3d12wl.output.outfiles.stdout_error`);
    if it is, it was said in one line on standard error, as ``who``'s error."""
    from d3d12wl.output.outfiles import stdout_error

    unwritable = stdout_error(exc)
    if unwritable is None:
        return False
    _quiet_broken_pipe()  # (the interpreter's last flush of what is buffered would fail again)
    print(f"{who}: error: {unwritable}", file=sys.stderr)
    return True


def _internal(exc: BaseException, command: str, debug: bool, as_json: bool) -> int:
    if debug:
        traceback.print_exception(exc)
    print(f"d3d12wl {command}: internal error: {type(exc).__name__}: {exc}; please report it "
          f"(run again with --debug for the traceback)", file=sys.stderr)
    if as_json:
        print(json.dumps(error_object(exc), indent=2))
    return EXIT_INTERNAL


def _quiet_broken_pipe() -> None:
    """After a reader closed the pipe, let the interpreter's final flush of stdout go nowhere instead of raising."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (captured in tests)
        pass


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
