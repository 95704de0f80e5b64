"""Captured against replayed: an ExecuteIndirect capture and its replay's dump of the same call (a GITS pre- or
post-patch dump, a ``gfxrecon-replay --dump-resources`` folder), compared command by command in columns.

The replay's commands are read with the capture's command signature, at its ``ByteStride``
(:func:`d3d12wl.importers.gits.read_gits_dump`; a GFXReconstruct dump's argument bytes as they are).  The capture's
commands are the ones it executes: ``min(count, MaxCommandCount)`` at ``ArgumentBuffer + k * ByteStride``
(IndirectDrawing.md "Drawing"), read through :func:`d3d12wl.executor.reads.read_call`.  Then, per command:

* every argument that is no GPU VA must be the same: each one that differs is named (``arg4_DrawIndexed.
  InstanceCount: 1 -> 2``);
* every GPU VA: with a VA map (the one ``d3d12wl remap`` reads: where the capture's ranges lie in the replay) the
  replayed address must be the captured one mapped; without one, only what the dump itself says is checked (GITS's
  lookup in the replay: ``NOT FOUND``); a NULL address must stay NULL and a non-NULL one must not become NULL.  A
  GITS pre-patch dump holds the addresses before GITS patches them, the captured ones, looked up among the captured
  resources: each must be the captured address (no VA map applies), and one GITS finds in no captured resource
  points nowhere (nothing to patch it to), as ``d3d12wl import gits`` says of it;
* the count: the replay must execute as many commands as the capture.

A replay that cannot execute what was captured is flagged (``Diff.cannot_execute``): fewer or more commands (RenderDoc
#3891: a count buffer smaller than the recorded count left the later commands' VAs unpatched), an address left as
captured where the map moves it or pointing at no replay resource, an address patched to another place, a NULL view
patched into an address or an address patched into NULL (RenderDoc PR #3908: NULL vertex and index buffer views
inside ExecuteIndirect tripped the remapping).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import inputs
from d3d12wl.capture.file import Capture, load_capture
from d3d12wl.capture.maps import VaMap
from d3d12wl.errors import MemoryAccessError
from d3d12wl.executor.reads import read_call
from d3d12wl.importers.errors import ImportInputError
from d3d12wl.importers.gfxr_dump import DUMP_SUFFIX, read_dump
from d3d12wl.importers.gits import FILE_NAME, NOT_FOUND, read_gits_dump
from d3d12wl.migrate.diff import Diff, ExecutionDiff
from d3d12wl.model.state import ExecuteIndirectCall
from d3d12wl.records.dtypes import leaves, record_dtype
from d3d12wl.records.layout import command_layout
from d3d12wl.records.references import VA, record_references

__all__ = ["MAX_LISTED_COMMANDS", "ReplayDump", "diff_replay", "read_replay", "replay_kind"]

#: the most differing commands listed (the rest are counted in the note)
MAX_LISTED_COMMANDS = 1000
#: the most flags of one kind a diff lists (the rest are counted)
MAX_LISTED_FLAGS = 16


@dataclass
class ReplayDump:
    """What a replay's dump says the call executed: ``records`` (its commands at the capture's stride),
    ``count_value`` (the count buffer's, where the dump holds it), ``status`` (GITS's lookup of each VA field, where
    the dump holds it: in the replay's resources, or, for a GITS pre-patch dump (``phase`` ``"pre"``), in the
    captured ones)."""

    source: Path
    kind: str
    records: np.ndarray
    count_value: int | None = None
    status: np.ndarray | None = None
    phase: str | None = None


def replay_kind(source: str | os.PathLike[str]) -> str | None:
    """``"gits"`` or ``"gfxr"`` when ``source`` is a replay's dump, else None (a capture, a trace, a call
    sequence: a run ``d3d12wl diff`` compares as before)."""
    path = Path(source)
    kind = inputs.path_kind(path) if os.fspath(source) != inputs.STDIN else None
    if kind == "a directory":
        return "gfxr" if any(path.glob(f"*{DUMP_SUFFIX}")) else None
    if kind != "a regular file":
        return None
    if path.name.endswith(DUMP_SUFFIX):
        return "gfxr"
    if FILE_NAME.fullmatch(path.name):
        return "gits"
    with open(path, "rb") as f:
        return "gits" if f.read(9) == b"ARGUMENT " else None


def _signature_and_stride(capture: Capture) -> tuple[Any, Any, int]:
    call = capture.call
    if not isinstance(call, ExecuteIndirectCall) or call.pCommandSignature is None:
        raise ImportInputError("a replay's dump is compared with an ExecuteIndirect capture; this capture's call is "
                               f"{capture.call_name}", where=str(capture.path or "the capture"))
    cs = call.pCommandSignature
    layout = command_layout(cs)
    return cs, layout, cs.ByteStride if cs.ByteStride >= layout.size else layout.min_stride


def read_replay(source: str | os.PathLike[str], capture: Capture) -> ReplayDump:
    """The replay's dump ``source`` read with ``capture``'s command signature (:func:`replay_kind` says which)."""
    kind = replay_kind(source)
    cs, layout, stride = _signature_and_stride(capture)
    if kind == "gits":
        dump = read_gits_dump(source, cs)
        return ReplayDump(dump.path, kind, dump.records, None, dump.status, dump.phase)
    if kind != "gfxr":
        raise ImportInputError("is no replay dump this d3d12wl reads (a GITS call_<key>_execute_indirect_"
                               "<pre|post>_patch.txt, a gfxrecon-replay --dump-resources folder or its *_dr.json)",
                               where=os.fspath(source))
    dumped = read_dump(source)
    assert dumped.arguments is not None
    position = "before" if dumped.before else "after"
    dtype = record_dtype(layout, stride)
    data = inputs.map_bytes(dumped.arguments.files[position], what="dumped argument buffer", limit=1 << 40)
    count_value = None
    if dumped.counts is not None and not dumped.counts.null:
        count_bytes = inputs.map_bytes(dumped.counts.files[position], what="dumped count buffer", limit=1 << 40)
        if len(count_bytes) < 4:
            raise ImportInputError("a count buffer of fewer than 4 bytes", where=str(dumped.counts.files[position]))
        count_value = int.from_bytes(bytes(count_bytes[:4]), "little")  # (the file runs to the resource's end)
    assert isinstance(capture.call, ExecuteIndirectCall)
    n = capture.call.MaxCommandCount if count_value is None else min(count_value, capture.call.MaxCommandCount)
    # a command past the dumped bytes is not read (the replay's buffer ends there); the last may end short of the
    # stride's padding
    whole = max(0, (len(data) - layout.size) // stride + 1) if len(data) >= layout.size else 0
    n = min(n, whole)
    records = np.zeros(n, dtype=dtype)
    raw = records.view(np.uint8).reshape(n, stride) if n else np.zeros((0, stride), np.uint8)
    source_bytes = np.frombuffer(data, dtype=np.uint8)
    for k in range(0, n, 1 << 16):  # a block of commands at a time: bounded memory
        m = min(n, k + (1 << 16)) - k
        index = (np.arange(k, k + m, dtype=np.int64) * stride)[:, None] + np.arange(layout.size)
        raw[k:k + m, :layout.size] = source_bytes[index]
    return ReplayDump(dumped.path, kind, records, count_value, None)


def _captured(capture: Capture) -> tuple[np.ndarray, int | None]:
    """The records the capture executes (``min(count, MaxCommandCount)`` of them) and its count buffer's value."""
    cs, layout, stride = _signature_and_stride(capture)
    reads = read_call(capture.memory, capture.device, capture.objects, capture.state, capture.call)
    args = reads.trace.call_args
    n = int(args.get("command_count") or 0) if reads.commands is not None else 0
    records = np.zeros(n, dtype=record_dtype(layout, stride))
    raw = records.view(np.uint8).reshape(n, stride) if n else np.zeros((0, stride), np.uint8)
    assert isinstance(capture.call, ExecuteIndirectCall)
    for k in range(0, n, 1 << 16):
        m = min(n, k + (1 << 16)) - k
        try:
            block = capture.memory.view(capture.call.ArgumentBuffer + k * stride, (m - 1) * stride + layout.size,
                                        what=f"commands {k}..{k + m - 1} of the argument buffer")
        except MemoryAccessError as exc:
            raise ImportInputError(f"does not hold the commands its call executes, so there is nothing to compare "
                                   f"the replay with ({exc}); 'd3d12wl exec' names the commands it cannot read",
                                   where=str(capture.path or "the capture")) from None
        flat = np.frombuffer(block, dtype=np.uint8)
        index = (np.arange(m, dtype=np.int64) * stride)[:, None] + np.arange(layout.size)
        raw[k:k + m, :layout.size] = flat[index]
    return records, args.get("count_buffer_value")


