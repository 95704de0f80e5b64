"""``d3d12wl import gfxr``: GFXReconstruct's files (shaped by tests/tool_shapes.py from the writers' source, docs/
gfxreconstruct.md) -> one capture per dumped ExecuteIndirect call, nothing typed (issue 40, item 1).

Each test names what it proves: the command signature, root signature, buffers as version 2 resources, offsets,
MaxCommandCount, the argument and count bytes (before and after) and the command list's state come from the files;
what they do not hold is a finding, never a guess."""

from __future__ import annotations

import json
import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tool_shapes import ConvertFile, enum, hex_flags, hex_va, root_signature_blob, write_dump

from d3d12wl import abi
from d3d12wl.capture.file import load_capture
from d3d12wl.capture.maps import VaMap, VaRange
from d3d12wl.cli import main
from d3d12wl.executor import execute
from d3d12wl.executor.references import patch_list
from d3d12wl.executor.remap import remap
from d3d12wl.importers import ImportInputError, import_gfxr
from d3d12wl.importers.gfxr import IMPORT_FINDING_KINDS
from d3d12wl.migrate.runs import load_run

#: RenderDoc #3891's command: four vertex buffer views and an indexed draw, ByteStride 84 (4 * 16 + 20)
VBV4_DRAW_INDEXED = [*({"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": s}} for s in range(4)),
                     {"Type": "DRAW_INDEXED"}]
ROOT_CONSTANT_VBV_DRAW = [{"Type": "CONSTANT", "Constant": {"RootParameterIndex": 1, "DestOffsetIn32BitValues": 0,
                                                            "Num32BitValuesToSet": 1}},
                          {"Type": "VERTEX_BUFFER_VIEW", "VertexBuffer": {"Slot": 0}}, {"Type": "DRAW"}]


def vbv4_command(k: int, null_slot: int | None = None) -> bytes:
    views = b"".join(struct.pack("<QII", 0 if s == null_slot else 0x1000000 + 0x10000 * s + 0x100 * k, 4096, 16)
                     for s in range(4))
    return views + struct.pack("<IIIiI", 36, 1, 6 * k, 0, 0)


def constant_command(k: int) -> bytes:
    return struct.pack("<I", 100 + k) + struct.pack("<QII", 0x200000 + 0x1000 * k, 4096, 16) + struct.pack(
        "<4I", 3, 1, 3 * k, 0)


@dataclass
class Frame:
    """A frame made call by call: the convert JSON's blocks and a dump folder per call."""

    tmp: Path
    cf: ConvertFile = field(default_factory=ConvertFile)
    dumps: list[Path] = field(default_factory=list)
    rs: int = 0
    command_list: int = 0

    def __post_init__(self) -> None:
        blob = root_signature_blob([{"type": "CBV", "register": 0}, {"type": "32BIT_CONSTANTS", "num": 1,
                                                                      "register": 1}])
        self.rs = self.cf.root_signature(blob)
        self.command_list = self.cf.command_list()
        self.cf.on(self.command_list, "SetGraphicsRootSignature", {"pRootSignature": self.rs})
        self.cf.on(self.command_list, "SetGraphicsRootConstantBufferView",
                   {"RootParameterIndex": 0, "BufferLocation": hex_va(0x50000)})

    def call(self, arguments: list[dict[str, Any]], stride: int, commands: list[bytes], *, count: int | None,
             max_count: int, arg_va: int | None = 0x100000, width: int | None = None, arg_offset: int = 0,
             count_offset: int = 0, before: list[bytes] | None = None, root_signature: bool = True,
             count_before: int | None = None, same_resource: bool = False) -> int:
        cs = self.cf.command_signature(stride, arguments, self.rs if root_signature else 0)
        data = b"".join(commands)
        width = width or arg_offset + max(len(data), stride * max_count) + 64
        args = self.cf.buffer(width, arg_va)
        counts = None
        if count is not None and not same_resource:
            counts = self.cf.buffer(256, None if arg_va is None else arg_va + 0x100000)
        self.cf.skip(2)
        if same_resource:
            count_offset = width - 16
        block = self.cf.execute_indirect(self.command_list, cs, max_count, args, arg_offset,
                                         args if same_resource else (counts or 0), count_offset if count is not None
                                         else 0)
        after = (data + bytes(width - arg_offset - len(data)))
        earlier = None if before is None else b"".join(before) + bytes(width - arg_offset - len(b"".join(before)))

        def count_bytes(value: int, size: int) -> bytes:
            return struct.pack("<I", value) + bytes(size - 4)

        count_dump = None
        count_earlier = None
        if count is not None:
            if same_resource:
                after = after[:count_offset - arg_offset] + struct.pack("<I", count) + after[count_offset - arg_offset + 4:]
                count_dump = (args, count_offset, after[count_offset - arg_offset:])
            else:
                count_dump = (counts, count_offset, count_bytes(count, 256 - count_offset))
                if before is not None:
                    count_earlier = count_bytes(count if count_before is None else count_before, 256 - count_offset)
        folder = self.tmp / f"dump_{block}"
        write_dump(folder, "frame.gfxr", block, (args, arg_offset, after), count_dump, before=earlier,
                   before_counts=count_earlier)
        self.dumps.append(folder)
        return block

    def convert(self, fmt: str = "json") -> Path:
        return self.cf.write(self.tmp / f"frame.{fmt}", fmt)

    def run(self, fmt: str = "json") -> Any:
        out = self.tmp / "out"
        out.mkdir(exist_ok=True)
        return import_gfxr(self.convert(fmt), self.dumps, out)


