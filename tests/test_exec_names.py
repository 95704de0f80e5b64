"""Issue 24 item 1 in the executions: "Where given it [an argument's ``Name``] is the member name everywhere a record
is spelled: ... ``dump``, every ``exec`` format".  Every root argument, constants DWORD, IA binding and trigger an
execution takes from a record says which member supplied it (``ValueSource.field``, the layout's name): in the JSON
and JSON lines traces, the dump's "from" column and ``dump --json``, and the ``.field`` columns of the execution
table (csv, npz, parquet; table version 3).

The fixture is the spec's culling example ("GPU culling and work list emission") with names
(examples/culling_named.json: ``MaterialBufferSRV`` the root SRV of each secondary record, ``Draw`` its DRAW,
``Tint`` the local root constants of each program-table slot, ``LinearWrapSampler`` a static sampler), every
format read back as a user reads it: the csv module, ``numpy.load``, pyarrow.
"""

from __future__ import annotations

import copy
import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d3d12wl.capture.builder import DispatchListSpec, ProgramTableSpec, build_work_list
from d3d12wl.capture.file import Capture, load_capture, save_capture
from d3d12wl.cli import main
from d3d12wl.executor import execute, output
from d3d12wl.executor.execution_table import TRIGGER_FIELD, TRIGGER_PREFIX, execution_columns, is_field_column
from d3d12wl.model import description
from d3d12wl.model.state import RootArgument
from d3d12wl.records import dtypes
from d3d12wl.records.layout import pcs_layout

EXAMPLES = Path(__file__).resolve().parents[1] / "d3d12wl" / "examples"
NAMED = EXAMPLES / "culling_named.json"
#: the culling example's members by the names culling_named.json gives them, and what each supplies
SUPPLIES = {"MaterialBufferSRV": ["root.G1"], "Draw": [f"{TRIGGER_PREFIX}VertexCountPerInstance"],
            "Tint": [f"root.L0[{d}]" for d in range(4)]}


def named_capture(tmp_path: Path) -> Path:
    """The bundled culling capture with the named description's program command signature (the same bytes: a
    Name changes no layout)."""
    doc = json.loads((EXAMPLES / "culling_capture.json").read_text())
    doc["program_command_signatures"] = json.loads(NAMED.read_text())["program_command_signatures"]
    path = tmp_path / "named_capture.json"
    path.write_text(json.dumps(doc))
    return path


# -- reading every format back as a user does --------------------------------------------------------------------


def read_csv(path: Path) -> dict[str, list[Any]]:
    rows = list(csv.DictReader(io.StringIO(path.read_text())))
    return {k: [r[k] or None for r in rows] for k in (rows[0] if rows else {})}


def read_npz(path: Path) -> dict[str, list[Any]]:
    with np.load(path) as z:
        ex = z["executions"]
        out: dict[str, list[Any]] = {}
        for name in ex.dtype.names or ():
            if name.endswith(".absent"):
                continue
            if f"names.{name}" in z or is_field_column(name) or name.endswith(".source"):
                key = "field" if is_field_column(name) else "source" if name.endswith(".source") else name
                table = z[f"names.{key}"]
                out[name] = [str(table[c]) if c >= 0 else None for c in ex[name]]
            else:
                gone = ex[f"{name}.absent"] if f"{name}.absent" in ex.dtype.names else np.zeros(len(ex), bool)
                out[name] = [None if g else int(v) for v, g in zip(ex[name], gone, strict=True)]
        return out


def read_parquet(path: Path) -> dict[str, list[Any]]:
    pq = pytest.importorskip("pyarrow.parquet")
    table: dict[str, list[Any]] = pq.read_table(path).to_pydict()
    return table


READERS = {"csv": read_csv, "npz": read_npz, "parquet": read_parquet}


