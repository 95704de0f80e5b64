"""The lowering held to the reference executor through the CPU model of the GPU harness's recording shaders
(d3d12wl.vulkan.case, d3d12wl.vulkan.harness; docs/vulkan.md), the refusals of calls the harness cannot represent,
the case file, and the C harness's declarations, its address checks (run here with no GPU: ``--check``) and its
shaders (tools/gpu/)."""

from __future__ import annotations

import os
import random
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from executor_builder import patched
from remap_cases import explicit_local_root_signature

from d3d12wl import abi
from d3d12wl.capture.file import CAPTURE_VERSION, Capture, load_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.model import description
from d3d12wl.model.state import CommandListState, DeviceCaps, ExecuteIndirectCall, RootArgument
from d3d12wl.records import packers
from d3d12wl.vulkan import IndexInputMode, LoweringError, TokenType, fetch, harness, lower_capture
from d3d12wl.vulkan import case as case_module
from d3d12wl.vulkan.captures import (
    build_big_capture,
    build_big_ei_capture,
    build_compute_capture,
    build_indexed_capture,
    build_inherited_capture,
    build_pointer_capture,
)
from d3d12wl.vulkan.captures_ia import VB1_VA, build_ia_capture, build_inherited_ia_capture, build_robust_ia_capture
from d3d12wl.vulkan.captures_signatures import (
    build_explicit_capture,
    build_mesh_capture,
    build_mixed_capture,
    build_table_capture,
)
from d3d12wl.vulkan.case import REGION_IDENTITY, REGION_ZEROS, compare_records, model_records, read_case, write_case
from d3d12wl.vulkan.harness import HarnessRefusal, Prepared, case_of, expected_records, prepare_case
from d3d12wl.vulkan.vk import ShaderStage

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
GPU_DIR = Path(__file__).resolve().parent.parent / "tools" / "gpu"


def example(name: str) -> Capture:
    return load_capture(EXAMPLES / f"{name}_capture.json")


# --------------------------------------------------------------------------------------------------------------
# The lowering against the executor: the harness's records, modelled on the CPU
# --------------------------------------------------------------------------------------------------------------

CASES: dict[str, Callable[[], Capture]] = {
    "culling": lambda: example("culling"),
    "execute_indirect": lambda: example("execute_indirect"),
    "tier2_chain": lambda: example("tier2_chain"),
    "big": lambda: build_big_capture(2048, per_record=128, programs=4),
    "compute": build_compute_capture,
    "indexed": build_indexed_capture,
    "inherited": build_inherited_capture,
    "empty_draws": lambda: build_big_capture(512, per_record=64, programs=3, empty_every=5),
    "pointers": build_pointer_capture,
    "mixed": lambda: build_mixed_capture(tier=1),
    "mixed_tier2": lambda: build_mixed_capture(tier=2),
    "tables": build_table_capture,
    "mesh": build_mesh_capture,
    "ia": build_ia_capture,
    "ia_inherited_ib": lambda: build_ia_capture(index_buffer="command_list"),
    "inherited_ia": build_inherited_ia_capture,
    "inherited_null_ib": lambda: build_inherited_ia_capture(index_buffer=False),
    "robust_ia": build_robust_ia_capture,
    "explicit": build_explicit_capture,
    "explicit_compute": explicit_local_root_signature,
    "tier2_direct_bind": lambda: _breaker_capture("direct_bind_signature_index"),  # DispatchList1, SetWorkListDesc
    "big_ei": lambda: build_big_ei_capture(500),
}


def _breaker_capture(name: str, seed: int = 0) -> Capture:
    """The call a breaker of tests/call_requirements.py makes that keeps its requirement."""
    import breakers_ei  # noqa: F401 - registers the ExecuteIndirect breakers
    import breakers_wl  # noqa: F401 - registers the Work Lists breakers
    from call_requirements import BREAKERS

    c = next(b for b in BREAKERS if b.name == name).build(random.Random(seed), False)
    return Capture(CAPTURE_VERSION, c.device, c.objects, c.memory, c.state, c.call)


