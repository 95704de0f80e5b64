"""From GFXReconstruct to captures, nothing typed: ``gfxrecon-convert``'s JSON of a D3D12 capture plus the
``gfxrecon-replay --dump-resources`` folder of each ExecuteIndirect call -> one d3d12wl capture per call.

Per dumped call (its ``_dr.json`` names the call's block index in the capture; :mod:`d3d12wl.importers.gfxr_dump`)
the convert JSON (:mod:`d3d12wl.importers.gfxr_convert`) gives the rest:

* the command signature (``CreateCommandSignature``: ``ByteStride``, the argument descs) and its root signature
  (``CreateRootSignature``'s serialized blob, read by :mod:`d3d12wl.importers.root_signature_blob`);
* ``MaxCommandCount`` and the offsets (the ``ExecuteIndirect`` call);
* the buffers as version 2 resources: ``GPUVirtualAddress`` from ``GetGPUVirtualAddress``, ``Width`` from the
  resource's ``D3D12_RESOURCE_DESC``, ``State`` from the command list's last transition barrier on it before the
  call (none: not captured);
* the command list's state before the call: its type and render-pass scope, the root signatures and root arguments
  set, the vertex and index buffers bound, the descriptor heaps (with their GPU ranges where the capture holds
  ``GetGPUDescriptorHandleForHeapStart`` and ``GetDescriptorHandleIncrementSize``).

The memory is the dumped files, mapped in place (a capture references them; nothing is copied): the argument
buffer from ``ArgumentBufferOffset`` to the resource's end, the count buffer likewise.  With
``--dump-resources-before-draw`` the capture holds the bytes before the call, and when the bytes after it differ, a
second capture (``.after.json``) holds those.  What the importer cannot know it names as a finding
(:data:`IMPORT_FINDING_KINDS`), never guesses: a call it cannot build is left out with an error finding; a value it
must choose to write a capture (a VA the application never asked for) is a warning saying so.  Each capture is then
read as the executor reads it (:func:`d3d12wl.executor.reads.read_call`: the call-time checks and the count, no
command executed), and its findings are the call's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.capture.file import Capture, load_capture, save_capture
from d3d12wl.errors import D3D12WLError
from d3d12wl.executor.reads import read_call
from d3d12wl.executor.trace import Finding
from d3d12wl.importers.errors import ImportInputError
from d3d12wl.importers.gfxr_convert import CallState, ConvertFrame, IndirectCall, Resource, RootValue, read_convert
from d3d12wl.importers.gfxr_dump import DumpedBuffer, DumpedCall, read_dump
from d3d12wl.importers.root_signature_blob import read_root_signature
from d3d12wl.migrate.runs import save_call_sequence
from d3d12wl.model import description
from d3d12wl.model.objects import ObjectSet, RootSignature
from d3d12wl.model.state import SHADER_VISIBLE_HEAP_TYPES, ExecuteIndirectCall
from d3d12wl.records.layout import command_layout
from d3d12wl.records.references import VA, record_references

__all__ = ["CALL_SEQUENCE", "IMPORT_FINDING_KINDS", "GfxrImport", "ImportedCall", "import_gfxr"]

#: the call sequence file the import writes beside the captures (docs/migrate.md, "Call sequences")
CALL_SEQUENCE = "calls.json"
#: where GFXReconstruct's writers say what the importer reads (a finding's ``rule``)
DUMP_SOURCE = "gfxrecon dx12_dump_resources.cpp"
CONVERT_SOURCE = "gfxrecon generated_dx12_json_consumer.cpp"

#: the findings of an import, by kind
IMPORT_FINDING_KINDS = {
    "call-not-in-convert": "the dump names a block of the capture that is no ExecuteIndirect of the convert JSON",
    "dump-of-other-capture": "the dump's header names another capture file than the convert JSON's",
    "command-signature-not-in-convert": "the call's command signature was created outside the part of the capture "
                                        "the convert JSON holds",
    "argument-not-in-convert": "an argument desc the convert JSON does not write in full (INCREMENTING_CONSTANT's "
                               "members, a type it has no name for)",
    "root-signature-not-in-convert": "a root signature the call reads was created outside the part of the capture "
                                     "the convert JSON holds",
    "root-signature-unreadable": "a root signature blob that is no serialized root signature",
    "resource-mismatch": "the dump's resource or offset differs from the call's",
    "dump-size-mismatch": "a dumped file does not hold the bytes its sub says",
    "capture-does-not-load": "what the files say does not make a capture the capture loader takes (it says why)",
    "width-mismatch": "the resource's Width differs from the dump's offset + size",
    "va-not-in-convert": "the capture holds no GetGPUVirtualAddress of a buffer: the import chose its VA",
    "dumped-after-call": "the dump holds the bytes after the call only (no --dump-resources-before-draw)",
    "changed-during-call": "the bytes before and after the call differ: the after capture holds the later ones",
    "replay-addresses": "the argument bytes are gfxrecon-replay's: the GPU VAs in them are the replay's",
    "count-above-max": "the count buffer holds more than MaxCommandCount: MaxCommandCount commands execute",
    "root-constants-partial": "DWORDs of a root constants parameter the command list never set: left unset",
    "root-argument-mismatch": "a root argument set as another type than its parameter in the bound root signature",
    "index-format-unknown": "an index buffer format this d3d12wl has no value for: the index buffer is left out",
    "state-not-followed": "the command list ran something before the call whose state the import does not follow",
}

#: a buffer whose VA the capture does not hold is placed at this alignment above every known one (D3D12's
#: default resource placement alignment, 64 KiB)
CHOSEN_VA_ALIGNMENT = 1 << 16
_BUFFER = "D3D12_RESOURCE_DIMENSION_BUFFER"


@dataclass
class ImportedCall:
    """One dumped call: its block index, its dump, the captures written (``before`` or ``after``: which bytes they
    hold), what executes, and its findings (the import's, then the executor's call-time ones)."""

    block: int
    dump: Path
    captures: dict[str, Path] = field(default_factory=dict)
    command_signature: str | None = None
    max_command_count: int | None = None
    count_value: int | None = None
    commands: int | None = None
    program: str | None = None
    findings: list[Finding] = field(default_factory=list)

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    def to_dict(self) -> dict[str, Any]:
        return {"block_index": self.block, "dump": str(self.dump),
                "captures": {k: str(v) for k, v in self.captures.items()},
                "command_signature": self.command_signature, "MaxCommandCount": self.max_command_count,
                "count_buffer_value": self.count_value, "commands": self.commands, "program": self.program,
                "findings": [_finding_dict(f) for f in self.findings]}


@dataclass
class GfxrImport:
    """What :func:`import_gfxr` did: every call in block order, the call sequence written (None: no capture)."""

    convert: Path
    calls: list[ImportedCall]
    sequence: Path | None
    header: dict[str, Any]

    @property
    def errors(self) -> list[Finding]:
        return [f for c in self.calls for f in c.errors]

    def to_dict(self) -> dict[str, Any]:
        return {"convert": str(self.convert), "gfxrecon_version": self.header.get("gfxrecon-version"),
                "call_sequence": None if self.sequence is None else str(self.sequence),
                "calls": [c.to_dict() for c in self.calls]}


def _finding_dict(f: Finding) -> dict[str, Any]:
    return {"kind": f.kind, "rule": f.rule, "severity": f.severity, "message": f.message,
            "command_index": f.command_index, "va": f.va}


def _note(call: ImportedCall, kind: str, message: str, severity: str = "warning", rule: str = CONVERT_SOURCE) -> None:
    assert kind in IMPORT_FINDING_KINDS, kind
    call.findings.append(Finding(kind, rule, message, severity))


class _Skip(Exception):
    """The call cannot be built (its error finding is recorded)."""


def import_gfxr(convert: str | os.PathLike[str], dumps: Sequence[str | os.PathLike[str]],
                output_dir: str | os.PathLike[str]) -> GfxrImport:
    """Write one capture per dumped call into ``output_dir`` (which must exist) and a call sequence of them
    (:data:`CALL_SEQUENCE`); see the module docstring.  ``dumps``: ``--dump-resources-dir`` folders or their
    ``_dr.json`` files.  Inputs that cannot be read raise :class:`ImportInputError` (nothing is written); a call
    that cannot be built is left out with an error finding."""
    out = Path(output_dir)
    if not out.is_dir():
        raise ImportInputError("is no folder: make it first (the import writes a capture per call into it)",
                               where=str(output_dir))
    dumped: dict[int, DumpedCall] = {}
    for source in dumps:
        d = read_dump(source)
        if d.block_index in dumped:
            raise ImportInputError(f"dumps block {d.block_index} as {dumped[d.block_index].path} does: give each "
                                   "call's dump once", where=str(d.path))
        dumped[d.block_index] = d
    if not dumped:
        raise ImportInputError("no dump given: name a gfxrecon-replay --dump-resources-dir folder per call",
                               where="DUMP")
    frame = read_convert(convert, calls=dumped)
    result = GfxrImport(Path(convert), [], None, frame.header)
    chosen = _chosen_vas(frame, dumped.values())
    sequence: list[tuple[str, str | None]] = []
    for block in sorted(dumped):
        call = ImportedCall(block, dumped[block].path)
        result.calls.append(call)
        try:
            _import_call(frame, dumped[block], call, out, chosen)
        except _Skip:
            continue
        if call.captures:
            first = next(iter(call.captures.values()))
            sequence.append((first.name, call.program))
    if sequence:
        result.sequence = save_call_sequence(out / CALL_SEQUENCE, sequence)
    return result


def _chosen_vas(frame: ConvertFrame, dumps: Any) -> dict[int, int]:
    """A VA for each dumped buffer whose ``GetGPUVirtualAddress`` the capture does not hold: above every VA it does
    hold, :data:`CHOSEN_VA_ALIGNMENT`-aligned, in resource order (deterministic)."""
    top = max((r.va + max(r.width, 1) for r in frame.resources.values() if r.va is not None), default=0)
    need: dict[int, int] = {}
    for d in dumps:
        for b in (d.arguments, d.counts):
            if b is not None and not b.null:
                r = frame.resources.get(b.res_id)
                if r is None or r.va is None:
                    width = r.width if r is not None and r.width else b.offset + b.size
                    need[b.res_id] = max(need.get(b.res_id, 0), width)
    out: dict[int, int] = {}
    at = max(top, CHOSEN_VA_ALIGNMENT)
    for res_id in sorted(need):
        at = -(-at // CHOSEN_VA_ALIGNMENT) * CHOSEN_VA_ALIGNMENT
        out[res_id] = at
        at += max(need[res_id], 1)
    return out


# --------------------------------------------------------------------------------------------------------------
# One call
# --------------------------------------------------------------------------------------------------------------


def _import_call(frame: ConvertFrame, dump: DumpedCall, call: ImportedCall, out: Path, chosen: dict[int, int]) -> None:
    ic = frame.calls.get(dump.block_index)
    source = frame.header.get("source-path")
    if dump.capture_file and isinstance(source, str) and _stem(dump.capture_file) != _stem(source):
        _note(call, "dump-of-other-capture", f"the dump is of {dump.capture_file!r}, the convert JSON of {source!r}",
              rule=DUMP_SOURCE)
    if ic is None:
        other = frame.other_calls.get(dump.block_index)
        what = f"a {other}" if other else "no block"
        _note(call, "call-not-in-convert", f"the dump's block_index {dump.block_index} is {what} in "
                                           f"{frame.source}" + (": a bundle's ExecuteIndirect is not named by the dump"
                                                                if other == "ExecuteBundle" else ""), "error",
              DUMP_SOURCE)
        raise _Skip
    state = ic.state
    call.program = None if not state.pipeline_state else f"pso_{state.pipeline_state}"
    objects_doc, cs_name = _objects(frame, ic, call)
    call.command_signature = cs_name
    call.max_command_count = ic.max_command_count
    args = _checked_buffer(frame, ic.argument_buffer, ic.argument_offset, dump.arguments, "pArgumentBuffer", call)
    count = _checked_buffer(frame, ic.count_buffer, ic.count_offset, dump.counts, "pCountBuffer", call)
    positions = ["before", "after"] if dump.before else ["after"]
    if not dump.before:
        _note(call, "dumped-after-call", "gfxrecon-replay ran without --dump-resources-before-draw: the bytes are "
                                         "the buffers after the call, what it read only if nothing it ran wrote them",
              rule=DUMP_SOURCE)
    state_doc = _state(frame, ic, state, objects_doc, call)
    assert args is not None
    regions, call_doc = _buffers(frame, ic, cs_name, args, count, chosen, call)
    captures: dict[str, Capture] = {}
    for position in positions:
        memory = [{"name": name, "base": f"0x{base:x}", "file": str(dumped.files[position].resolve()),
                   "size": dumped.size} for name, base, dumped in regions]
        doc = {"version": 4, "device": {"Tier": "TIER_NOT_SUPPORTED"}, **objects_doc, "memory": memory,
               "state": state_doc, "call": call_doc}
        try:
            captures[position] = load_capture(doc)
        except D3D12WLError as exc:
            _note(call, "capture-does-not-load", f"the capture built from the files does not load: {exc}", "error")
            raise _Skip from None
    if "before" in captures and "after" in captures and _same_bytes(captures["before"], captures["after"]):
        del captures["after"]
    elif "before" in captures:
        _note(call, "changed-during-call", "the argument or count bytes after the call differ from those before "
                                           "it: the .after.json capture holds the later ones", rule=DUMP_SOURCE)
    main = captures.get("before") or captures["after"]
    _replay_addresses(main, call)
    stem = f"call_{dump.block_index}"
    for position, capture in captures.items():
        name = f"{stem}.json" if capture is main else f"{stem}.{position}.json"
        call.captures[position] = save_capture(capture, out / name, inline_limit=0)  # the dumps in place
    _preflight(main, call)


def _stem(path: str) -> str:
    name = path.replace("\\", "/").rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0] if "." in name else name


def _same_bytes(a: Capture, b: Capture) -> bool:
    for ra, rb in zip(a.memory.regions, b.memory.regions):
        if ra.size != rb.size or not np.array_equal(np.frombuffer(ra.data, np.uint8), np.frombuffer(rb.data, np.uint8)):
            return False
    return True


def _objects(frame: ConvertFrame, ic: IndirectCall, call: ImportedCall) -> tuple[dict[str, Any], str]:
    """The description collections the call needs (its command signature and the root signatures it and the
    command list name), and the command signature's name."""
    found = frame.command_signatures.get(ic.command_signature)
    if found is None:
        _note(call, "command-signature-not-in-convert",
              f"command signature {ic.command_signature} of the call ({ic.where}) has no CreateCommandSignature in "
              f"{frame.source}: convert the whole capture (without --frame-range or --file-per-frame)", "error")
        raise _Skip
    desc, rs_handle, where = found
    cs_name = f"cs_{ic.command_signature}"
    cs: dict[str, Any] = {}
    for key in ("ByteStride", "NumArgumentDescs"):
        if key in desc:
            cs[key] = desc[key]
    arguments = desc.get("pArgumentDescs") or []
    if not isinstance(arguments, list):
        raise ImportInputError(f"expected an array of argument descs, got {type(arguments).__name__}",
                               where=f"{where} method.args.pDesc.pArgumentDescs")
    prefix = abi.default.enum_prefix("D3D12_INDIRECT_ARGUMENT_TYPE")
    cs["pArgumentDescs"] = []
    for i, arg in enumerate(arguments):
        member = f"{where} method.args.pDesc.pArgumentDescs[{i}]"
        kind = arg.get("Type") if isinstance(arg, dict) else None
        if not isinstance(kind, str) or not kind.startswith(prefix):
            _note(call, "argument-not-in-convert", f"{member}.Type is {kind!r}: no argument type this importer "
                                                   "reads", "error")
            raise _Skip
        short = kind[len(prefix):]
        if short == "INCREMENTING_CONSTANT" or "WARNING" in arg:
            _note(call, "argument-not-in-convert", f"{member} is {short}: gfxrecon-convert writes no member of it "
                                                   "(its RootParameterIndex and DestOffsetIn32BitValues are not in the "
                                                   "JSON)", "error")
            raise _Skip
        cs["pArgumentDescs"].append({k: (short if k == "Type" else v) for k, v in arg.items() if k != "comment"})
    if "NodeMask" in desc:
        text = desc["NodeMask"]
        cs["NodeMask"] = int(text[2:], 2) if isinstance(text, str) and text.startswith("0b") else text
    roots: dict[int, RootSignature] = {}
    if rs_handle:
        rs = _root_signature(frame, rs_handle, call, f"the command signature's ({where})")
        if rs is None:
            raise _Skip
        roots[rs_handle] = rs
        cs["pRootSignature"] = rs.name
    for handle in (ic.state.graphics_root_signature, ic.state.compute_root_signature):
        if handle and handle not in roots:
            rs = _root_signature(frame, handle, call, "set on the command list")
            if rs is not None:
                roots[handle] = rs
    doc = description.dump(ObjectSet(root_signatures={rs.name: rs for rs in roots.values()}))
    doc = {k: v for k, v in doc.items() if v}
    doc["command_signatures"] = {cs_name: cs}
    try:
        description.load(doc)
    except D3D12WLError as exc:
        raise ImportInputError(f"the command signature does not load: {exc.message}",
                               where=f"{where} method.args.pDesc") from None
    return doc, cs_name


