"""The lowering held to the reference executor through the CPU model of the GPU harness's recording shaders
(d3d12wl.vulkan.case, d3d12wl.vulkan.harness; docs/vulkan.md), the harness's case file, and the C harness's
declarations and shaders (tools/gpu/)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture, load_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute
from d3d12wl.executor.trace import Limits
from d3d12wl.model import description
from d3d12wl.model.state import CommandListState, DeviceCaps, ExecuteIndirectCall, RootArgument
from d3d12wl.records import packers
from d3d12wl.vulkan import IndexInputMode, LoweringError, TokenType, lower_capture
from d3d12wl.vulkan.captures import (
    build_big_capture,
    build_compute_capture,
    build_indexed_capture,
    build_inherited_capture,
    build_pointer_capture,
)
from d3d12wl.vulkan.case import compare_records, model_records, read_case, write_case
from d3d12wl.vulkan.harness import case_of, expected_records
from d3d12wl.vulkan.vk import ShaderStage

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
GPU_DIR = Path(__file__).resolve().parent.parent / "tools" / "gpu"


def example(name: str) -> Capture:
    return load_capture(EXAMPLES / f"{name}_capture.json")


# --------------------------------------------------------------------------------------------------------------
# The lowering against the executor: the harness's records, modelled on the CPU
# --------------------------------------------------------------------------------------------------------------

CASES = {
    "culling": lambda: example("culling"),
    "execute_indirect": lambda: example("execute_indirect"),
    "big": lambda: build_big_capture(2048, per_record=128, programs=4),
    "compute": build_compute_capture,
    "indexed": build_indexed_capture,
    "inherited": build_inherited_capture,
    "empty_draws": lambda: build_big_capture(512, per_record=64, programs=3, empty_every=5),
    "pointers": build_pointer_capture,
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_lowering_agrees_with_the_executor(name: str) -> None:
    """What the GPU must record if it executes the lowered sequences as the Vulkan spec says
    (case.model_records) equals what the executor's trace says each execution receives (harness.expected_records),
    execution by execution: program, every root argument, the draw or dispatch arguments."""
    cap = CASES[name]()
    low = lower_capture(cap, sequence_index=True)
    trace = execute(cap, Limits(max_executions=1 << 20, max_records=1 << 20)).to_dict()
    assert trace["findings"] == []
    result = compare_records(model_records(case_of(low)), expected_records(trace, low))
    assert result["compared"] == len(trace["executions"]) == low.count > 0
    assert result["mismatches"] == 0, result["first_mismatches"]
    if name == "empty_draws":  # a draw of 0 vertices runs no invocation: its record stays zero on both sides
        assert result["no_invocation"] == 512 // 5


def test_record_pointers_agree_with_the_executor() -> None:
    """The three record pointers as the spec defines them: "_PROGRAM_TABLE_POINTER" is the binding's
    ProgramTable.StartAddress (the shader reaches its slot itself from ProgramTableIndex and the stride), not the
    slot's address; "_PRIMARY_RECORD_POINTER" / "_SECONDARY_RECORD_POINTER" the current record's VA."""
    cap = build_pointer_capture()
    low = lower_capture(cap, sequence_index=True)
    assert low.layout is not None
    table_va = cap.state.program.WorkList.Binding.ProgramTable.Table.StartAddress
    pcs = cap.objects.program_command_signatures["PCS"]
    by_type = {a.type_name: i for i, a in enumerate(pcs.pArgumentDescs)}
    pt = low.layout.token(by_type["PROGRAM_TABLE_POINTER"])
    got = np.ascontiguousarray(low.sequences[:, pt.offset:pt.offset + 8]).view("<u8").reshape(-1)
    assert got.tolist() == [table_va] * low.count
    trace = execute(cap).to_dict()
    assert trace["findings"] == []
    result = compare_records(model_records(case_of(low)), expected_records(trace, low))
    assert result["compared"] == low.count == 12 and result["mismatches"] == 0, result["first_mismatches"]


def test_tier2_chain_lists_agree_with_the_executor() -> None:
    """Each list of the chain against the executor's executions of that list (list_index), its counter restarting
    at 0 per list as the spec's "Incrementing constant semantics" say."""
    cap = example("tier2_chain")
    low = lower_capture(cap, sequence_index=True)
    trace = execute(cap).to_dict()
    assert trace["findings"] == []
    for i, lst in enumerate(low.lists):
        result = compare_records(model_records(case_of(lst)), expected_records(trace, lst, list_index=i))
        assert result["compared"] == lst.count > 0 and result["mismatches"] == 0, result
    assert sum(lst.count for lst in low.lists) == len(trace["executions"])


