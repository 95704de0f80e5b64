"""d3d12wl.capture.file: the versioned capture format (issue 5 item 2).

A capture holds the memory regions, device caps (spec "Feature Tiers and Capability Queries",
D3D12_FEATURE_DATA_WORK_LISTS), the objects (design.md "The JSON description of objects"), the command-list state
before the call (spec "SetProgram Structures": D3D12_SET_PROGRAM_DESC and its bindings) and the call (spec
"DispatchList", "DispatchList1"; IndirectDrawing.md ExecuteIndirect).  A malformed capture is rejected with the
path of what is wrong, never a KeyError/TypeError.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable
from importlib import resources
from pathlib import Path
from typing import Any

import pytest

from d3d12wl import abi
from d3d12wl.capture.file import (
    CAPTURE_VERSIONS,
    COMMAND_LIST_MEMBERS,
    COMMAND_LIST_VERSION,
    DESCRIPTOR_HEAP_VERSION,
    Capture,
    capture_to_dict,
    format_version,
    load_capture,
    save_capture,
    schema_errors,
)
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.errors import CaptureError
from d3d12wl.model import description
from d3d12wl.model.state import BufferResource, DescriptorHeap, DispatchListCall, ExecuteIndirectCall


def example_dict() -> dict[str, Any]:
    text = resources.files("d3d12wl").joinpath("examples/culling_capture.json").read_text(encoding="utf-8")
    return json.loads(text)


#: A Tier 2 capture exercising what the culling example does not: array bind with a raytracing binding, a
#: validation program table, root constants and a descriptor table, IA bindings, heaps, DispatchList1.
def tier2_dict() -> dict[str, Any]:
    return {
        "version": 1,
        "device": {"Tier": "TIER_2", "DispatchRaysSupported": True},
        "root_signatures": {"GRS": {"pParameters": [
            {"ParameterType": "32BIT_CONSTANTS", "Constants": {"Num32BitValues": 3}},
            {"ParameterType": "DESCRIPTOR_TABLE", "DescriptorTable": {"pDescriptorRanges": [
                {"RangeType": "SRV", "NumDescriptors": 1}]}},
            {"ParameterType": "UAV"},
        ]}},
        "program_command_signatures": {"PCS": {
            "pArgumentDescs": [{"Type": "DISPATCH", "Source": "PRIMARY_RECORD"}], "pGlobalRootSignature": "GRS"}},
        "work_list_signatures": {"WLS": {"pProgramCommandSignatures": ["PCS"]}},
        "work_list_signature_arrays": {"ARR": {"pSignatures": ["WLS", "WLS"]}},
        "command_signatures": {"EI": {"ByteStride": 12, "pArgumentDescs": [{"Type": "DISPATCH"}]}},
        "memory": [
            {"name": "input", "base": "0x10000", "hex": "00" * 40},
            {"name": "scratch", "base": 0x20000, "zeros": 64, "writable": True},
            {"name": "b64", "base": "0x30000", "base64": "AAECAw=="},
        ],
        "state": {
            "program": {"Type": "WORK_LIST1", "WorkList1": {
                "pSignatureArray": "ARR", "NumBindings": 2,
                "pBindings": [
                    {"Type": "PROGRAM_TABLE", "ProgramTable": {
                        "Table": {"StartAddress": "0x40000", "SizeInBytes": 64, "StrideInBytes": 32},
                        "SlotCount": 2}},
                    {"Type": "RAYTRACING", "pRaytracing": {
                        "pRaytracingStateObject": "RTPSO",
                        "RayGenerationShaderRecord": {"StartAddress": "0x50000", "SizeInBytes": 64},
                        "MissShaderTable": {"StartAddress": "0x51000", "SizeInBytes": 64, "StrideInBytes": 64}}},
                ],
                "ValidationProgramTable": {"Table": {"StartAddress": "0x60000", "SizeInBytes": 96,
                                                     "StrideInBytes": 32}, "SlotCount": 3},
                "SignatureSelectionValidationProgramTableIndex": 1}},
            "compute_root_signature": "GRS",
            "compute_root_arguments": {"0": {"Constants": [1, 2, "0x3"]}, "1": {"DescriptorTable": "0x9000"},
                                       "2": {"Descriptor": "0x70000"}},
            "vertex_buffers": {"0": {"BufferLocation": "0x80000", "SizeInBytes": 256, "StrideInBytes": 16},
                               "31": {"BufferLocation": "0x81000", "SizeInBytes": 16, "StrideInBytes": 16}},
            "index_buffer": {"BufferLocation": "0x90000", "SizeInBytes": 64, "Format": "R16_UINT"},
            "descriptor_heaps": {"CBV_SRV_UAV": True},
        },
        "call": {"DispatchList1": {"DispatchListInput": "0x10000", "MaxGraphicsPrimaryLists": 0,
                                   "MaxGraphicsProgramInputsPerPrimaryList": 0}},
    }


def _same(a: Capture, b: Capture) -> None:
    assert a.version == b.version and a.version in CAPTURE_VERSIONS
    assert a.device == b.device
    assert description.dump(a.objects) == description.dump(b.objects)
    ra, rb = a.memory.regions, b.memory.regions
    assert [(r.name, r.base, r.size, r.writable) for r in ra] == [(r.name, r.base, r.size, r.writable) for r in rb]
    assert all(bytes(x.data) == bytes(y.data) for x, y in zip(ra, rb, strict=True))
    assert a.state == b.state
    assert a.call == b.call


# ----------------------------------------------------------------------------------------------------------------
# The bundled example and round trips
# ----------------------------------------------------------------------------------------------------------------


def test_bundled_example_is_the_spec_culling_capture() -> None:
    """Spec "GPU culling and work list emission": Tier 1 direct bind, 48-byte program table, DispatchList(.., 3)."""
    c = load_capture(example_dict())
    assert c.device.Tier == abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1")
    assert isinstance(c.call, DispatchListCall) and not c.call.tier2
    assert c.call.MaxGraphicsProgramInputsPerPrimaryList == 3
    assert c.state.program is not None
    assert c.state.program.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST")
    assert c.state.program.WorkList.pSignature is c.objects.work_list_signatures["WLS"]
    table = c.state.program.WorkList.Binding.ProgramTable
    assert table.Table.StrideInBytes == 48 and table.SlotCount == 64  # kProgramTableByteStride, kProgramTableSlotCount
    assert set(c.objects.programs) == {"Opaque", "Transparent", "Shadow"}
    pcs = c.objects.program_command_signatures["PCS"]
    assert pcs.SecondaryRecordByteStride == 24
    assert pcs.pArgumentDescs[0].ShaderResourceView.RootParameterIndex == 1
    assert sum(r.size for r in c.memory.regions) < 100 * 1024


def test_bundled_example_is_up_to_date_with_its_generator() -> None:
    import subprocess
    import sys

    tool = Path(__file__).resolve().parent.parent / "tools" / "make_example_capture.py"
    if not tool.exists():
        pytest.skip("source checkout only")
    assert subprocess.run([sys.executable, str(tool), "--check"], capture_output=True).returncode == 0


def test_bundled_example_fits_the_json_schema() -> None:
    assert schema_errors(example_dict()) == []
    assert schema_errors(tier2_dict()) == []


@pytest.mark.parametrize("make", [example_dict, tier2_dict])
def test_load_save_round_trip(tmp_path: Path, make: Callable[[], dict[str, Any]]) -> None:
    first = load_capture(make(), base_dir=tmp_path)
    path = save_capture(first, tmp_path / "c.json")
    second = load_capture(path)
    _same(first, second)
    assert second.path == path
    # saving is deterministic and idempotent
    again = save_capture(second, tmp_path / "d.json")
    assert again.read_text() == path.read_text()
    assert schema_errors(json.loads(path.read_text())) == []


def test_execute_indirect_round_trip(tmp_path: Path) -> None:
    d = tier2_dict()
    d["call"] = {"ExecuteIndirect": {"pCommandSignature": "EI", "MaxCommandCount": 4, "pArgumentBuffer": "0x20000",
                                     "ArgumentBufferOffset": 16, "pCountBuffer": "0x30000", "CountBufferOffset": 0}}
    c = load_capture(d)
    assert isinstance(c.call, ExecuteIndirectCall)
    assert c.call.ArgumentBuffer == 0x20010 and c.call.CountBuffer == 0x30000
    assert c.call.pCommandSignature is c.objects.command_signatures["EI"]
    _same(c, load_capture(save_capture(c, tmp_path / "ei.json")))
    d["call"]["ExecuteIndirect"]["pCountBuffer"] = None
    assert load_capture(d).call.CountBuffer is None  # type: ignore[union-attr]


def _ei_v2() -> dict[str, Any]:
    """A version 2 capture: ExecuteIndirect's buffers given as their resources."""
    d = tier2_dict()
    d["version"] = 2
    d["call"] = {"ExecuteIndirect": {
        "pCommandSignature": "EI", "MaxCommandCount": 4, "ArgumentBufferOffset": 16, "CountBufferOffset": 4,
        "pArgumentBuffer": {"GPUVirtualAddress": "0x20000", "Width": 4096, "State": "INDIRECT_ARGUMENT"},
        "pCountBuffer": {"GPUVirtualAddress": "0x30000", "Width": 8, "State": ["INDIRECT_ARGUMENT", "COPY_SOURCE"]}}}
    return d


