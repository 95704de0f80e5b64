"""The references by value a capture holds outside GPU memory: the call's parameters, the command-list state and
the programs' identifiers (design.md, "References by value: what a replay tool must rewrite").

A replay on another run, driver or GPU sets the call's buffers, SetProgram's table bindings, the root arguments, the
IA views and the descriptor heaps itself, with its own addresses, and asks its driver for each program's
identifier; :func:`state_references` lists each such member of a capture once, by its member path in the capture
file, with a setter, so the one walk serves both the patch list (``d3d12wl patch-list``) and the rewrite
(``d3d12wl remap``).  The references the call reads from GPU memory are the executor's
(:mod:`d3d12wl.executor.references`).  A null member (a VA or handle of 0: nothing bound) is no reference.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from d3d12wl import abi
from d3d12wl.capture.file import Capture
from d3d12wl.model.state import (
    SHADER_VISIBLE_HEAP_TYPES,
    BufferResource,
    ExecuteIndirectCall,
    GpuVirtualAddressRange,
    ProgramTableBinding,
    RootArgument,
    WorkListBinding,
    table_heap_type,
)
from d3d12wl.records.references import HANDLE, IDENTIFIER, VA

__all__ = ["StateReference", "state_references"]


@dataclass
class StateReference:
    """One reference of the capture's ``record`` member (``call``, ``state`` or ``programs``) at member path
    ``field`` below it: its ``kind`` (:data:`~d3d12wl.records.references.REFERENCE_KINDS`), ``value`` (an int; the
    32 identifier bytes for a program identifier), for a descriptor handle the ``heap`` type it addresses, and
    ``set``, which writes a new value into the objects of the capture it was listed from."""

    record: str
    field: str
    kind: str
    value: Any
    heap: str | None
    set: Callable[[Any], None]


def state_references(capture: Capture) -> list[StateReference]:
    """Every non-null reference of ``capture``'s call, command-list state and programs, in capture-file order."""
    out: list[StateReference] = []

    def add(record: str, field: str, kind: str, value: Any, setter: Callable[[Any], None],
            heap: str | None = None) -> None:
        if value:
            out.append(StateReference(record, field, kind, value, heap, setter))

    def attr(obj: Any, name: str) -> Callable[[Any], None]:
        return lambda v: setattr(obj, name, v)

    call = capture.call
    if isinstance(call, ExecuteIndirectCall):
        _buffer(add, "ExecuteIndirect.pArgumentBuffer", call, "ArgumentBuffer", call.ArgumentBufferResource)
        if call.CountBuffer is not None:
            _buffer(add, "ExecuteIndirect.pCountBuffer", call, "CountBuffer", call.CountBufferResource)
    else:
        add("call", f"{capture.call_name}.DispatchListInput", VA, call.DispatchListInput,
            attr(call, "DispatchListInput"))
    st = capture.state
    program = st.program
    if program is not None:
        if program.Type == abi.enum_value("D3D12_PROGRAM_TYPE", "WORK_LIST"):
            _binding(add, "program.WorkList.Binding", program.WorkList.Binding)
        else:
            for i, b in enumerate(program.WorkList1.pBindings):
                _binding(add, f"program.WorkList1.pBindings[{i}]", b)
            vpt = program.WorkList1.ValidationProgramTable
            _table(add, "program.WorkList1.ValidationProgramTable", vpt)
    for which in ("graphics", "compute"):
        rs = getattr(st, f"{which}_root_signature")
        for index, ra in sorted(getattr(st, f"{which}_root_arguments").items()):
            _root_argument(add, f"{which}_root_arguments.{index}", ra, rs.pParameters[index] if rs else None)
    for slot, vbv in sorted(st.vertex_buffers.items()):
        add("state", f"vertex_buffers.{slot}.BufferLocation", VA, vbv.BufferLocation, attr(vbv, "BufferLocation"))
    if st.index_buffer is not None:
        add("state", "index_buffer.BufferLocation", VA, st.index_buffer.BufferLocation,
            attr(st.index_buffer, "BufferLocation"))
    for name in SHADER_VISIBLE_HEAP_TYPES:
        heap = st.descriptor_heaps.heap(name)
        if heap is not None:
            add("state", f"descriptor_heaps.{name}.GPUDescriptorHandleForHeapStart", HANDLE,
                heap.GPUDescriptorHandleForHeapStart, attr(heap, "GPUDescriptorHandleForHeapStart"), name)
    for name, p in capture.objects.programs.items():
        add("programs", f"{name}.Identifier", IDENTIFIER, bytes(p.Identifier), attr(p, "Identifier"))
    return out


Add = Callable[..., None]


def _buffer(add: Add, field: str, call: ExecuteIndirectCall, member: str, resource: BufferResource | None) -> None:
    """An ExecuteIndirect buffer: its resource's GPU VA (the offset the call reads at stays), else the VA."""
    if resource is None:
        add("call", field, VA, getattr(call, member), lambda v: setattr(call, member, v))
        return
    offset = getattr(call, member) - resource.GPUVirtualAddress

    def move(v: int) -> None:
        resource.GPUVirtualAddress = v
        setattr(call, member, v + offset)

    add("call", f"{field}.GPUVirtualAddress", VA, resource.GPUVirtualAddress, move)


def _table(add: Add, field: str, table: ProgramTableBinding) -> None:
    t = table.Table
    add("state", f"{field}.Table.StartAddress", VA, t.StartAddress, lambda v: setattr(t, "StartAddress", v))


def _binding(add: Add, field: str, b: WorkListBinding) -> None:
    if b.Type != abi.enum_value("D3D12_WORK_LIST_BINDING_TYPE", "RAYTRACING"):
        _table(add, f"{field}.ProgramTable", b.ProgramTable)
        return
    rt = b.pRaytracing
    if rt is None:
        return
    for name in ("RayGenerationShaderRecord", "MissShaderTable", "HitGroupTable", "CallableShaderTable"):
        table: GpuVirtualAddressRange = getattr(rt, name)
        add("state", f"{field}.pRaytracing.{name}.StartAddress", VA, table.StartAddress,
            lambda v, t=table: setattr(t, "StartAddress", v))


def _root_argument(add: Add, field: str, ra: RootArgument, param: Any) -> None:
    def setter(v: int) -> None:
        ra.value = v

    if ra.kind == "descriptor":
        add("state", f"{field}.Descriptor", VA, ra.value, setter)
    elif ra.kind == "table":
        add("state", f"{field}.DescriptorTable", HANDLE, ra.value, setter, table_heap_type(param))
