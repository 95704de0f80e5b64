"""A serialized root signature (the blob ``ID3D12Device::CreateRootSignature`` takes) read into the model's
:class:`~d3d12wl.model.objects.RootSignature`.

The blob is a DXBC container (``D3D12SerializeRootSignature`` / ``D3D12SerializeVersionedRootSignature`` write
one, and a compiled shader with a root signature in it is one too) whose ``RTS0`` part holds the root signature
as ``D3D12_ROOT_SIGNATURE_DESC`` / ``_DESC1`` / ``_DESC2`` with each pointer written as a byte offset from the
part's start (LLVM's "Root Signature Serialization format", docs/DirectX/RootSignature.rst, reads it so):

* the part header, six ``uint32``: ``Version`` (``D3D_ROOT_SIGNATURE_VERSION``), ``NumParameters``,
  ``RootParametersOffset``, ``NumStaticSamplers``, ``StaticSamplersOffset``, ``Flags``;
* at ``RootParametersOffset``, per parameter three ``uint32``: ``ParameterType``, ``ShaderVisibility``,
  ``PayloadOffset``;
* at a parameter's ``PayloadOffset`` its payload: ``D3D12_ROOT_CONSTANTS``; ``D3D12_ROOT_DESCRIPTOR`` (1.0) or
  ``D3D12_ROOT_DESCRIPTOR1`` (1.1, 1.2); or a table, two ``uint32`` ``NumDescriptorRanges`` and
  ``DescriptorRangesOffset``, the ranges there as ``D3D12_DESCRIPTOR_RANGE`` (1.0) or ``D3D12_DESCRIPTOR_RANGE1``;
* at ``StaticSamplersOffset`` the samplers as ``D3D12_STATIC_SAMPLER_DESC`` (1.0, 1.1) or ``_DESC1`` (1.2).

The payload structs are the compiled headers' (their sizes and members are read from there); the container's own
headers, which are no C struct of d3d12.h, are described here once (:data:`CONTAINER_HEADER`, :data:`PART_HEADER`,
:data:`RTS0_HEADER`, :data:`PARAMETER_HEADER`, :data:`TABLE_HEADER`).  Every offset and count is checked against
the bytes before it is followed; what does not fit is an :class:`~d3d12wl.importers.errors.ImportInputError`
naming the byte.
"""

from __future__ import annotations

import struct
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.importers.errors import ImportInputError
from d3d12wl.model.objects import (
    DescriptorRange1,
    RootConstants,
    RootDescriptor1,
    RootDescriptorTable1,
    RootParameter1,
    RootSignature,
    StaticSamplerDesc1,
)
from d3d12wl.records.dtypes import struct_dtype

__all__ = ["CONTAINER_MAGIC", "ROOT_SIGNATURE_PART", "RootSignatureBlob", "read_root_signature"]

#: the first four bytes of a DXBC container
CONTAINER_MAGIC = b"DXBC"
#: the fourcc of the part that holds a serialized root signature
ROOT_SIGNATURE_PART = b"RTS0"
#: the container's header: magic, 16-byte digest, major and minor version, container size, part count (then the
#: parts' offsets, one ``uint32`` each)
CONTAINER_HEADER = struct.Struct("<4s16sHHII")
#: a part's header: its fourcc and its size in bytes (its data follows)
PART_HEADER = struct.Struct("<4sI")
#: the RTS0 part's header
RTS0_HEADER = struct.Struct("<6I")
#: one root parameter's header
PARAMETER_HEADER = struct.Struct("<3I")
#: a descriptor table's payload
TABLE_HEADER = struct.Struct("<2I")


def _version(name: str) -> int:
    return abi.enum_value("D3D_ROOT_SIGNATURE_VERSION", name)


class RootSignatureBlob:
    """The bytes of one blob and where they came from (``where``: the file and member, for every message)."""

    def __init__(self, data: bytes, where: str) -> None:
        self.data = data
        self.where = where

    def fail(self, message: str, at: int | None = None) -> ImportInputError:
        return ImportInputError(message if at is None else f"{message} (byte {at} of the blob)", where=self.where)

    def unpack(self, form: struct.Struct, at: int, base: int, what: str) -> tuple[Any, ...]:
        if at < 0 or base + at + form.size > len(self.data):
            raise self.fail(f"{what} at offset {at} runs past the end of the {len(self.data)}-byte blob", base + at)
        return form.unpack_from(self.data, base + at)

    def structs(self, name: str, at: int, count: int, base: int, what: str) -> np.ndarray:
        """``count`` structs ``name`` (the compiled headers') at offset ``at`` of the part starting at ``base``."""
        dtype = struct_dtype(name)
        end = base + at + count * dtype.itemsize
        if at < 0 or end > len(self.data):
            raise self.fail(f"{count} {what} at offset {at} ({dtype.itemsize} bytes each) run past the end of the "
                            f"{len(self.data)}-byte blob", base + at)
        return np.frombuffer(self.data, dtype=dtype, count=count, offset=base + at)

    def part(self) -> tuple[int, int]:
        """(start, size) of the RTS0 part's data."""
        if len(self.data) < CONTAINER_HEADER.size or self.data[:4] != CONTAINER_MAGIC:
            raise self.fail(f"not a serialized root signature: it does not start with a {CONTAINER_MAGIC.decode()} "
                            "container header")
        _, _, _, _, size, parts = CONTAINER_HEADER.unpack_from(self.data, 0)
        if size > len(self.data):
            raise self.fail(f"the container says it holds {size} bytes; the blob has {len(self.data)}")
        table = CONTAINER_HEADER.size
        if parts > (len(self.data) - table) // 4:
            raise self.fail(f"the container lists {parts} parts, more offsets than its bytes hold", table)
        for i in range(parts):
            (offset,) = struct.unpack_from("<I", self.data, table + 4 * i)
            fourcc, part_size = self.unpack(PART_HEADER, offset, 0, f"part {i}'s header")
            start = offset + PART_HEADER.size
            if start + part_size > len(self.data):
                raise self.fail(f"part {i} ({fourcc!r}) of {part_size} bytes runs past the end of the blob", offset)
            if fourcc == ROOT_SIGNATURE_PART:
                return start, part_size
        raise self.fail(f"the container has no {ROOT_SIGNATURE_PART.decode()} part (its {parts} parts hold no root "
                        "signature)")


