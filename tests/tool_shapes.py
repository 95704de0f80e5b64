"""Files shaped as GFXReconstruct and GITS write them, made from a reading of their writers' source (docs/
gfxreconstruct.md and docs/gits.md say which version): the tests' fixtures and the bundled examples'
(tools/make_importer_examples.py).  Nothing here is copied from those projects; each writer says which source
function it follows.

* :func:`root_signature_blob`: a DXBC container with an ``RTS0`` part, as ``D3D12SerializeVersionedRootSignature``
  writes one (LLVM's docs/DirectX/RootSignature.rst describes the order: header, parameters, samplers, ranges,
  payloads).
* :class:`ConvertFile`: ``gfxrecon-convert``'s JSON (``framework/decode/json_writer.cpp`` and
  ``framework/generated/generated_dx12_json_consumer.cpp``): a header block, then a block per call.
* :func:`write_dump`: a ``gfxrecon-replay --dump-resources`` folder (``framework/decode/dx12_dump_resources.cpp``).
* :func:`gits_dump`: GITS's ``call_<key>_execute_indirect_{pre,post}_patch.txt``
  (``DirectX/player/executeIndirectDump.cpp``).
"""

from __future__ import annotations

import json
import struct
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from d3d12wl import abi

# --------------------------------------------------------------------------------------------------------------
# A serialized root signature
# --------------------------------------------------------------------------------------------------------------


def _pack(struct_name: str, values: dict[str, Any]) -> bytes:
    """The bytes of one struct of the compiled headers, members by name (floats for float members)."""
    info = abi.type_info(struct_name)
    out = bytearray(info.size)
    for f in info.fields:
        v = values.get(f.name, 0)
        fmt = "<f" if f.type == "float" else "<I"
        struct.pack_into(fmt, out, f.offset, float(v) if fmt == "<f" else int(v))
    return bytes(out)


def root_signature_blob(parameters: Sequence[dict[str, Any]] = (), samplers: Sequence[dict[str, Any]] = (),
                        flags: int = 0, version: str = "1_1", parts_before: Sequence[bytes] = ()) -> bytes:
    """A serialized root signature.  ``parameters``: ``{"type": "CBV"|"SRV"|"UAV"|"32BIT_CONSTANTS"|
    "DESCRIPTOR_TABLE", "visibility": int, "register": n, "space": n, "num": n (constants), "ranges": [{...}]}``;
    ``parts_before``: fourcc + data of other container parts placed before RTS0 (a shader's)."""
    v10, v12 = version == "1_0", version == "1_2"
    header = 24
    params_at = header
    samplers_at = params_at + 12 * len(parameters)
    sampler_type = "D3D12_STATIC_SAMPLER_DESC1" if v12 else "D3D12_STATIC_SAMPLER_DESC"
    ranges_at = samplers_at + abi.sizeof(sampler_type) * len(samplers)
    range_type = "D3D12_DESCRIPTOR_RANGE" if v10 else "D3D12_DESCRIPTOR_RANGE1"
    ranges = bytearray()
    range_offsets = []
    for p in parameters:
        range_offsets.append(ranges_at + len(ranges))
        for r in p.get("ranges", ()):
            ranges += _pack(range_type, r)
    payload_at = ranges_at + len(ranges)
    payloads = bytearray()
    heads = bytearray()
    kinds = abi.enum_members("D3D12_ROOT_PARAMETER_TYPE")
    for i, p in enumerate(parameters):
        ptype = kinds[f"D3D12_ROOT_PARAMETER_TYPE_{p['type']}"]
        heads += struct.pack("<3I", ptype, p.get("visibility", 0), payload_at + len(payloads))
        if p["type"] == "32BIT_CONSTANTS":
            payloads += _pack("D3D12_ROOT_CONSTANTS", {"ShaderRegister": p.get("register", 0),
                                                       "RegisterSpace": p.get("space", 0), "Num32BitValues": p["num"]})
        elif p["type"] == "DESCRIPTOR_TABLE":
            payloads += struct.pack("<2I", len(p.get("ranges", ())), range_offsets[i])
        else:
            payloads += _pack("D3D12_ROOT_DESCRIPTOR" if v10 else "D3D12_ROOT_DESCRIPTOR1",
                              {"ShaderRegister": p.get("register", 0), "RegisterSpace": p.get("space", 0),
                               "Flags": p.get("flags", 0)})
    version_value = abi.enum_value("D3D_ROOT_SIGNATURE_VERSION", version)
    rts0 = struct.pack("<6I", version_value, len(parameters), params_at, len(samplers), samplers_at, flags)
    rts0 += bytes(heads) + b"".join(_pack(sampler_type, s) for s in samplers) + bytes(ranges) + bytes(payloads)
    parts = [*parts_before, b"RTS0" + rts0]
    offsets, body = [], bytearray()
    first = 32 + 4 * len(parts)
    for part in parts:
        offsets.append(first + len(body))
        body += part[:4] + struct.pack("<I", len(part) - 4) + part[4:]
    total = first + len(body)
    return b"DXBC" + bytes(16) + struct.pack("<HHII", 1, 0, total, len(parts)) + struct.pack(
        f"<{len(parts)}I", *offsets) + bytes(body)


