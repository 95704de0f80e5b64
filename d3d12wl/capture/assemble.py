"""Assemble a capture from a description, raw buffers (readback ``.bin`` files) and a few facts about the call,
without hand-written JSON: what ``d3d12wl capture`` does.

:func:`assemble` builds the capture document (docs/capture.md) and loads it with
:func:`d3d12wl.capture.file.load_capture`, the one reader of the format, so an assembled capture is checked exactly
as a written one is.  What it adds on top:

* regions by a short grammar (:func:`parse_region`): ``NAME=FILE@VA`` (``FILE,offset=N,size=N``, ``,writable``),
  ``NAME=hex:0011..@VA``, ``NAME=base64:...@VA``, ``NAME=zeros:N@VA``, ``NAME=-@VA`` (bytes given by the caller);
* VAs as numbers or by region (:func:`resolve_va`: ``NAME`` is the region's base, ``NAME+N`` an offset into it);
* the program-table binding with ``SizeInBytes`` taken from the region the table starts in, the stride defaulting
  to the signature's minimum program-table stride (spec "Program table slot layout") and ``SlotCount`` to what the
  size holds;
* ExecuteIndirect's buffer resources (``BASE,WIDTH[,STATE]``, :func:`parse_resource`), written as the capture's
  version 2 resource objects with the offsets the VAs imply;
* the command list the call is recorded on (a ``D3D12_COMMAND_LIST_TYPE`` name, whether inside a render pass),
  written as the capture's version 3 state members where they differ from a direct list outside a render pass;
* the root signatures the call's class uses (a PCS's ``pGlobalRootSignature``, a command signature's
  ``pRootSignature``), and root arguments whose form follows the parameter's type in that root signature;
* program identifiers read from the bound table's slots and matched to the description's programs
  (:func:`program_table_slots`): an identifier that matches no program, or a SlotCount the table's bytes do not
  hold, is a finding.
"""

from __future__ import annotations

import base64
import binascii
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import abi, inputs
from d3d12wl.capture.file import CAPTURE_VERSION, DESCRIPTOR_HEAP_MEMBERS, Capture, load_capture
from d3d12wl.capture.memory import Region as MemoryRegion
from d3d12wl.errors import CaptureError, D3D12WLError, did_you_mean
from d3d12wl.model import description
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import ObjectSet, RootSignature
from d3d12wl.model.state import SHADER_VISIBLE_HEAP_TYPES, ProgramTableBinding
from d3d12wl.records.layout import PROGRAM_IDENTIFIER, WL_ALIGN, array_strides, signature_strides
from d3d12wl.records.packers import EMPTY_IDENTIFIER, NO_PROGRAM, match_identifiers
from d3d12wl.records.payloads import executable_class_of
from d3d12wl.rules import Sink
from d3d12wl.rules.setprogram import check_program_table_binding

__all__ = ["AssembleSpec", "BindingSpec", "CallSpec", "Region", "SlotReport", "assemble", "parse_region",
           "parse_resource", "program_table_slots", "resolve_va"]


@dataclass
class Region:
    """One memory region to assemble: its capture entry (``file`` paths absolute) or, for ``data``, bytes."""

    name: str
    base: int
    entry: dict[str, Any]
    size: int
    data: bytes | bytearray | memoryview | None = None

    @property
    def end(self) -> int:
        return self.base + self.size


def _fail(where: str, message: str) -> CaptureError:
    return CaptureError(message, where=where)


def _int(text: str, where: str) -> int:
    try:
        value = inputs.integer(text)
    except ValueError as exc:
        raise _fail(where, str(exc)) from None
    if value < 0:
        raise _fail(where, f"{text!r} is negative")
    return value


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_.\[\]-]*")