def _root_signature(frame: ConvertFrame, handle: int, call: ImportedCall, what: str) -> RootSignature | None:
    found = frame.root_signatures.get(handle)
    if found is None:
        _note(call, "root-signature-not-in-convert", f"root signature {handle} ({what}) has no CreateRootSignature in "
                                                     f"{frame.source}", "error")
        return None
    blob, where = found
    try:
        return read_root_signature(blob, f"rs_{handle}", where=where)
    except ImportInputError as exc:
        _note(call, "root-signature-unreadable", f"root signature {handle} ({what}): {exc}", "error")
        return None


def _checked_buffer(frame: ConvertFrame, handle: int, offset: int, dumped: DumpedBuffer | None, member: str,
                    call: ImportedCall) -> DumpedBuffer | None:
    """The dumped buffer of a call parameter, checked against the call (resource, offset, file sizes)."""
    if dumped is None or dumped.null:
        if handle:
            _note(call, "resource-mismatch", f"the call's {member} is resource {handle}; the dump has none",
                  "error", DUMP_SOURCE)
            raise _Skip
        return None
    if dumped.res_id != handle or dumped.offset != offset:
        _note(call, "resource-mismatch", f"the dump's {dumped.member} is resource {dumped.res_id} at offset "
                                         f"{dumped.offset}; the call's {member} is resource {handle} at offset "
                                         f"{offset}", "error", DUMP_SOURCE)
        raise _Skip
    for position, path in dumped.files.items():
        try:
            size = path.stat().st_size
        except OSError as exc:
            raise ImportInputError(f"the dumped {position} bytes of {dumped.member} cannot be read: "
                                   f"{exc.strerror or exc}", where=str(path)) from None
        if size != dumped.size:
            _note(call, "dump-size-mismatch", f"{path.name} holds {size} bytes; its sub says {dumped.size}", "error",
                  DUMP_SOURCE)
            raise _Skip
    resource = frame.resources.get(handle)
    if resource is not None and resource.dimension and resource.dimension != _BUFFER:
        raise ImportInputError(f"resource {handle} is {resource.dimension}: an ExecuteIndirect buffer is "
                               f"{_BUFFER}", where=resource.where)
    if resource is not None and resource.width and resource.width != dumped.offset + dumped.size:
        _note(call, "width-mismatch", f"resource {handle}'s Width is {resource.width}; the dump holds "
                                      f"{dumped.size} bytes from offset {dumped.offset} (the capture keeps the Width)",
              rule=DUMP_SOURCE)
    return dumped