def held_to_the_executor(cap: Capture, max_sequences: int | None = None) -> tuple[Prepared, dict[str, object]]:
    low = lower_capture(cap, sequence_index=True, max_sequences=max_sequences)
    prep = prepare_case(low, cap.memory)
    trace = execute(cap)
    assert trace.findings == []
    want = expected_records(execution_columns(trace.executions), low, prep, cap.memory)
    model = model_records(prep.case)
    assert np.array_equal(model.invocations_min, want.invocations_min)
    result = compare_records(model.records, want.records)
    assert result["compared"] == len(trace.executions) == low.count > 0
    return prep, result


@pytest.mark.parametrize("max_sequences", [None, 7])
@pytest.mark.parametrize("name", sorted(CASES))
def test_lowering_agrees_with_the_executor(name: str, max_sequences: int | None) -> None:
    """What the GPU must record if it executes the lowered sequences as the Vulkan spec says
    (case.model_records) equals what the executor's trace says each execution receives and reads
    (harness.expected_records), execution by execution: program, every root argument, the draw or dispatch
    arguments, the index values and vertex attributes fetched; in one execute per leaf, and split into executes of
    at most 7 sequences."""
    prep, result = held_to_the_executor(CASES[name](), max_sequences)
    assert result["mismatches"] == 0, result["first_mismatches"]
    if max_sequences is not None:
        assert all(count <= max_sequences for _, _, count, _ in prep.case.executes)
    if name == "empty_draws":  # a draw of 0 vertices runs no invocation: its record stays zero on both sides
        assert result["no_invocation"] == 512 // 5