@pytest.mark.parametrize("pcs, arg, list_index", [("PCS_Draw", 1, 1), ("PCS_Cull", 0, 0)])
def test_incrementing_constant_reset_per_secondary_list(pcs: str, arg: int, list_index: int) -> None:
    """_RESET_PER_SECONDARY_LIST restarts the counter at each primary record's secondary list of a hybrid signature
    (PCS_Draw: a push constant of the index within the secondary list) and does nothing to a fully-inline one
    (PCS_Cull: still the sequence index), as the spec's "Incrementing constant semantics" say."""
    cap = example("tier2_chain")
    ic = cap.objects.program_command_signatures[pcs].pArgumentDescs[arg]
    ic.IncrementingConstant.Flags = abi.enum_value("D3D12_INCREMENTING_CONSTANT_FLAGS", "RESET_PER_SECONDARY_LIST")
    low = lower_capture(cap, sequence_index=True).lists[list_index]
    assert low.layout is not None
    want = TokenType.PUSH_CONSTANT if pcs == "PCS_Draw" else TokenType.SEQUENCE_INDEX
    assert low.layout.token(arg).type is want
    trace = execute(cap).to_dict()
    result = compare_records(model_records(case_of(low)), expected_records(trace, low, list_index=list_index))
    assert result["compared"] == low.count and result["mismatches"] == 0, result


def test_a_wrong_sequence_byte_is_a_mismatch() -> None:
    """The comparison can fail: one flipped tint byte in the lowered sequences is one mismatched record."""
    cap = example("culling")
    low = lower_capture(cap, sequence_index=True)
    want = expected_records(execute(cap).to_dict(), low)
    low.sequences = low.sequences.copy()
    low.sequences[4, 12] ^= 1  # sequence 4 (Transparent), first tint byte
    result = compare_records(model_records(case_of(low)), want)
    assert result["mismatches"] == 1
    assert result["first_mismatches"][0]["sequence"] == 4
    assert list(result["first_mismatches"][0]["fields"]) == ["push_dword4"]


def test_nothing_to_run_without_a_lowering() -> None:
    cap = example("culling")
    cap.objects.program_command_signatures["PCS"].pArgumentDescs[0].Type = abi.enum_value(
        "D3D12_INDIRECT_ARGUMENT_TYPE", "DESCRIPTOR_TABLE")
    with pytest.raises(LoweringError, match="not lowered"):
        case_of(lower_capture(cap, sequence_index=True))
    with pytest.raises(LoweringError, match="sequence-index slot"):
        case_of(lower_capture(example("culling")))


def test_case_file_round_trip(tmp_path: Path) -> None:
    case = case_of(lower_capture(example("execute_indirect"), sequence_index=True))
    back = read_case(write_case(case, tmp_path / "ei.case"))
    assert back.to_bytes() == case.to_bytes()
    assert np.array_equal(model_records(back), model_records(case))
    assert back.vertex_bytes == 0x100  # the largest SizeInBytes of the three vertex buffer views


def test_case_header_carries_the_view_offsets_the_harness_relocates(tmp_path: Path) -> None:
    """harness.c rewrites each VERTEX_BUFFER / INDEX_BUFFER token's view (BufferLocation, SizeInBytes); where
    SizeInBytes lies comes from the compiled headers, in the case header (DWORDs 12 and 13), not a literal in C."""
    case = case_of(lower_capture(build_indexed_capture(), sequence_index=True))
    header = np.frombuffer(write_case(case, tmp_path / "i.case").read_bytes(), dtype="<u4", count=16)
    assert int(header[1]) == 2
    assert int(header[12]) == abi.offsetof("D3D12_VERTEX_BUFFER_VIEW", "SizeInBytes")
    assert int(header[13]) == abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "SizeInBytes")
    text = (GPU_DIR / "harness.c").read_text(encoding="utf-8")
    assert "p + 8" not in text and "c.vbv_size_offset" in text and "c.ibv_size_offset" in text


# --------------------------------------------------------------------------------------------------------------
# The C harness's declarations and the shaders
# --------------------------------------------------------------------------------------------------------------

def _declared(prefix: str) -> dict[str, int]:
    text = (GPU_DIR / "dgc_ext.h").read_text(encoding="utf-8")
    return {m.group(1): int(m.group(2), 0) for m in re.finditer(rf"#define {prefix}(\w+) (0x[0-9a-fA-F]+|\d+)u\b", text)}


def test_token_values_agree_with_the_c_harness() -> None:
    assert _declared("DGC_TOKEN_") == {t.name: int(t) for t in TokenType}


def test_input_modes_agree_with_the_c_harness() -> None:
    """VkIndirectCommandsInputModeFlagBitsEXT: the INDEX_BUFFER token's mode, which the case file carries."""
    assert _declared("DGC_INPUT_MODE_") == {m.name: int(m) for m in IndexInputMode}


def test_shader_stages_agree_with_the_vulkan_headers() -> None:
    """VkShaderStageFlagBits: the harness takes them from the system's vulkan_core.h (Debian's libvulkan-dev),
    d3d12wl.vulkan.vk states them: the same values."""
    header = Path("/usr/include/vulkan/vulkan_core.h")
    if not header.is_file():
        if os.environ.get("CI"):
            pytest.fail("libvulkan-dev is not installed (/usr/include/vulkan/vulkan_core.h)")
        pytest.skip("libvulkan-dev is not installed")
    text = header.read_text(encoding="utf-8")
    for stage in ShaderStage:
        assert stage.name is not None
        m = re.search(rf"VK_SHADER_STAGE_{stage.name}_BIT(?:_EXT)? = (0x[0-9a-fA-F]+)", text)
        assert m is not None and int(m.group(1), 16) == int(stage), stage