def _resource_doc(frame: ConvertFrame, dumped: DumpedBuffer, state: CallState, chosen: dict[int, int],
                  call: ImportedCall, member: str) -> tuple[dict[str, Any], int]:
    r: Resource | None = frame.resources.get(dumped.res_id)
    va = r.va if r is not None else None
    if va is None:
        va = chosen[dumped.res_id]
        _note(call, "va-not-in-convert", f"{frame.source} holds no GetGPUVirtualAddress of resource {dumped.res_id} "
                                         f"({member}): placed at 0x{va:x}, a VA the import chose above every VA the "
                                         "capture holds")
    width = r.width if r is not None and r.width else dumped.offset + dumped.size
    doc: dict[str, Any] = {"GPUVirtualAddress": f"0x{va:x}", "Width": width}
    if dumped.res_id in state.resource_states:
        doc["State"] = state.resource_states[dumped.res_id]
    return doc, va


def _buffers(frame: ConvertFrame, ic: IndirectCall, cs_name: str, args: DumpedBuffer, count: DumpedBuffer | None,
             chosen: dict[int, int], call: ImportedCall) -> tuple[list[tuple[str, int, DumpedBuffer]], dict[str, Any]]:
    """The capture's regions (name, base VA, the dumped buffer whose file holds them) and its ``call`` member."""
    arg_doc, arg_va = _resource_doc(frame, args, ic.state, chosen, call, "pArgumentBuffer")
    regions = [(f"resource_{args.res_id}", arg_va + args.offset, args)]
    count_doc: dict[str, Any] | None = None
    if count is not None:
        if count.res_id == args.res_id:  # one resource: the dump that starts first holds both
            count_doc = arg_doc
            if count.offset < args.offset:
                regions = [(f"resource_{args.res_id}", arg_va + count.offset, count)]
        else:
            count_doc, count_va = _resource_doc(frame, count, ic.state, chosen, call, "pCountBuffer")
            regions.append((f"resource_{count.res_id}", count_va + count.offset, count))
    body = {"pCommandSignature": cs_name, "MaxCommandCount": ic.max_command_count, "pArgumentBuffer": arg_doc,
            "ArgumentBufferOffset": ic.argument_offset, "pCountBuffer": count_doc,
            "CountBufferOffset": ic.count_offset if count is not None else 0}
    return regions, {"ExecuteIndirect": body}


