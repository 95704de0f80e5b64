"""Captures of every shape a replay tool rebases (tests/test_references.py, tests/test_remap.py), and the maps that
move every reference of one somewhere else.

The cases are the spec's own examples where it has them (the bundled captures: GPU culling at Tier 1, the Tier 2
compute-into-graphics chain, IndirectDrawing.md's root constants + vertex buffers, the validation chain) and the
executor tests' scenes for what they do not show (descriptor tables global and local, an explicit local root
signature's program-table tail, raytracing-class records, ExecuteIndirect commands with every argument type)."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable

import numpy as np
from breakers_ei import ei_spec
from executor_builder import (
    INPUT_VA,
    PRIMARY_VA,
    TABLE_VA,
    Scene,
    arg,
    constants_param,
    descriptor_table_scene,
    dispatch,
    dispatch_input,
    heap_handle,
    primary,
    program,
    program_table,
    raytracing_scene,
    root_signature,
    table_param,
    view_param,
)

from d3d12wl import examples
from d3d12wl.capture.file import Capture, load_capture
from d3d12wl.capture.maps import HeapEntry, HeapMap, IdentifierMap, VaMap, VaRange
from d3d12wl.executor.references import patch_list
from d3d12wl.model.objects import ConstantArg, ProgramCommandSignature, WorkListSignature
from d3d12wl.model.state import DescriptorHeap, DescriptorHeaps, DispatchListCall
from d3d12wl.records.layout import pcs_layout
from d3d12wl.records.references import IDENTIFIER, VA

#: where the maps move memory: far above every VA the cases use, a multiple of every alignment the specs ask
DELTA = 0x7F00_0000_0000
#: where the heap maps move heaps, and the factor of their increments
HEAP_DELTA = 0x1_0000_0000
INCREMENT_FACTOR = 2


def capture_of(s: Scene, call: object, version: int = 1) -> Capture:
    """The scene as a capture, every object it uses named in its collections (so it saves)."""
    objects = s.objects
    state = s.state

    def add(collection: dict, obj: object) -> None:
        if obj is not None:
            collection.setdefault(obj.name, obj)  # type: ignore[attr-defined]

    for p in list(objects.programs.values()):
        add(objects.program_command_signatures, p.ProgramCommandSignature)
        add(objects.root_signatures, p.LocalRootSignature)
    program = state.program
    if program is not None:
        add(objects.work_list_signatures, program.WorkList.pSignature)
        array = program.WorkList1.pSignatureArray
        add(objects.work_list_signature_arrays, array)
        for wls in array.pSignatures if array is not None else ():
            add(objects.work_list_signatures, wls)
    for wls in objects.work_list_signatures.values():
        for pcs in wls.pProgramCommandSignatures:
            add(objects.program_command_signatures, pcs)
    for pcs in objects.program_command_signatures.values():
        add(objects.root_signatures, pcs.pGlobalRootSignature)
    add(objects.root_signatures, state.graphics_root_signature)
    add(objects.root_signatures, state.compute_root_signature)
    cs = getattr(call, "pCommandSignature", None)
    if cs is not None:
        add(objects.command_signatures, cs)
        add(objects.root_signatures, cs.pRootSignature)
    return Capture(version, s.device, objects, s.memory, s.state, call)  # type: ignore[arg-type]


def bundled(name: str) -> Callable[[], Capture]:
    return lambda: load_capture(examples.path(name))


def descriptor_tables() -> Capture:
    """Global SRV tables from the primary records, local sampler tables from the secondary records."""
    s, call = descriptor_table_scene([(heap_handle("CBV_SRV_UAV", i * 3), [heap_handle("SAMPLER", (i + j) % 16)
                                                                          for j in range(i % 3 + 1)])
                                      for i in range(6)])
    return capture_of(s, call)


def explicit_local_root_signature() -> Capture:
    """Spec "Local root signatures" (explicit path): the program-table tail holds the local CBV and the local
    descriptor table no record overrides; a record overrides one constant."""
    lrs = root_signature("L", constants_param(2, 0, 1), view_param("CBV", 1, 1), table_param("SRV"), local=True)
    pcs = ProgramCommandSignature("P", [arg("CONSTANT", "PRIMARY_RECORD", "LOCAL_ROOT_SIGNATURE",
                                            Constant=ConstantArg(0, 1, 1)), arg("DISPATCH")])
    progs = [program("A", 1, pcs, lrs), program("B", 2, pcs, lrs)]
    s = Scene()
    s.add_programs(*progs)
    s.state.descriptor_heaps = DescriptorHeaps(CBV_SRV_UAV=DescriptorHeap(0xD000_0000, 64, 32))
    stride = 64
    s.put(TABLE_VA, program_table([(p, {"param0_dw0": [i], "param1": 0xCB00_0000 + 0x100 * i,
                                        "param2": {"ptr": 0xD000_0000 + 32 * (i + 1)}})
                                   for i, p in enumerate(progs)], stride))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, stride, 2)
    n = 5
    s.put(PRIMARY_VA, b"".join(primary(pcs, ProgramTableIndex=i % 2, arg0_Constant=[i], arg1_Dispatch=dispatch(i + 1))
                               for i in range(n)))
    s.put(INPUT_VA, dispatch_input(n, PRIMARY_VA, pcs_layout(pcs).primary.min_stride))
    return capture_of(s, DispatchListCall(INPUT_VA))


def raytracing(hybrid: bool) -> Callable[[], Capture]:
    def make() -> Capture:
        s, call = raytracing_scene(hybrid)
        pcs = s.state.program.WorkList.pSignature.pProgramCommandSignatures[0]
        s.state.compute_root_signature = pcs.pGlobalRootSignature  # the command list's, for its root argument
        return capture_of(s, call)
    return make


def execute_indirect_all_arguments() -> Capture:
    """Root CBV / SRV / UAV views, vertex and index buffer views, resources for both buffers."""
    rng = random.Random(5)
    spec = ei_spec(rng, trigger="DRAW_INDEXED", index_buffer=True, cbv=True, count_buffer=True, resources=True)
    c = spec.build()
    return capture_of(Scene(c.memory, c.device, c.objects, c.state), c.call, version=2)


CASES: dict[str, Callable[[], Capture]] = {
    "tier 1 culling": bundled("culling_capture.json"),
    "tier 2 chain": bundled("tier2_chain_capture.json"),
    "execute indirect": bundled("execute_indirect_capture.json"),
    "execute indirect, every argument": execute_indirect_all_arguments,
    "validation program table": bundled("validation_chain_capture.json"),
    "descriptor tables": descriptor_tables,
    "explicit local root signature": explicit_local_root_signature,
    "raytracing hybrid": raytracing(True),
    "raytracing inline": raytracing(False),
}


def new_identifier(old: bytes) -> bytes:
    return hashlib.sha256(b"replay:" + old).digest()


def full_maps(capture: Capture, delta: int = DELTA) -> tuple[VaMap, HeapMap | None, IdentifierMap]:
    """Maps that move every reference ``capture``'s call reads: every region and every VA outside the regions by
    ``delta``, every captured heap by :data:`HEAP_DELTA` with its increment doubled, every identifier (of a
    program or not) to :func:`new_identifier` of it."""
    table = patch_list(capture)
    ranges = [VaRange(r.base, r.size, r.base + delta, f"region {r.name}") for r in capture.memory.regions if r.size]
    cols = table.columns
    values = cols["value"][(cols["kind"] == 0) & (cols["value"] != 0)]
    outside = sorted({int(v) for v in np.unique(values)
                      if capture.memory.region_at(int(v)) is None})
    ranges += [VaRange(v, 1, v + delta, f"value 0x{v:x}") for v in outside]
    heaps = {}
    for name in ("CBV_SRV_UAV", "SAMPLER"):
        h = capture.state.descriptor_heaps.heap(name)
        if h is not None:
            heaps[name] = HeapEntry(name, h.GPUDescriptorHandleForHeapStart + HEAP_DELTA,
                                    h.DescriptorIncrementSize * INCREMENT_FACTOR)
    idents = {bytes.fromhex(table.names["identifier"][c]) for c in cols["identifier"][cols["identifier"] >= 0]}
    identifier_map = IdentifierMap({}, {old: (new_identifier(old), "test") for old in idents})
    return VaMap(ranges), HeapMap(heaps) if heaps else None, identifier_map


__all__ = ["CASES", "DELTA", "IDENTIFIER", "VA", "capture_of", "full_maps", "new_identifier"]
