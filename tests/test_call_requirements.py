"""Issue 14: every requirement the specs place on a DispatchList, DispatchList1 or ExecuteIndirect call, its state or
its buffers is a row of the audit table in docs/executor.md ("Audit: every requirement on a call"), and every row the
executor can check has its own finding kind and a breaker (tests/call_requirements.py) that proves it.

* the table and :data:`d3d12wl.executor.trace.FINDING_KINDS` name the same kinds, and every test a row names exists;
* hypothesis draws a breaker and a seed, builds the call twice (every requirement kept; exactly the breaker's one
  broken) and requires, on both engines with the same findings, no error finding on the kept call and the
  breaker's kind on the broken one.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import breakers_ei  # noqa: F401  (registers its breakers)
import breakers_wl  # noqa: F401  (registers its breakers)
import pytest
from call_requirements import BREAKERS, Breaker, Call
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from d3d12wl.executor import run
from d3d12wl.executor.trace import FINDING_KINDS, Trace

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "executor.md"
HEADING = "## Audit: every requirement on a call"
COLUMNS = ("#", "requirement", "source", "checked", "finding", "severity", "test")
#: when a row is checked; "-" for statements a capture cannot show (the test column then says why)
WHEN = ("creation", "SetProgram", "call", "per list", "per record", "per command", "-")
#: kinds that report the executor's own bounds, not a requirement of the specs
NOT_SPEC = {"limit-exceeded": "an executor limit (trace.Limits) was reached: bounded time and memory"}


def audit_rows() -> list[dict[str, str]]:
    text = DOC.read_text(encoding="utf-8")
    assert HEADING in text, f"docs/executor.md has no {HEADING!r} section"
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    rows: list[dict[str, str]] = []
    for line in section.splitlines():
        if not line.startswith("| ") or set(line) <= set("|-: "):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if cells[0] == "#":
            assert tuple(cells) == COLUMNS, f"audit table columns {cells} != {COLUMNS}"
            continue
        assert len(cells) == len(COLUMNS), f"audit row {cells[0]!r} has {len(cells)} cells, not {len(COLUMNS)}"
        rows.append(dict(zip(COLUMNS, cells, strict=True)))
    return rows


def kinds_of(row: dict[str, str]) -> list[str]:
    return re.findall(r"`([a-z0-9-]+)`", row["finding"])


def test_audit_rows_are_well_formed_and_unique():
    rows = audit_rows()
    assert len(rows) > 0
    ids = [r["#"] for r in rows]
    assert len(ids) == len(set(ids)), "duplicate row ids"
    for r in rows:
        assert r["checked"] in WHEN, f"row {r['#']}: checked {r['checked']!r} not one of {WHEN}"
        assert r["requirement"].count('"') >= 2, f"row {r['#']}: the requirement is a quote of the spec"
        if r["checked"] == "-":
            assert r["finding"] == "-" and r["test"].startswith("not in a capture:"), r["#"]


def test_audit_kinds_are_the_finding_kinds():
    """Every kind a call-time row names is a stable id of FINDING_KINDS, and every id is some row's finding."""
    named: set[str] = set()
    for r in audit_rows():
        if r["checked"] not in ("creation", "-"):
            kinds = kinds_of(r)
            assert kinds, f"row {r['#']}: a checked row names its finding kind"
            assert set(kinds) <= set(FINDING_KINDS), f"row {r['#']}: {set(kinds) - set(FINDING_KINDS)} unknown"
            named |= set(kinds)
    assert set(FINDING_KINDS) - named - set(NOT_SPEC) == set()


def test_every_test_a_row_names_exists():
    for r in audit_rows():
        if r["checked"] == "-":
            continue
        refs = re.findall(r"`?(tests/[\w/]+\.py)::(\w+)`?", r["test"])
        assert refs, f"row {r['#']}: names no test (tests/file.py::test_name)"
        for path, name in refs:
            source = ROOT / path
            assert source.is_file(), f"row {r['#']}: {path} does not exist"
            assert re.search(rf"^def {name}\b", source.read_text(), re.M), f"row {r['#']}: {path}::{name} missing"


def test_every_call_time_kind_has_a_breaker():
    call_time = {k for r in audit_rows() if r["checked"] not in ("creation", "-") for k in kinds_of(r)}
    assert call_time - {b.kind for b in BREAKERS} - set(NOT_SPEC) == set()


def _kinds(trace: Trace, severity: str | None = None) -> list[str]:
    return [f.kind for f in trace.findings if severity is None or f.severity == severity]


def _both(c: Call) -> Trace:
    columnar = run(*c.run_args(), hooks=c.hooks, engine="columnar")
    reference = run(*c.run_args(), hooks=c.hooks, engine="reference")
    assert columnar.to_dict()["findings"] == reference.to_dict()["findings"], "the engines disagree"
    return reference


def check(breaker: Breaker, seed: int) -> None:
    kept = _both(breaker.build(random.Random(seed), False))
    assert _kinds(kept, "error") == [] and breaker.kind not in _kinds(kept), (breaker.name, seed, kept.findings)
    broken = _both(breaker.build(random.Random(seed), True))
    assert breaker.kind in _kinds(broken), (breaker.name, seed, broken.findings)


@pytest.mark.parametrize("breaker", BREAKERS, ids=lambda b: f"{b.kind}:{b.name}")
def test_each_breaker_breaks_its_requirement(breaker: Breaker):
    check(breaker, 0)


@settings(max_examples=300, derandomize=True, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BREAKERS), st.integers(0, 2**32 - 1))
def test_one_requirement_broken_at_a_time_is_found(breaker: Breaker, seed: int):
    check(breaker, seed)