def _state(frame: ConvertFrame, ic: IndirectCall, state: CallState, objects_doc: dict[str, Any],
           call: ImportedCall) -> dict[str, Any]:
    """The capture's ``state`` member from what the convert JSON shows of the command list."""
    out: dict[str, Any] = {}
    for note in state.notes:
        _note(call, "state-not-followed", note)
    if state.list_type is not None:
        out["command_list_type"] = state.list_type
    if state.in_render_pass:
        out["in_render_pass"] = True
    roots = objects_doc.get("root_signatures", {})
    loaded = description.load({"root_signatures": roots}).root_signatures if roots else {}
    for which in ("graphics", "compute"):
        handle = getattr(state, f"{which}_root_signature")
        name = f"rs_{handle}" if handle else None
        rs = loaded.get(name) if name else None
        out[f"{which}_root_signature"] = name if rs is not None else None
        values: dict[int, RootValue] = getattr(state, f"{which}_arguments")
        arguments: dict[str, Any] = {}
        for index, value in sorted(values.items()):
            arg = _root_argument(rs, index, value, which, call)
            if arg is not None:
                arguments[str(index)] = arg
        if arguments:
            out[f"{which}_root_arguments"] = arguments
    out["vertex_buffers"] = {str(s): {"BufferLocation": f"0x{v[0]:x}", "SizeInBytes": v[1], "StrideInBytes": v[2]}
                             for s, v in sorted(state.vertex_buffers.items())}
    if state.index_buffer is not None:
        location, size, fmt = state.index_buffer
        try:
            abi.enum_value("DXGI_FORMAT", fmt)
        except D3D12WLError:
            _note(call, "index-format-unknown", f"the index buffer bound has Format DXGI_FORMAT_{fmt}, which this "
                                                "d3d12wl has no value for (an index buffer is R16_UINT or R32_UINT): "
                                                "the capture binds none")
        else:
            out["index_buffer"] = {"BufferLocation": f"0x{location:x}", "SizeInBytes": size, "Format": fmt}
    heaps: dict[str, Any] = {}
    for handle in state.descriptor_heaps:
        heap = frame.heaps.get(handle)
        if heap is None or heap.type not in SHADER_VISIBLE_HEAP_TYPES:
            continue
        increment = frame.increments.get(heap.type)
        if heap.start is not None and increment:
            heaps[heap.type] = {"GPUDescriptorHandleForHeapStart": f"0x{heap.start:x}",
                                "NumDescriptors": heap.count, "DescriptorIncrementSize": increment}
        else:
            heaps[heap.type] = True
    if heaps:
        out["descriptor_heaps"] = heaps
    return out