def parse_region(text: str, base_dir: Path | None = None, *, stdin: bytes | bytearray | memoryview | None = None
                 ) -> Region:
    """A region from ``NAME=SOURCE@VA``.  SOURCE: a file path (``FILE,offset=N,size=N`` for part of it; a relative
    path is relative to ``base_dir``), ``hex:DIGITS``, ``base64:TEXT``, ``zeros:N`` or ``-`` (``stdin`` bytes).
    ``,writable`` after the source lets validators write it.  Raises :class:`CaptureError` naming the region."""
    where = f"region {text!r}"
    name, eq, rest = text.partition("=")
    source, at, va_text = rest.rpartition("@")
    if not eq or not at or not name:
        raise _fail(where, "expected NAME=FILE@VA (or NAME=hex:..@VA, NAME=base64:..@VA, NAME=zeros:N@VA, "
                           "NAME=-@VA)")
    if not _NAME.fullmatch(name):
        raise _fail(where, f"region name {name!r}: letters, digits, _ . - [ ] only")
    base = _int(va_text, f"{where} VA")
    options: dict[str, str] = {}
    writable = False
    kind = source.split(":", 1)[0] if ":" in source and source.split(":", 1)[0] in ("hex", "base64", "zeros") \
        else "file"
    if kind == "file":
        parts = source.split(",")
        source = parts[0]
        for opt in parts[1:]:
            key, _, value = opt.partition("=")
            if key == "writable" and not value:
                writable = True
            elif key in ("offset", "size") and value:
                options[key] = value
            else:
                raise _fail(where, f"unknown option {opt!r}: offset=N, size=N or writable")
    else:
        body, _, flags = source.partition(",")
        if flags == "writable":
            writable = True
        elif flags:
            raise _fail(where, f"unknown option {flags!r}: only writable")
        source = body
    entry: dict[str, Any] = {"name": name, "base": f"0x{base:x}"}
    if writable:
        entry["writable"] = True
    value = source.split(":", 1)[1] if kind != "file" else source
    if kind == "hex":
        digits = re.sub(r"\s+", "", value)
        try:
            size = len(bytes.fromhex(digits))
        except ValueError:
            raise _fail(where, "hex: needs an even number of hex digits") from None
        entry["hex"] = digits
    elif kind == "base64":
        try:
            size = len(base64.b64decode(value, validate=True))
        except (binascii.Error, ValueError):
            raise _fail(where, "base64: is not valid base64") from None
        entry["base64"] = value
    elif kind == "zeros":
        size = _int(value, f"{where} zeros")
        entry["zeros"] = size
    elif value == "-":
        if stdin is None:
            raise _fail(where, "- (stdin) gives no bytes here")
        return Region(name, base, entry, len(stdin), stdin)
    else:
        path = Path(value)
        if not path.is_absolute():
            path = (base_dir or Path.cwd()) / path
        found = inputs.path_kind(path, where=where)
        if found != "a regular file":
            raise _fail(where, f"no such file {value!r}" if found is None else f"{value!r} is not a regular file "
                               f"(it is {found})")
        file_size = path.stat().st_size
        offset = _int(options.get("offset", "0"), f"{where} offset")
        size = _int(options["size"], f"{where} size") if "size" in options else file_size - offset
        if offset > file_size or offset + size > file_size:
            raise _fail(where, f"offset {offset} + size {size} runs past the end of {value!r} ({file_size} bytes)")
        entry["file"] = str(path.resolve())
        if offset:
            entry["offset"] = offset
        if "size" in options:
            entry["size"] = size
    return Region(name, base, entry, size)


def _in_va_space(va: int, where: str) -> int:
    """``va`` if a D3D12_GPU_VIRTUAL_ADDRESS holds it (its C type's range), else the error naming ``where``."""
    if va >= 1 << (8 * abi.sizeof("D3D12_GPU_VIRTUAL_ADDRESS")):
        raise _fail(where, f"VA 0x{va:x} is outside the unsigned 64-bit range of a D3D12_GPU_VIRTUAL_ADDRESS")
    return va


def resolve_va(text: str | int, regions: Sequence[Region], where: str) -> int:
    """A VA: a number, a region name (its base) or ``NAME+N`` (N bytes into it), in the range of a
    D3D12_GPU_VIRTUAL_ADDRESS."""
    if isinstance(text, int):
        return _in_va_space(text, where)
    name, plus, off = text.partition("+")
    for r in regions:
        if r.name == name:
            return _in_va_space(r.base + (_int(off, where) if plus else 0), where)
    if not plus and re.fullmatch(r"(0[xX])?[0-9a-fA-F_]+", text):
        return _in_va_space(_int(text, where), where)
    known = ", ".join(r.name for r in regions) or "none"
    raise _fail(where, f"{text!r} is neither a VA nor a region name{did_you_mean(name, [r.name for r in regions])} "
                       f"(regions: {known})")


