"""``gfxrecon-convert``'s JSON of a D3D12 capture, read for what an ExecuteIndirect call needs: the resources and
their GPU VAs, the root and command signatures, the descriptor heaps, and each command list's state up to the call.

The writer (LunarG/gfxreconstruct, docs/gfxreconstruct.md says which version was read) makes a JSON array
(``--format json``) or JSON lines (``--format jsonl``) of blocks; the first is ``{"header": {...}}``, an API call
is ``{"index": N, "method": {"name", "thread", "object": {"type", "handle"}, "return", "args"}}`` (a function:
``"function"`` without ``"object"``), where ``index`` is the call's block index in the capture file
(``framework/decode/json_writer.cpp``).  Members as ``framework/generated/generated_dx12_json_consumer.cpp`` and
its struct and enum writers make them:

* a handle (an object) is its capture id, a JSON number; 0 is NULL;
* a GPU VA (``GetGPUVirtualAddress``'s return, a view's ``BufferLocation``) is a hex string, ``"0x10000"``; a GPU
  descriptor handle is ``{"ptr": N}`` with N a JSON number;
* an enum is its full name, ``"D3D12_INDIRECT_ARGUMENT_TYPE_DRAW"`` (``"Unhandled <ENUM> (N)"`` for a value the
  writer has no name for); a flags value is fixed-width hex, ``"0x00000200"``, or with ``--expand-flags`` the names
  joined by ``|``; a node mask is binary, ``"0b...1"``;
* an array of bytes (the root signature blob of ``CreateRootSignature``, the ``pSrcData`` of
  ``SetGraphicsRoot32BitConstants``) is a JSON array of numbers 0..255.

Only the blocks of the calls read here are parsed (their name is looked for in a block's first bytes,
:mod:`d3d12wl.importers.json_blocks`); everything else streams past.  A call whose members do not fit what the
writer makes is an :class:`~d3d12wl.importers.errors.ImportInputError` naming the file, the line and the member.
"""

from __future__ import annotations

import copy
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

from d3d12wl import abi, inputs
from d3d12wl.errors import D3D12WLError
from d3d12wl.importers.errors import ImportInputError
from d3d12wl.importers.json_blocks import Block, blocks
from d3d12wl.model.argtypes import ExecutableClass, arg_type_info

__all__ = ["CONVERT_CALLS", "CallState", "ConvertFrame", "DescriptorHeapInfo", "IndirectCall", "Resource",
           "RootValue", "read_convert"]

#: a block's call name (the first ``"name"`` member of a block is its call's)
_NAME = re.compile(rb'"name"\s*:\s*"([A-Za-z0-9_]+)"')
#: the calls that create a buffer resource (every ``D3D12_RESOURCE_DESC`` / ``_DESC1`` has ``Width`` and
#: ``Dimension``; the new resource is ``ppvResource``)
RESOURCE_CREATORS = frozenset({
    "CreateCommittedResource", "CreateCommittedResource1", "CreateCommittedResource2", "CreateCommittedResource3",
    "CreatePlacedResource", "CreatePlacedResource1", "CreatePlacedResource2",
    "CreateReservedResource", "CreateReservedResource1", "CreateReservedResource2"})
#: the calls on a command list whose effect on its state is followed (the command-list state of docs/capture.md)
COMMAND_LIST_CALLS = frozenset({
    "Reset", "SetGraphicsRootSignature", "SetComputeRootSignature",
    "SetGraphicsRoot32BitConstant", "SetComputeRoot32BitConstant",
    "SetGraphicsRoot32BitConstants", "SetComputeRoot32BitConstants",
    "SetGraphicsRootConstantBufferView", "SetComputeRootConstantBufferView",
    "SetGraphicsRootShaderResourceView", "SetComputeRootShaderResourceView",
    "SetGraphicsRootUnorderedAccessView", "SetComputeRootUnorderedAccessView",
    "SetGraphicsRootDescriptorTable", "SetComputeRootDescriptorTable",
    "IASetVertexBuffers", "IASetIndexBuffer", "SetDescriptorHeaps", "BeginRenderPass", "EndRenderPass",
    "SetPipelineState", "ClearState", "ResourceBarrier", "ExecuteBundle", "ExecuteIndirect"})
