"""d3d12wl.abi: the one place sizes, offsets, enum values and constants come from."""

from __future__ import annotations

import enum
import re

import pytest

from d3d12wl import abi
from d3d12wl.errors import ABIError

#: every type issue 2 names; `d3d12wl abi --json` must cover them all
ISSUE_TYPES = """
D3D12_FEATURE_DATA_WORK_LISTS D3D12_PROGRAM_COMMAND_SIGNATURE_DESC D3D12_WORK_LIST_SIGNATURE_DESC
D3D12_WORK_LIST_ARGUMENT_DESC D3D12_WORK_LIST_INLINE_ROOT_PARAMETER D3D12_WORK_LIST_SIGNATURE_ARRAY_DESC
D3D12_SET_PROGRAM_DESC D3D12_DISPATCH_RAYS_DIMENSIONS D3D12_WORK_LIST_RAYTRACING_BINDING D3D12_WORK_LIST_BINDING
D3D12_WORK_LIST_PROGRAM_TABLE_BINDING D3D12_SET_WORK_LIST_DESC D3D12_SET_WORK_LIST_DESC1 D3D12_DISPATCH_LIST_INPUT
D3D12_DISPATCH_LIST_INPUT1 D3D12_WORK_LIST_PRIMARY_RECORD D3D12_WORK_LIST_INLINE_PRIMARY_RECORD
D3D12_WORK_LIST_RAYTRACING_RECORD D3D12_PROGRAM_COMMAND_SIGNATURE_SUBOBJECT
D3D12DDI_DISPATCH_RAYS_DIMENSIONS_0125 D3D12DDI_OPTIONS_DATA_WORK_LISTS D3D12DDI_PROGRAM_COMMAND_SIGNATURE_DESC
D3D12DDI_WORK_LIST_SIGNATURE_DESC D3D12DDI_WORK_LIST_SIGNATURE_ARRAY_DESC D3D12DDI_WORK_LIST_BINDING
D3D12DDI_WORK_LIST_PROGRAM_TABLE_BINDING D3D12DDI_WORK_LIST_RAYTRACING_BINDING D3D12DDI_DISPATCH_LIST_INPUT
D3D12DDI_DISPATCH_LIST_INPUT1 D3D12DDI_WORK_LIST_PRIMARY_RECORD D3D12DDI_WORK_LIST_INLINE_PRIMARY_RECORD
D3D12DDI_WORK_LIST_RAYTRACING_RECORD D3D12DDI_HDEVICE D3D12DDI_HCOMMANDLIST D3D12DDI_HPROGRAMCOMMANDSIGNATURE
D3D12DDI_HWORKLISTSIGNATURE D3D12DDI_HWORKLISTSIGNATUREARRAY
D3D12_DRAW_ARGUMENTS D3D12_DRAW_INDEXED_ARGUMENTS D3D12_DISPATCH_ARGUMENTS D3D12_DISPATCH_MESH_ARGUMENTS
D3D12_DISPATCH_RAYS_DESC D3D12_VERTEX_BUFFER_VIEW D3D12_INDEX_BUFFER_VIEW D3D12_INDIRECT_ARGUMENT_DESC
D3D12_COMMAND_SIGNATURE_DESC D3D12_MESSAGE D3D12DDI_DRIVER_REPORTED_MESSAGE_0126 D3D12DDI_HANDLE_AND_TYPE
D3D12DDI_DEVICE_FUNCS_DRIVER_REPORTED_MESSAGES_0126 D3D12DDI_CORELAYER_DEVICECALLBACKS_0126
D3D12_GPU_VIRTUAL_ADDRESS_RANGE D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE D3D12_GPU_VIRTUAL_ADDRESS_AND_STRIDE
D3D12_PROGRAM_IDENTIFIER D3D12_GPU_DESCRIPTOR_HANDLE D3D12_ROOT_PARAMETER1 D3D12_ROOT_DESCRIPTOR_TABLE1
D3D12_DESCRIPTOR_RANGE1 D3D12_ROOT_CONSTANTS D3D12_ROOT_DESCRIPTOR1 D3D12_STATIC_SAMPLER_DESC1
D3D12_ROOT_SIGNATURE_DESC1
""".split()

