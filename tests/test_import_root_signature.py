"""A serialized root signature (the blob CreateRootSignature takes, which GFXReconstruct's convert JSON holds) read
into the model (d3d12wl.importers.root_signature_blob): the DXBC container's RTS0 part, versions 1.0, 1.1 and 1.2,
every parameter type and static samplers; a blob that does not fit names the byte."""

from __future__ import annotations

import pytest
from tool_shapes import root_signature_blob

from d3d12wl import abi
from d3d12wl.importers import ImportInputError, read_root_signature

# Written by hand from the RTS0 layout (LLVM docs/DirectX/RootSignature.rst: header, parameters, samplers, ranges,
# payloads), not by tool_shapes: version 1.1, flags ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT; a root CBV b0 space 1
# flags DATA_STATIC; a table of one range, 8 SRVs from t1, DESCRIPTORS_VOLATILE, appended (0xffffffff).
HAND_WRITTEN = bytes.fromhex(
    "44584243" + "00" * 16 + "0100" "0000" "88000000" "01000000" "24000000"  # DXBC, digest, 1.0, 136 bytes, 1 part
    "52545330" "5c000000"                                                   # RTS0, 92 bytes
    "02000000" "02000000" "18000000" "00000000" "30000000" "01000000"       # version 1.1, 2 params @24, 0 @48, flags
    "02000000" "00000000" "48000000"                                        # CBV, ALL, payload @72
    "00000000" "00000000" "54000000"                                        # table, ALL, payload @84
    "00000000" "08000000" "01000000" "00000000" "01000000" "ffffffff"       # the range @48
    "00000000" "01000000" "08000000"                                        # the CBV @72
    "01000000" "30000000")                                                  # the table @84: 1 range @48


def test_a_hand_written_blob_reads_and_tool_shapes_writes_the_same_bytes() -> None:
    rs = read_root_signature(HAND_WRITTEN, "RS", where="test")
    assert rs.Flags == abi.enum_value("D3D12_ROOT_SIGNATURE_FLAGS", "ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT")
    cbv, table = rs.pParameters
    assert cbv.parameter_type_name == "CBV" and (cbv.Descriptor.ShaderRegister, cbv.Descriptor.RegisterSpace,
                                                  cbv.Descriptor.Flags) == (0, 1, 8)
    (r,) = table.DescriptorTable.pDescriptorRanges
    assert (r.RangeType, r.NumDescriptors, r.BaseShaderRegister, r.Flags, r.OffsetInDescriptorsFromTableStart) == \
        (abi.enum_value("D3D12_DESCRIPTOR_RANGE_TYPE", "SRV"), 8, 1, 1, 0xFFFFFFFF)
    made = root_signature_blob([{"type": "CBV", "register": 0, "space": 1, "flags": 8},
                                {"type": "DESCRIPTOR_TABLE", "ranges": [{"RangeType": 0, "NumDescriptors": 8,
                                                                         "BaseShaderRegister": 1, "Flags": 1,
                                                                         "OffsetInDescriptorsFromTableStart":
                                                                             0xFFFFFFFF}]}], flags=1)
    assert made == HAND_WRITTEN


@pytest.mark.parametrize("version", ["1_0", "1_1", "1_2"])
def test_every_parameter_type_and_static_samplers_in_each_version(version: str) -> None:
    params = [{"type": "32BIT_CONSTANTS", "num": 3, "register": 2, "space": 1, "visibility": 5},
              {"type": "SRV", "register": 4}, {"type": "UAV", "register": 5},
              {"type": "DESCRIPTOR_TABLE", "ranges": [{"RangeType": 3, "NumDescriptors": 2},
                                                      {"RangeType": 3, "NumDescriptors": 1,
                                                       "OffsetInDescriptorsFromTableStart": 2}]}]
    samplers = [{"Filter": 0x55, "AddressU": 3, "MaxLOD": 3.5, "ShaderRegister": 7, "Flags": 1}]
    rs = read_root_signature(root_signature_blob(params, samplers, version=version), "RS", where="test")
    assert [p.parameter_type_name for p in rs.pParameters] == ["32BIT_CONSTANTS", "SRV", "UAV", "DESCRIPTOR_TABLE"]
    c = rs.pParameters[0]
    assert (c.Constants.Num32BitValues, c.Constants.ShaderRegister, c.Constants.RegisterSpace, c.ShaderVisibility) \
        == (3, 2, 1, 5)
    assert [r.NumDescriptors for r in rs.pParameters[3].DescriptorTable.pDescriptorRanges] == [2, 1]
    (s,) = rs.pStaticSamplers
    assert (s.Filter, s.AddressU, s.MaxLOD, s.ShaderRegister) == (0x55, 3, 3.5, 7)
    assert s.Flags == (1 if version == "1_2" else 0)  # D3D12_STATIC_SAMPLER_DESC1's member, 1.2 only


def test_the_root_signature_part_is_found_among_a_shaders_parts() -> None:
    blob = root_signature_blob([{"type": "CBV"}], parts_before=[b"DXIL" + bytes(40), b"ISG1" + bytes(12)])
    assert read_root_signature(blob, "RS", where="test").pParameters[0].parameter_type_name == "CBV"


@pytest.mark.parametrize(("blob", "message"), [
    (b"", "does not start with a DXBC container header"),
    (b"DXBC" + bytes(28), "no RTS0 part"),
    (HAND_WRITTEN[:100], "the container says it holds 136 bytes; the blob has 100"),
    (HAND_WRITTEN[:28] + b"\xff\xff\xff\x0f" + HAND_WRITTEN[32:], "lists 268435455 parts"),
    (HAND_WRITTEN[:44] + b"\x09" + HAND_WRITTEN[45:], "root signature version 9"),
    (HAND_WRITTEN[:48] + b"\xff\xff" + HAND_WRITTEN[50:], "cannot fit the 92-byte part"),
    (HAND_WRITTEN[:68] + b"\x07" + HAND_WRITTEN[69:], "parameter 0 has type 7"),
    (HAND_WRITTEN[:76] + b"\xf0" + HAND_WRITTEN[77:], "parameter 0's root descriptor at offset 240 .* run past"),
    (HAND_WRITTEN[:132] + b"\x50\x00\x00\x00", "descriptor ranges of parameter 1 at offset 80 .* run past"),
])
def test_a_blob_that_does_not_fit_names_the_byte(blob: bytes, message: str) -> None:
    with pytest.raises(ImportInputError, match=message) as info:
        read_root_signature(blob, "RS", where="frame.json index 3 method.args.pBlobWithRootSignature")
    assert info.value.where == "frame.json index 3 method.args.pBlobWithRootSignature"