def test_version_2_buffer_resources_round_trip(tmp_path: Path) -> None:
    """Version 2: pArgumentBuffer / pCountBuffer may be the resource (GetGPUVirtualAddress(), D3D12_RESOURCE_DESC::
    Width, the state at the call), read at GPUVirtualAddress + the offset; a capture that gives a resource saves as
    version 2, one that gives none as version 1 (readable by every d3d12wl that reads version 1)."""
    c = load_capture(_ei_v2())
    assert c.version == 2 and isinstance(c.call, ExecuteIndirectCall)
    state = abi.enum_value("D3D12_RESOURCE_STATES", "INDIRECT_ARGUMENT")
    assert c.call.ArgumentBuffer == 0x20010 and c.call.CountBuffer == 0x30004
    assert c.call.ArgumentBufferResource == BufferResource(0x20000, 4096, state)
    assert c.call.CountBufferResource == BufferResource(
        0x30000, 8, state | abi.enum_value("D3D12_RESOURCE_STATES", "COPY_SOURCE"))
    path = save_capture(c, tmp_path / "v2.json")
    saved = json.loads(path.read_text())
    assert saved["version"] == 2 and schema_errors(saved) == []
    assert saved["call"]["ExecuteIndirect"]["pArgumentBuffer"] == {"GPUVirtualAddress": "0x20000", "Width": 4096,
                                                                   "State": "INDIRECT_ARGUMENT"}
    assert saved["call"]["ExecuteIndirect"]["pCountBuffer"]["State"] == ["INDIRECT_ARGUMENT", "COPY_SOURCE"]
    assert saved["call"]["ExecuteIndirect"]["ArgumentBufferOffset"] == 16
    _same(c, load_capture(path))
    c.call.ArgumentBufferResource = c.call.CountBufferResource = None
    assert json.loads(save_capture(c, tmp_path / "v1.json").read_text())["version"] == 1
    c.call.ArgumentBufferResource = BufferResource(0x20020, 64)
    with pytest.raises(CaptureError) as e:
        save_capture(c, tmp_path / "below.json")
    assert e.value.where == "call.ExecuteIndirect.pArgumentBuffer" and "lies before" in str(e.value)