# --------------------------------------------------------------------------------------------------------------
# gfxrecon-convert's JSON
# --------------------------------------------------------------------------------------------------------------


def hex_va(value: int) -> str:
    """A GPU VA as ``FieldToJsonAsHex`` writes it (``to_hex_variable_width``)."""
    return f"0x{value:x}"


def hex_flags(value: int) -> str:
    """A flags value as ``to_hex_fixed_width`` writes a 32-bit one."""
    return f"0x{value:08x}"


def node_mask(value: int = 1) -> str:
    """A node mask as ``FieldToJsonAsFixedWidthBinary`` writes it."""
    return f"0b{value:032b}"


def enum(enum_name: str, short: str) -> str:
    """An enum as its ``to_json`` writes it: the full member name."""
    return f"{abi.default.enum_prefix(enum_name)}{short}"


@dataclass
class ConvertFile:
    """Blocks of a convert JSON, one call at a time: each call method returns the handle it creates.  Handles and
    block indices count up from ``first_handle`` and 1 (the header block has no index)."""

    source_path: str = "frame.gfxr"
    version: str = "1.0.5 (d3d12wl test shape)"
    blocks: list[dict[str, Any]] = field(default_factory=list)
    next_handle: int = 100
    next_index: int = 1
    device: int = 1

    def __post_init__(self) -> None:
        self.blocks.append({"header": {"source-path": self.source_path, "gfxrecon-version": self.version}})

    def handle(self) -> int:
        self.next_handle += 1
        return self.next_handle

    def method(self, object_type: str, handle: int, name: str, args: dict[str, Any] | None = None,
               ret: Any = "S_OK", thread: int = 1) -> int:
        """``WriteApiCallStart`` + the call's members: ``{"index", "method": {"name", "thread", "object", "return",
        "args"}}``; returns the block index."""
        index = self.next_index
        self.next_index += 1
        method: dict[str, Any] = {"name": name, "thread": thread, "object": {"type": object_type, "handle": handle}}
        if ret is not None:
            method["return"] = ret
        if args is not None:
            method["args"] = args
        self.blocks.append({"index": index, "method": method})
        return index

    def skip(self, n: int = 1) -> None:
        """Blocks of other calls (a draw, a present) the importer streams past."""
        for _ in range(n):
            self.method("ID3D12GraphicsCommandList", 0, "DrawInstanced",
                        {"VertexCountPerInstance": 3, "InstanceCount": 1, "StartVertexLocation": 0,
                         "StartInstanceLocation": 0}, ret=None)

    def buffer(self, width: int, va: int | None, *, state: int = 0, committed: bool = True) -> int:
        """``CreateCommittedResource`` (or ``CreatePlacedResource``) of a buffer, then ``GetGPUVirtualAddress``."""
        h = self.handle()
        desc = {"Dimension": "D3D12_RESOURCE_DIMENSION_BUFFER", "Alignment": 0, "Width": width, "Height": 1,
                "DepthOrArraySize": 1, "MipLevels": 1, "Format": "DXGI_FORMAT_UNKNOWN",
                "SampleDesc": {"Count": 1, "Quality": 0}, "Layout": "D3D12_TEXTURE_LAYOUT_ROW_MAJOR",
                "Flags": hex_flags(0)}
        if committed:
            self.method("ID3D12Device", self.device, "CreateCommittedResource", {
                "pHeapProperties": {"Type": "D3D12_HEAP_TYPE_DEFAULT"}, "HeapFlags": hex_flags(0), "pDesc": desc,
                "InitialResourceState": hex_flags(state), "pOptimizedClearValue": None,
                "riidResource": "ID3D12Resource", "ppvResource": h})
        else:
            self.method("ID3D12Device", self.device, "CreatePlacedResource", {
                "pHeap": 7, "HeapOffset": 0, "pDesc": desc, "InitialState": hex_flags(state),
                "pOptimizedClearValue": None, "riid": "ID3D12Resource", "ppvResource": h})
        if va is not None:
            self.method("ID3D12Resource", h, "GetGPUVirtualAddress", ret=hex_va(va))
        return h

    def root_signature(self, blob: bytes) -> int:
        h = self.handle()
        self.method("ID3D12Device", self.device, "CreateRootSignature", {
            "nodeMask": node_mask(0), "pBlobWithRootSignature": list(blob), "blobLengthInBytes": len(blob),
            "riid": "ID3D12RootSignature", "ppvRootSignature": h})
        return h

    def command_signature(self, stride: int, arguments: Sequence[dict[str, Any]], root_signature: int = 0) -> int:
        """``CreateCommandSignature``; each argument ``{"Type": "DRAW"|..., <union member>: {...}}`` written as
        ``FieldToJson(D3D12_INDIRECT_ARGUMENT_DESC)`` writes it (full type name, the member its case writes)."""
        h = self.handle()
        descs = []
        for a in arguments:
            d = dict(a)
            d["Type"] = enum("D3D12_INDIRECT_ARGUMENT_TYPE", a["Type"])
            if a["Type"] == "INDEX_BUFFER_VIEW":
                d["comment"] = "There must be a D3D12_INDIRECT_ARGUMENT_TYPE_DRAW_INDEXED in the same sequence."
            if a["Type"] == "INCREMENTING_CONSTANT":  # the writer has no case for it
                d = {"Type": d["Type"], "WARNING": "Unknown D3D12_INDIRECT_ARGUMENT_TYPE in "
                                                  "D3D12_INDIRECT_ARGUMENT_DESC."}
            descs.append(d)
        self.method("ID3D12Device", self.device, "CreateCommandSignature", {
            "pDesc": {"ByteStride": stride, "NumArgumentDescs": len(descs), "pArgumentDescs": descs,
                      "NodeMask": node_mask(0)},
            "pRootSignature": root_signature, "riid": "ID3D12CommandSignature", "ppvCommandSignature": h})
        return h

    def command_list(self, list_type: str = "DIRECT") -> int:
        h = self.handle()
        self.method("ID3D12Device", self.device, "CreateCommandList", {
            "nodeMask": node_mask(0), "type": enum("D3D12_COMMAND_LIST_TYPE", list_type), "pCommandAllocator": 5,
            "pInitialState": 0, "riid": "ID3D12GraphicsCommandList", "ppCommandList": h})
        return h

    def descriptor_heap(self, heap_type: str, count: int, start: int | None, increment: int | None) -> int:
        h = self.handle()
        self.method("ID3D12Device", self.device, "CreateDescriptorHeap", {
            "pDescriptorHeapDesc": {"Type": enum("D3D12_DESCRIPTOR_HEAP_TYPE", heap_type), "NumDescriptors": count,
                                    "Flags": hex_flags(1), "NodeMask": node_mask(0)},
            "riid": "ID3D12DescriptorHeap", "ppvHeap": h})
        if start is not None:
            self.method("ID3D12DescriptorHeap", h, "GetGPUDescriptorHandleForHeapStart", ret={"ptr": start})
        if increment is not None:
            self.method("ID3D12Device", self.device, "GetDescriptorHandleIncrementSize",
                        {"DescriptorHeapType": enum("D3D12_DESCRIPTOR_HEAP_TYPE", heap_type)}, ret=increment)
        return h

    def on(self, command_list: int, name: str, args: dict[str, Any] | None = None) -> int:
        """A call on a command list (no return value, as the void methods are written)."""
        return self.method("ID3D12GraphicsCommandList", command_list, name, args if args is not None else {},
                           ret=None if name != "Reset" else "S_OK")

    def vertex_buffers(self, command_list: int, start: int, views: Sequence[tuple[int, int, int]] | None) -> int:
        return self.on(command_list, "IASetVertexBuffers", {
            "StartSlot": start, "NumViews": len(views or ()),
            "pViews": None if views is None else [{"BufferLocation": hex_va(v), "SizeInBytes": s, "StrideInBytes": t}
                                                  for v, s, t in views]})

    def root_constants(self, command_list: int, index: int, dwords: Sequence[int], offset: int = 0,
                       graphics: bool = True) -> int:
        data = b"".join(struct.pack("<I", d) for d in dwords)
        return self.on(command_list, f"Set{'Graphics' if graphics else 'Compute'}Root32BitConstants", {
            "RootParameterIndex": index, "Num32BitValuesToSet": len(dwords), "pSrcData": list(data),
            "DestOffsetIn32BitValues": offset})

    def execute_indirect(self, command_list: int, signature: int, max_count: int, arguments: int,
                         argument_offset: int = 0, count: int = 0, count_offset: int = 0) -> int:
        return self.on(command_list, "ExecuteIndirect", {
            "pCommandSignature": signature, "MaxCommandCount": max_count, "pArgumentBuffer": arguments,
            "ArgumentBufferOffset": argument_offset, "pCountBuffer": count, "CountBufferOffset": count_offset})

    def text(self, fmt: str = "json") -> str:
        """As ``JsonWriter`` writes it: ``[`` + blocks joined by ``,\\n`` (indented by 2) + ``]`` for json, one
        block per line for jsonl."""
        if fmt == "jsonl":
            return "\n".join(json.dumps(b, separators=(",", ":")) for b in self.blocks) + "\n"
        return "[\n" + ",\n".join(json.dumps(b, indent=2) for b in self.blocks) + "\n]\n"

    def write(self, path: Path, fmt: str = "json") -> Path:
        path.write_text(self.text(fmt), encoding="utf-8")
        return path


