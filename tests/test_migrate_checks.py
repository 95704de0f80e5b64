"""The helpers an engine's CI calls: ``assert_draws`` against an expected-draws file, ``assert_same_executions``
between two runs (spec "Execution Order and State Scoping": in order where guaranteed, else as multisets)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from d3d12wl.capture.file import load_capture, save_capture
from d3d12wl.migrate import MigrationError, assert_draws, assert_same_executions, load_expected_draws
from d3d12wl.migrate.wl_to_ei import wl_to_ei

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "d3d12wl" / "examples"
CULLING = EXAMPLES / "culling_capture.json"
EXPECTED = EXAMPLES / "culling_expected_draws.csv"


def _rows() -> list[dict[str, str]]:
    return list(csv.DictReader(EXPECTED.read_text(encoding="utf-8").splitlines()))


def test_expected_draws_csv_and_json(tmp_path: Path) -> None:
    assert_draws(CULLING, EXPECTED)
    doc = tmp_path / "expected.json"
    doc.write_text(json.dumps({"draws": [{k: (int(v) if v.isdigit() else v) for k, v in r.items()}
                                         for r in _rows()]}), encoding="utf-8")
    assert_draws(CULLING, doc)
    assert_draws(EXAMPLES / "culling_ei" / "calls.json", EXPECTED)  # the lowered calls draw the same


def test_a_wrong_or_missing_draw_fails_naming_it() -> None:
    rows = _rows()
    rows[4]["VertexCountPerInstance"] = "7"
    with pytest.raises(AssertionError, match=r"draw 4: expected"):
        assert_draws(CULLING, rows)
    with pytest.raises(AssertionError, match="9 executions, 8 expected"):
        assert_draws(CULLING, _rows()[:8])


def test_fields_left_out_are_not_compared() -> None:
    rows = [{"program": r["program"], "type": "DRAW", "VertexCountPerInstance": r["VertexCountPerInstance"],
             "StartVertexLocation": ""} for r in _rows()]
    assert_draws(CULLING, rows)
    assert [d.fields for d in load_expected_draws(rows)][0] == (("VertexCountPerInstance", 36),)


def test_order_is_compared_where_the_spec_guarantees_it() -> None:
    """Graphics-class records without _ALLOW_OUT_OF_ORDER_GRAPHICS run in array order: reversed rows fail in order,
    and pass as a multiset."""
    reversed_rows = _rows()[::-1]
    with pytest.raises(AssertionError):
        assert_draws(CULLING, reversed_rows)
    assert_draws(CULLING, reversed_rows, order="multiset")


def test_bad_expected_draws_are_input_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"draws": [{"program": "Opaque"}]}', encoding="utf-8")
    with pytest.raises(MigrationError, match="'type'"):
        assert_draws(CULLING, bad)
    with pytest.raises(MigrationError, match="not an integer"):
        load_expected_draws([{"type": "DRAW", "InstanceCount": "one"}])


def test_assert_same_executions_lists_the_differences() -> None:
    assert_same_executions(CULLING, EXAMPLES / "culling_ei" / "calls.json")
    with pytest.raises(AssertionError, match="executions, compared in order"):
        assert_same_executions(CULLING, EXAMPLES / "execute_indirect_capture.json")


def test_the_bundled_lowered_culling_example_is_current(tmp_path: Path) -> None:
    """``d3d12wl/examples/culling_ei/`` is ``d3d12wl migrate wl-to-ei`` of the culling example, byte for byte."""
    lowered = wl_to_ei(load_capture(CULLING))
    committed = EXAMPLES / "culling_ei"
    names = json.loads((committed / "calls.json").read_text(encoding="utf-8"))["calls"]
    assert [(c["program"]) for c in names] == [c.program for c in lowered.calls]
    for entry, call in zip(names, lowered.calls):
        out = save_capture(call.capture, tmp_path / entry["capture"])
        assert out.read_text(encoding="utf-8") == (committed / entry["capture"]).read_text(encoding="utf-8")


def test_error_findings_are_differences() -> None:
    """IndirectDrawing "Drawing": the argument buffer must hold MaxCommandCount commands; a call reading past it is
    undefined behaviour (an error finding), which no comparison calls "the same", even against itself."""
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parent))
    from test_migrate_ei_to_wl import _plain_call

    from d3d12wl.migrate.equivalence import compare_runs
    from d3d12wl.model.state import ExecuteIndirectCall

    entry = _plain_call(3)
    call = entry.capture.call
    assert isinstance(call, ExecuteIndirectCall)
    entry.capture.call = ExecuteIndirectCall(call.pCommandSignature, 4, call.ArgumentBuffer, None)
    comparison = compare_runs([entry], [entry])
    assert not comparison.same
    assert any(d.startswith("A has an error finding") for d in comparison.differences)
    assert any(d.startswith("B has an error finding") for d in comparison.differences)
    assert compare_runs([_plain_call(3)], [_plain_call(3)]).same


def test_expected_draws_are_ordered_class_by_class() -> None:
    """Execution Order and State Scoping: the bundled Tier 2 chain's compute records are unordered, its graphics
    records (a list without _ALLOW_OUT_OF_ORDER_GRAPHICS) ordered; the compute list does not make the graphics draws
    a multiset."""
    from d3d12wl.executor import execute

    chain = load_capture(EXAMPLES / "tier2_chain_capture.json")
    rows = [{"program": e["program"], "type": e["trigger"]["type"], **e["trigger"]["fields"]}
            for e in execute(chain).to_dict()["executions"]]
    compute = [r for r in rows if r["type"] == "DISPATCH"]
    graphics = [r for r in rows if r["type"] != "DISPATCH"]
    assert len(compute) > 1 and len(graphics) > 1
    assert_draws(chain, rows)
    assert_draws(chain, compute[::-1] + graphics)
    with pytest.raises(AssertionError, match="draw"):
        assert_draws(chain, compute + graphics[::-1])
    assert_draws(chain, compute + graphics[::-1], order="multiset")
    with pytest.raises(AssertionError, match="no execution matches"):
        assert_draws(chain, compute + [dict(graphics[0], program="Nope")] + graphics[1:], order="multiset")
