"""The table of references by value a call reads (d3d12wl.executor.references, ``d3d12wl patch-list``): every GPU
VA, descriptor handle and program identifier, once, where the call reads it, named by the layout (design.md,
"References by value: what a replay tool must rewrite").

Fixtures are the spec's examples (the bundled captures: "GPU culling and work list emission" at Tier 1, the Tier 2
cross-class chain, IndirectDrawing.md's "Root Constants + Vertex Buffers", the validation chain) and the executor
tests' scenes for descriptor tables, explicit local root signatures and raytracing-class records (tests/remap_cases.py).
"""

from __future__ import annotations

import csv
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_HEAPS,
    TABLE_VA,
    Scene,
    arg,
    dispatch,
    dispatch_input,
    one_program_scene,
    primary,
    program,
    program_table,
    root_signature,
    secondaries,
    srv,
    table_param,
    view_param,
)
from remap_cases import CASES, capture_of, descriptor_tables, explicit_local_root_signature, raytracing

from d3d12wl import examples
from d3d12wl.capture.file import load_capture
from d3d12wl.cli import main
from d3d12wl.executor import arrays, execute
from d3d12wl.executor.references import COLUMNS, NAME_COLUMNS, ReferenceTable, patch_list, walk_references
from d3d12wl.executor.references_output import FORMATS, writer_for
from d3d12wl.model.objects import ProgramCommandSignature, RootParameterIndexArg, WorkListSignature
from d3d12wl.model.state import DescriptorHeaps, DispatchListCall
from d3d12wl.records.layout import pcs_layout

ROOT = Path(__file__).resolve().parent.parent


def rows(capture: Any) -> list[dict[str, Any]]:
    return list(patch_list(capture).rows())


def memory_rows(capture: Any) -> list[dict[str, Any]]:
    return [r for r in rows(capture) if r["region"] is not None]


def test_culling_example_lists_every_reference_the_call_reads():
    """Tier 1, the spec's culling example: the dispatch input's ProgramInputs.StartAddress, each selected slot's
    identifier, each primary record's SecondaryRecords and each secondary record's material SRV (arg0), in walk
    order; the call's DispatchListInput, SetProgram's table, the root CBV and the programs' identifiers first."""
    table = rows(load_capture(examples.path("culling_capture.json")))
    state = [(r["record_id"], r["field"]) for r in table if r["region"] is None]
    assert state == [("call", "DispatchList.DispatchListInput"),
                     ("state", "program.WorkList.Binding.ProgramTable.Table.StartAddress"),
                     ("state", "graphics_root_arguments.0.Descriptor"),
                     ("programs", "Opaque.Identifier"), ("programs", "Transparent.Identifier"),
                     ("programs", "Shadow.Identifier")]
    mem = [r for r in table if r["region"] is not None]
    assert [(r["record_id"], r["field"]) for r in mem[:2]] == [("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StartAddress"),
                                                              ("Opaque.program_table", "ProgramIdentifier")]
    srvs = [r for r in mem if r["field"] == "arg0_ShaderResourceView"]
    assert len(srvs) == 9 and [r["secondary_index"] for r in srvs] == [0, 1, 2, 3, 0, 1, 0, 1, 2]
    assert [r["value"] for r in srvs[:2]] == [0x100000, 0x101000]  # "material SRVs at 0x100000 ... + 0x1000"
    assert all(r["target"] is None for r in srvs)  # the SRVs' resources are not captured memory
    seconds = [r for r in mem if r["field"] == "SecondaryRecords"]
    assert [(r["primary_index"], r["value"], r["target"]) for r in seconds] == [
        (0, 0x40000, "g_SecondaryBuffer[Opaque]"), (1, 0x41800, "g_SecondaryBuffer[Transparent]"),
        (2, 0x43000, "g_SecondaryBuffer[Shadow]")]
    for r in mem:  # where: the field's VA is its region's base + offset, its value what the bytes hold
        region = next(g for g in load_capture(examples.path("culling_capture.json")).memory.regions
                      if g.name == r["region"])
        assert r["va"] == region.base + r["offset"]
        if r["kind"] == "va":
            assert int.from_bytes(region.data[r["offset"]:r["offset"] + 8], "little") == r["value"]
    idents = [r for r in mem if r["kind"] == "program-identifier"]
    assert [(r["slot_index"], r["target"]) for r in idents] == [(0, "Opaque"), (1, "Transparent"), (2, "Shadow")]
    assert idents[0]["identifier"] == b"OpaqueProgram".hex() + "00" * 19


