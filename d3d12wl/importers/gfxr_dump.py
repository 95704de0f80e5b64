"""What ``gfxrecon-replay --dump-resources`` writes for one ExecuteIndirect call: ``<capture>_dr.json`` and the
argument and count buffers as raw files beside it.

The writer (``framework/decode/dx12_dump_resources.cpp``, ``DefaultDx12DumpResourcesDelegate``) makes a JSON array
of two objects: ``{"header": {"D3D12SDKVersion", "gfxreconversion", "captureFile", "dumpResourcesOptions":
{"submit", "command", "draw_call"}}}`` (the three as decimal strings), then ``{"draw_call": {...}}`` holding
``block_index`` (the block index of the dumped call in the capture file: the ExecuteIndirect, or an
ExecuteBundle that holds it), ``execute_block_index`` (its ExecuteCommandLists) and, for an ExecuteIndirect,

* ``execute_indirect_arguments`` and ``execute_indirect_counts``: ``{"heap_id", "heap_index", "res_id",
  "dimension", "subs": [{"index": 0, "offset", "size", "modifiable", <file>}]}``, where ``offset`` is the call's
  ``ArgumentBufferOffset`` / ``CountBufferOffset``, ``size`` the bytes from there to the resource's end, and the
  file member is ``"file"`` (dumped after the call; ``gfxrecon-replay`` ran without
  ``--dump-resources-before-draw``) or ``"before_file"`` and ``"after_file"`` (with it);
* a NULL count buffer as ``{"heap_id": 0, "heap_index": 0, "res_id": 0}`` (no ``subs``).

Each file is ``<capture>_dr_<eiArgs|eiCount>_res_id_<id>_sub_0[_before|_after].bin`` in the folder of the JSON: the
resource's bytes from the offset to its end, exactly ``size`` of them (``WriteBinaryFile``).  One replay dumps one
call; a frame of several calls is several folders (``--dump-resources-dir``), one per call.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d3d12wl import inputs
from d3d12wl.importers.errors import ImportInputError

__all__ = ["DUMP_SUFFIX", "DumpedBuffer", "DumpedCall", "find_dump", "read_dump"]

#: the dump's JSON is ``<capture file stem>`` + this
DUMP_SUFFIX = "_dr.json"
#: the largest dump JSON read (it names files; the bytes are in them)
MAX_DUMP_JSON = 1 << 26
#: the file members of a dumped sub: when the bytes were read (``Dx12DumpResourcePos``)
POSITIONS = {"before_file": "before", "after_file": "after", "file": "after"}


@dataclass
class DumpedBuffer:
    """One dumped buffer: its resource (the capture's handle), the offset the call read it at, the bytes from
    there to its end, and the files holding them (by position: ``before``, ``after``)."""

    member: str
    res_id: int
    offset: int = 0
    size: int = 0
    files: dict[str, Path] = field(default_factory=dict)
    dimension: Any = None

    @property
    def null(self) -> bool:
        return self.res_id == 0


@dataclass
class DumpedCall:
    """One ``_dr.json``: its header, the call's block indices and its dumped buffers (``counts`` None when the dump
    has none; a NULL count buffer is a :class:`DumpedBuffer` with ``res_id`` 0)."""

    path: Path
    header: dict[str, Any]
    block_index: int
    execute_block_index: int
    arguments: DumpedBuffer | None
    counts: DumpedBuffer | None
    #: whether ``--dump-resources-before-draw`` was given (the files hold the bytes before the call)
    before: bool = False

    @property
    def capture_file(self) -> str:
        return str(self.header.get("captureFile", ""))


def find_dump(source: str | os.PathLike[str]) -> Path:
    """The ``_dr.json`` a user named: the file itself, or the one in a ``--dump-resources-dir`` folder."""
    path = Path(source)
    kind = inputs.path_kind(path)
    if kind is None:
        raise ImportInputError("does not exist: give a --dump-resources-dir folder or its *_dr.json",
                               where=str(source))
    if kind == "a directory":
        found = sorted(path.glob(f"*{DUMP_SUFFIX}"))
        if len(found) != 1:
            what = "no" if not found else f"{len(found)} ({', '.join(p.name for p in found[:4])})"
            raise ImportInputError(f"holds {what} *{DUMP_SUFFIX} files: a gfxrecon-replay --dump-resources-dir "
                                   "folder holds the one of its run (name the file to choose)", where=str(source))
        return found[0]
    return path


def _fail(path: Path, member: str, message: str) -> ImportInputError:
    return ImportInputError(message, where=f"{path} {member}" if member else str(path))


def _uint(path: Path, value: Any, member: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 64:
        raise _fail(path, member, f"expected an unsigned 64-bit integer, got {value!r}"[:200])
    return value


def _buffer(path: Path, draw: dict[str, Any], member: str) -> DumpedBuffer | None:
    d = draw.get(member)
    if d is None:
        return None
    where = f"draw_call.{member}"
    if not isinstance(d, dict) or "res_id" not in d:
        raise _fail(path, where, "expected {\"res_id\", \"subs\", ...} as gfxrecon-replay writes it")
    out = DumpedBuffer(member, _uint(path, d["res_id"], f"{where}.res_id"), dimension=d.get("dimension"))
    if out.null:
        return out
    subs = d.get("subs")
    if not isinstance(subs, list) or not subs:
        raise _fail(path, f"{where}.subs", "a dumped buffer has one sub (its subresource 0); there is none")
    if len(subs) != 1:
        raise _fail(path, f"{where}.subs", f"{len(subs)} subs: a buffer has one subresource")
    sub = subs[0]
    w = f"{where}.subs[0]"
    if not isinstance(sub, dict):
        raise _fail(path, w, "expected an object")
    out.offset = _uint(path, sub.get("offset"), f"{w}.offset")
    out.size = _uint(path, sub.get("size"), f"{w}.size")
    for key, position in POSITIONS.items():
        if key not in sub:
            continue
        name = sub[key]
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
            raise _fail(path, f"{w}.{key}", f"expected the name of a file beside the JSON, got {name!r}"[:200])
        if position in out.files:
            raise _fail(path, w, "both \"file\" and \"after_file\": gfxrecon-replay writes one of them")
        out.files[position] = path.parent / name
    if not out.files:
        raise _fail(path, w, f"no file member ({', '.join(POSITIONS)}): the bytes were not written")
    return out


def read_dump(source: str | os.PathLike[str]) -> DumpedCall:
    """Read the ``_dr.json`` of one ``gfxrecon-replay --dump-resources`` run (a file, or its folder)."""
    path = find_dump(source)
    try:
        doc = inputs.load_json(path, what="gfxrecon-replay dump JSON", limit=MAX_DUMP_JSON)
    except inputs.InputError as exc:
        raise ImportInputError(exc.message, where=exc.where) from None
    if not isinstance(doc, list) or len(doc) != 2 or not all(isinstance(x, dict) and len(x) == 1 for x in doc):
        raise _fail(path, "", "not a gfxrecon-replay dump: it writes a JSON array of a {\"header\": ...} and a "
                              "{\"draw_call\": ...} object")
    header, draw = doc[0].get("header"), doc[1].get("draw_call")
    if not isinstance(header, dict) or not isinstance(draw, dict):
        raise _fail(path, "", "not a gfxrecon-replay dump: expected [{\"header\": {...}}, {\"draw_call\": {...}}]")
    call = DumpedCall(path, header, _uint(path, draw.get("block_index"), "draw_call.block_index"),
                      _uint(path, draw.get("execute_block_index"), "draw_call.execute_block_index"),
                      _buffer(path, draw, "execute_indirect_arguments"), _buffer(path, draw, "execute_indirect_counts"))
    if call.arguments is None:
        raise _fail(path, "draw_call", "no execute_indirect_arguments: the dumped call is no ExecuteIndirect (or "
                                       "one in a bundle the dump does not name)")
    if call.arguments.null:
        raise _fail(path, "draw_call.execute_indirect_arguments.res_id", "0: an ExecuteIndirect always has an "
                                                                         "argument buffer")
    positions = {p for b in (call.arguments, call.counts) if b is not None for p in b.files}
    call.before = "before" in positions
    if call.counts is not None and not call.counts.null and set(call.counts.files) != set(call.arguments.files):
        raise _fail(path, "draw_call.execute_indirect_counts.subs[0]", "dumped at other positions than the arguments "
                                                                       "(before / after): one run dumps both alike")
    return call
