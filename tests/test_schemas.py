"""construct schemas, numpy dtypes and the compiled headers agree field by field, for every plain-data struct the
headers declare and for the record layouts of the example signatures.

``common(target, data, obj, size)`` is the one assertion (in the spirit of construct's
``tests/declarativeunittest.py::common``): construct parses ``data`` to ``obj``, builds ``obj`` back to ``data`` and
has ``sizeof == size``; the numpy dtype reads the same values from ``data`` with ``itemsize == size`` and the
packers write the same bytes from them; and the compiled header (cffi ``ffi.new`` + ``ffi.buffer``) reads the same
values from the same bytes.
"""

from __future__ import annotations

import ctypes
import random
import re
import struct
from pathlib import Path
from typing import Any

import construct as cs
import numpy as np
import pytest

from d3d12wl import abi
from d3d12wl.abi.compiled import TypeInfo
from d3d12wl.errors import ABIError, ParseError
from d3d12wl.model import description
from d3d12wl.records import codegen
from d3d12wl.records.ctypes_records import from_value, record_ctype, to_value
from d3d12wl.records.dtypes import Scalar, classify, dtype_for, field_type, leaves, plain_data_types
from d3d12wl.records.layout import PCSLayout, RecordLayout, pcs_layout, program_table_layout
from d3d12wl.records.packers import pack_records, pack_structs, read_records, to_columns
from d3d12wl.records.schemas import STRUCTS, parse_record, parse_struct, record_schema

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
#: members a capture adds to a description file (d3d12wl.capture.file); the object collections are the same
CAPTURE_KEYS = ("version", "device", "memory", "state", "call")
ffi = abi.ffi


# --- values: plain nested dicts / lists / ints / floats --------------------------------------------------------