@pytest.mark.parametrize("state, value", [("GENERIC_READ", 0xAC3), (0x200, 0x200), (["COMMON"], 0),
                                          ("D3D12_RESOURCE_STATE_INDIRECT_ARGUMENT", 0x200)])
def test_resource_state_forms(state: Any, value: int) -> None:
    """State: a D3D12_RESOURCE_STATES member name (full or short), a list of names, or an integer."""
    d = _ei_v2()
    d["call"]["ExecuteIndirect"]["pArgumentBuffer"]["State"] = state
    assert schema_errors(d) == []
    call = load_capture(d).call
    assert isinstance(call, ExecuteIndirectCall) and call.ArgumentBufferResource is not None
    assert call.ArgumentBufferResource.State == value


RESOURCE_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("resource in version 1", lambda d: d.update(version=1), "call.ExecuteIndirect.pArgumentBuffer"),
    ("resource without Width", lambda d: d["call"]["ExecuteIndirect"]["pArgumentBuffer"].pop("Width"),
     "call.ExecuteIndirect.pArgumentBuffer.Width"),
    ("unknown resource member", lambda d: d["call"]["ExecuteIndirect"]["pCountBuffer"].update(Dimension="BUFFER"),
     "call.ExecuteIndirect.pCountBuffer.Dimension"),
    ("unknown state name", lambda d: d["call"]["ExecuteIndirect"]["pCountBuffer"].update(
        State=["INDIRECT_ARGUMENT", "INDIRECT_ARGS"]), "call.ExecuteIndirect.pCountBuffer.State[1]"),
    ("resource leaves the VA space", lambda d: d["call"]["ExecuteIndirect"]["pArgumentBuffer"].update(
        GPUVirtualAddress="0xffffffffffffff00"), "call.ExecuteIndirect.pArgumentBuffer.Width"),
]


@pytest.mark.parametrize("name, mutate, where", RESOURCE_CASES, ids=[c[0] for c in RESOURCE_CASES])
def test_malformed_buffer_resource_rejected_with_path(name: str, mutate: Callable[[dict[str, Any]], Any],
                                                     where: str) -> None:
    d = _ei_v2()
    mutate(d)
    with pytest.raises(CaptureError) as e:
        load_capture(d)
    assert e.value.where == where, str(e.value)
    if name == "resource in version 1":
        assert "needs capture version 2" in str(e.value)
        assert schema_errors(d) != []  # the schema says so too


def test_version_3_command_list_state_round_trip(tmp_path: Path) -> None:
    """Version 3: the state may give command_list_type (a D3D12_COMMAND_LIST_TYPE) and in_render_pass; a capture
    saves as version 3 only when one differs from what every older version means (a direct command list outside a
    render pass), and versions 1 and 2 keep loading as exactly that."""
    cl_type = "D3D12_COMMAND_LIST_TYPE"
    for old in (tier2_dict(), _ei_v2()):
        c = load_capture(old)
        assert c.version in (1, 2)
        assert c.state.command_list_type == abi.enum_value(cl_type, "DIRECT") and not c.state.in_render_pass
        saved = json.loads(save_capture(c, tmp_path / "old.json").read_text())
        assert saved["version"] == old["version"] and not set(COMMAND_LIST_MEMBERS) & set(saved["state"])
    c = load_capture(tier2_dict())
    c.state.command_list_type = abi.enum_value(cl_type, "COMPUTE")
    assert format_version(c) == COMMAND_LIST_VERSION == 3
    saved = json.loads(save_capture(c, tmp_path / "compute.json").read_text())
    assert saved["version"] == 3 and saved["state"]["command_list_type"] == "COMPUTE" and schema_errors(saved) == []
    assert "in_render_pass" not in saved["state"]
    back = load_capture(tmp_path / "compute.json")
    assert back.version == 3 and back.state.command_list_type == abi.enum_value(cl_type, "COMPUTE")
    c.version = 3
    _same(c, back)
    c.state.command_list_type = abi.enum_value(cl_type, "DIRECT")
    c.state.in_render_pass = True
    saved = json.loads(save_capture(c, tmp_path / "pass.json").read_text())
    assert saved["version"] == 3 and saved["state"]["in_render_pass"] is True and schema_errors(saved) == []
    assert "command_list_type" not in saved["state"]
    assert load_capture(tmp_path / "pass.json").state.in_render_pass is True
    d = tier2_dict()
    d.update(version=3)
    d["state"]["command_list_type"] = "D3D12_COMMAND_LIST_TYPE_BUNDLE"
    assert schema_errors(d) == []
    assert load_capture(d).state.command_list_type == abi.enum_value(cl_type, "BUNDLE")
    d["state"]["command_list_type"] = abi.enum_value(cl_type, "COPY")
    assert load_capture(d).state.command_list_type == abi.enum_value(cl_type, "COPY")