#: every call read
CONVERT_CALLS = RESOURCE_CREATORS | COMMAND_LIST_CALLS | frozenset({
    "GetGPUVirtualAddress", "CreateRootSignature", "CreateCommandSignature", "CreateDescriptorHeap",
    "GetGPUDescriptorHandleForHeapStart", "GetDescriptorHandleIncrementSize", "CreateCommandList",
    "CreateCommandList1"})
_NAMES = frozenset(n.encode() for n in CONVERT_CALLS)
#: the most bytes a root signature blob may have (D3D12's root signature of 64 DWORDs and 2,032 static samplers
#: serializes to about 120 KiB)
MAX_BLOB_BYTES = 1 << 20


@dataclass
class Resource:
    """A resource the capture created: its ``D3D12_RESOURCE_DESC::Width`` and ``Dimension`` (the enum's name) and
    its GPU VA where the capture holds a ``GetGPUVirtualAddress`` call on it (None: it does not)."""

    handle: int
    width: int
    dimension: str
    where: str
    va: int | None = None


@dataclass
class DescriptorHeapInfo:
    """A descriptor heap: its type (short name), its ``NumDescriptors``, and its GPU start where the capture holds
    a ``GetGPUDescriptorHandleForHeapStart`` call on it."""

    handle: int
    type: str
    count: int
    where: str
    start: int | None = None


@dataclass
class RootValue:
    """A root parameter's value on the command list: ``kind`` ``constants`` (``dwords``: the DWORDs set, by their
    offset in the parameter), ``descriptor`` (a VA) or ``table`` (a GPU descriptor handle)."""

    kind: str
    value: int = 0
    dwords: dict[int, int] = field(default_factory=dict)
    where: str = ""


@dataclass
class CallState:
    """What the convert JSON shows of one command list's state: since its creation or its last ``Reset``."""

    list_type: str | None = None
    graphics_root_signature: int | None = None
    compute_root_signature: int | None = None
    graphics_arguments: dict[int, RootValue] = field(default_factory=dict)
    compute_arguments: dict[int, RootValue] = field(default_factory=dict)
    #: by slot: (BufferLocation, SizeInBytes, StrideInBytes)
    vertex_buffers: dict[int, tuple[int, int, int]] = field(default_factory=dict)
    #: (BufferLocation, SizeInBytes, Format name) or None (no index buffer)
    index_buffer: tuple[int, int, str] | None = None
    descriptor_heaps: tuple[int, ...] = ()
    in_render_pass: bool = False
    pipeline_state: int | None = None
    #: by resource: the state the command list's last transition barrier on the whole resource left it in
    resource_states: dict[int, int] = field(default_factory=dict)
    #: what the state holds that a capture cannot say (an ExecuteBundle, stale root arguments), one line each
    notes: list[str] = field(default_factory=list)


@dataclass
class IndirectCall:
    """One ``ExecuteIndirect`` call: its block index, where it is, its arguments and the command list's state."""

    block: int
    where: str
    command_list: int
    command_signature: int
    max_command_count: int
    argument_buffer: int
    argument_offset: int
    count_buffer: int
    count_offset: int
    state: CallState


@dataclass
class ConvertFrame:
    """What :func:`read_convert` read."""

    source: str
    header: dict[str, Any]
    resources: dict[int, Resource] = field(default_factory=dict)
    #: by handle: (the serialized blob, where it was created)
    root_signatures: dict[int, tuple[bytes, str]] = field(default_factory=dict)
    #: by handle: (the ``D3D12_COMMAND_SIGNATURE_DESC`` as the JSON writes it, the root signature handle, where)
    command_signatures: dict[int, tuple[dict[str, Any], int, str]] = field(default_factory=dict)
    heaps: dict[int, DescriptorHeapInfo] = field(default_factory=dict)
    #: ``GetDescriptorHandleIncrementSize`` by heap type (short name)
    increments: dict[str, int] = field(default_factory=dict)
    #: the ExecuteIndirect calls asked for, by block index
    calls: dict[int, IndirectCall] = field(default_factory=dict)
    #: block index -> the name of the call there, for the blocks asked for that are no ExecuteIndirect
    other_calls: dict[int, str] = field(default_factory=dict)
    blocks: int = 0