ISSUE_ENUMS = """
D3D12_WORK_LISTS_TIER D3D12_INDIRECT_ARGUMENT_SOURCE D3D12_INDIRECT_ARGUMENT_BINDING D3D12_INCREMENTING_CONSTANT_FLAGS
D3D12_PROGRAM_TYPE D3D12_WORK_LIST_BINDING_TYPE D3D12_DISPATCH_LIST_FLAGS D3D12_DISPATCH_LIST_FLAGS1
D3D12_PIPELINE_STATE_SUBOBJECT_MASK D3D12_PIPELINE_STATE_SUBOBJECT_TYPE D3D12_STATE_SUBOBJECT_TYPE
D3D12_INDIRECT_ARGUMENT_TYPE D3D12_MESSAGE_CATEGORY D3D12_MESSAGE_SEVERITY D3D12_MESSAGE_ID D3D12DDI_FEATURE_0020
D3D12DDI_TABLE_TYPE D3D12DDI_MESSAGE_SEVERITY_0126 D3D12DDI_MESSAGE_CATEGORY_0126 D3D12DDI_WORK_LISTS_TIER
D3D12DDICAPS_TYPE D3D12DDI_INDIRECT_ARGUMENT_TYPE D3D12_SHADER_VISIBILITY D3D12_ROOT_PARAMETER_TYPE D3D12_FEATURE
""".split()


def test_every_issue_type_and_enum_is_declared() -> None:
    types = abi.types()
    assert [t for t in ISSUE_TYPES if t not in types] == []
    enums = abi.enums()
    assert [e for e in ISSUE_ENUMS if e not in enums] == []


def test_inline_raytracing_record_is_not_declared() -> None:
    # Work Lists "D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD": "Not a real struct"
    with pytest.raises(ABIError, match="D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD"):
        abi.type_info("D3D12_WORK_LIST_INLINE_RAYTRACING_RECORD")


def test_type_info_fields_and_nested() -> None:
    info = abi.type_info("D3D12_DISPATCH_LIST_INPUT1")
    assert info.kind == "struct" and info.size == abi.sizeof("D3D12_DISPATCH_LIST_INPUT1")
    pi = info.field("ProgramInputs")
    assert pi.type == "D3D12_GPU_VIRTUAL_ADDRESS_AND_STRIDE"
    assert pi.nested is abi.type_info("D3D12_GPU_VIRTUAL_ADDRESS_AND_STRIDE")
    assert (
        abi.offsetof("D3D12_DISPATCH_LIST_INPUT1", "ProgramInputs.StrideInBytes")
        == pi.offset + pi.nested.field("StrideInBytes").offset
    )
    ident = abi.type_info("D3D12_PROGRAM_IDENTIFIER").field("OpaqueData")
    assert (ident.type, ident.array_length) == ("uint64_t[4]", 4)
    assert abi.offsetof("D3D12_PROGRAM_IDENTIFIER", "OpaqueData[3]") == 3 * abi.sizeof("uint64_t")


def test_typedef_names_resolve() -> None:
    assert abi.default.resolve("D3D12_GPU_VIRTUAL_ADDRESS") == "uint64_t"
    assert abi.sizeof("D3D12_GPU_VIRTUAL_ADDRESS") == abi.ffi.sizeof("uint64_t")
    f = abi.type_info("D3D12_WORK_LIST_PRIMARY_RECORD").field("SecondaryRecords")
    assert f.type == "D3D12_GPU_VIRTUAL_ADDRESS"


def test_anonymous_unions_are_flattened_with_a_group() -> None:
    info = abi.type_info("D3D12_WORK_LIST_ARGUMENT_DESC")
    union_fields = [f for f in info.fields if f.union]
    names = {f.name for f in union_fields}
    assert {
        "VertexBuffer", "Constant", "ConstantBufferView", "ShaderResourceView", "UnorderedAccessView",
        "IncrementingConstant", "DescriptorTable", "FixedDispatch", "InlineRootParameter", "InlineStaticSampler",
        "DispatchListHeaderPointer", "ProgramTablePointer", "PrimaryListPointer", "PrimaryRecordPointer",
        "SecondaryListPointer", "SecondaryRecordPointer",
    } == names  # fmt: skip
    assert len({f.union for f in union_fields}) == 1 and len({f.offset for f in union_fields}) == 1
    inc = info.field("IncrementingConstant")
    assert [n.name for n in inc.nested.fields] == ["RootParameterIndex", "DestOffsetIn32BitValues", "Flags"]
    assert abi.offsetof("D3D12_WORK_LIST_ARGUMENT_DESC", "IncrementingConstant.Flags") == inc.offset + 8


