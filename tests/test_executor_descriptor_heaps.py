"""Work Lists "_DESCRIPTOR_TABLE" against the bound heaps' ranges (capture version 4, audit row W58): a
descriptor-table handle a record holds "must address the currently bound descriptor heap of the appropriate type".
Where the capture gives the heap's range, a handle outside it or off a descriptor boundary is a
``descriptor-handle-outside-heap`` finding at the byte it was read from; both engines report the same.
"""

from __future__ import annotations

import random

import pytest
from executor_builder import (
    PRIMARY_VA,
    SECONDARY_VA,
    TABLE_HEAPS,
    TABLE_VA,
    Scene,
    arg,
    descriptor_table_scene,
    dispatch,
    dispatch_input,
    heap_handle,
    one_program_scene,
    primary,
    program,
    program_table,
    root_signature,
    table_param,
)
from hypothesis import given
from hypothesis import strategies as st
from test_executor_differential import PROPERTY, same

from d3d12wl.executor import arrays, run
from d3d12wl.model.objects import InlineRootParameter, ProgramCommandSignature, RootParameterIndexArg, WorkListSignature
from d3d12wl.model.state import DescriptorHeaps, DispatchListCall, RootArgument
from d3d12wl.records.layout import pcs_layout

KIND = "descriptor-handle-outside-heap"


def findings(s, call, engine="reference"):
    trace = run(s.memory, s.device, s.objects, s.state, call, engine=engine)
    return trace, [f for f in trace.findings if f.kind == KIND]


def test_a_handle_outside_its_heap_is_reported_where_it_is_read():
    """W58: the SRV table of primary record 1 lies past the CBV/SRV/UAV heap's last descriptor, the sampler table
    of primary 0's secondary record 1 is 8 bytes off a descriptor boundary; each is reported once, at the field's
    VA, and the records still execute (the finding says what the hardware would read)."""
    s, call = descriptor_table_scene([
        (heap_handle("CBV_SRV_UAV", 3), [heap_handle("SAMPLER", 1), heap_handle("SAMPLER", 2, skew=8)]),
        (heap_handle("CBV_SRV_UAV", 256), [heap_handle("SAMPLER", 15)]),
        (heap_handle("CBV_SRV_UAV", 255), [heap_handle("SAMPLER", 0)]),
    ])
    trace, found = findings(s, call)
    assert len(trace.executions) == 4
    layout = pcs_layout(s.objects.programs["A"].ProgramCommandSignature)
    assert layout.secondary is not None
    stride = layout.primary.min_stride
    table_field = layout.primary.field("arg0_DescriptorTable").offset
    sampler_field = layout.secondary.field("arg1_InlineRootParameter").offset
    sec_stride = layout.secondary.min_stride
    assert [(f.rule, f.severity, f.list_index, f.primary_index, f.va) for f in found] == [
        ("_DESCRIPTOR_TABLE", "error", 0, 0, SECONDARY_VA + sec_stride + sampler_field),
        ("_DESCRIPTOR_TABLE", "error", 0, 1, PRIMARY_VA + stride + table_field),
    ]
    assert "SAMPLER descriptor heap: not on a descriptor boundary: 0xe0000000 + 2 * 64 + 8" in found[0].message
    assert "CBV_SRV_UAV descriptor heap: outside the heap [0xd0000000, 0xd0002000)" in found[1].message
    assert trace.findings == found  # nothing else
    assert run(s.memory, s.device, s.objects, s.state, call).to_dict() == trace.to_dict()


def test_the_heap_is_the_root_parameters_type():
    """"If both a CBV/SRV/UAV heap and a sampler heap are bound, the implementation routes each record's handle to
    whichever bound heap matches the root parameter's declared type": a sampler handle in an SRV table addresses
    the wrong heap."""
    s, call = descriptor_table_scene([(heap_handle("SAMPLER", 0), [heap_handle("CBV_SRV_UAV", 0)])])
    _, found = findings(s, call)
    assert [f.message.split(" whose ")[0] for f in found] == [
        "global root parameter 0 is a descriptor table from primary record 0 @0x2000 +16",
        "local root parameter 0 is a descriptor table from secondary record 0 @0x10000 +0"]
    assert all("outside the heap" in f.message for f in found)


def test_without_the_heaps_range_nothing_is_checked():
    """A capture of version 1 to 3 says only whether a heap is bound: no handle can be checked against it; with no
    heap of the type bound at all, the finding is W57's descriptor-heap-not-bound."""
    handles = [(heap_handle("CBV_SRV_UAV", 999), [heap_handle("SAMPLER", 3, skew=1)])]
    s, call = descriptor_table_scene(handles)
    s.state.descriptor_heaps = DescriptorHeaps(CBV_SRV_UAV=True, SAMPLER=True)
    trace, found = findings(s, call)
    assert found == [] and trace.findings == []
    s.state.descriptor_heaps = DescriptorHeaps(CBV_SRV_UAV=TABLE_HEAPS["CBV_SRV_UAV"])
    trace, _ = findings(s, call)
    assert [f.kind for f in trace.findings] == [KIND, "descriptor-heap-not-bound"]  # global, then local