def test_tier2_chain_reads_next_dispatch_list_where_the_continuation_does():
    """Tier 2: each list's ProgramInputs.StartAddress; list 0's NextDispatchList (read: _ALLOW_NEXT_DISPATCH_LIST_
    CONTINUATION is set), none for list 1 (without the flag it is ignored, "Next-list pointer semantics")."""
    mem = memory_rows(load_capture(examples.path("tier2_chain_capture.json")))
    header = [(r["list_index"], r["field"]) for r in mem if r["record_id"] == "D3D12_DISPATCH_LIST_INPUT1"]
    assert header == [(0, "ProgramInputs.StartAddress"), (1, "ProgramInputs.StartAddress"), (0, "NextDispatchList")]
    assert {r["record_id"] for r in mem} >= {"PCS_Cull.primary", "PCS_Draw.primary", "PCS_Draw.secondary",
                                           "Cull.program_table", "Opaque.program_table", "AlphaTested.program_table"}


def test_execute_indirect_lists_the_commands_the_call_executes():
    """IndirectDrawing.md "Root Constants + Vertex Buffers": the VB view's BufferLocation of the min(count 3, 4)
    commands executed (commands 3 and 4 are written and never read), the buffers' VAs of the call."""
    table = rows(load_capture(examples.path("execute_indirect_capture.json")))
    commands = [r for r in table if r["region"] is not None]
    assert [(r["command_index"], r["field"], r["value"]) for r in commands] == [
        (k, "arg2_VertexBuffer.BufferLocation", 0x200000 + 0x1000 * k) for k in range(3)]
    assert [r["field"] for r in table if r["record_id"] == "call"] == ["ExecuteIndirect.pArgumentBuffer",
                                                                      "ExecuteIndirect.pCountBuffer"]


def test_execute_indirect_root_views_and_index_buffer():
    """Every EI argument type that holds a VA: root CBV / SRV / UAV views, VB and IB views; the buffers' resources
    (version 2) by their GPUVirtualAddress."""
    c = CASES["execute indirect, every argument"]()
    table = rows(c)
    fields = {r["field"] for r in table if r["region"] is not None}
    assert any(f.endswith("_ConstantBufferView") for f in fields) and "arg" in next(iter(fields))
    assert any(f.endswith("_IndexBuffer.BufferLocation") for f in fields)
    assert {r["field"] for r in table if r["record_id"] == "call"} == {
        "ExecuteIndirect.pArgumentBuffer.GPUVirtualAddress", "ExecuteIndirect.pCountBuffer.GPUVirtualAddress"}
    executed = len(execute(c).executions)
    per_command = {r["field"] for r in table if r["command_index"] == 0}
    assert len([r for r in table if r["region"] is not None]) == executed * len(per_command)


def test_descriptor_tables_global_and_local():
    """Spec "_DESCRIPTOR_TABLE" and "Local descriptor tables": the global SRV table of each primary record and the
    local sampler table of each secondary record, each with the heap its root parameter's type addresses and the
    descriptor it falls on in the bound heap (capture version 4)."""
    mem = memory_rows(descriptor_tables())
    handles = [r for r in mem if r["kind"] == "descriptor-handle"]
    glob = [r for r in handles if r["field"] == "arg0_DescriptorTable"]
    local = [r for r in handles if r["field"] == "arg1_InlineRootParameter"]
    assert len(glob) == 6 and len(local) == sum(i % 3 + 1 for i in range(6))
    assert {r["heap"] for r in glob} == {"CBV_SRV_UAV"} and {r["heap"] for r in local} == {"SAMPLER"}
    assert [r["target_offset"] // TABLE_HEAPS["CBV_SRV_UAV"].DescriptorIncrementSize for r in glob] == [0, 3, 6, 9,
                                                                                                     12, 15]
    assert all(r["target"] == r["heap"] for r in handles)