def test_enums_come_from_the_compiled_module() -> None:
    t = abi.enum("D3D12_INDIRECT_ARGUMENT_TYPE")
    assert issubclass(t, enum.IntEnum)
    for full, value in abi.enum_members("D3D12_INDIRECT_ARGUMENT_TYPE").items():
        assert getattr(abi.lib, full) == value
    assert t.DRAW == abi.lib.D3D12_INDIRECT_ARGUMENT_TYPE_DRAW


@pytest.mark.parametrize(
    "name",
    ["D3D12_DISPATCH_LIST_FLAGS", "D3D12_DISPATCH_LIST_FLAGS1", "D3D12_INCREMENTING_CONSTANT_FLAGS",
     "D3D12_PIPELINE_STATE_SUBOBJECT_MASK", "D3D12_ROOT_SIGNATURE_FLAGS", "D3D12_DESCRIPTOR_RANGE_FLAGS"],
)  # fmt: skip
def test_flag_enums_are_intflag(name: str) -> None:
    assert issubclass(abi.enum(name), enum.IntFlag)


def test_flag_combination() -> None:
    f = abi.enum("D3D12_DISPATCH_LIST_FLAGS1")
    both = f.ALLOW_NEXT_DISPATCH_LIST_CONTINUATION | f.END_WITH_WAIT_FOR_COMPLETION
    assert int(both) == abi.lib.D3D12_DISPATCH_LIST_FLAG1_ALLOW_NEXT_DISPATCH_LIST_CONTINUATION | (
        abi.lib.D3D12_DISPATCH_LIST_FLAG1_END_WITH_WAIT_FOR_COMPLETION
    )


def test_enum_value_full_and_short_names() -> None:
    full = abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "D3D12_INDIRECT_ARGUMENT_TYPE_DRAW")
    assert full == abi.enum_value("D3D12_INDIRECT_ARGUMENT_TYPE", "DRAW") == abi.lib.D3D12_INDIRECT_ARGUMENT_TYPE_DRAW
    assert abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1") == abi.lib.D3D12_WORK_LISTS_TIER_1
    assert abi.enum_short_name("D3D12_INDIRECT_ARGUMENT_SOURCE", abi.lib.D3D12_INDIRECT_ARGUMENT_SOURCE_STATIC) == (
        "STATIC"
    )


def test_enum_value_error_names_enum_and_valid_members() -> None:
    with pytest.raises(ABIError) as info:
        abi.enum_value("D3D12_INDIRECT_ARGUMENT_SOURCE", "SECONDARY")
    msg = str(info.value)
    assert "D3D12_INDIRECT_ARGUMENT_SOURCE" in msg and "SECONDARY_RECORD" in msg and "PROGRAM_TABLE_RECORD" in msg
    with pytest.raises(ABIError, match="no enum named"):
        abi.enum_value("D3D12_NOPE", "X")


def test_constants() -> None:
    assert abi.constant("D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE") == abi.lib.D3D12_PROGRAM_TABLE_MAX_BYTE_STRIDE
    with pytest.raises(ABIError, match="D3D12_NOPE"):
        abi.constant("D3D12_NOPE")


def test_missing_type_and_field_errors_name_them() -> None:
    with pytest.raises(ABIError, match="D3D12_NOPE"):
        abi.sizeof("D3D12_NOPE")
    with pytest.raises(ABIError, match="D3D12_DISPATCH_LIST_INPUT.*Nope"):
        abi.offsetof("D3D12_DISPATCH_LIST_INPUT", "Nope")


def test_provisional_values_follow_design_md() -> None:
    # design.md "ABI rules": the 11 Work Lists argument types take 12..22 in the spec's table order
    order = [
        "FIXED_DISPATCH", "DESCRIPTOR_TABLE", "DISPATCH_RAYS_DIMENSIONS", "INLINE_ROOT_PARAMETER",
        "INLINE_STATIC_SAMPLER", "DISPATCH_LIST_HEADER_POINTER", "PROGRAM_TABLE_POINTER", "PRIMARY_LIST_POINTER",
        "PRIMARY_RECORD_POINTER", "SECONDARY_LIST_POINTER", "SECONDARY_RECORD_POINTER",
    ]  # fmt: skip
    prov = {p.name: p for p in abi.provisional()}
    for i, short in enumerate(order):
        p = prov[f"D3D12_INDIRECT_ARGUMENT_TYPE_{short}"]
        assert p.value == 12 + i and p.kind == "enum_member" and p.why
    assert "D3D12_FEATURE_WORK_LISTS" in prov and "D3D12_STATE_SUBOBJECT_TYPE_PROGRAM_COMMAND_SIGNATURE" in prov
    assert "D3D12DDICAPS_TYPE_WORK_LISTS" in prov
    assert abi.type_info("D3D12DDI_CORELAYER_DEVICECALLBACKS_0126").provisional
    assert not abi.type_info("D3D12_DISPATCH_LIST_INPUT").provisional


