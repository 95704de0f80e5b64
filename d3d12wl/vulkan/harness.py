"""From a :class:`~d3d12wl.vulkan.lowering.Lowering` to the GPU harness's case file, and from the reference
executor's trace to the records the GPU must write (:func:`expected_records`), so that
``tools/gpu_check.py`` can hold the executor to what the GPU did, draw by draw.

Two comparisons close the loop:

* :func:`expected_records` (the executor's trace, via ``Trace.to_dict()``) against
  :func:`d3d12wl.vulkan.case.model_records` (the lowering's sequence buffer, executed as the Vulkan spec says):
  the lowering against the executor, on the CPU (CI runs it);
* the GPU's records against both: the GPU against the lowering and against the executor.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from d3d12wl import abi
from d3d12wl.vulkan.case import RECORD_HEADER, Case, CaseToken, write_case
from d3d12wl.vulkan.lowering import Lowering, LoweringError
from d3d12wl.vulkan.vk import TokenType

__all__ = ["case_of", "expected_records", "write_lowering_case"]

#: the dummy vertex buffer and the identity index buffer are capped at this size
MAX_HARNESS_BUFFER = 64 << 20


def case_of(lowering: Lowering) -> Case:
    """The harness case of a lowering made with ``sequence_index=True``."""
    lay = lowering.layout
    if lay is None or not lowering.lowered:
        raise LoweringError("nothing to run: the call was not lowered",
                            where="; ".join(f"{n.what}: {n.reason}" for n in lowering.not_lowered))
    seq_ranges = [r for r in lay.push_constants if r.kind == "sequence_index"]
    if not seq_ranges:
        raise LoweringError("the harness needs the lowering's sequence-index slot (lower(..., sequence_index=True))")
    seq = lowering.sequences
    index_bytes = vertex_bytes = 0
    index_size = 4
    vbv_size = abi.offsetof("D3D12_VERTEX_BUFFER_VIEW", "SizeInBytes")
    ibv_size = abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "SizeInBytes")
    ibv_format = abi.offsetof("D3D12_INDEX_BUFFER_VIEW", "Format")
    draw_indexed = abi.sizeof("D3D12_DRAW_INDEXED_ARGUMENTS") // 4
    index_count = abi.offsetof("D3D12_DRAW_INDEXED_ARGUMENTS", "IndexCountPerInstance") // 4
    start_index = abi.offsetof("D3D12_DRAW_INDEXED_ARGUMENTS", "StartIndexLocation") // 4
    for t in lay.tokens:
        if t.type is TokenType.VERTEX_BUFFER and lowering.count:
            sizes = np.ascontiguousarray(seq[:, t.offset + vbv_size:t.offset + vbv_size + 4]).view("<u4")
            vertex_bytes = max(vertex_bytes, int(sizes.max()))
        if t.type is TokenType.INDEX_BUFFER and lowering.count:
            fmt = np.unique(np.ascontiguousarray(seq[:, t.offset + ibv_format:t.offset + ibv_format + 4]).view("<u4"))
            element = {abi.enum_value("DXGI_FORMAT", "R16_UINT"): 2, abi.enum_value("DXGI_FORMAT", "R32_UINT"): 4}
            if len(fmt) != 1 or int(fmt[0]) not in element:
                raise LoweringError(f"index buffer formats {fmt.tolist()}: the harness takes one of R16_UINT, R32_UINT")
            index_size = element[int(fmt[0])]
        if t.type is TokenType.DRAW_INDEXED and lowering.count:
            d = np.ascontiguousarray(seq[:, t.offset:t.offset + 4 * draw_indexed]).view("<u4").reshape(
                -1, draw_indexed).astype(np.uint64)
            index_bytes = max(index_bytes, int((d[:, start_index] + d[:, index_count]).max()) * index_size)
    tokens = tuple(CaseToken(int(t.type), t.offset, t.size, t.push_offset or 0, t.push_size or 0,
                             t.vertex_binding_unit or 0, int(t.index_mode or 0)) for t in lay.tokens)
    return Case(lay.executable_class == "COMPUTE", max(len(lowering.execution_set), 1), lay.push_constant_size,
                lay.stride, seq_ranges[0].offset // 4, tokens, lowering.initial_push_constants, seq,
                min(index_bytes, MAX_HARNESS_BUFFER), min(vertex_bytes, MAX_HARNESS_BUFFER), index_size, vbv_size,
                ibv_size)


def write_lowering_case(lowering: Lowering, path: str | Path) -> Path:
    return write_case(case_of(lowering), path)


def _trigger_record(trigger: Mapping[str, Any], rec: np.ndarray) -> int:
    """Fill the draw / dispatch fields of one record from the trace's trigger; returns the invocation count."""
    f = trigger["fields"]
    kind = trigger["type"]
    if kind == "DRAW":
        vc, ic = f["VertexCountPerInstance"], f["InstanceCount"]
        rec[4], rec[5], rec[6], rec[7], rec[8] = f["StartVertexLocation"], f["StartInstanceLocation"], vc, ic, \
            0xFFFFFFFF
        return int(vc) * int(ic)
    if kind == "DRAW_INDEXED":
        n, ic, first = f["IndexCountPerInstance"], f["InstanceCount"], f["StartIndexLocation"]
        rec[4] = f["BaseVertexLocation"] & 0xFFFFFFFF
        rec[5], rec[6], rec[7], rec[8] = f["StartInstanceLocation"], first + n, ic, 0xFFFFFFFF - first
        return int(n) * int(ic)
    if kind in ("DISPATCH", "FIXED_DISPATCH"):
        x, y, z = f["ThreadGroupCountX"], f["ThreadGroupCountY"], f["ThreadGroupCountZ"]
        rec[4], rec[5], rec[6] = x, y, z
        return int(x) * int(y) * int(z)
    raise LoweringError(f"trigger {kind} has no record form in the harness")