def plain(value: Any) -> Any:
    """A construct result as plain Python (Containers -> dicts without construct's private keys)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, list):
        return [plain(v) for v in value]
    return value


def get_path(obj: Any, path: str) -> Any:
    for part in path.split("."):
        obj = obj[part]
    return obj


def _cdata_value(value: Any) -> Any:
    if isinstance(value, ffi.CData):
        kind = ffi.typeof(value).kind
        if kind in ("pointer", "function"):
            return int(ffi.cast("uintptr_t", value))
        if kind == "array":
            return [_cdata_value(v) for v in value]
        if kind == "struct":
            return {name: _cdata_value(getattr(value, name)) for name, _ in ffi.typeof(value).fields}
    return value


def cffi_read(ctype: str, data: bytes, count: int = 1) -> Any:
    """The value of ``ctype`` (or ``ctype[count]``) that the compiled header reads from ``data``."""
    text = classify(ctype)
    cname = text.name if isinstance(text, TypeInfo) else ctype
    if count > 1:
        p = ffi.new(f"{cname}[{count}]")
        ffi.buffer(p)[:] = data
        return [_cdata_value(v) for v in p]
    p = ffi.new(f"{cname} *")
    ffi.buffer(p)[:] = data
    return _cdata_value(p[0])


# --- the one assertion -------------------------------------------------------------------------------------------


def common(target: str | RecordLayout, data: bytes, obj: dict[str, Any], size: int) -> None:
    """construct parse/build/sizeof, the numpy dtype (read and pack) and the compiled header agree on ``data``; for
    a record also its ctypes Structure, member for member with the C codegen struct."""
    schema = STRUCTS.struct(target) if isinstance(target, str) else record_schema(target)
    # construct
    assert schema.sizeof() == size
    assert plain(schema.parse(data)) == obj
    assert schema.build(obj) == data
    # numpy: read and pack
    dtype = dtype_for(target)
    assert dtype.itemsize == size
    arr = np.frombuffer(data, dtype=dtype)
    columns = to_columns(arr)
    for path, column in columns.items():
        assert column[0].tolist() == get_path(obj, path), path
    packed = pack_structs(target, columns) if isinstance(target, str) else pack_records(target, columns)
    assert packed.tobytes() == data
    # the compiled header
    if isinstance(target, str):
        assert ffi.sizeof(target) == size
        assert cffi_read(target, data) == obj
    else:
        for f in target.fields:
            assert cffi_read(f.ctype, data[f.offset:f.end], f.count) == obj[f.name], f.name
        if any(f.role == "header" for f in target.fields):
            header = cffi_read(target.header, data[:target.header_size])
            assert header == {k: obj[k] for k in header}
        # ctypes: member for member as the C codegen declares the struct, reading and building the same bytes
        cls = record_ctype(target)
        assert ctypes.sizeof(cls) == size
        assert [(n, getattr(cls, n).offset, getattr(cls, n).size) for n, _ in cls._fields_] == c_members(target)
        assert to_value(cls.from_buffer_copy(data)) == obj
        assert bytes(from_value(cls, obj)) == data


_C_MEMBER = re.compile(r"^    \S.*?(\w+)(?:\[\d+\])?;\s*/\* \[(\d+)\.\.(\d+)\]", re.M)


def c_members(layout: RecordLayout) -> list[tuple[str, int, int]]:
    """(name, offset, size) of every member of the C codegen struct of ``layout``, padding included, as declared
    (d3d12wl.records.codegen.c_struct; tests/test_codegen.py compiles it and proves the offsets)."""
    return [(m.group(1), int(m.group(2)), int(m.group(3)) - int(m.group(2)) + 1)
            for m in _C_MEMBER.finditer(codegen.c_struct(layout))]


# --- random bytes with padding zeroed ---------------------------------------------------------------------------


def _struct_leaves(info: TypeInfo, base: int = 0) -> list[tuple[int, Scalar, int]]:
    out: list[tuple[int, Scalar, int]] = []
    for f in info.fields:
        t = field_type(f)
        n = f.array_length or 1
        step = f.size // n
        for i in range(n):
            if isinstance(t, TypeInfo):
                out.extend(_struct_leaves(t, base + f.offset + i * step))
            else:
                out.append((base + f.offset + i * step, t, step))
    return out


def random_bytes(leaves_: list[tuple[int, Scalar, int]], size: int, rng: random.Random) -> bytes:
    """Random field bytes, zero padding (holes found from the header offsets); floats finite."""
    data = bytearray(size)
    for off, t, n in leaves_:
        if t.kind == "f":
            data[off:off + n] = struct.pack("<f" if n == 4 else "<d", float(rng.randrange(-1000, 1000)) / 8)
        else:
            data[off:off + n] = rng.getrandbits(8 * n).to_bytes(n, "little")
    return bytes(data)


def record_leaves(layout: RecordLayout) -> list[tuple[int, Scalar, int]]:
    out: list[tuple[int, Scalar, int]] = []
    for f in layout.fields:
        t = classify(f.ctype)
        for i in range(f.count):
            if isinstance(t, TypeInfo):
                out.extend(_struct_leaves(t, f.offset + i * t.size))
            else:
                out.append((f.offset + i * t.size, t, t.size))
    return out


# --- every plain-data struct -------------------------------------------------------------------------------------

PLAIN = plain_data_types()


def test_plain_data_types_cover_the_gpu_resident_structs() -> None:
    """Issue 4 item 1: every GPU-resident fixed struct has a schema."""
    for name in ("D3D12_DISPATCH_LIST_INPUT", "D3D12_DISPATCH_LIST_INPUT1", "D3D12_WORK_LIST_PRIMARY_RECORD",
                 "D3D12_WORK_LIST_INLINE_PRIMARY_RECORD", "D3D12_WORK_LIST_RAYTRACING_RECORD",
                 "D3D12_DRAW_ARGUMENTS", "D3D12_DRAW_INDEXED_ARGUMENTS", "D3D12_DISPATCH_ARGUMENTS",
                 "D3D12_DISPATCH_MESH_ARGUMENTS", "D3D12_DISPATCH_RAYS_DESC", "D3D12_DISPATCH_RAYS_DIMENSIONS",
                 "D3D12_PROGRAM_IDENTIFIER", "D3D12_VERTEX_BUFFER_VIEW", "D3D12_INDEX_BUFFER_VIEW",
                 "D3D12_GPU_DESCRIPTOR_HANDLE", "D3D12DDI_DRIVER_REPORTED_MESSAGE_0126"):
        assert name in PLAIN


@pytest.mark.parametrize("name", PLAIN)
def test_every_plain_data_struct_agrees_with_the_compiled_header(name: str) -> None:
    """design.md "ABI rules": the construct and numpy mirrors agree with the C compiler field by field."""
    info = abi.type_info(name)
    rng = random.Random(name)
    for _ in range(3):
        data = random_bytes(_struct_leaves(info), info.size, rng)
        obj = cffi_read(name, data)
        common(name, data, obj, info.size)


def test_pointer_members_are_64_bit_addresses() -> None:
    """Seed 003: D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 pDescription, read as an address."""
    schema = STRUCTS.D3D12DDI_DRIVER_REPORTED_MESSAGE_0126
    members = {sc.name: sc.subcon for sc in schema.subcons if sc.name}
    assert members["pDescription"] is cs.Int64ul
    assert members["VendorMessageId"] is cs.Int64ul
    assert schema.sizeof() == abi.sizeof("D3D12DDI_DRIVER_REPORTED_MESSAGE_0126")


def test_holes_are_explicit_padding_at_header_offsets() -> None:
    """D3D12_ROOT_DESCRIPTOR_TABLE1 has a 4-byte hole before its pointer, D3D12_WORK_LIST_PROGRAM_TABLE_BINDING a
    4-byte tail: both are Padding at the compiled offsets, never Aligned."""
    table = STRUCTS.D3D12_ROOT_DESCRIPTOR_TABLE1
    assert [type(sc).__name__ for sc in table.subcons] == ["Renamed", "Padded", "Renamed"]
    assert table.sizeof() == 16
    binding = STRUCTS.D3D12_WORK_LIST_PROGRAM_TABLE_BINDING
    assert binding.sizeof() == 32 and isinstance(binding.subcons[-1], cs.Padded)
    assert binding.build({"Table": {"StartAddress": 8, "SizeInBytes": 48, "StrideInBytes": 48},
                          "SlotCount": 1})[28:] == bytes(4)


def test_spec_stated_sizes() -> None:
    """Spec: 24-byte D3D12_DISPATCH_LIST_INPUT, 40-byte _INPUT1, 32-byte D3D12_PROGRAM_IDENTIFIER, 12-byte
    D3D12_DISPATCH_RAYS_DIMENSIONS; the primary-record byte tables of "Primary record layout"."""
    assert STRUCTS.D3D12_DISPATCH_LIST_INPUT.sizeof() == 24
    assert STRUCTS.D3D12_DISPATCH_LIST_INPUT1.sizeof() == 40
    assert STRUCTS.D3D12_PROGRAM_IDENTIFIER.sizeof() == 32
    assert STRUCTS.D3D12_DISPATCH_RAYS_DIMENSIONS.sizeof() == 12
    hybrid = STRUCTS.D3D12_WORK_LIST_PRIMARY_RECORD.build(
        {"ProgramTableIndex": 1, "NumSecondaryRecords": 2, "SecondaryRecords": 0x1122334455667788})
    assert hybrid == struct.pack("<IIQ", 1, 2, 0x1122334455667788)  # [0..3] [4..7] [8..15]
    rt = STRUCTS.D3D12_WORK_LIST_RAYTRACING_RECORD.build(
        {"NumSecondaryRecords": 3, "ReservedPadding": 0, "SecondaryRecords": 8})
    assert rt == struct.pack("<IIQ", 3, 0, 8)
    assert STRUCTS.D3D12_WORK_LIST_INLINE_PRIMARY_RECORD.sizeof() == 4


def test_unions_have_no_plain_schema() -> None:
    with pytest.raises(ABIError, match="union"):
        STRUCTS.struct("D3D12_ROOT_PARAMETER1")
    assert "D3D12_ROOT_PARAMETER1" not in PLAIN


# --- records of the example signatures ---------------------------------------------------------------------------


def example_layouts() -> list[RecordLayout]:
    out: list[RecordLayout] = []
    for path in sorted(EXAMPLES.glob("*.json")):
        objects = description.load(path, ignore_keys=CAPTURE_KEYS)
        for pcs in objects.program_command_signatures.values():
            pl: PCSLayout = pcs_layout(pcs)
            out.extend(x for x in (pl.primary, pl.secondary, pl.program_table) if x is not None)
        for program in objects.programs.values():
            table = program_table_layout(program)
            if table is not None:
                out.append(table)
    return out


LAYOUTS = example_layouts()


@pytest.mark.parametrize("layout", LAYOUTS, ids=[f"{x.owner}-{x.record}" for x in LAYOUTS])
def test_example_records_agree(layout: RecordLayout) -> None:
    """Spec "Record byte layouts", "Program table slot layout": record schemas from the layout calculator agree
    with the numpy dtype and with the compiled header of each payload."""
    rng = random.Random(f"{layout.owner}{layout.record}")
    for _ in range(3):
        data = random_bytes(record_leaves(layout), layout.min_stride, rng)
        obj = {f.name: cffi_read(f.ctype, data[f.offset:f.end], f.count) for f in layout.fields}
        common(layout, data, obj, layout.min_stride)


def test_culling_example_bytes() -> None:
    """Spec "GPU culling and work list emission": SecondaryRecord {uint64 MaterialBufferSRV; uint x4} is 24 bytes,
    the primary record is the 16-byte hybrid header, a program-table slot is 32 + 16 = 48 bytes."""
    pl = pcs_layout(description.load(EXAMPLES / "culling.json").program_command_signatures["PCS"])
    assert pl.secondary is not None and pl.program_table is not None
    sec = record_schema(pl.secondary).build({"arg0_ShaderResourceView": 0xABC0, "arg1_Draw": {
        "VertexCountPerInstance": 36, "InstanceCount": 1, "StartVertexLocation": 7, "StartInstanceLocation": 0}})
    assert sec == struct.pack("<QIIII", 0xABC0, 36, 1, 7, 0)
    assert record_schema(pl.primary).sizeof() == 16
    slot = record_schema(pl.program_table).build({"ProgramIdentifier": {"OpaqueData": [1, 2, 3, 4]},
                                                  "arg2_InlineRootParameter": [1, 2, 3, 4]})
    assert slot == struct.pack("<4Q4I", 1, 2, 3, 4, 1, 2, 3, 4)


def test_record_stride_pads_with_zeros() -> None:
    """Spec "Stride derivation": a stride above the minimum is trailing padding, built as zeros."""
    pl = pcs_layout(description.load(EXAMPLES / "culling.json").program_command_signatures["PCS"])
    schema = record_schema(pl.primary, 32)
    assert schema.sizeof() == 32
    assert schema.build({"ProgramTableIndex": 1, "NumSecondaryRecords": 1, "SecondaryRecords": 8})[16:] == bytes(16)


# --- truncated buffers -------------------------------------------------------------------------------------------


def test_truncated_struct_names_the_field() -> None:
    """Design "Output": a short buffer is the package's ParseError naming struct and field, never StreamError."""
    with pytest.raises(ParseError) as err:
        parse_struct("D3D12_DISPATCH_LIST_INPUT1", bytes(30))
    assert "D3D12_DISPATCH_LIST_INPUT1" in str(err.value)
    assert "ProgramInputs.StrideInBytes" in str(err.value)


def test_truncated_record_names_record_and_field() -> None:
    pl = pcs_layout(description.load(EXAMPLES / "culling.json").program_command_signatures["PCS"])
    assert pl.secondary is not None
    with pytest.raises(ParseError) as err:
        parse_record(pl.secondary, bytes(24 + 13), offset=24, index=1)
    message = str(err.value)
    assert "secondary record 1 of 'PCS'" in message and "arg1_Draw.InstanceCount" in message
    with pytest.raises(ParseError, match="primary record 3 of 'PCS' field SecondaryRecords"):
        read_records(pl.primary, bytes(16 * 3 + 10), count=4)


def test_padding_is_named_when_only_padding_is_missing() -> None:
    pl = pcs_layout(description.load(EXAMPLES / "culling.json").program_command_signatures["PCS"])
    with pytest.raises(ParseError, match="padding"):
        parse_record(pl.primary, bytes(20), stride=24)


def test_leaves_follow_the_dtype() -> None:
    assert [lf.path for lf in leaves(dtype_for("D3D12_DISPATCH_LIST_INPUT"))] == [
        "NumProgramInputs", "Flags", "ProgramInputs.StartAddress", "ProgramInputs.StrideInBytes"]