def exec_formats(capture: Path, tmp_path: Path) -> dict[str, dict[str, list[Any]]]:
    """``d3d12wl exec CAPTURE --format F -o FILE`` for every table format, each read back."""
    got = {}
    for fmt, read in READERS.items():
        if fmt == "parquet":
            pytest.importorskip("pyarrow")
        out = tmp_path / f"frame.{fmt}"
        assert main(["exec", str(capture), "--format", fmt, "-o", str(out), "--quiet"]) == 0
        got[fmt] = read(out)
    return got


def value_columns(table: dict[str, list[Any]], field_column: str) -> list[str]:
    """The columns whose value a ``.field`` column names the member of."""
    if field_column == TRIGGER_FIELD:
        return [c for c in table if c.startswith(TRIGGER_PREFIX)]
    head = field_column.removesuffix(".field")
    if head in table:
        return [head]
    if head.startswith("root."):  # a constants slot: its DWORDs
        return [c for c in table if c.startswith(head + "[") and c.endswith("]")]
    return [c for c in table if c.startswith(head + ".") and not c.endswith((".source", ".va", ".field"))]


def named_values(table: dict[str, list[Any]], names: set[str]) -> dict[str, list[tuple[Any, ...]]]:
    """Per Name, per row: the values of every column that member supplied there (in column order)."""
    n = len(table["index"])
    out: dict[str, list[tuple[Any, ...]]] = {name: [() for _ in range(n)] for name in names}
    for column, fields in table.items():
        if not is_field_column(column):
            continue
        for row, name in enumerate(fields):
            if name in names:
                out[name][row] += tuple(table[c][row] for c in value_columns(table, column))
    return out


# -- the named culling example --------------------------------------------------------------------------------


def test_every_exec_table_format_names_the_member_that_supplied_each_value(tmp_path: Path) -> None:
    """csv (the name), npz (codes into ``names.field``) and parquet (dictionary columns) all say, for each of the
    9 draws, that ``MaterialBufferSRV`` supplied root.G1, ``Draw`` the trigger, ``Tint`` every DWORD of root.L0;
    the CBV the command list set (root.G0) and the static sampler come from no record: no member is named."""
    capture = named_capture(tmp_path)
    trace = execute(load_capture(capture))
    assert len(trace.executions) == 9 and not trace.findings
    for fmt, table in exec_formats(capture, tmp_path).items():
        assert len(table["index"]) == 9, fmt
        assert table[TRIGGER_FIELD] == ["Draw"] * 9, fmt
        assert table["root.G1.field"] == ["MaterialBufferSRV"] * 9, fmt
        assert table["root.L0.field"] == ["Tint"] * 9, fmt  # every DWORD of the slot
        assert "root.G0.field" not in table, fmt  # command-list state: no record member anywhere
        columns = list(table)
        assert columns.index("root.G1") < columns.index("root.G1.source") < columns.index("root.G1.va") < \
            columns.index("root.G1.field") < columns.index("root.L0[0]") < columns.index("root.L0[3]") < \
            columns.index("root.L0.field")
        assert columns.index("trigger.StartInstanceLocation") + 1 == columns.index(TRIGGER_FIELD)
    pq = pytest.importorskip("pyarrow.parquet")
    schema = pq.read_schema(tmp_path / "frame.parquet")
    assert str(schema.field("root.G1.field").type) == "dictionary<values=string, indices=int32, ordered=0>"
    meta = json.loads(schema.metadata[b"d3d12wl"])
    assert meta["version"] == output.TABLE_VERSION == 3
    assert {"name": "root.G1.field", "kind": "category", "names": "field", "nullable": False} in meta["columns"]
    with np.load(tmp_path / "frame.npz") as z:
        assert sorted(z["names.field"]) == ["Draw", "MaterialBufferSRV", "Tint"]
        assert z["executions"].dtype["root.G1.field"] == np.int32