def write_dump(folder: Path, capture: str, block_index: int, arguments: tuple[int, int, bytes],
               counts: tuple[int, int, bytes] | None, *, before: bytes | None = None,
               before_counts: bytes | None = None, execute_block_index: int | None = None,
               target: tuple[int, int, int] = (0, 0, 0)) -> Path:
    """A ``--dump-resources-dir`` folder of one call: ``arguments`` and ``counts`` are (res_id, offset, the bytes
    from the offset to the resource's end) as dumped after the call; ``before`` / ``before_counts``: the bytes
    before it (``--dump-resources-before-draw``), which makes the file members ``before_file`` / ``after_file``.
    ``counts`` None writes the NULL count buffer as ``WriteNULLResource`` does."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = capture.rsplit(".", 1)[0] + "_dr"

    def buffer(kind: str, res_id: int, offset: int, after: bytes, earlier: bytes | None) -> dict[str, Any]:
        base = f"{stem}_{kind}_res_id_{res_id}_sub_0"
        sub: dict[str, Any] = {"index": 0, "offset": offset, "size": len(after), "modifiable": False}
        if earlier is None:
            (folder / f"{base}.bin").write_bytes(after)
            sub["file"] = f"{base}.bin"
        else:
            (folder / f"{base}_before.bin").write_bytes(earlier)
            (folder / f"{base}_after.bin").write_bytes(after)
            sub["before_file"] = f"{base}_before.bin"
            sub["after_file"] = f"{base}_after.bin"
        return {"heap_id": 0, "heap_index": 0, "res_id": res_id, "dimension": "D3D12_RESOURCE_DIMENSION_BUFFER",
                "subs": [sub]}

    draw: dict[str, Any] = {"block_index": block_index,
                            "execute_block_index": execute_block_index or block_index + 3}
    draw["execute_indirect_arguments"] = buffer("eiArgs", *arguments, before)
    draw["execute_indirect_counts"] = {"heap_id": 0, "heap_index": 0, "res_id": 0} if counts is None else \
        buffer("eiCount", *counts, before_counts if before is not None else None)
    header = {"D3D12SDKVersion": "614", "gfxreconversion": "1.0.5 (d3d12wl test shape)", "captureFile": capture,
              "dumpResourcesOptions": {"submit": str(target[0]), "command": str(target[1]),
                                       "draw_call": str(target[2])}}
    path = folder / f"{stem}.json"
    path.write_text("[\n" + json.dumps({"header": header}, indent=2) + ",\n"
                    + json.dumps({"draw_call": draw}, indent=2) + "\n]\n", encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------------------------
# GITS's ExecuteIndirect dumps
# --------------------------------------------------------------------------------------------------------------

#: resolves an address to (resource key, offset) or None (NOT FOUND), as CapturePlayerGpuAddressService does
Lookup = Callable[[int], "tuple[int, int] | None"]


def gits_address(address: int, lookup: Lookup) -> str:
    """``PrintGpuAddress``: ``{0x<16 hex digits>`` then, unless 0, ``, key O<key>, offset <n>`` or ``, NOT FOUND``,
    then ``}``."""
    out = f"{{0x{address:016x}"
    if address:
        found = lookup(address)
        out += ", NOT FOUND" if found is None else f", key O{found[0]}, offset {found[1]}"
    return out + "}"


def gits_dump(commands: Sequence[Sequence[tuple[str, Sequence[int]]]], lookup: Lookup, *, newline: str = "\n") -> str:
    """``DumpArgumentBuffer``: per command ``ARGUMENT <n>`` then a line per argument in its desc's order.  Each
    argument is (type, values in its struct's member order): ``DRAW``, ``DRAW_INDEXED``, ``DISPATCH``,
    ``DISPATCH_MESH``, ``VERTEX_BUFFER_VIEW`` (address, size, stride), ``INDEX_BUFFER_VIEW`` (address, size, format),
    ``CONSTANT`` (one line per DWORD), ``CONSTANT_BUFFER_VIEW`` / ``SHADER_RESOURCE_VIEW`` /
    ``UNORDERED_ACCESS_VIEW`` (address), ``DISPATCH_RAYS`` (the D3D12_DISPATCH_RAYS_DESC's 14 values)."""
    lines: list[str] = []
    for i, command in enumerate(commands):
        lines.append(f"ARGUMENT {i + 1}")
        for kind, v in command:
            if kind == "DRAW":
                lines.append(f"  DRAW {v[0]}, {v[1]}, {v[2]}, {v[3]}")
            elif kind == "DRAW_INDEXED":
                lines.append(f"  DRAW INDEXED {v[0]}, {v[1]}, {v[2]}, {v[3]}, {v[4]}")
            elif kind == "DISPATCH":
                lines.append(f"  DISPATCH {v[0]}, {v[1]}, {v[2]}")
            elif kind == "DISPATCH_MESH":
                lines.append(f"  DISPATCH MESH {v[0]}, {v[1]}, {v[2]}")
            elif kind == "VERTEX_BUFFER_VIEW":
                lines.append(f"  VERTEX BUFFER VIEW {gits_address(v[0], lookup)}, {v[1]}, {v[2]}")
            elif kind == "INDEX_BUFFER_VIEW":
                lines.append(f"  INDEX BUFFER VIEW {gits_address(v[0], lookup)}, {v[1]}, {v[2]}")
            elif kind == "CONSTANT":
                lines += [f"  CONSTANT {x}" for x in v]
            elif kind in ("CONSTANT_BUFFER_VIEW", "SHADER_RESOURCE_VIEW", "UNORDERED_ACCESS_VIEW"):
                label = {"CONSTANT_BUFFER_VIEW": "CONSTANT BUFFER VIEW", "SHADER_RESOURCE_VIEW": "SHADER BUFFER VIEW",
                         "UNORDERED_ACCESS_VIEW": "UNORDERED ACCESS VIEW"}[kind]
                lines.append(f"  {label} {gits_address(v[0], lookup)}")
            elif kind == "DISPATCH_RAYS":
                lines.append("  DISPATCH RAYS")
                lines.append(f"    RayGenerationShaderRecord {gits_address(v[0], lookup)}, {v[1]}")
                for k, name in enumerate(("MissShaderTable", "HitGroupTable", "CallableShaderTable")):
                    a, s, t = v[2 + 3 * k:5 + 3 * k]
                    lines.append(f"    {name} {gits_address(a, lookup)}, {s}, {t}")
                lines += [f"    Width {v[11]}", f"    Height {v[12]}", f"    Depth {v[13]}"]
            else:
                raise ValueError(kind)
    return "".join(line + newline for line in lines)


def range_lookup(ranges: Sequence[tuple[int, int, int]]) -> Lookup:
    """A lookup over (key, start, size) resources."""
    def find(address: int) -> tuple[int, int] | None:
        for key, start, size in ranges:
            if start <= address < start + size:
                return key, address - start
        return None
    return find
