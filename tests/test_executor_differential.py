"""One semantics: the columnar fast path and the reference walker give identical traces (``to_dict`` equal, the same
execution table and the same JSON, JSON lines and text written from their columns) on every bundled capture, the same captures with record bytes mutated, hypothesis-generated work lists (valid and
corrupted) and ExecuteIndirect calls, and the executor's worst cases (tools/executor_worst_cases.py)."""

from __future__ import annotations

import dataclasses
import glob
import io
import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from executor_builder import INPUT_VA, TABLE_VA, Scene, dispatch_input, dispatch_input1, program, program_table
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import valid_work_list_signature
from test_executor_execute_indirect import ARGS_VA, COUNT_VA, ei_scene

from d3d12wl.capture.file import load_capture
from d3d12wl.capture.memory import GpuMemory
from d3d12wl.executor import arrays, execute, execution_table, output, rows, run
from d3d12wl.executor.execution_table import execution_columns
from d3d12wl.executor.trace import Limits, Trace
from d3d12wl.model.argtypes import ExecutableClass
from d3d12wl.model.objects import RecordKind
from d3d12wl.model.state import DescriptorHeaps, DispatchListCall, ExecuteIndirectCall
from d3d12wl.output.serialize import json_text
from d3d12wl.records.layout import pcs_layout, program_table_layout

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(glob.glob(str(ROOT / "d3d12wl" / "examples" / "*_capture.json")))
PROPERTY = settings(max_examples=60, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
PRIMARY_VA, SECONDARY_VA, SECONDARY2_VA = 0x200000, 0x400000, 0x600000


def same(memory: GpuMemory, device: Any, objects: Any, state: Any, call: Any, limits: Limits | None = None) -> Trace:
    ref = run(memory, device, objects, state, call, limits, engine="reference")
    fast = run(memory, device, objects, state, call, limits)
    assert fast.to_dict() == ref.to_dict()
    same_columns(fast, ref)
    same_outputs(fast, ref)
    return ref


def same_outputs(fast: Trace, ref: Trace) -> None:
    """Every text output written from the columns (d3d12wl.executor.rows) is the oracle's, made from the
    reference's objects: JSON is ``json.dumps(to_dict(), indent=1)`` byte for byte, every execution line of JSON
    lines ``json.dumps`` of its ``to_dict()`` and every execution line of the human text ``rows.text_line`` of the
    object; and both engines' traces write the same bytes in every format."""
    a = io.BytesIO()
    output.write_json(fast, a)  # (json_text is json.dumps, tests/test_serialize.py; here in a fraction of the time)
    assert a.getvalue() == (json_text(ref.to_dict(), indent=1) + "\n").encode()
    want = [json.dumps({"record": "execution", **e}, separators=(",", ":")) for e in ref.to_dict()["executions"]]
    for trace in (fast, ref):
        lines = io.BytesIO()
        output.write_jsonl(trace, lines)
        assert [x for x in lines.getvalue().decode().splitlines() if x.startswith('{"record":"execution"')] == want
        text = io.BytesIO()
        output.write_text(trace, text)
        got = text.getvalue().decode().splitlines()
        start = got.index(f"executions ({len(ref.executions)})")
        assert got[start + 1:start + 1 + len(ref.executions)] == [rows.text_line(e) for e in ref.executions]
    for write in (output.write_jsonl, output.write_text):
        a, b = io.BytesIO(), io.BytesIO()
        write(fast, a)
        write(ref, b)
        assert a.getvalue() == b.getvalue(), write.__name__


def same_columns(fast: Trace, ref: Trace) -> None:
    """The columnar table of the executions (from the batches' arrays) is the one made from the reference's
    objects, its ``.field`` columns (issue 24: the record member that supplied each value) included, and those
    name, row by row, the member each of the reference's sources names."""
    n = len(ref.executions)
    for start, stop in ((0, None), (n // 3, 2 * n // 3 + 1)):  # the whole table and a slice inside the batches
        a, b = execution_columns(fast.executions, start, stop), execution_columns(ref.executions, start, stop)
        assert a.names == b.names and list(a.columns) == list(b.columns) and list(a.absent) == list(b.absent)
        for k in a.columns:
            assert np.array_equal(a.columns[k], b.columns[k]), k
            assert np.array_equal(a.is_absent(k), b.is_absent(k)), k
        fields_held(a, ref.executions[start:start + FIELD_ROWS if stop is None else min(stop, start + FIELD_ROWS)])


#: executions per table whose every source :func:`fields_held` checks against the table's ``.field`` columns
FIELD_ROWS = 256


def fields_held(table: Any, executions: list[Any]) -> None:
    """Every source of each execution that names a record member (``ValueSource.field``) is that row's ``.field``
    column (``trigger_field``, ``root.G1.field``, a constants slot's ``root.G0.field``, ``ia.vb3.field``), and every other row of
    a ``.field`` column is absent."""
    names = table.names["field"]

    def field(column: str, row: int) -> str | None:
        if column not in table.columns or table.is_absent(column)[row]:
            return None
        return names[table.columns[column][row]]

    for row, e in enumerate(executions):
        want = {execution_table.TRIGGER_FIELD: e.trigger.source.field if e.trigger.source is not None else None}
        for ra in e.root_arguments:
            tag = f"root.{'G' if ra.binding == 'global' else 'L'}{ra.parameter}"
            if ra.kind == "static_sampler":
                assert all(s.field is None for s in ra.sources)
            elif ra.kind == "constants":  # the members by the DWORDs they supplied, in DWORD order
                want[f"{tag}.field"] = " ".join(
                    s.field if (s.first_dword, s.num_dwords) == (0, len(ra.values or [])) else
                    f"{s.field}[{s.first_dword}:{(s.first_dword or 0) + (s.num_dwords or 0)}]"
                    for s in sorted(ra.sources, key=lambda s: s.first_dword or 0) if s.field is not None) or None
            else:
                want[f"{tag}.field"] = ra.sources[0].field if ra.sources else None
        for b in e.ia:
            want[f"ia.{'ib' if b.slot is None else f'vb{b.slot}'}.field"] = b.source.field
        for column in table.columns:
            if execution_table.is_field_column(column):
                want.setdefault(column, None)
        for column, member in want.items():
            assert field(column, row) == member, (e.index, column)


def mutated(memory: GpuMemory, rng: random.Random, flips: int) -> GpuMemory:
    """A copy of ``memory`` (every region writable) with ``flips`` random bytes overwritten."""
    out = GpuMemory()
    regions = [r for r in memory.regions if r.size]
    for r in memory.regions:
        out.map(r.base, bytearray(r.data), name=r.name, writable=True)
    for _ in range(flips):
        r = rng.choice(regions)
        out.write(r.base + rng.randrange(r.size), bytes([rng.randrange(256)]))
    return out


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: Path(p).name)
def test_bundled_capture(path):
    c = load_capture(path)
    fast, ref = execute(c), execute(c, engine="reference")
    assert fast.to_dict() == ref.to_dict()
    same_columns(fast, ref)


@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: Path(p).name)
def test_bundled_capture_with_mutated_bytes(path, seed):
    c = load_capture(path)
    rng = random.Random(seed)
    memory = mutated(c.memory, rng, 1 + seed % 6)
    same(memory, c.device, c.objects, c.state, c.call, Limits(max_executions=2048, max_records=8192,
                                                             max_lists=256, max_secondary_records=4096))


# -- generated work lists ----------------------------------------------------------------------------------------


@st.composite
def work_lists(draw: st.DrawFn) -> tuple[Scene, DispatchListCall, Limits]:
    """A bound work list signature (graphics or compute), one program per PCS in a program table, ``n`` primary
    records of random bytes with valid program-table indices, secondary counts and pointers, then random bytes
    overwritten anywhere (corrupt records, out-of-range indices, unmapped or misaligned pointers)."""
    cls = draw(st.sampled_from([ExecutableClass.GRAPHICS, ExecutableClass.COMPUTE]))
    gen = draw(valid_work_list_signature(cls))
    for k, pcs in enumerate(gen.pcses):  # some members named (issue 24), the rest positional
        for i, a in enumerate(pcs.pArgumentDescs):
            if draw(st.booleans()):
                a.Name = f"Member{k}x{i}"
    rng = random.Random(draw(st.integers(0, 2**32 - 1)))
    s = Scene()
    progs = [program(f"P{k}", k + 1, pcs) for k, pcs in enumerate(gen.pcses)]
    s.add_programs(*progs)
    tails = [program_table_layout(p) for p in progs]
    table_stride = max(8, *(t.size for t in tails if t is not None))
    table_stride += -table_stride % 8
    broadcast_table = len(progs) == 1 and draw(st.integers(0, 7)) == 0  # stride 0: every index, one slot
    slots = len(progs) + draw(st.integers(0, 1))  # an extra slot with an unknown identifier
    table = bytearray(program_table([(p, {}) for p in progs], table_stride))
    table += bytes(table_stride * (slots - len(progs)))
    for k in range(len(progs)):  # random local-root tails
        for b in range(32, table_stride):
            table[k * table_stride + b] = rng.randrange(256)
    s.put(TABLE_VA, bytes(table))
    s.bind(gen.wls, TABLE_VA, 0 if broadcast_table else table_stride, slots + 3 * broadcast_table,
           size=len(table))
    layouts = [pcs_layout(pcs) for pcs in gen.pcses]
    stride = max(lay.primary.min_stride for lay in layouts) + 8 * draw(st.integers(0, 2))
    if draw(st.integers(0, 9)) == 0:
        stride = 8 * draw(st.integers(0, 2))  # below the minimum (or broadcast)
    n = draw(st.integers(0, 300))
    sec_size = 4096
    prim = bytearray(rng.randrange(256) for _ in range(max(stride * n, 8)))
    for i in range(n):
        k = rng.randrange(len(progs))
        rec = i * stride
        if rec + 4 > len(prim):
            break
        prim[rec: rec + 4] = k.to_bytes(4, "little")
        lay = layouts[k]
        if lay.record_kind is RecordKind.HYBRID and stride >= lay.primary.min_stride:
            ns = lay.primary.field("NumSecondaryRecords").offset
            sp = lay.primary.field("SecondaryRecords").offset
            count = rng.choice([0, 1, 2, 3, 5, 5, 5, 0xFFFFFFFF])
            pointer = rng.choice([SECONDARY_VA + 8 * rng.randrange(sec_size // 16)] * 12
                                 + [SECONDARY2_VA + 8 * rng.randrange(sec_size // 16)] * 4
                                 + [SECONDARY_VA + 4, SECONDARY_VA + sec_size - 8, rng.randrange(2**64), 2**64 - 8])
            if k == 0 and rng.randrange(4) == 0:
                prim[rec: rec + 4] = rng.randrange(len(progs), len(progs) + 3).to_bytes(4, "little")
            prim[rec + ns: rec + ns + 4] = count.to_bytes(4, "little")
            prim[rec + sp: rec + sp + 8] = pointer.to_bytes(8, "little")
    split = draw(st.sampled_from([None, None, rng.randrange(len(prim) + 1)]))
    if split is None:
        s.put(PRIMARY_VA, bytes(prim))
    else:  # two adjacent regions: a record across the boundary is unmapped to the reference, chunks span both
        s.memory.map(PRIMARY_VA, bytearray(prim[:split]), name="primary-a", writable=True)
        s.memory.map(PRIMARY_VA + split, bytearray(prim[split:]), name="primary-b", writable=True)
    s.put(SECONDARY_VA, bytes(rng.randrange(256) for _ in range(sec_size)))
    s.put(SECONDARY2_VA, bytes(rng.randrange(256) for _ in range(sec_size)))
    for _ in range(draw(st.integers(0, 6))):  # corruption
        va = rng.choice([PRIMARY_VA + rng.randrange(len(prim)), SECONDARY_VA + rng.randrange(sec_size)])
        if s.memory.region_at(va) is None:
            continue
        s.memory.write(va, bytes([rng.randrange(256)]))
    s.state.descriptor_heaps = DescriptorHeaps(CBV_SRV_UAV=draw(st.booleans()), SAMPLER=draw(st.booleans()))
    tier2 = draw(st.booleans())
    if tier2:  # a two-list chain: the same records, then the second half
        s.bind_array("ARR", [(gen.wls, Scene.binding(TABLE_VA, table_stride, slots))])
        cont = 1 << 0
        s.put(INPUT_VA, dispatch_input1(n, PRIMARY_VA, stride, cont, next_=INPUT_VA + 64))
        s.put(INPUT_VA + 64, dispatch_input1(n // 2, PRIMARY_VA + stride * (n - n // 2), stride))
        call = DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=n, MaxGraphicsPrimaryLists=2,
                                tier2=True)
    else:
        s.put(INPUT_VA, dispatch_input(n, PRIMARY_VA, stride))
        call = DispatchListCall(INPUT_VA, MaxGraphicsProgramInputsPerPrimaryList=draw(st.sampled_from([0, n])))
    small = {"max_executions": 4096, "max_records": 16384, "max_repeated_records": 2048}  # fast either engine
    limits = draw(st.sampled_from([Limits(**small), Limits(**{**small, "max_executions": 97}),
                                   Limits(**{**small, "max_records": 211}), Limits(**{**small, "max_repeated_records": 5}),
                                   Limits(**small, max_primary_records=150), Limits(**small, max_secondary_records=2),
                                   Limits(**small, max_findings=3)]))
    return s, call, limits


@PROPERTY
@given(work_lists(), st.sampled_from([7, 64, arrays.CHUNK]))
def test_generated_work_lists(scene, chunk):
    s, call, limits = scene
    old = arrays.CHUNK
    arrays.CHUNK = chunk
    try:
        same(s.memory, s.device, s.objects, s.state, call, limits)
    finally:
        arrays.CHUNK = old


@PROPERTY
@given(st.integers(0, 40), st.integers(0, 48), st.integers(0, 2**32 - 1), st.integers(0, 5),
       st.sampled_from([None, Limits(max_executions=5), Limits(max_records=9)]), st.booleans())
def test_generated_execute_indirect(commands, count, seed, flips, limits, with_count):
    rng = random.Random(seed)
    s, cs = ei_scene(commands)
    for i, a in enumerate(cs.pArgumentDescs):  # some members named (issue 24), the rest positional
        if rng.random() < 0.5:
            a.Name = f"Command{i}"
    s.put(COUNT_VA, count.to_bytes(4, "little"))
    memory = mutated(s.memory, rng, flips) if commands else s.memory
    call = ExecuteIndirectCall(cs, max(commands, 1) + 3, ARGS_VA, COUNT_VA if with_count else None)
    same(memory, s.device, s.objects, s.state, call, limits)


@PROPERTY
@given(st.integers(0, 2**32 - 1), st.integers(0, 12), st.sampled_from([2, 5, arrays.CHUNK]),
       st.sampled_from([None, Limits(max_executions=4), Limits(max_records=6)]))
def test_generated_execute_indirect_call_requirements(seed, flips, chunk, limits):
    """Calls drawn as the call-requirement breakers draw them (tests/breakers_ei.py: every argument type, count
    buffer or not, resources and states or the region), then corrupted: bytes of the commands flipped (index
    formats, CBV addresses, VAs), the resources and states drawn anew, MaxCommandCount and the stride changed.  The
    call-time findings and the per-command ones are the same on both engines, chunked or not."""
    from breakers_ei import BROKEN_STATES, KEPT_STATES, ei_spec, states

    from d3d12wl.model.state import BufferResource

    rng = random.Random(seed)
    spec = ei_spec(rng, cbv=rng.random() < 0.5, index_buffer=rng.random() < 0.5)
    if rng.random() < 0.3:
        spec.max_count += rng.randint(0, 6)
    if rng.random() < 0.2:
        spec.cs.ByteStride += rng.choice([-4, 1, 4])
    if rng.random() < 0.5:
        base = spec.args_va - rng.randint(0, 9)
        spec.args_resource = BufferResource(base, rng.randint(0, 512), rng.choice(
            [None, states(rng.choice(KEPT_STATES + BROKEN_STATES))]))
    if rng.random() < 0.3:
        spec.root_signature = None
    c = spec.build()
    memory = mutated(c.memory, rng, flips) if c.memory.regions else c.memory
    old = arrays.CHUNK
    arrays.CHUNK = chunk
    try:
        same(memory, c.device, c.objects, c.state, c.call, limits)
    finally:
        arrays.CHUNK = old


# -- the executor's worst cases ------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", ["self-cycle", "two-cycle", "broadcast-flood", "primary-flood", "culling-flood",
                                  "long-chain"])
def test_worst_cases(case):
    sys.path.insert(0, str(ROOT / "tools"))
    try:
        import executor_worst_cases
    finally:
        sys.path.pop(0)
    s, call = executor_worst_cases.build(case)
    limits = Limits(max_lists=1024, max_executions=2048, max_records=8192)  # the defaults / 32: same paths, fast
    trace = same(s.memory, s.device, s.objects, s.state, call, limits)
    assert trace.findings[-1].kind in ("chain-cycle", "limit-exceeded")


def test_same_is_not_vacuous():
    """The comparison sees a difference: a trace whose one execution differs is not equal."""
    c = load_capture(EXAMPLES[0])
    fast, ref = execute(c).to_dict(), execute(c, engine="reference").to_dict()
    ref["executions"][-1]["counter"] = -1
    assert fast != ref
    assert dataclasses.is_dataclass(execute(c))