def diff_replay(capture: Capture | str | os.PathLike[str], replay: str | os.PathLike[str] | ReplayDump, *,
                va_map: VaMap | None = None) -> Diff:
    """Compare ``capture`` with its replay's dump, command by command (see the module docstring)."""
    if not isinstance(capture, Capture):
        capture = load_capture(capture)
    dump = replay if isinstance(replay, ReplayDump) else read_replay(replay, capture)
    before_patching = dump.phase == "pre"
    if before_patching and va_map is not None:
        raise ImportInputError("is a GITS pre-patch dump: it holds the captured addresses, before GITS patches them, "
                               "so no VA map applies; compare the post-patch dump with the map", where=str(dump.source))
    cs, layout, stride = _signature_and_stride(capture)
    a, count_a = _captured(capture)
    b = dump.records
    n = min(len(a), len(b))
    out = Diff(n, key=("command_index",), replay=True)
    out.only_in_a = list(range(n, len(a)))
    out.only_in_b = list(range(n, len(b)))
    flags: dict[str, list[tuple[int, str]]] = {}

    def flag(kind: str, text: str, command: int = -1) -> None:
        flags.setdefault(kind, []).append((command, text))

    if len(a) != len(b):
        counts = f" (count buffer: captured {count_a}, replayed {dump.count_value})" \
            if count_a is not None or dump.count_value is not None else ""
        flag("count", f"the replay executes {len(b)} commands, the capture {len(a)}{counts}")
    va_fields = [r for r in record_references(layout) if r.kind == VA]
    raw_a = a[:n].view(np.uint8).reshape(n, stride) if n else np.zeros((0, stride), np.uint8)
    raw_b = b[:n].view(np.uint8).reshape(n, stride) if n else np.zeros((0, stride), np.uint8)
    what: dict[int, list[str]] = {}
    for j, f in enumerate(va_fields):
        p = raw_a[:, f.offset:f.offset + 8].copy().view("<u8").reshape(-1)
        q = raw_b[:, f.offset:f.offset + 8].copy().view("<u8").reshape(-1)
        null_p, null_q = p == 0, q == 0
        problems: list[tuple[str, np.ndarray]] = [("null-patched", null_p & ~null_q),
                                                  ("patched-to-null", ~null_p & null_q)]
        live = ~null_p & ~null_q
        mapped, ok = p, np.ones(n, dtype=bool)
        if va_map is not None:
            mapped, ok = va_map.map(p)
            problems += [("unpatched", live & ok & (q == p) & (mapped != p)),
                         ("patched-elsewhere", live & ok & (q != mapped) & ~((q == p) & (mapped != p))),
                         ("points-nowhere", live & ~ok)]
        if before_patching:  # (the captured addresses, looked up among the captured resources)
            problems.append(("points-nowhere", live & (dump.status[:n, j] == NOT_FOUND)
                             if dump.status is not None else np.zeros(n, dtype=bool)))
            for k in np.flatnonzero(~null_p & (q != p)).tolist():
                what.setdefault(k, []).append(f"{f.name}: 0x{int(p[k]):x} -> 0x{int(q[k]):x}: not the captured "
                                              "address (a pre-patch dump holds the captured ones)")
        elif dump.status is not None:
            nowhere = live & (dump.status[:n, j] == NOT_FOUND)
            if va_map is None:
                problems += [("unpatched", nowhere & (q == p)), ("points-nowhere", nowhere & (q != p))]
            else:  # where the map sends it, the replay has no resource
                problems.append(("points-nowhere", nowhere & (q == mapped)))
        for kind, bad in problems:
            for k in np.flatnonzero(bad).tolist():
                expected = "" if va_map is None or not ok[k] or not p[k] else f" (mapped: 0x{int(mapped[k]):x})"
                text = f"{f.name}: 0x{int(p[k]):x} -> 0x{int(q[k]):x}{expected}: {kind}"
                what.setdefault(k, []).append(text)
                flag(kind, f"command {k} {text}", k)
    mask = np.ones(stride, dtype=bool)
    for f in va_fields:
        mask[f.offset:f.offset + f.size] = False
    mask[layout.size:] = False  # the stride's padding is not read
    for leaf in leaves(record_dtype(layout, stride)):
        span = slice(leaf.offset, leaf.offset + leaf.size)
        if not mask[span].any():
            continue
        x = _leaf(a[:n], leaf.path)
        y = _leaf(b[:n], leaf.path)
        differ = np.any((x != y).reshape(n, -1), axis=1) if n else np.zeros(0, bool)
        for k in np.flatnonzero(differ).tolist():
            what.setdefault(k, []).append(f"{leaf.path}: {_value(x[k])} -> {_value(y[k])}")
    differing = sorted(what)
    out.differences = [ExecutionDiff(k, k, (k,), what[k]) for k in differing[:MAX_LISTED_COMMANDS]]
    for kind, listed in flags.items():
        texts = [text for _, text in sorted(listed, key=lambda item: item[0])]
        out.cannot_execute += texts[:MAX_LISTED_FLAGS]
        if len(texts) > MAX_LISTED_FLAGS:
            out.cannot_execute.append(f"... and {len(texts) - MAX_LISTED_FLAGS} more {kind}")
    how = "each replayed address against the VA map" if va_map is not None else \
        "each against the captured one and GITS's lookup among the captured resources (a pre-patch dump)" \
        if before_patching else \
        "GITS's lookup of each replayed address" if dump.status is not None else \
        "NULL addresses only (give --va-map to compare the others)"
    out.note = f"{capture.call_name} capture against {dump.kind} replay dump {dump.source}; addresses: {how}"
    if len(differing) > MAX_LISTED_COMMANDS:
        out.note += f"; {len(differing) - MAX_LISTED_COMMANDS} more commands differ (not listed)"
    return out


def _leaf(records: np.ndarray, path: str) -> np.ndarray:
    out = records
    for part in path.split("."):
        out = out[part]
    return out


def _value(v: Any) -> Any:
    return v.tolist() if hasattr(v, "tolist") else v
