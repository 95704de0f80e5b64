"""The capture file: everything one DispatchList / DispatchList1 / ExecuteIndirect call needs, on disk.

A capture is one JSON file (documented by ``d3d12wl/capture/capture.schema.json`` and ``docs/capture.md``):

* the object collections (``root_signatures``, ``program_command_signatures``, ``work_list_signatures``,
  ``work_list_signature_arrays``, ``command_signatures``, ``programs``) exactly as :mod:`d3d12wl.model.description`
  reads them (design.md, "The JSON description of objects": "A capture adds its own collections (memory, device,
  state, call) to the same file");
* ``version``: the capture format version (:data:`CAPTURE_VERSIONS`; version 2 adds ExecuteIndirect's buffer
  resources, version 3 the command list's type and render-pass scope, version 4 the bound descriptor heaps' GPU
  handle ranges, :data:`VERSION_ADDITIONS`);
* ``device``: ``D3D12_FEATURE_DATA_WORK_LISTS`` (``Tier``, ``DispatchRaysSupported``) and ``Max1DDispatchSize``;
* ``memory``: the GPU virtual address space, a list of regions, each at a ``base`` VA with its bytes inline
  (``hex``, ``base64``, ``zeros``) or in a file next to the capture (``file`` + optional ``offset``/``size``),
  which is memory-mapped (:meth:`GpuMemory.map_file`), never read whole;
* ``state``: the command-list state before the call (SetProgram desc, root signatures and root arguments,
  IA bindings, descriptor heaps; from version 3 the command list's type and whether the call is inside a render
  pass; from version 4 each bound descriptor heap's GPU handle range);
* ``call``: ``{"DispatchList": {...}}``, ``{"DispatchList1": {...}}`` or ``{"ExecuteIndirect": {...}}`` with the
  C parameter names.

A malformed capture is rejected with :class:`~d3d12wl.errors.CaptureError` whose ``where`` is the JSON path of
what is wrong (``memory[2].base``, ``state.program.WorkList.Binding.ProgramTable.Table.StrideInBytes``).  Load
checks the shape of the data and that every name refers to an object; what the call would *do* with it (a tier
mismatch, an out-of-range index in GPU memory) is the executor's to report as a finding.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import os
import re
import stat
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, TypeVar

import numpy as np

from d3d12wl import abi, inputs
from d3d12wl.capture.memory import VA_LIMIT, GpuMemory, Region
from d3d12wl.errors import CaptureError, D3D12WLError, did_you_mean
from d3d12wl.model import description
from d3d12wl.model.objects import ObjectSet, RootSignature
from d3d12wl.model.state import (
    SHADER_VISIBLE_HEAP_TYPES,
    BufferResource,
    CommandListState,
    DescriptorHeap,
    DescriptorHeaps,
    DeviceCaps,
    DispatchListCall,
    ExecuteIndirectCall,
    GpuVirtualAddressRange,
    GpuVirtualAddressRangeAndStride,
    IndexBufferView,
    ProgramTableBinding,
    RaytracingBinding,
    RootArgument,
    SetProgramDesc,
    SetWorkListDesc,
    SetWorkListDesc1,
    VertexBufferView,
    WorkListBinding,
    direct_command_list_type,
)
from d3d12wl.output.outfiles import StagedFile, output_file

#: The newest capture format version: what this module reads, and writes where a capture needs it.
CAPTURE_VERSION = 4
#: Every version this module reads.  Each adds members to the one before; a file names the oldest version that
#: holds what it uses (:func:`format_version`), so a capture that needs nothing new stays readable by older tools.
CAPTURE_VERSIONS = (1, 2, 3, 4)
#: What each version adds.
VERSION_ADDITIONS = {
    1: "the format",
    2: "ExecuteIndirect's pArgumentBuffer / pCountBuffer as the resource (GPUVirtualAddress, Width, State)",
    3: "the command-list state's command_list_type (D3D12_COMMAND_LIST_TYPE) and in_render_pass",
    4: "the bound descriptor heaps' GPU handle ranges (GPUDescriptorHandleForHeapStart, NumDescriptors, "
       "DescriptorIncrementSize) in the state's descriptor_heaps",
}
#: The first version in which pArgumentBuffer / pCountBuffer may be a resource object.
BUFFER_RESOURCE_VERSION = 2
#: The first version in which the state may give ``command_list_type`` and ``in_render_pass``.
COMMAND_LIST_VERSION = 3
#: The state members version :data:`COMMAND_LIST_VERSION` adds.
COMMAND_LIST_MEMBERS = ("command_list_type", "in_render_pass")
#: The first version in which a ``descriptor_heaps`` member may be the heap's GPU range (:class:`DescriptorHeap`).
DESCRIPTOR_HEAP_VERSION = 4
#: The members of a :class:`DescriptorHeap` object, all required.
DESCRIPTOR_HEAP_MEMBERS = ("GPUDescriptorHandleForHeapStart", "NumDescriptors", "DescriptorIncrementSize")

#: The object collections, read and written by :mod:`d3d12wl.model.description`.
OBJECT_COLLECTIONS = (
    "root_signatures",
    "program_command_signatures",
    "work_list_signatures",
    "work_list_signature_arrays",
    "command_signatures",
    "programs",
)
CAPTURE_MEMBERS = ("version", "device", *OBJECT_COLLECTIONS, "memory", "state", "call")
#: A capture can be given where a description is expected: its own members are not description collections.
CAPTURE_ONLY = frozenset(CAPTURE_MEMBERS) - frozenset(OBJECT_COLLECTIONS)

#: Regions up to this many bytes are written inline by :func:`save_capture`; larger ones go to files.
INLINE_LIMIT = 4096

#: Bytes per line of an inline ``hex`` region as :func:`save_capture` writes it.
HEX_LINE_BYTES = 32

_U32 = (1 << 32) - 1
_U64 = (1 << 64) - 1


@dataclass
class Capture:
    """One captured call: device caps, objects, GPU memory, command-list state and the call itself."""

    version: int
    device: DeviceCaps
    objects: ObjectSet
    memory: GpuMemory
    state: CommandListState
    call: DispatchListCall | ExecuteIndirectCall
    path: Path | None = None

    @property
    def call_name(self) -> str:
        """``'DispatchList'``, ``'DispatchList1'`` or ``'ExecuteIndirect'``."""
        if isinstance(self.call, ExecuteIndirectCall):
            return "ExecuteIndirect"
        return "DispatchList1" if self.call.tier2 else "DispatchList"


# ----------------------------------------------------------------------------------------------------------------
# Reading helpers: every one takes the JSON path of the value it reads and raises CaptureError with it
# ----------------------------------------------------------------------------------------------------------------


def _member(path: str, key: str | int) -> str:
    if isinstance(key, int):
        return f"{path}[{key}]"
    return f"{path}.{key}" if path else key


def _fail(where: str, message: str) -> CaptureError:
    return CaptureError(message, where=where or "(capture)")


def _object(value: Any, where: str, allowed: tuple[str, ...], required: tuple[str, ...] = ()) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _fail(where, f"expected a JSON object, got {_kind(value)}")
    for key in value:
        if key not in allowed:
            raise _fail(_member(where, key), f"unknown member {key!r}{did_you_mean(key, allowed)}; expected one of: "
                                             f"{', '.join(allowed)}")
    for key in required:
        if key not in value:
            raise _fail(_member(where, key), "required member is missing")
    return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def _uint(value: Any, where: str, bits: int = 32) -> int:
    """An unsigned integer: a JSON integer or a string (``"0x10000"``, ``"65536"``)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise _fail(where, f"expected an unsigned {bits}-bit integer (or a hex string), got {_kind(value)}")
    if isinstance(value, str):
        try:
            number = inputs.integer(value)
        except ValueError as exc:
            raise _fail(where, f"{exc}; write hex as \"0x10000\"") from None
    else:
        number = value
    if not 0 <= number < (1 << bits):
        raise _fail(where, f"{value!r} is outside the unsigned {bits}-bit range")
    return number


