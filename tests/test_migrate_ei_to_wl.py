"""``migrate ei-to-wl``: per-PSO ExecuteIndirect buckets become one work list (spec "Motivation"), and the executor
proves the draws and their resolved bindings unchanged (spec "Execution Order and State Scoping")."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from d3d12wl.capture.file import load_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import execute
from d3d12wl.migrate.ei_to_wl import ei_to_wl
from d3d12wl.migrate.equivalence import compare_runs
from d3d12wl.migrate.runs import CallSequenceEntry, MigrationError
from d3d12wl.migrate.scene import bucket_scene
from d3d12wl.model.state import ExecuteIndirectCall
from d3d12wl.records.layout import pcs_layout
from d3d12wl.rules import check_objects

ROOT = Path(__file__).resolve().parents[1]
EI_EXAMPLE = ROOT / "d3d12wl" / "examples" / "execute_indirect_capture.json"


def test_bundled_execute_indirect_example_migrates_to_the_same_draws() -> None:
    """Per-binding source: root constants and a VB slot that vary per command go in records; what the command list
    set stays command-list state."""
    original = [CallSequenceEntry(load_capture(EI_EXAMPLE), "Draw")]
    result = ei_to_wl(original)
    assert not execute(result.capture).to_dict()["findings"]
    assert result.placement["b1 space0"] == "record" and result.placement["VB3"] == "record"
    assert result.placement["b0 space0"] == "command-list" and result.placement["VB0"] == "command-list"
    comparison = compare_runs(original, result.capture)
    assert comparison.same and comparison.ordered and comparison.count_a == 3
    from d3d12wl.migrate.wl_to_ei import wl_to_ei

    back = wl_to_ei(result.capture)  # and back: one call again, the same three draws
    assert [(c.program, c.count) for c in back.calls] == [("Draw", 3)]
    assert compare_runs(original, back.entries).same


def test_buckets_of_two_command_signatures_become_one_signature_with_two_pcses() -> None:
    """Uniformity constraints 1-3 hold for the PCSes made (one GRS, the same updated root parameters); per-call
    constants go in the program table (spec "Program table slot layout"); empty calls vanish (spec "Motivation")."""
    scene = bucket_scene(300, 8, mixed=True, seed=3)
    result = ei_to_wl(scene)
    objects = result.capture.objects
    assert check_objects(objects, result.capture.device) == []
    assert sorted(objects.program_command_signatures) == ["PCS_DrawIndexedSRV", "PCS_DrawSRV"]
    assert [p.name for p in objects.work_list_signatures["WLS"].pProgramCommandSignatures] == [
        "PCS_DrawIndexedSRV", "PCS_DrawSRV"]
    assert result.placement == {"b0 space0": "command-list", "IB": "command-list", "b1 space0": "program-table",
                                "t0 space0": "record"}
    # the material constant left the global root signature for each program's local root signature
    grs = next(iter(objects.root_signatures.values()))
    assert [p.parameter_type_name for p in grs.pParameters] == ["CBV", "SRV"]
    report = result.report()
    assert report["before"]["calls"] == 8 and report["before"]["empty_calls"] == 2
    assert report["after"]["calls"] == 1 and report["after"]["draws"] == 300
    assert report["after"]["bytes"] == sum(report["after"]["parts"].values()) == result.capture.memory.regions[0].size
    comparison = compare_runs(scene, result.capture)
    assert comparison.same and comparison.ordered, comparison
    trace = execute(result.capture).to_dict()
    assert {e["program"] for e in trace["executions"]} == {e.program for e in scene if
                                                           e.capture.memory.read_u32(0x100000) > 0}


def test_records_option_keeps_the_global_root_signature() -> None:
    scene = bucket_scene(120, 4, seed=5)
    result = ei_to_wl(scene, bucket_constants="records")
    assert result.placement["b1 space0"] == "record"
    grs = next(iter(result.capture.objects.root_signatures.values()))
    assert grs == scene[0].capture.state.graphics_root_signature
    assert compare_runs(scene, result.capture).same


def test_layout_choice_is_the_smaller_and_both_are_reported() -> None:
    """Primary record layout / Stride derivation: DRAW_INDEXED alone is 20 bytes, so a fully-inline record is 24
    (4-byte header) while hybrid needs a 16-byte primary record per call plus a 24-byte secondary per draw."""
    capture = load_capture(EI_EXAMPLE)
    assert isinstance(capture.call, ExecuteIndirectCall)
    plain = capture.objects.command_signatures["PlainMultiDrawIndirect"]
    from d3d12wl.records.packers import pack_execute_indirect

    n = 5
    args = pack_execute_indirect(plain, {"arg0_DrawIndexed.IndexCountPerInstance": np.arange(n) + 3,
                                         "arg0_DrawIndexed.InstanceCount": 1, "arg0_DrawIndexed.StartIndexLocation": 0,
                                         "arg0_DrawIndexed.BaseVertexLocation": 0,
                                         "arg0_DrawIndexed.StartInstanceLocation": 0})
    memory = GpuMemory()
    memory.map(capture.call.ArgumentBuffer, args, name="pArgumentBuffer")
    capture.memory = memory
    capture.call = ExecuteIndirectCall(plain, 3, capture.call.ArgumentBuffer, None)
    entries = [CallSequenceEntry(capture, "A")]
    auto = ei_to_wl(entries)
    (choice,) = auto.layouts
    assert choice.chosen == "inline" and choice.inline_bytes == 3 * 24 < choice.hybrid_bytes == 16 + 3 * 24
    forced = ei_to_wl(entries, layout="hybrid")
    assert forced.layouts[0].chosen == "hybrid"
    assert auto.bytes_after == auto.bytes_inline < forced.bytes_after == forced.bytes_hybrid
    for result in (auto, forced):
        assert compare_runs(entries, result.capture).same
    pcs = next(iter(auto.capture.objects.program_command_signatures.values()))
    assert pcs_layout(pcs).secondary is None


def test_a_changed_byte_is_caught() -> None:
    scene = bucket_scene(40, 2, seed=2)
    result = ei_to_wl(scene)
    region = result.capture.memory.regions[0]
    data = bytearray(result.capture.memory.read(region.base, region.size))
    data[-8:-4] = b"\x07\0\0\0"  # StartInstanceLocation of the last draw (bytes 24..27 of its 32-byte record)
    memory = GpuMemory()
    memory.map(region.base, bytes(data), name=region.name)
    result.capture.memory = memory
    comparison = compare_runs(scene, result.capture)
    assert not comparison.same and "StartInstanceLocation=7" in comparison.differences[0]


def _compute_call() -> CallSequenceEntry:
    from d3d12wl import abi
    from d3d12wl.capture.file import CAPTURE_VERSION, Capture
    from d3d12wl.model import description
    from d3d12wl.model.state import CommandListState, DeviceCaps
    from d3d12wl.records.packers import pack_execute_indirect

    objects = description.load({"command_signatures": {"Dispatch": {"ByteStride": 12,
                                                                    "pArgumentDescs": [{"Type": "DISPATCH"}]}}})
    cs = objects.command_signatures["Dispatch"]
    memory = GpuMemory()
    memory.map(0x20000, pack_execute_indirect(cs, {"arg0_Dispatch.ThreadGroupCountX": [1, 2],
                                                   "arg0_Dispatch.ThreadGroupCountY": 1,
                                                   "arg0_Dispatch.ThreadGroupCountZ": 1}), name="args")
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"))
    return CallSequenceEntry(Capture(CAPTURE_VERSION, device, objects, memory, CommandListState(),
                                     ExecuteIndirectCall(cs, 2, 0x20000, None)), "Cull")


def test_calls_of_two_classes_become_a_tier2_chain() -> None:
    """Work Lists Overview, cross-class chaining: a work list signature holds one executable class (Uniformity
    constraints 4), so graphics and compute calls become a DispatchList1 chain, a signature per class in one array;
    their global root signatures must agree (Uniformity constraints 1)."""
    with pytest.raises(MigrationError, match="one global root signature"):
        ei_to_wl([*bucket_scene(10, 1), _compute_call()])  # RS vs no root signature at all
    from d3d12wl.migrate.wl_to_ei import wl_to_ei

    chain = load_capture(ROOT / "d3d12wl" / "examples" / "tier2_chain_capture.json")
    calls = wl_to_ei(chain).entries  # one compute call, two graphics calls
    result = ei_to_wl(calls)
    assert result.capture.call_name == "DispatchList1"
    assert check_objects(result.capture.objects, result.capture.device) == []
    assert sorted(result.capture.objects.work_list_signatures) == ["WLS_COMPUTE", "WLS_GRAPHICS"]
    assert not execute(result.capture).to_dict()["findings"]
    comparison = compare_runs(chain, result.capture)
    assert comparison.same and comparison.classes == {"COMPUTE": False, "GRAPHICS": True}
    assert compare_runs(calls, result.capture).same
    with pytest.raises(MigrationError, match="not an ExecuteIndirect capture"):
        ei_to_wl([CallSequenceEntry(load_capture(ROOT / "d3d12wl" / "examples" / "culling_capture.json"), "X")])


def test_every_list_with_a_successor_ends_with_the_wait_whatever_its_class() -> None:
    """Work Lists v0.851 rule 13: "A list whose shaders write any part of the next D3D12_DISPATCH_LIST_INPUT1, or
    data the next list consumes, must set _END_WITH_WAIT_FOR_COMPLETION, whatever its class" -- "Record ordering does
    not sequence a continuation".  A call sequence records no barriers, so the migration assumes the calls needed
    them: the graphics list ahead of a compute list ends with the wait and the flush too (v0.85 let an in-order
    graphics list go without)."""
    from d3d12wl import abi
    from d3d12wl.migrate.wl_to_ei import wl_to_ei

    chain = load_capture(ROOT / "d3d12wl" / "examples" / "tier2_chain_capture.json")
    calls = wl_to_ei(chain).entries  # one compute call, two graphics calls
    result = ei_to_wl([*calls[1:], calls[0]])  # graphics, graphics, compute
    lists = execute(result.capture).to_dict()["lists"]
    f1 = "D3D12_DISPATCH_LIST_FLAGS1"
    end = sum(abi.enum_value(f1, m) for m in ("ALLOW_NEXT_DISPATCH_LIST_CONTINUATION", "END_WITH_WAIT_FOR_COMPLETION",
                                              "END_WITH_MEMORY_FLUSH"))
    assert [(lst["executable_class"], lst["header"]["Flags"]) for lst in lists] == [("GRAPHICS", end), ("COMPUTE", 0)]
    assert compare_runs([*calls[1:], calls[0]], result.capture).same


def test_compute_buckets_compare_as_multisets() -> None:
    """Execution Order and State Scoping: compute records are never ordered, so the runs compare as multisets."""
    calls = [_compute_call()]
    result = ei_to_wl(calls)
    comparison = compare_runs(calls, result.capture)
    assert comparison.same and not comparison.ordered and comparison.count_b == 2


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "d3d12wl", *argv], cwd=ROOT, capture_output=True, text=True,
                          timeout=120)


def test_cli_scene_and_ei_to_wl_verify(tmp_path: Path) -> None:
    r = _cli("migrate", "scene", "--output-dir", str(tmp_path / "scene"), "--draws", "200", "--psos", "6")
    assert r.returncode == 0, r.stderr
    out = tmp_path / "new" / "folder" / "wl.json"  # the folder is made
    r = _cli("migrate", "ei-to-wl", str(tmp_path / "scene" / "calls.json"), "-o", str(out), "--verify", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["verify"]["same"] and report["before"]["calls"] == 6 and report["after"]["calls"] == 1
    assert load_capture(out).call_name == "DispatchList"
    r = _cli("migrate", "ei-to-wl", f"Draw={EI_EXAMPLE}", "-o", str(tmp_path / "one.json"))
    assert r.returncode == 0 and "empty calls" in r.stdout


def test_cli_ei_to_wl_to_stdout_prints_the_capture_and_reports_on_stderr(tmp_path: Path) -> None:
    """``-o -`` is standard output, as for every writer (issue 26): the capture itself, every region inline (it
    loads back and executes the same), the report on stderr; it wrote a file named '-' (found by the campaign,
    seed 40037232).  With --json it is exit 2 naming --json: both would go to stdout."""
    r = _cli("migrate", "ei-to-wl", f"Draw={EI_EXAMPLE}", "-o", "-")
    assert r.returncode == 0 and "ei-to-wl:" in r.stderr and not (ROOT / "-").exists(), r.stderr
    back = tmp_path / "back.json"
    back.write_text(r.stdout)
    assert load_capture(back).call_name == "DispatchList"
    r = _cli("migrate", "ei-to-wl", f"Draw={EI_EXAMPLE}", "-o", "-", "--json")
    assert r.returncode == 2 and json.loads(r.stdout)["where"] == "--json"  # (--json's error object)


def test_cli_unusable_input_exits_2_naming_it(tmp_path: Path) -> None:
    r = _cli("migrate", "ei-to-wl", str(tmp_path / "missing.json"), "-o", str(tmp_path / "x.json"))
    assert r.returncode == 2 and "missing.json" in r.stderr
    r = _cli("migrate", "ei-to-wl", str(ROOT / "d3d12wl" / "examples" / "culling_capture.json"), "-o",
             str(tmp_path / "x.json"))
    assert r.returncode == 2 and "not an ExecuteIndirect capture" in r.stderr


def test_the_100k_draw_scene_figures() -> None:
    """The README's measurement: 100,000 draws over 64 PSOs (16 without draws), before and after."""
    result = ei_to_wl(bucket_scene(100_000, 64))
    report = result.report()
    assert {k: report["before"][k] for k in ("calls", "empty_calls", "draws", "bytes")} == {
        "calls": 64, "empty_calls": 16, "draws": 100_000, "bytes": 100_000 * 28 + 64 * 4}
    assert {k: report["after"][k] for k in ("calls", "empty_calls", "draws", "bytes")} == {
        "calls": 1, "empty_calls": 0, "draws": 100_000, "bytes": 3_203_352}
    (choice,) = report["layouts"]
    assert (choice["inline_bytes"], choice["hybrid_bytes"], choice["chosen"]) == (4_000_000, 3_200_768, "hybrid")


