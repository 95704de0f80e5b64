"""What a call (or a sequence of calls) executes, read through the executor's public face only.

A *run* is the executions of one capture, one saved trace (``d3d12wl exec --format json --json-version 1`` output) or one *call sequence*:
a small versioned JSON file that lists captures in command-list order, each with the program (PSO) the command list
had set when it was recorded::

    {"call_sequence": 1, "calls": [{"capture": "bucket0.json", "program": "Opaque"}, ...]}

Everything here reads ``Trace.to_dict()`` (its JSON shape is stable), never the executor's internals.

Order (spec "Execution Order and State Scoping"): graphics-class work list records execute in array order unless
the list sets ``_ALLOW_OUT_OF_ORDER_GRAPHICS``; compute-class and raytracing-class records are never ordered.  An
ExecuteIndirect of draws runs its commands in order, and calls on one command list run in order; its dispatches, like
standalone Dispatch, have no inter-invocation order.  :attr:`Run.in_order` is True when the whole run is ordered.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d3d12wl import inputs
from d3d12wl.capture.file import Capture, load_capture
from d3d12wl.errors import CaptureError
from d3d12wl.migrate.errors import MigrationError
from d3d12wl.output.outfiles import output_file

__all__ = ["CALL_SEQUENCE_VERSION", "TRACE_SHAPE", "CallSequenceEntry", "MigrationError", "Run", "call_program",
           "check_saved_trace", "load_call_sequence", "load_run", "load_run_source", "run_of_trace", "run_of_captures",
           "save_call_sequence"]

CALL_SEQUENCE_VERSION = 1


@dataclass(frozen=True)
class CallSequenceEntry:
    """One call of a call sequence: its capture and the program (PSO) bound when it was recorded."""

    capture: Capture
    program: str | None = None


@dataclass
class Run:
    """The executions of one or more calls, each an ``Execution`` dict of ``Trace.to_dict()`` with members added:
    ``call`` (its call's position in the sequence), ``program`` (for ExecuteIndirect, the call's PSO) and
    ``ordered`` (whether the spec orders it: a record of an in-order list, a draw of an ExecuteIndirect)."""

    executions: list[dict[str, Any]]
    findings: list[dict[str, Any]] = field(default_factory=list)
    in_order: bool = True
    ordering: str = "in order"
    calls: int = 1
    name: str = ""
    #: per dispatch list of a work-list run, in walk order: its executable class and the names of its flags
    #: (``Trace.to_dict()["lists"][i]["flags"]``); empty for ExecuteIndirect calls, which have none
    lists: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)


def _ordered(trace: Mapping[str, Any]) -> tuple[bool, str]:
    lists = trace.get("lists") or []
    if lists:
        reasons = [str(lst.get("ordering", "")) for lst in lists]
        if all(r.startswith("in order") for r in reasons):
            return True, "in order (graphics-class lists without _ALLOW_OUT_OF_ORDER_GRAPHICS)"
        return False, "any order (spec \"Execution Order and State Scoping\")"
    cls = (trace.get("call_args") or {}).get("executable_class")
    if cls == "GRAPHICS" or cls is None:
        return True, "in order (ExecuteIndirect draws)"
    return False, f"any order ({str(cls).lower()}-class ExecuteIndirect, like standalone dispatches)"


def run_of_trace(trace: Mapping[str, Any], *, program: str | None = None, call: int = 0, name: str = "") -> Run:
    """A run from one ``Trace.to_dict()``; ``program`` fills executions that name none (ExecuteIndirect)."""
    executions = []
    lists = trace.get("lists") or []
    ei_ordered = (trace.get("call_args") or {}).get("executable_class") in ("GRAPHICS", None)
    for e in trace.get("executions") or []:
        e = dict(e)
        e["call"] = call
        if e.get("program") is None:
            e["program"] = program
        li = e.get("list_index")
        e["ordered"] = (str(lists[li].get("ordering", "")).startswith("in order")
                        if isinstance(li, int) and 0 <= li < len(lists) else ei_ordered)
        executions.append(e)
    in_order, ordering = _ordered(trace)
    findings = [dict(f, call=call) for f in trace.get("findings") or []]
    list_flags = [(str(lst.get("executable_class")), tuple(sorted(str(f) for f in lst.get("flags") or [])))
                  for lst in lists]
    return Run(executions, findings, in_order, ordering, 1, name, list_flags)


def call_program(entry: CallSequenceEntry, i: int) -> str | None:
    """The program (PSO) of call ``i``: its entry's, or for an ExecuteIndirect that names none ``pso<i>``; the one
    naming the migrations, the call sequence files and the runs compared all use."""
    from d3d12wl.model.state import ExecuteIndirectCall

    if entry.program is not None or not isinstance(entry.capture.call, ExecuteIndirectCall):
        return entry.program
    return f"pso{i}"


def run_of_captures(entries: Sequence[CallSequenceEntry], *, name: str = "") -> Run:
    """Execute every capture (public API: ``execute(capture).to_dict()``) and concatenate their runs in order."""
    from d3d12wl.executor import Limits, execute  # the package's public face, not executor.trace

    out = Run([], [], True, "in order", len(entries), name)
    for i, entry in enumerate(entries):
        limits = Limits(max_executions=1 << 24, max_records=1 << 24)
        part = run_of_trace(execute(entry.capture, limits).to_dict(), program=call_program(entry, i), call=i)
        out.executions.extend(part.executions)
        out.findings.extend(part.findings)
        out.lists.extend(part.lists)
        if not part.in_order:
            out.in_order, out.ordering = False, part.ordering
    return out


def _read_json(path: Path, what: str) -> Any:
    """The JSON of a capture, trace or call sequence, read by the one bounded reader (:mod:`d3d12wl.inputs`)."""
    try:
        return inputs.load_json(path, what=what)
    except inputs.InputError as exc:
        raise MigrationError(exc.message, where=exc.where) from None


def load_call_sequence(path: str | os.PathLike[str]) -> list[CallSequenceEntry]:
    """Read a call sequence file (captures relative to it; entries naming one capture file share its one
    :class:`Capture`, loaded once)."""
    p = Path(path)
    doc = _read_json(p, "call sequence")
    return _sequence_of(doc, p)


def load_run_source(path: str | os.PathLike[str]) -> Capture | list[CallSequenceEntry]:
    """A call sequence file's entries, or else the capture the file holds; the JSON is parsed once."""
    p = Path(path)
    doc = _read_json(p, "capture or call sequence")
    if isinstance(doc, dict) and "call_sequence" in doc:
        return _sequence_of(doc, p)
    return _capture_of(doc, p)