def test_program_table_tail_of_an_explicit_local_root_signature():
    """Spec "Local root signatures" (explicit path): each selected slot's identifier, then the tail's local CBV
    (param1, a VA) and local descriptor table (param2, a handle); the overridden constant is in the records."""
    mem = memory_rows(explicit_local_root_signature())
    slots = [(r["slot_index"], r["field"], r["kind"]) for r in mem if r["record_id"].endswith(".program_table")]
    assert slots == [(0, "ProgramIdentifier", "program-identifier"), (0, "param1", "va"),
                     (0, "param2", "descriptor-handle"), (1, "ProgramIdentifier", "program-identifier"),
                     (1, "param1", "va"), (1, "param2", "descriptor-handle")]
    assert [r["record_id"] for r in mem if r["field"] == "param1"] == ["A.program_table", "B.program_table"]


@pytest.mark.parametrize("hybrid", [True, False])
def test_raytracing_records(hybrid):
    """Raytracing-class records (spec "Raytracing pipeline programs"): the primary record's root SRV and, hybrid,
    its SecondaryRecords; the bound RTPSO's shader tables in the state; no program table."""
    table = rows(raytracing(hybrid)())
    mem = [(r["record_id"], r["field"]) for r in table if r["region"] is not None]
    expected = [("RT.primary", "SecondaryRecords")] if hybrid else []
    assert mem == [("D3D12_DISPATCH_LIST_INPUT", "ProgramInputs.StartAddress"), *expected,
                   ("RT.primary", "arg0_ShaderResourceView")]
    assert [r["field"] for r in table if r["record_id"] == "state"][:2] == [
        "program.WorkList.Binding.pRaytracing.RayGenerationShaderRecord.StartAddress",
        "program.WorkList.Binding.pRaytracing.MissShaderTable.StartAddress"]


def test_validation_program_table_slots():
    """Spec "Validator invocation order and barriers": the slots the validators would be dispatched from (the
    bundled validation chain: the primary-list validator's slot 1 for list 0, the secondary-list validator's
    slot 2 for list 1), the identifier of each."""
    mem = memory_rows(load_capture(examples.path("validation_chain_capture.json")))
    slots = [(r["list_index"], r["slot_index"]) for r in mem if r["record_id"] == "validation_program_table"]
    assert slots == [(0, 1), (1, 2)]


def test_a_field_read_again_is_one_row():
    """A broadcast secondary stride (0: every secondary record is the same bytes) and two primary records sharing
    one secondary list: each field is one row, at the first record that reads it."""
    pcs = ProgramCommandSignature("H", [srv(0), arg("DISPATCH", "SECONDARY_RECORD")], SecondaryRecordByteStride=0)
    s = one_program_scene(pcs)
    s.put(SECONDARY_VA, secondaries(pcs, [{"arg0_ShaderResourceView": 0x5000, "arg1_Dispatch": dispatch(1)}]))
    s.put(PRIMARY_VA, b"".join(primary(pcs, ProgramTableIndex=0, NumSecondaryRecords=4, SecondaryRecords=SECONDARY_VA)
                               for _ in range(3)))
    s.put(INPUT_VA, dispatch_input(3, PRIMARY_VA, pcs_layout(pcs).primary.min_stride))
    c = capture_of(s, DispatchListCall(INPUT_VA))
    assert len(execute(c).executions) == 12
    mem = memory_rows(c)
    srvs = [r for r in mem if r["field"] == "arg0_ShaderResourceView"]
    assert [(r["primary_index"], r["secondary_index"]) for r in srvs] == [(0, 0)]
    assert [r["primary_index"] for r in mem if r["field"] == "SecondaryRecords"] == [0, 1, 2]
    assert len([r for r in mem if r["field"] == "ProgramIdentifier"]) == 1