class _Reader:
    """The convert JSON's blocks turned into a :class:`ConvertFrame`, one call at a time."""

    def __init__(self, source: str, wanted: Collection[int] | None) -> None:
        self.frame = ConvertFrame(source, {})
        self.wanted = None if wanted is None else frozenset(wanted)
        self.lists: dict[int, CallState] = {}
        self.list_types: dict[int, str] = {}
        self.where = source

    # -- members -------------------------------------------------------------------------------------------------

    def fail(self, message: str, member: str = "") -> ImportInputError:
        return ImportInputError(message, where=f"{self.where}" + (f" {member}" if member else ""))

    def member(self, d: Any, key: str, path: str) -> Any:
        if not isinstance(d, dict) or key not in d:
            raise self.fail(f"the call has no member {key!r} (gfxrecon-convert writes it)", f"{path}.{key}")
        return d[key]

    def uint(self, value: Any, path: str, bits: int = 64) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(f"expected an unsigned integer, got {_kind(value)}", path)
        if not 0 <= value < 1 << bits:
            raise self.fail(f"{value} is outside the unsigned {bits}-bit range", path)
        return value

    def handle(self, value: Any, path: str) -> int:
        """A handle: a JSON number, or with ``hex_handles`` a hex string; null or absent is NULL."""
        if value is None:
            return 0
        if isinstance(value, str):
            return self.hex(value, path)
        return self.uint(value, path)

    def hex(self, value: Any, path: str) -> int:
        """A VA as the writer makes it: a ``0x`` hex string (``to_hex_variable_width``)."""
        if not isinstance(value, str) or not value.startswith("0x"):
            raise self.fail(f"expected a hex string such as \"0x10000\" (a GPU VA), got {_kind(value)}", path)
        try:
            number = inputs.integer(value)
        except ValueError as exc:
            raise self.fail(str(exc), path) from None
        if not 0 <= number < 1 << 64:
            raise self.fail(f"{value} is outside the 64-bit VA space", path)
        return number

    def binary(self, value: Any, path: str) -> int:
        """A node mask as the writer makes it: ``0b`` binary (``to_binary_fixed_width``)."""
        if isinstance(value, int) and not isinstance(value, bool):
            return self.uint(value, path, 32)
        if not isinstance(value, str) or not re.fullmatch(r"0b[01]{1,64}", value):
            raise self.fail(f"expected a binary string such as \"0b00000001\", got {_kind(value)}", path)
        return self.uint(int(value[2:], 2), path, 32)

    def enum(self, value: Any, enum_name: str, path: str) -> str:
        """An enum as the writer makes it, ``<ENUM'S PREFIX><MEMBER>``: the member's short name."""
        prefix = abi.default.enum_prefix(enum_name)
        if not isinstance(value, str) or not value.startswith(prefix):
            shown = value if isinstance(value, str) else _kind(value)
            raise self.fail(f"expected a {enum_name} member name ({prefix}...), got {shown!r}", path)
        return value[len(prefix):]

    def flags(self, value: Any, enum_name: str, path: str) -> int:
        """A flags value: fixed-width hex, or (``--expand-flags``) member names joined by ``|``."""
        if isinstance(value, str) and value.startswith("0x"):
            return self.uint(self.hex(value, path), path, 32)
        if isinstance(value, str) and value:
            out = 0
            for part in value.split("|"):
                try:
                    out |= abi.enum_value(enum_name, part.strip())
                except D3D12WLError:
                    raise self.fail(f"{part.strip()!r} is no {enum_name} member this d3d12wl knows", path) from None
            return out
        raise self.fail(f"expected a {enum_name} value (\"0x00000200\" or names joined by |), got {_kind(value)}",
                        path)

    def byte_array(self, value: Any, path: str, limit: int) -> bytes:
        if not isinstance(value, list):
            shown = f"the placeholder {value!r}" if isinstance(value, str) else _kind(value)
            raise self.fail(f"expected the bytes as a JSON array of numbers 0..255, got {shown}", path)
        if len(value) > limit:
            raise self.fail(f"{len(value):,} bytes, more than the {limit:,} read here", path)
        try:
            return bytes(value)
        except (TypeError, ValueError):
            bad = next(i for i, v in enumerate(value) if isinstance(v, bool) or not isinstance(v, int)
                       or not 0 <= v < 256)
            raise self.fail(f"element {bad} is {value[bad]!r}, not a byte", f"{path}[{bad}]") from None

    # -- calls ---------------------------------------------------------------------------------------------------

    def read(self, block: Block) -> None:
        m = block.peek(_NAME)
        if block.ordinal == 0:
            self.header(block)
            return
        if m is None or m.group(1) not in _NAMES:
            return
        doc = block.parse()
        if not isinstance(doc, dict):
            return
        call = doc.get("method") if "method" in doc else doc.get("function")
        if not isinstance(call, dict) or call.get("name") != m.group(1).decode():
            return  # (the name matched was a member's: this block is another call)
        name = call["name"]
        self.where = f"{self.frame.source} block {block.ordinal}"
        index = self.uint(self.member(doc, "index", ""), "index")
        self.where = f"{self.frame.source} index {index} ({name})"
        args = call.get("args") or {}
        if not isinstance(args, dict):
            raise self.fail(f"expected the call's args as an object, got {_kind(args)}", "method.args")
        obj = call.get("object")
        handle = self.handle(obj.get("handle"), "method.object.handle") if isinstance(obj, dict) else 0
        if name in COMMAND_LIST_CALLS:
            self.command_list_call(name, index, handle, args, call)
        elif name in RESOURCE_CREATORS:
            self.resource(args)
        else:
            getattr(self, f"on_{name}")(index, handle, args, call)

    def header(self, block: Block) -> None:
        doc = block.parse()
        header = doc.get("header") if isinstance(doc, dict) else None
        if not isinstance(header, dict):
            raise ImportInputError("not gfxrecon-convert's JSON: its first block is no {\"header\": {...}}",
                                   where=block.where)
        self.frame.header = header

    def resource(self, args: dict[str, Any]) -> None:
        handle = self.handle(self.member(args, "ppvResource", "method.args"), "method.args.ppvResource")
        desc = self.member(args, "pDesc", "method.args")
        if not handle or not isinstance(desc, dict):
            return  # (a failed creation: no resource)
        width = self.uint(self.member(desc, "Width", "method.args.pDesc"), "method.args.pDesc.Width")
        dimension = self.member(desc, "Dimension", "method.args.pDesc")
        self.frame.resources[handle] = Resource(handle, width, str(dimension), self.where)

    def on_GetGPUVirtualAddress(self, index: int, handle: int, args: dict[str, Any], call: dict[str, Any]) -> None:
        va = self.hex(self.member(call, "return", "method"), "method.return")
        resource = self.frame.resources.get(handle)
        if resource is not None:
            resource.va = va
        else:  # a resource created before the part of the capture the JSON holds: its Width is not known
            self.frame.resources[handle] = Resource(handle, 0, "", self.where, va)

    def on_CreateRootSignature(self, index: int, handle: int, args: dict[str, Any], call: dict[str, Any]) -> None:
        out = self.handle(self.member(args, "ppvRootSignature", "method.args"), "method.args.ppvRootSignature")
        if not out:
            return
        blob = self.byte_array(self.member(args, "pBlobWithRootSignature", "method.args"),
                               "method.args.pBlobWithRootSignature", MAX_BLOB_BYTES)
        self.frame.root_signatures[out] = (blob, f"{self.where} method.args.pBlobWithRootSignature")

    def on_CreateCommandSignature(self, index: int, handle: int, args: dict[str, Any], call: dict[str, Any]) -> None:
        out = self.handle(self.member(args, "ppvCommandSignature", "method.args"), "method.args.ppvCommandSignature")
        desc = self.member(args, "pDesc", "method.args")
        if not out:
            return
        if not isinstance(desc, dict):
            raise self.fail(f"expected the D3D12_COMMAND_SIGNATURE_DESC as an object, got {_kind(desc)}",
                            "method.args.pDesc")
        rs = self.handle(args.get("pRootSignature"), "method.args.pRootSignature")
        self.frame.command_signatures[out] = (desc, rs, self.where)

    def on_CreateDescriptorHeap(self, index: int, handle: int, args: dict[str, Any], call: dict[str, Any]) -> None:
        out = self.handle(self.member(args, "ppvHeap", "method.args"), "method.args.ppvHeap")
        desc = self.member(args, "pDescriptorHeapDesc", "method.args")
        if not out:
            return
        kind = self.enum(self.member(desc, "Type", "method.args.pDescriptorHeapDesc"), "D3D12_DESCRIPTOR_HEAP_TYPE",
                         "method.args.pDescriptorHeapDesc.Type")
        count = self.uint(self.member(desc, "NumDescriptors", "method.args.pDescriptorHeapDesc"),
                          "method.args.pDescriptorHeapDesc.NumDescriptors", 32)
        self.frame.heaps[out] = DescriptorHeapInfo(out, kind, count, self.where)

    def on_GetGPUDescriptorHandleForHeapStart(self, index: int, handle: int, args: dict[str, Any],
                                              call: dict[str, Any]) -> None:
        value = self.member(call, "return", "method")
        heap = self.frame.heaps.get(handle)
        if heap is not None:
            heap.start = self.uint(self.member(value, "ptr", "method.return"), "method.return.ptr")

    def on_GetDescriptorHandleIncrementSize(self, index: int, handle: int, args: dict[str, Any],
                                            call: dict[str, Any]) -> None:
        kind = self.enum(self.member(args, "DescriptorHeapType", "method.args"), "D3D12_DESCRIPTOR_HEAP_TYPE",
                         "method.args.DescriptorHeapType")
        self.frame.increments[kind] = self.uint(self.member(call, "return", "method"), "method.return", 32)

    def on_CreateCommandList(self, index: int, handle: int, args: dict[str, Any], call: dict[str, Any]) -> None:
        out = self.handle(self.member(args, "ppCommandList", "method.args"), "method.args.ppCommandList")
        if out:
            self.list_types[out] = self.enum(self.member(args, "type", "method.args"), "D3D12_COMMAND_LIST_TYPE",
                                             "method.args.type")
            # (CreateCommandList's pInitialState is the list's pipeline state; CreateCommandList1 has none)
            self.lists[out] = CallState(self.list_types[out], pipeline_state=self.initial_state(args, "pInitialState"))

    on_CreateCommandList1 = on_CreateCommandList

    # -- the command list's state --------------------------------------------------------------------------------

    def command_list_call(self, name: str, index: int, handle: int, args: dict[str, Any],
                          call: dict[str, Any]) -> None:
        state = self.lists.get(handle)
        if state is None:  # a command list created before the part of the capture the JSON holds
            state = self.lists[handle] = CallState()
        if name == "Reset":  # (its pInitialState is the list's pipeline state, as CreateCommandList's)
            self.lists[handle] = CallState(self.list_types.get(handle),
                                           pipeline_state=self.initial_state(args, "pInitialState"))
        elif name == "ClearState":
            # "resets the state of a direct command list back to the state it was in when the command list was
            # created", pPipelineState its pipeline state; the barriers it recorded stay recorded
            self.lists[handle] = CallState(self.list_types.get(handle),
                                           pipeline_state=self.initial_state(args, "pPipelineState"),
                                           resource_states=state.resource_states)
        elif name in ("SetGraphicsRootSignature", "SetComputeRootSignature"):
            graphics = "Graphics" in name
            rs = self.handle(args.get("pRootSignature"), "method.args.pRootSignature")
            key = "graphics_root_signature" if graphics else "compute_root_signature"
            if getattr(state, key) != rs:  # a root signature changed: every root argument set before is stale
                (state.graphics_arguments if graphics else state.compute_arguments).clear()
            setattr(state, key, rs)
        elif name.startswith(("SetGraphicsRoot", "SetComputeRoot")):
            self.root_argument(name, state, args)
        elif name == "IASetVertexBuffers":
            start = self.uint(self.member(args, "StartSlot", "method.args"), "method.args.StartSlot", 32)
            count = self.uint(self.member(args, "NumViews", "method.args"), "method.args.NumViews", 32)
            views = args.get("pViews")
            if count > abi.constant("D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT"):
                raise self.fail(f"{count} views: a command list has "
                                f"{abi.constant('D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT')} slots",
                                "method.args.NumViews")
            for i in range(count):
                if views is None:  # NULL pViews unbinds the slots
                    state.vertex_buffers.pop(start + i, None)
                    continue
                if not isinstance(views, list) or i >= len(views):
                    raise self.fail(f"expected {count} views", "method.args.pViews")
                view = views[i]
                p = f"method.args.pViews[{i}]"
                state.vertex_buffers[start + i] = (
                    self.hex(self.member(view, "BufferLocation", p), f"{p}.BufferLocation"),
                    self.uint(self.member(view, "SizeInBytes", p), f"{p}.SizeInBytes", 32),
                    self.uint(self.member(view, "StrideInBytes", p), f"{p}.StrideInBytes", 32))
        elif name == "IASetIndexBuffer":
            view = args.get("pView")
            if view is None:
                state.index_buffer = None
            else:
                p = "method.args.pView"
                state.index_buffer = (self.hex(self.member(view, "BufferLocation", p), f"{p}.BufferLocation"),
                                      self.uint(self.member(view, "SizeInBytes", p), f"{p}.SizeInBytes", 32),
                                      self.enum(self.member(view, "Format", p), "DXGI_FORMAT", f"{p}.Format"))
        elif name == "SetDescriptorHeaps":
            heaps = args.get("ppDescriptorHeaps") or []
            if not isinstance(heaps, list):
                raise self.fail(f"expected an array of heaps, got {_kind(heaps)}", "method.args.ppDescriptorHeaps")
            state.descriptor_heaps = tuple(self.handle(h, f"method.args.ppDescriptorHeaps[{i}]")
                                           for i, h in enumerate(heaps[:16]))
        elif name in ("BeginRenderPass", "EndRenderPass"):
            state.in_render_pass = name == "BeginRenderPass"
        elif name == "SetPipelineState":
            state.pipeline_state = self.handle(args.get("pPipelineState"), "method.args.pPipelineState")
        elif name == "ResourceBarrier":
            self.barriers(state, args)
        elif name == "ExecuteBundle":
            state.notes.append(f"a bundle executed on the command list before the call ({self.where}): the state "
                               "it leaves is not followed")
        elif name == "ExecuteIndirect":
            self.execute_indirect(index, handle, state, args)

    def initial_state(self, args: dict[str, Any], member: str) -> int | None:
        """The pipeline state a call names (None for NULL, or a call without the member)."""
        return self.handle(args.get(member), f"method.args.{member}") or None

    def root_argument(self, name: str, state: CallState, args: dict[str, Any]) -> None:
        graphics = name.startswith("SetGraphicsRoot")
        values = state.graphics_arguments if graphics else state.compute_arguments
        p = "method.args"
        index = self.uint(self.member(args, "RootParameterIndex", p), f"{p}.RootParameterIndex", 32)
        if index >= abi.constant("D3D12_MAX_ROOT_COST"):
            raise self.fail(f"root parameter {index}: a root signature has at most "
                            f"{abi.constant('D3D12_MAX_ROOT_COST')}", f"{p}.RootParameterIndex")
        if name.endswith(("32BitConstant", "32BitConstants")):
            offset = self.uint(self.member(args, "DestOffsetIn32BitValues", p), f"{p}.DestOffsetIn32BitValues", 32)
            if name.endswith("Constant"):
                dwords = [self.uint(self.member(args, "SrcData", p), f"{p}.SrcData", 32)]
            else:
                n = self.uint(self.member(args, "Num32BitValuesToSet", p), f"{p}.Num32BitValuesToSet", 32)
                data = self.byte_array(self.member(args, "pSrcData", p), f"{p}.pSrcData",
                                       4 * abi.constant("D3D12_MAX_ROOT_COST"))
                if len(data) != 4 * n:
                    raise self.fail(f"{len(data)} bytes for {n} DWORDs", f"{p}.pSrcData")
                dwords = [int.from_bytes(data[4 * k:4 * k + 4], "little") for k in range(n)]
            if offset + len(dwords) > abi.constant("D3D12_MAX_ROOT_COST"):
                raise self.fail(f"DWORDs {offset}..{offset + len(dwords) - 1}: a root constants parameter has at "
                                f"most {abi.constant('D3D12_MAX_ROOT_COST')}", f"{p}.DestOffsetIn32BitValues")
            current = values.get(index)
            if current is None or current.kind != "constants":
                current = values[index] = RootValue("constants", where=self.where)
            current.dwords.update({offset + k: v for k, v in enumerate(dwords)})
        elif name.endswith("DescriptorTable"):
            base = self.member(args, "BaseDescriptor", p)
            values[index] = RootValue("table", self.uint(self.member(base, "ptr", f"{p}.BaseDescriptor"),
                                                         f"{p}.BaseDescriptor.ptr"), where=self.where)
        else:
            values[index] = RootValue("descriptor", self.hex(self.member(args, "BufferLocation", p),
                                                             f"{p}.BufferLocation"), where=self.where)

    def barriers(self, state: CallState, args: dict[str, Any]) -> None:
        barriers = args.get("pBarriers") or []
        if not isinstance(barriers, list):
            raise self.fail(f"expected an array of barriers, got {_kind(barriers)}", "method.args.pBarriers")
        whole = (0, (1 << 32) - 1)  # a buffer's one subresource, or D3D12_RESOURCE_BARRIER_ALL_SUBRESOURCES
        for i, b in enumerate(barriers):
            t = b.get("Transition") if isinstance(b, dict) else None
            if not isinstance(t, dict):
                continue
            p = f"method.args.pBarriers[{i}].Transition"
            resource = self.handle(t.get("pResource"), f"{p}.pResource")
            if self.uint(t.get("Subresource", 0), f"{p}.Subresource", 32) in whole:
                state.resource_states[resource] = self.flags(self.member(t, "StateAfter", p),
                                                             "D3D12_RESOURCE_STATES", f"{p}.StateAfter")

    def execute_indirect(self, index: int, handle: int, state: CallState, args: dict[str, Any]) -> None:
        p = "method.args"
        signature = self.handle(self.member(args, "pCommandSignature", p), f"{p}.pCommandSignature")
        if self.wanted is None or index in self.wanted:
            self.snapshot(index, handle, state, args)
        found = self.frame.command_signatures.get(signature)
        if found is not None:
            _state_leakage(state, found[0])

    def snapshot(self, index: int, handle: int, state: CallState, args: dict[str, Any]) -> None:
        p = "method.args"
        self.frame.calls[index] = IndirectCall(
            index, self.where, handle,
            self.handle(self.member(args, "pCommandSignature", p), f"{p}.pCommandSignature"),
            self.uint(self.member(args, "MaxCommandCount", p), f"{p}.MaxCommandCount", 32),
            self.handle(self.member(args, "pArgumentBuffer", p), f"{p}.pArgumentBuffer"),
            self.uint(self.member(args, "ArgumentBufferOffset", p), f"{p}.ArgumentBufferOffset"),
            self.handle(args.get("pCountBuffer"), f"{p}.pCountBuffer"),
            self.uint(args.get("CountBufferOffset", 0), f"{p}.CountBufferOffset"),
            copy.deepcopy(state))