def kinds(call: Any) -> list[str]:
    return [f.kind for f in call.findings]


# --------------------------------------------------------------------------------------------------------------
# The multi-call frame
# --------------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["json", "jsonl"])
def test_a_multi_call_frame_becomes_one_capture_per_dumped_call_and_a_call_sequence(tmp_path: Path, fmt: str) -> None:
    """IndirectDrawing.md "Drawing": each capture executes min(count, MaxCommandCount) commands at ByteStride, with
    the command list's root signature and root CBV; the call sequence lists the captures in block order."""
    f = Frame(tmp_path)
    f.cf.on(f.command_list, "SetPipelineState", {"pPipelineState": 77})
    b1 = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(5)], count=3, max_count=4)
    b2 = f.call(VBV4_DRAW_INDEXED, 84, [vbv4_command(k) for k in range(6)], count=None, max_count=6,
                root_signature=False)
    b3 = f.call(ROOT_CONSTANT_VBV_DRAW, 40, [constant_command(k) + bytes(4) for k in range(2)], count=2, max_count=8,
                arg_offset=256)
    result = f.run(fmt)
    assert [c.block for c in result.calls] == [b1, b2, b3] and not result.errors
    assert [(c.commands, c.count_value) for c in result.calls] == [(3, 3), (6, None), (2, 2)]
    first = load_capture(result.calls[0].captures["after"])
    assert first.version == 2 and first.call.MaxCommandCount == 4  # (the oldest version holding a resource)
    assert first.call.pCommandSignature.ByteStride == 36
    assert first.call.ArgumentBufferResource.GPUVirtualAddress == 0x100000
    assert first.state.graphics_root_arguments[0].value == 0x50000
    trace = execute(first)
    assert [e.root_arguments[1].values for e in trace.executions] == [[100], [101], [102]]
    assert [e.trigger.fields["StartVertexLocation"] for e in trace.executions] == [0, 3, 6]
    third = load_capture(result.calls[2].captures["after"])
    assert third.call.ArgumentBuffer == 0x100000 + 256 and third.call.ArgumentBufferResource.GPUVirtualAddress == \
        0x100000
    sequence = json.loads(result.sequence.read_text())
    assert [c["capture"] for c in sequence["calls"]] == [f"call_{b}.json" for b in (b1, b2, b3)]
    assert [c["program"] for c in sequence["calls"]] == ["pso_77"] * 3
    run = load_run(result.sequence)
    assert len(run.executions) == 3 + 6 + 2


