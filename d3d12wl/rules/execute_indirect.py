"""CreateCommandSignature (ExecuteIndirect): IndirectDrawing.md, section "Validation".

Rules are cited as ``IndirectDrawing Validation N``, N the bullet's position in that list:

1. exactly one draw/dispatch entry, and it comes last; 2. an index-buffer entry only with DRAW_INDEXED;
3. ByteStride 4-byte aligned (bullet 18 repeats it); 4. ByteStride holds all the data; 5. resource bindings compatible
with the root signature; 6. each root parameter slot defined no more than once (root constants slots may take several
entries at sorted, non-overlapping offsets: bullet 11); 7. root parameter slots in range; 8. index buffer format valid
(execution-time: the format lives in the argument buffer; left to the executor); 9. VB slot in range; 10. entries
sorted by root parameter index; 11. root constants sorted by DestOffsetIn32BitValues without overlap; 12. no VB / IB
changes in a dispatch (compute) signature; 13. root signature given iff a root argument changes; 14. constants within
the root parameter's range; 15. no VB slot changed twice; 16. at most one IB change; 17. Num32BitValuesToSet > 0.

Also "Incrementing constant": a command signature can contain at most one incrementing constant; and "Command
signature Creation": argument types outside the ExecuteIndirect set are rejected.
"""

from __future__ import annotations

from d3d12wl.errors import D3D12WLError
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import CommandSignature
from d3d12wl.records.layout import command_layout
from d3d12wl.rules._common import (
    CS_KIND,
    Arg,
    ParameterTypes,
    Sink,
    Violation,
    constants_in_order,
    d3d12_constant,
    decode_args,
    descending_root_parameters,
    shared_root_parameters,
)


def _v(n: int) -> str:
    return f"IndirectDrawing Validation {n}"


def check_command_signature(cs: CommandSignature) -> list[Violation]:
    """Every violation CreateCommandSignature would reject ``cs`` (with its ``pRootSignature``) for."""
    sink = Sink(CS_KIND, cs.name)
    args = decode_args(cs.pArgumentDescs, sink, work_lists=False)
    for a in args:
        if a.info is not None and not a.info.ei:
            sink.arg(a.index, "Command signature Creation", f"{a.type} is not an ExecuteIndirect argument type", "Type")
    triggers = [a for a in args if a.is_trigger and a.info is not None and a.info.ei]
    if len(triggers) != 1:
        found = ", ".join(f"pArgumentDescs[{a.index}] {a.type}" for a in triggers) or "none"
        sink.add(_v(1), f"there must be exactly one draw/dispatch entry; found {found}", "pArgumentDescs")
    elif triggers[0].index != len(args) - 1:
        sink.arg(triggers[0].index, _v(1), f"the draw/dispatch entry {triggers[0].type} must come last", "Type")
    trigger = triggers[0] if len(triggers) == 1 else None
    cls = trigger.info.trigger_class if trigger is not None and trigger.info is not None else None

    vbs = [a for a in args if a.type == "VERTEX_BUFFER_VIEW"]
    ibs = [a for a in args if a.type == "INDEX_BUFFER_VIEW"]
    if trigger is not None and cls is not None and cls is not ExecutableClass.GRAPHICS:  # (a class: a trigger)
        for a in vbs + ibs:
            sink.arg(a.index, _v(12), f"a dispatch command signature ({trigger.type}) cannot change VB or IB "
                     "bindings", "Type")
    elif trigger is not None:
        for a in ibs:
            if trigger.type != "DRAW_INDEXED":
                sink.arg(a.index, _v(2), f"INDEX_BUFFER_VIEW requires DRAW_INDEXED, not {trigger.type}", "Type")
    for a in ibs[1:]:
        sink.arg(a.index, _v(16), f"only one IB change per command signature (first at pArgumentDescs[{ibs[0].index}])",
                 "Type")
    slot_count = d3d12_constant("D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT")
    seen: dict[int, Arg] = {}
    for a in vbs:
        slot = a.desc.VertexBuffer.Slot
        if slot >= slot_count:
            sink.arg(a.index, _v(9), f"VB slot {slot} is outside [0, {slot_count})", "VertexBuffer.Slot")
        if slot in seen:
            sink.arg(a.index, _v(15), f"VB slot {slot} is already changed by pArgumentDescs[{seen[slot].index}]",
                     "VertexBuffer.Slot")
        else:
            seen[slot] = a

    counters = [a for a in args if a.type == "INCREMENTING_CONSTANT"]
    for a in counters[1:]:
        sink.arg(a.index, "Incrementing constant", "a command signature can contain at most one incrementing constant",
                 "Type")
    for a in args:
        if a.type == "CONSTANT" and a.desc.Constant.Num32BitValuesToSet == 0:
            sink.arg(a.index, _v(17), "Num32BitValuesToSet must be greater than 0", "Constant.Num32BitValuesToSet")

    rooted = [a for a in args if a.has_root_parameter]
    _check_root_arguments(sink, cs, rooted)

    if cs.ByteStride % 4:
        sink.add(_v(3), f"ByteStride {cs.ByteStride} must be a multiple of 4", "ByteStride")
    if all(a.info is not None and a.info.ei for a in args):
        try:
            size = command_layout(cs).size
        except D3D12WLError:
            size = None
        if size is not None and cs.ByteStride < size:
            sink.add(_v(4), f"ByteStride {cs.ByteStride} cannot hold the {size} bytes of one command", "ByteStride")
    return sink.out