def _va(value: Any, where: str) -> int:
    return _uint(value, where, 64)


def _bool(value: Any, where: str) -> bool:
    if not isinstance(value, bool):
        raise _fail(where, f"expected true or false, got {_kind(value)}")
    return value


def _string(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value:
        raise _fail(where, f"expected a non-empty string, got {_kind(value)}")
    return value


def _enum(value: Any, enum_name: str, where: str) -> int:
    """An enum value by name (full, without the enum's prefix, or any unique tail) or by integer."""
    members = abi.enum_members(enum_name)
    if isinstance(value, str):
        try:
            return abi.enum_value(enum_name, value)
        except D3D12WLError as exc:
            raise _fail(where, exc.message) from None
    if isinstance(value, int) and not isinstance(value, bool) and value in members.values():
        return value
    raise _fail(where, f"expected a {enum_name} member name, one of: "
                       f"{', '.join(m[len(abi.default.enum_prefix(enum_name)):] for m in members)}")


def _flags(value: Any, enum_name: str, where: str) -> int:
    """A flag-enum value: a member name, a list of member names (OR-ed), or an unsigned 32-bit integer."""
    if isinstance(value, list):
        out = 0
        for i, item in enumerate(value):
            if not isinstance(item, str):
                raise _fail(_member(where, i), f"expected a {enum_name} member name, got {_kind(item)}")
            out |= _enum(item, enum_name, _member(where, i))
        return out
    if isinstance(value, str):
        return _enum(value, enum_name, where)
    return _uint(value, where)


T = TypeVar("T")


def _ref(value: Any, collection: Mapping[str, T], where: str, what: str) -> T | None:
    """A reference to a named object (``null`` for none)."""
    if value is None:
        return None
    if not isinstance(value, str):
        raise _fail(where, f"expected the name of a {what} (or null), got {_kind(value)}")
    if value not in collection:
        known = ", ".join(collection) or "none"
        raise _fail(where, f"no {what} named {value!r} (known: {known})")
    return collection[value]


def _indexed(value: Any, where: str, limit: int | None, read: Callable[[Any, str, int], T]) -> dict[int, T]:
    """A JSON object keyed by decimal indices (root parameter index, vertex buffer slot)."""
    if not isinstance(value, dict):
        raise _fail(where, f"expected an object keyed by index, got {_kind(value)}")
    out: dict[int, T] = {}
    for key, item in value.items():
        member = _member(where, key)
        if len(key) > inputs.MAX_INT_DIGITS or not re.fullmatch(r"0|[1-9][0-9]*", key, re.ASCII):
            raise _fail(_member(where, key[:40]), f"key {key[:40]!r}{'...' if len(key) > 40 else ''} is not a "
                                                  f"decimal index (at most {inputs.MAX_INT_DIGITS} ASCII digits)")
        index = int(key)
        if limit is not None and index >= limit:
            raise _fail(member, f"index {index} is out of range [0, {limit})")
        out[index] = read(item, member, index)
    return out


# ----------------------------------------------------------------------------------------------------------------
# Sections
# ----------------------------------------------------------------------------------------------------------------


def _read_device(value: Any, where: str) -> DeviceCaps:
    d = _object(value, where, ("Tier", "DispatchRaysSupported", "Max1DDispatchSize"), ("Tier",))
    caps = DeviceCaps(Tier=_enum(d["Tier"], "D3D12_WORK_LISTS_TIER", _member(where, "Tier")))
    if "DispatchRaysSupported" in d:
        caps.DispatchRaysSupported = _bool(d["DispatchRaysSupported"], _member(where, "DispatchRaysSupported"))
    if "Max1DDispatchSize" in d:
        caps.Max1DDispatchSize = _uint(d["Max1DDispatchSize"], _member(where, "Max1DDispatchSize"))
    return caps


def _read_objects(data: dict[str, Any]) -> ObjectSet:
    from d3d12wl.model import description

    collections = {k: data[k] for k in OBJECT_COLLECTIONS if k in data}
    try:
        return description.load(collections)
    except CaptureError:
        raise
    except D3D12WLError as exc:
        # description.DescriptionErrors holds every problem; ``where`` names the first one's member path.
        errors = getattr(exc, "errors", None) or [exc]
        where = exc.where or errors[0].where or "(objects)"
        raise CaptureError(str(exc) if len(errors) > 1 else exc.message, where=where, rule=exc.rule) from None


_SOURCES = ("hex", "base64", "zeros", "file")
_REGION_MEMBERS = ("name", "base", "writable", *_SOURCES, "offset", "size")


def _hex_bytes(value: Any, where: str) -> bytes:
    if isinstance(value, list):
        for i, line in enumerate(value):
            if not isinstance(line, str):
                raise _fail(_member(where, i), f"expected a string of hex digits, got {_kind(line)}")
        text = "".join(value)
    elif isinstance(value, str):
        text = value
    else:
        raise _fail(where, f"expected a string (or array of strings) of hex digits, got {_kind(value)}")
    try:  # bytes.fromhex takes whitespace between bytes itself, in one pass
        return bytes.fromhex(text)
    except ValueError:
        pass
    try:  # whitespace inside a byte ("a b"): the slow path
        return bytes.fromhex(re.sub(r"\s+", "", text))
    except ValueError:
        raise _fail(where, "not an even number of hex digits (whitespace is allowed between bytes)") from None


def _read_memory(value: Any, where: str, base_dir: Path | None) -> GpuMemory:
    if not isinstance(value, list):
        raise _fail(where, f"expected an array of regions, got {_kind(value)}")
    memory = GpuMemory()
    names: dict[str, int] = {}
    for i, item in enumerate(value):
        rw = _member(where, i)
        r = _object(item, rw, _REGION_MEMBERS, ("name", "base"))
        name = _string(r["name"], _member(rw, "name"))
        if name in names:
            raise _fail(_member(rw, "name"), f"region name {name!r} is already used by {where}[{names[name]}]")
        names[name] = i
        base = _va(r["base"], _member(rw, "base"))
        writable = _bool(r["writable"], _member(rw, "writable")) if "writable" in r else False
        sources = [k for k in _SOURCES if k in r]
        if len(sources) != 1:
            raise _fail(rw, f"a region needs exactly one of {', '.join(_SOURCES)}; got {sources or 'none'}")
        source = sources[0]
        if source != "file":
            for key in ("offset", "size"):
                if key in r:
                    raise _fail(_member(rw, key), f"{key!r} applies only to a \"file\" region")
        try:
            if source == "file":
                _map_file_region(memory, r, rw, name, base, writable, base_dir)
                continue
            if source == "zeros":
                size = _uint(r["zeros"], _member(rw, "zeros"), 64)
                if base + size > VA_LIMIT:
                    raise _fail(_member(rw, "base"), f"region {name!r} (+{size} bytes) leaves the 64-bit VA space")
                # anonymous memory is zero-filled and committed page by page as it is written, so a large scratch
                # region costs only what a validator writes (GpuMemory.map_zeros)
                try:
                    memory.map_zeros(base, size, name=name, writable=writable)
                except ValueError as exc:
                    if "cannot reserve" in str(exc):
                        raise _fail(_member(rw, "zeros"), str(exc)) from None
                    raise
                continue
            if source == "hex":
                data = _hex_bytes(r["hex"], _member(rw, "hex"))
            else:
                text = r["base64"]
                if not isinstance(text, str):
                    raise _fail(_member(rw, "base64"), f"expected a base64 string, got {_kind(text)}")
                try:
                    data = base64.b64decode(text, validate=True)
                except (binascii.Error, ValueError):
                    raise _fail(_member(rw, "base64"), "not valid base64") from None
            if base + len(data) > VA_LIMIT:
                raise _fail(_member(rw, "base"), f"region {name!r} (+{len(data)} bytes) leaves the 64-bit VA space")
            memory.map(base, bytearray(data) if writable else data, name=name, writable=writable)
        except ValueError as exc:  # overlap: GpuMemory names both regions
            raise _fail(rw, str(exc)) from None
    return memory


def _map_file_region(memory: GpuMemory, r: dict[str, Any], rw: str, name: str, base: int, writable: bool,
                     base_dir: Path | None) -> None:
    file_name = _string(r["file"], _member(rw, "file"))
    path = Path(file_name)
    if not path.is_absolute():
        path = (base_dir or Path.cwd()) / path
    try:
        info = path.stat()
    except OSError as exc:
        why = "does not exist" if isinstance(exc, FileNotFoundError) else f"cannot be read: {exc.strerror or exc}"
        raise _fail(_member(rw, "file"), f"region file {str(path)!r} {why}") from None
    kind = inputs.file_kind(info.st_mode)
    if kind is not None:
        raise _fail(_member(rw, "file"), f"region file {str(path)!r} is {kind}, not a regular file")
    file_size = info.st_size
    offset = _uint(r.get("offset", 0), _member(rw, "offset"), 64)
    if offset > file_size:
        raise _fail(_member(rw, "offset"), f"offset {offset} is past the end of {file_name!r} ({file_size} bytes)")
    size = _uint(r["size"], _member(rw, "size"), 64) if "size" in r else file_size - offset
    if offset + size > file_size:
        raise _fail(_member(rw, "size"), f"offset {offset} + size {size} runs past the end of {file_name!r} "
                                         f"({file_size} bytes)")
    if base + size > VA_LIMIT:
        raise _fail(_member(rw, "base"), f"region {name!r} (+{size} bytes) leaves the 64-bit VA space")
    memory.map_file(base, path, name=name, writable=writable, offset=offset, size=size)


def _range(value: Any, where: str) -> GpuVirtualAddressRange:
    d = _object(value, where, ("StartAddress", "SizeInBytes"))
    return GpuVirtualAddressRange(_va(d.get("StartAddress", 0), _member(where, "StartAddress")),
                                  _uint(d.get("SizeInBytes", 0), _member(where, "SizeInBytes"), 64))


def _range_stride(value: Any, where: str) -> GpuVirtualAddressRangeAndStride:
    d = _object(value, where, ("StartAddress", "SizeInBytes", "StrideInBytes"))
    return GpuVirtualAddressRangeAndStride(
        _va(d.get("StartAddress", 0), _member(where, "StartAddress")),
        _uint(d.get("SizeInBytes", 0), _member(where, "SizeInBytes"), 64),
        _uint(d.get("StrideInBytes", 0), _member(where, "StrideInBytes"), 64))


def _program_table(value: Any, where: str) -> ProgramTableBinding:
    d = _object(value, where, ("Table", "SlotCount"))
    table = _range_stride(d.get("Table", {}), _member(where, "Table"))
    return ProgramTableBinding(table, _uint(d.get("SlotCount", 0), _member(where, "SlotCount")))


def _raytracing(value: Any, where: str) -> RaytracingBinding:
    d = _object(value, where, ("pRaytracingStateObject", "RayGenerationShaderRecord", "MissShaderTable",
                               "HitGroupTable", "CallableShaderTable"))
    rt = RaytracingBinding()
    if d.get("pRaytracingStateObject") is not None:
        rt.pRaytracingStateObject = _string(d["pRaytracingStateObject"], _member(where, "pRaytracingStateObject"))
    rt.RayGenerationShaderRecord = _range(d.get("RayGenerationShaderRecord", {}),
                                          _member(where, "RayGenerationShaderRecord"))
    for key in ("MissShaderTable", "HitGroupTable", "CallableShaderTable"):
        setattr(rt, key, _range_stride(d.get(key, {}), _member(where, key)))
    return rt


def _binding(value: Any, where: str) -> WorkListBinding:
    d = _object(value, where, ("Type", "ProgramTable", "pRaytracing"))
    b = WorkListBinding(Type=_enum(d.get("Type", 0), "D3D12_WORK_LIST_BINDING_TYPE", _member(where, "Type")))
    selected = "pRaytracing" if b.Type == abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING") \
        else "ProgramTable"
    other = "ProgramTable" if selected == "pRaytracing" else "pRaytracing"
    if d.get(other) is not None:
        raise _fail(_member(where, other), f"union member {other} is not the one Type "
                                           f"{abi.enum_short_name('D3D12_WORK_LIST_BINDING_TYPE', b.Type)} selects "
                                           f"({selected})")
    if selected == "ProgramTable":
        b.ProgramTable = _program_table(d.get("ProgramTable", {}), _member(where, "ProgramTable"))
    elif d.get("pRaytracing") is not None:
        b.pRaytracing = _raytracing(d["pRaytracing"], _member(where, "pRaytracing"))
    return b


def _program(value: Any, where: str, objects: ObjectSet) -> SetProgramDesc | None:
    if value is None:
        return None
    d = _object(value, where, ("Type", "WorkList", "WorkList1"), ("Type",))
    ptype = _enum(d["Type"], "D3D12_PROGRAM_TYPE", _member(where, "Type"))
    kinds = {abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"): "WorkList",
             abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"): "WorkList1"}
    if ptype not in kinds:
        raise _fail(_member(where, "Type"), "a capture models only the Work Lists program types WORK_LIST and "
                                            "WORK_LIST1")
    selected = kinds[ptype]
    other = "WorkList1" if selected == "WorkList" else "WorkList"
    if d.get(other) is not None:
        raise _fail(_member(where, other), f"union member {other} is not the one Type "
                                           f"{abi.enum_short_name('D3D12_PROGRAM_TYPE', ptype)} selects ({selected})")
    desc = SetProgramDesc(Type=ptype)
    w = _member(where, selected)
    body = d.get(selected, {})
    if selected == "WorkList":
        wl = _object(body, w, ("pSignature", "Binding"))
        desc.WorkList = SetWorkListDesc(
            _ref(wl.get("pSignature"), objects.work_list_signatures, _member(w, "pSignature"), "work list signature"),
            _binding(wl.get("Binding", {}), _member(w, "Binding")))
    else:
        wl = _object(body, w, ("pSignatureArray", "NumBindings", "pBindings", "ValidationProgramTable",
                               "SignatureSelectionValidationProgramTableIndex"))
        bindings_json = wl.get("pBindings", [])
        if not isinstance(bindings_json, list):
            raise _fail(_member(w, "pBindings"), f"expected an array of bindings, got {_kind(bindings_json)}")
        bindings = [_binding(b, _member(_member(w, "pBindings"), i)) for i, b in enumerate(bindings_json)]
        if "NumBindings" in wl and _uint(wl["NumBindings"], _member(w, "NumBindings")) != len(bindings):
            raise _fail(_member(w, "NumBindings"), f"NumBindings {wl['NumBindings']} differs from the "
                                                   f"{len(bindings)} entries of pBindings")
        desc.WorkList1 = SetWorkListDesc1(
            _ref(wl.get("pSignatureArray"), objects.work_list_signature_arrays, _member(w, "pSignatureArray"),
                 "work list signature array"),
            bindings,
            _program_table(wl.get("ValidationProgramTable", {}), _member(w, "ValidationProgramTable")),
            _uint(wl.get("SignatureSelectionValidationProgramTableIndex", 0),
                  _member(w, "SignatureSelectionValidationProgramTableIndex")))
    return desc


_ROOT_ARGUMENT_KINDS = {"Constants": "constants", "Descriptor": "descriptor", "DescriptorTable": "table"}
_PARAMETER_KIND = {"32BIT_CONSTANTS": "constants", "CBV": "descriptor", "SRV": "descriptor", "UAV": "descriptor",
                   "DESCRIPTOR_TABLE": "table"}


def _root_arguments(value: Any, where: str, rs: RootSignature | None, which: str) -> dict[int, RootArgument]:
    if value and rs is None:
        raise _fail(where, f"root arguments are set but no {which} root signature is bound")
    limit = len(rs.pParameters) if rs is not None else 0

    def read(item: Any, w: str, index: int) -> RootArgument:
        d = _object(item, w, tuple(_ROOT_ARGUMENT_KINDS))
        if len(d) != 1:
            raise _fail(w, f"a root argument is exactly one of {', '.join(_ROOT_ARGUMENT_KINDS)}")
        key = next(iter(d))
        kind = _ROOT_ARGUMENT_KINDS[key]
        assert rs is not None
        param = rs.pParameters[index]
        expected = _PARAMETER_KIND[param.parameter_type_name]
        if kind != expected:
            wanted = next(k for k, v in _ROOT_ARGUMENT_KINDS.items() if v == expected)
            raise _fail(_member(w, key), f"root parameter is {param.parameter_type_name} in {rs.name!r}: "
                                         f"write it as {wanted!r}")
        if kind != "constants":
            return RootArgument(kind, value=_va(d[key], _member(w, key)))
        values = d[key]
        if not isinstance(values, list):
            raise _fail(_member(w, key), f"expected an array of 32-bit values, got {_kind(values)}")
        if len(values) != param.Constants.Num32BitValues:
            raise _fail(_member(w, key), f"{len(values)} values for a root-constants parameter of "
                                         f"{param.Constants.Num32BitValues} DWORDs (give the slot's full width)")
        return RootArgument(kind, values=[_uint(v, _member(_member(w, key), i)) for i, v in enumerate(values)])

    return _indexed(value, where, limit, read)


def _vertex_buffer(value: Any, where: str, slot: int = 0) -> VertexBufferView:
    d = _object(value, where, ("BufferLocation", "SizeInBytes", "StrideInBytes"))
    return VertexBufferView(_va(d.get("BufferLocation", 0), _member(where, "BufferLocation")),
                            _uint(d.get("SizeInBytes", 0), _member(where, "SizeInBytes")),
                            _uint(d.get("StrideInBytes", 0), _member(where, "StrideInBytes")))


def _index_buffer(value: Any, where: str) -> IndexBufferView | None:
    if value is None:
        return None
    d = _object(value, where, ("BufferLocation", "SizeInBytes", "Format"))
    return IndexBufferView(_va(d.get("BufferLocation", 0), _member(where, "BufferLocation")),
                           _uint(d.get("SizeInBytes", 0), _member(where, "SizeInBytes")),
                           _enum(d.get("Format", 0), "DXGI_FORMAT", _member(where, "Format")))


_STATE_MEMBERS = ("program", "graphics_root_signature", "compute_root_signature", "graphics_root_arguments",
                  "compute_root_arguments", "vertex_buffers", "index_buffer", "descriptor_heaps",
                  *COMMAND_LIST_MEMBERS)


def _command_list_type(value: Any, where: str) -> int:
    """``command_list_type``: a ``D3D12_COMMAND_LIST_TYPE`` member (``NONE`` is no command list's type)."""
    value = _enum(value, "D3D12_COMMAND_LIST_TYPE", where)
    if value == abi.enum_value("D3D12_COMMAND_LIST_TYPE", "NONE"):
        raise _fail(where, "NONE is not the type of a command list a call is recorded on")
    return value


def _read_state(value: Any, where: str, objects: ObjectSet, version: int = CAPTURE_VERSION) -> CommandListState:
    d = _object(value, where, _STATE_MEMBERS)
    for key in COMMAND_LIST_MEMBERS:
        if key in d and version < COMMAND_LIST_VERSION:
            raise _fail(_member(where, key), f"{key} needs capture version {COMMAND_LIST_VERSION}; version "
                                             f"{version} captures a direct command list outside a render pass")
    st = CommandListState()
    if "command_list_type" in d:
        st.command_list_type = _command_list_type(d["command_list_type"], _member(where, "command_list_type"))
    st.in_render_pass = _bool(d.get("in_render_pass", False), _member(where, "in_render_pass"))
    st.program = _program(d.get("program"), _member(where, "program"), objects)
    for which in ("graphics", "compute"):
        key = f"{which}_root_signature"
        rs = _ref(d.get(key), objects.root_signatures, _member(where, key), "root signature")
        setattr(st, key, rs)
        args_key = f"{which}_root_arguments"
        setattr(st, args_key, _root_arguments(d.get(args_key, {}), _member(where, args_key), rs, which))
    st.vertex_buffers = _indexed(d.get("vertex_buffers", {}), _member(where, "vertex_buffers"),
                                 abi.constant("D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT"), _vertex_buffer)
    st.index_buffer = _index_buffer(d.get("index_buffer"), _member(where, "index_buffer"))
    st.descriptor_heaps = _descriptor_heaps(d.get("descriptor_heaps", {}), _member(where, "descriptor_heaps"),
                                            version)
    return st


def _descriptor_heaps(value: Any, where: str, version: int) -> DescriptorHeaps:
    """``descriptor_heaps``: per shader-visible heap type, whether one is bound, or from version
    :data:`DESCRIPTOR_HEAP_VERSION` the bound heap's GPU handle range."""
    heaps = _object(value, where, SHADER_VISIBLE_HEAP_TYPES)
    out = DescriptorHeaps()
    for name in SHADER_VISIBLE_HEAP_TYPES:
        w = _member(where, name)
        item = heaps.get(name, False)
        if not isinstance(item, dict):
            setattr(out, name, _bool(item, w))
            continue
        if version < DESCRIPTOR_HEAP_VERSION:
            raise _fail(w, f"a heap's GPU range (an object of {', '.join(DESCRIPTOR_HEAP_MEMBERS)}) needs capture "
                           f"version {DESCRIPTOR_HEAP_VERSION}; version {version} says only whether the heap is bound "
                           "(true or false)")
        h = _object(item, w, DESCRIPTOR_HEAP_MEMBERS, DESCRIPTOR_HEAP_MEMBERS)
        start, count, increment = (_uint(h[k], _member(w, k), 64 if k == "GPUDescriptorHandleForHeapStart" else 32)
                                   for k in DESCRIPTOR_HEAP_MEMBERS)
        heap = DescriptorHeap(start, count, increment)
        if heap.DescriptorIncrementSize == 0:
            raise _fail(_member(w, "DescriptorIncrementSize"), "a descriptor increment size is never 0")
        if heap.end > VA_LIMIT:
            raise _fail(_member(w, "NumDescriptors"), f"{heap.NumDescriptors} descriptors of "
                                                      f"{heap.DescriptorIncrementSize} bytes from "
                                                      f"0x{heap.GPUDescriptorHandleForHeapStart:x} leave the 64-bit "
                                                      "handle space")
        setattr(out, name, heap)
    return out


_CALLS = {
    "DispatchList": ("DispatchListInput", "MaxGraphicsProgramInputsPerPrimaryList"),
    "DispatchList1": ("DispatchListInput", "MaxGraphicsPrimaryLists", "MaxGraphicsProgramInputsPerPrimaryList"),
    "ExecuteIndirect": ("pCommandSignature", "MaxCommandCount", "pArgumentBuffer", "ArgumentBufferOffset",
                        "pCountBuffer", "CountBufferOffset"),
}


_RESOURCE_MEMBERS = ("GPUVirtualAddress", "Width", "State")


def _buffer(value: Any, where: str, version: int) -> tuple[int, BufferResource | None]:
    """``pArgumentBuffer`` / ``pCountBuffer``: the resource's GPU VA (every version) or, from version
    :data:`BUFFER_RESOURCE_VERSION`, the resource itself: ``{"GPUVirtualAddress", "Width", "State"}``."""
    if not isinstance(value, dict):
        return _va(value, where), None
    if version < BUFFER_RESOURCE_VERSION:
        raise _fail(where, f"a buffer resource (an object of {', '.join(_RESOURCE_MEMBERS)}) needs capture version "
                           f"{BUFFER_RESOURCE_VERSION}; version {version} gives the resource's GPU VA only")
    d = _object(value, where, _RESOURCE_MEMBERS, ("GPUVirtualAddress", "Width"))
    base = _va(d["GPUVirtualAddress"], _member(where, "GPUVirtualAddress"))
    width = _uint(d["Width"], _member(where, "Width"), 64)
    if base + width > VA_LIMIT:
        raise _fail(_member(where, "Width"), f"the resource at 0x{base:x} (+{width} bytes) leaves the 64-bit VA "
                                             "space")
    state = _flags(d["State"], "D3D12_RESOURCE_STATES", _member(where, "State")) if "State" in d else None
    return base, BufferResource(base, width, state)


def _read_call(value: Any, where: str, objects: ObjectSet, version: int = CAPTURE_VERSION
               ) -> DispatchListCall | ExecuteIndirectCall:
    if not isinstance(value, dict) or len(value) != 1:
        raise _fail(where, f"expected an object with exactly one of {', '.join(_CALLS)}")
    kind, body = next(iter(value.items()))
    if kind not in _CALLS:
        raise _fail(_member(where, kind), f"unknown call {kind!r}; expected one of: {', '.join(_CALLS)}")
    w = _member(where, kind)
    d = _object(body, w, _CALLS[kind], ("pCommandSignature", "pArgumentBuffer") if kind == "ExecuteIndirect"
                else ("DispatchListInput",))
    if kind == "ExecuteIndirect":
        cs = _ref(d["pCommandSignature"], objects.command_signatures, _member(w, "pCommandSignature"),
                  "command signature")
        if cs is None:
            raise _fail(_member(w, "pCommandSignature"), "ExecuteIndirect needs a command signature")
        argument, argument_resource = _buffer(d["pArgumentBuffer"], _member(w, "pArgumentBuffer"), version)
        argument += _uint(d.get("ArgumentBufferOffset", 0), _member(w, "ArgumentBufferOffset"), 64)
        count: int | None = None
        count_resource: BufferResource | None = None
        if d.get("pCountBuffer") is not None:
            count, count_resource = _buffer(d["pCountBuffer"], _member(w, "pCountBuffer"), version)
            count += _uint(d.get("CountBufferOffset", 0), _member(w, "CountBufferOffset"), 64)
        elif d.get("CountBufferOffset", 0):
            raise _fail(_member(w, "CountBufferOffset"), "CountBufferOffset without a pCountBuffer")
        if argument > _U64 or (count is not None and count > _U64):
            raise _fail(w, "buffer address + offset leaves the 64-bit VA space")
        return ExecuteIndirectCall(cs, _uint(d.get("MaxCommandCount", 0), _member(w, "MaxCommandCount")),
                                   argument, count, argument_resource, count_resource)
    return DispatchListCall(
        DispatchListInput=_va(d["DispatchListInput"], _member(w, "DispatchListInput")),
        MaxGraphicsProgramInputsPerPrimaryList=_uint(d.get("MaxGraphicsProgramInputsPerPrimaryList", 0),
                                                     _member(w, "MaxGraphicsProgramInputsPerPrimaryList")),
        MaxGraphicsPrimaryLists=_uint(d.get("MaxGraphicsPrimaryLists", 0), _member(w, "MaxGraphicsPrimaryLists")),
        tier2=kind == "DispatchList1")


# ----------------------------------------------------------------------------------------------------------------
# load / save
# ----------------------------------------------------------------------------------------------------------------


def load_capture(source: str | os.PathLike[str] | Mapping[str, Any], *, base_dir: str | os.PathLike[str] | None = None
                 ) -> Capture:
    """Read a capture from a JSON file (region files relative to it) or from an already-parsed dict (region files
    relative to ``base_dir``, default the current directory).  Raises :class:`CaptureError` with the JSON path."""
    path: Path | None = None
    if not isinstance(source, str | os.PathLike):
        data: Any = dict(source) if isinstance(source, Mapping) else source
        directory = Path(base_dir) if base_dir is not None else None
    else:
        path = inputs.path_of(source)
        # region files lie beside the capture: beside a symlink's target (where save_capture puts them)
        directory = Path(base_dir) if base_dir is not None else \
            Path(os.path.realpath(path)).parent if path is not None else None
        try:
            data = inputs.load_json(source, what="capture")
        except inputs.InputError as exc:
            raise CaptureError(exc.message, where=exc.where) from None
    try:
        return _load(data, directory, path)
    except CaptureError as exc:
        if path is not None and exc.where and not exc.where.startswith(str(path)):
            exc.args = (f"{path}: {exc.args[0]}",)
        raise


def _load(data: Any, directory: Path | None, path: Path | None) -> Capture:
    d = _object(data, "", CAPTURE_MEMBERS, ("version", "device", "memory", "call"))
    version = _uint(d["version"], "version") if not isinstance(d["version"], str) else None
    if version not in CAPTURE_VERSIONS:
        raise _fail("version", f"unsupported capture version {d['version']!r}: this d3d12wl reads versions "
                               f"{', '.join(map(str, CAPTURE_VERSIONS))}")
    device = _read_device(d["device"], "device")
    objects = _read_objects(d)
    memory = _read_memory(d["memory"], "memory", directory)
    state = _read_state(d.get("state", {}), "state", objects, version)
    call = _read_call(d["call"], "call", objects, version)
    return Capture(version, device, objects, memory, state, call, path)


def _hex_va(value: int) -> str:
    return f"0x{value:x}"


def _short(enum_name: str, value: int) -> str:
    return abi.enum_short_name(enum_name, value)


def _dump_range(r: GpuVirtualAddressRange) -> dict[str, Any]:
    return {"StartAddress": _hex_va(r.StartAddress), "SizeInBytes": r.SizeInBytes}


def _dump_range_stride(r: GpuVirtualAddressRangeAndStride) -> dict[str, Any]:
    return {"StartAddress": _hex_va(r.StartAddress), "SizeInBytes": r.SizeInBytes, "StrideInBytes": r.StrideInBytes}


def _dump_program_table(t: ProgramTableBinding) -> dict[str, Any]:
    return {"Table": _dump_range_stride(t.Table), "SlotCount": t.SlotCount}


def _dump_binding(b: WorkListBinding) -> dict[str, Any]:
    out: dict[str, Any] = {"Type": _short("D3D12_WORK_LIST_BINDING_TYPE", b.Type)}
    if b.Type == abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING"):
        rt = b.pRaytracing
        out["pRaytracing"] = None if rt is None else {
            "pRaytracingStateObject": rt.pRaytracingStateObject or None,
            "RayGenerationShaderRecord": _dump_range(rt.RayGenerationShaderRecord),
            "MissShaderTable": _dump_range_stride(rt.MissShaderTable),
            "HitGroupTable": _dump_range_stride(rt.HitGroupTable),
            "CallableShaderTable": _dump_range_stride(rt.CallableShaderTable),
        }
    else:
        out["ProgramTable"] = _dump_program_table(b.ProgramTable)
    return out


def _dump_program(p: SetProgramDesc | None) -> dict[str, Any] | None:
    if p is None:
        return None
    out: dict[str, Any] = {"Type": _short("D3D12_PROGRAM_TYPE", p.Type)}
    if p.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST1"):
        w1 = p.WorkList1
        out["WorkList1"] = {
            "pSignatureArray": w1.pSignatureArray.name if w1.pSignatureArray else None,
            "pBindings": [_dump_binding(b) for b in w1.pBindings],
            "ValidationProgramTable": _dump_program_table(w1.ValidationProgramTable),
            "SignatureSelectionValidationProgramTableIndex": w1.SignatureSelectionValidationProgramTableIndex,
        }
    else:
        out["WorkList"] = {"pSignature": p.WorkList.pSignature.name if p.WorkList.pSignature else None,
                           "Binding": _dump_binding(p.WorkList.Binding)}
    return out


def _dump_root_argument(a: RootArgument) -> dict[str, Any]:
    if a.kind == "constants":
        return {"Constants": list(a.values)}
    return {"Descriptor" if a.kind == "descriptor" else "DescriptorTable": _hex_va(a.value)}


def _dump_state(st: CommandListState) -> dict[str, Any]:
    out: dict[str, Any] = {
        "program": _dump_program(st.program),
        "graphics_root_signature": st.graphics_root_signature.name if st.graphics_root_signature else None,
        "compute_root_signature": st.compute_root_signature.name if st.compute_root_signature else None,
        "graphics_root_arguments": {str(i): _dump_root_argument(a) for i, a in
                                    sorted(st.graphics_root_arguments.items())},
        "compute_root_arguments": {str(i): _dump_root_argument(a) for i, a in
                                   sorted(st.compute_root_arguments.items())},
        "vertex_buffers": {str(s): {"BufferLocation": _hex_va(v.BufferLocation), "SizeInBytes": v.SizeInBytes,
                                    "StrideInBytes": v.StrideInBytes} for s, v in sorted(st.vertex_buffers.items())},
        "index_buffer": None if st.index_buffer is None else {
            "BufferLocation": _hex_va(st.index_buffer.BufferLocation), "SizeInBytes": st.index_buffer.SizeInBytes,
            "Format": _short("DXGI_FORMAT", st.index_buffer.Format)},
        "descriptor_heaps": {name: _dump_heap(getattr(st.descriptor_heaps, name))
                             for name in SHADER_VISIBLE_HEAP_TYPES},
    }
    # written only where they differ from what every older version means (direct, outside a render pass)
    if st.command_list_type != direct_command_list_type():
        out["command_list_type"] = _short("D3D12_COMMAND_LIST_TYPE", st.command_list_type)
    if st.in_render_pass:
        out["in_render_pass"] = True
    return out


def _dump_heap(heap: bool | DescriptorHeap) -> bool | dict[str, Any]:
    """A ``descriptor_heaps`` member: whether the heap is bound, or (version 4) its GPU range."""
    if not isinstance(heap, DescriptorHeap):
        return bool(heap)
    return {"GPUDescriptorHandleForHeapStart": _hex_va(heap.GPUDescriptorHandleForHeapStart),
            "NumDescriptors": heap.NumDescriptors, "DescriptorIncrementSize": heap.DescriptorIncrementSize}


def _dump_states(value: int) -> str | list[str] | int:
    """A ``D3D12_RESOURCE_STATES`` value as its member's name, else the single-bit members it sets (an integer if
    some bit has no name)."""
    enum_name = "D3D12_RESOURCE_STATES"
    try:
        return _short(enum_name, value)
    except D3D12WLError:
        pass
    names, rest = [], value
    for bit in abi.enum_members(enum_name).values():
        if bit and bit & (bit - 1) == 0 and rest & bit:
            names.append(_short(enum_name, bit))
            rest &= ~bit
    return value if rest else names


def _dump_buffer(va: int, resource: BufferResource | None, where: str) -> tuple[Any, int]:
    """(``pArgumentBuffer`` / ``pCountBuffer``, its offset member): the VA and 0 without a resource."""
    if resource is None:
        return _hex_va(va), 0
    if va < resource.GPUVirtualAddress:
        raise CaptureError(f"the buffer VA 0x{va:x} lies before its resource's GPUVirtualAddress "
                           f"0x{resource.GPUVirtualAddress:x}: no offset reaches it", where=where)
    out: dict[str, Any] = {"GPUVirtualAddress": _hex_va(resource.GPUVirtualAddress), "Width": resource.Width}
    if resource.State is not None:
        out["State"] = _dump_states(resource.State)
    return out, va - resource.GPUVirtualAddress


def format_version(capture: Capture) -> int:
    """The oldest capture version that holds everything in ``capture`` (what :func:`save_capture` writes)."""
    st = capture.state
    if any(st.descriptor_heaps.heap(name) is not None for name in SHADER_VISIBLE_HEAP_TYPES):
        return DESCRIPTOR_HEAP_VERSION
    if st.command_list_type != direct_command_list_type() or st.in_render_pass:
        return COMMAND_LIST_VERSION
    call = capture.call
    if isinstance(call, ExecuteIndirectCall) and (
            call.ArgumentBufferResource is not None
            or (call.CountBuffer is not None and call.CountBufferResource is not None)):
        return BUFFER_RESOURCE_VERSION
    return CAPTURE_VERSIONS[0]


def _dump_call(call: DispatchListCall | ExecuteIndirectCall) -> dict[str, Any]:
    if isinstance(call, ExecuteIndirectCall):
        w = "call.ExecuteIndirect"
        argument, argument_offset = _dump_buffer(call.ArgumentBuffer, call.ArgumentBufferResource,
                                                 f"{w}.pArgumentBuffer")
        count: Any = None
        count_offset = 0
        if call.CountBuffer is not None:
            count, count_offset = _dump_buffer(call.CountBuffer, call.CountBufferResource, f"{w}.pCountBuffer")
        return {"ExecuteIndirect": {
            "pCommandSignature": call.pCommandSignature.name if call.pCommandSignature else None,
            "MaxCommandCount": call.MaxCommandCount,
            "pArgumentBuffer": argument, "ArgumentBufferOffset": argument_offset,
            "pCountBuffer": count, "CountBufferOffset": count_offset}}
    body: dict[str, Any] = {"DispatchListInput": _hex_va(call.DispatchListInput)}
    if call.tier2:
        body["MaxGraphicsPrimaryLists"] = call.MaxGraphicsPrimaryLists
    body["MaxGraphicsProgramInputsPerPrimaryList"] = call.MaxGraphicsProgramInputsPerPrimaryList
    return {"DispatchList1" if call.tier2 else "DispatchList": body}


def _dump_device(device: DeviceCaps) -> dict[str, Any]:
    tier = next(m for m, v in abi.enum_members("D3D12_WORK_LISTS_TIER").items() if v == device.Tier)
    return {"Tier": tier.removeprefix("D3D12_WORK_LISTS_"), "DispatchRaysSupported": device.DispatchRaysSupported,
            "Max1DDispatchSize": device.Max1DDispatchSize}


def file_stem(name: str, default: str = "region") -> str:
    """``name`` as part of a file name: letters, digits, ``_ . -`` kept, anything else (a slash, a space, a lone
    surrogate) an underscore, at most 100 characters (a name may be a megabyte)."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name[:100], flags=re.ASCII) or default


def _all_zero(region: Region, chunk: int = 1 << 24) -> bool:
    """Every byte zero, checked a chunk at a time; of a zeros region only the pages writes reached are read (the
    rest are zero and never committed: reading them would commit them for nothing)."""
    flat = np.frombuffer(region.data, dtype=np.uint8)
    return all(not flat[i:min(i + chunk, end)].any()
               for start, end in region.written_spans() for i in range(start, end, chunk))


def _hex_lines(data: memoryview, start: int = 0, stop: int | None = None) -> list[str]:
    """``data[start:stop]`` as the capture's hex lines (:data:`HEX_LINE_BYTES` bytes each, spaced); ``start`` is
    a multiple of :data:`HEX_LINE_BYTES`."""
    text = data[start:stop].hex(" ")
    step = 3 * HEX_LINE_BYTES  # a line's 3N-1 characters and the space after it
    return [text[k:k + step - 1] for k in range(0, len(text), step)]


def _write_region(f: IO[bytes], region: Region, chunk: int = 1 << 20) -> None:
    """The bytes of ``region`` into ``f``: of a zeros region only the written pages, the rest left as holes
    (``seek`` past them, a sparse file) where ``f`` can seek, written as zeros where it cannot (a FIFO)."""
    data = region.data
    if not region.zeros:
        for i in range(0, region.size, chunk):
            f.write(data[i:i + chunk])
        return
    seekable = f.seekable()
    zero = bytes(min(chunk, region.size))
    at = 0
    for start, end in [*region.written_spans(), (region.size, region.size)]:
        if seekable:
            f.seek(start)
        else:
            for i in range(at, start, chunk):
                f.write(zero[:min(chunk, start - i)])
        for i in range(start, end, chunk):
            f.write(data[i:min(i + chunk, end)])
        at = end
    if seekable:
        f.truncate(region.size)


class _StagedFiles:
    """The files of one save (:class:`~d3d12wl.output.outfiles.StagedFile` each: under temporary names in their final
    folder), renamed into place only by :meth:`commit`, so a save that fails part-way leaves none of them behind."""

    def __init__(self) -> None:
        self.pending: list[StagedFile] = []

    def open(self, target: Path) -> IO[bytes]:
        """A file to write ``target`` through: a write that fails (a full disk, a file-size limit) raises the
        :class:`~d3d12wl.output.outfiles.OutputError` naming it (exit 2)."""
        staged = StagedFile(target)
        self.pending.append(staged)
        return staged.open()

    def commit(self) -> None:
        for staged in self.pending:
            staged.commit()
        self.pending.clear()

    def discard(self) -> None:
        for staged in self.pending:
            staged.discard()
        self.pending.clear()


#: writes a region's bytes to a binary file in order (:func:`save_capture`'s ``region_writers``: bytes made as they
#: are written, never held whole)
RegionWriter = Callable[[IO[bytes]], None]


def _dump_region(region: Region, directory: Path, stem: str, inline_limit: int, copy_files: bool,
                 written: set[str], staged: _StagedFiles, writer: RegionWriter | None = None,
                 hex_lines: Callable[[Region], Any] | None = None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": region.name, "base": _hex_va(region.base)}
    if region.writable:
        out["writable"] = True
    if writer is not None and region.size <= inline_limit:  # small: made in memory, written inline
        buffer = io.BytesIO()
        writer(buffer)
        writer = None
        region = Region(region.name, region.base, memoryview(buffer.getvalue()), region.writable)
    if region.size and region.source == "inline" and _all_zero(region):
        out["zeros"] = region.size  # scratch memory of any size stays one member (and loads as lazy pages)
        return out
    if region.size <= inline_limit:
        out["hex"] = hex_lines(region) if hex_lines is not None else _hex_lines(region.data)
        return out
    source = Path(region.source) if region.source != "inline" else None
    if source is not None and source.is_file() and not copy_files and writer is None:
        # Reference the file the region was mapped from: saving must not copy gigabytes.
        try:
            rel = os.path.relpath(source.resolve(), directory.resolve())
        except ValueError:  # another drive on Windows
            rel = str(source.resolve())
        out["file"] = Path(rel).as_posix()
        out["offset"] = region.offset
        out["size"] = region.size
        return out
    file_name = f"{stem}.{file_stem(region.name)}.bin"
    n = 1
    while file_name in written:
        n += 1
        file_name = f"{stem}.{file_stem(region.name)}.{n}.bin"
    written.add(file_name)
    target = directory / file_name
    if source is not None and target.exists() and target.resolve() == source.resolve():
        raise CaptureError(f"saving would overwrite {target}, which region {region.name!r} is mapped from",
                           where=f"memory.{region.name}")
    f = staged.open(target)
    if writer is not None:
        writer(f)
    else:
        _write_region(f, region)
    out["file"] = file_name
    return out


def capture_to_dict(capture: Capture, directory: Path | None = None, *, stem: str = "capture",
                    inline_limit: int = INLINE_LIMIT, copy_files: bool = False,
                    staged: _StagedFiles | None = None,
                    region_writers: Mapping[str, RegionWriter] | None = None,
                    hex_lines: Callable[[Region], Any] | None = None) -> dict[str, Any]:
    """The JSON form of ``capture``; regions above ``inline_limit`` bytes are written as files into ``directory``
    (a region mapped from a file is referenced in place unless ``copy_files``).  Without a ``directory`` nothing is
    written: every region is inline (:func:`write_capture_json` streams that form instead of holding it).  A zeros
    region, or an inline one whose bytes are all zero, is one ``"zeros"`` member, and of a zeros region only the
    pages writes reached are read.  The files appear (renamed from temporary names) only once the whole form is
    made; with ``staged`` they wait for its ``commit``.  ``region_writers``: by region name, what writes the
    region's bytes instead of its data (a region of the same size whose bytes are made as they are written).
    ``hex_lines`` stands in for an inline region's list of hex lines (the streaming writer puts a placeholder
    there)."""
    from d3d12wl.model import description

    if directory is None:
        directory, inline_limit = Path.cwd(), VA_LIMIT
    out: dict[str, Any] = {"version": format_version(capture), "device": _dump_device(capture.device)}
    objects = description.dump(capture.objects)
    for key in OBJECT_COLLECTIONS:
        if objects.get(key):
            out[key] = objects[key]
    written: set[str] = set()
    own = staged is None
    files = _StagedFiles() if staged is None else staged
    try:
        writers = region_writers or {}
        out["memory"] = [_dump_region(r, directory, stem, inline_limit, copy_files, written, files,
                                      writers.get(r.name), hex_lines) for r in capture.memory.regions]
        out["state"] = _dump_state(capture.state)
        out["call"] = _dump_call(capture.call)
        if own:
            files.commit()
    finally:
        if own:
            files.discard()
    return out


def save_capture(capture: Capture, path: str | os.PathLike[str], *, inline_limit: int = INLINE_LIMIT,
                 copy_files: bool = False, region_writers: Mapping[str, RegionWriter] | None = None) -> Path:
    """Write ``capture`` to ``path`` (JSON); regions larger than ``inline_limit`` bytes go to
    ``<stem>.<region>.bin`` files next to it, except regions mapped from a file, which are referenced in place
    unless ``copy_files``.  ``load_capture(save_capture(c, p))`` reads back the same capture.  ``region_writers``
    (by region name) stream a region's bytes instead of its data (:func:`capture_to_dict`).

    Every file is written under a temporary name and renamed into place once all of them are complete (the
    ``.bin`` files first, the JSON last): a save that fails leaves neither a half-written file nor a capture that
    names missing ones.  A symlink is followed (the capture and its region files go beside its target); a FIFO
    or a device is written through with every region inline (:func:`write_capture_json`); an OS error on the path
    is a :class:`CaptureError` naming it."""
    target = Path(path)
    shown = os.fspath(path)
    try:
        st: os.stat_result | None = os.stat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:  # a name too long, a symlink loop, a folder on the way that is a file
        raise CaptureError(f"cannot save the capture: {exc.strerror or exc}", where=shown) from None
    if st is not None and stat.S_ISDIR(st.st_mode):
        raise CaptureError("cannot save the capture: it is a directory", where=shown)
    if st is not None and not stat.S_ISREG(st.st_mode):
        # a FIFO or a device (a symlink to one, /dev/stdout): written through, not replaced, with every region
        # inline, as -o - prints it (there is no folder beside it for region files)
        with output_file(target) as out:
            write_capture_json(capture, out)
        return target
    real = Path(os.path.realpath(target))  # a symlink: the capture goes where it points, its region files beside it
    if inputs.path_kind(real.parent, where=shown) != "a directory":
        raise CaptureError(f"cannot save the capture: folder {str(real.parent)!r} does not exist (save_capture "
                           "creates no folders; make it first)", where=shown)
    staged = _StagedFiles()
    try:
        data = capture_to_dict(capture, real.parent, stem=real.stem, inline_limit=inline_limit,
                               copy_files=copy_files, staged=staged, region_writers=region_writers)
        # renamed last: the JSON never names a .bin that is not there
        staged.open(target).write((json.dumps(data, indent=1, allow_nan=False) + "\n").encode("utf-8"))
        staged.commit()
    finally:
        staged.discard()
    return target


def write_capture_json(capture: Capture, out: IO[str], *, chunk: int = 1 << 20) -> None:
    """Write the JSON form of ``capture`` with every region inline (what ``capture_to_dict(capture)`` makes,
    formatted as ``json.dumps(indent=1)``, and a final newline) to ``out``, the hex lines of each region made and
    written ``chunk`` bytes at a time: the region bytes of a capture are never held as text (``-o -``), and the pages
    of a region mapped from a file are released once written (:meth:`GpuMemory.release`)."""
    token = f"d3d12wl-hex-{uuid.uuid4().hex}-"
    regions: list[Region] = []

    def defer(region: Region) -> str:
        regions.append(region)
        return f"{token}{len(regions) - 1}"

    text = json.dumps(capture_to_dict(capture, hex_lines=defer), indent=1, allow_nan=False)
    pos = 0
    for i, region in enumerate(regions):
        quoted = f'"{token}{i}"'
        at = text.index(quoted, pos)
        line = text[text.rfind("\n", 0, at) + 1:at]
        indent = len(line) - len(line.lstrip(" "))
        out.write(text[pos:at])
        if not region.size:
            out.write("[]")
        else:
            out.write("[")
            separator = "\n" + " " * (indent + 1) + '"'
            step = chunk - chunk % HEX_LINE_BYTES
            for start in range(0, region.size, step):
                lines = _hex_lines(region.data, start, start + step)
                out.write(("," if start else "") + separator + ('",' + separator).join(lines) + '"')
                capture.memory.release(region.base + start, step)  # (a file region's pages read: not kept)
            out.write("\n" + " " * indent + "]")
        pos = at + len(quoted)
    out.write(text[pos:] + "\n")


# ----------------------------------------------------------------------------------------------------------------
# The JSON Schema (documentation of the format; the object collections refer to description.schema.json)
# ----------------------------------------------------------------------------------------------------------------

SCHEMA_RESOURCE = "capture.schema.json"


def schema() -> dict[str, Any]:
    """The capture JSON Schema shipped in the package."""
    from importlib import resources

    return json.loads(resources.files("d3d12wl.capture").joinpath(SCHEMA_RESOURCE).read_text(encoding="utf-8"))


def schema_errors(doc: Any) -> list[str]:
    """Validate ``doc`` against the capture schema (with description.schema.json for the objects); each error as
    ``"<json path>: <message>"``.  :func:`load_capture` checks more (names resolve, regions do not overlap, root
    arguments fit the root signature); this is for tools that only want the schema's verdict."""
    from referencing import Registry, Resource

    capture_schema = schema()
    description_schema = description.schema()
    registry = Registry().with_resources([
        (capture_schema["$id"], Resource.from_contents(capture_schema)),
        (description_schema["$id"], Resource.from_contents(description_schema)),
    ])
    validator = inputs.schema_validator(capture_schema, registry=registry)
    out = []
    for error in sorted(validator.iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        path = ""
        for part in error.absolute_path:
            path = _member(path, part)
        out.append(f"{path or '(capture)'}: {error.message}")
    return out


__all__ = ["BUFFER_RESOURCE_VERSION", "COMMAND_LIST_MEMBERS", "COMMAND_LIST_VERSION", "CAPTURE_ONLY", "CAPTURE_VERSION",
           "CAPTURE_VERSIONS", "DESCRIPTOR_HEAP_MEMBERS", "DESCRIPTOR_HEAP_VERSION", "VERSION_ADDITIONS",
           "Capture", "capture_to_dict", "file_stem", "format_version", "load_capture", "save_capture", "schema",
           "schema_errors", "write_capture_json"]