@pytest.mark.parametrize("name", sorted(CASES))
def test_records_stream_chunk_by_chunk(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Both sides of the comparison made in chunks of 5 records (the unit of every comparison's memory), the
    executor's columns built 3 executions at a time (a list of several signatures spreads a chunk's executions
    wider: it is built in pieces), equal the whole tables."""
    cap = CASES[name]()
    low = lower_capture(cap, sequence_index=True, max_sequences=7)
    prep = prepare_case(low, cap.memory)
    trace = execute(cap)
    monkeypatch.setattr(harness, "EXECUTION_WINDOW", 3)
    whole = expected_records(execution_columns(trace.executions), low, prep, cap.memory)
    chunks = list(harness.expected_chunks(trace.executions, low, prep, cap.memory, chunk=5))
    assert all(len(m.records) <= 5 for _, m in chunks)
    streamed = case_module.join(chunks, prep.case.count, prep.case.record_dwords)
    assert np.array_equal(streamed.records, whole.records)
    assert np.array_equal(streamed.invocations_min, whole.invocations_min)
    model = case_module.join(case_module.model_chunks(prep.case, chunk=5), prep.case.count, prep.case.record_dwords)
    assert np.array_equal(model.records, model_records(prep.case).records)


def test_fetched_values_are_compared() -> None:
    """Real vertex and index buffers: the records carry what each draw fetched (the index values, a bloom of the
    attributes), so a vertex buffer byte the GPU would read differently is a mismatch."""
    cap = build_ia_capture()
    low = lower_capture(cap, sequence_index=True)
    prep = prepare_case(low, cap.memory)
    assert "vertex buffer slot 1: fetched (R32_UINT at offset 0 of every vertex)" in prep.notes
    model = model_records(prep.case)
    vb1 = np.frombuffer(cap.memory.read(VB1_VA, 1024), np.uint8).copy()
    vb1[::4] ^= 1  # the first 64 vertices of slot 1, every word: what command 0 (BaseVertexLocation 0) reads first
    patched(cap, VB1_VA, vb1.tobytes())
    trace = execute(cap)
    want = expected_records(execution_columns(trace.executions), low, prep, cap.memory)
    result = compare_records(model.records, want.records)
    assert result["mismatches"] >= 1
    assert {f for m in result["first_mismatches"] for f in m["fields"]} <= {f"vertex_bloom{k}" for k in range(4)}


def test_an_index_value_changes_the_records() -> None:
    cap = build_inherited_ia_capture()
    low = lower_capture(cap, sequence_index=True)
    before = model_records(prepare_case(low, cap.memory).case).records
    patched(cap, 0x70_0000 + 2 * 3 * 2, (9).to_bytes(2, "little"))  # draw 2's first R16 index
    after = model_records(prepare_case(low, cap.memory).case).records
    assert compare_records(after, before)["mismatches"] >= 1


def test_a_wrong_sequence_byte_is_a_mismatch() -> None:
    """The comparison can fail: one flipped tint byte in the lowered sequences is one mismatched record."""
    cap = example("culling")
    low = lower_capture(cap, sequence_index=True)
    prep = prepare_case(low, cap.memory)
    want = expected_records(execution_columns(execute(cap).executions), low, prep, cap.memory)
    prep.case.layouts[0].sequences = prep.case.layouts[0].sequences.copy()
    prep.case.layouts[0].sequences[4, 12] ^= 1  # sequence 4 (Transparent), first tint byte
    result = compare_records(model_records(prep.case).records, want.records)
    assert result["mismatches"] == 1
    assert result["first_mismatches"][0]["record"] == 4
    assert list(result["first_mismatches"][0]["fields"]) == ["push_dword4"]


def test_invocation_counts_of_indexed_draws_are_compared_as_a_range() -> None:
    """Vulkan "Vertex Shader Execution": a repeated index may reuse an invocation, so an indexed draw's count lies in
    [distinct indices x instances, indices x instances]; below or above it is a mismatch."""
    cap = build_inherited_ia_capture()
    low = lower_capture(cap, sequence_index=True)
    model = model_records(prepare_case(low, cap.memory).case)
    got = model.records.copy()
    got[:, 0] = model.invocations_min
    assert compare_records(got, model.records, invocations_min=model.invocations_min)["mismatches"] == 0
    got[0, 0] = model.invocations_min[0] - 1
    assert compare_records(got, model.records, invocations_min=model.invocations_min)["mismatches"] == 1


# --------------------------------------------------------------------------------------------------------------
# What the harness uploads, and what it refuses before anything reaches the GPU
# --------------------------------------------------------------------------------------------------------------

def test_views_outside_the_capture_get_stand_ins_and_are_not_fetched() -> None:
    """The bundled ExecuteIndirect example's vertex buffers are not in the capture: stand-ins of zeros at their VAs,
    bound but not fetched; the indexed example's index buffers stand in as identity indices."""
    prep = prepare_case(lower_capture(example("execute_indirect"), sequence_index=True),
                        example("execute_indirect").memory)
    assert {r.kind for r in prep.case.regions} == {REGION_ZEROS} and prep.case.fetch_mask == 0
    assert any("slot 0: bound, not fetched: its bytes are not in the capture" in n for n in prep.notes)
    cap = build_indexed_capture()
    prep = prepare_case(lower_capture(cap, sequence_index=True), cap.memory)
    assert [r.kind for r in prep.case.regions] == [REGION_IDENTITY]


def _ia_with(**cols: object) -> Capture:
    """build_ia_capture's objects with command 0's columns replaced."""
    cap = build_ia_capture(commands=4)
    cs = cap.call.pCommandSignature
    rows = packers.read_execute_indirect(cs, cap.memory.read(0x20000, 4 * cs.ByteStride))
    columns = packers.to_columns(rows)
    for key, value in cols.items():
        columns[key][0] = value
    return patched(cap, 0x20000, packers.pack_execute_indirect(cs, columns).tobytes())


@pytest.mark.parametrize("cols, reason", [
    ({"arg2_IndexBuffer.BufferLocation": 0x70_0001, "arg2_IndexBuffer.SizeInBytes": 64},
     "not aligned to its 2-byte indices"),
    ({"arg2_IndexBuffer.BufferLocation": 0x70_0ff0, "arg2_IndexBuffer.SizeInBytes": 64}, "only partly in the capture"),
    # the capture holds the middle of the view only (its first and last bytes are in no region): a stand-in there
    # would give the GPU identity indices where the executor's side reads the captured ones
    ({"arg2_IndexBuffer.BufferLocation": 0x6f_ff00, "arg2_IndexBuffer.SizeInBytes": 0x1200},
     "only partly in the capture"),
    ({"arg2_IndexBuffer.BufferLocation": 0xffff_ffff_ffff_ff00, "arg2_IndexBuffer.SizeInBytes": 0x200},
     "runs past the top of the GPU virtual address space"),
    ({"arg2_IndexBuffer.Format": 0}, "index buffer Format 0 is neither R16_UINT nor R32_UINT"),
    # R16 indices from 2^31: byte offset 2^32 of the view, which D3D12's 32-bit index address arithmetic wraps to
    # its start (D3D11.3 8.19.1) and Vulkan's robust reads past its end make 0
    ({"arg3_DrawIndexed.StartIndexLocation": 1 << 31}, "past 2\\^32: D3D12 computes the index address in 32 bits"),
])
def test_calls_the_harness_cannot_represent_are_refused(cols: dict[str, object], reason: str) -> None:
    """Refused with the reason, before a case exists: an index buffer the GPU cannot bind at its alignment, a view
    half in the capture, an index format Vulkan has no index type for."""
    cap = _ia_with(**cols)
    with pytest.raises(HarnessRefusal, match=reason):
        prepare_case(lower_capture(cap, sequence_index=True), cap.memory)


@pytest.mark.parametrize("cols, vi", [
    # a null index buffer view: every index is 0 (D3D11.3 8.20, "the slot being read has no Buffer bound")
    ({"arg2_IndexBuffer.BufferLocation": 0}, {0}),
    # 5000 indices from a view of 2048: the 2952 past its end read 0 (8.19.2 "Addressing Bounds")
    ({"arg3_DrawIndexed.IndexCountPerInstance": 5000}, {0} | {7 * j % 500 for j in range(2048)}),
])
def test_index_reads_past_a_view_or_through_a_null_one_read_zero(cols: dict[str, object], vi: set[int]) -> None:
    """Lowered, not refused: what the executor says each draw fetches and the lowering's model agree, the indices
    the draw fetches are the view's and then 0, and the case asks the harness for robustBufferAccess2 (under which
    Vulkan's reads past the bound range return 0, and its null views are empty ranges)."""
    cap = _ia_with(**cols)
    prep, result = held_to_the_executor(cap)
    assert result["mismatches"] == 0, result["first_mismatches"]
    assert prep.case.robust == 1 and any("robustBufferAccess2" in n for n in prep.notes)
    record = model_records(prep.case).records[0]
    assert record[6] == max(vi) + 1 and record[8] == 0xFFFFFFFF - min(vi)
    assert model_records(prep.case).invocations_min[0] == len(vi) * record[7]


@pytest.mark.parametrize("cols, note", [
    ({"arg1_VertexBuffer.SizeInBytes": 64}, "some vertices past the view or through a null view read 0"),
    ({"arg1_VertexBuffer.BufferLocation": 0}, "some vertices past the view or through a null view read 0"),
])
def test_vertices_past_a_view_or_through_a_null_one_are_fetched_as_zero(cols: dict[str, object], note: str) -> None:
    cap = _ia_with(**cols)
    prep, result = held_to_the_executor(cap)
    assert result["mismatches"] == 0, result["first_mismatches"]
    assert prep.case.fetch_mask >> 1 & 1 and prep.case.robust == 1
    assert any(n.startswith("vertex buffer slot 1: fetched") and note in n for n in prep.notes)


def test_a_partial_last_vertex_is_bound_not_fetched() -> None:
    """A view of 5 vertices and 8 bytes at a stride of 16: D3D12 reads the sixth vertex's first 4 bytes inside the
    view, Vulkan may bound the read at the view's size rounded down to the stride: not fetched, and said why."""
    cap = _ia_with(**{"arg1_VertexBuffer.SizeInBytes": 16 * 5 + 8, "arg1_VertexBuffer.StrideInBytes": 16})
    prep = prepare_case(lower_capture(cap, sequence_index=True), cap.memory)
    assert not prep.case.fetch_mask >> 1 & 1
    assert any(n.startswith("vertex buffer slot 1: bound, not fetched: a draw reads the partial last vertex")
               for n in prep.notes)


def test_push_constant_blocks_past_the_shaders_are_refused() -> None:
    doc = {"root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": 0, "Num32BitValues": 63},
         "ShaderVisibility": "ALL"}]}},
        "command_signatures": {"D": {"ByteStride": 16, "pArgumentDescs": [{"Type": "DRAW"}],
                                     "pRootSignature": "RS"}}}
    objects = description.load(doc)
    cs = objects.command_signatures["D"]
    memory = GpuMemory()
    memory.map(0x1000, packers.pack_execute_indirect(cs, {"arg0_Draw.VertexCountPerInstance": 1,
                                                          "arg0_Draw.InstanceCount": 1,
                                                          "arg0_Draw.StartVertexLocation": 0,
                                                          "arg0_Draw.StartInstanceLocation": 0}, count=1).tobytes())
    cap = Capture(CAPTURE_VERSION, DeviceCaps(), objects, memory, CommandListState(graphics_root_signature=cs.pRootSignature),
                  ExecuteIndirectCall(cs, 1, 0x1000))
    with pytest.raises(HarnessRefusal, match="push-constant block of 256 bytes"):
        case_of(lower_capture(cap, sequence_index=True), cap.memory)