def _check_root_arguments(sink: Sink, cs: CommandSignature, rooted: list[Arg]) -> None:
    rs = cs.pRootSignature
    if rooted and rs is None:
        sink.add(_v(13), "the command signature changes root arguments, so a root signature must be given",
                 "pRootSignature")
    elif not rooted and rs is not None:
        sink.add(_v(13), f"no argument changes a root argument, so no root signature may be given (got {rs.name!r})",
                 "pRootSignature")

    for a, highest in descending_root_parameters(rooted):
        sink.arg(a.index, _v(10), f"RootParameterIndex {a.root_parameter_index or 0} follows "
                 f"{highest.root_parameter_index}; entries must be sorted from smallest to largest root parameter index",
                 a.rpi_member)
    for rpi, group, ranges in shared_root_parameters(rooted):
        if ranges is None:
            for a in group[1:]:
                sink.arg(a.index, _v(6), f"root parameter {rpi} is already defined by pArgumentDescs[{group[0].index}]",
                         a.rpi_member)
        elif not constants_in_order(group, ranges, adjacent=False):
            sink.arg(group[1].index, _v(11), f"root constant entries of parameter {rpi} (DWORD ranges {ranges}) must "
                     "be sorted by DestOffsetIn32BitValues without overlap", group[1].rpi_member)

    if rs is None:
        return
    params = rs.pParameters
    types = ParameterTypes()
    for a in rooted:
        rpi = a.root_parameter_index or 0
        assert a.info is not None
        if rpi >= len(params):
            sink.arg(a.index, _v(7), f"RootParameterIndex {rpi} exceeds the {len(params)} parameters of root "
                     f"signature {rs.name!r}", a.rpi_member)
            continue
        ptype = types(params[rpi])
        if ptype not in a.info.root_parameter_types:
            sink.arg(a.index, _v(5), f"{a.type} is not compatible with parameter {rpi} ({ptype}) of root signature "
                     f"{rs.name!r}", a.rpi_member)
            continue
        if ptype == "32BIT_CONSTANTS":
            size = params[rpi].Constants.Num32BitValues
            dwords = a.dword_range()
            assert dwords is not None  # only CONSTANT and INCREMENTING_CONSTANT target 32BIT_CONSTANTS parameters
            start, end = dwords
            if end > size:
                sink.arg(a.index, _v(14), f"DWORDs [{start}, {end}) exceed the {size} constants of parameter {rpi}",
                         f"{a.info.union_member}.DestOffsetIn32BitValues")