def test_the_pipeline_state_of_create_reset_and_clear_state(tmp_path: Path) -> None:
    """The program of each call in the call sequence is the command list's pipeline state: CreateCommandList's and
    Reset's pInitialState set it as SetPipelineState does, and ClearState ("resets the state of a direct command
    list back to the state it was in when the command list was created", its pPipelineState the list's pipeline
    state) drops every root argument set before it."""
    f = Frame(tmp_path)
    f.cf.on(f.command_list, "Reset", {"pAllocator": 5, "pInitialState": 66})
    f.cf.on(f.command_list, "SetGraphicsRootSignature", {"pRootSignature": f.rs})
    f.cf.on(f.command_list, "SetGraphicsRootConstantBufferView",
            {"RootParameterIndex": 0, "BufferLocation": hex_va(0x50000)})
    after_reset = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(2)], count=2, max_count=2)
    f.cf.on(f.command_list, "ClearState", {"pPipelineState": 88})
    after_clear = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(2)], count=2, max_count=2)
    created = f.cf.handle()
    f.cf.method("ID3D12Device", f.cf.device, "CreateCommandList", {
        "nodeMask": "0b" + "0" * 32, "type": enum("D3D12_COMMAND_LIST_TYPE", "DIRECT"), "pCommandAllocator": 5,
        "pInitialState": 44, "riid": "ID3D12GraphicsCommandList", "ppCommandList": created})
    f.command_list = created
    on_new_list = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(2)], count=2, max_count=2)
    result = f.run()
    programs = {c.block: c.program for c in result.calls}
    assert programs == {after_reset: "pso_66", after_clear: "pso_88", on_new_list: "pso_44"}
    sequence = json.loads(result.sequence.read_text())
    assert [c["program"] for c in sequence["calls"]] == ["pso_66", "pso_88", "pso_44"]
    reset = load_capture(result.calls[0].captures["after"])
    cleared = load_capture(result.calls[1].captures["after"])
    assert reset.state.graphics_root_signature is not None and 0 in reset.state.graphics_root_arguments
    assert cleared.state.graphics_root_signature is None and not cleared.state.graphics_root_arguments


def test_the_dumps_are_referenced_in_place_not_copied(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(2)], count=2, max_count=2)
    result = f.run()
    doc = json.loads(result.calls[0].captures["after"].read_text())
    assert all("file" in r and r["file"].startswith("../dump_") for r in doc["memory"])
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["call_5.json", "calls.json"] or \
        all(p.suffix == ".json" for p in (tmp_path / "out").iterdir())


def test_count_and_arguments_in_one_resource(tmp_path: Path) -> None:
    """A count buffer in the argument buffer's own resource (a common layout) is one region, not two that overlap."""
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(4)], count=2, max_count=4,
           same_resource=True)
    result = f.run()
    assert not result.errors, result.calls[0].findings
    capture = load_capture(result.calls[0].captures["after"])
    assert len(capture.memory.regions) == 1 and len(execute(capture).executions) == 2


# --------------------------------------------------------------------------------------------------------------
# The cases the issue names
# --------------------------------------------------------------------------------------------------------------


def test_a_before_and_after_pair_writes_the_after_capture_only_when_the_bytes_differ(tmp_path: Path) -> None:
    """--dump-resources-before-draw: the capture holds what the call read (before); bytes the call's own work
    changed are the .after.json capture, named by a changed-during-call finding."""
    f = Frame(tmp_path)
    same = [constant_command(k) for k in range(3)]
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, same, count=3, max_count=3, before=same)
    changed = [constant_command(k) for k in range(3)]
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, changed[:1] + [constant_command(9)] * 2, count=3, max_count=3, before=changed)
    result = f.run()
    unchanged, moved = result.calls
    assert list(unchanged.captures) == ["before"] and "changed-during-call" not in kinds(unchanged)
    assert "dumped-after-call" not in kinds(unchanged)
    assert list(moved.captures) == ["before", "after"] and "changed-during-call" in kinds(moved)
    assert moved.captures["after"].name.endswith(".after.json")
    before = execute(load_capture(moved.captures["before"]))
    after = execute(load_capture(moved.captures["after"]))
    assert [e.root_arguments[1].values for e in before.executions] == [[100], [101], [102]]
    assert [e.root_arguments[1].values for e in after.executions] == [[100], [109], [109]]