def test_bytes_read_as_two_references_are_a_finding():
    """Records that overlap: a hybrid record's secondary list points into the primary list, so bytes one PCS reads
    as a root SRV's VA another reads as a descriptor table's handle; no rewrite is right for both readings
    (reference-overlap), and each is listed once."""
    grs = root_signature("GRS", view_param("SRV"), table_param("SRV"))
    a = ProgramCommandSignature("A", [srv(0), arg("DISPATCH", "SECONDARY_RECORD")], pGlobalRootSignature=grs)
    b = ProgramCommandSignature("B", [arg("DESCRIPTOR_TABLE", DescriptorTable=RootParameterIndexArg(1)),
                                      arg("DISPATCH")], pGlobalRootSignature=grs)
    a.SecondaryRecordByteStride = pcs_layout(a).secondary.min_stride
    s = Scene()
    pa, pb = program("PA", 1, a), program("PB", 2, b)
    s.add_programs(pa, pb)
    s.put(TABLE_VA, program_table([(pa, {}), (pb, {})], 32))
    s.bind(WorkListSignature("W", [a, b]), TABLE_VA, 32, 2)
    s.state.descriptor_heaps = DescriptorHeaps(CBV_SRV_UAV=True)
    stride = max(pcs_layout(a).primary.min_stride, pcs_layout(b).primary.min_stride)
    table_at = PRIMARY_VA + stride + pcs_layout(b).primary.field("arg0_DescriptorTable").offset
    records = (primary(a, stride, ProgramTableIndex=0, NumSecondaryRecords=1, SecondaryRecords=table_at)
               + primary(b, stride, ProgramTableIndex=1, arg0_DescriptorTable={"ptr": 0x777}, arg1_Dispatch=dispatch(1)))
    s.put(PRIMARY_VA, bytes(records) + bytes(64))
    s.put(INPUT_VA, dispatch_input(2, PRIMARY_VA, stride))
    c = capture_of(s, DispatchListCall(INPUT_VA))
    assert len(execute(c).executions) == 2
    table = patch_list(c)
    overlaps = [f for f in table.findings if f.kind == "reference-overlap"]
    assert len(overlaps) == 1 and overlaps[0].va == table_at and overlaps[0].severity == "error"
    assert "is read as a GPU VA and as a descriptor handle of the CBV_SRV_UAV heap" in overlaps[0].message
    assert len([r for r in table.rows() if r["va"] == table_at]) == 1


@pytest.mark.parametrize("chunk", [2, 5, arrays.CHUNK])
@pytest.mark.parametrize("name", list(CASES))
def test_streamed_in_chunks_the_table_is_the_same(name, chunk):
    """walk_references hands the rows over chunk by chunk and lets the trace's items go (LazyList.release): the
    rows are patch_list's whatever the chunk size (in record order within a chunk's records), and the findings
    are the executor's."""
    c = CASES[name]()
    old = arrays.CHUNK
    arrays.CHUNK = chunk
    try:
        parts: list[dict[str, np.ndarray]] = []
        walk = walk_references(c, lambda t: parts.append(t.columns))
    finally:
        arrays.CHUNK = old
    whole = patch_list(c)
    streamed = ReferenceTable({k: np.concatenate([p[k] for p in parts]) if parts else whole.columns[k][:0]
                               for k in COLUMNS}, walk.names)

    def key(row: dict[str, Any]) -> tuple[Any, ...]:
        return tuple((v is None, v) for v in row.values())

    assert sorted(streamed.rows(), key=key) == sorted(whole.rows(), key=key)
    assert [str(f) for f in walk.trace.findings] == [str(f) for f in execute(c).findings]
    assert all(len(seg) == len(lt.primary_records) for lt in walk.trace.lists
               for seg in lt.primary_records.segments)  # released: one placeholder of the list's length


def test_columns_and_their_types():
    table = patch_list(load_capture(examples.path("culling_capture.json")))
    assert list(table.columns) == list(COLUMNS)
    assert all(table.columns[c].dtype == dt for c, dt in COLUMNS.items())
    assert table.names["kind"] == ["va", "descriptor-handle", "program-identifier"]