def test_stand_ins_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "MAX_STAND_IN_BYTES", 1 << 16)
    cap = example("execute_indirect")  # 65,536 + 336 bytes of vertex buffers not in the capture
    with pytest.raises(HarnessRefusal, match="more than the 65536 bytes the harness stands in"):
        case_of(lower_capture(cap, sequence_index=True), cap.memory)


def test_records_past_what_the_shaders_index_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(harness, "MAX_RECORD_BYTES", 1000)
    cap = example("culling")  # 9 records of 25 DWORDs: 900 bytes
    case_of(lower_capture(cap, sequence_index=True), cap.memory)
    monkeypatch.setattr(harness, "MAX_RECORD_BYTES", 899)
    with pytest.raises(HarnessRefusal, match="9 records of 25 DWORDs: more than the 899 bytes"):
        case_of(lower_capture(cap, sequence_index=True), cap.memory)


def test_nothing_to_run_without_a_lowering() -> None:
    cap = example("validation_chain")
    with pytest.raises(HarnessRefusal, match="not lowered: call: GPU timeline validation hooks"):
        case_of(lower_capture(cap, sequence_index=True), cap.memory)
    with pytest.raises(LoweringError, match="sequence-index slot"):
        case_of(lower_capture(example("culling")), example("culling").memory)