COMMAND_LIST_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    ("command_list_type in version 1", lambda d: d["state"].update(command_list_type="COMPUTE"),
     "state.command_list_type", "needs capture version 3"),
    ("in_render_pass in version 2", lambda d: d.update(version=2) or d["state"].update(in_render_pass=False),
     "state.in_render_pass", "needs capture version 3"),
    ("unknown type", lambda d: d.update(version=3) or d["state"].update(command_list_type="GRAPHICS"),
     "state.command_list_type", "GRAPHICS"),
    ("NONE", lambda d: d.update(version=3) or d["state"].update(command_list_type="NONE"),
     "state.command_list_type", "NONE"),
    ("render pass not a boolean", lambda d: d.update(version=3) or d["state"].update(in_render_pass=1),
     "state.in_render_pass", "true or false"),
]


HEAP = {"GPUDescriptorHandleForHeapStart": "0xd0000000", "NumDescriptors": 1024, "DescriptorIncrementSize": 32}


def test_version_4_descriptor_heap_ranges_round_trip(tmp_path: Path) -> None:
    """Version 4: a state.descriptor_heaps member may be the bound heap's GPU handle range instead of true; a
    capture saves as version 4 only when it gives one, and older versions keep loading as bound / not bound."""
    for old in (tier2_dict(), _ei_v2()):
        c = load_capture(old)
        assert c.version in (1, 2) and c.state.descriptor_heaps.heap("CBV_SRV_UAV") is None
        saved = json.loads(save_capture(c, tmp_path / "old.json").read_text())
        assert saved["version"] == old["version"]
        assert all(isinstance(v, bool) for v in saved["state"]["descriptor_heaps"].values())
    c = load_capture(tier2_dict())
    c.state.descriptor_heaps.SAMPLER = True
    c.state.descriptor_heaps.CBV_SRV_UAV = DescriptorHeap(0xD000_0000, 1024, 32)
    assert format_version(c) == DESCRIPTOR_HEAP_VERSION == 4
    saved = json.loads(save_capture(c, tmp_path / "heaps.json").read_text())
    assert saved["version"] == 4 and schema_errors(saved) == []
    assert saved["state"]["descriptor_heaps"] == {"CBV_SRV_UAV": HEAP, "SAMPLER": True}
    back = load_capture(tmp_path / "heaps.json")
    assert back.version == 4 and back.state.descriptor_heaps == c.state.descriptor_heaps
    assert back.state.descriptor_heaps.bound("CBV_SRV_UAV") and back.state.descriptor_heaps.bound("SAMPLER")
    c.version = 4
    _same(c, back)
    c.state.command_list_type = abi.enum_value("D3D12_COMMAND_LIST_TYPE", "COMPUTE")  # a version 3 member too
    assert json.loads(save_capture(c, tmp_path / "both.json").read_text())["version"] == 4


def test_descriptor_heap_problem_says_outside_or_off_boundary() -> None:
    """DescriptorHeap.problem: descriptor i is start + i * increment, i < NumDescriptors (spec "_DESCRIPTOR_TABLE":
    the handle "must address the currently bound descriptor heap")."""
    heap = DescriptorHeap(0x1000, 4, 32)
    assert [heap.problem(h) for h in (0x1000, 0x1020, 0x1060)] == [None, None, None]
    assert "outside the heap [0x1000, 0x1080)" in str(heap.problem(0x1080))
    assert "outside" in str(heap.problem(0xFFF))
    assert "not on a descriptor boundary: 0x1000 + 1 * 32 + 8" in str(heap.problem(0x1028))


