"""What a JSON file a command was given is, when it is not what the command reads: a description given to ``exec``,
a capture to ``validate``, a saved trace or a call sequence to either.  The loaders' own errors ("version: required
member is missing") are true but do not say that; :func:`expecting` turns them into one that does.

Each kind is recognized by the members its own stage defines (the description's collections, the capture's
members, the trace's fields, the call sequence's marker), so nothing here restates a format.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Collection, Iterator
from contextlib import contextmanager
from typing import Any

from d3d12wl import inputs
from d3d12wl.errors import D3D12WLError

DESCRIPTION, CAPTURE, TRACE, CALL_SEQUENCE = "description", "capture", "saved trace", "call sequence"
#: the capture tools' files (:mod:`d3d12wl.importers.recognize`), which ``d3d12wl import`` reads
GFXR_CONVERT, GFXR_DUMP = "GFXReconstruct convert JSON", "GFXReconstruct resource dump"

#: what to do with each kind instead (said after "FILE is a KIND, not a EXPECTED: ")
USE = {
    DESCRIPTION: "it describes objects; validate, layout, codegen and decode read it, and "
                 "'d3d12wl capture DESC.json REGION... -o CAPTURE.json' makes a capture with it",
    CAPTURE: "exec and dump run it; validate, layout and codegen read a description (the capture's objects, "
             "without its memory and call, are one)",
    TRACE: "what 'd3d12wl exec --format json --json-version 1' printed; 'd3d12wl diff' compares it with a capture, a trace or a call sequence",
    CALL_SEQUENCE: "a list of captures, one per call; exec or dump each of them, or compare them with 'd3d12wl diff'",
    GFXR_CONVERT: "what gfxrecon-convert writes of a capture; 'd3d12wl import gfxr CONVERT.json DUMP... --output-dir "
                  "DIR' makes a d3d12wl capture of each ExecuteIndirect call gfxrecon-replay --dump-resources dumped",
    GFXR_DUMP: "what gfxrecon-replay --dump-resources writes of one ExecuteIndirect call; 'd3d12wl import gfxr "
               "CONVERT.json DUMP... --output-dir DIR' makes a d3d12wl capture of it with the capture's convert JSON",
}


def kind_of(doc: Any) -> str | None:
    """The kind of a parsed JSON document (:data:`DESCRIPTION`, :data:`CAPTURE`, :data:`TRACE`,
    :data:`CALL_SEQUENCE`), or None when it is none of them."""
    from d3d12wl.capture.file import CAPTURE_MEMBERS
    from d3d12wl.executor.trace import Trace
    from d3d12wl.model.description import COLLECTIONS, RECORD_STRUCTS

    if not isinstance(doc, dict):
        return None
    keys = set(doc)
    if "call_sequence" in keys:  # (d3d12wl.migrate.runs: the marker member of a call sequence file)
        return CALL_SEQUENCE
    if "version" in keys and keys & {"memory", "call"} and keys <= set(CAPTURE_MEMBERS):
        return CAPTURE
    if "executions" in keys and keys <= {f.name for f in dataclasses.fields(Trace)}:
        return TRACE
    if keys and keys <= {*COLLECTIONS, RECORD_STRUCTS}:
        return DESCRIPTION
    return None


def kind_of_file(source: str | os.PathLike[str]) -> str | None:
    """:func:`kind_of` the JSON file ``source`` (None for stdin, which cannot be read twice, or a file that cannot be
    read or parsed)."""
    if os.fspath(source) == inputs.STDIN:
        return None
    tool = tool_kind_of_file(source)
    if tool is not None:
        return tool
    try:
        return kind_of(inputs.load_json(source, what="file"))
    except D3D12WLError:
        return None


def tool_kind_of_file(source: str | os.PathLike[str]) -> str | None:
    """:data:`GFXR_CONVERT` or :data:`GFXR_DUMP` when ``source`` starts as that tool's file does (its first bytes
    only: such a file runs to gigabytes), else None."""
    from d3d12wl.importers import recognize

    return {recognize.GFXR_CONVERT: GFXR_CONVERT,
            recognize.GFXR_DUMP: GFXR_DUMP}.get(recognize.tool_file_kind(source) or "")


def _article(kind: str) -> str:
    return "an" if kind[0] in "aeiou" else "a"


@contextmanager
def expecting(source: str | os.PathLike[str] | None, expected: str, accepted: Collection[str] = ()) -> Iterator[None]:
    """Around a load of ``source`` as a ``expected``: an error of the load is re-raised as one that names what the
    file is instead, when it is another kind (not one of ``accepted``, which the command also reads); any other
    error, or one of a file of the expected kind, is raised as it was."""
    try:
        yield
    except D3D12WLError as exc:
        kind = kind_of_file(source) if source is not None else None
        if source is None or kind is None or kind == expected or kind in accepted:
            raise
        # (the class of the error, or the nearest base that takes a message: DescriptionErrors takes a list)
        cls = next(c for c in type(exc).__mro__ if vars(c).get("__init__", D3D12WLError.__init__)
                   is D3D12WLError.__init__)
        raise cls(f"this is {_article(kind)} {kind}, not {_article(expected)} {expected}: {USE[kind]}",
                  where=inputs.label(source)) from None