def test_only_after_bytes_are_named(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    call = f.run().calls[0]
    assert "dumped-after-call" in kinds(call) and list(call.captures) == ["after"]


def test_a_missing_command_signature_leaves_the_call_out_with_an_error(tmp_path: Path, capsys: Any) -> None:
    """A command signature created outside the part of the capture the JSON holds (gfxrecon-convert --frame-range)
    is not guessed: the call is left out, an error finding names the handle, the other calls are imported."""
    f = Frame(tmp_path)
    good = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    bad = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    call_block = next(b for b in f.cf.blocks if b.get("index") == bad)
    missing = call_block["method"]["args"]["pCommandSignature"]
    f.cf.blocks = [b for b in f.cf.blocks if not (b.get("method", {}).get("name") == "CreateCommandSignature"
                                                  and b["method"]["args"]["ppvCommandSignature"] == missing)]
    result = f.run()
    by = {c.block: c for c in result.calls}
    assert by[good].captures and not by[good].errors
    assert not by[bad].captures and kinds(by[bad]) == ["command-signature-not-in-convert"]
    assert f"command signature {missing}" in by[bad].findings[0].message
    assert [c["capture"] for c in json.loads(result.sequence.read_text())["calls"]] == [f"call_{good}.json"]
    code = main(["import", "gfxr", str(tmp_path / "frame.json"), *map(str, f.dumps), "--output-dir",
                 str(tmp_path / "out")])
    assert code == 1 and "command-signature-not-in-convert" in capsys.readouterr().out


def test_a_count_above_max_command_count_executes_max_command_count(tmp_path: Path) -> None:
    """IndirectDrawing.md "Drawing": min(count, MaxCommandCount) commands; the import names the count above it."""
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(8)], count=7, max_count=4)
    call = f.run().calls[0]
    assert (call.count_value, call.max_command_count, call.commands) == (7, 4, 4)
    assert "count-above-max" in kinds(call) and not call.errors
    assert len(execute(load_capture(call.captures["after"])).executions) == 4


def test_a_null_vertex_buffer_view_imports_executes_and_remaps_as_null(tmp_path: Path) -> None:
    """RenderDoc PR #3908: NULL vertex (and index) buffer views inside ExecuteIndirect tripped its remapping.  A NULL
    view (BufferLocation 0) is a view that unbinds its slot; the import keeps it, and remap leaves it NULL without
    an unmapped-reference finding."""
    f = Frame(tmp_path)
    f.call(VBV4_DRAW_INDEXED, 84, [vbv4_command(k, null_slot=2) for k in range(3)], count=3, max_count=3,
           root_signature=False)
    call = f.run().calls[0]
    assert not call.errors
    capture = load_capture(call.captures["after"])
    trace = execute(capture)
    assert len(trace.executions) == 3 and not trace.errors
    assert [v.fields["BufferLocation"] for v in trace.executions[0].ia if v.slot == 2] == [0]
    table = patch_list(capture)
    nulls = [r for r in table.rows() if r["field"] == "arg2_VertexBuffer.BufferLocation"]
    assert [r["value"] for r in nulls] == [0, 0, 0]
    va_map = VaMap([VaRange(0x1000000, 0x100000, 0x7000000000), VaRange(0x100000, 0x200000, 0x6000000000),
                    VaRange(0x50000, 0x1000, 0x5000000000)])
    rebased = remap(capture, va_map, verify=True)
    assert not rebased.errors and rebased.verification is not None and rebased.verification.same
    moved = execute(rebased.capture)
    assert [v.fields["BufferLocation"] for v in moved.executions[0].ia if v.slot == 2] == [0]
    assert [v.fields["BufferLocation"] for v in moved.executions[0].ia if v.slot == 0] == [0x7000000000]