# --------------------------------------------------------------------------------------------------------------
# The case file
# --------------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["execute_indirect", "mixed_tier2", "ia", "mesh"])
def test_case_file_round_trip(name: str, tmp_path: Path) -> None:
    cap = CASES[name]()
    case = case_of(lower_capture(cap, sequence_index=True, max_sequences=5), cap.memory)
    back = read_case(write_case(case, tmp_path / "c.case"))
    assert back.to_bytes() == case.to_bytes()
    assert np.array_equal(model_records(back).records, model_records(case).records)
    with pytest.raises(ValueError, match="bytes, expected"):
        case_module.case_from_bytes(case.to_bytes() + b"\0\0\0\0")


def test_case_header_carries_the_view_offsets_the_harness_reads(tmp_path: Path) -> None:
    """harness.c rewrites each VERTEX_BUFFER / INDEX_BUFFER token's BufferLocation and reads SizeInBytes, the stride
    and the format; where those lie comes from the compiled headers, in the case header, not a literal in C."""
    cap = build_ia_capture()
    header = np.frombuffer(write_case(case_of(lower_capture(cap, sequence_index=True), cap.memory),
                                      tmp_path / "i.case").read_bytes(), dtype="<u4", count=32)
    fields = dict(zip(case_module.HEADER_FIELDS, header.tolist(), strict=False))
    assert fields["version"] == case_module.VERSION
    assert fields["vbv_size_offset"] == abi.offsetof("D3D12_VERTEX_BUFFER_VIEW", "SizeInBytes")
    assert fields["vbv_stride_offset"] == abi.offsetof("D3D12_VERTEX_BUFFER_VIEW", "StrideInBytes")
    assert fields["ibv_size_offset"] == abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "SizeInBytes")
    assert fields["ibv_format_offset"] == abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "Format")
    assert (fields["r16_format"], fields["r32_format"]) == (abi.enum_value("DXGI_FORMAT", "R16_UINT"),
                                                            abi.enum_value("DXGI_FORMAT", "R32_UINT"))
    text = (GPU_DIR / "harness.c").read_text(encoding="utf-8")
    enum = re.search(r"enum \{ H_MAGIC, (.*?)\};", text, re.S)
    assert enum is not None  # the C names of the header DWORDs, in the order case.py writes them
    assert len(re.findall(r"H_\w+", enum.group(0))) == len(case_module.HEADER_FIELDS)
    assert f"h[H_VERSION] != {case_module.VERSION}" in text  # the version the harness reads