def _capture_of(doc: Any, p: Path) -> Capture:
    try:
        capture = load_capture(doc, base_dir=p.parent)
    except CaptureError as exc:
        if not (exc.where or "").startswith(str(p)):
            exc.args = (f"{p}: {exc.args[0]}",)
        raise
    capture.path = p
    return capture


def _sequence_of(doc: Any, p: Path) -> list[CallSequenceEntry]:
    if not isinstance(doc, dict) or doc.get("call_sequence") != CALL_SEQUENCE_VERSION:
        raise MigrationError(f"not a call sequence (version {CALL_SEQUENCE_VERSION})", where=f"{p}: call_sequence")
    calls = doc.get("calls")
    if not isinstance(calls, list):
        raise MigrationError("'calls' must be a list", where=f"{p}: calls")
    out = []
    loaded: dict[str, Capture] = {}  # each capture the sequence names is loaded once, by its resolved path
    for i, c in enumerate(calls):
        if not isinstance(c, dict) or not isinstance(c.get("capture"), str):
            raise MigrationError("each call is {\"capture\": PATH, \"program\": NAME}", where=f"{p}: calls[{i}]")
        program = c.get("program")
        if program is not None and not isinstance(program, str):
            raise MigrationError("'program' must be a string", where=f"{p}: calls[{i}].program")
        path = p.parent / c["capture"]
        if inputs.path_kind(path, where=f"{p}: calls[{i}].capture") is None:
            raise MigrationError(f"no such capture {c['capture']!r}", where=f"{p}: calls[{i}].capture")
        key = os.path.realpath(path)
        if key not in loaded:
            loaded[key] = load_capture(path)
        entry = CallSequenceEntry(loaded[key], program)
        out.append(CallSequenceEntry(entry.capture, call_program(entry, i)))
    return out