def test_one_program_in_two_calls_gets_two_slots() -> None:
    """Program table slot layout: a slot pairs an identifier with its own tail, so the same PSO called twice with
    different per-call constants takes two slots holding the same identifier."""
    scene = bucket_scene(60, 3, active=1.0, seed=4)
    same = [CallSequenceEntry(e.capture, "Opaque") for e in scene]
    result = ei_to_wl(same)
    assert list(result.capture.objects.programs) == ["Opaque"]
    binding = result.capture.state.program.WorkList.Binding  # type: ignore[union-attr]
    assert binding.ProgramTable.SlotCount == 3 and result.placement["b1 space0"] == "program-table"
    assert compare_runs(same, result.capture).same


def test_errors_of_migrate_and_diff_go_through_the_one_cli_handler(capsys: pytest.CaptureFixture[str],
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    """cli.main is the one handler: an internal error is exit 3 with one line (the traceback only with --debug),
    unusable input exit 2, and --json prints the error object on stdout."""
    import argparse

    from d3d12wl.cli import diff_cmd, main, migrate_cmd

    def broken(args: argparse.Namespace) -> int:
        raise RuntimeError("a bug")

    monkeypatch.setattr(migrate_cmd, "run_ei_to_wl", broken)
    monkeypatch.setattr(diff_cmd, "run", broken)
    for argv in (["migrate", "ei-to-wl", "x.json", "-o", "y.json"], ["diff", "a.json", "b.json"]):
        assert main(argv) == 3
        err = capsys.readouterr().err
        assert "internal error: RuntimeError: a bug" in err and "Traceback" not in err
        assert main([*argv, "--debug"]) == 3
        assert "Traceback" in capsys.readouterr().err
        if argv[0] == "diff":
            assert main([*argv, "--json"]) == 3
            assert json.loads(capsys.readouterr().out)["kind"] == "InternalError"
    monkeypatch.undo()
    assert main(["diff", "/nonexistent", "/nonexistent", "--json"]) == 2
    out = capsys.readouterr()
    assert json.loads(out.out)["kind"] == "MigrationError" and "/nonexistent" in out.err


def test_a_parameter_only_one_command_signature_declares_becomes_local() -> None:
    """Local root signatures: the GRS is shared (Uniformity constraints 1), so a root parameter only the DRAW
    command signature's root signature declares becomes a local root parameter of that PCS: in its program-table
    slots when it is constant per call, in its records when it varies."""
    import dataclasses

    from d3d12wl.model.objects import RootConstants, RootParameter1, RootSignature

    scene = bucket_scene(90, 4, mixed=True, active=1.0, seed=8)
    base = scene[1].capture.call.pCommandSignature  # type: ignore[union-attr]
    assert base is not None and base.name == "DrawSRV" and base.pRootSignature is not None
    extra = RootParameter1(ParameterType=base.pRootSignature.pParameters[2].ParameterType,
                           Constants=RootConstants(5, 0, 2))
    rs2 = RootSignature("RS2", [*base.pRootSignature.pParameters, extra], [], base.pRootSignature.Flags)
    cs2 = dataclasses.replace(base, pRootSignature=rs2)
    from d3d12wl.model.state import RootArgument

    for i, e in enumerate(scene):
        if e.capture.call.pCommandSignature.name == "DrawSRV":  # type: ignore[union-attr]
            e.capture.call = dataclasses.replace(e.capture.call, pCommandSignature=cs2)  # type: ignore[type-var]
            e.capture.state = dataclasses.replace(e.capture.state, graphics_root_signature=rs2, graphics_root_arguments={
                **e.capture.state.graphics_root_arguments, 3: RootArgument("constants", values=[i, 2 * i])})
    for constants, where in (("program-table", "local program-table"), ("records", "local record")):
        result = ei_to_wl(scene, bucket_constants=constants)
        assert result.placement["b5 space0"] == where
        assert check_objects(result.capture.objects, result.capture.device) == []
        grs = next(iter(result.capture.objects.root_signatures.values()))
        assert all(p.Constants.ShaderRegister != 5 for p in grs.pParameters)
        assert compare_runs(scene, result.capture).same
        from d3d12wl.migrate.wl_to_ei import wl_to_ei

        assert compare_runs(scene, wl_to_ei(result.capture).entries).same


def _plain_call(n: int = 3) -> CallSequenceEntry:
    """The bundled example's command list (root signature RS and its root arguments bound) drawing through
    PlainMultiDrawIndirect, a command signature without a root signature (IndirectDrawing "Command signature
    Creation", Validation 13: allowed when no argument changes a root argument)."""
    from d3d12wl.records.packers import pack_execute_indirect

    capture = load_capture(EI_EXAMPLE)
    assert isinstance(capture.call, ExecuteIndirectCall)
    plain = capture.objects.command_signatures["PlainMultiDrawIndirect"]
    args = pack_execute_indirect(plain, {"arg0_DrawIndexed.IndexCountPerInstance": np.arange(n) + 3,
                                         "arg0_DrawIndexed.InstanceCount": 1, "arg0_DrawIndexed.StartIndexLocation": 0,
                                         "arg0_DrawIndexed.BaseVertexLocation": 0,
                                         "arg0_DrawIndexed.StartInstanceLocation": 0})
    memory = GpuMemory()
    memory.map(capture.call.ArgumentBuffer, args, name="pArgumentBuffer")
    capture.memory = memory
    capture.call = ExecuteIndirectCall(plain, n, capture.call.ArgumentBuffer, None)
    return CallSequenceEntry(capture, "A")


def test_a_command_signature_without_root_signature_keeps_the_command_lists_root_arguments() -> None:
    """IndirectDrawing "Drawing": the draws use the command list's root signature (the command signature's, when it
    has one, must match it), so the work list keeps that root signature and its root arguments."""
    entry = _plain_call()
    state = entry.capture.state
    result = ei_to_wl([entry])
    migrated = result.capture.state
    assert migrated.graphics_root_signature is not None
    assert [p.parameter_type_name for p in migrated.graphics_root_signature.pParameters] == [
        p.parameter_type_name for p in state.graphics_root_signature.pParameters]  # type: ignore[union-attr]
    trace = execute(result.capture).to_dict()
    registers = {a["register"]: a["value"] for a in trace["executions"][0]["root_arguments"]}
    assert registers["b0 space0"] == state.graphics_root_arguments[0].value
    assert registers["t3 space0"] == state.graphics_root_arguments[5].value


def test_a_command_signature_root_signature_other_than_the_bound_one_is_refused() -> None:
    """IndirectDrawing "Drawing": the root signature of the command list matches that of the command signature."""
    from d3d12wl.model.objects import RootSignature

    entry = load_capture(EI_EXAMPLE)
    entry.state.graphics_root_signature = RootSignature("Other", [], [], 0)
    entry.state.graphics_root_arguments = {}
    with pytest.raises(MigrationError, match="command list has 'Other' bound"):
        ei_to_wl([CallSequenceEntry(entry, "Draw")])


def test_root_arguments_of_a_call_without_command_signature_root_signature_are_compared() -> None:
    """IndirectDrawing "Drawing" / Validation 13: a command signature without a root signature draws with the
    command list's root arguments; its trace lists them (source command-list, every parameter of the command list's
    root signature), so a changed one is a difference, not a note."""
    from d3d12wl.migrate.diff import diff_runs
    from d3d12wl.migrate.wl_to_ei import wl_to_ei
    from d3d12wl.model.state import RootArgument

    entry = _plain_call()
    rs = entry.capture.state.graphics_root_signature
    assert rs is not None and entry.capture.call.pCommandSignature.pRootSignature is None  # type: ignore[union-attr]
    seen = execute(entry.capture).to_dict()["executions"][0]["root_arguments"]
    assert [(a["parameter"], [s["kind"] for s in a["sources"]]) for a in seen] == [
        (p, ["command-list"]) for p in range(len(rs.pParameters))]
    changed = _plain_call()
    changed.capture.state.graphics_root_arguments[0] = RootArgument("descriptor", value=0x999000)
    comparison = compare_runs([entry], [changed])
    assert not comparison.same and not comparison.note and f"CBV b0 space0={0x999000}" in comparison.differences[0]
    assert any("b0 space0: value" in w for w in diff_runs([entry], [changed]).differences[0].what)
    result = ei_to_wl([entry])
    forward = compare_runs([entry], result.capture)
    assert forward.same and not forward.note, forward
    assert not compare_runs([changed], result.capture).same
    back = wl_to_ei(result.capture).entries
    assert compare_runs([entry], back).same
    assert not compare_runs([changed], back).same


def test_a_tier2_round_trip_keeps_the_compute_lists_end_of_list_sync() -> None:
    """Dispatch List Continuations: the bundled chain's compute list ends with _END_WITH_WAIT_FOR_COMPLETION |
    _END_WITH_MEMORY_FLUSH (Flags 0xe); lowered, that is a barrier between the calls (reported), and migrated back the
    compute list ends with them again.  Two work lists whose list flags differ are not the same."""
    from d3d12wl import abi
    from d3d12wl.migrate.wl_to_ei import wl_to_ei

    chain = load_capture(ROOT / "d3d12wl" / "examples" / "tier2_chain_capture.json")
    lowered = wl_to_ei(chain)
    assert lowered.report()["barriers"] == [{"list": 0, "after_call": 0, "before_call": 1,
                                             "flags": ["END_WITH_WAIT_FOR_COMPLETION", "END_WITH_MEMORY_FLUSH"]}]
    back = ei_to_wl(lowered.entries).capture
    assert [lst["header"]["Flags"] for lst in execute(back).to_dict()["lists"]] == [0xE, 0]
    assert compare_runs(chain, back).same
    memory = GpuMemory()
    for r in back.memory:
        raw = bytearray(back.memory.read(r.base, r.size))
        if r.base == back.call.DispatchListInput:  # type: ignore[union-attr]
            at = abi.offsetof("D3D12_DISPATCH_LIST_INPUT1", "Flags")
            raw[at:at + 4] = (2).to_bytes(4, "little")  # list 0's Flags: continuation only
        memory.map(r.base, bytes(raw), name=r.name)
    back.memory = memory
    comparison = compare_runs(chain, back)
    assert not comparison.same and "dispatch lists differ" in comparison.differences[-1], comparison


def test_a_count_beyond_the_mapped_arguments_is_refused_before_anything_is_allocated() -> None:
    """IndirectDrawing "Drawing": MaxCommandCount commands of ByteStride must lie in the argument buffer; a count
    past it (no count buffer) is refused naming the first command outside, without allocating for the count, and
    a count beyond what one migration reads is refused outright."""
    import tracemalloc

    entry = _plain_call(3)
    call = entry.capture.call
    assert isinstance(call, ExecuteIndirectCall)
    entry.capture.call = ExecuteIndirectCall(call.pCommandSignature, 1_000_000, call.ArgumentBuffer, None)
    tracemalloc.start()
    try:
        with pytest.raises(MigrationError, match="command 3 at VA"):
            ei_to_wl([entry])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 << 20, peak
    entry.capture.call = ExecuteIndirectCall(call.pCommandSignature, 200_000_000, call.ArgumentBuffer, None)
    with pytest.raises(MigrationError, match="exceed"):
        ei_to_wl([entry])


def test_a_call_without_a_program_name_verifies(tmp_path: Path) -> None:
    """Spec "Motivation": each call is one PSO; a call sequence entry that names none is named once (pso<i>), the
    same for the migration and for the run it is compared with."""
    from d3d12wl.capture.file import save_capture
    from d3d12wl.migrate.runs import load_call_sequence, save_call_sequence

    entry = _plain_call()
    result = ei_to_wl([CallSequenceEntry(entry.capture)])
    assert compare_runs([CallSequenceEntry(entry.capture)], result.capture).same
    save_capture(entry.capture, tmp_path / "a.json")
    save_call_sequence(tmp_path / "calls.json", [("a.json", None)])
    assert [e.program for e in load_call_sequence(tmp_path / "calls.json")] == ["pso0"]
    r = subprocess.run([sys.executable, "-m", "d3d12wl", "migrate", "ei-to-wl", str(tmp_path / "calls.json"), "-o",
                        str(tmp_path / "wl.json"), "--verify", "--json"], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and json.loads(r.stdout)["verify"]["same"], r.stdout + r.stderr


def test_a_cbv_and_root_constants_on_one_register_are_refused() -> None:
    """Per-binding source: a binding is named by its register, and root constants and a root CBV both bind a b
    register; two root parameters on one register would be one binding, so the migration refuses them."""
    capture = load_capture(EI_EXAMPLE)
    rs = capture.state.graphics_root_signature
    assert rs is not None and rs.pParameters[6].parameter_type_name == "32BIT_CONSTANTS"
    rs.pParameters[6].Constants.ShaderRegister = 0  # b0 space0 is also the root CBV of parameter 0
    with pytest.raises(MigrationError, match="b0 space0"):
        ei_to_wl([CallSequenceEntry(capture, "Draw")])