# --------------------------------------------------------------------------------------------------------------
# The C harness: declarations, address checks with no GPU, the shaders
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


def test_the_recording_shaders_hash_as_the_model_does() -> None:
    """record.vert's blooms use the arithmetic of fetch.hash32 / bloom_vertex / bloom_index (the constants and the
    shifts, read off the source), and record the DWORDs case.FIELD_NAMES names."""
    text = (GPU_DIR / "record.vert").read_text(encoding="utf-8")
    body = text[text.index("uint hash32"):text.index("// d3d12wl.vulkan.fetch.bloom_vertex")]
    assert re.findall(r"x \^= x >> (\d+);", body) == ["16", "15", "16"]
    assert re.findall(r"x \*= (0x[0-9A-F]+)u;", body) == ["0x7FEB352D", "0x846CA68B"]
    assert "slot * 0x9E3779B9u" in text and "& 127u" in text and "& 63u" in text
    assert fetch.hash32(np.array([1], np.uint32)).tolist() != [1]
    for dword in (9, 13):
        assert f"o.r[base + {dword}u" in text
    assert len(re.findall(r"#if \(FETCH_MASK >> (\d+)\) & 1\nlayout\(location = \1\) in uint a\1;", text)) == 32


def _compile_harness(tmp_path: Path) -> Path:
    if shutil.which("gcc") is None or not Path("/usr/include/vulkan/vulkan_core.h").is_file():
        if os.environ.get("CI"):
            pytest.fail("gcc and libvulkan-dev are needed to compile tools/gpu/harness.c")
        pytest.skip("gcc or libvulkan-dev not installed")
    out = tmp_path / "dgc_harness"
    subprocess.run(["gcc", "-O1", "-Wall", "-Wextra", "-Werror", "-Wno-missing-field-initializers", "-o", str(out),
                    str(GPU_DIR / "harness.c"), "-lvulkan"], check=True, timeout=120)
    return out