def save_call_sequence(path: str | os.PathLike[str], calls: Sequence[tuple[str, str | None]]) -> Path:
    """Write a call sequence: ``calls`` are (capture path relative to ``path``'s folder, program).  Written as every
    output file is (:func:`d3d12wl.output.outfiles.output_file`: atomic, an OS error naming the path)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    doc = {"call_sequence": CALL_SEQUENCE_VERSION,
           "calls": [{"capture": c, "program": prog} for c, prog in calls]}
    with output_file(p) as out:
        out.write(json.dumps(doc, indent=1) + "\n")
    return p


#: a JSON value that is no container: a string, a number, a boolean or null
SCALAR = "scalar"
#: any JSON value (a trigger's or an IA binding's field: a number, or a struct's members)
ANY = "any"
_SOURCE: dict[str, Any] = {"kind": SCALAR, "origin": SCALAR}
_FIELDS: dict[str, Any] = {"*": ANY}
#: The members of a saved trace (``Trace.to_dict()``, :class:`~d3d12wl.executor.trace.Trace`) that a run reads, and
#: what each must be: an object of the members named (``"*"``: every member), a list of one shape, or
#: :data:`SCALAR` / :data:`ANY`.  null stands for an absent member everywhere (the runs read ``or []``), but an
#: element of a list of objects is read and must be one; members not named are not read and not checked.
TRACE_SHAPE: dict[str, Any] = {
    "call_args": {"executable_class": SCALAR},
    "lists": [{"ordering": SCALAR, "executable_class": SCALAR, "flags": [SCALAR]}],
    "executions": [{
        "program": SCALAR, "executable_class": SCALAR, "list_index": SCALAR, "primary_index": SCALAR,
        "secondary_index": SCALAR, "command_index": SCALAR,
        "trigger": {"type": SCALAR, "fields": _FIELDS, "source": _SOURCE},
        "root_arguments": [{"binding": SCALAR, "parameter": SCALAR, "kind": SCALAR, "register": SCALAR,
                            "value": SCALAR, "values": [SCALAR], "sources": [_SOURCE]}],
        "ia": [{"slot": SCALAR, "fields": _FIELDS, "source": _SOURCE}]}],
    "findings": [{"severity": SCALAR, "kind": SCALAR, "rule": SCALAR, "message": SCALAR}],
}


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    return "a number"


def check_saved_trace(doc: Mapping[str, Any], where: str) -> None:
    """Raise :class:`MigrationError` naming the member (``where: executions[3].trigger``) unless every member of
    :data:`TRACE_SHAPE` in ``doc`` (a saved trace, ``d3d12wl exec --json``) is of the kind ``Trace.to_dict()``
    writes (issue 42, class 2: an integer where a list is, a string where an object is, was an internal error)."""
    stack: list[tuple[Any, Any, str, bool]] = [(doc, TRACE_SHAPE, "", False)]
    while stack:
        value, shape, path, item = stack.pop()
        if (value is None and not item) or shape == ANY:  # (a member may be null; an element of a list is read)
            continue
        if shape == SCALAR:
            if isinstance(value, dict | list):
                raise MigrationError(f"must be a string, a number, a boolean or null (as Trace.to_dict() writes "
                                     f"it), not {_json_kind(value)}", where=f"{where}: {path}")
            continue
        want = "an object" if isinstance(shape, dict) else "a list"
        if not isinstance(value, dict if isinstance(shape, dict) else list):
            raise MigrationError(f"must be {want} (as Trace.to_dict() writes it){'' if item else ' or null'}, not "
                                 f"{_json_kind(value)}", where=f"{where}: {path or 'the document'}")
        if isinstance(value, list):
            stack.extend((v, shape[0], f"{path}[{i}]", True) for i, v in reversed(list(enumerate(value))))
        elif "*" in shape:
            stack.extend((v, shape["*"], f"{path}.{k}", False) for k, v in value.items())
        else:
            stack.extend((value[k], s, f"{path}.{k}" if path else k, False) for k, s in shape.items() if k in value)


def _not_a_table(doc: Mapping[str, Any], where: str) -> None:
    """A JSON output of a version other than 1 (``exec --format json`` writes version 2: the executions as the
    execution table's rows, without the registers and sources a run compares) is refused, saying what to save."""
    version = doc.get("version", 1)
    if version != 1:
        raise MigrationError(f"a version {version} JSON output of exec holds the execution table's rows, not the "
                             "trace a run compares: save the trace with 'd3d12wl exec CAPTURE --format json "
                             "--json-version 1'", where=where)


def load_run(source: Any, *, name: str | None = None) -> Run:
    """A run from a :class:`Capture`, a list of :class:`CallSequenceEntry`, a trace dict, a :class:`Run`, or a path
    to a capture, a saved trace (``d3d12wl exec --format json --json-version 1``) or a call sequence file."""
    if isinstance(source, Run):
        return source
    if isinstance(source, Capture):
        return run_of_captures([CallSequenceEntry(source)], name=name or "capture")
    if isinstance(source, list) and all(isinstance(e, CallSequenceEntry) for e in source):
        return run_of_captures(source, name=name or "call sequence")
    if isinstance(source, Mapping):
        if "executions" in source:
            _not_a_table(source, "the trace given")
            check_saved_trace(source, "the trace given")
            return run_of_trace(source, name=name or "trace")
        raise MigrationError("a mapping given as a run must be a trace (Trace.to_dict())")
    if isinstance(source, (str, os.PathLike)):
        p = Path(source)
        doc = _read_json(p, "capture, trace or call sequence")
        label = name or str(p)
        if isinstance(doc, dict) and "call_sequence" in doc:
            return run_of_captures(_sequence_of(doc, p), name=label)
        if isinstance(doc, dict) and "executions" in doc and "memory" not in doc:
            _not_a_table(doc, str(p))
            check_saved_trace(doc, str(p))
            return run_of_trace(doc, name=label)
        if isinstance(doc, dict) and "memory" in doc:
            return run_of_captures([CallSequenceEntry(_capture_of(doc, p))], name=label)
        raise MigrationError("neither a capture (has 'memory'), a saved trace (has 'executions') nor a call "
                             "sequence (has 'call_sequence')", where=str(p))
    raise MigrationError(f"cannot read a run from {type(source).__name__}")