def expected_records(trace: Mapping[str, Any], lowering: Lowering, list_index: int | None = None) -> np.ndarray:
    """The records the GPU must write, from the executor's trace alone (``Trace.to_dict()``): per execution its
    program (as an execution-set index), every resolved root argument at its place in the push-constant block, and
    its draw or dispatch arguments.  The lowering gives only the places (the layout), never the values.
    ``list_index``: for one list of a DispatchList1 chain (``lowering`` is then ``lowering.lists[list_index]`` of
    the chain), only that list's executions, in order."""
    lay = lowering.layout
    if lay is None:
        raise LoweringError("the call was not lowered (a DispatchList1 chain: pass one of its lists)")
    executions = [e for e in trace["executions"] if list_index is None or e["list_index"] == list_index]
    pcd = lay.push_constant_size // 4
    out = np.zeros((len(executions), RECORD_HEADER + pcd), dtype=np.uint32)
    places = {(r.binding, r.parameter): r for r in lay.push_constants}
    seq_slot = next((r for r in lay.push_constants if r.kind == "sequence_index"), None)
    set_index = {name: i for i, name in enumerate(lowering.execution_set)}
    for k, e in enumerate(executions):
        rec = out[k]
        invocations = _trigger_record(e["trigger"], rec)
        if invocations == 0:
            rec[:] = 0
            continue
        rec[0] = invocations
        rec[1] = set_index[e["program"]] if lowering.execution_set else 0
        rec[2] = k
        pc = np.zeros(lay.push_constant_size, dtype=np.uint8)
        for a in e["root_arguments"]:
            r = places.get((a["binding"], a["parameter"]))
            if r is None or a["kind"] in ("static_sampler", "descriptor_table"):
                continue
            # a root argument the command list never set (value None) is what the harness pushes: zero
            if a["values"] is not None:
                data = np.asarray([v or 0 for v in a["values"]], dtype="<u4").tobytes()
            elif a["value"] is not None:
                data = int(a["value"]).to_bytes(8, "little")
            else:
                continue
            pc[r.offset:r.offset + min(len(data), r.size)] = np.frombuffer(data[:r.size], dtype=np.uint8)
        if seq_slot is not None:
            pc[seq_slot.offset:seq_slot.offset + 4] = np.frombuffer(np.uint32(k).tobytes(), dtype=np.uint8)
        rec[RECORD_HEADER:] = pc.view("<u4")
    return out