HEAP_CASES: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    ("heap range in version 3", lambda d: d.update(version=3) or d["state"].update(descriptor_heaps={"SAMPLER": HEAP}),
     "state.descriptor_heaps.SAMPLER", "needs capture version 4"),
    ("heap range in version 1", lambda d: d["state"].update(descriptor_heaps={"CBV_SRV_UAV": HEAP}),
     "state.descriptor_heaps.CBV_SRV_UAV", "needs capture version 4"),
    ("member missing", lambda d: d.update(version=4) or d["state"].update(descriptor_heaps={"CBV_SRV_UAV": {
        k: v for k, v in HEAP.items() if k != "NumDescriptors"}}),
     "state.descriptor_heaps.CBV_SRV_UAV.NumDescriptors", "required member is missing"),
    ("increment 0", lambda d: d.update(version=4) or d["state"].update(descriptor_heaps={"CBV_SRV_UAV": {
        **HEAP, "DescriptorIncrementSize": 0}}),
     "state.descriptor_heaps.CBV_SRV_UAV.DescriptorIncrementSize", "never 0"),
    ("past the handle space", lambda d: d.update(version=4) or d["state"].update(descriptor_heaps={"SAMPLER": {
        **HEAP, "GPUDescriptorHandleForHeapStart": "0xffffffffffffff00"}}),
     "state.descriptor_heaps.SAMPLER.NumDescriptors", "leave the 64-bit handle space"),
    ("an RTV heap", lambda d: d.update(version=4) or d["state"].update(descriptor_heaps={"RTV": HEAP}),
     "state.descriptor_heaps.RTV", "unknown member"),
]


@pytest.mark.parametrize("name, mutate, where, says", COMMAND_LIST_CASES + HEAP_CASES,
                         ids=[c[0] for c in COMMAND_LIST_CASES + HEAP_CASES])
def test_malformed_command_list_state_rejected_with_path(name: str, mutate: Callable[[dict[str, Any]], Any],
                                                         where: str, says: str) -> None:
    """The state members of versions 3 and 4: the command list's type and render-pass scope, the heaps' ranges."""
    d = tier2_dict()
    mutate(d)
    with pytest.raises(CaptureError) as e:
        load_capture(d)
    assert e.value.where == where and says in str(e.value), str(e.value)
    if "version" in name:
        assert schema_errors(d) != []  # the schema says so too


def test_version_3_unknown_to_an_older_reader_is_an_unsupported_version() -> None:
    """Version 3 is what makes an older reader say "unsupported capture version" instead of "unknown member"."""
    d = tier2_dict()
    d.update(version=max(CAPTURE_VERSIONS) + 1)
    d["state"]["command_list_type"] = "COMPUTE"
    with pytest.raises(CaptureError) as e:
        load_capture(d)
    assert e.value.where == "version" and "unsupported capture version" in str(e.value)


def test_large_regions_are_saved_as_files_and_memory_mapped(tmp_path: Path) -> None:
    c = load_capture(tier2_dict())
    c.memory.map(0x100000, bytes(range(256)) * 64, name="big table")  # 16 KiB > INLINE_LIMIT
    path = save_capture(c, tmp_path / "cap.json")
    region_json = next(r for r in json.loads(path.read_text())["memory"] if r["name"] == "big table")
    assert region_json["file"] == "cap.big_table.bin"
    assert (tmp_path / "cap.big_table.bin").read_bytes() == bytes(range(256)) * 64
    back = load_capture(path)
    big = back.memory.region_at(0x100000)
    assert big is not None and big.source == str(tmp_path / "cap.big_table.bin")  # mapped from the file
    assert back.memory.read(0x100000 + 256 + 5, 1) == b"\x05"
    _same(c, back)


def test_file_regions_are_referenced_in_place_not_copied(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "dump.bin").write_bytes(bytes(4096) + b"\xaa" * 8192)
    d = tier2_dict()
    d["memory"].append({"name": "dump", "base": "0x200000", "file": "dump.bin", "offset": 4096, "size": 8000})
    c = load_capture(d, base_dir=data_dir)
    assert c.memory.read(0x200000, 2) == b"\xaa\xaa"
    out = tmp_path / "out"
    out.mkdir()
    saved = json.loads(save_capture(c, out / "c.json").read_text())
    ref = next(r for r in saved["memory"] if r["name"] == "dump")
    assert ref == {"name": "dump", "base": "0x200000", "file": "../data/dump.bin", "offset": 4096, "size": 8000}
    assert not list(out.glob("*.bin"))
    copied = json.loads(save_capture(c, out / "copy.json", copy_files=True).read_text())
    assert next(r for r in copied["memory"] if r["name"] == "dump")["file"] == "copy.dump.bin"
    assert (out / "copy.dump.bin").read_bytes() == b"\xaa" * 8000


def test_writable_file_region_does_not_modify_the_file(tmp_path: Path) -> None:
    (tmp_path / "w.bin").write_bytes(bytes(16))
    d = tier2_dict()
    d["memory"].append({"name": "w", "base": "0x200000", "file": "w.bin", "writable": True})
    c = load_capture(d, base_dir=tmp_path)
    c.memory.write_u32(0x200000, 0xFFFFFFFF)
    assert c.memory.read_u32(0x200000) == 0xFFFFFFFF
    assert (tmp_path / "w.bin").read_bytes() == bytes(16)


def test_capture_to_dict_without_files_for_small_captures() -> None:
    c = load_capture(example_dict())
    d = capture_to_dict(c)
    assert [r["name"] for r in d["memory"]][:3] == ["pDispatchInputBuffer", "pPrimaryListBuffer",
                                                      "pProgramTableBuffer"]
    assert all("hex" in r or "zeros" in r for r in d["memory"])