# --------------------------------------------------------------------------------------------------------------
# What the files do not hold: named, never guessed
# --------------------------------------------------------------------------------------------------------------


def test_a_buffer_without_get_gpu_virtual_address_gets_a_chosen_va_and_a_warning(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    f.cf.buffer(1 << 20, 0x7000000)  # a VA the capture does hold
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1, arg_va=None)
    call = f.run().calls[0]
    assert kinds(call).count("va-not-in-convert") == 2 and not call.errors
    capture = load_capture(call.captures["after"])
    base = capture.call.ArgumentBufferResource.GPUVirtualAddress
    assert base >= 0x7000000 + (1 << 20) and base % (1 << 16) == 0
    assert len(execute(capture).executions) == 1


def test_incrementing_constant_is_not_in_the_convert_json(tmp_path: Path) -> None:
    """generated_dx12_struct_decoders_to_json.cpp has no case for INCREMENTING_CONSTANT: its RootParameterIndex is
    not in the JSON, so the call is left out, not guessed."""
    f = Frame(tmp_path)
    f.call([{"Type": "INCREMENTING_CONSTANT"}, {"Type": "DRAW"}], 16, [struct.pack("<4I", 3, 1, 0, 0)], count=None,
           max_count=1)
    call = f.run().calls[0]
    assert kinds(call) == ["argument-not-in-convert"] and not call.captures