def parse_resource(text: str, regions: Sequence[Region], where: str) -> dict[str, Any]:
    """An ExecuteIndirect buffer's resource from ``BASE,WIDTH[,STATE]`` (the capture's version 2 resource object):
    BASE its GPU VA (a number, a region name or ``NAME+N``), WIDTH its size in bytes (D3D12_RESOURCE_DESC::Width),
    STATE the D3D12_RESOURCE_STATES it is in at the call (a member name, or names joined by ``|``)."""
    parts = text.split(",")
    if len(parts) not in (2, 3) or not all(parts):
        raise _fail(where, f"{text!r}: expected BASE,WIDTH[,STATE] (e.g. args,4096,INDIRECT_ARGUMENT)")
    out: dict[str, Any] = {"GPUVirtualAddress": f"0x{resolve_va(parts[0], regions, where):x}",
                           "Width": _int(parts[1], where)}
    if len(parts) == 3:
        out["State"] = parts[2].split("|")
    return out


def _buffer(va: str, resource: str | None, regions: Sequence[Region], flag: str) -> tuple[Any, int]:
    """(``pArgumentBuffer`` / ``pCountBuffer``, its offset member) for ``flag`` VA and its ``-resource``."""
    address = resolve_va(va, regions, flag)
    if resource is None:
        return f"0x{address:x}", 0
    where = f"{flag}-resource"
    member = parse_resource(resource, regions, where)
    base = int(member["GPUVirtualAddress"], 16)
    if address < base:
        raise _fail(where, f"{flag} 0x{address:x} lies before the resource's GPUVirtualAddress 0x{base:x}")
    return member, address - base


@dataclass
class BindingSpec:
    """``--program-table VA --slots N --stride N``: None takes the default."""

    va: str
    slots: int | None = None
    stride: int | None = None


@dataclass
class CallSpec:
    """The call: ``DispatchList`` / ``DispatchList1`` (``input``, ``max_inputs``, ``max_lists``) or
    ``ExecuteIndirect`` (``signature``, ``args``, ``count``, ``max_commands``; ``args_resource`` /
    ``count_resource``: the buffer's resource as ``BASE,WIDTH[,STATE]``, see :func:`parse_resource`)."""

    kind: str
    input: str | None = None
    max_inputs: int = 0
    max_lists: int = 0
    signature: str | None = None
    args: str | None = None
    count: str | None = None
    max_commands: int = 0
    args_resource: str | None = None
    count_resource: str | None = None


@dataclass
class AssembleSpec:
    """Everything :func:`assemble` needs besides the objects: regions, the call, the binding and the state."""

    regions: list[Region]
    call: CallSpec
    bindings: list[BindingSpec] = field(default_factory=list)
    signature: str | None = None  # a work list signature (WORK_LIST) or signature array (WORK_LIST1)
    tier: int | None = None
    dispatch_rays: bool = False
    state: dict[str, Any] = field(default_factory=dict)  # the capture's "state" member, as a base
    root_arguments: list[str] = field(default_factory=list)  # [graphics:|compute:]P=VALUE
    vertex_buffers: list[str] = field(default_factory=list)  # SLOT=VA,SIZE,STRIDE
    index_buffer: str | None = None  # VA,SIZE,FORMAT
    root_signatures: dict[str, str] = field(default_factory=dict)  # "graphics"/"compute" -> name
    command_list_type: str | None = None  # a D3D12_COMMAND_LIST_TYPE member name (None: the base state's, DIRECT)
    in_render_pass: bool = False  # True: inside a render pass scope (False: the base state's)
    descriptor_heaps: list[str] = field(default_factory=list)  # TYPE or TYPE=START,NUM,INCREMENT


def _only(names: Sequence[str], what: str, flag: str) -> str:
    if len(names) == 1:
        return names[0]
    if not names:
        raise _fail(flag, f"the description has no {what}")
    raise _fail(flag, f"the description has {len(names)} {what}s ({', '.join(names)}): name one with {flag}")


def _classes(objects: ObjectSet, spec: AssembleSpec, signature: str | None) -> dict[str, RootSignature | None]:
    """The root signature of each binding set the call uses: a PCS's pGlobalRootSignature or a command
    signature's pRootSignature, by its executable class."""
    pcses = []
    if spec.call.kind == "ExecuteIndirect":
        cs = objects.command_signatures.get(spec.call.signature or "")
        if cs is None:
            return {}
        cls = executable_class_of(cs.pArgumentDescs)  # type: ignore[arg-type]
        return {"compute" if cls is ExecutableClass.COMPUTE else "graphics": cs.pRootSignature}
    if signature in objects.work_list_signatures:
        pcses = list(objects.work_list_signatures[signature].pProgramCommandSignatures)
    elif signature in objects.work_list_signature_arrays:
        for wls in objects.work_list_signature_arrays[signature].pSignatures:
            pcses += wls.pProgramCommandSignatures
    out: dict[str, RootSignature | None] = {}
    for pcs in pcses:
        cls = executable_class_of(pcs.pArgumentDescs)
        if cls is not None:  # a raytracing PCS's global root signature is a compute one
            out.setdefault("graphics" if cls is ExecutableClass.GRAPHICS else "compute", pcs.pGlobalRootSignature)
    return out


