"""Captures for the tests of ``check`` and ``report``: calls with findings whose records have fields the user named,
built with the package's own packers and builder (every offset from the layouts), and saved as a user's would be.

* :func:`named_ei_capture`: ExecuteIndirect of ``commands`` draws with a root CBV named ``ObjectCB`` and a DRAW
  named ``Draw``; the commands in ``bad`` hold a CBV address that is not a multiple of 256 bytes (IndirectDrawing.md
  "Command signature Creation": "CBV -- Address and size must be a multiple of 256 bytes": finding
  ``cbv-address-misaligned`` at the ``ObjectCB`` field);
* :func:`named_work_list_capture`: the culling example with the description's Names (``culling_named.json``):
  ``records`` primary records selecting its three programs in turn, ``per_record`` draws each; the secondary
  records of the primary records in ``unmapped`` lie past the mapped memory (finding ``unmapped-va`` of the
  secondary record, the rule naming the primary record's ``SecondaryRecords``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from d3d12wl import abi, examples
from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.file import CAPTURE_VERSION, Capture, save_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.model import description
from d3d12wl.model.state import CommandListState, DeviceCaps, ExecuteIndirectCall, RootArgument
from d3d12wl.records import packers
from d3d12wl.records.layout import command_layout, pcs_layout

ARGS_VA = 0x2_0000_0000
BASE_VA = 0x1_0000_0000
CB_VA = 0x7000_0000

NAMED_EI = {
    "root_signatures": {"RS": {"pParameters": [
        {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": 0}, "ShaderVisibility": "ALL"}],
        "Flags": ["ALLOW_INPUT_ASSEMBLER_INPUT_LAYOUT"]}},
    "command_signatures": {"PerObject": {"ByteStride": 24, "pArgumentDescs": [
        {"Name": "ObjectCB", "Type": "CONSTANT_BUFFER_VIEW", "ConstantBufferView": {"RootParameterIndex": 0}},
        {"Name": "Draw", "Type": "DRAW"}], "pRootSignature": "RS"}},
}


def named_ei_capture(commands: int = 8, bad: Iterable[int] = (3,)) -> Capture:
    objects = description.load(NAMED_EI)
    cs = objects.command_signatures["PerObject"]
    assert cs.ByteStride >= command_layout(cs).size
    k = np.arange(commands, dtype=np.uint64)
    cb = CB_VA + k * 256
    for i in bad:
        cb[i] += 4
    args = packers.pack_execute_indirect(cs, {"ObjectCB": cb, "Draw.VertexCountPerInstance": 3 + k % 5,
                                              "Draw.InstanceCount": 1, "Draw.StartVertexLocation": 0,
                                              "Draw.StartInstanceLocation": 0})
    memory = GpuMemory()
    memory.map(ARGS_VA, args, name="pArgumentBuffer")
    rs = cs.pRootSignature
    assert rs is not None
    device = DeviceCaps(Tier=abi.enum_value("D3D12_WORK_LISTS_TIER", "TIER_1"), DispatchRaysSupported=False)
    state = CommandListState(graphics_root_signature=rs,
                             graphics_root_arguments={0: RootArgument("descriptor", value=CB_VA)})
    return Capture(CAPTURE_VERSION, device, objects, memory, state, ExecuteIndirectCall(cs, commands, ARGS_VA, None))


def named_work_list_capture(records: int = 3, per_record: int = 3, unmapped: Iterable[int] = ()) -> Capture:
    objects = description.load(json.loads(examples.path("culling_named.json").read_text(encoding="utf-8")))
    pcs = objects.program_command_signatures["PCS"]
    programs = list(objects.programs.values())
    draws = records * per_record
    k = np.arange(draws, dtype=np.uint64)
    spec = DispatchListSpec(
        pcs, {"ProgramTableIndex": (np.arange(records) % len(programs)).astype(np.uint32)},
        {"MaterialBufferSRV": 0x7000_0000 + k * 256, "Draw.VertexCountPerInstance": 3 + k % 7,
         "Draw.InstanceCount": 1, "Draw.StartVertexLocation": k * 3, "Draw.StartInstanceLocation": 0},
        np.full(records, per_record, dtype=np.uint32))
    tints = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 0.5, 1.0, 0.5], [0.0, 0.0, 0.0, 1.0]], dtype=np.float32)
    table = ProgramTableSpec(pcs_layout(pcs), {"ProgramIdentifier": [p.Identifier for p in programs],
                                               "Tint": tints.view(np.uint32)})
    wl = build_work_list([spec], base_va=BASE_VA, program_table=table, signature=objects.work_list_signatures["WLS"],
                         objects=objects)
    grs = objects.root_signatures["GRS"]
    state = wl.command_list_state(graphics_root_signature=grs,
                                  graphics_root_arguments={0: RootArgument("descriptor", value=0x5000_0000)})
    capture: Capture = wl.to_capture(objects, state=state)
    bad = list(unmapped)
    if not bad:
        return capture
    # the primary records' SecondaryRecords pointed past every mapped byte (the regions copied and patched)
    field = pcs_layout(pcs).primary.field("SecondaryRecords")
    top = max(r.end for r in capture.memory.regions)
    header = packers.read_dispatch_list_inputs(capture.memory.view(capture.call.DispatchListInput, 24))[0]
    start, stride = int(header["ProgramInputs"]["StartAddress"]), int(header["ProgramInputs"]["StrideInBytes"])
    memory = GpuMemory()
    for r in capture.memory.regions:
        data = bytearray(r.data)
        for i in bad:
            at = start + i * stride + field.offset - r.base
            if 0 <= at < len(data):
                data[at: at + 8] = (top + 0x10000 * (i + 1)).to_bytes(8, "little")
        memory.map(r.base, data, name=r.name)
    return dataclasses.replace(capture, memory=memory)

def save(capture: Capture, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    return save_capture(capture, path)