def _root_argument(rs: RootSignature | None, index: int, value: RootValue, which: str,
                   call: ImportedCall) -> dict[str, Any] | None:
    if rs is None or index >= len(rs.pParameters):
        _note(call, "root-argument-mismatch", f"{which} root parameter {index} set at {value.where}: the root "
                                              "signature bound " + ("is not known" if rs is None else
                                                                    f"{rs.name} has {len(rs.pParameters)} parameters"))
        return None
    param = rs.pParameters[index]
    kind = {"32BIT_CONSTANTS": "constants", "DESCRIPTOR_TABLE": "table"}.get(param.parameter_type_name, "descriptor")
    if kind != value.kind:
        _note(call, "root-argument-mismatch", f"{which} root parameter {index} of {rs.name} is "
                                              f"{param.parameter_type_name}; {value.where} set it as {value.kind}")
        return None
    if kind == "table":
        return {"DescriptorTable": f"0x{value.value:x}"}
    if kind == "descriptor":
        return {"Descriptor": f"0x{value.value:x}"}
    width = param.Constants.Num32BitValues
    missing = [k for k in range(width) if k not in value.dwords]
    extra = [k for k in value.dwords if k >= width]
    if missing or extra:
        what = f"DWORDs {missing} were never set" if missing else f"DWORDs {extra} lie past its {width}"
        _note(call, "root-constants-partial", f"{which} root constants parameter {index} of {rs.name} "
                                              f"({width} DWORDs): {what} on the command list: the capture leaves the "
                                              "parameter unset")
        return None
    return {"Constants": [value.dwords[k] for k in range(width)]}