def test_enum_names_in_any_documented_form() -> None:
    d = example_dict()
    d["device"]["Tier"] = "D3D12_WORK_LISTS_TIER_1"
    d["state"]["program"]["Type"] = 7
    c = load_capture(d)
    assert c.device.Tier == 10 and c.state.program is not None and c.state.program.Type == 7


# ----------------------------------------------------------------------------------------------------------------
# Malformed captures: every rejection names the JSON path
# ----------------------------------------------------------------------------------------------------------------

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    """A mutation setting the member at ``path`` (``a.b[2].c``) to ``value``."""
    import re

    parts: list[str | int] = [int(p[1:-1]) if p.startswith("[") else p for p in re.findall(r"\[\d+\]|[^.\[\]]+", path)]

    def apply(d: dict[str, Any]) -> None:
        target: Any = d
        for p in parts[:-1]:
            target = target[p]
        target[parts[-1]] = value

    return apply


def _delete(path: str) -> Mutation:
    def apply(d: dict[str, Any]) -> None:
        *head, last = path.split(".")
        target: Any = d
        for p in head:
            target = target[p]
        del target[last]

    return apply


def _do(*mutations: Mutation) -> Mutation:
    def apply(d: dict[str, Any]) -> None:
        for m in mutations:
            m(d)

    return apply


PT = "state.program.WorkList.Binding.ProgramTable"

EXAMPLE_CASES: list[tuple[str, Mutation, str]] = [
    ("version 5", _set("version", 5), "version"),
    ("version string", _set("version", "1"), "version"),
    ("version missing", _delete("version"), "version"),
    ("unknown member", _set("colour", "red"), "colour"),
    ("not an object", lambda d: d.clear() or d.update({"memory": []}), "version"),
    ("tier name", _set("device.Tier", "TIER_3"), "device.Tier"),
    ("tier missing", _delete("device.Tier"), "device.Tier"),
    ("dispatch rays not bool", _set("device.DispatchRaysSupported", "yes"), "device.DispatchRaysSupported"),
    ("max 1D dispatch bool", _set("device.Max1DDispatchSize", True), "device.Max1DDispatchSize"),
    ("memory not a list", _set("memory", {}), "memory"),
    ("region not an object", _set("memory[1]", "0x20000"), "memory[1]"),
    ("base not hex", _set("memory[2].base", "0xZZ"), "memory[2].base"),
    ("base negative", _set("memory[2].base", -1), "memory[2].base"),
    ("base above 64 bits", _set("memory[2].base", "0x10000000000000000"), "memory[2].base"),
    ("region leaves the VA space", _set("memory[2].base", "0xfffffffffffffff0"), "memory[2].base"),
    ("base missing", lambda d: d["memory"][0].pop("base"), "memory[0].base"),
    ("name duplicated", _set("memory[1].name", "pDispatchInputBuffer"), "memory[1].name"),
    ("name empty", _set("memory[1].name", ""), "memory[1].name"),
    ("unknown region member", _set("memory[0].colour", 1), "memory[0].colour"),
    ("two sources", _set("memory[0].base64", "AA=="), "memory[0]"),
    ("no source", lambda d: d["memory"][0].pop("hex"), "memory[0]"),
    ("odd hex", _set("memory[0].hex", "0"), "memory[0].hex"),
    ("hex line not a string", _set("memory[0].hex", [1]), "memory[0].hex[0]"),
    ("hex not a string", _set("memory[0].hex", 7), "memory[0].hex"),
    ("offset on an inline region", _set("memory[0].offset", 0), "memory[0].offset"),
    ("writable not bool", _set("memory[0].writable", 1), "memory[0].writable"),
    ("regions overlap", _set("memory[1].base", "0x10010"), "memory[1]"),
    ("objects: bad Source", _set("program_command_signatures.PCS.pArgumentDescs[1].Source", "NOWHERE"),
     "program_command_signatures.PCS.pArgumentDescs[1].Source"),
    ("program Type not a work list", _set("state.program.Type", "GENERIC_PIPELINE"), "state.program.Type"),
    ("program Type unknown", _set("state.program.Type", "WORK_LIST9"), "state.program.Type"),
    ("program missing Type", _delete("state.program.Type"), "state.program.Type"),
    ("signature unknown", _set("state.program.WorkList.pSignature", "Nope"), "state.program.WorkList.pSignature"),
    ("signature not a name", _set("state.program.WorkList.pSignature", 3), "state.program.WorkList.pSignature"),
    ("stride not a number", _set(f"{PT}.Table.StrideInBytes", "forty-eight"), f"{PT}.Table.StrideInBytes"),
    ("stride a float", _set(f"{PT}.Table.StrideInBytes", 48.0), f"{PT}.Table.StrideInBytes"),
    ("slot count 2^32", _set(f"{PT}.SlotCount", 2**32), f"{PT}.SlotCount"),
    ("unknown table member", _set(f"{PT}.Table.Stride", 48), f"{PT}.Table.Stride"),
    ("binding type unknown", _set("state.program.WorkList.Binding.Type", "TABLES"),
     "state.program.WorkList.Binding.Type"),
    ("union member not selected (binding)", _set("state.program.WorkList.Binding.pRaytracing", {}),
     "state.program.WorkList.Binding.pRaytracing"),
    ("union member not selected (program)", _set("state.program.WorkList1", {}), "state.program.WorkList1"),
    ("root signature unknown", _set("state.graphics_root_signature", "RS"), "state.graphics_root_signature"),
    ("root parameter out of range", _set("state.graphics_root_arguments.7", {"Descriptor": 0}),
     "state.graphics_root_arguments.7"),
    ("root parameter not an index", _set("state.graphics_root_arguments.x", {"Descriptor": 0}),
     "state.graphics_root_arguments.x"),
    ("root argument kind mismatch", _set("state.graphics_root_arguments.1", {"Constants": [1]}),
     "state.graphics_root_arguments.1.Constants"),
    ("root argument two kinds", _set("state.graphics_root_arguments.0", {"Descriptor": 0, "DescriptorTable": 0}),
     "state.graphics_root_arguments.0"),
    ("root argument VA bad", _set("state.graphics_root_arguments.0", {"Descriptor": "nowhere"}),
     "state.graphics_root_arguments.0.Descriptor"),
    ("root arguments without a root signature", _set("state.compute_root_arguments", {"0": {"Descriptor": 0}}),
     "state.compute_root_arguments"),
    ("vertex buffer slot 32", _set("state.vertex_buffers", {"32": {}}), "state.vertex_buffers.32"),
    ("vertex buffer member", _set("state.vertex_buffers", {"0": {"Stride": 4}}), "state.vertex_buffers.0.Stride"),
    ("index format", _set("state.index_buffer", {"Format": "R8_UINT"}), "state.index_buffer.Format"),
    ("heaps not bool", _set("state.descriptor_heaps", {"SAMPLER": "yes"}), "state.descriptor_heaps.SAMPLER"),
    ("unknown state member", _set("state.pipeline", None), "state.pipeline"),
    ("two calls", _set("call.DispatchList1", {"DispatchListInput": 0}), "call"),
    ("unknown call", _set("call", {"Draw": {}}), "call.Draw"),
    ("call input missing", _delete("call.DispatchList.DispatchListInput"), "call.DispatchList.DispatchListInput"),
    ("call cap 2^32", _set("call.DispatchList.MaxGraphicsProgramInputsPerPrimaryList", 2**32),
     "call.DispatchList.MaxGraphicsProgramInputsPerPrimaryList"),
    ("DispatchList with a Tier 2 parameter", _set("call.DispatchList.MaxGraphicsPrimaryLists", 1),
     "call.DispatchList.MaxGraphicsPrimaryLists"),
    ("call missing", _delete("call"), "call"),
]