def _state_leakage(state: CallState, desc: dict[str, Any]) -> None:
    """IndirectDrawing.md "State leakage": after an ExecuteIndirect, a vertex buffer slot its command signature binds
    is a NULL view, its index buffer NULL, a root constant it sets (an incrementing constant's too) 0, a root view
    it sets a NULL view, in the binding set of its class (a draw's graphics, a dispatch's compute)."""
    prefix = abi.default.enum_prefix("D3D12_INDIRECT_ARGUMENT_TYPE")
    arguments = [a for a in desc.get("pArgumentDescs") or [] if isinstance(a, dict)]
    types = [str(a.get("Type", ""))[len(prefix):] for a in arguments]
    classes = [info.trigger_class for t in types if (info := _argument_info(t)) is not None and info.is_trigger]
    if not classes:
        return
    graphics = classes[0] is ExecutableClass.GRAPHICS
    values = state.graphics_arguments if graphics else state.compute_arguments
    for kind, arg in zip(types, arguments):
        member = next((v for k, v in arg.items() if isinstance(v, dict)), {})
        index = member.get("RootParameterIndex")
        if kind == "VERTEX_BUFFER_VIEW" and isinstance(member.get("Slot"), int):
            state.vertex_buffers[member["Slot"]] = (0, 0, 0)
        elif kind == "INDEX_BUFFER_VIEW":
            state.index_buffer = None
        elif kind == "CONSTANT" and isinstance(index, int):
            current = values.get(index)
            if current is None or current.kind != "constants":
                current = values[index] = RootValue("constants", where="the state leakage reset of an "
                                                                          "ExecuteIndirect")
            first, count = member.get("DestOffsetIn32BitValues", 0), member.get("Num32BitValuesToSet", 0)
            if isinstance(first, int) and isinstance(count, int) and 0 <= first and 0 <= count <= 64:
                current.dwords.update({first + k: 0 for k in range(count)})
        elif kind in ("CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW") \
                and isinstance(index, int):
            values[index] = RootValue("descriptor", 0, where="the state leakage reset of an ExecuteIndirect")