def test_command_list_tables_are_not_the_records():
    """The requirement is on the record's payload: a table the command list sets (SetGraphicsRootDescriptorTable)
    and no record overrides is not a record's handle."""
    grs = root_signature("GRS", table_param("SRV"), table_param("SRV"))
    pcs = ProgramCommandSignature("T", [arg("DESCRIPTOR_TABLE", DescriptorTable=RootParameterIndexArg(0)),
                                        arg("DISPATCH")], pGlobalRootSignature=grs)
    s = one_program_scene(pcs)
    s.state.compute_root_signature = grs
    s.state.compute_root_arguments[1] = RootArgument("table", heap_handle("CBV_SRV_UAV", 9999))
    s.state.descriptor_heaps = DescriptorHeaps(**TABLE_HEAPS)
    s.put(PRIMARY_VA, primary(pcs, ProgramTableIndex=0, arg0_DescriptorTable={"ptr": heap_handle("CBV_SRV_UAV", 1)},
                              arg1_Dispatch=dispatch(1)))
    s.put(0x1000, dispatch_input(1, PRIMARY_VA, pcs_layout(pcs).primary.min_stride))
    trace, found = findings(s, DispatchListCall(0x1000))
    assert found == [] and len(trace.executions) == 1


@pytest.mark.parametrize("engine", ["reference", "columnar"])
def test_a_program_table_slots_local_table(engine):
    """"Local descriptor tables": a local table from the program-table LRA tail is the same 8-byte handle; a bad
    one is reported once for its slot, however many records select it."""
    pcs = ProgramCommandSignature("L", [
        arg("INLINE_ROOT_PARAMETER", "PROGRAM_TABLE_RECORD", "LOCAL_ROOT_SIGNATURE",
            InlineRootParameter=InlineRootParameter(table_param("SRV"), 0, 0)),
        arg("DISPATCH")])
    p = program("A", 1, pcs)
    s = Scene()
    s.add_programs(p)
    s.state.descriptor_heaps = DescriptorHeaps(**TABLE_HEAPS)
    stride = 48
    s.put(TABLE_VA, program_table([(p, {"arg0_InlineRootParameter": {"ptr": heap_handle("CBV_SRV_UAV", 2, 16)}})],
                                  stride))
    s.bind(WorkListSignature("W", [pcs]), TABLE_VA, stride, 1)
    n = 5
    rec = pcs_layout(pcs).primary.min_stride
    s.put(PRIMARY_VA, b"".join(primary(pcs, ProgramTableIndex=0, arg1_Dispatch=dispatch(i + 1)) for i in range(n)))
    s.put(0x1000, dispatch_input(n, PRIMARY_VA, rec))
    trace, found = findings(s, DispatchListCall(0x1000), engine)
    assert len(found) == 1 and found[0].va == TABLE_VA + 32 and len(trace.executions) == n
    assert "program table slot 0" in found[0].message


@st.composite
def handle_lists(draw: st.DrawFn) -> list[tuple[int, list[int]]]:
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))

    def handle(heap: str) -> int:
        return rng.choice([heap_handle(heap, rng.randrange(TABLE_HEAPS[heap].NumDescriptors))] * 8 + [
            heap_handle(heap, rng.randrange(-2, TABLE_HEAPS[heap].NumDescriptors + 2), rng.choice([0, 4, 8])),
            heap_handle("SAMPLER" if heap == "CBV_SRV_UAV" else "CBV_SRV_UAV", 0), 0])

    return [(handle("CBV_SRV_UAV"), [handle("SAMPLER") for _ in range(rng.choice([0, 1, 2, 5]))])
            for _ in range(draw(st.integers(0, 40)))]


@PROPERTY
@given(handle_lists(), st.sampled_from([3, 16, arrays.CHUNK]),
       st.sampled_from(["ranges", "bound", "one range", "none"]))
def test_generated_handles_give_one_trace_on_both_engines(handles, chunk, heaps):
    """The columnar walk checks the handles in columns and sends the records it flags through the reference walk:
    the same trace and findings as the reference, chunked or not, with the heaps' ranges, without them, or with
    only one."""
    s, call = descriptor_table_scene(handles)
    s.state.descriptor_heaps = {"ranges": DescriptorHeaps(**TABLE_HEAPS),
                                "bound": DescriptorHeaps(CBV_SRV_UAV=True, SAMPLER=True),
                                "one range": DescriptorHeaps(CBV_SRV_UAV=True, SAMPLER=TABLE_HEAPS["SAMPLER"]),
                                "none": DescriptorHeaps()}[heaps]
    old = arrays.CHUNK
    arrays.CHUNK = chunk
    try:
        same(s.memory, s.device, s.objects, s.state, call)
    finally:
        arrays.CHUNK = old


def test_records_with_valid_handles_stay_in_columns():
    """The check is a mask over the columns, not a reason to walk every record: of 200 records with one bad handle,
    only that one record takes the reference walk."""
    handles = [(heap_handle("CBV_SRV_UAV", i), [heap_handle("SAMPLER", i % 16)] * 2) for i in range(200)]
    handles[77] = (handles[77][0], [handles[77][1][0], heap_handle("SAMPLER", 3, skew=4)])
    s, call = descriptor_table_scene(handles)
    trace, found = findings(s, call, "columnar")
    assert len(found) == 1 and found[0].primary_index == 77 and len(trace.executions) == 400
    objects = [seg for seg in trace.lists[0].primary_records.segments if isinstance(seg, list)]
    assert [[prt.index for prt in seg] for seg in objects] == [[77]]
