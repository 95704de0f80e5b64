#!/usr/bin/env python3
"""Regenerate ``d3d12wl/examples/validation_chain_capture.json``: a Tier 2 ``DispatchList1`` chain with the GPU
timeline validation hooks on (spec "GPU Timeline Validation Hooks"), whose second list is corrupted, for the
validators of ``d3d12wl/examples/validators.py``::

    d3d12wl exec d3d12wl/examples/validation_chain_capture.json --validators d3d12wl.examples.validators:VALIDATORS

The objects are those of the Tier 2 chain example (``d3d12wl/examples/tier2_chain.json``: ``GRS``, the compute
``WLS_Cull`` and graphics ``WLS_Draw`` in the array ``ARR``, programs ``Cull``, ``Opaque``, ``AlphaTested``) with
the validation index fields set: both work list signatures' ``ListValidationProgramTableIndex`` = the primary-list
check's slot, ``PCS_Draw``'s ``RecordValidationProgramTableIndex`` = the secondary-list check's slot.

The chain, laid out by :func:`d3d12wl.builder.build_work_list` (tier 2) in one writable buffer (validators write
back through UAVs), which also holds the culling and draw program tables (``bindings=``, one per signature index
of ``ARR``) and the validation program table (``validation_table=``: slot 0 the "no validator" sentinel, then the
validators' identifiers, :func:`validators.table_slots`).  SetProgram, :meth:`BuiltWorkList.command_list_state`,
binds the array (``D3D12_PROGRAM_TYPE_WORK_LIST1``) with pBindings parallel to its signatures and a non-null
``ValidationProgramTable``, so the array-bind path runs validators:

* list 0, ``WLS_Cull``: two fully-inline culling dispatches; valid;
* list 1, ``WLS_Draw``: two hybrid draw records, but the producer wrote the culling pass's *input* object count
  into ``NumProgramInputs`` (:data:`CORRUPT_NUM_PROGRAM_INPUTS`) instead of the 2 survivors: the records run far
  past the buffer.  The primary-list check zeroes ``NumProgramInputs`` and the list executes nothing (its
  ``NextDispatchList`` is still followed);
* list 2, ``WLS_Draw``: one hybrid record with 3 secondary records whose ``NumSecondaryRecords`` says
  :data:`CORRUPT_NUM_SECONDARY_RECORDS`; its secondary list is the last part of the buffer, so the
  secondary-list check truncates the count to the 3 that exist.

Without validators the executor runs what the bytes say (list 1's garbage records, list 2's reads past the
buffer) and reports it.  Every offset comes from the compiled headers, the layout calculator and the builder.
``--check`` exits 1 if the committed file is out of date.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import numpy as np

from d3d12wl import abi, description
from d3d12wl.builder import BindingSpec, DispatchListSpec, ProgramTableSpec, ValidationTableSpec, build_work_list
from d3d12wl.capture import Capture, capture_to_dict
from d3d12wl.examples import validators
from d3d12wl.layout import pcs_layout
from d3d12wl.memory import GpuMemory
from d3d12wl.model import ProgramCommandSignature
from d3d12wl.state import RootArgument

EXAMPLES = Path(__file__).resolve().parent.parent / "d3d12wl" / "examples"
OUT = EXAMPLES / "validation_chain_capture.json"
OBJECTS = EXAMPLES / "tier2_chain.json"

#: the builder's buffer: the three D3D12_DISPATCH_LIST_INPUT1s, both program tables, the validation program table,
#: the lists
WORK_LIST_VA = 0x10000
FRAME_CONSTANTS_VA = 0x50000  # GRS parameter 0, a root CBV, set in both binding sets
THREADS_PER_GROUP = 64

#: list 0: (object batch SRV, objects in it)
CULL_BATCHES = ((0x100000, 100), (0x101000, 64))
#: list 1 (program, its slot, tint, draws) and list 2, each draw (material SRV, VertexCountPerInstance,
#: StartVertexLocation); the draw table's slots follow DRAW_PROGRAMS' order
DRAW_PROGRAMS = (("Opaque", (1.0, 1.0, 1.0, 1.0)), ("AlphaTested", (0.5, 0.75, 0.25, 1.0)))
LIST1_DRAWS = (("Opaque", ((0x200000, 36, 0), (0x201000, 24, 36))), ("AlphaTested", ((0x210000, 6, 60),)))
LIST2_DRAWS = (("Opaque", ((0x220000, 36, 66), (0x221000, 12, 102), (0x222000, 48, 114))),)

#: what the producer wrote into list 1's NumProgramInputs: the culling pass's input object count
CORRUPT_NUM_PROGRAM_INPUTS = sum(n for _, n in CULL_BATCHES)
#: what list 2's record claims (3 secondary records exist)
CORRUPT_NUM_SECONDARY_RECORDS = 8


def _draw_list(pcs: ProgramCommandSignature, slots: dict[str, int], draws: tuple[tuple[str, tuple[tuple[int, int, int], ...]], ...],
               signature_index: int) -> DispatchListSpec:
    flat = [d for _, ds in draws for d in ds]
    material, vertex_count, start_vertex = (np.array(c, dtype=np.uint64) for c in zip(*flat, strict=True))
    return DispatchListSpec(
        pcs,
        {"ProgramTableIndex": np.array([slots[name] for name, _ in draws], dtype=np.uint32)},
        {"arg0_ShaderResourceView": material, "arg2_Draw.VertexCountPerInstance": vertex_count,
         "arg2_Draw.InstanceCount": 1, "arg2_Draw.StartVertexLocation": start_vertex,
         "arg2_Draw.StartInstanceLocation": 0},
        np.array([len(ds) for _, ds in draws], dtype=np.uint32),
        signature_index=signature_index)


def build() -> Capture:
    objects = description.load(json.loads(OBJECTS.read_text(encoding="utf-8")))
    pcs_cull = objects.program_command_signatures["PCS_Cull"]
    pcs_draw = objects.program_command_signatures["PCS_Draw"]
    array = objects.work_list_signature_arrays["ARR"]
    cull_index = next(i for i, s in enumerate(array.pSignatures) if pcs_cull in s.pProgramCommandSignatures)
    draw_index = next(i for i, s in enumerate(array.pSignatures) if pcs_draw in s.pProgramCommandSignatures)
    # the validation index fields (spec "Binding the validation program table"; slot 0 = no validator)
    for wls in array.pSignatures:
        wls.ListValidationProgramTableIndex = validators.PRIMARY_LIST_SLOT
    pcs_draw.RecordValidationProgramTableIndex = validators.SECONDARY_LIST_SLOT

    batch_srv, batch_objects = (np.array(c, dtype=np.uint64) for c in zip(*CULL_BATCHES, strict=True))
    cull = DispatchListSpec(
        pcs_cull,
        {"ProgramTableIndex": np.zeros(len(CULL_BATCHES), dtype=np.uint32),
         "arg1_ShaderResourceView": batch_srv,
         "arg2_Dispatch.ThreadGroupCountX": (batch_objects + THREADS_PER_GROUP - 1) // THREADS_PER_GROUP,
         "arg2_Dispatch.ThreadGroupCountY": 1, "arg2_Dispatch.ThreadGroupCountZ": 1},
        flags=abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_WAIT_FOR_COMPLETION")
        | abi.enum_value("D3D12_DISPATCH_LIST_FLAGS1", "END_WITH_MEMORY_FLUSH"),
        signature_index=cull_index)
    slots = {name: i for i, (name, _) in enumerate(DRAW_PROGRAMS)}
    draw_table = ProgramTableSpec(
        pcs_layout(pcs_draw),
        {"ProgramIdentifier": [objects.programs[name].Identifier for name, _ in DRAW_PROGRAMS],
         "arg3_InlineRootParameter": np.array([tint for _, tint in DRAW_PROGRAMS], dtype=np.float32).view(np.uint32)})
    cull_table = ProgramTableSpec(objects.programs["Cull"], {"ProgramIdentifier": [objects.programs["Cull"].Identifier]})
    bindings: list[BindingSpec] = [None] * len(array.pSignatures)
    bindings[cull_index] = cull_table
    bindings[draw_index] = draw_table
    wl = build_work_list([cull, _draw_list(pcs_draw, slots, LIST1_DRAWS, draw_index),
                          _draw_list(pcs_draw, slots, LIST2_DRAWS, draw_index)],
                         base_va=WORK_LIST_VA, tier=2, bindings=bindings, signature=array, objects=objects,
                         validation_table=ValidationTableSpec(validators.table_slots()))

    # the corruption, written where the headers and the layout say the fields are
    data = bytearray(wl.bytes())
    header = wl.dispatch_inputs[1] - wl.base_va + abi.offsetof("D3D12_DISPATCH_LIST_INPUT1", "NumProgramInputs")
    data[header:header + 4] = CORRUPT_NUM_PROGRAM_INPUTS.to_bytes(4, "little")
    count = (wl.primary_lists[2].va - wl.base_va
             + pcs_layout(pcs_draw).primary.field("NumSecondaryRecords").offset)
    data[count:count + 4] = CORRUPT_NUM_SECONDARY_RECORDS.to_bytes(4, "little")
    last_secondary = wl.secondary_lists[2]
    assert last_secondary is not None and last_secondary.va + last_secondary.size == wl.base_va + wl.size

    grs = pcs_cull.pGlobalRootSignature
    frame = RootArgument("descriptor", value=FRAME_CONSTANTS_VA)
    state = wl.command_list_state(  # SetProgram: ARR, pBindings, ValidationProgramTable
        graphics_root_signature=grs, compute_root_signature=grs,
        compute_root_arguments={0: frame, 3: RootArgument("descriptor", value=wl.base_va)},
        graphics_root_arguments={0: frame})
    capture = wl.to_capture(objects, state=state)  # a Tier 2 device
    memory = GpuMemory()
    memory.map(wl.base_va, data, name="work list (DispatchList1 inputs, program tables, validation program table, "
               "lists)", writable=True)
    capture.memory = memory
    return capture


def render(capture: Capture) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        data = capture_to_dict(capture, Path(tmp), inline_limit=1 << 20)
    return json.dumps(data, indent=1) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the committed file differs")
    parser.add_argument("-o", "--output", type=Path, default=OUT, help=f"write (or check) this file (default {OUT})")
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        current = args.output.read_text(encoding="utf-8") if args.output.exists() else ""
        if current != text:
            print(f"{args.output} is out of date: run tools/make_validation_example.py", file=sys.stderr)
            return 1
        return 0
    args.output.write_text(text, encoding="utf-8")
    print(f"wrote {args.output} ({len(text.encode())} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