def _argument_info(short: str) -> Any:
    try:
        return arg_type_info(short)
    except (KeyError, D3D12WLError):
        return None


def _kind(value: Any) -> str:
    return {dict: "an object", list: "an array", str: "a string", bool: "a boolean", type(None): "null",
            int: "an integer", float: "a number"}.get(type(value), type(value).__name__)


def read_convert(source: str | os.PathLike[str], *, calls: Collection[int] | None = None) -> ConvertFrame:
    """Read ``gfxrecon-convert``'s JSON (``--format json`` or ``jsonl``) of a D3D12 capture; ``calls``: the block
    indices of the ExecuteIndirect calls wanted (None: every one).  A block asked for that holds another call is
    named in ``other_calls``."""
    reader = _Reader(inputs.label(source), calls)
    wanted = reader.wanted
    count = 0
    for block in blocks(source, what="gfxrecon-convert JSON"):
        count += 1
        reader.read(block)
        if wanted is not None and block.ordinal and (m := block.match(_INDEX)) is not None:
            index = int(m.group(1))
            if index in wanted and index not in reader.frame.calls and index not in reader.frame.other_calls:
                name = block.peek(_NAME)
                reader.frame.other_calls[index] = name.group(1).decode() if name else "a block without a call"
    if not count:
        raise ImportInputError("empty: gfxrecon-convert's JSON starts with a header block", where=reader.frame.source)
    reader.frame.blocks = count
    return reader.frame


_INDEX = re.compile(rb'\{\s*"index"\s*:\s*([0-9]{1,20})')