def _replay_addresses(capture: Capture, call: ImportedCall) -> None:
    """Name the GPU VA arguments of the call's commands: their bytes are the replay's."""
    assert isinstance(capture.call, ExecuteIndirectCall) and capture.call.pCommandSignature is not None
    layout = command_layout(capture.call.pCommandSignature)
    fields = [r.name for r in record_references(layout) if r.kind == VA]
    if fields:
        _note(call, "replay-addresses", f"the argument bytes come from gfxrecon-replay, so the GPU VAs in "
                                        f"{', '.join(fields)} are the replay's, while the resources' VAs here are the "
                                        "capture's (GetGPUVirtualAddress): give d3d12wl remap the replay's VA map to "
                                        "bring them together", rule=DUMP_SOURCE)


def _preflight(capture: Capture, call: ImportedCall) -> None:
    """The executor's read of the call (its call-time checks and its count), as ``d3d12wl capture`` runs it."""
    reads = read_call(capture.memory, capture.device, capture.objects, capture.state, capture.call)
    args = reads.trace.call_args
    call.count_value = args.get("count_buffer_value")
    call.commands = args.get("command_count")
    if call.count_value is not None and call.max_command_count is not None \
            and call.count_value > call.max_command_count:
        _note(call, "count-above-max", f"the count buffer holds {call.count_value}, above MaxCommandCount "
                                       f"{call.max_command_count}: min(count, MaxCommandCount) = "
                                       f"{call.max_command_count} commands execute", rule="Drawing")
    call.findings.extend(reads.trace.findings)