def test_harness_checks_every_address_before_the_gpu(tmp_path: Path) -> None:
    """``dgc_harness --check`` (no GPU, no Vulkan call): every view of every sequence inside an uploaded region,
    every index read inside its view, every fetched vertex inside its view; the first that is not exits 2 naming
    it.  The same checks run first in every real run."""
    exe = _compile_harness(tmp_path)
    cap = build_ia_capture(commands=8)
    case = case_of(lower_capture(cap, sequence_index=True), cap.memory)
    good = write_case(case, tmp_path / "good.case")
    ok = subprocess.run([str(exe), "--check", str(good)], capture_output=True, text=True, timeout=60)
    assert ok.returncode == 0, ok.stderr
    assert '"views_checked": 15' in ok.stdout  # 5 commands x (2 vertex buffer views + 1 index buffer view)
    lay = case.layouts[0]
    ib = next(t for t in lay.tokens if t.type == TokenType.INDEX_BUFFER)
    vb = next(t for t in lay.tokens if t.type == TokenType.VERTEX_BUFFER)
    action = lay.tokens[-1]
    for name, token, offset, value, message in [
        ("address", ib, 0, 0xDEAD_0000, "layout 0 sequence 2: the index buffer view 0xdead0000 + 3968 bytes is "
                                         "outside every uploaded region"),
        ("slot", vb, 0, 0x1234_5678, "vertex buffer slot 1's view 0x12345678"),
        ("indices", action, 0, 4000, "read past the index buffer view"),
        ("fetch", action, 12, 5000, "vertex buffer slot 0: vertex"),  # BaseVertexLocation past slot 0's vertices
    ]:
        bad = read_case(good)
        seq = bad.layouts[0].sequences.copy()
        seq[2, token.offset + offset:token.offset + offset + (8 if offset == 0 and token is not action else 4)] = \
            np.frombuffer(value.to_bytes(8 if offset == 0 and token is not action else 4, "little"), np.uint8)
        bad.layouts[0].sequences = seq
        got = subprocess.run([str(exe), "--check", str(write_case(bad, tmp_path / f"{name}.case"))],
                             capture_output=True, text=True, timeout=60)
        assert got.returncode == 2 and message in got.stderr, (name, got.stderr)
        if name in ("indices", "fetch"):  # past a view D3D12 reads 0: allowed where the case runs robust
            bad.robust = 1
            got = subprocess.run([str(exe), "--check", str(write_case(bad, tmp_path / f"{name}.robust.case"))],
                                 capture_output=True, text=True, timeout=60)
            assert got.returncode == 0, (name, got.stderr)
    null = read_case(good)  # a null index buffer view read by a live draw: only in a robust case
    seq = null.layouts[0].sequences.copy()
    seq[2, ib.offset:ib.offset + 8] = 0
    null.layouts[0].sequences = seq
    got = subprocess.run([str(exe), "--check", str(write_case(null, tmp_path / "null.case"))], capture_output=True,
                         text=True, timeout=60)
    assert got.returncode == 2 and "a null index buffer view in a case not marked robust" in got.stderr
    null.robust = 1
    got = subprocess.run([str(exe), "--check", str(write_case(null, tmp_path / "null.robust.case"))],
                         capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr


def test_harness_checks_the_device_limits() -> None:
    """harness.c refuses a case past a device limit before creating anything, exit 2 naming the limit (no GPU here:
    the checks are read off the source, one die() per limit)."""
    text = (GPU_DIR / "harness.c").read_text(encoding="utf-8")
    body = text[text.index("static void check_limits"):text.index("/* the DGC tokens' BufferLocation")]
    for limit in ("maxPushConstantsSize", "maxIndirectSequenceCount", "maxIndirectCommandsTokenCount",
                  "maxIndirectCommandsIndirectStride", "maxIndirectCommandsTokenOffset", "maxIndirectPipelineCount",
                  "supportedIndirectCommandsInputModes", "supportedIndirectCommandsShaderStages",
                  "supportedIndirectCommandsShaderStagesPipelineBinding", "maxVertexInputBindings",
                  "maxVertexInputBindingStride", "maxMeshWorkGroupTotalCount", "maxStorageBufferRange"):
        assert f'die("limit {limit}' in body, limit
    assert "maxComputeWorkGroupCount" in body and "maxMeshWorkGroupCount" in body
    run_case = text[text.index("static void run_case"):]
    # the address checks and the limits before the device exists
    assert run_case.index("check_addresses(&c)") < run_case.index("check_limits(&g, &c)") < \
        run_case.index("gpu_device(&g, mesh, (int)c.h[H_ROBUST])")


@pytest.mark.skipif(shutil.which("glslc") is None, reason="glslc not installed")
@pytest.mark.parametrize("shader, defines", [("record.vert", []), ("record.vert", ["-DFETCH_MASK=0x80000005"]),
                                             ("record.comp", []), ("record.mesh", []), ("walk.comp", [])])
def test_shaders_compile(shader: str, defines: list[str], tmp_path: Path) -> None:
    out = tmp_path / f"{shader}.spv"
    subprocess.run(["glslc", "--target-env=vulkan1.3", "-O", *defines, str(GPU_DIR / shader), "-o", str(out)],
                   check=True, timeout=120)
    assert out.read_bytes()[:4] == b"\x03\x02\x23\x07"  # the SPIR-V magic number, little endian


# --------------------------------------------------------------------------------------------------------------
# ExecuteIndirect root views
# --------------------------------------------------------------------------------------------------------------

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
    _, result = held_to_the_executor(cap)
    assert result["compared"] == 5 and result["mismatches"] == 0