def _region_of(regions: Sequence[Region], va: int, where: str) -> Region:
    for r in regions:
        if r.base <= va < r.end:
            return r
    raise _fail(where, f"VA 0x{va:x} is in no region")


def _binding(spec: BindingSpec, regions: Sequence[Region], default_stride: int | None, where: str
             ) -> dict[str, Any]:
    va = resolve_va(spec.va, regions, where)
    region = _region_of(regions, va, where)
    size = region.end - va
    stride = spec.stride if spec.stride is not None else default_stride
    if stride is None:
        raise _fail(where, "the signature has no program-table records (raytracing-class): give --stride")
    slots = spec.slots if spec.slots is not None else (size // stride if stride else 1)
    return {"Type": "PROGRAM_TABLE", "ProgramTable": {
        "Table": {"StartAddress": f"0x{va:x}", "SizeInBytes": size, "StrideInBytes": stride}, "SlotCount": slots}}


def _root_value(text: str, rs: RootSignature, index: int, where: str, regions: Sequence[Region]) -> dict[str, Any]:
    if index >= len(rs.pParameters):
        raise _fail(where, f"root signature {rs.name!r} has {len(rs.pParameters)} parameters, no parameter {index}")
    kind = rs.pParameters[index].parameter_type_name
    if kind == "32BIT_CONSTANTS":
        values = [_int(v, where) for v in re.split(r"[,\s]+", text.strip()) if v]
        return {"Constants": values}
    key = "DescriptorTable" if kind == "DESCRIPTOR_TABLE" else "Descriptor"
    return {key: f"0x{resolve_va(text, regions, where):x}"}


def _state(objects: ObjectSet, spec: AssembleSpec, signature: str | None, program: dict[str, Any] | None
           ) -> dict[str, Any]:
    state = {k: v for k, v in spec.state.items()}
    if program is not None:
        state["program"] = program
    classes = _classes(objects, spec, signature)
    for which, name in spec.root_signatures.items():
        if name not in objects.root_signatures:
            raise _fail(f"--{which}-root-signature", f"no root signature named {name!r}")
        classes[which] = objects.root_signatures[name]
    for which, rs in classes.items():
        key = f"{which}_root_signature"
        if rs is not None and state.get(key) is None:
            state[key] = rs.name
    given: dict[Any, tuple[Any, str]] = {}  # (the flags that name one thing: each must say it once)
    for text in spec.root_arguments:
        where = f"--root-arg {text}"
        which, colon, rest = text.partition(":")
        if not colon or which not in ("graphics", "compute"):
            which, rest = "", text
        index_text, eq, value = rest.partition("=")
        if not eq:
            raise _fail(where, "expected [graphics:|compute:]PARAMETER=VALUE")
        if not which:
            bound = [w for w in ("graphics", "compute") if state.get(f"{w}_root_signature")]
            if len(bound) != 1:
                raise _fail(where, "say graphics: or compute: (the call binds "
                                   f"{' and '.join(bound) or 'no'} root signatures)")
            which = bound[0]
        rs_name = state.get(f"{which}_root_signature")
        if rs_name not in objects.root_signatures:
            raise _fail(where, f"no {which} root signature is bound")
        index = _int(index_text, where)
        args = dict(state.get(f"{which}_root_arguments", {}))
        args[str(index)] = _root_value(value, objects.root_signatures[rs_name], index, where, spec.regions)
        inputs.given_once(given, ("root", which, index), args[str(index)], text, flag="--root-arg",
                          what=f"{which} root parameter {index}")
        state[f"{which}_root_arguments"] = args
    for text in spec.vertex_buffers:
        where = f"--vertex-buffer {text}"
        slot, eq, rest = text.partition("=")
        fields = rest.split(",")
        if not eq or len(fields) != 3:
            raise _fail(where, "expected SLOT=VA,SIZE,STRIDE")
        vbs = dict(state.get("vertex_buffers", {}))
        index = _int(slot, where)
        vbs[str(index)] = {"BufferLocation": f"0x{resolve_va(fields[0], spec.regions, where):x}",
                           "SizeInBytes": _int(fields[1], where), "StrideInBytes": _int(fields[2], where)}
        inputs.given_once(given, ("vertex buffer", index), vbs[str(index)], text, flag="--vertex-buffer",
                          what=f"vertex buffer slot {index}")
        state["vertex_buffers"] = vbs
    if spec.index_buffer is not None:
        where = f"--index-buffer {spec.index_buffer}"
        fields = spec.index_buffer.split(",")
        if len(fields) != 3:
            raise _fail(where, "expected VA,SIZE,FORMAT (R16_UINT or R32_UINT)")
        state["index_buffer"] = {"BufferLocation": f"0x{resolve_va(fields[0], spec.regions, where):x}",
                                 "SizeInBytes": _int(fields[1], where), "Format": fields[2]}
    if spec.command_list_type is not None:
        enum_name = "D3D12_COMMAND_LIST_TYPE"
        try:
            cl_type = abi.enum_value(enum_name, spec.command_list_type)
        except D3D12WLError as exc:
            raise _fail("--command-list-type", exc.message) from None
        if cl_type != abi.enum_value(enum_name, "DIRECT"):
            state["command_list_type"] = abi.enum_short_name(enum_name, cl_type)
        else:
            state.pop("command_list_type", None)
    if spec.in_render_pass:
        state["in_render_pass"] = True
    for text in spec.descriptor_heaps:
        heap_name, heap = _descriptor_heap(text)
        inputs.given_once(given, ("heap", heap_name), heap, text, flag="--descriptor-heap",
                          what=f"the {heap_name} heap")
        state["descriptor_heaps"] = {**state.get("descriptor_heaps", {}), heap_name: heap}
    return state


def _descriptor_heap(text: str) -> tuple[str, bool | dict[str, Any]]:
    """``--descriptor-heap TYPE[=START,NUM,INCREMENT]``: a shader-visible heap of ``TYPE`` (a
    ``D3D12_DESCRIPTOR_HEAP_TYPE`` name) is bound, with (capture version 4) its GPU handle range."""
    where = f"--descriptor-heap {text}"
    type_text, eq, rest = text.partition("=")
    try:
        name = abi.enum_short_name("D3D12_DESCRIPTOR_HEAP_TYPE",
                                   abi.enum_value("D3D12_DESCRIPTOR_HEAP_TYPE", type_text.strip()))
    except D3D12WLError as exc:
        raise _fail(where, exc.message) from None
    if name not in SHADER_VISIBLE_HEAP_TYPES:
        raise _fail(where, f"a {name} heap is never shader-visible; SetDescriptorHeaps binds "
                           f"{' and '.join(SHADER_VISIBLE_HEAP_TYPES)} heaps")
    if not eq:
        return name, True
    fields = rest.split(",")
    if len(fields) != 3:
        raise _fail(where, "expected TYPE=START,NUM,INCREMENT (GetGPUDescriptorHandleForHeapStart, NumDescriptors, "
                           "GetDescriptorHandleIncrementSize)")
    return name, dict(zip(DESCRIPTOR_HEAP_MEMBERS, (f"0x{_int(fields[0], where):x}", _int(fields[1], where),
                                                    _int(fields[2], where)), strict=True))


def _program(objects: ObjectSet, spec: AssembleSpec, signature: str | None) -> dict[str, Any] | None:
    if not spec.bindings:
        return None
    if signature in objects.work_list_signatures:
        if len(spec.bindings) != 1:
            raise _fail("--program-table", "a work list signature takes one program table (a signature array one "
                                           "per signature)")
        strides = signature_strides(objects.work_list_signatures[signature], objects)
        binding = _binding(spec.bindings[0], spec.regions, strides.min_program_table_stride, "--program-table")
        return {"Type": "WORK_LIST", "WorkList": {"pSignature": signature, "Binding": binding}}
    assert signature is not None
    array = objects.work_list_signature_arrays[signature]
    bindings = []
    for i, b in enumerate(spec.bindings):
        wls = array.pSignatures[i] if i < len(array.pSignatures) else None
        default = signature_strides(wls, objects).min_program_table_stride if wls is not None else \
            array_strides(array, objects).min_program_table_stride
        bindings.append(_binding(b, spec.regions, default, f"--program-table #{i}"))
    return {"Type": "WORK_LIST1", "WorkList1": {"pSignatureArray": signature, "pBindings": bindings}}


def _signature(objects: ObjectSet, spec: AssembleSpec) -> str | None:
    if spec.call.kind == "ExecuteIndirect":
        return None
    if spec.signature is not None:
        if spec.signature in objects.work_list_signatures or spec.signature in objects.work_list_signature_arrays:
            return spec.signature
        known = ", ".join([*objects.work_list_signatures, *objects.work_list_signature_arrays]) or "none"
        names = [*objects.work_list_signatures, *objects.work_list_signature_arrays]
        raise _fail("--signature", f"no work list signature or signature array named {spec.signature!r}"
                                   f"{did_you_mean(spec.signature, names)} (known: {known})")
    if spec.call.kind == "DispatchList1" and objects.work_list_signature_arrays:
        return _only(list(objects.work_list_signature_arrays), "work list signature array", "--signature")
    return _only(list(objects.work_list_signatures), "work list signature", "--signature")


def _call(objects: ObjectSet, spec: AssembleSpec) -> dict[str, Any]:
    c = spec.call
    regions = spec.regions
    if c.kind == "ExecuteIndirect":
        if c.signature not in objects.command_signatures:
            known = ", ".join(objects.command_signatures) or "none"
            raise _fail("--execute-indirect", f"no command signature named {c.signature!r}"
                                              f"{did_you_mean(c.signature, objects.command_signatures)} (known: {known})")
        if c.args is None:
            raise _fail("--argument-buffer", "ExecuteIndirect needs --argument-buffer VA (the argument buffer)")
        if c.count is None and c.count_resource is not None:
            raise _fail("--count-buffer-resource", "applies to a --count-buffer VA; give both or neither")
        argument, argument_offset = _buffer(c.args, c.args_resource, regions, "--argument-buffer")
        count, count_offset = _buffer(c.count, c.count_resource, regions, "--count-buffer") if c.count is not None \
            else (None, 0)
        return {"ExecuteIndirect": {
            "pCommandSignature": c.signature, "MaxCommandCount": c.max_commands,
            "pArgumentBuffer": argument, "ArgumentBufferOffset": argument_offset,
            "pCountBuffer": count, "CountBufferOffset": count_offset}}
    assert c.input is not None
    flag = "--dispatch-list" if c.kind == "DispatchList" else "--dispatch-list1"
    body: dict[str, Any] = {"DispatchListInput": f"0x{resolve_va(c.input, regions, flag):x}"}
    if c.kind == "DispatchList1":
        body["MaxGraphicsPrimaryLists"] = c.max_lists
    body["MaxGraphicsProgramInputsPerPrimaryList"] = c.max_inputs
    return {c.kind: body}


def document(objects: ObjectSet, spec: AssembleSpec) -> dict[str, Any]:
    """The capture document (the JSON of docs/capture.md) for ``objects`` and ``spec``; ``data`` regions are
    left out (:func:`assemble` maps them)."""
    names: dict[str, Region] = {}
    for r in spec.regions:
        if r.name in names:
            raise _fail(f"region {r.name}", f"region name {r.name!r} is given twice")
        names[r.name] = r
    signature = _signature(objects, spec)
    tier = spec.tier if spec.tier is not None else (2 if spec.call.kind == "DispatchList1" else 1)
    doc: dict[str, Any] = {"version": CAPTURE_VERSION, "device": {"Tier": f"TIER_{tier}",
                                                                  "DispatchRaysSupported": spec.dispatch_rays}}
    objects_doc = description.dump(objects)
    doc.update({k: v for k, v in objects_doc.items() if v})
    doc["memory"] = [r.entry for r in spec.regions if r.data is None]
    doc["state"] = _state(objects, spec, signature, _program(objects, spec, signature))
    doc["call"] = _call(objects, spec)
    return doc


def assemble(objects: ObjectSet, spec: AssembleSpec, *, base_dir: str | os.PathLike[str] | None = None) -> Capture:
    """The capture ``spec`` describes, loaded (and so checked) by :func:`load_capture`."""
    doc = document(objects, spec)
    capture = load_capture(doc, base_dir=base_dir)
    for r in spec.regions:
        if r.data is not None:  # (the bytes as given: a writable region is a copy validators may write)
            writable = bool(r.entry.get("writable"))
            try:
                capture.memory.map(r.base, bytearray(r.data) if writable else r.data, name=r.name, writable=writable)
            except ValueError as exc:
                raise _fail(f"region {r.name}", str(exc)) from None
    return capture


# --- the program table's slots -------------------------------------------------------------------------------


@dataclass
class SlotReport:
    """The slots of one bound program table: which program each slot's identifier names."""

    binding: int
    table: ProgramTableBinding
    programs: dict[str, np.ndarray]  # program name -> its slots (ascending)
    empty: int  # all-zero identifiers
    unmatched: list[tuple[int, str]]  # (slot, identifier hex) of the first few slots whose identifier is no program
    findings: list[str]
    #: where slots hold identifiers of no program: another stride at which every slot the table holds is a
    #: program's or empty (and at least two are programs'), with the program of each slot there
    lines_up_at: tuple[int, dict[str, np.ndarray]] | None = None
    #: what is said of slots no record selects (a stale or unused slot is legal): warnings, not findings
    warnings: list[str] = field(default_factory=list)


def _tables(capture: Capture) -> list[ProgramTableBinding]:
    p = capture.state.program
    if p is None:
        return []
    program_table = abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE")
    if p.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"):
        return [b.ProgramTable for b in p.WorkList1.pBindings if b.Type == program_table]
    return [p.WorkList.Binding.ProgramTable] if p.WorkList.Binding.Type == program_table else []


def _written_slots(region: MemoryRegion, offset: int, slots: int, stride: int, ident_size: int) -> np.ndarray:
    """The slots (ascending, unique) of a table at ``offset`` of a zeros region whose identifier bytes overlap a
    page a write reached; every other slot is all zero, and empty."""
    parts = []
    for lo, hi in region.written_spans():
        if stride == 0:  # the broadcast form: every slot is slot 0's bytes
            first, last = (0, slots - 1) if offset < hi and lo < offset + ident_size else (0, -1)
        else:
            first = max(0, -(-(lo - offset - ident_size + 1) // stride))
            last = min(slots - 1, (hi - 1 - offset) // stride)
        if first <= last:
            parts.append(np.arange(first, last + 1))
    return np.unique(np.concatenate(parts)) if parts else np.zeros(0, dtype=np.intp)


def program_table_slots(capture: Capture, *, max_listed: int = 8,
                        selected: Mapping[int, np.ndarray] | None = None) -> list[SlotReport]:
    """Read the identifier of every slot of every bound program table (vectorized) and match it to the
    capture's programs (spec "Program table slot layout": the slot starts with its D3D12_PROGRAM_IDENTIFIER).

    ``selected``: per binding, the slots the call's records select (:func:`d3d12wl.executor.reads.selected_slots`).
    Given, an identifier of no program is a finding only in a selected slot (the executor reads it); in another
    it is a warning, since a stale or unused slot is legal (issue 42 class 13: a heuristic never makes an error).
    Without it every such identifier is a finding."""
    ident_size = abi.sizeof(PROGRAM_IDENTIFIER)
    known: Mapping[bytes, str] = {bytes(p.Identifier): name for name, p in capture.objects.programs.items()
                                  if p.Identifier is not None}
    out = []
    for i, t in enumerate(_tables(capture)):
        start, size, stride = t.Table.StartAddress, t.Table.SizeInBytes, t.Table.StrideInBytes
        # the binding's rules as SetProgram (and so exec) checks them; the slots read are those the table holds
        sink = Sink("state", "program")
        check_program_table_binding(sink, t, "ProgramTable")
        findings = [f"program table {i} @0x{start:x}: [{v.rule}] {v.message}" for v in sink.out]
        holds = 0 if size < ident_size else size // stride if stride else 1
        slots = min(t.SlotCount if stride else min(t.SlotCount, 1), holds)
        try:
            raw = capture.memory.view(start, (slots - 1) * stride + ident_size) if slots else memoryview(b"")
        except D3D12WLError as exc:  # unmapped: the executor reports it as it reads
            findings.append(f"program table {i} @0x{start:x}: {exc}")
            out.append(SlotReport(i, t, {}, 0, [], findings))
            continue
        # the slots to read: in a zeros region, those whose identifier bytes a write reached (the others are
        # empty, known without reading them: reading gigabytes of them would commit them for nothing)
        region = capture.memory.region_at(start)
        read = _written_slots(region, start - region.base, slots, stride, ident_size) if region is not None and \
            region.zeros else None
        if read is None:
            # (a table in a file region: its pages released as they are read, not held for a GiB of slots)
            which = match_identifiers(raw, list(known), count=slots, stride=stride,
                                      done=lambda lo, n: capture.memory.release(start + lo * stride, n * stride))
            indices = None  # (slot k is which[k]: no array of every slot number)
        else:
            ident = np.frombuffer(raw, dtype=np.uint8)[read[:, None] * stride + np.arange(ident_size)]
            which = match_identifiers(ident.tobytes(), list(known), count=read.size, stride=ident_size)
            indices = read
        # every slot's identifier looked up among the programs' at once (records.packers.match_identifiers)
        names = list(known.values())
        matched = np.nonzero(which >= 0)[0]
        counts = np.bincount(which[matched], minlength=len(names))
        in_order = matched[np.argsort(which[matched], kind="stable")]
        by_program = np.split(in_order if indices is None else indices[in_order], np.cumsum(counts)[:-1])
        programs = {names[k]: part for k, part in enumerate(by_program) if part.size}
        empty = int(np.count_nonzero(which == EMPTY_IDENTIFIER)) + slots - int(which.size)
        unmatched_slots = np.nonzero(which == NO_PROGRAM)[0]
        if indices is not None:
            unmatched_slots = indices[unmatched_slots]
        unmatched = [(int(slot), bytes(raw[slot * stride:slot * stride + ident_size]).hex())
                     for slot in unmatched_slots[:max_listed]]
        unmatched_count = int(unmatched_slots.size)
        chosen = None if selected is None else selected.get(i, np.zeros(0, dtype=np.int64))
        read_by_call = np.ones(unmatched_count, dtype=bool) if chosen is None else np.isin(unmatched_slots, chosen)
        warnings: list[str] = []
        for k, (slot, ident_hex) in enumerate(unmatched):
            line = (f"program table {i} slot {slot} @0x{start + slot * stride:x}: identifier {ident_hex} matches no "
                    "program of the description")
            if chosen is None:
                findings.append(line)
            elif read_by_call[k]:
                findings.append(line + ", and a record the call reads selects the slot")
            else:
                warnings.append(line + " (no record the call reads selects it: a stale or unused slot is legal)")
        more_read = int(np.count_nonzero(read_by_call[max_listed:]))
        more_unread = unmatched_count - max_listed - more_read
        if more_read > 0:
            findings.append(f"program table {i}: {more_read} more slots with identifiers that match no program"
                            + ("" if chosen is None else ", selected by the call's records"))
        if more_unread > 0:
            warnings.append(f"program table {i}: {more_unread} more slots with identifiers that match no program, "
                            "which no record the call reads selects")
        lines_up = _lines_up_at(capture, t, list(known), names, int(matched.size)) if unmatched_count else None
        if lines_up is not None:
            at, by = lines_up
            shown = ", ".join(f"{name} slot{'s' if len(v) > 1 else ''} {','.join(map(str, v[:4]))}"
                              for name, v in by.items())
            line = (f"program table {i}: the identifiers line up at stride {at} ({shown}): the table was written at "
                    f"StrideInBytes {at}, not {stride}")
            (findings if read_by_call.any() else warnings).append(line)
        out.append(SlotReport(i, t, programs, empty, unmatched, findings, lines_up, warnings))
    return out


#: the largest program-table stride :func:`_lines_up_at` tries
MAX_STRIDE_TRIED = 1024


def _lines_up_at(capture: Capture, t: ProgramTableBinding, identifiers: list[bytes], names: list[str],
                 matched: int) -> tuple[int, dict[str, np.ndarray]] | None:
    """The smallest stride (a multiple of 8 up to :data:`MAX_STRIDE_TRIED`, other than the binding's) at which
    every slot the table's bytes hold starts with a program's identifier or an empty one, and more of them a
    program's than the ``matched`` at the binding's stride (spec "Program table slot layout": each slot starts
    with its D3D12_PROGRAM_IDENTIFIER)."""
    ident_size = abi.sizeof(PROGRAM_IDENTIFIER)
    start, size = t.Table.StartAddress, t.Table.SizeInBytes
    try:
        raw = capture.memory.view(start, size)
    except D3D12WLError:
        return None
    for stride in range(WL_ALIGN, min(size, MAX_STRIDE_TRIED) + 1, WL_ALIGN):
        if stride == t.Table.StrideInBytes or stride < ident_size:
            continue
        slots = (size - ident_size) // stride + 1
        which = match_identifiers(raw, identifiers, count=slots, stride=stride)
        if np.count_nonzero(which >= 0) > max(matched, 1) and not np.count_nonzero(which == NO_PROGRAM):
            return stride, {names[k]: np.nonzero(which == k)[0] for k in dict.fromkeys(int(w) for w in which
                                                                                        if w >= 0)}
    return None