@pytest.mark.skipif(shutil.which("glslc") is None, reason="glslc not installed")
@pytest.mark.parametrize("shader", ["record.vert", "record.comp", "walk.comp"])
def test_recording_shaders_compile(shader: str, tmp_path: Path) -> None:
    out = tmp_path / f"{shader}.spv"
    subprocess.run(["glslc", "--target-env=vulkan1.3", "-O", str(GPU_DIR / shader), "-o", str(out)], check=True)
    assert out.read_bytes()[:4] == b"\x03\x02\x23\x07"  # the SPIR-V magic number, little endian


def test_harness_compiles_and_checks_the_device_limits(tmp_path: Path) -> None:
    """harness.c compiles (gcc -Wall -Wextra -Werror, syntax only: no Vulkan loader needed) and refuses a case past
    a device limit before creating anything, exit 2 naming the limit (no GPU here: the checks are read off the
    source, one die() per limit)."""
    if shutil.which("gcc") is None or not Path("/usr/include/vulkan/vulkan_core.h").is_file():
        if os.environ.get("CI"):
            pytest.fail("gcc and libvulkan-dev are needed to compile tools/gpu/harness.c")
        pytest.skip("gcc or libvulkan-dev not installed")
    subprocess.run(["gcc", "-O2", "-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers", "-fsyntax-only",
                    str(GPU_DIR / "harness.c")], check=True)
    text = (GPU_DIR / "harness.c").read_text(encoding="utf-8")
    body = text[text.index("static void check_limits"):text.index("static void run_case")]
    for limit in ("maxPushConstantsSize", "maxIndirectCommandsTokenCount", "maxIndirectCommandsIndirectStride",
                  "maxIndirectCommandsTokenOffset", "supportedIndirectCommandsInputModes", "maxVertexInputBindings",
                  "maxComputeWorkGroupCount"):
        assert f'die("limit {limit}' in body, limit
    assert "check_limits(&g, &c);" in text
    assert 'die("limit maxIndirectSequenceCount' in body
    assert "batch" not in text  # the batching loop that could only ever run one batch is gone
    assert 'die("limit maxComputeWorkGroupCount[0]' in text  # the walker's one workgroup per primary record


def root_views_capture() -> Capture:
    """ExecuteIndirect with root CBV and UAV arguments (8-byte push constants holding the VAs) and a root SRV
    from the command list."""
    objects = description.load({
        "root_signatures": {"RS": {"pParameters": [
            {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
            {"ParameterType": "SRV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"},
            {"ParameterType": "UAV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"}]}},
        "command_signatures": {"Views": {"ByteStride": 32, "pArgumentDescs": [
            {"Type": "CONSTANT_BUFFER_VIEW", "ConstantBufferView": {"RootParameterIndex": 0}},
            {"Type": "UNORDERED_ACCESS_VIEW", "UnorderedAccessView": {"RootParameterIndex": 2}},
            {"Type": "DRAW"}], "pRootSignature": "RS"}}})
    cs = objects.command_signatures["Views"]
    k = np.arange(5, dtype=np.uint64)
    args = packers.pack_execute_indirect(cs, {
        "arg0_ConstantBufferView": 0x1_0000_0000 + k * 0x100, "arg1_UnorderedAccessView": 0x2_0000_0000 + k,
        "arg2_Draw.VertexCountPerInstance": 3, "arg2_Draw.InstanceCount": 1,
        "arg2_Draw.StartVertexLocation": (k * 3).astype(np.uint32), "arg2_Draw.StartInstanceLocation": 0})
    memory = GpuMemory()
    memory.map(0x20000, args.tobytes(), name="pArgumentBuffer")
    state = CommandListState(graphics_root_signature=cs.pRootSignature,
                             graphics_root_arguments={1: RootArgument("descriptor", value=0x7000)})
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    call = ExecuteIndirectCall(pCommandSignature=cs, MaxCommandCount=5, ArgumentBuffer=0x20000)
    return Capture(CAPTURE_VERSION, device, objects, memory, state, call)


def test_execute_indirect_root_views_are_push_constants() -> None:
    cap = root_views_capture()
    low = lower_capture(cap, sequence_index=True)
    lay = low.layout
    assert lay is not None
    assert [(t.type.name, t.offset, t.size, t.push_offset) for t in lay.tokens] == [
        ("PUSH_CONSTANT", 0, 8, 0), ("PUSH_CONSTANT", 8, 8, 16), ("SEQUENCE_INDEX", 32, 4, 24), ("DRAW", 16, 16, None)]
    assert low.initial_push_constants[8:16] == (0x7000).to_bytes(8, "little")
    result = compare_records(model_records(case_of(low)), expected_records(execute(cap).to_dict(), low))
    assert result["compared"] == 5 and result["mismatches"] == 0