def test_the_traces_and_the_dump_name_the_member(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``exec --json`` / ``--format jsonl``: every source's ``field``; the dump's "from" column and ``dump --json``
    (``field`` beside ``origin``, ``from`` the column's text)."""
    capture = named_capture(tmp_path)
    assert main(["exec", str(capture), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    e = doc["executions"][0]
    assert e["trigger"]["source"]["field"] == "Draw"
    by_param = {(ra["binding"], ra["parameter"], ra["kind"]): ra["sources"] for ra in e["root_arguments"]}
    assert [s["field"] for s in by_param[("global", 0, "CBV")]] == [None]
    assert [s["field"] for s in by_param[("global", 1, "SRV")]] == ["MaterialBufferSRV"]
    assert [s["field"] for s in by_param[("local", 0, "constants")]] == ["Tint"]
    assert [s["field"] for s in by_param[("local", 0, "static_sampler")]] == [None]  # STATIC: baked in, no record
    assert main(["exec", str(capture), "--format", "jsonl", "--json-version", "1"]) == 0
    lines = [json.loads(x) for x in capsys.readouterr().out.splitlines()]
    assert [x["trigger"]["source"]["field"] for x in lines if x["record"] == "execution"] == ["Draw"] * 9
    assert main(["exec", str(capture), "--format", "jsonl"]) == 0  # version 2: the table's .field columns
    rows = [x for x in map(json.loads, capsys.readouterr().out.splitlines()) if x["record"] == "execution"]
    assert {(x["trigger_field"], x["root.G1.field"], x["root.L0.field"]) for x in rows} == {
        ("Draw", "MaterialBufferSRV", "Tint")}
    assert main(["dump", str(capture), "--limit", "1"]) == 0
    text = capsys.readouterr().out
    assert "<- secondary record 0 @0x40000 +0 (MaterialBufferSRV)" in text
    assert "<- program table slot 0 @0x30000 +32 (Tint)" in text
    assert "<- command-list state\n" in text
    assert main(["dump", str(capture), "--limit", "1", "--json"]) == 0
    view = json.loads(capsys.readouterr().out)["executions"][0]
    srv = next(ra for ra in view["root_arguments"] if ra["kind"] == "SRV")
    assert (srv["origin"], srv["field"], srv["from"]) == (
        "secondary record 0 @0x40000 +0", "MaterialBufferSRV", "secondary record 0 @0x40000 +0 (MaterialBufferSRV)")
    assert view["trigger"]["field"] == "Draw"


def test_without_names_the_positional_member_is_named(tmp_path: Path) -> None:
    """The bundled (unnamed) example: the positional layout names, the interface they have always been."""
    table = execution_columns(execute(load_capture(EXAMPLES / "culling_capture.json")).executions)
    names = table.names["field"]
    assert {names[c] for c in table.columns["root.G1.field"]} == {"arg0_ShaderResourceView"}
    assert {names[c] for c in table.columns[TRIGGER_FIELD]} == {"arg1_Draw"}
    assert {names[c] for c in table.columns["root.L0.field"]} == {"arg2_InlineRootParameter"}


def test_execute_indirect_members_are_named(tmp_path: Path) -> None:
    """An ExecuteIndirect command's members (IndirectDrawing.md "Command signature"): the root constants, the
    vertex buffer view and the DRAW, each under its Name; the root views the command list set, under none."""
    doc = json.loads((EXAMPLES / "execute_indirect_capture.json").read_text())
    names = ["MaterialIndex", "DrawFlags", "Positions", "Draw"]
    for arg, name in zip(doc["command_signatures"]["RootConstantsAndVertexBuffers"]["pArgumentDescs"], names,
                         strict=True):
        arg["Name"] = name
    capture = tmp_path / "ei_named.json"
    capture.write_text(json.dumps(doc))
    for fmt, table in exec_formats(capture, tmp_path).items():
        n = len(table["index"])
        assert n == 3 and table["root.G2.field"] == ["MaterialIndex"] * n, fmt
        assert table["root.G6.field"] == ["DrawFlags"] * n and table["ia.vb3.field"] == ["Positions"] * n, fmt
        assert table[TRIGGER_FIELD] == ["Draw"] * n and "ia.vb0.field" not in table, fmt
        assert "root.G1.field" not in table, fmt


# -- inserting an argument keeps every named member's field (property) -----------------------------------------


def build(doc: dict[str, Any], extra: dict[str, Any]) -> Capture:
    """The culling example's frame (3 primary records selecting the three programs, 4 + 2 + 3 draws, a material
    SRV per draw, a tint per program) built from ``doc`` by column name; ``extra`` holds the columns of an
    inserted argument, by the record its Source names."""
    objects = description.load(doc)
    pcs = objects.program_command_signatures["PCS"]
    programs = list(objects.programs.values())
    k = np.arange(9, dtype=np.uint64)
    secondary = {"MaterialBufferSRV": 0x100000 + k * 0x1000, "Draw.VertexCountPerInstance": 3 + k * 3,
                 "Draw.InstanceCount": 1, "Draw.StartVertexLocation": k * 36, "Draw.StartInstanceLocation": 0,
                 **extra.get("SECONDARY_RECORD", {})}
    spec = DispatchListSpec(pcs, {"ProgramTableIndex": np.arange(3, dtype=np.uint32),
                                  **extra.get("PRIMARY_RECORD", {})}, secondary, [4, 2, 3])
    tints = np.array([[1.0, 1.0, 1.0, 1.0], [0.5, 0.7, 1.0, 0.5], [0.0, 0.0, 0.0, 1.0]], dtype=np.float32)
    table = ProgramTableSpec(pcs_layout(pcs), {"ProgramIdentifier": [p.Identifier for p in programs],
                                               "Tint": tints.view(np.uint32), **extra.get("PROGRAM_TABLE_RECORD", {})})
    wl = build_work_list([spec], base_va=0x10000, program_table=table, signature=objects.work_list_signatures["WLS"],
                         objects=objects)
    state = wl.command_list_state(graphics_root_signature=objects.root_signatures["GRS"],
                                  graphics_root_arguments={0: RootArgument("descriptor", value=0x50000)})
    capture: Capture = wl.to_capture(objects, state=state)
    return capture


@st.composite
def inserted(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """An argument the culling signature can take besides its own (no new global root parameter: a vertex buffer
    view, inline local root constants or an inline CBV, from any record), maybe named, and its Source."""
    kind = draw(st.sampled_from(["VERTEX_BUFFER_VIEW", "INLINE_CONSTANTS", "INLINE_CBV"]))
    register = draw(st.integers(1, 7))
    if kind == "VERTEX_BUFFER_VIEW":
        source = draw(st.sampled_from(["PRIMARY_RECORD", "SECONDARY_RECORD"]))
        arg: dict[str, Any] = {"Type": kind, "Source": source, "VertexBuffer": {"Slot": register}}
    else:
        source = draw(st.sampled_from(["PRIMARY_RECORD", "SECONDARY_RECORD", "PROGRAM_TABLE_RECORD"]))
        n = draw(st.integers(1, 3))
        param = {"ParameterType": "32BIT_CONSTANTS", "Constants": {"ShaderRegister": register, "RegisterSpace": 1,
                                                                   "Num32BitValues": n}} if kind == "INLINE_CONSTANTS" \
            else {"ParameterType": "CBV", "Descriptor": {"ShaderRegister": register, "RegisterSpace": 1}}
        arg = {"Type": "INLINE_ROOT_PARAMETER", "Source": source, "Binding": "LOCAL_ROOT_SIGNATURE",
               "InlineRootParameter": {"RootParameter": param, **({"Num32BitValuesToSet": n}
                                                                   if kind == "INLINE_CONSTANTS" else {})}}
    if draw(st.booleans()):
        arg["Name"] = "Extra"
    return arg, source


def extra_columns(doc: dict[str, Any], at: int, source: str) -> dict[str, dict[str, Any]]:
    """The inserted argument's member as one column of bytes (1..n of its record), by its Source."""
    layout = pcs_layout(description.load(doc).program_command_signatures["PCS"])
    record = {"PRIMARY_RECORD": layout.primary, "SECONDARY_RECORD": layout.secondary,
              "PROGRAM_TABLE_RECORD": layout.program_table}[source]
    assert record is not None
    f = record.arg_field(at)
    assert f is not None
    rows = {"PRIMARY_RECORD": 3, "SECONDARY_RECORD": 9, "PROGRAM_TABLE_RECORD": 3}[source]
    member = dtypes.record_dtype(record)[f.name]  # the member's own numpy type (a struct, an array, a scalar)
    raw = (np.arange(rows * member.itemsize, dtype=np.uint64) % 251 + 1).astype(np.uint8)
    return {source: {f.name: raw.view(np.dtype((member, ())) if member.subdtype is None else member.base)
                     .reshape(rows, *member.shape)}}


def tables_of(capture: Capture, tmp_path: Path, tag: str) -> dict[str, dict[str, list[Any]]]:
    trace = execute(capture)
    assert len(trace.executions) == 9 and not trace.errors, [str(f) for f in trace.findings]
    out = {}
    for fmt, read in READERS.items():
        path = tmp_path / f"{tag}.{fmt}"
        with open(path, "wb") as f:
            getattr(output, f"write_{fmt}")(trace, f)
        out[fmt] = read(path)
    return out


@settings(max_examples=12, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(inserted(), st.integers(0, 4))
def test_inserting_an_argument_keeps_every_named_members_field(tmp_path: Path, new: tuple[dict[str, Any], str],
                                                               at: int) -> None:
    """Issue 24: "inserting an argument keeps every named member's name" in the exec outputs too.  Inserting any
    argument anywhere in the named culling signature (it moves positional members, and may move Tint to another
    local root parameter): in csv, npz and parquet each named member still supplies the same values in every row,
    under its own name."""
    pytest.importorskip("pyarrow")
    doc = json.loads(NAMED.read_text())
    before = tables_of(build(doc, {}), tmp_path, "before")
    after_doc = copy.deepcopy(doc)
    arg, source = new
    pcs = after_doc["program_command_signatures"]["PCS"]
    pcs["pArgumentDescs"].insert(at, arg)
    pcs["NumArgumentDescs"] += 1
    secondary = pcs_layout(description.load(after_doc).program_command_signatures["PCS"]).secondary
    assert secondary is not None
    pcs["SecondaryRecordByteStride"] = secondary.min_stride  # (rule 25(e): the stride the new record needs)
    after = tables_of(build(after_doc, extra_columns(after_doc, at, source)), tmp_path, "after")
    for fmt in READERS:
        was, now = named_values(before[fmt], set(SUPPLIES)), named_values(after[fmt], set(SUPPLIES))
        assert was == now, fmt
        for name, columns in SUPPLIES.items():  # (not vacuous: every member supplies its values in every row)
            assert all(len(row) >= len(columns) for row in was[name]), (fmt, name)
        if "Name" in arg:
            assert any(f == "Extra" for c, v in after[fmt].items() if is_field_column(c) for f in v), fmt


def test_a_constants_slot_filled_by_two_members_names_each_with_its_dwords(tmp_path: Path) -> None:
    """Spec "_INLINE_ROOT_PARAMETER" (rule 23(e)): a constants slot may be composed from the sub-ranges of several
    arguments.  The slot's ``.field`` says which member supplied which DWORDs: ``Tint[0:2] Alpha[2:4]``, in every
    table format and ``dump --json``; the JSON trace has one source per member."""
    doc = json.loads(NAMED.read_text())
    pcs = doc["program_command_signatures"]["PCS"]
    tint = pcs["pArgumentDescs"][2]
    alpha = copy.deepcopy(tint)
    tint["InlineRootParameter"]["Num32BitValuesToSet"] = 2
    alpha.update(Name="Alpha", Source="SECONDARY_RECORD")
    alpha["InlineRootParameter"].update(DestOffsetIn32BitValues=2, Num32BitValuesToSet=2)
    pcs["pArgumentDescs"].insert(3, alpha)
    pcs["NumArgumentDescs"] += 1
    secondary = pcs_layout(description.load(doc).program_command_signatures["PCS"]).secondary
    assert secondary is not None
    pcs["SecondaryRecordByteStride"] = secondary.min_stride
    capture = build(doc, {"SECONDARY_RECORD": {"Alpha": np.full((9, 2), 0x3F800000, dtype=np.uint32)},
                          "PROGRAM_TABLE_RECORD": {"Tint": np.full((3, 2), 0x3F000000, dtype=np.uint32)}})
    trace = execute(capture)
    assert len(trace.executions) == 9 and not trace.errors
    slot = trace.executions[0].root_argument("local", 0)
    assert slot is not None and [(s.field, s.first_dword, s.num_dwords) for s in slot.sources] == [
        ("Tint", 0, 2), ("Alpha", 2, 2)]
    tables = tables_of(capture, tmp_path, "split")
    for fmt, table in tables.items():
        assert table["root.L0.field"] == ["Tint[0:2] Alpha[2:4]"] * 9, fmt
    path = save_capture(capture, tmp_path / "split.json")
    assert main(["dump", str(path), "--limit", "1", "--json", "-o", str(tmp_path / "dump.json")]) == 0
    view = json.loads((tmp_path / "dump.json").read_text())["executions"][0]
    constants = next(ra for ra in view["root_arguments"] if ra["kind"] == "constants")
    assert constants["field"] == "Tint[0:2] Alpha[2:4]"
    assert constants["from"].endswith("+32 (Tint); secondary record 0 @0x%x +24 (Alpha)" % view["record_va"]["secondary"])


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_a_member_s_values_are_found_by_its_name_through_pandas(tmp_path: Path, fmt: str) -> None:
    """Issue 38, item 5: "execution-table columns a user can find by member name ... tested through pandas".  The
    table's naming rule (a value column's ``.field`` names the member that supplied it, row by row) finds each of
    the named culling example's members in the DataFrame pandas reads from ``exec --format parquet|csv``
    (``execution_table.member_columns``): ``MaterialBufferSRV`` is ``root.G1``, ``Draw`` the trigger's members,
    ``Tint`` the four DWORDs of ``root.L0``, each value the trace's own."""
    pd = pytest.importorskip("pandas")
    from d3d12wl.executor.execution_table import member_columns

    capture = named_capture(tmp_path)
    out = tmp_path / f"t.{fmt}"
    assert main(["exec", str(capture), "--format", fmt, "-o", str(out)]) == 0
    df = pd.read_parquet(out) if fmt == "parquet" else pd.read_csv(out, dtype=str, keep_default_na=False,
                                                                     na_values=[""])
    trace = execute(load_capture(capture))
    number = (lambda v: v) if fmt == "parquet" else (lambda v: int(v, 0))
    srv = member_columns(df, "MaterialBufferSRV")
    assert list(srv) == ["MaterialBufferSRV"]
    assert [number(v) for v in srv["MaterialBufferSRV"]] == [e.root_argument("global", 1).value
                                                             for e in trace.executions]
    draw = member_columns(df, "Draw")
    assert list(draw) == [f"Draw.{m}" for m in trace.executions[0].trigger.fields]
    for m, values in draw.items():
        assert [number(v) for v in values] == [e.trigger.fields[m.split(".", 1)[1]] for e in trace.executions]
    tint = member_columns(df, "Tint")
    assert list(tint) == [f"Tint[{d}]" for d in range(4)]
    assert [[number(tint[f"Tint[{d}]"][r]) for d in range(4)] for r in range(len(df))] == [
        e.root_argument("local", 0).values for e in trace.executions]
    assert member_columns(df, "NoSuchMember") == {}