TIER2_CASES: list[tuple[str, Mutation, str]] = [
    ("NumBindings mismatch", _set("state.program.WorkList1.NumBindings", 3), "state.program.WorkList1.NumBindings"),
    ("pBindings not a list", _set("state.program.WorkList1.pBindings", {}), "state.program.WorkList1.pBindings"),
    ("binding in the array", _set("state.program.WorkList1.pBindings[1].ProgramTable", {}),
     "state.program.WorkList1.pBindings[1].ProgramTable"),
    ("raytracing table member", _set("state.program.WorkList1.pBindings[1].pRaytracing.MissShaderTable.Stride", 1),
     "state.program.WorkList1.pBindings[1].pRaytracing.MissShaderTable.Stride"),
    ("signature array unknown", _set("state.program.WorkList1.pSignatureArray", "WLS"),
     "state.program.WorkList1.pSignatureArray"),
    ("root constants width", _set("state.compute_root_arguments.0", {"Constants": [1, 2]}),
     "state.compute_root_arguments.0.Constants"),
    ("root constant value", _set("state.compute_root_arguments.0", {"Constants": [1, 2, -3]}),
     "state.compute_root_arguments.0.Constants[2]"),
    ("zeros negative", _set("memory[1].zeros", -1), "memory[1].zeros"),
    ("bad base64", _set("memory[2].base64", "not base64!"), "memory[2].base64"),
    ("EI unknown command signature", _set("call", {"ExecuteIndirect": {"pCommandSignature": "X",
                                                                        "pArgumentBuffer": 0}}),
     "call.ExecuteIndirect.pCommandSignature"),
    ("EI count offset without buffer", _set("call", {"ExecuteIndirect": {
        "pCommandSignature": "EI", "pArgumentBuffer": 0, "CountBufferOffset": 4}}),
     "call.ExecuteIndirect.CountBufferOffset"),
    ("EI argument buffer missing", _set("call", {"ExecuteIndirect": {"pCommandSignature": "EI"}}),
     "call.ExecuteIndirect.pArgumentBuffer"),
    ("file region: file missing", _set("memory[0]", {"name": "f", "base": 0, "file": "nope.bin"}), "memory[0].file"),
]


@pytest.mark.parametrize("name,mutate,where", EXAMPLE_CASES, ids=[c[0] for c in EXAMPLE_CASES])
def test_malformed_example_rejected_with_path(name: str, mutate: Mutation, where: str) -> None:
    d = example_dict()
    mutate(d)
    with pytest.raises(CaptureError) as e:
        load_capture(d)
    assert e.value.where == where, str(e.value)