def read_root_signature(data: bytes, name: str, *, where: str) -> RootSignature:
    """The root signature of the serialized blob ``data`` as the model object ``name``; ``where`` names the blob
    in every error (the file and member it was read from)."""
    blob = RootSignatureBlob(bytes(data), where)
    base, size = blob.part()
    part = RootSignatureBlob(blob.data[:base + size], where)  # (offsets in the part never reach past it)
    version, nparams, params_at, nsamplers, samplers_at, flags = part.unpack(RTS0_HEADER, 0, base, "the RTS0 header")
    versions = {_version("1_0"): "1_0", _version("1_1"): "1_1", _version("1_2"): "1_2"}
    if version not in versions:
        raise part.fail(f"root signature version {version} is none this reader knows "
                        f"({', '.join(f'{v} ({n})' for v, n in versions.items())})", base)
    v10 = version == _version("1_0")
    if nparams > size // PARAMETER_HEADER.size or nsamplers > size:
        raise part.fail(f"{nparams} parameters and {nsamplers} static samplers cannot fit the {size}-byte part", base)
    rs = RootSignature(name, Flags=flags)
    kinds = {abi.enum_value("D3D12_ROOT_PARAMETER_TYPE", k): k
             for k in ("DESCRIPTOR_TABLE", "32BIT_CONSTANTS", "CBV", "SRV", "UAV")}
    for i in range(nparams):
        ptype, visibility, payload = part.unpack(PARAMETER_HEADER, params_at + i * PARAMETER_HEADER.size, base,
                                                 f"parameter {i}'s header")
        kind = kinds.get(ptype)
        if kind is None:
            raise part.fail(f"parameter {i} has type {ptype}, no D3D12_ROOT_PARAMETER_TYPE", base + params_at)
        param = RootParameter1(ParameterType=ptype, ShaderVisibility=visibility)
        if kind == "32BIT_CONSTANTS":
            c = part.structs("D3D12_ROOT_CONSTANTS", payload, 1, base, f"parameter {i}'s root constants")[0]
            param.Constants = RootConstants(int(c["ShaderRegister"]), int(c["RegisterSpace"]), int(c["Num32BitValues"]))
        elif kind == "DESCRIPTOR_TABLE":
            nranges, ranges_at = part.unpack(TABLE_HEADER, payload, base, f"parameter {i}'s descriptor table")
            if nranges > size:
                raise part.fail(f"parameter {i}'s table of {nranges} ranges cannot fit the {size}-byte part",
                                base + payload)
            ranges = part.structs("D3D12_DESCRIPTOR_RANGE" if v10 else "D3D12_DESCRIPTOR_RANGE1", ranges_at, nranges,
                                  base, f"descriptor ranges of parameter {i}")
            param.DescriptorTable = RootDescriptorTable1([
                DescriptorRange1(int(r["RangeType"]), int(r["NumDescriptors"]), int(r["BaseShaderRegister"]),
                                 int(r["RegisterSpace"]), 0 if v10 else int(r["Flags"]),
                                 int(r["OffsetInDescriptorsFromTableStart"])) for r in ranges])
        else:
            d = part.structs("D3D12_ROOT_DESCRIPTOR" if v10 else "D3D12_ROOT_DESCRIPTOR1", payload, 1, base,
                             f"parameter {i}'s root descriptor")[0]
            param.Descriptor = RootDescriptor1(int(d["ShaderRegister"]), int(d["RegisterSpace"]),
                                               0 if v10 else int(d["Flags"]))
        rs.pParameters.append(param)
    sampler_type = "D3D12_STATIC_SAMPLER_DESC1" if version == _version("1_2") else "D3D12_STATIC_SAMPLER_DESC"
    samplers = part.structs(sampler_type, samplers_at, nsamplers, base, "static samplers")
    members = [f.name for f in abi.type_info("D3D12_STATIC_SAMPLER_DESC1").fields]
    for s in samplers:
        values: dict[str, Any] = {m: (float(s[m]) if s[m].dtype.kind == "f" else int(s[m]))
                                  for m in members if m in s.dtype.names}
        rs.pStaticSamplers.append(StaticSamplerDesc1(**values))
    return rs