def test_a_dump_of_an_execute_bundle_names_it(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    block = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    ei = next(b for b in f.cf.blocks if b.get("index") == block)
    ei["method"]["name"] = "ExecuteBundle"
    ei["method"]["args"] = {"pCommandList": 99}
    call = f.run().calls[0]
    assert kinds(call) == ["call-not-in-convert"] and "ExecuteBundle" in call.findings[0].message


def test_the_command_list_state_comes_from_the_convert_json(tmp_path: Path) -> None:
    """docs/capture.md "state": the list's type, render-pass scope, root signatures and arguments, vertex and index
    buffers, descriptor heaps with their GPU ranges, and the argument buffer's state from the last transition
    barrier before the call; a root signature set again differently makes the arguments before it stale."""
    f = Frame(tmp_path)
    cl, cf = f.command_list, f.cf
    heap = cf.descriptor_heap("CBV_SRV_UAV", 4096, 0xd0000000, 32)
    cf.on(cl, "SetDescriptorHeaps", {"NumDescriptorHeaps": 1, "ppDescriptorHeaps": [heap]})
    cf.root_constants(cl, 1, [7])
    cf.vertex_buffers(cl, 3, [(0x900000, 4096, 32)])
    cf.on(cl, "IASetIndexBuffer", {"pView": {"BufferLocation": hex_va(0x910000), "SizeInBytes": 512,
                                             "Format": enum("DXGI_FORMAT", "R16_UINT")}})
    cf.on(cl, "BeginRenderPass", {"NumRenderTargets": 0, "pRenderTargets": None, "pDepthStencil": None,
                                  "Flags": hex_flags(0)})
    block = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    args = next(b for b in cf.blocks if b.get("index") == block)["method"]["args"]["pArgumentBuffer"]
    barrier = {"NumBarriers": 1, "pBarriers": [{"Type": "D3D12_RESOURCE_BARRIER_TYPE_TRANSITION", "Flags": hex_flags(0),
                                                "Transition": {"pResource": args, "Subresource": 0xFFFFFFFF,
                                                               "StateBefore": hex_flags(8), "StateAfter":
                                                               hex_flags(0x200)}}]}
    ei = next(i for i, b in enumerate(cf.blocks) if b.get("index") == block)
    cf.blocks.insert(ei, {"index": block - 1, "method": {"name": "ResourceBarrier", "thread": 1, "object": {
        "type": "ID3D12GraphicsCommandList", "handle": cl}, "args": barrier}})
    capture = load_capture(f.run().calls[0].captures["after"])
    st = capture.state
    assert st.in_render_pass and st.command_list_type == abi.enum_value("D3D12_COMMAND_LIST_TYPE", "DIRECT")
    assert st.graphics_root_signature.name == f"rs_{f.rs}"
    assert st.graphics_root_arguments[0].value == 0x50000 and st.graphics_root_arguments[1].values == [7]
    assert st.vertex_buffers[3].BufferLocation == 0x900000 and st.index_buffer.SizeInBytes == 512
    heap_range = st.descriptor_heaps.heap("CBV_SRV_UAV")
    assert (heap_range.GPUDescriptorHandleForHeapStart, heap_range.NumDescriptors,
            heap_range.DescriptorIncrementSize) == (0xd0000000, 4096, 32)
    assert capture.call.ArgumentBufferResource.State == abi.enum_value("D3D12_RESOURCE_STATES", "INDIRECT_ARGUMENT")
    assert capture.call.CountBufferResource.State is None  # no barrier on it in the command list: not captured


def test_a_new_root_signature_makes_the_arguments_set_before_it_stale(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    other = f.cf.root_signature(root_signature_blob([{"type": "SRV"}, {"type": "32BIT_CONSTANTS", "num": 1}]))
    f.cf.on(f.command_list, "SetGraphicsRootSignature", {"pRootSignature": other})
    f.cf.on(f.command_list, "SetGraphicsRootSignature", {"pRootSignature": f.rs})
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    capture = load_capture(f.run().calls[0].captures["after"])
    assert capture.state.graphics_root_arguments == {}
    assert [x.kind for x in execute(capture).findings] == ["root-parameter-not-set"]


def test_root_constants_set_in_part_are_left_unset_and_named(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    rs = f.cf.root_signature(root_signature_blob([{"type": "CBV"}, {"type": "32BIT_CONSTANTS", "num": 4}]))
    f.cf.on(f.command_list, "SetGraphicsRootSignature", {"pRootSignature": rs})
    f.cf.root_constants(f.command_list, 1, [1, 2], offset=1)
    f.call([{"Type": "DRAW"}], 16, [struct.pack("<4I", 3, 1, 0, 0)], count=None, max_count=1, root_signature=False)
    call = f.run().calls[0]
    assert "root-constants-partial" in kinds(call)
    assert "DWORDs [0, 3] were never set" in next(x.message for x in call.findings
                                                 if x.kind == "root-constants-partial")


def test_a_size_the_dump_does_not_hold_is_an_error(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    binary = next(f.dumps[0].glob("*eiArgs*.bin"))
    binary.write_bytes(binary.read_bytes()[:-8])
    call = f.run().calls[0]
    assert kinds(call) == ["dump-size-mismatch"] and not call.captures


def test_a_dump_of_another_capture_is_named(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    f.cf.blocks[0]["header"]["source-path"] = "C:\\captures\\other.gfxr"
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    assert "dump-of-other-capture" in kinds(f.run().calls[0])


def test_every_finding_kind_is_described() -> None:
    import inspect

    from d3d12wl.importers import gfxr

    used = set(__import__("re").findall(r'_note\(call, "([a-z-]+)"', inspect.getsource(gfxr)))
    assert used <= set(IMPORT_FINDING_KINDS) and used


# --------------------------------------------------------------------------------------------------------------
# Unusable input: exit 2 naming the file and member
# --------------------------------------------------------------------------------------------------------------


def test_unusable_inputs_name_the_file_and_member(tmp_path: Path, capsys: Any) -> None:
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    convert = f.convert()
    out = tmp_path / "out"
    out.mkdir()
    assert main(["import", "gfxr", str(convert), str(tmp_path / "nope"), "--output-dir", str(out)]) == 2
    assert "nope: does not exist" in capsys.readouterr().err
    assert main(["import", "gfxr", str(convert), str(f.dumps[0]), "--output-dir", str(tmp_path / "none")]) == 2
    assert "is no folder" in capsys.readouterr().err
    (f.dumps[0] / "frame_dr.json").write_text('[{"header": {}}]')
    assert main(["import", "gfxr", str(convert), str(f.dumps[0]), "--output-dir", str(out), "--json"]) == 2
    captured = capsys.readouterr()
    assert "not a gfxrecon-replay dump" in captured.err and json.loads(captured.out)["kind"] == "ImportInputError"
    convert.write_text('[{"header": {}},\n{"index": 1, "method": {"name": "CreateRootSignature", "args": '
                       '{"ppvRootSignature": 5, "pBlobWithRootSignature": "[Binary data]"}}}]')
    with pytest.raises(ImportInputError, match=r"frame\.json index 1 \(CreateRootSignature\) "
                                               r"method\.args\.pBlobWithRootSignature.*\[Binary data\]"):
        from d3d12wl.importers.gfxr_convert import read_convert

        read_convert(convert)


def test_json_output_is_the_import_report(tmp_path: Path, capsys: Any) -> None:
    f = Frame(tmp_path)
    block = f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(k) for k in range(2)], count=2, max_count=2)
    out = tmp_path / "out"
    out.mkdir()
    assert main(["import", "gfxr", str(f.convert()), str(f.dumps[0]), "--output-dir", str(out), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (call,) = report["calls"]
    assert call["block_index"] == block and call["commands"] == 2 and call["command_signature"].startswith("cs_")
    assert {x["kind"] for x in call["findings"]} == {"dumped-after-call", "replay-addresses"}
    assert report["call_sequence"].endswith("calls.json")


def test_the_argument_bytes_are_the_dumped_files(tmp_path: Path) -> None:
    f = Frame(tmp_path)
    commands = [constant_command(k) for k in range(3)]
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, commands, count=3, max_count=3, arg_offset=512)
    capture = load_capture(f.run().calls[0].captures["after"])
    region = capture.memory.region_at(capture.call.ArgumentBuffer)
    assert bytes(region.data[:len(b"".join(commands))]) == b"".join(commands)
    assert np.frombuffer(region.data, np.uint8).size == capture.call.ArgumentBufferResource.Width - 512


def test_state_leakage_after_an_earlier_execute_indirect_on_the_command_list(tmp_path: Path) -> None:
    """IndirectDrawing.md "State leakage": after an ExecuteIndirect, the root constant its signature sets is 0, the
    vertex buffer slot it binds a NULL view; the next call's capture starts from there, not from what was set
    before the first call."""
    f = Frame(tmp_path)
    f.cf.root_constants(f.command_list, 1, [42])
    f.cf.vertex_buffers(f.command_list, 0, [(0x900000, 4096, 16)])
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=1, max_count=1)
    f.call([{"Type": "DRAW"}], 16, [struct.pack("<4I", 3, 1, 0, 0)], count=None, max_count=1, root_signature=False)
    first, second = (load_capture(c.captures["after"]) for c in f.run().calls)
    assert first.state.graphics_root_arguments[1].values == [42]
    assert first.state.vertex_buffers[0].BufferLocation == 0x900000
    assert second.state.graphics_root_arguments[1].values == [0]
    assert second.state.vertex_buffers[0].BufferLocation == 0 and second.state.vertex_buffers[0].SizeInBytes == 0
    assert second.state.graphics_root_arguments[0].value == 0x50000  # the signature sets no root view


def test_what_does_not_make_a_capture_is_named_by_the_loader(tmp_path: Path) -> None:
    """A GetGPUVirtualAddress near the top of the 64-bit space whose Width runs past it: the capture loader refuses
    the resource, and the import says so for that call instead of writing it."""
    f = Frame(tmp_path)
    f.call(ROOT_CONSTANT_VBV_DRAW, 36, [constant_command(0)], count=None, max_count=1, arg_va=(1 << 64) - 0x100,
           width=4096)
    call = f.run().calls[0]
    assert kinds(call)[-1] == "capture-does-not-load" and not call.captures
    assert "leaves the 64-bit VA space" in call.findings[-1].message