def _written(table: ReferenceTable, fmt: str) -> bytes:
    out = io.BytesIO()
    w = writer_for(fmt, out)
    half = len(table) // 2
    for a, b in ((0, half), (half, len(table))):
        w.write(ReferenceTable({k: v[a:b] for k, v in table.columns.items()}, table.names))
    w.close(table.findings, table.findings_suppressed)
    return out.getvalue()


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_holds_the_table(fmt):
    """csv, jsonl, npz and parquet hold the same rows (one encoding per value) and, but for csv, the findings."""
    c = load_capture(examples.path("validation_chain_capture.json"))
    table = patch_list(c)
    expected = list(table.rows())
    data = _written(table, fmt)
    if fmt == "csv":
        got = list(csv.DictReader(io.StringIO(data.decode())))
        assert len(got) == len(expected)
        for g, e in zip(got, expected, strict=True):
            for k in COLUMNS:
                v = e[k]
                text = "" if v is None else f"0x{v:x}" if k in ("offset", "va", "value", "target_offset") else str(v)
                assert g[k] == text, (k, g, e)
    elif fmt == "jsonl":
        lines = [json.loads(line) for line in data.decode().splitlines()]
        refs = [{k: v for k, v in line.items() if k != "record"} for line in lines if line["record"] == "reference"]
        assert refs == expected
        assert [line["kind"] for line in lines if line["record"] == "finding"] == [f.kind for f in table.findings]
        assert lines[-1] == {"record": "end", "references": len(expected), "findings": len(table.findings),
                             "findings_suppressed": 0}
    elif fmt == "npz":
        z = np.load(io.BytesIO(data))
        for k in COLUMNS:
            assert z[k].dtype == COLUMNS[k] and np.array_equal(z[k], table.columns[k]), k
        for k in NAME_COLUMNS:
            assert z[f"names.{k}"].tolist() == table.names[k]
        assert z["findings.kind"].tolist() == [f.kind for f in table.findings]
        assert zipfile.is_zipfile(io.BytesIO(data))
    else:
        pq = pytest.importorskip("pyarrow.parquet")
        t = pq.read_table(io.BytesIO(data))
        assert t.to_pylist() == expected
        meta = json.loads(pq.read_metadata(io.BytesIO(data)).metadata[b"d3d12wl.findings"])
        assert [f["kind"] for f in meta] == [f.kind for f in table.findings]


def test_patch_list_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]):
    """d3d12wl patch-list: the rows to standard output or -o (atomically), a summary and the findings on standard
    error; exit 1 when the call has error findings (the table is still written)."""
    assert main(["patch-list", str(ROOT / "d3d12wl/examples/culling_capture.json")]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == ",".join(COLUMNS) and len(out.splitlines()) == 23
    assert err.splitlines()[0] == "22 references (16 va, 0 descriptor-handle, 6 program-identifier)"
    target = tmp_path / "refs.npz"
    assert main(["patch-list", str(ROOT / "d3d12wl/examples/validation_chain_capture.json"), "--format", "npz",
                 "-o", str(target)]) == 1
    assert len(np.load(target)["va"]) == 32
    assert "findings (12)" in capsys.readouterr().err
    assert main(["patch-list", str(ROOT / "d3d12wl/examples/culling_capture.json"), "-o",
                 str(tmp_path / "missing" / "x.csv")]) == 2
    assert "missing" in capsys.readouterr().err
    assert main(["patch-list", str(ROOT / "d3d12wl/examples/culling_capture.json"), "--format", "jsonl", "-o",
                 str(tmp_path / "r.jsonl"), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["references"] == 22 and doc["kinds"] == {"va": 16, "descriptor-handle": 0, "program-identifier": 6}
    assert main(["patch-list", str(ROOT / "d3d12wl/examples/culling_capture.json"), "--json"]) == 2
    assert main(["patch-list", str(ROOT / "d3d12wl/examples/culling.json")]) == 2
    assert "is a description, not a capture" in capsys.readouterr().err