def test_ddi_enum_mirrors_api_values() -> None:
    api = abi.enum_members("D3D12_INDIRECT_ARGUMENT_TYPE")
    ddi = abi.enum_members("D3D12DDI_INDIRECT_ARGUMENT_TYPE")
    assert {k.replace("D3D12DDI_", "D3D12_"): v for k, v in ddi.items()} == api


def test_header_text_is_embedded() -> None:
    texts = abi.header_texts()
    assert list(texts)[0] == "d3d12wl_base.h"
    assert "D3D12_WORK_LIST_PRIMARY_RECORD" in texts["d3d12wl_work_lists.h"]


def test_enum_value_accepts_full_short_and_prefixed_tail_but_not_a_fragment() -> None:
    """design.md "The JSON description of objects": an enum value is written by its full name or without its
    enum's prefix.  'TIER_1' (a tail holding the whole short name '1') is accepted; a fragment of a short name
    ('TABLE' for PROGRAM_TABLE) is a typo and must not silently resolve."""
    assert abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1") == abi.enum_value("D3D12_WORK_LISTS_TIER", "1")
    assert abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "PROGRAM_TABLE") == abi.enum_value(
        "D3D12_WORK_LIST_BINDING_TYPE", "D3D12_WORK_LIST_BINDING_TYPE_PROGRAM_TABLE")
    with pytest.raises(ABIError, match="PROGRAM_TABLE"):
        abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "TABLE")


def _api_counterpart(ddi_name: str) -> str:
    return re.sub(r"_0\d{3}$", "", ddi_name.replace("D3D12DDI_", "D3D12_"))


def test_ddi_structs_mirror_their_api_counterparts_byte_for_byte() -> None:
    """Spec "DDI Design": the DDI surface mirrors the API surface 1:1; "GPU-resident structs": the DDI input and
    record structs have the same byte layout as their API counterparts.  Every D3D12DDI_ struct with an API
    namesake (interface pointers become handles of the same size) matches it in size and in every field's offset
    and size, in order."""
    types = abi.types()
    pairs = {name: _api_counterpart(name) for name in types if name.startswith("D3D12DDI_")}
    pairs["D3D12DDI_OPTIONS_DATA_WORK_LISTS"] = "D3D12_FEATURE_DATA_WORK_LISTS"
    pairs = {ddi: api for ddi, api in pairs.items() if api in types}
    assert {"D3D12DDI_DISPATCH_LIST_INPUT1", "D3D12DDI_WORK_LIST_PRIMARY_RECORD", "D3D12DDI_WORK_LIST_ARGUMENT_DESC",
            "D3D12DDI_DISPATCH_RAYS_DIMENSIONS_0125", "D3D12DDI_SET_WORK_LIST_DESC1"} <= pairs.keys()
    for ddi, api in pairs.items():
        d, a = types[ddi], types[api]
        assert d.size == a.size, (ddi, api)
        assert [(f.offset, f.size) for f in d.fields] == [(f.offset, f.size) for f in a.fields], (ddi, api)


@pytest.mark.parametrize("name", ["D3D12DDI_WORK_LISTS_TIER", "D3D12DDI_INDIRECT_ARGUMENT_SOURCE",
                                  "D3D12DDI_INDIRECT_ARGUMENT_BINDING", "D3D12DDI_WORK_LIST_BINDING_TYPE"])
def test_ddi_work_lists_enums_mirror_api_values(name: str) -> None:
    """Spec "DDI Design": the Work Lists DDI enums carry the API enums' members and values."""
    ddi = abi.enum_members(name)
    assert {k.replace("D3D12DDI_", "D3D12_"): v for k, v in ddi.items()} == abi.enum_members(_api_counterpart(name))