@pytest.mark.parametrize("name,mutate,where", TIER2_CASES, ids=[c[0] for c in TIER2_CASES])
def test_malformed_tier2_rejected_with_path(name: str, mutate: Mutation, where: str) -> None:
    d = tier2_dict()
    mutate(d)
    with pytest.raises(CaptureError) as e:
        load_capture(d)
    assert e.value.where == where, str(e.value)


def test_overlap_names_both_regions() -> None:
    d = example_dict()
    d["memory"][1]["base"] = "0x10010"
    with pytest.raises(CaptureError) as e:
        load_capture(d)
    assert "pPrimaryListBuffer" in str(e.value) and "pDispatchInputBuffer" in str(e.value)


def test_top_level_not_an_object() -> None:
    with pytest.raises(CaptureError) as e:
        load_capture([])  # type: ignore[arg-type]
    assert e.value.where == "(capture)"


def test_file_region_past_the_end_of_the_file(tmp_path: Path) -> None:
    (tmp_path / "r.bin").write_bytes(bytes(64))
    d = tier2_dict()
    d["memory"].append({"name": "r", "base": "0x200000", "file": "r.bin", "offset": 32, "size": 64})
    with pytest.raises(CaptureError) as e:
        load_capture(d, base_dir=tmp_path)
    assert e.value.where == "memory[3].size"
    d["memory"][3].update(offset=65, size=0)
    with pytest.raises(CaptureError) as e:
        load_capture(d, base_dir=tmp_path)
    assert e.value.where == "memory[3].offset"


def test_unreadable_and_invalid_json_files(tmp_path: Path) -> None:
    with pytest.raises(CaptureError) as e:
        load_capture(tmp_path / "missing.json")
    assert e.value.where == str(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 1,\n  "device": }')
    with pytest.raises(CaptureError) as e:
        load_capture(bad)
    assert e.value.where == f"{bad}:2:13"


def test_errors_from_a_file_name_the_file(tmp_path: Path) -> None:
    d = example_dict()
    d["memory"][2]["base"] = "0xZZ"
    p = tmp_path / "broken.json"
    p.write_text(json.dumps(d))
    with pytest.raises(CaptureError) as e:
        load_capture(p)
    assert e.value.where == "memory[2].base"
    assert str(p) in str(e.value)


def _leaves(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path] if path else []
    if isinstance(node, dict):
        for k, v in node.items():
            out += _leaves(v, (*path, k))
    elif isinstance(node, list):
        for i, v in enumerate(node[:3]):
            out += _leaves(v, (*path, i))
    return out


@pytest.mark.parametrize("make", [example_dict, tier2_dict])
def test_no_mutation_escapes_as_a_python_error(make: Callable[[], dict[str, Any]]) -> None:
    """design.md "Output": no bare KeyError/TypeError/ValueError reaches a user; every member replaced by values of
    the wrong type is a CaptureError (or loads, when the value happens to be acceptable)."""
    rng = random.Random(5)
    base = make()
    paths = [p for p in _leaves(base) if p[0] not in ("root_signatures", "program_command_signatures",
                                                       "work_list_signatures", "work_list_signature_arrays",
                                                       "command_signatures", "programs")]
    wrong = [None, True, -1, 2**70, "x", "0x", [], {}, [None], {"": None}, 1.5]
    for path in paths:
        for value in rng.sample(wrong, 4):
            d = copy.deepcopy(base)
            target: Any = d
            for p in path[:-1]:
                target = target[p]
            target[path[-1]] = value
            try:
                load_capture(d)
            except CaptureError as exc:
                assert exc.where, (path, value)


def test_memory_type_of_a_loaded_capture() -> None:
    c = load_capture(example_dict())
    assert isinstance(c.memory, GpuMemory)
    assert c.memory.read_u32(0x10000) == 3  # NumProgramInputs: Opaque, Transparent, Shadow


def test_large_zeros_region_is_reserved_lazily_and_saved_as_zeros(tmp_path: Path) -> None:
    """A multi-GB scratch region (``"zeros"``) loads without committing its pages and saves back as one member;
    a size the machine cannot reserve is a CaptureError with the path, not a MemoryError."""
    doc = example_dict()
    doc["memory"].append({"name": "scratch", "base": "0x100000000", "zeros": 3 << 30, "writable": True})
    capture = load_capture(doc)
    capture.memory.write_u32(0x100000000 + (2 << 30), 7)
    assert capture.memory.read_u32(0x100000000 + (2 << 30)) == 7
    out = tmp_path / "c.json"
    doc["memory"][-1]["zeros"] = 1 << 30
    save_capture(load_capture(doc), out)
    saved = json.loads(out.read_text())["memory"][-1]
    assert saved["zeros"] == 1 << 30 and "hex" not in saved and not list(tmp_path.glob("*.bin"))
    doc["memory"][-1]["zeros"] = 1 << 62
    with pytest.raises(CaptureError, match="zeros"):
        load_capture(doc)
